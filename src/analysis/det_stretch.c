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
	double energy_j, power_ws, power_s;	/* energy: of the intervals where it is known */
};

/*
 * message gets the GPU's name and the duration as text (for many stretches:
 * the GPU's name, their number, the total and the longest as text);
 * evidence gets, by position, the seconds (%1$), the mean power in W (%2$)
 * and the energy in J (%3$), of the one stretch or of all of them.
 * effect: a stretch of this kind may be the effect of an event just before
 * it (det_cause()).
 */
static const struct stretch_finding {
	int state;
	enum finding_kind kind;
	bool needs_min;		/* only from cfg.stretch_min_s on */
	double warn_s;		/* a warning from this long on (critical: always) */
	int sev;		/* severity below warn_s */
	bool effect;
	const char *message;
	const char *many;
	const char *evidence;
} stretch_findings[] = {
	{ ST_HELD_IDLE, FK_HELD_IDLE, true, 300, SEV_INFO, true,
	  "%s held memory or a process but did no work for %s",
	  "%s held memory or a process but did no work in %llu stretches, %s in all (the longest %s)",
	  "utilization 0 %% for %1$.0f s with memory held; mean power %2$.0f W, %3$.0f J spent" },
	{ ST_INPUT, FK_INPUT_STARVED, true, 300, SEV_INFO, true,
	  "%s was starved for input for %s: work came in bursts with waits between them",
	  "%s was starved for input in %llu stretches, %s in all (the longest %s): work came in bursts with waits between them",
	  "utilization low and swinging (or steady and partial well above idle power) for %1$.0f s; "
	  "mean power %2$.0f W" },
	{ ST_LAUNCH, FK_LAUNCH_BOUND, true, 300, SEV_INFO, false,
	  "%s ran streams of tiny kernels for %s: busy on paper, idle in power",
	  "%s ran streams of tiny kernels in %llu stretches, %s in all (the longest %s): busy on paper, idle in power",
	  "utilization above 0 while power stayed at the held-idle floor (mean %2$.0f W) for %1$.0f s" },
	{ ST_DOWN, FK_GPU_DOWN, false, 0, SEV_CRITICAL, true,
	  "%s was lost or needed a reset for %s",
	  "%s was lost or needed a reset %llu times, %s in all (the longest %s)",
	  "readings such as [GPU is lost] / [GPU requires reset], or a fatal kernel event, put it down for %1$.1f s" },
};
#define NSF (sizeof(stretch_findings) / sizeof(stretch_findings[0]))

/* per GPU: the open run, and the stretches of each kind gathered so far */
struct stretches {
	struct stretch open;
	struct gather g[NSF];
};

static void close_stretch(struct analysis *an, int gi, struct stretches *ss)
{
	struct stretch *s = &ss->open;
	double dur = (double)(s->t1_ns - s->t0_ns) / 1e9;
	const struct stretch_finding *sf = NULL;
	size_t k;

	if (s->t1_ns <= s->t0_ns)
		return;
	for (k = 0; k < NSF && !sf; k++)
		if (stretch_findings[k].state == s->state)
			sf = &stretch_findings[k];
	if (!sf || (sf->needs_min && dur < an->cfg.stretch_min_s))
		return;
	det_gather_add(an, gi, &ss->g[k - 1], s->t0_ns, s->t1_ns, s->energy_j,
		       s->power_ws, s->power_s,
		       sf->sev == SEV_CRITICAL ? SEV_CRITICAL : dur >= sf->warn_s ? SEV_WARNING : sf->sev,
		       sf->effect);
}

static void stretch_interval(struct analysis *an, int gi, void *st, const struct ival *iv, int state)
{
	struct stretches *ss = st;
	struct stretch *s = &ss->open;

	if (s->state == state && s->t1_ns == iv->t0_ns) {
		s->t1_ns = iv->t1_ns;
	} else {
		close_stretch(an, gi, ss);
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

/*
 * The message and evidence of a summary of stretches from its figures
 * (f->fk, nstretch, total_s, energy_j, nlinked, the span and detail[],
 * longest first): what stretch_finish writes, and what the store writes
 * again when it merges two runs' rows of one summary (docs/store.md).
 */
bool det_stretch_text(struct finding *f, const char *name, double power_w, const char *first_cause)
{
	const struct stretch_finding *sf = NULL;
	char d[32], tot[32], lon[32];

	for (size_t k = 0; k < NSF && !sf; k++)
		if (stretch_findings[k].kind == f->fk)
			sf = &stretch_findings[k];
	if (!sf || !f->nstretch)
		return false;
	if (f->nstretch == 1) {
		time_human_dur(d, sizeof(d), f->t1_ns - f->t0_ns);
		snprintf(f->message, sizeof(f->message), sf->message, name, d);
	} else {
		time_human_dur(tot, sizeof(tot), (int64_t)(f->total_s * 1e9));
		time_human_dur(lon, sizeof(lon),
			       f->ndetail ? f->detail[0].t1_ns - f->detail[0].t0_ns : f->t1_ns - f->t0_ns);
		snprintf(f->message, sizeof(f->message), sf->many, name, (unsigned long long)f->nstretch, tot, lon);
	}
	snprintf(f->evidence, sizeof(f->evidence), sf->evidence, f->total_s, power_w,
		 isnan(f->energy_j) ? 0.0 : f->energy_j);
	det_cause_text(f, f->nstretch, f->nlinked, first_cause);
	return true;
}

static void stretch_finish(struct analysis *an, int gi, void *st)
{
	struct stretches *ss = st;
	char name[48];

	close_stretch(an, gi, ss);
	analysis_gpu_name(an, gi, name, sizeof(name));
	for (size_t k = 0; k < NSF; k++) {
		const struct gather *g = &ss->g[k];
		struct finding *f = det_gather_emit(an, gi, g, stretch_findings[k].kind);
		if (f)
			det_stretch_text(f, name, g->power_s > 0 ? g->power_ws / g->power_s : NAN, g->first_cause);
	}
}

const struct detector detector_stretch = {
	.id = "stretch",
	.summary = "long runs of held_idle, input_bound, launch_bound or down time, one finding per GPU and kind "
		   "(throttling: det_throttle.c)",
	.state_size = sizeof(struct stretches),
	.interval = stretch_interval,
	.finish = stretch_finish,
};
