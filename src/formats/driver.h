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
#include "util/err.h"

/* What the driver learnt about one input.  Strings are owned by the result. */
struct input_stat {
	char *path;
	const struct format *format;	/* NULL when skipped */
	char why[96];			/* "sniffed smi-dmon (score 95)" or "--format" */
	char skip_reason[320];		/* set when the file was not read */
	const char *compression;	/* "plain", "gzip", "zstd" */
	const char *time_basis;		/* how times were obtained, see driver_time.c */
	uint64_t bytes;			/* decompressed bytes */
	uint64_t lines, records, bad;
	bool partial_last_line;
	bool partial_last_read;		/* that last line was a whole row and was read */
	uint64_t dst_repeats;		/* records placed in the second pass of a repeated hour */
	int64_t t_first_ns, t_last_ns;	/* INT64_MIN when no timed record */
	/* a log with no time (place.h): where its ticks were put and why */
	char basis[320];		/* time_basis when set */
	int64_t *placed_ns;		/* by content: the time of each tick, owned */
	size_t nplaced;
	const char *place_ref;		/* the timed input it was matched with */
	double place_r;			/* the fit's correlation (NAN: not by content) */
	double place_uncertain_s;	/* how far off it may be (NAN: unknown) */
	/* a headerless query CSV: the column list it is read with when it was
	 * inferred (a sibling file's header), owned, and what was decided */
	char *columns;
	bool columns_tried;
	char columns_note[256];
	/* a query CSV's columns that map to no field, as written ("a, b"), or empty */
	char columns_unread[256];
	/* a kernel log (TK_BOOT): how each boot is placed (anchor.h), owned,
	 * NULL when nothing places it; its records that stayed TK_BOOT */
	struct anc_plan *anchor;
	uint64_t unplaced;
	/* what sniffing the file's head found, once: the pre-passes and the
	 * run open a file up to three times (driver_prepass.c) */
	bool sniffed;
	const struct format *sniff_format;	/* NULL: no format took it */
	int sniff_score;
	/* stamps without a zone checked against zoned evidence (zone.h): the
	 * shift added to them and what was found (NULL: nothing to say); a
	 * time-of-day log dated by a dated log beside it: that date (local
	 * days) and the basis text; time_basis with the zone sentence added.
	 * The texts are owned, allocated only when there is something to say
	 * (a directory of thousands of logs keeps its inputs small) */
	int64_t zone_shift_ns;
	char *zone_note;
	bool tod_by_evidence;
	int64_t tod_days;
	char *tod_note;
	char *time_note;
	bool named;		/* given by name, not found in a directory */
	/* a stream (standard input, a pipe, a FIFO): read once into a copy
	 * (spool.h) that every pass reads by read_path, owned */
	bool stream;
	bool spool_cut;		/* longer than the copy's limit: read up to it */
	int spool_fd;
	char *read_path;
};

struct ingest_result {
	struct input_stat *inputs;
	size_t nr, alloc;
};

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

/* An input that no pass read (skip_reason says why); one read up to a cut
 * has its format and a note in skip_reason instead. */
static inline bool input_unread(const struct input_stat *in)
{
	return !in->format && in->skip_reason[0];
}

/* Sniff one head buffer; returns the best format or NULL, with its score. */
const struct format *format_sniff(const char *head, size_t n, const char *name, int *score);

/* The YYYYMMDD date in a file name (e.g. "dmon_20261129.log"), or INT64_MIN. */
int64_t date_from_name(const char *path);

#endif
