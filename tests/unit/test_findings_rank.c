/* SPDX-License-Identifier: MIT */
/*
 * Issue 29: the findings' one order and the cap that never refuses a
 * finding of another kind or of a higher severity (docs/states.md
 * "Findings as a summary, in one order").
 */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/detector.h"
#include "util/xalloc.h"

static struct analysis *start(size_t cap)
{
	struct analysis *an = xcalloc(1, sizeof(*an));
	struct analysis_cfg cfg;

	analysis_cfg_default(&cfg);
	cfg.max_findings = cap;
	analysis_init(an, &cfg);
	return an;
}

static void release(struct analysis *an)
{
	analysis_release(an);
	free(an);
}

static size_t count(const struct analysis *an, const char *kind, int gpu)
{
	size_t n = 0;

	for (size_t i = 0; i < an->nfinds; i++)
		n += an->finds[i].gpu == gpu && !strcmp(an->finds[i].kind, kind);
	return n;
}

/*
 * Cap 2: two xid_error warnings on GPU 0 fill it; three more are refused
 * (the GPU has that kind at that severity); a leak (another kind), an
 * xid_error that is critical (higher) and one on GPU 1 (a GPU without
 * that kind) are all kept, and a second one on GPU 1 is refused: 5
 * findings, 4 dropped.
 */
static void test_cap_keeps_other_kinds(void **state)
{
	struct analysis *an = start(2);

	(void)state;
	for (int i = 0; i < 5; i++)
		det_finding(an, FK_XID_ERROR, 0, i, i + 1, SEV_WARNING, 1);
	assert_non_null(det_finding(an, FK_MEMORY_LEAK, 0, 10, 20, SEV_WARNING, 58));
	assert_non_null(det_finding(an, FK_XID_ERROR, 0, 30, 31, SEV_CRITICAL, 1));
	assert_non_null(det_finding(an, FK_XID_ERROR, 1, 30, 31, SEV_INFO, 1));
	assert_null(det_finding(an, FK_XID_ERROR, 1, 40, 41, SEV_INFO, 1));
	assert_int_equal(an->nfinds, 5);
	assert_int_equal(an->finds_dropped, 4);
	assert_int_equal(count(an, "memory_leak", 0), 1);
	assert_int_equal(count(an, "xid_error", 0), 3);
	assert_int_equal(count(an, "xid_error", 1), 1);
	release(an);
}

/*
 * The order: severity, then the kinds that always appear, then the
 * GPU-seconds covered (a summary's total, idle_power's idle seconds, else
 * the span), then time.  Info findings: a 5000 s held_idle summary, a
 * 100 s throttling summary (always), a 3-day imbalance (always), an
 * idle_power over 200 idle seconds of a 3-day span; one warning leak.
 *   warning memory_leak; info imbalance (3 days), throttling (100 s),
 *   held_idle (5000 s), idle_power (200 s).
 */
static void test_rank(void **state)
{
	struct analysis *an = start(5000);
	struct finding *f;
	const int64_t s = 1000000000;
	static const char *const want[] = { "memory_leak", "imbalance", "throttling", "held_idle", "idle_power" };

	(void)state;
	f = det_finding(an, FK_HELD_IDLE, 0, 0, 9000 * s, SEV_INFO, 5000);
	f->nstretch = 40;
	f->total_s = 5000;
	f = det_finding(an, FK_IDLE_POWER, 0, 0, 3 * 86400 * s, SEV_INFO, 120);
	f->total_s = 200;
	f = det_finding(an, FK_THROTTLING, 0, 50 * s, 150 * s, SEV_INFO, 100);
	f->nstretch = 2;
	f->total_s = 100;
	det_finding(an, FK_IMBALANCE, 1, 0, 3 * 86400 * s, SEV_INFO, 30);
	det_finding(an, FK_MEMORY_LEAK, 1, 0, 10 * s, SEV_WARNING, 58);
	analysis_rank_findings(an);
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(an->finds[i].kind, want[i]);
	release(an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cap_keeps_other_kinds),
		cmocka_unit_test(test_rank),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
