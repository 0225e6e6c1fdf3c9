/* SPDX-License-Identifier: MIT */
/*
 * kernel_error_density (article 000's F009, sources.md): the kernel error
 * lines of one log (Xids, fall-offs, RmInitAdapter, GSP, modeset, PCIe AER,
 * NVLink and other NVRM errors; each line of a folded burst counted) per
 * MB (10^6 bytes) of that log.  Above 3.2 per MB the article reads the
 * host as unstable: a warning, one per log, valued at the density.  The
 * rate is judged only over a log of at least 1 MB: the threshold is per
 * MB, and an excerpt of a few kB with one Xid says nothing of a density.
 * The evidence adds the same errors per GPU-day of the report's GPUs.
 * analysis.c counts the lines per input (struct an_klog); the sizes come
 * from analysis_input_size().
 */
#include "analysis/detector.h"

#include <stdio.h>
#include <string.h>

#include "util/strfmt.h"

#define KERR_PER_MB_MAX 3.2
#define KERR_MIN_BYTES 1000000u

static void kerr_finish_all(struct analysis *an)
{
	double gpu_days = 0;
	int64_t first = 0, last = 0;

	for (int gi = 0; gi < an->tl.ngpus; gi++) {
		const struct gpu_stats *g = &an->gpus[gi];
		if (g->last_ns <= g->first_ns)
			continue;
		gpu_days += (double)(g->last_ns - g->first_ns) / 1e9 / 86400;
		if (!first || g->first_ns < first)
			first = g->first_ns;
		if (g->last_ns > last)
			last = g->last_ns;
	}
	for (size_t i = 0; i < an->nklogs; i++) {
		const struct an_klog *k = &an->klogs[i];
		const char *base = k->src ? strrchr(k->src, '/') : NULL;
		double mb = (double)k->bytes / 1e6, per_mb;
		char day[64] = "";
		struct finding *f;

		if (!k->errors || k->bytes < KERR_MIN_BYTES)
			continue;
		per_mb = (double)k->errors / mb;
		if (!(per_mb > KERR_PER_MB_MAX))
			continue;
		f = det_finding(an, FK_KERNEL_ERROR_DENSITY, -1, k->t0_ns ? k->t0_ns : first,
				k->t1_ns ? k->t1_ns : last, SEV_WARNING, per_mb);
		if (!f)
			return;
		if (gpu_days > 0)
			snprintf(day, sizeof(day), ", %.1f per GPU-day over %.3g GPU-days", (double)k->errors / gpu_days,
				 gpu_days);
		fmt_cut(f->message, sizeof(f->message),
			"%s has %.1f kernel error lines per MB (above 3.2 per MB: the host is unstable): %llu in "
			"%.2f MB%s", base ? base + 1 : k->src ? k->src : "?", per_mb, (unsigned long long)k->errors, mb,
			day);
		fmt_cut(f->evidence, sizeof(f->evidence),
			"Xid, fall-off, RmInitAdapter, GSP, modeset, PCIe AER, NVLink and other NVRM error lines "
			"(each line of a burst) over the log's %llu bytes (1 MB = 10^6 bytes); threshold 3.2 per MB "
			"(article 000, F009), judged on logs of at least 1 MB", (unsigned long long)k->bytes);
	}
}

const struct detector detector_kernel_errors = {
	.id = "kernel_errors",
	.summary = "a kernel log with more than 3.2 error lines per MB (judged on logs of at least 1 MB)",
	.finish_all = kerr_finish_all,
};
