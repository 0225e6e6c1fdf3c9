/* SPDX-License-Identifier: MIT */
/* The JSON pull tokenizer (see json.h). */
#include "util/json.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

enum {
	S_VALUE,	/* a value */
	S_ARR_FIRST,	/* a value or ']' */
	S_ARR_NEXT,	/* a value after ',' (']' only with trailing_comma) */
	S_OBJ_FIRST,	/* a key or '}' */
	S_KEY,		/* a key after ',' ('}' only with trailing_comma) */
	S_COLON,
	S_AFTER,	/* ',' or the container's end */
	S_DONE,
};

/* 0: a plain string byte; 1 '"'; 2 '\\'; 3 a control character; 4 not ASCII */
static const uint8_t sclass[256] = {
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
	0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
	4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
};

void json_lex_init(struct json_lex *lx, const char *p, const char *end, bool eof)
{
	memset(lx, 0, sizeof(*lx));
	lx->p = p;
	lx->end = end;
	lx->eof = eof;
	lx->state = S_VALUE;
}

void json_lex_expect_key(struct json_lex *lx)
{
	lx->depth = 1;
	lx->stack[0] = 1;
	lx->state = S_OBJ_FIRST;
}

static enum json_tok fail(struct json_lex *lx, const char *at, const char *why)
{
	lx->p = at;
	lx->err = why;
	return JT_ERR;
}

/* Out of bytes at `at`: more may come, or this is the end of the input. */
static enum json_tok short_of(struct json_lex *lx, const char *at, const char *why)
{
	if (!lx->eof)
		return JT_MORE;
	return fail(lx, at, why);
}

static bool top_is_obj(const struct json_lex *lx)
{
	int d = lx->depth - 1;
	return lx->stack[d >> 3] & (1u << (d & 7));
}

static void after_value(struct json_lex *lx)
{
	lx->state = lx->depth ? S_AFTER : S_DONE;
}

static int hex4(const char *p)
{
	int v = 0;
	for (int i = 0; i < 4; i++) {
		int c = (unsigned char)p[i], d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if ((c | 32) >= 'a' && (c | 32) <= 'f')
			d = (c | 32) - 'a' + 10;
		else
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* Length of the valid UTF-8 sequence at q (0: invalid, -1: cut by end). */
static int utf8_len(const unsigned char *q, const unsigned char *end)
{
	unsigned c = q[0], lo = 0x80, hi = 0xBF;
	int n;

	if (c < 0xC2)
		return 0;
	if (c < 0xE0) {
		n = 2;
	} else if (c < 0xF0) {
		n = 3;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;	/* no UTF-16 surrogates */
	} else if (c < 0xF5) {
		n = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;	/* nothing above U+10FFFF */
	} else {
		return 0;
	}
	for (int i = 1; i < n; i++) {
		if (q + i >= end)
			return -1;
		if (q[i] < (i == 1 ? lo : 0x80) || q[i] > (i == 1 ? hi : 0xBF))
			return 0;
	}
	return n;
}

static enum json_tok scan_string(struct json_lex *lx, enum json_tok kind)
{
	const char *q = lx->p + 1, *end = lx->end;

	lx->tok_esc = false;
	for (;;) {
		uint8_t k;
#ifdef __SSE2__
		/* sixteen plain bytes at a time: none is '"', '\\', a control
		 * byte or past ASCII (those two are below 0x20 as signed bytes) */
		while (q + 16 <= end) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)q);
			unsigned m = (unsigned)_mm_movemask_epi8(
				_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
							  _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
					     _mm_cmplt_epi8(v, _mm_set1_epi8(0x20))));
			if (m) {
				q += __builtin_ctz(m);
				break;
			}
			q += 16;
		}
#endif
		while (q + 4 <= end && !(sclass[(uint8_t)q[0]] | sclass[(uint8_t)q[1]] |
					 sclass[(uint8_t)q[2]] | sclass[(uint8_t)q[3]]))
			q += 4;
		if (q >= end)
			return short_of(lx, q, "unterminated string");
		k = sclass[(uint8_t)*q];
		if (k == 0) {
			q++;
		} else if (k == 1) {
			break;
		} else if (k == 3) {
			return fail(lx, q, "control character in a string (must be escaped)");
		} else if (k == 4) {
			int n = utf8_len((const unsigned char *)q, (const unsigned char *)end);
			if (n < 0)
				return short_of(lx, q, "string cut inside a UTF-8 character");
			if (n == 0)
				return fail(lx, q, "invalid UTF-8 in a string");
			q += n;
		} else {
			int cp;
			lx->tok_esc = true;
			if (q + 1 >= end)
				return short_of(lx, q, "string cut inside an escape");
			if (strchr("\"\\/bfnrt", q[1]) && q[1]) {
				q += 2;
				continue;
			}
			if (q[1] != 'u')
				return fail(lx, q, "unknown escape in a string");
			if (q + 6 > end)
				return short_of(lx, q, "string cut inside a \\u escape");
			if ((cp = hex4(q + 2)) < 0)
				return fail(lx, q, "\\u wants four hex digits");
			if (cp >= 0xDC00 && cp <= 0xDFFF)
				return fail(lx, q, "\\u low surrogate without a high one");
			if (cp >= 0xD800 && cp <= 0xDBFF) {
				int lo;
				if (q + 12 > end)
					return short_of(lx, q, "string cut inside a surrogate pair");
				if (q[6] != '\\' || q[7] != 'u' || (lo = hex4(q + 8)) < 0xDC00 ||
				    lo > 0xDFFF)
					return fail(lx, q, "\\u high surrogate without a low one");
				q += 6;
			}
			q += 6;
		}
	}
	lx->tok.p = lx->p + 1;
	lx->tok.n = (size_t)(q - lx->tok.p);
	lx->p = q + 1;
	return kind;
}

static bool is_digit(char c)
{
	return (unsigned)(c - '0') <= 9;
}

static enum json_tok scan_number(struct json_lex *lx)
{
	const char *q = lx->p, *end = lx->end;

#define NEED(what)                                                    \
	do {                                                          \
		if (q >= end)                                         \
			return short_of(lx, q, "number cut short"); \
		if (!(what))                                          \
			return fail(lx, q, "malformed number");       \
	} while (0)
	if (*q == '-')
		q++;
	NEED(is_digit(*q));
	if (*q == '0')
		q++;
	else
		while (q < end && is_digit(*q))
			q++;
	if (q < end && *q == '.') {
		q++;
		NEED(is_digit(*q));
		while (q < end && is_digit(*q))
			q++;
	}
	if (q < end && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < end && (*q == '+' || *q == '-'))
			q++;
		NEED(is_digit(*q));
		while (q < end && is_digit(*q))
			q++;
	}
#undef NEED
	if (q >= end && !lx->eof)
		return JT_MORE;	/* more digits may follow */
	if (q < end && (is_digit(*q) || *q == '.' || ((*q | 32) >= 'a' && (*q | 32) <= 'z')))
		return fail(lx, q, "malformed number");
	lx->tok.p = lx->p;
	lx->tok.n = (size_t)(q - lx->p);
	lx->p = q;
	return JT_NUM;
}

static enum json_tok scan_literal(struct json_lex *lx, const char *word, enum json_tok t)
{
	size_t n = strlen(word), have = (size_t)(lx->end - lx->p);

	if (memcmp(lx->p, word, have < n ? have : n))
		return fail(lx, lx->p, "unexpected word (not true, false or null)");
	if (have < n)
		return short_of(lx, lx->end, "input cut inside a word");
	lx->p += n;
	return t;
}

static enum json_tok open_container(struct json_lex *lx, bool obj)
{
	int d = lx->depth;

	if (d >= JSON_MAX_DEPTH)
		return fail(lx, lx->p, "nesting deeper than 256 levels");
	if (obj)
		lx->stack[d >> 3] |= (uint8_t)(1u << (d & 7));
	else
		lx->stack[d >> 3] &= (uint8_t)~(1u << (d & 7));
	lx->depth++;
	lx->p++;
	lx->state = obj ? S_OBJ_FIRST : S_ARR_FIRST;
	return obj ? JT_OBJ : JT_ARR;
}

static enum json_tok close_container(struct json_lex *lx)
{
	bool obj = top_is_obj(lx);
	lx->depth--;
	lx->p++;
	after_value(lx);
	return obj ? JT_OBJ_END : JT_ARR_END;
}

enum json_tok json_next(struct json_lex *lx)
{
	const char *p;
	char c;

	if (lx->state == S_DONE)
		return JT_DONE;
	for (;;) {
		p = lx->p;
		/* blanks: every byte past ' ' ends them at the first test, and
		 * the one blank after ':' and ',' is stepped over at once */
		if (p + 1 < lx->end && *p == ' ' && (unsigned char)p[1] > ' ')
			p++;
		else
			while (p < lx->end && (unsigned char)*p <= ' ' &&
			       (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')) {
				if (*p == '\n') {
					lx->line++;
					lx->line_start = p + 1;
				}
				p++;
			}
		lx->p = p;
		if (p >= lx->end)
			return short_of(lx, p, "unexpected end of input");
		c = *p;
		switch (lx->state) {
		case S_COLON:
			if (c != ':')
				return fail(lx, p, "expected ':' after a key");
			lx->p++;
			lx->state = S_VALUE;
			continue;
		case S_AFTER:
			if (c == ',') {
				lx->p++;
				lx->state = top_is_obj(lx) ? S_KEY : S_ARR_NEXT;
				continue;
			}
			if (c == (top_is_obj(lx) ? '}' : ']'))
				return close_container(lx);
			return fail(lx, p, top_is_obj(lx) ? "expected ',' or '}'" : "expected ',' or ']'");
		case S_OBJ_FIRST:
		case S_KEY:
			if (c == '}' && (lx->state == S_OBJ_FIRST || lx->trailing_comma))
				return close_container(lx);
			if (c != '"')
				return fail(lx, p, c == '}' ? "trailing comma before '}'" : "expected a key string");
			{
				enum json_tok t = scan_string(lx, JT_KEY);
				if (t == JT_KEY)
					lx->state = S_COLON;
				return t;
			}
		case S_ARR_FIRST:
		case S_ARR_NEXT:
			if (c == ']') {
				if (lx->state == S_ARR_FIRST || lx->trailing_comma)
					return close_container(lx);
				return fail(lx, p, "trailing comma before ']'");
			}
			break;
		default:
			break;
		}
		break;
	}
	/* a value */
	{
		enum json_tok t;
		switch (c) {
		case '{':
			return open_container(lx, true);
		case '[':
			return open_container(lx, false);
		case '"':
			t = scan_string(lx, JT_STR);
			break;
		case 't':
			t = scan_literal(lx, "true", JT_TRUE);
			break;
		case 'f':
			t = scan_literal(lx, "false", JT_FALSE);
			break;
		case 'n':
			t = scan_literal(lx, "null", JT_NULL);
			break;
		default:
			if (c == '-' || is_digit(c)) {
				t = scan_number(lx);
				break;
			}
			return fail(lx, p, "unexpected character (not a JSON value)");
		}
		if (t > 0)
			after_value(lx);
		return t;
	}
}

int json_skip(struct json_lex *lx, enum json_tok first)
{
	int target;

	if (first != JT_OBJ && first != JT_ARR)
		return 1;
	target = lx->depth - 1;
	for (;;) {
		enum json_tok t = json_next(lx);
		if (t < 0)
			return t;
		if ((t == JT_OBJ_END || t == JT_ARR_END) && lx->depth == target)
			return 1;
	}
}

static size_t put_utf8(char *dst, size_t at, size_t cap, unsigned cp)
{
	char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xC0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xE0 | cp >> 12);
		b[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		b[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		b[0] = (char)(0xF0 | cp >> 18);
		b[1] = (char)(0x80 | (cp >> 12 & 0x3F));
		b[2] = (char)(0x80 | (cp >> 6 & 0x3F));
		b[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	if (at + n > cap)
		return 0;
	memcpy(dst + at, b, n);
	return n;
}

size_t json_unescape(struct slice raw, char *dst, size_t cap)
{
	const char *p = raw.p, *end = raw.p + raw.n;
	size_t o = 0;

	while (p < end) {
		unsigned cp;
		size_t w;
		if (*p != '\\') {
			/* copy whole UTF-8 characters only */
			unsigned char c = (unsigned char)*p;
			size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
			if (o + n > cap)
				break;
			memcpy(dst + o, p, n);
			o += n;
			p += n;
			continue;
		}
		switch (p[1]) {
		case 'b': cp = '\b'; break;
		case 'f': cp = '\f'; break;
		case 'n': cp = '\n'; break;
		case 'r': cp = '\r'; break;
		case 't': cp = '\t'; break;
		case 'u':
			cp = (unsigned)hex4(p + 2);
			if (cp >= 0xD800 && cp <= 0xDBFF) {
				cp = 0x10000 + ((cp - 0xD800) << 10) + ((unsigned)hex4(p + 8) - 0xDC00);
				p += 6;
			}
			p += 4;
			/* a NUL would end the name early in C: U+FFFD stands for it */
			if (cp == 0)
				cp = 0xFFFD;
			break;
		default: cp = (unsigned char)p[1]; break;
		}
		p += 2;
		if (!(w = put_utf8(dst, o, cap, cp)))
			break;
		o += w;
	}
	return o;
}

int json_num_scaled(struct slice num, int scale, int64_t *out)
{
	const char *p = num.p, *end = num.p + num.n;
	const char *ip, *ie, *fp = NULL, *fe = NULL;
	bool neg = false, inexact = false;
	long e = 0;
	int64_t v = 0;
	long nd, k;

	if (p < end && *p == '-') {
		neg = true;
		p++;
	}
	ip = p;
	{
		/* the common case in one pass: no exponent, and the kept digits
		 * fit 18 (a trace's "ts": 5135395734197.213 at scale 3); what the
		 * general loop below gives, without its per-digit tests.  The sum
		 * may wrap while the digits are counted: it is then not used. */
		uint64_t u = 0;
		while (p < end && is_digit(*p))
			u = u * 10 + (uint64_t)(*p++ - '0');
		ie = p;
		if (p < end && *p == '.') {
			fp = ++p;
			while (p < end && is_digit(*p))
				p++;
			fe = p;
		}
		if (p == end && ie > ip && scale >= 0 && (ie - ip) + scale <= 18) {
			long nf = fp ? (long)(fe - fp) : 0;
			for (long i = 0; i < scale; i++)
				u = u * 10 + (uint64_t)(i < nf ? fp[i] - '0' : 0);
			if (nf > scale) {
				for (long i = scale; i < nf; i++)
					if (fp[i] != '0') {
						inexact = true;
						break;
					}
				if (fp[scale] >= '5')
					u++;
			}
			*out = neg ? -(int64_t)u : (int64_t)u;
			return inexact ? 1 : 0;
		}
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		bool eneg = false;
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		while (p < end && is_digit(*p)) {
			if (e < 100000)
				e = e * 10 + (*p - '0');
			p++;
		}
		if (eneg)
			e = -e;
	}
	/* the digits d0..d(nd-1) = int part then fraction; value = D * 10^(e + scale - nfrac) */
	nd = (long)(ie - ip) + (fp ? (long)(fe - fp) : 0);
	k = (long)(ie - ip) + e + scale;	/* digits that fall before the point */
#define DIGIT(i) ((i) < (long)(ie - ip) ? ip[i] - '0' : fp[(i) - (ie - ip)] - '0')
	for (long i = 0; i < k; i++) {
		int d = i < nd ? DIGIT(i) : 0;
		if (v > (INT64_MAX - d) / 10) {
			/* only zeros are harmless beyond int64 range */
			if (v || d)
				return -1;
		}
		v = v * 10 + d;
	}
	if (k < 0)
		k = k < -1 ? -1 : k;
	for (long i = k < 0 ? 0 : k; i < nd; i++)
		if (DIGIT(i)) {
			inexact = true;
			break;
		}
	if (k >= 0 && k < nd && DIGIT(k) >= 5) {
		if (v == INT64_MAX)
			return -1;
		v++;
	}
#undef DIGIT
	*out = neg ? -v : v;
	return inexact ? 1 : 0;
}
