/* SPDX-License-Identifier: MIT */
/* Shared pieces of the kernel and system log text envelopes (klenv.h). */
#include "formats/klenv.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "formats/kmsg.h"
#include "util/timeutil.h"

static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
				     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

/*
 * The month at p, and its length in *len: English, and the German names
 * journalctl prints in a de_DE locale ("Okt 06", "Mär", "Mai", "Dez";
 * formats.md 12.7).  By the first letter: this runs on every line.
 */
static int month_of(const char *p, const char *end, size_t *len)
{
	int m = 0;

	*len = 3;
	if (end - p < 3)
		return 0;
	switch (p[0]) {
	case 'J': m = p[1] == 'a' ? 1 : p[2] == 'n' ? 6 : 7; break;
	case 'F': m = 2; break;
	case 'M':
		if (end - p >= 4 && !memcmp(p, "M\xc3\xa4r", 4)) {
			*len = 4;
			return 3;
		}
		if (!memcmp(p, "Mai", 3))
			return 5;
		m = p[2] == 'r' ? 3 : 5;
		break;
	case 'A': m = p[1] == 'p' ? 4 : 8; break;
	case 'S': m = 9; break;
	case 'O':
		if (!memcmp(p, "Okt", 3))
			return 10;
		m = 10;
		break;
	case 'N': m = 11; break;
	case 'D':
		if (!memcmp(p, "Dez", 3))
			return 12;
		m = 12;
		break;
	default: return 0;
	}
	return !memcmp(p, months[m - 1], 3) ? m : 0;
}

static bool digit(char c)
{
	return (unsigned)(c - '0') <= 9;
}

/* "HH:MM:SS[.f...]" */
static bool parse_hms(const char **pp, const char *end, struct kl_bsd *t)
{
	const char *p = *pp;

	if (scan_fixed_digits(&p, end, 2, &t->h) || p >= end || *p++ != ':' ||
	    scan_fixed_digits(&p, end, 2, &t->mi) || p >= end || *p++ != ':' ||
	    scan_fixed_digits(&p, end, 2, &t->s))
		return false;
	if (t->h > 23 || t->mi > 59 || t->s > 60)
		return false;
	t->frac_ns = 0;
	if (p < end && *p == '.' && p + 1 < end && digit(p[1])) {
		int64_t scale = NS_PER_S / 10;
		for (p++; p < end && digit(*p); p++, scale /= 10)
			t->frac_ns += (*p - '0') * scale;
	}
	*pp = p;
	return true;
}

bool kl_parse_bsd(const char **pp, const char *end, struct kl_bsd *t)
{
	const char *p = *pp;

	size_t mlen;

	memset(t, 0, sizeof(*t));
	if (!(t->mon = month_of(p, end, &mlen)))
		return false;
	p += mlen;
	if (p >= end || *p++ != ' ')
		return false;
	if (p < end && *p == ' ')
		p++;	/* "Dec  3" */
	if (p >= end || !digit(*p))
		return false;
	t->day = *p++ - '0';
	if (p < end && digit(*p))
		t->day = t->day * 10 + (*p++ - '0');
	if (p >= end || *p++ != ' ' || t->day < 1 || t->day > 31)
		return false;
	if (end - p >= 5 && digit(p[0]) && digit(p[1]) && digit(p[2]) && digit(p[3]) && p[4] == ' ') {
		t->year = (p[0] - '0') * 1000 + (p[1] - '0') * 100 + (p[2] - '0') * 10 + (p[3] - '0');
		p += 5;
	}
	if (!parse_hms(&p, end, t))
		return false;
	*pp = p;
	return true;
}

#define KL_MEMO_LEN 15	/* "Mmm dd HH:MM:SS" */

bool kl_bsd_memo_get(const struct kl_bsd_memo *m, const char *p, const char *end, struct kl_bsd *t,
		     int64_t *t_ns)
{
	uint64_t a, b;

	if (!m->have || end - p < KL_MEMO_LEN + 1)
		return false;
	memcpy(&a, p, 8);
	memcpy(&b, p + 8, 8);
	if (((a ^ m->key[0]) | (b ^ m->key[1])) != 0)
		return false;
	*t = m->t;
	*t_ns = m->t_ns;
	return true;
}

void kl_bsd_memo_put(struct kl_bsd_memo *m, const char *p, const char *q, const char *end,
		     const struct kl_bsd *t, int64_t t_ns)
{
	/* the fraction test read p[15] (a blank stops it); nothing else past q */
	if (q - p != KL_MEMO_LEN || end - p < KL_MEMO_LEN + 1 || *q != ' ' || t->year || t->frac_ns)
		return;
	memcpy(&m->key[0], p, 8);
	memcpy(&m->key[1], p + 8, 8);
	m->t = *t;
	m->t_ns = t_ns;
	m->have = true;
}

static bool bsd_at(const struct kl_bsd *t, int y, int64_t *t_ns)
{
	int64_t t_s;

	/* time_local_to_utc() checks the date */
	if (time_local_to_utc(y, t->mon, t->day, t->h, t->mi, t->s, &t_s))
		return false;
	*t_ns = t_s * NS_PER_S + t->frac_ns;
	return true;
}

/* The moment no line should be later than (klenv.h). */
static int64_t reference_ns(const struct parse_ctx *ctx)
{
	if (ctx->opts && ctx->opts->date_days != INT64_MIN) {
		int y, m, d;
		int64_t t_s;
		civil_from_days(ctx->opts->date_days, &y, &m, &d);
		if (!time_local_to_utc(y, m, d, 23, 59, 59, &t_s))
			return t_s * NS_PER_S;
	}
	return ctx->mtime_ns;
}

bool kl_bsd_time(const struct parse_ctx *ctx, struct kl_year *c, const struct kl_bsd *t, int64_t *t_ns)
{
	int y;

	if (t->year)
		return bsd_at(t, t->year, t_ns);
	if (!c->have) {
		int64_t ref_s, local;
		int d;
		c->ref_ns = reference_ns(ctx);
		ref_s = c->ref_ns / NS_PER_S;
		local = ref_s + time_utc_offset_s(ref_s);
		civil_from_days((local >= 0 ? local : local - 86399) / 86400, &c->year, &c->mon, &d);
		c->have = true;
	}
	/*
	 * The latest year that keeps the line before the reference, with a day
	 * of slack for clocks and copies: the reference's own year, unless the
	 * line is later (last year), or a January line is within the slack of
	 * a reference on New Year's Eve (next year).  Feb 29 may need a few
	 * years back.  The reference's year is tried first: the conversion
	 * caches its hour, and nearly every line is in it.
	 */
	y = c->year + (t->mon == 1 && c->mon == 12);
	for (int k = y; k > y - 8; k--)
		if (bsd_at(t, k, t_ns) && *t_ns <= c->ref_ns + NS_PER_DAY)
			return true;
	return false;
}

const char *kl_bsd_basis(const struct parse_ctx *ctx, bool has_year)
{
	if (has_year)
		return "timestamps in the file, local time (--tz)";
	if (ctx->opts && ctx->opts->date_days != INT64_MIN)
		return "timestamps without a year: the year of --date, a year back for dates after it; "
		       "local time (--tz)";
	return "timestamps without a year: the year of the file modification time, a year back for "
	       "dates after it; local time (--tz)";
}

bool kl_parse_iso(const char **pp, const char *end, int64_t *t_ns, bool *zoned)
{
	const char *p = *pp, *q = p;

	while (q < end && *q != ' ')
		q++;
	if (q - p < 19 || memchr(p, ',', (size_t)(q - p)))
		return false;	/* a comma is dmesg's --time-format=iso, not a log file's */
	if (time_parse_iso(p, (size_t)(q - p), t_ns))
		return false;
	*zoned = q - p > 19 && (q[-1] == 'Z' || memchr(p + 19, '+', (size_t)(q - p - 19)) ||
				memchr(p + 19, '-', (size_t)(q - p - 19)));
	*pp = q;
	return true;
}

/* The first blank at or after p, or end: memchr() without its call, for
 * the short words of the envelope (SSE2 is part of x86-64). */
static inline const char *blank_at(const char *p, const char *end)
{
#ifdef __SSE2__
	const __m128i sp = _mm_set1_epi8(' ');

	for (; end - p >= 16; p += 16) {
		unsigned m = (unsigned)_mm_movemask_epi8(
			_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), sp));
		if (m)
			return p + __builtin_ctz(m);
	}
#endif
	while (p < end && *p != ' ')
		p++;
	return p;
}

bool kl_split_tag(const char *p, const char *end, struct slice *host, struct slice *tag,
		  const char **msg_at, bool *tagged)
{
	const char *w1, *w1e, *w2, *w2e;

	if (tagged)
		*tagged = false;
	*host = *tag = (struct slice){ p, 0 };
	while (p < end && *p == ' ')
		p++;
	if (p >= end)
		return false;
	w1 = p;
	p = blank_at(p, end);
	w1e = p;
	if (w1e[-1] == ':') {
		/* "tag: message" without a host */
		*tag = (struct slice){ w1, (size_t)(w1e - 1 - w1) };
		w2 = w1e;
	} else {
		*host = (struct slice){ w1, (size_t)(w1e - w1) };
		while (p < end && *p == ' ')
			p++;
		w2 = p;
		p = blank_at(p, end);
		w2e = p;
		if (w2e > w2 && w2e[-1] == ':') {
			*tag = (struct slice){ w2, (size_t)(w2e - 1 - w2) };
		} else {
			/* no tag: the message follows the host */
			*msg_at = w2;
			return true;
		}
		w2 = w2e;
	}
	/* "sshd[123]" -> "sshd" */
	if (tag->n && tag->p[tag->n - 1] == ']') {
		const char *b = memchr(tag->p, '[', tag->n);
		if (b)
			tag->n = (size_t)(b - tag->p);
	}
	/* w2 is the blank after the tag's ':' (blank_at found it) or end */
	if (w2 < end && *w2 == ' ') {
		w2++;
		if (tagged)
			*tagged = true;
	}
	*msg_at = w2;
	return true;
}

bool kl_blob(struct parse_ctx *ctx, struct slice msg, uint32_t col)
{
	struct slice m;

	if (msg.n < 13 || (msg.p[0] != '[' && msg.p[0] != ' '))
		return false;
	m = slice_trim(msg);
	if (!(m.n > 12 && m.p[0] == '[' && digit(m.p[1]) && !memcmp(m.p + m.n - 11, " blob data]", 11)))
		return false;
	ctx_bad(ctx, col,
		"journalctl printed the message as '%.*s' (not printable UTF-8): its text is lost; "
		"export with journalctl -a or -o json", (int)(m.n > 40 ? 40 : m.n), m.p);
	return true;
}

static const uint64_t pow10_9[10] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
				      100000000, 1000000000 };

/*
 * The decimal digits at p, at most 8 of them: how many, and their value in
 * *v.  Eight bytes at once where eight can be read (a little-endian load:
 * a byte is a digit when its value less '0' is at most 9; the digits are
 * shifted to the top of the word, under leading zeros, and summed in pairs,
 * fours and the eight), else one at a time; the same answer both ways.
 */
static inline __attribute__((always_inline)) int digits8(const char *p, const char *end, uint64_t *v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (end - p >= 8) {
		uint64_t x, d, bad;
		int nd;
		memcpy(&x, p, 8);
		/* a borrow from a byte below '0' reaches only the bytes above it,
		 * past the first non-digit */
		d = x - UINT64_C(0x3030303030303030);
		bad = (d | (d + UINT64_C(0x7676767676767676))) & UINT64_C(0x8080808080808080);
		nd = bad ? __builtin_ctzll(bad) >> 3 : 8;
		if (!nd) {
			*v = 0;
			return 0;
		}
		d <<= 8 * (8 - nd);
		d = (d * 10 + (d >> 8)) & UINT64_C(0x00FF00FF00FF00FF);
		d = (d * 100 + (d >> 16)) & UINT64_C(0x0000FFFF0000FFFF);
		*v = (d * 10000 + (d >> 32)) & UINT64_C(0xFFFFFFFF);
		return nd;
	}
#endif
	{
		uint64_t acc = 0;
		int nd = 0;
		for (; nd < 8 && p + nd < end && digit(p[nd]); nd++)
			acc = acc * 10 + (uint64_t)(p[nd] - '0');
		*v = acc;
		return nd;
	}
}

/* The run of digits at *pp, by eights: its length (counted past 8 only as
 * far as 16) and, when at most 13, its value in *v. */
static inline __attribute__((always_inline)) int digit_run(const char **pp, const char *end, uint64_t *v)
{
	uint64_t part;
	int nd = digits8(*pp, end, v), k;

	*pp += nd;
	if (nd < 8)
		return nd;
	k = digits8(*pp, end, &part);
	*v = *v * pow10_9[k] + part;
	*pp += k;
	return nd + k;
}

bool kl_printk_stamp(const char **pp, const char *end, int64_t *ns)
{
	const char *p = *pp;
	uint64_t sec, frac;
	int nd;

	if (p >= end || *p++ != '[')
		return false;
	while (p < end && *p == ' ')
		p++;
	/* at most 13 digits of seconds, 1 to 9 of the fraction */
	nd = digit_run(&p, end, &sec);
	if (!nd || nd > 13 || sec > KMSG_STAMP_MAX_S || p >= end || *p++ != '.')
		return false;
	nd = digit_run(&p, end, &frac);
	if (!nd || nd > 9 || p >= end || *p++ != ']')
		return false;
	frac *= pow10_9[9 - nd];
	if (p < end && *p == ' ')
		p++;
	*ns = (int64_t)(sec * (uint64_t)NS_PER_S + frac);	/* fits: KMSG_STAMP_MAX_S */
	*pp = p;
	return true;
}

void kl_anchor_check(struct parse_ctx *ctx, struct kl_anchors *a, int64_t wall_ns, int64_t mono_ns,
		     struct slice boot_id, uint8_t quality, int64_t tol_ns)
{
	int64_t off = wall_ns - mono_ns;
	struct rec *r;

	if (boot_id.n >= sizeof(a->boot_id))
		boot_id.n = sizeof(a->boot_id) - 1;
	if (a->have && off - a->off_ns <= tol_ns && a->off_ns - off <= tol_ns &&
	    (boot_id.n ? strlen(a->boot_id) == boot_id.n && !memcmp(a->boot_id, boot_id.p, boot_id.n)
		       : !a->boot_id[0]))
		return;
	if (!(r = ctx_rec(ctx, REC_ANCHOR)))
		return;
	a->have = true;
	a->off_ns = off;
	if (boot_id.n)
		memcpy(a->boot_id, boot_id.p, boot_id.n);
	a->boot_id[boot_id.n] = '\0';
	r->t_ns = wall_ns;
	r->time_kind = TK_ABS;
	r->anc.mono_ns = mono_ns;
	r->anc.boot = 0;
	r->anc.boot_id = boot_id.n ? ctx_str(ctx, boot_id) : STR_NONE;
	r->anc.quality = quality;
}

bool kl_repeat(struct slice msg, uint32_t *n, struct slice *text)
{
	const char *p = msg.p, *end = msg.p + msg.n;
	uint64_t v;

	if (msg.n < 17 || (msg.p[0] != 'm' && msg.p[0] != 'l'))
		return false;
	if (slice_starts_with(msg, "last message repeated "))
		p += 22;
	else if (slice_starts_with(msg, "message repeated "))
		p += 17;
	else
		return false;
	if (scan_u64(&p, end, &v) || v == 0 || v > UINT32_MAX)
		return false;
	if (end - p >= 6 && !memcmp(p, " times", 6))
		p += 6;
	else if (end - p >= 5 && !memcmp(p, " time", 5))
		p += 5;
	else
		return false;
	*n = (uint32_t)v;
	*text = (struct slice){ NULL, 0 };
	if (end - p >= 3 && !memcmp(p, ": [", 3)) {
		const char *q = end;
		while (q > p + 3 && q[-1] == ' ')
			q--;
		if (q[-1] == ']')
			q--;
		*text = slice_trim((struct slice){ p + 3, (size_t)(q - (p + 3)) });
	}
	return true;
}

/*
 * "-- Boot 0123abcd... --" or "-- Reboot --": a new boot.  An EV_BOOT
 * record at second 0 of the new boot's printk clock (the driver counts the
 * boots from it, anchor.h), then an anchor naming only the boot id, so that
 * another input of that boot (the JSON journal) places the short-monotonic
 * times that follow.
 */
void kl_marker(struct parse_ctx *ctx, struct kl_state *ks, const char *line, size_t n)
{
	struct slice s = { line, n }, id = { NULL, 0 };
	struct rec *r;

	if (slice_starts_with(s, "-- Boot ") && n > 11) {
		id = slice_trim((struct slice){ line + 8, n - 8 });
		if (id.n >= 2 && !memcmp(id.p + id.n - 2, "--", 2))
			id = slice_trim((struct slice){ id.p, id.n - 2 });
	} else if (!slice_starts_with(s, "-- Reboot --")) {
		return;	/* "-- No entries --", "-- Logs begin at ...", "-- Journal begins ..." */
	}
	ks->fold.rec = 0;
	ks->boot_marked = true;
	ks->boot_rec = 0;
	if (!(r = ctx_rec(ctx, REC_EVENT)))
		return;
	ks->boot_rec = ctx->out->nr;
	r->ev = EV_BOOT;
	r->t_ns = 0;
	r->time_kind = TK_BOOT;
	r->col = 1;
	r->name = ctx_str(ctx, slice_trim(s));
	r->kev.klass = KC_SYSTEM;
	r->kev.severity = KS_INFO;
	if (id.n)
		r->kev.text = ctx_str(ctx, id);
	if (id.n && (r = ctx_rec(ctx, REC_ANCHOR))) {
		r->t_ns = INT64_MIN;
		r->time_kind = TK_ABS;
		r->anc.mono_ns = INT64_MIN;
		r->anc.boot = 0;	/* ctx_rec() leaves the union to us */
		r->anc.boot_id = ctx_str(ctx, id);
		r->anc.quality = 0;
	}
}

/* The last event of this chunk, if it is the newest record but anchors. */
static struct rec *last_event(struct parse_ctx *ctx)
{
	struct batch *b = ctx->out;

	for (size_t i = b->nr; i > 0; i--) {
		struct rec *r = &b->recs[i - 1];
		if (r->kind == REC_ANCHOR)
			continue;
		return r->kind == REC_EVENT ? r : NULL;
	}
	return NULL;
}

/*
 * "Linux version ..." opens a boot's kernel log: an EV_BOOT record at that
 * time (TK_ABS here: the envelope's wall time), like fmt_kernel_dmesg.c.
 */
static bool boot_banner(struct parse_ctx *ctx, struct kl_state *ks, struct slice msg,
			struct slice tag, int64_t t_ns, enum time_kind tk, uint32_t col)
{
	struct rec *r;

	if (tk != TK_ABS || !slice_eq(tag, "kernel") || !slice_starts_with(msg, "Linux version "))
		return false;
	ks->fold.rec = 0;
	if (ks->boot_marked) {
		ks->boot_marked = false;	/* the marker just before said it */
		return true;
	}
	if ((r = ctx_rec(ctx, REC_EVENT))) {
		r->ev = EV_BOOT;
		r->t_ns = t_ns;
		r->time_kind = TK_ABS;
		r->col = col;
		r->kev.klass = KC_SYSTEM;
		r->kev.severity = KS_INFO;
		r->name = ctx_str(ctx, slice_trim(msg));
	}
	return true;
}

void kl_emit(struct parse_ctx *ctx, struct kl_state *ks, struct slice msg, struct slice tag,
	     int64_t t_ns, enum time_kind tk, uint32_t col)
{
	struct slice text;
	const char *name;
	struct rec *r;
	size_t before;
	uint32_t n;

	if (ctx->replay)
		return;
	if (ks->boot_rec) {
		/* the first entry after a boot marker: in a wall-clock mode the
		 * boot is (no later than) this entry's time */
		r = &ctx->out->recs[ks->boot_rec - 1];
		if (tk == TK_ABS && ks->boot_rec <= ctx->out->nr && r->kind == REC_EVENT && r->ev == EV_BOOT) {
			r->t_ns = t_ns;
			r->time_kind = TK_ABS;
		}
		ks->boot_rec = 0;
	}
	/* kl_repeat()'s first test here: nearly no line is a repeat */
	if (msg.n < 17 || (msg.p[0] != 'm' && msg.p[0] != 'l') || !kl_repeat(msg, &n, &text)) {
		/* the cheap test first: nearly every line of a kernel log is noise */
		if (!kmsg_maybe(msg.p, msg.n)) {
			if (msg.n >= 14 && msg.p[0] == 'L')
				boot_banner(ctx, ks, msg, tag, t_ns, tk, col);
			return;
		}
		kmsg_emit_fold(ctx, &ks->fold, msg, tag, t_ns, tk, 0, col);
		return;
	}
	r = last_event(ctx);
	name = r ? batch_str(ctx->out, r->name) : NULL;
	if (r && (text.n == 0 ? r->line + 1 == ctx->line
			      : strlen(name) == text.n && !memcmp(name, text.p, text.n))) {
		r->kev.count += n;
		return;
	}
	if (!text.n || !kmsg_maybe(text.p, text.n))
		return;
	before = ctx->out->nr;
	r = kmsg_emit_fold(ctx, &ks->fold, text, tag, t_ns, tk, 0, col + (uint32_t)(text.p - msg.p));
	if (r && ctx->out->nr > before)
		r->kev.count = n;		/* a new event, n times */
	else if (r)
		r->kev.count += n - 1;		/* folded into a burst: once counted already */
}
