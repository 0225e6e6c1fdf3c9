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
	.clock_drop_ratio = 0.90,
	.brake_clock_ratio = 0.95,
	.alt_switches = 3,
	.alt_min_frac = 0.25,
};
