/* SPDX-License-Identifier: MIT */
/* Who spent it, rendered: text, Markdown and JSON of report.attrib (attrib.c computes it; html.c draws its own). */
#include "report/report.h"

#include <math.h>
#include <string.h>

#include "util/jsonw.h"
#include "util/numfmt.h"
#include "util/timeutil.h"

/* The JSON keys of the dimensions (report-json.md "attribution"). */
static const char *const by_key[AB__COUNT] = {
	[AB_USER] = "by_user", [AB_ACCOUNT] = "by_account", [AB_JOB] = "by_job", [AB_TASK] = "by_task",
	[AB_CTR] = "by_container", [AB_PROC] = "by_process",
};

static void text_row(FILE *out, const struct report *r, const char *key, const struct attrib_row *row)
{
	char a[32], b[32], c[32], m[64];

	fprintf(out, "  %-32.32s %10s %10s %9s %14s\n", key,
		time_human_dur(a, sizeof(a), (int64_t)(row->held_s * 1e9 + 0.5)),
		time_human_dur(b, sizeof(b), (int64_t)(row->useful_s * 1e9 + 0.5)),
		nf_num(c, sizeof(c), row->energy_j / 3.6e6, 3), nf_money(m, sizeof(m), row->cost, r->params.currency));
}

void report_attrib_text(FILE *out, const struct report *r)
{
	const struct report_attrib *a = &r->attrib;

	if (a->unknown_why)
		fprintf(out, "\nWho spent it: unknown (%s)\n", a->unknown_why);
	if (!a->nrows[AB_PROC])
		return;
	fprintf(out, "\nWho spent it (the GPU time each held, split by measured sm %% where known, else evenly;\n"
		"  the owned cost split as it adds up: fixed by GPU time, electricity by energy; --json has every row)\n");
	if (a->from_jobs[AB_JOB])
		fprintf(out, "  users and jobs from the batch jobs' allocations (on the GPUs jobstats or DCGM named, else n of the node's G GPUs take n/G of each)\n");
	if (a->jobs_outside)
		fprintf(out, "  %zu batch job(s) ran outside the telemetry's time: not in the tables\n", a->jobs_outside);
	for (int d = 0; d < AB__COUNT; d++) {
		const struct attrib_row *rows = a->rows[d];
		size_t n = a->nrows[d] - 1;
		if (!a->show[d])
			continue;
		fprintf(out, "  %-32s %10s %10s %9s %14s\n", attrib_by_name[d], "GPU time", "useful", "kWh", "cost");
		for (size_t i = 0; i < a->top[d]; i++)
			text_row(out, r, rows[i].key, &rows[i]);
		if (n > a->top[d])
			text_row(out, r, a->more[d].key, &a->more[d]);
		text_row(out, r, rows[n].key, &rows[n]);
		text_row(out, r, a->total[d].key, &a->total[d]);
	}
}

static void md_cell(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (strchr("\\`*_{}[]()<>#+!|~&", *s))
			fputc('\\', out);
		fputc((unsigned char)*s < 0x20 ? ' ' : *s, out);
	}
}

void report_attrib_markdown(FILE *out, const struct report *r)
{
	const struct report_attrib *a = &r->attrib;

	if (a->unknown_why)
		fprintf(out, "\n## Who spent it\n\nUnknown: %s.\n", a->unknown_why);
	if (!a->nrows[AB_PROC])
		return;
	fprintf(out, "\n## Who spent it\n\nThe GPU time each held (split by measured sm %% where known, else evenly), "
		"its useful time, energy and share of the owned cost; what no process held is its own line. "
		"`--json` has every row under `attribution`.\n");
	for (int d = 0; d < AB__COUNT; d++) {
		const struct attrib_row *rows = a->rows[d];
		size_t n = a->nrows[d];
		if (!r->attrib.show[d])
			continue;
		fprintf(out, "\n| %s | GPU h | useful h | kWh | cost |\n|---|--:|--:|--:|--:|\n", attrib_by_name[d]);
		for (size_t i = 0; i < n; i++) {
			char b1[32], b2[32], b3[32], m[64];
			if (i >= ATTRIB_MD_ROWS && i + 1 < n)
				continue;
			fprintf(out, "| ");
			md_cell(out, rows[i].key);
			fprintf(out, " | %s | %s | %s | %s |\n", nf_num(b1, sizeof(b1), rows[i].held_s / 3600, 2),
				nf_num(b2, sizeof(b2), rows[i].useful_s / 3600, 2),
				nf_num(b3, sizeof(b3), rows[i].energy_j / 3.6e6, 3),
				nf_money(m, sizeof(m), rows[i].cost, r->params.currency));
		}
		{
			const struct attrib_row *t = &a->total[d];
			char b1[32], b2[32], b3[32], m[64];
			fprintf(out, "| total | %s | %s | %s | %s |\n", nf_num(b1, sizeof(b1), t->held_s / 3600, 2),
				nf_num(b2, sizeof(b2), t->useful_s / 3600, 2), nf_num(b3, sizeof(b3), t->energy_j / 3.6e6, 3),
				nf_money(m, sizeof(m), t->cost, r->params.currency));
		}
		if (n - 1 > ATTRIB_MD_ROWS)
			fprintf(out, "\n%zu more in --json.\n", n - 1 - ATTRIB_MD_ROWS);
	}
}

void report_attrib_json(struct jsonw *w, const struct report *r)
{
	const struct report_attrib *a = &r->attrib;

	if (a->unknown_why) {
		/* no split: said, not a list of zeros */
		jsonw_key(w, "attribution");
		jsonw_obj_begin(w);
		jsonw_kstr(w, "unknown", a->unknown_why);
		jsonw_obj_end(w);
	}
	if (!a->nrows[AB_PROC])
		return;
	jsonw_key(w, "attribution");
	jsonw_obj_begin(w);
	jsonw_kbool(w, "energy_estimated", a->energy_estimated);
	/* who owns the user and job splits: Slurm's allocations, or the processes */
	jsonw_kstr(w, "users_jobs_from", a->from_jobs[AB_JOB] ? "batch jobs" : "processes");
	jsonw_kint(w, "jobs_outside", (int64_t)a->jobs_outside);
	for (int d = 0; d < AB__COUNT; d++) {
		jsonw_key(w, by_key[d]);
		jsonw_arr_begin(w);
		for (size_t i = 0; i < a->nrows[d]; i++) {
			const struct attrib_row *row = &a->rows[d][i];
			jsonw_obj_begin(w);
			jsonw_kstr(w, "key", row->key);
			jsonw_kbool(w, "none", row->none);
			jsonw_kint(w, "processes", (int64_t)row->nprocs);
			jsonw_knum(w, "held_s", row->held_s, 3);
			jsonw_knum(w, "useful_s", row->useful_s, 3);
			jsonw_knum(w, "energy_j", row->energy_j, 1);
			jsonw_knum(w, "cost", row->cost, 6);
			if (!isnan(row->reported_energy_j))
				jsonw_knum(w, "reported_energy_j", row->reported_energy_j, 1);
			jsonw_obj_end(w);
		}
		jsonw_arr_end(w);
	}
	/* each list summed: the window's covered seconds, useful seconds, energy and local_cost */
	jsonw_key(w, "totals");
	jsonw_obj_begin(w);
	for (int d = 0; d < AB__COUNT; d++) {
		const struct attrib_row *t = &a->total[d];
		jsonw_key(w, by_key[d]);
		jsonw_obj_begin(w);
		jsonw_knum(w, "held_s", t->held_s, 3);
		jsonw_knum(w, "useful_s", t->useful_s, 3);
		jsonw_knum(w, "energy_j", t->energy_j, 1);
		jsonw_knum(w, "cost", t->cost, 6);
		jsonw_obj_end(w);
	}
	jsonw_obj_end(w);
	jsonw_obj_end(w);
}
