/* SPDX-License-Identifier: MIT */
/*
 * gputally trend's writers: text with a bar per row, JSON and CSV, each by
 * bucket or (--by task) by task; every figure from trend_report_compute().
 */
#include "report/trend_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/catalog_out.h"
#include "util/jsonw.h"
#include "util/numfmt.h"
#include "util/timeutil.h"
#include "util/version.h"

static const char *const by_name[] = { "hour", "day", "week", "month" };

/* A bucket's name: its date (and hour), in the zone of the query. */
static void label(char *buf, size_t cap, const struct trend_report *t, const struct trend_row *r)
{
	int y, m, d, by = t->q->by;
	long off = t->q->local ? time_utc_offset_s(r->t_s) : 0;
	int64_t lt = r->t_s + off;
	char zone[16] = "Z";

	if (off)	/* |off| < 24 h */
		snprintf(zone, sizeof(zone), "%c%02d:%02d", off < 0 ? '-' : '+', (int)(labs(off) / 3600 % 24),
			 (int)(labs(off) % 3600 / 60));
	civil_from_days((lt - ((lt % 86400) + 86400) % 86400) / 86400, &y, &m, &d);
	if (by == TREND_HOUR)
		snprintf(buf, cap, "%04d-%02d-%02dT%02d%s", y, m, d, (int)((lt % 86400 + 86400) % 86400 / 3600), zone);
	else if (by == TREND_MONTH)
		snprintf(buf, cap, "%04d-%02d", y, m);
	else if (by == TREND_WEEK)
		snprintf(buf, cap, "week %04d-%02d-%02d", y, m, d);
	else
		snprintf(buf, cap, "%04d-%02d-%02d", y, m, d);
}

static void bar(char *buf, size_t width, double frac)
{
	size_t n = isnan(frac) ? 0 : (size_t)(frac * (double)width + 0.5);
	if (n > width)
		n = width;
	memset(buf, '#', n);
	memset(buf + n, '.', width - n);
	buf[width] = 0;
}

/* a table cell: util/numfmt.h's rule, "-" where there is no figure */
static const char *num(char *buf, size_t cap, double v, int dec)
{
	return isnan(v) ? "-" : nf_num(buf, cap, v, dec);
}

/* A CSV cell: empty for a number that is not known (NaN), never "nan". */
static const char *csv_num(char buf[24], double v, int dec)
{
	if (!isfinite(v))
		buf[0] = '\0';
	else
		snprintf(buf, 24, "%.*f", dec, v);
	return buf;
}

/* ---- text ---------------------------------------------------------------- */

static void text_row(FILE *out, const char *lab, const struct trend_row *r, const struct trend_priced *p)
{
	char b[24], n1[24], n2[24], n3[24], n4[24], n5[24], n6[24], n7[24], n8[24];

	bar(b, 20, p->busy_share);
	fprintf(out, "%-18s %4d %9s %6s %6s %9s %9s %10s %10s %10s  %s\n", lab, r->gpus,
		num(n1, sizeof(n1), r->covered_s / 3600, 2), num(n2, sizeof(n2), p->util_pct, 1),
		num(n3, sizeof(n3), 100 * p->busy_share, 1), num(n4, sizeof(n4), p->mem_max_mib / 1024, 1),
		num(n5, sizeof(n5), p->energy_kwh, 3), num(n6, sizeof(n6), p->owned, 2),
		num(n7, sizeof(n7), p->rented, 2), num(n8, sizeof(n8), p->idle_money, 2), b);
}

static void text_head(FILE *out, const char *first)
{
	fprintf(out, "%-18s %4s %9s %6s %6s %9s %9s %10s %10s %10s  %s\n", first, "GPUs", "GPU-h", "util%", "busy%",
		"mem GiB", "kWh", "owned", "rented", "idle money", "busy share");
}

/*
 * --by task: one row per task (a process name, or a logger's task label)
 * over the window, most busy first, and the total of every GPU-hour beside
 * them.  A task's GPU-hours are the minutes it was present on each GPU, so a
 * GPU shared by two tasks at once counts in both rows, and the time no task
 * was seen in none: the rows need not add up to the total.
 */
/* --cloud-catalog: the rate it gave the rented column, or why none. */
static void text_catalog(FILE *out, const struct trend_report *t)
{
	const struct cloud_catalog *c = t->catalog;
	const struct catalog_pick *k = &t->cat_pick;
	char a[64], b[64], m[64];

	if (!c)
		return;
	if (t->cat_state < 0) {
		fprintf(out, "cloud: %s (%s) has no accelerator matching %s: the cloud rate is not from it\n", c->name,
			c->date, t->cat_gpu[0] ? t->cat_gpu : "the GPU (the store names no GPU model)");
		return;
	}
	fprintf(out, "cloud: %s%s per GPU-hour from %s (%s, from the %s): median of %zu %s row(s), %s-%s, for %s%s\n",
		t->cat_state ? "" : "not used, ", nf_money(m, sizeof(m), k->median, t->cp->currency), c->name, c->date,
		c->date_from, k->nrows, k->accel, nf_money(a, sizeof(a), k->min, NULL),
		nf_money(b, sizeof(b), k->max, t->cp->currency), t->cat_gpu,
		t->cat_state ? "" : "; cloud_hourly_rate was --set");
}

static void json_catalog(struct jsonw *w, const struct trend_report *t)
{
	const struct cloud_catalog *c = t->catalog;
	bool hit = t->cat_state >= 0;

	jsonw_key(w, "catalog");
	if (!c) {
		jsonw_null(w);
		return;
	}
	catalog_json_file(w, c);
	jsonw_kstr(w, "gpu_name", t->cat_gpu[0] ? t->cat_gpu : NULL);
	catalog_json_pick(w, &t->cat_pick, hit);
	jsonw_kbool(w, "used", t->cat_state > 0);
	jsonw_obj_end(w);
}

static void text_by_task(FILE *out, const struct trend_report *t)
{
	const struct cost_params *cp = t->cp;
	const char *what = t->owner ? t->owner : "task";	/* --by user, job, account: the same table */

	fprintf(out, "gputally trend by %s%s%s (the whole window); profile %s%s%s\n", what, t->q->gpu ? ", GPU " : "",
		t->q->gpu ? t->q->gpu : "", cp->name[0] ? cp->name : "defaults", cp->currency[0] ? ", money in " : "",
		cp->currency);
	text_catalog(out, t);
	text_head(out, what);
	for (size_t i = 0; i < t->nt; i++)
		text_row(out, t->tasks[i].name, &t->tasks[i], &t->ptask[i]);
	text_row(out, "all GPU time", &t->tot, &t->ptot);
	if (!t->nt && !t->owner)
		fprintf(out, "(no task in this window: the logs named no process and no task label)\n");
	else if (!t->nt)
		fprintf(out, "(no process in this window: no %s to name)\n", what);
}

static void trend_text(FILE *out, const struct trend_report *t)
{
	const struct trend_query *q = t->q;
	const struct cost_params *cp = t->cp;
	char lab[48];

	if (t->by_task) {
		text_by_task(out, t);
		return;
	}
	fprintf(out, "gputally trend by %s%s%s%s%s (%s); profile %s%s%s\n", by_name[q->by], q->task ? ", task " : "",
		q->task ? q->task : "", q->gpu ? ", GPU " : "", q->gpu ? q->gpu : "", t->zone,
		cp->name[0] ? cp->name : "defaults", cp->currency[0] ? ", money in " : "", cp->currency);
	text_catalog(out, t);
	text_head(out, "bucket");
	for (size_t i = 0; i < t->n; i++) {
		label(lab, sizeof(lab), t, &t->rows[i]);
		text_row(out, lab, &t->rows[i], &t->prow[i]);
	}
	text_row(out, "total", &t->tot, &t->ptot);
	if (t->nt) {
		fprintf(out, "\nper task (process name or task label) over the window\n");
		text_head(out, "task");
		for (size_t i = 0; i < t->nt; i++)
			text_row(out, t->tasks[i].name, &t->tasks[i], &t->ptask[i]);
	}
	if (!t->n)
		fprintf(out, "(no stored minutes in this window)\n");
}

/* ---- JSON ---------------------------------------------------------------- */

/* kind 0: a bucket, 1: a task, 2: the total */
static void json_row(struct jsonw *w, const struct trend_report *t, const struct trend_row *r,
		     const struct trend_priced *p, int kind)
{
	char lab[48];

	jsonw_obj_begin(w);
	if (kind == 0) {
		label(lab, sizeof(lab), t, r);
		jsonw_ktime(w, "start", r->t_s * NS_PER_S);
		jsonw_kstr(w, "label", lab);
	} else if (kind == 1) {
		jsonw_kstr(w, t->owner ? t->owner : "task", r->name);	/* a task, or --by user/job */
	}
	jsonw_kint(w, "gpus", r->gpus);
	jsonw_knum(w, "gpu_hours", r->covered_s / 3600, 6);
	jsonw_knum(w, "busy_gpu_hours", r->busy_s / 3600, 6);
	jsonw_knum(w, "util_mean_pct", p->util_pct, 3);
	jsonw_knum(w, "busy_share", p->busy_share, 6);
	jsonw_knum(w, "mem_max_mib", p->mem_max_mib, 1);
	jsonw_knum(w, "energy_kwh", p->energy_kwh, 6);
	jsonw_kstr(w, "energy_source", p->energy_source);
	jsonw_knum(w, "owned_cost", p->owned, 4);
	jsonw_knum(w, "rented_cost", p->rented, 4);
	jsonw_knum(w, "idle_cost", p->idle_money, 4);
	jsonw_obj_end(w);
}

static void json_tasks(struct jsonw *w, const struct trend_report *t)
{
	jsonw_key(w, !t->owner ? "tasks" : !strcmp(t->owner, "user") ? "users" : !strcmp(t->owner, "account") ? "accounts"
										  : "jobs");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < t->nt; i++)
		json_row(w, t, &t->tasks[i], &t->ptask[i], 1);
	jsonw_arr_end(w);
}

static void trend_json(FILE *out, const struct trend_report *t)
{
	const struct cost_params *cp = t->cp;
	struct jsonw w;

	jsonw_init(&w, out, true);
	jsonw_obj_begin(&w);
	jsonw_version(&w);
	if (t->by_task) {
		jsonw_kstr(&w, "by", t->owner ? t->owner : "task");
		jsonw_kstr(&w, "gpu", t->q->gpu);
		jsonw_kstr(&w, "profile", cp->name[0] ? cp->name : NULL);
		jsonw_kstr(&w, "currency", cp->currency[0] ? cp->currency : NULL);
		json_catalog(&w, t);
		json_tasks(&w, t);
		jsonw_key(&w, "total");
		json_row(&w, t, &t->tot, &t->ptot, 2);
	} else {
		jsonw_kstr(&w, "by", by_name[t->q->by]);
		jsonw_kstr(&w, "tz", t->zone);
		jsonw_kstr(&w, "task", t->q->task);
		jsonw_kstr(&w, "gpu", t->q->gpu);
		jsonw_kstr(&w, "profile", cp->name[0] ? cp->name : NULL);
		jsonw_kstr(&w, "currency", cp->currency[0] ? cp->currency : NULL);
		json_catalog(&w, t);
		jsonw_knum(&w, "idle_power_w", cp->idle_power_w, 2);
		jsonw_knum(&w, "busy_power_w", cp->busy_power_w, 2);
		jsonw_key(&w, "buckets");
		jsonw_arr_begin(&w);
		for (size_t i = 0; i < t->n; i++)
			json_row(&w, t, &t->rows[i], &t->prow[i], 0);
		jsonw_arr_end(&w);
		jsonw_key(&w, "total");
		json_row(&w, t, &t->tot, &t->ptot, 2);
		json_tasks(&w, t);
	}
	jsonw_obj_end(&w);
	jsonw_flush(&w);
	fputc('\n', out);
}

/* ---- CSV ----------------------------------------------------------------- */

/* A name from the logs (or a file's) as one CSV field: quoted (RFC 4180)
 * when it holds a comma, quote or line break; NULL is an empty cell. */
static void csv_name(FILE *out, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/*
 * The window's details that trend --json carries once at its top (the
 * zone, the --task and --gpu asked for, the profile, currency, powers and
 * the --cloud-catalog object), as the
 * last columns of every CSV row, so that a row read alone says what priced
 * it.  Their names: docs/store.md "trend --csv".
 */
static const char csv_detail_cols[] = "tz,task_filter,gpu_filter,profile,currency,idle_power_w,busy_power_w,catalog_file,catalog_date,"
				      "catalog_date_from,catalog_rows,catalog_bad_rows,catalog_gpu_name,"
				      "catalog_accelerator,catalog_matched_rows,catalog_median,catalog_min,"
				      "catalog_max,catalog_used";

static void csv_details(FILE *out, const struct trend_report *t)
{
	const struct cloud_catalog *c = t->catalog;
	const struct catalog_pick *k = &t->cat_pick;
	const struct cost_params *cp = t->cp;
	bool hit = c && t->cat_state >= 0;
	char v[5][24];

	csv_name(out, t->zone);
	fputc(',', out);
	csv_name(out, t->by_task ? NULL : t->q->task);
	fputc(',', out);
	csv_name(out, t->q->gpu);
	fputc(',', out);
	csv_name(out, cp->name[0] ? cp->name : NULL);
	fputc(',', out);
	csv_name(out, cp->currency[0] ? cp->currency : NULL);
	fprintf(out, ",%s,%s,", csv_num(v[0], cp->idle_power_w, 2), csv_num(v[1], cp->busy_power_w, 2));
	if (!c) {
		fputs(",,,,,,,,,,,\n", out);	/* no catalogue: its 12 cells empty */
		return;
	}
	csv_name(out, c->name);
	fprintf(out, ",%s,%s,%zu,%llu,", c->date, c->date_from ? c->date_from : "", c->nrows,
		(unsigned long long)c->nbad);
	csv_name(out, t->cat_gpu[0] ? t->cat_gpu : NULL);
	fputc(',', out);
	csv_name(out, hit ? k->accel : NULL);
	fprintf(out, ",%zu,%s,%s,%s,%s\n", k->nrows, csv_num(v[2], hit ? k->median : NAN, 6),
		csv_num(v[3], hit ? k->min : NAN, 6), csv_num(v[4], hit ? k->max : NAN, 6),
		t->cat_state > 0 ? "true" : "false");
}

/* every number through csv_num(): an unknown one is an empty cell */
static void csv_cells(FILE *out, const struct trend_report *t, const struct trend_row *r,
		      const struct trend_priced *p)
{
	char v[9][24];

	fprintf(out, "%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,", r->gpus, csv_num(v[0], r->covered_s / 3600, 6),
		csv_num(v[1], r->busy_s / 3600, 6), csv_num(v[2], p->util_pct, 3), csv_num(v[3], p->busy_share, 6),
		csv_num(v[4], p->mem_max_mib, 1), csv_num(v[5], p->energy_kwh, 6), p->energy_source,
		csv_num(v[6], p->owned, 4), csv_num(v[7], p->rented, 4), csv_num(v[8], p->idle_money, 4));
	csv_details(out, t);
}

static void trend_csv(FILE *out, const struct trend_report *t)
{
	const char *cols = "gpus,gpu_hours,busy_gpu_hours,util_mean_pct,busy_share,mem_max_mib,energy_kwh,"
			   "energy_source,owned_cost,rented_cost,idle_cost";

	if (t->by_task) {
		fprintf(out, "%s,%s,%s\n", t->owner ? t->owner : "task", cols, csv_detail_cols);
		for (size_t i = 0; i < t->nt; i++) {
			csv_name(out, t->tasks[i].name);
			fputc(',', out);
			csv_cells(out, t, &t->tasks[i], &t->ptask[i]);
		}
		return;
	}
	fprintf(out, "start,label,%s,%s\n", cols, csv_detail_cols);
	for (size_t i = 0; i < t->n; i++) {
		char lab[48], ts[40];
		label(lab, sizeof(lab), t, &t->rows[i]);
		time_rfc3339(ts, sizeof(ts), t->rows[i].t_s * NS_PER_S);
		fprintf(out, "%s,%s,", ts, lab);
		csv_cells(out, t, &t->rows[i], &t->prow[i]);
	}
}

const struct trend_writer trend_writers[] = {
	{ "text", trend_text, true },
	{ "json", trend_json, false },
	{ "csv", trend_csv, true },
};
const size_t trend_nwriters = sizeof(trend_writers) / sizeof(trend_writers[0]);

const struct trend_writer *trend_writer_find(const char *name)
{
	for (size_t i = 0; i < trend_nwriters; i++)
		if (!strcmp(trend_writers[i].name, name))
			return &trend_writers[i];
	return NULL;
}
