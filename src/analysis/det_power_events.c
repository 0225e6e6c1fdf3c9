/* SPDX-License-Identifier: MIT */
/*
 * Host power events: AC switches and suspends, how often they came and what
 * they cost the GPUs (the gap and down time from a suspend to a minute
 * after its resume; utilization 5 minutes before and after each AC off).
 * analysis.c counts them (struct power_events); this turns them into one
 * finding for the host.  docs/states.md "Power events" has the rule.
 */
#include "analysis/detector.h"

#include <math.h>
#include <stdio.h>

#include "util/timeutil.h"

/* The hours the report covers, for the rates: the GPUs' span, else the events'. */
static double span_h(const struct analysis *an)
{
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;

	for (int gi = 0; gi < an->tl.ngpus; gi++) {
		const struct gpu_stats *g = &an->gpus[gi];
		if (g->first_ns == 0 && g->last_ns == 0)
			continue;
		if (g->first_ns < t0)
			t0 = g->first_ns;
		if (g->last_ns > t1)
			t1 = g->last_ns;
	}
	if (an->pw.first_ns < t0)
		t0 = an->pw.first_ns;
	if (an->pw.last_ns > t1)
		t1 = an->pw.last_ns;
	return t1 > t0 ? (double)(t1 - t0) / 1e9 / 3600 : NAN;
}

static void power_finish_all(struct analysis *an)
{
	const struct power_events *pw = &an->pw;
	struct finding *f;
	double h = span_h(an), before = 0, after = 0;
	uint64_t switches = pw->ac_off + pw->ac_on;
	int nb = 0;
	char lost[32];

	if (!switches && !pw->suspends)
		return;
	for (size_t i = 0; i < pw->nac; i++)
		if (!isnan(pw->ac[i].util_before) && !isnan(pw->ac[i].util_after)) {
			before += pw->ac[i].util_before;
			after += pw->ac[i].util_after;
			nb++;
		}
	f = det_finding(an, "power_events", -1, pw->first_ns, pw->last_ns,
			pw->gpu_lost_s > 0 || (nb && after < 0.8 * before) ? SEV_WARNING : SEV_INFO,
			h > 0 ? (double)(switches + pw->suspends) / h : NAN);
	if (!f)
		return;
	snprintf(f->message, sizeof(f->message),
		 "the host switched AC power %llu time(s) and suspended %llu time(s) (%.2f per hour); "
		 "the GPUs lost %s around the suspends",
		 (unsigned long long)switches, (unsigned long long)pw->suspends,
		 isnan(f->value) ? 0 : f->value,
		 time_human_dur(lost, sizeof(lost), (int64_t)(pw->gpu_lost_s * 1e9)));
	if (nb)
		snprintf(f->evidence, sizeof(f->evidence),
			 "mean utilization %.1f %% in the 5 minutes before AC power went off, %.1f %% in the 5 after "
			 "(%d switch(es) with data on both sides)", before / nb, after / nb, nb);
	else
		snprintf(f->evidence, sizeof(f->evidence),
			 "%llu AC off, %llu AC on, %llu suspend(s), %llu resume(s); no utilization on both sides of an AC off",
			 (unsigned long long)pw->ac_off, (unsigned long long)pw->ac_on,
			 (unsigned long long)pw->suspends, (unsigned long long)pw->resumes);
}

const struct detector detector_power_events = {
	.id = "power_events",
	.summary = "AC power switches and suspends per hour, and the GPU time lost around them",
	.finish_all = power_finish_all,
};
