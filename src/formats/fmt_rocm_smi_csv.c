/* SPDX-License-Identifier: MIT */
/*
 * `rocm-smi --csv` with any --show options (docs/formats/rocm-smi-csv.md):
 * the data of --json as a table, "device," then the listing's labels as
 * the header ("GPU use (%)", "Current Socket Graphics Package Power (W)"
 * ...), then one row per GPU, "card0," first; rocm-smi drops the commas of
 * its values, so a cell never holds one.  With -a (or
 * --showdriverversion) a "name, value" table of the system comes first,
 * which is not a GPU.  Warnings ("WARNING: AMD GPU device(s) is/are in a
 * low-power state") may come above.  No time: each table is one tick.
 * The labels are read as --json's (rocm_card.h).
 *
 * A file may hold several tables, each under its own header, and no
 * header's columns are read for another's rows.  The system's are not
 * GPUs and are named, not read: ROCm 6's "name, value" table (the driver
 * version, topology, and with --showpids each KFD process as "PIDn", whose
 * GPU(s) is a count of GPUs, not which), and ROCm 5's, a "device,Driver
 * version,..." header over one row "system,..." (or "cardsystem,...").
 */
#include "formats/format.h"

#include <string.h>

#include "formats/rocm_card.h"

#define MAX_COLS 256
#define POOL 16384

struct rocm_csv {
	uint32_t ncols;		/* 0: no device header yet */
	bool in_system;		/* inside the "name, value" table */
	uint16_t label[MAX_COLS];	/* offset+1 in pool of a label we take; 0: skip */
	char pool[POOL];
	size_t pool_n;
};

/* Cells, comma apart: cap + 1 when there are more than cap. */
static size_t cells(struct slice s, struct slice *c, size_t cap)
{
	bool over;
	size_t n = scan_split(s.p, s.n, ',', c, cap, &over);
	return over ? cap + 1 : n;
}

/* The row of ROCm 5's system table: "system," or "cardsystem," (rocm_smi.py
 * wrote "card%s" of the name "system"), not a GPU. */
static bool is_system_row(struct slice s)
{
	return slice_starts_with(s, "system,") || slice_eq(s, "system") ||
	       slice_starts_with(s, "cardsystem,") || slice_eq(s, "cardsystem");
}

static bool rc_is_context(const char *line, size_t n)
{
	struct slice s = slice_trim((struct slice){ line, n });
	return slice_starts_with(s, "device,") || slice_starts_with(s, "name, value");
}

static void header(struct parse_ctx *ctx, struct rocm_csv *t, const char *line, struct slice s)
{
	struct slice c[MAX_COLS + 1];
	size_t n = cells(s, c, MAX_COLS);

	t->ncols = 0;
	t->pool_n = 0;
	if (n > MAX_COLS) {
		ctx_bad(ctx, ctx_col(line, s.p), "more than %d columns in a rocm-smi header", MAX_COLS);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct slice l = slice_trim(c[i]);
		t->label[i] = 0;
		if (i == 0 || !rocm_card_knows(l) || t->pool_n + l.n + 1 > POOL)
			continue;
		memcpy(t->pool + t->pool_n, l.p, l.n);
		t->pool[t->pool_n + l.n] = 0;
		t->label[i] = (uint16_t)(t->pool_n + 1);
		t->pool_n += l.n + 1;
	}
	t->ncols = (uint32_t)n;
}

static void row(struct parse_ctx *ctx, struct rocm_csv *t, const char *line, struct slice s)
{
	struct slice c[MAX_COLS + 1];
	size_t n = cells(s, c, MAX_COLS);
	struct slice dev = slice_trim(c[0]);
	struct rocm_card card;
	int64_t idx;
	struct rec *r;

	if (!slice_starts_with(dev, "card") ||
	    slice_to_i64((struct slice){ dev.p + 4, dev.n - 4 }, &idx) || idx < 0 || idx > 65535) {
		ctx_bad(ctx, ctx_col(line, c[0].p), "\"%.*s\" is not a GPU (cardN)",
			fmt_quote_len(dev), dev.p);
		return;
	}
	if (n < t->ncols && ctx->last_line_partial) {
		ctx_bad(ctx, ctx_col(line, s.p), "the last row is cut: %zu of %u cells", n, t->ncols);
		return;
	}
	if (n != t->ncols) {
		ctx_bad(ctx, ctx_col(line, s.p), "%s%zu cells where the header names %u columns",
			n > MAX_COLS ? "more than " : "", n, t->ncols);
		return;
	}
	rocm_card_init(&card);
	for (size_t i = 1; i < n; i++) {
		const char *label;
		struct slice v = slice_trim(c[i]);
		if (!t->label[i])
			continue;
		label = t->pool + t->label[i] - 1;
		if (rocm_card_take(&card, (struct slice){ label, strlen(label) }, v) < 0)
			ctx_bad(ctx, ctx_col(line, c[i].p), "%s \"%.*s\": not a number", label,
				fmt_quote_len(v), v.p);
	}
	if (!(r = ctx_rec(ctx, REC_SAMPLE)))
		return;
	r->t_ns = 0;
	r->time_kind = TK_NONE;
	r->gpu_index = (int32_t)idx;
	r->status = card.g.status;
	r->present = card.g.present;
	for (int m = 0; m < M__COUNT; m++)
		if (card.g.present & (1u << m))
			r->v[m] = card.g.v[m];
	r->uuid = card.uuid[0] ? ctx_str(ctx, (struct slice){ card.uuid, strlen(card.uuid) })
			       : STR_NONE;
	r->name = card.name[0] ? ctx_str(ctx, (struct slice){ card.name, strlen(card.name) })
			       : STR_NONE;
}

static void rc_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	struct rocm_csv *t = ctx->state;
	struct slice s = slice_trim((struct slice){ line, n });

	if (!s.n)
		return;
	if (slice_starts_with(s, "device,")) {
		t->in_system = false;
		header(ctx, t, line, s);
		return;
	}
	if (slice_starts_with(s, "name, value")) {
		t->in_system = true;	/* -a: the driver's version and such, not a GPU */
		return;
	}
	if (ctx->replay)
		return;
	if (s.p[0] == '=')
		return;	/* a banner */
	if (slice_starts_with(s, "WARNING") || slice_starts_with(s, "ERROR")) {
		ctx_event(ctx, EV_TOOL_ERROR, 0, TK_NONE, -1, "%.*s", fmt_quote_len(s), s.p);
		return;
	}
	if (t->in_system && s.p[0] == '"')
		return;
	if (is_system_row(s))
		return;	/* ROCm 5's system table: the driver's version, KFD processes */
	if (!t->ncols) {
		ctx_bad(ctx, ctx_col(line, s.p), "\"%.*s\" comes before any rocm-smi --csv header",
			fmt_quote_len(s), s.p);
		return;
	}
	row(ctx, t, line, s);
}

static int rc_sniff(const char *head, size_t n, const char *name)
{
	const char *p = head, *end = head + n;
	unsigned tables = 0;

	(void)name;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		struct slice s = slice_trim((struct slice){ p, (size_t)((eol ? eol : end) - p) });
		if (slice_starts_with(s, "device,")) {
			struct slice c[MAX_COLS + 1];
			size_t nc = cells(s, c, MAX_COLS);
			for (size_t i = 1; i < nc && i < MAX_COLS; i++)
				if (rocm_card_knows(c[i]))
					return 90;
			/* a table of no GPU label (ROCm 5's system table): the
			 * next header may name some */
			tables++;
		} else if (tables && (is_system_row(s) || slice_starts_with(s, "card"))) {
			/* a row of that table */
		} else if (s.n && !slice_starts_with(s, "WARNING") &&
			   !slice_starts_with(s, "name, value") && s.p[0] != '"' && s.p[0] != '=') {
			/* what may come above the device table */
			return 0;
		}
		if (!eol)
			break;
		p = eol + 1;
	}
	return 0;
}

const struct format format_rocm_smi_csv = {
	.id = "rocm-smi-csv",
	.summary = "rocm-smi --csv (any --show options): a table of AMD GPUs per run, labels as --json's",
	.detects = "a 'device,' header naming rocm-smi labels (GPU use (%), Graphics Package Power, "
		   "Sensor edge/junction), after warnings or a system table ('name, value', or "
		   "'device,Driver version' over 'system,')",
	.state_size = sizeof(struct rocm_csv),
	.sniff = rc_sniff,
	.is_context = rc_is_context,
	.context_first = "dn",
	.line = rc_line,
	.whole_file = true,
};
