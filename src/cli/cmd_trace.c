/* SPDX-License-Identifier: MIT */
/* gputally trace: kernel-level figures from profiler traces. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/trace.h"
#include "cli/commands.h"
#include "cli/ingest_opts.h"
#include "cli/usage.h"
#include "util/termsafe.h"
#include "formats/driver.h"
#include "pipeline/pipeline.h"
#include "report/trace_out.h"
#include "util/timeutil.h"

#define TRACE_OPTIONS(X, G) \
	X(JSON, "json", 0, NULL, "machine-readable output (keys: docs/trace-json.md)") \
	X(TOP, "top", 'n', "N", "list the N kernels with the most total time (default 10)") \
	X(SINCE, "since", 0, "TIME", "start of the cut: an ISO time, or a duration after the traces' first event (2s, 150ms)") \
	X(UNTIL, "until", 0, "TIME", "end of the cut, like --since") \
	X(WINDOW, "window", 'w', "FROM,TO", "both ends of the cut at once (--since FROM --until TO)") \
	X(OUTPUT, "output", 'o', "FILE", "write to FILE instead of standard output") \
	G(INGEST_OPTIONS) \
	X(HELP, "help", 'h', NULL, "show this help")

enum { OPTION_IDS(TRACE_OPTIONS) };

const struct option_def trace_options[] = { OPTION_ROWS(TRACE_OPTIONS) OPTIONS_END };

struct trace_ctx {
	struct trace_an *an;
	const struct input_stat *last_in;
	size_t last_file;
};

/* The tap: every record, bad ones too (a trace lists its own), into the trace analysis. */
static int on_rec(void *ud, const struct input_stat *in, const struct rec *r, const struct batch *b)
{
	struct trace_ctx *c = ud;

	if (in != c->last_in) {
		c->last_file = trace_file(c->an, in->path);
		c->last_in = in;
	}
	if (r->kind == REC_BAD)
		trace_bad(c->an, c->last_file, r, batch_str(b, r->name));
	else
		trace_add(c->an, c->last_file, r, b);
	return 0;
}

/* An ISO time, or a duration from the start of the traces. */
static int parse_when(const char *s, int64_t *t, bool *rel)
{
	if (!time_parse_iso(s, strlen(s), t)) {
		*rel = false;
		return 0;
	}
	if (!time_parse_dur(s, t) && *t >= 0) {
		*rel = true;
		return 0;
	}
	return error("wants an ISO time (2026-11-29T22:47:01.75Z) or a duration such as 150ms, got '%s'", s);
}

int cmd_trace(int argc, char **argv)
{
	struct option_iter it;
	struct ingest_cli ic;
	struct pipeline_opts popts;
	struct pipeline pl = { 0 };
	struct trace_an an;
	struct trace_ctx c = { 0 };
	const char **ops = NULL, *output = NULL;
	int nops = 0, id, st, json = 0, ret = EXIT_OK;
	long top = 10;
	FILE *out = stdout;

	ingest_cli_init(&ic);
	trace_init(&an, 10);
	option_iter_init(&it, argc, argv);
	while ((id = option_next(&it, trace_options, &ops, &nops)) != 0) {
		char *end;
		switch (id) {
		case -1:
			ret = EXIT_USAGE;
			goto out;
		case OPT_HELP:
			options_help("trace", "[options] FILE|DIR...",
				     "Kernel-level truth from PyTorch profiler (Kineto) traces: per GPU the kernel time as the\n"
				     "union across streams, copies, idle time split by cause, launch latency, top kernels,\n"
				     "ProfilerStep shares and whether the trace can be trusted.",
				     trace_options);
			goto out;
		case OPT_JSON:
			json = 1;
			break;
		case OPT_TOP:
			top = strtol(it.arg, &end, 10);
			if (*end || top < 0 || top > 100000) {
				error("--top wants 0..100000, got '%s'", it.arg);
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case OPT_SINCE:
			if (parse_when(it.arg, &an.since, &an.since_rel)) {
				ret = EXIT_USAGE;
				goto out;
			}
			an.has_since = true;
			break;
		case OPT_UNTIL:
			if (parse_when(it.arg, &an.until, &an.until_rel)) {
				ret = EXIT_USAGE;
				goto out;
			}
			an.has_until = true;
			break;
		case OPT_WINDOW: {
			char buf[128];
			char *comma;
			snprintf(buf, sizeof(buf), "%s", it.arg);
			if (!(comma = strchr(buf, ','))) {
				error("--window wants FROM,TO, got '%s'", it.arg);
				ret = EXIT_USAGE;
				goto out;
			}
			*comma = '\0';
			if (parse_when(buf, &an.since, &an.since_rel) ||
			    parse_when(comma + 1, &an.until, &an.until_rel)) {
				ret = EXIT_USAGE;
				goto out;
			}
			an.has_since = an.has_until = true;
			break;
		}
		case OPT_OUTPUT:
			output = it.arg;
			break;
		default:
			if (ingest_cli_option(&ic, id, it.arg) < 0) {
				ret = EXIT_USAGE;
				goto out;
			}
		}
	}
	an.top_n = (size_t)top;
	if (nops == 0) {
		error("trace needs at least one trace file or directory");
		ret = EXIT_USAGE;
		goto out;
	}
	ingest_cli_apply(&ic);
	c.an = &an;
	ingest_cli_pipeline(&ic, ops, nops, &popts);
	popts.no_analysis = true;	/* the tap reads the records into the trace analysis */
	popts.stop_on_fatal = true;	/* a trace cut short: its figures would be wrong */
	popts.tap = on_rec;
	popts.tap_ud = &c;
	pipeline_open(&pl, &popts);
	st = pipeline_run(&pl);
	pipeline_say_bad(&pl);
	if (st != PIPE_OK) {
		ret = pipeline_say_status(&pl, st, "");
		goto out;
	}
	if (an.has_since && an.has_until && !an.since_rel == !an.until_rel && an.until <= an.since) {
		error("the cut ends before it starts");
		ret = EXIT_USAGE;
		goto out;
	}
	trace_compute(&an);
	if (ingest_named_unread(&pl.res))
		ret = EXIT_FAILURE_RUN;	/* after the output, which lists it */
	if (output && !(out = fopen(output, "w"))) {
		error("cannot write '%s'", output);
		ret = EXIT_FAILURE_RUN;
		goto out;
	}
	{	/* the output's writer, by name */
		const struct trace_writer *wr = trace_writer_find(json ? "json" : "text");
		if (wr->for_terminal)
			out = term_safe(out);	/* closed below */
		wr->render(out, &an, &pl.res);
	}
	if (fflush(out) || ferror(out)) {
		error("writing the output failed");
		ret = EXIT_FAILURE_RUN;
	}
	if (out != stdout)
		fclose(out);
out:
	trace_release(&an);
	pipeline_close(&pl);
	free(ops);
	return ret;
}
