/* SPDX-License-Identifier: MIT */
/*
 * Count every malloc, calloc and realloc in the process (all threads, libc's
 * own included) by wrapping glibc's allocator, for the "no allocation in the
 * sampling loop" tests.  ASan owns malloc, so in the sanitizer build nothing
 * is wrapped and alloc_count() stays 0: those builds check only the record
 * module's own counter.  Include this in one .c file of a test program.
 */
#ifndef TESTS_ALLOC_COUNT_H
#define TESTS_ALLOC_COUNT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__SANITIZE_ADDRESS__)
#define COUNT_LIBC 0
static inline uint64_t alloc_count(void)
{
	return 0;
}
#else
#define COUNT_LIBC 1
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t a, size_t b);
extern void *__libc_realloc(void *p, size_t n);
static atomic_ulong libc_allocs;
void *malloc(size_t n);
void *calloc(size_t a, size_t b);
void *realloc(void *p, size_t n);
void *malloc(size_t n)
{
	atomic_fetch_add(&libc_allocs, 1);
	return __libc_malloc(n);
}
void *calloc(size_t a, size_t b)
{
	atomic_fetch_add(&libc_allocs, 1);
	return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n)
{
	atomic_fetch_add(&libc_allocs, 1);
	return __libc_realloc(p, n);
}
static inline uint64_t alloc_count(void)
{
	return atomic_load(&libc_allocs);
}
#endif

#endif
