/* SPDX-License-Identifier: MIT */
/*
 * The fleet view's writers (report --prometheus): the per-node, namespace,
 * pod and MIG rows that report_fleet_compute() (fleet.c) filled, as text,
 * Markdown and JSON.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "util/jsonw.h"
#include "util/numfmt.h"

static const char *money(char *buf, size_t cap, const struct report *r, double v)
{
	return nf_money(buf, cap, v, r->params.currency);
}

/*
 * GPU-hours, busy % (busy: only for a node; a pod's span knows its states,
 * not utilization), idle + held-idle %, cost, lost to idle.
 */
static void row_cells(char *out, size_t cap, const struct report *r, const struct fleet_row *row, bool busy,
		      const char *sep)
{
	char a[48], b[48], u[32] = "";
	if (busy)
		snprintf(u, sizeof(u), "%.1f%s", row->busy_pct, sep);
	snprintf(out, cap, "%.2f%s%s%.1f%s%s%s%s", row->covered_s / 3600, sep, u, row->lost_pct, sep,
		 money(a, sizeof(a), r, row->cost), sep, money(b, sizeof(b), r, row->idle_cost));
}

void report_fleet_text(FILE *out, const struct report *r)
{
	char cells[256];

	if (!r->fleet)
		return;
	fprintf(out, "\nFleet (%s, step %.3g s): %zu node(s), ranked by money lost to idle and held-idle time\n",
		r->fleet->url, (double)r->fleet->step_ns / 1e9, r->nnodes);
	fprintf(out, "  %-4s %-28s %5s %10s %7s %7s %14s %14s\n", "rank", "node", "GPUs", "GPU-hours", "busy%",
		"idle%", "cost", "lost to idle");
	for (size_t i = 0; i < r->nnodes; i++) {
		const struct fleet_row *n = &r->nodes[i];
		char a[48], b[48];
		fprintf(out, "  %-4zu %-28s %5d %10.2f %7.1f %7.1f %14s %14s\n", i + 1, n->name, n->ngpus,
			n->covered_s / 3600, n->busy_pct, n->lost_pct,
			money(a, sizeof(a), r, n->cost), money(b, sizeof(b), r, n->idle_cost));
	}
	{
		const struct fleet_row *t = &r->fleet_total;
		char a[48], b[48];
		fprintf(out, "  %-4s %-28s %5d %10.2f %7.1f %7.1f %14s %14s\n", "", "total", t->ngpus, t->covered_s / 3600,
			t->busy_pct, t->lost_pct,
			money(a, sizeof(a), r, t->cost), money(b, sizeof(b), r, t->idle_cost));
	}
	if (r->nnss) {
		fprintf(out, "  per namespace (GPU-hours, idle+held-idle %%, cost, lost to idle):\n");
		for (size_t i = 0; i < r->nnss; i++) {
			row_cells(cells, sizeof(cells), r, &r->nss[i], false, "  ");
			fprintf(out, "    %-30s %s\n", r->nss[i].name, cells);
		}
		fprintf(out, "  per pod:\n");
		for (size_t i = 0; i < r->npods && i < 20; i++)
			fprintf(out, "    %-40s %.2f GPU-h, idle %.0f s, held idle %.0f s, lost %s\n", r->pods[i].name,
				r->pods[i].covered_s / 3600, r->pods[i].state_s[ST_IDLE],
				r->pods[i].state_s[ST_HELD_IDLE], money(cells, sizeof(cells), r, r->pods[i].idle_cost));
		if (r->npods > 20)
			fprintf(out, "    %zu more pods in --json\n", r->npods - 20);
	}
	for (size_t i = 0; i < r->nmigs; i++) {
		const struct fleet_row *m = &r->migs[i];
		char a[48], b[48];
		fprintf(out, "  MIG %s (%s): cost %s, its slices %.0f %% of its compute, unsliced %s\n", m->parent,
			m->node[0] ? m->node : "?", money(a, sizeof(a), r, m->cost), 100 * m->share,
			money(b, sizeof(b), r, m->unsliced_cost));
		for (size_t k = 0; k < r->nslices; k++) {
			const struct fleet_row *sl = &r->slices[k];
			if (strcmp(sl->parent, m->parent))
				continue;
			fprintf(out, "    GI %-3d %-10s %5.3f  %.2f h, busy %.1f %%, idle+held idle %.1f %%, cost %s, lost %s\n",
				sl->gi_id, sl->profile, sl->share, sl->covered_s / 3600, sl->busy_pct, sl->lost_pct,
				money(a, sizeof(a), r, sl->cost), money(b, sizeof(b), r, sl->idle_cost));
		}
	}
	if (r->fleet->failed_chunks)
		fprintf(out, "  %llu of %llu time chunk(s) could not be read: those windows are gaps\n",
			(unsigned long long)r->fleet->failed_chunks, (unsigned long long)r->fleet->chunks);
}

static void md_cell(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (strchr("\\`*_{}[]()<>#+!|~&", *s))
			fputc('\\', out);
		fputc((unsigned char)*s < 0x20 ? ' ' : *s, out);
	}
}

void report_fleet_markdown(FILE *out, const struct report *r)
{
	char cells[256];

	if (!r->fleet)
		return;
	fprintf(out, "\n## Fleet\n\nNodes ranked by money lost to idle and held-idle time.\n\n");
	fprintf(out, "| rank | node | GPUs | GPU-hours | busy %% | idle %% | cost | lost to idle |\n");
	fprintf(out, "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	for (size_t i = 0; i < r->nnodes; i++) {
		fprintf(out, "| %zu | ", i + 1);
		md_cell(out, r->nodes[i].name);
		row_cells(cells, sizeof(cells), r, &r->nodes[i], true, " | ");
		fprintf(out, " | %d | %s |\n", r->nodes[i].ngpus, cells);
	}
	row_cells(cells, sizeof(cells), r, &r->fleet_total, true, " | ");
	fprintf(out, "|  | **total** | %d | %s |\n", r->fleet_total.ngpus, cells);
	if (r->nnss) {
		fprintf(out, "\n| namespace | GPU-hours | idle %% | cost | lost to idle |\n");
		fprintf(out, "| --- | ---: | ---: | ---: | ---: |\n");
		for (size_t i = 0; i < r->nnss; i++) {
			fprintf(out, "| ");
			md_cell(out, r->nss[i].name);
			row_cells(cells, sizeof(cells), r, &r->nss[i], false, " | ");
			fprintf(out, " | %s |\n", cells);
		}
		fprintf(out, "\n| pod | GPU-hours | idle %% | cost | lost to idle |\n");
		fprintf(out, "| --- | ---: | ---: | ---: | ---: |\n");
		for (size_t i = 0; i < r->npods && i < FLEET_PODS_LISTED; i++) {
			fprintf(out, "| ");
			md_cell(out, r->pods[i].name);
			row_cells(cells, sizeof(cells), r, &r->pods[i], false, " | ");
			fprintf(out, " | %s |\n", cells);
		}
		if (r->npods > FLEET_PODS_LISTED)
			fprintf(out, "\n%zu more pods in `--json`.\n", r->npods - FLEET_PODS_LISTED);
	}
	if (r->nmigs) {
		fprintf(out, "\n| MIG GPU / slice | profile | share | GPU-hours | busy %% | idle %% | cost | lost to idle |\n");
		fprintf(out, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	}
	for (size_t i = 0; i < r->nmigs; i++) {
		const struct fleet_row *m = &r->migs[i];
		fprintf(out, "| **");
		md_cell(out, m->parent);
		fprintf(out, "** | unsliced: %s | %.3f | ", money(cells, sizeof(cells), r, m->unsliced_cost), m->share);
		row_cells(cells, sizeof(cells), r, m, true, " | ");
		fprintf(out, "%s |\n", cells);
		for (size_t k = 0; k < r->nslices; k++) {
			const struct fleet_row *sl = &r->slices[k];
			if (strcmp(sl->parent, m->parent))
				continue;
			fprintf(out, "| GI %d | ", sl->gi_id);
			md_cell(out, sl->profile);
			row_cells(cells, sizeof(cells), r, sl, true, " | ");
			fprintf(out, " | %.3f | %s |\n", sl->share, cells);
		}
	}
}

/* A row's seconds in each state, and what they cost: node, pod and slice rows alike */
static void json_states_cost(struct jsonw *w, const struct fleet_row *row)
{
	jsonw_key(w, "states");
	jsonw_obj_begin(w);
	for (int s = 0; s < ST__COUNT; s++)
		jsonw_knum(w, state_name[s], row->state_s[s], 3);
	jsonw_obj_end(w);
	jsonw_knum(w, "idle_s", row->state_s[ST_IDLE], 3);
	jsonw_knum(w, "held_idle_s", row->state_s[ST_HELD_IDLE], 3);
	jsonw_knum(w, "cost", row->cost, 6);
	jsonw_knum(w, "idle_cost", row->idle_cost, 6);
}

/* kind 0: a node, 1: a namespace, 2: a pod, 3: the total (a node's keys, no name) */
static void json_row(struct jsonw *w, const struct fleet_row *row, int kind)
{
	bool node = kind == 0 || kind == 3;

	jsonw_obj_begin(w);
	if (kind != 3)
		jsonw_kstr(w, kind == 0 ? "node" : kind == 1 ? "namespace" : "pod", row->name);
	if (kind == 2)
		jsonw_kstr(w, "namespace", row->ns);
	if (kind != 1)
		jsonw_kint(w, node ? "gpus" : "spans", row->ngpus);
	jsonw_knum(w, "covered_s", row->covered_s, 3);
	if (node) {
		jsonw_knum(w, "gaps_s", row->gaps_s, 3);
		jsonw_knum(w, "busy_s", row->busy_s, 3);
		jsonw_knum(w, "energy_j", row->energy_j, 3);
	}
	json_states_cost(w, row);
	jsonw_obj_end(w);
}

/* fleet.mig[]: per GPU in MIG mode, its cost and its slices (by GPU_I_ID) */
static void json_mig(struct jsonw *w, const struct report *r)
{
	jsonw_key(w, "mig");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < r->nmigs; i++) {
		const struct fleet_row *m = &r->migs[i];
		jsonw_obj_begin(w);
		jsonw_kstr(w, "gpu", m->parent);
		jsonw_kstr(w, "node", m->node[0] ? m->node : NULL);
		jsonw_knum(w, "covered_s", m->covered_s, 3);
		jsonw_knum(w, "busy_s", m->busy_s, 3);
		jsonw_knum(w, "cost", m->cost, 6);
		jsonw_knum(w, "sliced_share", m->share, 6);
		jsonw_knum(w, "unsliced_cost", m->unsliced_cost, 6);
		jsonw_key(w, "slices");
		jsonw_arr_begin(w);
		for (size_t k = 0; k < r->nslices; k++) {
			const struct fleet_row *sl = &r->slices[k];
			if (strcmp(sl->parent, m->parent))
				continue;
			jsonw_obj_begin(w);
			jsonw_kstr(w, "slice", sl->name);
			jsonw_kint(w, "gi", sl->gi_id);
			jsonw_kstr(w, "profile", sl->profile);
			jsonw_knum(w, "share", sl->share, 6);
			jsonw_knum(w, "covered_s", sl->covered_s, 3);
			jsonw_knum(w, "gaps_s", sl->gaps_s, 3);
			jsonw_knum(w, "busy_s", sl->busy_s, 3);
			json_states_cost(w, sl);
			jsonw_obj_end(w);
		}
		jsonw_arr_end(w);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

void report_fleet_json(struct jsonw *w, const struct report *r)
{
	const struct prom_fleet *f = r->fleet;

	if (!f)
		return;
	jsonw_key(w, "fleet");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "prometheus", f->url);
	jsonw_knum(w, "step_s", (double)f->step_ns / 1e9, 3);
	jsonw_ktime(w, "query_start", f->start_ns);
	jsonw_ktime(w, "query_end", f->end_ns);
	jsonw_kint(w, "requests", (int64_t)f->requests);
	jsonw_kint(w, "retries", (int64_t)f->retries);
	jsonw_kint(w, "chunks", (int64_t)f->chunks);
	jsonw_kint(w, "failed_chunks", (int64_t)f->failed_chunks);
	jsonw_kint(w, "bad_values", (int64_t)f->bad_values);
	jsonw_kint(w, "skipped_series", (int64_t)f->skipped_series);
	jsonw_kint(w, "off_step_values", (int64_t)f->off_step);
	jsonw_key(w, "gpus");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < f->ngpus; i++) {
		jsonw_obj_begin(w);
		jsonw_kstr(w, "key", f->gpus[i].key);
		jsonw_kstr(w, "node", f->gpus[i].node[0] ? f->gpus[i].node : NULL);
		jsonw_kint(w, "index", f->gpus[i].index);
		if (f->gpus[i].parent >= 0) {
			jsonw_kstr(w, "slice_of", f->gpus[f->gpus[i].parent].key);
			jsonw_kint(w, "gi", f->gpus[i].gi_id);
			jsonw_kstr(w, "profile", f->gpus[i].profile);
			jsonw_knum(w, "share", f->gpus[i].share, 6);
		}
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "nodes");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < r->nnodes; i++)
		json_row(w, &r->nodes[i], 0);
	jsonw_arr_end(w);
	jsonw_key(w, "total");
	json_row(w, &r->fleet_total, 3);
	jsonw_key(w, "namespaces");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < r->nnss; i++)
		json_row(w, &r->nss[i], 1);
	jsonw_arr_end(w);
	jsonw_key(w, "pods");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < r->npods; i++)
		json_row(w, &r->pods[i], 2);
	jsonw_arr_end(w);
	json_mig(w, r);
	jsonw_obj_end(w);
}
