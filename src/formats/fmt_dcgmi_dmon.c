/* SPDX-License-Identifier: MIT */
/*
 * `dcgmi dmon -e FIELDS` (docs/formats/dcgmi-dmon.md): a "#Entity" header
 * naming each field by its DCGM tag (GPUTL, POWER, GRACT, SMACT, ...),
 * whether -e was given ids or names, an "ID" line (units for some fields),
 * then one row per entity per interval: "GPU 0  0.912  241.3 ...".  There
 * is no time in the file: rows are ticks of --interval (dmon -d), a tick
 * ending where an entity comes again.
 *
 * The GPU's busy share is the profiling GRACT (graphics engine active) when
 * the file has it, else SMACT, else GPUTL (NVML's coarser "a kernel ran"),
 * as for dcgm-exporter's series (prom_names.c).  MIG instance rows (GPU-I,
 * GPU-CI) name no parent GPU, so they are read and not attributed; and on a
 * GPU split into MIG instances GPUTL reads 0 whatever runs, so once a file
 * shows instance rows, GPUTL is not taken for any GPU's busy share: a slice
 * is never called idle from a 0 that cannot measure it.  Read as a stream
 * (textlines.c) so that a tick's GPU rows are held until the tick ends.
 */
#include "formats/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/smi.h"

#define MAX_COLS 48
#define MAX_TICK 64

enum role {
	R_SKIP,
	R_UTIL,		/* GPUTL: %, untrusted once MIG rows appear */
	R_MEMUTIL,	/* MCUTL: % */
	R_GRACT,	/* fractions 0..1 */
	R_SMACT,
	R_TENSO,
	R_DRAMA,
	R_POWER,	/* W */
	R_TEMP,		/* C */
	R_MEMTEMP,
	R_FBUSED,	/* MiB */
	R_FBTOTAL,
	R_SMCLK,	/* MHz */
	R_MEMCLK,
	R_PCITX,	/* bytes/s */
	R_PCIRX,
};

static const struct {
	const char *tag;
	uint8_t role;
} tags[] = {
	{ "GPUTL", R_UTIL },	{ "MCUTL", R_MEMUTIL }, { "GRACT", R_GRACT },
	{ "SMACT", R_SMACT },	{ "TENSO", R_TENSO },	{ "DRAMA", R_DRAMA },
	{ "POWER", R_POWER },	{ "TMPTR", R_TEMP },	{ "MMTMP", R_MEMTEMP },
	{ "FBUSD", R_FBUSED },	{ "FBTTL", R_FBTOTAL }, { "SMCLK", R_SMCLK },
	{ "MMCLK", R_MEMCLK },	{ "PCITX", R_PCITX },	{ "PCIRX", R_PCIRX },
};

struct pend {
	struct rec r;
	bool util_from_gputl;
};

struct dmon {
	struct textlines tl;
	uint32_t ncols;		/* value columns after the entity; 0: no header yet */
	uint8_t role[MAX_COLS];
	bool mig_seen;		/* a GPU-I or GPU-CI row was read */
	struct pend tick[MAX_TICK];
	uint32_t ntick;
};

static void d_fini(void *state)
{
	struct dmon *d = state;
	textlines_free(&d->tl);
}

static void set(struct rec *r, int m, double v)
{
	r->v[m] = v;
	r->present |= 1u << m;
}

/* The held rows of a tick, in order. */
static void flush(struct parse_ctx *ctx, struct dmon *d)
{
	uint64_t keep = ctx->line;

	/* dmon may list a tick's GPUs high to low (GPU 7 ... GPU 0): emitted in
	 * index order, as the driver counts a tick's rows (ticks.h) */
	for (uint32_t i = 1; i < d->ntick; i++)
		for (uint32_t j = i; j > 0 && d->tick[j - 1].r.gpu_index > d->tick[j].r.gpu_index; j--) {
			struct pend t = d->tick[j];
			d->tick[j] = d->tick[j - 1];
			d->tick[j - 1] = t;
		}
	for (uint32_t i = 0; i < d->ntick; i++) {
		struct pend *p = &d->tick[i];
		struct rec *r;
		if (p->util_from_gputl && d->mig_seen)
			p->r.present &= ~(1u << M_UTIL_GPU);
		ctx->line = p->r.line;
		if (!(r = ctx_rec(ctx, REC_SAMPLE)))
			continue;
		*r = p->r;
		r->kind = REC_SAMPLE;
	}
	d->ntick = 0;
	ctx->line = keep;
}

static void header(struct dmon *d, const struct slice *tok, size_t nt)
{
	d->ncols = 0;
	/* "#Entity" then one tag per column */
	for (size_t i = 1; i < nt && d->ncols < MAX_COLS; i++) {
		uint8_t role = R_SKIP;
		for (size_t k = 0; k < sizeof(tags) / sizeof(tags[0]); k++)
			if (slice_eq(tok[i], tags[k].tag))
				role = tags[k].role;
		d->role[d->ncols++] = role;
	}
}

static void row(struct parse_ctx *ctx, struct dmon *d, const char *line, const struct slice *tok,
		size_t nt, int64_t gpu)
{
	struct pend p;
	bool have_gract = false, have_smact = false;
	double v;
	uint8_t st = 0;

	if (nt - 2 != d->ncols) {
		ctx_bad(ctx, ctx_col(line, tok[0].p), "%zu values where the #Entity header names %u",
			nt - 2, d->ncols);
		return;
	}
	memset(&p, 0, sizeof(p));
	p.r.time_kind = TK_NONE;
	p.r.gpu_index = (int32_t)gpu;
	p.r.uuid = p.r.name = STR_NONE;
	p.r.line = ctx->line;
	for (uint32_t c = 0; c < d->ncols; c++) {
		struct slice t = tok[c + 2];
		uint8_t role = d->role[c];
		if (role == R_SKIP)
			continue;
		if (!smi_value_unit(t, "", &v, &st)) {
			if (!smi_missing_token(t, &st))
				ctx_bad(ctx, ctx_col(line, t.p), "\"%.*s\" is not a number", fmt_quote_len(t),
					t.p);
			continue;
		}
		switch (role) {
		case R_UTIL:
			if (!have_gract && !have_smact) {
				p.util_from_gputl = true;
				set(&p.r, M_UTIL_GPU, v);
			}
			break;
		case R_MEMUTIL: set(&p.r, M_UTIL_MEM, v); break;
		case R_GRACT:
			have_gract = true;
			p.util_from_gputl = false;
			set(&p.r, M_UTIL_GPU, v * 100);
			break;
		case R_SMACT:
			set(&p.r, M_SM_ACTIVE, v * 100);
			if (!have_gract) {
				have_smact = true;
				p.util_from_gputl = false;
				set(&p.r, M_UTIL_GPU, v * 100);
			}
			break;
		case R_TENSO: set(&p.r, M_TENSOR_ACTIVE, v * 100); break;
		case R_DRAMA: set(&p.r, M_DRAM_ACTIVE, v * 100); break;
		case R_POWER: set(&p.r, M_POWER, v); break;
		case R_TEMP: set(&p.r, M_TEMP, v); break;
		case R_MEMTEMP: set(&p.r, M_MEM_TEMP, v); break;
		case R_FBUSED: set(&p.r, M_MEM_USED, v); break;
		case R_FBTOTAL: set(&p.r, M_MEM_TOTAL, v); break;
		case R_SMCLK: set(&p.r, M_SM_CLOCK, v); break;
		case R_MEMCLK: set(&p.r, M_MEM_CLOCK, v); break;
		case R_PCITX: set(&p.r, M_PCIE_TX, v / 1e6); break;
		case R_PCIRX: set(&p.r, M_PCIE_RX, v / 1e6); break;
		default: break;
		}
	}
	p.r.status = st;
	/* an entity seen again ends the tick */
	for (uint32_t i = 0; i < d->ntick; i++)
		if (d->tick[i].r.gpu_index == (int32_t)gpu) {
			flush(ctx, d);
			break;
		}
	if (d->ntick == MAX_TICK)
		flush(ctx, d);
	d->tick[d->ntick++] = p;
}

static void d_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	struct dmon *d = ctx->state;
	struct slice s = slice_trim((struct slice){ line, n }), tok[MAX_COLS + 4];
	size_t nt;
	int64_t id;

	if (!s.n)
		return;
	nt = scan_tokens(s, tok, MAX_COLS + 4);
	if (slice_eq(tok[0], "#Entity")) {
		flush(ctx, d);
		header(d, tok, nt);
		return;
	}
	if (slice_eq(tok[0], "ID"))
		return;	/* the header's second line (units) */
	if (nt >= 2 && (slice_eq(tok[0], "GPU-I") || slice_eq(tok[0], "GPU-CI"))) {
		d->mig_seen = true;
		return;	/* a MIG instance: no parent GPU on the row */
	}
	if (nt >= 2 && slice_eq(tok[0], "GPU")) {
		if (slice_to_i64(tok[1], &id) || id < 0 || id > 65535) {
			ctx_bad(ctx, ctx_col(line, tok[1].p), "\"%.*s\" is not a GPU id",
				fmt_quote_len(tok[1]), tok[1].p);
			return;
		}
		if (!d->ncols) {
			ctx_bad(ctx, ctx_col(line, s.p), "a row before any #Entity header: its "
				"fields are unknown");
			return;
		}
		row(ctx, d, line, tok, nt, id);
		return;
	}
	if (nt >= 2 && (slice_eq(tok[0], "Switch") || slice_eq(tok[0], "Link") ||
			slice_eq(tok[0], "CPU") || slice_eq(tok[0], "Core") || slice_eq(tok[0], "NvSwitch")))
		return;	/* not a GPU */
	if (slice_starts_with(s, "Error:") || slice_starts_with(s, "dmon was stopped")) {
		ctx_event(ctx, EV_TOOL_ERROR, 0, TK_NONE, -1, "%.*s", fmt_quote_len(s), s.p);
		return;
	}
	ctx_bad(ctx, ctx_col(line, s.p), "\"%.*s\" is not a dcgmi dmon row", fmt_quote_len(s), s.p);
}

static void d_stream(struct parse_ctx *ctx, const char *p, size_t n, bool last)
{
	struct dmon *d = ctx->state;

	textlines_feed(&d->tl, ctx, p, n, last, d_line);
	if (last) {
		uint64_t keep = ctx->line;
		flush(ctx, d);
		ctx->line = keep;
	}
}

static int d_sniff(const char *head, size_t n, const char *name)
{
	struct slice h = { head, n };
	(void)name;
	if (slice_starts_with(h, "#Entity ") || memmem(head, n, "\n#Entity ", 9))
		return 90;
	return 0;
}

const struct format format_dcgmi_dmon = {
	.id = "dcgmi-dmon",
	.summary = "dcgmi dmon -e FIELDS (ids or names): GPU rows per interval, profiling "
		   "fields (GRACT, SMACT, TENSO, DRAMA) preferred for the busy share",
	.detects = "a '#Entity' header line",
	.state_size = sizeof(struct dmon),
	.sniff = d_sniff,
	.stream = d_stream,
	.fini = d_fini,
};
