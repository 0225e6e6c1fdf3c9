/* SPDX-License-Identifier: MIT */
/*
 * Cursor parsing over byte ranges that are not NUL-terminated.
 * Every scanner takes `const char **pp` and `end`; on success it advances *pp
 * past what it consumed and returns 0; on failure it leaves *pp unchanged and
 * returns a negative GL_E* code.  Nothing here allocates or reads past end.
 */
#ifndef UTIL_SCAN_H
#define UTIL_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A borrowed, non-owning byte range. */
struct slice {
	const char *p;
	size_t n;
};

#define SLICE_LIT(s) ((struct slice){ (s), sizeof(s) - 1 })

static inline bool scan_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Skip spaces and tabs (not newlines). */
static inline void scan_skip_space(const char **pp, const char *end)
{
	const char *p = *pp;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	*pp = p;
}

/* Next whitespace-separated token; returns false at end of input. */
bool scan_token(const char **pp, const char *end, struct slice *tok);

/* Trim ASCII whitespace on both sides. */
struct slice slice_trim(struct slice s);
/* Inline: nearly every caller passes a literal, whose strlen() and short
 * memcmp() the compiler then folds (the envelopes call them on every line). */
static inline bool slice_eq(struct slice s, const char *lit)
{
	size_t n = strlen(lit);
	return s.n == n && memcmp(s.p, lit, n) == 0;
}
bool slice_eq_nocase(struct slice s, const char *lit);
static inline bool slice_starts_with(struct slice s, const char *lit)
{
	size_t n = strlen(lit);
	return s.n >= n && memcmp(s.p, lit, n) == 0;
}
/* Copy into dst (size cap, always NUL-terminated); returns dst. */
char *slice_copy(char *dst, size_t cap, struct slice s);
/* The blank-separated words of s into tok[0..cap); returns how many (at most cap). */
size_t scan_tokens(struct slice s, struct slice *tok, size_t cap);

/*
 * Split [line, line+n) at every sep into fields (no quoting, no trimming).
 * Fills at most cap fields and returns how many it filled; *overflow says
 * whether more were left.  The fields point into line.
 */
size_t scan_split(const char *line, size_t n, char sep, struct slice *f, size_t cap,
		  bool *overflow);

/* Unsigned decimal integer with overflow check (GL_ERANGE). */
int scan_u64(const char **pp, const char *end, uint64_t *out);
/* Optional sign, then digits. */
int scan_i64(const char **pp, const char *end, int64_t *out);
/*
 * Decimal number: [+-]digits[.digits][e[+-]digits].  Integers and up to 18
 * significant digits convert exactly before the final scaling.  Rejects NaN
 * and Inf; use scan_prom_float() where those are allowed.
 */
int scan_double(const char **pp, const char *end, double *out);
/* Prometheus/Go float: scan_double plus NaN, +Inf, -Inf. */
int scan_prom_float(const char **pp, const char *end, double *out);
/* 0x-prefixed (optional) hexadecimal into u64. */
int scan_hex_u64(const char **pp, const char *end, uint64_t *out);
/* Exactly n decimal digits into *out. */
int scan_fixed_digits(const char **pp, const char *end, int n, int *out);

/* Whole-slice forms: succeed only if the number fills the slice. */
int slice_to_double(struct slice s, double *out);
int slice_to_i64(struct slice s, int64_t *out);

#endif
