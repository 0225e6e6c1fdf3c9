/* SPDX-License-Identifier: MIT */
/*
 * Hands each tick's Prometheus text to its readers without letting them
 * slow the sampler: the text is copied into a snapshot under a mutex held
 * only for that memcpy.  A thread of its own writes the snapshot to
 * <dir>/gputally.prom (--prom-textfile): to a temp name in the same directory
 * that does not end in .prom, fsync, rename, so a reader sees the old file or
 * the new one, never half of one.  HTTP clients (http.h) copy the snapshot
 * out the same way.  All buffers are allocated in prom_pub_init().
 */
#ifndef RECORD_PUBLISH_H
#define RECORD_PUBLISH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define PROM_TEXTFILE_NAME "gputally.prom"
#define PROM_TEXTFILE_TMP ".gputally.prom.tmp"

struct prom_pub {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *snap;		/* the newest text; under mu */
	size_t snap_len, cap;
	uint64_t gen;		/* bumped by every put; under mu */
	int64_t snap_mono_ns;	/* when it was put (CLOCK_MONOTONIC); under mu */
	bool stop;		/* under mu */
	/* the textfile writer */
	bool writer_started;
	pthread_t writer;
	char *wbuf;		/* the writer's own copy, so the file is written unlocked */
	char path[4096], tmp[4096];
	atomic_uint_fast64_t write_errors, writes;
	atomic_int_fast64_t last_ok_ns;	/* wall clock of the last rename; 0: never */
	atomic_int last_errno;
};

/*
 * Prepare a snapshot of up to cap bytes; with textfile_dir, start the
 * writer (the directory must exist and be writable: checked here).
 */
int prom_pub_init(struct prom_pub *p, size_t cap, const char *textfile_dir, struct gl_err *err);
/* Publish a tick's text (n <= cap bytes). */
void prom_pub_put(struct prom_pub *p, const char *text, size_t n, int64_t mono_ns);
/*
 * Copy the newest text into dst (cap bytes, at least the init cap); returns
 * its length (0: nothing published yet) and, if put_mono_ns, when it was put.
 */
size_t prom_pub_copy(struct prom_pub *p, char *dst, size_t cap, int64_t *put_mono_ns);
size_t prom_pub_cap(const struct prom_pub *p);
/* Write the last snapshot (if the writer runs), stop the writer and free. */
void prom_pub_close(struct prom_pub *p);

#endif
