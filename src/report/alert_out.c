/* SPDX-License-Identifier: MIT */
/* `gputally alert` output: text lines, JSON, Prometheus alerting rules. */
#include "report/alert_out.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/jsonw.h"
#include "util/version.h"
#include "util/timeutil.h"

const char *alert_gpu_label(const struct alert_eval *ev, int gpu, char *buf, size_t cap)
{
	const struct gpu_ident *id;

	if (gpu < 0 || gpu >= ev->an->tl.ngpus)
		return "-";
	id = &ev->an->tl.gpus[gpu].id;
	if (id->index >= 0)
		snprintf(buf, cap, "gpu%d", id->index);
	else
		snprintf(buf, cap, "%s", id->uuid[0] ? id->uuid : "?");
	return buf;
}

void alert_text(FILE *out, const struct alert_eval *ev)
{
	char g[112], t0[40], t1[40], v[32];

	for (size_t i = 0; i < ev->n; i++) {
		const struct alert *a = &ev->alerts[i];
		if (isnan(a->value))
			snprintf(v, sizeof(v), "-");
		else
			snprintf(v, sizeof(v), "%.6g", a->value);
		fprintf(out, "%s %s %s %s %s %s", a->rule->id, alert_gpu_label(ev, a->gpu, g, sizeof(g)),
			time_rfc3339(t0, sizeof(t0), a->start_ns), time_rfc3339(t1, sizeof(t1), a->end_ns),
			v, a->message);
		if (a->count > 1)
			fprintf(out, " (x%" PRIu32 ")", a->count);
		if (a->source[0])
			fprintf(out, " [%s]", a->source);
		fputc('\n', out);
	}
}

void alert_json(FILE *out, const struct alert_eval *ev, const char *profile)
{
	struct jsonw *w = malloc(sizeof(*w));

	if (!w)
		return;
	jsonw_init(w, out, true);
	jsonw_obj_begin(w);
	jsonw_version(w);
	jsonw_kstr(w, "rules_source", ev->rules->src);
	jsonw_kint(w, "rules", (int64_t)ev->rules->n);
	jsonw_key(w, "profile");
	if (profile)
		jsonw_str(w, profile);
	else
		jsonw_null(w);
	jsonw_knum(w, "u_star", ev->u_star, 6);
	jsonw_kbool(w, "u_star_rule_skipped", ev->util_skipped);
	jsonw_kint(w, "fired", (int64_t)ev->n);
	jsonw_kint(w, "dropped", (int64_t)ev->dropped);
	jsonw_key(w, "alerts");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < ev->n; i++) {
		const struct alert *a = &ev->alerts[i];
		const struct gpu_ident *id = a->gpu >= 0 && a->gpu < ev->an->tl.ngpus ?
					     &ev->an->tl.gpus[a->gpu].id : NULL;
		jsonw_obj_begin(w);
		jsonw_kstr(w, "rule", a->rule->id);
		jsonw_kstr(w, "kind", alert_kind_name[a->rule->kind]);
		jsonw_kstr(w, "severity", a->rule->critical ? "critical" : "warning");
		jsonw_key(w, "gpu");
		if (id && id->index >= 0)
			jsonw_int(w, id->index);
		else
			jsonw_null(w);
		jsonw_key(w, "uuid");
		if (id && id->uuid[0])
			jsonw_str(w, id->uuid);
		else
			jsonw_null(w);
		jsonw_ktime(w, "start", a->start_ns);
		jsonw_ktime(w, "end", a->end_ns);
		jsonw_knum(w, "value", a->value, 6);
		jsonw_kint(w, "count", a->count);
		jsonw_key(w, "source");
		if (a->source[0])
			jsonw_str(w, a->source);
		else
			jsonw_null(w);
		jsonw_kstr(w, "message", a->message);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
	jsonw_flush(w);
	fputc('\n', out);
	free(w);
}

/* ---- Prometheus alerting rules ------------------------------------------ */

/* temp_high -> GputallyTempHigh */
void alert_prom_name(char *buf, size_t cap, const char *id)
{
	size_t n = (size_t)snprintf(buf, cap, "Gputally");
	bool up = true;

	for (; *id && n + 1 < cap; id++) {
		if (*id == '_') {
			up = true;
			continue;
		}
		buf[n++] = up ? (char)toupper((unsigned char)*id) : *id;
		up = false;
	}
	buf[n] = '\0';
}

/* A Prometheus duration: the largest whole unit. */
static void prom_dur(char *buf, size_t cap, int64_t ns)
{
	int64_t s = ns / NS_PER_S;

	if (ns % NS_PER_S)
		snprintf(buf, cap, "%" PRId64 "ms", ns / NS_PER_MS);
	else if (s && s % 86400 == 0)
		snprintf(buf, cap, "%" PRId64 "d", s / 86400);
	else if (s && s % 3600 == 0)
		snprintf(buf, cap, "%" PRId64 "h", s / 3600);
	else if (s && s % 60 == 0)
		snprintf(buf, cap, "%" PRId64 "m", s / 60);
	else
		snprintf(buf, cap, "%" PRId64 "s", s);
}

static void rule_head(FILE *out, const struct alert_rule *r, const char *expr)
{
	char name[80], dur[32];

	alert_prom_name(name, sizeof(name), r->id);
	fprintf(out, "      - alert: %s\n        expr: %s\n", name, expr);
	if (r->for_ns > 0) {
		prom_dur(dur, sizeof(dur), r->for_ns);
		fprintf(out, "        for: %s\n", dur);
	}
	fprintf(out, "        labels:\n          severity: %s\n          rule: %s\n",
		r->critical ? "critical" : "warning", r->id);
}

static void summary(FILE *out, const char *text)
{
	fprintf(out, "        annotations:\n          summary: \"%s\"\n", text);
}

#define ON_GPU "GPU {{ $labels.gpu }} ({{ $labels.uuid }}) on {{ $labels.host }}"

static void prom_rule(FILE *out, const struct alert_rule *r, double u_star)
{
	char expr[512], text[300], dur[32];
	double thr;

	switch (r->kind) {
	case AK_TEMP_ABOVE:
		snprintf(expr, sizeof(expr), "gputally_gpu_temperature_celsius > %g", r->threshold);
		rule_head(out, r, expr);
		snprintf(text, sizeof(text), ON_GPU ": temperature {{ $value }} C, above %g C", r->threshold);
		summary(out, text);
		return;
	case AK_MEM_FREE_BELOW:
		snprintf(expr, sizeof(expr),
			 "(gputally_gpu_memory_total_bytes - gputally_gpu_memory_used_bytes) < %.0f",
			 r->threshold * 1073741824.0);
		rule_head(out, r, expr);
		snprintf(text, sizeof(text), ON_GPU ": {{ $value | humanize1024 }}B free, under %g GiB",
			 r->threshold);
		summary(out, text);
		return;
	case AK_POWER_ZERO:
		snprintf(expr, sizeof(expr), "gputally_gpu_power_watts <= %g and gputally_gpu_up == 1",
			 r->threshold);
		rule_head(out, r, expr);
		snprintf(text, sizeof(text), ON_GPU ": power {{ $value }} W while the GPU still answers");
		summary(out, text);
		return;
	case AK_STATE:
		if (r->state != ST_DOWN)
			break;
		rule_head(out, r, "gputally_gpu_up == 0");
		summary(out, ON_GPU ": down (lost, reset required, timed out or failing)");
		return;
	case AK_UTIL_BELOW:
		thr = r->use_ustar ? 100 * u_star : r->threshold;
		if (isnan(thr)) {
			fprintf(out, "      # %s: no break-even utilization u* (give --profile)\n", r->id);
			return;
		}
		prom_dur(dur, sizeof(dur), r->window_ns);
		/* while a job runs: the minutes in which the GPU holds more than
		 * 512 MiB (the recorder exports no process count) */
		if (r->during_job)
			snprintf(expr, sizeof(expr),
				 "avg_over_time((gputally_gpu_utilization_percent and on(gpu, uuid, host)"
				 " gputally_gpu_memory_used_bytes > 536870912)[%s:1m]) < %.4f", dur, thr);
		else
			snprintf(expr, sizeof(expr), "avg_over_time(gputally_gpu_utilization_percent[%s]) < %.4f",
				 dur, thr);
		rule_head(out, r, expr);
		snprintf(text, sizeof(text), ON_GPU ": utilization {{ $value }} %% %sover %s, below %s %.4f %%",
			 r->during_job ? "while a job held it " : "", dur, r->use_ustar ? "the break-even u* =" : "", thr);
		summary(out, text);
		return;
	case AK_STALE:
		/* the age at scrape time (timestamp() - value), so a scrape
		 * interval longer than the recorder's never looks stale */
		snprintf(expr, sizeof(expr),
			 "(timestamp(gputally_recorder_last_write_success_timestamp_seconds{sink=\"csv\"})"
			 " - gputally_recorder_last_write_success_timestamp_seconds{sink=\"csv\"})"
			 " > on(instance, job, host) (%d / rate(gputally_recorder_ticks_total[5m]))"
			 " or up{job=\"gputally\"} == 0", r->intervals);
		rule_head(out, r, expr);
		snprintf(text, sizeof(text), "recorder on {{ $labels.instance }}: CSV not written for"
			 " more than %d intervals, or the recorder does not answer", r->intervals);
		summary(out, text);
		return;
	}
	fprintf(out, "      # %s (kind %s): no recorder metric carries it; 'gputally alert' reads it"
		" from the files\n", r->id, alert_kind_name[r->kind]);
}

void alert_prometheus_rules(FILE *out, const struct alert_rules *rs, double u_star,
			    const char *profile)
{
	fprintf(out, "# Prometheus alerting rules written by 'gputally alert --prometheus-rules%s%s'\n"
		     "# from %s, over the metric names of 'gputally record --listen' (docs/alert.md).\n"
		     "groups:\n  - name: gputally-alerts\n    rules:\n",
		profile ? " --profile " : "", profile ? profile : "", rs->src);
	for (size_t i = 0; i < rs->n; i++)
		prom_rule(out, &rs->r[i], u_star);
}

/* the text names no profile */
static void alert_text_row(FILE *out, const struct alert_eval *ev, const char *profile)
{
	(void)profile;
	alert_text(out, ev);
}

const struct alert_writer alert_writers[] = {
	{ "text", alert_text_row, true },
	{ "json", alert_json, false },
};
const size_t alert_nwriters = sizeof(alert_writers) / sizeof(alert_writers[0]);

const struct alert_writer *alert_writer_find(const char *name)
{
	for (size_t i = 0; i < alert_nwriters; i++)
		if (!strcmp(alert_writers[i].name, name))
			return &alert_writers[i];
	return NULL;
}
