/* SPDX-License-Identifier: MIT */
/*
 * journalctl text output (formats.md 3.5, docs/formats/journal-text.md):
 * every mode with a time stamp, told apart line by line.
 *
 *   short              Nov 29 22:46:09 host kernel: msg       (no year: klenv.h)
 *   short-precise      Nov 29 22:46:09.123456 host kernel: msg
 *   short-iso          2026-11-29T22:46:09+00:00 (or +0000) host kernel: msg
 *   short-iso-precise  2026-11-29T22:46:09.123456+00:00 host kernel: msg
 *   short-full         Sun 2026-11-29 22:46:09 UTC host kernel: msg
 *   short-monotonic    [   52.031082] host kernel: msg        (TK_BOOT)
 *   short-unix         1795992369.123456 host kernel: msg
 *
 * and the lines between entries: "-- Boot <id> --" (or "-- Reboot --"),
 * which starts a new boot and is an EV_BOOT record; "-- No entries --",
 * "-- Logs begin at ...", "-- Journal begins at ..." (read, nothing to
 * keep).  An entry whose message journalctl replaced by "[133B blob data]"
 * lost its text: it is a bad line with that reason, so it is counted and
 * shown, never dropped.  Indented lines continue the previous message.
 */
#include <string.h>

#include "formats/format.h"
#include "formats/klenv.h"
#include "formats/kmsg.h"
#include "util/timeutil.h"

struct jt_state {
	struct kl_year year;
	struct kl_state ks;
};

enum jt_mode { JT_BAD, JT_MARKER, JT_CONT, JT_SHORT, JT_ISO, JT_FULL, JT_MONO, JT_UNIX };

struct jt_env {
	enum jt_mode mode;
	struct kl_bsd bsd;	/* JT_SHORT */
	int64_t t_ns;		/* ns: UTC for JT_ISO/FULL/UNIX, since boot for JT_MONO */
	bool zoned;		/* JT_ISO, JT_FULL: the zone is known */
	struct slice host, tag;
	const char *msg;
};

static bool digit(char c)
{
	return (unsigned)(c - '0') <= 9;
}

/* "1795992369.123456": epoch seconds with microseconds */
static bool parse_unix(const char **pp, const char *end, int64_t *t_ns)
{
	const char *p = *pp;
	uint64_t s;
	int64_t frac = 0, scale = NS_PER_S / 10;
	int nd = 0;

	if (scan_u64(&p, end, &s) || s > (uint64_t)(INT64_MAX / NS_PER_S - 1) || p >= end || *p++ != '.')
		return false;
	for (; p < end && digit(*p); p++, nd++, scale /= 10)
		if (nd < 9)
			frac += (*p - '0') * scale;
	if (!nd)
		return false;
	*t_ns = (int64_t)s * NS_PER_S + frac;
	*pp = p;
	return true;
}

/* "Sun 2026-11-29 22:46:09 UTC": the zone word is UTC/GMT or the reader's
 * own (any other name is taken as --tz's zone: abbreviations are ambiguous) */
static bool parse_full(const char **pp, const char *end, int64_t *t_ns, bool *zoned)
{
	const char *p = *pp + 4, *z;
	char buf[24];

	if (end - p < 20 || p[10] != ' ' || p[19] != ' ')
		return false;
	memcpy(buf, p, 19);
	buf[10] = 'T';
	z = p + 20;
	p = z;
	while (p < end && *p != ' ')
		p++;
	*zoned = (p - z == 3 && (!memcmp(z, "UTC", 3) || !memcmp(z, "GMT", 3)));
	if (*zoned) {
		buf[19] = 'Z';
		buf[20] = '\0';
	} else {
		buf[19] = '\0';
	}
	if (time_parse_iso(buf, strlen(buf), t_ns))
		return false;
	*pp = p;
	return true;
}

static bool weekday(const char *p, const char *end)
{
	static const char days[7][4] = { "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun" };

	if (end - p < 4 || p[3] != ' ')
		return false;
	for (int i = 0; i < 7; i++)
		if (!memcmp(p, days[i], 3))
			return true;
	return false;
}

/* The envelope of one line; JT_BAD with *why and *at when it has none. */
static void jt_parse(const char *line, size_t n, struct jt_env *e, const char **why, const char **at)
{
	const char *p = line, *end = line + n;
	bool ok;

	memset(e, 0, sizeof(*e));
	*at = line;
	if (n >= 3 && !memcmp(p, "-- ", 3)) {
		e->mode = JT_MARKER;
		return;
	}
	if (*p == ' ' || *p == '\t') {
		e->mode = JT_CONT;
		return;
	}
	if (*p == '[') {
		e->mode = JT_MONO;
		ok = kl_printk_stamp(&p, end, &e->t_ns);
		if (ok && p > line && p[-1] == ' ')
			p--;
	} else if (digit(*p)) {
		if (n > 4 && p[4] == '-') {
			e->mode = JT_ISO;
			ok = kl_parse_iso(&p, end, &e->t_ns, &e->zoned);
		} else {
			e->mode = JT_UNIX;
			e->zoned = true;
			ok = parse_unix(&p, end, &e->t_ns);
		}
	} else if (weekday(p, end)) {
		e->mode = JT_FULL;
		ok = parse_full(&p, end, &e->t_ns, &e->zoned);
	} else {
		e->mode = JT_SHORT;
		ok = kl_parse_bsd(&p, end, &e->bsd) && !e->bsd.year;
	}
	if (!ok) {
		e->mode = JT_BAD;
		*why = "not a journalctl line: no time stamp in a known mode (short, short-precise, "
		       "short-iso, short-full, short-monotonic, short-unix)";
		return;
	}
	*at = p;
	if (p >= end || *p != ' ' || !kl_split_tag(p, end, &e->host, &e->tag, &e->msg, NULL) || !e->tag.n) {
		e->mode = JT_BAD;
		*why = "journalctl line without 'identifier: ' after its time stamp";
	}
}

static void jt_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	struct jt_state *st = ctx->state;
	const char *why, *at, *end = line + n;
	enum time_kind tk = TK_ABS;
	struct jt_env e;
	int64_t t_ns;
	struct slice msg;

	jt_parse(line, n, &e, &why, &at);
	switch (e.mode) {
	case JT_BAD:
		ctx_bad(ctx, ctx_col(line, at), "%s", why);
		return;
	case JT_MARKER:
		kl_marker(ctx, &st->ks, line, n);
		return;
	case JT_CONT:
		return;	/* the rest of a multi-line message, already read */
	case JT_SHORT:
		if (!kl_bsd_time(ctx, &st->year, &e.bsd, &t_ns)) {
			ctx_bad(ctx, 1, "no such date: %02d-%02d", e.bsd.mon, e.bsd.day);
			return;
		}
		ctx->out->time_basis = kl_bsd_basis(ctx, false);	/* the inferred year wins */
		break;
	case JT_MONO:
		t_ns = e.t_ns;
		tk = TK_BOOT;
		if (!ctx->out->time_basis)
			ctx->out->time_basis = "kernel printk clock since boot (short-monotonic): placed by an anchor";
		break;
	default:
		t_ns = e.t_ns;
		if (!ctx->out->time_basis)
			ctx->out->time_basis = e.mode == JT_UNIX ? "epoch seconds in the file (short-unix)"
					       : e.zoned ? "timestamps in the file (with their UTC offset)"
							 : "timestamps in the file, local time (--tz)";
		break;
	}
	msg = (struct slice){ e.msg, (size_t)(end - e.msg) };
	if (kl_blob(ctx, msg, ctx_col(line, e.msg)))
		return;
	kl_emit(ctx, &st->ks, msg, e.tag, t_ns, tk, ctx_col(line, e.msg));
}

/*
 * journalctl's own lines ("-- Logs begin", "-- Boot", "-- No entries --")
 * are proof.  Without them: the modes only journalctl writes (short-full,
 * short-unix, short-monotonic with host and identifier) score high; the
 * short and ISO modes look exactly like a syslog file, which outscores.
 */
static int jt_sniff(const char *head, size_t n, const char *name)
{
	const char *p = head, *end = head + n;
	int lines = 0, own = 0, shared = 0;

	(void)name;
	while (p < end && lines < 32) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *why, *at;
		struct jt_env e;
		size_t len;
		if (!nl)
			break;
		len = (size_t)(nl - p);
		if (len && p[len - 1] == '\r')
			len--;
		if (len) {
			struct slice s = { p, len };
			lines++;
			jt_parse(p, len, &e, &why, &at);
			if (e.mode == JT_MARKER && (slice_starts_with(s, "-- Logs begin at ") ||
						    slice_starts_with(s, "-- Journal begins at ") ||
						    slice_starts_with(s, "-- Boot ") ||
						    slice_eq(s, "-- Reboot --") || slice_eq(s, "-- No entries --")))
				return 95;
			/* short-monotonic looks like raw dmesg's "[ 1.0] usb 1-1: ...":
			 * only "host kernel:" and "host name[pid]:" are journalctl's */
			if (e.mode == JT_FULL || e.mode == JT_UNIX ||
			    (e.mode == JT_MONO && e.host.n &&
			     (slice_eq(e.tag, "kernel") || e.tag.p[e.tag.n] == '[')))
				own++;
			else if (e.mode == JT_SHORT || e.mode == JT_ISO)
				shared++;
			else if (e.mode == JT_CONT)
				lines--;
		}
		p = nl + 1;
	}
	/* half: a file may begin with a crash's NUL run or binary junk */
	if (!lines || (own + shared) * 2 < lines)
		return 0;
	/* nine in ten in journalctl's own shapes: above raw dmesg's best (92),
	 * which a short-monotonic export resembles */
	if (own * 10 >= lines * 9)
		return 93;
	return own ? 85 : 60;
}

const struct format format_journal_text = {
	.id = "journal-text",
	.summary = "journalctl text output (short, short-precise, short-iso, short-iso-precise, short-full, "
		   "short-monotonic, short-unix): kernel and system events",
	.detects = "a '-- Logs begin at', '-- Boot', '-- No entries --' line, or half the head's lines in a "
		   "journalctl-only mode (short-full, short-unix, short-monotonic 'host kernel:' or 'host name[pid]:')",
	.state_size = sizeof(struct jt_state),
	.sniff = jt_sniff,
	.line = jt_line,
	.boot_clock = true,	/* short-monotonic times and boot ids anywhere (anchor.h) */
};
