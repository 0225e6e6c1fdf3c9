/* SPDX-License-Identifier: MIT */
#include "util/scan.h"

#include <math.h>
#include <string.h>
#include <strings.h>

#include "util/err.h"

bool scan_token(const char **pp, const char *end, struct slice *tok)
{
	const char *p = *pp, *s;

	while (p < end && scan_is_space(*p))
		p++;
	if (p >= end) {
		*pp = p;
		return false;
	}
	s = p;
	while (p < end && !scan_is_space(*p))
		p++;
	tok->p = s;
	tok->n = (size_t)(p - s);
	*pp = p;
	return true;
}

struct slice slice_trim(struct slice s)
{
	while (s.n && (scan_is_space(s.p[0]) || s.p[0] == '\n')) {
		s.p++;
		s.n--;
	}
	while (s.n && (scan_is_space(s.p[s.n - 1]) || s.p[s.n - 1] == '\n'))
		s.n--;
	return s;
}

bool slice_eq_nocase(struct slice s, const char *lit)
{
	size_t n = strlen(lit);
	return s.n == n && strncasecmp(s.p, lit, n) == 0;
}

char *slice_copy(char *dst, size_t cap, struct slice s)
{
	size_t n = s.n < cap - 1 ? s.n : cap - 1;
	memcpy(dst, s.p, n);
	dst[n] = '\0';
	return dst;
}

size_t scan_split(const char *line, size_t n, char sep, struct slice *f, size_t cap,
		  bool *overflow)
{
	const char *p = line, *end = line + n;
	size_t nf = 0;

	*overflow = false;
	for (;;) {
		const char *c = memchr(p, sep, (size_t)(end - p));
		const char *fe = c ? c : end;
		if (nf == cap) {
			*overflow = true;
			return nf;
		}
		f[nf++] = (struct slice){ p, (size_t)(fe - p) };
		if (!c)
			return nf;
		p = c + 1;
	}
}

int scan_u64(const char **pp, const char *end, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;

	if (p >= end || (unsigned)(*p - '0') > 9)
		return GL_EPARSE;
	while (p < end && (unsigned)(*p - '0') <= 9) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return GL_ERANGE;
		v = v * 10 + d;
		p++;
	}
	*out = v;
	*pp = p;
	return 0;
}

int scan_i64(const char **pp, const char *end, int64_t *out)
{
	const char *p = *pp;
	bool neg = false;
	uint64_t v;
	int rc;

	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	rc = scan_u64(&p, end, &v);
	if (rc)
		return rc;
	if (v > (uint64_t)INT64_MAX + neg)
		return GL_ERANGE;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	*pp = p;
	return 0;
}

static const double pow10_tab[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

int scan_double(const char **pp, const char *end, double *out)
{
	const char *p = *pp;
	bool neg = false, any = false;
	uint64_t mant = 0;
	int exp10 = 0, sig = 0;
	double v;

	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	while (p < end && (unsigned)(*p - '0') <= 9) {
		if (sig < 19) {
			mant = mant * 10 + (unsigned)(*p - '0');
			if (mant)
				sig++;
		} else {
			exp10++;
		}
		any = true;
		p++;
	}
	if (p < end && *p == '.') {
		p++;
		while (p < end && (unsigned)(*p - '0') <= 9) {
			if (sig < 19) {
				mant = mant * 10 + (unsigned)(*p - '0');
				if (mant)
					sig++;
				exp10--;
			}
			any = true;
			p++;
		}
	}
	if (!any)
		return GL_EPARSE;
	if (p < end && (*p == 'e' || *p == 'E')) {
		const char *q = p + 1;
		int64_t e;
		if (scan_i64(&q, end, &e) == 0) {
			if (e > 400 || e < -400)
				return GL_ERANGE;
			exp10 += (int)e;
			p = q;
		}
	}
	v = (double)mant;
	if (mant == 0) {
		/* zero whatever the exponent: 0 * pow(10, 350) would be NaN */
	} else if (exp10 > 0) {
		if (exp10 <= 22)
			v *= pow10_tab[exp10];
		else
			v *= pow(10.0, exp10);
	} else if (exp10 < 0) {
		if (exp10 >= -22)
			v /= pow10_tab[-exp10];
		else if (exp10 >= -300)
			v /= pow(10.0, -exp10);
		else
			v = v / 1e300 / pow(10.0, -exp10 - 300);	/* 10^-exp10 is past DBL_MAX */
	}
	if (!isfinite(v))
		return GL_ERANGE;
	*out = neg ? -v : v;
	*pp = p;
	return 0;
}

int scan_prom_float(const char **pp, const char *end, double *out)
{
	struct slice s = { *pp, (size_t)(end - *pp) };
	static const struct { const char *lit; double v; } special[] = {
		{ "+Inf", INFINITY }, { "-Inf", -INFINITY }, { "Inf", INFINITY },
		{ "NaN", NAN },
	};
	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++) {
		size_t n = strlen(special[i].lit);
		if (s.n >= n && strncasecmp(s.p, special[i].lit, n) == 0 &&
		    (s.n == n || scan_is_space(s.p[n]))) {
			*out = special[i].v;
			*pp += n;
			return 0;
		}
	}
	return scan_double(pp, end, out);
}

int scan_hex_u64(const char **pp, const char *end, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;
	int nd = 0;

	if (end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	while (p < end) {
		char c = *p;
		unsigned d;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			break;
		if (v >> 60)
			return GL_ERANGE;
		v = v << 4 | d;
		nd++;
		p++;
	}
	if (!nd)
		return GL_EPARSE;
	*out = v;
	*pp = p;
	return 0;
}

int scan_fixed_digits(const char **pp, const char *end, int n, int *out)
{
	const char *p = *pp;
	int v = 0;

	if (end - p < n)
		return GL_EPARSE;
	for (int i = 0; i < n; i++) {
		unsigned d = (unsigned)(p[i] - '0');
		if (d > 9)
			return GL_EPARSE;
		v = v * 10 + (int)d;
	}
	*out = v;
	*pp = p + n;
	return 0;
}

int slice_to_double(struct slice s, double *out)
{
	const char *p = s.p, *end = s.p + s.n;
	int rc = scan_double(&p, end, out);
	if (rc)
		return rc;
	return p == end ? 0 : GL_EPARSE;
}

int slice_to_i64(struct slice s, int64_t *out)
{
	const char *p = s.p, *end = s.p + s.n;
	int rc = scan_i64(&p, end, out);
	if (rc)
		return rc;
	return p == end ? 0 : GL_EPARSE;
}

size_t scan_tokens(struct slice s, struct slice *tok, size_t cap)
{
	const char *p = s.p, *end = s.p + s.n;
	size_t n = 0;
	struct slice w;

	while (n < cap && scan_token(&p, end, &w))
		tok[n++] = w;
	return n;
}
