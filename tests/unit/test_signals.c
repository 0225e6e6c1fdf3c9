/* SPDX-License-Identifier: MIT */
/*
 * Article 000's signals (F001-F012 in docs sources.md) that gputally
 * computes, each fed by hand-built samples with the expected numbers
 * worked by hand in the comments.
 */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "sample_rec.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

#define T0_S INT64_C(1800000000)

static struct batch no_strs;
static const char src_q[] = "query.csv";

struct smp {
	double util, power, mem, temp, clock;
	int gen, width, gen_max, width_max;	/* 0: not logged */
	double reserved, total;			/* 0: not logged */
};

static void feed(struct analysis *an, int64_t t_s, int gpu, const struct smp *s)
{
	struct rec r = sample_rec((T0_S + t_s) * NS_PER_S, gpu);

	r.present = 1u << M_UTIL_GPU | 1u << M_POWER | 1u << M_MEM_USED;
	r.v[M_UTIL_GPU] = s->util;
	r.v[M_POWER] = s->power;
	r.v[M_MEM_USED] = s->mem;
	if (s->temp > 0) {
		r.present |= 1u << M_TEMP;
		r.v[M_TEMP] = s->temp;
	}
	if (s->clock > 0) {
		r.present |= 1u << M_SM_CLOCK;
		r.v[M_SM_CLOCK] = s->clock;
	}
	if (s->gen) {
		r.present |= 1u << M_PCIE_GEN | 1u << M_PCIE_GEN_MAX | 1u << M_PCIE_WIDTH |
			     1u << M_PCIE_WIDTH_MAX;
		r.v[M_PCIE_GEN] = s->gen;
		r.v[M_PCIE_WIDTH] = s->width;
		r.v[M_PCIE_GEN_MAX] = s->gen_max;
		r.v[M_PCIE_WIDTH_MAX] = s->width_max;
	}
	if (s->total > 0) {
		r.present |= 1u << M_MEM_TOTAL | 1u << M_MEM_RESERVED;
		r.v[M_MEM_TOTAL] = s->total;
		r.v[M_MEM_RESERVED] = s->reserved;
	}
	analysis_add(an, &r, &no_strs, src_q);
}

static struct analysis *new_an(void)
{
	struct analysis *an = xcalloc(1, sizeof(*an));

	analysis_init(an, NULL);
	return an;
}

static void release(struct analysis *an)
{
	analysis_release(an);
	free(an);
}

static size_t count_kind(const struct analysis *an, const char *kind, int gpu)
{
	size_t n = 0;

	for (size_t i = 0; i < an->nfinds; i++)
		n += (gpu < 0 || an->finds[i].gpu == gpu) && !strcmp(an->finds[i].kind, kind);
	return n;
}

static const struct finding *find_kind(const struct analysis *an, const char *kind, int gpu)
{
	for (size_t i = 0; i < an->nfinds; i++)
		if (an->finds[i].gpu == gpu && !strcmp(an->finds[i].kind, kind))
			return &an->finds[i];
	fail_msg("no %s on GPU %d", kind, gpu);
	return NULL;
}

/*
 * F007.  Four GPUs, 1 s samples: 100 s busy (util 90 %), then 100 s idle
 * (util 0 %) with the link dropped to gen 1, as an idle GPU does.
 *   GPU 0: gen 4 x8 of gen 5 x16 under load: 1.969 x 8 = 15.752 GB/s of
 *          3.938 x 16 = 63.008 GB/s = 25.0 %, 47.256 GB/s lost -> finding,
 *          value 25, 100 s.
 *   GPU 1: gen 5 x16 of gen 5 x16 under load -> nothing (the idle gen 1
 *          is not judged).
 *   GPU 2: gen 5 x14 of x16: 14/16 = 87.5 % >= 85 % -> nothing.
 *   GPU 3: gen 3 x16 of gen 4 x16: 0.985/1.969 = 50.03 % -> finding.
 */
static void test_pcie_link(void **state)
{
	static const int link[4][4] = { { 4, 8, 5, 16 }, { 5, 16, 5, 16 }, { 5, 14, 5, 16 }, { 3, 16, 4, 16 } };
	struct analysis *an = new_an();
	const struct finding *f;

	(void)state;
	for (int64_t t = 0; t < 200; t++)
		for (int g = 0; g < 4; g++) {
			struct smp s = { .util = t < 100 ? 90 : 0, .power = t < 100 ? 500 : 80, .mem = 20000,
					 .gen = t < 100 ? link[g][0] : 1, .width = link[g][1],
					 .gen_max = link[g][2], .width_max = link[g][3] };
			feed(an, t, g, &s);
		}
	analysis_finish(an);
	assert_int_equal(count_kind(an, "pcie_link_degraded", -1), 2);
	f = find_kind(an, "pcie_link_degraded", 0);
	assert_near(f->value, 25.0, 1e-9);
	assert_near(f->total_s, 100.0, 1e-9);
	assert_int_equal(f->severity, SEV_WARNING);
	assert_non_null(strstr(f->message, "gen 4 x8 of gen 5 x16"));
	assert_non_null(strstr(f->message, "15.8 of 63.0 GB/s"));
	assert_non_null(strstr(f->message, "47.3 GB/s lost"));
	f = find_kind(an, "pcie_link_degraded", 3);
	assert_near(f->value, 100 * 0.985 / 1.969, 1e-9);
	release(an);
}

/*
 * F004.  Four GPUs, 60 s at util 50 %:
 *   GPU 0: the capture's H200, 616 of 143771 MiB = 0.428 % -> nothing.
 *   GPU 1: the article's laptop, 110 of 8000 MiB = 1.375 % -> nothing
 *          (below its own 1.5 % threshold).
 *   GPU 2: 160 of 8188 MiB = 1.954 % -> a finding, value 1.95408.
 *   GPU 3: 120 of 8000 MiB = 1.5 % exactly -> nothing (above, not at).
 */
static void test_mem_reserved(void **state)
{
	static const double rt[4][2] = { { 616, 143771 }, { 110, 8000 }, { 160, 8188 }, { 120, 8000 } };
	struct analysis *an = new_an();
	const struct finding *f;

	(void)state;
	for (int64_t t = 0; t < 60; t++)
		for (int g = 0; g < 4; g++) {
			struct smp s = { .util = 50, .power = 300, .mem = 2000, .reserved = rt[g][0],
					 .total = rt[g][1] };
			feed(an, t, g, &s);
		}
	analysis_finish(an);
	assert_int_equal(count_kind(an, "mem_reserved", -1), 1);
	f = find_kind(an, "mem_reserved", 2);
	assert_near(f->value, 100 * 160.0 / 8188, 1e-9);
	assert_int_equal(f->severity, SEV_INFO);
	assert_non_null(strstr(f->message, "160 of 8188 MiB, 1.95 %"));
	release(an);
}

/* A kernel event of input src: no GPU named, count lines folded into it. */
static void kevent(struct analysis *an, int64_t t_s, int ev, uint32_t count, const char *src)
{
	static char buf[64];
	struct batch b;
	struct rec r;

	memset(&b, 0, sizeof(b));
	snprintf(buf, sizeof(buf), "NVRM: a kernel line");
	b.strs = buf;
	b.strs_len = strlen(buf) + 1;
	memset(&r, 0, sizeof(r));
	r.kind = REC_EVENT;
	r.time_kind = TK_ABS;
	r.t_ns = (T0_S + t_s) * NS_PER_S;
	r.ev = (uint8_t)ev;
	r.gpu_index = -1;
	r.uuid = STR_NONE;
	r.name = 0;
	r.line = (uint64_t)t_s;
	r.kev.code = ev == EV_XID ? 31 : -1;
	r.kev.pci = r.kev.proc = r.kev.text = STR_NONE;
	r.kev.count = count;
	r.kev.klass = ev == EV_XID ? KC_APP : KC_SYSTEM;	/* host events name no GPU */
	r.kev.severity = ev == EV_XID ? KS_ERROR : KS_INFO;
	analysis_add(an, &r, &b, src);
}

/*
 * F009.  One GPU sampled every minute for exactly one day (1 GPU-day) and
 * three kernel logs:
 *   kern.log, 2500000 bytes: an Xid burst of 4 lines and 5 single Xids
 *     (9 lines) and a container start (not an error): 9 / 2.5 MB = 3.6
 *     per MB > 3.2 -> a finding, value 3.6, 9.0 per GPU-day.
 *   old.log, 5000000 bytes: 16 Xid lines = 3.2 per MB, not above -> none.
 *   tiny.log, 4000 bytes: 1 Xid = 250 per MB, but under 1 MB -> none.
 */
static void test_kernel_errors(void **state)
{
	struct analysis *an = new_an();
	const struct finding *f = NULL;

	(void)state;
	for (int64_t t = 0; t <= 86400; t += 60) {
		struct smp s = { .util = 30, .power = 200, .mem = 1000 };
		feed(an, t, 0, &s);
		if (t == 600)
			kevent(an, t, EV_XID, 4, "logs/kern.log");
		if (t >= 1200 && t < 1500)
			kevent(an, t, EV_XID, 1, "logs/kern.log");
		if (t == 1500)
			kevent(an, t, EV_CONTAINER_START, 1, "logs/kern.log");
		if (t >= 3000 && t < 3000 + 16 * 60)
			kevent(an, t, EV_XID, 1, "logs/old.log");
		if (t == 5000 * 60 / 60)
			kevent(an, t, EV_XID, 1, "logs/tiny.log");
	}
	analysis_input_size(an, "logs/kern.log", 2500000);
	analysis_input_size(an, "logs/old.log", 5000000);
	analysis_input_size(an, "logs/tiny.log", 4000);
	analysis_input_size(an, "logs/never-seen.log", 100);
	analysis_finish(an);
	assert_int_equal(count_kind(an, "kernel_error_density", -1), 1);
	for (size_t i = 0; i < an->nfinds; i++)
		if (!strcmp(an->finds[i].kind, "kernel_error_density"))
			f = &an->finds[i];
	assert_non_null(f);
	assert_int_equal(f->gpu, -1);
	assert_near(f->value, 3.6, 1e-9);
	assert_non_null(strstr(f->message, "kern.log has 3.6 kernel error lines per MB"));
	assert_non_null(strstr(f->message, "9 in 2.50 MB, 9.0 per GPU-day over 1 GPU-days"));
	release(an);
}

/*
 * F001.  1 s samples, memory 60000 MiB held throughout.
 *   GPU 0, hot: util 95 %, 650 W, 1980 MHz, warming from 70 C by 0.125 C/s
 *     to 85 C at t = 120; then util 75 %, 640 W, 1700 MHz, 85 C for a
 *     minute; then back to 95 %.  At t = 120..124 the reading 5 s before
 *     is 95 %: (95 - 75) / 95 = 21.05 % > 15 %, 85 C > 78 C, 640 >= 0.8 x
 *     650 W -> one stretch of 5 s, value 21.05.  From t = 125 both ends
 *     read 75 %: no decay.
 *   GPU 1: the same numbers at 55 C -> nothing (not hot).
 *   GPU 2, hot at 85 C, three phase changes that are not throttling:
 *     95 % -> 60 % with power 650 -> 300 W at 1980 MHz (less work, t 60);
 *     95 % -> 40 % with memory freed to 1000 MiB (t 120);
 *     95 % -> 0 % (the job ends, t 180) -> nothing.
 */
static void test_util_decay(void **state)
{
	struct analysis *an = new_an();
	const struct finding *f;

	(void)state;
	for (int64_t t = 0; t < 240; t++) {
		bool dip = t >= 120 && t < 180;
		struct smp h = { .util = dip ? 75 : 95, .power = dip ? 640 : 650, .clock = dip ? 1700 : 1980,
				 .mem = 60000, .temp = t < 120 ? 70 + 0.125 * (double)t : 85 };
		struct smp c = h, p = { .util = 95, .power = 650, .clock = 1980, .mem = 60000, .temp = 85 };
		c.temp = 55;
		if (t % 60 >= 30)
			p = (struct smp){ .util = 95, .power = 650, .clock = 1980, .mem = 60000, .temp = 85 };
		else if (t >= 60 && t < 120)
			p = (struct smp){ .util = 60, .power = 300, .clock = 1980, .mem = 60000, .temp = 85 };
		else if (t >= 120 && t < 180)
			p = (struct smp){ .util = 40, .power = 600, .clock = 1980, .mem = 1000, .temp = 85 };
		else if (t >= 180)
			p = (struct smp){ .util = 0, .power = 120, .clock = 1980, .mem = 60000, .temp = 85 };
		feed(an, t, 0, &h);
		feed(an, t, 1, &c);
		feed(an, t, 2, &p);
	}
	analysis_finish(an);
	assert_int_equal(count_kind(an, "thermal_util_decay", -1), 1);
	f = find_kind(an, "thermal_util_decay", 0);
	assert_near(f->value, 100 * 20.0 / 95, 1e-9);
	assert_near(f->total_s, 5.0, 1e-9);
	assert_int_equal(f->t0_ns, (T0_S + 120) * NS_PER_S);
	assert_non_null(strstr(f->message, "95 -> 75 % at 85 C, the SM clock 1980 -> 1700 MHz"));
	release(an);
}

/*
 * F005.  One GPU sampled every second from t = 0 to 599, with no samples
 * in [100, 110) (the logger restarting after AC power went off at 100)
 * and in [400, 470) (a suspend at 400, resumed at 460); AC power back
 * on at 300 with no gap.  Lost GPU time, measured (gap and down time):
 *   AC off at 100: the gap [100, 110) = 10 s (its minute, [100, 160));
 *   AC on at 300: 0 s;
 *   the suspend: [400, 470) = 70 s, inside [400, 460 + 60).
 * -> one power_events finding, a summary of 2 entries, 80 GPU-seconds,
 * the longest (the suspend, 70 s) first.
 */
static void test_power_lost(void **state)
{
	struct analysis *an = new_an();
	const struct finding *f = NULL;

	(void)state;
	for (int64_t t = 0; t < 600; t++) {
		struct smp s = { .util = 60, .power = 250, .mem = 3000 };
		if (t == 100)
			kevent(an, t, EV_AC_OFF, 1, "logs/acpid.log");
		if (t == 300)
			kevent(an, t, EV_AC_ON, 1, "logs/acpid.log");
		if (t == 400)
			kevent(an, t, EV_SUSPEND, 1, "logs/acpid.log");
		if (t == 460)
			kevent(an, t, EV_RESUME, 1, "logs/acpid.log");
		if ((t >= 100 && t < 110) || (t >= 400 && t < 470))
			continue;
		feed(an, t, 0, &s);
	}
	analysis_finish(an);
	assert_near(an->pw.ac_lost_s, 10, 1e-9);
	assert_near(an->pw.gpu_lost_s, 70, 1e-9);
	assert_int_equal(an->pw.nac, 2);
	assert_near(an->pw.ac[0].gpu_lost_s, 10, 1e-9);
	assert_near(an->pw.ac[1].gpu_lost_s, 0, 1e-9);
	for (size_t i = 0; i < an->nfinds; i++)
		if (!strcmp(an->finds[i].kind, "power_events"))
			f = &an->finds[i];
	assert_non_null(f);
	assert_int_equal(f->nstretch, 2);
	assert_near(f->total_s, 80, 1e-9);
	assert_int_equal(f->severity, SEV_WARNING);
	assert_int_equal(f->detail[0].t0_ns, (T0_S + 400) * NS_PER_S);
	assert_int_equal(f->detail[0].t1_ns - f->detail[0].t0_ns, 70 * NS_PER_S);
	assert_int_equal(f->detail[1].t0_ns, (T0_S + 100) * NS_PER_S);
	assert_non_null(strstr(f->message, "the GPUs lost 1m10s around the suspends and 10s around the AC switches"));
	release(an);
}

/* A trace record of file src: kind, start (ms from T0), duration (ms), name. */
static void trace_rec(struct analysis *an, const char *src, int ev, double t_ms, double dur_ms, const char *name)
{
	static char buf[96];
	struct batch b;
	struct rec r;

	memset(&b, 0, sizeof(b));
	snprintf(buf, sizeof(buf), "%s", name);
	b.strs = buf;
	b.strs_len = strlen(buf) + 1;
	memset(&r, 0, sizeof(r));
	r.kind = REC_TRACE;
	r.time_kind = TK_ABS;
	r.ev = (uint8_t)ev;
	r.t_ns = T0_S * NS_PER_S + (int64_t)(t_ms * 1e6);
	r.tr.dur_ns = (int64_t)(dur_ms * 1e6);
	r.tr.corr = -1;
	r.tr.stream = ev <= TR_MEMSET ? 7 : -1;
	r.pid = -1;
	r.gpu_index = ev <= TR_MEMSET ? 0 : -1;
	r.uuid = STR_NONE;
	r.name = 0;
	analysis_add(an, &r, &b, src);
}

static const struct finding *find_in(const struct analysis *an, const char *kind, const char *text)
{
	for (size_t i = 0; i < an->nfinds; i++)
		if (!strcmp(an->finds[i].kind, kind) && strstr(an->finds[i].message, text))
			return &an->finds[i];
	return NULL;
}

/*
 * F006.  a.json: cuDevicePrimaryCtxRetain 240 ms and cuCtxCreate_v2
 * 20 ms: mean (240 + 20) / 2 = 130 ms > 15 ms -> a finding, value 130.
 * b.json: cuCtxCreate_v2 12 ms and cuDevicePrimaryCtxRetain 18 ms, mean
 * 15 ms exactly, and a 500 ms cudaLaunchKernel (not a context) -> none.
 */
static void test_ctx_create(void **state)
{
	struct analysis *an = new_an();
	const struct finding *f;

	(void)state;
	trace_rec(an, "t/a.json", TR_RUNTIME, 0, 240, "cuDevicePrimaryCtxRetain");
	trace_rec(an, "t/a.json", TR_RUNTIME, 300, 20, "cuCtxCreate_v2");
	trace_rec(an, "t/a.json", TR_KERNEL, 400, 1, "gemm");
	trace_rec(an, "t/b.json", TR_RUNTIME, 0, 12, "cuCtxCreate_v2");
	trace_rec(an, "t/b.json", TR_RUNTIME, 100, 18, "cuDevicePrimaryCtxRetain");
	trace_rec(an, "t/b.json", TR_RUNTIME, 200, 500, "cudaLaunchKernel");
	trace_rec(an, "t/b.json", TR_KERNEL, 800, 1, "gemm");
	analysis_finish(an);
	assert_int_equal(count_kind(an, "ctx_create_slow", -1), 1);
	f = find_in(an, "ctx_create_slow", "in a.json (2 calls, the longest 240.0 ms");
	assert_non_null(f);
	assert_near(f->value, 130, 1e-9);
	assert_non_null(strstr(f->message, "took 130.0 ms on average"));
	release(an);
}

/*
 * F011.  c.json: the profiler's window ("Trace") 1000 ms from 0, overhead
 * events of 100 and 60 ms: 160 / 1000 = 16 % > 15 % -> a finding, value
 * 16.  d.json: no window, events from 0 (a kernel) to 2000 ms (a call's
 * end), 300 ms of overhead: 300 / 2000 = 15 % exactly -> none.
 */
static void test_profiler_overhead(void **state)
{
	struct analysis *an = new_an();
	const struct finding *f;

	(void)state;
	trace_rec(an, "t/c.json", TR_WINDOW, 0, 1000, "PyTorch Profiler (0)");
	trace_rec(an, "t/c.json", TR_KERNEL, 10, 5, "gemm");
	trace_rec(an, "t/c.json", TR_OVERHEAD, 100, 100, "Activity Buffer Request");
	trace_rec(an, "t/c.json", TR_OVERHEAD, 900, 60, "Buffer Flush");
	trace_rec(an, "t/d.json", TR_KERNEL, 0, 5, "gemm");
	trace_rec(an, "t/d.json", TR_OVERHEAD, 500, 300, "Buffer Flush");
	trace_rec(an, "t/d.json", TR_RUNTIME, 1990, 10, "cudaDeviceSynchronize");
	analysis_finish(an);
	assert_int_equal(count_kind(an, "profiler_overhead", -1), 1);
	f = find_in(an, "profiler_overhead", "16.0 % of c.json's traced 1.000 s");
	assert_non_null(f);
	assert_near(f->value, 16, 1e-9);
	assert_non_null(strstr(f->evidence, "2 overhead events"));
	release(an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pcie_link),
		cmocka_unit_test(test_mem_reserved),
		cmocka_unit_test(test_kernel_errors),
		cmocka_unit_test(test_util_decay),
		cmocka_unit_test(test_power_lost),
		cmocka_unit_test(test_ctx_create),
		cmocka_unit_test(test_profiler_overhead),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
