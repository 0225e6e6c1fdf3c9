/* SPDX-License-Identifier: MIT */
/*
 * A pull tokenizer for JSON over one contiguous buffer, for input that
 * arrives in pieces: it never recurses (nesting is a bit stack of bounded
 * depth), validates as it goes (UTF-8, control characters, escapes and
 * surrogate pairs, number grammar, commas and colons), and says JT_MORE when
 * a token runs into the end of a buffer that is not the end of the input, so
 * that the caller can retry the same value with more bytes.
 *
 * Newlines can only be whitespace in valid JSON, so the tokenizer counts
 * them while skipping blanks: positions in messages cost nothing extra.
 */
#ifndef UTIL_JSON_H
#define UTIL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/scan.h"

#define JSON_MAX_DEPTH 256

enum json_tok {
	JT_ERR = -2,	/* lx->err says why, lx->p is where */
	JT_MORE = -1,	/* ran into the end of the buffer before eof */
	JT_DONE = 0,	/* the value begun at depth 0 is complete */
	JT_OBJ, JT_OBJ_END, JT_ARR, JT_ARR_END,
	JT_KEY, JT_STR, JT_NUM, JT_TRUE, JT_FALSE, JT_NULL,
};

struct json_lex {
	const char *p, *end;
	bool eof;		/* no bytes follow end */
	bool trailing_comma;	/* accept [1,] and {"a":1,} (tolerant mode) */
	int depth;
	uint8_t state;
	uint8_t stack[JSON_MAX_DEPTH / 8];	/* bit set: an object */
	uint64_t line;		/* lines begun before p (caller's numbering) */
	const char *line_start;	/* first byte of the current line, or NULL: before the buffer */
	const char *err;
	struct slice tok;	/* JT_KEY, JT_STR: raw text between the quotes; JT_NUM: the number */
	bool tok_esc;		/* the string holds escapes: json_unescape() it */
};

/* Tokenize one value starting at p. */
void json_lex_init(struct json_lex *lx, const char *p, const char *end, bool eof);
/* Start inside an object instead, where a key (or '}') comes next. */
void json_lex_expect_key(struct json_lex *lx);
enum json_tok json_next(struct json_lex *lx);
/* Skip the value whose first token was just returned (a container: up to
 * its end).  Returns JT_DONE-ish success as 1, or the error/more token. */
int json_skip(struct json_lex *lx, enum json_tok first);

/* Decode a validated raw string into dst (at most cap bytes, cut at a
 * character boundary); returns the length. */
size_t json_unescape(struct slice raw, char *dst, size_t cap);

/*
 * A JSON number as an integer count of 10^-scale units, without a double:
 * "198093488368.463" with scale 3 is 198093488368463.  Digits beyond the
 * scale are rounded half away from zero.  -1: too large for int64, or not
 * an integer when scale is 0 and the text has a fraction that is not zero.
 */
int json_num_scaled(struct slice num, int scale, int64_t *out);

#endif
