/* SPDX-License-Identifier: MIT */
/*
 * The Prometheus metric names gputally reads, of the three exporters people
 * run next to GPUs: gputally's own recorder (record --listen), NVIDIA's
 * dcgm-exporter and utkuozdemir's nvidia_gpu_exporter (nvidia_smi_*).
 * One table, so that the remote source (prom_remote.c) and any parser of the
 * text exposition agree on what a name means; docs/formats/prometheus-api.md
 * lists it for people.
 */
#ifndef FORMATS_PROM_NAMES_H
#define FORMATS_PROM_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "formats/format.h"

enum prom_exporter { PE_GPUTALLY, PE_DCGM, PE_NVSMI, PE__COUNT };
extern const char *const prom_exporter_name[PE__COUNT];

/* Readings that are not a struct rec metric of their own. */
enum prom_extra {
	PX_NONE,
	PX_FB_FREE,	/* with FB_USED gives the memory total */
	PX_XID,		/* the last Xid code: a change to non-zero is an event */
};

enum prom_name_flag {
	PN_I32_BLANK = 1 << 0,	/* DCGM int32 field: >= 0x7ffffff0 means "blank" */
	PN_I64_BLANK = 1 << 1,	/* DCGM int64 field: >= 0x7ffffffffffffff0 means "blank" */
	PN_F64_BLANK = 1 << 2,	/* DCGM float field: >= 2^47 means "blank" */
	PN_COUNTER = 1 << 3,	/* a counter (resets are the timeline's to handle) */
};

struct prom_name {
	const char *name;
	int8_t metric;		/* enum metric, or -1 with an extra */
	uint8_t extra;		/* enum prom_extra */
	uint8_t exporter;	/* enum prom_exporter */
	uint8_t prio;		/* for one GPU and metric, the higher wins */
	uint8_t flags;		/* enum prom_name_flag */
	double scale;		/* metric = raw * scale */
	const char *why;	/* why this name at this priority (inputs[].detected) */
};

extern const struct prom_name prom_names[];
extern const size_t prom_names_count;

const struct prom_name *prom_name_find(const char *name);
/* A DCGM blank sentinel for this name's type (no reading). */
int prom_name_blank(const struct prom_name *pn, double v);

#endif
