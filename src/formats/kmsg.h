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
 * dump notice, the three lines of an old fall-off message) are folded by
 * kmsg_emit_fold() with a struct kmsg_fold kept in the envelope's state:
 * the previous record's kev.count is bumped instead of emitting (only
 * within one chunk; the analysis merges bursts that a chunk boundary split).
 *
 * Kernel logs are mostly noise: kmsg_maybe() is the cheap test an envelope
 * runs on every message, and only messages it passes are classified.
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
	struct slice pci;	/* PCI address as written (normalise with pci_norm) */
	struct slice uuid;	/* GPU-... (EV_GPU_MAP) */
	struct slice proc;	/* name= of an Xid */
	struct slice text;	/* kind-specific: driver version, GSP's "GPU<k>", container id ... */
	const char *ctext;	/* a constant text instead (Xid 154's decoded action), or NULL */
	uint8_t cont;		/* KM_CONT_*: a continuation line of a multi-line message */
};

/* Continuation lines (struct kmsg.cont): not events themselves, folded
 * into the event before them by kmsg_emit_fold(). */
enum {
	KM_CONT_NONE,
	KM_CONT_CRASHDUMP,	/* "nvidia-bug-report.sh as root ..." after a crash dump notice */
	KM_CONT_FALLOFF_HEAD,	/* "The NVIDIA GPU 0000:b3:00.0" (pci set): a fall-off follows */
	KM_CONT_FALLOFF_MID,	/* "(PCI ID: 10de:26b5) installed in this system has" */
};

/* An Xid code's entry in the catalog. */
struct xid_info {
	int code;
	uint8_t klass;		/* enum kev_class */
	uint8_t severity;	/* enum kev_severity */
	uint8_t flags;		/* KF_CONSEQUENCE, KF_DOWN */
	const char *group;	/* the formats document's class: APP, RESET, NODE, HW, ... */
	const char *meaning;	/* one line, plain words */
};

/* An Xid event's code, and the catalog's class, severity and flags when it
 * knows the code (else the record's own, as an unknown code keeps them). */
void kev_set_xid(struct rec *r, int32_t code);

/* The catalog entry for an Xid code, or NULL for an unknown code. */
const struct xid_info *xid_lookup(int code);
size_t xid_catalog_count(void);
const struct xid_info *xid_catalog_at(size_t i);

/* Xid 154's recovery actions (formats.md 3.2): the label of code c, or NULL. */
const char *xid_recovery_label(unsigned c);

/*
 * Could msg be an event at all?  A switch on the first byte, then one pass
 * over msg for the words every other classified message contains ("NVRM: ",
 * "[10de:", the logind, acpid and container words).  false: kmsg_classify
 * would say no.
 */
bool kmsg_maybe(const char *msg, size_t n);

/*
 * For the unit tests: kmsg_maybe()'s search for its words anywhere in msg
 * (past the first-byte switch) by one of its ways: the table loop, SSE2
 * blocks of 16 (n >= 17; shorter: the loop), or AVX2 blocks of 32 (n >= 33).
 * 1 or 0; -1 when that way is not built in, not on this CPU, or n is too
 * short for it.  kmsg_maybe() takes the widest that applies.
 */
/*
 * memmem(h, n, w, m), the first occurrence, made for short words in short
 * messages: what the classifier looks for words with.
 */
const char *kmsg_find(const char *h, size_t n, const char *w, size_t m);

/*
 * Whether s holds one of the classifier's error words ("error", "Error",
 * "ERROR", "fail", "failed", "Failed", "FAILED", "fatal", "Fatal",
 * "Assertion", "timeout", "Timeout", "timed out"), found in one pass.
 */
bool kmsg_error_word(const char *s, size_t n);

enum kmsg_simd { KMSG_SIMD_NONE, KMSG_SIMD_SSE2, KMSG_SIMD_AVX2 };
int kmsg_maybe_words_with(const char *msg, size_t n, enum kmsg_simd simd);

/*
 * Classify one message (without the envelope's prefix).  tag is the
 * syslog identifier / journal SYSLOG_IDENTIFIER ("kernel", "systemd-logind",
 * "acpid", "dockerd" ...), empty when the envelope has none.  Returns false
 * (k->ev = -1) for a message that is not an event; a continuation line
 * returns false with k->cont set.
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

/* What an envelope keeps to fold bursts (zero it in init()). */
struct kmsg_fold {
	size_t rec;		/* index of the last emitted event in the batch + 1; 0: none */
	int ev;
	int32_t code;
	uint32_t pci;		/* its kev.pci */
	int64_t t_ns;
	uint8_t time_kind;
	uint32_t boot;
	char pending_pci[16];	/* KM_CONT_FALLOFF_HEAD's address, for the fall-off line */
	uint8_t pending;	/* the continuation expected next (KM_CONT_*) */
};

/* Window within which lines of the same Xid code and PCI address are one event. */
#define KMSG_BURST_NS (10 * INT64_C(1000000))

/*
 * The most seconds a printk stamp "[sssss.uuuuuu]" may hold: the largest
 * whose nanoseconds, fraction included, fit int64 (292 years of uptime).
 * A longer stamp is no real kernel's: the parsers do not take it as a time
 * (before, it wrapped to a time of nonsense).
 */
#define KMSG_STAMP_MAX_S ((INT64_MAX - 999999999) / 1000000000)

/*
 * kmsg_emit() with folding: a message that continues the event before it
 * (the same Xid code and PCI address within KMSG_BURST_NS, a crash-dump
 * notice's next lines, the lines of a three-line fall-off) bumps that
 * record's kev.count and sets KF_BURST instead of emitting.  Returns the
 * record emitted or bumped, or NULL.
 */
struct rec *kmsg_emit_fold(struct parse_ctx *ctx, struct kmsg_fold *f, struct slice msg,
			   struct slice tag, int64_t t_ns, enum time_kind tk, uint32_t boot,
			   uint32_t col);


#endif
