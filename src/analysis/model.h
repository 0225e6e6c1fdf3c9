/* SPDX-License-Identifier: MIT */
/*
 * What an analysis holds (struct analysis, findings, per-GPU statistics,
 * events) and the small questions asked of it (names, means, strings).
 * Detectors and the trace join build on this, not on the run in
 * analysis.c, so that the run may call them without a circle.
 */
#ifndef ANALYSIS_MODEL_H
#define ANALYSIS_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/states.h"
#include "timeline/timeline.h"
#include "util/hashidx.h"
#include "util/timeutil.h"

struct analysis;

enum severity { SEV_INFO, SEV_WARNING, SEV_CRITICAL };
extern const char *const severity_name[3];

struct segment {
	int64_t t0_ns, t1_ns;
	uint16_t gpu;
	uint8_t state;		/* enum gpu_state */
};

/*
 * One stretch of a summary finding (docs/states.md "Findings as a summary"):
 * its time, energy (NAN unknown) and the event it came right after, if any
 * ("Xid 79 at 2026-11-29T03:12:04Z, kern.log:1234"; "" none).
 */
#define FIND_DETAILS 5
struct find_detail {
	int64_t t0_ns, t1_ns;
	double energy_j;
	char cause[112];
};

/* The kinds of finding (finding_kinds.def); FK_NONE: a kind known only by
 * its name (a finding read back from the store). */
enum finding_kind {
	FK_NONE,
#define FINDING(id, name, always) FK_##id,
#include "analysis/finding_kinds.def"
#undef FINDING
	FK__COUNT
};
/* The name of each kind (NULL for FK_NONE). */
extern const char *const finding_kind_name[FK__COUNT];
/* The kind of that name, FK_NONE when no kind has it. */
enum finding_kind finding_kind_of(const char *name);
/*
 * Kinds that always appear in a report, whatever their severity and
 * however many findings there are: leaks, down time, Xids and other
 * errors, throttling, imbalance (finding_kinds.def).
 */
bool finding_always(const char *kind);
/* The same for a kind known by its enum (no name to look up). */
bool finding_kind_always(enum finding_kind fk);
struct finding;
/*
 * A GPU's summary of its stretches or idle time (idle_power, and
 * det_stretch.c's held_idle, input_starved, launch_bound, gpu_down): what
 * two runs over disjoint time each write once, and the store joins when
 * read (docs/store.md).  Point findings (an Xid, a leak's fit) are not.
 */
bool finding_is_run_summary(const struct finding *f);

struct finding {
	const char *kind;	/* static: finding_kind_name[fk], or the store's name */
	uint8_t fk;		/* enum finding_kind */
	int gpu;		/* -1: not one GPU */
	int64_t t0_ns, t1_ns;
	int severity;
	double value;		/* the headline number (slope, seconds, watts ...) */
	char message[200];
	char evidence[320];
	/* a memory leak's fitted line: MiB used at t0 and at t1 (NAN when the
	 * finding is not a fit), and when it reaches the GPU's memory total
	 * (0: unknown or never) */
	double fit_mib0, fit_mib1;
	int64_t full_ns;
	int32_t code;		/* an event finding's code (the Xid); -1 none; 0 others */
	/* a summary of stretches (held_idle, input_starved, launch_bound,
	 * throttling, gpu_down, log_gap): how many, their total time and
	 * energy (NAN unknown), how many came right after an event, and the
	 * longest few, longest first (ndetail <= FIND_DETAILS; the rest are
	 * counted, not kept).  nstretch 0: not a summary (total_s may still
	 * say the seconds it is about: idle_power's idle time). */
	uint64_t nstretch, nlinked;
	double total_s, energy_j;
	uint8_t ndetail;
	struct find_detail detail[FIND_DETAILS];
};

/* Per-GPU process bookkeeping (attribution of time, busy time and energy). */
struct proc_stat {
	int gpu;
	int64_t pid;
	char name[64];
	int64_t first_ns, last_ns;
	uint64_t observations;
	double present_s;	/* time the process was seen on the GPU */
	double share_s;		/* present_s x its share of the GPU (the same share as busy_s):
				 * the GPU time it is charged for (report attribution) */
	double busy_s;		/* its share of util x dt */
	double energy_j;	/* its share of the GPU's energy */
	double fb_max_mib;	/* NAN if never reported */
	double sm_sum, sm_n;	/* pmon sm % (mean = sum / n) */
	bool busy_by_sm;	/* shares came from per-process sm %, else split evenly */
	/* who it belongs to (record's columns, a logger's task): "" unknown;
	 * the last one said wins */
	char user[32], job[32], task[48], ctr[72];
};

/*
 * A batch job's allocation (REC_JOB: Slurm's sacct), priced against the
 * GPUs of the node over its window.  Where jobstats named its GPU indices
 * it claims the whole of each of them; else (sacct names no index) a job
 * given n of the node's G GPUs (per node: its GPUs over its nodes) claims
 * n/G of each GPU.  A GPU's interval goes to the jobs running then by
 * their claims, over their sum when it is more than 1.  So a node's
 * energy is divided among its jobs' GPUs, never counted once per rank or
 * step (only allocations are read).
 */
struct an_job {
	char id[48], user[48], account[48], nodes[160];
	int64_t t0_ns, t1_ns;		/* t1 INT64_MAX: still running at the end of the data */
	int32_t ngpus, nnodes;
	uint64_t gpu_mask;		/* the GPU indices it was given (jobstats), 0 unknown */
	double gpuutil_pct, gpumem_mib;	/* Slurm's own TRESUsageInTot figures (NAN unknown) */
	double reported_energy_j;	/* the energy DCGM measured for it (dcgmi stats), NAN unknown */
	double held_s, busy_s, energy_j;	/* its share of the GPUs: time, util x time, energy */
	double *gpu_busy_s;		/* busy_s per GPU (TL_MAX_GPUS; NULL until it has some) */
};

/*
 * The display series (the HTML timeline): per GPU, fixed-width buckets of
 * time holding, per metric, the time-weighted sum, the seconds known and
 * the extremes, and the seconds in each state.  Buckets start SER_BASE_NS
 * wide from the GPU's first interval; when its time needs more than SER_MAX
 * of them, pairs are merged and the width doubles, so memory is bounded
 * whatever the length of the log and a spike survives as a bucket's max.
 * A bucket with no seconds known for a metric has no value there (NAN).
 */
enum ser_metric { SER_UTIL, SER_MEM_UTIL, SER_POWER, SER_MEM, SER_TEMP, SER_SM_CLOCK, SER__COUNT };
#define SER_MAX 2048
#define SER_BASE_NS 100000000LL		/* 100 ms */

struct ser_bucket {
	float sum[SER__COUNT];		/* value x seconds */
	float known_s[SER__COUNT];
	float min[SER__COUNT], max[SER__COUNT];
	float state_s[ST__COUNT];
};

struct gpu_series {
	int64_t base_ns, width_ns;
	size_t n;			/* buckets in use */
	struct ser_bucket *b;		/* SER_MAX of them, allocated at the first interval */
};

/* A bucket's mean of metric m, NAN when nothing was known there. */
double ser_mean(const struct ser_bucket *b, int m);
/* n buckets with nothing known (the extremes at +-INFINITY). */
void ser_clear(struct ser_bucket *b, size_t n);
/* Halve the resolution: bucket i takes 2i and 2i+1.  Only the first n
 * buckets hold anything; the rest are cleared when first touched. */
void ser_merge(struct gpu_series *s);
/* The bucket of t_ns: the series starts there, width_ns wide, when it has
 * none yet; pairs are merged while t_ns lies past SER_MAX buckets, and the
 * buckets up to it are cleared when first touched. */
struct ser_bucket *ser_at(struct gpu_series *s, int64_t t_ns, int64_t width_ns);

/*
 * A kernel, system or telemetry event, kept for the report's list (at most
 * analysis_cfg.max_events; the rest are counted in events_dropped).  A
 * burst split across chunks (same kind, code, PCI address and GPU within
 * EVENT_MERGE_NS) is one entry with a count.
 */
#define EVENT_MERGE_NS 10000000LL	/* 10 ms */
/* The same kind, code, GPU, PCI address and message from another input
 * within this of a kept event is that event again (a dmesg -T copy is cut
 * to whole seconds): folded into it, not counted (docs/kernel-events.md). */
#define EVENT_COPY_NS TL_EVENT_COPY_NS	/* 2 s */
#define EVENT_ALSO 4			/* other inputs' copies named per event */
/* A copy's time that replaces the kept event's: the kept one cut to whole
 * seconds (dmesg -T), the copy finer and less than a second after it. */
static inline bool event_time_finer(int64_t kept_ns, int64_t copy_ns)
{
	return kept_ns % NS_PER_S == 0 && copy_ns % NS_PER_S != 0 && copy_ns > kept_ns && copy_ns - kept_ns < NS_PER_S;
}
struct an_event_also {
	const char *src;	/* borrowed from the ingest, or analysis_str() */
	uint64_t line;
	int64_t t_ns;
};
struct an_event {
	int64_t t_ns;
	bool unplaced;		/* no anchor gave it a time: listed, no time, no effect */
	int gpu;		/* -1: a host event, or its GPU is unknown */
	uint8_t ev, klass, severity, flags;	/* enum event_kind, kev_class, kev_severity, kev_flag */
	int32_t code;		/* -1 none */
	uint32_t count;		/* lines / repeats folded into it */
	const char *src;	/* the input's name (borrowed from the ingest) */
	uint64_t line;
	const char *mapped_by;	/* static: how the GPU was found, NULL for none */
	char pci[16], proc[32], text[64];
	char msg[200];
	/* the same event read from other inputs (two copies of one log, the
	 * kern.log and the journal): counted once, the first EVENT_ALSO named */
	uint32_t copies;
	uint8_t nalso;
	struct an_event_also also[EVENT_ALSO];
};

/* The time a fatal event put a GPU down: to its next healthy sample, or to
 * the end of the data.  The event that began it is copied here. */
struct outage {
	int gpu;
	int64_t t0_ns, t1_ns;
	int ev;
	int32_t code;
	const char *src;
	uint64_t line;
};

/*
 * Host power events (docs/states.md "Power events"): AC switches and
 * suspends, and what each suspend cost the GPUs.  Suspends pair with the
 * next resume; up to MAX_SLEEPS of them are kept.
 */
#define MAX_SLEEPS 256
struct sleep_span {
	int64_t t0_ns, t1_ns;		/* suspend .. resume (t1 0: never resumed) */
	double gpu_lost_s;		/* GPU-seconds in gap or down over it, all GPUs */
};
struct ac_switch {
	int64_t t_ns;
	double util_before, util_after;	/* mean utilization %, all GPUs, 5 min each side (NAN unknown; AC off only) */
	double gpu_lost_s;		/* GPU-seconds in gap or down from it to a minute after, all GPUs */
	bool on;			/* AC on (plugged in), else off */
};
#define MAX_AC 256
struct power_events {
	uint64_t ac_off, ac_on, suspends, resumes, lid, power_key, power_off, boots;
	int64_t first_ns, last_ns;	/* the host events' span (INT64_MAX/MIN: none) */
	struct sleep_span sleeps[MAX_SLEEPS];
	size_t nsleeps;
	bool asleep;
	struct ac_switch ac[MAX_AC];
	size_t nac;
	double gpu_lost_s;		/* all suspends together */
	double ac_lost_s;		/* all AC switches together */
};

struct gpu_stats {
	int64_t first_ns, last_ns;
	int64_t nominal_ns;
	uint64_t samples, out_of_order;
	double covered_s, gaps_s;
	double busy_s;			/* sum of util/100 x dt */
	double util_known_s;
	double util_hist_s[101];	/* seconds at each whole utilization % */
	double power_known_s, power_ws, power_max_w;
	double energy_counter_j, energy_counter_s;	/* from counter deltas */
	double energy_power_j, energy_power_s;		/* integrated power */
	double energy_unknown_s;	/* first to last: neither counter nor power (gaps, down) */
	double temp_max_c, mem_max_mib, mem_total_mib;	/* the maxima (and power_max_w): NAN with no reading */
	uint32_t sm_clock_drops;
	double sm_clock_ref_mhz;
	double state_s[ST__COUNT], state_energy_j[ST__COUNT], state_busy_s[ST__COUNT];
	double idle_ws, idle_s;		/* power while util == 0 */
	double active_ws, active_s;	/* power while util >= 50 % */
	double held_floor_w, noctx_floor_w;	/* medians, NAN if unseen */
	bool has_process_data;
	/* per-minute busy and covered seconds since min_base_ns */
	int64_t min_base_ns;
	float *min_busy_s, *min_cov_s;
	size_t nmin, min_alloc;
	size_t min_cur;				/* the minute last added to, */
	int64_t min_cur_start_ns, min_cur_end_ns;	/* and its bounds */
	struct gpu_series ser;
	/* events on this GPU (bursts once), Xids by class, outages */
	uint64_t events, xids, xid_class[KC__COUNT];
	double outage_s;
	uint32_t outages;
};

struct analysis_cfg {
	int64_t window_ns;		/* centred window for input_bound; default 5 s each side */
	double held_mem_mib;		/* memory at or above this counts as held */
	double stretch_min_s;		/* shortest held_idle/input_bound/launch_bound finding */
	size_t max_segments;
	size_t max_findings;
	bool series;			/* keep the display series (gpu_stats.ser): the HTML
					 * page's charts and the trace join need it; default on */
	size_t max_events;		/* events kept for the list (default 10000) */
	int64_t cause_window_ns;	/* a finding this soon after an event names it (60 s) */
};

struct gpu_work;	/* private per-GPU working state */
struct trace_an;	/* analysis/trace.h */

/*
 * A profiler trace joined to a GPU of the report (trace_join.c): one per
 * trace file and device.  The stretch is the trace's span (first to last
 * record of the file, as `gputally trace` takes it); over it the kernels'
 * union is what the cost model counts as useful, in place of what
 * utilization.gpu would count (util_pct x span).
 */
struct trace_join {
	int gpu;			/* the report's GPU */
	int32_t device;			/* the trace's device number */
	const char *file;		/* the trace (borrowed from the ingest result) */
	const char *matched_by;		/* static: "uuid" or "device index" */
	int64_t t0_ns, t1_ns;		/* the stretch */
	double span_s, kernel_s, active_s;	/* active: kernels, copies and memsets */
	uint64_t kernels;
	int64_t kernel_p50_ns;		/* median kernel duration (lower median) */
	int64_t gap_p50_ns;		/* median gap from a kernel's end to the next kernel's start */
	int64_t w0_ns, w1_ns;		/* the display buckets the stretch touches */
	double bucket_s;		/* their width */
	double util_pct;		/* time-weighted utilization.gpu over [w0, w1); NAN: none known */
	double util_known_s;
	double util_busy_s;		/* util_pct / 100 x span_s (0 when unknown) */
	double useful_state_s;		/* span_s x the share of [w0, w1) in useful states (the cost's busy) */
	bool overlaps;			/* its stretch overlaps an earlier join of the GPU: not used for cost */
};

/* A trace device that no GPU of the report took, and why. */
struct trace_unjoined {
	int32_t device;
	const char *file;
	char why[200];
};

struct det_event;

/*
 * An observer of every classified interval and every event, fed right after
 * the detectors (the same calls, the same order).  `gputally alert` uses it
 * to evaluate its rules without keeping samples; NULL for everything else.
 */
struct analysis_tap {
	void *ud;
	void (*interval)(void *ud, int gpu, const struct ival *iv, int state);
	void (*event)(void *ud, int gpu, const struct det_event *ev);
};

/*
 * Optional observer of the accounting (the store's per-minute rollups):
 * state() sees every interval once, with the state it was classified in,
 * exactly as it is added to the totals; proc() sees each process's share of
 * a data interval (present seconds t1 - t0, the GPU seconds it is charged
 * for (share_s), busy seconds, energy in J, NAN unknown); job() sees each
 * batch job's share of data interval iv (the part [t0, t1) it overlaps: GPU
 * seconds held, busy seconds, energy, NAN unknown), as added to struct
 * an_job.  Both come per GPU in the order of the intervals' starts, every
 * process (job) of one interval in turn.
 * Any may be NULL.  Set before the first analysis_add().
 */
struct analysis_hook {
	void *ud;
	void (*state)(void *ud, int gpu, const struct ival *iv, int st);
	void (*proc)(void *ud, int gpu, const struct proc_stat *ps, int64_t t0_ns, int64_t t1_ns,
		     double share_s, double busy_s, double energy_j);
	void (*job)(void *ud, int gpu, const struct an_job *j, const struct ival *iv, int64_t t0_ns,
		    int64_t t1_ns, double held_s, double busy_s, double energy_j);
};

/* One input's kernel error events (Xid, fall-off, RmInit, GSP, modeset,
 * AER, NVLink, other NVRM errors: lines folded into a burst counted each)
 * and its size in bytes (0 until analysis_input_size() says). */
struct an_klog {
	const char *src;
	uint64_t bytes, errors;
	int64_t t0_ns, t1_ns;	/* the first and last placed error (0: none placed) */
};

struct analysis {
	struct analysis_cfg cfg;
	struct timeline tl;
	struct gpu_stats gpus[TL_MAX_GPUS];
	struct gpu_work *work[TL_MAX_GPUS];
	void *det[TL_MAX_GPUS];		/* each GPU's detector block (detectors.c), or NULL */
	void *det_shared;		/* the detectors' run-wide states (det_shared()), or NULL */
	unsigned det_post_runs;		/* post-passes run (det_post_all(): once) */
	size_t det_post_seen;		/* the findings the post-passes were given */
	struct segment *segs;
	size_t nsegs, segs_alloc;
	uint64_t segs_dropped;
	struct finding *finds;
	size_t nfinds, finds_alloc;
	uint64_t finds_dropped;
	/* per GPU and kind, the highest severity found (for the cap) */
	struct find_seen {
		const char *kind;
		int gpu, sev;
	} find_seen[256];
	size_t nfind_seen;
	struct proc_stat *procs;
	size_t nprocs, procs_alloc;
	struct hashidx proc_idx;	/* procs by GPU, pid and name (analysis_proc_new) */
	/* the placed events by time, for det_cause (cause.c; filled as it asks) */
	struct ev_time_index *ev_by_t;
	/* batch jobs (REC_JOB) in the order they came (by start), and those
	 * that may still overlap the intervals to come */
	struct an_job *jobs;
	size_t njobs, jobs_alloc;
	/* the jobs by id: job_last[k] is the latest job of the k-th id, for
	 * jobs[0, njobs_indexed) (analysis.c job_add) */
	struct hashidx job_idx;
	size_t *job_last, njob_ids, job_last_alloc, njobs_indexed;
	size_t *jobs_live;
	size_t njobs_live, jobs_live_alloc;
	uint64_t events[8];
	/* the event list, outages, per-kind counts and host power events */
	struct an_event *evs;
	size_t nevs, evs_alloc;
	uint64_t evs_dropped;
	uint64_t ev_count[EV__COUNT];	/* every event by kind (bursts once) */
	uint64_t unplaced_events;
	uint64_t event_copies;	/* events folded into the same one from another input */
	uint64_t host_xid_class[KC__COUNT];	/* Xids on no known GPU */
	struct outage *outages;
	size_t noutages, outages_alloc;
	uint64_t outages_dropped;
	struct power_events pw;
	/* kernel error lines per input, for their density per MB of log
	 * (det_kernel_errors.c); the sizes come from analysis_input_size() */
	struct an_klog *klogs;
	size_t nklogs, klogs_alloc;
	/* profiler traces among the inputs (REC_TRACE records), and their joins */
	struct trace_an *trace;
	struct trace_uuid *trace_uuids;
	size_t ntrace_uuids, trace_uuids_alloc;
	struct trace_join *joins;
	size_t njoins, joins_alloc;
	struct trace_unjoined *unjoined;
	size_t nunjoined, unjoined_alloc;
	/* strings the analysis owns (analysis_str): an analysis rebuilt from a
	 * store has no ingest to borrow its names from */
	char **strs;
	size_t nstrs, strs_alloc;
	const struct analysis_tap *tap;	/* set after analysis_init(), or NULL */
	struct analysis_hook hook;
};

/* A copy of s that lives as long as an (one per distinct string); NULL for NULL. */
const char *analysis_str(struct analysis *an, const char *s);

/* Summaries over a GPU's stats. NAN when unknown. */
double gpu_util_mean(const struct gpu_stats *g);
double gpu_util_quantile(const struct gpu_stats *g, double q);
double gpu_power_mean(const struct gpu_stats *g);
double gpu_energy_j(const struct gpu_stats *g, const char **source);

/* How GPU gi is named in every message: "GPU 4" by its index, "GPU ?"
 * with its UUID (or the report's number) when the index is unknown. */
const char *analysis_gpu_name(const struct analysis *an, int gi, char *buf, size_t cap);
/* The same for a table's GPU column: "4", "?" when the index is unknown,
 * "-" for no GPU (gi < 0). */
const char *analysis_gpu_num(const struct analysis *an, int gi, char *buf, size_t cap);

/* How an event is named in words and evidence: "Xid 79", "fallen_off_bus". */
void analysis_event_name(char *buf, size_t cap, int ev, int32_t code);

#endif
