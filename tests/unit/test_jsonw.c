/* SPDX-License-Identifier: MIT */
/* Unit tests for util/jsonw: exact bytes of compact and pretty output. */
#include "test.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/jsonw.h"
#include "util/timeutil.h"

/* A writer over a memory FILE; out_text() closes it and returns the bytes. */
struct mem {
	char *buf;
	size_t len;
	FILE *f;
	struct jsonw w;
};

static void mem_open(struct mem *m, bool pretty)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
	jsonw_init(&m->w, m->f, pretty);
}

static const char *mem_text(struct mem *m)
{
	assert_int_equal(fclose(m->f), 0);
	m->f = NULL;
	/* every writer call must leave the nesting balanced */
	assert_int_equal(m->w.depth, 0);
	return m->buf;
}

static void mem_free(struct mem *m)
{
	free(m->buf);
}

static void test_scalars_top_level(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m, false);
	jsonw_int(&m.w, INT64_MIN);
	assert_string_equal(mem_text(&m), "-9223372036854775808");
	mem_free(&m);

	mem_open(&m, false);
	jsonw_str(&m.w, NULL);
	assert_string_equal(mem_text(&m), "null");
	mem_free(&m);

	mem_open(&m, true);
	jsonw_bool(&m.w, false);
	/* a top-level scalar gets no newline even when pretty; only containers do */
	assert_string_equal(mem_text(&m), "false");
	mem_free(&m);
}

static void test_empty_containers(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m, false);
	jsonw_obj_begin(&m.w);
	jsonw_obj_end(&m.w);
	assert_string_equal(mem_text(&m), "{}");
	mem_free(&m);

	mem_open(&m, true);
	jsonw_arr_begin(&m.w);
	jsonw_arr_end(&m.w);
	assert_string_equal(mem_text(&m), "[]\n");
	mem_free(&m);

	mem_open(&m, true);
	jsonw_obj_begin(&m.w);
	jsonw_key(&m.w, "a");
	jsonw_arr_begin(&m.w);
	jsonw_arr_end(&m.w);
	jsonw_key(&m.w, "o");
	jsonw_obj_begin(&m.w);
	jsonw_obj_end(&m.w);
	jsonw_obj_end(&m.w);
	assert_string_equal(mem_text(&m), "{\n  \"a\": [],\n  \"o\": {}\n}\n");
	mem_free(&m);
}

/* One document written twice, compact and pretty. */
static void write_doc(struct jsonw *w)
{
	jsonw_obj_begin(w);
	jsonw_kstr(w, "gpu", "H200");
	jsonw_kint(w, "index", 0);
	jsonw_knum(w, "power_w", 312.25, 2);
	jsonw_knum(w, "clock", NAN, 1);
	jsonw_kbool(w, "ok", true);
	jsonw_key(w, "none");
	jsonw_null(w);
	jsonw_ktime(w, "t", INT64_C(1795992393) * NS_PER_S + 5 * NS_PER_MS);
	jsonw_key(w, "samples");
	jsonw_arr_begin(w);
	jsonw_int(w, 1);
	jsonw_obj_begin(w);
	jsonw_kint(w, "x", -2);
	jsonw_obj_end(w);
	jsonw_arr_begin(w);
	jsonw_arr_end(w);
	jsonw_num(w, INFINITY, 3);
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

static void test_document_compact(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m, false);
	write_doc(&m.w);
	assert_string_equal(mem_text(&m),
		"{\"gpu\":\"H200\",\"index\":0,\"power_w\":312.25,\"clock\":null,\"ok\":true,"
		"\"none\":null,\"t\":\"2026-11-29T22:46:33.005Z\","
		"\"samples\":[1,{\"x\":-2},[],null]}");
	mem_free(&m);
}

static void test_document_pretty(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m, true);
	write_doc(&m.w);
	assert_string_equal(mem_text(&m),
		"{\n"
		"  \"gpu\": \"H200\",\n"
		"  \"index\": 0,\n"
		"  \"power_w\": 312.25,\n"
		"  \"clock\": null,\n"
		"  \"ok\": true,\n"
		"  \"none\": null,\n"
		"  \"t\": \"2026-11-29T22:46:33.005Z\",\n"
		"  \"samples\": [\n"
		"    1,\n"
		"    {\n"
		"      \"x\": -2\n"
		"    },\n"
		"    [],\n"
		"    null\n"
		"  ]\n"
		"}\n");
	mem_free(&m);
}

static void test_consecutive_documents(void **state)
{
	struct mem m;

	(void)state;
	/* a second top-level document after the first: no comma leaks across */
	mem_open(&m, true);
	jsonw_obj_begin(&m.w);
	jsonw_kint(&m.w, "a", 1);
	jsonw_obj_end(&m.w);
	jsonw_obj_begin(&m.w);
	jsonw_kint(&m.w, "b", 2);
	jsonw_obj_end(&m.w);
	assert_string_equal(mem_text(&m), "{\n  \"a\": 1\n}\n{\n  \"b\": 2\n}\n");
	mem_free(&m);
}

static void test_deep_nesting(void **state)
{
	struct mem m;
	char want[2 * (JSONW_MAX_DEPTH - 1) + 4];
	int n = JSONW_MAX_DEPTH - 1;	/* the deepest the writer tracks */

	(void)state;
	mem_open(&m, false);
	for (int i = 0; i < n; i++)
		jsonw_arr_begin(&m.w);
	jsonw_int(&m.w, 1);
	jsonw_int(&m.w, 2);
	for (int i = 0; i < n; i++)
		jsonw_arr_end(&m.w);
	memset(want, '[', (size_t)n);
	memcpy(want + n, "1,2", 3);
	memset(want + n + 3, ']', (size_t)n);
	want[2 * n + 3] = '\0';
	assert_string_equal(mem_text(&m), want);
	mem_free(&m);
}

static void test_escaping(void **state)
{
	struct mem m;
	static const char raw[] = "q\"b\\s/n\nr\rt\tb\bf\fnul\0e\x1f" "d\x7f" "u\xc3\xa9";

	(void)state;
	mem_open(&m, false);
	jsonw_obj_begin(&m.w);
	jsonw_key(&m.w, "k\"\n");
	jsonw_strn(&m.w, raw, sizeof(raw) - 1);
	jsonw_obj_end(&m.w);
	/* '/' and UTF-8 pass through; other controls become \u00XX, NUL included */
	assert_string_equal(mem_text(&m),
		"{\"k\\\"\\n\":\"q\\\"b\\\\s/n\\nr\\rt\\tb\\u0008f\\u000cnul\\u0000e\\u001f"
		"d\\u007fu\xc3\xa9\"}");
	mem_free(&m);

	/* jsonw_strn writes exactly n bytes, not up to a NUL */
	mem_open(&m, false);
	jsonw_strn(&m.w, "abcdef", 3);
	assert_string_equal(mem_text(&m), "\"abc\"");
	mem_free(&m);
}

/* The escaper as the JSON grammar says it, one byte at a time. */
static size_t ref_escape(char *out, const unsigned char *s, size_t n)
{
	char *o = out;

	*o++ = '"';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];
		if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = (char)c;
		} else if (c == '\n') {
			o += sprintf(o, "\\n");
		} else if (c == '\r') {
			o += sprintf(o, "\\r");
		} else if (c == '\t') {
			o += sprintf(o, "\\t");
		} else if (c < 0x20 || c == 0x7f) {
			o += sprintf(o, "\\u%04x", c);
		} else {
			*o++ = (char)c;
		}
	}
	*o++ = '"';
	return (size_t)(o - out);
}

/*
 * Random strings of every byte value, at every length and alignment around
 * the writer's eight-byte scan, and one longer than its buffer: the output
 * must equal the byte-by-byte reference.
 */
static void test_escaping_random(void **state)
{
	static unsigned char in[3 * JSONW_BUF];
	static char want[6 * sizeof(in) + 2];
	uint64_t x = 88172645463325252u;

	(void)state;
	for (int round = 0; round < 3000; round++) {
		size_t n = round < 2999 ? (size_t)(round % 41) : sizeof(in), len;
		struct mem m;
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* mostly plain text, so that long clean runs occur */
			in[i] = (x & 7) ? (unsigned char)('a' + (x >> 8) % 26) : (unsigned char)(x >> 16);
		}
		len = ref_escape(want, in, n);
		mem_open(&m, false);
		jsonw_strn(&m.w, (const char *)in, n);
		mem_text(&m);
		assert_int_equal(m.len, len);
		assert_memory_equal(m.buf, want, len);
		mem_free(&m);
	}
}

static void test_num_null(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m, false);
	jsonw_arr_begin(&m.w);
	jsonw_num(&m.w, NAN, 2);
	jsonw_num(&m.w, -INFINITY, 2);
	jsonw_num(&m.w, -0.0, 2);
	jsonw_num(&m.w, 1e-9, 3);
	jsonw_num(&m.w, 0.125, 2);
	jsonw_arr_end(&m.w);
	/* 0.125 at 2 decimals: printf rounds the exact binary value half to even */
	assert_string_equal(mem_text(&m), "[null,null,0,0,0.12]");
	mem_free(&m);
}

static void test_fmt_num(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(fmt_num(buf, sizeof(buf), 1.5, 3), "1.5");
	assert_string_equal(fmt_num(buf, sizeof(buf), 2.0, 3), "2");
	assert_string_equal(fmt_num(buf, sizeof(buf), 2.0, 0), "2");
	assert_string_equal(fmt_num(buf, sizeof(buf), -0.0, 2), "0");
	/* rounds to zero from below: "-0.00" must not become "-0" */
	assert_string_equal(fmt_num(buf, sizeof(buf), -0.001, 2), "0");
	assert_string_equal(fmt_num(buf, sizeof(buf), -0.4, 0), "0");
	assert_string_equal(fmt_num(buf, sizeof(buf), -1.25, 1), "-1.2");
	assert_string_equal(fmt_num(buf, sizeof(buf), -1.26, 1), "-1.3");
	assert_string_equal(fmt_num(buf, sizeof(buf), 100.0, 2), "100");
	assert_string_equal(fmt_num(buf, sizeof(buf), 1000000, 0), "1000000");
	assert_string_equal(fmt_num(buf, sizeof(buf), 10.50, 4), "10.5");
	assert_string_equal(fmt_num(buf, sizeof(buf), 0.000049, 4), "0");
	assert_string_equal(fmt_num(buf, sizeof(buf), 0.00005, 4), "0.0001");
	assert_string_equal(fmt_num(buf, sizeof(buf), 2.0 / 3.0, 6), "0.666667");
	assert_string_equal(fmt_num(buf, sizeof(buf), 123456789.0, 2), "123456789");
	/* only zeros after the point are trimmed, never those of the integer */
	assert_string_equal(fmt_num(buf, sizeof(buf), 1e20, 2), "100000000000000000000");
}

/*
 * BUG: fmt_num() prints "%.*f" into the caller's buffer and trims; when the
 * number does not fit, snprintf cuts it and the result is a different,
 * smaller number with no sign of the cut.  jsonw_num() uses a 64-byte buffer,
 * so 1e70 is written as 1 followed by 62 digits (a value 10^8 times too small).
 */
static void test_fmt_num_huge(void **state)
{
	char buf[64];
	double back;

	(void)state;
	fmt_num(buf, sizeof(buf), 1e70, 2);
	back = strtod(buf, NULL);
	assert_near(back / 1e70, 1.0, 1e-15);
	fmt_num(buf, sizeof(buf), -1.5e300, 3);
	back = strtod(buf, NULL);
	assert_near(back / -1.5e300, 1.0, 1e-15);
}

static void test_time(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m, false);
	jsonw_obj_begin(&m.w);
	jsonw_ktime(&m.w, "a", 0);
	jsonw_ktime(&m.w, "b", -1);
	jsonw_key(&m.w, "c");
	jsonw_time(&m.w, INT64_C(1795992393) * NS_PER_S);
	jsonw_obj_end(&m.w);
	assert_string_equal(mem_text(&m),
		"{\"a\":\"1970-01-01T00:00:00Z\",\"b\":\"1969-12-31T23:59:59.999Z\","
		"\"c\":\"2026-11-29T22:46:33Z\"}");
	mem_free(&m);
}

/* fmt_num() as printf gives it: "%.*f", zeros after the point trimmed, no "-0". */
static const char *fmt_num_printf(char *buf, size_t cap, double v, int d)
{
	char *dot;
	size_t n;

	snprintf(buf, cap, "%.*f", d, v == 0 ? 0.0 : v);
	dot = strchr(buf, '.');
	if (dot) {
		n = strlen(buf);
		while (n > 0 && buf[n - 1] == '0')
			buf[--n] = '\0';
		if (n > 0 && buf[n - 1] == '.')
			buf[--n] = '\0';
	}
	if (!strcmp(buf, "-0"))
		strcpy(buf, "0");
	return buf;
}

static uint64_t xs_state = 0x9e3779b97f4a7c15ULL;
static uint64_t xs(void)
{
	return test_xorshift(&xs_state);
}

/*
 * fmt_num()'s exact path against printf on 2.6 million numbers, 0 to 12
 * decimals: random bit patterns over the exponents it takes (subnormals to
 * 2^53 and past), decimal values k / 10^j as reports have them, and exact
 * binary ties at every decimal (k + 1/2) / 10^d, which printf rounds to
 * even; each sign.
 */
static void test_fmt_num_exact(void **state)
{
	char got[400], want[400];
	long bad = 0;

	(void)state;
	for (int i = 0; i < 2600000; i++) {
		double v;
		int d = (int)(xs() % 13), kind = i % 4;
		uint64_t r = xs();
		if (kind == 0) {
			/* any mantissa, an exponent from subnormal to 2^60 */
			uint64_t ex = xs() % 1100;
			uint64_t bits = (r & ((UINT64_C(1) << 52) - 1)) | ((ex > 1083 ? 1083 : ex) << 52);
			memcpy(&v, &bits, sizeof(v));
		} else if (kind == 1) {
			v = (double)(r % 100000000) / pow(10, (double)(xs() % 10));
		} else if (kind == 2) {
			double scale = pow(10, d);
			v = ((double)(r % 2000000) + 0.5) / scale;	/* a tie when exact in binary */
		} else {
			v = ldexp((double)(r % 4096) + 0.5, -(int)(xs() % 12));	/* exact binary ties */
		}
		if (r & (UINT64_C(1) << 63))
			v = -v;
		fmt_num(got, sizeof(got), v, d);
		fmt_num_printf(want, sizeof(want), v, d);
		if (strcmp(got, want)) {
			if (bad++ < 5)
				print_error("v=%a d=%d got %s want %s\n", v, d, got, want);
		}
	}
	assert_int_equal(bad, 0);
}

/* A value formatted by the caller with jsonw_indent's text, in an array of
 * objects: the same bytes as the calls, compact and pretty. */
static void test_raw_value(void **state)
{
	(void)state;
	for (int pretty = 0; pretty < 2; pretty++) {
		struct mem a, b;
		char raw[256];
		size_t nin, nout, n = 0;
		const char *in, *out;

		mem_open(&a, pretty);
		jsonw_obj_begin(&a.w);
		jsonw_key(&a.w, "list");
		jsonw_arr_begin(&a.w);
		for (int i = 0; i < 2; i++) {
			jsonw_obj_begin(&a.w);
			jsonw_kint(&a.w, "k", i);
			jsonw_kstr(&a.w, "s", "v");
			jsonw_obj_end(&a.w);
		}
		jsonw_arr_end(&a.w);
		jsonw_obj_end(&a.w);

		mem_open(&b, pretty);
		jsonw_obj_begin(&b.w);
		jsonw_key(&b.w, "list");
		jsonw_arr_begin(&b.w);
		for (int i = 0; i < 2; i++) {
			in = jsonw_indent(&b.w, b.w.depth + 1, &nin);
			out = jsonw_indent(&b.w, b.w.depth, &nout);
			n = (size_t)snprintf(raw, sizeof(raw), "{%.*s\"k\":%s%d,%.*s\"s\":%s\"v\"%.*s}",
					     (int)nin, in, pretty ? " " : "", i, (int)nin, in,
					     pretty ? " " : "", (int)nout, out);
			jsonw_raw_value(&b.w, raw, n);
		}
		jsonw_arr_end(&b.w);
		jsonw_obj_end(&b.w);

		assert_string_equal(mem_text(&a), mem_text(&b));
		if (pretty)
			assert_string_equal(a.buf, "{\n  \"list\": [\n    {\n      \"k\": 0,\n      \"s\": \"v\"\n    },"
						   "\n    {\n      \"k\": 1,\n      \"s\": \"v\"\n    }\n  ]\n}\n");
		else
			assert_string_equal(a.buf, "{\"list\":[{\"k\":0,\"s\":\"v\"},{\"k\":1,\"s\":\"v\"}]}");
		mem_free(&a);
		mem_free(&b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scalars_top_level),
		cmocka_unit_test(test_empty_containers),
		cmocka_unit_test(test_document_compact),
		cmocka_unit_test(test_document_pretty),
		cmocka_unit_test(test_consecutive_documents),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_escaping_random),
		cmocka_unit_test(test_num_null),
		cmocka_unit_test(test_fmt_num),
		cmocka_unit_test(test_fmt_num_huge),
		cmocka_unit_test(test_fmt_num_exact),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_raw_value),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
