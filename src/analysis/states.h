/* SPDX-License-Identifier: MIT */
/*
 * The state of a GPU over one interval, decided from its readings and from
 * a window around it.  The rules and thresholds are one table in states.c
 * and are documented in docs/states.md.
 */
#ifndef ANALYSIS_STATES_H
#define ANALYSIS_STATES_H

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
	double clock_drop_ratio;	/* SM clock below ratio x reference under load */
};
extern const struct state_thresholds state_thr;

/* Window features around an interval (time-weighted). */
struct state_window {
	double util_mean, util_cv, active_frac;
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

int state_classify(const struct state_in *in);

#endif
