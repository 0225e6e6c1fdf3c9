/* SPDX-License-Identifier: MIT */
/* What the commands that read a store share (trend, report --db). */
#ifndef CLI_STORE_OPTS_H
#define CLI_STORE_OPTS_H

#include <stdbool.h>
#include <stdint.h>

/* --since / --until: "YYYY-MM-DD" (a UTC day, as trend's buckets) or RFC 3339
 * (local time without a zone).  Prints the error and returns -1 when bad. */
int store_parse_when(const char *opt, const char *s, int64_t *t_ns);
/* The same, with local: YYYY-MM-DD is the process time zone's midnight (trend --tz). */
int store_parse_when_in(const char *opt, const char *s, bool local, int64_t *t_ns);

#endif
