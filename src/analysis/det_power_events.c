/* SPDX-License-Identifier: MIT */
/*
 * Host power events: AC switches and suspends, how often they came and what
 * they cost the GPUs (the gap and down time from a suspend to a minute
 * after its resume; utilization 5 minutes before and after each AC off).
 * The host's events are counted as they come (power_event), what they cost
 * is measured once every GPU is finished (power_account), and the whole
 * becomes one finding for the host.  struct power_events (model.h) holds
 * the counts for the writers.  docs/states.md "Power events" has the rule.
 */
#include "analysis/detector.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/timeutil.h"

/* AC switches, suspends and the rest: counted, and suspends paired with
 * their resume (docs/states.md "Power events"). */
static void power_event(struct analysis *an, int gi, void *st, const struct det_event *e)
{
	struct power_events *pw = &an->pw;

	(void)st;
	if (gi >= 0)
		return;	/* a host event */

	switch (e->ev) {
	case EV_AC_OFF:
	case EV_AC_ON:
		if (e->ev == EV_AC_OFF)
			pw->ac_off++;
		else
			pw->ac_on++;
		if (pw->nac < MAX_AC)
			pw->ac[pw->nac++] = (struct ac_switch){ e->t_ns, NAN, NAN, 0, e->ev == EV_AC_ON };
		break;
	case EV_SUSPEND:
		pw->suspends++;
		if (!pw->asleep && pw->nsleeps < MAX_SLEEPS) {
			pw->sleeps[pw->nsleeps++] = (struct sleep_span){ e->t_ns, 0, 0 };
			pw->asleep = true;
		}
		break;
	case EV_RESUME:
		pw->resumes++;
		if (pw->asleep) {
			pw->sleeps[pw->nsleeps - 1].t1_ns = e->t_ns;
			pw->asleep = false;
		}
		break;
	case EV_LID: pw->lid++; break;
	case EV_POWER_KEY: pw->power_key++; break;
	case EV_POWER_OFF: pw->power_off++; break;
	case EV_BOOT: pw->boots++; break;
	default:
		return;
	}
	if (e->t_ns < pw->first_ns)
		pw->first_ns = e->t_ns;
	if (e->t_ns > pw->last_ns)
		pw->last_ns = e->t_ns;
}

/* Mean utilization % of all GPUs over [t0, t1) from the per-minute sums. */
static double util_between(const struct analysis *an, int64_t t0, int64_t t1)
{
	double busy = 0, cov = 0;

	for (int gi = 0; gi < an->tl.ngpus; gi++) {
		const struct gpu_stats *g = &an->gpus[gi];
		for (size_t m = 0; m < g->nmin; m++) {
			int64_t m0 = g->min_base_ns + (int64_t)m * 60 * NS_PER_S;
			if (m0 < t0 || m0 + 60 * NS_PER_S > t1)
				continue;
			busy += g->min_busy_s[m];
			cov += g->min_cov_s[m];
		}
	}
	return cov > 0 ? 100 * busy / cov : NAN;
}

/* GPU-seconds of gap and down time of every GPU in [t0, t1). */
static double lost_between(const struct analysis *an, int64_t t0, int64_t t1)
{
	double lost = 0;

	for (size_t k = 0; k < an->nsegs; k++) {
		const struct segment *sg = &an->segs[k];
		int64_t a = sg->t0_ns > t0 ? sg->t0_ns : t0;
		int64_t b = sg->t1_ns < t1 ? sg->t1_ns : t1;
		if ((sg->state == ST_GAP || sg->state == ST_DOWN) && b > a)
			lost += (double)(b - a) / 1e9;
	}
	return lost;
}

/* Is t within a suspend's lost window (counted there, not again)? */
static bool in_sleep(const struct power_events *pw, int64_t t)
{
	for (size_t i = 0; i < pw->nsleeps; i++)
		if (t >= pw->sleeps[i].t0_ns &&
		    (!pw->sleeps[i].t1_ns || t < pw->sleeps[i].t1_ns + 60 * NS_PER_S))
			return true;
	return false;
}

/* What each suspend and AC switch cost, once the segments are final. */
static void power_account(struct analysis *an)
{
	struct power_events *pw = &an->pw;

	for (size_t i = 0; i < pw->nsleeps; i++) {
		struct sleep_span *sp = &pw->sleeps[i];
		/* a suspend's lost time: the GPUs' gap and down time from it to
		 * one minute after the resume (the logger restarting), or to the
		 * end when it never resumed */
		sp->gpu_lost_s = lost_between(an, sp->t0_ns, sp->t1_ns ? sp->t1_ns + 60 * NS_PER_S : INT64_MAX);
		pw->gpu_lost_s += sp->gpu_lost_s;
	}
	for (size_t i = 0; i < pw->nac; i++) {
		struct ac_switch *a = &pw->ac[i];
		int64_t m = a->t_ns - a->t_ns % (60 * NS_PER_S);
		/* the article's 2.3 s stall and 4.1 s reload, measured: the
		 * GPUs' gap and down time in the minute after the switch */
		int64_t end = a->t_ns + 60 * NS_PER_S;
		/* the next switch starts its own minute: nothing counted twice */
		if (i + 1 < pw->nac && pw->ac[i + 1].t_ns < end && pw->ac[i + 1].t_ns >= a->t_ns)
			end = pw->ac[i + 1].t_ns;
		a->gpu_lost_s = in_sleep(pw, a->t_ns) ? 0 : lost_between(an, a->t_ns, end);
		pw->ac_lost_s += a->gpu_lost_s;
		if (a->on)
			continue;
		a->util_before = util_between(an, m - 5 * 60 * NS_PER_S, m);
		a->util_after = util_between(an, m + 60 * NS_PER_S, m + 6 * 60 * NS_PER_S);
	}
}

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

	power_account(an);
	if (!switches && !pw->suspends)
		return;
	for (size_t i = 0; i < pw->nac; i++)
		if (!isnan(pw->ac[i].util_before) && !isnan(pw->ac[i].util_after)) {
			before += pw->ac[i].util_before;
			after += pw->ac[i].util_after;
			nb++;
		}
	f = det_finding(an, FK_POWER_EVENTS, -1, pw->first_ns, pw->last_ns,
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
	.event = power_event,
	.finish_all = power_finish_all,
};
