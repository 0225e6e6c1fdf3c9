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
#include "util/hashidx.h"
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

struct row_key {
	struct fleet_row *const *rows;
	const char *name;
};

static bool row_eq(const void *ctx, size_t i)
{
	const struct row_key *k = ctx;

	return !strcmp((*k->rows)[i].name, k->name);
}

/* The row named name, made when new; by_name indexes the rows by name (a
 * scan of them for each pod span grew with pods times spans). */
static struct fleet_row *row_find(struct fleet_row **rows, size_t *n, struct hashidx *by_name, const char *name,
				  const char *ns)
{
	struct fleet_row *row;
	struct row_key k = { rows, name };
	size_t i = hashidx_find(by_name, hash_bytes(HASH_SEED, name, strlen(name)), row_eq, &k);

	if (i != HASHIDX_NONE)
		return &(*rows)[i];
	*rows = xreallocarray(*rows, *n + 1, sizeof(**rows));
	row = &(*rows)[(*n)++];
	memset(row, 0, sizeof(*row));
	snprintf(row->name, sizeof(row->name), "%s", name);
	snprintf(row->ns, sizeof(row->ns), "%s", ns ? ns : "");
	/* the name as kept: one cut to fit is found by no longer name, as before */
	hashidx_add(by_name, hash_bytes(HASH_SEED, row->name, strlen(row->name)), *n - 1);
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

/*
 * An analysis's segments by GPU: pos[start[g] .. start[g + 1]) are GPU g's
 * positions in an->segs, in order; in_order[g] when those are in time
 * order (each starting and ending no earlier than the one before), so that
 * a span's segments are found by a binary search instead of a scan of
 * every segment of every GPU for each pod span.
 */
struct seg_index {
	size_t *pos, *start;
	bool *in_order;
	int ngpus;
};

static void seg_index_build(const struct analysis *an, struct seg_index *x)
{
	int ng = an ? an->tl.ngpus : 0;

	memset(x, 0, sizeof(*x));
	if (ng <= 0)
		return;
	x->ngpus = ng;
	x->start = xcalloc((size_t)ng + 1, sizeof(*x->start));
	x->in_order = xcalloc((size_t)ng, sizeof(*x->in_order));
	x->pos = xcalloc(an->nsegs ? an->nsegs : 1, sizeof(*x->pos));
	for (size_t i = 0; i < an->nsegs; i++)
		if (an->segs[i].gpu < ng)
			x->start[an->segs[i].gpu + 1]++;
	for (int g = 0; g < ng; g++) {
		x->start[g + 1] += x->start[g];
		x->in_order[g] = true;
	}
	{
		size_t *fill = xcalloc((size_t)ng, sizeof(*fill));
		for (size_t i = 0; i < an->nsegs; i++) {
			int g = an->segs[i].gpu;
			size_t k;
			if (g >= ng)
				continue;
			k = x->start[g] + fill[g]++;
			x->pos[k] = i;
			if (k > x->start[g]) {
				const struct segment *p = &an->segs[x->pos[k - 1]], *s = &an->segs[i];
				if (s->t0_ns < p->t0_ns || s->t1_ns < p->t1_ns)
					x->in_order[g] = false;
			}
		}
		free(fill);
	}
}

static void seg_index_release(struct seg_index *x)
{
	free(x->pos);
	free(x->start);
	free(x->in_order);
	memset(x, 0, sizeof(*x));
}

/* Seconds of each state of analysis GPU gi within [t0, t1), added in
 * segment order (x: an's seg_index). */
static void span_states(const struct analysis *an, const struct seg_index *x, int gi, int64_t t0, int64_t t1,
			double *st)
{
	size_t lo, hi;

	if (gi < 0 || gi >= x->ngpus)
		return;
	lo = x->start[gi];
	hi = x->start[gi + 1];
	if (x->in_order[gi]) {
		/* the first segment that ends after t0 */
		size_t a = lo, b = hi;
		while (a < b) {
			size_t mid = a + (b - a) / 2;
			if (an->segs[x->pos[mid]].t1_ns <= t0)
				a = mid + 1;
			else
				b = mid;
		}
		lo = a;
	}
	for (size_t k = lo; k < hi; k++) {
		const struct segment *s = &an->segs[x->pos[k]];
		int64_t a = s->t0_ns > t0 ? s->t0_ns : t0, b = s->t1_ns < t1 ? s->t1_ns : t1;
		if (x->in_order[gi] && s->t0_ns >= t1)
			break;	/* and every one after it */
		if (b > a)
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
	struct hashidx by_mig = { 0 };

	for (size_t fi = 0; fi < f->ngpus; fi++) {
		const struct prom_gpu *sg = &f->gpus[fi], *pg;
		struct fleet_row *row, *mig;
		int si = sg->parent >= 0 ? slice_gpu(san, sg->key) : -1;
		int pa;

		if (si < 0)
			continue;
		pg = &f->gpus[sg->parent];
		pa = an_of[sg->parent];
		mig = row_find(&r->migs, &r->nmigs, &by_mig, pg->key, NULL);
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
	hashidx_release(&by_mig);
	if (r->nslices)
		qsort(r->slices, r->nslices, sizeof(*r->slices), by_gpu_then_gi);
	if (r->nmigs)
		qsort(r->migs, r->nmigs, sizeof(*r->migs), by_idle_cost);
}

/* The rows' percentages of their covered time, for every table. */
static void row_pcts(struct fleet_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct fleet_row *row = &rows[i];
		double c = row->covered_s;
		row->busy_pct = c > 0 ? 100 * row->busy_s / c : NAN;
		row->lost_pct = c > 0 ? 100 * (row->state_s[ST_IDLE] + row->state_s[ST_HELD_IDLE]) / c : NAN;
	}
}

void report_fleet_compute(struct report *r)
{
	const struct prom_fleet *f = r->fleet;
	const struct analysis *an = r->an;
	double rate[ST__COUNT];
	int *an_of;
	struct hashidx by_node = { 0 }, by_pod = { 0 }, by_ns = { 0 };
	struct seg_index segs, slice_segs;

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
		struct fleet_row *row = row_find(&r->nodes, &r->nnodes, &by_node,
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
	seg_index_build(an, &segs);
	seg_index_build(r->slice_an, &slice_segs);
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
		row = row_find(&r->pods, &r->npods, &by_pod, name, sp->ns);
		ns = row_find(&r->nss, &r->nnss, &by_ns, sp->ns, sp->ns);
		span_states(slice ? r->slice_an : an, slice ? &slice_segs : &segs, gi, sp->t0_ns, sp->t1_ns, st);
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
	seg_index_release(&segs);
	seg_index_release(&slice_segs);
	hashidx_release(&by_node);
	hashidx_release(&by_pod);
	hashidx_release(&by_ns);
	for (size_t i = 0; i < r->npods; i++)
		price(&r->pods[i], rate);
	for (size_t i = 0; i < r->nnss; i++)
		price(&r->nss[i], rate);
	if (r->npods)
		qsort(r->pods, r->npods, sizeof(*r->pods), by_idle_cost);
	if (r->nnss)
		qsort(r->nss, r->nnss, sizeof(*r->nss), by_idle_cost);
	row_pcts(r->nodes, r->nnodes);
	row_pcts(&r->fleet_total, 1);
	row_pcts(r->nss, r->nnss);
	row_pcts(r->pods, r->npods);
	row_pcts(r->migs, r->nmigs);
	row_pcts(r->slices, r->nslices);
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
