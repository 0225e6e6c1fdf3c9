/* SPDX-License-Identifier: MIT */
/* Unit tests for the SVG helpers of the HTML report: ticks, time ticks, escaping, downsampling. */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/svg.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

static void test_ticks_round(void **state)
{
	double lo = 0, hi = 737, t[16];
	size_t n;
	char b[32];

	(void)state;
	n = svg_ticks(&lo, &hi, 4, t, 16);
	/* 737 / 4 = 184 -> a step of 200, widened to 800 */
	assert_int_equal(n, 5);
	for (size_t i = 0; i < n; i++)
		assert_near(t[i], 200.0 * (double)i, 0);
	assert_near(hi, 800, 0);
	lo = 0.1;
	hi = 0.7;
	n = svg_ticks(&lo, &hi, 3, t, 16);
	/* 0.2 apart from 0 to 0.8, printed as round numbers */
	assert_int_equal(n, 5);
	snprintf(b, sizeof(b), "%g", t[3]);
	assert_string_equal(b, "0.6");
	assert_near(lo, 0, 0);
	lo = hi = NAN;
	assert_int_equal(svg_ticks(&lo, &hi, 3, t, 16), 0);
}

static void test_time_ticks_utc(void **state)
{
	/* 2026-11-29T22:46:33Z, the H200 capture's first sample, and 225 s later */
	int64_t t0 = (days_from_civil(2026, 11, 29) * 86400 + 22 * 3600 + 46 * 60 + 33) * NS_PER_S;
	int64_t t[64], step = 0;
	size_t n = svg_time_ticks(t0, t0 + 225 * NS_PER_S, 8, t, 64, &step);
	char b[40];

	(void)state;
	assert_true(step == 30 * NS_PER_S);
	assert_int_equal(n, 7);	/* 22:47:00 .. 22:50:00 */
	svg_time_label(b, sizeof(b), t[0], step);
	assert_string_equal(b, "22:47:00");
	svg_time_label(b, sizeof(b), t[n - 1], step);
	assert_string_equal(b, "22:50:00");
	/* 30 days: a week apart, on midnights, labelled by date */
	t0 = days_from_civil(2026, 10, 1) * NS_PER_DAY + 3600 * NS_PER_S;
	n = svg_time_ticks(t0, t0 + 30 * NS_PER_DAY, 8, t, 64, &step);
	assert_true(step == 7 * NS_PER_DAY);
	assert_true(n >= 4);
	for (size_t i = 0; i < n; i++)
		assert_true(t[i] % NS_PER_DAY == 0);
	svg_time_label(b, sizeof(b), t[0], step);
	assert_string_equal(b, "2026-10-08");	/* weeks are counted from 1970-01-01, a Thursday */
}

static void test_escape_log_strings(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	svg_esc(f, "<script>alert(\"x\" & 'y')</script>\x01");
	fclose(f);
	assert_string_equal(buf, "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt; ");
	free(buf);
}

/* Downsampling to fewer columns keeps each column's extremes and the time-weighted mean. */
static void test_columns_keep_extremes(void **state)
{
	struct gpu_series s = { 0 };
	struct svg_col c[100];
	size_t n, merged;
	double want_sum = 0;

	(void)state;
	s.b = xcalloc(SER_MAX, sizeof(*s.b));
	s.base_ns = 0;
	s.width_ns = NS_PER_S;
	s.n = 1000;
	for (size_t i = 0; i < s.n; i++) {
		float v = i == 777 ? 100 : i == 333 ? -5 : 10;
		if (i >= 500 && i < 520) {	/* no data: a gap */
			s.b[i].state_s[ST_GAP] = 1;
			continue;
		}
		s.b[i].sum[SER_POWER] = v;
		s.b[i].known_s[SER_POWER] = 1;
		s.b[i].min[SER_POWER] = s.b[i].max[SER_POWER] = v;
		s.b[i].state_s[ST_COMPUTE] = 1;
		want_sum += v;
	}
	n = svg_columns(&s, SER_POWER, c, 100, &merged);
	assert_int_equal(n, 100);
	assert_int_equal(merged, 10);
	assert_near(c[77].max, 100, 0);
	assert_near(c[77].min, 10, 0);
	assert_near(c[77].mean, (9 * 10 + 100) / 10.0, 1e-9);
	assert_near(c[33].min, -5, 0);
	assert_true(isnan(c[50].mean) && isnan(c[50].max));
	assert_true(c[50].gap_s > 0 && c[51].gap_s > 0 && c[52].gap_s == 0);
	assert_int_equal(c[50].state, ST_GAP);
	assert_int_equal(c[10].state, ST_COMPUTE);
	{
		double sum = 0, known = 0;
		for (size_t i = 0; i < n; i++)
			if (!isnan(c[i].mean)) {
				sum += c[i].mean * 10;
				known += 10;
			}
		assert_near(sum, want_sum, 1e-6);
		(void)known;
	}
	/* no more buckets than columns: one bucket each, nothing merged */
	s.n = 60;
	n = svg_columns(&s, SER_POWER, c, 100, &merged);
	assert_int_equal(n, 60);
	assert_int_equal(merged, 1);
	free(s.b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ticks_round),
		cmocka_unit_test(test_time_ticks_utc),
		cmocka_unit_test(test_escape_log_strings),
		cmocka_unit_test(test_columns_keep_extremes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
