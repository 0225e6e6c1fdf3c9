/* SPDX-License-Identifier: MIT */
/*
 * Code shared by the nvidia-smi formats: the dmon/pmon header and row engine
 * (fmt_smi_dmon.c) and the CSV helpers of --query-gpu and
 * --query-compute-apps (fmt_smi_query.c), which both come from the same
 * nvidia-smi writers.  Nothing here keeps pointers into a line.
 */
#ifndef FORMATS_SMI_H
#define FORMATS_SMI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/format.h"

/* ---- dmon / pmon (fmt_smi_dmon.c) ---- */

/* The engine's state fits in this many bytes (checked at compile time). */
#define SMI_MON_STATE_SIZE 8192
/* Sniff score for a dmon (want_proc false) or pmon (true) header. */
int smi_mon_sniff(const char *head, size_t n, bool want_proc);
void smi_mon_init_dmon(void *state, const struct ingest_opts *o);
void smi_mon_init_pmon(void *state, const struct ingest_opts *o);
/* A `#` header line (names or units): replayed at each chunk start. */
bool smi_mon_is_context(const char *line, size_t n);
void smi_mon_line(struct parse_ctx *ctx, const char *line, size_t n);
/* Tests only: false sends every fixed-width row field by field instead of
 * checking its shape at once (row_shape_ok in fmt_smi_dmon.c). */
extern bool smi_dmon_row_shape;

/* ---- nvidia-smi CSV (fmt_smi_query.c) ---- */

/* Is this line a header (its first field a known field name)? */
bool smi_csv_is_header(const char *line, size_t n);
/* Split on ", " into at most cap fields; start[i] is each field's offset.
 * Returns the number of fields (which may exceed cap: then only cap are set). */
size_t smi_csv_split(const char *line, size_t n, uint32_t *start, size_t cap);
/* Fields first..last joined back (for names that contain ", "), trimmed. */
struct slice smi_csv_field(const char *line, size_t n, const uint32_t *start, size_t nf,
			   size_t first, size_t last);
/* A header name without its " [unit]"; the unit goes to *unit (empty if none). */
struct slice smi_csv_header_name(struct slice f, struct slice *unit);
/* "YYYY/MM/DD HH:MM:SS[.frac]" local time to UTC ns; 0 or GL_EPARSE. */
int smi_csv_time(struct slice s, int64_t *t_ns);
/* A number, optionally followed by the header's unit. */
bool smi_csv_number(struct slice v, const char *unit, double *out);
/* nvidia-smi error text in place of data: emits the event, returns true. */
bool smi_csv_tool_text(struct parse_ctx *ctx, const char *line, size_t n);
void smi_csv_skip_bom(const char **line, size_t *n);
/*
 * The checks every nvidia-smi CSV line goes through before it is read as a
 * data row (header lines are the caller's): nvidia-smi's error text becomes
 * an event; text that is not a row, a headerless file without --columns and
 * a last line cut short are reported as bad.  kind names the CSV in messages
 * ("--query-gpu").  Returns true when the line should be read as a row.
 */
bool smi_csv_row_ok(struct parse_ctx *ctx, const char *line, size_t n, uint32_t ncols,
		    const char *kind);
/* A row of nf fields where ncols were expected (start[] holds cap entries): reported
 * as bad at the first extra field. */
void smi_csv_bad_count(struct parse_ctx *ctx, const char *line, size_t n, const uint32_t *start,
		       size_t cap, size_t nf, size_t ncols);
/*
 * With --columns, the list decides the reading of a headerless file whatever
 * its first cell (formats.md 11.9): smi-query or smi-apps when the first row
 * is no header and has as many fields as the list, else NULL.
 */
const struct format *smi_columns_format(const char *head, size_t n, const char *columns);
/* The two formats' columns_fit hooks (format.h): smi_columns_format() names them. */
bool smi_query_columns_fit(const char *head, size_t n, const char *columns);
bool smi_apps_columns_fit(const char *head, size_t n, const char *columns);
/*
 * A headerless --query-gpu file whose directory holds a file with a header
 * of the same width under which its first rows read without a bad value, and
 * no other such header: that header, malloc'ed, for the file's columns.  note
 * says what was decided (empty when the file has its own header).  NULL when
 * not inferred.
 */
char *smi_csv_sibling_columns(const char *path, const char *head, size_t n, char *note,
			      size_t note_cap);
/*
 * The columns of a --query-gpu header (or --columns list) that map to no
 * field, as written ("gpu_fancy[%], temperature_x"), into out; empty when
 * every column is understood or p is no header.
 */
void smi_csv_unread_columns(const char *p, size_t n, char *out, size_t cap);
extern const struct format format_smi_query, format_smi_apps;
/* Emit r (its kind set) with the UUID and name (GPU or process), when given. */
void smi_csv_emit(struct parse_ctx *ctx, const struct rec *r, struct slice uuid,
		  struct slice name);

/* ---- nvidia-smi text (smi_common.c) ---- */

/* "Sun Nov 29 22:46:33 2026" (C ctime, day padded with a space), local time,
 * to UTC ns: 0, or -1 when s is not such a time. */
int smi_ctime(struct slice s, int64_t *t_ns);
/* The header watch(1) prints ("Every 2.0s: rocm-smi   host: Sun Nov 29
 * 22:46:33 2026"): its time to UTC ns, 0; -1 when s is no such header. */
int smi_watch_header(struct slice s, int64_t *t_ns);
/* A number, bare or followed by exactly `unit` ("18.00 W" with "W", "16x"
 * with "x", "127W" with "W"); false for anything else ("59kW"), and for the
 * tokens of smi_missing_token() (which set *status bits). */
bool smi_value_unit(struct slice v, const char *unit, double *out, uint8_t *status);

/* ---- text split into lines for stream() formats (textlines.c) ---- */

/* Lines cut across the pieces of a stream: the unfinished line is kept. */
struct textlines {
	char *buf;
	size_t n, cap;
	uint64_t line;		/* lines handed out so far */
	bool too_long;		/* the kept line passed TEXTLINES_MAX: its rest is dropped */
};
#define TEXTLINES_MAX (64 * 1024)
/* Hand each complete line of p (and, with last, the unfinished one) to
 * fn without its newline or CR, with ctx->line set to its number. */
void textlines_feed(struct textlines *tl, struct parse_ctx *ctx, const char *p, size_t n,
		    bool last, void (*fn)(struct parse_ctx *ctx, const char *line, size_t n));
void textlines_free(struct textlines *tl);

#endif
