/* SPDX-License-Identifier: MIT */
/*
 * `nvidia-smi -q` text, whole or with `-d` sections (docs/formats/smi-q.md):
 * `Key : Value` lines indented 4 spaces a level under a
 * `==============NVSMI LOG==============` banner, one `GPU <bus id>` block per
 * GPU.  A file may hold many documents (`nvidia-smi -q -l N`, a cron loop).
 *
 * Read as a stream (its lines split by textlines.c) because a GPU's sample
 * is complete only when its block ends: at the next `GPU` line, the next
 * banner or the end of the file.  The `Timestamp` line gives the document's
 * time (local, C ctime); the GPU's index is its place in the document, as
 * in the XML (`Minor Number` is the /dev node, which can differ).  `N/A`
 * and its kin are unknown, never 0.  Besides the metrics the timeline reads,
 * the reserved memory, the PCIe link (generation and width, current and
 * max), retired pages and remapped rows are kept (metrics.def).
 */
#include "formats/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/smi.h"
#include "util/xalloc.h"

#define MAX_LEVEL 8
#define SEC_LEN 48

/* What a key under a section gives. */
enum qf {
	QF_METRIC,	/* a number into v[arg] */
	QF_POWER,	/* power draw: arg = rank, 0 best */
	QF_LIMIT,	/* power limit: arg = rank, 0 best */
	QF_REASON,	/* Active / Not Active: arg = bit */
	QF_RETIRED,	/* retired page count, added up */
	QF_REMAPPED,	/* remapped row count, added up */
	QF_PENDING,	/* Yes / No: a repair waits for a reset */
};

static const struct qkey {
	const char *sec;	/* the section the key sits under (level 1 or deeper) */
	const char *key;
	uint8_t what;		/* enum qf */
	uint16_t arg;
	const char *unit;	/* what follows the number ("" none) */
} qkeys[] = {
	{ "FB Memory Usage", "Total", QF_METRIC, M_MEM_TOTAL, "MiB" },
	{ "FB Memory Usage", "Reserved", QF_METRIC, M_MEM_RESERVED, "MiB" },
	{ "FB Memory Usage", "Used", QF_METRIC, M_MEM_USED, "MiB" },
	{ "Utilization", "GPU", QF_METRIC, M_UTIL_GPU, "%" },
	{ "Utilization", "Gpu", QF_METRIC, M_UTIL_GPU, "%" },
	{ "Utilization", "Memory", QF_METRIC, M_UTIL_MEM, "%" },
	{ "Temperature", "GPU Current Temp", QF_METRIC, M_TEMP, "C" },
	{ "Temperature", "Memory Current Temp", QF_METRIC, M_MEM_TEMP, "C" },
	{ "Clocks", "SM", QF_METRIC, M_SM_CLOCK, "MHz" },
	{ "Clocks", "Memory", QF_METRIC, M_MEM_CLOCK, "MHz" },
	{ "Max Clocks", "SM", QF_METRIC, M_SM_CLOCK_MAX, "MHz" },
	{ "Power Readings", "Power Draw", QF_POWER, 0, "W" },
	{ "Power Readings", "Average Power Draw", QF_POWER, 1, "W" },
	{ "Power Readings", "Instantaneous Power Draw", QF_POWER, 2, "W" },
	{ "Power Readings", "Enforced Power Limit", QF_LIMIT, 0, "W" },
	{ "Power Readings", "Current Power Limit", QF_LIMIT, 0, "W" },
	{ "Power Readings", "Power Limit", QF_LIMIT, 1, "W" },
	{ "Power Readings", "Requested Power Limit", QF_LIMIT, 1, "W" },
	{ "GPU Power Readings", "Power Draw", QF_POWER, 0, "W" },
	{ "GPU Power Readings", "Average Power Draw", QF_POWER, 1, "W" },
	{ "GPU Power Readings", "Instantaneous Power Draw", QF_POWER, 2, "W" },
	{ "GPU Power Readings", "Enforced Power Limit", QF_LIMIT, 0, "W" },
	{ "GPU Power Readings", "Current Power Limit", QF_LIMIT, 0, "W" },
	{ "GPU Power Readings", "Power Limit", QF_LIMIT, 1, "W" },
	{ "GPU Power Readings", "Requested Power Limit", QF_LIMIT, 1, "W" },
	{ "PCIe Generation", "Current", QF_METRIC, M_PCIE_GEN, "" },
	{ "PCIe Generation", "Max", QF_METRIC, M_PCIE_GEN_MAX, "" },
	{ "Link Width", "Current", QF_METRIC, M_PCIE_WIDTH, "x" },
	{ "Link Width", "Max", QF_METRIC, M_PCIE_WIDTH_MAX, "x" },
	{ "Retired Pages", "Single Bit ECC", QF_RETIRED, 0, "" },
	{ "Retired Pages", "Double Bit ECC", QF_RETIRED, 0, "" },
	{ "Retired Pages", "Pending Page Blacklist", QF_PENDING, 0, "" },
	{ "Retired Pages", "Pending", QF_PENDING, 0, "" },
	{ "Remapped Rows", "Correctable Error", QF_REMAPPED, 0, "" },
	{ "Remapped Rows", "Uncorrectable Error", QF_REMAPPED, 0, "" },
	{ "Remapped Rows", "Pending", QF_PENDING, 0, "" },
	/* formats.md 7.6: the reason bits; HW Thermal and HW Power Brake
	 * Slowdown sit one level deeper, under HW Slowdown */
	{ "Reasons", "Idle", QF_REASON, 0x1, "" },
	{ "Reasons", "Applications Clocks Setting", QF_REASON, 0x2, "" },
	{ "Reasons", "SW Power Cap", QF_REASON, 0x4, "" },
	{ "Reasons", "HW Slowdown", QF_REASON, 0x8, "" },
	{ "Reasons", "Sync Boost", QF_REASON, 0x10, "" },
	{ "Reasons", "SW Thermal Slowdown", QF_REASON, 0x20, "" },
	{ "Reasons", "HW Thermal Slowdown", QF_REASON, 0x40, "" },
	{ "Reasons", "HW Power Brake Slowdown", QF_REASON, 0x80, "" },
	{ "Reasons", "Display Clock Setting", QF_REASON, 0x100, "" },
};

struct qproc {
	int64_t pid;
	uint64_t line;
	double fb;
	bool has_fb;
	char name[200];
};

struct smi_q {
	struct textlines tl;
	bool in_doc;		/* a banner or a Timestamp line was seen */
	bool orphan_said;	/* a line before any document was reported: the
				 * rest of that run is the same cut document */
	bool has_time;
	int64_t t_ns;
	int gpus;		/* GPU blocks so far in the document */
	char sec[MAX_LEVEL][SEC_LEN];	/* the open section at each level */
	/* the open GPU */
	bool gpu_open;
	struct rec g;
	uint64_t g_line;
	char uuid[96], name[96];
	uint8_t power_rank, limit_rank;
	bool reasons_seen;
	double retired, remapped;
	uint8_t retired_n, remapped_n;
	struct qproc *procs;
	size_t nprocs, procs_cap;
	bool in_proc;		/* a Process ID opened the last of procs */
};

static void q_init(void *state, const struct ingest_opts *o)
{
	struct smi_q *q = state;
	(void)o;
	q->power_rank = q->limit_rank = 0xff;
}

static void q_fini(void *state)
{
	struct smi_q *q = state;
	textlines_free(&q->tl);
	free(q->procs);
	q->procs = NULL;
}

static void set_metric(struct smi_q *q, int m, double v)
{
	q->g.v[m] = v;
	q->g.present |= 1u << m;
}

static struct rec *emit(struct parse_ctx *ctx, struct smi_q *q, enum rec_kind kind,
			uint64_t line)
{
	struct rec *r;
	uint64_t keep = ctx->line;

	ctx->line = line;
	r = ctx_rec(ctx, kind);
	ctx->line = keep;
	if (!r)
		return NULL;
	r->t_ns = q->has_time ? q->t_ns : 0;
	r->time_kind = q->has_time ? TK_ABS : TK_FILE;
	return r;
}

/* The open GPU's sample, then its processes. */
static void gpu_close(struct parse_ctx *ctx, struct smi_q *q)
{
	struct rec *r;
	uint32_t uuid = STR_NONE;

	if (!q->gpu_open)
		return;
	q->gpu_open = false;
	if (q->retired_n)
		set_metric(q, M_RETIRED_PAGES, q->retired);
	if (q->remapped_n)
		set_metric(q, M_REMAPPED_ROWS, q->remapped);
	if (q->uuid[0])
		uuid = ctx_str(ctx, (struct slice){ q->uuid, strlen(q->uuid) });
	/* a -d PIDS document names no metric: its processes still count */
	if (q->g.present || q->g.status || !q->nprocs) {
		if ((r = emit(ctx, q, REC_SAMPLE, q->g_line))) {
			uint64_t line = r->line;
			int64_t t = r->t_ns;
			uint8_t tk = r->time_kind;
			*r = q->g;
			r->kind = REC_SAMPLE;
			r->line = line;
			r->t_ns = t;
			r->time_kind = tk;
			r->uuid = uuid;
			r->name = q->name[0] ? ctx_str(ctx, (struct slice){ q->name, strlen(q->name) })
					     : STR_NONE;
		}
	}
	for (size_t i = 0; i < q->nprocs; i++) {
		struct qproc *p = &q->procs[i];
		if (!(r = emit(ctx, q, REC_PROC, p->line)))
			continue;
		r->gpu_index = q->g.gpu_index;
		r->uuid = uuid;
		r->pid = p->pid;
		if (p->has_fb) {
			r->v[2] = p->fb;
			r->present |= PF_FB;
		}
		r->name = p->name[0] ? ctx_str(ctx, (struct slice){ p->name, strlen(p->name) })
				     : STR_NONE;
	}
	q->nprocs = 0;
	q->in_proc = false;
}

static void gpu_open(struct smi_q *q, uint64_t line)
{
	memset(&q->g, 0, sizeof(q->g));
	q->g.gpu_index = q->gpus++;
	q->g.uuid = q->g.name = STR_NONE;
	q->g_line = line;
	q->gpu_open = true;
	q->uuid[0] = q->name[0] = '\0';
	q->power_rank = q->limit_rank = 0xff;
	q->reasons_seen = false;
	q->retired = q->remapped = 0;
	q->retired_n = q->remapped_n = 0;
	q->nprocs = 0;
	q->in_proc = false;
}

/* The key's entry under the nearest section above it (HW Thermal Slowdown
 * sits under the key HW Slowdown, inside Clocks Event Reasons). */
static const struct qkey *key_find(const struct smi_q *q, int level, struct slice key)
{
	const char *sec = NULL;
	bool reasons;
	int at = 0;

	for (int l = level - 1; l >= 1 && !sec; l--)
		if (q->sec[l][0]) {
			sec = q->sec[l];
			at = l;
		}
	if (!sec)
		return NULL;
	/* the GPU's own sections sit right under it; the PCIe link two levels
	 * down, in PCI / GPU Link Info.  A "FB Memory Usage" deeper down
	 * belongs to a MIG device (MIG Devices / MIG Device): not the GPU's */
	if (at != 1 && !(at == 3 && !strcmp(q->sec[1], "PCI") &&
			 (!strcmp(sec, "PCIe Generation") || !strcmp(sec, "Link Width"))))
		return NULL;
	reasons = !strcmp(sec, "Clocks Event Reasons") || !strcmp(sec, "Clocks Throttle Reasons");
	for (size_t i = 0; i < sizeof(qkeys) / sizeof(qkeys[0]); i++)
		if (slice_eq(key, qkeys[i].key) &&
		    !strcmp(qkeys[i].sec, reasons ? "Reasons" : sec))
			return &qkeys[i];
	return NULL;
}

static void bad_value(struct parse_ctx *ctx, const char *line, struct slice key,
		      struct slice val, const char *want)
{
	ctx_bad(ctx, ctx_col(line, val.p), "%.*s: \"%.*s\" is not %s", fmt_quote_len(key), key.p,
		fmt_quote_len(val), val.p, want);
}

static void gpu_key(struct parse_ctx *ctx, struct smi_q *q, const char *line, int level,
		    struct slice key, struct slice val)
{
	uint8_t st = 0;
	double v;
	const struct qkey *k;

	if (level == 1) {
		if (slice_eq(key, "Product Name")) {
			if (!smi_missing_token(val, &st))
				slice_copy(q->name, sizeof(q->name), val);
		} else if (slice_eq(key, "GPU UUID")) {
			if (!smi_missing_token(val, &st))
				slice_copy(q->uuid, sizeof(q->uuid), val);
		} else if (slice_eq(key, "Fan Speed")) {
			if (smi_value_unit(val, "%", &v, &st))
				set_metric(q, M_FAN, v);
			else if (!smi_missing_token(val, &st))
				bad_value(ctx, line, key, val, "a percentage");
		} else if (slice_eq(key, "Performance State")) {
			if (val.n >= 2 && val.p[0] == 'P' &&
			    smi_value_unit((struct slice){ val.p + 1, val.n - 1 }, "", &v, &st) &&
			    v >= 0 && v <= 15)
				set_metric(q, M_PSTATE, v);
			else if (!smi_missing_token(val, &st))
				bad_value(ctx, line, key, val, "a performance state P0..P15");
		}
		q->g.status |= st;
		return;
	}
	if (level >= 2 && !strcmp(q->sec[1], "Processes")) {
		struct qproc *p;
		if (slice_eq(key, "Process ID")) {
			int64_t pid;
			if (slice_to_i64(val, &pid) || pid < 0) {
				bad_value(ctx, line, key, val, "a process id");
				q->in_proc = false;
				return;
			}
			ALLOC_GROW(q->procs, q->nprocs + 1, q->procs_cap);
			p = &q->procs[q->nprocs++];
			memset(p, 0, sizeof(*p));
			p->pid = pid;
			p->line = ctx->line;
			q->in_proc = true;
			return;
		}
		if (!q->in_proc)
			return;	/* GPU and compute instance ids come before the pid */
		p = &q->procs[q->nprocs - 1];
		if (slice_eq(key, "Name") || slice_eq(key, "Process Name")) {
			slice_copy(p->name, sizeof(p->name), val);
		} else if (slice_eq(key, "Used GPU Memory")) {
			if (smi_value_unit(val, "MiB", &v, &st)) {
				p->fb = v;
				p->has_fb = true;
			} else if (!smi_missing_token(val, &st)) {
				bad_value(ctx, line, key, val, "a size in MiB");
			}
		}
		return;
	}
	if (!(k = key_find(q, level, key)))
		return;
	switch (k->what) {
	case QF_REASON:
		if (slice_eq(val, "Active") || slice_eq(val, "Not Active")) {
			if (!q->reasons_seen)
				set_metric(q, M_EVENT_MASK, 0);
			q->reasons_seen = true;
			if (val.n == 6)
				q->g.v[M_EVENT_MASK] =
					(double)((uint64_t)q->g.v[M_EVENT_MASK] | k->arg);
		} else if (!smi_missing_token(val, &st)) {
			bad_value(ctx, line, key, val, "Active or Not Active");
		}
		break;
	case QF_PENDING:
		if (slice_eq(val, "Yes") || slice_eq(val, "No")) {
			if (!(q->g.present & (1u << M_MEM_REPAIR_PENDING)))
				set_metric(q, M_MEM_REPAIR_PENDING, 0);
			if (val.p[0] == 'Y')
				q->g.v[M_MEM_REPAIR_PENDING] = 1;
		} else if (!smi_missing_token(val, &st)) {
			bad_value(ctx, line, key, val, "Yes or No");
		}
		break;
	default:
		if (!smi_value_unit(val, k->unit, &v, &st)) {
			if (!smi_missing_token(val, &st))
				bad_value(ctx, line, key, val, "a number");
			break;
		}
		if (k->what == QF_METRIC) {
			set_metric(q, k->arg, v);
		} else if (k->what == QF_POWER) {
			if (k->arg < q->power_rank) {
				set_metric(q, M_POWER, v);
				q->power_rank = (uint8_t)k->arg;
			}
		} else if (k->what == QF_LIMIT) {
			if (k->arg < q->limit_rank) {
				set_metric(q, M_POWER_LIMIT, v);
				q->limit_rank = (uint8_t)k->arg;
			}
		} else if (k->what == QF_RETIRED) {
			q->retired += v;
			q->retired_n++;
		} else if (k->what == QF_REMAPPED) {
			q->remapped += v;
			q->remapped_n++;
		}
		break;
	}
	q->g.status |= st;
}

static bool is_banner(struct slice t)
{
	return slice_starts_with(t, "====") && t.n >= 12 && memmem(t.p, t.n, "NVSMI LOG", 9);
}

/*
 * A line before any banner or Timestamp.  A file that starts inside a
 * document (one log split in two, a copy cut at its head) has the rest of
 * that document there: it is one bad record, reported at its first line,
 * not one bad line per orphaned line.
 */
#define ORPHAN "the file starts inside a -q document; skipped to the next banner"

static void q_orphan(struct parse_ctx *ctx, struct smi_q *q, const char *line, struct slice t,
		     const char *what)
{
	if (q->orphan_said)
		return;
	q->orphan_said = true;
	ctx_bad(ctx, ctx_col(line, t.p), what, fmt_quote_len(t), t.p);
}

static void q_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	struct smi_q *q = ctx->state;
	struct slice t = slice_trim((struct slice){ line, n }), key, val;
	size_t indent = 0;
	int level;
	const char *sep;

	if (!t.n)
		return;
	while (indent < n && (line[indent] == ' ' || line[indent] == '\t'))
		indent += line[indent] == '\t' ? 4 : 1;
	level = (int)(indent / 4);
	if (is_banner(t)) {
		gpu_close(ctx, q);
		q->in_doc = true;
		q->has_time = false;
		q->gpus = 0;
		return;
	}
	/* "Key   : Value": the first colon with a space before it */
	sep = NULL;
	for (const char *c = t.p + 1; c < t.p + t.n; c++)
		if (*c == ':' && c[-1] == ' ') {
			sep = c;
			break;
		}
	if (level == 0 && !sep) {
		if (t.n > 4 && !memcmp(t.p, "GPU ", 4) && q->in_doc) {
			gpu_close(ctx, q);
			gpu_open(q, ctx->line);
			return;
		}
		if (smi_csv_tool_text(ctx, line, n))
			return;
		if (q->in_doc)
			ctx_bad(ctx, ctx_col(line, t.p), "\"%.*s\" is not nvidia-smi -q text", fmt_quote_len(t), t.p);
		else
			q_orphan(ctx, q, line, t,
				 "\"%.*s\" is not nvidia-smi -q text (no NVSMI LOG banner or Timestamp yet)");
		return;
	}
	if (level >= MAX_LEVEL)
		level = MAX_LEVEL - 1;
	if (!sep) {
		/* a section title opens level `level` */
		slice_copy(q->sec[level], SEC_LEN, t);
		for (int l = level + 1; l < MAX_LEVEL; l++)
			q->sec[l][0] = '\0';
		if (level == 1 && q->gpu_open && strcmp(q->sec[1], "Processes"))
			q->in_proc = false;
		return;
	}
	key = slice_trim((struct slice){ t.p, (size_t)(sep - t.p) });
	val = slice_trim((struct slice){ sep + 1, (size_t)(t.p + t.n - sep - 1) });
	for (int l = level; l < MAX_LEVEL; l++)
		q->sec[l][0] = '\0';
	if (level == 0) {
		if (slice_eq(key, "Timestamp")) {
			gpu_close(ctx, q);
			q->in_doc = true;
			if (smi_ctime(val, &q->t_ns)) {
				q->has_time = false;
				bad_value(ctx, line, key, val, "a time like \"Sun Nov 29 22:46:33 2026\"");
			} else {
				q->has_time = true;
			}
			q->gpus = 0;
		} else if (!q->in_doc) {
			q_orphan(ctx, q, line, t, "\"%.*s\" before the NVSMI LOG banner or Timestamp: " ORPHAN);
		}
		return;
	}
	if (!q->gpu_open) {
		if (!q->in_doc)
			q_orphan(ctx, q, line, t, "\"%.*s\" outside a GPU block: " ORPHAN);
		return;
	}
	gpu_key(ctx, q, line, level, key, val);
}

static void q_stream(struct parse_ctx *ctx, const char *p, size_t n, bool last)
{
	struct smi_q *q = ctx->state;

	textlines_feed(&q->tl, ctx, p, n, last, q_line);
	if (last)
		gpu_close(ctx, q);
}

static int q_sniff(const char *head, size_t n, const char *name)
{
	struct slice h = { head, n };
	(void)name;
	if (memmem(head, n < 4096 ? n : 4096, "==============NVSMI LOG==============", 37))
		return 95;
	/* a paste that lost its banner: the header lines, then a GPU block */
	if (memmem(head, n, "\nDriver Version ", 16) && memmem(head, n, "\nAttached GPUs ", 15) &&
	    (slice_starts_with(h, "Timestamp ") || memmem(head, n, "\nTimestamp ", 11)))
		return 85;
	return 0;
}

const struct format format_smi_q = {
	.id = "smi-q",
	.summary = "nvidia-smi -q text, whole or with -d sections, one or many documents (-l N)",
	.detects = "the '==============NVSMI LOG==============' banner, or Timestamp, Driver Version "
		   "and Attached GPUs lines",
	.state_size = sizeof(struct smi_q),
	.sniff = q_sniff,
	.init = q_init,
	.stream = q_stream,
	.fini = q_fini,
};
