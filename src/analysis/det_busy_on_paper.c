/* SPDX-License-Identifier: MIT */
/*
 * busy_on_paper: a profiler trace shows that the kernels filled much less of
 * a stretch than utilization.gpu claims for it.  utilization.gpu counts a
 * sample period as busy when any kernel ran in it; the trace's kernel union
 * is what the GPU did.  Rule (docs/states.md): over a joined trace stretch
 * (analysis.h, struct trace_join), utilization.gpu at least 60 % and the
 * kernels filling less than half of that.  The value is the kernels' share
 * of the stretch in %.
 */
#include "analysis/detector.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/timeutil.h"

#define UTIL_MIN_PCT 60.0

static void bop_finish(struct analysis *an, int gi, void *st)
{
	char nm[48];
	(void)st;
	for (size_t i = 0; i < an->njoins; i++) {
		const struct trace_join *j = &an->joins[i];
		const char *base = strrchr(j->file, '/');
		struct finding *f;
		double fill;
		char t0[32], t1[32];
		if (j->gpu != gi || isnan(j->util_pct) || j->span_s <= 0)
			continue;
		fill = 100 * j->kernel_s / j->span_s;
		if (j->util_pct < UTIL_MIN_PCT || fill >= j->util_pct / 2)
			continue;
		f = det_finding(an, FK_BUSY_ON_PAPER, gi, j->t0_ns, j->t1_ns, SEV_WARNING, fill);
		if (!f)
			return;
		snprintf(f->message, sizeof(f->message),
			 "%s busy on paper: utilization.gpu %.0f %% around %s, but its kernels fill %.1f %% of the %.3f s traced",
			 analysis_gpu_name(an, gi, nm, sizeof(nm)), j->util_pct, base ? base + 1 : j->file, fill, j->span_s);
		snprintf(f->evidence, sizeof(f->evidence),
			 "utilization.gpu %.1f %% over %s..%s (matched by %s and time); kernel union %.6f s of %.6f s; rule: >= 60 %% and kernels under half of it",
			 j->util_pct, time_rfc3339(t0, sizeof(t0), j->w0_ns), time_rfc3339(t1, sizeof(t1), j->w1_ns),
			 j->matched_by, j->kernel_s, j->span_s);
	}
}

const struct detector detector_busy_on_paper = {
	.id = "busy_on_paper",
	.summary = "a traced stretch whose kernels fill less than half of what utilization.gpu claims (60 % or more)",
	.finish = bop_finish,
};
