/* SPDX-License-Identifier: MIT */
/* A cloud catalogue's CSV (cost/catalog.h, docs/prices.md). */
#include "cost/catalog.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "cost/model.h"
#include "cost/prices.h"
#include "util/fdio.h"
#include "util/xalloc.h"

#define CAT_MAX_BYTES (512u << 20)
#define CAT_MAX_LINE (1u << 20)
#define CAT_MAX_FIELDS 64

struct csv_fields {
	char *f[CAT_MAX_FIELDS];
	uint32_t col[CAT_MAX_FIELDS];	/* 1-based */
	int n;
};

/*
 * Split line (no newline) into fields in place: commas separate, a field
 * may be quoted ("" is a quote inside).  Returns 0, or the 1-based column
 * of what is wrong with *why set.
 */
static uint32_t csv_split(char *line, struct csv_fields *fs, const char **why)
{
	char *p = line;

	fs->n = 0;
	for (;;) {
		char *start = p, *w = p;
		if (fs->n == CAT_MAX_FIELDS) {
			*why = "more than 64 fields";
			return (uint32_t)(p - line) + 1;
		}
		fs->col[fs->n] = (uint32_t)(p - line) + 1;
		if (*p == '"') {
			p++;
			for (;;) {
				if (!*p) {
					*why = "a quoted field is not closed on its line";
					return (uint32_t)(start - line) + 1;
				}
				if (*p == '"' && p[1] == '"') {
					*w++ = '"';
					p += 2;
				} else if (*p == '"') {
					p++;
					break;
				} else {
					*w++ = *p++;
				}
			}
			if (*p && *p != ',') {
				*why = "text after a quoted field's closing quote";
				return (uint32_t)(p - line) + 1;
			}
		} else {
			while (*p && *p != ',')
				*w++ = *p++;
		}
		fs->f[fs->n++] = start;
		if (!*p) {
			*w = '\0';
			return 0;
		}
		p++;
		*w = '\0';
	}
}

static int col_of(const struct csv_fields *h, const char *name)
{
	for (int i = 0; i < h->n; i++)
		if (!strcmp(h->f[i], name))
			return i;
	return -1;
}

static void bad_row(struct cloud_catalog *c, uint64_t line, uint32_t col, const char *fmt, const char *what)
{
	if (c->nbad < CATALOG_BAD_KEPT) {
		struct gl_err *e = &c->bad[c->nbad];
		gl_err_set(e, GL_EPARSE, fmt, what);
		e->src = c->path;
		e->line = line;
		e->col = col;
	}
	c->nbad++;
}

/* A number >= 0 in s, all of it; -1 when it is not one. */
static int num(const char *s, double *v)
{
	char *end;

	if (!*s)
		return -1;
	errno = 0;
	*v = strtod(s, &end);
	return *end || errno || !isfinite(*v) || *v < 0 ? -1 : 0;
}

/* YYYY-MM-DD in the file's name, else its modification date (UTC). */
static void catalog_date(struct cloud_catalog *c)
{
	const char *s = c->name;
	struct stat st;
	struct tm tm;

	for (; *s; s++) {
		int ok = strlen(s) >= 10 && s[4] == '-' && s[7] == '-';
		for (int i = 0; ok && i < 10; i++)
			ok = i == 4 || i == 7 || isdigit((unsigned char)s[i]);
		if (ok && (s == c->name || !isdigit((unsigned char)s[-1])) && !isdigit((unsigned char)s[10])) {
			memcpy(c->date, s, 10);
			c->date[10] = '\0';
			c->date_from = "file name";
			return;
		}
	}
	c->date_from = "file time";
	if (stat(c->path, &st) == 0 && gmtime_r(&st.st_mtime, &tm))
		strftime(c->date, sizeof(c->date), "%Y-%m-%d", &tm);
}

int catalog_load(struct cloud_catalog *c, const char *path, struct gl_err *err)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	uint64_t ln = 0;
	struct csv_fields hdr = { .n = 0 }, fs;
	char *hdr_line = NULL;
	int ci_name = -1, ci_count = -1, ci_price = -1, rc = 0;
	const char *why = NULL;
	uint32_t bc;

	memset(c, 0, sizeof(*c));
	gl_err_clear(err);
	snprintf(c->path, sizeof(c->path), "%s", path);
	c->name = strrchr(c->path, '/') ? strrchr(c->path, '/') + 1 : c->path;
	if (!(f = fopen_bounded(path, CAT_MAX_BYTES, CAT_MAX_LINE))) {
		gl_err_errno(err, "cannot open the cloud catalogue '%s'", path);
		return GL_EIO;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		ln++;
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (!hdr_line) {
			if (!n)
				continue;
			hdr_line = xstrdup(line);
			if ((bc = csv_split(hdr_line, &hdr, &why))) {
				rc = gl_err_set(err, GL_EPARSE, "the header: %s", why);
				err->col = bc;
				goto fail_at;
			}
			ci_name = col_of(&hdr, "AcceleratorName");
			ci_count = col_of(&hdr, "AcceleratorCount");
			ci_price = col_of(&hdr, "Price");
			if (ci_name < 0 || ci_count < 0 || ci_price < 0) {
				rc = gl_err_set(err, GL_EPARSE,
						"not a cloud catalogue: the header has no %s column (SkyPilot's vms.csv: "
						"InstanceType,AcceleratorName,AcceleratorCount,...,Price,...)",
						ci_name < 0 ? "AcceleratorName" : ci_count < 0 ? "AcceleratorCount" : "Price");
				err->col = 1;
				goto fail_at;
			}
			continue;
		}
		if (!n)
			continue;
		c->nlines++;
		if ((bc = csv_split(line, &fs, &why))) {
			bad_row(c, ln, bc, "%s (row skipped)", why);
			continue;
		}
		if (fs.n != hdr.n) {
			char m[96];
			snprintf(m, sizeof(m), "%d fields where the header has %d", fs.n, hdr.n);
			bad_row(c, ln, fs.col[fs.n - 1], "%s (row skipped)", m);
			continue;
		}
		const char *acc = fs.f[ci_name];
		double cnt, price;
		if (!*acc)
			continue;	/* a machine without accelerators */
		if (strlen(acc) >= sizeof(c->rows[0].accel)) {
			bad_row(c, ln, fs.col[ci_name], "%s (row skipped)", "AcceleratorName longer than 47 bytes");
			continue;
		}
		if (num(fs.f[ci_count], &cnt) || !(cnt > 0)) {
			bad_row(c, ln, fs.col[ci_count], "AcceleratorCount: expected a number above 0, got '%.40s' (row skipped)",
				fs.f[ci_count]);
			continue;
		}
		if (!*fs.f[ci_price]) {
			c->no_price++;	/* no on-demand offer in that region */
			continue;
		}
		if (num(fs.f[ci_price], &price)) {
			bad_row(c, ln, fs.col[ci_price], "Price: expected an hourly price >= 0, got '%.40s' (row skipped)",
				fs.f[ci_price]);
			continue;
		}
		if (price == 0) {
			c->no_price++;	/* listed at 0: no price to compare with */
			continue;
		}
		c->rows = xreallocarray(c->rows, c->nrows + 1, sizeof(*c->rows));
		snprintf(c->rows[c->nrows].accel, sizeof(c->rows[0].accel), "%s", acc);
		c->rows[c->nrows++].per_gpu = price / cnt;
	}
	if (ferror(f)) {
		rc = gl_err_set(err, GL_EIO, "reading the cloud catalogue: %s", errno == EFBIG ? fd_bound_error() : strerror(errno));
		err->src = c->path;
		goto fail;
	}
	if (!hdr_line) {
		rc = gl_err_set(err, GL_EPARSE, "%s", "empty: a cloud catalogue starts with a header line");
		err->src = c->path;
		goto fail;
	}
	if (!c->nrows) {
		rc = gl_err_set(err, GL_EPARSE, "no row with an accelerator and an on-demand price (%zu data lines, %llu bad)",
				c->nlines, (unsigned long long)c->nbad);
		err->src = c->path;
		goto fail;
	}
	catalog_date(c);
	fclose(f);
	free(line);
	free(hdr_line);
	return 0;
fail_at:
	err->src = c->path;
	err->line = ln;
fail:
	fclose(f);
	free(line);
	free(hdr_line);
	catalog_free(c);
	return rc;
}

void catalog_free(struct cloud_catalog *c)
{
	free(c->rows);
	c->rows = NULL;
	c->nrows = 0;
}

/* How many words the accelerator's name has, if every one is a word of
 * gpu_name; 0 otherwise. */
static int words_matched(const char *gpu_name, const char *accel)
{
	char w[48];
	int n = 0;
	size_t i = 0;

	for (size_t k = 0; accel[k] && i + 1 < sizeof(w); k++)
		w[i++] = isalnum((unsigned char)accel[k]) ? accel[k] : ' ';
	w[i] = '\0';
	for (char *p = w; *p;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		n++;
		while (*p && *p != ' ')
			p++;
	}
	return n && prices_name_has_words(gpu_name, w) ? n : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int catalog_pick(const struct cloud_catalog *c, const char *gpu_name, struct catalog_pick *p)
{
	const char *best = NULL;
	int best_n = 0;
	double *v;

	memset(p, 0, sizeof(*p));
	if (!gpu_name || !*gpu_name)
		return -1;
	for (size_t i = 0; i < c->nrows; i++) {
		int n = words_matched(gpu_name, c->rows[i].accel);
		if (n > best_n || (n && n == best_n && strlen(c->rows[i].accel) > strlen(best))) {
			best = c->rows[i].accel;
			best_n = n;
		}
	}
	if (!best)
		return -1;
	snprintf(p->accel, sizeof(p->accel), "%s", best);
	v = xcalloc(c->nrows, sizeof(double));
	for (size_t i = 0; i < c->nrows; i++)
		if (!strcmp(c->rows[i].accel, p->accel))
			v[p->nrows++] = c->rows[i].per_gpu;
	qsort(v, p->nrows, sizeof(double), cmp_double);
	p->min = v[0];
	p->max = v[p->nrows - 1];
	p->median = p->nrows % 2 ? v[p->nrows / 2] : (v[p->nrows / 2 - 1] + v[p->nrows / 2]) / 2;
	free(v);
	return 0;
}

int catalog_apply(const struct cloud_catalog *c, const char *gpu_name, struct cost_params *p,
		  struct catalog_pick *pick)
{
	if (catalog_pick(c, gpu_name, pick))
		return -1;
	if (p->origin[COST_CLOUD_HOURLY_RATE] == COST_SET)
		return 0;
	cost_param_put(p, COST_CLOUD_HOURLY_RATE, pick->median, COST_CATALOG);
	return 1;
}
