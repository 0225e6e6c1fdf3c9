/* SPDX-License-Identifier: MIT */
/* An index by key into a caller's array (hashidx.h): open addressing, linear probing. */
#include "util/hashidx.h"

#include <stdlib.h>

#include "util/xalloc.h"

uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

uint64_t hash_u64(uint64_t h, uint64_t v)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	return hash_bytes(h, b, sizeof(b));
}

/* The slot to start probing at: the high bits mixed down (FNV's low bits
 * alone are weak for keys that differ only at the end). */
static size_t home(const struct hashidx *x, uint64_t h)
{
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	return (size_t)h & (x->cap - 1);
}

size_t hashidx_find(const struct hashidx *x, uint64_t h, bool (*eq)(const void *ctx, size_t pos),
		    const void *ctx)
{
	size_t best = HASHIDX_NONE;

	if (!x->cap)
		return HASHIDX_NONE;
	/* the whole run of filled slots: the first position added wins */
	for (size_t i = home(x, h); x->slot[i]; i = (i + 1) & (x->cap - 1))
		if (x->hash[i] == h && x->slot[i] - 1 < best && eq(ctx, x->slot[i] - 1))
			best = x->slot[i] - 1;
	return best;
}

static void put(struct hashidx *x, uint64_t h, size_t pos)
{
	size_t i = home(x, h);

	while (x->slot[i])
		i = (i + 1) & (x->cap - 1);
	x->slot[i] = pos + 1;
	x->hash[i] = h;
}

void hashidx_add(struct hashidx *x, uint64_t h, size_t pos)
{
	if (2 * (x->n + 1) > x->cap) {
		struct hashidx old = *x;
		x->cap = old.cap ? old.cap * 2 : 64;
		x->slot = xcalloc(x->cap, sizeof(*x->slot));
		x->hash = xcalloc(x->cap, sizeof(*x->hash));
		for (size_t i = 0; i < old.cap; i++)
			if (old.slot[i])
				put(x, old.hash[i], old.slot[i] - 1);
		free(old.slot);
		free(old.hash);
	}
	put(x, h, pos);
	x->n++;
}

void hashidx_release(struct hashidx *x)
{
	free(x->slot);
	free(x->hash);
	x->slot = NULL;
	x->hash = NULL;
	x->cap = x->n = 0;
}
