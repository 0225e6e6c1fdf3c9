/* SPDX-License-Identifier: MIT */
/*
 * `gpustat --json` (docs/formats/gpustat-json.md): {"hostname",
 * "driver_version", "query_time" (local ISO time), "gpus": [{"index",
 * "uuid", "name", "temperature.gpu", "fan.speed", "utilization.gpu",
 * "power.draw", "enforced.power.limit", "memory.used", "memory.total"
 * (gpustat's MB are MiB), "processes": [{"username", "command", "pid",
 * "gpu_memory_usage", ...}] or null}]}, one document per run (gpustat
 * --json -i appends them).  null is unknown.  The file is kept and read at
 * its end.
 */
#include "formats/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/docbuf.h"
#include "util/json.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

#define MAX_PROCS 256

static const struct {
	const char *key;
	int8_t metric;
} gkeys[] = {
	{ "temperature.gpu", M_TEMP },
	{ "fan.speed", M_FAN },
	{ "utilization.gpu", M_UTIL_GPU },
	{ "power.draw", M_POWER },
	{ "enforced.power.limit", M_POWER_LIMIT },
	{ "memory.used", M_MEM_USED },
	{ "memory.total", M_MEM_TOTAL },
};

struct gproc {
	int64_t pid;
	double mib;
	bool has_mib;
	char user[64], cmd[128];
	uint64_t line;
};

struct gsj {
	struct docbuf doc;
	struct gproc procs[MAX_PROCS];
	size_t nprocs;
};

static void gsj_fini(void *state)
{
	struct gsj *j = state;
	docbuf_release(&j->doc);
}

static uint64_t line_of(const char *buf, const char *p, uint32_t *col)
{
	uint64_t line = 1;
	const char *ls = buf;
	for (const char *q = buf; q < p; q++)
		if (*q == '\n') {
			line++;
			ls = q + 1;
		}
	if (col)
		*col = (uint32_t)(p - ls) + 1;
	return line;
}

static void bad(struct parse_ctx *ctx, const char *buf, const char *p, const char *why)
{
	uint32_t col;
	ctx->line = line_of(buf, p, &col);
	ctx_bad(ctx, col, "%s", why);
}

static bool num(struct json_lex *lx, enum json_tok t, double *out)
{
	return t == JT_NUM && !slice_to_double(lx->tok, out);
}

/* One object of "processes"; the lexer is past its '{'. */
static int proc(struct json_lex *lx, struct gproc *p, const char *buf)
{
	memset(p, 0, sizeof(*p));
	p->pid = -2;
	p->line = line_of(buf, lx->p, NULL);
	for (;;) {
		enum json_tok t = json_next(lx);
		struct slice key;
		double v;
		if (t == JT_OBJ_END)
			return 0;
		if (t != JT_KEY)
			return -1;
		key = lx->tok;
		t = json_next(lx);
		if (t == JT_OBJ || t == JT_ARR) {
			if (json_skip(lx, t) != 1)
				return -1;
			continue;
		}
		if (t < 0)
			return -1;
		if (slice_eq(key, "pid") && num(lx, t, &v) && v >= 0)
			p->pid = (int64_t)v;
		else if (slice_eq(key, "gpu_memory_usage") && num(lx, t, &v)) {
			p->mib = v;
			p->has_mib = true;
		} else if (slice_eq(key, "username") && t == JT_STR)
			slice_copy(p->user, sizeof(p->user), lx->tok);
		else if (slice_eq(key, "command") && t == JT_STR)
			slice_copy(p->cmd, sizeof(p->cmd), lx->tok);
	}
}

/* One object of "gpus"; the lexer is past its '{'. */
static int gpu(struct parse_ctx *ctx, struct gsj *j, struct json_lex *lx, bool has_time,
	       int64_t t_ns, const char *at)
{
	struct rec g, *r;
	char name[96] = "", uuid[96] = "";
	int64_t idx = -1;
	uint32_t uuid_off = STR_NONE;

	memset(&g, 0, sizeof(g));
	j->nprocs = 0;
	for (;;) {
		enum json_tok t = json_next(lx);
		struct slice key;
		double v;
		if (t == JT_OBJ_END)
			break;
		if (t != JT_KEY)
			return -1;
		key = lx->tok;
		t = json_next(lx);
		if (t < 0)
			return -1;
		if (slice_eq(key, "processes") && t == JT_ARR) {
			for (;;) {
				t = json_next(lx);
				if (t == JT_ARR_END)
					break;
				if (t != JT_OBJ)
					return -1;
				if (j->nprocs < MAX_PROCS) {
					if (proc(lx, &j->procs[j->nprocs], j->doc.buf))
						return -1;
					j->nprocs++;
				} else if (json_skip(lx, t) != 1) {
					return -1;
				}
			}
			continue;
		}
		if (t == JT_OBJ || t == JT_ARR) {
			if (json_skip(lx, t) != 1)
				return -1;
			continue;
		}
		if (slice_eq(key, "index") && num(lx, t, &v) && v >= 0 && v < 65536)
			idx = (int64_t)v;
		else if (slice_eq(key, "name") && t == JT_STR)
			slice_copy(name, sizeof(name), lx->tok);
		else if (slice_eq(key, "uuid") && t == JT_STR)
			slice_copy(uuid, sizeof(uuid), lx->tok);
		else
			for (size_t i = 0; i < sizeof(gkeys) / sizeof(gkeys[0]); i++)
				if (slice_eq(key, gkeys[i].key)) {
					if (num(lx, t, &v)) {
						g.v[gkeys[i].metric] = v;
						g.present |= 1u << gkeys[i].metric;
					} else if (t != JT_NULL) {
						char why[80];
						snprintf(why, sizeof(why), "%s is neither a number nor null",
							 gkeys[i].key);
						bad(ctx, j->doc.buf, lx->tok.p, why);
					}
				}
	}
	if (idx < 0) {
		bad(ctx, j->doc.buf, at, "a GPU with no \"index\"");
		return 0;
	}
	ctx->line = line_of(j->doc.buf, at, NULL);
	if (!(r = ctx_rec(ctx, REC_SAMPLE)))
		return 0;
	r->t_ns = has_time ? t_ns : 0;
	r->time_kind = has_time ? TK_ABS : TK_NONE;
	r->gpu_index = (int32_t)idx;
	r->present = g.present;
	for (int m = 0; m < M__COUNT; m++)
		if (g.present & (1u << m))
			r->v[m] = g.v[m];
	if (uuid[0])
		uuid_off = ctx_str(ctx, (struct slice){ uuid, strlen(uuid) });
	ctx->out->recs[ctx->out->nr - 1].uuid = uuid_off;
	if (name[0]) {
		uint32_t off = ctx_str(ctx, (struct slice){ name, strlen(name) });
		ctx->out->recs[ctx->out->nr - 1].name = off;
	}
	for (size_t i = 0; i < j->nprocs; i++) {
		struct gproc *p = &j->procs[i];
		char who[200];
		ctx->line = p->line;
		if (!(r = ctx_rec(ctx, REC_PROC)))
			continue;
		r->t_ns = has_time ? t_ns : 0;
		r->time_kind = has_time ? TK_ABS : TK_NONE;
		r->gpu_index = (int32_t)idx;
		r->uuid = uuid_off;
		r->pid = p->pid;
		if (p->has_mib) {
			r->v[2] = p->mib;
			r->present |= PF_FB;
		}
		/* "user:command", as gpustat -uc prints it */
		snprintf(who, sizeof(who), "%s%s%s", p->user, p->user[0] && p->cmd[0] ? ":" : "",
			 p->cmd);
		if (who[0]) {
			uint32_t off = ctx_str(ctx, (struct slice){ who, strlen(who) });
			ctx->out->recs[ctx->out->nr - 1].name = off;
		}
		/* and the user alone: who the process belongs to (report's "who spent it") */
		if (p->user[0]) {
			uint32_t off = ctx_str(ctx, (struct slice){ p->user, strlen(p->user) });
			r = &ctx->out->recs[ctx->out->nr - 1];
			r->present |= PF_WHO;
			r->pw.user = off;
			r->pw.job = r->pw.task = r->pw.ctr = STR_NONE;
		}
	}
	return 0;
}

static void read_all(struct parse_ctx *ctx, struct gsj *j)
{
	const char *p = j->doc.buf, *end = j->doc.buf + j->doc.n;

	for (;;) {
		struct json_lex lx;
		enum json_tok t;
		bool has_time = false;
		int64_t t_ns = 0;
		const char *gpus_at = NULL;
		struct json_lex gl;

		while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
			p++;
		if (p >= end)
			return;
		json_lex_init(&lx, p, end, true);
		if (json_next(&lx) != JT_OBJ) {
			bad(ctx, j->doc.buf, p, "not a gpustat --json document (an object with \"gpus\")");
			return;
		}
		/* query_time may come after gpus: a first pass finds it */
		gl = lx;
		for (;;) {
			struct slice key;
			t = json_next(&lx);
			if (t == JT_OBJ_END)
				break;
			if (t != JT_KEY)
				goto broken;
			key = lx.tok;
			t = json_next(&lx);
			if (t < 0)
				goto broken;
			if (slice_eq(key, "query_time") && t == JT_STR) {
				if (!time_parse_iso(lx.tok.p, lx.tok.n, &t_ns))
					has_time = true;
				else
					bad(ctx, j->doc.buf, lx.tok.p, "query_time is not an ISO time");
			} else if (slice_eq(key, "gpus")) {
				gpus_at = key.p;
			}
			if ((t == JT_OBJ || t == JT_ARR) && json_skip(&lx, t) != 1)
				goto broken;
		}
		if (json_next(&lx) != JT_DONE)
			goto broken;
		p = lx.p;
		/* second pass: the GPUs, with the time known */
		for (;;) {
			struct slice key;
			t = json_next(&gl);
			if (t == JT_OBJ_END)
				break;
			key = gl.tok;
			t = json_next(&gl);
			if (slice_eq(key, "gpus") && t == JT_ARR) {
				for (;;) {
					t = json_next(&gl);
					if (t == JT_ARR_END)
						break;
					/* the GPU's '{' is the byte before the lexer */
					if (t != JT_OBJ || gpu(ctx, j, &gl, has_time, t_ns, gl.p - 1))
						goto broken;
				}
				continue;
			}
			if ((t == JT_OBJ || t == JT_ARR) && json_skip(&gl, t) != 1)
				goto broken;
		}
		if (!gpus_at)
			bad(ctx, j->doc.buf, p, "a document with no \"gpus\"");
		continue;
broken:
		bad(ctx, j->doc.buf, lx.err ? lx.p : gl.p, lx.err ? lx.err : gl.err ? gl.err : "a document cut short");
		ctx->out->recs[ctx->out->nr - 1].ev = BAD_FATAL;
		return;
	}
}

/* the whole document, then read_all() */
static void gsj_read(struct parse_ctx *ctx)
{
	read_all(ctx, ctx->state);
}

static void gsj_stream(struct parse_ctx *ctx, const char *p, size_t n, bool last)
{
	struct gsj *j = ctx->state;

	docbuf_stream(&j->doc, ctx, p, n, last, "gpustat --json", gsj_read);
}

static int gsj_sniff(const char *head, size_t n, const char *name)
{
	(void)name;
	if (memmem(head, n, "\"query_time\"", 12) && memmem(head, n, "\"gpus\"", 6) &&
	    (memmem(head, n, "\"utilization.gpu\"", 17) || memmem(head, n, "\"memory.used\"", 13) ||
	     memmem(head, n, "\"driver_version\"", 16)))
		return 90;
	return 0;
}

const struct format format_gpustat_json = {
	.id = "gpustat-json",
	.summary = "gpustat --json: one document per run, GPUs with their processes and users",
	.detects = "a JSON object with \"query_time\" and \"gpus\" (gpustat's keys)",
	.state_size = sizeof(struct gsj),
	.sniff = gsj_sniff,
	.stream = gsj_stream,
	.fini = gsj_fini,
};
