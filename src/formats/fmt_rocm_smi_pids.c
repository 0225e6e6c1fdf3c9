/* SPDX-License-Identifier: MIT */
/*
 * `rocm-smi --showpids` and `rocm-smi --showpidgpus` as printed
 * (docs/formats/rocm-smi-pids.md): the KFD process table and the GPUs of
 * each pid, between rocm-smi's banners.  Each process is a REC_PROC, as
 * nvidia-smi pmon and --query-compute-apps give them, with its VRAM; the
 * table itself is in rocm_kfd.c, which the concise-table reader shares.
 * There is no time: each run is one tick, placed by the file's time or a
 * `watch` header above it.
 */
#include "formats/format.h"

#include <string.h>

#include "formats/rocm_kfd.h"
#include "formats/smi.h"

struct rocm_pids {
	bool has_time;
	int64_t t_ns;
	struct rocm_kfd kfd;
	bool other;		/* in another section of the log (`rocm-smi -a`) */
	bool other_told;	/* its first line was reported */
	char title[48];		/* that section's banner title */
};

/* The title of a "=== Power Consumption ===" banner, or an empty slice. */
static struct slice banner_title(struct slice s)
{
	while (s.n && (s.p[0] == '=' || s.p[0] == ' '))
		s.p++, s.n--;
	while (s.n && (s.p[s.n - 1] == '=' || s.p[s.n - 1] == ' '))
		s.n--;
	return s;
}

static void rp_init(void *state, const struct ingest_opts *o)
{
	struct rocm_pids *t = state;
	(void)o;
	memset(t, 0, sizeof(*t));
	rocm_kfd_reset(&t->kfd);
}

static void rp_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	struct rocm_pids *t = ctx->state;
	struct slice s = slice_trim((struct slice){ line, n });
	int64_t tn;

	if (!s.n)
		return;
	if (!smi_watch_header(s, &tn)) {
		t->has_time = true;
		t->t_ns = tn;
		return;
	}
	if (s.p[0] == '=') {
		struct slice ti = banner_title(s);
		rocm_kfd_banner(ctx, &t->kfd, s);
		t->other = ti.n && !slice_eq(ti, "ROCm System Management Interface") &&
			   !slice_eq(ti, "End of ROCm SMI Log") && !slice_eq(ti, "KFD Processes") &&
			   !slice_eq(ti, "GPUs Indexed by PID");
		t->other_told = false;
		slice_copy(t->title, sizeof(t->title), ti);
		return;
	}
	if (t->other) {
		/* `rocm-smi -a` prints its other sections in the same log: named
		 * once, at their first line, not read */
		if (!t->other_told)
			ctx_bad(ctx, ctx_col(line, s.p),
				"rocm-smi's \"%s\" section is not read by this format (only KFD "
				"Processes and GPUs Indexed by PID)", t->title);
		t->other_told = true;
		return;
	}
	if (rocm_kfd_line(ctx, &t->kfd, line, s, t->has_time ? t->t_ns : 0,
			  t->has_time ? TK_ABS : TK_NONE))
		return;
	if (slice_starts_with(s, "WARNING") || slice_starts_with(s, "ERROR")) {
		ctx_event(ctx, EV_TOOL_ERROR, 0, TK_NONE, -1, "%.*s", fmt_quote_len(s), s.p);
		return;
	}
	ctx_bad(ctx, ctx_col(line, s.p),
		"\"%.*s\" is not a line of rocm-smi's KFD process table or GPUs-by-PID list",
		fmt_quote_len(s), s.p);
}

static int rp_sniff(const char *head, size_t n, const char *name)
{
	(void)name;
	/* the concise table with processes under it is rocm-smi's */
	if (memmem(head, n, "Concise Info", 12))
		return 0;
	if (memmem(head, n, "KFD process information", 23) ||
	    memmem(head, n, "GPUs Indexed by PID", 19) ||
	    (memmem(head, n, "ROCm System Management Interface", 32) &&
	     memmem(head, n, "KFD Processes", 13)))
		return 90;
	return 0;
}

const struct format format_rocm_smi_pids = {
	.id = "rocm-smi-pids",
	.summary = "rocm-smi --showpids (the KFD process table, also 'details') and --showpidgpus "
		   "as printed: the processes on AMD GPUs, with their VRAM",
	.detects = "'KFD process information' or a 'GPUs Indexed by PID' banner (with no "
		   "'Concise Info' table, which is rocm-smi's)",
	.state_size = sizeof(struct rocm_pids),
	.init = rp_init,
	.sniff = rp_sniff,
	.line = rp_line,
	.whole_file = true,
};
