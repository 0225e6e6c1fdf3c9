/* SPDX-License-Identifier: MIT */
/*
 * The one read path every command uses: sources (files through the format
 * driver, a Prometheus server, a store) -> timeline -> analysis, with one
 * policy for bad input lines (docs/gputally.1, "BAD INPUT LINES"):
 *
 *   - every bad line is counted (bad_total);
 *   - the first PIPELINE_BAD_KEPT are kept with file:line:col and the
 *     reason (bad[]), for the report's list and the messages;
 *   - under strict the first bad line stops the run (PIPE_STOPPED), and
 *     with stop_on_fatal so does a line that ends its file (BAD_FATAL).
 *
 * The store and the server are sources of the same records as files: a
 * window of a store comes back as an analysis (store_load_analysis), the
 * server's samples go through the same sink as a file's.  The pipeline
 * prints nothing; cli/ says what it kept (pipeline_say_bad in cli/).
 *
 * Use: pipeline_open(), then optionally adjust p->an (a --gpu-map), then
 * pipeline_run(), then read p->an, p->res, p->bad; pipeline_close() frees
 * everything.
 */
#ifndef PIPELINE_PIPELINE_H
#define PIPELINE_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "formats/driver.h"
#include "formats/prom_remote.h"
#include "report/report.h"
#include "store/store.h"
#include "util/err.h"

/* Bad lines kept with their position (the rest are only counted). */
#define PIPELINE_BAD_KEPT 1000

enum pipeline_status {
	PIPE_OK = 0,
	PIPE_STOPPED,		/* a bad line stopped the run: p->stop says which */
	PIPE_FAILED,		/* the run itself failed: p->err says why */
	PIPE_NO_UUID,		/* files with --prometheus: GPU p->no_uuid_index of the files has no UUID */
	PIPE_TWICE,		/* a GPU both in the files and on the server: p->twice */
	PIPE_TAP,		/* the tap returned non-zero: p->tap_code */
};

struct pipeline_opts {
	const char *const *paths;	/* files and directories (may be none) */
	size_t npaths;
	const struct ingest_opts *in;	/* the driver's options (borrowed) */
	bool strict;			/* the first bad line stops the run */
	/* inputs whose bad lines were counted by an earlier run (ingest's
	 * stored files read again): not counted, kept or stopped at again */
	const char *const *recounted;
	size_t nrecounted;
	bool stop_on_fatal;		/* a BAD_FATAL line stops it too (trace) */
	/* further sources (borrowed; NULL: none) */
	const struct prom_remote_opts *prom;
	const char *db;			/* a store: its window [db_since, db_until) */
	int64_t db_since, db_until;
	/* the analysis: none (trace, dump: the tap consumes the records) */
	bool no_analysis;
	bool series;			/* keep the display series (the HTML page) */
	/*
	 * Optional: sees every record first, bad ones included, with the
	 * input it came from; a non-zero return stops the run (PIPE_TAP).
	 */
	void *tap_ud;
	int (*tap)(void *ud, const struct input_stat *in, const struct rec *r, const struct batch *b);
};

struct pipeline {
	struct pipeline_opts o;
	struct analysis *an;		/* NULL with no_analysis */
	struct analysis *slice_an;	/* the server's MIG slices, or NULL */
	struct ingest_result res;
	struct prom_fleet fleet;
	struct store st;		/* the db source, when open */
	/* the bad-line policy's record */
	struct bad_line *bad;		/* the first PIPELINE_BAD_KEPT */
	size_t nbad;
	uint64_t bad_total;
	struct bad_line stop;		/* PIPE_STOPPED: the line it stopped at */
	bool stop_fatal;		/* ... and it ended its file (not --strict) */
	/* the other outcomes */
	struct gl_err err;
	int no_uuid_index;
	char twice[96];
	int tap_code;
	int nfile_gpus;
};

/* Set up (allocates the analysis); o is copied, what it points to is borrowed. */
void pipeline_open(struct pipeline *p, const struct pipeline_opts *o);
/* Read every source into the analysis and finish it; see enum pipeline_status. */
int pipeline_run(struct pipeline *p);
/* Free everything the pipeline holds; p can be opened again. */
void pipeline_close(struct pipeline *p);

/*
 * A bad line of an input the pipeline does not read itself (scale's
 * --app-log), under the same policy: counted, kept with its place among the
 * first PIPELINE_BAD_KEPT, and true when it stops the run (strict: p->stop
 * says where; the caller then ends as for PIPE_STOPPED).  path is borrowed
 * until pipeline_close().
 */
bool pipeline_bad_line(struct pipeline *p, const char *path, uint64_t line, uint32_t col, const char *msg);

/* The pipeline's figures into a report: inputs, analysis, bad lines, fleet. */
void pipeline_report(const struct pipeline *p, struct report *rep);

#endif
