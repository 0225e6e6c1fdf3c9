/* SPDX-License-Identifier: MIT */
/*
 * `amd-smi` with no subcommand (amd-smi 26 and later, ROCm 7), the boxed
 * view that looks like nvidia-smi's (docs/formats/amd-smi-table.md): a box
 * of versions, then per GPU two rows split by '|':
 *
 *   | BDF                        GPU-Name | Mem-Uti   Temp   UEC       Power-Usage |
 *   | GPU  HIP-ID  OAM-ID  Partition-Mode | GFX-Uti    Fan               Mem-Usage |
 *
 * ("| 0000:03:00.0  AMD Radeon RX 7800 XT | 1 %  42 °C  0  10/212 W |" then
 * "|   0  0  N/A  N/A | 1 %  0.0 %  14428/16368 MB |"), then a "Processes:"
 * box: "GPU  PID  Process Name  GTT_MEM  VRAM_MEM  MEM_USAGE  CU %  SDMA"
 * and a row per process, or "No running processes found".  The GPU is
 * named by its index (the second row) and its BDF (the first); the BDF is
 * passed on as an EV_GPU_MAP record where the view is dated (a `watch`
 * header), so kernel-log lines naming that PCI address land on the GPU.
 * The right-hand values are read as amd-smi monitor's are (amd_words(),
 * amd_pair(): "10/212 W" is the draw and the cap).  No time otherwise:
 * each view is one tick.
 */
#include "formats/format.h"

#include <string.h>

#include "formats/amd_smi.h"
#include "formats/smi.h"
#include "util/pci.h"

#define MAX_COLS 16

enum { S_NONE, S_GPU, S_PROC };
enum { R_SKIP, R_MEMUTI, R_TEMP, R_POWER, R_GFXUTI, R_FAN, R_MEMUSE };
enum { P_SKIP, P_GPU, P_PID, P_NAME, P_VRAM, P_MEM };

struct amd_table {
	bool has_time;
	int64_t t_ns;
	uint8_t sect;
	bool row2;		/* the next GPU row is a GPU's second */
	uint32_t n1, n2;	/* right-hand labels of the two header rows */
	uint8_t r1[MAX_COLS], r2[MAX_COLS];
	uint32_t np;		/* the process table's columns; 0: no header yet */
	uint8_t pr[MAX_COLS];
	uint32_t pname;		/* its Process Name column */
	/* the first row of the GPU being read */
	uint64_t line1;
	char bdf[16], name[64];
	struct amd_sample smp;
};

static const struct amd_field f_memuti = { .name = "Mem-Uti", .metric = M_UTIL_MEM,
					   .unit = AU_PCT };
static const struct amd_field f_temp = { .name = "Temp", .metric = M_TEMP, .unit = AU_C };
static const struct amd_field f_power = { .name = "Power-Usage", .metric = M_POWER,
					  .unit = AU_W };
static const struct amd_field f_cap = { .name = "Power-Usage", .metric = M_POWER_LIMIT,
					.unit = AU_W };
static const struct amd_field f_gfxuti = { .name = "GFX-Uti", .metric = M_UTIL_GPU,
					   .unit = AU_PCT };
static const struct amd_field f_fan = { .name = "Fan", .metric = M_FAN, .unit = AU_PCT };
static const struct amd_field f_used = { .name = "Mem-Usage", .metric = M_MEM_USED,
					 .unit = AU_MIB };
static const struct amd_field f_total = { .name = "Mem-Usage", .metric = M_MEM_TOTAL,
					  .unit = AU_MIB };
static const struct amd_field f_pmem = { .name = "VRAM_MEM", .metric = M_MEM_USED,
					 .unit = AU_MIB };

/* The text between the box's outer '|'s, split at an inner one. */
static size_t parts(struct slice s, struct slice *p, size_t cap)
{
	size_t n = 0;
	const char *a, *end;

	if (!s.n || s.p[0] != '|')
		return 0;
	a = s.p + 1;
	end = s.p + s.n;
	if (end > a && end[-1] == '|')
		end--;
	while (n < cap) {
		const char *bar = memchr(a, '|', (size_t)(end - a));
		const char *e = bar ? bar : end;
		p[n++] = slice_trim((struct slice){ a, (size_t)(e - a) });
		if (!bar)
			break;
		a = bar + 1;
	}
	return n;
}

static void gpu_header(struct amd_table *t, struct slice right, bool second)
{
	struct slice c[MAX_COLS];
	size_t n = amd_words(right, c, MAX_COLS);
	uint8_t *r = second ? t->r2 : t->r1;

	if (n > MAX_COLS)
		n = 0;
	for (size_t i = 0; i < n; i++)
		r[i] = slice_eq(c[i], "Mem-Uti")	 ? R_MEMUTI
		       : slice_eq(c[i], "Temp")	 ? R_TEMP
		       : slice_eq(c[i], "Power-Usage") ? R_POWER
		       : slice_eq(c[i], "GFX-Uti")	 ? R_GFXUTI
		       : slice_eq(c[i], "Fan")	 ? R_FAN
		       : slice_eq(c[i], "Mem-Usage")	 ? R_MEMUSE
						 : R_SKIP;
	if (second)
		t->n2 = (uint32_t)n;
	else
		t->n1 = (uint32_t)n;
}

/* The right-hand values of a GPU row into the GPU's sample. */
static void gpu_values(struct parse_ctx *ctx, struct amd_table *t, const char *line,
		       struct slice right, bool second)
{
	struct slice c[MAX_COLS];
	size_t n = amd_words(right, c, MAX_COLS);
	uint32_t want = second ? t->n2 : t->n1;
	const uint8_t *r = second ? t->r2 : t->r1;

	if (n != want) {
		ctx_bad(ctx, ctx_col(line, right.p), "%s%zu values where the header names %u",
			ctx->last_line_partial ? "line cut short: " : "",
			n > MAX_COLS ? (size_t)MAX_COLS + 1 : n, want);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct amd_field *fa = NULL, *fb = NULL;
		const char *why = NULL;
		double a, b;
		int ra, rb;
		switch (r[i]) {
		case R_MEMUTI: fa = &f_memuti; break;
		case R_TEMP: fa = &f_temp; break;
		case R_POWER: fa = &f_power; fb = &f_cap; break;	/* "10/212 W" */
		case R_GFXUTI: fa = &f_gfxuti; break;
		case R_FAN: fa = &f_fan; break;
		case R_MEMUSE: fa = &f_used; fb = &f_total; break;	/* "25/385728 MB" */
		default: continue;
		}
		if (amd_pair(fa, fb ? fb : fa, c[i], &a, &ra, &b, &rb, &why) < 0) {
			ctx_bad(ctx, ctx_col(line, c[i].p), "%s \"%.*s\": %s", fa->name,
				fmt_quote_len(c[i]), c[i].p, why);
			continue;
		}
		if (!ra)
			amd_sample_set(&t->smp, fa, a);
		if (fb && !rb)
			amd_sample_set(&t->smp, fb, b);
	}
}

static void gpu_row1(struct parse_ctx *ctx, struct amd_table *t, const char *line,
		     struct slice left, struct slice right)
{
	const char *sp = memchr(left.p, ' ', left.n);
	struct slice bdf = sp ? (struct slice){ left.p, (size_t)(sp - left.p) } : left;
	struct slice name = sp ? slice_trim((struct slice){ sp, (size_t)(left.p + left.n - sp) })
			       : (struct slice){ left.p + left.n, 0 };

	amd_sample_init(&t->smp);
	t->line1 = ctx->line;
	if (!pci_norm(bdf, t->bdf)) {
		ctx_bad(ctx, ctx_col(line, bdf.p), "\"%.*s\" is not a PCI address (BDF)",
			fmt_quote_len(bdf), bdf.p);
		t->bdf[0] = 0;
	}
	slice_copy(t->name, sizeof(t->name), name);
	gpu_values(ctx, t, line, right, false);
	t->row2 = true;
}

static void gpu_row2(struct parse_ctx *ctx, struct amd_table *t, const char *line,
		     struct slice left, struct slice right)
{
	struct slice w[8];
	size_t nw = amd_words(left, w, 8);
	int64_t idx;
	struct rec *r;

	t->row2 = false;
	if (!nw || slice_to_i64(w[0], &idx) || idx < 0 || idx > 65535) {
		ctx_bad(ctx, ctx_col(line, nw ? w[0].p : left.p), "\"%.*s\" is not a GPU index",
			nw ? fmt_quote_len(w[0]) : 0, nw ? w[0].p : "");
		return;
	}
	gpu_values(ctx, t, line, right, true);
	if (!(r = ctx_rec(ctx, REC_SAMPLE)))
		return;
	r->line = t->line1;
	r->t_ns = t->has_time ? t->t_ns : 0;
	r->time_kind = t->has_time ? TK_ABS : TK_NONE;
	r->gpu_index = (int32_t)idx;
	r->name = t->name[0] ? ctx_str(ctx, (struct slice){ t->name, strlen(t->name) }) : STR_NONE;
	r->present = t->smp.g.present;
	for (int m = 0; m < M__COUNT; m++)
		if (t->smp.g.present & (1u << m))
			r->v[m] = t->smp.g.v[m];
	/* the GPU's bus address, for kernel-log lines; only with a time (a
	 * record without one would count as a tick) */
	if (t->bdf[0] && t->has_time && (r = ctx_rec(ctx, REC_EVENT))) {
		r->ev = EV_GPU_MAP;
		r->line = t->line1;
		r->t_ns = t->t_ns;
		r->time_kind = TK_ABS;
		r->gpu_index = (int32_t)idx;
		r->kev.pci = ctx_str(ctx, (struct slice){ t->bdf, strlen(t->bdf) });
		r->kev.severity = KS_INFO;
	}
}

static void proc_header(struct amd_table *t, struct slice s)
{
	struct slice c[MAX_COLS + 1];
	size_t n = amd_words(s, c, MAX_COLS + 1), k = 0;

	t->np = 0;
	t->pname = MAX_COLS;
	if (n > MAX_COLS)
		return;
	for (size_t i = 0; i < n; i++) {
		uint8_t role = slice_eq(c[i], "GPU")	     ? P_GPU
			       : slice_eq(c[i], "PID")	     ? P_PID
			       : slice_eq(c[i], "Process")   ? P_NAME
			       : slice_eq(c[i], "VRAM_MEM")  ? P_VRAM
			       : slice_eq(c[i], "MEM_USAGE") ? P_MEM
							     : P_SKIP;
		if (slice_eq(c[i], "Name") && k && t->pr[k - 1] == P_NAME)
			continue;	/* "Process Name" is one column */
		if (role == P_NAME)
			t->pname = (uint32_t)k;
		t->pr[k++] = role;
	}
	t->np = (uint32_t)k;
}

static void proc_row(struct parse_ctx *ctx, struct amd_table *t, const char *line, struct slice s)
{
	struct slice c[MAX_COLS + 16], v[MAX_COLS];
	int64_t idx = -1, pid = -1;
	double vram = -1, mem = -1, x;
	bool has_vram = false;
	uint32_t name = STR_NONE;
	const char *why = NULL;

	if (!amd_row_columns(ctx, line, s, t->np, t->pname, v, c, MAX_COLS + 16))
		return;
	for (uint32_t i = 0; i < t->np; i++) {
		int rc;
		switch (t->pr[i]) {
		case P_GPU:
			if (slice_to_i64(v[i], &idx) || idx < 0 || idx > 65535) {
				ctx_bad(ctx, ctx_col(line, v[i].p), "\"%.*s\" is not a GPU index",
					fmt_quote_len(v[i]), v[i].p);
				return;
			}
			break;
		case P_PID:
			if (slice_to_i64(v[i], &pid) || pid < 0) {
				ctx_bad(ctx, ctx_col(line, v[i].p), "\"%.*s\" is not a process id",
					fmt_quote_len(v[i]), v[i].p);
				return;
			}
			break;
		case P_NAME:
			if (v[i].n && !slice_eq(v[i], "N/A"))
				name = ctx_str(ctx, v[i]);
			break;
		case P_VRAM:
		case P_MEM: {
			double b;
			int rb;
			has_vram |= t->pr[i] == P_VRAM;
			if (amd_pair(&f_pmem, &f_pmem, v[i], &x, &rc, &b, &rb, &why) < 0) {
				ctx_bad(ctx, ctx_col(line, v[i].p), "%s \"%.*s\": %s",
					t->pr[i] == P_VRAM ? "VRAM_MEM" : "MEM_USAGE",
					fmt_quote_len(v[i]), v[i].p, why);
				return;
			}
			if (!rc && t->pr[i] == P_VRAM)
				vram = x;
			else if (!rc)
				mem = x;
			break;
		}
		default:
			break;
		}
	}
	amd_proc_row_emit(ctx, line, s, idx, pid, name, t->t_ns, t->has_time, vram, mem, has_vram);
}

static void at_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	struct amd_table *t = ctx->state;
	struct slice s = slice_trim((struct slice){ line, n });
	struct slice p[4];
	size_t np;
	int64_t tn;

	if (!s.n)
		return;
	if (!smi_watch_header(s, &tn)) {
		t->has_time = true;
		t->t_ns = tn;
		return;
	}
	if (s.p[0] == '+')
		return;	/* a box's border */
	np = parts(s, p, 4);
	if (!np) {
		if (slice_starts_with(s, "WARNING") || slice_starts_with(s, "ERROR")) {
			ctx_event(ctx, EV_TOOL_ERROR, 0, TK_NONE, -1, "%.*s", fmt_quote_len(s),
				  s.p);
			return;
		}
		ctx_bad(ctx, ctx_col(line, s.p), "\"%.*s\" is not a line of amd-smi's boxed view",
			fmt_quote_len(s), s.p);
		return;
	}
	if (np == 1 && (!p[0].n || p[0].p[0] == '=' || p[0].p[0] == '-'))
		return;	/* a rule */
	if (np == 2 && p[0].n && (p[0].p[0] == '=' || p[0].p[0] == '-'))
		return;
	if (np == 1 && slice_eq(p[0], "Processes:")) {
		t->sect = S_PROC;
		t->np = 0;
		return;
	}
	if (np == 2 && slice_starts_with(p[0], "BDF") && memmem(p[0].p, p[0].n, "GPU-Name", 8)) {
		gpu_header(t, p[1], false);
		t->sect = S_GPU;
		t->row2 = false;
		return;
	}
	if (np == 2 && slice_starts_with(p[0], "GPU") && memmem(p[0].p, p[0].n, "HIP-ID", 6)) {
		gpu_header(t, p[1], true);
		return;
	}
	if (t->sect == S_GPU && np == 2) {
		if (t->row2)
			gpu_row2(ctx, t, line, p[0], p[1]);
		else
			gpu_row1(ctx, t, line, p[0], p[1]);
		return;
	}
	if (t->sect == S_PROC && np == 1) {
		if (!t->np) {
			proc_header(t, p[0]);
			return;
		}
		if (slice_starts_with(p[0], "No running processes"))
			return;
		proc_row(ctx, t, line, p[0]);
		return;
	}
	/* the version box ("AMD-SMI 27.0.0", "ROCm Version: ...") and the like */
}

static int at_sniff(const char *head, size_t n, const char *name)
{
	const char *p = head, *end = head + n;
	(void)name;
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r'))
		p++;
	if (p < end && (*p == '+' || *p == 'E') && memmem(head, n, "| AMD-SMI", 9) &&
	    memmem(head, n, "GPU-Name", 8))
		return 90;
	return 0;
}

const struct format format_amd_smi_table = {
	.id = "amd-smi-table",
	.summary = "amd-smi with no subcommand (amd-smi 26+, ROCm 7): the boxed view of GPUs by "
		   "BDF and index, and its Processes table",
	.detects = "a box with '| AMD-SMI' and a 'BDF ... GPU-Name' header",
	.state_size = sizeof(struct amd_table),
	.sniff = at_sniff,
	.line = at_line,
	.whole_file = true,
};
