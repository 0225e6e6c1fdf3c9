/* SPDX-License-Identifier: MIT */
/*
 * nvidia-bug-report.log(.gz) (docs/formats/nvidia-bug-report.md): what
 * nvidia-bug-report.sh collects, one section after another, each opened by
 * a line of underscores and a header: a file ("*** /proc/cpuinfo"), a
 * command ("/usr/bin/nvidia-smi --query", "/sbin/lspci -nn", "dmesg:",
 * "journalctl -b -0 _COMM=Xorg"), or a note ("Skipping ... (... not
 * found)").  The prologue's "Date:" line is when the report was made.
 *
 * A container: each section that holds telemetry goes to the format that
 * reads it, line by line with the container's line numbers.
 *
 *   nvidia-smi --query           smi-q (its "--query --unit" part is not GPUs)
 *   dmesg:                       kernel-dmesg, placed by the Date line: the
 *                                report runs at once, so its last kernel line
 *                                is taken as printed at that Date (an anchor:
 *                                the boot began at Date - its printk time)
 *   journalctl ..., and the NVRM journal lines of "Scanning kernel log files"
 *                                journal-text, their year from the Date line
 *
 * Both local-time parts (the -q Timestamp, the journal's) are read in the
 * Date line's zone when it gives one as a number or UTC ("-03", "+0100"),
 * else in --tz.  Every other section is named by its header and not read:
 * lspci, lsusb and dmidecode listings, /proc and /sys files, X logs and
 * configuration: system listings, not telemetry.
 */
#include "formats/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/smi.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

enum sect {
	S_NONE,		/* between a rule and its header */
	S_PROLOGUE,
	S_SMI_Q,
	S_SMI_UNIT,	/* nvidia-smi --query --unit: S-class units, not GPUs */
	S_DMESG,
	S_JOURNAL,	/* journalctl ... and the kernel-message scan */
	S_LSPCI,
	S_OTHER,	/* a file, a listing, a note */
	S_END,
};

struct sub {
	const struct format *f;
	void *state;
};

struct nbr {
	struct textlines tl;
	uint8_t sect;
	bool header_next;	/* the next non-blank line is a section's header */
	bool have_date;
	int64_t date_ns;	/* the Date line, UTC */
	bool zoned;		/* the Date line gave its zone */
	long zone_s;		/* its offset east of UTC */
	/* nvidia-smi --query: fed to smi-q as a stream of its own */
	struct sub q;
	bool q_open;
	uint64_t q_base;	/* container line before its first line */
	struct sub kd, jt;
	bool kd_any;		/* a dmesg line with a time was read */
	int64_t kd_last_ns;	/* its printk time */
};

static void sub_open(struct sub *s, const char *id, const struct ingest_opts *o)
{
	if (s->state)
		return;
	s->f = format_find(id);
	s->state = xcalloc(1, s->f->state_size ? s->f->state_size : 1);
	if (s->f->init)
		s->f->init(s->state, o);
}

static void sub_close(struct sub *s)
{
	if (!s->state)
		return;
	if (s->f->fini)
		s->f->fini(s->state);
	free(s->state);
	s->state = NULL;
}

static void nbr_fini(void *state)
{
	struct nbr *b = state;
	sub_close(&b->q);
	sub_close(&b->kd);
	sub_close(&b->jt);
	textlines_free(&b->tl);
}

/* Run a sub-format on ctx with its own state. */
static void sub_line(struct parse_ctx *ctx, struct sub *s, const char *line, size_t n)
{
	void *mine = ctx->state;
	ctx->state = s->state;
	s->f->line(ctx, line, n);
	ctx->state = mine;
}

/*
 * Records of a local-time part, read in --tz, moved to the Date line's zone:
 * local wall = t + offset(--tz at t), so UTC = that - the Date's offset.
 * Only records of the current call: the driver may hand the next piece a
 * new batch, so nothing is kept to fix later.
 */
static void to_report_zone(struct parse_ctx *ctx, const struct nbr *b, size_t from)
{
	if (!b->zoned)
		return;
	for (size_t i = from; i < ctx->out->nr; i++) {
		struct rec *r = &ctx->out->recs[i];
		if (r->kind == REC_BAD || r->time_kind != TK_ABS)
			continue;
		r->t_ns += ((int64_t)time_utc_offset_s(r->t_ns / NS_PER_S) - b->zone_s) * NS_PER_S;
	}
}

/* smi-q numbers its own lines from 1 and reads its Timestamp in --tz. */
static void sub_stream(struct parse_ctx *ctx, struct nbr *b, const char *p, size_t n, bool last)
{
	void *mine = ctx->state;
	uint64_t line = ctx->line;
	size_t from = ctx->out->nr;

	ctx->state = b->q.state;
	b->q.f->stream(ctx, p, n, last);
	ctx->state = mine;
	ctx->line = line;
	for (size_t i = from; i < ctx->out->nr; i++)
		ctx->out->recs[i].line += b->q_base;
	to_report_zone(ctx, b, from);
}

static void close_smi_q(struct parse_ctx *ctx, struct nbr *b)
{
	if (!b->q_open)
		return;
	sub_stream(ctx, b, "", 0, true);
	sub_close(&b->q);
	b->q_open = false;
}

/*
 * The dmesg section ends: its last kernel line was printed when the report
 * ran.  That pair of clocks places the section's boot (anchor.h), on
 * whichever batch its records went.
 */
static void close_dmesg(struct parse_ctx *ctx, struct nbr *b)
{
	struct rec *r;

	if (!b->kd_any || !b->have_date)
		return;
	b->kd_any = false;
	if (!(r = ctx_rec(ctx, REC_ANCHOR)))
		return;
	r->t_ns = b->date_ns;
	r->time_kind = TK_ABS;
	r->gpu_index = -1;
	r->anc.mono_ns = b->kd_last_ns;
	r->anc.boot = 0;
	r->anc.boot_id = STR_NONE;
	r->anc.quality = 2;
}

static void close_section(struct parse_ctx *ctx, struct nbr *b)
{
	close_smi_q(ctx, b);
	if (b->sect == S_DMESG)
		close_dmesg(ctx, b);
}

/*
 * "Date: Thu Oct 27 08:50:11 PM -03 2022", "Date: Tue Oct 27 14:31:54 EDT
 * 2009": date(1)'s default, 12- or 24-hour, with a zone that is a number,
 * UTC/GMT, or a name (read in --tz then).
 */
static bool parse_date(struct slice s, struct nbr *b)
{
	struct slice w[8];
	size_t n = scan_tokens(s, w, 8), k;
	char buf[64];
	int h, mi, sec, pm = -1;
	long off = 0;
	bool zoned = false;
	int64_t t;

	if (n < 5 || n > 7)
		return false;
	k = 3;	/* weekday, month, day, then the time */
	{
		/* HH:MM:SS, read within the token (the line has no NUL after it) */
		const char *p = w[k].p, *e = w[k].p + w[k].n;
		if (w[k].n != 8 || scan_fixed_digits(&p, e, 2, &h) || *p++ != ':' ||
		    scan_fixed_digits(&p, e, 2, &mi) || *p++ != ':' ||
		    scan_fixed_digits(&p, e, 2, &sec))
			return false;
	}
	if (k + 1 < n && (slice_eq(w[k + 1], "AM") || slice_eq(w[k + 1], "PM"))) {
		pm = slice_eq(w[k + 1], "PM");
		k++;
	}
	if (pm >= 0) {
		if (h < 1 || h > 12)
			return false;
		h = h % 12 + (pm ? 12 : 0);
	}
	if (n == k + 3) {	/* a zone, then the year */
		struct slice z = w[k + 1];
		if (slice_eq(z, "UTC") || slice_eq(z, "GMT")) {
			zoned = true;
		} else if (z.n >= 3 && (z.p[0] == '+' || z.p[0] == '-')) {
			int64_t v;
			if (slice_to_i64((struct slice){ z.p + 1, z.n - 1 }, &v) || v < 0)
				return false;
			if (z.n == 3)
				off = (long)v * 3600;
			else if (z.n == 5)
				off = (long)(v / 100) * 3600 + (long)(v % 100) * 60;
			else
				return false;
			if (z.p[0] == '-')
				off = -off;
			zoned = true;
		}	/* a zone's name (EDT, IST): read in --tz */
	} else if (n != k + 2) {
		return false;
	}
	/* month day HH:MM:SS year, as smi_ctime reads it */
	snprintf(buf, sizeof(buf), "%.*s %.*s %.*s %02d:%02d:%02d %.*s", (int)w[0].n, w[0].p,
		 (int)w[1].n, w[1].p, (int)w[2].n, w[2].p, h, mi, sec, (int)w[n - 1].n, w[n - 1].p);
	if (smi_ctime((struct slice){ buf, strlen(buf) }, &t))
		return false;
	if (zoned)	/* smi_ctime read it in --tz */
		t += ((int64_t)time_utc_offset_s(t / NS_PER_S) - off) * NS_PER_S;
	b->have_date = true;
	b->date_ns = t;
	b->zoned = zoned;
	b->zone_s = off;
	return true;
}

static bool is_rule(struct slice s)
{
	if (s.n < 10)
		return false;
	for (size_t i = 0; i < s.n; i++)
		if (s.p[i] != '_')
			return false;
	return true;
}

/* "/usr/bin/nvidia-smi --query", "nvidia-smi --query --unit" (1: --unit) */
static int smi_query_header(struct slice s)
{
	struct slice w[4];
	size_t n = scan_tokens(s, w, 4);
	if (n < 2 || w[0].n < 10 || memcmp(w[0].p + w[0].n - 10, "nvidia-smi", 10) ||
	    !slice_eq(w[1], "--query"))
		return -1;
	if (n == 2)
		return 0;
	return n == 3 && slice_eq(w[2], "--unit") ? 1 : -1;
}

static uint8_t classify(struct slice h)
{
	struct slice w[2];
	size_t n = scan_tokens(h, w, 2);
	int q = smi_query_header(h);

	if (slice_starts_with(h, "Start of NVIDIA bug report log file"))
		return S_PROLOGUE;
	if (slice_starts_with(h, "End of NVIDIA bug report log file"))
		return S_END;
	if (q >= 0)
		return q ? S_SMI_UNIT : S_SMI_Q;
	if (n && (slice_eq(w[0], "dmesg:") || slice_eq(w[0], "dmesg") ||
		  (w[0].n > 6 && !memcmp(w[0].p + w[0].n - 6, "/dmesg", 6))))
		return S_DMESG;
	if (n && (slice_eq(w[0], "journalctl") ||
		  (w[0].n > 11 && !memcmp(w[0].p + w[0].n - 11, "/journalctl", 11))))
		return S_JOURNAL;
	if (slice_starts_with(h, "Scanning kernel log files for NVIDIA kernel messages"))
		return S_JOURNAL;
	if (n && w[0].n >= 5 && !memcmp(w[0].p + w[0].n - 5, "lspci", 5))
		return S_LSPCI;
	return S_OTHER;
}

/* "[ 1523.174430] ..." -> its printk time */
static bool printk_ns(struct slice s, int64_t *ns)
{
	const char *p = s.p, *end = s.p + s.n;
	double d;

	if (p >= end || *p != '[')
		return false;
	p++;
	scan_skip_space(&p, end);
	if (scan_double(&p, end, &d) || p >= end || *p != ']' || d < 0)
		return false;
	*ns = (int64_t)(d * 1e9 + 0.5);
	return true;
}

static void nbr_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	struct nbr *b = ctx->state;
	struct slice s = slice_trim((struct slice){ line, n });

	if (is_rule(s)) {
		close_section(ctx, b);
		b->sect = S_NONE;
		b->header_next = true;
		return;
	}
	if (b->header_next) {
		if (!s.n)
			return;
		b->header_next = false;
		b->sect = classify(s);
		switch (b->sect) {
		case S_SMI_Q:
			sub_open(&b->q, "smi-q", ctx->opts);
			b->q_open = true;
			b->q_base = ctx->line;
			break;
		case S_DMESG:
			sub_open(&b->kd, "kernel-dmesg", ctx->opts);
			break;
		case S_JOURNAL:
			sub_open(&b->jt, "journal-text", ctx->opts);
			break;
		case S_OTHER:
			/* "Skipping nvidia-smi output (nvidia-smi not found)" */
			if (slice_starts_with(s, "Skipping nvidia-smi"))
				ctx_event(ctx, EV_TOOL_ERROR, 0, TK_NONE, -1, "%.*s", fmt_quote_len(s), s.p);
			break;
		default:
			break;
		}
		return;
	}
	switch (b->sect) {
	case S_PROLOGUE:
		if (slice_starts_with(s, "Date:") &&
		    !parse_date(slice_trim((struct slice){ s.p + 5, s.n - 5 }), b))
			ctx_bad(ctx, ctx_col(line, s.p), "\"%.*s\" is not a date the report can be placed by",
				fmt_quote_len(s), s.p);
		break;
	case S_SMI_Q: {
		char nl = '\n';
		uint64_t at = ctx->line;
		if (smi_query_header(s) == 1) {	/* --query --unit follows without a rule */
			close_smi_q(ctx, b);
			b->sect = S_SMI_UNIT;
			break;
		}
		/* smi-q counts its own lines: line k of it is container line q_base + k */
		sub_stream(ctx, b, line, n, false);
		if (!ctx->last_line_partial)	/* a cut last line stays cut for smi-q */
			sub_stream(ctx, b, &nl, 1, false);
		ctx->line = at;
		break;
	}
	case S_DMESG: {
		int64_t ns;
		if (!s.n)
			break;
		if (printk_ns(s, &ns)) {	/* the last boot's last time */
			b->kd_any = true;
			b->kd_last_ns = ns;
		}
		sub_line(ctx, &b->kd, line, n);
		break;
	}
	case S_JOURNAL: {
		int64_t saved = ctx->mtime_ns;
		/* "  journalctl -b -1:", "  /var/log/messages:": the scan's own headings */
		if (!s.n || line[0] == ' ' || slice_starts_with(s, "No NVIDIA kernel messages") ||
		    slice_starts_with(s, "No suitable log found"))
			break;
		size_t from = ctx->out->nr;
		if (b->have_date)
			ctx->mtime_ns = b->date_ns;	/* the journal's year is the report's */
		sub_line(ctx, &b->jt, line, n);
		ctx->mtime_ns = saved;
		to_report_zone(ctx, b, from);
		break;
	}
	default:
		break;	/* named by its header, not telemetry */
	}
}

static void nbr_stream(struct parse_ctx *ctx, const char *p, size_t n, bool last)
{
	struct nbr *b = ctx->state;

	textlines_feed(&b->tl, ctx, p, n, last, nbr_line);
	if (last) {
		uint64_t lines = ctx->line;
		close_section(ctx, b);
		b->sect = S_NONE;
		ctx->line = lines;
	}
	/* shown unless the dmesg anchor names the basis */
	ctx->out->time_basis = "the report's Date line: its nvidia-smi -q, dmesg (the last line at that "
			       "time) and journal sections read; lspci and the other sections named, "
			       "not telemetry";
}

static int nbr_sniff(const char *head, size_t n, const char *name)
{
	(void)name;
	if (memmem(head, n, "Start of NVIDIA bug report log file", 35) &&
	    memmem(head, n, "____________", 12))
		return 95;
	return 0;
}

const struct format format_nvidia_bug_report = {
	.id = "nvidia-bug-report",
	.summary = "nvidia-bug-report.log(.gz): its nvidia-smi -q, dmesg and journal sections read, "
		   "placed by the report's Date line",
	.detects = "a 'Start of NVIDIA bug report log file' prologue under a rule of underscores",
	.state_size = sizeof(struct nbr),
	.sniff = nbr_sniff,
	.stream = nbr_stream,
	.fini = nbr_fini,
	.boot_clock = true,
};
