/* SPDX-License-Identifier: MIT */
/*
 * Imbalance: a GPU much less busy than its peers over the minutes where all
 * of them have data (the per-minute busy and covered seconds of gpu_stats).
 */
#include "analysis/detector.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/timeutil.h"
#include "util/xalloc.h"

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

/*
 * True when x (a float's value: seconds of a minute) is a whole multiple of
 * 2^-39 of at most 64: up to 256 of them add up exactly in a double (below
 * 2^53 units of 2^-39), in any order, so a minute's total less one GPU's
 * is the sum of its peers to the last bit.
 */
static bool sums_exactly(double x)
{
	double u = ldexp(x, 39);

	return x >= 0 && x <= 64 && u == floor(u);
}

/*
 * Minute by minute: each GPU's busy and covered seconds, and its peers'
 * (the other GPUs with data that minute), summed over the minutes it has.
 * The peers' sum is the minute's total less the GPU's own where that is
 * exact (sums_exactly), else added up peer by peer in GPU order: the same
 * figures as summing the peers for each GPU, without its n^2 per minute.
 */
static void imbalance_all(struct analysis *an)
{
	char nm[48];
	int n = an->tl.ngpus;
	int64_t base = INT64_MAX, end = INT64_MIN;
	double *my_b, *my_c, *peer_b, *peer_c, *vb, *vc;
	bool *ok;

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
	my_b = xcalloc((size_t)n * 6, sizeof(double));
	my_c = my_b + n;
	peer_b = my_c + n;
	peer_c = peer_b + n;
	vb = peer_c + n;
	vc = vb + n;
	ok = xcalloc((size_t)n, sizeof(*ok));
	for (int64_t t = base; t < end; t += MIN_NS) {
		double sb = 0, sc = 0;
		int cnt = 0;
		bool exact = true;
		for (int j = 0; j < n; j++) {
			ok[j] = minute_of(&an->gpus[j], t, &vb[j], &vc[j]);
			if (!ok[j])
				continue;
			sb += vb[j];
			sc += vc[j];
			cnt++;
			exact = exact && sums_exactly(vb[j]) && sums_exactly(vc[j]);
		}
		if (cnt < 2)
			continue;	/* no GPU has a peer this minute */
		for (int i = 0; i < n; i++) {
			double pb = 0, pc = 0;
			if (!ok[i])
				continue;
			if (exact) {
				pb = sb - vb[i];
				pc = sc - vc[i];
			} else {
				for (int j = 0; j < n; j++)
					if (j != i && ok[j]) {
						pb += vb[j];
						pc += vc[j];
					}
			}
			my_b[i] += vb[i];
			my_c[i] += vc[i];
			peer_b[i] += pb;
			peer_c[i] += pc;
		}
	}
	for (int i = 0; i < n; i++) {
		struct gpu_stats *g = &an->gpus[i];
		if (my_c[i] >= 300 && peer_c[i] > 0) {
			double mine = my_b[i] / my_c[i], theirs = peer_b[i] / peer_c[i];
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
				 my_c[i] / 60, mine, theirs);
		}
	}
	free(my_b);
	free(ok);
}

const struct detector detector_imbalance = {
	.id = "imbalance",
	.summary = "a GPU much less busy than its peers over the same minutes",
	.finish_all = imbalance_all,
};
