/* SPDX-License-Identifier: MIT */
/* Unit tests for cost/catalog: a cloud catalogue's CSV, its bad rows, and the rate picked per GPU model. */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cost/catalog.h"
#include "util/err.h"

static char tmpdir[64];

/* Write text to a file of that name in a fresh directory; returns its path (static). */
static const char *file_of(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof(tmpdir), "/tmp/gputally-catalog-XXXXXX");
		assert_non_null(mkdtemp(tmpdir));
	}
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void real_catalogue_h200(void **state)
{
	struct cloud_catalog c;
	struct catalog_pick p;
	struct gl_err err;
	(void)state;

	/* the whole of SkyPilot's Nebius vms.csv (tests/catalog/README.md), CRLF line ends */
	assert_int_equal(catalog_load(&c, "tests/catalog/nebius-vms.csv", &err), 0);
	assert_int_equal(c.nlines, 61);
	assert_int_equal(c.nrows, 21);	/* 2 H100, 6 H200, 12 L40S, 1 B200; CPU rows have no accelerator */
	assert_int_equal(c.nbad, 0);
	assert_int_equal(catalog_pick(&c, "NVIDIA H200", &p), 0);
	assert_string_equal(p.accel, "H200");
	assert_int_equal(p.nrows, 6);
	assert_true(fabs(p.median - 3.5) < 1e-9 && fabs(p.min - 3.5) < 1e-9 && fabs(p.max - 3.5) < 1e-9);
	/* L40S, by hand: the 12 per-GPU rates sorted (4.5688/2 = 2.2844,
	 * 5.5032/2 = 2.7516, 9.1376/4 = 2.2844, 11.0064/4 = 2.7516):
	 * 1.5484 1.7468 1.8172 1.9452 2.1436 2.2844 2.2844 2.2844 2.342 2.7516 2.7516 2.7516,
	 * median (2.2844 + 2.2844) / 2 */
	assert_int_equal(catalog_pick(&c, "NVIDIA L40S", &p), 0);
	assert_int_equal(p.nrows, 12);
	assert_true(fabs(p.median - 2.2844) < 1e-9);
	assert_true(fabs(p.min - 1.5484) < 1e-9 && fabs(p.max - 2.7516) < 1e-9);
	assert_int_equal(catalog_pick(&c, "NVIDIA A100-SXM4-80GB", &p), -1);
	assert_int_equal(catalog_pick(&c, "", &p), -1);
	catalog_free(&c);
}

static void quoted_fields_and_near_names(void **state)
{
	struct cloud_catalog c;
	struct catalog_pick p;
	struct gl_err err;
	(void)state;

	assert_int_equal(catalog_load(&c, "tests/catalog/lambda-vms-excerpt.csv", &err), 0);
	assert_int_equal(c.nbad, 0);
	assert_int_equal(catalog_pick(&c, "NVIDIA H100 80GB HBM3", &p), 0);
	assert_string_equal(p.accel, "H100");
	assert_true(fabs(p.median - 31.92 / 8) < 1e-9);
	/* GH200 is not an H200, and an H200 is not a GH200 */
	assert_int_equal(catalog_pick(&c, "NVIDIA H200", &p), -1);
	assert_int_equal(catalog_pick(&c, "NVIDIA GH200 480GB", &p), 0);
	assert_string_equal(p.accel, "GH200");
	/* two rows: the median of an even count is the mean of the middle two */
	assert_int_equal(catalog_pick(&c, "NVIDIA B200", &p), 0);
	assert_true(fabs(p.median - (6.99 + 53.52 / 8) / 2) < 1e-9);
	catalog_free(&c);
}

static void the_most_specific_name_wins(void **state)
{
	struct cloud_catalog c;
	struct catalog_pick p;
	struct gl_err err;
	(void)state;

	assert_int_equal(catalog_load(&c, file_of("aws.csv",
		"InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region\n"
		"p4d.24xlarge,A100,8,96,1152,,32.7726,,us-east-1\n"
		"p4de.24xlarge,A100-80GB,8,96,1152,,40.9657,,us-east-1\n"
		"p4de.24xlarge,A100-80GB,8,96,1152,,,,us-west-2\n"
		"p4de.24xlarge,A100-80GB,8,96,1152,,0,,us-west-1\n"), &err), 0);
	assert_int_equal(c.no_price, 2);
	assert_int_equal(catalog_pick(&c, "NVIDIA A100-SXM4-80GB", &p), 0);
	assert_string_equal(p.accel, "A100-80GB");
	assert_int_equal(p.nrows, 1);
	assert_true(fabs(p.median - 40.9657 / 8) < 1e-9);
	assert_int_equal(catalog_pick(&c, "NVIDIA A100-SXM4-40GB", &p), 0);
	assert_string_equal(p.accel, "A100");
	catalog_free(&c);
}

static void bad_rows_say_where(void **state)
{
	struct cloud_catalog c;
	struct gl_err err;
	(void)state;

	assert_int_equal(catalog_load(&c, file_of("bad-rows.csv",
		"InstanceType,AcceleratorName,AcceleratorCount,Price,Region\n"
		"a,H200,1,3.5,eu\n"
		"b,H200,one,3.5,eu\n"
		"c,H200,8,twenty,eu\n"
		"d,H200,8,28\n"
		"\"e,H200,1,3.5,eu\n"
		"f,H200,0,3.5,eu\n"
		"g,H200,1,-2,eu\n"), &err), 0);
	assert_int_equal(c.nrows, 1);
	assert_int_equal(c.nbad, 6);	/* the first 5 are kept */
	assert_int_equal(c.bad[0].line, 3);
	assert_int_equal(c.bad[0].col, 8);
	assert_non_null(strstr(c.bad[0].msg, "AcceleratorCount"));
	assert_int_equal(c.bad[1].line, 4);
	assert_int_equal(c.bad[1].col, 10);
	assert_non_null(strstr(c.bad[1].msg, "Price"));
	assert_int_equal(c.bad[2].line, 5);
	assert_non_null(strstr(c.bad[2].msg, "4 fields where the header has 5"));
	assert_int_equal(c.bad[3].line, 6);
	assert_int_equal(c.bad[3].col, 1);
	assert_non_null(strstr(c.bad[3].msg, "quoted field"));
	assert_int_equal(c.bad[4].line, 7);
	assert_string_equal(c.bad[4].src, c.path);
	catalog_free(&c);
}

static void not_a_catalogue(void **state)
{
	struct cloud_catalog c;
	struct gl_err err;
	(void)state;

	assert_int_equal(catalog_load(&c, file_of("prices.csv", "model,price\nH200,3.5\n"), &err), GL_EPARSE);
	assert_int_equal(err.line, 1);
	assert_int_equal(err.col, 1);
	assert_non_null(strstr(err.msg, "no AcceleratorName column"));
	assert_int_equal(catalog_load(&c, file_of("empty.csv", ""), &err), GL_EPARSE);
	assert_non_null(strstr(err.msg, "empty"));
	assert_int_equal(catalog_load(&c, file_of("cpus.csv", "InstanceType,AcceleratorName,AcceleratorCount,Price\n"
						      "m5.large,,,0.096\n"), &err), GL_EPARSE);
	assert_non_null(strstr(err.msg, "no row with an accelerator"));
	assert_int_equal(catalog_load(&c, "/nonexistent/vms.csv", &err), GL_EIO);
}

static void the_date_comes_from_the_name(void **state)
{
	struct cloud_catalog c;
	struct gl_err err;
	static const char t[] = "InstanceType,AcceleratorName,AcceleratorCount,Price\nx,H200,1,3.5\n";
	(void)state;

	assert_int_equal(catalog_load(&c, file_of("vms-2025-06-01.csv", t), &err), 0);
	assert_string_equal(c.date, "2025-06-01");
	assert_string_equal(c.date_from, "file name");
	assert_string_equal(c.name, "vms-2025-06-01.csv");
	catalog_free(&c);
	assert_int_equal(catalog_load(&c, file_of("vms.csv", t), &err), 0);
	assert_string_equal(c.date_from, "file time");
	assert_int_equal(strlen(c.date), 10);
	catalog_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(real_catalogue_h200),
		cmocka_unit_test(quoted_fields_and_near_names),
		cmocka_unit_test(the_most_specific_name_wins),
		cmocka_unit_test(bad_rows_say_where),
		cmocka_unit_test(not_a_catalogue),
		cmocka_unit_test(the_date_comes_from_the_name),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[128];
	if (tmpdir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			rc = rc ? rc : 1;
	}
	return rc;
}
