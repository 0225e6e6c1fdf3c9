/* SPDX-License-Identifier: MIT */
/*
 * The kernel message classifier and the Xid catalog (kmsg.h).
 */
#include "formats/kmsg.h"

#include <stdio.h>
#include <string.h>

#define N_(x) (sizeof(x) / sizeof((x)[0]))

/* Sorted by code.  The meaning and class follow ../shared/docs/formats.md
 * section 3.2; docs/kernel-events.md lists the same table. */
static const struct xid_info xids[] = {
	{ 13, KC_APP, KS_ERROR, 0, "graphics engine exception (often an application's out-of-range access)" },
	{ 31, KC_APP, KS_ERROR, 0, "GPU memory page fault (MMU fault; usually an application bug)" },
	{ 45, KC_DRIVER, KS_WARNING, KF_CONSEQUENCE, "preemptive cleanup after an earlier error (a consequence, not a cause)" },
	{ 48, KC_HW, KS_FATAL, KF_DOWN, "double-bit ECC error (uncorrectable)" },
	{ 63, KC_HW, KS_WARNING, 0, "ECC page retirement or row remap recorded" },
	{ 64, KC_HW, KS_ERROR, 0, "ECC page retirement or row remap failed" },
	{ 79, KC_HW, KS_FATAL, KF_DOWN, "GPU has fallen off the bus" },
	{ 92, KC_HW, KS_WARNING, 0, "high single-bit ECC error rate" },
	{ 94, KC_HW, KS_ERROR, 0, "contained ECC error" },
	{ 95, KC_HW, KS_FATAL, KF_DOWN, "uncontained ECC error" },
	{ 119, KC_DRIVER, KS_FATAL, KF_DOWN, "GSP RPC timeout" },
	{ 154, KC_DRIVER, KS_ERROR, 0, "GPU recovery action changed" },
};

const struct xid_info *xid_lookup(int code)
{
	size_t lo = 0, hi = N_(xids);

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (xids[mid].code == code)
			return &xids[mid];
		if (xids[mid].code < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

size_t xid_catalog_count(void)
{
	return N_(xids);
}

const struct xid_info *xid_catalog_at(size_t i)
{
	return i < N_(xids) ? &xids[i] : NULL;
}

static const char *find(struct slice s, const char *lit)
{
	size_t n = strlen(lit);

	for (const char *p = s.p; p + n <= s.p + s.n; p++)
		if (*p == *lit && !memcmp(p, lit, n))
			return p;
	return NULL;
}

bool kmsg_pci_norm(struct slice pci, char out[16])
{
	unsigned dom = 0, bus, dev, fn = 0;
	char buf[32];
	int n = 0;

	if (pci.n == 0 || pci.n >= sizeof(buf))
		return false;
	memcpy(buf, pci.p, pci.n);
	buf[pci.n] = 0;
	if (sscanf(buf, "%x:%x:%x.%x%n", &dom, &bus, &dev, &fn, &n) == 4 && (size_t)n == pci.n) {
	} else if (fn = 0, sscanf(buf, "%x:%x:%x%n", &dom, &bus, &dev, &n) == 3 && (size_t)n == pci.n) {
	} else if (dom = 0, sscanf(buf, "%x:%x.%x%n", &bus, &dev, &fn, &n) == 3 && (size_t)n == pci.n) {
	} else
		return false;
	if (dom > 0xffff || bus > 0xff || dev > 0x1f || fn > 7)
		return false;
	snprintf(out, 16, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return true;
}

/* "NVRM: Xid (PCI:0000:01:00): 31, pid=..., name=..., text" and variants */
static bool classify_xid(struct slice m, const char *x, struct kmsg *k)
{
	const char *p = x + 3, *e = m.p + m.n;
	uint64_t code;

	while (p < e && *p == ' ')
		p++;
	if (p < e && *p == '(') {
		const char *close = memchr(p, ')', (size_t)(e - p));
		if (!close)
			return false;
		const char *a = p + 1;
		if ((size_t)(close - a) > 4 && !memcmp(a, "PCI:", 4))
			a += 4;
		k->pci = (struct slice){ a, (size_t)(close - a) };
		p = close + 1;
		if (p < e && *p == ':')
			p++;
		while (p < e && *p == ' ')
			p++;
		if (!(p < e && *p >= '0' && *p <= '9')) {
			/* "Xid (79): text": the parenthesis held the code */
			const char *q = k->pci.p;
			if (scan_u64(&q, k->pci.p + k->pci.n, &code) || q != k->pci.p + k->pci.n)
				return false;
			k->pci = (struct slice){ NULL, 0 };
			goto have_code;
		}
	}
	if (scan_u64(&p, e, &code))
		return false;
have_code:
	if (code > 100000)
		return false;
	k->ev = EV_XID;
	k->code = (int32_t)code;
	while (p < e && (*p == ',' || *p == ' ' || *p == ':'))
		p++;
	/* optional pid=, name= */
	for (int i = 0; i < 2; i++) {
		if (e - p > 4 && !memcmp(p, "pid=", 4)) {
			const char *q = p + 4;
			int64_t pid;
			if (!scan_i64(&q, e, &pid))
				k->pid = pid;
			while (p < e && *p != ',')
				p++;
		} else if (e - p > 5 && !memcmp(p, "name=", 5)) {
			const char *q = p + 5;
			while (p < e && *p != ',')
				p++;
			k->proc = (struct slice){ q, (size_t)(p - q) };
		} else
			break;
		while (p < e && (*p == ',' || *p == ' '))
			p++;
	}
	k->text = (struct slice){ p, (size_t)(e - p) };
	const struct xid_info *xi = xid_lookup(k->code);
	if (xi) {
		k->klass = xi->klass;
		k->severity = xi->severity;
		k->flags = xi->flags;
	} else {
		k->klass = KC_NONE;
		k->severity = KS_ERROR;
	}
	return true;
}

bool kmsg_classify(struct slice msg, struct slice tag, struct kmsg *k)
{
	const char *x;

	(void)tag;
	memset(k, 0, sizeof(*k));
	k->ev = -1;
	k->code = -1;
	k->pid = -1;
	if (!(x = find(msg, "NVRM: ")))
		return false;
	struct slice m = { x + 6, (size_t)(msg.p + msg.n - (x + 6)) };
	if (slice_starts_with(m, "Xid") && classify_xid(m, m.p, k))
		return true;
	if (find(m, "fallen off the bus")) {
		k->ev = EV_FALLEN_OFF;
		k->klass = KC_HW;
		k->severity = KS_FATAL;
		k->flags = KF_DOWN;
		return true;
	}
	if (slice_starts_with(m, "loading NVIDIA")) {
		k->ev = EV_DRIVER_LOAD;
		k->klass = KC_DRIVER;
		k->severity = KS_INFO;
		return true;
	}
	return false;
}

struct rec *kmsg_emit(struct parse_ctx *ctx, struct slice msg, struct slice tag, int64_t t_ns,
		      enum time_kind tk, uint32_t boot, uint32_t col)
{
	struct kmsg k;
	struct rec *r;

	if (!kmsg_classify(msg, tag, &k) || !(r = ctx_rec(ctx, REC_EVENT)))
		return NULL;
	r->ev = (uint8_t)k.ev;
	r->t_ns = t_ns;
	r->time_kind = (uint8_t)tk;
	r->col = col;
	r->pid = k.pid;
	r->name = ctx_str(ctx, slice_trim(msg));
	r->kev.code = k.code;
	r->kev.boot = boot;
	r->kev.klass = k.klass;
	r->kev.severity = k.severity;
	r->kev.flags = k.flags;
	if (k.pci.n) {
		char norm[16];
		r->kev.pci = kmsg_pci_norm(k.pci, norm) ? ctx_str(ctx, (struct slice){ norm, strlen(norm) })
							: ctx_str(ctx, k.pci);
	}
	if (k.proc.n)
		r->kev.proc = ctx_str(ctx, k.proc);
	if (k.text.n)
		r->kev.text = ctx_str(ctx, k.text);
	if (k.uuid.n)
		r->uuid = ctx_str(ctx, k.uuid);
	return r;
}
