/* SPDX-License-Identifier: MIT */
/* Unit tests for analysis/states: state_classify() per state and at each threshold. */
#include "test.h"

#include <math.h>
#include <string.h>

#include "analysis/states.h"

/* Nothing known: no util, no power, no memory, no processes, no window. */
static struct state_in blank(void)
{
	struct state_in in;

	memset(&in, 0, sizeof(in));
	in.nproc = -1;
	in.held_mem_mib = 128;
	in.held_floor_w = NAN;
	return in;
}

static struct state_in with_util(double util)
{
	struct state_in in = blank();

	in.util_known = true;
	in.util = util;
	return in;
}

static void with_mem_util(struct state_in *in, double mem_util)
{
	in->mem_util_known = true;
	in->mem_util = mem_util;
}

static void with_mem(struct state_in *in, double mib)
{
	in->mem_known = true;
	in->mem_mib = mib;
}

static void with_power(struct state_in *in, double w, double floor_w)
{
	in->power_known = true;
	in->power_w = w;
	in->held_floor_w = floor_w;
}

/* A window of a starved pipeline: swinging utilization, mostly low. */
static void with_bursty_window(struct state_in *in)
{
	in->win.valid = true;
	in->win.util_mean = 15;
	in->win.util_cv = 0.6;
	in->win.active_frac = 0.5;
	in->win.active_before = true;
	in->win.active_after = true;
}

/* ---- one case per state (values seen on the H200 capture) ---------------- */

static void test_compute(void **state)
{
	struct state_in in = with_util(90);

	(void)state;
	with_mem_util(&in, 45);
	/* 45 < 70 so not memory; 90 >= 50 busy */
	assert_int_equal(state_classify(&in), ST_COMPUTE);
}

static void test_memory(void **state)
{
	struct state_in in = with_util(99);

	(void)state;
	with_mem_util(&in, 100);
	/* 100 >= 70 and 100 >= 0.9 x 99 = 89.1 */
	assert_int_equal(state_classify(&in), ST_MEMORY);
}

static void test_launch(void **state)
{
	struct state_in in = with_util(20);

	(void)state;
	with_power(&in, 125, 123);
	/* 125 <= 123 x 1.10 + 5 = 140.3 */
	assert_int_equal(state_classify(&in), ST_LAUNCH);
}

static void test_input_steady_partial(void **state)
{
	struct state_in in = with_util(25);

	(void)state;
	with_power(&in, 336, 123);
	/* 336 > 140.3: real work, yet only a quarter of the time */
	assert_int_equal(state_classify(&in), ST_INPUT);
}

static void test_input_pause_between_bursts(void **state)
{
	struct state_in in = with_util(0);

	(void)state;
	with_mem(&in, 1257);
	with_bursty_window(&in);
	/* util 0 but held, and the window swings: cv 0.6 > 0.35, active 0.5 >= 0.3,
	 * mean 15 in (0.5, 50) */
	assert_int_equal(state_classify(&in), ST_INPUT);

	/* a pause needs work on both sides: after the last burst it is held idle */
	in.win.active_after = false;
	assert_int_equal(state_classify(&in), ST_HELD_IDLE);
	in.win.active_after = true;
	in.win.active_before = false;
	assert_int_equal(state_classify(&in), ST_HELD_IDLE);
	in.win.active_before = true;

	/* the same window on a GPU holding nothing is plain idle */
	with_mem(&in, 0);
	assert_int_equal(state_classify(&in), ST_IDLE);
}

static void test_held_idle(void **state)
{
	struct state_in in = with_util(0);

	(void)state;
	with_mem(&in, 1257);
	assert_int_equal(state_classify(&in), ST_HELD_IDLE);

	/* a process present with memory unknown holds the GPU too */
	in = with_util(0);
	in.nproc = 1;
	assert_int_equal(state_classify(&in), ST_HELD_IDLE);

	/* nproc 0 and memory unknown: nothing held */
	in.nproc = 0;
	assert_int_equal(state_classify(&in), ST_IDLE);
}

static void test_idle(void **state)
{
	struct state_in in = with_util(0);

	(void)state;
	with_mem(&in, 0);
	assert_int_equal(state_classify(&in), ST_IDLE);
}

static void test_throttled_mask(void **state)
{
	struct state_in in = with_util(90);

	(void)state;
	in.mask_known = true;
	in.mask = 0x4;		/* SwPowerCap */
	assert_int_equal(state_classify(&in), ST_THROTTLED);
}

static void test_throttled_clock(void **state)
{
	struct state_in in = with_util(90);

	(void)state;
	in.clock_known = true;
	in.sm_clock_mhz = 1200;
	in.sm_clock_ref_mhz = 1980;
	/* 1200 < 0.90 x 1980 = 1782 */
	assert_int_equal(state_classify(&in), ST_THROTTLED);
}

static void test_down(void **state)
{
	struct state_in in = blank();

	(void)state;
	in.status_down = true;
	/* down wins even with no utilization reading */
	assert_int_equal(state_classify(&in), ST_DOWN);
	in = with_util(90);
	in.status_down = true;
	assert_int_equal(state_classify(&in), ST_DOWN);
}

static void test_unknown(void **state)
{
	struct state_in in = blank();

	(void)state;
	with_mem(&in, 1257);
	with_power(&in, 300, 123);
	/* memory and power, but no utilization: cannot tell */
	assert_int_equal(state_classify(&in), ST_UNKNOWN);
}

/* ---- thresholds: just below and at (or at and just above when strict) ---- */

static void test_thr_busy_util(void **state)
{
	struct state_in in;

	(void)state;
	assert_near(state_thr.busy_util_pct, 50, 0);
	in = with_util(49.9);
	assert_int_equal(state_classify(&in), ST_INPUT);	/* active, below busy, no power */
	in = with_util(50);
	assert_int_equal(state_classify(&in), ST_COMPUTE);	/* at: >= */
}

static void test_thr_memory_util(void **state)
{
	struct state_in in;

	(void)state;
	assert_near(state_thr.memory_util_pct, 70, 0);
	/* util 60: the ratio needs only 0.9 x 60 = 54, so the 70 % floor decides */
	in = with_util(60);
	with_mem_util(&in, 69.9);
	assert_int_equal(state_classify(&in), ST_COMPUTE);
	with_mem_util(&in, 70);
	assert_int_equal(state_classify(&in), ST_MEMORY);
}

static void test_thr_memory_ratio(void **state)
{
	struct state_in in;

	(void)state;
	assert_near(state_thr.memory_ratio, 0.9, 0);
	/* util 80: 0.9 x 80 = 72 (rounds to exactly 72.0 in double) */
	in = with_util(80);
	with_mem_util(&in, 71.9);
	assert_int_equal(state_classify(&in), ST_COMPUTE);
	with_mem_util(&in, 72);
	assert_int_equal(state_classify(&in), ST_MEMORY);
}

static void test_thr_active_util(void **state)
{
	struct state_in in;

	(void)state;
	assert_near(state_thr.active_util_pct, 0.5, 0);
	/* strict: util must be above 0.5 to count as work */
	in = with_util(0.5);
	with_mem(&in, 0);
	assert_int_equal(state_classify(&in), ST_IDLE);
	in = with_util(0.51);
	with_mem(&in, 0);
	assert_int_equal(state_classify(&in), ST_INPUT);
}

static void test_thr_launch_floor(void **state)
{
	struct state_in in;

	(void)state;
	assert_near(state_thr.launch_floor_ratio, 1.10, 0);
	assert_near(state_thr.launch_floor_margin_w, 5, 0);
	/* floor 120: 120 x 1.1 = 132 (exact after rounding) + 5 = 137 W */
	in = with_util(20);
	with_power(&in, 137, 120);
	assert_int_equal(state_classify(&in), ST_LAUNCH);	/* at: <= */
	with_power(&in, 137.01, 120);
	assert_int_equal(state_classify(&in), ST_INPUT);
	/* floor unknown (NAN): cannot call it launch bound */
	with_power(&in, 100, NAN);
	assert_int_equal(state_classify(&in), ST_INPUT);
}

/* util 0, memory held, bursty window with one feature varied */
static int held_window(double cv, double active_frac, double mean)
{
	struct state_in in = with_util(0);

	with_mem(&in, 1257);
	in.win.valid = true;
	in.win.util_cv = cv;
	in.win.active_frac = active_frac;
	in.win.util_mean = mean;
	in.win.active_before = in.win.active_after = true;
	return state_classify(&in);
}

static void test_thr_burst_cv(void **state)
{
	(void)state;
	assert_near(state_thr.burst_cv, 0.35, 0);
	assert_int_equal(held_window(0.35, 0.5, 15), ST_HELD_IDLE);	/* strict > */
	assert_int_equal(held_window(0.36, 0.5, 15), ST_INPUT);
}

static void test_thr_burst_active_frac(void **state)
{
	(void)state;
	assert_near(state_thr.burst_active_frac, 0.3, 0);
	assert_int_equal(held_window(0.6, 0.29, 15), ST_HELD_IDLE);
	assert_int_equal(held_window(0.6, 0.3, 15), ST_INPUT);	/* at: >= */
}

static void test_thr_burst_mean(void **state)
{
	struct state_in in;

	(void)state;
	assert_near(state_thr.burst_mean_max_pct, 50, 0);
	assert_int_equal(held_window(0.6, 0.5, 49.9), ST_INPUT);
	assert_int_equal(held_window(0.6, 0.5, 50), ST_HELD_IDLE);	/* strict < */
	/* and the mean must show some work: above active_util_pct (0.5) */
	assert_int_equal(held_window(0.6, 0.5, 0.5), ST_HELD_IDLE);
	assert_int_equal(held_window(0.6, 0.5, 0.6), ST_INPUT);
	/* an invalid window is never bursty */
	in = with_util(0);
	with_mem(&in, 1257);
	with_bursty_window(&in);
	in.win.valid = false;
	assert_int_equal(state_classify(&in), ST_HELD_IDLE);
}

static void test_thr_clock_drop(void **state)
{
	struct state_in in;

	(void)state;
	assert_near(state_thr.clock_drop_ratio, 0.90, 0);
	/* ref 2000: 0.90 x 2000 = 1800 MHz */
	in = with_util(90);
	in.clock_known = true;
	in.sm_clock_ref_mhz = 2000;
	in.sm_clock_mhz = 1800;
	assert_int_equal(state_classify(&in), ST_COMPUTE);	/* strict < */
	in.sm_clock_mhz = 1799;
	assert_int_equal(state_classify(&in), ST_THROTTLED);
	/* a low clock under light load is not a drop: util 49.9 < 50 */
	in.util = 49.9;
	in.sm_clock_mhz = 300;
	assert_int_equal(state_classify(&in), ST_INPUT);
	/* no reference clock known yet: nothing to compare with */
	in.util = 90;
	in.sm_clock_ref_mhz = 0;
	assert_int_equal(state_classify(&in), ST_COMPUTE);
}

static void test_thr_throttle_bits(void **state)
{
	static const unsigned long long throttling[] = { 0x4, 0x8, 0x20, 0x40, 0x80 };
	/* GpuIdle 0x1, ApplicationsClocksSetting 0x2, SyncBoost 0x10, DisplayClock 0x100 */
	static const unsigned long long benign[] = { 0x0, 0x1, 0x2, 0x10, 0x100 };
	struct state_in in = with_util(90);

	(void)state;
	in.mask_known = true;
	for (size_t i = 0; i < sizeof(throttling) / sizeof(throttling[0]); i++) {
		in.mask = throttling[i];
		assert_int_equal(state_classify(&in), ST_THROTTLED);
	}
	for (size_t i = 0; i < sizeof(benign) / sizeof(benign[0]); i++) {
		in.mask = benign[i];
		assert_int_equal(state_classify(&in), ST_COMPUTE);
	}
	/* a throttle bit on an idle GPU is not throttled work */
	in = with_util(0);
	in.mask_known = true;
	in.mask = 0x4;
	assert_int_equal(state_classify(&in), ST_IDLE);
}

static void test_thr_violation_counters(void **state)
{
	struct state_in in = with_util(90);

	(void)state;
	in.pviol = 0;
	in.tviol = 0;
	assert_int_equal(state_classify(&in), ST_COMPUTE);
	in.pviol = 1;
	assert_int_equal(state_classify(&in), ST_THROTTLED);
	in.pviol = 0;
	in.tviol = 1;
	assert_int_equal(state_classify(&in), ST_THROTTLED);
}

/* issue 29 case 3: a brake at full clocks is noted, not a state */
static void test_thr_brake_full_clock(void **state)
{
	struct state_in in = with_util(90);

	(void)state;
	assert_near(state_thr.brake_clock_ratio, 0.95, 0);
	in.mask_known = true;
	in.mask = 0x4;		/* SW power cap */
	in.clock_known = true;
	in.sm_clock_ref_mhz = 1980;
	in.sm_clock_mhz = 1950;	/* 1.5 % below */
	assert_int_equal(state_classify(&in), ST_COMPUTE);
	in.sm_clock_mhz = 1881;	/* 0.95 x 1980 = 1881: strict < */
	assert_int_equal(state_classify(&in), ST_COMPUTE);
	in.sm_clock_mhz = 1880;
	assert_int_equal(state_classify(&in), ST_THROTTLED);
	/* a violation counter is a brake the same way */
	in.mask = 0;
	in.pviol = 12;
	in.sm_clock_mhz = 1965;
	assert_int_equal(state_classify(&in), ST_COMPUTE);
	in.sm_clock_mhz = 1700;
	assert_int_equal(state_classify(&in), ST_THROTTLED);
	/* brake under light load with a clock drop: throttled; without one: not */
	in.util = 30;
	in.sm_clock_mhz = 1800;
	assert_int_equal(state_classify(&in), ST_THROTTLED);
	in.sm_clock_mhz = 1980;
	assert_int_equal(state_classify(&in), ST_INPUT);
	/* no clock reading: the brake alone decides, as nothing says the clock held */
	in.util = 90;
	in.clock_known = false;
	assert_int_equal(state_classify(&in), ST_THROTTLED);
}

/* issue 29 case 4: bursts and waits alternating are one input-starved stretch */
static void test_alternating(void **state)
{
	struct state_in in = with_util(90);

	(void)state;
	with_mem(&in, 9497);
	in.win.valid = true;
	in.win.util_mean = 45;
	in.win.util_cv = 1.0;
	in.win.active_frac = 0.5;
	in.win.active_before = in.win.active_after = true;
	in.win.switches = 5;
	/* the burst */
	assert_int_equal(state_classify(&in), ST_INPUT);
	/* the wait, though the window's mean is not under 50 % */
	in.util = 0;
	in.win.util_mean = 55;
	assert_int_equal(state_classify(&in), ST_INPUT);
	/* two switches (one pause in compute) are not alternation */
	in.win.switches = 2;
	assert_int_equal(state_classify(&in), ST_HELD_IDLE);
	in.util = 90;
	assert_int_equal(state_classify(&in), ST_COMPUTE);
	/* mostly work (a 1 s dip in 11 s) or mostly waiting is not either */
	in.win.switches = 4;
	in.win.active_frac = 0.8;
	assert_int_equal(state_classify(&in), ST_COMPUTE);
	in.win.active_frac = 0.2;
	assert_int_equal(state_classify(&in), ST_COMPUTE);
	/* nothing held: not a starved job's pause */
	in.win.active_frac = 0.5;
	in.util = 0;
	with_mem(&in, 0);
	assert_int_equal(state_classify(&in), ST_IDLE);
}

static void test_thr_held_mem(void **state)
{
	struct state_in in = with_util(0);

	(void)state;
	/* held_mem_mib 128: at or above counts as held */
	with_mem(&in, 127.9);
	assert_int_equal(state_classify(&in), ST_IDLE);
	with_mem(&in, 128);
	assert_int_equal(state_classify(&in), ST_HELD_IDLE);
}

static void test_useful(void **state)
{
	(void)state;
	assert_true(state_is_useful(ST_COMPUTE));
	assert_true(state_is_useful(ST_MEMORY));
	assert_true(state_is_useful(ST_THROTTLED));
	assert_false(state_is_useful(ST_INPUT));
	assert_false(state_is_useful(ST_LAUNCH));
	assert_false(state_is_useful(ST_HELD_IDLE));
	assert_false(state_is_useful(ST_IDLE));
	assert_false(state_is_useful(ST_GAP));
	assert_string_equal(state_name[ST_HELD_IDLE], "held_idle");
	assert_string_equal(state_name[ST_GAP], "gap");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compute),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_launch),
		cmocka_unit_test(test_input_steady_partial),
		cmocka_unit_test(test_input_pause_between_bursts),
		cmocka_unit_test(test_held_idle),
		cmocka_unit_test(test_idle),
		cmocka_unit_test(test_throttled_mask),
		cmocka_unit_test(test_throttled_clock),
		cmocka_unit_test(test_down),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_thr_busy_util),
		cmocka_unit_test(test_thr_memory_util),
		cmocka_unit_test(test_thr_memory_ratio),
		cmocka_unit_test(test_thr_active_util),
		cmocka_unit_test(test_thr_launch_floor),
		cmocka_unit_test(test_thr_burst_cv),
		cmocka_unit_test(test_thr_burst_active_frac),
		cmocka_unit_test(test_thr_burst_mean),
		cmocka_unit_test(test_thr_clock_drop),
		cmocka_unit_test(test_thr_brake_full_clock),
		cmocka_unit_test(test_alternating),
		cmocka_unit_test(test_thr_throttle_bits),
		cmocka_unit_test(test_thr_violation_counters),
		cmocka_unit_test(test_thr_held_mem),
		cmocka_unit_test(test_useful),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
