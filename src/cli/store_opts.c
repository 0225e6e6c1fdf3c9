/* SPDX-License-Identifier: MIT */
#include "cli/store_opts.h"

#include <string.h>

#include "cli/usage.h"
#include "util/timeutil.h"

int store_parse_when(const char *opt, const char *s, int64_t *t_ns)
{
	int64_t days;

	if (strlen(s) == 10 && time_parse_date(s, &days) == 0) {
		*t_ns = days * 86400 * NS_PER_S;
		return 0;
	}
	if (time_parse_iso(s, strlen(s), t_ns) == 0)
		return 0;
	return error("--%s wants YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS[Z|+hh:mm], got '%s'", opt, s);
}
