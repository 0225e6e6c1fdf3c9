/* SPDX-License-Identifier: MIT */
/*
 * amd-smi's boxed default view (fmt_amd_smi_table.c) on the records: a
 * GPU's two rows give one sample (index, name, draw and cap, memory), a
 * `watch` header dates it and passes its BDF on as an EV_GPU_MAP record,
 * and the Processes table gives processes with their VRAM, a name with
 * spaces taking the words the row has over the header.  The GPU rows are
 * the published RX 7800 XT view (tests/formats/amd-smi-table/); no
 * published view with a process row was found, so the process rows here
 * are written in the header's columns and amd-smi's units.
 */
#include "test.h"

#include "fmt_run.h"

static const char *const gpu_rows[] = {
	"| BDF                        GPU-Name | Mem-Uti   Temp   UEC       Power-Usage |",
	"| GPU  HIP-ID  OAM-ID  Partition-Mode | GFX-Uti    Fan               Mem-Usage |",
	"|=====================================+========================================|",
	"| 0000:03:00.0  AMD Radeon RX 7800 XT | 1 %      42 \xc2\xb0" "C   0            10/212 W |",
	"|   0       0     N/A             N/A | 1 %      0.0 %          14428/16368 MB |",
	"+-------------------------------------+----------------------------------------+",
};

static void test_watch_gpu_map(void **st)
{
	struct run r;
	const struct rec *smp = NULL, *map = NULL;

	(void)st;
	run_init(&r, "amd-smi-table", 0);
	feed(&r, "Every 2.0s: amd-smi                               host: Sun Nov 29 22:48:00 2026");
	for (size_t i = 0; i < sizeof(gpu_rows) / sizeof(gpu_rows[0]); i++)
		feed(&r, gpu_rows[i]);
	for (size_t i = 0; i < r.b.nr; i++) {
		if (r.b.recs[i].kind == REC_SAMPLE)
			smp = &r.b.recs[i];
		if (r.b.recs[i].kind == REC_EVENT && r.b.recs[i].ev == EV_GPU_MAP)
			map = &r.b.recs[i];
	}
	assert_non_null(smp);
	assert_int_equal(smp->gpu_index, 0);
	assert_int_equal(smp->time_kind, TK_ABS);
	assert_near(smp->v[M_POWER], 10, 0);
	assert_near(smp->v[M_POWER_LIMIT], 212, 0);
	assert_near(smp->v[M_MEM_USED], 14428, 0);
	assert_near(smp->v[M_MEM_TOTAL], 16368, 0);
	assert_string_equal(batch_str(&r.b, smp->name), "AMD Radeon RX 7800 XT");
	assert_non_null(map);
	assert_int_equal(map->gpu_index, 0);
	assert_string_equal(batch_str(&r.b, map->kev.pci), "0000:03:00.0");
	assert_int_equal(map->t_ns, smp->t_ns);
	run_release(&r);
}

static void test_processes(void **st)
{
	static const char *const lines[] = {
		"+------------------------------------------------------------------------------+",
		"| Processes:                                                                   |",
		"|  GPU      PID  Process Name     GTT_MEM  VRAM_MEM  MEM_USAGE   CU %     SDMA |",
		"|==============================================================================|",
		"|    0    12345  python3         128.0 MB    4.0 GB    4.1 GB    114 %      0 |",
		"|    0    12346  VLLM Engine       0.0 B     2.5 GB    2.5 GB      0 %      0 |",
		"|    1    2266127  N/A             0.0 B        N/A    1.9 GB      0 %      0 |",
		"+------------------------------------------------------------------------------+",
	};
	const struct rec *p[4];
	size_t n = 0;
	struct run r;

	(void)st;
	run_init(&r, "amd-smi-table", 0);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		feed(&r, lines[i]);
	for (size_t i = 0; i < r.b.nr && n < 4; i++)
		if (r.b.recs[i].kind == REC_PROC)
			p[n++] = &r.b.recs[i];
	assert_int_equal(r.b.bad, 0);
	assert_int_equal(n, 3);
	assert_int_equal(p[0]->pid, 12345);
	assert_string_equal(batch_str(&r.b, p[0]->name), "python3");
	assert_near(p[0]->v[2], 4096, 0);
	assert_string_equal(batch_str(&r.b, p[1]->name), "VLLM Engine");
	assert_near(p[1]->v[2], 2560, 0);
	/* VRAM_MEM N/A: unknown, not MEM_USAGE in its place */
	assert_int_equal(p[2]->gpu_index, 1);
	assert_int_equal(p[2]->name, STR_NONE);
	assert_false(p[2]->present & PF_FB);
	run_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_watch_gpu_map),
		cmocka_unit_test(test_processes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
