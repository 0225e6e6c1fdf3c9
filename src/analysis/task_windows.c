/* SPDX-License-Identifier: MIT */
/* Runs of a job found in logs: see task_windows.h. */
#include "analysis/task_windows.h"

#include <stdlib.h>
#include <string.h>

#include "util/hashidx.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

struct span {
	int64_t t0, t1;
	int gpu;
};

static int cmp_gpu_t0(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	if (x->gpu != y->gpu)
		return x->gpu < y->gpu ? -1 : 1;
	return (x->t0 > y->t0) - (x->t0 < y->t0);
}

static int cmp_t0(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	return (x->t0 > y->t0) - (x->t0 < y->t0);
}

struct name_key {
	const struct analysis *an;
	const size_t *first;	/* each name's first process */
	const char *name;
};

static bool name_eq(const void *ctx, size_t k)
{
	const struct name_key *nk = ctx;

	return !strcmp(nk->an->procs[nk->first[k]].name, nk->name);
}

/* The busiest name among the processes (labels false) or the task labels:
 * each name's busy seconds summed in process order, the first of the
 * busiest in the order the names first come. */
static const char *busiest_of(const struct analysis *an, bool labels)
{
	size_t *first = xcalloc(an->nprocs ? an->nprocs : 1, sizeof(*first)), nnames = 0;
	double *sum = xcalloc(an->nprocs ? an->nprocs : 1, sizeof(*sum)), best_s = -1;
	struct hashidx by_name = { 0 };	/* a scan of the names per process is quadratic */
	const char *best = NULL;

	/* sum per name: the same name on several GPUs or pids is one task */
	for (size_t i = 0; i < an->nprocs; i++) {
		const char *name = an->procs[i].name;
		struct name_key nk = { an, first, name };
		uint64_t h;
		size_t k;
		if (!name[0] || (an->procs[i].pid == PID_TASK) != labels)
			continue;
		h = hash_bytes(HASH_SEED, name, strlen(name));
		k = hashidx_find(&by_name, h, name_eq, &nk);
		if (k == HASHIDX_NONE) {
			k = nnames++;
			first[k] = i;
			hashidx_add(&by_name, h, k);
		}
		sum[k] += an->procs[i].busy_s;
	}
	for (size_t k = 0; k < nnames; k++)
		if (sum[k] > best_s) {
			best_s = sum[k];
			best = an->procs[first[k]].name;
		}
	hashidx_release(&by_name);
	free(first);
	free(sum);
	return best;
}

const char *task_busiest(const struct analysis *an)
{
	/* processes say what ran; a logger's task label covers its whole log */
	const char *p = busiest_of(an, false);

	return p ? p : busiest_of(an, true);
}

/* Work, as opposed to idle, held idle, down, unknown or no data. */
static bool does_work(int st)
{
	return st == ST_COMPUTE || st == ST_MEMORY || st == ST_INPUT || st == ST_LAUNCH || st == ST_THROTTLED;
}

static size_t collect(const struct analysis *an, const char *task, struct span **out)
{
	struct span *sp = NULL;
	size_t n = 0, alloc = 0;

	if (task) {
		for (size_t i = 0; i < an->nprocs; i++) {
			const struct proc_stat *p = &an->procs[i];
			int64_t dt = an->gpus[p->gpu].nominal_ns;
			if (strcmp(p->name, task) || p->first_ns > p->last_ns)
				continue;
			/* a sample at t stands for [t, t + interval) */
			ALLOC_GROW(sp, n + 1, alloc);
			sp[n++] = (struct span){ p->first_ns, p->last_ns + (dt > 0 ? dt : NS_PER_S), p->gpu };
		}
	} else {
		for (size_t i = 0; i < an->nsegs; i++) {
			const struct segment *s = &an->segs[i];
			if (!does_work(s->state))
				continue;
			ALLOC_GROW(sp, n + 1, alloc);
			sp[n++] = (struct span){ s->t0_ns, s->t1_ns, s->gpu };
		}
	}
	*out = sp;
	return n;
}

size_t task_windows(const struct analysis *an, const char *task, int64_t join_ns, struct task_window *out,
		    size_t cap)
{
	struct span *sp;
	size_t n = collect(an, task, &sp), k = 0, nw = 0;
	unsigned char seen[TL_MAX_GPUS];

	if (!n) {
		free(sp);
		return 0;
	}
	/* one GPU's stretches closer than join_ns are one (a missed sample) */
	qsort(sp, n, sizeof(*sp), cmp_gpu_t0);
	for (size_t i = 1; i < n; i++) {
		if (sp[i].gpu == sp[k].gpu && sp[i].t0 <= sp[k].t1 + join_ns) {
			if (sp[i].t1 > sp[k].t1)
				sp[k].t1 = sp[i].t1;
		} else {
			sp[++k] = sp[i];
		}
	}
	n = k + 1;
	/* across GPUs, stretches that overlap are one window */
	qsort(sp, n, sizeof(*sp), cmp_t0);
	for (size_t i = 0; i < n;) {
		struct task_window w = { sp[i].t0, sp[i].t1, 0 };
		memset(seen, 0, sizeof(seen));
		for (; i < n && sp[i].t0 < w.t1_ns; i++) {
			if (sp[i].t1 > w.t1_ns)
				w.t1_ns = sp[i].t1;
			if (!seen[sp[i].gpu]) {
				seen[sp[i].gpu] = 1;
				w.gpus++;
			}
		}
		if (nw < cap)
			out[nw] = w;
		nw++;
	}
	free(sp);
	return nw;
}
