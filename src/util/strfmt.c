/* SPDX-License-Identifier: MIT */
#include "util/strfmt.h"

#include <stdarg.h>
#include <stdio.h>

bool fmt_cut(char *dst, size_t cap, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (cap == 0)
		return true;
	va_start(ap, fmt);
	n = vsnprintf(dst, cap, fmt, ap);
	va_end(ap);
	if (n < 0) {
		dst[0] = 0;
		return true;
	}
	return (size_t)n >= cap;
}
