/* SPDX-License-Identifier: MIT */
/*
 * What the ingest driver learns about each input (driver.h): the files it
 * found, how each was read, and why one was skipped.  Here, apart from the
 * driver's API, so that the files the driver uses (spool.c, place.c, the
 * driver's own parts) can name an input without depending on the driver.
 */
#ifndef FORMATS_INPUT_H
#define FORMATS_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/anchor.h"
#include "formats/format.h"

/* What the driver learnt about one input.  Strings are owned by the result. */
struct input_stat {
	char *path;
	const struct format *format;	/* NULL when skipped */
	char why[96];			/* "sniffed smi-dmon (score 95)" or "--format" */
	char skip_reason[320];		/* set when the file was not read */
	const char *compression;	/* "plain", "gzip", "zstd" */
	const char *time_basis;		/* how times were obtained, see driver_time.c */
	uint64_t bytes;			/* decompressed bytes */
	uint64_t lines, records, bad;
	bool partial_last_line;
	bool partial_last_read;		/* that last line was a whole row and was read */
	uint64_t dst_repeats;		/* records placed in the second pass of a repeated hour */
	int64_t t_first_ns, t_last_ns;	/* INT64_MIN when no timed record */
	/* a log with no time (place.h): where its ticks were put and why */
	char basis[320];		/* time_basis when set */
	int64_t *placed_ns;		/* by content: the time of each tick, owned */
	size_t nplaced;
	const char *place_ref;		/* the timed input it was matched with */
	double place_r;			/* the fit's correlation (NAN: not by content) */
	double place_uncertain_s;	/* how far off it may be (NAN: unknown) */
	/* a headerless query CSV: the column list it is read with when it was
	 * inferred (a sibling file's header), owned, and what was decided */
	char *columns;
	bool columns_tried;
	char columns_note[256];
	/* a query CSV's columns that map to no field, as written ("a, b"), or empty */
	char columns_unread[256];
	/* a kernel log (TK_BOOT): how each boot is placed (anchor.h), owned,
	 * NULL when nothing places it; its records that stayed TK_BOOT */
	struct anc_plan *anchor;
	uint64_t unplaced;
	/* what sniffing the file's head found, once: the pre-passes and the
	 * run open a file up to three times (driver_prepass.c) */
	bool sniffed;
	const struct format *sniff_format;	/* NULL: no format took it */
	int sniff_score;
	/* stamps without a zone checked against zoned evidence (zone.h): the
	 * shift added to them and what was found (NULL: nothing to say); a
	 * time-of-day log dated by a dated log beside it: that date (local
	 * days) and the basis text; time_basis with the zone sentence added.
	 * The texts are owned, allocated only when there is something to say
	 * (a directory of thousands of logs keeps its inputs small) */
	int64_t zone_shift_ns;
	char *zone_note;
	/* the zone its zone-less stamps were read in when no zoned evidence
	 * set it (zn_say_assumed()): an assumption the report states; owned,
	 * NULL when the stamps carry a zone or evidence set it */
	char *zone_assumed;
	/* its times rest on its file modification time (file_time_ns): a log
	 * with no time, a snapshot, or times of day with no date, that nothing
	 * else placed; an assumption a copy moves, which the report states */
	bool file_time_assumed;
	int64_t file_time_ns;
	bool tod_by_evidence;
	int64_t tod_days;
	char *tod_note;
	char *time_note;
	bool named;		/* given by name, not found in a directory */
	/* a stream (standard input, a pipe, a FIFO): read once into a copy
	 * (spool.h) that every pass reads by read_path, owned */
	bool stream;
	bool spool_cut;		/* longer than the copy's limit: read up to it */
	int spool_fd;
	char *read_path;
};

struct ingest_result {
	struct input_stat *inputs;
	size_t nr, alloc;
};

/* An input that no pass read (skip_reason says why); one read up to a cut
 * has its format and a note in skip_reason instead. */
static inline bool input_unread(const struct input_stat *in)
{
	return !in->format && in->skip_reason[0];
}

#endif
