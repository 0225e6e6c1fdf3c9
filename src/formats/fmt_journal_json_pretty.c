/* SPDX-License-Identifier: MIT */
/*
 * journalctl -o json-pretty (formats.md 3.6, docs/formats/journal-json-pretty.md):
 * the entries of journal-json, each spread over lines, one field a line:
 *
 *     {
 *             "__REALTIME_TIMESTAMP" : "1795992364000000",
 *             "MESSAGE" : "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus."
 *     }
 *
 * An entry's lines cannot be read apart, so this is a stream format: the
 * bytes arrive in order, cut anywhere, and an entry is gathered from the
 * line that is its "{" to the line that is its "}" (journalctl writes
 * every value, arrays included, on its field's line), then read as
 * journal-json reads a line (journal_entry.c), with each bad field's line
 * and column.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/journal_entry.h"
#include "util/xalloc.h"

#define JP_ENTRY_MAX (1024 * 1024)	/* an entry longer than this is reported, not read */

struct jp_state {
	struct jj_state jj;
	char *line;		/* the line being cut from the pieces */
	size_t line_len, line_alloc;
	bool line_long;		/* the line outgrew JP_ENTRY_MAX: its bytes are dropped */
	char *text;		/* the entry gathered so far */
	size_t text_len, text_alloc;
	uint32_t *starts;	/* where each of its lines starts in text */
	size_t nstarts, starts_alloc;
	bool in;		/* inside an entry */
	bool skipping;		/* inside an entry too long to read */
	bool stray;		/* lines outside an entry were reported: the rest
				 * of the run up to the next '{' are the same
				 * stray text (a file that starts inside an entry) */
	uint64_t first_line;	/* the entry's "{" line */
	uint64_t lines;
};

static bool only(const char *p, size_t n, char c)
{
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
		n--;
	while (n && (*p == ' ' || *p == '\t')) {
		p++;
		n--;
	}
	return n == 1 && *p == c;
}

static bool blank(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
			return false;
	return true;
}

static void jp_add(struct jp_state *st, const char *p, size_t n)
{
	ALLOC_GROW(st->starts, st->nstarts + 1, st->starts_alloc);
	st->starts[st->nstarts++] = (uint32_t)st->text_len;
	ALLOC_GROW(st->text, st->text_len + n + 2, st->text_alloc);
	memcpy(st->text + st->text_len, p, n);
	st->text_len += n;
	st->text[st->text_len++] = '\n';
	st->text[st->text_len] = '\0';
}

/* One whole line (ctx->line is its number). */
static void jp_line(struct parse_ctx *ctx, struct jp_state *st, const char *p, size_t n, bool too_long)
{
	if (!st->in) {
		if (too_long) {
			ctx_bad(ctx, 1, "a line over %d bytes outside a journal entry", JP_ENTRY_MAX);
		} else if (only(p, n, '{')) {
			st->in = true;
			st->skipping = false;
			st->stray = false;
			st->first_line = ctx->line;
			st->text_len = st->nstarts = 0;
			jp_add(st, p, n);
		} else if (!blank(p, n) && !st->stray) {
			st->stray = true;
			ctx_bad(ctx, 1, "not a json-pretty journal entry: expected a line that is '{'%s",
				ctx->line == 1 ? " (the file starts inside an entry: nothing up to the next '{' "
						 "line is read)" : " (nothing up to the next '{' line is read)");
		}
		return;
	}
	if (!st->skipping && (too_long || st->text_len + n + 1 > JP_ENTRY_MAX)) {
		uint64_t at = ctx->line;
		ctx->line = st->first_line;
		ctx_bad(ctx, 1, "a journal entry over %d bytes is not read", JP_ENTRY_MAX);
		ctx->line = at;
		st->skipping = true;
	}
	if (!st->skipping)
		jp_add(st, p, n);
	if (only(p, n, '}') && !too_long) {
		st->in = false;
		if (!st->skipping) {
			struct jj_lines w = { st->text, st->starts, st->nstarts, st->first_line };
			uint64_t at = ctx->line;
			jj_entry(ctx, &st->jj, &w, st->text, st->text, st->text + st->text_len);
			ctx->line = at;
		}
	}
}

static void jp_stream(struct parse_ctx *ctx, const char *p, size_t n, bool last)
{
	struct jp_state *st = ctx->state;
	const char *end = p + n;

	/* each piece has a batch of its own: what the kernel-message state
	 * points at in the last piece's batch (the event a burst folds into,
	 * the boot record waiting for a time) is not there any more */
	st->jj.ks.fold.rec = 0;
	st->jj.ks.boot_rec = 0;
	ctx->line = st->lines;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t take = (size_t)((nl ? nl : end) - p);
		if (!st->line_long) {
			if (st->line_len + take > JP_ENTRY_MAX) {
				st->line_long = true;
			} else {
				ALLOC_GROW(st->line, st->line_len + take + 1, st->line_alloc);
				memcpy(st->line + st->line_len, p, take);
				st->line_len += take;
			}
		}
		if (!nl)
			break;
		ctx->line = ++st->lines;
		jp_line(ctx, st, st->line ? st->line : "", st->line_len, st->line_long);
		st->line_len = 0;
		st->line_long = false;
		p = nl + 1;
	}
	if (last) {
		if (st->line_len || st->line_long) {
			ctx->line = ++st->lines;
			jp_line(ctx, st, st->line ? st->line : "", st->line_len, st->line_long);
			st->line_len = 0;
		}
		if (st->in) {
			ctx->line = st->first_line;
			ctx_bad(ctx, 1, "the journal entry is cut short (no line that is '}' closes it)");
			st->in = false;
		}
	}
	ctx->line = st->lines;
}

static void jp_fini(void *state)
{
	struct jp_state *st = state;

	free(st->line);
	free(st->text);
	free(st->starts);
}

/* A line that is "{" and, soon after, journald's own field names. */
static int jp_sniff(const char *head, size_t n, const char *name)
{
	const char *p = head, *end = head + n;

	(void)name;
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	if (p >= end || *p++ != '{')
		return 0;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	if (p >= end || *p != '\n')
		return 0;
	if ((size_t)(end - p) > 4096)
		end = p + 4096;
	for (; p + 22 <= end; p++)
		if (*p == '"' && (!memcmp(p, "\"__REALTIME_TIMESTAMP\"", 22) || !memcmp(p, "\"__CURSOR\"", 10)))
			return 96;	/* over journal-json's 95 for the same head */
	return 0;
}

const struct format format_journal_json_pretty = {
	.id = "journal-json-pretty",
	.summary = "journalctl -o json-pretty (one field a line): kernel and system events",
	.detects = "a line that is '{', then \"__CURSOR\" or \"__REALTIME_TIMESTAMP\" in the head",
	.state_size = sizeof(struct jp_state),
	.sniff = jp_sniff,
	.stream = jp_stream,
	.fini = jp_fini,
};
