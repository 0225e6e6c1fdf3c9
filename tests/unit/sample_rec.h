/* SPDX-License-Identifier: MIT */
/* A sample record for tests that feed analysis_add() by hand. */
#ifndef TEST_SAMPLE_REC_H
#define TEST_SAMPLE_REC_H

#include <string.h>

#include "formats/format.h"

/* GPU gpu's sample at t_ns (an absolute time), no metrics yet, no strings. */
static inline struct rec sample_rec(int64_t t_ns, int gpu)
{
	struct rec r;

	memset(&r, 0, sizeof(r));
	r.kind = REC_SAMPLE;
	r.time_kind = TK_ABS;
	r.t_ns = t_ns;
	r.gpu_index = gpu;
	r.uuid = r.name = STR_NONE;
	return r;
}

#endif
