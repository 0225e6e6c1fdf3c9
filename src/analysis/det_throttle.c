/* SPDX-License-Identifier: MIT */
/*
 * Throttling in cost terms: the throttled stretches of a GPU gathered into
 * one finding (detector.h, det_gather_*()), saying how much SM clock they
 * lost against the GPU's own reference and how much work that was; and one
 * note per GPU for brakes (clock-event reasons,
 * violation counters) reported while the clock stayed within
 * brake_clock_ratio of the reference, which is not throttling (states.h
 * state_throttled(), docs/states.md).
 */
#include "analysis/detector.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/strfmt.h"
#include "util/timeutil.h"

struct clk_run {		/* time, and the part of it with a clock reading */
	int64_t t0_ns, t1_ns;
	double s, clk_s, clk_mhz_s, ref_mhz_s, lost_s;
	double energy_j, power_ws, power_s;
	unsigned long long mask;
	bool pviol, tviol, open;
};

struct throttle_st {
	struct clk_run thr;	/* the open throttled stretch */
	struct clk_run all;	/* every throttled stretch so far, summed */
	struct gather g;	/* the stretches, for the one finding */
	struct clk_run note;	/* brakes at full clocks, over the whole GPU */
};

static void run_add(struct clk_run *r, const struct ival *iv, double ref)
{
	double dt = ival_s(iv);

	if (!r->open) {
		memset(r, 0, sizeof(*r));
		r->open = true;
		r->t0_ns = iv->t0_ns;
	}
	r->t1_ns = iv->t1_ns;
	r->s += dt;
	if (!isnan(iv->energy_j))
		r->energy_j += iv->energy_j;
	if (iv->present & (1u << M_POWER)) {
		r->power_ws += iv->v[M_POWER] * dt;
		r->power_s += dt;
	}
	if ((iv->present & (1u << M_SM_CLOCK)) && ref > 0) {
		double c = iv->v[M_SM_CLOCK];
		double rf = c > ref ? c : ref;
		r->clk_s += dt;
		r->clk_mhz_s += c * dt;
		r->ref_mhz_s += rf * dt;
		r->lost_s += dt * (1 - c / rf);	/* the same work at full clock takes c/rf of the time */
	}
	if (iv->present & (1u << M_EVENT_MASK))
		r->mask |= (unsigned long long)iv->v[M_EVENT_MASK] & THROTTLE_MASK;
	if ((iv->present & (1u << M_PVIOL)) && iv->v[M_PVIOL] > 0)
		r->pviol = true;
	if ((iv->present & (1u << M_TVIOL)) && iv->v[M_TVIOL] > 0)
		r->tviol = true;
}

/* "SW power cap (0x4), power violation" */
static void reasons(char *buf, size_t cap, const struct clk_run *r)
{
	static const struct { unsigned long long bit; const char *name; } bits[] = {
		{ 0x4, "SW power cap" }, { 0x8, "HW slowdown" }, { 0x20, "SW thermal slowdown" },
		{ 0x40, "HW thermal slowdown" }, { 0x80, "HW power brake" },
	};
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (r->mask & bits[i].bit)
			n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s%s (0x%llx)", n ? ", " : "",
					      bits[i].name, bits[i].bit);
	if (r->pviol)
		n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%spower violation (dmon pviol)", n ? ", " : "");
	if (r->tviol)
		n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%sthermal violation (dmon tviol)", n ? ", " : "");
	if (!n)
		snprintf(buf, cap, "no reason reported");
}

/* The open stretch ends: into the gather and the sums. */
static void close_thr(struct analysis *an, int gi, struct throttle_st *t)
{
	struct clk_run *r = &t->thr, *a = &t->all;
	double dur;

	if (!r->open)
		return;
	r->open = false;
	dur = (double)(r->t1_ns - r->t0_ns) / 1e9;
	if (dur <= 0)
		return;
	det_gather_add(an, gi, &t->g, r->t0_ns, r->t1_ns, r->energy_j, r->power_ws, r->power_s,
		       dur >= 60 ? SEV_WARNING : SEV_INFO, true);
	a->s += r->s;
	a->clk_s += r->clk_s;
	a->clk_mhz_s += r->clk_mhz_s;
	a->ref_mhz_s += r->ref_mhz_s;
	a->lost_s += r->lost_s;
	a->mask |= r->mask;
	a->pviol |= r->pviol;
	a->tviol |= r->tviol;
}

/* One finding for every throttled stretch of the GPU. */
static void emit_thr(struct analysis *an, int gi, struct throttle_st *t)
{
	const struct clk_run *a = &t->all;
	const struct gather *g = &t->g;
	char name[48], d[32], lon[32], lost[32], why[160], head[200];
	struct finding *f = det_gather_emit(an, gi, g, FK_THROTTLING);

	if (!f)
		return;
	analysis_gpu_name(an, gi, name, sizeof(name));
	time_human_dur(d, sizeof(d), (int64_t)(g->total_s * 1e9 + 0.5));
	time_human_dur(lon, sizeof(lon), g->longest_ns);
	if (g->n == 1)
		snprintf(head, sizeof(head), "%s ran throttled for %s", name, d);
	else
		snprintf(head, sizeof(head), "%s ran throttled in %llu stretches, %s in all (the longest %s)", name,
			 (unsigned long long)g->n, d, lon);
	reasons(why, sizeof(why), a);
	if (a->clk_s > 0) {
		double clk = a->clk_mhz_s / a->clk_s, ref = a->ref_mhz_s / a->clk_s;
		/* the time with no clock reading counted at the same loss */
		double lost_s = a->lost_s * a->s / a->clk_s;
		time_human_dur(lost, sizeof(lost), (int64_t)(lost_s * 1e9 + 0.5));
		fmt_cut(f->message, sizeof(f->message),
			"%s: the SM clock averaged %.0f of %.0f MHz, %.0f %% of the clock lost, about %s of work "
			"at full clock", head, clk, ref, 100 * (1 - clk / ref), lost);
		/* the return is looked at: a long list of reasons may be cut */
		if (snprintf(f->evidence, sizeof(f->evidence),
			 "SM clock %.0f MHz against the GPU's %.0f MHz (clocks.max.sm, else the highest seen "
			 "under load) for %.1f s; reasons: %s", clk, ref, a->s, why) < 0)
			f->evidence[0] = '\0';
	} else {
		fmt_cut(f->message, sizeof(f->message), "%s; no SM clock was logged, so the clock lost is unknown",
			head);
		snprintf(f->evidence, sizeof(f->evidence), "for %.1f s; reasons: %s", a->s, why);
	}
	det_gather_cause(f, g);
}

static void throttle_interval(struct analysis *an, int gi, void *st, const struct ival *iv, int state)
{
	struct throttle_st *s = st;
	double ref = an->gpus[gi].sm_clock_ref_mhz;
	bool brake;

	if (state == ST_THROTTLED) {
		if (s->thr.open && s->thr.t1_ns != iv->t0_ns)
			close_thr(an, gi, s);
		run_add(&s->thr, iv, ref);
		return;
	}
	close_thr(an, gi, s);
	if (iv->kind != IV_DATA || !(iv->present & (1u << M_UTIL_GPU)) ||
	    iv->v[M_UTIL_GPU] <= state_thr.active_util_pct)
		return;
	brake = ((iv->present & (1u << M_EVENT_MASK)) &&
		 ((unsigned long long)iv->v[M_EVENT_MASK] & THROTTLE_MASK)) ||
		((iv->present & (1u << M_PVIOL)) && iv->v[M_PVIOL] > 0) ||
		((iv->present & (1u << M_TVIOL)) && iv->v[M_TVIOL] > 0);
	if (brake)
		run_add(&s->note, iv, ref);
}

static void throttle_finish(struct analysis *an, int gi, void *st)
{
	struct throttle_st *s = st;
	const struct clk_run *r = &s->note;
	char d[32], why[160], name[48];
	struct finding *f;

	close_thr(an, gi, s);
	emit_thr(an, gi, s);
	if (!r->open || r->s <= 0 || r->clk_s <= 0)
		return;
	f = det_finding(an, FK_CLOCK_EVENTS_NOTED, gi, r->t0_ns, r->t1_ns, SEV_INFO, r->s);
	if (!f)
		return;
	time_human_dur(d, sizeof(d), (int64_t)(r->s * 1e9 + 0.5));
	reasons(why, sizeof(why), r);
	analysis_gpu_name(an, gi, name, sizeof(name));
	if (snprintf(f->message, sizeof(f->message),
		 "%s reported %s for %s under load at full clocks (SM clock %.0f of %.0f MHz, %.1f %% lower): "
		 "noted, not throttling", name, why, d, r->clk_mhz_s / r->clk_s, r->ref_mhz_s / r->clk_s,
		 100 * (1 - r->clk_mhz_s / r->ref_mhz_s)) < 0)
		f->message[0] = '\0';
	snprintf(f->evidence, sizeof(f->evidence),
		 "a brake counts as throttling only with the SM clock below %.0f %% of the GPU's reference; "
		 "about %.1f s of work lost over %.0f s", 100 * state_thr.brake_clock_ratio,
		 r->lost_s * r->s / r->clk_s, r->s);
}

const struct detector detector_throttle = {
	.id = "throttle",
	.summary = "throttled stretches, one finding per GPU, with the clock and work they lost; brakes at full clocks noted",
	.state_size = sizeof(struct throttle_st),
	.interval = throttle_interval,
	.finish = throttle_finish,
};
