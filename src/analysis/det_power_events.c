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
#include <string.h>

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

/* Keep one lost window in the finding's longest few. */
static void add_detail(struct finding *f, int64_t t_ns, double lost_s)
{
	struct find_detail d = { t_ns, t_ns + (int64_t)(lost_s * 1e9 + 0.5), NAN, "" };
	int k;

	if (f->ndetail < FIND_DETAILS)
		f->detail[f->ndetail++] = d;
	else if (lost_s > (double)(f->detail[FIND_DETAILS - 1].t1_ns - f->detail[FIND_DETAILS - 1].t0_ns) / 1e9)
		f->detail[FIND_DETAILS - 1] = d;
	else
		return;
	/* longest first */
	for (k = f->ndetail - 1; k > 0 && f->detail[k].t1_ns - f->detail[k].t0_ns >
					  f->detail[k - 1].t1_ns - f->detail[k - 1].t0_ns; k--) {
		struct find_detail t = f->detail[k];
		f->detail[k] = f->detail[k - 1];
		f->detail[k - 1] = t;
	}
}

/*
 * The GPU time each suspend and AC switch cost (article 000's F005, with
 * the time measured rather than its 2.3 s + 4.1 s per switch) as a summary
 * whose total the report prices like every line of the waterfall: each
 * event with lost time is one entry, starting at the event and as long as
 * the GPU-seconds it cost.
 */
static void lost_summary(struct finding *f, const struct power_events *pw)
{
	for (size_t i = 0; i < pw->nsleeps; i++)
		if (pw->sleeps[i].gpu_lost_s > 0) {
			f->nstretch++;
			add_detail(f, pw->sleeps[i].t0_ns, pw->sleeps[i].gpu_lost_s);
		}
	for (size_t i = 0; i < pw->nac; i++)
		if (pw->ac[i].gpu_lost_s > 0) {
			f->nstretch++;
			add_detail(f, pw->ac[i].t_ns, pw->ac[i].gpu_lost_s);
		}
	if (!f->nstretch)
		return;
	f->total_s = pw->gpu_lost_s + pw->ac_lost_s;
	f->energy_j = NAN;
}

static void power_finish_all(struct analysis *an)
{
	const struct power_events *pw = &an->pw;
	struct finding *f;
	double h = span_h(an), before = 0, after = 0;
	uint64_t switches = pw->ac_off + pw->ac_on;
	int nb = 0;
	char lost[32], aclost[32];

	if (!switches && !pw->suspends)
		return;
	for (size_t i = 0; i < pw->nac; i++)
		if (!isnan(pw->ac[i].util_before) && !isnan(pw->ac[i].util_after)) {
			before += pw->ac[i].util_before;
			after += pw->ac[i].util_after;
			nb++;
		}
	f = det_finding(an, "power_events", -1, pw->first_ns, pw->last_ns,
			pw->gpu_lost_s > 0 || pw->ac_lost_s > 0 || (nb && after < 0.8 * before) ? SEV_WARNING : SEV_INFO,
			h > 0 ? (double)(switches + pw->suspends) / h : NAN);
	if (!f)
		return;
	snprintf(f->message, sizeof(f->message),
		 "the host switched AC power %llu time(s) and suspended %llu time(s) (%.2f per hour); "
		 "the GPUs lost %s around the suspends%s%s",
		 (unsigned long long)switches, (unsigned long long)pw->suspends,
		 isnan(f->value) ? 0 : f->value,
		 time_human_dur(lost, sizeof(lost), (int64_t)(pw->gpu_lost_s * 1e9)),
		 pw->ac_lost_s > 0 ? " and " : "",
		 pw->ac_lost_s > 0 ? time_human_dur(aclost, sizeof(aclost), (int64_t)(pw->ac_lost_s * 1e9)) : "");
	if (pw->ac_lost_s > 0)
		strncat(f->message, " around the AC switches", sizeof(f->message) - strlen(f->message) - 1);
	lost_summary(f, pw);
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
