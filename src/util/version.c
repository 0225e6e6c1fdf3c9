/* SPDX-License-Identifier: MIT */
/* The only file that includes the generated version header, so a new commit
 * recompiles this one file. */
#include "util/version.h"

#include "version_string.h"
#include "util/jsonw.h"

#ifndef GPUTALLY_VERSION
#error "version_string.h did not define GPUTALLY_VERSION"
#endif

const char *gputally_version(void)
{
	return GPUTALLY_VERSION;
}

void jsonw_version(struct jsonw *w)
{
	jsonw_kstr(w, "gputally_version", GPUTALLY_VERSION);
}
