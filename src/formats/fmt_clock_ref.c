/* SPDX-License-Identifier: MIT */
/*
 * A clock reference: the boot time, uptime and wall time read together, as
 * the H200 capture's clock_ref_*.txt files hold them:
 *
 *   btime 1795992369            /proc/stat: boot time, whole seconds
 *   uptime 251.37 3807.50       /proc/uptime: seconds since boot, idle seconds
 *   wall 1795992620.993958978   date +%s.%N
 *   tz +0000                    date +%z (the capture's zone; informational)
 *
 * It becomes one REC_ANCHOR (wall, mono = uptime) naming no boot: the
 * driver uses it for the last boot of any kernel log whose printk times
 * end before that uptime (anchor.h).  wall - uptime is the boot time to
 * the uptime's 10 ms; btime is the same instant cut to the second (and
 * may jitter by one, formats.md 3.7), so it is used only when there is no
 * wall line.  The file is read as one chunk, so the anchor, emitted as
 * soon as two of the clocks are known, is updated in place by a later line.  /proc/uptime counts time suspended and the printk clock
 * does not: after a suspend the anchor places later kernel times early by
 * the time asleep, and the report says so where the log shows suspends.
 */
#include "formats/format.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "formats/anchor.h"
#include "util/timeutil.h"

struct cr_state {
	bool have_btime, have_uptime, have_wall;
	size_t emitted;		/* the anchor's index in the batch + 1, 0: none yet */
	int64_t btime_s, uptime_ns, wall_ns;
};

/* "123.45" (or "123") as nanoseconds */
static bool cr_seconds(struct slice s, int64_t *ns)
{
	const char *p = s.p, *e = s.p + s.n;
	uint64_t whole;
	int64_t frac = 0, scale = NS_PER_S / 10;

	if (scan_u64(&p, e, &whole) || whole > 9000000000ULL)
		return false;
	if (p < e && *p == '.') {
		p++;
		while (p < e && *p >= '0' && *p <= '9') {
			frac += (*p++ - '0') * scale;
			scale /= 10;
		}
	}
	if (p != e)
		return false;
	*ns = (int64_t)whole * NS_PER_S + frac;
	return true;
}

static void cr_emit(struct parse_ctx *ctx, struct cr_state *st)
{
	struct rec *r;
	char note[48];

	if (!st->have_uptime || (!st->have_wall && !st->have_btime))
		return;
	if (st->emitted) {
		/* a later wall line makes the anchor better: the file is one chunk */
		r = &ctx->out->recs[st->emitted - 1];
	} else {
		if (!(r = ctx_rec(ctx, REC_ANCHOR)))
			return;
		st->emitted = ctx->out->nr;
	}
	r->t_ns = st->have_wall ? st->wall_ns : st->btime_s * NS_PER_S + st->uptime_ns;
	r->time_kind = TK_ABS;
	r->anc.mono_ns = st->uptime_ns;
	r->anc.boot = 0;
	r->anc.boot_id = STR_NONE;
	r->anc.quality = ANC_Q_CLOCK_REF;
	if (st->have_btime)
		snprintf(note, sizeof(note), "btime %" PRId64 "%s", st->btime_s,
			 st->have_wall ? "" : ", no wall line");
	else
		snprintf(note, sizeof(note), "no btime line");
	r->name = ctx_str(ctx, (struct slice){ note, strlen(note) });
}

static void cr_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	struct cr_state *st = ctx->state;
	const char *p = line, *e = line + n;
	struct slice key, val;
	int64_t ns;

	if (ctx->replay)
		return;
	if (!scan_token(&p, e, &key) || !scan_token(&p, e, &val)) {
		ctx_bad(ctx, 1, "expected 'btime', 'uptime', 'wall' or 'tz' and a value");
		return;
	}
	if (slice_eq(key, "btime")) {
		if (!cr_seconds(val, &ns) || ns % NS_PER_S) {
			ctx_bad(ctx, ctx_col(line, val.p), "btime wants whole epoch seconds, got '%.*s'",
				(int)(val.n > 40 ? 40 : val.n), val.p);
			return;
		}
		st->have_btime = true;
		st->btime_s = ns / NS_PER_S;
	} else if (slice_eq(key, "uptime")) {
		if (!cr_seconds(val, &ns)) {
			ctx_bad(ctx, ctx_col(line, val.p), "uptime wants seconds, got '%.*s'",
				(int)(val.n > 40 ? 40 : val.n), val.p);
			return;
		}
		st->have_uptime = true;
		st->uptime_ns = ns;
	} else if (slice_eq(key, "wall")) {
		if (!cr_seconds(val, &ns)) {
			ctx_bad(ctx, ctx_col(line, val.p), "wall wants epoch seconds, got '%.*s'",
				(int)(val.n > 40 ? 40 : val.n), val.p);
			return;
		}
		st->have_wall = true;
		st->wall_ns = ns;
	} else if (slice_eq(key, "tz")) {
		return;		/* the capture's zone: the anchor is UTC either way */
	} else {
		ctx_bad(ctx, 1, "unknown key '%.*s' (btime, uptime, wall, tz)",
			(int)(key.n > 40 ? 40 : key.n), key.p);
		return;
	}
	cr_emit(ctx, st);
}

static int cr_sniff(const char *head, size_t n, const char *name)
{
	struct slice h = { head, n };

	(void)name;
	if (!slice_starts_with(h, "btime ") && !slice_starts_with(h, "uptime "))
		return 0;
	if (!memmem(head, n, "uptime ", 7) || (!memmem(head, n, "\nwall ", 6) && !memmem(head, n, "btime ", 6)))
		return 0;
	return 95;
}

const struct format format_clock_ref = {
	.id = "clock-ref",
	.summary = "a clock reference: btime, uptime and wall time read together (clock_ref_*.txt of the H200 capture)",
	.detects = "a first line 'btime N' or 'uptime S', with an uptime line and a wall or btime line",
	.state_size = sizeof(struct cr_state),
	.sniff = cr_sniff,
	.line = cr_line,
	.whole_file = true,
	.boot_clock = true,
};
