/* SPDX-License-Identifier: MIT */
/*
 * Files that are no format gputally reads, named for what they are
 * (issue 36, docs/formats/not-telemetry.md): a bundle copied off a GPU
 * machine holds `lspci` output, --help texts, `nvidia-smi -L`, the topology
 * matrix, /proc and /sys files beside its logs.  "not a recognised format"
 * tells the user nothing; "looks like lspci output: not telemetry" tells
 * them the file was understood and has nothing to count.
 *
 * Each rule looks at the first lines of the sniffed head only.
 */
#include "formats/identify.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "util/scan.h"

#define LOOK_LINES 40

struct lines {
	struct slice l[LOOK_LINES];
	size_t n;		/* non-blank lines kept */
	bool cut;		/* more lines follow */
};

static void split(const char *head, size_t n, struct lines *ls)
{
	const char *p = head, *end = head + n;

	ls->n = 0;
	ls->cut = false;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		struct slice s = { p, (size_t)(le - p) };
		if (s.n && s.p[s.n - 1] == '\r')
			s.n--;
		if (slice_trim(s).n) {
			if (ls->n == LOOK_LINES) {
				ls->cut = true;
				return;
			}
			ls->l[ls->n++] = s;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
}

static bool has(struct slice s, const char *lit)
{
	return memmem(s.p, s.n, lit, strlen(lit)) != NULL;
}

static bool any_has(const struct lines *ls, const char *lit)
{
	for (size_t i = 0; i < ls->n; i++)
		if (has(ls->l[i], lit))
			return true;
	return false;
}

static bool hexn(const char **p, const char *end, int n)
{
	for (int i = 0; i < n; i++, (*p)++)
		if (*p >= end || !isxdigit((unsigned char)**p))
			return false;
	return true;
}

/* "0000:00:06.0 " or "00:06.0 ": a PCI address then a space; *rest after it. */
static bool pci_addr(struct slice s, const char **rest)
{
	const char *p = s.p, *end = s.p + s.n, *q = p;

	if (hexn(&q, end, 4) && q < end && *q == ':')
		p = q + 1;
	if (!hexn(&p, end, 2) || p >= end || *p++ != ':' || !hexn(&p, end, 2) || p >= end ||
	    *p++ != '.' || !hexn(&p, end, 1) || p >= end || *p != ' ')
		return false;
	*rest = p + 1;
	return true;
}

/* Every line passes test (at least two lines, or one when the file is one line). */
static bool all(const struct lines *ls, bool (*test)(struct slice))
{
	if (!ls->n)
		return false;
	for (size_t i = 0; i < ls->n; i++)
		if (!test(ls->l[i]))
			return false;
	return true;
}

static bool is_lspci(struct slice s)
{
	const char *r;
	/* "00:02.0 VGA compatible controller: Intel ...", indented -v detail lines */
	if (s.p[0] == '\t' || s.p[0] == ' ')
		return true;
	return pci_addr(s, &r) && memchr(r, ':', (size_t)(s.p + s.n - r)) &&
	       !slice_starts_with((struct slice){ r, (size_t)(s.p + s.n - r) }, "vendor=");
}

static bool is_sys_pci(struct slice s)
{
	const char *r;
	return pci_addr(s, &r) && slice_starts_with((struct slice){ r, (size_t)(s.p + s.n - r) },
						    "vendor=");
}

static bool is_smi_l(struct slice s)
{
	/* "GPU 0: NVIDIA H200 (UUID: GPU-...)", and "  MIG 1g.18gb Device 0: (UUID: MIG-...)" */
	return (slice_starts_with(s, "GPU ") || has(s, "MIG ")) && has(s, "(UUID: ");
}

static bool is_module(struct slice s)
{
	/* /proc/modules: "nvidia 14299136 - - Live 0xffffffffc0400000 (O)" */
	return has(s, " Live 0x") || has(s, " Loading 0x") || has(s, " Unloading 0x");
}

static bool is_dev_ls(struct slice s)
{
	/* `ls -l /dev/nvidia*`: device nodes, and the directory listing lines */
	return s.p[0] == 'c' || s.p[0] == 'd' || slice_starts_with(s, "total ") ||
	       (s.p[0] == '/' && s.p[s.n - 1] == ':');
}

static bool is_number(struct slice s)
{
	double d;
	return !slice_to_double(slice_trim(s), &d);
}

static bool is_version(struct slice s)
{
	struct slice t = slice_trim(s);
	size_t dots = 0;
	for (size_t i = 0; i < t.n; i++) {
		if (t.p[i] == '.')
			dots++;
		else if (!isdigit((unsigned char)t.p[i]))
			return false;
	}
	return dots >= 1 && t.n >= 3;
}

static bool is_json_object_line(struct slice s)
{
	struct slice t = slice_trim(s);
	return t.n >= 2 && t.p[0] == '{' && t.p[t.n - 1] == '}';
}

static bool ends_with(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);
	return n >= k && !strcmp(name + n - k, suffix);
}

const char *format_identify(const char *head, size_t n, const char *name)
{
	struct lines ls;
	struct slice first;

	split(head, n, &ls);
	if (!ls.n)
		return NULL;
	first = slice_trim(ls.l[0]);
	if (any_has(&ls, "ROCm System Management Interface"))
		return "looks like rocm-smi output other than its concise table (AMD GPUs): not read; "
		       "rocm-smi with no option, --json or --csv is";
	/* amd-smi static, list, firmware ...: 'GPU: N' and groups, none of metric's */
	if (slice_starts_with(first, "GPU: ") && ls.n > 1 && has(ls.l[1], ":"))
		return "looks like amd-smi output other than metric (static, list, firmware: the GPU's "
		       "identity and limits): not telemetry; amd-smi metric is read";
	if (all(&ls, is_sys_pci))
		return "looks like a PCI device list (vendor=, device=, class= per address, from /sys/bus/pci): "
		       "not telemetry";
	if (ls.l[0].p[0] != ' ' && ls.l[0].p[0] != '\t' && all(&ls, is_lspci))
		return "looks like lspci output: not telemetry";
	if (any_has(&ls, "List of valid properties to query for the switch"))
		return "a --help text (nvidia-smi's list of query fields): not telemetry";
	for (size_t i = 0; i < ls.n && i < 20; i++) {
		struct slice t = slice_trim(ls.l[i]);
		if (slice_starts_with(t, "Usage:") || slice_starts_with(t, "usage:"))
			return "a --help text: not telemetry";
	}
	if (all(&ls, is_smi_l))
		return "looks like nvidia-smi -L output (the GPU list: index, name, UUID): not telemetry";
	if (slice_starts_with(first, "GPU0") && any_has(&ls, "Legend:"))
		return "looks like nvidia-smi topo -m output (the interconnect matrix): not telemetry";
	if (has(ls.l[0], "GPU0") && has(ls.l[0], "CPU Affinity"))
		return "looks like nvidia-smi topo -m output (the interconnect matrix): not telemetry";
	if (slice_starts_with(first, "NVRM version:"))
		return "looks like /proc/driver/nvidia/version (the kernel module's version): not telemetry";
	if (any_has(&ls, "Bus Location:") && any_has(&ls, "GPU UUID:"))
		return "looks like /proc/driver/nvidia/gpus/*/information (one GPU's identity): not telemetry";
	if (all(&ls, is_module))
		return "looks like /proc/modules (the loaded kernel modules): not telemetry";
	if (all(&ls, is_dev_ls) && any_has(&ls, "nvidia"))
		return "looks like ls -l /dev/nvidia* (the device nodes): not telemetry; "
		       "for who holds them, scan /proc/*/fd";
	if (slice_starts_with(first, "Linux ") && (has(first, " SMP") || has(first, "#")))
		return "looks like uname -a or /proc/version (the kernel): not telemetry";
	if (ls.n == 1 && !ls.cut && is_version(ls.l[0]))
		return "a bare version number (as /sys/module/nvidia/version holds): not telemetry";
	if (all(&ls, is_number))
		return "a column of bare numbers with no header and no time: not telemetry gputally can place";
	if (first.n && (first.p[0] == '{' || first.p[0] == '[') &&
	    (first.n == 1 || strchr("{[\"] \t", first.p[1]) || first.p[0] == '{')) {
		if (ls.n >= 2 && all(&ls, is_json_object_line))
			return "JSON lines in no format gputally reads (an application's own log?): not telemetry";
		return "a JSON document in no format gputally reads (not a Kineto trace, a journal or "
		       "nvidia-smi output): not telemetry";
	}
	if (ends_with(name, ".md") || slice_starts_with(first, "# "))
		return "a Markdown document: not telemetry";
	return NULL;
}
