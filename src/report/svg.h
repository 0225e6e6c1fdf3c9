/* SPDX-License-Identifier: MIT */
/*
 * The pieces the HTML report draws its inline SVG charts with: linear
 * scales, ticks on round values, time ticks on round UTC times, escaping of
 * text that came from a log, and the display downsampling of a series to at
 * most one column per pixel (min and max kept, so spikes survive).
 * No figure of the report is computed here: only where to draw it.
 */
#ifndef REPORT_SVG_H
#define REPORT_SVG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/analysis.h"

struct svg_scale {
	double d0, d1;		/* domain */
	double r0, r1;		/* range (pixels) */
};
double svg_map(const struct svg_scale *s, double v);

/*
 * Round ticks (1, 2 or 5 x 10^k apart) covering [lo, hi], about `want` of
 * them; lo and hi are widened to the outer ticks.  Returns the count (at
 * most cap); with hi <= lo one tick at lo, or none for NAN.
 */
size_t svg_ticks(double *lo, double *hi, size_t want, double *out, size_t cap);

/*
 * Time ticks inside [t0, t1] on round UTC times (1 s ... 30 d steps), about
 * `want` of them.  *step_ns gets the step, for svg_time_label().
 */
size_t svg_time_ticks(int64_t t0, int64_t t1, size_t want, int64_t *out, size_t cap, int64_t *step_ns);
/* "HH:MM:SS", "HH:MM" or "MM-DD HH:MM", "YYYY-MM-DD" by the step (UTC). */
void svg_time_label(char *buf, size_t cap, int64_t t_ns, int64_t step_ns);

/* Write s with & < > " ' escaped (text and attribute values alike). */
void svg_esc(FILE *out, const char *s);

/* One display column of one metric. */
struct svg_col {
	int64_t t0_ns, t1_ns;
	double min, max, mean;	/* NAN when nothing known */
	double gap_s;		/* seconds without data inside the column */
	int state;		/* the state with the most seconds, -1 for none */
};

/*
 * Downsample metric m of a GPU's series to at most cap columns by merging
 * whole runs of buckets: min of the minima, max of the maxima, time-weighted
 * mean.  Returns the count; *merged gets the buckets per column.
 */
size_t svg_columns(const struct gpu_series *s, int m, struct svg_col *out, size_t cap, size_t *merged);

#endif
