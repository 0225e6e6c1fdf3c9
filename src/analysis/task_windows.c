/* SPDX-License-Identifier: MIT */
/* Runs of a job found in logs: see task_windows.h. */
#include "analysis/task_windows.h"

#include <stdlib.h>
#include <string.h>

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

/* The busiest name among the processes (labels false) or the task labels. */
static const char *busiest_of(const struct analysis *an, bool labels)
{
	const char *best = NULL;
	double best_s = -1;

	/* sum per name: the same name on several GPUs or pids is one task */
	for (size_t i = 0; i < an->nprocs; i++) {
		const char *name = an->procs[i].name;
		double s = 0;
		bool seen = false;
		if (!name[0] || (an->procs[i].pid == PID_TASK) != labels)
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = (an->procs[j].pid == PID_TASK) == labels && !strcmp(an->procs[j].name, name);
		if (seen)
			continue;
		for (size_t j = i; j < an->nprocs; j++)
			if ((an->procs[j].pid == PID_TASK) == labels && !strcmp(an->procs[j].name, name))
				s += an->procs[j].busy_s;
		if (s > best_s) {
			best_s = s;
			best = name;
		}
	}
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
