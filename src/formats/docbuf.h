/* SPDX-License-Identifier: MIT */
/*
 * A whole document gathered from a stream() format's chunks, for formats
 * that must see all of it before they can read it (one JSON document per
 * run: gpustat --json, rocm-smi --json), with a bound on its size.
 */
#ifndef FORMATS_DOCBUF_H
#define FORMATS_DOCBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct docbuf {
	char *buf;	/* NUL-terminated while n > 0 */
	size_t n, cap;
	bool too_big;	/* more than the bound arrived: buf holds what came before */
};

/* Append n bytes at p; past max bytes in all, keep no more and set too_big. */
void docbuf_add(struct docbuf *d, const char *p, size_t n, size_t max);
/* Lines in the document, a last line without a newline counted. */
uint64_t docbuf_lines(const struct docbuf *d);
void docbuf_release(struct docbuf *d);

struct parse_ctx;
/*
 * A stream() format's whole-document step: add the chunk (bound DOCBUF_MAX);
 * at the last chunk call read(ctx) on the document when there is one, or
 * report a document past the bound as one fatal bad line naming `what`, and
 * set the input's line count.  read is not called before the last chunk.
 */
#define DOCBUF_MAX (64u * 1024 * 1024)
void docbuf_stream(struct docbuf *d, struct parse_ctx *ctx, const char *p, size_t n, bool last,
		   const char *what, void (*read)(struct parse_ctx *ctx));

#endif
