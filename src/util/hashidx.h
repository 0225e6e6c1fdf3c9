/* SPDX-License-Identifier: MIT */
/*
 * An index by key into a caller's growing array: a table of positions by a
 * 64-bit hash of each element's key, so that finding an element is about
 * constant time instead of a scan of the array.  It keeps positions, not
 * keys: the caller hashes its key and says, through eq(), whether the
 * element at a position has it.  A key added twice finds its lowest
 * position, the one a scan from the front would.
 */
#ifndef UTIL_HASHIDX_H
#define UTIL_HASHIDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hashidx {
	uint64_t *hash;		/* the hash of the element at slot[i] */
	size_t *slot;		/* position + 1; 0 is an empty slot */
	size_t cap, n;		/* cap a power of two, at most half full */
};

#define HASHIDX_NONE ((size_t)-1)

/* FNV-1a of n bytes, continued from h (start with HASH_SEED). */
#define HASH_SEED 14695981039346656037ULL
uint64_t hash_bytes(uint64_t h, const void *p, size_t n);
uint64_t hash_u64(uint64_t h, uint64_t v);

/* The first position added with hash h whose element eq(ctx, pos) says
 * has the key, or HASHIDX_NONE. */
size_t hashidx_find(const struct hashidx *x, uint64_t h, bool (*eq)(const void *ctx, size_t pos),
		    const void *ctx);
/* Index position pos under hash h (the caller's array already holds it). */
void hashidx_add(struct hashidx *x, uint64_t h, size_t pos);
/* Frees the table; x is empty and usable again. */
void hashidx_release(struct hashidx *x);

#endif
