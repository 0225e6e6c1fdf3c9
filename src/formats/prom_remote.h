/* SPDX-License-Identifier: MIT */
/*
 * A Prometheus server as a source: the samples of the exporters' GPU metrics
 * (prom_names.h) pulled over the HTTP API and handed to an ingest sink as the
 * same struct rec samples the file formats emit, in time order, so that the
 * timeline, the analysis and the report work unchanged.
 *
 *   /api/v1/targets      the scrape interval (the default step)
 *   /api/v1/series       which of the known names exist, and how many series
 *   /api/v1/query_range  one query per name and time chunk; the chunk is cut
 *                        so that a series has under 11,000 points (the
 *                        server's limit) and the chunk's matrix fits a
 *                        memory bound; a few requests run at once
 *
 * One GPU per UUID label, else per node and GPU index; every query-range
 * step a GPU has a reading for becomes one REC_SAMPLE.  A step with no
 * reading (a scrape that did not happen, a stale series) is missing, so the
 * timeline makes it a gap.  A request that fails is retried with backoff;
 * when it keeps failing, the chunk's window is a gap for every GPU (the
 * missing answer could have held any of them), reported as a skipped
 * "line" of the server's input and on standard error, never as idle.
 * docs/formats/prometheus-api.md has the mapping and the rules.
 */
#ifndef FORMATS_PROM_REMOTE_H
#define FORMATS_PROM_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/driver.h"
#include "util/err.h"

struct prom_remote_opts {
	const char *url;		/* the server: http[s]://host:port[/prefix] */
	int64_t start_ns, end_ns;
	int64_t step_ns;		/* 0: the targets' scrape interval, else 15 s */
	const char *const *match;	/* selectors "{k=\"v\",...}" (OR), or none */
	size_t nmatch;
	const char *bearer_file;	/* token file, or NULL */
	const char *user;		/* basic auth user, or NULL */
	const char *password_file;	/* its password; NULL: from ~/.netrc */
	const char *cacert;
	bool insecure;			/* no TLS verification (asked for) */
	int64_t timeout_ns;		/* per request; 0: 60 s */
	size_t max_body;		/* bytes; 0: 64 MiB */
	size_t mem_budget;		/* bytes for one chunk's matrix; 0: 16 MiB */
	int parallel;			/* requests at once; 0: 4 */
	int tries;			/* per request; 0: 3 */
	bool quiet;
	/* MIG slices' own samples (uuid "<GPU key>/gi<N>"), or NULL: read only
	 * into their GPU's (prom_remote.c, mig_fill) */
	struct ingest_sink *slice_sink;
};

/* What the report needs beyond the samples: where each GPU ran. */
struct prom_gpu {
	char key[160];		/* the timeline's uuid: the UUID, else "node/gpuN" */
	char node[128];		/* Hostname, host or instance label; "" unknown */
	int index;
	/* a MIG slice (GPU_I_ID): its GPU, else -1; GPU_I_ID, GPU_I_PROFILE and
	 * its share of the GPU's compute (NAN: the profile was not understood) */
	long parent;
	int gi_id;
	char profile[32];
	double share;
};

struct prom_pod_span {
	uint32_t gpu;		/* into prom_fleet.gpus */
	char ns[64], pod[128], container[64];
	int64_t t0_ns, t1_ns;	/* first and last step seen, plus one step */
};

struct prom_fleet {
	bool active;		/* the report came from a server */
	char url[256];		/* redacted */
	int64_t step_ns, start_ns, end_ns;
	struct prom_gpu *gpus;
	size_t ngpus, gpus_alloc;
	struct prom_pod_span *pods;
	size_t npods, pods_alloc;
	uint64_t requests, retries, failed_chunks, chunks, bad_values, skipped_series;
	uint64_t off_step;	/* samples outside the range asked for */
};

/*
 * Pull o's window into sink.  Appends the inputs (the server, then one per
 * metric name read) to res and fills fleet.  0, or the sink's non-zero
 * code, or a GL_E* code with err saying what failed and naming the query.
 */
int prom_remote_ingest(const struct prom_remote_opts *o, struct ingest_sink *sink,
		       struct ingest_result *res, struct prom_fleet *fleet, struct gl_err *err);
void prom_fleet_release(struct prom_fleet *f);

/* url with any user:password@ replaced by "***@" (and cut to cap). */
void prom_redact_url(const char *url, char *out, size_t cap);

/* The format descriptor inputs[].format points to (not a file format). */
extern const struct format prom_remote_format;

#endif
