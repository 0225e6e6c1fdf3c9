/* SPDX-License-Identifier: MIT */
#include "timeline/timeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/pci.h"
#include "util/scan.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

#define DEFAULT_NOMINAL_NS NS_PER_S

void timeline_init(struct timeline *tl, const struct timeline_consumer *c)
{
	tl->c = *c;
	tl->last_event_ns = INT64_MIN;
}

int64_t timeline_gap_threshold(int64_t nominal_ns)
{
	/* dmon's printed second skips now and then (its 1 s sleep drifts), so
	 * a 2 s step at a 1 s interval is not lost data; 2.5 intervals is. */
	int64_t a = nominal_ns * 5 / 2, b = nominal_ns + NS_PER_S;
	return a > b ? a : b;
}

static void copy_str(char *dst, size_t cap, const char *s)
{
	size_t n = strlen(s);
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

static int new_gpu(struct timeline *tl, int index, const char *uuid, const char *name)
{
	struct tl_gpu *g;

	if (tl->ngpus >= TL_MAX_GPUS) {
		tl->dropped_too_many++;
		return -1;
	}
	g = &tl->gpus[tl->ngpus];
	memset(g, 0, sizeof(*g));
	g->id.index = index;
	if (uuid)
		copy_str(g->id.uuid, sizeof(g->id.uuid), uuid);
	if (name)
		copy_str(g->id.name, sizeof(g->id.name), name);
	for (int m = 0; m < M__COUNT; m++)
		g->ft_ns[m] = INT64_MIN;
	g->nproc_known = -1;
	memset(tl->by_index, 0, sizeof(tl->by_index));
	return tl->ngpus++;
}

/* Find or create the GPU a record names. */
static int resolve_gpu(struct timeline *tl, int index, const char *uuid, const char *name)
{
	int i;

	if (uuid) {
		for (i = 0; i < tl->ngpus; i++)
			if (!strcmp(tl->gpus[i].id.uuid, uuid))
				goto found;
		if (index >= 0) {
			for (i = 0; i < tl->ngpus; i++)
				if (tl->gpus[i].id.index == index && !tl->gpus[i].id.uuid[0]) {
					copy_str(tl->gpus[i].id.uuid, sizeof(tl->gpus[i].id.uuid), uuid);
					goto found;
				}
		} else if (tl->ngpus == 1 && !tl->gpus[0].id.uuid[0]) {
			/* one GPU known by index only: a UUID-only record is it */
			i = 0;
			copy_str(tl->gpus[0].id.uuid, sizeof(tl->gpus[0].id.uuid), uuid);
			goto found;
		}
		return new_gpu(tl, index, uuid, name);
	}
	if (index >= 0) {
		if (index < 64 && tl->by_index[index]) {
			i = tl->by_index[index] - 1;
			goto found;
		}
		for (i = 0; i < tl->ngpus; i++)
			if (tl->gpus[i].id.index == index) {
				if (index < 64)
					tl->by_index[index] = (uint16_t)(i + 1);
				goto found;
			}
		/* a UUID-only GPU (known from process data) takes the first index */
		for (i = 0; i < tl->ngpus; i++)
			if (tl->gpus[i].id.index < 0 && tl->ngpus == 1) {
				tl->gpus[i].id.index = index;
				memset(tl->by_index, 0, sizeof(tl->by_index));
				goto found;
			}
		return new_gpu(tl, index, NULL, name);
	}
	if (name && name[0]) {
		/*
		 * A log that names its GPUs only by model (--query-gpu=name,...):
		 * the one GPU of that name, or a new one while every GPU known is
		 * known by name alone.  Two GPUs of one model cannot be told apart
		 * this way (docs/states.md).
		 */
		int hit = -1, same = 0, named_only = 0;
		for (i = 0; i < tl->ngpus; i++) {
			const struct gpu_ident *id = &tl->gpus[i].id;
			if (!strcmp(id->name, name)) {
				hit = i;
				same++;
			}
			named_only += id->index < 0 && !id->uuid[0];
		}
		if (same == 1) {
			i = hit;
			goto found;
		}
		if (same == 0 && named_only == tl->ngpus)
			return new_gpu(tl, -1, NULL, name);
	}
	if (tl->ngpus == 1)
		return 0;
	return -1;
found:
	/* gpu_monitor.sh strips the spaces from names: prefer one that has them */
	if (name && (!tl->gpus[i].id.name[0] ||
		     (!strchr(tl->gpus[i].id.name, ' ') && strchr(name, ' '))))
		copy_str(tl->gpus[i].id.name, sizeof(tl->gpus[i].id.name), name);
	if (index >= 0 && tl->gpus[i].id.index < 0) {
		tl->gpus[i].id.index = index;
		memset(tl->by_index, 0, sizeof(tl->by_index));
	}
	return i;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int64_t own_nominal(struct tl_gpu *g)
{
	int64_t tmp[32];

	if (g->nominal_ns)
		return g->nominal_ns;
	if (g->ndts == 0)
		return 0;
	memcpy(tmp, g->dts, sizeof(tmp[0]) * (size_t)g->ndts);
	qsort(tmp, (size_t)g->ndts, sizeof(tmp[0]), cmp_i64);
	if (g->ndts == 32)
		g->nominal_ns = tmp[16];
	return tmp[g->ndts / 2];
}

/*
 * A GPU's sampling interval: the median of its first steps.  With fewer
 * than three steps that median is a guess (a GPU seen twice, 10 minutes
 * apart, in a log that samples every 5 s would have "sampled every 10
 * minutes" and never have had a gap), so the shortest interval of the other
 * GPUs read from the same input caps it.
 */
static int64_t nominal(struct timeline *tl, struct tl_gpu *g)
{
	int64_t own = own_nominal(g), peer = 0;

	if (g->ndts >= 3 || g->nominal_ns)
		return own;
	for (int i = 0; i < tl->ngpus; i++) {
		struct tl_gpu *o = &tl->gpus[i];
		int64_t n;
		if (o == g || o->last_key != g->last_key || !g->last_key || o->ndts < 3)
			continue;
		n = own_nominal(o);
		if (n > 0 && (!peer || n < peer))
			peer = n;
	}
	if (peer && (!own || peer < own))
		return peer;
	return own ? own : DEFAULT_NOMINAL_NS;
}

/* ---- energy: runs of counter readings ------------------------------------ */

/* A process observation held with the intervals around it, its name copied. */
struct held_proc {
	int64_t t_ns, pid;
	uint32_t present;
	double sm, mem, fb;
	bool has_name, has_who;
	char name[64];
	char user[32], job[32], task[48], ctr[72];
};

struct tl_held {
	bool is_proc;
	union {
		struct ival iv;
		struct held_proc p;
	};
};

/* Hand the held entries to the consumer in order and empty the hold. */
static void release_held(struct timeline *tl, int gi)
{
	struct tl_gpu *g = &tl->gpus[gi];

	for (int i = 0; i < g->nhold; i++) {
		struct tl_held *h = &g->hold[i];
		if (!h->is_proc)
			tl->c.interval(tl->c.ud, gi, &h->iv);
		else if (tl->c.process) {
			struct proc_who who = { h->p.user, h->p.job, h->p.task, h->p.ctr };
			tl->c.process(tl->c.ud, gi, h->p.t_ns, h->p.pid,
				      h->p.has_name ? h->p.name : NULL, h->p.present,
				      h->p.sm, h->p.mem, h->p.fb, h->p.has_who ? &who : NULL);
		}
	}
	g->nhold = 0;
}

/*
 * End the run: what it holds has no counter difference (a gap, a reset, a
 * GPU gone, the end of the log), so each interval keeps power x time, set
 * when it was built.
 */
static void end_run(struct timeline *tl, int gi)
{
	release_held(tl, gi);
	tl->gpus[gi].run_open = false;
}

/*
 * A reading e_j closes the run: the difference from the run's reading is
 * spread over the held intervals in proportion to power x time, an interval
 * without a power reading weighted by the held intervals' mean power (all
 * weighted by time when no power is known or all of it is 0).  A smaller
 * value is a reset: no difference across it.
 */
static void close_run(struct timeline *tl, int gi, double e_j)
{
	struct tl_gpu *g = &tl->gpus[gi];
	double d = e_j - g->run_j, pws = 0, pknown = 0, pmean, wsum = 0;
	bool by_time;

	if (!(d >= 0)) {
		end_run(tl, gi);
		return;
	}
	for (int i = 0; i < g->nhold; i++) {
		const struct ival *iv = &g->hold[i].iv;
		double dt = (double)(iv->t1_ns - iv->t0_ns) / 1e9;
		if (g->hold[i].is_proc)
			continue;
		if (iv->present & (1u << M_POWER)) {
			pws += iv->v[M_POWER] * dt;
			pknown += dt;
		}
	}
	pmean = pknown > 0 ? pws / pknown : 0;
	by_time = !(pmean > 0);
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < g->nhold; i++) {
			struct ival *iv = &g->hold[i].iv;
			double dt = (double)(iv->t1_ns - iv->t0_ns) / 1e9, w;
			if (g->hold[i].is_proc)
				continue;
			w = by_time ? dt : (iv->present & (1u << M_POWER)) ? iv->v[M_POWER] * dt :
			    pmean * dt;
			if (pass == 0) {
				wsum += w;
			} else {
				iv->energy_j = wsum > 0 ? d * w / wsum : 0;
				iv->energy_from_counter = true;
			}
		}
	release_held(tl, gi);
}

/*
 * A counter reading e_j at t (owned by its input): close the run, open the
 * next.  The same value again is no new reading: older recorders wrote the
 * newest reading on every row, and a counter in millijoules does not stand
 * still on a powered GPU; the run goes on to the value that moved.
 */
static void counter_reading(struct timeline *tl, int gi, int64_t t, double e_j)
{
	struct tl_gpu *g = &tl->gpus[gi];

	if (g->run_open && e_j == g->run_j)
		return;
	if (g->run_open)
		close_run(tl, gi, e_j);
	g->run_open = true;
	g->run_j = e_j;
	g->run_t_ns = t;
}

/* The next hold slot, or NULL when no run is open (the run ends when full). */
static struct tl_held *hold_slot(struct timeline *tl, int gi)
{
	struct tl_gpu *g = &tl->gpus[gi];

	if (!g->run_open)
		return NULL;
	if (g->nhold == TL_HOLD_MAX) {
		end_run(tl, gi);
		return NULL;
	}
	if (g->nhold == g->hold_cap) {
		g->hold_cap = g->hold_cap ? g->hold_cap * 2 : 16;
		g->hold = xreallocarray(g->hold, (size_t)g->hold_cap, sizeof(*g->hold));
	}
	return &g->hold[g->nhold];
}

/* ---- intervals ------------------------------------------------------------ */

/* Where to build an interval: held in the run, else the consumer's own slot
 * when it offers one.  *held says which (commit with deliver()). */
static inline struct ival *ival_slot(struct timeline *tl, int gi, struct ival *local, bool *held)
{
	struct tl_held *h = tl->gpus[gi].run_open ? hold_slot(tl, gi) : NULL;
	struct ival *iv;

	*held = h != NULL;
	if (h) {
		h->is_proc = false;
		return &h->iv;
	}
	iv = tl->c.reserve ? tl->c.reserve(tl->c.ud, gi) : NULL;
	return iv ? iv : local;
}

static void deliver(struct timeline *tl, int gi, const struct ival *iv, bool held)
{
	if (held)
		tl->gpus[gi].nhold++;
	else
		tl->c.interval(tl->c.ud, gi, iv);
}

/*
 * When metric m was read.  ft_ns[] is written for a metric only when the
 * time of the latest readings (upd_t_ns) moves on without it: a metric of
 * upd_mask was read at upd_t_ns.  One input rewrites every metric of every
 * row, so its rows store one time, not one per metric.
 */
static inline int64_t read_ns(const struct tl_gpu *g, int m)
{
	return (g->upd_mask >> m) & 1 ? g->upd_t_ns : g->ft_ns[m];
}

/* Deliver [t0, t1) with no reading in it: a gap, or (status GS_LOST) time
 * the GPU is known down.  No energy is known there, nor its processes. */
static void emit_empty(struct timeline *tl, int gi, uint8_t kind, uint8_t status, int64_t t0, int64_t t1)
{
	struct ival local, *iv;
	bool held;

	iv = ival_slot(tl, gi, &local, &held);
	memset(iv, 0, sizeof(*iv));
	iv->kind = kind;
	iv->t0_ns = t0;
	iv->t1_ns = t1;
	iv->status = status;
	iv->energy_j = NAN;
	iv->nproc = -1;
	deliver(tl, gi, iv, held);
}

/* Emit [g->t_prev, t1) with the readings in force since t_prev. */
static void emit_until(struct timeline *tl, int gi, int64_t t1)
{
	struct tl_gpu *g = &tl->gpus[gi];
	/* a GPU's own median, once known, is its interval for good */
	int64_t t0 = g->t_prev_ns, dt = t1 - t0, nom = g->nominal_ns ? g->nominal_ns : nominal(tl, g);
	int64_t gap_at = t1, thr = timeline_gap_threshold(nom);
	int64_t stale = thr;
	uint32_t present = 0;
	struct ival local, *iv;
	bool held;

	if (dt <= 0)
		return;
	if (g->read_failed) {
		/* nothing was read at t0: the time until the next reading is
		 * not known, whatever the interval (read_failed()) */
		emit_empty(tl, gi, IV_GAP, 0, t0, t1);
		return;
	}
	if (g->down) {
		/* a GPU down after a fatal event: no reading is carried into the
		 * time, no energy is known there, and it is not a gap (the GPU is
		 * known to be unusable, and that time is paid for) */
		emit_empty(tl, gi, IV_DATA, GS_LOST, t0, t1);
		return;
	}
	if (dt > thr)
		gap_at = t0 + nom;	/* the last reading covers one interval */
	iv = ival_slot(tl, gi, &local, &held);
	iv->kind = IV_DATA;
	iv->t0_ns = t0;
	iv->t1_ns = gap_at;
	iv->nproc = g->nproc_known;
	/* what was read at t0 is fresh; anything older is checked for staleness */
	present = g->upd_t_ns == t0 ? g->upd_mask : 0;
	for (uint32_t rest = g->seen_mask & ~present; rest; rest &= rest - 1) {
		int m = __builtin_ctz(rest);
		if (t0 - read_ns(g, m) <= stale)
			present |= 1u << m;
	}
	memcpy(iv->v, g->fv, sizeof(iv->v));
	for (uint32_t gone = g->seen_mask & ~present; gone; gone &= gone - 1)
		iv->v[__builtin_ctz(gone)] = 0;
	iv->present = present;
	iv->status = t0 - g->status_t_ns <= stale ? g->status : 0;
	/* power x time; a run's counter difference replaces it (close_run) */
	iv->energy_j = (present & (1u << M_POWER)) ?
		       iv->v[M_POWER] * (double)(gap_at - t0) / 1e9 : NAN;
	iv->energy_from_counter = false;
	deliver(tl, gi, iv, held);
	if (gap_at < t1) {
		/* a gap ends the run: no counter difference is taken across it */
		end_run(tl, gi);
		emit_empty(tl, gi, IV_GAP, 0, gap_at, t1);
	}
}

static int source_slot(struct tl_gpu *g, const void *key, int64_t t)
{
	struct tl_source *s;
	int i;

	for (i = 0; i < g->nsrc; i++)
		if (g->src[i].key == key)
			break;
	if (i == g->nsrc) {
		if (g->nsrc == TL_MAX_SOURCES)
			i = TL_MAX_SOURCES - 1;	/* share the last slot */
		else
			g->nsrc++;
		s = &g->src[i];
		memset(s, 0, sizeof(*s));
		s->key = key;
		s->last_ns = t;
		s->nominal_ns = INT64_MAX;
		return i;
	}
	s = &g->src[i];
	if (t > s->last_ns && s->ndts < 8) {
		s->dts[s->ndts++] = t - s->last_ns;
		if (s->ndts >= 3) {
			int64_t tmp[8];
			memcpy(tmp, s->dts, sizeof(tmp[0]) * (size_t)s->ndts);
			qsort(tmp, (size_t)s->ndts, sizeof(tmp[0]), cmp_i64);
			s->nominal_ns = tmp[s->ndts / 2];
		}
	}
	if (t > s->last_ns)
		s->last_ns = t;
	return i;
}

/* May input slot si overwrite metric m? */
static bool owns(const struct tl_gpu *g, int m, int si, int64_t t)
{
	int64_t own_nom, at = read_ns(g, m);

	if (at == INT64_MIN || g->fsrc[m] == si)
		return true;
	own_nom = g->src[g->fsrc[m]].nominal_ns;
	if (t - at > timeline_gap_threshold(own_nom == INT64_MAX ? NS_PER_S : own_nom))
		return true;	/* the owner went quiet */
	return g->src[si].nominal_ns < own_nom;
}

static void add_sample(struct timeline *tl, int gi, const struct rec *r, const void *key)
{
	struct tl_gpu *g = &tl->gpus[gi];
	int64_t t = r->t_ns;
	bool has_energy = r->present & (1u << M_ENERGY);
	int si;

	g->last_key = key;
	if (!g->has_samples) {
		g->has_samples = true;
		g->first_ns = g->last_ns = g->t_prev_ns = t;
	} else if (t < g->t_prev_ns) {
		/* older than what was already cut: keep its readings, no time */
		g->out_of_order++;
		t = g->t_prev_ns;
	} else if (t > g->t_prev_ns) {
		int64_t dt = t - g->t_prev_ns;
		if (g->ndts < 32 && !g->nominal_ns && !g->down)
			g->dts[g->ndts++] = dt;
		emit_until(tl, gi, t);
		g->t_prev_ns = t;
	}
	g->read_failed = false;
	if (g->down && r->present && !(r->status & (GS_LOST | GS_RESET))) {
		/* the first healthy sample ends the outage */
		g->down = false;
		if (tl->c.outage)
			tl->c.outage(tl->c.ud, gi, g->down_since_ns, t);
	}
	if (t > g->last_ns)
		g->last_ns = t;
	g->samples++;
	si = source_slot(g, key, r->t_ns);
	if (t != g->upd_t_ns) {
		/* the metrics of the last time that this record does not read
		 * again keep that time (read_ns); one input's record reads the
		 * rest again now */
		uint32_t keep = g->nsrc == 1 ? g->upd_mask & ~r->present : g->upd_mask;
		for (; keep; keep &= keep - 1)
			g->ft_ns[__builtin_ctz(keep)] = g->upd_t_ns;
		g->upd_mask = 0;
		g->upd_t_ns = t;
	}
	if (g->nsrc == 1) {
		/* one input: every reading is its own (slot 0: fsrc[] is 0 already,
		 * and ft_ns[] waits, see read_ns()) */
		for (uint32_t p = r->present; p; p &= p - 1) {
			int m = __builtin_ctz(p);
			g->fv[m] = r->v[m];
		}
		g->seen_mask |= r->present;
		g->upd_mask |= r->present;
	} else {
		for (uint32_t p = r->present; p; p &= p - 1) {
			int m = __builtin_ctz(p);
			if (!owns(g, m, si, t)) {
				if (m == M_ENERGY)
					has_energy = false;
				continue;
			}
			g->fv[m] = r->v[m];
			g->ft_ns[m] = t;
			g->fsrc[m] = (int8_t)si;
			g->seen_mask |= 1u << m;
			g->upd_mask |= 1u << m;
		}
	}
	if (r->status & (GS_LOST | GS_RESET)) {
		/* a GPU that is gone says nothing: no reading from before it is
		 * carried into the time it is down, nor on past it, and no
		 * counter difference is taken across it */
		g->seen_mask &= r->present;
		end_run(tl, gi);
	} else if (has_energy) {
		counter_reading(tl, gi, t, r->v[M_ENERGY]);
	}
	/* at one instant a GPU reported lost by one source is not made well by
	 * another's "ok": which input's record comes first must not decide */
	if (r->status || g->status_t_ns < t) {
		g->status = r->status;
		g->status_t_ns = t;
	}
}

/* A process observation: held behind the intervals of an open run, so that
 * the consumer sees observations and intervals in the order they came. */
static void add_proc(struct timeline *tl, int gi, const struct rec *r, const struct batch *b,
		     const char *name)
{
	struct tl_held *h = tl->gpus[gi].nhold ? hold_slot(tl, gi) : NULL;
	struct held_proc *p;
	struct proc_who who = { NULL, NULL, NULL, NULL };
	bool has_who = r->present & PF_WHO;

	if (has_who) {
		who.user = batch_str(b, r->pw.user);
		who.job = batch_str(b, r->pw.job);
		who.task = batch_str(b, r->pw.task);
		who.ctr = batch_str(b, r->pw.ctr);
	}
	if (!h) {
		if (tl->c.process)
			tl->c.process(tl->c.ud, gi, r->t_ns, r->pid, name, r->present,
				      r->v[0], r->v[1], r->v[2], has_who ? &who : NULL);
		return;
	}
	h->is_proc = true;
	p = &h->p;
	p->t_ns = r->t_ns;
	p->pid = r->pid;
	p->present = r->present;
	p->sm = r->v[0];
	p->mem = r->v[1];
	p->fb = r->v[2];
	p->has_name = name != NULL;
	if (name)
		copy_str(p->name, sizeof(p->name), name);
	p->has_who = has_who;
	if (has_who) {
		copy_str(p->user, sizeof(p->user), who.user ? who.user : "");
		copy_str(p->job, sizeof(p->job), who.job ? who.job : "");
		copy_str(p->task, sizeof(p->task), who.task ? who.task : "");
		copy_str(p->ctr, sizeof(p->ctr), who.ctr ? who.ctr : "");
	}
	tl->gpus[gi].nhold++;
}

/* ---- events ----------------------------------------------------------------- */

bool timeline_map_pci(struct timeline *tl, const char *pci, const char *uuid, int index,
		      enum tl_map_origin origin)
{
	char norm[16];
	struct tl_pci *m = NULL;

	if (!pci || !pci_norm((struct slice){ pci, strlen(pci) }, norm))
		return false;
	if ((!uuid || !uuid[0]) && index < 0)
		return false;
	for (int i = 0; i < tl->npci; i++)
		if (!strcmp(tl->pci[i].pci, norm))
			m = &tl->pci[i];
	if (!m) {
		if (tl->npci == TL_MAX_PCI) {
			tl->pci_dropped++;
			return false;
		}
		m = &tl->pci[tl->npci++];
		memcpy(m->pci, norm, sizeof(norm));
		m->uuid[0] = 0;
		m->index = -1;
	} else if (m->origin == TM_GPU_MAP && origin != TM_GPU_MAP) {
		/* what the user wrote is not overridden by the logs */
		return true;
	} else if (m->origin != origin) {
		/* another source's word replaces both halves */
		m->uuid[0] = 0;
		m->index = -1;
	}
	if (uuid && uuid[0])
		copy_str(m->uuid, sizeof(m->uuid), uuid);
	if (index >= 0)
		m->index = index;
	m->origin = (uint8_t)origin;
	return true;
}

int timeline_gpu_map_line(struct timeline *tl, const char *line, unsigned *col, const char **why)
{
	const char *p = line, *a, *b;
	char pci[64], dst[96];
	size_t na, nb;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#' || *p == '\r' || *p == '\n')
		return 0;
	a = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	na = (size_t)(p - a);
	while (*p == ' ' || *p == '\t')
		p++;
	b = p;
	while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
		p++;
	nb = (size_t)(p - b);
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	*col = (unsigned)(a - line) + 1;
	if (na >= sizeof(pci) || !pci_norm((struct slice){ a, na }, pci)) {
		*why = "not a PCI address (want dddd:bb:dd.f, bb:dd.f or dddd:bb:dd)";
		return -1;
	}
	*col = (unsigned)(b - line) + 1;
	if (!nb || nb >= sizeof(dst)) {
		*why = nb ? "GPU name too long" : "PCI address without a GPU (want a UUID or an index)";
		return -1;
	}
	if (*p) {
		*col = (unsigned)(p - line) + 1;
		*why = "more than two fields";
		return -1;
	}
	memcpy(dst, b, nb);
	dst[nb] = 0;
	if (strspn(dst, "0123456789") == nb) {
		long idx = strtol(dst, NULL, 10);
		if (nb > 3 || idx >= TL_MAX_GPUS) {
			*why = "GPU index out of range";
			return -1;
		}
		timeline_map_pci(tl, pci, NULL, (int)idx, TM_GPU_MAP);
		return 1;
	}
	if (strncmp(dst, "GPU-", 4) && strncmp(dst, "MIG-", 4)) {
		*why = "not a GPU UUID (GPU-...) nor an index";
		return -1;
	}
	if (!timeline_map_pci(tl, pci, dst, -1, TM_GPU_MAP)) {
		*why = "too many PCI addresses";
		return -1;
	}
	return 1;
}

/* A GPU already known by uuid or index; never a new one (an event is no
 * evidence that a GPU was measured). */
static int known_gpu(const struct timeline *tl, const char *uuid, int index)
{
	if (uuid && uuid[0])
		for (int i = 0; i < tl->ngpus; i++)
			if (!strcmp(tl->gpus[i].id.uuid, uuid))
				return i;
	if (index >= 0)
		for (int i = 0; i < tl->ngpus; i++)
			if (tl->gpus[i].id.index == index)
				return i;
	return -1;
}

int timeline_gpu_of_pci(const struct timeline *tl, const char *pci, const char **how)
{
	char norm[16];

	*how = NULL;
	if (!pci || !pci_norm((struct slice){ pci, strlen(pci) }, norm))
		return -1;
	for (int i = 0; i < tl->npci; i++) {
		const struct tl_pci *m = &tl->pci[i];
		int gi;
		if (strcmp(m->pci, norm))
			continue;
		gi = known_gpu(tl, m->uuid, -1);
		if (gi < 0)
			gi = known_gpu(tl, NULL, m->index);
		if (gi >= 0)
			*how = m->origin == TM_GPU_MAP ? "gpu-map" : m->origin == TM_QUERY ? "query log" : "pci map";
		return gi;
	}
	return -1;
}

/* Kinds about the host, not one GPU: never put on a GPU by guess. */
static bool host_kind(int ev)
{
	return ev == EV_DRIVER_LOAD || ev == EV_BOOT || (ev >= EV_SUSPEND && ev < EV__COUNT);
}

/*
 * The GPU of a kernel or system event: its own index or uuid when it has
 * one (NVML, DCGM, nvidia-smi), else its PCI address through the map, else
 * the one GPU of a one-GPU report when it names no PCI address at all.
 */
static int event_gpu(struct timeline *tl, const struct rec *r, const char *uuid, const char *pci,
		     const char **how)
{
	int gi;

	*how = NULL;
	if (r->ev == EV_GPU_MAP)
		return -1;
	if (r->gpu_index >= 0 || uuid) {
		gi = resolve_gpu(tl, r->gpu_index, uuid, NULL);
		if (gi >= 0)
			*how = uuid ? "uuid" : "index";
		return gi;
	}
	if (pci)
		return timeline_gpu_of_pci(tl, pci, how);
	if (host_kind(r->ev) || r->kev.klass == KC_SYSTEM)
		return -1;
	if (tl->ngpus == 1) {
		*how = "only GPU";
		return 0;
	}
	return -1;
}

/* The end of the data: the latest of any GPU's last reading and any event. */
static int64_t data_end(struct timeline *tl)
{
	int64_t end = tl->last_event_ns;

	for (int gi = 0; gi < tl->ngpus; gi++) {
		struct tl_gpu *g = &tl->gpus[gi];
		int64_t e;
		if (!g->has_samples)
			continue;
		e = g->down ? g->t_prev_ns : g->t_prev_ns + nominal(tl, g);
		if (e > end)
			end = e;
	}
	return end;
}

/*
 * A fatal event (KF_DOWN) puts the GPU down from its time: what was read
 * before is cut there and not carried on, the counter run ends, and every
 * interval until the next healthy sample is down (emit_until).
 */
static void go_down(struct timeline *tl, int gi, int64_t t)
{
	struct tl_gpu *g = &tl->gpus[gi];

	if (g->down)
		return;
	if (!g->has_samples) {
		g->has_samples = true;
		g->first_ns = g->last_ns = g->t_prev_ns = t;
	} else if (t > g->t_prev_ns) {
		emit_until(tl, gi, t);
		g->t_prev_ns = t;
		if (t > g->last_ns)
			g->last_ns = t;
	}
	end_run(tl, gi);
	g->seen_mask = 0;
	g->down = true;
	g->down_since_ns = t > g->t_prev_ns ? t : g->t_prev_ns;
}

/*
 * A logger's read that failed at t (gpu_monitor.sh's ERROR row, which the
 * articles write "instead of an empty or repeated row"): the reading
 * before it stops at t, nothing is carried past it, the counter run ends,
 * and from t to the next sample is a gap (emit_until), not the last
 * reading stretched over a missed one.
 */
static void read_failed(struct timeline *tl, int gi, int64_t t)
{
	struct tl_gpu *g = &tl->gpus[gi];

	if (!g->has_samples || g->down || t < g->t_prev_ns)
		return;
	if (t > g->t_prev_ns) {
		emit_until(tl, gi, t);
		g->t_prev_ns = t;
		if (t > g->last_ns)
			g->last_ns = t;
	}
	end_run(tl, gi);
	g->seen_mask = 0;
	g->read_failed = true;
}

/* What makes two events the same one for the copy rule: kind, code, PCI
 * address and the message's first 199 bytes (as analysis.c compares). */
static uint64_t event_key(const struct tl_event *e)
{
	uint64_t h = 1469598103934665603ULL;
	const char *m = e->msg ? e->msg : "";

	h = (h ^ (uint64_t)(uint8_t)e->ev) * 1099511628211ULL;
	h = (h ^ (uint64_t)(uint32_t)e->code) * 1099511628211ULL;
	for (const char *p = e->pci ? e->pci : ""; *p; p++)
		h = (h ^ (uint8_t)*p) * 1099511628211ULL;
	h = (h ^ 0xff) * 1099511628211ULL;
	for (size_t i = 0; i < 199 && m[i]; i++)
		h = (h ^ (uint8_t)m[i]) * 1099511628211ULL;
	return h;
}

/*
 * A fatal event that is a copy, from another input, of one of the GPU's
 * last TL_FATAL_KEEP fatal events: folded by the analysis (copy_of), so it
 * puts nothing down again, even when a healthy sample came between the two.
 */
static bool fatal_copy(struct tl_gpu *g, const struct tl_event *e)
{
	uint64_t key = event_key(e);
	unsigned k = g->nfatal % TL_FATAL_KEEP;

	for (unsigned i = 0; i < TL_FATAL_KEEP && i < g->nfatal; i++) {
		int64_t d = e->t_ns - g->fatal[i].t_ns;
		if (g->fatal[i].src && e->src && strcmp(g->fatal[i].src, e->src) && g->fatal[i].key == key &&
		    d <= TL_EVENT_COPY_NS && d >= -TL_EVENT_COPY_NS)
			return true;
	}
	g->fatal[k].t_ns = e->t_ns;
	g->fatal[k].src = e->src;
	g->fatal[k].key = key;
	g->nfatal++;
	return false;
}

static void add_event(struct timeline *tl, const struct rec *r, const struct batch *b,
		      const char *uuid, const char *src)
{
	struct tl_event e;
	int gi;

	memset(&e, 0, sizeof(e));
	e.t_ns = r->t_ns;
	e.unplaced = r->time_kind == TK_BOOT;
	e.ev = r->ev;
	e.msg = batch_str(b, r->name);
	e.src = src;
	e.line = r->line;
	e.code = r->kev.code;
	e.count = r->kev.count ? r->kev.count : 1;
	e.klass = r->kev.klass;
	e.severity = r->kev.severity;
	e.flags = r->kev.flags;
	e.pci = batch_str(b, r->kev.pci);
	e.proc = batch_str(b, r->kev.proc);
	e.text = batch_str(b, r->kev.text);
	if (r->ev == EV_GPU_MAP) {
		/* the map is learnt, whether or not the record has a time */
		timeline_map_pci(tl, e.pci, uuid, r->gpu_index, r->gpu_index >= 0 ? TM_QUERY : TM_KERNEL);
		return;
	}
	gi = event_gpu(tl, r, uuid, e.pci, &e.mapped_by);
	if (!e.unplaced) {
		if (tl->last_event_ns < e.t_ns)
			tl->last_event_ns = e.t_ns;
		if (r->ev == EV_DRIVER_LOAD || r->ev == EV_BOOT) {
			/* the energy counter counts from the driver's load: a
			 * difference across a reload means nothing */
			tl->driver_loads++;
			for (int i = 0; i < tl->ngpus; i++)
				end_run(tl, i);
		}
		if (gi >= 0 && (r->kev.flags & KF_DOWN) && !fatal_copy(&tl->gpus[gi], &e))
			go_down(tl, gi, e.t_ns);
		if (r->ev == EV_ERROR_ROW) {
			/* a row naming no GPU: the one call read every GPU of
			 * its file, and failed for all of them */
			for (int i = 0; i < tl->ngpus; i++)
				if (gi >= 0 ? i == gi : tl->gpus[i].last_key == (const void *)src)
					read_failed(tl, i, e.t_ns);
		}
	}
	if (tl->c.event)
		tl->c.event(tl->c.ud, gi, &e);
}

void timeline_add(struct timeline *tl, const struct rec *r, const struct batch *b,
		  const char *src)
{
	const char *uuid = batch_str(b, r->uuid);
	const char *name = r->kind == REC_SAMPLE ? batch_str(b, r->name) : NULL;
	int gi;

	/* profiler trace intervals are not samples: `gputally trace` reads them */
	if (r->kind == REC_BAD || r->kind == REC_TRACE || r->kind == REC_ANCHOR)
		return;
	if (uuid && !uuid[0])
		uuid = NULL;
	if (r->kind == REC_EVENT) {
		add_event(tl, r, b, uuid, src);
		return;
	}
	/* a record naming only an index already cached: resolve_gpu() would
	 * find it there and change nothing */
	if (!uuid && !name && r->gpu_index >= 0 && r->gpu_index < 64 && tl->by_index[r->gpu_index])
		gi = tl->by_index[r->gpu_index] - 1;
	else
		gi = resolve_gpu(tl, r->gpu_index, uuid, name);
	if (gi < 0) {
		tl->dropped_no_gpu++;
		return;
	}
	if (r->kind == REC_SAMPLE) {
		add_sample(tl, gi, r, src);
	} else if (r->kind == REC_PROC) {
		if (tl->gpus[gi].nproc_known < 0 && r->pid != PID_TASK)
			tl->gpus[gi].nproc_known = 0;
		add_proc(tl, gi, r, b, batch_str(b, r->name));
	}
}

void timeline_finish(struct timeline *tl)
{
	/* the end of the data, before the last intervals move t_prev on */
	int64_t end = data_end(tl);

	for (int gi = 0; gi < tl->ngpus; gi++) {
		struct tl_gpu *g = &tl->gpus[gi];
		if (!g->has_samples)
			continue;
		/* the last reading covers one nominal interval; no reading
		 * follows it, so the run ends with power x time */
		int64_t nom = nominal(tl, g);
		if (g->down)
			continue;
		emit_until(tl, gi, g->t_prev_ns + nom);
		g->t_prev_ns += nom;
		end_run(tl, gi);
	}
	/* a GPU still down is down to the end of the data: the last reading
	 * of any GPU or the last event, whichever is later */
	for (int gi = 0; gi < tl->ngpus; gi++) {
		struct tl_gpu *g = &tl->gpus[gi];
		if (!g->down)
			continue;
		if (end > g->t_prev_ns) {
			emit_until(tl, gi, end);
			g->t_prev_ns = end;
			g->last_ns = end;
		}
		end_run(tl, gi);
		g->down = false;
		if (tl->c.outage)
			tl->c.outage(tl->c.ud, gi, g->down_since_ns, g->t_prev_ns);
	}
}

void timeline_release(struct timeline *tl)
{
	for (int gi = 0; gi < tl->ngpus; gi++) {
		free(tl->gpus[gi].hold);
		tl->gpus[gi].hold = NULL;
		tl->gpus[gi].nhold = tl->gpus[gi].hold_cap = 0;
	}
}
