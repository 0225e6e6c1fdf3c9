/* SPDX-License-Identifier: MIT */
/*
 * Nsight Systems SQLite exports (`nsys export --type sqlite`), formats.md
 * section 5, read through libsqlite3 by the file's path (format.by_path):
 * the driver hands empty pieces and each one steps a bounded number of rows,
 * so memory is one batch of records, never the database.
 *
 * Tables and columns vary by release and tables with no events are absent,
 * so every table is looked up in sqlite_master and every column with
 * PRAGMA table_info before a query is built; a missing optional column reads
 * as NULL.  Records are the REC_TRACE records fmt_kineto.c emits.
 *
 * Positions in messages: the line is the row's rowid in the table the
 * message names, the column the 1-based position of the column in that
 * table; 0:0 for a message about the whole file or a whole table.
 */
#include "formats/format.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/xalloc.h"

#define ROWS_PER_PIECE 16384	/* bounds one batch: about 16k records */
#define NAME_CAP 4096

enum ctype { C_INT, C_STRID, C_TEXT };

struct col_want {
	const char *name;
	uint8_t type;		/* enum ctype: C_STRID is a StringIds key, read as its text */
	bool required;
};

#define MAX_COLS 10

/* The tables read, in order; each row of the select is rowid then cols[]. */
struct table_def {
	const char *table;
	uint8_t kind;		/* enum trace_ev */
	struct col_want cols[MAX_COLS];
};

enum { K_START, K_END, K_DEV, K_STREAM, K_CORR, K_GPID, K_NAME1, K_NAME2 };
enum { MC_START, MC_END, MC_DEV, MC_STREAM, MC_CORR, MC_GPID, MC_KIND, MC_SRC, MC_DST };
enum { MS_KIND = 6 };
enum { R_START, R_END, R_CORR, R_GTID, R_NAME };
enum { N_START, N_END, N_TEXT, N_TEXTID };

static const struct table_def tables[] = {
	{ "CUPTI_ACTIVITY_KIND_KERNEL", TR_KERNEL, {
		{ "start", C_INT, true }, { "end", C_INT, true }, { "deviceId", C_INT, true },
		{ "streamId", C_INT, false }, { "correlationId", C_INT, false },
		{ "globalPid", C_INT, false }, { "demangledName", C_STRID, false },
		{ "shortName", C_STRID, false } } },
	{ "CUPTI_ACTIVITY_KIND_MEMCPY", TR_MEMCPY, {
		{ "start", C_INT, true }, { "end", C_INT, true }, { "deviceId", C_INT, true },
		{ "streamId", C_INT, false }, { "correlationId", C_INT, false },
		{ "globalPid", C_INT, false }, { "copyKind", C_INT, false },
		{ "srcKind", C_INT, false }, { "dstKind", C_INT, false } } },
	{ "CUPTI_ACTIVITY_KIND_MEMSET", TR_MEMSET, {
		{ "start", C_INT, true }, { "end", C_INT, true }, { "deviceId", C_INT, true },
		{ "streamId", C_INT, false }, { "correlationId", C_INT, false },
		{ "globalPid", C_INT, false }, { "memKind", C_INT, false } } },
	{ "CUPTI_ACTIVITY_KIND_RUNTIME", TR_RUNTIME, {
		{ "start", C_INT, true }, { "end", C_INT, true }, { "correlationId", C_INT, false },
		{ "globalTid", C_INT, false }, { "nameId", C_STRID, false } } },
	/* PyTorch's emit_nvtx and user code name their steps ProfilerStep#N */
	{ "NVTX_EVENTS", TR_STEP, {
		{ "start", C_INT, true }, { "end", C_INT, false }, { "text", C_TEXT, false },
		{ "textId", C_STRID, false } } },
};
#define NTABLES (sizeof(tables) / sizeof(tables[0]))

struct gpu_map {
	int64_t cuda;		/* CUDA device number, as deviceId */
	char *uuid;
};

struct nsys {
	sqlite3 *db;
	sqlite3_stmt *st;	/* the current table's query, or NULL */
	size_t table;		/* index into tables[] of the next table to start */
	bool opened, failed, done;
	bool have_strings;	/* StringIds exists */
	bool have_base;
	bool pids;		/* both sides carry process keys (globalPid, globalTid) */
	int64_t base_ns;	/* TARGET_INFO_SESSION_START_TIME.utcEpochNs */
	int ncols;		/* of the current query, after rowid */
	int tcol[MAX_COLS];	/* each one's 1-based position in its table, 0 if absent */
	uint64_t events, used;
	struct gpu_map *gpus;
	size_t ngpus, gpus_alloc;
	char *copy_kind[16], *mem_kind[16];	/* from the ENUM_* tables, else NULL */
	char name[NAME_CAP];
};

static void ns_fini(void *state)
{
	struct nsys *s = state;
	if (s->st)
		sqlite3_finalize(s->st);
	if (s->db)
		sqlite3_close(s->db);
	s->st = NULL;
	s->db = NULL;
	for (size_t i = 0; i < s->ngpus; i++)
		free(s->gpus[i].uuid);
	free(s->gpus);
	s->gpus = NULL;
	s->ngpus = 0;
	for (int i = 0; i < 16; i++) {
		free(s->copy_kind[i]);
		free(s->mem_kind[i]);
		s->copy_kind[i] = s->mem_kind[i] = NULL;
	}
}

static void say(struct parse_ctx *ctx, uint64_t line, uint32_t col, bool fatal, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void say(struct parse_ctx *ctx, uint64_t line, uint32_t col, bool fatal, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	struct batch *b = ctx->out;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ctx->line = line;
	ctx_bad(ctx, col, "%s", msg);
	if (fatal) {
		struct nsys *s = ctx->state;
		b->recs[b->nr - 1].ev = BAD_FATAL;
		s->failed = true;
	}
}

/* ---- the schema ------------------------------------------------------------ */

static bool has_table(struct nsys *s, const char *name)
{
	sqlite3_stmt *q;
	bool yes = false;
	if (sqlite3_prepare_v2(s->db, "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?",
			       -1, &q, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
	yes = sqlite3_step(q) == SQLITE_ROW;
	sqlite3_finalize(q);
	return yes;
}

/* 1-based position of column `col` in `table`, 0 if it has none. */
static int column_pos(struct nsys *s, const char *table, const char *col)
{
	char sql[160];
	sqlite3_stmt *q;
	int pos = 0;

	snprintf(sql, sizeof(sql), "PRAGMA table_info(\"%s\")", table);
	if (sqlite3_prepare_v2(s->db, sql, -1, &q, NULL) != SQLITE_OK)
		return 0;
	while (sqlite3_step(q) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(q, 1);
		if (name && !strcmp(name, col)) {
			pos = sqlite3_column_int(q, 0) + 1;
			break;
		}
	}
	sqlite3_finalize(q);
	return pos;
}

/* Is this a file of nvprof's, not of Nsight Systems? (formats.md 5.1) */
static bool is_nvprof(struct nsys *s)
{
	return has_table(s, "StringTable") && !has_table(s, "StringIds");
}

static bool is_nsys(struct nsys *s)
{
	sqlite3_stmt *q;
	bool yes = false;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT 1 FROM sqlite_master WHERE type = 'table' AND (name = 'StringIds' OR "
			       "name LIKE 'CUPTI_ACTIVITY_KIND_%' OR name LIKE 'TARGET_INFO_%' OR "
			       "name = 'META_DATA_EXPORT' OR name = 'EXPORT_META_DATA')",
			       -1, &q, NULL) != SQLITE_OK)
		return false;
	yes = sqlite3_step(q) == SQLITE_ROW;
	sqlite3_finalize(q);
	return yes;
}

/* Run `sql` (its result: an integer, then a text) and call fn on each row. */
static void each_row(struct nsys *s, const char *sql,
		     void (*fn)(struct nsys *s, sqlite3_stmt *q))
{
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(s->db, sql, -1, &q, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(q) == SQLITE_ROW)
		fn(s, q);
	sqlite3_finalize(q);
}

static void add_gpu(struct nsys *s, sqlite3_stmt *q)
{
	const unsigned char *uuid = sqlite3_column_text(q, 1);
	if (sqlite3_column_type(q, 0) != SQLITE_INTEGER || !uuid || !*uuid)
		return;
	for (size_t i = 0; i < s->ngpus; i++)
		if (s->gpus[i].cuda == sqlite3_column_int64(q, 0))
			return;
	ALLOC_GROW(s->gpus, s->ngpus + 1, s->gpus_alloc);
	s->gpus[s->ngpus].cuda = sqlite3_column_int64(q, 0);
	s->gpus[s->ngpus].uuid = xstrndup((const char *)uuid, strnlen((const char *)uuid, 95));
	s->ngpus++;
}

/*
 * The GPU of each CUDA device number: TARGET_INFO_CUDA_DEVICE(cudaId, uuid)
 * when present, else TARGET_INFO_GPU.cuDevice (section 13.14: the numbering
 * can be permuted, so the GPU's own id is never taken for the CUDA one).
 */
static void load_gpus(struct nsys *s)
{
	if (has_table(s, "TARGET_INFO_CUDA_DEVICE") && column_pos(s, "TARGET_INFO_CUDA_DEVICE", "cudaId") &&
	    column_pos(s, "TARGET_INFO_CUDA_DEVICE", "uuid"))
		each_row(s, "SELECT cudaId, uuid FROM TARGET_INFO_CUDA_DEVICE", add_gpu);
	if (!s->ngpus && has_table(s, "TARGET_INFO_GPU") && column_pos(s, "TARGET_INFO_GPU", "cuDevice") &&
	    column_pos(s, "TARGET_INFO_GPU", "uuid"))
		each_row(s, "SELECT cuDevice, uuid FROM TARGET_INFO_GPU", add_gpu);
}

/* "CUDA_MEMCPY_KIND_HTOD" -> "HtoD"; "..._KIND_PINNED" -> "Pinned" */
static char *enum_label(const char *name, bool copy)
{
	const char *p = strstr(name, "KIND_");
	char buf[64];
	size_t n;

	p = p ? p + 5 : name;
	snprintf(buf, sizeof(buf), "%s", p);
	n = strlen(buf);
	for (size_t i = 1; i < n; i++)
		if (buf[i] >= 'A' && buf[i] <= 'Z')
			buf[i] = (char)(buf[i] - 'A' + 'a');
	if (copy && n == 4 && buf[1] == 't' && buf[2] == 'o')
		buf[3] = (char)(buf[3] - 'a' + 'A');	/* HtoD: the last letter is a kind too */
	return xstrdup(buf);
}

static void add_copy_kind(struct nsys *s, sqlite3_stmt *q)
{
	int64_t id = sqlite3_column_int64(q, 0);
	const unsigned char *name = sqlite3_column_text(q, 1);
	if (id >= 0 && id < 16 && name && !s->copy_kind[id])
		s->copy_kind[id] = enum_label((const char *)name, true);
}

static void add_mem_kind(struct nsys *s, sqlite3_stmt *q)
{
	int64_t id = sqlite3_column_int64(q, 0);
	const unsigned char *name = sqlite3_column_text(q, 1);
	if (id >= 0 && id < 16 && name && !s->mem_kind[id])
		s->mem_kind[id] = enum_label((const char *)name, false);
}

static void load_enums(struct nsys *s)
{
	if (has_table(s, "ENUM_CUDA_MEMCPY_OPER") && column_pos(s, "ENUM_CUDA_MEMCPY_OPER", "name"))
		each_row(s, "SELECT id, name FROM ENUM_CUDA_MEMCPY_OPER", add_copy_kind);
	if (has_table(s, "ENUM_CUDA_MEM_KIND") && column_pos(s, "ENUM_CUDA_MEM_KIND", "name"))
		each_row(s, "SELECT id, name FROM ENUM_CUDA_MEM_KIND", add_mem_kind);
}

/* The wall time of timestamp 0 (section 5.4). */
static void load_base(struct parse_ctx *ctx, struct nsys *s)
{
	const char *t = "TARGET_INFO_SESSION_START_TIME";
	int pos = has_table(s, t) ? column_pos(s, t, "utcEpochNs") : 0;
	sqlite3_stmt *q;

	if (pos && sqlite3_prepare_v2(s->db, "SELECT rowid, utcEpochNs FROM TARGET_INFO_SESSION_START_TIME",
				      -1, &q, NULL) == SQLITE_OK) {
		if (sqlite3_step(q) == SQLITE_ROW) {
			if (sqlite3_column_type(q, 1) == SQLITE_INTEGER) {
				s->base_ns = sqlite3_column_int64(q, 1);
				s->have_base = true;
			} else {
				say(ctx, (uint64_t)sqlite3_column_int64(q, 0), (uint32_t)pos, false,
				    "%s.utcEpochNs is not an integer: times are from the session start, not wall time", t);
			}
		}
		sqlite3_finalize(q);
		if (s->have_base)
			return;
	}
	if (!pos)
		say(ctx, 0, 0, false, "no %s.utcEpochNs: times are from the session start (shown as 1970), not wall time", t);
}

static bool open_db(struct parse_ctx *ctx, struct nsys *s)
{
	char head[16];
	int fd = open(ctx->src, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, head, sizeof(head));

	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)sizeof(head) || memcmp(head, "SQLite format 3", 16)) {
		say(ctx, n < 0 ? 0 : 1, n < 0 ? 0 : 1, true, "%s",
		    n < 0 ? "cannot read the file" : "not an SQLite database (no \"SQLite format 3\" header)");
		return false;
	}
	if (sqlite3_open_v2(ctx->src, &s->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_exec(s->db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL) != SQLITE_OK) {
		say(ctx, 1, 1, true, "an SQLite database that cannot be read: %s",
		    s->db ? sqlite3_errmsg(s->db) : "out of memory");
		return false;
	}
	if (is_nvprof(s)) {
		say(ctx, 0, 0, true,
		    "an nvprof database (StringTable, no StringIds), not an Nsight Systems export: "
		    "import the .nvvp into Nsight Systems and export it with nsys export --type sqlite");
		return false;
	}
	if (!is_nsys(s)) {
		say(ctx, 0, 0, true,
		    "an SQLite database with none of the Nsight Systems tables "
		    "(StringIds, CUPTI_ACTIVITY_KIND_*, TARGET_INFO_*)");
		return false;
	}
	s->have_strings = has_table(s, "StringIds");
	load_base(ctx, s);
	load_gpus(s);
	load_enums(s);
	/* correlation ids are unique within a process: use the process only
	 * when both the GPU side and the runtime side carry it */
	s->pids = column_pos(s, "CUPTI_ACTIVITY_KIND_KERNEL", "globalPid") &&
		  column_pos(s, "CUPTI_ACTIVITY_KIND_RUNTIME", "globalTid");
	return true;
}

/* ---- one table at a time ------------------------------------------------- */

static bool start_table(struct parse_ctx *ctx, struct nsys *s, const struct table_def *t)
{
	char sql[2048];
	size_t len;
	int ncols = 0;

	if (!has_table(s, t->table))
		return false;	/* tables are lazy: absent means no events */
	len = (size_t)snprintf(sql, sizeof(sql), "SELECT rowid");
	for (int i = 0; i < MAX_COLS && t->cols[i].name; i++) {
		const struct col_want *c = &t->cols[i];
		int pos = column_pos(s, t->table, c->name);
		s->tcol[i] = pos;
		ncols = i + 1;
		if (!pos && c->required) {
			say(ctx, 0, 0, false, "%s has no column %s: the table is not read", t->table, c->name);
			return false;
		}
		if (!pos)
			len += (size_t)snprintf(sql + len, sizeof(sql) - len, ", NULL");
		else if (c->type == C_STRID && s->have_strings)
			len += (size_t)snprintf(sql + len, sizeof(sql) - len,
						", \"%s\", (SELECT value FROM StringIds WHERE id = t.\"%s\")",
						c->name, c->name);
		else
			len += (size_t)snprintf(sql + len, sizeof(sql) - len, ", \"%s\"", c->name);
		if (pos && c->type == C_STRID && !s->have_strings)
			len += (size_t)snprintf(sql + len, sizeof(sql) - len, ", NULL");
		if (!pos && c->type == C_STRID)
			len += (size_t)snprintf(sql + len, sizeof(sql) - len, ", NULL");
	}
	snprintf(sql + len, sizeof(sql) - len, " FROM \"%s\" AS t", t->table);
	s->ncols = ncols;
	if (sqlite3_prepare_v2(s->db, sql, -1, &s->st, NULL) != SQLITE_OK) {
		say(ctx, 0, 0, false, "%s cannot be read: %s", t->table, sqlite3_errmsg(s->db));
		s->st = NULL;
		return false;
	}
	return true;
}

/* The select's column of want i (after rowid; a C_STRID takes two). */
static int qcol(const struct table_def *t, int i)
{
	int q = 1;
	for (int k = 0; k < i; k++)
		q += t->cols[k].type == C_STRID ? 2 : 1;
	return q;
}

struct row {
	int64_t rowid;
	int64_t v[MAX_COLS];		/* INT64_MIN: NULL */
	const char *text[MAX_COLS];	/* C_TEXT, C_STRID: the text, or NULL */
};

/* Read the current row; false (reported) when a value has the wrong type. */
static bool read_row(struct parse_ctx *ctx, struct nsys *s, const struct table_def *t, struct row *r)
{
	sqlite3_stmt *q = s->st;

	r->rowid = sqlite3_column_int64(q, 0);
	for (int i = 0; i < s->ncols; i++) {
		const struct col_want *c = &t->cols[i];
		int qc = qcol(t, i), ty = sqlite3_column_type(q, qc);
		r->v[i] = INT64_MIN;
		r->text[i] = NULL;
		if (ty == SQLITE_NULL) {
			if (c->required) {
				say(ctx, (uint64_t)r->rowid, (uint32_t)s->tcol[i], false,
				    "%s row skipped: %s is NULL", t->table, c->name);
				return false;
			}
			continue;
		}
		if (c->type == C_TEXT) {
			r->text[i] = (const char *)sqlite3_column_text(q, qc);
			continue;
		}
		if (ty != SQLITE_INTEGER) {
			say(ctx, (uint64_t)r->rowid, (uint32_t)s->tcol[i], false,
			    "%s row skipped: %s holds %s, not an integer", t->table, c->name,
			    ty == SQLITE_TEXT ? "text" : ty == SQLITE_FLOAT ? "a real number" : "a blob");
			return false;
		}
		r->v[i] = sqlite3_column_int64(q, qc);
		if (c->type == C_STRID)
			r->text[i] = (const char *)sqlite3_column_text(q, qc + 1);
	}
	return true;
}

/* "cudaLaunchKernel_v7000" -> "cudaLaunchKernel" (section 5.2) */
static struct slice api_name(const char *s)
{
	struct slice r = { s, strlen(s) };
	const char *v = strstr(s, "_v");
	while (v) {
		const char *d = v + 2;
		while (*d >= '0' && *d <= '9')
			d++;
		if (!*d && d > v + 2) {
			r.n = (size_t)(v - s);
			break;
		}
		v = strstr(v + 2, "_v");
	}
	return r;
}

static const char *const copy_fallback[] = {
	"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP",
};
static const char *const mem_fallback[] = {
	"Unknown", "Pageable", "Pinned", "Device", "Array", "Managed", "Device_static", "Managed_static",
};

static const char *kind_label(char *const *table, const char *const *fallback, size_t nfall, int64_t id)
{
	if (id >= 0 && id < 16 && table[id])
		return table[id];
	if (id >= 0 && (size_t)id < nfall)
		return fallback[id];
	return "Unknown";
}

#define NFALL(a) (sizeof(a) / sizeof(a[0]))

static uint32_t op_name(struct parse_ctx *ctx, struct nsys *s, const struct table_def *t,
			const struct row *r)
{
	const char *n = NULL;
	struct slice sl;

	switch (t->kind) {
	case TR_KERNEL:
		n = r->text[K_NAME1] ? r->text[K_NAME1] : r->text[K_NAME2];
		break;
	case TR_MEMCPY:
		/* Kineto's form: "Memcpy HtoD (Pinned -> Device)" */
		snprintf(s->name, sizeof(s->name), "Memcpy %s (%s -> %s)",
			 kind_label(s->copy_kind, copy_fallback, NFALL(copy_fallback), r->v[MC_KIND]),
			 kind_label(s->mem_kind, mem_fallback, NFALL(mem_fallback), r->v[MC_SRC]),
			 kind_label(s->mem_kind, mem_fallback, NFALL(mem_fallback), r->v[MC_DST]));
		n = s->name;
		break;
	case TR_MEMSET:
		snprintf(s->name, sizeof(s->name), "Memset (%s)",
			 kind_label(s->mem_kind, mem_fallback, NFALL(mem_fallback), r->v[MS_KIND]));
		n = s->name;
		break;
	case TR_RUNTIME:
		if (!r->text[R_NAME])
			return STR_NONE;
		sl = api_name(r->text[R_NAME]);
		if (sl.n > NAME_CAP)
			sl.n = NAME_CAP;
		return ctx_str(ctx, sl);
	case TR_STEP:
		n = r->text[N_TEXT] ? r->text[N_TEXT] : r->text[N_TEXTID];
		break;
	}
	if (!n)
		return STR_NONE;
	sl.p = n;
	sl.n = strnlen(n, NAME_CAP);
	return ctx_str(ctx, sl);
}

static uint32_t uuid_of(struct parse_ctx *ctx, const struct nsys *s, int64_t dev)
{
	for (size_t i = 0; i < s->ngpus; i++)
		if (s->gpus[i].cuda == dev)
			return ctx_str(ctx, (struct slice){ s->gpus[i].uuid, strlen(s->gpus[i].uuid) });
	return STR_NONE;
}

/* One row to a record, or a reported skip. */
static void emit_row(struct parse_ctx *ctx, struct nsys *s, const struct table_def *t)
{
	struct row r = { 0 };
	struct rec *rec;
	int64_t t0, dur, step = -1;

	if (!read_row(ctx, s, t, &r))
		return;
	if (t->kind == TR_STEP) {
		const char *n = r.text[N_TEXT] ? r.text[N_TEXT] : r.text[N_TEXTID];
		const char *p, *end;
		if (!n || strncmp(n, "ProfilerStep#", 13) || r.v[N_END] == INT64_MIN)
			return;	/* other ranges and marks are not read */
		p = n + 13;
		end = n + strlen(n);
		if (p == end || scan_i64(&p, end, &step) || p != end)
			step = -1;
	}
	if (r.v[1] < r.v[0]) {
		say(ctx, (uint64_t)r.rowid, (uint32_t)s->tcol[1], false,
		    "%s row skipped: end is before start", t->table);
		return;
	}
	dur = r.v[1] - r.v[0];
	if (__builtin_add_overflow(r.v[0], s->have_base ? s->base_ns : 0, &t0) ||
	    __builtin_add_overflow(t0, dur, &(int64_t){ 0 })) {
		say(ctx, (uint64_t)r.rowid, (uint32_t)s->tcol[0], false,
		    "%s row skipped: start + utcEpochNs overflows", t->table);
		return;
	}
	ctx->line = (uint64_t)r.rowid;
	rec = ctx_rec(ctx, REC_TRACE);
	rec->ev = t->kind;
	rec->t_ns = t0;
	rec->time_kind = TK_ABS;
	rec->pid = -1;
	rec->tr.dur_ns = dur;
	rec->tr.corr = -1;
	rec->tr.stream = -1;
	if (t->kind <= TR_MEMSET) {
		int64_t dev = r.v[K_DEV];
		rec->gpu_index = dev >= 0 && dev < INT32_MAX ? (int32_t)dev : -1;
		rec->uuid = uuid_of(ctx, s, dev);
		rec->tr.stream = r.v[K_STREAM] >= 0 ? r.v[K_STREAM] : -1;
		rec->tr.corr = r.v[K_CORR] >= 0 ? r.v[K_CORR] : -1;
		/* the process key: globalPid without its thread bits, so that it
		 * is the OS pid when no VM or hardware bits are set (5.4) */
		if (s->pids && r.v[K_GPID] != INT64_MIN)
			rec->pid = (int64_t)((uint64_t)r.v[K_GPID] >> 24);
	} else if (t->kind == TR_RUNTIME) {
		rec->tr.corr = r.v[R_CORR] >= 0 ? r.v[R_CORR] : -1;
		if (s->pids && r.v[R_GTID] != INT64_MIN)
			rec->pid = (int64_t)((uint64_t)r.v[R_GTID] >> 24);
	} else {
		rec->tr.corr = step;
	}
	rec->name = op_name(ctx, s, t, &r);
	s->used++;
}

/* Step up to ROWS_PER_PIECE rows, moving on through the tables. */
static void read_some(struct parse_ctx *ctx, struct nsys *s)
{
	unsigned rows = 0;

	while (rows < ROWS_PER_PIECE && !s->done) {
		int rc;
		if (!s->st) {
			if (s->table == NTABLES) {
				s->done = true;
				break;
			}
			start_table(ctx, s, &tables[s->table++]);
			continue;
		}
		rc = sqlite3_step(s->st);
		if (rc == SQLITE_ROW) {
			const struct table_def *t = &tables[s->table - 1];
			rows++;
			s->events++;
			emit_row(ctx, s, t);
			continue;
		}
		if (rc != SQLITE_DONE)
			say(ctx, 0, 0, true, "%s: reading stopped: %s", tables[s->table - 1].table,
			    sqlite3_errmsg(s->db));
		sqlite3_finalize(s->st);
		s->st = NULL;
		if (s->failed)
			s->done = true;
	}
}

static void finish(struct parse_ctx *ctx, struct nsys *s)
{
	struct rec *r;

	ctx->line = 0;
	r = ctx_rec(ctx, REC_TRACE);
	r->ev = TR_SUMMARY;
	r->t_ns = INT64_MIN;	/* the driver gives it the time of the record before */
	r->time_kind = TK_ABS;
	r->pid = -1;
	r->tr.dur_ns = 0;
	r->tr.corr = (int64_t)s->events;
	r->tr.stream = (int64_t)s->used;
}

static void ns_stream(struct parse_ctx *ctx, const char *p, size_t n, bool last)
{
	struct nsys *s = ctx->state;

	(void)p;
	(void)n;	/* by_path: the bytes are not used (a driver without it sends them all) */
	if (!s->opened) {
		s->opened = true;
		if (!open_db(ctx, s))
			s->done = true;
	}
	if (!s->done)
		read_some(ctx, s);
	if (s->done)
		ctx->path_done = true;
	if (last) {
		while (!s->done)	/* a driver that sent the bytes stops early */
			read_some(ctx, s);
		finish(ctx, s);
		ns_fini(s);
	}
	ctx->line = 0;
}

static int ns_sniff(const char *head, size_t n, const char *name)
{
	size_t len = name ? strlen(name) : 0;

	if (n < 16 || memcmp(head, "SQLite format 3", 16))
		return 0;
	/* the schema is on the first pages; a real export names its tables there */
	if (memmem(head, n, "CUPTI_ACTIVITY_KIND_", 20) || memmem(head, n, "StringIds", 9) ||
	    memmem(head, n, "TARGET_INFO_", 12) || memmem(head, n, "StringTable", 11))
		return 95;
	if (len > 7 && !strcmp(name + len - 7, ".sqlite"))
		return 60;	/* read, and told if it is no export */
	return 0;
}

const struct format format_nsys_sqlite = {
	.id = "nsys-sqlite",
	.summary = "Nsight Systems SQLite export: nsys export --type sqlite, nsys profile --export=sqlite",
	.detects = "the \"SQLite format 3\" header with Nsight Systems table names in the first 64 KiB, or any SQLite file named *.sqlite",
	.state_size = sizeof(struct nsys),
	.sniff = ns_sniff,
	.stream = ns_stream,
	.fini = ns_fini,
	.by_path = true,
	.traces = true,
};
