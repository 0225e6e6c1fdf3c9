/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the by_path protocol through the nsys-sqlite format: an
 * export with more rows than one piece holds (so the driver hands several
 * empty pieces before the last), alone, with a dmon log beside it, and with
 * worker threads; every row must arrive once, with its time and duration.
 */
#include "test.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/driver.h"

#define NKERN 40000		/* more than two pieces of 16384 rows */
#define BASE_NS INT64_C(1795992421000000000)	/* 2026-11-29T22:47:01Z */

static char dir[64];

static void path_in(char *buf, size_t cap, const char *name)
{
	snprintf(buf, cap, "%s/%s", dir, name);
}

/* Kernel i: start 1000 i, duration i % 997 ns, device i % 2. */
static void make_export(const char *path)
{
	sqlite3 *db;
	sqlite3_stmt *q;
	char sql[160];

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
		"CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
		"INSERT INTO StringIds VALUES (1, 'k');"
		"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,"
		" streamId INTEGER, correlationId INTEGER, globalPid INTEGER, shortName INTEGER);"
		"CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER);"
		"BEGIN;", NULL, NULL, NULL), SQLITE_OK);
	snprintf(sql, sizeof(sql), "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (%lld)", (long long)BASE_NS);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, ?, 7, ?, 0, 1)",
					    -1, &q, NULL), SQLITE_OK);
	for (int i = 0; i < NKERN; i++) {
		sqlite3_bind_int64(q, 1, 1000LL * i);
		sqlite3_bind_int64(q, 2, 1000LL * i + i % 997);
		sqlite3_bind_int(q, 3, i % 2);
		sqlite3_bind_int(q, 4, i);
		assert_int_equal(sqlite3_step(q), SQLITE_DONE);
		sqlite3_reset(q);
	}
	sqlite3_finalize(q);
	assert_int_equal(sqlite3_exec(db, "COMMIT;", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

struct got {
	int kernels, samples, summaries, bad;
	int64_t dur_sum;
	unsigned char *seen;		/* kernel i (start 1000 i) arrived */
	const struct batch *last;	/* the batch of the last kernel: a change is a new piece */
	int pieces;
};

static int sink(void *ud, const struct input_stat *in, const struct rec *r, const struct batch *b)
{
	struct got *g = ud;
	(void)in;
	if (r->kind == REC_BAD)
		g->bad++;
	if (r->kind == REC_SAMPLE)
		g->samples++;
	if (r->kind != REC_TRACE)
		return 0;
	if (r->ev == TR_SUMMARY) {
		g->summaries++;
		assert_int_equal(r->tr.corr, NKERN);
		assert_int_equal(r->tr.stream, NKERN);
		return 0;
	}
	assert_int_equal(r->ev, TR_KERNEL);
	assert_int_equal(r->tr.corr, (r->t_ns - BASE_NS) / 1000);
	assert_int_equal(r->gpu_index, r->tr.corr % 2);
	assert_false(g->seen[r->tr.corr]);
	g->seen[r->tr.corr] = 1;
	g->kernels++;
	g->dur_sum += r->tr.dur_ns;
	if (b != g->last)
		g->pieces++;
	g->last = b;
	return 0;
}

static void run_case(const char *const *paths, size_t n, int threads, int want_samples)
{
	struct ingest_opts o = { 0 };
	struct ingest_result res = { 0 };
	struct ingest_sink s = { 0 };
	struct got g = { 0 };
	int64_t want_dur = 0;

	for (int i = 0; i < NKERN; i++)
		want_dur += i % 997;
	o.date_days = INT64_MIN;
	o.interval_ns = 1000000000;
	o.threads = threads;
	g.seen = calloc(NKERN, 1);
	s.ud = &g;
	s.rec = sink;
	assert_int_equal(ingest_run(paths, n, &o, &s, &res, NULL), 0);
	assert_int_equal(g.kernels, NKERN);
	assert_int_equal(g.summaries, 1);
	assert_int_equal(g.bad, 0);
	assert_int_equal(g.samples, want_samples);
	assert_int_equal(g.dur_sum, want_dur);
	assert_true(g.pieces >= 3);	/* 40000 rows: at least three pieces of 16384 */
	for (size_t i = 0; i < res.nr; i++)
		if (res.inputs[i].format && !strcmp(res.inputs[i].format->id, "nsys-sqlite"))
			assert_true(res.inputs[i].bytes > 0);	/* the file's size */
	free(g.seen);
	ingest_result_release(&res);
}

static void test_many_pieces(void **state)
{
	char db[96], log[96];
	const char *one[1] = { db };
	const char *two[2] = { db, log };
	FILE *f;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gputally-nsys-XXXXXX");
	assert_non_null(mkdtemp(dir));
	path_in(db, sizeof(db), "big.sqlite");
	path_in(log, sizeof(log), "dmon.log");
	make_export(db);
	f = fopen(log, "w");
	assert_non_null(f);
	fputs("#Date        Time         gpu    pwr     sm\n#YYYYMMDD    HH:MM:SS     Idx      W      %\n", f);
	for (int s = 0; s < 10; s++)
		fprintf(f, " 20261129    22:47:%02d       0    100     50\n", s);
	fclose(f);
	for (int threads = 1; threads <= 2; threads++) {
		run_case(one, 1, threads, 0);
		run_case(two, 2, threads, 10);
	}
	unlink(db);
	unlink(log);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many_pieces),
	};
	setenv("TZ", "UTC", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
