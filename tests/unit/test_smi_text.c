/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the nvidia-smi text formats that people paste (issue 36):
 * `nvidia-smi -q` documents, built from the real H200 dump with two GPUs and
 * a utilization that changes per poll, fed in pieces cut anywhere, must give
 * the same records whatever the cut; and the capture's pasted files must be
 * sniffed as what they are.
 */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/driver.h"
#include "util/xalloc.h"

#define NDOC 6
/* 2026-11-29T22:46:33Z, the dump's own Timestamp */
#define T0_S INT64_C(1795992393)

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *p;
	long len;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	assert_true(len > 0);
	rewind(f);
	p = xmalloc((size_t)len + 1);
	assert_int_equal(fread(p, 1, (size_t)len, f), (size_t)len);
	p[len] = '\0';
	fclose(f);
	*n = (size_t)len;
	return p;
}

struct text {
	char *p;
	size_t n, cap;
};

static void put(struct text *t, const char *s, size_t n)
{
	ALLOC_GROW(t->p, t->n + n + 1, t->cap);
	memcpy(t->p + t->n, s, n);
	t->n += n;
	t->p[t->n] = '\0';
}

/* The dump with two GPU blocks (uuids GPU-0, GPU-1) and GPU utilization 10k + g. */
static void put_doc(struct text *t, const char *dump, int k)
{
	const char *gpu = strstr(dump, "GPU 00000000:00:06.0\n");
	char line[160];

	assert_non_null(gpu);
	put(t, dump, (size_t)(gpu - dump));
	for (int g = 0; g < 2; g++) {
		for (const char *p = gpu; *p;) {
			const char *nl = strchr(p, '\n');
			size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
			if (strstr(p, "        GPU                     ") == p) {
				snprintf(line, sizeof(line), "        GPU %*s: %d %%\n", 43, "",
					 10 * k + g);
				put(t, line, strlen(line));
			} else if (strstr(p, "    GPU UUID ") == p) {
				snprintf(line, sizeof(line), "    GPU UUID %*s: GPU-%d\n", 38, "", g);
				put(t, line, strlen(line));
			} else {
				put(t, p, n);
			}
			p += n;
		}
	}
}

static void gen(struct text *t)
{
	size_t n;
	char *dump = slurp("tests/formats/smi-q/y_h200_start.txt", &n);

	char *at = strstr(dump, "Sun Nov 29 22:46:33 2026");

	assert_non_null(at);
	memset(t, 0, sizeof(*t));
	for (int k = 0; k < NDOC; k++) {
		char ts[32];
		snprintf(ts, sizeof(ts), "Sun Nov 29 22:46:%02d 2026", 33 + 5 * k);
		memcpy(at, ts, strlen(ts));
		put_doc(t, dump, k);
	}
	free(dump);
}

static void feed(const struct format *f, const struct text *t, size_t piece, struct batch *b)
{
	struct ingest_opts o;
	struct parse_ctx ctx;
	void *state = xcalloc(1, f->state_size);

	memset(&o, 0, sizeof(o));
	memset(b, 0, sizeof(*b));
	for (int i = 0; i < 4; i++)
		b->last_str[i] = STR_NONE;
	memset(&ctx, 0, sizeof(ctx));
	ctx.opts = &o;
	ctx.src = "t.txt";
	ctx.state = state;
	ctx.out = b;
	if (f->init)
		f->init(state, &o);
	for (size_t at = 0; at < t->n; at += piece) {
		size_t n = t->n - at < piece ? t->n - at : piece;
		f->stream(&ctx, t->p + at, n, false);
	}
	f->stream(&ctx, "", 0, true);
	f->fini(state);
	free(state);
}

static void test_q_pieces(void **st)
{
	static const size_t pieces[] = { 1, 3, 17, 4096, (size_t)1 << 30 };
	const struct format *f = format_find("smi-q");
	struct text t;
	uint64_t lines[2 * NDOC] = { 0 };

	(void)st;
	assert_non_null(f);
	setenv("TZ", "UTC", 1);
	tzset();
	gen(&t);
	for (size_t p = 0; p < sizeof(pieces) / sizeof(pieces[0]); p++) {
		struct batch b;
		feed(f, &t, pieces[p], &b);
		assert_int_equal(b.nr, 2 * NDOC);
		for (size_t i = 0; i < b.nr; i++) {
			const struct rec *r = &b.recs[i];
			int k = (int)i / 2, g = (int)i % 2;
			char uuid[16];
			assert_int_equal(r->kind, REC_SAMPLE);
			assert_int_equal(r->time_kind, TK_ABS);
			assert_int_equal(r->t_ns, (T0_S + 5 * k) * INT64_C(1000000000));
			assert_int_equal(r->gpu_index, g);
			snprintf(uuid, sizeof(uuid), "GPU-%d", g);
			assert_string_equal(batch_str(&b, r->uuid), uuid);
			assert_near(r->v[M_UTIL_GPU], 10 * k + g, 0);
			assert_near(r->v[M_MEM_RESERVED], 616, 0);
			assert_near(r->v[M_PCIE_WIDTH_MAX], 16, 0);
			assert_near(r->v[M_POWER], 127.81, 1e-9);
			/* Retired Pages are N/A on the H200: unknown, not 0 */
			assert_false(r->present & (1u << M_RETIRED_PAGES));
			if (p == 0)
				lines[i] = r->line;
			assert_int_equal(r->line, lines[i]);
		}
		free(b.recs);
		free(b.strs);
	}
	free(t.p);
}

/* The capture's pasted files that were "not a recognised format". */
static void test_sniff_capture(void **st)
{
	static const struct {
		const char *path, *id;
	} files[] = {
		{ "tests/formats/smi-q/y_h200_start.txt", "smi-q" },
		{ "tests/formats/smi-q/y_h200_pids.txt", "smi-q" },
		{ "tests/formats/smi-table/y_basic.txt", "smi-table" },
		{ "tests/formats/smi-table/y_h200_idle.txt", "smi-table" },
		{ "tests/formats/smi-table/y_gtx680_331_3gpu.txt", "smi-table" },
		{ "tests/formats/dev-holders/y_basic.txt", "dev-holders" },
		{ "tests/formats/dev-holders/y_fuser_v.txt", "dev-holders" },
		{ "tests/formats/dev-holders/y_ls_proc_fd.txt", "dev-holders" },
		{ "tests/formats/dev-holders/y_maps.txt", "dev-holders" },
		{ "tests/formats/dev-holders/y_lsof.txt", "dev-holders" },
		{ "tests/formats/gpustat/y_basic.txt", "gpustat" },
		{ "tests/formats/gpustat/y_mock_full_process.txt", "gpustat" },
		{ "tests/formats/dcgmi-dmon/y_basic.txt", "dcgmi-dmon" },
		{ "tests/formats/rocm-smi/y_basic.txt", "rocm-smi" },
		{ "tests/formats/rocm-smi-json/y_mi100_rocm602_4gpu.json", "rocm-smi-json" },
		{ "tests/formats/rocm-smi-json/y_showpids_mi300x.json", "rocm-smi-json" },
		{ "tests/formats/rocm-smi-pids/y_basic.txt", "rocm-smi-pids" },
		{ "tests/formats/rocm-smi-pids/y_details_mi50.txt", "rocm-smi-pids" },
		{ "tests/formats/rocm-smi-pids/y_unknown_gmx_mpi.txt", "rocm-smi-pids" },
		{ "tests/formats/rocm-smi-pids/y_kfd_open_no_gpu.txt", "rocm-smi-pids" },
		{ "tests/formats/rocm-smi-pids/y_pidgpus.txt", "rocm-smi-pids" },
		{ "tests/formats/amd-smi-monitor/y_basic.txt", "amd-smi-monitor" },
		{ "tests/formats/amd-smi-monitor/y_rocm61_v710.txt", "amd-smi-monitor" },
		{ "tests/formats/amd-smi-monitor/y_xcp_cpx_mi300x.txt", "amd-smi-monitor" },
		{ "tests/formats/amd-smi-monitor/y_gtt_usage_mi300a.txt", "amd-smi-monitor" },
		{ "tests/formats/amd-smi-monitor/y_vram_only.txt", "amd-smi-monitor" },
		{ "tests/formats/amd-smi-monitor/y_watch_timestamp_8gpu.txt", "amd-smi-monitor" },
		{ "tests/formats/amd-smi-table/y_basic.txt", "amd-smi-table" },
		{ "tests/formats/amd-smi-table/y_rx7800xt_amdsmi26.txt", "amd-smi-table" },
		{ "tests/formats/amd-smi/y_process_rocm7_doc.txt", "amd-smi" },
	};

	(void)st;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		size_t n;
		char *p = slurp(files[i].path, &n);
		const struct format *f = format_sniff(p, n, files[i].path, NULL);
		assert_non_null(f);
		assert_string_equal(f->id, files[i].id);
		free(p);
	}
}

/* Lines of a table fed to smi-table's line(): the records it made. */
static void table_lines(const char *const *lines, size_t n, struct batch *b)
{
	const struct format *f = format_find("smi-table");
	struct ingest_opts o;
	struct parse_ctx ctx;
	void *state;

	assert_non_null(f);
	state = xcalloc(1, f->state_size);
	memset(&o, 0, sizeof(o));
	memset(b, 0, sizeof(*b));
	for (int i = 0; i < 4; i++)
		b->last_str[i] = STR_NONE;
	memset(&ctx, 0, sizeof(ctx));
	ctx.opts = &o;
	ctx.src = "t.txt";
	ctx.state = state;
	ctx.out = b;
	f->init(state, &o);
	for (size_t i = 0; i < n; i++) {
		ctx.line = i + 1;
		f->line(&ctx, lines[i], strlen(lines[i]));
	}
	free(state);
}

/*
 * A `watch nvidia-smi` redraw: the date is at the end of watch's header, and
 * a second redraw with other figures gets its own time.  The rows are the
 * capture's (smi_default_mid.txt); the header is the shape watch prints.
 */
static void test_table_watch(void **st)
{
	static const char *const lines[] = {
		"Every 1.0s: nvidia-smi                              vm: Sun Nov 29 22:47:13 2026",
		"",
		"+-----------------------------------------------------------------------------------------+",
		"| NVIDIA-SMI 580.159.04             Driver Version: 580.159.04     CUDA Version: 13.0     |",
		"+-----------------------------------------+------------------------+----------------------+",
		"| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
		"| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
		"|                                         |                        |               MIG M. |",
		"|=========================================+========================+======================|",
		"|   0  NVIDIA H200                    On  |   00000000:00:06.0 Off |                    0 |",
		"| N/A   55C    P0            599W /  700W |    9497MiB / 143771MiB |     92%      Default |",
		"|                                         |                        |             Disabled |",
		"+-----------------------------------------+------------------------+----------------------+",
		"Every 1.0s: nvidia-smi                              vm: Sun Nov 29 22:47:14 2026",
		"+-----------------------------------------------------------------------------------------+",
		"| NVIDIA-SMI 580.159.04             Driver Version: 580.159.04     CUDA Version: 13.0     |",
		"+-----------------------------------------+------------------------+----------------------+",
		"| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
		"| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
		"|                                         |                        |               MIG M. |",
		"|=========================================+========================+======================|",
		"|   0  NVIDIA H200                    On  |   00000000:00:06.0 Off |                    0 |",
		"| N/A   56C    P0            620W /  700W |    9497MiB / 143771MiB |     99%      Default |",
		"|                                         |                        |             Disabled |",
		"+-----------------------------------------+------------------------+----------------------+",
	};
	struct batch b;

	(void)st;
	setenv("TZ", "UTC", 1);
	tzset();
	table_lines(lines, sizeof(lines) / sizeof(lines[0]), &b);
	assert_int_equal(b.nr, 2);
	for (int i = 0; i < 2; i++) {
		const struct rec *r = &b.recs[i];
		assert_int_equal(r->kind, REC_SAMPLE);
		assert_int_equal(r->time_kind, TK_ABS);
		assert_int_equal(r->t_ns, (T0_S + 40 + i) * INT64_C(1000000000));
		assert_int_equal(r->gpu_index, 0);
		assert_string_equal(batch_str(&b, r->name), "NVIDIA H200");
		assert_near(r->v[M_UTIL_GPU], i ? 99 : 92, 0);
		assert_near(r->v[M_POWER], i ? 620 : 599, 0);
		assert_near(r->v[M_MEM_USED], 9497, 0);
		/* fan N/A: unknown, not 0 */
		assert_false(r->present & (1u << M_FAN));
	}
	free(b.recs);
	free(b.strs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_q_pieces),
		cmocka_unit_test(test_sniff_capture),
		cmocka_unit_test(test_table_watch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
