/* SPDX-License-Identifier: MIT */
/*
 * The timeline: one series per GPU out of records from any number of inputs.
 *
 * GPUs are joined by UUID, else by index (one host per report).  Samples of
 * one GPU from several inputs are merged by time: every reading holds until
 * the next reading of the same metric or until it is stale, and time is cut
 * at every sample, so two logs of the same run add detail, never time.
 * The result is a sequence of intervals per GPU, handed to a consumer in
 * time order: data intervals (with the readings in force) and gaps (no
 * reading for longer than the gap threshold; a gap is not idle).
 * Where a GPU's energy counter is read, its intervals are handed over when
 * the next reading says their energy (a share of the counter's difference,
 * docs/states.md "Energy"), with the process observations among them in
 * the order they came: up to TL_HOLD_MAX entries later, in practice a second.
 * Events go to the consumer as they come, on the GPU their index, UUID or
 * PCI address names (struct tl_event); a fatal one (KF_DOWN) makes its GPU
 * down until its next healthy sample, and a driver load or a boot ends
 * every counter run (docs/states.md "Kernel events and downtime").
 */
#ifndef TIMELINE_TIMELINE_H
#define TIMELINE_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/format.h"

#define TL_MAX_GPUS 256

enum ival_kind { IV_DATA, IV_GAP };

/* One stretch of one GPU's time with constant readings. */
struct ival {
	int64_t t0_ns, t1_ns;
	uint8_t kind;		/* enum ival_kind */
	uint8_t status;		/* GS_* in force */
	uint32_t present;	/* bit m: v[m] is a fresh reading */
	double v[M__COUNT];
	double energy_j;	/* energy over the interval (NAN if unknown) */
	bool energy_from_counter;	/* a share of a counter difference, else power x time */
	int nproc;		/* processes known on the GPU, -1 if no process data */
};

struct proc_obs;

/* Who a process belongs to (each field NULL or "" when unknown). */
struct proc_who {
	const char *user, *job, *task, *ctr;
};

/*
 * An event as the timeline hands it on: the record's fields with its
 * strings looked up, and how its GPU was found.  A kernel event names its
 * GPU by PCI address; the timeline maps that to a GPU through the map it
 * learns (EV_GPU_MAP records, a query log's pci.bus_id, --gpu-map).  gpu -1
 * is a host event (suspend, AC, a driver load) or one whose GPU is unknown.
 */
struct tl_event {
	int64_t t_ns;		/* meaningless when unplaced */
	bool unplaced;		/* still TK_BOOT: no anchor placed it, it has no time */
	int ev;			/* enum event_kind */
	const char *msg;	/* may be NULL */
	const char *src;	/* input name */
	uint64_t line;
	int32_t code;		/* kev.code: Xid code ...; -1 none */
	uint32_t count;		/* lines folded into it (>= 1) */
	uint8_t klass, severity, flags;	/* kev.*: enum kev_class, kev_severity, kev_flag */
	const char *pci;	/* normalised PCI address, or NULL */
	const char *proc;	/* process name of an Xid, or NULL */
	const char *text;	/* kind-specific text (driver version ...), or NULL */
	const char *mapped_by;	/* static: how gpu was found ("index", "uuid", "pci map",
				 * "gpu-map", "query log", "only GPU"), NULL for a host event */
};

/* What the timeline calls.  All pointers are borrowed for the call. */
struct timeline_consumer {
	void *ud;
	/* Optional: storage for the next interval of gpu, so that interval()
	 * receives it in place with no copy.  NULL: the timeline uses its own. */
	struct ival *(*reserve)(void *ud, int gpu);
	void (*interval)(void *ud, int gpu, const struct ival *iv);
	/* A process observation: pid -1 means "no process on this GPU now";
	 * who may be NULL (not said). */
	void (*process)(void *ud, int gpu, int64_t t_ns, int64_t pid, const char *name,
			uint32_t present, double sm_pct, double mem_pct, double fb_mib,
			const struct proc_who *who);
	void (*event)(void *ud, int gpu, const struct tl_event *e);
	/* Optional: a fatal event put gpu down at t0_ns (a KF_DOWN event, see
	 * timeline_add) and the GPU came back, or the data ended, at t1_ns. */
	void (*outage)(void *ud, int gpu, int64_t t0_ns, int64_t t1_ns);
};

/* PCI address -> GPU: one entry per address, the latest statement wins (a
 * new boot's map replaces the old one as the records come in time order). */
enum tl_map_origin { TM_KERNEL, TM_QUERY, TM_GPU_MAP };
#define TL_MAX_PCI 512
struct tl_pci {
	char pci[16];		/* "dddd:bb:dd.f" */
	char uuid[96];		/* "" if not known */
	int index;		/* -1 if not known */
	uint8_t origin;		/* enum tl_map_origin */
};

struct gpu_ident {
	int index;		/* -1 if unknown */
	char uuid[96];
	char name[96];
};


/* One input's view of one GPU: used to pick, per metric, the input with the
 * finest sampling, so that readings of two logs never interleave. */
#define TL_MAX_SOURCES 16
/* Fatal events kept per GPU to know their copies in other inputs (fatal_copy). */
#define TL_FATAL_KEEP 4
struct tl_source {
	const void *key;
	int64_t last_ns;
	int64_t dts[8];
	int ndts;
	int64_t nominal_ns;	/* median of the first intervals; INT64_MAX until known */
};

struct tl_gpu {
	struct gpu_ident id;
	bool has_samples;
	int64_t first_ns, last_ns;	/* first and last sample time */
	int64_t t_prev_ns;		/* last cut point */
	/* the reading in force of each metric (kept as parallel arrays: the
	 * interval builder copies them whole) */
	double fv[M__COUNT];
	int64_t ft_ns[M__COUNT];	/* when it was read, INT64_MIN never; for a metric
					 * of upd_mask, upd_t_ns (timeline.c read_ns) */
	int8_t fsrc[M__COUNT];		/* the tl_source slot that owns it */
	uint32_t seen_mask;		/* metrics ever read */
	uint32_t upd_mask;		/* metrics read at upd_t_ns */
	int64_t upd_t_ns;
	uint8_t status;
	int64_t status_t_ns;
	/* The run of counter readings in force: the intervals since its last
	 * reading (and the process observations among them, in order) are held
	 * until the next reading says their energy.  See docs/states.md. */
	bool run_open;
	double run_j;			/* the counter at run_t_ns */
	int64_t run_t_ns;
	struct tl_held *hold;		/* hold_cap entries, allocated at first use */
	int nhold, hold_cap;
	/* sample-interval estimate: median of the first intervals */
	int64_t dts[32];
	int ndts;
	int64_t nominal_ns;
	const void *last_key;	/* the input of the latest sample */
	uint64_t samples, out_of_order;
	int nproc_known;
	struct tl_source src[TL_MAX_SOURCES];
	int nsrc;		/* -1: no process data for this GPU */
	/* down since a fatal event (down_since_ns), until a healthy sample */
	bool down;
	int64_t down_since_ns;
	/* the logger's read failed at t_prev_ns (an ERROR row): no reading
	 * is known from there to the next sample, which is a gap */
	bool read_failed;
	/* the last fatal events, to know a copy in another
	 * input (TL_EVENT_COPY_NS): a healthy sample between the two must not
	 * make the copy a second outage */
	struct {
		int64_t t_ns;
		const char *src;
		uint64_t key;	/* kind, code, PCI address and message (event_key) */
	} fatal[TL_FATAL_KEEP];	/* the last ones, a ring */
	unsigned nfatal;
};

/* The same event from another input within this of it is a copy of it
 * (a dmesg -T copy is cut to whole seconds; analysis.h EVENT_COPY_NS). */
#define TL_EVENT_COPY_NS 2000000000LL	/* 2 s */

/* Most intervals and process observations held for one counter difference:
 * a run that outgrows it ends, and its time is power x time. */
#define TL_HOLD_MAX 1024

struct tl_held;

struct timeline {
	struct tl_gpu gpus[TL_MAX_GPUS];
	int ngpus;
	/* index -> GPU for records that name only an index: 1 + the GPU, 0 for
	 * not cached; cleared whenever a GPU or an index is added */
	uint16_t by_index[64];
	struct timeline_consumer c;
	uint64_t dropped_no_gpu;	/* records naming no GPU at all */
	uint64_t dropped_too_many;	/* GPUs beyond TL_MAX_GPUS */
	struct tl_pci pci[TL_MAX_PCI];
	int npci;
	uint64_t pci_dropped;		/* map entries beyond TL_MAX_PCI */
	int64_t last_event_ns;		/* the latest placed event (INT64_MIN: none) */
	uint64_t driver_loads;		/* EV_DRIVER_LOAD / EV_BOOT seen: counter runs ended */
};

/* tl must be all zero bytes (part of an xcalloc'd struct analysis). */
void timeline_init(struct timeline *tl, const struct timeline_consumer *c);
/*
 * Feed one record (TK_ABS); strings are looked up in b.  src names the input
 * (for messages) and, by its address, identifies it: when two inputs report
 * the same metric of the same GPU, the one sampling more often is used while
 * its readings are fresh, and the other only fills in.
 */
void timeline_add(struct timeline *tl, const struct rec *r, const struct batch *b,
		  const char *src);
/*
 * Map a PCI address (any form pci_norm() reads) to a GPU by uuid
 * (may be NULL or "") and/or index (-1 none).  false: not a PCI address,
 * neither uuid nor index, or the map is full (counted in pci_dropped).
 */
bool timeline_map_pci(struct timeline *tl, const char *pci, const char *uuid, int index,
		      enum tl_map_origin origin);
/*
 * One line of a --gpu-map file: "PCI_ADDR UUID-or-index"; blank lines and
 * lines starting with '#' are nothing.  Returns 1 for a mapping, 0 for
 * nothing, -1 with *col (1-based) and why set for a bad line.
 */
int timeline_gpu_map_line(struct timeline *tl, const char *line, unsigned *col, const char **why);

/* The GPU the map names for a PCI address now (after the ingest: for an
 * event that came before its GPU's first record), -1 for none; *how as
 * tl_event.mapped_by. */
int timeline_gpu_of_pci(const struct timeline *tl, const char *pci, const char **how);

/* Close every GPU's last interval. */
void timeline_finish(struct timeline *tl);
/* Free what the timeline allocated (after timeline_finish). */
void timeline_release(struct timeline *tl);

/* Gap threshold for a GPU whose nominal sample interval is nominal_ns. */
int64_t timeline_gap_threshold(int64_t nominal_ns);

#endif
