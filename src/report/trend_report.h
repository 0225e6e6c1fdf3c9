/* SPDX-License-Identifier: MIT */
/*
 * gputally trend's report: the store's buckets (or tasks) with what each
 * cost and meant, worked out once by trend_report_compute() so that the
 * writers (trend_out.c: text, JSON, CSV) only render (docs/store.md).
 */
#ifndef REPORT_TREND_REPORT_H
#define REPORT_TREND_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cost/catalog.h"
#include "cost/model.h"
#include "store/store.h"

/* What one row costs and means, from its sums; NAN where unknown. */
struct trend_priced {
	double util_pct, busy_share, energy_kwh, owned, rented, idle_money;
	double mem_max_mib;		/* NAN: no memory reading */
	const char *energy_source;	/* "measured", "measured (part of the time)", "profile estimate" */
};

struct trend_report {
	/* inputs (borrowed): the query, the priced parameters, the zone the
	 * buckets' labels name, the buckets and the tasks; by_task: the tasks
	 * are the table (--by task) */
	const struct trend_query *q;
	const struct cost_params *cp;
	const char *zone;
	bool by_task;
	const char *owner;	/* --by user, job or account: the tasks are those (store_trend_owners), else NULL */
	const struct trend_row *rows, *tasks;
	size_t n, nt;
	/* --cloud-catalog (catalog NULL without): the store's GPU model ("" none),
	 * the rows it matched, and catalog_apply()'s answer (-1 no match, 0 --set, 1 used) */
	const struct cloud_catalog *catalog;
	char cat_gpu[96];
	struct catalog_pick cat_pick;
	int cat_state;
	/* computed: the buckets summed (its GPUs: the most seen in one
	 * bucket), and the priced figures of each bucket, task and the total */
	struct trend_row tot;
	struct trend_priced *prow, *ptask, ptot;
};

/* Measured idle and busy power over every row of all (the window), into cp
 * unless they were --set, as report measures them. */
void trend_measured_power(struct cost_params *cp, const struct trend_row *all, size_t n);
void trend_report_compute(struct trend_report *t);
void trend_report_release(struct trend_report *t);

/* The writers (trend_out.c), and their table: "text", "json", "csv". */
struct trend_writer {
	const char *name;
	void (*render)(FILE *out, const struct trend_report *t);
	bool for_terminal;	/* the CLI filters control characters (task names come from logs) */
};
extern const struct trend_writer trend_writers[];
extern const size_t trend_nwriters;
const struct trend_writer *trend_writer_find(const char *name);

#endif
