/* SPDX-License-Identifier: MIT */
/*
 * Alert rules (`gputally alert`, docs/alert.md): a small INI file of rules,
 * a default set compiled in, and their evaluation over the analysis.
 *
 * The evaluator is an analysis_tap: it sees every classified interval and
 * every event as the analysis makes them, keeps one open episode per rule
 * and GPU, and closes it when the condition stops holding.  Rules over a
 * whole window (utilization against u*) and over inputs (a recorder file
 * not updated) are decided at the end, from the GPU totals and from what
 * the caller noted about each input.  Memory grows with rules x GPUs and
 * with the alerts found, never with samples.
 *
 * The break-even utilization u* comes from the cost model, a layer above:
 * the caller computes it and hands it in as a number (NAN: unknown).
 */
#ifndef ANALYSIS_ALERT_H
#define ANALYSIS_ALERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "util/err.h"

enum alert_kind {
	AK_TEMP_ABOVE,		/* temp_c > threshold (C) */
	AK_MEM_FREE_BELOW,	/* mem_total - mem_used < threshold (GiB) */
	AK_POWER_ZERO,		/* power_w <= threshold (W) on a GPU with data, not down */
	AK_EVENT,		/* an event of the kinds listed (Xid codes filtered) */
	AK_STATE,		/* the GPU's state is the one named */
	AK_UTIL_BELOW,		/* busy / covered over the window < threshold (% or u*) */
	AK_STALE,		/* a recorder file's last sample older than N intervals */
	AK__COUNT
};
extern const char *const alert_kind_name[AK__COUNT];

#define ALERT_MAX_RULES 32
#define ALERT_XID_MAX 1024	/* Xid codes 0..1023 can be listed */

struct alert_rule {
	char id[48];
	int kind;		/* enum alert_kind, -1 until `kind =` is read */
	double threshold;	/* unit by kind; NAN with use_ustar */
	bool use_ustar;		/* AK_UTIL_BELOW: threshold = 100 x u* */
	int64_t for_ns;		/* shortest episode that alerts (0: any) */
	int64_t window_ns;	/* AK_UTIL_BELOW */
	bool during_job;	/* AK_UTIL_BELOW: only seconds while a job holds the GPU count */
	int state;		/* AK_STATE: enum gpu_state */
	uint32_t events;	/* AK_EVENT: bit i = row i of alert_events[] */
	bool xid_any;		/* AK_EVENT: no xid_codes given: every code */
	uint64_t xid[ALERT_XID_MAX / 64];	/* AK_EVENT: codes that alert */
	int intervals;		/* AK_STALE */
	bool critical;		/* severity = critical (else warning) */
	int line;		/* where the rule began in its file (0: compiled in) */
};

struct alert_rules {
	struct alert_rule r[ALERT_MAX_RULES];
	size_t n;
	const char *src;	/* file name, or "(compiled-in defaults)" */
};

/* The event kinds a rule can name, one row each (event_kind -> rule word).
 * A new event kind becomes usable in `events =` by one more row here. */
struct alert_event_kind {
	int ev;			/* enum event_kind */
	const char *word;	/* in `events = ...` */
	bool has_xid_code;	/* the message carries an Xid code to filter on */
};
extern const struct alert_event_kind alert_events[];
extern const size_t alert_nevents;

/* The compiled-in rules, as INI text (docs/alert.md shows the same). */
extern const char alert_rules_default_text[];

/* Parse INI text into rs (replacing what it held).  Errors carry src:line. */
int alert_rules_parse(struct alert_rules *rs, const char *text, const char *src,
		      struct gl_err *err);
int alert_rules_load(struct alert_rules *rs, const char *path, struct gl_err *err);
int alert_rules_default(struct alert_rules *rs);

/* The Xid code in an event message ("NVRM: Xid (PCI:0000:3b:00): 79, ...",
 * "NVML Xid 79 event", "Xid 154, ..."), or -1. */
int alert_xid_code(const char *msg);

struct alert {
	const struct alert_rule *rule;
	int gpu;		/* analysis GPU slot, -1: not one GPU */
	int64_t start_ns, end_ns;
	double value;		/* in the rule's unit (C, GiB, W, code, s, %) */
	uint32_t count;		/* events folded into it (AK_EVENT), else 1 */
	char source[256];	/* AK_STALE: the file; AK_EVENT: path:line */
	char message[240];
};

/* What the caller learnt about one input, for AK_STALE. */
struct alert_input {
	const char *path;	/* borrowed */
	bool recorder;		/* a gputally-csv file */
	int64_t last_ns;	/* newest sample, INT64_MIN: none */
	int64_t prev_ns;	/* the distinct sample time before it */
	int64_t dts[15];	/* the first gaps between distinct sample times */
	int ndts;
	uint64_t gpu_key[16];	/* the GPUs it holds (hash of the UUID, else of the index) */
	int ngpu;
	bool gpus_overflow;	/* more than 16: never taken as superseded */
};

struct alert_episode;
struct alert_util_ring;

struct alert_eval {
	const struct alert_rules *rules;
	struct analysis *an;
	struct analysis_tap tap;
	struct alert_episode *ep[TL_MAX_GPUS];	/* ALERT_MAX_RULES each, lazily */
	struct alert_util_ring *ur[TL_MAX_GPUS];	/* one per rule (util_below), lazily */
	struct alert *alerts;
	size_t n, alloc;
	uint64_t dropped;	/* alerts beyond ALERT_MAX_ALERTS */
	struct alert_input *inputs;
	size_t ninputs, inputs_alloc;
	struct hashidx input_idx;	/* inputs by path (alert_eval_sample) */
	size_t last_input;		/* the input of the last sample, + 1; 0 none */
	double u_star;		/* NAN: unknown */
	bool util_skipped;	/* a rule wanted u* and there was none */
};

#define ALERT_MAX_ALERTS 10000

/* Attach to an (after analysis_init) so that its intervals and events reach
 * the rules; u_star is the cost profile's break-even utilization or NAN. */
void alert_eval_init(struct alert_eval *ev, const struct alert_rules *rs, struct analysis *an,
		     double u_star);
/* One timed sample of an input (for AK_STALE): call for every REC_SAMPLE
 * with its GPU's UUID (NULL if none) and index. */
void alert_eval_sample(struct alert_eval *ev, const char *path, bool recorder, int64_t t_ns,
		       const char *uuid, int index);
/* After analysis_finish(): close episodes, run the window and input rules at
 * clock now_ns, and sort the alerts by start, GPU, rule. */
void alert_eval_finish(struct alert_eval *ev, int64_t now_ns);
void alert_eval_release(struct alert_eval *ev);

#endif
