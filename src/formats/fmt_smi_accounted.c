/* SPDX-License-Identifier: MIT */
/*
 * nvidia-smi --query-accounted-apps=... --format=csv (accounting mode;
 * docs/formats/smi-accounted.md): per process its GPU utilization over its
 * life so far, memory and active time.  With a timestamp column (and -l N)
 * each row is a process seen at that time, its utilization the weight of
 * its share of the GPU; accounting keeps processes after they exit, so a
 * row whose is_running is 0 is passed over.
 */
#include <string.h>

#include "formats/format.h"
#include "formats/smi.h"

#define SA_MAX_COLS 32
#define SA_MAX_SPLIT 64

enum acc_role { A_IGNORE, A_TIME, A_UUID, A_PID, A_UTIL, A_MEMU, A_MEM, A_RUN };

static const struct {
	const char *name;
	uint8_t role;
} acc_fields[] = {
	{ "timestamp", A_TIME }, { "gpu_uuid", A_UUID }, { "pid", A_PID },
	{ "gpu_utilization", A_UTIL }, { "gpu_util", A_UTIL }, { "mem_utilization", A_MEMU },
	{ "mem_util", A_MEMU }, { "max_memory_usage", A_MEM }, { "is_running", A_RUN },
};

struct acc_state {
	uint32_t ncols;		/* 0: no header yet */
	bool has_time, has_pid, refused;
	uint8_t role[SA_MAX_COLS];
};

/* The header's role for each column; true when it is an accounted-apps header. */
static bool acc_header(struct acc_state *st, const char *line, size_t n)
{
	const char *p = line, *end = line + n;
	bool util = false, pid = false;
	uint32_t nc = 0;

	smi_csv_skip_bom(&p, &n);
	end = p + n;
	memset(st->role, 0, sizeof(st->role));
	st->has_time = false;
	for (;;) {
		const char *c = memchr(p, ',', (size_t)(end - p)), *fe = c ? c : end;
		struct slice unit, name = smi_csv_header_name((struct slice){ p, (size_t)(fe - p) }, &unit);
		uint8_t role = A_IGNORE;
		for (size_t k = 0; k < sizeof(acc_fields) / sizeof(acc_fields[0]); k++)
			if (slice_eq(name, acc_fields[k].name))
				role = acc_fields[k].role;
		if (nc < SA_MAX_COLS)
			st->role[nc] = role;
		util |= role == A_UTIL;
		pid |= role == A_PID;
		st->has_time |= role == A_TIME;
		nc++;
		if (!c)
			break;
		p = c + 1;
	}
	st->ncols = nc;
	st->has_pid = pid;
	return pid && util;
}

static bool acc_is_context(const char *line, size_t n)
{
	struct acc_state st;

	return acc_header(&st, line, n);
}

static void acc_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	struct acc_state *st = ctx->state;
	uint32_t start[SA_MAX_SPLIT];
	size_t nf;
	struct slice uuid = { NULL, 0 };
	uint8_t status = 0;
	bool running = true;
	struct rec r;

	if (n && (line[0] == 't' || line[0] == 'p' || line[0] == 'g' || line[0] == '\xef') &&
	    acc_header(st, line, n)) {
		if (!st->has_time && !ctx->replay) {
			/* accounting keeps exited processes: a row without a
			 * time says nothing of when the process ran */
			ctx_bad(ctx, 1, "no timestamp column: accounted processes cannot be placed in time "
				"(add timestamp to --query-accounted-apps)");
			ctx->out->recs[ctx->out->nr - 1].ev = BAD_FATAL;
			st->refused = true;
		}
		return;
	}
	if (ctx->replay || st->refused)
		return;
	if (!smi_csv_row_ok(ctx, line, n, st->ncols, "--query-accounted-apps"))
		return;
	nf = smi_csv_split(line, n, start, SA_MAX_SPLIT);
	if (nf != st->ncols) {
		smi_csv_bad_count(ctx, line, n, start, SA_MAX_SPLIT, nf, st->ncols);
		return;
	}
	memset(&r, 0, sizeof(r));
	r.kind = REC_PROC;
	r.gpu_index = -1;
	r.pid = -2;
	r.time_kind = TK_ABS;
	for (size_t i = 0; i < nf && i < SA_MAX_COLS; i++) {
		struct slice v = smi_csv_field(line, n, start, nf, i, i);
		double x;
		int64_t iv;
		switch (st->role[i]) {
		case A_TIME:
			if (smi_csv_time(v, &r.t_ns)) {
				ctx_bad(ctx, ctx_col(line, v.p), "bad timestamp '%.*s'", (int)(v.n > 40 ? 40 : v.n), v.p);
				return;
			}
			break;
		case A_UUID:
			if (!smi_missing_token(v, &status))
				uuid = v;
			break;
		case A_PID:
			if (slice_to_i64(v, &iv) || iv < 0) {
				ctx_bad(ctx, ctx_col(line, v.p), "bad pid '%.*s'", (int)(v.n > 40 ? 40 : v.n), v.p);
				return;
			}
			r.pid = iv;
			break;
		case A_UTIL:
		case A_MEMU:
		case A_MEM:
			if (smi_missing_token(v, &status))
				break;
			if (!smi_csv_number(v, st->role[i] == A_MEM ? "MiB" : "%", &x) || x < 0) {
				ctx_bad(ctx, ctx_col(line, v.p), "bad number '%.*s'", (int)(v.n > 40 ? 40 : v.n), v.p);
				return;
			}
			if (st->role[i] == A_UTIL) {
				r.v[0] = x;
				r.present |= PF_SM;
			} else if (st->role[i] == A_MEMU) {
				r.v[1] = x;
				r.present |= PF_MEM;
			} else {
				r.v[2] = x;
				r.present |= PF_FB;
			}
			break;
		case A_RUN:
			running = !slice_eq(v, "0");
			break;
		default:
			break;
		}
	}
	if (!running)
		return;		/* accounting's record of a process that has exited: not on the GPU now */
	smi_csv_emit(ctx, &r, uuid, (struct slice){ NULL, 0 });
}

static int acc_sniff(const char *head, size_t n, const char *name)
{
	const char *nl = memchr(head, '\n', n);
	struct acc_state st;

	(void)name;
	if (!acc_header(&st, head, nl ? (size_t)(nl - head) : n))
		return 0;
	/* "gpu_utilization" beside "pid": no --query-gpu header has a pid (smi-query
	 * would read gpu_utilization as utilization.gpu, at 90) */
	return 95;
}

const struct format format_smi_accounted = {
	.id = "smi-accounted",
	.summary = "nvidia-smi --query-accounted-apps=... --format=csv (accounting mode), with timestamp",
	.detects = "a CSV header naming pid and gpu_utilization (or gpu_util)",
	.state_size = sizeof(struct acc_state),
	.sniff = acc_sniff,
	.is_context = acc_is_context,
	.context_first = "tpg\xef",
	.line = acc_line,
};
