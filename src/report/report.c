/* SPDX-License-Identifier: MIT */
#include "report/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hashidx.h"
#include "util/numfmt.h"
#include "util/strfmt.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

/* Take a price key from the table unless the user gave it (profile or --set). */
static void assume(struct report *r, int id, double v)
{
	if (r->params.origin[id] != COST_DEFAULT || !(v > 0))
		return;
	cost_param_put(&r->params, (size_t)id, v, COST_ASSUMED);
	r->prices.used = true;
}

/*
 * --cloud-catalog: the median per-GPU on-demand rate of the GPU model's
 * rows beats the profile's and the table's rate, not a --set one.
 */
static void catalog_rate(struct report *r)
{
	r->cat.age_months = -1;
	if (!r->catalog)
		return;
	switch (catalog_apply(r->catalog, r->prices.gpu_name, &r->params, &r->cat.pick)) {
	case -1:
		r->cat.unmatched = r->prices.gpu_name[0] != '\0';
		break;
	case 1:
		r->cat.used = true;
		break;
	}
}

/*
 * With no --profile, prices come from the built-in table (docs/prices.md),
 * for the GPU model with the most covered time; only the keys still at
 * their defaults, so that each --set makes one figure yours.  Board power
 * stands in for busy power until measured_power() replaces it.
 */
static void assumed_prices(struct report *r)
{
	const struct analysis *an = r->an;
	const struct price_table *t = prices_builtin();
	double best = -1;

	r->prices.age_purchase = r->prices.age_cloud = r->prices.age_electricity = r->prices.age_grid = -1;
	r->prices.table = t;
	for (int i = 0; i < an->tl.ngpus; i++) {
		const char *name = an->tl.gpus[i].id.name;
		if (name[0] && an->gpus[i].covered_s > best) {
			best = an->gpus[i].covered_s;
			snprintf(r->prices.gpu_name, sizeof(r->prices.gpu_name), "%s", name);
		}
	}
	catalog_rate(r);
	if (!r->assume_prices)
		return;
	r->prices.row = prices_match(t, r->prices.gpu_name);
	if (!r->prices.row) {
		/* nothing to assume: say so, unless every price is the user's */
		r->prices.yours = r->params.origin[COST_HARDWARE_PRICE] != COST_DEFAULT &&
				  r->params.origin[COST_CLOUD_HOURLY_RATE] != COST_DEFAULT &&
				  r->params.origin[COST_ELECTRICITY_PRICE] != COST_DEFAULT;
		r->prices.unknown = an->tl.ngpus > 0 && !r->prices.yours;
		return;
	}
	assume(r, COST_HARDWARE_PRICE, r->prices.row->purchase.value);
	assume(r, COST_BUSY_POWER_W, r->prices.row->power.value);
	assume(r, COST_CLOUD_HOURLY_RATE, r->prices.row->cloud.value);
	assume(r, COST_ELECTRICITY_PRICE, t->electricity.value);
	assume(r, COST_GRID_GCO2_PER_KWH, t->grid.value);
	if (r->prices.used && !r->params.currency[0])
		snprintf(r->params.currency, sizeof(r->params.currency), "%s", t->currency);
}

/* How old each assumed figure is, against --now or else the logs' end. */
static void price_ages(struct report *r)
{
	int64_t ref = r->now_ns ? r->now_ns : r->t1_ns;
	const struct price_row *row = r->prices.row;
	const struct price_table *t = r->prices.table;
	const struct cost_params *p = &r->params;

	if (r->catalog && r->catalog->date[0] && ref != INT64_MIN) {
		char ym[8];
		snprintf(ym, sizeof(ym), "%.7s", r->catalog->date);
		r->cat.age_months = prices_age_months(ym, ref);
		if (r->cat.age_months < 0)
			r->cat.age_months = 0;	/* dated after the logs (the date is well formed) */
		r->cat.old = r->cat.age_months > 12;
	}
	if (!r->prices.used || ref == INT64_MIN)
		return;
	if (p->origin[COST_HARDWARE_PRICE] == COST_ASSUMED)
		r->prices.age_purchase = prices_age_months(row->purchase.date, ref);
	if (p->origin[COST_CLOUD_HOURLY_RATE] == COST_ASSUMED)
		r->prices.age_cloud = prices_age_months(row->cloud.date, ref);
	if (p->origin[COST_ELECTRICITY_PRICE] == COST_ASSUMED)
		r->prices.age_electricity = prices_age_months(t->electricity.date, ref);
	if (p->origin[COST_GRID_GCO2_PER_KWH] == COST_ASSUMED)
		r->prices.age_grid = prices_age_months(t->grid.date, ref);
	r->prices.old = r->prices.age_purchase > 12 || r->prices.age_cloud > 12 ||
			r->prices.age_electricity > 12 || r->prices.age_grid > 12;
}

static void measured_power(struct report *r)
{
	const struct analysis *an = r->an;
	double idle_ws = 0, idle_s = 0, act_ws = 0, act_s = 0;

	for (int i = 0; i < an->tl.ngpus; i++) {
		idle_ws += an->gpus[i].idle_ws;
		idle_s += an->gpus[i].idle_s;
		act_ws += an->gpus[i].active_ws;
		act_s += an->gpus[i].active_s;
	}
	/* an explicit --set beats a measurement; a measurement beats a profile */
	if (idle_s >= 1 && r->params.origin[COST_IDLE_POWER_W] != COST_SET)
		cost_param_put(&r->params, COST_IDLE_POWER_W, idle_ws / idle_s, COST_MEASURED);
	if (act_s >= 1 && r->params.origin[COST_BUSY_POWER_W] != COST_SET)
		cost_param_put(&r->params, COST_BUSY_POWER_W, act_ws / act_s, COST_MEASURED);
}

/* Each GPU's figures, once, for every writer (report_gpu in report.h). */
static void gpu_figures(struct report *r)
{
	const struct analysis *an = r->an;

	r->gpus = xcalloc(an->tl.ngpus > 0 ? (size_t)an->tl.ngpus : 1, sizeof(*r->gpus));
	for (int i = 0; i < an->tl.ngpus; i++) {
		const struct gpu_stats *g = &an->gpus[i];
		struct report_gpu *o = &r->gpus[i];
		o->util_mean_pct = gpu_util_mean(g);
		o->util_p50_pct = gpu_util_quantile(g, 0.5);
		o->util_p95_pct = gpu_util_quantile(g, 0.95);
		o->power_mean_w = gpu_power_mean(g);
		o->power_max_w = g->power_known_s > 0 ? g->power_max_w : NAN;	/* the maxima are NAN unread, 0 read */
		o->idle_power_w = g->idle_s > 0 ? g->idle_ws / g->idle_s : NAN;
		o->busy_power_w = g->active_s > 0 ? g->active_ws / g->active_s : NAN;
		o->temp_max_c = g->temp_max_c;
		o->mem_max_mib = g->mem_max_mib;
		o->mem_total_mib = g->mem_total_mib > 0 ? g->mem_total_mib : NAN;
		o->energy_j = gpu_energy_j(g, &o->energy_source);
		o->useful_s = analysis_useful_s(an, i, &o->trace_out_s, &o->trace_in_s);
		{
			double days = (double)(g->last_ns - g->first_ns) / 1e9 / 86400;
			for (int c = 0; c < KC__COUNT; c++) {
				o->xids_classed += g->xid_class[c];
				o->xid_class_per_day[c] = days > 0 ? g->xid_class[c] / days : NAN;
			}
			o->xids_per_day = days > 0 ? (double)o->xids_classed / days : NAN;
		}
	}
	for (size_t i = 0; i < an->nsegs; i++)
		if (an->segs[i].gpu < (size_t)an->tl.ngpus)
			r->gpus[an->segs[i].gpu].nsegs++;
}

/* The group of a key: its number, or *n (and *n grows) when it is new. */
static size_t group_of(struct hashidx *x, uint64_t h, bool (*same)(const void *ctx, size_t id), const void *ctx,
		       size_t *n)
{
	size_t k = hashidx_find(x, h, same, ctx);

	if (k == HASHIDX_NONE) {
		k = (*n)++;
		hashidx_add(x, h, k);
	}
	return k;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	return hash_bytes(h, s, strlen(s));
}

/* A finding's key by kind, or by severity and kind: what same_*() compare against. */
struct find_key {
	const struct analysis *an;
	const size_t *first;	/* per group, an->finds index of a finding of it */
	const struct finding *f;
};

static bool same_kind(const void *ctx, size_t id)
{
	const struct find_key *k = ctx;

	return !strcmp(k->an->finds[k->first[id]].kind, k->f->kind);
}

static bool same_sev_kind(const void *ctx, size_t id)
{
	const struct find_key *k = ctx;
	const struct finding *o = &k->an->finds[k->first[id]];

	return o->severity == k->f->severity && !strcmp(o->kind, k->f->kind);
}

static uint64_t hash_sev_kind(const struct finding *f)
{
	return hash_u64(hash_str(HASH_SEED, f->kind), (uint64_t)(int64_t)f->severity);
}

/* The findings by kind, in the order the kinds first come (the ranked order). */
static void kind_tally(struct report *r)
{
	const struct analysis *an = r->an;
	size_t *first = xcalloc(an->nfinds ? an->nfinds : 1, sizeof(*first));
	struct find_key key = { an, first, NULL };
	struct hashidx x = { 0 };

	r->kinds = xcalloc(an->nfinds ? an->nfinds : 1, sizeof(*r->kinds));
	r->nkinds = 0;
	for (size_t i = 0; i < an->nfinds; i++) {
		size_t k;
		key.f = &an->finds[i];
		first[r->nkinds] = i;	/* taken only when the kind is new */
		k = group_of(&x, hash_str(HASH_SEED, key.f->kind), same_kind, &key, &r->nkinds);
		r->kinds[k].kind = an->finds[first[k]].kind;
		r->kinds[k].n++;
	}
	hashidx_release(&x);
	free(first);
}

static int cmp_busy_desc(const void *a, const void *b, void *ud)
{
	const struct proc_stat *p = ud;
	double x = p[*(const size_t *)a].busy_s, y = p[*(const size_t *)b].busy_s;

	if (x != y)
		return x > y ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/*
 * Per finding g: the findings of its severity and kind at g and after.  One
 * backward pass, each (severity, kind) carrying the sums of what follows, so
 * a long run's thousands of findings of one kind cost n, not n squared.
 */
static void finding_rests(struct report *r)
{
	const struct analysis *an = r->an;
	size_t n = an->nfinds, ngroups = 0;
	size_t *last = xcalloc(n ? n : 1, sizeof(*last));	/* per group: its finding seen last (the next after g) */
	struct find_key key = { an, last, NULL };
	struct hashidx x = { 0 };

	r->finding_rest = xcalloc(n ? n : 1, sizeof(*r->finding_rest));
	for (size_t g = n; g-- > 0;) {
		const struct finding *f = &an->finds[g];
		struct report_rest *o = &r->finding_rest[g];
		size_t k, was = ngroups;
		key.f = f;
		last[ngroups] = g;
		k = group_of(&x, hash_sev_kind(f), same_sev_kind, &key, &ngroups);
		if (k < was)
			*o = r->finding_rest[last[k]];
		last[k] = g;
		o->n++;
		o->stretches += f->nstretch;
		o->total_s += f->total_s;
		if (!isnan(r->finding_cost[g])) {
			o->cost += r->finding_cost[g];
			o->costed = true;
		}
	}
	hashidx_release(&x);
	free(last);
}

/* A GPU of a group: the key of the GPUs seen per group. */
struct group_gpu {
	const size_t *gpu_group;	/* per entry: its group */
	const int *gpu;		/* per entry: its GPU */
	size_t group;
	int g;
};

static bool same_group_gpu(const void *ctx, size_t id)
{
	const struct group_gpu *k = ctx;

	return k->gpu_group[id] == k->group && k->gpu[id] == k->g;
}

/*
 * The findings on a screen: the first ones in full while the lines allow,
 * then one group per severity and kind with its GPUs, each once.  One pass
 * over the findings, the groups and their GPUs found by hash.
 */
static void finding_groups(struct report *r)
{
	const struct analysis *an = r->an;
	size_t n = an->nfinds, lines = 0, budget, ng = 0, npairs = 0;
	size_t *first, *pair_group;
	int *pair_gpu;
	struct find_key key;
	struct group_gpu gk;
	struct hashidx x = { 0 }, y = { 0 };

	for (size_t i = 0; i < n; i++)
		lines += 3 + (an->finds[i].nstretch > 1);
	budget = lines <= REPORT_FIND_ALL_LINES ? lines : REPORT_FIND_LINES;
	for (r->nfind_full = 0, lines = 0; r->nfind_full < n && lines < budget; r->nfind_full++)
		lines += 3 + (an->finds[r->nfind_full].nstretch > 1);
	r->find_groups = xcalloc(n ? n : 1, sizeof(*r->find_groups));
	r->nfind_groups = 0;
	if (r->nfind_full >= n)
		return;
	first = xcalloc(n, sizeof(*first));
	pair_group = xcalloc(n, sizeof(*pair_group));
	pair_gpu = xcalloc(n, sizeof(*pair_gpu));
	key = (struct find_key){ an, first, NULL };
	gk = (struct group_gpu){ pair_group, pair_gpu, 0, 0 };
	for (size_t i = r->nfind_full; i < n; i++) {
		const struct finding *f = &an->finds[i];
		struct report_find_group *grp;
		size_t k, was = npairs;
		key.f = f;
		first[ng] = i;
		k = group_of(&x, hash_sev_kind(f), same_sev_kind, &key, &ng);
		grp = &r->find_groups[k];
		if (k == r->nfind_groups) {
			grp->first = i;
			r->nfind_groups++;
		}
		gk.group = k;
		gk.g = f->gpu;
		pair_group[npairs] = k;
		pair_gpu[npairs] = f->gpu;
		group_of(&y, hash_u64(hash_u64(HASH_SEED, k), (uint64_t)(int64_t)f->gpu), same_group_gpu, &gk, &npairs);
		if (npairs > was) {	/* a GPU new to the group */
			if (grp->ngpus < REPORT_GROUP_GPUS)
				grp->gpu[grp->ngpus] = f->gpu;
			grp->ngpus++;
		}
	}
	hashidx_release(&x);
	hashidx_release(&y);
	free(first);
	free(pair_group);
	free(pair_gpu);
}

/* The bad line's key: its file (one pointer per input) and reason. */
struct bad_key {
	const struct bad_line *bad;
	const struct report_bad_group *groups;
	const struct bad_line *b;
};

static bool same_bad(const void *ctx, size_t id)
{
	const struct bad_key *k = ctx;
	const struct bad_line *f = &k->bad[k->groups[id].first];

	return f->path == k->b->path && !strcmp(f->msg, k->b->msg);
}

struct format_key {
	const struct format *const *seen;	/* per group: its format */
	const struct format *f;
};

static bool same_format(const void *ctx, size_t id)
{
	const struct format_key *k = ctx;

	return k->seen[id] == k->f;
}

/* The inputs summed by the format that read them, in the registry's order: one pass over each. */
static void by_format(struct report *r)
{
	size_t nf = format_count(), ng = 0;
	const struct format **seen = xcalloc(nf + 1, sizeof(*seen));
	struct report_format_sum *sum = xcalloc(nf + 1, sizeof(*sum));
	struct format_key key = { seen, NULL };
	struct hashidx x = { 0 };

	r->by_format = xcalloc(nf ? nf : 1, sizeof(*r->by_format));
	r->nby_format = 0;
	for (size_t f = 0; f < nf; f++) {	/* each format's group, in registry order */
		key.f = seen[ng] = format_at(f);
		group_of(&x, hash_u64(HASH_SEED, (uint64_t)(uintptr_t)key.f), same_format, &key, &ng);
	}
	for (size_t i = 0; r->inputs && i < r->inputs->nr; i++) {
		const struct input_stat *in = &r->inputs->inputs[i];
		size_t s;
		if (!in->format)
			continue;
		key.f = in->format;
		s = hashidx_find(&x, hash_u64(HASH_SEED, (uint64_t)(uintptr_t)in->format), same_format, &key);
		if (s == HASHIDX_NONE)
			continue;	/* not a registered format (cannot happen) */
		sum[s].files++;
		sum[s].lines += in->lines;
		sum[s].records += in->records;
		sum[s].bad += in->bad;
	}
	for (size_t g = 0; g < ng; g++)
		if (sum[g].files) {
			sum[g].format = seen[g];
			r->by_format[r->nby_format++] = sum[g];
		}
	hashidx_release(&x);
	free(seen);
	free(sum);
}

/* The kept bad lines by file and reason, in the order they first come. */
static void bad_groups(struct report *r)
{
	struct hashidx x = { 0 };
	struct bad_key key;

	r->bad_groups = xcalloc(r->nbad ? r->nbad : 1, sizeof(*r->bad_groups));
	r->nbad_groups = 0;
	key = (struct bad_key){ r->bad, r->bad_groups, NULL };
	for (size_t i = 0; i < r->nbad; i++) {
		size_t g;
		key.b = &r->bad[i];
		r->bad_groups[r->nbad_groups].first = i;	/* kept only when new */
		g = group_of(&x, hash_u64(hash_str(HASH_SEED, key.b->msg), (uint64_t)(uintptr_t)key.b->path),
			       same_bad, &key, &r->nbad_groups);
		r->bad_groups[g].n++;
	}
	hashidx_release(&x);
}

/* The processes, busiest first (the HTML chart's order). */
static void proc_order(struct report *r)
{
	const struct analysis *an = r->an;

	r->proc_by_busy = xcalloc(an->nprocs ? an->nprocs : 1, sizeof(*r->proc_by_busy));
	r->procs = xcalloc(an->nprocs ? an->nprocs : 1, sizeof(*r->procs));
	for (size_t i = 0; i < an->nprocs; i++) {
		const struct proc_stat *p = &an->procs[i];
		double busy = an->gpus[p->gpu].busy_s, e = r->gpus[p->gpu].energy_j;
		r->proc_by_busy[i] = i;
		r->procs[i].busy_share = busy > 0 ? p->busy_s / busy : NAN;
		r->procs[i].energy_share = e > 0 ? p->energy_j / e : NAN;
		r->procs[i].sm_mean_pct = p->sm_n > 0 ? p->sm_sum / p->sm_n : NAN;
	}
	if (an->nprocs > 1)
		qsort_r(r->proc_by_busy, an->nprocs, sizeof(*r->proc_by_busy), cmp_busy_desc, an->procs);
}

/* The break-even chart's curve: C_L(u) at u = i / REPORT_CURVE_N. */
static void curve(struct report *r)
{
	for (int i = 1; i <= REPORT_CURVE_N; i++)
		r->curve_local[i - 1] = cost_local_per_useful_hour(&r->params, (double)i / REPORT_CURVE_N);
}

static void window_totals(struct report *r)
{
	const struct analysis *an = r->an;
	bool any_counter = false, any_power = false, any_missing = false;

	r->t0_ns = INT64_MAX;
	r->t1_ns = INT64_MIN;
	for (int i = 0; i < an->tl.ngpus; i++) {
		const struct gpu_stats *g = &an->gpus[i];
		const struct report_gpu *rg = &r->gpus[i];
		const char *src = rg->energy_source;
		double e = rg->energy_j;
		if (g->covered_s <= 0)
			continue;
		r->covered_h += g->covered_s / 3600;
		r->busy_h += rg->useful_s / 3600;
		r->util_busy_h += g->busy_s / 3600;
		r->util_known_h += g->util_known_s / 3600;
		r->trace_out_h += rg->trace_out_s / 3600;
		r->trace_in_h += rg->trace_in_s / 3600;
		r->gaps_h += g->gaps_s / 3600;
		if (g->first_ns < r->t0_ns)
			r->t0_ns = g->first_ns;
		if (g->last_ns > r->t1_ns)
			r->t1_ns = g->last_ns;
		if (isnan(e)) {
			any_missing = true;
			continue;
		}
		r->energy_j += e;
		if (strstr(src, "counter"))
			any_counter = true;
		if (strstr(src, "power"))
			any_power = true;
	}
	for (int s = 0; s < ST__COUNT; s++)
		for (int i = 0; i < an->tl.ngpus; i++)
			r->state_s[s] += an->gpus[i].state_s[s];
	if (any_missing) {
		/* no power reading at all on some GPU: estimate from the profile,
		 * and say so: P_busy for busy hours, P_idle for the rest */
		r->energy_source = "profile estimate";
		r->energy_j = 0;
		for (int i = 0; i < an->tl.ngpus; i++) {
			const struct gpu_stats *g = &an->gpus[i];
			double busy = r->gpus[i].useful_s;
			r->energy_j += 3600 * (r->params.busy_power_w * busy / 3600 +
					       r->params.idle_power_w * (g->covered_s - busy) / 3600);
		}
	} else if (any_counter && any_power) {
		r->energy_source = "counter+power";
	} else if (any_counter) {
		r->energy_source = "counter";
	} else {
		r->energy_source = "power";
	}
}

/* A GPU's useful seconds per utilization-second (1 when it has none). */
static double useful_per_util(const struct report *r, int gi)
{
	double b = r->an->gpus[gi].busy_s;

	return b > 0 ? r->gpus[gi].useful_s / b : 1;
}

static void jobs(struct report *r)
{
	const struct analysis *an = r->an;

	size_t ntask = 0;

	/* cost-model.md: n is the number of distinct GPU processes seen, each a
	 * job of its own useful hours (zero for one that never computed): its
	 * share of its GPU's utilization, of the GPU's useful time (one
	 * definition of busy, docs/states.md "Busy"); a logger's task labels
	 * (PID_TASK) are the jobs only where no process was seen, since they
	 * cover the same GPU time */
	for (size_t i = 0; i < an->nprocs; i++)
		ntask += an->procs[i].pid == PID_TASK;
	if (an->nprocs) {
		bool tasks = ntask == an->nprocs;
		r->jobs_from_processes = !tasks;
		r->jobs_from_tasks = tasks;
		r->job_useful_h = xcalloc(an->nprocs, sizeof(double));
		for (size_t i = 0; i < an->nprocs; i++) {
			int gi = an->procs[i].gpu;
			double k = gi >= 0 && gi < an->tl.ngpus ? useful_per_util(r, gi) : 1;
			if ((an->procs[i].pid == PID_TASK) == tasks)
				r->job_useful_h[r->njobs++] = an->procs[i].busy_s * k / 3600;
		}
		return;
	}
	/* no process data: one job per GPU with work */
	r->job_useful_h = xcalloc((size_t)(an->tl.ngpus ? an->tl.ngpus : 1), sizeof(double));
	for (int i = 0; i < an->tl.ngpus; i++) {
		double u = r->gpus[i].useful_s;
		if (u > 0)
			r->job_useful_h[r->njobs++] = u / 3600;
	}
}

static bool same_group(const struct an_event *a, const struct an_event *b)
{
	return a->gpu == b->gpu && a->ev == b->ev && a->code == b->code && a->unplaced == b->unplaced;
}

struct ev_key {
	const struct analysis *an;
	const struct report_evgroup *groups;
	const struct an_event *e;
};

static bool same_ev_group(const void *ctx, size_t id)
{
	const struct ev_key *k = ctx;

	return same_group(&k->an->evs[k->groups[id].ev], k->e);
}

/*
 * The events grouped by GPU (host last), kind and code: each group's count,
 * and its earliest and latest time (min and max, not the first and last
 * listed: a log's lines need not be in time order, nor several files).
 * One pass in the order listed, each event's group found by hash, then the
 * groups put in GPU order (a stable counting sort: in each GPU, the order
 * they first come).
 */
static void event_groups(struct report *r)
{
	const struct analysis *an = r->an;
	struct report_evgroup *g0;
	struct ev_key key;
	struct hashidx x = { 0 };
	size_t ng = 0, *start;
	int ngpus = an->tl.ngpus;

	r->evgroups = NULL;
	r->nevgroups = 0;
	if (!an->nevs)
		return;
	g0 = xcalloc(an->nevs, sizeof(*g0));
	key = (struct ev_key){ an, g0, NULL };
	for (size_t i = 0; i < an->nevs; i++) {
		const struct an_event *e = &an->evs[i];
		struct report_evgroup *g;
		size_t k, was = ng;
		uint64_t h = HASH_SEED;
		if (e->gpu >= ngpus || e->gpu < -1)
			continue;	/* no GPU of the report's (as before: not listed) */
		h = hash_u64(h, (uint64_t)(int64_t)e->gpu);
		h = hash_u64(h, (uint64_t)e->ev);
		h = hash_u64(h, (uint64_t)(int64_t)e->code);
		h = hash_u64(h, (uint64_t)e->unplaced);
		key.e = e;
		g0[ng].ev = i;	/* kept only when the group is new */
		k = group_of(&x, h, same_ev_group, &key, &ng);
		g = &g0[k];
		if (k == was) {
			g->copied = SIZE_MAX;
			g->t_min_ns = g->t_max_ns = e->unplaced ? 0 : e->t_ns;
		} else if (!e->unplaced) {
			if (e->t_ns < g->t_min_ns) {
				g->t_min_ns = e->t_ns;
				g->ev = i;
			}
			if (e->t_ns > g->t_max_ns)
				g->t_max_ns = e->t_ns;
		}
		g->n++;
		g->lines += e->count;
		g->copies += e->copies;
		if (e->copies && g->copied == SIZE_MAX)
			g->copied = i;
	}
	hashidx_release(&x);
	/* GPU order, host (-1) last: slot gpu, or ngpus for the host */
	start = xcalloc((size_t)ngpus + 2, sizeof(*start));
	for (size_t k = 0; k < ng; k++) {
		int gpu = an->evs[g0[k].ev].gpu;
		start[(gpu < 0 ? (size_t)ngpus : (size_t)gpu) + 1]++;
	}
	for (size_t b = 0; b <= (size_t)ngpus; b++)
		start[b + 1] += start[b];
	r->evgroups = xcalloc(an->nevs, sizeof(*r->evgroups));
	for (size_t k = 0; k < ng; k++) {
		int gpu = an->evs[g0[k].ev].gpu;
		r->evgroups[start[gpu < 0 ? (size_t)ngpus : (size_t)gpu]++] = g0[k];
	}
	r->nevgroups = ng;
	free(start);
	free(g0);
}

static int ev_time_cmp(const void *a, const void *b, void *base)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct an_event *x = (const struct an_event *)base + i, *y = (const struct an_event *)base + j;

	if (x->unplaced != y->unplaced)
		return x->unplaced ? 1 : -1;
	if (!x->unplaced && x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return i < j ? -1 : i > j;	/* as listed: a stable order */
}

/* The events' time order, for the lists that print them one by one. */
static void event_order(struct report *r)
{
	const struct analysis *an = r->an;

	r->ev_order = xcalloc(an->nevs ? an->nevs : 1, sizeof(*r->ev_order));
	for (size_t i = 0; i < an->nevs; i++)
		r->ev_order[i] = i;
	if (an->nevs > 1)
		qsort_r(r->ev_order, an->nevs, sizeof(*r->ev_order), ev_time_cmp, (void *)an->evs);
}

static void proc_costs(struct report *r)
{
	const struct analysis *an = r->an;

	if (!an->nprocs)
		return;
	r->proc_cloud_cost = xcalloc(an->nprocs, sizeof(double));
	for (size_t i = 0; i < an->nprocs; i++) {
		int gi = an->procs[i].gpu;
		double b = an->procs[i].busy_s * (gi >= 0 && gi < an->tl.ngpus ? useful_per_util(r, gi) : 1);
		r->proc_cloud_cost[i] = cost_cloud_job(&r->params, b / 3600);
	}
}

/*
 * The verdict rests on the per-hour comparison (u against u*).  The
 * window's own comparison (the Cost line) also carries the cloud's per-job
 * charge; when that charge is most of the window's cloud cost, say so, and
 * what the comparison is per useful hour.
 */
static void verdict_window(struct report *r, const char *cur)
{
	size_t n = strlen(r->verdict);
	double tot = r->win.cloud_cost;
	char m1[64], m2[64];

	if (!(tot > 0) || !(r->cloud_job_charges > 0) || !isfinite(r->win.premium_pct) ||
	    !(r->lr.c_cloud > 0) || !isfinite(r->c_local_obs) || n + 1 >= sizeof(r->verdict))
		return;
	bool mostly = r->cloud_job_charges >= 0.5 * tot;

	fmt_cut(r->verdict + n, sizeof(r->verdict) - n,
		" The verdict rests on the per-hour comparison: per useful hour owning %s %.1f %%. "
		"The window's %.1f %% %s %s the cloud's per-job charge (%s of %s to rent: "
		"%zu job(s), cold start and billing minimum)%s.",
		r->c_local_obs <= r->lr.c_cloud ? "saves" : "costs",
		100 * fabs(1 - r->c_local_obs / r->lr.c_cloud), fabs(r->win.premium_pct),
		r->win.premium_pct < 0 ? "saving" : "premium",
		mostly ? "is mostly" : "comes from the hours, not",
		nf_money(m1, sizeof(m1), r->cloud_job_charges, NULL), nf_money(m2, sizeof(m2), tot, cur),
		r->njobs ? r->njobs : (size_t)1, mostly ? ", not the hours" : "");
}

static void verdict(struct report *r)
{
	const char *cur = r->params.currency[0] ? r->params.currency : "";
	double u = r->win.u_obs;
	char m1[64], m2[64];

	if (r->covered_h <= 0) {
		snprintf(r->verdict, sizeof(r->verdict), "No covered GPU time in the inputs: nothing to price.");
		return;
	}
	if (r->busy_unknown) {
		/* unknown is not 0 %: a column that could not be read is no idle GPU */
		snprintf(r->verdict, sizeof(r->verdict),
			 "No verdict: no utilization was read in the covered time (busy: unknown); "
			 "see the inputs' columns.");
		return;
	}
	if (r->params.cloud_hourly_rate <= 0) {
		snprintf(r->verdict, sizeof(r->verdict),
			 "The GPU was busy %.1f %% of the covered time; set cloud_hourly_rate (a profile or --set) to compare with renting.",
			 100 * u);
		return;
	}
	switch (r->lr.status) {
	case COST_NEVER:
		snprintf(r->verdict, sizeof(r->verdict),
			 "Owning never pays with these prices: electricity alone costs more than renting (busy %.1f %%).",
			 100 * u);
		break;
	case COST_ABOVE_FULL_USE:
		snprintf(r->verdict, sizeof(r->verdict),
			 "Owning would not pay even at 100 %% use (break-even %.0f %%); at the observed %.1f %% renting is %.1fx cheaper per useful hour.",
			 100 * r->lr.u_star, 100 * u, r->c_local_obs / r->lr.c_cloud);
		break;
	default:
		if (!(r->c_local_obs < INFINITY))
			/* not one useful hour: its local cost is no number (was "inf";
			 * tests/corpus/public/virtualclient-8xh100, busy 0 %) */
			snprintf(r->verdict, sizeof(r->verdict),
				 "Renting would be cheaper: busy %.1f %% of the time against a break-even of %.1f %%; "
				 "no useful hour was observed to price locally, against %s an hour to rent.",
				 100 * u, 100 * r->lr.u_star, nf_money(m2, sizeof(m2), r->lr.c_cloud, cur));
		else if (u >= r->lr.u_star)
			snprintf(r->verdict, sizeof(r->verdict),
				 "Owning pays: busy %.1f %% of the time against a break-even of %.1f %%, a useful hour costs %s locally against %s to rent.",
				 100 * u, 100 * r->lr.u_star, nf_money(m1, sizeof(m1), r->c_local_obs, cur),
				 nf_money(m2, sizeof(m2), r->lr.c_cloud, cur));
		else
			snprintf(r->verdict, sizeof(r->verdict),
				 "Renting would be cheaper: busy %.1f %% of the time against a break-even of %.1f %%, a useful hour costs %s locally against %s to rent (%.1fx).",
				 100 * u, 100 * r->lr.u_star, nf_money(m1, sizeof(m1), r->c_local_obs, cur),
				 nf_money(m2, sizeof(m2), r->lr.c_cloud, cur), r->c_local_obs / r->lr.c_cloud);
	}
	verdict_window(r, cur);
}

/*
 * The outage line: hours down after fatal events, priced like every other
 * line of the waterfall, at the window's local cost per covered GPU-hour.
 * Host power events are counted per hour of the GPUs' span (else theirs).
 */
static void outage(struct report *r)
{
	const struct analysis *an = r->an;
	int64_t t0 = r->t0_ns, t1 = r->t1_ns;

	for (int i = 0; i < an->tl.ngpus; i++)
		r->outage_s += an->gpus[i].outage_s;
	r->cost_per_gpu_hour = r->covered_h > 0 ? r->win.local_cost / r->covered_h : NAN;
	r->outage_cost = r->outage_s > 0 ? r->outage_s / 3600 * r->cost_per_gpu_hour : 0;
	r->outage_share = r->outage_s / (r->covered_h * 3600);
	if (an->pw.first_ns < t0)
		t0 = an->pw.first_ns;
	if (an->pw.last_ns > t1)
		t1 = an->pw.last_ns;
	r->power_span_h = t1 > t0 ? (double)(t1 - t0) / 1e9 / 3600 : NAN;
	r->ac_switches_per_hour = r->power_span_h > 0 ? (an->pw.ac_off + an->pw.ac_on) / r->power_span_h : NAN;
	r->suspends_per_hour = r->power_span_h > 0 ? an->pw.suspends / r->power_span_h : NAN;
}

/* The first screen's figures (report.h): where the rest went, the top findings, the files that are not telemetry. */
static void first_screen(struct report *r)
{
	const struct analysis *an = r->an;

	r->ntop_causes = 0;
	for (int k = 0; k < 3; k++) {
		int best = -1;
		for (int s = 0; s < ST__COUNT; s++) {
			bool taken = false;
			/* unknown is not known to have bought nothing: not a cause */
			if (s == ST_GAP || s == ST_UNKNOWN || state_is_useful(s) || !(r->state_s[s] > 0))
				continue;
			for (int j = 0; j < r->ntop_causes; j++)
				taken |= r->top_cause[j] == s;
			if (!taken && (best < 0 || r->state_s[s] > r->state_s[best]))
				best = s;
		}
		if (best < 0)
			break;
		r->top_cause[r->ntop_causes++] = best;
	}
	r->ntop_finds = 0;
	for (int sev = SEV_CRITICAL; sev >= SEV_INFO && r->ntop_finds < 3; sev--)
		for (size_t i = 0; i < an->nfinds && r->ntop_finds < 3; i++)
			if (an->finds[i].severity == sev)
				r->top_find[r->ntop_finds++] = i;
	r->not_telemetry = r->not_read = 0;
	for (size_t i = 0; r->inputs && i < r->inputs->nr; i++) {
		const struct input_stat *in = &r->inputs->inputs[i];
		r->not_telemetry += report_not_telemetry(in);
		r->not_read += !in->format && !report_not_telemetry(in);
	}
}

bool report_not_telemetry(const struct input_stat *in)
{
	/* sniffed, and no format took it (one that did but could not be
	 * placed in time is telemetry that was not read) */
	return !in->format && in->sniffed && !in->sniff_format;
}

/* The month at a glance: covered and useful seconds per UTC day and GPU, from the state segments. */
static void by_day(struct report *r)
{
	const struct analysis *an = r->an;
	size_t ng = (size_t)an->tl.ngpus, n;
	int64_t d0, d1;

	r->ndays = 0;
	if (r->t0_ns == INT64_MAX || r->t1_ns <= r->t0_ns || !ng)
		return;
	d0 = r->t0_ns / NS_PER_DAY - (r->t0_ns < 0 && r->t0_ns % NS_PER_DAY);
	d1 = (r->t1_ns - 1) / NS_PER_DAY - (r->t1_ns - 1 < 0 && (r->t1_ns - 1) % NS_PER_DAY);
	if (d1 <= d0 || d1 - d0 + 1 > REPORT_MAX_DAYS)
		return;
	n = (size_t)(d1 - d0 + 1);
	r->day_first = d0;
	r->ndays = n;
	r->day_covered_s = xcalloc(n * ng, sizeof(double));
	r->day_useful_s = xcalloc(n * ng, sizeof(double));
	r->day_cost = xcalloc(n * ng, sizeof(double));
	for (size_t i = 0; i < an->nsegs; i++) {
		const struct segment *s = &an->segs[i];
		int64_t t = s->t0_ns;
		if (s->state == ST_GAP || s->gpu >= ng)
			continue;
		while (t < s->t1_ns) {
			int64_t day = t / NS_PER_DAY - (t < 0 && t % NS_PER_DAY);
			int64_t end = (day + 1) * NS_PER_DAY < s->t1_ns ? (day + 1) * NS_PER_DAY : s->t1_ns;
			if (day >= d0 && day <= d1) {
				size_t k = (size_t)(day - d0) * ng + s->gpu;
				r->day_covered_s[k] += (double)(end - t) / 1e9;
				if (state_is_useful(s->state))
					r->day_useful_s[k] += (double)(end - t) / 1e9;
			}
			t = end;
		}
	}
	for (size_t k = 0; k < n * ng; k++)
		r->day_cost[k] = r->win.local_cost > 0 ? r->day_covered_s[k] / 3600 * r->cost_per_gpu_hour : NAN;
}

/* The zone the inputs' zone-less stamps were assumed to be in, if any, and
 * how many inputs rest on their file times. */
static void assumed_zone(struct report *r)
{
	r->zone_assumed = NULL;
	r->zone_assumed_inputs = r->file_time_inputs = 0;
	for (size_t i = 0; r->inputs && i < r->inputs->nr; i++) {
		const struct input_stat *in = &r->inputs->inputs[i];
		r->file_time_inputs += in->file_time_assumed && in->records && !in->skip_reason[0];
		if (!in->zone_assumed)
			continue;
		r->zone_assumed = r->zone_assumed ? r->zone_assumed : in->zone_assumed;
		r->zone_assumed_inputs++;
	}
}

void report_compute(struct report *r)
{
	struct cost_window_in in;
	double covered_s = 0;

	assumed_prices(r);
	assumed_zone(r);
	measured_power(r);
	gpu_figures(r);
	kind_tally(r);
	proc_order(r);
	window_totals(r);
	price_ages(r);
	r->co2e_kg = r->params.grid_gco2_per_kwh > 0 ?
		     r->energy_j / 3.6e6 * r->params.pue * r->params.grid_gco2_per_kwh / 1000 : NAN;
	r->busy_unknown = r->covered_h > 0 && !(r->util_known_h > 0);
	r->util_mean_pct = r->util_known_h > 0 ? 100 * r->util_busy_h / r->util_known_h : NAN;
	jobs(r);
	cost_longrun(&r->params, &r->lr);
	r->has_prices = r->params.cloud_hourly_rate > 0 || r->lr.F > 0 || r->lr.k > 0;
	memset(&in, 0, sizeof(in));
	in.covered_h = r->covered_h;
	in.busy_h = r->busy_h;
	in.energy_j = r->energy_j;
	in.job_useful_h = r->job_useful_h;
	in.njobs = r->njobs;
	cost_window(&r->params, &in, &r->win);
	r->cloud_hours_cost = r->params.cloud_efficiency > 0 ?
			      r->params.cloud_hourly_rate * r->busy_h / r->params.cloud_efficiency : 0;
	r->cloud_job_charges = r->win.cloud_cost - r->cloud_hours_cost;
	if (r->cloud_job_charges < 0)
		r->cloud_job_charges = 0;
	r->c_local_obs = cost_local_per_useful_hour(&r->params, r->win.u_obs);
	cost_job_breakeven(&r->params, r->win.u_obs, &r->job);
	curve(r);
	r->nsens = cost_sensitivity(&r->params, r->sens, COST_NSENS);
	if (r->nsens > COST_NSENS)
		r->nsens = COST_NSENS;
	/* the waterfall: the window's local cost split by time in each state
	 * (cost-model.md); gaps are outside the covered time and cost nothing */
	for (int s = 0; s < ST__COUNT; s++)
		if (s != ST_GAP)
			covered_s += r->state_s[s];
	for (int s = 0; s < ST__COUNT; s++)
		r->state_cost[s] = s == ST_GAP || covered_s <= 0 ? 0 :
				   r->win.local_cost * r->state_s[s] / covered_s;
	for (int s = 0; s < ST__COUNT; s++)
		if (state_is_useful(s)) {
			r->useful_cost += r->state_cost[s];
			r->useful_states_s += r->state_s[s];
		}
	r->trace_net_s = (r->trace_in_h - r->trace_out_h) * 3600;
	r->useful_total_s = r->busy_h * 3600;
	r->trace_net_share = covered_s > 0 ? r->trace_net_s / covered_s : NAN;
	r->useful_total_share = covered_s > 0 ? r->useful_total_s / covered_s : NAN;
	r->trace_net_cost = covered_s > 0 ? r->win.local_cost * r->trace_net_s / covered_s : 0;
	r->useful_total_cost = r->useful_cost + r->trace_net_cost;
	for (int s = 0; s < ST__COUNT; s++) {
		r->state_share[s] = report_state_share(r, -1, s);
		for (int i = 0; i < r->an->tl.ngpus; i++)
			r->gpus[i].state_share[s] = report_state_share(r, i, s);
	}
	outage(r);
	r->events_total = 0;
	for (int k = 0; k < EV__COUNT; k++)
		r->events_total += r->an->ev_count[k];
	event_groups(r);
	event_order(r);
	r->host_xids_classed = 0;
	for (int c = 0; c < KC__COUNT; c++)
		r->host_xids_classed += r->an->host_xid_class[c];
	r->finding_cost = xcalloc(r->an->nfinds ? r->an->nfinds : 1, sizeof(*r->finding_cost));
	for (size_t i = 0; i < r->an->nfinds; i++)
		r->finding_cost[i] = report_finding_cost(r, &r->an->finds[i]);
	finding_rests(r);
	finding_groups(r);
	bad_groups(r);
	by_format(r);
	proc_costs(r);
	verdict(r);
	first_screen(r);
	by_day(r);
	report_month_compute(r);
	report_fleet_compute(r);
	report_attrib_compute(r);
}

double report_state_share(const struct report *r, int gpu, int st)
{
	const double *s = gpu < 0 ? r->state_s : r->an->gpus[gpu].state_s;
	double total = 0;

	if (st == ST_GAP)
		return NAN;
	for (int i = 0; i < ST__COUNT; i++)
		if (i != ST_GAP)
			total += s[i];
	return total > 0 ? s[st] / total : NAN;
}

double report_finding_cost(const struct report *r, const struct finding *f)
{
	if (!f->nstretch || f->fk == FK_LOG_GAP || !(r->cost_per_gpu_hour > 0))
		return NAN;
	return f->total_s / 3600 * r->cost_per_gpu_hour;
}

void report_release(struct report *r)
{
	free(r->job_useful_h);
	r->job_useful_h = NULL;
	free(r->proc_cloud_cost);
	r->proc_cloud_cost = NULL;
	free(r->day_covered_s);
	free(r->day_useful_s);
	free(r->day_cost);
	r->day_covered_s = r->day_useful_s = r->day_cost = NULL;
	report_month_release(r);
	r->ndays = 0;
	free(r->gpus);
	r->gpus = NULL;
	free(r->kinds);
	r->kinds = NULL;
	r->nkinds = 0;
	free(r->proc_by_busy);
	r->proc_by_busy = NULL;
	free(r->procs);
	r->procs = NULL;
	free(r->finding_cost);
	r->finding_cost = NULL;
	free(r->finding_rest);
	r->finding_rest = NULL;
	free(r->find_groups);
	r->find_groups = NULL;
	r->nfind_groups = r->nfind_full = 0;
	free(r->bad_groups);
	r->bad_groups = NULL;
	r->nbad_groups = 0;
	free(r->by_format);
	r->by_format = NULL;
	r->nby_format = 0;
	free(r->evgroups);
	r->evgroups = NULL;
	free(r->ev_order);
	r->ev_order = NULL;
	r->nevgroups = 0;
	report_fleet_release(r);
	report_attrib_release(r);
}
