/* SPDX-License-Identifier: MIT */
/* Unit tests for util/scan: cursor scanners over ranges without a NUL. */
#include "test.h"

#include <math.h>
#include <string.h>

#include "util/err.h"
#include "util/scan.h"

/*
 * Run a scanner over the first n bytes of s.  The bytes are copied into a
 * heap buffer of exactly n bytes, so a scanner that reads past end trips
 * ASan in the sanitizer build instead of finding a convenient NUL.
 */
struct cur {
	char *buf;
	const char *p, *end;
};

static void cur_init(struct cur *c, const char *s, size_t n)
{
	c->buf = test_malloc(n ? n : 1);
	memcpy(c->buf, s, n);
	c->p = c->buf;
	c->end = c->buf + n;
}

static void cur_free(struct cur *c)
{
	test_free(c->buf);
}

#define CUR(c, lit) cur_init((c), (lit), sizeof(lit) - 1)

/* Consumed byte count, for asserting where the cursor stopped. */
static size_t used(const struct cur *c)
{
	return (size_t)(c->p - c->buf);
}

static int u64_of(const char *s, uint64_t *v, size_t *n_used)
{
	struct cur c;
	int rc;

	cur_init(&c, s, strlen(s));
	rc = scan_u64(&c.p, c.end, v);
	*n_used = used(&c);
	cur_free(&c);
	return rc;
}

static int dbl_of(const char *s, double *v, size_t *n_used)
{
	struct cur c;
	int rc;

	cur_init(&c, s, strlen(s));
	rc = scan_double(&c.p, c.end, v);
	*n_used = used(&c);
	cur_free(&c);
	return rc;
}

static int prom_of(const char *s, double *v, size_t *n_used)
{
	struct cur c;
	int rc;

	cur_init(&c, s, strlen(s));
	rc = scan_prom_float(&c.p, c.end, v);
	*n_used = used(&c);
	cur_free(&c);
	return rc;
}

static int hex_of(const char *s, uint64_t *v, size_t *n_used)
{
	struct cur c;
	int rc;

	cur_init(&c, s, strlen(s));
	rc = scan_hex_u64(&c.p, c.end, v);
	*n_used = used(&c);
	cur_free(&c);
	return rc;
}

static void test_u64(void **state)
{
	uint64_t v = 7;
	size_t n;

	(void)state;
	assert_int_equal(u64_of("0", &v, &n), 0);
	assert_true(v == 0);
	assert_int_equal(n, 1);
	assert_int_equal(u64_of("00042 rest", &v, &n), 0);
	assert_true(v == 42);
	assert_int_equal(n, 5);
	assert_int_equal(u64_of("18446744073709551615", &v, &n), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(n, 20);

	/* one past the maximum, and a long run of digits: range error, cursor kept */
	v = 7;
	assert_int_equal(u64_of("18446744073709551616", &v, &n), GL_ERANGE);
	assert_int_equal(n, 0);
	assert_true(v == 7);
	assert_int_equal(u64_of("99999999999999999999", &v, &n), GL_ERANGE);
	assert_int_equal(n, 0);
	assert_int_equal(u64_of("184467440737095516150", &v, &n), GL_ERANGE);
	assert_int_equal(n, 0);

	/* no digits, or a sign (u64 takes none) */
	assert_int_equal(u64_of("", &v, &n), GL_EPARSE);
	assert_int_equal(u64_of("x1", &v, &n), GL_EPARSE);
	assert_int_equal(u64_of("+1", &v, &n), GL_EPARSE);
	assert_int_equal(u64_of("-1", &v, &n), GL_EPARSE);
	assert_int_equal(n, 0);
	assert_true(v == 7);
}

static void test_u64_respects_end(void **state)
{
	/* "123456" but end after 3 bytes: the digits beyond end are not read */
	const char s[] = "123456";
	const char *p = s;
	uint64_t v;

	(void)state;
	assert_int_equal(scan_u64(&p, s + 3, &v), 0);
	assert_true(v == 123);
	assert_ptr_equal(p, s + 3);
	p = s;
	assert_int_equal(scan_u64(&p, s, &v), GL_EPARSE);
	assert_ptr_equal(p, s);
}

static void test_i64(void **state)
{
	struct cur c;
	int64_t v = 5;

	(void)state;
	CUR(&c, "-9223372036854775808");
	assert_int_equal(scan_i64(&c.p, c.end, &v), 0);
	assert_true(v == INT64_MIN);
	assert_int_equal(used(&c), 20);
	cur_free(&c);

	CUR(&c, "+9223372036854775807,");
	assert_int_equal(scan_i64(&c.p, c.end, &v), 0);
	assert_true(v == INT64_MAX);
	assert_int_equal(used(&c), 20);
	cur_free(&c);

	v = 5;
	CUR(&c, "9223372036854775808");
	assert_int_equal(scan_i64(&c.p, c.end, &v), GL_ERANGE);
	assert_int_equal(used(&c), 0);
	cur_free(&c);
	CUR(&c, "-9223372036854775809");
	assert_int_equal(scan_i64(&c.p, c.end, &v), GL_ERANGE);
	assert_int_equal(used(&c), 0);
	cur_free(&c);

	/* a lone sign is not a number, and the sign is not consumed */
	CUR(&c, "-x");
	assert_int_equal(scan_i64(&c.p, c.end, &v), GL_EPARSE);
	assert_int_equal(used(&c), 0);
	cur_free(&c);
	CUR(&c, "-");
	assert_int_equal(scan_i64(&c.p, c.end, &v), GL_EPARSE);
	assert_int_equal(used(&c), 0);
	cur_free(&c);
	assert_true(v == 5);

	CUR(&c, "-0");
	assert_int_equal(scan_i64(&c.p, c.end, &v), 0);
	assert_true(v == 0);
	cur_free(&c);
}

static void test_double_basic(void **state)
{
	double v;
	size_t n;

	(void)state;
	/* 9902 / 100 is one correctly rounded division: the same double as the literal */
	assert_int_equal(dbl_of("99.02", &v, &n), 0);
	assert_true(v == 99.02);
	assert_int_equal(n, 5);
	assert_int_equal(dbl_of("-0.5e3", &v, &n), 0);
	assert_true(v == -500.0);
	assert_int_equal(n, 6);
	assert_int_equal(dbl_of("+.25", &v, &n), 0);
	assert_true(v == 0.25);
	assert_int_equal(dbl_of("5.", &v, &n), 0);
	assert_true(v == 5.0);
	assert_int_equal(n, 2);
	assert_int_equal(dbl_of("1E2", &v, &n), 0);
	assert_true(v == 100.0);
	assert_int_equal(dbl_of("2.5e-3 W", &v, &n), 0);
	assert_true(v == 0.0025);
	assert_int_equal(n, 6);
	assert_int_equal(dbl_of("0.1", &v, &n), 0);
	assert_true(v == 0.1);
	assert_int_equal(dbl_of("700.00", &v, &n), 0);
	assert_true(v == 700.0);
	assert_int_equal(dbl_of("0.000001", &v, &n), 0);
	assert_true(v == 1e-6);
	assert_int_equal(dbl_of("-0", &v, &n), 0);
	assert_true(v == 0 && signbit(v));
	/* stops at the first byte that cannot continue the number */
	assert_int_equal(dbl_of("12.5%", &v, &n), 0);
	assert_true(v == 12.5);
	assert_int_equal(n, 4);
	assert_int_equal(dbl_of("1.2.3", &v, &n), 0);
	assert_true(v == 1.2);
	assert_int_equal(n, 3);
}

static void test_double_exponent_edge(void **state)
{
	double v;
	size_t n;

	(void)state;
	/* "e" without digits is not an exponent: the number ends before it */
	assert_int_equal(dbl_of("1e", &v, &n), 0);
	assert_true(v == 1.0);
	assert_int_equal(n, 1);
	assert_int_equal(dbl_of("3e+", &v, &n), 0);
	assert_true(v == 3.0);
	assert_int_equal(n, 1);
	assert_int_equal(dbl_of("4ex", &v, &n), 0);
	assert_true(v == 4.0);
	assert_int_equal(n, 1);

	/* exponents past 22 go through pow(); check value within one part in 1e15 */
	assert_int_equal(dbl_of("1.5e100", &v, &n), 0);
	assert_near(v / 1.5e100, 1.0, 1e-15);
	assert_int_equal(dbl_of("6.02214076e23", &v, &n), 0);
	assert_near(v / 6.02214076e23, 1.0, 1e-15);
	assert_int_equal(dbl_of("1e-30", &v, &n), 0);
	assert_near(v / 1e-30, 1.0, 1e-15);
	assert_int_equal(dbl_of("1e308", &v, &n), 0);
	assert_near(v / 1e308, 1.0, 1e-15);
}

static void test_double_errors(void **state)
{
	double v = 42;
	size_t n;

	(void)state;
	assert_int_equal(dbl_of("1e400", &v, &n), GL_ERANGE);
	assert_int_equal(n, 0);
	assert_int_equal(dbl_of("1e309", &v, &n), GL_ERANGE);
	assert_int_equal(dbl_of("-1e99999", &v, &n), GL_ERANGE);
	assert_int_equal(n, 0);
	assert_int_equal(dbl_of(".", &v, &n), GL_EPARSE);
	assert_int_equal(n, 0);
	assert_int_equal(dbl_of("", &v, &n), GL_EPARSE);
	assert_int_equal(dbl_of("-", &v, &n), GL_EPARSE);
	assert_int_equal(dbl_of("+.", &v, &n), GL_EPARSE);
	assert_int_equal(n, 0);
	assert_int_equal(dbl_of("e5", &v, &n), GL_EPARSE);
	/* plain scan_double refuses the special values */
	assert_int_equal(dbl_of("NaN", &v, &n), GL_EPARSE);
	assert_int_equal(dbl_of("inf", &v, &n), GL_EPARSE);
	assert_int_equal(dbl_of("[N/A]", &v, &n), GL_EPARSE);
	assert_true(v == 42);
}

static void test_double_many_digits(void **state)
{
	double v;
	size_t n;

	(void)state;
	/* 19 significant digits: all kept in the mantissa */
	assert_int_equal(dbl_of("1234567890123456789", &v, &n), 0);
	assert_true(v == 1234567890123456789.0);
	assert_int_equal(n, 19);
	/* 2^60: exact only if all 19 digits reach the mantissa (17 would give 2^60 - 128) */
	assert_int_equal(dbl_of("1152921504606846976", &v, &n), 0);
	assert_true(v == 1152921504606846976.0);
	/* 23 digits: the last 4 only scale; the cursor still eats them all */
	assert_int_equal(dbl_of("12345678901234567890123", &v, &n), 0);
	assert_near(v / 1.2345678901234567890123e22, 1.0, 1e-15);
	assert_int_equal(n, 23);
	/* extra fraction digits beyond 19 significant ones are consumed and dropped */
	assert_int_equal(dbl_of("3.14159265358979323846264338", &v, &n), 0);
	assert_near(v, 3.14159265358979323846, 1e-15);
	assert_int_equal(n, 28);
	/* leading zeros are not significant: 1e-25 keeps its digits */
	assert_int_equal(dbl_of("0.0000000000000000000000001234", &v, &n), 0);
	assert_near(v / 1.234e-25, 1.0, 1e-15);
	/* a long integer of zeros then digits */
	assert_int_equal(dbl_of("000000000000000000000000000007", &v, &n), 0);
	assert_true(v == 7.0);
	assert_int_equal(n, 30);
}

/*
 * BUG: an exponent below -308 (counting dropped digits) divides by
 * pow(10, -exp10), which is +Inf, so the result is 0 even when the number is
 * a normal double: "2.2250738585072014e-308" (DBL_MIN) and
 * "123456789012345678901234567890e-330" (1.2e-301) both read as 0.  Also "0e350"
 * is 0 * Inf = NaN and fails with GL_ERANGE although it is zero.
 */
static void test_double_tiny(void **state)
{
	double v;
	size_t n;

	(void)state;
	assert_int_equal(dbl_of("2.2250738585072014e-308", &v, &n), 0);
	assert_near(v / 2.2250738585072014e-308, 1.0, 1e-15);
	assert_int_equal(dbl_of("123456789012345678901234567890e-330", &v, &n), 0);
	assert_near(v / 1.2345678901234567890e-301, 1.0, 1e-15);
	assert_int_equal(n, 35);
	assert_int_equal(dbl_of("1e-310", &v, &n), 0);
	assert_near(v / 1e-310, 1.0, 1e-9);
	assert_int_equal(dbl_of("0e350", &v, &n), 0);
	assert_true(v == 0);
	/* truly below the smallest subnormal: zero is the right answer */
	assert_int_equal(dbl_of("1e-400", &v, &n), 0);
	assert_true(v == 0);
}

static void test_prom_float(void **state)
{
	double v;
	size_t n;

	(void)state;
	assert_int_equal(prom_of("NaN", &v, &n), 0);
	assert_true(isnan(v));
	assert_int_equal(n, 3);
	assert_int_equal(prom_of("+Inf", &v, &n), 0);
	assert_true(isinf(v) && v > 0);
	assert_int_equal(n, 4);
	assert_int_equal(prom_of("-Inf 1700000000000", &v, &n), 0);
	assert_true(isinf(v) && v < 0);
	assert_int_equal(n, 4);
	assert_int_equal(prom_of("Inf", &v, &n), 0);
	assert_true(isinf(v) && v > 0);
	/* Go's ParseFloat is case-insensitive; so is this */
	assert_int_equal(prom_of("nan\t", &v, &n), 0);
	assert_true(isnan(v));
	assert_int_equal(n, 3);
	/* ordinary numbers fall through to scan_double */
	assert_int_equal(prom_of("1.5e3 123", &v, &n), 0);
	assert_true(v == 1500.0);
	assert_int_equal(n, 5);
	/* a special word glued to more letters is not special */
	v = 9;
	assert_int_equal(prom_of("NaNx", &v, &n), GL_EPARSE);
	assert_int_equal(n, 0);
	assert_int_equal(prom_of("Info", &v, &n), GL_EPARSE);
	assert_true(v == 9);
	/* the bytes must be within end: "Na" then end is not NaN */
	{
		const char s[] = "NaN";
		const char *p = s;
		assert_int_equal(scan_prom_float(&p, s + 2, &v), GL_EPARSE);
		assert_ptr_equal(p, s);
	}
}

static void test_hex(void **state)
{
	uint64_t v = 1;
	size_t n;

	(void)state;
	assert_int_equal(hex_of("0x0000000000000004", &v, &n), 0);
	assert_true(v == 4);
	assert_int_equal(n, 18);
	assert_int_equal(hex_of("0x4", &v, &n), 0);
	assert_true(v == 4);
	assert_int_equal(n, 3);
	assert_int_equal(hex_of("4", &v, &n), 0);
	assert_true(v == 4);
	assert_int_equal(hex_of("0XfF,", &v, &n), 0);
	assert_true(v == 255);
	assert_int_equal(n, 4);
	assert_int_equal(hex_of("0xFFFFFFFFFFFFFFFF", &v, &n), 0);
	assert_true(v == UINT64_MAX);
	/* leading zeros beyond 16 digits are harmless */
	assert_int_equal(hex_of("0x00000000000000000000001", &v, &n), 0);
	assert_true(v == 1);

	v = 1;
	assert_int_equal(hex_of("0x10000000000000000", &v, &n), GL_ERANGE);
	assert_int_equal(n, 0);
	assert_int_equal(hex_of("FFFFFFFFFFFFFFFFF", &v, &n), GL_ERANGE);
	assert_int_equal(hex_of("0x", &v, &n), GL_EPARSE);
	assert_int_equal(n, 0);
	assert_int_equal(hex_of("0xg", &v, &n), GL_EPARSE);
	assert_int_equal(hex_of("", &v, &n), GL_EPARSE);
	assert_int_equal(hex_of("z", &v, &n), GL_EPARSE);
	assert_true(v == 1);
}

static void test_fixed_digits(void **state)
{
	struct cur c;
	int v = -1;

	(void)state;
	CUR(&c, "2026-11");
	assert_int_equal(scan_fixed_digits(&c.p, c.end, 4, &v), 0);
	assert_int_equal(v, 2026);
	assert_int_equal(used(&c), 4);
	/* "-1" is not two digits */
	assert_int_equal(scan_fixed_digits(&c.p, c.end, 2, &v), GL_EPARSE);
	assert_int_equal(used(&c), 4);
	cur_free(&c);

	CUR(&c, "12");
	assert_int_equal(scan_fixed_digits(&c.p, c.end, 3, &v), GL_EPARSE);
	assert_int_equal(used(&c), 0);
	assert_int_equal(v, 2026);
	cur_free(&c);

	CUR(&c, "1a");
	assert_int_equal(scan_fixed_digits(&c.p, c.end, 2, &v), GL_EPARSE);
	assert_int_equal(used(&c), 0);
	cur_free(&c);
}

static void test_token(void **state)
{
	struct cur c;
	struct slice t;

	(void)state;
	CUR(&c, " \tgpu0\t\t 71 \r\n");
	assert_true(scan_token(&c.p, c.end, &t));
	assert_true(slice_eq(t, "gpu0"));
	assert_true(scan_token(&c.p, c.end, &t));
	assert_true(slice_eq(t, "71"));
	/* '\r' separates; '\n' does not (lines arrive without it) */
	assert_true(scan_token(&c.p, c.end, &t));
	assert_true(slice_eq(t, "\n"));
	assert_false(scan_token(&c.p, c.end, &t));
	assert_ptr_equal(c.p, c.end);
	cur_free(&c);

	CUR(&c, "a\rb");
	assert_true(scan_token(&c.p, c.end, &t));
	assert_true(slice_eq(t, "a"));
	assert_true(scan_token(&c.p, c.end, &t));
	assert_true(slice_eq(t, "b"));
	assert_false(scan_token(&c.p, c.end, &t));
	cur_free(&c);

	/* only blanks: false, and the cursor moves to end */
	CUR(&c, " \t \r");
	assert_false(scan_token(&c.p, c.end, &t));
	assert_ptr_equal(c.p, c.end);
	cur_free(&c);

	CUR(&c, "");
	assert_false(scan_token(&c.p, c.end, &t));
	cur_free(&c);
}

static void test_skip_space(void **state)
{
	struct cur c;

	(void)state;
	CUR(&c, " \t\rx");
	scan_skip_space(&c.p, c.end);
	/* spaces and tabs only: the CR stays */
	assert_int_equal(used(&c), 2);
	cur_free(&c);
}

static void test_slice_helpers(void **state)
{
	struct slice s, t;
	char buf[4];

	(void)state;
	s = (struct slice){ " \t\r\n MiB \n\r", 11 };
	t = slice_trim(s);
	assert_int_equal(t.n, 3);
	assert_memory_equal(t.p, "MiB", 3);
	t = slice_trim(SLICE_LIT(" \t "));
	assert_int_equal(t.n, 0);
	t = slice_trim(SLICE_LIT("a b"));
	assert_int_equal(t.n, 3);
	t = slice_trim((struct slice){ "", 0 });
	assert_int_equal(t.n, 0);

	assert_true(slice_eq(SLICE_LIT("abc"), "abc"));
	assert_false(slice_eq(SLICE_LIT("abc"), "ab"));
	assert_false(slice_eq(SLICE_LIT("ab"), "abc"));
	assert_true(slice_eq_nocase(SLICE_LIT("MiB"), "mib"));
	assert_false(slice_eq_nocase(SLICE_LIT("MiBs"), "mib"));
	assert_true(slice_starts_with(SLICE_LIT("utilization.gpu"), "utilization"));
	assert_false(slice_starts_with(SLICE_LIT("util"), "utilization"));
	assert_true(slice_starts_with(SLICE_LIT("x"), ""));

	assert_string_equal(slice_copy(buf, sizeof(buf), SLICE_LIT("abcdef")), "abc");
	assert_string_equal(slice_copy(buf, sizeof(buf), SLICE_LIT("ab")), "ab");
	assert_string_equal(slice_copy(buf, 1, SLICE_LIT("ab")), "");
}

static void test_slice_to(void **state)
{
	double d = 3;
	int64_t i = 3;

	(void)state;
	assert_int_equal(slice_to_double(SLICE_LIT("-12.75"), &d), 0);
	assert_true(d == -12.75);
	assert_int_equal(slice_to_double(SLICE_LIT("12.75 "), &d), GL_EPARSE);
	assert_int_equal(slice_to_double(SLICE_LIT("1e400"), &d), GL_ERANGE);
	assert_int_equal(slice_to_double(SLICE_LIT(""), &d), GL_EPARSE);
	assert_int_equal(slice_to_i64(SLICE_LIT("-17"), &i), 0);
	assert_true(i == -17);
	assert_int_equal(slice_to_i64(SLICE_LIT("17x"), &i), GL_EPARSE);
	assert_int_equal(slice_to_i64(SLICE_LIT("1.5"), &i), GL_EPARSE);
	assert_int_equal(slice_to_i64(SLICE_LIT("99999999999999999999"), &i), GL_ERANGE);
	/* a slice that ends inside a longer string sees only its bytes */
	assert_int_equal(slice_to_i64((struct slice){ "4096 MiB", 4 }, &i), 0);
	assert_true(i == 4096);
}

static void test_split(void **state)
{
	struct slice f[3];
	bool over;
	const char *line = "a,,bc";

	(void)state;
	/* "a,,bc": three fields, the middle one empty */
	assert_int_equal(scan_split(line, 5, ',', f, 3, &over), 3);
	assert_false(over);
	assert_int_equal(f[0].n, 1);
	assert_int_equal(f[1].n, 0);
	assert_true(f[2].p == line + 3 && f[2].n == 2);
	/* a cap of 2: two fields and the overflow flag */
	assert_int_equal(scan_split(line, 5, ',', f, 2, &over), 2);
	assert_true(over);
	/* an empty line is one empty field; a trailing separator adds one */
	assert_int_equal(scan_split(line, 0, ',', f, 3, &over), 1);
	assert_int_equal(f[0].n, 0);
	assert_int_equal(scan_split("x,", 2, ',', f, 3, &over), 2);
	assert_int_equal(f[1].n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_u64_respects_end),
		cmocka_unit_test(test_i64),
		cmocka_unit_test(test_double_basic),
		cmocka_unit_test(test_double_exponent_edge),
		cmocka_unit_test(test_double_errors),
		cmocka_unit_test(test_double_many_digits),
		cmocka_unit_test(test_double_tiny),
		cmocka_unit_test(test_prom_float),
		cmocka_unit_test(test_hex),
		cmocka_unit_test(test_fixed_digits),
		cmocka_unit_test(test_token),
		cmocka_unit_test(test_skip_space),
		cmocka_unit_test(test_slice_helpers),
		cmocka_unit_test(test_slice_to),
		cmocka_unit_test(test_split),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
