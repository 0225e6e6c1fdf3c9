/* SPDX-License-Identifier: MIT */
/* Value tokens shared by every nvidia-smi text format. */
#include "formats/format.h"

#include <string.h>

#include "formats/smi.h"
#include "util/timeutil.h"

bool smi_missing_token(struct slice tok, uint8_t *status)
{
	static const struct {
		const char *tok;
		uint8_t status;
	} tab[] = {
		{ "-", 0 },
		{ "[N/A]", 0 },
		{ "N/A", 0 },
		{ "[Not Supported]", 0 },
		{ "Not Supported", 0 },
		{ "[Insufficient Permissions]", 0 },
		{ "Insufficient Permissions", 0 },
		/* 590-595 drivers, display_mode, power.management, clocks.applications.*
		 * (formats.md 11.3): no reading, and no read error either */
		{ "[Requested functionality has been deprecated]", 0 },
		{ "Requested functionality has been deprecated", 0 },
		{ "[Unknown Error]", GS_READ_ERROR },
		{ "[GPU is lost]", GS_LOST },
		{ "[GPU requires reset]", GS_RESET },
		{ "[Requires Reset]", GS_RESET },
	};

	tok = slice_trim(tok);
	if (tok.n == 0)
		return true;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (slice_eq(tok, tab[i].tok)) {
			*status |= tab[i].status;
			return true;
		}
	/* any other bracketed word is a driver message, never a number */
	if (tok.p[0] == '[' && tok.p[tok.n - 1] == ']') {
		*status |= GS_READ_ERROR;
		return true;
	}
	return false;
}

static const char *const smi_months[12] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
};

int smi_ctime(struct slice s, int64_t *t_ns)
{
	const char *p, *end;
	int mo = -1, d, h, mi, sec, y;
	int64_t t_s;
	struct slice w;

	s = slice_trim(s);
	p = s.p;
	end = s.p + s.n;
	if (!scan_token(&p, end, &w) || w.n != 3)	/* weekday */
		return -1;
	if (!scan_token(&p, end, &w) || w.n != 3)
		return -1;
	for (int i = 0; i < 12; i++)
		if (!memcmp(w.p, smi_months[i], 3))
			mo = i + 1;
	scan_skip_space(&p, end);
	if (mo < 0 || p >= end || *p < '0' || *p > '9')
		return -1;
	d = *p++ - '0';
	if (p < end && *p >= '0' && *p <= '9')
		d = d * 10 + (*p++ - '0');
	scan_skip_space(&p, end);
	if (scan_fixed_digits(&p, end, 2, &h) || p >= end || *p++ != ':' ||
	    scan_fixed_digits(&p, end, 2, &mi) || p >= end || *p++ != ':' ||
	    scan_fixed_digits(&p, end, 2, &sec))
		return -1;
	scan_skip_space(&p, end);
	if (scan_fixed_digits(&p, end, 4, &y) || p != end)
		return -1;
	if (!civil_valid(y, mo, d) || h > 23 || mi > 59 || sec > 60)
		return -1;
	if (time_local_to_utc(y, mo, d, h, mi, sec, &t_s))
		return -1;
	*t_ns = t_s * NS_PER_S;
	return 0;
}

int smi_watch_header(struct slice s, int64_t *t_ns)
{
	if (s.n < 24 || !slice_starts_with(s, "Every "))
		return -1;
	return smi_ctime((struct slice){ s.p + s.n - 24, 24 }, t_ns);
}

bool smi_value_unit(struct slice v, const char *unit, double *out, uint8_t *status)
{
	const char *p, *end;
	double d;

	v = slice_trim(v);
	p = v.p;
	end = v.p + v.n;
	if (smi_missing_token(v, status))
		return false;
	if (scan_double(&p, end, &d))
		return false;
	scan_skip_space(&p, end);
	if (p != end && !slice_eq((struct slice){ p, (size_t)(end - p) }, unit))
		return false;
	*out = d;
	return true;
}
