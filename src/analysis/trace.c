/* SPDX-License-Identifier: MIT */
/* Kernel-level figures from profiler trace records (see trace.h). */
#include "analysis/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define NAME_MAX_LEN 4096

void trace_init(struct trace_an *an, size_t top_n)
{
	memset(an, 0, sizeof(*an));
	an->top_n = top_n;
	an->cut0 = INT64_MIN;
	an->cut1 = INT64_MAX;
}

size_t trace_file(struct trace_an *an, const char *path)
{
	struct tr_file *f;

	for (size_t i = an->nfiles; i-- > 0;)
		if (an->files[i].path == path || !strcmp(an->files[i].path, path))
			return i;
	ALLOC_GROW(an->files, an->nfiles + 1, an->files_alloc);
	f = &an->files[an->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = path;
	f->t0 = INT64_MAX;
	f->t1 = INT64_MIN;
	f->win0 = f->win1 = INT64_MIN;
	return an->nfiles++;
}

/* ---- interned names ---------------------------------------------------- */

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;
	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

static void rehash(struct trace_an *an)
{
	size_t cap = an->hash_cap ? an->hash_cap * 2 : 1024;
	free(an->name_hash);
	an->name_hash = xmalloc(cap * sizeof(*an->name_hash));
	for (size_t i = 0; i < cap; i++)
		an->name_hash[i] = UINT32_MAX;
	an->hash_cap = cap;
	for (size_t i = 0; i < an->nnames; i++) {
		size_t h = hash_str(an->names[i]) & (cap - 1);
		while (an->name_hash[h] != UINT32_MAX)
			h = (h + 1) & (cap - 1);
		an->name_hash[h] = (uint32_t)i;
	}
}

static uint32_t intern(struct trace_an *an, const char *s)
{
	size_t h;

	if (!s)
		s = "";
	if ((an->nnames + 1) * 2 > an->hash_cap)
		rehash(an);
	h = hash_str(s) & (an->hash_cap - 1);
	while (an->name_hash[h] != UINT32_MAX) {
		if (!strcmp(an->names[an->name_hash[h]], s))
			return an->name_hash[h];
		h = (h + 1) & (an->hash_cap - 1);
	}
	ALLOC_GROW(an->names, an->nnames + 1, an->names_alloc);
	an->names[an->nnames] = xstrndup(s, strnlen(s, NAME_MAX_LEN));
	an->name_hash[h] = (uint32_t)an->nnames;
	return (uint32_t)an->nnames++;
}

const char *trace_name(const struct trace_an *an, uint32_t id)
{
	return id < an->nnames ? an->names[id] : "";
}

/* ---- input ------------------------------------------------------------- */

static void widen(struct tr_file *f, int64_t t0, int64_t t1)
{
	if (t0 < f->t0)
		f->t0 = t0;
	if (t1 > f->t1)
		f->t1 = t1;
}

void trace_add(struct trace_an *an, size_t file, const struct rec *r, const struct batch *b)
{
	struct tr_file *f = &an->files[file];
	int64_t t0 = r->t_ns, t1;

	if (r->kind != REC_TRACE)
		return;
	if (r->ev == TR_SUMMARY) {
		f->events += (uint64_t)r->tr.corr;
		f->used += (uint64_t)r->tr.stream;
		return;
	}
	if (__builtin_add_overflow(t0, r->tr.dur_ns, &t1))
		t1 = INT64_MAX;
	widen(f, t0, t1);
	switch (r->ev) {
	case TR_KERNEL:
	case TR_MEMCPY:
	case TR_MEMSET: {
		struct tr_op *o;
		if (r->gpu_index < 0)
			return;
		ALLOC_GROW(an->ops, an->nops + 1, an->ops_alloc);
		o = &an->ops[an->nops++];
		o->t0 = t0;
		o->t1 = t1;
		o->corr = r->tr.corr;
		o->pid = r->pid;
		o->stream = r->tr.stream;
		o->dev = r->gpu_index;
		o->file = (uint16_t)file;
		o->kind = r->ev;
		o->name = r->ev == TR_KERNEL ? intern(an, batch_str(b, r->name)) : UINT32_MAX;
		break;
	}
	case TR_RUNTIME: {
		struct tr_call *c;
		ALLOC_GROW(an->calls, an->ncalls + 1, an->calls_alloc);
		c = &an->calls[an->ncalls++];
		c->t0 = t0;
		c->t1 = t1;
		c->corr = r->tr.corr;
		c->pid = r->pid;
		c->file = (uint16_t)file;
		c->matched = false;
		c->name = intern(an, batch_str(b, r->name));
		break;
	}
	case TR_STEP: {
		struct tr_step *s;
		ALLOC_GROW(an->steps, an->nsteps + 1, an->steps_alloc);
		s = &an->steps[an->nsteps++];
		s->t0 = t0;
		s->t1 = t1;
		s->n = r->tr.corr;
		s->file = (uint16_t)file;
		break;
	}
	case TR_OVERHEAD:
		f->overhead_ns += t1 - t0;
		f->noverhead++;
		break;
	case TR_WINDOW:
		if (f->win0 == INT64_MIN || t0 < f->win0)
			f->win0 = t0;
		if (t1 > f->win1)
			f->win1 = t1;
		break;
	}
}

void trace_bad(struct trace_an *an, size_t file, const struct rec *r, const char *msg)
{
	struct tr_file *f = &an->files[file];

	f->skipped++;
	if (r->ev == BAD_FATAL)
		f->fatal = true;
	else if (strstr(msg, "--tolerant)"))
		f->cut_kept = true;
	if (!f->first_bad[0] || (r->ev == BAD_FATAL && !f->fatal))
		snprintf(f->first_bad, sizeof(f->first_bad), "%s", msg);
}

/* ---- helpers ------------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* an interval; .op indexes the op (or file) that starts it */
#define ival tr_span

static int cmp_ival(const void *a, const void *b)
{
	const struct ival *x = a, *y = b;
	if (x->t0 != y->t0)
		return (x->t0 > y->t0) - (x->t0 < y->t0);
	return (x->t1 > y->t1) - (x->t1 < y->t1);
}

/* Merge sorted intervals in place; returns the count and the union length.
 * Each merged block keeps the op that starts it. */
static size_t merge(struct ival *v, size_t n, int64_t *len)
{
	size_t m = 0;
	*len = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && v[i].t0 <= v[m - 1].t1) {
			if (v[i].t1 > v[m - 1].t1)
				v[m - 1].t1 = v[i].t1;
			continue;
		}
		v[m++] = v[i];
	}
	for (size_t i = 0; i < m; i++)
		*len += v[i].t1 - v[i].t0;
	return m;
}

/* Nearest-rank percentile of sorted values. */
static int64_t pct(const int64_t *v, size_t n, double q)
{
	size_t k = (size_t)ceil(q * (double)n);
	if (k < 1)
		k = 1;
	return v[k - 1];
}

double trace_latency_entropy(const int64_t *lat, size_t n)
{
	uint64_t bins[65] = { 0 };
	double h = 0;

	if (!n)
		return NAN;
	for (size_t i = 0; i < n; i++)
		bins[lat[i] <= 0 ? 0 : 64 - __builtin_clzll((unsigned long long)lat[i])]++;
	for (int i = 0; i < 65; i++)
		if (bins[i]) {
			double p = (double)bins[i] / (double)n;
			h -= p * log2(p);
		}
	return h == 0 ? 0 : h;	/* no -0 */
}

static struct tr_health *health_add(struct tr_health **v, size_t *n, size_t *alloc, const char *code)
{
	struct tr_health *h;
	ALLOC_GROW(*v, *n + 1, *alloc);
	h = &(*v)[(*n)++];
	h->code = code;
	h->message[0] = '\0';
	return h;
}

#define DEV_HEALTH(d, code) health_add(&(d)->health, &(d)->nhealth, &(d)->health_alloc, code)

/* ---- correlation --------------------------------------------------------- */

struct corr_map {
	uint64_t *keys;
	size_t *vals;
	size_t cap;
};

static uint64_t corr_key(size_t file, int64_t pid, int64_t corr)
{
	return ((uint64_t)file << 48) ^ ((uint64_t)pid << 32) ^ (uint64_t)corr;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

/* The runtime call of each correlation id (the first, if repeated). */
static void corr_build(struct corr_map *m, const struct trace_an *an)
{
	size_t cap = 16;
	while (cap < an->ncalls * 2 + 16)
		cap *= 2;
	m->cap = cap;
	m->keys = xmalloc(cap * sizeof(*m->keys));
	m->vals = xmalloc(cap * sizeof(*m->vals));
	for (size_t i = 0; i < cap; i++)
		m->vals[i] = SIZE_MAX;
	for (size_t i = 0; i < an->ncalls; i++) {
		const struct tr_call *c = &an->calls[i];
		uint64_t k;
		size_t h;
		if (c->corr < 0)
			continue;
		k = corr_key(c->file, c->pid, c->corr);
		h = mix(k) & (cap - 1);
		while (m->vals[h] != SIZE_MAX && m->keys[h] != k)
			h = (h + 1) & (cap - 1);
		if (m->vals[h] == SIZE_MAX) {
			m->keys[h] = k;
			m->vals[h] = i;
		}
	}
}

/* The call that launched op o, or SIZE_MAX.  GPU ops of a Kineto trace
 * carry pid -1 like its calls: the file is the process; an Nsight export
 * gives both sides their process, as correlation ids repeat across them. */
static size_t corr_find(const struct corr_map *m, const struct tr_op *o)
{
	uint64_t k;
	size_t h;
	if (o->corr < 0)
		return SIZE_MAX;
	k = corr_key(o->file, o->pid, o->corr);
	h = mix(k) & (m->cap - 1);
	while (m->vals[h] != SIZE_MAX) {
		if (m->keys[h] == k)
			return m->vals[h];
		h = (h + 1) & (m->cap - 1);
	}
	return SIZE_MAX;
}

static bool is_launch_call(const char *name)
{
	return strstr(name, "Launch") || !strncmp(name, "cudaMemcpy", 10) ||
	       !strncmp(name, "cudaMemset", 10) || !strncmp(name, "cuMemcpy", 8) ||
	       !strncmp(name, "cuMemset", 8);
}

/* ---- the cut ------------------------------------------------------------- */

static void resolve_cut(struct trace_an *an)
{
	int64_t start = INT64_MAX;

	for (size_t i = 0; i < an->nfiles; i++)
		if (an->files[i].t0 < start)
			start = an->files[i].t0;
	if (start == INT64_MAX)
		start = 0;
	if (an->has_since)
		an->cut0 = an->since_rel ? start + an->since : an->since;
	if (an->has_until)
		an->cut1 = an->until_rel ? start + an->until : an->until;
}

/* Clip ops to the cut: ops wholly outside are dropped (and counted). */
static void apply_cut(struct trace_an *an)
{
	size_t m = 0;

	if (an->cut0 == INT64_MIN && an->cut1 == INT64_MAX)
		return;
	for (size_t i = 0; i < an->nops; i++) {
		struct tr_op o = an->ops[i];
		if (o.t1 < an->cut0 || o.t0 > an->cut1 || (o.t1 == an->cut0 && o.t0 < o.t1)) {
			an->ops_outside++;
			continue;
		}
		if (o.t0 < an->cut0 || o.t1 > an->cut1)
			an->ops_clipped++;
		if (o.t0 < an->cut0)
			o.t0 = an->cut0;
		if (o.t1 > an->cut1)
			o.t1 = an->cut1;
		an->ops[m++] = o;
	}
	an->nops = m;
}

/* ---- per device ------------------------------------------------------------ */

static int cmp_op_dev(const void *a, const void *b)
{
	const struct tr_op *x = a, *y = b;
	if (x->dev != y->dev)
		return (x->dev > y->dev) - (x->dev < y->dev);
	return (x->t0 > y->t0) - (x->t0 < y->t0);
}

static int64_t overlap(const struct ival *v, size_t n, int64_t a, int64_t b)
{
	int64_t s = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t lo = v[i].t0 > a ? v[i].t0 : a, hi = v[i].t1 < b ? v[i].t1 : b;
		if (hi > lo)
			s += hi - lo;
	}
	return s;
}

static int cmp_kname(const void *a, const void *b)
{
	const struct tr_op *x = *(const struct tr_op *const *)a, *y = *(const struct tr_op *const *)b;
	int64_t dx = x->t1 - x->t0, dy = y->t1 - y->t0;
	if (x->name != y->name)
		return (x->name > y->name) - (x->name < y->name);
	return (dx > dy) - (dx < dy);
}

static int cmp_top(const void *a, const void *b)
{
	const struct tr_kernel_stat *x = a, *y = b;
	if (x->total_ns != y->total_ns)
		return (x->total_ns < y->total_ns) - (x->total_ns > y->total_ns);
	return (x->name > y->name) - (x->name < y->name);
}

static void kernel_stats(struct trace_an *an, struct tr_device *d, struct tr_op *ops, size_t n)
{
	struct tr_op **k = xmalloc((d->kernels ? d->kernels : 1) * sizeof(*k));
	struct tr_kernel_stat *all = xcalloc(d->kernels ? d->kernels : 1, sizeof(*all));
	size_t nk = 0, ng = 0;

	for (size_t i = 0; i < n; i++)
		if (ops[i].kind == TR_KERNEL)
			k[nk++] = &ops[i];
	/* by name, then by duration: groups with their durations sorted */
	qsort(k, nk, sizeof(*k), cmp_kname);
	for (size_t i = 0; i < nk;) {
		size_t j = i;
		struct tr_kernel_stat *s = &all[ng++];
		double sum = 0, sq = 0, first = 0;
		int64_t first_t0 = INT64_MAX;
		s->name = k[i]->name;
		while (j < nk && k[j]->name == s->name) {
			int64_t du = k[j]->t1 - k[j]->t0;
			s->total_ns += du;
			sum += (double)du;
			if (k[j]->t0 < first_t0) {
				first_t0 = k[j]->t0;
				first = (double)du;
			}
			j++;
		}
		s->count = j - i;
		s->mean_ns = sum / (double)s->count;
		s->p95_ns = k[i + (size_t)ceil(0.95 * (double)s->count) - 1]->t1 -
			    k[i + (size_t)ceil(0.95 * (double)s->count) - 1]->t0;
		/* steady state: without the first call (warm-up, autotuning) */
		s->cv = NAN;
		if (s->count >= 3) {
			double m = (sum - first) / (double)(s->count - 1);
			for (size_t x = i; x < j; x++) {
				double du = (double)(k[x]->t1 - k[x]->t0);
				if (k[x]->t0 == first_t0 && du == first) {
					first_t0 = INT64_MIN;	/* skip it once */
					continue;
				}
				sq += (du - m) * (du - m);
			}
			s->cv = m > 0 ? sqrt(sq / (double)(s->count - 1)) / m : NAN;
		}
		i = j;
	}
	qsort(all, ng, sizeof(*all), cmp_top);
	/* health: the biggest kernels whose steady-state time varies > 40 % */
	for (size_t i = 0, said = 0; i < ng && said < 3; i++) {
		struct tr_health *h;
		if (!(all[i].count >= 5 && all[i].cv > 0.40))
			continue;
		h = DEV_HEALTH(d, "duration_varies");
		snprintf(h->message, sizeof(h->message),
			 "kernel %.120s varies by CV %.2f over %llu calls (steady state, over 0.40): its mean is not a stable cost",
			 trace_name(an, all[i].name), all[i].cv, (unsigned long long)all[i].count);
		said++;
	}
	d->ntop = ng < an->top_n ? ng : an->top_n;
	d->top = all;
	free(k);
}

static void device(struct trace_an *an, struct tr_device *d, struct tr_op *ops, size_t n,
		   const struct corr_map *cm)
{
	struct ival *v = xmalloc(n * sizeof(*v)), *kv;
	int64_t *lat = xmalloc(n * sizeof(*lat));
	size_t nv, nk = 0, nlat = 0, small = 0, cuts = 0;
	int64_t len;

	d->dev = ops[0].dev;
	/* the span: the union of the spans of the files with work on this device
	 * (two captures minutes apart are two pieces, not one long idle) */
	{
		size_t nf = 0;
		for (size_t f = 0; f < an->nfiles; f++) {
			bool mine = false;
			int64_t a = an->files[f].t0, b = an->files[f].t1;
			for (size_t i = 0; i < n && !mine; i++)
				mine = ops[i].file == f;
			if (a < an->cut0)
				a = an->cut0;
			if (b > an->cut1)
				b = an->cut1;
			if (mine && b > a)
				v[nf++] = (struct ival){ a, b, f };
		}
		qsort(v, nf, sizeof(*v), cmp_ival);
		nf = merge(v, nf, &d->span_ns);
		d->spans = xmalloc((nf ? nf : 1) * sizeof(*d->spans));
		memcpy(d->spans, v, nf * sizeof(*v));
		d->nspans = nf;
		d->span0 = nf ? v[0].t0 : 0;
		d->span1 = nf ? v[nf - 1].t1 : 0;
	}
	/* per kind */
	for (int kind = TR_KERNEL; kind <= TR_MEMSET; kind++) {
		nv = 0;
		for (size_t i = 0; i < n; i++)
			if (ops[i].kind == kind)
				v[nv++] = (struct ival){ ops[i].t0, ops[i].t1, i };
		if (kind == TR_KERNEL) {
			d->kernels = nv;
			for (size_t i = 0; i < nv; i++) {
				int64_t du = v[i].t1 - v[i].t0;
				d->kernel_sum_ns += du;
				small += du < TRACE_SMALL_KERNEL_NS;
				d->zero_kernels += du == 0;
			}
		}
		qsort(v, nv, sizeof(*v), cmp_ival);
		merge(v, nv, &len);
		if (kind == TR_KERNEL)
			d->kernel_union_ns = len;
		else if (kind == TR_MEMCPY)
			d->memcpys = nv, d->memcpy_ns = len;
		else
			d->memsets = nv, d->memset_ns = len;
	}
	/* active: the union of all three; the gaps in the span are idle */
	for (size_t i = 0; i < n; i++)
		v[i] = (struct ival){ ops[i].t0, ops[i].t1, i };
	qsort(v, n, sizeof(*v), cmp_ival);
	nv = merge(v, n, &d->active_ns);
	/* idle: the gaps between active stretches, inside the span's pieces */
	for (size_t i = 0; i <= nv; i++) {
		int64_t g0 = i ? v[i - 1].t1 : d->span0, g1 = i < nv ? v[i].t0 : d->span1;
		size_t call;
		int64_t l;
		if (g1 <= g0)
			continue;
		call = i < nv ? corr_find(cm, &ops[v[i].op]) : SIZE_MAX;
		if (i < nv && call == SIZE_MAX) {
			d->unmatched_gap_ns += overlap(d->spans, d->nspans, g0, g1);
			continue;
		}
		/* before the launch of the op that ends the gap no work was
		 * queued; after the last op nothing was */
		l = i < nv ? an->calls[call].t0 : g1;
		if (l < g0)
			l = g0;
		if (l > g1)
			l = g1;
		d->host_wait_ns += overlap(d->spans, d->nspans, g0, l);
		d->queued_gap_ns += overlap(d->spans, d->nspans, l, g1);
	}
	d->idle_ns = d->host_wait_ns + d->queued_gap_ns + d->unmatched_gap_ns;
	/* launch latency of kernels */
	for (size_t i = 0; i < n; i++) {
		size_t call;
		if (ops[i].kind != TR_KERNEL)
			continue;
		nk++;
		if ((call = corr_find(cm, &ops[i])) != SIZE_MAX)
			lat[nlat++] = ops[i].t0 - an->calls[call].t0;
	}
	d->latency_n = nlat;
	d->lat_p50_ns = d->lat_p95_ns = 0;
	d->lat_entropy_bits = trace_latency_entropy(lat, nlat);
	if (nlat) {
		qsort(lat, nlat, sizeof(*lat), cmp_i64);
		d->lat_p50_ns = pct(lat, nlat, 0.50);
		d->lat_p95_ns = pct(lat, nlat, 0.95);
	}
	d->small_share = nk ? (double)small / (double)nk : NAN;
	d->memcpy_per_kernel = nk ? (double)d->memcpys / (double)nk : NAN;
	/* steps: active time inside each ProfilerStep of the files of this device */
	kv = v;
	for (size_t s = 0; s < an->nsteps; s++) {
		const struct tr_step *st = &an->steps[s];
		bool mine = false;
		int64_t a = st->t0 > an->cut0 ? st->t0 : an->cut0;
		int64_t b = st->t1 < an->cut1 ? st->t1 : an->cut1;
		for (size_t i = 0; i < n && !mine; i++)
			mine = ops[i].file == st->file;
		if (!mine || b <= a)
			continue;
		cuts += a != st->t0 || b != st->t1;
		d->steps = xreallocarray(d->steps, d->nsteps + 1, sizeof(*d->steps));
		d->steps[d->nsteps++] = (struct tr_step_stat){ st->n, a, b, overlap(kv, nv, a, b), NAN };
	}
	(void)cuts;
	kernel_stats(an, d, ops, n);
	if (d->kernels && d->zero_kernels * 100 > d->kernels * 15) {
		struct tr_health *h = DEV_HEALTH(d, "zero_duration");
		snprintf(h->message, sizeof(h->message),
			 "%llu of %llu kernels (%.1f %%, over 15 %%) have zero duration: the timings are not trustworthy",
			 (unsigned long long)d->zero_kernels, (unsigned long long)d->kernels,
			 100.0 * (double)d->zero_kernels / (double)d->kernels);
	}
	if (d->kernels && d->memcpys > 3 * d->kernels) {
		struct tr_health *h = DEV_HEALTH(d, "memcpy_heavy");
		snprintf(h->message, sizeof(h->message),
			 "%llu memcpy events for %llu kernels (more than 3 per kernel): copies, not kernels, shape this trace",
			 (unsigned long long)d->memcpys, (unsigned long long)d->kernels);
	}
	free(lat);
	free(v);
}

static int cmp_step(const void *a, const void *b)
{
	const struct tr_step *x = a, *y = b;
	return (x->t0 > y->t0) - (x->t0 < y->t0);
}

/* Checks about the inputs as a whole: cuts, launches without GPU work. */
static void input_health(struct trace_an *an, const struct corr_map *cm)
{
	uint64_t launches = 0, lonely = 0, late = 0;
	uint64_t ops_no_call = 0, early = 0;

	for (size_t i = 0; i < an->nfiles; i++) {
		const struct tr_file *f = &an->files[i];
		struct tr_health *h;
		if (f->fatal) {
			h = health_add(&an->health, &an->nhealth, &an->health_alloc, "unreadable");
			snprintf(h->message, sizeof(h->message), "%.90s: not read to the end: %.140s", f->path, f->first_bad);
		} else if (f->cut_kept) {
			h = health_add(&an->health, &an->nhealth, &an->health_alloc, "truncated");
			snprintf(h->message, sizeof(h->message),
				 "%.100s was cut short: %llu complete events before the cut were read (--tolerant)",
				 f->path, (unsigned long long)f->events);
		}
	}
	/* which calls have GPU work */
	for (size_t i = 0; i < an->nops; i++) {
		size_t c = corr_find(cm, &an->ops[i]);
		if (c != SIZE_MAX) {
			an->calls[c].matched = true;
		} else if (an->ops[i].corr >= 0) {
			const struct tr_file *f = &an->files[an->ops[i].file];
			ops_no_call++;
			early += an->ops[i].t0 - f->t0 < (f->t1 - f->t0) / 10;
		}
	}
	for (size_t i = 0; i < an->ncalls; i++) {
		const struct tr_call *c = &an->calls[i];
		const struct tr_file *f = &an->files[c->file];
		if (!is_launch_call(trace_name(an, c->name)))
			continue;
		if (c->t0 < an->cut0 || c->t0 > an->cut1)
			continue;
		launches++;
		if (c->matched)
			continue;
		lonely++;
		late += f->t1 - c->t0 < (f->t1 - f->t0) / 10;
	}
	if (lonely) {
		struct tr_health *h = health_add(&an->health, &an->nhealth, &an->health_alloc, "launch_without_kernel");
		snprintf(h->message, sizeof(h->message),
			 "%llu of %llu launch calls have no GPU activity in the trace%s",
			 (unsigned long long)lonely, (unsigned long long)launches,
			 late * 2 > lonely ? " (most in the last tenth: the profiler window clipped them)" : "");
	}
	if (ops_no_call) {
		struct tr_health *h = health_add(&an->health, &an->nhealth, &an->health_alloc, "kernel_without_launch");
		snprintf(h->message, sizeof(h->message),
			 "%llu GPU ops have no runtime call with their correlation id%s",
			 (unsigned long long)ops_no_call,
			 early * 2 > ops_no_call ? " (most in the first tenth: launched before the profiler window)" : "");
	}
	for (size_t i = 0; i < an->nfiles; i++) {
		const struct tr_file *f = &an->files[i];
		uint64_t past = 0;
		if (f->win0 == INT64_MIN)
			continue;
		for (size_t k = 0; k < an->nops; k++)
			past += an->ops[k].file == i && (an->ops[k].t1 > f->win1 || an->ops[k].t0 < f->win0);
		if (past) {
			struct tr_health *h = health_add(&an->health, &an->nhealth, &an->health_alloc, "window_clipped");
			snprintf(h->message, sizeof(h->message),
				 "%.100s: %llu GPU ops reach outside the profiler's window: it cut work that was running",
				 f->path, (unsigned long long)past);
		}
	}
}

static double share(int64_t part, int64_t whole)
{
	return whole > 0 ? (double)part / (double)whole : NAN;
}

/* The shares every writer prints: of each device's span, of each step's time. */
static void shares(struct trace_an *an)
{
	for (size_t i = 0; i < an->ndevs; i++) {
		struct tr_device *d = &an->devs[i];
		d->kernel_union_share = share(d->kernel_union_ns, d->span_ns);
		d->active_share = share(d->active_ns, d->span_ns);
		for (size_t s = 0; s < d->nsteps; s++)
			d->steps[s].active_share = share(d->steps[s].active_ns, d->steps[s].t1 - d->steps[s].t0);
	}
}

void trace_compute(struct trace_an *an)
{
	struct corr_map cm = { 0 };
	size_t i = 0;

	resolve_cut(an);
	apply_cut(an);
	if (an->nsteps)
		qsort(an->steps, an->nsteps, sizeof(*an->steps), cmp_step);
	corr_build(&cm, an);
	input_health(an, &cm);
	if (an->nops)
		qsort(an->ops, an->nops, sizeof(*an->ops), cmp_op_dev);
	while (i < an->nops) {
		size_t j = i;
		while (j < an->nops && an->ops[j].dev == an->ops[i].dev)
			j++;
		an->devs = xreallocarray(an->devs, an->ndevs + 1, sizeof(*an->devs));
		memset(&an->devs[an->ndevs], 0, sizeof(an->devs[0]));
		device(an, &an->devs[an->ndevs++], an->ops + i, j - i, &cm);
		i = j;
	}
	shares(an);
	free(cm.keys);
	free(cm.vals);
}

void trace_release(struct trace_an *an)
{
	for (size_t i = 0; i < an->ndevs; i++) {
		free(an->devs[i].top);
		free(an->devs[i].steps);
		free(an->devs[i].spans);
		free(an->devs[i].health);
	}
	for (size_t i = 0; i < an->nnames; i++)
		free(an->names[i]);
	free(an->names);
	free(an->name_hash);
	free(an->devs);
	free(an->health);
	free(an->ops);
	free(an->calls);
	free(an->steps);
	free(an->files);
	memset(an, 0, sizeof(*an));
}
