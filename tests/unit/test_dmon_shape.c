/* SPDX-License-Identifier: MIT */
/*
 * smi-dmon's whole-row shape check (row_shape_ok in fmt_smi_dmon.c, AVX2
 * where the CPU has it) against the field-by-field path it stands in for:
 * the same rows, good and damaged, give the same records, values, bad-line
 * reasons and columns with the check on and off (smi_dmon_row_shape); with
 * it on, the kept fields are read four at a time (read_kept).
 */
#include "test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt_run.h"
#include "formats/driver.h"
#include "formats/smi.h"
#include "util/xalloc.h"

static const char *const header[] = {
	"#Date        Time         gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk "
	" pviol  tviol     fb   bar1   ccpm  sbecc  dbecc    pci  rxpci  txpci ",
	"#YYYYMMDD    HH:MM:SS     Idx      W      C      C      %      %      %      %      %      %    MHz    MHz "
	"     %   bool     MB     MB     MB   errs   errs   errs   MB/s   MB/s ",
};
#define NFIELDS 22	/* after date and time: gpu in 8 bytes, then 21 right-aligned in 7 */

static uint64_t xs_state = 0x243f6a8885a308d3ULL;
static uint64_t xs(void)
{
	return test_xorshift(&xs_state);
}

/* A good row: the date, the time, then each field right-aligned in 7. */
static void good_row(char *buf, size_t cap, int sec)
{
	size_t n = (size_t)snprintf(buf, cap, " 20261201    00:%02d:%02d", sec / 60 % 60, sec % 60);
	for (int i = 0; i < NFIELDS; i++) {
		static const uint64_t lim[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
		uint64_t v = i == 0 ? xs() % 8 : xs() % lim[xs() % 7];
		n += (size_t)snprintf(buf + n, cap - n, i == 0 ? "%8llu" : "%7llu", (unsigned long long)v);
	}
	snprintf(buf + n, cap - n, " ");
}

/* Damage a row the way logs are damaged, or leave it alone. */
static void damage(char *row)
{
	static const char junk[] = " -x0.9\t+:";
	size_t n = strlen(row), at = 22 + xs() % (n - 22);

	switch (xs() % 8) {
	case 0:
		row[at] = junk[xs() % (sizeof(junk) - 1)];
		break;
	case 1: {
		/* a field's digits become a "-" (N/A) */
		size_t f = 29 + 7 * (xs() % (NFIELDS - 1));
		memset(row + f, ' ', 7);
		row[f + 6] = '-';
		break;
	}
	case 2:
		/* two fields touch: the blank before one becomes a digit */
		row[29 + 7 * (xs() % (NFIELDS - 1))] = (char)('1' + xs() % 9);
		break;
	case 3:
		/* a blank inside a field's digits */
		if (row[at] >= '0' && row[at] <= '9' && row[at + 1] >= '0' && row[at + 1] <= '9')
			row[at] = ' ';
		break;
	case 4:
		row[at] = (char)(0x80 + xs() % 0x80);
		break;
	default:
		break;
	}
}

static void test_shape_same_records(void **state)
{
	struct run on, off;
	char row[512];
	size_t fast = 0;

	(void)state;
	run_init(&on, "smi-dmon", 0);
	run_init(&off, "smi-dmon", 0);
	for (int h = 0; h < 2; h++) {
		smi_dmon_row_shape = true;
		feed(&on, header[h]);
		smi_dmon_row_shape = false;
		feed(&off, header[h]);
	}
	for (int i = 0; i < 200000; i++) {
		good_row(row, sizeof(row), i / 8);
		if (i % 3)
			damage(row);
		fast += strchr(row + 22, '-') == NULL;
		smi_dmon_row_shape = true;
		feed(&on, row);
		smi_dmon_row_shape = false;
		feed(&off, row);
	}
	smi_dmon_row_shape = true;
	assert_int_equal(on.b.nr, off.b.nr);
	assert_true(on.b.nr > 150000);
	assert_true(fast > 100000);
	for (size_t k = 0; k < on.b.nr; k++) {
		const struct rec *a = &on.b.recs[k], *b = &off.b.recs[k];
		assert_int_equal(a->kind, b->kind);
		assert_int_equal(a->line, b->line);
		assert_int_equal(a->col, b->col);
		assert_int_equal(a->gpu_index, b->gpu_index);
		assert_true(a->t_ns == b->t_ns);
		assert_int_equal(a->present, b->present);
		if (a->kind == REC_SAMPLE)
			assert_memory_equal(a->v, b->v, sizeof(a->v));
		if (a->name != STR_NONE || b->name != STR_NONE)
			assert_string_equal(batch_str(&on.b, a->name), batch_str(&off.b, b->name));
	}
	run_release(&on);
	run_release(&off);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shape_same_records),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
