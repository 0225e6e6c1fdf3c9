/* SPDX-License-Identifier: MIT */
/*
 * Slow leaks: a trend in memory used, judged over per-minute medians, not
 * over runs of rises (det_leak.c finds the fast ones).
 *
 * Each minute's readings give one median (of at most MIN_CAP readings, the
 * latest), so second-to-second jitter and single spikes drop out.  A fall
 * of the median by more than 256 MiB (far above the jitter of a median) from one
 * minute to the next is a restart: it closes a cycle.  Each cycle keeps at
 * most PTS_CAP points; when full, neighbours are averaged in pairs and later
 * minutes are averaged in groups of the new stride, so memory is bounded
 * whatever the length of the run.
 *
 * A cycle leaks when, over at least 1 hour and 12 points:
 *   - the Theil-Sen slope (median of the pairwise slopes) is positive and
 *     predicts a rise of at least 128 MiB over the cycle;
 *   - a Mann-Kendall test rejects "no trend": z >= 3 (one-sided p < 0.0014);
 *   - the first and the second half each rise at no less than half that
 *     slope (an allocation at the start, or a cache that grows in steps and
 *     then stays, rises in one half only).
 * The slope's 95 % interval comes from the pairwise slopes ranked by the
 * Mann-Kendall variance (Sen 1968).  One leaking cycle is a memory_leak;
 * two or more are one memory_leak_sawtooth with the median per-cycle slope
 * and the restarts between the first and the last of them.
 */
#include "analysis/detector.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/numfmt.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

#define MIN_CAP 128		/* readings kept for one minute's median */
#define PTS_CAP 256		/* points per cycle: pairs are PTS_CAP^2/2 at most */
#define CYC_CAP 64		/* leaking cycles remembered for the sawtooth */
#define FALL_MIB 256.0		/* a fall of the minute median this large is a restart */

struct lt_cycle {
	int64_t t0, t1;
	double slope, ci, full_days;	/* MiB/h, half-width, NAN if unknown */
	double rise;
	double y0, y1;			/* the fitted line at t0 and t1, MiB */
	int npts, stride;
};

struct leak_trend {
	/* the minute being collected */
	int64_t min_idx;
	int64_t m_lo_ns, m_hi_ns, m_of;	/* [lo, hi): the times in minute m_of (no division per interval) */
	bool min_open;
	double mbuf[MIN_CAP];
	uint32_t mn;			/* readings seen this minute */
	double msum_t;			/* sum of their times (s since t_base) */
	/* the previous minute's median, for restarts */
	bool have_prev;
	double prev_med;
	/* the current cycle */
	int64_t t_base, c_t0, c_t1;
	int stride, acc_n;
	double acc_t, acc_v;
	int npts;
	double pt[PTS_CAP], pv[PTS_CAP];	/* hours since t_base, MiB */
	/* cycles */
	int ncycles;			/* closed, leaking or not */
	int nleak, first_leak, last_leak;
	struct lt_cycle leak[CYC_CAP];
};

/*
 * The k-th smallest of v[0..n) (0-based), by quickselect: v is reordered so
 * that v[k] holds it, everything before is <= and everything after >=.
 * Linear on average; a per-minute median runs every minute of every GPU.
 * No NANs reach here (a minute's buffer holds readings only).
 */
static double select_k(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		double pivot = v[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				double t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				if (j-- == 0)
					break;
			}
		}
		if (k <= j && j != (size_t)-1)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return v[k];
}

static double median_of(double *v, size_t n)
{
	double hi = select_k(v, n, n / 2), lo;

	if (n % 2)
		return hi;
	/* even: the lower middle is the largest of what select_k left below */
	lo = v[0];
	for (size_t i = 1; i < n / 2; i++)
		if (v[i] > lo)
			lo = v[i];
	return (lo + hi) / 2;
}

struct ts_fit {
	double slope, lo, hi, z, icept;
};

/* Theil-Sen slope, its 95 % interval and the Mann-Kendall z of n points. */
static void theil_sen(const double *t, const double *v, int n, struct ts_fit *f)
{
	size_t np = (size_t)n * (n - 1) / 2, k = 0;
	double *s = xmalloc(np * sizeof(*s)), *r = xmalloc(n * sizeof(*r));
	double S = 0, var, c;
	long m1, m2;

	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			double dv = v[j] - v[i];

			S += (dv > 0) - (dv < 0);
			s[k++] = dv / (t[j] - t[i]);
		}
	var = (double)n * (n - 1) * (2.0 * n + 5) / 18;
	f->z = S > 0 ? (S - 1) / sqrt(var) : S < 0 ? (S + 1) / sqrt(var) : 0;
	f->slope = median_of(s, np);
	c = 1.96 * sqrt(var);
	m1 = lround(((double)np - c) / 2);
	m2 = lround(((double)np + c) / 2);
	if (m1 < 1)
		m1 = 1;
	if (m2 > (long)np - 1)
		m2 = (long)np - 1;
	f->lo = select_k(s, np, (size_t)(m1 - 1));
	f->hi = select_k(s, np, (size_t)m2);
	for (int i = 0; i < n; i++)
		r[i] = v[i] - f->slope * t[i];
	f->icept = median_of(r, n);
	free(s);
	free(r);
}

static void push_point(struct leak_trend *w, double t_h, double v)
{
	w->acc_t += t_h;
	w->acc_v += v;
	if (++w->acc_n < w->stride)
		return;
	if (w->npts == PTS_CAP) {	/* halve: average neighbours in pairs */
		for (int i = 0; i < PTS_CAP / 2; i++) {
			w->pt[i] = (w->pt[2 * i] + w->pt[2 * i + 1]) / 2;
			w->pv[i] = (w->pv[2 * i] + w->pv[2 * i + 1]) / 2;
		}
		w->npts = PTS_CAP / 2;
		w->stride *= 2;
		if (w->acc_n < w->stride)
			return;
	}
	w->pt[w->npts] = w->acc_t / w->acc_n;
	w->pv[w->npts] = w->acc_v / w->acc_n;
	w->npts++;
	w->acc_t = w->acc_v = 0;
	w->acc_n = 0;
}

/* Judge the cycle collected so far and start a new one. */
static void close_cycle(struct analysis *an, int gi, struct leak_trend *w)
{
	struct gpu_stats *g = &an->gpus[gi];
	struct ts_fit all, h1, h2;
	double span_h;
	int n = w->npts, h = n / 2;
	struct lt_cycle *c;

	if (w->acc_n > 0 && n < PTS_CAP) {	/* the last, partial group counts */
		w->pt[n] = w->acc_t / w->acc_n;
		w->pv[n] = w->acc_v / w->acc_n;
		n++;
		h = n / 2;
	}
	span_h = (double)(w->c_t1 - w->c_t0) / 3.6e12;
	w->ncycles++;
	if (n < 12 || span_h < 1)
		goto reset;
	theil_sen(w->pt, w->pv, n, &all);
	if (all.slope <= 0 || all.z < 3 || all.slope * span_h < 128)
		goto reset;
	theil_sen(w->pt, w->pv, h, &h1);
	theil_sen(w->pt + h, w->pv + h, n - h, &h2);
	if (h1.slope < all.slope / 2 || h2.slope < all.slope / 2)
		goto reset;
	if (w->nleak == 0)
		w->first_leak = w->ncycles;
	w->last_leak = w->ncycles;
	c = &w->leak[w->nleak < CYC_CAP ? w->nleak : CYC_CAP - 1];
	w->nleak++;
	c->t0 = w->c_t0;
	c->t1 = w->c_t1;
	c->slope = all.slope;
	c->ci = (all.hi - all.lo) / 2;
	c->rise = all.slope * span_h;
	c->npts = n;
	c->stride = w->stride;
	c->y0 = all.icept + all.slope * ((double)(w->c_t0 - w->t_base) / 3.6e12);
	c->y1 = all.icept + all.slope * ((double)(w->c_t1 - w->t_base) / 3.6e12);
	c->full_days = NAN;
	if (g->mem_total_mib > 0) {
		double now = all.icept + all.slope * ((double)(w->c_t1 - w->t_base) / 3.6e12);

		c->full_days = now >= g->mem_total_mib ? 0 : (g->mem_total_mib - now) / all.slope / 24;
	}
reset:
	w->npts = 0;
	w->stride = 1;
	w->acc_n = 0;
	w->acc_t = w->acc_v = 0;
	w->c_t0 = 0;
}

/* One minute's median becomes a point of the cycle (or starts a new cycle). */
static void close_minute(struct analysis *an, int gi, struct leak_trend *w)
{
	uint32_t n = w->mn < MIN_CAP ? w->mn : MIN_CAP;
	double med = median_of(w->mbuf, n);
	double t_h = w->msum_t / w->mn / 3600;

	if (w->have_prev && med < w->prev_med - FALL_MIB && w->c_t0)
		close_cycle(an, gi, w);
	w->have_prev = true;
	w->prev_med = med;
	push_point(w, t_h, med);
	w->min_open = false;
	w->mn = 0;
	w->msum_t = 0;
}

static void lt_interval(struct analysis *an, int gi, void *st, const struct ival *iv, int state)
{
	struct leak_trend *w = st;
	int64_t t = iv->t0_ns, m;

	(void)state;
	if (iv->kind != IV_DATA || !(iv->present & (1u << M_MEM_USED)) || !isfinite(iv->v[M_MEM_USED]))
		return;
	if (t >= w->m_lo_ns && t < w->m_hi_ns) {
		m = w->m_of;
	} else {
		m = t / (60 * NS_PER_S);
		if (t >= 0) {	/* the division truncates: a floor from 0 on */
			w->m_of = m;
			w->m_lo_ns = m * 60 * NS_PER_S;
			w->m_hi_ns = w->m_lo_ns + 60 * NS_PER_S;
		}
	}
	if (!w->t_base) {
		w->t_base = t;
		w->stride = 1;
	}
	if (w->min_open && m != w->min_idx)
		close_minute(an, gi, w);
	if (!w->c_t0)
		w->c_t0 = t;
	w->c_t1 = t;
	w->min_open = true;
	w->min_idx = m;
	w->mbuf[w->mn % MIN_CAP] = iv->v[M_MEM_USED];
	w->mn++;
	w->msum_t += (double)(t - w->t_base) / 1e9;
}

static void full_text(char *buf, size_t n, double days)
{
	if (isnan(days))
		snprintf(buf, n, "the GPU's memory total is unknown, so not when it fills");
	else if (days == 0)
		snprintf(buf, n, "the GPU's memory is already full at this rate");
	else
		snprintf(buf, n, "at this rate the GPU's memory is full in %.1f days", days);
}

static void lt_finish(struct analysis *an, int gi, void *st)
{
	char nm[48];
	struct leak_trend *w = st;
	struct finding *f;
	char full[80], rate[32];

	if (w->min_open)
		close_minute(an, gi, w);
	if (w->c_t0)
		close_cycle(an, gi, w);
	if (w->nleak == 1) {
		struct lt_cycle *c = &w->leak[0];
		double h = (double)(c->t1 - c->t0) / 3.6e12;

		f = det_finding(an, FK_MEMORY_LEAK, gi, c->t0, c->t1, SEV_WARNING, c->slope);
		if (!f)
			return;
		det_leak_fit(f, an->gpus[gi].mem_total_mib, c->y0, c->y1);
		full_text(full, sizeof(full), c->full_days);
		snprintf(f->message, sizeof(f->message),
			 "%s memory used creeps up %s (+/- %.3g MiB/h) over %.1f h: %s",
			 analysis_gpu_name(an, gi, nm, sizeof(nm)), nf_mib_rate(rate, sizeof(rate), c->slope), c->ci, h, full);
		snprintf(f->evidence, sizeof(f->evidence),
			 "Theil-Sen slope of %d points (per-minute medians, averaged by %d), 95%% interval "
			 "+/- %.3g MiB/h, rise %.0f MiB, Mann-Kendall z >= 3, both halves rising",
			 c->npts, c->stride, c->ci, c->rise);
	} else if (w->nleak >= 2) {
		int n = w->nleak < CYC_CAP ? w->nleak : CYC_CAP;
		double s[CYC_CAP], lo = INFINITY, hi = -INFINITY, slope;
		int restarts = w->last_leak - w->first_leak;

		for (int i = 0; i < n; i++) {
			s[i] = w->leak[i].slope;
			lo = fmin(lo, s[i]);
			hi = fmax(hi, s[i]);
		}
		slope = median_of(s, n);
		f = det_finding(an, FK_MEMORY_LEAK_SAWTOOTH, gi, w->leak[0].t0, w->leak[n - 1].t1,
				SEV_WARNING, slope);
		if (!f)
			return;
		snprintf(f->message, sizeof(f->message),
			 "%s memory leaks %s per cycle and the process was restarted %d times",
			 analysis_gpu_name(an, gi, nm, sizeof(nm)), nf_mib_rate(rate, sizeof(rate), slope), restarts);
		snprintf(f->evidence, sizeof(f->evidence),
			 "%d cycles each with a significant Theil-Sen slope (%.1f to %.1f MiB/h), "
			 "each ended by a fall of the per-minute median beyond 256 MiB",
			 w->nleak, lo, hi);
	}
}

const struct detector detector_leak_trend = {
	.id = "leak_trend",
	.summary = "memory used creeping up over hours, alone or in restart cycles (a slow leak)",
	.state_size = sizeof(struct leak_trend),
	.interval = lt_interval,
	.interval_kinds = 1u << IV_DATA,
	.finish = lt_finish,
};
