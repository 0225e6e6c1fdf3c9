/* SPDX-License-Identifier: MIT */
/* gputally record: sample every GPU through NVML into the gputally CSV. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/usage.h"
#include "record/http.h"
#include "record/recorder.h"
#include "util/timeutil.h"

#define RECORD_OPTIONS(X, G) \
	X(TASK, "task", 't', "NAME", "task id in every row and in the file name (default 'gputally'; letters, digits, . _ -)") \
	X(INTERVAL, "interval", 'i', "DUR", "time between samples (default 1s; at least 1ms)") \
	X(DIR, "dir", 'd', "DIR", "directory for the daily CSV files (default ./gputally-logs)") \
	X(COUNT, "count", 'n', "N", "take N samples, then exit (default: until SIGTERM or SIGINT)") \
	X(STDOUT, "stdout", 0, NULL, "write the CSV to standard output instead of files") \
	X(NVML_LIB, "nvml-lib", 0, "PATH", "load NVML from PATH (default $GPUTALLY_NVML_LIB, then libnvidia-ml.so.1)") \
	X(FSYNC_EVERY, "fsync-every", 0, "N", "fsync the CSV every N samples (default: about every 10 s)") \
	X(HOST, "host", 0, "NAME", "host name written in every row (default: the machine's)") \
	X(PROM_TEXTFILE, "prom-textfile", 0, "DIR", "also write DIR/gputally.prom (Prometheus text) after each sample, by atomic rename") \
	X(LISTEN, "listen", 0, "ADDR:PORT", "also serve GET /metrics and /health over HTTP (loopback only, e.g. 127.0.0.1:9400)") \
	X(LISTEN_ANY, "listen-any", 0, NULL, "allow --listen on a non-loopback address (no authentication: firewall it)") \
	X(QUIET, "quiet", 'q', NULL, "no start-up and exit notes on standard error") \
	X(HELP, "help", 'h', NULL, "show this help")

enum { OPTION_IDS(RECORD_OPTIONS) };

const struct option_def record_options[] = { OPTION_ROWS(RECORD_OPTIONS) OPTIONS_END };

static int parse_count(const char *s, uint64_t *out, uint64_t max)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-')
		return -1;
	v = strtoull(s, &end, 10);
	if (*end || v < 1 || v > max)
		return -1;
	*out = v;
	return 0;
}

/* The task names a file, so keep it to a safe portable set. */
static int task_ok(const char *t)
{
	size_t n = strlen(t);

	if (!n || n > 64 || t[0] == '.')
		return 0;
	for (; *t; t++)
		if (!((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') ||
		      (*t >= '0' && *t <= '9') || *t == '.' || *t == '_' || *t == '-'))
			return 0;
	return 1;
}

int cmd_record(int argc, char **argv)
{
	struct option_iter it;
	struct record_opts o = { 0 };
	struct record_stats st;
	struct gl_err err = { 0 };
	const char **ops = NULL;
	uint64_t v;
	int nops = 0, id, quiet = 0;

	o.task = "gputally";
	o.dir = "gputally-logs";
	o.interval_ns = NS_PER_S;
	o.nvml_lib = getenv("GPUTALLY_NVML_LIB");
	if (o.nvml_lib && !*o.nvml_lib)
		o.nvml_lib = NULL;
	option_iter_init(&it, argc, argv);
	while ((id = option_next(&it, record_options, &ops, &nops)) != 0) {
		switch (id) {
		case -1:
			free(ops);
			return EXIT_USAGE;
		case OPT_HELP:
			options_help("record", "[options]",
				     "Sample every GPU through NVML and append one row per GPU per sample to\n"
				     "<dir>/<task>_<YYYYMMDD>.csv (the gputally CSV; 'gputally report DIR' reads it).",
				     record_options);
			free(ops);
			return EXIT_OK;
		case OPT_TASK:
			if (!task_ok(it.arg)) {
				free(ops);
				return error("--task wants 1-64 of letters, digits, '.', '_', '-', got '%s'",
					     it.arg), EXIT_USAGE;
			}
			o.task = it.arg;
			break;
		case OPT_INTERVAL:
			if (time_parse_dur(it.arg, &o.interval_ns) || o.interval_ns < NS_PER_MS ||
			    o.interval_ns > 86400 * NS_PER_S) {
				free(ops);
				return error("--interval wants a duration from 1ms to 1d, such as 1s or 100ms, got '%s'",
					     it.arg), EXIT_USAGE;
			}
			break;
		case OPT_DIR:
			o.dir = it.arg;
			break;
		case OPT_COUNT:
			if (parse_count(it.arg, &o.count, UINT64_MAX / 2)) {
				free(ops);
				return error("--count wants a positive number, got '%s'", it.arg), EXIT_USAGE;
			}
			break;
		case OPT_STDOUT:
			o.to_stdout = true;
			break;
		case OPT_NVML_LIB:
			o.nvml_lib = it.arg;
			break;
		case OPT_FSYNC_EVERY:
			if (parse_count(it.arg, &v, 1000000)) {
				free(ops);
				return error("--fsync-every wants a number of samples from 1 to 1000000, got '%s'",
					     it.arg), EXIT_USAGE;
			}
			o.fsync_every = (unsigned int)v;
			break;
		case OPT_HOST:
			o.host = it.arg;
			break;
		case OPT_QUIET:
			quiet = 1;
			break;
		case OPT_PROM_TEXTFILE:
			o.prom_dir = it.arg;
			break;
		case OPT_LISTEN:
			o.listen = it.arg;
			break;
		case OPT_LISTEN_ANY:
			o.listen_any = true;
			break;
		}
	}
	if (nops) {
		error("record takes no arguments, got '%s' (did you mean --task or --dir?)", ops[0]);
		free(ops);
		return EXIT_USAGE;
	}
	free(ops);
	if (o.listen && http_check_addr(o.listen, o.listen_any, &err)) {
		error("%s", err.msg);
		return EXIT_USAGE;
	}
	o.log = quiet ? NULL : stderr;
	if (recorder_run(&o, &st, &err)) {
		print_gl_err(&err);
		return EXIT_FAILURE_RUN;
	}
	if (!quiet)
		fprintf(stderr, "gputally: record: %llu sample(s), %llu row(s) from %u GPU(s)%s\n",
			(unsigned long long)st.ticks, (unsigned long long)st.rows, st.ngpus,
			st.signalled ? ", stopped by a signal" : "");
	return EXIT_OK;
}
