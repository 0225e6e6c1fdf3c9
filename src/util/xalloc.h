/* SPDX-License-Identifier: MIT */
/* Allocation that cannot fail: on exhaustion the process prints and aborts. */
#ifndef UTIL_XALLOC_H
#define UTIL_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* realloc(p, nmemb * size), dying on multiplication overflow. */
void *xreallocarray(void *p, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Grow array `a` (with capacity `alloc`) so that it holds at least `nr`. */
#define ALLOC_GROW(a, nr, alloc)                                              \
	do {                                                                  \
		if ((nr) > (alloc)) {                                         \
			size_t alloc_grow_n_ = (alloc) < 16 ? 16 : (alloc) * 2;  \
			if (alloc_grow_n_ < (nr))                             \
				alloc_grow_n_ = (nr);                         \
			(a) = xreallocarray((a), alloc_grow_n_, sizeof(*(a)));  \
			(alloc) = alloc_grow_n_;                              \
		}                                                             \
	} while (0)

#endif
