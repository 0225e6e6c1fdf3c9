/* SPDX-License-Identifier: MIT */
/*
 * The JSON tokenizer's fast paths (util/json.c), each against a slower way
 * to the same answer: json_num_scaled()'s no-exponent path against the same
 * number written with "e0" (which takes the general loop), and the string
 * scan's sixteen-byte blocks against what a byte at each offset must give.
 */
#include <stdio.h>
#include <string.h>

#include "test.h"

#include "util/json.h"

static void test_num_fast(void **state)
{
	uint64_t x = 99;
	char a[64], b[64];
	unsigned inexact = 0, tried = 0;

	(void)state;
	for (int round = 0; round < 200000; round++) {
		size_t ni = 1 + test_xorshift(&x) % 19, nf = test_xorshift(&x) % 8, o = 0;
		int scale = (int)(test_xorshift(&x) % 7);
		if (test_xorshift(&x) % 3 == 0)
			a[o++] = '-';
		for (size_t i = 0; i < ni; i++) {
			uint64_t r = test_xorshift(&x);
			/* leading zeros, runs of 9 and 0 around the rounding digit */
			a[o++] = (char)('0' + (r % 4 == 0 ? 0 : r % 4 == 1 ? 9 : r % 10));
		}
		if (nf) {
			a[o++] = '.';
			for (size_t i = 0; i < nf; i++) {
				uint64_t r = test_xorshift(&x);
				a[o++] = (char)('0' + (r % 3 == 0 ? 0 : r % 3 == 1 ? 5 : r % 10));
			}
		}
		a[o] = 0;
		snprintf(b, sizeof(b), "%se0", a);
		int64_t va = 0, vb = 0;
		int ra = json_num_scaled((struct slice){ a, strlen(a) }, scale, &va);
		int rb = json_num_scaled((struct slice){ b, strlen(b) }, scale, &vb);
		if (ra != rb || (ra >= 0 && va != vb))
			fail_msg("'%s' scale %d: %d %lld, with e0: %d %lld", a, scale, ra, (long long)va, rb,
				 (long long)vb);
		inexact += ra == 1;
		tried++;
	}
	assert_true(inexact > 1000 && tried - inexact > 1000);
}

/* Lex "<body>" (n bytes of body) as one value: the token, and where. */
static enum json_tok lex_str(const char *body, size_t n, struct json_lex *lx, char *buf)
{
	buf[0] = '"';
	memcpy(buf + 1, body, n);
	buf[n + 1] = '"';
	json_lex_init(lx, buf, buf + n + 2, true);
	return json_next(lx);
}

static void test_string_blocks(void **state)
{
	char body[80], buf[96];
	struct json_lex lx;

	(void)state;
	for (size_t n = 1; n <= 70; n++) {
		for (size_t at = 0; at < n; at++) {
			memset(body, 'a', n);
			/* plain */
			assert_int_equal(lex_str(body, n, &lx, buf), JT_STR);
			assert_int_equal(lx.tok.n, n);
			assert_false(lx.tok_esc);
			/* a control byte at `at`: an error there */
			body[at] = '\x1f';
			assert_int_equal(lex_str(body, n, &lx, buf), JT_ERR);
			assert_ptr_equal(lx.p, buf + 1 + at);
			/* a quote at `at`: the string ends there */
			body[at] = '"';
			assert_int_equal(lex_str(body, n, &lx, buf), JT_STR);
			assert_int_equal(lx.tok.n, at);
			/* an escape at `at` (a second byte when there is room) */
			if (at + 1 < n) {
				body[at] = '\\';
				body[at + 1] = 'n';
				assert_int_equal(lex_str(body, n, &lx, buf), JT_STR);
				assert_int_equal(lx.tok.n, n);
				assert_true(lx.tok_esc);
				/* é in UTF-8, then a byte that is not UTF-8 */
				body[at] = '\xc3';
				body[at + 1] = '\xa9';
				assert_int_equal(lex_str(body, n, &lx, buf), JT_STR);
				assert_int_equal(lx.tok.n, n);
				assert_false(lx.tok_esc);
				body[at] = '\xff';
				assert_int_equal(lex_str(body, n, &lx, buf), JT_ERR);
				assert_ptr_equal(lx.p, buf + 1 + at);
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_num_fast),
		cmocka_unit_test(test_string_blocks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
