/* SPDX-License-Identifier: MIT */
/*
 * The version this binary was built as: scripts/version.sh at build time
 * (git describe, or the VERSION file of a release tree), through the
 * generated $(O)/gen/version_string.h.  Printed by `gputally --version` and written
 * as the "gputally_version" member of every JSON document.
 */
#ifndef UTIL_VERSION_H
#define UTIL_VERSION_H

struct jsonw;

const char *gputally_version(void);

/* The "gputally_version" member, the first of a JSON document's top object. */
void jsonw_version(struct jsonw *w);

#endif
