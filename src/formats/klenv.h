/* SPDX-License-Identifier: MIT */
/*
 * What the text envelopes of kernel and system logs share (syslog files and
 * journalctl text, formats.md sections 3.4 and 3.5): the BSD time stamp
 * without a year and the year it is given, the "host tag[pid]: " prefix,
 * the printk stamp "[  52.031082]" that kernel lines may keep, and the
 * anchor that such a line gives.  The JSON journal shares only the anchor.
 */
#ifndef FORMATS_KLENV_H
#define FORMATS_KLENV_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/format.h"
#include "formats/kmsg.h"
#include "util/scan.h"

/* "Nov 29 22:46:09[.123456]": the day space- or zero-padded ("Dec  3",
 * "Dec 03"), English month names.  With a year after the day when one is
 * written ("Feb 28 2023 18:15:12").  Advances *pp past it. */
struct kl_bsd {
	int year;		/* 0: not written */
	int mon, day, h, mi, s;
	int64_t frac_ns;
};
bool kl_parse_bsd(const char **pp, const char *end, struct kl_bsd *t);

/*
 * UTC ns of a BSD stamp, local time of the process zone (--tz, TZ).  A stamp
 * without a year gets the latest year that does not put it more than a day
 * after the reference: the end of --date's day when given, else the file's
 * modification time (lines are written before the file's last change, so
 * December lines in a file changed in January are last year's).  false for
 * an impossible date (Feb 30).
 */
struct kl_year {
	bool have;		/* the reference below is computed (once per chunk) */
	int64_t ref_ns;
	int year, mon;		/* its local year and month */
};
bool kl_bsd_time(const struct parse_ctx *ctx, struct kl_year *c, const struct kl_bsd *t, int64_t *t_ns);

/*
 * The last stamp of the common shape, "Mmm dd HH:MM:SS" (15 bytes, no year,
 * no fraction, English or one-byte month) followed by a blank, and its UTC
 * time: consecutive lines of a log mostly share their second.  A line whose
 * first 16 bytes equal the memo's parses to the same kl_bsd (kl_parse_bsd()
 * reads no byte past them on such a stamp) and, for the same chunk state and
 * context, converts to the same time.  Only stamps that parsed and converted
 * are kept.  Zeroed: empty.
 */
struct kl_bsd_memo {
	uint64_t key[2];	/* the 16 bytes */
	bool have;
	struct kl_bsd t;
	int64_t t_ns;
};
/* true with *t and *t_ns when the 16 bytes at p are the memo's (then the
 * stamp is the 15 bytes at p) */
bool kl_bsd_memo_get(const struct kl_bsd_memo *m, const char *p, const char *end, struct kl_bsd *t,
		     int64_t *t_ns);
/* Keep the stamp at [p, q) (kl_parse_bsd() moved p to q) and its time, when
 * it has the shape above. */
void kl_bsd_memo_put(struct kl_bsd_memo *m, const char *p, const char *q, const char *end,
		     const struct kl_bsd *t, int64_t t_ns);

/* The time_basis words for such stamps (static strings). */
const char *kl_bsd_basis(const struct parse_ctx *ctx, bool has_year);

/* An ISO 8601 stamp up to the next blank ("2026-11-29T22:46:09.123+00:00",
 * "+0000", "Z"; no zone: local time).  *zoned says whether it had one. */
bool kl_parse_iso(const char **pp, const char *end, int64_t *t_ns, bool *zoned);

/*
 * After the time: "host tag[pid]: message", "tag: message" (no host) or
 * "host message" (no tag, e.g. "-- MARK --").  tag is without "[pid]" and
 * ':'.  *msg_at points at the message.  false when nothing follows.
 * *tagged (when not NULL): the message follows a tag and a blank, and no
 * byte at or past *msg_at was read (the answer is the same for any line
 * with the same bytes before *msg_at).
 */
bool kl_split_tag(const char *p, const char *end, struct slice *host, struct slice *tag,
		  const char **msg_at, bool *tagged);

/* A printk stamp "[   52.031082]" at *pp (and the blank after it): its ns. */
bool kl_printk_stamp(const char **pp, const char *end, int64_t *ns);

/*
 * Per-chunk anchor thinning: a kernel log gives a (wall, printk) pair on
 * every line, but the offset between the clocks changes only at a boot or a
 * resume.  kl_anchor() emits a REC_ANCHOR for the first pair of a chunk and
 * for each pair whose offset moved by more than tol_ns from the last one
 * emitted (the same boot id, when one is given).
 */
struct kl_anchors {
	bool have;
	int64_t off_ns;
	char boot_id[40];
};
void kl_anchor_check(struct parse_ctx *ctx, struct kl_anchors *a, int64_t wall_ns, int64_t mono_ns,
		     struct slice boot_id, uint8_t quality, int64_t tol_ns);
/* Inline, the common answer of a kernel log's every line (no boot ids, the
 * offset where it was: nothing); kl_anchor_check() decides the rest. */
static inline void kl_anchor(struct parse_ctx *ctx, struct kl_anchors *a, int64_t wall_ns,
			     int64_t mono_ns, struct slice boot_id, uint8_t quality, int64_t tol_ns)
{
	int64_t off = wall_ns - mono_ns;

	if (a->have && !boot_id.n && !a->boot_id[0] && off - a->off_ns <= tol_ns && a->off_ns - off <= tol_ns)
		return;
	kl_anchor_check(ctx, a, wall_ns, mono_ns, boot_id, quality, tol_ns);
}

/*
 * journalctl writes "[133B blob data]" for a message that is not printable
 * UTF-8: its text is lost.  If msg is such, report the line as bad (counted
 * and shown, never dropped silently) and return true.
 */
bool kl_blob(struct parse_ctx *ctx, struct slice msg, uint32_t col);

/* "message repeated N times: [ msg ]" (rsyslog) and "last message repeated
 * N times" (sysklogd): N, and the repeated text when it is written. */
bool kl_repeat(struct slice msg, uint32_t *n, struct slice *text);

/*
 * Hand a message to the classifier (kmsg_maybe() first, then
 * kmsg_emit_fold() with the envelope's fold state), folding a repeat into
 * the previous event of this chunk when it names the same text: that
 * event's count grows by n; with no such event the repeated text is
 * emitted with count n.  A kernel "Linux version ..." line at a wall time
 * is an EV_BOOT record.  Boot numbers are left 0: the driver counts boots
 * (anchor.h).
 */
struct kl_state {
	struct kmsg_fold fold;	/* bursts (kmsg.h) */
	bool boot_marked;	/* a "-- Boot" marker made the boot's record: its
				 * "Linux version" line is not a second one */
	size_t boot_rec;	/* that record's index + 1 while it waits for the
				 * next entry's wall time; 0: none */
};
void kl_emit(struct parse_ctx *ctx, struct kl_state *ks, struct slice msg, struct slice tag,
	     int64_t t_ns, enum time_kind tk, uint32_t col);

/*
 * journalctl's lines between entries, "-- ... --": "-- Boot <id> --" and
 * "-- Reboot --" start a new boot (an EV_BOOT record at second 0 of its
 * printk clock, and an anchor naming only the boot id); "-- No entries --"
 * and "-- Logs begin at ..." hold nothing.  In a mode with wall times the
 * next entry of the chunk gives the boot record its time (kl_emit); with
 * none it stays on the printk clock, for the driver to place or list.  A
 * syslog file may be such an export too (the short mode has its shape).
 */
void kl_marker(struct parse_ctx *ctx, struct kl_state *ks, const char *line, size_t n);

#endif
