/* SPDX-License-Identifier: MIT */
/*
 * `nvidia-smi -q -x` XML (formats.md 2.8 and 11.13), read as a stream with
 * expat.  A file holds one document per poll, often many concatenated (cron
 * loops, telegraf and netdata captures), each with its own `<?xml` line and
 * DOCTYPE.  Expat reads one document per parser, so each document gets a
 * fresh parser; the bytes of the current document are kept so that the next
 * one can start exactly where the root element closed, whichever piece those
 * bytes came in.  A document's records are held until its root closes: a
 * document cut short or damaged is reported once, with file:line:col, and
 * dropped whole, and reading goes on at the next `<?xml` or
 * `<nvidia_smi_log`, so the documents before and after the damage are kept.
 */
#include "formats/format.h"

#include <expat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/smi.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

/* Longest document kept whole (a real 8-GPU document is about 2 MiB). */
#define MAX_DOC (64 * 1024 * 1024)
/* Longest text of one element that is read (longer: the value is unknown). */
#define MAX_TEXT 4096
/* Depth of the element stack that is tracked (deeper elements are skipped). */
#define MAX_DEPTH 32

/* The sections of a document that hold fields, by the element's parent. */
enum sec {
	S_OTHER,	/* anything not read */
	S_TOP,		/* above the root */
	S_ROOT,		/* nvidia_smi_log */
	S_GPU,
	S_UTIL,		/* utilization */
	S_FB,		/* fb_memory_usage */
	S_POWER,	/* power_readings, gpu_power_readings */
	S_TEMP,		/* temperature */
	S_CLOCKS,	/* clocks */
	S_MAXCLK,	/* max_clocks */
	S_REASONS,	/* clocks_event_reasons, clocks_throttle_reasons */
	S_PROCS,	/* processes */
	S_PROC,		/* process_info */
};

enum field {
	F_NONE,
	F_TIMESTAMP,
	F_DRIVER,
	F_NAME,
	F_UUID,
	F_FAN,
	F_PSTATE,
	F_METRIC,	/* a number (unit stripped) into v[arg] */
	F_POWER,	/* power draw family: arg = rank, 0 best */
	F_LIMIT,	/* power limit family: arg = rank, 0 best */
	F_REASON,	/* one Active / Not Active reason: arg = bit */
	F_PID,
	F_PROC_NAME,
	F_PROC_MEM,
};

struct elem_def {
	uint8_t parent;	/* enum sec */
	const char *name;
	uint8_t sec;	/* the section this element opens, or S_OTHER */
	uint8_t field;	/* enum field when it is a leaf that is read */
	uint16_t arg;
};

static const struct elem_def elems[] = {
	{ S_TOP, "nvidia_smi_log", S_ROOT, F_NONE, 0 },
	{ S_ROOT, "timestamp", S_OTHER, F_TIMESTAMP, 0 },
	{ S_ROOT, "driver_version", S_OTHER, F_DRIVER, 0 },
	{ S_ROOT, "gpu", S_GPU, F_NONE, 0 },
	{ S_GPU, "product_name", S_OTHER, F_NAME, 0 },
	{ S_GPU, "uuid", S_OTHER, F_UUID, 0 },
	{ S_GPU, "fan_speed", S_OTHER, F_METRIC, M_FAN },
	{ S_GPU, "performance_state", S_OTHER, F_PSTATE, 0 },
	{ S_GPU, "utilization", S_UTIL, F_NONE, 0 },
	{ S_GPU, "fb_memory_usage", S_FB, F_NONE, 0 },
	{ S_GPU, "power_readings", S_POWER, F_NONE, 0 },
	{ S_GPU, "gpu_power_readings", S_POWER, F_NONE, 0 },
	{ S_GPU, "temperature", S_TEMP, F_NONE, 0 },
	{ S_GPU, "clocks", S_CLOCKS, F_NONE, 0 },
	{ S_GPU, "max_clocks", S_MAXCLK, F_NONE, 0 },
	{ S_GPU, "clocks_event_reasons", S_REASONS, F_NONE, 0 },
	{ S_GPU, "clocks_throttle_reasons", S_REASONS, F_NONE, 0 },
	{ S_GPU, "processes", S_PROCS, F_NONE, 0 },
	{ S_UTIL, "gpu_util", S_OTHER, F_METRIC, M_UTIL_GPU },
	{ S_UTIL, "memory_util", S_OTHER, F_METRIC, M_UTIL_MEM },
	{ S_FB, "used", S_OTHER, F_METRIC, M_MEM_USED },
	{ S_FB, "total", S_OTHER, F_METRIC, M_MEM_TOTAL },
	{ S_POWER, "power_draw", S_OTHER, F_POWER, 0 },
	{ S_POWER, "average_power_draw", S_OTHER, F_POWER, 1 },
	{ S_POWER, "instant_power_draw", S_OTHER, F_POWER, 2 },
	{ S_POWER, "enforced_power_limit", S_OTHER, F_LIMIT, 0 },
	{ S_POWER, "current_power_limit", S_OTHER, F_LIMIT, 0 },
	{ S_POWER, "power_limit", S_OTHER, F_LIMIT, 1 },
	{ S_POWER, "requested_power_limit", S_OTHER, F_LIMIT, 1 },
	{ S_TEMP, "gpu_temp", S_OTHER, F_METRIC, M_TEMP },
	{ S_TEMP, "memory_temp", S_OTHER, F_METRIC, M_MEM_TEMP },
	{ S_CLOCKS, "sm_clock", S_OTHER, F_METRIC, M_SM_CLOCK },
	{ S_CLOCKS, "mem_clock", S_OTHER, F_METRIC, M_MEM_CLOCK },
	{ S_MAXCLK, "sm_clock", S_OTHER, F_METRIC, M_SM_CLOCK_MAX },
	{ S_PROCS, "process_info", S_PROC, F_NONE, 0 },
	{ S_PROC, "pid", S_OTHER, F_PID, 0 },
	{ S_PROC, "process_name", S_OTHER, F_PROC_NAME, 0 },
	{ S_PROC, "used_memory", S_OTHER, F_PROC_MEM, 0 },
};

/* Reason bits (formats.md 7.6), after the clocks_event_reason_ or
 * clocks_throttle_reason_ prefix of the element name. */
static const struct {
	const char *suffix;
	uint16_t bit;
} reasons[] = {
	{ "gpu_idle", 0x1 },
	{ "applications_clocks_setting", 0x2 },
	{ "sw_power_cap", 0x4 },
	{ "hw_slowdown", 0x8 },
	{ "sync_boost", 0x10 },
	{ "sw_thermal_slowdown", 0x20 },
	{ "hw_thermal_slowdown", 0x40 },
	{ "hw_power_brake_slowdown", 0x80 },
	{ "display_clocks_setting", 0x100 },
	{ "display_clock_setting", 0x100 },
};

/* A GPU or process of the open document, emitted when the root closes. */
struct pend {
	struct rec r;
	uint32_t uuid, name;	/* offsets into the document's strings, or STR_NONE */
	uint8_t power_rank, limit_rank;	/* best rank seen so far; 0xff none */
	bool reasons_seen;
};

enum mode { M_BETWEEN, M_DOC, M_RESYNC, M_FAILED };

struct smi_xml {
	uint8_t mode;
	XML_Parser xp;
	/* the bytes of the open document (or of the resync search), from buf[0] */
	char *buf;
	size_t off;		/* the live bytes are buf[off .. off + n) */
	size_t n, cap, fed;	/* fed: live bytes given to the parser */
	uint64_t abs;		/* file offset of buf[0] */
	uint64_t line, col;	/* line (1-based) and column (0-based) of buf[0] */
	uint64_t p_line, p_col;	/* where the parser's input began */
	uint64_t p_abs;
	uint64_t file_lines;	/* newlines in the file so far */
	bool last_nl;
	bool done;		/* the root closed: end offset in done_at */
	uint64_t done_at;	/* file offset just past the root's end tag */
	bool failed;		/* a handler found the document unusable */
	bool root_seen;		/* the open document's root element started */
	char why[160];
	uint64_t why_line;
	uint32_t why_col;
	/* the open document */
	struct parse_ctx *ctx;
	int depth;
	uint8_t sec[MAX_DEPTH];
	uint8_t field, field_depth;
	uint16_t field_arg;
	uint64_t field_line;
	uint32_t field_col;
	char text[MAX_TEXT];
	size_t text_n;
	bool text_long;
	bool has_time;
	int64_t t_ns;
	int gpus_in_doc;
	struct pend *pend;
	size_t npend, pend_cap;
	int cur_gpu;		/* index into pend of the open <gpu>, -1 none */
	int cur_proc;		/* index into pend of the open <process_info>, -1 none */
	char *strs;
	size_t strs_n, strs_cap;
	uint64_t docs;		/* documents read whole */
	char driver[64];	/* driver_version of the last document */
};

static void sx_init(void *state, const struct ingest_opts *o)
{
	struct smi_xml *x = state;
	(void)o;
	x->line = 1;
	x->cur_gpu = x->cur_proc = -1;
}

static void sx_fini(void *state)
{
	struct smi_xml *x = state;
	if (x->xp)
		XML_ParserFree(x->xp);
	x->xp = NULL;
	free(x->buf);
	free(x->pend);
	free(x->strs);
	x->buf = NULL;
	x->pend = NULL;
	x->strs = NULL;
}

/* ---- positions ---------------------------------------------------------- */

/* The live bytes: the open document (or what a resync still looks at). */
static char *live(const struct smi_xml *x)
{
	return x->buf + x->off;
}

/* Drop the first k live bytes, moving the origin's line and column past
 * them.  Only the start moves: the bytes are moved down once per piece
 * (compact), not once per document. */
static void drop(struct smi_xml *x, size_t k)
{
	const char *b = live(x);

	for (size_t i = 0; i < k; i++) {
		if (b[i] == '\n') {
			x->line++;
			x->col = 0;
		} else {
			x->col++;
		}
	}
	x->off += k;
	x->n -= k;
	x->fed = x->fed > k ? x->fed - k : 0;
	x->abs += k;
}

static void compact(struct smi_xml *x)
{
	if (x->off && x->n)
		memmove(x->buf, x->buf + x->off, x->n);
	x->off = 0;
}

/* The file line and 1-based column of the parser's current position. */
static void parser_pos(const struct smi_xml *x, uint64_t *line, uint32_t *col)
{
	uint64_t l = (uint64_t)XML_GetCurrentLineNumber(x->xp);
	uint64_t c = (uint64_t)XML_GetCurrentColumnNumber(x->xp);
	if (l < 1)
		l = 1;
	*line = x->p_line + l - 1;
	c += (l == 1 ? x->p_col : 0) + 1;
	*col = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

static void bad_at(struct parse_ctx *ctx, uint64_t line, uint32_t col, const char *fmt,
		   const char *a, const char *b)
{
	ctx->line = line;
	ctx_bad(ctx, col, fmt, a, b);
}

/* ---- the open document --------------------------------------------------- */

static uint32_t doc_str(struct smi_xml *x, const char *s, size_t n)
{
	uint32_t off;
	if (x->strs_n + n + 1 > UINT32_MAX / 2)
		return STR_NONE;
	ALLOC_GROW(x->strs, x->strs_n + n + 1, x->strs_cap);
	off = (uint32_t)x->strs_n;
	memcpy(x->strs + x->strs_n, s, n);
	x->strs[x->strs_n + n] = '\0';
	x->strs_n += n + 1;
	return off;
}

static void doc_reset(struct smi_xml *x)
{
	x->depth = 0;
	x->field = F_NONE;
	x->has_time = false;
	x->gpus_in_doc = 0;
	x->npend = 0;
	x->strs_n = 0;
	x->cur_gpu = x->cur_proc = -1;
	x->failed = false;
	x->root_seen = false;
	x->done = false;
}

static int pend_new(struct smi_xml *x, enum rec_kind kind)
{
	struct pend *p;
	ALLOC_GROW(x->pend, x->npend + 1, x->pend_cap);
	p = &x->pend[x->npend];
	memset(p, 0, sizeof(*p));
	p->r.kind = (uint8_t)kind;
	p->r.gpu_index = -1;
	p->uuid = p->name = STR_NONE;
	p->power_rank = p->limit_rank = 0xff;
	return (int)x->npend++;
}

/* The documents's records, in order, with the document's time. */
static void doc_emit(struct parse_ctx *ctx, struct smi_xml *x)
{
	for (size_t i = 0; i < x->npend; i++) {
		struct pend *p = &x->pend[i];
		struct rec *r;
		struct slice s;
		ctx->line = p->r.line;
		if (!(r = ctx_rec(ctx, (enum rec_kind)p->r.kind)))
			continue;
		*r = p->r;
		r->line = ctx->line;
		r->t_ns = x->has_time ? x->t_ns : 0;
		r->time_kind = x->has_time ? TK_ABS : TK_NONE;
		r->uuid = r->name = STR_NONE;
		if (p->uuid != STR_NONE) {
			s.p = x->strs + p->uuid;
			s.n = strlen(s.p);
			r->uuid = ctx_str(ctx, s);
		}
		if (p->name != STR_NONE) {
			s.p = x->strs + p->name;
			s.n = strlen(s.p);
			r->name = ctx_str(ctx, s);
		}
	}
	x->docs++;
}

/* ---- values ---------------------------------------------------------------- */

/*
 * A number with an optional unit ("18.00 W", "143771 MiB", "0 %", "40 C").
 * Anything else ("N/A", "[Not Supported]", "Requested functionality has
 * been deprecated", an empty element) is unknown, never 0; the tokens that
 * say more (a lost GPU) set status bits.
 */
static bool value_number(struct slice v, double *out, uint8_t *status)
{
	const char *p = v.p, *end = v.p + v.n;
	double d;

	v = slice_trim(v);
	p = v.p;
	end = v.p + v.n;
	if (smi_missing_token(v, status))
		return false;
	if (scan_double(&p, end, &d))
		return false;
	scan_skip_space(&p, end);
	while (p < end && ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '%' ||
			   *p == '/'))
		p++;
	if (p != end)
		return false;
	*out = d;
	return true;
}

static void set_metric(struct pend *p, int m, double v)
{
	p->r.v[m] = v;
	p->r.present |= 1u << m;
}

/* One leaf of a GPU: its text in x->text. */
static void gpu_field(struct smi_xml *x, struct pend *p, struct slice t)
{
	double v;
	uint8_t st = 0;
	struct slice tt = slice_trim(t);

	switch (x->field) {
	case F_NAME:
		if (tt.n && !smi_missing_token(tt, &st))
			p->name = doc_str(x, tt.p, tt.n);
		return;
	case F_UUID:
		if (tt.n && !smi_missing_token(tt, &st))
			p->uuid = doc_str(x, tt.p, tt.n);
		return;
	case F_PSTATE:
		if (tt.n >= 2 && tt.p[0] == 'P') {
			struct slice num = { tt.p + 1, tt.n - 1 };
			if (value_number(num, &v, &st) && v >= 0 && v <= 15)
				set_metric(p, M_PSTATE, v);
		}
		return;
	case F_METRIC:
		if (value_number(tt, &v, &st))
			set_metric(p, x->field_arg, v);
		break;
	case F_POWER:
		if (value_number(tt, &v, &st) && x->field_arg < p->power_rank) {
			set_metric(p, M_POWER, v);
			p->power_rank = (uint8_t)x->field_arg;
		}
		break;
	case F_LIMIT:
		if (value_number(tt, &v, &st) && x->field_arg < p->limit_rank) {
			set_metric(p, M_POWER_LIMIT, v);
			p->limit_rank = (uint8_t)x->field_arg;
		}
		break;
	case F_REASON:
		if (slice_eq(tt, "Active") || slice_eq(tt, "Not Active")) {
			if (!p->reasons_seen)
				set_metric(p, M_EVENT_MASK, 0);
			p->reasons_seen = true;
			if (tt.n == 6)
				p->r.v[M_EVENT_MASK] = (double)((uint64_t)p->r.v[M_EVENT_MASK] | x->field_arg);
		}
		return;
	default:
		return;
	}
	p->r.status |= st;
}

static void proc_field(struct smi_xml *x, struct pend *p, struct slice t)
{
	double v;
	uint8_t st = 0;
	struct slice tt = slice_trim(t);

	switch (x->field) {
	case F_PID:
		if (value_number(tt, &v, &st) && v >= 0 && v < 9.2e18 && v == (double)(int64_t)v)
			p->r.pid = (int64_t)v;
		return;
	case F_PROC_NAME:
		if (tt.n)
			p->name = doc_str(x, tt.p, tt.n);
		return;
	case F_PROC_MEM:
		if (value_number(tt, &v, &st)) {
			p->r.v[2] = v;
			p->r.present |= PF_FB;
		}
		return;
	default:
		return;
	}
}

static void leaf_done(struct smi_xml *x)
{
	struct slice t = { x->text, x->text_n };

	if (x->text_long)
		return;	/* longer than any value: unknown */
	if (x->field == F_TIMESTAMP) {
		if (!smi_ctime(t, &x->t_ns)) {
			x->has_time = true;
		} else {
			char q[48];
			struct slice tt = slice_trim(t);
			snprintf(q, sizeof(q), "%.*s", (int)(tt.n > 40 ? 40 : tt.n), tt.p);
			bad_at(x->ctx, x->field_line, x->field_col,
			       "%s \"%s\": the document's samples have no time", "bad <timestamp>", q);
		}
		return;
	}
	if (x->field == F_DRIVER) {
		struct slice tt = slice_trim(t);
		slice_copy(x->driver, sizeof(x->driver), tt);
		return;
	}
	if (x->cur_proc >= 0)
		proc_field(x, &x->pend[x->cur_proc], t);
	else if (x->cur_gpu >= 0)
		gpu_field(x, &x->pend[x->cur_gpu], t);
}

/* ---- expat handlers ------------------------------------------------------- */

static const struct elem_def *elem_find(uint8_t parent, const char *name)
{
	for (size_t i = 0; i < sizeof(elems) / sizeof(elems[0]); i++)
		if (elems[i].parent == parent && !strcmp(elems[i].name, name))
			return &elems[i];
	return NULL;
}

static uint16_t reason_bit(const char *name)
{
	static const char *const prefix[] = { "clocks_event_reason_", "clocks_throttle_reason_" };
	for (size_t i = 0; i < 2; i++) {
		size_t n = strlen(prefix[i]);
		if (strncmp(name, prefix[i], n))
			continue;
		for (size_t j = 0; j < sizeof(reasons) / sizeof(reasons[0]); j++)
			if (!strcmp(name + n, reasons[j].suffix))
				return reasons[j].bit;
	}
	return 0;
}

static void open_gpu(struct smi_xml *x, const XML_Char **attrs)
{
	struct pend *p;
	uint64_t line;
	uint32_t col;

	x->cur_gpu = pend_new(x, REC_SAMPLE);
	p = &x->pend[x->cur_gpu];
	parser_pos(x, &line, &col);
	p->r.line = line;
	/* nvidia-smi lists GPUs in index (PCI bus) order, so the position in
	 * the document is the index that dmon and --query-gpu print; the
	 * <minor_number> (the /dev/nvidiaN node) can differ from it */
	p->r.gpu_index = x->gpus_in_doc++;
	for (int i = 0; attrs[i] && attrs[i + 1]; i += 2)
		if (!strcmp(attrs[i], "id") && attrs[i + 1][0])
			p->uuid = doc_str(x, attrs[i + 1], strlen(attrs[i + 1]));
}

/* A <process_info> of the open <gpu>: a process record on that GPU. */
static void open_proc(struct smi_xml *x)
{
	const struct pend *g;
	struct pend *p;
	uint64_t line;
	uint32_t col;

	x->cur_proc = pend_new(x, REC_PROC);
	g = &x->pend[x->cur_gpu];	/* after pend_new: the array may have moved */
	p = &x->pend[x->cur_proc];
	parser_pos(x, &line, &col);
	p->r.line = line;
	p->r.pid = -2;	/* unknown process, as smi-apps: until <pid> says */
	p->r.gpu_index = g->r.gpu_index;
	p->uuid = g->uuid;	/* <uuid> comes before <processes> */
}

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **attrs)
{
	struct smi_xml *x = ud;
	uint8_t parent = x->depth == 0 ? S_TOP
		: x->depth <= MAX_DEPTH ? x->sec[x->depth - 1] : S_OTHER;
	const struct elem_def *e = parent == S_OTHER ? NULL : elem_find(parent, name);
	uint8_t sec = e ? e->sec : S_OTHER;

	if (x->depth == 0 && !e) {
		parser_pos(x, &x->why_line, &x->why_col);
		snprintf(x->why, sizeof(x->why), "not an nvidia-smi -q -x document: root <%.60s>, not <nvidia_smi_log>", name);
		x->failed = true;
		XML_StopParser(x->xp, XML_FALSE);
		return;
	}
	x->root_seen = true;
	x->field = F_NONE;	/* text of an element with children is not a value */
	if (x->depth < MAX_DEPTH)
		x->sec[x->depth] = sec;
	x->depth++;
	if (sec == S_GPU) {
		open_gpu(x, attrs);
	} else if (sec == S_PROC && x->cur_gpu >= 0) {
		open_proc(x);
	}
	if (e && e->field != F_NONE) {
		x->field = e->field;
		x->field_arg = e->arg;
	} else if (parent == S_REASONS) {
		uint16_t bit = reason_bit(name);
		if (bit) {
			x->field = F_REASON;
			x->field_arg = bit;
		}
	}
	if (x->field != F_NONE) {
		x->field_depth = (uint8_t)(x->depth > 255 ? 255 : x->depth);
		x->text_n = 0;
		x->text_long = false;
		parser_pos(x, &x->field_line, &x->field_col);
	}
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len)
{
	struct smi_xml *x = ud;
	if (x->field == F_NONE || len <= 0)
		return;
	if (x->text_n + (size_t)len > MAX_TEXT) {
		x->text_long = true;
		return;
	}
	memcpy(x->text + x->text_n, s, (size_t)len);
	x->text_n += (size_t)len;
}

static void XMLCALL on_end(void *ud, const XML_Char *name)
{
	struct smi_xml *x = ud;
	uint8_t sec = x->depth >= 1 && x->depth <= MAX_DEPTH ? x->sec[x->depth - 1] : S_OTHER;
	(void)name;

	if (x->field != F_NONE && x->field_depth == x->depth)
		leaf_done(x);
	x->field = F_NONE;
	x->depth--;
	if (sec == S_PROC) {
		x->cur_proc = -1;
	} else if (sec == S_GPU) {
		x->cur_gpu = -1;
	} else if (sec == S_ROOT) {
		x->done = true;
		x->done_at = x->p_abs + (uint64_t)XML_GetCurrentByteIndex(x->xp) +
			     (uint64_t)XML_GetCurrentByteCount(x->xp);
		XML_StopParser(x->xp, XML_FALSE);
	}
}

/* ---- documents in the stream ---------------------------------------------- */

static void start_parser(struct smi_xml *x)
{
	x->xp = XML_ParserCreate(NULL);
	if (!x->xp) {
		fprintf(stderr, "gputally: out of memory (expat parser)\n");
		abort();
	}
	XML_SetUserData(x->xp, x);
	XML_SetElementHandler(x->xp, on_start, on_end);
	XML_SetCharacterDataHandler(x->xp, on_text);
	x->p_line = x->line;
	x->p_col = x->col;
	x->p_abs = x->abs;
	x->fed = 0;
	doc_reset(x);
	x->mode = M_DOC;
}

static void stop_parser(struct smi_xml *x)
{
	XML_ParserFree(x->xp);
	x->xp = NULL;
}

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* The damaged document: reported once where expat stopped, its records
 * dropped; reading goes on at the next document (resync). */
static void doc_error(struct parse_ctx *ctx, struct smi_xml *x, bool last)
{
	enum XML_Error code = XML_GetErrorCode(x->xp);
	XML_Index at = XML_GetCurrentByteIndex(x->xp);
	uint64_t line, off;
	uint32_t col;
	char what[200];
	const char *kind = "bad XML";

	parser_pos(x, &line, &col);
	off = at < 0 ? x->n : (uint64_t)at;
	if (off > x->n)
		off = x->n;
	if (x->failed) {
		ctx->line = x->why_line;
		ctx_bad(ctx, x->why_col, "not read: %s", x->why);
		goto resync;
	} else if (!x->root_seen) {
		ctx->line = line;
		ctx_bad(ctx, col, "bad XML: text where a document should start (%s); skipped to the next <?xml or <nvidia_smi_log>",
			XML_ErrorString(code));
		goto resync;
	} else if (code == XML_ERROR_MISPLACED_XML_PI && x->n - off >= 5 &&
		   !memcmp(live(x) + off, "<?xml", 5)) {
		snprintf(what, sizeof(what), "a new document starts here before the one at line %llu closed",
			 (unsigned long long)x->p_line);
		kind = "document cut short";
	} else if (last && (code == XML_ERROR_NO_ELEMENTS || code == XML_ERROR_UNCLOSED_TOKEN ||
			    code == XML_ERROR_PARTIAL_CHAR) && off + 64 >= x->n) {
		snprintf(what, sizeof(what), "the file ends inside the document that starts at line %llu",
			 (unsigned long long)x->p_line);
		kind = "document cut short";
	} else {
		snprintf(what, sizeof(what), "%s", XML_ErrorString(code));
	}
	ctx->line = line;
	ctx_bad(ctx, col, "%s: %s (%zu record%s of this document dropped, %llu document%s before it kept)",
		kind, what, x->npend, x->npend == 1 ? "" : "s", (unsigned long long)x->docs,
		x->docs == 1 ? "" : "s");
resync:
	stop_parser(x);
	x->mode = M_RESYNC;
	/* the next document can start at the error itself (a new <?xml) */
	drop(x, off ? (size_t)off : 1);
}

/* Look for the next document's start; true when found (buf[0] is it). */
static bool resync(struct smi_xml *x, bool last)
{
	static const char *const marks[] = { "<?xml", "<nvidia_smi_log" };
	const char *best = NULL;
	size_t keep = 14;	/* a mark cut by the end of the piece */

	for (size_t i = 0; i < 2; i++) {
		const char *m = memmem(live(x), x->n, marks[i], strlen(marks[i]));
		if (m && (!best || m < best))
			best = m;
	}
	if (best) {
		drop(x, (size_t)(best - live(x)));
		x->mode = M_BETWEEN;
		return true;
	}
	if (last)
		keep = 0;
	if (x->n > keep)
		drop(x, x->n - keep);
	return false;
}

/* Feed what is buffered to the parser, document after document. */
static void pump(struct parse_ctx *ctx, struct smi_xml *x, bool last)
{
	for (;;) {
		if (x->mode == M_RESYNC && !resync(x, last))
			return;
		if (x->mode == M_BETWEEN) {
			size_t k = 0;
			while (k < x->n && is_ws(live(x)[k]))
				k++;
			drop(x, k);
			if (!x->n)
				return;
			start_parser(x);
		}
		if (x->mode != M_DOC)
			return;
		enum XML_Status st = XML_STATUS_OK;
		bool final_sent = false;
		do {
			size_t len = x->n - x->fed;
			bool fin;
			if (len > (1u << 20))
				len = 1u << 20;
			fin = last && x->fed + len == x->n;
			st = XML_Parse(x->xp, live(x) + x->fed, (int)len, fin);
			x->fed += len;
			final_sent = fin;
		} while (st == XML_STATUS_OK && x->fed < x->n);
		if (x->done) {
			doc_emit(ctx, x);
			stop_parser(x);
			drop(x, (size_t)(x->done_at - x->abs));
			x->mode = M_BETWEEN;
			continue;
		}
		if (st != XML_STATUS_OK) {
			doc_error(ctx, x, last);
			continue;
		}
		if (final_sent || !last)
			return;
	}
}

static void sx_stream(struct parse_ctx *ctx, const char *p, size_t n, bool last)
{
	struct smi_xml *x = ctx->state;

	x->ctx = ctx;
	for (const char *q = p, *end = p + n; q < end && (q = memchr(q, '\n', (size_t)(end - q))); q++)
		x->file_lines++;
	if (n)
		x->last_nl = p[n - 1] == '\n';
	if (x->mode != M_FAILED) {
		if (x->n + n > MAX_DOC) {
			ctx->line = x->line;
			ctx_bad(ctx, (uint32_t)(x->col + 1), "not read: a document longer than 64 MiB "
				"(%llu documents before it kept)", (unsigned long long)x->docs);
			ctx->out->recs[ctx->out->nr - 1].ev = BAD_FATAL;
			if (x->xp)
				stop_parser(x);
			x->mode = M_FAILED;
		} else {
			compact(x);
			ALLOC_GROW(x->buf, x->n + n, x->cap);
			if (n)
				memcpy(x->buf + x->n, p, n);
			x->n += n;
			pump(ctx, x, last);
		}
	}
	ctx->line = x->file_lines + (n || x->file_lines ? !x->last_nl : 0);
}

/* Skip a UTF-8 byte order mark and blank space. */
static const char *skip_lead(const char *p, const char *end)
{
	if (end - p >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
		p += 3;
	while (p < end && is_ws(*p))
		p++;
	return p;
}

static int sx_sniff(const char *head, size_t n, const char *name)
{
	const char *p = skip_lead(head, head + n), *end = head + n;
	size_t rest = (size_t)(end - p);
	(void)name;

	if (rest >= 15 && !memcmp(p, "<nvidia_smi_log", 15))
		return 90;
	if (rest >= 5 && (!memcmp(p, "<?xml", 5) || !memcmp(p, "<!DOC", 5))) {
		if (memmem(p, rest, "<nvidia_smi_log", 15) || memmem(p, rest, "nvsmi_device_v", 14))
			return 95;
	}
	return 0;
}

const struct format format_smi_xml = {
	.id = "smi-xml",
	.summary = "nvidia-smi -q -x XML: one document per poll, concatenated documents in one file",
	.detects = "an XML document whose root is <nvidia_smi_log> (or an nvsmi_device_vNN.dtd DOCTYPE)",
	.state_size = sizeof(struct smi_xml),
	.sniff = sx_sniff,
	.init = sx_init,
	.stream = sx_stream,
	.fini = sx_fini,
};
