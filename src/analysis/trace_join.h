/* SPDX-License-Identifier: MIT */
/*
 * Profiler traces inside a report: REC_TRACE records are kept (analysis/
 * trace.h), and at the end each trace file's work on each device is joined
 * to a GPU of the report by UUID, else by device index, where the GPU's log
 * covers the trace's time (struct trace_join in analysis.h).
 */
#ifndef ANALYSIS_TRACE_JOIN_H
#define ANALYSIS_TRACE_JOIN_H

#include "analysis/analysis.h"

struct trace_uuid {		/* the GPU a trace names for one of its devices */
	const char *file;
	int32_t device;
	char uuid[96];
};

void trace_join_add(struct analysis *an, const struct rec *r, const struct batch *b, const char *src);
/* The joins of GPU gi; its display series must be final. */
void trace_join_gpu(struct analysis *an, int gi);
/* The trace devices no GPU took. */
void trace_join_rest(struct analysis *an);
void trace_join_release(struct analysis *an);

/* Lower median of v[0..n) (sorted in place); 0 for n == 0. */
int64_t trace_join_median(int64_t *v, size_t n);

#endif
