/* SPDX-License-Identifier: MIT */
/*
 * profiler_overhead (article 000's F011, sources.md): the share of a traced
 * span that the profiler spent on itself, its Kineto events of category
 * "overhead" ("Activity Buffer Request", "Buffer Flush") summed over the
 * profiler's own window (the "Trace" event), else over the trace's first
 * to last event.  Above 15 % the timings it gives are distorted (the
 * article: switch to manual CUDA-event timing).  One finding per trace
 * file, on the GPU the trace joined (else the host); the value is the
 * share in %.
 */
#include "analysis/detector.h"

#include <stdio.h>
#include <string.h>

#include "analysis/trace.h"
#include "util/strfmt.h"

#define OVERHEAD_MAX_SHARE 0.15

static int gpu_of_file(const struct analysis *an, const char *path)
{
	for (size_t i = 0; i < an->njoins; i++)
		if (an->joins[i].file == path || !strcmp(an->joins[i].file, path))
			return an->joins[i].gpu;
	return -1;
}

static void overhead_finish_all(struct analysis *an)
{
	const struct trace_an *ta = an->trace;

	if (!ta)
		return;
	for (size_t fi = 0; fi < ta->nfiles; fi++) {
		const struct tr_file *tf = &ta->files[fi];
		const char *base = strrchr(tf->path, '/');
		bool win = tf->win0 != INT64_MIN && tf->win1 > tf->win0;
		int64_t s0 = win ? tf->win0 : tf->t0, s1 = win ? tf->win1 : tf->t1;
		double share;
		struct finding *f;

		if (!tf->noverhead || s1 <= s0)
			continue;
		share = (double)tf->overhead_ns / (double)(s1 - s0);
		if (!(share > OVERHEAD_MAX_SHARE))
			continue;
		f = det_finding(an, FK_PROFILER_OVERHEAD, gpu_of_file(an, tf->path), s0, s1, SEV_WARNING, 100 * share);
		if (!f)
			return;
		fmt_cut(f->message, sizeof(f->message),
			"the profiler spent %.1f %% of %s's traced %.3f s on itself (above 15 %%): its timings are "
			"distorted; time the code with CUDA events instead", 100 * share, base ? base + 1 : tf->path,
			(double)(s1 - s0) / 1e9);
		fmt_cut(f->evidence, sizeof(f->evidence),
			"%llu overhead event%s (Activity Buffer Request, Buffer Flush) for %.3f ms over the %s; "
			"threshold 15 %% (article 000, F011)", (unsigned long long)tf->noverhead,
			tf->noverhead == 1 ? "" : "s", (double)tf->overhead_ns / 1e6,
			win ? "profiler's window" : "trace's first to last event");
	}
}

const struct detector detector_profiler_overhead = {
	.id = "profiler_overhead",
	.summary = "a trace whose profiler overhead events fill more than 15 % of the traced span",
	.finish_all = overhead_finish_all,
};
