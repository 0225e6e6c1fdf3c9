/* SPDX-License-Identifier: MIT */
/*
 * `amd-smi monitor` as printed (docs/formats/amd-smi-monitor.md): a header
 * of upper-case labels ("GPU  POWER  GPU_T  MEM_T  GFX_CLK  GFX%  MEM% ...";
 * ROCm 6.1 "GPU_TEMP ... GFX_UTIL ... VRAM_USED  VRAM_TOTAL"; ROCm 6.4
 * "VRAM_USAGE" as "3.0/191.7 GB"; ROCm 7 an "XCP" column), then a row per
 * GPU, right-aligned, each value with its unit a space apart ("305 W",
 * "49 °C", "2106 MHz", "97 %").  With --process (-q) a "PROCESS INFO:"
 * table follows: "GPU  NAME  PID  GTT_MEM  CPU_MEM  VRAM_MEM  MEM_USAGE
 * GFX  ENC", a row per process on a GPU.
 *
 * A row's values are its whitespace-apart words with each unit joined to
 * the number before it (and "0.5/ 48.0 GB" kept whole), as many as the
 * header's labels; a process's name takes the words a row has over them.
 * The units are amd-smi's (amd_smi.h: its MB and GB are MiB and GiB).
 * There is no time: each run is one tick (ticks.h: a GPU index that does
 * not grow starts the next), unless `watch` printed its "Every Ns: ...
 * <date>" header above it or amd-smi's own --watch put a TIMESTAMP (Unix
 * seconds) first on each row, after its "'CTRL' + 'C' to stop watching
 * output:" line.
 */
#include "formats/format.h"

#include <stdint.h>
#include <string.h>

#include "formats/amd_smi.h"
#include "formats/smi.h"

#define MAX_COLS 32

enum role {
	R_SKIP,
	R_GPU,
	R_FIELD,	/* a metric through fields[] */
	R_VRAM_USAGE,	/* "used/total unit" */
	R_NAME,		/* process table */
	R_PID,
	R_VRAM_MEM,
	R_MEM_USAGE,
	R_TIME,		/* --watch's TIMESTAMP: Unix seconds */
};

enum { S_NONE, S_MON, S_PROC_WAIT, S_PROC };

static const struct {
	const char *label;
	uint8_t role;
	struct amd_field f;
} labels[] = {
	{ "GPU", R_GPU, { 0 } },
	{ "POWER", R_FIELD, { .name = "POWER", .metric = M_POWER, .unit = AU_W } },
	{ "GPU_T", R_FIELD, { .name = "GPU_T", .metric = M_TEMP, .unit = AU_C } },
	{ "GPU_TEMP", R_FIELD, { .name = "GPU_TEMP", .metric = M_TEMP, .unit = AU_C } },
	{ "MEM_T", R_FIELD, { .name = "MEM_T", .metric = M_MEM_TEMP, .unit = AU_C } },
	{ "MEM_TEMP", R_FIELD, { .name = "MEM_TEMP", .metric = M_MEM_TEMP, .unit = AU_C } },
	{ "GFX_CLK", R_FIELD, { .name = "GFX_CLK", .metric = M_SM_CLOCK, .unit = AU_MHZ } },
	{ "GFX_CLOCK", R_FIELD, { .name = "GFX_CLOCK", .metric = M_SM_CLOCK, .unit = AU_MHZ } },
	{ "MEM_CLOCK", R_FIELD, { .name = "MEM_CLOCK", .metric = M_MEM_CLOCK, .unit = AU_MHZ } },
	{ "GFX%", R_FIELD, { .name = "GFX%", .metric = M_UTIL_GPU, .unit = AU_PCT } },
	{ "GFX_UTIL", R_FIELD, { .name = "GFX_UTIL", .metric = M_UTIL_GPU, .unit = AU_PCT } },
	{ "MEM%", R_FIELD, { .name = "MEM%", .metric = M_UTIL_MEM, .unit = AU_PCT } },
	{ "MEM_UTIL", R_FIELD, { .name = "MEM_UTIL", .metric = M_UTIL_MEM, .unit = AU_PCT } },
	{ "VRAM_USED", R_FIELD, { .name = "VRAM_USED", .metric = M_MEM_USED, .unit = AU_MIB } },
	{ "VRAM_TOTAL", R_FIELD, { .name = "VRAM_TOTAL", .metric = M_MEM_TOTAL, .unit = AU_MIB } },
	{ "VRAM_USAGE", R_VRAM_USAGE, { 0 } },
	/* an APU (MI300A): the GTT pool, the memory its GPU uses */
	{ "GTT_USAGE", R_VRAM_USAGE, { 0 } },
};

/* the process table's columns */
static const struct amd_field proc_mem = { .name = "VRAM_MEM", .metric = M_MEM_USED,
					   .unit = AU_MIB };

struct amd_mon {
	bool has_time;		/* a `watch` header dated the rows below it */
	int64_t t_ns;
	uint8_t sect;
	uint32_t ncols;
	uint8_t role[MAX_COLS];
	uint8_t field[MAX_COLS];	/* index in labels[] of an R_FIELD */
	uint32_t name_col;		/* the process table's NAME, or MAX_COLS */
};

static int label_at(struct slice l)
{
	for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		if (slice_eq(l, labels[i].label))
			return (int)i;
	return -1;
}

/* Is s a monitor header (GPU and at least one metric label) or the
 * process table's (GPU, NAME, PID)? 1 monitor, 2 process, 0 neither. */
static int header_kind(struct slice s)
{
	struct slice c[MAX_COLS];
	size_t n = amd_words(s, c, MAX_COLS);
	bool name = false, pid = false, metric = false;

	size_t first = n > 1 && slice_eq(c[0], "TIMESTAMP") ? 1 : 0;

	if (!n || n > MAX_COLS || !slice_eq(c[first], "GPU"))
		return 0;
	for (size_t i = first + 1; i < n; i++) {
		int k = label_at(c[i]);
		name |= slice_eq(c[i], "NAME");
		pid |= slice_eq(c[i], "PID");
		metric |= k > 0;
		for (size_t j = 0; j < c[i].n; j++)
			if (c[i].p[j] >= 'a' && c[i].p[j] <= 'z')
				return 0;	/* labels are upper case */
	}
	if (name && pid)
		return 2;
	return metric ? 1 : 0;
}

static void read_header(struct amd_mon *m, struct slice s, bool proc)
{
	struct slice c[MAX_COLS];
	size_t n = amd_words(s, c, MAX_COLS);

	m->ncols = (uint32_t)n;
	m->name_col = MAX_COLS;
	for (size_t i = 0; i < n; i++) {
		int k = label_at(c[i]);
		m->role[i] = R_SKIP;
		m->field[i] = 0;
		if (slice_eq(c[i], "TIMESTAMP")) {
			m->role[i] = R_TIME;
		} else if (!proc && k >= 0) {
			m->role[i] = labels[k].role;
			m->field[i] = (uint8_t)k;
		} else if (proc) {
			if (slice_eq(c[i], "GPU"))
				m->role[i] = R_GPU;
			else if (slice_eq(c[i], "NAME"))
				m->name_col = (uint32_t)i, m->role[i] = R_NAME;
			else if (slice_eq(c[i], "PID"))
				m->role[i] = R_PID;
			else if (slice_eq(c[i], "VRAM_MEM"))
				m->role[i] = R_VRAM_MEM;
			else if (slice_eq(c[i], "MEM_USAGE"))
				m->role[i] = R_MEM_USAGE;
		}
	}
}

/* "305 W" as number and unit */
static void split_unit(struct slice v, struct slice *num, struct slice *unit)
{
	const char *sp = memchr(v.p, ' ', v.n);
	*num = v;
	unit->p = NULL;
	unit->n = 0;
	if (sp) {
		*num = (struct slice){ v.p, (size_t)(sp - v.p) };
		*unit = slice_trim((struct slice){ sp, (size_t)(v.p + v.n - sp) });
	}
}

/* TIMESTAMP: Unix seconds (amd-smi monitor --watch) */
static int time_cell(struct parse_ctx *ctx, const char *line, struct slice v, int64_t *t_ns)
{
	int64_t sec;

	if (slice_to_i64(v, &sec) || sec < 0 || sec > INT64_MAX / 1000000000) {
		ctx_bad(ctx, ctx_col(line, v.p), "TIMESTAMP \"%.*s\" is not a Unix time in seconds",
			fmt_quote_len(v), v.p);
		return -1;
	}
	*t_ns = sec * 1000000000;
	return 0;
}

static int gpu_cell(struct parse_ctx *ctx, const char *line, struct slice v, int64_t *idx)
{
	if (slice_to_i64(v, idx) || *idx < 0 || *idx > 65535) {
		ctx_bad(ctx, ctx_col(line, v.p), "\"%.*s\" is not a GPU index", fmt_quote_len(v), v.p);
		return -1;
	}
	return 0;
}

/* A value of field f, or a bad cell reported: 0 set, 1 missing, -1 bad. */
static int value(struct parse_ctx *ctx, const char *line, const char *label,
		 const struct amd_field *f, struct slice v, double *out)
{
	struct slice num, unit;
	const char *why = NULL;
	int rc;

	split_unit(v, &num, &unit);
	rc = amd_value(f, num, unit, out, &why);
	if (rc < 0) {
		ctx_bad(ctx, ctx_col(line, v.p), "%s \"%.*s\": %s", label, fmt_quote_len(v), v.p,
			why);
		return -1;
	}
	return rc;
}

/* "3.0/191.7 GB", "0.5/ 48.0 GB": used and total in the one unit after them */
static void vram_usage(struct parse_ctx *ctx, const char *line, struct slice v,
		       struct amd_sample *smp)
{
	static const struct amd_field used_f = { .name = "VRAM_USAGE", .metric = M_MEM_USED,
						 .unit = AU_MIB };
	static const struct amd_field tot_f = { .name = "VRAM_USAGE", .metric = M_MEM_TOTAL,
						.unit = AU_MIB };
	const char *why = NULL;
	double u, t;
	int ru, rt;

	if (amd_pair(&used_f, &tot_f, v, &u, &ru, &t, &rt, &why) < 0) {
		ctx_bad(ctx, ctx_col(line, v.p), "VRAM_USAGE \"%.*s\": %s", fmt_quote_len(v), v.p,
			why);
		return;
	}
	if (!ru)
		amd_sample_set(smp, &used_f, u);
	if (!rt)
		amd_sample_set(smp, &tot_f, t);
}

static void mon_row(struct parse_ctx *ctx, struct amd_mon *m, const char *line, struct slice s)
{
	struct slice c[MAX_COLS];
	size_t n = amd_words(s, c, MAX_COLS);
	struct amd_sample smp;
	int64_t idx = -1, t_ns = -1;
	struct rec *r;

	if (n != m->ncols) {
		ctx_bad(ctx, ctx_col(line, s.p), "%s%zu values where the header names %u columns",
			ctx->last_line_partial ? "line cut short: " : "",
			n > MAX_COLS ? (size_t)MAX_COLS + 1 : n, m->ncols);
		return;
	}
	amd_sample_init(&smp);
	for (uint32_t i = 0; i < m->ncols; i++) {
		const struct amd_field *f = &labels[m->field[i]].f;
		double v;
		switch (m->role[i]) {
		case R_GPU:
			if (gpu_cell(ctx, line, c[i], &idx))
				return;
			break;
		case R_TIME:
			if (time_cell(ctx, line, c[i], &t_ns))
				return;
			break;
		case R_FIELD:
			if (value(ctx, line, f->name, f, c[i], &v) == 0)
				amd_sample_set(&smp, f, v);
			break;
		case R_VRAM_USAGE:
			vram_usage(ctx, line, c[i], &smp);
			break;
		default:
			break;
		}
	}
	if (idx < 0) {
		ctx_bad(ctx, ctx_col(line, s.p), "a row with no GPU column");
		return;
	}
	if (!(r = ctx_rec(ctx, REC_SAMPLE)))
		return;
	r->t_ns = t_ns >= 0 ? t_ns : m->has_time ? m->t_ns : 0;
	r->time_kind = t_ns >= 0 || m->has_time ? TK_ABS : TK_NONE;
	r->gpu_index = (int32_t)idx;
	r->present = smp.g.present;
	for (int k = 0; k < M__COUNT; k++)
		if (smp.g.present & (1u << k))
			r->v[k] = smp.g.v[k];
}

static void proc_row(struct parse_ctx *ctx, struct amd_mon *m, const char *line, struct slice s)
{
	struct slice c[MAX_COLS + 16];
	struct slice v[MAX_COLS];
	int64_t idx = -1, pid = -1, t_ns = -1;
	double vram = -1, mem = -1, x;
	bool has_vram_col = false;
	uint32_t name = STR_NONE;
	uint8_t st = 0;

	/* a name with spaces: its words are the row's words over the labels */
	if (!amd_row_columns(ctx, line, s, m->ncols, m->name_col, v, c, MAX_COLS + 16))
		return;
	for (uint32_t i = 0; i < m->ncols; i++) {
		switch (m->role[i]) {
		case R_GPU:
			if (gpu_cell(ctx, line, v[i], &idx))
				return;
			break;
		case R_TIME:
			if (time_cell(ctx, line, v[i], &t_ns))
				return;
			break;
		case R_NAME:
			if (v[i].n && !slice_eq(v[i], "N/A"))
				name = ctx_str(ctx, v[i]);
			break;
		case R_PID:
			if (slice_to_i64(v[i], &pid) || pid < 0) {
				ctx_bad(ctx, ctx_col(line, v[i].p), "\"%.*s\" is not a process id",
					fmt_quote_len(v[i]), v[i].p);
				return;
			}
			break;
		case R_VRAM_MEM:
			has_vram_col = true;
			if (value(ctx, line, "VRAM_MEM", &proc_mem, v[i], &x) == 0)
				vram = x;
			else if (!smi_missing_token(v[i], &st))
				return;
			break;
		case R_MEM_USAGE:
			if (value(ctx, line, "MEM_USAGE", &proc_mem, v[i], &x) == 0)
				mem = x;
			else if (!smi_missing_token(v[i], &st))
				return;
			break;
		default:
			break;
		}
	}
	/* VRAM_MEM is the device memory; MEM_USAGE only without that column */
	amd_proc_row_emit(ctx, line, s, idx, pid, name, t_ns >= 0 ? t_ns : m->t_ns, t_ns >= 0 || m->has_time, vram,
			  mem, has_vram_col);
}

static void am_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	struct amd_mon *m = ctx->state;
	struct slice s = slice_trim((struct slice){ line, n });
	int64_t tn;
	int hk;

	if (!s.n)
		return;
	if (!smi_watch_header(s, &tn)) {
		m->has_time = true;
		m->t_ns = tn;
		m->sect = S_NONE;
		return;
	}
	if (slice_starts_with(s, "WARNING") || slice_starts_with(s, "ERROR")) {
		ctx_event(ctx, EV_TOOL_ERROR, 0, TK_NONE, -1, "%.*s", fmt_quote_len(s), s.p);
		return;
	}
	if (slice_starts_with(s, "'CTRL' + 'C'"))
		return;	/* amd-smi's --watch notice */
	if (slice_eq(s, "PROCESS INFO:")) {
		m->sect = S_PROC_WAIT;
		return;
	}
	if ((hk = header_kind(s))) {
		read_header(m, s, hk == 2);
		m->sect = hk == 2 ? S_PROC : S_MON;
		return;
	}
	if (m->sect != S_NONE && slice_starts_with(s, "No running processes"))
		return;
	if (m->sect == S_MON) {
		mon_row(ctx, m, line, s);
		return;
	}
	if (m->sect == S_PROC) {
		proc_row(ctx, m, line, s);
		return;
	}
	ctx_bad(ctx, ctx_col(line, s.p), "\"%.*s\" is not under an amd-smi monitor header",
		fmt_quote_len(s), s.p);
}

static int am_sniff(const char *head, size_t n, const char *name)
{
	const char *p = head, *end = head + n;
	(void)name;
	/* the header, after amd-smi's WARNING lines, blank lines and a
	 * `watch` header */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct slice s = slice_trim((struct slice){ p, (size_t)((nl ? nl : end) - p) });
		if (s.n && !slice_starts_with(s, "WARNING") && !slice_starts_with(s, "Every ") &&
		    !slice_starts_with(s, "'CTRL' + 'C'"))
			return nl && header_kind(s) == 1 ? 90 : 0;
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}

const struct format format_amd_smi_monitor = {
	.id = "amd-smi-monitor",
	.summary = "amd-smi monitor as printed (GPU  POWER  GPU_T  MEM_T ... a row per GPU), with "
		   "--process (-q): its PROCESS INFO table, AMD GPUs and their processes",
	.detects = "a first line 'GPU' then upper-case amd-smi monitor labels (POWER, GPU_T, "
		   "GFX%, VRAM_USED ...), after amd-smi's WARNING lines",
	.state_size = sizeof(struct amd_mon),
	.sniff = am_sniff,
	.line = am_line,
	.whole_file = true,
};
