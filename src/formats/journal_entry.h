/* SPDX-License-Identifier: MIT */
/* One journald JSON entry, read for journal-json and journal-json-pretty. */
#ifndef GPUTALLY_FORMATS_JOURNAL_ENTRY_H
#define GPUTALLY_FORMATS_JOURNAL_ENTRY_H

#include "formats/format.h"
#include "formats/klenv.h"

#define JJ_MSG_MAX (64 * 1024)	/* a MESSAGE longer than this is cut (records keep 4096) */

struct jj_state {
	struct kl_anchors anc;
	struct kl_state ks;
	char msg[JJ_MSG_MAX];
	char tag[256];
	char boot[64];
};

/* An entry written over several lines: its text, where each line starts in
 * it, and the first line's number. */
struct jj_lines {
	const char *text;
	const uint32_t *starts;
	size_t n;
	uint64_t first_line;
};

/*
 * Read the entry p..end (a JSON object; line is where its line starts, for
 * columns) and emit what it holds; a bad entry is reported with its line
 * and column.  w is NULL for an entry on one line.
 */
void jj_entry(struct parse_ctx *ctx, struct jj_state *st, const struct jj_lines *w, const char *line,
	      const char *p, const char *end);

#endif
