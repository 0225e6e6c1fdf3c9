/* SPDX-License-Identifier: MIT */
/*
 * Text output that is safe on a terminal.  Logs carry strings gputally
 * prints (process names, file names, kernel lines, a store's task names):
 * one holding ESC ] 0;...BEL or ESC [31m would retitle or recolour the
 * reader's terminal, a CR would overwrite what was printed.  Every text
 * writer prints through a stream of this module, which writes each control
 * character but newline and tab, DEL, and the C1 controls of UTF-8
 * (U+0080..U+009F), as a visible \xNN escape; every other byte (UTF-8
 * text) passes as it is.  JSON, Markdown and HTML escape on their own.
 */
#ifndef UTIL_TERMSAFE_H
#define UTIL_TERMSAFE_H

#include <stddef.h>
#include <stdio.h>

/*
 * A stream that writes what it is given to `under`, escaped.  Closing it
 * closes `under` too, unless that is stdout or stderr (flushed only).
 * Returns `under` itself when no stream can be made.
 */
FILE *term_safe(FILE *under);

/* Replace stdout (for text output) or stderr (messages) by term_safe() of
 * it; once each, later calls do nothing. */
void term_safe_stdout(void);
void term_safe_stderr(void);

/* The escaped form of s into buf (cap bytes, cut if it must be): for a
 * string that goes somewhere no stream of this module reaches. */
const char *term_safe_str(char *buf, size_t cap, const char *s);

#endif
