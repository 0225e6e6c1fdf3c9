/* SPDX-License-Identifier: MIT */
/* Unit tests for analysis (and the timeline under it): totals, states, findings. */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/detector.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

/* A whole minute (1800000000 = 30000000 x 60), so minute buckets start at T0. */
#define T0_S INT64_C(1800000000)
#define AT(s) ((T0_S + (int64_t)(s)) * NS_PER_S)

/* Records here name no strings: uuid and name are STR_NONE. */
static struct batch no_strs;

/* Two inputs: analysis tells them apart by the address of their name. */
static const char src_a[] = "a.csv";
static const char src_b[] = "b.log";

static struct analysis *an_new(void)
{
	struct analysis *an = xcalloc(1, sizeof(*an));

	analysis_init(an, NULL);
	return an;
}

static void an_free(struct analysis *an)
{
	analysis_release(an);
	free(an);
}

static struct rec sample(double t_s, int gpu)
{
	struct rec r;

	memset(&r, 0, sizeof(r));
	r.kind = REC_SAMPLE;
	r.time_kind = TK_ABS;
	r.t_ns = AT(0) + (int64_t)(t_s * 1e9);
	r.gpu_index = gpu;
	r.uuid = r.name = STR_NONE;
	return r;
}

static void set(struct rec *r, enum metric m, double v)
{
	r->present |= 1u << m;
	r->v[m] = v;
}

/* One sample of GPU gpu at second t: util %, and memory MiB unless negative. */
static void feed(struct analysis *an, double t, int gpu, double util, double mem_mib)
{
	struct rec r = sample(t, gpu);

	set(&r, M_UTIL_GPU, util);
	if (mem_mib >= 0)
		set(&r, M_MEM_USED, mem_mib);
	analysis_add(an, &r, &no_strs, src_a);
}

/* Close the run (the flag documents what the case expects; both paths finish). */
static void finish(struct analysis *an, bool ends_with_findings)
{
	(void)ends_with_findings;
	analysis_finish(an);
}

static size_t count_findings(const struct analysis *an, const char *kind)
{
	size_t n = 0;

	for (size_t i = 0; i < an->nfinds; i++)
		n += !strcmp(an->finds[i].kind, kind);
	return n;
}

static const struct finding *finding_of(const struct analysis *an, const char *kind, int gpu)
{
	for (size_t i = 0; i < an->nfinds; i++)
		if (!strcmp(an->finds[i].kind, kind) && an->finds[i].gpu == gpu)
			return &an->finds[i];
	fail_msg("no %s finding for GPU %d", kind, gpu);
	return NULL;
}

/* ---- coverage, busy time, utilization summaries --------------------------- */

/*
 * 100 samples at 1 s with util 0, 1, ..., 99: each holds for one second
 * (the last for one nominal interval), so covered = 100 s, busy =
 * sum(i)/100 = 4950/100 = 49.5 s, mean = 49.5 %.  The histogram has one
 * second at each of 0..99: p50 is the first bin where 50 s are reached (49),
 * p95 the first reaching 95 s (94), p100 is 99.
 */
static void test_covered_busy_util(void **state)
{
	struct analysis *an = an_new();
	const struct gpu_stats *g = &an->gpus[0];

	(void)state;
	for (int i = 0; i < 100; i++)
		feed(an, i, 0, i, -1);
	finish(an, true);
	assert_int_equal(an->tl.ngpus, 1);
	assert_int_equal(g->samples, 100);
	assert_int_equal(g->nominal_ns, NS_PER_S);
	assert_int_equal(g->first_ns, AT(0));
	assert_int_equal(g->last_ns, AT(100));
	assert_near(g->covered_s, 100, 1e-9);
	assert_near(g->gaps_s, 0, 0);
	assert_near(g->util_known_s, 100, 1e-9);
	assert_near(g->busy_s, 49.5, 1e-9);
	assert_near(gpu_util_mean(g), 49.5, 1e-9);
	assert_near(gpu_util_quantile(g, 0.5), 49, 0);
	assert_near(gpu_util_quantile(g, 0.95), 94, 0);
	assert_near(gpu_util_quantile(g, 1.0), 99, 0);
	/* no power reading anywhere: no power, no energy (never a 0) */
	assert_true(isnan(gpu_power_mean(g)));
	{
		const char *src = NULL;
		assert_true(isnan(gpu_energy_j(g, &src)));
		assert_string_equal(src, "none");
	}
	an_free(an);
}

static void test_gap_threshold(void **state)
{
	(void)state;
	/* max(2.5 x nominal, nominal + 1 s) */
	assert_int_equal(timeline_gap_threshold(NS_PER_S), 2500 * NS_PER_MS);
	assert_int_equal(timeline_gap_threshold(10 * NS_PER_S), 25 * NS_PER_S);
	assert_int_equal(timeline_gap_threshold(100 * NS_PER_MS), 1100 * NS_PER_MS);
}

/*
 * Samples at 0..9 and 20..29 (util 50): the step 9 -> 20 (11 s) is above the
 * 2.5 s threshold, so the reading at 9 covers one interval [9, 10) and
 * [10, 20) is a gap.  covered = 10 + 10 = 20 s, gaps = 10 s, busy = 20 x 0.5
 * = 10 s, one log_gap finding of 10 s from 10 to 20.
 */
static void test_gap_split(void **state)
{
	struct analysis *an = an_new();
	const struct gpu_stats *g = &an->gpus[0];
	const struct finding *f;

	(void)state;
	for (int i = 0; i < 30; i++)
		if (i < 10 || i >= 20)
			feed(an, i, 0, 50, -1);
	finish(an, true);
	assert_near(g->covered_s, 20, 1e-9);
	assert_near(g->gaps_s, 10, 1e-9);
	assert_near(g->state_s[ST_GAP], 10, 1e-9);
	assert_near(g->busy_s, 10, 1e-9);
	assert_int_equal(count_findings(an, "log_gap"), 1);
	f = finding_of(an, "log_gap", 0);
	assert_int_equal(f->t0_ns, AT(10));
	assert_int_equal(f->t1_ns, AT(20));
	assert_near(f->value, 10, 1e-9);
	assert_int_equal(f->severity, SEV_INFO);
	an_free(an);
}

/*
 * Either side of the 2.5 s threshold: a 2 s step (0..9, then 11..20) is
 * covered data (covered = 21 s, no gap); a 3 s step (0..9, then 12..21)
 * leaves [10, 12) as a gap (covered = 20 s, gap = 2 s).
 */
static void test_gap_boundary(void **state)
{
	for (int step = 3; step >= 2; step--) {
		struct analysis *an = an_new();
		const struct gpu_stats *g = &an->gpus[0];

		(void)state;
		for (int i = 0; i < 10; i++)
			feed(an, i, 0, 50, -1);
		for (int i = 0; i < 10; i++)
			feed(an, 9 + step + i, 0, 50, -1);
		finish(an, step == 3);
		if (step == 2) {
			assert_near(g->covered_s, 21, 1e-9);
			assert_near(g->gaps_s, 0, 0);
			assert_int_equal(count_findings(an, "log_gap"), 0);
		} else {
			assert_near(g->covered_s, 20, 1e-9);
			assert_near(g->gaps_s, 2, 1e-9);
			assert_int_equal(count_findings(an, "log_gap"), 1);
		}
		an_free(an);
	}
}

/* ---- energy --------------------------------------------------------------- */

/* 10 samples at 200 W, 1 s apart: 10 intervals x 200 W x 1 s = 2000 J. */
static void test_energy_from_power(void **state)
{
	struct analysis *an = an_new();
	const struct gpu_stats *g = &an->gpus[0];
	const char *src = NULL;

	(void)state;
	for (int i = 0; i < 10; i++) {
		struct rec r = sample(i, 0);
		set(&r, M_UTIL_GPU, 90);
		set(&r, M_POWER, 200);
		analysis_add(an, &r, &no_strs, src_a);
	}
	finish(an, false);
	assert_near(g->energy_power_j, 2000, 1e-9);
	assert_near(g->energy_power_s, 10, 1e-9);
	assert_near(g->energy_counter_s, 0, 0);
	assert_near(gpu_energy_j(g, &src), 2000, 1e-9);
	assert_string_equal(src, "power");
	assert_near(gpu_power_mean(g), 200, 1e-9);
	assert_near(g->power_max_w, 200, 0);
	an_free(an);
}

/*
 * Counter 1e6 + 300 i J at i = 0..10: the 10 intervals between readings get
 * the deltas (10 x 300 = 3000 J over 10 s).  The last reading's interval has
 * no next counter value; with power 250 W it is integrated (250 J), without
 * power it stays unknown.  The counter wins over power where both exist.
 */
static void test_energy_from_counter(void **state)
{
	for (int with_power = 0; with_power <= 1; with_power++) {
		struct analysis *an = an_new();
		const struct gpu_stats *g = &an->gpus[0];
		const char *src = NULL;

		(void)state;
		for (int i = 0; i <= 10; i++) {
			struct rec r = sample(i, 0);
			set(&r, M_UTIL_GPU, 90);
			set(&r, M_ENERGY, 1e6 + 300.0 * i);
			if (with_power)
				set(&r, M_POWER, 250);
			analysis_add(an, &r, &no_strs, src_a);
		}
		finish(an, false);
		assert_near(g->energy_counter_j, 3000, 1e-6);
		assert_near(g->energy_counter_s, 10, 1e-9);
		if (with_power) {
			assert_near(g->energy_power_j, 250, 1e-9);
			assert_near(g->energy_power_s, 1, 1e-9);
			assert_near(gpu_energy_j(g, &src), 3250, 1e-6);
			assert_string_equal(src, "counter+power");
		} else {
			assert_near(g->energy_power_s, 0, 0);
			assert_near(gpu_energy_j(g, &src), 3000, 1e-6);
			assert_string_equal(src, "counter");
		}
		an_free(an);
	}
}

/*
 * Counter 1000, 1300, 1600, then a reset to 50, 350, 650 (t = 0..5, no
 * power).  Deltas: 300, 300, (50 - 1600 < 0: a reset, unknown), 300, 300;
 * the last interval has no next value.  Counter energy = 1200 J over 4 s,
 * never negative.
 */
static void test_energy_counter_reset(void **state)
{
	static const double e[6] = { 1000, 1300, 1600, 50, 350, 650 };
	struct analysis *an = an_new();
	const struct gpu_stats *g = &an->gpus[0];

	(void)state;
	for (int i = 0; i < 6; i++) {
		struct rec r = sample(i, 0);
		set(&r, M_UTIL_GPU, 90);
		set(&r, M_ENERGY, e[i]);
		analysis_add(an, &r, &no_strs, src_a);
	}
	finish(an, false);
	assert_near(g->energy_counter_j, 1200, 1e-9);
	assert_near(g->energy_counter_s, 4, 1e-9);
	assert_near(g->energy_power_s, 0, 0);
	an_free(an);
}

/* ---- two inputs for one GPU ----------------------------------------------- */

/*
 * Input a samples GPU 0 every second (util 80, t = 0..59), input b every 5 s
 * (util 20, t = 0, 5, ..., 55), a's record first at equal times as the driver
 * delivers them.  Time is the span, 0..60 = 60 s, not 60 + 60; the finer
 * input owns util, so busy = 60 x 0.8 = 48 s.  72 samples were read.
 */
static void test_two_sources(void **state)
{
	struct analysis *an = an_new();
	const struct gpu_stats *g = &an->gpus[0];

	(void)state;
	for (int i = 0; i < 60; i++) {
		struct rec r = sample(i, 0);
		set(&r, M_UTIL_GPU, 80);
		analysis_add(an, &r, &no_strs, src_a);
		if (i % 5 == 0) {
			r = sample(i, 0);
			set(&r, M_UTIL_GPU, 20);
			analysis_add(an, &r, &no_strs, src_b);
		}
	}
	finish(an, false);
	assert_int_equal(an->tl.ngpus, 1);
	assert_int_equal(g->samples, 72);
	assert_near(g->covered_s, 60, 1e-9);
	assert_near(g->gaps_s, 0, 0);
	assert_near(g->busy_s, 48, 1e-9);
	an_free(an);
}

/* ---- memory ------------------------------------------------------------------ */

/*
 * Memory 1000 + 1024 i MiB at i = 0..20 (1 GiB per second for 20 s, 20
 * rises): rise 20480 MiB >= 512, 20 s >= 10 s, 20 rises >= 5.  The finding
 * spans 0..20 s with slope 20480 / (20 / 3600) = 3686400 MiB/h.
 */
static void test_memory_leak(void **state)
{
	struct analysis *an;
	const struct finding *f;

	(void)state;
	/* a rise that starts with the GPU's first sample (leak_feed once lost its start) */
	an = an_new();
	for (int i = 0; i <= 20; i++)
		feed(an, i, 0, 90, 1000 + 1024.0 * i);
	finish(an, true);
	assert_int_equal(count_findings(an, "memory_leak"), 1);
	f = finding_of(an, "memory_leak", 0);
	assert_int_equal(f->t0_ns, AT(0));
	assert_int_equal(f->t1_ns, AT(20));
	assert_near(f->value, 3686400, 1e-6);
	assert_int_equal(f->severity, SEV_WARNING);
	assert_near(an->gpus[0].mem_max_mib, 21480, 0);
	an_free(an);
}

/*
 * The same leak after 5 flat seconds (1000 MiB at 0..4, then 1000 + 1024 k
 * at 4 + k, k = 1..20): the run starts at the last flat reading, 4 s, ends
 * at the last rise, 24 s: 20480 MiB in 20 s = 3686400 MiB/h.
 */
static void test_memory_leak_after_flat(void **state)
{
	struct analysis *an = an_new();
	const struct finding *f;

	(void)state;
	for (int i = 0; i <= 24; i++)
		feed(an, i, 0, 90, i <= 4 ? 1000 : 1000 + 1024.0 * (i - 4));
	finish(an, true);
	assert_int_equal(count_findings(an, "memory_leak"), 1);
	f = finding_of(an, "memory_leak", 0);
	assert_int_equal(f->t0_ns, AT(4));
	assert_int_equal(f->t1_ns, AT(24));
	assert_near(f->value, 3686400, 1e-6);
	an_free(an);
}

/* A model loading in 3 steps (0, 20000, 40000, 60000 MiB) then flat for a
 * minute: 3 rises in 3 s is a startup, not a leak. */
static void test_no_leak_startup_ramp(void **state)
{
	struct analysis *an = an_new();

	(void)state;
	for (int i = 0; i < 60; i++)
		feed(an, i, 0, 90, i < 3 ? 20000.0 * i : 60000);
	finish(an, false);
	assert_int_equal(count_findings(an, "memory_leak"), 0);
	assert_near(an->gpus[0].mem_max_mib, 60000, 0);
	an_free(an);
}

/* ---- held idle ---------------------------------------------------------------- */

/* util 0 with 1257 MiB held for n seconds: a finding from 10 s on. */
static void test_held_idle(void **state)
{
	for (int n = 10; n >= 9; n--) {
		struct analysis *an = an_new();
		const struct gpu_stats *g = &an->gpus[0];

		(void)state;
		for (int i = 0; i < n; i++)
			feed(an, i, 0, 0, 1257);
		finish(an, n >= 10);
		assert_near(g->state_s[ST_HELD_IDLE], n, 1e-9);
		if (n < 10) {
			assert_int_equal(count_findings(an, "held_idle"), 0);
		} else {
			const struct finding *f = finding_of(an, "held_idle", 0);
			assert_int_equal(count_findings(an, "held_idle"), 1);
			assert_int_equal(f->t0_ns, AT(0));
			assert_int_equal(f->t1_ns, AT(10));
			assert_near(f->value, 10, 1e-9);
			assert_int_equal(f->severity, SEV_INFO);
		}
		an_free(an);
	}
}

/*
 * A starved pipeline: util alternating u (even seconds) and 0 (odd), memory
 * held, n samples `step` s apart.  The centred window (5 s each side) of a
 * pause holds bursts on both sides and swings (by hand for u = 40 at 1 s:
 * second 1 sees seconds 0..6, four at 40: mean 22.9 %, CV 0.87, 57 % active;
 * second 37 sees 32..39: mean 20 %, CV 1.0; at 600 s a pause sees its two
 * neighbours: mean 26.7 %, CV 0.71), so every pause but the last, which has
 * no burst after it, is input_bound, and so is every burst (active, under
 * 50 %, no power reading): 39 s of 40 input_bound and the last held_idle.
 * Whole-number utilization takes the window from prefix sums, 40.5 % and
 * 600 s steps (over 900 s in a window: utilization^2 x ns passes 2^53) the
 * scan; both must say the same.
 */
static void test_window_bursts(void **state)
{
	static const struct {
		double u, step;
	} cases[] = { { 40, 1 }, { 40.5, 1 }, { 40, 600 } };

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct analysis *an = an_new();
		const struct gpu_stats *g = &an->gpus[0];

		for (int i = 0; i < 40; i++)
			feed(an, i * cases[k].step, 0, i % 2 ? 0 : cases[k].u, 1257);
		finish(an, true);
		assert_near(g->state_s[ST_INPUT], 39 * cases[k].step, 1e-6);
		assert_near(g->state_s[ST_HELD_IDLE], cases[k].step, 1e-6);
		assert_near(g->covered_s, 40 * cases[k].step, 1e-6);
		an_free(an);
	}
}

/* ---- states and segments ----------------------------------------------------- */

/*
 * 10 s compute (util 90, mem util 45), 10 s idle (util 0, 0 MiB), 10 s held
 * (util 0, 1257 MiB).  30 one-second intervals make 3 segments, one per
 * state, and 10 s in each.  busy = 10 x 0.9 = 9 s, all of it compute.
 */
static void test_states_and_segments(void **state)
{
	struct analysis *an = an_new();
	const struct gpu_stats *g = &an->gpus[0];
	static const int want_state[3] = { ST_COMPUTE, ST_IDLE, ST_HELD_IDLE };

	(void)state;
	for (int i = 0; i < 30; i++) {
		struct rec r = sample(i, 0);
		if (i < 10) {
			set(&r, M_UTIL_GPU, 90);
			set(&r, M_UTIL_MEM, 45);
			set(&r, M_MEM_USED, 40000);
		} else {
			set(&r, M_UTIL_GPU, 0);
			set(&r, M_UTIL_MEM, 0);
			set(&r, M_MEM_USED, i < 20 ? 0 : 1257);
		}
		analysis_add(an, &r, &no_strs, src_a);
	}
	finish(an, true);
	for (int s = 0; s < ST__COUNT; s++) {
		double want = s == ST_COMPUTE || s == ST_IDLE || s == ST_HELD_IDLE ? 10 : 0;
		assert_near(g->state_s[s], want, 1e-9);
	}
	assert_near(g->busy_s, 9, 1e-9);
	assert_near(g->state_busy_s[ST_COMPUTE], 9, 1e-9);
	assert_int_equal(an->nsegs, 3);
	for (int k = 0; k < 3; k++) {
		assert_int_equal(an->segs[k].gpu, 0);
		assert_int_equal(an->segs[k].state, want_state[k]);
		assert_int_equal(an->segs[k].t0_ns, AT(10 * k));
		assert_int_equal(an->segs[k].t1_ns, AT(10 * k + 10));
	}
	an_free(an);
}

/* ---- processes ---------------------------------------------------------------- */

static char proc_names[] = "python\0worker";	/* offsets 0 and 7 */

static void feed_proc(struct analysis *an, int t, int64_t pid, uint32_t name, bool with_sm,
		      double sm, double fb)
{
	struct batch b = { 0 };
	struct rec r;

	b.strs = proc_names;
	b.strs_len = sizeof(proc_names);
	memset(&r, 0, sizeof(r));
	r.kind = REC_PROC;
	r.time_kind = TK_ABS;
	r.t_ns = AT(t);
	r.gpu_index = 0;
	r.uuid = STR_NONE;
	r.name = name;
	r.pid = pid;
	r.present = PF_FB | (with_sm ? PF_SM : 0);
	r.v[0] = sm;
	r.v[2] = fb;
	analysis_add(an, &r, &b, src_b);
}

static const struct proc_stat *proc_of(const struct analysis *an, int64_t pid)
{
	for (size_t i = 0; i < an->nprocs; i++)
		if (an->procs[i].pid == pid)
			return &an->procs[i];
	fail_msg("no process %lld", (long long)pid);
	return NULL;
}

/*
 * GPU 0 at util 80 and 300 W for 10 s, pids 100 (sm 60 %) and 200 (sm 20 %)
 * seen every second.  Each second's busy 0.8 s and 300 J split 60:20, so pid
 * 100 gets 10 x 0.8 x 0.75 = 6 s and 10 x 300 x 0.75 = 2250 J; pid 200 gets
 * 10 x 0.8 x 0.25 = 2 s and 750 J.  Without sm % the split is even: 4 s and 1500 J each.
 */
static void test_process_attribution(void **state)
{
	for (int by_sm = 1; by_sm >= 0; by_sm--) {
		struct analysis *an = an_new();
		const struct proc_stat *p, *q;

		(void)state;
		for (int i = 0; i < 10; i++) {
			struct rec r = sample(i, 0);
			set(&r, M_UTIL_GPU, 80);
			set(&r, M_POWER, 300);
			analysis_add(an, &r, &no_strs, src_a);
			feed_proc(an, i, 100, 0, by_sm, 60, 1000 + i);
			feed_proc(an, i, 200, 7, by_sm, 20, 500);
		}
		finish(an, false);
		assert_true(an->gpus[0].has_process_data);
		assert_int_equal(an->nprocs, 2);
		p = proc_of(an, 100);
		q = proc_of(an, 200);
		assert_string_equal(p->name, "python");
		assert_string_equal(q->name, "worker");
		assert_int_equal(p->gpu, 0);
		assert_int_equal(p->observations, 10);
		assert_int_equal(p->first_ns, AT(0));
		assert_int_equal(p->last_ns, AT(9));
		assert_near(p->fb_max_mib, 1009, 0);
		assert_near(p->present_s, 10, 1e-9);
		assert_near(q->present_s, 10, 1e-9);
		assert_near(an->gpus[0].busy_s, 8, 1e-9);
		if (by_sm) {
			assert_true(p->busy_by_sm);
			assert_near(p->sm_sum / p->sm_n, 60, 1e-9);
			assert_near(p->busy_s, 6, 1e-9);
			assert_near(q->busy_s, 2, 1e-9);
			assert_near(p->energy_j, 2250, 1e-9);
			assert_near(q->energy_j, 750, 1e-9);
		} else {
			assert_false(p->busy_by_sm);
			assert_near(p->sm_n, 0, 0);
			assert_near(p->busy_s, 4, 1e-9);
			assert_near(q->busy_s, 4, 1e-9);
			assert_near(p->energy_j, 1500, 1e-9);
			assert_near(q->energy_j, 1500, 1e-9);
		}
		an_free(an);
	}
}

/* ---- imbalance ----------------------------------------------------------------- */

/*
 * GPU 0 at 90 % and GPU 1 at 5 % for 10 minutes (1 s samples).  GPU 1: own
 * busy fraction 0.05 over 600 s, peers 0.9 >= 0.2 and 0.05 < 0.5 x 0.9, so
 * one imbalance finding worth 100 x (0.9 - 0.05) = 85 points.  GPU 0's peers
 * are at 0.05 < 0.2: nothing for it.
 */
static void test_imbalance(void **state)
{
	struct analysis *an = an_new();
	const struct finding *f;

	(void)state;
	for (int i = 0; i < 600; i++) {
		feed(an, i, 0, 90, -1);
		feed(an, i, 1, 5, -1);
	}
	finish(an, true);
	assert_int_equal(an->tl.ngpus, 2);
	assert_int_equal(an->gpus[0].nmin, 10);
	assert_int_equal(an->gpus[1].nmin, 10);
	assert_near(an->gpus[0].busy_s, 540, 1e-6);
	assert_near(an->gpus[1].busy_s, 30, 1e-6);
	assert_int_equal(count_findings(an, "imbalance"), 1);
	f = finding_of(an, "imbalance", 1);
	assert_near(f->value, 85, 1e-3);
	assert_int_equal(f->severity, SEV_WARNING);
	an_free(an);
}

/* The rule as first written, peers summed for each GPU (the reference): found[i] set, value and evidence. */
struct imb_ref {
	bool found;
	double value;
	char evidence[160];
};

static void imbalance_by_peers(const struct analysis *an, int64_t base, int64_t end, struct imb_ref *ref)
{
	int n = an->tl.ngpus;

	for (int i = 0; i < n; i++) {
		double my_b = 0, my_c = 0, peer_b = 0, peer_c = 0;
		for (int64_t t = base; t < end; t += 60 * NS_PER_S) {
			double pb = 0, pc = 0;
			int peers = 0;
			int64_t m = (t - an->gpus[i].min_base_ns) / (60 * NS_PER_S);
			if (m < 0 || (size_t)m >= an->gpus[i].nmin || an->gpus[i].min_cov_s[m] < 30)
				continue;
			for (int j = 0; j < n; j++) {
				int64_t k = (t - an->gpus[j].min_base_ns) / (60 * NS_PER_S);
				if (j == i || k < 0 || (size_t)k >= an->gpus[j].nmin || an->gpus[j].min_cov_s[k] < 30)
					continue;
				pb += an->gpus[j].min_busy_s[k];
				pc += an->gpus[j].min_cov_s[k];
				peers++;
			}
			if (!peers)
				continue;
			my_b += an->gpus[i].min_busy_s[m];
			my_c += an->gpus[i].min_cov_s[m];
			peer_b += pb;
			peer_c += pc;
		}
		ref[i].found = false;
		if (my_c >= 300 && peer_c > 0) {
			double mine = my_b / my_c, theirs = peer_b / peer_c;
			if (theirs < 0.2 || mine >= 0.5 * theirs)
				continue;
			ref[i].found = true;
			ref[i].value = 100 * (theirs - mine);
			snprintf(ref[i].evidence, sizeof(ref[i].evidence),
				 "busy fraction over %.0f common minutes: this GPU %.3f, mean of peers %.3f",
				 my_c / 60, mine, theirs);
		}
	}
}

/*
 * 48 GPUs over a day of minutes, starting at different minutes, one
 * going on alone for a while (minutes without peers count for none), some
 * minutes thin (under 30 s: not counted) and some with seconds too fine to
 * add up exactly in any order: the findings and their values, to the last
 * bit, are those of summing each GPU's peers.
 */
static void test_imbalance_many_gpus(void **state)
{
	enum { NG = 48, NM = 1440 };	/* NM + 90 minutes at most */
	struct analysis *an = an_new();
	struct imb_ref ref[NG];
	const struct detector *d = NULL;
	uint64_t rng = 0x2545f4914f6cdd1dULL;
	int64_t t0 = INT64_C(1800000000) * NS_PER_S, end = INT64_MIN;
	int nfound = 0;

	(void)state;
	for (size_t i = 0; detector_at(i); i++)
		if (!strcmp(detector_at(i)->id, "imbalance"))
			d = detector_at(i);
	assert_non_null(d);
	an->tl.ngpus = NG;
	for (int g = 0; g < NG; g++) {
		struct gpu_stats *gs = &an->gpus[g];
		int start = (int)(test_xorshift(&rng) % 120), nmin = NM - start - (int)(test_xorshift(&rng) % 60);
		if (g == 4)
			nmin = NM - start + 90;	/* an hour and a half alone at the end: no peers then */
		double level = g % 4 == 0 ? 0.05 : 0.6 + 0.3 * (double)(test_xorshift(&rng) % 100) / 100;
		gs->min_base_ns = t0 + (int64_t)start * 60 * NS_PER_S;
		gpu_minute_grow(gs, (size_t)nmin - 1);
		for (int m = 0; m < nmin; m++) {
			uint64_t r = test_xorshift(&rng);
			float cov = r % 50 == 0 ? 20.0f : 60.0f - (float)(r % 7) * 0.37f;
			gs->min_cov_s[m] = cov;
			gs->min_busy_s[m] = (float)(cov * level * (0.8 + 0.4 * (double)(r % 1000) / 1000));
			if (r % 97 == 0)	/* a hair of a second: no exact sum with the rest */
				gs->min_busy_s[m] = (float)(1e-7 * (double)(r % 13));
		}
		gs->first_ns = gs->min_base_ns;
		gs->last_ns = gs->min_base_ns + (int64_t)nmin * 60 * NS_PER_S;
		if (gs->last_ns > end)
			end = gs->last_ns;
	}
	imbalance_by_peers(an, t0, end, ref);
	d->finish_all(an);
	for (int g = 0; g < NG; g++) {
		const struct finding *f = NULL;
		for (size_t k = 0; k < an->nfinds; k++)
			if (an->finds[k].gpu == g && !strcmp(an->finds[k].kind, "imbalance"))
				f = &an->finds[k];
		assert_int_equal(f != NULL, ref[g].found);
		if (!f)
			continue;
		nfound++;
		if (f->value != ref[g].value)
			fail_msg("GPU %d: value %.17g, want %.17g", g, f->value, ref[g].value);
		assert_string_equal(f->evidence, ref[g].evidence);
	}
	assert_int_equal(nfound, NG / 4);
	an_free(an);
}

/* The generated table holds one entry per det_*.c: ids unique, each with a hook. */
static void test_detector_table(void **state)
{
	size_t n = detector_count();

	(void)state;
	assert_true(n >= 6);
	assert_null(detector_at(n));
	for (size_t i = 0; i < n; i++) {
		const struct detector *d = detector_at(i);
		assert_non_null(d->id);
		assert_non_null(d->summary);
		assert_true(d->interval || d->event || d->finish || d->finish_all);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(d->id, detector_at(j)->id);
	}
}

/*
 * The display series: 2 days of 1 s samples (172800 of them) stay within
 * SER_MAX buckets, a one-second spike survives as a bucket's max, a gap
 * leaves its buckets without a value, and the time-weighted mean over all
 * buckets equals the plain mean of the samples computed here by hand.
 */
static void test_series_bounded_keeps_spike_and_gap(void **state)
{
	struct analysis *an = an_new();
	const struct gpu_series *s;
	double sum = 0, known = 0, want_sum = 0, maxv = 0;
	int n = 0, gap_buckets = 0;

	(void)state;
	for (int t = 0; t < 172800; t++) {
		double u = t == 100000 ? 100 : (t % 10);
		if (t >= 50000 && t < 53600)
			continue;	/* an hour without data */
		feed(an, t, 0, u, -1);
		if (t < 172799) {	/* the last sample has no interval after it */
			want_sum += u;
			n++;
		}
	}
	finish(an, false);
	s = &an->gpus[0].ser;
	assert_true(s->n <= SER_MAX);
	assert_true(s->n > SER_MAX / 2);
	assert_true(s->width_ns * (int64_t)SER_MAX >= 172800 * NS_PER_S);
	for (size_t i = 0; i < s->n; i++) {
		sum += s->b[i].sum[SER_UTIL];
		known += s->b[i].known_s[SER_UTIL];
		if (s->b[i].known_s[SER_UTIL] > 0 && s->b[i].max[SER_UTIL] > maxv)
			maxv = s->b[i].max[SER_UTIL];
		if (s->b[i].known_s[SER_UTIL] == 0 && s->b[i].state_s[ST_GAP] > 0)
			gap_buckets++;
		if (s->b[i].known_s[SER_UTIL] == 0)
			assert_true(isnan(ser_mean(&s->b[i], SER_UTIL)));
	}
	assert_near(maxv, 100, 0);
	/* the 3600 s hole minus the gap threshold's slack: whole buckets of nothing */
	assert_true(gap_buckets >= (int)(3500 * NS_PER_S / s->width_ns) - 1);
	assert_near(known, n, 1);
	assert_near(sum / known, want_sum / n, 1e-3);
	an_free(an);
}

/*
 * ser_at(), the series step the store's minutes share with the analysis
 * (store/query.c): 5000 minutes in 60 s buckets run past SER_MAX twice, so
 * the buckets merge to 240 s; every second and every extreme survives, and
 * a bucket first touched after a merge starts empty.
 */
static void test_series_at_merges_minutes(void **state)
{
	struct gpu_series sr = { 0 };
	double total = 0, got = 0;
	float hi = -INFINITY;

	(void)state;
	for (int m = 0; m < 5000; m++) {
		struct ser_bucket *b = ser_at(&sr, AT(60 * m), 60 * NS_PER_S);
		float v = (float)(m % 97);	/* a saw, its peak 96 in many minutes */
		b->sum[SER_UTIL] += v * 60;
		b->known_s[SER_UTIL] += 60;
		b->max[SER_UTIL] = fmaxf(b->max[SER_UTIL], v);
		b->min[SER_UTIL] = fminf(b->min[SER_UTIL], v);
		b->state_s[0] += 60;
		total += 60;
	}
	assert_int_equal(sr.width_ns, 240 * NS_PER_S);
	assert_int_equal(sr.n, 1250);
	assert_int_equal(sr.base_ns, AT(0));
	for (size_t i = 0; i < sr.n; i++) {
		got += sr.b[i].state_s[0];
		hi = fmaxf(hi, sr.b[i].max[SER_UTIL]);
		assert_true(sr.b[i].known_s[SER_UTIL] == 240);	/* four whole minutes each */
		assert_true(sr.b[i].min[SER_UTIL] <= sr.b[i].max[SER_UTIL]);
	}
	assert_true(got == total);
	assert_true(hi == 96);
	/* the mean of the first bucket: minutes 0..3 */
	assert_true(fabs(ser_mean(&sr.b[0], SER_UTIL) - 1.5) < 1e-6);
	free(sr.b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_covered_busy_util),
		cmocka_unit_test(test_gap_threshold),
		cmocka_unit_test(test_gap_split),
		cmocka_unit_test(test_gap_boundary),
		cmocka_unit_test(test_energy_from_power),
		cmocka_unit_test(test_energy_from_counter),
		cmocka_unit_test(test_energy_counter_reset),
		cmocka_unit_test(test_two_sources),
		cmocka_unit_test(test_memory_leak),
		cmocka_unit_test(test_memory_leak_after_flat),
		cmocka_unit_test(test_no_leak_startup_ramp),
		cmocka_unit_test(test_held_idle),
		cmocka_unit_test(test_states_and_segments),
		cmocka_unit_test(test_window_bursts),
		cmocka_unit_test(test_process_attribution),
		cmocka_unit_test(test_imbalance),
		cmocka_unit_test(test_imbalance_many_gpus),
		cmocka_unit_test(test_detector_table),
		cmocka_unit_test(test_series_bounded_keeps_spike_and_gap),
		cmocka_unit_test(test_series_at_merges_minutes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
