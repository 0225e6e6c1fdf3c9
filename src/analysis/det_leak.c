/* SPDX-License-Identifier: MIT */
/*
 * Fast leaks: a run of rising memory used, with no fall beyond a small
 * tolerance and no pause longer than 10 s, that rises by at least 512 MiB
 * (or 2 % of the GPU's memory) over 10 s or more in 5 or more rises.
 * A rise, like a fall, must exceed the tolerance max(64 MiB, 0.5 %): jitter
 * on a plateau reached in a few seconds sets new highs now and then, and
 * those are not a leak.
 *
 * What follows the rise decides (docs/states.md): a rise that ends in a
 * plateau is an allocation (a model loaded, a cache filled) when the plateau
 * lasts at least as long as the rise, or when memory then falls back; a rise
 * that goes on after a shorter plateau is the same rise.  A leak is memory
 * still rising at the end of the data, cut off by a release while still
 * rising (no plateau: the process was stopped or freed it mid-climb), or
 * reaching the GPU's memory total.  Slow leaks are det_leak_trend.c's.
 */
#include "analysis/detector.h"

#include <stdio.h>

#include "util/numfmt.h"
#include "util/timeutil.h"

struct leak_run {
	int64_t t0, last_up;
	double m0, mlast;
	int ups;
};

struct leak {
	bool open;
	struct leak_run r;	/* the run being followed */
	int64_t t_last;
	bool pend;		/* p: a rise big enough, now on a plateau: what follows decides */
	struct leak_run p;
};

#define LEAK_PAUSE_NS (10 * NS_PER_S)

static bool big_enough(const struct analysis *an, int gi, const struct leak_run *r)
{
	const struct gpu_stats *g = &an->gpus[gi];
	double min_rise = 512;

	if (g->mem_total_mib > 0 && g->mem_total_mib * 0.02 > min_rise)
		min_rise = g->mem_total_mib * 0.02;
	return (double)(r->last_up - r->t0) / 1e9 >= 10 && r->ups >= 5 && r->mlast - r->m0 >= min_rise;
}

/* at or within 2 % of the GPU's memory total (unknown: never) */
static bool at_total(const struct analysis *an, int gi, const struct leak_run *r)
{
	double total = an->gpus[gi].mem_total_mib;
	return total > 0 && r->mlast >= 0.98 * total;
}

static void leak_emit(struct analysis *an, int gi, const struct leak_run *r, const char *then)
{
	struct gpu_stats *g = &an->gpus[gi];
	double dur_s = (double)(r->last_up - r->t0) / 1e9;
	double rise = r->mlast - r->m0;
	struct finding *f;
	char nm[48], sz[32], rate[32];

	f = det_finding(an, FK_MEMORY_LEAK, gi, r->t0, r->last_up, SEV_WARNING, rise / (dur_s / 3600));
	if (!f)
		return;
	det_leak_fit(f, g->mem_total_mib, r->m0, r->mlast);
	snprintf(f->message, sizeof(f->message),
		 "%s memory rose steadily by %s in %.0f s (%s): a leak or an unbounded cache",
		 analysis_gpu_name(an, gi, nm, sizeof(nm)), nf_mib(sz, sizeof(sz), rise), dur_s,
		 nf_mib_rate(rate, sizeof(rate), rise / (dur_s / 3600)));
	snprintf(f->evidence, sizeof(f->evidence),
		 "memory used %.0f -> %.0f MiB in %d rises, no fall and no pause longer than 10 s; %s",
		 r->m0, r->mlast, r->ups, then);
}

/* The run ended at t: by a fall (fell), else by a pause with no rise. */
static void run_end(struct analysis *an, int gi, struct leak *w, int64_t t, bool fell)
{
	w->open = false;
	if (w->r.ups == 0 || !big_enough(an, gi, &w->r))
		return;
	if (at_total(an, gi, &w->r))
		leak_emit(an, gi, &w->r, "it reached the GPU's memory total");
	else if (fell && t - w->r.last_up <= LEAK_PAUSE_NS)
		leak_emit(an, gi, &w->r, "then released while still rising, with no plateau");
	else if (!fell) {
		w->pend = true;	/* a plateau: an allocation, unless the rise goes on */
		w->p = w->r;
	}
}

static void leak_restart(struct leak *w, int64_t t, double mem)
{
	w->open = true;
	w->r.t0 = w->r.last_up = t;
	w->r.m0 = w->r.mlast = mem;
	w->r.ups = 0;
}

static void leak_interval(struct analysis *an, int gi, void *st, const struct ival *iv, int state)
{
	struct leak *w = st;
	int64_t t = iv->t0_ns;
	double mem, tol;

	(void)state;
	if (iv->kind != IV_DATA || !(iv->present & (1u << M_MEM_USED)))
		return;
	mem = iv->v[M_MEM_USED];
	tol = mem * 0.005 > 64 ? mem * 0.005 : 64;
	if (w->pend) {
		int64_t plateau = t - w->p.last_up, rise = w->p.last_up - w->p.t0;
		if (mem < w->p.mlast - tol) {
			w->pend = false;	/* held, then freed: an allocation */
			leak_restart(w, t, mem);
			w->t_last = t;
			return;
		}
		if (plateau < rise && mem > w->p.mlast + tol) {
			w->pend = false;	/* it rises on: the same rise */
			w->open = true;
			w->r = w->p;
			w->r.ups++;
			w->r.last_up = t;
			w->r.mlast = mem;
			w->t_last = t;
			return;
		}
		if (plateau < rise) {
			w->t_last = t;
			return;
		}
		w->pend = false;	/* a plateau as long as the rise: an allocation */
		leak_restart(w, t, mem);
		w->t_last = t;
		return;
	}
	if (!w->open) {
		leak_restart(w, t, mem);
		w->t_last = t;
		return;
	}
	if (mem > w->r.mlast + tol) {
		if (w->r.ups > 0 && t - w->r.last_up > LEAK_PAUSE_NS) {
			double m = w->r.mlast;
			run_end(an, gi, w, t, false);
			if (w->pend) {
				/* the pause ended in a rise: judged as the plateau's end */
				w->t_last = t;
				leak_interval(an, gi, st, iv, state);
				return;
			}
			leak_restart(w, w->t_last, m);
		} else if (w->r.ups == 0) {
			w->r.t0 = w->t_last;
		}
		w->r.ups++;
		w->r.last_up = t;
		w->r.mlast = mem;
	} else if (mem < w->r.mlast - tol) {
		run_end(an, gi, w, t, true);
		leak_restart(w, t, mem);
	} else if (w->r.ups > 0 && t - w->r.last_up > LEAK_PAUSE_NS) {
		run_end(an, gi, w, t, false);
		if (!w->pend)
			leak_restart(w, t, mem);
	}
	w->t_last = t;
}

static void leak_finish(struct analysis *an, int gi, void *st)
{
	struct leak *w = st;

	if (w->pend) {
		/* on a plateau shorter than the rise at the end: not rising */
		if (at_total(an, gi, &w->p))
			leak_emit(an, gi, &w->p, "it reached the GPU's memory total");
		return;
	}
	if (!w->open || w->r.ups == 0 || !big_enough(an, gi, &w->r))
		return;
	if (at_total(an, gi, &w->r))
		leak_emit(an, gi, &w->r, "it reached the GPU's memory total");
	else if (w->t_last - w->r.last_up <= LEAK_PAUSE_NS)
		leak_emit(an, gi, &w->r, "still rising at the end of the data");
}

const struct detector detector_leak = {
	.id = "leak",
	.summary = "memory used rising fast and without a pause, and not an allocation that then holds or falls back",
	.state_size = sizeof(struct leak),
	.interval = leak_interval,
	.interval_kinds = 1u << IV_DATA,
	.finish = leak_finish,
};
