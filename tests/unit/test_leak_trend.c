/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the slow-leak detector (det_leak_trend.c) on synthetic
 * memory series fed through analysis_add: the leaks it must find and the
 * shapes it must leave alone, each also with 5 % of the samples missing.
 * Expected slopes come from the generators' parameters.
 */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

#define T0_S INT64_C(1800000000)
#define H200_MIB 143771.0

static struct batch no_strs;
static const char src_a[] = "a.csv";

/* A shape: memory used at second t (before jitter). */
typedef double (*shape_fn)(double t);

static uint64_t rng = 1;

static double uniform(void)	/* xorshift64*, [0, 1) */
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (double)((rng * UINT64_C(2685821657736338717)) >> 11) / 9007199254740992.0;
}

/* 1 s samples for dur_s seconds, +/- jitter MiB uniform, whole MiB like nvidia-smi. */
static struct analysis *run(shape_fn f, double dur_s, double jitter, bool missing)
{
	struct analysis *an = xcalloc(1, sizeof(*an));

	rng = 12345;
	analysis_init(an, NULL);
	for (double t = 0; t < dur_s; t++) {
		struct rec r;
		double j = (uniform() * 2 - 1) * jitter;

		if (missing && uniform() < 0.05)
			continue;
		memset(&r, 0, sizeof(r));
		r.kind = REC_SAMPLE;
		r.time_kind = TK_ABS;
		r.t_ns = (T0_S + (int64_t)t) * NS_PER_S;
		r.gpu_index = 0;
		r.uuid = r.name = STR_NONE;
		r.present = 1u << M_UTIL_GPU | 1u << M_MEM_USED | 1u << M_MEM_TOTAL;
		r.v[M_UTIL_GPU] = 30;
		r.v[M_MEM_USED] = round(fmax(0, f(t) + j));
		r.v[M_MEM_TOTAL] = H200_MIB;
		analysis_add(an, &r, &no_strs, src_a);
	}
	analysis_finish(an);
	return an;
}

static size_t count_kind(const struct analysis *an, const char *prefix)
{
	size_t n = 0;

	for (size_t i = 0; i < an->nfinds; i++)
		n += !strncmp(an->finds[i].kind, prefix, strlen(prefix));
	return n;
}

static const struct finding *find_kind(const struct analysis *an, const char *kind)
{
	for (size_t i = 0; i < an->nfinds; i++)
		if (!strcmp(an->finds[i].kind, kind))
			return &an->finds[i];
	fail_msg("no %s finding", kind);
	return NULL;
}

static void release(struct analysis *an)
{
	analysis_release(an);
	free(an);
}

/* ---- a slow creep: 5000 MiB + 58 MiB/h for 12 h, +/- 40 MiB ------------- */

#define CREEP_BASE 5000.0
#define CREEP_RATE 58.0		/* MiB/h */
#define CREEP_DUR (12 * 3600.0)

static double creep(double t)
{
	return CREEP_BASE + CREEP_RATE * t / 3600;
}

static void check_creep(bool missing)
{
	struct analysis *an = run(creep, CREEP_DUR, 40, missing);
	const struct finding *f = find_kind(an, "memory_leak");
	const char *p;
	double ci, days, want_days;

	assert_int_equal(count_kind(an, "memory_leak"), 1);
	p = strstr(f->message, "+/- ");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "+/- %lf", &ci), 1);
	assert_true(ci > 0 && ci < 5);
	assert_true(fabs(f->value - CREEP_RATE) <= ci);
	/* full when 5000 + 58 * 12 + 58 * h reaches the total */
	want_days = (H200_MIB - creep(CREEP_DUR)) / CREEP_RATE / 24;
	p = strstr(f->message, "full in ");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "full in %lf", &days), 1);
	assert_near(days, want_days, 0.05 * want_days);
	assert_true(f->t1_ns - f->t0_ns > (int64_t)(CREEP_DUR - 120) * NS_PER_S);
	release(an);
}

static void test_creep(void **state)
{
	(void)state;
	check_creep(false);
	check_creep(true);
}

/* ---- a sawtooth: 2000 MiB + 200 MiB/h, restarted every 4 h, 5 cycles ----- */

#define SAW_RATE 200.0
#define SAW_CYCLE (4 * 3600.0)

static double saw(double t)
{
	return 2000 + SAW_RATE * fmod(t, SAW_CYCLE) / 3600;
}

static void check_saw(bool missing)
{
	struct analysis *an = run(saw, 5 * SAW_CYCLE, 40, missing);
	const struct finding *f;
	int restarts;

	assert_int_equal(count_kind(an, "memory_leak"), 1);
	f = find_kind(an, "memory_leak_sawtooth");
	assert_near(f->value, SAW_RATE, 0.03 * SAW_RATE);
	assert_int_equal(sscanf(strstr(f->message, "restarted"), "restarted %d", &restarts), 1);
	assert_int_equal(restarts, 4);
	release(an);
}

static void test_sawtooth(void **state)
{
	(void)state;
	check_saw(false);
	check_saw(true);
}

/* ---- shapes that are not leaks ------------------------------------------ */

static double flat(double t)
{
	(void)t;
	return 20000;
}

/* a training job: 40 GiB allocated in its first 4 s, then a plateau */
static double plateau(double t)
{
	return t < 4 ? 500 + 10000 * t : 40500;
}

/* a caching allocator: 2 GiB more at 1, 2 and 3 h, then it stays */
static double steps(double t)
{
	return 10000 + 2048 * fmin(3, floor(t / 3600));
}

/* a job holding 30 GiB for 11 h that frees it all for its last hour */
static double freed(double t)
{
	return t < 11 * 3600 ? 30000 : 500;
}

static void check_none(shape_fn f, bool missing)
{
	struct analysis *an = run(f, 12 * 3600, 40, missing);

	for (size_t i = 0; i < an->nfinds; i++)
		if (!strncmp(an->finds[i].kind, "memory_leak", 11))
			fail_msg("missing %d %s: %s", missing, an->finds[i].kind, an->finds[i].message);
	release(an);
}

static void test_not_leaks(void **state)
{
	shape_fn shapes[] = { flat, plateau, steps, freed };

	(void)state;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		check_none(shapes[i], false);
		check_none(shapes[i], true);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_creep),
		cmocka_unit_test(test_sawtooth),
		cmocka_unit_test(test_not_leaks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
