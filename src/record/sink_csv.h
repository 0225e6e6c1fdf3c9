/* SPDX-License-Identifier: MIT */
/*
 * The gputally CSV writer (docs/formats/gputally-csv.md): daily files
 * <dir>/<task>_<YYYYMMDD>.csv (UTC date), opened O_APPEND, one write() per
 * tick of whole rows built in a buffer allocated at open.  A torn last line
 * left by a crash is copied to <file>.torn and cut off before appending.  A
 * failed write (disk full, EIO) is undone by truncating back to the last whole
 * row, counted, and retried with the next tick; the sink never gives up and
 * never deletes rows.
 *
 * The caller's thread only formats: a tick's rows go into a slot of a queue
 * allocated at init, and a thread of its own (`gputally-csv`) writes them, so
 * a slow or stuck disk never holds up sampling.  When the queue is full the
 * tick is dropped and counted, never half written.
 */
#ifndef RECORD_SINK_CSV_H
#define RECORD_SINK_CSV_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/sampler.h"
#include "util/err.h"

#define GPUTALLY_CSV_MAGIC "# gputally-csv v1"

/* One tick's rows, formatted, waiting for the writer. */
struct csv_batch {
	char *buf;		/* csv_sink.cap bytes */
	size_t len;
	int64_t t_ns, day;
	unsigned int rows;
	bool reopen;		/* close the file before writing this batch (SIGHUP) */
};

/* What the writer has done, for metrics and the exit summary. */
struct csv_sink_stats {
	uint64_t rows_written, batches_written, write_errors, torn_repairs;
	uint64_t rows_dropped;		/* rows of ticks dropped because the queue was full */
	uint64_t ticks_dropped;		/* those ticks */
	int last_errno;
	bool last_ok;			/* the last batch was written */
	int64_t last_ok_ns;		/* the tick time of the last batch written */
};

#define CSV_QUEUE 16		/* ticks the writer may fall behind */

struct csv_sink {
	/* ---- the writer thread's (or the caller's, when there is no writer) */
	int fd;			/* -1: no file open (retried each tick) */
	bool to_stdout;
	const char *dir;	/* borrowed for the sink's life */
	const char *task;
	const char *host;
	char path[4096];
	int64_t day;		/* UTC days since the epoch of the open file */
	uint64_t good_size;	/* file size after the last whole batch */
	bool dirty_tail;	/* a failed write may have left bytes past good_size */
	unsigned int fsync_every, since_fsync;
	size_t cap;		/* room for one tick's rows */
	/* counters, exported as metrics through csv_sink_stats() */
	uint64_t rows_written, batches_written, write_errors, rows_dropped, torn_repairs;
	int last_errno;
	bool last_ok;
	int64_t last_ok_ns;
	/* ---- the caller's */
	bool stdout_started;	/* --stdout: the header lines are out */
	bool reopen_pending;	/* SIGHUP: mark the next batch */
	/* ---- the queue, under q_mu */
	struct csv_batch q[CSV_QUEUE];
	unsigned int q_head, q_len;
	bool q_stop, writer_running, writer_stuck;
	uint64_t q_dropped_rows, q_dropped_ticks;
	pthread_t writer;
	pthread_mutex_t q_mu;
	pthread_cond_t q_cv;		/* work for the writer */
	pthread_cond_t q_done_cv;	/* a batch written */
	struct csv_sink_stats pub;	/* the writer's counters after its last batch */
};

/*
 * Prepare a sink for up to ngpus rows plus max_events event rows per tick.
 * Nothing is opened until the first tick.  Strings are borrowed.
 */
void csv_sink_init(struct csv_sink *k, const char *dir, const char *task, const char *host,
		   bool to_stdout, unsigned int fsync_every, unsigned int ngpus,
		   unsigned int max_events);
/*
 * Queue one tick: a row per GPU (gpus[i], samples[i]) and a row per event,
 * stamped t_ns.  Returns 0, or -1 when the tick was dropped (the queue is
 * full: the disk is behind) or, without a writer thread, not written; it is
 * counted, and nothing partial ever stays in the file.
 */
int csv_sink_tick(struct csv_sink *k, int64_t t_ns, const struct gpu_info *gpus,
		  const struct gpu_sample *samples, unsigned int ngpus,
		  const struct sampler_event *events, unsigned int nevents);
/* Close the file (with fsync) before the next tick, which opens the path again (SIGHUP). */
void csv_sink_reopen(struct csv_sink *k);
/* Wait until every queued tick has been written (or has failed). */
void csv_sink_flush(struct csv_sink *k);
/* The writer's counters as of its last batch. */
void csv_sink_stats(struct csv_sink *k, struct csv_sink_stats *st);
/* Write what is queued (waiting up to 0.8 s for a slow or stuck disk), fsync and close, free. */
void csv_sink_close(struct csv_sink *k);
/* The header line (without its newline), for tests and docs. */
const char *csv_sink_header(void);
/* Open (or create) the file for day `day` now; 0 or -1 with errno. */
int csv_sink_open_day(struct csv_sink *k, int64_t day);

#endif
