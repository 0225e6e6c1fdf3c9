/* SPDX-License-Identifier: MIT */
/* `gputally scale` output: text for people, JSON for machines (docs/scale.md). */
#ifndef REPORT_SCALE_OUT_H
#define REPORT_SCALE_OUT_H

#include <stdio.h>

#include "cost/scale.h"

#include <stdbool.h>
#include <stddef.h>

/* src: the run table's name, or NULL for --logs; lg: the windows --logs
 * found the runs in, or NULL for a run table */
void scale_text(FILE *out, const struct scale_result *r, const struct cost_params *p, const char *src,
		const struct scale_logs *lg);
void scale_json(FILE *out, const struct scale_result *r, const struct cost_params *p, const char *src,
		const struct scale_logs *lg);

/* The writers, looked up by name ("text", "json"); NULL for another name. */
struct scale_writer {
	const char *name;
	void (*render)(FILE *out, const struct scale_result *r, const struct cost_params *p, const char *src,
		       const struct scale_logs *lg);
	bool for_terminal;	/* the CLI filters control characters */
};
extern const struct scale_writer scale_writers[];
extern const size_t scale_nwriters;
const struct scale_writer *scale_writer_find(const char *name);

#endif
