/* SPDX-License-Identifier: MIT */
/*
 * Time: int64 nanoseconds since the Unix epoch, UTC (`t_ns`), and int64
 * durations in nanoseconds (`dur_ns`).  Local civil time is converted with
 * the process time zone (the CLI sets TZ from --tz before any call).
 */
#ifndef UTIL_TIMEUTIL_H
#define UTIL_TIMEUTIL_H

#include <stddef.h>
#include <stdint.h>

#define NS_PER_S INT64_C(1000000000)
#define NS_PER_MS INT64_C(1000000)
#define NS_PER_DAY (INT64_C(86400) * NS_PER_S)

/* Days since 1970-01-01 of a proleptic Gregorian date (any year). */
int64_t days_from_civil(int y, int m, int d);
void civil_from_days(int64_t days, int *y, int *m, int *d);
/* 1 if y-m-d is a real calendar date. */
int civil_valid(int y, int m, int d);

/*
 * Seconds since the epoch of a local wall time, using the process time zone.
 * Thread-safe; caches the UTC offset per local hour, so consecutive calls in
 * one hour cost a few instructions.  In a repeated hour (DST fall-back) the
 * first occurrence is taken.  Years outside 1900..2200 are rejected, which
 * keeps every nanosecond product far from overflow.  Returns 0 and fills
 * *t_s, or GL_ERANGE.
 */
int time_local_to_utc(int y, int mo, int d, int h, int mi, int s, int64_t *t_s);

/* How many local wall times this thread has converted (time_local_to_utc,
 * time_parse_iso without a zone): a reader that notes it before and after
 * parsing a file learns whether the file's stamps carried no zone. */
uint64_t time_local_count(void);

/* UTC offset of the process time zone at t_s, in seconds east of UTC. */
long time_utc_offset_s(int64_t t_s);

/* RFC 3339 in UTC: "2026-11-29T22:46:33Z", with ".mmm" when t_ns has
 * milliseconds.  buf needs 32 bytes.  Returns buf. */
char *time_rfc3339(char *buf, size_t cap, int64_t t_ns);

/* RFC 3339 in UTC with microseconds, always: "2026-11-29T22:46:33.123456Z"
 * (the recorder's stamps: two samples a millisecond apart stay distinct).
 * buf needs 32 bytes.  Returns buf. */
char *time_rfc3339_us(char *buf, size_t cap, int64_t t_ns);

/* "1h02m03s" style human duration.  buf needs 32 bytes. */
char *time_human_dur(char *buf, size_t cap, int64_t dur_ns);

/* Parse "500ms", "1s", "2.5s", "1m", "1h", "3d" (bare numbers are seconds). */
int time_parse_dur(const char *s, int64_t *dur_ns);

/* Parse "YYYY-MM-DD" into days since the epoch. */
int time_parse_date(const char *s, int64_t *days);

/* Parse RFC 3339 / ISO 8601 "YYYY-MM-DD[T ]HH:MM:SS[.frac][Z|[ ]+hh:mm|[ ]+hhmm]";
 * the space before an offset is what date '+%F %T %z' writes.  Without a
 * zone the time is local.  Returns 0 or GL_EPARSE. */
int time_parse_iso(const char *s, size_t n, int64_t *t_ns);

#endif
