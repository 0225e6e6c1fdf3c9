/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the fleet view (report/fleet.c): each pod's and
 * namespace's state seconds are those of its spans over its GPU's state
 * segments, found by time, to the last bit of a scan of every segment.
 */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "formats/prom_remote.h"
#include "report/report.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

#define T0_S INT64_C(1800000000)
#define AT(s) ((T0_S + (int64_t)(s)) * NS_PER_S)

static char uuids[] = "n1/gpu0\0n1/gpu1\0n2/gpu0";
static const uint32_t uuid_at[3] = { 0, 8, 16 };

static void sample(struct analysis *an, int64_t s, int gpu, double util)
{
	struct batch b = { 0 };
	struct rec r;

	b.strs = uuids;
	b.strs_len = sizeof(uuids);
	memset(&r, 0, sizeof(r));
	r.kind = REC_SAMPLE;
	r.time_kind = TK_ABS;
	r.t_ns = AT(s);
	r.gpu_index = gpu;
	r.uuid = uuid_at[gpu];
	r.name = STR_NONE;
	r.present = 1u << M_UTIL_GPU | 1u << M_POWER | 1u << M_MEM_USED;
	r.v[M_UTIL_GPU] = util;
	r.v[M_POWER] = util > 0 ? 400 : 90;
	r.v[M_MEM_USED] = util > 0 || s % 7000 < 3000 ? 20000 : 0;	/* held, or not */
	analysis_add(an, &r, &b, "fleet.csv");
}

struct ref_row {
	char name[200];
	double st[ST__COUNT];
};

/* The reference: a span's states by a scan of every segment. */
static void by_scan(const struct analysis *an, int gi, int64_t t0, int64_t t1, double *st)
{
	for (size_t i = 0; i < an->nsegs; i++) {
		const struct segment *s = &an->segs[i];
		int64_t a = s->t0_ns > t0 ? s->t0_ns : t0, b = s->t1_ns < t1 ? s->t1_ns : t1;
		if (s->gpu == gi && b > a)
			st[s->state] += (double)(b - a) / 1e9;
	}
}

static struct ref_row *ref_find(struct ref_row *rows, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(rows[i].name, name))
			return &rows[i];
	memset(&rows[*n], 0, sizeof(rows[*n]));
	snprintf(rows[*n].name, sizeof(rows[*n].name), "%s", name);
	return &rows[(*n)++];
}

static void check_rows(const struct fleet_row *rows, size_t n, const struct ref_row *ref, size_t nref)
{
	assert_int_equal(n, nref);
	for (size_t i = 0; i < nref; i++) {
		const struct fleet_row *row = NULL;
		for (size_t k = 0; k < n; k++)
			if (!strcmp(rows[k].name, ref[i].name))
				row = &rows[k];
		if (!row)
			fail_msg("no row %s", ref[i].name);
		for (int s = 0; s < ST__COUNT; s++)
			if (row->state_s[s] != ref[i].st[s])
				fail_msg("%s state %d: %.17g, want %.17g", ref[i].name, s, row->state_s[s], ref[i].st[s]);
	}
}

/*
 * Three GPUs on two nodes for a day at 10 s, busy and idle by turns (many
 * segments); 2000 pod spans of 150 pods in 7 namespaces over them, some
 * past the data's ends.
 */
static void test_pods_by_time(void **state)
{
	enum { NSPANS = 2000 };
	struct analysis *an = xcalloc(1, sizeof(*an));
	struct ingest_result res = { 0 };
	struct prom_fleet f;
	struct report rep;
	struct ref_row *pods = xcalloc(NSPANS, sizeof(*pods)), *nss = xcalloc(NSPANS, sizeof(*nss));
	size_t npods = 0, nnss = 0;
	uint64_t rng = 0x853c49e6748fea9bULL;

	(void)state;
	analysis_init(an, NULL);
	for (int64_t s = 0; s < 86400; s += 10)
		for (int g = 0; g < 3; g++)
			sample(an, s, g, (s / 10 + g * 3) % 17 < 6 ? 0 : (double)((s / 10 + g) % 5) * 20);
	analysis_finish(an);
	assert_int_equal(an->tl.ngpus, 3);
	assert_true(an->nsegs > 1000);

	memset(&f, 0, sizeof(f));
	f.active = true;
	f.ngpus = 3;
	f.gpus = xcalloc(3, sizeof(*f.gpus));
	for (int g = 0; g < 3; g++) {
		snprintf(f.gpus[g].key, sizeof(f.gpus[g].key), "%s", uuids + uuid_at[g]);
		snprintf(f.gpus[g].node, sizeof(f.gpus[g].node), "%s", g < 2 ? "n1" : "n2");
		f.gpus[g].index = g < 2 ? g : 0;
		f.gpus[g].parent = -1;
		f.gpus[g].share = NAN;
	}
	f.npods = NSPANS;
	f.pods = xcalloc(NSPANS, sizeof(*f.pods));
	for (size_t i = 0; i < NSPANS; i++) {
		struct prom_pod_span *sp = &f.pods[i];
		int64_t a = (int64_t)(test_xorshift(&rng) % 90000) - 1800, len = (int64_t)(test_xorshift(&rng) % 7200) + 1;
		double st[ST__COUNT] = { 0 };
		char name[200];
		sp->gpu = (uint32_t)(test_xorshift(&rng) % 3);
		snprintf(sp->ns, sizeof(sp->ns), "ns%d", (int)(test_xorshift(&rng) % 7));
		snprintf(sp->pod, sizeof(sp->pod), "pod%d", (int)(test_xorshift(&rng) % 150));
		sp->t0_ns = AT(a);
		sp->t1_ns = AT(a + len);
		/* the reference, as report_fleet_compute() adds it up: spans in order */
		by_scan(an, (int)sp->gpu, sp->t0_ns, sp->t1_ns, st);
		snprintf(name, sizeof(name), "%s/%s", sp->ns, sp->pod);
		for (int s = 0; s < ST__COUNT; s++) {
			ref_find(pods, &npods, name)->st[s] += st[s];
			ref_find(nss, &nnss, sp->ns)->st[s] += st[s];
		}
	}

	memset(&rep, 0, sizeof(rep));
	rep.inputs = &res;
	rep.an = an;
	rep.tz = "UTC";
	rep.fleet = &f;
	cost_params_init(&rep.params);
	report_compute(&rep);
	assert_int_equal(rep.nnodes, 2);
	check_rows(rep.pods, rep.npods, pods, npods);
	check_rows(rep.nss, rep.nnss, nss, nnss);
	assert_int_equal(nnss, 7);

	report_release(&rep);
	free(f.gpus);
	free(f.pods);
	free(pods);
	free(nss);
	analysis_release(an);
	free(an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pods_by_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
