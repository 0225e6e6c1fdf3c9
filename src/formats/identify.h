/* SPDX-License-Identifier: MIT */
/*
 * What a file that no format reads is (identify.c): "looks like lspci
 * output: not telemetry", "a --help text: not telemetry", ... or NULL when it
 * is not known either.  head is the sniffed start of the file, name its base
 * name.  The text is static.
 */
#ifndef FORMATS_IDENTIFY_H
#define FORMATS_IDENTIFY_H

#include <stddef.h>

const char *format_identify(const char *head, size_t n, const char *name);

#endif
