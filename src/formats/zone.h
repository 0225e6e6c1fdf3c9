/* SPDX-License-Identifier: MIT */
/*
 * Checking stamps without a zone against zoned evidence of the same run.
 *
 * A log written in local time (dmon -o DT, a query loop's timestamp column,
 * dmesg -T, an -q -x snapshot) is read in the process time zone (TZ, --tz).
 * When the logs were written in another zone, they land hours away from
 * what carries absolute times: clock references, epoch stamps, traces,
 * kernel logs placed by anchors, ISO stamps with an offset.  The driver
 * reads every input once more (driver_prepass.c) and hands each input's span here;
 * zn_decide() looks for the whole or quarter-hour offset that puts every
 * zoned input beside the zone-less ones, and says what it found.
 */
#ifndef FORMATS_ZONE_H
#define FORMATS_ZONE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One input as the zone pass saw it. */
struct zn_input {
	bool zoneless;		/* its stamps carry no zone (read in TZ) */
	bool zoned;		/* its times are absolute (epoch, offset, anchor) */
	int64_t first_ns, last_ns;	/* INT64_MIN: no timed record */
	bool tod;		/* times of day only: dated by the driver's rules */
	int64_t tod_days;	/* tod: the date (local days) they were read with */
};

/* Evidence within this much of the zone-less span counts as beside it. */
#define ZN_SLACK_NS (INT64_C(120) * 1000000000)

enum zn_verdict {
	ZN_AGREE,	/* no zoned evidence, or it agrees as read */
	ZN_SHIFT,	/* one offset makes it agree: *shift_ns */
	ZN_AMBIGUOUS,	/* several offsets would: left as read */
	ZN_CONFLICT,	/* no offset fits every zoned input: left as read */
};

/*
 * Decide for the zone-less inputs of in[0..n) (all read in one zone, so one
 * offset for all).  names[i] is input i's path.  Returns the verdict, the
 * shift to add (ZN_SHIFT) and, unless ZN_AGREE, a sentence for each
 * zone-less input's time_basis in note (cap bytes).
 */
enum zn_verdict zn_decide(const struct zn_input *in, size_t n, const char *const *names,
			  int64_t *shift_ns, char *note, size_t cap);

struct ingest_result;
struct ingest_opts;
/*
 * With o->hold_weak (ingest): each time-of-day input of res that nothing
 * dates (no dated log of its GPU, no date in its name, no --date) is left
 * out with the reason, not dated by its file time.  in[i] as for zn_decide.
 */
void zn_hold_undated(struct ingest_result *res, const struct zn_input *in, const struct ingest_opts *o);

/*
 * The zone-less inputs of in[0..n) that no zoned evidence set (there is
 * none in the run, or it conflicts or is ambiguous and they are left as
 * read: v) are read in the process zone, which is then an assumption, not
 * a finding: each gets the zone's name in res->inputs[i].zone_assumed ($TZ
 * as set by --tz or the environment, else "the machine's local time"): the
 * report says it once, not in every input's time_basis (a directory of
 * thousands of logs would list each).
 */
void zn_say_assumed(struct ingest_result *res, const struct zn_input *in, enum zn_verdict v, bool evidence);

/* "+5h30" / "-5h" / "0" for an offset in nanoseconds.  buf: 16 bytes. */
char *zn_offset_str(char *buf, size_t cap, int64_t off_ns);

#endif
