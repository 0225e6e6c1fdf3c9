/* SPDX-License-Identifier: MIT */
/*
 * Kernel and system log messages: what one message means, whatever
 * envelope (raw dmesg, syslog, journalctl text or JSON) carried it.
 *
 * The envelope formats (fmt_kernel_dmesg.c, fmt_syslog.c,
 * fmt_journal_*.c) strip their own prefix (time, host, tag, level) and hand
 * the message text to kmsg_emit(), which classifies it with
 * kmsg_classify() and, when it is an event worth keeping, emits one
 * REC_EVENT (kev.* filled).  The Xid catalog (meaning, class, fatal or
 * not) is a table in kmsg.c, documented in docs/kernel-events.md; a unit
 * test checks the two agree.
 *
 * Consecutive lines of one event (an Xid 13 burst, the lines of a crash
 * dump notice) are folded by the envelope's state: kmsg_fold() says whether
 * a message continues the previous one, and the envelope then bumps the
 * previous record's kev.count instead of emitting (only within one chunk;
 * the analysis merges bursts that a chunk boundary split).
 */
#ifndef FORMATS_KMSG_H
#define FORMATS_KMSG_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/format.h"
#include "util/scan.h"

struct kmsg {
	int ev;			/* enum event_kind; -1: not an event */
	int32_t code;		/* Xid code, lid 0/1, ...; -1 if none */
	int64_t pid;		/* -1 if none */
	uint8_t klass;		/* enum kev_class */
	uint8_t severity;	/* enum kev_severity */
	uint8_t flags;		/* enum kev_flag */
	struct slice pci;	/* PCI address as written (normalise with kmsg_pci_norm) */
	struct slice uuid;	/* GPU-... (EV_GPU_MAP) */
	struct slice proc;	/* name= of an Xid */
	struct slice text;	/* kind-specific: driver version, Xid 154 action ... */
};

/* An Xid code's entry in the catalog. */
struct xid_info {
	int code;
	uint8_t klass;		/* enum kev_class */
	uint8_t severity;	/* enum kev_severity */
	uint8_t flags;		/* KF_CONSEQUENCE, KF_DOWN */
	const char *meaning;	/* one line, plain words */
};

/* The catalog entry for an Xid code, or NULL for an unknown code. */
const struct xid_info *xid_lookup(int code);
size_t xid_catalog_count(void);
const struct xid_info *xid_catalog_at(size_t i);

/*
 * Classify one message (without the envelope's prefix).  tag is the
 * syslog identifier / journal SYSLOG_IDENTIFIER ("kernel", "systemd-logind",
 * "acpid", "dockerd" ...), empty when the envelope has none.  Returns false
 * (k->ev = -1) for a message that is not an event.
 */
bool kmsg_classify(struct slice msg, struct slice tag, struct kmsg *k);

/*
 * Classify msg and, if it is an event, emit a REC_EVENT at t_ns (time kind
 * tk; boot = the input's boot number for TK_BOOT) with its message, kev.*
 * and, for an Xid naming a GPU by PCI only, gpu_index -1 (the timeline maps
 * PCI addresses to GPUs).  col is the message's 1-based column in the line.
 * Returns the record or NULL.
 */
struct rec *kmsg_emit(struct parse_ctx *ctx, struct slice msg, struct slice tag, int64_t t_ns,
		      enum time_kind tk, uint32_t boot, uint32_t col);

/* Normalise a PCI address to "dddd:bb:dd.f" lower case (domain 0000 and
 * function 0 when absent) into out (at least 16 bytes); false if it is not one. */
bool kmsg_pci_norm(struct slice pci, char out[16]);

#endif
