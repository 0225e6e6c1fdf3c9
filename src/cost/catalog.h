/* SPDX-License-Identifier: MIT */
/*
 * A cloud catalogue (docs/prices.md "Cloud rates from a catalogue"): a CSV of
 * instance types with their accelerators and on-demand prices, in the layout
 * of SkyPilot's catalog vms.csv (a header naming the columns, among them
 * AcceleratorName, AcceleratorCount and Price; InstanceType and Region are
 * kept for the label).  `report --cloud-catalog FILE` takes the per-GPU
 * hourly rate of the logs' GPU model from it: the median, over the rows of
 * that accelerator, of Price / AcceleratorCount.
 */
#ifndef COST_CATALOG_H
#define COST_CATALOG_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define CATALOG_BAD_KEPT 5

struct catalog_row {
	char accel[48];		/* AcceleratorName */
	double per_gpu;		/* Price / AcceleratorCount */
};

struct cloud_catalog {
	char path[512];
	const char *name;	/* the file's name (in path) */
	char date[11];		/* YYYY-MM-DD: from the file's name, else its modification time */
	const char *date_from;	/* "file name" or "file time" */
	struct catalog_row *rows;	/* rows with an accelerator and a price */
	size_t nrows, nlines, no_price;	/* data lines read; GPU rows with an empty or 0 Price */
	uint64_t nbad;		/* rows that could not be read, skipped */
	struct gl_err bad[CATALOG_BAD_KEPT];	/* the first of them, src = path */
};

/* The rate picked for one GPU model. */
struct catalog_pick {
	char accel[48];		/* the AcceleratorName matched */
	size_t nrows;		/* its rows */
	double median, min, max;	/* per GPU and hour */
};

/*
 * Read the catalogue at path.  A header without AcceleratorName,
 * AcceleratorCount or Price, an unreadable file or one with no priced GPU
 * row is an error (err: src, line, col); a bad row is skipped, counted and
 * (the first few) kept in c->bad.
 */
int catalog_load(struct cloud_catalog *c, const char *path, struct gl_err *err);
void catalog_free(struct cloud_catalog *c);

/*
 * The rows for gpu_name ("NVIDIA H200"): those whose AcceleratorName's
 * words (split at anything not a letter or digit) are all words of the
 * name, the name with the most words winning ("A100-80GB" over "A100").
 * Returns 0 and fills p, or -1 when no accelerator matches.
 */
int catalog_pick(const struct cloud_catalog *c, const char *gpu_name, struct catalog_pick *p);

struct cost_params;
/*
 * The rule of report, cost and trend --cloud-catalog: the median per-GPU
 * rate of gpu_name's rows (catalog_pick) replaces the profile's, the
 * default's and the price table's cloud_hourly_rate (origin COST_CATALOG),
 * not a --set one.  Returns -1 when no accelerator matches (p unchanged),
 * 0 when one matches but cloud_hourly_rate was --set, 1 when its rate is
 * put in p.
 */
int catalog_apply(const struct cloud_catalog *c, const char *gpu_name, struct cost_params *p,
		  struct catalog_pick *pick);

#endif
