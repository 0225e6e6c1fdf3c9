/* SPDX-License-Identifier: MIT */
/*
 * `rocm-smi --json` (docs/formats/rocm-smi-json.md): one object per run,
 * "card0", "card1", ... each an object of the listing's labels as keys and
 * strings as values ("GPU use (%)": "0", "Average Graphics Package Power
 * (W)": "36.0"), and "system" (driver version, topology), which is not a
 * GPU; its "PID<pid>" members (--showpids) are processes.  A loop appends one document per run; each is one tick (no time in
 * the file).  The whole file is kept and read at its end (a document is a
 * few kB a GPU); the labels, shared with --csv, are rocm_card.h's.
 */
#include "formats/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/smi.h"
#include "formats/docbuf.h"
#include "formats/rocm_card.h"
#include "util/json.h"
#include "util/xalloc.h"


struct rsj {
	struct docbuf doc;
};

static void rsj_fini(void *state)
{
	struct rsj *j = state;
	docbuf_release(&j->doc);
}

/* Line and column of p in the buffer, counting from line 1. */
static void where(const char *buf, const char *p, uint64_t *line, uint32_t *col)
{
	const char *ls = buf;
	*line = 1;
	for (const char *q = buf; q < p; q++)
		if (*q == '\n') {
			(*line)++;
			ls = q + 1;
		}
	*col = (uint32_t)(p - ls) + 1;
}

static void bad_at(struct parse_ctx *ctx, const char *buf, const char *p, const char *what,
		   struct slice v)
{
	uint64_t line;
	uint32_t col;
	where(buf, p, &line, &col);
	ctx->line = line;
	if (v.p)
		ctx_bad(ctx, col, "%s: \"%.*s\"", what, fmt_quote_len(v), v.p);
	else
		ctx_bad(ctx, col, "%s", what);
}

/* One "cardN" object; the lexer is just past its '{'. */
static int card(struct parse_ctx *ctx, const char *buf, struct json_lex *lx, int gpu,
		const char *at)
{
	struct rocm_card c;
	uint64_t line;
	uint32_t col;
	struct rec *r;

	rocm_card_init(&c);
	for (;;) {
		enum json_tok t = json_next(lx);
		struct slice key, val;

		if (t == JT_OBJ_END)
			break;
		if (t != JT_KEY)
			return t == JT_ERR ? -1 : -2;
		key = lx->tok;
		t = json_next(lx);
		if (t == JT_OBJ || t == JT_ARR) {
			if (json_skip(lx, t) != 1)
				return -1;
			continue;
		}
		if (t != JT_STR && t != JT_NUM)
			continue;	/* null, true, false: nothing to read */
		val = lx->tok;
		if (rocm_card_take(&c, key, val) < 0)
			bad_at(ctx, buf, val.p, "not a number", val);
	}
	where(buf, at, &line, &col);
	ctx->line = line;
	if (!(r = ctx_rec(ctx, REC_SAMPLE)))
		return 0;
	r->time_kind = TK_NONE;
	r->gpu_index = gpu;
	r->status = c.g.status;
	r->present = c.g.present;
	for (int m = 0; m < M__COUNT; m++)
		if (c.g.present & (1u << m))
			r->v[m] = c.g.v[m];
	r->uuid = c.uuid[0] ? ctx_str(ctx, (struct slice){ c.uuid, strlen(c.uuid) }) : STR_NONE;
	r->name = c.name[0] ? ctx_str(ctx, (struct slice){ c.name, strlen(c.name) }) : STR_NONE;
	return 0;
}

/*
 * `--showpids` in "system": "PID<pid>": "<name>, <GPUs>, <VRAM bytes>,
 * <SDMA>, <CU occupancy>" (rocm_smi.py lower-cases the row and turns its
 * spaces into ", ", so a name's words are the fields before the last
 * four).  As in the text table (rocm_kfd.h): the GPU count is no index, a
 * process on 0 GPUs makes no record, VRAM is taken for one GPU only.
 */
static void sys_pid(struct parse_ctx *ctx, const char *buf, struct slice key, struct slice val)
{
	struct slice f[64];
	size_t nf = 0;
	const char *p = val.p, *end = val.p + val.n;
	int64_t pid, count = 0, bytes = -1;
	struct slice k = slice_trim((struct slice){ key.p + 3, key.n - 3 }), name;
	uint64_t line;
	uint32_t col;
	uint8_t st = 0;
	struct rec *r;

	while (nf < 64) {
		const char *c = p;
		while (c + 1 < end && !(c[0] == ',' && c[1] == ' '))
			c++;
		if (c + 1 >= end)
			c = end;
		f[nf++] = slice_trim((struct slice){ p, (size_t)(c - p) });
		if (c >= end)
			break;
		p = c + 2;
	}
	if (slice_to_i64(k, &pid) || pid < 0) {
		bad_at(ctx, buf, key.p, "not a process id", key);
		return;
	}
	if (nf < 5) {
		bad_at(ctx, buf, val.p, "not a --showpids row (name, GPUs, VRAM, SDMA, CU)", val);
		return;
	}
	if (!slice_eq(f[nf - 4], "unknown") && !smi_missing_token(f[nf - 4], &st) &&
	    (slice_to_i64(f[nf - 4], &count) || count < 0)) {
		bad_at(ctx, buf, f[nf - 4].p, "not a count of GPUs", f[nf - 4]);
		return;
	}
	if (!slice_eq(f[nf - 3], "unknown") && !smi_missing_token(f[nf - 3], &st) &&
	    (slice_to_i64(f[nf - 3], &bytes) || bytes < 0)) {
		bad_at(ctx, buf, f[nf - 3].p, "VRAM USED is not a number of bytes", f[nf - 3]);
		return;
	}
	if (slice_eq(f[nf - 4], "0"))
		return;	/* /dev/kfd held on no GPU */
	where(buf, key.p - 1, &line, &col);
	ctx->line = line;
	if (!(r = ctx_rec(ctx, REC_PROC)))
		return;
	r->time_kind = TK_NONE;
	r->pid = pid;
	r->present = 0;
	name = (struct slice){ f[0].p, (size_t)(f[nf - 5].p + f[nf - 5].n - f[0].p) };
	if (name.n && !slice_eq(name, "unknown")) {
		char nm[256];
		size_t o = 0;
		/* the ", " rocm_smi.py put between a name's words: a space again */
		for (size_t i = 0; i + 5 <= nf && o + 1 < sizeof(nm); i++) {
			if (i && o + 1 < sizeof(nm))
				nm[o++] = ' ';
			for (size_t c = 0; c < f[i].n && o + 1 < sizeof(nm); c++)
				nm[o++] = f[i].p[c];
		}
		r->name = ctx_str(ctx, (struct slice){ nm, o });
	}
	if (bytes >= 0 && count == 1) {
		r->v[2] = (double)bytes / 1048576.0;
		r->present |= PF_FB;
	}
}

/* "system": its "PID..." members are processes; the rest is not a GPU. */
static int system_obj(struct parse_ctx *ctx, const char *buf, struct json_lex *lx)
{
	for (;;) {
		enum json_tok t = json_next(lx);
		struct slice key;
		if (t == JT_OBJ_END)
			return 0;
		if (t != JT_KEY)
			return -1;
		key = lx->tok;
		t = json_next(lx);
		if ((t == JT_OBJ || t == JT_ARR) && json_skip(lx, t) != 1)
			return -1;
		if (t == JT_ERR)
			return -1;
		if (t == JT_STR && key.n > 3 && !memcmp(key.p, "PID", 3))
			sys_pid(ctx, buf, key, lx->tok);
	}
}

static void read_all(struct parse_ctx *ctx, struct rsj *j)
{
	const char *p = j->doc.buf, *end = j->doc.buf + j->doc.n;

	for (;;) {
		struct json_lex lx;
		enum json_tok t;

		while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
			p++;
		if (p >= end)
			return;
		json_lex_init(&lx, p, end, true);
		t = json_next(&lx);
		if (t != JT_OBJ) {
			bad_at(ctx, j->doc.buf, p, "not a rocm-smi --json document (an object of cards)",
			       (struct slice){ NULL, 0 });
			return;
		}
		for (;;) {
			const char *at;
			struct slice key;
			int64_t idx;

			t = json_next(&lx);
			if (t == JT_OBJ_END)
				break;
			if (t != JT_KEY)
				goto broken;
			key = lx.tok;
			at = key.p - 1;
			t = json_next(&lx);
			if (t == JT_OBJ && key.n > 4 && !memcmp(key.p, "card", 4) &&
			    !slice_to_i64((struct slice){ key.p + 4, key.n - 4 }, &idx) && idx >= 0 &&
			    idx < 65536) {
				int rc = card(ctx, j->doc.buf, &lx, (int)idx, at);
				if (rc == -1)
					goto broken;
				if (rc == -2) {
					bad_at(ctx, j->doc.buf, lx.p, "a card's value is not a label: string pair",
					       (struct slice){ NULL, 0 });
					return;
				}
				continue;
			}
			if (t == JT_OBJ && slice_eq(key, "system")) {
				if (system_obj(ctx, j->doc.buf, &lx) < 0)
					goto broken;
				continue;
			}
			/* anything else: not a GPU */
			if ((t == JT_OBJ || t == JT_ARR) && json_skip(&lx, t) != 1)
				goto broken;
			if (t == JT_ERR)
				goto broken;
		}
		t = json_next(&lx);
		if (t != JT_DONE)
			goto broken;
		p = lx.p;
		continue;
broken:
		bad_at(ctx, j->doc.buf, lx.p, lx.err ? lx.err : "a document cut short",
		       (struct slice){ NULL, 0 });
		ctx->out->recs[ctx->out->nr - 1].ev = BAD_FATAL;
		return;
	}
}

/* the whole document, then read_all() */
static void rsj_read(struct parse_ctx *ctx)
{
	read_all(ctx, ctx->state);
}

static void rsj_stream(struct parse_ctx *ctx, const char *p, size_t n, bool last)
{
	struct rsj *j = ctx->state;

	docbuf_stream(&j->doc, ctx, p, n, last, "rocm-smi --json", rsj_read);
}

static int rsj_sniff(const char *head, size_t n, const char *name)
{
	const char *p = head, *end = head + n;
	(void)name;
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	if (p < end && *p == '{' && memmem(head, n, "\"card", 5) &&
	    (memmem(head, n, "Graphics Package Power", 22) || memmem(head, n, "GPU use (%)", 11) ||
	     memmem(head, n, "(Sensor edge)", 13) || memmem(head, n, "(Sensor junction)", 17)))
		return 90;
	/* --showpids alone: {"system": {"PID28389": "llama-server, 1, ..."}} */
	if (p < end && *p == '{' && memmem(head, n, "\"system\"", 8) &&
	    memmem(head, n, "\"PID", 4))
		return 90;
	return 0;
}

const struct format format_rocm_smi_json = {
	.id = "rocm-smi-json",
	.summary = "rocm-smi --json (any --show options): one object of cards per run, AMD GPUs",
	.detects = "a JSON object with \"cardN\" members and rocm-smi labels (GPU use (%), "
		   "Graphics Package Power, Sensor edge/junction)",
	.state_size = sizeof(struct rsj),
	.sniff = rsj_sniff,
	.stream = rsj_stream,
	.fini = rsj_fini,
};
