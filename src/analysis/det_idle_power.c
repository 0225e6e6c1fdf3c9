/* SPDX-License-Identifier: MIT */
/*
 * Idle power: what a GPU drew while doing nothing, with the idle floors
 * (median power with memory or a context held, and with nothing held) that
 * the analysis measured.
 */
#include "analysis/detector.h"

#include <math.h>
#include <stdio.h>

/* The message from the idle seconds and their energy (also the store's,
 * when it merges two runs' rows, docs/store.md); total_s: the idle seconds. */
void det_idle_power_text(struct finding *f, const char *name, double idle_s, double idle_ws)
{
	f->total_s = idle_s;	/* what it costs: the idle seconds */
	snprintf(f->message, sizeof(f->message), "%s drew %.0f W on average while doing nothing (%.0f s, %.3f kWh)",
		 name, idle_ws / idle_s, idle_s, idle_ws / 3.6e6);
}

static void idle_power_finish(struct analysis *an, int gi, void *st)
{
	char nm[48];
	struct gpu_stats *g = &an->gpus[gi];
	struct finding *f;

	(void)st;
	if (g->idle_s < 1)
		return;
	f = det_finding(an, FK_IDLE_POWER, gi, g->first_ns, g->last_ns, SEV_INFO, g->idle_ws / g->idle_s);
	if (!f)
		return;
	det_idle_power_text(f, analysis_gpu_name(an, gi, nm, sizeof(nm)), g->idle_s, g->idle_ws);
	if (!isnan(g->held_floor_w) && !isnan(g->noctx_floor_w))
		snprintf(f->evidence, sizeof(f->evidence),
			 "median idle power %.0f W with memory or a context held, %.0f W with nothing held: holding costs %.0f W",
			 g->held_floor_w, g->noctx_floor_w, g->held_floor_w - g->noctx_floor_w);
	else if (isnan(g->held_floor_w) && isnan(g->noctx_floor_w))
		snprintf(f->evidence, sizeof(f->evidence),
			 "no memory reading while idle: whether memory was held, and so the idle floor, is unknown");
	else
		snprintf(f->evidence, sizeof(f->evidence), "median idle power %.0f W (%s)",
			 !isnan(g->held_floor_w) ? g->held_floor_w : g->noctx_floor_w,
			 !isnan(g->held_floor_w) ? "memory or a context held" : "nothing held");
}

const struct detector detector_idle_power = {
	.id = "idle_power",
	.summary = "power drawn while doing nothing, and the idle floors held and bare",
	.finish = idle_power_finish,
};
