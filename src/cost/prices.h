/* SPDX-License-Identifier: MIT */
/*
 * The built-in price table (docs/prices.md): typical purchase prices, board
 * power and on-demand cloud rates of common GPUs, each with its source and
 * date, and the site's electricity price and grid carbon intensity.  `report`
 * assumes them when no --profile or price --set is given.  The table is
 * data/gpu-prices.csv, embedded at build time.
 */
#ifndef COST_PRICES_H
#define COST_PRICES_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct price_fig {
	double value;
	char source[200];
	char date[8];		/* "YYYY-MM", or "" (board power: a datasheet figure) */
};

struct price_row {
	char model[48];		/* "H200" */
	char match[96];		/* "H100 PCIe", "A10|A10G" */
	struct price_fig purchase, power, cloud;
};

struct price_table {
	char currency[16];
	struct price_fig electricity, grid;	/* price of 1 kWh; g CO2e per kWh */
	struct price_row *rows;
	size_t nrows;
};

/*
 * Parse the CSV text (the layout in data/gpu-prices.csv) into t, replacing
 * what it held.  src names the text in errors.  Returns 0, or GL_EPARSE with
 * err->src, err->line and err->col at the offending field.
 */
int prices_parse(struct price_table *t, const char *text, const char *src, struct gl_err *err);
void prices_free(struct price_table *t);

/* The embedded table, parsed once (thread-safe); it is checked by a unit test. */
const struct price_table *prices_builtin(void);
/* What parsing the embedded table said (code 0: it parsed). */
const struct gl_err *prices_builtin_err(void);

/* The first row whose match words all appear as whole words of name
 * (case-insensitive; '-', '_' and spaces separate words), or NULL. */
const struct price_row *prices_match(const struct price_table *t, const char *name);

/* Every space-separated word of words is a whole word of name, as
 * prices_match() matches one alternative; 0 or 1. */
int prices_name_has_words(const char *name, const char *words);

/* Whole months from a figure's "YYYY-MM" date to t_ns; -1 when it has none. */
int prices_age_months(const char *date, int64_t t_ns);

#endif
