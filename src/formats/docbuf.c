/* SPDX-License-Identifier: MIT */
#include "formats/docbuf.h"

#include <stdlib.h>
#include <string.h>

#include "formats/format.h"
#include "util/xalloc.h"

void docbuf_add(struct docbuf *d, const char *p, size_t n, size_t max)
{
	if (d->too_big || !n)
		return;
	if (d->n + n > max) {
		d->too_big = true;
		return;
	}
	ALLOC_GROW(d->buf, d->n + n + 1, d->cap);
	memcpy(d->buf + d->n, p, n);
	d->n += n;
	d->buf[d->n] = '\0';
}

uint64_t docbuf_lines(const struct docbuf *d)
{
	uint64_t lines = 0;

	for (size_t i = 0; i < d->n; i++)
		lines += d->buf[i] == '\n';
	return lines + (d->n && d->buf[d->n - 1] != '\n');
}

void docbuf_release(struct docbuf *d)
{
	free(d->buf);
	memset(d, 0, sizeof(*d));
}

void docbuf_stream(struct docbuf *d, struct parse_ctx *ctx, const char *p, size_t n, bool last,
		   const char *what, void (*read)(struct parse_ctx *ctx))
{
	docbuf_add(d, p, n, DOCBUF_MAX);
	if (!last)
		return;
	if (d->too_big) {
		ctx->line = 1;
		ctx_bad(ctx, 1, "not read: more than 64 MiB of %s", what);
		ctx->out->recs[ctx->out->nr - 1].ev = BAD_FATAL;
		return;
	}
	if (d->n)
		read(ctx);
	ctx->line = docbuf_lines(d);
}
