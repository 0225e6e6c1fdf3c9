/* SPDX-License-Identifier: MIT */
/*
 * Slurm's accounting as `sacct --parsable2` (or --parsable) prints it
 * (docs/formats/slurm-sacct.md): one allocation per job with the GPUs it
 * was given, from AllocTRES.  The whole file is read first: sacct lists
 * jobs by id, not by time, and the report needs them in time order; a
 * step's row (JobID with a dot) adds its TRESUsageInTot GPU figures to its
 * job.
 */
#include "formats/format.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "formats/docbuf.h"
#include "util/json.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

#define SA_MAX_COLS 64
#define SA_SHOW(s) (int)((s).n > 40 ? 40 : (s).n), (s).p

enum sa_col { C_JOBID, C_USER, C_ACCOUNT, C_START, C_END, C_NODES, C_ALLOC, C_USAGE, C_ADMIN, C__COUNT };
static const char *const sa_names[C__COUNT] = {
	[C_JOBID] = "JobID", [C_USER] = "User", [C_ACCOUNT] = "Account", [C_START] = "Start",
	[C_END] = "End", [C_NODES] = "NodeList", [C_ALLOC] = "AllocTRES", [C_USAGE] = "TRESUsageInTot",
	[C_ADMIN] = "AdminComment",
};

struct sa_job {
	uint64_t line;
	int64_t t0_ns, t1_ns;
	char id[48], user[48], account[48], nodes[160];
	int32_t ngpus, nnodes;
	double util, mem;
	uint64_t gpu_mask;	/* jobstats: the GPU indices it was given (one node only) */
};

struct sa_state {
	struct docbuf doc;
	int col[C__COUNT];		/* field index of each column, -1 absent */
	struct sa_job *jobs;
	size_t njobs, alloc;
};

/* "gres/gpu=2" (every type together) else the sum of "gres/gpu:a100=2"; -1 none. */
static int32_t tres_gpus(struct slice s)
{
	struct slice f[64];
	bool over;
	size_t nf = scan_split(s.p, s.n, ',', f, 64, &over);
	int64_t plain = -1, typed = -1, v;

	for (size_t i = 0; i < nf; i++) {
		const char *eq = memchr(f[i].p, '=', f[i].n);
		struct slice k, val;
		if (!eq)
			continue;
		k = (struct slice){ f[i].p, (size_t)(eq - f[i].p) };
		val = (struct slice){ eq + 1, f[i].n - (size_t)(eq + 1 - f[i].p) };
		if (slice_to_i64(val, &v) || v < 0 || v > 1 << 20)
			continue;
		if (slice_eq(k, "gres/gpu"))
			plain = v;
		else if (slice_starts_with(k, "gres/gpu:"))
			typed = (typed < 0 ? 0 : typed) + v;
	}
	return (int32_t)(plain >= 0 ? plain : typed);
}

/* A TRES value "38888M", "2G", "512K" or bytes, in MiB; NAN if not a number. */
static double tres_mib(struct slice v)
{
	double x, mul = 1.0 / (1024 * 1024);

	if (v.n && strchr("KMGT", v.p[v.n - 1])) {
		char u = v.p[v.n - 1];
		mul = u == 'K' ? 1.0 / 1024 : u == 'M' ? 1 : u == 'G' ? 1024 : 1024.0 * 1024;
		v.n--;
	}
	return slice_to_double(v, &x) ? NAN : x * mul;
}

/* TRESUsageInTot's gres/gpuutil and gres/gpumem (the largest of a job's rows). */
static void tres_usage(struct slice s, double *util, double *mem)
{
	struct slice f[64];
	bool over;
	size_t nf = scan_split(s.p, s.n, ',', f, 64, &over);

	for (size_t i = 0; i < nf; i++) {
		const char *eq = memchr(f[i].p, '=', f[i].n);
		struct slice k, val;
		double x;
		if (!eq)
			continue;
		k = (struct slice){ f[i].p, (size_t)(eq - f[i].p) };
		val = (struct slice){ eq + 1, f[i].n - (size_t)(eq + 1 - f[i].p) };
		if (slice_eq(k, "gres/gpuutil") && !slice_to_double(val, &x) && (isnan(*util) || x > *util))
			*util = x;
		if (slice_eq(k, "gres/gpumem") && !isnan(x = tres_mib(val)) && (isnan(*mem) || x > *mem))
			*mem = x;
	}
}

/* Nodes in a Slurm host list: "gpu[01-03,07],login1" is 5. */
static int32_t nodes_count(struct slice s)
{
	int32_t n = 0;
	const char *p = s.p, *end = s.p + s.n;

	while (p < end) {
		const char *q = p;
		int depth = 0, inner = 0;
		/* one name, up to a comma outside brackets */
		while (q < end && (depth || *q != ',')) {
			if (*q == '[') {
				depth = 1;
				inner = 1;
			} else if (*q == ']') {
				depth = 0;
			} else if (depth && *q == ',') {
				inner++;
			}
			q++;
		}
		if (q > p) {
			/* each range a-b inside the brackets counts b - a + 1 */
			const char *b = memchr(p, '[', (size_t)(q - p));
			if (!b) {
				n++;
			} else {
				const char *r = b + 1;
				int32_t c = 0;
				while (r < q && *r != ']') {
					uint64_t lo, hi;
					if (scan_u64(&r, q, &lo))
						break;
					hi = lo;
					if (r < q && *r == '-') {
						r++;
						if (scan_u64(&r, q, &hi))
							break;
					}
					c += hi >= lo && hi - lo < 100000 ? (int32_t)(hi - lo + 1) : 1;
					if (r < q && *r == ',')
						r++;
				}
				n += c > 0 ? c : inner;
			}
		}
		p = q < end ? q + 1 : end;
	}
	return n;
}

/* ---- the jobstats summary in AdminComment: "JS1:" + base64 of gzipped JSON ---- */

#define JS_MAX (1u << 20)	/* a summary is a few hundred bytes; more is not one */

static int b64_val(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Base64 into out (cap bytes); the length, or -1 for a byte that is not base64. */
static long b64_decode(struct slice s, unsigned char *out, size_t cap)
{
	uint32_t acc = 0;
	int bits = 0;
	size_t n = 0;

	for (size_t i = 0; i < s.n; i++) {
		int v;
		if (s.p[i] == '=')
			break;
		if ((v = b64_val(s.p[i])) < 0)
			return -1;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (n >= cap)
				return -1;
			out[n++] = (unsigned char)(acc >> bits);
		}
	}
	return (long)n;
}

/* gunzip in[0..n) into out (cap - 1 bytes at most, NUL-terminated); the length or -1. */
static long gunzip(const unsigned char *in, size_t n, char *out, size_t cap)
{
	z_stream z;
	long len;
	int rc;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return -1;
	z.next_in = (unsigned char *)(uintptr_t)in;
	z.avail_in = (uInt)n;
	z.next_out = (unsigned char *)out;
	z.avail_out = (uInt)(cap - 1);
	rc = inflate(&z, Z_FINISH);
	len = rc == Z_STREAM_END ? (long)z.total_out : -1;
	inflateEnd(&z);
	if (len >= 0)
		out[len] = '\0';
	return len;
}

/*
 * The summary's GPUs: under "nodes", per node, "gpu_utilization",
 * "gpu_used_memory" (bytes) and "gpu_total_memory" keyed by GPU index.
 * Fills the job's GPU indices (when it ran on one node), its mean
 * utilization and its largest memory used, where TRESUsageInTot said none.
 * Returns NULL, or why the summary could not be read.
 */
static const char *jobstats_doc(const char *doc, long n, struct sa_job *j);

static const char *jobstats(struct slice v, struct sa_job *j)
{
	unsigned char *raw;
	char *doc;
	const char *why = NULL;
	long n;

	if (slice_eq(v, "JS1:Short") || slice_eq(v, "JS1:None"))
		return NULL;	/* jobstats' own words for a job too short to sample, or none */
	raw = xmalloc(JS_MAX);
	doc = xmalloc(JS_MAX);
	if ((n = b64_decode((struct slice){ v.p + 4, v.n - 4 }, raw, JS_MAX)) < 0)
		why = "not base64";
	else if ((n = gunzip(raw, (size_t)n, doc, JS_MAX)) < 0)
		why = "not gzip";
	else
		why = jobstats_doc(doc, n, j);
	free(raw);
	free(doc);
	return why;
}

static const char *jobstats_doc(const char *doc, long n, struct sa_job *j)
{
	struct json_lex lx;
	struct slice keys[8] = { { NULL, 0 } };
	int nodes = 0, d = 0;
	double usum = 0, mem = NAN;
	int un = 0;
	uint64_t mask = 0;
	enum json_tok t;

	json_lex_init(&lx, doc, doc + n, true);
	while ((t = json_next(&lx)) != JT_DONE) {
		if (t == JT_ERR || t == JT_MORE)
			return "not JSON";
		if (t == JT_KEY) {
			if (d < 8)
				keys[d] = lx.tok;
			continue;
		}
		if (t == JT_OBJ || t == JT_ARR) {
			/* a node's object: nodes.<node> (keys[d] is the key at depth d) */
			if (d == 2 && slice_eq(keys[1], "nodes") && t == JT_OBJ)
				nodes++;
			d++;
			continue;
		}
		if (t == JT_OBJ_END || t == JT_ARR_END) {
			d--;
			continue;
		}
		/* nodes.<node>.<what>.<index>: a number */
		if (t == JT_NUM && d == 4 && slice_eq(keys[1], "nodes")) {
			int64_t idx;
			double x;
			if (slice_to_i64(keys[4], &idx) || idx < 0 || idx > 63 || slice_to_double(lx.tok, &x))
				continue;
			if (slice_eq(keys[3], "gpu_utilization")) {
				usum += x;
				un++;
				mask |= 1ull << idx;
			} else if (slice_eq(keys[3], "gpu_used_memory")) {
				if (isnan(mem) || x / 1048576 > mem)
					mem = x / 1048576;
				mask |= 1ull << idx;
			} else if (slice_eq(keys[3], "gpu_total_memory")) {
				mask |= 1ull << idx;
			}
		}
	}
	if (nodes == 1)
		j->gpu_mask = mask;
	if (un && isnan(j->util))
		j->util = usum / un;
	if (!isnan(mem) && isnan(j->mem))
		j->mem = mem;
	return NULL;
}

static bool sa_header(struct sa_state *st, const struct slice *f, size_t nf)
{
	for (int c = 0; c < C__COUNT; c++)
		st->col[c] = -1;
	for (size_t i = 0; i < nf; i++)
		for (int c = 0; c < C__COUNT; c++)
			if (st->col[c] < 0 && slice_eq_nocase(slice_trim(f[i]), sa_names[c]))
				st->col[c] = (int)i;
	return st->col[C_JOBID] >= 0;
}

static struct slice field(const struct sa_state *st, const struct slice *f, size_t nf, int c)
{
	return st->col[c] >= 0 && (size_t)st->col[c] < nf ? slice_trim(f[st->col[c]]) : (struct slice){ "", 0 };
}

/* sacct's "not yet" and "not known" words for a time */
static bool no_time(struct slice s)
{
	return s.n == 0 || slice_eq(s, "Unknown") || slice_eq(s, "None") || slice_eq(s, "N/A");
}

static struct sa_job *job_of(struct sa_state *st, struct slice id)
{
	for (size_t i = st->njobs; i-- > 0;)
		if (strlen(st->jobs[i].id) == id.n && !memcmp(st->jobs[i].id, id.p, id.n))
			return &st->jobs[i];
	return NULL;
}

static void sa_row(struct parse_ctx *ctx, struct sa_state *st, const char *line, size_t n)
{
	struct slice f[SA_MAX_COLS], id, start, end, alloc, usage;
	const char *dot;
	bool over;
	size_t nf = scan_split(line, n, '|', f, SA_MAX_COLS, &over);
	struct sa_job j;

	/* --parsable ends every line with a '|': one empty field more */
	if (nf > 1 && f[nf - 1].n == 0)
		nf--;
	id = field(st, f, nf, C_JOBID);
	if (!id.n) {
		ctx_bad(ctx, 1, "a row with no JobID");
		return;
	}
	usage = field(st, f, nf, C_USAGE);
	dot = memchr(id.p, '.', id.n);
	if (dot) {
		/* a step (123.batch, 123.0): its usage is its job's */
		struct sa_job *parent = job_of(st, (struct slice){ id.p, (size_t)(dot - id.p) });
		if (parent && usage.n)
			tres_usage(usage, &parent->util, &parent->mem);
		return;
	}
	memset(&j, 0, sizeof(j));
	j.line = ctx->line;
	j.util = j.mem = NAN;
	start = field(st, f, nf, C_START);
	end = field(st, f, nf, C_END);
	alloc = field(st, f, nf, C_ALLOC);
	if (no_time(start))
		return;		/* pending or cancelled before it ran: it held no GPU */
	if (time_parse_iso(start.p, start.n, &j.t0_ns)) {
		ctx_bad(ctx, ctx_col(line, start.p), "bad Start time '%.*s'", SA_SHOW(start));
		return;
	}
	if (no_time(end)) {
		j.t1_ns = INT64_MAX;	/* still running */
	} else if (time_parse_iso(end.p, end.n, &j.t1_ns)) {
		ctx_bad(ctx, ctx_col(line, end.p), "bad End time '%.*s'", SA_SHOW(end));
		return;
	} else if (j.t1_ns < j.t0_ns) {
		ctx_bad(ctx, ctx_col(line, end.p), "End '%.*s' is before Start", SA_SHOW(end));
		return;
	}
	j.ngpus = tres_gpus(alloc);
	if (j.ngpus <= 0)
		return;		/* no GPU allocated: nothing of the GPUs' cost is its */
	slice_copy(j.id, sizeof(j.id), id);
	slice_copy(j.user, sizeof(j.user), field(st, f, nf, C_USER));
	slice_copy(j.account, sizeof(j.account), field(st, f, nf, C_ACCOUNT));
	slice_copy(j.nodes, sizeof(j.nodes), field(st, f, nf, C_NODES));
	j.nnodes = nodes_count(field(st, f, nf, C_NODES));
	if (j.nnodes < 1)
		j.nnodes = 1;
	if (usage.n)
		tres_usage(usage, &j.util, &j.mem);
	{
		struct slice admin = field(st, f, nf, C_ADMIN);
		const char *why;
		if (slice_starts_with(admin, "JS1:") && (why = jobstats(admin, &j))) {
			/* the job is still read: only its jobstats summary is not */
			ctx_bad(ctx, ctx_col(line, admin.p), "AdminComment jobstats summary %s; job %s read without it",
				why, j.id);
		}
	}
	ALLOC_GROW(st->jobs, st->njobs + 1, st->alloc);
	st->jobs[st->njobs++] = j;
}

static int job_cmp(const void *a, const void *b)
{
	const struct sa_job *x = a, *y = b;

	if (x->t0_ns != y->t0_ns)
		return x->t0_ns < y->t0_ns ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static uint32_t str_or_none(struct parse_ctx *ctx, const char *s)
{
	return s[0] ? ctx_str(ctx, (struct slice){ s, strlen(s) }) : STR_NONE;
}

static void sa_read(struct parse_ctx *ctx)
{
	struct sa_state *st = ctx->state;
	const char *p = st->doc.buf, *end = p + st->doc.n;
	bool have_header = false;

	for (uint64_t ln = 1; p < end; ln++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		size_t n = (size_t)(le - p);
		if (n && p[n - 1] == '\r')
			n--;
		ctx->line = ln;
		if (n == 0) {
			/* blank */
		} else if (!have_header || slice_starts_with((struct slice){ p, n }, "JobID|")) {
			struct slice f[SA_MAX_COLS];
			bool over;
			size_t nf = scan_split(p, n, '|', f, SA_MAX_COLS, &over);
			have_header = sa_header(st, f, nf);
			if (!have_header) {
				ctx_bad(ctx, 1, "no sacct header (JobID|...) before the first row");
				ctx->out->recs[ctx->out->nr - 1].ev = BAD_FATAL;
				return;
			}
			if (st->col[C_START] < 0 || st->col[C_END] < 0 || st->col[C_ALLOC] < 0) {
				ctx_bad(ctx, 1, "the header lacks %s: sacct --format needs JobID,Start,End,AllocTRES",
					st->col[C_START] < 0 ? "Start" : st->col[C_END] < 0 ? "End" : "AllocTRES");
				ctx->out->recs[ctx->out->nr - 1].ev = BAD_FATAL;
				return;
			}
		} else {
			sa_row(ctx, st, p, n);
		}
		p = nl ? nl + 1 : end;
	}
	if (st->njobs > 1)
		qsort(st->jobs, st->njobs, sizeof(*st->jobs), job_cmp);
	for (size_t i = 0; i < st->njobs; i++) {
		const struct sa_job *j = &st->jobs[i];
		struct rec *r;
		ctx->line = j->line;
		r = ctx_rec(ctx, REC_JOB);
		if (!r)
			return;
		r->t_ns = j->t0_ns;
		r->time_kind = TK_ABS;
		r->job.t1_ns = j->t1_ns;
		r->job.id = str_or_none(ctx, j->id);
		r->job.user = str_or_none(ctx, j->user);
		r->job.account = str_or_none(ctx, j->account);
		r->job.nodes = str_or_none(ctx, j->nodes);
		r->job.ngpus = j->ngpus;
		r->job.nnodes = j->nnodes;
		r->job.gpuutil_pct = j->util;
		r->job.gpumem_mib = j->mem;
		r->job.gpu_mask = j->gpu_mask;
		r->job.energy_j = NAN;
	}
}

static void sa_stream(struct parse_ctx *ctx, const char *p, size_t n, bool last)
{
	struct sa_state *st = ctx->state;

	docbuf_stream(&st->doc, ctx, p, n, last, "sacct output", sa_read);
}

static void sa_fini(void *state)
{
	struct sa_state *st = state;

	docbuf_release(&st->doc);
	free(st->jobs);
	st->jobs = NULL;
}

static int sa_sniff(const char *head, size_t n, const char *name)
{
	struct slice s = { head, n };
	const char *nl = memchr(head, '\n', n);
	struct slice first = { head, nl ? (size_t)(nl - head) : n };

	(void)name;
	if (!slice_starts_with(s, "JobID|"))
		return 0;
	/* the columns this reader needs, in the header */
	if (memmem(first.p, first.n, "|Start", 6) && memmem(first.p, first.n, "|End", 4) &&
	    memmem(first.p, first.n, "AllocTRES", 9))
		return 95;
	return 40;
}

const struct format format_slurm_sacct = {
	.id = "slurm-sacct",
	.summary = "Slurm accounting: sacct --parsable2 with JobID, User, Start, End, NodeList, AllocTRES",
	.detects = "a first line 'JobID|...' naming Start, End and AllocTRES",
	.state_size = sizeof(struct sa_state),
	.sniff = sa_sniff,
	.stream = sa_stream,
	.fini = sa_fini,
};
