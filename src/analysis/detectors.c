/* SPDX-License-Identifier: MIT */
/*
 * The table of detectors and the calls into them.  The build writes
 * detectors_list.h with one DETECTOR(id) line per src/analysis/det_<id>.c,
 * in file-name order; the linker then insists that each file defines
 * `detector_<id>`.  Each GPU gets one block holding every detector's state,
 * at offsets fixed by the table.
 */
#include "analysis/detector.h"

#include <math.h>
#include <stdalign.h>
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

/* offset of each detector's state in a GPU's block, and the block's size */
static size_t det_off[NDET + 1];
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
	det_block = off ? off : 1;
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

void det_feed_interval(struct analysis *an, int gpu, void *block, const struct ival *iv, int state)
{
	const struct ival_hook *h = ival_hooks[iv->kind == IV_GAP ? IV_GAP : IV_DATA];
	const struct ival_hook *end = h + n_ival[iv->kind == IV_GAP ? IV_GAP : IV_DATA];

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

struct finding *det_finding(struct analysis *an, const char *kind, int gpu, int64_t t0,
			    int64_t t1, int sev, double value)
{
	struct finding *f;

	if (an->nfinds >= an->cfg.max_findings) {
		an->finds_dropped++;
		return NULL;
	}
	ALLOC_GROW(an->finds, an->nfinds + 1, an->finds_alloc);
	f = &an->finds[an->nfinds++];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->gpu = gpu;
	f->t0_ns = t0;
	f->t1_ns = t1;
	f->severity = sev;
	f->value = value;
	f->fit_mib0 = f->fit_mib1 = NAN;
	return f;
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
