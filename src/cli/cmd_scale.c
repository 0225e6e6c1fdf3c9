/* SPDX-License-Identifier: MIT */
/* gputally scale: speedup, Amdahl and USL fits, and the cost of each GPU count. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/cost_opts.h"
#include "cli/usage.h"
#include "cost/profile.h"
#include "cost/scale.h"
#include "report/scale_out.h"
#include "util/scan.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

enum {
	OPT_JSON = 1,
	OPT_PROFILE,
	OPT_SET,
	OPT_DEADLINE,
	OPT_MAX_COST,
	OPT_HELP,
};

const struct option_def scale_options[] = {
	{ "profile", 'p', "FILE|NAME", "cost profile for the owned and rented cost of each run", OPT_PROFILE },
	{ "set", 's', "KEY=VALUE", "override one cost parameter (repeatable; after the profile)", OPT_SET },
	{ "deadline", 0, "DURATION", "also name the cheapest measured GPU count that finishes within DURATION (12h, 90m)", OPT_DEADLINE },
	{ "max-cost-per-speedup", 0, "X", "also name the count beyond which one more unit of speedup costs more than X", OPT_MAX_COST },
	{ "json", 0, NULL, "machine-readable output (keys: docs/scale.md)", OPT_JSON },
	{ "help", 'h', NULL, "show this help", OPT_HELP },
	OPTIONS_END
};

int cmd_scale(int argc, char **argv)
{
	struct option_iter it;
	struct cost_params p;
	struct gl_err err = { 0 };
	struct scale_run *runs = NULL;
	struct scale_result *res = NULL;
	const char **ops = NULL;
	const char *profile = NULL, **sets = NULL;
	int nops = 0, nsets = 0, id, json = 0, n, ret = EXIT_OK;
	double deadline_h = NAN, max_cost = NAN;
	FILE *in;

	option_iter_init(&it, argc, argv);
	while ((id = option_next(&it, scale_options, &ops, &nops)) != 0) {
		switch (id) {
		case -1:
			return EXIT_USAGE;
		case OPT_HELP:
			options_help("scale", "[options] RUNS.csv",
				     "From runs of one job at several GPU counts (CSV: gpus, and hours or throughput;\n"
				     "optional iterations and cost): speedup and efficiency, the Amdahl serial fraction and\n"
				     "the Universal Scalability Law fitted by least squares, and the cost of each count.",
				     scale_options);
			return EXIT_OK;
		case OPT_JSON:
			json = 1;
			break;
		case OPT_PROFILE:
			profile = it.arg;
			break;
		case OPT_SET:
			sets = xreallocarray(sets, (size_t)nsets + 1, sizeof(*sets));
			sets[nsets++] = it.arg;
			break;
		case OPT_DEADLINE: {
			int64_t ns;
			if (time_parse_dur(it.arg, &ns) || ns <= 0) {
				error("--deadline wants a duration such as 12h or 90m, got '%s'", it.arg);
				return EXIT_USAGE;
			}
			deadline_h = (double)ns / 3.6e12;
			break;
		}
		case OPT_MAX_COST: {
			struct slice s = { it.arg, strlen(it.arg) };
			if (slice_to_double(s, &max_cost) || !(max_cost >= 0) || isinf(max_cost)) {
				error("--max-cost-per-speedup wants a number >= 0, got '%s'", it.arg);
				return EXIT_USAGE;
			}
			break;
		}
		}
	}
	if (nops != 1) {
		error("scale needs one run table (CSV with gpus and hours or throughput; '-' for standard input)");
		return EXIT_USAGE;
	}
	if ((ret = cli_cost_params(&p, profile, sets, nsets)) != EXIT_OK)
		goto out;
	in = strcmp(ops[0], "-") ? fopen(ops[0], "r") : stdin;
	if (!in) {
		error("cannot open '%s'", ops[0]);
		ret = EXIT_FAILURE_RUN;
		goto out;
	}
	runs = xcalloc(SCALE_MAX_RUNS, sizeof(*runs));
	n = scale_read(in, ops[0], runs, SCALE_MAX_RUNS, &err);
	if (in != stdin)
		fclose(in);
	if (n < 0) {
		print_gl_err(&err);
		ret = EXIT_INPUT;
		goto out;
	}
	res = xcalloc(1, sizeof(*res));
	scale_compute(runs, (size_t)n, &p, deadline_h, max_cost, res);
	if (json)
		scale_json(stdout, res, &p, ops[0]);
	else
		scale_text(stdout, res, &p, ops[0]);
out:
	free(runs);
	free(res);
	free(sets);
	free(ops);
	return ret;
}
