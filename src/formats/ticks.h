/* SPDX-License-Identifier: MIT */
/*
 * Ticks of a log with no time (TK_NONE records): which records share one
 * instant.  The driver (resolve_time, count_ticks) and the aligner (place.c)
 * count ticks the same way through this.
 *
 * Samples (dmon, a headerless query loop): one row per GPU per tick, GPUs in
 * order, so a GPU index that does not grow starts the next tick; rows with
 * no index start it when their GPU (UUID or name) comes a second time.
 * Process rows (pmon, compute-apps): one row per process per GPU per
 * interval, many rows for one GPU at one instant (formats.md 11.6).  A new
 * interval starts where the GPU index falls, where a (GPU, pid) pair comes a
 * second time, or, right after a repeated header, where the pid falls; a
 * header alone does not start one, as pmon repeats it mid-interval (11.7).
 */
#ifndef FORMATS_TICKS_H
#define FORMATS_TICKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/format.h"

struct tick_pair {
	int32_t gpu;
	uint32_t gen;		/* live when it equals tick_seq.gen */
	int64_t pid;		/* a key of the process: its pid, UUID and name hashed */
};

struct tick_seq {
	bool started;
	int32_t last_gpu;
	int64_t last_pid;
	/* (GPU, pid) pairs of the current interval: open addressing, cleared
	 * by bumping gen */
	struct tick_pair *tab;
	size_t cap, live;
	uint32_t gen;
};

void tick_seq_init(struct tick_seq *t);
void tick_seq_release(struct tick_seq *t);
/* r (a REC_SAMPLE or REC_PROC without time, its strings in b) in order: true
 * when it starts a tick. */
bool tick_seq_next(struct tick_seq *t, const struct rec *r, const struct batch *b);

#endif
