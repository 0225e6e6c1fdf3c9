/* SPDX-License-Identifier: MIT */
/*
 * rocm-smi's process sections as printed (docs/formats/rocm-smi-pids.md):
 * `--showpids` ("KFD process information:" then "PID  PROCESS NAME
 * GPU(s)  VRAM USED  SDMA USED  CU OCCUPANCY" rows; `--showpids details`
 * heads its GPU column "GPU") and `--showpidgpus` ("PID N is using K DRM
 * device(s):" then the GPU indices).  The GPU(s) column is a count of GPUs
 * in every ROCm release (ROCm/rocm_smi_lib issue 166, rocm-systems issue
 * 4405), never an index: a process is put on a GPU only by a --showpidgpus
 * list in the same file, or by the timeline when one GPU is known.
 *
 * Both rocm-smi text readers feed their lines here: rocm-smi-pids (a file
 * of these sections alone) and rocm-smi (the concise table, which a
 * `rocm-smi; rocm-smi --showpids` loop prints above them).
 */
#ifndef FORMATS_ROCM_KFD_H
#define FORMATS_ROCM_KFD_H

#include <stdint.h>

#include "formats/format.h"

#define ROCM_KFD_PIDS 256

struct rocm_kfd {
	uint8_t sect;		/* enum in rocm_kfd.c: which section the lines are in */
	bool header;		/* the KFD table's header is read */
	int64_t list_pid;	/* the pid whose GPU list follows; -1 none */
	uint32_t list_want;	/* its GPU count ("is using K") */
	uint32_t list_got;
	size_t run_start;	/* the batch's record count at this run's banner */
	uint32_t npid;
	struct {
		int64_t pid;
		uint32_t rec;		/* index+1 in the batch of its first record */
		uint32_t ngpu;		/* GPUs its list named so far */
		uint32_t count;		/* GPU(s) of its KFD row; 0 unknown */
		bool kfd;		/* a KFD row named it */
	} p[ROCM_KFD_PIDS];
};

void rocm_kfd_reset(struct rocm_kfd *k);
/*
 * One line of a rocm-smi log (s: trimmed, not empty, not a "=" rule).
 * true: the line is a process section's and is consumed (records made or a
 * bad line reported); false: not ours.  t_ns/time_kind: the table's time
 * (a `watch` header), or 0/TK_NONE.
 */
bool rocm_kfd_line(struct parse_ctx *ctx, struct rocm_kfd *k, const char *line, struct slice s,
		   int64_t t_ns, uint8_t time_kind);
/* A "=== KFD Processes ===" / "=== GPUs Indexed by PID ===" banner (or any
 * other rule): the section it opens, or none.  At a run's first and last
 * banner the run's process records are put in GPU order (one tick). */
void rocm_kfd_banner(struct parse_ctx *ctx, struct rocm_kfd *k, struct slice s);

#endif
