/* SPDX-License-Identifier: MIT */
/*
 * The worker pool of the ingest driver: threads that parse queued chunks;
 * the main thread parses one itself rather than wait for it.
 */
#include "formats/driver_int.h"

#include <pthread.h>

/* Take the first queued chunk and parse it; called and returns with pl->mu held. */
static void run_next_job(struct pool *pl)
{
	struct chunk *c = pl->jobs_head;

	pl->jobs_head = c->next_job;
	if (!pl->jobs_head)
		pl->jobs_tail = NULL;
	pthread_mutex_unlock(&pl->mu);
	parse_chunk(c, pl->opts);
	pthread_mutex_lock(&pl->mu);
	c->state = CH_DONE;
	pthread_cond_broadcast(&pl->done_cv);
}

void *worker_main(void *arg)
{
	struct pool *pl = arg;

	pthread_setname_np(pthread_self(), "gputally-parse");	/* for top and perf */
	pthread_mutex_lock(&pl->mu);
	for (;;) {
		while (!pl->jobs_head && !pl->stop)
			pthread_cond_wait(&pl->job_cv, &pl->mu);
		if (!pl->jobs_head && pl->stop)
			break;
		run_next_job(pl);
	}
	pthread_mutex_unlock(&pl->mu);
	return NULL;
}

void pool_push(struct pool *pl, struct chunk *c)
{
	c->state = CH_QUEUED;
	c->next_job = NULL;
	/* a stream() format's pieces share one state: parsed here, in order */
	if (pl->nthreads == 0 || c->src->fmt->stream) {
		parse_chunk(c, pl->opts);
		c->state = CH_DONE;
		return;
	}
	pthread_mutex_lock(&pl->mu);
	if (pl->jobs_tail)
		pl->jobs_tail->next_job = c;
	else
		pl->jobs_head = c;
	pl->jobs_tail = c;
	pthread_cond_signal(&pl->job_cv);
	pthread_mutex_unlock(&pl->mu);
}

void pool_wait(struct pool *pl, struct chunk *c)
{
	if (pl->nthreads == 0)
		return;
	pthread_mutex_lock(&pl->mu);
	while (c->state != CH_DONE) {
		/* rather than wait, parse the next chunk no worker has started:
		 * c itself, or a later one while a worker finishes c */
		if (pl->jobs_head)
			run_next_job(pl);
		else
			pthread_cond_wait(&pl->done_cv, &pl->mu);
	}
	pthread_mutex_unlock(&pl->mu);
}
