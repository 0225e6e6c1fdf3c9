/* SPDX-License-Identifier: MIT */
/*
 * journalctl -o json, json-seq and json-sse (formats.md 3.6,
 * docs/formats/journal-json.md): one entry per line, tokenized by
 * util/json.  Every value is a string, numbers included; a binary or
 * non-UTF-8 field is an array of byte values, a repeated field an array of
 * strings (the first is used), a field over 4096 bytes null.  json-seq
 * puts an RS byte (0x1E) before each entry, json-sse "data: ".
 *
 * The entry's time is __REALTIME_TIMESTAMP (µs, UTC).  Its MESSAGE, with
 * SYSLOG_IDENTIFIER (else _COMM, else "kernel" for _TRANSPORT=kernel) as
 * the tag, goes to the classifier (kmsg.h).  The pair of
 * __REALTIME_TIMESTAMP and __MONOTONIC_TIMESTAMP that journald took
 * together, with _BOOT_ID, is an anchor (quality 0) that places raw dmesg
 * of the same boot; kernel entries without __MONOTONIC_TIMESTAMP pair it
 * with their _SOURCE_MONOTONIC_TIMESTAMP (the printk clock).
 *
 * json-pretty spreads an entry over many lines, which this line format
 * cannot join: each entry's opening "{" is reported once, with the advice
 * to export with -o json, and the lines inside it are passed over.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/format.h"
#include "formats/klenv.h"
#include "formats/kmsg.h"
#include "util/json.h"
#include "util/timeutil.h"

#define JJ_MSG_MAX (64 * 1024)	/* a MESSAGE longer than this is cut (records keep 4096) */
#define JJ_ANCHOR_TOL (10 * NS_PER_MS)

struct jj_state {
	struct kl_anchors anc;
	struct kl_state ks;
	char msg[JJ_MSG_MAX];
	char tag[256];
	char boot[64];
};

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

static void jj_entry(struct parse_ctx *ctx, const char *line, const char *p, const char *end)
{
	struct jj_state *st = ctx->state;
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
		ctx_bad(ctx, ctx_col(line, t == JT_ERR ? lx.p : p), "%s",
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
				ctx_bad(ctx, ctx_col(line, lx.tok.p), "%s: %s", jj_names[f], why);
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
		if (*q != ' ' && *q != '\t') {
			ctx_bad(ctx, ctx_col(line, q), "text after the journal entry's closing '}'");
			return;
		}

	if (!usec_of(&v[F_REALTIME], &real)) {
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
		ctx_bad(ctx, ctx_col(line, v[F_MESSAGE].at),
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
	kl_emit(ctx, &st->ks, msg, tag, real, TK_ABS, ctx_col(line, v[F_MESSAGE].at));
	return;

lex_error:
	ctx_bad(ctx, ctx_col(line, lx.p), "%s",
		t == JT_ERR ? lx.err : t == JT_MORE ? "the journal entry is cut short" : "malformed journal entry");
}

static void jj_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	const char *p = line, *end = line + n;

	if (*p == 0x1e)
		p++;	/* json-seq */
	else if (n >= 5 && !memcmp(p, "data:", 5))
		for (p += 5; p < end && *p == ' '; p++)
			;	/* json-sse */
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end)
		return;	/* an empty json-seq record */
	if (*p == '{' && p + 1 == end) {
		ctx_bad(ctx, ctx_col(line, p), "journalctl -o json-pretty (one field per line) is not read: "
			"export with -o json");
		return;
	}
	if (*p == '}' || *p == '"')
		return;	/* inside a json-pretty entry, reported at its '{' */
	jj_entry(ctx, line, p, end);
}

/* An object with journald's own fields near the start of the head. */
static int jj_sniff(const char *head, size_t n, const char *name)
{
	const char *p = head, *end = head + n;
	struct slice s;

	(void)name;
	if (p < end && *p == 0x1e)
		p++;
	else if (n >= 5 && !memcmp(p, "data:", 5))
		p += 5;
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	if (p >= end || *p != '{')
		return 0;
	s = (struct slice){ p, (size_t)(end - p) < 4096 ? (size_t)(end - p) : 4096 };
	for (size_t i = 0; i + 22 <= s.n; i++)
		if (s.p[i] == '"' && (!memcmp(s.p + i, "\"__REALTIME_TIMESTAMP\"", 22) ||
				      !memcmp(s.p + i, "\"__CURSOR\"", 10)))
			return 95;
	return 0;
}

const struct format format_journal_json = {
	.id = "journal-json",
	.summary = "journalctl -o json, json-seq and json-sse (one entry per line): kernel and system events",
	.detects = "a JSON object (after an RS byte or 'data: ') with \"__CURSOR\" or \"__REALTIME_TIMESTAMP\" "
		   "in the head",
	.state_size = sizeof(struct jj_state),
	.sniff = jj_sniff,
	.line = jj_line,
};
