/* SPDX-License-Identifier: MIT */
/*
 * `gputally alert` output: one line per alert, the JSON of docs/alert.md,
 * and the rules as a Prometheus alerting-rules file over the recorder's
 * metric names (docs/record.md).
 */
#ifndef REPORT_ALERT_OUT_H
#define REPORT_ALERT_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analysis/alert.h"

void alert_text(FILE *out, const struct alert_eval *ev);
/* "gpu<index>", else the UUID, "-" for an alert about a file; in buf. */
const char *alert_gpu_label(const struct alert_eval *ev, int gpu, char *buf, size_t cap);
/* temp_high -> GputallyTempHigh: the alertname of the Prometheus rules and of delivery. */
void alert_prom_name(char *buf, size_t cap, const char *id);
void alert_json(FILE *out, const struct alert_eval *ev, const char *profile);
/* The alert list's writers, looked up by name ("text", "json"); NULL for
 * another name.  profile: the cost profile's name the JSON records. */
struct alert_writer {
	const char *name;
	void (*render)(FILE *out, const struct alert_eval *ev, const char *profile);
	bool for_terminal;	/* the CLI filters control characters (messages quote logs) */
};
extern const struct alert_writer alert_writers[];
extern const size_t alert_nwriters;
const struct alert_writer *alert_writer_find(const char *name);
/* u_star: the profile's break-even utilization (NAN: the u* rule is left out). */
void alert_prometheus_rules(FILE *out, const struct alert_rules *rs, double u_star,
			    const char *profile);

#endif
