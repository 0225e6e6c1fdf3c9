/* SPDX-License-Identifier: MIT */
/*
 * Profiler traces inside a report: REC_TRACE records are kept (analysis/
 * trace.h), and at the end each trace file's work on each device is joined
 * to a GPU of the report by UUID, else by device index, where the GPU's log
 * covers the trace's time (struct trace_join in analysis.h).
 */
#ifndef ANALYSIS_TRACE_JOIN_H
#define ANALYSIS_TRACE_JOIN_H

#include "analysis/model.h"

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

/* A skipped line of input src (REC_BAD): a trace cut short or unreadable
 * is not joined to a GPU (its figures would be wrong). */
void analysis_bad(struct analysis *an, const struct rec *r, const char *msg, const char *src);

/* The useful seconds of GPU gi for the cost model (one definition of busy,
 * docs/states.md "Busy"): its time in useful states (state_is_useful():
 * compute_bound, memory_bound, throttled), with each joined trace stretch
 * counted by its kernels instead.  *replaced (may be NULL): the useful-state
 * seconds taken out; *from_traces: the kernel seconds put in. */
double analysis_useful_s(const struct analysis *an, int gi, double *replaced, double *from_traces);

/* Lower median of v[0..n) (sorted in place); 0 for n == 0. */
int64_t trace_join_median(int64_t *v, size_t n);

#endif
