/* SPDX-License-Identifier: MIT */
/*
 * The month at a glance (report.h, docs/report-html.md "By day"): from the
 * per-day per-GPU figures of by_day(), the day's totals over all GPUs, the
 * gap to break-even day by day (the day's useful share against u*, and the
 * running sum of owning minus renting), each GPU's share and cost over the
 * window, and per GPU an hours x days grid of the useful share.  Every sum
 * is here, so the writers only render.
 */
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/timeutil.h"
#include "util/xalloc.h"

/* The hours x days grid, from the state segments: each split at UTC hours. */
static void by_hour(struct report *r, size_t ng, size_t nd)
{
	const struct analysis *an = r->an;
	int64_t t_first = r->day_first * NS_PER_DAY, t_end = t_first + (int64_t)nd * NS_PER_DAY;
	const int64_t hour = NS_PER_DAY / 24;

	r->hour_covered_s = xcalloc(ng * nd * 24, sizeof(double));
	r->hour_useful_s = xcalloc(ng * nd * 24, sizeof(double));
	for (size_t i = 0; i < an->nsegs; i++) {
		const struct segment *s = &an->segs[i];
		int64_t t = s->t0_ns < t_first ? t_first : s->t0_ns, t1 = s->t1_ns > t_end ? t_end : s->t1_ns;
		bool useful = state_is_useful(s->state);

		if (s->state == ST_GAP || s->gpu >= ng)
			continue;
		while (t < t1) {
			int64_t h = (t - t_first) / hour;
			int64_t end = t_first + (h + 1) * hour < t1 ? t_first + (h + 1) * hour : t1;
			size_t k = (size_t)s->gpu * nd * 24 + (size_t)h;
			r->hour_covered_s[k] += (double)(end - t) / 1e9;
			if (useful)
				r->hour_useful_s[k] += (double)(end - t) / 1e9;
			t = end;
		}
	}
	r->hour_u = xcalloc(ng * nd * 24, sizeof(double));
	for (size_t k = 0; k < ng * nd * 24; k++)
		r->hour_u[k] = r->hour_covered_s[k] > 0 ? r->hour_useful_s[k] / r->hour_covered_s[k] : NAN;
	r->nhour_gpus = ng;
}

void report_month_compute(struct report *r)
{
	size_t ng = (size_t)r->an->tl.ngpus, nd = r->ndays;
	const struct cost_params *p = &r->params;
	bool rent = p->cloud_hourly_rate > 0 && p->cloud_efficiency > 0;
	double cum = 0;

	r->days_at_ustar = 0;
	if (nd < 2 || !ng)
		return;
	r->dayt_covered_s = xcalloc(nd, sizeof(double));
	r->dayt_useful_s = xcalloc(nd, sizeof(double));
	r->dayt_cost = xcalloc(nd, sizeof(double));
	r->dayt_u = xcalloc(nd, sizeof(double));
	r->dayt_rent = xcalloc(nd, sizeof(double));
	r->dayt_gap_cum = xcalloc(nd, sizeof(double));
	r->dayt_at_ustar = xcalloc(nd, sizeof(bool));
	r->gpu_month_u = xcalloc(ng, sizeof(double));
	r->gpu_month_cost = xcalloc(ng, sizeof(double));
	r->day_u = xcalloc(nd * ng, sizeof(double));
	for (size_t k = 0; k < nd * ng; k++)
		r->day_u[k] = r->day_covered_s[k] > 0 ? r->day_useful_s[k] / r->day_covered_s[k] : NAN;
	for (size_t d = 0; d < nd; d++) {
		double cov = 0, use = 0, cost = 0;
		for (size_t g = 0; g < ng; g++) {
			size_t k = d * ng + g;
			cov += r->day_covered_s[k];
			use += r->day_useful_s[k];
			cost += r->day_cost[k];
			r->gpu_month_u[g] += r->day_useful_s[k];
			r->gpu_month_cost[g] += r->day_cost[k];
		}
		r->dayt_covered_s[d] = cov;
		r->dayt_useful_s[d] = use;
		r->dayt_cost[d] = cost;
		r->dayt_u[d] = cov > 0 ? use / cov : NAN;
		/* renting the day's useful hours at the hourly rate (the per-job
		 * charges are the window's, not a day's: cost-model.md) */
		r->dayt_rent[d] = rent ? p->cloud_hourly_rate * use / 3600 / p->cloud_efficiency : NAN;
		cum += cost - r->dayt_rent[d];
		r->dayt_gap_cum[d] = isfinite(cum) ? cum : NAN;
		r->dayt_at_ustar[d] = isfinite(r->dayt_u[d]) && isfinite(r->lr.u_star) && r->lr.status != COST_NEVER &&
				      r->dayt_u[d] >= r->lr.u_star;
		r->days_at_ustar += r->dayt_at_ustar[d];
	}
	for (size_t g = 0; g < ng; g++) {
		double cov = r->an->gpus[g].covered_s;
		r->gpu_month_u[g] = cov > 0 ? r->gpu_month_u[g] / cov : NAN;
	}
	if (ng * nd <= REPORT_HOUR_GPU_DAYS)
		by_hour(r, ng, nd);
}

void report_month_release(struct report *r)
{
	free(r->dayt_covered_s);
	free(r->dayt_useful_s);
	free(r->dayt_cost);
	free(r->dayt_u);
	free(r->dayt_rent);
	free(r->dayt_gap_cum);
	free(r->dayt_at_ustar);
	r->dayt_at_ustar = NULL;
	free(r->gpu_month_u);
	free(r->gpu_month_cost);
	free(r->hour_covered_s);
	free(r->hour_useful_s);
	free(r->day_u);
	free(r->hour_u);
	r->day_u = r->hour_u = NULL;
	r->dayt_covered_s = r->dayt_useful_s = r->dayt_cost = r->dayt_u = r->dayt_rent = r->dayt_gap_cum = NULL;
	r->gpu_month_u = r->gpu_month_cost = r->hour_covered_s = r->hour_useful_s = NULL;
	r->nhour_gpus = 0;
}
