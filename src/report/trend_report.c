/* SPDX-License-Identifier: MIT */
/* The figures of gputally trend (trend_report.h). */
#include "report/trend_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static void price(const struct cost_params *p, const struct trend_row *r, struct trend_priced *o)
{
	struct cost_window_in in = { 0 };
	struct cost_window w;
	double e = r->energy_j;

	o->energy_source = "measured";
	if (r->energy_known_s <= 0) {
		/* no power reading in the bucket: the profile's powers, as report does */
		e = p->busy_power_w * r->useful_s + p->idle_power_w * (r->covered_s - r->useful_s);
		o->energy_source = "profile estimate";
	} else if (r->energy_known_s < r->covered_s * 0.999) {
		o->energy_source = "measured (part of the time)";
	}
	o->util_pct = r->util_known_s > 0 ? 100 * r->busy_s / r->util_known_s : NAN;
	o->busy_share = r->covered_s > 0 ? r->useful_s / r->covered_s : NAN;
	o->energy_kwh = e / 3.6e6;
	o->mem_max_mib = r->mem_max_mib >= 0 ? r->mem_max_mib : NAN;
	in.covered_h = r->covered_s / 3600;
	in.busy_h = r->useful_s / 3600;	/* one definition of busy: the useful states (docs/states.md) */
	in.energy_j = e;
	cost_window(p, &in, &w);
	o->owned = w.local_cost;
	o->rented = w.cloud_cost;
	/* the waterfall of report: owned cost split by time, minus the useful states */
	o->idle_money = r->covered_s > 0 ? w.local_cost * (1 - r->useful_s / r->covered_s) : NAN;
}

void trend_measured_power(struct cost_params *cp, const struct trend_row *all, size_t n)
{
	double iws = 0, is = 0, aws = 0, as = 0;

	for (size_t i = 0; i < n; i++) {
		iws += all[i].idle_ws;
		is += all[i].idle_s;
		aws += all[i].active_ws;
		as += all[i].active_s;
	}
	if (is >= 1 && cp->origin[COST_IDLE_POWER_W] != COST_SET)
		cost_param_put(cp, COST_IDLE_POWER_W, iws / is, COST_MEASURED);
	if (as >= 1 && cp->origin[COST_BUSY_POWER_W] != COST_SET)
		cost_param_put(cp, COST_BUSY_POWER_W, aws / as, COST_MEASURED);
}

void trend_report_compute(struct trend_report *t)
{
	struct trend_row *tot = &t->tot;

	memset(tot, 0, sizeof(*tot));
	tot->mem_max_mib = -1;
	for (size_t i = 0; i < t->n; i++) {
		const struct trend_row *r = &t->rows[i];
		/* the total's GPUs: the most seen in one bucket */
		if (r->gpus > tot->gpus)
			tot->gpus = r->gpus;
		tot->covered_s += r->covered_s;
		tot->busy_s += r->busy_s;
		tot->util_known_s += r->util_known_s;
		tot->useful_s += r->useful_s;
		tot->energy_j += r->energy_j;
		tot->energy_known_s += r->energy_known_s;
		if (r->mem_max_mib > tot->mem_max_mib)
			tot->mem_max_mib = r->mem_max_mib;
	}
	t->prow = xcalloc(t->n ? t->n : 1, sizeof(*t->prow));
	t->ptask = xcalloc(t->nt ? t->nt : 1, sizeof(*t->ptask));
	for (size_t i = 0; i < t->n; i++)
		price(t->cp, &t->rows[i], &t->prow[i]);
	for (size_t i = 0; i < t->nt; i++)
		price(t->cp, &t->tasks[i], &t->ptask[i]);
	price(t->cp, tot, &t->ptot);
}

void trend_report_release(struct trend_report *t)
{
	free(t->prow);
	free(t->ptask);
	t->prow = t->ptask = NULL;
}
