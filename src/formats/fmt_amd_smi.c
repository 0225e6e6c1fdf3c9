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
 */
#include "formats/format.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "formats/amd_smi.h"

struct amd_text {
	size_t rec;		/* index+1 in the batch of the GPU being read; 0 none */
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
		struct rec *r;
		t->rec = 0;
		t->group[0] = t->domain[0] = 0;
		if (!slice_starts_with(s, "GPU:") ||
		    slice_to_i64(slice_trim((struct slice){ s.p + 4, s.n - 4 }), &idx) || idx < 0 ||
		    idx > 65535) {
			ctx_bad(ctx, 1, "\"%.*s\" is not a \"GPU: N\" line of amd-smi metric",
				fmt_quote_len(s), s.p);
			return;
		}
		memset(t->rank, 0xff, sizeof(t->rank));
		if (!(r = ctx_rec(ctx, REC_SAMPLE)))
			return;
		r->t_ns = 0;
		r->time_kind = TK_NONE;
		r->gpu_index = (int32_t)idx;
		r->uuid = r->name = STR_NONE;
		r->present = 0;
		t->rec = ctx->out->nr;
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
		for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
			if (!strcmp(g, groups[i]))
				snprintf(t->group, sizeof(t->group), "%s", g);
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
					 "\n    ENERGY:", "\n    FAN:" };
	if (n < 7 || memcmp(head, "GPU: ", 5))
		return 0;
	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++)
		if (memmem(head, n, g[i], strlen(g[i])))
			return 90;
	return 0;
}

const struct format format_amd_smi = {
	.id = "amd-smi",
	.summary = "amd-smi metric as printed to a terminal (GPU: N, then USAGE:, POWER:, CLOCK: ... "
		   "groups), the form people paste",
	.detects = "a first line 'GPU: N' with an amd-smi metric group (USAGE:, POWER:, CLOCK:, "
		   "TEMPERATURE:, PCIE:, MEM_USAGE:, ENERGY:, FAN:)",
	.state_size = sizeof(struct amd_text),
	.sniff = at_sniff,
	.line = at_line,
	.whole_file = true,
};
