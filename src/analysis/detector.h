/* SPDX-License-Identifier: MIT */
/*
 * The contract between the analysis and one detector: a rule that turns a
 * GPU's classified time and events into findings.
 *
 * A detector is a `const struct detector detector_<id>` in
 * src/analysis/det_<id>.c; the build lists every det_*.c in a generated
 * table (detectors_list.h, see detectors.c), so a new rule is one new file.
 *
 * What a detector is fed, per GPU:
 *   - interval(): every interval of the GPU's timeline once it has been
 *     classified, in time order, gaps included (iv->kind == IV_GAP, state
 *     ST_GAP).  Intervals lag the input by the classification window
 *     (analysis_cfg.window_ns), so they reach a detector a few seconds after
 *     the events of the same time.  A detector that reads only some kinds
 *     of interval says so in interval_kinds and is not called for the rest
 *     (the call runs per interval of every GPU).
 *   - event(): every event of the GPU (Xid, lost, reset, error rows ...), in
 *     the order the ingest driver delivers them (time order).  gpu is -1 and
 *     st NULL for an event that names no GPU.
 *   - finish(): once per GPU at the end, after its last interval and after
 *     the GPU's totals (gpu_stats, idle floors) are final.
 *   - finish_all(): once at the end, after every GPU's finish(), for rules
 *     that compare GPUs.
 *   - post(): the post-pass, once at the very end, after every detector's
 *     finish_all(), in table order (file-name order), before the findings
 *     are ranked.  It is given the finished findings, read-only, and returns
 *     its changes through det_merge(): no detector edits a finding after
 *     the call that made it.  shared is its run-wide state (below).
 * A detector whose rule spans GPUs or events with no GPU keeps a run-wide
 * state of shared_size bytes, zeroed at first use (det_shared()), handed to
 * post() and then to release() (which frees what it points to), once.
 * Each may be NULL.  st is the detector's own state for that GPU:
 * state_size bytes, zeroed when the GPU is first seen, freed at the end.
 * A detector owns nothing else; everything it learns lives in st, so memory
 * grows with GPUs, never with samples.  Findings are added with
 * det_finding() (stretches of time through det_gather_*(), one finding per
 * GPU and kind); the analysis ranks them once at the end
 * (analysis_rank_findings()).
 *
 * Only the analysis layer includes this header: report/ sees findings.
 */
#ifndef ANALYSIS_DETECTOR_H
#define ANALYSIS_DETECTOR_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/model.h"

struct det_event {
	int64_t t_ns;
	int ev;			/* enum event_kind */
	const char *msg;	/* borrowed for the call; may be NULL */
	const char *src;	/* input name */
	uint64_t line;		/* line in src, 0 if none */
	/* a kernel event's fields (timeline.h struct tl_event) */
	int32_t code;		/* Xid code ...; -1 none */
	uint32_t count;		/* lines folded into it */
	uint8_t klass, severity, flags;	/* enum kev_class, kev_severity, kev_flag */
	const char *pci;	/* or NULL */
};

struct detector {
	const char *id;
	const char *summary;	/* one line: what it finds (docs/states.md has the rule) */
	size_t state_size;	/* per-GPU state; 0 for none (st is then NULL) */
	void (*interval)(struct analysis *an, int gpu, void *st, const struct ival *iv, int state);
	/* the kinds of interval interval() is fed: bit k for enum ival_kind k
	 * (1u << IV_GAP: gaps only); 0 for every interval */
	unsigned interval_kinds;
	void (*event)(struct analysis *an, int gpu, void *st, const struct det_event *ev);
	void (*finish)(struct analysis *an, int gpu, void *st);
	void (*finish_all)(struct analysis *an);
	void (*post)(struct analysis *an, const struct finding *finds, size_t n, void *shared);
	size_t shared_size;	/* run-wide state; 0 for none */
	void (*release)(void *shared);	/* frees what shared points to; may be NULL */
};

size_t detector_count(void);
const struct detector *detector_at(size_t i);

/*
 * A new finding, zeroed but for the fields given; NULL when the cap
 * (analysis_cfg.max_findings) is reached and the GPU already has a finding
 * of this kind at this severity or above, which is counted in finds_dropped:
 * the cap never refuses a finding of another kind or of a higher severity.
 * The caller fills message and evidence.
 */
struct finding *det_finding(struct analysis *an, enum finding_kind kind, int gpu, int64_t t0_ns,
			    int64_t t1_ns, int severity, double value);
/* A detector's run-wide state (shared_size bytes, zeroed at first use). */
void *det_shared(struct analysis *an, const struct detector *d);
/*
 * For a post-pass: later repeats folded into finding i (which the caller's
 * detector made): its end becomes t1_ns, its value value, its evidence
 * evidence (NULL: unchanged).  The one way a finding changes after the call
 * that made it.
 */
void det_merge(struct analysis *an, size_t i, int64_t t1_ns, double value, const char *evidence);

/*
 * Stretches of one kind on one GPU gathered into one finding (docs/states.md
 * "Findings as a summary"): the count, total time and energy, the longest
 * FIND_DETAILS stretches with their times, and the event each came right
 * after (det_cause(), for the kinds that may be an effect).
 */
struct gather {
	uint64_t n, linked;
	double total_s, energy_j, power_ws, power_s;
	int64_t t0_ns, t1_ns;	/* the first stretch's start, the last one's end */
	int64_t longest_ns;
	int sev;
	bool energy_unknown;	/* a stretch with no energy known */
	char first_cause[112];	/* the first linked stretch's cause */
	uint8_t nworst;
	struct find_detail worst[FIND_DETAILS];	/* longest first */
};
/* Add a stretch; effect: look for the event it came right after. */
void det_gather_add(struct analysis *an, int gi, struct gather *g, int64_t t0_ns, int64_t t1_ns,
		    double energy_j, double power_ws, double power_s, int sev, bool effect);
/* The finding of everything gathered (value: the total seconds), NULL when
 * nothing was or the cap refused it; the caller writes message and
 * evidence, then calls det_gather_cause() to append the cause. */
struct finding *det_gather_emit(struct analysis *an, int gi, const struct gather *g,
				enum finding_kind kind);
/* Append "; after Xid 79 at T, src:line" (one stretch) or "; N of the M
 * stretches came right after an event, the first after ..." to the evidence. */
void det_gather_cause(struct finding *f, const struct gather *g);
/* The same from the figures: n stretches, linked of them after an event,
 * the first after first_cause. */
void det_cause_text(struct finding *f, uint64_t n, uint64_t linked, const char *first_cause);
/* det_stretch.c: a stretch summary's message and evidence from f's figures
 * (false: not a kind of that detector); det_idle_power.c: idle_power's
 * message from its idle seconds and energy. */
bool det_stretch_text(struct finding *f, const char *name, double power_w, const char *first_cause);
void det_idle_power_text(struct finding *f, const char *name, double idle_s, double idle_ws);

/*
 * Give a memory-leak finding its fitted line: mib0 at f->t0_ns, mib1 at
 * f->t1_ns, and the time that line reaches total_mib (the GPU's memory total,
 * <= 0 when unknown) in f->full_ns.
 */
void det_leak_fit(struct finding *f, double total_mib, double mib0, double mib1);

/* ---- for analysis.c: one block of every detector's state per GPU ----- */

/*
 * Cause and effect (cause.c): the event a stretch of GPU gi starting at
 * t0_ns is the effect of: an event of at least warning severity on the
 * GPU, or a host suspend, power-off, AC off, driver load or boot, from
 * cfg.cause_window_ns before t0_ns to 5 s after it, with no healthy time
 * (compute, memory-bound or plain idle) of more than 5 s between the two.
 * Writes "Xid 79 at T, src:line" into buf and returns true, else false.
 * Valid while the stretch's intervals are being fed: each GPU's recent
 * healthy runs are kept in its detector block (det_feed_interval).
 */
#define HEALTHY_RUNS 32
struct healthy_runs {
	struct { int64_t t0_ns, t1_ns; } run[HEALTHY_RUNS];	/* oldest first */
	int n;
	int64_t lost_ns;	/* the end of the newest run that no longer fits */
};
bool det_cause(const struct analysis *an, int gi, int64_t t0_ns, char *buf, size_t cap);
/* The index of an->evs by time that det_cause searches (an->ev_by_t): made
 * empty by analysis_init, it takes the events kept since it last looked
 * each time det_cause asks; freed by analysis_release. */
struct ev_time_index *ev_time_index_new(void);
void ev_time_index_free(struct ev_time_index *x);
/* The healthy runs in a GPU's block (det_states_new). */
struct healthy_runs *det_healthy(void *block);

void *det_states_new(void);
void det_states_free(void *block);
void det_feed_interval(struct analysis *an, int gpu, void *block, const struct ival *iv, int state);
void det_feed_event(struct analysis *an, int gpu, void *block, const struct det_event *ev);
void det_finish_gpu(struct analysis *an, int gpu, void *block);
void det_finish_all(struct analysis *an);
/* Every detector's post(), once, after det_finish_all(); then the run-wide
 * states are released. */
void det_post_all(struct analysis *an);
/* Release the run-wide states (analysis_release, for a run never finished). */
void det_shared_free(struct analysis *an);

/* Seconds of an interval. */
static inline double ival_s(const struct ival *iv)
{
	return (double)(iv->t1_ns - iv->t0_ns) / 1e9;
}

#endif
