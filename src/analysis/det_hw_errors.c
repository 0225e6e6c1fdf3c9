/* SPDX-License-Identifier: MIT */
/*
 * Repeated hardware errors on one GPU: two or more hardware-class Xids
 * (the Xid catalog's class: ECC and row-remapping Xids 48, 63, 64,
 * 92, 94, 95 and the like) make the GPU a candidate for return.  A burst
 * is one event; docs/states.md has the rule.
 */
#include "analysis/detector.h"

#include <stdio.h>
#include <string.h>

#include "util/timeutil.h"

#define HW_CODES 8

struct hw_errors {
	uint32_t n;			/* hardware-class events */
	int64_t t0_ns, t1_ns;
	const char *src;		/* the first one's input and line */
	uint64_t line;
	int32_t code[HW_CODES];		/* the codes seen, and how often */
	uint32_t count[HW_CODES];
	int ncodes;
};

static void hw_event(struct analysis *an, int gi, void *st, const struct det_event *e)
{
	struct hw_errors *h = st;
	int i;

	(void)an;
	(void)gi;
	/* Xids only: a fall-off line repeats its Xid 79, it is no second error */
	if (!h || e->ev != EV_XID || e->klass != KC_HW || (e->flags & KF_CONSEQUENCE))
		return;
	if (!h->n++) {
		h->t0_ns = e->t_ns;
		h->src = e->src;
		h->line = e->line;
	}
	h->t1_ns = e->t_ns;
	for (i = 0; i < h->ncodes && h->code[i] != e->code; i++)
		;
	if (i == h->ncodes && h->ncodes < HW_CODES) {
		h->code[h->ncodes] = e->code;
		h->count[h->ncodes++] = 0;
	}
	if (i < h->ncodes)
		h->count[i]++;
}

static void hw_finish(struct analysis *an, int gi, void *st)
{
	char nm[48];
	struct hw_errors *h = st;
	struct finding *f;
	char d[32], list[120] = "";
	size_t n = 0;
	double days = (double)(an->gpus[gi].last_ns - an->gpus[gi].first_ns) / 1e9 / 86400;

	if (h->n < 2)
		return;
	for (int i = 0; i < h->ncodes && n < sizeof(list); i++) {
		char name[48];
		analysis_event_name(name, sizeof(name), EV_XID, h->code[i]);
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s x%u", i ? ", " : "",
				      h->code[i] >= 0 ? name : "no code", h->count[i]);
	}
	f = det_finding(an, FK_HW_ERRORS_REPEATED, gi, h->t0_ns, h->t1_ns,
			h->n >= 5 ? SEV_CRITICAL : SEV_WARNING, h->n);
	if (!f)
		return;
	snprintf(f->message, sizeof(f->message),
		 "%s had %u hardware-class errors over %s (%s): a candidate for return", analysis_gpu_name(an, gi, nm, sizeof(nm)), h->n,
		 time_human_dur(d, sizeof(d), h->t1_ns - h->t0_ns), list);
	snprintf(f->evidence, sizeof(f->evidence),
		 "%.2f per GPU-day; the first at %s:%llu; check row remapping and retired pages "
		 "(nvidia-smi -q -d ROW_REMAPPER,PAGE_RETIREMENT)",
		 days > 0 ? h->n / days : (double)h->n, h->src ? h->src : "?",
		 (unsigned long long)h->line);
}

const struct detector detector_hw_errors = {
	.id = "hw_errors",
	.summary = "two or more hardware-class kernel errors (ECC, row remapping) on one GPU: a candidate for return",
	.state_size = sizeof(struct hw_errors),
	.event = hw_event,
	.finish = hw_finish,
};
