/* SPDX-License-Identifier: MIT */
#ifndef GPUTALLY_UTIL_STRFMT_H
#define GPUTALLY_UTIL_STRFMT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Format into a fixed buffer where cutting the text to fit is intended (a
 * message, a reason, a label): dst always ends in NUL when cap > 0.  Returns
 * true when the text was cut.  Use snprintf where a cut would be a bug and
 * check its result; use this where it is not, so the intent is in the name
 * (and the compiler's -Wformat-truncation is not silenced by a cast).
 */
bool fmt_cut(char *dst, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
