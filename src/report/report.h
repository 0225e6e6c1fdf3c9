/* SPDX-License-Identifier: MIT */
/*
 * A report: the inputs, the analysis and the cost model put together, then
 * rendered as text for people or JSON for machines (docs/report-json.md).
 * report_compute() derives every figure once, so both renderings print the
 * same numbers.
 */
#ifndef REPORT_REPORT_H
#define REPORT_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/analysis.h"
#include "cost/catalog.h"
#include "cost/model.h"
#include "cost/prices.h"
#include "formats/driver.h"
#include "formats/prom_remote.h"

struct bad_line {
	const char *path;	/* borrowed from the ingest result */
	uint64_t line;
	uint32_t col;
	char msg[160];
};

/* A fleet's view (report --prometheus): per node, namespace and pod. */
struct fleet_row {
	char name[200];		/* node; namespace; "namespace/pod" */
	char ns[64];		/* pods: the namespace */
	int ngpus;		/* nodes: GPUs; pods: GPUs it ran on */
	double covered_s, gaps_s, busy_s, energy_j;	/* energy: NAN unknown */
	double state_s[ST__COUNT];
	double cost;		/* its share of the window's local cost (by state time) */
	/* percent of covered_s busy, and idle or held idle (NAN: none covered) */
	double busy_pct, lost_pct;
	double idle_cost;	/* of which idle and held-idle time */
	/* MIG (rows of report.migs and report.slices): the GPU's key and node
	 * (borrowed from the fleet); a slice's GPU_I_ID, profile and share of
	 * the GPU's compute; a GPU's cost outside its slices */
	const char *parent, *node, *profile;
	int gi_id;
	double share, unsliced_cost;
};

/*
 * Who spent it (attrib.c): per dimension, one row per key (a user, a job,
 * ...) with the GPU time its processes held (each process's share of its
 * GPU: measured sm % where known, else even among those present), their
 * useful time and energy, and their part of the window's owned cost; the
 * rows by cost, most first, then "no process seen": the rest of each total,
 * so that every column adds up to the window's.
 */
enum attrib_by { AB_USER, AB_ACCOUNT, AB_JOB, AB_TASK, AB_CTR, AB_PROC, AB__COUNT };
extern const char *const attrib_by_name[AB__COUNT];
#define ATTRIB_TEXT_TOP 5	/* rows a text table names before "N more" */
#define ATTRIB_MD_ROWS 30	/* Markdown and HTML */
struct attrib_row {
	char key[96];		/* "(unknown user)", "(none)" where not said */
	bool none;		/* the last row: what no process (task label) held */
	size_t nprocs;
	double held_s, useful_s, energy_j, cost;
	double reported_energy_j;	/* the jobs' own figure (dcgmi stats), beside ours; NAN none */
};
struct report_attrib {
	struct attrib_row *rows[AB__COUNT];
	size_t nrows[AB__COUNT];	/* 0: no process data, no split */
	bool known[AB__COUNT];		/* some process said its key */
	bool from_jobs[AB__COUNT];	/* the owners are batch jobs (sacct), not processes */
	size_t jobs_outside;		/* batch jobs that held none of the telemetry's time */
	/* for the short tables: which dimensions they show (those with a key
	 * said; the processes when no user, job or container was), the text's
	 * top rows, the rows after them summed ("N more") and every row summed */
	bool show[AB__COUNT];
	size_t top[AB__COUNT];
	struct attrib_row more[AB__COUNT], total[AB__COUNT];
	bool energy_estimated;		/* energy is the profile's estimate, per row too */
	/* report --db: why there is no split (minutes stored before v7 keep no
	 * process's GPU time charged), NULL when there is one or no process */
	const char *unknown_why;
};

/*
 * One GPU's figures, as every writer prints them (report_compute()): NAN
 * where there was no reading (no utilization, no power, a temperature or
 * memory of 0), never a 0 that reads as a measurement.
 */
struct report_gpu {
	double util_mean_pct, util_p50_pct, util_p95_pct;
	double power_mean_w, power_max_w;
	double idle_power_w, busy_power_w;	/* mean over idle and over active time */
	double temp_max_c, mem_max_mib, mem_total_mib;
	double energy_j;		/* NAN: no counter and no power reading */
	const char *energy_source;	/* "counter", "power", ... (static) */
	/* the busy figure of the cost and the verdict (docs/states.md "Busy"),
	 * and the utilization-seconds the joined traces replaced and added */
	double useful_s, trace_out_s, trace_in_s;
	/* share of its covered time in each state (report_state_share()) */
	double state_share[ST__COUNT];
	size_t nsegs;		/* its state segments in an->segs */
	/* its Xids: how many were classed (xid_class summed), and per day of
	 * its span (first to last sample), in all and by class; NAN for a
	 * span of no time */
	uint64_t xids_classed;
	double xids_per_day, xid_class_per_day[KC__COUNT];
};

/* One process's shares (report.procs, in an->procs order); NAN where its GPU has none. */
struct report_proc {
	double busy_share;	/* of its GPU's busy time */
	double energy_share;	/* of its GPU's energy */
	double sm_mean_pct;	/* mean per-process SM % (pmon), NAN without */
};

/* A finding's severity and kind from it on (report.finding_rest): how many, their stretches, time and cost. */
struct report_rest {
	uint64_t n, stretches;
	double total_s;
	double cost;		/* of those with a cost (costed) */
	bool costed;
};

/*
 * The findings the lists do not give in full (report.find_groups): one per
 * severity and kind, in the order they first come after the first
 * nfind_full, with their sums (finding_rest of its first) and their GPUs,
 * each once, in the order they come (-1: the host); the first
 * REPORT_GROUP_GPUS are named, ngpus counts them all.
 */
#define REPORT_GROUP_GPUS 8
struct report_find_group {
	size_t first;		/* an->finds index of its first finding */
	size_t ngpus;
	int gpu[REPORT_GROUP_GPUS];
};

/* The kept bad lines grouped by file and reason (report.bad_groups), in the order they first come. */
struct report_bad_group {
	size_t first;		/* r->bad index of its first line */
	uint64_t n;		/* its kept lines */
};

/* The inputs one format read, summed (report.by_format, in the formats' registry order). */
struct report_format_sum {
	const struct format *format;
	uint64_t files, lines, records, bad;
};

/* How many findings of one kind (report.kinds, in the order the kinds first come). */
struct report_kind {
	const char *kind;	/* borrowed from the analysis */
	size_t n;
};

/*
 * One group of the events list (report.evgroups): the events of one GPU
 * (host last), kind and code, placed or not, in the order the groups first
 * come.  Its times are the earliest and the latest of its events, whatever
 * order they were listed in (several files, a log out of time order).
 */
struct report_evgroup {
	size_t ev;		/* an->evs index of its earliest event (unplaced: its first listed) */
	size_t n;		/* its events */
	uint64_t lines;		/* the log lines folded into them */
	uint64_t copies;	/* their copies in other inputs, counted once */
	size_t copied;		/* an->evs index of the first with a copy; SIZE_MAX: none */
	int64_t t_min_ns, t_max_ns;	/* its earliest and latest event (unplaced: 0) */
};

/* The break-even chart's owned cost per useful hour at u = i / REPORT_CURVE_N (i = 1..N, index i - 1). */
#define REPORT_CURVE_N 400

struct report {
	/* inputs (borrowed) */
	const struct ingest_result *inputs;
	const struct analysis *an;
	const struct bad_line *bad;
	size_t nbad;
	uint64_t bad_total;
	const char *tz;		/* the zone timestamps without one were read in */
	/* where no zoned evidence set it, the zone stamps without one were
	 * assumed to be in (inputs' zone_assumed), and for how many inputs;
	 * NULL and 0 where nothing was assumed */
	const char *zone_assumed;
	size_t zone_assumed_inputs;
	/* inputs whose times rest on their file modification times */
	size_t file_time_inputs;
	/* cost model, after measured values were applied */
	struct cost_params params;
	const char *energy_source;	/* "counter", "power", "counter+power", "profile estimate" */
	double covered_h, busy_h, gaps_h, energy_j;
	/* where busy_h came from: utilization.gpu, less what it counted over
	 * joined trace stretches (trace_out_h), plus those stretches' kernel
	 * time (trace_in_h); busy_h = util_busy_h - trace_out_h + trace_in_h */
	double util_busy_h, trace_out_h, trace_in_h;
	int64_t t0_ns, t1_ns;
	double *job_useful_h;
	size_t njobs;
	bool jobs_from_processes;
	bool jobs_from_tasks;		/* from task labels (gpu_monitor.sh TASK_ID) */
	struct cost_longrun lr;
	struct cost_window win;
	struct cost_job_be job;
	struct cost_sens sens[COST_NSENS];
	size_t nsens;
	double state_s[ST__COUNT];	/* all GPUs */
	double state_share[ST__COUNT];	/* all GPUs: report_state_share(r, -1, s) */
	double state_cost[ST__COUNT];	/* the waterfall */
	double useful_cost;		/* its end: the cost of the useful states */
	/* the waterfall's useful total, the headline's busy (docs/states.md
	 * "Busy"): the useful states' time (useful_states_s), plus the joined
	 * traces' kernel time less the useful-state time it replaces (trace_net_s,
	 * its share of the covered time and its cost); useful_total_s = busy_h x
	 * 3600, and its share is u_obs */
	double useful_states_s, trace_net_s, trace_net_share, trace_net_cost;
	double useful_total_s, useful_total_share, useful_total_cost;
	/* the outage: GPU time down after fatal kernel events (part of the
	 * down line), at the window's local cost per covered GPU-hour */
	double outage_s, cost_per_gpu_hour, outage_cost;
	double outage_share;		/* outage_s over the covered time */
	double power_span_h;		/* the hours host power events are counted over */
	double ac_switches_per_hour, suspends_per_hour;	/* over power_span_h; NAN without one */
	double c_local_obs;		/* C_L(u_obs) */
	/* per process (an->procs order): renting its useful hours as one job,
	 * and its owned cost: its who-spent-it figure (attrib.c, the one split
	 * of the owned cost; NAN where there is no split, as with --db) */
	double *proc_cloud_cost, *proc_local_cost;
	char verdict[640];
	/* the window's cloud cost split: its useful hours at the hourly rate,
	 * and the rest, charged per job (cold start, billing increment and
	 * minimum); the verdict says which one drives it */
	double cloud_hours_cost, cloud_job_charges;
	double util_known_h;	/* covered hours with a utilization reading */
	double util_mean_pct;	/* all GPUs: utilization-hours over util_known_h; NAN without a reading */
	bool has_prices;	/* some price is known (a cloud rate, a fixed cost or electricity): costs are printed */
	bool busy_unknown;	/* covered time but no utilization reading in it: no busy figure, no verdict */
	/* input: no --profile was given, so price keys still at their default
	 * are taken from the built-in table (docs/prices.md) for the GPU model
	 * with the most covered time, with origin COST_ASSUMED */
	bool assume_prices;
	struct {
		bool used;		/* some figure was assumed */
		bool unknown;		/* assume_prices, but the model is not in the table */
		bool yours;		/* no row, but every price (purchase, cloud, electricity) was given with --set */
		char gpu_name[96];	/* the GPU name looked up */
		const struct price_row *row;	/* its row (borrowed from the table) */
		const struct price_table *table;
		/* whole months from each figure's date to --now, else to the
		 * logs' end (-1: not assumed); old: one of them is over 12 */
		int age_purchase, age_cloud, age_electricity, age_grid;
		bool old;
	} prices;
	/* input: --cloud-catalog FILE (NULL: none).  Unless cloud_hourly_rate
	 * was --set, its median per-GPU rate for the GPU model with the most
	 * covered time replaces the profile's or the table's, with origin
	 * COST_CATALOG; its age (from the catalogue's date to --now, else the
	 * logs' end, -1 unknown) is flagged over 12 months */
	const struct cloud_catalog *catalog;
	struct {
		bool used;		/* cloud_hourly_rate came from it */
		bool unmatched;		/* a GPU name, but no accelerator of the catalogue matches it */
		struct catalog_pick pick;
		int age_months;
		bool old;
	} cat;
	/* the first screen: the (up to) three states that bought no work with
	 * the most time, most first; the first three findings by severity (the
	 * order the findings lists use); inputs that are not telemetry (no
	 * format recognised them) */
	int top_cause[3];
	int ntop_causes;
	size_t top_find[3];
	int ntop_finds;
	size_t not_telemetry;	/* opened and sniffed, but no format's (report_not_telemetry) */
	size_t not_read;	/* could not be opened or read */
	double co2e_kg;		/* energy x pue x grid_gco2_per_kwh; NAN when the intensity is unknown */
	/* by UTC day (only when the window touches two days or more, up to
	 * REPORT_MAX_DAYS): day_first is days since 1970-01-01; per day d and
	 * GPU g at [d * ngpus + g]: covered and useful seconds, and the GPU-day's
	 * share of the window's owned cost (by covered time, as the waterfall;
	 * NAN without prices) */
	int64_t day_first;
	size_t ndays;
	double *day_covered_s, *day_useful_s, *day_cost;
	/* month.c, over the same days: per day, all GPUs: covered and useful
	 * seconds, owned cost, useful share (NAN: no covered time), what renting
	 * its useful hours at the hourly rate costs (NAN: no rate), and the
	 * running sum of owned minus rented to the day's end; per GPU, its
	 * useful share and owned cost over the window; per GPU g, day d and UTC
	 * hour h at [(g * ndays + d) * 24 + h], covered and useful seconds
	 * (nhour_gpus GPUs: 0 over REPORT_HOUR_GPU_DAYS GPU-days); the
	 * month's figures need the cost model's, so report_compute fills them last */
	double *dayt_covered_s, *dayt_useful_s, *dayt_cost, *dayt_u, *dayt_rent, *dayt_gap_cum;
	double *gpu_month_u, *gpu_month_cost;
	double *hour_covered_s, *hour_useful_s;
	double *day_u, *hour_u;	/* the useful shares of those GPU-days and GPU-hours (NAN: none covered) */
	size_t nhour_gpus;
	bool *dayt_at_ustar;	/* the day's useful share (all GPUs) is at or above u* */
	size_t days_at_ustar;	/* how many such days */
	int64_t now_ns;		/* --now: the generation time to print; 0 prints none */
	/* report --prometheus (NULL otherwise): filled by report_compute */
	const struct prom_fleet *fleet;
	struct fleet_row *nodes, *nss, *pods;	/* nodes by idle_cost, most first */
	size_t nnodes, nnss, npods;
	const char *store;	/* report --db: the store's path (the series are per-minute rollups), else NULL */
	struct fleet_row fleet_total;	/* the nodes summed (name "total") */
	/* MIG: the slices' own timeline (borrowed, or NULL); per GPU in MIG
	 * mode one row of migs, and its slices in slices, grouped by GPU in
	 * the order of migs, then by GPU_I_ID */
	const struct analysis *slice_an;
	struct fleet_row *migs, *slices;
	size_t nmigs, nslices;
	/* per GPU (an->tl.ngpus of them): what every writer prints of it */
	struct report_gpu *gpus;
	uint64_t events_total;	/* every event counted, listed or not (an->ev_count summed) */
	uint64_t host_xids_classed;	/* an->host_xid_class summed */
	struct report_evgroup *evgroups;	/* the events grouped (the text's list) */
	size_t nevgroups;
	/* an->evs indices in time order (ties and unplaced events in the
	 * order listed, unplaced last): the order every events list prints */
	size_t *ev_order;
	/* per finding (an->finds order): report_finding_cost(), and the
	 * findings of its severity and kind from it on, summed (the text's
	 * one line per severity and kind for the findings not in full) */
	double *finding_cost;
	struct report_rest *finding_rest;
	/* the first nfind_full findings are given in full on a screen (all
	 * when that takes at most REPORT_FIND_ALL_LINES lines, else while
	 * under REPORT_FIND_LINES: 3 a finding, 4 with its longest stretches),
	 * the rest one group per severity and kind */
	size_t nfind_full;
	struct report_find_group *find_groups;
	size_t nfind_groups;
	/* the kept bad lines by file and reason */
	struct report_bad_group *bad_groups;
	size_t nbad_groups;
	/* the inputs by the format that read them: the formats that read one */
	struct report_format_sum *by_format;
	size_t nby_format;
	/* the findings tallied by kind, all of them (no cap) */
	struct report_kind *kinds;
	size_t nkinds;
	/* per process (an->procs order), and their indices the busiest first, ties by index */
	struct report_proc *procs;
	size_t *proc_by_busy;
	/* C_L(u): the owned cost per useful hour along the utilization axis */
	double curve_local[REPORT_CURVE_N];
	struct report_attrib attrib;	/* who spent it (attrib.c) */
};

/*
 * Fill r from its inputs: measured idle/busy power go into params unless
 * they were --set (origin COST_SET), then every cost figure.  params must
 * hold the profile and --set values on entry.
 */
void report_compute(struct report *r);
void report_release(struct report *r);

#define REPORT_FIND_ALL_LINES 45
#define REPORT_FIND_LINES 24
#define REPORT_MAX_DAYS 400
#define REPORT_HOUR_GPU_DAYS 1000	/* the hours x days grids: up to this many GPU-days */

/* month.c: the month at a glance's sums (the fields after day_cost) */
void report_month_compute(struct report *r);
void report_month_release(struct report *r);

/* Share of one GPU's covered time (gpu -1: all GPUs) spent in state st; NAN with no covered time or for ST_GAP. */
double report_state_share(const struct report *r, int gpu, int st);
/* What a stretch summary's time cost: its GPU-hours at the window's local
 * cost per covered GPU-hour (cost_per_gpu_hour); NAN for a finding that is
 * not a summary, for gaps (not covered time) and when no price is known. */
double report_finding_cost(const struct report *r, const struct finding *f);

/* An input that was read but holds no telemetry (a README, lspci output). */
bool report_not_telemetry(const struct input_stat *in);

/* fleet.c: the per-node/namespace/pod rows, and their renderings */
#define FLEET_PODS_LISTED 200	/* in Markdown and HTML; every pod is in --json */
void report_fleet_compute(struct report *r);
void report_fleet_release(struct report *r);
void report_fleet_text(FILE *out, const struct report *r);
void report_fleet_markdown(FILE *out, const struct report *r);
struct jsonw;
void report_fleet_json(struct jsonw *w, const struct report *r);

/* attrib.c: who spent it; attrib_out.c: its renderings */
void report_attrib_compute(struct report *r);
void report_attrib_release(struct report *r);
void report_attrib_text(FILE *out, const struct report *r);
void report_attrib_markdown(FILE *out, const struct report *r);
void report_attrib_json(struct jsonw *w, const struct report *r);

void report_text(FILE *out, const struct report *r);
void report_json(FILE *out, const struct report *r);
/* From this many segments on, report_json writes the part after them, and
 * blocks of segments from the last one back, on a second thread (tests set
 * 0 or SIZE_MAX to take one way or the other). */
extern size_t report_json_split_min;
/* Segments written through jsonw's calls one by one rather than formatted
 * whole (tests compare the two ways). */
extern bool report_json_plain_segments;
/* One self-contained page (no network, charts as inline SVG); see docs/report-html.md. */
void report_html(FILE *out, const struct report *r);
/* GitHub-flavoured Markdown, no HTML inside. */
void report_markdown(FILE *out, const struct report *r);

#endif
