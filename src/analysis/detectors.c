/* SPDX-License-Identifier: MIT */
/*
 * The table of detectors and the calls into them.  The build writes
 * detectors_list.h with one DETECTOR(id) line per src/analysis/det_<id>.c,
 * in file-name order; the linker then insists that each file defines
 * `detector_<id>`.  Each GPU gets one block holding every detector's state,
 * at offsets fixed by the table.
 */
#include "analysis/detector.h"
#include "analysis/analysis.h"

#include <math.h>
#include <stdalign.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define DETECTOR(id) extern const struct detector detector_##id;
#include "detectors_list.h"
#undef DETECTOR

static const struct detector *const detectors[] = {
#define DETECTOR(id) &detector_##id,
#include "detectors_list.h"
#undef DETECTOR
	NULL	/* keeps the array non-empty while the list is */
};

#define NDET (sizeof(detectors) / sizeof(detectors[0]) - 1)

/* offset of each detector's state in a GPU's block, of the healthy runs
 * after them (det_cause), and the block's size */
static size_t det_off[NDET + 1];
static size_t det_healthy_off;
/* offset of each detector's run-wide state, and their block's size */
static size_t det_shared_off[NDET + 1];
static size_t det_shared_block;
static size_t det_block;
static bool det_ready;
/* per kind of interval (enum ival_kind), the detectors fed it and their
 * states' offsets (-1: no state): the one call made for every interval of
 * every GPU */
#define IVK_COUNT 2
static struct ival_hook {
	void (*fn)(struct analysis *, int, void *, const struct ival *, int);
	ptrdiff_t off;
} ival_hooks[IVK_COUNT][NDET + 1];
static size_t n_ival[IVK_COUNT];

size_t detector_count(void)
{
	return NDET;
}

const struct detector *detector_at(size_t i)
{
	return i < NDET ? detectors[i] : NULL;
}

static void layout(void)
{
	size_t off = 0, a = alignof(max_align_t);

	for (size_t i = 0; i < NDET; i++) {
		det_off[i] = off;
		off += (detectors[i]->state_size + a - 1) / a * a;
		for (int k = 0; k < IVK_COUNT; k++) {
			unsigned kinds = detectors[i]->interval_kinds;
			if (!detectors[i]->interval || (kinds && !(kinds & (1u << k))))
				continue;
			ival_hooks[k][n_ival[k]++] = (struct ival_hook){
				detectors[i]->interval,
				detectors[i]->state_size ? (ptrdiff_t)det_off[i] : -1,
			};
		}
	}
	det_healthy_off = off;
	for (size_t i = 0, soff = 0; i < NDET; i++) {
		det_shared_off[i] = soff;
		soff += (detectors[i]->shared_size + a - 1) / a * a;
		det_shared_block = soff;
	}
	det_block = off + sizeof(struct healthy_runs);
	det_ready = true;
}

static void *state_of(void *block, size_t i)
{
	return detectors[i]->state_size ? (char *)block + det_off[i] : NULL;
}

void *det_states_new(void)
{
	if (!det_ready)
		layout();
	return xcalloc(1, det_block);
}

void det_states_free(void *block)
{
	free(block);
}

/* A run of healthy time on a GPU (det_cause): merged with the last when it
 * continues it; the oldest goes when the runs are full. */
static void healthy_add(struct healthy_runs *h, int64_t t0, int64_t t1)
{
	if (h->n && h->run[h->n - 1].t1_ns == t0) {
		h->run[h->n - 1].t1_ns = t1;
		return;
	}
	if (h->n == HEALTHY_RUNS) {
		h->lost_ns = h->run[0].t1_ns;
		memmove(&h->run[0], &h->run[1], (HEALTHY_RUNS - 1) * sizeof(h->run[0]));
		h->n--;
	}
	h->run[h->n].t0_ns = t0;
	h->run[h->n++].t1_ns = t1;
}

struct healthy_runs *det_healthy(void *block)
{
	return (struct healthy_runs *)((char *)block + det_healthy_off);
}

void det_feed_interval(struct analysis *an, int gpu, void *block, const struct ival *iv, int state)
{
	const struct ival_hook *h = ival_hooks[iv->kind == IV_GAP ? IV_GAP : IV_DATA];
	const struct ival_hook *end = h + n_ival[iv->kind == IV_GAP ? IV_GAP : IV_DATA];

	/* healthy time, before the detectors that ask for a cause see it */
	if (iv->kind != IV_GAP && (state == ST_COMPUTE || state == ST_MEMORY || state == ST_IDLE))
		healthy_add(det_healthy(block), iv->t0_ns, iv->t1_ns);

	for (; h < end; h++)
		h->fn(an, gpu, h->off >= 0 ? (char *)block + h->off : NULL, iv, state);
	if (an->tap && an->tap->interval)
		an->tap->interval(an->tap->ud, gpu, iv, state);
}

void det_feed_event(struct analysis *an, int gpu, void *block, const struct det_event *ev)
{
	for (size_t i = 0; i < NDET; i++)
		if (detectors[i]->event)
			detectors[i]->event(an, gpu, block ? state_of(block, i) : NULL, ev);
	if (an->tap && an->tap->event)
		an->tap->event(an->tap->ud, gpu, ev);
}

void det_finish_gpu(struct analysis *an, int gpu, void *block)
{
	for (size_t i = 0; i < NDET; i++)
		if (detectors[i]->finish)
			detectors[i]->finish(an, gpu, state_of(block, i));
}

void det_finish_all(struct analysis *an)
{
	for (size_t i = 0; i < NDET; i++)
		if (detectors[i]->finish_all)
			detectors[i]->finish_all(an);
}

void *det_shared(struct analysis *an, const struct detector *d)
{
	size_t i;

	for (i = 0; i < NDET && detectors[i] != d; i++)
		;
	if (i == NDET || !d->shared_size)
		return NULL;
	if (!det_ready)
		layout();
	if (!an->det_shared)
		an->det_shared = xcalloc(1, det_shared_block);
	return (char *)an->det_shared + det_shared_off[i];
}

void det_shared_free(struct analysis *an)
{
	if (!an->det_shared)
		return;
	for (size_t i = 0; i < NDET; i++)
		if (detectors[i]->shared_size && detectors[i]->release)
			detectors[i]->release((char *)an->det_shared + det_shared_off[i]);
	free(an->det_shared);
	an->det_shared = NULL;
}

void det_post_all(struct analysis *an)
{
	an->det_post_runs++;
	an->det_post_seen = an->nfinds;
	for (size_t i = 0; i < NDET; i++)
		if (detectors[i]->post)
			detectors[i]->post(an, an->finds, an->nfinds,
					   detectors[i]->shared_size ? det_shared(an, detectors[i]) : NULL);
	det_shared_free(an);
}

void det_merge(struct analysis *an, size_t i, int64_t t1_ns, double value, const char *evidence)
{
	struct finding *f;

	if (i >= an->nfinds)
		return;
	f = &an->finds[i];
	f->t1_ns = t1_ns;
	f->value = value;
	if (evidence)
		snprintf(f->evidence, sizeof(f->evidence), "%s", evidence);
}

struct finding *det_finding(struct analysis *an, enum finding_kind fk, int gpu, int64_t t0,
			    int64_t t1, int sev, double value)
{
	const char *kind = finding_kind_name[fk];
	struct finding *f;
	struct find_seen *seen = NULL;

	for (size_t i = 0; i < an->nfind_seen && !seen; i++)
		if (an->find_seen[i].gpu == gpu && !strcmp(an->find_seen[i].kind, kind))
			seen = &an->find_seen[i];
	/* the cap refuses only what its GPU and kind already have at that
	 * severity: never another kind, never a higher severity */
	if (an->nfinds >= an->cfg.max_findings && seen && seen->sev >= sev) {
		an->finds_dropped++;
		return NULL;
	}
	if (!seen && an->nfind_seen < sizeof(an->find_seen) / sizeof(an->find_seen[0])) {
		seen = &an->find_seen[an->nfind_seen++];
		*seen = (struct find_seen){ kind, gpu, sev };
	} else if (seen && sev > seen->sev) {
		seen->sev = sev;
	} else if (!seen && an->nfinds >= an->cfg.max_findings) {
		an->finds_dropped++;	/* more GPU-and-kind pairs than the table holds */
		return NULL;
	}
	ALLOC_GROW(an->finds, an->nfinds + 1, an->finds_alloc);
	f = &an->finds[an->nfinds++];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->fk = (uint8_t)fk;
	f->gpu = gpu;
	f->t0_ns = t0;
	f->t1_ns = t1;
	f->severity = sev;
	f->value = value;
	f->fit_mib0 = f->fit_mib1 = NAN;
	f->energy_j = NAN;
	return f;
}

void det_gather_add(struct analysis *an, int gi, struct gather *g, int64_t t0_ns, int64_t t1_ns,
		    double energy_j, double power_ws, double power_s, int sev, bool effect)
{
	struct find_detail d = { t0_ns, t1_ns, energy_j, "" };
	int64_t len = t1_ns - t0_ns;
	size_t at;

	if (!g->n || t0_ns < g->t0_ns)
		g->t0_ns = t0_ns;
	if (!g->n || t1_ns > g->t1_ns)
		g->t1_ns = t1_ns;
	g->n++;
	g->total_s += (double)len / 1e9;
	if (isnan(energy_j))
		g->energy_unknown = true;
	else
		g->energy_j += energy_j;
	g->power_ws += power_ws;
	g->power_s += power_s;
	if (sev > g->sev)
		g->sev = sev;
	if (len > g->longest_ns)
		g->longest_ns = len;
	if (effect && det_cause(an, gi, t0_ns, d.cause, sizeof(d.cause))) {
		if (!g->linked++)
			snprintf(g->first_cause, sizeof(g->first_cause), "%s", d.cause);
	}
	/* the longest few, longest first; an equal one keeps the earlier */
	for (at = g->nworst; at > 0 && g->worst[at - 1].t1_ns - g->worst[at - 1].t0_ns < len; at--)
		;
	if (at >= FIND_DETAILS)
		return;
	if (g->nworst < FIND_DETAILS)
		g->nworst++;
	memmove(&g->worst[at + 1], &g->worst[at], (g->nworst - 1 - at) * sizeof(g->worst[0]));
	g->worst[at] = d;
}

struct finding *det_gather_emit(struct analysis *an, int gi, const struct gather *g,
				enum finding_kind kind)
{
	struct finding *f;

	if (!g->n)
		return NULL;
	f = det_finding(an, kind, gi, g->t0_ns, g->t1_ns, g->sev, g->total_s);
	if (!f)
		return NULL;
	f->nstretch = g->n;
	f->nlinked = g->linked;
	f->total_s = g->total_s;
	f->energy_j = g->energy_unknown && g->energy_j == 0 ? NAN : g->energy_j;
	f->ndetail = g->nworst;
	memcpy(f->detail, g->worst, g->nworst * sizeof(g->worst[0]));
	return f;
}

void det_gather_cause(struct finding *f, const struct gather *g)
{
	det_cause_text(f, g->n, g->linked, g->first_cause);
}

void det_cause_text(struct finding *f, uint64_t n, uint64_t linked, const char *first_cause)
{
	size_t len = strlen(f->evidence);

	if (!linked)
		return;
	if (n == 1)
		snprintf(f->evidence + len, sizeof(f->evidence) - len, "%safter %s", len ? "; " : "", first_cause);
	else
		snprintf(f->evidence + len, sizeof(f->evidence) - len, "%s%llu of the %llu came right after an event, the first after %s",
			 len ? "; " : "", (unsigned long long)linked, (unsigned long long)n, first_cause);
}

bool analysis_summary_text(struct finding *f, const char *gpu_name, double power_w, const char *first_cause)
{
	if (f->fk == FK_IDLE_POWER && f->total_s > 0) {
		det_idle_power_text(f, gpu_name, f->total_s, f->value * f->total_s);
		return true;
	}
	return det_stretch_text(f, gpu_name, power_w, first_cause);
}

void det_leak_fit(struct finding *f, double total_mib, double mib0, double mib1)
{
	double dt = (double)(f->t1_ns - f->t0_ns);

	f->fit_mib0 = mib0;
	f->fit_mib1 = mib1;
	f->full_ns = 0;
	if (total_mib <= 0 || !(mib1 > mib0) || dt <= 0)
		return;
	if (mib1 >= total_mib) {
		f->full_ns = f->t1_ns;
		return;
	}
	/* at most ~100 years out: beyond that "never" is the honest word */
	double ahead = (total_mib - mib1) / (mib1 - mib0) * dt;
	if (ahead < 3.15e18)
		f->full_ns = f->t1_ns + (int64_t)ahead;
}
