/* SPDX-License-Identifier: MIT */
/*
 * Chunks with context replay: cut an input into chunks at line ends, noting
 * the context lines (a format's headers) in force at each chunk's start, and
 * parse one chunk into a batch of records, those lines replayed first.
 * Called by the main thread (cutting) and the workers (parsing).
 */
#include "formats/driver_int.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/xalloc.h"

static void batch_reset(struct batch *b)
{
	b->nr = 0;
	b->strs_len = 0;
	b->lines = b->records = b->bad = 0;
	b->time_basis = NULL;
	for (int i = 0; i < 4; i++)
		b->last_str[i] = STR_NONE;
}

/*
 * Room for about one record per 128 bytes of a big chunk before parsing, in
 * transparent huge pages (the kernel gives them on request, madvise mode):
 * growing the records by doubling from nothing cost a page fault per 4 KiB
 * and a copy per doubling, and every chunk's records are written by one
 * thread and read by another.  A 12 MB log is read 18 % faster.  Small
 * chunks (many inputs at once) keep the plain allocation: a huge page each
 * would be mostly empty.
 */
#define HUGE_PAGE (2 * 1024 * 1024)
static void batch_reserve(struct batch *b, size_t chunk_bytes, bool huge)
{
	size_t want = chunk_bytes / 128, bytes = want * sizeof(struct rec);
	void *p;

	if (b->alloc >= want || b->nr || bytes < HUGE_PAGE / 2 || !huge)
		return;
	bytes = (bytes + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
	if (posix_memalign(&p, HUGE_PAGE, bytes))
		return;		/* ALLOC_GROW will do */
	madvise(p, bytes, MADV_HUGEPAGE);
	free(b->recs);
	b->recs = p;
	b->alloc = bytes / sizeof(struct rec);
}

void batch_release(struct batch *b)
{
	free(b->recs);
	free(b->strs);
	memset(b, 0, sizeof(*b));
}

void chunk_release(struct chunk *c)
{
	free(c->owned);
	c->owned = NULL;
	for (int k = 0; k < c->nctx; k++)
		free(c->ctx[k]);
	c->nctx = 0;
	batch_release(&c->batch);
}

static size_t max_line(const struct ingest_opts *o)
{
	return o && o->max_line ? o->max_line : MAX_LINE;
}

static void parse_lines(const struct format *f, struct parse_ctx *ctx, const char *p,
			size_t n, bool ends_partial, bool *read)
{
	const char *end = p + n;
	const size_t limit = max_line(ctx->opts);

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t len = (size_t)(le - p);

		ctx->line++;
		if (len && p[len - 1] == '\r')
			len--;
		ctx->last_line_partial = !nl && ends_partial;
		if (len > limit) {
			/* one bad line, however long (cut_chunk keeps only its head) */
			ctx_bad(ctx, 0, "line longer than %zu bytes", limit);
		} else if (len) {
			size_t i = 0;
			uint64_t bad = ctx->out->bad;
			while (i < len && (p[i] == ' ' || p[i] == '\t'))
				i++;
			if (i < len)
				f->line(ctx, p, len);
			/* an unterminated last row the format read whole (formats.md 11.10) */
			if (ctx->last_line_partial && ctx->out->bad == bad && read)
				*read = true;
		}
		p = nl ? nl + 1 : end;
	}
}

/*
 * The bytes of a parsed chunk of a mapped file are not needed again (records
 * carry copies of their strings): hand their pages back so that resident
 * memory stays flat whatever the file size.  The page cache keeps them; this
 * process just stops counting them.  The page the chunk starts in may hold
 * the end of the chunk before, still being parsed: that costs it a page
 * fault, never a wrong byte, as the mapping is read-only and private.
 */
static void release_mapped(const struct chunk *c)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t from = (uintptr_t)c->p & ~(page - 1);
	uintptr_t to = ((uintptr_t)c->p + c->n) & ~(page - 1);

	if (to > from)
		madvise((void *)from, to - from, MADV_DONTNEED);
}

/* A stream() format's piece: one state for the file, parsed in order. */
static void parse_stream(struct chunk *c, const struct ingest_opts *o)
{
	const struct format *f = c->src->fmt;
	struct source *s = c->src;
	struct parse_ctx ctx = { 0 };
	const char *p = c->p;
	size_t n = c->n;

	if (!s->stream_state) {
		s->stream_state = xcalloc(1, f->state_size ? f->state_size : 1);
		if (f->init)
			f->init(s->stream_state, o);
		s->stream_line = 1;
	}
	ctx.opts = o;
	ctx.src = s->st->path;
	ctx.mtime_ns = s->rd.mtime_ns;
	ctx.state = s->stream_state;
	ctx.pool = s->pool;
	ctx.out = &c->batch;
	ctx.line = s->stream_line;
	if (c->first && n >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3)) {
		p += 3;
		n -= 3;
	}
	f->stream(&ctx, p, n, c->last);
	s->stream_line = ctx.line;
	if (ctx.path_done)
		s->path_done = true;
	/* records carry absolute lines: the driver adds nothing before the end */
	c->batch.lines = c->last ? ctx.line : 0;
}

void parse_chunk(struct chunk *c, const struct ingest_opts *o)
{
	const struct format *f = c->src->fmt;
	struct parse_ctx ctx = { 0 };
	struct ingest_opts local;
	void *state;
	const char *p = c->p;
	size_t n = c->n;

	batch_reset(&c->batch);
	batch_reserve(&c->batch, n, c->src->huge_batches);
	if (f->stream) {
		parse_stream(c, o);
		goto done;
	}
	if (c->src->st && c->src->st->columns) {
		/* a headerless CSV read with a sibling's header (format.sibling_header) */
		local = *o;
		local.columns = c->src->st->columns;
		o = &local;
	}
	state = f->state_size ? xcalloc(1, f->state_size) : NULL;
	if (f->init)
		f->init(state, o);
	ctx.opts = o;
	ctx.src = c->src->st->path;
	ctx.mtime_ns = c->src->rd.mtime_ns;
	ctx.state = state;
	ctx.out = &c->batch;
	ctx.replay = true;
	for (int i = 0; i < c->nctx; i++)
		f->line(&ctx, c->ctx[i], c->ctx_n[i]);
	ctx.replay = false;
	ctx.line = 0;
	if (c->first && n >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3)) {
		p += 3;
		n -= 3;
	}
	c->partial_read = false;
	parse_lines(f, &ctx, p, n, c->ends_partial, &c->partial_read);
	c->batch.lines = ctx.line;
	if (state && f->fini)
		f->fini(state);
	free(state);
done:
	/* records carry copies of their strings: the text is not needed again */
	if (c->owned) {
		free(c->owned);
		c->owned = NULL;
	} else {
		release_mapped(c);
	}
}


static void chunk_job(struct wp_job *j)
{
	struct chunk *c = (struct chunk *)((char *)j - offsetof(struct chunk, job));

	parse_chunk(c, c->src->opts);
}

void chunk_queue(struct workpool *pl, struct chunk *c)
{
	c->job.run = chunk_job;
	/* a stream() format's pieces share one state: parsed here, in order */
	if (pl->nthreads == 0 || c->src->fmt->stream) {
		parse_chunk(c, c->src->opts);
		c->job.state = WP_DONE;
		return;
	}
	workpool_push(pl, &c->job);
}

void chunk_wait(struct workpool *pl, struct chunk *c)
{
	workpool_wait(pl, &c->job);
}

/* ---- cutting chunks ------------------------------------------------------ */

static void remember_context(struct source *s, const char *line, size_t n)
{
	if (n > MAX_CONTEXT_LINE)
		n = MAX_CONTEXT_LINE;
	if (s->nctx == 2) {
		free(s->ctx[0]);
		s->ctx[0] = s->ctx[1];
		s->ctx_n[0] = s->ctx_n[1];
		s->nctx = 1;
	}
	s->ctx[s->nctx] = xstrndup(line, n);
	s->ctx_n[s->nctx] = n;
	s->nctx++;
}

/* Is the line at p (up to end) a context line?  Its length, without CR, in *len. */
static bool context_line_at(const struct source *s, const char *p, const char *end, size_t *len)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	size_t n = (size_t)((nl ? nl : end) - p);

	if (n && p[n - 1] == '\r')
		n--;
	*len = n;
	return s->fmt->is_context(p, n);
}

/*
 * Note the context lines in force after [p, p+n) so that later chunks can
 * replay them: the last two, found by scanning back from the end, which
 * stops as soon as they are found (dmon repeats its header every few dozen
 * rows), and goes through the whole chunk only when it has fewer.
 */
static void scan_context(struct source *s, const char *p, size_t n)
{
	const struct format *f = s->fmt;
	const char *end = p + n, *start = p, *q = end;
	const char *found[2];
	size_t found_n[2];
	int nf = 0;

	if (!f->is_context)
		return;
	if (!s->cut_first_ctx) {
		s->cut_first_ctx = true;
		if (n >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
			start = p += 3;	/* a BOM before the first header */
	}
	while (nf < 2 && q > start) {
		const char *ls;
		size_t len;
		if (f->context_first && strlen(f->context_first) == 1) {
			/* jump to the previous occurrence of the one first character */
			ls = memrchr(start, f->context_first[0], (size_t)(q - start));
			if (!ls)
				break;
			q = ls;
			if (ls != start && ls[-1] != '\n')
				continue;
		} else {
			/* the line that ends just before q */
			const char *le = q[-1] == '\n' ? q - 1 : q;
			const char *nl = le > start ? memrchr(start, '\n', (size_t)(le - start)) : NULL;
			ls = nl ? nl + 1 : start;
			q = ls;
			if (f->context_first && !strchr(f->context_first, *ls))
				continue;
		}
		if (context_line_at(s, ls, end, &len)) {
			found[nf] = ls;
			found_n[nf] = len;
			nf++;
		}
	}
	while (nf-- > 0)
		remember_context(s, found[nf], found_n[nf]);
}

static void chunk_set_context(struct chunk *c, const struct source *s)
{
	for (int i = 0; i < c->nctx; i++)
		free(c->ctx[i]);
	c->nctx = s->nctx;
	for (int i = 0; i < s->nctx; i++) {
		c->ctx[i] = xstrndup(s->ctx[i], s->ctx_n[i]);
		c->ctx_n[i] = s->ctx_n[i];
	}
}

/*
 * buf[0, cap) is the start of one line longer than the limit (no newline):
 * keep its first `keep` bytes, enough for parse_lines() to see it is too
 * long, read on and drop what follows up to its newline, and put that
 * newline and whatever came after it behind the kept head.  So a 4 GiB
 * line is one bad line, not 256 pieces each taken for a line (and every
 * later line number off by 255).  Returns the bytes now in buf; *eof when
 * the input ended (or failed) inside the line.
 */
static size_t drop_long_line(struct source *s, char *buf, size_t cap, size_t keep,
			     struct gl_err *err, bool *eof)
{
	for (;;) {
		long got = reader_read(&s->rd, buf + keep, cap - keep, err);
		const char *nl;
		if (got <= 0) {
			if (got < 0)
				snprintf(s->st->skip_reason, sizeof(s->st->skip_reason),
					 "stopped early: %.160s", err ? err->msg : "read error");
			*eof = true;
			return keep;
		}
		s->st->bytes += (uint64_t)got;
		nl = memchr(buf + keep, '\n', (size_t)got);
		if (nl) {
			size_t rest = (size_t)(buf + keep + got - nl);
			memmove(buf + keep, nl, rest);
			return keep + rest;
		}
	}
}

/* Cut the next chunk of s into c.  Returns false when nothing is left. */
bool cut_chunk(struct source *s, struct chunk *c, size_t chunk_bytes, struct gl_err *err)
{
	free(c->owned);
	c->owned = NULL;
	c->first = !s->cut_first;
	c->ends_partial = false;
	c->last = false;
	if (s->cut_all)
		return false;
	if (s->fmt->by_path) {
		/* the format reads the file itself: empty pieces until it is done */
		c->p = "";
		c->n = 0;
		c->last = s->path_done;
		s->cut_all = c->last;
		s->cut_first = true;
		return true;
	}
	if (s->rd.kind == READER_MAP) {
		const char *data = s->rd.map;
		size_t len = s->rd.map_len, start = s->pos, end;
		if (start >= len) {
			s->cut_all = true;
			return false;
		}
		end = start + (s->fmt->whole_file ? len : chunk_bytes);
		if (end >= len) {
			end = len;
		} else if (!s->fmt->stream) {
			const char *nl = memchr(data + end, '\n', len - end);
			end = nl ? (size_t)(nl - data) + 1 : len;
		}
		c->p = data + start;
		c->n = end - start;
		s->pos = end;
		if (end == len) {
			s->cut_all = true;
			c->ends_partial = data[len - 1] != '\n';
			c->last = true;
		}
	} else {
		size_t cap = chunk_bytes + s->carry_n + s->head_n, n = 0;
		const size_t limit = max_line(s->opts);
		char *buf = xmalloc(cap + 1);
		bool eof = false;
		if (s->carry_n)
			memcpy(buf, s->carry, s->carry_n);
		n = s->carry_n;
		s->carry_n = 0;
		if (s->head_n)
			memcpy(buf + n, s->head, s->head_n);
		n += s->head_n;
		s->head_n = 0;
		free(s->head);		/* sniffed bytes are needed once */
		s->head = NULL;
		for (;;) {
			long got;
			if (n == cap) {
				if (s->fmt->stream)
					break;	/* any cut will do */
				if (s->fmt->whole_file || !memchr(buf, '\n', n)) {
					if (!s->fmt->whole_file && cap > limit) {
						/* over-long: keep its head, drop the rest
						 * (read behind the head, 64 KiB at least) */
						if (cap < limit + 1 + 65536) {
							cap = limit + 1 + 65536;
							buf = xrealloc(buf, cap + 1);
						}
						n = drop_long_line(s, buf, cap, limit + 1, err, &eof);
						if (eof)
							break;
						continue;
					}
					cap = cap * 2 > limit + 1 && cap <= limit ? limit + 1 : cap * 2;
					buf = xrealloc(buf, cap + 1);
				} else {
					break;
				}
			}
			got = reader_read(&s->rd, buf + n, cap - n, err);
			if (got < 0) {
				eof = true;	/* corrupt stream: keep what we have */
				snprintf(s->st->skip_reason, sizeof(s->st->skip_reason),
					 "stopped early: %.160s", err ? err->msg : "read error");
				break;
			}
			if (got == 0) {
				eof = true;
				break;
			}
			n += (size_t)got;
			s->st->bytes += (uint64_t)got;
		}
		if (!eof && s->fmt->stream) {
			/* a stream format takes the bytes as they come */
		} else if (!eof) {
			/* keep the partial last line for the next chunk */
			char *nl = n ? memrchr(buf, '\n', n) : NULL;
			if (nl) {
				size_t keep = n - (size_t)(nl + 1 - buf);
				s->carry = xrealloc(s->carry, keep + 1);
				memcpy(s->carry, nl + 1, keep);
				s->carry_n = keep;
				n -= keep;
			}
		} else {
			s->cut_all = true;
			c->ends_partial = n && buf[n - 1] != '\n';
			c->last = true;
		}
		if (n == 0 && !(s->fmt->stream && c->last)) {
			free(buf);
			s->cut_all = true;
			return false;
		}
		c->owned = buf;
		c->p = buf;
		c->n = n;
	}
	s->cut_first = true;
	chunk_set_context(c, s);
	scan_context(s, c->p, c->n);
	return true;
}
