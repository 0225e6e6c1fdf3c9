/* SPDX-License-Identifier: MIT */
/*
 * Analysis: from each GPU's intervals to what a report needs: totals,
 * a state for every stretch of time (segments), processes and findings.
 * Streaming: memory grows with the number of GPUs, processes, state changes
 * (capped) and minutes covered, never with the number of samples.
 */
#ifndef ANALYSIS_ANALYSIS_H
#define ANALYSIS_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/model.h"
#include "analysis/trace_join.h"

/*
 * Put the findings in the one order every writer lists them in: severity
 * first (critical, warning, info), then the kinds that always appear, then
 * what they cost (the GPU-seconds a finding covers: a stretch summary's
 * total time, else its duration), then time, GPU, kind and code.
 */
void analysis_rank_findings(struct analysis *an);

void analysis_cfg_default(struct analysis_cfg *cfg);
/* The size in bytes of input src (as analysis_add() named it), once it is
 * read: the kernel error density is per MB of log.  Call before
 * analysis_finish(); an input named twice keeps the larger size. */
void analysis_input_size(struct analysis *an, const char *src, uint64_t bytes);
/* an is large and must start as all zero bytes: allocate it with xcalloc,
 * which hands over pages never touched, rather than put it on the stack. */
void analysis_init(struct analysis *an, const struct analysis_cfg *cfg);
/* Feed one record, in the time order the ingest driver delivers. */
void analysis_add(struct analysis *an, const struct rec *r, const struct batch *b, const char *src);
/* analysis_bad() and analysis_useful_s(): trace_join.h */
/* Flush windows, close segments, run the end-of-run detectors. */
void analysis_finish(struct analysis *an);
void analysis_release(struct analysis *an);


#endif
