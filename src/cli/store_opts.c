/* SPDX-License-Identifier: MIT */
#include "cli/store_opts.h"

#include <string.h>

#include "cli/usage.h"
#include "util/timeutil.h"

int store_parse_when(const char *opt, const char *s, int64_t *t_ns)
{
	return store_parse_when_in(opt, s, false, t_ns);
}

int store_parse_when_in(const char *opt, const char *s, bool local, int64_t *t_ns)
{
	int64_t days, t;

	if (strlen(s) == 10 && time_parse_date(s, &days) == 0) {
		int y, m, d;
		civil_from_days(days, &y, &m, &d);
		if (!local)
			t = days * 86400;
		else if (time_local_to_utc(y, m, d, 0, 0, 0, &t))
			return error("--%s: %s is out of range", opt, s);
		*t_ns = t * NS_PER_S;
		return 0;
	}
	if (time_parse_iso(s, strlen(s), t_ns) == 0)
		return 0;
	return error("--%s wants YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS[Z|+hh:mm], got '%s'", opt, s);
}
