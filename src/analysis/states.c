/* SPDX-License-Identifier: MIT */
#include "analysis/states.h"

#include <math.h>

const char *const state_name[ST__COUNT] = {
	"idle", "held_idle", "compute_bound", "memory_bound", "input_bound",
	"launch_bound", "throttled", "down", "unknown", "gap",
};

const char *const state_label[ST__COUNT] = {
	"idle", "held but idle", "useful compute", "memory-bound work", "input-starved",
	"launch-bound", "throttled", "down", "unknown", "no data (gap)",
};

bool state_is_useful(int st)
{
	return st == ST_COMPUTE || st == ST_MEMORY || st == ST_THROTTLED;
}

/*
 * Tuned on the real H200 capture (examples/h200-training, app_log.jsonl
 * gives the truth): compute at sm 76-96 % / mem 41-53 %; memory copies at
 * sm 99 / mem 100; a starved DataLoader at sm 0-29 swinging second to
 * second (CV ~0.6); tiny kernels at sm 13-22 steady with power at the
 * held-idle floor (123 W); matmuls between host sleeps at sm ~25 steady,
 * 336 W.  docs/states.md explains each rule.
 */
const struct state_thresholds state_thr = {
	.busy_util_pct = 50,
	.memory_util_pct = 70,
	.memory_ratio = 0.9,
	.active_util_pct = 0.5,
	.launch_floor_ratio = 1.10,
	.launch_floor_margin_w = 5,
	.burst_cv = 0.35,
	.burst_active_frac = 0.3,
	.burst_mean_max_pct = 50,
	.clock_drop_ratio = 0.85,
};

/* clocks_event_reasons bits that mean "slower than it could run" (formats.md 7.6) */
#define THROTTLE_MASK 0xECull	/* SwPowerCap 0x4, HwSlowdown 0x8, SwThermal 0x20, HwThermal 0x40, HwPowerBrake 0x80 */

int state_classify(const struct state_in *in)
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
		bool throttle = (in->mask_known && (in->mask & THROTTLE_MASK)) ||
				(in->pviol > 0) || (in->tviol > 0) ||
				(in->clock_known && in->util >= t->busy_util_pct &&
				 in->sm_clock_ref_mhz > 0 &&
				 in->sm_clock_mhz < t->clock_drop_ratio * in->sm_clock_ref_mhz);
		if (throttle)
			return ST_THROTTLED;
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
	if (bursty && held && in->win.active_before && in->win.active_after)
		return ST_INPUT;
	return held ? ST_HELD_IDLE : ST_IDLE;
}
