/* SPDX-License-Identifier: MIT */
/*
 * Lines for the stream() formats that are text read as a whole document
 * (nvidia-smi -q): the driver cuts pieces anywhere, this keeps the line a
 * piece ends in and hands out whole lines, numbered, without "\n" or "\r".
 */
#include "formats/smi.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static void give(struct textlines *tl, struct parse_ctx *ctx, const char *p, size_t n,
		 void (*fn)(struct parse_ctx *ctx, const char *line, size_t n))
{
	if (tl->line == 0 && n >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3)) {
		p += 3;
		n -= 3;
	}
	if (n && p[n - 1] == '\r')
		n--;
	ctx->line = ++tl->line;
	fn(ctx, p, n);
}

static void keep(struct textlines *tl, const char *p, size_t n)
{
	if (tl->n + n > TEXTLINES_MAX) {
		n = tl->n < TEXTLINES_MAX ? TEXTLINES_MAX - tl->n : 0;
		tl->too_long = true;
	}
	ALLOC_GROW(tl->buf, tl->n + n + 1, tl->cap);
	memcpy(tl->buf + tl->n, p, n);
	tl->n += n;
}

void textlines_feed(struct textlines *tl, struct parse_ctx *ctx, const char *p, size_t n,
		    bool last, void (*fn)(struct parse_ctx *ctx, const char *line, size_t n))
{
	const char *end = p + n;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl) {
			keep(tl, p, (size_t)(end - p));
			break;
		}
		if (tl->n || tl->too_long) {
			keep(tl, p, (size_t)(nl - p));
			give(tl, ctx, tl->buf, tl->n, fn);
			tl->n = 0;
			tl->too_long = false;
		} else {
			give(tl, ctx, p, (size_t)(nl - p), fn);
		}
		p = nl + 1;
	}
	if (last && (tl->n || tl->too_long)) {
		ctx->last_line_partial = true;
		give(tl, ctx, tl->buf ? tl->buf : "", tl->n, fn);
		tl->n = 0;
		tl->too_long = false;
	}
	ctx->line = tl->line;
}

void textlines_free(struct textlines *tl)
{
	free(tl->buf);
	memset(tl, 0, sizeof(*tl));
}
