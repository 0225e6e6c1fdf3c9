/* SPDX-License-Identifier: MIT */
/*
 * Kernel-level truth from profiler traces (REC_TRACE records): per device
 * the union of kernel intervals across streams, copies, memsets, the GPU's
 * active time, idle time split by whether work was queued, launch latency by
 * correlation id, top kernels, ProfilerStep shares and health checks.
 *
 * Memory: one compact entry per GPU op, runtime call and step (about 56
 * bytes), kernel names interned once; never the trace text.
 */
#ifndef ANALYSIS_TRACE_H
#define ANALYSIS_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/format.h"

#define TRACE_SMALL_KERNEL_NS 10000	/* "small": shorter than 10 us */

struct tr_op {			/* a kernel, memcpy or memset */
	int64_t t0, t1, corr, stream;
	int64_t pid;		/* the process that launched it; -1: the file's one process */
	uint32_t name;		/* interned */
	int32_t dev;
	uint16_t file;
	uint8_t kind;		/* TR_KERNEL, TR_MEMCPY, TR_MEMSET */
};

struct tr_call {		/* a runtime or driver call */
	int64_t t0, t1, corr, pid;
	uint32_t name;
	uint16_t file;
	bool matched;		/* some GPU op carries its correlation id */
};

struct tr_step {
	int64_t t0, t1, n;
	uint16_t file;
};

struct tr_file {
	const char *path;	/* borrowed from the ingest result */
	uint64_t events, used, skipped;
	bool fatal, cut_kept;	/* a fatal error; a cut read with --tolerant */
	char first_bad[200];
	int64_t t0, t1;		/* hull of its records; INT64_MAX/INT64_MIN if none */
	int64_t win0, win1;	/* the profiler's own window, INT64_MIN if none */
	int64_t overhead_ns;	/* the profiler's own events (TR_OVERHEAD), summed */
	uint64_t noverhead;
};

struct tr_kernel_stat {
	uint32_t name;
	uint64_t count;
	int64_t total_ns, p95_ns;
	double mean_ns, cv;	/* cv: over calls after the first; NAN under 3 calls */
};

struct tr_step_stat {
	int64_t n, t0, t1;
	int64_t active_ns;	/* GPU active time inside the step */
	double active_share;	/* of the step's time (NAN: a step of no time) */
};

struct tr_health {
	const char *code;	/* static: "zero_duration", "duration_varies", ... */
	char message[256];
};

struct tr_span {
	int64_t t0, t1;
	size_t op;	/* the op (or, for span pieces, the file) that starts it */
};

struct tr_device {
	int32_t dev;
	uint64_t kernels, memcpys, memsets;
	int64_t span0, span1;		/* first and last instant of the span */
	int64_t span_ns;		/* its length: the union of the files' spans */
	struct tr_span *spans;		/* its pieces */
	size_t nspans;
	int64_t kernel_sum_ns, kernel_union_ns, memcpy_ns, memset_ns, active_ns;
	int64_t idle_ns, host_wait_ns, queued_gap_ns, unmatched_gap_ns;
	uint64_t latency_n;
	int64_t lat_p50_ns, lat_p95_ns;
	double lat_entropy_bits;	/* NAN without latencies */
	double small_share;		/* NAN without kernels */
	double memcpy_per_kernel;	/* NAN without kernels */
	double kernel_union_share, active_share;	/* of the span (NAN: a span of no time) */
	uint64_t zero_kernels;
	struct tr_kernel_stat *top;
	size_t ntop;
	struct tr_step_stat *steps;
	size_t nsteps;
	struct tr_health *health;
	size_t nhealth, health_alloc;
};

struct trace_an {
	struct tr_op *ops;
	size_t nops, ops_alloc;
	struct tr_call *calls;
	size_t ncalls, calls_alloc;
	struct tr_step *steps;
	size_t nsteps, steps_alloc;
	struct tr_file *files;
	size_t nfiles, files_alloc;
	/* interned names */
	char **names;
	size_t nnames, names_alloc;
	uint32_t *name_hash;
	size_t hash_cap;
	/* the cut: absolute, or offsets from the traces' start when *_rel */
	int64_t since, until;
	bool since_rel, until_rel, has_since, has_until;
	int64_t cut0, cut1;	/* resolved; INT64_MIN/INT64_MAX: no cut */
	uint64_t ops_outside, ops_clipped;
	/* results */
	struct tr_device *devs;
	size_t ndevs;
	struct tr_health *health;	/* checks about the inputs, not one device */
	size_t nhealth, health_alloc;
	size_t top_n;
};

void trace_init(struct trace_an *an, size_t top_n);
/* The file index for an input path (added on first use). */
size_t trace_file(struct trace_an *an, const char *path);
void trace_add(struct trace_an *an, size_t file, const struct rec *r, const struct batch *b);
void trace_bad(struct trace_an *an, size_t file, const struct rec *r, const char *msg);
void trace_compute(struct trace_an *an);
const char *trace_name(const struct trace_an *an, uint32_t id);
void trace_release(struct trace_an *an);

/* Entropy in bits of the log2-spaced histogram of latencies (ns), over
 * bins [2^(k-1), 2^k) with everything <= 0 in bin 0.  Exposed for tests. */
double trace_latency_entropy(const int64_t *lat, size_t n);

#endif
