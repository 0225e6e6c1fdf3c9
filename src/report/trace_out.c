/* SPDX-License-Identifier: MIT */
/* Rendering of a trace analysis (see trace_out.h). */
#include "report/trace_out.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "util/jsonw.h"
#include "util/version.h"
#include "util/timeutil.h"

static double us(int64_t ns)
{
	return (double)ns / 1000.0;
}

static const struct tr_file *file_of(const struct trace_an *an, const char *path)
{
	for (size_t i = 0; i < an->nfiles; i++)
		if (!strcmp(an->files[i].path, path))
			return &an->files[i];
	return NULL;
}

static void cut_text(FILE *out, const struct trace_an *an)
{
	char a[40], b[40];

	if (an->cut0 == INT64_MIN && an->cut1 == INT64_MAX) {
		fprintf(out, "Cut:      none (the whole trace)\n");
		return;
	}
	fprintf(out, "Cut:      %s to %s (--since/--until/--window): %" PRIu64 " GPU ops outside dropped, %" PRIu64
		" clipped at the edges\n",
		an->cut0 == INT64_MIN ? "the start" : time_rfc3339_us(a, sizeof(a), an->cut0),
		an->cut1 == INT64_MAX ? "the end" : time_rfc3339_us(b, sizeof(b), an->cut1),
		an->ops_outside, an->ops_clipped);
}

static void pct_or_dash(FILE *out, double v)
{
	if (isnan(v))
		fprintf(out, "     -");
	else
		fprintf(out, "%5.1f%%", 100.0 * v);
}

static void device_text(FILE *out, const struct trace_an *an, const struct tr_device *d)
{
	int64_t span = d->span_ns;
	char a[40], b[40];

	fprintf(out, "\nGPU %d: span %.3f ms (%s to %s", d->dev, us(span) / 1000.0,
		time_rfc3339_us(a, sizeof(a), d->span0), time_rfc3339_us(b, sizeof(b), d->span1));
	if (d->nspans > 1)
		fprintf(out, ", in %zu pieces: the time between traces is not counted", d->nspans);
	fprintf(out, ")\n");
	fprintf(out, "  kernels      %8" PRIu64 "   sum %.3f ms, union across streams %.3f ms (", d->kernels,
		us(d->kernel_sum_ns) / 1000.0, us(d->kernel_union_ns) / 1000.0);
	pct_or_dash(out, d->kernel_union_share);
	fprintf(out, " of the span)\n");
	fprintf(out, "  memcpy       %8" PRIu64 "   %.3f ms\n", d->memcpys, us(d->memcpy_ns) / 1000.0);
	fprintf(out, "  memset       %8" PRIu64 "   %.3f ms\n", d->memsets, us(d->memset_ns) / 1000.0);
	fprintf(out, "  active                  %.3f ms (", us(d->active_ns) / 1000.0);
	pct_or_dash(out, d->active_share);
	fprintf(out, ")\n");
	fprintf(out, "  idle                    %.3f ms: host waits %.3f ms (no GPU work queued), "
		"queued gaps %.3f ms (next op already launched), unmatched %.3f ms\n",
		us(d->idle_ns) / 1000.0, us(d->host_wait_ns) / 1000.0, us(d->queued_gap_ns) / 1000.0,
		us(d->unmatched_gap_ns) / 1000.0);
	if (d->latency_n)
		fprintf(out, "  launch       p50 %.3f us, p95 %.3f us, entropy %.3f bits (%" PRIu64 " kernels matched by correlation id)\n",
			us(d->lat_p50_ns), us(d->lat_p95_ns), d->lat_entropy_bits, d->latency_n);
	else
		fprintf(out, "  launch       unknown (no kernel matched a runtime call)\n");
	fprintf(out, "  small        ");
	pct_or_dash(out, d->small_share);
	fprintf(out, " of kernels under 10 us; memcpy events per kernel ");
	if (isnan(d->memcpy_per_kernel))
		fprintf(out, "-\n");
	else
		fprintf(out, "%.3f\n", d->memcpy_per_kernel);
	if (d->ntop) {
		fprintf(out, "  top kernels by total time\n  %10s %7s %10s %10s  %s\n", "total_ms", "count", "mean_us", "p95_us", "name");
		for (size_t i = 0; i < d->ntop; i++) {
			const struct tr_kernel_stat *k = &d->top[i];
			fprintf(out, "  %10.3f %7" PRIu64 " %10.3f %10.3f  %.160s\n", us(k->total_ns) / 1000.0, k->count,
				k->mean_ns / 1000.0, us(k->p95_ns), trace_name(an, k->name));
		}
	}
	if (d->nsteps) {
		fprintf(out, "  steps\n  %8s %10s %10s %7s\n", "step", "time_ms", "active_ms", "active");
		for (size_t i = 0; i < d->nsteps; i++) {
			const struct tr_step_stat *s = &d->steps[i];
			fprintf(out, "  %8" PRId64 " %10.3f %10.3f ", s->n, us(s->t1 - s->t0) / 1000.0, us(s->active_ns) / 1000.0);
			pct_or_dash(out, s->active_share);
			fputc('\n', out);
		}
	}
	for (size_t i = 0; i < d->nhealth; i++)
		fprintf(out, "  health: %s: %s\n", d->health[i].code, d->health[i].message);
}

void trace_text(FILE *out, const struct trace_an *an, const struct ingest_result *in)
{
	fprintf(out, "gputally trace\n\nInputs\n");
	for (size_t i = 0; i < in->nr; i++) {
		const struct input_stat *st = &in->inputs[i];
		const struct tr_file *f = file_of(an, st->path);
		if (!st->format) {
			fprintf(out, "  %-40s skipped: %s\n", st->path, st->skip_reason);
			continue;
		}
		fprintf(out, "  %-40s %-8s %10" PRIu64 " events %8" PRIu64 " used %6" PRIu64 " skipped (%s)\n",
			st->path, st->format->id, f ? f->events : 0, f ? f->used : 0, st->bad, st->compression);
	}
	cut_text(out, an);
	if (!an->ndevs)
		fprintf(out, "\nNo GPU activity (kernels, copies, memsets) in the inputs.\n");
	for (size_t i = 0; i < an->ndevs; i++)
		device_text(out, an, &an->devs[i]);
	if (an->nhealth) {
		fprintf(out, "\nTrace health\n");
		for (size_t i = 0; i < an->nhealth; i++)
			fprintf(out, "  %s: %s\n", an->health[i].code, an->health[i].message);
	}
}

static void kus(struct jsonw *w, const char *k, int64_t ns)
{
	jsonw_knum(w, k, us(ns), 3);
}

static void health_json(struct jsonw *w, const struct tr_health *h, size_t n)
{
	jsonw_arr_begin(w);
	for (size_t i = 0; i < n; i++) {
		jsonw_obj_begin(w);
		jsonw_kstr(w, "code", h[i].code);
		jsonw_kstr(w, "message", h[i].message);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static void device_json(struct jsonw *w, const struct trace_an *an, const struct tr_device *d)
{
	jsonw_obj_begin(w);
	jsonw_kint(w, "device", d->dev);
	jsonw_kint(w, "kernels", (int64_t)d->kernels);
	jsonw_kint(w, "memcpys", (int64_t)d->memcpys);
	jsonw_kint(w, "memsets", (int64_t)d->memsets);
	jsonw_ktime(w, "span_start", d->span0);
	jsonw_ktime(w, "span_end", d->span1);
	kus(w, "kernel_sum_us", d->kernel_sum_ns);
	kus(w, "kernel_union_us", d->kernel_union_ns);
	kus(w, "memcpy_us", d->memcpy_ns);
	kus(w, "memset_us", d->memset_ns);
	kus(w, "active_us", d->active_ns);
	kus(w, "span_us", d->span_ns);
	jsonw_kint(w, "span_pieces", (int64_t)d->nspans);
	kus(w, "idle_us", d->idle_ns);
	kus(w, "host_wait_us", d->host_wait_ns);
	kus(w, "queued_gap_us", d->queued_gap_ns);
	kus(w, "unmatched_gap_us", d->unmatched_gap_ns);
	jsonw_key(w, "launch_latency_us");
	if (d->latency_n) {
		jsonw_obj_begin(w);
		kus(w, "p50", d->lat_p50_ns);
		kus(w, "p95", d->lat_p95_ns);
		jsonw_kint(w, "matched", (int64_t)d->latency_n);
		jsonw_obj_end(w);
	} else {
		jsonw_null(w);
	}
	jsonw_knum(w, "launch_entropy_bits", d->lat_entropy_bits, 4);
	jsonw_knum(w, "small_kernel_share", d->small_share, 4);
	jsonw_knum(w, "memcpy_per_kernel", d->memcpy_per_kernel, 4);
	jsonw_key(w, "top_kernels");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < d->ntop; i++) {
		const struct tr_kernel_stat *k = &d->top[i];
		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", trace_name(an, k->name));
		jsonw_kint(w, "count", (int64_t)k->count);
		kus(w, "total_us", k->total_ns);
		jsonw_knum(w, "mean_us", k->mean_ns / 1000.0, 3);
		kus(w, "p95_us", k->p95_ns);
		jsonw_knum(w, "cv", k->cv, 4);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "steps");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < d->nsteps; i++) {
		const struct tr_step_stat *s = &d->steps[i];
		jsonw_obj_begin(w);
		jsonw_kint(w, "step", s->n);
		jsonw_ktime(w, "start", s->t0);
		kus(w, "time_us", s->t1 - s->t0);
		kus(w, "active_us", s->active_ns);
		jsonw_knum(w, "active_share", s->active_share, 4);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "health");
	health_json(w, d->health, d->nhealth);
	jsonw_obj_end(w);
}

void trace_json(FILE *out, const struct trace_an *an, const struct ingest_result *in)
{
	struct jsonw w;

	jsonw_init(&w, out, true);
	jsonw_obj_begin(&w);
	jsonw_version(&w);
	jsonw_key(&w, "files");
	jsonw_arr_begin(&w);
	for (size_t i = 0; i < in->nr; i++) {
		const struct input_stat *st = &in->inputs[i];
		const struct tr_file *f = file_of(an, st->path);
		jsonw_obj_begin(&w);
		jsonw_kstr(&w, "path", st->path);
		jsonw_key(&w, "format");
		if (st->format)
			jsonw_str(&w, st->format->id);
		else
			jsonw_null(&w);
		jsonw_kint(&w, "events", f ? (int64_t)f->events : 0);
		jsonw_kint(&w, "used", f ? (int64_t)f->used : 0);
		jsonw_kint(&w, "skipped", (int64_t)st->bad);
		if (!st->format)
			jsonw_kstr(&w, "skip_reason", st->skip_reason);
		jsonw_kbool(&w, "complete", st->format && !st->skip_reason[0] &&
			    !(f && (f->fatal || f->cut_kept)));
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	jsonw_key(&w, "cut");
	jsonw_obj_begin(&w);
	jsonw_key(&w, "since");
	if (an->cut0 == INT64_MIN)
		jsonw_null(&w);
	else
		jsonw_time(&w, an->cut0);
	jsonw_key(&w, "until");
	if (an->cut1 == INT64_MAX)
		jsonw_null(&w);
	else
		jsonw_time(&w, an->cut1);
	jsonw_kint(&w, "ops_outside", (int64_t)an->ops_outside);
	jsonw_kint(&w, "ops_clipped", (int64_t)an->ops_clipped);
	jsonw_obj_end(&w);
	jsonw_key(&w, "devices");
	jsonw_arr_begin(&w);
	for (size_t i = 0; i < an->ndevs; i++)
		device_json(&w, an, &an->devs[i]);
	jsonw_arr_end(&w);
	jsonw_key(&w, "health");
	health_json(&w, an->health, an->nhealth);
	jsonw_obj_end(&w);
	jsonw_flush(&w);
	fputc('\n', out);
}

const struct trace_writer trace_writers[] = {
	{ "text", trace_text, true },
	{ "json", trace_json, false },
};
const size_t trace_nwriters = sizeof(trace_writers) / sizeof(trace_writers[0]);

const struct trace_writer *trace_writer_find(const char *name)
{
	for (size_t i = 0; i < trace_nwriters; i++)
		if (!strcmp(trace_writers[i].name, name))
			return &trace_writers[i];
	return NULL;
}
