/* SPDX-License-Identifier: MIT */
/*
 * rocm-smi's process sections (rocm_kfd.c) on the records themselves: the
 * --showpids table paired with --showpidgpus lists in either order, a
 * process on two GPUs, a run's records in GPU order, and the sections
 * read below the concise table by the rocm-smi reader.  The rows are the
 * published ones of tests/formats/rocm-smi-pids/ (ROC-smi issue 60,
 * rocm-systems issue 4405); the lists are --showpidgpus's form.
 */
#include "test.h"

#include "fmt_run.h"

#define BANNER "============================ ROCm System Management Interface ============================"
#define KFD "===================================== KFD Processes ======================================"
#define BYPID "================================== GPUs Indexed by PID ==================================="
#define RULE "=========================================================================================="
#define END "================================== End of ROCm SMI Log ==================================="
#define HEAD "PID     PROCESS NAME    GPU(s)  VRAM USED       SDMA USED       CU OCCUPANCY"
#define ROW "1168514 pt_main_thread  1       177386942464    0               4           "
#define ROW0 "3722222 test_ref        0       0               0               0           "

static size_t procs(const struct batch *b, const struct rec **out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < b->nr; i++)
		if (b->recs[i].kind == REC_PROC && n < cap)
			out[n++] = &b->recs[i];
	return n;
}

static void feed_all(struct run *r, const char *const *lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		feed(r, lines[i]);
}

/* The table, then the list naming its GPU: the process lands there, VRAM kept. */
static void test_table_then_list(void **st)
{
	static const char *const lines[] = {
		BANNER, KFD, "KFD process information:", HEAD, ROW0, ROW, RULE,
		BYPID, "PID 3722222 is using 0 DRM device(s)", "PID 1168514 is using 1 DRM device(s):",
		"3 ", RULE, END,
	};
	const struct rec *p[8];
	struct run r;

	(void)st;
	run_init(&r, "rocm-smi-pids", 0);
	feed_all(&r, lines, sizeof(lines) / sizeof(lines[0]));
	assert_int_equal(procs(&r.b, p, 8), 1);
	assert_int_equal(p[0]->pid, 1168514);
	assert_int_equal(p[0]->gpu_index, 3);
	assert_string_equal(batch_str(&r.b, p[0]->name), "pt_main_thread");
	assert_true(p[0]->present & PF_FB);
	assert_near(p[0]->v[2], 177386942464.0 / 1048576.0, 1e-6);
	assert_int_equal(r.b.bad, 0);
	run_release(&r);
}

/* The list first: the table's row names the process already on its GPU. */
static void test_list_then_table(void **st)
{
	static const char *const lines[] = {
		BANNER, BYPID, "PID 1168514 is using 1 DRM device(s):", "3 ", RULE,
		KFD, "KFD process information:", HEAD, ROW, RULE, END,
	};
	const struct rec *p[8];
	struct run r;

	(void)st;
	run_init(&r, "rocm-smi-pids", 0);
	feed_all(&r, lines, sizeof(lines) / sizeof(lines[0]));
	assert_int_equal(procs(&r.b, p, 8), 1);
	assert_int_equal(p[0]->gpu_index, 3);
	assert_string_equal(batch_str(&r.b, p[0]->name), "pt_main_thread");
	assert_true(p[0]->present & PF_FB);
	run_release(&r);
}

/*
 * A process on two GPUs (rocm-systems issue 4405's llama-server, `details`
 * rows): one record per GPU of its list, and no VRAM (the rows do not say
 * which GPU each is); the run's records in GPU order, so a pid on GPU 0
 * listed after one on GPU 1 stays in the run's one tick.
 */
static void test_two_gpus(void **st)
{
	static const char *const lines[] = {
		BANNER, KFD, "KFD process information:",
		"PID   \tPROCESS NAME\tGPU\tVRAM USED  \tSDMA USED\tCU OCCUPANCY\t",
		"132174\tllama-server\t2  \t15053770752\t0        \t0           \t",
		"132174\tllama-server\t2  \t16869904384\t0        \t0           \t", RULE,
		BYPID, "PID 79301 is using 1 DRM device(s):", "1 ",
		"PID 132174 is using 2 DRM device(s):", "0 ", "1 ",
		"PID 10678 is using 1 DRM device(s):", "0 ", RULE, END,
	};
	const struct rec *p[8];
	struct run r;

	(void)st;
	run_init(&r, "rocm-smi-pids", 0);
	feed_all(&r, lines, sizeof(lines) / sizeof(lines[0]));
	assert_int_equal(procs(&r.b, p, 8), 4);
	assert_int_equal(p[0]->gpu_index, 0);
	assert_int_equal(p[0]->pid, 132174);
	assert_int_equal(p[1]->gpu_index, 0);
	assert_int_equal(p[1]->pid, 10678);
	assert_int_equal(p[2]->gpu_index, 1);
	assert_int_equal(p[3]->gpu_index, 1);
	for (int i = 0; i < 4; i++)
		if (p[i]->pid == 132174)
			assert_false(p[i]->present & PF_FB);
	assert_string_equal(batch_str(&r.b, p[0]->name), "llama-server");
	run_release(&r);
}

/* More indices than "is using K" says: a bad line, where it is. */
static void test_list_too_long(void **st)
{
	static const char *const lines[] = {
		BANNER, BYPID, "PID 10678 is using 1 DRM device(s):", "0 1 ", RULE, END,
	};
	struct run r;

	(void)st;
	run_init(&r, "rocm-smi-pids", 0);
	feed_all(&r, lines, sizeof(lines) / sizeof(lines[0]));
	assert_int_equal(r.b.bad, 1);
	run_release(&r);
}

/* `rocm-smi; rocm-smi --showpids` in one file: the rocm-smi reader takes both. */
static void test_concise_and_pids(void **st)
{
	static const char *const lines[] = {
		"========================= ROCm System Management Interface =========================",
		"=================================== Concise Info ===================================",
		"GPU  Temp (DieEdge)  AvgPwr  SCLK    MCLK     Fan  Perf  PwrCap  VRAM%  GPU%  ",
		"0    50.0c           42.0W   800Mhz  1600Mhz  0%   auto  300.0W    0%   0%    ",
		"====================================================================================",
		"=============================== End of ROCm SMI Log ================================",
		BANNER, KFD, "KFD process information:", HEAD, ROW, RULE, END,
	};
	const struct rec *p[8];
	size_t samples = 0;
	struct run r;

	(void)st;
	run_init(&r, "rocm-smi", 0);
	feed_all(&r, lines, sizeof(lines) / sizeof(lines[0]));
	for (size_t i = 0; i < r.b.nr; i++)
		samples += r.b.recs[i].kind == REC_SAMPLE;
	assert_int_equal(samples, 1);
	assert_int_equal(procs(&r.b, p, 8), 1);
	assert_int_equal(p[0]->pid, 1168514);
	assert_int_equal(p[0]->gpu_index, -1);	/* a count is no index: the report places it */
	assert_int_equal(r.b.bad, 0);
	run_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_then_list),
		cmocka_unit_test(test_list_then_table),
		cmocka_unit_test(test_two_gpus),
		cmocka_unit_test(test_list_too_long),
		cmocka_unit_test(test_concise_and_pids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
