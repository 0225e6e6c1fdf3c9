/* SPDX-License-Identifier: MIT */
/*
 * The parser helper API of format.h (ctx_*): how a format adds records,
 * strings, bad lines and events to the batch it is parsing into.  Nothing
 * here knows about files, chunks or threads.
 */
#include "formats/format.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/xalloc.h"

void rec_event_defaults(struct rec *r)
{
	r->kev.code = -1;
	r->kev.pci = r->kev.proc = r->kev.text = STR_NONE;
	r->kev.boot = 0;
	r->kev.count = 1;
	r->kev.klass = KC_NONE;
	r->kev.severity = KS_WARNING;
	r->kev.flags = 0;
}

struct rec *ctx_rec(struct parse_ctx *ctx, enum rec_kind kind)
{
	struct batch *b = ctx->out;
	struct rec *r;

	if (ctx->replay)
		return NULL;
	ALLOC_GROW(b->recs, b->nr + 1, b->alloc);
	r = &b->recs[b->nr++];
	memset(r, 0, offsetof(struct rec, v));
	r->kind = (uint8_t)kind;
	r->gpu_index = -1;
	r->uuid = r->name = STR_NONE;
	r->line = ctx->line;
	if (kind == REC_EVENT)
		rec_event_defaults(r);
	if (kind == REC_BAD)
		b->bad++;
	else if (kind != REC_ANCHOR)	/* the driver's, not a record of the report */
		b->records++;
	return r;
}

uint32_t ctx_str(struct parse_ctx *ctx, struct slice s)
{
	struct batch *b = ctx->out;
	uint32_t off;

	/* Consecutive rows repeat the same UUID and name: reuse recent copies. */
	for (int i = 0; i < 4; i++) {
		uint32_t o = b->last_str[i];
		if (o != STR_NONE && o < b->strs_len && strlen(b->strs + o) == s.n &&
		    !memcmp(b->strs + o, s.p, s.n))
			return o;
	}
	if (s.n > 4096)
		s.n = 4096;
	ALLOC_GROW(b->strs, b->strs_len + s.n + 1, b->strs_alloc);
	off = (uint32_t)b->strs_len;
	memcpy(b->strs + off, s.p, s.n);
	b->strs[off + s.n] = '\0';
	b->strs_len += s.n + 1;
	memmove(b->last_str + 1, b->last_str, 3 * sizeof(b->last_str[0]));
	b->last_str[0] = off;
	return off;
}

static uint32_t ctx_vstr(struct parse_ctx *ctx, const char *fmt, va_list ap)
{
	char buf[256];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	return ctx_str(ctx, (struct slice){ buf, (size_t)n });
}

void ctx_bad(struct parse_ctx *ctx, uint32_t col, const char *fmt, ...)
{
	struct rec *r;
	va_list ap;

	if (ctx->replay)
		return;
	r = ctx_rec(ctx, REC_BAD);
	r->col = col;
	r->time_kind = TK_ABS;
	r->t_ns = INT64_MIN;
	va_start(ap, fmt);
	r->name = ctx_vstr(ctx, fmt, ap);
	va_end(ap);
}

void ctx_event(struct parse_ctx *ctx, enum event_kind ev, int64_t t_ns,
	       enum time_kind tk, int32_t gpu_index, const char *fmt, ...)
{
	struct rec *r;
	va_list ap;

	if (ctx->replay)
		return;
	r = ctx_rec(ctx, REC_EVENT);
	r->ev = (uint8_t)ev;
	r->t_ns = t_ns;
	r->time_kind = (uint8_t)tk;
	r->gpu_index = gpu_index;
	va_start(ap, fmt);
	r->name = ctx_vstr(ctx, fmt, ap);
	va_end(ap);
}
