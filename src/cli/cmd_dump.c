/* SPDX-License-Identifier: MIT */
/*
 * gputally dump: every record the parsers produce, one JSON object per line,
 * in the order the analysis sees them.  The format fixtures compare this.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/ingest_opts.h"
#include "cli/usage.h"
#include "formats/driver.h"
#include "pipeline/pipeline.h"
#include "util/jsonw.h"
#include "util/timeutil.h"

#define DUMP_OPTIONS(X, G) \
	G(INGEST_OPTIONS) \
	X(HELP, "help", 'h', NULL, "show this help")

enum { OPTION_IDS(DUMP_OPTIONS) };

const struct option_def dump_options[] = { OPTION_ROWS(DUMP_OPTIONS) OPTIONS_END };

struct dump_ctx {
	struct jsonw w;
};

static const char *const kind_names[] = { "sample", "proc", "event", "bad", "trace", "anchor", "job" };

/* The kernel-event fields (formats/kmsg.h), those that are set. */
static void dump_kev(struct jsonw *w, const struct rec *r, const struct batch *b)
{
	static const char *const sev[] = { "info", "warning", "error", "fatal" };

	if (r->kev.code >= 0)
		jsonw_kint(w, "code", r->kev.code);
	if (r->kev.pci != STR_NONE)
		jsonw_kstr(w, "pci", batch_str(b, r->kev.pci));
	if (r->pid > 0)
		jsonw_kint(w, "pid", r->pid);
	if (r->kev.proc != STR_NONE)
		jsonw_kstr(w, "process", batch_str(b, r->kev.proc));
	if (r->kev.text != STR_NONE)
		jsonw_kstr(w, "text", batch_str(b, r->kev.text));
	if (r->kev.klass != KC_NONE && r->kev.klass < KC__COUNT)
		jsonw_kstr(w, "class", kev_class_name[r->kev.klass]);
	/* events of the kernel-log classifier (older kinds keep their shape) */
	if (r->ev > EV_XID || r->kev.code >= 0 || r->kev.klass != KC_NONE)
		jsonw_kstr(w, "severity", sev[r->kev.severity & 3]);
	if (r->kev.flags & KF_DOWN)
		jsonw_kbool(w, "down", true);
	if (r->kev.flags & KF_CONSEQUENCE)
		jsonw_kbool(w, "consequence", true);
	if (r->kev.count > 1)
		jsonw_kint(w, "count", r->kev.count);
}

static int dump_rec(void *ud, const struct input_stat *in, const struct rec *r,
		    const struct batch *b)
{
	struct dump_ctx *d = ud;
	struct jsonw *w = &d->w;

	(void)in;	/* the per-input summary comes after the records */

	jsonw_init(w, stdout, false);
	jsonw_obj_begin(w);
	/* a task label (gpu_monitor.sh's TASK_ID) is a proc record with no pid */
	jsonw_kstr(w, "kind", r->kind == REC_PROC && r->pid == PID_TASK ? "task" : kind_names[r->kind]);
	if (r->kind == REC_BAD) {	/* on standard error too, by the pipeline's policy */
		jsonw_kint(w, "line", (int64_t)r->line);
		jsonw_kint(w, "col", r->col);
		jsonw_kstr(w, "msg", batch_str(b, r->name));
		if (r->ev == BAD_FATAL)
			jsonw_kbool(w, "fatal", true);
		jsonw_obj_end(w);
		fputc('\n', stdout);
		return 0;
	}
	if (r->time_kind == TK_BOOT) {
		/* a kernel printk time nothing placed (formats/anchor.h) */
		jsonw_key(w, "t");
		jsonw_null(w);
		jsonw_kint(w, "boot", r->kev.boot);
		jsonw_knum(w, "boot_s", (double)r->t_ns / 1e9, 6);
	} else {
		jsonw_ktime(w, "t", r->t_ns);
	}
	jsonw_kint(w, "line", (int64_t)r->line);
	if (r->gpu_index >= 0)
		jsonw_kint(w, "gpu", r->gpu_index);
	if (r->uuid != STR_NONE)
		jsonw_kstr(w, "uuid", batch_str(b, r->uuid));
	switch (r->kind) {
	case REC_SAMPLE:
		if (r->name != STR_NONE)
			jsonw_kstr(w, "name", batch_str(b, r->name));
		if (r->status) {
			jsonw_key(w, "status");
			jsonw_arr_begin(w);
			if (r->status & GS_LOST) jsonw_str(w, "lost");
			if (r->status & GS_RESET) jsonw_str(w, "reset_required");
			if (r->status & GS_READ_ERROR) jsonw_str(w, "read_error");
			jsonw_arr_end(w);
		}
		for (int m = 0; m < M__COUNT; m++)
			if (r->present & (1u << m))
				jsonw_knum(w, metric_info[m].name, r->v[m], 3);
		break;
	case REC_PROC:
		if (r->pid == PID_TASK) {
			if (r->name != STR_NONE)
				jsonw_kstr(w, "task", batch_str(b, r->name));
			break;
		}
		jsonw_kint(w, "pid", r->pid);
		if (r->name != STR_NONE)
			jsonw_kstr(w, "process", batch_str(b, r->name));
		if (r->present & PF_SM)
			jsonw_knum(w, "sm_pct", r->v[0], 3);
		if (r->present & PF_MEM)
			jsonw_knum(w, "mem_pct", r->v[1], 3);
		if (r->present & PF_FB)
			jsonw_knum(w, "fb_mib", r->v[2], 3);
		if (r->present & PF_WHO) {
			/* who it belongs to (record's columns) */
			if (r->pw.user != STR_NONE)
				jsonw_kstr(w, "user", batch_str(b, r->pw.user));
			if (r->pw.job != STR_NONE)
				jsonw_kstr(w, "job", batch_str(b, r->pw.job));
			if (r->pw.task != STR_NONE)
				jsonw_kstr(w, "task", batch_str(b, r->pw.task));
			if (r->pw.ctr != STR_NONE)
				jsonw_kstr(w, "container", batch_str(b, r->pw.ctr));
		}
		break;
	case REC_JOB:
		if (r->job.id != STR_NONE)
			jsonw_kstr(w, "job", batch_str(b, r->job.id));
		if (r->job.t1_ns == INT64_MAX)
			jsonw_kstr(w, "end", "running");
		else
			jsonw_ktime(w, "end", r->job.t1_ns);
		if (r->job.user != STR_NONE)
			jsonw_kstr(w, "user", batch_str(b, r->job.user));
		if (r->job.account != STR_NONE)
			jsonw_kstr(w, "account", batch_str(b, r->job.account));
		if (r->job.nodes != STR_NONE)
			jsonw_kstr(w, "nodes", batch_str(b, r->job.nodes));
		jsonw_kint(w, "nnodes", r->job.nnodes);
		if (r->job.energy_j == r->job.energy_j)
			jsonw_knum(w, "energy_j", r->job.energy_j, 1);
		jsonw_kint(w, "gpus", r->job.ngpus);
		if (r->job.gpu_mask) {
			jsonw_key(w, "gpu_indices");
			jsonw_arr_begin(w);
			for (int i = 0; i < 64; i++)
				if (r->job.gpu_mask >> i & 1)
					jsonw_int(w, i);
			jsonw_arr_end(w);
		}
		if (r->job.gpuutil_pct == r->job.gpuutil_pct)
			jsonw_knum(w, "gpuutil_pct", r->job.gpuutil_pct, 1);
		if (r->job.gpumem_mib == r->job.gpumem_mib)
			jsonw_knum(w, "gpumem_mib", r->job.gpumem_mib, 1);
		break;
	case REC_EVENT:
		jsonw_kstr(w, "event", event_kind_name[r->ev]);
		jsonw_kstr(w, "msg", batch_str(b, r->name));
		dump_kev(w, r, b);
		break;
	case REC_TRACE:
		jsonw_kstr(w, "trace", trace_ev_name[r->ev]);
		if (r->pid >= 0)
			jsonw_kint(w, "pid", r->pid);
		jsonw_kint(w, "t_ns", r->t_ns);
		jsonw_kint(w, "dur_ns", r->tr.dur_ns);
		if (r->tr.stream >= 0 && r->ev != TR_SUMMARY)
			jsonw_kint(w, "stream", r->tr.stream);
		if (r->tr.corr >= 0 || r->ev == TR_SUMMARY)
			jsonw_kint(w, r->ev == TR_SUMMARY ? "events" : r->ev == TR_STEP ? "step" : "corr", r->tr.corr);
		if (r->ev == TR_SUMMARY)
			jsonw_kint(w, "used", r->tr.stream);
		if (r->name != STR_NONE)
			jsonw_kstr(w, "name", batch_str(b, r->name));
		break;
	}
	jsonw_obj_end(w);
	fputc('\n', stdout);
	return 0;
}

int cmd_dump(int argc, char **argv)
{
	struct option_iter it;
	struct ingest_cli ic;
	struct pipeline_opts popts;
	struct pipeline pl;
	struct dump_ctx d = { 0 };
	const char **ops = NULL;
	int nops = 0, id, st, ret;

	ingest_cli_init(&ic);
	option_iter_init(&it, argc, argv);
	while ((id = option_next(&it, dump_options, &ops, &nops)) != 0) {
		if (id < 0)
			return EXIT_USAGE;
		if (id == OPT_HELP) {
			options_help("dump", "[options] FILE|DIR...",
				     "Print every parsed record as one JSON object per line (for fixtures and debugging).",
				     dump_options);
			return EXIT_OK;
		}
		if (ingest_cli_option(&ic, id, it.arg) < 0)
			return EXIT_USAGE;
	}
	if (nops == 0) {
		error("dump needs at least one file or directory");
		return EXIT_USAGE;
	}
	ingest_cli_apply(&ic);
	ingest_cli_pipeline(&ic, ops, nops, &popts);
	popts.no_analysis = true;	/* the records are the output */
	popts.tap = dump_rec;
	popts.tap_ud = &d;
	pipeline_open(&pl, &popts);
	st = pipeline_run(&pl);
	pipeline_say_bad(&pl);
	for (size_t i = 0; i < pl.res.nr; i++) {
		const struct input_stat *in = &pl.res.inputs[i];
		if (input_unread(in))
			fprintf(stderr, "%s: skipped: %s\n", in->path, in->skip_reason);
		else	/* a file cut short: read up to the cut, and said so */
			fprintf(stderr, "%s: %s, %" PRIu64 " lines, %" PRIu64 " records, %" PRIu64 " skipped (%s)%s%s\n",
				in->path, in->format->id, in->lines, in->records, in->bad,
				in->time_basis ? in->time_basis : "no timed records",
				in->skip_reason[0] ? "; " : "", in->skip_reason);
	}
	ret = st != PIPE_OK ? pipeline_say_status(&pl, st, "")
			    : ingest_named_unread(&pl.res) ? EXIT_FAILURE_RUN : EXIT_OK;
	pipeline_close(&pl);
	free(ops);
	return ret;
}
