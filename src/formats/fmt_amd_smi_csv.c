/* SPDX-License-Identifier: MIT */
/*
 * `amd-smi metric --csv` (docs/formats/amd-smi-csv.md), with any of -u -p
 * -c -t -m -E ... and with -w N: a header naming the fields ("gpu,gfx_activity,
 * umc_activity,...", "timestamp,gpu,..." in watch mode, which prints it again
 * before each tick), then one row per GPU.  A list is one cell, quoted
 * ("[0, 0, 0, 0]") or, in ROCm 6.0, bare ([0, 0]).  Numbers carry no unit:
 * each field's unit is amd-smi's (W, %, C, MHz, MB that are MiB, J).  The
 * watch mode's "timestamp" is the time in epoch seconds; without it a row
 * has no time and the GPU index starting over starts the next tick.
 *
 * AMD GPUs are audited like NVIDIA ones; nothing NVIDIA-only is made up:
 * throttle_status is AMD's own word and is not a clock-event reason.
 */
#include "formats/format.h"

#include <string.h>

#include "formats/amd_smi.h"

#define MAX_COLS 512

enum col_role { C_SKIP, C_GPU, C_TIME, C_FIELD };

struct amd_csv {
	uint32_t ncols;		/* 0: no header yet */
	uint8_t role[MAX_COLS];
	const struct amd_field *field[MAX_COLS];
};

/* Cells: comma apart; "..." (with "" inside) and [...] are one cell each. */
static size_t cells(struct slice s, struct slice *c, size_t cap, bool *overflow)
{
	const char *p = s.p, *end = s.p + s.n;
	size_t n = 0;

	*overflow = false;
	for (;;) {
		const char *q = p, *a = p, *b;
		if (q < end && *q == '"') {
			a = ++q;
			while (q < end && !(*q == '"' && !(q + 1 < end && q[1] == '"')))
				q += *q == '"' ? 2 : 1;
			b = q < end ? q : end;
			if (q < end)
				q++;
		} else if (q < end && *q == '[') {
			while (q < end && *q != ']')
				q++;
			if (q < end)
				q++;
			b = q;
		} else {
			while (q < end && *q != ',')
				q++;
			b = q;
		}
		/* text after a closing quote or bracket stays in the cell */
		while (q < end && *q != ',')
			b = ++q;
		if (n == cap) {
			*overflow = true;
			return n;
		}
		c[n++] = (struct slice){ a, (size_t)(b - a) };
		if (q >= end)
			return n;
		p = q + 1;
	}
}

static bool is_header(struct slice s)
{
	return (slice_starts_with(s, "gpu,") || slice_starts_with(s, "timestamp,gpu,") ||
		slice_eq(s, "gpu"));
}

static bool ac_is_context(const char *line, size_t n)
{
	return is_header(slice_trim((struct slice){ line, n }));
}

static void header(struct parse_ctx *ctx, struct amd_csv *t, const char *line, struct slice s)
{
	struct slice c[MAX_COLS];
	bool over;
	size_t n = cells(s, c, MAX_COLS, &over);

	if (over) {
		ctx_bad(ctx, 1, "more than %d columns in an amd-smi header", MAX_COLS);
		t->ncols = 0;
		return;
	}
	t->ncols = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		struct slice name = slice_trim(c[i]);
		t->field[i] = NULL;
		if (slice_eq(name, "gpu"))
			t->role[i] = C_GPU;
		else if (slice_eq(name, "timestamp"))
			t->role[i] = C_TIME;
		else if ((t->field[i] = amd_field_find(name, NULL)))
			t->role[i] = C_FIELD;
		else
			t->role[i] = C_SKIP;
	}
	(void)line;
}

static void row(struct parse_ctx *ctx, struct amd_csv *t, const char *line, struct slice s)
{
	struct slice c[MAX_COLS];
	struct amd_sample smp;
	bool over, has_time = false;
	size_t n = cells(s, c, MAX_COLS, &over);
	int64_t idx = -1, t_ns = 0;
	struct rec *r;

	if (!over && n < t->ncols && ctx->last_line_partial) {
		ctx_bad(ctx, ctx_col(line, s.p), "the last row is cut: %zu of %u cells", n, t->ncols);
		return;
	}
	if (over || n != t->ncols) {
		ctx_bad(ctx, ctx_col(line, s.p), "%s%zu cells where the header names %u columns",
			over ? "more than " : "", n, t->ncols);
		return;
	}
	amd_sample_init(&smp);
	for (uint32_t i = 0; i < t->ncols; i++) {
		struct slice v = slice_trim(c[i]);
		const char *why = NULL;
		double d;
		switch (t->role[i]) {
		case C_GPU:
			if (slice_to_i64(v, &idx) || idx < 0 || idx > 65535) {
				ctx_bad(ctx, ctx_col(line, c[i].p), "\"%.*s\" is not a GPU index",
					fmt_quote_len(v), v.p);
				return;
			}
			break;
		case C_TIME:
			if (slice_to_double(v, &d) || d < 0 || d > 4e9) {
				ctx_bad(ctx, ctx_col(line, c[i].p),
					"\"%.*s\" is not a time in epoch seconds", fmt_quote_len(v), v.p);
				return;
			}
			t_ns = (int64_t)(d * 1e9 + 0.5);
			has_time = true;
			break;
		case C_FIELD:
			switch (amd_value(t->field[i], v, (struct slice){ NULL, 0 }, &d, &why)) {
			case 0:
				amd_sample_set(&smp, t->field[i], d);
				break;
			case -1:
			case -2:
				ctx_bad(ctx, ctx_col(line, c[i].p), "%s \"%.*s\": %s", t->field[i]->name,
					fmt_quote_len(v), v.p, why);
				break;
			default:
				break;
			}
			break;
		default:
			break;
		}
	}
	if (idx < 0) {
		ctx_bad(ctx, ctx_col(line, s.p), "a row with no gpu column");
		return;
	}
	if (!(r = ctx_rec(ctx, REC_SAMPLE)))
		return;
	r->t_ns = t_ns;
	r->time_kind = has_time ? TK_ABS : TK_NONE;
	r->gpu_index = (int32_t)idx;
	r->uuid = r->name = STR_NONE;
	r->present = smp.g.present;
	for (int m = 0; m < M__COUNT; m++)
		if (smp.g.present & (1u << m))
			r->v[m] = smp.g.v[m];
}

static void ac_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	struct amd_csv *t = ctx->state;
	struct slice s = slice_trim((struct slice){ line, n });

	if (!s.n)
		return;
	if (is_header(s)) {
		header(ctx, t, line, s);
		return;
	}
	if (ctx->replay)
		return;
	/* watch mode's first line */
	if (slice_starts_with(s, "'CTRL' + 'C'"))
		return;
	if (!t->ncols) {
		ctx_bad(ctx, ctx_col(line, s.p), "\"%.*s\" comes before any amd-smi header",
			fmt_quote_len(s), s.p);
		return;
	}
	row(ctx, t, line, s);
}

static int ac_sniff(const char *head, size_t n, const char *name)
{
	static const char *const names[] = { "gfx_activity", "umc_activity", "socket_power",
					     "hotspot", "total_vram", "used_vram", "gfx_usage",
					     "fb_total", "gfx_0_clk", "mem_0_clk",
					     "total_energy_consumption" };
	const char *p = head, *end = head + n, *eol;
	struct slice first;

	(void)name;
	for (;;) {
		while (p < end && (*p == '\n' || *p == '\r' || *p == ' '))
			p++;
		eol = memchr(p, '\n', (size_t)(end - p));
		first = slice_trim((struct slice){ p, (size_t)((eol ? eol : end) - p) });
		if (!slice_starts_with(first, "'CTRL' + 'C'") || !eol)
			break;
		p = eol + 1;
	}
	if (!slice_starts_with(first, "gpu,") && !slice_starts_with(first, "timestamp,gpu,"))
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (memmem(first.p, first.n, names[i], strlen(names[i])))
			return 90;
	return 0;
}

const struct format format_amd_smi_csv = {
	.id = "amd-smi-csv",
	.summary = "amd-smi metric --csv (any of -u -p -c -t -m -E, -w loops): AMD GPUs, ROCm 6 and 7",
	.detects = "a first line 'gpu,' or 'timestamp,gpu,' naming amd-smi fields (gfx_activity, "
		   "socket_power, hotspot, total_vram ...)",
	.state_size = sizeof(struct amd_csv),
	.sniff = ac_sniff,
	.is_context = ac_is_context,
	.context_first = "gt",
	.line = ac_line,
};
