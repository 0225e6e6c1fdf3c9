/* SPDX-License-Identifier: MIT */
/*
 * Raw dmesg and /dev/kmsg records (formats.md 3.3 and 12.7, 12.8):
 *
 *   [ 1451.785035] NVRM: Xid (PCI:0000:01:00): 31, ...      seconds since boot
 *   <4>[16450.076098] NVRM: ...                             dmesg -r / /proc/kmsg level
 *   [  130.456250] [ T1946] NVRM: ...                       CONFIG_PRINTK_CALLER
 *   6,1234,5678901,-;NVRM: ...                             /dev/kmsg: microseconds
 *   [Mon Sep 14 04:48:45 2026] NVRM: ...                   dmesg -T: local time
 *   2024-11-15T12:02:03,561522+00:00 NVRM: ...             dmesg --time-format=iso
 *   kern  :warn  : 2025-01-21T04:41:44,283302+00:00 ...    dmesg -x (facility, level)
 *
 * Seconds since boot are TK_BOOT: the driver places them by an anchor
 * (anchor.h) and counts the boots (an EV_BOOT record at each "Linux
 * version" line, the printk clock going back).  dmesg -T and iso times are
 * wall time already (boot time plus printk seconds, so late by any time the
 * machine was suspended: formats.md 3.3), read in the --tz zone for -T.
 *
 * Kernel logs are mostly noise: a line is parsed only up to its message,
 * and only messages kmsg_maybe() passes are classified.  A line with no
 * dmesg prefix is noise too, unless it holds control bytes (not text at
 * all: counted as bad) or a kernel event with no time (bad: it cannot be
 * placed).
 */
#include "formats/format.h"

#include <string.h>

#include "formats/kmsg.h"
#include "util/timeutil.h"

struct kd_state {
	struct kmsg_fold fold;
	/* the last stamped line: dmesg prints the further lines of a
	 * multi-line record indented, without a stamp of their own */
	bool have_last;
	enum kd_shape_saved { KD_SAVED_BOOT, KD_SAVED_ABS } last_kind;
	int64_t last_t_ns;
	bool orphan_said;	/* the record the file starts inside was reported */
};

static bool kd_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* "[ sssss.uuuuuu]" at p: ns since boot; p moved past "]". */
static bool kd_mono(const char **pp, const char *e, int64_t *t_ns)
{
	const char *p = *pp + 1;
	uint64_t s = 0;
	int64_t frac = 0, scale = NS_PER_S / 10;
	int nd = 0;

	while (p < e && *p == ' ')
		p++;
	while (p < e && kd_digit(*p) && nd < 12) {
		s = s * 10 + (uint64_t)(*p++ - '0');
		nd++;
	}
	if (!nd || s > KMSG_STAMP_MAX_S || p >= e || *p != '.')
		return false;
	p++;
	nd = 0;
	while (p < e && kd_digit(*p)) {
		if (nd++ < 9) {
			frac += (*p - '0') * scale;
			scale /= 10;
		}
		p++;
	}
	if (!nd || p >= e || *p != ']')
		return false;
	*t_ns = (int64_t)s * NS_PER_S + frac;	/* fits: KMSG_STAMP_MAX_S */
	*pp = p + 1;
	return true;
}

static int kd_month(const char *p)
{
	static const char names[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

	for (int i = 0; i < 12; i++)
		if (!memcmp(p, names + 3 * i, 3))
			return i + 1;
	return 0;
}

/* "[Www Mmm dd HH:MM:SS YYYY]" (ctime, day space-padded) in local time. */
static bool kd_ctime(const char **pp, const char *e, int64_t *t_ns)
{
	const char *p = *pp + 1;
	int mo, d, h, mi, s, y;
	int64_t t_s;

	if (e - p < 25 || p[3] != ' ' || p[7] != ' ' || !(mo = kd_month(p + 4)))
		return false;
	p += 8;
	if (*p == ' ')
		p++;
	if (!kd_digit(*p))
		return false;
	d = *p++ - '0';
	if (kd_digit(*p))
		d = d * 10 + (*p++ - '0');
	if (p >= e || *p++ != ' ' || scan_fixed_digits(&p, e, 2, &h) || p >= e || *p++ != ':' ||
	    scan_fixed_digits(&p, e, 2, &mi) || p >= e || *p++ != ':' ||
	    scan_fixed_digits(&p, e, 2, &s) || p >= e || *p++ != ' ' ||
	    scan_fixed_digits(&p, e, 4, &y) || p >= e || *p != ']')
		return false;
	if (!civil_valid(y, mo, d) || h > 23 || mi > 59 || s > 60 ||
	    time_local_to_utc(y, mo, d, h, mi, s, &t_s))
		return false;
	*t_ns = t_s * NS_PER_S;
	*pp = p + 1;
	return true;
}

/* "YYYY-MM-DDTHH:MM:SS,uuuuuu+00:00" up to the next blank. */
static bool kd_iso(const char **pp, const char *e, int64_t *t_ns)
{
	const char *p = *pp, *sp = memchr(p, ' ', (size_t)(e - p));

	if (!sp || sp - p < 19 || p[4] != '-' || p[10] != 'T')
		return false;
	if (time_parse_iso(p, (size_t)(sp - p), t_ns))
		return false;
	*pp = sp;
	return true;
}

/* /dev/kmsg: "level,seq,usec,flags[,caller=T123];message" */
static bool kd_kmsg(const char **pp, const char *e, int64_t *t_ns)
{
	const char *p = *pp, *semi;
	uint64_t v;

	for (int i = 0; i < 2; i++)
		if (scan_u64(&p, e, &v) || p >= e || *p++ != ',')
			return false;
	if (scan_u64(&p, e, &v) || p >= e || *p != ',' || v > (uint64_t)INT64_MAX / 1000)
		return false;
	semi = memchr(p, ';', (size_t)(e - p));
	if (!semi || semi - p > 64)
		return false;
	*t_ns = (int64_t)v * 1000;
	*pp = semi + 1;
	return true;
}

/* dmesg -x: "kern  :warn  : " */
static const char *kd_skip_facility(const char *p, const char *e)
{
	const char *q = p;

	for (int i = 0; i < 2; i++) {
		const char *w = q;
		while (q < e && *q >= 'a' && *q <= 'z')
			q++;
		if (q == w || q - w > 8)
			return p;
		while (q < e && *q == ' ')
			q++;
		if (q >= e || *q++ != ':')
			return p;
	}
	if (q < e && *q == ' ')
		q++;
	return q;
}

/* Control bytes (other than tab) say the line is not text at all. */
static const char *kd_binary(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return p + i;
	}
	return NULL;
}

static bool kd_is_event(const char *msg, size_t n)
{
	struct kmsg k;

	return kmsg_classify((struct slice){ msg, n }, (struct slice){ "", 0 }, &k);
}

enum kd_shape { KD_NONE, KD_MONO, KD_CTIME, KD_ISO, KD_KMSG, KD_RELATIVE };

/* Parse the envelope of line; the message starts at *msg. */
static enum kd_shape kd_envelope(const char *line, size_t n, int64_t *t_ns, const char **msg)
{
	const char *p = line, *e = line + n;
	enum kd_shape shape = KD_NONE;

	if (p < e && *p >= 'a' && *p <= 'z')
		p = kd_skip_facility(p, e);
	if (p < e && *p == '<') {
		const char *q = p + 1;
		while (q < e && kd_digit(*q) && q - p < 5)
			q++;
		if (q > p + 1 && q < e && *q == '>')
			p = q + 1;
	}
	if (p >= e)
		return KD_NONE;
	if (*p == '[') {
		if (p + 1 < e && (p[1] == ' ' || kd_digit(p[1])) && kd_mono(&p, e, t_ns))
			shape = KD_MONO;
		else if (p + 1 < e && p[1] >= 'A' && p[1] <= 'Z' && kd_ctime(&p, e, t_ns))
			shape = KD_CTIME;
		else if (p + 2 < e && (p[1] == '+' || (p[1] == ' ' && memchr(p, '+', (size_t)(e - p) < 8 ? (size_t)(e - p) : 8))))
			shape = KD_RELATIVE;
		else
			return KD_NONE;
	} else if (kd_digit(*p)) {
		if (e - p > 19 && p[4] == '-' && kd_iso(&p, e, t_ns))
			shape = KD_ISO;
		else if (kd_kmsg(&p, e, t_ns))
			shape = KD_KMSG;
		else
			return KD_NONE;
	} else {
		return KD_NONE;
	}
	if (shape == KD_RELATIVE) {
		const char *c = memchr(p, ']', (size_t)(e - p));
		p = c ? c + 1 : e;
	}
	if (shape != KD_KMSG && p < e && *p == ' ')
		p++;
	/* the caller id of CONFIG_PRINTK_CALLER: "[ T1946] " or "[    C3] " */
	if (e - p >= 4 && *p == '[') {
		const char *q = p + 1;
		while (q < e && *q == ' ')
			q++;
		if (q < e && (*q == 'T' || *q == 'C')) {
			const char *d = ++q;
			while (q < e && kd_digit(*q))
				q++;
			if (q > d && q < e && *q == ']') {
				p = q + 1;
				if (p < e && *p == ' ')
					p++;
			}
		}
	}
	*msg = p;
	return shape;
}

static void kd_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	struct kd_state *st = ctx->state;
	const char *e = line + n, *msg = NULL, *bin;
	int64_t t_ns = 0;
	enum kd_shape shape = kd_envelope(line, n, &t_ns, &msg);
	enum time_kind tk = shape == KD_MONO || shape == KD_KMSG ? TK_BOOT : TK_ABS;
	size_t mn;

	if (shape != KD_NONE && shape != KD_RELATIVE) {
		st->have_last = true;
		st->last_t_ns = t_ns;
		st->last_kind = tk == TK_BOOT ? KD_SAVED_BOOT : KD_SAVED_ABS;
	} else if (shape == KD_NONE && n && (line[0] == ' ' || line[0] == '\t') && st->have_last) {
		/* "               NVRM: fallen off the bus ...": a further line of
		 * the record above (dmesg indents it under the message), with
		 * its time (tests/corpus/public/nvsentinel-issue155-falloff) */
		const char *m = line;
		while (m < e && (*m == ' ' || *m == '\t'))
			m++;
		if (ctx->replay || m == e || !kmsg_maybe(m, (size_t)(e - m)))
			return;
		kmsg_emit_fold(ctx, &st->fold, (struct slice){ m, (size_t)(e - m) }, (struct slice){ "", 0 },
			       st->last_t_ns, st->last_kind == KD_SAVED_BOOT ? TK_BOOT : TK_ABS, 0, ctx_col(line, m));
		return;
	}
	if (ctx->replay)
		return;
	if (shape == KD_NONE) {
		/* /dev/kmsg's " KEY=value" device lines and other text are noise */
		if ((bin = kd_binary(line, n)))
			ctx_bad(ctx, ctx_col(line, bin), "not a kernel log line (control byte 0x%02x)",
				(unsigned char)*bin);
		else if ((line[0] == ' ' || line[0] == '\t') && !st->have_last) {
			/* indented before any stamped line: the file starts
			 * inside a multi-line record (a log split in two):
			 * one bad record, however many of its lines are here */
			if (!st->orphan_said && kmsg_maybe(line, n) && kd_is_event(line, n)) {
				ctx_bad(ctx, 1, "kernel event with no time stamp: a further line of a record "
						"whose stamped first line is not in this file (it starts inside the record)");
				st->orphan_said = true;
			}
		} else if (kmsg_maybe(line, n) && kd_is_event(line, n)) {
			ctx_bad(ctx, 1, "kernel event with no time stamp (not placeable)");
		}
		return;
	}
	mn = (size_t)(e - msg);
	if (mn >= 13 && !memcmp(msg, "Linux version", 13)) {
		/* the first line of a boot: the driver starts a new boot at it */
		struct rec *r = ctx_rec(ctx, REC_EVENT);
		r->ev = EV_BOOT;
		r->t_ns = t_ns;
		r->time_kind = (uint8_t)tk;
		r->col = ctx_col(line, msg);
		r->kev.klass = KC_SYSTEM;
		r->kev.severity = KS_INFO;
		r->name = ctx_str(ctx, slice_trim((struct slice){ msg, mn }));
		st->fold.rec = 0;
		return;
	}
	if (!kmsg_maybe(msg, mn))
		return;
	if (shape == KD_RELATIVE) {
		/* dmesg -H/-d deltas: the event is real, its time is not known */
		if (kd_is_event(msg, mn))
			ctx_bad(ctx, ctx_col(line, msg),
				"kernel event with a relative time stamp (dmesg -H/-d): not placeable");
		return;
	}
	kmsg_emit_fold(ctx, &st->fold, (struct slice){ msg, mn }, (struct slice){ "", 0 }, t_ns, tk, 0,
		       ctx_col(line, msg));
}

/* "host kernel: " or "host ident[pid]: " right after the time: journalctl
 * -o short-monotonic, not dmesg (whose second word may end in ':' too,
 * "usb 3-2: ...", but is not "kernel:" and has no "[pid]"). */
static bool kd_journal_like(const char *msg, const char *le)
{
	const char *sp = memchr(msg, ' ', (size_t)(le - msg)), *t, *te;

	if (!sp)
		return false;
	t = sp + 1;
	te = memchr(t, ' ', (size_t)(le - t));
	if (!te)
		te = le;
	if (te - t == 7 && !memcmp(t, "kernel:", 7))
		return true;
	if (te - t < 5 || te[-1] != ':' || te[-2] != ']')
		return false;
	const char *q = te - 3;
	while (q > t && kd_digit(*q))
		q--;
	return q > t && *q == '[' && q < te - 3;
}

/* How many of the first lines look like dmesg, and how many like a
 * journalctl short-monotonic line ("[  12.3] host kernel: ..."). */
static int kd_sniff(const char *head, size_t n, const char *name)
{
	const char *p = head, *end = head + n;
	int good = 0, total = 0, journal = 0;
	bool after_good = false;

	while (p < end && total < 200) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *msg;
		int64_t t;
		if (!nl && total)
			break;	/* a cut last line proves nothing */
		if (le > p && le[-1] == '\r')
			le--;
		if (le > p && kd_binary(p, (size_t)(le - p))) {
			/* junk says nothing either way: counted as bad when read */
		} else if (le > p && after_good && (*p == ' ' || *p == '\t')) {
			/* a further line of the record above, indented under its
			 * message: part of that record, not a line of another kind
			 * (a log of few records, or half of one, is still dmesg) */
		} else if (le > p) {
			enum kd_shape sh = kd_envelope(p, (size_t)(le - p), &t, &msg);
			total++;
			after_good = sh != KD_NONE && sh != KD_RELATIVE;
			if (after_good) {
				good++;
				if (kd_journal_like(msg, le))
					journal++;
			}
		}
		p = nl ? nl + 1 : end;
	}
	if (!good || journal * 2 > good)
		return 0;
	if (good * 10 >= total * 9)
		return strstr(name, "dmesg") || strstr(name, "kmsg") ? 92 : 88;
	return good * 2 >= total ? 55 : 0;
}

static void kd_init(void *state, const struct ingest_opts *o)
{
	(void)o;
	memset(state, 0, sizeof(struct kd_state));
}

const struct format format_kernel_dmesg = {
	.id = "kernel-dmesg",
	.summary = "raw dmesg and /dev/kmsg records (seconds since boot), dmesg -T, dmesg --time-format=iso, dmesg -x",
	.detects = "lines starting [ seconds.micro], <N>[...], level,seq,usec,flags;, [Www Mmm dd HH:MM:SS YYYY] or an ISO time with a comma",
	.state_size = sizeof(struct kd_state),
	.sniff = kd_sniff,
	.init = kd_init,
	.line = kd_line,
	.boot_clock = true,
};
