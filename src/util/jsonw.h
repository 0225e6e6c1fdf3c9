/* SPDX-License-Identifier: MIT */
/*
 * The one JSON writer: commas, nesting, escaping and number formatting live
 * here.  Output is deterministic: keys in call order, numbers with a fixed
 * precision, NaN written as null (unknown is never zero).
 */
#ifndef UTIL_JSONW_H
#define UTIL_JSONW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSONW_MAX_DEPTH 32
#define JSONW_BUF 16384

/*
 * Output is gathered in buf and handed to `out` when it fills and when the
 * top-level value closes, so a caller may write to `out` itself only
 * between top-level values (or after jsonw_flush()).
 */
struct jsonw {
	FILE *out;		/* borrowed */
	int depth;
	bool pretty;
	bool need_comma[JSONW_MAX_DEPTH];
	bool after_key;
	size_t n;		/* bytes in buf */
	char buf[JSONW_BUF];
};

void jsonw_init(struct jsonw *w, FILE *out, bool pretty);
void jsonw_flush(struct jsonw *w);
void jsonw_obj_begin(struct jsonw *w);
void jsonw_obj_end(struct jsonw *w);
void jsonw_arr_begin(struct jsonw *w);
void jsonw_arr_end(struct jsonw *w);
void jsonw_key(struct jsonw *w, const char *key);
void jsonw_str(struct jsonw *w, const char *s);
void jsonw_strn(struct jsonw *w, const char *s, size_t n);
void jsonw_int(struct jsonw *w, int64_t v);
/* Up to `decimals` digits after the point, trailing zeros trimmed; NaN/Inf -> null. */
void jsonw_num(struct jsonw *w, double v, int decimals);
void jsonw_bool(struct jsonw *w, bool v);
void jsonw_null(struct jsonw *w);
/* RFC 3339 UTC string of t_ns. */
void jsonw_time(struct jsonw *w, int64_t t_ns);

/* key + value shorthands */
void jsonw_kstr(struct jsonw *w, const char *k, const char *s);
void jsonw_kint(struct jsonw *w, const char *k, int64_t v);
void jsonw_knum(struct jsonw *w, const char *k, double v, int decimals);
void jsonw_kbool(struct jsonw *w, const char *k, bool v);
void jsonw_ktime(struct jsonw *w, const char *k, int64_t t_ns);

/*
 * Members of an object written by another writer, for one thread to write
 * the end of a document while another writes its start: jsonw_init_members
 * starts a writer inside an object at `depth` that already has members, and
 * jsonw_splice puts what it wrote (after its jsonw_flush) into w, which is
 * at the same place; the bytes are those w would have written itself.
 */
void jsonw_init_members(struct jsonw *w, FILE *out, bool pretty, int depth);
void jsonw_splice(struct jsonw *w, const char *members, size_t n);

/*
 * A value the caller formatted itself, exactly as this writer would have
 * written it at its depth (for a long array of objects of one shape, whose
 * calls would cost more than their bytes): the comma and the new line
 * before it are this writer's.  jsonw_indent gives the text that starts a
 * line at a depth ("\n" and two blanks a level; "" when not pretty).
 */
void jsonw_raw_value(struct jsonw *w, const char *text, size_t n);
const char *jsonw_indent(const struct jsonw *w, int depth, size_t *n);

/* Format v like jsonw_num into buf (also used by the text report). */
char *fmt_num(char *buf, size_t cap, double v, int decimals);

#endif
