/* SPDX-License-Identifier: MIT */
#include "analysis/analysis.h"

#include "analysis/detector.h"
#include "analysis/trace_join.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/timeutil.h"
#include "util/xalloc.h"


/* Intervals kept per GPU for the centred window: the ring starts small (1 s
 * samples need about a dozen) and doubles up to RING when faster sampling
 * needs more, so that it stays in cache. */
#define RING 256
#define RING_MIN 16
#define MAXPRESENT 64
#define POWER_BINS 2048		/* 1 W bins for the idle-floor medians */
#define PROC_STALE_NS (5 * NS_PER_S)

struct present_proc {
	int64_t pid;
	char name[64];
	int64_t seen_ns;
	double sm_pct;		/* NAN if unknown */
	size_t stat;		/* index into an->procs */
};

/*
 * What one ring entry adds to a centred window, summed over every entry
 * before it (window_at): utilization x ns, utilization^2 x ns, ns, active
 * ns and active entries, in integers modulo 2^64, so that a window's sums
 * are two differences.  Only an entry whose utilization is a whole number
 * from 0 to 100 is summed (`odd` counts the others); its products are then
 * exact, and so is the double arithmetic of the scan they replace.
 */
struct win_sum {
	uint64_t s1, s2, tot, act;
	uint32_t nact, odd;
	uint32_t nsw;		/* entries whose work/no-work differs from the data entry before */
};

#define HEALTHY_RUNS 32
struct gpu_work {
	struct ival *ring;		/* ring_cap entries, a power of two */
	struct win_sum *pre;		/* per ring slot: the sums of the entries before it */
	int ring_cap;
	int ring_head, ring_n, ncls;	/* see drain() */
	struct win_sum run;		/* the sums of every entry so far */
	int64_t last_t1_ns;		/* the newest entry's end */
	bool unsorted;			/* an entry overlapped or went back: scan windows whole */
	int8_t last_act;		/* the last data entry: 1 work, 0 none, -1 none yet */
	struct present_proc present[MAXPRESENT];
	int npresent;
	int64_t last_proc_obs_ns;
	int64_t last_task_obs_ns;	/* a task label (PID_TASK) was seen */
	/* segment being built */
	bool seg_open;
	struct segment seg;
	/* clock drops: inside a drop? */
	bool in_drop;
	/* power histograms (1 W bins) for held-idle and no-context idle */
	uint32_t held_hist[POWER_BINS], noctx_hist[POWER_BINS];
	float held_sum[POWER_BINS], noctx_sum[POWER_BINS];	/* to report the median bin's mean */
	uint64_t held_n, noctx_n, held_n_at_median;
	double held_floor_cache;
	/* the fatal event that put the GPU down, for its outage */
	bool down_pending;
	int down_ev;
	int32_t down_code;
	const char *down_src;
	uint64_t down_line;
};

void analysis_cfg_default(struct analysis_cfg *cfg)
{
	cfg->window_ns = 5 * NS_PER_S;
	cfg->held_mem_mib = 128;
	cfg->stretch_min_s = 10;
	cfg->max_segments = 500000;
	cfg->max_findings = 5000;
	cfg->series = true;
	cfg->max_events = 10000;
	cfg->cause_window_ns = 60 * NS_PER_S;
}

/* The median's 1 W bin, reported as the mean of the readings in it. */
static double median_hist(const uint32_t *h, const float *sum, uint64_t n)
{
	uint64_t acc = 0;
	if (!n)
		return NAN;
	for (int i = 0; i < POWER_BINS; i++) {
		acc += h[i];
		if (acc * 2 >= n)
			return h[i] ? sum[i] / h[i] : i + 0.5;
	}
	return NAN;
}

/* ---- segments and per-state totals -------------------------------------- */

/* Keep the GPU's open segment, while under the cap (else count it dropped). */
static void close_segment(struct analysis *an, struct gpu_work *w)
{
	if (!w->seg_open)
		return;
	if (an->nsegs < an->cfg.max_segments) {
		ALLOC_GROW(an->segs, an->nsegs + 1, an->segs_alloc);
		an->segs[an->nsegs++] = w->seg;
	} else {
		an->segs_dropped++;
	}
}

/* Close the GPU's open segment and open one at iv. */
static void new_segment(struct analysis *an, int gi, const struct ival *iv, int st)
{
	struct gpu_work *w = an->work[gi];

	close_segment(an, w);
	w->seg_open = true;
	w->seg.t0_ns = iv->t0_ns;
	w->seg.t1_ns = iv->t1_ns;
	w->seg.gpu = (uint16_t)gi;
	w->seg.state = (uint8_t)st;
}

/* Extend the GPU's open segment by iv, or start the next one. */
static inline void add_segment(struct analysis *an, int gi, const struct ival *iv, int st)
{
	struct gpu_work *w = an->work[gi];

	if (w->seg_open && w->seg.state == st && w->seg.t1_ns == iv->t0_ns)
		w->seg.t1_ns = iv->t1_ns;
	else
		new_segment(an, gi, iv, st);
}

void gpu_minute_grow(struct gpu_stats *g, size_t m)
{
	if (m < g->nmin)
		return;
	if (m + 1 > g->min_alloc) {
		size_t old = g->min_alloc;
		g->min_alloc = (m + 1) * 2;
		g->min_busy_s = xreallocarray(g->min_busy_s, g->min_alloc, sizeof(float));
		g->min_cov_s = xreallocarray(g->min_cov_s, g->min_alloc, sizeof(float));
		memset(g->min_busy_s + old, 0, (g->min_alloc - old) * sizeof(float));
		memset(g->min_cov_s + old, 0, (g->min_alloc - old) * sizeof(float));
	}
	g->nmin = m + 1;
}

/* dt_s: (t1 - t0) in seconds */
static void minute_add(struct gpu_stats *g, int64_t t0, int64_t t1, double util, double dt_s)
{
	/* the common case, an interval inside the minute of the previous one,
	 * needs no 64-bit division */
	if (t0 >= g->min_cur_start_ns && t1 <= g->min_cur_end_ns && g->min_cur < g->nmin) {
		g->min_cov_s[g->min_cur] += (float)dt_s;
		if (!isnan(util))
			g->min_busy_s[g->min_cur] += (float)(dt_s * util / 100);
		return;
	}
	while (t0 < t1) {
		int64_t m = (t0 - g->min_base_ns) / (60 * NS_PER_S);
		int64_t mend = g->min_base_ns + (m + 1) * 60 * NS_PER_S;
		int64_t e = t1 < mend ? t1 : mend;
		double dt = (double)(e - t0) / 1e9;
		if (m < 0)
			break;
		gpu_minute_grow(g, (size_t)m);
		g->min_cov_s[m] += (float)dt;
		if (!isnan(util))
			g->min_busy_s[m] += (float)(dt * util / 100);
		g->min_cur = (size_t)m;
		g->min_cur_start_ns = mend - 60 * NS_PER_S;
		g->min_cur_end_ns = mend;
		t0 = e;
	}
}

/* ---- the display series ------------------------------------------------ */

static const int ser_src[SER__COUNT] = {
	[SER_UTIL] = M_UTIL_GPU, [SER_MEM_UTIL] = M_UTIL_MEM, [SER_POWER] = M_POWER,
	[SER_MEM] = M_MEM_USED, [SER_TEMP] = M_TEMP, [SER_SM_CLOCK] = M_SM_CLOCK,
};

void ser_clear(struct ser_bucket *b, size_t n)
{
	memset(b, 0, n * sizeof(*b));
	for (size_t i = 0; i < n; i++)
		for (int m = 0; m < SER__COUNT; m++) {
			b[i].min[m] = INFINITY;
			b[i].max[m] = -INFINITY;
		}
}

void ser_merge(struct gpu_series *s)
{
	size_t half = (s->n + 1) / 2;

	for (size_t i = 0; i < half; i++) {
		struct ser_bucket t = s->b[2 * i];
		if (2 * i + 1 < s->n) {
			const struct ser_bucket *c = &s->b[2 * i + 1];
			for (int m = 0; m < SER__COUNT; m++) {
				t.sum[m] += c->sum[m];
				t.known_s[m] += c->known_s[m];
				if (c->min[m] < t.min[m])
					t.min[m] = c->min[m];
				if (c->max[m] > t.max[m])
					t.max[m] = c->max[m];
			}
			for (int st = 0; st < ST__COUNT; st++)
				t.state_s[st] += c->state_s[st];
		}
		s->b[i] = t;
	}
	s->n = half;
	s->width_ns *= 2;
}

struct ser_bucket *ser_at(struct gpu_series *s, int64_t t_ns, int64_t width_ns)
{
	int64_t k;

	if (!s->b) {
		s->b = xreallocarray(NULL, SER_MAX, sizeof(*s->b));
		s->n = 0;
		s->base_ns = t_ns;
		s->width_ns = width_ns;
	}
	if (t_ns < s->base_ns)
		t_ns = s->base_ns;
	while ((k = (t_ns - s->base_ns) / s->width_ns) >= SER_MAX)
		ser_merge(s);
	if ((size_t)k >= s->n) {
		ser_clear(s->b + s->n, (size_t)k + 1 - s->n);
		s->n = (size_t)k + 1;
	}
	return &s->b[k];
}

/*
 * Add an interval to the display series.  The readings it carries are
 * looked up once; an interval that spans several buckets (a long steady
 * stretch, a gap) adds the same readings to each with its share of time.
 */
static void ser_add(struct gpu_series *s, const struct ival *iv, int st)
{
	int64_t t0 = iv->t0_ns, t1 = iv->t1_ns;
	int ms[SER__COUNT], nm = 0;
	float vs[SER__COUNT];

	if (!s->b) {
		s->b = xreallocarray(NULL, SER_MAX, sizeof(*s->b));
		s->n = 0;
		s->base_ns = t0;
		s->width_ns = SER_BASE_NS;
	}
	if (t0 < s->base_ns)
		t0 = s->base_ns;
	if (iv->kind == IV_DATA)
		for (int m = 0; m < SER__COUNT; m++)
			if (iv->present & (1u << ser_src[m])) {
				ms[nm] = m;
				vs[nm++] = (float)iv->v[ser_src[m]];
			}
	while (t0 < t1) {
		int64_t k = (t0 - s->base_ns) / s->width_ns;
		int64_t end = s->base_ns + (k + 1) * s->width_ns;

		if (k >= SER_MAX) {
			ser_merge(s);
			continue;
		}
		/* bucket after bucket without dividing again */
		for (; t0 < t1 && k < SER_MAX; k++, end += s->width_ns) {
			int64_t e = t1 < end ? t1 : end;
			float dt = (float)((double)(e - t0) / 1e9);
			struct ser_bucket *b;

			if ((size_t)k >= s->n) {
				ser_clear(s->b + s->n, (size_t)k + 1 - s->n);
				s->n = (size_t)k + 1;
			}
			b = &s->b[k];
			b->state_s[st] += dt;
			for (int j = 0; j < nm; j++) {
				int m = ms[j];
				float v = vs[j];
				b->sum[m] += v * dt;
				b->known_s[m] += dt;
				if (v < b->min[m])
					b->min[m] = v;
				if (v > b->max[m])
					b->max[m] = v;
			}
			t0 = e;
		}
	}
}

/* ---- classification with a centred window ------------------------------- */

/* The sums of the entries before ring position i (i == ring_n: all of them). */
static const struct win_sum *pre_at(const struct gpu_work *w, int i)
{
	return i == w->ring_n ? &w->run : &w->pre[(w->ring_head + i) & (w->ring_cap - 1)];
}

/* An interval entering the ring at position ring_n: its slot's prefix, and the running sums. */
static void win_push(struct gpu_work *w, const struct ival *iv)
{
	double u;

	w->pre[(w->ring_head + w->ring_n) & (w->ring_cap - 1)] = w->run;
	if (iv->t0_ns < w->last_t1_ns || iv->t1_ns <= iv->t0_ns)
		w->unsorted = true;
	w->last_t1_ns = iv->t1_ns;
	if (iv->kind != IV_DATA || !(iv->present & (1u << M_UTIL_GPU)))
		return;
	u = iv->v[M_UTIL_GPU];
	if (w->last_act >= 0 && (u > state_thr.active_util_pct) != (w->last_act == 1))
		w->run.nsw++;
	w->last_act = u > state_thr.active_util_pct;
	if (u >= 0 && u <= 100 && u == (double)(int)u) {
		uint64_t dt = (uint64_t)(iv->t1_ns - iv->t0_ns), ui = (uint64_t)(int)u;
		w->run.s1 += ui * dt;
		w->run.s2 += ui * ui * dt;
		w->run.tot += dt;
		if (u > state_thr.active_util_pct) {
			w->run.act += dt;
			w->run.nact++;
		}
	} else {
		w->run.odd++;
	}
}

/* A window's figures from its sums (tot > 0): utilization x time, its square, time, active time. */
static void window_set(struct state_window *sw, double sum, double sum2, double tot, double act)
{
	sw->valid = true;
	sw->util_mean = sum / tot;
	sw->util_cv = sw->util_mean > 0 ? sqrt(fmax(0, sum2 / tot - sw->util_mean * sw->util_mean)) / sw->util_mean : 0;
	sw->active_frac = act / tot;
}

/* The window by scanning the ring: any order of entries, any utilization. */
static void window_scan(const struct gpu_work *w, int idx, int64_t half, struct state_window *sw)
{
	const struct ival *c = &w->ring[(w->ring_head + idx) & (w->ring_cap - 1)];
	double sum = 0, sum2 = 0, tot = 0, act = 0;
	int last = -1, sw_n = 0;

	memset(sw, 0, sizeof(*sw));
	for (int i = 0; i < w->ring_n; i++) {
		const struct ival *iv = &w->ring[(w->ring_head + i) & (w->ring_cap - 1)];
		double dt, u;
		if (iv->kind != IV_DATA || !(iv->present & (1u << M_UTIL_GPU)))
			continue;
		if (iv->t1_ns <= c->t0_ns - half || iv->t0_ns >= c->t1_ns + half)
			continue;
		dt = (double)(iv->t1_ns - iv->t0_ns);	/* ns: only ratios are kept */
		u = iv->v[M_UTIL_GPU];
		sum += u * dt;
		sum2 += u * u * dt;
		tot += dt;
		if (last >= 0 && (u > state_thr.active_util_pct) != (last == 1))
			sw_n++;
		last = u > state_thr.active_util_pct;
		if (u > state_thr.active_util_pct) {
			act += dt;
			if (iv->t1_ns <= c->t0_ns)
				sw->active_before = true;
			if (iv->t0_ns >= c->t1_ns)
				sw->active_after = true;
		}
	}
	if (tot > 0) {
		window_set(sw, sum, sum2, tot, act);
		sw->switches = sw_n;
	}
}

/*
 * The centred window of ring position idx: the entries that overlap
 * [t0 - half, t1 + half) of it.  Entries in time order that do not overlap
 * (the timeline's) make that a run of positions around idx, and its sums
 * are differences of the prefixes.  Where the scan's double sums would
 * round (a utilization that is not a whole number, or so much time that
 * utilization^2 x ns passes 2^53) or the entries are out of order, the
 * ring is scanned as before; either way the figures are the same.
 */
static void window_at(const struct gpu_work *w, int idx, int64_t half, struct state_window *sw)
{
	const struct ival *c = &w->ring[(w->ring_head + idx) & (w->ring_cap - 1)];
	int64_t lo_t = c->t0_ns - half, hi_t = c->t1_ns + half;
	int mask = w->ring_cap - 1, lo = idx, hi = idx + 1;
	const struct win_sum *a, *b, *m0, *m1;

	if (w->unsorted || half < 0) {
		window_scan(w, idx, half, sw);
		return;
	}
	while (lo > 0 && w->ring[(w->ring_head + lo - 1) & mask].t1_ns > lo_t)
		lo--;
	while (hi < w->ring_n && w->ring[(w->ring_head + hi) & mask].t0_ns < hi_t)
		hi++;
	a = pre_at(w, lo);
	b = pre_at(w, hi);
	if (b->odd != a->odd || b->tot - a->tot > (1ull << 53) / 10000) {
		window_scan(w, idx, half, sw);
		return;
	}
	memset(sw, 0, sizeof(*sw));
	if (b->tot == a->tot)
		return;
	m0 = pre_at(w, idx);	/* entries before c */
	m1 = pre_at(w, idx + 1);	/* ... and c */
	sw->active_before = m0->nact != a->nact;
	sw->active_after = b->nact != m1->nact;
	/* switches flagged on the window's entries after its first */
	sw->switches = hi > lo + 1 ? (int)(b->nsw - pre_at(w, lo + 1)->nsw) : 0;
	window_set(sw, (double)(b->s1 - a->s1), (double)(b->s2 - a->s2), (double)(b->tot - a->tot),
		   (double)(b->act - a->act));
}

static void account(struct analysis *an, int gi, const struct ival *iv, int st)
{
	struct gpu_stats *g = &an->gpus[gi];
	double dt = (double)(iv->t1_ns - iv->t0_ns) / 1e9;
	double util = (iv->present & (1u << M_UTIL_GPU)) ? iv->v[M_UTIL_GPU] : NAN;

	if (g->min_base_ns == 0 && g->nmin == 0)
		g->min_base_ns = iv->t0_ns - (iv->t0_ns % (60 * NS_PER_S));
	if (an->hook.state)
		an->hook.state(an->hook.ud, gi, iv, st);
	g->state_s[st] += dt;
	if (isnan(iv->energy_j))
		g->energy_unknown_s += dt;
	if (iv->kind == IV_GAP) {
		g->gaps_s += dt;
		add_segment(an, gi, iv, st);
		det_feed_interval(an, gi, an->det[gi], iv, st);
		if (an->cfg.series)
			ser_add(&g->ser, iv, st);
		return;
	}
	g->covered_s += dt;
	if (an->cfg.series)
		ser_add(&g->ser, iv, st);
	minute_add(g, iv->t0_ns, iv->t1_ns, util, dt);
	if (!isnan(util)) {
		int b = util < 0 ? 0 : util > 100 ? 100 : (int)(util + 0.5);
		g->util_known_s += dt;
		g->util_hist_s[b] += dt;
		g->busy_s += dt * util / 100;
		g->state_busy_s[st] += dt * util / 100;
	}
	if (iv->present & (1u << M_POWER)) {
		double p = iv->v[M_POWER];
		g->power_known_s += dt;
		g->power_ws += p * dt;
		if (isnan(g->power_max_w) || p > g->power_max_w)
			g->power_max_w = p;
		if (!isnan(util) && util <= state_thr.active_util_pct) {
			g->idle_ws += p * dt;
			g->idle_s += dt;
		} else if (!isnan(util) && util >= state_thr.busy_util_pct) {
			g->active_ws += p * dt;
			g->active_s += dt;
		}
	}
	if (!isnan(iv->energy_j)) {
		if (iv->energy_from_counter) {
			g->energy_counter_j += iv->energy_j;
			g->energy_counter_s += dt;
		} else {
			g->energy_power_j += iv->energy_j;
			g->energy_power_s += dt;
		}
		g->state_energy_j[st] += iv->energy_j;
	}
	/* a maximum is NAN until a reading comes: 0 MiB, 0 W or 0 C read is 0, not unknown */
	if ((iv->present & (1u << M_TEMP)) && (isnan(g->temp_max_c) || iv->v[M_TEMP] > g->temp_max_c))
		g->temp_max_c = iv->v[M_TEMP];
	if ((iv->present & (1u << M_MEM_USED)) && (isnan(g->mem_max_mib) || iv->v[M_MEM_USED] > g->mem_max_mib))
		g->mem_max_mib = iv->v[M_MEM_USED];
	if ((iv->present & (1u << M_MEM_TOTAL)) && iv->v[M_MEM_TOTAL] > g->mem_total_mib)
		g->mem_total_mib = iv->v[M_MEM_TOTAL];
	add_segment(an, gi, iv, st);
	det_feed_interval(an, gi, an->det[gi], iv, st);
}

static void classify_one(struct analysis *an, int gi, int idx)
{
	struct gpu_work *w = an->work[gi];
	struct gpu_stats *g = &an->gpus[gi];
	struct ival *iv = &w->ring[(w->ring_head + idx) & (w->ring_cap - 1)];
	struct state_in in;
	int st;

	if (iv->kind == IV_GAP) {
		account(an, gi, iv, ST_GAP);
		return;
	}
	/* every field is set below: no memset on this path, it runs per interval */
	in.win.valid = false;
	in.win.active_before = in.win.active_after = false;
#define HAS(m) (iv->present & (1u << (m)))
	in.util_known = HAS(M_UTIL_GPU);
	in.util = iv->v[M_UTIL_GPU];
	in.mem_util_known = HAS(M_UTIL_MEM);
	in.mem_util = iv->v[M_UTIL_MEM];
	in.power_known = HAS(M_POWER);
	in.power_w = iv->v[M_POWER];
	in.mem_known = HAS(M_MEM_USED);
	in.mem_mib = iv->v[M_MEM_USED];
	in.mask_known = HAS(M_EVENT_MASK);
	in.mask = (unsigned long long)iv->v[M_EVENT_MASK];
	in.clock_known = HAS(M_SM_CLOCK);
	in.sm_clock_mhz = iv->v[M_SM_CLOCK];
	in.pviol = HAS(M_PVIOL) ? iv->v[M_PVIOL] : 0;
	in.tviol = HAS(M_TVIOL) ? iv->v[M_TVIOL] : 0;
	in.status_down = iv->status & (GS_LOST | GS_RESET);
	in.nproc = iv->nproc;
	in.held_mem_mib = an->cfg.held_mem_mib;
	/* reference clock: the GPU's max SM clock, else the highest seen under load */
	if (HAS(M_SM_CLOCK_MAX))
		g->sm_clock_ref_mhz = iv->v[M_SM_CLOCK_MAX];
	in.sm_clock_ref_mhz = g->sm_clock_ref_mhz;
	/* this reading is judged against a reference it cannot exceed */
	if (in.clock_known && in.sm_clock_mhz > in.sm_clock_ref_mhz)
		in.sm_clock_ref_mhz = in.sm_clock_mhz;
	if (w->held_n && (w->held_n >= w->held_n_at_median * 2 || w->held_n - w->held_n_at_median >= 256)) {
		w->held_floor_cache = median_hist(w->held_hist, w->held_sum, w->held_n);
		w->held_n_at_median = w->held_n;
	}
	in.held_floor_w = w->held_n ? w->held_floor_cache : NAN;
	/* the window only matters with something held (a wait, or a burst between waits) */
	if (in.util_known && (in.nproc > 0 || (in.mem_known && in.mem_mib >= in.held_mem_mib)))
		window_at(w, idx, an->cfg.window_ns, &in.win);
#undef HAS
	st = state_classify(&in);

	/* learn the idle floors and the load clock after deciding, from this interval */
	if (in.util_known && in.util <= state_thr.active_util_pct && in.power_known &&
	    in.power_w >= 0 && in.power_w < POWER_BINS) {
		if (in.nproc > 0 || (in.mem_known && in.mem_mib >= in.held_mem_mib)) {
			w->held_hist[(int)in.power_w]++;
			w->held_sum[(int)in.power_w] += (float)in.power_w;
			w->held_n++;
			if (w->held_n == 1)
				w->held_floor_cache = in.power_w + 0.5;
		} else if (in.mem_known) {	/* no memory reading: cannot say "nothing held" */
			w->noctx_hist[(int)in.power_w]++;
			w->noctx_sum[(int)in.power_w] += (float)in.power_w;
			w->noctx_n++;
		}
	}
	if (in.clock_known && in.util >= state_thr.busy_util_pct) {
		bool drop = g->sm_clock_ref_mhz > 0 &&
			    in.sm_clock_mhz < state_thr.clock_drop_ratio * g->sm_clock_ref_mhz;
		if (drop && !w->in_drop)
			g->sm_clock_drops++;
		w->in_drop = drop;
		if (!(iv->present & (1u << M_SM_CLOCK_MAX)) && in.sm_clock_mhz > g->sm_clock_ref_mhz)
			g->sm_clock_ref_mhz = in.sm_clock_mhz;
	}
	account(an, gi, iv, st);
}

/*
 * The ring holds, oldest first, `ncls` intervals already classified (kept as
 * past context for the window) and then the unclassified ones.  An interval
 * is classified once `half` of future is behind it (or at the end).
 */
static void drain(struct analysis *an, int gi, bool all)
{
	struct gpu_work *w = an->work[gi];
	int64_t half = an->cfg.window_ns;

	while (w->ncls < w->ring_n) {
		/* classify_one() leaves the ring as it is: its bounds stay in registers */
		int mask = w->ring_cap - 1, head = w->ring_head, n = w->ring_n, ncls = w->ncls;
		const struct ival *c = &w->ring[(head + ncls) & mask];
		const struct ival *newest = &w->ring[(head + n - 1) & mask];
		if (!all && n < RING && newest->t1_ns < c->t1_ns + half)
			break;
		classify_one(an, gi, ncls);
		ncls++;
		/* past context older than the next one's window is no longer needed */
		while (ncls > 0) {
			const struct ival *old = &w->ring[head];
			const struct ival *next = ncls < n ? &w->ring[(head + ncls) & mask] : newest;
			if (old->t1_ns > next->t0_ns - half && n < RING)
				break;
			head = (head + 1) & mask;
			n--;
			ncls--;
		}
		w->ring_head = head;
		w->ring_n = n;
		w->ncls = ncls;
	}
}

static struct gpu_work *work_new(struct analysis *an, int gi)
{
	struct gpu_work *w = xcalloc(1, sizeof(struct gpu_work));

	w->ring = xreallocarray(NULL, RING_MIN, sizeof(struct ival));
	w->pre = xreallocarray(NULL, RING_MIN, sizeof(struct win_sum));
	w->ring_cap = RING_MIN;
	w->last_t1_ns = INT64_MIN;
	w->last_act = -1;
	an->gpus[gi].power_max_w = an->gpus[gi].temp_max_c = an->gpus[gi].mem_max_mib = NAN;
	an->det[gi] = det_states_new();
	an->work[gi] = w;
	return w;
}

/* A GPU's working state, made when first needed. */
static inline struct gpu_work *work_of(struct analysis *an, int gi)
{
	return an->work[gi] ? an->work[gi] : work_new(an, gi);
}

/* The next ring slot, made free first (timeline_consumer.reserve). */
static struct ival *on_reserve(void *ud, int gi)
{
	struct analysis *an = ud;
	struct gpu_work *w = work_of(an, gi);

	if (w->ring_n == w->ring_cap && w->ring_cap < RING) {
		/* grow, oldest first at 0 */
		struct ival *r = xreallocarray(NULL, (size_t)w->ring_cap * 2, sizeof(*r));
		struct win_sum *pre = xreallocarray(NULL, (size_t)w->ring_cap * 2, sizeof(*pre));
		for (int i = 0; i < w->ring_n; i++) {
			r[i] = w->ring[(w->ring_head + i) & (w->ring_cap - 1)];
			pre[i] = w->pre[(w->ring_head + i) & (w->ring_cap - 1)];
		}
		free(w->ring);
		free(w->pre);
		w->ring = r;
		w->pre = pre;
		w->ring_cap *= 2;
		w->ring_head = 0;
	}
	/* a full ring: forget the oldest past context, or classify early */
	if (w->ring_n == RING) {
		if (w->ncls == 0) {
			classify_one(an, gi, 0);
			w->ncls = 1;
		}
		w->ring_head = (w->ring_head + 1) & (w->ring_cap - 1);
		w->ring_n--;
		w->ncls--;
	}
	return &w->ring[(w->ring_head + w->ring_n) & (w->ring_cap - 1)];
}

/* Jobs further back than this from an interval are done with (other GPUs'
 * intervals may come a little behind). */
#define JOB_RETIRE_NS (600 * NS_PER_S)

/* The jobs by id (an->job_idx): each id's latest job, the one a scan
 * from the end finds; the id as kept (id[] holds its first 47 bytes) is
 * compared whole with the one asked for, as the scan compared it. */
struct job_key {
	const struct analysis *an;
	const char *id;
};

static bool job_eq(const void *ctx, size_t k)
{
	const struct job_key *jk = ctx;

	return !strcmp(jk->an->jobs[jk->an->job_last[k]].id, jk->id);
}

static void job_index(struct analysis *an, size_t i)
{
	const char *id = an->jobs[i].id;
	struct job_key k = { an, id };
	uint64_t h = hash_bytes(HASH_SEED, id, strlen(id));
	size_t at = hashidx_find(&an->job_idx, h, job_eq, &k);

	if (at != HASHIDX_NONE) {
		an->job_last[at] = i;
		return;
	}
	ALLOC_GROW(an->job_last, an->njob_ids + 1, an->job_last_alloc);
	an->job_last[an->njob_ids] = i;
	hashidx_add(&an->job_idx, h, an->njob_ids++);
}

/* Index the jobs kept since the last call (job_add's, and those a store
 * restored with analysis_job_restore), in order. */
static void job_index_sync(struct analysis *an)
{
	for (; an->njobs_indexed < an->njobs; an->njobs_indexed++)
		job_index(an, an->njobs_indexed);
}

/* A batch job's allocation: kept, and live for the intervals to come. */
static void job_add(struct analysis *an, const struct rec *r, const struct batch *b)
{
	struct an_job *j;

	if (r->time_kind != TK_ABS || r->job.ngpus <= 0)
		return;
	/* the same job again (sacct and dcgmi stats, or dcgmi's block per
	 * GPU): one job, its GPUs and figures together */
	job_index_sync(an);
	if (batch_str(b, r->job.id)) {
		const char *id = batch_str(b, r->job.id);
		struct job_key k = { an, id };
		size_t i = hashidx_find(&an->job_idx, hash_bytes(HASH_SEED, id, strlen(id)), job_eq, &k);
		if (i != HASHIDX_NONE) {
			j = &an->jobs[an->job_last[i]];
			if (r->t_ns < j->t0_ns)
				j->t0_ns = r->t_ns;
			if (r->job.t1_ns > j->t1_ns)
				j->t1_ns = r->job.t1_ns;
			j->gpu_mask |= r->job.gpu_mask;
			if (__builtin_popcountll(j->gpu_mask) > j->ngpus)
				j->ngpus = __builtin_popcountll(j->gpu_mask);
			if (!j->user[0] && batch_str(b, r->job.user))
				snprintf(j->user, sizeof(j->user), "%s", batch_str(b, r->job.user));
			if (!j->account[0] && batch_str(b, r->job.account))
				snprintf(j->account, sizeof(j->account), "%s", batch_str(b, r->job.account));
			if (isnan(j->gpuutil_pct))
				j->gpuutil_pct = r->job.gpuutil_pct;
			if (isnan(j->gpumem_mib) || r->job.gpumem_mib > j->gpumem_mib)
				j->gpumem_mib = r->job.gpumem_mib;
			if (!isnan(r->job.energy_j))
				j->reported_energy_j = (isnan(j->reported_energy_j) ? 0 : j->reported_energy_j) +
						       r->job.energy_j;
			return;
		}
	}
	ALLOC_GROW(an->jobs, an->njobs + 1, an->jobs_alloc);
	j = &an->jobs[an->njobs];
	memset(j, 0, sizeof(*j));
	snprintf(j->id, sizeof(j->id), "%s", batch_str(b, r->job.id) ? batch_str(b, r->job.id) : "");
	snprintf(j->user, sizeof(j->user), "%s", batch_str(b, r->job.user) ? batch_str(b, r->job.user) : "");
	snprintf(j->account, sizeof(j->account), "%s",
		 batch_str(b, r->job.account) ? batch_str(b, r->job.account) : "");
	snprintf(j->nodes, sizeof(j->nodes), "%s", batch_str(b, r->job.nodes) ? batch_str(b, r->job.nodes) : "");
	j->t0_ns = r->t_ns;
	j->t1_ns = r->job.t1_ns;
	j->ngpus = r->job.ngpus;
	j->nnodes = r->job.nnodes > 0 ? r->job.nnodes : 1;
	j->gpu_mask = r->job.gpu_mask;
	j->gpuutil_pct = r->job.gpuutil_pct;
	j->gpumem_mib = r->job.gpumem_mib;
	j->reported_energy_j = r->job.energy_j;
	ALLOC_GROW(an->jobs_live, an->njobs_live + 1, an->jobs_live_alloc);
	an->jobs_live[an->njobs_live++] = an->njobs++;
	job_index_sync(an);
}

/* Job j's claim on GPU gi: the whole GPU where jobstats named it, else its GPUs over the node's. */
static double job_claim(const struct analysis *an, const struct an_job *j, int gi)
{
	int idx = an->tl.gpus[gi].id.index;

	if (j->gpu_mask)
		return idx >= 0 && idx < 64 && (j->gpu_mask >> idx & 1) ? 1 : 0;
	return (double)j->ngpus / j->nnodes / (an->tl.ngpus > 0 ? an->tl.ngpus : 1);
}

/* The live jobs' shares of one data interval of GPU gi (struct an_job). */
static void jobs_interval(struct analysis *an, int gi, const struct ival *iv)
{
	double dt = (double)(iv->t1_ns - iv->t0_ns) / 1e9, claim = 0, denom;
	double util = (iv->present & (1u << M_UTIL_GPU)) ? iv->v[M_UTIL_GPU] : NAN;
	size_t k = 0;

	if (!(dt > 0))
		return;
	for (size_t i = 0; i < an->njobs_live; i++) {
		const struct an_job *j = &an->jobs[an->jobs_live[i]];
		if (j->t1_ns != INT64_MAX && j->t1_ns < iv->t0_ns - JOB_RETIRE_NS)
			continue;	/* done with: dropped below */
		an->jobs_live[k++] = an->jobs_live[i];
		if (j->t0_ns < iv->t1_ns && j->t1_ns > iv->t0_ns)
			claim += job_claim(an, j, gi);
	}
	an->njobs_live = k;
	/* claims of more than the GPU share it by their sizes */
	denom = claim > 1 ? claim : 1;
	for (size_t i = 0; i < an->njobs_live; i++) {
		struct an_job *j = &an->jobs[an->jobs_live[i]];
		int64_t a = j->t0_ns > iv->t0_ns ? j->t0_ns : iv->t0_ns;
		int64_t z = j->t1_ns < iv->t1_ns ? j->t1_ns : iv->t1_ns;
		double ov, share;
		if (z <= a)
			continue;
		ov = (double)(z - a) / 1e9;
		share = job_claim(an, j, gi) / denom;
		if (!(share > 0))
			continue;
		j->held_s += ov * share;
		if (!isnan(iv->energy_j))
			j->energy_j += iv->energy_j * ov / dt * share;
		if (!isnan(util)) {
			if (!j->gpu_busy_s)
				j->gpu_busy_s = xcalloc(TL_MAX_GPUS, sizeof(double));
			j->busy_s += ov * util / 100 * share;
			j->gpu_busy_s[gi] += ov * util / 100 * share;
		}
		if (an->hook.job)
			an->hook.job(an->hook.ud, gi, j, iv, a, z, ov * share,
				     isnan(util) ? NAN : ov * util / 100 * share,
				     isnan(iv->energy_j) ? NAN : iv->energy_j * ov / dt * share);
	}
}

static void on_interval(void *ud, int gi, const struct ival *iv_in)
{
	struct analysis *an = ud;
	struct gpu_work *w = work_of(an, gi);
	struct gpu_stats *g = &an->gpus[gi];
	/* the timeline built it in the slot on_reserve() gave: that slot is still free */
	struct ival *slot = w->ring_n < w->ring_cap &&
			    iv_in == &w->ring[(w->ring_head + w->ring_n) & (w->ring_cap - 1)] ?
			    (struct ival *)iv_in : on_reserve(ud, gi);
	struct ival *iv = slot;

	if (iv_in != slot)
		*slot = *iv_in;
	if (g->first_ns == 0 && g->last_ns == 0)
		g->first_ns = iv->t0_ns;
	if (iv->t1_ns > g->last_ns)
		g->last_ns = iv->t1_ns;

	/* processes present during this interval, and their shares; a GPU that
	 * is down runs nothing, whatever was seen on it before */
	if (iv->kind == IV_DATA && (w->last_proc_obs_ns || w->last_task_obs_ns) &&
	    !(iv->status & (GS_LOST | GS_RESET))) {
		double dt = (double)(iv->t1_ns - iv->t0_ns) / 1e9;
		double util = (iv->present & (1u << M_UTIL_GPU)) ? iv->v[M_UTIL_GPU] : NAN;
		double sm_tot = 0;
		int n = 0, ntask = 0;
		bool all_sm = true;
		for (int i = 0; i < w->npresent; i++) {
			if (iv->t0_ns - w->present[i].seen_ns > PROC_STALE_NS)
				continue;
			if (w->present[i].pid == PID_TASK) {
				ntask++;
				continue;
			}
			n++;
			if (isnan(w->present[i].sm_pct))
				all_sm = false;
			else
				sm_tot += w->present[i].sm_pct;
		}
		/* task labels split the GPU among themselves, beside the
		 * processes, and are not processes present */
		if (w->last_proc_obs_ns)
			iv->nproc = n;
		for (int i = 0; i < w->npresent; i++) {
			struct proc_stat *ps;
			double share;
			bool task = w->present[i].pid == PID_TASK;
			if (iv->t0_ns - w->present[i].seen_ns > PROC_STALE_NS)
				continue;
			ps = &an->procs[w->present[i].stat];
			share = task ? 1.0 / ntask
			      : all_sm && sm_tot > 0 ? w->present[i].sm_pct / sm_tot : 1.0 / n;
			ps->busy_by_sm = !task && all_sm && sm_tot > 0;
			ps->present_s += dt;
			ps->share_s += dt * share;
			if (!isnan(util))
				ps->busy_s += dt * util / 100 * share;
			if (!isnan(iv->energy_j))
				ps->energy_j += iv->energy_j * share;
			if (an->hook.proc)
				an->hook.proc(an->hook.ud, gi, ps, iv->t0_ns, iv->t1_ns, dt * share,
					      isnan(util) ? NAN : dt * util / 100 * share,
					      iv->energy_j * share);
		}
	}
	if (iv->kind == IV_DATA && an->njobs_live && !(iv->status & (GS_LOST | GS_RESET)))
		jobs_interval(an, gi, iv);
	win_push(w, iv);
	w->ring_n++;
	drain(an, gi, false);
}

/* A process's key: its GPU, pid and name as kept (name[] holds the first 63 bytes). */
static uint64_t proc_hash(int gi, int64_t pid, const char *name)
{
	uint64_t h = hash_u64(hash_u64(HASH_SEED, (uint64_t)gi), (uint64_t)pid);

	return hash_bytes(h, name, strnlen(name, sizeof(((struct proc_stat *)0)->name) - 1));
}

struct proc_key {
	const struct analysis *an;
	int gi;
	int64_t pid;
	const char *name;
};

static bool proc_eq(const void *ctx, size_t i)
{
	const struct proc_key *k = ctx;
	const struct proc_stat *p = &k->an->procs[i];

	return p->gpu == k->gi && p->pid == k->pid && !strncmp(p->name, k->name, sizeof(p->name) - 1);
}

struct proc_stat *analysis_proc_new(struct analysis *an, int gi, int64_t pid, const char *name)
{
	struct proc_stat *p;

	ALLOC_GROW(an->procs, an->nprocs + 1, an->procs_alloc);
	p = &an->procs[an->nprocs++];
	memset(p, 0, sizeof(*p));
	p->gpu = gi;
	p->pid = pid;
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->fb_max_mib = NAN;
	p->first_ns = INT64_MAX;
	/* indexed, so that finding it again does not scan every process */
	hashidx_add(&an->proc_idx, proc_hash(gi, pid, p->name), an->nprocs - 1);
	return p;
}

static size_t proc_find(struct analysis *an, int gi, int64_t pid, const char *name)
{
	struct proc_key k = { an, gi, pid, name };
	size_t i = hashidx_find(&an->proc_idx, proc_hash(gi, pid, name), proc_eq, &k);

	if (i != HASHIDX_NONE)
		return i;
	analysis_proc_new(an, gi, pid, name);
	return an->nprocs - 1;
}

/* Keep what a process observation says of who it belongs to. */
static void proc_who_set(struct proc_stat *ps, const struct proc_who *who)
{
	if (!who)
		return;
	if (who->user && who->user[0])
		snprintf(ps->user, sizeof(ps->user), "%s", who->user);
	if (who->job && who->job[0])
		snprintf(ps->job, sizeof(ps->job), "%s", who->job);
	if (who->task && who->task[0])
		snprintf(ps->task, sizeof(ps->task), "%s", who->task);
	if (who->ctr && who->ctr[0])
		snprintf(ps->ctr, sizeof(ps->ctr), "%s", who->ctr);
}

static void on_process(void *ud, int gi, int64_t t, int64_t pid, const char *name,
		       uint32_t present, double sm, double mem, double fb, const struct proc_who *who)
{
	struct analysis *an = ud;
	struct gpu_work *w;
	struct proc_stat *ps;
	size_t si;
	int slot = -1;

	(void)mem;
	w = work_of(an, gi);
	if (pid == PID_TASK) {
		w->last_task_obs_ns = t;
	} else {
		an->gpus[gi].has_process_data = true;
		w->last_proc_obs_ns = t;
	}
	if (pid == -1) {	/* pmon: nothing runs on this GPU now */
		w->npresent = 0;
		return;
	}
	if (!name)
		name = "";
	si = proc_find(an, gi, pid, name);
	ps = &an->procs[si];
	ps->observations++;
	proc_who_set(ps, who);
	if (t < ps->first_ns)
		ps->first_ns = t;
	if (t > ps->last_ns)
		ps->last_ns = t;
	if ((present & PF_FB) && (isnan(ps->fb_max_mib) || fb > ps->fb_max_mib))
		ps->fb_max_mib = fb;
	if (present & PF_SM) {
		ps->sm_sum += sm;
		ps->sm_n++;
	}
	for (int i = 0; i < w->npresent; i++)
		if (w->present[i].stat == si)
			slot = i;
	if (slot < 0) {
		/* drop stale entries first */
		int k = 0;
		for (int i = 0; i < w->npresent; i++)
			if (t - w->present[i].seen_ns <= PROC_STALE_NS)
				w->present[k++] = w->present[i];
		w->npresent = k;
		if (w->npresent == MAXPRESENT)
			return;
		slot = w->npresent++;
		w->present[slot].stat = si;
		w->present[slot].pid = pid;
		snprintf(w->present[slot].name, sizeof(w->present[slot].name), "%s", name);
	}
	w->present[slot].seen_ns = t;
	w->present[slot].sm_pct = (present & PF_SM) ? sm : NAN;
}

/* ---- events ----------------------------------------------------------------- */

static void copy_field(char *dst, size_t cap, const char *s)
{
	snprintf(dst, cap, "%s", s ? s : "");
}

/* The same kind, code, GPU and PCI address as a kept event, within win of it? */
static bool same_event(const struct an_event *o, int gi, const struct tl_event *e, int64_t win)
{
	int64_t d = e->t_ns - o->t_ns;

	return o->ev == e->ev && o->code == e->code && o->gpu == gi && o->unplaced == e->unplaced &&
	       !strcmp(o->pci, e->pci ? e->pci : "") && d <= win && d >= -win;
}

/* A continuation of a recent entry (a burst cut by a chunk boundary)? */
static struct an_event *burst_of(struct analysis *an, int gi, const struct tl_event *e)
{
	for (size_t i = an->nevs; i-- > 0 && i + 8 >= an->nevs;)
		if (same_event(&an->evs[i], gi, e, EVENT_MERGE_NS))
			return &an->evs[i];
	return NULL;
}

/* The same event read from another input?  Only placed events: an
 * unplaced one has no time to compare. */
static struct an_event *copy_of(struct analysis *an, int gi, const struct tl_event *e)
{
	if (e->unplaced)
		return NULL;
	for (size_t i = an->nevs; i-- > 0 && i + 64 >= an->nevs;) {
		struct an_event *o = &an->evs[i];
		if (same_event(o, gi, e, EVENT_COPY_NS) && o->src && e->src && strcmp(o->src, e->src) &&
		    !strncmp(o->msg, e->msg ? e->msg : "", sizeof(o->msg) - 1))
			return o;
	}
	return NULL;
}

struct an_event *analysis_event_new(struct analysis *an)
{
	struct an_event *k;

	if (an->nevs >= an->cfg.max_events) {
		an->evs_dropped++;
		return NULL;
	}
	ALLOC_GROW(an->evs, an->nevs + 1, an->evs_alloc);
	k = &an->evs[an->nevs++];
	memset(k, 0, sizeof(*k));
	return k;
}

void analysis_event_count(struct analysis *an, int gi, int ev, int klass)
{
	if (ev == EV_XID && klass >= 0 && klass < KC__COUNT) {
		if (gi >= 0)
			an->gpus[gi].xid_class[klass]++;
		else
			an->host_xid_class[klass]++;
	}
	if (gi >= 0) {
		an->gpus[gi].events++;
		an->gpus[gi].xids += ev == EV_XID;
	}
}

/* Keep a copy for the report's list (bounded). */
static void keep_event(struct analysis *an, int gi, const struct tl_event *e)
{
	struct an_event *k = analysis_event_new(an);

	if (!k)
		return;
	k->t_ns = e->t_ns;
	k->unplaced = e->unplaced;
	k->gpu = gi;
	k->ev = (uint8_t)e->ev;
	k->klass = e->klass;
	k->severity = e->severity;
	k->flags = e->flags;
	k->code = e->code;
	k->count = e->count;
	k->src = e->src;
	k->line = e->line;
	k->mapped_by = e->mapped_by;
	copy_field(k->pci, sizeof(k->pci), e->pci);
	copy_field(k->proc, sizeof(k->proc), e->proc);
	copy_field(k->text, sizeof(k->text), e->text);
	copy_field(k->msg, sizeof(k->msg), e->msg);
}

/* The input's entry in the kernel error table, made when new. */
static struct an_klog *klog_of(struct analysis *an, const char *src)
{
	struct an_klog *k;

	for (size_t i = 0; i < an->nklogs; i++)
		if (an->klogs[i].src == src || (src && an->klogs[i].src && !strcmp(an->klogs[i].src, src)))
			return &an->klogs[i];
	ALLOC_GROW(an->klogs, an->nklogs + 1, an->klogs_alloc);
	k = &an->klogs[an->nklogs++];
	memset(k, 0, sizeof(*k));
	k->src = analysis_str(an, src);
	return k;
}

void analysis_input_size(struct analysis *an, const char *src, uint64_t bytes)
{
	struct an_klog *k;

	if (!src)
		return;
	for (size_t i = 0; i < an->nklogs; i++)
		if (an->klogs[i].src && !strcmp(an->klogs[i].src, src)) {
			k = &an->klogs[i];
			if (bytes > k->bytes)
				k->bytes = bytes;
			return;
		}
}

/* A kernel error line, counted for its input before any folding: each
 * log's density is of its own lines. */
static void count_klog(struct analysis *an, const struct tl_event *te)
{
	struct an_klog *k;

	switch (te->ev) {
	case EV_XID: case EV_FALLEN_OFF: case EV_RMINIT_FAILED: case EV_GSP_TIMEOUT:
	case EV_MODESET_ERROR: case EV_PCIE_AER: case EV_NVLINK_ERROR: case EV_NVRM_OTHER:
		break;
	default:
		return;
	}
	k = klog_of(an, te->src);
	k->errors += te->count ? te->count : 1;
	if (!te->unplaced) {
		if (!k->t0_ns || te->t_ns < k->t0_ns)
			k->t0_ns = te->t_ns;
		if (te->t_ns > k->t1_ns)
			k->t1_ns = te->t_ns;
	}
}

static void on_event(void *ud, int gi, const struct tl_event *te)
{
	struct analysis *an = ud;
	struct det_event e = { te->t_ns, te->ev, te->msg, te->src, te->line, te->code, te->count,
			       te->klass, te->severity, te->flags, te->pci };
	struct an_event *prev;

	if (te->ev >= 0 && te->ev < 8)
		an->events[te->ev]++;
	count_klog(an, te);
	/* a kernel burst that a chunk boundary split: one event with a count */
	prev = te->ev >= EV_XID ? burst_of(an, gi, te) : NULL;
	if (prev) {
		prev->count += te->count;
		return;
	}
	/* the same event from another input: named, not counted again */
	prev = te->ev >= EV_XID ? copy_of(an, gi, te) : NULL;
	if (prev) {
		if (prev->nalso < EVENT_ALSO)
			prev->also[prev->nalso++] = (struct an_event_also){ te->src, te->line, te->t_ns };
		/* a copy cut to whole seconds (dmesg -T) first: the finer time
		 * and its source are the ones listed (what was fed stays) */
		if (!prev->copies++ && event_time_finer(prev->t_ns, te->t_ns)) {
			struct an_event_also was = { prev->src, prev->line, prev->t_ns };
			prev->t_ns = te->t_ns;
			prev->src = te->src;
			prev->line = te->line;
			prev->also[0] = was;
		}
		an->event_copies++;
		return;
	}
	if (te->ev >= 0 && te->ev < EV__COUNT)
		an->ev_count[te->ev]++;
	keep_event(an, gi, te);
	if (te->unplaced) {
		/* no time: listed, and nothing else */
		an->unplaced_events++;
		return;
	}
	analysis_event_count(an, gi, te->ev, te->klass);
	if (gi >= 0) {
		if ((te->flags & KF_DOWN) && !work_of(an, gi)->down_pending) {
			struct gpu_work *w = work_of(an, gi);
			w->down_pending = true;
			w->down_ev = te->ev;
			w->down_code = te->code;
			w->down_src = te->src;
			w->down_line = te->line;
		}
	}
	if (gi >= 0)
		work_of(an, gi);	/* makes the GPU's detector block */
	det_feed_event(an, gi, gi >= 0 ? an->det[gi] : NULL, &e);
}

struct outage *analysis_outage_new(struct analysis *an, int gi, int64_t t0_ns, int64_t t1_ns)
{
	struct outage *o;

	an->gpus[gi].outage_s += (double)(t1_ns - t0_ns) / 1e9;
	an->gpus[gi].outages++;
	if (an->noutages >= 10000) {
		an->outages_dropped++;
		return NULL;
	}
	ALLOC_GROW(an->outages, an->noutages + 1, an->outages_alloc);
	o = &an->outages[an->noutages++];
	memset(o, 0, sizeof(*o));
	o->gpu = gi;
	o->t0_ns = t0_ns;
	o->t1_ns = t1_ns;
	o->ev = o->code = -1;
	return o;
}

static void on_outage(void *ud, int gi, int64_t t0, int64_t t1)
{
	struct analysis *an = ud;
	struct gpu_work *w = work_of(an, gi);
	struct outage *o = analysis_outage_new(an, gi, t0, t1);

	if (o) {
		o->ev = w->down_pending ? w->down_ev : -1;
		o->code = w->down_pending ? w->down_code : -1;
		o->src = w->down_pending ? w->down_src : NULL;
		o->line = w->down_pending ? w->down_line : 0;
	}
	w->down_pending = false;
}

void analysis_init(struct analysis *an, const struct analysis_cfg *cfg)
{
	struct timeline_consumer c = { an, on_reserve, on_interval, on_process, on_event, on_outage };

	/* not cleared here: a megabyte, mostly for GPUs the input never names,
	 * whose pages then stay untouched (analysis.h) */
	an->pw.first_ns = INT64_MAX;
	an->pw.last_ns = INT64_MIN;
	if (cfg)
		an->cfg = *cfg;
	else
		analysis_cfg_default(&an->cfg);
	timeline_init(&an->tl, &c);
	an->ev_by_t = ev_time_index_new();
}

void analysis_add(struct analysis *an, const struct rec *r, const struct batch *b, const char *src)
{
	if (r->kind == REC_TRACE) {
		trace_join_add(an, r, b, src);
		return;
	}
	if (r->kind == REC_JOB) {
		job_add(an, r, b);
		return;
	}
	timeline_add(&an->tl, r, b, src);
}

static void idle_floors(struct analysis *an, int gi)
{
	struct gpu_stats *g = &an->gpus[gi];
	struct gpu_work *w = an->work[gi];

	g->held_floor_w = median_hist(w->held_hist, w->held_sum, w->held_n);
	g->noctx_floor_w = median_hist(w->noctx_hist, w->noctx_sum, w->noctx_n);
}

static int cmp_find(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;
	int k;
	if (x->t0_ns != y->t0_ns)
		return x->t0_ns < y->t0_ns ? -1 : 1;
	if (x->gpu != y->gpu)
		return x->gpu - y->gpu;
	if ((k = strcmp(x->kind, y->kind)))
		return k;
	/* two Xids of one instant on one GPU: by code, as report --db reads them */
	return x->code < y->code ? -1 : x->code > y->code;
}

/*
 * Segments in GPU order, then time.  Each GPU's segments were appended in
 * time order, so a stable counting sort by GPU gives that order in O(n).
 */
static void sort_segments(struct analysis *an)
{
	size_t start[TL_MAX_GPUS + 1] = { 0 };
	struct segment *out;

	if (an->nsegs < 2)
		return;
	for (size_t i = 0; i < an->nsegs; i++)
		start[an->segs[i].gpu + 1]++;
	for (int g = 0; g < TL_MAX_GPUS; g++)
		start[g + 1] += start[g];
	out = xreallocarray(NULL, an->nsegs, sizeof(*out));
	for (size_t i = 0; i < an->nsegs; i++)
		out[start[an->segs[i].gpu]++] = an->segs[i];
	free(an->segs);
	an->segs = out;
	an->segs_alloc = an->nsegs;
}

/* Host events that stop or slow every GPU: a cause for any GPU's finding. */

/* The GPU-seconds a finding covers: what it costs at the window's rate. */
static double finding_weight_s(const struct finding *f)
{
	return f->total_s > 0 ? f->total_s : (double)(f->t1_ns - f->t0_ns) / 1e9;
}

static int cmp_rank(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;
	double wx = finding_weight_s(x), wy = finding_weight_s(y);
	/* by kind (a store's findings get theirs back from their names); a
	 * kind this version does not know (FK_NONE) need not always appear */
	int ax = finding_kind_always(x->fk);
	int ay = finding_kind_always(y->fk);

	if (x->severity != y->severity)
		return y->severity - x->severity;
	if (ax != ay)
		return ay - ax;
	if (wx != wy)
		return wx > wy ? -1 : 1;
	return cmp_find(a, b);
}

void analysis_rank_findings(struct analysis *an)
{
	if (an->nfinds > 1)
		qsort(an->finds, an->nfinds, sizeof(*an->finds), cmp_rank);
}

/*
 * An event that came before its GPU's first record found no GPU then: put
 * it on the GPU the map names now, in the list and the rates (it had no
 * downtime: there was nothing to be down against yet).
 */
static void late_map(struct analysis *an)
{
	for (size_t i = 0; i < an->nevs; i++) {
		struct an_event *e = &an->evs[i];
		const char *how;
		int gi;
		if (e->gpu >= 0 || !e->pci[0] || (gi = timeline_gpu_of_pci(&an->tl, e->pci, &how)) < 0)
			continue;
		e->gpu = gi;
		e->mapped_by = how;
		if (e->unplaced)
			continue;
		an->gpus[gi].events++;
		if (e->ev == EV_XID && e->klass < KC__COUNT) {
			an->gpus[gi].xids++;
			an->gpus[gi].xid_class[e->klass]++;
			an->host_xid_class[e->klass]--;
		}
	}
}

void analysis_finish(struct analysis *an)
{
	timeline_finish(&an->tl);
	late_map(an);
	for (int gi = 0; gi < an->tl.ngpus; gi++) {
		struct gpu_work *w = an->work[gi];
		struct gpu_stats *g = &an->gpus[gi];
		g->samples = an->tl.gpus[gi].samples;
		g->out_of_order = an->tl.gpus[gi].out_of_order;
		g->nominal_ns = an->tl.gpus[gi].nominal_ns ? an->tl.gpus[gi].nominal_ns :
				an->tl.gpus[gi].ndts ? an->tl.gpus[gi].dts[an->tl.gpus[gi].ndts / 2] : 0;
		g->held_floor_w = g->noctx_floor_w = NAN;
		if (!w) {	/* no interval: no reading (work_new() makes these NAN otherwise) */
			g->power_max_w = g->temp_max_c = g->mem_max_mib = NAN;
			continue;
		}
		drain(an, gi, true);
		close_segment(an, w);
		idle_floors(an, gi);
		trace_join_gpu(an, gi);
		det_finish_gpu(an, gi, an->det[gi]);
	}
	trace_join_rest(an);
	det_finish_all(an);
	det_post_all(an);	/* after every detector, before the ranking */
	sort_segments(an);
	analysis_rank_findings(an);
}

void analysis_release(struct analysis *an)
{
	timeline_release(&an->tl);
	for (int i = 0; i < TL_MAX_GPUS; i++) {
		if (an->work[i]) {
			free(an->work[i]->ring);
			free(an->work[i]->pre);
		}
		free(an->work[i]);
		det_states_free(an->det[i]);
		free(an->gpus[i].min_busy_s);
		free(an->gpus[i].min_cov_s);
		free(an->gpus[i].ser.b);
	}
	det_shared_free(an);
	free(an->segs);
	free(an->klogs);
	free(an->finds);
	free(an->procs);
	hashidx_release(&an->proc_idx);
	hashidx_release(&an->job_idx);
	free(an->job_last);
	an->job_last = NULL;
	an->njob_ids = an->job_last_alloc = an->njobs_indexed = 0;
	ev_time_index_free(an->ev_by_t);
	an->ev_by_t = NULL;
	for (size_t i = 0; i < an->njobs; i++)
		free(an->jobs[i].gpu_busy_s);
	free(an->jobs);
	free(an->jobs_live);
	free(an->evs);
	free(an->outages);
	for (size_t i = 0; i < an->nstrs; i++)
		free(an->strs[i]);
	free(an->strs);
	trace_join_release(an);
}

int analysis_gpu_restore(struct analysis *an, const struct gpu_ident *id)
{
	int n = an->tl.ngpus;

	if (n >= TL_MAX_GPUS)
		return -1;
	an->tl.gpus[n].id = *id;
	an->tl.gpus[n].has_samples = true;
	an->gpus[n].held_floor_w = an->gpus[n].noctx_floor_w = NAN;
	an->gpus[n].power_max_w = an->gpus[n].temp_max_c = an->gpus[n].mem_max_mib = NAN;
	an->tl.ngpus = n + 1;
	return n;
}

struct finding *analysis_finding_restore(struct analysis *an)
{
	struct finding *f;

	ALLOC_GROW(an->finds, an->nfinds + 1, an->finds_alloc);
	f = &an->finds[an->nfinds++];
	memset(f, 0, sizeof(*f));
	return f;
}

struct an_job *analysis_job_restore(struct analysis *an)
{
	struct an_job *j;

	ALLOC_GROW(an->jobs, an->njobs + 1, an->jobs_alloc);
	j = &an->jobs[an->njobs++];
	memset(j, 0, sizeof(*j));
	j->gpuutil_pct = j->gpumem_mib = j->reported_energy_j = NAN;
	return j;
}
