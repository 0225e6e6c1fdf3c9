/* SPDX-License-Identifier: MIT */
#include "formats/prom_names.h"

#include <string.h>

const char *const prom_exporter_name[PE__COUNT] = { "gputally", "dcgm-exporter", "nvidia_gpu_exporter" };

#define BYTES_TO_MIB (1.0 / 1048576.0)
#define I32 PN_I32_BLANK

/*
 * Priorities settle which name a GPU's metric is read from when an exporter
 * has two for it: the DCGM profiling engine activity (a ratio of time the
 * graphics/compute engine was busy, sampled by the profiler) is preferred to
 * DCGM_FI_DEV_GPU_UTIL (NVML's coarser "a kernel ran in the period"), and the
 * energy counter is read besides power, the timeline preferring counter
 * differences for energy wherever both exist.
 */
const struct prom_name prom_names[] = {
	/* gputally record --listen (src/record/sink_prom.c, docs/record.md) */
	{ "gputally_gpu_utilization_percent", M_UTIL_GPU, PX_NONE, PE_GPUTALLY, 10, 0, 1.0, "NVML utilization.gpu" },
	{ "gputally_gpu_memory_utilization_percent", M_UTIL_MEM, PX_NONE, PE_GPUTALLY, 10, 0, 1.0, NULL },
	{ "gputally_gpu_memory_used_bytes", M_MEM_USED, PX_NONE, PE_GPUTALLY, 10, 0, BYTES_TO_MIB, NULL },
	{ "gputally_gpu_memory_total_bytes", M_MEM_TOTAL, PX_NONE, PE_GPUTALLY, 10, 0, BYTES_TO_MIB, NULL },
	{ "gputally_gpu_power_watts", M_POWER, PX_NONE, PE_GPUTALLY, 10, 0, 1.0, NULL },
	{ "gputally_gpu_energy_joules_total", M_ENERGY, PX_NONE, PE_GPUTALLY, 10, PN_COUNTER, 1.0, "energy counter (preferred to integrated power)" },
	{ "gputally_gpu_power_limit_watts", M_POWER_LIMIT, PX_NONE, PE_GPUTALLY, 10, 0, 1.0, NULL },
	{ "gputally_gpu_temperature_celsius", M_TEMP, PX_NONE, PE_GPUTALLY, 10, 0, 1.0, NULL },
	{ "gputally_gpu_sm_clock_hertz", M_SM_CLOCK, PX_NONE, PE_GPUTALLY, 10, 0, 1e-6, NULL },
	{ "gputally_gpu_memory_clock_hertz", M_MEM_CLOCK, PX_NONE, PE_GPUTALLY, 10, 0, 1e-6, NULL },
	{ "gputally_gpu_clock_event_reasons", M_EVENT_MASK, PX_NONE, PE_GPUTALLY, 10, 0, 1.0, NULL },
	{ "gputally_gpu_pstate", M_PSTATE, PX_NONE, PE_GPUTALLY, 10, 0, 1.0, NULL },
	/* dcgm-exporter */
	{ "DCGM_FI_PROF_GR_ENGINE_ACTIVE", M_UTIL_GPU, PX_NONE, PE_DCGM, 30, 0, 100.0, "busy from profiling GR_ENGINE_ACTIVE (preferred to GPU_UTIL)" },
	{ "DCGM_FI_PROF_SM_ACTIVE", M_UTIL_GPU, PX_NONE, PE_DCGM, 20, 0, 100.0, "busy from profiling SM_ACTIVE (no GR_ENGINE_ACTIVE; preferred to GPU_UTIL)" },
	{ "DCGM_FI_DEV_GPU_UTIL", M_UTIL_GPU, PX_NONE, PE_DCGM, 10, I32, 1.0, "busy from GPU_UTIL where no profiling metric is exported" },
	{ "DCGM_FI_DEV_MEM_COPY_UTIL", M_UTIL_MEM, PX_NONE, PE_DCGM, 10, I32, 1.0, NULL },
	{ "DCGM_FI_DEV_FB_USED", M_MEM_USED, PX_NONE, PE_DCGM, 10, I32, 1.0, NULL },
	{ "DCGM_FI_DEV_FB_FREE", -1, PX_FB_FREE, PE_DCGM, 10, I32, 1.0, "memory total = FB_USED + FB_FREE" },
	{ "DCGM_FI_DEV_POWER_USAGE", M_POWER, PX_NONE, PE_DCGM, 10, PN_F64_BLANK, 1.0, NULL },
	{ "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", M_ENERGY, PX_NONE, PE_DCGM, 10, PN_I64_BLANK | PN_COUNTER, 0.001, "energy counter in mJ (preferred to integrated power)" },
	{ "DCGM_FI_DEV_GPU_TEMP", M_TEMP, PX_NONE, PE_DCGM, 10, I32, 1.0, NULL },
	{ "DCGM_FI_DEV_MEMORY_TEMP", M_MEM_TEMP, PX_NONE, PE_DCGM, 10, I32, 1.0, NULL },
	{ "DCGM_FI_DEV_SM_CLOCK", M_SM_CLOCK, PX_NONE, PE_DCGM, 10, I32, 1.0, NULL },
	{ "DCGM_FI_DEV_MEM_CLOCK", M_MEM_CLOCK, PX_NONE, PE_DCGM, 10, I32, 1.0, NULL },
	{ "DCGM_FI_DEV_XID_ERRORS", -1, PX_XID, PE_DCGM, 10, I32, 1.0, "the last Xid code: each change to non-zero is an event" },
	/* nvidia_gpu_exporter (ratios in 0..1, hertz, bytes) */
	{ "nvidia_smi_utilization_gpu_ratio", M_UTIL_GPU, PX_NONE, PE_NVSMI, 10, 0, 100.0, "nvidia-smi utilization.gpu" },
	{ "nvidia_smi_utilization_memory_ratio", M_UTIL_MEM, PX_NONE, PE_NVSMI, 10, 0, 100.0, NULL },
	{ "nvidia_smi_memory_used_bytes", M_MEM_USED, PX_NONE, PE_NVSMI, 10, 0, BYTES_TO_MIB, NULL },
	{ "nvidia_smi_memory_total_bytes", M_MEM_TOTAL, PX_NONE, PE_NVSMI, 10, 0, BYTES_TO_MIB, NULL },
	{ "nvidia_smi_power_draw_watts", M_POWER, PX_NONE, PE_NVSMI, 10, 0, 1.0, "power integrated over time (the exporter has no energy counter)" },
	{ "nvidia_smi_enforced_power_limit_watts", M_POWER_LIMIT, PX_NONE, PE_NVSMI, 10, 0, 1.0, NULL },
	{ "nvidia_smi_temperature_gpu", M_TEMP, PX_NONE, PE_NVSMI, 10, 0, 1.0, NULL },
	{ "nvidia_smi_temperature_memory", M_MEM_TEMP, PX_NONE, PE_NVSMI, 10, 0, 1.0, NULL },
	{ "nvidia_smi_clocks_current_sm_clock_hz", M_SM_CLOCK, PX_NONE, PE_NVSMI, 10, 0, 1e-6, NULL },
	{ "nvidia_smi_clocks_current_memory_clock_hz", M_MEM_CLOCK, PX_NONE, PE_NVSMI, 10, 0, 1e-6, NULL },
	{ "nvidia_smi_clocks_max_sm_clock_hz", M_SM_CLOCK_MAX, PX_NONE, PE_NVSMI, 10, 0, 1e-6, NULL },
	{ "nvidia_smi_fan_speed_ratio", M_FAN, PX_NONE, PE_NVSMI, 10, 0, 100.0, NULL },
	{ "nvidia_smi_pstate", M_PSTATE, PX_NONE, PE_NVSMI, 10, 0, 1.0, NULL },
	{ "nvidia_smi_clocks_event_reasons_active", M_EVENT_MASK, PX_NONE, PE_NVSMI, 10, 0, 1.0, NULL },
};
const size_t prom_names_count = sizeof(prom_names) / sizeof(prom_names[0]);

const struct prom_name *prom_name_find(const char *name)
{
	for (size_t i = 0; i < prom_names_count; i++)
		if (!strcmp(prom_names[i].name, name))
			return &prom_names[i];
	return NULL;
}

int prom_name_blank(const struct prom_name *pn, double v)
{
	if ((pn->flags & PN_I32_BLANK) && v >= 2147483632.0)
		return 1;
	if ((pn->flags & PN_I64_BLANK) && v >= 9223372036854775792.0)
		return 1;
	if ((pn->flags & PN_F64_BLANK) && v >= 140737488355328.0)
		return 1;
	return 0;
}
