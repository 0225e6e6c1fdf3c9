/* SPDX-License-Identifier: MIT */
/*
 * Per-minute rollups, written while the analysis runs: the analysis hook
 * hands over every interval with the state the analysis gave it (the state
 * rules are not repeated here), cut at minute boundaries; a GPU's minute is
 * written as soon as its intervals have moved past it, so memory does not
 * grow with the length of the logs.
 *
 * A minute already in the store is replaced only by one that accounts more
 * of its seconds (a file that grew, the last minute of a log cut short);
 * one that accounts as many or fewer is kept, so ingesting a log again, or
 * another log of the same minutes, adds nothing.
 */
#include "store/store.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/timeutil.h"
#include "util/xalloc.h"

#define MIN_NS (60 * NS_PER_S)
#define MAXPROC 64

struct minute {
	int64_t t_s;		/* minute start, unix seconds; INT64_MIN: none open */
	int64_t first_ns, last_ns;
	double covered_s, gaps_s, busy_s, util_known_s, util_max, mem_max, mem_total;
	double power_ws, power_known_s, power_max, temp_max;
	double e_counter_j, e_counter_s, e_power_j, e_power_s, e_unknown_s;
	double idle_ws, idle_s, active_ws, active_s;
	double st_s[ST__COUNT], st_busy_s[ST__COUNT], st_e[ST__COUNT];
};

struct proc_min {
	int64_t pid;
	char name[64];
	/* who it belongs to ("" unknown: stored NULL) */
	char user[32], job[32], task[48], ctr[72];
	double present_s, share_s, busy_s, busy_known_s, energy_j;
};

struct proc_minute {
	int64_t t_s;
	struct proc_min p[MAXPROC];
	int n;
};

/* A batch job's share of one GPU's minute (struct an_job, analysis hook job()). */
struct job_min {
	char id[48];
	double held_s, busy_s, busy_known_s, energy_j;
};

struct job_minute {
	int64_t t_s;
	struct job_min j[MAXPROC];
	int n;
};

struct gpu_rows {
	struct minute m;
	struct minute h;	/* the hour being summed from this run's minutes */
	/* the minutes with processes' (jobs') pieces not written yet, oldest
	 * first: the processes of one interval each walk its minutes, so a
	 * minute stays open until an interval starts after it */
	struct proc_minute *pm;
	size_t npm, pm_alloc;
	struct job_minute *jm;
	size_t njm, jm_alloc;
	int64_t id;		/* gpus.id, 0 until resolved */
	bool id_has_uuid;
};

struct store_writer {
	struct store *s;
	struct analysis *an;
	struct gpu_rows *g[TL_MAX_GPUS];
	sqlite3_stmt *get_min, *put_min, *put_hour, *get_proc, *put_proc, *get_job, *put_job;
	struct store_counts c;
	int64_t max_before;	/* the last minute stored before this run */
	int64_t tmin, tmax;	/* hours to sum again from the minutes */
	int64_t (*repl)[2];	/* minutes whose stored sources this run read again (ns) */
	size_t nrepl;
	char **repl_paths;	/* every file this run reads (replace mode) */
	size_t nrepl_paths;
	int failed;		/* first SQLite error code */
	char fail_msg[192];
};

static void fail(struct store_writer *w)
{
	if (!w->failed) {
		w->failed = sqlite3_errcode(w->s->db);
		snprintf(w->fail_msg, sizeof(w->fail_msg), "%s", sqlite3_errmsg(w->s->db));
	}
}

static void minute_reset(struct minute *m, int64_t t_s)
{
	memset(m, 0, sizeof(*m));
	m->t_s = t_s;
	m->first_ns = INT64_MAX;
	m->last_ns = INT64_MIN;
	m->util_max = m->mem_max = m->mem_total = m->power_max = m->temp_max = NAN;
}

static double fmax_nan(double a, double b)
{
	return isnan(a) ? b : isnan(b) ? a : a > b ? a : b;
}

/* ---- GPUs ---------------------------------------------------------------- */

/*
 * The store's row for a GPU: by UUID when the logs name one, else by index
 * (one host per store, as one host per report).  A row first known by index
 * gains its UUID when a later log names it.
 */
static int64_t gpu_row(struct store_writer *w, int gi)
{
	const struct gpu_ident *id = &w->an->tl.gpus[gi].id;
	struct gpu_rows *g = w->g[gi];
	sqlite3_stmt *st;
	int64_t row = 0;

	if (g->id && (g->id_has_uuid || !id->uuid[0]))
		return g->id;
	if (id->uuid[0] && sqlite3_prepare_v2(w->s->db, "SELECT id FROM gpus WHERE uuid = ?", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, id->uuid, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			row = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	if (!row && id->index >= 0 &&
	    sqlite3_prepare_v2(w->s->db, "SELECT id FROM gpus WHERE idx = ? AND (uuid IS NULL OR ?2 IS NULL) ORDER BY id LIMIT 1",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int(st, 1, id->index);
		if (id->uuid[0])
			sqlite3_bind_text(st, 2, id->uuid, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			row = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	if (!row) {
		if (sqlite3_prepare_v2(w->s->db, "INSERT INTO gpus (idx, uuid, name) VALUES (?, ?, ?)", -1, &st, NULL) != SQLITE_OK) {
			fail(w);
			return 0;
		}
		if (id->index >= 0)
			sqlite3_bind_int(st, 1, id->index);
		if (id->uuid[0])
			sqlite3_bind_text(st, 2, id->uuid, -1, SQLITE_STATIC);
		if (id->name[0])
			sqlite3_bind_text(st, 3, id->name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			fail(w);
		sqlite3_finalize(st);
		row = sqlite3_last_insert_rowid(w->s->db);
	} else if (sqlite3_prepare_v2(w->s->db,
				      "UPDATE gpus SET uuid = coalesce(uuid, ?2), name = coalesce(?3, name),"
				      " idx = coalesce(idx, ?4) WHERE id = ?1",
				      -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, row);
		if (id->uuid[0])
			sqlite3_bind_text(st, 2, id->uuid, -1, SQLITE_STATIC);
		if (id->name[0])
			sqlite3_bind_text(st, 3, id->name, -1, SQLITE_STATIC);
		if (id->index >= 0)
			sqlite3_bind_int(st, 4, id->index);
		if (sqlite3_step(st) != SQLITE_DONE)
			fail(w);
		sqlite3_finalize(st);
	}
	g->id = row;
	g->id_has_uuid = id->uuid[0] != 0;
	return row;
}

/* ---- minutes ------------------------------------------------------------ */

static sqlite3_int64 ms(double s)
{
	return (sqlite3_int64)llround(s * 1000);
}

static void bind_real(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

/* One row of minutes or hours: the two tables have the same columns. */
static void bind_row(sqlite3_stmt *st, const struct minute *m, int64_t gpu)
{
	int i = 1;

	sqlite3_bind_int64(st, i++, m->t_s);
	sqlite3_bind_int64(st, i++, gpu);
	sqlite3_bind_int64(st, i++, m->first_ns);
	sqlite3_bind_int64(st, i++, m->last_ns);
	sqlite3_bind_int64(st, i++, ms(m->covered_s));
	sqlite3_bind_int64(st, i++, ms(m->gaps_s));
	sqlite3_bind_int64(st, i++, ms(m->busy_s));
	sqlite3_bind_int64(st, i++, ms(m->util_known_s));
	bind_real(st, i++, m->util_max);
	bind_real(st, i++, m->mem_max);
	bind_real(st, i++, m->mem_total);
	sqlite3_bind_double(st, i++, m->power_ws);
	sqlite3_bind_int64(st, i++, ms(m->power_known_s));
	bind_real(st, i++, m->power_max);
	bind_real(st, i++, m->temp_max);
	sqlite3_bind_double(st, i++, m->e_counter_j);
	sqlite3_bind_int64(st, i++, ms(m->e_counter_s));
	sqlite3_bind_double(st, i++, m->e_power_j);
	sqlite3_bind_int64(st, i++, ms(m->e_power_s));
	sqlite3_bind_int64(st, i++, ms(m->e_unknown_s));
	sqlite3_bind_double(st, i++, m->idle_ws);
	sqlite3_bind_int64(st, i++, ms(m->idle_s));
	sqlite3_bind_double(st, i++, m->active_ws);
	sqlite3_bind_int64(st, i++, ms(m->active_s));
	for (int s = 0; s < ST__COUNT; s++)
		sqlite3_bind_int64(st, i++, ms(m->st_s[s]));
	for (int s = 0; s < ST__COUNT; s++)
		sqlite3_bind_int64(st, i++, ms(m->st_busy_s[s]));
	for (int s = 0; s < ST__COUNT; s++)
		sqlite3_bind_double(st, i++, m->st_e[s]);
}

/* Seconds as the store keeps them (whole milliseconds), so that an hour
 * summed here equals the sum of its stored minutes. */
static double q(double s)
{
	return (double)ms(s) / 1000;
}

static void quantize(struct minute *m)
{
	m->covered_s = q(m->covered_s);
	m->gaps_s = q(m->gaps_s);
	m->busy_s = q(m->busy_s);
	m->util_known_s = q(m->util_known_s);
	m->power_known_s = q(m->power_known_s);
	m->e_counter_s = q(m->e_counter_s);
	m->e_power_s = q(m->e_power_s);
	m->e_unknown_s = q(m->e_unknown_s);
	m->idle_s = q(m->idle_s);
	m->active_s = q(m->active_s);
	for (int s = 0; s < ST__COUNT; s++) {
		m->st_s[s] = q(m->st_s[s]);
		m->st_busy_s[s] = q(m->st_busy_s[s]);
	}
}

static void hour_merge(struct minute *h, const struct minute *m)
{
	if (m->first_ns < h->first_ns)
		h->first_ns = m->first_ns;
	if (m->last_ns > h->last_ns)
		h->last_ns = m->last_ns;
	h->covered_s += m->covered_s;
	h->gaps_s += m->gaps_s;
	h->busy_s += m->busy_s;
	h->util_known_s += m->util_known_s;
	h->util_max = fmax_nan(h->util_max, m->util_max);
	h->mem_max = fmax_nan(h->mem_max, m->mem_max);
	h->mem_total = fmax_nan(h->mem_total, m->mem_total);
	h->power_ws += m->power_ws;
	h->power_known_s += m->power_known_s;
	h->power_max = fmax_nan(h->power_max, m->power_max);
	h->temp_max = fmax_nan(h->temp_max, m->temp_max);
	h->e_counter_j += m->e_counter_j;
	h->e_counter_s += m->e_counter_s;
	h->e_power_j += m->e_power_j;
	h->e_power_s += m->e_power_s;
	h->e_unknown_s += m->e_unknown_s;
	h->idle_ws += m->idle_ws;
	h->idle_s += m->idle_s;
	h->active_ws += m->active_ws;
	h->active_s += m->active_s;
	for (int s = 0; s < ST__COUNT; s++) {
		h->st_s[s] += m->st_s[s];
		h->st_busy_s[s] += m->st_busy_s[s];
		h->st_e[s] += m->st_e[s];
	}
}

/*
 * An hour that starts after every minute stored before this run holds only
 * minutes of this run: its row is written from their sum.  Any other hour
 * may mix stored minutes in, and is summed again in SQL at the end.
 */
static void flush_hour(struct store_writer *w, int gi)
{
	struct minute *h = &w->g[gi]->h;

	if (h->t_s == INT64_MIN || w->failed)
		return;
	if (h->t_s > w->max_before) {
		bind_row(w->put_hour, h, gpu_row(w, gi));
		if (sqlite3_step(w->put_hour) != SQLITE_DONE)
			fail(w);
		sqlite3_reset(w->put_hour);
	} else {
		if (h->t_s < w->tmin)
			w->tmin = h->t_s;
		if (h->t_s > w->tmax)
			w->tmax = h->t_s;
	}
	h->t_s = INT64_MIN;
}

static void hour_add(struct store_writer *w, int gi, struct minute *m)
{
	struct minute *h = &w->g[gi]->h;
	int64_t hour = m->t_s - (m->t_s % 3600 + 3600) % 3600;

	if (h->t_s != hour) {
		flush_hour(w, gi);
		minute_reset(h, hour);
	}
	quantize(m);
	hour_merge(h, m);
}

/* Does [t_s, t_s + span_s) meet a span whose stored minutes this run replaces? */
static bool replaced(const struct store_writer *w, int64_t t_s, int64_t span_s)
{
	int64_t a = t_s * NS_PER_S, b = (t_s + span_s) * NS_PER_S;

	for (size_t i = 0; i < w->nrepl; i++)
		if (w->repl[i][0] < b && w->repl[i][1] >= a)
			return true;
	return false;
}

void store_writer_replace(struct store_writer *w, const int64_t (*spans)[2], size_t n, const char *const *paths,
			  size_t np)
{
	free(w->repl);
	w->repl = n ? xmalloc(n * sizeof(*w->repl)) : NULL;
	if (n)
		memcpy(w->repl, spans, n * sizeof(*w->repl));
	w->nrepl = n;
	w->repl_paths = xcalloc(np ? np : 1, sizeof(*w->repl_paths));
	for (size_t i = 0; i < np; i++)
		w->repl_paths[i] = xstrdup(paths[i]);
	w->nrepl_paths = np;
}

static void flush_minute(struct store_writer *w, int gi)
{
	struct minute *m = &w->g[gi]->m;
	int64_t gpu;
	bool exists = false;
	double have = 0;

	if (m->t_s == INT64_MIN || w->failed)
		return;
	gpu = gpu_row(w, gi);
	/* after everything stored before this run: new, no need to look */
	if (m->t_s <= w->max_before) {
		sqlite3_bind_int64(w->get_min, 1, m->t_s);
		sqlite3_bind_int64(w->get_min, 2, gpu);
		if (sqlite3_step(w->get_min) == SQLITE_ROW) {
			exists = true;
			have = (double)sqlite3_column_int64(w->get_min, 0);
		}
		sqlite3_reset(w->get_min);
	}
	if (exists && ms(m->covered_s + m->gaps_s) <= have && !replaced(w, m->t_s, 60)) {
		w->c.minutes_kept++;
		m->t_s = INT64_MIN;
		return;
	}
	bind_row(w->put_min, m, gpu);
	if (sqlite3_step(w->put_min) != SQLITE_DONE)
		fail(w);
	sqlite3_reset(w->put_min);
	if (exists)
		w->c.minutes_updated++;
	else
		w->c.minutes_new++;
	hour_add(w, gi, m);
	m->t_s = INT64_MIN;
}

/* One piece of an interval, inside one minute: what account() adds, per minute. */
static void add_piece(struct minute *m, const struct ival *iv, int st, int64_t t0, int64_t t1)
{
	double dt = (double)(t1 - t0) / 1e9;
	double frac = iv->t1_ns > iv->t0_ns ? (double)(t1 - t0) / (double)(iv->t1_ns - iv->t0_ns) : 0;
	double util = (iv->present & (1u << M_UTIL_GPU)) ? iv->v[M_UTIL_GPU] : NAN;

	if (t0 < m->first_ns)
		m->first_ns = t0;
	if (t1 > m->last_ns)
		m->last_ns = t1;
	m->st_s[st] += dt;
	if (isnan(iv->energy_j))
		m->e_unknown_s += dt;
	if (iv->kind == IV_GAP) {
		m->gaps_s += dt;
		return;
	}
	m->covered_s += dt;
	if (!isnan(util)) {
		m->util_known_s += dt;
		m->busy_s += dt * util / 100;
		m->st_busy_s[st] += dt * util / 100;
		m->util_max = fmax_nan(m->util_max, util);
	}
	if (iv->present & (1u << M_POWER)) {
		double p = iv->v[M_POWER];
		m->power_known_s += dt;
		m->power_ws += p * dt;
		m->power_max = fmax_nan(m->power_max, p);
		if (!isnan(util) && util <= state_thr.active_util_pct) {
			m->idle_ws += p * dt;
			m->idle_s += dt;
		} else if (!isnan(util) && util >= state_thr.busy_util_pct) {
			m->active_ws += p * dt;
			m->active_s += dt;
		}
	}
	if (!isnan(iv->energy_j)) {
		double e = iv->energy_j * frac;
		if (iv->energy_from_counter) {
			m->e_counter_j += e;
			m->e_counter_s += dt;
		} else {
			m->e_power_j += e;
			m->e_power_s += dt;
		}
		m->st_e[st] += e;
	}
	if (iv->present & (1u << M_TEMP))
		m->temp_max = fmax_nan(m->temp_max, iv->v[M_TEMP]);
	if (iv->present & (1u << M_MEM_USED))
		m->mem_max = fmax_nan(m->mem_max, iv->v[M_MEM_USED]);
	if (iv->present & (1u << M_MEM_TOTAL))
		m->mem_total = fmax_nan(m->mem_total, iv->v[M_MEM_TOTAL]);
}

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static struct gpu_rows *rows_of(struct store_writer *w, int gi)
{
	if (!w->g[gi]) {
		w->g[gi] = xcalloc(1, sizeof(*w->g[gi]));
		minute_reset(&w->g[gi]->m, INT64_MIN);
		minute_reset(&w->g[gi]->h, INT64_MIN);
	}
	return w->g[gi];
}

static void on_state(void *ud, int gi, const struct ival *iv, int st)
{
	struct store_writer *w = ud;
	struct gpu_rows *g = rows_of(w, gi);
	int64_t t0 = iv->t0_ns;

	/* most intervals lie inside the minute already open: no division */
	if (g->m.t_s != INT64_MIN && t0 < iv->t1_ns && t0 >= g->m.t_s * NS_PER_S &&
	    iv->t1_ns <= g->m.t_s * NS_PER_S + MIN_NS) {
		add_piece(&g->m, iv, st, t0, iv->t1_ns);
		return;
	}
	while (t0 < iv->t1_ns) {
		int64_t mi = floor_div(t0, MIN_NS), end = (mi + 1) * MIN_NS;
		int64_t t1 = iv->t1_ns < end ? iv->t1_ns : end;
		if (g->m.t_s != mi * 60) {
			flush_minute(w, gi);
			minute_reset(&g->m, mi * 60);
		}
		add_piece(&g->m, iv, st, t0, t1);
		t0 = t1;
	}
}

/* ---- processes per minute ---------------------------------------------- */

static void flush_proc_minute(struct store_writer *w, int gi, const struct proc_minute *pm)
{
	int64_t gpu;

	if (w->failed)
		return;
	gpu = gpu_row(w, gi);
	for (int i = 0; i < pm->n; i++) {
		const struct proc_min *p = &pm->p[i];
		sqlite3_stmt *st = w->put_proc;
		bool exists = false;
		sqlite3_int64 have = 0;
		sqlite3_bind_int64(w->get_proc, 1, pm->t_s);
		sqlite3_bind_int64(w->get_proc, 2, gpu);
		sqlite3_bind_int64(w->get_proc, 3, p->pid);
		sqlite3_bind_text(w->get_proc, 4, p->name, -1, SQLITE_STATIC);
		if (sqlite3_step(w->get_proc) == SQLITE_ROW) {
			exists = true;
			have = sqlite3_column_int64(w->get_proc, 0);
		}
		sqlite3_reset(w->get_proc);
		if (exists && ms(p->present_s) <= have && !replaced(w, pm->t_s, 60)) {
			w->c.procs_kept++;
			continue;
		}
		sqlite3_bind_int64(st, 1, pm->t_s);
		sqlite3_bind_int64(st, 2, gpu);
		sqlite3_bind_int64(st, 3, p->pid);
		sqlite3_bind_text(st, 4, p->name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 5, ms(p->present_s));
		sqlite3_bind_int64(st, 6, ms(p->busy_s));
		sqlite3_bind_int64(st, 7, ms(p->busy_known_s));
		sqlite3_bind_double(st, 8, p->energy_j);
		if (p->user[0])
			sqlite3_bind_text(st, 9, p->user, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 9);
		if (p->job[0])
			sqlite3_bind_text(st, 10, p->job, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 10);
		sqlite3_bind_int64(st, 11, ms(p->share_s));
		if (p->task[0])
			sqlite3_bind_text(st, 12, p->task, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 12);
		if (p->ctr[0])
			sqlite3_bind_text(st, 13, p->ctr, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 13);
		if (sqlite3_step(st) != SQLITE_DONE)
			fail(w);
		sqlite3_reset(st);
		if (exists)
			w->c.procs_updated++;
		else
			w->c.procs_new++;
	}
}

/* Write the open minutes of GPU gi that start before t_s (all: INT64_MAX). */
static void flush_procs(struct store_writer *w, int gi, int64_t t_s)
{
	struct gpu_rows *g = w->g[gi];
	size_t k = 0;

	while (k < g->npm && g->pm[k].t_s < t_s)
		flush_proc_minute(w, gi, &g->pm[k++]);
	if (!k)
		return;		/* (g->pm may be NULL: nothing open yet) */
	memmove(g->pm, g->pm + k, (g->npm - k) * sizeof(*g->pm));
	g->npm -= k;
}

/* The open minute t_s of GPU gi, opened empty when new (after those open:
 * a minute before them was written, and no later piece falls in it). */
static struct proc_minute *proc_minute_at(struct gpu_rows *g, int64_t t_s)
{
	for (size_t k = g->npm; k-- > 0;)
		if (g->pm[k].t_s == t_s)
			return &g->pm[k];
	ALLOC_GROW(g->pm, g->npm + 1, g->pm_alloc);
	g->pm[g->npm].t_s = t_s;
	g->pm[g->npm].n = 0;
	return &g->pm[g->npm++];
}

/* Who a process is, as it said it last: kept unless it says something else. */
static void said(char *dst, size_t cap, const char *src)
{
	if (src[0] && strncmp(dst, src, cap - 1))
		snprintf(dst, cap, "%s", src);
}

static void on_proc(void *ud, int gi, const struct proc_stat *ps, int64_t t0, int64_t t1, double share_s,
		    double busy_s, double energy_j)
{
	struct store_writer *w = ud;
	struct gpu_rows *g = rows_of(w, gi);
	double whole = (double)(t1 - t0);

	/* [t0, t1) is the interval: every later piece of this GPU starts there or after */
	flush_procs(w, gi, floor_div(t0, MIN_NS) * 60);
	while (t0 < t1 && whole > 0) {
		int64_t mi = floor_div(t0, MIN_NS), end = (mi + 1) * MIN_NS;
		int64_t e = t1 < end ? t1 : end;
		double frac = (double)(e - t0) / whole;
		struct proc_minute *pm = proc_minute_at(g, mi * 60);
		struct proc_min *p = NULL;
		for (int i = 0; i < pm->n && !p; i++)
			if (pm->p[i].pid == ps->pid && !strcmp(pm->p[i].name, ps->name))
				p = &pm->p[i];
		if (!p && pm->n < MAXPROC) {
			p = &pm->p[pm->n++];
			memset(p, 0, sizeof(*p));
			p->pid = ps->pid;
			snprintf(p->name, sizeof(p->name), "%s", ps->name);
		}
		if (p) {
			/* the latest said (a process says who it is on every
			 * row, mostly the same: copied only when it changes) */
			said(p->user, sizeof(p->user), ps->user);
			said(p->job, sizeof(p->job), ps->job);
			said(p->task, sizeof(p->task), ps->task);
			said(p->ctr, sizeof(p->ctr), ps->ctr);
			p->present_s += (double)(e - t0) / 1e9;
			p->share_s += share_s * frac;
			if (!isnan(busy_s)) {
				p->busy_s += busy_s * frac;
				p->busy_known_s += (double)(e - t0) / 1e9;
			}
			if (!isnan(energy_j))
				p->energy_j += energy_j * frac;
		}
		t0 = e;
	}
}

/* ---- batch jobs per minute ---------------------------------------------- */

static void flush_job_minute(struct store_writer *w, int gi, const struct job_minute *jm)
{
	int64_t gpu;

	if (w->failed)
		return;
	gpu = gpu_row(w, gi);
	for (int i = 0; i < jm->n; i++) {
		const struct job_min *j = &jm->j[i];
		bool exists = false;
		sqlite3_int64 have = 0;
		sqlite3_bind_int64(w->get_job, 1, jm->t_s);
		sqlite3_bind_int64(w->get_job, 2, gpu);
		sqlite3_bind_text(w->get_job, 3, j->id, -1, SQLITE_STATIC);
		if (sqlite3_step(w->get_job) == SQLITE_ROW) {
			exists = true;
			have = sqlite3_column_int64(w->get_job, 0);
		}
		sqlite3_reset(w->get_job);
		/* the rule of the minutes: kept unless this run accounts more of it */
		if (exists && ms(j->held_s) <= have && !replaced(w, jm->t_s, 60))
			continue;
		sqlite3_bind_int64(w->put_job, 1, jm->t_s);
		sqlite3_bind_int64(w->put_job, 2, gpu);
		sqlite3_bind_text(w->put_job, 3, j->id, -1, SQLITE_STATIC);
		sqlite3_bind_int64(w->put_job, 4, ms(j->held_s));
		sqlite3_bind_int64(w->put_job, 5, ms(j->busy_s));
		sqlite3_bind_int64(w->put_job, 6, ms(j->busy_known_s));
		sqlite3_bind_double(w->put_job, 7, j->energy_j);
		if (sqlite3_step(w->put_job) != SQLITE_DONE)
			fail(w);
		sqlite3_reset(w->put_job);
	}
}

/* Write the open job minutes of GPU gi that start before t_s (all: INT64_MAX). */
static void flush_jobs(struct store_writer *w, int gi, int64_t t_s)
{
	struct gpu_rows *g = w->g[gi];
	size_t k = 0;

	while (k < g->njm && g->jm[k].t_s < t_s)
		flush_job_minute(w, gi, &g->jm[k++]);
	if (!k)
		return;		/* (g->jm may be NULL: nothing open yet) */
	memmove(g->jm, g->jm + k, (g->njm - k) * sizeof(*g->jm));
	g->njm -= k;
}

static struct job_minute *job_minute_at(struct gpu_rows *g, int64_t t_s)
{
	for (size_t k = g->njm; k-- > 0;)
		if (g->jm[k].t_s == t_s)
			return &g->jm[k];
	ALLOC_GROW(g->jm, g->njm + 1, g->jm_alloc);
	g->jm[g->njm].t_s = t_s;
	g->jm[g->njm].n = 0;
	return &g->jm[g->njm++];
}

static void on_job(void *ud, int gi, const struct an_job *job, const struct ival *iv, int64_t t0, int64_t t1,
		   double held_s, double busy_s, double energy_j)
{
	struct store_writer *w = ud;
	struct gpu_rows *g = rows_of(w, gi);
	double whole = (double)(t1 - t0);

	/* every later piece of this GPU starts at the interval's start or after */
	flush_jobs(w, gi, floor_div(iv->t0_ns, MIN_NS) * 60);
	while (t0 < t1 && whole > 0) {
		int64_t mi = floor_div(t0, MIN_NS), end = (mi + 1) * MIN_NS;
		int64_t e = t1 < end ? t1 : end;
		double frac = (double)(e - t0) / whole;
		struct job_minute *jm = job_minute_at(g, mi * 60);
		struct job_min *j = NULL;
		for (int i = 0; i < jm->n && !j; i++)
			if (!strcmp(jm->j[i].id, job->id))
				j = &jm->j[i];
		if (!j && jm->n < MAXPROC) {
			j = &jm->j[jm->n++];
			memset(j, 0, sizeof(*j));
			snprintf(j->id, sizeof(j->id), "%s", job->id);
		}
		if (j) {
			j->held_s += held_s * frac;
			if (!isnan(busy_s)) {
				j->busy_s += busy_s * frac;
				j->busy_known_s += held_s * frac;
			}
			if (!isnan(energy_j))
				j->energy_j += energy_j * frac;
		}
		t0 = e;
	}
}

/* Every batch job the analysis read, with what its minutes do not hold. */
static void store_jobs(struct store_writer *w)
{
	const struct analysis *an = w->an;
	sqlite3_stmt *st;

	if (!an->njobs || w->failed)
		return;
	if (sqlite3_prepare_v2(w->s->db,
			       "INSERT OR REPLACE INTO jobs (id, user, account, nodes, t0_ns, t1_ns, ngpus, nnodes,"
			       " gpu_mask, gpuutil_pct, gpumem_mib, reported_energy_j) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK) {
		fail(w);
		return;
	}
	for (size_t i = 0; i < an->njobs; i++) {
		const struct an_job *j = &an->jobs[i];
		const char *txt[4] = { j->id, j->user, j->account, j->nodes };
		const double num[3] = { j->gpuutil_pct, j->gpumem_mib, j->reported_energy_j };
		for (int k = 0; k < 4; k++)
			if (txt[k][0] || !k)
				sqlite3_bind_text(st, k + 1, txt[k], -1, SQLITE_STATIC);
			else
				sqlite3_bind_null(st, k + 1);
		sqlite3_bind_int64(st, 5, j->t0_ns);
		sqlite3_bind_int64(st, 6, j->t1_ns);
		sqlite3_bind_int(st, 7, j->ngpus);
		sqlite3_bind_int(st, 8, j->nnodes);
		sqlite3_bind_int64(st, 9, (sqlite3_int64)j->gpu_mask);
		for (int k = 0; k < 3; k++)
			if (isnan(num[k]))
				sqlite3_bind_null(st, 10 + k);
			else
				sqlite3_bind_double(st, 10 + k, num[k]);
		if (sqlite3_step(st) != SQLITE_DONE)
			fail(w);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
}

/* ---- the writer ------------------------------------------------------- */

static const char *const put_min_sql =
	"INSERT OR REPLACE INTO minutes VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
	"?,?,?,?,?,?,?,?,?,?, ?,?,?,?,?,?,?,?,?,?, ?,?,?,?,?,?,?,?,?,?)";

static const char *const put_hour_sql =
	"INSERT OR REPLACE INTO hours VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
	"?,?,?,?,?,?,?,?,?,?, ?,?,?,?,?,?,?,?,?,?, ?,?,?,?,?,?,?,?,?,?)";

static int64_t last_minute(struct store *s)
{
	sqlite3_stmt *st;
	int64_t t = INT64_MIN;

	if (sqlite3_prepare_v2(s->db, "SELECT max(t) FROM minutes", -1, &st, NULL) != SQLITE_OK)
		return INT64_MAX;	/* unknown: look every minute up */
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		t = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return t;
}

struct store_writer *store_writer_new(struct store *s, struct analysis *an)
{
	struct store_writer *w = xcalloc(1, sizeof(*w));

	w->s = s;
	w->an = an;
	w->tmin = INT64_MAX;
	w->tmax = INT64_MIN;
	w->max_before = last_minute(s);
	if (sqlite3_prepare_v2(s->db, "SELECT covered_ms + gaps_ms FROM minutes WHERE t = ? AND gpu = ?", -1,
			       &w->get_min, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, put_min_sql, -1, &w->put_min, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, put_hour_sql, -1, &w->put_hour, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db,
			       "SELECT present_ms FROM proc_minutes WHERE t = ? AND gpu = ? AND pid = ? AND name = ?", -1,
			       &w->get_proc, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db,
			       "INSERT OR REPLACE INTO proc_minutes (t, gpu, pid, name, present_ms, busy_ms,"
			       " busy_known_ms, energy_j, user, job, share_ms, task, ctr) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &w->put_proc, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "SELECT held_ms FROM job_minutes WHERE t = ? AND gpu = ? AND job = ?", -1,
			       &w->get_job, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db,
			       "INSERT OR REPLACE INTO job_minutes (t, gpu, job, held_ms, busy_ms, busy_known_ms, energy_j)"
			       " VALUES (?,?,?,?,?,?,?)", -1, &w->put_job, NULL) != SQLITE_OK)
		fail(w);
	an->hook.ud = w;
	an->hook.state = on_state;
	an->hook.proc = on_proc;
	an->hook.job = on_job;
	return w;
}

/* A stored finding this run found again, or wrote (replace mode). */
static void keep_finding(struct store_writer *w, int64_t gpu, const char *kind, int64_t code, int64_t t0)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(w->s->db, "INSERT INTO kept_findings VALUES (?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK) {
		fail(w);
		return;
	}
	sqlite3_bind_int64(st, 1, gpu);
	sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, code);
	sqlite3_bind_int64(st, 4, t0);
	if (sqlite3_step(st) != SQLITE_DONE)
		fail(w);
	sqlite3_finalize(st);
}

/*
 * A finding's figures besides its row (schema v8), bound from column i on:
 * nstretch, nlinked, total_s, energy_j, longest, fit_mib0, fit_mib1,
 * full_ns.  What the ranking reads (total_s, else the span) and the
 * writers show, so that report --db ranks and shows it as report did.
 * The longest stretches are one "t0_ns TAB t1_ns TAB energy_j TAB cause"
 * a line (energy empty: unknown), in buf; %.17g keeps every double.
 */
static void bind_figures(sqlite3_stmt *st, int i, const struct finding *f, char *buf, size_t cap)
{
	size_t n = 0;

	buf[0] = 0;
	for (int k = 0; k < f->ndetail && k < FIND_DETAILS; k++) {
		const struct find_detail *d = &f->detail[k];
		char e[32] = "", c[sizeof(d->cause)];
		int m;
		/* a tab or line break in a path would cut the line: a space */
		for (size_t j = 0; j < sizeof(c); j++)
			if (!(c[j] = d->cause[j] == '\t' || d->cause[j] == '\n' ? ' ' : d->cause[j]))
				break;
		c[sizeof(c) - 1] = 0;
		if (!isnan(d->energy_j))
			snprintf(e, sizeof(e), "%.17g", d->energy_j);
		m = snprintf(buf + n, cap - n, "%lld\t%lld\t%s\t%s\n", (long long)d->t0_ns, (long long)d->t1_ns, e, c);
		if (m < 0 || (size_t)m >= cap - n)
			break;
		n += (size_t)m;
	}
	sqlite3_bind_int64(st, i++, (int64_t)f->nstretch);
	sqlite3_bind_int64(st, i++, (int64_t)f->nlinked);
	sqlite3_bind_double(st, i++, f->total_s);
	bind_real(st, i++, f->energy_j);
	if (n)
		sqlite3_bind_text(st, i++, buf, (int)n, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i++);
	bind_real(st, i++, f->fit_mib0);
	bind_real(st, i++, f->fit_mib1);
	sqlite3_bind_int64(st, i, f->full_ns);
}

static void store_findings(struct store_writer *w)
{
	sqlite3_stmt *get, *put, *del;
	char longest[FIND_DETAILS * 200];

	/* the same finding: same GPU, kind and code (a row stored before codes
	 * were, code -2, matches any), overlapping in time (another log of the
	 * same minutes finds it a few milliseconds apart); the same start
	 * first, else the latest one starting before it ends: for each of the
	 * two codes, two index probes (an IN on the code would sort instead) */
	if (sqlite3_prepare_v2(w->s->db,
			       "SELECT t0_ns, t1_ns, code FROM ("
			       "SELECT t0_ns, t1_ns, code FROM findings WHERE gpu = ?1 AND kind = ?2 AND code = ?5"
			       " AND t0_ns = ?3"
			       " UNION ALL SELECT t0_ns, t1_ns, code FROM findings WHERE gpu = ?1 AND kind = ?2"
			       " AND code = -2 AND t0_ns = ?3"
			       " UNION ALL SELECT * FROM (SELECT t0_ns, t1_ns, code FROM findings WHERE gpu = ?1"
			       " AND kind = ?2 AND code = ?5 AND t0_ns <= ?4 ORDER BY t0_ns DESC LIMIT 1)"
			       " UNION ALL SELECT * FROM (SELECT t0_ns, t1_ns, code FROM findings WHERE gpu = ?1"
			       " AND kind = ?2 AND code = -2 AND t0_ns <= ?4 ORDER BY t0_ns DESC LIMIT 1))"
			       " WHERE t1_ns >= ?3 OR t0_ns = ?3 LIMIT 1",
			       -1, &get, NULL) != SQLITE_OK) {
		fail(w);
		return;
	}
	if (sqlite3_prepare_v2(w->s->db,
			       "INSERT OR REPLACE INTO findings (gpu, kind, t0_ns, t1_ns, severity, value, message,"
			       " evidence, code, nstretch, nlinked, total_s, energy_j, longest, fit_mib0, fit_mib1,"
			       " full_ns) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &put, NULL) != SQLITE_OK) {
		sqlite3_finalize(get);
		fail(w);
		return;
	}
	if (sqlite3_prepare_v2(w->s->db, "DELETE FROM findings WHERE gpu = ? AND kind = ? AND code = ? AND t0_ns = ?",
			       -1, &del, NULL) != SQLITE_OK) {
		sqlite3_finalize(get);
		sqlite3_finalize(put);
		fail(w);
		return;
	}
	/* the findings of minutes whose every source this run read again are
	 * this run's: a stored one that none of them matches is gone (found
	 * from part of the sources); marked here, deleted after the loop */
	if (w->nrepl && store_exec(w->s, "CREATE TEMP TABLE IF NOT EXISTS kept_findings (gpu, kind, code, t0);"
				   "DELETE FROM kept_findings", NULL))
		fail(w);
	for (size_t i = 0; i < w->an->nfinds && !w->failed; i++) {
		const struct finding *f = &w->an->finds[i];
		int64_t gpu = -1;
		bool exists = false;
		int64_t have = 0, have_t0 = 0, have_code = 0;
		if (f->gpu >= 0 && f->gpu < TL_MAX_GPUS) {
			rows_of(w, f->gpu);
			gpu = gpu_row(w, f->gpu);
		}
		sqlite3_bind_int64(get, 1, gpu);
		sqlite3_bind_text(get, 2, f->kind, -1, SQLITE_STATIC);
		sqlite3_bind_int64(get, 3, f->t0_ns);
		sqlite3_bind_int64(get, 4, f->t1_ns);
		sqlite3_bind_int64(get, 5, f->code);
		if (sqlite3_step(get) == SQLITE_ROW) {
			exists = true;
			have_t0 = sqlite3_column_int64(get, 0);
			have = sqlite3_column_int64(get, 1);
			have_code = sqlite3_column_int64(get, 2);
		}
		sqlite3_reset(get);
		/* a summary stored by a run of other times (the other half of a
		 * log) only touches this one's span: not the same finding, its
		 * own row (query.c joins them) */
		if (exists && finding_is_run_summary(f) &&
		    (have <= w->an->gpus[f->gpu].first_ns || have_t0 >= w->an->gpus[f->gpu].last_ns))
			exists = false;
		if (w->nrepl)
			keep_finding(w, gpu, f->kind, exists && (have_t0 != f->t0_ns || f->t1_ns <= have) ? have_code : f->code,
				     exists && (have_t0 != f->t0_ns || f->t1_ns <= have) ? have_t0 : f->t0_ns);
		/* kept, unless it is the same start and now lasts longer (a grown log) */
		if (exists && (have_t0 != f->t0_ns || f->t1_ns <= have)) {
			w->c.findings_kept++;
			continue;
		}
		if (exists && have_code != f->code) {
			/* a row of before v5 replaced by one with its code */
			sqlite3_bind_int64(del, 1, gpu);
			sqlite3_bind_text(del, 2, f->kind, -1, SQLITE_STATIC);
			sqlite3_bind_int64(del, 3, have_code);
			sqlite3_bind_int64(del, 4, have_t0);
			if (sqlite3_step(del) != SQLITE_DONE)
				fail(w);
			sqlite3_reset(del);
		}
		sqlite3_bind_int64(put, 1, gpu);
		sqlite3_bind_text(put, 2, f->kind, -1, SQLITE_STATIC);
		sqlite3_bind_int64(put, 3, f->t0_ns);
		sqlite3_bind_int64(put, 4, f->t1_ns);
		sqlite3_bind_int(put, 5, f->severity);
		bind_real(put, 6, f->value);
		sqlite3_bind_text(put, 7, f->message, -1, SQLITE_STATIC);
		sqlite3_bind_text(put, 8, f->evidence, -1, SQLITE_STATIC);
		sqlite3_bind_int64(put, 9, f->code);
		bind_figures(put, 10, f, longest, sizeof(longest));
		if (sqlite3_step(put) != SQLITE_DONE)
			fail(w);
		sqlite3_reset(put);
		if (exists)
			w->c.findings_updated++;
		else
			w->c.findings_new++;
	}
	sqlite3_finalize(get);
	sqlite3_finalize(put);
	sqlite3_finalize(del);
	for (size_t k = 0; k < w->nrepl && !w->failed; k++) {
		sqlite3_stmt *d;
		if (sqlite3_prepare_v2(w->s->db,
				       "DELETE FROM findings WHERE t0_ns <= ?2 AND coalesce(t1_ns, t0_ns) >= ?1 AND NOT EXISTS"
				       " (SELECT 1 FROM kept_findings k WHERE k.gpu = findings.gpu AND k.kind = findings.kind"
				       " AND k.code = findings.code AND k.t0 = findings.t0_ns)",
				       -1, &d, NULL) != SQLITE_OK) {
			fail(w);
			break;
		}
		sqlite3_bind_int64(d, 1, w->repl[k][0]);
		sqlite3_bind_int64(d, 2, w->repl[k][1]);
		if (sqlite3_step(d) != SQLITE_DONE)
			fail(w);
		sqlite3_finalize(d);
	}
}

/* ---- events and outages ----------------------------------------------- */

/* also[] as stored: one "t_ns<TAB>line<TAB>path" per copy, newline-separated. */
static void also_text(char *buf, size_t cap, const struct an_event_also *a, int n)
{
	size_t len = strlen(buf);

	for (int k = 0; k < n && len < cap; k++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%lld\t%llu\t%s", len ? "\n" : "",
					(long long)a[k].t_ns, (unsigned long long)a[k].line,
					a[k].src ? a[k].src : "?");
}

/* Is path (a source of the new event) among a stored row's sources? */
static bool row_has_src(const char *row_src, const char *row_also, const char *path)
{
	size_t n = strlen(path);

	if (row_src && !strcmp(row_src, path))
		return true;
	for (const char *p = row_also; p && *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		const char *t1 = memchr(p, '\t', len);
		const char *t2 = t1 ? memchr(t1 + 1, '\t', len - (size_t)(t1 + 1 - p)) : NULL;
		if (t2 && len - (size_t)(t2 + 1 - p) == n && !memcmp(t2 + 1, path, n))
			return true;
		p = eol ? eol + 1 : NULL;
	}
	return false;
}

/*
 * The run's events into the events table, by the rule of the analysis
 * (docs/kernel-events.md "The same event in two inputs"): a stored row of
 * the same GPU, kind, code, PCI address and message within EVENT_COPY_NS is
 * this event again when it has this event's input and time (a grown log
 * read again: replaced), or the same event of another input when none of
 * their inputs are shared (an earlier run read the other copy: the new
 * inputs join its also).  Unplaced events have no time to keep them by.
 */
static void store_events(struct store_writer *w)
{
	sqlite3_stmt *get = NULL, *put = NULL, *upd = NULL, *del = NULL, *oput = NULL;
	const struct analysis *an = w->an;

	if (sqlite3_prepare_v2(w->s->db,
			       "SELECT gpu, t_ns, src, also, gpu_by, line FROM events WHERE t_ns >= ?5 - ?7 AND t_ns <= ?5 + ?7"
			       " AND (gpu = ?1 OR gpu = -1 OR ?1 = -1) AND kind = ?2 AND code = ?3 AND pci = ?4"
			       " AND message = ?6 ORDER BY abs(t_ns - ?5)",
			       -1, &get, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(w->s->db,
			       "DELETE FROM events WHERE gpu = ?1 AND kind = ?2 AND code = ?3 AND pci = ?4 AND t_ns = ?5"
			       " AND message = ?6",
			       -1, &del, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(w->s->db, "INSERT OR REPLACE INTO events VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1,
			       &put, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(w->s->db,
			       "UPDATE events SET also = ?7, gpu_by = CASE WHEN gpu < 0 THEN ?9 ELSE gpu_by END,"
			       " gpu = CASE WHEN gpu < 0 THEN ?8 ELSE gpu END, t_ns = ?10, src = ?11, line = ?12 WHERE gpu = ?1 AND kind = ?2 AND code = ?3"
			       " AND pci = ?4 AND t_ns = ?5 AND message = ?6",
			       -1, &upd, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(w->s->db,
			       "INSERT INTO outages VALUES (?1,?2,?3,?4,?5,?6,?7) ON CONFLICT (gpu, t0_ns) DO UPDATE"
			       " SET t1_ns = max(t1_ns, excluded.t1_ns)",
			       -1, &oput, NULL) != SQLITE_OK) {
		fail(w);
		goto out;
	}
	/* the events of the files this run reads again, and of the minutes
	 * whose every source it reads again: this run's */
	for (size_t k = 0; k < w->nrepl_paths && !w->failed; k++) {
		sqlite3_stmt *d;
		if (sqlite3_prepare_v2(w->s->db, "DELETE FROM events WHERE src = ?", -1, &d, NULL) != SQLITE_OK) {
			fail(w);
			break;
		}
		sqlite3_bind_text(d, 1, w->repl_paths[k], -1, SQLITE_STATIC);
		if (sqlite3_step(d) != SQLITE_DONE)
			fail(w);
		sqlite3_finalize(d);
	}
	for (size_t k = 0; k < w->nrepl && !w->failed; k++) {
		sqlite3_stmt *d;
		if (sqlite3_prepare_v2(w->s->db, "DELETE FROM events WHERE t_ns >= ?1 AND t_ns <= ?2", -1, &d, NULL) !=
		    SQLITE_OK) {
			fail(w);
			break;
		}
		sqlite3_bind_int64(d, 1, w->repl[k][0]);
		sqlite3_bind_int64(d, 2, w->repl[k][1]);
		if (sqlite3_step(d) != SQLITE_DONE)
			fail(w);
		sqlite3_finalize(d);
	}
	for (size_t i = 0; i < an->nevs && !w->failed; i++) {
		const struct an_event *e = &an->evs[i];
		const char *kind = e->ev < EV__COUNT ? event_kind_name[e->ev] : "event";
		char also[2048] = "", by_row[32] = "", src_row[1024];
		const char *mapped_by = e->mapped_by;
		int64_t gpu = -1;
		bool done = false;
		if (e->unplaced)
			continue;
		if (e->gpu >= 0 && e->gpu < TL_MAX_GPUS) {
			rows_of(w, e->gpu);
			gpu = gpu_row(w, e->gpu);
		}
		sqlite3_bind_int64(get, 1, gpu);
		sqlite3_bind_text(get, 2, kind, -1, SQLITE_STATIC);
		sqlite3_bind_int(get, 3, e->code);
		sqlite3_bind_text(get, 4, e->pci, -1, SQLITE_STATIC);
		sqlite3_bind_int64(get, 5, e->t_ns);
		sqlite3_bind_text(get, 6, e->msg, -1, SQLITE_STATIC);
		sqlite3_bind_int64(get, 7, EVENT_COPY_NS);
		while (!done && sqlite3_step(get) == SQLITE_ROW) {
			int64_t rgpu = sqlite3_column_int64(get, 0), t = sqlite3_column_int64(get, 1);
			const char *rsrc = (const char *)sqlite3_column_text(get, 2);
			const char *ralso = (const char *)sqlite3_column_text(get, 3);
			bool shared = row_has_src(rsrc, ralso, e->src ? e->src : "?");
			sqlite3_stmt *by = del;
			for (int k = 0; k < e->nalso && !shared; k++)
				shared = row_has_src(rsrc, ralso, e->also[k].src ? e->also[k].src : "?");
			if (t == e->t_ns && rsrc && e->src && !strcmp(rsrc, e->src)) {
				/* this event again: written below (its GPU may be
				 * known now), with the copies the row knew */
				if (ralso)
					snprintf(also, sizeof(also), "%s", ralso);
			} else if (shared) {
				continue;
			} else {
				/* another input's copy, stored by an earlier run:
				 * its inputs join the row's also, and a row of no
				 * GPU takes the GPU this run found */
				struct an_event_also kept = { rsrc, (uint64_t)sqlite3_column_int64(get, 5), t };
				/* a row cut to whole seconds (dmesg -T) with no copy
				 * yet takes this copy's finer time and source, as the
				 * analysis does (on_event) */
				bool finer = !(ralso && *ralso) && event_time_finer(t, e->t_ns);
				if (finer) {
					snprintf(src_row, sizeof(src_row), "%s", rsrc ? rsrc : "?");
					kept.src = src_row;
					also_text(also, sizeof(also), &kept, 1);
				} else {
					snprintf(also, sizeof(also), "%s", ralso ? ralso : "");
					also_text(also, sizeof(also), &(struct an_event_also){ e->src, e->line, e->t_ns }, 1);
				}
				also_text(also, sizeof(also), e->also, e->nalso);
				by = upd;
				sqlite3_bind_text(upd, 7, also, -1, SQLITE_STATIC);
				sqlite3_bind_int64(upd, 8, gpu);
				sqlite3_bind_text(upd, 9, e->mapped_by, -1, SQLITE_STATIC);
				if (finer) {
					sqlite3_bind_int64(upd, 10, e->t_ns);
					sqlite3_bind_text(upd, 11, e->src, -1, SQLITE_STATIC);
					sqlite3_bind_int64(upd, 12, (sqlite3_int64)e->line);
				} else {
					snprintf(src_row, sizeof(src_row), "%s", rsrc ? rsrc : "");
					sqlite3_bind_int64(upd, 10, t);
					sqlite3_bind_text(upd, 11, rsrc ? src_row : NULL, -1, SQLITE_STATIC);
					sqlite3_bind_int64(upd, 12, (sqlite3_int64)kept.line);
				}
				done = true;
			}
			if (rgpu >= 0 && gpu < 0) {
				/* the stored row knew the GPU: keep it */
				gpu = rgpu;
				snprintf(by_row, sizeof(by_row), "%s",
					 sqlite3_column_text(get, 4) ? (const char *)sqlite3_column_text(get, 4) : "");
				mapped_by = by_row[0] ? by_row : NULL;
			}
			sqlite3_bind_int64(by, 1, rgpu);
			sqlite3_bind_text(by, 2, kind, -1, SQLITE_STATIC);
			sqlite3_bind_int(by, 3, e->code);
			sqlite3_bind_text(by, 4, e->pci, -1, SQLITE_STATIC);
			sqlite3_bind_int64(by, 5, t);
			sqlite3_bind_text(by, 6, e->msg, -1, SQLITE_STATIC);
			if (sqlite3_step(by) != SQLITE_DONE)
				fail(w);
			sqlite3_reset(by);
			break;
		}
		sqlite3_reset(get);
		if (done)
			continue;
		/* the row's copies of other inputs, and this run's */
		for (int k = 0; k < e->nalso; k++)
			if (!row_has_src(NULL, also, e->also[k].src ? e->also[k].src : "?"))
				also_text(also, sizeof(also), &e->also[k], 1);
		sqlite3_bind_int64(put, 1, gpu);
		sqlite3_bind_text(put, 2, kind, -1, SQLITE_STATIC);
		sqlite3_bind_int(put, 3, e->code);
		sqlite3_bind_text(put, 4, e->pci, -1, SQLITE_STATIC);
		sqlite3_bind_int64(put, 5, e->t_ns);
		sqlite3_bind_text(put, 6, e->msg, -1, SQLITE_STATIC);
		sqlite3_bind_text(put, 7, e->klass < KC__COUNT ? kev_class_name[e->klass] : NULL, -1, SQLITE_STATIC);
		sqlite3_bind_int(put, 8, e->severity);
		sqlite3_bind_int(put, 9, e->flags);
		sqlite3_bind_int64(put, 10, e->count);
		sqlite3_bind_text(put, 11, e->proc, -1, SQLITE_STATIC);
		sqlite3_bind_text(put, 12, e->text, -1, SQLITE_STATIC);
		sqlite3_bind_text(put, 13, mapped_by, -1, SQLITE_STATIC);
		sqlite3_bind_text(put, 14, e->src, -1, SQLITE_STATIC);
		sqlite3_bind_int64(put, 15, (sqlite3_int64)e->line);
		if (also[0])
			sqlite3_bind_text(put, 16, also, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(put, 16);
		if (sqlite3_step(put) != SQLITE_DONE)
			fail(w);
		sqlite3_reset(put);
		sqlite3_clear_bindings(put);
	}
	for (size_t i = 0; i < an->noutages && !w->failed; i++) {
		const struct outage *o = &an->outages[i];
		rows_of(w, o->gpu);
		sqlite3_bind_int64(oput, 1, gpu_row(w, o->gpu));
		sqlite3_bind_int64(oput, 2, o->t0_ns);
		sqlite3_bind_int64(oput, 3, o->t1_ns);
		if (o->ev >= 0 && o->ev < EV__COUNT)
			sqlite3_bind_text(oput, 4, event_kind_name[o->ev], -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(oput, 4);
		sqlite3_bind_int(oput, 5, o->code);
		sqlite3_bind_text(oput, 6, o->src, -1, SQLITE_STATIC);
		sqlite3_bind_int64(oput, 7, (sqlite3_int64)o->line);
		if (sqlite3_step(oput) != SQLITE_DONE)
			fail(w);
		sqlite3_reset(oput);
		sqlite3_clear_bindings(oput);
	}
out:
	sqlite3_finalize(get);
	sqlite3_finalize(put);
	sqlite3_finalize(upd);
	sqlite3_finalize(del);
	sqlite3_finalize(oput);
}

/* The hours that may mix stored minutes with this run's are summed again from the minutes. */
static void redo_hours(struct store_writer *w)
{
	char sql[4096];
	sqlite3_stmt *st;

	if (w->tmin > w->tmax || w->failed)
		return;
	snprintf(sql, sizeof(sql), "INSERT OR REPLACE INTO hours %s WHERE t >= ?1 AND t < ?2 GROUP BY 1, 2",
		 store_hours_agg);
	if (sqlite3_prepare_v2(w->s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		fail(w);
		return;
	}
	sqlite3_bind_int64(st, 1, w->tmin / 3600 * 3600);
	sqlite3_bind_int64(st, 2, w->tmax / 3600 * 3600 + 3600);
	if (sqlite3_step(st) != SQLITE_DONE)
		fail(w);
	sqlite3_finalize(st);
}

int store_writer_finish(struct store_writer *w, struct store_counts *c, struct gl_err *err)
{
	for (int gi = 0; gi < TL_MAX_GPUS; gi++)
		if (w->g[gi]) {
			flush_minute(w, gi);
			flush_hour(w, gi);
			flush_procs(w, gi, INT64_MAX);
			flush_jobs(w, gi, INT64_MAX);
		}
	redo_hours(w);
	store_jobs(w);
	store_findings(w);
	store_events(w);
	*c = w->c;
	if (w->failed)
		return gl_err_set(err, GL_EIO, "%s: writing the rollups failed: %s", w->s->path, w->fail_msg);
	return 0;
}

void store_writer_free(struct store_writer *w)
{
	if (!w)
		return;
	sqlite3_finalize(w->get_min);
	sqlite3_finalize(w->put_min);
	sqlite3_finalize(w->put_hour);
	sqlite3_finalize(w->get_proc);
	sqlite3_finalize(w->put_proc);
	sqlite3_finalize(w->get_job);
	sqlite3_finalize(w->put_job);
	for (int gi = 0; gi < TL_MAX_GPUS; gi++)
		if (w->g[gi]) {
			free(w->g[gi]->pm);
			free(w->g[gi]->jm);
			free(w->g[gi]);
		}
	free(w->repl);
	for (size_t i = 0; i < w->nrepl_paths; i++)
		free(w->repl_paths[i]);
	free(w->repl_paths);
	free(w);
}
