/* SPDX-License-Identifier: MIT */
/*
 * Files that are no format are named for what they are (issue 36): each
 * file of tests/identify/ (the H200 capture's /proc, /sys, --help and
 * nvidia-smi -L / topo files, published lspci output) is sniffed as no
 * format, and format_identify() names it; a file it does not know stays
 * "not recognised" (NULL), never a wrong name.
 */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/driver.h"
#include "formats/identify.h"
#include "util/xalloc.h"

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *p = xmalloc(65536 + 1);

	assert_non_null(f);
	*n = fread(p, 1, 65536, f);
	p[*n] = '\0';
	fclose(f);
	return p;
}

static void test_capture_files(void **st)
{
	static const struct {
		const char *file, *want;
	} cases[] = {
		{ "help_pmon.txt", "a --help text: not telemetry" },
		{ "amd_smi_static_limit.txt", "amd-smi output other than metric" },
		{ "help_query_apps.txt", "a --help text (nvidia-smi's list of query fields)" },
		{ "smi_L.txt", "nvidia-smi -L output" },
		{ "smi_topo.txt", "nvidia-smi topo -m output" },
		{ "dev_nvidia.txt", "ls -l /dev/nvidia*" },
		{ "proc_modules.txt", "/proc/modules" },
		{ "proc_driver_version.txt", "/proc/driver/nvidia/version" },
		{ "proc_gpus_info.txt", "/proc/driver/nvidia/gpus/*/information" },
		{ "sys_uname.txt", "uname -a" },
		{ "sys_pci.txt", "a PCI device list" },
		{ "sys_module_nvidia_version.txt", "a bare version number" },
		{ "smi_query_cost_s.txt", "a column of bare numbers" },
		{ "nvml_latency.json", "a JSON document in no format" },
		{ "lspci_d_03xx.txt", "looks like lspci output: not telemetry" },
		{ "lspci_v_mbp2016.txt", "looks like lspci output: not telemetry" },
	};

	(void)st;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[256];
		size_t n;
		char *p;
		const char *what;

		snprintf(path, sizeof(path), "tests/identify/%s", cases[i].file);
		p = slurp(path, &n);
		if (format_sniff(p, n, cases[i].file, NULL))
			fail_msg("%s: sniffed as %s", cases[i].file,
				 format_sniff(p, n, cases[i].file, NULL)->id);
		what = format_identify(p, n, cases[i].file);
		if (!what || !strstr(what, cases[i].want))
			fail_msg("%s: named \"%s\", want \"%s\"", cases[i].file, what ? what : "(null)",
				 cases[i].want);
		free(p);
	}
}

/* Text gputally knows nothing of stays unnamed: no guess. */
static void test_unknown(void **st)
{
	static const char *const texts[] = {
		"hello\nworld\n",
		"time,task_id,gpu_id\n",
		"    indented prose that\n    is no lspci detail\n",
	};

	(void)st;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		assert_null(format_identify(texts[i], strlen(texts[i]), "notes.txt"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_files),
		cmocka_unit_test(test_unknown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
