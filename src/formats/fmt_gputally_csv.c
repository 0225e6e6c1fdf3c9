/* SPDX-License-Identifier: MIT */
/* The CSV `gputally record` writes (docs/formats/gputally-csv.md). */
#include "formats/format.h"

#include <string.h>

#include "formats/kmsg.h"
#include "util/pci.h"
#include "util/timeutil.h"

#define GC_MAX_COLS 64
#define GC_SHOW(s) (int)((s).n > 40 ? 40 : (s).n), (s).p

enum gc_role {
	R_IGNORE = -1,
	R_TIME = -2,
	R_GPU = -3,
	R_UUID = -4,
	R_NAME = -5,
	R_STATUS = -6,
	R_PROCS = -7,
	R_HEX = -8,	/* clock_event_reasons: a 0x mask */
	R_BUS = -9,	/* bus_id: passed on as a gpu_map record */
	R_WHO = -10,	/* procs_who: who each process of procs belongs to */
	R_TASK = -11,	/* task: record --task, each process's task */
};

/* A procs_who user of "!": NVML's pid is the host's, not visible from the recorder's container. */
#define GC_NOT_VISIBLE "host pid, not visible"

/* The measured columns, from the table the recorder writes them with. */
static const struct {
	const char *name;
	int metric;
} gc_measured[] = {
#define TCOL(id, csv, metric, dec, prom, type, mul, src, help) { csv, metric },
#include "formats/tally_columns.def"
#undef TCOL
};
#define GC_NMEASURED (sizeof(gc_measured) / sizeof(gc_measured[0]))

static const struct {
	const char *name;
	int8_t role;
} gc_fixed[] = {
	{ "time", R_TIME }, { "host", R_IGNORE }, { "task", R_TASK }, { "gpu", R_GPU },
	{ "uuid", R_UUID }, { "name", R_NAME }, { "status", R_STATUS }, { "procs", R_PROCS },
	{ "bus_id", R_BUS }, { "procs_who", R_WHO },
};

struct gc_state {
	int ncols;		/* 0 until the header is seen */
	int8_t role[GC_MAX_COLS];
	int8_t metric[GC_MAX_COLS];	/* enum metric for role >= 0 columns */
	int32_t bus_told[16];		/* GPUs (index + 1) whose bus id this chunk passed on */
};

static bool gc_is_context(const char *line, size_t n)
{
	struct slice s = { line, n };
	return slice_starts_with(s, "#") || slice_starts_with(s, "time,");
}

static void gc_header(struct gc_state *st, const struct slice *f, size_t nf)
{
	st->ncols = (int)nf;
	for (size_t i = 0; i < nf; i++) {
		struct slice name = slice_trim(f[i]);
		st->role[i] = R_IGNORE;
		for (size_t k = 0; k < sizeof(gc_fixed) / sizeof(gc_fixed[0]); k++)
			if (slice_eq(name, gc_fixed[k].name))
				st->role[i] = gc_fixed[k].role;
		for (size_t k = 0; k < GC_NMEASURED; k++) {
			if (!slice_eq(name, gc_measured[k].name) || gc_measured[k].metric < 0)
				continue;
			st->metric[i] = (int8_t)gc_measured[k].metric;
			st->role[i] = gc_measured[k].metric == M_EVENT_MASK ? R_HEX : 0;
		}
	}
}

/* "pid=mib;pid=?;..." -> count, or -1 with *bad at the offending entry */
static int gc_check_procs(struct slice s, const char **bad)
{
	const char *p = s.p, *end = s.p + s.n;
	int n = 0;

	if (s.n == 0 || slice_eq(s, "-"))
		return 0;
	while (p < end) {
		const char *semi = memchr(p, ';', (size_t)(end - p)), *fe = semi ? semi : end;
		const char *q = p;
		uint64_t v;
		*bad = p;
		if (scan_u64(&q, fe, &v) || v > INT64_MAX || q == fe || *q != '=')
			return -1;
		q++;
		if (!(fe - q == 1 && *q == '?') && (scan_u64(&q, fe, &v) || q != fe))
			return -1;
		n++;
		p = semi ? semi + 1 : end;
	}
	return n;
}

/* procs_who: n entries "user|job|container|sm" (checked against procs' count), or -1 with *bad set. */
static int gc_check_who(struct slice s, int nprocs, const char **bad)
{
	const char *p = s.p, *end = s.p + s.n;
	int n = 0;

	*bad = s.p;
	if (s.n == 0)
		return 0;
	while (p < end) {
		const char *semi = memchr(p, ';', (size_t)(end - p)), *fe = semi ? semi : end;
		const char *q = p;
		int bars = 0;
		*bad = p;
		for (; q < fe; q++)
			bars += *q == '|';
		if (bars != 3)
			return -1;
		q = memrchr(p, '|', (size_t)(fe - p)) + 1;
		if (q < fe) {
			uint64_t v;
			if (scan_u64(&q, fe, &v) || q != fe || v > 100)
				return -1;
		}
		n++;
		p = semi ? semi + 1 : end;
	}
	if (n != nprocs) {
		*bad = s.p;
		return -1;
	}
	return n;
}

/* The next procs_who entry's fields into r (PF_WHO), and its sm % (PF_SM); *w moves on. */
static void gc_who_entry(struct parse_ctx *ctx, const char **w, const char *wend, struct rec *r, uint32_t task)
{
	const char *semi = memchr(*w, ';', (size_t)(wend - *w)), *fe = semi ? semi : wend;
	struct slice f[4];
	bool over;
	size_t nf = scan_split(*w, (size_t)(fe - *w), '|', f, 4, &over);
	uint32_t off[3];

	*w = semi ? semi + 1 : wend;
	if (nf != 4)
		return;
	for (int i = 0; i < 3; i++)
		off[i] = f[i].n ? ctx_str(ctx, f[i]) : STR_NONE;
	if (slice_eq(f[0], "!"))
		off[0] = ctx_str(ctx, (struct slice){ GC_NOT_VISIBLE, sizeof(GC_NOT_VISIBLE) - 1 });
	r = &ctx->out->recs[ctx->out->nr - 1];	/* ctx_str() leaves the records where they are */
	r->present |= PF_WHO;
	r->pw.user = off[0];
	r->pw.job = off[1];
	r->pw.ctr = off[2];
	r->pw.task = task;
	if (f[3].n) {
		int64_t sm;
		if (!slice_to_i64(f[3], &sm)) {
			r->v[0] = (double)sm;
			r->present |= PF_SM;
		}
	}
}

static void gc_emit_procs(struct parse_ctx *ctx, struct slice s, int64_t t_ns, int32_t gpu,
			  uint32_t uuid, struct slice who, struct slice task)
{
	const char *p = s.p, *end, *w = who.p, *wend = who.n ? who.p + who.n : who.p;
	uint32_t task_off = STR_NONE;

	if (s.n == 0 || slice_eq(s, "-"))
		return;		/* (s.p may be NULL: no procs column) */
	if (task.n)
		task_off = ctx_str(ctx, task);
	end = s.p + s.n;
	while (p < end) {
		const char *semi = memchr(p, ';', (size_t)(end - p)), *fe = semi ? semi : end;
		uint64_t pid = 0, mib = 0;
		struct rec *r;
		bool known;
		scan_u64(&p, fe, &pid);
		p++;	/* '=' (checked) */
		known = *p != '?';
		if (known)
			scan_u64(&p, fe, &mib);
		r = ctx_rec(ctx, REC_PROC);
		if (!r)
			return;
		r->t_ns = t_ns;
		r->time_kind = TK_ABS;
		r->gpu_index = gpu;
		r->uuid = uuid;
		r->pid = (int64_t)pid;
		if (known) {
			r->present = PF_FB;
			r->v[2] = (double)mib;
		}
		if (who.n)
			gc_who_entry(ctx, &w, wend, r, task_off);
		else if (task_off != STR_NONE) {
			r->present |= PF_WHO;
			r->pw.user = r->pw.job = r->pw.ctr = STR_NONE;
			r->pw.task = task_off;
		}
		p = semi ? semi + 1 : end;
	}
}

/*
 * A GPU's bus id, once per chunk and GPU, as an EV_GPU_MAP record: the
 * timeline maps the PCI address of a kernel-log event to the GPU with it.
 */
static void gc_tell_bus(struct parse_ctx *ctx, struct gc_state *st, int64_t t_ns, int32_t gpu,
			uint32_t uuid, struct slice bus)
{
	size_t i, nt = sizeof(st->bus_told) / sizeof(st->bus_told[0]);
	struct rec *r;

	for (i = 0; i < nt && st->bus_told[i]; i++)
		if (st->bus_told[i] == gpu + 1)
			return;
	if (i < nt)
		st->bus_told[i] = gpu + 1;
	r = ctx_rec(ctx, REC_EVENT);
	if (!r)
		return;
	r->ev = EV_GPU_MAP;
	r->t_ns = t_ns;
	r->time_kind = TK_ABS;
	r->gpu_index = gpu;
	r->uuid = uuid;
	r->name = STR_NONE;
	{
		char norm[16];
		r->kev.pci = pci_norm(bus, norm) ? ctx_str(ctx, (struct slice){ norm, strlen(norm) }) :
			     ctx_str(ctx, bus);
	}
	r->kev.severity = KS_INFO;
}

static void gc_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	struct gc_state *st = ctx->state;
	struct slice f[GC_MAX_COLS], name = { NULL, 0 }, uuid = { NULL, 0 }, procs = { NULL, 0 };
	struct slice bus = { NULL, 0 }, who = { NULL, 0 }, task = { NULL, 0 };
	int nprocs = 0;
	double v[M__COUNT];
	uint32_t present = 0, uuid_off;
	uint8_t status = 0;
	int64_t t_ns = 0;
	int32_t gpu = -1;
	bool overflow, have_time = false;
	int xid = -1;
	size_t nf;
	struct rec *r;

	if (n && line[0] == '#')
		return;	/* "# gputally-csv v1" and comments */
	nf = scan_split(line, n, ',', f, GC_MAX_COLS, &overflow);
	if (slice_starts_with((struct slice){ line, n }, "time,")) {
		gc_header(st, f, nf);
		return;
	}
	if (ctx->replay)
		return;
	if (!st->ncols) {
		ctx_bad(ctx, 0, "row before the gputally CSV header");
		return;
	}
	if (overflow || (int)nf != st->ncols) {
		const char *cut = ctx->last_line_partial ? "line cut short: " : "";
		ctx_bad(ctx, (int)nf > st->ncols ? ctx_col(line, f[st->ncols].p) : ctx_col(line, line + n),
			"%sexpected %d fields, got %s%zu", cut, st->ncols, overflow ? "more than " : "", nf);
		return;
	}
	for (size_t i = 0; i < nf; i++) {
		struct slice s = f[i];
		int role = st->role[i];
		uint64_t u;
		const char *p = s.p, *bad;

		switch (role) {
		case R_IGNORE:
			break;
		case R_TIME:
			if (time_parse_iso(s.p, s.n, &t_ns)) {
				ctx_bad(ctx, ctx_col(line, s.p), "bad time '%.*s'", GC_SHOW(s));
				return;
			}
			have_time = true;
			break;
		case R_GPU: {
			int64_t g;
			if (s.n == 0)
				break;
			if (slice_to_i64(s, &g) || g < 0 || g > INT32_MAX) {
				ctx_bad(ctx, ctx_col(line, s.p), "bad GPU index '%.*s'", GC_SHOW(s));
				return;
			}
			gpu = (int32_t)g;
			break;
		}
		case R_UUID:
			uuid = s;
			break;
		case R_NAME:
			name = s;
			break;
		case R_BUS:
			bus = s;
			break;
		case R_STATUS:
			if (slice_eq(s, "ok")) {
				break;
			} else if (slice_eq(s, "lost") || slice_eq(s, "timeout")) {
				status |= GS_LOST;
			} else if (slice_eq(s, "reset_required")) {
				status |= GS_RESET;
			} else if (slice_starts_with(s, "nvml_error_")) {
				status |= GS_READ_ERROR;
			} else if (slice_starts_with(s, "xid:")) {
				int64_t x;
				if (slice_to_i64((struct slice){ s.p + 4, s.n - 4 }, &x) || x < 0 ||
				    x > INT32_MAX) {
					ctx_bad(ctx, ctx_col(line, s.p), "bad Xid '%.*s'", GC_SHOW(s));
					return;
				}
				xid = (int)x;
			} else if (!slice_starts_with(s, "event:")) {
				ctx_bad(ctx, ctx_col(line, s.p), "unknown status '%.*s'", GC_SHOW(s));
				return;
			} else {
				xid = -2;	/* another NVML event: nothing to read */
			}
			break;
		case R_PROCS:
			if ((nprocs = gc_check_procs(s, &bad)) < 0) {
				ctx_bad(ctx, ctx_col(line, bad), "bad process entry in '%.*s'", GC_SHOW(s));
				return;
			}
			procs = s;
			break;
		case R_WHO:
			who = s;
			break;
		case R_TASK:
			task = slice_trim(s);
			break;
		case R_HEX:
			if (s.n == 0)
				break;
			if (scan_hex_u64(&p, s.p + s.n, &u) || p != s.p + s.n) {
				ctx_bad(ctx, ctx_col(line, s.p), "bad mask '%.*s'", GC_SHOW(s));
				return;
			}
			v[st->metric[i]] = (double)u;
			present |= 1u << st->metric[i];
			break;
		default:
			if (s.n == 0)
				break;	/* not supported or not read: absent, never 0 */
			if (slice_to_double(s, &v[st->metric[i]])) {
				ctx_bad(ctx, ctx_col(line, s.p), "bad number '%.*s'", GC_SHOW(s));
				return;
			}
			present |= 1u << st->metric[i];
		}
	}
	if (!have_time) {
		ctx_bad(ctx, 0, "no time column in the header");
		return;
	}
	if (who.n) {
		const char *bad;
		if (gc_check_who(who, nprocs, &bad) < 0) {
			ctx_bad(ctx, ctx_col(line, bad), "bad procs_who entry in '%.*s' (want user|job|container|sm per process of procs)",
				GC_SHOW(who));
			return;
		}
	}
	if (xid == -2)
		return;
	if (xid >= 0) {
		ctx_event(ctx, EV_XID, t_ns, TK_ABS, gpu, "NVML Xid %d event", xid);
		if (!ctx->replay) {
			struct rec *e = &ctx->out->recs[ctx->out->nr - 1];
			/* the UUID too: in a report over several hosts the index
			 * alone names a GPU on each of them */
			if (uuid.n)
				e->uuid = ctx_str(ctx, uuid);
			/* the code and the catalog's class, as a kernel Xid has them */
			kev_set_xid(e, xid);
		}
		return;
	}
	uuid_off = uuid.n ? ctx_str(ctx, uuid) : STR_NONE;
	r = ctx_rec(ctx, REC_SAMPLE);
	if (!r)
		return;
	r->t_ns = t_ns;
	r->time_kind = TK_ABS;
	r->gpu_index = gpu;
	r->status = status;
	r->present = present;
	r->uuid = uuid_off;
	for (int m = 0; m < M__COUNT; m++)
		if (present & (1u << m))
			r->v[m] = v[m];
	if (name.n)
		r->name = ctx_str(ctx, name);
	gc_emit_procs(ctx, procs, t_ns, gpu, uuid_off, who, task);
	if (bus.n && gpu >= 0)
		gc_tell_bus(ctx, st, t_ns, gpu, uuid_off, bus);
}

static int gc_sniff(const char *head, size_t n, const char *name)
{
	(void)name;
	if (slice_starts_with((struct slice){ head, n }, "# gputally-csv v"))
		return 100;
	if (slice_starts_with((struct slice){ head, n }, "time,host,task,gpu,uuid,"))
		return 90;
	return 0;
}

const struct format format_gputally_csv = {
	.id = "gputally-csv",
	.summary = "the CSV `gputally record` writes (# gputally-csv v1, time,host,task,gpu,...)",
	.detects = "a first line '# gputally-csv v<N>', or a header starting time,host,task,gpu,uuid,",
	.state_size = sizeof(struct gc_state),
	.sniff = gc_sniff,
	.is_context = gc_is_context,
	.context_first = "#t",
	.line = gc_line,
};
