/* SPDX-License-Identifier: MIT */
#include "util/jsonw.h"

#include <math.h>
#include <string.h>

#include "util/timeutil.h"

void jsonw_init(struct jsonw *w, FILE *out, bool pretty)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->pretty = pretty;
}

static void newline(struct jsonw *w)
{
	if (!w->pretty)
		return;
	static const char spaces[2 * JSONW_MAX_DEPTH + 1] =
		"                                                                ";
	putc_unlocked('\n', w->out);
	fwrite_unlocked(spaces, 1, (size_t)(2 * w->depth), w->out);
}

static void before_value(struct jsonw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth > 0) {
		if (w->need_comma[w->depth])
			fputc(',', w->out);
		w->need_comma[w->depth] = true;
		newline(w);
	}
}

static void open(struct jsonw *w, char c)
{
	before_value(w);
	fputc(c, w->out);
	if (w->depth < JSONW_MAX_DEPTH - 1)
		w->depth++;
	w->need_comma[w->depth] = false;
}

static void close(struct jsonw *w, char c)
{
	bool had = w->need_comma[w->depth];
	if (w->depth > 0)
		w->depth--;
	if (had)
		newline(w);
	fputc(c, w->out);
	if (w->depth == 0 && w->pretty)
		fputc('\n', w->out);
}

void jsonw_obj_begin(struct jsonw *w) { open(w, '{'); }
void jsonw_obj_end(struct jsonw *w) { close(w, '}'); }
void jsonw_arr_begin(struct jsonw *w) { open(w, '['); }
void jsonw_arr_end(struct jsonw *w) { close(w, ']'); }

static void put_escaped(FILE *out, const char *s, size_t n);

void jsonw_key(struct jsonw *w, const char *key)
{
	before_value(w);
	put_escaped(w->out, key, strlen(key));
	fputs(w->pretty ? ": " : ":", w->out);
	w->after_key = true;	/* the next value belongs to this key */
}

static void put_escaped(FILE *out, const char *s, size_t n)
{
	size_t run = 0;	/* bytes since the last escape, written in one go */

	putc_unlocked('"', out);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *esc;
		char ubuf[8];

		if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7f)
			continue;
		switch (c) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		default:
			snprintf(ubuf, sizeof(ubuf), "\\u%04x", c);
			esc = ubuf;
		}
		fwrite_unlocked(s + run, 1, i - run, out);
		fputs_unlocked(esc, out);
		run = i + 1;
	}
	fwrite_unlocked(s + run, 1, n - run, out);
	putc_unlocked('"', out);
}

void jsonw_strn(struct jsonw *w, const char *s, size_t n)
{
	before_value(w);
	put_escaped(w->out, s, n);
}

void jsonw_str(struct jsonw *w, const char *s)
{
	if (!s) {
		jsonw_null(w);
		return;
	}
	jsonw_strn(w, s, strlen(s));
}

void jsonw_int(struct jsonw *w, int64_t v)
{
	char buf[24], *p = buf + sizeof(buf);
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	before_value(w);
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	fwrite_unlocked(p, 1, (size_t)(buf + sizeof(buf) - p), w->out);
}

char *fmt_num(char *buf, size_t cap, double v, int decimals)
{
	char *dot;
	size_t n;
	int len;

	if (v == 0)
		v = 0; /* no "-0" */
	len = snprintf(buf, cap, "%.*f", decimals, v);
	if (len < 0 || (size_t)len >= cap) {
		/* cutting %f digits would print a different number */
		snprintf(buf, cap, "%.17g", v);
		return buf;
	}
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

void jsonw_num(struct jsonw *w, double v, int decimals)
{
	char buf[64];

	if (!isfinite(v)) {
		jsonw_null(w);
		return;
	}
	before_value(w);
	fputs(fmt_num(buf, sizeof(buf), v, decimals), w->out);
}

void jsonw_bool(struct jsonw *w, bool v)
{
	before_value(w);
	fputs(v ? "true" : "false", w->out);
}

void jsonw_null(struct jsonw *w)
{
	before_value(w);
	fputs("null", w->out);
}

void jsonw_time(struct jsonw *w, int64_t t_ns)
{
	char buf[40];
	jsonw_str(w, time_rfc3339(buf, sizeof(buf), t_ns));
}

void jsonw_kstr(struct jsonw *w, const char *k, const char *s) { jsonw_key(w, k); jsonw_str(w, s); }
void jsonw_kint(struct jsonw *w, const char *k, int64_t v) { jsonw_key(w, k); jsonw_int(w, v); }
void jsonw_knum(struct jsonw *w, const char *k, double v, int d) { jsonw_key(w, k); jsonw_num(w, v, d); }
void jsonw_kbool(struct jsonw *w, const char *k, bool v) { jsonw_key(w, k); jsonw_bool(w, v); }
void jsonw_ktime(struct jsonw *w, const char *k, int64_t t) { jsonw_key(w, k); jsonw_time(w, t); }
