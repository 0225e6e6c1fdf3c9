/* SPDX-License-Identifier: MIT */
#include "util/jsonw.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/timeutil.h"

void jsonw_init(struct jsonw *w, FILE *out, bool pretty)
{
	/* not the buffer: dump starts a writer per record */
	memset(w, 0, offsetof(struct jsonw, buf));
	w->out = out;
	w->pretty = pretty;
}

void jsonw_init_members(struct jsonw *w, FILE *out, bool pretty, int depth)
{
	jsonw_init(w, out, pretty);
	w->depth = depth;
	w->need_comma[depth] = true;
}

void jsonw_flush(struct jsonw *w)
{
	if (w->n)
		fwrite_unlocked(w->buf, 1, w->n, w->out);
	w->n = 0;
}

static void put(struct jsonw *w, const char *s, size_t n)
{
	if (n > JSONW_BUF - w->n) {
		jsonw_flush(w);
		if (n > JSONW_BUF) {
			fwrite_unlocked(s, 1, n, w->out);
			return;
		}
	}
	memcpy(w->buf + w->n, s, n);
	w->n += n;
}

static void putch(struct jsonw *w, char c)
{
	if (w->n == JSONW_BUF)
		jsonw_flush(w);
	w->buf[w->n++] = c;
}

void jsonw_splice(struct jsonw *w, const char *members, size_t n)
{
	put(w, members, n);
}

/* A value written outside any container is complete: hand it over. */
static void end_scalar(struct jsonw *w)
{
	if (w->depth == 0)
		jsonw_flush(w);
}

static const char spaces[2 * JSONW_MAX_DEPTH + 2] =
	"\n                                                                ";

const char *jsonw_indent(const struct jsonw *w, int depth, size_t *n)
{
	if (depth < 0)
		depth = 0;
	if (depth > JSONW_MAX_DEPTH - 1)
		depth = JSONW_MAX_DEPTH - 1;
	*n = w->pretty ? (size_t)(2 * depth + 1) : 0;
	return spaces;
}

static void newline(struct jsonw *w)
{
	size_t n;
	const char *s = jsonw_indent(w, w->depth, &n);

	if (n)
		put(w, s, n);
}

static void before_value(struct jsonw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth > 0) {
		if (w->need_comma[w->depth])
			putch(w, ',');
		w->need_comma[w->depth] = true;
		newline(w);
	}
}

static void open(struct jsonw *w, char c)
{
	before_value(w);
	putch(w, c);
	if (w->depth < JSONW_MAX_DEPTH - 1)
		w->depth++;
	w->need_comma[w->depth] = false;
}

static void close(struct jsonw *w, char c)
{
	bool had = w->need_comma[w->depth];
	if (w->depth > 0)
		w->depth--;
	if (had)
		newline(w);
	putch(w, c);
	if (w->depth == 0) {
		if (w->pretty)
			putch(w, '\n');
		jsonw_flush(w);
	}
}

void jsonw_obj_begin(struct jsonw *w) { open(w, '{'); }
void jsonw_obj_end(struct jsonw *w) { close(w, '}'); }
void jsonw_arr_begin(struct jsonw *w) { open(w, '['); }
void jsonw_arr_end(struct jsonw *w) { close(w, ']'); }

static void put_escaped(struct jsonw *w, const char *s, size_t n);

void jsonw_key(struct jsonw *w, const char *key)
{
	before_value(w);
	put_escaped(w, key, strlen(key));
	put(w, ": ", w->pretty ? 2 : 1);
	w->after_key = true;	/* the next value belongs to this key */
}

#define BYTES(b) (UINT64_C(0x0101010101010101) * (b))

/* 0x80 in each byte of x that is zero */
static inline uint64_t zero_bytes(uint64_t x)
{
	return ~(((x & BYTES(0x7f)) + BYTES(0x7f)) | x | BYTES(0x7f));
}

/* Non-zero when one of the 8 bytes at s needs escaping. */
static inline uint64_t needs_escape8(const char *s)
{
	uint64_t x;

	memcpy(&x, s, 8);
	return (~((x & BYTES(0x7f)) + BYTES(0x60)) & ~x & BYTES(0x80)) |	/* < 0x20 */
	       zero_bytes(x ^ BYTES('"')) | zero_bytes(x ^ BYTES('\\')) |
	       zero_bytes(x ^ BYTES(0x7f));
}

/* The bytes a JSON string cannot hold as they are: controls, '"', '\\', DEL. */
static const unsigned char needs_esc[256] = {
	[0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1, [0x07] = 1,
	[0x08] = 1, [0x09] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1, [0x0e] = 1, [0x0f] = 1,
	[0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1, [0x15] = 1, [0x16] = 1, [0x17] = 1,
	[0x18] = 1, [0x19] = 1, [0x1a] = 1, [0x1b] = 1, [0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1,
	['"'] = 1, ['\\'] = 1, [0x7f] = 1,
};

static void put_escaped(struct jsonw *w, const char *s, size_t n)
{
	size_t run = 0;	/* bytes since the last escape, written in one go */
	size_t i = 0;

	/* nearly always: room in buf and nothing to escape, so copy and check
	 * in one pass; bytes past w->n count only once the string is done */
	if (n + 2 <= JSONW_BUF - w->n) {
		char *o = w->buf + w->n + 1;
		while (n - i >= 8 && !needs_escape8(s + i)) {
			memcpy(o + i, s + i, 8);
			i += 8;
		}
		while (i < n && !needs_esc[(unsigned char)s[i]]) {
			o[i] = s[i];
			i++;
		}
		if (i == n) {
			o[-1] = '"';
			o[n] = '"';
			w->n += n + 2;
			return;
		}
		i = 0;
	}
	putch(w, '"');
	for (;;) {
		unsigned char c;
		const char *esc;
		char ubuf[8];

		/* eight plain bytes at a time, then one by one to the next
		 * byte that needs an escape */
		while (n - i >= 8 && !needs_escape8(s + i))
			i += 8;
		while (i < n && !needs_esc[(unsigned char)s[i]])
			i++;
		if (i >= n)
			break;
		c = (unsigned char)s[i++];
		switch (c) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		default:
			snprintf(ubuf, sizeof(ubuf), "\\u%04x", c);
			esc = ubuf;
		}
		put(w, s + run, i - 1 - run);
		put(w, esc, strlen(esc));
		run = i;
	}
	put(w, s + run, n - run);
	putch(w, '"');
}

void jsonw_strn(struct jsonw *w, const char *s, size_t n)
{
	before_value(w);
	put_escaped(w, s, n);
	end_scalar(w);
}

void jsonw_str(struct jsonw *w, const char *s)
{
	if (!s) {
		jsonw_null(w);
		return;
	}
	jsonw_strn(w, s, strlen(s));
}

void jsonw_int(struct jsonw *w, int64_t v)
{
	char buf[24], *p = buf + sizeof(buf);
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	before_value(w);
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	put(w, p, (size_t)(buf + sizeof(buf) - p));
	end_scalar(w);
}

/*
 * What snprintf("%.*f") then the trimming below give, without printf: a
 * finite v below 2^53 is m * 2^e exactly (m < 2^53, e <= 0), so v * 10^d
 * is m * 10^d (below 2^93) shifted right by -e, which unsigned __int128
 * holds; the shifted-out bits round it to nearest, ties to even, as glibc
 * rounds the exact value.  false (and buf untouched) for what it does not
 * cover: d over 12, |v| from 2^53, a quotient over 64 bits, a short buf.
 * Reports print one number per field of every segment.
 */
static bool fmt_num_exact(char *buf, size_t cap, double v, int d)
{
	static const uint64_t pow10[13] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
					    1000000000, 10000000000ULL, 100000000000ULL, 1000000000000ULL };
	uint64_t bits, m, q, ip, fp;
	int e, x;
	unsigned __int128 p;
	char tmp[48], *t = tmp + sizeof(tmp);
	bool neg;
	size_t n;

	if (d < 0 || d > 12)
		return false;
	memcpy(&bits, &v, sizeof(bits));
	neg = bits >> 63;
	x = (int)((bits >> 52) & 0x7ff);
	m = bits & ((UINT64_C(1) << 52) - 1);
	if (x == 0x7ff)
		return false;	/* NaN, Inf */
	if (x) {
		m |= UINT64_C(1) << 52;
		e = x - 1075;
	} else {
		e = -1074;
	}
	if (e > 0)
		return false;
	p = (unsigned __int128)m * pow10[d];
	if (-e >= 120) {
		q = 0;	/* p < 2^93: below half of one unit */
	} else if (e == 0) {
		if (p >> 64)
			return false;
		q = (uint64_t)p;
	} else {
		unsigned s = (unsigned)-e;
		unsigned __int128 qq = p >> s, rem = p & ((((unsigned __int128)1) << s) - 1),
				  half = ((unsigned __int128)1) << (s - 1);
		if (rem > half || (rem == half && (qq & 1)))
			qq++;
		if (qq >> 64)
			return false;
		q = (uint64_t)qq;
	}
	ip = q / pow10[d];
	fp = q % pow10[d];
	*--t = '\0';
	if (fp) {
		int k = d;
		while (fp % 10 == 0) {
			fp /= 10;
			k--;
		}
		for (; k > 0; k--) {
			*--t = (char)('0' + fp % 10);
			fp /= 10;
		}
		*--t = '.';
	}
	do {
		*--t = (char)('0' + ip % 10);
		ip /= 10;
	} while (ip);
	if (neg && q)
		*--t = '-';	/* a value that rounds to 0 is "0", never "-0" */
	n = (size_t)(tmp + sizeof(tmp) - t);
	if (n > cap)
		return false;
	memcpy(buf, t, n);
	return true;
}

char *fmt_num(char *buf, size_t cap, double v, int decimals)
{
	char *dot;
	size_t n;
	int len;

	if (fmt_num_exact(buf, cap, v, decimals))
		return buf;
	if (v == 0)
		v = 0; /* no "-0" */
	len = snprintf(buf, cap, "%.*f", decimals, v);
	if (len < 0 || (size_t)len >= cap) {
		/* cutting %f digits would print a different number */
		snprintf(buf, cap, "%.17g", v);
		return buf;
	}
	dot = strchr(buf, '.');
	if (dot) {
		n = strlen(buf);
		while (n > 0 && buf[n - 1] == '0')
			buf[--n] = '\0';
		if (n > 0 && buf[n - 1] == '.')
			buf[--n] = '\0';
	}
	if (!strcmp(buf, "-0"))
		strcpy(buf, "0");
	return buf;
}

void jsonw_num(struct jsonw *w, double v, int decimals)
{
	char buf[64];

	if (!isfinite(v)) {
		jsonw_null(w);
		return;
	}
	before_value(w);
	fmt_num(buf, sizeof(buf), v, decimals);
	put(w, buf, strlen(buf));
	end_scalar(w);
}

void jsonw_raw_value(struct jsonw *w, const char *text, size_t n)
{
	before_value(w);
	put(w, text, n);
	end_scalar(w);
}

void jsonw_bool(struct jsonw *w, bool v)
{
	before_value(w);
	put(w, v ? "true" : "false", v ? 4 : 5);
	end_scalar(w);
}

void jsonw_null(struct jsonw *w)
{
	before_value(w);
	put(w, "null", 4);
	end_scalar(w);
}

void jsonw_time(struct jsonw *w, int64_t t_ns)
{
	char buf[40];
	const char *t = time_rfc3339(buf, sizeof(buf), t_ns);

	/* digits, '-', ':', 'T', '.', 'Z' (or a number): nothing to escape */
	before_value(w);
	putch(w, '"');
	put(w, t, strlen(t));
	putch(w, '"');
	end_scalar(w);
}

void jsonw_kstr(struct jsonw *w, const char *k, const char *s) { jsonw_key(w, k); jsonw_str(w, s); }
void jsonw_kint(struct jsonw *w, const char *k, int64_t v) { jsonw_key(w, k); jsonw_int(w, v); }
void jsonw_knum(struct jsonw *w, const char *k, double v, int d) { jsonw_key(w, k); jsonw_num(w, v, d); }
void jsonw_kbool(struct jsonw *w, const char *k, bool v) { jsonw_key(w, k); jsonw_bool(w, v); }
void jsonw_ktime(struct jsonw *w, const char *k, int64_t t) { jsonw_key(w, k); jsonw_time(w, t); }
