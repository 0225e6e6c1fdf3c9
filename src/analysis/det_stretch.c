/* SPDX-License-Identifier: MIT */
/*
 * Stretches of one state: a finding for each long enough run of held_idle,
 * input_bound, launch_bound or down time (throttled time: det_throttle.c).  The rule per state is
 * one row of the table below; docs/states.md has them for people.
 */
#include "analysis/detector.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/timeutil.h"

struct stretch {		/* the open run of one state */
	int state;
	int64_t t0_ns, t1_ns;
	double energy_j, power_ws, power_s;
};

/*
 * message gets the GPU number and the duration as text; evidence gets, by
 * position, the seconds (%1$), the mean power in W (%2$) and the energy in
 * J (%3$).
 */
static const struct stretch_finding {
	int state;
	const char *kind;
	bool needs_min;		/* only from cfg.stretch_min_s on */
	double warn_s;		/* a warning from this long on (critical: always) */
	int sev;		/* severity below warn_s */
	const char *message;
	const char *evidence;
} stretch_findings[] = {
	{ ST_HELD_IDLE, "held_idle", true, 300, SEV_INFO,
	  "GPU %d held memory or a process but did no work for %s",
	  "utilization 0 %% for %1$.0f s with memory held; mean power %2$.0f W, %3$.0f J spent" },
	{ ST_INPUT, "input_starved", true, 300, SEV_INFO,
	  "GPU %d was starved for input for %s: work came in bursts with waits between them",
	  "utilization low and swinging (or steady and partial well above idle power) for %1$.0f s; "
	  "mean power %2$.0f W" },
	{ ST_LAUNCH, "launch_bound", true, 300, SEV_INFO,
	  "GPU %d ran streams of tiny kernels for %s: busy on paper, idle in power",
	  "utilization above 0 while power stayed at the held-idle floor (mean %2$.0f W) for %1$.0f s" },
	{ ST_DOWN, "gpu_down", false, 0, SEV_CRITICAL,
	  "GPU %d was lost or needed a reset for %s",
	  "readings such as [GPU is lost] / [GPU requires reset], or a fatal kernel event, put it down for %1$.1f s" },
};

static void close_stretch(struct analysis *an, int gi, struct stretch *s)
{
	double dur = (double)(s->t1_ns - s->t0_ns) / 1e9;
	double pw = s->power_s > 0 ? s->power_ws / s->power_s : NAN;
	const struct stretch_finding *sf = NULL;
	struct finding *f;
	char d[32];
	int sev;

	if (s->t1_ns <= s->t0_ns)
		return;
	for (size_t i = 0; i < sizeof(stretch_findings) / sizeof(stretch_findings[0]); i++)
		if (stretch_findings[i].state == s->state)
			sf = &stretch_findings[i];
	if (!sf || (sf->needs_min && dur < an->cfg.stretch_min_s))
		return;
	sev = sf->sev == SEV_CRITICAL ? SEV_CRITICAL : dur >= sf->warn_s ? SEV_WARNING : sf->sev;
	f = det_finding(an, sf->kind, gi, s->t0_ns, s->t1_ns, sev, dur);
	if (!f)
		return;
	time_human_dur(d, sizeof(d), s->t1_ns - s->t0_ns);
	snprintf(f->message, sizeof(f->message), sf->message, gi, d);
	snprintf(f->evidence, sizeof(f->evidence), sf->evidence, dur, pw, s->energy_j);
}

static void stretch_interval(struct analysis *an, int gi, void *st, const struct ival *iv, int state)
{
	struct stretch *s = st;

	if (s->state == state && s->t1_ns == iv->t0_ns) {
		s->t1_ns = iv->t1_ns;
	} else {
		close_stretch(an, gi, s);
		memset(s, 0, sizeof(*s));
		s->state = state;
		s->t0_ns = iv->t0_ns;
		s->t1_ns = iv->t1_ns;
	}
	if (!isnan(iv->energy_j))
		s->energy_j += iv->energy_j;
	if (iv->present & (1u << M_POWER)) {
		s->power_ws += iv->v[M_POWER] * ival_s(iv);
		s->power_s += ival_s(iv);
	}
}

static void stretch_finish(struct analysis *an, int gi, void *st)
{
	close_stretch(an, gi, st);
}

const struct detector detector_stretch = {
	.id = "stretch",
	.summary = "long runs of held_idle, input_bound, launch_bound or down time",
	.state_size = sizeof(struct stretch),
	.interval = stretch_interval,
	.finish = stretch_finish,
};
