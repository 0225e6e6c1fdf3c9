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
 *
 * `amd-smi process --csv` is read here too: a header "gpu,name,pid,gtt_mem,
 * cpu_mem,vram_mem,mem_usage,gfx,enc", one row per process and GPU, memory
 * in bytes (or with a unit, "7.3 GB").  Its rows are processes on the GPU's
 * timeline, as `amd-smi process --json` gives them; its mem_usage is bytes,
 * never metric's memory activity in %, so a table with a pid column takes
 * none of metric's fields.
 */
#include "formats/format.h"

#include <string.h>

#include "formats/amd_smi.h"

#define MAX_COLS 512

enum col_role { C_SKIP, C_GPU, C_TIME, C_FIELD, C_PID, C_PNAME, C_VRAM, C_PMEM };

struct amd_csv {
	uint32_t ncols;		/* 0: no header yet */
	bool proc;		/* `amd-smi process --csv`: a pid column */
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
	t->proc = false;
	for (size_t i = 0; i < n; i++)
		if (slice_eq(slice_trim(c[i]), "pid"))
			t->proc = true;
	for (size_t i = 0; i < n; i++) {
		struct slice name = slice_trim(c[i]);
		t->field[i] = NULL;
		if (t->proc) {
			/* the process table's names, and none of metric's */
			t->role[i] = slice_eq(name, "gpu")	  ? C_GPU
				     : slice_eq(name, "timestamp") ? C_TIME
				     : slice_eq(name, "pid")	  ? C_PID
				     : slice_eq(name, "name")	  ? C_PNAME
				     : slice_eq(name, "vram_mem") ? C_VRAM
				     : slice_eq(name, "mem_usage") ? C_PMEM
				     : slice_eq(name, "mem")	  ? C_PMEM	/* amd-smi 27 */
								   : C_SKIP;
			continue;
		}
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

/* A process's memory in MiB: bytes with no unit, or "7.3 GB" (0: set, 1: none, -1 bad). */
static int proc_mib(struct slice v, double *mib, const char **why)
{
	static const struct amd_field mem = { .name = "vram_mem", .metric = M_MEM_USED,
					      .unit = AU_MIB };
	const char *p = v.p, *end = v.p + v.n;
	double d;

	/* a bare number is a byte count: what the process list gives */
	if (v.n && !scan_double(&p, end, &d) && p == end)
		return amd_value(&mem, v, (struct slice){ "B", 1 }, mib, why) ? -1 : 0;
	switch (amd_value(&mem, v, (struct slice){ NULL, 0 }, mib, why)) {
	case 0:
		return 0;
	case 1:
		return 1;
	default:
		return -1;
	}
}

/* What places a row: its GPU index and, with a timestamp column, its time. */
struct row_key {
	int64_t idx, t_ns;	/* idx -1: no gpu column yet */
	bool has_time;
};

/* Cell c, of role C_GPU or C_TIME, into k; false after saying why it is bad. */
static bool key_cell(struct parse_ctx *ctx, const char *line, int role, struct slice c, struct row_key *k)
{
	struct slice v = slice_trim(c);
	double d;

	if (role == C_GPU) {
		if (slice_to_i64(v, &k->idx) || k->idx < 0 || k->idx > 65535) {
			ctx_bad(ctx, ctx_col(line, c.p), "\"%.*s\" is not a GPU index", fmt_quote_len(v), v.p);
			return false;
		}
		return true;
	}
	if (slice_to_double(v, &d) || d < 0 || d > 4e9) {
		ctx_bad(ctx, ctx_col(line, c.p), "\"%.*s\" is not a time in epoch seconds", fmt_quote_len(v), v.p);
		return false;
	}
	k->t_ns = (int64_t)(d * 1e9 + 0.5);
	k->has_time = true;
	return true;
}

/* A record of the row keyed by k, on its GPU at its time; NULL after saying
 * why (no gpu column: at is where the row starts) or when none is left. */
static struct rec *key_rec(struct parse_ctx *ctx, const char *line, const char *at, const struct row_key *k,
			   int kind)
{
	struct rec *r;

	if (k->idx < 0) {
		ctx_bad(ctx, ctx_col(line, at), "a row with no gpu column");
		return NULL;
	}
	if (!(r = ctx_rec(ctx, kind)))
		return NULL;
	r->t_ns = k->t_ns;
	r->time_kind = k->has_time ? TK_ABS : TK_NONE;
	r->gpu_index = (int32_t)k->idx;
	return r;
}

/* One row of `amd-smi process --csv`: one process on one GPU. */
static void proc_row(struct parse_ctx *ctx, struct amd_csv *t, const char *line,
		     const struct slice *c)
{
	struct row_key key = { -1, 0, false };
	int64_t pid = -2;
	double vram = 0, mem = 0;
	bool has_vram = false, has_mem = false, bad_vram = false;
	struct slice pname = { NULL, 0 };
	struct rec *r;

	for (uint32_t i = 0; i < t->ncols; i++) {
		struct slice v = slice_trim(c[i]);
		const char *why = "not a number";
		uint8_t st = 0;
		int k;
		switch (t->role[i]) {
		case C_GPU:
		case C_TIME:
			if (!key_cell(ctx, line, t->role[i], c[i], &key))
				return;
			break;
		case C_PID:
			if (smi_missing_token(v, &st))
				break;
			if (slice_to_i64(v, &pid) || pid < 0) {
				ctx_bad(ctx, ctx_col(line, c[i].p), "\"%.*s\" is not a process id",
					fmt_quote_len(v), v.p);
				return;
			}
			break;
		case C_PNAME:
			pname = v;
			break;
		case C_VRAM:
		case C_PMEM:
			k = proc_mib(v, t->role[i] == C_VRAM ? &vram : &mem, &why);
			if (k < 0) {
				ctx_bad(ctx, ctx_col(line, c[i].p), "%s \"%.*s\": %s",
					t->role[i] == C_VRAM ? "vram_mem" : "mem_usage",
					fmt_quote_len(v), v.p, why);
				bad_vram = true;	/* not made up from the other */
			}
			else if (!k && t->role[i] == C_VRAM)
				has_vram = true;
			else if (!k)
				has_mem = true;
			break;
		default:
			break;
		}
	}
	if (!(r = key_rec(ctx, line, c[0].p, &key, REC_PROC)))
		return;
	r->uuid = STR_NONE;
	r->pid = pid;
	r->name = pname.n && !slice_eq(pname, "N/A") ? ctx_str(ctx, pname) : STR_NONE;
	/* mem_usage (VRAM, GTT and CPU together) only where no vram_mem is given */
	if (!bad_vram && (has_vram || has_mem)) {
		r->v[2] = has_vram ? vram : mem;
		r->present |= PF_FB;
	}
}

static void row(struct parse_ctx *ctx, struct amd_csv *t, const char *line, struct slice s)
{
	struct slice c[MAX_COLS];
	struct amd_sample smp;
	bool over;
	size_t n = cells(s, c, MAX_COLS, &over);
	struct row_key key = { -1, 0, false };
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
	if (t->proc) {
		proc_row(ctx, t, line, c);
		return;
	}
	amd_sample_init(&smp);
	for (uint32_t i = 0; i < t->ncols; i++) {
		struct slice v = slice_trim(c[i]);
		const char *why = NULL;
		double d;
		switch (t->role[i]) {
		case C_GPU:
		case C_TIME:
			if (!key_cell(ctx, line, t->role[i], c[i], &key))
				return;
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
	if (!(r = key_rec(ctx, line, s.p, &key, REC_SAMPLE)))
		return;
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
	/* amd-smi process --csv: above smi-apps' 92 for a pid and a name, as
	 * nvidia-smi never names a column gtt_mem or vram_mem */
	if (memmem(first.p, first.n, ",pid", 4) &&
	    (memmem(first.p, first.n, "vram_mem", 8) || memmem(first.p, first.n, "gtt_mem", 7)))
		return 95;
	return 0;
}

const struct format format_amd_smi_csv = {
	.id = "amd-smi-csv",
	.summary = "amd-smi metric --csv (any of -u -p -c -t -m -E, -w loops) and amd-smi process "
		   "--csv: AMD GPUs, ROCm 6 and 7",
	.detects = "a first line 'gpu,' or 'timestamp,gpu,' naming amd-smi fields (gfx_activity, "
		   "socket_power, hotspot, total_vram ...) or a process table's (pid, vram_mem)",
	.state_size = sizeof(struct amd_csv),
	.sniff = ac_sniff,
	.is_context = ac_is_context,
	.context_first = "gt",
	.line = ac_line,
};
