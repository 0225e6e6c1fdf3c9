/* SPDX-License-Identifier: MIT */
/*
 * Who holds the NVIDIA device files (docs/formats/dev-holders.md; the
 * articles' F008): scans of /proc and /dev that name the processes with a
 * /dev/nvidia node open or mapped, with or without a CUDA context, which
 * nvidia-smi's process list does not show.  Shapes read, line by line:
 *
 *   635 python3 12 /dev/nvidia0                         pid command fd device
 *   lrwx------ 1 root root 64 Nov 29 22:47 /proc/635/fd/12 -> /dev/nvidia0
 *                                                        (ls -l of /proc/PID/fd/N)
 *   /proc/635/maps:7f2c...-7f2c... rw-s 00000000 00:05 517 /dev/nvidia-uvm
 *                                                        (grep nvidia on /proc/PID/maps)
 *   /dev/nvidia0:        root        635 F...m python3   (fuser -v on the nodes)
 *   python3 635 root 12u CHR 195,0 0t0 517 /dev/nvidia0  (lsof on the nodes)
 *
 * Each (process, GPU node) pair becomes one process record, once per file:
 * /dev/nvidiaN names GPU N (the device minor, which is the nvidia-smi index
 * on most machines).  nvidiactl, nvidia-uvm and the caps name no GPU: such
 * a line is read (a process that holds only them holds the driver, not a
 * GPU) and makes no record.  A scan has no time of its own: its records are
 * a snapshot at the file's time.
 */
#include "formats/format.h"

#include <stdio.h>
#include <string.h>

#define MAX_TOK 16
#define MAX_SEEN 4096

struct holders {
	char fuser_dev[64];	/* fuser -v: the device of the continuation lines */
	uint32_t nseen;
	struct {
		int64_t pid;
		int32_t gpu;
	} seen[MAX_SEEN];
};

/* "/dev/nvidia3" -> 3; the other NVIDIA nodes -> -1; not a device -> -2 */
static int device_gpu(struct slice d)
{
	int64_t n;

	if (d.n && d.p[d.n - 1] == ':')
		d.n--;
	if (!slice_starts_with(d, "/dev/nvidia"))
		return -2;
	d.p += 11;
	d.n -= 11;
	if (d.n && !slice_to_i64(d, &n) && n >= 0 && n < 65536 && d.p[0] >= '0' && d.p[0] <= '9')
		return (int)n;
	return -1;
}

/* "/proc/635/fd/12" or "/proc/635/maps:..." -> 635 */
static bool proc_pid(struct slice s, int64_t *pid)
{
	const char *p, *end = s.p + s.n, *q;

	if (!slice_starts_with(s, "/proc/"))
		return false;
	p = s.p + 6;
	for (q = p; q < end && *q >= '0' && *q <= '9'; q++)
		;
	if (q == p || q >= end || *q != '/')
		return false;
	return !slice_to_i64((struct slice){ p, (size_t)(q - p) }, pid) && *pid >= 0;
}

static void hold(struct parse_ctx *ctx, struct holders *h, int64_t pid, int gpu, struct slice cmd)
{
	struct rec *r;

	if (gpu < 0)
		return;	/* the driver's nodes, no GPU */
	for (uint32_t i = 0; i < h->nseen; i++)
		if (h->seen[i].pid == pid && h->seen[i].gpu == gpu)
			return;
	if (h->nseen < MAX_SEEN) {
		h->seen[h->nseen].pid = pid;
		h->seen[h->nseen].gpu = gpu;
		h->nseen++;
	}
	if (!(r = ctx_rec(ctx, REC_PROC)))
		return;
	r->time_kind = TK_FILE;
	r->gpu_index = gpu;
	r->uuid = STR_NONE;
	r->pid = pid;
	r->name = cmd.n ? ctx_str(ctx, cmd) : STR_NONE;
}

static void h_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	struct holders *h = ctx->state;
	struct slice s = slice_trim((struct slice){ line, n }), tok[MAX_TOK];
	size_t nt;
	int64_t pid;
	int gpu;

	if (!s.n)
		return;
	nt = scan_tokens(s, tok, MAX_TOK);
	/* headers: fuser's "USER PID ACCESS COMMAND", lsof's "COMMAND PID USER FD ..." */
	if ((nt >= 4 && slice_eq(tok[0], "USER") && slice_eq(tok[1], "PID")) ||
	    (nt >= 4 && slice_eq(tok[0], "COMMAND") && slice_eq(tok[1], "PID")))
		return;
	/* grep nvidia /proc/[0-9]*\/maps */
	if (proc_pid(tok[0], &pid) && memmem(tok[0].p, tok[0].n, "/maps:", 6)) {
		gpu = device_gpu(tok[nt - 1]);
		if (gpu < -1) {
			ctx_bad(ctx, ctx_col(line, tok[nt - 1].p), "a maps line that names no "
				"/dev/nvidia* file: \"%.*s\"", fmt_quote_len(tok[nt - 1]), tok[nt - 1].p);
			return;
		}
		hold(ctx, h, pid, gpu, (struct slice){ NULL, 0 });
		return;
	}
	/* ls -l: "... /proc/635/fd/12 -> /dev/nvidia0" */
	if (nt >= 3 && slice_eq(tok[nt - 2], "->")) {
		gpu = device_gpu(tok[nt - 1]);
		if (gpu < -1) {
			ctx_bad(ctx, ctx_col(line, tok[nt - 1].p), "a link to \"%.*s\", not to a "
				"/dev/nvidia* file", fmt_quote_len(tok[nt - 1]), tok[nt - 1].p);
			return;
		}
		if (!proc_pid(tok[nt - 3], &pid)) {
			ctx_bad(ctx, ctx_col(line, tok[nt - 3].p), "no process on the line (\"ls -l "
				"/proc/*/fd | grep nvidia\" drops the /proc/PID/fd: headers; list "
				"/proc/*/fd/* instead)");
			return;
		}
		hold(ctx, h, pid, gpu, (struct slice){ NULL, 0 });
		return;
	}
	/* fuser -v: "/dev/nvidia0:  root  635 F...m python3", then lines
	 * without the device for the same device's other holders */
	if (tok[0].n && tok[0].p[tok[0].n - 1] == ':' && device_gpu(tok[0]) >= -1) {
		slice_copy(h->fuser_dev, sizeof(h->fuser_dev), tok[0]);
		if (nt == 1)
			return;	/* no holder */
		memmove(tok, tok + 1, (nt - 1) * sizeof(tok[0]));
		nt--;
		if (nt >= 3 && slice_eq(tok[1], "kernel"))
			return;	/* "root kernel mount /dev/...": the kernel, not a process */
		if (nt < 4 || slice_to_i64(tok[1], &pid) || pid < 0) {
			ctx_bad(ctx, ctx_col(line, tok[0].p), "not a fuser -v holder (USER PID "
				"ACCESS COMMAND): \"%.*s\"", fmt_quote_len(tok[0]), tok[0].p);
			return;
		}
		hold(ctx, h, pid, device_gpu((struct slice){ h->fuser_dev, strlen(h->fuser_dev) }),
		     tok[3]);
		return;
	}
	if (h->fuser_dev[0] && nt == 4 && !slice_to_i64(tok[1], &pid) && pid >= 0) {
		hold(ctx, h, pid, device_gpu((struct slice){ h->fuser_dev, strlen(h->fuser_dev) }),
		     tok[3]);
		return;
	}
	/* lsof: COMMAND PID USER FD TYPE DEVICE SIZE/OFF NODE NAME */
	if (nt >= 9 && !slice_to_i64(tok[1], &pid) && pid >= 0 && device_gpu(tok[nt - 1]) >= -1 &&
	    (slice_eq(tok[4], "CHR") || slice_eq(tok[4], "REG"))) {
		hold(ctx, h, pid, device_gpu(tok[nt - 1]), tok[0]);
		return;
	}
	/* pid command fd device */
	if (nt == 4 && !slice_to_i64(tok[0], &pid) && pid >= 0 && device_gpu(tok[3]) >= -1) {
		hold(ctx, h, pid, device_gpu(tok[3]), tok[1]);
		return;
	}
	ctx_bad(ctx, ctx_col(line, s.p), "\"%.*s\" names no process holding a /dev/nvidia* file",
		fmt_quote_len(s), s.p);
}

/* fuser -v's row under a device: "root  635 F...m python3" */
static bool fuser_row(struct slice s)
{
	struct slice tok[MAX_TOK];
	int64_t pid;

	if (scan_tokens(slice_trim(s), tok, MAX_TOK) != 4 || slice_to_i64(tok[1], &pid) || tok[2].n != 5)
		return false;
	for (size_t i = 0; i < 5; i++)
		if (!strchr("Frcem.", tok[2].p[i]))
			return false;
	return true;
}

/* How many of the first lines are one of the shapes. */
static int h_sniff(const char *head, size_t n, const char *name)
{
	const char *p = head, *end = head + n;
	int lines = 0, hits = 0;

	(void)name;
	while (p < end && lines < 20) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct slice s = { p, (size_t)((nl ? nl : end) - p) };
		if (slice_trim(s).n) {
			lines++;
			if (memmem(s.p, s.n, "/dev/nvidia", 11) &&
			    (memmem(s.p, s.n, "/proc/", 6) || memmem(s.p, s.n, " CHR ", 5) ||
			     (s.p[0] >= '0' && s.p[0] <= '9') ||
			     (slice_starts_with(s, "/dev/nvidia") && memchr(s.p, ':', s.n))))
				hits++;
			else if (slice_starts_with(slice_trim(s), "USER ") &&
				 memmem(s.p, s.n, " ACCESS ", 8))
				hits++;
			else if (memmem(s.p, s.n, " -> /dev/nvidia", 15))
				hits++;
			else if (fuser_row(s))
				hits++;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	if (lines && hits == lines)
		return 80;
	if (lines >= 4 && hits * 4 >= lines * 3)
		return 50;
	return 0;
}

const struct format format_dev_holders = {
	.id = "dev-holders",
	.summary = "who holds /dev/nvidia*: /proc/*/fd listings, grep nvidia /proc/*/maps, "
		   "fuser -v, lsof, 'pid command fd device' scans",
	.detects = "lines that name a /dev/nvidia* file and a process (/proc/PID/, a fuser "
		   "or lsof row, or a leading pid)",
	.state_size = sizeof(struct holders),
	.sniff = h_sniff,
	.line = h_line,
	.whole_file = true,
};
