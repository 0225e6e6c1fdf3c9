/* SPDX-License-Identifier: MIT */
/*
 * rocm-smi's --showpids and --showpidgpus sections (rocm_kfd.h).
 *
 * A KFD row is whitespace apart (tabs as printed, spaces where a terminal
 * or a paste expanded them): the pid first, then the process name (which
 * may hold spaces), then four values: GPU(s), VRAM USED (bytes), SDMA USED
 * and CU OCCUPANCY; "UNKNOWN" is printed where the library could not say.
 * A process counted on 0 GPUs holds /dev/kfd on none (ROCm/ROCm issue
 * 4411's kfd_open): it is on no GPU's timeline.  VRAM USED is the process's
 * total over its GPUs, so it is taken only for a process on one GPU.
 */
#include "formats/rocm_kfd.h"

#include <string.h>

enum { S_NONE, S_KFD, S_GPUS };

#define MAX_TOK 64

void rocm_kfd_reset(struct rocm_kfd *k)
{
	memset(k, 0, sizeof(*k));
	k->list_pid = -1;
}

/*
 * One run's process records in GPU order: --showpidgpus lists them by pid,
 * and a GPU index that falls would start a new tick (ticks.h), though the
 * run is one instant.  Only the REC_PROC records move, among their own
 * places, in a stable order; the pid table is pointed at them again.
 */
static void settle(struct parse_ctx *ctx, struct rocm_kfd *k)
{
	struct batch *b = ctx->out;
	size_t from = k->run_start <= b->nr ? k->run_start : b->nr;

	for (size_t i = from + 1; i < b->nr; i++) {
		struct rec r = b->recs[i];
		size_t j = i;
		if (r.kind != REC_PROC)
			continue;
		/* insertion among the REC_PROC places before i */
		for (;;) {
			size_t q = j;
			while (q > from && b->recs[q - 1].kind != REC_PROC)
				q--;
			if (q == from || b->recs[q - 1].gpu_index <= r.gpu_index)
				break;
			b->recs[j] = b->recs[q - 1];
			j = q - 1;
		}
		b->recs[j] = r;
	}
	for (uint32_t e = 0; e < k->npid; e++)
		for (size_t i = from; i < b->nr; i++)
			if (b->recs[i].kind == REC_PROC && b->recs[i].pid == k->p[e].pid) {
				k->p[e].rec = (uint32_t)(i + 1);
				break;
			}
}

void rocm_kfd_banner(struct parse_ctx *ctx, struct rocm_kfd *k, struct slice s)
{
	bool start = memmem(s.p, s.n, "ROCm System Management Interface", 32) != NULL;

	k->list_pid = -1;
	k->header = false;
	if (memmem(s.p, s.n, "KFD Processes", 13))
		k->sect = S_KFD;
	else if (memmem(s.p, s.n, "GPUs Indexed by PID", 19))
		k->sect = S_GPUS;
	else
		k->sect = S_NONE;
	if (start || memmem(s.p, s.n, "End of ROCm SMI Log", 19))
		settle(ctx, k);
	/* a new run of rocm-smi: its processes are its own */
	if (start) {
		k->npid = 0;
		k->run_start = ctx->out->nr;
	}
}

static int find_pid(const struct rocm_kfd *k, int64_t pid)
{
	for (uint32_t i = 0; i < k->npid; i++)
		if (k->p[i].pid == pid)
			return (int)i;
	return -1;
}

static int add_pid(struct rocm_kfd *k, int64_t pid, size_t rec)
{
	if (k->npid >= ROCM_KFD_PIDS)
		return -1;	/* records are still made; only the pairing stops */
	memset(&k->p[k->npid], 0, sizeof(k->p[0]));
	k->p[k->npid].pid = pid;
	k->p[k->npid].rec = (uint32_t)rec;
	return (int)k->npid++;
}

static struct rec *new_proc(struct parse_ctx *ctx, int64_t pid, int32_t gpu, int64_t t_ns,
			    uint8_t time_kind)
{
	struct rec *r = ctx_rec(ctx, REC_PROC);

	if (!r)
		return NULL;
	r->t_ns = t_ns;
	r->time_kind = time_kind;
	r->gpu_index = gpu;
	r->pid = pid;
	r->present = 0;
	return r;
}

/* The records of pid e in the batch, from its first: [*first, *end). */
static struct rec *pid_recs(struct parse_ctx *ctx, const struct rocm_kfd *k, int e,
			    struct rec **end)
{
	*end = ctx->out->recs + ctx->out->nr;
	if (!k->p[e].rec || k->p[e].rec > ctx->out->nr)
		return *end;
	return &ctx->out->recs[k->p[e].rec - 1];
}

static void kfd_row(struct parse_ctx *ctx, struct rocm_kfd *k, const char *line, struct slice s,
		    int64_t t_ns, uint8_t time_kind)
{
	struct slice t[MAX_TOK];
	size_t nt = scan_tokens(s, t, MAX_TOK);
	struct slice name, gpus, vram;
	int64_t pid, count = 0, bytes = -1;
	uint8_t st = 0;
	struct rec *r;
	int e;

	if (nt < 6) {
		ctx_bad(ctx, ctx_col(line, s.p),
			"%s%zu value(s) where a KFD process row has 6 (PID, PROCESS NAME, GPU(s), "
			"VRAM USED, SDMA USED, CU OCCUPANCY)",
			ctx->last_line_partial ? "line cut short: " : "", nt);
		return;
	}
	gpus = t[nt - 4];
	vram = t[nt - 3];
	name = (struct slice){ t[1].p, (size_t)(t[nt - 5].p + t[nt - 5].n - t[1].p) };
	if (slice_to_i64(t[0], &pid) || pid < 0) {
		ctx_bad(ctx, ctx_col(line, t[0].p), "\"%.*s\" is not a process id",
			fmt_quote_len(t[0]), t[0].p);
		return;
	}
	if (!slice_eq(gpus, "UNKNOWN") && !smi_missing_token(gpus, &st) &&
	    (slice_to_i64(gpus, &count) || count < 0 || count > 65535)) {
		ctx_bad(ctx, ctx_col(line, gpus.p), "\"%.*s\" is not a count of GPUs",
			fmt_quote_len(gpus), gpus.p);
		return;
	}
	if (!slice_eq(vram, "UNKNOWN") && !smi_missing_token(vram, &st) &&
	    (slice_to_i64(vram, &bytes) || bytes < 0)) {
		ctx_bad(ctx, ctx_col(line, vram.p), "VRAM USED \"%.*s\" is not a number of bytes",
			fmt_quote_len(vram), vram.p);
		return;
	}
	if (slice_eq(gpus, "0"))
		return;	/* /dev/kfd held on no GPU */
	if (slice_eq(name, "UNKNOWN"))
		name.n = 0;
	e = find_pid(k, pid);
	if (e >= 0 && k->p[e].kfd)
		return;	/* --showpids details: one row per GPU, which it does not name */
	if (e >= 0) {
		/* its GPUs came first (--showpidgpus above): name them */
		uint32_t nm = name.n ? ctx_str(ctx, name) : STR_NONE;
		k->p[e].kfd = true;
		k->p[e].count = (uint32_t)count;
		struct rec *q, *end;
		for (q = pid_recs(ctx, k, e, &end); q < end; q++) {
			if (q->kind != REC_PROC || q->pid != pid)
				continue;
			q->name = nm;
			if (bytes >= 0 && count == 1 && k->p[e].ngpu == 1) {
				q->v[2] = (double)bytes / 1048576.0;
				q->present |= PF_FB;
			}
		}
		return;
	}
	if (!(r = new_proc(ctx, pid, -1, t_ns, time_kind)))
		return;
	r->name = name.n ? ctx_str(ctx, name) : STR_NONE;
	if (bytes >= 0 && count == 1) {
		r->v[2] = (double)bytes / 1048576.0;
		r->present |= PF_FB;
	}
	if ((e = add_pid(k, pid, ctx->out->nr)) >= 0) {
		k->p[e].kfd = true;
		k->p[e].count = (uint32_t)count;
	}
}

/* One GPU index of the list under "PID N is using K DRM device(s):". */
static void list_gpu(struct parse_ctx *ctx, struct rocm_kfd *k, int64_t idx, int64_t t_ns,
		     uint8_t time_kind)
{
	int e = find_pid(k, k->list_pid);
	struct rec *r;

	if (e < 0) {
		if (!(r = new_proc(ctx, k->list_pid, (int32_t)idx, t_ns, time_kind)))
			return;
		if ((e = add_pid(k, k->list_pid, ctx->out->nr)) >= 0)
			k->p[e].ngpu = 1;
		return;
	}
	if (!k->p[e].rec || k->p[e].rec > ctx->out->nr)
		return;
	r = &ctx->out->recs[k->p[e].rec - 1];
	if (k->p[e].ngpu++ == 0) {
		r->gpu_index = (int32_t)idx;
	} else {
		struct rec copy = *r;
		struct rec *o = ctx_rec(ctx, REC_PROC);
		if (!o)
			return;
		copy.line = ctx->line;
		copy.gpu_index = (int32_t)idx;
		*o = copy;
	}
	if (k->list_want > 1) {	/* VRAM USED is the sum over its GPUs */
		struct rec *q, *end;
		for (q = pid_recs(ctx, k, e, &end); q < end; q++)
			if (q->kind == REC_PROC && q->pid == k->list_pid)
				q->present &= ~(uint32_t)PF_FB;
	}
}

static bool pid_line(struct parse_ctx *ctx, struct rocm_kfd *k, const char *line, struct slice s)
{
	static const char using[] = " is using ";
	const char *u = memmem(s.p, s.n, using, sizeof(using) - 1);
	struct slice ps, ks;
	const char *sp;
	int64_t pid, want;

	if (!u || !memmem(s.p, s.n, "DRM device", 10))
		return false;
	ps = slice_trim((struct slice){ s.p + 4, (size_t)(u - s.p - 4) });
	ks.p = u + sizeof(using) - 1;
	sp = memchr(ks.p, ' ', (size_t)(s.p + s.n - ks.p));
	ks.n = sp ? (size_t)(sp - ks.p) : 0;
	k->list_pid = -1;
	k->sect = S_GPUS;
	if (slice_to_i64(ps, &pid) || pid < 0) {
		ctx_bad(ctx, ctx_col(line, ps.p), "\"%.*s\" is not a process id", fmt_quote_len(ps),
			ps.p);
		return true;
	}
	if (slice_to_i64(ks, &want) || want < 0 || want > 65535) {
		ctx_bad(ctx, ctx_col(line, ks.p), "\"%.*s\" is not a count of DRM devices",
			fmt_quote_len(ks), ks.p);
		return true;
	}
	k->list_pid = pid;
	k->list_want = (uint32_t)want;
	k->list_got = 0;
	return true;
}

bool rocm_kfd_line(struct parse_ctx *ctx, struct rocm_kfd *k, const char *line, struct slice s,
		   int64_t t_ns, uint8_t time_kind)
{
	if (slice_starts_with(s, "KFD process information")) {
		k->sect = S_KFD;
		k->header = false;
		return true;
	}
	if (slice_eq(s, "No KFD PIDs currently running"))
		return true;
	if (slice_starts_with(s, "PID ") && pid_line(ctx, k, line, s))
		return true;
	if (k->sect == S_GPUS && k->list_pid >= 0 && s.p[0] >= '0' && s.p[0] <= '9') {
		struct slice t[MAX_TOK];
		size_t nt = scan_tokens(s, t, MAX_TOK);
		for (size_t i = 0; i < nt; i++) {
			int64_t idx;
			if (slice_to_i64(t[i], &idx) || idx < 0 || idx > 65535) {
				ctx_bad(ctx, ctx_col(line, t[i].p), "\"%.*s\" is not a GPU index",
					fmt_quote_len(t[i]), t[i].p);
				continue;
			}
			if (++k->list_got > k->list_want) {
				ctx_bad(ctx, ctx_col(line, t[i].p),
					"GPU %lld: more GPUs than the %u that PID %lld is using",
					(long long)idx, k->list_want, (long long)k->list_pid);
				continue;
			}
			list_gpu(ctx, k, idx, t_ns, time_kind);
		}
		return true;
	}
	if (k->sect != S_KFD)
		return false;
	/* ROCm 5/6.0: "get_compute_process_info_by_pid, Not supported on the
	 * given system" once per process, above the table: the library's
	 * notice, the rows then say UNKNOWN */
	if (memmem(s.p, s.n, ", Not supported", 15))
		return true;
	if (!k->header) {
		if (slice_starts_with(s, "PID") && memmem(s.p, s.n, "PROCESS NAME", 12)) {
			k->header = true;
			return true;
		}
		return false;
	}
	kfd_row(ctx, k, line, s, t_ns, time_kind);
	return true;
}
