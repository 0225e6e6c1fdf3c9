/* SPDX-License-Identifier: MIT */
/* Unit tests for cost/prices: the built-in price table, matching GPU names, bad tables, ages. */
#include "test.h"

#include <string.h>

#include "cost/prices.h"
#include "util/err.h"
#include "util/timeutil.h"

static const char *model_of(const char *name)
{
	const struct price_row *r = prices_match(prices_builtin(), name);
	return r ? r->model : "(none)";
}

static void builtin_table_parses_with_sources(void **state)
{
	const struct price_table *t = prices_builtin();
	const struct gl_err *e = prices_builtin_err();
	(void)state;
	if (e->code)
		fail_msg("%s:%llu:%u: %s", e->src, (unsigned long long)e->line, (unsigned)e->col, e->msg);
	assert_true(t->nrows >= 13);
	assert_string_equal(t->currency, "USD");
	assert_true(t->electricity.value > 0 && t->electricity.source[0] && t->electricity.date[0]);
	assert_true(t->grid.value > 0 && t->grid.source[0] && t->grid.date[0]);
	for (size_t i = 0; i < t->nrows; i++) {
		const struct price_row *r = &t->rows[i];
		assert_true(r->purchase.value > 0 && r->purchase.source[0] && r->purchase.date[0]);
		assert_true(r->power.value > 0 && r->power.source[0]);
		assert_true(r->cloud.value > 0 && r->cloud.source[0] && r->cloud.date[0]);
	}
}

/* names as nvidia-smi, NVML and rocm-smi print them */
static void names_pick_the_right_row(void **state)
{
	(void)state;
	assert_string_equal(model_of("NVIDIA H200"), "H200");
	assert_string_equal(model_of("NVIDIAH200"), "H200");	/* gpu_monitor's spelling */
	assert_string_equal(model_of("NVIDIAH100"), "H100");
	assert_string_equal(model_of("NVIDIA H100 80GB HBM3"), "H100");
	assert_string_equal(model_of("NVIDIA H100 PCIe"), "H100 PCIe");
	assert_string_equal(model_of("NVIDIA A100-SXM4-80GB"), "A100 80GB");
	assert_string_equal(model_of("NVIDIA A100 80GB PCIe"), "A100 80GB");
	assert_string_equal(model_of("NVIDIA A100-PCIE-40GB"), "A100 40GB");
	assert_string_equal(model_of("NVIDIA A100-SXM4-40GB"), "A100 40GB");
	assert_string_equal(model_of("NVIDIA L4"), "L4");
	assert_string_equal(model_of("NVIDIA L40S"), "L40S");
	assert_string_equal(model_of("NVIDIA A10"), "A10");
	assert_string_equal(model_of("NVIDIA A10G"), "A10");
	assert_string_equal(model_of("NVIDIA GeForce RTX 4060 Laptop GPU"), "RTX 4060 Laptop");
	assert_string_equal(model_of("NVIDIA GeForce RTX 4090"), "RTX 4090");
	assert_string_equal(model_of("AMD Instinct MI300X"), "MI300X");
	assert_string_equal(model_of("AMD Instinct MI250X/MI250"), "MI250X");
	assert_string_equal(model_of("AMD Instinct MI210"), "MI210");
	/* not in the table: no guess from a part of a word */
	assert_string_equal(model_of("Tesla T4"), "(none)");
	assert_string_equal(model_of("NVIDIA GeForce RTX 4060 Ti"), "(none)");
	assert_string_equal(model_of("NVIDIA A1000"), "(none)");
	assert_string_equal(model_of("XNVIDIAH200"), "(none)");
	assert_string_equal(model_of(""), "(none)");
}

static void bad_tables_say_where(void **state)
{
	struct price_table t = { 0 };
	struct gl_err e;
	(void)state;
	assert_int_equal(prices_parse(&t, "# c\nsite,currency,USD,x,2026-01\nwhat,1\n", "p.csv", &e), GL_EPARSE);
	assert_int_equal(e.line, 3);
	assert_int_equal(e.col, 1);
	assert_int_equal(prices_parse(&t, "site,electricity_price,abc,src,2026-01\n", "p.csv", &e), GL_EPARSE);
	assert_int_equal(e.line, 1);
	assert_int_equal(e.col, 24);
	assert_non_null(strstr(e.msg, "expected a number"));
	assert_int_equal(prices_parse(&t, "site,grid_gco2_per_kwh,300,,2026-01\n", "p.csv", &e), GL_EPARSE);
	assert_non_null(strstr(e.msg, "source"));
	assert_int_equal(prices_parse(&t, "gpu,X,X,1,s,2026-13,1,s,1,s,2026-01\n", "p.csv", &e), GL_EPARSE);
	assert_int_equal(e.col, 13);
	assert_int_equal(prices_parse(&t, "gpu,X,X,1,s,2026-01,1,s,1,s\n", "p.csv", &e), GL_EPARSE);
	assert_non_null(strstr(e.msg, "11 fields"));
	assert_int_equal(t.nrows, 0);
	assert_int_equal(prices_parse(&t, "gpu,X,X,1,s,2026-01,1,s,2.5,s,2026-02\r\n", "p.csv", &e), 0);
	assert_int_equal(t.nrows, 1);
	assert_near(t.rows[0].cloud.value, 2.5, 0);
	assert_string_equal(t.rows[0].cloud.date, "2026-02");
	prices_free(&t);
}

static void ages_in_months(void **state)
{
	int64_t t = days_from_civil(2026, 11, 29) * NS_PER_DAY;
	(void)state;
	assert_int_equal(prices_age_months("2026-11", t), 0);
	assert_int_equal(prices_age_months("2025-11", t), 12);
	assert_int_equal(prices_age_months("2025-10", t), 13);
	assert_int_equal(prices_age_months("2022-10", t), 49);
	assert_int_equal(prices_age_months("", t), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(builtin_table_parses_with_sources),
		cmocka_unit_test(names_pick_the_right_row),
		cmocka_unit_test(bad_tables_say_where),
		cmocka_unit_test(ages_in_months),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
