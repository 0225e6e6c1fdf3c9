/* SPDX-License-Identifier: MIT */
/*
 * mem_reserved (article 000's F004, sources.md): the share of a GPU's
 * memory the driver reserves, memory.reserved / memory.total (nvidia-smi -q
 * "FB Memory Usage: Reserved", --query-gpu memory.reserved, the recorder's
 * mem_reserved_mib).  That memory is never free to programs.  Above 1.5 %
 * (the article's threshold) is an info finding; its value is the highest
 * share seen, in %.  The article's own case, 110 MB of 8 GB = 1.375 %, is
 * below that threshold (sources.md, inconsistency 10).
 */
#include "analysis/detector.h"

#include <stdio.h>

#include "util/strfmt.h"

#define RESERVED_MAX_SHARE 0.015

struct reserved_st {
	double share, reserved_mib, total_mib;	/* at the highest share */
	int64_t t0_ns, t1_ns;			/* first and last reading */
	bool seen;
};

static void reserved_interval(struct analysis *an, int gi, void *st, const struct ival *iv, int state)
{
	const uint32_t need = 1u << M_MEM_RESERVED | 1u << M_MEM_TOTAL;
	struct reserved_st *s = st;
	double share;

	(void)an;
	(void)gi;
	(void)state;
	if ((iv->present & need) != need || !(iv->v[M_MEM_TOTAL] > 0) || iv->v[M_MEM_RESERVED] < 0)
		return;
	share = iv->v[M_MEM_RESERVED] / iv->v[M_MEM_TOTAL];
	if (!s->seen)
		s->t0_ns = iv->t0_ns;
	s->t1_ns = iv->t1_ns;
	if (!s->seen || share > s->share) {
		s->share = share;
		s->reserved_mib = iv->v[M_MEM_RESERVED];
		s->total_mib = iv->v[M_MEM_TOTAL];
	}
	s->seen = true;
}

static void reserved_finish(struct analysis *an, int gi, void *st)
{
	struct reserved_st *s = st;
	char name[48];
	struct finding *f;

	if (!s->seen || !(s->share > RESERVED_MAX_SHARE))
		return;
	f = det_finding(an, FK_MEM_RESERVED, gi, s->t0_ns, s->t1_ns, SEV_INFO, 100 * s->share);
	if (!f)
		return;
	analysis_gpu_name(an, gi, name, sizeof(name));
	fmt_cut(f->message, sizeof(f->message),
		"%s: the driver reserves %.0f of %.0f MiB, %.2f %% of its memory (above 1.5 %%), never free to "
		"programs", name, s->reserved_mib, s->total_mib, 100 * s->share);
	fmt_cut(f->evidence, sizeof(f->evidence),
		"memory.reserved / memory.total, the highest share read; threshold 1.5 %% (article 000, F004)");
}

const struct detector detector_mem_reserved = {
	.id = "mem_reserved",
	.summary = "the driver's reserved memory above 1.5 % of the GPU's memory",
	.state_size = sizeof(struct reserved_st),
	.interval = reserved_interval,
	.interval_kinds = 1u << IV_DATA,
	.finish = reserved_finish,
};
