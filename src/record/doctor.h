/* SPDX-License-Identifier: MIT */
/*
 * gputally doctor: why "NVIDIA-SMI has failed because it couldn't
 * communicate with the NVIDIA driver", check by check.
 *
 * Every file it reads is under opts.root (default "/"), so tests run it on
 * fixture trees; NVML comes from opts.nvml_lib like `record`'s.  It only
 * reads: it never loads a module, writes a file or changes a setting.  The
 * checks and their order are docs/doctor.md's.
 */
#ifndef RECORD_DOCTOR_H
#define RECORD_DOCTOR_H

#include <stdbool.h>

enum doc_status { DOC_OK, DOC_WARN, DOC_FAIL, DOC_SKIP };
extern const char *const doc_status_name[4];

enum {
	DOC_PCI_DEVICE,
	DOC_MODULES,
	DOC_NOUVEAU,
	DOC_DEVICE_NODES,
	DOC_VERSION_MATCH,
	DOC_KERNEL_MATCH,
	DOC_NVML_INIT,
	DOC_PERSISTENCE,
	DOC_CONTAINER,
	DOC_KERNEL_LOG,
	/* the laptop and desktop cases (sources.md 000 and 004) */
	DOC_WSL,
	DOC_HYBRID,
	DOC_DRM_MODESET,
	DOC_SECURE_BOOT,
	DOC_CUDA_CAPABILITY,
	DOC__COUNT
};

struct doc_check {
	const char *id;		/* "pci_device", ... */
	int status;		/* enum doc_status */
	char detail[640];	/* what was found, with the file it came from */
	char fix[512];		/* what to do, empty when nothing */
};

struct doctor_opts {
	const char *root;	/* default "/" */
	const char *nvml_lib;	/* NULL: libnvidia-ml.so.1 */
	const char *kernel_log;	/* NULL: /dev/kmsg (root "/" only), then var/log/kern.log, syslog, messages */
	const char *app_log;	/* NULL: no application log to scan for CUDA capability errors */
};

struct doctor_report {
	struct doc_check checks[DOC__COUNT];
	int failed, warned;
};

void doctor_run(const struct doctor_opts *o, struct doctor_report *r);

#endif
