/* SPDX-License-Identifier: MIT */
/*
 * gputally trend: the stored minutes summed per hour, day, week or month,
 * with what they cost owned and rented (docs/cost.md) and the money that
 * went to time in no useful state.  Text with a bar per row, JSON or CSV.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/commands.h"
#include "cli/cost_opts.h"
#include "cli/ingest_opts.h"
#include "cli/store_opts.h"
#include "cli/usage.h"
#include "util/termsafe.h"
#include "cost/catalog.h"
#include "cost/model.h"
#include "cost/profile.h"
#include "report/trend_report.h"
#include "store/store.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

#define TREND_OPTIONS(X, G) \
	X(DB, "db", 0, "FILE", "the store written by 'gputally ingest'") \
	X(BY, "by", 0, "hour|day|week|month|task|user|job|account", "bucket size (UTC unless --tz; weeks start on Monday; default day), or task, user, job or account: one row per task, user, Slurm job or Slurm account over the window") \
	X(TZ, "tz", 0, "ZONE|local", "buckets from local midnight in ZONE (Europe/Berlin, a POSIX TZ) or the machine's zone ('local': $TZ or /etc/localtime); a DST day has 23 or 25 hours (default UTC)") \
	X(TASK, "task", 't', "NAME", "only this task (process name): its GPU-seconds and its share of each minute") \
	X(GPU, "gpu", 0, "INDEX|UUID", "only this GPU") \
	X(SINCE, "since", 0, "TIME", "first minute to count (YYYY-MM-DD is a day: UTC, or local with --tz; RFC 3339)") \
	X(UNTIL, "until", 0, "TIME", "count minutes before this time") \
	X(PROFILE, "profile", 'p', "FILE|NAME", "cost profile: an INI file or a preset ('gputally cost --list-profiles')") \
	X(SET, "set", 's', "KEY=VALUE", "override one cost parameter (repeatable)") \
	X(CLOUD_CATALOG, "cloud-catalog", 0, "FILE", "take the cloud rate from a catalogue CSV of instance prices (SkyPilot's vms.csv): the median per-GPU on-demand rate of the stored GPU model (docs/prices.md); also --set cloud_catalog=FILE") \
	X(JSON, "json", 0, NULL, "JSON output (keys: docs/store.md)") \
	X(CSV, "csv", 0, NULL, "CSV output: a header, one row per bucket (or task, user, job), with the profile, powers and catalogue details as columns (docs/store.md)") \
	X(HELP, "help", 'h', NULL, "show this help")

enum { OPTION_IDS(TREND_OPTIONS) };

const struct option_def trend_options[] = { OPTION_ROWS(TREND_OPTIONS) OPTIONS_END };

static const char *const by_name[] = { "hour", "day", "week", "month" };

struct trend_args {
	bool by_task;		/* --by task|user|job|account: the per-task (user, job, account) rows are the table */
	const char *owner;	/* --by user, job or account: that column, else NULL (tasks) */
	struct trend_query q;
	const char *db, *profile, *since, *until, *tz, *catalog;
	const char *zone;	/* the zone the labels name */
	const char **sets;
	int nsets, json, csv;
};

static int parse(int argc, char **argv, struct trend_args *a)
{
	struct option_iter it;
	const char **ops = NULL;
	int nops = 0, id;

	option_iter_init(&it, argc, argv);
	while ((id = option_next(&it, trend_options, &ops, &nops)) != 0) {
		switch (id) {
		case -1:
			free(ops);
			return EXIT_USAGE;
		case OPT_HELP:
			options_help("trend", "--db FILE [options]",
				     "Per hour, day, week or month from a store: mean utilization, busy share, max memory,\n"
				     "energy, what the time cost owned and rented, and the money spent on idle time.",
				     trend_options);
			free(ops);
			return -1;
		case OPT_DB:
			a->db = it.arg;
			break;
		case OPT_BY:
			a->q.by = -1;
			a->owner = !strcmp(it.arg, "user") ? "user" : !strcmp(it.arg, "job") ? "job"
				 : !strcmp(it.arg, "account") ? "account" : NULL;
			a->by_task = !strcmp(it.arg, "task") || a->owner;
			if (a->by_task)
				a->q.by = TREND_MONTH;	/* the buckets are not shown */
			for (int i = 0; i < 4; i++)
				if (!strcmp(it.arg, by_name[i]))
					a->q.by = i;
			if (a->q.by < 0) {
				error("--by wants hour, day, week, month, task, user, job or account, got '%s'", it.arg);
				free(ops);
				return EXIT_USAGE;
			}
			break;
		case OPT_TASK:
			a->q.task = it.arg;
			break;
		case OPT_GPU:
			a->q.gpu = it.arg;
			break;
		case OPT_SINCE:
			a->since = it.arg;
			break;
		case OPT_UNTIL:
			a->until = it.arg;
			break;
		case OPT_TZ:
			a->tz = it.arg;
			break;
		case OPT_PROFILE:
			a->profile = it.arg;
			break;
		case OPT_SET:
			a->sets = xreallocarray(a->sets, (size_t)a->nsets + 1, sizeof(*a->sets));
			a->sets[a->nsets++] = it.arg;
			break;
		case OPT_CLOUD_CATALOG:
			a->catalog = it.arg;
			break;
		case OPT_JSON:
			a->json = 1;
			break;
		case OPT_CSV:
			a->csv = 1;
			break;
		}
	}
	free(ops);
	if (nops) {
		error("trend reads a store, not files: ingest them first ('gputally ingest --db FILE PATH...')");
		return EXIT_USAGE;
	}
	if (!a->db) {
		error("trend needs --db FILE (a store written by 'gputally ingest')");
		return EXIT_USAGE;
	}
	if (a->json && a->csv) {
		error("--json and --csv are two renderings of the same table: pick one");
		return EXIT_USAGE;
	}
	if (a->tz && strcmp(a->tz, "local")) {
		/* the zone check and TZ setting of the log readers' --tz */
		struct ingest_cli ic;
		ingest_cli_init(&ic);
		if (ingest_cli_option(&ic, OPT_I_TZ, a->tz) < 0)
			return EXIT_USAGE;
		ingest_cli_apply(&ic);
	} else if (a->tz) {
		tzset();
	}
	if (a->tz) {
		const char *env = getenv("TZ");
		a->q.local = true;
		a->zone = strcmp(a->tz, "local") ? a->tz : env && *env ? env : "local time (/etc/localtime)";
	}
	/* after --tz: a YYYY-MM-DD is that zone's midnight */
	if ((a->since && store_parse_when_in("since", a->since, a->q.local, &a->q.since_ns)) ||
	    (a->until && store_parse_when_in("until", a->until, a->q.local, &a->q.until_ns)))
		return EXIT_USAGE;
	return 0;
}

int cmd_trend(int argc, char **argv)
{
	struct trend_args a;
	struct store st = { 0 };
	struct cost_params cp;
	struct gl_err err = { 0 };
	struct trend_row *rows = NULL, *tasks = NULL, *all = NULL;
	struct trend_report t = { 0 };
	struct cloud_catalog cat = { 0 };
	const struct trend_writer *wr;	/* the output's writer, by name */
	size_t n = 0, nt = 0, nall = 0;
	int ret = EXIT_OK, rc;

	memset(&a, 0, sizeof(a));
	a.zone = "UTC";
	a.q.by = TREND_DAY;
	a.q.since_ns = INT64_MIN;
	a.q.until_ns = INT64_MAX;
	rc = parse(argc, argv, &a);
	if (rc) {
		free(a.sets);
		return rc < 0 ? EXIT_OK : rc;
	}
	a.catalog = cli_take_catalog_set(a.sets, &a.nsets, a.catalog);
	if ((ret = cli_cost_params(&cp, a.profile, a.sets, a.nsets)) != EXIT_OK ||
	    (a.catalog && (ret = cli_cloud_catalog(&cat, a.catalog)) != EXIT_OK))
		goto out;
	if (store_open(&st, a.db, STORE_READ, &err)) {
		print_gl_err(&err);
		ret = EXIT_FAILURE_RUN;
		goto out;
	}
	{
		/* the powers are measured over the whole window and every GPU selected */
		struct trend_query wq = a.q;
		wq.task = NULL;
		wq.by = TREND_MONTH;
		if (store_trend(&st, &wq, &all, &nall, &err))
			goto fail;
		trend_measured_power(&cp, all, nall);
	}
	if (a.catalog) {
		/* the rule of report --cloud-catalog, for the window's GPU model */
		if (store_gpu_model(&st, &a.q, t.cat_gpu, sizeof(t.cat_gpu), &err))
			goto fail;
		t.catalog = &cat;
		t.cat_state = catalog_apply(&cat, t.cat_gpu, &cp, &t.cat_pick);
	}
	if (store_trend(&st, &a.q, &rows, &n, &err))
		goto fail;
	if (a.owner ? store_trend_owners(&st, &a.q, a.owner, &tasks, &nt, &err)
		    : !a.q.task && store_trend_tasks(&st, &a.q, &tasks, &nt, &err))
		goto fail;
	if (a.by_task && a.q.task) {
		error("--by %s lists every %s; --task NAME picks one task (give one of them)", a.owner ? a.owner : "task",
		      a.owner ? a.owner : "task");
		ret = EXIT_USAGE;
		goto out;
	}
	t.q = &a.q;
	t.cp = &cp;
	t.zone = a.zone;
	t.by_task = a.by_task;
	t.owner = a.owner;
	t.rows = rows;
	t.n = n;
	t.tasks = tasks;
	t.nt = nt;
	trend_report_compute(&t);
	wr = trend_writer_find(a.json ? "json" : a.csv ? "csv" : "text");
	if (wr->for_terminal)
		term_safe_stdout();	/* task names come from logs */
	wr->render(stdout, &t);
	if (fflush(stdout) || ferror(stdout)) {
		error("writing the trend failed");
		ret = EXIT_FAILURE_RUN;
	}
	goto out;
fail:
	print_gl_err(&err);
	ret = EXIT_FAILURE_RUN;
out:
	store_close(&st);
	trend_report_release(&t);
	free(rows);
	free(tasks);
	free(all);
	free(a.sets);
	catalog_free(&cat);
	return ret;
}
