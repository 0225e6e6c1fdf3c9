/* SPDX-License-Identifier: MIT */
/*
 * From the rollups back to an analysis, so that `report --db` renders a
 * stored window with the same code (and the same cost model) as `report`
 * does for files.  The store is one more source of the pipeline
 * (pipeline/pipeline.h): the analysis's own building blocks (analysis.h:
 * GPUs, minutes, the display series, events, outages, processes) lay out
 * what comes back, so both count and bound it the same way.  What minutes cannot give back is left unknown: the
 * segments, the idle-power floors, the sample counts; the utilization
 * quantiles come from per-minute means; a process's GPU time charged in
 * minutes stored before v7 (docs/store.md).
 */
#include "store/store.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hashidx.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

/* Kinds this version does not know must outlive the analysis: one interned copy per distinct name. */
static const char *intern_kind(const char *k)
{
	static char pool[64][48];
	static int n;

	for (int i = 0; i < n; i++)
		if (!strcmp(pool[i], k))
			return pool[i];
	if (n == 64)
		return "other";
	snprintf(pool[n], sizeof(pool[n]), "%s", k);
	return pool[n++];
}

static void append(char *buf, size_t cap, const char *fmt, const char *arg)
{
	size_t len = strlen(buf);
	snprintf(buf + len, cap - len, fmt, arg);
}

static int64_t t_s_of(int64_t t_ns, int up)
{
	if (t_ns == INT64_MIN || t_ns == INT64_MAX)
		return t_ns == INT64_MIN ? INT64_MIN / 2 : INT64_MAX / 2;
	return up ? (t_ns + NS_PER_S - 1) / NS_PER_S : t_ns / NS_PER_S;
}

static double col(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static const char *text_col(sqlite3_stmt *st, int i)
{
	const char *t = (const char *)sqlite3_column_text(st, i);
	return t ? t : "";
}

/* A statement over a window: sql's ?1 and ?2 bound to t0 and t1; NULL when it cannot be prepared. */
static sqlite3_stmt *window_stmt(struct store *s, const char *sql, int64_t t0, int64_t t1)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, t0);
	sqlite3_bind_int64(st, 2, t1);
	return st;
}

static void load_ident(struct store *s, int64_t gpu, struct gpu_ident *id)
{
	sqlite3_stmt *st;

	id->index = -1;
	if (sqlite3_prepare_v2(s->db, "SELECT idx, uuid, name FROM gpus WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, gpu);
	if (sqlite3_step(st) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) != SQLITE_NULL)
			id->index = sqlite3_column_int(st, 0);
		if (sqlite3_column_text(st, 1))
			snprintf(id->uuid, sizeof(id->uuid), "%s", sqlite3_column_text(st, 1));
		if (sqlite3_column_text(st, 2))
			snprintf(id->name, sizeof(id->name), "%s", sqlite3_column_text(st, 2));
	}
	sqlite3_finalize(st);
}

static int totals(struct store *s, struct analysis *an, int64_t *rows, int64_t t0, int64_t t1,
		  struct gl_err *err)
{
	char sql[4096] = "SELECT m.gpu, min(t_first_ns), max(t_last_ns), sum(covered_ms), sum(gaps_ms), sum(busy_ms),"
			 " sum(util_known_ms), max(mem_max_mib), max(mem_total_mib), sum(power_ws), sum(power_known_ms),"
			 " max(power_max_w), max(temp_max_c), sum(e_counter_j), sum(e_counter_ms), sum(e_power_j),"
			 " sum(e_power_ms), sum(e_unknown_ms), sum(idle_ws), sum(idle_ms), sum(active_ws), sum(active_ms)";
	sqlite3_stmt *st;
	int n;

	for (int k = 0; k < ST__COUNT; k++)
		append(sql, sizeof(sql), ", sum(s_%s)", state_name[k]);
	for (int k = 0; k < ST__COUNT; k++)
		append(sql, sizeof(sql), ", sum(b_%s)", state_name[k]);
	for (int k = 0; k < ST__COUNT; k++)
		append(sql, sizeof(sql), ", sum(e_%s)", state_name[k]);
	append(sql, sizeof(sql), "%s", " FROM minutes m JOIN gpus g ON g.id = m.gpu WHERE t >= ?1 AND t < ?2"
				       " GROUP BY m.gpu ORDER BY coalesce(g.idx, 1000000), g.id");
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return gl_err_set(err, GL_EIO, "%s: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_bind_int64(st, 1, t0);
	sqlite3_bind_int64(st, 2, t1);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct gpu_ident id = { 0 };
		struct gpu_stats *g;
		int c = 0;
		int64_t row = sqlite3_column_int64(st, c++);
		load_ident(s, row, &id);
		if ((n = analysis_gpu_restore(an, &id)) < 0)
			break;
		rows[n] = row;
		g = &an->gpus[n];
		g->first_ns = sqlite3_column_int64(st, c++);
		g->last_ns = sqlite3_column_int64(st, c++);
		g->covered_s = col(st, c++) / 1000;
		g->gaps_s = col(st, c++) / 1000;
		g->busy_s = col(st, c++) / 1000;
		g->util_known_s = col(st, c++) / 1000;
		g->mem_max_mib = col(st, c++);	/* NULL: no reading, NAN */
		g->mem_total_mib = fmax(0, col(st, c++));
		g->power_ws = col(st, c++);
		g->power_known_s = col(st, c++) / 1000;
		g->power_max_w = col(st, c++);
		g->temp_max_c = col(st, c++);
		g->energy_counter_j = col(st, c++);
		g->energy_counter_s = col(st, c++) / 1000;
		g->energy_power_j = col(st, c++);
		g->energy_power_s = col(st, c++) / 1000;
		g->energy_unknown_s = col(st, c++) / 1000;
		g->idle_ws = col(st, c++);
		g->idle_s = col(st, c++) / 1000;
		g->active_ws = col(st, c++);
		g->active_s = col(st, c++) / 1000;
		for (int k = 0; k < ST__COUNT; k++)
			g->state_s[k] = col(st, c++) / 1000;
		for (int k = 0; k < ST__COUNT; k++)
			g->state_busy_s[k] = col(st, c++) / 1000;
		for (int k = 0; k < ST__COUNT; k++)
			g->state_energy_j[k] = col(st, c++);
	}
	sqlite3_finalize(st);
	return an->tl.ngpus;
}

/* ---- the display series from minutes (the HTML page of report --db) ---- */

/* One metric of one minute: value x seconds over the known seconds; the
 * extremes a minute keeps (NAN: none stored, so the mean stands for it). */
static void series_put(struct ser_bucket *b, int m, double sum, double known_s, double lo, double hi)
{
	if (!(known_s > 0) || isnan(sum))
		return;
	if (isnan(lo))
		lo = sum / known_s;
	if (isnan(hi))
		hi = sum / known_s;
	b->sum[m] += (float)sum;
	b->known_s[m] += (float)known_s;
	b->min[m] = fminf(b->min[m], (float)lo);
	b->max[m] = fmaxf(b->max[m], (float)hi);
}

/*
 * A minute into the series: utilization and power as their means (and the
 * stored maxima); memory used and temperature as the minute's maximum (the
 * store keeps no mean of them); memory utilization and the SM clock are not
 * stored.  st: the minute's row from column 4 on (see minutes()).
 */
static void series_minute(struct gpu_stats *g, int64_t t_s, sqlite3_stmt *st)
{
	/* minute buckets at first, merged as the analysis merges its own */
	struct ser_bucket *b = ser_at(&g->ser, t_s * NS_PER_S, 60 * NS_PER_S);
	double cov = col(st, 1) / 1000, busy = col(st, 2) / 1000, known = col(st, 3) / 1000;

	series_put(b, SER_UTIL, 100 * busy, known, NAN, col(st, 4));
	series_put(b, SER_POWER, col(st, 7), col(st, 8) / 1000, NAN, col(st, 9));
	series_put(b, SER_MEM, col(st, 5) * cov, cov, col(st, 5), col(st, 5));
	series_put(b, SER_TEMP, col(st, 6) * cov, cov, col(st, 6), col(st, 6));
	for (int i = 0; i < ST__COUNT; i++)
		b->state_s[i] += (float)(col(st, 10 + i) / 1000);
}

/*
 * The per-minute busy and covered seconds, a utilization histogram of minute
 * means, and the display series.  One query over the window in the primary
 * key's order (time, GPU), each row to its GPU: a query per GPU filtered by
 * gpu walked every GPU's minutes of the window, GPUs squared.  Each GPU
 * still gets its minutes in time order, so the sums are the same.
 */
static void minutes(struct store *s, struct analysis *an, const int64_t *rows, int64_t t0, int64_t t1)
{
	char sql[1024] = "SELECT t, covered_ms, busy_ms, util_known_ms, util_max, mem_max_mib, temp_max_c,"
			 " power_ws, power_known_ms, power_max_w";
	sqlite3_stmt *st;
	int64_t maxrow = -1;
	int *gi_of;

	for (int k = 0; k < ST__COUNT; k++)
		append(sql, sizeof(sql), ", s_%s", state_name[k]);
	append(sql, sizeof(sql), "%s", ", gpu FROM minutes WHERE t >= ? AND t < ? ORDER BY t, gpu");
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	/* the GPU of a row id (gpus.id, small integers) */
	for (int i = 0; i < an->tl.ngpus; i++)
		maxrow = rows[i] > maxrow ? rows[i] : maxrow;
	gi_of = xreallocarray(NULL, (size_t)(maxrow + 1 > 0 ? maxrow + 1 : 1), sizeof(*gi_of));
	for (int64_t r = 0; r <= maxrow; r++)
		gi_of[r] = -1;
	for (int i = 0; i < an->tl.ngpus; i++)
		if (rows[i] >= 0)
			gi_of[rows[i]] = i;
	sqlite3_bind_int64(st, 1, t0);
	sqlite3_bind_int64(st, 2, t1);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(st, 0), row = sqlite3_column_int64(st, 10 + ST__COUNT);
		double cov = sqlite3_column_double(st, 1) / 1000, busy = sqlite3_column_double(st, 2) / 1000;
		double known = sqlite3_column_double(st, 3) / 1000;
		struct gpu_stats *g;
		size_t m;
		if (row < 0 || row > maxrow || gi_of[row] < 0)
			continue;	/* a GPU outside the window's */
		g = &an->gpus[gi_of[row]];
		if (g->nmin == 0)
			g->min_base_ns = t * NS_PER_S;
		m = (size_t)((t * NS_PER_S - g->min_base_ns) / (60 * NS_PER_S));
		gpu_minute_grow(g, m);
		g->min_busy_s[m] = (float)busy;
		g->min_cov_s[m] = (float)cov;
		if (known > 0) {
			double u = 100 * busy / known;
			int b = u < 0 ? 0 : u > 100 ? 100 : (int)(u + 0.5);
			g->util_hist_s[b] += known;
		}
		series_minute(g, t, st);
	}
	sqlite3_finalize(st);
	free(gi_of);
}

static int gpu_of_row(const struct analysis *an, const int64_t *rows, int64_t gpu);

/* The processes restored so far by (GPU, pid, name): open addressing over
 * indices into an->procs (+1; 0 empty), at most half full. */
struct proc_map {
	size_t *slot;
	size_t cap;
};

static size_t proc_hash(int gi, int64_t pid, const char *name)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)gi;

	h = (h ^ (uint64_t)pid) * 1099511628211ull;
	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 1099511628211ull;
	return (size_t)(h ^ h >> 29);
}

/* The slot of (gi, pid, name): the process's index + 1, or 0 where it would go. */
static size_t *proc_slot(struct proc_map *m, const struct analysis *an, int gi, int64_t pid, const char *name)
{
	size_t i = proc_hash(gi, pid, name) & (m->cap - 1);

	for (;; i = (i + 1) & (m->cap - 1)) {
		const struct proc_stat *p;
		if (!m->slot[i])
			return &m->slot[i];
		p = &an->procs[m->slot[i] - 1];
		if (p->gpu == gi && p->pid == pid && !strcmp(p->name, name))
			return &m->slot[i];
	}
}

static void proc_map_grow(struct proc_map *m, const struct analysis *an)
{
	struct proc_map n = { NULL, m->cap ? m->cap * 2 : 256 };

	n.slot = xcalloc(n.cap, sizeof(*n.slot));
	for (size_t i = 0; i < m->cap; i++)
		if (m->slot[i]) {
			const struct proc_stat *p = &an->procs[m->slot[i] - 1];
			*proc_slot(&n, an, p->gpu, p->pid, p->name) = m->slot[i];
		}
	free(m->slot);
	*m = n;
}

/* A who column of a minute: the last one said wins, as in the analysis. */
static void said(char *dst, size_t cap, sqlite3_stmt *st, int i)
{
	if (sqlite3_column_type(st, i) != SQLITE_NULL)
		snprintf(dst, cap, "%s", (const char *)sqlite3_column_text(st, i));
}

/*
 * Each process of the window: its minutes summed, in the order the
 * primary key keeps them (time, GPU, pid, name), so that no sort is
 * needed and each process comes in the order it was first seen; who it
 * belongs to is the latest user, job, task and container its minutes
 * said.  Its GPU time charged is unknown (NAN) when a minute stored
 * before v7 kept none.  Seconds are summed as milliseconds, exactly.
 */
static void procs(struct store *s, struct analysis *an, const int64_t *rows, int64_t t0, int64_t t1)
{
	struct proc_map map = { NULL, 0 };
	sqlite3_stmt *st;
	int64_t last_gpu = INT64_MIN;
	int gi = -1;

	st = window_stmt(s,
			 "SELECT t, gpu, pid, name, present_ms, busy_ms, energy_j, share_ms, user, job, task, ctr"
			 " FROM proc_minutes WHERE t >= ? AND t < ? ORDER BY t, gpu, pid, name",
			 t0, t1);
	if (!st)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(st, 0), gpu = sqlite3_column_int64(st, 1);
		int64_t pid = sqlite3_column_int64(st, 2);
		const char *name = text_col(st, 3);
		struct proc_stat *p;
		size_t *slot;
		if (gpu != last_gpu) {
			last_gpu = gpu;
			gi = gpu_of_row(an, rows, gpu);
		}
		if (gi < 0)
			continue;
		if (2 * (an->nprocs + 1) > map.cap)
			proc_map_grow(&map, an);
		slot = proc_slot(&map, an, gi, pid, name);
		if (!*slot) {
			if (!(p = analysis_proc_new(an, gi, pid, name)))
				continue;
			*slot = (size_t)(p - an->procs) + 1;
			p->first_ns = t * NS_PER_S;
			p->present_s = p->busy_s = p->energy_j = p->share_s = 0;
			if (pid != PID_TASK)
				an->gpus[gi].has_process_data = true;
		}
		p = &an->procs[*slot - 1];
		p->last_ns = (t + 60) * NS_PER_S;
		p->observations++;
		p->present_s += (double)sqlite3_column_int64(st, 4);	/* ms until the end */
		p->busy_s += (double)sqlite3_column_int64(st, 5);
		p->energy_j += sqlite3_column_double(st, 6);
		p->share_s += sqlite3_column_type(st, 7) == SQLITE_NULL ? NAN : (double)sqlite3_column_int64(st, 7);
		said(p->user, sizeof(p->user), st, 8);
		said(p->job, sizeof(p->job), st, 9);
		said(p->task, sizeof(p->task), st, 10);
		said(p->ctr, sizeof(p->ctr), st, 11);
	}
	sqlite3_finalize(st);
	free(map.slot);
	for (size_t i = 0; i < an->nprocs; i++) {
		struct proc_stat *p = &an->procs[i];
		p->present_s /= 1000;
		p->busy_s /= 1000;
		p->share_s /= 1000;
	}
}

static int job_by_id(const void *key, const void *elem)
{
	return strcmp(key, ((const struct an_job *)elem)->id);
}

/*
 * The batch jobs whose time meets the window (a job that held none of its
 * minutes is one that ran outside the telemetry's time, as on the files),
 * and each one's share of every GPU's minutes in it.
 */
static void jobs(struct store *s, struct analysis *an, const int64_t *rows, int64_t t0, int64_t t1,
		 int64_t t0_ns, int64_t t1_ns)
{
	sqlite3_stmt *st;

	st = window_stmt(s,
			 "SELECT id, user, account, nodes, t0_ns, t1_ns, ngpus, nnodes, gpu_mask, gpuutil_pct, gpumem_mib,"
			 " reported_energy_j FROM jobs WHERE t1_ns >= ?1 AND t0_ns < ?2 ORDER BY id",
			 t0_ns, t1_ns);
	if (!st)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct an_job *j = analysis_job_restore(an);
		snprintf(j->id, sizeof(j->id), "%s", text_col(st, 0));
		snprintf(j->user, sizeof(j->user), "%s", text_col(st, 1));
		snprintf(j->account, sizeof(j->account), "%s", text_col(st, 2));
		snprintf(j->nodes, sizeof(j->nodes), "%s", text_col(st, 3));
		j->t0_ns = sqlite3_column_int64(st, 4);
		j->t1_ns = sqlite3_column_int64(st, 5);
		j->ngpus = sqlite3_column_int(st, 6);
		j->nnodes = sqlite3_column_int(st, 7);
		j->gpu_mask = (uint64_t)sqlite3_column_int64(st, 8);
		j->gpuutil_pct = col(st, 9);
		j->gpumem_mib = col(st, 10);
		j->reported_energy_j = col(st, 11);
	}
	sqlite3_finalize(st);
	if (!an->njobs)
		return;
	/* in id order (the ORDER BY above, strcmp's order in SQLite's BINARY collation) */
	st = window_stmt(s,
			 "SELECT job, gpu, sum(held_ms), sum(busy_ms), sum(busy_known_ms), sum(energy_j) FROM job_minutes"
			 " WHERE t >= ?1 AND t < ?2 GROUP BY job, gpu",
			 t0, t1);
	if (!st)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct an_job *j = bsearch(text_col(st, 0), an->jobs, an->njobs, sizeof(*an->jobs), job_by_id);
		int gi = gpu_of_row(an, rows, sqlite3_column_int64(st, 1));
		if (!j || gi < 0)
			continue;
		j->held_s += sqlite3_column_double(st, 2) / 1000;
		j->energy_j += sqlite3_column_double(st, 5);
		if (sqlite3_column_int64(st, 4) > 0) {
			double b = sqlite3_column_double(st, 3) / 1000;
			if (!j->gpu_busy_s)
				j->gpu_busy_s = xcalloc(TL_MAX_GPUS, sizeof(double));
			j->busy_s += b;
			j->gpu_busy_s[gi] += b;
		}
	}
	sqlite3_finalize(st);
}

/* The longest stretches as stored: "t0_ns TAB t1_ns TAB energy_j TAB cause"
 * a line (energy empty: unknown), appended to f->detail[]. */
static void store_longest_parse(const char *p, struct finding *f)
{
	while (p && *p && f->ndetail < FIND_DETAILS) {
		struct find_detail *d = &f->detail[f->ndetail];
		const char *nl = strchr(p, '\n'), *c;
		char *end;
		size_t len;
		if (!nl)
			nl = p + strlen(p);
		d->t0_ns = strtoll(p, &end, 10);
		if (*end != '\t')
			break;
		d->t1_ns = strtoll(end + 1, &end, 10);
		if (*end != '\t')
			break;
		if (end[1] == '\t') {	/* energy unknown */
			d->energy_j = NAN;
			end++;
		} else {
			d->energy_j = strtod(end + 1, &end);
		}
		if (*end != '\t' || (c = end + 1) > nl)
			break;
		len = (size_t)(nl - c);
		if (len >= sizeof(d->cause))
			len = sizeof(d->cause) - 1;
		memcpy(d->cause, c, len);
		d->cause[len] = 0;
		f->ndetail++;
		p = *nl ? nl + 1 : nl;
	}
}

/* The event the first linked stretch came after, as det_cause_text() wrote
 * it at the end of the evidence ("" when none). */
static void first_cause(const char *evidence, uint64_t nstretch, uint64_t nlinked, char *buf, size_t cap)
{
	const char *p = NULL;

	buf[0] = 0;
	if (!nlinked)
		return;
	if (nstretch > 1 && (p = strstr(evidence, "the first after ")))
		p += strlen("the first after ");
	else if (nstretch == 1 && (p = strstr(evidence, "; after ")))
		p += strlen("; after ");
	else if (nstretch == 1 && !strncmp(evidence, "after ", 6))
		p = evidence + 6;
	if (p)
		snprintf(buf, cap, "%s", p);
}

/* A stretch that sorts first: longer, else earlier (det_gather_add keeps
 * the earlier of two equal ones). */
static bool detail_before(const struct find_detail *a, const struct find_detail *b)
{
	int64_t la = a->t1_ns - a->t0_ns, lb = b->t1_ns - b->t0_ns;

	return la != lb ? la > lb : a->t0_ns < b->t0_ns;
}

/*
 * Summary b (a later run's row, starting where a ends or after) added to a:
 * the span joined, the higher severity, stretches, linked ones, seconds and
 * energy added, the longest few of both in the detector's order, and the
 * sentences written again by the detector (analysis_summary_text()), the
 * mean power as the stretches' energy over their time (the power readings'
 * own sums are not stored).  idle_power adds idle seconds and their energy
 * and keeps the evidence (the idle floors, medians of one run) of the row
 * with more idle time.
 */
static void summary_join(const struct analysis *an, struct finding *a, const struct finding *b)
{
	struct finding m = *a;
	char name[48], ca[112], cb[112];

	m.t1_ns = b->t1_ns > a->t1_ns ? b->t1_ns : a->t1_ns;
	if (b->severity > m.severity)
		m.severity = b->severity;
	analysis_gpu_name(an, a->gpu, name, sizeof(name));
	if (a->fk == FK_IDLE_POWER) {
		double ws = a->value * a->total_s + b->value * b->total_s;
		m.total_s = a->total_s + b->total_s;
		m.value = ws / m.total_s;
		if (b->total_s > a->total_s)
			memcpy(m.evidence, b->evidence, sizeof(m.evidence));
		analysis_summary_text(&m, name, NAN, "");
	} else {
		size_t i = 0, j = 0;
		m.nstretch = a->nstretch + b->nstretch;
		m.nlinked = a->nlinked + b->nlinked;
		m.total_s = a->total_s + b->total_s;
		m.value = m.total_s;
		m.energy_j = isnan(a->energy_j) ? b->energy_j : isnan(b->energy_j) ? a->energy_j : a->energy_j + b->energy_j;
		m.ndetail = 0;
		while (m.ndetail < FIND_DETAILS && (i < a->ndetail || j < b->ndetail)) {
			if (j >= b->ndetail || (i < a->ndetail && detail_before(&a->detail[i], &b->detail[j])))
				m.detail[m.ndetail++] = a->detail[i++];
			else
				m.detail[m.ndetail++] = b->detail[j++];
		}
		/* the first stretch after an event is in the earlier row */
		first_cause(a->evidence, a->nstretch, a->nlinked, ca, sizeof(ca));
		first_cause(b->evidence, b->nstretch, b->nlinked, cb, sizeof(cb));
		m.evidence[0] = 0;
		analysis_summary_text(&m, name, !isnan(m.energy_j) && m.total_s > 0 ? m.energy_j / m.total_s : NAN,
				      *ca ? ca : cb);
	}
	*a = m;
}

/* The summaries being joined, by GPU, kind and code: the first of a key
 * (hashidx) and each one's next of the same key, in the order they began. */
struct joins {
	const struct analysis *an;
	size_t *acc, *next, n;	/* acc[k]: an->finds index; next[k]: the next of its key, or SIZE_MAX */
	struct hashidx by_key;
	const struct finding *f;	/* the key asked for */
};

static bool join_key_eq(const void *ctx, size_t k)
{
	const struct joins *J = ctx;
	const struct finding *a = &J->an->finds[J->acc[k]];

	return a->fk == J->f->fk && a->gpu == J->f->gpu && a->code == J->f->code;
}

/*
 * The findings loaded from from on (by start): each run stored its own
 * summary of a GPU and kind; rows of one GPU, kind and code that do not
 * overlap (the halves of a log, ingested apart, in either order) are one
 * summary, as report on the files makes one (docs/store.md).  A row goes
 * into the first summary of its key that it does not overlap, in the order
 * those began, else starts one: one pass, each row looked up by its key.
 */
static void join_summaries(struct analysis *an, size_t from)
{
	size_t n = from, cap = an->nfinds - from;
	struct joins J = { an, NULL, NULL, 0, { 0 }, NULL };

	J.acc = xcalloc(cap ? cap : 1, sizeof(*J.acc));
	J.next = xcalloc(cap ? cap : 1, sizeof(*J.next));
	for (size_t i = from; i < an->nfinds; i++) {
		struct finding *g = &an->finds[i];
		uint64_t h;
		size_t k, last = SIZE_MAX;
		if (!finding_is_run_summary(g))
			continue;
		J.f = g;
		h = hash_u64(hash_u64(hash_u64(HASH_SEED, g->fk), (uint64_t)(int64_t)g->gpu), (uint64_t)(int64_t)g->code);
		for (k = hashidx_find(&J.by_key, h, join_key_eq, &J); k != SIZE_MAX; last = k, k = J.next[k])
			if (g->t0_ns >= an->finds[J.acc[k]].t1_ns)
				break;
		if (k != SIZE_MAX) {
			summary_join(an, &an->finds[J.acc[k]], g);
			g->kind = NULL;
			continue;
		}
		J.acc[J.n] = i;
		J.next[J.n] = SIZE_MAX;
		if (last == SIZE_MAX)
			hashidx_add(&J.by_key, h, J.n);
		else
			J.next[last] = J.n;
		J.n++;
	}
	hashidx_release(&J.by_key);
	free(J.acc);
	free(J.next);
	for (size_t i = from; i < an->nfinds; i++)
		if (an->finds[i].kind) {
			if (n != i)
				an->finds[n] = an->finds[i];
			n++;
		}
	an->nfinds = n;
}

/*
 * A finding's figures of schema v8 (columns 9 on: nstretch, nlinked,
 * total_s, energy_j, longest, fit_mib0, fit_mib1, full_ns), as rollup.c
 * wrote them.  NULL (a row stored before v8, or a v7 store read as it is):
 * unknown, as restored before: no stretches, no total (ranked by its span),
 * energy and fit unknown.
 */
static void restore_figures(sqlite3_stmt *st, struct finding *f)
{
	const char *p = (const char *)sqlite3_column_text(st, 13);

	f->nstretch = (uint64_t)(sqlite3_column_int64(st, 9) > 0 ? sqlite3_column_int64(st, 9) : 0);
	f->nlinked = (uint64_t)(sqlite3_column_int64(st, 10) > 0 ? sqlite3_column_int64(st, 10) : 0);
	f->total_s = sqlite3_column_type(st, 11) == SQLITE_NULL ? 0 : sqlite3_column_double(st, 11);
	f->energy_j = col(st, 12);
	f->fit_mib0 = col(st, 14);
	f->fit_mib1 = col(st, 15);
	f->full_ns = sqlite3_column_int64(st, 16);
	store_longest_parse(p, f);
}

static void findings(struct store *s, struct analysis *an, const int64_t *rows, int64_t t0_ns, int64_t t1_ns)
{
	sqlite3_stmt *st;
	size_t from = an->nfinds;

	st = window_stmt(s,
			 "SELECT gpu, kind, t0_ns, t1_ns, severity, value, message, evidence, code, nstretch, nlinked,"
			 " total_s, energy_j, longest, fit_mib0, fit_mib1, full_ns FROM findings"
			 " WHERE t1_ns >= ? AND t0_ns < ? ORDER BY t0_ns, gpu, kind, code",
			 t0_ns, t1_ns);
	if (!st)	/* a v7 store read as it is (STORE_READ_OLDEST): no figures */
		st = window_stmt(s,
				 "SELECT gpu, kind, t0_ns, t1_ns, severity, value, message, evidence, code, NULL, NULL,"
				 " NULL, NULL, NULL, NULL, NULL, NULL FROM findings"
				 " WHERE t1_ns >= ? AND t0_ns < ? ORDER BY t0_ns, gpu, kind, code",
				 t0_ns, t1_ns);
	if (!st)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t gpu = sqlite3_column_int64(st, 0);
		struct finding *f;
		int gi = -1;
		for (int i = 0; i < an->tl.ngpus; i++)
			if (rows[i] == gpu)
				gi = i;
		if (gpu >= 0 && gi < 0)
			continue;
		f = analysis_finding_restore(an);
		/* its kind by name, as a report on the files has it (ranking,
		 * the value's unit); a name this version does not know keeps
		 * FK_NONE and its name, and the writers say so */
		f->fk = (uint8_t)finding_kind_of(text_col(st, 1));
		f->kind = f->fk != FK_NONE ? finding_kind_name[f->fk] : intern_kind(text_col(st, 1));
		f->gpu = gi;
		f->t0_ns = sqlite3_column_int64(st, 2);
		f->t1_ns = sqlite3_column_int64(st, 3);
		f->severity = sqlite3_column_int(st, 4);
		f->value = col(st, 5);
		snprintf(f->message, sizeof(f->message), "%s",
			 sqlite3_column_text(st, 6) ? (const char *)sqlite3_column_text(st, 6) : "");
		snprintf(f->evidence, sizeof(f->evidence), "%s",
			 sqlite3_column_text(st, 7) ? (const char *)sqlite3_column_text(st, 7) : "");
		f->code = sqlite3_column_int(st, 8);
		restore_figures(st, f);
	}
	sqlite3_finalize(st);
	join_summaries(an, from);
}

static int name_index(const char *const *names, int n, const char *s)
{
	for (int i = 0; s && i < n; i++)
		if (names[i] && !strcmp(names[i], s))
			return i;
	return -1;
}

static int gpu_of_row(const struct analysis *an, const int64_t *rows, int64_t gpu)
{
	for (int i = 0; i < an->tl.ngpus; i++)
		if (rows[i] == gpu)
			return i;
	return -1;
}

/*
 * The events of the window, with what a report on the files counts of them
 * (on_event in analysis.c): per kind, per GPU, Xids by class, the copies
 * in other inputs.  An event of a GPU outside the window's minutes is a
 * host event here, as one whose GPU no map names.
 */
static void events(struct store *s, struct analysis *an, const int64_t *rows, int64_t t0_ns, int64_t t1_ns)
{
	sqlite3_stmt *st;

	st = window_stmt(s,
			 "SELECT gpu, kind, code, pci, t_ns, message, class, severity, flags, count, process, detail,"
			 " gpu_by, src, line, also FROM events WHERE t_ns >= ? AND t_ns < ? ORDER BY t_ns, src, line",
			 t0_ns, t1_ns);
	if (!st)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int gi = gpu_of_row(an, rows, sqlite3_column_int64(st, 0));
		int ev = name_index(event_kind_name, EV__COUNT, text_col(st, 1));
		int klass = name_index(kev_class_name, KC__COUNT, text_col(st, 6));
		const char *also = text_col(st, 15);
		struct an_event *e;
		if (ev < 0)
			continue;
		an->ev_count[ev]++;
		analysis_event_count(an, gi, ev, klass);
		if (!(e = analysis_event_new(an)))
			continue;
		e->gpu = gi;
		e->ev = (uint8_t)ev;
		e->code = sqlite3_column_int(st, 2);
		snprintf(e->pci, sizeof(e->pci), "%s", text_col(st, 3));
		e->t_ns = sqlite3_column_int64(st, 4);
		snprintf(e->msg, sizeof(e->msg), "%s", text_col(st, 5));
		e->klass = klass >= 0 ? (uint8_t)klass : KC_NONE;
		e->severity = (uint8_t)sqlite3_column_int(st, 7);
		e->flags = (uint8_t)sqlite3_column_int(st, 8);
		e->count = (uint32_t)sqlite3_column_int64(st, 9);
		snprintf(e->proc, sizeof(e->proc), "%s", text_col(st, 10));
		snprintf(e->text, sizeof(e->text), "%s", text_col(st, 11));
		e->mapped_by = gi >= 0 && sqlite3_column_text(st, 12) ? analysis_str(an, text_col(st, 12)) : NULL;
		e->src = sqlite3_column_text(st, 13) ? analysis_str(an, text_col(st, 13)) : NULL;
		e->line = (uint64_t)sqlite3_column_int64(st, 14);
		/* also: "t_ns<TAB>line<TAB>path" lines (rollup.c) */
		for (const char *p = also; *p;) {
			const char *eol = strchr(p, '\n');
			char buf[1024];
			long long t;
			unsigned long long line;
			int off = 0;
			snprintf(buf, sizeof(buf), "%.*s", (int)(eol ? eol - p : (ptrdiff_t)strlen(p)), p);
			if (sscanf(buf, "%lld\t%llu\t%n", &t, &line, &off) == 2 && off > 0) {
				if (e->nalso < EVENT_ALSO)
					e->also[e->nalso++] = (struct an_event_also){ analysis_str(an, buf + off), line, t };
				e->copies++;
				an->event_copies++;
			}
			p = eol ? eol + 1 : p + strlen(p);
		}
	}
	sqlite3_finalize(st);
}

/* The outages that overlap the window, cut to it, and each GPU's time down. */
static void outages(struct store *s, struct analysis *an, const int64_t *rows, int64_t t0_ns, int64_t t1_ns)
{
	sqlite3_stmt *st;

	st = window_stmt(s,
			 "SELECT gpu, t0_ns, t1_ns, kind, code, src, line FROM outages WHERE t1_ns > ? AND t0_ns < ?"
			 " ORDER BY t0_ns, gpu",
			 t0_ns, t1_ns);
	if (!st)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int gi = gpu_of_row(an, rows, sqlite3_column_int64(st, 0));
		int64_t a = sqlite3_column_int64(st, 1), b = sqlite3_column_int64(st, 2);
		struct outage *o;
		if (gi < 0)
			continue;
		a = a > t0_ns ? a : t0_ns;
		b = b < t1_ns ? b : t1_ns;
		if (!(o = analysis_outage_new(an, gi, a, b)))
			continue;
		o->ev = name_index(event_kind_name, EV__COUNT, text_col(st, 3));
		o->code = o->ev >= 0 ? sqlite3_column_int(st, 4) : -1;
		o->src = sqlite3_column_text(st, 5) ? analysis_str(an, text_col(st, 5)) : NULL;
		o->line = (uint64_t)sqlite3_column_int64(st, 6);
	}
	sqlite3_finalize(st);
}

void store_load_inputs(struct store *s, struct ingest_result *res, int64_t since_ns, int64_t until_ns)
{
	sqlite3_stmt *st;

	/* a grown file has a row per content: the longest one of a path stands for it */
	st = window_stmt(s,
			 "SELECT path, format, compression, size, lines, records, skipped, t_first_ns, t_last_ns"
			 " FROM files f WHERE t_last_ns >= ?1 AND t_first_ns < ?2 AND NOT EXISTS"
			 " (SELECT 1 FROM files g WHERE g.path = f.path AND g.head = f.head AND g.size > f.size)"
			 " ORDER BY path",
			 since_ns, until_ns);
	if (!st)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct input_stat *in;
		const char *fmt = (const char *)sqlite3_column_text(st, 1);
		const char *comp = (const char *)sqlite3_column_text(st, 2);
		ALLOC_GROW(res->inputs, res->nr + 1, res->alloc);
		in = &res->inputs[res->nr++];
		memset(in, 0, sizeof(*in));
		in->path = xstrdup((const char *)sqlite3_column_text(st, 0));
		in->format = fmt ? format_find(fmt) : NULL;
		if (!in->format)
			snprintf(in->skip_reason, sizeof(in->skip_reason), "format '%s' unknown to this program",
				 fmt ? fmt : "");
		snprintf(in->why, sizeof(in->why), "stored in %s", s->path);
		/* the driver's names are static strings: keep to them */
		in->compression = comp && !strcmp(comp, "gzip") ? "gzip" : comp && !strcmp(comp, "zstd") ? "zstd" :
				  comp && !strcmp(comp, "xz") ? "xz" : "plain";
		in->time_basis = "as ingested into the store";
		in->bytes = (uint64_t)sqlite3_column_int64(st, 3);
		in->lines = (uint64_t)sqlite3_column_int64(st, 4);
		in->records = (uint64_t)sqlite3_column_int64(st, 5);
		in->bad = (uint64_t)sqlite3_column_int64(st, 6);
		in->t_first_ns = sqlite3_column_int64(st, 7);
		in->t_last_ns = sqlite3_column_int64(st, 8);
		in->place_r = in->place_uncertain_s = NAN;
	}
	sqlite3_finalize(st);
}

int store_load_analysis(struct store *s, struct analysis *an, int64_t since_ns, int64_t until_ns,
			struct gl_err *err)
{
	int64_t rows[TL_MAX_GPUS];
	/* whole minutes: a minute belongs to the window when it starts inside it */
	int64_t t0 = t_s_of(since_ns, 1), t1 = t_s_of(until_ns, 1);
	int n;

	t0 = t0 == INT64_MIN / 2 ? t0 : (t0 + 59) / 60 * 60;
	n = totals(s, an, rows, t0, t1, err);
	if (n < 0)
		return n;
	if (n) {
		minutes(s, an, rows, t0, t1);
		procs(s, an, rows, t0, t1);
		jobs(s, an, rows, t0, t1, since_ns, until_ns);
	}
	/* findings and events of no GPU are kept with no GPU at all (a
	 * kernel log ingested alone: tests/corpus/public/gpud-pr870-dmesg-x) */
	findings(s, an, rows, since_ns, until_ns);
	analysis_rank_findings(an);	/* the one order every writer lists them in */
	events(s, an, rows, since_ns, until_ns);
	outages(s, an, rows, since_ns, until_ns);
	return n;
}
