/* SPDX-License-Identifier: MIT */
/*
 * Cause and effect, the detectors' shared rule (detector.h det_cause): the
 * event a stretch of a GPU is the effect of, and the recent healthy time
 * of each GPU that decides whether the GPU recovered in between.
 */
#include "analysis/detector.h"

#include <stdio.h>
#include <string.h>

#include "util/timeutil.h"

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
bool det_cause(const struct analysis *an, int gi, int64_t t0_ns, char *buf, size_t cap)
{
	const struct healthy_runs *w = gi >= 0 && gi < TL_MAX_GPUS && an->det[gi] ? det_healthy(an->det[gi]) : NULL;
	const struct an_event *best = NULL;
	char name[48], t[40];

	if (!w)
		return false;
	for (size_t k = 0; k < an->nevs; k++) {
		const struct an_event *e = &an->evs[k];
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

