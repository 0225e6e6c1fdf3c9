/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for formats/ticks: which time-less records share one tick.
 * Every expected count is the number of polls the test itself wrote.
 */
#include "test.h"

#include <string.h>

#include "formats/format.h"
#include "formats/ticks.h"

static struct rec proc(int32_t gpu, int64_t pid, bool after_header)
{
	struct rec r;

	memset(&r, 0, sizeof(r));
	r.kind = REC_PROC;
	r.gpu_index = gpu;
	r.pid = pid;
	r.uuid = r.name = STR_NONE;
	r.present = after_header ? PF_AFTER_HEADER : 0;
	return r;
}

static unsigned count(struct tick_seq *t, const struct rec *rs, size_t n)
{
	unsigned k = 0;

	for (size_t i = 0; i < n; i++)
		k += tick_seq_next(t, &rs[i], NULL);
	return k;
}

/* pmon -c 5, 10 processes on one GPU: 5 intervals, not 50 */
static void test_pmon_intervals(void **s)
{
	struct rec rs[50];
	struct tick_seq t;

	(void)s;
	for (int i = 0; i < 5; i++)
		for (int p = 0; p < 10; p++)
			rs[i * 10 + p] = proc(0, 100 + p, false);
	tick_seq_init(&t);
	assert_int_equal(count(&t, rs, 50), 5);
	tick_seq_release(&t);
}

/* a header repeated inside an interval does not start one (formats.md 11.7) */
static void test_header_mid_interval(void **s)
{
	struct rec rs[] = {
		proc(0, 10, true), proc(0, 20, false), proc(0, 30, true), proc(0, 40, false),
		proc(0, 10, false), proc(0, 20, false), proc(0, 30, false), proc(0, 40, false),
	};
	struct tick_seq t;

	(void)s;
	tick_seq_init(&t);
	assert_int_equal(count(&t, rs, 8), 2);
	tick_seq_release(&t);
}

/* after a header, a lower pid never seen is a new interval's first row */
static void test_header_then_new_lower_pid(void **s)
{
	struct rec rs[] = { proc(0, 10, true), proc(0, 20, false), proc(0, 5, true),
			    proc(0, 10, false), proc(0, 20, false) };
	struct tick_seq t;

	(void)s;
	tick_seq_init(&t);
	assert_int_equal(count(&t, rs, 5), 2);
	tick_seq_release(&t);
}

/* two GPUs: a GPU index that falls starts the next interval */
static void test_two_gpus(void **s)
{
	struct rec rs[] = { proc(0, 1, false), proc(1, 2, false), proc(1, 3, false),
			    proc(0, 1, false), proc(1, 2, false), proc(1, 3, false),
			    proc(0, 1, false), proc(1, 3, false) };
	struct tick_seq t;

	(void)s;
	tick_seq_init(&t);
	assert_int_equal(count(&t, rs, 8), 3);
	tick_seq_release(&t);
}

/* samples keep the dmon rule: one row per GPU a tick */
static void test_samples(void **s)
{
	struct rec rs[6];
	struct tick_seq t;

	(void)s;
	for (int i = 0; i < 6; i++) {
		memset(&rs[i], 0, sizeof(rs[i]));
		rs[i].kind = REC_SAMPLE;
		rs[i].gpu_index = i % 2;
	}
	tick_seq_init(&t);
	assert_int_equal(count(&t, rs, 6), 3);
	tick_seq_release(&t);
}

/* gpu_monitor.sh without a time column: each row a sample and its task
 * label (a REC_PROC of pid PID_TASK) on the same GPU; 3 polls of 2 GPUs
 * are 3 ticks, the label in its sample's tick */
static void test_samples_with_task_labels(void **s)
{
	struct rec rs[12];
	unsigned starts[12];
	struct tick_seq t;

	(void)s;
	for (int i = 0; i < 6; i++) {
		memset(&rs[2 * i], 0, sizeof(rs[0]));
		rs[2 * i].kind = REC_SAMPLE;
		rs[2 * i].gpu_index = i % 2;
		rs[2 * i].uuid = rs[2 * i].name = STR_NONE;
		rs[2 * i + 1] = proc(i % 2, PID_TASK, false);
	}
	tick_seq_init(&t);
	for (int i = 0; i < 12; i++)
		starts[i] = tick_seq_next(&t, &rs[i], NULL);
	tick_seq_release(&t);
	for (int i = 0; i < 12; i++)
		assert_int_equal(starts[i], i % 4 == 0);
}

/* many processes in one interval: the table grows and keeps them all */
static void test_many_processes(void **s)
{
	static struct rec rs[3 * 5000];
	struct tick_seq t;

	(void)s;
	for (int i = 0; i < 3; i++)
		for (int p = 0; p < 5000; p++)
			rs[i * 5000 + p] = proc(0, 7 * p + 1, false);
	tick_seq_init(&t);
	assert_int_equal(count(&t, rs, 3 * 5000), 3);
	tick_seq_release(&t);
}

/* a zeroed tick_seq (a source's, never initialised) works as a fresh one */
static void test_zeroed(void **s)
{
	struct rec rs[] = { proc(0, 1, false), proc(0, 2, false), proc(0, 1, false) };
	struct tick_seq t;

	(void)s;
	memset(&t, 0, sizeof(t));
	assert_int_equal(count(&t, rs, 3), 2);
	tick_seq_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pmon_intervals),
		cmocka_unit_test(test_header_mid_interval),
		cmocka_unit_test(test_header_then_new_lower_pid),
		cmocka_unit_test(test_two_gpus),
		cmocka_unit_test(test_samples),
		cmocka_unit_test(test_samples_with_task_labels),
		cmocka_unit_test(test_many_processes),
		cmocka_unit_test(test_zeroed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
