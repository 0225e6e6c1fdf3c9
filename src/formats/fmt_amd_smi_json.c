/* SPDX-License-Identifier: MIT */
/*
 * `amd-smi metric --json` and `amd-smi process --json` (ROCm 6 and 7,
 * docs/formats/amd-smi-json.md).  ROCm 6.0 to 6.2 print an array of GPU
 * objects; ROCm 6.4 and later wrap it as {"gpu_data": [...]}; `-w N` adds
 * "timestamp" (epoch seconds) to each GPU and prints a "'CTRL' + 'C' to stop
 * watching output:" line first; a shell loop appends one document per run.
 * A GPU object holds groups ("usage", "power", "clock", "temperature",
 * "mem_usage", "energy", "fan", "pcie" ...) whose leaves are a number, "N/A"
 * or {"value": N, "unit": "U"}; the leaves that become metrics, and their
 * names, are amd_smi.h's, shared with the CSV reader.  A "process_list"
 * names the processes on a GPU (pid, name, VRAM).
 *
 * The whole file is kept and read at its end (one document is a few kB a
 * GPU).  Each document without "timestamp" is one tick.  Nothing
 * NVIDIA-only is made up for AMD GPUs: throttle_status is not a clock-event
 * reason.
 */
#include "formats/format.h"

#include <stdio.h>
#include <string.h>

#include "formats/amd_smi.h"
#include "formats/docbuf.h"
#include "util/json.h"

#define MAX_DEPTH 8	/* deeper groups than amd-smi prints are skipped */

struct asj {
	struct docbuf doc;
};

/* Where a token starts: its line and 1-based column. */
struct at {
	uint64_t line;
	uint32_t col;
};

/* One GPU object being read. */
struct elem {
	struct amd_sample smp;
	int64_t gpu;		/* -1 until "gpu" */
	int64_t t_ns;
	bool has_time;
	unsigned groups;	/* keys other than gpu, timestamp, process_list */
	bool bad_gpu;		/* "gpu" was there, and not an index (said so) */
	struct at at;		/* of its '{' */
};

static void asj_fini(void *state)
{
	struct asj *j = state;
	docbuf_release(&j->doc);
}

static uint32_t col_of(const struct json_lex *lx, const char *p)
{
	return lx->line_start && p >= lx->line_start ? (uint32_t)(p - lx->line_start) + 1 : 1;
}

static void bad_tok(struct parse_ctx *ctx, const struct json_lex *lx, const char *p,
		    const char *fmt, struct slice v)
{
	ctx->line = lx->line;
	if (v.p)
		ctx_bad(ctx, col_of(lx, p), "%s \"%.*s\"", fmt, fmt_quote_len(v), v.p);
	else
		ctx_bad(ctx, col_of(lx, p), "%s", fmt);
}

/* A string token's text, unescaped into buf ("\u00b0C"). */
static struct slice str_of(const struct json_lex *lx, char *buf, size_t cap)
{
	if (!lx->tok_esc)
		return lx->tok;
	return (struct slice){ buf, json_unescape(lx->tok, buf, cap) };
}

static struct at at_tok(const struct json_lex *lx, const char *p)
{
	return (struct at){ lx->line, col_of(lx, p) };
}

/* A leaf of the GPU: name in parent, in grandparent ("clock" joins a
 * domain and its leaf: gfx_0 + clk = "gfx_0_clk", as the CSV names it). */
static void leaf(struct parse_ctx *ctx, struct elem *e, struct slice key, const char *parent,
		 const char *grand, struct slice num, struct slice unit, struct at at)
{
	char name[96];
	const struct amd_field *f;
	const char *why = NULL;
	double v;

	if (grand && !strcmp(grand, "clock") && parent)
		snprintf(name, sizeof(name), "%s_%.*s", parent, (int)key.n, key.p);
	else
		slice_copy(name, sizeof(name), key);
	if (!(f = amd_field_find((struct slice){ name, strlen(name) }, parent)))
		return;
	switch (amd_value(f, num, unit, &v, &why)) {
	case 0:
		amd_sample_set(&e->smp, f, v);
		break;
	case -1:
	case -2:
		if (num.n && num.p[-1] == '"')
			num = (struct slice){ num.p - 1, num.n + 2 };
		ctx->line = at.line;
		ctx_bad(ctx, at.col, "%s %.*s%s%.*s%s: %s", name, fmt_quote_len(num), num.p,
			unit.n ? " \"" : "", fmt_quote_len(unit), unit.p, unit.n ? "\"" : "", why);
		break;
	default:
		break;
	}
}

/*
 * The members of an object (its '{' read) named key, inside parent inside
 * grand: its
 * leaves go to e; a {"value": N, "unit": U} object is the leaf key itself.
 * Returns -1 when the JSON is broken.
 */
static int group(struct parse_ctx *ctx, struct json_lex *lx, struct elem *e, const char *key,
		 const char *parent, const char *grand, int depth)
{
	struct slice val = { NULL, 0 }, unit = { NULL, 0 };
	struct at val_at = { 0, 0 };
	char ubuf[32];

	for (;;) {
		enum json_tok t = json_next(lx);
		struct slice k;
		char kname[64];

		if (t == JT_OBJ_END)
			break;
		if (t != JT_KEY)
			return -1;
		k = lx->tok;
		slice_copy(kname, sizeof(kname), k);
		t = json_next(lx);
		if (t == JT_OBJ) {
			if (depth >= MAX_DEPTH) {
				if (json_skip(lx, t) != 1)
					return -1;
				continue;
			}
			if (group(ctx, lx, e, kname, key, parent, depth + 1) < 0)
				return -1;
			continue;
		}
		if (t == JT_ARR) {
			if (json_skip(lx, t) != 1)
				return -1;
			continue;
		}
		if (t != JT_NUM && t != JT_STR)
			continue;	/* true, false, null */
		if (slice_eq(k, "value")) {
			val = lx->tok;
			val_at = at_tok(lx, lx->tok.p);
			continue;
		}
		if (slice_eq(k, "unit")) {
			unit = str_of(lx, ubuf, sizeof(ubuf));
			continue;
		}
		leaf(ctx, e, k, key, parent, lx->tok, (struct slice){ NULL, 0 }, at_tok(lx, lx->tok.p));
	}
	if (val.p && key)
		leaf(ctx, e, (struct slice){ key, strlen(key) }, parent, grand, val, unit, val_at);
	return 0;
}

/* VRAM of a process in MiB from a {"value": N, "unit": "B"} (its '{' read). */
static int proc_mem(struct json_lex *lx, double *mib, bool *has)
{
	struct slice val = { NULL, 0 }, unit = { NULL, 0 };
	static const struct amd_field vram = { .name = "vram", .metric = M_MEM_USED, .unit = AU_MIB };
	const char *why;

	for (;;) {
		enum json_tok t = json_next(lx);
		bool is_val, is_unit;
		if (t == JT_OBJ_END)
			break;
		if (t != JT_KEY)
			return -1;
		is_val = slice_eq(lx->tok, "value");
		is_unit = slice_eq(lx->tok, "unit");
		t = json_next(lx);
		if (t == JT_OBJ || t == JT_ARR) {
			if (json_skip(lx, t) != 1)
				return -1;
			continue;
		}
		if (is_val && (t == JT_NUM || t == JT_STR))
			val = lx->tok;
		else if (is_unit && t == JT_STR)
			unit = lx->tok;
	}
	/* a byte count with no unit is what the process list gives */
	if (val.p && !unit.p)
		unit = (struct slice){ "B", 1 };
	if (val.p && !amd_value(&vram, val, unit, mib, &why))
		*has = true;
	return 0;
}

/* One "process_info" object (its '{' read). */
static int proc_info(struct parse_ctx *ctx, struct json_lex *lx, const struct elem *e)
{
	char name[256] = "";
	int64_t pid = -2;
	double vram = 0, mem = 0;
	bool has_vram = false, has_mem = false;
	uint64_t line = lx->line;
	struct rec *r;

	for (;;) {
		enum json_tok t = json_next(lx);
		struct slice k;
		if (t == JT_OBJ_END)
			break;
		if (t != JT_KEY)
			return -1;
		k = lx->tok;
		t = json_next(lx);
		if (slice_eq(k, "memory_usage") && t == JT_OBJ) {
			for (;;) {
				enum json_tok u = json_next(lx);
				bool is_vram;
				if (u == JT_OBJ_END)
					break;
				if (u != JT_KEY)
					return -1;
				is_vram = slice_eq(lx->tok, "vram_mem");
				u = json_next(lx);
				if (u == JT_OBJ && is_vram) {
					if (proc_mem(lx, &vram, &has_vram) < 0)
						return -1;
				} else if ((u == JT_OBJ || u == JT_ARR) && json_skip(lx, u) != 1) {
					return -1;
				}
			}
			continue;
		}
		/* ROCm 7's amd-smi 27 names mem_usage "mem" */
		if ((slice_eq(k, "mem_usage") || slice_eq(k, "mem")) && t == JT_OBJ) {
			if (proc_mem(lx, &mem, &has_mem) < 0)
				return -1;
			continue;
		}
		if (t == JT_OBJ || t == JT_ARR) {
			if (json_skip(lx, t) != 1)
				return -1;
			continue;
		}
		if (slice_eq(k, "name") && t == JT_STR) {
			if (lx->tok_esc)
				name[json_unescape(lx->tok, name, sizeof(name) - 1)] = 0;
			else
				slice_copy(name, sizeof(name), lx->tok);
		} else if (slice_eq(k, "pid") && t == JT_NUM) {
			if (slice_to_i64(lx->tok, &pid) || pid < 0) {
				bad_tok(ctx, lx, lx->tok.p, "not a process id:", lx->tok);
				pid = -2;
			}
		}
	}
	ctx->line = line;
	if (!(r = ctx_rec(ctx, REC_PROC)))
		return 0;
	r->t_ns = e->has_time ? e->t_ns : 0;
	r->time_kind = e->has_time ? TK_ABS : TK_NONE;
	r->gpu_index = (int32_t)e->gpu;
	r->uuid = STR_NONE;
	r->pid = pid;
	r->name = name[0] && strcmp(name, "N/A") ? ctx_str(ctx, (struct slice){ name, strlen(name) })
						   : STR_NONE;
	if (has_vram || has_mem) {
		r->v[2] = has_vram ? vram : mem;
		r->present |= PF_FB;
	}
	return 0;
}

/* "process_list": [{"process_info": {...} or "No running processes ..."}] */
static int proc_list(struct parse_ctx *ctx, struct json_lex *lx, const struct elem *e)
{
	for (;;) {
		enum json_tok t = json_next(lx);
		if (t == JT_ARR_END)
			return 0;
		if (t != JT_OBJ) {
			if ((t == JT_ARR && json_skip(lx, t) != 1) || t == JT_ERR || t == JT_DONE)
				return -1;
			continue;
		}
		for (;;) {
			t = json_next(lx);
			if (t == JT_OBJ_END)
				break;
			if (t != JT_KEY)
				return -1;
			if (slice_eq(lx->tok, "process_info")) {
				t = json_next(lx);
				if (t == JT_OBJ) {
					if (proc_info(ctx, lx, e) < 0)
						return -1;
					continue;
				}
			} else {
				t = json_next(lx);
			}
			if ((t == JT_OBJ || t == JT_ARR) && json_skip(lx, t) != 1)
				return -1;
			if (t == JT_ERR)
				return -1;
		}
	}
}

static void emit(struct parse_ctx *ctx, const struct elem *e)
{
	struct rec *r;

	ctx->line = e->at.line;
	if (e->gpu < 0) {
		if (!e->bad_gpu)
			ctx_bad(ctx, e->at.col, "a GPU object with no \"gpu\" index");
		return;
	}
	if (!(r = ctx_rec(ctx, REC_SAMPLE)))
		return;
	r->t_ns = e->t_ns;
	r->time_kind = e->has_time ? TK_ABS : TK_NONE;
	r->gpu_index = (int32_t)e->gpu;
	r->uuid = r->name = STR_NONE;
	r->present = e->smp.g.present;
	for (int m = 0; m < M__COUNT; m++)
		if (e->smp.g.present & (1u << m))
			r->v[m] = e->smp.g.v[m];
}

static int elements(struct parse_ctx *ctx, struct json_lex *lx);

/* A GPU object, or the {"gpu_data": [...]} around them (its '{' read). */
static int element(struct parse_ctx *ctx, struct json_lex *lx)
{
	struct elem e;

	amd_sample_init(&e.smp);
	e.gpu = -1;
	e.t_ns = 0;
	e.has_time = false;
	e.groups = 0;
	e.bad_gpu = false;
	e.at = at_tok(lx, lx->p - 1);
	for (;;) {
		enum json_tok t = json_next(lx);
		struct slice k;
		char kname[64];

		if (t == JT_OBJ_END)
			break;
		if (t != JT_KEY)
			return -1;
		k = lx->tok;
		slice_copy(kname, sizeof(kname), k);
		t = json_next(lx);
		if (t == JT_ERR)
			return -1;
		if (slice_eq(k, "gpu")) {
			if (t != JT_NUM || slice_to_i64(lx->tok, &e.gpu) || e.gpu < 0 ||
			    e.gpu > 65535) {
				bad_tok(ctx, lx, lx->tok.p, "not a GPU index:", lx->tok);
				e.gpu = -1;
				e.bad_gpu = true;
				if ((t == JT_OBJ || t == JT_ARR) && json_skip(lx, t) != 1)
					return -1;
			}
			continue;
		}
		if (slice_eq(k, "timestamp") && t == JT_NUM) {
			double s;
			if (slice_to_double(lx->tok, &s) || s < 0 || s > 4e9) {
				bad_tok(ctx, lx, lx->tok.p, "not a time in epoch seconds:", lx->tok);
			} else {
				e.t_ns = (int64_t)(s * 1e9 + 0.5);
				e.has_time = true;
			}
			continue;
		}
		if (slice_eq(k, "gpu_data") && t == JT_ARR) {
			if (elements(ctx, lx) < 0)
				return -1;
			continue;
		}
		if (slice_eq(k, "process_list") && t == JT_ARR) {
			if (proc_list(ctx, lx, &e) < 0)
				return -1;
			continue;
		}
		e.groups++;
		if (t == JT_OBJ) {
			if (group(ctx, lx, &e, kname, NULL, NULL, 1) < 0)
				return -1;
		} else if (t == JT_ARR) {
			if (json_skip(lx, t) != 1)
				return -1;
		} else if (t == JT_NUM || t == JT_STR) {
			leaf(ctx, &e, k, NULL, NULL, lx->tok, (struct slice){ NULL, 0 },
			     at_tok(lx, lx->tok.p));
		}
	}
	if (e.groups)
		emit(ctx, &e);
	return 0;
}

/* The members of an array of GPU objects (its '[' read). */
static int elements(struct parse_ctx *ctx, struct json_lex *lx)
{
	for (;;) {
		enum json_tok t = json_next(lx);
		if (t == JT_ARR_END)
			return 0;
		if (t == JT_OBJ) {
			if (element(ctx, lx) < 0)
				return -1;
			continue;
		}
		if (t == JT_ERR || t == JT_DONE || t == JT_MORE)
			return -1;
		if (t == JT_ARR && json_skip(lx, t) != 1)
			return -1;
	}
}

static void read_all(struct parse_ctx *ctx)
{
	struct asj *j = ctx->state;
	const char *p = j->doc.buf, *end = j->doc.buf + j->doc.n, *ls = p;
	uint64_t line = 1;

	for (;;) {
		struct json_lex lx;
		enum json_tok t;
		int rc;

		while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) {
			if (*p == '\n') {
				line++;
				ls = p + 1;
			}
			p++;
		}
		if (p >= end)
			return;
		if (*p == '\'') {
			/* watch mode: 'CTRL' + 'C' to stop watching output: */
			const char *eol = memchr(p, '\n', (size_t)(end - p));
			struct slice s = { p, (size_t)((eol ? eol : end) - p) };
			if (slice_starts_with(s, "'CTRL' + 'C'")) {
				p = eol ? eol : end;
				continue;
			}
		}
		json_lex_init(&lx, p, end, true);
		lx.line = line;
		lx.line_start = ls;
		t = json_next(&lx);
		if (t == JT_ARR)
			rc = elements(ctx, &lx);
		else if (t == JT_OBJ)
			rc = element(ctx, &lx);
		else {
			bad_tok(ctx, &lx, p, "not an amd-smi --json document (an array or object of GPUs)",
				(struct slice){ NULL, 0 });
			ctx->out->recs[ctx->out->nr - 1].ev = BAD_FATAL;
			return;
		}
		if (rc == 0 && json_next(&lx) == JT_DONE) {
			p = lx.p;
			line = lx.line;
			ls = lx.line_start ? lx.line_start : ls;
			continue;
		}
		bad_tok(ctx, &lx, lx.p, lx.err ? lx.err : "a document cut short",
			(struct slice){ NULL, 0 });
		ctx->out->recs[ctx->out->nr - 1].ev = BAD_FATAL;
		return;
	}
}

static void asj_stream(struct parse_ctx *ctx, const char *p, size_t n, bool last)
{
	struct asj *j = ctx->state;

	docbuf_stream(&j->doc, ctx, p, n, last, "amd-smi --json", read_all);
}

static int asj_sniff(const char *head, size_t n, const char *name)
{
	const char *p = head, *end = head + n;

	(void)name;
	if (n >= 12 && !memcmp(p, "'CTRL' + 'C'", 12)) {
		const char *eol = memchr(p, '\n', n);
		p = eol ? eol + 1 : end;
	}
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	if (p >= end || (*p != '[' && *p != '{'))
		return 0;
	if (!memmem(p, (size_t)(end - p), "\"gpu\"", 5))
		return 0;
	if (memmem(p, (size_t)(end - p), "\"gpu_data\"", 10) ||
	    memmem(p, (size_t)(end - p), "\"process_list\"", 14) ||
	    memmem(p, (size_t)(end - p), "\"socket_power\"", 14) ||
	    memmem(p, (size_t)(end - p), "\"gfx_activity\"", 14) ||
	    memmem(p, (size_t)(end - p), "\"total_vram\"", 12) ||
	    memmem(p, (size_t)(end - p), "\"hotspot\"", 9))
		return 90;
	return 0;
}

const struct format format_amd_smi_json = {
	.id = "amd-smi-json",
	.summary = "amd-smi metric --json and amd-smi process --json (ROCm 6 and 7, -w loops): AMD GPUs",
	.detects = "a JSON array or object with \"gpu\" and amd-smi keys (gpu_data, socket_power, "
		   "gfx_activity, hotspot, total_vram, process_list)",
	.state_size = sizeof(struct asj),
	.sniff = asj_sniff,
	.stream = asj_stream,
	.fini = asj_fini,
};
