/* SPDX-License-Identifier: MIT */
/*
 * Placing logs that carry no time (dmon without -o T/DT, a headerless query
 * loop, a textfile snapshot) by their content: their readings are matched
 * against the readings of timed logs of the same GPU, and the offset that
 * fits is used instead of the file's modification time, which a copy, an
 * unpacked archive or an rsync without -t sets to "now".
 *
 * The ingest driver runs a pre-pass over every input when one of them has
 * no time (driver_prepass.c): each input's samples go into per-GPU series here,
 * downsampled to one bucket per tick, and place_decide() says for each
 * time-less input where its ticks lie, or that it cannot be placed.
 * Memory: one float per metric per bucket, with PL_MAX_BUCKETS per series.
 */
#ifndef FORMATS_PLACE_H
#define FORMATS_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/driver.h"
#include "formats/format.h"
#include "formats/ticks.h"

/* The readings an alignment looks at: power, utilization, memory, SM clock. */
enum { PL_POWER, PL_UTIL, PL_MEM, PL_CLOCK, PL_NM };
#define PL_MAX_BUCKETS (1u << 20)

/* One GPU's readings in one input, one bucket per step. */
struct pl_series {
	int64_t t0_ns;		/* timed: time of bucket 0 (its first sample) */
	int64_t step_ns;	/* bucket width: the time-less log's tick */
	size_t n, alloc;
	float (*v)[PL_NM];	/* NAN where nothing was read */
	uint16_t (*cnt)[PL_NM];	/* samples averaged into each value */
	bool truncated;		/* more than PL_MAX_BUCKETS: the rest was not kept */
};

/* The outcome of aligning a time-less series x with a timed series ref. */
struct pl_fit {
	bool placed;
	int64_t *t_ns;		/* x->n times, owned (NULL unless placed) */
	double r;		/* Pearson correlation along the matched path */
	double r_other;		/* best correlation at any clearly different offset */
	size_t matched;		/* samples of x that met a reading of ref */
	size_t skipped;		/* ticks the path stepped over (rows missing from x) */
	char why[160];		/* when not placed: why not */
};

void pl_series_release(struct pl_series *s);
/* Add one reading (NAN: none) of metric m at bucket i, growing the series. */
void pl_series_add(struct pl_series *s, size_t i, int m, double v);

/*
 * Find where the samples of x (one per tick of x->step_ns, in order, some
 * possibly missing) lie on ref (same step): a coarse cross-correlation over
 * the overlap, then a monotone path through a band around it that lets x
 * skip ticks (rows lost from a log).  Placed only when the fit is good,
 * covers most of x, and no other offset fits nearly as well; a series that
 * barely moves is not placeable.  0 on success (fit filled either way).
 */
int pl_align(const struct pl_series *x, const struct pl_series *ref, struct pl_fit *fit);
void pl_fit_release(struct pl_fit *f);

/* ---- the pre-pass (driver_prepass.c) ----------------------------------------- */

struct pl_gpu_series {
	int32_t index;
	char uuid[96];
	struct pl_series s;
};

struct pl_input {
	bool timeless;		/* has samples with TK_NONE or TK_FILE */
	bool timed;		/* has samples with absolute times */
	int64_t mtime_ns;
	int64_t t_first_ns, t_last_ns;	/* timed: first and last sample */
	uint64_t ticks;		/* time-less: ticks counted as the driver does */
	struct tick_seq tick;	/* the driver's tick rule (ticks.h) */
	struct pl_gpu_series *g;
	size_t ng;
};

/*
 * How well timed series x, moved by shift_ns, matches timed series ref: the
 * mean Pearson r over the metrics that vary in both, on the buckets where
 * both have a reading.  NAN when fewer than 20 pairs or nothing varies.
 * Dates a time-of-day log by the dated log whose readings it repeats.
 */
double pl_corr_shift(const struct pl_series *x, const struct pl_series *ref, int64_t shift_ns);
/* The series of input in's GPU that is g's GPU (index, or uuid when both have one), or NULL. */
const struct pl_series *pl_same_gpu(const struct pl_input *in, const struct pl_gpu_series *g);

struct pl_collect {
	const struct ingest_opts *o;
	struct pl_input *in;	/* one per ingest_result input */
	size_t nin;
};

void pl_collect_init(struct pl_collect *c, const struct ingest_opts *o, size_t ninputs);
/* One record of input i (times already absolute for timed records). */
void pl_collect_rec(struct pl_collect *c, size_t i, const struct rec *r, const struct batch *b);
/*
 * Decide the time of every time-less input of res: fills inputs[i].placed_ns
 * (a time per tick), or sets skip_reason when it must not be counted, and
 * writes what was done into inputs[i].basis.  An input left with neither is
 * placed by the file's modification time (the driver's fallback).
 */
void pl_decide(struct pl_collect *c, struct ingest_result *res);
void pl_collect_release(struct pl_collect *c);

#endif
