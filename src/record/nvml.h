/* SPDX-License-Identifier: MIT */
/*
 * NVML through dlopen, with our own declarations (docs: formats.md section 7).
 * Every symbol the recorder uses is listed once in nvml.c's table; a NULL
 * pointer in struct nvml_api means the library lacks it (the same as
 * NVML_ERROR_FUNCTION_NOT_FOUND).  One struct nvml per process: the library
 * and its reference-counted init are process-wide.
 */
#ifndef RECORD_NVML_H
#define RECORD_NVML_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

/* Return codes we act on (nvmlReturn_t is an int). */
enum {
	NVML_OK = 0,
	NVML_E_UNINITIALIZED = 1,
	NVML_E_NOT_SUPPORTED = 3,
	NVML_E_NO_PERMISSION = 4,
	NVML_E_NOT_FOUND = 6,
	NVML_E_INSUFFICIENT_SIZE = 7,
	NVML_E_TIMEOUT = 10,
	NVML_E_FUNCTION_NOT_FOUND = 13,
	NVML_E_GPU_IS_LOST = 15,
	NVML_E_RESET_REQUIRED = 16,
	NVML_E_NO_DATA = 21,
	NVML_E_UNKNOWN = 999,
};

enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };
#define NVML_TEMP_GPU 0
#define NVML_EVENT_XID 0x8ULL
#define NVML_VALUE_NOT_AVAILABLE (~0ULL)
/* sizeof | version << 24, as nvml.h's NVML_STRUCT_VERSION builds it */
#define NVML_MEMORY_V2_VERSION 0x02000028u

/* Opaque handles. */
struct nvml_device;
struct nvml_event_set;

/* Struct layouts of formats.md 7.3 (x86-64 LP64); nvml.c checks the sizes. */
struct nvml_utilization {
	unsigned int gpu_pct;
	unsigned int memory_pct;
};

struct nvml_memory_v1 {
	unsigned long long total_bytes, free_bytes, used_bytes;
};

struct nvml_memory_v2 {
	unsigned int version;
	unsigned long long total_bytes, reserved_bytes, free_bytes, used_bytes;
};

struct nvml_process_v1 {
	unsigned int pid;
	unsigned long long used_bytes;
};

/* nvmlProcessInfo_t, used by both the _v2 and _v3 process calls */
struct nvml_process_v2 {
	unsigned int pid;
	unsigned long long used_bytes;
	unsigned int gpu_instance_id, compute_instance_id;
};

/* nvmlProcessUtilizationSample_t: one process's utilization over NVML's last sampling period */
struct nvml_proc_util {
	unsigned int pid;
	unsigned long long timestamp_us;	/* CPU time of the sample, microseconds */
	unsigned int sm_util, mem_util, enc_util, dec_util;
};

struct nvml_event_data {
	struct nvml_device *device;
	unsigned long long type;
	unsigned long long data;
	unsigned int gpu_instance_id, compute_instance_id;
};

/*
 * nvmlPciInfo_t of the _v2 and _v3 calls (68 bytes).  The plain v1 call's
 * struct is shorter (52) but has domain, bus and device at the same
 * offsets, which are all that is read.
 */
struct nvml_pci_info {
	char bus_id_legacy[16];
	unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];
};

struct nvml_api {
	int (*init)(void);
	int (*shutdown)(void);
	const char *(*error_string)(int rc);
	int (*system_get_driver_version)(char *buf, unsigned int len);
	int (*device_get_count)(unsigned int *n);
	int (*device_get_handle_by_index)(unsigned int i, struct nvml_device **d);
	int (*device_get_name)(struct nvml_device *d, char *buf, unsigned int len);
	int (*device_get_uuid)(struct nvml_device *d, char *buf, unsigned int len);
	int (*device_get_pci_info)(struct nvml_device *d, struct nvml_pci_info *p);
	int (*device_get_utilization_rates)(struct nvml_device *d, struct nvml_utilization *u);
	int (*device_get_memory_info_v2)(struct nvml_device *d, struct nvml_memory_v2 *m);
	int (*device_get_memory_info)(struct nvml_device *d, struct nvml_memory_v1 *m);
	int (*device_get_power_usage)(struct nvml_device *d, unsigned int *mw);
	int (*device_get_total_energy_consumption)(struct nvml_device *d, unsigned long long *mj);
	int (*device_get_enforced_power_limit)(struct nvml_device *d, unsigned int *mw);
	int (*device_get_temperature)(struct nvml_device *d, int sensor, unsigned int *c);
	int (*device_get_clock_info)(struct nvml_device *d, int type, unsigned int *mhz);
	int (*device_get_clocks_event_reasons)(struct nvml_device *d, unsigned long long *mask);
	int (*device_get_performance_state)(struct nvml_device *d, int *pstate);
	int (*device_get_pcie_gen)(struct nvml_device *d, unsigned int *gen);
	int (*device_get_pcie_width)(struct nvml_device *d, unsigned int *width);
	int (*device_get_compute_procs_v2)(struct nvml_device *d, unsigned int *n,
					   struct nvml_process_v2 *p);
	int (*device_get_compute_procs_v1)(struct nvml_device *d, unsigned int *n,
					   struct nvml_process_v1 *p);
	int (*device_get_process_utilization)(struct nvml_device *d, struct nvml_proc_util *u, unsigned int *n,
					      unsigned long long last_seen_us);
	int (*event_set_create)(struct nvml_event_set **set);
	int (*device_get_supported_event_types)(struct nvml_device *d, unsigned long long *mask);
	int (*device_register_events)(struct nvml_device *d, unsigned long long mask,
				      struct nvml_event_set *set);
	int (*event_set_wait)(struct nvml_event_set *set, struct nvml_event_data *ev,
			      unsigned int timeout_ms);
	int (*event_set_free)(struct nvml_event_set *set);
};

struct nvml {
	void *dl;
	bool inited;
	char path[256];		/* the library that was loaded */
	struct nvml_api api;
	/* per symbol-table row: the name that resolved, NULL if none */
	const char *resolved[32];
};

/*
 * Load NVML and call its init.  lib_path (may be NULL) is tried first, then
 * libnvidia-ml.so.1, then libnvidia-ml.so; an explicit lib_path that fails
 * is an error (no silent fallback to another library).
 */
int nvml_open(struct nvml *n, const char *lib_path, struct gl_err *err);
/* nvmlShutdown (if init succeeded) and dlclose; safe on a failed open. */
void nvml_close(struct nvml *n);
/* Text for an NVML return code, from the library when it has nvmlErrorString. */
const char *nvml_strerror(const struct nvml *n, int rc);
/* The symbol table, for diagnostics: its rows, each row's first-choice name,
 * whether it is required, and the name it resolved to (NULL if missing). */
size_t nvml_sym_count(void);
const char *nvml_sym_name(size_t i);
bool nvml_sym_required(size_t i);
const char *nvml_sym_resolved(const struct nvml *n, size_t i);

#endif
