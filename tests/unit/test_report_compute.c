/* SPDX-License-Identifier: MIT */
/*
 * Issue 30: report_compute() works out the figures the writers print, and
 * the writers print them all (docs/internals/adding-a-writer.md).
 */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/detector.h"
#include "formats/format.h"
#include "report/report.h"
#include "report/alert_out.h"
#include "report/cost_out.h"
#include "report/scale_out.h"
#include "report/trace_out.h"
#include "report/trend_report.h"
#include "report/writers.h"
#include "util/timeutil.h"
#include "util/xalloc.h"
#include "sample_rec.h"

#define NKINDS 40	/* more than the 32 text.c once tallied without saying so */

static char kind_names[NKINDS][24];	/* finding kinds are static strings */

static struct analysis *start(void)
{
	struct analysis *an = xcalloc(1, sizeof(*an));

	analysis_init(an, NULL);
	return an;
}

static void compute(struct report *rep, struct analysis *an, struct ingest_result *res)
{
	memset(rep, 0, sizeof(*rep));
	rep->inputs = res;
	rep->an = an;
	rep->tz = "UTC";
	cost_params_init(&rep->params);
	report_compute(rep);
}

/* What writer name renders of rep, NUL-terminated; the caller frees it. */
static char *render(const char *name, const struct report *rep)
{
	const struct report_writer *w = report_writer_find(name);
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	assert_non_null(w);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	w->render(f, rep);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* GPU 0 sampled each second for n seconds at util %% and power W, from 2027-01-15T08:00:00Z. */
static void samples(struct analysis *an, int n, double util, double power)
{
	struct batch sb;

	memset(&sb, 0, sizeof(sb));
	for (int i = 0; i < n; i++) {
		struct rec r = sample_rec((INT64_C(1800000000) + i) * NS_PER_S, 0);
		r.present = 1u << M_UTIL_GPU | 1u << M_POWER;
		r.v[M_UTIL_GPU] = util;
		r.v[M_POWER] = power;
		analysis_add(an, &r, &sb, "smi.csv");
	}
}

/*
 * 40 kinds of finding, kind k found k % 3 + 1 times: the tally has every
 * kind with its count, in the order the kinds first come, and the text's
 * "by kind" line names all 40.
 */
static void test_kind_tally_has_every_kind(void **state)
{
	struct analysis *an = start();
	struct ingest_result res = { 0 };
	struct report rep;
	size_t total = 0;
	char *text, *line, *end;

	(void)state;
	samples(an, 10, 50, 100);	/* a GPU with covered time: the text lists findings */
	analysis_finish(an);
	assert_int_equal(an->nfinds, 0);
	for (int k = 0; k < NKINDS; k++) {
		snprintf(kind_names[k], sizeof(kind_names[k]), "kind_%02d", k);
		for (int n = 0; n < k % 3 + 1; n++) {
			struct finding *f = det_finding(an, FK_XID_ERROR, -1, INT64_C(1800000000) * NS_PER_S,
							INT64_C(1800000001) * NS_PER_S, SEV_WARNING, 1);
			assert_non_null(f);
			/* a kind known only by its name, as the store reads them back */
			f->kind = kind_names[k];
			f->fk = FK_NONE;
			snprintf(f->message, sizeof(f->message), "finding %d of %s", n, kind_names[k]);
		}
	}
	compute(&rep, an, &res);
	assert_int_equal(rep.nkinds, NKINDS);
	for (int k = 0; k < NKINDS; k++) {
		assert_string_equal(rep.kinds[k].kind, kind_names[k]);
		assert_int_equal(rep.kinds[k].n, (size_t)(k % 3 + 1));
		total += rep.kinds[k].n;
	}
	assert_int_equal(total, an->nfinds);

	text = render("text", &rep);
	line = strstr(text, "  by kind:");
	assert_non_null(line);
	end = strchr(line, '\n');
	assert_non_null(end);
	*end = 0;
	for (int k = 0; k < NKINDS; k++) {
		char want[32];
		snprintf(want, sizeof(want), " %d %s", k % 3 + 1, kind_names[k]);
		if (!strstr(line, want))
			fail_msg("the text's tally lacks '%s': %s", want, line);
	}
	*end = '\n';
	/* kinds known only by name (a store's from a later version) say so, in full and grouped */
	if (!strstr(text, "  [warning] kind_00 (a kind this version does not know)  host") ||
	    !strstr(text, "  [warning] kind_38 (a kind this version does not know)  host: 3 findings"))
		fail_msg("the text does not say the kinds are unknown:\n%.3000s", strstr(text, "\nFindings (") ? strstr(text, "\nFindings (") : text);
	free(text);
	text = render("json", &rep);
	if (!strstr(text, "\"kind\": \"kind_00\",\n      \"kind_known\": false,"))
		fail_msg("the JSON does not say the kind is unknown:\n%.2000s", text);
	free(text);
	report_release(&rep);
	analysis_release(an);
	free(an);
}

/* A driver_load host event at T0 + s seconds, line line of src. */
static void driver_load(struct analysis *an, int s, uint64_t line, const char *src)
{
	static char strs[] = "NVRM: loading NVIDIA UNIX x86_64 Kernel Module";
	struct batch b;
	struct rec r;

	memset(&b, 0, sizeof(b));
	b.strs = strs;
	b.strs_len = sizeof(strs);
	memset(&r, 0, sizeof(r));
	r.kind = REC_EVENT;
	r.time_kind = TK_ABS;
	r.t_ns = (INT64_C(1800000000) + s) * NS_PER_S;
	r.ev = EV_DRIVER_LOAD;
	r.gpu_index = -1;
	r.uuid = STR_NONE;
	r.name = 0;
	r.line = line;
	r.kev.code = -1;
	r.kev.pci = r.kev.proc = r.kev.text = STR_NONE;
	r.kev.count = 1;
	r.kev.klass = KC_SYSTEM;
	r.kev.severity = KS_INFO;
	analysis_add(an, &r, &b, src);
}

/* Where want is in s, after from; fails when it is not. */
static const char *after(const char *s, const char *from, const char *want)
{
	const char *p = strstr(from ? from : s, want);

	if (!p)
		fail_msg("'%s' not found in order in:\n%s", want, s);
	return p + 1;
}

/*
 * Events listed out of time order (a log whose lines are not in time order,
 * several files): the group's range is its earliest to its latest event, and
 * the lists that print each event print them in time order.  Before, the
 * text printed the first and last listed: 08:05:00Z .. 08:03:20Z.
 */
static void test_event_ranges(void **state)
{
	struct analysis *an = start();
	struct ingest_result res = { 0 };
	struct report rep;
	const char *p;
	char *out;

	(void)state;
	samples(an, 400, 50, 100);
	driver_load(an, 300, 7, "b.log");	/* 08:05:00Z */
	driver_load(an, 100, 3, "a.log");	/* 08:01:40Z, the earliest */
	driver_load(an, 200, 9, "b.log");	/* 08:03:20Z, listed last */
	analysis_finish(an);
	compute(&rep, an, &res);
	assert_int_equal(an->nevs, 3);
	assert_int_equal(rep.nevgroups, 1);
	assert_int_equal(rep.evgroups[0].n, 3);
	assert_true(rep.evgroups[0].t_min_ns == (INT64_C(1800000000) + 100) * NS_PER_S);
	assert_true(rep.evgroups[0].t_max_ns == (INT64_C(1800000000) + 300) * NS_PER_S);
	assert_string_equal(an->evs[rep.evgroups[0].ev].src, "a.log");

	out = render("text", &rep);
	after(out, NULL, "x3    2027-01-15T08:01:40Z .. 2027-01-15T08:05:00Z");
	after(out, NULL, "first: a.log:3");
	free(out);
	for (int w = 0; w < 3; w++) {
		static const char *const names[] = { "json", "markdown", "html" };
		out = render(names[w], &rep);
		p = after(out, NULL, "2027-01-15T08:01:40");
		p = after(out, p, "2027-01-15T08:03:20");
		after(out, p, "2027-01-15T08:05:00");
		free(out);
	}
	report_release(&rep);
	analysis_release(an);
	free(an);
}

/* GPUs 0..ngpus-1 sampled each second for 10 s (a name and covered time each). */
static void gpus(struct analysis *an, int ngpus)
{
	struct batch sb;

	memset(&sb, 0, sizeof(sb));
	for (int i = 0; i < 10; i++)
		for (int g = 0; g < ngpus; g++) {
			struct rec r = sample_rec((INT64_C(1800000000) + i) * NS_PER_S, g);
			r.present = 1u << M_UTIL_GPU;
			r.v[M_UTIL_GPU] = 40;
			analysis_add(an, &r, &sb, "smi.csv");
		}
}

/*
 * The grouping as the text once did it, nested over the findings: the
 * oracle.  For the group of finding g (the first of its severity and kind
 * from `from` on): its findings, stretches and GPUs in order of appearance.
 */
static void naive_group(const struct analysis *an, size_t g, uint64_t *n, uint64_t *stretches, int *gpu,
			size_t *ngpus)
{
	bool seen[TL_MAX_GPUS + 1] = { false };
	const struct finding *f = &an->finds[g];

	*n = *stretches = 0;
	*ngpus = 0;
	for (size_t k = g; k < an->nfinds; k++) {
		const struct finding *o = &an->finds[k];
		if (o->severity != f->severity || strcmp(o->kind, f->kind))
			continue;
		++*n;
		*stretches += o->nstretch;
		if (!seen[o->gpu + 1]) {
			seen[o->gpu + 1] = true;
			if (*ngpus < REPORT_GROUP_GPUS)
				gpu[*ngpus] = o->gpu;
			++*ngpus;
		}
	}
}

/* Check rep's groups against the oracle: each (severity, kind) after the full ones once, in order. */
static void check_groups(const struct report *rep)
{
	const struct analysis *an = rep->an;
	size_t k = 0;

	for (size_t g = rep->nfind_full; g < an->nfinds; g++) {
		const struct finding *f = &an->finds[g];
		bool before = false;
		uint64_t n, st;
		int gpu[REPORT_GROUP_GPUS];
		size_t ng;
		for (size_t j = rep->nfind_full; j < g && !before; j++)
			before = an->finds[j].severity == f->severity && !strcmp(an->finds[j].kind, f->kind);
		if (before)
			continue;
		assert_true(k < rep->nfind_groups);
		assert_int_equal(rep->find_groups[k].first, g);
		naive_group(an, g, &n, &st, gpu, &ng);
		assert_int_equal(rep->finding_rest[g].n, n);
		assert_int_equal(rep->finding_rest[g].stretches, st);
		assert_int_equal(rep->find_groups[k].ngpus, ng);
		for (size_t i = 0; i < ng && i < REPORT_GROUP_GPUS; i++)
			assert_int_equal(rep->find_groups[k].gpu[i], gpu[i]);
		k++;
	}
	assert_int_equal(k, rep->nfind_groups);
}

/*
 * The findings past the screen's full ones, grouped once in report_compute
 * (issue 30's follow-up: text.c used to scan the findings again for each
 * group).  10 GPUs; 8 warnings fill the screen (8 x 3 lines = 24); then
 * held_idle summaries on GPUs 9, 0..9 and the host, an xid_error on GPU 3
 * and held_idle as a warning (another group).  The held_idle group has 12
 * findings, 11 GPUs of which the text names 8 "and 3 more GPUs".
 */
static void test_find_groups(void **state)
{
	struct analysis *an = start();
	struct ingest_result res = { 0 };
	struct report rep;
	char *text;
	const int64_t T = INT64_C(1800000000) * NS_PER_S;

	(void)state;
	gpus(an, 10);
	analysis_finish(an);
	an->nfinds = 0;	/* only the findings made here */
	for (int i = 0; i < 8; i++)
		det_finding(an, FK_MEMORY_LEAK, i, T, T + NS_PER_S, SEV_WARNING, 1);
	for (int i = -1; i < 11; i++) {
		struct finding *f = det_finding(an, FK_HELD_IDLE, i < 0 ? 9 : i == 10 ? -1 : i, T + i * NS_PER_S,
						T + (i + 2) * NS_PER_S, SEV_INFO, 10);
		f->nstretch = 2;
		f->total_s = 10;
		if (i == 4)
			det_finding(an, FK_XID_ERROR, 3, T, T + NS_PER_S, SEV_INFO, 79);
	}
	det_finding(an, FK_HELD_IDLE, 2, T, T + NS_PER_S, SEV_WARNING, 1)->nstretch = 1;
	compute(&rep, an, &res);
	assert_int_equal(rep.nfind_full, 8);
	assert_int_equal(rep.nfind_groups, 3);
	check_groups(&rep);
	assert_int_equal(rep.find_groups[0].ngpus, 11);
	assert_int_equal(rep.find_groups[0].gpu[0], 9);
	assert_int_equal(rep.find_groups[0].gpu[1], 0);
	assert_int_equal(rep.finding_rest[rep.find_groups[0].first].n, 12);
	assert_int_equal(rep.finding_rest[rep.find_groups[0].first].stretches, 24);
	text = render("text", &rep);
	if (!strstr(text, "  [info] held_idle  GPU 9") || !strstr(text, "and 3 more GPUs: 24 stretches, 2m00s in all"))
		fail_msg("the text's held_idle group:\n%s", text);
	if (!strstr(text, "  [warning] held_idle  GPU 2") || !strstr(text, "  [info] xid_error  GPU 3"))
		fail_msg("the text's other groups:\n%s", text);
	free(text);
	report_release(&rep);
	analysis_release(an);
	free(an);
}

/*
 * 5000 findings of 3 severities, 30 kinds (some known only by name, as a
 * store gives them back) on 256 GPUs and the host, in a scrambled order:
 * the groups, their sums and GPUs are the nested scan's, found in one pass.
 */
static void test_find_groups_many(void **state)
{
	struct analysis *an = start();
	struct analysis_cfg cfg;
	struct ingest_result res = { 0 };
	struct report rep;
	uint32_t x = 12345;
	static char names[30][24];

	(void)state;
	analysis_release(an);
	analysis_cfg_default(&cfg);
	cfg.max_findings = 100000;
	analysis_init(an, &cfg);
	gpus(an, TL_MAX_GPUS);
	analysis_finish(an);
	an->nfinds = 0;	/* only the findings made here */
	for (int k = 0; k < 30; k++)
		snprintf(names[k], sizeof(names[k]), "kind_%02d", k);
	for (int i = 0; i < 5000; i++) {
		struct finding *f;
		int k, gpu, sev;
		x = x * 1103515245u + 12345u;
		k = (int)(x >> 8) % 30;
		gpu = (int)((x >> 16) % (TL_MAX_GPUS + 1)) - 1;
		sev = (int)(x >> 4) % 3;
		f = det_finding(an, FK_HELD_IDLE, gpu, INT64_C(1800000000) * NS_PER_S + i,
				INT64_C(1800000000) * NS_PER_S + i + 1, sev == 0 ? SEV_INFO : sev == 1 ? SEV_WARNING : SEV_CRITICAL,
				1);
		assert_non_null(f);
		f->kind = names[k];
		f->fk = FK_NONE;
		f->nstretch = (uint64_t)(x >> 20) % 4;
	}
	assert_int_equal(an->nfinds, 5000);
	compute(&rep, an, &res);
	assert_true(rep.nfind_full > 0 && rep.nfind_full <= 8);	/* 24 lines: 3 a finding, 4 with stretches */
	assert_int_equal(rep.nfind_groups, 90);
	check_groups(&rep);
	report_release(&rep);
	analysis_release(an);
	free(an);
}

/* The kept bad lines grouped by file (the same pointer) and reason, in the order they first come. */
static void test_bad_groups(void **state)
{
	struct analysis *an = start();
	struct ingest_result res = { 0 };
	struct report rep;
	static const char a[] = "a.csv", b[] = "b.csv";
	struct bad_line bad[6] = {
		{ a, 3, 1, "expected 8 fields, got 7" }, { b, 4, 1, "expected 8 fields, got 7" },
		{ a, 9, 5, "expected 8 fields, got 7" }, { a, 10, 2, "bad number 'x'" },
		{ b, 11, 1, "expected 8 fields, got 7" }, { a, 12, 1, "expected 8 fields, got 7" },
	};
	char *text;

	(void)state;
	samples(an, 10, 50, 100);
	analysis_finish(an);
	memset(&rep, 0, sizeof(rep));
	rep.inputs = &res;
	rep.an = an;
	rep.tz = "UTC";
	rep.bad = bad;
	rep.nbad = 6;
	rep.bad_total = 7;
	cost_params_init(&rep.params);
	report_compute(&rep);
	assert_int_equal(rep.nbad_groups, 3);
	assert_int_equal(rep.bad_groups[0].first, 0);
	assert_int_equal(rep.bad_groups[0].n, 3);
	assert_int_equal(rep.bad_groups[1].first, 1);
	assert_int_equal(rep.bad_groups[1].n, 2);
	assert_int_equal(rep.bad_groups[2].first, 3);
	assert_int_equal(rep.bad_groups[2].n, 1);
	text = render("text", &rep);
	if (!strstr(text, "  a.csv:3:1: expected 8 fields, got 7 (3 lines, the first at line 3)\n"
			  "  b.csv:4:1: expected 8 fields, got 7 (2 lines, the first at line 4)\n"
			  "  a.csv:10:2: bad number 'x'\n"
			  "  ... 1 more lines not kept (the first 6 are)\n"))
		fail_msg("the text's skipped lines:\n%s", text);
	free(text);
	report_release(&rep);
	analysis_release(an);
	free(an);
}

/*
 * The events' groups in one pass: by GPU (host last), kind, code and
 * placed or not, each GPU's groups in the order they first come, whatever
 * order the GPUs come in.  Listed: Xid 79 GPU 1, host driver_load, Xid 13
 * GPU 0, Xid 79 GPU 1 (earlier), Xid 13 GPU 1, Xid 79 GPU 0, host
 * driver_load, Xid 13 GPU 0, Xid 79 GPU 1 unplaced.  Groups: GPU 0 Xid 13
 * (2), Xid 79; GPU 1 Xid 79 (2, from the second), Xid 13, Xid 79
 * unplaced; host driver_load (2).
 */
static void test_event_groups_order(void **state)
{
	struct analysis *an = start();
	struct ingest_result res = { 0 };
	struct report rep;
	static const struct { int gpu, ev, code, t, unplaced; } in[] = {
		{ 1, EV_XID, 79, 50, 0 }, { -1, EV_DRIVER_LOAD, -1, 10, 0 }, { 0, EV_XID, 13, 30, 0 },
		{ 1, EV_XID, 79, 20, 0 }, { 1, EV_XID, 13, 40, 0 }, { 0, EV_XID, 79, 45, 0 },
		{ -1, EV_DRIVER_LOAD, -1, 60, 0 }, { 0, EV_XID, 13, 70, 0 }, { 1, EV_XID, 79, 0, 1 },
	};
	static const struct { size_t ev, n; int64_t t0, t1; } want[] = {
		{ 2, 2, 30, 70 }, { 5, 1, 45, 45 }, { 3, 2, 20, 50 }, { 4, 1, 40, 40 }, { 8, 1, 0, 0 }, { 1, 2, 10, 60 },
	};
	const size_t n = sizeof(in) / sizeof(in[0]);

	(void)state;
	gpus(an, 2);
	analysis_finish(an);
	free(an->evs);
	an->evs = xcalloc(n, sizeof(*an->evs));
	an->nevs = an->evs_alloc = n;
	for (size_t i = 0; i < n; i++) {
		an->evs[i].gpu = in[i].gpu;
		an->evs[i].ev = (uint8_t)in[i].ev;
		an->evs[i].code = in[i].code;
		an->evs[i].t_ns = in[i].t;
		an->evs[i].unplaced = in[i].unplaced;
		an->evs[i].count = 1;
	}
	compute(&rep, an, &res);
	assert_int_equal(rep.nevgroups, sizeof(want) / sizeof(want[0]));
	for (size_t k = 0; k < rep.nevgroups; k++) {
		assert_int_equal(rep.evgroups[k].ev, want[k].ev);
		assert_int_equal(rep.evgroups[k].n, want[k].n);
		assert_int_equal(rep.evgroups[k].t_min_ns, want[k].t0);
		assert_int_equal(rep.evgroups[k].t_max_ns, want[k].t1);
	}
	report_release(&rep);
	analysis_release(an);
	free(an);
}

/* Every row of the table renders, and is found by its name; no other name is. */
static void test_writer_table(void **state)
{
	struct analysis *an = start();
	struct ingest_result res = { 0 };
	struct report rep;

	(void)state;
	analysis_finish(an);
	compute(&rep, an, &res);
	assert_true(report_nwriters >= 4);
	assert_string_equal(report_writers[0].name, "text");
	for (size_t i = 0; i < report_nwriters; i++) {
		char *out;
		assert_ptr_equal(report_writer_find(report_writers[i].name), &report_writers[i]);
		out = render(report_writers[i].name, &rep);
		if (!out[0])
			fail_msg("writer %s wrote nothing", report_writers[i].name);
		free(out);
	}
	assert_null(report_writer_find("yaml"));
	assert_null(report_writer_find(""));
	report_release(&rep);
	analysis_release(an);
	free(an);
}

/* The other commands' tables: text first, each row found by its name, no other name. */
#define CHECK_TABLE(rows, n, find)                                              \
	do {                                                                    \
		assert_string_equal(rows[0].name, "text");                      \
		assert_true(rows[0].for_terminal);                              \
		for (size_t i_ = 0; i_ < (n); i_++) {                           \
			assert_non_null(rows[i_].render);                       \
			assert_ptr_equal(find(rows[i_].name), &rows[i_]);       \
		}                                                               \
		assert_null(find("yaml"));                                      \
	} while (0)

static void test_other_tables(void **state)
{
	(void)state;
	CHECK_TABLE(cost_writers, cost_nwriters, cost_writer_find);
	CHECK_TABLE(trend_writers, trend_nwriters, trend_writer_find);
	CHECK_TABLE(scale_writers, scale_nwriters, scale_writer_find);
	CHECK_TABLE(trace_writers, trace_nwriters, trace_writer_find);
	CHECK_TABLE(alert_writers, alert_nwriters, alert_writer_find);
	assert_false(cost_writer_find("json")->for_terminal);
	assert_non_null(cost_writer_find("explain"));
	assert_non_null(trend_writer_find("csv"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind_tally_has_every_kind),
		cmocka_unit_test(test_writer_table),
		cmocka_unit_test(test_event_ranges),
		cmocka_unit_test(test_other_tables),
		cmocka_unit_test(test_find_groups),
		cmocka_unit_test(test_find_groups_many),
		cmocka_unit_test(test_bad_groups),
		cmocka_unit_test(test_event_groups_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
