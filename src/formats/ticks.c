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

static uint64_t mix(uint64_t h)
{
	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9u;
	h ^= h >> 32;
	return h;
}

static uint64_t str_hash(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001B3u;
	return h;
}

/*
 * Who a process row is: its GPU (index and UUID: compute-apps rows name the
 * UUID only) and pid; where the pid is unknown (a compute-apps file without
 * a pid column, pid "[Not Supported]") the process name stands in for it.
 */
static int64_t proc_key(const struct rec *r, const struct batch *b)
{
	uint64_t h = 0xCBF29CE484222325u;

	if (b && r->uuid != STR_NONE)
		h = str_hash(h, batch_str(b, r->uuid));
	if (r->pid < -1 && b && r->name != STR_NONE)
		h = str_hash(h, batch_str(b, r->name));
	return (int64_t)mix(h ^ (uint64_t)r->pid);
}

static size_t pair_slot(const struct tick_seq *t, int32_t gpu, int64_t pid)
{
	return (size_t)mix(((uint64_t)(uint32_t)gpu * 0x9E3779B97F4A7C15u) ^ (uint64_t)pid) &
	       (t->cap - 1);
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

static bool proc_starts_tick(struct tick_seq *t, const struct rec *r, int64_t key)
{
	bool after_header = r->present & PF_AFTER_HEADER;

	if (!t->started || r->gpu_index < t->last_gpu)
		return true;
	if (pair_seen(t, r->gpu_index, key))
		return true;
	return after_header && r->gpu_index == t->last_gpu && r->pid < t->last_pid;
}

bool tick_seq_next(struct tick_seq *t, const struct rec *r, const struct batch *b)
{
	bool start;

	if (!t->gen)
		t->gen = 1;	/* a zeroed tick_seq: stamp 0 marks a free slot */
	if (r->kind == REC_PROC) {
		int64_t key = proc_key(r, b);
		start = proc_starts_tick(t, r, key);
		if (start) {
			new_interval(t);
			(void)pair_seen(t, r->gpu_index, key);
		}
		t->last_pid = r->pid;
	} else if (r->gpu_index < 0 && b && (r->uuid != STR_NONE || r->name != STR_NONE)) {
		/* rows that name their GPU only by UUID or model name: a GPU
		 * seen a second time starts the next tick */
		uint64_t h = str_hash(0xCBF29CE484222325u, r->uuid != STR_NONE ? batch_str(b, r->uuid) : "");
		int64_t key = (int64_t)mix(str_hash(h, r->name != STR_NONE ? batch_str(b, r->name) : ""));
		start = !t->started || pair_seen(t, -1, key);
		if (start) {
			new_interval(t);
			(void)pair_seen(t, -1, key);
		}
	} else {
		start = !t->started || r->gpu_index <= t->last_gpu;
		/* a new tick holds no process yet: a row's own process record
		 * (gpu_monitor.sh's task label) after its sample is in it */
		if (start)
			new_interval(t);
	}
	t->started = true;
	t->last_gpu = r->gpu_index;
	return start;
}
