/* SPDX-License-Identifier: MIT */
/*
 * `rocm-smi --json` (docs/formats/rocm-smi-json.md): one object per run,
 * "card0", "card1", ... each an object of the listing's labels as keys and
 * strings as values ("GPU use (%)": "0", "Average Graphics Package Power
 * (W)": "36.0"), and "system" (driver version, topology), which is not a
 * GPU.  A loop appends one document per run; each is one tick (no time in
 * the file).  The whole file is kept and read at its end (a document is a
 * few kB a GPU); the labels changed across ROCm releases, so each field
 * has a list of labels, first found wins.
 */
#include "formats/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/smi.h"
#include "formats/docbuf.h"
#include "util/json.h"
#include "util/xalloc.h"


enum kind {
	K_NUM,		/* a number, unit in the label */
	K_PAREN_MHZ,	/* "(300Mhz)" */
	K_BYTES_MIB,	/* bytes, to MiB */
	K_NAME,
	K_UUID,
};

static const struct {
	const char *label;
	uint8_t kind;
	int8_t metric;	/* -1 for names */
	uint8_t rank;	/* 0 best, for labels that fill the same field */
} keys[] = {
	{ "GPU use (%)", K_NUM, M_UTIL_GPU, 0 },
	{ "GPU memory use (%)", K_NUM, M_UTIL_MEM, 0 },
	{ "Current Socket Graphics Package Power (W)", K_NUM, M_POWER, 0 },
	{ "Average Graphics Package Power (W)", K_NUM, M_POWER, 1 },
	{ "Max Graphics Package Power (W)", K_NUM, M_POWER_LIMIT, 0 },
	{ "Temperature (Sensor edge) (C)", K_NUM, M_TEMP, 0 },
	{ "Temperature (Sensor junction) (C)", K_NUM, M_TEMP, 1 },
	{ "Temperature (Sensor memory) (C)", K_NUM, M_MEM_TEMP, 0 },
	{ "Temperature (Sensor mem) (C)", K_NUM, M_MEM_TEMP, 0 },
	{ "Fan speed (%)", K_NUM, M_FAN, 0 },
	{ "sclk clock speed:", K_PAREN_MHZ, M_SM_CLOCK, 0 },
	{ "mclk clock speed:", K_PAREN_MHZ, M_MEM_CLOCK, 0 },
	{ "VRAM Total Memory (B)", K_BYTES_MIB, M_MEM_TOTAL, 0 },
	{ "VRAM Total Used Memory (B)", K_BYTES_MIB, M_MEM_USED, 0 },
	{ "Card Series", K_NAME, -1, 0 },
	{ "Card series", K_NAME, -1, 0 },
	{ "Device Name", K_NAME, -1, 1 },
	{ "Unique ID", K_UUID, -1, 0 },
};

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
	struct rec g;
	uint8_t rank[M__COUNT], name_rank = 0xff, st = 0;
	char name[96] = "", uuid[96] = "";
	uint64_t line;
	uint32_t col;
	struct rec *r;

	memset(&g, 0, sizeof(g));
	memset(rank, 0xff, sizeof(rank));
	for (;;) {
		enum json_tok t = json_next(lx);
		struct slice key, val;
		int k = -1;
		double v;

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
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (slice_eq(key, keys[i].label)) {
				k = (int)i;
				break;
			}
		if (k < 0)
			continue;
		if (keys[k].kind == K_NAME) {
			if (keys[k].rank < name_rank && !smi_missing_token(val, &st)) {
				slice_copy(name, sizeof(name), val);
				name_rank = keys[k].rank;
			}
			continue;
		}
		if (keys[k].kind == K_UUID) {
			if (!smi_missing_token(val, &st))
				slice_copy(uuid, sizeof(uuid), val);
			continue;
		}
		if (keys[k].kind == K_PAREN_MHZ && val.n >= 2 && val.p[0] == '(' &&
		    val.p[val.n - 1] == ')') {
			val.p++;
			val.n -= 2;
		}
		if (!smi_value_unit(val, keys[k].kind == K_PAREN_MHZ ? "Mhz" : "", &v, &st)) {
			if (!smi_missing_token(val, &st))
				bad_at(ctx, buf, val.p, "not a number", val);
			continue;
		}
		if (keys[k].kind == K_BYTES_MIB)
			v /= 1048576.0;
		if (keys[k].rank < rank[keys[k].metric]) {
			rank[keys[k].metric] = keys[k].rank;
			g.v[keys[k].metric] = v;
			g.present |= 1u << keys[k].metric;
		}
	}
	where(buf, at, &line, &col);
	ctx->line = line;
	if (!(r = ctx_rec(ctx, REC_SAMPLE)))
		return 0;
	r->time_kind = TK_NONE;
	r->gpu_index = gpu;
	r->status = st;
	r->present = g.present;
	for (int m = 0; m < M__COUNT; m++)
		if (g.present & (1u << m))
			r->v[m] = g.v[m];
	r->uuid = uuid[0] ? ctx_str(ctx, (struct slice){ uuid, strlen(uuid) }) : STR_NONE;
	r->name = name[0] ? ctx_str(ctx, (struct slice){ name, strlen(name) }) : STR_NONE;
	return 0;
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
			/* "system" and anything else: not a GPU */
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
