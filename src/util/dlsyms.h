/* SPDX-License-Identifier: MIT */
/*
 * A library loaded when a feature first needs it, not at start-up: one
 * table of names and the pointers they fill (libmicrohttpd for --listen,
 * libcurl for --prometheus).
 */
#ifndef UTIL_DLSYMS_H
#define UTIL_DLSYMS_H

#include <stddef.h>

struct dl_sym {
	const char *name;
	void **slot;
};

/*
 * dlopen(lib) and fill every slot of syms.  0 on success (the library stays
 * loaded for the life of the process); -1 when the library cannot be
 * loaded (*why: dlerror()'s text), -2 when it lacks a symbol (*why: its
 * name; every slot is set to NULL again).
 */
int dl_load_syms(const char *lib, const struct dl_sym *syms, size_t n, const char **why);

#endif
