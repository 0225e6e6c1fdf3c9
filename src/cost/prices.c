/* SPDX-License-Identifier: MIT */
/* The built-in price table (cost/prices.h, docs/prices.md). */
#include "cost/prices.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/timeutil.h"
#include "util/xalloc.h"

static const char builtin_text[] =
#include "prices.inc"
	;

#define MAX_FIELDS 12

struct fields {
	const char *f[MAX_FIELDS];
	size_t len[MAX_FIELDS];
	uint32_t col[MAX_FIELDS];	/* 1-based */
	int n;
};

static int bad(struct gl_err *err, const char *src, uint64_t line, uint32_t col, const char *fmt, const char *what)
{
	gl_err_set(err, GL_EPARSE, fmt, what);
	err->src = src;
	err->line = line;
	err->col = col;
	return GL_EPARSE;
}

static int copy_str(char *dst, size_t cap, const struct fields *fs, int i, struct gl_err *err, const char *src,
		    uint64_t line)
{
	if (fs->len[i] >= cap)
		return bad(err, src, line, fs->col[i], "field too long: %s", "at most the size of its column");
	memcpy(dst, fs->f[i], fs->len[i]);
	dst[fs->len[i]] = '\0';
	return 0;
}

static int get_num(double *v, const struct fields *fs, int i, struct gl_err *err, const char *src, uint64_t line,
		   const char *name)
{
	char buf[48], *end;

	if (fs->len[i] == 0 || fs->len[i] >= sizeof(buf))
		return bad(err, src, line, fs->col[i], "%s: expected a number", name);
	memcpy(buf, fs->f[i], fs->len[i]);
	buf[fs->len[i]] = '\0';
	*v = strtod(buf, &end);
	if (*end || !isfinite(*v) || *v < 0)
		return bad(err, src, line, fs->col[i], "%s: expected a number >= 0", name);
	return 0;
}

static int get_date(char *dst, const struct fields *fs, int i, struct gl_err *err, const char *src, uint64_t line)
{
	const char *d = fs->f[i];

	if (fs->len[i] != 7 || !isdigit((unsigned char)d[0]) || !isdigit((unsigned char)d[1]) ||
	    !isdigit((unsigned char)d[2]) || !isdigit((unsigned char)d[3]) || d[4] != '-' ||
	    !isdigit((unsigned char)d[5]) || !isdigit((unsigned char)d[6]) ||
	    (d[5] - '0') * 10 + (d[6] - '0') < 1 || (d[5] - '0') * 10 + (d[6] - '0') > 12)
		return bad(err, src, line, fs->col[i], "%s", "date: expected YYYY-MM");
	memcpy(dst, d, 7);
	dst[7] = '\0';
	return 0;
}

static int fig(struct price_fig *p, const struct fields *fs, int vi, int si, int di, struct gl_err *err,
	       const char *src, uint64_t line, const char *name)
{
	if (get_num(&p->value, fs, vi, err, src, line, name) ||
	    copy_str(p->source, sizeof(p->source), fs, si, err, src, line))
		return GL_EPARSE;
	if (fs->len[si] == 0)
		return bad(err, src, line, fs->col[si], "%s: every figure needs its source", name);
	if (di >= 0)
		return get_date(p->date, fs, di, err, src, line);
	p->date[0] = '\0';
	return 0;
}

static int parse_line(struct price_table *t, const struct fields *fs, const char *src, uint64_t line,
		      struct gl_err *err)
{
	char kind[8] = "";

	if (fs->len[0] < sizeof(kind))
		memcpy(kind, fs->f[0], fs->len[0]);
	if (!strcmp(kind, "site")) {
		char key[32];

		if (fs->n != 5)
			return bad(err, src, line, 1, "%s", "a site record has 5 fields: site,KEY,VALUE,SOURCE,DATE");
		if (copy_str(key, sizeof(key), fs, 1, err, src, line))
			return GL_EPARSE;
		if (!strcmp(key, "currency"))
			return copy_str(t->currency, sizeof(t->currency), fs, 2, err, src, line);
		if (!strcmp(key, "electricity_price"))
			return fig(&t->electricity, fs, 2, 3, 4, err, src, line, key);
		if (!strcmp(key, "grid_gco2_per_kwh"))
			return fig(&t->grid, fs, 2, 3, 4, err, src, line, key);
		return bad(err, src, line, fs->col[1], "unknown site key '%s' (currency, electricity_price, grid_gco2_per_kwh)",
			   key);
	}
	if (!strcmp(kind, "gpu")) {
		struct price_row r;

		if (fs->n != 11)
			return bad(err, src, line, 1, "%s",
				   "a gpu record has 11 fields: gpu,MODEL,MATCH,PURCHASE,SOURCE,DATE,BOARD_W,SOURCE,CLOUD_PER_HOUR,SOURCE,DATE");
		memset(&r, 0, sizeof(r));
		if (copy_str(r.model, sizeof(r.model), fs, 1, err, src, line) ||
		    copy_str(r.match, sizeof(r.match), fs, 2, err, src, line) ||
		    fig(&r.purchase, fs, 3, 4, 5, err, src, line, "purchase price") ||
		    fig(&r.power, fs, 6, 7, -1, err, src, line, "board power") ||
		    fig(&r.cloud, fs, 8, 9, 10, err, src, line, "cloud rate"))
			return GL_EPARSE;
		if (!r.model[0] || !r.match[0])
			return bad(err, src, line, fs->col[r.model[0] ? 2 : 1], "%s", "model and match must not be empty");
		t->rows = xrealloc(t->rows, (t->nrows + 1) * sizeof(*t->rows));
		t->rows[t->nrows++] = r;
		return 0;
	}
	return bad(err, src, line, 1, "%s", "a record starts with 'site' or 'gpu'");
}

int prices_parse(struct price_table *t, const char *text, const char *src, struct gl_err *err)
{
	uint64_t line = 0;

	prices_free(t);
	gl_err_clear(err);
	while (*text) {
		const char *eol = strchr(text, '\n'), *p = text;
		size_t n = eol ? (size_t)(eol - text) : strlen(text);
		struct fields fs = { .n = 0 };

		line++;
		if (n && text[n - 1] == '\r')
			n--;
		if (n && text[0] != '#') {
			for (;;) {
				const char *c = memchr(p, ',', n - (size_t)(p - text));
				size_t flen = c ? (size_t)(c - p) : n - (size_t)(p - text);

				if (fs.n == MAX_FIELDS) {
					prices_free(t);
					return bad(err, src, line, (uint32_t)(p - text) + 1, "%s", "too many fields");
				}
				fs.f[fs.n] = p;
				fs.len[fs.n] = flen;
				fs.col[fs.n] = (uint32_t)(p - text) + 1;
				fs.n++;
				if (!c)
					break;
				p = c + 1;
			}
			if (parse_line(t, &fs, src, line, err)) {
				prices_free(t);
				return GL_EPARSE;
			}
		}
		text += eol ? (size_t)(eol - text) + 1 : strlen(text);
	}
	return 0;
}

void prices_free(struct price_table *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

static struct price_table builtin;
static struct gl_err builtin_err;
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

static void builtin_load(void)
{
	/* a broken table fails the unit test; at run time it is an empty one */
	if (prices_parse(&builtin, builtin_text, "data/gpu-prices.csv", &builtin_err))
		memset(&builtin, 0, sizeof(builtin));
}

const struct gl_err *prices_builtin_err(void)
{
	pthread_once(&builtin_once, builtin_load);
	return &builtin_err;
}

const struct price_table *prices_builtin(void)
{
	pthread_once(&builtin_once, builtin_load);
	return &builtin;
}

/*
 * Is w (len n) a whole word of name, case-insensitively?  A vendor's name
 * run into the model ("NVIDIAH200", as gpu_monitor writes it) counts as
 * two words.
 */
static int has_word(const char *name, const char *w, size_t n)
{
	static const char *const vendors[] = { "nvidia", "amd" };

	for (const char *p = name; *p;) {
		size_t k = 0;

		while (*p && !isalnum((unsigned char)*p))
			p++;
		while (isalnum((unsigned char)p[k]))
			k++;
		if (k == n && !strncasecmp(p, w, n))
			return 1;
		for (size_t v = 0; v < sizeof(vendors) / sizeof(vendors[0]); v++) {
			size_t vl = strlen(vendors[v]);
			if (k == vl + n && !strncasecmp(p, vendors[v], vl) && !strncasecmp(p + vl, w, n))
				return 1;
		}
		p += k;
	}
	return 0;
}

/* Every space-separated word of alt (len n) is a word of name. */
static int alt_matches(const char *name, const char *alt, size_t n)
{
	size_t i = 0, any = 0;

	while (i < n) {
		size_t k = 0;

		while (i < n && alt[i] == ' ')
			i++;
		while (i + k < n && alt[i + k] != ' ')
			k++;
		if (k) {
			if (!has_word(name, alt + i, k))
				return 0;
			any = 1;
		}
		i += k;
	}
	return (int)any;
}

int prices_name_has_words(const char *name, const char *words)
{
	return name && words && alt_matches(name, words, strlen(words));
}

const struct price_row *prices_match(const struct price_table *t, const char *name)
{
	if (!name || !*name)
		return NULL;
	for (size_t r = 0; r < t->nrows; r++) {
		const char *m = t->rows[r].match;

		for (;;) {
			const char *bar = strchr(m, '|');
			size_t n = bar ? (size_t)(bar - m) : strlen(m);

			if (alt_matches(name, m, n))
				return &t->rows[r];
			if (!bar)
				break;
			m = bar + 1;
		}
	}
	return NULL;
}

int prices_age_months(const char *date, int64_t t_ns)
{
	int y, m, ty, tm, td;
	int64_t days, ym;

	if (!date || strlen(date) != 7 || sscanf(date, "%4d-%2d", &y, &m) != 2)
		return -1;
	days = t_ns / NS_PER_DAY;
	if (t_ns < 0 && t_ns % NS_PER_DAY)
		days--;
	civil_from_days(days, &ty, &tm, &td);
	ym = (int64_t)ty * 12 + (tm - 1);
	return (int)(ym - ((int64_t)y * 12 + (m - 1)));
}
