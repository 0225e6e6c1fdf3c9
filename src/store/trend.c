/* SPDX-License-Identifier: MIT */
/*
 * Trend queries: the rollups summed per hour, day, week or month (UTC, or
 * the local time of TZ), for
 * all GPUs, one GPU, or the minutes and shares of one task.  SQLite does the
 * grouping over the primary key's time order; months are days merged here.
 */
#include "store/store.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/timeutil.h"
#include "util/xalloc.h"

static void cat(char *buf, size_t cap, const char *s)
{
	size_t len = strlen(buf);
	snprintf(buf + len, cap - len, "%s", s);
}

/* sum of the useful states' milliseconds of a minutes row, as SQL */
static void useful_expr(char *buf, size_t cap, const char *alias)
{
	char part[64];
	int first = 1;

	cat(buf, cap, "(");
	for (int s = 0; s < ST__COUNT; s++)
		if (state_is_useful(s)) {
			snprintf(part, sizeof(part), "%s%s.s_%s", first ? "" : " + ", alias, state_name[s]);
			cat(buf, cap, part);
			first = 0;
		}
	cat(buf, cap, ")");
}

/* Finer buckets than the four of trend_by, for local time: every UTC offset
 * in use is a multiple of 15 minutes. */
enum { BY_QUARTER = -1 };

static const char *bucket_expr(int by, const char *tcol, char *buf, size_t cap)
{
	switch (by) {
	case BY_QUARTER:
		snprintf(buf, cap, "(%s / 900) * 900", tcol);
		break;
	case TREND_HOUR:
		snprintf(buf, cap, "(%s / 3600) * 3600", tcol);
		break;
	case TREND_WEEK:	/* 1970-01-01 was a Thursday: day + 3 counts from a Monday */
		snprintf(buf, cap, "(((%s / 86400 + 3) / 7) * 7 - 3) * 86400", tcol);
		break;
	default:		/* days, and months merged from days */
		snprintf(buf, cap, "(%s / 86400) * 86400", tcol);
	}
	return buf;
}

static int64_t lim(int64_t t_ns, int up)
{
	if (t_ns == INT64_MIN)
		return INT64_MIN / 2;
	if (t_ns == INT64_MAX)
		return INT64_MAX / 2;
	return up ? (t_ns + 60 * NS_PER_S - 1) / (60 * NS_PER_S) * 60 : t_ns / NS_PER_S;
}

static void bind_common(sqlite3_stmt *st, const struct trend_query *q)
{
	sqlite3_bind_int64(st, 1, lim(q->since_ns, 1));
	sqlite3_bind_int64(st, 2, lim(q->until_ns, 1));
	if (q->gpu)
		sqlite3_bind_text(st, 3, q->gpu, -1, SQLITE_STATIC);
	if (q->task)
		sqlite3_bind_text(st, 4, q->task, -1, SQLITE_STATIC);
}

static const char *gpu_filter(const struct trend_query *q, const char *alias, char *buf, size_t cap)
{
	if (!q->gpu)
		return "";
	snprintf(buf, cap, " AND %s.gpu IN (SELECT id FROM gpus WHERE uuid = ?3 OR CAST(idx AS TEXT) = ?3)", alias);
	return buf;
}

static void read_row(sqlite3_stmt *st, struct trend_row *r, int name_col)
{
	int c = 0;

	memset(r, 0, sizeof(*r));
	if (name_col)
		snprintf(r->name, sizeof(r->name), "%s", (const char *)sqlite3_column_text(st, c++));
	else
		r->t_s = sqlite3_column_int64(st, c++);
	r->gpus = sqlite3_column_int(st, c++);
	r->covered_s = sqlite3_column_double(st, c++) / 1000;
	r->busy_s = sqlite3_column_double(st, c++) / 1000;
	r->util_known_s = sqlite3_column_double(st, c++) / 1000;
	r->useful_s = sqlite3_column_double(st, c++) / 1000;
	r->mem_max_mib = sqlite3_column_type(st, c) == SQLITE_NULL ? -1 : sqlite3_column_double(st, c);
	c++;
	r->energy_j = sqlite3_column_double(st, c++);
	r->energy_known_s = sqlite3_column_double(st, c++) / 1000;
	r->idle_ws = sqlite3_column_double(st, c++);
	r->idle_s = sqlite3_column_double(st, c++) / 1000;
	r->active_ws = sqlite3_column_double(st, c++);
	r->active_s = sqlite3_column_double(st, c++) / 1000;
}

/* Whole hours only: then the hours table answers, 60 times fewer rows. */
static bool hour_aligned(const struct trend_query *q)
{
	return (q->since_ns == INT64_MIN || lim(q->since_ns, 1) % 3600 == 0) &&
	       (q->until_ns == INT64_MAX || lim(q->until_ns, 1) % 3600 == 0);
}

/* The SELECT list and FROM of one kind of row: whole GPUs, or one task's share.
 * fine: the buckets are shorter than an hour, so the minutes must answer. */
/* The proc form's filter: one task by name (?4; NULL every one), or with
 * owners every process (not a logger's task labels, pid -3: no one's). */
#define NAME_FILTER "(?4 IS NULL OR p.name = ?4)"
#define OWNER_FILTER "p.pid != -3"

static void select_sql_f(char *sql, size_t cap, const struct trend_query *q, const char *group, bool fine,
			 const char *filter);

static void select_sql(char *sql, size_t cap, const struct trend_query *q, const char *group, bool fine)
{
	select_sql_f(sql, cap, q, group, fine, NAME_FILTER);
}

static void select_sql_f(char *sql, size_t cap, const struct trend_query *q, const char *group, bool fine,
			 const char *filter)
{
	char useful[256] = "", gf[128];

	if (!q->task) {
		useful_expr(useful, sizeof(useful), "m");
		snprintf(sql, cap,
			 "SELECT %s AS b, count(DISTINCT m.gpu), sum(m.covered_ms), sum(m.busy_ms), sum(m.util_known_ms),"
			 " sum(%s), max(m.mem_max_mib), sum(m.e_counter_j + m.e_power_j), sum(m.e_counter_ms + m.e_power_ms),"
			 " sum(m.idle_ws), sum(m.idle_ms), sum(m.active_ws), sum(m.active_ms)"
			 " FROM %s m WHERE m.t >= ?1 AND m.t < ?2%s GROUP BY b ORDER BY b",
			 group, useful, hour_aligned(q) && !fine ? "hours" : "minutes", gpu_filter(q, "m", gf, sizeof(gf)));
		return;
	}
	useful_expr(useful, sizeof(useful), "m");
	snprintf(sql, cap,
		 "SELECT %s AS b, count(DISTINCT p.gpu), sum(p.present_ms), sum(p.busy_ms), sum(p.busy_known_ms),"
		 " sum(p.present_ms * %s / max(m.covered_ms, 1)), max(m.mem_max_mib), sum(p.energy_j),"
		 " sum(p.present_ms * (m.e_counter_ms + m.e_power_ms) / max(m.covered_ms, 1)), 0, 0, 0, 0"
		 " FROM proc_minutes p JOIN minutes m ON m.t = p.t AND m.gpu = p.gpu"
		 " WHERE p.t >= ?1 AND p.t < ?2%s AND %s GROUP BY b ORDER BY %s",
		 group, useful, gpu_filter(q, "p", gf, sizeof(gf)), filter,
		 strcmp(filter, NAME_FILTER) || !strcmp(group, "p.name") ? "sum(p.busy_ms) DESC, b" : "b");
}

static void merge(struct trend_row *a, const struct trend_row *b)
{
	if (b->gpus > a->gpus)
		a->gpus = b->gpus;
	a->covered_s += b->covered_s;
	a->busy_s += b->busy_s;
	a->util_known_s += b->util_known_s;
	a->useful_s += b->useful_s;
	if (b->mem_max_mib > a->mem_max_mib)
		a->mem_max_mib = b->mem_max_mib;
	a->energy_j += b->energy_j;
	a->energy_known_s += b->energy_known_s;
	a->idle_ws += b->idle_ws;
	a->idle_s += b->idle_s;
	a->active_ws += b->active_ws;
	a->active_s += b->active_s;
}

static int64_t month_start(int64_t t_s)
{
	int y, m, d;
	civil_from_days(t_s / 86400, &y, &m, &d);
	return days_from_civil(y, m, 1) * 86400;
}

static int run(struct store *s, const struct trend_query *q, const char *sql, int name_col,
	       struct trend_row **rows, size_t *n, struct gl_err *err)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	*rows = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return gl_err_set(err, GL_EIO, "%s: %s", s->path, sqlite3_errmsg(s->db));
	bind_common(st, q);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct trend_row r;
		read_row(st, &r, name_col);
		if (!name_col && q->by == TREND_MONTH) {
			r.t_s = month_start(r.t_s);
			if (*n && (*rows)[*n - 1].t_s == r.t_s) {
				merge(&(*rows)[*n - 1], &r);
				continue;
			}
		}
		ALLOC_GROW(*rows, *n + 1, alloc);
		(*rows)[(*n)++] = r;
	}
	if (rc != SQLITE_DONE)
		gl_err_set(err, GL_EIO, "%s: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : GL_EIO;
}

static int64_t pmod(int64_t a, int64_t m)
{
	int64_t r = a % m;
	return r < 0 ? r + m : r;
}

/* The UTC instant of local midnight of the local day `days` (since 1970-01-01). */
static int64_t local_midnight(int64_t days)
{
	int y, m, d;
	int64_t t;

	civil_from_days(days, &y, &m, &d);
	if (time_local_to_utc(y, m, d, 0, 0, 0, &t))
		t = days * 86400 - time_utc_offset_s(days * 86400);
	return t;
}

int64_t store_local_bucket(int by, int64_t t_s)
{
	int64_t lt = t_s + time_utc_offset_s(t_s), days = (lt - pmod(lt, 86400)) / 86400;
	int y, m, d;

	switch (by) {
	case TREND_HOUR:
		return t_s - pmod(lt, 3600);
	case TREND_WEEK:	/* 1970-01-01 was a Thursday: day + 3 counts from a Monday */
		return local_midnight(days - pmod(days + 3, 7));
	case TREND_MONTH:
		civil_from_days(days, &y, &m, &d);
		return local_midnight(days_from_civil(y, m, 1));
	default:
		return local_midnight(days);
	}
}

/* Every row [t, t + step) lies in one local hour: one UTC offset, a whole number of hours. */
static bool rows_fit_local_hours(const struct trend_row *r, size_t n, int64_t step)
{
	for (size_t i = 0; i < n; i++) {
		long off = time_utc_offset_s(r[i].t_s);
		if (off % 3600 || time_utc_offset_s(r[i].t_s + step - 1) != off)
			return false;
	}
	return true;
}

static int local_trend(struct store *s, const struct trend_query *q, struct trend_row **rows, size_t *n,
		       struct gl_err *err)
{
	char sql[2048], b[128];
	const char *tcol = q->task ? "p.t" : "m.t";
	struct trend_query hq = *q;
	size_t k = 0;
	int rc;

	hq.by = TREND_HOUR;	/* run() merges months only for TREND_MONTH */
	select_sql(sql, sizeof(sql), q, bucket_expr(TREND_HOUR, tcol, b, sizeof(b)), false);
	if ((rc = run(s, &hq, sql, 0, rows, n, err)))
		return rc;
	if (!rows_fit_local_hours(*rows, *n, 3600)) {
		free(*rows);
		select_sql(sql, sizeof(sql), q, bucket_expr(BY_QUARTER, tcol, b, sizeof(b)), true);
		if ((rc = run(s, &hq, sql, 0, rows, n, err)))
			return rc;
	}
	/* rows come in time order, so a local bucket's rows are consecutive */
	for (size_t i = 0; i < *n; i++) {
		struct trend_row r = (*rows)[i];
		r.t_s = store_local_bucket(q->by, r.t_s);
		if (k && (*rows)[k - 1].t_s == r.t_s)
			merge(&(*rows)[k - 1], &r);
		else
			(*rows)[k++] = r;
	}
	*n = k;
	return 0;
}

int store_trend(struct store *s, const struct trend_query *q, struct trend_row **rows, size_t *n,
		struct gl_err *err)
{
	char sql[2048], b[128];

	if (q->local)
		return local_trend(s, q, rows, n, err);
	select_sql(sql, sizeof(sql), q, bucket_expr(q->by, q->task ? "p.t" : "m.t", b, sizeof(b)), false);
	return run(s, q, sql, 0, rows, n, err);
}

/* Does the window (and q->gpu) hold a batch job's minute? */
static int has_job_minutes(struct store *s, const struct trend_query *q, bool *yes, struct gl_err *err)
{
	char sql[512], gf[128];
	sqlite3_stmt *st;
	int rc;

	snprintf(sql, sizeof(sql), "SELECT 1 FROM job_minutes jm WHERE jm.t >= ?1 AND jm.t < ?2%s LIMIT 1",
		 gpu_filter(q, "jm", gf, sizeof(gf)));
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return gl_err_set(err, GL_EIO, "%s: %s", s->path, sqlite3_errmsg(s->db));
	bind_common(st, q);
	rc = sqlite3_step(st);
	*yes = rc == SQLITE_ROW;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return gl_err_set(err, GL_EIO, "%s: %s", s->path, sqlite3_errmsg(s->db));
	return 0;
}

int store_trend_owners(struct store *s, const struct trend_query *q, const char *col, struct trend_row **rows,
		       size_t *n, struct gl_err *err)
{
	char sql[2048], group[160], useful[256] = "", gf[128];
	bool jobs = false;
	int rc;

	/* the task form over every process (not a logger's task labels:
	 * they say no user), grouped by who it belongs to */
	struct trend_query tq = *q;
	if (strcmp(col, "user") && strcmp(col, "job") && strcmp(col, "account"))
		return gl_err_set(err, GL_EUSAGE, "no such owner column '%s'", col);
	tq.task = NULL;
	if ((rc = has_job_minutes(s, &tq, &jobs, err)))
		return rc;
	if (jobs) {
		/* Slurm's allocations own the window's users, accounts and
		 * jobs (as in report): each job's GPU time held per minute,
		 * its busy time and energy, and the useful share of the
		 * minutes it held */
		useful_expr(useful, sizeof(useful), "m");
		snprintf(group, sizeof(group), "coalesce(nullif(%s, ''), '%s')",
			 !strcmp(col, "job") ? "jm.job" : !strcmp(col, "user") ? "j.user" : "j.account",
			 !strcmp(col, "job") ? "(none)" : !strcmp(col, "user") ? "(unknown user)" : "(no account)");
		snprintf(sql, sizeof(sql),
			 "SELECT %s AS b, count(DISTINCT jm.gpu), sum(jm.held_ms), sum(jm.busy_ms), sum(jm.busy_known_ms),"
			 " sum(jm.held_ms * %s / max(m.covered_ms, 1)), max(m.mem_max_mib), sum(jm.energy_j),"
			 " sum(jm.held_ms * (m.e_counter_ms + m.e_power_ms) / max(m.covered_ms, 1)), 0, 0, 0, 0"
			 " FROM job_minutes jm JOIN minutes m ON m.t = jm.t AND m.gpu = jm.gpu LEFT JOIN jobs j ON j.id = jm.job"
			 " WHERE jm.t >= ?1 AND jm.t < ?2%s GROUP BY b ORDER BY sum(jm.busy_ms) DESC, b",
			 group, useful, gpu_filter(&tq, "jm", gf, sizeof(gf)));
		return run(s, &tq, sql, 1, rows, n, err);
	}
	/* processes name no account: theirs is unknown, not blank */
	if (!strcmp(col, "account"))
		snprintf(group, sizeof(group), "'(unknown account)'");
	else
		snprintf(group, sizeof(group), "coalesce(nullif(p.%s, ''), '%s')", col,
			 !strcmp(col, "user") ? "(unknown user)" : "(none)");
	tq.task = "";
	select_sql_f(sql, sizeof(sql), &tq, group, false, OWNER_FILTER);
	tq.task = NULL;
	return run(s, &tq, sql, 1, rows, n, err);
}

int store_trend_tasks(struct store *s, const struct trend_query *q, struct trend_row **rows, size_t *n,
		      struct gl_err *err)
{
	char sql[2048];

	/* every task (or the one asked for): the task form of the query, grouped by name */
	struct trend_query tq = *q;
	tq.task = q->task ? q->task : "";
	select_sql(sql, sizeof(sql), &tq, "p.name", false);
	return run(s, q, sql, 1, rows, n, err);
}

int store_gpu_model(struct store *s, const struct trend_query *q, char *name, size_t cap, struct gl_err *err)
{
	struct trend_query wq = *q;
	char sql[512], gf[128];
	sqlite3_stmt *st;
	int rc;

	name[0] = '\0';
	wq.task = NULL;
	snprintf(sql, sizeof(sql),
		 "SELECT g.name FROM %s m JOIN gpus g ON g.id = m.gpu WHERE m.t >= ?1 AND m.t < ?2%s"
		 " AND g.name IS NOT NULL AND g.name <> '' GROUP BY g.name ORDER BY sum(m.covered_ms) DESC, g.name LIMIT 1",
		 hour_aligned(&wq) ? "hours" : "minutes", gpu_filter(&wq, "m", gf, sizeof(gf)));
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return gl_err_set(err, GL_EIO, "%s: %s", s->path, sqlite3_errmsg(s->db));
	bind_common(st, &wq);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(name, cap, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return gl_err_set(err, GL_EIO, "%s: %s", s->path, sqlite3_errmsg(s->db));
	return 0;
}
