/* SPDX-License-Identifier: MIT */
/* Unit tests for record/: NVML loading and a sampling loop that never allocates. */
#include "test.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/nvml.h"
#include "record/ralloc.h"
#include "record/recorder.h"
#include "record/sampler.h"
#include "record/sink_csv.h"
#include "util/timeutil.h"

#include "alloc_count.h"

static char lib_full[512], lib_min[512];

static int have_fake(void)
{
	const char *d = getenv("FAKE_NVML_DIR");
	if (!d)
		return 0;
	snprintf(lib_full, sizeof(lib_full), "%s/fake-nvml/libnvidia-ml.so.1", d);
	snprintf(lib_min, sizeof(lib_min), "%s/fake-nvml-min/libnvidia-ml.so.1", d);
	return access(lib_full, R_OK) == 0;
}

static void test_nvml_open_full_and_minimal(void **state)
{
	struct nvml n;
	struct gl_err err = { 0 };
	size_t missing = 0;

	(void)state;
	if (!have_fake())
		skip();
	assert_int_equal(0, nvml_open(&n, lib_full, &err));
	for (size_t i = 0; i < nvml_sym_count(); i++)
		if (!nvml_sym_resolved(&n, i))
			missing++;
	assert_int_equal(0, missing);
	assert_string_equal("GPU is lost", nvml_strerror(&n, NVML_E_GPU_IS_LOST));
	nvml_close(&n);

	assert_int_equal(0, nvml_open(&n, lib_min, &err));
	for (size_t i = 0; i < nvml_sym_count(); i++) {
		const char *r = nvml_sym_resolved(&n, i);
		if (nvml_sym_required(i))
			assert_non_null(r);
		if (!strcmp(nvml_sym_name(i), "nvmlDeviceGetCurrentClocksEventReasons"))
			assert_string_equal("nvmlDeviceGetCurrentClocksThrottleReasons", r);
		if (!strcmp(nvml_sym_name(i), "nvmlDeviceGetMemoryInfo_v2"))
			assert_null(r);
	}
	nvml_close(&n);

	assert_int_equal(GL_EIO, nvml_open(&n, "/nonexistent/libnvidia-ml.so.1", &err));
	assert_non_null(strstr(err.msg, "cannot load NVML"));
	nvml_close(&n);
}

/* After the first tick, sampling and writing allocate nothing. */
static void test_no_allocation_after_first_tick(void **state)
{
	struct nvml n;
	struct gl_err err = { 0 };
	struct sampler *s;
	struct csv_sink sink;
	struct gpu_sample *samples;
	char dir[] = "/tmp/gputally-test-record-XXXXXX";
	uint64_t rec_before;
	unsigned long libc_before = 0;

	(void)state;
	if (!have_fake())
		skip();
	assert_non_null(mkdtemp(dir));
	assert_int_equal(0, nvml_open(&n, lib_full, &err));
	s = sampler_new(&n, NS_PER_MS, &err);
	assert_non_null(s);
	assert_int_equal(2, sampler_ngpus(s));
	samples = rec_calloc(sampler_ngpus(s), sizeof(*samples));
	csv_sink_init(&sink, dir, "alloc", "host", false, 5, sampler_ngpus(s), 4);
	sampler_tick(s, mono_now_ns() + NS_PER_S, samples);
	assert_int_equal(0, csv_sink_tick(&sink, wall_now_ns(), sampler_gpu(s, 0), samples,
					  sampler_ngpus(s), NULL, 0));
	rec_before = record_alloc_count();
#if COUNT_LIBC
	libc_before = alloc_count();
	assert_true(libc_before > 0);	/* the wrapper is really in place */
#endif
	for (int i = 0; i < 200; i++) {
		sampler_tick(s, mono_now_ns() + NS_PER_S, samples);
		assert_int_equal(GST_OK, samples[0].status);
		assert_int_equal(0, csv_sink_tick(&sink, wall_now_ns(), sampler_gpu(s, 0), samples,
						  sampler_ngpus(s), NULL, 0));
		if (i % 8 == 7)
			csv_sink_flush(&sink);	/* never let the queue fill: a drop is -1 */
	}
	csv_sink_flush(&sink);
	assert_int_equal(rec_before, record_alloc_count());
#if COUNT_LIBC
	assert_int_equal(libc_before, alloc_count());
#endif
	(void)libc_before;
	{
		struct csv_sink_stats cs;
		csv_sink_stats(&sink, &cs);
		assert_int_equal(201 * 2, cs.rows_written);
		assert_int_equal(0, cs.write_errors);
		assert_int_equal(0, cs.rows_dropped);
	}
	{
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		csv_sink_close(&sink);
		assert_int_equal(0, system(cmd));
	}
	free(samples);
	assert_true(sampler_free(s));
	nvml_close(&n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvml_open_full_and_minimal),
		cmocka_unit_test(test_no_allocation_after_first_tick),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
