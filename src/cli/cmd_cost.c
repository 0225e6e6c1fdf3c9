/* SPDX-License-Identifier: MIT */
/* gputally cost: the owning-versus-renting model alone, from a profile and --set values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/cost_opts.h"
#include "cli/usage.h"
#include "util/termsafe.h"
#include "cost/catalog.h"
#include "cost/model.h"
#include "cost/profile.h"
#include "cost/run.h"
#include "report/cost_out.h"
#include "util/scan.h"

#define COST_OPTIONS(X, G) \
	X(PROFILE, "profile", 'p', "FILE|NAME", "profile file, or the name of a built-in preset") \
	X(SET, "set", 's', "KEY=VALUE", "override one parameter (repeatable; after the profile)") \
	X(UTILIZATION, "utilization", 'u', "U", "also price a useful hour at utilization U (0 < U <= 1)") \
	X(JOB_HOURS, "job-hours", 0, "T", "also price one job of T useful hours, locally and in the cloud") \
	X(CLOUD_CATALOG, "cloud-catalog", 0, "FILE", "take the cloud rate from a catalogue CSV of instance prices (SkyPilot's vms.csv): the median per-GPU on-demand rate of the GPU model of --gpu, else of the profile's name (docs/prices.md); also --set cloud_catalog=FILE") \
	X(GPU, "gpu", 0, "NAME", "the GPU model to look up in --cloud-catalog ('H200', 'NVIDIA A100-SXM4-80GB'); default: the profile's name") \
	X(JSON, "json", 0, NULL, "machine-readable output") \
	X(LIST_PROFILES, "list-profiles", 0, NULL, "list the built-in presets and exit") \
	X(EXPLAIN, "explain", 0, NULL, "print the derivation: each formula with the values put in (u*, C_L(u), job length)") \
	X(HELP, "help", 'h', NULL, "show this help")

enum { OPTION_IDS(COST_OPTIONS) };

const struct option_def cost_options[] = { OPTION_ROWS(COST_OPTIONS) OPTIONS_END };

#define COST_SYNOPSIS "[--profile FILE|NAME] [--set KEY=VALUE]... [--utilization U] " \
		      "[--job-hours T] [--cloud-catalog FILE [--gpu NAME]] [--json] [--explain] [--list-profiles]"

static int parse_fraction_arg(const char *opt, const char *arg, double lo_open, double hi,
			      double *out)
{
	struct slice s = slice_trim((struct slice){ arg, strlen(arg) });

	if (!s.n || slice_to_double(s, out)) {
		error("--%s: bad value '%s': expected a number", opt, arg);
		return -1;
	}
	if (!(*out > lo_open && *out <= hi)) {
		if (isfinite(hi))
			error("--%s must be greater than %g and at most %g, got %s", opt, lo_open, hi,
			      arg);
		else
			error("--%s must be greater than %g, got %s", opt, lo_open, arg);
		return -1;
	}
	return 0;
}

/* ---- --list-profiles ---------------------------------------------------- */

static int list_profiles(int json)
{
	size_t n = 0;
	struct cost_params *ps;

	while (cost_preset_name(n))
		n++;
	ps = calloc(n ? n : 1, sizeof(*ps));
	if (!ps)
		die(EXIT_FAILURE_RUN, "out of memory");
	for (size_t i = 0; i < n; i++) {
		struct gl_err e;

		cost_params_init(&ps[i]);
		gl_err_clear(&e);
		/* A preset that does not parse is a build bug; still list it, flagged. */
		if (cost_profile_load_string(&ps[i], cost_preset_text(i), cost_preset_name(i), &e))
			snprintf(ps[i].description, sizeof(ps[i].description), "(does not parse: %.150s)",
				 e.msg);
		/* listed by the preset's name, whatever its file calls itself */
		snprintf(ps[i].name, sizeof(ps[i].name), "%s", cost_preset_name(i));
	}
	cost_out_presets(stdout, ps, n, json);
	free(ps);
	return EXIT_OK;
}

/* ---- the command -------------------------------------------------------- */

static int report_load_error(const struct gl_err *e)
{
	if (e->src && e->line)
		error("%s:%llu: %s", e->src, (unsigned long long)e->line, e->msg);
	else
		error("%s", e->msg);
	return e->code == GL_EUSAGE ? EXIT_USAGE : EXIT_FAILURE_RUN;
}

int cmd_cost(int argc, char **argv)
{
	struct option_iter it;
	const char **ops = NULL, **profiles = NULL, **sets = NULL;
	int nops = 0, nprofiles = 0, nsets = 0, id, json = 0, list = 0, explain = 0, rc = EXIT_OK;
	struct cost_run *r = calloc(1, sizeof(*r));
	const char *catalog = NULL, *gpu = NULL;
	struct cloud_catalog cat = { 0 };
	const struct cost_writer *wr;	/* the output's writer, by name */
	struct gl_err e;

	if (!r)
		die(EXIT_FAILURE_RUN, "out of memory");
	r->u_at = NAN;
	r->job_hours = NAN;
	profiles = calloc((size_t)argc + 1, sizeof(*profiles));
	sets = calloc((size_t)argc + 1, sizeof(*sets));
	if (!profiles || !sets)
		die(EXIT_FAILURE_RUN, "out of memory");

	option_iter_init(&it, argc, argv);
	while ((id = option_next(&it, cost_options, &ops, &nops)) != 0) {
		switch (id) {
		case OPT_HELP:
			options_help("cost", COST_SYNOPSIS,
				     "Compare owning a GPU with renting one: break-even utilization, "
				     "job length and sensitivity.\nParameters: see docs/cost.md.",
				     cost_options);
			goto out;
		case OPT_PROFILE:
			profiles[nprofiles++] = it.arg;
			break;
		case OPT_SET:
			sets[nsets++] = it.arg;
			break;
		case OPT_UTILIZATION:
			if (parse_fraction_arg("utilization", it.arg, 0, 1, &r->u_at))
				goto usage;
			break;
		case OPT_JOB_HOURS:
			if (parse_fraction_arg("job-hours", it.arg, 0, HUGE_VAL, &r->job_hours))
				goto usage;
			break;
		case OPT_CLOUD_CATALOG:
			catalog = it.arg;
			break;
		case OPT_GPU:
			gpu = it.arg;
			break;
		case OPT_JSON:
			json = 1;
			break;
		case OPT_LIST_PROFILES:
			list = 1;
			break;
		case OPT_EXPLAIN:
			explain = 1;
			break;
		default:
			goto usage;
		}
	}
	if (nops) {
		error("cost takes no operands ('%s'); it reads no logs", ops[0]);
		goto usage;
	}
	if (list) {
		rc = list_profiles(json);
		goto out;
	}

	catalog = cli_take_catalog_set(sets, &nsets, catalog);
	if (gpu && !catalog) {
		error("--gpu names the GPU model to look up in a --cloud-catalog FILE; give that too");
		goto usage;
	}
	cost_params_init(&r->p);
	for (int i = 0; i < nprofiles; i++) {
		gl_err_clear(&e);
		if (cost_profile_load(&r->p, profiles[i], &e)) {
			rc = report_load_error(&e);
			goto out;
		}
	}
	for (int i = 0; i < nsets; i++) {
		gl_err_clear(&e);
		if (cost_param_set_kv(&r->p, sets[i], COST_SET, &e)) {
			error("--set: %s", e.msg);
			goto usage;
		}
	}

	if (catalog) {
		int ret;
		if (gpu && !*gpu) {
			error("--gpu wants the GPU model's name ('H200', 'NVIDIA A100-SXM4-80GB')");
			goto usage;
		}
		if (!gpu && !r->p.name[0]) {
			error("--cloud-catalog: cost reads no logs, so it has no GPU model to look up: "
			      "give --gpu NAME (such as --gpu H100), or a --profile whose name names it");
			goto usage;
		}
		snprintf(r->cat_gpu, sizeof(r->cat_gpu), "%s", gpu ? gpu : r->p.name);
		r->cat_gpu_from = gpu ? "--gpu" : "the profile's name";
		if ((ret = cli_cloud_catalog(&cat, catalog)) != EXIT_OK) {
			rc = ret;
			goto out;
		}
		r->catalog = &cat;
		switch (catalog_apply(&cat, r->cat_gpu, &r->p, &r->cat_pick)) {
		case -1:
			error("%s has no accelerator matching '%s' (%s): give the model as --gpu NAME, or the rate as "
			      "--set cloud_hourly_rate=N", cat.path, r->cat_gpu, r->cat_gpu_from);
			rc = EXIT_FAILURE_RUN;
			goto out;
		case 1:
			r->cat_used = true;
			break;
		}
	}
	cost_run_compute(r);
	if (explain && json) {
		error("--explain is text for a reader; --json has the same figures");
		goto usage;
	}
	wr = cost_writer_find(explain ? "explain" : json ? "json" : "text");
	if (wr->for_terminal)
		term_safe_stdout();
	wr->render(stdout, r);
	if (fflush(stdout) || ferror(stdout)) {
		error("cannot write the output");
		rc = EXIT_FAILURE_RUN;
	}
	goto out;
usage:
	rc = EXIT_USAGE;
out:
	free(ops);
	free(profiles);
	free(sets);
	free(r);
	catalog_free(&cat);
	return rc;
}
