/* SPDX-License-Identifier: MIT */
/*
 * `gputally scale` output.  Every figure comes from struct scale_result;
 * the text shows what the JSON holds, rounded.
 */
#include "report/scale_out.h"

#include <math.h>
#include <string.h>

#include "util/jsonw.h"
#include "util/numfmt.h"
#include "util/version.h"
#include "util/timeutil.h"

/* a table cell: util/numfmt.h's rule, "-" where there is no figure */
static const char *num(char *buf, size_t cap, double v, int dec)
{
	return isnan(v) ? "-" : nf_num(buf, cap, v, dec);
}

static const char *cur(const struct cost_params *p)
{
	return p->currency[0] ? p->currency : "(currency units)";
}

/* What --logs found: the task, each window, and what the speedup rests on. */
static void logs_text(FILE *out, const struct scale_logs *lg)
{
	char a[40], b[40], c[32], d[32];

	fprintf(out, "Runs found in the logs: %s%s%s, %zu window%s; speedup from the %s.\n",
		lg->task ? "task '" : "GPUs doing work (no process data)", lg->task ? lg->task : "",
		lg->task ? "'" : "", lg->nwin, lg->nwin == 1 ? "" : "s", lg->basis);
	if (lg->app_logs)
		fprintf(out, "Application log%s %s: %llu step(s) with a throughput, %llu without (not counted), "
			"%llu line(s) skipped.\n", lg->app_logs[1] ? "s" : "", lg->app_logs[0],
			(unsigned long long)lg->app.steps, (unsigned long long)lg->app.no_rate,
			(unsigned long long)lg->app.bad);
	fprintf(out, "  start (UTC)           end (UTC)             GPUs     hours  steps  items/s\n");
	for (size_t i = 0; i < lg->nwin; i++) {
		const struct scale_window *w = &lg->win[i];
		time_rfc3339(a, sizeof(a), w->t0_ns);
		time_rfc3339(b, sizeof(b), w->t1_ns);
		fprintf(out, "  %-21s %-21s %4d %9s %6zu %8s%s\n", a, b, w->gpus, num(c, sizeof(c), w->hours, 4),
			w->steps, num(d, sizeof(d), w->throughput, 3),
			w->short_run ? "  shorter than --min-run: not a run" : "");
	}
	fputc('\n', out);
}

void scale_text(FILE *out, const struct scale_result *r, const struct cost_params *p, const char *src,
		const struct scale_logs *lg)
{
	char a[32], b[32], c[32], d[32], e[32], f[32], g[32], h[32];
	const struct scale_row *base = &r->rows[0];

	fprintf(out, "gputally scale: %zu run%s from %s; speedup from %s, against the %d-GPU run\n\n", r->nrows,
		r->nrows == 1 ? "" : "s", src ? src : "the logs", r->throughput_from, base->gpus);
	if (lg)
		logs_text(out, lg);
	fprintf(out, "  GPUs  throughput  speedup  efficiency  Amdahl S   gap %%  implied F   USL S     hours\n");
	for (size_t i = 0; i < r->nrows; i++) {
		const struct scale_row *w = &r->rows[i];
		fprintf(out, "%6d %11s %8s %9s %% %9s %7s %10s %7s %9s%s\n", w->gpus, num(a, sizeof(a), w->throughput, 3),
			num(b, sizeof(b), w->speedup, 3), num(c, sizeof(c), 100 * w->efficiency, 1),
			num(d, sizeof(d), w->amdahl_speedup, 3), num(e, sizeof(e), w->amdahl_gap_pct, 1),
			num(f, sizeof(f), w->implied_f, 4), num(g, sizeof(g), w->usl_speedup, 3),
			num(h, sizeof(h), w->hours, 2), w->superlinear ? "  faster than linear" : "");
	}
	fputc('\n', out);
	if (r->have_amdahl) {
		fprintf(out, "Amdahl: serial fraction F = %.4f, the least-squares fit to the %zu measured speedup%s; "
			"residual rms %.3f, largest %.3f.\n", r->amdahl_f, r->nrows - 1, r->nrows == 2 ? "" : "s",
			r->amdahl_rms, r->amdahl_max_abs);
		if (r->nrows == 2)
			fprintf(out, "  One run against the base fits one parameter exactly: the residual says nothing; measure a third count.\n");
		if (r->nrows >= 3) {
			double lo = INFINITY, hi = -INFINITY;
			for (size_t i = 1; i < r->nrows; i++) {
				lo = fmin(lo, r->rows[i].implied_f);
				hi = fmax(hi, r->rows[i].implied_f);
			}
			if (hi - lo > 0.01)
				fprintf(out, "  No single serial fraction gives every speedup: each run alone implies F from %.4f to %.4f.\n",
					lo, hi);
			else
				fprintf(out, "  One serial fraction explains every run: each alone implies F from %.4f to %.4f.\n",
					lo, hi);
		}
	} else {
		fprintf(out, "Amdahl: no fit, it needs at least two runs with comparable throughput.\n");
	}
	if (r->have_usl) {
		fprintf(out, "USL: contention sigma = %.4f, coherency kappa = %.6f, residual rms %.1f %% of throughput; ",
			r->usl_sigma, r->usl_kappa, r->usl_rms_pct);
		if (isfinite(r->usl_peak_gpus) && r->usl_peak_gpus > 100.0 * r->rows[r->nrows - 1].gpus)
			fprintf(out, "coherency is about zero: throughput does not peak within 100x the largest measured count.\n");
		else if (isfinite(r->usl_peak_gpus))
			fprintf(out, "throughput peaks at about %.0f GPUs%s.\n", r->usl_peak_gpus,
				r->usl_peak_gpus > 2.0 * r->rows[r->nrows - 1].gpus ? " (far beyond the measured counts: an extrapolation)" : "");
		else
			fprintf(out, "no coherency cost: throughput never peaks in this fit.\n");
		if (r->nrows == 3)
			fprintf(out, "  Three runs fit the three USL parameters exactly: the residual says nothing; measure a fourth count.\n");
	} else if (r->nrows >= 1) {
		fprintf(out, "USL: no fit, it needs at least three runs.\n");
	}
	if (r->npred) {
		fprintf(out, "\nPredicted speedups (not measured; * beyond the largest measured count, at most twice it):\n");
		for (size_t i = 0; i < r->npred; i++)
			fprintf(out, "  %5d GPUs  Amdahl %8s  USL %8s%s\n", r->pred[i].gpus,
				num(a, sizeof(a), r->pred[i].amdahl_speedup, 3), num(b, sizeof(b), r->pred[i].usl_speedup, 3),
				r->pred[i].extrapolated ? "  *" : "");
	}
	fputc('\n', out);
	if (r->priced) {
		fprintf(out, "Cost at the profile's rates%s%s (owned %s per GPU-hour: fixed share plus busy energy):\n",
			p->name[0] ? ", " : "", p->name, num(a, sizeof(a), r->owned_per_gpu_hour, 4));
		fprintf(out, "  GPUs      owned     rented    owned/1k  rented/1k      given  marginal/speedup\n");
		for (size_t i = 0; i < r->nrows; i++) {
			const struct scale_row *w = &r->rows[i];
			fprintf(out, "%6d %10s %10s %11s %10s %10s %17s\n", w->gpus, num(a, sizeof(a), w->owned_cost, 2),
				num(b, sizeof(b), w->rented_cost, 2), num(c, sizeof(c), w->owned_per_1k, 4),
				num(d, sizeof(d), w->rented_per_1k, 4), num(e, sizeof(e), w->given_cost, 2),
				num(f, sizeof(f), w->marginal_cost_per_speedup, 2));
		}
		fprintf(out, "  (%s; per 1k = per 1,000 iterations; marginal = extra %s cost per unit of speedup over the row above)\n",
			cur(p), r->cost_basis);
	} else {
		fprintf(out, "Cost: no prices (give --profile or --set cloud_hourly_rate=..., hardware_price=...)");
		if (strcmp(r->cost_basis, "given") == 0)
			fprintf(out, "; the table's own cost column is used for the marginal cost");
		fprintf(out, ".\n");
	}
	if (!isnan(r->deadline_h)) {
		fprintf(out, "Deadline %s h: ", num(a, sizeof(a), r->deadline_h, 2));
		if (!r->deadline_fewest_gpus)
			fprintf(out, "no measured run finishes in time.\n");
		else {
			fprintf(out, "fewest GPUs that finish in time: %d; ", r->deadline_fewest_gpus);
			if (r->deadline_owned_gpus)
				fprintf(out, "cheapest owned: %d GPUs", r->deadline_owned_gpus);
			else
				fprintf(out, "owned: none priced");
			if (r->deadline_rented_gpus)
				fprintf(out, "; cheapest rented: %d GPUs", r->deadline_rented_gpus);
			else
				fprintf(out, "; rented: none priced");
			fprintf(out, " (among the measured runs that finish in time).\n");
		}
	}
	if (!isnan(r->max_cost_per_speedup)) {
		if (r->worth_up_to_gpus)
			fprintf(out, "Worth it up to %d GPUs: beyond that each unit of speedup costs more than %s %s (%s cost).\n",
				r->worth_up_to_gpus, num(a, sizeof(a), r->max_cost_per_speedup, 2), cur(p), r->cost_basis);
		else
			fprintf(out, "--max-cost-per-speedup: no cost is known for the runs, so no limit can be placed.\n");
	}
	for (size_t i = 0; i < r->nwarnings; i++)
		fprintf(out, "warning: %s\n", r->warnings[i]);
}

static void logs_json(struct jsonw *w, const struct scale_logs *lg)
{
	jsonw_key(w, "logs");
	if (!lg) {
		jsonw_null(w);
		return;
	}
	jsonw_obj_begin(w);
	jsonw_kstr(w, "task", lg->task);
	jsonw_kstr(w, "basis", lg->basis);
	jsonw_key(w, "app_logs");
	jsonw_arr_begin(w);
	for (size_t i = 0; lg->app_logs && lg->app_logs[i]; i++)
		jsonw_str(w, lg->app_logs[i]);
	jsonw_arr_end(w);
	jsonw_kint(w, "app_steps", (int64_t)lg->app.steps);
	jsonw_kint(w, "app_steps_without_throughput", (int64_t)lg->app.no_rate);
	jsonw_kint(w, "app_lines_skipped", (int64_t)lg->app.bad);
	jsonw_kint(w, "min_run_s", lg->min_run_ns / NS_PER_S);
	jsonw_key(w, "windows");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < lg->nwin; i++) {
		const struct scale_window *x = &lg->win[i];
		jsonw_obj_begin(w);
		jsonw_ktime(w, "start", x->t0_ns);
		jsonw_ktime(w, "end", x->t1_ns);
		jsonw_kint(w, "gpus", x->gpus);
		jsonw_knum(w, "hours", x->hours, 6);
		jsonw_kint(w, "steps", (int64_t)x->steps);
		jsonw_knum(w, "throughput", x->throughput, 6);
		jsonw_kbool(w, "run", !x->short_run);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

void scale_json(FILE *out, const struct scale_result *r, const struct cost_params *p, const char *src,
		const struct scale_logs *lg)
{
	struct jsonw w;

	jsonw_init(&w, out, true);
	jsonw_obj_begin(&w);
	jsonw_kint(&w, "schema", 1);
	jsonw_version(&w);
	jsonw_kstr(&w, "source", src ? src : "logs");
	jsonw_kstr(&w, "throughput_from", r->throughput_from);
	jsonw_kint(&w, "base_gpus", r->rows[0].gpus);
	logs_json(&w, lg);
	jsonw_key(&w, "runs");
	jsonw_arr_begin(&w);
	for (size_t i = 0; i < r->nrows; i++) {
		const struct scale_row *x = &r->rows[i];
		jsonw_obj_begin(&w);
		jsonw_kint(&w, "gpus", x->gpus);
		jsonw_knum(&w, "throughput", x->throughput, 6);
		jsonw_knum(&w, "speedup", x->speedup, 6);
		jsonw_knum(&w, "efficiency", x->efficiency, 6);
		jsonw_knum(&w, "amdahl_speedup", x->amdahl_speedup, 6);
		jsonw_knum(&w, "amdahl_gap_pct", x->amdahl_gap_pct, 3);
		jsonw_knum(&w, "implied_serial_fraction", x->implied_f, 6);
		jsonw_knum(&w, "usl_speedup", x->usl_speedup, 6);
		jsonw_knum(&w, "hours", x->hours, 6);
		jsonw_knum(&w, "iterations", x->iterations, 3);
		jsonw_knum(&w, "owned_cost", x->owned_cost, 6);
		jsonw_knum(&w, "rented_cost", x->rented_cost, 6);
		jsonw_knum(&w, "given_cost", x->given_cost, 6);
		jsonw_knum(&w, "owned_cost_per_1k_iterations", x->owned_per_1k, 6);
		jsonw_knum(&w, "rented_cost_per_1k_iterations", x->rented_per_1k, 6);
		jsonw_knum(&w, "marginal_cost_per_speedup", x->marginal_cost_per_speedup, 6);
		jsonw_kbool(&w, "superlinear", x->superlinear);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	jsonw_key(&w, "amdahl");
	if (r->have_amdahl) {
		jsonw_obj_begin(&w);
		jsonw_knum(&w, "serial_fraction", r->amdahl_f, 6);
		jsonw_knum(&w, "residual_rms", r->amdahl_rms, 6);
		jsonw_knum(&w, "residual_max", r->amdahl_max_abs, 6);
		jsonw_obj_end(&w);
	} else {
		jsonw_null(&w);
	}
	jsonw_key(&w, "usl");
	if (r->have_usl) {
		jsonw_obj_begin(&w);
		jsonw_knum(&w, "lambda", r->usl_lambda, 6);
		jsonw_knum(&w, "sigma", r->usl_sigma, 6);
		jsonw_knum(&w, "kappa", r->usl_kappa, 8);
		jsonw_knum(&w, "residual_rms_pct", r->usl_rms_pct, 3);
		jsonw_knum(&w, "peak_gpus", r->usl_peak_gpus, 1);
		jsonw_obj_end(&w);
	} else {
		jsonw_null(&w);
	}
	jsonw_key(&w, "predicted");
	jsonw_arr_begin(&w);
	for (size_t i = 0; i < r->npred; i++) {
		jsonw_obj_begin(&w);
		jsonw_kint(&w, "gpus", r->pred[i].gpus);
		jsonw_knum(&w, "amdahl_speedup", r->pred[i].amdahl_speedup, 6);
		jsonw_knum(&w, "usl_speedup", r->pred[i].usl_speedup, 6);
		jsonw_kbool(&w, "extrapolated", r->pred[i].extrapolated);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	jsonw_key(&w, "cost");
	jsonw_obj_begin(&w);
	jsonw_kbool(&w, "priced", r->priced);
	jsonw_kstr(&w, "profile", p->name);
	jsonw_kstr(&w, "currency", p->currency);
	jsonw_knum(&w, "owned_per_gpu_hour", r->owned_per_gpu_hour, 6);
	jsonw_kstr(&w, "marginal_basis", r->cost_basis);
	jsonw_obj_end(&w);
	jsonw_key(&w, "deadline");
	if (!isnan(r->deadline_h)) {
		jsonw_obj_begin(&w);
		jsonw_knum(&w, "hours", r->deadline_h, 6);
		if (r->deadline_fewest_gpus)
			jsonw_kint(&w, "fewest_gpus", r->deadline_fewest_gpus);
		else
			jsonw_kstr(&w, "fewest_gpus", NULL);
		if (r->deadline_owned_gpus)
			jsonw_kint(&w, "cheapest_owned_gpus", r->deadline_owned_gpus);
		else
			jsonw_kstr(&w, "cheapest_owned_gpus", NULL);
		if (r->deadline_rented_gpus)
			jsonw_kint(&w, "cheapest_rented_gpus", r->deadline_rented_gpus);
		else
			jsonw_kstr(&w, "cheapest_rented_gpus", NULL);
		jsonw_obj_end(&w);
	} else {
		jsonw_null(&w);
	}
	jsonw_key(&w, "max_cost_per_speedup");
	if (!isnan(r->max_cost_per_speedup)) {
		jsonw_obj_begin(&w);
		jsonw_knum(&w, "limit", r->max_cost_per_speedup, 6);
		if (r->worth_up_to_gpus)
			jsonw_kint(&w, "worth_up_to_gpus", r->worth_up_to_gpus);
		else
			jsonw_kstr(&w, "worth_up_to_gpus", NULL);
		jsonw_obj_end(&w);
	} else {
		jsonw_null(&w);
	}
	jsonw_key(&w, "warnings");
	jsonw_arr_begin(&w);
	for (size_t i = 0; i < r->nwarnings; i++)
		jsonw_str(&w, r->warnings[i]);
	jsonw_arr_end(&w);
	jsonw_obj_end(&w);
	jsonw_flush(&w);
	fputc('\n', out);
}

const struct scale_writer scale_writers[] = {
	{ "text", scale_text, true },
	{ "json", scale_json, false },
};
const size_t scale_nwriters = sizeof(scale_writers) / sizeof(scale_writers[0]);

const struct scale_writer *scale_writer_find(const char *name)
{
	for (size_t i = 0; i < scale_nwriters; i++)
		if (!strcmp(scale_writers[i].name, name))
			return &scale_writers[i];
	return NULL;
}
