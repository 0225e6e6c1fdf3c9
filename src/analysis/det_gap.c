/* SPDX-License-Identifier: MIT */
/* Gaps in a GPU's log: one log_gap finding per run of gap intervals. */
#include "analysis/detector.h"

#include <stdio.h>

#include "util/timeutil.h"

struct gap {
	int64_t t0_ns, t1_ns;
	bool open;
};

static void close_gap(struct analysis *an, int gi, struct gap *w)
{
	struct finding *f;
	char d[32];
	double dur = (double)(w->t1_ns - w->t0_ns) / 1e9;
	int64_t nominal = an->gpus[gi].nominal_ns ? an->gpus[gi].nominal_ns : NS_PER_S;

	if (!w->open)
		return;
	w->open = false;
	f = det_finding(an, "log_gap", gi, w->t0_ns, w->t1_ns, dur >= 3600 ? SEV_WARNING : SEV_INFO, dur);
	if (!f)
		return;
	snprintf(f->message, sizeof(f->message), "no data for GPU %d for %s", gi,
		 time_human_dur(d, sizeof(d), w->t1_ns - w->t0_ns));
	snprintf(f->evidence, sizeof(f->evidence),
		 "no sample for longer than %.1f s (2.5 sample intervals); not counted as idle or covered",
		 (double)timeline_gap_threshold(nominal) / 1e9);
}

static void gap_interval(struct analysis *an, int gi, void *st, const struct ival *iv, int state)
{
	struct gap *w = st;

	(void)state;
	if (iv->kind != IV_GAP)
		return;
	if (w->open && w->t1_ns == iv->t0_ns) {
		w->t1_ns = iv->t1_ns;
	} else {
		close_gap(an, gi, w);
		w->open = true;
		w->t0_ns = iv->t0_ns;
		w->t1_ns = iv->t1_ns;
	}
}

static void gap_finish(struct analysis *an, int gi, void *st)
{
	close_gap(an, gi, st);
}

const struct detector detector_gap = {
	.id = "gap",
	.summary = "stretches with no sample for longer than 2.5 sample intervals",
	.state_size = sizeof(struct gap),
	.interval = gap_interval,
	.interval_kinds = 1u << IV_GAP,
	.finish = gap_finish,
};
