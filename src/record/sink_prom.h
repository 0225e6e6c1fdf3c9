/* SPDX-License-Identifier: MIT */
/*
 * The Prometheus text (exposition format 0.0.4) of one tick: every column of
 * formats/tally_columns.def that has a Prometheus name, per GPU, plus a
 * busy-seconds counter, an up gauge and the recorder's health.  A value that
 * is unknown has no sample (never 0, never N/A); there are no timestamps.
 * The text is built in a buffer allocated by prom_render_init(); rendering a
 * tick allocates nothing.  prom_pub (publish.h) hands it to the textfile and
 * to HTTP clients.
 */
#ifndef RECORD_SINK_PROM_H
#define RECORD_SINK_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/sampler.h"

#define PROM_LABELS_MAX 480

/* The recorder's own state, exported with every tick. */
struct prom_health {
	uint64_t ticks, overruns, rows, events_dropped;
	uint64_t csv_errors, prom_errors;
	int64_t csv_last_ok_ns, prom_last_ok_ns;	/* wall clock; 0: never */
	int64_t start_ns;
	bool csv_ok;		/* the last CSV batch was written */
};

struct prom_render {
	unsigned int ngpus;
	int64_t last_mono_ns;	/* the previous tick, for busy seconds; 0: none yet */
	int64_t max_dt_ns;	/* a longer gap is not counted as busy or idle */
	char host_label[PROM_LABELS_MAX];	/* host="..." */
	char (*labels)[PROM_LABELS_MAX];	/* per GPU: gpu="0",uuid="...",name="...",host="..." */
	uint64_t *busy_ns;	/* per GPU: sum of util/100 x dt */
	bool *busy_known;	/* per GPU: at least one utilization reading */
	char *buf;
	size_t cap;
};

void prom_render_init(struct prom_render *r, const struct gpu_info *gpus, unsigned int ngpus,
		      const char *host, int64_t interval_ns);
/*
 * Render a tick taken at mono_ns into r->buf; returns its length, or 0 if
 * the text did not fit (then nothing should be published).
 */
size_t prom_render_tick(struct prom_render *r, int64_t mono_ns, const struct gpu_sample *samples,
			const struct prom_health *h);
/* The most bytes a tick can take: the size of r->buf. */
size_t prom_render_cap(const struct prom_render *r);
void prom_render_free(struct prom_render *r);

#endif
