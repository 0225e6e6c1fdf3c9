/* SPDX-License-Identifier: MIT */
/* The cost model's parameter table and formulas (docs/cost-model.md). */
#include "cost/model.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "util/scan.h"

#define P(field) offsetof(struct cost_params, field)

/* Indexed by enum cost_param_id; the order is the order of the spec's table. */
static const struct cost_param_info params[COST_NPARAMS] = {
	{ "hardware_price", P(hardware_price), 0, 0, HUGE_VAL, 0, "currency",
	  "purchase price of the machine or card", 1 },
	{ "gpu_share", P(gpu_share), 1, 0, 1, 0, "fraction",
	  "fraction of that price charged to GPU work", 0 },
	{ "lifetime_years", P(lifetime_years), 3, 0, HUGE_VAL, 1, "years",
	  "depreciation period", 1 },
	{ "residual_fraction", P(residual_fraction), 0, 0, 1, 0, "fraction",
	  "resale value at the end, as a fraction of the price", 0 },
	{ "hours_on_per_day", P(hours_on_per_day), 24, 0, 24, 1, "h",
	  "hours a day the machine is powered and available", 1 },
	{ "electricity_price", P(electricity_price), 0, 0, HUGE_VAL, 0, "currency/kWh",
	  "price of 1 kWh", 1 },
	{ "pue", P(pue), 1, 1, HUGE_VAL, 0, "factor",
	  "facility overhead multiplier on all electricity (1 = none)", 1 },
	{ "cooling_w", P(cooling_w), 0, 0, HUGE_VAL, 0, "W",
	  "extra watts drawn while the GPU is busy (fans, pumps)", 0 },
	{ "idle_power_w", P(idle_power_w), 0, 0, HUGE_VAL, 0, "W",
	  "GPU power while idle; measured from the logs when they show idle time", 1 },
	{ "busy_power_w", P(busy_power_w), 0, 0, HUGE_VAL, 0, "W",
	  "GPU power while busy; measured from the logs when they show busy time", 1 },
	{ "maintenance_hours_per_year", P(maintenance_hours_per_year), 0, 0, HUGE_VAL, 0, "h/year",
	  "people-hours a year spent keeping it working", 1 },
	{ "labor_rate", P(labor_rate), 0, 0, HUGE_VAL, 0, "currency/h",
	  "cost of one people-hour", 1 },
	{ "other_fixed_per_year", P(other_fixed_per_year), 0, 0, HUGE_VAL, 0, "currency/year",
	  "space, insurance, support contracts", 0 },
	{ "cloud_hourly_rate", P(cloud_hourly_rate), 0, 0, HUGE_VAL, 0, "currency/h",
	  "on-demand price of the comparable cloud GPU per billed hour", 1 },
	{ "cloud_efficiency", P(cloud_efficiency), 1, 0, 1, 1, "fraction",
	  "fraction of billed cloud time that is useful GPU work", 1 },
	{ "cloud_cold_start_s", P(cloud_cold_start_s), 0, 0, HUGE_VAL, 0, "s",
	  "billed seconds per job before useful work starts", 0 },
	{ "cloud_billing_increment_s", P(cloud_billing_increment_s), 1, 0, HUGE_VAL, 1, "s",
	  "billing granularity", 0 },
	{ "cloud_min_billed_s", P(cloud_min_billed_s), 0, 0, HUGE_VAL, 0, "s",
	  "minimum billed time per job", 0 },
	{ "local_per_job_fixed", P(local_per_job_fixed), 0, 0, HUGE_VAL, 0, "currency",
	  "local cost per job independent of its length", 0 },
	{ "business_gain_per_year", P(business_gain_per_year), 0, 0, HUGE_VAL, 0, "currency/year",
	  "yearly gain or saving the work brings (the business layer of the ROI; no effect on u*)", 0 },
	{ "grid_gco2_per_kwh", P(grid_gco2_per_kwh), 0, 0, HUGE_VAL, 0, "gCO2e/kWh",
	  "carbon intensity of the electricity (0: unknown); energy x pue x this = CO2e, no effect on cost", 0 },
};

#undef P

const struct cost_param_info *cost_param_info(size_t id)
{
	return id < COST_NPARAMS ? &params[id] : NULL;
}

int cost_param_find(const char *key)
{
	for (size_t i = 0; i < COST_NPARAMS; i++)
		if (!strcmp(params[i].key, key))
			return (int)i;
	return -1;
}

static double *param_ptr(struct cost_params *p, size_t id)
{
	return (double *)(void *)((char *)p + params[id].offset);
}

double cost_param_get(const struct cost_params *p, size_t id)
{
	if (id >= COST_NPARAMS)
		return NAN;
	return *(const double *)(const void *)((const char *)p + params[id].offset);
}

const char *cost_origin_name(unsigned origin)
{
	switch (origin) {
	case COST_DEFAULT: return "default";
	case COST_PROFILE: return "profile";
	case COST_SET: return "set";
	case COST_MEASURED: return "measured";
	case COST_ASSUMED: return "assumed";
	case COST_CATALOG: return "catalog";
	}
	return "unknown";
}

void cost_params_init(struct cost_params *p)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < COST_NPARAMS; i++) {
		*param_ptr(p, i) = params[i].def;
		p->origin[i] = COST_DEFAULT;
	}
}

static int in_range(const struct cost_param_info *d, double v)
{
	if (v < d->min || (d->min_open && v == d->min))
		return 0;
	return v <= d->max;
}

static int range_error(struct gl_err *err, const struct cost_param_info *d, const char *text)
{
	if (isfinite(d->max))
		return gl_err_set(err, GL_EUSAGE, "%s must be %s %g %s %g, got %s", d->key,
				  d->min_open ? "greater than" : "between", d->min,
				  d->min_open ? "and at most" : "and", d->max, text);
	return gl_err_set(err, GL_EUSAGE, "%s must be %s %g, got %s", d->key,
			  d->min_open ? "greater than" : "at least", d->min, text);
}

static int set_string(char *dst, size_t cap, const char *key, const char *value,
		      struct gl_err *err)
{
	size_t n = strlen(value);

	if (n >= cap)
		return gl_err_set(err, GL_EUSAGE, "%s is too long (at most %zu bytes)", key, cap - 1);
	memcpy(dst, value, n + 1);
	return 0;
}

int cost_param_set(struct cost_params *p, const char *key, const char *value, unsigned origin,
		   struct gl_err *err)
{
	const struct cost_param_info *d;
	struct slice s;
	double v;
	int id;

	if (!strcmp(key, "currency"))
		return set_string(p->currency, sizeof(p->currency), key, value, err);
	if (!strcmp(key, "name"))
		return set_string(p->name, sizeof(p->name), key, value, err);
	if (!strcmp(key, "description"))
		return set_string(p->description, sizeof(p->description), key, value, err);
	id = cost_param_find(key);
	if (id < 0)
		return gl_err_set(err, GL_EUSAGE, "unknown cost parameter '%s'", key);
	d = &params[id];
	s = slice_trim((struct slice){ value, strlen(value) });
	if (!s.n || slice_to_double(s, &v))
		return gl_err_set(err, GL_EUSAGE, "bad value '%s' for %s: expected a number",
				  value, key);
	/* The table's ranges keep every formula finite: no H = 0, no C_C = x / 0. */
	if (!in_range(d, v))
		return range_error(err, d, value);
	*param_ptr(p, (size_t)id) = v;
	p->origin[id] = origin;
	return 0;
}

int cost_param_set_kv(struct cost_params *p, const char *kv, unsigned origin, struct gl_err *err)
{
	const char *eq = strchr(kv, '=');
	struct slice k;
	char key[64];

	if (!eq)
		return gl_err_set(err, GL_EUSAGE, "expected KEY=VALUE, got '%s'", kv);
	k = slice_trim((struct slice){ kv, (size_t)(eq - kv) });
	if (!k.n)
		return gl_err_set(err, GL_EUSAGE, "expected KEY=VALUE, got '%s'", kv);
	if (k.n >= sizeof(key))
		return gl_err_set(err, GL_EUSAGE, "unknown cost parameter '%.*s'", (int)k.n, k.p);
	slice_copy(key, sizeof(key), k);
	return cost_param_set(p, key, eq + 1, origin, err);
}

void cost_param_put(struct cost_params *p, size_t id, double v, unsigned origin)
{
	if (id >= COST_NPARAMS || !isfinite(v))
		return;
	*param_ptr(p, id) = v;
	p->origin[id] = origin;
}

const char *cost_status_name(int status)
{
	switch (status) {
	case COST_OK: return "ok";
	case COST_ABOVE_FULL_USE: return "above_full_use";
	case COST_NEVER: return "never";
	case COST_JOB_CROSS: return "cross";
	case COST_JOB_LOCAL_ALWAYS: return "local_always";
	case COST_JOB_CLOUD_ALWAYS: return "cloud_always";
	case COST_JOB_LOCAL_SHORT: return "local_short_only";
	}
	return "unknown";
}

/* ---- the long run ------------------------------------------------------ */

static double fixed_per_year(const struct cost_params *p)
{
	return p->hardware_price * p->gpu_share * (1 - p->residual_fraction) / p->lifetime_years +
	       p->maintenance_hours_per_year * p->labor_rate + p->other_fixed_per_year;
}

void cost_longrun(const struct cost_params *p, struct cost_longrun *out)
{
	double num, den;

	out->H = 365 * p->hours_on_per_day;
	out->F = fixed_per_year(p);
	out->k = p->electricity_price * p->pue / 1000;
	out->p_idle = p->idle_power_w;
	out->p_busy = p->busy_power_w + p->cooling_w;
	out->c_cloud = p->cloud_hourly_rate / p->cloud_efficiency;

	num = out->F + out->k * out->H * out->p_idle;
	den = out->H * (out->c_cloud - out->k * (out->p_busy - out->p_idle));
	out->useful_hours_per_month = NAN;
	if (!(den > 0)) {
		out->u_star = NAN;
		out->status = COST_NEVER;
		return;
	}
	out->u_star = num / den;
	if (out->u_star > 1) {
		out->status = COST_ABOVE_FULL_USE;
		return;
	}
	out->status = COST_OK;
	out->useful_hours_per_month = out->u_star * out->H / 12;
}

double cost_local_per_useful_hour(const struct cost_params *p, double u)
{
	struct cost_longrun lr;

	if (isnan(u))
		return NAN;
	if (u <= 0)
		return INFINITY;
	cost_longrun(p, &lr);
	return (lr.F + lr.k * lr.H * (u * lr.p_busy + (1 - u) * lr.p_idle)) / (u * lr.H);
}

/* ---- billing ----------------------------------------------------------- */

/* x rounded to the nearest integer when it is within 1e-9 (relative) of it. */
static double snap(double x)
{
	double r = nearbyint(x);
	return fabs(x - r) <= 1e-9 * fmax(1, fabs(x)) ? r : x;
}

static double billed_seconds(const struct cost_params *p, double s)
{
	double inc = p->cloud_billing_increment_s;
	double b = s > 0 ? ceil(snap(s / inc)) * inc : 0;

	return fmax(b, p->cloud_min_billed_s);
}

double cost_billed_hours(const struct cost_params *p, double hours)
{
	return billed_seconds(p, hours * 3600) / 3600;
}

double cost_cloud_job(const struct cost_params *p, double useful_hours)
{
	double wall_h = useful_hours / p->cloud_efficiency + p->cloud_cold_start_s / 3600;
	return p->cloud_hourly_rate * cost_billed_hours(p, wall_h);
}

/* ---- the observed window ----------------------------------------------- */

void cost_window(const struct cost_params *p, const struct cost_window_in *in,
		 struct cost_window *out)
{
	struct cost_longrun lr;
	size_t n = in->njobs && in->job_useful_h ? in->njobs : 1;

	cost_longrun(p, &lr);
	out->local_fixed = lr.F * in->covered_h / lr.H;
	out->local_energy = p->electricity_price * p->pue * (in->energy_j / 3.6e6);
	out->local_cooling = lr.k * p->cooling_w * in->busy_h;
	out->local_jobs = (double)n * p->local_per_job_fixed;
	out->local_cost = out->local_fixed + out->local_energy + out->local_cooling + out->local_jobs;

	out->cloud_cost = 0;
	if (in->njobs && in->job_useful_h)
		for (size_t i = 0; i < in->njobs; i++)
			out->cloud_cost += cost_cloud_job(p, in->job_useful_h[i]);
	else
		out->cloud_cost = cost_cloud_job(p, in->busy_h);

	out->premium_pct = out->cloud_cost > 0 ? 100 * (out->local_cost / out->cloud_cost - 1) : NAN;
	out->u_obs = in->covered_h > 0 ? in->busy_h / in->covered_h : NAN;
}

/* ---- job-length break-even --------------------------------------------- */

/*
 * For T > 0 the billed wall time is s(T) = 3600 T / e + c seconds.  Billing
 * splits T into intervals on which the bill is constant:
 *  - region A, while round_up(s) <= min billed (only when the minimum covers
 *    more than the cold start): bill m, T in (0, T_A];
 *  - step j (j >= j1): bill j * inc, T in (L_j, R_j], R_j = (j inc - c) e / 3600.
 * On each interval D(T) = local - cloud rises linearly (slope C_L >= 0), so its
 * largest value sits at the right end R_j and its smallest just after the
 * left end.  Across steps both ends move by sigma = inc (a e - r) / 3600 per
 * step, which lets us find the last interesting step in closed form.
 */
struct job_ctx {
	double a, f, r, e, c, inc, m;
};

static double step_right(const struct job_ctx *x, double j)
{
	return (j * x->inc - x->c) * x->e / 3600;
}

static double step_left(const struct job_ctx *x, double j)
{
	return fmax(0, step_right(x, j - 1));
}

/* local - cloud at T with a bill of b seconds. */
static double diff(const struct job_ctx *x, double T, double b)
{
	return x->f + x->a * T - x->r * b / 3600;
}

static double g_right(const struct job_ctx *x, double j)
{
	return diff(x, step_right(x, j), j * x->inc);
}

static double h_left(const struct job_ctx *x, double j)
{
	return diff(x, step_left(x, j), j * x->inc);
}

/* Where local - cloud crosses 0 inside an interval billed b seconds, clamped to (lo, hi]. */
static double zero_in(const struct job_ctx *x, double b, double lo, double hi)
{
	double t = (x->r * b / 3600 - x->f) / x->a;
	return fmin(fmax(t, lo), hi);
}

void cost_job_breakeven(const struct cost_params *p, double u_obs, struct cost_job_be *out)
{
	struct job_ctx x = {
		.a = cost_local_per_useful_hour(p, isnan(u_obs) ? 0 : u_obs),
		.f = p->local_per_job_fixed,
		.r = p->cloud_hourly_rate,
		.e = p->cloud_efficiency,
		.c = p->cloud_cold_start_s,
		.inc = p->cloud_billing_increment_s,
		.m = p->cloud_min_billed_s,
	};
	double jm, jc, j1, sigma, t_a = 0;
	int has_a;

	out->hours = NAN;
	if (!isfinite(x.a)) {
		out->status = COST_JOB_CLOUD_ALWAYS;
		return;
	}
	jm = floor(snap(x.m / x.inc));
	jc = floor(snap(x.c / x.inc));
	has_a = jm > jc;
	if (has_a)
		t_a = (jm * x.inc - x.c) * x.e / 3600;
	j1 = fmax(jm, jc) + 1;
	sigma = x.inc * (x.a * x.e - x.r) / 3600;

	if (sigma < 0) {
		/* Local wins in the long run: find the last step whose right end it loses. */
		double g1 = g_right(&x, j1), J;

		if (g1 >= 0) {
			J = j1 + floor(g1 / -sigma);
			/* Rounding can put the closed form one step off either way. */
			for (int i = 0; i < 2 && J > j1 && g_right(&x, J) < 0; i++)
				J -= 1;
			for (int i = 0; i < 2 && g_right(&x, J + 1) >= 0; i++)
				J += 1;
			out->status = COST_JOB_CROSS;
			out->hours = step_right(&x, J);
		} else if (has_a && diff(&x, t_a, x.m) >= 0) {
			out->status = COST_JOB_CROSS;
			out->hours = t_a;
		} else {
			out->status = COST_JOB_LOCAL_ALWAYS;
			out->hours = 0;
		}
		return;
	}

	/* The cloud wins in the long run: find the last interval where local is ever cheaper. */
	out->status = COST_JOB_LOCAL_SHORT;
	if (h_left(&x, j1 + 1) < 0) {
		double h2 = h_left(&x, j1 + 1), J;

		if (sigma == 0) {
			out->hours = INFINITY;
			return;
		}
		J = j1 + 1 + ceil(-h2 / sigma) - 1;
		for (int i = 0; i < 2 && J > j1 + 1 && h_left(&x, J) >= 0; i++)
			J -= 1;
		for (int i = 0; i < 2 && h_left(&x, J + 1) < 0; i++)
			J += 1;
		out->hours = g_right(&x, J) < 0 ? step_right(&x, J) :
			     zero_in(&x, J * x.inc, step_left(&x, J), step_right(&x, J));
	} else if (h_left(&x, j1) < 0) {
		out->hours = g_right(&x, j1) < 0 ? step_right(&x, j1) :
			     zero_in(&x, j1 * x.inc, step_left(&x, j1), step_right(&x, j1));
	} else if (has_a && diff(&x, 0, x.m) < 0) {
		out->hours = diff(&x, t_a, x.m) < 0 ? t_a : zero_in(&x, x.m, 0, t_a);
	} else {
		out->status = COST_JOB_CLOUD_ALWAYS;
	}
}

/* ---- sensitivity ------------------------------------------------------- */

/*
 * The spec clamps the fractions (cloud_efficiency is the only one varied)
 * and nothing else, so 1.2 x 24 hours a day stays 28.8 and 0.8 x a PUE of 1
 * stays 0.8: the table's other ranges bound --set, not this what-if.
 */
/*
 * cost-model.md asks to clamp fractions to their ranges.  We clamp every
 * parameter to the range --set accepts: 1.2 x 24 hours a day or 0.8 x a PUE
 * of 1 are not states the world can be in, and ranking them would mislead.
 */
static double clamp_range(const struct cost_param_info *d, double v)
{
	if (v > d->max)
		return d->max;
	if (v < d->min)
		return d->min;
	return v;
}

static double u_star_with(const struct cost_params *p, size_t id, double v)
{
	struct cost_params q = *p;
	struct cost_longrun lr;

	*param_ptr(&q, id) = v;
	cost_longrun(&q, &lr);
	return lr.u_star;
}

/*
 * NAN (a side without u*) ranks above every finite swing.  Swings equal to
 * 1e-12 relative are ties: labor_rate and maintenance_hours_per_year enter u*
 * only through their product, and rounding noise must not order them.
 */
static int ranks_before(const struct cost_sens *a, const struct cost_sens *b)
{
	if (isnan(a->swing))
		return !isnan(b->swing);
	if (isnan(b->swing))
		return 0;
	return a->swing - b->swing > 1e-12 * fmax(a->swing, b->swing);
}

/*
 * One tornado: each parameter in the table that has a sensitivity (and the
 * business gain when asked) moved to 0.8x and 1.2x, the figure metric()
 * gives at each side, ranked by swing.  both_nan_zero: a parameter with no
 * figure on either side swings 0 (payback that never comes), rather than
 * ranking first as an unknown u* does.
 */
static size_t tornado(const struct cost_params *p,
		      double (*metric)(const struct cost_params *, size_t, double, double),
		      double u, bool with_business, bool both_nan_zero, struct cost_sens *out, size_t cap)
{
	struct cost_sens all[COST_NPARAMS];
	size_t n = 0;

	for (size_t i = 0; i < COST_NPARAMS; i++) {
		const struct cost_param_info *d = &params[i];
		double v = cost_param_get(p, i);
		struct cost_sens s;

		if (!d->sensitivity && !(with_business && i == COST_BUSINESS_GAIN_PER_YEAR))
			continue;
		s.param = d->key;
		s.low_value = clamp_range(d, 0.8 * v);
		s.high_value = clamp_range(d, 1.2 * v);
		s.u_low = metric(p, i, s.low_value, u);
		s.u_high = metric(p, i, s.high_value, u);
		s.swing = both_nan_zero && isnan(s.u_low) && isnan(s.u_high) ? 0 : fabs(s.u_high - s.u_low);
		/* Insertion sort: a dozen rows, and it is stable, so ties keep table order. */
		size_t j = n++;
		while (j > 0 && ranks_before(&s, &all[j - 1])) {
			all[j] = all[j - 1];
			j--;
		}
		all[j] = s;
	}
	for (size_t i = 0; i < n && i < cap; i++)
		out[i] = all[i];
	return n;
}

static double u_star_metric(const struct cost_params *p, size_t id, double v, double u)
{
	(void)u;
	return u_star_with(p, id, v);
}

size_t cost_sensitivity(const struct cost_params *p, struct cost_sens *out, size_t cap)
{
	return tornado(p, u_star_metric, 0, false, false, out, cap);
}

/* ---- return on investment ---------------------------------------------- */

void cost_roi(const struct cost_params *p, double u, struct cost_roi *o)
{
	struct cost_longrun lr;

	cost_longrun(p, &lr);
	o->u = u;
	o->capex = p->hardware_price * p->gpu_share;
	o->energy_per_year = lr.k * lr.H * (u * lr.p_busy + (1 - u) * lr.p_idle);
	o->opex_per_year = p->maintenance_hours_per_year * p->labor_rate + p->other_fixed_per_year +
			   o->energy_per_year;
	o->tco_lifetime = o->capex * (1 - p->residual_fraction) + p->lifetime_years * o->opex_per_year;
	o->useful_hours_per_year = u * lr.H;
	o->cost_per_useful_hour = cost_local_per_useful_hour(p, u);
	o->cloud_cost_per_year = o->useful_hours_per_year * lr.c_cloud;
	o->business_gain_per_year = p->business_gain_per_year;
	o->return_per_year = o->cloud_cost_per_year + o->business_gain_per_year - o->opex_per_year;
	o->payback_months = o->return_per_year > 0 ? 12 * o->capex / o->return_per_year : NAN;
	o->return_at_end = p->lifetime_years * o->return_per_year + o->capex * p->residual_fraction - o->capex;
	o->roi_pct = o->capex > 0 ? 100 * o->return_at_end / o->capex : NAN;
}

static double payback_with(const struct cost_params *p, size_t id, double v, double u)
{
	struct cost_params q = *p;
	struct cost_roi r;

	*param_ptr(&q, id) = v;
	cost_roi(&q, u, &r);
	return r.payback_months;
}

size_t cost_roi_sensitivity(const struct cost_params *p, double u, struct cost_sens *out, size_t cap)
{
	return tornado(p, payback_with, u, true, true, out, cap);
}
