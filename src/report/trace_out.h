/* SPDX-License-Identifier: MIT */
/* `gputally trace` output: text for people, JSON for machines (docs/trace-json.md). */
#ifndef REPORT_TRACE_OUT_H
#define REPORT_TRACE_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analysis/trace.h"
#include "formats/driver.h"

void trace_text(FILE *out, const struct trace_an *an, const struct ingest_result *in);
void trace_json(FILE *out, const struct trace_an *an, const struct ingest_result *in);

/* The writers, looked up by name ("text", "json"); NULL for another name. */
struct trace_writer {
	const char *name;
	void (*render)(FILE *out, const struct trace_an *an, const struct ingest_result *in);
	bool for_terminal;	/* the CLI filters control characters (kernel names come from traces) */
};
extern const struct trace_writer trace_writers[];
extern const size_t trace_nwriters;
const struct trace_writer *trace_writer_find(const char *name);

#endif
