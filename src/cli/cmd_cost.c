/* SPDX-License-Identifier: MIT */
/* gputally cost: the owning-versus-renting model alone, from a profile and --set values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/usage.h"
#include "util/termsafe.h"
#include "cost/model.h"
#include "cost/profile.h"
#include "report/cost_explain.h"
#include "util/jsonw.h"
#include "util/numfmt.h"
#include "util/version.h"
#include "util/scan.h"

#define COST_OPTIONS(X, G) \
	X(PROFILE, "profile", 'p', "FILE|NAME", "profile file, or the name of a built-in preset") \
	X(SET, "set", 's', "KEY=VALUE", "override one parameter (repeatable; after the profile)") \
	X(UTILIZATION, "utilization", 'u', "U", "also price a useful hour at utilization U (0 < U <= 1)") \
	X(JOB_HOURS, "job-hours", 0, "T", "also price one job of T useful hours, locally and in the cloud") \
	X(JSON, "json", 0, NULL, "machine-readable output") \
	X(LIST_PROFILES, "list-profiles", 0, NULL, "list the built-in presets and exit") \
	X(EXPLAIN, "explain", 0, NULL, "print the derivation: each formula with the values put in (u*, C_L(u), job length)") \
	X(HELP, "help", 'h', NULL, "show this help")

enum { OPTION_IDS(COST_OPTIONS) };

const struct option_def cost_options[] = { OPTION_ROWS(COST_OPTIONS) OPTIONS_END };

#define COST_SYNOPSIS "[--profile FILE|NAME] [--set KEY=VALUE]... [--utilization U] " \
		      "[--job-hours T] [--json] [--explain] [--list-profiles]"

struct cost_run {
	struct cost_params p;
	struct cost_longrun lr;
	struct cost_sens sens[COST_NSENS];
	size_t nsens;
	double u_at;		/* --utilization, NAN when not given */
	double u_job;		/* utilization of the job-length break-even */
	struct cost_job_be job_be;
	double job_hours;	/* --job-hours, NAN when not given */
	struct cost_roi roi;	/* at u_at, when given */
	struct cost_sens roi_sens[COST_NROI_SENS];
	size_t nroi_sens;
};

/* ---- small formatting helpers ------------------------------------------ */

/* parameters and plain figures: the shortest exact text (jsonw's) */
static const char *num(char *buf, size_t cap, double v, int decimals)
{
	if (isnan(v))
		return "n/a";
	if (isinf(v))
		return v > 0 ? "infinite" : "-infinite";
	return fmt_num(buf, cap, v, decimals);
}

/* An amount with the profile's currency after it (util/numfmt.h's rule). */
static const char *money(char *buf, size_t cap, const struct cost_params *p, double v)
{
	return nf_money(buf, cap, v, p->currency);
}

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
	struct jsonw w;

	if (json) {
		jsonw_init(&w, stdout, true);
		jsonw_arr_begin(&w);
	}
	for (size_t i = 0; cost_preset_name(i); i++) {
		struct cost_params p;
		struct gl_err e;

		cost_params_init(&p);
		gl_err_clear(&e);
		/* A preset that does not parse is a build bug; still list it, flagged. */
		if (cost_profile_load_string(&p, cost_preset_text(i), cost_preset_name(i), &e))
			snprintf(p.description, sizeof(p.description), "(does not parse: %.150s)",
				 e.msg);
		if (json) {
			jsonw_obj_begin(&w);
			jsonw_kstr(&w, "name", cost_preset_name(i));
			jsonw_kstr(&w, "description", p.description);
			jsonw_kstr(&w, "currency", p.currency);
			jsonw_obj_end(&w);
		} else {
			printf("%-24s %s\n", cost_preset_name(i), p.description);
		}
	}
	if (json)
		jsonw_arr_end(&w);
	return EXIT_OK;
}

/* ---- text output -------------------------------------------------------- */

static void print_params_text(const struct cost_params *p)
{
	char b[64];

	printf("parameters (value, then where it came from):\n");
	for (size_t i = 0; i < COST_NPARAMS; i++) {
		const struct cost_param_info *d = cost_param_info(i);
		printf("  %-28s %14s  %-13s %s\n", d->key, num(b, sizeof(b), cost_param_get(p, i), 6),
		       d->unit, cost_origin_name(p->origin[i]));
	}
}

static void print_verdict_text(const struct cost_run *r)
{
	const struct cost_longrun *lr = &r->lr;
	char b1[64], b2[64];

	printf("\nbreak-even utilization u* = %s: %s\n", nf_pct(b1, sizeof(b1), lr->u_star, 1),
	       cost_status_name(lr->status));
	switch (lr->status) {
	case COST_OK:
		printf("  Owning is cheaper than renting once the GPU does useful work more than "
		       "%s of its available hours, about %s useful GPU-hours a month.\n",
		       nf_pct(b1, sizeof(b1), lr->u_star, 1),
		       num(b2, sizeof(b2), lr->useful_hours_per_month, 1));
		printf("  useful GPU-hours a month to break even: %s\n",
		       num(b1, sizeof(b1), lr->useful_hours_per_month, 2));
		break;
	case COST_ABOVE_FULL_USE:
		printf("  Owning never pays: even at full use a useful hour costs %s locally "
		       "against %s in the cloud.\n",
		       money(b1, sizeof(b1), &r->p, cost_local_per_useful_hour(&r->p, 1)),
		       money(b2, sizeof(b2), &r->p, lr->c_cloud));
		break;
	default:
		printf("  Owning never pays: the extra electricity of a busy hour over an idle one "
		       "(%s) costs at least as much as a useful cloud hour (%s).\n",
		       money(b1, sizeof(b1), &r->p, lr->k * (lr->p_busy - lr->p_idle)),
		       money(b2, sizeof(b2), &r->p, lr->c_cloud));
		break;
	}
}

static void print_job_text(const struct cost_run *r)
{
	char b1[64], b2[64], b3[64], b4[64];

	printf("\njob length break-even at utilization %s%s:\n", nf_pct(b1, sizeof(b1), r->u_job, 1),
	       isnan(r->u_at) ? " (the best case for owning; --utilization sets it)" : "");
	switch (r->job_be.status) {
	case COST_JOB_CROSS:
		printf("  Owning is cheaper for every job longer than %s useful hours (%s s); "
		       "shorter jobs can be cheaper in the cloud.\n",
		       num(b1, sizeof(b1), r->job_be.hours, 6),
		       num(b2, sizeof(b2), r->job_be.hours * 3600, 1));
		break;
	case COST_JOB_LOCAL_ALWAYS:
		printf("  Owning is cheaper for every job length.\n");
		break;
	case COST_JOB_CLOUD_ALWAYS:
		printf("  Renting is cheaper (or equal) for every job length.\n");
		break;
	default:
		printf("  Owning is cheaper only for some short jobs, none longer than %s useful "
		       "hours; renting is cheaper for longer jobs.\n",
		       num(b1, sizeof(b1), r->job_be.hours, 6));
		break;
	}
	if (!isnan(r->job_hours)) {
		double local = r->p.local_per_job_fixed +
			       r->job_hours * cost_local_per_useful_hour(&r->p, r->u_job);
		double wall_h = r->job_hours / r->p.cloud_efficiency + r->p.cloud_cold_start_s / 3600;

		printf("  a job of %s useful hours: %s locally, %s in the cloud (%s billed hours)\n",
		       num(b1, sizeof(b1), r->job_hours, 6), money(b2, sizeof(b2), &r->p, local),
		       money(b3, sizeof(b3), &r->p, cost_cloud_job(&r->p, r->job_hours)),
		       num(b4, sizeof(b4), cost_billed_hours(&r->p, wall_h), 6));
	}
}

static void print_sens_text(const struct cost_run *r)
{
	char a[64], b[64], c[64], d[64], e[64];

	printf("\nsensitivity of u* (one parameter at 0.8x and 1.2x, fractions clamped to their "
	       "range; largest swing first):\n");
	printf("  %-28s %12s %12s %10s %10s %10s\n", "parameter", "low value", "high value",
	       "u* low", "u* high", "swing");
	for (size_t i = 0; i < r->nsens; i++) {
		const struct cost_sens *s = &r->sens[i];
		printf("  %-28s %12s %12s %10s %10s %10s\n", s->param,
		       num(a, sizeof(a), s->low_value, 6), num(b, sizeof(b), s->high_value, 6),
		       isnan(s->u_low) ? "never" : nf_pct(c, sizeof(c), s->u_low, 2),
		       isnan(s->u_high) ? "never" : nf_pct(d, sizeof(d), s->u_high, 2),
		       nf_pct(e, sizeof(e), s->swing, 2));
	}
}

static const char *months(char *buf, size_t cap, double m)
{
	if (isnan(m))
		return "never";
	snprintf(buf, cap, "%.1f months", m);
	return buf;
}

static void print_roi_text(const struct cost_run *r)
{
	const struct cost_roi *o = &r->roi;
	char a[64], b[64], c[64], d[64], e[64];

	if (isnan(r->u_at)) {
		printf("\nreturn on investment: give --utilization U (the share of hours the GPU does useful work; "
		       "'gputally report' measures it) to compute it.\n");
		return;
	}
	printf("\nreturn on investment at utilization %s (docs/cost.md):\n", nf_pct(a, sizeof(a), o->u, 1));
	printf("  capital     price charged to GPU work %s; running cost %s a year (energy %s); "
	       "TCO over %s years %s\n", money(a, sizeof(a), &r->p, o->capex),
	       money(b, sizeof(b), &r->p, o->opex_per_year), money(c, sizeof(c), &r->p, o->energy_per_year),
	       num(d, sizeof(d), r->p.lifetime_years, 2), money(e, sizeof(e), &r->p, o->tco_lifetime));
	printf("  efficiency  %s useful hours a year at %s each; renting them would cost %s a year\n",
	       num(a, sizeof(a), o->useful_hours_per_year, 1), money(b, sizeof(b), &r->p, o->cost_per_useful_hour),
	       money(c, sizeof(c), &r->p, o->cloud_cost_per_year));
	printf("  business    gain %s a year%s\n", money(a, sizeof(a), &r->p, o->business_gain_per_year),
	       o->business_gain_per_year > 0 ? "" : " (--set business_gain_per_year=... to count one)");
	printf("  return      %s a year (renting avoided + gain - running cost); payback %s; "
	       "at the end of the lifetime %s (ROI %s %%)\n", money(a, sizeof(a), &r->p, o->return_per_year),
	       months(b, sizeof(b), o->payback_months), money(c, sizeof(c), &r->p, o->return_at_end),
	       num(d, sizeof(d), o->roi_pct, 1));
	printf("\nsensitivity of the payback (one parameter at 0.8x and 1.2x; largest swing first):\n");
	printf("  %-28s %12s %12s %14s %14s\n", "parameter", "low value", "high value", "payback low", "payback high");
	for (size_t i = 0; i < r->nroi_sens; i++) {
		const struct cost_sens *s = &r->roi_sens[i];
		printf("  %-28s %12s %12s %14s %14s\n", s->param, num(a, sizeof(a), s->low_value, 6),
		       num(b, sizeof(b), s->high_value, 6), months(c, sizeof(c), s->u_low),
		       months(d, sizeof(d), s->u_high));
	}
}

static void print_text(const struct cost_run *r)
{
	const struct cost_longrun *lr = &r->lr;
	char b1[64], b2[64], b3[64];

	printf("cost model: %s\n", r->p.name[0] ? r->p.name : "(defaults, no profile)");
	if (r->p.description[0])
		printf("%s\n", r->p.description);
	if (r->p.currency[0])
		printf("amounts in %s\n", r->p.currency);
	printf("\n");
	print_params_text(&r->p);

	printf("\nlong run:\n");
	printf("  H    available hours per year        %s\n", num(b1, sizeof(b1), lr->H, 4));
	printf("  F    fixed cost per year             %s\n", money(b1, sizeof(b1), &r->p, lr->F));
	printf("  k    cost of one watt-hour           %s\n",
	       num(b1, sizeof(b1), lr->k, 9));
	printf("       power idle, busy with cooling   %s W, %s W\n",
	       num(b1, sizeof(b1), lr->p_idle, 3), num(b2, sizeof(b2), lr->p_busy, 3));
	printf("  C_C  cloud cost per useful hour      %s\n",
	       money(b1, sizeof(b1), &r->p, lr->c_cloud));
	print_verdict_text(r);

	if (!isnan(r->u_at))
		printf("\nat utilization %s a useful hour costs %s locally against %s in the cloud.\n",
		       nf_pct(b1, sizeof(b1), r->u_at, 1),
		       money(b2, sizeof(b2), &r->p, cost_local_per_useful_hour(&r->p, r->u_at)),
		       money(b3, sizeof(b3), &r->p, lr->c_cloud));
	print_job_text(r);
	print_sens_text(r);
	print_roi_text(r);
}

/* ---- JSON output -------------------------------------------------------- */

static void print_json(const struct cost_run *r)
{
	const struct cost_longrun *lr = &r->lr;
	struct jsonw w;

	jsonw_init(&w, stdout, true);
	jsonw_obj_begin(&w);
	jsonw_version(&w);
	jsonw_key(&w, "profile");
	jsonw_obj_begin(&w);
	jsonw_kstr(&w, "name", r->p.name);
	jsonw_kstr(&w, "description", r->p.description);
	jsonw_kstr(&w, "currency", r->p.currency);
	jsonw_obj_end(&w);

	jsonw_key(&w, "params");
	jsonw_obj_begin(&w);
	for (size_t i = 0; i < COST_NPARAMS; i++)
		jsonw_knum(&w, cost_param_info(i)->key, cost_param_get(&r->p, i), 9);
	jsonw_obj_end(&w);
	jsonw_key(&w, "origin");
	jsonw_obj_begin(&w);
	for (size_t i = 0; i < COST_NPARAMS; i++)
		jsonw_kstr(&w, cost_param_info(i)->key, cost_origin_name(r->p.origin[i]));
	jsonw_obj_end(&w);

	jsonw_key(&w, "local");
	jsonw_obj_begin(&w);
	jsonw_knum(&w, "fixed_per_year", lr->F, 6);
	jsonw_knum(&w, "hours_per_year", lr->H, 6);
	jsonw_knum(&w, "energy_cost_per_wh", lr->k, 12);
	jsonw_knum(&w, "idle_power_w", lr->p_idle, 6);
	jsonw_knum(&w, "busy_power_w", lr->p_busy, 6);
	jsonw_obj_end(&w);

	jsonw_key(&w, "cloud");
	jsonw_obj_begin(&w);
	jsonw_knum(&w, "cost_per_useful_hour", lr->c_cloud, 6);
	jsonw_obj_end(&w);

	jsonw_key(&w, "break_even");
	jsonw_obj_begin(&w);
	jsonw_knum(&w, "utilization", lr->u_star, 6);
	jsonw_kstr(&w, "status", cost_status_name(lr->status));
	jsonw_knum(&w, "useful_hours_per_month", lr->useful_hours_per_month, 6);
	jsonw_obj_end(&w);

	if (!isnan(r->u_at)) {
		jsonw_key(&w, "at_utilization");
		jsonw_obj_begin(&w);
		jsonw_knum(&w, "utilization", r->u_at, 6);
		jsonw_knum(&w, "local_cost_per_useful_hour",
			   cost_local_per_useful_hour(&r->p, r->u_at), 6);
		jsonw_obj_end(&w);
	}

	jsonw_key(&w, "job_break_even");
	jsonw_obj_begin(&w);
	jsonw_kstr(&w, "status", cost_status_name(r->job_be.status));
	jsonw_knum(&w, "hours", r->job_be.hours, 6);
	jsonw_knum(&w, "utilization", r->u_job, 6);
	jsonw_obj_end(&w);

	if (!isnan(r->job_hours)) {
		double wall_h = r->job_hours / r->p.cloud_efficiency + r->p.cloud_cold_start_s / 3600;

		jsonw_key(&w, "job");
		jsonw_obj_begin(&w);
		jsonw_knum(&w, "hours", r->job_hours, 6);
		jsonw_knum(&w, "local_cost", r->p.local_per_job_fixed +
			   r->job_hours * cost_local_per_useful_hour(&r->p, r->u_job), 6);
		jsonw_knum(&w, "cloud_cost", cost_cloud_job(&r->p, r->job_hours), 6);
		jsonw_knum(&w, "cloud_billed_hours", cost_billed_hours(&r->p, wall_h), 6);
		jsonw_obj_end(&w);
	}

	jsonw_key(&w, "sensitivity");
	jsonw_arr_begin(&w);
	for (size_t i = 0; i < r->nsens; i++) {
		const struct cost_sens *s = &r->sens[i];
		jsonw_obj_begin(&w);
		jsonw_kstr(&w, "param", s->param);
		jsonw_knum(&w, "low_value", s->low_value, 9);
		jsonw_knum(&w, "high_value", s->high_value, 9);
		jsonw_knum(&w, "u_low", s->u_low, 6);
		jsonw_knum(&w, "u_high", s->u_high, 6);
		jsonw_knum(&w, "swing", s->swing, 6);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);

	if (!isnan(r->u_at)) {
		const struct cost_roi *o = &r->roi;
		jsonw_key(&w, "roi");
		jsonw_obj_begin(&w);
		jsonw_knum(&w, "utilization", o->u, 6);
		jsonw_knum(&w, "capex", o->capex, 6);
		jsonw_knum(&w, "opex_per_year", o->opex_per_year, 6);
		jsonw_knum(&w, "energy_per_year", o->energy_per_year, 6);
		jsonw_knum(&w, "tco_lifetime", o->tco_lifetime, 6);
		jsonw_knum(&w, "useful_hours_per_year", o->useful_hours_per_year, 6);
		jsonw_knum(&w, "cost_per_useful_hour", o->cost_per_useful_hour, 6);
		jsonw_knum(&w, "cloud_cost_per_year", o->cloud_cost_per_year, 6);
		jsonw_knum(&w, "business_gain_per_year", o->business_gain_per_year, 6);
		jsonw_knum(&w, "return_per_year", o->return_per_year, 6);
		jsonw_knum(&w, "payback_months", o->payback_months, 6);
		jsonw_knum(&w, "return_at_end", o->return_at_end, 6);
		jsonw_knum(&w, "roi_pct", o->roi_pct, 6);
		jsonw_key(&w, "sensitivity");
		jsonw_arr_begin(&w);
		for (size_t i = 0; i < r->nroi_sens; i++) {
			const struct cost_sens *s = &r->roi_sens[i];
			jsonw_obj_begin(&w);
			jsonw_kstr(&w, "param", s->param);
			jsonw_knum(&w, "low_value", s->low_value, 9);
			jsonw_knum(&w, "high_value", s->high_value, 9);
			jsonw_knum(&w, "payback_low", s->u_low, 6);
			jsonw_knum(&w, "payback_high", s->u_high, 6);
			jsonw_knum(&w, "swing", s->swing, 6);
			jsonw_obj_end(&w);
		}
		jsonw_arr_end(&w);
		jsonw_obj_end(&w);
	}
	jsonw_obj_end(&w);
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

	cost_longrun(&r->p, &r->lr);
	r->nsens = cost_sensitivity(&r->p, r->sens, COST_NSENS);
	if (!isnan(r->u_at)) {
		cost_roi(&r->p, r->u_at, &r->roi);
		r->nroi_sens = cost_roi_sensitivity(&r->p, r->u_at, r->roi_sens, COST_NROI_SENS);
	}
	r->u_job = isnan(r->u_at) ? 1 : r->u_at;
	cost_job_breakeven(&r->p, r->u_job, &r->job_be);
	if (explain && json) {
		error("--explain is text for a reader; --json has the same figures");
		goto usage;
	}
	if (explain)
		cost_explain(stdout, &r->p, r->u_at);
	else if (json)
		print_json(r);
	else
		print_text((term_safe_stdout(), r));
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
	return rc;
}
