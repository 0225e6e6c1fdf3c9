/* SPDX-License-Identifier: MIT */
/* `gputally scale` output: text for people, JSON for machines (docs/scale.md). */
#ifndef REPORT_SCALE_OUT_H
#define REPORT_SCALE_OUT_H

#include <stdio.h>

#include "cost/scale.h"

/* lg: the windows --logs found the runs in, or NULL for a run table */
void scale_text(FILE *out, const struct scale_result *r, const struct cost_params *p, const char *src,
		const struct scale_logs *lg);
void scale_json(FILE *out, const struct scale_result *r, const struct cost_params *p, const char *src,
		const struct scale_logs *lg);

#endif
