/* SPDX-License-Identifier: MIT */
#include "cli/cost_opts.h"

#include "cli/usage.h"
#include "cost/profile.h"

int cli_cost_params(struct cost_params *p, const char *profile, const char *const *sets, int nsets)
{
	struct gl_err err = { 0 };

	cost_params_init(p);
	if (profile && cost_profile_load(p, profile, &err)) {
		print_gl_err(&err);
		return err.code == GL_EUSAGE ? EXIT_USAGE : EXIT_FAILURE_RUN;
	}
	for (int i = 0; i < nsets; i++)
		if (cost_param_set_kv(p, sets[i], COST_SET, &err)) {
			print_gl_err(&err);
			return EXIT_USAGE;
		}
	return EXIT_OK;
}
