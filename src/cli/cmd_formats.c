/* SPDX-License-Identifier: MIT */
/* gputally formats: the registry, printed. */
#include <stdio.h>

#include "cli/commands.h"
#include "cli/usage.h"
#include "util/termsafe.h"
#include "formats/format.h"
#include "util/jsonw.h"

#define FORMATS_OPTIONS(X, G) \
	X(JSON, "json", 0, NULL, "machine-readable output") \
	X(HELP, "help", 'h', NULL, "show this help")

enum { OPTION_IDS(FORMATS_OPTIONS) };

const struct option_def formats_options[] = { OPTION_ROWS(FORMATS_OPTIONS) OPTIONS_END };

int cmd_formats(int argc, char **argv)
{
	struct option_iter it;
	const char **ops = NULL;
	int nops = 0, id, json = 0;

	option_iter_init(&it, argc, argv);
	while ((id = option_next(&it, formats_options, &ops, &nops)) != 0) {
		if (id < 0)
			return EXIT_USAGE;
		if (id == OPT_HELP) {
			options_help("formats", "[--json]", "List the input formats gputally reads.", formats_options);
			return EXIT_OK;
		}
		if (id == OPT_JSON)
			json = 1;
	}
	if (json) {
		struct jsonw w;
		jsonw_init(&w, stdout, true);
		jsonw_arr_begin(&w);
		for (size_t i = 0; i < format_count(); i++) {
			const struct format *f = format_at(i);
			jsonw_obj_begin(&w);
			jsonw_kstr(&w, "id", f->id);
			jsonw_kstr(&w, "summary", f->summary);
			jsonw_kstr(&w, "detects", f->detects);
			jsonw_obj_end(&w);
		}
		jsonw_arr_end(&w);
	} else {
		term_safe_stdout();
		for (size_t i = 0; i < format_count(); i++) {
			const struct format *f = format_at(i);
			printf("%-19s %s\n%-19s recognised by: %s\n", f->id, f->summary, "", f->detects);
		}
		printf("\nCompressed inputs (.gz, .zst) are recognised by their magic bytes.\n");
	}
	return EXIT_OK;
}
