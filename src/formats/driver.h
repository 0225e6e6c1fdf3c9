/* SPDX-License-Identifier: MIT */
/*
 * The ingest driver: turns a list of files into one stream of records in
 * time order, parsing chunks of each file on worker threads.
 *
 * Every record handed to the sink has time_kind TK_ABS (UTC ns) and an
 * absolute line number.  Records of different inputs are merged by time, so
 * a sink sees each GPU's samples (nearly) in order whatever the file order.
 */
#ifndef FORMATS_DRIVER_H
#define FORMATS_DRIVER_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/anchor.h"
#include "formats/format.h"
#include "formats/input.h"
#include "util/err.h"

/*
 * The consumer.  rec() gets each record with its input and the batch that
 * holds its strings (valid only during the call).  A non-zero return stops
 * the ingest (ingest_run then returns that value).
 */
struct ingest_sink {
	void *ud;
	int (*rec)(void *ud, const struct input_stat *in, const struct rec *r,
		   const struct batch *b);
	/* Optional: once every input is found and sniffed, before the first
	 * record (res->inputs[i].format says what each one is). */
	void (*begin)(void *ud, const struct ingest_result *res);
};

/*
 * Expand files and directories (recursively, sorted by name) into inputs,
 * sniff each, parse, and feed the sink.  A file no format recognises is
 * recorded as skipped, not an error.  Returns 0, the sink's non-zero code,
 * or a GL_E* code with err filled for failures of the run itself.
 */
int ingest_run(const char *const *paths, size_t npaths, const struct ingest_opts *o,
	       struct ingest_sink *sink, struct ingest_result *res, struct gl_err *err);

void ingest_result_release(struct ingest_result *res);

/* format_sniff() is declared in format.h; struct input_stat, struct
 * ingest_result and input_unread() in input.h. */

/* The YYYYMMDD date in a file name (e.g. "dmon_20261129.log"), or INT64_MIN. */
int64_t date_from_name(const char *path);

#endif
