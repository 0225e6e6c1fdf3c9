/* SPDX-License-Identifier: MIT */
/*
 * The k-way merge: every open input's next record, its time resolved, and
 * the earliest of them to the sink, until all are read.  With many inputs,
 * each waits closed until the merge reaches its first record.
 */
#include "formats/driver_int.h"
#include "formats/driver.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* With many inputs, one is opened only when the merge reaches its first
 * record (ingest_run): until then it holds no file, buffer, decoder or
 * struct source, only this. */
struct waiting {
	int64_t t_first;	/* the time of its first record */
	size_t order;
	struct input_stat *st;
};

static int cmp_waiting(const void *a, const void *b)
{
	const struct waiting *x = a, *y = b;

	if (x->t_first != y->t_first)
		return x->t_first < y->t_first ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void source_fill(struct source *s, struct workpool *pl, size_t chunk_bytes, struct gl_err *err)
{
	while (!s->cut_all && s->tail_seq - s->head_seq < s->nslots) {
		struct chunk *c = &s->slots[s->tail_seq % s->nslots];
		if (!cut_chunk(s, c, chunk_bytes, err))
			break;
		c->src = s;
		s->tail_seq++;
		chunk_queue(pl, c);
	}
}

/* Give an opened source `window` chunk slots and queue its first chunks. */
static void source_start(struct source *s, unsigned window, struct workpool *pl, size_t chunk_bytes,
			 struct gl_err *err)
{
	s->nslots = window;
	s->pool = pl;
	s->slots = xcalloc(window, sizeof(struct chunk));
	s->last_t_ns = INT64_MIN;
	source_fill(s, pl, chunk_bytes, err);
}

/* The next record of the chunk being read (s->head_batch) is s's head. */
static inline void take_record(struct source *s, const struct ingest_opts *o)
{
	/* a worker wrote the batch, so its lines sit in another core's cache:
	 * ask for a record's worth of them, 32 records (6 KB) ahead, as each
	 * one is taken (a prefetch past the batch's end is harmless; on the
	 * Xeon of 2026-12-03, 8 ahead was best and 16 1 % slower; on this
	 * EPYC 32 is 2.5 % faster than 8: docs/perf.md) */
	const char *ahead = (const char *)&s->head_batch->recs[s->rec_pos + 32];
	for (size_t i = 0; i < sizeof(struct rec); i += 64)
		__builtin_prefetch(ahead + i);
	s->next = &s->head_batch->recs[s->rec_pos++];
	s->next->line += s->lines_before;
	resolve_time(s, s->next, o);
	s->have_head = true;
}

/* source_peek() past the chunk being read: find the next chunk, wait for it. */
static bool source_peek_slow(struct source *s, struct workpool *pl, size_t chunk_bytes,
			     const struct ingest_opts *o, struct gl_err *err)
{
	while (!s->have_head) {
		struct chunk *c;
		if (s->head_seq == s->tail_seq) {
			source_fill(s, pl, chunk_bytes, err);
			if (s->head_seq == s->tail_seq) {
				s->finished = true;
				return false;
			}
		}
		c = &s->slots[s->head_seq % s->nslots];
		/* once a chunk's first record is taken it is known parsed: the
		 * pool's lock is taken once per chunk, not once per record */
		if (s->rec_pos == 0)
			chunk_wait(pl, c);
		if (s->rec_pos < c->batch.nr) {
			s->head_batch = &c->batch;
			take_record(s, o);
			break;
		}
		/* chunk consumed */
		s->lines_before += c->batch.lines;
		s->st->lines += c->batch.lines;
		if (c->ends_partial && c->batch.lines) {
			s->st->partial_last_line = true;
			s->st->partial_last_read = c->partial_read;
		}
		if (s->rd.kind == READER_MAP)
			s->st->bytes += c->n;
		s->head_seq++;
		s->rec_pos = 0;
		source_fill(s, pl, chunk_bytes, err);
	}
	return true;
}

/* Make sure s->next points at the next record; false when s is finished. */
static inline bool source_peek(struct source *s, struct workpool *pl, size_t chunk_bytes,
			       const struct ingest_opts *o, struct gl_err *err)
{
	if (s->have_head)
		return true;
	/* the next record of the chunk being read (known parsed: its first
	 * record was taken), without finding its slot again */
	if (s->rec_pos > 0 && s->head_batch && s->rec_pos < s->head_batch->nr) {
		take_record(s, o);
		return true;
	}
	return source_peek_slow(s, pl, chunk_bytes, o, err);
}

void merge_add(struct merge *m, struct source *s)
{
	ALLOC_GROW(m->open, m->nopen + 1, m->open_alloc);
	m->open[m->nopen++] = s;
}

void merge_add_waiting(struct merge *m, struct source *s)
{
	ALLOC_GROW(m->wait, m->nwait + 1, m->wait_alloc);
	source_start(s, 1, m->pl, PRESCAN_BYTES, NULL);
	m->wait[m->nwait].t_first = source_peek(s, m->pl, PRESCAN_BYTES, m->o, NULL) ? s->next->t_ns : INT64_MIN;
	m->wait[m->nwait].st = s->st;
	m->wait[m->nwait].order = s->order;
	m->nwait++;
	source_release(s);
	free(s);
}

/*
 * Which of two sources' heads goes first: the earlier record; records of one
 * time from several inputs by path, not by the order the inputs were given
 * in (the last reading of a time is the one a GPU's state keeps); one file
 * given twice, the first given.
 */
static inline bool head_before(const struct source *a, const struct source *b)
{
	int c;

	if (a->next->t_ns != b->next->t_ns)
		return a->next->t_ns < b->next->t_ns;
	c = strcmp(a->st->path, b->st->path);
	return c ? c < 0 : a->order < b->order;
}

/* The heap of open sources by head (open[0] the earliest): move open[i] down. */
static void heap_down(struct source **h, size_t n, size_t i)
{
	struct source *s = h[i];

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && head_before(h[c + 1], h[c]))
			c++;
		if (!head_before(h[c], s))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = s;
}

static void heap_up(struct source **h, size_t i)
{
	struct source *s = h[i];

	while (i > 0 && head_before(s, h[(i - 1) / 2])) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = s;
}

/*
 * The sources are a heap by their heads, so each record costs log(inputs),
 * not a look at every open input: many logs read side by side (a rank's
 * file per GPU, a directory of nodes) merge in n log k.
 */
int merge_run(struct merge *m, struct ingest_sink *sink, size_t chunk_bytes, unsigned window,
	      struct gl_err *err)
{
	/* the merge's state in locals, kept in registers across the sink's
	 * calls (through m, every record reloaded them), and put back at the end */
	struct source **open = m->open;
	struct waiting *wait = m->wait;
	size_t nopen = 0, open_alloc = m->open_alloc, nwait = m->nwait, wpos = m->wpos;
	struct workpool *pl = m->pl;
	const struct ingest_opts *o = m->o;
	const size_t in_cap = m->in_cap;
	int rc = 0;

	if (nwait)
		qsort(wait, nwait, sizeof(*wait), cmp_waiting);
	for (size_t i = 0; i < m->nopen; i++)
		source_start(open[i], window, pl, chunk_bytes, err);
	/* the heap: each source with a head; the finished are freed now */
	for (size_t i = 0; i < m->nopen; i++) {
		struct source *s = open[i];
		if (!source_peek(s, pl, chunk_bytes, o, err)) {
			source_release(s);
			free(s);
			continue;
		}
		open[nopen] = s;
		heap_up(open, nopen++);
	}

	for (;;) {
		struct source *best = nopen ? open[0] : NULL;
		int64_t best_t = best ? best->next->t_ns : 0;
		if (wpos < nwait && (!best || wait[wpos].t_first < best_t ||
				     (wait[wpos].t_first == best_t && wait[wpos].order < best->order))) {
			/* the merge has reached a waiting input: open it and look again */
			struct source *s = xcalloc(1, sizeof(*s));
			s->order = wait[wpos].order;
			if (!open_source(s, wait[wpos++].st, o, false, in_cap)) {
				source_release(s);
				free(s);
				continue;
			}
			source_start(s, window, pl, chunk_bytes, err);
			if (!source_peek(s, pl, chunk_bytes, o, err)) {
				source_release(s);
				free(s);
				continue;
			}
			ALLOC_GROW(open, nopen + 1, open_alloc);
			open[nopen] = s;
			heap_up(open, nopen++);
			continue;
		}
		if (!best)
			break;
		{
			struct rec *r = best->next;
			struct input_stat *st = best->st;
			best->have_head = false;
			if (r->kind == REC_ANCHOR) {
				/* used by the pre-pass; no sink sees it */
				if (!st->time_basis && st->basis[0])
					st->time_basis = st->basis;
			} else {
				if (r->kind == REC_BAD) {
					st->bad++;
				} else if (r->time_kind == TK_BOOT) {
					st->records++;
					st->unplaced++;
					if (!st->time_basis)
						st->time_basis = st->basis[0] ? st->basis : "unplaced: no anchor; give --boot-time";
				} else {
					st->records++;
					if (st->t_first_ns == INT64_MIN || r->t_ns < st->t_first_ns)
						st->t_first_ns = r->t_ns;
					if (r->t_ns > st->t_last_ns)
						st->t_last_ns = r->t_ns;
					if (!st->time_basis)
						st->time_basis = st->anchor && st->basis[0] ? st->basis
							: best->head_batch->time_basis ? best->head_batch->time_basis
							: "timestamps in the file";
				}
				rc = sink->rec(sink->ud, st, r, best->head_batch);
				if (rc)
					break;
			}
		}
		/* the source's next head goes back in its place, or it is done */
		if (source_peek(best, pl, chunk_bytes, o, err)) {
			heap_down(open, nopen, 0);
		} else {
			source_release(best);
			free(best);
			open[0] = open[--nopen];
			if (nopen)
				heap_down(open, nopen, 0);
		}
	}
	m->open = open;
	m->nopen = nopen;
	m->open_alloc = open_alloc;
	m->wpos = wpos;
	return rc;
}

void merge_release(struct merge *m)
{
	for (size_t i = 0; i < m->nopen; i++) {
		source_release(m->open[i]);
		free(m->open[i]);
	}
	free(m->open);
	free(m->wait);
	memset(m, 0, sizeof(*m));
}
