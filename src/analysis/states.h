/* SPDX-License-Identifier: MIT */
/*
 * The state of a GPU over one interval, decided from its readings and from
 * a window around it.  The thresholds are one table in states.c, the rules
 * state_classify() below; docs/states.md documents both.
 */
#ifndef ANALYSIS_STATES_H
#define ANALYSIS_STATES_H

#include <math.h>
#include <stdbool.h>

enum gpu_state {
	ST_IDLE,		/* no work, nothing held */
	ST_HELD_IDLE,		/* memory held or a process present, no work */
	ST_COMPUTE,		/* busy, the SMs dominate */
	ST_MEMORY,		/* busy, the memory controller dominates */
	ST_INPUT,		/* work in bursts, the GPU waiting between them */
	ST_LAUNCH,		/* utilization above zero at idle-floor power: tiny kernels */
	ST_THROTTLED,		/* busy while clocks are held down */
	ST_DOWN,		/* the GPU reported lost / needing reset */
	ST_UNKNOWN,		/* data, but not enough to decide */
	ST_GAP,			/* no data */
	ST__COUNT
};

extern const char *const state_name[ST__COUNT];
extern const char *const state_label[ST__COUNT];	/* for people */

/* Does time in this state buy useful work? (the cost waterfall) */
bool state_is_useful(int st);

struct state_thresholds {
	double busy_util_pct;		/* util at/above: compute or memory bound */
	double memory_util_pct;		/* mem util at/above, and >= ratio x util: memory bound */
	double memory_ratio;
	double active_util_pct;		/* util above this is "some work" */
	double launch_floor_ratio;	/* power <= floor x ratio + margin: launch bound */
	double launch_floor_margin_w;
	double burst_cv;		/* window util CV above this: bursts (input bound) */
	double burst_active_frac;	/* ... with at least this share of active time */
	double burst_mean_max_pct;	/* ... and a window mean below this */
	double clock_drop_ratio;	/* SM clock below ratio x reference under load: throttled */
	double brake_clock_ratio;	/* a brake (reason bit, violation) counts below ratio x reference */
	int alt_switches;		/* window: at least this many work <-> wait switches ... */
	double alt_min_frac;		/* ... each of work and wait at least this share of the window */
};
extern const struct state_thresholds state_thr;

/* Window features around an interval (time-weighted). */
struct state_window {
	double util_mean, util_cv, active_frac;
	int switches;		/* changes between work and no work from one interval to the next */
	bool active_before, active_after;	/* work within the window on each side */
	bool valid;
};

struct state_in {
	bool util_known, mem_util_known, power_known, mem_known, mask_known, clock_known;
	double util, mem_util, power_w, mem_mib, sm_clock_mhz, sm_clock_ref_mhz;
	double pviol, tviol;
	unsigned long long mask;
	bool status_down;
	int nproc;		/* processes present, -1 unknown */
	double held_mem_mib;
	double held_floor_w;	/* NAN if not known yet */
	struct state_window win;
};

/* clocks_event_reasons bits that mean "slower than it could run" (formats.md 7.6) */
#define THROTTLE_MASK 0xECull	/* SwPowerCap 0x4, HwSlowdown 0x8, SwThermal 0x20, HwThermal 0x40, HwPowerBrake 0x80 */

/*
 * A brake: a clock-event reason bit that slows the clock (THROTTLE_MASK),
 * or a power or thermal violation counter above 0.
 */
static inline bool state_brake(const struct state_in *in)
{
	return (in->mask_known && (in->mask & THROTTLE_MASK)) || in->pviol > 0 || in->tviol > 0;
}

/*
 * Throttled: the clock fell materially under work.  The SM clock below
 * clock_drop_ratio x the reference with utilization at least busy, or a
 * brake with the clock below brake_clock_ratio x the reference.  A brake
 * with no clock reading to judge it by counts as before; a brake at full
 * clocks (1950 of 1980 MHz under a power cap) does not: it is noted
 * (det_throttle), not a state.
 */
static inline bool state_throttled(const struct state_in *in)
{
	const struct state_thresholds *t = &state_thr;
	bool brake = state_brake(in);

	if (!in->clock_known || !(in->sm_clock_ref_mhz > 0))
		return brake;
	if (in->util >= t->busy_util_pct && in->sm_clock_mhz < t->clock_drop_ratio * in->sm_clock_ref_mhz)
		return true;
	return brake && in->sm_clock_mhz < t->brake_clock_ratio * in->sm_clock_ref_mhz;
}

/*
 * Work and waits alternating at the sampling resolution over the window:
 * several switches, and neither work nor waiting under alt_min_frac of its
 * time.  Bursts of a starved pipeline, not compute with a pause.
 */
static inline bool state_alternating(const struct state_in *in)
{
	const struct state_thresholds *t = &state_thr;

	return in->win.valid && in->win.switches >= t->alt_switches &&
	       in->win.active_frac >= t->alt_min_frac && in->win.active_frac <= 1 - t->alt_min_frac;
}

/*
 * The state of one interval.  Inline: it runs once per interval of every
 * GPU, and its caller's state_in is then never built in memory.
 */
static inline int state_classify(const struct state_in *in)
{
	const struct state_thresholds *t = &state_thr;
	bool held, active, bursty;

	if (in->status_down)
		return ST_DOWN;
	if (!in->util_known)
		return ST_UNKNOWN;
	active = in->util > t->active_util_pct;
	held = in->nproc > 0 || (in->mem_known && in->mem_mib >= in->held_mem_mib);
	bursty = in->win.valid && in->win.util_cv > t->burst_cv &&
		 in->win.active_frac >= t->burst_active_frac &&
		 in->win.util_mean < t->burst_mean_max_pct && in->win.util_mean > t->active_util_pct;

	if (active) {
		if (state_throttled(in))
			return ST_THROTTLED;
		/* a burst of a starved pipeline: work and waits alternating */
		if (held && state_alternating(in))
			return ST_INPUT;
		if (in->mem_util_known && in->mem_util >= t->memory_util_pct &&
		    in->mem_util >= t->memory_ratio * in->util)
			return ST_MEMORY;
		if (in->util >= t->busy_util_pct)
			return ST_COMPUTE;
		if (in->power_known && !isnan(in->held_floor_w) &&
		    in->power_w <= in->held_floor_w * t->launch_floor_ratio + t->launch_floor_margin_w)
			return ST_LAUNCH;
		/* some work, well above idle power, yet the GPU is mostly waiting:
		 * bursts from a starved host, at 1 s scale or below it */
		return ST_INPUT;
	}
	/* the pause between bursts of a starved pipeline: work on both sides */
	if (held && in->win.active_before && in->win.active_after && (bursty || state_alternating(in)))
		return ST_INPUT;
	return held ? ST_HELD_IDLE : ST_IDLE;
}

#endif
