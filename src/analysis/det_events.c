/* SPDX-License-Identifier: MIT */
/*
 * Events as findings: a GPU lost, a reset required, an Xid, a logger's error
 * row, nvidia-smi's error text.  Repeats of one event (the same kind and
 * code: Xid 63 and Xid 94 are two events) on one GPU within a minute of the
 * last are one finding; its value counts them, the lines a kernel log folded
 * into one event included, and its evidence says how many and where the
 * first and the last one are.
 */
#include "analysis/detector.h"

#include <stdio.h>
#include <string.h>

#include "util/timeutil.h"

/* the kind of finding each event becomes; FK_NONE: none */
static const enum finding_kind kinds[EV__COUNT] = {
	[EV_GPU_LOST] = FK_GPU_LOST, [EV_RESET_REQUIRED] = FK_RESET_REQUIRED,
	[EV_ERROR_ROW] = FK_ERROR_ROW, [EV_TOOL_ERROR] = FK_TOOL_ERROR,
	[EV_XID] = FK_XID_ERROR,
};

/* The first one's place, then how many in all and where the last one is. */
static void count_evidence(struct finding *f, const struct det_event *last)
{
	char *cut = strchr(f->evidence, ';');
	size_t n;

	if (cut)
		*cut = 0;
	if (f->value <= 1)
		return;
	n = strlen(f->evidence);
	if (last)
		snprintf(f->evidence + n, sizeof(f->evidence) - n,
			 "; %.0f in all, each within a minute of the one before, the last at %s:%llu",
			 f->value, last->src ? last->src : "?", (unsigned long long)last->line);
	else
		snprintf(f->evidence + n, sizeof(f->evidence) - n, "; %.0f lines folded into one event",
			 f->value);
}

static void events_event(struct analysis *an, int gi, void *st, const struct det_event *e)
{
	struct finding *f;
	int ev = e->ev;
	unsigned count = e->count ? e->count : 1;

	(void)st;
	if (ev < 0 || ev >= EV__COUNT || !kinds[ev])
		return;
	/* merge a repeat of the same event (kind and code) on the same GPU
	 * within a minute of the last */
	for (size_t i = an->nfinds; i-- > 0 && i + 8 >= an->nfinds;) {
		f = &an->finds[i];
		if (f->fk == kinds[ev] && f->gpu == gi && f->code == e->code &&
		    e->t_ns - f->t1_ns <= 60 * NS_PER_S) {
			f->t1_ns = e->t_ns;
			f->value += count;
			count_evidence(f, e);
			return;
		}
	}
	f = det_finding(an, kinds[ev], gi, e->t_ns, e->t_ns,
			ev == EV_GPU_LOST || ev == EV_RESET_REQUIRED ? SEV_CRITICAL : SEV_WARNING, count);
	if (!f)
		return;
	f->code = e->code;
	snprintf(f->message, sizeof(f->message), "%s%s: %.150s",
		 ev == EV_ERROR_ROW ? "the logger wrote an error row" :
		 ev == EV_TOOL_ERROR ? "nvidia-smi printed an error instead of data" :
		 ev == EV_GPU_LOST ? "GPU lost" : ev == EV_XID ? "the driver reported an Xid error" :
		 "GPU requires reset",
		 gi >= 0 ? "" : " (no GPU named)", e->msg ? e->msg : "");
	snprintf(f->evidence, sizeof(f->evidence), "%s:%llu", e->src ? e->src : "?",
		 (unsigned long long)e->line);
	count_evidence(f, NULL);
}

const struct detector detector_events = {
	.id = "events",
	.summary = "GPU lost, reset required, Xid, error rows and tool errors, repeats of one code merged per minute",
	.event = events_event,
};
