/* SPDX-License-Identifier: MIT */
/*
 * The kernel message classifier and the Xid catalog (kmsg.h).  Every shape
 * it recognises is listed in docs/kernel-events.md; the shapes come from
 * ../shared/docs/formats.md sections 3.1, 3.2, 3.8 and 12.
 */
#include "formats/kmsg.h"

#include <stdio.h>
#include <string.h>

#include "util/pci.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define MAYBE_AVX2 1	/* behind a run-time CPU check */
#endif

#define N_(x) (sizeof(x) / sizeof((x)[0]))

/*
 * Sorted by code.  group is the formats document's class (section 3.2);
 * klass the coarse kev_class the analysis counts by; KF_DOWN marks the
 * codes the issue calls fatal (the GPU is down until its next healthy
 * sample): 48, 79, 95, 119, and 140 ("treat like 95") and 143 (the GPU
 * did not initialise).  docs/kernel-events.md lists the same table and a
 * unit test compares the two.
 */
static const struct xid_info xids[] = {
	{ 8, KC_APP, KS_ERROR, 0, "APP / RESET", "GPU stopped processing (channel idle timeout)" },
	{ 13, KC_APP, KS_ERROR, 0, "APP", "graphics engine exception (SM warp exception, illegal or out-of-range address)" },
	{ 31, KC_APP, KS_ERROR, 0, "APP", "GPU memory page fault (MMU fault; usually a bad pointer in the application)" },
	{ 32, KC_HW, KS_ERROR, 0, "HW / driver", "invalid or corrupted push-buffer stream (PCIe or memory corruption)" },
	{ 38, KC_DRIVER, KS_ERROR, 0, "RESET", "driver firmware error" },
	{ 43, KC_APP, KS_WARNING, 0, "APP", "GPU stopped processing (the application's channel was torn down)" },
	{ 45, KC_DRIVER, KS_WARNING, KF_CONSEQUENCE, "CONSEQ", "preemptive cleanup after earlier errors (a consequence, not a cause)" },
	{ 46, KC_DRIVER, KS_ERROR, 0, "RESET", "GPU stopped processing" },
	{ 48, KC_HW, KS_FATAL, KF_DOWN, "RESET / HW", "double-bit ECC error (uncorrectable)" },
	{ 51, KC_DRIVER, KS_ERROR, 0, "RESET", "bad TSG on runlist" },
	{ 56, KC_NONE, KS_INFO, 0, "INFO", "display engine warning" },
	{ 57, KC_NONE, KS_INFO, 0, "INFO", "internal micro-controller warning" },
	{ 58, KC_NONE, KS_INFO, 0, "INFO", "internal micro-controller warning" },
	{ 61, KC_NONE, KS_INFO, 0, "INFO", "internal micro-controller breakpoint or warning (PMU)" },
	{ 62, KC_DRIVER, KS_ERROR, 0, "RESET", "internal micro-controller halt (PMU or firmware)" },
	{ 63, KC_HW, KS_WARNING, 0, "INFO / HW-watch", "ECC page retirement or row remap recorded (a reset activates it)" },
	{ 64, KC_HW, KS_ERROR, 0, "HW", "ECC page retirement or row remap failed" },
	{ 68, KC_APP, KS_ERROR, 0, "APP / HW", "video processor (NVDEC) exception" },
	{ 69, KC_APP, KS_ERROR, 0, "APP / driver", "graphics engine class error" },
	{ 74, KC_LINK, KS_ERROR, 0, "HW / RESET", "NVLink error" },
	{ 79, KC_HW, KS_FATAL, KF_DOWN, "NODE", "GPU has fallen off the bus" },
	{ 92, KC_HW, KS_WARNING, 0, "HW-watch", "high single-bit ECC error rate" },
	{ 94, KC_HW, KS_ERROR, 0, "APP / RESET soon", "contained ECC error (only the processes that touched it are killed)" },
	{ 95, KC_HW, KS_FATAL, KF_DOWN, "RESET", "uncontained ECC error (every application on the GPU is affected)" },
	{ 109, KC_APP, KS_ERROR, 0, "APP / RESET", "context-switch timeout" },
	{ 119, KC_DRIVER, KS_FATAL, KF_DOWN, "RESET", "GSP RPC timeout" },
	{ 120, KC_DRIVER, KS_ERROR, 0, "RESET", "GSP error" },
	{ 121, KC_LINK, KS_INFO, 0, "INFO", "C2C (chip-to-chip) link corrected error" },
	{ 122, KC_HW, KS_ERROR, 0, "HW", "SPI PMU RPC read failure" },
	{ 123, KC_HW, KS_ERROR, 0, "HW", "SPI PMU RPC write failure" },
	{ 124, KC_HW, KS_ERROR, 0, "HW", "SPI PMU RPC erase failure" },
	{ 140, KC_HW, KS_FATAL, KF_DOWN, "RESET / HW", "unrecoverable ECC error (escaped containment)" },
	{ 143, KC_HW, KS_FATAL, KF_DOWN, "HW / NODE", "GPU initialisation failure" },
	{ 144, KC_LINK, KS_ERROR, 0, "HW / RESET", "NVLink, fabric or NETIR link event" },
	{ 145, KC_LINK, KS_ERROR, 0, "HW / RESET", "NVLink, fabric or NETIR link event" },
	{ 146, KC_LINK, KS_ERROR, 0, "HW / RESET", "NVLink, fabric or NETIR link event" },
	{ 147, KC_LINK, KS_ERROR, 0, "HW / RESET", "NVLink, fabric or NETIR link event" },
	{ 148, KC_LINK, KS_ERROR, 0, "HW / RESET", "NVLink, fabric or NETIR link event" },
	{ 149, KC_LINK, KS_ERROR, 0, "HW / RESET", "NVLink, fabric or NETIR link event" },
	{ 150, KC_LINK, KS_ERROR, 0, "HW / RESET", "NVLink, fabric or NETIR link event" },
	{ 154, KC_DRIVER, KS_WARNING, 0, "meta", "GPU recovery action changed (the driver's verdict)" },
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

void kev_set_xid(struct rec *r, int32_t code)
{
	const struct xid_info *x = xid_lookup(code);

	r->kev.code = code;
	if (x) {
		r->kev.klass = x->klass;
		r->kev.severity = x->severity;
		r->kev.flags = x->flags;
	}
}

size_t xid_catalog_count(void)
{
	return N_(xids);
}

const struct xid_info *xid_catalog_at(size_t i)
{
	return i < N_(xids) ? &xids[i] : NULL;
}

/* Xid 154 / NVML recovery actions; severity and flags of a 154 that names them. */
static const struct {
	const char *label;
	uint8_t severity;
	uint8_t flags;
} recovery[] = {
	[0] = { "None", KS_INFO, 0 },
	[1] = { "GPU Reset Required", KS_FATAL, KF_DOWN },
	[2] = { "Node Reboot Required", KS_FATAL, KF_DOWN },
	[3] = { "Drain P2P", KS_WARNING, 0 },
	[4] = { "Drain and Reset", KS_FATAL, KF_DOWN },
	[5] = { "Recover IMEX Domain", KS_ERROR, 0 },
	[6] = { "Bus Reset", KS_FATAL, KF_DOWN },
	[7] = { "System Reboot", KS_FATAL, KF_DOWN },
};

const char *xid_recovery_label(unsigned c)
{
	return c < N_(recovery) ? recovery[c].label : NULL;
}

/* ---- small scanning helpers ------------------------------------------- */

/*
 * memmem() for the classifier's short words in short messages: glibc's
 * generic two-way search cost about 700 instructions a call here, and an
 * NVIDIA line that is no event asks for forty words (a third of a kernel
 * log's time where such lines are common).  Sixteen start positions at a
 * time, a candidate where both the word's first and its last byte are in
 * place (SSE2, part of every x86-64), the bytes between compared only
 * there; the positions a block cannot take are tried one by one.  The
 * answer is memmem()'s, the first occurrence (a unit test compares them).
 */
const char *kmsg_find(const char *h, size_t n, const char *w, size_t m)
{
	size_t i = 0;

	if (m == 0)
		return h;
	if (m > n)
		return NULL;
	if (m == 1)
		return memchr(h, (unsigned char)w[0], n);
#ifdef __SSE2__
	{
		const __m128i first = _mm_set1_epi8(w[0]), last = _mm_set1_epi8(w[m - 1]);
		/* a block of starts i..i+15 reads up to h[i + 15 + m - 1] */
		for (; i + 15 + m <= n; i += 16) {
			__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(h + i));
			__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(h + i + m - 1));
			unsigned mask = (unsigned)_mm_movemask_epi8(
				_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, last)));
			while (mask) {
				size_t j = i + (size_t)__builtin_ctz(mask);
				if (m == 2 || !memcmp(h + j + 1, w + 1, m - 2))
					return h + j;
				mask &= mask - 1;
			}
		}
		/* the starts left, fewer than 16: one more block ending at the
		 * last start, the starts already tried masked off */
		if (i + m <= n && n >= 15 + m) {
			size_t b0 = n - m - 15;
			__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(h + b0));
			__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(h + b0 + m - 1));
			unsigned mask = (unsigned)_mm_movemask_epi8(
				_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, last)));
			mask &= ~0u << (i - b0);
			while (mask) {
				size_t j = b0 + (size_t)__builtin_ctz(mask);
				if (m == 2 || !memcmp(h + j + 1, w + 1, m - 2))
					return h + j;
				mask &= mask - 1;
			}
			return NULL;
		}
	}
#endif
	for (; i + m <= n; i++)
		if (h[i] == w[0] && h[i + m - 1] == w[m - 1] && !memcmp(h + i + 1, w + 1, m - 2))
			return h + i;
	return NULL;
}

static const char *find(struct slice s, const char *lit)
{
	return s.n ? kmsg_find(s.p, s.n, lit, strlen(lit)) : NULL;
}

static bool has(struct slice s, const char *lit)
{
	return find(s, lit) != NULL;
}

static struct slice after(struct slice s, const char *p)
{
	return (struct slice){ p, (size_t)(s.p + s.n - p) };
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Length of a PCI address at p ("[dddd:]bb:dd[.f]"), 0 if none. */
static size_t pci_len(const char *p, const char *e)
{
	size_t n = 0, groups = 0, digits = 0;

	while (p + n < e) {
		char c = p[n];
		if (is_hex(c)) {
			if (++digits > 4)
				return 0;
		} else if (c == ':' && digits >= 2 && groups < 2 && p + n + 1 < e && is_hex(p[n + 1])) {
			groups++;
			digits = 0;
		} else {
			break;
		}
		n++;
	}
	if (groups < 1 || digits != 2)
		return 0;
	if (p + n + 1 < e && p[n] == '.' && p[n + 1] >= '0' && p[n + 1] <= '7' &&
	    !(p + n + 2 < e && is_hex(p[n + 2])))
		n += 2;
	return n;
}

/* The first PCI address in s (a word of its own), or an empty slice. */
static struct slice find_pci(struct slice s)
{
	const char *e = s.p + s.n;

	for (const char *p = s.p; p < e; p++) {
		if (!is_hex(*p) || (p > s.p && (is_hex(p[-1]) || p[-1] == ':')))
			continue;
		size_t n = pci_len(p, e);
		if (n >= 7)	/* bb:dd.f at least, or dddd:bb:dd */
			return (struct slice){ p, n };
	}
	return (struct slice){ NULL, 0 };
}

static void set(struct kmsg *k, int ev, uint8_t klass, uint8_t severity, uint8_t flags)
{
	k->ev = ev;
	k->klass = klass;
	k->severity = severity;
	k->flags = flags;
}

/* ---- Xid lines ------------------------------------------------------------ */

/* Xid 154: "... changed from 0x0 (None) to 0x2 (Node Reboot Required)", or
 * "changed to 0x2 (...)".  The number after the last " to 0x" wins over the
 * label; a label alone is matched against the table. */
static void xid154(struct slice text, struct kmsg *k)
{
	const char *e = text.p + text.n, *to = NULL;
	int code = -1;

	for (const char *p = text.p; (p = kmsg_find(p, (size_t)(e - p), "to 0x", 5)); p += 5)
		to = p;
	if (to) {
		const char *q = to + 3;
		uint64_t v;
		if (!scan_hex_u64(&q, e, &v) && v < N_(recovery))
			code = (int)v;
	} else {
		for (unsigned i = 0; i < N_(recovery); i++)
			if (i && has(text, recovery[i].label))
				code = (int)i;
		if (code < 0 && (has(text, "OS Reboot") || has(text, "Reboot Required")))
			code = 2;
		if (code < 0 && has(text, "PF FLR"))
			code = 1;
	}
	if (code < 0)
		return;		/* keep the catalog's severity; the text says the rest */
	k->ctext = recovery[code].label;
	k->severity = recovery[code].severity;
	k->flags |= recovery[code].flags;
}

/* The severity word of a fabric Xid (144..150): "NETIR_INT  Fatal  ..." */
static void xid_link_severity(struct slice text, struct kmsg *k)
{
	if (has(text, "Nonfatal") || has(text, "Non-fatal") || has(text, "NonFatal"))
		k->severity = KS_WARNING;
	else if (has(text, "Fatal"))
		k->severity = KS_FATAL;
}

/*
 * m starts at "Xid".  Shapes (formats.md 3.1.1, 12.3, 12.6):
 *   Xid (PCI:dddd:bb:dd): code, [pid=N|'<unknown>', ][name=comm, ]text
 *   Xid (dddd:bb:dd): code, ...       old, no "PCI:"
 *   Xid (PCI:dddd:bb:dd.f): code ...  some tools' fixtures
 *   Xid (PCI:...): code ...           redacted address: no GPU
 *   Xid code, text                    paraphrase, no address
 *   Xid (code): text                  synthetic fixtures
 * The code is the decimal number after "): ", never a digit of the domain.
 */
static bool classify_xid(struct slice m, struct kmsg *k)
{
	const char *p = m.p + 3, *e = m.p + m.n;
	uint64_t code;

	while (p < e && *p == ' ')
		p++;
	if (p < e && *p == '(') {
		const char *close = memchr(p, ')', (size_t)(e - p));
		if (!close)
			return false;
		const char *a = p + 1;
		if ((size_t)(close - a) >= 4 && !memcmp(a, "PCI:", 4))
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
			if (q == a && (close - a) <= 4 && !scan_u64(&q, close, &code) && q == close) {
				k->pci = (struct slice){ NULL, 0 };
				goto have_code;
			}
			return false;
		}
	} else if (!(p < e && *p >= '0' && *p <= '9')) {
		return false;
	}
	if (scan_u64(&p, e, &code))
		return false;
	if (p < e && *p != ',' && *p != ' ' && *p != ':')
		return false;
have_code:
	if (code > 100000)
		return false;
	k->ev = EV_XID;
	k->code = (int32_t)code;
	while (p < e && (*p == ',' || *p == ' ' || *p == ':'))
		p++;
	/* optional pid=, name= (in that order on real drivers; either order here) */
	for (int i = 0; i < 2; i++) {
		if (e - p > 4 && !memcmp(p, "pid=", 4)) {
			const char *q = p + 4;
			int64_t pid;
			if (!scan_i64(&q, e, &pid) && (q == e || *q == ','))
				k->pid = pid;
			while (p < e && *p != ',')
				p++;
		} else if (e - p > 5 && !memcmp(p, "name=", 5)) {
			const char *q = p + 5;
			while (p < e && *p != ',')
				p++;
			struct slice nm = { q, (size_t)(p - q) };
			if (!slice_eq(nm, "<unknown>") && !slice_eq(nm, "'<unknown>'") && nm.n)
				k->proc = nm;
		} else
			break;
		while (p < e && (*p == ',' || *p == ' '))
			p++;
	}
	k->text = (struct slice){ p, (size_t)(e - p) };
	const struct xid_info *xi = xid_lookup(k->code);
	if (xi)
		set(k, EV_XID, xi->klass, xi->severity, xi->flags);
	else
		set(k, EV_XID, KC_NONE, KS_WARNING, 0);	/* kept with its text, never dropped */
	if (k->code == 154)
		xid154(k->text, k);
	else if (k->code >= 144 && k->code <= 150)
		xid_link_severity(k->text, k);
	return true;
}

/* ---- the other NVRM lines ---------------------------------------------- */

/* "GPU at PCI:0000:01:00: GPU-4e391288-897c-ba5d-6944-dfbea55ebcfa": the
 * whole shape, so that "Rate limiting ... for GPU at PCI:..." is not one. */
static bool gpu_map(struct slice m, struct kmsg *k)
{
	const char *p = m.p + strlen("GPU at PCI:"), *e = m.p + m.n;
	size_t n = pci_len(p, e);

	if (!n || e - (p + n) < 2 + 4 + 36 || memcmp(p + n, ": GPU-", 6))
		return false;
	const char *u = p + n + 2, *ue = u + 4;
	while (ue < e && (is_hex(*ue) || *ue == '-'))
		ue++;
	if (ue - u != 40)	/* GPU- and the 36 characters of a UUID */
		return false;
	while (ue < e && *ue == ' ')
		ue++;
	if (ue != e)
		return false;
	k->pci = (struct slice){ p, n };
	k->uuid = (struct slice){ u, 40 };
	set(k, EV_GPU_MAP, KC_NONE, KS_INFO, 0);
	return true;
}

/* "loading NVIDIA UNIX [Open Kernel Module for ]x86_64 [Kernel Module ] 580.159.04 ..." */
static bool driver_load(struct slice m, struct kmsg *k)
{
	const char *p = m.p, *e = m.p + m.n;
	struct slice tok;

	set(k, EV_DRIVER_LOAD, KC_DRIVER, KS_INFO, 0);
	while (scan_token(&p, e, &tok)) {
		int dots = 0;
		bool ok = tok.n >= 3 && tok.p[0] >= '0' && tok.p[0] <= '9';
		for (size_t i = 0; ok && i < tok.n; i++) {
			if (tok.p[i] == '.')
				dots++;
			else if (tok.p[i] < '0' || tok.p[i] > '9')
				ok = false;
		}
		if (ok && dots >= 1) {
			k->text = tok;
			break;
		}
	}
	return true;
}

/* "GPU<k>" as the driver names a GPU (its own index, not nvidia-smi's). */
static struct slice gpu_word(struct slice m)
{
	const char *e = m.p + m.n;

	for (const char *p = m.p; (p = kmsg_find(p, (size_t)(e - p), "GPU", 3)); p += 3) {
		const char *q = p + 3;
		if (p > m.p && p[-1] != ' ')
			continue;
		while (q < e && *q >= '0' && *q <= '9')
			q++;
		if (q > p + 3 && (q == e || *q == ' ' || *q == ':' || *q == '!' || *q == ','))
			return (struct slice){ p, (size_t)(q - p) };
	}
	return (struct slice){ NULL, 0 };
}

/* Is w (a literal of m bytes) at p, with e the end? */
static inline bool word_at(const char *p, const char *e, const char *w, size_t m)
{
	return (size_t)(e - p) >= m && !memcmp(p, w, m);
}

/* The error words that begin at p (its first byte one of eEfFAtT). */
static bool error_word_at(const char *p, const char *e)
{
	switch (*p) {
	case 'e':
		return word_at(p, e, "error", 5);
	case 'E':
		return word_at(p, e, "Error", 5) || word_at(p, e, "ERROR", 5);
	case 'f':	/* "failed" begins with "fail" */
		return word_at(p, e, "fail", 4) || word_at(p, e, "fatal", 5);
	case 'F':
		return word_at(p, e, "Failed", 6) || word_at(p, e, "FAILED", 6) || word_at(p, e, "Fatal", 5);
	case 'A':
		return word_at(p, e, "Assertion", 9);
	case 't':
		return word_at(p, e, "timeout", 7) || word_at(p, e, "timed out", 9);
	case 'T':
		return word_at(p, e, "Timeout", 7);
	default:
		return false;
	}
}

/*
 * The error words in one pass: every place where one of the words'
 * first bytes is, sixteen bytes at a time (SSE2), then the words of that
 * byte there.  Thirteen memmem()s were the larger part of classifying an
 * NVRM line that is no event.
 */
bool kmsg_error_word(const char *s, size_t n)
{
	const char *e = s + n;
	size_t i = 0;

#ifdef __SSE2__
	/* a candidate where a word's first two bytes are: e r, E r, E R, f a,
	 * F a, F A, A s, t i, T i (the second load reads s[i + 16]) */
	for (; i + 17 <= n; i += 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 1));
#define EQ(v, ch) _mm_cmpeq_epi8(v, _mm_set1_epi8(ch))
		__m128i r = _mm_or_si128(EQ(b, 'r'), EQ(b, 'R'));
		__m128i c = _mm_or_si128(
			_mm_or_si128(_mm_and_si128(EQ(a, 'e'), EQ(b, 'r')), _mm_and_si128(EQ(a, 'E'), r)),
			_mm_or_si128(_mm_or_si128(_mm_and_si128(EQ(a, 'f'), EQ(b, 'a')),
						  _mm_and_si128(EQ(a, 'F'), _mm_or_si128(EQ(b, 'a'), EQ(b, 'A')))),
				     _mm_or_si128(_mm_and_si128(EQ(a, 'A'), EQ(b, 's')),
						  _mm_and_si128(_mm_or_si128(EQ(a, 't'), EQ(a, 'T')), EQ(b, 'i')))));
#undef EQ
		unsigned mask = (unsigned)_mm_movemask_epi8(c);
		while (mask) {
			if (error_word_at(s + i + (size_t)__builtin_ctz(mask), e))
				return true;
			mask &= mask - 1;
		}
	}
#endif
	for (; i < n; i++)
		if (error_word_at(s + i, e))
			return true;
	return false;
}

static bool has_error_word(struct slice s)
{
	return kmsg_error_word(s.p, s.n);
}

/* m: the text after "NVRM: " */
static bool classify_nvrm(struct slice m, struct kmsg *k)
{
	if (slice_starts_with(m, "Xid"))
		return classify_xid(m, k);
	if (slice_starts_with(m, "GPU at PCI:"))
		return gpu_map(m, k);
	if (slice_starts_with(m, "loading NVIDIA"))
		return driver_load(m, k);
	if (slice_starts_with(m, "The NVIDIA GPU ")) {
		/* 12.1: the first of three lines of an old fall-off message */
		k->pci = find_pci(m);
		if (k->pci.n) {
			k->cont = KM_CONT_FALLOFF_HEAD;
			return false;
		}
	}
	if (slice_starts_with(m, "(PCI ID:") && has(m, "installed in this system")) {
		k->cont = KM_CONT_FALLOFF_MID;
		return false;
	}
	if (has(m, "fallen off the bus")) {
		/* "GPU 0000:01:00.0: GPU has fallen off the bus.", the older
		 * "GPU at 0000:02:00.0 has fallen off the bus." (no Xid), and the
		 * last line of 12.1's three */
		k->pci = find_pci(m);
		set(k, EV_FALLEN_OFF, KC_HW, KS_FATAL, KF_DOWN);
		return true;
	}
	if (has(m, "RmInitAdapter failed")) {
		k->pci = find_pci(m);
		set(k, EV_RMINIT_FAILED, KC_DRIVER, KS_FATAL, KF_DOWN);
		return true;
	}
	if (slice_starts_with(m, "A GPU crash dump has been created")) {
		set(k, EV_NVRM_OTHER, KC_DRIVER, KS_ERROR, 0);
		return true;
	}
	if (slice_starts_with(m, "nvidia-bug-report.sh as root") ||
	    slice_starts_with(m, "the NVIDIA kernel module is unloaded")) {
		k->cont = KM_CONT_CRASHDUMP;
		return false;
	}
	if (slice_starts_with(m, "Rate limiting "))
		return false;	/* 12.2: a notice about later prints, not an error */
	if (has(m, "GSP") && has_error_word(m)) {
		k->text = gpu_word(m);
		k->pci = find_pci(m);
		set(k, EV_GSP_TIMEOUT, KC_DRIVER, KS_ERROR, 0);
		return true;
	}
	if ((has(m, "NVLink") || has(m, "nvlink") || has(m, "Nvlink")) && has_error_word(m)) {
		k->pci = find_pci(m);
		set(k, EV_NVLINK_ERROR, KC_LINK, KS_ERROR, 0);
		return true;
	}
	if (has(m, "uvm encountered global fatal error")) {
		set(k, EV_NVRM_OTHER, KC_DRIVER, KS_FATAL, 0);
		return true;
	}
	if (has(m, "API mismatch") || has_error_word(m)) {
		k->pci = find_pci(m);
		set(k, EV_NVRM_OTHER, KC_DRIVER, KS_WARNING, 0);
		return true;
	}
	return false;
}

/*
 * PCIe AER naming an NVIDIA device.  The kernel prefixes a device's lines
 * with its driver and address: "nvidia 0000:01:00.0: AER: ..." or
 * "nvidia 0000:01:00.0: PCIe Bus Error: severity=..."; the detail line
 * names the vendor ("device [10de:2330] error status/mask=...").  Only
 * those two marks count as NVIDIA: a root port's lines ("pcieport
 * 0000:00:01.0: ...") name the bridge, not the GPU, and stay unclassified
 * (section 12.10) unless they carry the 10de vendor id.
 */
static bool classify_aer(struct slice msg, struct kmsg *k)
{
	bool nv_dev = slice_starts_with(msg, "nvidia ");

	if (!has(msg, "AER") && !has(msg, "PCIe Bus Error") && !has(msg, "error status/mask"))
		return false;
	if (!nv_dev && !has(msg, "[10de:"))
		return false;
	if (nv_dev)
		k->pci = find_pci(msg);	/* a port's line names the port: no GPU */
	set(k, EV_PCIE_AER, KC_LINK, KS_ERROR, 0);
	if (has(msg, "Corrected") && !has(msg, "Uncorrected"))
		k->severity = KS_WARNING;
	else if (has(msg, "(Fatal)"))
		k->severity = KS_FATAL;
	return true;
}

/* ---- system events (section 3.8) ---------------------------------------- */

static bool classify_logind(struct slice m, struct kmsg *k)
{
	if (slice_starts_with(m, "Lid closed")) {
		set(k, EV_LID, KC_SYSTEM, KS_INFO, 0);
		k->code = 0;
	} else if (slice_starts_with(m, "Lid opened")) {
		set(k, EV_LID, KC_SYSTEM, KS_INFO, 0);
		k->code = 1;
	} else if (slice_starts_with(m, "Power key pressed")) {
		set(k, EV_POWER_KEY, KC_SYSTEM, KS_INFO, 0);
		k->text = slice_trim(after(m, m.p + strlen("Power key pressed")));
		if (k->text.n && k->text.p[k->text.n - 1] == '.')
			k->text.n--;
	} else if (slice_starts_with(m, "Suspend key pressed")) {
		set(k, EV_POWER_KEY, KC_SYSTEM, KS_INFO, 0);
		k->ctext = "suspend key";
	} else if (slice_starts_with(m, "The system will suspend now") ||
		   slice_starts_with(m, "The system will hibernate now")) {
		set(k, EV_SUSPEND, KC_SYSTEM, KS_INFO, 0);
	} else if (slice_starts_with(m, "The system will power off now") ||
		   slice_starts_with(m, "System is powering down") ||
		   slice_starts_with(m, "The system will reboot now") ||
		   slice_starts_with(m, "System is rebooting")) {
		set(k, EV_POWER_OFF, KC_SYSTEM, KS_INFO, 0);
	} else {
		return false;
	}
	return true;
}

/* acpid / acpi_listen: "ac_adapter ACPI0003:00 00000080 00000001" (the last
 * field is the state), "button/lid LID close", possibly wrapped in
 * "received input layer event \"...\"". */
static bool classify_acpi(struct slice m, struct kmsg *k)
{
	const char *p;

	if ((p = find(m, "ac_adapter "))) {
		struct slice r = after(m, p);
		const char *e = r.p + r.n, *q = e;
		while (q > r.p && (q[-1] == '"' || q[-1] == ' '))
			q--;
		const char *d = q;
		while (d > r.p && is_hex(d[-1]))
			d--;
		if (q - d != 8 || d == r.p || d[-1] != ' ')
			return false;
		bool on = d[7] != '0' || memcmp(d, "00000000", 8);
		set(k, on ? EV_AC_ON : EV_AC_OFF, KC_SYSTEM, KS_INFO, 0);
		return true;
	}
	if ((p = find(m, "button/lid"))) {
		struct slice r = after(m, p);
		set(k, EV_LID, KC_SYSTEM, KS_INFO, 0);
		if (has(r, "close"))
			k->code = 0;
		else if (has(r, "open"))
			k->code = 1;
		else
			return (k->ev = -1), false;
		return true;
	}
	return false;
}

/* The kernel's suspend and AC lines (raw dmesg carries no tag). */
static bool classify_kernel_pm(struct slice m, struct kmsg *k)
{
	if (slice_starts_with(m, "PM: suspend entry") || slice_starts_with(m, "PM: hibernation entry")) {
		set(k, EV_SUSPEND, KC_SYSTEM, KS_INFO, 0);
		k->text = slice_trim(after(m, m.p + 17));
		return true;
	}
	if (slice_starts_with(m, "PM: suspend exit") || slice_starts_with(m, "PM: hibernation exit")) {
		set(k, EV_RESUME, KC_SYSTEM, KS_INFO, 0);
		return true;
	}
	if (slice_starts_with(m, "ACPI: AC: AC Adapter") || slice_starts_with(m, "ACPI: AC Adapter")) {
		/* logged at probe time only: the state at boot, not a switch */
		if (has(m, "(on-line)"))
			set(k, EV_AC_ON, KC_SYSTEM, KS_INFO, 0);
		else if (has(m, "(off-line)"))
			set(k, EV_AC_OFF, KC_SYSTEM, KS_INFO, 0);
		else
			return false;
		k->ctext = "state at probe";
		return true;
	}
	return false;
}

/* The id after "key=" (up to a blank or quote), or the last path element. */
static struct slice field_value(struct slice m, const char *key)
{
	const char *p = find(m, key), *e = m.p + m.n, *q;

	if (!p)
		return (struct slice){ NULL, 0 };
	p += strlen(key);
	if (p < e && *p == '"')
		p++;
	for (q = p; q < e && *q != ' ' && *q != '"'; q++)
		;
	for (const char *s = q; s > p; s--)
		if (s[-1] == '/')
			return (struct slice){ s, (size_t)(q - s) };
	return (struct slice){ p, (size_t)(q - p) };
}

/*
 * Container lifecycle from the runtimes' own journal lines (logfmt):
 *   containerd: msg="starting signal loop" namespace=moby path=/run/containerd/.../<id>   start
 *   containerd: msg="shim disconnected" id=<id>                                          stop
 *   dockerd:    msg="ignoring event" container=<id> ... topic=/tasks/delete              stop
 */
static bool classify_container(struct slice m, struct kmsg *k)
{
	if (has(m, "msg=\"starting signal loop\"")) {
		set(k, EV_CONTAINER_START, KC_SYSTEM, KS_INFO, 0);
		k->text = field_value(m, "path=");
		return true;
	}
	if (has(m, "msg=\"shim disconnected\"")) {
		set(k, EV_CONTAINER_STOP, KC_SYSTEM, KS_INFO, 0);
		k->text = field_value(m, " id=");
		return true;
	}
	if (has(m, "msg=\"ignoring event\"") && has(m, "topic=/tasks/delete")) {
		set(k, EV_CONTAINER_STOP, KC_SYSTEM, KS_INFO, 0);
		k->text = field_value(m, "container=");
		return true;
	}
	return false;
}

/*
 * The words kmsg_maybe() looks for anywhere in a message, found in one pass
 * instead of one memmem() each (eight of them were half of the time of a
 * kernel log): each word has a byte pair at offset at, chosen to be rare in
 * log text; a line is read once, two table lookups a byte, and only where
 * both bytes of some word's pair meet is that word compared.  The first and
 * the second bytes of the pairs are all different, so each table entry names
 * one word.  The result is exactly "one of the words occurs" (a unit test
 * compares it with memmem()).
 */
/* Each word once: its bit, the word, the offset of its pair, and the pair's
 * two bytes (word[at], word[at + 1]); the tables below are made from it. */
#define MAYBE_WORDS(X, y) \
	X(y, 0, "NVRM: ", 1, 'V', 'R') \
	X(y, 1, "[10de:", 2, '0', 'd') \
	X(y, 2, "ac_adapter", 1, 'c', '_') \
	X(y, 3, "button/lid", 5, 'n', '/') \
	X(y, 4, "The system will", 0, 'T', 'h') \
	X(y, 5, "System is ", 0, 'S', 'y') \
	X(y, 6, "key pressed", 0, 'k', 'e') \
	X(y, 7, "msg=\"", 2, 'g', '=')
static const struct maybe_word {
	const char *w;
	unsigned char len, at;
} maybe_words_tab[] = {
#define WORD(y, k, w, at, a, b) { w, sizeof(w) - 1, at },
	MAYBE_WORDS(WORD, 0)
#undef WORD
};
static const uint8_t maybe_first[256] = {
#define FIRST(y, k, w, at, a, b) [a] = 1 << k,
	MAYBE_WORDS(FIRST, 0)
#undef FIRST
};
static const uint8_t maybe_second[256] = {
#define SECOND(y, k, w, at, a, b) [b] = 1 << k,
	MAYBE_WORDS(SECOND, 0)
#undef SECOND
};

/* Does the pair at msg[i], msg[i + 1] start the word it names? */
static bool maybe_at(const char *msg, size_t n, size_t i)
{
	const unsigned char *p = (const unsigned char *)msg;
	unsigned m = maybe_first[p[i]] & maybe_second[p[i + 1]];
	const struct maybe_word *w;

	if (!m)
		return false;
	w = &maybe_words_tab[__builtin_ctz(m)];
	return i >= w->at && i - w->at + w->len <= n && !memcmp(msg + i - w->at, w->w, w->len);
}

/* Does a word start at some candidate j + bit of m?  Out of line: the block
 * loops keep their vector constants in registers across no call. */
static __attribute__((noinline)) bool maybe_any(const char *msg, size_t n, size_t j, uint32_t m)
{
	for (; m; m &= m - 1)
		if (maybe_at(msg, n, j + (size_t)__builtin_ctz(m)))
			return true;
	return false;
}

#ifdef __SSE2__
/* each word's pair bytes, sixteen times over: the compares' second operands */
#define REP16(c) { c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c }
#define VF(y, k, w, at, a, b) REP16(a),
#define VS(y, k, w, at, a, b) REP16(b),
static const uint8_t maybe_vf[8][16] __attribute__((aligned(16))) = { MAYBE_WORDS(VF, 0) };
static const uint8_t maybe_vs[8][16] __attribute__((aligned(16))) = { MAYBE_WORDS(VS, 0) };
#undef VF
#undef VS
#undef REP16

/* Bit j set: the pair at msg[at + j] is some word's pair (the tables' test). */
static unsigned maybe_block(const char *msg)
{
	__m128i a = _mm_loadu_si128((const __m128i *)(const void *)msg);
	__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(msg + 1));
	__m128i hit;

	/* written out: -O2 keeps a loop of eight, and its control was a third
	 * of the block's cost */
#define PAIR(k) _mm_and_si128(_mm_cmpeq_epi8(a, _mm_load_si128((const __m128i *)(const void *)maybe_vf[k])), \
			      _mm_cmpeq_epi8(b, _mm_load_si128((const __m128i *)(const void *)maybe_vs[k])))
	hit = _mm_or_si128(_mm_or_si128(_mm_or_si128(PAIR(0), PAIR(1)), _mm_or_si128(PAIR(2), PAIR(3))),
			   _mm_or_si128(_mm_or_si128(PAIR(4), PAIR(5)), _mm_or_si128(PAIR(6), PAIR(7))));
#undef PAIR
	return (unsigned)_mm_movemask_epi8(hit);
}
#endif

#ifdef MAYBE_AVX2
/*
 * Thirty-two positions at a time where the CPU has AVX2, by nibbles: the
 * words whose first (second) byte has a byte's low nibble, and those whose
 * first (second) byte has its high nibble, are two 16-entry tables each; a
 * byte's words are the two entries' common bits, exactly maybe_first[] and
 * maybe_second[] (a word has one bit, so its byte has both nibbles).  Bit j
 * of the block is set where maybe_first[msg[j]] & maybe_second[msg[j + 1]]
 * is not 0, the tables' test.  The same tables in both 128-bit lanes:
 * vpshufb looks up within a lane.
 */
#define NIB_LO(y, k, w, at, a, b) | ((((unsigned)(a) & 15) == (y)) ? 1 << (k) : 0)
#define NIB_HI(y, k, w, at, a, b) | ((((unsigned)(a) >> 4) == (y)) ? 1 << (k) : 0)
#define NIB_LO2(y, k, w, at, a, b) | ((((unsigned)(b) & 15) == (y)) ? 1 << (k) : 0)
#define NIB_HI2(y, k, w, at, a, b) | ((((unsigned)(b) >> 4) == (y)) ? 1 << (k) : 0)
#define NIB16(X) \
	(0 MAYBE_WORDS(X, 0)), (0 MAYBE_WORDS(X, 1)), (0 MAYBE_WORDS(X, 2)), (0 MAYBE_WORDS(X, 3)), \
	(0 MAYBE_WORDS(X, 4)), (0 MAYBE_WORDS(X, 5)), (0 MAYBE_WORDS(X, 6)), (0 MAYBE_WORDS(X, 7)), \
	(0 MAYBE_WORDS(X, 8)), (0 MAYBE_WORDS(X, 9)), (0 MAYBE_WORDS(X, 10)), (0 MAYBE_WORDS(X, 11)), \
	(0 MAYBE_WORDS(X, 12)), (0 MAYBE_WORDS(X, 13)), (0 MAYBE_WORDS(X, 14)), (0 MAYBE_WORDS(X, 15))
static const uint8_t maybe_nib[4][32] __attribute__((aligned(32))) = {
	{ NIB16(NIB_LO), NIB16(NIB_LO) },
	{ NIB16(NIB_HI), NIB16(NIB_HI) },
	{ NIB16(NIB_LO2), NIB16(NIB_LO2) },
	{ NIB16(NIB_HI2), NIB16(NIB_HI2) },
};
#undef NIB16
#undef NIB_LO
#undef NIB_HI
#undef NIB_LO2
#undef NIB_HI2

#define NIB_TAB(k) _mm256_load_si256((const __m256i *)(const void *)maybe_nib[k])
/* The words whose pair byte (tables lo, hi) is each byte of x.  The low
 * nibble is not masked: vpshufb reads an index's low four bits and gives 0
 * for one with its top bit set, a byte of 0x80 or more, and such a byte is
 * no word's (they are ASCII, checked below), as the high table says too. */
#define ASCII_PAIR(y, k, w, at, a, b) &&(a) < 0x80 && (b) < 0x80
_Static_assert(1 MAYBE_WORDS(ASCII_PAIR, 0), "kmsg_maybe's pair bytes are ASCII");
#undef ASCII_PAIR
#define NIB_WORDS(x, lo, hi) \
	_mm256_and_si256(_mm256_shuffle_epi8(lo, x), \
			 _mm256_shuffle_epi8(hi, _mm256_and_si256(_mm256_srli_epi16(x, 4), low4)))

/* positions 0 .. n - 2 for n >= 33: blocks of 32, the last one overlapping
 * the one before it with the positions already read masked off */
__attribute__((target("avx2"))) static bool maybe_words_avx2(const char *msg, size_t n)
{
	const __m256i lo1 = NIB_TAB(0), hi1 = NIB_TAB(1), lo2 = NIB_TAB(2), hi2 = NIB_TAB(3);
	const __m256i low4 = _mm256_set1_epi8(0x0F), zero = _mm256_setzero_si256();
	size_t i = 0, j;

	for (;; i += 32) {
		uint32_t m;
		j = i + 33 <= n ? i : n - 33;	/* the last block: positions j .. n - 2 */
		{
			__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(msg + j));
			__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(msg + j + 1));
			__m256i w = _mm256_and_si256(NIB_WORDS(a, lo1, hi1), NIB_WORDS(b, lo2, hi2));
			m = ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(w, zero));
		}
		if (j < i)
			m &= 0xFFFFFFFFu << (i - j);
		if (m && maybe_any(msg, n, j, m))
			return true;
		if (j + 33 >= n)
			return false;
	}
}
#undef NIB_WORDS
#undef NIB_TAB
#endif

#ifdef __SSE2__
static bool maybe_words_sse2(const char *msg, size_t n)
{
	size_t i = 0;

	/*
	 * Sixteen positions at a time (SSE2 is part of x86-64), the last block
	 * overlapping the one before it with the positions already read masked
	 * off: the candidates, and so the answer, are the scalar loop's.
	 */
	for (; i + 17 <= n; i += 16)
		for (unsigned m = maybe_block(msg + i); m; m &= m - 1)
			if (maybe_at(msg, n, i + (size_t)__builtin_ctz(m)))
				return true;
	if (i + 1 < n) {
		size_t j = n - 17;	/* positions j .. n - 2; those below i are done */
		for (unsigned m = maybe_block(msg + j) & (0xFFFFu << (i - j)); m; m &= m - 1)
			if (maybe_at(msg, n, j + (size_t)__builtin_ctz(m)))
				return true;
	}
	return false;
}
#endif

static bool maybe_words_scalar(const char *msg, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++)
		if (maybe_at(msg, n, i))
			return true;
	return false;
}

int kmsg_maybe_words_with(const char *msg, size_t n, enum kmsg_simd simd)
{
	switch (simd) {
	case KMSG_SIMD_NONE:
		return maybe_words_scalar(msg, n);
	case KMSG_SIMD_SSE2:
#ifdef __SSE2__
		return n >= 17 ? maybe_words_sse2(msg, n) : maybe_words_scalar(msg, n);
#else
		return -1;
#endif
	case KMSG_SIMD_AVX2:
#ifdef MAYBE_AVX2
		if (!__builtin_cpu_supports("avx2"))
			return -1;
		return n >= 33 ? maybe_words_avx2(msg, n) : -1;
#else
		return -1;
#endif
	}
	return -1;
}

static bool maybe_words(const char *msg, size_t n)
{
#ifdef MAYBE_AVX2
	if (n >= 33 && __builtin_cpu_supports("avx2"))
		return maybe_words_avx2(msg, n);
#endif
#ifdef __SSE2__
	if (n >= 17)
		return maybe_words_sse2(msg, n);
#endif
	return maybe_words_scalar(msg, n);
}

/* ---- the entry points ----------------------------------------------------- */

bool kmsg_maybe(const char *msg, size_t n)
{
	/* kernel subsystems put their name first: a switch on the first byte
	 * settles almost every noise line without reading it */
	if (n < 3)
		return false;
	switch (msg[0]) {
	case 'N':
		return n >= 4 && !memcmp(msg, "NVRM", 4);
	case 'n':
		return n >= 6 && !memcmp(msg, "nvidia", 6);
	case 'P':
		return (n >= 4 && !memcmp(msg, "PM: ", 4)) || (n >= 5 && !memcmp(msg, "Power", 5));
	case 'A':
		return n >= 8 && !memcmp(msg, "ACPI: AC", 8);
	case 'L':
		return n >= 4 && !memcmp(msg, "Lid ", 4);
	default:
		break;
	}
	/* the rest: a vendor id, an NVRM line after another prefix, the user-space words */
	return maybe_words(msg, n);
}

bool kmsg_classify(struct slice msg, struct slice tag, struct kmsg *k)
{
	const char *x;

	memset(k, 0, sizeof(*k));
	k->ev = -1;
	k->code = -1;
	k->pid = -1;
	msg = slice_trim(msg);
	if ((x = find(msg, "NVRM: ")) && (x == msg.p || x[-1] == ' ' || x[-1] == ']')) {
		struct slice m = after(msg, x + 6);
		while (m.n && *m.p == ' ')
			m.p++, m.n--;
		if (classify_nvrm(m, k))
			return true;
		return false;
	}
	if (slice_starts_with(msg, "nvidia-modeset: ERROR")) {
		k->text = gpu_word(msg);
		set(k, EV_MODESET_ERROR, KC_DRIVER, KS_ERROR, 0);
		return true;
	}
	if (classify_aer(msg, k))
		return true;
	if (slice_starts_with(msg, "PM: ") || slice_starts_with(msg, "ACPI: "))
		return classify_kernel_pm(msg, k);
	if (slice_eq(tag, "systemd-logind") || tag.n == 0)
		if (classify_logind(msg, k))
			return true;
	if (classify_acpi(msg, k))
		return true;
	if (slice_eq(tag, "containerd") || slice_eq(tag, "dockerd") || tag.n == 0 ||
	    slice_eq(tag, "docker"))
		if (classify_container(msg, k))
			return true;
	memset(k, 0, sizeof(*k));
	k->ev = -1;
	k->code = -1;
	k->pid = -1;
	return false;
}

/* Length of the valid UTF-8 sequence at p, 0 if invalid. */
static size_t utf8_len(const unsigned char *p, const unsigned char *e)
{
	size_t n;
	unsigned c = p[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if ((size_t)(e - p) < n)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f) || (c == 0xf0 && p[1] < 0x90) ||
	    (c == 0xf4 && p[1] > 0x8f))
		return 0;	/* overlong, surrogate, beyond U+10FFFF */
	return n;
}

/*
 * A copy of s for the record: kernel text may hold any bytes, and what
 * travels on must be text (JSON): invalid UTF-8 and control bytes become
 * U+FFFD.  Only events pass here, so the copy costs nothing that matters.
 */
static uint32_t text_str(struct parse_ctx *ctx, struct slice s)
{
	const unsigned char *p = (const unsigned char *)s.p, *e = p + (s.n > 4096 ? 4096 : s.n);
	char buf[4096 * 3 + 1];
	size_t o = 0;
	bool clean = true;

	for (const unsigned char *q = p; q < e; q++)
		if (*q >= 0x80 || *q < 0x20 || *q == 0x7f) {
			clean = false;
			break;
		}
	if (clean)
		return ctx_str(ctx, s);
	while (p < e) {
		size_t n = utf8_len(p, e);
		if (n && !(n == 1 && (*p < 0x20 || *p == 0x7f))) {
			memcpy(buf + o, p, n);
			o += n;
			p += n;
		} else {
			memcpy(buf + o, "\xEF\xBF\xBD", 3);
			o += 3;
			p++;
		}
	}
	return ctx_str(ctx, (struct slice){ buf, o });
}

static struct rec *emit(struct parse_ctx *ctx, const struct kmsg *k, struct slice msg,
			int64_t t_ns, enum time_kind tk, uint32_t boot, uint32_t col,
			const char *pci_override)
{
	struct rec *r = ctx_rec(ctx, REC_EVENT);

	if (!r)
		return NULL;
	r->ev = (uint8_t)k->ev;
	r->t_ns = t_ns;
	r->time_kind = (uint8_t)tk;
	r->col = col;
	r->pid = k->pid;
	r->name = text_str(ctx, slice_trim(msg));
	r->kev.code = k->code;
	r->kev.boot = boot;
	r->kev.klass = k->klass;
	r->kev.severity = k->severity;
	r->kev.flags = k->flags;
	if (pci_override) {
		r->kev.pci = ctx_str(ctx, (struct slice){ pci_override, strlen(pci_override) });
	} else if (k->pci.n) {
		char norm[16];
		/* a redacted or odd address ("PCI:...") names no GPU: keep the event only */
		if (pci_norm(k->pci, norm))
			r->kev.pci = ctx_str(ctx, (struct slice){ norm, strlen(norm) });
	}
	if (k->proc.n)
		r->kev.proc = text_str(ctx, k->proc);
	if (k->ctext)
		r->kev.text = ctx_str(ctx, (struct slice){ k->ctext, strlen(k->ctext) });
	else if (k->text.n)
		r->kev.text = text_str(ctx, slice_trim(k->text));
	if (k->uuid.n)
		r->uuid = ctx_str(ctx, k->uuid);
	return r;
}

struct rec *kmsg_emit(struct parse_ctx *ctx, struct slice msg, struct slice tag, int64_t t_ns,
		      enum time_kind tk, uint32_t boot, uint32_t col)
{
	struct kmsg k;

	if (!kmsg_classify(msg, tag, &k))
		return NULL;
	return emit(ctx, &k, msg, t_ns, tk, boot, col, NULL);
}

static struct rec *fold_into(struct parse_ctx *ctx, struct kmsg_fold *f)
{
	struct rec *r;

	if (!f->rec || f->rec > ctx->out->nr)
		return NULL;
	r = &ctx->out->recs[f->rec - 1];
	if (r->kind != REC_EVENT)
		return NULL;
	r->kev.count++;
	r->kev.flags |= KF_BURST;
	return r;
}

struct rec *kmsg_emit_fold(struct parse_ctx *ctx, struct kmsg_fold *f, struct slice msg,
			   struct slice tag, int64_t t_ns, enum time_kind tk, uint32_t boot,
			   uint32_t col)
{
	struct kmsg k;
	struct rec *r;
	uint8_t pending = f->pending;
	char pci[16];

	f->pending = KM_CONT_NONE;
	if (ctx->replay)
		return NULL;
	if (!kmsg_classify(msg, tag, &k)) {
		if (k.cont == KM_CONT_CRASHDUMP && f->ev == EV_NVRM_OTHER && f->code == -2) {
			f->pending = pending;
			return fold_into(ctx, f);
		}
		if (k.cont == KM_CONT_FALLOFF_HEAD && pci_norm(k.pci, pci)) {
			memcpy(f->pending_pci, pci, sizeof(pci));
			f->pending = KM_CONT_FALLOFF_HEAD;
		} else if (k.cont == KM_CONT_FALLOFF_MID && pending == KM_CONT_FALLOFF_HEAD) {
			f->pending = KM_CONT_FALLOFF_HEAD;
		}
		return NULL;
	}
	if (k.ev == EV_XID && f->rec && f->ev == EV_XID && f->code == k.code &&
	    f->time_kind == (uint8_t)tk && f->boot == boot && t_ns >= f->t_ns &&
	    t_ns - f->t_ns <= KMSG_BURST_NS) {
		char norm[16];
		bool same = k.pci.n ? pci_norm(k.pci, norm) && f->pci != STR_NONE &&
					      !strcmp(batch_str(ctx->out, f->pci), norm)
				    : f->pci == STR_NONE;
		if (same && (r = fold_into(ctx, f))) {
			f->t_ns = t_ns;
			return r;
		}
	}
	r = emit(ctx, &k, msg, t_ns, tk, boot, col,
		 k.ev == EV_FALLEN_OFF && !k.pci.n && pending == KM_CONT_FALLOFF_HEAD ? f->pending_pci
										     : NULL);
	if (!r)
		return NULL;
	f->rec = ctx->out->nr;
	f->ev = k.ev;
	/* a crash dump notice takes its next lines; -2 marks it */
	f->code = k.ev == EV_NVRM_OTHER && has(msg, "A GPU crash dump has been created") ? -2 : k.code;
	f->pci = r->kev.pci;
	f->t_ns = t_ns;
	f->time_kind = (uint8_t)tk;
	f->boot = boot;
	return r;
}
