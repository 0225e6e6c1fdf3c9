/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for formats/zone: stamps without a zone against zoned evidence
 * (issue 28).  The spans are those of the bundled capture (2026-11-29,
 * 22:46:33 .. 22:50:18 UTC, written at +00:00) read in other zones.
 */
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/zone.h"
#include "util/timeutil.h"

#define S INT64_C(1000000000)
#define H (3600 * S)
/* 2026-11-29T22:46:33Z */
#define T0 ((INT64_C(20786) * 86400 + 81993) * S)

static const char *const names[] = { "dmon_DT.log", "query.csv", "trace.json.gz", "clock_ref_end.txt" };

static void set_tz(const char *tz)
{
	setenv("TZ", tz, 1);
	tzset();
}

/* two zone-less logs read `read_off` away from the truth, a trace and a
 * clock reference that are where they belong */
static void capture(struct zn_input *in, int64_t read_off)
{
	memset(in, 0, 4 * sizeof(*in));
	in[0] = (struct zn_input){ .zoneless = true, .first_ns = T0 + read_off, .last_ns = T0 + 225 * S + read_off };
	in[1] = (struct zn_input){ .zoneless = true, .first_ns = T0 + S + read_off, .last_ns = T0 + 224 * S + read_off };
	in[2] = (struct zn_input){ .zoned = true, .first_ns = T0 + 28 * S, .last_ns = T0 + 28 * S + S / 5 };
	in[3] = (struct zn_input){ .zoned = true, .first_ns = T0 + 228 * S, .last_ns = T0 + 228 * S };
}

static void test_as_read(void **state)
{
	struct zn_input in[4];
	int64_t shift = 1;
	char note[400];

	(void)state;
	set_tz("UTC");
	capture(in, 0);
	assert_int_equal(zn_decide(in, 4, names, &shift, note, sizeof(note)), ZN_AGREE);
	assert_int_equal(shift, 0);
	assert_string_equal(note, "");
}

/* read in New York (UTC-5) they are 5 h late; in Kolkata 5.5 h early; at
 * Lord Howe in summer (UTC+11) 11 h early */
static void test_whole_and_half_hours(void **state)
{
	static const struct {
		const char *tz;
		int64_t off;
	} z[] = { { "America/New_York", 5 * H }, { "Asia/Kolkata", -(5 * H + H / 2) },
		  { "Australia/Lord_Howe", -11 * H } };
	struct zn_input in[4];
	int64_t shift;
	char note[400];

	(void)state;
	for (size_t i = 0; i < sizeof(z) / sizeof(z[0]); i++) {
		set_tz(z[i].tz);
		if (time_utc_offset_s(T0 / S) == 0)
			skip();	/* no tz database */
		capture(in, z[i].off);
		assert_int_equal(zn_decide(in, 4, names, &shift, note, sizeof(note)), ZN_SHIFT);
		assert_int_equal(shift, -z[i].off);
		assert_non_null(strstr(note, "as written at UTC+00:00"));
		assert_non_null(strstr(note, "trace.json.gz and 1 more"));
	}
	set_tz("UTC");
}

/* the trace fits one offset, the clock reference another: say so, move nothing */
static void test_conflict(void **state)
{
	struct zn_input in[4];
	int64_t shift;
	char note[400];

	(void)state;
	set_tz("UTC");
	capture(in, 5 * H);
	/* the clock reference beside the logs as read, the trace 5 h before */
	in[3].first_ns = in[3].last_ns = T0 + 5 * H + 228 * S;
	assert_int_equal(zn_decide(in, 4, names, &shift, note, sizeof(note)), ZN_CONFLICT);
	assert_int_equal(shift, 0);
	assert_non_null(strstr(note, "conflicts, 1 of 2 fit an offset of"));
	assert_non_null(strstr(note, "1 as read; left as read"));
	/* now 3 h away from both */
	in[3].first_ns = in[3].last_ns = T0 + 3 * H;
	assert_int_equal(zn_decide(in, 4, names, &shift, note, sizeof(note)), ZN_CONFLICT);
	assert_int_equal(shift, 0);
}

/* zone-less logs that span days: every offset fits a short trace as well as
 * the next, and reading as written fits too: nothing to move */
static void test_long_span(void **state)
{
	struct zn_input in[4];
	int64_t shift;
	char note[400];

	(void)state;
	set_tz("UTC");
	capture(in, 0);
	in[0].first_ns -= 48 * H;
	in[2].first_ns = in[2].last_ns = T0 - 30 * H;
	in[3].first_ns = in[3].last_ns = T0 - 40 * H;
	assert_int_equal(zn_decide(in, 4, names, &shift, note, sizeof(note)), ZN_AGREE);
	assert_int_equal(shift, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_as_read),
		cmocka_unit_test(test_whole_and_half_hours),
		cmocka_unit_test(test_conflict),
		cmocka_unit_test(test_long_span),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
