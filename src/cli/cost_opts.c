/* SPDX-License-Identifier: MIT */
#include "cli/cost_opts.h"

#include <inttypes.h>
#include <string.h>

#include "cli/usage.h"
#include "cost/catalog.h"
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

const char *cli_take_catalog_set(const char **sets, int *nsets, const char *dflt)
{
	static const char key[] = "cloud_catalog=";
	int k = 0;

	for (int i = 0; i < *nsets; i++) {
		if (!strncmp(sets[i], key, sizeof(key) - 1))
			dflt = sets[i] + sizeof(key) - 1;
		else
			sets[k++] = sets[i];
	}
	*nsets = k;
	return dflt;
}

int cli_cloud_catalog(struct cloud_catalog *cat, const char *path)
{
	struct gl_err err = { 0 };

	if (!*path) {
		error("--cloud-catalog wants a file (a CSV such as SkyPilot's vms.csv; docs/prices.md)");
		return EXIT_USAGE;
	}
	if (catalog_load(cat, path, &err)) {
		print_gl_err(&err);
		return EXIT_FAILURE_RUN;
	}
	for (uint64_t i = 0; i < cat->nbad && i < CATALOG_BAD_KEPT; i++) {
		const struct gl_err *e = &cat->bad[i];
		warning("%s:%" PRIu64 ":%u: %s", e->src, e->line, e->col, e->msg);
	}
	if (cat->nbad > CATALOG_BAD_KEPT)
		warning("%s: %" PRIu64 " more bad row(s) skipped", path, cat->nbad - CATALOG_BAD_KEPT);
	return EXIT_OK;
}
