/* SPDX-License-Identifier: MIT */
/* Unit tests for util/termsafe: what reaches a terminal from a log. */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/termsafe.h"

/* Write the pieces through term_safe() into a memory stream; the bytes out. */
static char *through(const char *const *pieces, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	FILE *f;

	assert_non_null(mem);
	f = term_safe(mem);
	assert_ptr_not_equal(f, mem);
	for (size_t i = 0; i < n; i++) {
		fputs(pieces[i], f);
		fflush(f);	/* each piece its own write: leads cut across them */
	}
	assert_int_equal(fclose(f), 0);	/* closes mem too */
	return buf;
}

static void test_controls_escaped(void **state)
{
	/* the names: a retitle (OSC ... BEL) and a colour (CSI) */
	const char *in[] = { "py\033]0;pwned\007\033[31mthon\tok\n", "a\rb\x7f" "c\001\n" };
	char *out = through(in, 2);

	(void)state;
	assert_string_equal(out, "py\\x1b]0;pwned\\x07\\x1b[31mthon\tok\na\\x0db\\x7fc\\x01\n");
	free(out);
}

static void test_utf8_kept_c1_escaped(void **state)
{
	/* é and µ (lead 0xC2, not a C1) pass; U+009B (CSI as one character)
	 * does not, also when its two bytes come in two writes */
	const char *in[] = { "caf\xc3\xa9 5\xc2\xb5s ", "x\xc2", "\x9b" "31m", "\xc2" };
	char *out = through(in, 4);

	(void)state;
	assert_string_equal(out, "caf\xc3\xa9 5\xc2\xb5s x\\xc2\\x9b31m\xc2");
	free(out);
}

static void test_str(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(term_safe_str(buf, sizeof(buf), "a\033[2Jb"), "a\\x1b[2Jb");
	assert_string_equal(term_safe_str(buf, sizeof(buf), "plain"), "plain");
	/* cut at the buffer, never inside an escape */
	assert_string_equal(term_safe_str(buf, 8, "ab\033\033"), "ab\\x1b");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_controls_escaped),
		cmocka_unit_test(test_utf8_kept_c1_escaped),
		cmocka_unit_test(test_str),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
