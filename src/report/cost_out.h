/* SPDX-License-Identifier: MIT */
/*
 * gputally cost's writers: the model's figures as text, as JSON
 * (docs/cost.md) and as the derivation (--explain, cost_explain.h), each a
 * row of cost_writers; every figure comes from cost_run_compute().
 */
#ifndef REPORT_COST_OUT_H
#define REPORT_COST_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cost/run.h"
#include "report/cost_explain.h"

void cost_out_text(FILE *out, const struct cost_run *r);
void cost_out_json(FILE *out, const struct cost_run *r);

/* --list-profiles: each preset's name, description and currency (n of them in ps), as text or a JSON array. */
void cost_out_presets(FILE *out, const struct cost_params *ps, size_t n, bool json);

struct cost_writer {
	const char *name;	/* "text", "json", "explain" */
	void (*render)(FILE *out, const struct cost_run *r);
	bool for_terminal;	/* the CLI filters control characters */
};
extern const struct cost_writer cost_writers[];
extern const size_t cost_nwriters;
/* The writer called name, or NULL. */
const struct cost_writer *cost_writer_find(const char *name);

#endif
