/* SPDX-License-Identifier: MIT */
/*
 * The pre-passes, run before the merge: each reads inputs once more (the
 * first 64 KiB, then whole where needed) and leaves their statistics as they
 * were.  Kernel logs are anchored (anchor.h), zone-less stamps checked
 * against zoned ones (zone.h), time-less logs placed by content (place.h).
 */
#include "formats/driver_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/place.h"
#include "formats/zone.h"
#include "util/xalloc.h"

/* A pre-pass leaves an input's statistics as they were, but not what was
 * learnt of the file itself: its sniffed format ... */
void keep_sniffed(struct input_stat *before, const struct input_stat *st)
{
	before->sniffed = st->sniffed;
	before->sniff_format = st->sniff_format;
	before->sniff_score = st->sniff_score;
}

/* ... and the column list of a headerless query CSV. */
static void keep_learnt(struct input_stat *before, const struct input_stat *st)
{
	before->columns = st->columns;
	before->columns_tried = st->columns_tried;
	memcpy(before->columns_note, st->columns_note, sizeof(before->columns_note));
	memcpy(before->columns_unread, st->columns_unread, sizeof(before->columns_unread));
	keep_sniffed(before, st);
}

/*
 * The placing pre-pass (place.h): read input i sequentially, up to max
 * bytes (0: all), and hand its samples to the collector, timed ones with
 * their times resolved.  The input's statistics are left as they were: the
 * real pass counts everything again.
 */
static void scan_input(struct ingest_result *res, size_t i, const struct ingest_opts *o, struct workpool *pl,
		       size_t max_bytes, struct pl_collect *pc)
{
	struct input_stat *st = &res->inputs[i], before = *st;
	struct source s = { .rd = { .fd = -1 }, .pool = pl };	/* released unopened: no close(0) */
	struct chunk c = { 0 };
	size_t done = 0;

	/* a by_path format (SQLite) has absolute times: nothing to place */
	if (!open_source(&s, st, o, false, 0) || s.fmt->by_path) {
		source_release(&s);
		keep_sniffed(&before, st);
		*st = before;
		return;
	}
	pc->in[i].mtime_ns = s.rd.mtime_ns;
	s.last_t_ns = INT64_MIN;
	c.src = &s;
	while ((!max_bytes || done < max_bytes) &&
	       cut_chunk(&s, &c, max_bytes ? max_bytes : DEFAULT_CHUNK, NULL)) {
		done += c.n;
		parse_chunk(&c, o);
		for (size_t k = 0; k < c.batch.nr; k++) {
			struct rec r = c.batch.recs[k];
			if (r.kind == REC_BAD)
				continue;
			if (r.time_kind == TK_ABS || r.time_kind == TK_TOD)
				resolve_time(&s, &r, o);
			pl_collect_rec(pc, i, &r, &c.batch);
		}
	}
	chunk_release(&c);
	source_release(&s);
	keep_learnt(&before, st);
	*st = before;
}

/*
 * Logs without time are placed before the run, by content where a timed log
 * of the same GPU lets them be (place.c).  The first 64 KiB of each input
 * say whether any has no time; only then is every input read in full once
 * more, to build the series to align.
 */
void place_timeless(struct ingest_result *res, const struct ingest_opts *o, struct workpool *pl)
{
	struct pl_collect pc;
	bool any = false;

	pl_collect_init(&pc, o, res->nr);
	for (size_t i = 0; i < res->nr; i++) {
		struct pl_input *in = &pc.in[i];
		scan_input(res, i, o, pl, PRESCAN_BYTES, &pc);
		any |= in->timeless;
		/* only the flag is wanted here: each input's series go at once,
		 * not at the end (they were 6 KB an input: 750 MB for 100000) */
		for (size_t k = 0; k < in->ng; k++)
			pl_series_release(&in->g[k].s);
		free(in->g);
		in->g = NULL;
		in->ng = 0;
	}
	pl_collect_release(&pc);
	if (!any)
		return;
	pl_collect_init(&pc, o, res->nr);
	for (size_t i = 0; i < res->nr; i++)
		scan_input(res, i, o, pl, 0, &pc);
	pl_decide(&pc, res);
	pl_collect_release(&pc);
}

/*
 * The anchoring pre-pass (anchor.h): collect the clock pairs and the boots
 * of input i, up to max bytes (0: all).  Statistics are left as they were.
 */
static bool scan_boot_input(struct ingest_result *res, size_t i, const struct ingest_opts *o, struct workpool *pl,
			    size_t max_bytes, struct anc_collect *ac, bool *boot_clock, bool *to_place)
{
	struct input_stat *st = &res->inputs[i], before = *st;
	struct source s = { .rd = { .fd = -1 }, .pool = pl };	/* released unopened: no close(0) */
	struct chunk c = { 0 };
	struct kboot_seq q = { 0 };
	size_t done = 0;
	bool opened;

	*boot_clock = *to_place = false;
	opened = open_source(&s, st, o, false, 0) && !s.fmt->by_path;
	if (opened && max_bytes && s.fmt->boot_clock) {
		*boot_clock = true;	/* read whole by the caller */
		opened = false;
	}
	if (!opened) {
		source_release(&s);
		keep_learnt(&before, st);
		*st = before;
		return false;
	}
	c.src = &s;
	while ((!max_bytes || done < max_bytes) &&
	       cut_chunk(&s, &c, max_bytes ? max_bytes : DEFAULT_CHUNK, NULL)) {
		done += c.n;
		parse_chunk(&c, o);
		for (size_t k = 0; k < c.batch.nr; k++) {
			struct rec *r = &c.batch.recs[k];
			if (r->kind == REC_ANCHOR) {
				if (r->anc.quality != ANC_Q_CLOCK_REF || r->anc.boot_id != STR_NONE)
					kboot_next(&q, r);
				anc_collect_rec(ac, i, r, &c.batch);
			} else if (r->kind == REC_EVENT && r->time_kind == TK_BOOT) {
				*to_place = true;
				kboot_next(&q, r);
				anc_collect_rec(ac, i, r, &c.batch);
			}
		}
	}
	chunk_release(&c);
	source_release(&s);
	keep_learnt(&before, st);
	*st = before;
	return true;
}

/*
 * Kernel logs count seconds since boot: before the run, read every input
 * that has such times or clock pairs (a format that says so, or one whose
 * first 64 KiB show them) and decide how each boot is placed.
 */
void place_kernel(struct ingest_result *res, const struct ingest_opts *o, struct workpool *pl)
{
	struct anc_collect *pre = anc_collect_new(res->nr), *ac;
	bool *full = xcalloc(res->nr ? res->nr : 1, sizeof(bool)), any = false;

	/*
	 * Only printk times need placing: inputs with nothing but clock pairs
	 * (a kern.log with printk stamps, a journal export) are read whole a
	 * second time only when some input has such times to place.
	 */
	for (size_t i = 0; i < res->nr; i++) {
		bool bc, tp;
		scan_boot_input(res, i, o, pl, PRESCAN_BYTES, pre, &bc, &tp);
		full[i] = bc || anc_collect_any(pre, i);
		any |= bc || tp;
	}
	anc_collect_free(pre);
	if (any) {
		const char **names = xcalloc(res->nr, sizeof(*names));
		struct anc_plan **plans = xcalloc(res->nr, sizeof(*plans));
		char **basis = xcalloc(res->nr, sizeof(*basis));
		bool *has = xcalloc(res->nr, sizeof(bool));
		bool bc, tp;
		ac = anc_collect_new(res->nr);
		for (size_t i = 0; i < res->nr; i++) {
			names[i] = res->inputs[i].path;
			basis[i] = res->inputs[i].basis;
			if (full[i])
				scan_boot_input(res, i, o, pl, 0, ac, &bc, &tp);
		}
		anc_decide(ac, names, o->has_boot_time ? o->boot_time_ns : INT64_MIN, plans, basis,
			   sizeof(res->inputs[0].basis), has);
		for (size_t i = 0; i < res->nr; i++)
			if (has[i])
				res->inputs[i].anchor = plans[i];
		anc_collect_free(ac);
		free(names);
		free(plans);
		free(basis);
		free(has);
	}
	free(full);
}

/*
 * The zone pre-pass (zone.h): read input i, up to max bytes (0: all), and
 * note whether its stamps carry a zone and what span its times cover.
 * Kernel logs are placed by their anchors already (place_kernel() runs
 * first); logs without time are not evidence either way.
 */
static bool scan_zone_input(struct ingest_result *res, size_t i, const struct ingest_opts *o, struct workpool *pl,
			    size_t max_bytes, struct zn_input *zi, struct pl_collect *pc)
{
	bool any = false;	/* a record of any kind was read */
	struct input_stat *st = &res->inputs[i], before = *st;
	struct source s = { .rd = { .fd = -1 }, .pool = pl };	/* released unopened: no close(0) */
	struct chunk c = { 0 };
	size_t done = 0;
	bool timed = false, local = false;

	zi->first_ns = zi->last_ns = INT64_MIN;
	zi->zoned = zi->zoneless = false;
	if (!open_source(&s, st, o, false, 0) || s.fmt->by_path) {
		source_release(&s);
		keep_learnt(&before, st);
		*st = before;
		return true;	/* nothing to learn from reading more */
	}
	s.last_t_ns = INT64_MIN;
	c.src = &s;
	while ((!max_bytes || done < max_bytes) &&
	       cut_chunk(&s, &c, max_bytes ? max_bytes : DEFAULT_CHUNK, NULL)) {
		uint64_t before_n = time_local_count();
		done += c.n;
		parse_chunk(&c, o);
		local |= time_local_count() != before_n;
		any |= c.batch.nr > 0;
		for (size_t k = 0; k < c.batch.nr; k++) {
			struct rec r = c.batch.recs[k];
			int64_t t;
			if (r.kind == REC_BAD || r.time_kind == TK_NONE || r.time_kind == TK_FILE)
				continue;
			local |= r.time_kind == TK_TOD;
			resolve_time(&s, &r, o);
			if (r.time_kind != TK_ABS || r.t_ns == INT64_MIN)
				continue;	/* a printk time no anchor places */
			timed = true;
			if (pc)
				pl_collect_rec(pc, i, &r, &c.batch);	/* readings, to date -o T logs */
			/*
			 * The span is what the run measured: samples, processes,
			 * trace events and clock references.  Kernel events are
			 * not in it: a kernel log reaches back to its boot, days
			 * before the run, and would fit every offset or none.
			 * Kernel logs without a zone (dmesg -T) still move with
			 * the others; kernel logs placed by a clock reference
			 * come with it.
			 */
			if (r.kind == REC_ANCHOR ? r.anc.quality != ANC_Q_CLOCK_REF
			    : r.kind != REC_SAMPLE && r.kind != REC_PROC && r.kind != REC_TRACE)
				continue;
			t = r.t_ns;
			if (zi->first_ns == INT64_MIN || t < zi->first_ns)
				zi->first_ns = t;
			if (zi->last_ns == INT64_MIN || t > zi->last_ns)
				zi->last_ns = t;
		}
	}
	zi->zoneless = timed && local;
	zi->zoned = timed && !local && zi->first_ns != INT64_MIN;
	zi->tod = s.tod_base_days != INT64_MIN;
	zi->tod_days = s.tod_base_days;
	chunk_release(&c);
	source_release(&s);
	keep_learnt(&before, st);
	*st = before;
	return any;
}

/*
 * A time-of-day log takes its date from the dated logs beside it first: the
 * whole number of days that puts its times of day on a dated log's span and
 * its readings on that log's readings (the same GPU).  One day that the
 * spans allow and the readings do not contradict, or the one day whose
 * readings match clearly best among several: that date.  Otherwise the
 * driver's rules (file name, --date, file time) stay.  Moves zi[i]'s span.
 */
#define TOD_MAX_DAYS 62		/* candidate days compared by readings */
#define TOD_MATCH_R 0.7		/* readings that repeat the dated log's */
#define TOD_MARGIN_R 0.1	/* over the next best day */
#define TOD_CONTRA_R 0.3	/* below this the readings say "not this day" */

static double tod_readings(const struct pl_collect *pc, size_t i, size_t j, int64_t k, bool *same)
{
	double best = NAN;

	if (!pc->in[i].ng) {
		*same = true;	/* no readings (pmon: processes only): times of day alone */
		return NAN;
	}
	for (size_t g = 0; g < pc->in[i].ng; g++) {
		const struct pl_series *ref = pl_same_gpu(&pc->in[j], &pc->in[i].g[g]);
		double r;
		if (!ref)
			continue;
		*same = true;
		r = pl_corr_shift(&pc->in[i].g[g].s, ref, k * NS_PER_DAY);
		if (!isnan(r) && (isnan(best) || r > best))
			best = r;
	}
	return best;
}

static void date_tod_inputs(struct ingest_result *res, struct zn_input *zi, const struct pl_collect *pc,
			    const struct ingest_opts *o)
{
	for (size_t i = 0; i < res->nr; i++) {
		int64_t k_lo = INT64_MAX, k_hi = INT64_MIN, k_best = 0;
		double r_best = NAN, r_next = NAN;
		size_t from = res->nr, from_best = res->nr;
		struct input_stat *st = &res->inputs[i];
		char day[16], rr[48] = "", note[240];
		int y, m, d;
		bool by_readings = false, stored = false;

		if (!zi[i].tod || zi[i].first_ns == INT64_MIN)
			continue;
		for (size_t j = 0; j < res->nr; j++) {
			int64_t a, b;
			bool same = false;
			if (j == i || zi[j].tod || zi[j].first_ns == INT64_MIN)
				continue;
			/* days k with [first + k, last + k] meeting [first_j, last_j] */
			a = zi[j].first_ns - zi[i].last_ns;
			b = zi[j].last_ns - zi[i].first_ns;
			a = a >= 0 ? (a + NS_PER_DAY - 1) / NS_PER_DAY : -(-a / NS_PER_DAY);
			b = b >= 0 ? b / NS_PER_DAY : -((-b + NS_PER_DAY - 1) / NS_PER_DAY);
			if (a > b)
				continue;
			if (b - a >= TOD_MAX_DAYS)
				b = a + TOD_MAX_DAYS - 1;
			for (int64_t k = a; k <= b; k++) {
				double r = tod_readings(pc, i, j, k, &same);
				if (!same)
					break;	/* another GPU's log dates nothing */
				if (from == res->nr)
					from = j;
				k_lo = k < k_lo ? k : k_lo;
				k_hi = k > k_hi ? k : k_hi;
				if (isnan(r))
					continue;
				if (isnan(r_best) || r > r_best) {
					if (!isnan(r_best) && k != k_best)
						r_next = r_best;
					r_best = r;
					k_best = k;
					from_best = j;
				} else if (k != k_best && (isnan(r_next) || r > r_next)) {
					r_next = r;
				}
			}
		}
		/* the logs read before this run (the store's): times of day only */
		for (size_t j = 0; j < o->nknown_spans && from == res->nr; j++) {
			int64_t a = o->known_spans[j][0] - zi[i].last_ns, b = o->known_spans[j][1] - zi[i].first_ns;
			a = a >= 0 ? (a + NS_PER_DAY - 1) / NS_PER_DAY : -(-a / NS_PER_DAY);
			b = b >= 0 ? b / NS_PER_DAY : -((-b + NS_PER_DAY - 1) / NS_PER_DAY);
			if (a > b)
				continue;
			k_lo = a < k_lo ? a : k_lo;
			k_hi = b > k_hi ? b : k_hi;
			stored = true;
		}
		if (from == res->nr && !stored)
			continue;	/* no dated log of its GPU meets it */
		if (!isnan(r_best) && r_best >= TOD_MATCH_R &&
		    (isnan(r_next) || r_best - r_next >= TOD_MARGIN_R)) {
			by_readings = true;	/* the day whose readings it repeats */
			from = from_best;
		} else if (k_lo == k_hi && (isnan(r_best) || r_best >= TOD_CONTRA_R)) {
			k_best = k_lo;		/* the one day the spans allow */
		} else {
			continue;		/* several days, or readings that disagree */
		}
		st->tod_by_evidence = true;
		st->tod_days = zi[i].tod_days + k_best;
		civil_from_days(st->tod_days, &y, &m, &d);
		snprintf(day, sizeof(day), "%04d-%02d-%02d", y, m, d);
		if (!isnan(r_best) && (by_readings || k_lo == k_hi))
			snprintf(rr, sizeof(rr), ", readings r=%.2f", r_best);
		snprintf(note, sizeof(note),
			 "time of day in file, date %s from %s (%s%s)", day,
			 from == res->nr ? "the logs stored before"
			 : strrchr(res->inputs[from].path, '/') ? strrchr(res->inputs[from].path, '/') + 1
			 : res->inputs[from].path,
			 by_readings ? "its times of day and readings match" : "the one day its times of day meet",
			 rr);
		free(st->tod_note);
		st->tod_note = xstrdup(note);
		zi[i].first_ns += k_best * NS_PER_DAY;
		zi[i].last_ns += k_best * NS_PER_DAY;
	}
}

/*
 * Stamps without a zone are read in TZ; where zoned evidence of the same
 * run (clock references, epoch stamps, traces, placed kernel logs, stamps
 * with an offset) lies a whole number of quarter hours away from them, and
 * agrees after that offset, they are moved by it (zone.h).  Time-of-day
 * logs are dated first (date_tod_inputs).  The first 64 KiB of each input
 * say whether any of this can apply; only then is every input read in full
 * once more.
 */
void place_zones(struct ingest_result *res, const struct ingest_opts *o, struct workpool *pl)
{
	struct zn_input *zi;
	struct pl_collect pc;
	const char **names;
	bool *later, any_local = false, any_zoned = false, any_tod = false, any_dated = false;
	int64_t shift;
	char note[400];
	enum zn_verdict v;

	if (!res->nr)
		return;
	zi = xcalloc(res->nr, sizeof(*zi));
	later = xcalloc(res->nr, sizeof(*later));
	for (size_t i = 0; i < res->nr; i++) {
		/* a trace whose events start past its first 64 KiB: read it whole */
		later[i] = !scan_zone_input(res, i, o, pl, PRESCAN_BYTES, &zi[i], NULL);
		any_local |= zi[i].zoneless;
		any_zoned |= zi[i].zoned;
		any_tod |= zi[i].tod;
		any_dated |= zi[i].first_ns != INT64_MIN && !zi[i].tod;
	}
	any_dated |= o->nknown_spans > 0;
	if (!any_local && !any_tod) {
		free(zi);
		free(later);
		return;
	}
	for (size_t i = 0; i < res->nr; i++)
		if (later[i] && !res->inputs[i].skip_reason[0]) {
			scan_zone_input(res, i, o, pl, 0, &zi[i], NULL);
			any_zoned |= zi[i].zoned;
			any_dated |= zi[i].first_ns != INT64_MIN && !zi[i].tod;
			later[i] = false;	/* read whole already */
		} else {
			/* zoned evidence needs no more than a stretch of it: a
			 * part of a zoned span lies beside the run when the whole does */
			later[i] = zi[i].zoneless;
		}
	if (!any_zoned)
		zn_say_assumed(res, zi, ZN_AGREE, false);
	if (!(any_local && any_zoned) && !(any_tod && any_dated)) {
		zn_hold_undated(res, zi, o);
		free(zi);
		free(later);
		return;
	}
	names = xcalloc(res->nr, sizeof(*names));
	pl_collect_init(&pc, o, res->nr);
	for (size_t i = 0; i < res->nr; i++) {
		/* dating -o T logs compares readings: every timed log, whole */
		if (later[i] || (any_tod && any_dated && zi[i].first_ns != INT64_MIN))
			scan_zone_input(res, i, o, pl, 0, &zi[i], any_tod && any_dated ? &pc : NULL);
		names[i] = res->inputs[i].path;
	}
	date_tod_inputs(res, zi, &pc, o);
	zn_hold_undated(res, zi, o);
	pl_collect_release(&pc);
	v = zn_decide(zi, res->nr, names, &shift, note, sizeof(note));
	if (any_zoned)
		zn_say_assumed(res, zi, v, true);
	if (v != ZN_AGREE)
		for (size_t i = 0; i < res->nr; i++) {
			if (!zi[i].zoneless)
				continue;
			res->inputs[i].zone_shift_ns = v == ZN_SHIFT ? shift : 0;
			free(res->inputs[i].zone_note);
			res->inputs[i].zone_note = xstrdup(note);
		}
	free(names);
	free(zi);
	free(later);
}

