/* SPDX-License-Identifier: MIT */
/*
 * Stamps without a zone against zoned evidence (see zone.h).
 *
 * Every candidate offset is a whole number of quarter hours (every zone in
 * use today is), between the process zone's offset less 14 hours and plus
 * 12 (the zones there are).  A candidate fits a zoned input when that
 * input's span, however short (a trace, a clock reference), lies within
 * ZN_SLACK_NS of the zone-less span moved by it.  Reading as written is
 * kept when every zoned input fits it; one offset that every zoned input
 * fits is applied; several are ambiguous, and when no offset fits them all
 * the evidence conflicts: both are said, and nothing is moved.
 */
#include "formats/zone.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/driver.h"
#include "formats/format.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

#define QUARTER_NS (INT64_C(900) * NS_PER_S)
#define HOUR_NS (INT64_C(3600) * NS_PER_S)
#define NCAND (26 * 4 + 1)

char *zn_offset_str(char *buf, size_t cap, int64_t off_ns)
{
	int64_t m = (off_ns < 0 ? -off_ns : off_ns) / (60 * NS_PER_S);

	if (!m)
		snprintf(buf, cap, "0");
	else if (m % 60)
		snprintf(buf, cap, "%c%dh%02d", off_ns < 0 ? '-' : '+', (int)(m / 60), (int)(m % 60));
	else
		snprintf(buf, cap, "%c%dh", off_ns < 0 ? '-' : '+', (int)(m / 60));
	return buf;
}

/* "UTC-05:00" for an offset in seconds east */
static void utc_str(char *buf, size_t cap, long off_s)
{
	long a = off_s < 0 ? -off_s : off_s;
	snprintf(buf, cap, "UTC%c%02d:%02d", off_s < 0 ? '-' : '+', (int)(a / 3600 % 100),
		 (int)(a / 60 % 60));
}

static int64_t gap(int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
	if (a0 > b1)
		return a0 - b1;
	if (b0 > a1)
		return b0 - a1;
	return 0;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* "clock_ref_end.txt and 4 more" */
static void who(char *buf, size_t cap, const struct zn_input *in, size_t n,
		const char *const *names)
{
	size_t first = n, more = 0;

	for (size_t i = 0; i < n; i++) {
		if (!in[i].zoned || in[i].first_ns == INT64_MIN)
			continue;
		if (first == n)
			first = i;
		else
			more++;
	}
	if (first == n)
		snprintf(buf, cap, "nothing");
	else if (more)
		snprintf(buf, cap, "%s and %zu more", base_name(names[first]), more);
	else
		snprintf(buf, cap, "%s", base_name(names[first]));
}

enum zn_verdict zn_decide(const struct zn_input *in, size_t n, const char *const *names,
			  int64_t *shift_ns, char *note, size_t cap)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN, base;
	size_t nz = 0, fit[NCAND], best = 0, nbest = 0, kbest = 0;
	long off_s;
	char tz[16], ev[200], a[16], b[16], c[16];

	*shift_ns = 0;
	note[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (in[i].first_ns == INT64_MIN)
			continue;
		if (in[i].zoneless) {
			lo = in[i].first_ns < lo ? in[i].first_ns : lo;
			hi = in[i].last_ns > hi ? in[i].last_ns : hi;
		} else if (in[i].zoned) {
			nz++;
		}
	}
	if (!nz || lo == INT64_MAX)
		return ZN_AGREE;
	/* candidates: the process zone's offset less 14 h .. plus 12 h, so that
	 * the zone the logs were written in is a real one (UTC-12 .. UTC+14) */
	off_s = time_utc_offset_s(lo / NS_PER_S);
	base = (int64_t)off_s * NS_PER_S - 14 * HOUR_NS;
	base -= base % QUARTER_NS;
	for (size_t k = 0; k < NCAND; k++) {
		int64_t d = base + (int64_t)k * QUARTER_NS;
		fit[k] = 0;
		for (size_t i = 0; i < n; i++)
			if (!in[i].zoneless && in[i].zoned && in[i].first_ns != INT64_MIN &&
			    gap(in[i].first_ns, in[i].last_ns, lo + d, hi + d) <= ZN_SLACK_NS)
				fit[k]++;
		if (fit[k] > best) {
			best = fit[k];
			nbest = 0;
		}
		if (fit[k] == best) {
			nbest++;
			kbest = nbest == 1 ? k : kbest;
		}
	}
	{
		/* as read: in range whenever the process zone is a real one */
		size_t as_read = 0;
		for (size_t i = 0; i < n; i++)
			if (!in[i].zoneless && in[i].zoned && in[i].first_ns != INT64_MIN &&
			    gap(in[i].first_ns, in[i].last_ns, lo, hi) <= ZN_SLACK_NS)
				as_read++;
		if (as_read == nz)
			return ZN_AGREE;
		utc_str(tz, sizeof(tz), off_s);
		who(ev, sizeof(ev), in, n, names);
		if (best < nz) {
			snprintf(note, cap,
				 "no zone in the stamps, read in %s: the zoned evidence (%s) conflicts, "
				 "%zu of %zu fit an offset of %s, %zu as read; left as read", tz, ev, best, nz,
				 zn_offset_str(a, sizeof(a), base + (int64_t)kbest * QUARTER_NS), as_read);
			return ZN_CONFLICT;
		}
		if (nbest > 1) {
			snprintf(note, cap,
				 "no zone in the stamps, read in %s: they miss the zoned evidence (%s), and "
				 "%zu offsets (from %s) would each fit it; left as read", tz, ev, nbest,
				 zn_offset_str(a, sizeof(a), base + (int64_t)kbest * QUARTER_NS));
			return ZN_AMBIGUOUS;
		}
	}
	*shift_ns = base + (int64_t)kbest * QUARTER_NS;
	utc_str(b, sizeof(b), off_s - (long)(*shift_ns / NS_PER_S));
	snprintf(note, cap,
		 "no zone in the stamps: read in %s they lie %s from the zoned evidence (%s) and "
		 "agree after it, so moved by %s (as written at %s)", tz,
		 zn_offset_str(a, sizeof(a), -*shift_ns), ev,
		 zn_offset_str(c, sizeof(c), *shift_ns), b);
	return ZN_SHIFT;
}

void zn_hold_undated(struct ingest_result *res, const struct zn_input *in, const struct ingest_opts *o)
{
	if (!o->hold_weak || o->date_days != INT64_MIN)
		return;
	for (size_t i = 0; i < res->nr; i++) {
		struct input_stat *st = &res->inputs[i];
		if (!in[i].tod || in[i].first_ns == INT64_MIN || st->tod_by_evidence || st->skip_reason[0] ||
		    date_from_name(st->path) != INT64_MIN)
			continue;
		snprintf(st->skip_reason, sizeof(st->skip_reason),
			 "times of day without a date, and no dated log of the same GPU in this ingest or the "
			 "store meets them: not stored by its file time; held, and read again by the next "
			 "ingest that brings one (or give --date)");
	}
}

void zn_say_assumed(struct ingest_result *res, const struct zn_input *in, enum zn_verdict v, bool evidence)
{
	const char *tz = getenv("TZ");

	if (v == ZN_SHIFT || (evidence && v == ZN_AGREE))
		return;		/* the evidence set it */
	if (tz && *tz == ':')
		tz++;
	if (!tz || !*tz)
		tz = "the machine's local time";
	for (size_t i = 0; i < res->nr; i++) {
		struct input_stat *st = &res->inputs[i];
		if (!in[i].zoneless || in[i].first_ns == INT64_MIN || st->skip_reason[0])
			continue;
		free(st->zone_assumed);
		st->zone_assumed = xstrdup(tz);
	}
}
