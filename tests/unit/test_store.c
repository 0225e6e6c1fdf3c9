/* SPDX-License-Identifier: MIT */
/* The store: fingerprints cut anywhere, migrations from every older version,
 * and the stored files a later ingest reads again. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "test.h"

#include "analysis/analysis.h"
#include "analysis/detector.h"
#include "store/store.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

static void fill(unsigned char *buf, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (unsigned char)(seed >> 16);
	}
}

static void fp_of(const unsigned char *p, size_t n, char out[FP_HEX])
{
	struct fp_state f;
	fp_init(&f);
	fp_update(&f, p, n);
	fp_hex(&f, out);
}

/* The same bytes in any pieces give the same fingerprint. */
static void test_fp_cuts(void **state)
{
	static unsigned char buf[10007];
	char whole[FP_HEX], cut[FP_HEX];
	struct fp_state f;
	size_t off = 0, k = 1;

	(void)state;
	fill(buf, sizeof(buf), 7);
	fp_of(buf, sizeof(buf), whole);
	fp_init(&f);
	while (off < sizeof(buf)) {
		size_t n = k % 13 + (k % 5 == 0 ? 700 : 0);
		if (n > sizeof(buf) - off)
			n = sizeof(buf) - off;
		fp_update(&f, buf + off, n);
		off += n;
		k++;
	}
	fp_hex(&f, cut);
	assert_string_equal(whole, cut);
	assert_int_equal(strlen(whole), FP_HEX - 1);
}

/* One byte changed, one byte more, or the bytes moved: another fingerprint. */
static void test_fp_differs(void **state)
{
	static unsigned char a[5000], b[5001];
	char fa[FP_HEX], fb[FP_HEX];

	(void)state;
	fill(a, sizeof(a), 3);
	memcpy(b, a, sizeof(a));
	fp_of(a, sizeof(a), fa);
	b[2500] ^= 1;
	fp_of(b, sizeof(a), fb);
	assert_string_not_equal(fa, fb);
	b[2500] ^= 1;
	b[5000] = 0;
	fp_of(b, sizeof(b), fb);
	assert_string_not_equal(fa, fb);
	fp_of(a + 1, sizeof(a) - 1, fb);
	assert_string_not_equal(fa, fb);
	fp_of((const unsigned char *)"", 0, fa);
	fp_of((const unsigned char *)"\0", 1, fb);
	assert_string_not_equal(fa, fb);
}

/* A prefix fingerprint taken mid-stream is the fingerprint of the prefix alone (grown files). */
static void test_fp_prefix(void **state)
{
	static unsigned char buf[9000];
	char mid[FP_HEX], alone[FP_HEX];
	struct fp_state f;

	(void)state;
	fill(buf, sizeof(buf), 11);
	for (size_t cutlen = 1; cutlen < 40; cutlen += 3) {
		fp_init(&f);
		fp_update(&f, buf, 4096);
		fp_update(&f, buf + 4096, cutlen);
		fp_hex(&f, mid);
		fp_update(&f, buf + 4096 + cutlen, 100);	/* and it goes on */
		fp_of(buf, 4096 + cutlen, alone);
		assert_string_equal(mid, alone);
	}
}

static int exec(sqlite3 *db, const char *sql)
{
	return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

/* A store at every older version (built from the migration list itself) opens migrated to the current one. */
static void test_migrations(void **state)
{
	char path[] = "/tmp/gputally-store-XXXXXX";
	int fd;

	(void)state;
	assert_null(store_migration_sql(0));
	assert_null(store_migration_sql(STORE_VERSION + 1));
	for (int v = 1; v < STORE_VERSION; v++) {
		struct store s;
		struct gl_err err = { 0 };
		sqlite3 *db;
		sqlite3_stmt *st;
		char sql[96];

		fd = mkstemp(path);
		assert_true(fd >= 0);
		close(fd);
		assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
		for (int k = 1; k <= v; k++)
			assert_int_equal(exec(db, store_migration_sql(k)), SQLITE_OK);
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d; PRAGMA application_id = %d", v, STORE_APP_ID);
		assert_int_equal(exec(db, sql), SQLITE_OK);
		assert_int_equal(exec(db, "INSERT INTO gpus (idx, uuid) VALUES (3, 'GPU-x')"), SQLITE_OK);
		sqlite3_close(db);

		/* read-only: refused and left alone, except from STORE_READ_OLDEST
		 * on, read as it is (not migrated) */
		if (v < STORE_READ_OLDEST) {
			assert_int_not_equal(store_open(&s, path, STORE_READ, &err), 0);
			assert_non_null(strstr(err.msg, "older"));
		} else {
			assert_int_equal(store_open(&s, path, STORE_READ, &err), 0);
			assert_int_equal(s.version_found, v);
			assert_int_equal(sqlite3_prepare_v2(s.db, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
			assert_int_equal(sqlite3_step(st), SQLITE_ROW);
			assert_int_equal(sqlite3_column_int(st, 0), v);
			sqlite3_finalize(st);
			store_close(&s);
		}
		assert_int_equal(store_open(&s, path, STORE_WRITE, &err), 0);
		assert_int_equal(s.version_found, v);
		assert_int_equal(sqlite3_prepare_v2(s.db, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(st, 0), STORE_VERSION);
		sqlite3_finalize(st);
		/* what the old version held is still there, and v2's table exists */
		assert_int_equal(sqlite3_prepare_v2(s.db, "SELECT idx, (SELECT count(*) FROM runs), (SELECT count(*) FROM hours) FROM gpus", -1, &st, NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(st, 0), 3);
		sqlite3_finalize(st);
		store_close(&s);
		/* and it opens read-only now */
		assert_int_equal(store_open(&s, path, STORE_READ, &err), 0);
		store_close(&s);
		unlink(path);
		strcpy(path, "/tmp/gputally-store-XXXXXX");
	}
}

/* An empty file becomes a store; a foreign database and a newer store are refused. */
static void test_refusals(void **state)
{
	char path[] = "/tmp/gputally-store-XXXXXX";
	struct store s;
	struct gl_err err = { 0 };
	sqlite3 *db;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_not_equal(store_open(&s, path, STORE_READ, &err), 0);	/* empty: not a store yet */
	assert_int_equal(store_open(&s, path, STORE_WRITE, &err), 0);
	assert_int_equal(s.version_found, 0);
	store_close(&s);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(exec(db, "PRAGMA user_version = 1000"), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(store_open(&s, path, STORE_WRITE, &err), GL_EUNSUPPORTED);
	assert_non_null(strstr(err.msg, "newer"));
	unlink(path);

	fd = mkstemp(strcpy(path, "/tmp/gputally-store-XXXXXX"));
	close(fd);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(exec(db, "CREATE TABLE other (x); PRAGMA user_version = 1"), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(store_open(&s, path, STORE_WRITE, &err), GL_EUNSUPPORTED);
	assert_non_null(strstr(err.msg, "another program"));
	unlink(path);
}

/*
 * The stored files a later ingest may read again: the latest content of
 * each path only, held ones (a format, no span) whatever the window, and
 * the others when their span meets it; a row of no format never.
 */
static void test_stored_files(void **state)
{
	char path[] = "/tmp/gputally-store-XXXXXX";
	struct store s;
	struct gl_err err = { 0 };
	struct stored_file *f = NULL;
	size_t n = 0;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(store_open(&s, path, STORE_WRITE, &err), 0);
	assert_int_equal(store_exec(&s,
				    "INSERT INTO files (id, path, size, hash, head, format, t_first_ns, t_last_ns, ingested_at)"
				    " VALUES (1, 'grown.log', 10, 'a', 'h', 'smi-dmon', 100, 200, 0),"
				    " (2, 'grown.log', 20, 'b', 'h', 'smi-dmon', 100, 900, 0),"
				    " (3, 'held_T.log', 5, 'c', 'c', 'smi-dmon', NULL, NULL, 0),"
				    " (4, 'other.csv', 7, 'd', 'd', 'smi-query', 5000, 6000, 0),"
				    " (5, 'README', 3, 'e', 'e', NULL, NULL, NULL, 0)",
				    &err),
			 0);
	/* a window of nothing: the held file alone */
	assert_int_equal(store_stored_files(&s, INT64_MAX, INT64_MIN, &f, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].path, "held_T.log");
	assert_true(f[0].t_first_ns == INT64_MIN);
	free(f);
	/* [300, 400]: grown.log's latest content (100..900) meets it, its first (100..200) would not */
	assert_int_equal(store_stored_files(&s, 300, 400, &f, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(f[0].id, 2);
	assert_string_equal(f[0].hash, "b");
	assert_int_equal(f[0].size, 20);
	assert_true(f[0].t_first_ns == 100 && f[0].t_last_ns == 900);
	assert_int_equal(f[1].id, 3);
	free(f);
	/* [150, 160]: the first content of grown.log meets it, but it is not the latest */
	assert_int_equal(store_stored_files(&s, 150, 160, &f, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(f[0].id, 2);
	free(f);
	assert_int_equal(store_stored_files(&s, 5500, 5600, &f, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(f[1].path, "other.csv");
	free(f);
	store_close(&s);
	unlink(path);
}

/*
 * report --db ranks findings as report FILES does (issue 30's follow-up):
 * the store keeps a finding's kind by name, and restoring maps the name
 * back to its enum, which the one order ranks by (the kinds that always
 * appear first within a severity).  Host findings, all info, no summary
 * (each weighs its span): throttling (10 s) and xid_error (1 s) always
 * appear, held_idle (1000 s) and idle_power (500 s) need not.  By kind:
 * throttling, xid_error, held_idle, idle_power; with the kinds lost
 * (FK_NONE) the spans alone would put held_idle first.  A name this
 * version does not know stays FK_NONE with its name, ranked as a kind
 * that need not appear.
 */
static void test_findings_rank_as_files(void **state)
{
	char path[] = "/tmp/gputally-store-XXXXXX";
	static const struct {
		enum finding_kind fk;
		int64_t t0, span;
		int32_t code;
	} made[] = {
		{ FK_HELD_IDLE, 100, 1000, 0 },
		{ FK_IDLE_POWER, 200, 500, 0 },
		{ FK_THROTTLING, 300, 10, 0 },
		{ FK_XID_ERROR, 400, 1, 79 },
	};
	static const char *const want[] = { "throttling", "xid_error", "held_idle", "idle_power" };
	const int64_t s_ns = 1000000000, T = INT64_C(1800000000) * s_ns;
	struct analysis *files = xcalloc(1, sizeof(*files)), *db = xcalloc(1, sizeof(*db));
	struct store s;
	struct gl_err err = { 0 };
	char sql[512];
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	analysis_init(files, NULL);
	analysis_init(db, NULL);
	assert_int_equal(store_open(&s, path, STORE_WRITE, &err), 0);
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++) {
		struct finding *f = det_finding(files, made[i].fk, -1, T + made[i].t0 * s_ns,
						T + (made[i].t0 + made[i].span) * s_ns, SEV_INFO, 1);
		assert_non_null(f);
		f->code = made[i].code;
		snprintf(f->message, sizeof(f->message), "finding %zu", i);
		/* the row ingest keeps of it */
		snprintf(sql, sizeof(sql),
			 "INSERT INTO findings (gpu, kind, t0_ns, t1_ns, severity, value, message, evidence, code)"
			 " VALUES (-1, '%s', %lld, %lld, %d, %g, '%s', '', %d)",
			 f->kind, (long long)f->t0_ns, (long long)f->t1_ns, f->severity, f->value, f->message, (int)f->code);
		assert_int_equal(store_exec(&s, sql, &err), 0);
	}
	analysis_rank_findings(files);
	assert_int_equal(store_load_analysis(&s, db, INT64_MIN, INT64_MAX, &err), 0);
	assert_int_equal(db->nfinds, files->nfinds);
	for (size_t i = 0; i < files->nfinds; i++) {
		assert_string_equal(files->finds[i].kind, want[i]);
		assert_string_equal(db->finds[i].kind, files->finds[i].kind);
		assert_int_equal(db->finds[i].fk, files->finds[i].fk);
		assert_string_equal(db->finds[i].message, files->finds[i].message);
	}
	/* a kind from a later version: kept by name, FK_NONE, after the kinds that always appear */
	snprintf(sql, sizeof(sql),
		 "INSERT INTO findings (gpu, kind, t0_ns, t1_ns, severity, value, message, evidence, code)"
		 " VALUES (-1, 'from_the_future', %lld, %lld, %d, 1, 'later', '', 0)",
		 (long long)T, (long long)(T + 5000 * s_ns), SEV_INFO);
	assert_int_equal(store_exec(&s, sql, &err), 0);
	analysis_release(db);
	memset(db, 0, sizeof(*db));
	analysis_init(db, NULL);
	assert_int_equal(store_load_analysis(&s, db, INT64_MIN, INT64_MAX, &err), 0);
	assert_int_equal(db->nfinds, 5);
	assert_string_equal(db->finds[2].kind, "from_the_future");
	assert_int_equal(db->finds[2].fk, FK_NONE);
	assert_string_equal(db->finds[3].kind, "held_idle");
	store_close(&s);
	unlink(path);
	analysis_release(files);
	analysis_release(db);
	free(files);
	free(db);
}

/*
 * A finding's figures of schema v8 come back as stored: the stretches, the
 * total (which the rank weighs instead of the span), energy, the longest
 * stretches (energy unknown on one, a cause on another) and a leak's fit;
 * a row without them (stored before v8) comes back unknown: no stretches,
 * ranked by its span, no fit (NAN, not a fit at 0 MiB).  Two info host
 * findings: held_idle spans 1000 s but holds 30 s of stretches, idle_power
 * spans 500 s of which 400 s idle: idle_power first, as report ranks them
 * (without the figures held_idle would come first), after memory_leak, a
 * kind that always appears.
 */
static void test_findings_figures(void **state)
{
	char path[] = "/tmp/gputally-store-XXXXXX";
	const int64_t s_ns = 1000000000, T = INT64_C(1800000000) * s_ns;
	struct analysis *db = xcalloc(1, sizeof(*db));
	struct store s;
	struct gl_err err = { 0 };
	char sql[1024];
	int fd = mkstemp(path);
	const struct finding *f;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	analysis_init(db, NULL);
	assert_int_equal(store_open(&s, path, STORE_WRITE, &err), 0);
	snprintf(sql, sizeof(sql),
		 "INSERT INTO findings (gpu, kind, t0_ns, t1_ns, severity, value, message, evidence, code, nstretch,"
		 " nlinked, total_s, energy_j, longest, fit_mib0, fit_mib1, full_ns) VALUES"
		 " (-1, 'held_idle', %lld, %lld, 0, 30, 'h', '', 0, 3, 1, 30.25, 1500.5,"
		 " '%lld\t%lld\t1000.125\tXid 79 at x, kern.log:12\n%lld\t%lld\t\t\n', NULL, NULL, 0),"
		 " (-1, 'idle_power', %lld, %lld, 0, 90, 'i', '', 0, 0, 0, 400, NULL, NULL, NULL, NULL, 0),"
		 " (-1, 'memory_leak', %lld, %lld, 0, 12.5, 'l', '', 0, NULL, NULL, NULL, NULL, NULL, 100, 350.5, %lld)",
		 (long long)T, (long long)(T + 1000 * s_ns), (long long)(T + 10 * s_ns), (long long)(T + 30 * s_ns),
		 (long long)(T + 100 * s_ns), (long long)(T + 110 * s_ns), (long long)(T + 2000 * s_ns),
		 (long long)(T + 2500 * s_ns), (long long)(T + 5000 * s_ns), (long long)(T + 5001 * s_ns),
		 (long long)(T + 9000 * s_ns));
	assert_int_equal(store_exec(&s, sql, &err), 0);
	assert_int_equal(store_load_analysis(&s, db, INT64_MIN, INT64_MAX, &err), 0);
	assert_int_equal(db->nfinds, 3);
	f = &db->finds[1];
	assert_string_equal(f->kind, "idle_power");
	assert_int_equal(f->nstretch, 0);
	assert_true(f->total_s == 400);
	assert_true(isnan(f->fit_mib0));
	f = &db->finds[2];
	assert_string_equal(f->kind, "held_idle");
	assert_int_equal(f->nstretch, 3);
	assert_int_equal(f->nlinked, 1);
	assert_true(f->total_s == 30.25 && f->energy_j == 1500.5);
	assert_int_equal(f->ndetail, 2);
	assert_true(f->detail[0].t0_ns == T + 10 * s_ns && f->detail[0].t1_ns == T + 30 * s_ns);
	assert_true(f->detail[0].energy_j == 1000.125);
	assert_string_equal(f->detail[0].cause, "Xid 79 at x, kern.log:12");
	assert_true(f->detail[1].t0_ns == T + 100 * s_ns && f->detail[1].t1_ns == T + 110 * s_ns);
	assert_true(isnan(f->detail[1].energy_j));
	assert_string_equal(f->detail[1].cause, "");
	/* a row without figures: span-ranked, unknown energy, but its fit kept */
	f = &db->finds[0];
	assert_string_equal(f->kind, "memory_leak");
	assert_int_equal(f->nstretch, 0);
	assert_true(f->total_s == 0 && isnan(f->energy_j));
	assert_true(f->fit_mib0 == 100 && f->fit_mib1 == 350.5 && f->full_ns == T + 9000 * s_ns);
	assert_int_equal(store_exec(&s, "UPDATE findings SET fit_mib0 = NULL, fit_mib1 = NULL, full_ns = NULL", &err), 0);
	analysis_release(db);
	memset(db, 0, sizeof(*db));
	analysis_init(db, NULL);
	assert_int_equal(store_load_analysis(&s, db, INT64_MIN, INT64_MAX, &err), 0);
	assert_true(isnan(db->finds[0].fit_mib0) && db->finds[0].full_ns == 0);
	store_close(&s);
	unlink(path);
	analysis_release(db);
	free(db);
}

/*
 * Summaries of one GPU stored by two runs (the halves of a log) come back
 * as one (query.c join_summaries, docs/store.md): held_idle rows that touch
 * join (stretches, linked ones, seconds and energy added, an unknown energy
 * the other's; the longest stretches merged longest first, the earlier of
 * two equal ones first; the sentences the detector's, the first cause the
 * earlier row's); a third row overlapping the joined span stays apart;
 * idle_power adds idle seconds and energy and keeps the evidence of the
 * longer idle time; point findings (memory_leak) never join.
 */
static void test_findings_join(void **state)
{
	char path[] = "/tmp/gputally-store-XXXXXX";
	const int64_t s_ns = 1000000000, T = INT64_C(1800000020) * s_ns;
	struct analysis *db = xcalloc(1, sizeof(*db));
	struct store s;
	struct gl_err err = { 0 };
	char sql[4096], want[320], d1[32], d2[32];
	int fd = mkstemp(path);
	const struct finding *f = NULL, *c = NULL, *ip = NULL;
	int leaks = 0;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	analysis_init(db, NULL);
	assert_int_equal(store_open(&s, path, STORE_WRITE, &err), 0);
	snprintf(sql, sizeof(sql),
		 "INSERT INTO gpus (id, idx, uuid, name) VALUES (1, 0, 'GPU-a', 'NVIDIA H200');"
		 "INSERT INTO minutes (t, gpu, covered_ms, gaps_ms) VALUES (%lld, 1, 60000, 0);"
		 "INSERT INTO findings (gpu, kind, t0_ns, t1_ns, severity, value, message, evidence, code, nstretch,"
		 " nlinked, total_s, energy_j, longest, fit_mib0, fit_mib1, full_ns) VALUES"
		 " (1, 'held_idle', %lld, %lld, 1, 50, 'a', 'x; 1 of the 2 came right after an event, the first after"
		 " Xid 79 at x, kern.log:12', 0, 2, 1, 50, 4800, '%lld\t%lld\t100\tXid 79 at x, kern.log:12\n%lld\t%lld\t\t\n',"
		 " NULL, NULL, 0),"
		 " (1, 'held_idle', %lld, %lld, 0, 30, 'b', 'y; after Xid 13 at y, kern.log:40', 0, 1, 1, 30, NULL,"
		 " '%lld\t%lld\t\tXid 13 at y, kern.log:40\n', NULL, NULL, 0),"
		 " (1, 'held_idle', %lld, %lld, 0, 10, 'c', 'z', 0, 1, 0, 10, 50, '%lld\t%lld\t50\t\n', NULL, NULL, 0),"
		 " (1, 'idle_power', %lld, %lld, 0, 100, 'i1', 'e1', 0, NULL, NULL, 400, NULL, NULL, NULL, NULL, 0),"
		 " (1, 'idle_power', %lld, %lld, 0, 130, 'i2', 'e2', 0, NULL, NULL, 600, NULL, NULL, NULL, NULL, 0),"
		 " (1, 'memory_leak', %lld, %lld, 2, 5, 'l1', '', 0, NULL, NULL, NULL, NULL, NULL, 100, 200, 0),"
		 " (1, 'memory_leak', %lld, %lld, 2, 5, 'l2', '', 0, NULL, NULL, NULL, NULL, NULL, 100, 200, 0)",
		 (long long)(T / s_ns / 60 * 60),
		 (long long)T, (long long)(T + 1000 * s_ns), (long long)(T + 10 * s_ns), (long long)(T + 40 * s_ns),
		 (long long)(T + 900 * s_ns), (long long)(T + 920 * s_ns),
		 (long long)(T + 1000 * s_ns), (long long)(T + 2000 * s_ns), (long long)(T + 1500 * s_ns),
		 (long long)(T + 1530 * s_ns),
		 (long long)(T + 1500 * s_ns), (long long)(T + 1600 * s_ns), (long long)(T + 1500 * s_ns),
		 (long long)(T + 1510 * s_ns),
		 (long long)T, (long long)(T + 1000 * s_ns), (long long)(T + 1000 * s_ns), (long long)(T + 2000 * s_ns),
		 (long long)(T + 100 * s_ns), (long long)(T + 200 * s_ns), (long long)(T + 1100 * s_ns),
		 (long long)(T + 1200 * s_ns));
	assert_int_equal(store_exec(&s, sql, &err), 0);
	assert_int_equal(store_load_analysis(&s, db, INT64_MIN, INT64_MAX, &err), 1);
	assert_int_equal(db->nfinds, 5);
	for (size_t i = 0; i < db->nfinds; i++) {
		const struct finding *x = &db->finds[i];
		if (!strcmp(x->kind, "held_idle") && x->nstretch == 3)
			f = x;
		else if (!strcmp(x->kind, "held_idle"))
			c = x;
		else if (!strcmp(x->kind, "idle_power"))
			ip = x;
		else if (!strcmp(x->kind, "memory_leak"))
			leaks++;
	}
	assert_non_null(f);
	assert_non_null(c);
	assert_non_null(ip);
	assert_int_equal(leaks, 2);
	/* the two halves, one summary */
	assert_true(f->t0_ns == T && f->t1_ns == T + 2000 * s_ns);
	assert_int_equal(f->severity, 1);
	assert_int_equal(f->nlinked, 2);
	assert_true(f->total_s == 80 && f->value == 80 && f->energy_j == 4800);
	assert_int_equal(f->ndetail, 3);
	assert_true(f->detail[0].t0_ns == T + 10 * s_ns && f->detail[1].t0_ns == T + 1500 * s_ns &&
		    f->detail[2].t0_ns == T + 900 * s_ns);
	assert_string_equal(f->detail[1].cause, "Xid 13 at y, kern.log:40");
	time_human_dur(d1, sizeof(d1), 80 * s_ns);
	time_human_dur(d2, sizeof(d2), 30 * s_ns);
	snprintf(want, sizeof(want), "GPU 0 held memory or a process but did no work in 3 stretches, %s in all (the longest %s)",
		 d1, d2);
	assert_string_equal(f->message, want);
	assert_string_equal(f->evidence, "utilization 0 % for 80 s with memory held; mean power 60 W, 4800 J spent; "
					 "2 of the 3 came right after an event, the first after Xid 79 at x, kern.log:12");
	/* the row overlapping the joined span: apart, as stored */
	assert_true(c->t0_ns == T + 1500 * s_ns && c->nstretch == 1);
	assert_string_equal(c->message, "c");
	/* idle_power: 400 s at 100 W and 600 s at 130 W */
	assert_true(ip->t0_ns == T && ip->t1_ns == T + 2000 * s_ns && ip->total_s == 1000 && ip->value == 118);
	assert_string_equal(ip->message, "GPU 0 drew 118 W on average while doing nothing (1000 s, 0.033 kWh)");
	assert_string_equal(ip->evidence, "e2");
	store_close(&s);
	unlink(path);
	analysis_release(db);
	free(db);
}

/*
 * store_check_file_lazy() on a new store: a file past its first megabyte is
 * left with the rest of its hash to take, and store_finish_hash() (also on
 * the thread ingest starts) gives the hash of one whole pass; a file of one
 * megabyte or less, or a store that has a content of the same first block,
 * gets the whole check at once.  A file that changes in between is refused.
 */
static void test_lazy_hash(void **state)
{
	char db[] = "/tmp/gputally-store-XXXXXX", f1[] = "/tmp/gputally-lazy-XXXXXX";
	size_t n = (3u << 20) + 12345;
	unsigned char *buf = malloc(n);
	struct store s;
	struct gl_err err = { 0 };
	struct file_check whole, lazy, small;
	struct file_check *pl = &lazy;
	char want[FP_HEX];
	int fd;

	(void)state;
	assert_non_null(buf);
	fill(buf, n, 11);
	fp_of(buf, n, want);
	fd = mkstemp(f1);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, n), (ssize_t)n);
	close(fd);
	fd = mkstemp(db);
	close(fd);
	assert_int_equal(store_open(&s, db, STORE_WRITE, &err), 0);

	assert_int_equal(store_check_file(&s, f1, &whole), 0);
	assert_string_equal(whole.hash, want);
	assert_null(whole.rest);
	assert_int_equal(store_check_file_lazy(&s, f1, &lazy), 0);
	assert_non_null(lazy.rest);
	assert_int_equal(lazy.status, FILE_NEW);
	assert_int_equal(lazy.size, n);
	assert_string_equal(lazy.head, whole.head);
	assert_string_equal(lazy.hash, "");
	assert_int_equal(store_finish_hashes_wait(store_finish_hashes_start(&pl, 1)), 0);
	assert_null(lazy.rest);
	assert_string_equal(lazy.hash, want);
	assert_int_equal(store_finish_hash(&lazy), 0);	/* nothing left: no change */
	assert_string_equal(lazy.hash, want);

	/* the same first megabyte and no more: all at once */
	assert_int_equal(truncate(f1, 1 << 20), 0);
	assert_int_equal(store_check_file_lazy(&s, f1, &small), 0);
	assert_null(small.rest);
	fp_of(buf, 1 << 20, want);
	assert_string_equal(small.hash, want);

	/* changed between the check and the rest of the hash */
	fd = open(f1, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, buf, n), (ssize_t)n);
	close(fd);
	assert_int_equal(store_check_file_lazy(&s, f1, &lazy), 0);
	assert_non_null(lazy.rest);
	assert_int_equal(truncate(f1, n - 1), 0);
	assert_int_equal(store_finish_hash(&lazy), -1);
	assert_int_equal(lazy.status, FILE_UNREADABLE);
	assert_non_null(strstr(lazy.why, "changed"));

	/* a stored content with the same first block: the whole check */
	{
		char sql[256];
		assert_int_equal(truncate(f1, n), 0);
		snprintf(sql, sizeof(sql),
			 "INSERT INTO files (path, size, hash, head, ingested_at) VALUES ('x', 99999999, 'h', '%s', 1)",
			 whole.head);
		assert_int_equal(store_exec(&s, sql, &err), 0);
		assert_int_equal(store_check_file_lazy(&s, f1, &lazy), 0);
		assert_null(lazy.rest);
		assert_int_equal(lazy.status, FILE_NEW);
	}
	store_close(&s);
	unlink(db);
	unlink(f1);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fp_cuts),
		cmocka_unit_test(test_fp_differs),
		cmocka_unit_test(test_fp_prefix),
		cmocka_unit_test(test_migrations),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_stored_files),
		cmocka_unit_test(test_findings_rank_as_files),
		cmocka_unit_test(test_findings_figures),
		cmocka_unit_test(test_findings_join),
		cmocka_unit_test(test_lazy_hash),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
