/* SPDX-License-Identifier: MIT */
/*
 * Cost profiles: INI text (libinih) that sets the parameters of cost/model.h,
 * read from a file or from the presets built into the binary from
 * the files in profiles/.  Nothing here prints.
 *
 * Layout: keys in a `[cost]` section or before any section, `key = value`,
 * `;` or `#` comments at the start of a line, `;` comments after a value
 * (inih needs a space before it).  Keys are the parameter keys plus the
 * strings `currency`, `name` and `description`.  Lines are at most 198 bytes
 * (inih's fixed line buffer).  A key set twice keeps the last value.
 */
#ifndef COST_PROFILE_H
#define COST_PROFILE_H

#include <stddef.h>

#include "cost/model.h"
#include "util/err.h"

/*
 * Load a profile into p on top of what is there, marking each key it sets
 * COST_PROFILE, and set p->name (the `name` key, else the preset name or the
 * file name without directory and ".ini").  file_or_preset is a path when it
 * contains '/' or ends in ".ini"; otherwise a preset name, then a file of that
 * name if no preset matches.
 * Returns 0; GL_EIO when the file cannot be read; GL_EPARSE with err->src set
 * to the path or preset name (borrowed from the argument or the preset table)
 * and err->line to the offending line for syntax errors, unknown keys or
 * sections and bad values; GL_EUSAGE when nothing of that name exists.
 * On failure p may hold the keys read before the error.
 */
int cost_profile_load(struct cost_params *p, const char *file_or_preset, struct gl_err *err);

/* Parse INI text; src names it in errors (borrowed). */
int cost_profile_load_string(struct cost_params *p, const char *text, const char *src,
			     struct gl_err *err);

/* The presets, in file-name order: NULL past the end. */
const char *cost_preset_name(size_t i);
const char *cost_preset_text(size_t i);

#endif
