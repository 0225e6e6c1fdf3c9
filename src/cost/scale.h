/* SPDX-License-Identifier: MIT */
/*
 * Scaling economics (`gputally scale`, docs/scale.md): from a few measured
 * runs of one job at different GPU counts, the speedup and efficiency of
 * each, the Amdahl serial fraction and the Universal Scalability Law fitted
 * by least squares, and what each count costs at the profile's rates.
 * Pure arithmetic on util/ and cost/model.h, like the rest of cost/.
 */
#ifndef COST_SCALE_H
#define COST_SCALE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cost/model.h"
#include "util/err.h"

#define SCALE_MAX_RUNS 256

/* Columns of the run table that a run has (bits of scale_run.have). */
enum { SC_HOURS = 1, SC_THROUGHPUT = 2, SC_ITERATIONS = 4, SC_COST = 8 };

struct scale_run {
	int gpus;
	double hours, throughput, iterations, cost;	/* NAN when not given */
	unsigned have;
	unsigned long line;	/* in the table, for messages */
};

/*
 * Read a run table: CSV with a header naming `gpus` and at least one of
 * `hours` or `throughput`, optionally `iterations` and `cost` (any order,
 * any case; `#` lines and blank lines skipped).  Runs come back sorted by
 * GPU count.  A bad cell is an error at file:line:col (in err->line/col,
 * err->src = name).  Returns the count, or -1.
 */
int scale_read(FILE *in, const char *name, struct scale_run *runs, size_t cap, struct gl_err *err);

struct scale_row {
	int gpus;
	double throughput;	/* what the speedup is computed from: given, or iterations/hours, or 1/hours */
	double speedup, efficiency;	/* against the smallest count */
	double amdahl_speedup, amdahl_gap_pct;	/* the fitted F's speedup; (S_F - S) / S_F */
	double implied_f;	/* the one serial fraction that gives this row's speedup (NAN for the base) */
	double usl_speedup;	/* NAN without a USL fit */
	double hours;		/* wall hours of the job: given, or iterations / throughput */
	double iterations;	/* given, or throughput x hours */
	double owned_cost, rented_cost, given_cost;	/* of the job; NAN when unknown */
	double owned_per_1k, rented_per_1k;	/* per 1,000 iterations */
	double marginal_cost_per_speedup;	/* from the previous row, on `cost_basis` */
	bool superlinear;	/* speedup above the GPU ratio */
};

struct scale_predict {
	int gpus;
	double amdahl_speedup, usl_speedup;
	bool extrapolated;	/* beyond the largest measured count */
};

struct scale_result {
	size_t nrows;
	struct scale_row rows[SCALE_MAX_RUNS];
	const char *throughput_from;	/* "throughput", "iterations/hours", "1/hours" */
	/* Amdahl: S(n) = (F + (1-F)/n0) / (F + (1-F)/n) */
	bool have_amdahl;
	double amdahl_f, amdahl_rms, amdahl_max_abs;	/* residuals of the speedup */
	/* USL: X(n) = lambda n / (1 + sigma (n-1) + kappa n (n-1)) */
	bool have_usl;
	double usl_lambda, usl_sigma, usl_kappa, usl_rms_pct;	/* rms of relative throughput residuals */
	double usl_peak_gpus;	/* sqrt((1 - sigma) / kappa); NAN when kappa is 0 */
	size_t npred;
	struct scale_predict pred[32];
	/* money */
	bool priced;			/* the profile has prices */
	double owned_per_gpu_hour;	/* F / H + k x P_busy */
	const char *cost_basis;		/* "owned" or "given": what the marginal cost uses */
	/* --deadline */
	double deadline_h;		/* NAN when not asked */
	int deadline_owned_gpus, deadline_rented_gpus;	/* the cheapest that meet it; 0 for none */
	int deadline_fewest_gpus;	/* the fewest GPUs of a run that meets it; 0 for none */
	/* --max-cost-per-speedup */
	double max_cost_per_speedup;	/* NAN when not asked */
	int worth_up_to_gpus;		/* 0 when not asked or no cost is known */
	char warnings[4][200];
	size_t nwarnings;
};

/* Everything above from runs[0..n) (sorted, n >= 1) and the cost parameters. */
void scale_compute(const struct scale_run *runs, size_t n, const struct cost_params *p, double deadline_h,
		   double max_cost_per_speedup, struct scale_result *out);

/* ---- runs found in logs (`scale --logs`) --------------------------------- */

/* One step of an application log: when, items per second, its duration. */
struct scale_step {
	int64_t t_ns;
	double items_per_s;
	double step_s;		/* NAN when the log does not say */
};

/*
 * Read an application log (JSON lines, like the H200 capture's
 * app_log.jsonl): an object with "event": "step", "ts" (unix seconds) and
 * "samples_per_s" or "items_per_s" (optionally "step_ms") is a step; other
 * events are ignored, and so are steps that carry no throughput (a phase
 * that counts no items), counted in no_rate.  A line that is not a JSON
 * object, or a step with a bad field, is counted in bad and handed to
 * bad_line (src, line, col, message: the caller's bad-line policy); when it
 * returns true the read stops there.  Steps are appended to *steps.  Returns
 * the steps read, or -1 when the file cannot be read (err).
 */
struct scale_app_count {
	uint64_t steps, no_rate, bad;
};
long scale_app_read(FILE *in, const char *name, struct scale_step **steps, size_t *nsteps,
		    struct scale_app_count *cnt, bool (*bad_line)(void *ud, const struct gl_err *bad),
		    void *ud, struct gl_err *err);

/* One window of the task in the logs (analysis/task_windows.h), with the
 * application steps that fall in it. */
struct scale_window {
	int64_t t0_ns, t1_ns;
	int gpus;
	bool short_run;		/* shorter than --min-run: listed, not a run */
	size_t steps;
	double items, items_s;	/* sum of items_per_s x step_s and of step_s (1 per step when unknown) */
	/* what the writers print of it (scale_windows_steps()): its hours, and
	 * its throughput items / items_s (NAN without a step) */
	double hours, throughput;
};

/* Put each step (sorted or not) into the window holding its time; then each window's hours and throughput. */
void scale_windows_steps(struct scale_window *w, size_t nw, const struct scale_step *s, size_t ns);

/*
 * One run per distinct GPU count (short windows left out): hours the mean
 * duration of its windows,
 * throughput (when with_throughput and every count has steps) items / items_s
 * over all its windows.  Runs come back sorted by count; returns how many.
 */
size_t scale_runs_from_windows(const struct scale_window *w, size_t nw, bool with_throughput,
			       struct scale_run *runs, size_t cap);

/* Where the runs came from, for the output (NULL for a CSV table). */
struct scale_logs {
	const char *task;		/* NULL: GPUs doing work (no process data) */
	const char *basis;		/* what the speedup is taken from, in words */
	const struct scale_window *win;
	size_t nwin;
	const char *const *app_logs;	/* NULL-terminated; NULL when none was given */
	struct scale_app_count app;
	int64_t min_run_ns;
};

#endif
