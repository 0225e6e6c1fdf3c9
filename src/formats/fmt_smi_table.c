/* SPDX-License-Identifier: MIT */
/*
 * The default `nvidia-smi` table (docs/formats/smi-table.md): one snapshot,
 * or `nvidia-smi -l N` and `watch nvidia-smi` loops of them.  The date line
 * above each snapshot (a C ctime string, local time; under `watch`, at the
 * end of its "Every 1.0s: nvidia-smi  host: ..." line) gives the time.
 *
 * Each GPU is two rows of three '|' cells (a third row, MIG M., is skipped):
 *   |   0  NVIDIA H200                    On  |   00000000:00:06.0 Off |                    0 |
 *   | N/A   40C    P0            127W /  700W |       0MiB / 143771MiB |      0%      Default |
 * read as fan, temperature, performance state, power / cap, memory used /
 * total and GPU-Util; both the pre-R530 box and the wider later one split
 * the same way.  The processes table gives one process record a row, with or
 * without the GI/CI columns.  The MIG devices table is recognised and not
 * read: it has no utilization, and nothing is made up for a slice.
 */
#include "formats/format.h"

#include <stdio.h>
#include <string.h>

#include "formats/smi.h"

#define MAX_TOK 32

enum sec { SEC_NONE, SEC_GPUS, SEC_MIG, SEC_PROCS };

struct smi_table {
	bool has_time;
	int64_t t_ns;
	uint8_t sec;		/* enum sec */
	uint8_t row;		/* GPU section: 0 expects the index row, 1 the figures row, 2 MIG M. */
	bool gi_ci;		/* the processes table has GI and CI columns */
	bool seen_table;	/* a banner or a table border was seen */
	int32_t gpu;		/* index of the open GPU row, -1 none */
	uint64_t gpu_line;
	char name[96];
};

static void t_init(void *state, const struct ingest_opts *o)
{
	struct smi_table *t = state;
	(void)o;
	t->gpu = -1;
}

/* Split the text between the first and the last '|' into cells. */
static size_t cells(struct slice t, struct slice *c, size_t cap)
{
	const char *p, *end;
	size_t n = 0;

	if (t.n < 2 || t.p[0] != '|' || t.p[t.n - 1] != '|')
		return 0;
	p = t.p + 1;
	end = t.p + t.n - 1;
	while (n < cap) {
		const char *bar = memchr(p, '|', (size_t)(end - p));
		const char *ce = bar ? bar : end;
		c[n++] = (struct slice){ p, (size_t)(ce - p) };
		if (!bar)
			break;
		p = bar + 1;
	}
	return n;
}

static bool is_border(struct slice t)
{
	return t.n >= 2 && (t.p[0] == '+' || t.p[0] == '|') &&
	       (t.p[1] == '-' || t.p[1] == '=');
}

/* A ctime alone on its line, or at the end of watch's header. */
static bool date_line(struct slice t, int64_t *t_ns)
{
	if (t.n >= 24 && !smi_ctime((struct slice){ t.p + t.n - 24, 24 }, t_ns))
		return t.n == 24 || slice_starts_with(t, "Every ");
	return false;
}

static void bad_cell(struct parse_ctx *ctx, const char *line, struct slice v, const char *what)
{
	ctx_bad(ctx, ctx_col(line, v.p), "\"%.*s\" is not %s", fmt_quote_len(v), v.p, what);
}

static bool number(struct parse_ctx *ctx, const char *line, struct slice v, const char *unit,
		   const char *what, double *out, uint8_t *status)
{
	if (slice_eq(v, "ERR!")) {
		*status |= GS_READ_ERROR;
		return false;
	}
	if (smi_value_unit(v, unit, out, status))
		return true;
	if (!smi_missing_token(v, status))
		bad_cell(ctx, line, v, what);
	return false;
}

static void set(struct rec *r, int m, double v)
{
	r->v[m] = v;
	r->present |= 1u << m;
}

/* |   0  NVIDIA H200                    On  |   00000000:00:06.0 Off |   0 | */
static void gpu_row(struct parse_ctx *ctx, struct smi_table *t, const char *line,
		    const struct slice *c)
{
	struct slice tok[MAX_TOK];
	size_t nt = scan_tokens(c[0], tok, MAX_TOK);
	int64_t idx;

	if (nt < 2 || slice_to_i64(tok[0], &idx) || idx < 0 || idx > 65535) {
		ctx_bad(ctx, ctx_col(line, c[0].p), "\"%.*s\" is not a GPU row (index, name, "
			"persistence mode)", fmt_quote_len(slice_trim(c[0])), slice_trim(c[0]).p);
		t->gpu = -1;
		t->row = 1;
		return;
	}
	t->gpu = (int32_t)idx;
	t->gpu_line = ctx->line;
	/* the name runs from the second token to the persistence (or driver
	 * model) column, the last token */
	if (nt >= 3) {
		struct slice name = { tok[1].p, (size_t)(tok[nt - 2].p + tok[nt - 2].n - tok[1].p) };
		slice_copy(t->name, sizeof(t->name), name);
	} else {
		slice_copy(t->name, sizeof(t->name), tok[1]);
	}
	t->row = 1;
}

/* | N/A   40C    P0            127W /  700W |       0MiB / 143771MiB |      0%      Default |
 * Read into a record of its own first: a bad cell is reported before the
 * sample is added, so no pointer into the batch is held across ctx_bad(). */
static void figures_row(struct parse_ctx *ctx, struct smi_table *t, const char *line,
			const struct slice *c)
{
	struct slice tok[MAX_TOK];
	size_t nt;
	struct rec g, *r;
	double v;
	uint8_t st = 0;

	t->row = 2;
	if (t->gpu < 0)
		return;
	memset(&g, 0, sizeof(g));
	/* fan, temperature, perf, power / cap */
	nt = scan_tokens(c[0], tok, MAX_TOK);
	if (nt >= 1 && number(ctx, line, tok[0], "%", "a fan speed", &v, &st))
		set(&g, M_FAN, v);
	if (nt >= 2 && number(ctx, line, tok[1], "C", "a temperature", &v, &st))
		set(&g, M_TEMP, v);
	if (nt >= 3) {
		if (tok[2].n >= 2 && tok[2].p[0] == 'P' &&
		    smi_value_unit((struct slice){ tok[2].p + 1, tok[2].n - 1 }, "", &v, &st) &&
		    v >= 0 && v <= 15)
			set(&g, M_PSTATE, v);
		else if (!smi_missing_token(tok[2], &st) && !slice_eq(tok[2], "ERR!"))
			bad_cell(ctx, line, tok[2], "a performance state P0..P15");
	}
	for (size_t i = 4; i < nt; i++) {
		if (slice_eq(tok[i], "/")) {
			if (number(ctx, line, tok[i - 1], "W", "a power draw", &v, &st))
				set(&g, M_POWER, v);
			if (i + 1 < nt && number(ctx, line, tok[i + 1], "W", "a power cap", &v, &st))
				set(&g, M_POWER_LIMIT, v);
			break;
		}
	}
	/* memory used / total */
	nt = scan_tokens(c[1], tok, MAX_TOK);
	if (nt == 3 && slice_eq(tok[1], "/")) {
		if (number(ctx, line, tok[0], "MiB", "a memory size", &v, &st))
			set(&g, M_MEM_USED, v);
		if (number(ctx, line, tok[2], "MiB", "a memory size", &v, &st))
			set(&g, M_MEM_TOTAL, v);
	} else if (nt) {
		bad_cell(ctx, line, slice_trim(c[1]), "memory used / total");
	}
	/* GPU-Util (N/A on a MIG GPU: unknown), compute mode */
	nt = scan_tokens(c[2], tok, MAX_TOK);
	if (nt >= 1 && number(ctx, line, tok[0], "%", "a utilization", &v, &st))
		set(&g, M_UTIL_GPU, v);
	if (!(r = ctx_rec(ctx, REC_SAMPLE)))
		return;
	r->t_ns = t->has_time ? t->t_ns : 0;
	r->time_kind = t->has_time ? TK_ABS : TK_FILE;
	r->gpu_index = t->gpu;
	r->uuid = STR_NONE;
	r->name = STR_NONE;
	r->line = t->gpu_line;
	r->status = st;
	r->present = g.present;
	for (int m = 0; m < M__COUNT; m++)
		if (g.present & (1u << m))
			r->v[m] = g.v[m];
	if (t->name[0]) {
		uint32_t off = ctx_str(ctx, (struct slice){ t->name, strlen(t->name) });
		ctx->out->recs[ctx->out->nr - 1].name = off;
	}
}

/* |    0   N/A  N/A             635      C   python3                                9488MiB | */
static void proc_row(struct parse_ctx *ctx, struct smi_table *t, const char *line,
		     struct slice cell)
{
	struct slice tok[MAX_TOK];
	size_t nt = scan_tokens(cell, tok, MAX_TOK), at;
	int64_t gpu, pid;
	double v;
	uint8_t st = 0;
	struct rec *r;

	if (nt >= 4 && slice_eq(tok[0], "No") && slice_eq(tok[1], "running"))
		return;
	at = t->gi_ci ? 3 : 1;
	if (nt < at + 3 || slice_to_i64(tok[0], &gpu) || gpu < 0) {
		ctx_bad(ctx, ctx_col(line, slice_trim(cell).p), "\"%.*s\" is not a process row "
			"(GPU%s, PID, type, name, memory)", fmt_quote_len(slice_trim(cell)),
			slice_trim(cell).p, t->gi_ci ? ", GI, CI" : "");
		return;
	}
	if (slice_to_i64(tok[at], &pid) || pid < 0) {
		if (!smi_missing_token(tok[at], &st))
			bad_cell(ctx, line, tok[at], "a process id");
		return;
	}
	if (!(r = ctx_rec(ctx, REC_PROC)))
		return;
	r->t_ns = t->has_time ? t->t_ns : 0;
	r->time_kind = t->has_time ? TK_ABS : TK_FILE;
	r->gpu_index = (int32_t)gpu;
	r->uuid = STR_NONE;
	r->pid = pid;
	if (nt >= at + 4) {
		struct slice name = { tok[at + 2].p,
				      (size_t)(tok[nt - 2].p + tok[nt - 2].n - tok[at + 2].p) };
		r->name = ctx_str(ctx, name);
	}
	if (smi_value_unit(tok[nt - 1], "MiB", &v, &st)) {
		r->v[2] = v;
		r->present |= PF_FB;
	} else if (!smi_missing_token(tok[nt - 1], &st)) {
		bad_cell(ctx, line, tok[nt - 1], "a memory size");
	}
}

static void t_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	struct smi_table *t = ctx->state;
	struct slice s = slice_trim((struct slice){ line, n }), c[8];
	size_t nc;
	int64_t tn;

	if (!s.n)
		return;
	if (date_line(s, &tn)) {
		t->has_time = true;
		t->t_ns = tn;
		t->sec = SEC_NONE;
		return;
	}
	if (is_border(s)) {
		t->seen_table = true;
		if (t->sec == SEC_GPUS)
			t->row = 0;	/* a new GPU's rows follow */
		return;
	}
	if (slice_starts_with(s, "| NVIDIA-SMI ")) {
		t->seen_table = true;
		t->sec = SEC_NONE;
		return;
	}
	nc = cells(s, c, 8);
	if (!nc && ctx->last_line_partial) {
		ctx_bad(ctx, ctx_col(line, s.p), "a last line cut short: \"%.*s\"", fmt_quote_len(s), s.p);
		return;
	}
	if (!nc) {
		if (smi_csv_tool_text(ctx, line, n))
			return;
		ctx_bad(ctx, ctx_col(line, s.p), "\"%.*s\" is not part of an nvidia-smi table",
			fmt_quote_len(s), s.p);
		return;
	}
	if (nc == 1) {
		struct slice c0 = slice_trim(c[0]);
		if (slice_starts_with(c0, "Processes:")) {
			t->sec = SEC_PROCS;
			t->gi_ci = false;
			return;
		}
		if (slice_starts_with(c0, "MIG devices:")) {
			t->sec = SEC_MIG;
			return;
		}
		if (t->sec == SEC_PROCS) {
			if (slice_starts_with(c0, "GPU ")) {
				t->gi_ci = memmem(c0.p, c0.n, " GI ", 4) != NULL;
				return;
			}
			if (slice_starts_with(c0, "ID ") || slice_starts_with(c0, "Usage"))
				return;	/* the header's second line */
			proc_row(ctx, t, line, c[0]);
			return;
		}
	}
	if (nc == 3 && t->sec != SEC_MIG) {
		struct slice c0 = slice_trim(c[0]);
		if (slice_starts_with(c0, "GPU  Name") || slice_starts_with(c0, "GPU Name")) {
			t->sec = SEC_GPUS;
			t->row = 0;
			return;
		}
		if (slice_starts_with(c0, "Fan ") || !c0.n) {
			/* the header's second and third lines, or a GPU's MIG M. row */
			if (t->sec == SEC_GPUS && t->row == 2)
				t->row = 3;
			return;
		}
		if (t->sec == SEC_GPUS) {
			if (t->row == 0)
				gpu_row(ctx, t, line, c);
			else if (t->row == 1)
				figures_row(ctx, t, line, c);
			return;
		}
	}
	if (t->sec == SEC_MIG)
		return;	/* MIG devices: memory and SM counts per slice, no utilization */
	ctx_bad(ctx, ctx_col(line, s.p), "\"%.*s\" is not a row of the nvidia-smi table",
		fmt_quote_len(s), s.p);
}

static int t_sniff(const char *head, size_t n, const char *name)
{
	(void)name;
	if (memmem(head, n, "| NVIDIA-SMI ", 13) && memmem(head, n, "Driver Version:", 15))
		return 95;
	if (memmem(head, n, "| GPU  Name ", 12) && memmem(head, n, "| Fan  Temp ", 12))
		return 80;
	return 0;
}

const struct format format_smi_table = {
	.id = "smi-table",
	.summary = "the default nvidia-smi table: one snapshot, or nvidia-smi -l N / watch loops",
	.detects = "a '| NVIDIA-SMI <version> ... Driver Version:' banner, or the "
		   "'| GPU  Name' and '| Fan  Temp' header rows",
	.state_size = sizeof(struct smi_table),
	.sniff = t_sniff,
	.init = t_init,
	.line = t_line,
	.whole_file = true,
};
