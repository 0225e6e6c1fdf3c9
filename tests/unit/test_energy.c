/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for energy over a window (timeline runs of counter readings,
 * docs/states.md "Energy"): synthetic series with known phases fed through
 * analysis_add, sampled like `gputally record` writes them (the counter read
 * once a second, on its own tick's row).  The expected joules are power x
 * time of each phase, worked out by hand in the comments and written as
 * literals; each case also runs with samples missing.
 */
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

#define T0_S INT64_C(1800000000)

static struct batch no_strs;
static const char src_dmon[] = "dmon.csv";
static const char src_pmon[] = "pmon.log";
static char proc_names[] = "python\0worker";	/* offsets 0 and 7 */

/* A phase of the GPU's true behaviour, up to t1_s. */
struct phase {
	double t1_s;
	double power_w, util, mem_util, mem_mib;
	int64_t pid;		/* the process running, -1 none */
};

struct series {
	int64_t dt_ns;		/* sample interval */
	int nrows;
	int counter_every;	/* rows between counter readings (1 s) */
	const struct phase *ph;
	int nph;
	double reset_at_s;	/* the counter restarts near 0 here; < 0: never */
	double gap_t0_s, gap_t1_s;	/* rows in [t0, t1) are not written */
	bool procs;		/* write a process row (pmon) after each sample;
				 * a new job's first row says the old one is gone */
	int missing;		/* 0, or: every 20th row from this offset is lost */
	bool carried;		/* every row repeats the newest reading (older recorders) */
};

static const struct phase *phase_at(const struct series *s, double t)
{
	for (int i = 0; i < s->nph; i++)
		if (t < s->ph[i].t1_s)
			return &s->ph[i];
	return &s->ph[s->nph - 1];
}

/* The true energy since 0: the integral of the phases' power. */
static double true_energy(const struct series *s, double t)
{
	double e = 0, from = 0;

	for (int i = 0; i < s->nph && from < t; i++) {
		double to = fmin(t, s->ph[i].t1_s);
		e += s->ph[i].power_w * (to - from);
		from = to;
	}
	return e;
}

/* The counter as NVML reports it: since driver load, restarted at a reload. */
static double counter_at(const struct series *s, double t)
{
	if (s->reset_at_s >= 0 && t >= s->reset_at_s)
		return 7 + true_energy(s, t) - true_energy(s, s->reset_at_s);
	return 4e6 + true_energy(s, t);
}

static bool lost_row(const struct series *s, int i)
{
	if (!s->missing || i == 0 || i == s->nrows - 1)
		return false;	/* the window stays the same */
	if (s->nrows < 20)
		return i == s->nrows / 2;
	return i % 20 == s->missing;
}

static void feed_proc(struct analysis *an, int64_t t_ns, int64_t pid)
{
	struct batch b = { 0 };
	struct rec r;

	b.strs = proc_names;
	b.strs_len = sizeof(proc_names);
	memset(&r, 0, sizeof(r));
	r.kind = REC_PROC;
	r.time_kind = TK_ABS;
	r.t_ns = t_ns;
	r.gpu_index = 0;
	r.uuid = STR_NONE;
	r.name = pid == 200 ? 7 : pid < 0 ? STR_NONE : 0;
	r.pid = pid;
	r.present = PF_FB;
	r.v[2] = 1000;
	analysis_add(an, &r, &b, src_pmon);
}

static struct analysis *run(const struct series *s)
{
	struct analysis *an = xcalloc(1, sizeof(*an));
	int64_t last_pid = -1;

	analysis_init(an, NULL);
	for (int i = 0; i < s->nrows; i++) {
		int64_t off = (int64_t)i * s->dt_ns;
		double t = (double)off / 1e9;
		const struct phase *p = phase_at(s, t);
		struct rec r;

		if (lost_row(s, i) || (t >= s->gap_t0_s && t < s->gap_t1_s))
			continue;
		memset(&r, 0, sizeof(r));
		r.kind = REC_SAMPLE;
		r.time_kind = TK_ABS;
		r.t_ns = T0_S * NS_PER_S + off;
		r.gpu_index = 0;
		r.uuid = r.name = STR_NONE;
		r.present = 1u << M_UTIL_GPU | 1u << M_UTIL_MEM | 1u << M_POWER | 1u << M_MEM_USED;
		r.v[M_UTIL_GPU] = p->util;
		r.v[M_UTIL_MEM] = p->mem_util;
		r.v[M_POWER] = p->power_w;
		r.v[M_MEM_USED] = p->mem_mib;
		if (i % s->counter_every == 0 || s->carried) {
			int64_t read = (int64_t)(i - i % s->counter_every) * s->dt_ns;
			r.present |= 1u << M_ENERGY;
			r.v[M_ENERGY] = counter_at(s, (double)read / 1e9);
		}
		analysis_add(an, &r, &no_strs, src_dmon);
		if (s->procs) {
			/* a new job: the old one is gone now, not 5 s later */
			if (p->pid != last_pid && last_pid >= 0 && p->pid >= 0)
				feed_proc(an, r.t_ns, -1);
			feed_proc(an, r.t_ns, p->pid);
			last_pid = p->pid;
		}
	}
	analysis_finish(an);
	return an;
}

static void release(struct analysis *an)
{
	analysis_release(an);
	free(an);
}

static double total_j(const struct analysis *an)
{
	const char *src;

	return gpu_energy_j(&an->gpus[0], &src);
}

static const struct proc_stat *proc_of(const struct analysis *an, int64_t pid)
{
	for (size_t i = 0; i < an->nprocs; i++)
		if (an->procs[i].pid == pid)
			return &an->procs[i];
	fail_msg("no process %lld", (long long)pid);
	return NULL;
}

/* ---- a steady 100 W GPU ---------------------------------------------------- */

static const struct phase steady[] = { { 1e9, 100, 60, 10, 2000, -1 } };

/*
 * 100 W for 3 s at 100 ms (30 rows, the last covering 2.9..3.0 s), counter
 * at 0, 1, 2 s: 100 W x 3 s = 300 J.  The counter brackets 0..2 s, power x
 * time the rest.  Missing: row 10 (the 1 s reading): readings 0, 2 s.
 * Carried (an older recorder's file, the newest reading on every row): the
 * same, a repeated value being no new reading.
 */
static void test_steady_3s_100ms(void **state)
{
	(void)state;
	for (int k = 0; k < 4; k++) {
		int missing = k & 1 ? 10 : 0;
		struct series s = { 100 * NS_PER_MS, 30, 10, steady, 1, -1, 0, 0, false, missing,
				    k >= 2 };
		struct analysis *an = run(&s);
		const struct gpu_stats *g = &an->gpus[0];

		assert_near(total_j(an), 300, 0.02 * 300);
		assert_near(g->energy_counter_s, 2, 1e-9);
		assert_near(g->energy_power_s, 1, 1e-9);
		assert_near(g->energy_unknown_s, 0, 0);
		release(an);
	}
}

/* 100 W for 6 s at 1 s, a reading on every row: 600 J.  Missing: row 3. */
static void test_steady_6s_1s(void **state)
{
	(void)state;
	for (int missing = 0; missing <= 13; missing += 13) {
		struct series s = { NS_PER_S, 6, 1, steady, 1, -1, 0, 0, false, missing, false };
		struct analysis *an = run(&s);

		assert_near(total_j(an), 600, 0.02 * 600);
		assert_near(an->gpus[0].energy_unknown_s, 0, 0);
		release(an);
	}
}

/* 100 W for one hour at 1 s: 100 x 3600 = 360000 J.  Missing: 180 rows. */
static void test_steady_1h_1s(void **state)
{
	(void)state;
	for (int missing = 0; missing <= 13; missing += 13) {
		struct series s = { NS_PER_S, 3600, 1, steady, 1, -1, 0, 0, false, missing, false };
		struct analysis *an = run(&s);

		assert_near(total_j(an), 360000, 0.02 * 360000);
		assert_near(an->gpus[0].covered_s, 3600, 1e-6);
		release(an);
	}
}

/*
 * Where readings bracket the time, the counter is what counts: the power
 * readings say 100 W, the counter 150 J a second (power drawn between the
 * samples).  3 s at 100 ms: 0..2 s from the counter (2 x 150 = 300 J), the
 * last second has no closing reading: 100 W x 1 s = 100 J.  400 J, not the
 * 300 J of power x time, nor 450 J of the counter's rate carried on.
 */
static void test_counter_over_power(void **state)
{
	static const struct phase ph[] = { { 1e9, 150, 60, 10, 2000, -1 } };
	struct series s = { 100 * NS_PER_MS, 30, 10, ph, 1, -1, 0, 0, false, 0, false };
	struct analysis *an;
	struct rec r;

	(void)state;
	/* run() writes power = the phase's: feed by hand with power 100 */
	an = xcalloc(1, sizeof(*an));
	analysis_init(an, NULL);
	for (int i = 0; i < s.nrows; i++) {
		memset(&r, 0, sizeof(r));
		r.kind = REC_SAMPLE;
		r.time_kind = TK_ABS;
		r.t_ns = T0_S * NS_PER_S + i * s.dt_ns;
		r.gpu_index = 0;
		r.uuid = r.name = STR_NONE;
		r.present = 1u << M_UTIL_GPU | 1u << M_POWER;
		r.v[M_UTIL_GPU] = 60;
		r.v[M_POWER] = 100;
		if (i % 10 == 0) {
			r.present |= 1u << M_ENERGY;
			r.v[M_ENERGY] = counter_at(&s, i / 10.0);
		}
		analysis_add(an, &r, &no_strs, src_dmon);
	}
	analysis_finish(an);
	assert_near(an->gpus[0].energy_counter_j, 300, 1e-6);
	assert_near(an->gpus[0].energy_power_j, 100, 1e-6);
	assert_near(total_j(an), 400, 1e-6);
	release(an);
}

/* ---- known phases: per state and per process ------------------------------ */

/*
 * 70 s at 100 ms, phases not on the counter's whole seconds:
 *   0..10.5 s    idle           60 W   nothing held         60 x 10.5 =   630 J
 *   10.5..40.5 s compute_bound  400 W  pid 100 (python)    400 x 30   = 12000 J
 *   40.5..60.5 s memory_bound   300 W  pid 200 (worker)    300 x 20   =  6000 J
 *   60.5..70 s   idle           90 W   nothing held         90 x 9.5  =   855 J
 * Total 19485 J; idle 630 + 855 = 1485 J.  The readings at 10 s and 11 s
 * bracket 0.5 s of 60 W and 0.5 s of 400 W: 230 J, 30 to idle and 200 to
 * compute in proportion to power (split by time it would be 115 and 115).
 */
static const struct phase phases[] = {
	{ 10.5, 60, 0, 0, 0, -1 },
	{ 40.5, 400, 95, 40, 20000, 100 },
	{ 60.5, 300, 99, 100, 20000, 200 },
	{ 70, 90, 0, 0, 0, -1 },
};

static void check_phases(int missing, bool carried)
{
	struct series s = { 100 * NS_PER_MS, 700, 10, phases, 4, -1, 0, 0, true, missing, carried };
	struct analysis *an = run(&s);
	const struct gpu_stats *g = &an->gpus[0];

	assert_near(total_j(an), 19485, 0.02 * 19485);
	assert_near(g->state_energy_j[ST_IDLE], 1485, 0.05 * 1485);
	assert_near(g->state_energy_j[ST_COMPUTE], 12000, 0.05 * 12000);
	assert_near(g->state_energy_j[ST_MEMORY], 6000, 0.05 * 6000);
	assert_near(proc_of(an, 100)->energy_j, 12000, 0.05 * 12000);
	assert_near(proc_of(an, 200)->energy_j, 6000, 0.05 * 6000);
	if (!missing) {
		/* every second but the last is bracketed by two readings */
		assert_near(g->energy_counter_s, 69, 1e-6);
		assert_near(g->state_energy_j[ST_IDLE], 1485, 1e-6);
		assert_near(g->state_energy_j[ST_COMPUTE], 12000, 1e-6);
		assert_near(proc_of(an, 100)->energy_j, 12000, 1e-6);
	}
	release(an);
}

static void test_phases(void **state)
{
	(void)state;
	check_phases(0, false);
	check_phases(10, false);	/* every other counter reading lost too */
	check_phases(5, false);		/* rows at 0.5 s, 2.5 s, ...: the phase changes */
	check_phases(0, true);		/* the newest reading on every row */
	check_phases(5, true);
}

/* ---- a counter reset ------------------------------------------------------ */

/*
 * 100 W for 60 s at 100 ms; the driver reloads at 30.5 s and the counter
 * restarts near 0: the reading at 31 s is smaller than at 30 s.  No
 * difference across it: 30..31 s is power x time.  100 x 60 = 6000 J,
 * the counter over 59 s (0..30 and 31..60 less the last second).
 */
static void test_counter_reset(void **state)
{
	(void)state;
	for (int missing = 0; missing <= 13; missing += 13) {
		struct series s = { 100 * NS_PER_MS, 600, 10, steady, 1, 30.5, 0, 0, false, missing, false };
		struct analysis *an = run(&s);
		const struct gpu_stats *g = &an->gpus[0];

		assert_near(total_j(an), 6000, 0.02 * 6000);
		assert_true(g->energy_counter_j >= 0);
		if (!missing)
			assert_near(g->energy_power_s, 2, 1e-6);
		release(an);
	}
}

/* ---- a gap ------------------------------------------------------------------ */

/*
 * 100 W at 1 s, rows 0..29 and 60..89: no row for 30 s.  The row at 29 s
 * covers one interval, 30..60 s is a gap.  The counter moved 3000 J over
 * the gap (the GPU drew power), but nobody saw the GPU then: no energy is
 * carried into it.  Energy 100 x 60 = 6000 J, energy_unknown_s 30 = the gap.
 */
static void test_gap(void **state)
{
	(void)state;
	for (int missing = 0; missing <= 13; missing += 13) {
		struct series s = { NS_PER_S, 90, 1, steady, 1, -1, 30, 60, false, missing, false };
		struct analysis *an = run(&s);
		const struct gpu_stats *g = &an->gpus[0];

		assert_near(g->gaps_s, 30, 1e-9);
		assert_near(g->energy_unknown_s, 30, 1e-9);
		assert_near(g->state_energy_j[ST_GAP], 0, 0);
		assert_near(total_j(an), 6000, 0.02 * 6000);
		release(an);
	}
}

/* The same at 100 ms (counter once a second): 3000 + 3000 J, 30 s unknown. */
static void test_gap_100ms(void **state)
{
	(void)state;
	for (int missing = 0; missing <= 10; missing += 10) {
		struct series s = { 100 * NS_PER_MS, 900, 10, steady, 1, -1, 30, 60, false, missing, false };
		struct analysis *an = run(&s);
		const struct gpu_stats *g = &an->gpus[0];
		double gap = 30;	/* the row at 29.9 s covers 29.9..30.0 s */

		assert_near(g->gaps_s, gap, 1e-9);
		assert_near(g->energy_unknown_s, gap, 1e-9);
		assert_near(total_j(an), 6000, 0.02 * 6000);
		release(an);
	}
}

/*
 * A GPU lost after 1 s of 3 s at 100 ms (rows 10..29 say "lost", no
 * readings): the only counter reading is at 0 s, the run it starts ends at
 * the lost row, so 0..1 s is power x time, 100 W x 1 s = 100 J; 1..3 s is
 * down, no busy time, no energy, 2 s of energy unknown.
 */
static void test_lost_gpu(void **state)
{
	struct analysis *an = xcalloc(1, sizeof(*an));
	const struct gpu_stats *g = &an->gpus[0];
	struct rec r;

	(void)state;
	analysis_init(an, NULL);
	for (int i = 0; i < 30; i++) {
		memset(&r, 0, sizeof(r));
		r.kind = REC_SAMPLE;
		r.time_kind = TK_ABS;
		r.t_ns = T0_S * NS_PER_S + i * 100 * NS_PER_MS;
		r.gpu_index = 0;
		r.uuid = r.name = STR_NONE;
		if (i >= 10) {
			r.status = GS_LOST;
		} else {
			r.present = 1u << M_UTIL_GPU | 1u << M_POWER;
			r.v[M_UTIL_GPU] = 20;
			r.v[M_POWER] = 100;
			if (i == 0) {
				r.present |= 1u << M_ENERGY;
				r.v[M_ENERGY] = 4e6;
			}
		}
		analysis_add(an, &r, &no_strs, src_dmon);
	}
	analysis_finish(an);
	assert_near(g->state_s[ST_DOWN], 2, 1e-9);
	assert_near(g->state_busy_s[ST_DOWN], 0, 0);
	assert_near(g->state_energy_j[ST_DOWN], 0, 0);
	assert_near(g->energy_unknown_s, 2, 1e-9);
	assert_near(total_j(an), 100, 1e-6);
	release(an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steady_3s_100ms),
		cmocka_unit_test(test_steady_6s_1s),
		cmocka_unit_test(test_steady_1h_1s),
		cmocka_unit_test(test_counter_over_power),
		cmocka_unit_test(test_phases),
		cmocka_unit_test(test_counter_reset),
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_gap_100ms),
		cmocka_unit_test(test_lost_gpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
