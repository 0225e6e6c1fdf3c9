/* SPDX-License-Identifier: MIT */
/*
 * The pipeline (src/pipeline/): the one bad-line policy every command reads
 * through.  The input is the real H200 capture (examples/h200-training),
 * replayed over three days with the utilization cell of 9 rows in 10
 * spoiled, so that more bad lines than are kept (PIPELINE_BAD_KEPT) sit
 * among real readings.
 */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/pipeline.h"

#define CAPTURE "examples/h200-training/query_gpu_units_500ms.csv"

struct spoiled {
	char path[64];
	uint64_t nbad;		/* rows spoiled */
	uint64_t first_line;	/* line of the first, and of the PIPELINE_BAD_KEPT-th */
	uint64_t kept_last_line;
};

/* The repository root from this file's name as compiled ("tests/unit/..."). */
static void capture_path(char *buf, size_t cap)
{
	const char *f = __FILE__, *cut = strstr(f, "tests/unit/");
	snprintf(buf, cap, "%.*s%s", cut ? (int)(cut - f) : 0, f, CAPTURE);
}

/* Replay the capture on three days, spoiling utilization.gpu (the 7th cell)
 * of every row but each tenth. */
static void write_spoiled(struct spoiled *sp)
{
	char src[1024], line[4096];
	FILE *in, *out;
	uint64_t lineno = 1, row = 0;
	int fd;

	capture_path(src, sizeof(src));
	snprintf(sp->path, sizeof(sp->path), "/tmp/gputally-pipeline-XXXXXX");
	fd = mkstemp(sp->path);
	assert_true(fd >= 0);
	out = fdopen(fd, "w");
	in = fopen(src, "r");
	assert_non_null(in);
	assert_non_null(fgets(line, sizeof(line), in));	/* the header, once */
	fputs(line, out);
	for (int day = 0; day < 3; day++) {
		rewind(in);
		assert_non_null(fgets(line, sizeof(line), in));
		while (fgets(line, sizeof(line), in)) {
			char *cell = line;
			lineno++;
			row++;
			if (day)	/* "2026/11/29" -> the 30th, 1st */
				memcpy(line, day == 1 ? "2026/11/30" : "2026/12/01", 10);
			for (int k = 0; k < 6 && cell; k++)
				cell = strstr(cell, ", ") ? strstr(cell, ", ") + 2 : NULL;
			assert_non_null(cell);
			if (row % 10 != 0) {
				cell[0] = 'x';	/* "37 %" -> "x7 %" */
				sp->nbad++;
				if (sp->nbad == 1)
					sp->first_line = lineno;
				if (sp->nbad == PIPELINE_BAD_KEPT)
					sp->kept_last_line = lineno;
			}
			fputs(line, out);
		}
	}
	fclose(in);
	assert_int_equal(fclose(out), 0);
	assert_true(sp->nbad > PIPELINE_BAD_KEPT);
}

/* The driver's defaults, as the command line sets them (cli/ingest_opts.c). */
static void ingest_defaults(struct ingest_opts *io)
{
	memset(io, 0, sizeof(*io));
	io->date_days = INT64_MIN;
	io->interval_ns = 1000000000;
	io->threads = 1;
}

static void open_on(struct pipeline *p, struct ingest_opts *io, const char *const *paths, bool strict)
{
	struct pipeline_opts o = { 0 };

	ingest_defaults(io);
	o.paths = paths;
	o.npaths = 1;
	o.in = io;
	o.strict = strict;
	pipeline_open(p, &o);
}

/* Lenient: every bad line counted, the first PIPELINE_BAD_KEPT kept in order
 * with their position, the good rows analysed. */
static void test_bad_lines_kept_and_counted(void **state)
{
	struct spoiled sp = { 0 };
	struct ingest_opts io;
	struct pipeline p;
	const char *paths[1];

	(void)state;
	write_spoiled(&sp);
	paths[0] = sp.path;
	open_on(&p, &io, paths, false);
	assert_int_equal(pipeline_run(&p), PIPE_OK);
	assert_int_equal(p.bad_total, sp.nbad);
	assert_int_equal(p.nbad, PIPELINE_BAD_KEPT);
	assert_int_equal(p.bad[0].line, sp.first_line);
	assert_int_equal(p.bad[PIPELINE_BAD_KEPT - 1].line, sp.kept_last_line);
	assert_string_equal(p.bad[0].path, sp.path);
	assert_true(p.bad[0].col > 0);
	assert_non_null(strstr(p.bad[0].msg, "utilization.gpu"));
	assert_null(p.stop.path);
	assert_non_null(p.an);
	assert_int_equal(p.an->tl.ngpus, 1);
	assert_int_equal(p.res.nr, 1);
	assert_int_equal(p.res.inputs[0].bad, sp.nbad);
	pipeline_close(&p);
	unlink(sp.path);
}

/* --strict: the first bad line stops the run, and is the one kept. */
static void test_strict_stops_at_first(void **state)
{
	struct spoiled sp = { 0 };
	struct ingest_opts io;
	struct pipeline p;
	const char *paths[1];

	(void)state;
	write_spoiled(&sp);
	paths[0] = sp.path;
	open_on(&p, &io, paths, true);
	assert_int_equal(pipeline_run(&p), PIPE_STOPPED);
	assert_int_equal(p.bad_total, 1);
	assert_int_equal(p.nbad, 1);
	assert_int_equal(p.stop.line, sp.first_line);
	assert_int_equal(p.stop.col, p.bad[0].col);
	assert_string_equal(p.stop.msg, p.bad[0].msg);
	assert_false(p.stop_fatal);
	pipeline_close(&p);
	unlink(sp.path);
}

struct tap_count {
	uint64_t bad, good;
	uint64_t stop_at;	/* stop (return 7) at this record; 0: never */
};

static int tap(void *ud, const struct input_stat *in, const struct rec *r, const struct batch *b)
{
	struct tap_count *t = ud;

	(void)in;
	(void)b;
	if (r->kind == REC_BAD)
		t->bad++;
	else
		t->good++;
	return t->stop_at && t->bad + t->good == t->stop_at ? 7 : 0;
}

/* A tap sees every record, bad ones too; with no analysis the policy still
 * holds; a tap's code stops the run and comes back. */
static void test_tap(void **state)
{
	struct spoiled sp = { 0 };
	struct ingest_opts io;
	struct pipeline p;
	struct tap_count tc = { 0 };
	const char *paths[1];

	(void)state;
	write_spoiled(&sp);
	paths[0] = sp.path;
	ingest_defaults(&io);
	{
		struct pipeline_opts o = { .paths = paths, .npaths = 1, .in = &io, .no_analysis = true,
					   .tap = tap, .tap_ud = &tc };
		pipeline_open(&p, &o);
	}
	assert_null(p.an);
	assert_int_equal(pipeline_run(&p), PIPE_OK);
	assert_int_equal(tc.bad, sp.nbad);
	assert_int_equal(p.bad_total, sp.nbad);
	assert_true(tc.good > 0);
	pipeline_close(&p);

	memset(&tc, 0, sizeof(tc));
	tc.stop_at = 5;
	{
		struct pipeline_opts o = { .paths = paths, .npaths = 1, .in = &io, .tap = tap, .tap_ud = &tc };
		pipeline_open(&p, &o);
	}
	assert_int_equal(pipeline_run(&p), PIPE_TAP);
	assert_int_equal(p.tap_code, 7);
	pipeline_close(&p);
	unlink(sp.path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_lines_kept_and_counted),
		cmocka_unit_test(test_strict_stops_at_first),
		cmocka_unit_test(test_tap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
