/* SPDX-License-Identifier: MIT */
/* gputally scale: speedup, Amdahl and USL fits, and the cost of each GPU count. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/task_windows.h"
#include "cli/commands.h"
#include "cli/cost_opts.h"
#include "cli/ingest_opts.h"
#include "cli/usage.h"
#include "util/termsafe.h"
#include "cost/profile.h"
#include "cost/scale.h"
#include "formats/driver.h"
#include "pipeline/pipeline.h"
#include "report/scale_out.h"
#include "util/scan.h"
#include "util/timeutil.h"
#include "util/xalloc.h"
#include "util/fdio.h"

/* Bounds on what is read whole or line by line (fopen_bounded). */
#define SCALE_TABLE_MAX (64ull << 20)
#define APP_LOG_MAX (64ull << 30)
#define APP_LINE_MAX (1u << 20)

#define DEFAULT_GAP_NS (10 * NS_PER_S)
#define DEFAULT_MIN_RUN_NS (60 * NS_PER_S)

#define SCALE_OPTIONS(X, G) \
	X(PROFILE, "profile", 'p', "FILE|NAME", "cost profile for the owned and rented cost of each run") \
	X(SET, "set", 's', "KEY=VALUE", "override one cost parameter (repeatable; after the profile)") \
	X(DEADLINE, "deadline", 0, "DURATION", "also name the cheapest measured GPU count that finishes within DURATION (12h, 90m)") \
	X(MAX_COST, "max-cost-per-speedup", 0, "X", "also name the count beyond which one more unit of speedup costs more than X") \
	X(JSON, "json", 0, NULL, "machine-readable output (keys: docs/scale.md)") \
	X(LOGS, "logs", 0, NULL, "the operands are GPU logs (read as by report): one run per GPU count the task ran on") \
	X(TASK, "task", 0, "NAME", "--logs: the process name whose runs to take (default: the busiest; without process data, GPUs doing work)") \
	X(APP_LOG, "app-log", 0, "FILE", "--logs: the job's JSON-lines log, whose steps' samples_per_s or items_per_s give each run's throughput (repeatable)") \
	X(GAP, "gap", 0, "DURATION", "--logs: a task's stretches on one GPU closer than this are one run (default 10s)") \
	X(MIN_RUN, "min-run", 0, "DURATION", "--logs: windows shorter than this are listed but are not runs (default 1m)") \
	G(INGEST_OPTIONS) \
	X(HELP, "help", 'h', NULL, "show this help")

enum { OPTION_IDS(SCALE_OPTIONS) };

const struct option_def scale_options[] = { OPTION_ROWS(SCALE_OPTIONS) OPTIONS_END };

/* An application log's bad line, into the pipeline's policy. */
static bool app_bad(void *ud, const struct gl_err *b)
{
	return pipeline_bad_line(ud, b->src, b->line, b->col, b->msg);
}

/* Read the --app-log files: 0, 1 when a bad line stopped the run (--strict),
 * or -(exit code). */
static int read_apps(struct pipeline *pl, const char **apps, int napps, struct scale_step **steps,
		     size_t *nsteps, struct scale_logs *lg)
{
	struct gl_err err = { 0 };

	for (int i = 0; i < napps; i++) {
		FILE *f = fopen_bounded(apps[i], APP_LOG_MAX, APP_LINE_MAX);
		if (!f) {
			error("cannot open '%s'", apps[i]);
			return -EXIT_FAILURE_RUN;
		}
		long got = scale_app_read(f, apps[i], steps, nsteps, &lg->app, app_bad, pl, &err);
		if (ferror(f)) {
			error("%s: not read: %s", apps[i], errno == EFBIG ? fd_bound_error() : strerror(errno));
			fclose(f);
			return -EXIT_INPUT;
		}
		fclose(f);
		if (got < 0) {
			print_gl_err(&err);
			return -EXIT_FAILURE_RUN;
		}
		if (pl->stop.path)
			return 1;
	}
	return 0;
}

/* The runs of --logs: read the logs, find the task's windows, put the app
 * log's steps in them, one run per GPU count.  Returns the number of runs,
 * or -(exit code). */
static int runs_from_logs(const char **paths, int npaths, struct ingest_cli *ic, const char *task,
			  const char **apps, int napps, int64_t gap_ns, struct scale_run *runs,
			  struct scale_window **win, struct scale_logs *lg)
{
	struct pipeline_opts popts;
	struct pipeline pl;
	struct scale_step *steps = NULL;
	struct task_window *tw = NULL;
	size_t nsteps = 0, nw;
	int st, ret = 0;

	ingest_cli_pipeline(ic, paths, npaths, &popts);
	pipeline_open(&pl, &popts);	/* no page to draw: no display series */
	st = pipeline_run(&pl);
	/* the application logs' bad lines go by the logs' policy: read them
	 * now, so that one list and one count line say them all */
	if (st == PIPE_OK && (ret = read_apps(&pl, apps, napps, &steps, &nsteps, lg)) > 0)
		st = PIPE_STOPPED;
	pipeline_say_bad(&pl);
	if (st != PIPE_OK) {
		ret = -pipeline_say_status(&pl, st, "");
		goto out;
	}
	if (ret < 0)
		goto out;
	if (ingest_named_unread(&pl.res)) {
		ret = -EXIT_FAILURE_RUN;	/* an unreadable file given by name */
		goto out;
	}
	if (task) {
		bool seen = false;
		for (size_t i = 0; i < pl.an->nprocs && !seen; i++)
			seen = !strcmp(pl.an->procs[i].name, task);
		if (!seen) {
			error("no process named '%s' in the logs (--task takes a process name as report lists it)", task);
			ret = -EXIT_INPUT;
			goto out;
		}
	} else {
		task = task_busiest(pl.an);
	}
	lg->task = task ? xstrdup(task) : NULL;
	tw = xcalloc(SCALE_MAX_RUNS, sizeof(*tw));
	nw = task_windows(pl.an, lg->task, gap_ns, tw, SCALE_MAX_RUNS);
	if (nw > SCALE_MAX_RUNS) {
		warning("%zu windows of the task; only the first %d are taken", nw, SCALE_MAX_RUNS);
		nw = SCALE_MAX_RUNS;
	}
	if (!nw) {
		error(task ? "the logs show no window of '%s'" : "the logs show no GPU doing work%s",
		      task ? task : "");
		ret = -EXIT_INPUT;
		goto out;
	}
	*win = xcalloc(nw, sizeof(**win));
	size_t nlong = 0;
	for (size_t i = 0; i < nw; i++) {
		(*win)[i] = (struct scale_window){ tw[i].t0_ns, tw[i].t1_ns, tw[i].gpus, false, 0, 0, 0, NAN, NAN };
		(*win)[i].short_run = tw[i].t1_ns - tw[i].t0_ns < lg->min_run_ns;
		nlong += !(*win)[i].short_run;
	}
	lg->win = *win;
	lg->nwin = nw;
	if (!nlong) {
		char d[32];
		error("every window of %s is shorter than --min-run %s", task ? task : "work in the logs",
		      time_human_dur(d, sizeof(d), lg->min_run_ns));
		ret = -EXIT_INPUT;
		goto out;
	}
	lg->app_logs = napps ? apps : NULL;
	scale_windows_steps(*win, nw, steps, nsteps);
	ret = (int)scale_runs_from_windows(*win, nw, napps > 0, runs, SCALE_MAX_RUNS);
	lg->basis = ret > 0 && runs[0].have & SC_THROUGHPUT ? "throughput: the application log's steps in each run"
			: napps ? "hours of each run (a GPU count has no application step): the same work assumed at every count"
				: "hours of each run (no application log): the same work assumed at every count";
out:
	free(tw);
	free(steps);
	pipeline_close(&pl);
	return ret;
}

int cmd_scale(int argc, char **argv)
{
	struct option_iter it;
	struct cost_params p;
	struct gl_err err = { 0 };
	struct ingest_cli ic;
	struct scale_run *runs = NULL;
	struct scale_result *res = NULL;
	struct scale_window *win = NULL;
	struct scale_logs lg = { 0 };
	const char **ops = NULL, **apps = NULL;
	const char *profile = NULL, **sets = NULL, *task = NULL;
	int nops = 0, nsets = 0, napps = 0, id, json = 0, logs = 0, ingest_opt = 0, min_run = 0, n, ret = EXIT_OK;
	double deadline_h = NAN, max_cost = NAN;
	int64_t gap_ns = -1;
	FILE *in;

	ingest_cli_init(&ic);
	option_iter_init(&it, argc, argv);
	while ((id = option_next(&it, scale_options, &ops, &nops)) != 0) {
		switch (id) {
		case -1:
			return EXIT_USAGE;
		case OPT_HELP:
			options_help("scale", "[options] RUNS.csv | --logs [options] FILE|DIR...",
				     "From runs of one job at several GPU counts (CSV: gpus, and hours or throughput;\n"
				     "optional iterations and cost), or the runs a task made in GPU logs (--logs):\n"
				     "speedup and efficiency, the Amdahl serial fraction and the Universal Scalability\n"
				     "Law fitted by least squares, and the cost of each count.",
				     scale_options);
			return EXIT_OK;
		case OPT_JSON:
			json = 1;
			break;
		case OPT_LOGS:
			logs = 1;
			break;
		case OPT_TASK:
			task = it.arg;
			break;
		case OPT_APP_LOG:
			apps = xreallocarray(apps, (size_t)napps + 2, sizeof(*apps));
			apps[napps++] = it.arg;
			apps[napps] = NULL;
			break;
		case OPT_GAP:
			if (time_parse_dur(it.arg, &gap_ns) || gap_ns < 0) {
				error("--gap wants a duration such as 10s or 2m, got '%s'", it.arg);
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case OPT_MIN_RUN:
			if (time_parse_dur(it.arg, &lg.min_run_ns) || lg.min_run_ns < 0) {
				error("--min-run wants a duration such as 1m or 30s, got '%s'", it.arg);
				ret = EXIT_USAGE;
				goto out;
			}
			min_run = 1;
			break;
		case OPT_PROFILE:
			profile = it.arg;
			break;
		case OPT_SET:
			sets = xreallocarray(sets, (size_t)nsets + 1, sizeof(*sets));
			sets[nsets++] = it.arg;
			break;
		case OPT_DEADLINE: {
			int64_t ns;
			if (time_parse_dur(it.arg, &ns) || ns <= 0) {
				error("--deadline wants a duration such as 12h or 90m, got '%s'", it.arg);
				ret = EXIT_USAGE;
				goto out;
			}
			deadline_h = (double)ns / 3.6e12;
			break;
		}
		case OPT_MAX_COST: {
			struct slice s = { it.arg, strlen(it.arg) };
			if (slice_to_double(s, &max_cost) || !(max_cost >= 0) || isinf(max_cost)) {
				error("--max-cost-per-speedup wants a number >= 0, got '%s'", it.arg);
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		}
		default:
			if (ingest_cli_option(&ic, id, it.arg) < 0) {
				ret = EXIT_USAGE;
				goto out;
			}
			ingest_opt = 1;
		}
	}
	if (!logs && (task || napps || gap_ns >= 0 || min_run || ingest_opt)) {
		error("--task, --app-log, --gap, --min-run and the log-reading options go with --logs");
		ret = EXIT_USAGE;
		goto out;
	}
	if (!logs && nops != 1) {
		error("scale needs one run table (CSV with gpus and hours or throughput; '-' for standard input), or --logs FILE|DIR...");
		ret = EXIT_USAGE;
		goto out;
	}
	if (logs && !nops) {
		error("--logs needs at least one log file or directory");
		ret = EXIT_USAGE;
		goto out;
	}
	if ((ret = cli_cost_params(&p, profile, sets, nsets)) != EXIT_OK)
		goto out;
	runs = xcalloc(SCALE_MAX_RUNS, sizeof(*runs));
	if (logs) {
		if (!min_run)
			lg.min_run_ns = DEFAULT_MIN_RUN_NS;
		ingest_cli_apply(&ic);
		n = runs_from_logs(ops, nops, &ic, task, apps, napps, gap_ns >= 0 ? gap_ns : DEFAULT_GAP_NS, runs,
				   &win, &lg);
		if (n < 0) {
			ret = -n;
			goto out;
		}
	} else {
		/* a run table is a few lines: bounded, so /dev/zero ends */
		in = fopen_bounded(ops[0], SCALE_TABLE_MAX, 4096);
		if (!in) {
			error("cannot open '%s'", ops[0]);
			ret = EXIT_FAILURE_RUN;
			goto out;
		}
		n = scale_read(in, ops[0], runs, SCALE_MAX_RUNS, &err);
		if (ferror(in)) {
			error("%s: not read: %s", ops[0], errno == EFBIG ? fd_bound_error() : strerror(errno));
			fclose(in);
			ret = EXIT_INPUT;
			goto out;
		}
		fclose(in);
		if (n < 0) {
			print_gl_err(&err);
			ret = EXIT_INPUT;
			goto out;
		}
	}
	res = xcalloc(1, sizeof(*res));
	scale_compute(runs, (size_t)n, &p, deadline_h, max_cost, res);
	{	/* the output's writer, by name */
		const struct scale_writer *wr = scale_writer_find(json ? "json" : "text");
		if (wr->for_terminal)
			term_safe_stdout();
		wr->render(stdout, res, &p, logs ? NULL : ops[0], logs ? &lg : NULL);
	}
out:
	free(runs);
	free(res);
	free(win);
	free((char *)lg.task);
	free(sets);
	free(apps);
	free(ops);
	return ret;
}
