/* SPDX-License-Identifier: MIT */
/*
 * The record tables: the names and units of the metrics, event kinds, kernel
 * event classes and trace event kinds that format.h declares.  Data only.
 */
#include "formats/format.h"

const struct metric_info metric_info[M__COUNT] = {
#define METRIC(id, name, unit, help) { name, unit, help },
#include "formats/metrics.def"
#undef METRIC
};

const char *const event_kind_name[EV__COUNT] = {
	[EV_GPU_LOST] = "gpu_lost",
	[EV_RESET_REQUIRED] = "reset_required",
	[EV_ERROR_ROW] = "error_row",
	[EV_TOOL_ERROR] = "tool_error",
	[EV_XID] = "xid",
	[EV_FALLEN_OFF] = "fallen_off_bus",
	[EV_RMINIT_FAILED] = "rm_init_failed",
	[EV_DRIVER_LOAD] = "driver_load",
	[EV_GPU_MAP] = "gpu_map",
	[EV_GSP_TIMEOUT] = "gsp_error",
	[EV_MODESET_ERROR] = "modeset_error",
	[EV_PCIE_AER] = "pcie_aer",
	[EV_NVLINK_ERROR] = "nvlink_error",
	[EV_NVRM_OTHER] = "nvrm_error",
	[EV_SUSPEND] = "suspend",
	[EV_RESUME] = "resume",
	[EV_AC_OFF] = "ac_off",
	[EV_AC_ON] = "ac_on",
	[EV_LID] = "lid",
	[EV_POWER_KEY] = "power_key",
	[EV_POWER_OFF] = "power_off",
	[EV_BOOT] = "boot",
	[EV_CONTAINER_START] = "container_start",
	[EV_CONTAINER_STOP] = "container_stop",
};

const char *const kev_class_name[KC__COUNT] = {
	[KC_NONE] = "none",
	[KC_HW] = "hardware",
	[KC_DRIVER] = "driver",
	[KC_APP] = "application",
	[KC_THERMAL] = "thermal",
	[KC_LINK] = "interconnect",
	[KC_SYSTEM] = "system",
};

const char *const trace_ev_name[TR__COUNT] = {
	[TR_KERNEL] = "kernel",
	[TR_MEMCPY] = "memcpy",
	[TR_MEMSET] = "memset",
	[TR_RUNTIME] = "runtime",
	[TR_STEP] = "step",
	[TR_WINDOW] = "window",
	[TR_SUMMARY] = "summary",
	[TR_OVERHEAD] = "overhead",
};
