/* SPDX-License-Identifier: MIT */
/*
 * Placing time-less logs by content (see place.h).
 *
 * The aligner works on per-tick buckets.  A coarse pass correlates x with
 * ref at every offset where at least half of the shorter one overlaps
 * (Pearson r per usable metric, averaged), on series downsampled by a power
 * of two so that the work stays under a fixed budget.  The best offset
 * seeds a band in which a dynamic programme finds the monotone path (each
 * sample one to three ticks after the one before, a longer step costing a
 * little) that matches readings best: a log that lost a row is still placed
 * sample by sample, not smeared by one constant offset.
 */
#include "formats/place.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strfmt.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

/* below this spread a metric says nothing about where a log lies */
static const double min_spread[PL_NM] = { 5.0, 3.0, 256.0, 30.0 };
/* what one "unit" of mismatch is, per metric, for the path cost */
static const double scale[PL_NM] = { 25.0, 10.0, 1024.0, 100.0 };

#define NCC_BUDGET 20000000.0	/* pairs the coarse pass may compare */
#define DP_BUDGET 8000000u	/* cells (one byte each) the path may use */
#define MIN_SAMPLES 20
#define MIN_R 0.85		/* correlation along the path to be placed */
#define MIN_MARGIN 0.15		/* over the best clearly different offset */
#define UNMATCHED 1.0		/* path cost of a sample that meets no reading */
#define STEP_COST 0.3		/* per tick skipped */

void pl_series_release(struct pl_series *s)
{
	free(s->v);
	free(s->cnt);
	s->v = NULL;
	s->cnt = NULL;
	s->n = s->alloc = 0;
}

void pl_series_add(struct pl_series *s, size_t i, int m, double v)
{
	if (i >= PL_MAX_BUCKETS) {
		s->truncated = true;
		return;
	}
	if (i >= s->alloc) {
		size_t na = s->alloc ? s->alloc : 256;
		while (na <= i)
			na *= 2;
		s->v = xrealloc(s->v, na * sizeof(*s->v));
		s->cnt = xrealloc(s->cnt, na * sizeof(*s->cnt));
		for (size_t k = s->alloc; k < na; k++)
			for (int q = 0; q < PL_NM; q++) {
				s->v[k][q] = NAN;
				s->cnt[k][q] = 0;
			}
		s->alloc = na;
	}
	if (i >= s->n)
		s->n = i + 1;
	if (isnan(v) || s->cnt[i][m] == UINT16_MAX)
		return;
	/* a running mean: several readings of one tick (a 500 ms log) average */
	if (!s->cnt[i][m])
		s->v[i][m] = (float)v;
	else
		s->v[i][m] += (float)((v - s->v[i][m]) / (s->cnt[i][m] + 1));
	s->cnt[i][m]++;
}

void pl_fit_release(struct pl_fit *f)
{
	free(f->t_ns);
	f->t_ns = NULL;
}

/* ---- the aligner --------------------------------------------------------- */

static void spread(const struct pl_series *s, int m, double *sd, size_t *nv)
{
	double sum = 0, sq = 0;
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++) {
		double v = s->v[i][m];
		if (isnan(v))
			continue;
		sum += v;
		sq += v * v;
		n++;
	}
	*nv = n;
	*sd = n > 1 ? sqrt(fmax(0, (sq - sum * sum / (double)n) / (double)(n - 1))) : 0;
}

/* Mean of every d buckets (NAN-aware) into a fresh array of ceil(n/d). */
static float *downsample(const struct pl_series *s, int m, size_t d, size_t *out_n)
{
	size_t n = (s->n + d - 1) / d;
	float *o = xmalloc((n ? n : 1) * sizeof(*o));

	for (size_t i = 0; i < n; i++) {
		double sum = 0;
		size_t c = 0;
		for (size_t k = i * d; k < (i + 1) * d && k < s->n; k++)
			if (!isnan(s->v[k][m])) {
				sum += s->v[k][m];
				c++;
			}
		o[i] = c ? (float)(sum / (double)c) : NAN;
	}
	*out_n = n;
	return o;
}

/* Pearson r of x[k] and y[k + off] over the pairs where both are read. */
static double pearson(const float *x, size_t nx, const float *y, size_t ny, long off,
		      size_t min_pairs)
{
	double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, vx, vy;
	size_t c = 0;
	long k0 = off < 0 ? -off : 0;

	for (long k = k0; k < (long)nx && k + off < (long)ny; k++) {
		double a = x[k], b = y[k + off];
		if (isnan(a) || isnan(b))
			continue;
		sx += a;
		sy += b;
		sxx += a * a;
		syy += b * b;
		sxy += a * b;
		c++;
	}
	if (c < min_pairs || c < 3)
		return NAN;
	vx = sxx - sx * sx / (double)c;
	vy = syy - sy * sy / (double)c;
	if (vx <= 1e-9 || vy <= 1e-9)
		return 0;	/* flat over this overlap: no evidence either way */
	return (sxy - sx * sy / (double)c) / sqrt(vx * vy);
}

struct coarse {
	long best;		/* offset in full-resolution ticks */
	double r_best, r_other;
	size_t d;
};

/* The coarse pass: the best constant offset, and the best one clearly apart. */
static void coarse_pass(const struct pl_series *x, const struct pl_series *ref,
			const bool *use, struct coarse *out)
{
	size_t d = 1, nx, nr, shorter;
	float *xs[PL_NM] = { 0 }, *ys[PL_NM] = { 0 };
	double *score;
	long lo, hi, away;
	size_t min_pairs;

	while ((double)(x->n / d + 1) * (double)((x->n + ref->n) / d + 1) * PL_NM > NCC_BUDGET)
		d *= 2;
	nx = (x->n + d - 1) / d;
	nr = (ref->n + d - 1) / d;
	for (int m = 0; m < PL_NM; m++)
		if (use[m]) {
			xs[m] = downsample(x, m, d, &nx);
			ys[m] = downsample(ref, m, d, &nr);
		}
	shorter = nx < nr ? nx : nr;
	min_pairs = shorter / 2 > 3 ? shorter / 2 : 3;
	lo = -(long)(nx - min_pairs);
	hi = (long)(nr - min_pairs);
	score = xmalloc((size_t)(hi - lo + 1) * sizeof(*score));
	out->best = 0;
	out->r_best = out->r_other = -2;
	out->d = d;
	for (long o = lo; o <= hi; o++) {
		double sum = 0;
		int nm = 0;
		for (int m = 0; m < PL_NM; m++) {
			double r;
			if (!use[m])
				continue;
			r = pearson(xs[m], nx, ys[m], nr, o, min_pairs * 6 / 10);
			if (isnan(r))
				continue;
			sum += r;
			nm++;
		}
		score[o - lo] = nm ? sum / nm : -2;
		if (score[o - lo] > out->r_best) {
			out->r_best = score[o - lo];
			out->best = o;
		}
	}
	/* "clearly apart": a quarter of the log, at least ten ticks */
	away = (long)((x->n / 4 > 10 ? x->n / 4 : 10) / d) + 1;
	for (long o = lo; o <= hi; o++)
		if (labs(o - out->best) > away && score[o - lo] > out->r_other)
			out->r_other = score[o - lo];
	out->best *= (long)d;
	free(score);
	for (int m = 0; m < PL_NM; m++) {
		free(xs[m]);
		free(ys[m]);
	}
}

/* Path cost of sample k of x at bucket j of ref; *hit: a reading was met. */
static double cell(const struct pl_series *x, size_t k, const struct pl_series *ref, long j,
		   const bool *use, bool *hit)
{
	double sum = 0;
	int c = 0, xm = 0;

	*hit = false;
	for (int m = 0; m < PL_NM; m++) {
		double a, b, z;
		if (!use[m] || isnan(a = x->v[k][m]))
			continue;
		xm++;
		if (j < 0 || j >= (long)ref->n || isnan(b = ref->v[j][m]))
			continue;
		z = (a - b) / scale[m];
		sum += fmin(z * z, 4.0);
		c++;
	}
	if (!xm)
		return 0;	/* a row with nothing to compare goes anywhere */
	if (!c)
		return UNMATCHED;
	*hit = true;
	return sum / c;
}

/*
 * The path through the band j = base + k + w, w in [0, 2W]: each sample one
 * to three ticks after the last.  Fills j_of[k].  false if over budget.
 */
static bool best_path(const struct pl_series *x, const struct pl_series *ref, const bool *use,
		      long center, long W, long *j_of)
{
	size_t n = x->n, width = (size_t)(2 * W + 1);
	uint8_t *bp;
	double *prev, *cur;
	long base = center - W;
	size_t best_w = 0;

	if ((double)n * (double)width > DP_BUDGET)
		return false;
	bp = xmalloc(n * width);
	prev = xmalloc(width * sizeof(*prev));
	cur = xmalloc(width * sizeof(*cur));
	for (size_t w = 0; w < width; w++) {
		bool hit;
		prev[w] = cell(x, 0, ref, base + (long)w, use, &hit);
		bp[w] = 0;
	}
	for (size_t k = 1; k < n; k++) {
		for (size_t w = 0; w < width; w++) {
			double best = INFINITY;
			uint8_t how = 0;
			bool hit;
			for (uint8_t s = 0; s < 3 && s <= w; s++) {
				double c = prev[w - s] + STEP_COST * s;
				if (c < best) {
					best = c;
					how = s;
				}
			}
			cur[w] = best + cell(x, k, ref, base + (long)(k + w), use, &hit);
			bp[k * width + w] = how;
		}
		memcpy(prev, cur, width * sizeof(*prev));
	}
	for (size_t w = 1; w < width; w++)
		if (prev[w] < prev[best_w])
			best_w = w;
	for (size_t k = n; k-- > 0;) {
		j_of[k] = base + (long)(k + best_w);
		if (k)
			best_w -= bp[k * width + best_w];
	}
	free(bp);
	free(prev);
	free(cur);
	return true;
}

/* Correlation along the path, averaged over the usable metrics. */
static double path_r(const struct pl_series *x, const struct pl_series *ref, const bool *use,
		     const long *j_of, size_t *matched)
{
	double sum = 0;
	int nm = 0;

	*matched = 0;
	for (size_t k = 0; k < x->n; k++) {
		bool hit;
		cell(x, k, ref, j_of[k], use, &hit);
		*matched += hit;
	}
	for (int m = 0; m < PL_NM; m++) {
		double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, vx, vy;
		size_t c = 0;
		if (!use[m])
			continue;
		for (size_t k = 0; k < x->n; k++) {
			double a = x->v[k][m], b;
			if (isnan(a) || j_of[k] < 0 || j_of[k] >= (long)ref->n ||
			    isnan(b = ref->v[j_of[k]][m]))
				continue;
			sx += a;
			sy += b;
			sxx += a * a;
			syy += b * b;
			sxy += a * b;
			c++;
		}
		if (c < 3)
			continue;
		vx = sxx - sx * sx / (double)c;
		vy = syy - sy * sy / (double)c;
		sum += vx > 1e-9 && vy > 1e-9 ? (sxy - sx * sy / (double)c) / sqrt(vx * vy) : 0;
		nm++;
	}
	return nm ? sum / nm : 0;
}

int pl_align(const struct pl_series *x, const struct pl_series *ref, struct pl_fit *fit)
{
	bool use[PL_NM] = { 0 };
	int nuse = 0;
	size_t nvx = 0, shorter, need;
	double xsd[PL_NM];
	struct coarse co;
	long W, *j_of;

	memset(fit, 0, sizeof(*fit));
	fit->r = fit->r_other = NAN;
	for (int m = 0; m < PL_NM; m++) {
		double rsd;
		size_t nx, nr;
		spread(x, m, &xsd[m], &nx);
		spread(ref, m, &rsd, &nr);
		if (nx > nvx)
			nvx = nx;
		if (nx >= MIN_SAMPLES && nr >= MIN_SAMPLES && xsd[m] >= min_spread[m] &&
		    rsd >= min_spread[m]) {
			use[m] = true;
			nuse++;
		}
	}
	if (nvx < MIN_SAMPLES) {
		snprintf(fit->why, sizeof(fit->why), "%zu sample(s), too few to align (%d needed)",
			 nvx, MIN_SAMPLES);
		return 0;
	}
	if (!nuse) {
		snprintf(fit->why, sizeof(fit->why),
			 "its readings barely change (power spread %.1f W): nothing to align on", xsd[PL_POWER]);
		return 0;
	}
	coarse_pass(x, ref, use, &co);
	if (co.r_best < -1) {
		snprintf(fit->why, sizeof(fit->why), "no overlap with the timed readings");
		return 0;
	}
	/* a band wide enough for the coarse grid and for a tenth of the rows lost */
	W = (long)(2 * co.d + 5 + x->n / 10);
	j_of = xmalloc((x->n ? x->n : 1) * sizeof(*j_of));
	if (!best_path(x, ref, use, co.best, W, j_of)) {
		W = (long)(2 * co.d + 5);
		if (!best_path(x, ref, use, co.best, W, j_of))
			for (size_t k = 0; k < x->n; k++)
				j_of[k] = co.best + (long)k;	/* the constant offset */
	}
	fit->r = path_r(x, ref, use, j_of, &fit->matched);
	fit->r_other = co.r_other;
	for (size_t k = 1; k < x->n; k++)
		fit->skipped += (size_t)(j_of[k] - j_of[k - 1] - 1);
	shorter = x->n < ref->n ? x->n : ref->n;
	need = shorter / 2 > MIN_SAMPLES ? shorter / 2 : MIN_SAMPLES;
	if (fit->matched < need)
		snprintf(fit->why, sizeof(fit->why), "best fit meets only %zu of %zu samples",
			 fit->matched, x->n);
	else if (fit->r < MIN_R)
		snprintf(fit->why, sizeof(fit->why), "best fit correlates only %.2f (%.2f needed)",
			 fit->r, MIN_R);
	else if (co.r_other > co.r_best - MIN_MARGIN)
		snprintf(fit->why, sizeof(fit->why),
			 "ambiguous: offsets far apart fit nearly as well (%.2f against %.2f)",
			 co.r_other, co.r_best);
	else
		fit->placed = true;
	if (fit->placed) {
		fit->t_ns = xmalloc((x->n ? x->n : 1) * sizeof(*fit->t_ns));
		for (size_t k = 0; k < x->n; k++)
			fit->t_ns[k] = ref->t0_ns + j_of[k] * ref->step_ns;
	}
	free(j_of);
	return 0;
}

double pl_corr_shift(const struct pl_series *x, const struct pl_series *ref, int64_t shift_ns)
{
	double rsum = 0;
	int nm = 0;

	if (!x->n || !ref->n || x->step_ns <= 0 || x->step_ns != ref->step_ns)
		return NAN;
	for (int m = 0; m < PL_NM; m++) {
		double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, vx, vy;
		size_t n = 0;
		for (size_t a = 0; a < x->n; a++) {
			int64_t d = x->t0_ns + (int64_t)a * x->step_ns + shift_ns - ref->t0_ns;
			int64_t b = d >= 0 ? (d + ref->step_ns / 2) / ref->step_ns : -1;
			double u, v;
			if (b < 0 || (size_t)b >= ref->n)
				continue;
			u = x->v[a][m];
			v = ref->v[b][m];
			if (isnan(u) || isnan(v))
				continue;
			sx += u;
			sy += v;
			sxx += u * u;
			syy += v * v;
			sxy += u * v;
			n++;
		}
		if (n < MIN_SAMPLES)
			continue;
		vx = sxx - sx * sx / (double)n;
		vy = syy - sy * sy / (double)n;
		if (sqrt(fmax(vx, 0) / (double)(n - 1)) < min_spread[m] ||
		    sqrt(fmax(vy, 0) / (double)(n - 1)) < min_spread[m])
			continue;
		rsum += (sxy - sx * sy / (double)n) / sqrt(vx * vy);
		nm++;
	}
	return nm ? rsum / nm : NAN;
}

/* ---- the pre-pass ---------------------------------------------------------- */

static const int pl_metric[PL_NM] = { M_POWER, M_UTIL_GPU, M_MEM_USED, M_SM_CLOCK };

void pl_collect_init(struct pl_collect *c, const struct ingest_opts *o, size_t ninputs)
{
	memset(c, 0, sizeof(*c));
	c->o = o;
	c->nin = ninputs;
	c->in = xcalloc(ninputs ? ninputs : 1, sizeof(*c->in));
	for (size_t i = 0; i < ninputs; i++) {
		c->in[i].t_first_ns = INT64_MIN;
		c->in[i].t_last_ns = INT64_MIN;
		c->in[i].mtime_ns = INT64_MIN;
		tick_seq_init(&c->in[i].tick);
	}
}

static struct pl_gpu_series *gpu_series(struct pl_input *in, int32_t index, const char *uuid)
{
	for (size_t i = 0; i < in->ng; i++) {
		struct pl_gpu_series *g = &in->g[i];
		if (uuid && g->uuid[0] ? !strcmp(g->uuid, uuid) : g->index == index) {
			if (uuid && !g->uuid[0])
				snprintf(g->uuid, sizeof(g->uuid), "%s", uuid);
			return g;
		}
	}
	if (in->ng == 64)
		return NULL;	/* a log of more GPUs than that: the rest do not vote */
	in->g = xrealloc(in->g, (in->ng + 1) * sizeof(*in->g));
	memset(&in->g[in->ng], 0, sizeof(in->g[0]));
	in->g[in->ng].index = index;
	if (uuid)
		snprintf(in->g[in->ng].uuid, sizeof(in->g[0].uuid), "%s", uuid);
	return &in->g[in->ng++];
}

void pl_collect_rec(struct pl_collect *c, size_t i, const struct rec *r, const struct batch *b)
{
	struct pl_input *in = &c->in[i];
	const char *uuid;
	struct pl_gpu_series *g;
	int64_t step = c->o->interval_ns > 0 ? c->o->interval_ns : NS_PER_S;
	size_t k = 0;

	if (r->kind != REC_SAMPLE && r->kind != REC_PROC)
		return;
	/* ticks as the driver counts them (resolve_time, ticks.h) */
	if (r->time_kind == TK_NONE) {
		if (tick_seq_next(&in->tick, r, b))
			in->ticks++;
	} else if (r->time_kind == TK_FILE && !in->ticks) {
		in->ticks = 1;
	}
	if (r->kind != REC_SAMPLE)
		return;
	uuid = batch_str(b, r->uuid);
	if (uuid && !uuid[0])
		uuid = NULL;
	if (r->time_kind == TK_NONE || r->time_kind == TK_FILE) {
		in->timeless = true;
		k = in->ticks ? in->ticks - 1 : 0;
	} else {
		if (r->t_ns == INT64_MIN)
			return;
		in->timed = true;
		if (in->t_first_ns == INT64_MIN || r->t_ns < in->t_first_ns)
			in->t_first_ns = r->t_ns;
		if (r->t_ns > in->t_last_ns)
			in->t_last_ns = r->t_ns;
	}
	if (!(g = gpu_series(in, r->gpu_index, uuid)))
		return;
	g->s.step_ns = step;
	if (r->time_kind == TK_NONE || r->time_kind == TK_FILE) {
		g->s.t0_ns = 0;
	} else {
		int64_t d;
		if (!g->s.n && !g->s.alloc)
			g->s.t0_ns = r->t_ns;
		d = r->t_ns - g->s.t0_ns;
		if (d < -step / 2)
			return;	/* before the first sample: out of order, not worth a bucket */
		k = (size_t)((d + step / 2) / step);
	}
	for (int m = 0; m < PL_NM; m++)
		pl_series_add(&g->s, k, m, r->present & (1u << pl_metric[m]) ? r->v[pl_metric[m]] : NAN);
}

void pl_collect_release(struct pl_collect *c)
{
	for (size_t i = 0; i < c->nin; i++) {
		for (size_t k = 0; k < c->in[i].ng; k++)
			pl_series_release(&c->in[i].g[k].s);
		free(c->in[i].g);
		tick_seq_release(&c->in[i].tick);
	}
	free(c->in);
	memset(c, 0, sizeof(*c));
}

static bool same_gpu(const struct pl_gpu_series *a, const struct pl_gpu_series *b)
{
	if (a->uuid[0] && b->uuid[0])
		return !strcmp(a->uuid, b->uuid);
	return a->index == b->index;	/* one host per report: the index names it */
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

const struct pl_series *pl_same_gpu(const struct pl_input *in, const struct pl_gpu_series *g)
{
	for (size_t k = 0; k < in->ng; k++)
		if (same_gpu(g, &in->g[k]))
			return &in->g[k].s;
	return NULL;
}

/* A timed input whose file time is far from its last sample: the file times
 * of this set were reset (a copy, an archive), and say nothing. */
static int reset_file_time(const struct pl_collect *c)
{
	for (size_t i = 0; i < c->nin; i++) {
		const struct pl_input *in = &c->in[i];
		if (in->timed && in->mtime_ns != INT64_MIN && in->t_last_ns != INT64_MIN &&
		    llabs(in->mtime_ns - in->t_last_ns) > 600 * NS_PER_S)
			return (int)i;
	}
	return -1;
}

/* Place input i by its file time, unless something says otherwise. */
static void by_file_time(struct pl_collect *c, struct ingest_result *res, size_t i,
			 const char *content_why)
{
	struct pl_input *in = &c->in[i];
	struct input_stat *st = &res->inputs[i];
	int64_t step = c->o->interval_ns, t1 = in->mtime_ns, t0 = t1 - (int64_t)in->ticks * step;
	int reset = reset_file_time(c);
	char a[40], b[40];

	if (reset >= 0) {
		snprintf(st->skip_reason, sizeof(st->skip_reason),
			 "no time in the file; %s; and file times are not write times here "
			 "(%s ends %s, its file time is %s): not counted (see --start)",
			 content_why, base_name(res->inputs[reset].path),
			 time_rfc3339(a, sizeof(a), c->in[reset].t_last_ns),
			 time_rfc3339(b, sizeof(b), c->in[reset].mtime_ns));
		return;
	}
	for (size_t r = 0; r < c->nin; r++) {
		const struct pl_input *ti = &c->in[r];
		if (!ti->timed || t1 < ti->t_first_ns || t0 > ti->t_last_ns)
			continue;
		for (size_t gx = 0; gx < in->ng; gx++)
			for (size_t gr = 0; gr < ti->ng; gr++) {
				if (!same_gpu(&in->g[gx], &ti->g[gr]))
					continue;
				snprintf(st->skip_reason, sizeof(st->skip_reason),
					 "no time in the file; %s; by its file time it would overlap %s "
					 "of the same GPU: not counted (see --start)",
					 content_why, base_name(res->inputs[r].path));
				return;
			}
	}
	if (c->o->hold_weak) {
		/* ingest: by content or not at all (issue 28) */
		fmt_cut(st->skip_reason, sizeof(st->skip_reason),
			 "no time in the file; %s: not stored by its file time; held, and read again by "
			 "the next ingest that brings a timed log of the same GPU (or give --start)",
			 content_why);
		return;
	}
	fmt_cut(st->basis, sizeof(st->basis),
		 "no time in the file; %s; placed by its file modification time, one tick per "
		 "--interval (weak: a copy, an unpacked archive or rsync without -t resets it; "
		 "uncertain by the time between the last write and the copy)", content_why);
	st->place_uncertain_s = NAN;
}

/*
 * One reference per GPU: the readings of every timed log of that GPU in one
 * series on the grid of the earliest, so that where a log lies does not
 * depend on how the timed logs were cut into files (a log split in two, two
 * days joined, the same file given twice).  Returns how many inputs went in
 * and the one that gave the most buckets (its name stands for them).
 */
static size_t merged_ref(const struct pl_collect *c, const struct ingest_result *res, size_t self,
			 const struct pl_gpu_series *gx, struct pl_series *out, size_t *main_ref)
{
	size_t n = 0, most = 0;
	int64_t t0 = INT64_MAX, step = 0;

	memset(out, 0, sizeof(*out));
	for (size_t r = 0; r < c->nin; r++) {
		const struct pl_input *ti = &c->in[r];
		if (r == self || !ti->timed)
			continue;
		for (size_t gr = 0; gr < ti->ng; gr++)
			if (same_gpu(gx, &ti->g[gr]) && ti->g[gr].s.n) {
				t0 = ti->g[gr].s.t0_ns < t0 ? ti->g[gr].s.t0_ns : t0;
				step = ti->g[gr].s.step_ns;
			}
	}
	if (t0 == INT64_MAX || step <= 0)
		return 0;
	out->t0_ns = t0;
	out->step_ns = step;
	/*
	 * Sums in double of each log's (float mean x count): exact for the few
	 * logs a bucket meets, so the merged mean does not depend on the order
	 * the logs were given in.
	 */
	{
		double (*sum)[PL_NM] = NULL;
		uint32_t (*cnt)[PL_NM] = NULL;
		size_t len = 0;
		for (size_t r = 0; r < c->nin; r++) {
			const struct pl_input *ti = &c->in[r];
			if (r == self || !ti->timed)
				continue;
			for (size_t gr = 0; gr < ti->ng; gr++) {
				const struct pl_series *s = &ti->g[gr].s;
				size_t off;
				if (!same_gpu(gx, &ti->g[gr]) || !s->n)
					continue;
				off = (size_t)((s->t0_ns - t0 + step / 2) / step);
				if (off + s->n > PL_MAX_BUCKETS)
					continue;
				if (off + s->n > len) {
					sum = xrealloc(sum, (off + s->n) * sizeof(*sum));
					cnt = xrealloc(cnt, (off + s->n) * sizeof(*cnt));
					memset(sum + len, 0, (off + s->n - len) * sizeof(*sum));
					memset(cnt + len, 0, (off + s->n - len) * sizeof(*cnt));
					len = off + s->n;
				}
				for (size_t k = 0; k < s->n; k++)
					for (int m = 0; m < PL_NM; m++)
						if (s->cnt[k][m]) {
							sum[off + k][m] += (double)s->v[k][m] * s->cnt[k][m];
							cnt[off + k][m] += s->cnt[k][m];
						}
				out->truncated |= s->truncated;
				/* the name: most buckets, then the first path by name */
				if (!n || s->n > most ||
				    (s->n == most && strcmp(base_name(res->inputs[r].path),
							    base_name(res->inputs[*main_ref].path)) < 0)) {
					most = s->n;
					*main_ref = r;
				}
				n++;
			}
		}
		for (size_t k = 0; k < len; k++)
			for (int m = 0; m < PL_NM; m++) {
				pl_series_add(out, k, m, cnt[k][m] ? sum[k][m] / cnt[k][m] : NAN);
				if (cnt[k][m])
					out->cnt[k][m] = cnt[k][m] > UINT16_MAX ? UINT16_MAX : (uint16_t)cnt[k][m];
			}
		free(sum);
		free(cnt);
	}
	return n;
}

/* Match the readings against the timed logs of the same GPU taken together. */
static void by_content(struct pl_collect *c, struct ingest_result *res, size_t i)
{
	struct pl_input *in = &c->in[i];
	struct input_stat *st = &res->inputs[i];
	struct pl_fit best = { 0 };
	size_t best_ref = 0, best_x = 0, best_n = 0, cands = 0;
	char why[200] = "no timed log of the same GPU to match its readings against";
	char a[40], more[64] = "";

	for (size_t gx = 0; gx < in->ng; gx++) {
		struct pl_series ref;
		struct pl_fit f;
		size_t main_ref = 0, n = merged_ref(c, res, i, &in->g[gx], &ref, &main_ref);
		if (!n)
			continue;
		cands++;
		pl_align(&in->g[gx].s, &ref, &f);
		pl_series_release(&ref);
		if (f.placed && (!best.placed || f.r > best.r)) {
			pl_fit_release(&best);
			best = f;
			best_ref = main_ref;
			best_x = gx;
			best_n = n;
			continue;
		}
		if (!best.placed)
			snprintf(why, sizeof(why), "its readings do not match %.40s%s: %.100s",
				 base_name(res->inputs[main_ref].path), n > 1 ? " and the other timed logs" : "",
				 f.why);
		pl_fit_release(&f);
	}
	if (!best.placed) {
		if (!cands)
			snprintf(why, sizeof(why), "no timed log of the same GPU to match its readings against");
		by_file_time(c, res, i, why);
		return;
	}
	/* a time per tick of the input; ticks past the series go on by the step */
	st->nplaced = in->ticks ? in->ticks : 1;
	st->placed_ns = xmalloc(st->nplaced * sizeof(*st->placed_ns));
	for (size_t k = 0; k < st->nplaced; k++) {
		size_t n = in->g[best_x].s.n;
		st->placed_ns[k] = k < n ? best.t_ns[k]
					 : best.t_ns[n - 1] + (int64_t)(k - n + 1) * c->o->interval_ns;
	}
	st->place_r = best.r;
	st->place_uncertain_s = (double)c->o->interval_ns / NS_PER_S;
	st->place_ref = res->inputs[best_ref].path;
	if (best_n > 1)
		snprintf(more, sizeof(more), " and %zu more timed log(s) of the GPU", best_n - 1);
	snprintf(st->basis, sizeof(st->basis),
		 "no time in the file; its samples match %s%s from %s (fit r=%.3f over %zu samples, "
		 "%zu rows missing; within one --interval)",
		 base_name(res->inputs[best_ref].path), more, time_rfc3339(a, sizeof(a), st->placed_ns[0]),
		 best.r, best.matched, best.skipped);
	pl_fit_release(&best);
}

void pl_decide(struct pl_collect *c, struct ingest_result *res)
{
	for (size_t i = 0; i < c->nin && i < res->nr; i++) {
		struct input_stat *st = &res->inputs[i];
		if (!c->in[i].timeless || c->in[i].timed || st->skip_reason[0])
			continue;
		if (c->o->has_start) {
			snprintf(st->basis, sizeof(st->basis),
				 "no time in the file; from --start, one tick per --interval");
			continue;
		}
		by_content(c, res, i);
	}
}
