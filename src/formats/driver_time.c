/* SPDX-License-Identifier: MIT */
/*
 * Time resolution: give each record its absolute UTC time in place, from a
 * time of day, a boot-relative time, a tick count or the file itself, across
 * midnights and repeated hours of a clock change.
 */
#include "formats/driver_int.h"
#include "formats/driver.h"

#include <stdlib.h>

#include "formats/anchor.h"
#include "formats/ticks.h"
#include "util/timeutil.h"

/* The YYYYMMDD date in a file name (driver.h). */
int64_t date_from_name(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (const char *p = base; *p; p++) {
		int y, m, d;
		const char *q = p;
		if (p > base && (unsigned)(p[-1] - '0') <= 9)
			continue;
		if (scan_fixed_digits(&q, q + strlen(q), 4, &y) ||
		    scan_fixed_digits(&q, q + strlen(q), 2, &m) ||
		    scan_fixed_digits(&q, q + strlen(q), 2, &d))
			continue;
		if ((unsigned)(*q - '0') <= 9)
			continue;
		if (y >= 1990 && y <= 2200 && civil_valid(y, m, d))
			return days_from_civil(y, m, d);
	}
	return INT64_MIN;
}

/* ---- time resolution ----------------------------------------------------- */

static int64_t local_days_of(int64_t t_ns)
{
	int64_t t_s = t_ns / NS_PER_S;
	int64_t local = t_s + time_utc_offset_s(t_s);
	return (local >= 0 ? local : local - 86399) / 86400;
}

static int64_t local_to_utc_ns(int64_t days, int64_t tod_ns)
{
	int y, m, d;
	int64_t t_s, sec = tod_ns / NS_PER_S;

	civil_from_days(days, &y, &m, &d);
	if (time_local_to_utc(y, m, d, (int)(sec / 3600), (int)(sec / 60 % 60),
			      (int)(sec % 60), &t_s))
		return days * NS_PER_DAY + tod_ns;
	return t_s * NS_PER_S + tod_ns % NS_PER_S;
}

/* Count the ticks of a time-less log with a separate sequential pass. */
static void count_ticks(struct source *s, const struct ingest_opts *o)
{
	struct reader rd;
	struct chunk c = { 0 };
	struct source tmp = { 0 };
	struct tick_seq seq;

	s->ticks_counted = true;
	if (reader_open(&rd, read_path(s->st), NULL))
		return;
	tmp.st = s->st;
	tmp.fmt = s->fmt;
	tmp.opts = o;
	tmp.pool = s->pool;
	tmp.rd = rd;
	c.src = &tmp;
	tick_seq_init(&seq);
	while (cut_chunk(&tmp, &c, DEFAULT_CHUNK, NULL)) {
		parse_chunk(&c, o);
		for (size_t i = 0; i < c.batch.nr; i++) {
			const struct rec *r = &c.batch.recs[i];
			if (r->kind == REC_BAD || r->time_kind != TK_NONE)
				continue;
			if ((r->kind == REC_SAMPLE || r->kind == REC_PROC) && tick_seq_next(&seq, r, &c.batch))
				s->ticks++;
		}
	}
	tick_seq_release(&seq);
	s->st->bytes = 0;	/* counted again by the real pass */
	for (int i = 0; i < tmp.nctx; i++)
		free(tmp.ctx[i]);
	free(tmp.carry);
	/* a stream() format's state of this counting pass (smi-xml without <timestamp>) */
	if (tmp.stream_state && tmp.fmt->fini)
		tmp.fmt->fini(tmp.stream_state);
	free(tmp.stream_state);
	chunk_release(&c);
	reader_close(&tmp.rd);
}

/* The time of tick k (1-based) of a time-less log placed by content or --start. */
static int64_t tick_time(const struct source *s, uint64_t k, const struct ingest_opts *o)
{
	const struct input_stat *st = s->st;

	if (!st->placed_ns)
		return s->tick_anchor_ns + (int64_t)k * o->interval_ns;
	if (k <= st->nplaced)
		return st->placed_ns[k - 1];
	return st->placed_ns[st->nplaced - 1] + (int64_t)(k - st->nplaced) * o->interval_ns;
}


void resolve_time_slow(struct source *s, struct rec *r, const struct ingest_opts *o)
{
	/* a stamp without a zone read in the wrong one (zone.h): moved last,
	 * after the steps below that reason in the zone it was read in */
	int64_t zone_ns = r->time_kind == TK_ABS || r->time_kind == TK_TOD ? s->st->zone_shift_ns : 0;

	if (r->kind == REC_ANCHOR) {
		if (r->anc.quality != ANC_Q_CLOCK_REF || r->anc.boot_id != STR_NONE)
			kboot_next(&s->kboot, r);
		return;
	}
	switch (r->time_kind) {
	case TK_BOOT: {
		/* placed by the plan of the anchoring pre-pass, or left unplaced */
		int64_t t;
		uint32_t b = kboot_next(&s->kboot, r);
		if (r->kind != REC_BAD && anc_place(s->st->anchor, b, r->t_ns, &t)) {
			r->t_ns = t;
			r->time_kind = TK_ABS;
			s->last_t_ns = t;
		}
		return;
	}
	case TK_ABS:
		if (r->t_ns == INT64_MIN)
			r->t_ns = s->last_t_ns;
		break;
	case TK_TOD:
		if (s->tod_base_days == INT64_MIN) {
			if (s->st->tod_by_evidence) {
				s->tod_base_days = s->st->tod_days;
				s->st->time_basis = s->st->tod_note;
			} else if ((s->tod_base_days = date_from_name(s->st->path)) != INT64_MIN) {
				s->st->time_basis = "time of day in file, date from file name";
			} else if (o->date_days != INT64_MIN) {
				s->tod_base_days = o->date_days;
				s->st->time_basis = "time of day in file, date from --date";
			} else {
				s->tod_base_days = local_days_of(s->rd.mtime_ns);
				s->st->time_basis = "time of day in file, date from file modification time";
				s->st->file_time_assumed = true;
				s->st->file_time_ns = s->rd.mtime_ns;
			}
			s->tod_last_ns = r->t_ns;
		}
		/* a step back of more than an hour is midnight passing */
		if (r->t_ns < s->tod_last_ns - 3600 * NS_PER_S)
			s->tod_day_offset++;
		s->tod_last_ns = r->t_ns;
		r->t_ns = local_to_utc_ns(s->tod_base_days + s->tod_day_offset, r->t_ns);
		break;
	case TK_NONE:
		if (!s->ticks_counted) {
			if (s->st->placed_ns || o->has_start) {
				/* placed by content (place.c) or by --start */
				s->ticks_counted = true;
				s->tick_anchor_ns = o->start_ns - o->interval_ns;
			} else {
				count_ticks(s, o);
				s->tick_anchor_ns = s->rd.mtime_ns - s->ticks * o->interval_ns;
				s->st->file_time_assumed = true;
				s->st->file_time_ns = s->rd.mtime_ns;
			}
			s->ticks = 0;
			tick_seq_release(&s->tick);
			s->st->time_basis = s->st->basis[0] ? s->st->basis
				: "no time in file: one tick per --interval, ending at the file modification time";
		}
		if (r->kind == REC_SAMPLE || r->kind == REC_PROC) {
			if (tick_seq_next(&s->tick, r, s->head_batch))
				s->ticks++;
		}
		r->t_ns = tick_time(s, s->ticks ? s->ticks : 1, o);
		break;
	case TK_FILE:
		r->t_ns = s->st->placed_ns ? s->st->placed_ns[0]
			: o->has_start ? o->start_ns : s->rd.mtime_ns;
		if (!s->st->placed_ns && !o->has_start) {
			s->st->file_time_assumed = true;
			s->st->file_time_ns = s->rd.mtime_ns;
		}
		if (!s->st->time_basis)
			s->st->time_basis = s->st->basis[0] ? s->st->basis
				: "snapshot without time: file modification time";
		break;
	}
	r->time_kind = TK_ABS;
	if (r->kind == REC_BAD) {
		if (r->t_ns != INT64_MIN)
			r->t_ns += zone_ns;
		return;
	}
	/*
	 * When clocks fall back, an hour of local time happens twice, and a
	 * timestamp without a zone is converted to the first occurrence.  A
	 * step back of up to an hour across such a change is the second one:
	 * the order of the lines decides (formats.md 9.1).
	 */
	if (s->dst_shift_ns && r->t_ns >= s->dst_until_ns) {
		s->dst_shift_ns = 0;		/* past the repeated hour */
	} else if (!s->dst_shift_ns && s->last_t_ns != INT64_MIN &&
		   r->t_ns < s->last_t_ns - DST_STEP_MIN_NS &&
		   r->t_ns + 3 * 3600 * NS_PER_S >= s->last_t_ns) {
		int64_t lo = r->t_ns / NS_PER_S, hi = lo + 3 * 3600;
		long off = time_utc_offset_s(lo), later = time_utc_offset_s(hi);
		if (later < off) {
			/* the change: the first second with the later offset */
			while (hi - lo > 1) {
				int64_t mid = lo + (hi - lo) / 2;
				if (time_utc_offset_s(mid) == off)
					lo = mid;
				else
					hi = mid;
			}
			s->dst_shift_ns = (int64_t)(off - later) * NS_PER_S;
			s->dst_until_ns = hi * NS_PER_S;
			s->dst_from_ns = s->dst_until_ns - s->dst_shift_ns;
		}
	}
	if (s->dst_shift_ns && r->t_ns >= s->dst_from_ns && r->t_ns < s->dst_until_ns) {
		r->t_ns += s->dst_shift_ns;
		s->st->dst_repeats++;
	}
	s->last_t_ns = r->t_ns;
	if (r->t_ns != INT64_MIN)
		r->t_ns += zone_ns;
}

