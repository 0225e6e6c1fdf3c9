/* SPDX-License-Identifier: MIT */
/*
 * journalctl -o json, json-seq and json-sse (formats.md 3.6,
 * docs/formats/journal-json.md): one entry per line, tokenized by
 * util/json.  Every value is a string, numbers included; a binary or
 * non-UTF-8 field is an array of byte values, a repeated field an array of
 * strings (the first is used), a field over 4096 bytes null.  json-seq
 * puts an RS byte (0x1E) before each entry, json-sse "data: ".
 *
 * The entry's time is __REALTIME_TIMESTAMP (µs, UTC).  Its MESSAGE, with
 * SYSLOG_IDENTIFIER (else _COMM, else "kernel" for _TRANSPORT=kernel) as
 * the tag, goes to the classifier (kmsg.h).  The pair of
 * __REALTIME_TIMESTAMP and __MONOTONIC_TIMESTAMP that journald took
 * together, with _BOOT_ID, is an anchor (quality 0) that places raw dmesg
 * of the same boot; kernel entries without __MONOTONIC_TIMESTAMP pair it
 * with their _SOURCE_MONOTONIC_TIMESTAMP (the printk clock).
 *
 * json-pretty spreads an entry over many lines, which this line format
 * cannot join: each entry's opening "{" is reported once, with the advice
 * to export with -o json, and the lines inside it are passed over.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/journal_entry.h"
#include "util/json.h"

static void jj_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	const char *p = line, *end = line + n;

	if (*p == 0x1e)
		p++;	/* json-seq */
	else if (n >= 5 && !memcmp(p, "data:", 5))
		for (p += 5; p < end && *p == ' '; p++)
			;	/* json-sse */
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end)
		return;	/* an empty json-seq record */
	if (*p == '{' && p + 1 == end) {
		ctx_bad(ctx, ctx_col(line, p), "journalctl -o json-pretty (one field per line) is not read: "
			"export with -o json");
		return;
	}
	if (*p == '}' || *p == '"')
		return;	/* inside a json-pretty entry, reported at its '{' */
	jj_entry(ctx, ctx->state, NULL, line, p, end);
}

/* An object with journald's own fields near the start of the head. */
static int jj_sniff(const char *head, size_t n, const char *name)
{
	const char *p = head, *end = head + n;
	struct slice s;

	(void)name;
	if (p < end && *p == 0x1e)
		p++;
	else if (n >= 5 && !memcmp(p, "data:", 5))
		p += 5;
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	if (p >= end || *p != '{')
		return 0;
	s = (struct slice){ p, (size_t)(end - p) < 4096 ? (size_t)(end - p) : 4096 };
	for (size_t i = 0; i + 22 <= s.n; i++)
		if (s.p[i] == '"' && (!memcmp(s.p + i, "\"__REALTIME_TIMESTAMP\"", 22) ||
				      !memcmp(s.p + i, "\"__CURSOR\"", 10)))
			return 95;
	return 0;
}

const struct format format_journal_json = {
	.id = "journal-json",
	.summary = "journalctl -o json, json-seq and json-sse (one entry per line): kernel and system events",
	.detects = "a JSON object (after an RS byte or 'data: ') with \"__CURSOR\" or \"__REALTIME_TIMESTAMP\" "
		   "in the head",
	.state_size = sizeof(struct jj_state),
	.sniff = jj_sniff,
	.line = jj_line,
};
