/* SPDX-License-Identifier: MIT */
/* The read path's worker pool (util/workpool.h). */
#include "test.h"

#include <stdlib.h>

#include "util/workpool.h"

struct counted {
	struct wp_job job;
	int runs;
	uint64_t sum;
};

static void count_run(struct wp_job *j)
{
	struct counted *c = (struct counted *)((char *)j - offsetof(struct counted, job));
	uint64_t s = 0;

	for (uint64_t i = 0; i < 20000; i++)	/* long enough for workers to overlap */
		s += i ^ (uint64_t)c->runs;
	c->sum = s;
	c->runs++;
}

/* Every job runs exactly once, on 0 (the waiter runs them), 1 and 3 workers,
 * waited for in order or out of order. */
static void test_each_job_once(void **state)
{
	enum { N = 200 };
	struct counted *c = calloc(N, sizeof(*c));

	(void)state;
	for (int nth = 0; nth <= 3; nth += nth ? 2 : 1) {
		for (int backwards = 0; backwards < 2; backwards++) {
			struct workpool p;
			workpool_init(&p, nth, "test-pool");
			assert_int_equal(p.nthreads, nth);
			for (int i = 0; i < N; i++) {
				c[i].runs = 0;
				c[i].job.run = count_run;
				workpool_push(&p, &c[i].job);
			}
			for (int i = 0; i < N; i++) {
				int k = backwards ? N - 1 - i : i;
				workpool_wait(&p, &c[k].job);
				assert_true(workpool_done(&p, &c[k].job));
				assert_int_equal(c[k].runs, 1);
			}
			workpool_release(&p);
			for (int i = 0; i < N; i++)
				assert_int_equal(c[i].runs, 1);
		}
	}
	free(c);
}

/* A job never waited for still runs before the pool goes (workers drain). */
static void test_release_drains(void **state)
{
	struct counted c[8] = { 0 };
	struct workpool p;

	(void)state;
	workpool_init(&p, 2, NULL);
	for (int i = 0; i < 8; i++) {
		c[i].job.run = count_run;
		workpool_push(&p, &c[i].job);
	}
	workpool_release(&p);
	for (int i = 0; i < 8; i++)
		assert_int_equal(c[i].runs, 1);
}

/* Claims: at most max at once, given back. */
static void test_claims(void **state)
{
	struct workpool p;

	(void)state;
	workpool_init(&p, 1, NULL);
	assert_true(workpool_claim(&p, 2));
	assert_true(workpool_claim(&p, 2));
	assert_false(workpool_claim(&p, 2));
	workpool_unclaim(&p);
	assert_true(workpool_claim(&p, 2));
	workpool_unclaim(&p);
	workpool_unclaim(&p);
	assert_int_equal(p.clients, 0);
	workpool_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_job_once),
		cmocka_unit_test(test_release_drains),
		cmocka_unit_test(test_claims),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
