/* SPDX-License-Identifier: MIT */
/* What the commands that read a store share (trend, report --db). */
#ifndef CLI_STORE_OPTS_H
#define CLI_STORE_OPTS_H

#include <stdint.h>

/* --since / --until: "YYYY-MM-DD" (a UTC day, as trend's buckets) or RFC 3339
 * (local time without a zone).  Prints the error and returns -1 when bad. */
int store_parse_when(const char *opt, const char *s, int64_t *t_ns);

#endif
