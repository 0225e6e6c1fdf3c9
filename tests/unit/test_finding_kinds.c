/* SPDX-License-Identifier: MIT */
/* The table of finding kinds (analysis/finding_kinds.def, model.c). */
#include "test.h"

#include <string.h>

#include "analysis/model.h"

/* Every kind has a name, names are unique and sorted, and each name leads
 * back to its kind; an unknown name is FK_NONE. */
static void test_names_round_trip(void **state)
{
	(void)state;
	assert_null(finding_kind_name[FK_NONE]);
	for (int k = 1; k < FK__COUNT; k++) {
		assert_non_null(finding_kind_name[k]);
		assert_int_equal(finding_kind_of(finding_kind_name[k]), k);
		if (k > 1 && strcmp(finding_kind_name[k - 1], finding_kind_name[k]) >= 0)
			fail_msg("finding_kinds.def: \"%s\" before \"%s\": keep the table sorted by name",
				 finding_kind_name[k - 1], finding_kind_name[k]);
	}
	assert_int_equal(finding_kind_of("no_such_kind"), FK_NONE);
	assert_int_equal(finding_kind_of("memory_leak"), FK_MEMORY_LEAK);
}

/* The kinds that always appear: the eleven the report has always kept
 * (leaks, down time, Xids and other errors, throttling, imbalance). */
static void test_always(void **state)
{
	static const char *const always[] = { "memory_leak", "memory_leak_sawtooth", "gpu_down", "gpu_lost",
					      "reset_required", "xid_error", "hw_errors_repeated", "error_row",
					      "tool_error", "throttling", "imbalance" };
	int n = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++)
		if (!finding_always(always[i]))
			fail_msg("%s should always appear", always[i]);
	for (int k = 1; k < FK__COUNT; k++)
		n += finding_always(finding_kind_name[k]);
	assert_int_equal(n, (int)(sizeof(always) / sizeof(always[0])));
	assert_false(finding_always("held_idle"));
	assert_false(finding_always("no_such_kind"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_round_trip),
		cmocka_unit_test(test_always),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
