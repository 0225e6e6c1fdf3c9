/* SPDX-License-Identifier: MIT */
/* The Prometheus text of a tick (see sink_prom.h). */
#include "record/sink_prom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/outbuf.h"
#include "record/ralloc.h"
#include "util/timeutil.h"

enum { GAUGE, COUNTER };

struct prom_col {
	const char *name, *help;
	int type, dec;
	int64_t mul;		/* integer: every prom_mul in the table is one */
};

static const struct prom_col cols[TC__COUNT] = {
#define TCOL(id, csv, metric, dec, prom, type, mul, src, help) \
	{ prom, help, type, dec, (int64_t)(mul) },
#include "formats/tally_columns.def"
#undef TCOL
};

/* Families besides the columns, each with its HELP line: at most this many. */
#define EXTRA_FAMILIES 16
#define FAMILY_HEAD_MAX 320	/* "# HELP ...\n# TYPE ...\n" */
#define SAMPLE_VALUE_MAX 48

/* A process's labels with its GPU's: pid, user, job, container (procinfo.h's fields at their longest, escaped). */
#define PROC_LABELS_MAX (PROM_LABELS_MAX + 2 * (16 + 32 + 24 + 72) + 64)

/* Label values escape backslash, double quote and newline (0.0.4). */
static void put_label_value(struct out *o, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			put_ch(o, '\\');
		if (*s == '\n') {
			put_str(o, "\\n");
			continue;
		}
		put_ch(o, *s);
	}
}

static void put_label(struct out *o, const char *name, const char *value, bool comma)
{
	if (comma)
		put_ch(o, ',');
	put_str(o, name);
	put_str(o, "=\"");
	put_label_value(o, value);
	put_ch(o, '"');
}

/* HELP text escapes backslash and newline. */
static void put_family(struct out *o, const char *name, int type, const char *help)
{
	put_str(o, "# HELP ");
	put_str(o, name);
	put_ch(o, ' ');
	for (const char *s = help; *s; s++) {
		if (*s == '\\')
			put_str(o, "\\\\");
		else if (*s == '\n')
			put_str(o, "\\n");
		else
			put_ch(o, *s);
	}
	put_str(o, "\n# TYPE ");
	put_str(o, name);
	put_str(o, type == COUNTER ? " counter\n" : " gauge\n");
}

static void put_sample_head(struct out *o, const char *name, const char *labels)
{
	put_str(o, name);
	put_ch(o, '{');
	put_str(o, labels);
	put_str(o, "} ");
}

void prom_render_init(struct prom_render *r, const struct gpu_info *gpus, unsigned int ngpus,
		      const char *host, int64_t interval_ns)
{
	struct out o;

	memset(r, 0, sizeof(*r));
	r->ngpus = ngpus;
	/* a gap longer than this is not extrapolated from one utilization reading */
	r->max_dt_ns = 2 * interval_ns;
	r->labels = rec_calloc(ngpus ? ngpus : 1, sizeof(*r->labels));
	r->busy_ns = rec_calloc(ngpus ? ngpus : 1, sizeof(*r->busy_ns));
	r->busy_known = rec_calloc(ngpus ? ngpus : 1, sizeof(*r->busy_known));
	o = (struct out){ r->host_label, r->host_label + sizeof(r->host_label) - 1, false };
	put_label(&o, "host", host, false);
	*o.p = 0;
	for (unsigned int i = 0; i < ngpus; i++) {
		char idx[16];
		struct out l = { r->labels[i], r->labels[i] + PROM_LABELS_MAX - 1, false };

		snprintf(idx, sizeof(idx), "%u", gpus[i].index);
		put_label(&l, "gpu", idx, false);
		put_label(&l, "uuid", gpus[i].uuid, true);
		put_label(&l, "name", gpus[i].name, true);
		put_label(&l, "host", host, true);
		if (l.full) {	/* cannot happen with sanitized names; never a broken label set */
			l = (struct out){ r->labels[i], r->labels[i] + PROM_LABELS_MAX - 1, false };
			put_label(&l, "gpu", idx, false);
		}
		*l.p = 0;
	}
	r->cap = (size_t)(TC__COUNT + EXTRA_FAMILIES) * FAMILY_HEAD_MAX +
		 (size_t)EXTRA_FAMILIES * 2 * (sizeof(r->host_label) + 64 + SAMPLE_VALUE_MAX) +
		 (size_t)ngpus * (TC__COUNT + 3) * (PROM_LABELS_MAX + 64 + SAMPLE_VALUE_MAX) +
		 (size_t)ngpus * SAMPLER_MAX_PROCS * 2 * (PROC_LABELS_MAX + 64 + SAMPLE_VALUE_MAX);
	r->buf = rec_calloc(1, r->cap);
}

size_t prom_render_cap(const struct prom_render *r)
{
	return r->cap;
}

void prom_render_free(struct prom_render *r)
{
	free(r->labels);
	free(r->busy_ns);
	free(r->busy_known);
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

static void health_counter(struct out *o, const struct prom_render *r, const char *name,
			   const char *help, int type, uint64_t v)
{
	put_family(o, name, type, help);
	put_sample_head(o, name, r->host_label);
	put_u64(o, v);
	put_ch(o, '\n');
}

/* A wall-clock time in seconds with millisecond precision. */
static void put_time_s(struct out *o, int64_t t_ns)
{
	put_fixed(o, t_ns / NS_PER_MS, 3);
}

static void put_sink_sample(struct out *o, const struct prom_render *r, const char *name,
			    const char *sink)
{
	put_str(o, name);
	put_ch(o, '{');
	put_str(o, r->host_label);
	put_str(o, ",sink=\"");
	put_str(o, sink);
	put_str(o, "\"} ");
}

static void put_health(struct out *o, const struct prom_render *r, const struct prom_health *h,
		       const struct gpu_sample *samples)
{
	static const char *const wname = "gputally_recorder_write_errors_total";
	static const char *const lname = "gputally_recorder_last_write_success_timestamp_seconds";
	unsigned int lost = 0;

	for (unsigned int i = 0; i < r->ngpus; i++)
		if (samples[i].status != GST_OK)
			lost++;
	health_counter(o, r, "gputally_recorder_ticks_total", "samples taken since the recorder started",
		       COUNTER, h->ticks);
	health_counter(o, r, "gputally_recorder_overruns_total",
		       "ticks skipped because the recorder fell behind its schedule", COUNTER,
		       h->overruns);
	health_counter(o, r, "gputally_recorder_rows_written_total",
		       "CSV rows written since the recorder started", COUNTER, h->rows);
	health_counter(o, r, "gputally_recorder_events_dropped_total",
		       "NVML events lost because the queue was full", COUNTER, h->events_dropped);
	health_counter(o, r, "gputally_recorder_gpus", "GPUs being recorded", GAUGE, r->ngpus);
	health_counter(o, r, "gputally_recorder_gpus_lost",
		       "GPUs without a good sample this tick (lost, reset required, timed out, error)",
		       GAUGE, lost);
	health_counter(o, r, "gputally_recorder_healthy",
		       "1 when the last batch of CSV rows was written, 0 when it failed", GAUGE,
		       h->csv_ok);
	put_family(o, wname, COUNTER, "failed writes (disk full, EIO) per sink, and CSV ticks dropped while the writer was behind");
	put_sink_sample(o, r, wname, "csv");
	put_u64(o, h->csv_errors);
	put_ch(o, '\n');
	put_sink_sample(o, r, wname, "prom");
	put_u64(o, h->prom_errors);
	put_ch(o, '\n');
	put_family(o, lname, GAUGE, "wall-clock time of the last successful write per sink");
	if (h->csv_last_ok_ns) {
		put_sink_sample(o, r, lname, "csv");
		put_time_s(o, h->csv_last_ok_ns);
		put_ch(o, '\n');
	}
	if (h->prom_last_ok_ns) {
		put_sink_sample(o, r, lname, "prom");
		put_time_s(o, h->prom_last_ok_ns);
		put_ch(o, '\n');
	}
	put_family(o, "gputally_recorder_start_time_seconds", GAUGE,
		   "wall-clock time the recorder started");
	put_sample_head(o, "gputally_recorder_start_time_seconds", r->host_label);
	put_time_s(o, h->start_ns);
	put_ch(o, '\n');
}

static void put_proc_head(struct out *o, const char *name, const char *gpu_labels, const struct proc_sample *p)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%u", p->pid);
	put_str(o, name);
	put_ch(o, '{');
	put_str(o, gpu_labels);
	put_label(o, "pid", pid, true);
	put_label(o, "user", p->who.visible ? p->who.user : "host pid, not visible", true);
	put_label(o, "job", p->who.job, true);
	put_label(o, "container", p->who.ctr, true);
	put_str(o, "} ");
}

/* Each GPU process with who it belongs to (labels) and what it uses (docs/record.md "Who"). */
static void put_procs(struct out *o, const struct prom_render *r, const struct gpu_sample *samples)
{
	static const char *const mem = "gputally_process_gpu_memory_mib";
	static const char *const sm = "gputally_process_sm_pct";

	put_family(o, mem, GAUGE, "GPU memory a process uses, with its pid, user, Slurm job and container");
	for (unsigned int i = 0; i < r->ngpus; i++)
		for (uint32_t k = 0; samples[i].procs_known && k < samples[i].nprocs; k++) {
			const struct proc_sample *p = &samples[i].procs[k];
			if (p->mem_mib < 0)
				continue;
			put_proc_head(o, mem, r->labels[i], p);
			put_u64(o, (uint64_t)p->mem_mib);
			put_ch(o, '\n');
		}
	put_family(o, sm, GAUGE, "a process's own share of the GPU's SM time in % (NVML per-process utilization)");
	for (unsigned int i = 0; i < r->ngpus; i++)
		for (uint32_t k = 0; samples[i].procs_known && k < samples[i].nprocs; k++) {
			const struct proc_sample *p = &samples[i].procs[k];
			if (p->sm_pct < 0)
				continue;
			put_proc_head(o, sm, r->labels[i], p);
			put_u64(o, (uint64_t)p->sm_pct);
			put_ch(o, '\n');
		}
}

size_t prom_render_tick(struct prom_render *r, int64_t mono_ns, const struct gpu_sample *samples,
			const struct prom_health *h)
{
	struct out o = { r->buf, r->buf + r->cap, false };
	int64_t dt = r->last_mono_ns ? mono_ns - r->last_mono_ns : 0;

	if (dt < 0 || dt > r->max_dt_ns)
		dt = 0;
	r->last_mono_ns = mono_ns;
	for (unsigned int i = 0; i < r->ngpus; i++) {
		const struct gpu_sample *s = &samples[i];
		if (s->status != GST_OK || !(s->present & (1u << TC_UTIL_GPU)))
			continue;
		r->busy_known[i] = true;
		r->busy_ns[i] += (uint64_t)s->v[TC_UTIL_GPU] * (uint64_t)dt / 100;
	}
	for (int c = 0; c < TC__COUNT; c++) {
		if (!cols[c].name)
			continue;
		put_family(&o, cols[c].name, cols[c].type, cols[c].help);
		for (unsigned int i = 0; i < r->ngpus; i++) {
			if (!(samples[i].present & (1u << c)))
				continue;	/* unknown: no sample at all */
			put_sample_head(&o, cols[c].name, r->labels[i]);
			put_fixed(&o, samples[i].v[c] * cols[c].mul, cols[c].dec);
			put_ch(&o, '\n');
		}
	}
	put_family(&o, "gputally_gpu_busy_seconds_total", COUNTER,
		   "sum of GPU utilization / 100 x sample period since the recorder started");
	for (unsigned int i = 0; i < r->ngpus; i++) {
		if (!r->busy_known[i])
			continue;
		put_sample_head(&o, "gputally_gpu_busy_seconds_total", r->labels[i]);
		put_fixed(&o, (int64_t)r->busy_ns[i], 9);
		put_ch(&o, '\n');
	}
	put_family(&o, "gputally_gpu_up", GAUGE,
		   "1 when the GPU answered this tick, 0 when it is lost, hung or failing");
	for (unsigned int i = 0; i < r->ngpus; i++) {
		put_sample_head(&o, "gputally_gpu_up", r->labels[i]);
		put_ch(&o, samples[i].status == GST_OK ? '1' : '0');
		put_ch(&o, '\n');
	}
	put_procs(&o, r, samples);
	put_health(&o, r, h, samples);
	if (o.full)
		return 0;
	return (size_t)(o.p - r->buf);
}
