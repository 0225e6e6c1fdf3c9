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
#include "cost/model.h"
#include "cost/profile.h"
#include "store/store.h"
#include "util/jsonw.h"
#include "util/numfmt.h"
#include "util/version.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

enum {
	OPT_DB = 1,
	OPT_BY,
	OPT_TASK,
	OPT_GPU,
	OPT_SINCE,
	OPT_UNTIL,
	OPT_PROFILE,
	OPT_SET,
	OPT_JSON,
	OPT_CSV,
	OPT_HELP,
	OPT_TZ,
};

const struct option_def trend_options[] = {
	{ "db", 0, "FILE", "the store written by 'gputally ingest'", OPT_DB },
	{ "by", 0, "hour|day|week|month|task|user|job", "bucket size (UTC unless --tz; weeks start on Monday; default day), or task, user or job: one row per task, user or Slurm job over the window", OPT_BY },
	{ "tz", 0, "ZONE|local", "buckets from local midnight in ZONE (Europe/Berlin, a POSIX TZ) or the machine's zone ('local': $TZ or /etc/localtime); a DST day has 23 or 25 hours (default UTC)", OPT_TZ },
	{ "task", 't', "NAME", "only this task (process name): its GPU-seconds and its share of each minute", OPT_TASK },
	{ "gpu", 0, "INDEX|UUID", "only this GPU", OPT_GPU },
	{ "since", 0, "TIME", "first minute to count (YYYY-MM-DD is a day: UTC, or local with --tz; RFC 3339)", OPT_SINCE },
	{ "until", 0, "TIME", "count minutes before this time", OPT_UNTIL },
	{ "profile", 'p', "FILE|NAME", "cost profile: an INI file or a preset ('gputally cost --list-profiles')", OPT_PROFILE },
	{ "set", 's', "KEY=VALUE", "override one cost parameter (repeatable)", OPT_SET },
	{ "json", 0, NULL, "JSON output (keys: docs/store.md)", OPT_JSON },
	{ "csv", 0, NULL, "CSV output, one row per bucket", OPT_CSV },
	{ "help", 'h', NULL, "show this help", OPT_HELP },
	OPTIONS_END
};

static const char *const by_name[] = { "hour", "day", "week", "month" };

/* What one row costs and means, from its sums. */
struct priced {
	double util_pct, busy_share, energy_kwh, owned, rented, idle_money;
	const char *energy_source;
};

static void price(const struct cost_params *p, const struct trend_row *r, struct priced *o)
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
	in.covered_h = r->covered_s / 3600;
	in.busy_h = r->useful_s / 3600;	/* one definition of busy: the useful states (docs/states.md) */
	in.energy_j = e;
	cost_window(p, &in, &w);
	o->owned = w.local_cost;
	o->rented = w.cloud_cost;
	/* the waterfall of report: owned cost split by time, minus the useful states */
	o->idle_money = r->covered_s > 0 ? w.local_cost * (1 - r->useful_s / r->covered_s) : NAN;
}

/* Set by --tz: labels name the local date (and the offset of a local hour). */
static bool local_labels;
static const char *zone_name = "UTC";

static void label(char *buf, size_t cap, int by, const struct trend_row *r)
{
	int y, m, d;
	long off = local_labels ? time_utc_offset_s(r->t_s) : 0;
	int64_t lt = r->t_s + off;
	char zone[16] = "Z";

	if (off)	/* |off| < 24 h */
		snprintf(zone, sizeof(zone), "%c%02d:%02d", off < 0 ? '-' : '+', (int)(labs(off) / 3600 % 24),
			 (int)(labs(off) % 3600 / 60));
	civil_from_days((lt - ((lt % 86400) + 86400) % 86400) / 86400, &y, &m, &d);
	if (by == TREND_HOUR)
		snprintf(buf, cap, "%04d-%02d-%02dT%02d%s", y, m, d, (int)((lt % 86400 + 86400) % 86400 / 3600), zone);
	else if (by == TREND_MONTH)
		snprintf(buf, cap, "%04d-%02d", y, m);
	else if (by == TREND_WEEK)
		snprintf(buf, cap, "week %04d-%02d-%02d", y, m, d);
	else
		snprintf(buf, cap, "%04d-%02d-%02d", y, m, d);
}

static void bar(char *buf, size_t width, double frac)
{
	size_t n = isnan(frac) ? 0 : (size_t)(frac * (double)width + 0.5);
	if (n > width)
		n = width;
	memset(buf, '#', n);
	memset(buf + n, '.', width - n);
	buf[width] = 0;
}

/* a table cell: util/numfmt.h's rule, "-" where there is no figure */
static const char *num(char *buf, size_t cap, double v, int dec)
{
	return isnan(v) ? "-" : nf_num(buf, cap, v, dec);
}

/* A CSV cell: empty for a number that is not known (NaN), never "nan". */
static const char *csv_num(char buf[24], double v, int dec)
{
	if (!isfinite(v))
		buf[0] = '\0';
	else
		snprintf(buf, 24, "%.*f", dec, v);
	return buf;
}

static void text_row(const char *lab, const struct trend_row *r, const struct priced *p)
{
	char b[24], n1[24], n2[24], n3[24], n4[24], n5[24], n6[24], n7[24], n8[24];

	bar(b, 20, p->busy_share);
	printf("%-18s %4d %9s %6s %6s %9s %9s %10s %10s %10s  %s\n", lab, r->gpus,
	       num(n1, sizeof(n1), r->covered_s / 3600, 2), num(n2, sizeof(n2), p->util_pct, 1),
	       num(n3, sizeof(n3), 100 * p->busy_share, 1),
	       num(n4, sizeof(n4), r->mem_max_mib >= 0 ? r->mem_max_mib / 1024 : NAN, 1),
	       num(n5, sizeof(n5), p->energy_kwh, 3), num(n6, sizeof(n6), p->owned, 2),
	       num(n7, sizeof(n7), p->rented, 2), num(n8, sizeof(n8), p->idle_money, 2), b);
}

static void text_out(const struct trend_query *q, const struct cost_params *cp, const struct trend_row *rows,
		     size_t n, const struct trend_row *tasks, size_t nt, const struct trend_row *tot)
{
	struct priced p;
	char lab[48];

	printf("gputally trend by %s%s%s%s%s (%s); profile %s%s%s\n", by_name[q->by], q->task ? ", task " : "",
	       q->task ? q->task : "", q->gpu ? ", GPU " : "", q->gpu ? q->gpu : "", zone_name,
	       cp->name[0] ? cp->name : "defaults",
	       cp->currency[0] ? ", money in " : "", cp->currency);
	printf("%-18s %4s %9s %6s %6s %9s %9s %10s %10s %10s  %s\n", "bucket", "GPUs", "GPU-h", "util%", "busy%",
	       "mem GiB", "kWh", "owned", "rented", "idle money", "busy share");
	for (size_t i = 0; i < n; i++) {
		price(cp, &rows[i], &p);
		label(lab, sizeof(lab), q->by, &rows[i]);
		text_row(lab, &rows[i], &p);
	}
	price(cp, tot, &p);
	text_row("total", tot, &p);
	if (nt) {
		printf("\nper task (process name or task label) over the window\n");
		printf("%-18s %4s %9s %6s %6s %9s %9s %10s %10s %10s  %s\n", "task", "GPUs", "GPU-h", "util%", "busy%",
		       "mem GiB", "kWh", "owned", "rented", "idle money", "busy share");
		for (size_t i = 0; i < nt; i++) {
			price(cp, &tasks[i], &p);
			text_row(tasks[i].name, &tasks[i], &p);
		}
	}
	if (!n)
		printf("(no stored minutes in this window)\n");
}

static void json_row(struct jsonw *w, const struct cost_params *cp, const struct trend_row *r, int by,
		     int kind)
{
	struct priced p;
	char lab[48];

	price(cp, r, &p);
	jsonw_obj_begin(w);
	if (kind == 0) {
		label(lab, sizeof(lab), by, r);
		jsonw_ktime(w, "start", r->t_s * NS_PER_S);
		jsonw_kstr(w, "label", lab);
	} else if (kind == 1) {
		jsonw_kstr(w, "task", r->name);
	} else if (kind == 3) {
		jsonw_kstr(w, "user", r->name);
	} else if (kind == 4) {
		jsonw_kstr(w, "job", r->name);
	}
	jsonw_kint(w, "gpus", r->gpus);
	jsonw_knum(w, "gpu_hours", r->covered_s / 3600, 6);
	jsonw_knum(w, "busy_gpu_hours", r->busy_s / 3600, 6);
	jsonw_knum(w, "util_mean_pct", p.util_pct, 3);
	jsonw_knum(w, "busy_share", p.busy_share, 6);
	jsonw_knum(w, "mem_max_mib", r->mem_max_mib >= 0 ? r->mem_max_mib : NAN, 1);
	jsonw_knum(w, "energy_kwh", p.energy_kwh, 6);
	jsonw_kstr(w, "energy_source", p.energy_source);
	jsonw_knum(w, "owned_cost", p.owned, 4);
	jsonw_knum(w, "rented_cost", p.rented, 4);
	jsonw_knum(w, "idle_cost", p.idle_money, 4);
	jsonw_obj_end(w);
}

static void json_out(const struct trend_query *q, const struct cost_params *cp, const struct trend_row *rows,
		     size_t n, const struct trend_row *tasks, size_t nt, const struct trend_row *tot)
{
	struct jsonw w;

	jsonw_init(&w, stdout, true);
	jsonw_obj_begin(&w);
	jsonw_version(&w);
	jsonw_kstr(&w, "by", by_name[q->by]);
	jsonw_kstr(&w, "tz", zone_name);
	jsonw_kstr(&w, "task", q->task);
	jsonw_kstr(&w, "gpu", q->gpu);
	jsonw_kstr(&w, "profile", cp->name[0] ? cp->name : NULL);
	jsonw_kstr(&w, "currency", cp->currency[0] ? cp->currency : NULL);
	jsonw_knum(&w, "idle_power_w", cp->idle_power_w, 2);
	jsonw_knum(&w, "busy_power_w", cp->busy_power_w, 2);
	jsonw_key(&w, "buckets");
	jsonw_arr_begin(&w);
	for (size_t i = 0; i < n; i++)
		json_row(&w, cp, &rows[i], q->by, 0);
	jsonw_arr_end(&w);
	jsonw_key(&w, "total");
	json_row(&w, cp, tot, q->by, 2);
	jsonw_key(&w, "tasks");
	jsonw_arr_begin(&w);
	for (size_t i = 0; i < nt; i++)
		json_row(&w, cp, &tasks[i], q->by, 1);
	jsonw_arr_end(&w);
	jsonw_obj_end(&w);
	jsonw_flush(&w);
	fputc('\n', stdout);
}

static void csv_out(const struct trend_query *q, const struct cost_params *cp, const struct trend_row *rows,
		    size_t n)
{
	printf("start,label,gpus,gpu_hours,busy_gpu_hours,util_mean_pct,busy_share,mem_max_mib,energy_kwh,"
	       "energy_source,owned_cost,rented_cost,idle_cost\n");
	for (size_t i = 0; i < n; i++) {
		struct priced p;
		char lab[48], t[40], v[9][24];
		price(cp, &rows[i], &p);
		label(lab, sizeof(lab), q->by, &rows[i]);
		time_rfc3339(t, sizeof(t), rows[i].t_s * NS_PER_S);
		/* every number through csv_num(): an unknown one is an empty cell */
		printf("%s,%s,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", t, lab, rows[i].gpus,
		       csv_num(v[0], rows[i].covered_s / 3600, 6), csv_num(v[1], rows[i].busy_s / 3600, 6),
		       csv_num(v[2], p.util_pct, 3), csv_num(v[3], p.busy_share, 6),
		       csv_num(v[4], rows[i].mem_max_mib >= 0 ? rows[i].mem_max_mib : NAN, 1),
		       csv_num(v[5], p.energy_kwh, 6), p.energy_source, csv_num(v[6], p.owned, 4),
		       csv_num(v[7], p.rented, 4), csv_num(v[8], p.idle_money, 4));
	}
}

struct trend_args {
	bool by_task;		/* --by task|user|job: the per-task (user, job) rows are the table */
	const char *owner;	/* --by user or job: that column, else NULL (tasks) */
	struct trend_query q;
	const char *db, *profile, *since, *until, *tz;
	const char **sets;
	int nsets, json, csv;
};

/*
 * --by task: one row per task (a process name, or a logger's task label)
 * over the window, most busy first, and the total of every GPU-hour beside
 * them.  A task's GPU-hours are the minutes it was present on each GPU, so a
 * GPU shared by two tasks at once counts in both rows, and the time no task
 * was seen in none: the rows need not add up to the total.
 */
/* A name from the logs as one CSV field: quoted (RFC 4180) when it holds a comma, quote or line break. */
static void csv_name(const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static void by_task_out(const struct trend_args *a, const struct cost_params *cp, const struct trend_row *tasks,
			size_t nt, const struct trend_row *tot)
{
	struct priced p;
	const char *what = a->owner ? a->owner : "task";
	const char *list = !a->owner ? "tasks" : !strcmp(a->owner, "user") ? "users" : "jobs";

	if (a->json) {
		struct jsonw w;
		jsonw_init(&w, stdout, true);
		jsonw_obj_begin(&w);
		jsonw_version(&w);
		jsonw_kstr(&w, "by", what);
		jsonw_kstr(&w, "gpu", a->q.gpu);
		jsonw_kstr(&w, "profile", cp->name[0] ? cp->name : NULL);
		jsonw_kstr(&w, "currency", cp->currency[0] ? cp->currency : NULL);
		jsonw_key(&w, list);
		jsonw_arr_begin(&w);
		for (size_t i = 0; i < nt; i++)	/* kind 1 a task, 3 a user, 4 a job */
			json_row(&w, cp, &tasks[i], a->q.by, !a->owner ? 1 : !strcmp(a->owner, "user") ? 3 : 4);
		jsonw_arr_end(&w);
		jsonw_key(&w, "total");
		json_row(&w, cp, tot, a->q.by, 2);
		jsonw_obj_end(&w);
		jsonw_flush(&w);
		fputc('\n', stdout);
		return;
	}
	if (a->csv) {
		printf("%s,gpus,gpu_hours,busy_gpu_hours,util_mean_pct,busy_share,mem_max_mib,energy_kwh,"
		       "energy_source,owned_cost,rented_cost,idle_cost\n", what);
		for (size_t i = 0; i < nt; i++) {
			char v[9][24];
			price(cp, &tasks[i], &p);
			csv_name(tasks[i].name);
			printf(",%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", tasks[i].gpus,
			       csv_num(v[0], tasks[i].covered_s / 3600, 6), csv_num(v[1], tasks[i].busy_s / 3600, 6),
			       csv_num(v[2], p.util_pct, 3), csv_num(v[3], p.busy_share, 6),
			       csv_num(v[4], tasks[i].mem_max_mib >= 0 ? tasks[i].mem_max_mib : NAN, 1),
			       csv_num(v[5], p.energy_kwh, 6), p.energy_source, csv_num(v[6], p.owned, 4),
			       csv_num(v[7], p.rented, 4), csv_num(v[8], p.idle_money, 4));
		}
		return;
	}
	printf("gputally trend by %s%s%s (the whole window); profile %s%s%s\n", what, a->q.gpu ? ", GPU " : "",
	       a->q.gpu ? a->q.gpu : "", cp->name[0] ? cp->name : "defaults", cp->currency[0] ? ", money in " : "",
	       cp->currency);
	printf("%-18s %4s %9s %6s %6s %9s %9s %10s %10s %10s  %s\n", what, "GPUs", "GPU-h", "util%", "busy%",
	       "mem GiB", "kWh", "owned", "rented", "idle money", "busy share");
	for (size_t i = 0; i < nt; i++) {
		price(cp, &tasks[i], &p);
		text_row(tasks[i].name, &tasks[i], &p);
	}
	price(cp, tot, &p);
	text_row("all GPU time", tot, &p);
	if (!nt && !a->owner)
		printf("(no task in this window: the logs named no process and no task label)\n");
	else if (!nt)
		printf("(no process in this window: no %s to name)\n", what);
}

/* Measured idle and busy power over the window (all GPUs), as report measures them. */
static void measured_power(struct cost_params *cp, const struct trend_row *all, size_t n)
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
			a->owner = !strcmp(it.arg, "user") ? "user" : !strcmp(it.arg, "job") ? "job" : NULL;
			a->by_task = !strcmp(it.arg, "task") || a->owner;
			if (a->by_task)
				a->q.by = TREND_MONTH;	/* the buckets are not shown */
			for (int i = 0; i < 4; i++)
				if (!strcmp(it.arg, by_name[i]))
					a->q.by = i;
			if (a->q.by < 0) {
				error("--by wants hour, day, week, month, task, user or job, got '%s'", it.arg);
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
		a->q.local = local_labels = true;
		zone_name = strcmp(a->tz, "local") ? a->tz : env && *env ? env : "local time (/etc/localtime)";
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
	struct trend_row *rows = NULL, *tasks = NULL, *all = NULL, tot;
	size_t n = 0, nt = 0, nall = 0;
	int ret = EXIT_OK, rc;

	memset(&a, 0, sizeof(a));
	a.q.by = TREND_DAY;
	a.q.since_ns = INT64_MIN;
	a.q.until_ns = INT64_MAX;
	rc = parse(argc, argv, &a);
	if (rc) {
		free(a.sets);
		return rc < 0 ? EXIT_OK : rc;
	}
	if ((ret = cli_cost_params(&cp, a.profile, a.sets, a.nsets)) != EXIT_OK)
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
		measured_power(&cp, all, nall);
	}
	if (store_trend(&st, &a.q, &rows, &n, &err))
		goto fail;
	if (a.owner ? store_trend_owners(&st, &a.q, a.owner, &tasks, &nt, &err)
		    : !a.q.task && store_trend_tasks(&st, &a.q, &tasks, &nt, &err))
		goto fail;
	memset(&tot, 0, sizeof(tot));
	tot.mem_max_mib = -1;
	for (size_t i = 0; i < n; i++) {
		/* the total's GPUs: the most seen in one bucket */
		if (rows[i].gpus > tot.gpus)
			tot.gpus = rows[i].gpus;
		tot.covered_s += rows[i].covered_s;
		tot.busy_s += rows[i].busy_s;
		tot.util_known_s += rows[i].util_known_s;
		tot.useful_s += rows[i].useful_s;
		tot.energy_j += rows[i].energy_j;
		tot.energy_known_s += rows[i].energy_known_s;
		if (rows[i].mem_max_mib > tot.mem_max_mib)
			tot.mem_max_mib = rows[i].mem_max_mib;
	}
	if (!a.json)
		term_safe_stdout();	/* task names come from logs */
	if (a.by_task && a.q.task) {
		error("--by %s lists every %s; --task NAME picks one task (give one of them)", a.owner ? a.owner : "task",
		      a.owner ? a.owner : "task");
		ret = EXIT_USAGE;
		goto out;
	}
	if (a.by_task)
		by_task_out(&a, &cp, tasks, nt, &tot);
	else if (a.json)
		json_out(&a.q, &cp, rows, n, tasks, nt, &tot);
	else if (a.csv)
		csv_out(&a.q, &cp, rows, n);
	else
		text_out(&a.q, &cp, rows, n, tasks, nt, &tot);	/* term_safe_stdout() above */
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
	free(rows);
	free(tasks);
	free(all);
	free(a.sets);
	return ret;
}
