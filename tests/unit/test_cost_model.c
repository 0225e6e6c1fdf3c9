/* SPDX-License-Identifier: MIT */
/* Unit tests of the cost model and profiles; each expected value is worked by hand beside it. */
#include "test.h"

#include <math.h>
#include <string.h>

#include "cost/model.h"
#include "cost/profile.h"

/* The worked example of docs/cost-model.md, set field by field (not from the preset). */
static void worked_example(struct cost_params *p)
{
	cost_params_init(p);
	p->hardware_price = 4299;
	p->lifetime_years = 2;
	p->hours_on_per_day = 24;
	p->electricity_price = 0.62;
	p->busy_power_w = 115;
	p->cooling_w = 22;
	p->idle_power_w = 10;
	p->maintenance_hours_per_year = 9.4;
	p->labor_rate = 120;
	p->cloud_hourly_rate = 3.28;
	p->cloud_efficiency = 0.92;
}

static void test_defaults(void **state)
{
	struct cost_params p;
	struct cost_longrun lr;

	(void)state;
	cost_params_init(&p);
	assert_near(p.gpu_share, 1, 0);
	assert_near(p.lifetime_years, 3, 0);
	assert_near(p.hours_on_per_day, 24, 0);
	assert_near(p.pue, 1, 0);
	assert_near(p.cloud_efficiency, 1, 0);
	assert_near(p.cloud_billing_increment_s, 1, 0);
	assert_int_equal(p.origin[COST_HARDWARE_PRICE], COST_DEFAULT);
	assert_int_equal(cost_param_find("cloud_min_billed_s"), COST_CLOUD_MIN_BILLED_S);
	assert_int_equal(cost_param_find("nope"), -1);
	/* All money zero: C_C = 0 and k = 0, so the denominator H (0 - 0) = 0: never. */
	cost_longrun(&p, &lr);
	assert_int_equal(lr.status, COST_NEVER);
	assert_true(isnan(lr.u_star));
}

static void test_longrun_worked_example(void **state)
{
	struct cost_params p;
	struct cost_longrun lr;

	(void)state;
	worked_example(&p);
	cost_longrun(&p, &lr);
	/* H = 365 * 24 = 8760 */
	assert_near(lr.H, 8760, 1e-9);
	/* F = 4299 * 1 * (1 - 0) / 2 + 9.4 * 120 + 0 = 2149.5 + 1128 = 3277.5 */
	assert_near(lr.F, 3277.5, 1e-9);
	/* k = 0.62 * 1 / 1000 = 0.00062 per Wh */
	assert_near(lr.k, 0.00062, 1e-15);
	/* P_idle = 10; P_busy = 115 + 22 = 137 */
	assert_near(lr.p_idle, 10, 0);
	assert_near(lr.p_busy, 137, 0);
	/* C_C = 3.28 / 0.92 = 3.565217391304348 */
	assert_near(lr.c_cloud, 3.565217391304348, 1e-12);
	/*
	 * u* = (3277.5 + 0.00062 * 8760 * 10) / (8760 * (3.565217391304348 - 0.00062 * (137 - 10)))
	 *    = (3277.5 + 54.312) / (8760 * (3.565217391304348 - 0.07874))
	 *    = 3331.812 / (8760 * 3.486477391304348) = 3331.812 / 30541.541947826 = 0.1090911522
	 */
	assert_int_equal(lr.status, COST_OK);
	assert_near(lr.u_star, 0.1090911522, 1e-6);
	assert_near(lr.u_star, 0.1090911522, 1e-9);
	/* useful hours a month = u* H / 12 = 0.1090911522 * 8760 / 12 = 79.63654 */
	assert_near(lr.useful_hours_per_month, 79.6365411, 1e-6);
	assert_string_equal(cost_status_name(lr.status), "ok");
}

static void test_longrun_8_hours_a_day(void **state)
{
	struct cost_params p;
	struct cost_longrun lr;

	(void)state;
	worked_example(&p);
	p.hours_on_per_day = 8;
	cost_longrun(&p, &lr);
	/* H = 365 * 8 = 2920 */
	assert_near(lr.H, 2920, 1e-9);
	/*
	 * u* = (3277.5 + 0.00062 * 2920 * 10) / (2920 * 3.486477391304348)
	 *    = (3277.5 + 18.104) / 10180.513982608696 = 3295.604 / 10180.513983 = 0.3237168581
	 * which the spec rounds to 0.324.
	 */
	assert_near(lr.u_star, 0.3237168581, 1e-9);
	assert_near(lr.u_star, 0.324, 5e-4);
	/* per month: 0.3237168581 * 2920 / 12 = 78.77110 */
	assert_near(lr.useful_hours_per_month, 78.7711021, 1e-6);
}

static void test_longrun_statuses(void **state)
{
	struct cost_params p;
	struct cost_longrun lr;

	(void)state;
	worked_example(&p);
	/*
	 * cloud_hourly_rate 0.3: C_C = 0.3 / 0.92 = 0.326086957; denominator
	 * 8760 * (0.326086957 - 0.07874) = 8760 * 0.247346957 = 2166.759342;
	 * u* = 3331.812 / 2166.759342 = 1.537693615 > 1: above full use.
	 */
	p.cloud_hourly_rate = 0.3;
	cost_longrun(&p, &lr);
	assert_int_equal(lr.status, COST_ABOVE_FULL_USE);
	assert_near(lr.u_star, 1.537693615, 1e-8);
	assert_true(isnan(lr.useful_hours_per_month));
	assert_string_equal(cost_status_name(lr.status), "above_full_use");

	/* cloud_hourly_rate 0.05: C_C = 0.054347826 < k (P_busy - P_idle) = 0.07874: never. */
	p.cloud_hourly_rate = 0.05;
	cost_longrun(&p, &lr);
	assert_int_equal(lr.status, COST_NEVER);
	assert_true(isnan(lr.u_star));
	assert_true(isnan(lr.useful_hours_per_month));
	assert_string_equal(cost_status_name(lr.status), "never");

	/* An exactly zero denominator is never too: k = 1000 * 1 / 1000 = 1 per Wh,
	 * P_busy - P_idle = 2 - 0 = 2 W, C_C = 2 / 1 = 2: 2 - 1 * 2 = 0. */
	cost_params_init(&p);
	p.electricity_price = 1000;
	p.busy_power_w = 2;
	p.cloud_hourly_rate = 2;
	cost_longrun(&p, &lr);
	assert_int_equal(lr.status, COST_NEVER);
	assert_true(isnan(lr.u_star));

	/* No fixed cost and no idle power: u* = 0 / positive = 0, status ok, 0 hours a month. */
	cost_params_init(&p);
	p.cloud_hourly_rate = 1;
	cost_longrun(&p, &lr);
	assert_int_equal(lr.status, COST_OK);
	assert_near(lr.u_star, 0, 0);
	assert_near(lr.useful_hours_per_month, 0, 0);
}

static void test_local_per_useful_hour(void **state)
{
	struct cost_params p;
	struct cost_longrun lr;

	(void)state;
	worked_example(&p);
	/*
	 * C_L(0.5) = (3277.5 + 0.00062 * 8760 * (0.5 * 137 + 0.5 * 10)) / (0.5 * 8760)
	 *          = (3277.5 + 5.4312 * 73.5) / 4380 = (3277.5 + 399.1932) / 4380 = 0.8394276712
	 */
	assert_near(cost_local_per_useful_hour(&p, 0.5), 0.8394276712, 1e-9);
	/* C_L(1) = (3277.5 + 5.4312 * 137) / 8760 = 4021.5744 / 8760 = 0.4590838356 */
	assert_near(cost_local_per_useful_hour(&p, 1), 0.4590838356, 1e-9);
	/* C_L(0.05) = (3277.5 + 5.4312 * (6.85 + 9.5)) / 438 = 3366.30012 / 438 = 7.685616712 */
	assert_near(cost_local_per_useful_hour(&p, 0.05), 7.685616712, 1e-8);
	/* At u* the two costs meet: C_L(u*) = C_C = 3.565217391 */
	cost_longrun(&p, &lr);
	assert_near(cost_local_per_useful_hour(&p, lr.u_star), 3.565217391304348, 1e-9);
	assert_true(isinf(cost_local_per_useful_hour(&p, 0)));
	assert_true(isinf(cost_local_per_useful_hour(&p, -1)));
	assert_true(isnan(cost_local_per_useful_hour(&p, NAN)));
}

static void test_billed_hours(void **state)
{
	struct cost_params p;

	(void)state;
	cost_params_init(&p);
	p.cloud_billing_increment_s = 60;
	p.cloud_min_billed_s = 300;
	/* 0.5 h = 1800 s, a multiple of 60: 1800 s = 0.5 h */
	assert_near(cost_billed_hours(&p, 0.5), 0.5, 1e-12);
	/* 1801 s rounds up to 31 * 60 = 1860 s = 0.5166667 h */
	assert_near(cost_billed_hours(&p, 1801.0 / 3600), 1860.0 / 3600, 1e-12);
	/* 100 s rounds up to 120 s, then the minimum lifts it to 300 s = 0.0833333 h */
	assert_near(cost_billed_hours(&p, 100.0 / 3600), 300.0 / 3600, 1e-12);
	/* a zero-length job still pays the minimum */
	assert_near(cost_billed_hours(&p, 0), 300.0 / 3600, 1e-12);
	/* Round first, then the minimum (the spec's order): 30 s -> 60 s -> max(60, 90) = 90 s. */
	p.cloud_min_billed_s = 90;
	assert_near(cost_billed_hours(&p, 30.0 / 3600), 90.0 / 3600, 1e-12);
	/* Hourly billing: 1.2 h -> 2 h */
	p.cloud_billing_increment_s = 3600;
	p.cloud_min_billed_s = 0;
	assert_near(cost_billed_hours(&p, 1.2), 2, 1e-12);
	/* 1 + 1e-13 h is 1 h plus rounding noise, not a second hour */
	assert_near(cost_billed_hours(&p, 1 + 1e-13), 1, 1e-12);
	/* Per-second billing: 2 / 0.92 h = 7826.087 s -> 7827 s = 2.1741667 h, at 3.28: 7.1312667 */
	worked_example(&p);
	assert_near(cost_billed_hours(&p, 2 / 0.92), 7827.0 / 3600, 1e-12);
	assert_near(cost_cloud_job(&p, 2), 3.28 * 7827 / 3600, 1e-12);
}

static void test_window(void **state)
{
	static const double jobs[] = { 1.5, 2.5 };
	struct cost_params p;
	struct cost_window_in in = { .covered_h = 10, .busy_h = 4, .energy_j = 0.8 * 3.6e6,
				     .job_useful_h = jobs, .njobs = 2 };
	struct cost_window w;

	(void)state;
	worked_example(&p);
	p.local_per_job_fixed = 0.25;
	p.cloud_cold_start_s = 120;
	p.cloud_billing_increment_s = 60;
	cost_window(&p, &in, &w);
	/* F D / H = 3277.5 * 10 / 8760 = 3.741438356 */
	assert_near(w.local_fixed, 3.741438356, 1e-9);
	/* 0.62 * 1 * (2.88e6 / 3.6e6) = 0.62 * 0.8 = 0.496 */
	assert_near(w.local_energy, 0.496, 1e-12);
	/* k cooling B = 0.00062 * 22 * 4 = 0.05456 */
	assert_near(w.local_cooling, 0.05456, 1e-12);
	/* n * fixed = 2 * 0.25 = 0.5 */
	assert_near(w.local_jobs, 0.5, 1e-12);
	/* 3.741438356 + 0.496 + 0.05456 + 0.5 = 4.791998356 */
	assert_near(w.local_cost, 4.791998356, 1e-9);
	/*
	 * job 1: 1.5 / 0.92 h = 5869.565 s, + 120 s = 5989.565 s -> 6000 s; 3.28 * 6000 / 3600 = 5.4666667
	 * job 2: 2.5 / 0.92 h = 9782.609 s, + 120 s = 9902.609 s -> 9960 s; 3.28 * 9960 / 3600 = 9.0746667
	 * cloud = 14.5413333
	 */
	assert_near(w.cloud_cost, 14.541333333, 1e-8);
	/* premium = 100 (4.791998356 / 14.541333333 - 1) = -67.04567424 */
	assert_near(w.premium_pct, -67.04567424, 1e-7);
	/* u_obs = B / D = 4 / 10 */
	assert_near(w.u_obs, 0.4, 1e-12);

	/* No jobs known: one job of B = 4 useful hours.  4 / 0.92 h = 15652.17 s, + 120 = 15772.17
	 * -> 15780 s; 3.28 * 15780 / 3600 = 14.3773333; local = 3.741438356 + 0.496 + 0.05456 + 0.25. */
	in.njobs = 0;
	cost_window(&p, &in, &w);
	assert_near(w.cloud_cost, 14.377333333, 1e-8);
	assert_near(w.local_jobs, 0.25, 1e-12);
	assert_near(w.local_cost, 4.541998356, 1e-9);
	/* premium = 100 (4.541998356 / 14.377333333 - 1) = -68.40861757 */
	assert_near(w.premium_pct, -68.40861757, 1e-7);

	/* A free cloud has no premium, no covered time no utilization; unknown energy stays unknown. */
	p.cloud_hourly_rate = 0;
	in.covered_h = 0;
	in.energy_j = NAN;
	cost_window(&p, &in, &w);
	assert_true(isnan(w.premium_pct));
	assert_true(isnan(w.u_obs));
	assert_true(isnan(w.local_energy));
	assert_true(isnan(w.local_cost));
}

/*
 * Brute force for the job-length break-even: walk billed time step by step,
 * sampling each billing step just after its start, at step_div points inside
 * and at its end, and record the last T where local is not cheaper and the
 * last where it is.
 */
static void brute_job(const struct cost_params *p, double u, double horizon_s, int step_div,
		      double *last_not_cheaper, double *last_cheaper)
{
	double a = cost_local_per_useful_hour(p, u);
	double inc = p->cloud_billing_increment_s;

	*last_not_cheaper = NAN;
	*last_cheaper = NAN;
	for (double start = 0; start < horizon_s; start += inc) {
		for (int i = 0; i <= step_div; i++) {
			double s = start + (i ? inc * i / step_div : inc * 1e-5);
			double T = (s - p->cloud_cold_start_s) * p->cloud_efficiency / 3600;
			double local, cloud;

			if (T <= 0)
				continue;
			local = p->local_per_job_fixed + a * T;
			cloud = cost_cloud_job(p, T);
			if (local < cloud)
				*last_cheaper = T;
			else
				*last_not_cheaper = T;
		}
	}
}

static void test_job_breakeven(void **state)
{
	struct cost_params p;
	struct cost_job_be be;
	double nc, c;

	(void)state;
	worked_example(&p);

	/* u = 1, no per-job cost: C_L(1) = 0.459 per useful hour, the first billed second costs
	 * 3.28 / 3600 against 0.459 * 0.92 / 3600 locally; local is cheaper for every T. */
	cost_job_breakeven(&p, 1, &be);
	assert_int_equal(be.status, COST_JOB_LOCAL_ALWAYS);
	assert_near(be.hours, 0, 0);

	/*
	 * u = 1, 1 per local job: at the end of billed second j, T = 0.92 j / 3600 and
	 * local - cloud = 1 + j (0.92 * 0.4590838356 - 3.28) / 3600 = 1 - j * 2.857642871 / 3600,
	 * which is >= 0 up to j = floor(3600 / 2.857642871) = floor(1259.78) = 1259.
	 * T = 1259 * 0.92 / 3600 = 0.3217444444 h (the smooth crossing 1 / (3.5652 - 0.4591)
	 * = 0.32195 h lies inside the next billed second).
	 */
	p.local_per_job_fixed = 1;
	cost_job_breakeven(&p, 1, &be);
	assert_int_equal(be.status, COST_JOB_CROSS);
	assert_near(be.hours, 0.3217444444, 1e-9);
	brute_job(&p, 1, 3 * 3600, 10, &nc, &c);
	assert_near(be.hours, nc, 1e-9);

	/*
	 * u = 0.05 with 0.01 per local job: C_L = 7.6856 > C_C, and the first billed second
	 * costs 3.28 / 3600 = 0.000911 < 0.01: the cloud is cheaper for every T.
	 */
	p.local_per_job_fixed = 0.01;
	cost_job_breakeven(&p, 0.05, &be);
	assert_int_equal(be.status, COST_JOB_CLOUD_ALWAYS);
	assert_true(isnan(be.hours));
	assert_string_equal(cost_status_name(be.status), "cloud_always");

	/*
	 * u = 0.05, no per-job cost, 600 s cold start, 60 s minimum: the cold start makes
	 * short jobs dear in the cloud.  In billed second j (j > 601) the left end is
	 * T = (j - 601) 0.92 / 3600 and local - cloud there is
	 * (j (0.92 * 7.685616712 - 3.28) - 601 * 0.92 * 7.685616712) / 3600 < 0 while
	 * j < 601 * 7.070767375 / 3.790767375 = 1121.02, so the last such second is 1121;
	 * inside it local meets the cloud's 3.28 * 1121 / 3600 = 1.021355556 at
	 * T = 1.021355556 / 7.685616712 = 0.1328918152 h.
	 */
	p.local_per_job_fixed = 0;
	p.cloud_cold_start_s = 600;
	p.cloud_min_billed_s = 60;
	cost_job_breakeven(&p, 0.05, &be);
	assert_int_equal(be.status, COST_JOB_LOCAL_SHORT);
	assert_near(be.hours, 0.1328918152, 1e-9);
	brute_job(&p, 0.05, 3600, 100, &nc, &c);
	assert_near(be.hours, c, 0.92 / 3600 / 100);

	/*
	 * One-hour minimum, 60 s increments, no cold start, u = 1, 2.9 per local job.
	 * Region of the minimum: T up to 3600 * 0.92 / 3600 = 0.92 h billed 3.28;
	 * at its end local = 2.9 + 0.92 * 0.4590838356 = 3.322357 >= 3.28.
	 * First 60 s step after it (j = 61): local - cloud = 2.9 + (61/60)(0.422357129 - 3.28)
	 * = 2.9 - 2.905270 < 0, and later steps only fall: the crossing is T = 0.92.
	 */
	worked_example(&p);
	p.cloud_min_billed_s = 3600;
	p.cloud_billing_increment_s = 60;
	p.local_per_job_fixed = 2.9;
	cost_job_breakeven(&p, 1, &be);
	assert_int_equal(be.status, COST_JOB_CROSS);
	assert_near(be.hours, 0.92, 1e-12);
	/* 3.0 per job: step j ends with 3 - (j / 60) 2.857642871 >= 0 up to j = 62 (62.99):
	 * T = 62 * 60 * 0.92 / 3600 = 0.9506666667 h */
	p.local_per_job_fixed = 3.0;
	cost_job_breakeven(&p, 1, &be);
	assert_int_equal(be.status, COST_JOB_CROSS);
	assert_near(be.hours, 0.9506666667, 1e-9);
	brute_job(&p, 1, 4 * 3600, 60, &nc, &c);
	assert_near(be.hours, nc, 1e-9);

	/* Utilization zero or unknown: local hours cost infinity, the cloud always wins. */
	cost_job_breakeven(&p, 0, &be);
	assert_int_equal(be.status, COST_JOB_CLOUD_ALWAYS);
	cost_job_breakeven(&p, NAN, &be);
	assert_int_equal(be.status, COST_JOB_CLOUD_ALWAYS);
}

/* Closed form against brute force over a grid of billing set-ups. */
static void test_job_breakeven_brute(void **state)
{
	static const double us[] = { 0.03, 0.1, 0.3, 1 };
	static const double fixed[] = { 0, 0.05, 1.5 };
	static const double cold[] = { 0, 45, 600 };
	static const double incs[] = { 1, 60, 900 };
	static const double mins[] = { 0, 60, 3600 };
	struct cost_params p;
	int seen[8] = { 0 };

	(void)state;
	for (size_t a = 0; a < 4; a++)
	for (size_t b = 0; b < 3; b++)
	for (size_t c = 0; c < 3; c++)
	for (size_t d = 0; d < 3; d++)
	for (size_t e = 0; e < 3; e++) {
		struct cost_job_be be;
		double nc, ch, res;

		worked_example(&p);
		p.local_per_job_fixed = fixed[b];
		p.cloud_cold_start_s = cold[c];
		p.cloud_billing_increment_s = incs[d];
		p.cloud_min_billed_s = mins[e];
		cost_job_breakeven(&p, us[a], &be);
		brute_job(&p, us[a], 6 * 3600, incs[d] >= 60 ? 60 : 4, &nc, &ch);
		res = incs[d] * 0.92 / 3600 / (incs[d] >= 60 ? 60 : 4);
		seen[be.status]++;
		switch (be.status) {
		case COST_JOB_CROSS:
			assert_near(be.hours, nc, 1e-9);
			break;
		case COST_JOB_LOCAL_ALWAYS:
			assert_true(isnan(nc));
			break;
		case COST_JOB_CLOUD_ALWAYS:
			assert_true(isnan(ch));
			break;
		case COST_JOB_LOCAL_SHORT:
			if (fabs(be.hours - ch) > res)
				print_message("u %g fixed %g cold %g inc %g min %g: got %.9g want %.9g\n",
					      us[a], fixed[b], cold[c], incs[d], mins[e], be.hours, ch);
			assert_false(isnan(ch));
			assert_near(be.hours, ch, res);
			break;
		default:
			fail();
		}
	}
	/* the grid reaches every status */
	for (int i = COST_JOB_CROSS; i <= COST_JOB_LOCAL_SHORT; i++) {
		assert_true(seen[i] > 0);
	}
}

static void test_sensitivity(void **state)
{
	static const char *const order[] = {
		"cloud_hourly_rate", "cloud_efficiency", "lifetime_years", "hardware_price",
		"hours_on_per_day", "maintenance_hours_per_year", "labor_rate", "electricity_price",
		"busy_power_w", "pue", "idle_power_w",
	};
	struct cost_params p;
	struct cost_sens s[COST_NSENS + 1];
	size_t n;

	(void)state;
	worked_example(&p);
	n = cost_sensitivity(&p, s, COST_NSENS + 1);
	assert_int_equal(n, COST_NSENS);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(s[i].param, order[i]);
		if (i)
			assert_true(s[i - 1].swing >= s[i].swing - 1e-12);
	}
	/*
	 * cloud_hourly_rate 2.624 / 3.936: C_C = 2.852173913 / 4.278260870;
	 * u_low = 3331.812 / (8760 (2.852173913 - 0.07874)) = 3331.812 / 24295.281078 = 0.1371382364
	 * u_high = 3331.812 / (8760 (4.278260870 - 0.07874)) = 3331.812 / 36787.802817 = 0.0905683880
	 */
	assert_near(s[0].low_value, 2.624, 1e-12);
	assert_near(s[0].high_value, 3.936, 1e-12);
	assert_near(s[0].u_low, 0.1371382364, 1e-9);
	assert_near(s[0].u_high, 0.0905683880, 1e-9);
	assert_near(s[0].swing, 0.1371382364 - 0.0905683880, 1e-9);
	/*
	 * Every parameter is clamped to its --set range, not only fractions:
	 * hours_on_per_day 19.2 / 28.8 -> 24: H = 7008,
	 * u_low = (3277.5 + 0.00062 * 7008 * 10) / (7008 (3.565217391 - 0.07874))
	 *       = 3320.9496 / 24433.233558 = 0.135919365
	 * u_high = the base u* 0.1090911522 (24 h is the most a day has).
	 * pue 0.8 -> 1 / 1.2: u_low = the base; k = 0.000744,
	 * u_high = (3277.5 + 0.000744 * 8760 * 10) / (8760 (3.565217391 - 0.094488))
	 *        = 3342.6744 / 30403.589 = 0.109943413
	 */
	assert_near(s[4].low_value, 19.2, 1e-12);
	assert_near(s[4].high_value, 24, 1e-12);
	assert_near(s[4].u_low, 0.135919365, 1e-8);
	assert_near(s[4].u_high, 0.1090911522, 1e-9);
	assert_near(s[9].low_value, 1, 1e-12);
	assert_near(s[9].high_value, 1.2, 1e-12);
	assert_near(s[9].u_low, 0.1090911522, 1e-9);
	assert_near(s[9].u_high, 0.109943413, 1e-8);
	/*
	 * cloud_efficiency (a fraction) 0.736 / 1.104 clamped to 1: C_C = 4.456521739 / 3.28;
	 * u_low = 3331.812 / (8760 (4.456521739 - 0.07874)) = 3331.812 / 38349.368035 = 0.0868804930
	 * u_high = 3331.812 / (8760 (3.28 - 0.07874)) = 3331.812 / 28043.0376 = 0.1188106669
	 */
	assert_string_equal(s[1].param, "cloud_efficiency");
	assert_near(s[1].low_value, 0.736, 1e-12);
	assert_near(s[1].high_value, 1, 0);
	assert_near(s[1].u_low, 0.0868804930, 1e-9);
	assert_near(s[1].u_high, 0.1188106669, 1e-9);

	/* cap smaller than the table: the count is still the full one */
	assert_int_equal(cost_sensitivity(&p, s, 2), COST_NSENS);

	/* A side without u* ranks first: at rate 0.09, 0.8x gives C_C = 0.0783 < 0.07874: never. */
	p.cloud_hourly_rate = 0.09;
	n = cost_sensitivity(&p, s, COST_NSENS);
	assert_string_equal(s[0].param, "cloud_hourly_rate");
	assert_true(isnan(s[0].u_low));
	assert_false(isnan(s[0].u_high));
	assert_true(isnan(s[0].swing));
}

static void test_param_set(void **state)
{
	struct cost_params p;
	struct gl_err e;

	(void)state;
	cost_params_init(&p);
	assert_int_equal(cost_param_set_kv(&p, "hardware_price=5000", COST_SET, &e), 0);
	assert_near(p.hardware_price, 5000, 0);
	assert_int_equal(p.origin[COST_HARDWARE_PRICE], COST_SET);
	assert_int_equal(cost_param_set_kv(&p, " gpu_share = 0.5 ", COST_SET, &e), 0);
	assert_near(p.gpu_share, 0.5, 0);
	assert_int_equal(cost_param_set_kv(&p, "currency=EUR", COST_SET, &e), 0);
	assert_string_equal(p.currency, "EUR");

	gl_err_clear(&e);
	assert_int_equal(cost_param_set_kv(&p, "hardware_price", COST_SET, &e), GL_EUSAGE);
	assert_string_equal(e.msg, "expected KEY=VALUE, got 'hardware_price'");
	assert_int_equal(cost_param_set_kv(&p, "=3", COST_SET, &e), GL_EUSAGE);
	assert_int_equal(cost_param_set_kv(&p, "gpu_shares=1", COST_SET, &e), GL_EUSAGE);
	assert_string_equal(e.msg, "unknown cost parameter 'gpu_shares'");
	assert_int_equal(cost_param_set_kv(&p, "gpu_share=half", COST_SET, &e), GL_EUSAGE);
	assert_string_equal(e.msg, "bad value 'half' for gpu_share: expected a number");
	assert_int_equal(cost_param_set_kv(&p, "gpu_share=", COST_SET, &e), GL_EUSAGE);
	assert_int_equal(cost_param_set_kv(&p, "gpu_share=nan", COST_SET, &e), GL_EUSAGE);
	assert_int_equal(cost_param_set_kv(&p, "gpu_share=0.5x", COST_SET, &e), GL_EUSAGE);
	/* fractions keep to their ranges, and a rejected value leaves the old one */
	assert_int_equal(cost_param_set_kv(&p, "gpu_share=1.5", COST_SET, &e), GL_EUSAGE);
	assert_string_equal(e.msg, "gpu_share must be between 0 and 1, got 1.5");
	assert_near(p.gpu_share, 0.5, 0);
	assert_int_equal(cost_param_set_kv(&p, "residual_fraction=-0.1", COST_SET, &e), GL_EUSAGE);
	assert_string_equal(e.msg, "residual_fraction must be between 0 and 1, got -0.1");
	assert_int_equal(cost_param_set_kv(&p, "residual_fraction=1", COST_SET, &e), 0);
	assert_int_equal(cost_param_set_kv(&p, "cloud_efficiency=0", COST_SET, &e), GL_EUSAGE);
	assert_string_equal(e.msg, "cloud_efficiency must be greater than 0 and at most 1, got 0");
	assert_int_equal(cost_param_set_kv(&p, "cloud_efficiency=1.01", COST_SET, &e), GL_EUSAGE);
	assert_int_equal(cost_param_set_kv(&p, "cloud_efficiency=1", COST_SET, &e), 0);
	assert_int_equal(cost_param_set_kv(&p, "hours_on_per_day=25", COST_SET, &e), GL_EUSAGE);
	assert_int_equal(cost_param_set_kv(&p, "lifetime_years=0", COST_SET, &e), GL_EUSAGE);
	assert_string_equal(e.msg, "lifetime_years must be greater than 0, got 0");
	assert_int_equal(cost_param_set_kv(&p, "pue=0.9", COST_SET, &e), GL_EUSAGE);
	assert_string_equal(e.msg, "pue must be at least 1, got 0.9");
	assert_int_equal(cost_param_set_kv(&p, "hardware_price=-1", COST_SET, &e), GL_EUSAGE);
	assert_int_equal(cost_param_set_kv(&p, "cloud_billing_increment_s=0", COST_SET, &e),
			 GL_EUSAGE);
	assert_int_equal(cost_param_set_kv(&p, "currency=ABCDEFGHIJKLMNOPQ", COST_SET, &e),
			 GL_EUSAGE);
	assert_string_equal(p.currency, "EUR");
}

static void test_profile_string(void **state)
{
	static const char ini[] =
		"; a comment\n"
		"# another comment\n"
		"name = test profile\n"
		"hardware_price = 1000   ; an inline comment\n"
		"[cost]\n"
		"currency = EUR\n"
		"lifetime_years: 5\n"
		"cloud_hourly_rate = 2\r\n";
	struct cost_params p;
	struct gl_err e;

	(void)state;
	cost_params_init(&p);
	gl_err_clear(&e);
	assert_int_equal(cost_profile_load_string(&p, ini, "t.ini", &e), 0);
	assert_string_equal(p.name, "test profile");
	assert_string_equal(p.currency, "EUR");
	assert_near(p.hardware_price, 1000, 0);
	assert_near(p.lifetime_years, 5, 0);
	assert_near(p.cloud_hourly_rate, 2, 0);
	assert_int_equal(p.origin[COST_HARDWARE_PRICE], COST_PROFILE);
	assert_int_equal(p.origin[COST_PUE], COST_DEFAULT);

	/* errors carry the source and line */
	cost_params_init(&p);
	assert_int_equal(cost_profile_load_string(&p, "[cost]\n\ngpu_sharez = 1\n", "x.ini", &e),
			 GL_EPARSE);
	assert_string_equal(e.src, "x.ini");
	assert_int_equal(e.line, 3);
	assert_string_equal(e.msg, "unknown cost parameter 'gpu_sharez'");
	assert_int_equal(cost_profile_load_string(&p, "pue = 1\nthis line has no equals\n", "x", &e),
			 GL_EPARSE);
	assert_int_equal(e.line, 2);
	assert_string_equal(e.msg, "expected 'key = value', '[cost]' or a comment");
	/* a syntax error before a bad key: the earlier line is reported */
	assert_int_equal(cost_profile_load_string(&p, "oops\nnope = 1\n", "x", &e), GL_EPARSE);
	assert_int_equal(e.line, 1);
	assert_int_equal(cost_profile_load_string(&p, "gpu_share = 2\noops\n", "x", &e), GL_EPARSE);
	assert_int_equal(e.line, 1);
	assert_string_equal(e.msg, "gpu_share must be between 0 and 1, got 2");
	assert_int_equal(cost_profile_load_string(&p, "[gpu]\npue = 1.2\n", "x", &e), GL_EPARSE);
	assert_int_equal(e.line, 2);
	assert_string_equal(e.msg, "unknown section [gpu] (profiles use [cost])");

	/* an over-long line is an error of its own, not two lines */
	{
		char big[400];
		memset(big, ' ', sizeof(big));
		memcpy(big, "; ", 2);
		memcpy(big + 300, "\npue = 1.5\n", 12);
		cost_params_init(&p);
		assert_int_equal(cost_profile_load_string(&p, big, "x", &e), GL_EPARSE);
		assert_int_equal(e.line, 1);
		assert_non_null(strstr(e.msg, "line longer than"));
	}
}

static void test_presets(void **state)
{
	struct cost_params p;
	struct cost_longrun lr;
	struct gl_err e;
	size_t n = 0;

	(void)state;
	while (cost_preset_name(n))
		n++;
	assert_true(n >= 2);
	for (size_t i = 0; i < n; i++) {
		cost_params_init(&p);
		assert_int_equal(cost_profile_load(&p, cost_preset_name(i), &e), 0);
		assert_string_equal(p.name, cost_preset_name(i));
	}
	/* The shipped worked-example preset reproduces the hand computation. */
	cost_params_init(&p);
	assert_int_equal(cost_profile_load(&p, "rtx4060-laptop-vs-a10", &e), 0);
	cost_longrun(&p, &lr);
	assert_near(lr.F, 3277.5, 1e-9);
	assert_near(lr.u_star, 0.1090911522, 1e-9);
	for (size_t i = 0; i < COST_NPARAMS; i++)
		assert_int_equal(p.origin[i], COST_PROFILE);

	cost_params_init(&p);
	assert_int_equal(cost_profile_load(&p, "no-such-preset", &e), GL_EUSAGE);
	assert_int_equal(cost_profile_load(&p, "/nonexistent/x.ini", &e), GL_EIO);
}

/* The three-layer ROI, every figure worked by hand from the h200-vs-cloud numbers. */
static void test_roi(void **state)
{
	struct cost_params p;
	struct cost_roi o;
	struct cost_sens s[COST_NROI_SENS];
	size_t n;

	(void)state;
	cost_params_init(&p);
	p.hardware_price = 320000;
	p.gpu_share = 0.125;		/* capex 40,000 */
	p.lifetime_years = 4;
	p.residual_fraction = 0.2;	/* 8,000 back at the end */
	p.electricity_price = 0.13;
	p.pue = 1.5;			/* k = 0.000195 per Wh */
	p.cooling_w = 150;
	p.idle_power_w = 90;
	p.busy_power_w = 600;
	p.maintenance_hours_per_year = 20;
	p.labor_rate = 100;		/* 2,000 a year */
	p.other_fixed_per_year = 1500;
	p.cloud_hourly_rate = 4.5;
	p.cloud_efficiency = 0.9;	/* C_C = 5 */
	cost_roi(&p, 0.4, &o);
	assert_near(o.capex, 40000, 1e-9);
	/* 8760 h x (0.4 x 750 W + 0.6 x 90 W) x 0.000195 = 8760 x 354 x 0.000195 */
	assert_near(o.energy_per_year, 604.7028, 1e-6);
	assert_near(o.opex_per_year, 2000 + 1500 + 604.7028, 1e-6);
	assert_near(o.tco_lifetime, 32000 + 4 * 4104.7028, 1e-6);
	assert_near(o.useful_hours_per_year, 3504, 1e-9);
	assert_near(o.cloud_cost_per_year, 3504 * 5, 1e-9);
	assert_near(o.return_per_year, 17520 - 4104.7028, 1e-6);
	assert_near(o.payback_months, 12 * 40000 / 13415.2972, 1e-6);
	assert_near(o.return_at_end, 4 * 13415.2972 + 8000 - 40000, 1e-6);
	assert_near(o.roi_pct, 100 * 21661.1888 / 40000, 1e-6);
	/* at 1 % use renting avoided (438) is less than the running cost: it never pays back */
	cost_roi(&p, 0.01, &o);
	assert_true(isnan(o.payback_months));
	assert_true(o.return_at_end < -40000);
	/* the tornado: the cloud rate moves the payback most; 0.8 x 4.5 = 3.6 gives 3504 x 4 = 14016 a year */
	n = cost_roi_sensitivity(&p, 0.4, s, COST_NROI_SENS);
	assert_int_equal(n, COST_NROI_SENS);
	assert_string_equal(s[0].param, "cloud_hourly_rate");
	assert_near(s[0].u_low, 12 * 40000 / (14016 - 4104.7028), 1e-6);
	for (size_t i = 1; i < n; i++)
		assert_true(s[i - 1].swing >= s[i].swing - 1e-12);
}

/* sources.md, article 003's OCR service: 172,800 a year more to run, 1,240,000 gained: 1,067,200 net. */
static void test_roi_business(void **state)
{
	struct cost_params p;
	struct cost_roi o;

	(void)state;
	cost_params_init(&p);
	p.other_fixed_per_year = (28600 - 14200) * 12;
	p.business_gain_per_year = 1240000;
	cost_roi(&p, 0.5, &o);
	assert_near(o.return_per_year, 1067200, 1e-6);
	assert_near(o.payback_months, 0, 0);	/* nothing bought */
	assert_true(isnan(o.roi_pct));		/* and no price to divide by */
	p.hardware_price = 5000;		/* a T4 card: 5,000 / 1,067,200 x 12 months */
	cost_roi(&p, 0.5, &o);
	assert_near(o.payback_months, 12 * 5000 / 1067200.0, 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_longrun_worked_example),
		cmocka_unit_test(test_longrun_8_hours_a_day),
		cmocka_unit_test(test_longrun_statuses),
		cmocka_unit_test(test_local_per_useful_hour),
		cmocka_unit_test(test_billed_hours),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_job_breakeven),
		cmocka_unit_test(test_job_breakeven_brute),
		cmocka_unit_test(test_sensitivity),
		cmocka_unit_test(test_roi),
		cmocka_unit_test(test_roi_business),
		cmocka_unit_test(test_param_set),
		cmocka_unit_test(test_profile_string),
		cmocka_unit_test(test_presets),
	};
	return cmocka_run_group_tests_name("cost_model", tests, NULL, NULL);
}
