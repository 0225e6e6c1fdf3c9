/* SPDX-License-Identifier: MIT */
#include "report/svg.h"

#include <math.h>
#include <string.h>

#include "util/timeutil.h"

double svg_map(const struct svg_scale *s, double v)
{
	if (s->d1 == s->d0)
		return (s->r0 + s->r1) / 2;
	return s->r0 + (v - s->d0) * (s->r1 - s->r0) / (s->d1 - s->d0);
}

size_t svg_ticks(double *lo, double *hi, size_t want, double *out, size_t cap)
{
	double span, raw, mag, step, f, a, b;
	size_t n = 0;

	if (isnan(*lo) || isnan(*hi) || !cap || !want)
		return 0;
	if (*hi <= *lo) {
		out[0] = *lo;
		return 1;
	}
	span = *hi - *lo;
	raw = span / (double)want;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	step = (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
	a = floor(*lo / step + 1e-9) * step;
	b = ceil(*hi / step - 1e-9) * step;
	for (double v = a; v <= b + step * 1e-6 && n < cap; v += step) {
		/* a round value stays round: no 0.30000000000000004 */
		out[n++] = fabs(v) < step * 1e-9 ? 0 : round(v / step) * step;
	}
	*lo = a;
	*hi = b;
	return n;
}

static const int64_t time_steps_s[] = {
	1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200,
	86400, 2 * 86400, 7 * 86400, 14 * 86400, 30 * 86400,
};

size_t svg_time_ticks(int64_t t0, int64_t t1, size_t want, int64_t *out, size_t cap, int64_t *step_ns)
{
	size_t nsteps = sizeof(time_steps_s) / sizeof(time_steps_s[0]), n = 0;
	int64_t step = time_steps_s[nsteps - 1] * NS_PER_S, t;

	if (t1 <= t0 || !want)
		return 0;
	for (size_t i = 0; i < nsteps; i++)
		if ((t1 - t0) / (time_steps_s[i] * NS_PER_S) <= (int64_t)want) {
			step = time_steps_s[i] * NS_PER_S;
			break;
		}
	/* steps past 30 d: whole multiples of 30 d */
	while ((t1 - t0) / step > (int64_t)want)
		step *= 2;
	*step_ns = step;
	t = t0 - (t0 % step + step) % step;
	if (t < t0)
		t += step;
	for (; t <= t1 && n < cap; t += step)
		out[n++] = t;
	return n;
}

void svg_time_label(char *buf, size_t cap, int64_t t_ns, int64_t step_ns)
{
	int64_t s = t_ns / NS_PER_S - (t_ns % NS_PER_S < 0);
	int64_t days = s / 86400 - (s % 86400 < 0), sod = s - days * 86400;
	int y, m, d;

	civil_from_days(days, &y, &m, &d);
	if (step_ns >= NS_PER_DAY)
		snprintf(buf, cap, "%04d-%02d-%02d", y, m, d);
	else if (step_ns >= 3 * 3600 * NS_PER_S || sod == 0)
		snprintf(buf, cap, "%02d-%02d %02d:%02d", m, d, (int)(sod / 3600), (int)(sod / 60 % 60));
	else if (step_ns >= 60 * NS_PER_S)
		snprintf(buf, cap, "%02d:%02d", (int)(sod / 3600), (int)(sod / 60 % 60));
	else
		snprintf(buf, cap, "%02d:%02d:%02d", (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60));
}

void svg_esc(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default:
			/* control bytes would make the page invalid XML/HTML */
			if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n')
				fputc(' ', out);
			else
				fputc(*s, out);
		}
	}
}

size_t svg_columns(const struct gpu_series *s, int m, struct svg_col *out, size_t cap, size_t *merged)
{
	size_t per, n = 0;

	*merged = 1;
	if (!s->b || !s->n || !cap)
		return 0;
	per = (s->n + cap - 1) / cap;
	*merged = per;
	for (size_t i = 0; i < s->n; i += per) {
		struct svg_col *c = &out[n++];
		double sum = 0, known = 0, mn = INFINITY, mx = -INFINITY, gap = 0, best = 0;
		double st[ST__COUNT] = { 0 };
		size_t e = i + per < s->n ? i + per : s->n;
		c->t0_ns = s->base_ns + (int64_t)i * s->width_ns;
		c->t1_ns = s->base_ns + (int64_t)e * s->width_ns;
		for (size_t k = i; k < e; k++) {
			const struct ser_bucket *b = &s->b[k];
			sum += b->sum[m];
			known += b->known_s[m];
			if (b->known_s[m] > 0) {
				mn = fmin(mn, b->min[m]);
				mx = fmax(mx, b->max[m]);
			}
			gap += b->state_s[ST_GAP];
			for (int j = 0; j < ST__COUNT; j++)
				st[j] += b->state_s[j];
		}
		c->mean = known > 0 ? sum / known : NAN;
		c->min = known > 0 ? mn : NAN;
		c->max = known > 0 ? mx : NAN;
		c->gap_s = gap;
		c->state = -1;
		for (int j = 0; j < ST__COUNT; j++)
			if (st[j] > best) {
				best = st[j];
				c->state = j;
			}
	}
	return n;
}
