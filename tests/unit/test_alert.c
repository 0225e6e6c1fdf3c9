/* SPDX-License-Identifier: MIT */
/* Alert rules: the INI parser, its errors, and the Xid code in event text. */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/alert.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

static void test_defaults(void **state)
{
	struct alert_rules rs;

	(void)state;
	assert_int_equal(alert_rules_default(&rs), 0);
	assert_int_equal(rs.n, 8);
	assert_string_equal(rs.r[0].id, "temp_high");
	assert_int_equal(rs.r[0].kind, AK_TEMP_ABOVE);
	assert_near(rs.r[0].threshold, 92, 0);
	assert_true(rs.r[0].critical);
	assert_int_equal(rs.r[1].kind, AK_MEM_FREE_BELOW);
	assert_near(rs.r[1].threshold, 2, 0);
	assert_true(rs.r[1].for_ns == 300 * NS_PER_S);
	assert_int_equal(rs.r[3].kind, AK_EVENT);
	assert_int_equal(rs.r[3].events, 7);	/* all three rows of alert_events[] */
	assert_false(rs.r[3].xid_any);
	assert_true(rs.r[3].xid[79 / 64] >> (79 % 64) & 1);
	assert_false(rs.r[3].xid[13 / 64] >> (13 % 64) & 1);
	assert_false(rs.r[3].xid[45 / 64] >> (45 % 64) & 1);
	assert_int_equal(rs.r[4].kind, AK_STATE);
	assert_string_equal(state_name[rs.r[4].state], "down");
	assert_int_equal(rs.r[5].kind, AK_UTIL_BELOW);
	assert_true(rs.r[5].use_ustar);
	assert_true(rs.r[5].window_ns == NS_PER_DAY);
	assert_false(rs.r[5].during_job);
	assert_string_equal(rs.r[6].id, "util_below_breakeven_in_job");
	assert_int_equal(rs.r[6].kind, AK_UTIL_BELOW);
	assert_true(rs.r[6].use_ustar && rs.r[6].during_job);
	assert_int_equal(rs.r[7].kind, AK_STALE);
	assert_int_equal(rs.r[7].intervals, 3);
}

static void test_kind_defaults(void **state)
{
	struct alert_rules rs;
	struct gl_err e = { 0 };

	(void)state;
	assert_int_equal(alert_rules_parse(&rs, "[a]\nkind = util_below\n[b]\nkind = stale\n"
					   "[c]\nkind = event\nevents = gpu_lost\n[d]\nkind = power_zero\n",
					   "t", &e), 0);
	assert_true(rs.r[0].use_ustar);
	assert_int_equal(rs.r[1].intervals, 3);
	assert_int_equal(rs.r[2].events, 2);
	assert_true(rs.r[2].xid_any);
	assert_near(rs.r[3].threshold, 0, 0);
	assert_false(rs.r[3].critical);
}

/* Each bad file is refused with the line (where inih knows it) and a reason. */
static void test_errors(void **state)
{
	static const struct {
		const char *text;
		int line;
		const char *says;
	} cases[] = {
		{ "kind = stale\n", 1, "before any [rule]" },
		{ "[a]\nkind = bogus\n", 2, "unknown kind 'bogus'" },
		{ "[a]\nkind = stale\ncolour = red\n", 3, "unknown key 'colour'" },
		{ "[a]\nkind = temp_above\nthreshold = hot\n", 3, "threshold wants a number" },
		{ "[a]\nkind = temp_above\nfor = soon\n", 3, "duration" },
		{ "[a]\nkind = state\nstate = sleepy\n", 3, "unknown state 'sleepy'" },
		{ "[a]\nkind = event\nevents = xid, meteor\n", 3, "unknown event 'meteor'" },
		{ "[a]\nkind = event\nxid_codes = 79, 5000\n", 3, "xid_codes" },
		{ "[a]\nkind = stale\nintervals = 0\n", 3, "whole number" },
		{ "[a]\nkind = stale\nseverity = loud\n", 3, "warning or critical" },
		{ "[A b]\nkind = stale\n", 2, "a-z, 0-9" },
		{ "[a]\nkind = stale\n[b]\nkind = stale\n[a]\nkind = stale\n", 6, "twice" },
		{ "[a]\nthreshold = 3\n", 0, "no kind" },
		{ "[a]\nkind = temp_above\n", 0, "numeric threshold" },
		{ "[a]\nkind = stale\nthreshold = 3\n", 0, "has no key 'threshold'" },
		{ "[a]\nkind = state\n", 0, "state = NAME" },
		{ "; nothing\n", 0, "no rules" },
		{ "[a]\nno equals sign here\n", 2, "expected 'key = value'" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct alert_rules rs;
		struct gl_err e = { 0 };
		int rc = alert_rules_parse(&rs, cases[i].text, "r.ini", &e);
		if (rc != GL_EPARSE || !strstr(e.msg, cases[i].says) || (int)e.line != cases[i].line)
			fail_msg("case %zu: rc %d line %d msg '%s'", i, rc, (int)e.line, e.msg);
		assert_string_equal(e.src, "r.ini");
	}
}

/* A line too long for inih's buffer is an error at its number, not two lines. */
static void test_long_line(void **state)
{
	char text[400];
	struct alert_rules rs;
	struct gl_err e = { 0 };
	size_t n;

	(void)state;
	n = (size_t)snprintf(text, sizeof(text), "[a]\nkind = event\nxid_codes = 1");
	while (n < 220)
		n += (size_t)snprintf(text + n, sizeof(text) - n, ", 2");
	snprintf(text + n, sizeof(text) - n, "\n");
	assert_int_equal(alert_rules_parse(&rs, text, "r.ini", &e), GL_EPARSE);
	assert_int_equal((int)e.line, 3);
	assert_non_null(strstr(e.msg, "longer than 198 bytes"));
	/* 198 bytes is fine: "; " and 196 x */
	memset(text, 'x', 198);
	memcpy(text, "; ", 2);
	snprintf(text + 198, sizeof(text) - 198, "\n[a]\nkind = stale\n");
	assert_int_equal(alert_rules_parse(&rs, text, "r.ini", &e), 0);
	assert_int_equal(rs.n, 1);
}

/* The code follows the PCI group, never the first number after "Xid"
 * (the PCI domain): the lines of ../shared/docs/formats.md section 3.1.1. */
static void test_xid_code(void **state)
{
	(void)state;
	assert_int_equal(alert_xid_code("NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus."), 79);
	assert_int_equal(alert_xid_code("NVRM: Xid (PCI:0018:01:00): 149, NETIR_INT  Fatal"), 149);
	assert_int_equal(alert_xid_code("NVRM: Xid (0000:01:00): 31, Ch 0000000b"), 31);
	assert_int_equal(alert_xid_code("NVRM: Xid 154, GPU recovery action changed to 0x2"), 154);
	assert_int_equal(alert_xid_code("NVRM: Xid (79): GPU has fallen off the bus on nvidia1"), 79);
	assert_int_equal(alert_xid_code("NVML Xid 48 event"), 48);
	assert_int_equal(alert_xid_code("GPU has fallen off the bus"), -1);
	assert_int_equal(alert_xid_code("Xid (PCI:0000:01:00"), -1);
	assert_int_equal(alert_xid_code(NULL), -1);
}

/*
 * The stale rule's inputs: 400 paths sampled in turn, some as copies of the
 * string (the same path, another pointer), over 60 rounds: one input per
 * path, in the order first seen, each with its newest sample, the one
 * before and its first gaps, as a scan of the inputs finds them.
 */
static void test_many_inputs(void **state)
{
	enum { NP = 400 };
	static char paths[NP][24], copies[NP][24];
	struct analysis *an = xcalloc(1, sizeof(*an));
	struct alert_rules rs;
	struct alert_eval ev;
	uint64_t rng = 0x9fb21c651e98df25ULL;

	(void)state;
	assert_int_equal(alert_rules_default(&rs), 0);
	analysis_init(an, NULL);
	alert_eval_init(&ev, &rs, an, NAN);
	for (int i = 0; i < NP; i++) {
		snprintf(paths[i], sizeof(paths[i]), "node%03d/gpu.csv", i);
		memcpy(copies[i], paths[i], sizeof(paths[i]));
	}
	for (int round = 0; round < 60; round++)
		for (int k = 0; k < NP; k++) {
			int i = (int)((k * 7 + round) % NP);	/* a different order each round */
			const char *p = test_xorshift(&rng) % 3 ? paths[i] : copies[i];
			alert_eval_sample(&ev, p, i % 2 == 0, INT64_C(1800000000000000000) + (int64_t)round * 10000000000 + i,
					  NULL, i % 8);
			if (test_xorshift(&rng) % 5 == 0)	/* the same sample again, as the next row of its file */
				alert_eval_sample(&ev, p, i % 2 == 0,
						  INT64_C(1800000000000000000) + (int64_t)round * 10000000000 + i, NULL, i % 8);
		}
	assert_int_equal(ev.ninputs, NP);
	for (size_t n = 0; n < ev.ninputs; n++) {
		const struct alert_input *in = &ev.inputs[n];
		int i = (int)(n * 7 % NP);	/* round 0's order: k = n */
		assert_string_equal(in->path, paths[i]);
		assert_int_equal(in->recorder, i % 2 == 0);
		assert_true(in->last_ns == INT64_C(1800000000000000000) + 59 * INT64_C(10000000000) + i);
		assert_true(in->prev_ns == in->last_ns - INT64_C(10000000000));
		assert_int_equal(in->ndts, 15);
		assert_true(in->dts[0] == INT64_C(10000000000));
		assert_int_equal(in->ngpu, i % 2 == 0 ? 1 : 0);
	}
	alert_eval_release(&ev);
	analysis_release(an);
	free(an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_kind_defaults),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_xid_code),
		cmocka_unit_test(test_many_inputs),
	};
	return cmocka_run_group_tests_name("alert", tests, NULL, NULL);
}
