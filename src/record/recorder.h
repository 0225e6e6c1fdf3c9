/* SPDX-License-Identifier: MIT */
/*
 * The recorder's loop: NVML -> sampler -> CSV sink, on CLOCK_MONOTONIC
 * deadlines, rows stamped with CLOCK_REALTIME.  SIGTERM and SIGINT end it
 * (rows flushed, files synced) within a second; SIGHUP reopens the files.
 */
#ifndef RECORD_RECORDER_H
#define RECORD_RECORDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/err.h"

struct record_opts {
	const char *task;	/* in every row and in the file name */
	const char *dir;	/* daily files go here (created if missing) */
	const char *nvml_lib;	/* NULL: the system's libnvidia-ml.so.1 */
	const char *host;	/* NULL: gethostname() */
	int64_t interval_ns;
	uint64_t count;		/* ticks to record; 0 = until a signal */
	bool to_stdout;		/* rows to standard output instead of files */
	unsigned int fsync_every;	/* ticks between fsyncs; 0 = about every 10 s */
	const char *prom_dir;	/* write <prom_dir>/gputally.prom each tick; NULL: no */
	const char *listen;	/* serve /metrics and /health here; NULL: no */
	bool listen_any;	/* allow a non-loopback --listen address */
	FILE *log;		/* start-up and exit notes; NULL for none */
	/* tests: a count of allocations read after the first tick and at the end */
	uint64_t (*alloc_probe)(void);
};

struct record_stats {
	uint64_t ticks, rows, write_errors, torn_repairs, events_dropped;
	uint64_t rows_dropped;		/* rows of ticks the CSV writer was too far behind to take */
	uint64_t overruns;		/* ticks skipped because the loop fell behind */
	uint64_t prom_writes, prom_errors;	/* textfile renames done and failed */
	uint64_t allocs_in_loop;	/* allocations after the first tick: must be 0 */
	uint64_t probe_in_loop;		/* alloc_probe() after the first tick minus at the end */
	unsigned int ngpus;
	bool signalled;
};

int recorder_run(const struct record_opts *o, struct record_stats *st, struct gl_err *err);

#endif
