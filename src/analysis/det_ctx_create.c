/* SPDX-License-Identifier: MIT */
/*
 * ctx_create_slow (article 000's F006, sources.md): CUDA context creation
 * time from profiler traces, the driver calls cuCtxCreate* and
 * cuDevicePrimaryCtxRetain (an Nsight Systems export's CUPTI runtime
 * table, a Kineto trace's cuda_driver events).  Their mean duration above
 * 15 ms says the driver builds contexts instead of reusing them.  One
 * finding per trace file, on the GPU the trace joined (else the host);
 * the value is the mean in ms.
 */
#include "analysis/detector.h"

#include <stdio.h>
#include <string.h>

#include "analysis/trace.h"
#include "util/strfmt.h"

#define CTX_MEAN_MAX_NS 15000000	/* 15 ms */

static bool is_ctx_create(const char *name)
{
	return !strncmp(name, "cuCtxCreate", 11) || !strncmp(name, "cuDevicePrimaryCtxRetain", 24);
}

static int gpu_of_file(const struct analysis *an, const char *path)
{
	for (size_t i = 0; i < an->njoins; i++)
		if (an->joins[i].file == path || !strcmp(an->joins[i].file, path))
			return an->joins[i].gpu;
	return -1;
}

static void ctx_finish_all(struct analysis *an)
{
	const struct trace_an *ta = an->trace;

	if (!ta)
		return;
	for (size_t fi = 0; fi < ta->nfiles; fi++) {
		const char *path = ta->files[fi].path, *base = strrchr(path, '/');
		int64_t sum = 0, max = 0, t0 = 0, t1 = 0;
		uint64_t n = 0;
		struct finding *f;
		double mean_ms;

		for (size_t i = 0; i < ta->ncalls; i++) {
			const struct tr_call *c = &ta->calls[i];
			int64_t d = c->t1 - c->t0;
			if (c->file != fi || !is_ctx_create(trace_name(ta, c->name)))
				continue;
			if (!n || c->t0 < t0)
				t0 = c->t0;
			if (!n || c->t1 > t1)
				t1 = c->t1;
			n++;
			sum += d;
			if (d > max)
				max = d;
		}
		if (!n || sum <= (int64_t)n * CTX_MEAN_MAX_NS)
			continue;
		mean_ms = (double)sum / (double)n / 1e6;
		f = det_finding(an, FK_CTX_CREATE_SLOW, gpu_of_file(an, path), t0, t1, SEV_WARNING, mean_ms);
		if (!f)
			return;
		fmt_cut(f->message, sizeof(f->message),
			"CUDA context creation took %.1f ms on average in %s (%llu call%s, the longest %.1f ms; "
			"above 15 ms: contexts are built, not reused)", mean_ms, base ? base + 1 : path,
			(unsigned long long)n, n == 1 ? "" : "s", (double)max / 1e6);
		fmt_cut(f->evidence, sizeof(f->evidence),
			"cuCtxCreate* and cuDevicePrimaryCtxRetain calls in the trace, %.3f ms in all; "
			"threshold a mean of 15 ms (article 000, F006)", (double)sum / 1e6);
	}
}

const struct detector detector_ctx_create = {
	.id = "ctx_create",
	.summary = "CUDA context creation (cuCtxCreate, cuDevicePrimaryCtxRetain in a trace) above 15 ms on average",
	.finish_all = ctx_finish_all,
};
