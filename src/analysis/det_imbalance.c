/* SPDX-License-Identifier: MIT */
/*
 * Imbalance: a GPU much less busy than its peers over the minutes where all
 * of them have data (the per-minute busy and covered seconds of gpu_stats).
 */
#include "analysis/detector.h"

#include <stdio.h>

#include "util/timeutil.h"

#define MIN_NS (60 * NS_PER_S)

/* busy and covered seconds of GPU j's minute starting at t, or false */
static bool minute_of(const struct gpu_stats *h, int64_t t, double *busy, double *cov)
{
	int64_t m = (t - h->min_base_ns) / MIN_NS;

	if (m < 0 || (size_t)m >= h->nmin || h->min_cov_s[m] < 30)
		return false;
	*busy = h->min_busy_s[m];
	*cov = h->min_cov_s[m];
	return true;
}

static void imbalance_all(struct analysis *an)
{
	char nm[48];
	int n = an->tl.ngpus;
	int64_t base = INT64_MAX, end = INT64_MIN;

	if (n < 2)
		return;
	for (int i = 0; i < n; i++) {
		struct gpu_stats *g = &an->gpus[i];
		if (!g->nmin)
			continue;
		if (g->min_base_ns < base)
			base = g->min_base_ns;
		if (g->min_base_ns + (int64_t)g->nmin * MIN_NS > end)
			end = g->min_base_ns + (int64_t)g->nmin * MIN_NS;
	}
	if (base == INT64_MAX)
		return;
	for (int i = 0; i < n; i++) {
		double my_b = 0, my_c = 0, peer_b = 0, peer_c = 0;
		struct gpu_stats *g = &an->gpus[i];
		for (int64_t t = base; t < end; t += MIN_NS) {
			double mb, mc, pb = 0, pc = 0, b, c;
			int peers = 0;
			if (!minute_of(g, t, &mb, &mc))
				continue;
			for (int j = 0; j < n; j++) {
				if (j == i || !minute_of(&an->gpus[j], t, &b, &c))
					continue;
				pb += b;
				pc += c;
				peers++;
			}
			if (!peers)
				continue;
			my_b += mb;
			my_c += mc;
			peer_b += pb;
			peer_c += pc;
		}
		if (my_c >= 300 && peer_c > 0) {
			double mine = my_b / my_c, theirs = peer_b / peer_c;
			struct finding *f;
			if (theirs < 0.2 || mine >= 0.5 * theirs)
				continue;
			f = det_finding(an, FK_IMBALANCE, i, g->first_ns, g->last_ns, SEV_WARNING,
					100 * (theirs - mine));
			if (!f)
				continue;
			snprintf(f->message, sizeof(f->message),
				 "%s was %.0f %% busy while its peers were %.0f %% busy over the same minutes",
				 analysis_gpu_name(an, i, nm, sizeof(nm)), 100 * mine, 100 * theirs);
			snprintf(f->evidence, sizeof(f->evidence),
				 "busy fraction over %.0f common minutes: this GPU %.3f, mean of peers %.3f",
				 my_c / 60, mine, theirs);
		}
	}
}

const struct detector detector_imbalance = {
	.id = "imbalance",
	.summary = "a GPU much less busy than its peers over the same minutes",
	.finish_all = imbalance_all,
};
