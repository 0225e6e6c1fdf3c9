/* SPDX-License-Identifier: MIT */
#include "util/timeutil.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/err.h"
#include "util/scan.h"

int64_t days_from_civil(int y, int m, int d)
{
	/* Howard Hinnant's algorithm: exact for every proleptic Gregorian date. */
	int64_t yy = (int64_t)y - (m <= 2);
	int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
	int64_t yoe = yy - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

void civil_from_days(int64_t z, int *y, int *m, int *d)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

int civil_valid(int y, int m, int d)
{
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	if (m < 1 || m > 12 || d < 1)
		return 0;
	return d <= mdays[m - 1] + (m == 2 && leap);
}

/* One cache entry per thread: the local hour last converted and its offset. */
static _Thread_local int64_t cache_hour_key = INT64_MIN;
static _Thread_local int64_t cache_offset_s;
static _Thread_local int cache_y = -1, cache_mo, cache_d;
static _Thread_local int64_t cache_days;
static _Thread_local uint64_t local_count;

uint64_t time_local_count(void)
{
	return local_count;
}

int time_local_to_utc(int y, int mo, int d, int h, int mi, int s, int64_t *t_s)
{
	int64_t days, key, local_s;

	/* 1900..2200 keeps every t_ns product far from int64 overflow; the
	 * date of the previous call (a log's lines mostly share one) is known
	 * valid and its day number known */
	if (h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 60)
		return GL_ERANGE;
	local_count++;
	if (y == cache_y && mo == cache_mo && d == cache_d) {
		days = cache_days;
	} else {
		if (y < 1900 || y > 2200 || !civil_valid(y, mo, d))
			return GL_ERANGE;
		days = days_from_civil(y, mo, d);
		cache_y = y;
		cache_mo = mo;
		cache_d = d;
		cache_days = days;
	}
	local_s = days * 86400 + h * 3600 + mi * 60 + s;
	key = days * 24 + h;
	if (key != cache_hour_key) {
		/*
		 * Not mktime(): with tm_isdst = -1 glibc settles a repeated hour
		 * by the DST flag of its previous call, so the answer would depend
		 * on what was converted before.  Take the offset in force a day
		 * earlier if this wall time exists under it (in a repeated hour
		 * that is the first occurrence), else the one a day later if that
		 * fits; in a skipped hour neither fits and the earlier one stays.
		 */
		int64_t hour_s = days * 86400 + h * 3600;
		long before = time_utc_offset_s(hour_s - 86400);
		long after = time_utc_offset_s(hour_s + 86400);
		long off = before;

		if (time_utc_offset_s(hour_s - before) != before &&
		    time_utc_offset_s(hour_s - after) == after)
			off = after;
		cache_offset_s = off;
		cache_hour_key = key;
	}
	*t_s = local_s - cache_offset_s;
	return 0;
}

long time_utc_offset_s(int64_t t_s)
{
	time_t t = (time_t)t_s;
	struct tm tm;

	if (!localtime_r(&t, &tm))
		return 0;
	return tm.tm_gmtoff;
}

static void split_ns(int64_t t_ns, int64_t *sec, int64_t *frac_ns)
{
	*sec = t_ns / NS_PER_S;
	*frac_ns = t_ns % NS_PER_S;
	if (*frac_ns < 0) {
		*frac_ns += NS_PER_S;
		(*sec)--;
	}
}

static char *put_digits(char *p, unsigned v, int n)
{
	for (int i = n - 1; i >= 0; i--) {
		p[i] = (char)('0' + v % 10);
		v /= 10;
	}
	return p + n;
}

/* two digits of v < 100 */
static inline char *put2(char *p, unsigned v)
{
	p[0] = (char)('0' + v / 10);
	p[1] = (char)('0' + v % 10);
	return p + 2;
}

static char *rfc3339(char *buf, size_t cap, int64_t t_ns, bool micro)
{
	int64_t sec, frac, days, rem;
	char tmp[40], *p = tmp;

	/* by hand: reports print one of these per segment, and snprintf is slow */
	split_ns(t_ns, &sec, &frac);
	days = sec / 86400;
	rem = sec % 86400;
	if (rem < 0) {
		rem += 86400;
		days--;
	}
	{
		/* consecutive times share their day: "YYYY-MM-DDT" is made once
		 * per day per thread (c_ok false: a year past 9999 or before 0) */
		static __thread int64_t c_days = INT64_MIN;
		static __thread bool c_ok;
		static __thread char c_day[11];
		if (days != c_days) {
			int y, m, d;
			civil_from_days(days, &y, &m, &d);
			c_days = days;
			c_ok = y >= 0 && y <= 9999;
			if (c_ok) {
				char *q = put2(put2(c_day, (unsigned)y / 100), (unsigned)y % 100);
				*q++ = '-';
				q = put2(q, (unsigned)m);
				*q++ = '-';
				q = put2(q, (unsigned)d);
				*q = 'T';
			}
		}
		if (!c_ok) {
			snprintf(buf, cap, "%lld", (long long)t_ns);
			return buf;
		}
		memcpy(p, c_day, sizeof(c_day));
		p += sizeof(c_day);
	}
	p = put2(p, (unsigned)(rem / 3600));
	*p++ = ':';
	p = put2(p, (unsigned)(rem / 60 % 60));
	*p++ = ':';
	p = put2(p, (unsigned)(rem % 60));
	if (micro) {
		*p++ = '.';
		p = put_digits(p, (unsigned)(frac / 1000), 6);
	} else if (frac / NS_PER_MS) {
		*p++ = '.';
		p = put_digits(p, (unsigned)(frac / NS_PER_MS), 3);
	}
	*p++ = 'Z';
	if (cap) {
		size_t n = (size_t)(p - tmp) < cap ? (size_t)(p - tmp) : cap - 1;
		memcpy(buf, tmp, n);
		buf[n] = '\0';
	}
	return buf;
}

char *time_rfc3339(char *buf, size_t cap, int64_t t_ns)
{
	return rfc3339(buf, cap, t_ns, false);
}

char *time_rfc3339_us(char *buf, size_t cap, int64_t t_ns)
{
	return rfc3339(buf, cap, t_ns, true);
}

char *time_human_dur(char *buf, size_t cap, int64_t dur_ns)
{
	/* half a second away from zero, so -1.6 s and 1.6 s differ only in sign */
	int64_t s = (dur_ns < 0 ? dur_ns - NS_PER_S / 2 : dur_ns + NS_PER_S / 2) / NS_PER_S;
	const char *sign = "";

	if (s < 0) {
		s = -s;
		sign = "-";
	}
	if (s >= 86400)
		snprintf(buf, cap, "%s%lldd%02lldh%02lldm", sign, (long long)(s / 86400),
			 (long long)(s / 3600 % 24), (long long)(s / 60 % 60));
	else if (s >= 3600)
		snprintf(buf, cap, "%s%lldh%02lldm%02llds", sign, (long long)(s / 3600),
			 (long long)(s / 60 % 60), (long long)(s % 60));
	else if (s >= 60)
		snprintf(buf, cap, "%s%lldm%02llds", sign, (long long)(s / 60), (long long)(s % 60));
	else
		snprintf(buf, cap, "%s%llds", sign, (long long)s);
	return buf;
}

int time_parse_dur(const char *s, int64_t *dur_ns)
{
	const char *p = s, *end = s + strlen(s);
	double v;
	double mult = 1e9;

	if (scan_double(&p, end, &v) || v < 0)
		return GL_EPARSE;
	if (p == end || !strcmp(p, "s"))
		mult = 1e9;
	else if (!strcmp(p, "ms"))
		mult = 1e6;
	else if (!strcmp(p, "us"))
		mult = 1e3;
	else if (!strcmp(p, "m") || !strcmp(p, "min"))
		mult = 60e9;
	else if (!strcmp(p, "h"))
		mult = 3600e9;
	else if (!strcmp(p, "d"))
		mult = 86400e9;
	else
		return GL_EPARSE;
	if (v * mult > 9e18)
		return GL_ERANGE;
	*dur_ns = (int64_t)(v * mult + 0.5);
	return 0;
}

int time_parse_date(const char *s, int64_t *days)
{
	const char *p = s, *end = s + strlen(s);
	int y, m, d;

	if (scan_fixed_digits(&p, end, 4, &y) || p >= end || *p++ != '-' ||
	    scan_fixed_digits(&p, end, 2, &m) || p >= end || *p++ != '-' ||
	    scan_fixed_digits(&p, end, 2, &d) || p != end || !civil_valid(y, m, d) ||
	    y < 1900 || y > 2200)
		return GL_EPARSE;
	*days = days_from_civil(y, m, d);
	return 0;
}

int time_parse_iso(const char *s, size_t n, int64_t *t_ns)
{
	const char *p = s, *end = s + n;
	int y, mo, d, h, mi, sec;
	int64_t frac_ns = 0, t_s;

	if (scan_fixed_digits(&p, end, 4, &y) || p >= end || (*p != '-' && *p != '/'))
		return GL_EPARSE;
	p++;
	if (scan_fixed_digits(&p, end, 2, &mo) || p >= end || (*p != '-' && *p != '/'))
		return GL_EPARSE;
	p++;
	if (scan_fixed_digits(&p, end, 2, &d) || p >= end || (*p != 'T' && *p != ' '))
		return GL_EPARSE;
	p++;
	if (scan_fixed_digits(&p, end, 2, &h) || p >= end || *p++ != ':' ||
	    scan_fixed_digits(&p, end, 2, &mi) || p >= end || *p++ != ':' ||
	    scan_fixed_digits(&p, end, 2, &sec))
		return GL_EPARSE;
	if (p < end && (*p == '.' || *p == ',')) {
		int64_t scale = NS_PER_S / 10;
		p++;
		if (p >= end || (unsigned)(*p - '0') > 9)
			return GL_EPARSE;
		while (p < end && (unsigned)(*p - '0') <= 9) {
			frac_ns += (*p - '0') * scale;
			scale /= 10;
			p++;
		}
	}
	if (!civil_valid(y, mo, d) || h > 23 || mi > 59 || sec > 60 || y < 1900 || y > 2200)
		return GL_EPARSE;
	/* date '+%F %T %z' writes one space before a numeric offset */
	if (end - p >= 2 && *p == ' ' && (p[1] == '+' || p[1] == '-'))
		p++;
	if (p == end) {
		if (time_local_to_utc(y, mo, d, h, mi, sec, &t_s))
			return GL_EPARSE;
	} else if (*p == 'Z' && p + 1 == end) {
		t_s = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
	} else if (*p == '+' || *p == '-') {
		int oh, om, sign = *p == '-' ? -1 : 1;
		p++;
		if (scan_fixed_digits(&p, end, 2, &oh))
			return GL_EPARSE;
		if (p < end && *p == ':')
			p++;
		if (scan_fixed_digits(&p, end, 2, &om) || p != end || oh > 23 || om > 59)
			return GL_EPARSE;
		t_s = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec -
		      sign * (oh * 3600 + om * 60);
	} else {
		return GL_EPARSE;
	}
	if (t_s > INT64_MAX / NS_PER_S - 1 || t_s < INT64_MIN / NS_PER_S + 1)
		return GL_ERANGE;
	*t_ns = t_s * NS_PER_S + frac_ns;
	return 0;
}
