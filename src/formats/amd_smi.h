/* SPDX-License-Identifier: MIT */
/*
 * The fields of `amd-smi metric` (ROCm 6 and 7) that become GPU metrics,
 * shared by its JSON and CSV readers (docs/formats/amd-smi-json.md,
 * amd-smi-csv.md).  The CSV names a column by the JSON leaf it comes from
 * ("socket_power", "edge"), and a clock leaf by its domain and leaf
 * ("gfx_0_clk"); the JSON reader builds the same names, so one table
 * serves both.  Several names fill one metric in order of preference (edge
 * before hotspot, as rocm-smi's readers do; ROCm 6.0's gfx_usage after
 * gfx_activity).
 */
#ifndef FORMATS_AMD_SMI_H
#define FORMATS_AMD_SMI_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/format.h"

struct amd_field {
	const char *name;	/* the CSV column, the JSON leaf (or domain_leaf) */
	const char *parent;	/* the JSON object it must sit in, or NULL: any */
	uint8_t metric;		/* enum metric */
	uint8_t rank;		/* 0 best, among names that fill one metric */
	uint8_t unit;		/* enum amd_unit: what a bare number is in */
	bool zero_missing;	/* 0 is amd-smi's "not supported" here, not a reading */
};

enum amd_unit { AU_PCT, AU_W, AU_C, AU_MHZ, AU_MIB, AU_J, AU_COUNT };

/* The field called name inside parent (NULL: a CSV column), or NULL. */
const struct amd_field *amd_field_find(struct slice name, const char *parent);

/*
 * A value of field f: a number with no unit (in f's unit), or a number and
 * one of the units amd-smi prints for it ("MB", "W", "J", ...), converted.
 * 0: *out is set; 1: a missing reading (N/A, empty); -1: not a reading of f,
 * -2: a unit f is never in; *why says what is wrong.
 */
int amd_value(const struct amd_field *f, struct slice num, struct slice unit, double *out,
	      const char **why);

/*
 * The values of a row of amd-smi's text tables (`amd-smi monitor`, the
 * default view): its words, each unit ("W", "°C", "MHz", "%", "MB" ...)
 * joined to the number before it and "0.5/ 48.0 GB" kept whole.  Returns
 * the count, cap + 1 when there are more.
 */
size_t amd_words(struct slice s, struct slice *c, size_t cap);

/*
 * A process row of such a table as the header's ncols columns (into v):
 * its words (amd_words, into c, cap of them), the column name_col (a
 * process name; ncols or more: none) taking the words of a name with
 * spaces.  False, said at file:line:col, when the words cannot be the
 * header's columns.
 */
bool amd_row_columns(struct parse_ctx *ctx, const char *line, struct slice s, uint32_t ncols,
		     uint32_t name_col, struct slice *v, struct slice *c, size_t cap);

/*
 * A process row's record: GPU index, pid, name (a batch string or
 * STR_NONE), its time (TK_ABS when timed, else none), and its device
 * memory: VRAM_MEM, or MEM_USAGE (VRAM + GTT + CPU) only where the table
 * has no VRAM_MEM column (has_vram_col); -1 is not read.  A row with no
 * GPU or PID (idx or pid < 0) is said at s instead.
 */
void amd_proc_row_emit(struct parse_ctx *ctx, const char *line, struct slice s, int64_t idx, int64_t pid,
		       uint32_t name, int64_t t_ns, bool timed, double vram, double mem, bool has_vram_col);

/*
 * "3.0/191.7 GB", "10/212 W", "N/A": two values over the one unit after
 * them, of fields fa and fb; *ra and *rb as amd_value() returns for each.
 * -1 (and *why) when either is not a reading of its field.
 */
int amd_pair(const struct amd_field *fa, const struct amd_field *fb, struct slice v, double *a,
	     int *ra, double *b, int *rb, const char **why);

/* A sample's metrics as they are filled, a better-ranked name winning. */
struct amd_sample {
	struct rec g;			/* present and v[] */
	uint8_t rank[M__COUNT];		/* rank of the name that set v[m]; 0xff: none */
};
void amd_sample_init(struct amd_sample *s);
void amd_sample_set(struct amd_sample *s, const struct amd_field *f, double v);

#endif
