/* SPDX-License-Identifier: MIT */
/* `gputally trace` output: text for people, JSON for machines (docs/trace-json.md). */
#ifndef REPORT_TRACE_OUT_H
#define REPORT_TRACE_OUT_H

#include <stdio.h>

#include "analysis/trace.h"
#include "formats/driver.h"

void trace_text(FILE *out, const struct trace_an *an, const struct ingest_result *in);
void trace_json(FILE *out, const struct trace_an *an, const struct ingest_result *in);

#endif
