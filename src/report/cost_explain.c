/* SPDX-License-Identifier: MIT */
/* `gputally cost --explain` (cost_explain.h). */
#include "report/cost_explain.h"

#include <math.h>

#include "util/jsonw.h"

/* A number as the derivation shows it: up to 6 significant decimals, no
 * trailing zeros, "n/a" for NAN. */
static const char *n(char *buf, size_t cap, double v)
{
	if (isnan(v))
		return "n/a";
	if (isinf(v))
		return v > 0 ? "infinite" : "-infinite";
	return fmt_num(buf, cap, v, fabs(v) >= 1000 ? 2 : 6);
}

#define N(i, v) n(bb[i], sizeof(bb[i]), (v))

void cost_explain(FILE *out, const struct cost_run *r)
{
	char bb[12][48];
	const struct cost_params *p = &r->p;
	const char *cur = p->currency[0] ? p->currency : "the profile's currency (it names none)";
	const struct cost_longrun lr = r->lr;
	const struct cost_job_be jb = r->job_be;
	double dep = r->dep_per_year, mnt = r->maint_per_year, num = r->u_star_num, den = r->u_star_den;
	double u = r->u_at, ue = r->u_job;

	fprintf(out, "How the break-even utilization u* is derived (docs/cost-model.md, long-run model),\n"
		     "with the values of %s; amounts in %s:\n\n", p->name[0] ? p->name : "the defaults", cur);
	if (r->catalog && r->cat_used)	/* cmd_cost found it: say where the rate comes from */
		fprintf(out, "  cloud_hourly_rate = %s: the median per-GPU rate of %zu %s row(s) of %s (--cloud-catalog, for '%s')\n\n",
			N(0, r->cat_pick.median), r->cat_pick.nrows, r->cat_pick.accel, r->catalog->name, r->cat_gpu);
	fprintf(out, "  H      = 365 x hours_on_per_day = 365 x %s = %s available hours a year\n",
		N(0, p->hours_on_per_day), N(1, lr.H));
	fprintf(out, "  dep    = hardware_price x gpu_share x (1 - residual_fraction) / lifetime_years\n"
		     "         = %s x %s x (1 - %s) / %s = %s a year\n",
		N(0, p->hardware_price), N(1, p->gpu_share),
		N(2, p->residual_fraction), N(3, p->lifetime_years), N(4, dep));
	fprintf(out, "  maint  = maintenance_hours_per_year x labor_rate = %s x %s = %s a year\n",
		N(0, p->maintenance_hours_per_year), N(1, p->labor_rate), N(2, mnt));
	fprintf(out, "  F      = dep + maint + other_fixed_per_year = %s + %s + %s = %s a year\n",
		N(0, dep), N(1, mnt), N(2, p->other_fixed_per_year),
		N(3, lr.F));
	fprintf(out, "  k      = electricity_price x pue / 1000 = %s x %s / 1000 = %s per watt-hour\n",
		N(0, p->electricity_price), N(1, p->pue), N(2, lr.k));
	fprintf(out, "  P_idle = idle_power_w = %s W;  P_busy = busy_power_w + cooling_w = %s + %s = %s W\n",
		N(0, lr.p_idle), N(1, p->busy_power_w), N(2, p->cooling_w),
		N(3, lr.p_busy));
	fprintf(out, "  C_C    = cloud_hourly_rate / cloud_efficiency = %s / %s = %s per useful hour\n\n",
		N(0, p->cloud_hourly_rate), N(1, p->cloud_efficiency),
		N(2, lr.c_cloud));
	fprintf(out, "  u*     = (F + k x H x P_idle) / (H x (C_C - k x (P_busy - P_idle)))\n"
		     "         = (%s + %s x %s x %s) / (%s x (%s - %s x (%s - %s)))\n"
		     "         = %s / %s\n",
		N(0, lr.F), N(1, lr.k), N(2, lr.H), N(3, lr.p_idle),
		N(4, lr.H), N(5, lr.c_cloud), N(6, lr.k),
		N(7, lr.p_busy), N(8, lr.p_idle), N(9, num), N(10, den));
	if (lr.status == COST_NEVER)
		fprintf(out, "         : the denominator is not positive, so u* does not exist: at these prices the\n"
			     "           electricity of a busy hour alone costs more than a useful cloud hour.\n");
	else
		fprintf(out, "         = %s, that is %s %% of the available hours%s\n", N(0, lr.u_star),
			fmt_num(bb[11], sizeof(bb[11]), 100 * lr.u_star, 2),
			lr.status == COST_ABOVE_FULL_USE ? ": above 100 %, so owning never pays" : "");
	if (lr.status == COST_OK)
		fprintf(out, "  u* x H / 12 = %s useful GPU-hours a month to break even\n",
			N(0, lr.useful_hours_per_month));

	fprintf(out, "\nAt utilization u = %s%s:\n", N(0, ue),
		isnan(u) ? " (no --utilization: the best case for owning)" : "");
	fprintf(out, "  C_L(u) = (F + k x H x (u x P_busy + (1 - u) x P_idle)) / (u x H)\n"
		     "         = (%s + %s x %s x (%s x %s + %s x %s)) / (%s x %s) = %s per useful hour"
		     " (cloud: %s)\n",
		N(0, lr.F), N(1, lr.k), N(2, lr.H), N(3, ue),
		N(4, lr.p_busy), N(5, 1 - ue), N(6, lr.p_idle),
		N(7, ue), N(8, lr.H), N(9, r->c_local_job),
		N(10, lr.c_cloud));
	fprintf(out, "  a job of T useful hours:\n"
		     "    local(T) = local_per_job_fixed + T x C_L(u) = %s + %s T\n"
		     "    cloud(T) = cloud_hourly_rate x billed(T / cloud_efficiency + cloud_cold_start_s / 3600)\n"
		     "             = %s x billed(T / %s + %s)  (billed: up to whole %s s, at least %s s)\n",
		N(0, p->local_per_job_fixed), N(1, r->c_local_job),
		N(2, p->cloud_hourly_rate), N(3, p->cloud_efficiency),
		N(4, p->cloud_cold_start_s / 3600), N(5, p->cloud_billing_increment_s),
		N(6, p->cloud_min_billed_s));
	switch (jb.status) {
	case COST_JOB_CROSS:
		fprintf(out, "    they cross at T = %s useful hours (%s min): owning is cheaper for every longer job\n",
			N(0, jb.hours), fmt_num(bb[11], sizeof(bb[11]), jb.hours * 60, 2));
		break;
	case COST_JOB_LOCAL_ALWAYS:
		fprintf(out, "    local(T) < cloud(T) for every T > 0: owning is cheaper for every job length\n");
		break;
	case COST_JOB_CLOUD_ALWAYS:
		fprintf(out, "    local(T) >= cloud(T) for every T > 0: renting is cheaper (or equal) for every job length\n");
		break;
	default:
		fprintf(out, "    owning is cheaper only for some jobs shorter than %s useful hours\n",
			N(0, jb.hours));
		break;
	}
}
