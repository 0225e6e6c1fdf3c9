/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for issue 36's containers and AMD readers, on the records
 * themselves:
 *
 * - `amd-smi metric -w 1 --json` (watch mode: a 'CTRL' line, then one
 *   array per tick with each GPU's "timestamp"), built from the bundled H200
 *   capture's dmon rows (power, sm, mem, gtemp, pclk of each second) as two
 *   GPUs, fed in pieces cut anywhere: every record has its row's second and
 *   values, whatever the cut;
 * - `amd-smi metric --csv -w 1` (the header again before every tick) read
 *   in jobs cut anywhere on several threads: the same records as one read;
 * - the `Date:` line of nvidia-bug-report.log in the forms date(1) prints
 *   (12- and 24-hour, a zone as a number, UTC, or a name), read through the
 *   anchor that pairs it with the report's last dmesg line;
 * - a report of several MB, which reaches the container in many pieces and
 *   batches: its journal, dmesg and -q records still get the report's
 *   zone, placing and line numbers.
 */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "formats/driver.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

#define MAXROW 64

struct row {
	int64_t t_s;
	int pwr, gtemp, sm, mem, pclk;
};

/* The first rows of the capture's dmon log (#Date Time gpu pwr gtemp mtemp sm mem ...). */
static size_t dmon_rows(struct row *rows, size_t cap)
{
	FILE *f = fopen("examples/h200-training/dmon_pucvmet_DT.log", "r");
	char line[512];
	size_t n = 0;

	assert_non_null(f);
	while (n < cap && fgets(line, sizeof(line), f)) {
		int y, mo, d, h, mi, s, gpu, pwr, gtemp, mtemp, sm, mem, enc, dec, jpg, ofa, mclk, pclk;
		int64_t t;
		if (line[0] == '#')
			continue;
		if (sscanf(line, " %4d%2d%2d %d:%d:%d %d %d %d %d %d %d %d %d %d %d %d %d", &y, &mo, &d,
			   &h, &mi, &s, &gpu, &pwr, &gtemp, &mtemp, &sm, &mem, &enc, &dec, &jpg, &ofa,
			   &mclk, &pclk) != 18)
			continue;
		t = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;	/* UTC capture */
		rows[n++] = (struct row){ t, pwr, gtemp, sm, mem, pclk };
	}
	fclose(f);
	return n;
}

struct text {
	char *p;
	size_t n, cap;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int k;

	for (;;) {
		va_start(ap, fmt);
		k = vsnprintf(t->p ? t->p + t->n : NULL, t->p ? t->cap - t->n : 0, fmt, ap);
		va_end(ap);
		assert_true(k >= 0);
		if (t->p && t->n + (size_t)k < t->cap)
			break;
		t->cap = (t->cap + (size_t)k + 1) * 2;
		t->p = xrealloc(t->p, t->cap);
	}
	t->n += (size_t)k;
}

/* amd-smi's value object, as its --json prints it (indent 4) */
static void value(struct text *t, const char *ind, const char *key, int v, const char *unit,
		  bool comma)
{
	put(t, "%s\"%s\": {\n%s    \"value\": %d,\n%s    \"unit\": \"%s\"\n%s}%s\n", ind, key, ind, v,
	    ind, unit, ind, comma ? "," : "");
}

/* Watch mode: one array per tick, GPU 0 the row's values, GPU 1 half of them. */
static void gen_watch(struct text *t, const struct row *rows, size_t n)
{
	put(t, "'CTRL' + 'C' to stop watching output:\n");
	for (size_t i = 0; i < n; i++) {
		put(t, "[\n");
		for (int g = 0; g < 2; g++) {
			int div = g + 1;
			put(t, "    {\n        \"timestamp\": %lld,\n        \"gpu\": %d,\n",
			    (long long)rows[i].t_s, g);
			put(t, "        \"usage\": {\n");
			value(t, "            ", "gfx_activity", rows[i].sm / div, "%", true);
			value(t, "            ", "umc_activity", rows[i].mem / div, "%", true);
			put(t, "            \"mm_activity\": \"N/A\"\n        },\n");
			put(t, "        \"power\": {\n");
			value(t, "            ", "socket_power", rows[i].pwr / div, "W", true);
			put(t, "            \"throttle_status\": \"UNTHROTTLED\"\n        },\n");
			put(t, "        \"clock\": {\n            \"gfx_0\": {\n");
			value(t, "                ", "clk", rows[i].pclk, "MHz", true);
			put(t, "                \"min_clk\": \"N/A\"\n            }\n        },\n");
			put(t, "        \"temperature\": {\n            \"edge\": \"N/A\",\n");
			value(t, "            ", "hotspot", rows[i].gtemp, "C", false);
			put(t, "        }\n    }%s\n", g ? "" : ",");
		}
		put(t, "]\n");
	}
}

/* Run a stream() format over text in pieces of `piece` bytes. */
static void feed(const char *id, const char *p, size_t n, size_t piece, struct batch *b)
{
	const struct format *f = format_find(id);
	struct ingest_opts o = { 0 };
	struct parse_ctx ctx = { 0 };
	void *state;

	assert_non_null(f);
	o.date_days = INT64_MIN;
	o.interval_ns = NS_PER_S;
	memset(b, 0, sizeof(*b));
	for (int i = 0; i < 4; i++)
		b->last_str[i] = STR_NONE;
	ctx.opts = &o;
	ctx.src = "test";
	ctx.out = b;
	state = xcalloc(1, f->state_size);
	if (f->init)
		f->init(state, &o);
	ctx.state = state;
	for (size_t at = 0; at < n; at += piece)
		f->stream(&ctx, p + at, n - at < piece ? n - at : piece, false);
	f->stream(&ctx, "", 0, true);
	if (f->fini)
		f->fini(state);
	free(state);
}

static void test_amd_smi_watch_pieces(void **st)
{
	static const size_t pieces[] = { 1, 7, 64, 4096, (size_t)1 << 30 };
	struct row rows[MAXROW];
	size_t nrow = dmon_rows(rows, MAXROW);
	struct text t = { 0 };
	uint64_t lines[2 * MAXROW] = { 0 };

	(void)st;
	assert_true(nrow >= 30);
	gen_watch(&t, rows, nrow);
	for (size_t p = 0; p < sizeof(pieces) / sizeof(pieces[0]); p++) {
		struct batch b;
		feed("amd-smi-json", t.p, t.n, pieces[p], &b);
		assert_int_equal(b.nr, 2 * nrow);
		for (size_t i = 0; i < b.nr; i++) {
			const struct rec *r = &b.recs[i];
			const struct row *w = &rows[i / 2];
			int div = (int)(i % 2) + 1;
			assert_int_equal(r->kind, REC_SAMPLE);
			assert_int_equal(r->time_kind, TK_ABS);
			assert_int_equal(r->t_ns, w->t_s * NS_PER_S);
			assert_int_equal(r->gpu_index, (int)(i % 2));
			assert_near(r->v[M_POWER], w->pwr / div, 0);
			assert_near(r->v[M_UTIL_GPU], w->sm / div, 0);
			assert_near(r->v[M_UTIL_MEM], w->mem / div, 0);
			assert_near(r->v[M_SM_CLOCK], w->pclk, 0);
			/* edge N/A: the hotspot, and no edge made up */
			assert_near(r->v[M_TEMP], w->gtemp, 0);
			/* nothing NVIDIA-only: no clock-event reasons from throttle_status */
			assert_false(r->present & (1u << M_EVENT_MASK));
			if (p == 0)
				lines[i] = r->line;
			assert_int_equal(r->line, lines[i]);
		}
		free(b.recs);
		free(b.strs);
	}
	free(t.p);
}

/* Where a bug report with `date_line` places its one dmesg line, at 100 s. */
static int64_t report_anchor(const char *date_line)
{
	struct text t = { 0 };
	struct batch b;
	int64_t at = INT64_MIN;

	put(&t, "____________________________________________\n\n");
	put(&t, "Start of NVIDIA bug report log file.  Please include this file, along\n\n");
	put(&t, "%s\n\n", date_line);
	put(&t, "____________________________________________\n\ndmesg:\n\n");
	put(&t, "[  100.000000] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  580.159.04\n");
	put(&t, "____________________________________________\n\nEnd of NVIDIA bug report log file.\n");
	feed("nvidia-bug-report", t.p, t.n, 5, &b);
	/* the driver load at 100 s is the last kernel line: printed at the Date */
	for (size_t i = 0; i < b.nr; i++)
		if (b.recs[i].kind == REC_ANCHOR) {
			assert_int_equal(b.recs[i].anc.mono_ns, 100 * NS_PER_S);
			at = b.recs[i].t_ns;
		}
	free(b.recs);
	free(b.strs);
	free(t.p);
	return at;
}

static void test_bug_report_dates(void **st)
{
	/* 2022-10-27T23:50:11Z */
	const int64_t t = INT64_C(1666914611) * NS_PER_S;

	(void)st;
	setenv("TZ", "Asia/Tokyo", 1);	/* --tz: only a zone's name falls back to it */
	tzset();
	assert_int_equal(report_anchor("Date: Thu Oct 27 08:50:11 PM -03 2022"), t);
	assert_int_equal(report_anchor("Date: Thu Oct 27 23:50:11 UTC 2022"), t);
	assert_int_equal(report_anchor("Date: Fri Oct 28 05:20:11 AM +0530 2022"), t);
	assert_int_equal(report_anchor("Date: Thu Oct 27 11:50:11 PM GMT 2022"), t);
	/* 12 AM is midnight */
	assert_int_equal(report_anchor("Date: Fri Oct 28 12:50:11 AM +0100 2022"), t);
	/* a zone's name: read in --tz (Tokyo, +09) */
	assert_int_equal(report_anchor("Date: Fri Oct 28 08:50:11 JST 2022"), t);
	/* not a date: nothing places the dmesg */
	assert_int_equal(report_anchor("Date: sometime last week"), INT64_MIN);
	setenv("TZ", "UTC", 1);
	tzset();
}

static int collect(void *ud, const struct input_stat *in, const struct rec *r,
		   const struct batch *b)
{
	struct text *o = ud;
	(void)in;
	(void)b;
	if (r->kind == REC_BAD) {
		put(o, "bad %llu\n", (unsigned long long)r->line);
		return 0;
	}
	put(o, "%d %d %lld %llu %.0f %.0f %.0f\n", r->kind, r->gpu_index, (long long)r->t_ns,
	    (unsigned long long)r->line, r->v[M_POWER], r->v[M_UTIL_GPU], r->v[M_TEMP]);
	return 0;
}

static void read_csv(const char *path, int threads, size_t chunk, struct text *o)
{
	struct ingest_opts opt;
	struct ingest_result res = { 0 };
	struct ingest_sink sink = { .ud = o, .rec = collect };
	const char *paths[1] = { path };

	memset(&opt, 0, sizeof(opt));
	opt.date_days = INT64_MIN;
	opt.interval_ns = NS_PER_S;
	opt.threads = threads;
	opt.chunk_bytes = chunk;
	o->n = 0;
	put(o, "%s", "");
	assert_int_equal(ingest_run(paths, 1, &opt, &sink, &res, NULL), 0);
	assert_int_equal(res.nr, 1);
	assert_non_null(res.inputs[0].format);
	assert_string_equal(res.inputs[0].format->id, "amd-smi-csv");
	put(o, "records=%llu bad=%llu\n", (unsigned long long)res.inputs[0].records,
	    (unsigned long long)res.inputs[0].bad);
	ingest_result_release(&res);
}

/*
 * amd-smi metric --csv -w 1 as watch mode prints it (the 'CTRL' line, the
 * header again before every tick, two GPUs a tick), from the capture's dmon
 * rows, read whole on one thread and in jobs of a few bytes on several: the
 * same records (each header is the context the next job replays).
 */
static void test_amd_smi_csv_chunks(void **st)
{
	static const struct { int threads; size_t chunk; } runs[] = {
		{ 1, 64 }, { 2, 1 }, { 2, 97 }, { 3, 300 }, { 4, 4096 },
	};
	struct row rows[MAXROW];
	size_t nrow = dmon_rows(rows, MAXROW);
	struct text t = { 0 }, ref = { 0 }, got = { 0 };
	char path[] = "/tmp/gputally-amd-csv-XXXXXX";
	int fd;

	(void)st;
	put(&t, "'CTRL' + 'C' to stop watching output:\n");
	for (size_t i = 0; i < nrow; i++) {
		put(&t, "timestamp,gpu,gfx_activity,umc_activity,socket_power,gfx_0_clk,edge,hotspot,mem\n");
		for (int g = 0; g < 2; g++)
			put(&t, "%lld,%d,%d,%d,%d,%d,N/A,%d,%d\n", (long long)rows[i].t_s, g,
			    rows[i].sm / (g + 1), rows[i].mem, rows[i].pwr / (g + 1), rows[i].pclk,
			    rows[i].gtemp, rows[i].gtemp);
	}
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, t.p, t.n), (ssize_t)t.n);
	close(fd);
	read_csv(path, 1, 0, &ref);
	assert_non_null(strstr(ref.p, "bad=0"));
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		read_csv(path, runs[i].threads, runs[i].chunk, &got);
		assert_string_equal(got.p, ref.p);
	}
	unlink(path);
	free(t.p);
	free(ref.p);
	free(got.p);
}

struct seen {
	int64_t journal_ns, dmesg_ns, q_ns;
	uint64_t q_line;
};

static int collect_report(void *ud, const struct input_stat *in, const struct rec *r,
			  const struct batch *b)
{
	struct seen *w = ud;
	(void)in;
	(void)b;
	if (r->kind == REC_EVENT && r->ev == EV_DRIVER_LOAD && r->time_kind == TK_ABS) {
		if (r->line == 12)
			w->journal_ns = r->t_ns;
		else
			w->dmesg_ns = r->t_ns;
	}
	if (r->kind == REC_SAMPLE) {
		w->q_ns = r->t_ns;
		w->q_line = r->line;
	}
	return 0;
}

/*
 * A report of several MB reaches the container in many pieces, each with a
 * batch of its own: the journal line and the dmesg line near its start, far
 * from the Date line's dmesg end, must still get the report's zone and the
 * report's placing, and the -q sample the report's line number.
 */
static void test_bug_report_big(void **st)
{
	struct text t = { 0 };
	char path[] = "/tmp/gputally-bug-report-XXXXXX";
	struct ingest_opts opt;
	struct ingest_result res = { 0 };
	struct seen w = { INT64_MIN, INT64_MIN, INT64_MIN, 0 };
	struct ingest_sink sink = { .ud = &w, .rec = collect_report };
	const char *paths[1] = { path };
	const char *rule = "____________________________________________";
	uint64_t q_line;
	int fd;

	(void)st;
	setenv("TZ", "UTC", 1);
	tzset();
	put(&t, "%s\n\nStart of NVIDIA bug report log file.  Please include this file, along\n\n", rule);
	put(&t, "Date: Thu Oct 27 08:50:11 PM -03 2022\n\n%s\n\n", rule);
	put(&t, "Scanning kernel log files for NVIDIA kernel messages:\n\n  journalctl -b -0:\n");
	/* line 12 */
	put(&t, "Oct 27 20:24:54 host kernel: NVRM: loading NVIDIA UNIX x86_64 Kernel Module"
		"  520.56.06\n");
	for (int i = 0; i < 20000; i++)
		put(&t, "Oct 27 20:24:55 host kernel: usb 1-%d: new device\n", i);
	put(&t, "%s\n\ndmesg:\n\n", rule);
	put(&t, "[   20.000000] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  520.56.06\n");
	for (int i = 0; i < 40000; i++)
		put(&t, "[ %4d.%06d] usb 1-%d: new device\n", 21 + i / 1000, i % 1000, i);
	put(&t, "[ 1523.174430] audit: the sudo that ran the script\n%s\n\n", rule);
	put(&t, "/sbin/nvidia-smi --query\n\n\n==============NVSMI LOG==============\n\n");
	put(&t, "Timestamp                                 : Thu Oct 27 20:50:19 2022\n");
	put(&t, "Driver Version                            : 520.56.06\n\n");
	put(&t, "Attached GPUs                             : 1\n");
	q_line = 1;
	for (size_t i = 0; i < t.n; i++)
		q_line += t.p[i] == '\n';
	put(&t, "GPU 00000000:01:00.0\n    Power Readings\n");
	put(&t, "        Power Draw                        : 24.78 W\n");
	put(&t, "\n%s\n\nEnd of NVIDIA bug report log file.\n", rule);
	assert_true(t.n > 2 * 1024 * 1024);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, t.p, t.n), (ssize_t)t.n);
	close(fd);
	memset(&opt, 0, sizeof(opt));
	opt.date_days = INT64_MIN;
	opt.interval_ns = NS_PER_S;
	assert_int_equal(ingest_run(paths, 1, &opt, &sink, &res, NULL), 0);
	assert_string_equal(res.inputs[0].format->id, "nvidia-bug-report");
	ingest_result_release(&res);
	unlink(path);
	free(t.p);
	/* 20:24:54 at -03 */
	assert_int_equal(w.journal_ns, INT64_C(1666913094) * NS_PER_S);
	/* 23:50:11Z - 1523.174430 s + 20 s */
	assert_int_equal(w.dmesg_ns, INT64_C(1666914611) * NS_PER_S - INT64_C(1503174430000));
	/* 20:50:19 at -03, on the report's line of its GPU */
	assert_int_equal(w.q_ns, INT64_C(1666914619) * NS_PER_S);
	assert_int_equal(w.q_line, q_line);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_amd_smi_watch_pieces),
		cmocka_unit_test(test_bug_report_dates),
		cmocka_unit_test(test_amd_smi_csv_chunks),
		cmocka_unit_test(test_bug_report_big),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
