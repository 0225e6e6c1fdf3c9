/* SPDX-License-Identifier: MIT */
/*
 * `gputally alert` output: one line per alert, the JSON of docs/alert.md,
 * and the rules as a Prometheus alerting-rules file over the recorder's
 * metric names (docs/record.md).
 */
#ifndef REPORT_ALERT_OUT_H
#define REPORT_ALERT_OUT_H

#include <stdio.h>

#include "analysis/alert.h"

void alert_text(FILE *out, const struct alert_eval *ev);
void alert_json(FILE *out, const struct alert_eval *ev, const char *profile);
/* u_star: the profile's break-even utilization (NAN: the u* rule is left out). */
void alert_prometheus_rules(FILE *out, const struct alert_rules *rs, double u_star,
			    const char *profile);

#endif
