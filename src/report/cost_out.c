/* SPDX-License-Identifier: MIT */
/* gputally cost's writers: text, JSON and the list of presets (cost_out.h). */
#include "report/cost_out.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/catalog_out.h"
#include "util/jsonw.h"
#include "util/numfmt.h"
#include "util/version.h"

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

static void print_params_text(FILE *out, const struct cost_params *p)
{
	char b[64];

	fprintf(out, "parameters (value, then where it came from):\n");
	for (size_t i = 0; i < COST_NPARAMS; i++) {
		const struct cost_param_info *d = cost_param_info(i);
		fprintf(out, "  %-28s %14s  %-13s %s\n", d->key, num(b, sizeof(b), cost_param_get(p, i), 6),
		       d->unit, cost_origin_name(p->origin[i]));
	}
}

/* --cloud-catalog: the rate it gave and from which rows (found in cmd_cost). */
static void print_catalog_text(FILE *out, const struct cost_run *r)
{
	const struct cloud_catalog *c = r->catalog;
	const struct catalog_pick *k = &r->cat_pick;
	char b1[64], b2[64], b3[64];

	if (!c)
		return;
	fprintf(out, "\ncloud rate from %s (%s, from the %s): %s%s per GPU-hour, the median of %zu %s row(s) "
		"(%s-%s), for '%s' (%s)", c->name, c->date, c->date_from, r->cat_used ? "" : "not used, ",
		money(b1, sizeof(b1), &r->p, k->median), k->nrows, k->accel, nf_money(b2, sizeof(b2), k->min, NULL),
		money(b3, sizeof(b3), &r->p, k->max), r->cat_gpu, r->cat_gpu_from);
	fprintf(out, "%s\n", r->cat_used ? "" : "; cloud_hourly_rate was --set");
}

static void print_verdict_text(FILE *out, const struct cost_run *r)
{
	const struct cost_longrun *lr = &r->lr;
	char b1[64], b2[64];

	fprintf(out, "\nbreak-even utilization u* = %s: %s\n", nf_pct(b1, sizeof(b1), lr->u_star, 1),
	       cost_status_name(lr->status));
	switch (lr->status) {
	case COST_OK:
		fprintf(out, "  Owning is cheaper than renting once the GPU does useful work more than "
		       "%s of its available hours, about %s useful GPU-hours a month.\n",
		       nf_pct(b1, sizeof(b1), lr->u_star, 1),
		       num(b2, sizeof(b2), lr->useful_hours_per_month, 1));
		fprintf(out, "  useful GPU-hours a month to break even: %s\n",
		       num(b1, sizeof(b1), lr->useful_hours_per_month, 2));
		break;
	case COST_ABOVE_FULL_USE:
		fprintf(out, "  Owning never pays: even at full use a useful hour costs %s locally "
		       "against %s in the cloud.\n",
		       money(b1, sizeof(b1), &r->p, r->c_local_full),
		       money(b2, sizeof(b2), &r->p, lr->c_cloud));
		break;
	default:
		fprintf(out, "  Owning never pays: the extra electricity of a busy hour over an idle one "
		       "(%s) costs at least as much as a useful cloud hour (%s).\n",
		       money(b1, sizeof(b1), &r->p, r->busy_energy_premium),
		       money(b2, sizeof(b2), &r->p, lr->c_cloud));
		break;
	}
}

static void print_job_text(FILE *out, const struct cost_run *r)
{
	char b1[64], b2[64], b3[64], b4[64];

	fprintf(out, "\njob length break-even at utilization %s%s:\n", nf_pct(b1, sizeof(b1), r->u_job, 1),
	       isnan(r->u_at) ? " (the best case for owning; --utilization sets it)" : "");
	switch (r->job_be.status) {
	case COST_JOB_CROSS:
		fprintf(out, "  Owning is cheaper for every job longer than %s useful hours (%s s); "
		       "shorter jobs can be cheaper in the cloud.\n",
		       num(b1, sizeof(b1), r->job_be.hours, 6),
		       num(b2, sizeof(b2), r->job_be.hours * 3600, 1));
		break;
	case COST_JOB_LOCAL_ALWAYS:
		fprintf(out, "  Owning is cheaper for every job length.\n");
		break;
	case COST_JOB_CLOUD_ALWAYS:
		fprintf(out, "  Renting is cheaper (or equal) for every job length.\n");
		break;
	default:
		fprintf(out, "  Owning is cheaper only for some short jobs, none longer than %s useful "
		       "hours; renting is cheaper for longer jobs.\n",
		       num(b1, sizeof(b1), r->job_be.hours, 6));
		break;
	}
	if (!isnan(r->job_hours))
		fprintf(out, "  a job of %s useful hours: %s locally, %s in the cloud (%s billed hours)\n",
			num(b1, sizeof(b1), r->job_hours, 6), money(b2, sizeof(b2), &r->p, r->job_local_cost),
			money(b3, sizeof(b3), &r->p, r->job_cloud_cost), num(b4, sizeof(b4), r->job_billed_hours, 6));
}

static void print_sens_text(FILE *out, const struct cost_run *r)
{
	char a[64], b[64], c[64], d[64], e[64];

	fprintf(out, "\nsensitivity of u* (one parameter at 0.8x and 1.2x, fractions clamped to their "
	       "range; largest swing first):\n");
	fprintf(out, "  %-28s %12s %12s %10s %10s %10s\n", "parameter", "low value", "high value",
	       "u* low", "u* high", "swing");
	for (size_t i = 0; i < r->nsens; i++) {
		const struct cost_sens *s = &r->sens[i];
		fprintf(out, "  %-28s %12s %12s %10s %10s %10s\n", s->param,
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

static void print_roi_text(FILE *out, const struct cost_run *r)
{
	const struct cost_roi *o = &r->roi;
	char a[64], b[64], c[64], d[64], e[64];

	if (isnan(r->u_at)) {
		fprintf(out, "\nreturn on investment: give --utilization U (the share of hours the GPU does useful work; "
		       "'gputally report' measures it) to compute it.\n");
		return;
	}
	fprintf(out, "\nreturn on investment at utilization %s (docs/cost.md):\n", nf_pct(a, sizeof(a), o->u, 1));
	fprintf(out, "  capital     price charged to GPU work %s; running cost %s a year (energy %s); "
	       "TCO over %s years %s\n", money(a, sizeof(a), &r->p, o->capex),
	       money(b, sizeof(b), &r->p, o->opex_per_year), money(c, sizeof(c), &r->p, o->energy_per_year),
	       num(d, sizeof(d), r->p.lifetime_years, 2), money(e, sizeof(e), &r->p, o->tco_lifetime));
	fprintf(out, "  efficiency  %s useful hours a year at %s each; renting them would cost %s a year\n",
	       num(a, sizeof(a), o->useful_hours_per_year, 1), money(b, sizeof(b), &r->p, o->cost_per_useful_hour),
	       money(c, sizeof(c), &r->p, o->cloud_cost_per_year));
	fprintf(out, "  business    gain %s a year%s\n", money(a, sizeof(a), &r->p, o->business_gain_per_year),
	       o->business_gain_per_year > 0 ? "" : " (--set business_gain_per_year=... to count one)");
	fprintf(out, "  return      %s a year (renting avoided + gain - running cost); payback %s; "
	       "at the end of the lifetime %s (ROI %s %%)\n", money(a, sizeof(a), &r->p, o->return_per_year),
	       months(b, sizeof(b), o->payback_months), money(c, sizeof(c), &r->p, o->return_at_end),
	       num(d, sizeof(d), o->roi_pct, 1));
	fprintf(out, "\nsensitivity of the payback (one parameter at 0.8x and 1.2x; largest swing first):\n");
	fprintf(out, "  %-28s %12s %12s %14s %14s\n", "parameter", "low value", "high value", "payback low", "payback high");
	for (size_t i = 0; i < r->nroi_sens; i++) {
		const struct cost_sens *s = &r->roi_sens[i];
		fprintf(out, "  %-28s %12s %12s %14s %14s\n", s->param, num(a, sizeof(a), s->low_value, 6),
		       num(b, sizeof(b), s->high_value, 6), months(c, sizeof(c), s->u_low),
		       months(d, sizeof(d), s->u_high));
	}
}

void cost_out_text(FILE *out, const struct cost_run *r)
{
	const struct cost_longrun *lr = &r->lr;
	char b1[64], b2[64], b3[64];

	fprintf(out, "cost model: %s\n", r->p.name[0] ? r->p.name : "(defaults, no profile)");
	if (r->p.description[0])
		fprintf(out, "%s\n", r->p.description);
	if (r->p.currency[0])
		fprintf(out, "amounts in %s\n", r->p.currency);
	fprintf(out, "\n");
	print_params_text(out, &r->p);
	print_catalog_text(out, r);

	fprintf(out, "\nlong run:\n");
	fprintf(out, "  H    available hours per year        %s\n", num(b1, sizeof(b1), lr->H, 4));
	fprintf(out, "  F    fixed cost per year             %s\n", money(b1, sizeof(b1), &r->p, lr->F));
	fprintf(out, "  k    cost of one watt-hour           %s\n",
	       num(b1, sizeof(b1), lr->k, 9));
	fprintf(out, "       power idle, busy with cooling   %s W, %s W\n",
	       num(b1, sizeof(b1), lr->p_idle, 3), num(b2, sizeof(b2), lr->p_busy, 3));
	fprintf(out, "  C_C  cloud cost per useful hour      %s\n",
	       money(b1, sizeof(b1), &r->p, lr->c_cloud));
	print_verdict_text(out, r);

	if (!isnan(r->u_at))
		fprintf(out, "\nat utilization %s a useful hour costs %s locally against %s in the cloud.\n",
		       nf_pct(b1, sizeof(b1), r->u_at, 1),
		       money(b2, sizeof(b2), &r->p, r->c_local_at_u),
		       money(b3, sizeof(b3), &r->p, lr->c_cloud));
	print_job_text(out, r);
	print_sens_text(out, r);
	print_roi_text(out, r);
}

/* ---- JSON output -------------------------------------------------------- */

void cost_out_json(FILE *out, const struct cost_run *r)
{
	const struct cost_longrun *lr = &r->lr;
	struct jsonw w;

	jsonw_init(&w, out, true);
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

	jsonw_key(&w, "catalog");
	if (r->catalog) {
		const struct cloud_catalog *c = r->catalog;
		catalog_json_file(&w, c);
		jsonw_kstr(&w, "gpu_name", r->cat_gpu);
		jsonw_kstr(&w, "gpu_name_from", r->cat_gpu_from);
		catalog_json_pick(&w, &r->cat_pick, true);	/* cost stops where no row matches */
		jsonw_kbool(&w, "used", r->cat_used);
		jsonw_obj_end(&w);
	} else {
		jsonw_null(&w);
	}

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
		jsonw_knum(&w, "local_cost_per_useful_hour", r->c_local_at_u, 6);
		jsonw_obj_end(&w);
	}

	jsonw_key(&w, "job_break_even");
	jsonw_obj_begin(&w);
	jsonw_kstr(&w, "status", cost_status_name(r->job_be.status));
	jsonw_knum(&w, "hours", r->job_be.hours, 6);
	jsonw_knum(&w, "utilization", r->u_job, 6);
	jsonw_obj_end(&w);

	if (!isnan(r->job_hours)) {
		jsonw_key(&w, "job");
		jsonw_obj_begin(&w);
		jsonw_knum(&w, "hours", r->job_hours, 6);
		jsonw_knum(&w, "local_cost", r->job_local_cost, 6);
		jsonw_knum(&w, "cloud_cost", r->job_cloud_cost, 6);
		jsonw_knum(&w, "cloud_billed_hours", r->job_billed_hours, 6);
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

/* ---- the presets (--list-profiles) -------------------------------------- */

void cost_out_presets(FILE *out, const struct cost_params *ps, size_t n, bool json)
{
	struct jsonw w;

	if (json) {
		jsonw_init(&w, out, true);
		jsonw_arr_begin(&w);
	}
	for (size_t i = 0; i < n; i++) {
		if (json) {
			jsonw_obj_begin(&w);
			jsonw_kstr(&w, "name", ps[i].name);
			jsonw_kstr(&w, "description", ps[i].description);
			jsonw_kstr(&w, "currency", ps[i].currency);
			jsonw_obj_end(&w);
		} else {
			fprintf(out, "%-24s %s\n", ps[i].name, ps[i].description);
		}
	}
	if (json)
		jsonw_arr_end(&w);
}

const struct cost_writer cost_writers[] = {
	{ "text", cost_out_text, true },
	{ "json", cost_out_json, false },
	{ "explain", cost_explain, true },
};
const size_t cost_nwriters = sizeof(cost_writers) / sizeof(cost_writers[0]);

const struct cost_writer *cost_writer_find(const char *name)
{
	for (size_t i = 0; i < cost_nwriters; i++)
		if (!strcmp(cost_writers[i].name, name))
			return &cost_writers[i];
	return NULL;
}
