/* SPDX-License-Identifier: MIT */
/* The CSV of the widely copied gpu_monitor.sh bash logger (time,task_id,gpu_id,...). */
#include "formats/format.h"

#include <string.h>

#include "util/timeutil.h"

#define GM_MAX_COLS 64
/* A field quoted in a message, cut to a readable length. */
#define GM_SHOW(s) (int)((s).n > 40 ? 40 : (s).n), (s).p

/* What a column holds: an enum metric (>= 0) or one of these. */
enum gm_role {
	R_IGNORE = -1,
	R_TIME = -2,
	R_TASK = -3,
	R_GPU = -4,
	R_NAME = -5,
};

/* The logger's own column order: also the layout assumed before any header. */
static const struct {
	const char *name;
	int8_t role;
} gm_columns[] = {
	{ "time", R_TIME },
	{ "task_id", R_TASK },
	{ "gpu_id", R_GPU },
	{ "gpu_name", R_NAME },
	{ "utilization_percent", M_UTIL_GPU },
	{ "memory_used_mib", M_MEM_USED },
	{ "memory_total_mib", M_MEM_TOTAL },
	{ "power_draw_w", M_POWER },
	{ "temperature_c", M_TEMP },
	{ "sm_clock_mhz", M_SM_CLOCK },
	{ "mem_clock_mhz", M_MEM_CLOCK },
};
#define GM_NCOLUMNS (sizeof(gm_columns) / sizeof(gm_columns[0]))

struct gm_state {
	int ncols;
	int8_t role[GM_MAX_COLS];
	uint8_t known[GM_MAX_COLS];	/* index into gm_columns, for messages */
};

static int gm_lookup(struct slice name)
{
	name = slice_trim(name);
	for (size_t i = 0; i < GM_NCOLUMNS; i++)
		if (slice_eq_nocase(name, gm_columns[i].name))
			return (int)i;
	return -1;
}

static bool gm_is_letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* A header starts with a letter (rows start with a date) and names a known column. */
static bool gm_is_header(const char *line, size_t n)
{
	const char *p = line, *end = line + n;

	scan_skip_space(&p, end);
	if (p == end || !gm_is_letter(*p))
		return false;
	while (p < end) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		const char *fe = c ? c : end;
		if (gm_lookup((struct slice){ p, (size_t)(fe - p) }) >= 0)
			return true;
		p = c ? c + 1 : end;
	}
	return false;
}

static void gm_set_default(struct gm_state *st)
{
	st->ncols = (int)GM_NCOLUMNS;
	for (size_t i = 0; i < GM_NCOLUMNS; i++) {
		st->role[i] = gm_columns[i].role;
		st->known[i] = (uint8_t)i;
	}
}

static void gm_init(void *state, const struct ingest_opts *o)
{
	(void)o;
	gm_set_default(state);
}

static void gm_header(struct parse_ctx *ctx, const struct slice *f, size_t nf)
{
	struct gm_state *st = ctx->state;
	bool seen[GM_NCOLUMNS] = { false };

	st->ncols = (int)nf;
	for (size_t i = 0; i < nf; i++) {
		int k = gm_lookup(f[i]);
		/* a repeated column name: the first one wins */
		if (k < 0 || seen[k]) {
			st->role[i] = R_IGNORE;
			continue;
		}
		seen[k] = true;
		st->role[i] = gm_columns[k].role;
		st->known[i] = (uint8_t)k;
	}
}

/* "ERROR", "ERROR: text" or "ERROR text" in a field marks a failed nvidia-smi call. */
static bool gm_is_error_field(struct slice s)
{
	s = slice_trim(s);
	if (!slice_starts_with(s, "ERROR"))
		return false;
	return s.n == 5 || s.p[5] == ':' || s.p[5] == ' ';
}

/*
 * Local "YYYY-MM-DD HH:MM:SS", or with the offset date's %z adds after a
 * space ("2026-11-29 22:46:33 +0800", article 004), +08:00 or Z.  Years far from now are refused here because
 * nanoseconds since 1970 only reach the years 1677 to 2262.
 */
static int gm_time(struct slice s, int64_t *t_ns)
{
	const char *p = s.p;
	int y;

	if (scan_fixed_digits(&p, s.p + s.n, 4, &y) || y < 1900 || y > 2200)
		return -1;
	return time_parse_iso(s.p, s.n, t_ns) ? -1 : 0;
}

/* A stamp with its own offset (or Z) after the seconds: UTC whatever --tz says. */
static bool gm_zoned(struct slice s)
{
	for (size_t i = 19; i < s.n; i++)
		if (s.p[i] == '+' || s.p[i] == '-' || s.p[i] == 'Z')
			return true;
	return false;
}

static int gm_gpu_index(struct slice s, int32_t *gpu)
{
	int64_t v;

	if (slice_to_i64(s, &v) || v < 0 || v > INT32_MAX)
		return -1;
	*gpu = (int32_t)v;
	return 0;
}

static void gm_error_row(struct parse_ctx *ctx, const struct slice *f, size_t nf, size_t first_err,
			 const char *end)
{
	const struct gm_state *st = ctx->state;
	int64_t t_ns = INT64_MIN;	/* unknown: the driver uses the previous time */
	enum time_kind tk = TK_ABS;
	int32_t gpu = -1;
	bool have_time = false;
	struct slice msg;

	for (size_t i = 0; i < nf && (int)i < st->ncols; i++) {
		struct slice v = slice_trim(f[i]);
		if (st->role[i] == R_TIME) {
			have_time = true;
			if (gm_time(v, &t_ns))
				t_ns = INT64_MIN;
		} else if (st->role[i] == R_GPU) {
			gm_gpu_index(v, &gpu);
		}
	}
	if (!have_time) {
		tk = TK_NONE;
		t_ns = 0;
	}
	msg = slice_trim((struct slice){ f[first_err].p, (size_t)(end - f[first_err].p) });
	ctx_event(ctx, EV_ERROR_ROW, t_ns, tk, gpu, "gpu_monitor.sh ERROR row: %.*s",
		  (int)(msg.n > 200 ? 200 : msg.n), msg.p);
}

static void gm_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	struct gm_state *st = ctx->state;
	const char *end = line + n;
	struct slice f[GM_MAX_COLS], name = { NULL, 0 }, task = { NULL, 0 };
	double v[M__COUNT];
	uint32_t present = 0;
	uint8_t status = 0;
	int64_t t_ns = 0;
	enum time_kind tk = TK_NONE;
	int32_t gpu = -1;
	bool overflow;
	size_t nf;
	struct rec *r;

	/* the logger never quotes (it strips the spaces from the name) */
	nf = scan_split(line, n, ',', f, GM_MAX_COLS, &overflow);
	if (gm_is_header(line, n)) {
		gm_header(ctx, f, nf);
		return;
	}
	if (ctx->replay)
		return;

	for (size_t i = 0; i < nf; i++) {
		int role = (int)i < st->ncols ? st->role[i] : R_IGNORE;
		if (role != R_TIME && role != R_TASK && gm_is_error_field(f[i])) {
			gm_error_row(ctx, f, nf, i, end);
			return;
		}
	}
	if (overflow || (int)nf != st->ncols) {
		const char *cut = ctx->last_line_partial ? "line cut short: " : "";
		if ((int)nf > st->ncols)
			ctx_bad(ctx, ctx_col(line, f[st->ncols].p),
				"%sexpected %d fields, got %s%zu", cut, st->ncols,
				overflow ? "more than " : "", nf);
		else
			ctx_bad(ctx, ctx_col(line, end), "%sexpected %d fields, got %zu", cut,
				st->ncols, nf);
		return;
	}

	for (size_t i = 0; i < nf; i++) {
		struct slice s = slice_trim(f[i]);
		int role = st->role[i];
		const char *cname = gm_columns[st->known[i]].name;

		switch (role) {
		case R_IGNORE:
			break;
		case R_TASK:
			if (!smi_missing_token(s, &(uint8_t){ 0 }))
				task = s;
			break;
		case R_TIME:
			if (gm_time(s, &t_ns)) {
				ctx_bad(ctx, ctx_col(line, s.p), "bad time '%.*s' in column %s",
					GM_SHOW(s), cname);
				return;
			}
			tk = TK_ABS;
			if (!ctx->out->time_basis && gm_zoned(s))
				ctx->out->time_basis = "timestamps in the file (with their UTC offset)";
			break;
		case R_GPU:
			/* numbers first: the token table is the rare path */
			if (!gm_gpu_index(s, &gpu) || smi_missing_token(s, &status))
				break;
			ctx_bad(ctx, ctx_col(line, s.p), "bad GPU index '%.*s' in column %s",
				GM_SHOW(s), cname);
			return;
		case R_NAME:
			if (!smi_missing_token(s, &status))
				name = s;
			break;
		default:
			if (!slice_to_double(s, &v[role])) {
				present |= 1u << role;
				break;
			}
			if (smi_missing_token(s, &status))
				break;
			ctx_bad(ctx, ctx_col(line, s.p), "bad number '%.*s' in column %s",
				GM_SHOW(s), cname);
			return;
		}
	}

	r = ctx_rec(ctx, REC_SAMPLE);
	if (!r)
		return;
	r->t_ns = t_ns;
	r->time_kind = (uint8_t)tk;
	r->gpu_index = gpu;
	r->status = status;
	r->present = present;
	for (int m = 0; m < M__COUNT; m++)
		if (present & (1u << m))
			r->v[m] = v[m];
	if (name.n)
		r->name = ctx_str(ctx, name);
	/* the task label: the row's GPU time is the task's (PID_TASK) */
	if (!task.n || gpu < 0)
		return;
	r = ctx_rec(ctx, REC_PROC);
	if (!r)
		return;
	r->t_ns = t_ns;
	r->time_kind = (uint8_t)tk;
	r->gpu_index = gpu;
	r->pid = PID_TASK;
	r->present = 0;
	r->name = ctx_str(ctx, task);
}

static int gm_sniff(const char *head, size_t n, const char *name)
{
	const char *end = head + n, *nl;
	struct slice first;
	bool has_util = false, has_gpu = false;

	(void)name;
	if (n >= 3 && !memcmp(head, "\xEF\xBB\xBF", 3))
		head += 3;
	nl = memchr(head, '\n', (size_t)(end - head));
	first = (struct slice){ head, (size_t)((nl ? nl : end) - head) };
	if (slice_starts_with(first, "time,task_id,gpu_id"))
		return 95;
	for (const char *p = first.p, *fe = first.p + first.n; p < fe;) {
		const char *c = memchr(p, ',', (size_t)(fe - p));
		struct slice col = slice_trim((struct slice){ p, (size_t)((c ? c : fe) - p) });
		if (slice_eq(col, "utilization_percent"))
			has_util = true;
		else if (slice_eq(col, "gpu_id"))
			has_gpu = true;
		p = c ? c + 1 : fe;
	}
	return has_util && has_gpu ? 95 : 0;
}

const struct format format_gpu_monitor = {
	.id = "gpu-monitor",
	.summary = "CSV from the gpu_monitor.sh bash logger (time,task_id,gpu_id,gpu_name,...)",
	.detects = "a first line starting time,task_id,gpu_id, or with gpu_id and utilization_percent",
	.state_size = sizeof(struct gm_state),
	.sniff = gm_sniff,
	.init = gm_init,
	.is_context = gm_is_header,
	.context_first = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
	.line = gm_line,
};
