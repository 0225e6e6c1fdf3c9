/* SPDX-License-Identifier: MIT */
/*
 * Cause and effect, the detectors' shared rule (detector.h det_cause): the
 * event a stretch of a GPU is the effect of, and the recent healthy time
 * of each GPU that decides whether the GPU recovered in between.
 */
#include "analysis/detector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/timeutil.h"
#include "util/xalloc.h"

static bool host_cause(int ev)
{
	return ev == EV_SUSPEND || ev == EV_POWER_OFF || ev == EV_AC_OFF || ev == EV_DRIVER_LOAD ||
	       ev == EV_BOOT;
}

/* Healthy seconds of GPU gi's recent runs that fall in [t0, t1]; -1 when
 * that time reaches past what is kept (unknown: taken as healthy). */
static double healthy_between(const struct healthy_runs *w, int64_t t0, int64_t t1)
{
	double s = 0;

	if (t0 < w->lost_ns)
		return -1;
	for (int i = 0; i < w->n; i++) {
		int64_t a = w->run[i].t0_ns > t0 ? w->run[i].t0_ns : t0;
		int64_t b = w->run[i].t1_ns < t1 ? w->run[i].t1_ns : t1;
		if (b > a)
			s += (double)(b - a) / 1e9;
	}
	return s;
}

/*
 * Cause and effect: a stretch that starts within cfg.cause_window_ns after
 * an event on the same GPU (or after a suspend, power-off, AC off, driver
 * load or boot of the host), or up to 5 s before it (the sampling's
 * resolution), is its effect, unless more than 5 s of healthy time lie
 * between them: then the GPU recovered, and what came later has a cause of
 * its own.  The nearest such event before the start is named, a cause
 * preferred to a consequence (Xid 45).
 */
#define CAUSE_SLACK_NS (5 * NS_PER_S)

/*
 * The placed events by time: (t_ns when indexed, position in an->evs),
 * sorted by both.  A kept event's time can move afterwards, once and by
 * at most EVENT_COPY_NS (a finer copy from another input, analysis.c
 * on_event), so a search widens its window by that and checks each
 * event's own time.  Events come nearly in time order: an insertion is
 * mostly an append.
 */
struct ev_at {
	int64_t t_ns;
	size_t i;
};
struct ev_time_index {
	struct ev_at *at;
	size_t n, alloc;
	size_t upto;		/* an->evs[0, upto) are indexed */
	size_t *found;		/* det_cause's candidates, by position */
	size_t found_alloc;
};

struct ev_time_index *ev_time_index_new(void)
{
	return xcalloc(1, sizeof(struct ev_time_index));
}

void ev_time_index_free(struct ev_time_index *x)
{
	if (!x)
		return;
	free(x->at);
	free(x->found);
	free(x);
}

static bool at_before(const struct ev_at *a, int64_t t_ns, size_t i)
{
	return a->t_ns < t_ns || (a->t_ns == t_ns && a->i < i);
}

/* The first entry at or after (t_ns, i). */
static size_t lower_bound(const struct ev_time_index *x, int64_t t_ns, size_t i)
{
	size_t lo = 0, hi = x->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (at_before(&x->at[mid], t_ns, i))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void index_sync(struct ev_time_index *x, const struct analysis *an)
{
	for (; x->upto < an->nevs; x->upto++) {
		const struct an_event *e = &an->evs[x->upto];
		size_t at;
		if (e->unplaced)
			continue;
		ALLOC_GROW(x->at, x->n + 1, x->alloc);
		at = x->n && at_before(&x->at[x->n - 1], e->t_ns, x->upto) ? x->n : lower_bound(x, e->t_ns, x->upto);
		memmove(&x->at[at + 1], &x->at[at], (x->n - at) * sizeof(*x->at));
		x->at[at] = (struct ev_at){ e->t_ns, x->upto };
		x->n++;
	}
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

static int64_t add_sat(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b)
		return INT64_MAX;
	if (b < 0 && a < INT64_MIN - b)
		return INT64_MIN;
	return a + b;
}

bool det_cause(const struct analysis *an, int gi, int64_t t0_ns, char *buf, size_t cap)
{
	const struct healthy_runs *w = gi >= 0 && gi < TL_MAX_GPUS && an->det[gi] ? det_healthy(an->det[gi]) : NULL;
	const struct an_event *best = NULL;
	struct ev_time_index *x = an->ev_by_t;
	size_t nfound = 0;
	char name[48], t[40];

	if (!w)
		return false;
	if (x) {
		/* the events whose time can be in the window, taken in the
		 * order they were kept: the rule below picks by that order */
		int64_t lo = add_sat(add_sat(t0_ns, -an->cfg.cause_window_ns), -EVENT_COPY_NS);
		int64_t hi = add_sat(add_sat(t0_ns, CAUSE_SLACK_NS), EVENT_COPY_NS);
		index_sync(x, an);
		for (size_t j = lower_bound(x, lo, 0); j < x->n && x->at[j].t_ns <= hi; j++) {
			ALLOC_GROW(x->found, nfound + 1, x->found_alloc);
			x->found[nfound++] = x->at[j].i;
		}
		if (nfound > 1)	/* none found: x->found may still be NULL */
			qsort(x->found, nfound, sizeof(*x->found), cmp_size);
	} else {
		nfound = an->nevs;
	}
	for (size_t f = 0; f < nfound; f++) {
		const struct an_event *e = &an->evs[x ? x->found[f] : f];
		double h;
		if (e->unplaced || !(e->gpu == gi ? e->severity >= KS_WARNING : e->gpu < 0 && host_cause(e->ev)) ||
		    t0_ns < e->t_ns - CAUSE_SLACK_NS || t0_ns > e->t_ns + an->cfg.cause_window_ns)
			continue;
		h = healthy_between(w, e->t_ns, t0_ns);
		if (h < 0 || h > (double)CAUSE_SLACK_NS / 1e9)
			continue;
		if (!best || ((best->flags & KF_CONSEQUENCE) && !(e->flags & KF_CONSEQUENCE)) ||
		    ((best->flags & KF_CONSEQUENCE) == (e->flags & KF_CONSEQUENCE) && e->t_ns >= best->t_ns &&
		     e->t_ns <= t0_ns))
			best = e;
	}
	if (!best)
		return false;
	analysis_event_name(name, sizeof(name), best->ev, best->code);
	snprintf(buf, cap, "%s at %s, %s:%llu", name, time_rfc3339(t, sizeof(t), best->t_ns),
		 best->src ? best->src : "?", (unsigned long long)best->line);
	return true;
}
