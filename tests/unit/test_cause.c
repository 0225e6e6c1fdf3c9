/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for cause and effect (analysis/cause.c det_cause): the search
 * by time names the event a scan of every kept event names, for events that
 * come out of order, share times, move by a finer copy and are added while
 * stretches are asked about.
 */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/detector.h"
#include "util/xalloc.h"

#define S NS_PER_S
#define T0 (INT64_C(1800000000) * S)

static bool host_cause(int ev)
{
	return ev == EV_SUSPEND || ev == EV_POWER_OFF || ev == EV_AC_OFF || ev == EV_DRIVER_LOAD || ev == EV_BOOT;
}

/* The rule as a scan of every kept event, in the order kept (the reference). */
static const struct an_event *by_scan(const struct analysis *an, int gi, int64_t t0_ns)
{
	const struct healthy_runs *w = det_healthy(an->det[gi]);
	const struct an_event *best = NULL;

	for (size_t k = 0; k < an->nevs; k++) {
		const struct an_event *e = &an->evs[k];
		double h = 0;
		if (e->unplaced || !(e->gpu == gi ? e->severity >= KS_WARNING : e->gpu < 0 && host_cause(e->ev)) ||
		    t0_ns < e->t_ns - 5 * S || t0_ns > e->t_ns + an->cfg.cause_window_ns)
			continue;
		if (e->t_ns < w->lost_ns)
			continue;
		for (int i = 0; i < w->n; i++) {
			int64_t a = w->run[i].t0_ns > e->t_ns ? w->run[i].t0_ns : e->t_ns;
			int64_t b = w->run[i].t1_ns < t0_ns ? w->run[i].t1_ns : t0_ns;
			if (b > a)
				h += (double)(b - a) / 1e9;
		}
		if (h > 5)
			continue;
		if (!best || ((best->flags & KF_CONSEQUENCE) && !(e->flags & KF_CONSEQUENCE)) ||
		    ((best->flags & KF_CONSEQUENCE) == (e->flags & KF_CONSEQUENCE) && e->t_ns >= best->t_ns &&
		     e->t_ns <= t0_ns))
			best = e;
	}
	return best;
}

static void add_event(struct analysis *an, uint64_t *rng, int64_t t_ns)
{
	struct an_event *e = analysis_event_new(an);
	static const int evs[] = { EV_XID, EV_XID, EV_XID, EV_SUSPEND, EV_BOOT, EV_NVRM_OTHER };

	assert_non_null(e);
	e->t_ns = t_ns;
	e->unplaced = test_xorshift(rng) % 10 == 0;
	e->gpu = (int)(test_xorshift(rng) % 3) - 1;
	e->ev = (uint8_t)evs[test_xorshift(rng) % 6];
	e->severity = (uint8_t)(test_xorshift(rng) % 4);
	e->flags = test_xorshift(rng) % 3 == 0 ? KF_CONSEQUENCE : 0;
	e->code = (int32_t)(test_xorshift(rng) % 100);
	e->src = "kern.log";
	e->line = an->nevs;
}

static void test_same_as_scan(void **state)
{
	struct analysis *an = xcalloc(1, sizeof(*an));
	uint64_t rng = 0x9e3779b97f4a7c15ULL;
	int64_t now = T0;
	size_t named = 0, asked = 0, edges = 0;

	(void)state;
	analysis_init(an, NULL);
	an->cfg.max_events = 100000;
	an->tl.ngpus = 2;
	for (int g = 0; g < 2; g++) {
		struct healthy_runs *w;
		an->det[g] = det_states_new();
		w = det_healthy(an->det[g]);
		/* a healthy run now and then: some causes are cut by recovery */
		for (int i = 0; i < HEALTHY_RUNS; i++) {
			w->run[i].t0_ns = T0 + (int64_t)i * 2800 * S + (int64_t)g * 50 * S;
			w->run[i].t1_ns = w->run[i].t0_ns + (int64_t)(i % 3) * 4 * S;
		}
		w->n = HEALTHY_RUNS;
		w->lost_ns = T0 - 3600 * S;
	}
	for (int step = 0; step < 6000; step++) {
		char buf[160], want[160];
		const struct an_event *b;
		int gi = (int)(test_xorshift(&rng) % 2);
		int64_t t0;
		/* events mostly in time order, some late by up to a minute, some at the same time */
		now += (int64_t)(test_xorshift(&rng) % 30000) * (S / 1000);
		add_event(an, &rng, test_xorshift(&rng) % 8 == 0 ? now - (int64_t)(test_xorshift(&rng) % 60) * S :
				  test_xorshift(&rng) % 8 == 0 ? an->evs[an->nevs - 1].t_ns : now);
		/* a finer copy moves an event kept a little before, by up to 2 s, once */
		if (step > 10 && test_xorshift(&rng) % 16 == 0) {
			struct an_event *e = &an->evs[an->nevs - 1 - test_xorshift(&rng) % 8];
			if (!e->copies++) {
				int64_t d = (int64_t)(test_xorshift(&rng) % 4001) * (S / 1000) - 2 * S;
				e->t_ns += d;
				/* a stretch at the window's edge of its new time, where its old one is outside */
				if (!e->unplaced && e->gpu >= 0) {
					char edge[160];
					int64_t t = d > 0 ? e->t_ns + an->cfg.cause_window_ns : e->t_ns - 5 * S;
					const struct an_event *be = by_scan(an, e->gpu, t);
					bool got = det_cause(an, e->gpu, t, edge, sizeof(edge));
					assert_int_equal(got, be != NULL);
					edges += be == e;
				}
			}
		}
		/* a stretch that starts about now, or a while back */
		t0 = now - (int64_t)(test_xorshift(&rng) % 90) * S + 3 * S;
		b = by_scan(an, gi, t0);
		asked++;
		if (!det_cause(an, gi, t0, buf, sizeof(buf))) {
			if (b)
				fail_msg("step %d: no cause found, want line %llu", step, (unsigned long long)b->line);
			continue;
		}
		assert_non_null(b);
		named++;
		snprintf(want, sizeof(want), "kern.log:%llu", (unsigned long long)b->line);
		if (!strstr(buf, want))
			fail_msg("step %d: got %s, want %s", step, buf, want);
	}
	/* the case is not empty: many stretches have a cause, many none */
	print_message("%zu of %zu stretches named a cause; %zu at a moved event's edge\n", named, asked, edges);
	assert_true(edges > 10);
	assert_true(named > asked / 5);
	assert_true(named < asked - asked / 10);
	analysis_release(an);
	free(an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_scan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
