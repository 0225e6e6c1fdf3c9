/* SPDX-License-Identifier: MIT */
/*
 * report_json on two threads (the part after the segments and blocks of
 * segments from the last one back written into memory by the second
 * thread, and spliced) against one: the same bytes, on a report with many
 * blocks of segments, findings and events, on one with fewer segments than
 * a block, and on one with none of them.  Where the two threads meet is up
 * to the scheduler, so the long report is written several times.  And the
 * segments formatted whole (segment_range) against the same written through
 * jsonw's calls one by one.
 */
#include "test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "report/report.h"
#include "sample_rec.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

#define T0_S INT64_C(1800000000)

static struct batch no_strs;
static const char src[] = "dmon.log";

/* GPU gpu at second t: util %, power W, memory MiB. */
static void feed(struct analysis *an, int t, int gpu, double util, double power, double mem)
{
	struct rec r = sample_rec((T0_S + t) * NS_PER_S, gpu);

	r.present = 1u << M_UTIL_GPU | 1u << M_POWER | 1u << M_MEM_USED;
	r.v[M_UTIL_GPU] = util;
	r.v[M_POWER] = power;
	r.v[M_MEM_USED] = mem;
	analysis_add(an, &r, &no_strs, src);
}

/* The report as text, written with the split at split_min segments. */
static char *render(const struct report *rep, size_t split_min, size_t *n)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, n);

	assert_non_null(f);
	report_json_split_min = split_min;
	report_json(f, rep);
	assert_int_equal(fclose(f), 0);
	report_json_split_min = 4096;
	return text;
}

static void check_same(int seconds, int times)
{
	struct analysis *an = xcalloc(1, sizeof(*an));
	struct ingest_result res = { 0 };
	struct report rep;
	char *one, *two;
	size_t n1, n2;

	analysis_init(an, NULL);
	/* phases of 7 to 40 s: busy, held idle (memory kept, nothing running),
	 * idle; and a gap now and then */
	for (int t = 0; t < seconds; t++) {
		int phase = (t / 7 + t / 40) % 3;
		if (t % 500 == 499)
			continue;
		for (int g = 0; g < 2; g++)
			feed(an, t, g, phase == 0 ? 95 : 0, phase == 0 ? 300 : 80 + g,
			     phase == 2 ? 0 : 20000);
	}
	analysis_finish(an);
	memset(&rep, 0, sizeof(rep));
	rep.inputs = &res;
	rep.an = an;
	rep.tz = "UTC";
	cost_params_init(&rep.params);
	report_compute(&rep);
	if (seconds)
		assert_true(an->nsegs > (size_t)seconds / 8 && an->nfinds > 0);
	one = render(&rep, SIZE_MAX, &n1);
	assert_true(n1 > 0);
	for (int k = 0; k < times; k++) {
		two = render(&rep, 0, &n2);
		assert_int_equal(n1, n2);
		assert_memory_equal(one, two, n1);
		free(two);
	}
	/* segments written call by call: the same bytes as formatted whole */
	report_json_plain_segments = true;
	two = render(&rep, SIZE_MAX, &n2);
	report_json_plain_segments = false;
	assert_int_equal(n1, n2);
	assert_memory_equal(one, two, n1);
	free(two);
	free(one);
	report_release(&rep);
	analysis_release(an);
	free(an);
}

/* about 9,000 segments: 18 blocks */
static void test_split_same_bytes(void **state)
{
	(void)state;
	check_same(30000, 8);
}

/* fewer segments than a block: the second thread writes the rest only */
static void test_split_one_block(void **state)
{
	(void)state;
	check_same(500, 2);
}

static void test_split_empty_report(void **state)
{
	(void)state;
	check_same(0, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_same_bytes),
		cmocka_unit_test(test_split_one_block),
		cmocka_unit_test(test_split_empty_report),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
