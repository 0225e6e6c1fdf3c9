/* SPDX-License-Identifier: MIT */
/* Options every command that reads logs shares (report, dump). */
#ifndef CLI_INGEST_OPTS_H
#define CLI_INGEST_OPTS_H

#include "cli/options.h"
#include "formats/driver.h"
#include "formats/format.h"
#include "pipeline/pipeline.h"

/* The input options, a group of every command's list (options.h): G(INGEST_OPTIONS). */
#define INGEST_OPTIONS(X)                                                                           \
	X(I_FORMAT, "format", 'f', "ID", "read every input as format ID (see 'gputally formats') instead of sniffing") \
	X(I_TZ, "tz", 0, "ZONE", "time zone of timestamps that carry none (default: the machine's, or $TZ)") \
	X(I_DATE, "date", 0, "YYYY-MM-DD", "date for logs that only carry a time of day (dmon -o T) when no dated log beside them or their file name gives it; for syslog and journalctl lines without a year, the last day of the log") \
	X(I_COLUMNS, "columns", 0, "LIST", "column names for headerless --query-gpu CSV (as given to --query-gpu)") \
	X(I_INTERVAL, "interval", 0, "DUR", "sample interval of logs with no time at all (default 1s)") \
	X(I_START, "start", 0, "TIME", "first sample time of logs with no time at all (RFC 3339), instead of placing them by content") \
	X(I_THREADS, "threads", 'j', "N", "CPUs to parse on (default: all)") \
	X(I_STRICT, "strict", 0, NULL, "stop at the first bad input line (exit 3)") \
	X(I_TOLERANT, "tolerant", 0, NULL, "JSON traces: accept a cut file (keep the complete events) and trailing commas") \
	X(I_BOOT_TIME, "boot-time", 0, "TIME", "when the kernel of a kernel log's last boot started (RFC 3339 or epoch seconds), for dmesg times with no better anchor")

/* Their ids, apart from every command's own (which count from 1). */
#define INGEST_OPTION_ID(id, name, short_name, arg, help) OPT_##id,
enum { OPT_I__BASE = 99, INGEST_OPTIONS(INGEST_OPTION_ID) };

struct ingest_cli {
	struct ingest_opts o;
	const char *tz;
	int strict;
};

void ingest_cli_init(struct ingest_cli *c);
/* Handle one ingest option; returns 0 if consumed, 1 if not ours, -1 on error. */
int ingest_cli_option(struct ingest_cli *c, int id, const char *arg);
/* Print "PATH: why" for each input given by name that was not read (a
 * missing file, garbage, a stream cut before its first line); returns how
 * many, for the exit status (1: an unreadable file given by name). */
size_t ingest_named_unread(const struct ingest_result *res);
/* Apply --tz (sets TZ for the process) once options are parsed. */
void ingest_cli_apply(struct ingest_cli *c);

/* The driver options, --strict and the paths as a pipeline's options. */
void ingest_cli_pipeline(const struct ingest_cli *c, const char *const *paths, int npaths,
			 struct pipeline_opts *o);

/* Bad lines shown on standard error with their position; the rest are counted. */
#define PIPELINE_BAD_SHOWN 20
/*
 * The bad-line policy's messages, the same for every command (docs/gputally.1,
 * "BAD INPUT LINES"): the first PIPELINE_BAD_SHOWN kept lines as
 * "file:line:col: reason", then, when the run went on, one line
 * "gputally: N input line(s) skipped (...)"; when a bad line stopped it,
 * why instead (--strict, or a file that cannot be read to its end).
 * Prints nothing when there was no bad line.
 */
void pipeline_say_bad(const struct pipeline *p);
/*
 * Say why pipeline_run() did not finish (status: its return) and return the
 * exit code for it: EXIT_INPUT for a bad line that stopped the run,
 * EXIT_USAGE for files and a server that cannot go together,
 * EXIT_FAILURE_RUN for a failed run.  `note` follows the --strict message
 * ("; nothing of this run was stored"), "" for none.
 */
int pipeline_say_status(const struct pipeline *p, int status, const char *note);

#endif
