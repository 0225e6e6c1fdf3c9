/* SPDX-License-Identifier: MIT */
/* Placing kernel printk times on the wall clock (anchor.h). */
#include "formats/anchor.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/timeutil.h"
#include "util/xalloc.h"

/* The printk clock going back by more than this is a new boot. */
#define BOOT_BACK_NS NS_PER_S
/* An offset jump up by more than this between anchors is a suspend. */
#define SEG_JUMP_NS (2 * NS_PER_S)
/* Boot times of two inputs within this are the same boot. */
#define SAME_BOOT_NS (2 * NS_PER_S)
/* Bounds on what one input may hold, whatever its size. */
#define MAX_BOOTS 4096
#define MAX_SEGS 65536
#define MAX_FREE 256

uint32_t kboot_next(struct kboot_seq *q, struct rec *r)
{
	bool anchor = r->kind == REC_ANCHOR;
	uint32_t fmt_boot = anchor ? r->anc.boot : r->kev.boot;
	int64_t mono = anchor ? r->anc.mono_ns : r->t_ns;
	uint32_t b;

	if (anchor && r->t_ns == INT64_MIN && r->anc.mono_ns == INT64_MIN)
		mono = q->seen ? q->last_mono : 0;	/* names a boot id only */
	if (q->seen && fmt_boot == q->last_fmt_boot &&
	    ((!anchor && r->ev == EV_BOOT) || mono < q->last_mono - BOOT_BACK_NS))
		q->extra++;
	q->seen = true;
	q->last_mono = mono;
	q->last_fmt_boot = fmt_boot;
	b = fmt_boot + q->extra;
	if (anchor)
		r->anc.boot = b;
	else
		r->kev.boot = b;
	return b;
}

bool anc_place(const struct anc_plan *p, uint32_t boot, int64_t mono, int64_t *t_ns)
{
	const struct anc_boot_plan *bp;
	size_t lo = 0, hi;

	if (!p || boot >= p->nboot || !(bp = &p->boots[boot])->nseg)
		return false;
	/* the last segment starting at or before mono (the first one before all) */
	hi = bp->nseg;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (bp->segs[mid].mono_from <= mono)
			lo = mid;
		else
			hi = mid;
	}
	*t_ns = mono + bp->segs[lo].offset_ns;
	return true;
}

void anc_plan_free(struct anc_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nboot; i++)
		free(p->boots[i].segs);
	free(p->boots);
	free(p);
}

/* ---- the pre-pass --------------------------------------------------------- */

struct cboot {
	bool any;		/* TK_BOOT records seen */
	int64_t mono_min, mono_max;
	uint64_t nrec, suspends;
	char boot_id[64];
	struct anc_seg *segs;	/* the input's own anchors, as segments */
	size_t nseg, aseg;
};

struct cfree {
	int64_t wall_ns, mono_ns;
	char note[48];		/* "btime 1795992369" */
};

struct cinput {
	struct cboot *boots;
	size_t nboot, aboot;
	struct cfree *free_anc;
	size_t nfree, afree;
	bool any;
	char used_by[200];	/* a clock reference: the inputs it placed */
};

struct anc_collect {
	struct cinput *in;
	size_t n;
};

struct anc_collect *anc_collect_new(size_t ninputs)
{
	struct anc_collect *c = xcalloc(1, sizeof(*c));

	c->n = ninputs;
	c->in = xcalloc(ninputs ? ninputs : 1, sizeof(*c->in));
	return c;
}

void anc_collect_free(struct anc_collect *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		for (size_t b = 0; b < c->in[i].nboot; b++)
			free(c->in[i].boots[b].segs);
		free(c->in[i].boots);
		free(c->in[i].free_anc);
	}
	free(c->in);
	free(c);
}

static struct cboot *boot_of(struct cinput *in, uint32_t b)
{
	if (b >= MAX_BOOTS)
		return NULL;
	if (b >= in->nboot) {
		ALLOC_GROW(in->boots, (size_t)b + 1, in->aboot);
		memset(in->boots + in->nboot, 0, ((size_t)b + 1 - in->nboot) * sizeof(*in->boots));
		in->nboot = (size_t)b + 1;
	}
	return &in->boots[b];
}

static void add_own_anchor(struct cboot *cb, int64_t wall, int64_t mono)
{
	int64_t off = wall - mono;
	struct anc_seg *last = cb->nseg ? &cb->segs[cb->nseg - 1] : NULL;

	/*
	 * journald stamps messages it read late (those buffered before it
	 * started) with a late realtime: the least offset of a stretch is the
	 * truest.  A jump up is time the printk clock did not see: a suspend.
	 */
	if (last && off <= last->offset_ns + SEG_JUMP_NS) {
		if (off < last->offset_ns)
			last->offset_ns = off;
		return;
	}
	if (cb->nseg >= MAX_SEGS)
		return;
	ALLOC_GROW(cb->segs, cb->nseg + 1, cb->aseg);
	cb->segs[cb->nseg++] = (struct anc_seg){ mono, off };
}

void anc_collect_rec(struct anc_collect *c, size_t i, const struct rec *r, const struct batch *b)
{
	struct cinput *in;
	struct cboot *cb;

	if (i >= c->n)
		return;
	in = &c->in[i];
	if (r->kind == REC_ANCHOR) {
		in->any = true;
		if (r->anc.quality == ANC_Q_CLOCK_REF && r->anc.boot_id == STR_NONE) {
			if (in->nfree >= MAX_FREE || r->t_ns == INT64_MIN)
				return;
			ALLOC_GROW(in->free_anc, in->nfree + 1, in->afree);
			struct cfree *f = &in->free_anc[in->nfree++];
			f->wall_ns = r->t_ns;
			f->mono_ns = r->anc.mono_ns;
			snprintf(f->note, sizeof(f->note), "%s", r->name != STR_NONE ? batch_str(b, r->name) : "");
			return;
		}
		if (!(cb = boot_of(in, r->anc.boot)))
			return;
		if (r->anc.boot_id != STR_NONE)
			snprintf(cb->boot_id, sizeof(cb->boot_id), "%s", batch_str(b, r->anc.boot_id));
		if (r->t_ns != INT64_MIN && r->anc.mono_ns != INT64_MIN)
			add_own_anchor(cb, r->t_ns, r->anc.mono_ns);
		return;
	}
	if (r->kind != REC_EVENT || r->time_kind != TK_BOOT || !(cb = boot_of(in, r->kev.boot)))
		return;
	in->any = true;
	if (!cb->any || r->t_ns < cb->mono_min)
		cb->mono_min = r->t_ns;
	if (!cb->any || r->t_ns > cb->mono_max)
		cb->mono_max = r->t_ns;
	cb->any = true;
	cb->nrec++;
	if (r->ev == EV_SUSPEND)
		cb->suspends++;
}

bool anc_collect_any(const struct anc_collect *c, size_t i)
{
	return i < c->n && c->in[i].any;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* The clock reference (of any input) that the boot [.., mono_max] fits:
 * the one with the least uptime at or after the boot's last printk time. */
static const struct cfree *fit_clock_ref(const struct anc_collect *c, int64_t mono_max, size_t *from)
{
	const struct cfree *best = NULL;

	for (size_t j = 0; j < c->n; j++)
		for (size_t k = 0; k < c->in[j].nfree; k++) {
			const struct cfree *f = &c->in[j].free_anc[k];
			if (f->mono_ns + NS_PER_S < mono_max)
				continue;
			if (!best || f->mono_ns < best->mono_ns) {
				best = f;
				*from = j;
			}
		}
	return best;
}

/* Another input's boot with anchors whose first offset is within
 * SAME_BOOT_NS of off, or whose boot id is id. */
static const struct cboot *other_boot(const struct anc_collect *c, size_t self, const char *id,
				      const int64_t *off, size_t *from)
{
	for (size_t j = 0; j < c->n; j++) {
		if (j == self)
			continue;
		for (size_t b = 0; b < c->in[j].nboot; b++) {
			const struct cboot *o = &c->in[j].boots[b];
			if (!o->nseg)
				continue;
			if ((id && id[0] && !strcmp(o->boot_id, id)) ||
			    (off && llabs(o->segs[0].offset_ns - *off) <= SAME_BOOT_NS)) {
				*from = j;
				return o;
			}
		}
	}
	return NULL;
}

static void copy_segs(struct anc_boot_plan *bp, const struct anc_seg *s, size_t n)
{
	bp->segs = xmalloc(n * sizeof(*s));
	memcpy(bp->segs, s, n * sizeof(*s));
	bp->nseg = n;
}

static void one_seg(struct anc_boot_plan *bp, int64_t off)
{
	struct anc_seg s = { INT64_MIN, off };
	copy_segs(bp, &s, 1);
}

static void decide_boot(struct anc_collect *c, size_t i, size_t b, const char *const *names,
			int64_t boot_time_ns, struct anc_boot_plan *bp, char *why, size_t cap)
{
	const struct cinput *in = &c->in[i];
	const struct cboot *cb = &in->boots[b], *o;
	bool last = b + 1 == in->nboot;
	const struct cfree *cref = NULL;
	size_t from = 0;
	char when[40];

	if (cb->nseg) {
		copy_segs(bp, cb->segs, cb->nseg);
		snprintf(why, cap, "the file's own clock pairs (%zu offset segment%s)", cb->nseg,
			 cb->nseg == 1 ? "" : "s");
		return;
	}
	if (cb->boot_id[0] && (o = other_boot(c, i, cb->boot_id, NULL, &from))) {
		copy_segs(bp, o->segs, o->nseg);
		snprintf(why, cap, "the clock pairs of %s (same boot id)", base_name(names[from]));
		return;
	}
	if (last && cb->any)
		cref = fit_clock_ref(c, cb->mono_max, &from);
	if (cref) {
		int64_t off = cref->wall_ns - cref->mono_ns;
		size_t j;
		if ((o = other_boot(c, i, NULL, &off, &j))) {
			copy_segs(bp, o->segs, o->nseg);
			snprintf(why, cap, "the clock pairs of %s (same boot as %s)", base_name(names[j]),
				 base_name(names[from]));
			return;
		}
	}
	if (last && boot_time_ns != INT64_MIN) {
		one_seg(bp, boot_time_ns);
		snprintf(why, cap, "printk seconds + --boot-time %s", time_rfc3339_us(when, sizeof(when), boot_time_ns));
	} else if (cref) {
		int64_t off = cref->wall_ns - cref->mono_ns;
		char *u = c->in[from].used_by;
		size_t ul = strlen(u);
		one_seg(bp, off);
		if (!strstr(u, base_name(names[i])) && ul + 1 < sizeof(c->in[from].used_by))
			snprintf(u + ul, sizeof(c->in[from].used_by) - ul, "%s%s", ul ? ", " : "",
				 base_name(names[i]));
		snprintf(why, cap, "printk seconds + boot time %s (wall - uptime of %s; %s)",
			 time_rfc3339_us(when, sizeof(when), off), base_name(names[from]), cref->note);
	} else {
		snprintf(why, cap, "unplaced: no anchor; give --boot-time");
		return;
	}
	if (cb->suspends) {
		size_t l = strlen(why);
		snprintf(why + l, cap - l, "; %" PRIu64 " suspend%s: later times early by the time asleep",
			 cb->suspends, cb->suspends == 1 ? "" : "s");
	}
}

void anc_decide(struct anc_collect *c, const char *const *names, int64_t boot_time_ns,
		struct anc_plan **plans, char **basis, size_t basis_cap, bool *has)
{
	for (size_t i = 0; i < c->n; i++) {
		struct cinput *in = &c->in[i];
		struct anc_plan *p;
		size_t nb = 0, len = 0;

		has[i] = false;
		for (size_t b = 0; b < in->nboot; b++)
			nb += in->boots[b].any;
		if (!nb)
			continue;
		has[i] = true;
		p = xcalloc(1, sizeof(*p));
		p->nboot = in->nboot;
		p->boots = xcalloc(in->nboot, sizeof(*p->boots));
		basis[i][0] = '\0';
		for (size_t b = 0; b < in->nboot; b++) {
			char why[256];
			if (!in->boots[b].any)
				continue;
			decide_boot(c, i, b, names, boot_time_ns, &p->boots[b], why, sizeof(why));
			if (len + 1 >= basis_cap)
				continue;	/* the plan is whole; only its description is cut */
			if (nb == 1)
				snprintf(basis[i], basis_cap, "%s", why);
			else
				snprintf(basis[i] + len, basis_cap - len, "%sboot %zu: %s", len ? "; " : "",
					 b, why);
			len = strlen(basis[i]);
		}
		plans[i] = p;
	}
	/* what each clock reference did, for its own line in the report */
	for (size_t i = 0; i < c->n; i++) {
		const struct cinput *in = &c->in[i];
		char when[40];
		if (!in->nfree || has[i])
			continue;
		snprintf(basis[i], basis_cap, "a clock reference: boot time %s (wall - uptime; %s); %s%s",
			 time_rfc3339_us(when, sizeof(when), in->free_anc[0].wall_ns - in->free_anc[0].mono_ns),
			 in->free_anc[0].note, in->used_by[0] ? "it places " : "no kernel log's last boot fits it",
			 in->used_by);
	}
}
