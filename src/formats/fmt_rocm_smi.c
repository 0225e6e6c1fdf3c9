/* SPDX-License-Identifier: MIT */
/*
 * `rocm-smi` with no arguments: the concise table of AMD GPUs
 * (docs/formats/rocm-smi.md), one snapshot or `watch rocm-smi` loops.
 * Between the "ROCm System Management Interface" and "End of ROCm SMI
 * Log" banners, a header names the columns, two or more spaces apart
 * (ROCm 5: "GPU  Temp (DieEdge)  AvgPwr  SCLK ..."; ROCm 6: "Device
 * [Model : Revision]  Temp  Power  Partitions ..."), and each GPU is a row
 * of as many values, whitespace apart, where "[0x74a1 : 0x00]" and
 * "NPS1, SPX" are one value each; ROCm 6 puts the GPU's name on the next
 * line.  There is no time in the table: each table is one tick, unless
 * `watch` printed its "Every Ns: ... <date>" header above it.
 *
 * AMD GPUs are audited like NVIDIA ones (power, utilization, temperature,
 * clocks); nothing NVIDIA-only is made up for them: no clock-event
 * reasons, no Xid.  VRAM% is a share of memory with no size beside it: it
 * is not turned into MiB.  A `rocm-smi --showpids` / `--showpidgpus`
 * section printed below the table (one loop running both) is read by
 * rocm_kfd.c, as rocm-smi-pids reads it alone.
 */
#include "formats/format.h"

#include <stdio.h>
#include <string.h>

#include "formats/rocm_kfd.h"
#include "formats/smi.h"

#define MAX_COLS 24

enum role {
	R_SKIP,
	R_INDEX,
	R_TEMP,
	R_POWER,
	R_SCLK,
	R_MCLK,
	R_FAN,
	R_PWRCAP,
	R_GPU_PCT,
};

static const struct {
	const char *label;	/* the header label, or its first word */
	uint8_t role;
} labels[] = {
	{ "GPU", R_INDEX },	{ "Device", R_INDEX },	{ "Temp", R_TEMP },
	{ "AvgPwr", R_POWER },	{ "Power", R_POWER },	{ "SCLK", R_SCLK },
	{ "MCLK", R_MCLK },	{ "Fan", R_FAN },	{ "PwrCap", R_PWRCAP },
	{ "GPU%", R_GPU_PCT },
};

struct rocm_table {
	bool in_log;		/* between the banners */
	bool has_time;
	int64_t t_ns;
	uint32_t ncols;		/* 0: no header yet in this log */
	uint8_t role[MAX_COLS];
	bool name_line;		/* ROCm 6: the header has a second line of names */
	size_t last_rec;	/* index in the batch of the last row's sample, +1; 0 none */
	struct rocm_kfd kfd;	/* a --showpids / --showpidgpus section below the table */
};

/* Values of a row: whitespace apart, "[...]" and "A, B" kept whole. */
static size_t values(struct slice s, struct slice *v, size_t cap)
{
	const char *p = s.p, *end = s.p + s.n;
	size_t n = 0;

	while (n < cap) {
		const char *q;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p >= end)
			break;
		q = p;
		if (*q == '[') {
			const char *close = memchr(q, ']', (size_t)(end - q));
			q = close ? close + 1 : end;
		} else {
			while (q < end && *q != ' ' && *q != '\t')
				q++;
			/* "NPS1, SPX": a value ending in ',' takes the next word */
			if (q[-1] == ',') {
				while (q < end && (*q == ' ' || *q == '\t'))
					q++;
				while (q < end && *q != ' ' && *q != '\t')
					q++;
			}
		}
		v[n++] = (struct slice){ p, (size_t)(q - p) };
		p = q;
	}
	return n;
}

/* Labels: two or more spaces apart. */
static size_t header_labels(struct slice s, struct slice *l, size_t cap)
{
	const char *p = s.p, *end = s.p + s.n;
	size_t n = 0;

	while (n < cap && p < end) {
		const char *q = p;
		while (q < end && !(q + 1 < end && q[0] == ' ' && q[1] == ' ') && *q != '\t')
			q++;
		l[n++] = slice_trim((struct slice){ p, (size_t)(q - p) });
		while (q < end && (*q == ' ' || *q == '\t'))
			q++;
		p = q;
	}
	return n;
}

static bool number_unit(struct slice v, const char *const *units, double *out)
{
	uint8_t st = 0;
	for (size_t i = 0; units[i]; i++)
		if (smi_value_unit(v, units[i], out, &st))
			return true;
	return false;
}

static void row(struct parse_ctx *ctx, struct rocm_table *t, const char *line, struct slice s)
{
	struct slice v[MAX_COLS + 2];
	size_t nv = values(s, v, MAX_COLS + 2);
	static const char *const u_temp[] = { "\xc2\xb0" "C", "c", "C", NULL };
	static const char *const u_w[] = { "W", NULL };
	static const char *const u_mhz[] = { "Mhz", "MHz", NULL };
	static const char *const u_pct[] = { "%", NULL };
	struct rec g, *r;
	double x;
	int64_t idx = -1;
	uint8_t st = 0;

	if (nv != t->ncols) {
		ctx_bad(ctx, ctx_col(line, s.p), "%zu values where the header names %u columns", nv,
			t->ncols);
		return;
	}
	memset(&g, 0, sizeof(g));
	for (uint32_t c = 0; c < t->ncols; c++) {
		const char *const *units = NULL;
		int m = -1;
		switch (t->role[c]) {
		case R_INDEX:
			if (slice_to_i64(v[c], &idx) || idx < 0 || idx > 65535) {
				ctx_bad(ctx, ctx_col(line, v[c].p), "\"%.*s\" is not a GPU index",
					fmt_quote_len(v[c]), v[c].p);
				return;
			}
			continue;
		case R_TEMP: units = u_temp; m = M_TEMP; break;
		case R_POWER: units = u_w; m = M_POWER; break;
		case R_PWRCAP: units = u_w; m = M_POWER_LIMIT; break;
		case R_SCLK: units = u_mhz; m = M_SM_CLOCK; break;
		case R_MCLK: units = u_mhz; m = M_MEM_CLOCK; break;
		case R_FAN: units = u_pct; m = M_FAN; break;
		case R_GPU_PCT: units = u_pct; m = M_UTIL_GPU; break;
		default: continue;
		}
		if (number_unit(v[c], units, &x)) {
			g.v[m] = x;
			g.present |= 1u << m;
		} else if (!smi_missing_token(v[c], &st) && !slice_eq(v[c], "Unsupported")) {
			ctx_bad(ctx, ctx_col(line, v[c].p), "\"%.*s\" is not a reading of its column",
				fmt_quote_len(v[c]), v[c].p);
		}
	}
	if (idx < 0) {
		ctx_bad(ctx, ctx_col(line, s.p), "a row with no GPU column");
		return;
	}
	t->last_rec = 0;
	if (!(r = ctx_rec(ctx, REC_SAMPLE)))
		return;
	r->t_ns = t->has_time ? t->t_ns : 0;
	r->time_kind = t->has_time ? TK_ABS : TK_NONE;
	r->gpu_index = (int32_t)idx;
	r->uuid = r->name = STR_NONE;
	r->status = st;
	r->present = g.present;
	for (int m = 0; m < M__COUNT; m++)
		if (g.present & (1u << m))
			r->v[m] = g.v[m];
	/* ROCm 6 prints the name on the next line: it is set there */
	t->last_rec = ctx->out->nr;
}

static void header(struct rocm_table *t, struct slice s)
{
	struct slice l[MAX_COLS];
	size_t nl = header_labels(s, l, MAX_COLS);

	t->ncols = (uint32_t)nl;
	t->name_line = false;
	for (size_t i = 0; i < nl; i++) {
		t->role[i] = R_SKIP;
		for (size_t k = 0; k < sizeof(labels) / sizeof(labels[0]); k++) {
			size_t n = strlen(labels[k].label);
			if (l[i].n >= n && !memcmp(l[i].p, labels[k].label, n) &&
			    (l[i].n == n || l[i].p[n] == ' '))
				t->role[i] = labels[k].role;
		}
		if (slice_starts_with(l[i], "[Model"))
			t->name_line = true;	/* ROCm 6: names on the line under each row */
	}
}

static bool banner(struct slice s, const char *what)
{
	return s.n && s.p[0] == '=' && memmem(s.p, s.n, what, strlen(what));
}

static void rt_init(void *state, const struct ingest_opts *o)
{
	struct rocm_table *t = state;
	(void)o;
	memset(t, 0, sizeof(*t));
	rocm_kfd_reset(&t->kfd);
}

static void rt_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	struct rocm_table *t = ctx->state;
	struct slice s = slice_trim((struct slice){ line, n });
	int64_t tn;

	if (!s.n)
		return;
	if (!smi_watch_header(s, &tn)) {
		t->has_time = true;
		t->t_ns = tn;
		return;
	}
	if (banner(s, "ROCm System Management Interface")) {
		rocm_kfd_banner(ctx, &t->kfd, s);
		t->last_rec = 0;
		t->in_log = true;
		t->ncols = 0;
		return;
	}
	if (banner(s, "End of ROCm SMI Log")) {
		rocm_kfd_banner(ctx, &t->kfd, s);
		t->last_rec = 0;
		t->in_log = false;
		return;
	}
	if (s.p[0] == '=') {
		t->last_rec = 0;
		rocm_kfd_banner(ctx, &t->kfd, s);
		return;	/* "=== Concise Info ===" and the rules */
	}
	if (!t->in_log) {
		ctx_bad(ctx, ctx_col(line, s.p), "\"%.*s\" is outside a ROCm SMI log", fmt_quote_len(s),
			s.p);
		return;
	}
	if (rocm_kfd_line(ctx, &t->kfd, line, s, t->has_time ? t->t_ns : 0,
			  t->has_time ? TK_ABS : TK_NONE)) {
		t->last_rec = 0;
		return;
	}
	if (!t->ncols) {
		header(t, s);
		return;
	}
	if (line[0] == ' ' || line[0] == '\t') {
		/* ROCm 6: the header's second line, or the name under a row */
		if (t->name_line && t->last_rec && t->last_rec <= ctx->out->nr &&
		    ctx->out->recs[t->last_rec - 1].name == STR_NONE) {
			uint32_t off = ctx_str(ctx, s);
			ctx->out->recs[t->last_rec - 1].name = off;
		}
		t->last_rec = 0;
		return;
	}
	if (slice_starts_with(s, "WARNING") || slice_starts_with(s, "ERROR")) {
		ctx_event(ctx, EV_TOOL_ERROR, 0, TK_NONE, -1, "%.*s", fmt_quote_len(s), s.p);
		return;
	}
	row(ctx, t, line, s);
}

static int rt_sniff(const char *head, size_t n, const char *name)
{
	(void)name;
	if (memmem(head, n, "ROCm System Management Interface", 32) &&
	    memmem(head, n, "Concise Info", 12))
		return 90;
	return 0;
}

const struct format format_rocm_smi = {
	.id = "rocm-smi",
	.summary = "rocm-smi's concise table of AMD GPUs (ROCm 5 and 6), one snapshot or watch loops",
	.detects = "the 'ROCm System Management Interface' and 'Concise Info' banners",
	.state_size = sizeof(struct rocm_table),
	.init = rt_init,
	.sniff = rt_sniff,
	.line = rt_line,
	.whole_file = true,
};
