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

#include "cost/model.h"

/* u: the utilization of C_L(u) and of the job-length break-even (NAN: not
 * given, the job break-even then at u = 1, as `cost` prints it). */
void cost_explain(FILE *out, const struct cost_params *p, double u);

#endif
