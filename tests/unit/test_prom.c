/* SPDX-License-Identifier: MIT */
/* Unit tests for formats/prom_names and the URL redaction of formats/prom_remote. */
#include "test.h"

#include <math.h>
#include <string.h>

#include "formats/prom_names.h"
#include "formats/prom_remote.h"

static void test_redact(void **st)
{
	char out[128];
	(void)st;
	prom_redact_url("http://bob:s3cret@prom.example:9090/x", out, sizeof(out));
	assert_string_equal(out, "http://***@prom.example:9090/x");
	prom_redact_url("https://tok@prom.example", out, sizeof(out));
	assert_string_equal(out, "https://***@prom.example");
	/* an @ in the path or query is not a credential */
	prom_redact_url("http://prom.example/a@b?q=c@d", out, sizeof(out));
	assert_string_equal(out, "http://prom.example/a@b?q=c@d");
	prom_redact_url("http://127.0.0.1:9090", out, sizeof(out));
	assert_string_equal(out, "http://127.0.0.1:9090");
}

static void test_names(void **st)
{
	const struct prom_name *gr = prom_name_find("DCGM_FI_PROF_GR_ENGINE_ACTIVE");
	const struct prom_name *sm = prom_name_find("DCGM_FI_PROF_SM_ACTIVE");
	const struct prom_name *ut = prom_name_find("DCGM_FI_DEV_GPU_UTIL");
	const struct prom_name *en = prom_name_find("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION");
	const struct prom_name *nv = prom_name_find("nvidia_smi_utilization_gpu_ratio");
	(void)st;
	assert_non_null(gr);
	assert_non_null(sm);
	assert_non_null(ut);
	assert_non_null(en);
	assert_non_null(nv);
	assert_null(prom_name_find("DCGM_FI_DEV_GPU_UTI"));
	/* profiling activity outranks GPU_UTIL for busy */
	assert_int_equal(gr->metric, M_UTIL_GPU);
	assert_true(gr->prio > sm->prio && sm->prio > ut->prio);
	/* a ratio of 0.35 is 35 %, 123456 mJ is 123.456 J */
	assert_near(0.35 * gr->scale, 35.0, 1e-9);
	assert_near(123456 * en->scale, 123.456, 1e-9);
	assert_near(0.5 * nv->scale, 50.0, 1e-9);
	/* DCGM's int32 blank (0x7ffffff0) is no reading; 100 % is */
	assert_true(prom_name_blank(ut, 2147483632.0));
	assert_false(prom_name_blank(ut, 100.0));
	/* every name once */
	for (size_t i = 0; i < prom_names_count; i++)
		for (size_t j = i + 1; j < prom_names_count; j++)
			assert_true(strcmp(prom_names[i].name, prom_names[j].name) != 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_redact),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
