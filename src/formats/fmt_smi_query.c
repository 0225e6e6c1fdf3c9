/* SPDX-License-Identifier: MIT */
/* nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits] logs. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/format.h"
#include "formats/kmsg.h"
#include "formats/smi.h"
#include "util/pci.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

/* Exporters query every field (formats.md 11.2: 202 to 212 columns, power past
 * column 140), so the column table grows with the header: no column limit.
 * The only bound left is the driver's line cap (MAX_LINE), reported there. */
#define UNIT_MAX 8
/* a headerless file's siblings: how many are looked at, and how much of each */
#define SIBLING_FILES 1024
#define SIBLING_FILES_STR "1024"
#define SIBLING_BYTES (16 * 1024)	/* a 212-column header is about 7 KiB */
/* how much of an offending token a message quotes */

/* ---- shared CSV helpers ------------------------------------------------- */

void smi_csv_skip_bom(const char **line, size_t *n)
{
	if (*n >= 3 && !memcmp(*line, "\xEF\xBB\xBF", 3)) {
		*line += 3;
		*n -= 3;
	}
}

static bool is_lower(char c)
{
	return c >= 'a' && c <= 'z';
}

static bool is_name_char(char c)
{
	return is_lower(c) || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '.';
}

/*
 * A header field is a field name ("pci.baseClass" has capitals inside) and
 * an optional " [unit]".  Data never looks like that: values start with a
 * digit, a capital, "[" or "-", or hold a space before a unit.
 */
static bool is_header_field(struct slice f)
{
	size_t i = 0;

	f = slice_trim(f);
	if (!f.n || !is_lower(f.p[0]))
		return false;
	while (i < f.n && is_name_char(f.p[i]))
		i++;
	if (i == f.n)
		return true;
	while (i < f.n && f.p[i] == ' ')
		i++;
	if (i == f.n || f.p[i] != '[' || f.p[f.n - 1] != ']')
		return false;
	for (i++; i < f.n - 1; i++)
		if (f.p[i] == '[' || f.p[i] == ']' || f.p[i] == ',')
			return false;
	return true;
}

bool smi_csv_is_header(const char *line, size_t n)
{
	const char *p, *end;

	smi_csv_skip_bom(&line, &n);
	p = line;
	end = line + n;
	if (!n || !is_lower(line[0]))
		return false;
	for (;;) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		const char *fe = c ? c : end;
		if (!is_header_field((struct slice){ p, (size_t)(fe - p) }))
			return false;
		if (!c)
			return true;
		p = c + 1;
	}
}

/*
 * Record where each field starts (byte offsets; field k ends one byte before
 * field k+1).  Only the first cap starts are stored; the return value counts
 * every field.
 */
size_t smi_csv_split(const char *line, size_t n, uint32_t *start, size_t cap)
{
	const char *p = line, *end = line + n;
	size_t nf = 1;

	start[0] = 0;
	for (;;) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		if (!c)
			break;
		if (nf < cap)
			start[nf] = (uint32_t)(c + 1 - line);
		nf++;
		p = c + 1;
	}
	return nf;
}

/* A row of nf fields where ncols were expected: said at the first extra field, or at its end. */
void smi_csv_bad_count(struct parse_ctx *ctx, const char *line, size_t n, const uint32_t *start,
		       size_t cap, size_t nf, size_t ncols)
{
	const char *cut = ctx->last_line_partial ? "line cut short: " : "";

	if (nf > ncols && ncols < cap) {
		const char *x = line + start[ncols];
		scan_skip_space(&x, line + n);
		ctx_bad(ctx, ctx_col(line, x), "%sexpected %zu fields, got %zu", cut, ncols, nf);
	} else {	/* said where the first missing field would start */
		ctx_bad(ctx, ctx_col(line, line + n), "%sexpected %zu fields, got %zu", cut, ncols, nf);
	}
}

/* Emit r (its kind set) with the UUID and name, when given, copied into the batch. */
void smi_csv_emit(struct parse_ctx *ctx, const struct rec *r, struct slice uuid,
		  struct slice name)
{
	struct rec *o = ctx_rec(ctx, r->kind);

	if (!o)
		return;
	*o = *r;
	o->line = ctx->line;
	o->uuid = uuid.p ? ctx_str(ctx, uuid) : STR_NONE;
	o->name = name.p ? ctx_str(ctx, name) : STR_NONE;
}

/* Fields first..last (inclusive, all below cap) as one trimmed slice. */
struct slice smi_csv_field(const char *line, size_t n, const uint32_t *start, size_t nf,
			   size_t first, size_t last)
{
	size_t b = start[first];
	size_t e = last + 1 < nf ? start[last + 1] - 1 : n;
	return slice_trim((struct slice){ line + b, e - b });
}

/* "memory.used [MiB]" -> "memory.used", unit "MiB" (empty when none). */
struct slice smi_csv_header_name(struct slice f, struct slice *unit)
{
	f = slice_trim(f);
	unit->p = f.p + f.n;
	unit->n = 0;
	if (f.n >= 2 && f.p[f.n - 1] == ']') {
		size_t i = f.n - 1;
		while (i > 0 && f.p[i] != '[')
			i--;
		if (f.p[i] == '[') {
			unit->p = f.p + i + 1;
			unit->n = f.n - 1 - (i + 1);
			*unit = slice_trim(*unit);
			f.n = i;
			f = slice_trim(f);
		}
	}
	return f;
}

static int scan_sep(const char **pp, const char *end, char sep)
{
	if (*pp >= end || **pp != sep)
		return -1;
	(*pp)++;
	return 0;
}

/* "YYYY/MM/DD HH:MM:SS[.fff]" in local time -> UTC ns.  0 or -1. */
int smi_csv_time(struct slice s, int64_t *t_ns)
{
	const char *p = s.p, *end = s.p + s.n;
	int y, mo, d, h, mi, sec;
	int64_t t_s, frac_ns = 0;

	if (scan_fixed_digits(&p, end, 4, &y) || scan_sep(&p, end, '/') ||
	    scan_fixed_digits(&p, end, 2, &mo) || scan_sep(&p, end, '/') ||
	    scan_fixed_digits(&p, end, 2, &d) || scan_sep(&p, end, ' ') ||
	    scan_fixed_digits(&p, end, 2, &h) || scan_sep(&p, end, ':') ||
	    scan_fixed_digits(&p, end, 2, &mi) || scan_sep(&p, end, ':') ||
	    scan_fixed_digits(&p, end, 2, &sec))
		return -1;
	if (p < end && *p == '.') {
		int64_t scale = NS_PER_S;
		int nd = 0;
		for (p++; p < end && *p >= '0' && *p <= '9'; p++, nd++) {
			if (nd >= 9)
				return -1;
			scale /= 10;
			frac_ns += (*p - '0') * scale;
		}
		if (!nd)
			return -1;
	}
	if (p != end || !civil_valid(y, mo, d) || h > 23 || mi > 59 || sec > 60)
		return -1;
	if (time_local_to_utc(y, mo, d, h, mi, sec, &t_s))
		return -1;
	*t_ns = t_s * NS_PER_S + frac_ns;
	return 0;
}

static bool is_unit_token(struct slice u)
{
	if (!u.n || u.n > UNIT_MAX)
		return false;
	for (size_t i = 0; i < u.n; i++) {
		char c = u.p[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '%' || c == '/'))
			return false;
	}
	return true;
}

/*
 * "99.02 W", "99.02", "25 %": the number and an optional unit, which must be
 * the header's unit when the header named one (so a shifted row fails), else
 * any unit word.
 */
bool smi_csv_number(struct slice v, const char *unit, double *out)
{
	const char *p = v.p, *end = v.p + v.n;
	struct slice u;

	if (scan_double(&p, end, out))
		return false;
	if (p == end)
		return true;
	if (*p != ' ')
		return false;
	while (p < end && *p == ' ')
		p++;
	u = (struct slice){ p, (size_t)(end - p) };
	if (unit && unit[0])
		return slice_eq(u, unit);
	return is_unit_token(u);
}

static bool ends_with(struct slice s, const char *lit)
{
	size_t n = strlen(lit);
	s = slice_trim(s);
	return s.n >= n && !memcmp(s.p + s.n - n, lit, n);
}

/*
 * nvidia-smi prints these instead of CSV when it fails (formats.md 2.6).
 * Returns true when the line was one (an event, or a skipped warning).
 */
bool smi_csv_tool_text(struct parse_ctx *ctx, const char *line, size_t n)
{
	static const char *const failures[] = {
		"Field \"",
		"No devices were found",
		"NVIDIA-SMI has failed",
		"Failed to initialize NVML",
		"Unable to determine the device handle",
	};
	struct slice s = { line, n };

	if (line[0] != 'F' && line[0] != 'N' && line[0] != 'U' && line[0] != 'W')
		return false;
	/* a warning precedes otherwise valid CSV: not data, not an error */
	if (slice_starts_with(s, "WARNING:"))
		return true;
	for (size_t i = 0; i < sizeof(failures) / sizeof(failures[0]); i++) {
		if (!slice_starts_with(s, failures[i]))
			continue;
		ctx_event(ctx, ends_with(s, "fallen off the bus.") ? EV_GPU_LOST : EV_TOOL_ERROR,
			  INT64_MIN, TK_ABS, -1, "%.*s", (int)(n > 200 ? 200 : n), line);
		return true;
	}
	return false;
}

/* ---- the query-gpu column table ----------------------------------------- */

enum role {
	R_IGNORE,	/* unknown column: counted for the field check only */
	R_KNOWN,	/* a real query-gpu field that we do not read */
	R_TIME,
	R_INDEX,
	R_UUID,
	R_NAME,
	R_BUS,		/* pci.bus_id: passed on as an EV_GPU_MAP record (timeline.h) */
	R_METRIC,	/* a number into v[metric] */
	R_POWER,	/* power.draw family: the best rank present wins */
	R_LIMIT,	/* power limit family: the best rank present wins */
	R_PSTATE,
	R_MASK,		/* clocks_event_reasons.active hex mask */
	R_REASON,	/* one Active/Not Active reason: bit */
};

struct field_def {
	const char *name;
	uint8_t role;
	uint8_t arg;	/* R_METRIC: enum metric; R_POWER, R_LIMIT: rank, 0 best */
	uint16_t bit;	/* R_REASON: formats.md 7.6 */
};

#define REASON(suffix, b) \
	{ "clocks_event_reasons." suffix, R_REASON, 0, b }, \
	{ "clocks_throttle_reasons." suffix, R_REASON, 0, b }

/* One row per canonical name and per alias (help_query_gpu.txt, driver 580). */
static const struct field_def fields[] = {
	{ "timestamp", R_TIME, 0, 0 },
	{ "index", R_INDEX, 0, 0 },
	{ "uuid", R_UUID, 0, 0 },
	{ "gpu_uuid", R_UUID, 0, 0 },
	{ "name", R_NAME, 0, 0 },
	{ "gpu_name", R_NAME, 0, 0 },
	{ "utilization.gpu", R_METRIC, M_UTIL_GPU, 0 },
	{ "utilization.memory", R_METRIC, M_UTIL_MEM, 0 },
	{ "memory.used", R_METRIC, M_MEM_USED, 0 },
	{ "memory.total", R_METRIC, M_MEM_TOTAL, 0 },
	{ "power.draw", R_POWER, 0, 0 },
	{ "power.draw.average", R_POWER, 1, 0 },
	{ "gpu.power.draw.average", R_POWER, 1, 0 },
	{ "power.draw.instant", R_POWER, 2, 0 },
	{ "gpu.power.draw.instant", R_POWER, 2, 0 },
	{ "enforced.power.limit", R_LIMIT, 0, 0 },
	{ "gpu.power.current_limit", R_LIMIT, 0, 0 },
	{ "power.limit", R_LIMIT, 1, 0 },
	{ "gpu.power.requested_limit", R_LIMIT, 1, 0 },
	{ "temperature.gpu", R_METRIC, M_TEMP, 0 },
	{ "temperature.memory", R_METRIC, M_MEM_TEMP, 0 },
	{ "clocks.current.sm", R_METRIC, M_SM_CLOCK, 0 },
	{ "clocks.sm", R_METRIC, M_SM_CLOCK, 0 },
	{ "clocks.current.memory", R_METRIC, M_MEM_CLOCK, 0 },
	{ "clocks.mem", R_METRIC, M_MEM_CLOCK, 0 },
	{ "clocks.max.sm", R_METRIC, M_SM_CLOCK_MAX, 0 },
	{ "fan.speed", R_METRIC, M_FAN, 0 },
	{ "memory.reserved", R_METRIC, M_MEM_RESERVED, 0 },
	{ "pcie.link.gen.current", R_METRIC, M_PCIE_GEN, 0 },
	{ "pcie.link.gen.max", R_METRIC, M_PCIE_GEN_MAX, 0 },
	{ "pcie.link.width.current", R_METRIC, M_PCIE_WIDTH, 0 },
	{ "pcie.link.width.max", R_METRIC, M_PCIE_WIDTH_MAX, 0 },
	{ "pstate", R_PSTATE, 0, 0 },
	{ "clocks_event_reasons.active", R_MASK, 0, 0 },
	{ "clocks_throttle_reasons.active", R_MASK, 0, 0 },
	REASON("gpu_idle", 0x1),
	REASON("applications_clocks_setting", 0x2),
	REASON("sw_power_cap", 0x4),
	REASON("hw_slowdown", 0x8),
	REASON("sync_boost", 0x10),
	REASON("sw_thermal_slowdown", 0x20),
	REASON("hw_thermal_slowdown", 0x40),
	REASON("hw_power_brake_slowdown", 0x80),
	REASON("display_clock_setting", 0x100),
	/* real fields that are not read: they make a header recognisable */
	{ "driver_version", R_KNOWN, 0, 0 },
	{ "count", R_KNOWN, 0, 0 },
	{ "serial", R_KNOWN, 0, 0 },
	{ "gpu_serial", R_KNOWN, 0, 0 },
	{ "pci.bus_id", R_BUS, 0, 0 },
	{ "gpu_bus_id", R_BUS, 0, 0 },
	{ "memory.free", R_KNOWN, 0, 0 },
	{ "utilization.encoder", R_KNOWN, 0, 0 },
	{ "utilization.decoder", R_KNOWN, 0, 0 },
	{ "utilization.jpeg", R_KNOWN, 0, 0 },
	{ "utilization.ofa", R_KNOWN, 0, 0 },
	{ "temperature.gpu.tlimit", R_KNOWN, 0, 0 },
	{ "power.management", R_KNOWN, 0, 0 },
	{ "power.default_limit", R_KNOWN, 0, 0 },
	{ "power.min_limit", R_KNOWN, 0, 0 },
	{ "power.max_limit", R_KNOWN, 0, 0 },
	{ "clocks.current.graphics", R_KNOWN, 0, 0 },
	{ "clocks.gr", R_KNOWN, 0, 0 },
	{ "clocks.current.video", R_KNOWN, 0, 0 },
	{ "clocks.video", R_KNOWN, 0, 0 },
	{ "clocks.max.graphics", R_KNOWN, 0, 0 },
	{ "clocks.max.gr", R_KNOWN, 0, 0 },
	{ "clocks.max.memory", R_KNOWN, 0, 0 },
	{ "clocks.max.mem", R_KNOWN, 0, 0 },
	{ "clocks_event_reasons.supported", R_KNOWN, 0, 0 },
	{ "clocks_throttle_reasons.supported", R_KNOWN, 0, 0 },
	{ "persistence_mode", R_KNOWN, 0, 0 },
	{ "compute_mode", R_KNOWN, 0, 0 },
	{ "display_mode", R_KNOWN, 0, 0 },
	{ "display_active", R_KNOWN, 0, 0 },
	{ "mig.mode.current", R_KNOWN, 0, 0 },
	{ "mig.mode.pending", R_KNOWN, 0, 0 },
	{ "vbios_version", R_KNOWN, 0, 0 },
};

/* Families of real fields, recognised by prefix. */
static const char *const known_prefixes[] = {
	"pcie.link.", "ecc.errors.", "retired_pages.", "clocks_event_reasons_counters.",
	"clocks.applications.", "clocks.default_applications.", "pci.", "inforom.",
	"module.power.", "power_smoothing.", "gom.", "vgpu_",
};

static const struct field_def *field_exact(struct slice name)
{
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (slice_eq(name, fields[i].name))
			return &fields[i];
	return NULL;
}

/*
 * Hand-written spellings of a field (docs/formats/smi-query.md): a
 * training script's own header over noheader,nounits rows names
 * "gpu_utilization", "memory_used", "temperature".  After the exact name:
 * lower case with '_', '-' and ' ' read as '.', then without a "gpu."
 * prefix, then with ".gpu" after it ("utilization" -> utilization.gpu),
 * then these short forms.
 */
static const struct { const char *from, *to; } spellings[] = {
	{ "util", "utilization.gpu" }, { "mem.util", "utilization.memory" },
	{ "memory.util", "utilization.memory" }, { "memory.utilization", "utilization.memory" },
	{ "mem.used", "memory.used" }, { "mem.total", "memory.total" },
	{ "power", "power.draw" }, { "temp", "temperature.gpu" },
	{ "sm.clock", "clocks.sm" }, { "clock.sm", "clocks.sm" },
	{ "mem.clock", "clocks.mem" }, { "clock.mem", "clocks.mem" },
};

static const struct field_def *field_spelt(const char *n)
{
	const struct field_def *d = field_exact((struct slice){ n, strlen(n) });

	for (size_t i = 0; !d && i < sizeof(spellings) / sizeof(spellings[0]); i++)
		if (!strcmp(n, spellings[i].from))
			d = field_exact((struct slice){ spellings[i].to, strlen(spellings[i].to) });
	return d;
}

/* The field name as written, else as respelt (NUL-terminated into buf). */
static const struct field_def *field_resolve(struct slice name, char *buf, size_t cap)
{
	const struct field_def *d = field_exact(name);
	char *n = buf;
	size_t k;

	buf[0] = '\0';
	if (d || !name.n || name.n + 5 > cap)
		return d;
	for (k = 0; k < name.n; k++) {
		char c = name.p[k];
		buf[k] = c == '_' || c == '-' || c == ' ' ? '.' : c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
	}
	buf[k] = '\0';
	if ((d = field_spelt(n)))
		return d;
	if (!strncmp(n, "gpu.", 4) && n[4]) {
		n += 4;
		if ((d = field_spelt(n)))
			return d;
	}
	memmove(buf, n, strlen(n) + 1);
	strcat(buf, ".gpu");
	d = field_exact((struct slice){ buf, strlen(buf) });
	buf[strlen(buf) - 4] = '\0';
	return d;
}

static const struct field_def *field_lookup(struct slice name)
{
	char buf[128];

	return field_resolve(name, buf, sizeof(buf));
}

static bool field_known(struct slice name)
{
	char buf[128];

	if (field_resolve(name, buf, sizeof(buf)))
		return true;
	for (size_t i = 0; i < sizeof(known_prefixes) / sizeof(known_prefixes[0]); i++)
		if (slice_starts_with(name, known_prefixes[i]) ||
		    (buf[0] && !strncmp(buf, known_prefixes[i], strlen(known_prefixes[i]))))
			return true;
	return false;
}

/* ---- state -------------------------------------------------------------- */

struct col {
	uint8_t role;
	uint8_t arg;
	uint16_t bit;
	uint8_t def;		/* index into fields[], for messages */
	char unit[UNIT_MAX];	/* the header's " [unit]", NUL-terminated */
};

struct query_state {
	uint32_t ncols;		/* fields a row must have; 0: no column list yet */
	bool has_time;
	bool has_mask;
	bool has_unit;		/* some column names a unit: a unit-less last cell may be cut */
	uint16_t nreasons;	/* R_REASON columns, when there is no mask column */
	struct col *cols;	/* ncols entries (cols_alloc allocated), owned */
	size_t cols_alloc;
	uint32_t *start;	/* a row's field offsets (start_alloc), owned */
	size_t start_alloc;
	/* the GPUs whose bus id this chunk has passed on (index + 1, 0 free) */
	int32_t bus_told[16];
};

/* Free the tables (the driver calls it before freeing the state). */
static void query_fini(void *state)
{
	struct query_state *st = state;

	free(st->cols);
	free(st->start);
	st->cols = NULL;
	st->start = NULL;
}

/* Room for n columns, the new ones zeroed (R_IGNORE). */
static void cols_reserve(struct query_state *st, size_t n)
{
	size_t old = st->cols_alloc;

	if (n <= old)
		return;
	st->cols_alloc = n < 2 * old ? 2 * old : n < 64 ? 64 : n;
	st->cols = xreallocarray(st->cols, st->cols_alloc, sizeof(*st->cols));
	memset(st->cols + old, 0, (st->cols_alloc - old) * sizeof(*st->cols));
}

/* Map a comma list of names (a header line, or --columns) onto the state. */
static void set_columns(struct query_state *st, const char *p, size_t n)
{
	const char *end = p + n;
	int best_power = 255, best_limit = 255;
	uint32_t nc = 0;

	st->ncols = 0;
	st->has_time = st->has_mask = st->has_unit = false;
	st->nreasons = 0;
	if (st->cols_alloc)
		memset(st->cols, 0, st->cols_alloc * sizeof(*st->cols));
	for (;;) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		const char *fe = c ? c : end;
		struct slice unit, name = smi_csv_header_name((struct slice){ p, (size_t)(fe - p) },
							      &unit);
		cols_reserve(st, (size_t)nc + 1);
		{
			struct col *cl = &st->cols[nc];
			const struct field_def *d = field_lookup(name);
			if (d) {
				cl->role = d->role;
				cl->arg = d->arg;
				cl->bit = d->bit;
				cl->def = (uint8_t)(d - fields);
			}
			if (unit.n < UNIT_MAX)
				slice_copy(cl->unit, UNIT_MAX, unit);
			if (unit.n)
				st->has_unit = true;
			if (cl->role == R_POWER && cl->arg < best_power)
				best_power = cl->arg;
			if (cl->role == R_LIMIT && cl->arg < best_limit)
				best_limit = cl->arg;
			if (cl->role == R_MASK)
				st->has_mask = true;
			if (cl->role == R_TIME)
				st->has_time = true;
		}
		nc++;
		if (!c)
			break;
		p = c + 1;
	}
	st->ncols = nc;
	/* power.draw over .average over .instant; enforced over requested limit */
	for (uint32_t i = 0; i < nc; i++) {
		struct col *cl = &st->cols[i];
		if ((cl->role == R_POWER && cl->arg != best_power) ||
		    (cl->role == R_LIMIT && cl->arg != best_limit) ||
		    (cl->role == R_REASON && st->has_mask))
			cl->role = R_KNOWN;
		if (cl->role == R_REASON)
			st->nreasons++;
	}
}

static void query_init(void *state, const struct ingest_opts *o)
{
	struct query_state *st = state;

	if (o && o->columns && o->columns[0])
		set_columns(st, o->columns, strlen(o->columns));
}

struct header_info {
	size_t nf, known;
	bool pid, apps, util;
};

static void header_scan(const char *p, size_t n, struct header_info *hi)
{
	const char *end = p + n;

	memset(hi, 0, sizeof(*hi));
	smi_csv_skip_bom(&p, &n);
	for (;;) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		const char *fe = c ? c : end;
		struct slice unit, name = smi_csv_header_name((struct slice){ p, (size_t)(fe - p) },
							      &unit);
		hi->nf++;
		hi->known += field_known(name);
		hi->pid |= slice_eq(name, "pid");
		hi->apps |= slice_eq(name, "process_name") || slice_eq(name, "used_gpu_memory") ||
			    slice_eq(name, "used_memory");
		{
			const struct field_def *d = field_lookup(name);
			hi->util |= d && d->role == R_METRIC &&
				    (d->arg == M_UTIL_GPU || d->arg == M_UTIL_MEM);
		}
		if (!c)
			break;
		p = c + 1;
	}
}

void smi_csv_unread_columns(const char *p, size_t n, char *out, size_t cap)
{
	const char *end;
	size_t k = 0;

	if (cap)
		out[0] = '\0';
	smi_csv_skip_bom(&p, &n);
	end = p + n;
	if (!n || !smi_csv_is_header(p, n))
		return;
	for (;;) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		const char *fe = c ? c : end;
		struct slice f = slice_trim((struct slice){ p, (size_t)(fe - p) }), unit;
		struct slice name = smi_csv_header_name(f, &unit);

		if (!field_known(name)) {
			size_t need = (k ? 2 : 0) + f.n;
			if (k + need + 6 > cap) {	/* no room: say so rather than cut a name */
				if (k + 6 <= cap)
					strcpy(out + k, k ? ", ..." : "...");
				return;
			}
			k += (size_t)snprintf(out + k, cap - k, "%s%.*s", k ? ", " : "", (int)f.n, f.p);
		}
		if (!c)
			break;
		p = c + 1;
	}
}

/* A stray lowercase word must not replace the column map: want a real field. */
static bool query_is_context(const char *line, size_t n)
{
	struct header_info hi;

	if (!smi_csv_is_header(line, n))
		return false;
	header_scan(line, n, &hi);
	return hi.known > 0;
}

/* ---- rows --------------------------------------------------------------- */

/* The row's field offsets, in the state's table grown to fit every field. */
static size_t split_row(struct query_state *st, const char *line, size_t n)
{
	size_t nf;

	if (st->start_alloc < (size_t)st->ncols + 1) {
		st->start_alloc = (size_t)st->ncols + 16;
		st->start = xreallocarray(st->start, st->start_alloc, sizeof(*st->start));
	}
	nf = smi_csv_split(line, n, st->start, st->start_alloc);
	if (nf > st->start_alloc) {
		st->start_alloc = nf;
		st->start = xreallocarray(st->start, st->start_alloc, sizeof(*st->start));
		nf = smi_csv_split(line, n, st->start, st->start_alloc);
	}
	return nf;
}

/*
 * An unterminated last row is read when it is whole (formats.md 11.10).  It
 * is torn when a field is missing (the count check) or when its last cell
 * lost its unit while the row's other cells carry theirs ("631.9" of
 * "631.95 W").  In a nounits file a cut number cannot be told from a whole
 * one: that row is read (docs/formats/smi-query.md says so).
 */
/* Does the value end with " unit" (the unit after its number)? */
static bool has_unit(struct slice v, const char *unit)
{
	size_t u = strlen(unit);

	return u && v.n > u && v.p[v.n - u - 1] == ' ' &&
	       slice_eq((struct slice){ v.p + v.n - u, u }, unit);
}

static bool last_cell_cut(const struct query_state *st, const char *line, size_t n,
			  const uint32_t *start, size_t nf)
{
	const struct col *cl = &st->cols[nf - 1];
	struct slice v = smi_csv_field(line, n, start, nf, nf - 1, nf - 1);
	uint8_t status = 0;
	double d;

	if (!cl->unit[0] || smi_missing_token(v, &status) || !smi_csv_number(v, cl->unit, &d) ||
	    has_unit(v, cl->unit))
		return false;	/* no unit to lose, a token, not a number (the value check
				 * decides), or whole */
	/* a bare number where the header names a unit: cut if other cells carry units */
	for (size_t i = 0; i + 1 < nf; i++)
		if (has_unit(smi_csv_field(line, n, start, nf, i, i), st->cols[i].unit))
			return true;
	return false;
}

/*
 * A GPU's pci.bus_id, passed on once per chunk and GPU as an EV_GPU_MAP
 * record (kev.pci, the index and UUID of the row): the timeline maps the
 * PCI addresses of kernel-log events to GPUs with it.  Only for timed rows:
 * a record without a time would count as a tick.
 */
static void tell_bus(struct parse_ctx *ctx, struct query_state *st, const struct rec *row,
		     struct slice uuid, struct slice bus)
{
	size_t i, nt = sizeof(st->bus_told) / sizeof(st->bus_told[0]);
	struct rec *o;
	char norm[16];

	if (row->gpu_index < 0 && !uuid.p)
		return;
	for (i = 0; i < nt && st->bus_told[i]; i++)
		if (st->bus_told[i] == row->gpu_index + 1)
			return;
	if (i < nt && row->gpu_index >= 0)
		st->bus_told[i] = row->gpu_index + 1;
	o = ctx_rec(ctx, REC_EVENT);
	if (!o)
		return;
	o->ev = EV_GPU_MAP;
	o->t_ns = row->t_ns;
	o->time_kind = row->time_kind;
	o->gpu_index = row->gpu_index;
	o->uuid = uuid.p ? ctx_str(ctx, uuid) : STR_NONE;
	o->name = STR_NONE;
	/* "00000000:3B:00.0" as the kernel writes it: "0000:3b:00.0" */
	o->kev.pci = pci_norm(bus, norm) ? ctx_str(ctx, (struct slice){ norm, strlen(norm) }) :
		     ctx_str(ctx, bus);
	o->kev.severity = KS_INFO;
}

static void read_row(struct parse_ctx *ctx, struct query_state *st, const char *line,
		     size_t n)
{
	size_t nf = split_row(st, line, n);
	const uint32_t *start = st->start;
	const char *cut = ctx->last_line_partial ? "line cut short: " : "";
	size_t ncols = st->ncols;
	struct slice uuid = { NULL, 0 }, name = { NULL, 0 }, bus = { NULL, 0 };
	bool reasons_ok = st->nreasons > 0;
	uint32_t mask = 0;
	struct rec r;

	/*
	 * No ", " in GPU names, so unlike --query-compute-apps no column may
	 * absorb extra fields: a shifted row must not pass as a reading.
	 */
	if (nf != ncols) {
		smi_csv_bad_count(ctx, line, n, start, st->start_alloc, nf, ncols);
		return;
	}
	if (ctx->last_line_partial && last_cell_cut(st, line, n, start, nf)) {
		ctx_bad(ctx, 0, "line cut short: the last value lost its unit");
		return;
	}

	memset(&r, 0, sizeof(r));
	r.kind = REC_SAMPLE;
	r.gpu_index = -1;
	r.time_kind = st->has_time ? TK_ABS : TK_NONE;
	for (size_t i = 0; i < ncols; i++) {
		const struct col *cl = &st->cols[i];
		struct slice v;
		double d;

		if (cl->role == R_IGNORE || cl->role == R_KNOWN)
			continue;
		v = smi_csv_field(line, n, start, nf, i, i);

		switch (cl->role) {
		case R_TIME:
			if (smi_csv_time(v, &r.t_ns)) {
				ctx_bad(ctx, ctx_col(line, v.p), "%sbad timestamp '%.*s'",
					cut, fmt_quote_len(v), v.p);
				return;
			}
			continue;
		case R_UUID:
			if (!smi_missing_token(v, &r.status))
				uuid = v;
			continue;
		case R_NAME:
			if (!smi_missing_token(v, &r.status))
				name = v;
			continue;
		case R_BUS: {
			uint8_t ignore = 0;
			if (!smi_missing_token(v, &ignore))
				bus = v;
			continue;
		}
		case R_INDEX: {
			int64_t idx;
			if (!slice_to_i64(v, &idx) && idx >= 0 && idx <= INT32_MAX) {
				r.gpu_index = (int32_t)idx;
				continue;
			}
			break;
		}
		case R_PSTATE: {
			int64_t ps;
			if (v.n >= 2 && v.p[0] == 'P' &&
			    !slice_to_i64((struct slice){ v.p + 1, v.n - 1 }, &ps) && ps >= 0 &&
			    ps < 32) {
				r.v[M_PSTATE] = (double)ps;
				r.present |= 1u << M_PSTATE;
				continue;
			}
			break;
		}
		case R_MASK: {
			const char *p = v.p;
			uint64_t m;
			if (!scan_hex_u64(&p, v.p + v.n, &m) && p == v.p + v.n) {
				r.v[M_EVENT_MASK] = (double)m;
				r.present |= 1u << M_EVENT_MASK;
				continue;
			}
			break;
		}
		case R_REASON:
			if (slice_eq(v, "Active")) {
				mask |= cl->bit;
				continue;
			}
			if (slice_eq(v, "Not Active"))
				continue;
			if (smi_missing_token(v, &r.status)) {
				reasons_ok = false;
				continue;
			}
			ctx_bad(ctx, ctx_col(line, v.p),
				"%sexpected Active or Not Active, got '%.*s' in %s",
				cut, fmt_quote_len(v), v.p, fields[cl->def].name);
			return;
		case R_METRIC:
		case R_POWER:
		case R_LIMIT: {
			int m = cl->role == R_POWER ? M_POWER :
				cl->role == R_LIMIT ? M_POWER_LIMIT : cl->arg;
			if (smi_csv_number(v, cl->unit, &d)) {
				r.v[m] = d;
				r.present |= 1u << m;
				continue;
			}
			break;
		}
		}
		/* not a reading: a "no value" token, or a bad line */
		if (smi_missing_token(v, &r.status))
			continue;
		ctx_bad(ctx, ctx_col(line, v.p), "%sbad value '%.*s' in %s", cut, fmt_quote_len(v), v.p,
			fields[cl->def].name);
		return;
	}
	if (reasons_ok) {
		r.v[M_EVENT_MASK] = mask;
		r.present |= 1u << M_EVENT_MASK;
	}

	/* no index and no UUID: the PCI bus id tells the GPUs apart (a loop
	 * over three GPUs queried without either was read as one GPU whose
	 * readings jumped between them: tests/corpus/public/omniopt-gpu-usage) */
	if (r.gpu_index < 0 && !uuid.p && bus.p)
		uuid = bus;
	smi_csv_emit(ctx, &r, uuid, name);
	if (bus.p && st->has_time)
		tell_bus(ctx, st, &r, uuid, bus);
}

static void query_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	struct query_state *st = ctx->state;

	smi_csv_skip_bom(&line, &n);
	if (!n)
		return;
	if (is_lower(line[0]) && query_is_context(line, n)) {
		set_columns(st, line, n);
		return;
	}
	if (smi_csv_row_ok(ctx, line, n, st->ncols, "--query-gpu"))
		read_row(ctx, st, line, n);
}

bool smi_csv_row_ok(struct parse_ctx *ctx, const char *line, size_t n, uint32_t ncols,
		    const char *kind)
{
	if (ctx->replay || smi_csv_tool_text(ctx, line, n))
		return false;
	/* text, not a row cut down to its first field */
	if (!memchr(line, ',', n) && ncols != 1 && !(line[0] >= '0' && line[0] <= '9')) {
		ctx_bad(ctx, 1, "not a %s CSV row", kind);
		return false;
	}
	if (!ncols) {
		ctx_bad(ctx, 0, "headerless %s CSV: pass --columns with the queried fields", kind);
		return false;
	}
	/* a last row without a newline is read when whole: each reader checks it */
	return true;
}

/* ---- headerless files: --columns and a sibling's header ------------------ */

/* The first line of head past up to three "WARNING:" lines, without CR/BOM. */
static struct slice head_first_line(const char *head, size_t n)
{
	const char *p = head, *end;

	smi_csv_skip_bom(&p, &n);
	end = p + n;
	for (int skipped = 0;; skipped++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		if (len && p[len - 1] == '\r')
			len--;
		if (skipped < 3 && nl && slice_starts_with((struct slice){ p, len }, "WARNING:")) {
			p = nl + 1;
			continue;
		}
		return (struct slice){ p, len };
	}
}

static size_t count_fields(struct slice l)
{
	size_t nf = 1;

	for (size_t i = 0; i < l.n; i++)
		nf += l.p[i] == ',';
	return nf;
}

/* Does a list of query fields name processes (--query-compute-apps)? */
static bool rows_fit(const char *cols, size_t cols_n, const char *head, size_t n);

static bool names_apps(const char *p, size_t n)
{
	struct header_info hi;

	header_scan(p, n, &hi);
	return hi.apps && !hi.util;
}

const struct format *smi_columns_format(const char *head, size_t n, const char *columns)
{
	struct slice l = head_first_line(head, n);
	size_t nc = count_fields((struct slice){ columns, strlen(columns) });

	if (l.n < 3 || nc < 2 || smi_csv_is_header(l.p, l.n) || strchr("{[#<", l.p[0]))
		return NULL;
	if (names_apps(columns, strlen(columns))) {
		/* a process path may hold ", ": at least as many fields; a row starts
		 * with a time, a pid, a UUID, a bus id or a path, not with words */
		bool start = (l.p[0] >= '0' && l.p[0] <= '9') || l.p[0] == '/' ||
			     slice_starts_with(l, "GPU-") || slice_starts_with(l, "MIG-");
		return start && count_fields(l) >= nc ? &format_smi_apps : NULL;
	}
	/* as many fields, and the first rows read under the list (a kernel log
	 * line may have as many commas by chance) */
	if (count_fields(l) != nc || !rows_fit(columns, strlen(columns), head, n))
		return NULL;
	return &format_smi_query;
}

bool smi_query_columns_fit(const char *head, size_t n, const char *columns)
{
	return smi_columns_format(head, n, columns) == &format_smi_query;
}

bool smi_apps_columns_fit(const char *head, size_t n, const char *columns)
{
	return smi_columns_format(head, n, columns) == &format_smi_apps;
}

static void query_line(struct parse_ctx *ctx, const char *line, size_t n);

/*
 * Do the first whole rows of head read under these columns, with no bad
 * value?  A sibling of the same width may log other fields ("0" is no
 * timestamp): its header is borrowed only when the rows fit it.
 */
static bool rows_fit(const char *cols, size_t cols_n, const char *head, size_t n)
{
	struct query_state st;
	struct batch b;
	struct parse_ctx ctx;
	const char *p = head, *end = head + n;
	int rows = 0;
	bool ok, reads = false;

	memset(&st, 0, sizeof(st));
	memset(&b, 0, sizeof(b));
	memset(&ctx, 0, sizeof(ctx));
	set_columns(&st, cols, cols_n);
	ctx.out = &b;
	ctx.state = &st;
	ctx.src = "";
	while (p < end && rows < 20) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len;
		if (!nl)
			break;	/* the head may end mid-line */
		len = (size_t)(nl - p);
		if (len && p[len - 1] == '\r')
			len--;
		ctx.line++;
		if (len) {
			query_line(&ctx, p, len);
			rows++;
		}
		p = nl + 1;
	}
	/* a list of which nothing is read fits any text */
	for (uint32_t i = 0; i < st.ncols; i++)
		reads |= st.cols[i].role != R_IGNORE && st.cols[i].role != R_KNOWN;
	ok = reads && rows > 0 && b.bad == 0 && b.records > 0;
	query_fini(&st);
	free(b.recs);
	free(b.strs);
	return ok;
}

/* A sibling's first line when it is a --query-gpu header of nf fields. */
static bool sibling_header(const char *dir, const char *name, size_t nf, char *buf, size_t cap,
			   struct slice *out)
{
	char path[4096];
	struct header_info hi;
	struct slice l;
	size_t got;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return false;
	if (!(f = fopen(path, "rb")))
		return false;
	got = fread(buf, 1, cap, f);
	fclose(f);
	l = head_first_line(buf, got);
	if ((size_t)(l.p - buf) + l.n >= got && got == cap)
		return false;	/* a first line longer than we read: not a header we know */
	if (!smi_csv_is_header(l.p, l.n) || count_fields(l) != nf)
		return false;
	header_scan(l.p, l.n, &hi);
	if (!hi.known || hi.known * 2 < hi.nf || names_apps(l.p, l.n))
		return false;
	*out = l;
	return true;
}

char *smi_csv_sibling_columns(const char *path, const char *head, size_t n, char *note,
			      size_t note_cap)
{
	struct slice l = head_first_line(head, n);
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char dir[4096], hit_name[256] = "", *buf, *cols = NULL;
	size_t nf, nhits = 0, seen = 0, nofit = 0;
	bool differ = false;
	struct dirent *de;
	DIR *d;

	note[0] = 0;
	if (!l.n || smi_csv_is_header(l.p, l.n) || !memchr(l.p, ',', l.n))
		return NULL;	/* it has its own header, or it is no CSV row */
	nf = count_fields(l);
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	if (!(d = opendir(dir)))
		return NULL;
	buf = xmalloc(SIBLING_BYTES);
	/* a directory of many logs: look at the first SIBLING_FILES only */
	while ((de = readdir(d)) && seen++ < SIBLING_FILES) {
		struct slice h;
		if (de->d_name[0] == '.' || !strcmp(de->d_name, base) ||
		    (de->d_type != DT_REG && de->d_type != DT_UNKNOWN) ||
		    !sibling_header(dir, de->d_name, nf, buf, SIBLING_BYTES, &h))
			continue;
		if (!rows_fit(h.p, h.n, head, n)) {
			nofit++;
			continue;
		}
		if (nhits && (h.n != strlen(cols) || memcmp(h.p, cols, h.n)))
			differ = true;
		if (!nhits++) {
			cols = xstrndup(h.p, h.n);
			snprintf(hit_name, sizeof(hit_name), "%s", de->d_name);
		}
	}
	closedir(d);
	free(buf);
	if (nhits && !differ) {
		snprintf(note, note_cap, "headerless: columns from the header of %s (%zu fields)%s",
			 hit_name, nf, seen > SIBLING_FILES ? "; only the first "
			 SIBLING_FILES_STR " files beside it were looked at" : "");
		return cols;
	}
	free(cols);
	if (differ)
		snprintf(note, note_cap, "headerless CSV of %zu fields: files beside it have "
			 "different headers of that width; pass --columns", nf);
	else if (seen > SIBLING_FILES)
		snprintf(note, note_cap, "headerless CSV of %zu fields: no header of that width in "
			 "the first " SIBLING_FILES_STR " files beside it; pass --columns", nf);
	else if (nofit)
		snprintf(note, note_cap, "headerless CSV of %zu fields: its rows do not read under "
			 "the header%s of that width beside it; pass --columns", nf,
			 nofit > 1 ? "s" : "");
	else
		snprintf(note, note_cap, "headerless CSV of %zu fields: no file beside it has a "
			 "header of %zu fields; pass --columns", nf, nf);
	return NULL;
}

/* ---- sniffing ----------------------------------------------------------- */

static bool looks_numeric(struct slice v)
{
	double d;
	uint8_t status = 0;

	v = slice_trim(v);
	return smi_csv_number(v, NULL, &d) ||
	       (v.n && v.p[0] == '[' && smi_missing_token(v, &status));
}

/* "0, NVIDIA H200, 0, 0, 143771, 93.99, ..." or "2026/11/29 22:46:33.922, ..." */
static int sniff_row(const char *p, size_t n)
{
	uint32_t start[32];
	size_t nf = smi_csv_split(p, n, start, 32), numeric = 0;
	struct slice f0, f1;
	int64_t t_ns, idx;

	if (nf < 3 || nf > 32)
		return 0;
	f0 = smi_csv_field(p, n, start, nf, 0, 0);
	f1 = smi_csv_field(p, n, start, nf, 1, 1);
	if (!(smi_csv_time(f0, &t_ns) == 0 ||
	      (!slice_to_i64(f0, &idx) && slice_starts_with(f1, "NVIDIA"))))
		return 0;
	for (size_t i = 1; i < nf; i++) {
		struct slice v = smi_csv_field(p, n, start, nf, i, i);
		if (v.n && v.p[0] == '/')
			return 0;	/* a process path: --query-compute-apps */
		numeric += looks_numeric(v);
	}
	return numeric >= 3 ? 30 : 0;
}

static int query_sniff(const char *head, size_t n, const char *fname)
{
	const char *p = head, *end;
	int skipped = 0;

	(void)fname;
	smi_csv_skip_bom(&p, &n);
	end = p + n;
	for (;;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t len = (size_t)(le - p);
		if (len && p[len - 1] == '\r')
			len--;
		if (len && slice_starts_with((struct slice){ p, len }, "WARNING:") && nl &&
		    ++skipped < 4) {
			p = nl + 1;
			continue;
		}
		n = len;
		break;
	}
	if (!n)
		return 0;
	if (slice_starts_with((struct slice){ p, n }, "time,task_id,gpu_id"))
		return 0;	/* gpu_monitor.sh */
	if (smi_csv_is_header(p, n)) {
		struct header_info hi;
		header_scan(p, n, &hi);
		/* process_name or used_gpu_memory: --query-compute-apps, with or
		 * without a pid column (formats.md 11.8) */
		if (hi.apps && !hi.util)
			return 0;
		return hi.known && hi.known * 2 >= hi.nf ? 90 : 0;
	}
	return sniff_row(p, n);
}

const struct format format_smi_query = {
	.id = "smi-query",
	.summary = "nvidia-smi --query-gpu=... --format=csv logs (any header and units options)",
	.detects = "a header of --query-gpu field names, or rows like '0, NVIDIA ..., numbers'",
	.state_size = sizeof(struct query_state),
	.sniff = query_sniff,
	.init = query_init,
	.is_context = query_is_context,
	.context_first = "abcdefghijklmnopqrstuvwxyz\xEF",
	.line = query_line,
	.fini = query_fini,
	.columns_fit = smi_query_columns_fit,
	.sibling_header = smi_csv_sibling_columns,
	.unread_columns = smi_csv_unread_columns,
};
