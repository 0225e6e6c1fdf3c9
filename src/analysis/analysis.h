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

/*
 * Building blocks shared by the analysis and an analysis restored from a
 * store's rollups (store/query.c), so that both count, bound and lay out
 * what they keep the same way.  Each returns a zeroed slot that the caller
 * fills, or NULL when the bounded list is full (the drop is counted).
 */
/* Minute m (from g->min_base_ns) and those before it exist, zeroed when new. */
void gpu_minute_grow(struct gpu_stats *g, size_t m);
/* A GPU of the rollups, after those already there: its index, -1 when full. */
int analysis_gpu_restore(struct analysis *an, const struct gpu_ident *id);
/* The counts an event adds on a GPU (gi >= 0) or the host: events, Xids by class. */
void analysis_event_count(struct analysis *an, int gi, int ev, int klass);
/* A slot in the event list (at most cfg.max_events; evs_dropped counts the rest). */
struct an_event *analysis_event_new(struct analysis *an);
/* An outage of GPU gi, added to its time down; listed while fewer than 10000 (ev, code -1). */
struct outage *analysis_outage_new(struct analysis *an, int gi, int64_t t0_ns, int64_t t1_ns);
/* A process of GPU gi (first_ns INT64_MAX, fb_max_mib NAN until seen). */
struct proc_stat *analysis_proc_new(struct analysis *an, int gi, int64_t pid, const char *name);
/* A finding as stored, unbounded (the store kept what the detectors capped). */
struct finding *analysis_finding_restore(struct analysis *an);
/*
 * A summary finding's message and evidence written again from its figures
 * by its detector's own sentences (the store merges two runs' rows of one
 * summary, docs/store.md): the stretch kinds read fk, nstretch, nlinked,
 * total_s, energy_j, the span and detail[] (longest first), with power_w
 * the stretches' mean power (NAN unknown) and first_cause the first linked
 * stretch's event; idle_power reads value (mean W) and total_s (idle
 * seconds) and keeps its evidence (the idle floors).  False: a kind it
 * does not write (left as it is).
 */
bool analysis_summary_text(struct finding *f, const char *gpu_name, double power_w, const char *first_cause);
/* A batch job as stored (not live: no interval is shared out to it); its
 * reported energy and Slurm figures NAN until the caller fills them. */
struct an_job *analysis_job_restore(struct analysis *an);
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
