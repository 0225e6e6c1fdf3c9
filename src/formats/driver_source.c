/* SPDX-License-Identifier: MIT */
/*
 * A source: one input opened for reading.  Open it (a copy for a stream),
 * sniff its head and choose its format through the format hooks, and free
 * everything it holds.  The merge and the pre-passes read through it.
 */
#include "formats/driver_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/identify.h"
#include "util/xalloc.h"

/* The name that opens an input's bytes: its copy, for a stream. */
const char *read_path(const struct input_stat *st)
{
	return st->read_path ? st->read_path : st->path;
}

/* Free everything s holds; safe to call again. */
void source_release(struct source *s)
{
	/* chunks still queued or being parsed are the pool's until done */
	for (uint64_t seq = s->head_seq; s->pool && seq < s->tail_seq; seq++)
		chunk_wait(s->pool, &s->slots[seq % s->nslots]);
	s->head_seq = s->tail_seq;
	for (unsigned i = 0; i < s->nslots; i++)
		chunk_release(&s->slots[i]);
	free(s->slots);
	s->slots = NULL;
	s->nslots = 0;
	for (int k = 0; k < s->nctx; k++)
		free(s->ctx[k]);
	s->nctx = 0;
	free(s->carry);
	s->carry = NULL;
	free(s->head);
	s->head = NULL;
	if (s->stream_state && s->fmt && s->fmt->fini)
		s->fmt->fini(s->stream_state);
	free(s->stream_state);
	s->stream_state = NULL;
	tick_seq_release(&s->tick);
	reader_close(&s->rd);
}

/* A by_path format opens the file itself: it must be a plain file, whose
 * size is the input's byte count (none of it passes through the driver). */
static bool by_path_ok(struct source *s, struct input_stat *st)
{
	struct stat sb;

	if (st->stream || (s->rd.kind != READER_MAP && s->rd.kind != READER_PLAIN) ||
	    fstat(s->rd.fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		snprintf(st->skip_reason, sizeof(st->skip_reason),
			 "format %s reads a plain file by its path: not standard input, a pipe or a %s file "
			 "(decompress it first)", s->fmt->id, reader_kind_name(s->rd.kind));
		st->bytes = 0;
		return false;
	}
	st->bytes = (uint64_t)sb.st_size;
	return true;
}

/*
 * map: read a plain file through a mapping.  Only for a run with one input:
 * the kernel maps a file's page cache in pieces of up to 2 MiB at a fault
 * (large folios), so every mapped input open at once would hold megabytes of
 * resident memory however small its chunks (100 logs: 400 MB).
 */
bool open_source(struct source *s, struct input_stat *st, const struct ingest_opts *o,
			bool map, size_t in_cap)
{
	struct gl_err e = { 0 };
	const char *name = strrchr(st->path, '/');
	const char *head;
	size_t head_n;

	name = name ? name + 1 : st->path;
	s->st = st;
	s->opts = o;
	s->rd.fd = -1;
	s->tod_base_days = INT64_MIN;
	if (st->skip_reason[0])
		return false;
	if (reader_open_opt(&s->rd, read_path(st), map, in_cap, &e)) {
		snprintf(st->skip_reason, sizeof(st->skip_reason), "%s", e.msg);
		return false;
	}
	st->compression = reader_kind_name(s->rd.kind);
	if (s->rd.kind == READER_MAP) {
		head = s->rd.map;
		head_n = s->rd.map_len < SNIFF_BYTES ? s->rd.map_len : SNIFF_BYTES;
	} else {
		long got;
		s->head = xmalloc(SNIFF_BYTES);
		got = reader_read(&s->rd, s->head, SNIFF_BYTES, &e);
		if (got < 0) {
			snprintf(st->skip_reason, sizeof(st->skip_reason), "%s", e.msg);
			return false;
		}
		s->head_n = (size_t)got;
		st->bytes += (uint64_t)got;
		head = s->head;
		head_n = s->head_n;
	}
	if (head_n >= 3 && !memcmp(head, "\xEF\xBB\xBF", 3)) {
		head += 3;
		head_n -= 3;
	}
	if (head_n == 0) {
		snprintf(st->skip_reason, sizeof(st->skip_reason), "empty file");
		return false;
	}
	if (o->format) {
		s->fmt = format_find(o->format);
		snprintf(st->why, sizeof(st->why), "--format %s", o->format);
	} else if (o->columns && (s->fmt = format_by_columns(head, head_n, o->columns))) {
		/* formats.md 11.9: with --columns the list decides, whatever the first cell */
		snprintf(st->why, sizeof(st->why), "--columns: a headerless %s row of as many fields",
			 s->fmt->id);
	} else {
		if (!st->sniffed) {
			st->sniff_format = format_sniff(head, head_n, name, &st->sniff_score);
			st->sniffed = true;
		}
		s->fmt = st->sniff_format;
		if (s->fmt)
			snprintf(st->why, sizeof(st->why), "sniffed %s (score %d)", s->fmt->id,
				 st->sniff_score);
	}
	if (!s->fmt && !o->format) {
		/*
		 * A file that starts inside a line (a log split at a byte, split -b,
		 * a tail -c): its first line is a fragment no format knows.  Sniffed
		 * past it, it is read whole, and the fragment is one bad line.
		 */
		const char *nl = memchr(head, '\n', head_n);
		size_t skip = nl ? (size_t)(nl + 1 - head) : head_n;
		if (skip < head_n) {
			if (o->columns && (s->fmt = format_by_columns(head + skip, head_n - skip, o->columns)))
				snprintf(st->why, sizeof(st->why), "--columns: %s rows past a first-line fragment",
					 s->fmt->id);
			else if ((s->fmt = format_sniff(head + skip, head_n - skip, name, &st->sniff_score)))
				snprintf(st->why, sizeof(st->why), "sniffed %s (score %d) past a first-line fragment",
					 s->fmt->id, st->sniff_score);
		}
	}
	if (s->fmt && s->fmt->sibling_header && !o->columns && !st->columns_tried) {
		/* issue 14: a headerless loop beside the same query with its header */
		st->columns_tried = true;
		st->columns = s->fmt->sibling_header(st->path, head, head_n, st->columns_note,
						     sizeof(st->columns_note));
	}
	if (s->fmt && s->fmt->unread_columns) {
		/* issue 29: a column no field matches is named, never dropped silently */
		const char *cols = o->columns ? o->columns : st->columns;
		size_t cn = cols ? strlen(cols) : 0;
		if (!cols) {
			const char *nl = memchr(head, '\n', head_n);
			cols = head;
			cn = nl ? (size_t)(nl - head) : head_n;
			if (cn && cols[cn - 1] == '\r')
				cn--;
		}
		s->fmt->unread_columns(cols, cn, st->columns_unread, sizeof(st->columns_unread));
	}
	if (!s->fmt) {
		/* issue 36: a file that is something else is named as what it is */
		const char *what = format_identify(head, head_n, name);
		snprintf(st->skip_reason, sizeof(st->skip_reason), "%s",
			 what ? what : "not a recognised format");
		st->bytes = 0;	/* the sniffed head does not count: the file is not read */
		return false;
	}
	st->format = s->fmt;
	st->time_basis = NULL;
	if (s->head && reader_rewind(&s->rd)) {
		/* a plain file is read again from the start rather than keeping
		 * its sniffed head: many inputs are open at once */
		st->bytes -= s->head_n;
		free(s->head);
		s->head = NULL;
		s->head_n = 0;
	}
	if (s->fmt->by_path && !by_path_ok(s, st)) {
		st->format = NULL;
		return false;
	}
	return true;
}

