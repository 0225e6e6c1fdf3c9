/* SPDX-License-Identifier: MIT */
/*
 * gpustat's text output (docs/formats/gpustat.md): one snapshot, or a
 * `gpustat -i N` / `watch gpustat` loop.  Each snapshot is a header line
 * (host name, the query time in the C locale's date format or
 * "YYYY-MM-DD HH:MM:SS", the driver version) and one line per GPU:
 *
 *   [0] GeForce GTX TITAN 0 | 80°C,  16 %,  76 % (E:  88 %  D:  67 %),  125 / 250 W |  8000 / 12287 MB | user1:python/48448(4000M)
 *
 * cells split on " | ": index and name; temperature, fan (with --show-fan),
 * utilization (with the codec share in parentheses), power / limit (with
 * --show-power); memory used / total (gpustat's MB are MiB); and the
 * processes, each "[user][:command][/pid](MEMM)" as -u, -c, -p chose.
 * "??" is unknown.  The process tree lines of --show-full-cmd are skipped.
 */
#include "formats/format.h"

#include <stdio.h>
#include <string.h>

#include "formats/smi.h"
#include "util/timeutil.h"

#define MAX_TOK 64

struct gpustat {
	bool has_time;
	int64_t t_ns;
};

/* Cut s at each " | "; returns the number of cells. */
static size_t cells(struct slice s, struct slice *c, size_t cap)
{
	const char *p = s.p, *end = s.p + s.n;
	size_t n = 0;

	while (n < cap) {
		const char *bar = memmem(p, (size_t)(end - p), " | ", 3);
		const char *ce = bar ? bar : end;
		c[n++] = slice_trim((struct slice){ p, (size_t)(ce - p) });
		if (!bar)
			break;
		p = bar + 3;
	}
	return n;
}

static bool slice_eq_slice(struct slice a, struct slice b)
{
	return a.n == b.n && !memcmp(a.p, b.p, a.n);
}

static bool unknown(struct slice v)
{
	return slice_eq(v, "??") || slice_eq(v, "?");
}

static void bad_value(struct parse_ctx *ctx, const char *line, struct slice v, const char *what)
{
	ctx_bad(ctx, ctx_col(line, v.p), "\"%.*s\" is not %s", fmt_quote_len(v), v.p, what);
}

/* "80°C", "77'C", "80C" */
static bool temperature(struct slice v, double *out)
{
	const char *p = v.p, *end = v.p + v.n;
	if (scan_double(&p, end, out))
		return false;
	if (p < end && *p == '\'')
		p++;
	else if (end - p >= 2 && (unsigned char)p[0] == 0xC2 && (unsigned char)p[1] == 0xB0)
		p += 2;
	return end - p == 1 && *p == 'C';
}

/* The header: host, a date, the driver version.  A date gives the time of
 * the GPU lines that follow. */
static bool header(struct gpustat *g, struct slice s)
{
	struct slice tok[MAX_TOK];
	size_t nt = scan_tokens(s, tok, MAX_TOK);
	int64_t t;

	/* the date is the last five words (gpustat 0.x, no driver) or the five
	 * before the driver version */
	for (size_t back = 0; back < 2; back++) {
		struct slice d;
		if (nt < 6 + back)
			continue;
		d = (struct slice){ tok[nt - 5 - back].p,
				    (size_t)(tok[nt - 1 - back].p + tok[nt - 1 - back].n -
					     tok[nt - 5 - back].p) };
		if (!smi_ctime(d, &t)) {
			g->has_time = true;
			g->t_ns = t;
			return true;
		}
	}
	if (nt >= 4) {
		struct slice d = { tok[nt - 3].p, (size_t)(tok[nt - 2].p + tok[nt - 2].n - tok[nt - 3].p) };
		if (d.n == 19 && !time_parse_iso(d.p, d.n, &t)) {
			g->has_time = true;
			g->t_ns = t;
			return true;
		}
	}
	return false;
}

/* One process: "[user][:command][/pid](4000M)". */
static void process(struct parse_ctx *ctx, const struct gpustat *g, const char *line, int gpu,
		    struct slice p)
{
	const char *open = memchr(p.p, '(', p.n), *slash;
	struct slice who, mem;
	double mib;
	int64_t pid = -2;
	uint8_t st = 0;
	struct rec *r;

	if (!open || p.p[p.n - 1] != ')') {
		bad_value(ctx, line, p, "a process (user:command/pid(MEMM))");
		return;
	}
	who = (struct slice){ p.p, (size_t)(open - p.p) };
	mem = (struct slice){ open + 1, (size_t)(p.p + p.n - 1 - open - 1) };
	slash = memrchr(who.p, '/', who.n);
	if (slash) {
		struct slice ps = { slash + 1, (size_t)(who.p + who.n - slash - 1) };
		if (slice_to_i64(ps, &pid) || pid < 0) {
			bad_value(ctx, line, ps, "a process id");
			return;
		}
		who.n = (size_t)(slash - who.p);
	}
	if (!smi_value_unit(mem, "M", &mib, &st) && !unknown(mem)) {
		bad_value(ctx, line, mem, "a memory size in M");
		return;
	}
	if (!(r = ctx_rec(ctx, REC_PROC)))
		return;
	r->t_ns = g->has_time ? g->t_ns : 0;
	r->time_kind = g->has_time ? TK_ABS : TK_FILE;
	r->gpu_index = gpu;
	r->uuid = STR_NONE;
	r->pid = pid;
	if (!unknown(mem)) {
		r->v[2] = mib;
		r->present |= PF_FB;
	}
	/* "user:command", "command" or "user": as gpustat printed it */
	r->name = who.n ? ctx_str(ctx, who) : STR_NONE;
}

static void gpu_line(struct parse_ctx *ctx, struct gpustat *g, const char *line, struct slice s)
{
	struct slice c[8], it[8], tok[MAX_TOK], name;
	size_t nc = cells(s, c, 8), ni, nt;
	const char *close = memchr(s.p, ']', s.n);
	int64_t idx;
	struct rec r;
	struct rec *out;
	double v;
	uint8_t st = 0;
	int pct = 0;
	struct slice pv[2];

	if (!close || slice_to_i64((struct slice){ s.p + 1, (size_t)(close - s.p - 1) }, &idx) ||
	    idx < 0 || idx > 65535) {
		bad_value(ctx, line, s, "a GPU line ([index] name | ...)");
		return;
	}
	if (nc < 3) {
		ctx_bad(ctx, ctx_col(line, s.p), "a GPU line with %zu cells; gpustat prints "
			"name | readings | memory [| processes]", nc);
		return;
	}
	memset(&r, 0, sizeof(r));
	name = slice_trim((struct slice){ close + 1, (size_t)(c[0].p + c[0].n - close - 1) });
	/* readings: temperature, [fan %,] util % [(E: D:)], [power / limit W] */
	ni = scan_split(c[1].p, c[1].n, ',', it, 8, &(bool){ false });
	for (size_t i = 0; i < ni; i++) {
		struct slice f = slice_trim(it[i]);
		nt = scan_tokens(f, tok, MAX_TOK);
		if (!nt)
			continue;
		if (i == 0) {
			if (temperature(f, &v)) {
				r.v[M_TEMP] = v;
				r.present |= 1u << M_TEMP;
			} else if (!slice_starts_with(f, "??")) {
				bad_value(ctx, line, f, "a temperature");
			}
		} else if (nt >= 3 && slice_eq(tok[1], "/")) {
			if (smi_value_unit(tok[0], "", &v, &st)) {
				r.v[M_POWER] = v;
				r.present |= 1u << M_POWER;
			} else if (!unknown(tok[0])) {
				bad_value(ctx, line, tok[0], "a power draw");
			}
			if (smi_value_unit(tok[2], "", &v, &st)) {
				r.v[M_POWER_LIMIT] = v;
				r.present |= 1u << M_POWER_LIMIT;
			} else if (!unknown(tok[2])) {
				bad_value(ctx, line, tok[2], "a power limit");
			}
		} else if (nt >= 2 && slice_eq(tok[1], "%") && pct < 2) {
			/* the utilization, or with --show-fan the fan then the utilization */
			pv[pct] = tok[0];
			pct++;
		}
	}
	for (int k = 0; k < pct; k++) {
		int m = pct == 2 && k == 0 ? M_FAN : M_UTIL_GPU;
		if (unknown(pv[k]))
			continue;
		if (smi_value_unit(pv[k], "", &v, &st)) {
			r.v[m] = v;
			r.present |= 1u << m;
		} else {
			bad_value(ctx, line, pv[k], "a percentage");
		}
	}
	/* memory used / total MB */
	nt = scan_tokens(c[2], tok, MAX_TOK);
	if (nt == 4 && slice_eq(tok[1], "/") && slice_eq(tok[3], "MB")) {
		if (smi_value_unit(tok[0], "", &v, &st)) {
			r.v[M_MEM_USED] = v;
			r.present |= 1u << M_MEM_USED;
		}
		if (smi_value_unit(tok[2], "", &v, &st)) {
			r.v[M_MEM_TOTAL] = v;
			r.present |= 1u << M_MEM_TOTAL;
		}
	} else {
		bad_value(ctx, line, c[2], "memory used / total MB");
	}
	if ((out = ctx_rec(ctx, REC_SAMPLE))) {
		out->t_ns = g->has_time ? g->t_ns : 0;
		out->time_kind = g->has_time ? TK_ABS : TK_FILE;
		out->gpu_index = (int32_t)idx;
		out->uuid = STR_NONE;
		out->name = STR_NONE;
		out->status = st;
		out->present = r.present;
		for (int m = 0; m < M__COUNT; m++)
			if (r.present & (1u << m))
				out->v[m] = r.v[m];
		if (name.n) {
			uint32_t off = ctx_str(ctx, name);
			ctx->out->recs[ctx->out->nr - 1].name = off;
		}
	}
	if (nc >= 4 && !slice_eq(c[3], "(Not Supported)")) {
		nt = scan_tokens(c[3], tok, MAX_TOK);
		for (size_t i = 0; i < nt; i++) {
			/* gpustat can list a process twice on one line (issue 43's
			 * mpv/12795): once is enough */
			bool again = false;
			for (size_t j = 0; j < i && !again; j++)
				again = slice_eq_slice(tok[i], tok[j]) && memchr(tok[i].p, '/', tok[i].n);
			if (!again)
				process(ctx, g, line, (int)idx, tok[i]);
		}
	}
}

static void gs_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	struct gpustat *g = ctx->state;
	struct slice s = slice_trim((struct slice){ line, n });

	if (!s.n)
		return;
	if (s.p[0] == '[') {
		/* no process column left: "... MB |" */
		if (s.n >= 2 && s.p[s.n - 1] == '|' && s.p[s.n - 2] == ' ')
			s.n -= 2;
		gpu_line(ctx, g, line, s);
		return;
	}
	/* --show-full-cmd's process tree: " ├─  48448 (  85%,  257MB): python" */
	if (slice_starts_with(s, "\xe2\x94\x9c") || slice_starts_with(s, "\xe2\x94\x94") ||
	    slice_starts_with(s, "\xe2\x94\x82"))
		return;
	if (header(g, s))
		return;
	if (slice_eq(s, "(No GPUs are available)"))
		return;
	ctx_bad(ctx, ctx_col(line, s.p), "\"%.*s\" is neither a gpustat header (host, date, "
		"driver) nor a GPU line", fmt_quote_len(s), s.p);
}

static int gs_sniff(const char *head, size_t n, const char *name)
{
	const char *p = head, *end = head + n;
	int gpu = 0, other = 0;

	(void)name;
	while (p < end && gpu + other < 20) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct slice s = slice_trim((struct slice){ p, (size_t)((nl ? nl : end) - p) });
		if (s.n) {
			if (s.p[0] == '[' && memchr(s.p, ']', s.n) && memmem(s.p, s.n, " | ", 3) &&
			    memmem(s.p, s.n, " MB", 3) && memmem(s.p, s.n, " %", 2))
				gpu++;
			else if (slice_starts_with(s, "\xe2\x94\x9c") || slice_starts_with(s, "\xe2\x94\x94"))
				;	/* the process tree of --show-full-cmd */
			else
				other++;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	if (gpu && gpu >= other)
		return 85;
	return 0;
}

const struct format format_gpustat = {
	.id = "gpustat",
	.summary = "gpustat's text output, one snapshot or gpustat -i / watch loops, with its user, "
		   "command and pid columns",
	.detects = "'[0] name | 80°C,  76 % |  8000 / 12287 MB' lines",
	.state_size = sizeof(struct gpustat),
	.sniff = gs_sniff,
	.line = gs_line,
	.whole_file = true,
};
