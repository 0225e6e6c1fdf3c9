/* SPDX-License-Identifier: MIT */
/* NVML through dlopen: one table of symbols, newest names first. */
#include "record/nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(struct nvml_utilization) == 8, "nvmlUtilization_t");
_Static_assert(sizeof(struct nvml_memory_v1) == 24, "nvmlMemory_t");
_Static_assert(sizeof(struct nvml_memory_v2) == 40, "nvmlMemory_v2_t");
_Static_assert(offsetof(struct nvml_memory_v2, used_bytes) == 32, "nvmlMemory_v2_t.used");
_Static_assert(sizeof(struct nvml_process_v1) == 16, "nvmlProcessInfo_v1_t");
_Static_assert(sizeof(struct nvml_process_v2) == 24, "nvmlProcessInfo_t");
_Static_assert(sizeof(struct nvml_event_data) == 32, "nvmlEventData_t");
_Static_assert(sizeof(struct nvml_pci_info) == 68, "nvmlPciInfo_t");
_Static_assert(offsetof(struct nvml_pci_info, device) == 24, "nvmlPciInfo_t.device");
_Static_assert(NVML_MEMORY_V2_VERSION == (sizeof(struct nvml_memory_v2) | 2u << 24),
	       "nvmlMemory_v2 version");

#define API(f) offsetof(struct nvml_api, f)

/*
 * Names newest first.  Names in one row must share one ABI: the process
 * lists _v3 and _v2 take nvmlProcessInfo_t, the plain name the 16-byte v1
 * struct, so that one has its own row.
 */
static const struct nvml_sym {
	const char *names[3];
	size_t offset;
	bool required;
} syms[] = {
	{ { "nvmlInit_v2", "nvmlInit" }, API(init), true },
	{ { "nvmlShutdown" }, API(shutdown), true },
	{ { "nvmlErrorString" }, API(error_string), true },
	{ { "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount" }, API(device_get_count), true },
	{ { "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex" },
	  API(device_get_handle_by_index), true },
	{ { "nvmlSystemGetDriverVersion" }, API(system_get_driver_version), false },
	{ { "nvmlDeviceGetName" }, API(device_get_name), false },
	{ { "nvmlDeviceGetUUID" }, API(device_get_uuid), false },
	{ { "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo" },
	  API(device_get_pci_info), false },
	{ { "nvmlDeviceGetUtilizationRates" }, API(device_get_utilization_rates), false },
	{ { "nvmlDeviceGetMemoryInfo_v2" }, API(device_get_memory_info_v2), false },
	{ { "nvmlDeviceGetMemoryInfo" }, API(device_get_memory_info), false },
	{ { "nvmlDeviceGetPowerUsage" }, API(device_get_power_usage), false },
	{ { "nvmlDeviceGetTotalEnergyConsumption" }, API(device_get_total_energy_consumption), false },
	{ { "nvmlDeviceGetEnforcedPowerLimit" }, API(device_get_enforced_power_limit), false },
	{ { "nvmlDeviceGetTemperature" }, API(device_get_temperature), false },
	{ { "nvmlDeviceGetClockInfo" }, API(device_get_clock_info), false },
	{ { "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons" },
	  API(device_get_clocks_event_reasons), false },
	{ { "nvmlDeviceGetPerformanceState" }, API(device_get_performance_state), false },
	{ { "nvmlDeviceGetCurrPcieLinkGeneration" }, API(device_get_pcie_gen), false },
	{ { "nvmlDeviceGetCurrPcieLinkWidth" }, API(device_get_pcie_width), false },
	{ { "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2" },
	  API(device_get_compute_procs_v2), false },
	{ { "nvmlDeviceGetComputeRunningProcesses" }, API(device_get_compute_procs_v1), false },
	{ { "nvmlDeviceGetProcessUtilization" }, API(device_get_process_utilization), false },
	{ { "nvmlEventSetCreate" }, API(event_set_create), false },
	{ { "nvmlDeviceGetSupportedEventTypes" }, API(device_get_supported_event_types), false },
	{ { "nvmlDeviceRegisterEvents" }, API(device_register_events), false },
	{ { "nvmlEventSetWait_v2" }, API(event_set_wait), false },
	{ { "nvmlEventSetFree" }, API(event_set_free), false },
};
#define NSYMS (sizeof(syms) / sizeof(syms[0]))
_Static_assert(NSYMS <= sizeof(((struct nvml *)0)->resolved) / sizeof(const char *),
	       "struct nvml.resolved too small");

/* Fallback texts for a library without nvmlErrorString (formats.md 7.7). */
static const char *const rc_names[] = {
	"success", "uninitialized", "invalid argument", "not supported", "no permission",
	"already initialized", "not found", "insufficient size", "insufficient power",
	"driver not loaded", "timeout", "interrupt issue", "library not found",
	"function not found", "corrupted inforom", "GPU is lost", "reset required",
	"operating system error", "library/driver version mismatch", "in use", "out of memory",
	"no data", "vGPU ECC not supported", "insufficient resources", "frequency not supported",
	"argument version mismatch", "deprecated", "not ready", "GPU not found", "invalid state",
};

size_t nvml_sym_count(void)
{
	return NSYMS;
}

const char *nvml_sym_name(size_t i)
{
	return i < NSYMS ? syms[i].names[0] : NULL;
}

bool nvml_sym_required(size_t i)
{
	return i < NSYMS && syms[i].required;
}

const char *nvml_sym_resolved(const struct nvml *n, size_t i)
{
	return i < NSYMS ? n->resolved[i] : NULL;
}

const char *nvml_strerror(const struct nvml *n, int rc)
{
	const char *s = NULL;

	if (n && n->api.error_string)
		s = n->api.error_string(rc);
	if (s && *s)
		return s;
	if (rc >= 0 && (size_t)rc < sizeof(rc_names) / sizeof(rc_names[0]))
		return rc_names[rc];
	return "unknown error";
}

static void *try_open(const char *path, char *why, size_t cap)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	const char *e;

	if (!h && (e = dlerror()))
		snprintf(why, cap, "%s", e);
	return h;
}

int nvml_open(struct nvml *n, const char *lib_path, struct gl_err *err)
{
	static const char *const defaults[] = { "libnvidia-ml.so.1", "libnvidia-ml.so" };
	char why[160] = "";
	int rc;

	memset(n, 0, sizeof(*n));
	if (lib_path) {
		n->dl = try_open(lib_path, why, sizeof(why));
		if (!n->dl)
			return gl_err_set(err, GL_EIO, "cannot load NVML from %s: %s", lib_path, why);
		snprintf(n->path, sizeof(n->path), "%s", lib_path);
	} else {
		for (size_t i = 0; i < 2 && !n->dl; i++) {
			n->dl = try_open(defaults[i], why, sizeof(why));
			snprintf(n->path, sizeof(n->path), "%s", defaults[i]);
		}
		if (!n->dl)
			return gl_err_set(err, GL_EIO,
					  "cannot load NVML (libnvidia-ml.so.1): %s; is the NVIDIA driver installed?",
					  why);
	}
	for (size_t i = 0; i < NSYMS; i++) {
		void *f = NULL;
		for (size_t k = 0; k < 3 && syms[i].names[k] && !f; k++) {
			f = dlsym(n->dl, syms[i].names[k]);
			if (f)
				n->resolved[i] = syms[i].names[k];
		}
		/* POSIX guarantees object and function pointers convert both ways */
		memcpy((char *)&n->api + syms[i].offset, &f, sizeof(f));
		if (!f && syms[i].required) {
			gl_err_set(err, GL_EUNSUPPORTED, "%s lacks the required symbol %s", n->path,
				   syms[i].names[0]);
			nvml_close(n);
			return GL_EUNSUPPORTED;
		}
	}
	rc = n->api.init();
	if (rc != NVML_OK) {
		gl_err_set(err, GL_EIO, "nvmlInit failed: %s (NVML error %d)", nvml_strerror(n, rc), rc);
		nvml_close(n);
		return GL_EIO;
	}
	n->inited = true;
	return 0;
}

void nvml_close(struct nvml *n)
{
	if (n->inited && n->api.shutdown)
		n->api.shutdown();
	n->inited = false;
	if (n->dl)
		dlclose(n->dl);
	n->dl = NULL;
	memset(&n->api, 0, sizeof(n->api));
}
