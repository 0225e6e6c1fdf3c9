/* SPDX-License-Identifier: MIT */
/*
 * One sample of every GPU per tick.  Each GPU has its own worker thread, so a
 * GPU whose NVML calls hang or fail costs only its own rows: the tick waits
 * for the workers until a deadline, and a GPU that has not answered by then
 * is reported with status timeout while the others are recorded.  The energy
 * counter is slow (about 3 ms on an H200), so it is read at most once a
 * second: within the tick that it is written with (its reading belongs to that
 * row's time), or, at intervals too short to hold 3 ms, after the sample is
 * handed in and written with the next row only.  Xid events arrive on a thread
 * of their own.  Everything is allocated in sampler_new(); ticks allocate
 * nothing.
 */
#ifndef RECORD_SAMPLER_H
#define RECORD_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

#include "record/nvml.h"
#include "record/procinfo.h"
#include "util/err.h"

enum tally_col {
#define TCOL(id, csv, metric, dec, prom, type, mul, src, help) TC_##id,
#include "formats/tally_columns.def"
#undef TCOL
	TC__COUNT
};

enum gpu_state {
	GST_OK,
	GST_LOST,		/* NVML_ERROR_GPU_IS_LOST */
	GST_RESET,		/* NVML_ERROR_RESET_REQUIRED */
	GST_TIMEOUT,		/* no answer before the tick's deadline, or NVML_ERROR_TIMEOUT */
	GST_ERROR,		/* another NVML error; err_rc has the code */
};

#define SAMPLER_MAX_GPUS 64
#define SAMPLER_MAX_PROCS 128

struct proc_sample {
	uint32_t pid;
	int64_t mem_mib;	/* -1: NVML does not know */
	int16_t sm_pct;		/* its own SM share (nvmlDeviceGetProcessUtilization); -1 unknown */
	struct proc_who_info who;	/* its user, container and Slurm job (procinfo.h) */
};

struct gpu_sample {
	uint8_t status;		/* enum gpu_state */
	int err_rc;		/* the NVML code behind a status other than ok */
	uint32_t present;	/* bit TC_x set: v[TC_x] is a reading */
	uint32_t carried;	/* of present: read on an earlier tick (the energy
				 * counter's newest value, for Prometheus); the CSV
				 * leaves these cells empty */
	int64_t v[TC__COUNT];	/* scaled by 10^dec of the column */
	bool procs_known;	/* false: the process list could not be read */
	uint32_t nprocs;
	struct proc_sample procs[SAMPLER_MAX_PROCS];
};

struct gpu_info {
	unsigned int index;
	char uuid[96];
	char name[96];
	char bus_id[16];	/* "dddd:bb:dd.0", "" when NVML does not say */
};

struct sampler_event {
	int64_t t_ns;		/* CLOCK_REALTIME when it arrived */
	int gpu;		/* index into the sampler's GPUs, -1 if unknown */
	unsigned long long type, data;	/* NVML event type bits and data (the Xid) */
};

struct sampler;

/* Find the GPUs and start a worker per GPU (and the event thread).  Who
 * each process belongs to is read under /proc, or under the directory
 * $GPUTALLY_PROC_ROOT names (tests hand a fake one). */
struct sampler *sampler_new(struct nvml *n, int64_t interval_ns, struct gl_err *err);
unsigned int sampler_ngpus(const struct sampler *s);
const struct gpu_info *sampler_gpu(const struct sampler *s, unsigned int i);
/*
 * Ask every GPU for a sample and wait until all have answered or
 * CLOCK_MONOTONIC reaches deadline_mono_ns; out[] gets one entry per GPU.
 */
void sampler_tick(struct sampler *s, int64_t deadline_mono_ns, struct gpu_sample *out);
/* The next queued NVML event; false when none is waiting. */
bool sampler_next_event(struct sampler *s, struct sampler_event *ev);
/* Events lost because the queue was full. */
uint64_t sampler_events_dropped(const struct sampler *s);
/*
 * Stop the threads and free.  Returns false if a worker is stuck inside
 * NVML: then nothing is freed and the caller must not unload the library.
 */
bool sampler_free(struct sampler *s);

/* Monotonic and wall clocks in nanoseconds. */
int64_t mono_now_ns(void);
int64_t wall_now_ns(void);

#endif
