/* SPDX-License-Identifier: MIT */
/*
 * Allocation for the record module, counted: the recorder allocates at
 * start-up and never in the sampling loop, and a test holds it to that by
 * reading record_alloc_count() before and after ticks.
 */
#ifndef RECORD_RALLOC_H
#define RECORD_RALLOC_H

#include <stddef.h>
#include <stdint.h>

/* xcalloc, counted.  Free with free(). */
void *rec_calloc(size_t nmemb, size_t size);
/* Number of rec_calloc() calls so far in this process. */
uint64_t record_alloc_count(void);

#endif
