/* SPDX-License-Identifier: MIT */
/*
 * PyTorch profiler (Kineto) Chrome trace JSON, read as a stream
 * (formats.md section 4).  The top-level object is walked by a small state
 * machine; each key, each metadata value and each event is one "unit"
 * tokenized by util/json from a contiguous buffer.  A unit cut by the end of
 * a piece is kept (carry) and finished with the next piece, so memory is one
 * event, never the file.  Only kernel, memcpy, memset, runtime-call, step
 * and window events become records; the rest are validated and counted.
 */
#include "formats/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/xalloc.h"

/* The longest single value (an event, a metadata value) kept whole. */
#define MAX_UNIT (64 * 1024 * 1024)

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

struct kineto {
	uint8_t top;
	uint8_t key;		/* enum key_id of the current top-level key */
	bool bare;		/* a top-level array of events */
	bool tolerant;
	bool have_base, events_begun, last_nl;
	int64_t base_ns;
	uint64_t off;		/* absolute offset of the next unparsed byte */
	uint64_t line;		/* its line (1-based) */
	uint64_t line_off;	/* absolute offset where that line starts */
	char *carry;		/* an unfinished unit, starting at `off` */
	size_t carry_n, carry_cap;
	uint64_t events, used;
	char scratch[4096];	/* unescaped names */
};

static void kt_init(void *state, const struct ingest_opts *o)
{
	struct kineto *k = state;
	k->line = 1;
	k->tolerant = o && o->tolerant;
}

static void kt_fini(void *state)
{
	struct kineto *k = state;
	free(k->carry);
	k->carry = NULL;
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
			num_field(lx, t, 0, &e->stream, NULL, e, "args.stream is not a number");
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

static bool cat_is(struct slice cat, const char *a, const char *b)
{
	return slice_eq_nocase(cat, a) || (b && slice_eq_nocase(cat, b));
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

	lex_start(&lx, k, c, p, end);
	t = json_next(&lx);
	if (t >= 0 && k->key == K_BASE) {
		if (t != JT_NUM || json_num_scaled(lx.tok, 0, &k->base_ns)) {
			report(ctx, k, c, p, true, "bad trace", "baseTimeNanoseconds is not a 64-bit integer");
			return (size_t)(end - p);
		}
		if (k->events_begun) {
			report(ctx, k, c, p, true, "bad trace",
			       "baseTimeNanoseconds comes after traceEvents (the times read were taken as absolute)");
			return (size_t)(end - p);
		}
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
 */
static size_t parse_units(struct parse_ctx *ctx, struct kineto *k, const char *buf, size_t n)
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

static void kt_stream(struct parse_ctx *ctx, const char *p, size_t n, bool last)
{
	struct kineto *k = ctx->state;
	size_t pos = 0;

	if (n)
		k->last_nl = p[n - 1] == '\n';
	if (k->top == T_FAILED)
		pos = n;
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
		used = parse_units(ctx, k, k->carry, k->carry_n);
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
		size_t used = parse_units(ctx, k, p + pos, n - pos);
		if (pos + used < n)
			keep(ctx, k, p + pos + used, n - pos - used);
	}
	if (k->top == T_FAILED)
		k->carry_n = 0;
	if (last)
		finish(ctx, k);
	else
		ctx->line = k->line;
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
	}
	return 0;
}

const struct format format_kineto = {
	.id = "kineto",
	.summary = "PyTorch profiler (Kineto) Chrome trace JSON: export_chrome_trace, tensorboard_trace_handler",
	.detects = "a JSON object with \"traceEvents\" (or schemaVersion and deviceProperties), or an array of {\"ph\", \"ts\"} events",
	.state_size = sizeof(struct kineto),
	.sniff = kt_sniff,
	.init = kt_init,
	.stream = kt_stream,
	.traces = true,
	.fini = kt_fini,
};
