/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the kernel-log envelopes (fmt_syslog.c, fmt_journal_text.c,
 * fmt_journal_json.c, klenv.c): what `gputally dump` does not show - anchors,
 * boot numbers, time kinds, counts - by calling a format's line() on a
 * hand-made context, and the driver on a 1 MB line.
 *
 * Times: TZ=UTC.  1795992369 s is 2026-11-29T22:46:09Z
 * (python3: datetime(2026,11,29,22,46,9,tzinfo=timezone.utc).timestamp()).
 */
#include "test.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include "fmt_run.h"
#include "formats/driver.h"
#include "formats/klenv.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

#define T_224609 INT64_C(1795992369)

/* The i-th record of kind k, or NULL. */
static const struct rec *nth(const struct run *r, int kind, size_t i)
{
	for (size_t k = 0; k < r->b.nr; k++)
		if (r->b.recs[k].kind == kind && i-- == 0)
			return &r->b.recs[k];
	return NULL;
}

static size_t count(const struct run *r, int kind)
{
	size_t n = 0;
	for (size_t k = 0; k < r->b.nr; k++)
		n += r->b.recs[k].kind == kind;
	return n;
}

/* A kernel line with its printk stamp pairs the clocks: one anchor per boot
 * (the offset moves by less than 2 s within one), a new one when it jumps. */
static void test_syslog_anchors(void **unused)
{
	struct run r;
	const struct rec *a;

	(void)unused;
	run_init(&r, "syslog", (T_224609 + 3600) * NS_PER_S);
	feed(&r, "Nov 29 22:46:04 node kernel: [    4.378677] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  580.159.04  Wed Oct 11 10:20:43 UTC 2023");
	feed(&r, "Nov 29 22:46:09 node kernel: [    9.031082] NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.");
	feed(&r, "Nov 29 22:46:10 node kernel: [   10.000001] usb 1-1: new high-speed USB device");
	/* a reboot: 22:50:00 at printk 2.5 s */
	feed(&r, "Nov 29 22:50:00 node kernel: [    2.500000] Linux version 6.18.44");
	feed(&r, "Nov 29 22:50:01 node sshd[1]: no stamp on a non-kernel line [    3.000000]");
	assert_int_equal(count(&r, REC_ANCHOR), 2);
	a = nth(&r, REC_ANCHOR, 0);
	/* 22:46:04 = 1795992364 s, with printk 4.378677 s */
	assert_int_equal(a->t_ns, (T_224609 - 5) * NS_PER_S);
	assert_int_equal(a->anc.mono_ns, INT64_C(4378677000));
	assert_int_equal(a->anc.quality, 1);
	assert_int_equal(a->anc.boot_id, STR_NONE);
	assert_int_equal(a->line, 1);
	a = nth(&r, REC_ANCHOR, 1);
	/* 22:50:00 = 1795992369 + 231 s, printk 2.5 s */
	assert_int_equal(a->t_ns, (T_224609 + 231) * NS_PER_S);
	assert_int_equal(a->anc.mono_ns, INT64_C(2500000000));
	assert_int_equal(a->line, 4);
	/* the events: the stamp is not part of the message; line 4 opens a boot */
	assert_int_equal(count(&r, REC_EVENT), 3);
	assert_int_equal(nth(&r, REC_EVENT, 2)->ev, EV_BOOT);
	assert_int_equal(nth(&r, REC_EVENT, 2)->line, 4);
	assert_string_equal(batch_str(&r.b, nth(&r, REC_EVENT, 1)->name),
			    "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.");
	assert_int_equal(nth(&r, REC_EVENT, 1)->time_kind, TK_ABS);
	assert_int_equal(nth(&r, REC_EVENT, 1)->t_ns, T_224609 * NS_PER_S);
	assert_int_equal(nth(&r, REC_EVENT, 1)->col, 45);
	assert_string_equal(r.b.time_basis,
			    "timestamps without a year: the year of the file modification time, a year back "
			    "for dates after it; local time (--tz)");
	run_release(&r);
}

/* The year from the file time: December lines in a file changed on
 * 2027-01-02 are 2026's; January lines 2027's. */
static void test_syslog_year_from_mtime(void **unused)
{
	struct run r;
	int64_t t_s;

	(void)unused;
	assert_int_equal(time_local_to_utc(2027, 1, 2, 8, 0, 0, &t_s), 0);
	run_init(&r, "syslog", t_s * NS_PER_S);
	feed(&r, "Dec 31 23:59:58 node kernel: NVRM: Xid (PCI:0000:01:00): 13, Graphics Exception");
	feed(&r, "Jan  1 00:00:01 node kernel: NVRM: Xid (PCI:0000:01:00): 13, Graphics Exception");
	feed(&r, "Feb 29 10:00:00 node kernel: NVRM: Xid (PCI:0000:01:00): 13, leap day");
	assert_int_equal(count(&r, REC_EVENT), 3);
	/* 2026-12-31 is day 20818 (python3: (date(2026,12,31) - date(1970,1,1)).days) */
	assert_int_equal(nth(&r, REC_EVENT, 0)->t_ns, (INT64_C(20818) * 86400 + 86398) * NS_PER_S);
	assert_int_equal(nth(&r, REC_EVENT, 1)->t_ns, (INT64_C(20819) * 86400 + 1) * NS_PER_S);
	/* Feb 29 after the reference: 2026, 2025 have none; 2024-02-29 is day 19782 */
	assert_int_equal(nth(&r, REC_EVENT, 2)->t_ns, (INT64_C(19782) * 86400 + 36000) * NS_PER_S);
	run_release(&r);
}

/*
 * The stamp memo (klenv.h) must give what parsing and converting the stamp
 * again gives, on every line: random stamps of every month (and the German
 * names), days zero- and space-padded and unpadded, impossible dates (Feb 30,
 * Apr 31, Feb 29 of 2025), hours past 23, a fraction or a year after some,
 * Dec 31 and Jan 1 around a reference on 2027-01-01, lines cut anywhere;
 * most lines repeat the one before with one byte changed or none, so that
 * the memo is asked about near misses.  The slow path is the reference.
 */
static void test_bsd_memo(void **unused)
{
	static const char *const mon[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug",
					   "Sep", "Oct", "Nov", "Dec", "M\xc3\xa4r", "Okt", "Dez", "Mai",
					   "Xyz" };
	static const char tail[] = " .5x:\t";
	struct run r;
	struct kl_year ys = { 0 }, yf = { 0 };
	struct kl_bsd_memo memo = { 0 };
	char line[64], prev[64];
	size_t prev_n = 0;
	uint64_t x = 2718281;
	unsigned hits = 0, slow_ok = 0, bad_dates = 0;
	int64_t t_s;

	(void)unused;
	assert_int_equal(time_local_to_utc(2027, 1, 1, 0, 30, 0, &t_s), 0);
	run_init(&r, "syslog", t_s * NS_PER_S);
	for (int i = 0; i < 200000; i++) {
		size_t n;
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		if (prev_n && x % 10 < 7) {
			/* the previous line again, perhaps with one byte changed */
			memcpy(line, prev, prev_n);
			n = prev_n;
			if (x % 10 < 3) {
				size_t k = (size_t)(x >> 16) % n;
				line[k] = (x >> 24) % 4 == 0 ? tail[(x >> 28) % 6] : (char)('0' + (x >> 28) % 10);
				if ((x >> 32) % 4 == 0 && k + 1 < n)
					line[k] = '.', line[k + 1] = (char)('0' + (x >> 36) % 10);	/* a fraction */
			}
		} else {
			unsigned m = (unsigned)(x >> 8) % 17, d = (unsigned)(x >> 16) % 33;
			unsigned h = (unsigned)(x >> 24) % 25, mi = (unsigned)(x >> 32) % 61, sec = (unsigned)(x >> 40) % 62;
			int style = (int)((x >> 48) % 3), extra = (int)((x >> 52) % 8);
			if (x % 5 == 0) {	/* around New Year's Eve */
				m = (x >> 9) % 2 ? 11 : 0;
				d = m ? 31 : 1;
			}
			n = (size_t)snprintf(line, sizeof(line), style == 0 ? "%s %2u " : style == 1 ? "%s %02u " : "%s %u ",
					     mon[m], d);
			if (extra == 0)
				n += (size_t)snprintf(line + n, sizeof(line) - n, "%u ", 2024 + (unsigned)(x >> 56) % 3);
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%02u:%02u:%02u", h, mi, sec);
			if (extra == 1)
				n += (size_t)snprintf(line + n, sizeof(line) - n, ".%u", (unsigned)(x >> 56) % 1000);
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%c host kernel: m",
					      (x >> 58) % 2 ? ' ' : tail[(x >> 59) % 6]);
		}
		memcpy(prev, line, n);
		prev_n = n;
		/* cut the line sometimes: the end may fall inside the stamp */
		if ((x >> 60) % 4 == 0)
			n = (size_t)(x >> 20) % (n + 1);
		{
			const char *p0 = line, *end = line + n, *ps = p0, *pf = p0;
			struct kl_bsd ts, tf;
			int64_t ns_s = 0, ns_f = 0;
			bool ok_s, tok_s = false, ok_f, tok_f = false;

			ok_s = kl_parse_bsd(&ps, end, &ts);
			if (ok_s) {
				tok_s = kl_bsd_time(&r.ctx, &ys, &ts, &ns_s);
				slow_ok++;
				bad_dates += !tok_s;
			}
			if (kl_bsd_memo_get(&memo, pf, end, &tf, &ns_f)) {
				ok_f = tok_f = true;
				pf += 15;
				hits++;
			} else {
				ok_f = kl_parse_bsd(&pf, end, &tf);
				if (ok_f && (tok_f = kl_bsd_time(&r.ctx, &yf, &tf, &ns_f)))
					kl_bsd_memo_put(&memo, p0, pf, end, &tf, ns_f);
			}
			if (ok_s != ok_f || tok_s != tok_f || (ok_s && (ps != pf || memcmp(&ts, &tf, sizeof(ts)))) ||
			    (tok_s && ns_s != ns_f))
				fail_msg("'%.*s': slow %d %d +%td %" PRId64 ", memo %d %d +%td %" PRId64, (int)n, line,
					 ok_s, tok_s, ps - p0, ns_s, ok_f, tok_f, pf - p0, ns_f);
		}
	}
	/* each kind of answer was tried */
	assert_true(hits > 10000 && slow_ok > 50000 && bad_dates > 1000);
	run_release(&r);
}

/* kl_split_tag() as written before its blanks were found by SSE2, with a
 * plain search for them: the definition. */
static const char *blank_ref(const char *p, const char *end)
{
	while (p < end && *p != ' ')
		p++;
	return p < end ? p : NULL;
}

static bool split_ref(const char *p, const char *end, struct slice *host, struct slice *tag,
		      const char **msg_at)
{
	const char *w1, *w1e, *w2, *w2e;

	*host = *tag = (struct slice){ p, 0 };
	while (p < end && *p == ' ')
		p++;
	if (p >= end)
		return false;
	w1 = p;
	if (!(p = blank_ref(p, end)))
		p = end;
	w1e = p;
	if (w1e[-1] == ':') {
		*tag = (struct slice){ w1, (size_t)(w1e - 1 - w1) };
		w2 = w1e;
	} else {
		*host = (struct slice){ w1, (size_t)(w1e - w1) };
		while (p < end && *p == ' ')
			p++;
		w2 = p;
		if (!(p = blank_ref(p, end)))
			p = end;
		w2e = p;
		if (w2e > w2 && w2e[-1] == ':') {
			*tag = (struct slice){ w2, (size_t)(w2e - 1 - w2) };
		} else {
			*msg_at = w2;
			return true;
		}
		w2 = w2e;
	}
	{
		const char *b = tag->n ? memchr(tag->p, '[', tag->n) : NULL;
		if (b && tag->p[tag->n - 1] == ']')
			tag->n = (size_t)(b - tag->p);
	}
	if (w2 < end && *w2 == ' ')
		w2++;
	*msg_at = w2;
	return true;
}

/* Random envelopes of blanks, words, ':', '[pid]' up to 70 bytes (the SSE2
 * blocks of 16 meet the end everywhere), against the definition. */
static void test_split_tag(void **unused)
{
	static const char *const part[] = { " ", "  ", "host", "node-0123456789abcdef", "kernel:", "sshd[12]:",
					    "[", "]", ":", "a[1]", "x:y", "tag[:", "msg" };
	uint64_t x = 31337;
	char buf[96];
	unsigned tagged = 0;

	(void)unused;
	for (int i = 0; i < 200000; i++) {
		size_t n = 0;
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		for (int k = 0; k < (int)(x % 9); k++) {
			const char *w = part[(x >> (4 * k + 8)) % 13];
			size_t wl = strlen(w);
			if (n + wl > 70)
				break;
			memcpy(buf + n, w, wl);
			n += wl;
		}
		{
			struct slice h1, t1, h2, t2;
			const char *m1 = NULL, *m2 = NULL;
			bool tg, r1 = split_ref(buf, buf + n, &h1, &t1, &m1), r2 = kl_split_tag(buf, buf + n, &h2, &t2, &m2, &tg);
			if (r1 != r2 || (r1 && (m1 != m2 || h1.p != h2.p || h1.n != h2.n || t1.p != t2.p || t1.n != t2.n)))
				fail_msg("'%.*s': got %d msg +%td, want %d msg +%td", (int)n, buf, r2, m2 - buf, r1,
					 m1 - buf);
			tagged += r2 && tg;
		}
	}
	assert_true(tagged > 10000);
}

/* kl_printk_stamp() as written before it read digits by eights: the
 * definition, a byte at a time (and no more seconds than KMSG_STAMP_MAX_S,
 * whose nanoseconds fit int64). */
static bool printk_ref(const char **pp, const char *end, int64_t *ns)
{
	const char *p = *pp;
	uint64_t sec = 0;
	int64_t frac = 0;
	int nd = 0;

	if (p >= end || *p++ != '[')
		return false;
	while (p < end && *p == ' ')
		p++;
	for (; p < end && *p >= '0' && *p <= '9'; p++, nd++) {
		if (nd > 12)
			return false;
		sec = sec * 10 + (uint64_t)(*p - '0');
	}
	if (!nd || sec > KMSG_STAMP_MAX_S || p >= end || *p++ != '.')
		return false;
	for (nd = 0; p < end && *p >= '0' && *p <= '9'; p++, nd++)
		if (nd < 9)
			frac = frac * 10 + (*p - '0');
	if (!nd || nd > 9 || p >= end || *p++ != ']')
		return false;
	for (int k = nd; k < 9; k++)
		frac *= 10;
	if (p < end && *p == ' ')
		p++;
	*ns = (int64_t)sec * NS_PER_S + frac;
	*pp = p;
	return true;
}

/* Random stamps: 0 to 16 digits of seconds, 0 to 12 of fraction, a byte
 * below '0' or above '9' after the digits, the line cut anywhere (so the
 * eight-byte reads meet the end at every offset). */
static void test_printk_stamp(void **unused)
{
	static const char other[] = " ]./:[x\x7f\x80\xff\x00" "0123456789";
	uint64_t x = 161803;
	char line[64];
	unsigned ok = 0, tried = 0;

	(void)unused;
	for (int i = 0; i < 300000; i++) {
		size_t n = 0;
		int ds, df;
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		ds = (int)(x % 17);
		df = (int)((x >> 8) % 13);
		line[n++] = (x >> 16) % 16 ? '[' : '(';
		for (int k = (int)((x >> 20) % 4); k > 0; k--)
			line[n++] = ' ';
		for (int k = 0; k < ds; k++)
			line[n++] = (char)('0' + (x >> (k * 3 % 60)) % 10);
		line[n++] = (x >> 24) % 16 ? '.' : other[(x >> 28) % (sizeof(other) - 1)];
		for (int k = 0; k < df; k++)
			line[n++] = (char)('0' + (x >> (k * 5 % 60)) % 10);
		line[n++] = (x >> 32) % 16 ? ']' : other[(x >> 36) % (sizeof(other) - 1)];
		for (int k = (int)((x >> 40) % 12); k > 0; k--)
			line[n++] = other[(x >> (k * 4)) % (sizeof(other) - 1)];
		if ((x >> 44) % 3 == 0)
			n = (size_t)(x >> 46) % (n + 1);
		{
			const char *pr = line, *pg = line;
			int64_t want = -1, got = -1;
			bool w = printk_ref(&pr, line + n, &want), g = kl_printk_stamp(&pg, line + n, &got);
			if (w != g || (w && (pr != pg || want != got)))
				fail_msg("'%.*s': got %d +%td %" PRId64 ", want %d +%td %" PRId64, (int)n, line, g,
					 pg - line, got, w, pr - line, want);
			ok += w;
			tried++;
		}
	}
	assert_true(ok > 30000 && tried - ok > 30000);
	/* the edge: the last second whose nanoseconds fit int64, and the next */
	{
		const char *edge = "[9223372035.999999999] x", *past = "[9223372036.000000] x";
		const char *p = edge;
		int64_t ns = 0;
		assert_true(kl_printk_stamp(&p, edge + strlen(edge), &ns));
		assert_true(ns == INT64_C(9223372035999999999));
		p = past;
		assert_false(kl_printk_stamp(&p, past + strlen(past), &ns));
	}
}

/* Through the syslog format: lines in the same second share the memo, a
 * fraction, a bad date and a cut line after such a line are still read
 * (and reported) as they are.  2026-12-31 is day 20818. */
static void test_syslog_memo_lines(void **unused)
{
	struct run r;
	int64_t t_s, day = INT64_C(20818) * 86400;

	(void)unused;
	assert_int_equal(time_local_to_utc(2027, 1, 2, 8, 0, 0, &t_s), 0);
	run_init(&r, "syslog", t_s * NS_PER_S);
	feed(&r, "Dec 31 23:59:58 node kernel: NVRM: Xid (PCI:0000:01:00): 13, a");
	feed(&r, "Dec 31 23:59:58 node kernel: NVRM: Xid (PCI:0000:01:00): 31, b");
	feed(&r, "Dec 31 23:59:58.5 node kernel: NVRM: Xid (PCI:0000:01:00): 43, c");
	feed(&r, "Dec 31 23:59:58");
	feed(&r, "Dec 31 23:59:58 ");
	feed(&r, "Jan  1 00:00:01 node kernel: NVRM: Xid (PCI:0000:01:00): 13, d");
	feed(&r, "Feb 30 00:00:01 node kernel: NVRM: Xid (PCI:0000:01:00): 13, e");
	feed(&r, "Feb 30 00:00:01 node kernel: NVRM: Xid (PCI:0000:01:00): 13, f");
	feed(&r, "Jan  1 00:00:01 node kernel: NVRM: Xid (PCI:0000:01:00): 31, g");
	assert_int_equal(count(&r, REC_EVENT), 5);
	assert_int_equal(count(&r, REC_BAD), 4);
	assert_int_equal(nth(&r, REC_EVENT, 0)->t_ns, (day + 86398) * NS_PER_S);
	assert_int_equal(nth(&r, REC_EVENT, 1)->t_ns, (day + 86398) * NS_PER_S);
	assert_int_equal(nth(&r, REC_EVENT, 2)->t_ns, (day + 86398) * NS_PER_S + NS_PER_S / 2);
	assert_int_equal(nth(&r, REC_EVENT, 3)->t_ns, (day + 86401) * NS_PER_S);
	assert_int_equal(nth(&r, REC_EVENT, 4)->t_ns, (day + 86401) * NS_PER_S);
	assert_string_equal(batch_str(&r.b, nth(&r, REC_BAD, 0)->name), "syslog line cut after its time stamp");
	assert_int_equal(nth(&r, REC_BAD, 0)->col, 16);
	assert_string_equal(batch_str(&r.b, nth(&r, REC_BAD, 1)->name), "syslog line cut after its time stamp");
	assert_int_equal(nth(&r, REC_BAD, 1)->col, 16);
	assert_string_equal(batch_str(&r.b, nth(&r, REC_BAD, 2)->name), "no such date: 02-30");
	assert_string_equal(batch_str(&r.b, nth(&r, REC_BAD, 3)->name), "no such date: 02-30");
	run_release(&r);

	/* a year written on the line (the envelope memo keeps it): the basis says so */
	run_init(&r, "syslog", t_s * NS_PER_S);
	feed(&r, "Dec 31 2025 23:59:58 node kernel: [    1.000000] x");
	feed(&r, "Dec 31 2025 23:59:58 node kernel: [    1.500000] y");
	assert_string_equal(r.b.time_basis, "timestamps in the file, local time (--tz)");
	run_release(&r);
}

/*
 * The envelope memo of fmt_syslog.c (a line that begins with the bytes
 * before the last line's message has its envelope): every line of a random
 * sequence must give, in one run, the records (but anchors) that it gives
 * alone in a fresh run, where nothing is remembered.  Prefixes: a few
 * stamps (one with a fraction, one with a year, a bad date), hosts, tags
 * with and without "[pid]", no tag, doubled blanks, a "<PRI>", one byte
 * changed anywhere, lines cut anywhere.  Each message is an Xid on its own
 * PCI bus, so no two fold into one.
 */
static void test_syslog_prefix_memo(void **unused)
{
	static const char *const stamp[] = { "Nov  1 00:00:00", "Nov  1 00:00:01", "Nov 01 00:00:01",
					     "Nov  1 00:00:01.25", "Nov  1 2025 00:00:01", "Feb 30 00:00:01",
					     "<6>Nov  1 00:00:01", "Dec 31 23:59:59", "Jan  1 00:00:00" };
	static const char *const host[] = { "h", "node-7", "h  ", "" };
	static const char *const tag[] = { "kernel:", "kernel[3]:", "sshd[12]:", "kernel", ":", "k: ", "" };
	struct run all, one;
	uint64_t x = 4242;
	char prev[160];
	size_t prev_n = 0, same = 0, compared = 0;
	int64_t t_s;
	char (*lines)[160] = xcalloc(6000, 160);
	size_t *len = xcalloc(6000, sizeof(size_t));

	(void)unused;
	assert_int_equal(time_local_to_utc(2026, 12, 31, 23, 59, 59, &t_s), 0);
	run_init(&all, "syslog", t_s * NS_PER_S);
	for (int i = 0; i < 6000; i++) {
		char *line = lines[i];
		size_t n;
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		if (prev_n && x % 3) {
			/* the last line's prefix with a new message */
			const char *m = memmem(prev, prev_n, "NVRM", 4);
			size_t k = m ? (size_t)(m - prev) : prev_n;
			if (x % 3 == 2 && k) {
				/* or a part of it, then a tag or none */
				k = (size_t)(x >> 48) % (k + 1);
				memcpy(line, prev, k);
				n = k + (size_t)snprintf(line + k, 160 - k, "%s NVRM: Xid (PCI:0000:%02x:00): 13, x",
							 tag[(x >> 52) % 7], (unsigned)i % 256);
			} else {
				memcpy(line, prev, k);
				n = k + (size_t)snprintf(line + k, 160 - k, "NVRM: Xid (PCI:0000:%02x:00): 13, x",
							 (unsigned)i % 256);
			}
			same++;
		} else {
			n = (size_t)snprintf(line, 160, "%s %s %s NVRM: Xid (PCI:0000:%02x:00): 13, x",
					     stamp[(x >> 8) % 9], host[(x >> 12) % 4], tag[(x >> 16) % 7],
					     (unsigned)i % 256);
		}
		memcpy(prev, line, n);
		prev_n = n;
		if ((x >> 20) % 8 == 0) {
			/* in the envelope: a changed PCI bus could fold two events */
			const char *m = memmem(line, n, "NVRM", 4);
			size_t k = m ? (size_t)(m - line) : n;
			if (k)
				line[(x >> 24) % k] = (x >> 32) % 2 ? ' ' : (char)('0' + (x >> 36) % 10);
		}
		if ((x >> 40) % 8 == 0)
			n = (size_t)(x >> 44) % (n + 1);
		line[n] = '\0';
		len[i] = n;
		all.ctx.line++;
		all.f->line(&all.ctx, line, n);
	}
	for (int i = 0; i < 6000; i++) {
		size_t a = 0, k = 0;
		run_init(&one, "syslog", t_s * NS_PER_S);
		one.ctx.line = (uint64_t)i + 1;
		one.f->line(&one.ctx, lines[i], len[i]);
		for (size_t j = 0; j < one.b.nr; j++) {
			const struct rec *w = &one.b.recs[j], *g = NULL;
			if (w->kind == REC_ANCHOR)
				continue;
			while (a < all.b.nr && (all.b.recs[a].kind == REC_ANCHOR || all.b.recs[a].line < w->line))
				a++;
			g = a < all.b.nr ? &all.b.recs[a++] : NULL;
			if (!g || g->line != w->line || g->kind != w->kind || g->t_ns != w->t_ns || g->col != w->col ||
			    strcmp(batch_str(&all.b, g->name), batch_str(&one.b, w->name))) {
				fail_msg("line %d '%s': in the run %s (line %" PRIu64 " col %u), alone %s (col %u) at %" PRId64,
					 i + 1, lines[i], g ? batch_str(&all.b, g->name) : "nothing", g ? g->line : 0,
					 g ? g->col : 0, batch_str(&one.b, w->name), w->col, w->t_ns);
			}
			k++;
		}
		/* nothing else in the run for this line */
		while (a < all.b.nr && all.b.recs[a].line == (uint64_t)i + 1)
			if (all.b.recs[a++].kind != REC_ANCHOR)
				fail_msg("line %d '%s': a record in the run, none alone", i + 1, lines[i]);
		compared += k;
		run_release(&one);
	}
	assert_true(same > 3000 && compared > 4000);
	assert_true(count(&all, REC_BAD) > 500 && count(&all, REC_EVENT) > 1500);
	run_release(&all);
	free(lines);
	free(len);
}

/* Repeats fold into the previous event's count (kev.count), or carry it. */
static void test_syslog_repeat_counts(void **unused)
{
	struct run r;

	(void)unused;
	run_init(&r, "syslog", (T_224609 + 3600) * NS_PER_S);
	feed(&r, "Nov 29 22:46:09 node kernel: NVRM: Xid (PCI:0000:01:00): 13, Graphics Exception: ESR 0x404000=0x80000002");
	feed(&r, "Nov 29 22:46:39 node kernel: message repeated 4 times: [ NVRM: Xid (PCI:0000:01:00): 13, Graphics Exception: ESR 0x404000=0x80000002]");
	feed(&r, "Nov 29 22:46:40 node kernel: message repeated 2 times: [ NVRM: Xid (PCI:0000:01:00): 31, other]");
	feed(&r, "Nov 29 22:46:41 node last message repeated 3 times");
	feed(&r, "Nov 29 22:46:42 node kernel: an ordinary line");
	feed(&r, "Nov 29 22:46:43 node last message repeated 7 times");
	assert_int_equal(count(&r, REC_EVENT), 2);
	assert_int_equal(nth(&r, REC_EVENT, 0)->kev.count, 5);		/* 1 + 4 */
	assert_int_equal(nth(&r, REC_EVENT, 1)->kev.count, 5);		/* 2 + 3; the 7 follows no event */
	assert_int_equal(nth(&r, REC_EVENT, 1)->kev.code, 31);
	assert_int_equal(nth(&r, REC_EVENT, 1)->line, 3);
	run_release(&r);
}

/* Boot markers: EV_BOOT at printk 0 of the new boot, its id as text and in
 * an id-only anchor after it; boot numbers are left 0 (the driver counts
 * them at each EV_BOOT, anchor.h). */
static void test_journal_text_boots(void **unused)
{
	struct run r;
	const struct rec *e;

	(void)unused;
	run_init(&r, "journal-text", (T_224609 + 3600) * NS_PER_S);
	feed(&r, "-- Boot 0b1c9e2f4a5d4c3b8a7f6e5d4c3b2a19 --");
	feed(&r, "[   52.031082] gpu-node-07 kernel: NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.");
	feed(&r, "-- Boot 9a8b7c6d5e4f40312233445566778899 --");
	feed(&r, "[31543.449443] gpu-node-07 kernel: NVRM: Xid (PCI:0000:3b:00): 48, DBE");
	feed(&r, "-- Reboot --");
	feed(&r, "-- No entries --");
	feed(&r, "Nov 29 22:46:09 gpu-node-07 kernel: [133B blob data]");
	assert_int_equal(count(&r, REC_EVENT), 5);
	e = nth(&r, REC_EVENT, 0);
	assert_int_equal(e->ev, EV_BOOT);
	assert_int_equal(e->time_kind, TK_BOOT);
	assert_int_equal(e->t_ns, 0);
	assert_int_equal(e->kev.boot, 0);
	assert_string_equal(batch_str(&r.b, e->kev.text), "0b1c9e2f4a5d4c3b8a7f6e5d4c3b2a19");
	e = nth(&r, REC_EVENT, 1);
	assert_int_equal(e->ev, EV_XID);
	assert_int_equal(e->time_kind, TK_BOOT);
	assert_int_equal(e->t_ns, INT64_C(52031082000));
	assert_int_equal(e->kev.boot, 0);
	e = nth(&r, REC_EVENT, 2);
	assert_int_equal(e->ev, EV_BOOT);
	assert_string_equal(batch_str(&r.b, e->kev.text), "9a8b7c6d5e4f40312233445566778899");
	e = nth(&r, REC_EVENT, 3);
	assert_int_equal(e->t_ns, INT64_C(31543449443000));
	e = nth(&r, REC_EVENT, 4);
	assert_int_equal(e->ev, EV_BOOT);
	assert_int_equal(e->kev.text, STR_NONE);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(nth(&r, REC_EVENT, i)->kev.boot, 0);
	/* one id-only anchor per named boot, right after its EV_BOOT; none for "-- Reboot --" */
	assert_int_equal(count(&r, REC_ANCHOR), 2);
	e = nth(&r, REC_ANCHOR, 1);
	assert_int_equal(e->t_ns, INT64_MIN);
	assert_int_equal(e->anc.mono_ns, INT64_MIN);
	assert_int_equal(e->anc.boot, 0);
	assert_int_equal(e->line, 3);
	assert_string_equal(batch_str(&r.b, e->anc.boot_id), "9a8b7c6d5e4f40312233445566778899");
	assert_true(&r.b.recs[3] == nth(&r, REC_EVENT, 2) && &r.b.recs[4] == e);
	/* the blob line is counted as bad, at the message's column */
	assert_int_equal(count(&r, REC_BAD), 1);
	assert_int_equal(nth(&r, REC_BAD, 0)->line, 7);
	assert_int_equal(nth(&r, REC_BAD, 0)->col, 37);
	run_release(&r);
}

/* A kernel "Linux version" line in syslog is a boot (TK_ABS, at its time). */
static void test_syslog_boot_banner(void **unused)
{
	struct run r;
	const struct rec *e;

	(void)unused;
	run_init(&r, "syslog", (T_224609 + 3600) * NS_PER_S);
	feed(&r, "Nov 29 22:46:09 node kernel: [    0.000000] Linux version 6.18.44-fc-v657-gpu (builder@sandboxing)");
	feed(&r, "Nov 29 22:46:10 node sshd[1]: Linux version is not a kernel line here");
	assert_int_equal(count(&r, REC_EVENT), 1);
	e = nth(&r, REC_EVENT, 0);
	assert_int_equal(e->ev, EV_BOOT);
	assert_int_equal(e->time_kind, TK_ABS);
	assert_int_equal(e->t_ns, T_224609 * NS_PER_S);
	assert_int_equal(e->col, 45);
	run_release(&r);
}

/* The records of a run as text: kind, time, line, name, anchor. */
static char *summary(const struct run *r, bool lines)
{
	size_t cap = 1 << 16, len = 0;
	char *out = xcalloc(1, cap);

	for (size_t k = 0; k < r->b.nr; k++) {
		const struct rec *x = &r->b.recs[k];
		len += (size_t)snprintf(out + len, cap - len, "%d %lld %llu %s", x->kind, (long long)x->t_ns,
					lines ? (unsigned long long)x->line : 0ULL,
					x->name != STR_NONE ? batch_str(&r->b, x->name) : "-");
		if (x->kind == REC_ANCHOR)
			len += (size_t)snprintf(out + len, cap - len, " %lld %s", (long long)x->anc.mono_ns,
						batch_str(&r->b, x->anc.boot_id));
		len += (size_t)snprintf(out + len, cap - len, "\n");
		assert_true(len < cap);
	}
	return out;
}

/*
 * json-pretty: the same entries as journal-json gives from one line each,
 * whatever the pieces the stream is cut into (1 byte to the whole), with
 * each event's line that of its MESSAGE field; an entry left open at the
 * end is reported at its "{" line.
 */
static void test_journal_json_pretty(void **unused)
{
	static const char *const one[] = {
		"{\"__REALTIME_TIMESTAMP\":\"1795992369123456\",\"__MONOTONIC_TIMESTAMP\":\"9523456\","
		"\"_BOOT_ID\":\"0b1c9e2f4a5d4c3b8a7f6e5d4c3b2a19\",\"_TRANSPORT\":\"kernel\","
		"\"MESSAGE\":\"NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\"}",
		"{\"__REALTIME_TIMESTAMP\":\"1795992400000000\",\"_BOOT_ID\":\"9a8b7c6d5e4f40312233445566778899\","
		"\"_TRANSPORT\":\"kernel\",\"_SOURCE_MONOTONIC_TIMESTAMP\":\"2000000\","
		"\"MESSAGE\":[78,86,82,77,58,32,88,105,100,32,40,80,67,73,58,48,48,48,48,58,51,98,58,48,48,41,58,32,52,56,44,32,255]}",
	};
	static const char pretty[] =
		"{\n"
		"\t\"__REALTIME_TIMESTAMP\" : \"1795992369123456\",\n"
		"\t\"__MONOTONIC_TIMESTAMP\" : \"9523456\",\n"
		"\t\"_BOOT_ID\" : \"0b1c9e2f4a5d4c3b8a7f6e5d4c3b2a19\",\n"
		"\t\"_TRANSPORT\" : \"kernel\",\n"
		"\t\"MESSAGE\" : \"NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\"\n"
		"}\n"
		"{\n"
		"\t\"__REALTIME_TIMESTAMP\" : \"1795992400000000\",\n"
		"\t\"_BOOT_ID\" : \"9a8b7c6d5e4f40312233445566778899\",\n"
		"\t\"_TRANSPORT\" : \"kernel\",\n"
		"\t\"_SOURCE_MONOTONIC_TIMESTAMP\" : \"2000000\",\n"
		"\t\"MESSAGE\" : [ 78, 86, 82, 77, 58, 32, 88, 105, 100, 32, 40, 80, 67, 73, 58, 48, 48, 48, 48, 58, 51, 98,"
		" 58, 48, 48, 41, 58, 32, 52, 56, 44, 32, 255 ]\n"
		"}\n"
		"{\n"
		"\t\"__REALTIME_TIMESTAMP\" : \"1795992500000000\",\n";
	size_t n = sizeof(pretty) - 1;
	struct run r;
	char *want, *whole = NULL;

	(void)unused;
	run_init(&r, "journal-json", 0);
	for (size_t i = 0; i < 2; i++)
		feed(&r, one[i]);
	want = summary(&r, false);
	run_release(&r);
	assert_int_equal(strstr(want, "NVRM: Xid") != NULL, 1);

	for (size_t k = 1; k <= n; k += k < 40 ? 1 : 37) {
		char *got, *got_lines;
		const struct rec *bad;
		run_init(&r, "journal-json-pretty", 0);
		for (size_t at = 0; at < n; at += k)
			r.f->stream(&r.ctx, pretty + at, at + k < n ? k : n - at, false);
		r.f->stream(&r.ctx, pretty + n, 0, true);
		assert_int_equal(r.ctx.line, 16);
		bad = nth(&r, REC_BAD, 0);
		assert_non_null(bad);
		assert_int_equal(bad->line, 15);
		assert_null(nth(&r, REC_BAD, 1));
		/* the bad record is the pretty run's own: compare the others */
		r.b.nr--;
		assert_int_equal(r.b.recs[r.b.nr].kind, REC_BAD);
		got = summary(&r, false);
		assert_string_equal(got, want);
		got_lines = summary(&r, true);
		if (!whole)
			whole = got_lines;
		else {
			assert_string_equal(got_lines, whole);
			free(got_lines);
		}
		free(got);
		assert_int_equal(nth(&r, REC_EVENT, 0)->line, 6);
		assert_int_equal(nth(&r, REC_EVENT, 1)->line, 13);
		r.f->fini(r.ctx.state);
		run_release(&r);
	}
	free(whole);
	free(want);
}

/* JSON: the realtime/monotonic pair with the boot id is a quality-0 anchor;
 * a kernel entry without __MONOTONIC_TIMESTAMP pairs the printk time. */
static void test_journal_json_anchors(void **unused)
{
	struct run r;
	const struct rec *a;

	(void)unused;
	run_init(&r, "journal-json", 0);
	feed(&r, "{\"__REALTIME_TIMESTAMP\":\"1795992369123456\",\"__MONOTONIC_TIMESTAMP\":\"9523456\","
		 "\"_BOOT_ID\":\"0b1c9e2f4a5d4c3b8a7f6e5d4c3b2a19\",\"_TRANSPORT\":\"kernel\","
		 "\"_SOURCE_MONOTONIC_TIMESTAMP\":\"9520011\",\"MESSAGE\":\"NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\"}");
	/* 5 ms later, same offset within 10 ms: no new anchor */
	feed(&r, "{\"__REALTIME_TIMESTAMP\":\"1795992369128456\",\"__MONOTONIC_TIMESTAMP\":\"9528457\","
		 "\"_BOOT_ID\":\"0b1c9e2f4a5d4c3b8a7f6e5d4c3b2a19\",\"_TRANSPORT\":\"journal\",\"MESSAGE\":\"x\"}");
	/* another boot; only the kernel's printk time */
	feed(&r, "{\"__REALTIME_TIMESTAMP\":\"1795992400000000\",\"_BOOT_ID\":\"9a8b7c6d5e4f40312233445566778899\","
		 "\"_TRANSPORT\":\"kernel\",\"_SOURCE_MONOTONIC_TIMESTAMP\":\"2000000\",\"MESSAGE\":[78,86,82,77,58,32,88,105,100,32,40,80,67,73,58,48,48,48,48,58,51,98,58,48,48,41,58,32,52,56,44,32,255]}");
	assert_int_equal(count(&r, REC_ANCHOR), 2);
	a = nth(&r, REC_ANCHOR, 0);
	assert_int_equal(a->t_ns, INT64_C(1795992369123456000));
	assert_int_equal(a->anc.mono_ns, INT64_C(9523456000));
	assert_int_equal(a->anc.quality, 0);
	assert_string_equal(batch_str(&r.b, a->anc.boot_id), "0b1c9e2f4a5d4c3b8a7f6e5d4c3b2a19");
	a = nth(&r, REC_ANCHOR, 1);
	assert_int_equal(a->t_ns, INT64_C(1795992400000000000));
	assert_int_equal(a->anc.mono_ns, INT64_C(2000000000));
	assert_string_equal(batch_str(&r.b, a->anc.boot_id), "9a8b7c6d5e4f40312233445566778899");
	assert_int_equal(count(&r, REC_EVENT), 2);
	/* the byte array "NVRM: Xid (PCI:0000:3b:00): 48, " + 0xff */
	assert_int_equal(nth(&r, REC_EVENT, 1)->kev.code, 48);
	assert_string_equal(batch_str(&r.b, nth(&r, REC_EVENT, 1)->name),
			    "NVRM: Xid (PCI:0000:3b:00): 48, \xef\xbf\xbd");
	run_release(&r);
}

/* Sniffing: a syslog with no NVIDIA line is a syslog; raw dmesg is not
 * journalctl's short-monotonic; json-seq is journal JSON. */
static void test_sniff(void **unused)
{
	static const char sys[] =
		"Nov 29 22:40:01 node CRON[2211]: (root) CMD (debian-sa1 1 1)\n"
		"Nov 29 22:40:02 node sshd[77]: Accepted publickey for root\n"
		"Nov 29 22:40:03 node systemd[1]: Started Session 3 of user root.\n";
	static const char dmesg[] =
		"[    1.000000] usb 1-1: new high-speed USB device number 2 using xhci_hcd\n"
		"[    1.100000] pci 0000:00:01.0: [8086:1237] type 00 class 0x060000\n"
		"[    1.200000] nvidia 0000:3b:00.0: enabling device (0000 -> 0002)\n";
	static const char mono[] =
		"[    1.000000] node kernel: usb 1-1: new high-speed USB device\n"
		"[    1.100000] node systemd[1]: Started Journal Service.\n";
	static const char seq[] = "\x1e{\"__CURSOR\":\"s=1\",\"__REALTIME_TIMESTAMP\":\"1\",\"MESSAGE\":\"x\"}\n";
	int score;
	const struct format *f;

	(void)unused;
	f = format_sniff(sys, sizeof(sys) - 1, "syslog", &score);
	assert_non_null(f);
	assert_string_equal(f->id, "syslog");
	f = format_sniff(dmesg, sizeof(dmesg) - 1, "dmesg.txt", &score);
	assert_true(!f || strcmp(f->id, "journal-text"));
	f = format_sniff(mono, sizeof(mono) - 1, "j.txt", &score);
	assert_non_null(f);
	assert_string_equal(f->id, "journal-text");
	f = format_sniff(seq, sizeof(seq) - 1, "j.json", &score);
	assert_non_null(f);
	assert_string_equal(f->id, "journal-json");
	{
		static const char pretty[] = "{\n\t\"__CURSOR\" : \"s=1\",\n\t\"__REALTIME_TIMESTAMP\" : \"1\",\n";
		static const char oneline[] = "{\"__CURSOR\":\"s=1\",\"__REALTIME_TIMESTAMP\":\"1\"}\n";
		f = format_sniff(pretty, sizeof(pretty) - 1, "j.json", &score);
		assert_non_null(f);
		assert_string_equal(f->id, "journal-json-pretty");
		f = format_sniff(oneline, sizeof(oneline) - 1, "j.json", &score);
		assert_non_null(f);
		assert_string_equal(f->id, "journal-json");
	}
}

struct one {
	size_t events, bad;
	int64_t t_ns;
	size_t name_len;
};

static int one_rec(void *ud, const struct input_stat *in, const struct rec *r, const struct batch *b)
{
	struct one *o = ud;

	(void)in;
	if (r->kind == REC_BAD) {
		o->bad++;
	} else if (r->kind == REC_EVENT) {
		o->events++;
		o->t_ns = r->t_ns;
		o->name_len = strlen(batch_str(b, r->name));
	}
	return 0;
}

/* A 1 MB line through the driver: an Xid with 1 MB of text is one event
 * (its message kept to 4096 bytes), a 1 MB line of junk one bad line. */
static void test_syslog_megabyte_line(void **unused)
{
	char path[] = "/tmp/gputally-klogs-XXXXXX";
	const char *paths[1] = { path };
	const char *head = "Nov 29 22:46:09 node kernel: NVRM: Xid (PCI:0000:01:00): 13, ";
	size_t big = 1024 * 1024;
	struct ingest_opts o = { 0 };
	struct ingest_result res = { 0 };
	struct one got = { 0 };
	struct ingest_sink sink = { .ud = &got, .rec = one_rec };
	char *line = xmalloc(big);
	FILE *f;
	int fd;

	(void)unused;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	memset(line, 'x', big);
	fputs(head, f);
	fwrite(line, 1, big, f);
	fputc('\n', f);
	fputs("Nov 29 22:46:10 node sshd[1]: an ordinary line\n", f);
	fwrite(line, 1, big, f);
	fputc('\n', f);
	fclose(f);
	free(line);
	o.format = "syslog";
	o.date_days = INT64_MIN;
	o.interval_ns = NS_PER_S;
	o.threads = 2;
	assert_int_equal(ingest_run(paths, 1, &o, &sink, &res, NULL), 0);
	assert_int_equal(got.events, 1);
	assert_int_equal(got.bad, 1);
	assert_int_equal(got.name_len, 4096);
	assert_int_equal(res.inputs[0].lines, 3);
	ingest_result_release(&res);
	unlink(path);
}

/* journalctl -o json | gputally ...: standard input, read once.  The
 * pre-passes used to close fd 0 when they skipped it. */
static void test_stdin(void **unused)
{
	char path[] = "/tmp/gputally-klogs-in-XXXXXX";
	const char *paths[1] = { "-" };
	struct ingest_opts o = { 0 };
	struct ingest_result res = { 0 };
	struct one got = { 0 };
	struct ingest_sink sink = { .ud = &got, .rec = one_rec };
	int fd, saved;
	FILE *f;

	(void)unused;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs("{\"__REALTIME_TIMESTAMP\":\"1795992369123456\",\"_TRANSPORT\":\"kernel\","
	      "\"MESSAGE\":\"NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\"}\n", f);
	fclose(f);
	saved = dup(0);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0 && saved >= 0);
	dup2(fd, 0);
	close(fd);
	o.date_days = INT64_MIN;
	o.interval_ns = NS_PER_S;
	assert_int_equal(ingest_run(paths, 1, &o, &sink, &res, NULL), 0);
	dup2(saved, 0);
	close(saved);
	assert_int_equal(got.events, 1);
	assert_int_equal(got.t_ns, INT64_C(1795992369123456000));
	assert_non_null(res.inputs[0].format);
	assert_string_equal(res.inputs[0].format->id, "journal-json");
	ingest_result_release(&res);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syslog_anchors),
		cmocka_unit_test(test_syslog_year_from_mtime),
		cmocka_unit_test(test_syslog_repeat_counts),
		cmocka_unit_test(test_journal_text_boots),
		cmocka_unit_test(test_syslog_boot_banner),
		cmocka_unit_test(test_journal_json_anchors),
		cmocka_unit_test(test_journal_json_pretty),
		cmocka_unit_test(test_sniff),
		cmocka_unit_test(test_syslog_megabyte_line),
		cmocka_unit_test(test_stdin),
		cmocka_unit_test(test_bsd_memo),
		cmocka_unit_test(test_printk_stamp),
		cmocka_unit_test(test_split_tag),
		cmocka_unit_test(test_syslog_prefix_memo),
		cmocka_unit_test(test_syslog_memo_lines),
	};

	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
