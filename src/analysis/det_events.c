/* SPDX-License-Identifier: MIT */
/*
 * Events as findings: a GPU lost, a reset required, an Xid, a logger's error
 * row, nvidia-smi's error text.  Repeats of one event on one GPU within a
 * minute are one finding whose value counts them.
 */
#include "analysis/detector.h"

#include <stdio.h>

#include "util/timeutil.h"

static const char *const kinds[EV__COUNT] = {
	[EV_GPU_LOST] = "gpu_lost", [EV_RESET_REQUIRED] = "reset_required",
	[EV_ERROR_ROW] = "error_row", [EV_TOOL_ERROR] = "tool_error",
	[EV_XID] = "xid_error",
};

static void events_event(struct analysis *an, int gi, void *st, const struct det_event *e)
{
	struct finding *f;
	int ev = e->ev;

	(void)st;
	if (ev < 0 || ev >= EV__COUNT || !kinds[ev])
		return;
	/* merge a repeat of the same event on the same GPU within a minute */
	for (size_t i = an->nfinds; i-- > 0 && i + 8 >= an->nfinds;) {
		f = &an->finds[i];
		if (f->kind == kinds[ev] && f->gpu == gi && e->t_ns - f->t1_ns <= 60 * NS_PER_S) {
			f->t1_ns = e->t_ns;
			f->value++;
			return;
		}
	}
	f = det_finding(an, kinds[ev], gi, e->t_ns, e->t_ns,
			ev == EV_GPU_LOST || ev == EV_RESET_REQUIRED ? SEV_CRITICAL : SEV_WARNING, 1);
	if (!f)
		return;
	snprintf(f->message, sizeof(f->message), "%s%s: %.150s",
		 ev == EV_ERROR_ROW ? "the logger wrote an error row" :
		 ev == EV_TOOL_ERROR ? "nvidia-smi printed an error instead of data" :
		 ev == EV_GPU_LOST ? "GPU lost" : ev == EV_XID ? "the driver reported an Xid error" :
		 "GPU requires reset",
		 gi >= 0 ? "" : " (no GPU named)", e->msg ? e->msg : "");
	snprintf(f->evidence, sizeof(f->evidence), "%s:%llu", e->src ? e->src : "?",
		 (unsigned long long)e->line);
}

const struct detector detector_events = {
	.id = "events",
	.summary = "GPU lost, reset required, Xid, error rows and tool errors, repeats merged per minute",
	.event = events_event,
};
