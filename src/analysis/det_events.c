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

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/timeutil.h"
#include "util/xalloc.h"

/* the kind of finding each event becomes; FK_NONE: none */
static const enum finding_kind kinds[EV__COUNT] = {
	[EV_GPU_LOST] = FK_GPU_LOST, [EV_RESET_REQUIRED] = FK_RESET_REQUIRED,
	[EV_ERROR_ROW] = FK_ERROR_ROW, [EV_TOOL_ERROR] = FK_TOOL_ERROR,
	[EV_XID] = FK_XID_ERROR,
};

/*
 * One finding this detector made, and the repeats folded into it so far:
 * the post-pass hands them to det_merge().  Kept for every finding made
 * (they grow with findings, which the cap bounds, never with samples).
 */
struct chain {
	size_t idx;		/* in an->finds */
	int gpu;
	int32_t code;
	uint8_t fk;
	bool merged;
	int64_t t1_ns;
	double value;
	uint64_t last_line;
	const char *last_src;	/* analysis_str(): the event's is borrowed for the call */
};

struct events_run {
	struct chain *c;
	size_t n, alloc;
};

/* "; N lines folded into one event" when the first event folded several. */
static void folded_evidence(struct finding *f)
{
	size_t n = strlen(f->evidence);

	if (f->value > 1)
		snprintf(f->evidence + n, sizeof(f->evidence) - n, "; %.0f lines folded into one event",
			 f->value);
}

extern const struct detector detector_events;

static void events_event(struct analysis *an, int gi, void *st, const struct det_event *e)
{
	struct events_run *run;
	struct finding *f;
	int ev = e->ev;
	unsigned count = e->count ? e->count : 1;

	(void)st;
	if (ev < 0 || ev >= EV__COUNT || !kinds[ev])
		return;
	run = det_shared(an, &detector_events);
	/* a repeat of the same event (kind and code) on the same GPU within a
	 * minute of the last, while its finding is among the last nine made */
	for (size_t i = run->n; i-- > 0 && run->c[i].idx + 8 >= an->nfinds;) {
		struct chain *c = &run->c[i];
		if (c->fk == kinds[ev] && c->gpu == gi && c->code == e->code &&
		    e->t_ns - c->t1_ns <= 60 * NS_PER_S) {
			c->t1_ns = e->t_ns;
			c->value += count;
			c->merged = true;
			const char *src = e->src ? e->src : "?";
			c->last_line = e->line;
			if (!c->last_src || strcmp(c->last_src, src))
				c->last_src = analysis_str(an, src);
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
	folded_evidence(f);
	ALLOC_GROW(run->c, run->n + 1, run->alloc);
	run->c[run->n++] = (struct chain){ .idx = (size_t)(f - an->finds), .gpu = gi, .code = e->code,
					   .fk = (uint8_t)kinds[ev], .t1_ns = e->t_ns, .value = count };
}

/* The post-pass: each finding with repeats gets its last time, its count
 * and "; N in all, ..., the last at src:line" after the first one's place. */
static void events_post(struct analysis *an, const struct finding *finds, size_t n, void *shared)
{
	struct events_run *run = shared;
	char ev[sizeof(finds->evidence)];

	for (size_t i = 0; i < run->n; i++) {
		const struct chain *c = &run->c[i];
		const char *cut;
		if (!c->merged || c->idx >= n)
			continue;
		cut = strchr(finds[c->idx].evidence, ';');
		snprintf(ev, sizeof(ev), "%.*s", cut ? (int)(cut - finds[c->idx].evidence) : (int)sizeof(ev),
			 finds[c->idx].evidence);
		size_t k = strlen(ev);
		snprintf(ev + k, sizeof(ev) - k,
			 "; %.0f in all, each within a minute of the one before, the last at %s:%llu",
			 c->value, c->last_src, (unsigned long long)c->last_line);
		det_merge(an, c->idx, c->t1_ns, c->value, ev);
	}
}

static void events_release(void *shared)
{
	struct events_run *run = shared;

	free(run->c);
}

const struct detector detector_events = {
	.id = "events",
	.summary = "GPU lost, reset required, Xid, error rows and tool errors, repeats of one code merged per minute",
	.event = events_event,
	.post = events_post,
	.shared_size = sizeof(struct events_run),
	.release = events_release,
};
