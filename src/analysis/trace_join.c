/* SPDX-License-Identifier: MIT */
/* Traces joined to the report's GPUs (see trace_join.h and analysis.h). */
#include "analysis/trace_join.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/trace.h"
#include "util/xalloc.h"

void trace_join_add(struct analysis *an, const struct rec *r, const struct batch *b, const char *src)
{
	size_t f;
	const char *uuid = batch_str(b, r->uuid);

	if (!an->trace) {
		an->trace = xmalloc(sizeof(*an->trace));
		trace_init(an->trace, 0);
	}
	f = trace_file(an->trace, src);
	trace_add(an->trace, f, r, b);
	if (uuid && r->ev <= TR_MEMSET && r->gpu_index >= 0) {
		struct trace_uuid *u;
		const char *path = an->trace->files[f].path;
		for (size_t i = an->ntrace_uuids; i-- > 0;)
			if (an->trace_uuids[i].file == path && an->trace_uuids[i].device == r->gpu_index)
				return;
		ALLOC_GROW(an->trace_uuids, an->ntrace_uuids + 1, an->trace_uuids_alloc);
		u = &an->trace_uuids[an->ntrace_uuids++];
		u->file = path;
		u->device = r->gpu_index;
		snprintf(u->uuid, sizeof(u->uuid), "%s", uuid);
	}
}

void analysis_bad(struct analysis *an, const struct rec *r, const char *msg, const char *src)
{
	if (!an->trace)
		return;
	for (size_t f = 0; f < an->trace->nfiles; f++)
		if (an->trace->files[f].path == src || !strcmp(an->trace->files[f].path, src)) {
			trace_bad(an->trace, f, r, msg ? msg : "");
			return;
		}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

int64_t trace_join_median(int64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_i64);
	return v[(n - 1) / 2];
}

struct iv {
	int64_t t0, t1;
};

static int cmp_iv(const void *a, const void *b)
{
	const struct iv *x = a, *y = b;
	if (x->t0 != y->t0)
		return (x->t0 > y->t0) - (x->t0 < y->t0);
	return (x->t1 > y->t1) - (x->t1 < y->t1);
}

/* Length of the union of v[0..n), sorted first. */
static int64_t union_ns(struct iv *v, size_t n)
{
	int64_t len = 0, a = 0, b = 0;
	bool open = false;

	qsort(v, n, sizeof(*v), cmp_iv);
	for (size_t i = 0; i < n; i++) {
		if (open && v[i].t0 <= b) {
			if (v[i].t1 > b)
				b = v[i].t1;
			continue;
		}
		if (open)
			len += b - a;
		a = v[i].t0;
		b = v[i].t1;
		open = true;
	}
	return open ? len + b - a : 0;
}

static const char *uuid_of(const struct analysis *an, const char *file, int32_t dev)
{
	for (size_t i = 0; i < an->ntrace_uuids; i++)
		if (an->trace_uuids[i].file == file && an->trace_uuids[i].device == dev)
			return an->trace_uuids[i].uuid;
	return NULL;
}

/* utilization.gpu over the display buckets that [t0, t1) touches */
static void util_over(const struct gpu_series *s, struct trace_join *j)
{
	double u = 0, k = 0, use = 0, cov = 0;
	int64_t k0, k1;

	j->util_pct = NAN;
	j->w0_ns = j->t0_ns;
	j->w1_ns = j->t1_ns;
	j->bucket_s = s->width_ns / 1e9;
	if (!s->b || !s->n || !s->width_ns)
		return;
	k0 = j->t0_ns < s->base_ns ? 0 : (j->t0_ns - s->base_ns) / s->width_ns;
	k1 = j->t1_ns <= s->base_ns ? 0 : (j->t1_ns - s->base_ns + s->width_ns - 1) / s->width_ns;
	if (k1 <= k0)
		k1 = k0 + 1;
	if (k1 > (int64_t)s->n)
		k1 = (int64_t)s->n;
	j->w0_ns = s->base_ns + k0 * s->width_ns;
	j->w1_ns = s->base_ns + k1 * s->width_ns;
	for (int64_t i = k0; i < k1; i++) {
		u += s->b[i].sum[SER_UTIL];
		k += s->b[i].known_s[SER_UTIL];
		for (int st = 0; st < ST__COUNT; st++) {
			if (st == ST_GAP)
				continue;
			cov += s->b[i].state_s[st];
			if (state_is_useful(st))
				use += s->b[i].state_s[st];
		}
	}
	j->useful_state_s = cov > 0 ? use / cov * j->span_s : 0;
	j->util_known_s = k;
	if (k > 0)
		j->util_pct = u / k;
}

/* The kernels, copies and memsets of one file on one device. */
static void measure(const struct trace_an *ta, size_t file, struct trace_join *j)
{
	struct iv *all = xmalloc((ta->nops ? ta->nops : 1) * sizeof(*all));
	struct iv *kern = xmalloc((ta->nops ? ta->nops : 1) * sizeof(*kern));
	int64_t *dur, *gap;
	size_t na = 0, nk = 0, ng = 0;

	for (size_t i = 0; i < ta->nops; i++) {
		const struct tr_op *o = &ta->ops[i];
		if (o->file != file || o->dev != j->device)
			continue;
		all[na++] = (struct iv){ o->t0, o->t1 };
		if (o->kind == TR_KERNEL)
			kern[nk++] = (struct iv){ o->t0, o->t1 };
	}
	j->active_s = union_ns(all, na) / 1e9;
	j->kernel_s = union_ns(kern, nk) / 1e9;	/* sorts kern by start */
	j->kernels = nk;
	dur = xmalloc((nk ? nk : 1) * sizeof(*dur));
	gap = xmalloc((nk ? nk : 1) * sizeof(*gap));
	for (size_t i = 0; i < nk; i++) {
		dur[i] = kern[i].t1 - kern[i].t0;
		if (i + 1 < nk)
			gap[ng++] = kern[i + 1].t0 > kern[i].t1 ? kern[i + 1].t0 - kern[i].t1 : 0;
	}
	j->kernel_p50_ns = trace_join_median(dur, nk);
	j->gap_p50_ns = trace_join_median(gap, ng);
	free(dur);
	free(gap);
	free(all);
	free(kern);
}

struct pair {
	size_t file;
	int32_t dev;
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return (x->dev > y->dev) - (x->dev < y->dev);
}

/* The (file, device) pairs with GPU work, in that order; *n set. */
static struct pair *pairs(const struct trace_an *ta, size_t *n)
{
	struct pair *p = NULL;
	size_t np = 0, alloc = 0;

	for (size_t i = 0; i < ta->nops; i++) {
		const struct tr_op *o = &ta->ops[i];
		bool seen = false;
		for (size_t k = np; k-- > 0 && !seen;)
			seen = p[k].file == o->file && p[k].dev == o->dev;
		if (seen)
			continue;
		ALLOC_GROW(p, np + 1, alloc);
		p[np++] = (struct pair){ o->file, o->dev };
	}
	if (np > 1)
		qsort(p, np, sizeof(*p), cmp_pair);
	*n = np;
	return p;
}

/* The GPU of the report that trace device dev of file f is, or -1 (why set). */
static int match(const struct analysis *an, const char *file, int32_t dev, const char **how,
		 char *why, size_t cap)
{
	const char *uuid = uuid_of(an, file, dev);

	for (int gi = 0; uuid && gi < an->tl.ngpus; gi++)
		if (!strcmp(an->tl.gpus[gi].id.uuid, uuid)) {
			*how = "uuid";
			return gi;
		}
	for (int gi = 0; gi < an->tl.ngpus; gi++) {
		const struct gpu_ident *id = &an->tl.gpus[gi].id;
		if (id->index != dev)
			continue;
		if (uuid && id->uuid[0]) {
			snprintf(why, cap, "GPU %d of the logs is %.40s, the trace's device %d is %.40s", id->index,
				 id->uuid, dev, uuid);
			return -1;
		}
		*how = "device index";
		return gi;
	}
	snprintf(why, cap, "no log of a GPU with index %d%s%.40s", dev, uuid ? " or uuid " : "", uuid ? uuid : "");
	return -1;
}

void trace_join_gpu(struct analysis *an, int gi)
{
	const struct trace_an *ta = an->trace;
	const struct gpu_stats *g = &an->gpus[gi];
	struct pair *pv;
	size_t np;

	if (!ta)
		return;
	pv = pairs(ta, &np);
	for (size_t pi = 0; pi < np; pi++) {
		size_t f = pv[pi].file;
		int32_t dev = pv[pi].dev;
		const struct tr_file *tf = &ta->files[f];
		const char *how = NULL;
		char why[200];
		struct trace_join *j;
		if (tf->fatal || match(an, tf->path, dev, &how, why, sizeof(why)) != gi)
			continue;
		if (tf->t1 <= g->first_ns || tf->t0 >= g->last_ns)
			continue;	/* not this GPU's time: trace_join_rest() says so */
		ALLOC_GROW(an->joins, an->njoins + 1, an->joins_alloc);
		j = &an->joins[an->njoins++];
		memset(j, 0, sizeof(*j));
		j->gpu = gi;
		j->device = dev;
		j->file = tf->path;
		j->matched_by = how;
		j->t0_ns = tf->t0;
		j->t1_ns = tf->t1;
		j->span_s = (tf->t1 - tf->t0) / 1e9;
		measure(ta, f, j);
		util_over(&g->ser, j);
		j->util_busy_s = isnan(j->util_pct) ? 0 : j->util_pct / 100 * j->span_s;
		for (size_t k = 0; k + 1 < an->njoins; k++)
			if (an->joins[k].gpu == gi && an->joins[k].t0_ns < j->t1_ns &&
			    j->t0_ns < an->joins[k].t1_ns)
				j->overlaps = true;
	}
	free(pv);
}

void trace_join_rest(struct analysis *an)
{
	const struct trace_an *ta = an->trace;
	struct pair *pv;
	size_t np;

	if (!ta)
		return;
	pv = pairs(ta, &np);
	for (size_t pi = 0; pi < np; pi++) {
		size_t f = pv[pi].file;
		int32_t dev = pv[pi].dev;
		const char *how = NULL;
		struct trace_unjoined *u;
		char why[200];
		bool joined = false;
		int gi;
		for (size_t k = 0; k < an->njoins && !joined; k++)
			joined = an->joins[k].file == ta->files[f].path && an->joins[k].device == dev;
		if (joined)
			continue;
		gi = match(an, ta->files[f].path, dev, &how, why, sizeof(why));
		if (ta->files[f].fatal)
			snprintf(why, sizeof(why), "the trace cannot be read to its end: %.160s", ta->files[f].first_bad);
		else if (gi >= 0) {
			char nm[48];
			snprintf(why, sizeof(why), "the log of %s does not cover the trace's time",
				 analysis_gpu_name(an, gi, nm, sizeof(nm)));
		}
		ALLOC_GROW(an->unjoined, an->nunjoined + 1, an->unjoined_alloc);
		u = &an->unjoined[an->nunjoined++];
		u->device = dev;
		u->file = ta->files[f].path;
		snprintf(u->why, sizeof(u->why), "%s", why);
	}
	free(pv);
}

void trace_join_release(struct analysis *an)
{
	if (an->trace) {
		trace_release(an->trace);
		free(an->trace);
	}
	an->trace = NULL;
	free(an->trace_uuids);
	free(an->joins);
	free(an->unjoined);
	an->trace_uuids = NULL;
	an->joins = NULL;
	an->unjoined = NULL;
}

double analysis_useful_s(const struct analysis *an, int gi, double *replaced, double *from_traces)
{
	const struct gpu_stats *g = &an->gpus[gi];
	double out = 0, rep = 0, add = 0;

	for (int st = 0; st < ST__COUNT; st++)
		if (state_is_useful(st))
			out += g->state_s[st];
	for (size_t k = 0; k < an->njoins; k++) {
		const struct trace_join *j = &an->joins[k];
		if (j->gpu != gi || j->overlaps)
			continue;
		rep += j->useful_state_s;
		add += j->kernel_s;
	}
	out += add - rep;
	if (replaced)
		*replaced = rep;
	if (from_traces)
		*from_traces = add;
	return out < 0 ? 0 : out;
}
