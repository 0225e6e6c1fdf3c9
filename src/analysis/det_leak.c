/* SPDX-License-Identifier: MIT */
/*
 * Fast leaks: a run of rising memory used, with no fall beyond a small
 * tolerance and no pause longer than 10 s, that rises by at least 512 MiB
 * (or 2 % of the GPU's memory) over 10 s or more in 5 or more rises.
 * A rise, like a fall, must exceed the tolerance max(64 MiB, 0.5 %): jitter
 * on a plateau reached in a few seconds sets new highs now and then, and
 * those are not a leak.  Slow leaks are det_leak_trend.c's.
 */
#include "analysis/detector.h"

#include <stdio.h>

#include "util/numfmt.h"
#include "util/timeutil.h"

struct leak {
	bool open;
	int64_t t0, last_up, t_last;
	double m0, mlast;
	int ups;
};

static void leak_eval(struct analysis *an, int gi, struct leak *w)
{
	struct gpu_stats *g = &an->gpus[gi];
	double dur_s = (double)(w->last_up - w->t0) / 1e9;
	double rise = w->mlast - w->m0;
	double min_rise = 512;
	struct finding *f;
	char sz[32], rate[32];

	w->open = false;
	if (g->mem_total_mib > 0 && g->mem_total_mib * 0.02 > min_rise)
		min_rise = g->mem_total_mib * 0.02;
	if (dur_s < 10 || w->ups < 5 || rise < min_rise)
		return;
	f = det_finding(an, "memory_leak", gi, w->t0, w->last_up, SEV_WARNING, rise / (dur_s / 3600));
	if (!f)
		return;
	det_leak_fit(f, g->mem_total_mib, w->m0, w->mlast);
	snprintf(f->message, sizeof(f->message),
		 "GPU %d memory rose steadily by %s in %.0f s (%s): a leak or an unbounded cache",
		 gi, nf_mib(sz, sizeof(sz), rise), dur_s, nf_mib_rate(rate, sizeof(rate), rise / (dur_s / 3600)));
	snprintf(f->evidence, sizeof(f->evidence),
		 "memory used %.0f -> %.0f MiB in %d rises, no fall and no pause longer than 10 s",
		 w->m0, w->mlast, w->ups);
}

static void leak_restart(struct leak *w, int64_t t, double mem)
{
	w->open = true;
	w->t0 = w->last_up = t;
	w->m0 = w->mlast = mem;
	w->ups = 0;
}

static void leak_interval(struct analysis *an, int gi, void *st, const struct ival *iv, int state)
{
	struct leak *w = st;
	int64_t t = iv->t0_ns, pause = 10 * NS_PER_S;
	double mem, tol;

	(void)state;
	if (iv->kind != IV_DATA || !(iv->present & (1u << M_MEM_USED)))
		return;
	mem = iv->v[M_MEM_USED];
	tol = mem * 0.005 > 64 ? mem * 0.005 : 64;
	if (!w->open) {
		leak_restart(w, t, mem);
		w->t_last = t;
		return;
	}
	if (mem > w->mlast + tol) {
		if (w->ups > 0 && t - w->last_up > pause) {
			leak_eval(an, gi, w);
			leak_restart(w, w->t_last, w->mlast);
		} else if (w->ups == 0) {
			w->t0 = w->t_last;
		}
		w->ups++;
		w->last_up = t;
		w->mlast = mem;
	} else if (mem < w->mlast - tol || (w->ups > 0 && t - w->last_up > pause)) {
		leak_eval(an, gi, w);
		leak_restart(w, t, mem);
	}
	w->t_last = t;
}

static void leak_finish(struct analysis *an, int gi, void *st)
{
	struct leak *w = st;

	if (w->open)
		leak_eval(an, gi, w);
}

const struct detector detector_leak = {
	.id = "leak",
	.summary = "memory used rising fast and without a pause (a leak or an unbounded cache)",
	.state_size = sizeof(struct leak),
	.interval = leak_interval,
	.interval_kinds = 1u << IV_DATA,
	.finish = leak_finish,
};
