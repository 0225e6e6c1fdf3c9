/* SPDX-License-Identifier: MIT */
#include "util/dlsyms.h"

#include <dlfcn.h>

int dl_load_syms(const char *lib, const struct dl_sym *syms, size_t n, const char **why)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		*why = dlerror();
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		*syms[i].slot = dlsym(h, syms[i].name);
		if (!*syms[i].slot) {
			for (size_t k = 0; k < n; k++)
				*syms[k].slot = NULL;
			*why = syms[i].name;
			return -2;
		}
	}
	return 0;
}
