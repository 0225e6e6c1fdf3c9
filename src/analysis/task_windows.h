/* SPDX-License-Identifier: MIT */
/*
 * The runs of one job found in logs (`gputally scale --logs`, docs/scale.md):
 * the stretches of time a task ran, each with the number of GPUs it ran on.
 * A task is a process name (pmon, --query-compute-apps) or a logger's task
 * label (gpu_monitor.sh's TASK_ID, pid PID_TASK); logs without
 * process data give the stretches in which GPUs did work instead.
 */
#ifndef ANALYSIS_TASK_WINDOWS_H
#define ANALYSIS_TASK_WINDOWS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"

struct task_window {
	int64_t t0_ns, t1_ns;
	int gpus;		/* distinct GPUs seen in the window */
};

/* The process name with the most busy GPU-seconds; without processes, the
 * busiest task label; NULL when the logs have neither (or only nameless
 * processes). */
const char *task_busiest(const struct analysis *an);

/*
 * The windows of task (a process name), or with task NULL of work on any GPU
 * (segments in a state that does work: compute, memory, input, launch or
 * throttled bound).  Per GPU, a process counts from its first observation
 * to one sample interval past its last; stretches of one GPU closer than
 * join_ns are one.  Stretches of different GPUs that overlap in time are one
 * window.  Fills out[0..cap) in time order; returns the number of windows
 * (which may exceed cap: only cap are written).
 */
size_t task_windows(const struct analysis *an, const char *task, int64_t join_ns, struct task_window *out,
		    size_t cap);

#endif
