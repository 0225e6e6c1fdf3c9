/* SPDX-License-Identifier: MIT */
/*
 * A bounded text appender for the recorder's sinks: no stdio and no
 * allocation in the sampling loop.  Once something does not fit, `full` is
 * set and nothing more is appended, so a caller can drop a whole row.
 */
#ifndef RECORD_OUTBUF_H
#define RECORD_OUTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct out {
	char *p, *end;
	bool full;
};

static inline void put_mem(struct out *o, const char *s, size_t n)
{
	if (o->full || (size_t)(o->end - o->p) < n) {
		o->full = true;
		return;
	}
	memcpy(o->p, s, n);
	o->p += n;
}

static inline void put_str(struct out *o, const char *s)
{
	put_mem(o, s, strlen(s));
}

static inline void put_ch(struct out *o, char c)
{
	put_mem(o, &c, 1);
}

static inline void put_u64(struct out *o, uint64_t v)
{
	char tmp[24], *q = tmp + sizeof(tmp);

	do
		*--q = (char)('0' + v % 10);
	while (v /= 10);
	put_mem(o, q, (size_t)(tmp + sizeof(tmp) - q));
}

/* v / 10^dec with exactly dec decimals: 123456, 3 -> "123.456" */
static inline void put_fixed(struct out *o, int64_t v, int dec)
{
	uint64_t u, div = 1;
	char frac[20];

	if (v < 0) {
		put_ch(o, '-');
		u = (uint64_t)0 - (uint64_t)v;
	} else {
		u = (uint64_t)v;
	}
	for (int i = 0; i < dec; i++)
		div *= 10;
	put_u64(o, u / div);
	if (dec <= 0)
		return;
	u %= div;
	for (int i = dec - 1; i >= 0; i--) {
		frac[i] = (char)('0' + u % 10);
		u /= 10;
	}
	put_ch(o, '.');
	put_mem(o, frac, (size_t)dec);
}

static inline void put_hex(struct out *o, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[20], *q = tmp + sizeof(tmp);

	do
		*--q = digits[v & 15];
	while (v >>= 4);
	put_str(o, "0x");
	put_mem(o, q, (size_t)(tmp + sizeof(tmp) - q));
}

#endif
