/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for formats/place: logs without time placed by their content.
 * The truth is built here: a synthetic workload (phases of random length and
 * level, seeded), a timed log of it, and a time-less copy cut at a random
 * start with 5 % of its rows dropped and noise added; the offset the copy
 * was cut at is known, so its placement is checked sample by sample.
 */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>
#include <zlib.h>

#include "formats/driver.h"
#include "formats/place.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

/* 2026-11-29T22:00:00Z = 1795989600 s */
#define T0_S INT64_C(1795989600)
#define N_REF 400

static uint64_t rng_state;
static double rnd(void)	/* uniform in [0, 1) (xorshift64*) */
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * UINT64_C(2685821657736338717)) >> 11) / 9007199254740992.0;
}
static double noise(double amp) { return (rnd() * 2 - 1) * amp; }

/* A workload: phases of 5..25 s at random power and utilization levels. */
struct work {
	double pwr[N_REF], sm[N_REF];
	int clk[N_REF];
};
static void make_work(struct work *w, uint64_t seed)
{
	double p = 0, u = 0;
	int left = 0, clk = 0;

	rng_state = seed;
	for (int i = 0; i < N_REF; i++) {
		if (!left--) {
			left = 5 + (int)(rnd() * 20);
			p = 80 + rnd() * 550;
			u = rnd() < 0.3 ? 0 : rnd() * 100;
			clk = u > 0 ? 1980 : 345;
		}
		w->pwr[i] = round(p + noise(8));
		w->sm[i] = fmax(0, round(u + noise(3)));
		w->clk[i] = clk;
	}
}

/* The time-less copy: rows [start, start+len) with 5 % dropped; want[k] is
 * the reference row of sample k. */
struct cut {
	int want[N_REF];
	int n;
};
static void make_cut(struct cut *c, int start, int len, uint64_t seed)
{
	rng_state = seed;
	c->n = 0;
	for (int i = start; i < start + len && i < N_REF; i++)
		if (rnd() >= 0.05)
			c->want[c->n++] = i;
}

static void series_of(struct pl_series *s, const struct work *w, const struct cut *c, int n,
		      bool noisy)
{
	memset(s, 0, sizeof(*s));
	s->step_ns = NS_PER_S;
	s->t0_ns = T0_S * NS_PER_S;
	for (int k = 0; k < n; k++) {
		int i = c ? c->want[k] : k;
		pl_series_add(s, (size_t)k, PL_POWER, w->pwr[i] + (noisy ? noise(4) : 0));
		pl_series_add(s, (size_t)k, PL_UTIL, w->sm[i]);
		pl_series_add(s, (size_t)k, PL_CLOCK, w->clk[i]);
	}
}

/* ---- the aligner on series ------------------------------------------------ */

static void test_align_cut_dropped_noisy(void **state)
{
	struct work w;
	(void)state;
	make_work(&w, 42);
	for (uint64_t trial = 1; trial <= 10; trial++) {
		struct cut c;
		struct pl_series ref, x;
		struct pl_fit f;
		int start;
		rng_state = trial * 7919;
		start = 20 + (int)(rnd() * 150);
		make_cut(&c, start, 200, trial);
		series_of(&ref, &w, NULL, N_REF, false);
		series_of(&x, &w, &c, c.n, true);
		assert_int_equal(pl_align(&x, &ref, &f), 0);
		if (!f.placed)
			fail_msg("trial %d (start %d): not placed: %s", (int)trial, start, f.why);
		/* every sample within one interval of where it was cut from */
		for (int k = 0; k < c.n; k++)
			assert_near((double)(f.t_ns[k] - (T0_S + c.want[k]) * NS_PER_S) / NS_PER_S, 0, 1.0);
		assert_true(f.r > 0.85);
		pl_fit_release(&f);
		pl_series_release(&ref);
		pl_series_release(&x);
	}
}

static void test_align_unrelated_run_not_placed(void **state)
{
	struct work a, b;
	(void)state;
	make_work(&a, 42);
	for (uint64_t seed = 100; seed < 110; seed++) {
		struct cut c;
		struct pl_series ref, x;
		struct pl_fit f;
		make_work(&b, seed);
		make_cut(&c, 50, 200, seed);
		series_of(&ref, &a, NULL, N_REF, false);
		series_of(&x, &b, &c, c.n, true);
		pl_align(&x, &ref, &f);
		if (f.placed)
			fail_msg("seed %d: an unrelated run was placed (r %.3f)", (int)seed, f.r);
		assert_true(f.why[0] != '\0');
		pl_series_release(&ref);
		pl_series_release(&x);
	}
}

static void test_align_flat_idle_not_placeable(void **state)
{
	struct work w;
	struct pl_series ref, x;
	struct pl_fit f;
	(void)state;
	make_work(&w, 42);
	series_of(&ref, &w, NULL, N_REF, false);
	memset(&x, 0, sizeof(x));
	x.step_ns = NS_PER_S;
	rng_state = 5;
	for (size_t k = 0; k < 200; k++) {
		pl_series_add(&x, k, PL_POWER, 78 + noise(1));
		pl_series_add(&x, k, PL_UTIL, 0);
		pl_series_add(&x, k, PL_CLOCK, 345);
	}
	pl_align(&x, &ref, &f);
	assert_false(f.placed);
	assert_non_null(strstr(f.why, "barely change"));
	pl_series_release(&ref);
	pl_series_release(&x);
}

/* ---- through the driver, on files ---------------------------------------- */

static char dir[64];

static void set_mtime(const char *path, int64_t t_s)
{
	struct utimbuf u = { (time_t)t_s, (time_t)t_s };
	assert_int_equal(utime(path, &u), 0);
}

/* Write text to dir/name (gzip'ed when the name ends in .gz); returns the path. */
static char *put(const char *name, const char *text)
{
	char *p = xmalloc(strlen(dir) + strlen(name) + 2);
	sprintf(p, "%s/%s", dir, name);
	if (strstr(name, ".gz")) {
		gzFile g = gzopen(p, "wb");
		assert_non_null(g);
		assert_int_equal(gzwrite(g, text, (unsigned)strlen(text)), (int)strlen(text));
		gzclose(g);
	} else {
		FILE *f = fopen(p, "w");
		assert_non_null(f);
		fputs(text, f);
		fclose(f);
	}
	return p;
}

static char *text_dmon_dt(const struct work *w, int64_t t0_s)
{
	char *t = xmalloc(N_REF * 160 + 512), *p = t;
	p += sprintf(p, "#Date        Time         gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk\n"
			"#YYYYMMDD    HH:MM:SS     Idx      W      C      C      %%      %%      %%      %%      %%      %%    MHz    MHz\n");
	for (int i = 0; i < N_REF; i++) {
		int y, mo, d;
		int64_t s = t0_s + i;
		civil_from_days(s / 86400, &y, &mo, &d);
		p += sprintf(p, " %04d%02d%02d    %02d:%02d:%02d       0  %5.0f     40     40  %5.0f      5      0      0      0      0   3201   %4d\n",
			     y, mo, d, (int)(s % 86400 / 3600), (int)(s % 3600 / 60), (int)(s % 60),
			     w->pwr[i], w->sm[i], w->clk[i]);
	}
	return t;
}

static char *text_tally_csv(const struct work *w, int64_t t0_s)
{
	char *t = xmalloc(N_REF * 120 + 256), *p = t;
	p += sprintf(p, "# gputally-csv v1\ntime,gpu,uuid,util_gpu_pct,power_w,sm_clock_mhz\n");
	for (int i = 0; i < N_REF; i++) {
		char ts[40];
		p += sprintf(p, "%s,0,GPU-fa4e0000-0000-4000-8000-000000000000,%.0f,%.0f,%d\n",
			     time_rfc3339(ts, sizeof(ts), (t0_s + i) * NS_PER_S), w->sm[i], w->pwr[i],
			     w->clk[i]);
	}
	return t;
}

/* plain dmon (no time columns) of the rows in c, with noise on power */
static char *text_dmon_plain(const struct work *w, const struct cut *c, uint64_t seed)
{
	char *t = xmalloc(N_REF * 160 + 512), *p = t;
	rng_state = seed;
	for (int k = 0; k < c->n; k++) {
		int i = c->want[k];
		if (k % 44 == 0)
			p += sprintf(p, "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk\n"
					"# Idx      W      C      C      %%      %%      %%      %%      %%      %%    MHz    MHz\n");
		p += sprintf(p, "    0  %5.0f     40     40  %5.0f      5      0      0      0      0   3201   %4d\n",
			     w->pwr[i] + round(noise(4)), w->sm[i], w->clk[i]);
	}
	return t;
}

struct firsts {
	const struct input_stat *in[8];
	int64_t first_ns[8];
	size_t n[8];
	int nin;
};
static int note_first(void *ud, const struct input_stat *in, const struct rec *r,
		      const struct batch *b)
{
	struct firsts *f = ud;
	int i;
	(void)b;
	if (r->kind != REC_SAMPLE)
		return 0;
	for (i = 0; i < f->nin && f->in[i] != in; i++)
		;
	if (i == f->nin) {
		if (f->nin == 8)
			return 0;
		f->in[f->nin++] = in;
		f->first_ns[i] = r->t_ns;
	}
	f->n[i]++;
	return 0;
}

static struct ingest_opts opts(void)
{
	struct ingest_opts o;
	memset(&o, 0, sizeof(o));
	o.date_days = INT64_MIN;
	o.interval_ns = NS_PER_S;
	o.threads = 2;
	return o;
}

static const struct input_stat *find_input(const struct ingest_result *res, const char *name)
{
	for (size_t i = 0; i < res->nr; i++)
		if (strstr(res->inputs[i].path, name))
			return &res->inputs[i];
	fail_msg("no input %s", name);
	return NULL;
}

static int64_t first_of(const struct firsts *f, const struct input_stat *in)
{
	for (int i = 0; i < f->nin; i++)
		if (f->in[i] == in)
			return f->first_ns[i];
	return INT64_MIN;
}

static void run_dir(struct ingest_result *res, struct firsts *f, const struct ingest_opts *o)
{
	const char *paths[] = { dir };
	struct ingest_sink sink = { .ud = f, .rec = note_first };
	struct gl_err err = { 0 };
	memset(res, 0, sizeof(*res));
	memset(f, 0, sizeof(*f));
	assert_int_equal(ingest_run(paths, 1, o, &sink, res, &err), 0);
}

static void clean_dir(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void new_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/gputally-place-XXXXXX");
	assert_non_null(mkdtemp(dir));
}

/*
 * One timed log (dmon -o DT, or the recorder's CSV) and a time-less dmon
 * copy cut from it (plain or gzip'ed), with every file time "now": the copy
 * must be placed by content, its first sample within one interval.
 */
static void one_case(char *(*timed)(const struct work *, int64_t), const char *timed_name,
		     const char *copy_name)
{
	struct work w;
	struct cut c;
	struct ingest_result res;
	struct firsts f;
	struct ingest_opts o = opts();
	const struct input_stat *in;
	char *t, *p1, *p2;
	int start;

	new_dir();
	make_work(&w, 42);
	rng_state = 99;
	start = 30 + (int)(rnd() * 120);
	make_cut(&c, start, 220, 7);
	t = timed(&w, T0_S);
	p1 = put(timed_name, t);
	free(t);
	t = text_dmon_plain(&w, &c, 3);
	p2 = put(copy_name, t);
	free(t);
	run_dir(&res, &f, &o);
	in = find_input(&res, copy_name);
	assert_null(in->skip_reason[0] ? in->skip_reason : NULL);
	assert_non_null(in->placed_ns);
	assert_non_null(strstr(in->time_basis, "its samples match"));
	assert_non_null(strstr(in->time_basis, timed_name));
	assert_near((double)(first_of(&f, in) - (T0_S + c.want[0]) * NS_PER_S) / NS_PER_S, 0, 1.0);
	assert_near((double)in->place_uncertain_s, 1.0, 0);
	assert_true(in->place_r > 0.85);
	ingest_result_release(&res);
	/* --start overrides: the first sample where it says */
	o.has_start = true;
	o.start_ns = (T0_S + 5) * NS_PER_S;
	run_dir(&res, &f, &o);
	in = find_input(&res, copy_name);
	assert_int_equal(first_of(&f, in), (T0_S + 5) * NS_PER_S);
	assert_non_null(strstr(in->time_basis, "--start"));
	ingest_result_release(&res);
	unlink(p1);
	unlink(p2);
	free(p1);
	free(p2);
	clean_dir();
}

static void test_file_dmon_copy(void **state)
{
	(void)state;
	one_case(text_dmon_dt, "dmon_DT.log", "dmon_default.log");
}

static void test_file_dmon_copy_gzip(void **state)
{
	(void)state;
	one_case(text_dmon_dt, "dmon_DT.log.gz", "dmon_default.log.gz");
}

static void test_file_recorder_csv(void **state)
{
	(void)state;
	one_case(text_tally_csv, "gputally-20261129.csv", "dmon_default.log");
}

/* Two runs of the same GPU two days apart, each with its time-less copy:
 * each copy goes with its own run. */
static void test_file_two_runs_two_days(void **state)
{
	struct work a, b;
	struct cut ca, cb;
	struct ingest_result res;
	struct firsts f;
	struct ingest_opts o = opts();
	char *t;
	const int64_t t1 = T0_S + 2 * 86400;
	(void)state;

	new_dir();
	make_work(&a, 42);
	make_work(&b, 4242);
	make_cut(&ca, 60, 200, 11);
	make_cut(&cb, 100, 200, 12);
	t = text_dmon_dt(&a, T0_S); free(put("a_DT.log", t)); free(t);
	t = text_dmon_dt(&b, t1); free(put("b_DT.log", t)); free(t);
	t = text_dmon_plain(&a, &ca, 1); free(put("a_plain.log", t)); free(t);
	t = text_dmon_plain(&b, &cb, 2); free(put("b_plain.log", t)); free(t);
	run_dir(&res, &f, &o);
	assert_near((double)(first_of(&f, find_input(&res, "a_plain")) - (T0_S + ca.want[0]) * NS_PER_S) / NS_PER_S, 0, 1.0);
	assert_near((double)(first_of(&f, find_input(&res, "b_plain")) - (t1 + cb.want[0]) * NS_PER_S) / NS_PER_S, 0, 1.0);
	assert_ptr_equal(strstr(find_input(&res, "a_plain")->place_ref, "a_DT"),
			 find_input(&res, "a_plain")->place_ref + strlen(dir) + 1);
	ingest_result_release(&res);
	clean_dir();
}

/*
 * A flat time-less log beside a timed one whose file time was reset (copied
 * two days after it ended): content cannot place it and the file time is
 * contradicted, so it is not counted.  With honest file times and no
 * overlap it is placed by file time, flagged weak.
 */
static void test_file_flat_not_counted(void **state)
{
	struct work w;
	struct ingest_result res;
	struct firsts f;
	struct ingest_opts o = opts();
	char *t, *p1, *p2, flat[8192], *q = flat;
	const struct input_stat *in;
	(void)state;

	new_dir();
	make_work(&w, 42);
	t = text_dmon_dt(&w, T0_S);
	p1 = put("timed_DT.log", t);
	free(t);
	q += sprintf(q, "# gpu    pwr     sm\n# Idx      W      %%\n");
	for (int k = 0; k < 100; k++)
		q += sprintf(q, "    0     78      0\n");
	p2 = put("idle.log", flat);
	set_mtime(p1, T0_S + 2 * 86400);
	set_mtime(p2, T0_S + 2 * 86400);
	run_dir(&res, &f, &o);
	in = find_input(&res, "idle.log");
	assert_non_null(strstr(in->skip_reason, "not counted"));
	assert_non_null(strstr(in->skip_reason, "barely change"));
	assert_int_equal(first_of(&f, in), INT64_MIN);
	ingest_result_release(&res);
	/* honest file times: the timed log's is its end, the idle log's an hour later */
	set_mtime(p1, T0_S + N_REF - 1);
	set_mtime(p2, T0_S + 3600);
	run_dir(&res, &f, &o);
	in = find_input(&res, "idle.log");
	assert_string_equal(in->skip_reason, "");
	assert_non_null(strstr(in->time_basis, "file modification time"));
	assert_non_null(strstr(in->time_basis, "weak"));
	assert_int_equal(first_of(&f, in), (T0_S + 3600 - 99) * NS_PER_S);
	ingest_result_release(&res);
	/* honest, but by file time it would overlap the timed log: not counted */
	set_mtime(p2, T0_S + 200);
	run_dir(&res, &f, &o);
	in = find_input(&res, "idle.log");
	assert_non_null(strstr(in->skip_reason, "overlap"));
	ingest_result_release(&res);
	free(p1);
	free(p2);
	clean_dir();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_align_cut_dropped_noisy),
		cmocka_unit_test(test_align_unrelated_run_not_placed),
		cmocka_unit_test(test_align_flat_idle_not_placeable),
		cmocka_unit_test(test_file_dmon_copy),
		cmocka_unit_test(test_file_dmon_copy_gzip),
		cmocka_unit_test(test_file_recorder_csv),
		cmocka_unit_test(test_file_two_runs_two_days),
		cmocka_unit_test(test_file_flat_not_counted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
