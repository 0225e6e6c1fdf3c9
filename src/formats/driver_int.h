/* SPDX-License-Identifier: MIT */
/*
 * What the files of the ingest driver share (driver*.c), and nothing else
 * includes: the chunk, the source (an open input), the worker pool, and the
 * calls between them.  driver.h is the public API.
 *
 *   driver.c          the entry: expand paths, the run
 *   driver_source.c   open an input, sniff it and choose its format
 *   driver_chunk.c    cut an input into chunks at line ends, parse a chunk
 *                     (context lines replayed first) into a batch
 *   driver_time.c     give each record its absolute time
 *   driver_merge.c    the k-way merge of the inputs' records by time
 *   driver_prepass.c  the pre-passes: anchor kernel logs, check zones, place
 *                     time-less logs
 *   records.c, ctx.c  the record tables and the parser helper API (format.h)
 */
#ifndef FORMATS_DRIVER_INT_H
#define FORMATS_DRIVER_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/anchor.h"
#include "formats/input.h"
#include "formats/format.h"
#include "formats/reader.h"
#include "formats/ticks.h"
#include "util/err.h"
#include "util/timeutil.h"
#include "util/workpool.h"

struct ingest_sink;	/* driver.h */

#define SNIFF_BYTES (64 * 1024)
/* inputs up to this many are mapped, more are read (open_source) */
#define MAP_MAX_INPUTS 4
/* with more inputs than that, how much of each is read to find its start */
#define PRESCAN_BYTES (64 * 1024)
#define MAX_LINE (16 * 1024 * 1024)
#define MAX_CONTEXT_LINE (64 * 1024)
#define DEFAULT_CHUNK (1024 * 1024)
#define INFLIGHT_BUDGET (16 * 1024 * 1024)

struct source;

struct chunk {
	struct source *src;
	const char *p;
	size_t n;
	char *owned;		/* decompressed buffer, or NULL for mapped data */
	char *ctx[2];		/* context lines in force at the chunk start */
	size_t ctx_n[2];
	int nctx;
	bool first;		/* first chunk of the file: skip a BOM */
	bool ends_partial;	/* the last line has no newline */
	bool partial_read;	/* ... and it was read as a whole row, not skipped */
	bool last;		/* the file's last chunk */
	struct wp_job job;	/* its parsing, in the pool */
	struct batch batch;
};

struct source {
	struct input_stat *st;
	const struct format *fmt;
	const struct ingest_opts *opts;
	struct workpool *pool;	/* the run's, handed to a stream() format (parse_ctx) */
	struct reader rd;
	size_t pos;		/* READER_MAP: next byte to cut */
	bool huge_batches;	/* the only input: its batches may take huge pages */
	char *carry;		/* streaming: bytes after the last newline */
	size_t carry_n;
	char *head;		/* streaming: sniffed bytes not yet cut */
	size_t head_n;
	bool cut_all;		/* every byte is in a chunk */
	bool cut_first_ctx;	/* the first chunk was scanned for context */
	bool cut_first;
	/* a stream() format: its one state for the whole file, and its line */
	void *stream_state;
	uint64_t stream_line;
	bool path_done;		/* a by_path format has read everything */
	char *ctx[2];
	size_t ctx_n[2];
	int nctx;
	struct chunk *slots;
	unsigned nslots;
	uint64_t head_seq, tail_seq;
	size_t rec_pos;
	uint64_t lines_before;
	bool finished;
	/* time resolution */
	bool have_head;
	struct rec *next;	/* the next record, in its batch (time resolved in place) */
	const struct batch *head_batch;
	int64_t last_t_ns;
	int64_t tod_base_days, tod_last_ns, tod_day_offset;
	int64_t tick_anchor_ns, ticks;
	/* inside a repeated local hour (clocks fell back): add dst_shift_ns to
	 * first-occurrence times in [dst_from_ns, dst_until_ns) */
	int64_t dst_shift_ns, dst_from_ns, dst_until_ns;
	struct tick_seq tick;	/* which time-less records share a tick (ticks.h) */
	struct kboot_seq kboot;	/* the boots of a kernel log (anchor.h) */
	bool ticks_counted;
	size_t order;		/* the input's index: of equal times, the lower first */
};

/* driver_source.c */
const char *read_path(const struct input_stat *st);
void source_release(struct source *s);
bool open_source(struct source *s, struct input_stat *st, const struct ingest_opts *o,
		 bool map, size_t in_cap);

/* driver_chunk.c */
void batch_release(struct batch *b);
void parse_chunk(struct chunk *c, const struct ingest_opts *o);
/* Free what c holds: its own copy of the text, its context lines, its records;
 * safe on a zeroed chunk and to call again. */
void chunk_release(struct chunk *c);
bool cut_chunk(struct source *s, struct chunk *c, size_t chunk_bytes, struct gl_err *err);

/* Queue c for parsing (parsed here and now with no workers, or for a
 * stream() format, whose pieces share one state); chunk_wait() returns
 * once it is parsed. */
void chunk_queue(struct workpool *pl, struct chunk *c);
void chunk_wait(struct workpool *pl, struct chunk *c);

/* driver_time.c */
/* A step back in absolute time smaller than this is left as it is; a larger
 * one (up to three hours) may be the repeated hour of a clock change. */
#define DST_STEP_MIN_NS (600 * NS_PER_S)
void resolve_time_slow(struct source *s, struct rec *r, const struct ingest_opts *o);
/* Give r its absolute time, in place. */
static inline void resolve_time(struct source *s, struct rec *r, const struct ingest_opts *o)
{
	/* the common case, an absolute time that is no step back: what
	 * resolve_time_slow() would do comes down to this */
	if (r->time_kind == TK_ABS && r->kind != REC_ANCHOR && r->kind != REC_BAD &&
	    r->t_ns != INT64_MIN && !s->dst_shift_ns && !s->st->zone_shift_ns &&
	    (s->last_t_ns == INT64_MIN || r->t_ns >= s->last_t_ns - DST_STEP_MIN_NS)) {
		s->last_t_ns = r->t_ns;
		return;
	}
	resolve_time_slow(s, r, o);
}

/* driver_merge.c: the open inputs and those that wait for the merge to
 * reach their first record */
struct merge {
	struct workpool *pl;
	const struct ingest_opts *o;
	size_t in_cap;			/* reader buffer size (open_source) */
	struct source **open;
	size_t nopen, open_alloc;
	struct waiting *wait;		/* sorted by first time in merge_run */
	size_t nwait, wait_alloc, wpos;
};
/* An opened input, read from the start of the merge; consumes s. */
void merge_add(struct merge *m, struct source *s);
/* An opened input read only when the merge reaches its first record (found
 * now, from its first 64 KiB); consumes s, which is closed until then. */
void merge_add_waiting(struct merge *m, struct source *s);
/* Merge every input into the sink; 0 or the sink's non-zero code. */
int merge_run(struct merge *m, struct ingest_sink *sink, size_t chunk_bytes, unsigned window,
	      struct gl_err *err);
/* Free the sources still open (their chunks in flight parsed first). */
void merge_release(struct merge *m);

/* driver_prepass.c */
void keep_sniffed(struct input_stat *before, const struct input_stat *st);
/* Each reads with the run's pool (a trace format's jobs). */
void place_kernel(struct ingest_result *res, const struct ingest_opts *o, struct workpool *pl);
void place_zones(struct ingest_result *res, const struct ingest_opts *o, struct workpool *pl);
void place_timeless(struct ingest_result *res, const struct ingest_opts *o, struct workpool *pl);

#endif
