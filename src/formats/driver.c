/* SPDX-License-Identifier: MIT */
/*
 * The ingest driver (see driver.h).  Design:
 *
 *   main thread:  expand paths -> open + sniff each input -> cut each input
 *                 into chunks at line ends (noting the header lines in force
 *                 at each chunk's start) -> queue chunks -> merge the parsed
 *                 batches of all inputs by time -> sink
 *   workers:      parse one chunk each: replay its context lines, then every
 *                 line through the format, into a batch of records
 *
 * Memory is bounded by the chunks in flight (a small window per input), not
 * by the input size.  Plain files are mapped, so a chunk is a pointer range;
 * compressed files are decompressed by the main thread into chunk buffers.
 */
#include "formats/driver.h"
#include "formats/identify.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/place.h"
#include "formats/zone.h"
#include "formats/reader.h"
#include "formats/smi.h"
#include "formats/spool.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

#define SNIFF_BYTES (64 * 1024)
/* inputs up to this many are mapped, more are read (open_source) */
#define MAP_MAX_INPUTS 4
/* with more inputs than that, how much of each is read to find its start */
#define PRESCAN_BYTES (64 * 1024)
#define MAX_LINE (16 * 1024 * 1024)
#define MAX_CONTEXT_LINE (64 * 1024)
#define DEFAULT_CHUNK (1024 * 1024)
#define INFLIGHT_BUDGET (16 * 1024 * 1024)

const struct metric_info metric_info[M__COUNT] = {
#define METRIC(id, name, unit, help) { name, unit, help },
#include "formats/metrics.def"
#undef METRIC
};

const char *const event_kind_name[EV__COUNT] = {
	[EV_GPU_LOST] = "gpu_lost",
	[EV_RESET_REQUIRED] = "reset_required",
	[EV_ERROR_ROW] = "error_row",
	[EV_TOOL_ERROR] = "tool_error",
	[EV_XID] = "xid",
	[EV_FALLEN_OFF] = "fallen_off_bus",
	[EV_RMINIT_FAILED] = "rm_init_failed",
	[EV_DRIVER_LOAD] = "driver_load",
	[EV_GPU_MAP] = "gpu_map",
	[EV_GSP_TIMEOUT] = "gsp_error",
	[EV_MODESET_ERROR] = "modeset_error",
	[EV_PCIE_AER] = "pcie_aer",
	[EV_NVLINK_ERROR] = "nvlink_error",
	[EV_NVRM_OTHER] = "nvrm_error",
	[EV_SUSPEND] = "suspend",
	[EV_RESUME] = "resume",
	[EV_AC_OFF] = "ac_off",
	[EV_AC_ON] = "ac_on",
	[EV_LID] = "lid",
	[EV_POWER_KEY] = "power_key",
	[EV_POWER_OFF] = "power_off",
	[EV_BOOT] = "boot",
	[EV_CONTAINER_START] = "container_start",
	[EV_CONTAINER_STOP] = "container_stop",
};

const char *const kev_class_name[KC__COUNT] = {
	[KC_NONE] = "none",
	[KC_HW] = "hardware",
	[KC_DRIVER] = "driver",
	[KC_APP] = "application",
	[KC_THERMAL] = "thermal",
	[KC_LINK] = "interconnect",
	[KC_SYSTEM] = "system",
};

const char *const trace_ev_name[TR__COUNT] = {
	[TR_KERNEL] = "kernel",
	[TR_MEMCPY] = "memcpy",
	[TR_MEMSET] = "memset",
	[TR_RUNTIME] = "runtime",
	[TR_STEP] = "step",
	[TR_WINDOW] = "window",
	[TR_SUMMARY] = "summary",
	[TR_OVERHEAD] = "overhead",
};

/* ---- helpers for formats ------------------------------------------------ */

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

static void batch_release(struct batch *b)
{
	free(b->recs);
	free(b->strs);
	memset(b, 0, sizeof(*b));
}

/* ---- sniffing ------------------------------------------------------------ */

const struct format *format_sniff(const char *head, size_t n, const char *name, int *score)
{
	const struct format *best = NULL;
	int best_score = 0;

	for (size_t i = 0; i < format_count(); i++) {
		const struct format *f = format_at(i);
		int s = f->sniff ? f->sniff(head, n, name) : 0;
		if (s > best_score) {
			best_score = s;
			best = f;
		}
	}
	if (score)
		*score = best_score;
	return best;
}

int64_t date_from_name(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (const char *p = base; *p; p++) {
		int y, m, d;
		const char *q = p;
		if (p > base && (unsigned)(p[-1] - '0') <= 9)
			continue;
		if (scan_fixed_digits(&q, q + strlen(q), 4, &y) ||
		    scan_fixed_digits(&q, q + strlen(q), 2, &m) ||
		    scan_fixed_digits(&q, q + strlen(q), 2, &d))
			continue;
		if ((unsigned)(*q - '0') <= 9)
			continue;
		if (y >= 1990 && y <= 2200 && civil_valid(y, m, d))
			return days_from_civil(y, m, d);
	}
	return INT64_MIN;
}

/* ---- chunks, sources and the worker pool --------------------------------- */

enum chunk_state { CH_FREE, CH_QUEUED, CH_DONE };

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
	enum chunk_state state;
	struct batch batch;
	struct chunk *next_job;
};

struct source {
	struct input_stat *st;
	const struct format *fmt;
	const struct ingest_opts *opts;
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

struct pool {
	pthread_mutex_t mu;
	pthread_cond_t job_cv, done_cv;
	struct chunk *jobs_head, *jobs_tail;
	bool stop;
	const struct ingest_opts *opts;
	pthread_t *threads;
	int nthreads;
};

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

static void parse_chunk(struct chunk *c, const struct ingest_opts *o)
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
		/* a headerless CSV read with a sibling's header (smi_csv_sibling_columns) */
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

/* Take the first queued chunk and parse it; called and returns with pl->mu held. */
static void run_next_job(struct pool *pl)
{
	struct chunk *c = pl->jobs_head;

	pl->jobs_head = c->next_job;
	if (!pl->jobs_head)
		pl->jobs_tail = NULL;
	pthread_mutex_unlock(&pl->mu);
	parse_chunk(c, pl->opts);
	pthread_mutex_lock(&pl->mu);
	c->state = CH_DONE;
	pthread_cond_broadcast(&pl->done_cv);
}

static void *worker_main(void *arg)
{
	struct pool *pl = arg;

	pthread_setname_np(pthread_self(), "gputally-parse");	/* for top and perf */
	pthread_mutex_lock(&pl->mu);
	for (;;) {
		while (!pl->jobs_head && !pl->stop)
			pthread_cond_wait(&pl->job_cv, &pl->mu);
		if (!pl->jobs_head && pl->stop)
			break;
		run_next_job(pl);
	}
	pthread_mutex_unlock(&pl->mu);
	return NULL;
}

static void pool_push(struct pool *pl, struct chunk *c)
{
	c->state = CH_QUEUED;
	c->next_job = NULL;
	/* a stream() format's pieces share one state: parsed here, in order */
	if (pl->nthreads == 0 || c->src->fmt->stream) {
		parse_chunk(c, pl->opts);
		c->state = CH_DONE;
		return;
	}
	pthread_mutex_lock(&pl->mu);
	if (pl->jobs_tail)
		pl->jobs_tail->next_job = c;
	else
		pl->jobs_head = c;
	pl->jobs_tail = c;
	pthread_cond_signal(&pl->job_cv);
	pthread_mutex_unlock(&pl->mu);
}

static void pool_wait(struct pool *pl, struct chunk *c)
{
	if (pl->nthreads == 0)
		return;
	pthread_mutex_lock(&pl->mu);
	while (c->state != CH_DONE) {
		/* rather than wait, parse the next chunk no worker has started:
		 * c itself, or a later one while a worker finishes c */
		if (pl->jobs_head)
			run_next_job(pl);
		else
			pthread_cond_wait(&pl->done_cv, &pl->mu);
	}
	pthread_mutex_unlock(&pl->mu);
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
static bool cut_chunk(struct source *s, struct chunk *c, size_t chunk_bytes, struct gl_err *err)
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

/* ---- expanding paths ----------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_input(struct ingest_result *res, const char *path)
{
	struct input_stat *st;
	ALLOC_GROW(res->inputs, res->nr + 1, res->alloc);
	st = &res->inputs[res->nr++];
	memset(st, 0, sizeof(*st));
	st->path = xstrdup(path);
	st->t_first_ns = st->t_last_ns = INT64_MIN;
	st->compression = "plain";
	st->place_r = st->place_uncertain_s = NAN;
}

static void expand(struct ingest_result *res, const char *path, int depth)
{
	struct stat sb;
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t nr = 0, alloc = 0;

	if (strcmp(path, "-") && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		if (depth > 16 || !(d = opendir(path))) {
			add_input(res, path);
			res->inputs[res->nr - 1].named = depth == 0;
			snprintf(res->inputs[res->nr - 1].skip_reason,
				 sizeof(res->inputs[0].skip_reason), "cannot read directory");
			return;
		}
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			ALLOC_GROW(names, nr + 1, alloc);
			names[nr] = xmalloc(strlen(path) + strlen(de->d_name) + 2);
			sprintf(names[nr], "%s%s%s", path,
				path[strlen(path) - 1] == '/' ? "" : "/", de->d_name);
			nr++;
		}
		closedir(d);
		if (nr)
			qsort(names, nr, sizeof(*names), cmp_str);
		for (size_t i = 0; i < nr; i++) {
			expand(res, names[i], depth + 1);
			free(names[i]);
		}
		free(names);
		return;
	}
	add_input(res, path);
	res->inputs[res->nr - 1].named = depth == 0;
	/* standard input, a pipe, a FIFO, a device: readable only once */
	res->inputs[res->nr - 1].stream = !strcmp(path, "-") ||
		(stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode));
}

/* The name that opens an input's bytes: its copy, for a stream. */
static const char *read_path(const struct input_stat *st)
{
	return st->read_path ? st->read_path : st->path;
}

/* ---- time resolution ----------------------------------------------------- */

static int64_t local_days_of(int64_t t_ns)
{
	int64_t t_s = t_ns / NS_PER_S;
	int64_t local = t_s + time_utc_offset_s(t_s);
	return (local >= 0 ? local : local - 86399) / 86400;
}

static int64_t local_to_utc_ns(int64_t days, int64_t tod_ns)
{
	int y, m, d;
	int64_t t_s, sec = tod_ns / NS_PER_S;

	civil_from_days(days, &y, &m, &d);
	if (time_local_to_utc(y, m, d, (int)(sec / 3600), (int)(sec / 60 % 60),
			      (int)(sec % 60), &t_s))
		return days * NS_PER_DAY + tod_ns;
	return t_s * NS_PER_S + tod_ns % NS_PER_S;
}

/* Count the ticks of a time-less log with a separate sequential pass. */
static void count_ticks(struct source *s, const struct ingest_opts *o)
{
	struct reader rd;
	struct chunk c = { 0 };
	struct source tmp = { 0 };
	struct tick_seq seq;

	s->ticks_counted = true;
	if (reader_open(&rd, read_path(s->st), NULL))
		return;
	tmp.st = s->st;
	tmp.fmt = s->fmt;
	tmp.opts = o;
	tmp.rd = rd;
	c.src = &tmp;
	tick_seq_init(&seq);
	while (cut_chunk(&tmp, &c, DEFAULT_CHUNK, NULL)) {
		parse_chunk(&c, o);
		for (size_t i = 0; i < c.batch.nr; i++) {
			const struct rec *r = &c.batch.recs[i];
			if (r->kind == REC_BAD || r->time_kind != TK_NONE)
				continue;
			if ((r->kind == REC_SAMPLE || r->kind == REC_PROC) && tick_seq_next(&seq, r, &c.batch))
				s->ticks++;
		}
	}
	tick_seq_release(&seq);
	s->st->bytes = 0;	/* counted again by the real pass */
	for (int i = 0; i < c.nctx; i++)
		free(c.ctx[i]);
	for (int i = 0; i < tmp.nctx; i++)
		free(tmp.ctx[i]);
	free(c.owned);
	free(tmp.carry);
	/* a stream() format's state of this counting pass (smi-xml without <timestamp>) */
	if (tmp.stream_state && tmp.fmt->fini)
		tmp.fmt->fini(tmp.stream_state);
	free(tmp.stream_state);
	batch_release(&c.batch);
	reader_close(&tmp.rd);
}

/* The time of tick k (1-based) of a time-less log placed by content or --start. */
static int64_t tick_time(const struct source *s, uint64_t k, const struct ingest_opts *o)
{
	const struct input_stat *st = s->st;

	if (!st->placed_ns)
		return s->tick_anchor_ns + (int64_t)k * o->interval_ns;
	if (k <= st->nplaced)
		return st->placed_ns[k - 1];
	return st->placed_ns[st->nplaced - 1] + (int64_t)(k - st->nplaced) * o->interval_ns;
}

/* A step back in absolute time smaller than this is left as it is; a larger
 * one (up to three hours) may be the repeated hour of a clock change. */
#define DST_STEP_MIN_NS (600 * NS_PER_S)

static void resolve_time_slow(struct source *s, struct rec *r, const struct ingest_opts *o)
{
	/* a stamp without a zone read in the wrong one (zone.h): moved last,
	 * after the steps below that reason in the zone it was read in */
	int64_t zone_ns = r->time_kind == TK_ABS || r->time_kind == TK_TOD ? s->st->zone_shift_ns : 0;

	if (r->kind == REC_ANCHOR) {
		if (r->anc.quality != ANC_Q_CLOCK_REF || r->anc.boot_id != STR_NONE)
			kboot_next(&s->kboot, r);
		return;
	}
	switch (r->time_kind) {
	case TK_BOOT: {
		/* placed by the plan of the anchoring pre-pass, or left unplaced */
		int64_t t;
		uint32_t b = kboot_next(&s->kboot, r);
		if (r->kind != REC_BAD && anc_place(s->st->anchor, b, r->t_ns, &t)) {
			r->t_ns = t;
			r->time_kind = TK_ABS;
			s->last_t_ns = t;
		}
		return;
	}
	case TK_ABS:
		if (r->t_ns == INT64_MIN)
			r->t_ns = s->last_t_ns;
		break;
	case TK_TOD:
		if (s->tod_base_days == INT64_MIN) {
			if (s->st->tod_by_evidence) {
				s->tod_base_days = s->st->tod_days;
				s->st->time_basis = s->st->tod_note;
			} else if ((s->tod_base_days = date_from_name(s->st->path)) != INT64_MIN) {
				s->st->time_basis = "time of day in file, date from file name";
			} else if (o->date_days != INT64_MIN) {
				s->tod_base_days = o->date_days;
				s->st->time_basis = "time of day in file, date from --date";
			} else {
				s->tod_base_days = local_days_of(s->rd.mtime_ns);
				s->st->time_basis = "time of day in file, date from file modification time";
			}
			s->tod_last_ns = r->t_ns;
		}
		/* a step back of more than an hour is midnight passing */
		if (r->t_ns < s->tod_last_ns - 3600 * NS_PER_S)
			s->tod_day_offset++;
		s->tod_last_ns = r->t_ns;
		r->t_ns = local_to_utc_ns(s->tod_base_days + s->tod_day_offset, r->t_ns);
		break;
	case TK_NONE:
		if (!s->ticks_counted) {
			if (s->st->placed_ns || o->has_start) {
				/* placed by content (place.c) or by --start */
				s->ticks_counted = true;
				s->tick_anchor_ns = o->start_ns - o->interval_ns;
			} else {
				count_ticks(s, o);
				s->tick_anchor_ns = s->rd.mtime_ns - s->ticks * o->interval_ns;
			}
			s->ticks = 0;
			tick_seq_release(&s->tick);
			s->st->time_basis = s->st->basis[0] ? s->st->basis
				: "no time in file: one tick per --interval, ending at the file modification time";
		}
		if (r->kind == REC_SAMPLE || r->kind == REC_PROC) {
			if (tick_seq_next(&s->tick, r, s->head_batch))
				s->ticks++;
		}
		r->t_ns = tick_time(s, s->ticks ? s->ticks : 1, o);
		break;
	case TK_FILE:
		r->t_ns = s->st->placed_ns ? s->st->placed_ns[0]
			: o->has_start ? o->start_ns : s->rd.mtime_ns;
		if (!s->st->time_basis)
			s->st->time_basis = s->st->basis[0] ? s->st->basis
				: "snapshot without time: file modification time";
		break;
	}
	r->time_kind = TK_ABS;
	if (r->kind == REC_BAD) {
		if (r->t_ns != INT64_MIN)
			r->t_ns += zone_ns;
		return;
	}
	/*
	 * When clocks fall back, an hour of local time happens twice, and a
	 * timestamp without a zone is converted to the first occurrence.  A
	 * step back of up to an hour across such a change is the second one:
	 * the order of the lines decides (formats.md 9.1).
	 */
	if (s->dst_shift_ns && r->t_ns >= s->dst_until_ns) {
		s->dst_shift_ns = 0;		/* past the repeated hour */
	} else if (!s->dst_shift_ns && s->last_t_ns != INT64_MIN &&
		   r->t_ns < s->last_t_ns - DST_STEP_MIN_NS &&
		   r->t_ns + 3 * 3600 * NS_PER_S >= s->last_t_ns) {
		int64_t lo = r->t_ns / NS_PER_S, hi = lo + 3 * 3600;
		long off = time_utc_offset_s(lo), later = time_utc_offset_s(hi);
		if (later < off) {
			/* the change: the first second with the later offset */
			while (hi - lo > 1) {
				int64_t mid = lo + (hi - lo) / 2;
				if (time_utc_offset_s(mid) == off)
					lo = mid;
				else
					hi = mid;
			}
			s->dst_shift_ns = (int64_t)(off - later) * NS_PER_S;
			s->dst_until_ns = hi * NS_PER_S;
			s->dst_from_ns = s->dst_until_ns - s->dst_shift_ns;
		}
	}
	if (s->dst_shift_ns && r->t_ns >= s->dst_from_ns && r->t_ns < s->dst_until_ns) {
		r->t_ns += s->dst_shift_ns;
		s->st->dst_repeats++;
	}
	s->last_t_ns = r->t_ns;
	if (r->t_ns != INT64_MIN)
		r->t_ns += zone_ns;
}

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

/* ---- the run --------------------------------------------------------------- */

/*
 * The placing pre-pass (place.h): read input i sequentially, up to max
 * bytes (0: all), and hand its samples to the collector, timed ones with
 * their times resolved.  The input's statistics are left as they were: the
 * real pass counts everything again.
 */
static void source_release(struct source *s);
static bool open_source(struct source *s, struct input_stat *st, const struct ingest_opts *o,
			bool map, size_t in_cap);

/* A pre-pass leaves an input's statistics as they were, but not what was
 * learnt of the file itself: its sniffed format ... */
static void keep_sniffed(struct input_stat *before, const struct input_stat *st)
{
	before->sniffed = st->sniffed;
	before->sniff_format = st->sniff_format;
	before->sniff_score = st->sniff_score;
}

/* ... and the column list of a headerless query CSV. */
static void keep_learnt(struct input_stat *before, const struct input_stat *st)
{
	before->columns = st->columns;
	before->columns_tried = st->columns_tried;
	memcpy(before->columns_note, st->columns_note, sizeof(before->columns_note));
	memcpy(before->columns_unread, st->columns_unread, sizeof(before->columns_unread));
	keep_sniffed(before, st);
}

static void scan_input(struct ingest_result *res, size_t i, const struct ingest_opts *o,
		       size_t max_bytes, struct pl_collect *pc)
{
	struct input_stat *st = &res->inputs[i], before = *st;
	struct source s = { .rd = { .fd = -1 } };	/* released unopened: no close(0) */
	struct chunk c = { 0 };
	size_t done = 0;

	/* a by_path format (SQLite) has absolute times: nothing to place */
	if (!open_source(&s, st, o, false, 0) || s.fmt->by_path) {
		source_release(&s);
		keep_sniffed(&before, st);
		*st = before;
		return;
	}
	pc->in[i].mtime_ns = s.rd.mtime_ns;
	s.last_t_ns = INT64_MIN;
	c.src = &s;
	while ((!max_bytes || done < max_bytes) &&
	       cut_chunk(&s, &c, max_bytes ? max_bytes : DEFAULT_CHUNK, NULL)) {
		done += c.n;
		parse_chunk(&c, o);
		for (size_t k = 0; k < c.batch.nr; k++) {
			struct rec r = c.batch.recs[k];
			if (r.kind == REC_BAD)
				continue;
			if (r.time_kind == TK_ABS || r.time_kind == TK_TOD)
				resolve_time(&s, &r, o);
			pl_collect_rec(pc, i, &r, &c.batch);
		}
	}
	for (int k = 0; k < c.nctx; k++)
		free(c.ctx[k]);
	free(c.owned);
	batch_release(&c.batch);
	source_release(&s);
	keep_learnt(&before, st);
	*st = before;
}

/*
 * Logs without time are placed before the run, by content where a timed log
 * of the same GPU lets them be (place.c).  The first 64 KiB of each input
 * say whether any has no time; only then is every input read in full once
 * more, to build the series to align.
 */
static void place_timeless(struct ingest_result *res, const struct ingest_opts *o)
{
	struct pl_collect pc;
	bool any = false;

	pl_collect_init(&pc, o, res->nr);
	for (size_t i = 0; i < res->nr; i++) {
		struct pl_input *in = &pc.in[i];
		scan_input(res, i, o, PRESCAN_BYTES, &pc);
		any |= in->timeless;
		/* only the flag is wanted here: each input's series go at once,
		 * not at the end (they were 6 KB an input: 750 MB for 100000) */
		for (size_t k = 0; k < in->ng; k++)
			pl_series_release(&in->g[k].s);
		free(in->g);
		in->g = NULL;
		in->ng = 0;
	}
	pl_collect_release(&pc);
	if (!any)
		return;
	pl_collect_init(&pc, o, res->nr);
	for (size_t i = 0; i < res->nr; i++)
		scan_input(res, i, o, 0, &pc);
	pl_decide(&pc, res);
	pl_collect_release(&pc);
}

/*
 * The anchoring pre-pass (anchor.h): collect the clock pairs and the boots
 * of input i, up to max bytes (0: all).  Statistics are left as they were.
 */
static bool scan_boot_input(struct ingest_result *res, size_t i, const struct ingest_opts *o,
			    size_t max_bytes, struct anc_collect *ac, bool *boot_clock, bool *to_place)
{
	struct input_stat *st = &res->inputs[i], before = *st;
	struct source s = { .rd = { .fd = -1 } };	/* released unopened: no close(0) */
	struct chunk c = { 0 };
	struct kboot_seq q = { 0 };
	size_t done = 0;
	bool opened;

	*boot_clock = *to_place = false;
	opened = open_source(&s, st, o, false, 0) && !s.fmt->by_path;
	if (opened && max_bytes && s.fmt->boot_clock) {
		*boot_clock = true;	/* read whole by the caller */
		opened = false;
	}
	if (!opened) {
		source_release(&s);
		keep_learnt(&before, st);
		*st = before;
		return false;
	}
	c.src = &s;
	while ((!max_bytes || done < max_bytes) &&
	       cut_chunk(&s, &c, max_bytes ? max_bytes : DEFAULT_CHUNK, NULL)) {
		done += c.n;
		parse_chunk(&c, o);
		for (size_t k = 0; k < c.batch.nr; k++) {
			struct rec *r = &c.batch.recs[k];
			if (r->kind == REC_ANCHOR) {
				if (r->anc.quality != ANC_Q_CLOCK_REF || r->anc.boot_id != STR_NONE)
					kboot_next(&q, r);
				anc_collect_rec(ac, i, r, &c.batch);
			} else if (r->kind == REC_EVENT && r->time_kind == TK_BOOT) {
				*to_place = true;
				kboot_next(&q, r);
				anc_collect_rec(ac, i, r, &c.batch);
			}
		}
	}
	for (int k = 0; k < c.nctx; k++)
		free(c.ctx[k]);
	free(c.owned);
	batch_release(&c.batch);
	source_release(&s);
	keep_learnt(&before, st);
	*st = before;
	return true;
}

/*
 * Kernel logs count seconds since boot: before the run, read every input
 * that has such times or clock pairs (a format that says so, or one whose
 * first 64 KiB show them) and decide how each boot is placed.
 */
static void place_kernel(struct ingest_result *res, const struct ingest_opts *o)
{
	struct anc_collect *pre = anc_collect_new(res->nr), *ac;
	bool *full = xcalloc(res->nr ? res->nr : 1, sizeof(bool)), any = false;

	/*
	 * Only printk times need placing: inputs with nothing but clock pairs
	 * (a kern.log with printk stamps, a journal export) are read whole a
	 * second time only when some input has such times to place.
	 */
	for (size_t i = 0; i < res->nr; i++) {
		bool bc, tp;
		scan_boot_input(res, i, o, PRESCAN_BYTES, pre, &bc, &tp);
		full[i] = bc || anc_collect_any(pre, i);
		any |= bc || tp;
	}
	anc_collect_free(pre);
	if (any) {
		const char **names = xcalloc(res->nr, sizeof(*names));
		struct anc_plan **plans = xcalloc(res->nr, sizeof(*plans));
		char **basis = xcalloc(res->nr, sizeof(*basis));
		bool *has = xcalloc(res->nr, sizeof(bool));
		bool bc, tp;
		ac = anc_collect_new(res->nr);
		for (size_t i = 0; i < res->nr; i++) {
			names[i] = res->inputs[i].path;
			basis[i] = res->inputs[i].basis;
			if (full[i])
				scan_boot_input(res, i, o, 0, ac, &bc, &tp);
		}
		anc_decide(ac, names, o->has_boot_time ? o->boot_time_ns : INT64_MIN, plans, basis,
			   sizeof(res->inputs[0].basis), has);
		for (size_t i = 0; i < res->nr; i++)
			if (has[i])
				res->inputs[i].anchor = plans[i];
		anc_collect_free(ac);
		free(names);
		free(plans);
		free(basis);
		free(has);
	}
	free(full);
}

/*
 * The zone pre-pass (zone.h): read input i, up to max bytes (0: all), and
 * note whether its stamps carry a zone and what span its times cover.
 * Kernel logs are placed by their anchors already (place_kernel() runs
 * first); logs without time are not evidence either way.
 */
static bool scan_zone_input(struct ingest_result *res, size_t i, const struct ingest_opts *o,
			    size_t max_bytes, struct zn_input *zi, struct pl_collect *pc)
{
	bool any = false;	/* a record of any kind was read */
	struct input_stat *st = &res->inputs[i], before = *st;
	struct source s = { .rd = { .fd = -1 } };	/* released unopened: no close(0) */
	struct chunk c = { 0 };
	size_t done = 0;
	bool timed = false, local = false;

	zi->first_ns = zi->last_ns = INT64_MIN;
	zi->zoned = zi->zoneless = false;
	if (!open_source(&s, st, o, false, 0) || s.fmt->by_path) {
		source_release(&s);
		keep_learnt(&before, st);
		*st = before;
		return true;	/* nothing to learn from reading more */
	}
	s.last_t_ns = INT64_MIN;
	c.src = &s;
	while ((!max_bytes || done < max_bytes) &&
	       cut_chunk(&s, &c, max_bytes ? max_bytes : DEFAULT_CHUNK, NULL)) {
		uint64_t before_n = time_local_count();
		done += c.n;
		parse_chunk(&c, o);
		local |= time_local_count() != before_n;
		any |= c.batch.nr > 0;
		for (size_t k = 0; k < c.batch.nr; k++) {
			struct rec r = c.batch.recs[k];
			int64_t t;
			if (r.kind == REC_BAD || r.time_kind == TK_NONE || r.time_kind == TK_FILE)
				continue;
			local |= r.time_kind == TK_TOD;
			resolve_time(&s, &r, o);
			if (r.time_kind != TK_ABS || r.t_ns == INT64_MIN)
				continue;	/* a printk time no anchor places */
			timed = true;
			if (pc)
				pl_collect_rec(pc, i, &r, &c.batch);	/* readings, to date -o T logs */
			/*
			 * The span is what the run measured: samples, processes,
			 * trace events and clock references.  Kernel events are
			 * not in it: a kernel log reaches back to its boot, days
			 * before the run, and would fit every offset or none.
			 * Kernel logs without a zone (dmesg -T) still move with
			 * the others; kernel logs placed by a clock reference
			 * come with it.
			 */
			if (r.kind == REC_ANCHOR ? r.anc.quality != ANC_Q_CLOCK_REF
			    : r.kind != REC_SAMPLE && r.kind != REC_PROC && r.kind != REC_TRACE)
				continue;
			t = r.t_ns;
			if (zi->first_ns == INT64_MIN || t < zi->first_ns)
				zi->first_ns = t;
			if (zi->last_ns == INT64_MIN || t > zi->last_ns)
				zi->last_ns = t;
		}
	}
	zi->zoneless = timed && local;
	zi->zoned = timed && !local && zi->first_ns != INT64_MIN;
	zi->tod = s.tod_base_days != INT64_MIN;
	zi->tod_days = s.tod_base_days;
	for (int k = 0; k < c.nctx; k++)
		free(c.ctx[k]);
	free(c.owned);
	batch_release(&c.batch);
	source_release(&s);
	keep_learnt(&before, st);
	*st = before;
	return any;
}

/*
 * A time-of-day log takes its date from the dated logs beside it first: the
 * whole number of days that puts its times of day on a dated log's span and
 * its readings on that log's readings (the same GPU).  One day that the
 * spans allow and the readings do not contradict, or the one day whose
 * readings match clearly best among several: that date.  Otherwise the
 * driver's rules (file name, --date, file time) stay.  Moves zi[i]'s span.
 */
#define TOD_MAX_DAYS 62		/* candidate days compared by readings */
#define TOD_MATCH_R 0.7		/* readings that repeat the dated log's */
#define TOD_MARGIN_R 0.1	/* over the next best day */
#define TOD_CONTRA_R 0.3	/* below this the readings say "not this day" */

static double tod_readings(const struct pl_collect *pc, size_t i, size_t j, int64_t k, bool *same)
{
	double best = NAN;

	if (!pc->in[i].ng) {
		*same = true;	/* no readings (pmon: processes only): times of day alone */
		return NAN;
	}
	for (size_t g = 0; g < pc->in[i].ng; g++) {
		const struct pl_series *ref = pl_same_gpu(&pc->in[j], &pc->in[i].g[g]);
		double r;
		if (!ref)
			continue;
		*same = true;
		r = pl_corr_shift(&pc->in[i].g[g].s, ref, k * NS_PER_DAY);
		if (!isnan(r) && (isnan(best) || r > best))
			best = r;
	}
	return best;
}

static void date_tod_inputs(struct ingest_result *res, struct zn_input *zi, const struct pl_collect *pc,
			    const struct ingest_opts *o)
{
	for (size_t i = 0; i < res->nr; i++) {
		int64_t k_lo = INT64_MAX, k_hi = INT64_MIN, k_best = 0;
		double r_best = NAN, r_next = NAN;
		size_t from = res->nr, from_best = res->nr;
		struct input_stat *st = &res->inputs[i];
		char day[16], rr[48] = "", note[240];
		int y, m, d;
		bool by_readings = false, stored = false;

		if (!zi[i].tod || zi[i].first_ns == INT64_MIN)
			continue;
		for (size_t j = 0; j < res->nr; j++) {
			int64_t a, b;
			bool same = false;
			if (j == i || zi[j].tod || zi[j].first_ns == INT64_MIN)
				continue;
			/* days k with [first + k, last + k] meeting [first_j, last_j] */
			a = zi[j].first_ns - zi[i].last_ns;
			b = zi[j].last_ns - zi[i].first_ns;
			a = a >= 0 ? (a + NS_PER_DAY - 1) / NS_PER_DAY : -(-a / NS_PER_DAY);
			b = b >= 0 ? b / NS_PER_DAY : -((-b + NS_PER_DAY - 1) / NS_PER_DAY);
			if (a > b)
				continue;
			if (b - a >= TOD_MAX_DAYS)
				b = a + TOD_MAX_DAYS - 1;
			for (int64_t k = a; k <= b; k++) {
				double r = tod_readings(pc, i, j, k, &same);
				if (!same)
					break;	/* another GPU's log dates nothing */
				if (from == res->nr)
					from = j;
				k_lo = k < k_lo ? k : k_lo;
				k_hi = k > k_hi ? k : k_hi;
				if (isnan(r))
					continue;
				if (isnan(r_best) || r > r_best) {
					if (!isnan(r_best) && k != k_best)
						r_next = r_best;
					r_best = r;
					k_best = k;
					from_best = j;
				} else if (k != k_best && (isnan(r_next) || r > r_next)) {
					r_next = r;
				}
			}
		}
		/* the logs read before this run (the store's): times of day only */
		for (size_t j = 0; j < o->nknown_spans && from == res->nr; j++) {
			int64_t a = o->known_spans[j][0] - zi[i].last_ns, b = o->known_spans[j][1] - zi[i].first_ns;
			a = a >= 0 ? (a + NS_PER_DAY - 1) / NS_PER_DAY : -(-a / NS_PER_DAY);
			b = b >= 0 ? b / NS_PER_DAY : -((-b + NS_PER_DAY - 1) / NS_PER_DAY);
			if (a > b)
				continue;
			k_lo = a < k_lo ? a : k_lo;
			k_hi = b > k_hi ? b : k_hi;
			stored = true;
		}
		if (from == res->nr && !stored)
			continue;	/* no dated log of its GPU meets it */
		if (!isnan(r_best) && r_best >= TOD_MATCH_R &&
		    (isnan(r_next) || r_best - r_next >= TOD_MARGIN_R)) {
			by_readings = true;	/* the day whose readings it repeats */
			from = from_best;
		} else if (k_lo == k_hi && (isnan(r_best) || r_best >= TOD_CONTRA_R)) {
			k_best = k_lo;		/* the one day the spans allow */
		} else {
			continue;		/* several days, or readings that disagree */
		}
		st->tod_by_evidence = true;
		st->tod_days = zi[i].tod_days + k_best;
		civil_from_days(st->tod_days, &y, &m, &d);
		snprintf(day, sizeof(day), "%04d-%02d-%02d", y, m, d);
		if (!isnan(r_best) && (by_readings || k_lo == k_hi))
			snprintf(rr, sizeof(rr), ", readings r=%.2f", r_best);
		snprintf(note, sizeof(note),
			 "time of day in file, date %s from %s (%s%s)", day,
			 from == res->nr ? "the logs stored before"
			 : strrchr(res->inputs[from].path, '/') ? strrchr(res->inputs[from].path, '/') + 1
			 : res->inputs[from].path,
			 by_readings ? "its times of day and readings match" : "the one day its times of day meet",
			 rr);
		free(st->tod_note);
		st->tod_note = xstrdup(note);
		zi[i].first_ns += k_best * NS_PER_DAY;
		zi[i].last_ns += k_best * NS_PER_DAY;
	}
}

/*
 * Stamps without a zone are read in TZ; where zoned evidence of the same
 * run (clock references, epoch stamps, traces, placed kernel logs, stamps
 * with an offset) lies a whole number of quarter hours away from them, and
 * agrees after that offset, they are moved by it (zone.h).  Time-of-day
 * logs are dated first (date_tod_inputs).  The first 64 KiB of each input
 * say whether any of this can apply; only then is every input read in full
 * once more.
 */
static void place_zones(struct ingest_result *res, const struct ingest_opts *o)
{
	struct zn_input *zi;
	struct pl_collect pc;
	const char **names;
	bool *later, any_local = false, any_zoned = false, any_tod = false, any_dated = false;
	int64_t shift;
	char note[400];
	enum zn_verdict v;

	if (!res->nr)
		return;
	zi = xcalloc(res->nr, sizeof(*zi));
	later = xcalloc(res->nr, sizeof(*later));
	for (size_t i = 0; i < res->nr; i++) {
		/* a trace whose events start past its first 64 KiB: read it whole */
		later[i] = !scan_zone_input(res, i, o, PRESCAN_BYTES, &zi[i], NULL);
		any_local |= zi[i].zoneless;
		any_zoned |= zi[i].zoned;
		any_tod |= zi[i].tod;
		any_dated |= zi[i].first_ns != INT64_MIN && !zi[i].tod;
	}
	any_dated |= o->nknown_spans > 0;
	if (!any_local && !any_tod) {
		free(zi);
		free(later);
		return;
	}
	for (size_t i = 0; i < res->nr; i++)
		if (later[i] && !res->inputs[i].skip_reason[0]) {
			scan_zone_input(res, i, o, 0, &zi[i], NULL);
			any_zoned |= zi[i].zoned;
			any_dated |= zi[i].first_ns != INT64_MIN && !zi[i].tod;
			later[i] = false;	/* read whole already */
		} else {
			/* zoned evidence needs no more than a stretch of it: a
			 * part of a zoned span lies beside the run when the whole does */
			later[i] = zi[i].zoneless;
		}
	if (!(any_local && any_zoned) && !(any_tod && any_dated)) {
		zn_hold_undated(res, zi, o);
		free(zi);
		free(later);
		return;
	}
	names = xcalloc(res->nr, sizeof(*names));
	pl_collect_init(&pc, o, res->nr);
	for (size_t i = 0; i < res->nr; i++) {
		/* dating -o T logs compares readings: every timed log, whole */
		if (later[i] || (any_tod && any_dated && zi[i].first_ns != INT64_MIN))
			scan_zone_input(res, i, o, 0, &zi[i], any_tod && any_dated ? &pc : NULL);
		names[i] = res->inputs[i].path;
	}
	date_tod_inputs(res, zi, &pc, o);
	zn_hold_undated(res, zi, o);
	pl_collect_release(&pc);
	v = zn_decide(zi, res->nr, names, &shift, note, sizeof(note));
	if (v != ZN_AGREE)
		for (size_t i = 0; i < res->nr; i++) {
			if (!zi[i].zoneless)
				continue;
			res->inputs[i].zone_shift_ns = v == ZN_SHIFT ? shift : 0;
			free(res->inputs[i].zone_note);
			res->inputs[i].zone_note = xstrdup(note);
		}
	free(names);
	free(zi);
	free(later);
}

/* Free everything s holds; safe to call again. */
static void source_release(struct source *s)
{
	for (unsigned i = 0; i < s->nslots; i++) {
		struct chunk *c = &s->slots[i];
		free(c->owned);
		for (int k = 0; k < c->nctx; k++)
			free(c->ctx[k]);
		batch_release(&c->batch);
	}
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

static void source_fill(struct source *s, struct pool *pl, size_t chunk_bytes, struct gl_err *err)
{
	while (!s->cut_all && s->tail_seq - s->head_seq < s->nslots) {
		struct chunk *c = &s->slots[s->tail_seq % s->nslots];
		if (!cut_chunk(s, c, chunk_bytes, err))
			break;
		c->src = s;
		s->tail_seq++;
		pool_push(pl, c);
	}
}

/* Give an opened source `window` chunk slots and queue its first chunks. */
static void source_start(struct source *s, unsigned window, struct pool *pl, size_t chunk_bytes,
			 struct gl_err *err)
{
	s->nslots = window;
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
static bool source_peek_slow(struct source *s, struct pool *pl, size_t chunk_bytes,
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
			pool_wait(pl, c);
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
static inline bool source_peek(struct source *s, struct pool *pl, size_t chunk_bytes,
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
static bool open_source(struct source *s, struct input_stat *st, const struct ingest_opts *o,
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
	} else if (o->columns && (s->fmt = smi_columns_format(head, head_n, o->columns))) {
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
	if (s->fmt == &format_smi_query && !o->columns && !st->columns_tried) {
		/* issue 14: a headerless loop beside the same query with its header */
		st->columns_tried = true;
		st->columns = smi_csv_sibling_columns(st->path, head, head_n, st->columns_note,
						      sizeof(st->columns_note));
	}
	if (s->fmt == &format_smi_query) {
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
		smi_csv_unread_columns(cols, cn, st->columns_unread, sizeof(st->columns_unread));
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

int ingest_run(const char *const *paths, size_t npaths, const struct ingest_opts *o,
	       struct ingest_sink *sink, struct ingest_result *res, struct gl_err *err)
{
	struct source **open = NULL;
	struct waiting *wait = NULL;
	struct pool pl = { 0 };
	size_t nsrc = 0, nopen = 0, open_alloc = 0, nwait = 0, wait_alloc = 0, wpos = 0;
	size_t chunk_bytes, in_cap;
	unsigned window;
	int rc = 0;
	long ncpu;
	bool lazy;

	for (size_t i = 0; i < npaths; i++)
		expand(res, paths[i], 0);
	/* a stream is read once, into a copy that each pass reads (spool.h) */
	for (size_t i = 0; i < res->nr; i++)
		if (res->inputs[i].stream && !res->inputs[i].skip_reason[0])
			spool_input(&res->inputs[i], o);
	/* kernel logs first: placed by their anchors they are zoned evidence;
	 * then zones, so that logs placed by content follow their reference */
	place_kernel(res, o);
	place_zones(res, o);
	place_timeless(res, o);
	lazy = res->nr > MAP_MAX_INPUTS;
	in_cap = res->nr > 8 ? 16 * 1024 : 0;

	ncpu = o->threads > 0 ? o->threads : sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 1)
		ncpu = 1;
	if (ncpu > 64)
		ncpu = 64;
	pl.opts = o;
	pthread_mutex_init(&pl.mu, NULL);
	pthread_cond_init(&pl.job_cv, NULL);
	pthread_cond_init(&pl.done_cv, NULL);
	/*
	 * One worker per CPU but one: the main thread (merge, timeline,
	 * analysis) is the critical path and keeps a CPU to itself, and it
	 * parses the next chunk itself when no worker has started it
	 * (pool_wait), so no CPU waits idle.  One CPU: no workers at all.
	 */
	pl.nthreads = (int)ncpu - 1;
	pl.threads = xcalloc((size_t)(pl.nthreads ? pl.nthreads : 1), sizeof(*pl.threads));
	for (int i = 0; i < pl.nthreads; i++)
		if (pthread_create(&pl.threads[i], NULL, worker_main, &pl)) {
			pl.nthreads = i;
			break;
		}

	/*
	 * The open sources (a list) and the inputs that wait for the merge to
	 * reach their first record (an array sorted by that time): a source
	 * is allocated when it is opened and freed when it is finished, so
	 * only inputs that overlap in time hold one, and each record costs a
	 * look at the open sources only (100000 inputs in a row were one
	 * struct source each to the end, and a pass over all of them per
	 * record).
	 */
	for (size_t i = 0; i < res->nr; i++) {
		struct source *s = xcalloc(1, sizeof(*s));
		struct input_stat *st = &res->inputs[i], before = *st;
		s->order = i;
		if (!open_source(s, st, o, !lazy, in_cap)) {
			source_release(s);
			free(s);
			continue;
		}
		nsrc++;
		if (!lazy) {
			ALLOC_GROW(open, nopen + 1, open_alloc);
			open[nopen++] = s;
			continue;
		}
		/*
		 * Many inputs (a directory of daily logs): find when each one
		 * starts from its first 64 KiB, then close it until the merge
		 * gets there, so that only inputs that overlap in time hold a
		 * file, buffers and a decompressor at once.
		 */
		source_start(s, 1, &pl, PRESCAN_BYTES, NULL);
		ALLOC_GROW(wait, nwait + 1, wait_alloc);
		wait[nwait].t_first = source_peek(s, &pl, PRESCAN_BYTES, o, NULL) ? s->next->t_ns : INT64_MIN;
		wait[nwait].st = st;
		wait[nwait].order = i;
		nwait++;
		source_release(s);
		free(s);
		{
			const struct format *fmt = st->format;
			keep_sniffed(&before, st);
			*st = before;	/* read again from the start when opened */
			st->format = fmt;	/* known now (sink->begin), set again then */
		}
	}
	if (nwait)
		qsort(wait, nwait, sizeof(*wait), cmp_waiting);

	if (nsrc == 1 && nopen == 1)
		open[0]->huge_batches = true;
	if (sink->begin)
		sink->begin(sink->ud, res);

	/* Keep the bytes in flight within budget whatever the number of inputs. */
	chunk_bytes = o->chunk_bytes ? o->chunk_bytes : DEFAULT_CHUNK;
	if (!o->chunk_bytes) {
		if (nsrc > 1 && chunk_bytes * 2 * nsrc > INFLIGHT_BUDGET)
			chunk_bytes = INFLIGHT_BUDGET / (2 * nsrc);
		if (chunk_bytes < 4 * 1024)
			chunk_bytes = 4 * 1024;	/* a longer line grows its chunk */
	}	/* an explicit size (tests, the fuzzer) is taken as it is: seams everywhere */
	/*
	 * Chunks in flight per input: enough for every worker to have one and
	 * the main thread one, and no more.  Each slot's records take a huge
	 * page the kernel zeroes on first touch: on two CPUs, eight slots
	 * spent 7 % of the run's CPU in clear_page, four spend 0.8 %.
	 */
	window = (unsigned)(INFLIGHT_BUDGET / (chunk_bytes * (nsrc ? nsrc : 1)));
	if (window > (unsigned)ncpu + 2)
		window = (unsigned)ncpu + 2;
	if (window < 2)
		window = 2;
	if (window > 8)
		window = 8;

	for (size_t i = 0; i < nopen; i++)
		source_start(open[i], window, &pl, chunk_bytes, err);

	for (;;) {
		struct source *best = NULL;
		int64_t best_t = 0;
		/* the earliest record; of equal times, by path (below) */
		for (size_t i = 0; i < nopen; i++) {
			struct source *s = open[i];
			int64_t t;
			if (!source_peek(s, &pl, chunk_bytes, o, err)) {
				source_release(s);	/* finished: free it now */
				free(s);
				open[i--] = open[--nopen];
				continue;
			}
			/* records of one time from several inputs: by path, not by
			 * the order the inputs were given in (the last reading of a
			 * time is the one a GPU's state keeps); one file given twice:
			 * the first given */
			t = s->next->t_ns;
			if (!best || t < best_t ||
			    (t == best_t && (strcmp(s->st->path, best->st->path) < 0 ||
					     (!strcmp(s->st->path, best->st->path) && s->order < best->order)))) {
				best = s;
				best_t = t;
			}
		}
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
			source_start(s, window, &pl, chunk_bytes, err);
			ALLOC_GROW(open, nopen + 1, open_alloc);
			open[nopen++] = s;
			continue;
		}
		if (!best)
			break;
		{
			struct rec *r = best->next;
			struct input_stat *st = best->st;
			if (r->kind == REC_ANCHOR) {
				best->have_head = false;	/* used by the pre-pass; no sink sees it */
				if (!st->time_basis && st->basis[0])
					st->time_basis = st->basis;
				continue;
			}
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
			best->have_head = false;
			rc = sink->rec(sink->ud, st, r, best->head_batch);
			if (rc)
				break;
		}
	}

	pthread_mutex_lock(&pl.mu);
	pl.stop = true;
	pthread_cond_broadcast(&pl.job_cv);
	pthread_mutex_unlock(&pl.mu);
	for (int i = 0; i < pl.nthreads; i++)
		pthread_join(pl.threads[i], NULL);
	free(pl.threads);
	pthread_mutex_destroy(&pl.mu);
	pthread_cond_destroy(&pl.job_cv);
	pthread_cond_destroy(&pl.done_cv);
	for (size_t i = 0; i < nopen; i++) {
		source_release(open[i]);
		free(open[i]);
	}
	free(open);
	free(wait);
	for (size_t i = 0; i < res->nr; i++) {
		struct input_stat *st = &res->inputs[i];
		if (st->zone_note) {
			const char *tb = st->time_basis ? st->time_basis : "timestamps in the file";
			size_t n = strlen(tb) + strlen(st->zone_note) + 3;
			char *t = xmalloc(n);
			snprintf(t, n, "%s; %s", tb, st->zone_note);
			free(st->time_note);
			st->time_note = t;
			st->time_basis = st->time_note;
		}
		if (st->spool_cut && st->format && !st->skip_reason[0])
			snprintf(st->skip_reason, sizeof(st->skip_reason),
				 "stopped early: a stream longer than %llu bytes (GPUTALLY_SPOOL_MAX) is read up to "
				 "its last line before that size", (unsigned long long)spool_limit());
		spool_release(st);	/* the copy is read: give its disk back now */
	}
	(void)err;
	return rc;
}

void ingest_result_release(struct ingest_result *res)
{
	for (size_t i = 0; i < res->nr; i++) {
		free(res->inputs[i].path);
		free(res->inputs[i].placed_ns);
		free(res->inputs[i].columns);
		anc_plan_free(res->inputs[i].anchor);
		spool_release(&res->inputs[i]);
		free(res->inputs[i].zone_note);
		free(res->inputs[i].tod_note);
		free(res->inputs[i].time_note);
	}
	free(res->inputs);
	memset(res, 0, sizeof(*res));
}
