/* SPDX-License-Identifier: MIT */
/*
 * The owning-versus-renting cost model of docs/cost-model.md: parameters,
 * the long-run break-even utilization, the observed window, the job-length
 * break-even and the sensitivity table.  Pure arithmetic: nothing here
 * prints, allocates or exits, and every function is thread-safe.
 *
 * Unknown is never zero: a quantity that does not exist (u* when owning can
 * never pay, a premium against a zero cloud bill) is NAN, which the JSON
 * writer prints as null.
 */
#ifndef COST_MODEL_H
#define COST_MODEL_H

#include <stddef.h>

#include "util/err.h"

/* One row per parameter, in the order of docs/cost-model.md; the table in
 * model.c drives --set parsing, profile keys, defaults, ranges and docs. */
enum cost_param_id {
	COST_HARDWARE_PRICE,
	COST_GPU_SHARE,
	COST_LIFETIME_YEARS,
	COST_RESIDUAL_FRACTION,
	COST_HOURS_ON_PER_DAY,
	COST_ELECTRICITY_PRICE,
	COST_PUE,
	COST_COOLING_W,
	COST_IDLE_POWER_W,
	COST_BUSY_POWER_W,
	COST_MAINTENANCE_HOURS_PER_YEAR,
	COST_LABOR_RATE,
	COST_OTHER_FIXED_PER_YEAR,
	COST_CLOUD_HOURLY_RATE,
	COST_CLOUD_EFFICIENCY,
	COST_CLOUD_COLD_START_S,
	COST_CLOUD_BILLING_INCREMENT_S,
	COST_CLOUD_MIN_BILLED_S,
	COST_LOCAL_PER_JOB_FIXED,
	COST_BUSINESS_GAIN_PER_YEAR,
	COST_GRID_GCO2_PER_KWH,
	COST_NPARAMS
};

/* Where a parameter's value came from; the report prints it next to it. */
enum cost_origin {
	COST_DEFAULT,
	COST_PROFILE,
	COST_SET,	/* --set KEY=VALUE */
	COST_MEASURED,	/* idle/busy power measured from the logs */
	COST_ASSUMED,	/* report: from the built-in price table (docs/prices.md) */
	COST_CATALOG,	/* report: cloud_hourly_rate from --cloud-catalog (docs/prices.md) */
};

struct cost_params {
	double hardware_price, gpu_share, lifetime_years, residual_fraction, hours_on_per_day,
		electricity_price, pue, cooling_w, idle_power_w, busy_power_w,
		maintenance_hours_per_year, labor_rate, other_fixed_per_year, cloud_hourly_rate,
		cloud_efficiency, cloud_cold_start_s, cloud_billing_increment_s, cloud_min_billed_s,
		local_per_job_fixed, business_gain_per_year, grid_gco2_per_kwh;
	char currency[16];	/* display only; "" when the profile names none */
	char name[64];		/* profile name: its `name =` key, else the preset or file name */
	char description[192];
	unsigned origin[COST_NPARAMS];	/* enum cost_origin, indexed by enum cost_param_id */
};

/* Static description of one parameter. */
struct cost_param_info {
	const char *key;	/* the --set / profile key */
	size_t offset;		/* of the double inside struct cost_params */
	double def;		/* default value */
	double min, max;	/* allowed range */
	unsigned char min_open;	/* 1: min itself is excluded */
	const char *unit;	/* "currency", "W", "h", "s", "" ... */
	const char *help;	/* one line */
	unsigned char sensitivity;	/* 1: varied in the sensitivity table */
};

const struct cost_param_info *cost_param_info(size_t id);	/* NULL when id >= COST_NPARAMS */
/* The id of a key, or -1. */
int cost_param_find(const char *key);
double cost_param_get(const struct cost_params *p, size_t id);
const char *cost_origin_name(unsigned origin);	/* "default", "profile", "set", "measured" */

/* Defaults from the table, origin COST_DEFAULT, empty strings. */
void cost_params_init(struct cost_params *p);

/*
 * Set one parameter from text: a numeric key of the table, or one of the
 * strings `currency`, `name`, `description`.  Numbers use scan_double()
 * (locale-independent, no NaN/Inf) and must lie in the key's range.
 * Returns 0, or GL_EUSAGE with a message that names the key; *p is unchanged
 * on failure.
 */
int cost_param_set(struct cost_params *p, const char *key, const char *value, unsigned origin,
		   struct gl_err *err);
/* Parse "KEY=VALUE" (one --set argument) and apply it like cost_param_set(). */
int cost_param_set_kv(struct cost_params *p, const char *kv, unsigned origin, struct gl_err *err);
/* Set a numeric parameter directly (measured values); no range check beyond finiteness. */
void cost_param_put(struct cost_params *p, size_t id, double v, unsigned origin);

/* Statuses.  The values are distinct so that cost_status_name() names both kinds. */
enum cost_status {
	COST_OK = 0,			/* 0 <= u* <= 1 */
	COST_ABOVE_FULL_USE = 1,	/* u* > 1 */
	COST_NEVER = 2,			/* denominator <= 0: u* does not exist */
	COST_JOB_CROSS = 3,		/* owning is cheaper for every job longer than `hours` */
	COST_JOB_LOCAL_ALWAYS = 4,	/* owning is cheaper for every job length */
	COST_JOB_CLOUD_ALWAYS = 5,	/* renting is cheaper or equal for every job length */
	COST_JOB_LOCAL_SHORT = 6,	/* owning is cheaper for some jobs, none longer than `hours` */
};
/* "ok", "above_full_use", "never", "cross", "local_always", "cloud_always", "local_short_only". */
const char *cost_status_name(int status);

/* Long-run model: H, F, k, P_idle, P_busy, C_C and u*. */
struct cost_longrun {
	double H;		/* available hours per year: 365 * hours_on_per_day */
	double F;		/* fixed cost per year */
	double k;		/* cost of one watt-hour */
	double p_idle;		/* W */
	double p_busy;		/* W, busy_power_w + cooling_w */
	double c_cloud;		/* C_C, cloud cost per useful hour */
	double u_star;		/* NAN when status is COST_NEVER */
	int status;		/* COST_OK, COST_ABOVE_FULL_USE, COST_NEVER */
	double useful_hours_per_month;	/* u* H / 12 when COST_OK, else NAN */
};
void cost_longrun(const struct cost_params *p, struct cost_longrun *out);

/* C_L(u), local cost per useful hour at utilization u; +INFINITY for u <= 0, NAN for NAN. */
double cost_local_per_useful_hour(const struct cost_params *p, double u);

/*
 * Billed hours for `hours` of billed wall time: the seconds are rounded up to
 * a multiple of cloud_billing_increment_s, then raised to cloud_min_billed_s
 * (the order of docs/cost-model.md).  A relative slack of 1e-9 keeps 3600.0000000001
 * seconds from becoming a whole extra increment.  hours <= 0 bills the minimum.
 */
double cost_billed_hours(const struct cost_params *p, double hours);
/* cloud_job(T): cloud_hourly_rate * billed_hours(T / cloud_efficiency + cold start). */
double cost_cloud_job(const struct cost_params *p, double useful_hours);

/*
 * The observed window.  job_useful_h (borrowed) holds the useful GPU-hours of
 * each job; with njobs == 0 or job_useful_h NULL the window counts as one job
 * of busy_h useful hours.  A NAN energy_j makes local_energy and local_cost NAN.
 */
struct cost_window_in {
	double covered_h;	/* D: covered wall hours, gaps excluded */
	double busy_h;		/* B: busy GPU-hours */
	double energy_j;	/* E */
	const double *job_useful_h;
	size_t njobs;
};
struct cost_window {
	double local_cost;	/* the sum of the four parts below */
	double local_fixed;	/* F * D / H */
	double local_energy;	/* electricity_price * pue * E / 3.6e6 */
	double local_cooling;	/* k * cooling_w * B */
	double local_jobs;	/* n * local_per_job_fixed */
	double cloud_cost;	/* sum over jobs of cloud_job(useful hours) */
	double premium_pct;	/* 100 * (local / cloud - 1); NAN when cloud_cost is 0 */
	double u_obs;		/* B / D; NAN when D is 0 */
};
void cost_window(const struct cost_params *p, const struct cost_window_in *in,
		 struct cost_window *out);

/*
 * Job-length break-even at utilization u (normally u_obs): compares
 * local_job(T) = local_per_job_fixed + T * C_L(u) with cloud_job(T) for every
 * T > 0 useful hours, exactly (no sampling): cloud_job is constant on each
 * billing step and local_job rises linearly, so only the step ends matter.
 *  COST_JOB_CROSS: local < cloud for every T > hours, and not at T = hours.
 *  COST_JOB_LOCAL_ALWAYS: local < cloud for every T > 0; hours = 0.
 *  COST_JOB_CLOUD_ALWAYS: local >= cloud for every T > 0; hours = NAN.
 *  COST_JOB_LOCAL_SHORT: local < cloud for some T but for none above `hours`
 *  (the long-run local rate is not below C_C); hours is INFINITY in the tie
 *  where both long-run rates are equal and the steps alternate forever.
 * A NAN or non-positive u makes a local hour infinitely dear: COST_JOB_CLOUD_ALWAYS.
 */
struct cost_job_be {
	int status;
	double hours;
};
void cost_job_breakeven(const struct cost_params *p, double u_obs, struct cost_job_be *out);

/*
 * Sensitivity: u* with one parameter at 0.8x and 1.2x (fractions clamped to
 * their range, other parameters not), for the parameters marked in the table.  Sorted by
 * swing = |u_high - u_low|, largest first; a NAN swing (one side or both has
 * no u*) sorts before every number, because a change that makes owning
 * impossible is the largest swing there is.  Ties keep table order.  Fills at
 * most cap entries and returns how many there are in all.
 */
struct cost_sens {
	const char *param;	/* static key */
	double low_value, high_value, u_low, u_high, swing;
};
#define COST_NSENS 11
size_t cost_sensitivity(const struct cost_params *p, struct cost_sens *out, size_t cap);

/*
 * Return on investment in three layers at utilization u (docs/cost.md,
 * "Return on investment"):
 *  capital:    capex = hardware_price x gpu_share; the running cost a year,
 *              opex = maintenance x labor + other fixed + k H (u P_busy + (1-u) P_idle);
 *              TCO over the lifetime = capex (1 - residual) + lifetime x opex;
 *  efficiency: u H useful hours a year, C_L(u) per useful hour, and what renting
 *              them would cost, u H C_C;
 *  business:   business_gain_per_year (0 unless set).
 * The yearly return of owning is renting avoided + business gain - opex; the
 * payback is capex over it (NAN when it is not positive: it never pays back),
 * the return at the end of the lifetime lifetime x yearly return + residual
 * value - capex, and the ROI that over capex (NAN without a price).
 */
struct cost_roi {
	double u;
	double capex, opex_per_year, energy_per_year, tco_lifetime;
	double useful_hours_per_year, cost_per_useful_hour, cloud_cost_per_year;
	double business_gain_per_year;
	double return_per_year, payback_months, return_at_end, roi_pct;
};
void cost_roi(const struct cost_params *p, double u, struct cost_roi *out);

/*
 * The tornado of the payback: payback months with one parameter at 0.8x and
 * 1.2x (the parameters of cost_sensitivity() and business_gain_per_year), in
 * struct cost_sens with u_low / u_high holding the months (NAN: never pays
 * back), largest swing first.
 */
#define COST_NROI_SENS 12
size_t cost_roi_sensitivity(const struct cost_params *p, double u, struct cost_sens *out, size_t cap);

#endif
