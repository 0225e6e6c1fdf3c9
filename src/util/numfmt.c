/* SPDX-License-Identifier: MIT */
/* Numbers as people read them (util/numfmt.h): the rules, once. */
#include "util/numfmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *nf_num(char *buf, size_t cap, double v, int decimals)
{
	if (isnan(v))
		return "n/a";
	if (isinf(v))
		return v > 0 ? "inf" : "-inf";
	if (decimals < 0)
		decimals = 0;
	if (decimals > 12)
		decimals = 12;
	snprintf(buf, cap, "%.*f", decimals, v);
	/* -0.0004 with 2 decimals is "-0.00": print it as "0.00" */
	if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
		memmove(buf, buf + 1, strlen(buf));
	return buf;
}

int nf_money_decimals(double v)
{
	/* 0.99996 rounds to 1.0000: print it as 1.00 */
	return isfinite(v) && fabs(round(v * 1e4) / 1e4) < 1 ? 4 : 2;
}

const char *nf_money(char *buf, size_t cap, double v, const char *currency)
{
	char n[64];
	const char *s = nf_num(n, sizeof(n), v, nf_money_decimals(v));

	if (currency && currency[0] && isfinite(v))
		snprintf(buf, cap, "%s %s", s, currency);
	else
		snprintf(buf, cap, "%s", s);
	return buf;
}

const char *nf_pct(char *buf, size_t cap, double share, int decimals)
{
	char n[64];
	const char *s = nf_num(n, sizeof(n), 100 * share, decimals);

	if (!isfinite(share))
		return s;
	snprintf(buf, cap, "%s %%", s);
	return buf;
}

/* mib in MiB with suffix sfx, or in GiB (1 decimal) once it would print as 1024 MiB or more */
static const char *mib_unit(char *buf, size_t cap, double mib, int mib_dec, const char *sfx)
{
	char n[64];
	double scale = pow(10, mib_dec);

	if (!isfinite(mib)) {
		snprintf(buf, cap, "%s", nf_num(n, sizeof(n), mib, 0));
		return buf;
	}
	if (fabs(round(mib * scale) / scale) < 1024)
		snprintf(buf, cap, "%s MiB%s", nf_num(n, sizeof(n), mib, mib_dec), sfx);
	else
		snprintf(buf, cap, "%s GiB%s", nf_num(n, sizeof(n), mib / 1024, 1), sfx);
	return buf;
}

const char *nf_mib(char *buf, size_t cap, double mib)
{
	return mib_unit(buf, cap, mib, 0, "");
}

const char *nf_mib_rate(char *buf, size_t cap, double mib_per_h)
{
	return mib_unit(buf, cap, mib_per_h, 1, "/h");
}
