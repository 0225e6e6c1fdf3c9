/* SPDX-License-Identifier: MIT */
/*
 * pcie_link_degraded (article 000's F007, docs/shared sources.md): the PCIe
 * link of a busy GPU runs below what the GPU and its slot can do, x8 of x16
 * or gen 3 of gen 4.  The specified bandwidth is the per-lane rate of the
 * highest generation times the widest width (pcie.link.gen.max,
 * pcie.link.width.max); the achieved one is the same of the link in use.
 * Below 85 % of it is a downgrade (the article's threshold).  Only time
 * under load counts (utilization at least 50 %): an idle GPU drops its link
 * generation to save power, and that is no fault.  One finding per GPU;
 * its value is the lowest achieved share seen, in %.
 */
#include "analysis/detector.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/strfmt.h"
#include "util/timeutil.h"

#define PCIE_LOAD_UTIL_PCT 50.0	/* judged only at or above this utilization */
#define PCIE_MIN_SHARE 0.85	/* achieved / specified below this: downgraded */

struct pcie_st {
	double load_s;		/* time under load with the link known */
	double down_s;		/* ... of it below the threshold */
	double got_gbs_s, spec_gbs_s;	/* bandwidth x time over the downgraded time */
	int64_t t0_ns, t1_ns;	/* the first and the last downgraded interval */
	double worst;		/* the lowest share seen (0 none yet) */
	int gen, width, gen_max, width_max;	/* the link at the worst share */
};

static double pcie_lane_gbs(int gen)
{
	/* GB/s per lane and direction after line encoding (8b/10b to gen 2,
	 * 128b/130b from gen 3; gen 6 FLIT) */
	static const double rate[] = { 0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.563 };

	return gen >= 1 && gen <= 6 ? rate[gen] : NAN;
}

static bool link_known(const struct ival *iv)
{
	const uint32_t need = 1u << M_PCIE_GEN | 1u << M_PCIE_GEN_MAX | 1u << M_PCIE_WIDTH |
			      1u << M_PCIE_WIDTH_MAX;

	return (iv->present & need) == need;
}

static void pcie_interval(struct analysis *an, int gi, void *st, const struct ival *iv, int state)
{
	struct pcie_st *s = st;
	double dt = ival_s(iv), got, spec, share;
	int gen, width, gmax, wmax;

	(void)an;
	(void)gi;
	(void)state;
	if (!(iv->present & (1u << M_UTIL_GPU)) || iv->v[M_UTIL_GPU] < PCIE_LOAD_UTIL_PCT || !link_known(iv))
		return;
	gen = (int)iv->v[M_PCIE_GEN];
	width = (int)iv->v[M_PCIE_WIDTH];
	gmax = (int)iv->v[M_PCIE_GEN_MAX];
	wmax = (int)iv->v[M_PCIE_WIDTH_MAX];
	got = pcie_lane_gbs(gen) * width;
	spec = pcie_lane_gbs(gmax) * wmax;
	if (!(got > 0) || !(spec > 0))
		return;
	s->load_s += dt;
	share = got / spec;
	if (share >= PCIE_MIN_SHARE)
		return;
	if (s->down_s == 0)
		s->t0_ns = iv->t0_ns;
	s->t1_ns = iv->t1_ns;
	s->down_s += dt;
	s->got_gbs_s += got * dt;
	s->spec_gbs_s += spec * dt;
	if (s->worst == 0 || share < s->worst) {
		s->worst = share;
		s->gen = gen;
		s->width = width;
		s->gen_max = gmax;
		s->width_max = wmax;
	}
}

static void pcie_finish(struct analysis *an, int gi, void *st)
{
	struct pcie_st *s = st;
	char name[48], d[32];
	double got, spec;
	struct finding *f;

	if (!(s->down_s > 0))
		return;
	f = det_finding(an, FK_PCIE_LINK_DEGRADED, gi, s->t0_ns, s->t1_ns, SEV_WARNING, 100 * s->worst);
	if (!f)
		return;
	f->total_s = s->down_s;
	got = pcie_lane_gbs(s->gen) * s->width;
	spec = pcie_lane_gbs(s->gen_max) * s->width_max;
	analysis_gpu_name(an, gi, name, sizeof(name));
	time_human_dur(d, sizeof(d), (int64_t)(s->down_s * 1e9 + 0.5));
	fmt_cut(f->message, sizeof(f->message),
		"%s's PCIe link ran at gen %d x%d of gen %d x%d under load for %s: %.1f of %.1f GB/s, "
		"%.0f %% of the specified bandwidth (below 85 %%), %.1f GB/s lost", name, s->gen, s->width,
		s->gen_max, s->width_max, d, got, spec, 100 * s->worst, spec - got);
	fmt_cut(f->evidence, sizeof(f->evidence),
		"%.1f of %.1f s under load (utilization >= 50 %%) below 85 %% of the link's maximum, "
		"%.1f %% of the specified bandwidth on average; per lane and direction gen 1-6: "
		"0.25, 0.5, 0.985, 1.969, 3.938, 7.563 GB/s; an idle GPU's lower link is not judged",
		s->down_s, s->load_s, 100 * s->got_gbs_s / s->spec_gbs_s);
}

const struct detector detector_pcie_link = {
	.id = "pcie_link",
	.summary = "a busy GPU's PCIe link below 85 % of its maximum bandwidth (generation x width), with the bandwidth lost",
	.state_size = sizeof(struct pcie_st),
	.interval = pcie_interval,
	.interval_kinds = 1u << IV_DATA,
	.finish = pcie_finish,
};
