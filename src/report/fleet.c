/* SPDX-License-Identifier: MIT */
/*
 * The fleet view of report --prometheus: the same per-GPU figures summed per
 * node, and, where the series carry Kubernetes labels, per namespace and
 * pod.  Money is the window's local cost split by state time exactly as the
 * waterfall splits it (cost-model.md): one second of state s costs
 * state_cost[s] / state_s[s] wherever it is, so the rows of a table add up
 * to the waterfall's total for the time they cover.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "util/jsonw.h"
#include "util/numfmt.h"
#include "util/xalloc.h"

static bool lost_state(int s)
{
	return s == ST_IDLE || s == ST_HELD_IDLE;
}

static void rates(const struct report *r, double *rate)
{
	for (int s = 0; s < ST__COUNT; s++)
		rate[s] = r->state_s[s] > 0 ? r->state_cost[s] / r->state_s[s] : 0;
}

static void price(struct fleet_row *row, const double *rate)
{
	row->cost = row->idle_cost = 0;
	for (int s = 0; s < ST__COUNT; s++) {
		if (s == ST_GAP)
			continue;
		row->cost += row->state_s[s] * rate[s];
		if (lost_state(s))
			row->idle_cost += row->state_s[s] * rate[s];
	}
}

static struct fleet_row *row_find(struct fleet_row **rows, size_t *n, const char *name, const char *ns)
{
	struct fleet_row *row;

	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*rows)[i].name, name))
			return &(*rows)[i];
	*rows = xreallocarray(*rows, *n + 1, sizeof(**rows));
	row = &(*rows)[(*n)++];
	memset(row, 0, sizeof(*row));
	snprintf(row->name, sizeof(row->name), "%s", name);
	snprintf(row->ns, sizeof(row->ns), "%s", ns ? ns : "");
	return row;
}

static int by_idle_cost(const void *a, const void *b)
{
	const struct fleet_row *x = a, *y = b;
	if (x->idle_cost != y->idle_cost)
		return x->idle_cost < y->idle_cost ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* The fleet's total row: the nodes summed, priced the same way. */
static void fleet_sum(struct fleet_row *t, const struct fleet_row *rows, size_t n, const double *rate)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "total");
	t->energy_j = n ? 0 : NAN;
	for (size_t i = 0; i < n; i++) {
		t->ngpus += rows[i].ngpus;
		t->covered_s += rows[i].covered_s;
		t->gaps_s += rows[i].gaps_s;
		t->busy_s += rows[i].busy_s;
		t->energy_j += rows[i].energy_j;	/* NAN stays NAN */
		for (int s = 0; s < ST__COUNT; s++)
			t->state_s[s] += rows[i].state_s[s];
	}
	price(t, rate);
}

/* The fleet GPU behind analysis GPU gi, or -1. */
static long fleet_gpu(const struct prom_fleet *f, const struct gpu_ident *id)
{
	for (size_t i = 0; i < f->ngpus; i++)
		if (!strncmp(f->gpus[i].key, id->uuid, sizeof(id->uuid) - 1))
			return (long)i;
	return -1;
}

/* Seconds of each state of analysis GPU gi within [t0, t1). */
static void span_states(const struct analysis *an, int gi, int64_t t0, int64_t t1, double *st)
{
	for (size_t i = 0; i < an->nsegs; i++) {
		const struct segment *s = &an->segs[i];
		int64_t a = s->t0_ns > t0 ? s->t0_ns : t0, b = s->t1_ns < t1 ? s->t1_ns : t1;
		if (s->gpu == gi && b > a)
			st[s->state] += (double)(b - a) / 1e9;
	}
}

/* The GPU of the slice analysis whose uuid is key, or -1. */
static int slice_gpu(const struct analysis *san, const char *key)
{
	for (int i = 0; san && i < san->tl.ngpus; i++)
		if (!strncmp(san->tl.gpus[i].id.uuid, key, sizeof(san->tl.gpus[i].id.uuid) - 1))
			return i;
	return -1;
}

static int by_gpu_then_gi(const void *a, const void *b)
{
	const struct fleet_row *x = a, *y = b;
	int c = strcmp(x->parent, y->parent);
	return c ? c : x->gi_id - y->gi_id;
}

/*
 * MIG: each slice its own row under its GPU.  A slice's second in state s
 * costs its share of a GPU's second in that state (share x rate[s]), so a
 * GPU cut into slices for the whole window has its cost split by the
 * slices' shares, and what no slice holds is the GPU's unsliced cost.
 */
static void slices_compute(struct report *r, const double *rate, const int *an_of)
{
	const struct prom_fleet *f = r->fleet;
	const struct analysis *san = r->slice_an;

	for (size_t fi = 0; fi < f->ngpus; fi++) {
		const struct prom_gpu *sg = &f->gpus[fi], *pg;
		struct fleet_row *row, *mig;
		int si = sg->parent >= 0 ? slice_gpu(san, sg->key) : -1;
		int pa;

		if (si < 0)
			continue;
		pg = &f->gpus[sg->parent];
		pa = an_of[sg->parent];
		mig = row_find(&r->migs, &r->nmigs, pg->key, NULL);
		if (!mig->parent) {
			mig->parent = pg->key;
			mig->node = pg->node;
			mig->share = 0;
			if (pa >= 0) {
				const struct gpu_stats *g = &r->an->gpus[pa];
				mig->covered_s = g->covered_s;
				mig->gaps_s = g->gaps_s;
				mig->busy_s = g->busy_s;
				for (int s = 0; s < ST__COUNT; s++)
					mig->state_s[s] = g->state_s[s];
			}
			price(mig, rate);
			mig->unsliced_cost = mig->cost;
		}
		mig->ngpus++;
		r->slices = xreallocarray(r->slices, r->nslices + 1, sizeof(*r->slices));
		row = &r->slices[r->nslices++];
		memset(row, 0, sizeof(*row));
		snprintf(row->name, sizeof(row->name), "%s", sg->key);
		row->parent = pg->key;
		row->node = pg->node;
		row->profile = sg->profile;
		row->gi_id = sg->gi_id;
		row->share = sg->share;
		row->ngpus = 1;
		row->covered_s = san->gpus[si].covered_s;
		row->gaps_s = san->gpus[si].gaps_s;
		row->busy_s = san->gpus[si].busy_s;
		row->energy_j = NAN;	/* power is the GPU's, not a slice's */
		for (int s = 0; s < ST__COUNT; s++)
			row->state_s[s] = san->gpus[si].state_s[s];
		price(row, rate);
		row->cost *= sg->share;		/* NAN share: NAN cost */
		row->idle_cost *= sg->share;
		mig->share += sg->share;
		mig->unsliced_cost -= row->cost;
	}
	if (r->nslices)
		qsort(r->slices, r->nslices, sizeof(*r->slices), by_gpu_then_gi);
	if (r->nmigs)
		qsort(r->migs, r->nmigs, sizeof(*r->migs), by_idle_cost);
}

void report_fleet_compute(struct report *r)
{
	const struct prom_fleet *f = r->fleet;
	const struct analysis *an = r->an;
	double rate[ST__COUNT];
	int *an_of;

	if (!f || !an)
		return;
	rates(r, rate);
	an_of = xcalloc(f->ngpus + 1, sizeof(*an_of));
	for (size_t i = 0; i < f->ngpus; i++)
		an_of[i] = -1;
	for (int gi = 0; gi < an->tl.ngpus; gi++) {
		const struct gpu_stats *g = &an->gpus[gi];
		long fi = fleet_gpu(f, &an->tl.gpus[gi].id);
		/* a GPU not from the server came from the files given beside it */
		struct fleet_row *row = row_find(&r->nodes, &r->nnodes,
						 fi < 0 ? "(files)" : f->gpus[fi].node[0] ? f->gpus[fi].node : "?", NULL);
		double e = r->gpus[gi].energy_j;

		if (fi >= 0)
			an_of[fi] = gi;
		row->ngpus++;
		row->covered_s += g->covered_s;
		row->gaps_s += g->gaps_s;
		row->busy_s += g->busy_s;
		row->energy_j = row->ngpus == 1 ? e : row->energy_j + e;	/* NAN stays NAN */
		for (int s = 0; s < ST__COUNT; s++)
			row->state_s[s] += g->state_s[s];
	}
	for (size_t i = 0; i < r->nnodes; i++)
		price(&r->nodes[i], rate);
	fleet_sum(&r->fleet_total, r->nodes, r->nnodes, rate);
	if (r->nnodes)
		qsort(r->nodes, r->nnodes, sizeof(*r->nodes), by_idle_cost);
	slices_compute(r, rate, an_of);
	/* pods: their spans on each GPU, in the GPU's state segments; on a MIG
	 * slice, in the slice's, a slice second counting as its share of a GPU's */
	for (size_t i = 0; i < f->npods; i++) {
		const struct prom_pod_span *sp = &f->pods[i];
		char name[200];
		struct fleet_row *row, *ns;
		double st[ST__COUNT] = { 0 };
		const struct prom_gpu *pg = sp->gpu < f->ngpus ? &f->gpus[sp->gpu] : NULL;
		bool slice = pg && pg->parent >= 0;
		int gi = !pg ? -1 : slice ? slice_gpu(r->slice_an, pg->key) : an_of[sp->gpu];

		if (gi < 0 || (slice && !isfinite(pg->share)))
			continue;
		snprintf(name, sizeof(name), "%s/%s", sp->ns, sp->pod);
		row = row_find(&r->pods, &r->npods, name, sp->ns);
		ns = row_find(&r->nss, &r->nnss, sp->ns, sp->ns);
		span_states(slice ? r->slice_an : an, gi, sp->t0_ns, sp->t1_ns, st);
		for (int s = 0; slice && s < ST__COUNT; s++)
			st[s] *= pg->share;
		row->ngpus++;
		for (int s = 0; s < ST__COUNT; s++) {
			row->state_s[s] += st[s];
			ns->state_s[s] += st[s];
			if (s != ST_GAP) {
				row->covered_s += st[s];
				ns->covered_s += st[s];
			}
		}
	}
	for (size_t i = 0; i < r->npods; i++)
		price(&r->pods[i], rate);
	for (size_t i = 0; i < r->nnss; i++)
		price(&r->nss[i], rate);
	if (r->npods)
		qsort(r->pods, r->npods, sizeof(*r->pods), by_idle_cost);
	if (r->nnss)
		qsort(r->nss, r->nnss, sizeof(*r->nss), by_idle_cost);
	free(an_of);
}

void report_fleet_release(struct report *r)
{
	free(r->nodes);
	free(r->nss);
	free(r->pods);
	free(r->migs);
	free(r->slices);
	r->nodes = r->nss = r->pods = r->migs = r->slices = NULL;
	r->nnodes = r->nnss = r->npods = r->nmigs = r->nslices = 0;
}

static const char *money(char *buf, size_t cap, const struct report *r, double v)
{
	return nf_money(buf, cap, v, r->params.currency);
}

static double pct(double a, double b)
{
	return b > 0 ? 100 * a / b : NAN;
}

/*
 * GPU-hours, busy % (busy: only for a node; a pod's span knows its states,
 * not utilization), idle + held-idle %, cost, lost to idle.
 */
static void row_cells(char *out, size_t cap, const struct report *r, const struct fleet_row *row, bool busy,
		      const char *sep)
{
	char a[48], b[48], u[32] = "";
	double lost = row->state_s[ST_IDLE] + row->state_s[ST_HELD_IDLE];
	if (busy)
		snprintf(u, sizeof(u), "%.1f%s", pct(row->busy_s, row->covered_s), sep);
	snprintf(out, cap, "%.2f%s%s%.1f%s%s%s%s", row->covered_s / 3600, sep, u, pct(lost, row->covered_s), sep,
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
		double lost = n->state_s[ST_IDLE] + n->state_s[ST_HELD_IDLE];
		fprintf(out, "  %-4zu %-28s %5d %10.2f %7.1f %7.1f %14s %14s\n", i + 1, n->name, n->ngpus,
			n->covered_s / 3600, pct(n->busy_s, n->covered_s), pct(lost, n->covered_s),
			money(a, sizeof(a), r, n->cost), money(b, sizeof(b), r, n->idle_cost));
	}
	{
		const struct fleet_row *t = &r->fleet_total;
		char a[48], b[48];
		fprintf(out, "  %-4s %-28s %5d %10.2f %7.1f %7.1f %14s %14s\n", "", "total", t->ngpus, t->covered_s / 3600,
			pct(t->busy_s, t->covered_s), pct(t->state_s[ST_IDLE] + t->state_s[ST_HELD_IDLE], t->covered_s),
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
				sl->gi_id, sl->profile, sl->share, sl->covered_s / 3600, pct(sl->busy_s, sl->covered_s),
				pct(sl->state_s[ST_IDLE] + sl->state_s[ST_HELD_IDLE], sl->covered_s),
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
