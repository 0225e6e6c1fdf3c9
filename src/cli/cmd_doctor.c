/* SPDX-License-Identifier: MIT */
/* gputally doctor: why the NVIDIA driver does not answer, check by check. */
#include <stdio.h>
#include <stdlib.h>

#include "cli/commands.h"
#include "cli/usage.h"
#include "util/termsafe.h"
#include "record/doctor.h"
#include "util/jsonw.h"
#include "util/version.h"

#define DOCTOR_OPTIONS(X, G) \
	X(ROOT, "root", 0, "DIR", "read /proc, /sys, /dev, /lib/modules and /var/log under DIR (default /)") \
	X(NVML_LIB, "nvml-lib", 0, "PATH", "load NVML from PATH (default $GPUTALLY_NVML_LIB, then libnvidia-ml.so.1)") \
	X(KERNEL_LOG, "kernel-log", 0, "FILE", "the kernel log to scan (default /dev/kmsg, then var/log/kern.log, syslog, messages)") \
	X(APP_LOG, "app-log", 0, "FILE", "an application's log to scan for CUDA capability errors (a build for another GPU)") \
	X(JSON, "json", 0, NULL, "machine-readable output: checks[] with id, status, detail, fix") \
	X(HELP, "help", 'h', NULL, "show this help")

enum { OPTION_IDS(DOCTOR_OPTIONS) };

const struct option_def doctor_options[] = { OPTION_ROWS(DOCTOR_OPTIONS) OPTIONS_END };

static void print_json(const struct doctor_opts *o, const struct doctor_report *r)
{
	struct jsonw w;

	jsonw_init(&w, stdout, true);
	jsonw_obj_begin(&w);
	jsonw_version(&w);
	jsonw_kstr(&w, "root", o->root);
	jsonw_key(&w, "checks");
	jsonw_arr_begin(&w);
	for (int i = 0; i < DOC__COUNT; i++) {
		const struct doc_check *k = &r->checks[i];
		jsonw_obj_begin(&w);
		jsonw_kstr(&w, "id", k->id);
		jsonw_kstr(&w, "status", doc_status_name[k->status]);
		jsonw_kstr(&w, "detail", k->detail);
		if (k->fix[0])
			jsonw_kstr(&w, "fix", k->fix);
		else {
			jsonw_key(&w, "fix");
			jsonw_null(&w);
		}
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	jsonw_kint(&w, "failed", r->failed);
	jsonw_kint(&w, "warnings", r->warned);
	jsonw_obj_end(&w);
	jsonw_flush(&w);
	fputc('\n', stdout);
}

static void print_text(const struct doctor_opts *o, const struct doctor_report *r)
{
	static const char *const tag[4] = { "ok  ", "WARN", "FAIL", "skip" };

	printf("gputally doctor: the NVIDIA driver stack under %s\n\n", o->root);
	for (int i = 0; i < DOC__COUNT; i++) {
		const struct doc_check *k = &r->checks[i];
		printf("  %s  %-15s %s\n", tag[k->status], k->id, k->detail);
		if (k->fix[0])
			printf("        %-15s fix: %s\n", "", k->fix);
	}
	if (r->failed)
		printf("\n%d check%s failed, %d warning%s: fix the first failed check first; later ones often follow from it.\n",
		       r->failed, r->failed == 1 ? "" : "s", r->warned, r->warned == 1 ? "" : "s");
	else
		printf("\nno check failed%s%d warning%s.\n", r->warned ? "; " : ", ", r->warned, r->warned == 1 ? "" : "s");
}

int cmd_doctor(int argc, char **argv)
{
	struct option_iter it;
	struct doctor_opts o = { .root = "/" };
	struct doctor_report *r;
	const char **ops = NULL;
	int nops = 0, id, json = 0, rc;

	o.nvml_lib = getenv("GPUTALLY_NVML_LIB");
	if (o.nvml_lib && !*o.nvml_lib)
		o.nvml_lib = NULL;
	option_iter_init(&it, argc, argv);
	while ((id = option_next(&it, doctor_options, &ops, &nops)) != 0) {
		if (id < 0)
			goto usage;
		switch (id) {
		case OPT_HELP:
			options_help("doctor", "[--root DIR] [--nvml-lib PATH] [--kernel-log FILE] [--app-log FILE] [--json]",
				     "Check the NVIDIA driver stack and say what to fix. Reads only; changes nothing.\n"
				     "Exit status 0 when no check failed, 1 when one did.", doctor_options);
			free(ops);
			return EXIT_OK;
		case OPT_ROOT: o.root = it.arg; break;
		case OPT_NVML_LIB: o.nvml_lib = it.arg; break;
		case OPT_KERNEL_LOG: o.kernel_log = it.arg; break;
		case OPT_APP_LOG: o.app_log = it.arg; break;
		case OPT_JSON: json = 1; break;
		}
	}
	if (nops) {
		fprintf(stderr, "gputally doctor: unexpected argument '%s'\n", ops[0]);
		goto usage;
	}
	free(ops);
	r = calloc(1, sizeof(*r));
	if (!r)
		return EXIT_FAILURE_RUN;
	doctor_run(&o, r);
	if (json)
		print_json(&o, r);
	else
		print_text((term_safe_stdout(), &o), r);	/* details quote kernel lines */
	rc = r->failed ? EXIT_FAILURE_RUN : EXIT_OK;
	free(r);
	return rc;
usage:
	free(ops);
	return EXIT_USAGE;
}
