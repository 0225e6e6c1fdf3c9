/* SPDX-License-Identifier: MIT */
/*
 * Content fingerprints: two differently mixed 64-bit multiply lanes over
 * little-endian 8-byte words, and the length.  Not a
 * cryptographic hash: it tells a copy of a log from another log, it does
 * not resist someone forging a collision.  Streaming and cut-anywhere, so
 * that the fingerprint of any prefix can be taken on the way (grown files).
 */
#include "store/store.h"

#include <stdio.h>
#include <string.h>

#define K1 0x9E3779B97F4A7C15ull
#define K2 0xC2B2AE3D27D4EB4Full

static uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static void absorb(struct fp_state *f, uint64_t w)
{
	f->a = (f->a ^ w) * K1;
	f->a ^= f->a >> 29;
	f->b = rotl(f->b + w * K2, 31) * K1;
}

/* little-endian on every host, so that a store means the same everywhere */
static uint64_t load64(const unsigned char *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

void fp_init(struct fp_state *f)
{
	memset(f, 0, sizeof(*f));
	f->a = 0x6A09E667F3BCC908ull;
	f->b = 0xBB67AE8584CAA73Bull;
}

void fp_update(struct fp_state *f, const void *vp, size_t n)
{
	const unsigned char *p = vp;

	f->n += n;
	while (f->npend && n) {
		f->pend[f->npend++] = *p++;
		n--;
		if (f->npend == 8) {
			absorb(f, load64(f->pend));
			f->npend = 0;
		}
	}
	for (; n >= 8; p += 8, n -= 8)
		absorb(f, load64(p));
	while (n--)
		f->pend[f->npend++] = *p++;
}

void fp_hex(const struct fp_state *f, char out[FP_HEX])
{
	struct fp_state t = *f;
	unsigned char last[8] = { 0 };

	memcpy(last, t.pend, t.npend);
	absorb(&t, load64(last) ^ ((uint64_t)t.npend << 56));
	absorb(&t, t.n);
	t.a ^= t.a >> 33;
	t.b ^= t.b >> 29;
	snprintf(out, FP_HEX, "%016llx%016llx", (unsigned long long)t.a, (unsigned long long)t.b);
}
