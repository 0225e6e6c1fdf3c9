/* SPDX-License-Identifier: MIT */
/*
 * thermal_util_decay (article 000's F001, sources.md): utilization falling
 * by more than 15 % within 5 s, (U(t-5s) - U(t)) / U(t-5s), while the GPU
 * is hot, read as thermal throttling even when no reason bit says so.
 * Conservative, so that a phase change is no finding (docs/states.md):
 *   - busy before: U(t-5s) at least 50 %; still working after: U(t) at
 *     least 10 % and memory used not down by more than 10 % (a job that
 *     ends or frees its memory is not throttled);
 *   - hot: temperature above 78 C, or up by at least 5 C over the 5 s;
 *   - no drop in work: power held (at least 0.8 x its value 5 s before) or
 *     the SM clock down by at least 5 %.
 * One finding per GPU; its value is the largest decay in %.
 */
#include "analysis/detector.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/strfmt.h"
#include "util/timeutil.h"

#define DECAY_WINDOW_NS (5 * NS_PER_S)
#define DECAY_MIN 0.15
#define DECAY_BUSY_PCT 50.0
#define DECAY_STILL_PCT 10.0
#define DECAY_HOT_C 78.0
#define DECAY_RISE_C 5.0
#define DECAY_RING 64

struct reading {
	int64_t t_ns;
	double util, temp, power, clock, mem;	/* NAN: not read */
};

struct decay_st {
	struct reading ring[DECAY_RING];
	unsigned head, n;		/* the newest at head - 1 */
	/* the open stretch and the sums over every stretch */
	bool open;
	int64_t s0_ns, s1_ns, t0_ns, t1_ns;
	uint64_t nstretch;
	double total_s, worst, u_before, u_after, temp, clk_before, clk_after;
};

static double val(const struct ival *iv, int m)
{
	return (iv->present & (1u << m)) ? iv->v[m] : NAN;
}

/* The reading in force at t: the newest with t_ns <= t, or NULL. */
static const struct reading *at(const struct decay_st *s, int64_t t)
{
	for (unsigned k = 1; k <= s->n; k++) {
		const struct reading *r = &s->ring[(s->head + DECAY_RING - k) % DECAY_RING];
		if (r->t_ns <= t)
			return r;
	}
	return NULL;
}

static void close_run(struct decay_st *s)
{
	if (!s->open)
		return;
	s->open = false;
	s->nstretch++;
	s->total_s += (double)(s->s1_ns - s->s0_ns) / 1e9;
}

/* Does the reading now show thermal decay against p, 5 s before? */
static bool decayed(const struct reading *p, const struct reading *r, double *decay)
{
	bool hot, held;

	if (isnan(p->util) || isnan(r->util) || p->util < DECAY_BUSY_PCT || r->util < DECAY_STILL_PCT)
		return false;
	*decay = (p->util - r->util) / p->util;
	if (!(*decay > DECAY_MIN))
		return false;
	if (!isnan(p->mem) && !isnan(r->mem) && r->mem < 0.9 * p->mem)
		return false;
	hot = !isnan(r->temp) && (r->temp > DECAY_HOT_C || (!isnan(p->temp) && r->temp - p->temp >= DECAY_RISE_C));
	if (!hot)
		return false;
	held = (!isnan(p->power) && !isnan(r->power) && r->power >= 0.8 * p->power) ||
	       (!isnan(p->clock) && !isnan(r->clock) && r->clock <= 0.95 * p->clock);
	return held;
}

static void decay_interval(struct analysis *an, int gi, void *st, const struct ival *iv, int state)
{
	struct decay_st *s = st;
	struct reading r = { iv->t0_ns, val(iv, M_UTIL_GPU), val(iv, M_TEMP), val(iv, M_POWER),
			     val(iv, M_SM_CLOCK), val(iv, M_MEM_USED) };
	const struct reading *p;
	double d = 0;

	(void)an;
	(void)gi;
	if (iv->kind != IV_DATA || state == ST_DOWN) {
		close_run(s);
		s->n = 0;	/* nothing is compared across a gap or an outage */
		return;
	}
	p = at(s, iv->t0_ns - DECAY_WINDOW_NS);
	if (p && iv->t0_ns - p->t_ns <= 2 * DECAY_WINDOW_NS && decayed(p, &r, &d)) {
		if (s->open && s->s1_ns != iv->t0_ns)
			close_run(s);
		if (!s->open) {
			s->open = true;
			s->s0_ns = iv->t0_ns;
			if (!s->nstretch)
				s->t0_ns = iv->t0_ns;
		}
		s->s1_ns = s->t1_ns = iv->t1_ns;
		if (d > s->worst) {
			s->worst = d;
			s->u_before = p->util;
			s->u_after = r.util;
			s->temp = r.temp;
			s->clk_before = p->clock;
			s->clk_after = r.clock;
		}
	} else {
		close_run(s);
	}
	s->ring[s->head] = r;
	s->head = (s->head + 1) % DECAY_RING;
	if (s->n < DECAY_RING)
		s->n++;
}

static void decay_finish(struct analysis *an, int gi, void *st)
{
	struct decay_st *s = st;
	char name[48], d[32], clk[64] = "";
	struct finding *f;

	close_run(s);
	if (!s->nstretch)
		return;
	f = det_finding(an, FK_THERMAL_UTIL_DECAY, gi, s->t0_ns, s->t1_ns, s->total_s >= 60 ? SEV_WARNING : SEV_INFO,
			100 * s->worst);
	if (!f)
		return;
	f->total_s = s->total_s;
	analysis_gpu_name(an, gi, name, sizeof(name));
	time_human_dur(d, sizeof(d), (int64_t)(s->total_s * 1e9 + 0.5));
	if (!isnan(s->clk_before) && !isnan(s->clk_after))
		snprintf(clk, sizeof(clk), ", the SM clock %.0f -> %.0f MHz", s->clk_before, s->clk_after);
	fmt_cut(f->message, sizeof(f->message),
		"%s's utilization fell %.0f %% within 5 s while hot (%.0f -> %.0f %% at %.0f C%s): thermal "
		"throttling without reason bits, %llu %s, %s in all", name, 100 * s->worst, s->u_before, s->u_after,
		s->temp, clk, (unsigned long long)s->nstretch, s->nstretch == 1 ? "stretch" : "stretches", d);
	fmt_cut(f->evidence, sizeof(f->evidence),
		"(U(t-5s) - U(t)) / U(t-5s) above 15 %% (article 000, F001) with U(t-5s) >= 50 %%, U(t) >= 10 %%, "
		"memory held, above 78 C or up 5 C in the 5 s, and power held (>= 0.8 x) or the clock down 5 %%");
}

const struct detector detector_util_decay = {
	.id = "util_decay",
	.summary = "utilization falling more than 15 % within 5 s on a hot GPU with the work still there: thermal throttling without reason bits",
	.state_size = sizeof(struct decay_st),
	.interval = decay_interval,
	.finish = decay_finish,
};
