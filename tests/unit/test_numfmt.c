/* SPDX-License-Identifier: MIT */
/* Unit tests for util/numfmt: the one set of rules for numbers people read. */
#include "test.h"

#include <math.h>
#include <string.h>

#include "util/numfmt.h"

static void money_two_decimals_four_under_one(void **state)
{
	char b[64];
	(void)state;
	/* issue 31: "4104.7028 USD" is read as 4104.70 USD */
	assert_string_equal(nf_money(b, sizeof(b), 4104.7028, "USD"), "4104.70 USD");
	assert_string_equal(nf_money(b, sizeof(b), 12.3456, "USD"), "12.35 USD");
	assert_string_equal(nf_money(b, sizeof(b), 1, "EUR"), "1.00 EUR");
	assert_string_equal(nf_money(b, sizeof(b), 0.012345, "USD"), "0.0123 USD");
	assert_string_equal(nf_money(b, sizeof(b), 0.99995, "USD"), "1.00 USD");
	assert_string_equal(nf_money(b, sizeof(b), -3.5, ""), "-3.50");
	assert_string_equal(nf_money(b, sizeof(b), -0.00001, NULL), "0.0000");
	assert_string_equal(nf_money(b, sizeof(b), NAN, "USD"), "n/a");
	assert_string_equal(nf_money(b, sizeof(b), INFINITY, "USD"), "inf");
	assert_int_equal(nf_money_decimals(0.5), 4);
	assert_int_equal(nf_money_decimals(-1), 2);
}

static void shares_as_percent(void **state)
{
	char b[64];
	(void)state;
	/* issue 31: cost printed u* = 0.273097 where report said 27.3 % */
	assert_string_equal(nf_pct(b, sizeof(b), 0.273097, 1), "27.3 %");
	assert_string_equal(nf_pct(b, sizeof(b), 0.109091, 2), "10.91 %");
	assert_string_equal(nf_pct(b, sizeof(b), 1.5, 0), "150 %");
	assert_string_equal(nf_pct(b, sizeof(b), NAN, 1), "n/a");
	assert_string_equal(nf_pct(b, sizeof(b), -0.0001, 1), "0.0 %");
}

static void rates_in_the_unit_that_fits(void **state)
{
	char b[64];
	(void)state;
	/* issue 31: a leak rate of "3775115 MiB/h" */
	assert_string_equal(nf_mib_rate(b, sizeof(b), 3775115.0), "3686.6 GiB/h");
	assert_string_equal(nf_mib_rate(b, sizeof(b), 95.24), "95.2 MiB/h");
	assert_string_equal(nf_mib_rate(b, sizeof(b), 1023.9), "1023.9 MiB/h");
	assert_string_equal(nf_mib_rate(b, sizeof(b), 1023.96), "1.0 GiB/h");
	assert_string_equal(nf_mib_rate(b, sizeof(b), -2048), "-2.0 GiB/h");
	assert_string_equal(nf_mib(b, sizeof(b), 16384), "16.0 GiB");
	assert_string_equal(nf_mib(b, sizeof(b), 812.4), "812 MiB");
	assert_string_equal(nf_mib(b, sizeof(b), 1023.6), "1.0 GiB");
}

static void plain_numbers(void **state)
{
	char b[64];
	(void)state;
	assert_string_equal(nf_num(b, sizeof(b), 2.5, 3), "2.500");
	assert_string_equal(nf_num(b, sizeof(b), -0.0, 1), "0.0");
	assert_string_equal(nf_num(b, sizeof(b), -0.04, 1), "0.0");
	assert_string_equal(nf_num(b, sizeof(b), -0.05001, 1), "-0.1");
	assert_string_equal(nf_num(b, sizeof(b), -INFINITY, 1), "-inf");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(money_two_decimals_four_under_one),
		cmocka_unit_test(shares_as_percent),
		cmocka_unit_test(rates_in_the_unit_that_fits),
		cmocka_unit_test(plain_numbers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
