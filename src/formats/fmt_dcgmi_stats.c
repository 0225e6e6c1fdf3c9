/* SPDX-License-Identifier: MIT */
/*
 * DCGM's job statistics, `dcgmi stats -v -j JOBID` (docs/formats/dcgmi-stats.md):
 * per GPU of the job, its start and end, the energy DCGM measured and its
 * SM utilization and memory.  Each GPU block becomes a job record on that
 * GPU index (a REC_JOB with one GPU), so that the report prices the job on
 * the GPUs it ran on; the same job from sacct is one job (analysis merges
 * them by id).
 */
#include "formats/format.h"

#include <math.h>
#include <string.h>

#include "formats/docbuf.h"
#include "util/timeutil.h"

#define DS_SHOW(s) (int)((s).n > 40 ? 40 : (s).n), (s).p

struct ds_state {
	struct docbuf doc;	/* the whole output: a block may end with the file */
	char job[48];		/* from "... statistics for job: N." */
	bool in_gpu;		/* inside a GPU block */
	int32_t gpu;
	uint64_t line;		/* the block's "GPU ID" line */
	int64_t t0_ns, t1_ns;
	double energy_j, sm_avg, mem_max_b;
};

static const char *const months[12] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					"Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

/* "Mon Jan  5 15:32:18 2026" (ctime, local time); false if not. */
static bool ds_ctime(struct slice s, int64_t *t_ns)
{
	const char *p = s.p, *e = s.p + s.n;
	int mo = 0, d, h, mi, sec, y;
	int64_t t_s;

	if (s.n < 24 || p[3] != ' ' || p[7] != ' ')
		return false;
	for (int i = 0; i < 12; i++)
		if (!memcmp(p + 4, months[i], 3))
			mo = i + 1;
	if (!mo)
		return false;
	p += 8;
	if (*p == ' ')
		p++;
	if (*p < '0' || *p > '9')
		return false;
	d = *p++ - '0';
	if (*p >= '0' && *p <= '9')
		d = d * 10 + (*p++ - '0');
	if (p >= e || *p++ != ' ' || scan_fixed_digits(&p, e, 2, &h) || p >= e || *p++ != ':' ||
	    scan_fixed_digits(&p, e, 2, &mi) || p >= e || *p++ != ':' || scan_fixed_digits(&p, e, 2, &sec) ||
	    p >= e || *p++ != ' ' || scan_fixed_digits(&p, e, 4, &y) || p != e)
		return false;
	if (!civil_valid(y, mo, d) || h > 23 || mi > 59 || sec > 60 || time_local_to_utc(y, mo, d, h, mi, sec, &t_s))
		return false;
	*t_ns = t_s * NS_PER_S;
	return true;
}

/* "Avg: 72, Max: 99, Min: 0" -> the figure after key ("Avg:"), NAN if none. */
static double ds_stat(struct slice v, const char *key)
{
	const char *k = memmem(v.p, v.n, key, strlen(key)), *p, *e = v.p + v.n;
	double x;

	if (!k)
		return NAN;
	p = k + strlen(key);
	while (p < e && *p == ' ')
		p++;
	return scan_double(&p, e, &x) ? NAN : x;
}

/* The end of a GPU block: its job record, when it has a start. */
static void ds_flush(struct parse_ctx *ctx, struct ds_state *st)
{
	struct rec *r;
	uint64_t line = ctx->line;

	if (!st->in_gpu)
		return;
	st->in_gpu = false;
	if (st->t0_ns == INT64_MIN) {
		ctx->line = st->line;
		ctx_bad(ctx, 0, "GPU %d of job %s has no Start Time: not read", st->gpu, st->job[0] ? st->job : "?");
		ctx->line = line;
		return;
	}
	ctx->line = st->line;
	r = ctx_rec(ctx, REC_JOB);
	ctx->line = line;
	if (!r)
		return;
	r->t_ns = st->t0_ns;
	r->time_kind = TK_ABS;
	r->gpu_index = st->gpu;
	r->job.t1_ns = st->t1_ns == INT64_MIN ? INT64_MAX : st->t1_ns;
	r->job.id = st->job[0] ? ctx_str(ctx, (struct slice){ st->job, strlen(st->job) }) : STR_NONE;
	r = &ctx->out->recs[ctx->out->nr - 1];
	r->job.user = r->job.account = r->job.nodes = STR_NONE;
	r->job.ngpus = 1;
	r->job.nnodes = 1;
	r->job.gpuutil_pct = st->sm_avg;
	r->job.gpumem_mib = isnan(st->mem_max_b) ? NAN : st->mem_max_b / 1048576;
	r->job.gpu_mask = st->gpu >= 0 && st->gpu < 64 ? 1ull << st->gpu : 0;
	r->job.energy_j = st->energy_j;
}


static void ds_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	struct ds_state *st = ctx->state;
	struct slice s = slice_trim((struct slice){ line, n }), f[4], k, v;
	const char *job;
	bool over;
	size_t nf;

	if ((job = memmem(s.p, s.n, "statistics for job: ", 20))) {
		struct slice id;
		ds_flush(ctx, st);
		id.p = job + 20;
		id.n = (size_t)(s.p + s.n - id.p);
		if (id.n && id.p[id.n - 1] == '.')
			id.n--;
		slice_copy(st->job, sizeof(st->job), slice_trim(id));
		return;
	}
	if (slice_starts_with(s, "+") && s.n > 2 && strspn(s.p + 1, "-") == s.n - 2 && s.p[s.n - 1] == '+') {
		ds_flush(ctx, st);	/* a block's closing border */
		return;
	}
	if (!slice_starts_with(s, "|"))
		return;		/* other borders, blank lines, other text */
	nf = scan_split(s.p, s.n, '|', f, 4, &over);
	/* "| key | value |" is 4 fields: "", key, value, "" */
	if (nf == 3 && slice_starts_with(slice_trim(f[1]), "GPU ID:")) {
		struct slice g = slice_trim(f[1]);
		int64_t id;
		ds_flush(ctx, st);
		g = slice_trim((struct slice){ g.p + 7, g.n - 7 });
		if (slice_to_i64(g, &id) || id < 0 || id > 1023) {
			ctx_bad(ctx, ctx_col(line, g.p), "bad GPU ID '%.*s'", DS_SHOW(g));
			return;
		}
		st->in_gpu = true;
		st->gpu = (int32_t)id;
		st->line = ctx->line;
		st->t0_ns = st->t1_ns = INT64_MIN;
		st->energy_j = st->sm_avg = st->mem_max_b = NAN;
		return;
	}
	if (nf != 4 || !st->in_gpu)
		return;
	k = slice_trim(f[1]);
	v = slice_trim(f[2]);
	if (slice_eq(k, "Start Time") || slice_eq(k, "End Time")) {
		int64_t t;
		if (!ds_ctime(v, &t)) {
			if (slice_eq(k, "End Time") && (slice_eq(v, "Still Running") || v.n == 0))
				return;		/* a job still running: to the end of the data */
			ctx_bad(ctx, ctx_col(line, v.p), "bad %.*s '%.*s'", (int)k.n, k.p, DS_SHOW(v));
			return;
		}
		if (slice_eq(k, "Start Time"))
			st->t0_ns = t;
		else
			st->t1_ns = t;
	} else if (slice_eq(k, "Energy Consumed (Joules)")) {
		if (slice_to_double(v, &st->energy_j)) {
			st->energy_j = NAN;
			ctx_bad(ctx, ctx_col(line, v.p), "bad Energy Consumed '%.*s': GPU %d of job %s read without it",
				DS_SHOW(v), st->gpu, st->job[0] ? st->job : "?");
		}
	} else if (slice_eq(k, "SM Utilization (%)")) {
		st->sm_avg = ds_stat(v, "Avg:");
	} else if (slice_eq(k, "Max GPU Memory Used (bytes)")) {
		if (slice_to_double(v, &st->mem_max_b)) {
			st->mem_max_b = NAN;
			ctx_bad(ctx, ctx_col(line, v.p), "bad Max GPU Memory Used '%.*s': GPU %d of job %s read without it",
				DS_SHOW(v), st->gpu, st->job[0] ? st->job : "?");
		}
	}
	if (st->t0_ns != INT64_MIN && st->t1_ns != INT64_MIN && st->t1_ns < st->t0_ns) {
		ctx_bad(ctx, ctx_col(line, v.p), "End Time before Start Time: GPU %d of job %s not read", st->gpu,
			st->job[0] ? st->job : "?");
		st->in_gpu = false;
	}
}

/* Every line in order, then the last block, which may end with the file. */
static void ds_read(struct parse_ctx *ctx)
{
	struct ds_state *st = ctx->state;
	const char *p = st->doc.buf, *end = p + st->doc.n;

	for (uint64_t ln = 1; p < end; ln++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		size_t n = (size_t)(le - p);
		if (n && p[n - 1] == '\r')
			n--;
		ctx->line = ln;
		ds_line(ctx, p, n);
		p = nl ? nl + 1 : end;
	}
	ds_flush(ctx, st);
}

static void ds_stream(struct parse_ctx *ctx, const char *p, size_t n, bool last)
{
	struct ds_state *st = ctx->state;

	docbuf_stream(&st->doc, ctx, p, n, last, "dcgmi stats output", ds_read);
}

static void ds_fini(void *state)
{
	struct ds_state *st = state;

	docbuf_release(&st->doc);
}

static int ds_sniff(const char *head, size_t n, const char *name)
{
	(void)name;
	if (memmem(head, n, "statistics for job: ", 20) && memmem(head, n, "| GPU ID: ", 10))
		return 95;
	if (memmem(head, n, "|-----  Execution Stats", 23) && memmem(head, n, "Energy Consumed (Joules)", 24))
		return 80;
	return 0;
}

const struct format format_dcgmi_stats = {
	.id = "dcgmi-stats",
	.summary = "DCGM job statistics: dcgmi stats -v -j JOBID (per GPU: start, end, energy, SM utilization)",
	.detects = "'Successfully retrieved statistics for job:' and '| GPU ID: ' blocks",
	.state_size = sizeof(struct ds_state),
	.sniff = ds_sniff,
	.stream = ds_stream,
	.fini = ds_fini,
};
