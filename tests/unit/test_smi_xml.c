/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the smi-xml stream format: concatenated nvidia-smi -q -x
 * documents fed in pieces cut anywhere (1 byte, odd sizes, whole) must give
 * the same records, with the values the generator wrote, the lines it
 * counted, and one report for the document that was cut short.
 */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/format.h"
#include "util/xalloc.h"

extern const struct format format_smi_xml;

#define NDOC 5
/* 2026-11-29T22:46:00Z (python: calendar.timegm((2026, 11, 29, 22, 46, 0))) */
#define T0_S INT64_C(1795992360)

struct text {
	char *p;
	size_t n, cap;
	unsigned lines;		/* newlines written so far */
};

static void put(struct text *t, const char *s)
{
	size_t n = strlen(s);
	ALLOC_GROW(t->p, t->n + n + 1, t->cap);
	memcpy(t->p + t->n, s, n + 1);
	t->n += n;
	for (size_t i = 0; i < n; i++)
		t->lines += s[i] == '\n';
}

/* What the generator wrote, to compare with. */
struct want {
	unsigned gpu_line[NDOC][2];	/* line of each <gpu ...> */
	unsigned proc_line[NDOC];
	unsigned cut_line;		/* line of the <?xml that cuts the damaged document */
	unsigned cut_col;
	unsigned lines;
};

static void doc(struct text *t, struct want *w, int k)
{
	char buf[512];

	put(t, "<?xml version=\"1.0\" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v12.dtd\">\n");
	put(t, "<nvidia_smi_log>\n");
	snprintf(buf, sizeof(buf), "\t<timestamp>Sun Nov 29 22:46:%02d 2026</timestamp>\n", k * 5);
	put(t, buf);
	for (int g = 0; g < 2; g++) {
		w->gpu_line[k][g] = t->lines + 1;
		snprintf(buf, sizeof(buf),
			 "\t<gpu id=\"00000000:%02d:00.0\">\n\t\t<uuid>GPU-%d</uuid>\n"
			 "\t\t<utilization>\n\t\t\t<gpu_util>%d %%</gpu_util>\n\t\t</utilization>\n",
			 g + 1, g, g * 40 + 10 + k);
		put(t, buf);
		if (k % 2)	/* old tags */
			snprintf(buf, sizeof(buf), "\t\t<power_readings><power_draw>%d.50 W</power_draw></power_readings>\n",
				 100 + k);
		else		/* v13: no power_draw */
			snprintf(buf, sizeof(buf), "\t\t<gpu_power_readings><average_power_draw>%d.50 W</average_power_draw>"
				 "<instant_power_draw>1.00 W</instant_power_draw></gpu_power_readings>\n", 100 + k);
		put(t, buf);
		if (g == 0) {
			put(t, "\t\t<processes>\n");
			w->proc_line[k] = t->lines + 1;
			snprintf(buf, sizeof(buf), "\t\t\t<process_info><pid>%d</pid><process_name>p%d</process_name>"
				 "<used_memory>%d MiB</used_memory></process_info>\n\t\t</processes>\n",
				 100 + k, k, k * 10);
			put(t, buf);
		}
		put(t, "\t</gpu>\n");
	}
	put(t, "</nvidia_smi_log>\n");
}

static void gen(struct text *t, struct want *w)
{
	memset(t, 0, sizeof(*t));
	memset(w, 0, sizeof(*w));
	for (int k = 0; k < NDOC; k++) {
		doc(t, w, k);
		if (k == 2) {
			/* a poll killed mid-write: the next <?xml comes inside <gpu> */
			put(t, "<?xml version=\"1.0\" ?>\n<nvidia_smi_log>\n\t<gpu id=\"x\">\n\t\t<uuid>GPU-cut");
			w->cut_line = t->lines + 1;
			w->cut_col = 16;	/* after "\t\t<uuid>GPU-cut" (15 bytes) */
		}
	}
	w->lines = t->lines;
}

static void feed(const struct text *t, size_t piece, struct batch *b, uint64_t *lines)
{
	struct ingest_opts o;
	struct parse_ctx ctx;
	void *state = xcalloc(1, format_smi_xml.state_size);

	memset(&o, 0, sizeof(o));
	memset(b, 0, sizeof(*b));
	for (int i = 0; i < 4; i++)
		b->last_str[i] = STR_NONE;
	memset(&ctx, 0, sizeof(ctx));
	ctx.opts = &o;
	ctx.src = "t.xml";
	ctx.state = state;
	ctx.out = b;
	ctx.line = 1;
	format_smi_xml.init(state, &o);
	for (size_t at = 0; at < t->n; at += piece) {
		size_t n = t->n - at < piece ? t->n - at : piece;
		format_smi_xml.stream(&ctx, t->p + at, n, false);
	}
	format_smi_xml.stream(&ctx, "", 0, true);
	*lines = ctx.line;
	format_smi_xml.fini(state);
	free(state);
}

static void test_pieces(void **st)
{
	static const size_t pieces[] = { 1, 3, 17, 4096, (size_t)1 << 30 };
	struct text t;
	struct want w;

	(void)st;
	setenv("TZ", "UTC", 1);
	tzset();
	gen(&t, &w);
	for (size_t p = 0; p < sizeof(pieces) / sizeof(pieces[0]); p++) {
		struct batch b;
		uint64_t lines;
		size_t s = 0, pr = 0, bad = 0;

		feed(&t, pieces[p], &b, &lines);
		assert_int_equal(lines, w.lines);
		for (size_t i = 0; i < b.nr; i++) {
			const struct rec *r = &b.recs[i];
			if (r->kind == REC_BAD) {
				assert_int_equal(r->line, w.cut_line);
				assert_int_equal(r->col, w.cut_col);
				bad++;
				continue;
			}
			assert_int_equal(r->time_kind, TK_ABS);
			if (r->kind == REC_SAMPLE) {
				int k = (int)(s / 2), g = (int)(s % 2);
				char uuid[16];
				snprintf(uuid, sizeof(uuid), "GPU-%d", g);
				assert_int_equal(r->t_ns, (T0_S + 5 * k) * INT64_C(1000000000));
				assert_int_equal(r->gpu_index, g);
				assert_int_equal(r->line, w.gpu_line[k][g]);
				assert_string_equal(batch_str(&b, r->uuid), uuid);
				assert_true(r->present & (1u << M_UTIL_GPU));
				assert_near(r->v[M_UTIL_GPU], g * 40 + 10 + k, 0);
				/* power_draw, else average_power_draw: never the instant 1.00 */
				assert_near(r->v[M_POWER], 100 + k + 0.5, 1e-9);
				assert_false(r->present & (1u << M_MEM_USED));
				s++;
			} else {
				int k = (int)pr;
				assert_int_equal(r->kind, REC_PROC);
				assert_int_equal(r->pid, 100 + k);
				assert_int_equal(r->gpu_index, 0);
				assert_int_equal(r->line, w.proc_line[k]);
				assert_true(r->present & PF_FB);
				assert_near(r->v[2], k * 10, 0);
				pr++;
			}
		}
		assert_int_equal(s, 2 * NDOC);
		assert_int_equal(pr, NDOC);
		assert_int_equal(bad, 1);
		free(b.recs);
		free(b.strs);
	}
	free(t.p);
}

/* A file that ends inside a document: the documents before it are kept. */
static void test_cut_at_end(void **st)
{
	struct text t;
	struct want w;
	struct batch b;
	uint64_t lines;
	size_t samples = 0, bad = 0;

	(void)st;
	gen(&t, &w);
	t.n -= 40;	/* into the last document's second <gpu> */
	feed(&t, 100, &b, &lines);
	for (size_t i = 0; i < b.nr; i++) {
		samples += b.recs[i].kind == REC_SAMPLE;
		bad += b.recs[i].kind == REC_BAD;
	}
	assert_int_equal(samples, 2 * (NDOC - 1));
	assert_int_equal(bad, 2);	/* the cut in the middle and the cut at the end */
	assert_non_null(strstr(batch_str(&b, b.recs[b.nr - 1].name), "the file ends inside the document"));
	free(b.recs);
	free(b.strs);
	free(t.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_cut_at_end),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
