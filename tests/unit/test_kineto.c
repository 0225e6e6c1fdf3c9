/* SPDX-License-Identifier: MIT */
/*
 * Kineto traces read on several threads (fmt_kineto.c, "parallel events")
 * against the one-thread reading of the same bytes: every record, in order,
 * with its strings, line and column, and the input's counts, must be the
 * same whatever the thread count and the job size (chunk_bytes, which cuts
 * jobs after every event when it is tiny).  The cases put job seams inside
 * strings holding brackets, quotes and backslash runs, inside nested args,
 * inside a cut event and around fatal errors.  The one-thread reading is
 * itself checked against counts known by construction of the trace.
 *
 * The format is compiled in here (its test seams set): to know that jobs
 * were cut, and to mislead the splitter on purpose, so that the jobs whose
 * results do not fit are seen read again in line with the same result.
 */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "formats/driver.h"
#include "util/xalloc.h"

static unsigned submits, rereads;
static bool mislead;	/* flip the splitter's idea of "in a string" now and then */

static void after_submit(bool *in_str)
{
	if (mislead && submits % 3 == 1)
		*in_str = !*in_str;
	submits++;
}

/* both splitter scans in turn, block by block, where the CPU has AVX2:
 * each must cut where the other would (a wrong cut is a job read again) */
static unsigned scans;
#define KT_TEST_SCAN_AVX2() (SP_HAVE_AVX2() && (__atomic_fetch_add(&scans, 1, __ATOMIC_RELAXED) & 1))
#define KT_TEST_AFTER_SUBMIT(pp) after_submit(&(pp)->sp_str)
#define KT_TEST_REREAD() ((void)rereads++)
#include "formats/fmt_kineto.c"

struct sbuf {
	char *p;
	size_t n, alloc;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	ALLOC_GROW(b->p, b->n + n + 1, b->alloc);
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void sb_str(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

static void __attribute__((format(printf, 2, 3))) sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < sizeof(tmp));
	sb_add(b, tmp, (size_t)n);
}

/* ---- a generated trace, with what it must give --------------------------- */

struct want {
	uint64_t events, used, bad;
	int kernels;
};

/* A name with everything the splitter must see through: brackets, quotes,
 * an escaped backslash before a closing quote, "},{" and "]". */
static const char odd_name[] = "void k<{1}, [2]>(\\\"},{\\\"]\\\\\\\") }{ ][ \\\\";

/*
 * n events after a header with baseTimeNanoseconds; deviceProperties after
 * the events.  Pretty-printed (an event over several lines, as Kineto
 * writes them) and compact events alternate, so that lines and columns move.
 */
static void gen_trace(struct sbuf *t, struct want *w, int n, bool bare)
{
	memset(w, 0, sizeof(*w));
	if (bare)
		sb_str(t, "[\n");
	else
		sb_str(t, "{\n  \"schemaVersion\": 1,\n  \"baseTimeNanoseconds\": 1790000000000000000,\n"
			  "  \"traceEvents\": [\n");
	for (int i = 0; i < n; i++) {
		const char *sep = i ? (i % 3 ? ",\n  " : ", ") : "  ";
		long ts = 1000 + 10L * i;
		sb_str(t, sep);
		switch (i % 8) {
		case 0:	/* a kernel, pretty-printed over four lines */
			sb_printf(t, "{\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7,\n"
				  "    \"ts\": %ld.250, \"dur\": 4.5,\n    \"args\": {\"device\": 0, \"stream\": 7, "
				  "\"correlation\": %d, \"grid\": [1, [2, {\"x\": \"}\"}]]}\n  }", odd_name, ts, i);
			w->used++;
			w->kernels++;
			break;
		case 1:	/* its runtime call, compact */
			sb_printf(t, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
				  "\"tid\":2,\"ts\":%ld,\"dur\":1,\"args\":{\"correlation\":%d}}", ts - 5, i - 1);
			w->used++;
			break;
		case 2:	/* a memcpy whose args nest objects in arrays */
			sb_printf(t, "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD\", \"pid\": 0, "
				  "\"tid\": 8, \"ts\": %ld, \"dur\": 2, \"args\": {\"a\": {\"b\": [{\"c\": \"{[\"}, {}]}, "
				  "\"device\": 0, \"stream\": 8}}", ts);
			w->used++;
			break;
		case 3:	/* a CPU op: read, not used */
			sb_printf(t, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm \\u00e9 \\\\\", "
				  "\"pid\": 1, \"tid\": 2, \"ts\": %ld, \"dur\": 3}", ts);
			break;
		case 4:	/* a step */
			sb_printf(t, "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", "
				  "\"pid\": 1, \"tid\": 2, \"ts\": %ld, \"dur\": 9}", i / 8, ts);
			w->used++;
			break;
		case 5:	/* a flow event: not X */
			sb_printf(t, "{\"ph\": \"f\", \"id\": %d, \"pid\": 1, \"tid\": 2, \"ts\": %ld, "
				  "\"cat\": \"fwdbwd\", \"name\": \"]\"}", i, ts);
			break;
		case 6:	/* every other one: an X event without dur (skipped, counted) */
			if (i % 16 == 6) {
				sb_printf(t, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"nodur\", \"pid\": 0, "
					  "\"tid\": 7, \"ts\": %ld}", ts);
				w->bad++;
			} else {
				sb_printf(t, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k2\", \"pid\": 0, "
					  "\"tid\": 7, \"ts\": %ld, \"dur\": 0.5}", ts);
				w->used++;
				w->kernels++;
			}
			break;
		default:	/* strings whose escapes end in a backslash run; escaped
				 * quotes at every offset (so some straddle 64-byte blocks) */
			sb_printf(t, "{\"ph\": \"i\", \"s\": \"t\", \"name\": \"\\\\\\\\\\\\\\\"\", \"pid\": 1, "
				  "\"tid\": 2, \"ts\": %ld, \"q\": \"", ts);
			for (int q = 0; q < i % 41; q++)
				sb_str(t, "\\\"}");
			sb_str(t, "\"}");
			break;
		}
		w->events++;
	}
	if (bare)
		sb_str(t, "\n]\n");
	else
		sb_str(t, "\n  ],\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H200\"}],\n"
			  "  \"traceName\": \"x\"\n}\n");
}

/* ---- reading it, into one text per run ---------------------------------- */

static int collect(void *ud, const struct input_stat *in, const struct rec *r,
		   const struct batch *b)
{
	struct sbuf *o = ud;
	const char *name = batch_str(b, r->name);

	(void)in;
	sb_printf(o, "%d %d %d %lld gpu=%d line=%llu col=%u pid=%lld", r->kind, r->ev, r->time_kind,
		  (long long)r->t_ns, r->gpu_index, (unsigned long long)r->line, r->col,
		  (long long)r->pid);
	if (r->kind == REC_TRACE)
		sb_printf(o, " dur=%lld corr=%lld stream=%lld", (long long)r->tr.dur_ns,
			  (long long)r->tr.corr, (long long)r->tr.stream);
	sb_str(o, " ");
	sb_str(o, name ? name : "-");
	sb_str(o, "\n");
	return 0;
}

static char tmp_dir[128];

static void write_file(const char *path, const char *p, size_t n, bool gz)
{
	if (gz) {
		gzFile z = gzopen(path, "wb");
		assert_non_null(z);
		assert_int_equal(gzwrite(z, p, (unsigned)n), (int)n);
		assert_int_equal(gzclose(z), Z_OK);
	} else {
		FILE *f = fopen(path, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(p, 1, n, f), n);
		assert_int_equal(fclose(f), 0);
	}
}

/* Read path with threads and chunk_bytes; every record and the counts, as text. */
static void read_trace(const char *path, int threads, size_t chunk, bool tolerant, struct sbuf *o)
{
	struct ingest_opts opt;
	struct ingest_result res = { 0 };
	struct ingest_sink sink = { .ud = o, .rec = collect };
	struct gl_err err = { 0 };
	const char *paths[1] = { path };

	memset(&opt, 0, sizeof(opt));
	opt.date_days = INT64_MIN;
	opt.interval_ns = 1000000000;
	opt.threads = threads;
	opt.chunk_bytes = chunk;
	opt.tolerant = tolerant;
	o->n = 0;
	assert_int_equal(ingest_run(paths, 1, &opt, &sink, &res, &err), 0);
	assert_int_equal(res.nr, 1);
	sb_printf(o, "format=%s lines=%llu records=%llu bad=%llu bytes=%llu partial=%d\n",
		  res.inputs[0].format ? res.inputs[0].format->id : "-",
		  (unsigned long long)res.inputs[0].lines, (unsigned long long)res.inputs[0].records,
		  (unsigned long long)res.inputs[0].bad, (unsigned long long)res.inputs[0].bytes,
		  res.inputs[0].partial_last_line);
	ingest_result_release(&res);
}

/* The first line where two texts differ, for the failure message. */
static void show_diff(const char *a, const char *b)
{
	int line = 1;

	while (*a && *a == *b) {
		if (*a == '\n')
			line++;
		a++;
		b++;
	}
	fprintf(stderr, "first difference at output line %d:\n  one thread: %.200s\n  this run:   %.200s\n",
		line, a, b);
}

/*
 * text as a file (gzip-compressed with gz) read with one thread, then with
 * 2 and 3 threads and job sizes from one byte up: all the same.  The
 * reference goes to ref.
 */
static void same_on_threads(const char *text, size_t n, bool tolerant, bool gz, struct sbuf *ref)
{
	static const struct { int threads; size_t chunk; } runs[] = {
		{ 1, 64 }, { 2, 1 }, { 2, 13 }, { 2, 64 }, { 2, 300 }, { 2, 4096 }, { 3, 97 },
		{ 2, 0 }, { 3, 0 },
	};
	char path[256];
	struct sbuf got = { 0 };

	snprintf(path, sizeof(path), "%s/trace.json%s", tmp_dir, gz ? ".gz" : "");
	write_file(path, text, n, gz);
	ref->n = 0;
	read_trace(path, 1, 0, tolerant, ref);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		if (runs[i].chunk == 1 && n > 20000)
			continue;	/* a byte at a time: the small cases only */
		if (runs[i].chunk && n > 8 * 1024 * 1024)
			continue;	/* one thread finishes a value cut by small pieces in
					 * time quadratic in its length: default pieces only */
		unsigned before = submits, reread_before = rereads;
		read_trace(path, runs[i].threads, runs[i].chunk, tolerant, &got);
		/* jobs were cut where the events are long enough for some */
		if (runs[i].threads > 1 && runs[i].chunk && runs[i].chunk * 4 < n && submits == before)
			fail_msg("--threads %d, chunk %zu: no job was cut", runs[i].threads, runs[i].chunk);
		/* on valid input the splitter is never wrong, nor before a fatal error */
		if (!mislead && rereads != reread_before)
			fail_msg("--threads %d, chunk %zu: %u job(s) read again: the splitter cut wrong",
				 runs[i].threads, runs[i].chunk, rereads - reread_before);
		if (got.n != ref->n || memcmp(got.p, ref->p, got.n)) {
			show_diff(ref->p, got.p);
			fail_msg("--threads %d, chunk %zu, tolerant %d, gz %d: not the one-thread result",
				 runs[i].threads, runs[i].chunk, tolerant, gz);
		}
	}
	unlink(path);
	free(got.p);
}

/* How many lines of o start with prefix. */
static int count_lines(const struct sbuf *o, const char *prefix)
{
	int k = 0;
	size_t n = strlen(prefix);

	for (const char *p = o->p; p && *p;) {
		const char *nl = strchr(p, '\n');
		if (!strncmp(p, prefix, n))
			k++;
		p = nl ? nl + 1 : p + strlen(p);
	}
	return k;
}

/* The TR_SUMMARY line: "4 6 0 ..." (REC_TRACE, TR_SUMMARY) with corr and stream. */
static void summary_of(const struct sbuf *o, uint64_t *events, uint64_t *used)
{
	const char *p = o->p, *q;
	char tag[16];

	snprintf(tag, sizeof(tag), "%d %d ", REC_TRACE, TR_SUMMARY);
	*events = *used = UINT64_MAX;
	for (; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, tag, strlen(tag)))
			continue;
		q = strstr(p, "corr=");
		assert_non_null(q);
		*events = strtoull(q + 5, NULL, 10);
		q = strstr(p, "stream=");
		assert_non_null(q);
		*used = strtoull(q + 7, NULL, 10);
	}
}

/* ---- tests ------------------------------------------------------------------ */

static void make_tmp_dir(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(tmp_dir, sizeof(tmp_dir), "%s/gputally-kineto-XXXXXX", base && *base ? base : "/tmp");
	assert_non_null(mkdtemp(tmp_dir));
}

/* A whole trace, as a file and gzip-compressed, object and bare array. */
static void test_whole(void **state)
{
	struct sbuf t = { 0 }, ref = { 0 };
	struct want w;
	uint64_t events, used;
	char bad[64];

	(void)state;
	make_tmp_dir();
	for (int bare = 0; bare < 2; bare++) {
		t.n = 0;
		gen_trace(&t, &w, 403, bare);
		for (int gz = 0; gz < 2; gz++) {
			same_on_threads(t.p, t.n, false, gz, &ref);
			summary_of(&ref, &events, &used);
			assert_int_equal(events, w.events);
			assert_int_equal(used, w.used);
			snprintf(bad, sizeof(bad), "%d ", REC_BAD);
			assert_int_equal(count_lines(&ref, bad), (int)w.bad);
			snprintf(bad, sizeof(bad), "%d %d ", REC_TRACE, TR_KERNEL);
			assert_int_equal(count_lines(&ref, bad), w.kernels);
		}
	}
	rmdir(tmp_dir);
	free(t.p);
	free(ref.p);
}

/* A file cut anywhere (a .tmp trace): with and without --tolerant. */
static void test_cut(void **state)
{
	struct sbuf t = { 0 }, ref = { 0 };
	struct want w;

	(void)state;
	make_tmp_dir();
	gen_trace(&t, &w, 160, false);
	for (int k = 1; k < 12; k++) {
		size_t n = t.n * (size_t)k / 12 + (size_t)k;	/* anywhere: in strings, numbers, blanks */
		for (int tol = 0; tol < 2; tol++) {
			same_on_threads(t.p, n, tol, false, &ref);
			assert_non_null(strstr(ref.p, tol ? "truncated trace, complete events kept"
						       : "truncated trace (--tolerant"));
		}
	}
	rmdir(tmp_dir);
	free(t.p);
	free(ref.p);
}

/* Replace the first occurrence of `what` at or after `from` in t by `with`. */
static void splice(struct sbuf *t, size_t from, const char *what, const char *with)
{
	char *at = strstr(t->p + from, what);
	size_t a, wn = strlen(what), nn = strlen(with);
	char *rest;

	assert_non_null(at);
	a = (size_t)(at - t->p);
	rest = xstrdup(at + wn);
	t->n = a;
	sb_add(t, with, nn);
	sb_str(t, rest);
	free(rest);
}

/*
 * Fatal errors in the middle of the events: one thread stops there with a
 * message at its line:col, and so must every run; the events after it are
 * not read.  Also an unbalanced '}' (the splitter's end of the events, not
 * the parser's), 300 nested arrays in args, baseTimeNanoseconds after the
 * events and a trailing comma.
 */
static void test_fatal(void **state)
{
	static const struct { const char *what, *with, *msg; bool tolerant; } cases[] = {
		{ "\"name\": \"Memcpy HtoD\"", "\"name\": \"Memcpy \001HtoD\"", NULL, false },
		{ "\"name\": \"Memcpy HtoD\"", "\"name\": \"Memcpy \377HtoD\"", NULL, false },
		{ "\"name\": \"Memcpy HtoD\"", "\"name\": \"Memcpy \\ud800 HtoD\"", NULL, false },
		{ "\"dur\": 3}", "\"dur\": 3}}", "expected ',' or ']'", false },
		{ "\"dur\": 3}", "\"dur\": 3]", NULL, false },
		{ "\"dur\": 9}", "\"dur\": 99999999999999999999999}", NULL, false },
		{ "\n  ],\n", "\n  ,],\n", "trailing comma", false },
		{ "\n  ],\n", "\n  ,],\n", NULL, true },
		{ "\"traceName\": \"x\"", "\"baseTimeNanoseconds\": 5", "comes after traceEvents", false },
	};
	struct sbuf t = { 0 }, ref = { 0 };
	struct want w;

	(void)state;
	make_tmp_dir();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		t.n = 0;
		gen_trace(&t, &w, 200, false);
		splice(&t, t.n / 2, cases[i].what, cases[i].with);
		same_on_threads(t.p, t.n, cases[i].tolerant, false, &ref);
		if (cases[i].msg)
			assert_non_null(strstr(ref.p, cases[i].msg));
	}
	/* 300 nested arrays inside one event's args, past the lexer's depth */
	t.n = 0;
	gen_trace(&t, &w, 200, false);
	{
		struct sbuf deep = { 0 };
		sb_str(&deep, "\"dur\": 3, \"args\": {\"d\": ");
		for (int i = 0; i < 300; i++)
			sb_str(&deep, "[");
		for (int i = 0; i < 300; i++)
			sb_str(&deep, "]");
		sb_str(&deep, "}}");
		splice(&t, t.n / 3, "\"dur\": 3}", deep.p);
		free(deep.p);
	}
	same_on_threads(t.p, t.n, false, false, &ref);
	assert_non_null(strstr(ref.p, "bad trace JSON"));
	rmdir(tmp_dir);
	free(t.p);
	free(ref.p);
}

/*
 * An event longer than MAX_FILL (a 17 MiB string in its args): the
 * splitting ends there and the rest is read in line, with the same result.
 */
static void test_long_event(void **state)
{
	struct sbuf t = { 0 }, ref = { 0 }, big = { 0 };
	struct want w;
	uint64_t events, used;

	(void)state;
	make_tmp_dir();
	gen_trace(&t, &w, 100, false);
	ALLOC_GROW(big.p, 17u * 1024 * 1024 + 64, big.alloc);
	sb_str(&big, "\"dur\": 3, \"args\": {\"blob\": \"");
	memset(big.p + big.n, 'x', 17u * 1024 * 1024);
	big.n += 17u * 1024 * 1024;
	big.p[big.n] = '\0';
	sb_str(&big, "\"}}");
	splice(&t, t.n / 2, "\"dur\": 3}", big.p);
	same_on_threads(t.p, t.n, false, false, &ref);
	summary_of(&ref, &events, &used);
	assert_int_equal(events, w.events);
	assert_int_equal(used, w.used);
	rmdir(tmp_dir);
	free(t.p);
	free(ref.p);
	free(big.p);
}

/* The same cases with a splitter wrong about strings every third job. */
static void test_misled(void **state)
{
	mislead = true;
	rereads = 0;
	test_whole(state);
	test_cut(state);
	test_fatal(state);
	mislead = false;
	assert_true(rereads > 0);
}

static int stop_after_ten(void *ud, const struct input_stat *in, const struct rec *r,
			  const struct batch *b)
{
	int *n = ud;

	(void)in;
	(void)r;
	(void)b;
	return ++*n == 10 ? 7 : 0;
}

/*
 * A sink that stops the run while the trace is split into jobs: the jobs
 * still queued in the run's pool finish before their buffers are freed and
 * before the pool goes (the driver releases its sources first).  Run it on
 * 1, 2 and 4 threads; a wrong order hangs or reads freed memory (make san).
 */
static void test_stop_early(void **state)
{
	struct sbuf t = { 0 };
	struct want w;
	char path[256];

	(void)state;
	make_tmp_dir();
	gen_trace(&t, &w, 4000, false);
	snprintf(path, sizeof(path), "%s/stop.json", tmp_dir);
	write_file(path, t.p, t.n, false);
	for (int threads = 1; threads <= 4; threads *= 2) {
		struct ingest_opts opt;
		struct ingest_result res = { 0 };
		int n = 0;
		struct ingest_sink sink = { .ud = &n, .rec = stop_after_ten };
		struct gl_err err = { 0 };
		const char *paths[1] = { path };
		unsigned before = submits;

		memset(&opt, 0, sizeof(opt));
		opt.date_days = INT64_MIN;
		opt.interval_ns = 1000000000;
		opt.threads = threads;
		opt.chunk_bytes = 4096;
		assert_int_equal(ingest_run(paths, 1, &opt, &sink, &res, &err), 7);
		assert_int_equal(n, 10);
		if (threads > 1 && submits == before)
			fail_msg("--threads %d: the trace was not split, nothing tested", threads);
		ingest_result_release(&res);
	}
	free(t.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_fatal),
		cmocka_unit_test(test_long_event),
		cmocka_unit_test(test_misled),
		cmocka_unit_test(test_stop_early),
	};

	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
