/* SPDX-License-Identifier: MIT */
/* Ticks of a log with no time: see ticks.h. */
#include "formats/ticks.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void tick_seq_init(struct tick_seq *t)
{
	memset(t, 0, sizeof(*t));
	t->gen = 1;
}

void tick_seq_release(struct tick_seq *t)
{
	free(t->tab);
	tick_seq_init(t);
}

static size_t pair_slot(const struct tick_seq *t, int32_t gpu, int64_t pid)
{
	uint64_t h = ((uint64_t)(uint32_t)gpu * 0x9E3779B97F4A7C15u) ^ (uint64_t)pid;

	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9u;
	h ^= h >> 32;
	return (size_t)h & (t->cap - 1);
}

/* Is (gpu, pid) in the current interval?  Adds it when not. */
static bool pair_seen(struct tick_seq *t, int32_t gpu, int64_t pid)
{
	size_t i;

	if ((t->live + 1) * 2 > t->cap) {
		/* grow, keeping the live pairs */
		struct tick_pair *old = t->tab;
		size_t ocap = t->cap;
		t->cap = ocap ? ocap * 2 : 64;
		t->tab = xcalloc(t->cap, sizeof(*t->tab));
		for (size_t k = 0; k < ocap; k++) {
			if (old[k].gen != t->gen)
				continue;
			for (i = pair_slot(t, old[k].gpu, old[k].pid); t->tab[i].gen == t->gen;
			     i = (i + 1) & (t->cap - 1))
				;
			t->tab[i] = old[k];
		}
		free(old);
	}
	for (i = pair_slot(t, gpu, pid); t->tab[i].gen == t->gen; i = (i + 1) & (t->cap - 1))
		if (t->tab[i].gpu == gpu && t->tab[i].pid == pid)
			return true;
	t->tab[i] = (struct tick_pair){ .gpu = gpu, .gen = t->gen, .pid = pid };
	t->live++;
	return false;
}

static void new_interval(struct tick_seq *t)
{
	t->live = 0;
	if (++t->gen == 0) {	/* wrapped: stale stamps could read as live */
		if (t->tab)
			memset(t->tab, 0, t->cap * sizeof(*t->tab));
		t->gen = 1;
	}
}

static bool proc_starts_tick(struct tick_seq *t, const struct rec *r)
{
	bool after_header = r->present & PF_AFTER_HEADER;

	if (!t->started || r->gpu_index < t->last_gpu)
		return true;
	if (pair_seen(t, r->gpu_index, r->pid))
		return true;
	return after_header && r->gpu_index == t->last_gpu && r->pid < t->last_pid;
}

bool tick_seq_next(struct tick_seq *t, const struct rec *r)
{
	bool start;

	if (!t->gen)
		t->gen = 1;	/* a zeroed tick_seq: stamp 0 marks a free slot */
	if (r->kind == REC_PROC) {
		start = proc_starts_tick(t, r);
		if (start) {
			new_interval(t);
			(void)pair_seen(t, r->gpu_index, r->pid);
		}
		t->last_pid = r->pid;
	} else {
		start = !t->started || r->gpu_index <= t->last_gpu;
	}
	t->started = true;
	t->last_gpu = r->gpu_index;
	return start;
}
