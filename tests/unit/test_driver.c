/* SPDX-License-Identifier: MIT */
/* Unit tests for formats/driver: chunking, threads, compression, merging, time. */
#include "test.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "formats/driver.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

/* 2026-11-29 is day 20786 since the epoch (python: date(2026,11,29) - date(1970,1,1)). */
#define DAY_20261129 INT64_C(20786)
/* 2026-11-29T22:00:00Z = 1795989600 s */
#define T_2200_S INT64_C(1795989600)

/* ---- a growing text buffer ------------------------------------------------- */

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

static void __attribute__((format(printf, 2, 3))) sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < sizeof(tmp));
	sb_add(b, tmp, (size_t)n);
}

/* ---- the generated dmon -o DT log ---------------------------------------- */

/* What one data row must become. */
struct want {
	int64_t t_ns;
	int gpu;
	uint64_t line;
	double pwr, sm, fb;
};

struct gen {
	struct sbuf text;
	struct want *w;
	size_t nw, walloc;
	uint64_t lines;
};

static void gen_header(struct gen *g, const char *eol)
{
	sb_printf(&g->text, "#Date        Time         gpu    pwr  gtemp  mtemp     sm    mem"
		  "   mclk   pclk     fb%s", eol);
	sb_printf(&g->text, "#YYYYMMDD    HH:MM:SS     Idx      W      C      C      %%      %%"
		  "    MHz    MHz     MB%s", eol);
	g->lines += 2;
}

/*
 * ngpus rows per second from 22:00:00, a header pair before the first row
 * and again every 44 rows, as nvidia-smi dmon prints it.  Values change per
 * row so that a misplaced or repeated row shows.
 */
static void gen_dmon_pad(struct gen *g, int ngpus, int nticks, const char *eol, int pad)
{
	int row = 0;

	memset(g, 0, sizeof(*g));
	for (int tick = 0; tick < nticks; tick++) {
		int sec = 22 * 3600 + tick;
		for (int gpu = 0; gpu < ngpus; gpu++, row++) {
			struct want *w;
			int pwr = 100 + (row * 7) % 500, sm = row % 101, fb = (row * 13) % 140000;
			if (row % 44 == 0)
				gen_header(g, eol);
			for (; row == 0 && pad > 0; pad--)
				sb_add(&g->text, " ", 1);
			sb_printf(&g->text, " 20261129    %02d:%02d:%02d %6d %6d %6d %6d %6d %6d",
				  sec / 3600, sec / 60 % 60, sec % 60, gpu, pwr, 40 + row % 30,
				  41 + row % 30, sm, (row * 3) % 101);
			sb_printf(&g->text, " %6d %6d %6d%s", 3201, 1980, fb, eol);
			g->lines++;
			ALLOC_GROW(g->w, g->nw + 1, g->walloc);
			w = &g->w[g->nw++];
			w->t_ns = (T_2200_S + tick) * NS_PER_S;
			w->gpu = gpu;
			w->line = g->lines;
			w->pwr = pwr;
			w->sm = sm;
			w->fb = fb;
		}
	}
}

static void gen_dmon(struct gen *g, int ngpus, int nticks, const char *eol)
{
	gen_dmon_pad(g, ngpus, nticks, eol, 0);
}

static void gen_release(struct gen *g)
{
	free(g->text.p);
	free(g->w);
}

/* ---- scratch files --------------------------------------------------------- */

static char tmp_dir[128];

static void make_tmp_dir(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(tmp_dir, sizeof(tmp_dir), "%s/gputally-driver-XXXXXX",
		 base && *base ? base : "/tmp");
	assert_non_null(mkdtemp(tmp_dir));
}

/* tmp_dir/name, into a caller's buffer */
static char *tmp_path(char *buf, size_t cap, const char *name)
{
	snprintf(buf, cap, "%s/%s", tmp_dir, name);
	return buf;
}

static void write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static void write_gzip(const char *path, const void *p, size_t n)
{
	gzFile z = gzopen(path, "wb");

	assert_non_null(z);
	assert_int_equal(gzwrite(z, p, (unsigned)n), (int)n);
	assert_int_equal(gzclose(z), Z_OK);
}

static void write_zstd(const char *path, const void *p, size_t n)
{
	size_t cap = ZSTD_compressBound(n), got;
	void *out = xmalloc(cap);

	got = ZSTD_compress(out, cap, p, n, 3);
	assert_false(ZSTD_isError(got));
	write_file(path, out, got);
	free(out);
}

/* ---- the collecting sink --------------------------------------------------- */

struct got {
	struct rec *r;
	const struct input_stat **in;
	size_t n, alloc, in_alloc;
	size_t stop_at;		/* return stop_rc on this call (1-based); 0 never */
	int stop_rc;
};

static int collect(void *ud, const struct input_stat *in, const struct rec *r,
		   const struct batch *b)
{
	struct got *g = ud;

	(void)b;
	ALLOC_GROW(g->r, g->n + 1, g->alloc);
	ALLOC_GROW(g->in, g->n + 1, g->in_alloc);
	g->r[g->n] = *r;
	g->in[g->n] = in;
	g->n++;
	if (g->stop_at && g->n == g->stop_at)
		return g->stop_rc;
	return 0;
}

static void got_release(struct got *g)
{
	free(g->r);
	free(g->in);
	memset(g, 0, sizeof(*g));
}

static struct ingest_opts opts(int threads, size_t chunk_bytes)
{
	struct ingest_opts o;

	memset(&o, 0, sizeof(o));
	o.date_days = INT64_MIN;
	o.interval_ns = NS_PER_S;
	o.threads = threads;
	o.chunk_bytes = chunk_bytes;
	return o;
}

static int run(const char *const *paths, size_t n, const struct ingest_opts *o,
	       struct got *g, struct ingest_result *res)
{
	struct ingest_sink sink = { .ud = g, .rec = collect };
	struct gl_err err = { 0 };

	memset(res, 0, sizeof(*res));
	return ingest_run(paths, n, o, &sink, res, &err);
}

/* Every record a sample matching the generator's row, in order, with absolute lines. */
static void check_records(const struct got *g, const struct gen *gen)
{
	const uint32_t need = (1u << M_POWER) | (1u << M_UTIL_GPU) | (1u << M_MEM_USED);

	assert_int_equal(g->n, gen->nw);
	for (size_t i = 0; i < g->n; i++) {
		const struct rec *r = &g->r[i];
		const struct want *w = &gen->w[i];
		if (r->kind != REC_SAMPLE || r->time_kind != TK_ABS || r->t_ns != w->t_ns ||
		    r->gpu_index != w->gpu || r->line != w->line || (r->present & need) != need ||
		    r->v[M_POWER] != w->pwr || r->v[M_UTIL_GPU] != w->sm ||
		    r->v[M_MEM_USED] != w->fb)
			fail_msg("record %zu: kind %d t %lld gpu %d line %llu pwr %g sm %g fb %g; "
				 "want t %lld gpu %d line %llu pwr %g sm %g fb %g", i, r->kind,
				 (long long)r->t_ns, r->gpu_index, (unsigned long long)r->line,
				 r->v[M_POWER], r->v[M_UTIL_GPU], r->v[M_MEM_USED],
				 (long long)w->t_ns, w->gpu, (unsigned long long)w->line, w->pwr,
				 w->sm, w->fb);
	}
}

/* ---- tests ------------------------------------------------------------------ */

/*
 * 4 GPUs x 800 s = 3200 rows (~290 KB) with 73 header pairs.  Whatever the
 * chunk size (the driver raises anything under 16 KiB to 16 KiB, so the
 * small sizes give ~18 chunks and the default one) and the thread count,
 * the records are the same, in file order, with absolute line numbers.
 */
static void test_chunks_and_threads(void **state)
{
	static const size_t chunks[] = { 64, 200, 4096, 0 };
	static const int threads[] = { 1, 2, 3 };
	struct gen gen;
	char path[256];
	const char *paths[1] = { path };

	(void)state;
	make_tmp_dir();
	gen_dmon(&gen, 4, 800, "\n");
	/* 3200 rows + 2 x ceil(3200 / 44) = 73 header pairs */
	assert_int_equal(gen.nw, 3200);
	assert_int_equal(gen.lines, 3200 + 2 * 73);
	write_file(tmp_path(path, sizeof(path), "dmon.log"), gen.text.p, gen.text.n);
	for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
		for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
			struct ingest_opts o = opts(threads[t], chunks[c]);
			struct ingest_result res;
			struct got g = { 0 };

			assert_int_equal(run(paths, 1, &o, &g, &res), 0);
			check_records(&g, &gen);
			assert_int_equal(res.nr, 1);
			assert_non_null(res.inputs[0].format);
			assert_string_equal(res.inputs[0].format->id, "smi-dmon");
			assert_string_equal(res.inputs[0].compression, "plain");
			assert_int_equal(res.inputs[0].lines, gen.lines);
			assert_int_equal(res.inputs[0].records, 3200);
			assert_int_equal(res.inputs[0].bad, 0);
			assert_int_equal(res.inputs[0].bytes, gen.text.n);
			assert_false(res.inputs[0].partial_last_line);
			assert_int_equal(res.inputs[0].t_first_ns, T_2200_S * NS_PER_S);
			assert_int_equal(res.inputs[0].t_last_ns, (T_2200_S + 799) * NS_PER_S);
			got_release(&g);
			ingest_result_release(&res);
		}
	}
	unlink(path);
	rmdir(tmp_dir);
	gen_release(&gen);
}

/*
 * A chunk cut between the two header lines: the next chunk starts with the
 * units line and must replay the names line before it.  The cutter ends a
 * chunk at the first newline at or after chunk_bytes, so pad the first row
 * until byte 16384 falls inside a "#Date" line.
 */
#define CUT_BYTES 16384

static int cut_lands_in(const struct sbuf *t, const char *prefix)
{
	const char *p = t->p + CUT_BYTES;

	while (p > t->p && p[-1] != '\n')
		p--;
	return !strncmp(p, prefix, strlen(prefix));
}

static void test_cut_between_headers(void **state)
{
	static const char *const prefixes[] = { "#Date", "#YYYYMMDD" };
	char path[256];
	const char *paths[1] = { path };

	(void)state;
	make_tmp_dir();
	tmp_path(path, sizeof(path), "dmon.log");
	for (int k = 0; k < 2; k++) {
		struct gen gen;
		int pad = 0;

		for (;; pad++) {
			assert_true(pad < 8192);
			gen_dmon_pad(&gen, 2, 300, "\n", pad);
			if (cut_lands_in(&gen.text, prefixes[k]))
				break;
			gen_release(&gen);
		}
		write_file(path, gen.text.p, gen.text.n);
		for (int threads = 1; threads <= 3; threads++) {
			struct ingest_opts o = opts(threads, CUT_BYTES);
			struct ingest_result res;
			struct got g = { 0 };

			assert_int_equal(run(paths, 1, &o, &g, &res), 0);
			check_records(&g, &gen);
			assert_int_equal(res.inputs[0].bad, 0);
			got_release(&g);
			ingest_result_release(&res);
		}
		gen_release(&gen);
	}
	unlink(path);
	rmdir(tmp_dir);
}

/* A BOM and CRLF line ends change nothing but the bytes. */
static void test_crlf_bom(void **state)
{
	struct gen lf, crlf;
	struct sbuf text = { 0 };
	char path[256];
	const char *paths[1] = { path };
	struct ingest_opts o = opts(2, 0);
	struct ingest_result res;
	struct got g = { 0 };

	(void)state;
	make_tmp_dir();
	gen_dmon(&lf, 2, 50, "\n");
	gen_dmon(&crlf, 2, 50, "\r\n");
	sb_add(&text, "\xEF\xBB\xBF", 3);
	sb_add(&text, crlf.text.p, crlf.text.n);
	write_file(tmp_path(path, sizeof(path), "dmon.log"), text.p, text.n);
	assert_int_equal(run(paths, 1, &o, &g, &res), 0);
	check_records(&g, &lf);
	assert_int_equal(res.inputs[0].bad, 0);
	assert_int_equal(res.inputs[0].lines, lf.lines);
	assert_false(res.inputs[0].partial_last_line);
	got_release(&g);
	ingest_result_release(&res);
	unlink(path);
	rmdir(tmp_dir);
	free(text.p);
	gen_release(&lf);
	gen_release(&crlf);
}

/* No newline after the last row: the row counts, and the input says so. */
static void test_partial_last_line(void **state)
{
	struct gen gen;
	char path[256], gz[256];
	const char *paths[2] = { path, gz };

	(void)state;
	make_tmp_dir();
	gen_dmon(&gen, 2, 30, "\n");
	assert_int_equal(gen.text.p[gen.text.n - 1], '\n');
	/* mapped and streamed inputs take different paths through the cutter */
	write_file(tmp_path(path, sizeof(path), "a.log"), gen.text.p, gen.text.n - 1);
	write_gzip(tmp_path(gz, sizeof(gz), "b.log.gz"), gen.text.p, gen.text.n - 1);
	for (int i = 0; i < 2; i++) {
		struct ingest_opts o = opts(1, 0);
		struct ingest_result res;
		struct got g = { 0 };

		assert_int_equal(run(paths + i, 1, &o, &g, &res), 0);
		check_records(&g, &gen);
		assert_true(res.inputs[0].partial_last_line);
		assert_int_equal(res.inputs[0].lines, gen.lines);
		assert_int_equal(res.inputs[0].bad, 0);
		got_release(&g);
		ingest_result_release(&res);
	}
	unlink(path);
	unlink(gz);
	rmdir(tmp_dir);
	gen_release(&gen);
}

/* gzip and zstd copies give the records of the plain file, at any chunk size. */
static void test_compressed(void **state)
{
	struct gen gen;
	char gz[256], zs[256];
	const char *names[2] = { "gzip", "zstd" };
	const char *paths[2] = { gz, zs };

	(void)state;
	make_tmp_dir();
	gen_dmon(&gen, 4, 800, "\n");
	/* names without a telling suffix: compression is sniffed from the bytes */
	write_gzip(tmp_path(gz, sizeof(gz), "dmon-a"), gen.text.p, gen.text.n);
	write_zstd(tmp_path(zs, sizeof(zs), "dmon-b"), gen.text.p, gen.text.n);
	for (int i = 0; i < 2; i++) {
		for (int k = 0; k < 2; k++) {
			struct ingest_opts o = opts(k ? 2 : 1, k ? 4096 : 0);
			struct ingest_result res;
			struct got g = { 0 };

			assert_int_equal(run(paths + i, 1, &o, &g, &res), 0);
			check_records(&g, &gen);
			assert_string_equal(res.inputs[0].compression, names[i]);
			assert_int_equal(res.inputs[0].bytes, gen.text.n);
			assert_int_equal(res.inputs[0].lines, gen.lines);
			assert_false(res.inputs[0].partial_last_line);
			assert_string_equal(res.inputs[0].skip_reason, "");
			got_release(&g);
			ingest_result_release(&res);
		}
	}
	unlink(gz);
	unlink(zs);
	rmdir(tmp_dir);
	gen_release(&gen);
}

/* A directory: files in name order, an unknown one listed as skipped, not fatal. */
static void test_directory_skip(void **state)
{
	static const char notes[] = "hello world\nthis is a note\n";
	struct gen gen;
	char a[256], b[256];
	const char *paths[1] = { tmp_dir };
	struct ingest_opts o = opts(1, 0);
	struct ingest_result res;
	struct got g = { 0 };

	(void)state;
	make_tmp_dir();
	gen_dmon(&gen, 2, 10, "\n");
	/* written in the reverse of name order: the listing must still be sorted */
	write_file(tmp_path(b, sizeof(b), "b_notes.txt"), notes, sizeof(notes) - 1);
	write_file(tmp_path(a, sizeof(a), "a_dmon.log"), gen.text.p, gen.text.n);
	assert_int_equal(run(paths, 1, &o, &g, &res), 0);
	assert_int_equal(res.nr, 2);
	assert_string_equal(res.inputs[0].path, a);
	assert_string_equal(res.inputs[1].path, b);
	assert_non_null(res.inputs[0].format);
	assert_string_equal(res.inputs[0].skip_reason, "");
	assert_null(res.inputs[1].format);
	assert_string_equal(res.inputs[1].skip_reason, "not a recognised format");
	assert_int_equal(res.inputs[1].records, 0);
	check_records(&g, &gen);
	for (size_t i = 0; i < g.n; i++)
		assert_ptr_equal(g.in[i], &res.inputs[0]);
	got_release(&g);
	ingest_result_release(&res);
	unlink(a);
	unlink(b);
	rmdir(tmp_dir);
	gen_release(&gen);
}

/* Two logs of GPU 0, one on even seconds, one on odd: delivered in time order. */
static void test_merge_two_files(void **state)
{
	struct sbuf even = { 0 }, odd = { 0 };
	char pe[256], po[256];
	const char *paths[2];
	struct ingest_opts o = opts(2, 0);
	struct ingest_result res;
	struct got g = { 0 };

	(void)state;
	make_tmp_dir();
	for (int k = 0; k < 2; k++) {
		struct sbuf *b = k ? &odd : &even;
		sb_printf(b, "#Date        Time         gpu    pwr     sm\n");
		sb_printf(b, "#YYYYMMDD    HH:MM:SS     Idx      W      %%\n");
		for (int i = 0; i < 10; i++) {
			int s = 2 * i + k;	/* seconds after 22:00:00 */
			sb_printf(b, " 20261129    22:00:%02d       0 %6d %6d\n", s, 100 + s, s);
		}
	}
	write_file(tmp_path(pe, sizeof(pe), "even.log"), even.p, even.n);
	write_file(tmp_path(po, sizeof(po), "odd.log"), odd.p, odd.n);
	/* odd first on the command line: the order must come from the times */
	paths[0] = po;
	paths[1] = pe;
	assert_int_equal(run(paths, 2, &o, &g, &res), 0);
	assert_int_equal(g.n, 20);
	for (size_t i = 0; i < g.n; i++) {
		const struct rec *r = &g.r[i];
		/* record i is second i; its file line is 3 + i / 2 */
		assert_int_equal(r->t_ns, (T_2200_S + (int64_t)i) * NS_PER_S);
		assert_int_equal(r->gpu_index, 0);
		assert_int_equal(r->line, 3 + i / 2);
		assert_near(r->v[M_POWER], 100.0 + (double)i, 0);
		assert_string_equal(g.in[i]->path, i % 2 ? po : pe);
	}
	got_release(&g);
	ingest_result_release(&res);
	unlink(pe);
	unlink(po);
	rmdir(tmp_dir);
	free(even.p);
	free(odd.p);
}

static const char midnight[] =
	"#Time         gpu    pwr     sm\n"
	"#HH:MM:SS     Idx      W      %\n"
	" 23:59:58       0    130     66\n"
	" 23:59:58       1    128     64\n"
	" 23:59:59       0    131     67\n"
	" 23:59:59       1    127     63\n"
	" 00:00:00       0    129     65\n"
	" 00:00:00       1    126     62\n"
	" 00:00:01       0    132     68\n"
	" 00:00:01       1    125     61\n";

/* 2026-11-29T23:59:58Z = 1795996798 s; the rows are 58, 58, 59, 59, 60, 60, 61, 61 */
static void check_midnight(const struct got *g)
{
	static const int64_t want_s[8] = {
		1795996798, 1795996798, 1795996799, 1795996799,
		1795996800, 1795996800, 1795996801, 1795996801,
	};

	assert_int_equal(g->n, 8);
	for (size_t i = 0; i < 8; i++) {
		assert_int_equal(g->r[i].t_ns, want_s[i] * NS_PER_S);
		assert_int_equal(g->r[i].gpu_index, (int)(i % 2));
		assert_int_equal(g->r[i].line, 3 + i);
	}
}

/* A time-only log crossing midnight: the date advances after 23:59:59. */
static void test_time_only_midnight(void **state)
{
	char path[256], named[256];
	const char *paths[1] = { path };
	struct ingest_opts o = opts(1, 0);
	struct ingest_result res;
	struct got g = { 0 };

	(void)state;
	make_tmp_dir();
	write_file(tmp_path(path, sizeof(path), "dmon.log"), midnight, sizeof(midnight) - 1);
	o.date_days = DAY_20261129;
	assert_int_equal(run(paths, 1, &o, &g, &res), 0);
	check_midnight(&g);
	assert_string_equal(res.inputs[0].time_basis, "time of day in file, date from --date");
	got_release(&g);
	ingest_result_release(&res);

	/* no --date: the date in the file name */
	write_file(tmp_path(named, sizeof(named), "dmon_20261129.log"), midnight,
		   sizeof(midnight) - 1);
	paths[0] = named;
	o.date_days = INT64_MIN;
	assert_int_equal(run(paths, 1, &o, &g, &res), 0);
	check_midnight(&g);
	assert_string_equal(res.inputs[0].time_basis, "time of day in file, date from file name");
	got_release(&g);
	ingest_result_release(&res);
	unlink(path);
	unlink(named);
	rmdir(tmp_dir);
}

static void test_date_from_name(void **state)
{
	(void)state;
	assert_int_equal(date_from_name("dmon_20261129.log"), DAY_20261129);
	assert_int_equal(date_from_name("/var/log/gpu/dmon_20261129.log"), DAY_20261129);
	assert_int_equal(date_from_name("x20261129"), DAY_20261129);	/* at the very end */
	assert_int_equal(date_from_name("dmon.log"), INT64_MIN);
	assert_int_equal(date_from_name(""), INT64_MIN);
	/* only the base name counts */
	assert_int_equal(date_from_name("/data/20261129/dmon.log"), INT64_MIN);
	/* a run of nine digits is not a date, nor is month 13 */
	assert_int_equal(date_from_name("run_120261129.log"), INT64_MIN);
	assert_int_equal(date_from_name("run_202611290.log"), INT64_MIN);
	assert_int_equal(date_from_name("dmon_20261329.log"), INT64_MIN);
	/* years 1990..2200 only: 1990-01-01 is day 7305, 1989 is refused */
	assert_int_equal(date_from_name("a_19900101"), 7305);
	assert_int_equal(date_from_name("a_19891231"), INT64_MIN);
}

/* ---- the dmon fixed-width path against the token path ---------------------- */

struct seen {
	struct rec r;
	char msg[160];
};

struct seen_list {
	struct seen *s;
	size_t n, alloc;
};

static int collect_msgs(void *ud, const struct input_stat *in, const struct rec *r,
			const struct batch *b)
{
	struct seen_list *l = ud;
	const char *m = batch_str(b, r->name);

	(void)in;
	if (r->kind == REC_SAMPLE && r->gpu_index == 63)
		return 0;	/* the row that teaches the layout */
	ALLOC_GROW(l->s, l->n + 1, l->alloc);
	l->s[l->n].r = *r;
	snprintf(l->s[l->n].msg, sizeof(l->s[l->n].msg), "%s", m ? m : "");
	l->n++;
	return 0;
}

static uint64_t xs_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * A dmon row as long as the row before it is read by the fixed-width path
 * (fmt_smi_dmon.c); any other row by the token path.  Both must give the
 * same record, or the same complaint at the same column, for every row.
 * File A puts each mutated row after a good row of the same length (so the
 * fixed path is tried), file B right after a header (so it is not).
 */
/* The row layouts of dmon -o DT, -o T and no -o: header, row prefix, first field's offset. */
static const struct {
	const char *hdr, *prefix;
	size_t fields_at;	/* where the six fields after gpu start, 7 wide each */
} dmon_layouts[3] = {
	{ "# gpu    pwr  gtemp     sm    mem    enc     fb\n"
	  "# Idx      W      C      %      %      %     MB\n", "", 5 },
	{ "#Time         gpu    pwr  gtemp     sm    mem    enc     fb\n"
	  "#HH:MM:SS     Idx      W      C      %      %      %     MB\n", " 22:%02d:%02d", 16 },
	{ "#Date        Time         gpu    pwr  gtemp     sm    mem    enc     fb\n"
	  "#YYYYMMDD    HH:MM:SS     Idx      W      C      %      %      %     MB\n",
	  " 20261129    22:%02d:%02d", 28 },
};

static int dmon_row(char *buf, size_t cap, int lead, int i, const int *f)
{
	int n = 0;

	if (lead)
		n = snprintf(buf, cap, dmon_layouts[lead].prefix, i / 60 % 60, i % 60);
	n += snprintf(buf + n, cap - (size_t)n, lead ? " %6d %6d %6d %6d %6d %6d %6d\n" :
		      "  %3d %6d %6d %6d %6d %6d %6d\n", f[0], f[1], f[2], f[3], f[4], f[5], f[6]);
	return n;
}

static void fixed_width_round(int lead)
{
	static const char alphabet[] = "0123456789 -.\t+ex#:";
	const char *hdr = dmon_layouts[lead].hdr;
	size_t at0 = dmon_layouts[lead].fields_at;
	struct sbuf a = { 0 }, b = { 0 };
	struct seen_list la = { 0 }, lb = { 0 };
	char pa[4096], pb[4096];
	const char *one[1];
	struct ingest_opts o = opts(1, 0);
	struct ingest_result res;
	struct gl_err err = { 0 };
	uint64_t x = 0x9e3779b97f4a7c15u + (uint64_t)lead;
	size_t fixed_like = 0;

	make_tmp_dir();
	for (int i = 0; i < 4000; i++) {
		char good[128], row[128];
		static const int g[7] = { 63, 100, 40, 50, 20, 0, 1000 };
		int v[7], n = dmon_row(good, sizeof(good), lead, i, g);
		v[0] = (int)(xs_next(&x) % 8);
		for (int k = 1; k < 7; k++)
			v[k] = (int)(xs_next(&x) % 100000);
		v[2] %= 200;
		v[3] %= 101;
		v[4] %= 101;
		v[5] %= 3;
		dmon_row(row, sizeof(row), lead, i, v);
		/* 0 to 3 characters replaced; the length stays, so the layout applies */
		for (int m = (int)(xs_next(&x) % 4); m > 0; m--) {
			size_t at = (size_t)(xs_next(&x) % (size_t)(n - 1));
			row[at] = alphabet[xs_next(&x) % (sizeof(alphabet) - 1)];
		}
		if (xs_next(&x) % 5 == 0)	/* a field of "-" */
			memcpy(row + at0 + 7 * (size_t)(xs_next(&x) % 6), "      -", 7);
		if (xs_next(&x) % 7 == 0)	/* a number that fills its column */
			memcpy(row + at0 + 7 * (size_t)(xs_next(&x) % 6), "1234567", 7);
		sb_add(&a, hdr, strlen(hdr));
		sb_add(&a, good, (size_t)n);
		sb_add(&a, row, strlen(row));
		sb_add(&b, hdr, strlen(hdr));
		sb_add(&b, row, strlen(row));
		fixed_like += strlen(row) == (size_t)n;
	}
	write_file(tmp_path(pa, sizeof(pa), "a.log"), a.p, a.n);
	write_file(tmp_path(pb, sizeof(pb), "b.log"), b.p, b.n);
	o.format = "smi-dmon";
	o.date_days = DAY_20261129;	/* for -o T */
	one[0] = pa;
	memset(&res, 0, sizeof(res));
	assert_int_equal(ingest_run(one, 1, &o, &(struct ingest_sink){ .ud = &la, .rec = collect_msgs }, &res,
				    &err), 0);
	ingest_result_release(&res);
	one[0] = pb;
	memset(&res, 0, sizeof(res));
	assert_int_equal(ingest_run(one, 1, &o, &(struct ingest_sink){ .ud = &lb, .rec = collect_msgs }, &res,
				    &err), 0);
	ingest_result_release(&res);
	assert_true(fixed_like > 3900);
	assert_int_equal(la.n, lb.n);
	for (size_t i = 0; i < la.n; i++) {
		const struct rec *ra = &la.s[i].r, *rb = &lb.s[i].r;
		/* without time columns the driver counts ticks, which file a's extra rows change */
		bool cmp_t = ra->kind == REC_SAMPLE && lead;
		if (ra->kind != rb->kind || (cmp_t && ra->t_ns != rb->t_ns) ||
		    ra->gpu_index != rb->gpu_index ||
		    ra->present != rb->present || ra->col != rb->col ||
		    (ra->kind == REC_SAMPLE && memcmp(ra->v, rb->v, sizeof(ra->v))) ||
		    strcmp(la.s[i].msg, lb.s[i].msg) ||
		    ra->line * 3 != rb->line * 4)
			fail_msg("layout %d row %zu: line %llu/%llu t %lld/%lld kind %d/%d gpu %d/%d "
				 "present %x/%x col %u/%u '%s'/'%s'", lead, i,
				 (unsigned long long)ra->line, (unsigned long long)rb->line,
				 (long long)ra->t_ns, (long long)rb->t_ns, ra->kind, rb->kind,
				 ra->gpu_index, rb->gpu_index, ra->present, rb->present, ra->col,
				 rb->col, la.s[i].msg, lb.s[i].msg);
	}
	unlink(pa);
	unlink(pb);
	rmdir(tmp_dir);
	free(a.p);
	free(b.p);
	free(la.s);
	free(lb.s);
}

static void test_dmon_fixed_width(void **state)
{
	(void)state;
	for (int lead = 0; lead < 3; lead++)
		fixed_width_round(lead);
}

/*
 * More than four inputs are opened one by one as the merge reaches each
 * one's first record (found from its first 64 KiB).  Seven daily logs, two
 * of them interleaved on the same day and one whose rows start after 84 KB
 * of bad lines (so its start is not found and it is opened at once), named out of
 * time order: every record comes out, in time order, with its own file's
 * line numbers, and each input's counts and span are right.
 */
static void test_many_inputs_lazy(void **state)
{
	static const int day_of[7] = { 3, 1, 5, 2, 2, 4, 6 };
	char paths[7][4096];
	const char *pp[7];
	struct ingest_opts o = opts(2, 0);
	struct ingest_result res;
	struct got g = { 0 };

	(void)state;
	make_tmp_dir();
	for (int f = 0; f < 7; f++) {
		struct sbuf b = { 0 };
		char name[32];
		sb_printf(&b, "#Date        Time         gpu    pwr     sm\n");
		sb_printf(&b, "#YYYYMMDD    HH:MM:SS     Idx      W      %%\n");
		if (f == 6)	/* rows with too few fields: skipped, no time */
			for (int j = 0; j < 12000; j++)
				sb_add(&b, " 1 2 3\n", 7);
		for (int k = 0; k < 50; k++) {
			/* files 3 and 4 share day 2: even and odd seconds */
			int sec = f == 3 ? 2 * k : f == 4 ? 2 * k + 1 : k;
			sb_printf(&b, " 202611%02d    10:%02d:%02d %6d %6d %6d\n", day_of[f] + 10,
				  sec / 60, sec % 60, f, 100 + k, k);
		}
		snprintf(name, sizeof(name), "in%d.log", f);
		write_file(tmp_path(paths[f], sizeof(paths[f]), name), b.p, b.n);
		pp[f] = paths[f];
		free(b.p);
	}
	assert_int_equal(run(pp, 7, &o, &g, &res), 0);
	{
		size_t nsamples = 0;
		int64_t last_t = INT64_MIN;
		uint64_t last_line[7] = { 0 };
		for (size_t i = 0; i < g.n; i++) {
			const struct rec *r = &g.r[i];
			int f = (int)(g.in[i] - res.inputs);
			if (r->kind != REC_SAMPLE)
				continue;
			nsamples++;
			assert_true(r->t_ns >= last_t);
			last_t = r->t_ns;
			assert_int_equal(r->gpu_index, f);
			assert_true(r->line > last_line[f]);
			last_line[f] = r->line;
		}
		assert_int_equal(nsamples, 7 * 50);
	}
	for (int f = 0; f < 7; f++) {
		const struct input_stat *st = &res.inputs[f];
		assert_non_null(st->format);
		assert_int_equal(st->records, 50);
		assert_int_equal(st->lines, f == 6 ? 12052 : 52);
		assert_int_equal(st->bad, f == 6 ? 12000 : 0);
		assert_true(st->t_first_ns < st->t_last_ns);
	}
	/* in time order: day 11 (file 1), then 12 (3 and 4), 13 (0), 14 (5), 15 (2), 16 (6) */
	assert_true(res.inputs[1].t_last_ns < res.inputs[3].t_first_ns);
	assert_true(res.inputs[0].t_last_ns < res.inputs[5].t_first_ns);
	for (int f = 0; f < 7; f++)
		unlink(paths[f]);
	rmdir(tmp_dir);
	got_release(&g);
	ingest_result_release(&res);
}

/* The sink's non-zero code stops the run and comes back from ingest_run. */
static void test_sink_stops(void **state)
{
	struct gen gen;
	char path[256];
	const char *paths[1] = { path };

	(void)state;
	make_tmp_dir();
	gen_dmon(&gen, 4, 800, "\n");
	write_file(tmp_path(path, sizeof(path), "dmon.log"), gen.text.p, gen.text.n);
	for (int threads = 1; threads <= 3; threads++) {
		struct ingest_opts o = opts(threads, 4096);
		struct ingest_result res;
		struct got g = { 0 };

		g.stop_at = 5;
		g.stop_rc = 42;
		assert_int_equal(run(paths, 1, &o, &g, &res), 42);
		assert_int_equal(g.n, 5);
		assert_int_equal(g.r[4].line, 7);	/* 2 header lines, then rows 1..5 */
		got_release(&g);
		ingest_result_release(&res);
	}
	unlink(path);
	rmdir(tmp_dir);
	gen_release(&gen);
}

/* ---- over-long lines ---------------------------------------------------------- */

struct long_sink {
	struct got g;
	char msg[128];		/* the bad line's message */
	uint64_t bad_line;
	int nbad;
};

static int collect_long(void *ud, const struct input_stat *in, const struct rec *r,
			const struct batch *b)
{
	struct long_sink *ls = ud;

	if (r->kind == REC_BAD) {
		ls->nbad++;
		ls->bad_line = r->line;
		snprintf(ls->msg, sizeof(ls->msg), "%s", batch_str(b, r->name));
		return 0;
	}
	return collect(&ls->g, in, r, b);
}

/*
 * Row 120 of a 300-row log is followed by one line of rows that lost their
 * newlines: five times the line limit (4096 or 100000 here, 16 MiB by
 * default; the second is past the 64 KiB sniffed head, so the line is read
 * into a buffer that grows up to the limit).  It must be one bad line, "line longer than 4096 bytes", at its own line
 * number, and every row after it must keep its own line number: plain
 * (mapped), gzip and zstd (read in chunks), any chunk size, one thread or
 * three.  Before, the
 * chunk cutter cut it into pieces of the limit, each taken for a line.
 */
static void long_line(void **state, size_t limit)
{
	static const size_t chunks[] = { 64, 0 };
	static const int threads[] = { 1, 3 };
	struct gen gen;
	struct sbuf text = { 0 }, row = { 0 };
	char path[3][256];
	const char *kinds[3] = { "long.log", "long.log.gz", "long.log.zst" };
	const char *at, *end;
	char want[64];
	uint64_t after;

	(void)state;
	make_tmp_dir();
	gen_dmon(&gen, 1, 300, "\n");
	after = gen.w[119].line;
	/* the text up to the end of line `after`, the long line, the rest */
	at = gen.text.p;
	for (uint64_t l = 0; l < after; l++)
		at = strchr(at, '\n') + 1;
	end = strchr(at, '\n');
	sb_add(&row, at, (size_t)(end - at));	/* the next row, without its newline */
	sb_add(&text, gen.text.p, (size_t)(at - gen.text.p));
	while (text.n < (size_t)(at - gen.text.p) + 5 * limit)
		sb_add(&text, row.p, row.n);
	sb_add(&text, "\n", 1);
	sb_add(&text, at, gen.text.n - (size_t)(at - gen.text.p));
	for (size_t i = 0; i < gen.nw; i++)
		if (gen.w[i].line > after)
			gen.w[i].line++;
	write_file(tmp_path(path[0], sizeof(path[0]), kinds[0]), text.p, text.n);
	write_gzip(tmp_path(path[1], sizeof(path[1]), kinds[1]), text.p, text.n);
	write_zstd(tmp_path(path[2], sizeof(path[2]), kinds[2]), text.p, text.n);
	for (int k = 0; k < 3; k++) {
		for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
			for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
				struct ingest_opts o = opts(threads[t], chunks[c]);
				struct long_sink ls = { 0 };
				struct ingest_sink sink = { &ls, collect_long, NULL };
				struct ingest_result res = { 0 };
				struct gl_err err = { 0 };
				const char *paths[1] = { path[k] };

				o.max_line = limit;
				assert_int_equal(ingest_run(paths, 1, &o, &sink, &res, &err), 0);
				if (ls.nbad != 1 || ls.bad_line != after + 1)
					fail_msg("%s chunk %zu threads %d: %d bad line(s), the last at line %llu; "
						 "want 1 at line %llu", kinds[k], chunks[c], threads[t], ls.nbad,
						 (unsigned long long)ls.bad_line, (unsigned long long)after + 1);
				snprintf(want, sizeof(want), "line longer than %zu bytes", limit);
				assert_string_equal(ls.msg, want);
				check_records(&ls.g, &gen);
				assert_int_equal(res.inputs[0].lines, gen.lines + 1);
				assert_int_equal(res.inputs[0].bad, 1);
				assert_int_equal(res.inputs[0].bytes, text.n);
				got_release(&ls.g);
				ingest_result_release(&res);
			}
		}
		unlink(path[k]);
	}
	rmdir(tmp_dir);
	free(text.p);
	free(row.p);
	gen_release(&gen);
}

static void test_long_line(void **state)
{
	static const size_t limits[] = { 4096, 100000 };
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++)
		long_line(state, limits[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chunks_and_threads),
		cmocka_unit_test(test_cut_between_headers),
		cmocka_unit_test(test_crlf_bom),
		cmocka_unit_test(test_partial_last_line),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_directory_skip),
		cmocka_unit_test(test_merge_two_files),
		cmocka_unit_test(test_time_only_midnight),
		cmocka_unit_test(test_date_from_name),
		cmocka_unit_test(test_sink_stops),
		cmocka_unit_test(test_many_inputs_lazy),
		cmocka_unit_test(test_dmon_fixed_width),
		cmocka_unit_test(test_long_line),
	};

	/* local times in the logs are read as UTC */
	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
