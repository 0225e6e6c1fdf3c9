/* SPDX-License-Identifier: MIT */
/*
 * Kernel and system events on the timeline (docs/states.md "Kernel events
 * and downtime", "Power events"): PCI address to GPU, downtime after a
 * fatal event, a driver load ending the energy counter's run, bursts,
 * unplaced events, cause and effect, repeated hardware errors, suspends
 * and AC switches.  Records are fed to the analysis as the ingest driver
 * would hand them; every expected figure is worked out by hand in the
 * comment above its test.
 */
#include "test.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "report/report.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

#define T0_S INT64_C(1800000000)	/* a whole minute */
#define AT(s) (T0_S * NS_PER_S + (int64_t)((s) * 1e9))

static const char src_smi[] = "smi.csv";
static const char src_kern[] = "kern.log";
static const char src_journal[] = "journal.txt";
static const char *ksrc = src_kern;	/* the input kevent() reads from */

/* The strings of one record: a batch is only read during the call, so
 * each record starts it afresh. */
static char strbuf[1024];
static struct batch sb;

static uint32_t str(const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t off = (uint32_t)sb.strs_len;

	memcpy(strbuf + sb.strs_len, s, n);
	sb.strs_len += n;
	return off;
}

static struct analysis *start(void)
{
	struct analysis *an = xcalloc(1, sizeof(*an));

	analysis_init(an, NULL);
	memset(&sb, 0, sizeof(sb));
	sb.strs = strbuf;
	return an;
}

static void release(struct analysis *an)
{
	analysis_release(an);
	free(an);
}

/* Clock-event reasons of the next samples (0: none). */
static unsigned smask;

/* A sample of GPU index gpu (uuid "GPU-a<gpu>"): util %, power W, counter J (NAN: none). */
static void sample(struct analysis *an, double t_s, int gpu, double util, double power, double e_j)
{
	static const char *const uuids[] = { "GPU-a0", "GPU-a1" };
	struct rec r;

	sb.strs_len = 0;
	memset(&r, 0, sizeof(r));
	r.kind = REC_SAMPLE;
	r.time_kind = TK_ABS;
	r.t_ns = AT(t_s);
	r.gpu_index = gpu;
	r.uuid = str(uuids[gpu]);
	r.name = STR_NONE;
	r.present = 1u << M_UTIL_GPU | 1u << M_POWER;
	r.v[M_UTIL_GPU] = util;
	r.v[M_POWER] = power;
	r.present |= 1u << M_EVENT_MASK;
	r.v[M_EVENT_MASK] = smask;
	if (!isnan(e_j)) {
		r.present |= 1u << M_ENERGY;
		r.v[M_ENERGY] = e_j;
	}
	analysis_add(an, &r, &sb, src_smi);
}

/* Lines folded into the next kevent() record (a format's burst). */
static uint32_t kcount = 1;

/* A kernel event as kmsg_emit() makes one: no index, a PCI address. */
static void kevent(struct analysis *an, double t_s, int ev, int code, const char *pci, int klass,
		   int sev, int flags, const char *uuid, uint64_t line)
{
	struct rec r;

	sb.strs_len = 0;
	memset(&r, 0, sizeof(r));
	r.kind = REC_EVENT;
	r.time_kind = TK_ABS;
	r.t_ns = AT(t_s);
	r.ev = (uint8_t)ev;
	r.gpu_index = -1;
	r.uuid = uuid ? str(uuid) : STR_NONE;
	r.name = str("NVRM: a kernel line");
	r.line = line;
	r.kev.code = code;
	r.kev.pci = pci ? str(pci) : STR_NONE;
	r.kev.proc = r.kev.text = STR_NONE;
	r.kev.count = kcount;
	r.kev.klass = (uint8_t)klass;
	r.kev.severity = (uint8_t)sev;
	r.kev.flags = (uint8_t)flags;
	analysis_add(an, &r, &sb, ksrc);
}

static const struct finding *finding(const struct analysis *an, const char *kind)
{
	for (size_t i = 0; i < an->nfinds; i++)
		if (!strcmp(an->finds[i].kind, kind))
			return &an->finds[i];
	return NULL;
}

/*
 * GPU 0 at 80 % and 100 W, sampled each second 0..10 s; the driver maps
 * 0000:3b:00.0 to its UUID at boot; Xid 79 (fatal) at 10.5 s; the next
 * healthy sample at 20 s, then 21..29 s.
 *   data [0, 10.5) = 10.5 s, down [10.5, 20) = 9.5 s, data [20, 30) = 10 s
 *   covered 30 s (down time is covered: paid for, useless), gaps 0
 *   busy 0.8 x (10.5 + 10) = 16.4 s; energy 100 W x 20.5 s = 2050 J
 *   energy unknown 9.5 s; one outage of 9.5 s caused by Xid 79.
 * The cost: other_fixed_per_year 31536 over 365 x 24 h is 3.6 an hour,
 * 0.001 a second, nothing else priced: the outage is 9.5 s x 0.001 =
 * 0.0095 and the window 30 s x 0.001 = 0.030; the down line of the
 * waterfall is the outage.
 */
static void test_downtime(void **state)
{
	struct analysis *an = start();
	const struct gpu_stats *g;
	const struct finding *f;
	struct report rep;
	struct ingest_result res = { 0 };

	(void)state;
	kevent(an, -5, EV_GPU_MAP, -1, "0000:3b:00.0", KC_NONE, KS_INFO, 0, "GPU-a0", 1);
	for (int i = 0; i <= 10; i++)
		sample(an, i, 0, 80, 100, NAN);
	kevent(an, 10.5, EV_XID, 79, "0000:3b:00.0", KC_HW, KS_FATAL, KF_DOWN, NULL, 1234);
	/* a second fatal line of the same outage extends nothing */
	kevent(an, 10.6, EV_FALLEN_OFF, -1, "0000:3b:00.0", KC_HW, KS_FATAL, KF_DOWN, NULL, 1235);
	for (int i = 20; i <= 29; i++)
		sample(an, i, 0, 80, 100, NAN);
	analysis_finish(an);

	assert_int_equal(an->tl.ngpus, 1);
	g = &an->gpus[0];
	assert_near(g->covered_s, 30, 1e-9);
	assert_near(g->gaps_s, 0, 0);
	assert_near(g->state_s[ST_DOWN], 9.5, 1e-9);
	assert_near(g->busy_s, 16.4, 1e-9);
	assert_near(g->energy_power_j, 2050, 1e-6);
	assert_near(g->energy_unknown_s, 9.5, 1e-9);
	assert_near(g->state_energy_j[ST_DOWN], 0, 0);
	assert_int_equal(g->outages, 1);
	assert_near(g->outage_s, 9.5, 1e-9);
	assert_int_equal(an->noutages, 1);
	assert_int_equal(an->outages[0].code, 79);
	assert_int_equal(an->outages[0].line, 1234);
	assert_true(an->outages[0].t0_ns == AT(10.5) && an->outages[0].t1_ns == AT(20));
	/* the map event is not listed; the Xid is on GPU 0 by the map */
	assert_int_equal(an->nevs, 2);
	assert_int_equal(an->evs[0].gpu, 0);
	assert_string_equal(an->evs[0].mapped_by, "pci map");
	assert_int_equal(g->xid_class[KC_HW], 1);
	/* cause and effect: the down stretch names the Xid */
	f = finding(an, "gpu_down");
	assert_non_null(f);
	assert_non_null(strstr(f->evidence, "after Xid 79 at 2027-01-15T08:00:10.500Z, kern.log:1234"));

	memset(&rep, 0, sizeof(rep));
	rep.inputs = &res;
	rep.an = an;
	rep.tz = "UTC";
	cost_params_init(&rep.params);
	rep.params.hardware_price = 0;
	rep.params.maintenance_hours_per_year = 0;
	rep.params.electricity_price = 0;
	rep.params.cooling_w = 0;
	rep.params.local_per_job_fixed = 0;
	rep.params.hours_on_per_day = 24;
	rep.params.other_fixed_per_year = 31536;
	report_compute(&rep);
	assert_near(rep.win.local_cost, 0.030, 1e-12);
	assert_near(rep.outage_s, 9.5, 1e-9);
	assert_near(rep.cost_per_gpu_hour, 3.6, 1e-9);
	assert_near(rep.outage_cost, 0.0095, 1e-12);
	assert_near(rep.state_cost[ST_DOWN], 0.0095, 1e-12);
	report_release(&rep);
	release(an);
}

/*
 * A GPU that falls off and never comes back: down to the end of the data,
 * the last reading of any GPU.  GPU 0 and GPU 1 at 1 s, 0..9 s; GPU 0's
 * Xid 79 at 4.2 s (its samples go on saying nothing healthy: it stops
 * logging), GPU 1 goes on to 59 s.  GPU 0: data [0, 4.2), down [4.2, 60):
 * 55.8 s, energy unknown 55.8 s.  A fatal event on no known GPU (PCI
 * 0000:86:00.0 in no map) is a host event and puts nothing down.
 */
static void test_down_to_end(void **state)
{
	struct analysis *an = start();

	(void)state;
	kevent(an, -5, EV_GPU_MAP, -1, "3B:00.0", KC_NONE, KS_INFO, 0, "GPU-a0", 1);
	for (int i = 0; i < 60; i++) {
		if (i < 5)
			sample(an, i, 0, 50, 200, NAN);
		sample(an, i, 1, 50, 200, NAN);
		if (i == 4)
			kevent(an, 4.2, EV_XID, 79, "0000:3b:00.0", KC_HW, KS_FATAL, KF_DOWN, NULL, 7);
		if (i == 30)
			kevent(an, 30, EV_XID, 79, "0000:86:00.0", KC_HW, KS_FATAL, KF_DOWN, NULL, 8);
	}
	analysis_finish(an);
	assert_int_equal(an->tl.ngpus, 2);
	assert_near(an->gpus[0].state_s[ST_DOWN], 55.8, 1e-6);
	assert_near(an->gpus[0].covered_s, 60, 1e-6);
	assert_near(an->gpus[0].energy_unknown_s, 55.8, 1e-6);
	assert_near(an->gpus[0].energy_power_j, 200 * 4.2, 1e-6);
	assert_near(an->gpus[1].state_s[ST_DOWN], 0, 0);
	assert_int_equal(an->noutages, 1);
	assert_int_equal(an->evs[1].gpu, -1);
	assert_null(an->evs[1].mapped_by);
	assert_int_equal(an->host_xid_class[KC_HW], 1);
	release(an);
}

/*
 * A driver load ends the counter's run.  100 W, a sample and a counter
 * reading every second 0..10 s: 1000 + 100 t J up to 5 s; the driver is
 * reloaded at 5.5 s and its counter reads 2000 + 100 (t - 6) from 6 s (it
 * counts from its own load).  Across the reload no difference is taken:
 * [5, 6) is power x time, 100 J, and the total 100 W x 11 s = 1100 J (a
 * difference across it would say 2000 - 1500 = 500 J for that second).
 */
static void test_driver_load(void **state)
{
	struct analysis *an = start();

	(void)state;
	for (int i = 0; i <= 10; i++) {
		sample(an, i, 0, 60, 100, i <= 5 ? 1000 + 100.0 * i : 2000 + 100.0 * (i - 6));
		if (i == 5)
			kevent(an, 5.5, EV_DRIVER_LOAD, -1, NULL, KC_NONE, KS_INFO, 0, NULL, 3);
	}
	analysis_finish(an);
	assert_near(an->gpus[0].energy_counter_j + an->gpus[0].energy_power_j, 1100, 1e-6);
	assert_near(an->gpus[0].energy_counter_j, 900, 1e-6);	/* [0,5) and [6,10) */
	assert_int_equal(an->tl.driver_loads, 1);
	/* a driver load is a host event */
	assert_int_equal(an->evs[0].gpu, -1);
	release(an);
}

/*
 * --gpu-map lines, and the events they place: 0000:86:00.0 is GPU index 1.
 * An Xid 13 burst split by a chunk boundary (two records 5 ms apart, 3 and
 * 2 lines) is one event of 5; a third 1 s later is its own.  Two
 * hardware-class Xids (63, 64) on GPU 1 make it a candidate for return.
 * An unplaced fatal Xid is listed and does nothing else.
 */
static void test_map_bursts_hw(void **state)
{
	struct analysis *an = start();
	unsigned col = 0;
	const char *why = NULL;
	const struct finding *f;
	struct rec r;

	(void)state;
	assert_int_equal(timeline_gpu_map_line(&an->tl, "# a comment\n", &col, &why), 0);
	assert_int_equal(timeline_gpu_map_line(&an->tl, "   \n", &col, &why), 0);
	assert_int_equal(timeline_gpu_map_line(&an->tl, "0000:86:00.0 1\n", &col, &why), 1);
	assert_int_equal(timeline_gpu_map_line(&an->tl, "zz:00.0 1", &col, &why), -1);
	assert_int_equal(col, 1);
	assert_int_equal(timeline_gpu_map_line(&an->tl, "0000:87:00.0", &col, &why), -1);
	assert_int_equal(timeline_gpu_map_line(&an->tl, "0000:87:00.0 frog", &col, &why), -1);
	assert_int_equal(col, 14);
	assert_int_equal(timeline_gpu_map_line(&an->tl, "0000:87:00.0 GPU-x extra", &col, &why), -1);
	assert_int_equal(col, 20);
	for (int i = 0; i < 20; i++) {
		sample(an, i, 0, 90, 300, NAN);
		sample(an, i, 1, 90, 300, NAN);
	}
	/* the burst: 3 lines, then 2 more in the next chunk */
	kcount = 3;
	kevent(an, 3.000, EV_XID, 13, "0000:86:00.0", KC_APP, KS_ERROR, 0, NULL, 10);
	kcount = 2;
	kevent(an, 3.005, EV_XID, 13, "0000:86:00.0", KC_APP, KS_ERROR, KF_BURST, NULL, 13);
	kcount = 1;
	kevent(an, 4.0, EV_XID, 13, "0000:86:00.0", KC_APP, KS_ERROR, 0, NULL, 20);
	kevent(an, 5.0, EV_XID, 63, "0000:86:00.0", KC_HW, KS_WARNING, 0, NULL, 30);
	kevent(an, 9.0, EV_XID, 64, "86:00.0", KC_HW, KS_ERROR, 0, NULL, 31);
	/* unplaced: TK_BOOT */
	sb.strs_len = 0;
	memset(&r, 0, sizeof(r));
	r.kind = REC_EVENT;
	r.time_kind = TK_BOOT;
	r.t_ns = 12 * NS_PER_S;
	r.ev = EV_XID;
	r.gpu_index = -1;
	r.uuid = r.name = STR_NONE;
	r.kev.code = 79;
	r.kev.pci = str("0000:86:00.0");
	r.kev.proc = r.kev.text = STR_NONE;
	r.kev.count = 1;
	r.kev.klass = KC_HW;
	r.kev.severity = KS_FATAL;
	r.kev.flags = KF_DOWN;
	analysis_add(an, &r, &sb, src_kern);
	analysis_finish(an);

	assert_int_equal(an->nevs, 5);
	assert_int_equal(an->evs[0].gpu, 1);
	assert_string_equal(an->evs[0].mapped_by, "gpu-map");
	assert_int_equal(an->evs[0].count, 5);
	assert_int_equal(an->evs[1].count, 1);
	assert_int_equal(an->ev_count[EV_XID], 5);
	assert_int_equal(an->gpus[1].xid_class[KC_APP], 2);
	assert_int_equal(an->gpus[1].xid_class[KC_HW], 2);
	assert_true(an->evs[4].unplaced);
	assert_int_equal(an->unplaced_events, 1);
	assert_int_equal(an->noutages, 0);
	assert_near(an->gpus[1].state_s[ST_DOWN], 0, 0);
	f = finding(an, "hw_errors_repeated");
	assert_non_null(f);
	assert_int_equal(f->gpu, 1);
	assert_near(f->value, 2, 0);
	assert_true(f->t0_ns == AT(5) && f->t1_ns == AT(9));
	release(an);
}

/*
 * A suspend at 99.5 s and a resume at 160.5 s; GPU 0 sampled each second
 * 0..99 and 161..200 at 50 %.  The gap is [100, 161): 61 s, all of it
 * within the suspend to a minute after the resume, so the suspend cost
 * 61 GPU-seconds.  One suspend over the GPU's 0..201 s: 1 / (201 / 3600)
 * = 17.910 an hour.
 * An AC off at 600 s on a second run: 80 % for the 10 minutes before,
 * 40 % after: before 80, after 40 (whole minutes 300..600, 660..960).
 */
static void test_power_events(void **state)
{
	struct analysis *an = start();
	const struct finding *f;

	(void)state;
	for (int i = 0; i <= 200; i++) {
		if (i > 99 && i < 161)
			continue;
		sample(an, i, 0, 50, 150, NAN);
		if (i == 99)
			kevent(an, 99.5, EV_SUSPEND, -1, NULL, KC_SYSTEM, KS_INFO, 0, NULL, 40);
		if (i == 161)
			kevent(an, 160.5, EV_RESUME, -1, NULL, KC_SYSTEM, KS_INFO, 0, NULL, 41);
	}
	analysis_finish(an);
	assert_int_equal(an->pw.suspends, 1);
	assert_int_equal(an->pw.nsleeps, 1);
	assert_near(an->pw.sleeps[0].gpu_lost_s, 61, 1e-9);
	assert_near(an->pw.gpu_lost_s, 61, 1e-9);
	f = finding(an, "power_events");
	assert_non_null(f);
	assert_int_equal(f->gpu, -1);
	assert_near(f->value, 3600.0 / 201, 1e-9);
	assert_int_equal(f->severity, SEV_WARNING);
	release(an);

	an = start();
	for (int i = 0; i < 1200; i++) {
		sample(an, i, 0, i < 600 ? 80 : 40, 150, NAN);
		if (i == 600)
			kevent(an, 600, EV_AC_OFF, -1, NULL, KC_SYSTEM, KS_INFO, 0, NULL, 50);
	}
	analysis_finish(an);
	assert_int_equal(an->pw.ac_off, 1);
	assert_near(an->pw.ac[0].util_before, 80, 1e-3);
	assert_near(an->pw.ac[0].util_after, 40, 1e-3);
	f = finding(an, "power_events");
	assert_non_null(f);
	assert_int_equal(f->severity, SEV_WARNING);
	release(an);
}

/*
 * A query log's pci.bus_id ("00000000:3B:00.0", an 8-digit domain) maps
 * 0000:3b:00.0 to GPU index 0; --gpu-map's word beats the logs': its
 * 0000:86:00.0 is index 1 whatever the query log says.
 */
static void test_query_map(void **state)
{
	struct analysis *an = start();
	unsigned col;
	const char *why;
	struct rec r;

	(void)state;
	assert_int_equal(timeline_gpu_map_line(&an->tl, "86:00.0 GPU-a1", &col, &why), 1);
	for (int i = 0; i < 5; i++) {
		sample(an, i, 0, 10, 100, NAN);
		sample(an, i, 1, 10, 100, NAN);
	}
	for (int g = 0; g < 2; g++) {
		sb.strs_len = 0;
		memset(&r, 0, sizeof(r));
		r.kind = REC_EVENT;
		r.time_kind = TK_ABS;
		r.t_ns = AT(1);
		r.ev = EV_GPU_MAP;
		r.gpu_index = 0;
		r.uuid = str("GPU-a0");
		r.name = STR_NONE;
		r.kev.code = -1;
		r.kev.pci = str(g ? "00000000:86:00.0" : "00000000:3B:00.0");
		r.kev.proc = r.kev.text = STR_NONE;
		r.kev.count = 1;
		analysis_add(an, &r, &sb, src_smi);
	}
	kevent(an, 2, EV_XID, 31, "0000:3b:00.0", KC_APP, KS_ERROR, 0, NULL, 5);
	kevent(an, 3, EV_XID, 31, "0000:86:00.0", KC_APP, KS_ERROR, 0, NULL, 6);
	analysis_finish(an);
	assert_int_equal(an->nevs, 2);
	assert_int_equal(an->evs[0].gpu, 0);
	assert_string_equal(an->evs[0].mapped_by, "query log");
	assert_int_equal(an->evs[1].gpu, 1);
	assert_string_equal(an->evs[1].mapped_by, "gpu-map");
	release(an);
}

/*
 * An Xid before its GPU's first sample: no GPU then (an event never makes
 * one), the map names it at the end.  The list and the rates put it on
 * GPU 0; there is no downtime (nothing to be down against yet).
 */
static void test_late_map(void **state)
{
	struct analysis *an = start();

	(void)state;
	kevent(an, -5, EV_GPU_MAP, -1, "0000:3b:00.0", KC_NONE, KS_INFO, 0, "GPU-a0", 1);
	kevent(an, -3, EV_XID, 48, "0000:3b:00.0", KC_HW, KS_FATAL, KF_DOWN, NULL, 2);
	for (int i = 0; i < 5; i++)
		sample(an, i, 0, 10, 100, NAN);
	analysis_finish(an);
	assert_int_equal(an->tl.ngpus, 1);
	assert_int_equal(an->nevs, 1);
	assert_int_equal(an->evs[0].gpu, 0);
	assert_string_equal(an->evs[0].mapped_by, "pci map");
	assert_int_equal(an->gpus[0].xid_class[KC_HW], 1);
	assert_int_equal(an->host_xid_class[KC_HW], 0);
	assert_int_equal(an->noutages, 0);
	assert_near(an->gpus[0].state_s[ST_DOWN], 0, 0);
	release(an);
}

/* A process row of pid 100 on GPU 0 (pmon-like). */
static void proc(struct analysis *an, double t_s)
{
	struct rec r;

	sb.strs_len = 0;
	memset(&r, 0, sizeof(r));
	r.kind = REC_PROC;
	r.time_kind = TK_ABS;
	r.t_ns = AT(t_s);
	r.gpu_index = 0;
	r.uuid = STR_NONE;
	r.name = str("python");
	r.pid = 100;
	r.present = PF_FB;
	r.v[2] = 1000;
	analysis_add(an, &r, &sb, src_smi);
}

/*
 * A process seen on the GPU up to the fatal event is not credited with the
 * outage: samples and process rows each second 0..10 s and 20..29 s, Xid
 * 79 at 10.5 s.  Present 10.5 + 10 = 20.5 s (not 30: the row at 10 s would
 * otherwise count as fresh into the down time), busy 0.8 x 20.5 = 16.4 s.
 */
static void test_no_process_in_outage(void **state)
{
	struct analysis *an = start();

	(void)state;
	kevent(an, -5, EV_GPU_MAP, -1, "0000:3b:00.0", KC_NONE, KS_INFO, 0, "GPU-a0", 1);
	for (int i = 0; i <= 29; i++) {
		if (i > 10 && i < 20)
			continue;
		sample(an, i, 0, 80, 100, NAN);
		proc(an, i);
		if (i == 10)
			kevent(an, 10.5, EV_XID, 79, "0000:3b:00.0", KC_HW, KS_FATAL, KF_DOWN, NULL, 9);
	}
	analysis_finish(an);
	assert_int_equal(an->nprocs, 1);
	assert_near(an->procs[0].present_s, 20.5, 1e-9);
	assert_near(an->procs[0].busy_s, 16.4, 1e-9);
	assert_near(an->procs[0].energy_j, 2050, 1e-6);
	release(an);
}

/* The list is bounded: with room for 2, four events keep 2 and count 2 dropped. */
static void test_event_cap(void **state)
{
	struct analysis *an = xcalloc(1, sizeof(*an));
	struct analysis_cfg cfg;

	(void)state;
	analysis_cfg_default(&cfg);
	cfg.max_events = 2;
	analysis_init(an, &cfg);
	memset(&sb, 0, sizeof(sb));
	sb.strs = strbuf;
	sample(an, 0, 0, 10, 100, NAN);
	for (int i = 0; i < 4; i++)
		kevent(an, 1 + i, EV_XID, 13 + i, "0000:3b:00.0", KC_APP, KS_ERROR, 0, NULL, (uint64_t)i);
	analysis_finish(an);
	assert_int_equal(an->nevs, 2);
	assert_int_equal(an->evs_dropped, 2);
	assert_int_equal(an->ev_count[EV_XID], 4);
	release(an);
}

/*
 * Cause and effect within 60 s: throttled (HwThermal 0x40) from 100 s to
 * 120 s; a thermal Xid 62 warning at 70 s is 30 s before: named.  A second
 * throttled stretch from 300 s, 230 s after the Xid, names nothing.
 */
static void test_cause_window(void **state)
{
	/* the Xid 3 s before the first throttled stretch (3 s of compute
	 * between: the sampling's resolution) names it; the one 30 s before
	 * the second, with 30 s of compute between, does not (issue 29:
	 * no link across healthy time).  Both stretches are one finding. */
	struct analysis *an = start();
	int n = 0;

	(void)state;
	kevent(an, -5, EV_GPU_MAP, -1, "0000:3b:00.0", KC_NONE, KS_INFO, 0, "GPU-a0", 1);
	for (int i = 0; i < 400; i++) {
		smask = (i >= 100 && i < 120) || (i >= 300 && i < 320) ? 0x40 : 0;
		sample(an, i, 0, 90, 300, NAN);
		if (i == 97)
			kevent(an, 97, EV_XID, 62, "0000:3b:00.0", KC_THERMAL, KS_WARNING, 0, NULL, 77);
		if (i == 270)
			kevent(an, 270, EV_XID, 62, "0000:3b:00.0", KC_THERMAL, KS_WARNING, 0, NULL, 78);
	}
	smask = 0;
	analysis_finish(an);
	for (size_t i = 0; i < an->nfinds; i++) {
		const struct finding *f = &an->finds[i];
		if (strcmp(f->kind, "throttling"))
			continue;
		assert_int_equal(f->nstretch, 2);
		assert_int_equal(f->nlinked, 1);
		assert_int_equal(f->ndetail, 2);
		for (int k = 0; k < 2; k++) {
			if (f->detail[k].t0_ns == AT(100))
				assert_string_equal(f->detail[k].cause, "Xid 62 at 2027-01-15T08:01:37Z, kern.log:77");
			else
				assert_string_equal(f->detail[k].cause, "");
		}
		assert_non_null(strstr(f->evidence, "1 of the 2 came right after an event, the first after Xid 62 at "
					"2027-01-15T08:01:37Z, kern.log:77"));
		assert_null(strstr(f->evidence, "kern.log:78"));
		n++;
	}
	assert_int_equal(n, 1);
	release(an);
}

/*
 * The same event read from two inputs (kern.log and the journal) is one
 * event (EVENT_COPY_NS, 2 s), counted once:
 *   kern 3.0 Xid 63 + journal 4.5 Xid 63 (1.5 s later)  -> one, copies 1
 *   journal 3.5 Xid 64 (another code)                    -> its own
 *   kern 10.0 and kern 11.5 Xid 63 (one input)           -> two
 *   journal 15.0 Xid 63 (3.5 s after 11.5)               -> its own
 *   kern 18 Xid 13 (whole seconds) + journal 18.25       -> one, listed at
 *       18.25 from the journal, the kern.log line as the copy
 * Six events, two copies; GPU 1's HW-class Xids: 63, 64, 63, 63, 63 = 5
 * (6 if the copy were counted), so hw_errors_repeated says 5.
 */
static void test_copies(void **state)
{
	struct analysis *an = start();
	unsigned col = 0;
	const char *why = NULL;
	const struct finding *f;

	(void)state;
	assert_int_equal(timeline_gpu_map_line(&an->tl, "0000:86:00.0 1", &col, &why), 1);
	for (int i = 0; i < 21; i++) {
		sample(an, i, 0, 90, 300, NAN);
		sample(an, i, 1, 90, 300, NAN);
	}
	ksrc = src_kern;
	kevent(an, 3.0, EV_XID, 63, "0000:86:00.0", KC_HW, KS_WARNING, 0, NULL, 100);
	ksrc = src_journal;
	kevent(an, 3.5, EV_XID, 64, "0000:86:00.0", KC_HW, KS_ERROR, 0, NULL, 7);
	kevent(an, 4.5, EV_XID, 63, "0000:86:00.0", KC_HW, KS_WARNING, 0, NULL, 8);
	ksrc = src_kern;
	kevent(an, 10.0, EV_XID, 63, "0000:86:00.0", KC_HW, KS_WARNING, 0, NULL, 200);
	kevent(an, 11.5, EV_XID, 63, "0000:86:00.0", KC_HW, KS_WARNING, 0, NULL, 201);
	ksrc = src_journal;
	kevent(an, 15.0, EV_XID, 63, "0000:86:00.0", KC_HW, KS_WARNING, 0, NULL, 9);
	ksrc = src_kern;
	kevent(an, 18.0, EV_XID, 13, "0000:86:00.0", KC_APP, KS_ERROR, 0, NULL, 300);
	ksrc = src_journal;
	kevent(an, 18.25, EV_XID, 13, "0000:86:00.0", KC_APP, KS_ERROR, 0, NULL, 10);
	ksrc = src_kern;
	analysis_finish(an);

	assert_int_equal(an->nevs, 6);
	assert_int_equal(an->event_copies, 2);
	assert_int_equal(an->ev_count[EV_XID], 6);
	assert_int_equal(an->evs[0].code, 63);
	assert_int_equal(an->evs[0].copies, 1);
	assert_string_equal(an->evs[0].src, src_kern);
	assert_int_equal(an->evs[0].line, 100);
	assert_string_equal(an->evs[0].also[0].src, src_journal);
	assert_int_equal(an->evs[0].also[0].line, 8);
	assert_int_equal(an->evs[1].code, 64);
	assert_int_equal(an->evs[1].copies, 0);
	assert_true(an->evs[2].t_ns == AT(10) && an->evs[3].t_ns == AT(11.5) && an->evs[4].t_ns == AT(15));
	assert_int_equal(an->evs[2].copies + an->evs[3].copies + an->evs[4].copies, 0);
	assert_int_equal(an->evs[5].code, 13);
	assert_true(an->evs[5].t_ns == AT(18.25));
	assert_string_equal(an->evs[5].src, src_journal);
	assert_string_equal(an->evs[5].also[0].src, src_kern);
	assert_int_equal(an->evs[5].also[0].line, 300);
	assert_int_equal(an->gpus[1].xid_class[KC_HW], 5);
	assert_int_equal(an->gpus[1].xid_class[KC_APP], 1);
	assert_int_equal(an->gpus[1].xids, 6);
	f = finding(an, "hw_errors_repeated");
	assert_non_null(f);
	assert_near(f->value, 5, 0);
	release(an);
}

/*
 * One Xid in six inputs (a log copied five times): one event, 5 copies
 * counted, the first EVENT_ALSO (4) named in input order, and one Xid in
 * the GPU's class count.
 */
static void test_copies_many(void **state)
{
	static const char *srcs[] = { "a.log", "b.log", "c.log", "d.log", "e.log", "f.log" };
	struct analysis *an = start();
	unsigned col = 0;
	const char *why = NULL;

	(void)state;
	assert_int_equal(timeline_gpu_map_line(&an->tl, "0000:86:00.0 1", &col, &why), 1);
	for (int i = 0; i < 6; i++) {
		sample(an, i, 0, 90, 300, NAN);
		sample(an, i, 1, 90, 300, NAN);
	}
	for (int i = 0; i < 6; i++) {
		ksrc = srcs[i];
		kevent(an, 2.05 + 0.1 * i, EV_XID, 63, "0000:86:00.0", KC_HW, KS_WARNING, 0, NULL, 10 + (uint64_t)i);
	}
	ksrc = src_kern;
	analysis_finish(an);

	assert_int_equal(an->nevs, 1);
	assert_int_equal(an->evs[0].copies, 5);
	assert_int_equal(an->evs[0].nalso, 4);
	assert_int_equal(an->event_copies, 5);
	assert_string_equal(an->evs[0].src, "a.log");
	for (int k = 0; k < 4; k++) {
		assert_string_equal(an->evs[0].also[k].src, srcs[k + 1]);
		assert_int_equal(an->evs[0].also[k].line, 11 + k);
	}
	assert_int_equal(an->gpus[1].xid_class[KC_HW], 1);
	release(an);
}

/*
 * A fatal Xid 79 in kern.log at 10.05 s and its copy in the journal 1.2 s
 * later (journald's lag; within EVENT_COPY_NS), fed in time order; samples
 * every 0.1 s stay healthy (the GPU came back), so the outage ends at the
 * sample at 10.1 s and the copy, after healthy samples, must not start a
 * second one: one outage of 0.05 s, one event with one copy.  Without the
 * timeline's copy rule: two outages, 0.1 s (the check fails then).
 */
static void test_copy_one_outage(void **state)
{
	struct analysis *an = start();

	(void)state;
	for (int i = 0; i <= 130; i++) {
		sample(an, i * 0.1, 0, 80, 100, NAN);
		if (i == 100)
			kevent(an, 10.05, EV_XID, 79, "0000:3b:00.0", KC_HW, KS_FATAL, KF_DOWN, "GPU-a0", 1);
		if (i == 112) {
			ksrc = src_journal;
			kevent(an, 11.25, EV_XID, 79, "0000:3b:00.0", KC_HW, KS_FATAL, KF_DOWN, "GPU-a0", 2);
			ksrc = src_kern;
		}
	}
	analysis_finish(an);
	assert_int_equal(an->noutages, 1);
	assert_int_equal(an->gpus[0].outages, 1);
	assert_near(an->gpus[0].outage_s, 0.05, 1e-9);
	assert_int_equal(an->nevs, 1);
	assert_int_equal(an->evs[0].copies, 1);
	release(an);
}

/*
 * det_events' repeats merged by its post-pass, once, after every detector.
 * GPU 0 replays rows 200..230 of the H200 capture (utilization and power,
 * examples/h200-training/query_gpu_units_500ms.csv) once a second for
 * 240 s; Xid 13 at 3, 10 and 65 s (each within a minute of the one
 * before: one finding of 3, from 3 to 65 s, the last at kern.log:103), Xid
 * 31 at 5 s (another code: its own finding), Xid 13 again at 200 s (135 s
 * after the last: a new finding of 1).  Until the post-pass the first
 * finding is as made (1, at 3 s); after it, it holds the merge, and the
 * post-pass ran once and saw every finding there is.
 */
static void test_events_post_pass(void **state)
{
	static const double rows[][2] = {
		{ 23, 211.71 }, { 0, 213.84 }, { 18, 201.87 }, { 28, 208.21 }, { 0, 209.76 }, { 28, 215.68 },
		{ 11, 220.34 }, { 0, 216.61 }, { 29, 217.42 }, { 0, 202.35 }, { 28, 204.11 }, { 28, 221.44 },
		{ 26, 224.48 }, { 18, 225.56 }, { 28, 235.73 }, { 28, 231.61 }, { 28, 221.22 }, { 28, 220.25 },
		{ 0, 204.48 }, { 28, 220.70 }, { 28, 225.95 }, { 28, 222.39 }, { 28, 225.69 }, { 12, 223.02 },
		{ 28, 208.49 }, { 17, 198.37 }, { 0, 207.16 }, { 29, 206.09 }, { 21, 205.02 }, { 13, 211.16 },
		{ 2, 221.49 },
	};
	static const struct { double t; int code; uint64_t line; } xids[] = {
		{ 3, 13, 101 }, { 5, 31, 105 }, { 10, 13, 102 }, { 65, 13, 103 }, { 200, 13, 104 },
	};
	struct analysis *an = start();
	const struct finding *f13 = NULL, *f13b = NULL, *f31 = NULL;
	size_t k = 0, made = 0;

	(void)state;
	for (int t = 0; t <= 240; t++) {
		for (; k < sizeof(xids) / sizeof(xids[0]) && xids[k].t < t; k++)
			kevent(an, xids[k].t, EV_XID, xids[k].code, NULL, KC_APP, KS_ERROR, 0, "GPU-a0",
			       xids[k].line);
		sample(an, t, 0, rows[t % 31][0], rows[t % 31][1], NAN);
	}
	/* made, not yet merged: the post-pass has not run */
	assert_int_equal(an->det_post_runs, 0);
	for (size_t i = 0; i < an->nfinds; i++)
		if (an->finds[i].fk == FK_XID_ERROR && an->finds[i].code == 13 && an->finds[i].t0_ns == AT(3)) {
			assert_true(an->finds[i].value == 1);
			assert_int_equal(an->finds[i].t1_ns, AT(3));
			made++;
		}
	assert_int_equal(made, 1);
	analysis_finish(an);
	assert_int_equal(an->det_post_runs, 1);
	assert_int_equal(an->det_post_seen, an->nfinds);	/* nothing was made after it */
	for (size_t i = 0; i < an->nfinds; i++) {
		const struct finding *f = &an->finds[i];
		if (f->fk != FK_XID_ERROR)
			continue;
		if (f->code == 31)
			f31 = f;
		else if (f->t0_ns == AT(3))
			f13 = f;
		else if (f->t0_ns == AT(200))
			f13b = f;
		else
			fail_msg("an Xid finding from %" PRId64, f->t0_ns);
	}
	assert_non_null(f13);
	assert_non_null(f13b);
	assert_non_null(f31);
	assert_true(f13->value == 3);
	assert_int_equal(f13->t1_ns, AT(65));
	assert_string_equal(f13->evidence,
			    "kern.log:101; 3 in all, each within a minute of the one before, the last at kern.log:103");
	assert_true(f13b->value == 1);
	assert_string_equal(f13b->evidence, "kern.log:104");
	assert_true(f31->value == 1);
	assert_string_equal(f31->evidence, "kern.log:105");
	release(an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_downtime),
		cmocka_unit_test(test_down_to_end),
		cmocka_unit_test(test_driver_load),
		cmocka_unit_test(test_map_bursts_hw),
		cmocka_unit_test(test_power_events),
		cmocka_unit_test(test_query_map),
		cmocka_unit_test(test_late_map),
		cmocka_unit_test(test_no_process_in_outage),
		cmocka_unit_test(test_event_cap),
		cmocka_unit_test(test_cause_window),
		cmocka_unit_test(test_copies),
		cmocka_unit_test(test_copies_many),
		cmocka_unit_test(test_copy_one_outage),
		cmocka_unit_test(test_events_post_pass),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
