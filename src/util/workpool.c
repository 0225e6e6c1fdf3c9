/* SPDX-License-Identifier: MIT */
/* The worker pool of the read path (workpool.h). */
#include "util/workpool.h"

#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* Take the first queued job and run it; called and returns with p->mu held. */
static void run_next(struct workpool *p)
{
	struct wp_job *j = p->head;

	p->head = j->next;
	if (!p->head)
		p->tail = NULL;
	j->state = WP_RUNNING;
	pthread_mutex_unlock(&p->mu);
	j->run(j);
	pthread_mutex_lock(&p->mu);
	j->state = WP_DONE;
	pthread_cond_broadcast(&p->done_cv);
}


static void *worker_main(void *arg)
{
	struct workpool *p = arg;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->head && !p->stop)
			pthread_cond_wait(&p->job_cv, &p->mu);
		if (!p->head && p->stop)
			break;
		run_next(p);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

void workpool_init(struct workpool *p, int nthreads, const char *name)
{
	memset(p, 0, sizeof(*p));
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->job_cv, NULL);
	pthread_cond_init(&p->done_cv, NULL);
	if (nthreads < 0)
		nthreads = 0;
	p->threads = xcalloc((size_t)(nthreads ? nthreads : 1), sizeof(*p->threads));
	for (int i = 0; i < nthreads; i++) {
		if (pthread_create(&p->threads[i], NULL, worker_main, p))
			break;
		if (name)
			pthread_setname_np(p->threads[i], name);
		p->nthreads = i + 1;
	}
}

void workpool_release(struct workpool *p)
{
	/* a client still holding a place may still queue jobs or wait for
	 * them: its owner must be released first */
	assert(p->clients == 0);
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->job_cv);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	free(p->threads);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->job_cv);
	pthread_cond_destroy(&p->done_cv);
	memset(p, 0, sizeof(*p));
}

void workpool_push(struct workpool *p, struct wp_job *j)
{
	j->next = NULL;
	pthread_mutex_lock(&p->mu);
	j->state = WP_QUEUED;
	if (p->tail)
		p->tail->next = j;
	else
		p->head = j;
	p->tail = j;
	if (p->nthreads)
		pthread_cond_signal(&p->job_cv);
	pthread_mutex_unlock(&p->mu);
}

void workpool_wait(struct workpool *p, struct wp_job *j)
{
	pthread_mutex_lock(&p->mu);
	while (j->state != WP_DONE) {
		/* rather than wait, run the next job no worker has started:
		 * j itself, or a later one while a worker finishes j */
		if (p->head)
			run_next(p);
		else
			pthread_cond_wait(&p->done_cv, &p->mu);
	}
	pthread_mutex_unlock(&p->mu);
}

bool workpool_done(struct workpool *p, const struct wp_job *j)
{
	bool done;

	pthread_mutex_lock(&p->mu);
	done = j->state == WP_DONE;
	pthread_mutex_unlock(&p->mu);
	return done;
}

bool workpool_claim(struct workpool *p, int max)
{
	bool ok;

	pthread_mutex_lock(&p->mu);
	ok = p->clients < max;
	if (ok)
		p->clients++;
	pthread_mutex_unlock(&p->mu);
	return ok;
}

void workpool_unclaim(struct workpool *p)
{
	pthread_mutex_lock(&p->mu);
	p->clients--;
	pthread_mutex_unlock(&p->mu);
}
