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

struct cloud_catalog;
/* Take each --set cloud_catalog=FILE out of sets (it is a file, not a cost
 * parameter); returns the last one's FILE, else dflt (--cloud-catalog). */
const char *cli_take_catalog_set(const char **sets, int *nsets, const char *dflt);
/* Read a --cloud-catalog file; its bad rows are warnings (FILE:LINE:COL).
 * EXIT_OK, or EXIT_FAILURE_RUN with the error printed. */
int cli_cloud_catalog(struct cloud_catalog *cat, const char *path);

#endif
