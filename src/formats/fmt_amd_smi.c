/* SPDX-License-Identifier: MIT */
/*
 * `amd-smi metric` as it prints to a terminal (docs/formats/amd-smi.md),
 * the form people paste: a "GPU: N" line per GPU, its groups indented 4
 * ("    USAGE:", "    POWER:", "    CLOCK:" ...), their leaves indented 8
 * ("        SOCKET_POWER: 137 W", "        HOTSPOT: 38 °C"), a clock's
 * domain with its own leaves under it ("        GFX_0:" then
 * "            CLK: 245 MHz"); a long list wraps onto lines of its own.
 * The leaves are named as --csv names its columns (lower case, a clock's
 * with its domain: gfx_0_clk) and read by the same table (amd_smi.h); only
 * the metric groups are read, so `amd-smi static`'s LIMIT: SOCKET_POWER (a
 * cap, not a draw) is not taken for power.  No time: each run is one tick.
 *
 * `amd-smi process` as printed is read too: under "GPU: N", a
 * "    PROCESS_INFO:" group per process with NAME, PID, MEMORY_USAGE's
 * VRAM_MEM ("7.3 GB") and MEM_USAGE; each becomes a process on that GPU,
 * as `amd-smi process --json` gives them.  A GPU's sample is made at its
 * first metric group, so a process listing puts no empty sample there.
 */
#include "formats/format.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "formats/amd_smi.h"

struct amd_text {
	size_t rec;		/* index+1 in the batch of the GPU being read; 0 none */
	int64_t gpu;		/* the GPU of the last "GPU: N" line; -1 none */
	uint64_t gpu_line;	/* its line */
	size_t prec;		/* index+1 in the batch of the process being read; 0 none */
	bool pgroup;		/* inside a PROCESS_INFO group (its record made at its first leaf) */
	uint64_t pgroup_line;	/* the group's line, the record's */
	bool pmem;		/* inside the process's MEMORY_USAGE: */
	bool has_vram;		/* the process's VRAM_MEM is read (MEM_USAGE stands in) */
	uint8_t rank[M__COUNT];
	char group[24];		/* "power", "clock" ... ; "" outside the metric groups */
	char domain[24];	/* "gfx_0" under clock; "" */
};

static const char *const groups[] = { "usage", "power", "clock", "temperature", "pcie",
				      "mem_usage", "energy", "fan" };

static size_t indent(const char *line, size_t n)
{
	size_t i = 0;
	while (i < n && line[i] == ' ')
		i++;
	return i;
}

static void lower(char *dst, size_t cap, struct slice s)
{
	size_t i;
	for (i = 0; i + 1 < cap && i < s.n; i++)
		dst[i] = (char)tolower((unsigned char)s.p[i]);
	dst[i] = 0;
}

static void leaf(struct parse_ctx *ctx, struct amd_text *t, const char *line, struct slice key,
		 struct slice val)
{
	char name[64], k[40];
	const struct amd_field *f;
	const char *sp, *why = NULL;
	struct slice num = val, unit = { NULL, 0 };
	struct rec *r;
	double v;
	int rc;

	if (!t->rec || !t->group[0])
		return;
	lower(k, sizeof(k), key);
	if (t->domain[0])
		snprintf(name, sizeof(name), "%s_%s", t->domain, k);
	else
		snprintf(name, sizeof(name), "%s", k);
	if (!(f = amd_field_find((struct slice){ name, strlen(name) }, t->group)))
		return;
	if ((sp = memchr(val.p, ' ', val.n))) {	/* "137 W", "N/A mV" */
		num = (struct slice){ val.p, (size_t)(sp - val.p) };
		unit = slice_trim((struct slice){ sp, (size_t)(val.p + val.n - sp) });
	}
	rc = amd_value(f, num, unit, &v, &why);
	if (rc < 0) {
		ctx_bad(ctx, ctx_col(line, val.p), "%s \"%.*s\": %s", k, fmt_quote_len(val), val.p, why);
		return;
	}
	if (rc || f->rank >= t->rank[f->metric] || t->rec > ctx->out->nr)
		return;
	t->rank[f->metric] = f->rank;
	r = &ctx->out->recs[t->rec - 1];
	r->v[f->metric] = v;
	r->present |= 1u << f->metric;
}

/* The sample of the GPU being read, on its "GPU: N" line. */
static void new_sample(struct parse_ctx *ctx, struct amd_text *t)
{
	struct rec *r;

	if (!(r = ctx_rec(ctx, REC_SAMPLE)))
		return;
	r->line = t->gpu_line;
	r->t_ns = 0;
	r->time_kind = TK_NONE;
	r->gpu_index = (int32_t)t->gpu;
	r->uuid = r->name = STR_NONE;
	r->present = 0;
	t->rec = ctx->out->nr;
}

/* A process on the GPU being read, its fields filled as they come. */
static void new_proc(struct parse_ctx *ctx, struct amd_text *t)
{
	struct rec *r;

	t->pmem = t->has_vram = false;
	if (!(r = ctx_rec(ctx, REC_PROC)))
		return;
	r->line = t->pgroup_line;
	r->t_ns = 0;
	r->time_kind = TK_NONE;
	r->gpu_index = (int32_t)t->gpu;
	r->uuid = r->name = STR_NONE;
	r->pid = -2;
	r->present = 0;
	t->prec = ctx->out->nr;
}

/* A leaf of a PROCESS_INFO group: NAME, PID, VRAM_MEM or MEM_USAGE (ROCm 7:
 * MEM). */
static void proc_leaf(struct parse_ctx *ctx, struct amd_text *t, const char *line,
		      struct slice key, struct slice val, bool in_mem)
{
	static const struct amd_field mem = { .name = "vram_mem", .metric = M_MEM_USED,
					      .unit = AU_MIB };
	struct rec *r;
	const char *why = NULL;
	struct slice num = val, unit = { NULL, 0 };
	const char *sp;
	bool is_vram = in_mem && slice_eq(key, "VRAM_MEM");
	bool is_mem = !in_mem && (slice_eq(key, "MEM_USAGE") || slice_eq(key, "MEM"));
	uint8_t st = 0;
	double v;
	int64_t pid;
	int rc;

	if (!t->prec || t->prec > ctx->out->nr)
		return;
	r = &ctx->out->recs[t->prec - 1];
	if (!in_mem && slice_eq(key, "NAME")) {
		if (val.n && !slice_eq(val, "N/A"))
			r->name = ctx_str(ctx, val);
		return;
	}
	if (!in_mem && slice_eq(key, "PID")) {
		if (smi_missing_token(val, &st))
			return;
		if (slice_to_i64(val, &pid) || pid < 0) {
			ctx_bad(ctx, ctx_col(line, val.p), "\"%.*s\" is not a process id",
				fmt_quote_len(val), val.p);
			return;
		}
		r->pid = pid;
		return;
	}
	if (!is_vram && !is_mem)
		return;
	if ((sp = memchr(val.p, ' ', val.n))) {	/* "7.3 GB" */
		num = (struct slice){ val.p, (size_t)(sp - val.p) };
		unit = slice_trim((struct slice){ sp, (size_t)(val.p + val.n - sp) });
	}
	rc = amd_value(&mem, num, unit, &v, &why);
	if (rc < 0) {
		ctx_bad(ctx, ctx_col(line, val.p), "%s \"%.*s\": %s", is_vram ? "vram_mem" : "mem_usage",
			fmt_quote_len(val), val.p, why);
		if (is_vram) {	/* not made up from MEM_USAGE */
			t->has_vram = true;
			r->present &= ~(uint32_t)PF_FB;
		}
		return;
	}
	if (rc || (!is_vram && t->has_vram))
		return;
	if (is_vram)
		t->has_vram = true;
	r->v[2] = v;
	r->present |= PF_FB;
}

static void at_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	struct amd_text *t = ctx->state;
	struct slice s = slice_trim((struct slice){ line, n });
	size_t in = indent(line, n);
	const char *colon;
	struct slice key, val;

	if (!s.n)
		return;
	colon = memchr(s.p, ':', s.n);
	if (in == 0) {
		int64_t idx;
		t->rec = t->prec = 0;
		t->pgroup = false;
		t->gpu = -1;
		t->group[0] = t->domain[0] = 0;
		if (!slice_starts_with(s, "GPU:") ||
		    slice_to_i64(slice_trim((struct slice){ s.p + 4, s.n - 4 }), &idx) || idx < 0 ||
		    idx > 65535) {
			ctx_bad(ctx, 1, "\"%.*s\" is not a \"GPU: N\" line of amd-smi metric",
				fmt_quote_len(s), s.p);
			return;
		}
		memset(t->rank, 0xff, sizeof(t->rank));
		t->gpu = idx;
		t->gpu_line = ctx->line;
		return;
	}
	if (!colon)
		return;	/* a wrapped list's next line */
	key = slice_trim((struct slice){ s.p, (size_t)(colon - s.p) });
	val = slice_trim((struct slice){ colon + 1, (size_t)(s.p + s.n - colon - 1) });
	if (in <= 4) {	/* a group */
		char g[24];
		lower(g, sizeof(g), key);
		t->group[0] = t->domain[0] = 0;
		t->prec = 0;
		if (t->gpu < 0)
			return;
		t->pgroup = false;
		if (!strcmp(g, "process_info")) {
			/*
			 * "PROCESS_INFO: No running processes detected" (ROCm 6)
			 * or that line under an empty "PROCESS_INFO:" (ROCm 7):
			 * none.  The record is made at the group's first leaf.
			 */
			t->pgroup = !val.n;
			t->pgroup_line = ctx->line;
			return;
		}
		for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
			if (!strcmp(g, groups[i]))
				snprintf(t->group, sizeof(t->group), "%s", g);
		if (t->group[0] && !t->rec)
			new_sample(ctx, t);
		return;
	}
	if (t->pgroup && !t->prec)
		new_proc(ctx, t);
	if (t->prec) {
		if (in <= 8) {
			t->pmem = !val.n && slice_eq(key, "MEMORY_USAGE");
			if (val.n)
				proc_leaf(ctx, t, line, key, val, false);
		} else if (t->pmem && in <= 12 && val.n) {
			proc_leaf(ctx, t, line, key, val, true);
		}
		return;
	}
	if (in <= 8) {
		t->domain[0] = 0;
		if (!val.n && !strcmp(t->group, "clock")) {	/* "GFX_0:" */
			lower(t->domain, sizeof(t->domain), key);
			return;
		}
		if (val.n && val.p[0] != '[')
			leaf(ctx, t, line, key, val);
		return;
	}
	if (t->domain[0] && val.n && val.p[0] != '[')
		leaf(ctx, t, line, key, val);
}

static int at_sniff(const char *head, size_t n, const char *name)
{
	(void)name;
	static const char *const g[] = { "\n    USAGE:", "\n    POWER:", "\n    CLOCK:",
					 "\n    TEMPERATURE:", "\n    PCIE:", "\n    MEM_USAGE:",
					 "\n    ENERGY:", "\n    FAN:", "\n    PROCESS_INFO:" };
	if (n < 7 || memcmp(head, "GPU: ", 5))
		return 0;
	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++)
		if (memmem(head, n, g[i], strlen(g[i])))
			return 90;
	return 0;
}

const struct format format_amd_smi = {
	.id = "amd-smi",
	.summary = "amd-smi metric and amd-smi process as printed to a terminal (GPU: N, then USAGE:, "
		   "POWER:, CLOCK: ... or PROCESS_INFO: groups), the form people paste",
	.detects = "a first line 'GPU: N' with an amd-smi metric group (USAGE:, POWER:, CLOCK:, "
		   "TEMPERATURE:, PCIE:, MEM_USAGE:, ENERGY:, FAN:) or PROCESS_INFO:",
	.state_size = sizeof(struct amd_text),
	.sniff = at_sniff,
	.line = at_line,
	.whole_file = true,
};
