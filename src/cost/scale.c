/* SPDX-License-Identifier: MIT */
/*
 * Scaling economics: see scale.h and docs/scale.md for every formula.
 */
#include "cost/scale.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/scan.h"

/* ---- the run table ------------------------------------------------------ */

enum { COL_GPUS, COL_HOURS, COL_THROUGHPUT, COL_ITERATIONS, COL_COST, COL__N, COL_OTHER = -1 };
static const char *const col_name[COL__N] = { "gpus", "hours", "throughput", "iterations", "cost" };

static int cmp_runs(const void *a, const void *b)
{
	const struct scale_run *x = a, *y = b;
	return (x->gpus > y->gpus) - (x->gpus < y->gpus);
}

static int cell_err(struct gl_err *err, const char *name, unsigned long line, size_t col, const char *fmt,
		    const char *what)
{
	gl_err_set(err, GL_EPARSE, fmt, what);
	err->src = name;
	err->line = line;
	err->col = (uint32_t)col;
	return -1;
}

int scale_read(FILE *in, const char *name, struct scale_run *runs, size_t cap, struct gl_err *err)
{
	char buf[1024], cell[64];
	int map[16], ncols = 0;
	unsigned long line = 0;
	size_t n = 0;
	bool have_header = false;

	while (fgets(buf, sizeof(buf), in)) {
		size_t len = strlen(buf);
		struct slice f[16];
		size_t nf;

		line++;
		if (len == sizeof(buf) - 1 && buf[len - 1] != '\n')
			return cell_err(err, name, line, 1, "line longer than %s bytes", "1022");
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = 0;
		{
			struct slice t = slice_trim((struct slice){ buf, len });
			if (!t.n || t.p[0] == '#')
				continue;
		}
		bool over = false;
		nf = scan_split(buf, len, ',', f, 16, &over);
		if (over)
			return cell_err(err, name, line, 1, "more than %s cells", "16");
		if (!have_header) {
			unsigned seen = 0;
			for (size_t i = 0; i < nf; i++) {
				struct slice t = slice_trim(f[i]);
				map[i] = COL_OTHER;
				for (int c = 0; c < COL__N; c++)
					if (slice_eq_nocase(t, col_name[c])) {
						if (seen & (1u << c))
							return cell_err(err, name, line, (size_t)(t.p - buf) + 1,
									"column '%s' twice", col_name[c]);
						seen |= 1u << c;
						map[i] = c;
					}
				if (map[i] == COL_OTHER)
					return cell_err(err, name, line, (size_t)(t.p - buf) + 1,
							"unknown column '%s' (the columns are gpus, hours, throughput, "
							"iterations, cost)", slice_copy(cell, sizeof(cell), t));
			}
			if (!(seen & 1u << COL_GPUS) || !(seen & (1u << COL_HOURS | 1u << COL_THROUGHPUT)))
				return cell_err(err, name, line, 1, "%s",
						"the header needs a 'gpus' column and an 'hours' or 'throughput' column");
			ncols = (int)nf;
			have_header = true;
			continue;
		}
		if ((int)nf != ncols) {
			snprintf(cell, sizeof(cell), "%d", ncols);
			return cell_err(err, name, line, 1, "expected %s cells like the header", cell);
		}
		if (n >= cap) {
			snprintf(cell, sizeof(cell), "%zu", cap);
			return cell_err(err, name, line, 1, "more than %s runs", cell);
		}
		struct scale_run *r = &runs[n];
		r->hours = r->throughput = r->iterations = r->cost = NAN;
		r->have = 0;
		r->gpus = 0;
		r->line = line;
		for (int i = 0; i < ncols; i++) {
			struct slice t = slice_trim(f[i]);
			size_t col = (size_t)(t.p - buf) + 1;
			double v;
			if (!t.n) {
				if (map[i] == COL_GPUS)
					return cell_err(err, name, line, col, "%s", "empty 'gpus' cell");
				continue;
			}
			if (slice_to_double(t, &v) || !isfinite(v))
				return cell_err(err, name, line, col, "'%s' is not a number",
						slice_copy(cell, sizeof(cell), t));
			if (v <= 0 && map[i] != COL_COST)
				return cell_err(err, name, line, col, "%s must be above 0", col_name[map[i]]);
			if (v < 0)
				return cell_err(err, name, line, col, "%s", "cost must not be negative");
			switch (map[i]) {
			case COL_GPUS:
				if (v != floor(v) || v > 1e6)
					return cell_err(err, name, line, col, "'%s' is not a whole GPU count",
							slice_copy(cell, sizeof(cell), t));
				r->gpus = (int)v;
				break;
			case COL_HOURS: r->hours = v; r->have |= SC_HOURS; break;
			case COL_THROUGHPUT: r->throughput = v; r->have |= SC_THROUGHPUT; break;
			case COL_ITERATIONS: r->iterations = v; r->have |= SC_ITERATIONS; break;
			case COL_COST: r->cost = v; r->have |= SC_COST; break;
			}
		}
		if (!(r->have & (SC_HOURS | SC_THROUGHPUT)))
			return cell_err(err, name, line, 1, "%s", "the run has neither hours nor throughput");
		n++;
	}
	if (ferror(in))
		return gl_err_errno(err, "cannot read %s", name), -1;
	if (!have_header)
		return cell_err(err, name, line, 1, "%s", "no header line: the table is empty");
	if (!n)
		return cell_err(err, name, line, 1, "%s", "no runs under the header");
	qsort(runs, n, sizeof(*runs), cmp_runs);
	for (size_t i = 1; i < n; i++)
		if (runs[i].gpus == runs[i - 1].gpus) {
			snprintf(cell, sizeof(cell), "%d", runs[i].gpus);
			return cell_err(err, name, runs[i].line > runs[i - 1].line ? runs[i].line : runs[i - 1].line, 1,
					"a second run with %s GPUs (one run per count)", cell);
		}
	return (int)n;
}

/* ---- Amdahl ------------------------------------------------------------- */

static double amdahl(double f, double n0, double n)
{
	return (f + (1 - f) / n0) / (f + (1 - f) / n);
}

static double amdahl_sse(const struct scale_result *r, double f)
{
	double s = 0, n0 = r->rows[0].gpus;
	for (size_t i = 1; i < r->nrows; i++) {
		double d = r->rows[i].speedup - amdahl(f, n0, r->rows[i].gpus);
		s += d * d;
	}
	return s;
}

/* The F in [0, 1] of least squared speedup error: a fine grid, then golden section. */
static double fit_amdahl(const struct scale_result *r)
{
	double best = 0, best_e = INFINITY;
	const double g = (sqrt(5) - 1) / 2;

	for (int i = 0; i <= 2000; i++) {
		double f = i / 2000.0, e = amdahl_sse(r, f);
		if (e < best_e) {
			best_e = e;
			best = f;
		}
	}
	double a = fmax(0, best - 1 / 2000.0), b = fmin(1, best + 1 / 2000.0);
	double c = b - g * (b - a), d = a + g * (b - a);
	for (int it = 0; it < 100; it++) {
		if (amdahl_sse(r, c) < amdahl_sse(r, d))
			b = d;
		else
			a = c;
		c = b - g * (b - a);
		d = a + g * (b - a);
	}
	return (a + b) / 2;
}

/* ---- USL ---------------------------------------------------------------- */

static double usl_shape(double n, double sigma, double kappa)
{
	return n / (1 + sigma * (n - 1) + kappa * n * (n - 1));
}

/* Relative squared error for (sigma, kappa), with lambda in closed form for that error. */
static double usl_err(const struct scale_result *r, double sigma, double kappa, double *lambda)
{
	/* minimise sum ((lambda g_i - X_i) / X_i)^2: lambda = sum(g/X) / sum((g/X)^2) */
	double a = 0, b = 0, e = 0;
	for (size_t i = 0; i < r->nrows; i++) {
		double q = usl_shape(r->rows[i].gpus, sigma, kappa) / r->rows[i].throughput;
		a += q;
		b += q * q;
	}
	*lambda = a / b;
	for (size_t i = 0; i < r->nrows; i++) {
		double d = *lambda * usl_shape(r->rows[i].gpus, sigma, kappa) / r->rows[i].throughput - 1;
		e += d * d;
	}
	return e;
}

static void fit_usl(struct scale_result *r)
{
	double bs = 0, bk = 0, be = INFINITY, lam;

	/* sigma on [0, 1] linearly, kappa on {0} and [1e-7, 1] logarithmically */
	for (int i = 0; i <= 200; i++)
		for (int j = 0; j <= 140; j++) {
			double s = i / 200.0, k = j ? pow(10, -7 + (j - 1) * 7.0 / 139) : 0;
			double e = usl_err(r, s, k, &lam);
			if (e < be) {
				be = e;
				bs = s;
				bk = k;
			}
		}
	/* then a shrinking pattern search, both kept in range */
	double ds = 0.005, dk = bk > 0 ? bk * 0.2 : 1e-7;
	for (int it = 0; it < 400 && (ds > 1e-10 || dk > 1e-14); it++) {
		bool moved = false;
		const double cand[4][2] = { { bs + ds, bk }, { bs - ds, bk }, { bs, bk + dk }, { bs, bk - dk } };
		for (int c = 0; c < 4; c++) {
			double s = cand[c][0], k = cand[c][1], e;
			if (s < 0 || s > 1 || k < 0)
				continue;
			e = usl_err(r, s, k, &lam);
			if (e < be) {
				be = e;
				bs = s;
				bk = k;
				moved = true;
			}
		}
		if (!moved) {
			ds /= 2;
			dk /= 2;
		}
	}
	usl_err(r, bs, bk, &r->usl_lambda);
	r->usl_sigma = bs;
	r->usl_kappa = bk;
	r->usl_rms_pct = 100 * sqrt(be / (double)r->nrows);
	r->usl_peak_gpus = bk > 0 ? sqrt((1 - bs) / bk) : NAN;
	r->have_usl = true;
}

/* ---- money -------------------------------------------------------------- */

static void __attribute__((format(printf, 2, 3))) warn(struct scale_result *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nwarnings >= sizeof(r->warnings) / sizeof(r->warnings[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(r->warnings[r->nwarnings++], sizeof(r->warnings[0]), fmt, ap);
	va_end(ap);
}

static void price(struct scale_result *r, const struct cost_params *p)
{
	struct cost_longrun lr;

	cost_longrun(p, &lr);
	r->priced = p->cloud_hourly_rate > 0 || lr.F > 0 || lr.k > 0;
	r->owned_per_gpu_hour = r->priced ? lr.F / lr.H + lr.k * lr.p_busy : NAN;
	for (size_t i = 0; i < r->nrows; i++) {
		struct scale_row *w = &r->rows[i];
		w->owned_cost = w->rented_cost = w->owned_per_1k = w->rented_per_1k = NAN;
		if (!r->priced || !isfinite(w->hours))
			continue;
		w->owned_cost = p->local_per_job_fixed + w->gpus * w->hours * r->owned_per_gpu_hour;
		w->rented_cost = p->cloud_hourly_rate > 0 ? w->gpus * cost_cloud_job(p, w->hours) : NAN;
		if (isfinite(w->iterations) && w->iterations > 0) {
			w->owned_per_1k = w->owned_cost / w->iterations * 1000;
			w->rented_per_1k = w->rented_cost / w->iterations * 1000;
		}
	}
}

static void deadline(struct scale_result *r)
{
	double bo = INFINITY, br = INFINITY;

	r->deadline_owned_gpus = r->deadline_rented_gpus = r->deadline_fewest_gpus = 0;
	if (isnan(r->deadline_h))
		return;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct scale_row *w = &r->rows[i];
		if (!(w->hours <= r->deadline_h))
			continue;
		if (!r->deadline_fewest_gpus)
			r->deadline_fewest_gpus = w->gpus;
		if (w->owned_cost < bo) {
			bo = w->owned_cost;
			r->deadline_owned_gpus = w->gpus;
		}
		if (w->rented_cost < br) {
			br = w->rented_cost;
			r->deadline_rented_gpus = w->gpus;
		}
	}
}

/* Marginal cost per unit of speedup between neighbours, and the count it stays under the limit up to. */
static void marginal(struct scale_result *r)
{
	bool given = true;

	for (size_t i = 0; i < r->nrows; i++)
		given &= isfinite(r->rows[i].given_cost);
	r->cost_basis = given ? "given" : "owned";
	r->worth_up_to_gpus = 0;
	r->rows[0].marginal_cost_per_speedup = NAN;
	for (size_t i = 1; i < r->nrows; i++) {
		const struct scale_row *a = &r->rows[i - 1], *b = &r->rows[i];
		double ca = given ? a->given_cost : a->owned_cost, cb = given ? b->given_cost : b->owned_cost;
		double ds = b->speedup - a->speedup;
		r->rows[i].marginal_cost_per_speedup = !isfinite(ca) || !isfinite(cb) ? NAN
			: ds > 0 ? (cb - ca) / ds : INFINITY;
	}
	if (isnan(r->max_cost_per_speedup) || (!given && !r->priced))
		return;
	r->worth_up_to_gpus = r->rows[0].gpus;
	for (size_t i = 1; i < r->nrows; i++) {
		if (!(r->rows[i].marginal_cost_per_speedup <= r->max_cost_per_speedup))
			break;
		r->worth_up_to_gpus = r->rows[i].gpus;
	}
}

/* ---- all of it ---------------------------------------------------------- */

void scale_compute(const struct scale_run *runs, size_t n, const struct cost_params *p, double deadline_h,
		   double max_cost_per_speedup, struct scale_result *r)
{
	bool all_tp = true, all_it_h = true;

	memset(r, 0, sizeof(*r));
	if (n > SCALE_MAX_RUNS)
		n = SCALE_MAX_RUNS;
	r->nrows = n;
	r->deadline_h = deadline_h;
	r->max_cost_per_speedup = max_cost_per_speedup;
	r->amdahl_f = r->amdahl_rms = r->amdahl_max_abs = NAN;
	r->usl_lambda = r->usl_sigma = r->usl_kappa = r->usl_rms_pct = r->usl_peak_gpus = NAN;
	for (size_t i = 0; i < n; i++) {
		all_tp &= (runs[i].have & SC_THROUGHPUT) != 0;
		all_it_h &= (runs[i].have & (SC_ITERATIONS | SC_HOURS)) == (SC_ITERATIONS | SC_HOURS);
	}
	r->throughput_from = all_tp ? "throughput" : all_it_h ? "iterations/hours" : "1/hours";
	for (size_t i = 0; i < n; i++) {
		const struct scale_run *u = &runs[i];
		struct scale_row *w = &r->rows[i];
		w->gpus = u->gpus;
		w->throughput = all_tp ? u->throughput : all_it_h ? u->iterations / (u->hours * 3600) : 1 / u->hours;
		w->iterations = u->iterations;
		w->hours = u->hours;
		if (isnan(w->hours) && isfinite(u->iterations) && u->have & SC_THROUGHPUT)
			w->hours = u->iterations / u->throughput / 3600;
		if (isnan(w->iterations) && isfinite(w->hours) && u->have & SC_THROUGHPUT)
			w->iterations = u->throughput * w->hours * 3600;
		w->given_cost = u->cost;
		w->amdahl_speedup = w->amdahl_gap_pct = w->implied_f = w->usl_speedup = NAN;
	}
	if (!all_tp && !all_it_h)
		for (size_t i = 0; i < n; i++)
			if (isnan(runs[i].hours)) {
				warn(r, "the run with %d GPUs has no hours while others have no throughput: "
					"its speedup cannot be compared", runs[i].gpus);
				r->rows[i].throughput = NAN;
			}
	double n0 = r->rows[0].gpus, x0 = r->rows[0].throughput;
	for (size_t i = 0; i < n; i++) {
		struct scale_row *w = &r->rows[i];
		w->speedup = w->throughput / x0;
		w->efficiency = w->speedup * n0 / w->gpus;
		w->superlinear = w->speedup > w->gpus / n0 * (1 + 1e-9);
		if (w->superlinear)
			warn(r, "the run with %d GPUs is faster than linear (efficiency %.2f): check that the runs did the same work",
			     w->gpus, w->efficiency);
		if (i && w->speedup < r->rows[i - 1].speedup)
			warn(r, "the run with %d GPUs is slower than the one before it (speedup %.3f): adding GPUs lost throughput",
			     w->gpus, w->speedup);
		if (i) {
			double s = w->speedup, m = w->gpus;
			w->implied_f = (1 / n0 - s / m) / (s - s / m - 1 + 1 / n0);
		}
	}
	bool fit_ok = true;
	for (size_t i = 0; i < n; i++)
		fit_ok &= isfinite(r->rows[i].throughput) && r->rows[i].throughput > 0;
	if (n >= 2 && fit_ok) {
		double sse = 0, mx = 0;
		r->amdahl_f = fit_amdahl(r);
		r->have_amdahl = true;
		for (size_t i = 0; i < n; i++) {
			struct scale_row *w = &r->rows[i];
			w->amdahl_speedup = amdahl(r->amdahl_f, n0, w->gpus);
			w->amdahl_gap_pct = 100 * (w->amdahl_speedup - w->speedup) / w->amdahl_speedup;
			if (i) {
				double d = w->speedup - w->amdahl_speedup;
				sse += d * d;
				mx = fmax(mx, fabs(d));
			}
		}
		r->amdahl_rms = sqrt(sse / (double)(n - 1));
		r->amdahl_max_abs = mx;
	}
	if (n >= 3 && fit_ok) {
		fit_usl(r);
		double b = r->usl_lambda * usl_shape(n0, r->usl_sigma, r->usl_kappa);
		for (size_t i = 0; i < n; i++)
			r->rows[i].usl_speedup = r->usl_lambda * usl_shape(r->rows[i].gpus, r->usl_sigma, r->usl_kappa) / b;
	}
	/* predictions: powers of two from the base to twice the largest count, no further */
	if (r->have_amdahl) {
		int top = r->rows[n - 1].gpus;
		for (long g = 1; g <= 2L * top && r->npred < 32; g *= 2) {
			if (g < n0)
				continue;
			struct scale_predict *q = &r->pred[r->npred++];
			double b = r->have_usl ? r->usl_lambda * usl_shape(n0, r->usl_sigma, r->usl_kappa) : NAN;
			q->gpus = (int)g;
			q->amdahl_speedup = amdahl(r->amdahl_f, n0, (double)g);
			q->usl_speedup = r->have_usl ? r->usl_lambda * usl_shape((double)g, r->usl_sigma, r->usl_kappa) / b : NAN;
			q->extrapolated = g > top;
		}
	}
	price(r, p);
	deadline(r);
	marginal(r);
}

/* ---- runs found in logs ------------------------------------------------- */

struct step_fields {
	bool is_step, have_ts, have_rate;
	double ts, rate, step_ms;
	const char *bad_at;	/* where a field was not what it should be */
	const char *why;
};

/* The top-level keys of one line's object that a step needs; the rest is skipped. */
static int step_parse(const char *p, const char *end, struct step_fields *f, const char **err_at,
		      const char **why)
{
	struct json_lex lx;
	enum json_tok t;
	int want = 0;	/* 1 event, 2 ts, 3 rate, 4 step_ms */

	json_lex_init(&lx, p, end, true);
	if ((t = json_next(&lx)) != JT_OBJ) {
		*err_at = lx.p;
		*why = t == JT_ERR ? lx.err : "not a JSON object";
		return -1;
	}
	while ((t = json_next(&lx)) != JT_OBJ_END) {
		if (t != JT_KEY)
			goto bad;
		want = slice_eq(lx.tok, "event") ? 1 : slice_eq(lx.tok, "ts") ? 2 :
		       slice_eq(lx.tok, "samples_per_s") || slice_eq(lx.tok, "items_per_s") ? 3 :
		       slice_eq(lx.tok, "step_ms") ? 4 : 0;
		const char *at = lx.p;
		t = json_next(&lx);
		if (t == JT_ERR || t == JT_MORE || t == JT_DONE)
			goto bad;
		if (want == 1 && t == JT_STR) {
			f->is_step = slice_eq(lx.tok, "step");
		} else if (want >= 2 && t == JT_NUM) {
			double v;
			if (slice_to_double(lx.tok, &v) || !isfinite(v)) {
				f->bad_at = at;
				f->why = "a number out of range";
			} else if (want == 2) {
				f->ts = v, f->have_ts = true;
			} else if (want == 3) {
				f->rate = v, f->have_rate = true;
			} else {
				f->step_ms = v;
			}
		} else if (want >= 2 && t != JT_NULL) {
			f->bad_at = at;
			f->why = want == 2 ? "'ts' is not a number" : want == 3 ? "the throughput is not a number" :
								 "'step_ms' is not a number";
			if (json_skip(&lx, t) != 1)
				goto bad;
		} else if (json_skip(&lx, t) != 1) {
			goto bad;
		}
	}
	return 0;
bad:
	*err_at = lx.p;
	*why = lx.err ? lx.err : "not a JSON object";
	return -1;
}

long scale_app_read(FILE *in, const char *name, struct scale_step **steps, size_t *nsteps,
		    struct scale_app_count *cnt, bool (*bad_line)(void *ud, const struct gl_err *bad),
		    void *ud, struct gl_err *err)
{
	char *buf = NULL;
	size_t cap = 0, alloc = *nsteps;
	ssize_t len;
	unsigned long line = 0;
	long got = 0;

	while ((len = getline(&buf, &cap, in)) >= 0) {
		struct step_fields f = { .step_ms = NAN };
		const char *at = NULL, *why = NULL;
		struct slice t = slice_trim((struct slice){ buf, (size_t)len });

		line++;
		if (!t.n)
			continue;
		if (step_parse(t.p, t.p + t.n, &f, &at, &why) == 0 && f.is_step) {
			if (!f.bad_at && !f.have_ts)
				f.bad_at = t.p, f.why = "a step without 'ts'";
			else if (!f.bad_at && !f.have_rate) {
				cnt->no_rate++;
				continue;
			} else if (!f.bad_at && (f.rate < 0 || f.ts <= 0 || !(isnan(f.step_ms) || f.step_ms > 0)))
				f.bad_at = t.p, f.why = "a step with a negative or zero value";
			at = f.bad_at, why = f.why;
		}
		if (why) {
			struct gl_err b = { 0 };
			cell_err(&b, name, line, (size_t)(at - buf) + 1, "%s", why);
			cnt->bad++;
			if (bad_line(ud, &b))
				break;
			continue;
		}
		if (!f.is_step)
			continue;
		if (*nsteps == alloc) {
			alloc = alloc ? 2 * alloc : 256;
			*steps = realloc(*steps, alloc * sizeof(**steps));
			if (!*steps)
				abort();
		}
		(*steps)[(*nsteps)++] = (struct scale_step){ (int64_t)llround(f.ts * 1e9), f.rate,
							     isnan(f.step_ms) ? NAN : f.step_ms / 1000 };
		got++;
		cnt->steps++;
	}
	free(buf);
	if (ferror(in))
		return gl_err_errno(err, "cannot read %s", name), -1;
	return got;
}

void scale_windows_steps(struct scale_window *w, size_t nw, const struct scale_step *s, size_t ns)
{
	for (size_t i = 0; i < ns; i++)
		for (size_t j = 0; j < nw; j++)
			if (s[i].t_ns >= w[j].t0_ns && s[i].t_ns < w[j].t1_ns) {
				double dt = isnan(s[i].step_s) ? 1 : s[i].step_s;
				w[j].steps++;
				w[j].items += s[i].items_per_s * dt;
				w[j].items_s += dt;
				break;
			}
	for (size_t j = 0; j < nw; j++) {
		w[j].hours = (double)(w[j].t1_ns - w[j].t0_ns) / 3.6e12;
		w[j].throughput = w[j].steps ? w[j].items / w[j].items_s : NAN;
	}
}

size_t scale_runs_from_windows(const struct scale_window *w, size_t nw, bool with_throughput,
			       struct scale_run *runs, size_t cap)
{
	size_t n = 0;
	bool all_steps = true;

	/* the distinct counts, in order of first appearance, then sorted */
	for (size_t i = 0; i < nw; i++) {
		size_t k;
		if (w[i].short_run)
			continue;
		for (k = 0; k < n && runs[k].gpus != w[i].gpus; k++)
			;
		if (k == n && n < cap)
			runs[n++] = (struct scale_run){ .gpus = w[i].gpus, .hours = NAN, .throughput = NAN,
							.iterations = NAN, .cost = NAN, .have = SC_HOURS };
	}
	qsort(runs, n, sizeof(*runs), cmp_runs);
	for (size_t k = 0; k < n; k++) {
		double h = 0, items = 0, items_s = 0;
		size_t m = 0;
		for (size_t i = 0; i < nw; i++)
			if (!w[i].short_run && w[i].gpus == runs[k].gpus) {
				h += (double)(w[i].t1_ns - w[i].t0_ns) / 3.6e12;
				items += w[i].items;
				items_s += w[i].items_s;
				m++;
			}
		runs[k].hours = h / (double)m;
		runs[k].throughput = items_s > 0 ? items / items_s : NAN;
		all_steps &= items_s > 0;
	}
	for (size_t k = 0; k < n; k++) {
		if (with_throughput && all_steps)
			runs[k].have |= SC_THROUGHPUT;
		else
			runs[k].throughput = NAN;
	}
	return n;
}
