/* SPDX-License-Identifier: MIT */
/* Gaps in a GPU's log: one log_gap finding per run of gap intervals. */
#include "analysis/detector.h"

#include <stdio.h>

#include "util/timeutil.h"

struct gap {
	int64_t t0_ns, t1_ns;
	bool open;
	struct gather g;	/* every gap of the GPU: one finding */
};

static void close_gap(struct analysis *an, int gi, struct gap *w)
{
	double dur = (double)(w->t1_ns - w->t0_ns) / 1e9;

	if (!w->open)
		return;
	w->open = false;
	det_gather_add(an, gi, &w->g, w->t0_ns, w->t1_ns, NAN, 0, 0, dur >= 3600 ? SEV_WARNING : SEV_INFO, true);
}

static void gap_interval(struct analysis *an, int gi, void *st, const struct ival *iv, int state)
{
	struct gap *w = st;

	(void)state;
	if (iv->kind != IV_GAP) {
		/* closed at once: its cause is looked up while the healthy time
		 * before it is still remembered (det_cause) */
		close_gap(an, gi, w);
		return;
	}
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
	struct gap *w = st;
	struct finding *f;
	char name[48], d[32], lon[32];
	int64_t nominal = an->gpus[gi].nominal_ns ? an->gpus[gi].nominal_ns : NS_PER_S;

	close_gap(an, gi, w);
	if (!(f = det_gather_emit(an, gi, &w->g, FK_LOG_GAP)))
		return;
	analysis_gpu_name(an, gi, name, sizeof(name));
	time_human_dur(d, sizeof(d), (int64_t)(w->g.total_s * 1e9));
	if (w->g.n == 1)
		snprintf(f->message, sizeof(f->message), "no data for %s for %s", name, d);
	else
		snprintf(f->message, sizeof(f->message), "no data for %s in %llu gaps, %s in all (the longest %s)", name,
			 (unsigned long long)w->g.n, d, time_human_dur(lon, sizeof(lon), w->g.longest_ns));
	snprintf(f->evidence, sizeof(f->evidence),
		 "no sample for longer than %.1f s (2.5 sample intervals); not counted as idle or covered",
		 (double)timeline_gap_threshold(nominal) / 1e9);
	det_gather_cause(f, &w->g);
}

const struct detector detector_gap = {
	.id = "gap",
	.summary = "stretches with no sample for longer than 2.5 sample intervals, one finding per GPU",
	.state_size = sizeof(struct gap),
	.interval = gap_interval,
	.finish = gap_finish,
};
