/* SPDX-License-Identifier: MIT */
/* nvidia-smi --query-compute-apps=... --format=csv[,noheader][,nounits] logs. */
#include <string.h>

#include "formats/format.h"
#include "formats/smi.h"

/* help_query_apps.txt lists 8 fields; room for what later drivers add */
#define MAX_COLS 32
#define MAX_SPLIT 256

enum role {
	R_IGNORE,	/* unknown, or gpu_name / gpu_bus_id / gpu_serial: not read */
	R_KNOWN,
	R_TIME,
	R_UUID,
	R_INDEX,
	R_PID,
	R_PROC,
	R_MEM,
};

static const struct {
	const char *name;
	uint8_t role;
} fields[] = {
	{ "timestamp", R_TIME },
	{ "gpu_uuid", R_UUID },
	{ "uuid", R_UUID },
	{ "index", R_INDEX },
	{ "pid", R_PID },
	{ "process_name", R_PROC },
	{ "name", R_PROC },
	{ "used_gpu_memory", R_MEM },
	{ "used_memory", R_MEM },
	{ "gpu_name", R_KNOWN },
	{ "gpu_bus_id", R_KNOWN },
	{ "gpu_serial", R_KNOWN },
};

struct apps_state {
	uint32_t ncols;		/* fields a row must have; 0: no column list yet */
	int16_t proc_col;	/* absorbs extra fields (", " in a path); -1 none */
	bool has_time;
	bool has_pid;		/* no pid column: each row is a process, pid unknown */
	uint8_t role[MAX_COLS];
	uint8_t def[MAX_COLS];	/* index into fields[], for messages */
};

static int field_lookup(struct slice name)
{
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (slice_eq(name, fields[i].name))
			return (int)i;
	return -1;
}

static void set_columns(struct apps_state *st, const char *p, size_t n)
{
	const char *end = p + n;
	uint32_t nc = 0;

	memset(st, 0, sizeof(*st));
	st->proc_col = -1;
	for (;;) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		const char *fe = c ? c : end;
		struct slice unit, name = smi_csv_header_name((struct slice){ p, (size_t)(fe - p) },
							      &unit);
		int d = field_lookup(name);
		if (nc < MAX_COLS && d >= 0) {
			st->role[nc] = fields[d].role;
			st->def[nc] = (uint8_t)d;
			if (fields[d].role == R_TIME)
				st->has_time = true;
			if (fields[d].role == R_PID)
				st->has_pid = true;
			if (fields[d].role == R_PROC && st->proc_col < 0)
				st->proc_col = (int16_t)nc;
		}
		nc++;
		if (!c)
			break;
		p = c + 1;
	}
	st->ncols = nc;
}

static void apps_init(void *state, const struct ingest_opts *o)
{
	struct apps_state *st = state;

	st->proc_col = -1;
	if (o && o->columns && o->columns[0])
		set_columns(st, o->columns, strlen(o->columns));
}

/*
 * A compute-apps header names pid, process_name or used_gpu_memory.  *strong:
 * it names process_name or used_gpu_memory, which --query-gpu has no field
 * like ("name" alone is also the GPU's name there).
 */
static bool apps_header(const char *line, size_t n, bool *pid, bool *other, bool *strong)
{
	const char *end;

	*pid = *other = *strong = false;
	if (!smi_csv_is_header(line, n))
		return false;
	smi_csv_skip_bom(&line, &n);
	end = line + n;
	for (;;) {
		const char *c = memchr(line, ',', (size_t)(end - line));
		const char *fe = c ? c : end;
		struct slice unit, name = smi_csv_header_name(
			(struct slice){ line, (size_t)(fe - line) }, &unit);
		int d = field_lookup(name);
		if (d >= 0 && fields[d].role == R_PID)
			*pid = true;
		if (d >= 0 && (fields[d].role == R_PROC || fields[d].role == R_MEM))
			*other = true;
		if (d >= 0 && (fields[d].role == R_MEM || slice_eq(name, "process_name")))
			*strong = true;
		if (slice_starts_with(name, "utilization."))
			return false;	/* --query-gpu */
		if (!c)
			break;
		line = c + 1;
	}
	return *pid || *other;
}

static bool apps_is_context(const char *line, size_t n)
{
	bool pid, other, strong;

	return apps_header(line, n, &pid, &other, &strong);
}

/*
 * An unterminated last row is whole when its last value shows its end: a
 * unit ("512 MiB") or a closed token ("[N/A]").  A path or a bare number may
 * be cut anywhere ("/usr/bin/pyth", "51" of "512"), so such a row is not read.
 */
static bool last_cell_whole(const char *line, size_t n, const uint32_t *start, size_t nf)
{
	struct slice v = smi_csv_field(line, n, start, nf, nf - 1, nf - 1);

	return (v.n > 4 && !memcmp(v.p + v.n - 4, " MiB", 4)) ||
	       (v.n >= 2 && v.p[0] == '[' && v.p[v.n - 1] == ']');
}

static void read_row(struct parse_ctx *ctx, const struct apps_state *st, const char *line,
		     size_t n)
{
	uint32_t start[MAX_SPLIT];
	size_t nf = smi_csv_split(line, n, start, MAX_SPLIT);
	size_t ncols = st->ncols, extra = 0;
	size_t absorb = st->proc_col < 0 ? SIZE_MAX : (size_t)st->proc_col;
	struct slice uuid = { NULL, 0 }, proc = { NULL, 0 };
	uint8_t status = 0;
	struct rec r;

	/* split from the left up to process_name and from the right after it */
	if (nf > ncols && absorb != SIZE_MAX && nf <= MAX_SPLIT)
		extra = nf - ncols;
	if (nf != ncols + extra) {
		smi_csv_bad_count(ctx, line, n, start, MAX_SPLIT, nf, ncols);
		return;
	}

	memset(&r, 0, sizeof(r));
	r.kind = REC_PROC;
	r.gpu_index = -1;
	/* -1 says "no process" (pmon's "-" row); a file without a pid column
	 * still lists one process a row, its pid unknown (-2, as "[Not Supported]") */
	r.pid = st->has_pid ? -1 : -2;
	r.time_kind = st->has_time ? TK_ABS : TK_NONE;
	for (size_t i = 0; i < ncols && i < MAX_COLS; i++) {
		size_t first = i <= absorb ? i : i + extra;
		size_t last = i == absorb ? i + extra : first;
		struct slice v;
		int64_t iv;

		if (st->role[i] == R_IGNORE || st->role[i] == R_KNOWN)
			continue;
		v = smi_csv_field(line, n, start, nf, first, last);
		switch (st->role[i]) {
		case R_TIME:
			if (!smi_csv_time(v, &r.t_ns))
				continue;
			ctx_bad(ctx, ctx_col(line, v.p), "bad timestamp '%.*s'", fmt_quote_len(v), v.p);
			return;
		case R_UUID:
			if (!smi_missing_token(v, &status))
				uuid = v;
			continue;
		case R_PROC:
			if (!smi_missing_token(v, &status))
				proc = v;
			continue;
		case R_INDEX:
			if (!slice_to_i64(v, &iv) && iv >= 0 && iv <= INT32_MAX) {
				r.gpu_index = (int32_t)iv;
				continue;
			}
			if (smi_missing_token(v, &status))
				continue;
			break;
		case R_PID:
			if (!slice_to_i64(v, &iv) && iv >= 0) {
				r.pid = iv;
				continue;
			}
			/* "[Not Supported]" under WDDM and in some containers */
			if (smi_missing_token(v, &status)) {
				r.pid = -2;
				continue;
			}
			break;
		case R_MEM:
			if (smi_csv_number(v, "MiB", &r.v[2])) {
				r.present |= PF_FB;
				continue;
			}
			if (smi_missing_token(v, &status))
				continue;
			break;
		}
		ctx_bad(ctx, ctx_col(line, v.p), "bad value '%.*s' in %s", fmt_quote_len(v), v.p,
			fields[st->def[i]].name);
		return;
	}

	if (ctx->last_line_partial && !last_cell_whole(line, n, start, nf)) {
		ctx_bad(ctx, 0, "line cut short: no newline at the end of the input, and its "
			"last value may be cut");
		return;
	}
	smi_csv_emit(ctx, &r, uuid, proc);
}

static void apps_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	struct apps_state *st = ctx->state;

	smi_csv_skip_bom(&line, &n);
	if (!n)
		return;
	if (line[0] >= 'a' && line[0] <= 'z' && apps_is_context(line, n)) {
		set_columns(st, line, n);
		/* help_query_apps.txt has 8 fields: a wider header is said, not cut quietly */
		if (st->ncols > MAX_COLS && !ctx->replay)
			ctx_bad(ctx, 0, "header has %u fields; fields past %d are not read",
				st->ncols, MAX_COLS);
		return;
	}
	if (smi_csv_row_ok(ctx, line, n, st->ncols, "--query-compute-apps"))
		read_row(ctx, st, line, n);
}

static int apps_sniff(const char *head, size_t n, const char *fname)
{
	const char *nl;
	bool pid, other, strong;

	(void)fname;
	smi_csv_skip_bom(&head, &n);
	/* a "WARNING: ..." line can come before the header */
	for (int i = 0; i < 3 && n >= 8 && !memcmp(head, "WARNING:", 8); i++) {
		nl = memchr(head, '\n', n);
		if (!nl)
			return 0;
		n -= (size_t)(nl + 1 - head);
		head = nl + 1;
	}
	nl = memchr(head, '\n', n);
	if (nl)
		n = (size_t)(nl - head);
	if (n && head[n - 1] == '\r')
		n--;
	/* "--query-compute-apps=gpu_uuid,name" prints "gpu_uuid, process_name":
	 * processes whose pid is unknown (formats.md 11.8), not GPU samples */
	if (apps_header(head, n, &pid, &other, &strong) && ((pid && other) || strong))
		return 92;
	return 0;
}

const struct format format_smi_apps = {
	.id = "smi-apps",
	.summary = "nvidia-smi --query-compute-apps=... --format=csv logs (processes per GPU)",
	.detects = "a CSV header with pid and process_name or used_gpu_memory",
	.state_size = sizeof(struct apps_state),
	.sniff = apps_sniff,
	.init = apps_init,
	.is_context = apps_is_context,
	.context_first = "abcdefghijklmnopqrstuvwxyz\xEF",
	.line = apps_line,
	.columns_fit = smi_apps_columns_fit,
};
