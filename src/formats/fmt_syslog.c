/* SPDX-License-Identifier: MIT */
/*
 * Syslog files: /var/log/kern.log, syslog, messages (formats.md 3.4,
 * docs/formats/syslog.md).  Three envelopes, told apart line by line:
 *
 *   RFC 3164   Nov 29 22:46:09 host kernel: [   52.031082] NVRM: ...
 *              (no year: klenv.h gives it one; "Feb 28 2023 18:15:12" has one)
 *   RFC 3339   2026-11-29T22:46:09.123456+00:00 host kernel: NVRM: ...
 *   RFC 5424   <14>1 2026-11-29T22:46:09.003Z host app procid msgid [sd] msg
 *
 * each optionally behind a "<PRI>".  The message goes to the kernel-message
 * classifier (kmsg.h); only events become records, every other line that
 * has the envelope's shape is simply read.  A kernel line that kept its
 * printk stamp pairs the two clocks: a REC_ANCHOR, which places raw dmesg
 * files of the same boot.
 */
#include <string.h>

#include "formats/format.h"
#include "formats/klenv.h"
#include "formats/kmsg.h"
#include "util/timeutil.h"

/* The wall and printk clocks move together within a boot: a new anchor only
 * when their offset moves (a boot, a resume).  Seconds-resolution stamps
 * wobble by up to 1 s. */
#define SL_ANCHOR_TOL (2 * NS_PER_S)

/*
 * The bytes before the message of the last BSD line whose envelope ended in
 * a tag and a blank ("Nov  1 00:00:00 gpu-node-07 kernel: "), and what they
 * parsed to: a line that begins with the same bytes has the same envelope
 * (sl_parse() read no byte past them: kl_split_tag()'s tagged) and time.
 */
#define SL_PREFIX_MAX 64
struct sl_prefix {
	uint32_t n;		/* 0: empty */
	uint32_t tag_off, tag_n;
	int year;		/* kl_bsd.year */
	int64_t t_ns;
	char b[SL_PREFIX_MAX];
};

struct sl_state {
	struct kl_anchors anc;
	struct kl_state ks;
	struct kl_year year;
	struct kl_bsd_memo memo;	/* the last line's stamp and time */
	struct sl_prefix pre;		/* the last line's envelope */
	const char *basis;		/* kl_bsd_basis(ctx, false), once known */
};

enum sl_style { SL_BSD, SL_ISO, SL_5424 };

struct sl_env {
	enum sl_style style;
	struct kl_bsd bsd;	/* SL_BSD */
	const char *bsd_at, *bsd_end;	/* SL_BSD: where the stamp is */
	bool memo_hit;		/* SL_BSD: bsd and t_ns are the memo's */
	int64_t t_ns;		/* SL_ISO, SL_5424; SL_BSD when memo_hit */
	bool zoned;
	struct slice host, tag;
	const char *msg;
	bool tagged;		/* kl_split_tag()'s */
};

/* "[id k="v\"]" ...: past the structured data of an RFC 5424 record. */
static bool skip_sd(const char **pp, const char *end)
{
	const char *p = *pp;

	if (p < end && *p == '-') {
		*pp = p + 1;
		return true;
	}
	if (p >= end || *p != '[')
		return false;
	while (p < end && *p == '[') {
		bool quoted = false;
		for (p++; p < end; p++) {
			if (quoted && *p == '\\' && p + 1 < end)
				p++;
			else if (*p == '"')
				quoted = !quoted;
			else if (!quoted && *p == ']')
				break;
		}
		if (p >= end)
			return false;
		p++;
	}
	*pp = p;
	return true;
}

static struct slice word(const char **pp, const char *end)
{
	const char *p = *pp, *w;

	while (p < end && *p == ' ')
		p++;
	w = p;
	while (p < end && *p != ' ')
		p++;
	*pp = p;
	return (struct slice){ w, (size_t)(p - w) };
}

/* "<PRI>1 TIME HOST APP PROCID MSGID SD MSG" after the "<PRI>" */
static bool parse_5424(const char *p, const char *end, struct sl_env *e, const char **why,
		       const char **at)
{
	struct slice app;

	e->style = SL_5424;
	p += 2;
	*at = p;
	if (!kl_parse_iso(&p, end, &e->t_ns, &e->zoned)) {
		*why = "RFC 5424 record without an RFC 3339 time stamp";
		return false;
	}
	e->host = word(&p, end);
	app = word(&p, end);
	word(&p, end);	/* PROCID */
	word(&p, end);	/* MSGID */
	if (!app.n) {
		*at = p;
		*why = "RFC 5424 record cut before its APP-NAME";
		return false;
	}
	e->tag = slice_eq(app, "-") ? (struct slice){ app.p, 0 } : app;
	if (e->host.n == 1 && e->host.p[0] == '-')
		e->host.n = 0;
	while (p < end && *p == ' ')
		p++;
	*at = p;
	if (p < end && !skip_sd(&p, end)) {
		*why = "RFC 5424 structured data not closed by ']'";
		return false;
	}
	if (p < end && *p == ' ')
		p++;
	if (end - p >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
		p += 3;	/* the MSG's optional BOM */
	e->msg = p;
	return true;
}

/* The envelope of one line; false with *why and *at when it has none.  A
 * BSD stamp equal to the memo's (when given) is not parsed again. */
static bool sl_parse(const char *line, size_t n, const struct kl_bsd_memo *memo, struct sl_env *e,
		     const char **why, const char **at)
{
	const char *p = line, *end = line + n;

	/* not memset: this runs on every line; bsd is set by its parse, and
	 * read only for SL_BSD */
	e->memo_hit = e->zoned = e->tagged = false;
	e->t_ns = 0;
	e->bsd_at = e->bsd_end = NULL;
	e->host = e->tag = (struct slice){ line, 0 };
	e->msg = line;
	*at = line;
	if (p < end && *p == '<') {
		const char *q = p + 1;
		while (q < end && q - p <= 4 && (unsigned)(*q - '0') <= 9)
			q++;
		if (q < end && *q == '>' && q > p + 1) {
			p = q + 1;
			if (end - p >= 2 && p[0] == '1' && p[1] == ' ')
				return parse_5424(p, end, e, why, at);
		}
	}
	*at = p;
	if (p < end && (unsigned)(*p - '0') <= 9) {
		e->style = SL_ISO;
		if (!kl_parse_iso(&p, end, &e->t_ns, &e->zoned)) {
			*why = "not a syslog line: a bad RFC 3339 time stamp";
			return false;
		}
	} else {
		e->style = SL_BSD;
		e->bsd_at = p;
		if (memo && kl_bsd_memo_get(memo, p, end, &e->bsd, &e->t_ns)) {
			e->memo_hit = true;
			p += 15;
		} else if (!kl_parse_bsd(&p, end, &e->bsd)) {
			*why = "not a syslog line: no time stamp (Mmm dd HH:MM:SS or RFC 3339)";
			return false;
		}
		e->bsd_end = p;
	}
	*at = p;
	if (p >= end || *p != ' ' || !kl_split_tag(p, end, &e->host, &e->tag, &e->msg, &e->tagged)) {
		*why = "syslog line cut after its time stamp";
		return false;
	}
	return true;
}

static void sl_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	struct sl_state *st = ctx->state;
	const char *why, *at, *end = line + n, *m;
	struct sl_env e;
	int64_t t_ns, mono;

	if (n >= 5 && !memcmp(line, "-- ", 3) && !memcmp(line + n - 2, "--", 2)) {
		/* journalctl's own lines: a short-mode export sniffed as syslog */
		kl_marker(ctx, &st->ks, line, n);
		return;
	}
	if (st->pre.n && n >= st->pre.n && !memcmp(line, st->pre.b, st->pre.n)) {
		/* the last line's envelope (struct sl_prefix) */
		e.style = SL_BSD;
		e.tagged = false;
		e.memo_hit = true;
		e.bsd.year = st->pre.year;
		e.t_ns = st->pre.t_ns;
		e.tag = (struct slice){ line + st->pre.tag_off, st->pre.tag_n };
		e.msg = line + st->pre.n;
	} else if (!sl_parse(line, n, &st->memo, &e, &why, &at)) {
		ctx_bad(ctx, ctx_col(line, at), "%s", why);
		return;
	}
	if (e.style == SL_BSD) {
		if (e.memo_hit) {
			t_ns = e.t_ns;
		} else if (!kl_bsd_time(ctx, &st->year, &e.bsd, &t_ns)) {
			ctx_bad(ctx, 1, "no such date: %02d-%02d", e.bsd.mon, e.bsd.day);
			return;
		} else {
			kl_bsd_memo_put(&st->memo, e.bsd_at, e.bsd_end, end, &e.bsd, t_ns);
			e.t_ns = t_ns;
		}
		if (e.tagged && e.msg - line <= SL_PREFIX_MAX) {
			/* a new envelope to remember (tagged: a hit leaves it false) */
			st->pre.n = (uint32_t)(e.msg - line);
			st->pre.tag_off = (uint32_t)(e.tag.p - line);
			st->pre.tag_n = (uint32_t)e.tag.n;
			st->pre.year = e.bsd.year;
			st->pre.t_ns = t_ns;
			memcpy(st->pre.b, line, st->pre.n);
		}
		/* the inferred year is what a reader must know: it wins */
		if (e.bsd.year) {
			if (!ctx->out->time_basis)
				ctx->out->time_basis = kl_bsd_basis(ctx, true);
		} else {
			/* the same context, the same words: asked once */
			if (!st->basis)
				st->basis = kl_bsd_basis(ctx, false);
			ctx->out->time_basis = st->basis;
		}
	} else {
		t_ns = e.t_ns;
		if (!ctx->out->time_basis)
			ctx->out->time_basis = e.zoned ? "timestamps in the file (with their UTC offset)"
						       : "timestamps in the file, local time (--tz)";
	}
	m = e.msg;
	if (slice_eq(e.tag, "kernel") && kl_printk_stamp(&m, end, &mono))
		kl_anchor(ctx, &st->anc, t_ns, mono, (struct slice){ NULL, 0 }, 1, SL_ANCHOR_TOL);
	/* a journalctl short export read as syslog (the same shape) */
	if (end - m >= 13 && (*m == '[' || *m == ' ') &&	/* kl_blob()'s first test */
	    kl_blob(ctx, (struct slice){ m, (size_t)(end - m) }, ctx_col(line, m)))
		return;
	kl_emit(ctx, &st->ks, (struct slice){ m, (size_t)(end - m) }, e.tag, t_ns, TK_ABS, ctx_col(line, m));
}

/*
 * Most whole lines of the head must have the envelope: a syslog full of
 * sshd and cron lines is still a syslog.  journalctl's short modes print
 * the same shape; its own marker lines ("-- Boot ...", "-- Logs begin")
 * leave it to journal-text.
 */
static int sl_sniff(const char *head, size_t n, const char *name)
{
	const char *p = head, *end = head + n;
	int lines = 0, ok = 0, kernel = 0;

	(void)name;
	while (p < end && lines < 32) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len;
		struct sl_env e;
		const char *why, *at;
		if (!nl)
			break;	/* a line cut by the head proves nothing */
		len = (size_t)(nl - p);
		if (len && p[len - 1] == '\r')
			len--;
		if (len >= 3 && !memcmp(p, "-- ", 3))
			return 0;
		if (len) {
			lines++;
			if (sl_parse(p, len, NULL, &e, &why, &at)) {
				ok++;
				kernel += slice_eq(e.tag, "kernel");
			}
		}
		p = nl + 1;
	}
	/* half: a file may begin with a crash's NUL run or binary junk */
	if (!ok || ok * 2 < lines)
		return 0;
	return kernel ? 80 : 72;
}

const struct format format_syslog = {
	.id = "syslog",
	.summary = "syslog files (kern.log, syslog, messages): RFC 3164, RFC 3339 and RFC 5424 lines; "
		   "kernel and system events",
	.detects = "half the head's lines are 'Mmm dd HH:MM:SS host tag: msg', "
		   "'YYYY-MM-DDTHH:MM:SS... host tag: msg' or '<PRI>1 ...'",
	.state_size = sizeof(struct sl_state),
	.sniff = sl_sniff,
	.line = sl_line,
};
