/* SPDX-License-Identifier: MIT */
/*
 * The worker pool of the read path: jobs run in the order they were queued,
 * by worker threads and by any thread that waits for one (it runs the next
 * queued job rather than sleep, so a pool of n threads keeps n + 1 CPUs
 * busy).  One pool serves an ingest run: the driver's chunks and the pieces
 * a trace format cuts from its file go to the same threads.
 *
 * A job is owned by its caller, who embeds struct wp_job in it and must not
 * free or reuse it until workpool_wait() or workpool_done() said it is done.
 * Every function is thread-safe but workpool_init and workpool_release.
 */
#ifndef UTIL_WORKPOOL_H
#define UTIL_WORKPOOL_H

#include <pthread.h>
#include <stdbool.h>

enum wp_state { WP_IDLE, WP_QUEUED, WP_RUNNING, WP_DONE };

struct wp_job {
	void (*run)(struct wp_job *j);	/* called once, on some thread */
	struct wp_job *next;		/* the pool's queue */
	int state;			/* enum wp_state, under the pool's lock */
};

struct workpool {
	pthread_mutex_t mu;
	pthread_cond_t job_cv, done_cv;
	struct wp_job *head, *tail;	/* queued, not started */
	bool stop;
	pthread_t *threads;
	int nthreads;			/* 0: jobs run only in workpool_wait() */
	int clients;			/* workpool_claim() */
};

/* Start up to nthreads workers named `name` (for top and perf); fewer when
 * the system gives fewer.  nthreads may be 0. */
void workpool_init(struct workpool *p, int nthreads, const char *name);
/* Let the workers finish the queued jobs, join them and free the pool's
 * contents (not p itself).  Every claim must have been given back. */
void workpool_release(struct workpool *p);
/* Queue j; j->run must be set. */
void workpool_push(struct workpool *p, struct wp_job *j);
/* Return once j is done, running queued jobs (j or later ones) meanwhile. */
void workpool_wait(struct workpool *p, struct wp_job *j);
/* Is j done?  Never waits. */
bool workpool_done(struct workpool *p, const struct wp_job *j);
/*
 * A client that keeps many jobs in flight (and their buffers) claims a
 * place first: true when fewer than max hold one, false (nothing claimed)
 * otherwise; workpool_unclaim() gives it back.  This bounds the memory of a
 * run that reads many such inputs at once.
 */
bool workpool_claim(struct workpool *p, int max);
void workpool_unclaim(struct workpool *p);

#endif
