/* SPDX-License-Identifier: MIT */
/* The cost parameters of a command's --profile and --set options. */
#ifndef CLI_COST_OPTS_H
#define CLI_COST_OPTS_H

#include "cost/model.h"

/*
 * Defaults, then the profile (a file or preset; NULL for none), then each
 * KEY=VALUE of --set in order.  Prints what went wrong and returns
 * EXIT_USAGE (a bad key or value, an unknown preset) or EXIT_FAILURE_RUN (an
 * unreadable profile file); EXIT_OK otherwise.
 */
int cli_cost_params(struct cost_params *p, const char *profile, const char *const *sets, int nsets);

#endif
