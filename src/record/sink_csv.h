/* SPDX-License-Identifier: MIT */
/*
 * The gputally CSV writer (docs/formats/gputally-csv.md): daily files
 * <dir>/<task>_<YYYYMMDD>.csv (UTC date), opened O_APPEND, one write() per
 * tick of whole rows built in a buffer allocated at open.  A torn last line
 * left by a crash is copied to <file>.torn and cut off before appending.  A
 * failed write (disk full, EIO) is undone by truncating back to the last whole
 * row, counted, and retried with the next tick; the sink never gives up and
 * never deletes rows.
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

struct csv_sink {
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
	/* the batched fdatasync runs on a thread of its own, on a dup() of fd,
	 * so a slow disk never holds up a tick */
	pthread_t syncer;
	bool syncer_running;
	pthread_mutex_t sync_mu;
	pthread_cond_t sync_cv;
	int sync_fd;			/* a dup to sync, -1 none pending */
	bool sync_stop;
	uint64_t sync_errors;		/* failed syncs not yet counted in write_errors */
	int sync_errno;
	char *buf;		/* one tick's rows */
	size_t cap;
	/* counters, exported as metrics */
	uint64_t rows_written, batches_written, write_errors, rows_dropped, torn_repairs;
	int last_errno;
};

/*
 * Prepare a sink for up to ngpus rows plus max_events event rows per tick.
 * Nothing is opened until the first tick.  Strings are borrowed.
 */
void csv_sink_init(struct csv_sink *k, const char *dir, const char *task, const char *host,
		   bool to_stdout, unsigned int fsync_every, unsigned int ngpus,
		   unsigned int max_events);
/*
 * Write one tick: a row per GPU (gpus[i], samples[i]) and a row per event,
 * stamped t_ns.  Returns 0, or -1 when the batch could not be written (it is
 * counted; nothing partial stays in the file).
 */
int csv_sink_tick(struct csv_sink *k, int64_t t_ns, const struct gpu_info *gpus,
		  const struct gpu_sample *samples, unsigned int ngpus,
		  const struct sampler_event *events, unsigned int nevents);
/* Close the file (with fsync) so the next tick opens the path again (SIGHUP). */
void csv_sink_reopen(struct csv_sink *k);
/* fsync and close; frees the buffer. */
void csv_sink_close(struct csv_sink *k);
/* The header line (without its newline), for tests and docs. */
const char *csv_sink_header(void);
/* Open (or create) the file for day `day` now; 0 or -1 with errno. */
int csv_sink_open_day(struct csv_sink *k, int64_t day);

#endif
