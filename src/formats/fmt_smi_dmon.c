/* SPDX-License-Identifier: MIT */
/* nvidia-smi dmon logs, and the header and row engine that pmon shares. */
#include <string.h>

#include "formats/format.h"
#include "formats/smi.h"
#include "util/timeutil.h"

/* The engine (declared in smi.h) is shared with fmt_smi_pmon.c: the two
 * formats differ only in their sniffer and in the record a row makes. */

/* -s pucvmet -o DT plus every GPM metric stays well under this */
#define MAX_COLS 128
#define COL_NAME_MAX 15
/* how much of an offending token a message quotes */
/* header lines up to this long are remembered (struct mon_state) */
#define HDR_CACHE 512
/* x86-64 with GCC or clang: a row's shape is checked with AVX2 where the
 * CPU has it (row_shape_ok), field by field elsewhere */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ROW_SHAPE_AVX2 1
#endif
/* rows of 32 bytes up to this long are checked 32 bytes at a time (row_shape_ok) */
#define FW_WORDS 4
#define FW_BITS (64 * FW_WORDS)
/* where read_kept() puts a GPU index, and a padding field's value */
#define FW_TO_GPU M__COUNT
#define FW_TO_NONE (M__COUNT + 1)
/* the byte b in each of a word's eight */
#define BYTES(b) (UINT64_C(0x0101010101010101) * (b))

enum col_kind {
	COL_NUM,	/* a number that is checked but not kept */
	COL_METRIC,	/* dmon: a number into v[slot] */
	COL_PROC,	/* pmon: a number into v[slot], present bit 1 << slot */
	COL_DATE,
	COL_TIME,
	COL_GPU,
	COL_PID,
	COL_TEXT,	/* an opaque token (pmon type) */
	COL_CMD,	/* pmon command: the rest of the line */
};

struct mon_col {
	uint8_t kind;
	uint8_t slot;
	char name[COL_NAME_MAX + 1];
};

struct mon_state {
	bool proc;		/* pmon: rows are processes */
	bool header_seen;	/* a names row came, even one that was rejected */
	bool after_header;	/* a names row came since the last process row */
	bool units_pending;	/* the names row came, its units row not yet */
	bool has_date, has_time;
	uint16_t ncols;		/* 0 while there is no usable column map */
	struct mon_col cols[MAX_COLS];
	/* rows of one tick share their date and time: the last conversion */
	char tc_text[20];
	uint8_t tc_len;
	int64_t tc_t_ns;
	/* dmon repeats its two header lines every few dozen rows: the last ones
	 * seen, to skip mapping them again (0 length: none, or too long) */
	uint16_t names_len, units_len, units_fields;
	char names_text[HDR_CACHE], units_text[HDR_CACHE];
	/* the fixed-width layout learnt from the last row read token by token */
	bool fw_ok;
	uint8_t fw_lead;		/* leading time columns: 2 date and time, 1 time, 0 none */
	uint16_t fw_len;		/* its length */
	uint16_t fw_date_end, fw_time_end;
	uint16_t fw_n;			/* numeric columns, after date and time */
	struct fw_col {
		uint64_t field;		/* 0xff for the field's bytes among the 8 ending at `end` */
		uint16_t end;		/* where its token ends */
		uint8_t kind, slot;	/* as in cols[] */
	} fw[MAX_COLS];
	/* the same layout as bit masks over the line's bytes, for the check of
	 * a whole row at once (row_shape_ok): set when the row fits FW_BITS */
	bool fw_masks;
	uint64_t fw_area[FW_WORDS];	/* the fields' bytes */
	uint64_t fw_last[FW_WORDS];	/* each field's last byte: a digit */
	uint64_t fw_first[FW_WORDS];	/* each field's first byte: a blank */
	uint16_t fw_nkeep;		/* the fields kept (GPU and metrics), in order */
	uint8_t fw_keep[MAX_COLS];
	/* the kept fields four at a time, for read_kept(): set with fw_masks
	 * when every kept field ends at byte 8 or later */
	uint8_t fw_ngroups;
	uint32_t fw_present;		/* the metrics they set */
	struct fw_group {
		uint64_t mask[4];	/* 0x0f in the field's bytes among its 8 */
		uint16_t at[4];		/* where those 8 bytes start */
		uint8_t to[4];		/* into read_kept's values: a slot, FW_TO_GPU, FW_TO_NONE */
	} fw_group[MAX_COLS / 4];
};

_Static_assert(sizeof(struct mon_state) <= SMI_MON_STATE_SIZE, "SMI_MON_STATE_SIZE too small");

static const struct {
	const char *name;
	uint8_t metric;
} dmon_metrics[] = {
	{ "pwr", M_POWER },
	{ "gtemp", M_TEMP },
	{ "temp", M_TEMP },	/* R367-era drivers: one temperature column */
	{ "mtemp", M_MEM_TEMP },
	{ "sm", M_UTIL_GPU },
	{ "mem", M_UTIL_MEM },
	{ "mclk", M_MEM_CLOCK },
	{ "pclk", M_SM_CLOCK },
	{ "pviol", M_PVIOL },
	{ "tviol", M_TVIOL },
	{ "fb", M_MEM_USED },
	{ "rxpci", M_PCIE_RX },
	{ "txpci", M_PCIE_TX },
};

/* dmon columns that are read for validity only; they also identify a dmon header */
static const char *const dmon_other[] = {
	"enc", "dec", "jpg", "ofa", "bar1", "ccpm", "sbecc", "dbecc", "pci",
};

/* What nvidia-smi prints in place of rows when it cannot monitor */
static const char *const tool_errors[] = {
	"Not supported on the device",
	"Failed to process command line",
	"Failed to initialize NVML",
	"No devices were found",
	"NVIDIA-SMI has failed",
	"Unable to determine the device handle",
	"Insufficient Permissions",
	"Invalid combination of input arguments",
	"Unknown Error",
};

enum hdr_kind { HDR_NAMES, HDR_UNITS, HDR_DATA, HDR_OTHER };

static bool starts_number(char c)
{
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.';
}

/* p points at the '#'; the first token after it tells the kind of line. */
static enum hdr_kind classify_hash(const char *p, const char *end)
{
	struct slice tok;

	p++;
	if (!scan_token(&p, end, &tok))
		return HDR_OTHER;
	if (starts_number(tok.p[0]))
		return HDR_DATA;
	if (slice_eq_nocase(tok, "gpu") || slice_eq_nocase(tok, "Date") ||
	    slice_eq_nocase(tok, "Time"))
		return HDR_NAMES;
	if (slice_eq_nocase(tok, "Idx") || slice_eq_nocase(tok, "YYYYMMDD") ||
	    slice_eq_nocase(tok, "HH:MM:SS"))
		return HDR_UNITS;
	return HDR_OTHER;
}

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static int dmon_metric_of(struct slice tok)
{
	for (size_t i = 0; i < sizeof(dmon_metrics) / sizeof(dmon_metrics[0]); i++)
		if (slice_eq(tok, dmon_metrics[i].name))
			return dmon_metrics[i].metric;
	return -1;
}

static bool is_dmon_name(struct slice tok)
{
	if (dmon_metric_of(tok) >= 0)
		return true;
	for (size_t i = 0; i < sizeof(dmon_other) / sizeof(dmon_other[0]); i++)
		if (slice_eq(tok, dmon_other[i]))
			return true;
	return false;
}

/* ---- sniffing ------------------------------------------------------------ */

static int sniff_names(const char *p, const char *end, bool cut, bool want_proc, bool first)
{
	bool pid = false, cmd = false, dmon = false;
	struct slice tok;

	p++;
	while (scan_token(&p, end, &tok)) {
		/* a token the head cut in two proves nothing */
		if (cut && tok.p + tok.n == end)
			break;
		if (slice_eq(tok, "pid"))
			pid = true;
		else if (slice_eq(tok, "command"))
			cmd = true;
		else if (is_dmon_name(tok))
			dmon = true;
	}
	if (want_proc) {
		if (pid && cmd)
			return first ? 95 : 85;
		return pid && cut ? 60 : 0;
	}
	if (pid || !dmon)
		return 0;
	return first ? 95 : 85;
}

int smi_mon_sniff(const char *head, size_t n, bool want_proc)
{
	const char *p = head, *end = head + n;
	int nonblank = 0;

	if (n >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
		p += 3;
	/* a warning or two may come before the header */
	while (p < end && nonblank < 4) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *q = p;

		while (q < le && scan_is_space(*q))
			q++;
		if (q < le) {
			nonblank++;
			if (*q == '#' && classify_hash(q, le) == HDR_NAMES)
				return sniff_names(q, le, !nl, want_proc, nonblank == 1);
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

/* ---- state and headers ----------------------------------------------------- */

void smi_mon_init_dmon(void *state, const struct ingest_opts *o)
{
	(void)o;
	((struct mon_state *)state)->proc = false;
}

void smi_mon_init_pmon(void *state, const struct ingest_opts *o)
{
	(void)o;
	((struct mon_state *)state)->proc = true;
}

bool smi_mon_is_context(const char *line, size_t n)
{
	const char *end = line + n, *p = skip_blank(line, end);
	enum hdr_kind k;

	if (p == end || *p != '#')
		return false;
	k = classify_hash(p, end);
	return k == HDR_NAMES || k == HDR_UNITS;
}

static void map_column(struct mon_state *st, struct mon_col *c, struct slice tok)
{
	int m;

	slice_copy(c->name, sizeof(c->name), tok);
	c->kind = COL_NUM;
	c->slot = 0;
	if (slice_eq_nocase(tok, "Date")) {
		c->kind = COL_DATE;
		st->has_date = true;
	} else if (slice_eq_nocase(tok, "Time")) {
		c->kind = COL_TIME;
		st->has_time = true;
	} else if (slice_eq(tok, "gpu")) {
		c->kind = COL_GPU;
	} else if (slice_eq(tok, "pid")) {
		c->kind = COL_PID;
	} else if (!st->proc) {
		m = dmon_metric_of(tok);
		if (m >= 0) {
			c->kind = COL_METRIC;
			c->slot = (uint8_t)m;
		}
	} else if (slice_eq(tok, "type")) {
		c->kind = COL_TEXT;
	} else if (slice_eq(tok, "command")) {
		c->kind = COL_CMD;
	} else if (slice_eq(tok, "sm")) {
		c->kind = COL_PROC;
		c->slot = 0;
	} else if (slice_eq(tok, "mem")) {
		c->kind = COL_PROC;
		c->slot = 1;
	} else if (slice_eq(tok, "fb")) {
		c->kind = COL_PROC;
		c->slot = 2;
	}
}

/* A names row: it replaces the column map, whatever came before. */
static void read_names(struct parse_ctx *ctx, struct mon_state *st, const char *line,
		       const char *p, const char *end)
{
	const char *pid_at = NULL;
	bool gpu = false;
	struct slice tok;
	uint16_t nc = 0;
	const char *text = p;
	size_t len = (size_t)(end - p);

	st->header_seen = true;
	st->units_pending = true;
	/* a header read from the file itself, not replayed at a chunk start */
	if (!ctx->replay)
		st->after_header = true;
	/* the same line as the names row in force: the same column map */
	if (st->ncols && len == st->names_len && !memcmp(text, st->names_text, len))
		return;
	st->names_len = 0;
	st->ncols = 0;
	st->fw_ok = false;
	st->has_date = st->has_time = false;
	p++;
	while (scan_token(&p, end, &tok)) {
		struct mon_col *c;

		if (nc == MAX_COLS) {
			ctx_bad(ctx, ctx_col(line, tok.p), "header has more than %d columns",
				MAX_COLS);
			return;
		}
		c = &st->cols[nc++];
		map_column(st, c, tok);
		if (c->kind == COL_GPU)
			gpu = true;
		if (c->kind == COL_PID && !pid_at)
			pid_at = tok.p;
	}
	if (!gpu) {
		ctx_bad(ctx, 0, "header has no gpu column");
		return;
	}
	if (pid_at && !st->proc) {
		ctx_bad(ctx, ctx_col(line, pid_at),
			"pmon header in a dmon log (try --format smi-pmon)");
		return;
	}
	if (!pid_at && st->proc) {
		ctx_bad(ctx, 0, "dmon header in a pmon log (try --format smi-dmon)");
		return;
	}
	/* only a last command column can hold spaces */
	for (uint16_t i = 0; i + 1 < nc; i++)
		if (st->cols[i].kind == COL_CMD)
			st->cols[i].kind = COL_TEXT;
	st->ncols = nc;
	if (len <= HDR_CACHE) {
		memcpy(st->names_text, text, len);
		st->names_len = (uint16_t)len;
	}
}

static void read_units(struct parse_ctx *ctx, struct mon_state *st, const char *p,
		       const char *end)
{
	struct slice tok;
	unsigned n = 0;
	size_t len = (size_t)(end - p);

	if (len && len == st->units_len && !memcmp(p, st->units_text, len)) {
		n = st->units_fields;	/* the same line as last time */
	} else {
		const char *q = p + 1;
		while (scan_token(&q, end, &tok))
			n++;
		st->units_len = 0;
		if (len <= HDR_CACHE) {
			memcpy(st->units_text, p, len);
			st->units_len = (uint16_t)len;
			st->units_fields = (uint16_t)n;
		}
	}
	if (st->units_pending && st->ncols && n != st->ncols)
		ctx_bad(ctx, 0, "units row has %u fields, names row has %u", n,
			(unsigned)st->ncols);
	st->units_pending = false;
}

/* ---- rows ---------------------------------------------------------------- */

static bool parse_date(struct slice t, int *y, int *mo, int *d)
{
	const char *p = t.p, *e = t.p + t.n;

	if (t.n != 8 || scan_fixed_digits(&p, e, 4, y) || scan_fixed_digits(&p, e, 2, mo) ||
	    scan_fixed_digits(&p, e, 2, d))
		return false;
	return civil_valid(*y, *mo, *d);
}

static bool parse_tod(struct slice t, int64_t *tod_s)
{
	const char *e = t.p + t.n, *p;
	int h, m, s;

	if (t.n != 8 || t.p[2] != ':' || t.p[5] != ':')
		return false;
	p = t.p;
	if (scan_fixed_digits(&p, e, 2, &h))
		return false;
	p = t.p + 3;
	if (scan_fixed_digits(&p, e, 2, &m))
		return false;
	p = t.p + 6;
	if (scan_fixed_digits(&p, e, 2, &s))
		return false;
	if (h > 23 || m > 59 || s > 59)
		return false;
	*tod_s = (int64_t)h * 3600 + m * 60 + s;
	return true;
}

static bool is_dash(struct slice t)
{
	return t.n == 1 && t.p[0] == '-';
}

/* Fields of a row, already checked against the column map. */
struct row {
	int64_t t_ns;
	uint8_t time_kind;
	int32_t gpu;
	int64_t pid;
	uint32_t present;
	double v[M__COUNT];
};

static bool read_fields(struct parse_ctx *ctx, const struct mon_state *st, const char *line,
			const struct slice *tok, int nf, struct row *r)
{
	int y = 0, mo = 0, d = 0;
	int64_t tod_s = 0, x;
	uint32_t date_col = 0;
	double val;

	for (int i = 0; i < nf; i++) {
		const struct mon_col *c = &st->cols[i];
		struct slice t = tok[i];
		uint32_t col = ctx_col(line, t.p);

		switch (c->kind) {
		case COL_DATE:
			if (!parse_date(t, &y, &mo, &d)) {
				ctx_bad(ctx, col, "bad date '%.*s'", fmt_quote_len(t), t.p);
				return false;
			}
			date_col = col;
			break;
		case COL_TIME:
			if (!parse_tod(t, &tod_s)) {
				ctx_bad(ctx, col, "bad time '%.*s'", fmt_quote_len(t), t.p);
				return false;
			}
			break;
		case COL_GPU:
			if (slice_to_i64(t, &x) || x < 0 || x > INT32_MAX) {
				ctx_bad(ctx, col, "bad gpu index '%.*s'", fmt_quote_len(t), t.p);
				return false;
			}
			r->gpu = (int32_t)x;
			break;
		case COL_PID:
			if (is_dash(t))
				break;
			if (slice_to_i64(t, &x) || x < 0) {
				ctx_bad(ctx, col, "bad number '%.*s' in column pid", fmt_quote_len(t),
					t.p);
				return false;
			}
			r->pid = x;
			break;
		case COL_TEXT:
		case COL_CMD:
			break;
		default:
			if (is_dash(t))
				break;
			if (slice_to_double(t, &val)) {
				ctx_bad(ctx, col, "bad number '%.*s' in column %s", fmt_quote_len(t),
					t.p, c->name);
				return false;
			}
			if (c->kind == COL_METRIC || c->kind == COL_PROC) {
				r->v[c->slot] = val;
				r->present |= 1u << c->slot;
			}
			break;
		}
	}
	if (st->has_date && st->has_time) {
		int64_t t_s;
		if (time_local_to_utc(y, mo, d, (int)(tod_s / 3600), (int)(tod_s / 60 % 60),
				      (int)(tod_s % 60), &t_s)) {
			ctx_bad(ctx, date_col, "date out of range");
			return false;
		}
		r->t_ns = t_s * NS_PER_S;
		r->time_kind = TK_ABS;
	} else if (st->has_time) {
		/* the driver supplies the date and notices midnight */
		r->t_ns = tod_s * NS_PER_S;
		r->time_kind = TK_TOD;
	} else {
		/* a date alone cannot order rows within the day: count ticks instead */
		r->time_kind = TK_NONE;
	}
	return true;
}

/* A sample record: v[m] where bit m of present is set, 0 elsewhere. */
static void emit_sample(struct parse_ctx *ctx, int32_t gpu, int64_t t_ns, uint8_t time_kind,
			uint32_t present, const double *v)
{
	struct rec *o = ctx_rec(ctx, REC_SAMPLE);

	if (!o)
		return;
	o->gpu_index = gpu;
	o->t_ns = t_ns;
	o->time_kind = time_kind;
	o->present = present;
	_Static_assert(M__COUNT < 32, "present is a 32-bit mask");
	/* the values read, and 0 for the others (v holds anything there) */
	memcpy(o->v, v, sizeof(o->v));
	for (uint32_t absent = ~present & ((UINT32_C(1) << M__COUNT) - 1); absent; absent &= absent - 1)
		o->v[__builtin_ctz(absent)] = 0;
}

static void read_row(struct parse_ctx *ctx, struct mon_state *st, const char *line,
		     const char *end)
{
	struct slice tok[MAX_COLS], cmd = { NULL, 0 }, extra;
	const char *p = line;
	bool rest = st->cols[st->ncols - 1].kind == COL_CMD;
	int fixed = rest ? st->ncols - 1 : st->ncols, nf = 0;
	const char *cut = ctx->last_line_partial ? "line cut short: " : "";
	struct row r = { .gpu = -1, .pid = -1 };

	while (nf < fixed && scan_token(&p, end, &tok[nf]))
		nf++;
	if (nf < fixed) {
		ctx_bad(ctx, ctx_col(line, end), rest ? "%sexpected at least %d fields, got %d" :
			"%sexpected %d fields, got %d", cut, fixed, nf);
		return;
	}
	if (rest) {
		cmd = slice_trim((struct slice){ p, (size_t)(end - p) });
	} else if (scan_token(&p, end, &extra)) {
		const char *first_extra = extra.p;
		int got = nf + 1;
		while (scan_token(&p, end, &extra))
			got++;
		ctx_bad(ctx, ctx_col(line, first_extra), "%sexpected %d fields, got %d", cut,
			fixed, got);
		return;
	}

	if (!read_fields(ctx, st, line, tok, nf, &r))
		return;

	if (st->proc) {
		struct rec *o = ctx_rec(ctx, REC_PROC);
		if (!o)
			return;
		o->gpu_index = r.gpu;
		o->t_ns = r.t_ns;
		o->time_kind = r.time_kind;
		o->pid = r.pid;
		o->present = r.present;
		if (st->after_header)
			o->present |= PF_AFTER_HEADER;
		st->after_header = false;
		for (int i = 0; i < 3; i++)
			o->v[i] = r.present & (1u << i) ? r.v[i] : 0;
		/* "-" is nvidia-smi's own blank, not a process name */
		if (cmd.n && !is_dash(cmd))
			o->name = ctx_str(ctx, cmd);
	} else {
		emit_sample(ctx, r.gpu, r.t_ns, r.time_kind, r.present, r.v);
	}
}

/* ---- the fast path --------------------------------------------------------- */

static const double pow10_neg[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* dmon pads every field with runs of spaces: skip them eight at a time */
static inline const char *skip_spaces(const char *p, const char *end)
{
	while (end - p >= 8) {
		uint64_t w, x;
		memcpy(&w, p, 8);
		x = w ^ UINT64_C(0x2020202020202020);
		if (x)
			return p + (__builtin_ctzll(x) >> 3);	/* little-endian: first non-space */
		p += 8;
	}
	while (p < end && *p == ' ')
		p++;
	return p;
}

/*
 * A plain dmon number ("93", "0.5") or "-".  Anything else (signs,
 * exponents, long fractions, junk) answers false and the row goes to the
 * careful path, which reports it; the value equals what scan_double() gives.
 */
static inline bool fast_number(const char **pp, const char *end, double *v, bool *dash)
{
	const char *p = *pp, *s = p;
	uint64_t x = 0;
	int nd = 0;

	if (*p == '-') {
		if (p + 1 == end || is_blank(p[1])) {
			*dash = true;
			*pp = p + 1;
			return true;
		}
		return false;
	}
	while (p < end && (unsigned)(*p - '0') <= 9)
		x = x * 10 + (unsigned)(*p++ - '0');
	if (p == s || p - s > 15)
		return false;
	if (p < end && *p == '.') {
		const char *f = ++p;
		while (p < end && (unsigned)(*p - '0') <= 9 && p - f < 9)
			x = x * 10 + (unsigned)(*p++ - '0');
		nd = (int)(p - f);
		if (!nd)
			return false;
	}
	if (p < end && !is_blank(*p))
		return false;
	*dash = false;
	*v = nd ? (double)x / pow10_neg[nd] : (double)x;
	*pp = p;
	return true;
}

static void set_bit(uint64_t *m, unsigned i)
{
	m[i / 64] |= UINT64_C(1) << (i % 64);
}

/*
 * The kept fields of fw_keep in groups of four for read_kept(): where each
 * one's 8 bytes start, the mask of its digits' low nibbles, and where its
 * value goes.  None when a kept field ends before byte 8 (a first field
 * without time columns: first_field() reads it).
 */
static void learn_groups(struct mon_state *st)
{
	st->fw_ngroups = 0;
	st->fw_present = 0;
	for (unsigned j = 0; j < st->fw_nkeep; j++)
		if (st->fw[st->fw_keep[j]].end < 8)
			return;
	for (unsigned j = 0; j < (st->fw_nkeep + 3u) / 4 * 4; j++) {
		struct fw_group *g = &st->fw_group[j / 4];
		unsigned k = j % 4;
		if (j < st->fw_nkeep) {
			const struct fw_col *f = &st->fw[st->fw_keep[j]];
			g->at[k] = (uint16_t)(f->end - 8);
			g->mask[k] = f->field & BYTES(0x0f);
			g->to[k] = f->kind == COL_METRIC ? f->slot : FW_TO_GPU;
			if (f->kind == COL_METRIC)
				st->fw_present |= 1u << f->slot;
		} else {
			/* padding: any 8 bytes of the row, the value dropped */
			g->at[k] = g->at[0];
			g->mask[k] = 0;
			g->to[k] = FW_TO_NONE;
		}
	}
	st->fw_ngroups = (uint8_t)((st->fw_nkeep + 3u) / 4);
}

/*
 * The masks of row_shape_ok(): a field i covers bytes [ends[i-1], ends[i])
 * after the leading time columns; a row of 32 to FW_BITS bytes only.  The
 * first field of a row without time columns needs no blank before it.
 */
static void learn_masks(struct mon_state *st, int lead, const uint16_t *ends, size_t n)
{
	st->fw_masks = false;
#ifndef ROW_SHAPE_AVX2
	return;
#else
	if (!__builtin_cpu_supports("avx2"))
		return;
#endif
	if (n < 32 || n > FW_BITS || (!lead && ends[0] >= 8))
		return;	/* (a first field that ends at byte 8 goes by fixed_field's rule) */
	memset(st->fw_area, 0, sizeof(st->fw_area));
	memset(st->fw_last, 0, sizeof(st->fw_last));
	memset(st->fw_first, 0, sizeof(st->fw_first));
	for (int i = lead; i < st->ncols; i++) {
		unsigned b = i ? ends[i - 1] : 0, e = ends[i];
		for (unsigned k = b; k < e; k++)
			set_bit(st->fw_area, k);
		set_bit(st->fw_last, e - 1);
		if (i)
			set_bit(st->fw_first, b);
	}
	st->fw_masks = true;
	learn_groups(st);
}

/*
 * Remember where the tokens of a row read token by token ended, for the
 * fixed-width path: date and time first, then numbers in columns of 2 to 8
 * characters (one 8-byte load each).
 */
static void learn_layout(struct mon_state *st, int lead, const uint16_t *ends, size_t n)
{
	st->fw_ok = false;
	if (n > UINT16_MAX || st->ncols < lead + 1)
		return;
	if (lead == 2 && (st->cols[0].kind != COL_DATE || st->cols[1].kind != COL_TIME ||
			  ends[0] < 8 || ends[1] < ends[0] + 9))
		return;
	if (lead == 1 && (st->cols[0].kind != COL_TIME || ends[0] < 8))
		return;
	for (int i = lead; i < st->ncols; i++) {
		int w = ends[i] - (i ? ends[i - 1] : 0);
		struct fw_col *f = &st->fw[i - lead];
		uint8_t k = st->cols[i].kind;
		/* the first field of a line needs no blank before it, the others one */
		if (w < (i ? 2 : 1) || w > 8 || (k != COL_GPU && k != COL_METRIC && k != COL_NUM))
			return;
		f->field = ~UINT64_C(0) << (8 * (8 - w));
		f->end = ends[i];
		f->kind = k;
		f->slot = st->cols[i].slot;
	}
	st->fw_n = (uint16_t)(st->ncols - lead);
	st->fw_nkeep = 0;
	for (int i = 0; i < st->fw_n; i++)
		if (st->fw[i].kind != COL_NUM)
			st->fw_keep[st->fw_nkeep++] = (uint8_t)i;
	learn_masks(st, lead, ends, n);
	st->fw_lead = (uint8_t)lead;
	st->fw_date_end = lead == 2 ? ends[0] : 0;
	st->fw_time_end = lead ? ends[lead - 1] : 0;
	st->fw_len = (uint16_t)n;
	st->fw_ok = true;
}

/*
 * The time of a row from its leading columns: date and time text [t0, t1)
 * (lead 2, TK_ABS), a time of day [t0, t1) (lead 1, TK_TOD), or none (lead 0,
 * TK_NONE: the driver counts ticks).  The blanks between date and time are
 * checked by the caller.  The last conversion is kept, by its text: the rows
 * of one tick share it.
 */
static bool row_time(struct mon_state *st, int lead, const char *t0, const char *t1,
		     int64_t *t_ns)
{
	size_t n = (size_t)(t1 - t0);
	int y, mo, d;
	int64_t tod_s, t_s;

	if (!lead) {
		*t_ns = 0;
		return true;
	}
	if (n == st->tc_len && !memcmp(t0, st->tc_text, n)) {
		*t_ns = st->tc_t_ns;
		return true;
	}
	if (n > sizeof(st->tc_text) || !parse_tod((struct slice){ t1 - 8, 8 }, &tod_s))
		return false;
	if (lead == 1) {
		*t_ns = tod_s * NS_PER_S;
	} else {
		if (!parse_date((struct slice){ t0, 8 }, &y, &mo, &d) ||
		    time_local_to_utc(y, mo, d, (int)(tod_s / 3600), (int)(tod_s / 60 % 60),
				      (int)(tod_s % 60), &t_s))
			return false;
		*t_ns = t_s * NS_PER_S;
	}
	st->tc_len = (uint8_t)n;
	memcpy(st->tc_text, t0, n);
	st->tc_t_ns = *t_ns;
	return true;
}

static const uint8_t lead_time_kind[3] = { TK_NONE, TK_TOD, TK_ABS };

/*
 * One dmon data row in a single pass, for the overwhelmingly common case.
 * Returns false, having emitted nothing, whenever anything is unusual; the
 * careful path then parses the row again and says what is wrong.
 */
static bool read_row_fast(struct parse_ctx *ctx, struct mon_state *st, const char *line,
			  const char *end)
{
	const char *p = line, *dt = NULL, *dt_end = NULL;
	double v[M__COUNT];
	uint16_t ends[MAX_COLS];
	uint32_t present = 0;
	int32_t gpu = -1;
	int64_t t_ns = 0;
	int lead = st->has_date ? 2 : st->has_time ? 1 : 0;

	if (st->proc || (st->has_date && !st->has_time))
		return false;	/* a date alone: the careful path */
	for (int i = 0; i < st->ncols; i++) {
		const struct mon_col *c = &st->cols[i];
		double x;
		bool dash;

		p = skip_spaces(p, end);
		if (p == end)
			return false;
		switch (c->kind) {
		case COL_DATE:
			if (end - p < 8 || i != 0)
				return false;
			dt = p;
			p += 8;
			break;
		case COL_TIME:
			if (end - p < 8 || (lead == 2 ? !dt : i != 0))
				return false;
			if (lead == 1)
				dt = p;
			p += 8;
			dt_end = p;
			break;
		case COL_GPU: {
			const char *s = p;
			int32_t g = 0;
			while (p < end && (unsigned)(*p - '0') <= 9 && p - s < 9)
				g = g * 10 + (*p++ - '0');
			if (p == s || (p < end && !is_blank(*p)))
				return false;
			gpu = g;
			break;
		}
		case COL_METRIC:
		case COL_NUM:
			if (!fast_number(&p, end, &x, &dash))
				return false;
			if (!dash && c->kind == COL_METRIC) {
				v[c->slot] = x;
				present |= 1u << c->slot;
			}
			break;
		default:
			return false;
		}
		if (p < end && !is_blank(*p))
			return false;
		ends[i] = (uint16_t)(p - line);
	}
	while (p < end && is_blank(*p))
		p++;
	if (p != end || gpu < 0 || (lead && !dt_end) || !row_time(st, lead, dt, dt_end, &t_ns))
		return false;
	emit_sample(ctx, gpu, t_ns, lead_time_kind[lead], present, v);
	learn_layout(st, lead, ends, (size_t)(end - line));
	return true;
}

/* ---- the fixed-width path ------------------------------------------------- */

/*
 * nvidia-smi prints every dmon field right-aligned in a column of fixed
 * width, so a row as long as the last one read token by token has its tokens
 * ending at the same offsets.  Each number is then checked and converted
 * from one 8-byte load, with no loop over its characters.  Every byte of the
 * row is checked; anything else (a wider number, a '.', a tab, junk) answers
 * false, having emitted nothing, and the row takes the token path.
 */
static inline uint64_t load8(const char *p)
{
	uint64_t x;
	memcpy(&x, p, 8);
	return x;
}

/* 0x80 in each byte of x that is an ASCII digit */
static inline uint64_t digit_bytes(uint64_t x)
{
	uint64_t y = x ^ BYTES(0x30);	/* digits become 0..9 */
	uint64_t t = (y & BYTES(0x7f)) + BYTES(0x76);	/* bit 7 set from 10 up; no carry */
	return ~(t | y) & BYTES(0x80);
}

/*
 * The field (0xff bytes of `field`, 2 to 8 of them) among the 8 bytes that
 * end at `e`: blanks then 1 to w-1 digits, or blanks then "-".  Returns 1
 * with *val set (when `want`), 2 for "-", 0 for anything else.
 */
/* The number in the top `full` bytes of x (digits; the lower bytes masked off). */
static inline uint64_t digits_value(uint64_t x, uint64_t full)
{
	uint64_t z = (x & full) - (BYTES(0x30) & full);	/* digit values, leading zeros */

	/* pairs, then fours, then eight: byte 0 is the most significant digit */
	z = (z * 10 + (z >> 8)) & UINT64_C(0x00ff00ff00ff00ff);
	z = (z * 100 + (z >> 16)) & UINT64_C(0x0000ffff0000ffff);
	return (z * 10000 + (z >> 32)) & UINT64_C(0xffffffff);
}

static inline int fixed_field(const char *e, uint64_t field, bool want, uint64_t *val)
{
	uint64_t x = load8(e - 8);
	uint64_t nd = field & BYTES(0x80) & ~digit_bytes(x);	/* its non-digits, 0x80 each */
	uint64_t full;
	int k;

	if (!nd)
		return 0;	/* no blank before the number: two tokens touch */
	k = __builtin_clzll(nd) >> 3;	/* digits after the last non-digit */
	if (!k) {
		/* "-": the last byte, blanks before it */
		return (x >> 56) == '-' &&
		       !((x ^ BYTES(0x20)) & field & ~(UINT64_C(0xff) << 56)) ? 2 : 0;
	}
	full = ~UINT64_C(0) << (8 * (8 - k));
	if ((x ^ BYTES(0x20)) & field & ~full)
		return 0;	/* something other than blanks before the digits */
	if (!want)
		return 1;
	*val = digits_value(x, full);
	return 1;
}

/*
 * A first field that ends before byte 8 of the line (no time columns): blanks
 * then digits, or blanks then "-", from the line start to `e`; as fixed_field().
 */
static int first_field(const char *line, int e, uint64_t *val)
{
	int i = 0;
	uint64_t x = 0;

	while (i < e && line[i] == ' ')
		i++;
	if (i == e)
		return 0;
	if (line[i] == '-')
		return i == e - 1 ? 2 : 0;
	for (; i < e; i++) {
		if ((unsigned)(line[i] - '0') > 9)
			return 0;
		x = x * 10 + (unsigned)(line[i] - '0');
	}
	*val = x;
	return 1;
}

#ifdef ROW_SHAPE_AVX2
#include <immintrin.h>

/*
 * Is every field of the row (its fw_len bytes, from 32 up, after the time
 * columns) blanks then digits, with a blank first: fixed_field()'s rule
 * for a number, which nearly every row meets?  A byte that is neither, a
 * "-", a digit before a blank inside a field: false, and the row goes
 * field by field.  Thirty-two bytes at a time (AVX2, where the CPU has it:
 * learn_masks); the last load overlaps the one before, so nothing past the
 * row is read.
 */
__attribute__((target("avx2"))) static bool row_shape_ok(const struct mon_state *st, const char *line)
{
	const __m256i lo = _mm256_set1_epi8('0' - 1), hi = _mm256_set1_epi8('9' + 1),
		      blank = _mm256_set1_epi8(' ');
	uint64_t dg[FW_WORDS] = { 0 }, sp[FW_WORDS] = { 0 }, bad = 0;
	unsigned n = st->fw_len, i = 0;

	for (;;) {
		unsigned at = i + 32 <= n ? i : n - 32, back = i - at;
		__m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(line + at));
		uint64_t d = (uint32_t)_mm256_movemask_epi8(
			_mm256_and_si256(_mm256_cmpgt_epi8(x, lo), _mm256_cmpgt_epi8(hi, x)));
		uint64_t s = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, blank));
		/* i is a multiple of 32: its bits stay in one word */
		dg[i / 64] |= d >> back << (i % 64);
		sp[i / 64] |= s >> back << (i % 64);
		i += 32;
		if (i >= n)
			break;
	}
	for (unsigned w = 0; w < FW_WORDS; w++) {
		/* a digit followed by a blank: the blank's bit one place down */
		uint64_t sp_next = (sp[w] >> 1) | (w + 1 < FW_WORDS ? sp[w + 1] << 63 : 0);
		bad |= st->fw_area[w] & ~(dg[w] | sp[w]);
		bad |= st->fw_last[w] & ~dg[w];
		bad |= st->fw_first[w] & ~sp[w];
		bad |= st->fw_area[w] & dg[w] & sp_next & ~st->fw_last[w];
	}
	return !bad;
}
#endif

#ifdef ROW_SHAPE_AVX2
/*
 * The kept fields of a row that row_shape_ok() passed, four at a time: in
 * each field's 8 bytes a blank's low nibble is 0 and a digit's is its value,
 * so blanks read as leading zeros once the bytes of the field before are
 * masked off.  Digit pairs, then fours, then eight make the number, as in
 * digits_value().  Values go to v[slot], the GPU index to v[FW_TO_GPU].
 */
__attribute__((target("avx2"))) static void read_kept(const struct mon_state *st,
						       const char *line, double *v)
{
	const __m256i by10 = _mm256_set1_epi16(0x010a), by100 = _mm256_set1_epi32(0x00010064),
		      by10000 = _mm256_set1_epi64x(10000),
		      low32 = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);

	for (unsigned i = 0; i < st->fw_ngroups; i++) {
		const struct fw_group *g = &st->fw_group[i];
		double d[4];
		__m256i x = _mm256_setr_epi64x((long long)load8(line + g->at[0]),
					       (long long)load8(line + g->at[1]),
					       (long long)load8(line + g->at[2]),
					       (long long)load8(line + g->at[3]));
		x = _mm256_and_si256(x, _mm256_loadu_si256((const __m256i *)(const void *)g->mask));
		/* bytes b0 b1 (b0 the higher digit): 10 * b0 + b1, then pairs of those */
		x = _mm256_madd_epi16(_mm256_maddubs_epi16(x, by10), by100);
		/* each 64-bit lane: its first four digits' value below, the last four above */
		x = _mm256_add_epi64(_mm256_mul_epu32(x, by10000), _mm256_srli_epi64(x, 32));
		x = _mm256_permutevar8x32_epi32(x, low32);
		_mm256_storeu_pd(d, _mm256_cvtepi32_pd(_mm256_castsi256_si128(x)));
		v[g->to[0]] = d[0];
		v[g->to[1]] = d[1];
		v[g->to[2]] = d[2];
		v[g->to[3]] = d[3];
	}
}
#endif

/* A field's number, when row_shape_ok() said it is blanks then digits. */
static inline uint64_t field_value(const char *line, const struct fw_col *f)
{
	uint64_t x = load8(line + f->end - 8);
	/* its first byte is a blank: the digits are the bytes after the last
	 * non-digit, as in fixed_field() */
	int k = __builtin_clzll(f->field & BYTES(0x80) & ~digit_bytes(x)) >> 3;

	return digits_value(x, ~UINT64_C(0) << (8 * (8 - k)));
}

bool smi_dmon_row_shape = true;	/* tests only (smi.h) */

static bool read_row_fixed(struct parse_ctx *ctx, struct mon_state *st, const char *line,
			   const char *end)
{
	const char *dt = NULL, *dt_end = NULL;
	double v[M__COUNT + 2];	/* read_kept() also puts the GPU there, and padding */
	uint32_t present = 0;
	int32_t gpu = -1;
	int64_t t_ns;
	int lead = st->fw_lead;

	if (!st->fw_ok || end - line != st->fw_len)
		return false;
	if (lead) {
		dt_end = line + st->fw_time_end;
		dt = lead == 2 ? line + st->fw_date_end - 8 : dt_end - 8;
		/* blanks before the date (or time), and between date and time */
		if (skip_spaces(line, dt) != dt ||
		    (lead == 2 && skip_spaces(line + st->fw_date_end, dt_end - 8) != dt_end - 8))
			return false;
	}
	/* blanks after the last field */
	if (skip_spaces(line + st->fw[st->fw_n - 1].end, end) != end)
		return false;
#ifdef ROW_SHAPE_AVX2
	if (st->fw_masks && smi_dmon_row_shape && row_shape_ok(st, line)) {
		if (st->fw_ngroups) {
			v[FW_TO_GPU] = -1;
			read_kept(st, line, v);
			gpu = (int32_t)v[FW_TO_GPU];
			present = st->fw_present;
			goto timed;
		}
		/* every field is a number: read the kept ones */
		for (unsigned j = 0; j < st->fw_nkeep; j++) {
			const struct fw_col *f = &st->fw[st->fw_keep[j]];
			uint64_t x = 0;
			if (f->end >= 8)
				x = field_value(line, f);
			else if (first_field(line, f->end, &x) != 1)
				return false;
			if (f->kind == COL_METRIC) {
				v[f->slot] = (double)x;
				present |= 1u << f->slot;
			} else {
				gpu = (int32_t)x;
			}
		}
		goto timed;
	}
#endif
	for (const struct fw_col *f = st->fw, *fe = st->fw + st->fw_n; f < fe; f++) {
		uint64_t x = 0;
		int r = f->end >= 8 ? fixed_field(line + f->end, f->field, f->kind != COL_NUM, &x) :
				      first_field(line, f->end, &x);
		if (r == 1) {
			if (f->kind == COL_METRIC) {
				v[f->slot] = (double)x;
				present |= 1u << f->slot;
			} else if (f->kind == COL_GPU) {
				gpu = (int32_t)x;
			}
		} else if (!r || f->kind == COL_GPU) {
			return false;
		}
	}
#ifdef ROW_SHAPE_AVX2
timed:
#endif
	if (gpu < 0 || !row_time(st, lead, dt, dt_end, &t_ns))
		return false;
	emit_sample(ctx, gpu, t_ns, lead_time_kind[lead], present, v);
	return true;
}

static bool is_tool_error(const char *p, const char *end)
{
	struct slice s = { p, (size_t)(end - p) };

	for (size_t i = 0; i < sizeof(tool_errors) / sizeof(tool_errors[0]); i++)
		if (slice_starts_with(s, tool_errors[i]))
			return true;
	return false;
}

void smi_mon_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	struct mon_state *st = ctx->state;
	const char *end = line + n, *p = skip_blank(line, end);

	if (p == end)
		return;
	if (*p == '#') {
		switch (classify_hash(p, end)) {
		case HDR_NAMES:
			read_names(ctx, st, line, p, end);
			break;
		case HDR_UNITS:
			read_units(ctx, st, p, end);
			break;
		case HDR_DATA:
			ctx_bad(ctx, ctx_col(line, p), "commented-out data row");
			break;
		case HDR_OTHER:
			ctx_bad(ctx, ctx_col(line, p), "unrecognised header line");
			break;
		}
		return;
	}
	/* nvidia-smi's error messages start with a letter; data rows never do */
	if (!starts_number(*p) && is_tool_error(p, end)) {
		struct slice s = slice_trim((struct slice){ p, (size_t)(end - p) });
		ctx_event(ctx, EV_TOOL_ERROR, INT64_MIN, TK_ABS, -1, "%.*s", (int)s.n, s.p);
		return;
	}
	if (!starts_number(*p)) {
		ctx_bad(ctx, ctx_col(line, p), "unrecognised text line");
		return;
	}
	if (!st->ncols) {
		ctx_bad(ctx, 0, st->header_seen ? "data row under a rejected header" :
			"data row before any header");
		return;
	}
	if (!read_row_fixed(ctx, st, line, end) && !read_row_fast(ctx, st, line, end))
		read_row(ctx, st, line, end);
}

/* ---- dmon -------------------------------------------------------------------- */

static int dmon_sniff(const char *head, size_t n, const char *name)
{
	(void)name;
	return smi_mon_sniff(head, n, false);
}

const struct format format_smi_dmon = {
	.id = "smi-dmon",
	.summary = "nvidia-smi dmon device monitor log (any -s letters, -o D/T/DT, GPM columns)",
	.detects = "a first '# gpu', '#Date' or '#Time' header naming dmon columns "
		   "(pwr, sm, fb...) and no pid",
	.state_size = SMI_MON_STATE_SIZE,
	.sniff = dmon_sniff,
	.init = smi_mon_init_dmon,
	.is_context = smi_mon_is_context,
	.context_first = "#",
	.line = smi_mon_line,
};
