/* SPDX-License-Identifier: MIT */
/*
 * Placing kernel printk times (TK_BOOT) on the wall clock.
 *
 * A kernel log counts seconds since boot.  The driver numbers the boots of
 * each input (kboot_next: a new boot at an EV_BOOT record or when the printk
 * clock goes back), collects in a pre-pass every REC_ANCHOR (two clocks
 * read together) and the span of every boot (anc_collect_*), then decides
 * per input and boot which anchor places it (anc_decide), best first:
 *
 *   1. anchors of the same input and boot (journald's realtime stamps,
 *      syslog lines that also carry the printk time), piecewise: a jump of
 *      the offset wall - printk (a suspend) starts a new segment;
 *   2. another input's anchors of the same boot: the same _BOOT_ID, or a
 *      boot time that matches the clock reference this boot fits;
 *   3. --boot-time;
 *   4. a clock reference (clock_ref_*.txt: wall - uptime) whose uptime the
 *      boot's span fits: the last boot of an input whose printk times end
 *      before that uptime.
 *
 * What cannot be placed stays TK_BOOT and reaches the sink unplaced.
 */
#ifndef FORMATS_ANCHOR_H
#define FORMATS_ANCHOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/format.h"

/* A free anchor (anc.quality): a clock reference naming no boot, that fits
 * any input's boot by span (fmt_clock_ref.c). */
#define ANC_Q_CLOCK_REF 3

/* Numbering the boots of one input, record by record in input order. */
struct kboot_seq {
	bool seen;
	int64_t last_mono;
	uint32_t last_fmt_boot;
	uint32_t extra;
};

/* The input's boot number of r (a TK_BOOT REC_EVENT or a REC_ANCHOR); also
 * writes it into r->kev.boot / r->anc.boot. */
uint32_t kboot_next(struct kboot_seq *q, struct rec *r);

/* One stretch of a boot with one offset: wall = printk + offset_ns. */
struct anc_seg {
	int64_t mono_from;
	int64_t offset_ns;
};

/* What placed one boot of an input. */
struct anc_boot_plan {
	struct anc_seg *segs;	/* NULL: unplaced */
	size_t nseg;
};

/* Per input (input_stat.anchor): one plan per boot. */
struct anc_plan {
	struct anc_boot_plan *boots;
	size_t nboot;
};

/* wall time of printk time mono in boot b, or false (unplaced). */
bool anc_place(const struct anc_plan *p, uint32_t boot, int64_t mono, int64_t *t_ns);
void anc_plan_free(struct anc_plan *p);

/* ---- the pre-pass --------------------------------------------------------- */

struct anc_collect;

struct anc_collect *anc_collect_new(size_t ninputs);
void anc_collect_free(struct anc_collect *c);
/* Record r of input i (boots numbered by kboot_next already); b holds its strings. */
void anc_collect_rec(struct anc_collect *c, size_t i, const struct rec *r, const struct batch *b);
/* Did input i show anything to place (TK_BOOT records or anchors)? */
bool anc_collect_any(const struct anc_collect *c, size_t i);

/*
 * Decide the plan of every input with TK_BOOT records.  names[i] is input
 * i's path (for the basis text); boot_time_ns is --boot-time or INT64_MIN.
 * plans[i] and basis[i] (basis_cap bytes) are filled for those inputs;
 * returns whether input i has boots at all in has[i].
 */
void anc_decide(struct anc_collect *c, const char *const *names, int64_t boot_time_ns,
		struct anc_plan **plans, char **basis, size_t basis_cap, bool *has);

#endif
