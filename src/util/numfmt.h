/* SPDX-License-Identifier: MIT */
/*
 * Numbers as people read them: the one set of rules every human-readable
 * output (report text, Markdown, HTML, cost, trend, scale, findings) uses.
 *
 *   money   2 decimals, 4 when |v| < 1 ("4104.70 USD", "0.0123 USD")
 *   share   a fraction 0..1 printed as a percentage ("27.3 %")
 *   size    MiB below 1 GiB, GiB from there ("812 MiB", "16.0 GiB")
 *   rate    MiB/h or GiB/h, whichever fits ("95.2 MiB/h", "3686.6 GiB/h")
 *
 * NaN prints as "n/a" and infinities as "inf"/"-inf"; a value that rounds
 * to zero never prints as "-0".  Each returns buf (or a string literal for
 * NaN and the infinities).  JSON keeps raw numbers: see util/jsonw.h.
 */
#ifndef UTIL_NUMFMT_H
#define UTIL_NUMFMT_H

#include <stddef.h>

/* v with exactly `decimals` decimals (0..12). */
const char *nf_num(char *buf, size_t cap, double v, int decimals);
/* The number of decimals money takes: 2, or 4 when |v| < 1. */
int nf_money_decimals(double v);
/* v with nf_money_decimals(v) decimals, then " currency" when one is named. */
const char *nf_money(char *buf, size_t cap, double v, const char *currency);
/* 100 * share with `decimals` decimals, then " %". */
const char *nf_pct(char *buf, size_t cap, double share, int decimals);
/* An amount of memory given in MiB: "%.0f MiB" under 1024 MiB, else "%.1f GiB". */
const char *nf_mib(char *buf, size_t cap, double mib);
/* A rate given in MiB per hour: "%.1f MiB/h" under 1024 MiB/h, else "%.1f GiB/h". */
const char *nf_mib_rate(char *buf, size_t cap, double mib_per_h);

#endif
