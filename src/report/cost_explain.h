/* SPDX-License-Identifier: MIT */
/*
 * `gputally cost --explain`: the derivation of every long-run figure, each
 * formula of docs/cost-model.md written out with the parameters' values put
 * in, so that a reader can check u*, C_L(u) and the job-length break-even by
 * hand (docs/worked-examples.md uses it on the articles' own inputs).
 */
#ifndef REPORT_COST_EXPLAIN_H
#define REPORT_COST_EXPLAIN_H

#include <stdio.h>

#include "cost/run.h"

/* The derivation of r's figures: C_L(u) and the job-length break-even at
 * r->u_job (r->u_at, else 1, as `cost` prints it). */
void cost_explain(FILE *out, const struct cost_run *r);

#endif
