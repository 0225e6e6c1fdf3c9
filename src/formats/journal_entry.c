/* SPDX-License-Identifier: MIT */
/*
 * One journal entry in journald's JSON export (formats.md 3.6), for the
 * journal-json format (one entry a line) and journal-json-pretty (one
 * field a line): the fields gputally uses, the anchor of its two clocks,
 * and its MESSAGE to the kernel-message classifier.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/journal_entry.h"
#include "formats/kmsg.h"
#include "util/json.h"
#include "util/timeutil.h"

#define JJ_ANCHOR_TOL (10 * NS_PER_MS)

enum jj_field {
	F_MESSAGE, F_REALTIME, F_MONO, F_SRC_MONO, F_BOOT_ID, F_TRANSPORT, F_IDENT, F_COMM, F__COUNT
};
static const char *const jj_names[F__COUNT] = {
	"MESSAGE", "__REALTIME_TIMESTAMP", "__MONOTONIC_TIMESTAMP", "_SOURCE_MONOTONIC_TIMESTAMP",
	"_BOOT_ID", "_TRANSPORT", "SYSLOG_IDENTIFIER", "_COMM",
};

struct jj_val {
	bool have, null, bytes;	/* bytes: an array of byte values, in state->msg */
	bool esc;
	struct slice raw;	/* the string as written (between the quotes) */
	const char *at;		/* where the value starts */
};

static int field_of(struct slice key)
{
	for (int i = 0; i < F__COUNT; i++)
		if (strlen(jj_names[i]) == key.n && !memcmp(jj_names[i], key.p, key.n))
			return i;
	return -1;
}

/* An array value: byte values (MESSAGE only) or strings (the first kept). */
static int read_array(struct json_lex *lx, struct jj_state *st, int f, struct jj_val *v,
		      const char **why)
{
	size_t nb = 0;

	for (;;) {
		enum json_tok t = json_next(lx);
		if (t == JT_ARR_END)
			break;
		if (t == JT_NUM) {
			int64_t b;
			if (json_num_scaled(lx->tok, 0, &b) || b < 0 || b > 255) {
				*why = "a byte array with a value that is not 0..255";
				return -1;
			}
			if (f == F_MESSAGE && nb < sizeof(st->msg))
				st->msg[nb++] = (char)b;
			v->bytes = f == F_MESSAGE;
		} else if (t == JT_STR) {
			if (!v->have) {
				v->have = true;
				v->raw = lx->tok;
				v->esc = lx->tok_esc;
			}
		} else if (t < 0) {
			return t;
		} else if ((t = json_skip(lx, t)) < 0) {
			return t;
		}
	}
	if (v->bytes) {
		v->have = true;
		v->raw = (struct slice){ st->msg, nb };
		v->esc = false;
	}
	return 0;
}

/* A field's text, unescaped into buf when it has escapes. */
static struct slice text_of(const struct jj_val *v, char *buf, size_t cap)
{
	if (!v->esc)
		return v->raw;
	return (struct slice){ buf, json_unescape(v->raw, buf, cap) };
}

/* Microseconds as a string of digits -> ns */
static bool usec_of(const struct jj_val *v, int64_t *ns)
{
	const char *p, *end;
	uint64_t us;

	if (!v->have || v->null || v->bytes || !v->raw.n)
		return false;
	p = v->raw.p;
	end = p + v->raw.n;
	if (scan_u64(&p, end, &us) || p != end ||
	    us > (uint64_t)(INT64_MAX / 1000))
		return false;
	*ns = (int64_t)us * 1000;
	return true;
}

/*
 * Where p is: its column in the one line of a json entry, or, for an entry
 * of several lines (w), its column in its line, whose number becomes
 * ctx->line (the caller puts ctx->line back after the entry).
 */
static uint32_t jj_col(struct parse_ctx *ctx, const struct jj_lines *w, const char *line, const char *p)
{
	size_t lo = 0, hi;

	if (!w)
		return ctx_col(line, p);
	hi = w->n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (w->text + w->starts[mid] <= p)
			lo = mid;
		else
			hi = mid;
	}
	ctx->line = w->first_line + lo;
	return ctx_col(w->text + w->starts[lo], p);
}

void jj_entry(struct parse_ctx *ctx, struct jj_state *st, const struct jj_lines *w, const char *line,
	      const char *p, const char *end)
{
	struct jj_val v[F__COUNT];
	struct json_lex lx;
	enum json_tok t;
	const char *why = NULL;
	int64_t real, mono;
	struct slice msg, tag, boot = { NULL, 0 };
	bool kernel;

	memset(v, 0, sizeof(v));
	json_lex_init(&lx, p, end, true);
	if ((t = json_next(&lx)) != JT_OBJ) {
		ctx_bad(ctx, jj_col(ctx, w, line, t == JT_ERR ? lx.p : p), "%s",
			t == JT_ERR ? lx.err : "a journal entry is not a JSON object");
		return;
	}
	for (;;) {
		struct slice key;
		int f;
		t = json_next(&lx);
		if (t == JT_OBJ_END)
			break;
		if (t != JT_KEY)
			goto lex_error;
		key = lx.tok;
		f = field_of(key);
		{
			const char *q = lx.p;
			while (q < end && (*q == ' ' || *q == ':' || *q == '\t'))
				q++;
			if (f >= 0)
				v[f].at = q < end && *q == '"' ? q + 1 : q;
		}
		if ((t = json_next(&lx)) < 0)
			goto lex_error;
		if (f < 0) {
			if ((t = json_skip(&lx, t)) < 0)
				goto lex_error;
			continue;
		}
		if (t == JT_STR) {
			v[f].have = true;
			v[f].raw = lx.tok;
			v[f].esc = lx.tok_esc;
		} else if (t == JT_NULL) {
			v[f].have = v[f].null = true;
		} else if (t == JT_ARR) {
			int rc = read_array(&lx, st, f, &v[f], &why);
			if (rc == -1) {
				ctx_bad(ctx, jj_col(ctx, w, line, lx.tok.p), "%s: %s", jj_names[f], why);
				return;
			}
			if (rc < 0) {
				t = (enum json_tok)rc;
				goto lex_error;
			}
		} else if ((t = json_skip(&lx, t)) < 0) {
			goto lex_error;
		}
	}
	t = json_next(&lx);
	if (t != JT_DONE)
		goto lex_error;
	for (const char *q = lx.p; q < end; q++)
		if (*q != ' ' && *q != '\t' && *q != '\n') {
			ctx_bad(ctx, jj_col(ctx, w, line, q), "text after the journal entry's closing '}'");
			return;
		}

	if (!usec_of(&v[F_REALTIME], &real)) {
		if (w)
			ctx->line = w->first_line;
		ctx_bad(ctx, 1, "journal entry without a __REALTIME_TIMESTAMP of decimal microseconds");
		return;
	}
	ctx->out->time_basis = "journald __REALTIME_TIMESTAMP (UTC)";
	if (v[F_BOOT_ID].have && !v[F_BOOT_ID].null && !v[F_BOOT_ID].bytes)
		boot = text_of(&v[F_BOOT_ID], st->boot, sizeof(st->boot));
	kernel = v[F_TRANSPORT].have && slice_eq(v[F_TRANSPORT].raw, "kernel");
	if (boot.n && (usec_of(&v[F_MONO], &mono) || (kernel && usec_of(&v[F_SRC_MONO], &mono))))
		kl_anchor(ctx, &st->anc, real, mono, boot, 0, JJ_ANCHOR_TOL);

	if (!v[F_MESSAGE].have)
		return;	/* an entry without a message: nothing to classify */
	if (v[F_MESSAGE].null) {
		ctx_bad(ctx, jj_col(ctx, w, line, v[F_MESSAGE].at),
			"MESSAGE is null: journalctl leaves out fields over 4096 bytes; export with --all");
		return;
	}
	if (v[F_IDENT].have && !v[F_IDENT].null && !v[F_IDENT].bytes)
		tag = text_of(&v[F_IDENT], st->tag, sizeof(st->tag));
	else if (v[F_COMM].have && !v[F_COMM].null && !v[F_COMM].bytes)
		tag = text_of(&v[F_COMM], st->tag, sizeof(st->tag));
	else
		tag = kernel ? (struct slice){ "kernel", 6 } : (struct slice){ "", 0 };
	/* the byte array was decoded into msg already; tag and boot have their own buffers */
	msg = v[F_MESSAGE].bytes ? v[F_MESSAGE].raw : text_of(&v[F_MESSAGE], st->msg, sizeof(st->msg));
	kl_emit(ctx, &st->ks, msg, tag, real, TK_ABS, jj_col(ctx, w, line, v[F_MESSAGE].at));
	return;

lex_error:
	ctx_bad(ctx, jj_col(ctx, w, line, lx.p), "%s",
		t == JT_ERR ? lx.err : t == JT_MORE ? "the journal entry is cut short" : "malformed journal entry");
}

