/* SPDX-License-Identifier: MIT */
/* Counted allocation for the record module (see ralloc.h). */
#include "record/ralloc.h"

#include <stdatomic.h>

#include "util/xalloc.h"

static atomic_uint_fast64_t n_allocs;

void *rec_calloc(size_t nmemb, size_t size)
{
	atomic_fetch_add_explicit(&n_allocs, 1, memory_order_relaxed);
	return xcalloc(nmemb, size);
}

uint64_t record_alloc_count(void)
{
	return atomic_load_explicit(&n_allocs, memory_order_relaxed);
}
