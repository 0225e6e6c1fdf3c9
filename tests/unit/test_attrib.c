/* SPDX-License-Identifier: MIT */
/* Unit tests for the report's "who spent it" split (report/attrib.c), worked by hand. */
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/task_windows.h"
#include "report/report.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

#define T0_S INT64_C(1800000000)
#define MIN(m) ((T0_S + (int64_t)(m) * 60) * NS_PER_S)

static struct batch no_strs;
static const char src_a[] = "a.csv";

/* process names, users and jobs: offsets 0, 7, 14, 20, 24, 28, 32 */
static char strs[] = "python\0worker\0alice\0bob\0j11\0j22\0j33";
enum { S_PYTHON = 0, S_WORKER = 7, S_ALICE = 14, S_BOB = 20, S_J11 = 24, S_J22 = 28, S_J33 = 32 };

static void sample(struct analysis *an, int m, int gpu, double util, double watts)
{
	struct rec r;

	memset(&r, 0, sizeof(r));
	r.kind = REC_SAMPLE;
	r.time_kind = TK_ABS;
	r.t_ns = MIN(m);
	r.gpu_index = gpu;
	r.uuid = r.name = STR_NONE;
	r.present = 1u << M_UTIL_GPU | 1u << M_POWER;
	r.v[M_UTIL_GPU] = util;
	r.v[M_POWER] = watts;
	analysis_add(an, &r, &no_strs, src_a);
}

/* Process pid on gpu at minute m: its name, user and job; sm % when sm >= 0. */
static void proc(struct analysis *an, int m, int gpu, int64_t pid, uint32_t name, uint32_t user, uint32_t job,
		 double sm)
{
	struct batch b = { 0 };
	struct rec r;

	b.strs = strs;
	b.strs_len = sizeof(strs);
	memset(&r, 0, sizeof(r));
	r.kind = REC_PROC;
	r.time_kind = TK_ABS;
	r.t_ns = MIN(m);
	r.gpu_index = gpu;
	r.uuid = STR_NONE;
	r.name = name;
	r.pid = pid;
	r.present = PF_WHO | (sm >= 0 ? PF_SM : 0);
	r.v[0] = sm >= 0 ? sm : 0;
	r.pw.user = user;
	r.pw.job = job;
	r.pw.task = STR_NONE;
	r.pw.ctr = STR_NONE;
	analysis_add(an, &r, &b, src_a);
}

static const struct attrib_row *row_of(const struct report *r, int d, const char *key)
{
	for (size_t i = 0; i < r->attrib.nrows[d]; i++)
		if (!strcmp(r->attrib.rows[d][i].key, key))
			return &r->attrib.rows[d][i];
	fail_msg("no %s row '%s'", attrib_by_name[d], key);
	return NULL;
}

/* Every dimension's rows add up to the window's totals. */
static void sums_match(const struct report *r)
{
	for (int d = 0; d < AB__COUNT; d++) {
		double held = 0, useful = 0, energy = 0, cost = 0;
		assert_true(r->attrib.nrows[d] >= 1);
		assert_true(r->attrib.rows[d][r->attrib.nrows[d] - 1].none);
		for (size_t i = 0; i < r->attrib.nrows[d]; i++) {
			held += r->attrib.rows[d][i].held_s;
			useful += r->attrib.rows[d][i].useful_s;
			energy += r->attrib.rows[d][i].energy_j;
			cost += r->attrib.rows[d][i].cost;
		}
		assert_near(held, r->covered_h * 3600, 1e-6);
		assert_near(useful, r->busy_h * 3600, 1e-6);
		assert_near(energy, r->energy_j, 1e-3);
		assert_near(cost, r->win.local_cost, 0.005);	/* to the cent */
		assert_near(cost, r->win.local_cost, 1e-9);
	}
}

/*
 * The Processes tables' owned cost of each process is its who-spent-it row
 * (one split of the owned cost, not a second one by busy time), and those
 * rows plus "no process seen" add up to the window's owned cost.
 */
static void procs_match(const struct report *r)
{
	const struct analysis *an = r->an;
	double sum = 0;
	size_t n = 0;

	assert_non_null(r->proc_local_cost);
	for (size_t i = 0; i < an->nprocs; i++) {
		const struct proc_stat *p = &an->procs[i];
		char key[160];
		if (p->pid == PID_TASK)
			continue;
		snprintf(key, sizeof(key), "GPU %d pid %lld %s", p->gpu, (long long)p->pid, p->name);
		assert_near(r->proc_local_cost[i], row_of(r, AB_PROC, key)->cost, 1e-12);
		sum += r->proc_local_cost[i];
		n++;
	}
	assert_int_equal(r->attrib.nrows[AB_PROC], n + 1);
	sum += r->attrib.rows[AB_PROC][n].cost;	/* no process seen */
	assert_near(sum, r->win.local_cost, 1e-9);
}

/*
 * Two GPUs sampled each minute for an hour.
 *  GPU 0: minutes 0-40 at util 100 and 300 W, pids 100 (python, alice, job
 *  j11) and 200 (worker, bob, j22), pmon sm 75 % and 25 %; minutes 40-60 at
 *  util 0 and 50 W with no process (the stretch no process held).
 *  GPU 1: minutes 0-60 at util 100 and 200 W, pid 300 (python, alice, j33),
 *  no sm %: it is alone, so all of it.
 * Energy: GPU 0 300 W x 2400 s = 720 kJ, then 50 W x 1200 s = 60 kJ; GPU 1
 * 200 W x 3600 s = 720 kJ; 1500 kJ in all.  Prices: other_fixed_per_year
 * 31536 is 3.6 an hour per GPU; electricity 0.36 a kWh (pue 1); 0.5 a job,
 * three jobs (one per process).  Window: 2 GPU-hours x 3.6 = 7.2, plus
 * 1500 kJ = 0.41667 kWh x 0.36 = 0.15, plus 3 x 0.5: 8.85.
 * With sm % (75:25 on GPU 0):
 *   pid 100: 30 min held and useful, 540 kJ; pid 200: 10 min, 180 kJ
 *   alice: 90 min (1.5 h x 3.6 = 5.4) + 1260 kJ (0.35 kWh = 0.126) + 2 jobs (1.0) = 6.526
 *   bob:   10 min (0.6) + 180 kJ (0.05 kWh = 0.018) + 1 job (0.5) = 1.118
 *   no process seen: 20 min (1.2) + 60 kJ (0.0166 kWh = 0.006) = 1.206
 *   j11: 30 min (1.8) + 540 kJ (0.054) + 0.5 = 2.354; j33: 3.6 + 0.072 + 0.5 = 4.172
 * Without sm % on GPU 0 (split evenly, 20 min each):
 *   alice: 80 min (4.8) + 1080 kJ (0.3 kWh = 0.108) + 1.0 = 5.908
 *   bob:   20 min (1.2) + 360 kJ (0.1 kWh = 0.036) + 0.5 = 1.736
 *   no process seen: 1.206, as before.
 */
static void test_who_spent_it(void **state)
{
	(void)state;
	for (int by_sm = 1; by_sm >= 0; by_sm--) {
		struct analysis *an = xcalloc(1, sizeof(*an));
		struct ingest_result res = { 0 };
		struct report rep;
		const struct attrib_row *x;

		analysis_init(an, NULL);
		for (int m = 0; m < 60; m++) {	/* the last holds its minute */
			sample(an, m, 0, m < 40 ? 100 : 0, m < 40 ? 300 : 50);
			sample(an, m, 1, 100, 200);
			if (m < 40) {
				proc(an, m, 0, 100, S_PYTHON, S_ALICE, S_J11, by_sm ? 75 : -1);
				proc(an, m, 0, 200, S_WORKER, S_BOB, S_J22, by_sm ? 25 : -1);
			}
			proc(an, m, 1, 300, S_PYTHON, S_ALICE, S_J33, -1);
		}
		analysis_finish(an);

		memset(&rep, 0, sizeof(rep));
		rep.inputs = &res;
		rep.an = an;
		rep.tz = "UTC";
		cost_params_init(&rep.params);
		rep.params.hardware_price = 0;
		rep.params.maintenance_hours_per_year = 0;
		rep.params.cooling_w = 0;
		rep.params.hours_on_per_day = 24;
		rep.params.other_fixed_per_year = 31536;
		rep.params.electricity_price = 0.36;
		rep.params.pue = 1;
		rep.params.local_per_job_fixed = 0.5;
		report_compute(&rep);

		assert_near(rep.covered_h, 2, 1e-9);
		assert_near(rep.busy_h, 100.0 / 60, 1e-9);
		assert_near(rep.energy_j, 1500e3, 1e-3);
		assert_int_equal(rep.njobs, 3);
		assert_near(rep.win.local_cost, 8.85, 1e-9);
		sums_match(&rep);
		assert_true(rep.attrib.known[AB_USER]);
		assert_true(rep.attrib.known[AB_JOB]);
		assert_false(rep.attrib.known[AB_CTR]);
		assert_false(rep.attrib.known[AB_TASK]);

		assert_int_equal(rep.attrib.nrows[AB_USER], 3);
		x = &rep.attrib.rows[AB_USER][0];	/* the dearest first */
		assert_string_equal(x->key, "alice");
		assert_int_equal(x->nprocs, 2);
		assert_near(x->held_s, by_sm ? 5400 : 4800, 1e-6);
		assert_near(x->useful_s, by_sm ? 5400 : 4800, 1e-6);
		assert_near(x->energy_j, by_sm ? 1260e3 : 1080e3, 1e-3);
		assert_near(x->cost, by_sm ? 6.526 : 5.908, 1e-9);
		x = row_of(&rep, AB_USER, "bob");
		assert_near(x->held_s, by_sm ? 600 : 1200, 1e-6);
		assert_near(x->energy_j, by_sm ? 180e3 : 360e3, 1e-3);
		assert_near(x->cost, by_sm ? 1.118 : 1.736, 1e-9);
		x = &rep.attrib.rows[AB_USER][2];
		assert_true(x->none);
		assert_string_equal(x->key, "no process seen");
		assert_near(x->held_s, 1200, 1e-6);
		assert_near(x->useful_s, 0, 1e-6);
		assert_near(x->energy_j, 60e3, 1e-3);
		assert_near(x->cost, 1.206, 1e-9);

		assert_int_equal(rep.attrib.nrows[AB_JOB], 4);
		assert_near(row_of(&rep, AB_JOB, "j33")->cost, 4.172, 1e-9);
		assert_near(row_of(&rep, AB_JOB, "j11")->cost, by_sm ? 2.354 : 1.736, 1e-9);
		assert_near(row_of(&rep, AB_JOB, "j22")->cost, by_sm ? 1.118 : 1.736, 1e-9);
		/* the processes, each on its GPU */
		assert_int_equal(rep.attrib.nrows[AB_PROC], 4);
		assert_near(row_of(&rep, AB_PROC, "GPU 1 pid 300 python")->held_s, 3600, 1e-6);
		assert_near(row_of(&rep, AB_PROC, "GPU 0 pid 100 python")->held_s, by_sm ? 1800 : 1200, 1e-6);
		/* the Processes table's figures are these: pid 100 2.354 with
		 * sm % (its 30 of the 100 busy minutes would have made it 2.655) */
		procs_match(&rep);
		assert_near(rep.proc_local_cost[0], by_sm ? 2.354 : 1.736, 1e-9);
		/* nobody said a container: one "(none)" row and the rest */
		assert_int_equal(rep.attrib.nrows[AB_CTR], 2);
		assert_near(row_of(&rep, AB_CTR, "(none)")->cost, by_sm ? 6.526 + 1.118 : 5.908 + 1.736, 1e-9);

		report_release(&rep);
		analysis_release(an);
		free(an);
	}
}

/* Batch job id (offset into jstrs) of a Slurm allocation from minute m0 to m1. */
static char jstrs[] = "J1\0J2\0J3\0alice\0bob\0carol\0chem";
enum { S_JOB1 = 0, S_JOB2 = 3, S_JOB3 = 6, S_JALICE = 9, S_JBOB = 15, S_JCAROL = 19, S_JCHEM = 25 };
/* the Account of the jobs job_mask() adds next (STR_NONE: sacct said none) */
static uint32_t job_account = STR_NONE;

static void job_mask(struct analysis *an, int m0, int m1, uint32_t id, uint32_t user, int gpus, int nodes,
		     uint64_t mask);

static void job(struct analysis *an, int m0, int m1, uint32_t id, uint32_t user, int gpus, int nodes)
{
	job_mask(an, m0, m1, id, user, gpus, nodes, 0);
}

static void job_mask(struct analysis *an, int m0, int m1, uint32_t id, uint32_t user, int gpus, int nodes,
		     uint64_t mask)
{
	struct batch b = { 0 };
	struct rec r;

	b.strs = jstrs;
	b.strs_len = sizeof(jstrs);
	memset(&r, 0, sizeof(r));
	r.kind = REC_JOB;
	r.time_kind = TK_ABS;
	r.t_ns = MIN(m0);
	r.gpu_index = -1;
	r.uuid = r.name = STR_NONE;
	r.job.t1_ns = MIN(m1);
	r.job.id = id;
	r.job.user = user;
	r.job.account = job_account;
	r.job.nodes = STR_NONE;
	r.job.ngpus = gpus;
	r.job.nnodes = nodes;
	r.job.gpuutil_pct = r.job.gpumem_mib = NAN;
	r.job.gpu_mask = mask;
	r.job.energy_j = NAN;
	analysis_add(an, &r, &b, src_a);
}

/*
 * The jobs of test_slurm_jobs by Slurm account: J1 and J2 are chem's, J3
 * names none.  chem = J1 + J2: 26.667 + 66.667 = 93.333 GPU-min (5600 s),
 * 1.616 + 4.04 = 5.656; "(no account)" = J3: 400 s, 0.404; no job seen
 * 1200 s, 1.212; 5.656 + 0.404 + 1.212 = 7.272, the window's cost.
 */
static void test_slurm_accounts(void **state)
{
	struct analysis *an = xcalloc(1, sizeof(*an));
	struct ingest_result res = { 0 };
	struct report rep;
	const struct attrib_row *x;
	double held = 0, cost = 0;

	(void)state;
	analysis_init(an, NULL);
	for (int m = 0; m < 60; m++) {
		job_account = S_JCHEM;
		if (m == 0)
			job(an, 0, 30, S_JOB1, S_JALICE, 1, 1);
		if (m == 20)
			job(an, 20, 60, S_JOB2, S_JBOB, 2, 1);
		job_account = STR_NONE;
		if (m == 40)
			job(an, 40, 50, S_JOB3, S_JCAROL, 2, 2);
		sample(an, m, 0, 100, 100);
		sample(an, m, 1, 100, 100);
	}
	analysis_finish(an);
	memset(&rep, 0, sizeof(rep));
	rep.inputs = &res;
	rep.an = an;
	rep.tz = "UTC";
	cost_params_init(&rep.params);
	rep.params.hardware_price = 0;
	rep.params.maintenance_hours_per_year = 0;
	rep.params.cooling_w = 0;
	rep.params.hours_on_per_day = 24;
	rep.params.other_fixed_per_year = 31536;
	rep.params.electricity_price = 0.36;
	rep.params.pue = 1;
	rep.params.local_per_job_fixed = 0;
	report_compute(&rep);
	assert_near(rep.win.local_cost, 7.272, 1e-9);
	sums_match(&rep);
	assert_true(rep.attrib.from_jobs[AB_ACCOUNT]);
	assert_true(rep.attrib.known[AB_ACCOUNT]);
	assert_true(rep.attrib.show[AB_ACCOUNT]);
	assert_int_equal(rep.attrib.nrows[AB_ACCOUNT], 3);
	x = &rep.attrib.rows[AB_ACCOUNT][0];
	assert_string_equal(x->key, "chem");
	assert_int_equal(x->nprocs, 2);
	assert_near(x->held_s, 5600, 1e-6);
	assert_near(x->energy_j, 560e3, 1e-3);
	assert_near(x->cost, 5.656, 1e-9);
	x = row_of(&rep, AB_ACCOUNT, "(no account)");
	assert_near(x->held_s, 400, 1e-6);
	assert_near(x->cost, 0.404, 1e-9);
	x = &rep.attrib.rows[AB_ACCOUNT][2];
	assert_true(x->none);
	assert_string_equal(x->key, "no job seen");
	assert_near(x->held_s, 1200, 1e-6);
	assert_near(x->cost, 1.212, 1e-9);
	for (size_t i = 0; i < rep.attrib.nrows[AB_ACCOUNT]; i++) {
		held += rep.attrib.rows[AB_ACCOUNT][i].held_s;
		cost += rep.attrib.rows[AB_ACCOUNT][i].cost;
	}
	assert_near(held, 7200, 1e-6);
	assert_near(cost, 7.272, 1e-9);
	assert_near(rep.attrib.total[AB_ACCOUNT].cost, 7.272, 1e-9);
	report_release(&rep);
	analysis_release(an);
	free(an);
}

/*
 * Slurm jobs on a node of two GPUs, both at util 100 and 100 W for an hour
 * (6000 J a GPU-minute; 0.06 a GPU-minute fixed, 1e-7 a J of electricity).
 * J1 (alice) 1 GPU minutes 0-30, J2 (bob) 2 GPUs 20-60, J3 (carol) 2 GPUs
 * on 2 nodes (1 here) 40-50.  sacct names no GPU index: each job takes its
 * GPUs over the node's 2 of every GPU, over the claims when they exceed 2.
 *   0-20:  J1 1/2 of each GPU: 20 x 1 = 20 GPU-min; nobody holds the rest (20)
 *   20-30: J1 + J2 claim 3: J1 1/3, J2 2/3 of each: J1 6.667, J2 13.333
 *   30-40: J2 all: 20;  40-50: J2 + J3 claim 3: J2 13.333, J3 6.667;  50-60: J2 20
 * J1 26.667 GPU-min: 1.6 + 160 kJ (0.016) = 1.616; J2 66.667: 4.0 + 0.04 = 4.04;
 * J3 6.667: 0.4 + 0.004 = 0.404; no job seen 20: 1.2 + 0.012 = 1.212; total 7.272.
 */
static void test_slurm_jobs(void **state)
{
	struct analysis *an = xcalloc(1, sizeof(*an));
	struct ingest_result res = { 0 };
	struct report rep;
	const struct attrib_row *x;

	(void)state;
	analysis_init(an, NULL);
	for (int m = 0; m < 60; m++) {
		if (m == 0)
			job(an, 0, 30, S_JOB1, S_JALICE, 1, 1);
		if (m == 20)
			job(an, 20, 60, S_JOB2, S_JBOB, 2, 1);
		if (m == 40)
			job(an, 40, 50, S_JOB3, S_JCAROL, 2, 2);
		sample(an, m, 0, 100, 100);
		sample(an, m, 1, 100, 100);
	}
	analysis_finish(an);
	assert_int_equal(an->njobs, 3);
	memset(&rep, 0, sizeof(rep));
	rep.inputs = &res;
	rep.an = an;
	rep.tz = "UTC";
	cost_params_init(&rep.params);
	rep.params.hardware_price = 0;
	rep.params.maintenance_hours_per_year = 0;
	rep.params.cooling_w = 0;
	rep.params.hours_on_per_day = 24;
	rep.params.other_fixed_per_year = 31536;
	rep.params.electricity_price = 0.36;
	rep.params.pue = 1;
	rep.params.local_per_job_fixed = 0;
	report_compute(&rep);
	assert_near(rep.win.local_cost, 7.272, 1e-9);
	sums_match(&rep);
	assert_true(rep.attrib.from_jobs[AB_JOB]);
	assert_true(rep.attrib.from_jobs[AB_USER]);
	assert_false(rep.attrib.from_jobs[AB_PROC]);
	assert_int_equal(rep.attrib.nrows[AB_JOB], 4);
	x = row_of(&rep, AB_JOB, "J1");
	assert_near(x->held_s, 26.0 * 60 + 40, 1e-6);
	assert_near(x->useful_s, 26.0 * 60 + 40, 1e-6);
	assert_near(x->energy_j, 160e3, 1e-3);
	assert_near(x->cost, 1.616, 1e-9);
	x = row_of(&rep, AB_JOB, "J2");
	assert_near(x->held_s, 66.0 * 60 + 40, 1e-6);
	assert_near(x->cost, 4.04, 1e-9);
	assert_near(row_of(&rep, AB_JOB, "J3")->cost, 0.404, 1e-9);
	x = &rep.attrib.rows[AB_JOB][3];
	assert_true(x->none);
	assert_string_equal(x->key, "no job seen");
	assert_near(x->held_s, 1200, 1e-6);
	assert_near(x->cost, 1.212, 1e-9);
	assert_near(row_of(&rep, AB_USER, "bob")->cost, 4.04, 1e-9);
	assert_near(row_of(&rep, AB_USER, "carol")->energy_j, 40e3, 1e-3);
	report_release(&rep);
	analysis_release(an);
	free(an);
}

/*
 * jobstats named J1's GPU (index 1); J2 (1 GPU) has no index.  Both run the
 * whole hour on the 2-GPU node, 100 W and util 100 each (0.0606 a GPU-minute).
 * GPU 0: J1 claims 0, J2 1/2: J2 30 GPU-min, nobody 30.  GPU 1: J1 claims 1,
 * J2 1/2, over their sum 1.5: J1 40, J2 20.  J1 40 x 0.0606 = 2.424, J2 50:
 * 3.03, no job seen 30: 1.818; 7.272 in all.
 */
static void test_slurm_job_indices(void **state)
{
	struct analysis *an = xcalloc(1, sizeof(*an));
	struct ingest_result res = { 0 };
	struct report rep;

	(void)state;
	analysis_init(an, NULL);
	for (int m = 0; m < 60; m++) {
		if (m == 0) {
			job_mask(an, 0, 60, S_JOB1, S_JALICE, 1, 1, 1u << 1);
			job(an, 0, 60, S_JOB2, S_JBOB, 1, 1);
		}
		sample(an, m, 0, 100, 100);
		sample(an, m, 1, 100, 100);
	}
	analysis_finish(an);
	memset(&rep, 0, sizeof(rep));
	rep.inputs = &res;
	rep.an = an;
	rep.tz = "UTC";
	cost_params_init(&rep.params);
	rep.params.hardware_price = 0;
	rep.params.maintenance_hours_per_year = 0;
	rep.params.cooling_w = 0;
	rep.params.hours_on_per_day = 24;
	rep.params.other_fixed_per_year = 31536;
	rep.params.electricity_price = 0.36;
	rep.params.pue = 1;
	rep.params.local_per_job_fixed = 0;
	report_compute(&rep);
	sums_match(&rep);
	assert_near(row_of(&rep, AB_JOB, "J1")->held_s, 40 * 60, 1e-6);
	assert_near(row_of(&rep, AB_JOB, "J1")->cost, 2.424, 1e-9);
	assert_near(row_of(&rep, AB_JOB, "J2")->held_s, 50 * 60, 1e-6);
	assert_near(row_of(&rep, AB_JOB, "J2")->cost, 3.03, 1e-9);
	assert_near(row_of(&rep, AB_JOB, "no job seen")->cost, 1.818, 1e-9);
	report_release(&rep);
	analysis_release(an);
	free(an);
}

/*
 * The same job from sacct (1 GPU, no index) and from dcgmi stats (GPU 0,
 * 5000 J measured) is one job, on GPU 0 only: 60 GPU-min x 0.0606 = 3.636,
 * no job seen 3.636 (GPU 1), and DCGM's 5000 J beside our 360 kJ.
 */
static void test_slurm_dcgm_same_job(void **state)
{
	struct analysis *an = xcalloc(1, sizeof(*an));
	struct ingest_result res = { 0 };
	struct report rep;
	const struct attrib_row *x;
	struct batch b = { 0 };
	struct rec r;

	(void)state;
	analysis_init(an, NULL);
	job(an, 0, 60, S_JOB1, S_JALICE, 1, 1);
	/* dcgmi stats: GPU 0's block of the same job */
	b.strs = jstrs;
	b.strs_len = sizeof(jstrs);
	memset(&r, 0, sizeof(r));
	r.kind = REC_JOB;
	r.time_kind = TK_ABS;
	r.t_ns = MIN(0);
	r.gpu_index = 0;
	r.uuid = r.name = STR_NONE;
	r.job.t1_ns = MIN(60);
	r.job.id = S_JOB1;
	r.job.user = r.job.account = r.job.nodes = STR_NONE;
	r.job.ngpus = r.job.nnodes = 1;
	r.job.gpuutil_pct = r.job.gpumem_mib = NAN;
	r.job.gpu_mask = 1;
	r.job.energy_j = 5000;
	analysis_add(an, &r, &b, src_a);
	for (int m = 0; m < 60; m++) {
		sample(an, m, 0, 100, 100);
		sample(an, m, 1, 100, 100);
	}
	analysis_finish(an);
	assert_int_equal(an->njobs, 1);
	memset(&rep, 0, sizeof(rep));
	rep.inputs = &res;
	rep.an = an;
	rep.tz = "UTC";
	cost_params_init(&rep.params);
	rep.params.hardware_price = 0;
	rep.params.maintenance_hours_per_year = 0;
	rep.params.cooling_w = 0;
	rep.params.hours_on_per_day = 24;
	rep.params.other_fixed_per_year = 31536;
	rep.params.electricity_price = 0.36;
	rep.params.pue = 1;
	rep.params.local_per_job_fixed = 0;
	report_compute(&rep);
	sums_match(&rep);
	assert_int_equal(rep.attrib.nrows[AB_JOB], 2);
	x = row_of(&rep, AB_JOB, "J1");
	assert_near(x->held_s, 3600, 1e-6);
	assert_near(x->energy_j, 360e3, 1e-3);
	assert_near(x->reported_energy_j, 5000, 1e-9);
	assert_near(x->cost, 3.636, 1e-9);
	assert_near(row_of(&rep, AB_USER, "alice")->cost, 3.636, 1e-9);
	assert_near(row_of(&rep, AB_JOB, "no job seen")->cost, 3.636, 1e-9);
	report_release(&rep);
	analysis_release(an);
	free(an);
}

/* Long names: the first two share their first 63 bytes (what a process keeps), the third does not. */
static char lstrs[] = "train_a_very_long_process_name_that_goes_past_what_is_kept_0123456789_first\0"
		      "train_a_very_long_process_name_that_goes_past_what_is_kept_0123456789_second\0"
		      "eval";
enum { S_LONG1 = 0, S_LONG2 = 76, S_EVAL = 153 };	/* 76 and 77 bytes with their NULs */

/*
 * Many short processes (a new pid every 3 minutes on each of two GPUs for
 * ten hours, one pid on both GPUs all along): each (GPU, pid, name as kept)
 * is one process, found again by every later observation of it, in the
 * order first seen, as a scan of the processes would find it; and the
 * split by process has a row for each and adds up.
 */
static void test_many_processes(void **state)
{
	struct analysis *an = xcalloc(1, sizeof(*an));
	struct ingest_result res = { 0 };
	struct report rep;
	struct { int gpu; int64_t pid; uint32_t name; uint64_t obs; } want[1000];
	size_t nwant = 0;
	struct batch b = { 0 };

	(void)state;
	b.strs = lstrs;
	b.strs_len = sizeof(lstrs);
	assert_int_equal(strncmp(lstrs + S_LONG1, lstrs + S_LONG2, 63), 0);
	assert_int_equal(lstrs[S_EVAL - 1], '\0');
	analysis_init(an, NULL);
	for (int m = 0; m < 600; m++)
		for (int g = 0; g < 2; g++) {
			int64_t pids[2] = { 7, 1000 + m / 3 };
			uint32_t names[2] = { m % 2 ? S_LONG2 : S_LONG1, (m / 3) % 4 == 3 ? S_EVAL : S_LONG1 };
			struct rec r;
			sample(an, m, g, 60, 200);
			for (int k = 0; k < 2; k++) {
				size_t i;
				memset(&r, 0, sizeof(r));
				r.kind = REC_PROC;
				r.time_kind = TK_ABS;
				r.t_ns = MIN(m);
				r.gpu_index = g;
				r.uuid = STR_NONE;
				r.name = names[k];
				r.pid = pids[k];
				r.present = PF_SM;
				r.v[0] = 30;
				r.pw.user = r.pw.job = r.pw.task = r.pw.ctr = STR_NONE;
				analysis_add(an, &r, &b, src_a);
				/* the reference: a scan, the name's first 63 bytes */
				for (i = 0; i < nwant; i++)
					if (want[i].gpu == g && want[i].pid == pids[k] &&
					    !strncmp(lstrs + want[i].name, lstrs + names[k], 63))
						break;
				if (i == nwant) {
					assert_true(nwant < 1000);
					want[nwant].gpu = g;
					want[nwant].pid = pids[k];
					want[nwant].name = names[k];
					want[nwant++].obs = 0;
				}
				want[i].obs++;
			}
		}
	analysis_finish(an);
	assert_int_equal(nwant, 2 + 2 * 200);
	assert_int_equal(an->nprocs, nwant);
	for (size_t i = 0; i < nwant; i++) {
		const struct proc_stat *p = &an->procs[i];
		assert_int_equal(p->gpu, want[i].gpu);
		assert_int_equal(p->pid, want[i].pid);
		assert_int_equal(strncmp(p->name, lstrs + want[i].name, 63), 0);
		assert_int_equal(strlen(p->name), want[i].name == S_EVAL ? 4 : 63);
		assert_int_equal(p->observations, want[i].obs);
	}
	assert_int_equal(an->procs[0].observations, 600);	/* pid 7 on GPU 0, under both long names */
	{
		/* the busiest name (scale's task): busy seconds summed per name, the first of the busiest */
		const char *best = NULL;
		double best_s = -1;
		for (size_t i = 0; i < an->nprocs; i++) {
			double sum = 0;
			bool seen = false;
			for (size_t j = 0; j < i; j++)
				seen |= !strcmp(an->procs[j].name, an->procs[i].name);
			if (seen)
				continue;
			for (size_t j = i; j < an->nprocs; j++)
				if (!strcmp(an->procs[j].name, an->procs[i].name))
					sum += an->procs[j].busy_s;
			if (sum > best_s) {
				best_s = sum;
				best = an->procs[i].name;
			}
		}
		assert_non_null(task_busiest(an));
		assert_ptr_equal(task_busiest(an), best);
		assert_true(best_s > 0);
	}

	memset(&rep, 0, sizeof(rep));
	rep.inputs = &res;
	rep.an = an;
	rep.tz = "UTC";
	cost_params_init(&rep.params);
	rep.params.other_fixed_per_year = 31536;
	rep.params.electricity_price = 0.36;
	report_compute(&rep);
	sums_match(&rep);
	procs_match(&rep);
	assert_int_equal(rep.attrib.nrows[AB_PROC], nwant + 1);
	/* by task: the names as kept, one row each, "(none)" for none */
	assert_int_equal(rep.attrib.nrows[AB_CTR], 2);
	report_release(&rep);
	analysis_release(an);
	free(an);
}

/* A REC_JOB of job id (an offset into strs): its GPU mask and reported energy (NAN: none). */
static void job_rec(struct analysis *an, char *idstrs, size_t len, uint32_t id, int m0, int m1, uint64_t mask,
		    double energy_j)
{
	struct batch b = { 0 };
	struct rec r;

	b.strs = idstrs;
	b.strs_len = len;
	memset(&r, 0, sizeof(r));
	r.kind = REC_JOB;
	r.time_kind = TK_ABS;
	r.t_ns = MIN(m0);
	r.gpu_index = -1;
	r.uuid = r.name = STR_NONE;
	r.job.t1_ns = MIN(m1);
	r.job.id = id;
	r.job.user = r.job.account = r.job.nodes = STR_NONE;
	r.job.ngpus = mask ? __builtin_popcountll(mask) : 1;
	r.job.nnodes = 1;
	r.job.gpuutil_pct = r.job.gpumem_mib = NAN;
	r.job.gpu_mask = mask;
	r.job.energy_j = energy_j;
	analysis_add(an, &r, &b, src_a);
}

/*
 * Many jobs, each told by sacct and then by a DCGM block per GPU further
 * on (the same job again: one job, its GPUs and energy together); an
 * empty id twice (one job); an id longer than what a job keeps twice (two
 * jobs: the kept id is cut, and the ids are compared whole).
 */
static void test_many_jobs(void **state)
{
	enum { NJ = 1500 };
	static char ids[NJ * 6 + 1 + 64];
	struct analysis *an = xcalloc(1, sizeof(*an));
	uint32_t empty = NJ * 6, longid = NJ * 6 + 1;

	(void)state;
	for (int i = 0; i < NJ; i++)
		snprintf(ids + i * 6, 6, "J%04u", (unsigned)i % 10000u);
	memset(ids + longid, 'L', 60);
	analysis_init(an, NULL);
	for (int i = 0; i < NJ; i++) {
		job_rec(an, ids, sizeof(ids), (uint32_t)i * 6, i, i + 30, 0, NAN);
		if (i >= 40) {	/* an earlier job's DCGM blocks, GPU 0 and GPU 1 */
			job_rec(an, ids, sizeof(ids), (uint32_t)(i - 40) * 6, i - 41, i - 40 + 20, 1, 100);
			job_rec(an, ids, sizeof(ids), (uint32_t)(i - 40) * 6, i - 40, i - 40 + 35, 2, 50);
		}
	}
	job_rec(an, ids, sizeof(ids), empty, 0, 10, 0, NAN);
	job_rec(an, ids, sizeof(ids), longid, 0, 10, 0, NAN);
	job_rec(an, ids, sizeof(ids), empty, 5, 20, 1, 7);
	job_rec(an, ids, sizeof(ids), longid, 5, 20, 1, 7);
	assert_int_equal(an->njobs, NJ + 3);
	for (int i = 0; i < NJ; i++) {
		const struct an_job *j = &an->jobs[i];
		char want[8];
		snprintf(want, sizeof(want), "J%04u", (unsigned)i % 10000u);
		assert_string_equal(j->id, want);
		if (i >= NJ - 40) {
			assert_int_equal(j->gpu_mask, 0);
			assert_true(isnan(j->reported_energy_j));
			continue;
		}
		assert_int_equal(j->gpu_mask, 3);
		assert_int_equal(j->ngpus, 2);
		assert_true(j->t0_ns == MIN(i - 1));
		assert_true(j->t1_ns == MIN(i + 35));
		assert_near(j->reported_energy_j, 150, 1e-9);
	}
	assert_string_equal(an->jobs[NJ].id, "");
	assert_int_equal(an->jobs[NJ].gpu_mask, 1);
	assert_near(an->jobs[NJ].reported_energy_j, 7, 1e-9);
	assert_int_equal(strlen(an->jobs[NJ + 1].id), sizeof(an->jobs[0].id) - 1);
	assert_int_equal(an->jobs[NJ + 1].gpu_mask, 0);
	assert_int_equal(an->jobs[NJ + 2].gpu_mask, 1);
	analysis_finish(an);
	analysis_release(an);
	free(an);
}

/* No process data: no split at all (nothing to say who). */
static void test_no_processes(void **state)
{
	struct analysis *an = xcalloc(1, sizeof(*an));
	struct ingest_result res = { 0 };
	struct report rep;

	(void)state;
	analysis_init(an, NULL);
	for (int m = 0; m <= 10; m++)
		sample(an, m, 0, 50, 100);
	analysis_finish(an);
	memset(&rep, 0, sizeof(rep));
	rep.inputs = &res;
	rep.an = an;
	rep.tz = "UTC";
	cost_params_init(&rep.params);
	report_compute(&rep);
	for (int d = 0; d < AB__COUNT; d++)
		assert_int_equal(rep.attrib.nrows[d], 0);
	report_release(&rep);
	analysis_release(an);
	free(an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_who_spent_it),
		cmocka_unit_test(test_slurm_jobs),
		cmocka_unit_test(test_slurm_accounts),
		cmocka_unit_test(test_slurm_job_indices),
		cmocka_unit_test(test_slurm_dcgm_same_job),
		cmocka_unit_test(test_no_processes),
		cmocka_unit_test(test_many_processes),
		cmocka_unit_test(test_many_jobs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
