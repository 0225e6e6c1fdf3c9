/* SPDX-License-Identifier: MIT */
/*
 * PyTorch profiler (Kineto) Chrome trace JSON, read as a stream
 * (formats.md section 4).  The top-level object is walked by a small state
 * machine; each key, each metadata value and each event is one "unit"
 * tokenized by util/json from a contiguous buffer.  A unit cut by the end of
 * a piece is kept (carry) and finished with the next piece, so memory is one
 * event, never the file.  Only kernel, memcpy, memset, runtime-call, step
 * and window events become records; the rest are validated and counted.
 *
 * With more than one thread (ingest_opts.threads), the events are parsed
 * on several: see "parallel events" below.
 */
#include "formats/format.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/reader.h"
#include "util/json.h"
#include "util/workpool.h"
#include "util/xalloc.h"

/* The longest single value (an event, a metadata value) kept whole. */
#define MAX_UNIT (64 * 1024 * 1024)
/* The end of a file searched first for a baseTimeNanoseconds written after
 * the events (see look_ahead()). */
#define TAIL_BYTES (1024 * 1024)
/* An event's ts below this (ns, 1973-03-03) is relative to a base, not epoch
 * time: current Kineto writes ts relative to baseTimeNanoseconds, old traces
 * absolute microseconds since 1970 (formats.md 4.3). */
#define REL_TS_MAX_NS 100000000000000000LL

enum top {
	T_START,	/* '{' or '[' */
	T_OBJ_FIRST,	/* a key or '}' */
	T_OBJ_KEY,	/* a key after ',' */
	T_COLON,
	T_VALUE,	/* the value of the key in `key` */
	T_OBJ_AFTER,	/* ',' or '}' */
	T_EV_FIRST,	/* an event or ']' */
	T_EV_NEXT,	/* an event after ',' */
	T_EV_AFTER,	/* ',' or ']' */
	T_END,		/* the document is complete: only blanks may follow */
	T_FAILED,	/* a fatal error was reported: the rest is not read */
};

enum key_id { K_OTHER, K_EVENTS, K_BASE };

/* Where the parallel reading of traceEvents stands (one file). */
enum par_mode {
	P_NONE,		/* one thread: everything through parse_units() */
	P_WANT,		/* hand the events over after the first one */
	P_SPLIT,	/* the events are cut into jobs for the parser threads */
	P_DONE,		/* the events are over: the rest is read in line */
};

struct par;

struct kineto {
	uint8_t top;
	uint8_t key;		/* enum key_id of the current top-level key */
	bool bare;		/* a top-level array of events */
	bool tolerant;
	bool have_base, events_begun, last_nl;
	bool probe;		/* look_ahead()'s pass: find the base, emit nothing */
	bool looked_ahead;	/* look_ahead() ran (or need not) */
	bool base_ahead;	/* base_ns came from look_ahead(), before its key */
	int64_t base_ns;
	uint64_t off;		/* absolute offset of the next unparsed byte */
	uint64_t line;		/* its line (1-based) */
	uint64_t line_off;	/* absolute offset where that line starts */
	char *carry;		/* an unfinished unit, starting at `off` */
	size_t carry_n, carry_cap;
	uint64_t events, used;
	uint8_t par_mode;	/* enum par_mode */
	struct par *par;	/* P_SPLIT, P_DONE: the jobs and their threads */
	char scratch[4096];	/* unescaped names */
};

static int par_threads(const struct ingest_opts *o);
static void par_free(struct kineto *k);
static void look_ahead(struct parse_ctx *ctx, struct kineto *k);

static void kt_init(void *state, const struct ingest_opts *o)
{
	struct kineto *k = state;
	k->line = 1;
	k->tolerant = o && o->tolerant;
	k->par_mode = par_threads(o) > 1 ? P_WANT : P_NONE;
}

static void kt_fini(void *state)
{
	struct kineto *k = state;
	free(k->carry);
	k->carry = NULL;
	par_free(k);
}

/* Where parsing of buf (whose first byte is at k->off) stands. */
struct cur {
	const char *buf;
	uint64_t line, line_off;
};

static uint32_t col_of(const struct kineto *k, const struct cur *c, const char *at)
{
	uint64_t abs = k->off + (uint64_t)(at - c->buf);
	return (uint32_t)(abs - c->line_off + 1);
}

static void report(struct parse_ctx *ctx, struct kineto *k, const struct cur *c, const char *at,
		   bool fatal, const char *why, const char *what)
{
	struct batch *b = ctx->out;
	if (k->probe) {		/* the main pass reports it */
		if (fatal)
			k->top = T_FAILED;
		return;
	}
	ctx->line = c->line;
	ctx_bad(ctx, col_of(k, c, at), "%s%s%s", why, what ? ": " : "", what ? what : "");
	if (fatal) {
		b->recs[b->nr - 1].ev = BAD_FATAL;
		k->top = T_FAILED;
	}
}

/* Absorb the lexer's line count after a unit parsed from c->buf. */
static void take_lines(struct kineto *k, struct cur *c, const struct json_lex *lx)
{
	c->line = lx->line;
	if (lx->line_start)
		c->line_off = k->off + (uint64_t)(lx->line_start - c->buf);
}

static void lex_start(struct json_lex *lx, const struct kineto *k, const struct cur *c,
		      const char *p, const char *end)
{
	json_lex_init(lx, p, end, false);
	lx->trailing_comma = k->tolerant;
	lx->line = c->line;
}

/* ---- one event ---------------------------------------------------------- */

struct ev {
	char ph;
	struct slice cat, name;
	bool name_esc, has_ts, has_dur, pid_num, tid_num;
	int64_t ts_ns, dur_ns, pid, tid;
	int64_t device, stream, corr;	/* INT64_MIN: absent */
	const char *bad_at, *bad;
};

static bool key_is(struct slice s, const char *lit)
{
	size_t n = strlen(lit);
	return s.n == n && !memcmp(s.p, lit, n);
}

static void num_field(struct json_lex *lx, enum json_tok t, int scale, int64_t *out, bool *has,
		      struct ev *e, const char *name)
{
	int rc;
	if (t != JT_NUM) {
		if (!e->bad) {
			e->bad_at = lx->p;
			e->bad = name;
		}
		json_skip(lx, t);
		return;
	}
	rc = json_num_scaled(lx->tok, scale, out);
	if (rc < 0 || (rc > 0 && scale == 0)) {
		if (!e->bad) {
			e->bad_at = lx->tok.p;
			e->bad = rc < 0 ? "a number too large for 64 bits" : "a fraction where an integer belongs";
		}
		return;
	}
	if (has)
		*has = true;
}

/* The value of "pid" or "tid": a number, or a string (the tagged case). */
static void id_field(struct json_lex *lx, enum json_tok t, int64_t *out, bool *is_num, struct ev *e)
{
	*is_num = false;
	if (t == JT_STR)
		return;
	num_field(lx, t, 0, out, is_num, e, "pid or tid that is neither a number nor a string");
}

/*
 * args.stream: a number from CUDA; ROCm traces (HIP) may write it as a
 * string (issue 36).  "7" is 7, "0x7f3a..." its value, any other string a
 * stable id of its own (FNV-1a, 62 bits): streams are told apart, never
 * merged, and the event is not skipped.
 */
static void stream_field(struct json_lex *lx, enum json_tok t, struct ev *e)
{
	struct slice s;
	const char *p, *end;
	uint64_t h = 1469598103934665603u, x;

	if (t != JT_STR) {
		num_field(lx, t, 0, &e->stream, NULL, e, "args.stream is neither a number nor a string");
		return;
	}
	s = lx->tok;
	p = s.p;
	end = s.p + s.n;
	if (s.n && !slice_to_i64(s, &e->stream) && e->stream >= 0)
		return;
	if (s.n > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && !scan_hex_u64(&p, end, &x) &&
	    p == end) {
		e->stream = (int64_t)(x & INT64_MAX);
		return;
	}
	for (size_t i = 0; i < s.n; i++)
		h = (h ^ (uint8_t)s.p[i]) * 1099511628211u;
	e->stream = (int64_t)(h >> 2);
}

static int parse_args(struct json_lex *lx, struct ev *e)
{
	for (;;) {
		enum json_tok t = json_next(lx);
		struct slice key;
		if (t == JT_OBJ_END)
			return 1;
		if (t != JT_KEY)
			return t;
		key = lx->tok;
		t = json_next(lx);
		if (t < 0)
			return t;
		if (key_is(key, "device"))
			num_field(lx, t, 0, &e->device, NULL, e, "args.device is not a number");
		else if (key_is(key, "stream"))
			stream_field(lx, t, e);
		else if (key_is(key, "correlation"))
			num_field(lx, t, 0, &e->corr, NULL, e, "args.correlation is not a number");
		else if ((t = json_skip(lx, t)) < 0)
			return t;
	}
}

/* Tokenize one event object; 1 when complete, else the lexer's code. */
static int parse_event(struct json_lex *lx, struct ev *e)
{
	enum json_tok t = json_next(lx);

	memset(e, 0, sizeof(*e));
	e->device = e->stream = e->corr = INT64_MIN;
	if (t < 0)
		return t;
	if (t != JT_OBJ) {
		e->bad_at = lx->p;
		e->bad = "a trace event that is not an object";
		t = json_skip(lx, t);
		return t < 0 ? t : 1;
	}
	for (;;) {
		struct slice key;
		t = json_next(lx);
		if (t == JT_OBJ_END)
			return 1;
		if (t != JT_KEY)
			return t;
		key = lx->tok;
		if ((t = json_next(lx)) < 0)
			return t;
		switch (key.n) {
		case 2:
			if (key_is(key, "ph") && t == JT_STR) {
				e->ph = lx->tok.n == 1 ? lx->tok.p[0] : '?';
				continue;
			}
			if (key_is(key, "ts")) {
				num_field(lx, t, 3, &e->ts_ns, &e->has_ts, e, "ts is not a number");
				continue;
			}
			break;
		case 3:
			if (key_is(key, "cat") && t == JT_STR) {
				e->cat = lx->tok;
				continue;
			}
			if (key_is(key, "pid")) {
				id_field(lx, t, &e->pid, &e->pid_num, e);
				continue;
			}
			if (key_is(key, "tid")) {
				id_field(lx, t, &e->tid, &e->tid_num, e);
				continue;
			}
			if (key_is(key, "dur")) {
				num_field(lx, t, 3, &e->dur_ns, &e->has_dur, e, "dur is not a number");
				continue;
			}
			break;
		case 4:
			if (key_is(key, "name") && t == JT_STR) {
				e->name = lx->tok;
				e->name_esc = lx->tok_esc;
				continue;
			}
			if (key_is(key, "args") && t == JT_OBJ) {
				if ((t = parse_args(lx, e)) < 0)
					return t;
				continue;
			}
			break;
		}
		if ((t = json_skip(lx, t)) < 0)
			return t;
	}
}

/* slice_eq_nocase() with the literal's length folded at the call: an event's
 * category is tried against up to ten names, most of another length */
static inline bool eq_nocase(struct slice s, const char *lit)
{
	size_t n = strlen(lit);
	return s.n == n && strncasecmp(s.p, lit, n) == 0;
}

static inline bool cat_is(struct slice cat, const char *a, const char *b)
{
	return eq_nocase(cat, a) || (b && eq_nocase(cat, b));
}

static uint32_t name_str(struct parse_ctx *ctx, struct kineto *k, const struct ev *e)
{
	struct slice s = e->name;
	if (e->name_esc) {
		s.n = json_unescape(e->name, k->scratch, sizeof(k->scratch));
		s.p = k->scratch;
	}
	return ctx_str(ctx, s);
}

static void emit_event(struct parse_ctx *ctx, struct kineto *k, const struct cur *c,
		       const char *start, const struct ev *e)
{
	int kind = -1;
	struct rec *r;
	int64_t t;

	k->events++;
	if (k->probe)
		return;
	if (!k->have_base && !k->looked_ahead && !k->bare && e->has_ts && e->ts_ns < REL_TS_MAX_NS)
		look_ahead(ctx, k);
	if (e->bad) {
		report(ctx, k, c, e->bad_at ? e->bad_at : start, false, "event skipped", e->bad);
		return;
	}
	if (!e->ph) {
		report(ctx, k, c, start, false, "event skipped", "an event without ph");
		return;
	}
	if (e->ph != 'X')
		return;
	if (cat_is(e->cat, "kernel", NULL))
		kind = TR_KERNEL;
	else if (cat_is(e->cat, "gpu_memcpy", "memcpy"))
		kind = TR_MEMCPY;
	else if (cat_is(e->cat, "gpu_memset", "memset"))
		kind = TR_MEMSET;
	else if (cat_is(e->cat, "cuda_runtime", "runtime") || cat_is(e->cat, "cuda_driver", NULL))
		kind = TR_RUNTIME;
	else if ((cat_is(e->cat, "user_annotation", "cpu_op") || cat_is(e->cat, "operator", NULL)) &&
		 slice_starts_with(e->name, "ProfilerStep#"))
		kind = TR_STEP;
	else if (cat_is(e->cat, "Trace", NULL))
		kind = TR_WINDOW;
	else if (cat_is(e->cat, "overhead", NULL))
		kind = TR_OVERHEAD;
	if (!e->has_ts || !e->has_dur) {
		report(ctx, k, c, start, false, "event skipped",
		       e->has_ts ? "an X event without dur" : "an event without ts");
		return;
	}
	if (kind < 0)
		return;
	if (__builtin_add_overflow(e->ts_ns, k->have_base ? k->base_ns : 0, &t)) {
		report(ctx, k, c, start, false, "event skipped", "ts + baseTimeNanoseconds overflows");
		return;
	}
	if (kind <= TR_MEMSET && e->device == INT64_MIN && !e->pid_num) {
		report(ctx, k, c, start, false, "event skipped",
		       "GPU activity with no device (no args.device and a pid that is not a number)");
		return;
	}
	ctx->line = c->line;
	r = ctx_rec(ctx, REC_TRACE);
	r->ev = (uint8_t)kind;
	r->t_ns = t;
	r->time_kind = TK_ABS;
	r->pid = -1;	/* a Kineto trace is one process: correlation ids match within the file */
	r->tr.dur_ns = e->dur_ns < 0 ? 0 : e->dur_ns;
	r->tr.corr = e->corr == INT64_MIN ? -1 : e->corr;
	r->tr.stream = -1;
	if (kind <= TR_MEMSET) {
		int64_t dev = e->device != INT64_MIN ? e->device : e->pid;
		r->gpu_index = dev >= 0 && dev < INT32_MAX ? (int32_t)dev : -1;
		r->tr.stream = e->stream != INT64_MIN ? e->stream : e->tid_num ? e->tid : -1;
	}
	if (kind == TR_STEP) {
		const char *p = e->name.p + 13, *end = e->name.p + e->name.n;
		int64_t n = 0;
		r->tr.corr = -1;
		if (p < end && !scan_i64(&p, end, &n) && p == end)
			r->tr.corr = n;
	}
	r->name = e->name.p ? name_str(ctx, k, e) : STR_NONE;
	k->used++;
}

/* ---- the top level --------------------------------------------------------- */

static int skip_blanks(struct kineto *k, struct cur *c, const char **pp, const char *end)
{
	const char *p = *pp;
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')) {
		if (*p == '\n') {
			c->line++;
			c->line_off = k->off + (uint64_t)(p + 1 - c->buf);
		}
		p++;
	}
	*pp = p;
	return p < end;
}

/* One top-level key or value unit at p; returns bytes used, 0 if cut. */
static size_t parse_key(struct parse_ctx *ctx, struct kineto *k, struct cur *c, const char *p,
			const char *end)
{
	struct json_lex lx;
	enum json_tok t;

	lex_start(&lx, k, c, p, end);
	json_lex_expect_key(&lx);
	t = json_next(&lx);
	if (t == JT_MORE)
		return 0;
	if (t != JT_KEY) {
		report(ctx, k, c, lx.p, true, "bad trace JSON", lx.err ? lx.err : "expected a key");
		return (size_t)(end - p);
	}
	k->key = key_is(lx.tok, "traceEvents") ? K_EVENTS :
		 key_is(lx.tok, "baseTimeNanoseconds") ? K_BASE : K_OTHER;
	return (size_t)(lx.p - p);
}

static size_t parse_value(struct parse_ctx *ctx, struct kineto *k, struct cur *c, const char *p,
			  const char *end)
{
	struct json_lex lx;
	enum json_tok t;
	int rc;

	int64_t base_read = 0;

	lex_start(&lx, k, c, p, end);
	t = json_next(&lx);
	if (t >= 0 && k->key == K_BASE) {
		if (t != JT_NUM || json_num_scaled(lx.tok, 0, &base_read)) {
			report(ctx, k, c, p, true, "bad trace", "baseTimeNanoseconds is not a 64-bit integer");
			return (size_t)(end - p);
		}
		if (k->probe) {
			/* found: the rest of the file is not needed */
			k->base_ns = base_read;
			k->have_base = true;
			k->top = T_FAILED;
			return (size_t)(end - p);
		}
		if (k->base_ahead && k->base_ns != base_read) {
			report(ctx, k, c, p, true, "bad trace", "a second baseTimeNanoseconds, unlike the first");
			return (size_t)(end - p);
		}
		if (k->events_begun && !k->base_ahead) {
			report(ctx, k, c, p, true, "bad trace",
			       !strcmp(ctx->src, "-") ?
			       "baseTimeNanoseconds comes after traceEvents, and standard input cannot be read twice (give the file)" :
			       "baseTimeNanoseconds comes after traceEvents whose first ts looked absolute (the times read were taken as absolute)");
			return (size_t)(end - p);
		}
		k->base_ns = base_read;
		k->have_base = true;
		rc = 1;
	} else {
		rc = t < 0 ? t : json_skip(&lx, t);
	}
	if (rc == JT_MORE)
		return 0;
	if (rc < 0) {
		report(ctx, k, c, lx.p, true, "bad trace JSON", lx.err);
		return (size_t)(end - p);
	}
	take_lines(k, c, &lx);
	return (size_t)(lx.p - p);
}

static size_t parse_one_event(struct parse_ctx *ctx, struct kineto *k, struct cur *c,
			      const char *p, const char *end)
{
	struct json_lex lx;
	struct ev e;
	int rc;

	lex_start(&lx, k, c, p, end);
	rc = parse_event(&lx, &e);
	if (rc == JT_MORE)
		return 0;
	if (rc < 0) {
		report(ctx, k, c, lx.p, true, "bad trace JSON", lx.err);
		return (size_t)(end - p);
	}
	emit_event(ctx, k, c, p, &e);
	take_lines(k, c, &lx);
	return (size_t)(lx.p - p);
}

/*
 * Parse as much of buf as forms complete units; returns the bytes used.
 * The rest (a unit cut by the end of buf) is for the caller to keep.
 * With hand_off, it stops after the first event of a P_WANT file, which
 * becomes P_SPLIT: the rest is then the splitter's.
 */
static size_t parse_units(struct parse_ctx *ctx, struct kineto *k, const char *buf, size_t n,
			  bool hand_off)
{
	const char *p = buf, *end = buf + n;
	struct cur c = { buf, k->line, k->line_off };

	while (k->top != T_FAILED && skip_blanks(k, &c, &p, end)) {
		char ch = *p;
		size_t used = 1;
		switch (k->top) {
		case T_START:
			if (ch == '{')
				k->top = T_OBJ_FIRST;
			else if (ch == '[')
				k->bare = true, k->events_begun = true, k->top = T_EV_FIRST;
			else
				report(ctx, k, &c, p, true, "not a trace", "expected '{' or '['");
			break;
		case T_OBJ_FIRST:
		case T_OBJ_KEY:
			if (ch == '}' && (k->top == T_OBJ_FIRST || k->tolerant)) {
				k->top = T_END;
			} else if (ch == '"') {
				if (!(used = parse_key(ctx, k, &c, p, end)))
					goto cut;
				if (k->top != T_FAILED)
					k->top = T_COLON;
			} else {
				report(ctx, k, &c, p, true, "bad trace JSON",
				       ch == '}' ? "trailing comma before '}'" : "expected a key");
			}
			break;
		case T_COLON:
			if (ch == ':')
				k->top = T_VALUE;
			else
				report(ctx, k, &c, p, true, "bad trace JSON", "expected ':'");
			break;
		case T_VALUE:
			if (k->key == K_EVENTS) {
				if (ch != '[') {
					report(ctx, k, &c, p, true, "bad trace", "traceEvents is not an array");
					break;
				}
				k->events_begun = true;
				k->top = T_EV_FIRST;
				break;
			}
			if (!(used = parse_value(ctx, k, &c, p, end)))
				goto cut;
			if (k->top != T_FAILED)
				k->top = T_OBJ_AFTER;
			break;
		case T_OBJ_AFTER:
			if (ch == ',')
				k->top = T_OBJ_KEY;
			else if (ch == '}')
				k->top = T_END;
			else
				report(ctx, k, &c, p, true, "bad trace JSON", "expected ',' or '}'");
			break;
		case T_EV_FIRST:
		case T_EV_NEXT:
			if (ch == ']' && (k->top == T_EV_FIRST || k->tolerant)) {
				k->top = k->bare ? T_END : T_OBJ_AFTER;
				break;
			}
			if (ch == ']') {
				report(ctx, k, &c, p, true, "bad trace JSON", "trailing comma before ']'");
				break;
			}
			if (!(used = parse_one_event(ctx, k, &c, p, end)))
				goto cut;
			if (k->top != T_FAILED)
				k->top = T_EV_AFTER;
			if (hand_off && k->par_mode == P_WANT && k->top == T_EV_AFTER) {
				k->par_mode = P_SPLIT;
				p += used;
				goto cut;
			}
			break;
		case T_EV_AFTER:
			if (ch == ',')
				k->top = T_EV_NEXT;
			else if (ch == ']')
				k->top = k->bare ? T_END : T_OBJ_AFTER;
			else
				report(ctx, k, &c, p, true, "bad trace JSON", "expected ',' or ']' between events");
			break;
		case T_END:
			report(ctx, k, &c, p, true, "bad trace JSON", "text after the end of the document");
			break;
		}
		p += used;
	}
	if (k->top == T_FAILED)
		p = end;
cut:
	k->line = c.line;
	k->line_off = c.line_off;
	k->off += (uint64_t)(p - buf);
	return (size_t)(p - buf);
}

static void keep(struct parse_ctx *ctx, struct kineto *k, const char *p, size_t n)
{
	if (k->carry_n + n > MAX_UNIT) {
		struct cur c = { p, k->line, k->line_off };
		report(ctx, k, &c, p, true, "bad trace", "a single JSON value longer than 64 MiB");
		k->carry_n = 0;
		return;
	}
	ALLOC_GROW(k->carry, k->carry_n + n, k->carry_cap);
	memcpy(k->carry + k->carry_n, p, n);
	k->carry_n += n;
}

static void finish(struct parse_ctx *ctx, struct kineto *k)
{
	struct rec *r;

	if (k->top != T_END && k->top != T_FAILED) {
		struct cur c = { k->carry ? k->carry : "", k->line, k->line_off };
		char msg[160];
		snprintf(msg, sizeof(msg), "the file ends %s (%llu complete events before the cut)",
			 k->carry_n ? "inside the value that starts here" : "before the JSON is closed",
			 (unsigned long long)k->events);
		if (k->tolerant) {
			report(ctx, k, &c, c.buf, false, "truncated trace, complete events kept (--tolerant)", msg);
		} else {
			report(ctx, k, &c, c.buf, true, "truncated trace (--tolerant reads the events before the cut)", msg);
		}
	}
	ctx->line = k->line - (k->last_nl ? 1 : 0);
	r = ctx_rec(ctx, REC_TRACE);
	r->ev = TR_SUMMARY;
	r->t_ns = INT64_MIN;	/* the driver gives it the time of the record before */
	r->time_kind = TK_ABS;
	r->pid = -1;
	r->tr.dur_ns = 0;
	r->tr.corr = (int64_t)k->events;
	r->tr.stream = (int64_t)k->used;
	ctx->line = k->line - (k->last_nl ? 1 : 0);
}

/*
 * Read p[0, n) in line: finish the unit cut at the end of the bytes before,
 * parse what follows, keep a unit cut at the end.  Returns the bytes taken,
 * n unless the events were handed over to the splitter (parse_units).
 */
static size_t seq_feed(struct parse_ctx *ctx, struct kineto *k, const char *p, size_t n)
{
	size_t pos = 0;

	if (k->top == T_FAILED)
		return n;
	/* finish the unit cut at the end of the last piece, growing it by
	 * doubling so that a long one is not re-tokenized byte by byte */
	while (k->carry_n && pos < n) {
		size_t orig = k->carry_n, grow = n - pos, used;
		if (grow > (orig > 4096 ? orig : 4096))
			grow = orig > 4096 ? orig : 4096;
		keep(ctx, k, p + pos, grow);
		if (k->top == T_FAILED) {
			pos = n;
			break;
		}
		pos += grow;
		used = parse_units(ctx, k, k->carry, k->carry_n, false);
		if (used >= orig) {
			/* the cut unit is done; go on in the piece itself */
			pos -= k->carry_n - used;
			k->carry_n = 0;
			break;
		}
		memmove(k->carry, k->carry + used, k->carry_n - used);
		k->carry_n -= used;
	}
	if (pos < n) {
		uint8_t mode = k->par_mode;
		size_t used = parse_units(ctx, k, p + pos, n - pos, true);
		if (mode == P_WANT && k->par_mode == P_SPLIT)
			return pos + used;
		if (pos + used < n)
			keep(ctx, k, p + pos + used, n - pos - used);
	}
	if (k->top == T_FAILED)
		k->carry_n = 0;
	return n;
}

/* ---- parallel events ------------------------------------------------------ */

/*
 * With several threads, the bytes of traceEvents are cut into jobs of whole
 * events by a splitter on the calling thread, which only follows strings,
 * escapes and brackets to find where an event ends at the top of the array;
 * parser threads run the same parse_units() on each job, from the state the
 * file is in at the job's start (after an event, at a known offset and
 * line), into a batch of their own; the calling thread appends the batches
 * in file order.  The header before traceEvents and everything after it
 * are read in line, as with one thread.
 *
 * Nothing trusts the splitter: a job's result is taken only when the file
 * stands, after the jobs before it, exactly where the job was started from,
 * and the job ended after an event having used all its bytes (or hit a
 * fatal error, which one thread would have hit the same way).  Otherwise
 * the job's bytes are read again in line.  So the records, their order,
 * the counts and the messages are those of one thread, whatever the input.
 */

#define JOB_BYTES (512 * 1024)
/* An event longer than this ends the splitting: the rest is read in line. */
#define MAX_FILL (16 * 1024 * 1024)
/* Bytes taken from a piece at a time past the target: bounds the tail
 * moved to the next job when a cut is found. */
#define SLICE (64 * 1024)
#define MAX_HELPERS 63
/*
 * Files split at once in one run: as many as threads (workpool_claim).
 * Each holds its jobs (some 5 MB with two threads), and a directory of
 * ranks is read all at once by the merge; the others are read in line.
 */

/* Test seams (tests/unit/test_kineto.c compiles this file in): no-ops here. */
#ifndef KT_TEST_AFTER_SUBMIT
#define KT_TEST_AFTER_SUBMIT(pp) ((void)0)
#endif
#ifndef KT_TEST_REREAD
#define KT_TEST_REREAD() ((void)0)
#endif

struct job {
	struct wp_job wj;		/* parsing it, in the run's pool */
	const struct par *pp;
	char *buf;
	size_t n, cap;
	uint64_t off, line, line_off;	/* where buf[0] is in the file */
	/* the result */
	struct batch b;
	uint8_t top;
	size_t used;
	uint64_t end_off, end_line, end_line_off, events, recs;
};

struct par {
	struct workpool *pool;		/* the run's (parse_ctx.pool), claimed */
	struct job *ring;
	unsigned cap;
	uint64_t head, tail;		/* oldest not appended, next free */
	const struct ingest_opts *opts;
	const char *src;
	struct kineto base;		/* what every job starts from but the position */
	size_t target;
	/* the job being filled: fill[0] is at fill_off, a point after an event */
	char *fill;
	size_t fill_n, fill_cap;
	uint64_t fill_off, fill_line, fill_line_off;
	/* the splitter, inside fill */
	size_t sp_pos, sp_cut;		/* next byte to scan; just after the last event seen (0: none) */
	unsigned sp_depth;
	bool sp_str;
	uint64_t sp_line, sp_line_off;
};

static int par_threads(const struct ingest_opts *o)
{
	long n = o && o->threads > 0 ? o->threads : sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	return n > MAX_HELPERS + 1 ? MAX_HELPERS + 1 : (int)n;
}

/* Parse one job into its batch (any thread). */
static void job_parse(const struct par *pp, struct job *j)
{
	struct kineto *kw = xmalloc(sizeof(*kw));
	struct parse_ctx c = { 0 };

	*kw = pp->base;
	kw->top = T_EV_AFTER;
	kw->off = j->off;
	kw->line = j->line;
	kw->line_off = j->line_off;
	j->b.nr = j->b.strs_len = 0;
	j->b.records = j->b.bad = j->b.lines = 0;
	for (int i = 0; i < 4; i++)
		j->b.last_str[i] = STR_NONE;
	c.opts = pp->opts;
	c.src = pp->src;
	c.state = kw;
	c.out = &j->b;
	c.line = j->line;
	j->used = parse_units(&c, kw, j->buf, j->n, false);
	j->top = kw->top;
	j->end_off = kw->off;
	j->end_line = kw->line;
	j->end_line_off = kw->line_off;
	j->events = kw->events;
	j->recs = kw->used;
	free(kw);
}

/* A job of the pool: parse it (any thread). */
static void job_run(struct wp_job *w)
{
	struct job *j = (struct job *)((char *)w - offsetof(struct job, wj));

	job_parse(j->pp, j);
}

/*
 * The splitter takes over at a point after an event (parse_units hand_off);
 * false without the run's pool, or when as many files as threads are being
 * split in this run already.
 */
static bool par_start(struct parse_ctx *ctx, struct kineto *k)
{
	struct par *pp;
	int n = par_threads(ctx->opts);

	if (!ctx->pool || !workpool_claim(ctx->pool, n))
		return false;
	pp = k->par = xcalloc(1, sizeof(*pp));
	pp->pool = ctx->pool;
	pp->cap = 2 * (unsigned)n + 2;
	pp->ring = xcalloc(pp->cap, sizeof(*pp->ring));
	pp->opts = ctx->opts;
	pp->src = ctx->src;
	pp->target = ctx->opts && ctx->opts->chunk_bytes ? ctx->opts->chunk_bytes : JOB_BYTES;
	pp->base = *k;
	pp->base.carry = NULL;
	pp->base.carry_n = pp->base.carry_cap = 0;
	pp->base.par = NULL;
	pp->base.par_mode = P_NONE;
	pp->base.events = pp->base.used = 0;
	pp->fill_off = k->off;
	pp->sp_line = pp->fill_line = k->line;
	pp->sp_line_off = pp->fill_line_off = k->line_off;
	return true;
}

/* Append a parsed job's records and strings, in order. */
static void append_batch(struct batch *out, const struct batch *in)
{
	uint32_t base = (uint32_t)out->strs_len;

	ALLOC_GROW(out->recs, out->nr + in->nr, out->alloc);
	for (size_t i = 0; i < in->nr; i++) {
		struct rec *r = &out->recs[out->nr + i];
		*r = in->recs[i];
		if (r->name != STR_NONE)
			r->name += base;
		if (r->uuid != STR_NONE)
			r->uuid += base;
	}
	out->nr += in->nr;
	out->records += in->records;
	out->bad += in->bad;
	if (!in->strs_len)
		return;
	ALLOC_GROW(out->strs, out->strs_len + in->strs_len, out->strs_alloc);
	memcpy(out->strs + out->strs_len, in->strs, in->strs_len);
	out->strs_len += in->strs_len;
}

/* Take the oldest job's result into the file (see the comment above). */
static void merge_job(struct parse_ctx *ctx, struct kineto *k, struct job *j)
{
	if (k->top == T_FAILED)
		return;
	if (k->top == T_EV_AFTER && !k->carry_n && k->off == j->off && k->line == j->line &&
	    k->line_off == j->line_off &&
	    (j->top == T_FAILED || (j->top == T_EV_AFTER && j->used == j->n))) {
		append_batch(ctx->out, &j->b);
		k->top = j->top;
		k->off = j->end_off;
		k->line = j->end_line;
		k->line_off = j->end_line_off;
		k->events += j->events;
		k->used += j->recs;
		return;
	}
	KT_TEST_REREAD();
	seq_feed(ctx, k, j->buf, j->n);
}

/* Append every finished job from the oldest on; with wait, all of them. */
static void par_collect(struct parse_ctx *ctx, struct kineto *k, bool wait)
{
	struct par *pp = k->par;

	while (pp->head < pp->tail) {
		struct job *j = &pp->ring[pp->head % pp->cap];
		/* waiting, the pool parses a job no thread has started */
		if (wait)
			workpool_wait(pp->pool, &j->wj);
		else if (!workpool_done(pp->pool, &j->wj))
			break;
		merge_job(ctx, k, j);
		pp->head++;
	}
}

static void par_harvest(struct parse_ctx *ctx, struct kineto *k)
{
	par_collect(ctx, k, false);
}

/* Wait until the oldest job is parsed, parsing queued ones meanwhile. */
static void wait_oldest(struct par *pp)
{
	workpool_wait(pp->pool, &pp->ring[pp->head % pp->cap].wj);
}

/*
 * Queue fill[0, n) as a job; fill[n, fill_n) starts the next fill, at line
 * `line` whose first byte is at line_off.
 */
static void submit(struct parse_ctx *ctx, struct kineto *k, size_t n, uint64_t line,
		   uint64_t line_off)
{
	struct par *pp = k->par;
	struct job *j;
	char *buf;
	size_t cap, rest = pp->fill_n - n;

	if (pp->tail - pp->head == pp->cap) {
		/* the ring is full: the oldest job must be appended first */
		wait_oldest(pp);
		par_collect(ctx, k, false);
	}
	/* the job takes the fill buffer; the next fill gets the job's old one */
	j = &pp->ring[pp->tail % pp->cap];
	buf = j->buf;
	cap = j->cap;
	j->buf = pp->fill;
	j->cap = pp->fill_cap;
	j->n = n;
	j->off = pp->fill_off;
	j->line = pp->fill_line;
	j->line_off = pp->fill_line_off;
	pp->fill = buf;
	pp->fill_cap = cap;
	ALLOC_GROW(pp->fill, rest, pp->fill_cap);
	if (rest)
		memcpy(pp->fill, j->buf + n, rest);
	pp->fill_n = rest;
	pp->fill_off += n;
	pp->fill_line = line;
	pp->fill_line_off = line_off;
	pp->sp_pos = pp->sp_cut = 0;
	KT_TEST_AFTER_SUBMIT(pp);
	j->wj.run = job_run;
	j->pp = pp;
	pp->tail++;
	workpool_push(pp->pool, &j->wj);
}

enum sp { SP_MORE, SP_CUT, SP_END };

/* A '}' or ']' at p (in fill) seen outside strings: SP_CUT, SP_END or SP_MORE. */
static enum sp sp_close(struct par *pp, const char *b, const char *p)
{
	if (pp->sp_depth == 0) {
		pp->sp_pos = (size_t)(p - b);
		return SP_END;
	}
	if (--pp->sp_depth == 0 && *p == '}') {
		pp->sp_cut = (size_t)(p + 1 - b);
		if (pp->sp_cut >= pp->target) {
			pp->sp_pos = pp->sp_cut;
			return SP_CUT;
		}
	}
	return SP_MORE;
}

/*
 * Scan fill[from, to) a byte at a time.  Inside a string only a quote
 * matters, and it ends the string unless an odd run of backslashes
 * precedes it; the string began inside fill (a job starts between events),
 * so the run cannot reach before it.
 */
static enum sp sp_bytes(struct par *pp, size_t from, size_t to)
{
	const char *b = pp->fill, *p = b + from, *end = b + to;

	while (p < end) {
		enum sp r;
		if (pp->sp_str) {
			const char *r0;
			while (p < end && *p != '"')
				p++;
			if (p == end)
				break;
			for (r0 = p; r0 > b && r0[-1] == '\\'; r0--)
				;
			if (!((p - r0) & 1))
				pp->sp_str = false;
			p++;
			continue;
		}
		switch (*p) {
		case '"':
			pp->sp_str = true;
			break;
		case '{':
		case '[':
			pp->sp_depth++;
			break;
		case '}':
		case ']':
			if ((r = sp_close(pp, b, p)) != SP_MORE)
				return r;
			break;
		case '\n':
			pp->sp_line++;
			pp->sp_line_off = pp->fill_off + (uint64_t)(p + 1 - b);
			break;
		}
		p++;
	}
	pp->sp_pos = to;
	return SP_MORE;
}

#ifdef __SSE2__
#include <emmintrin.h>
#include <immintrin.h>

/* One 64-byte block's masks, bit i for byte i. */
struct sp_masks {
	uint64_t backslash, quote, open, close, nl;
};

/* Bit i set: byte i of the 64 in v0..v3, with the bits of `mask` kept, is c. */
static inline uint64_t eq64(__m128i v0, __m128i v1, __m128i v2, __m128i v3, char mask, char c)
{
	const __m128i k = _mm_set1_epi8(c), m = _mm_set1_epi8(mask);
	uint64_t a = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(v0, m), k));
	uint64_t b = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(v1, m), k));
	uint64_t c2 = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(v2, m), k));
	uint64_t d = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(v3, m), k));
	return a | b << 16 | c2 << 32 | d << 48;
}

/* '{' and '[' differ only in bit 5 (0x20), as do '}' and ']' */
static inline struct sp_masks masks_sse2(const char *p)
{
	const __m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)p);
	const __m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
	const __m128i v2 = _mm_loadu_si128((const __m128i *)(const void *)(p + 32));
	const __m128i v3 = _mm_loadu_si128((const __m128i *)(const void *)(p + 48));
	struct sp_masks m;

	m.backslash = eq64(v0, v1, v2, v3, '\xff', '\\');
	m.quote = eq64(v0, v1, v2, v3, '\xff', '"');
	m.open = eq64(v0, v1, v2, v3, '\xdf', '[');
	m.close = eq64(v0, v1, v2, v3, '\xdf', ']');
	m.nl = eq64(v0, v1, v2, v3, '\xff', '\n');
	return m;
}

/* Bit i: an odd number of bits set at or below i. */
static inline uint64_t prefix_xor(uint64_t x)
{
	x ^= x << 1;
	x ^= x << 2;
	x ^= x << 4;
	x ^= x << 8;
	x ^= x << 16;
	x ^= x << 32;
	return x;
}

/* The same 64 bytes two 32-byte halves at a time (AVX2). */
__attribute__((target("avx2"))) static inline uint64_t eq64_avx2(__m256i lo, __m256i hi, char mask, char c)
{
	const __m256i k = _mm256_set1_epi8(c), m = _mm256_set1_epi8(mask);
	uint64_t a = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(lo, m), k));
	uint64_t b = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(hi, m), k));
	return a | b << 32;
}

__attribute__((target("avx2"))) static inline struct sp_masks masks_avx2(const char *p)
{
	const __m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)p);
	const __m256i hi = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
	struct sp_masks m;

	m.backslash = eq64_avx2(lo, hi, '\xff', '\\');
	m.quote = eq64_avx2(lo, hi, '\xff', '"');
	m.open = eq64_avx2(lo, hi, '\xdf', '[');
	m.close = eq64_avx2(lo, hi, '\xdf', ']');
	m.nl = eq64_avx2(lo, hi, '\xff', '\n');
	return m;
}

/* prefix_xor() as one carry-less multiply by all ones. */
__attribute__((target("pclmul"))) static inline uint64_t prefix_xor_clmul(uint64_t x)
{
	return (uint64_t)_mm_cvtsi128_si64(
		_mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8((char)0xff), 0));
}

/* Newlines of the block at base below bit `below` (64: all). */
static inline void sp_lines(struct par *pp, uint64_t nl, const char *b, const char *base, unsigned below)
{
	if (below < 64)
		nl &= (UINT64_C(1) << below) - 1;
	if (!nl)
		return;
	pp->sp_line += (uint64_t)__builtin_popcountll(nl);
	pp->sp_line_off = pp->fill_off + (uint64_t)(base - b) + 64 - (uint64_t)__builtin_clzll(nl);
}

/*
 * Scan fill from sp_pos: SP_CUT at the first end of an event at or past the
 * target (sp_pos is then just after it), SP_END at a ']' or '}' that closes
 * the array (sp_pos on it), else SP_MORE.  64 bytes at a time: masks of
 * quotes, brackets and newlines, strings as the running parity of quotes; a
 * block with a backslash, or after one, goes a byte at a time (rare in
 * traces).  A tail of under 64 bytes may stay unscanned: a cut there is
 * only found later, and at the end those bytes are read in line anyway.
 * Newlines are counted outside strings only in the byte path and everywhere
 * in the block path: valid JSON has none inside strings, and a job with one
 * fails whatever the count.  One body, built twice: with SSE2 (every
 * x86-64) and with AVX2, carry-less multiply and popcnt where the CPU has
 * them (sp_scan() asks it).
 */
#define SP_SCAN_BODY(MASKS, PREFIX_XOR)                                                          \
	{                                                                                          \
		const char *b = pp->fill, *p = b + pp->sp_pos, *end = b + pp->fill_n;            \
		for (; end - p >= 64; p += 64) {                                                 \
			struct sp_masks m = MASKS(p);                                            \
			uint64_t in_str, open, close;                                            \
			/* a backslash here, or just before (it may escape a quote here) */      \
			if (m.backslash || (p > b && p[-1] == '\\')) {                           \
				enum sp r = sp_bytes(pp, (size_t)(p - b), (size_t)(p + 64 - b)); \
				if (r != SP_MORE)                                                \
					return r;                                                \
				continue;                                                        \
			}                                                                        \
			in_str = PREFIX_XOR(m.quote) ^ (pp->sp_str ? ~UINT64_C(0) : 0);          \
			open = m.open & ~in_str;                                                 \
			close = m.close & ~in_str;                                               \
			if (open | close) {                                                      \
				uint64_t st = open | close;                                      \
				while (st) {                                                     \
					unsigned i = (unsigned)__builtin_ctzll(st);              \
					enum sp r;                                               \
					st &= st - 1;                                            \
					if (open >> i & 1) {                                     \
						pp->sp_depth++;                                  \
						continue;                                        \
					}                                                        \
					if ((r = sp_close(pp, b, p + i)) != SP_MORE) {           \
						sp_lines(pp, m.nl, b, p, i);                     \
						pp->sp_str = false;                              \
						return r;                                        \
					}                                                        \
				}                                                                \
			}                                                                        \
			sp_lines(pp, m.nl, b, p, 64);                                            \
			pp->sp_str = in_str >> 63;                                               \
		}                                                                                \
		pp->sp_pos = (size_t)(p - b);                                                    \
		return SP_MORE;                                                                  \
	}

static enum sp sp_scan_sse2(struct par *pp)
SP_SCAN_BODY(masks_sse2, prefix_xor)

__attribute__((target("avx2,pclmul,popcnt"))) static enum sp sp_scan_avx2(struct par *pp)
SP_SCAN_BODY(masks_avx2, prefix_xor_clmul)

#define SP_HAVE_AVX2() \
	(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("popcnt"))
/* Test seam: tests/unit/test_kineto.c takes both scans in turn. */
#ifndef KT_TEST_SCAN_AVX2
#define KT_TEST_SCAN_AVX2() SP_HAVE_AVX2()
#endif

static enum sp sp_scan(struct par *pp)
{
	if (KT_TEST_SCAN_AVX2())
		return sp_scan_avx2(pp);
	return sp_scan_sse2(pp);
}
#else
static enum sp sp_scan(struct par *pp)
{
	return sp_bytes(pp, pp->sp_pos, pp->fill_n);
}
#endif

/*
 * The events are over (or one is too long to split): queue the events
 * before the last cut, append every job, and read what follows it in line.
 */
static void split_end(struct parse_ctx *ctx, struct kineto *k)
{
	struct par *pp = k->par;
	size_t cut = pp->sp_cut;

	if (cut)
		submit(ctx, k, cut, 0, 0);
	k->par_mode = P_DONE;
	par_collect(ctx, k, true);
	if (pp->fill_n)
		seq_feed(ctx, k, pp->fill, pp->fill_n);
	par_free(k);	/* the threads and buffers are not needed again */
}

static void split_feed(struct parse_ctx *ctx, struct kineto *k, const char *p, size_t n)
{
	struct par *pp = k->par;

	while (n && k->top != T_FAILED) {
		size_t take = pp->fill_n < pp->target ? pp->target - pp->fill_n + SLICE : SLICE;
		enum sp r;
		if (take > n)
			take = n;
		ALLOC_GROW(pp->fill, pp->fill_n + take, pp->fill_cap);
		memcpy(pp->fill + pp->fill_n, p, take);
		pp->fill_n += take;
		p += take;
		n -= take;
		while ((r = sp_scan(pp)) == SP_CUT)
			submit(ctx, k, pp->sp_cut, pp->sp_line, pp->sp_line_off);
		if (r == SP_END || (r == SP_MORE && pp->fill_n - pp->sp_cut > MAX_FILL)) {
			split_end(ctx, k);
			seq_feed(ctx, k, p, n);
			return;
		}
	}
}

static void par_free(struct kineto *k)
{
	struct par *pp = k->par;

	if (!pp)
		return;
	/* jobs queued and not appended (the read stopped early) are still
	 * the pool's: they finish before their buffers go */
	for (uint64_t i = pp->head; i < pp->tail; i++)
		workpool_wait(pp->pool, &pp->ring[i % pp->cap].wj);
	for (unsigned i = 0; i < pp->cap; i++) {
		free(pp->ring[i].buf);
		free(pp->ring[i].b.recs);
		free(pp->ring[i].b.strs);
	}
	free(pp->ring);
	free(pp->fill);
	workpool_unclaim(pp->pool);
	free(pp);
	k->par = NULL;
}

static void kt_stream(struct parse_ctx *ctx, const char *p, size_t n, bool last)
{
	struct kineto *k = ctx->state;

	if (n)
		k->last_nl = p[n - 1] == '\n';
	if (k->par_mode == P_SPLIT) {
		split_feed(ctx, k, p, n);
	} else {
		uint8_t mode = k->par_mode;
		size_t used = seq_feed(ctx, k, p, n);
		if (mode == P_WANT && k->par_mode == P_SPLIT) {
			/* handed over after the first event */
			if (par_start(ctx, k)) {
				split_feed(ctx, k, p + used, n - used);
			} else {
				k->par_mode = P_NONE;
				seq_feed(ctx, k, p + used, n - used);
			}
		}
	}
	if (k->par_mode == P_SPLIT && last)
		split_end(ctx, k);
	if (k->par)
		par_harvest(ctx, k);
	if (last)
		finish(ctx, k);
	else
		ctx->line = k->line;
}

/* ---- metadata after the events ------------------------------------------ */

/*
 * "baseTimeNanoseconds": N in the last TAIL_BYTES of a regular file (the
 * last one there: the key is top-level metadata, written after the events
 * by some PyTorch versions and by the on-demand path).
 */
static bool tail_base(int fd, int64_t *base)
{
	static const char key[] = "\"baseTimeNanoseconds\"";
	struct stat sb;
	char *buf;
	const char *hit = NULL, *p, *end;
	off_t from;
	ssize_t n;
	bool ok = false;

	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode))
		return false;
	from = sb.st_size > TAIL_BYTES ? sb.st_size - TAIL_BYTES : 0;
	buf = xmalloc(TAIL_BYTES);
	n = pread(fd, buf, (size_t)(sb.st_size - from), from);
	for (p = buf; n > 0 && (p = memmem(p, (size_t)(buf + n - p), key, sizeof(key) - 1)); p++)
		hit = p;
	if (hit) {
		struct json_lex lx;
		p = hit + sizeof(key) - 1;
		end = buf + n;
		while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
			p++;
		if (p < end && *p == ':') {
			json_lex_init(&lx, p + 1, end, false);
			ok = json_next(&lx) == JT_NUM && !json_num_scaled(lx.tok, 0, base);
		}
	}
	free(buf);
	return ok;
}

/*
 * The first event's ts is relative to a base not read yet: find the base
 * ahead.  A regular file's tail first (one read), else one pass of the whole
 * file (a compressed one is decompressed twice) through this parser, which
 * emits nothing and stops at the key.  Standard input cannot be read twice:
 * a base after its events is reported where it comes (parse_value()).
 */
static void look_ahead(struct parse_ctx *ctx, struct kineto *k)
{
	struct reader rd;
	struct gl_err err = { 0 };
	int64_t base = 0;
	bool found = false;

	k->looked_ahead = true;
	if (!ctx->src || !strcmp(ctx->src, "-") || reader_open_opt(&rd, ctx->src, false, 0, &err))
		return;
	if (rd.kind == READER_PLAIN && tail_base(rd.fd, &base)) {
		found = true;
	} else {
		struct kineto *pk = xcalloc(1, sizeof(*pk));
		struct batch scratch = { 0 };
		struct parse_ctx pc = { 0 };
		char *buf = xmalloc(TAIL_BYTES);
		long got;

		kt_init(pk, ctx->opts);
		pk->par_mode = P_NONE;
		pk->probe = true;
		pk->looked_ahead = true;
		pc.opts = ctx->opts;
		pc.src = ctx->src;
		pc.state = pk;
		pc.out = &scratch;
		while (pk->top != T_FAILED && (got = reader_read(&rd, buf, TAIL_BYTES, &err)) > 0)
			seq_feed(&pc, pk, buf, (size_t)got);
		found = pk->have_base;
		base = pk->base_ns;
		kt_fini(pk);
		free(pk);
		free(buf);
		free(scratch.recs);
		free(scratch.strs);
	}
	reader_close(&rd);
	if (found) {
		k->base_ns = base;
		k->have_base = k->base_ahead = true;
	}
}

static int kt_sniff(const char *head, size_t n, const char *name)
{
	const char *p = head, *end = head + n;
	(void)name;
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
		p++;
	if (p >= end)
		return 0;
	if (*p == '{') {
		if (memmem(p, (size_t)(end - p), "\"traceEvents\"", 13))
			return 95;
		if (memmem(p, (size_t)(end - p), "\"schemaVersion\"", 15) &&
		    memmem(p, (size_t)(end - p), "\"deviceProperties\"", 18))
			return 80;
		return 0;
	}
	if (*p == '[') {
		p++;
		while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
			p++;
		if (p < end && *p == '{' && memmem(p, (size_t)(end - p), "\"ph\"", 4) &&
		    memmem(p, (size_t)(end - p), "\"ts\"", 4))
			return 80;
		/* an array of arrays (or one that never closes, "[[[[..."): no
		 * other format is JSON arrays; claimed weakly, so that what is
		 * wrong with it is told at its file:line:col, not "not a
		 * recognised format" (or nothing, where a directory is read) */
		if (p == end || *p == '[')
			return 20;
	}
	return 0;
}

const struct format format_kineto = {
	.id = "kineto",
	.summary = "PyTorch profiler (Kineto) Chrome trace JSON: export_chrome_trace, tensorboard_trace_handler",
	.detects = "a JSON object with \"traceEvents\" (or schemaVersion and deviceProperties), or an array of {\"ph\", \"ts\"} events (weakly: any array of arrays)",
	.state_size = sizeof(struct kineto),
	.sniff = kt_sniff,
	.init = kt_init,
	.stream = kt_stream,
	.traces = true,
	.fini = kt_fini,
};
