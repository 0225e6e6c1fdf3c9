/* SPDX-License-Identifier: MIT */
/* Unit tests use cmocka; this header brings in what it needs, in order. */
#ifndef TESTS_UNIT_TEST_H
#define TESTS_UNIT_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* assert |got - want| <= tol, printing both on failure */
#define assert_near(got, want, tol)                                             \
	do {                                                                    \
		double got_ = (got), want_ = (want), tol_ = (tol);              \
		if (!(got_ - want_ <= tol_ && want_ - got_ <= tol_))            \
			fail_msg("%s: got %.9g, want %.9g (tolerance %g)", #got, \
				 got_, want_, tol_);                            \
	} while (0)

/* xorshift64: a fixed, repeatable sequence of pseudo-random numbers from *s (not 0) */
static inline uint64_t test_xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#endif
