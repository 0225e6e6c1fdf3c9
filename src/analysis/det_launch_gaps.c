/* SPDX-License-Identifier: MIT */
/*
 * launch_gaps: a profiler trace whose kernels are shorter than the gaps
 * between them: the GPU waits on the host's launches, and more GPU would
 * not help.  Rule (docs/states.md): over a joined trace stretch with at
 * least 100 kernels, the median kernel duration is less than the median gap
 * from a kernel's end to the next kernel's start (0 when they overlap).  The
 * value is the median gap over the median kernel duration.
 */
#include "analysis/detector.h"

#include <stdio.h>
#include <string.h>

#define MIN_KERNELS 100

static void lg_finish(struct analysis *an, int gi, void *st)
{
	char nm[48];
	(void)st;
	for (size_t i = 0; i < an->njoins; i++) {
		const struct trace_join *j = &an->joins[i];
		const char *base = strrchr(j->file, '/');
		struct finding *f;
		double ratio;
		if (j->gpu != gi || j->kernels < MIN_KERNELS || j->kernel_p50_ns >= j->gap_p50_ns)
			continue;
		ratio = j->kernel_p50_ns > 0 ? (double)j->gap_p50_ns / (double)j->kernel_p50_ns : 0;
		f = det_finding(an, FK_TRACE_LAUNCH_BOUND, gi, j->t0_ns, j->t1_ns, SEV_INFO, ratio);
		if (!f)
			return;
		snprintf(f->message, sizeof(f->message),
			 "%s launch-bound in %s: kernels (median %.2f us) are shorter than the gaps between them (median %.2f us)",
			 analysis_gpu_name(an, gi, nm, sizeof(nm)), base ? base + 1 : j->file, j->kernel_p50_ns / 1e3, j->gap_p50_ns / 1e3);
		snprintf(f->evidence, sizeof(f->evidence),
			 "%llu kernels fill %.1f %% of %.3f s (matched by %s and time); rule: >= 100 kernels, median kernel < median gap to the next",
			 (unsigned long long)j->kernels, j->span_s > 0 ? 100 * j->kernel_s / j->span_s : 0.0,
			 j->span_s, j->matched_by);
	}
}

const struct detector detector_launch_gaps = {
	.id = "launch_gaps",
	.summary = "a traced stretch whose kernels are shorter than the gaps between their launches",
	.finish = lg_finish,
};
