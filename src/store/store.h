/* SPDX-License-Identifier: MIT */
/*
 * The history store (docs/store.md): per-minute rollups per GPU in one
 * SQLite file, written by `gputally ingest`, read by `gputally trend` and
 * `gputally report --db`.  Raw samples are never stored: each minute holds
 * what the analysis accounted in it (seconds per state, energy, utilization,
 * memory, power, temperature), plus the processes seen per minute, the
 * findings with their times, and one row per ingested file content.
 *
 * The schema is versioned with PRAGMA user_version and marked ours with
 * PRAGMA application_id; store_open() migrates an older store, refuses a
 * newer one and refuses any SQLite file that is not a gputally store.
 */
#ifndef STORE_STORE_H
#define STORE_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "formats/driver.h"
#include "util/err.h"

#define STORE_VERSION 8
/* The oldest version a read-only command reads as it is, without ingest's
 * migration: v8 only added the findings' figures, unknown in a v7 store
 * (store_load_analysis() restores them as unknown).  Older ones are refused. */
#define STORE_READ_OLDEST 7
#define STORE_APP_ID 0x47505554	/* "GPUT" */

struct sqlite3;

struct store {
	struct sqlite3 *db;
	char *path;
	int version_found;	/* user_version before any migration (0: created now) */
};

enum store_mode { STORE_READ, STORE_WRITE };

/* Open (STORE_WRITE: create when missing, migrate when older) and check a store. */
int store_open(struct store *s, const char *path, enum store_mode mode, struct gl_err *err);
void store_close(struct store *s);
/* The SQL that brings a store from version v-1 to v (tests, docs); NULL past the end. */
const char *store_migration_sql(int v);

int store_exec(struct store *s, const char *sql, struct gl_err *err);
/* BEGIN IMMEDIATE: wait for another writer (busy_timeout), and try again
 * for up to 10 s where SQLite refuses the lock at once; 0 or GL_EIO. */
int store_begin_write(struct store *s, struct gl_err *err);
/* "SELECT <the hours columns> FROM minutes": add WHERE and GROUP BY 1, 2 */
extern const char store_hours_agg[];

/* ---- content fingerprints (fingerprint.c) ------------------------------ */

#define FP_HEAD_BYTES 4096
#define FP_HEX 33		/* 32 hex digits and a NUL */

struct fp_state {
	uint64_t a, b, n;
	unsigned char pend[8];
	unsigned npend;
};
void fp_init(struct fp_state *f);
void fp_update(struct fp_state *f, const void *p, size_t n);
/* The fingerprint of everything fed so far (f is left as it is). */
void fp_hex(const struct fp_state *f, char out[FP_HEX]);

/* What the store knows about one file's content. */
enum file_status { FILE_NEW, FILE_GROWN, FILE_KNOWN, FILE_UNREADABLE };

struct file_check {
	enum file_status status;
	uint64_t size;			/* decompressed bytes now */
	char hash[FP_HEX], head[FP_HEX];
	/* FILE_KNOWN / FILE_GROWN: the stored content it equals or extends */
	uint64_t known_size;
	char known_path[512];
	int64_t known_at;		/* when that content was ingested (unix s) */
	char why[256];			/* FILE_UNREADABLE */
	struct fp_rest *rest;		/* store_check_file_lazy: hash not finished yet */
};

/* Read path (decompressed, like the ingest driver) and compare it with every stored content. */
int store_check_file(struct store *s, const char *path, struct file_check *fc);
/*
 * The same, except that a plain file longer than its first megabyte whose
 * first block no stored content shares is known to be new there: its status
 * (FILE_NEW), size and head are set, and the rest of its hash is left in
 * fc->rest (fc->hash empty) for store_finish_hash(), which ingest runs on a
 * thread of its own while the file is parsed.
 */
int store_check_file_lazy(struct store *s, const char *path, struct file_check *fc);
/* Free what store_check_file_lazy() left in fc (an unfinished hash). */
void store_check_release(struct file_check *fc);
/* Finish fc's hash (nothing to do without fc->rest); 0, or -1 with
 * FILE_UNREADABLE and fc->why (the file changed or went away meanwhile). */
int store_finish_hash(struct file_check *fc);
/* store_finish_hash() of fcs[0..n) on a thread (NULL when none is pending),
 * then wait for it: 0, or -1 when one failed (its why says why). */
struct store_hashing *store_finish_hashes_start(struct file_check *const *fcs, size_t n);
int store_finish_hashes_wait(struct store_hashing *h);
/* The [first, last] times of every stored file that has them, malloc'd
 * (*spans NULL when none): what earlier ingests read, as dated evidence. */
int store_file_spans(struct store *s, int64_t (**spans)[2], size_t *n, struct gl_err *err);
/* A stored content that a later ingest may read again (docs/store.md
 * "Held logs and shared minutes"). */
struct stored_file {
	int64_t id;
	char path[512];
	char hash[FP_HEX];
	uint64_t size;
	int64_t t_first_ns, t_last_ns;	/* INT64_MIN: held (seen, not placed) */
};
/* The latest content of each path that is held (a format, no span), or
 * whose span meets [lo_ns, hi_ns], malloc'd (*out NULL when none). */
int store_stored_files(struct store *s, int64_t lo_ns, int64_t hi_ns, struct stored_file **out, size_t *n,
		       struct gl_err *err);
/* A held file that a later run placed: its row takes what the driver said now. */
int store_place_file(struct store *s, int64_t id, const struct input_stat *in, int64_t run, struct gl_err *err);
/* Record one file read in this run (in: what the driver said of it). */
int store_add_file(struct store *s, const struct file_check *fc, const struct input_stat *in, int64_t run,
		   struct gl_err *err);

/* ---- writing one ingest run (rollup.c) --------------------------------- */

struct store_counts {
	uint64_t minutes_new, minutes_updated, minutes_kept;
	uint64_t procs_new, procs_updated, procs_kept;
	uint64_t findings_new, findings_updated, findings_kept;
};

struct store_writer;
/* Attach to an analysis (after analysis_init, before any analysis_add). */
struct store_writer *store_writer_new(struct store *s, struct analysis *an);
/* Every stored source of the minutes that meet spans[0..n) (UTC ns) is
 * read again in this run, and paths[0..np) are every file it reads: those
 * minutes, their processes, the findings that meet them and the events of
 * those files are replaced by this run's, not kept by the rule of the most
 * seconds.  Call before analysis_add; spans and paths are copied. */
void store_writer_replace(struct store_writer *w, const int64_t (*spans)[2], size_t n, const char *const *paths,
			  size_t np);
/* After analysis_finish: flush the last minutes and store the findings. */
int store_writer_finish(struct store_writer *w, struct store_counts *c, struct gl_err *err);
void store_writer_free(struct store_writer *w);

int64_t store_run_begin(struct store *s, int nfiles, struct gl_err *err);
int store_run_end(struct store *s, int64_t run, const struct store_counts *c, int files_new,
		  int files_grown, int files_known, struct gl_err *err);

/* ---- reading (query.c) ------------------------------------------------- */

/* Rebuild an analysis (totals, per-minute busy, processes, findings, events,
 * outages) from the
 * rollups of [since, until) (INT64_MIN / INT64_MAX: open).  Returns the number
 * of GPUs found, or a negative GL_* code. */
int store_load_analysis(struct store *s, struct analysis *an, int64_t since_ns, int64_t until_ns,
			struct gl_err *err);
/* The stored files whose time overlaps the window (the latest content of
 * each path), as inputs of a report; release with ingest_result_release(). */
void store_load_inputs(struct store *s, struct ingest_result *res, int64_t since_ns, int64_t until_ns);

/* ---- trends (trend.c) --------------------------------------------------- */

enum trend_by { TREND_HOUR, TREND_DAY, TREND_WEEK, TREND_MONTH };

struct trend_query {
	int by;			/* enum trend_by; weeks start on Monday */
	bool local;		/* buckets in the process's time zone (TZ), else UTC */
	const char *task;	/* a process name, or NULL for whole GPUs */
	const char *gpu;	/* an index or a UUID, or NULL for all */
	int64_t since_ns, until_ns;	/* INT64_MIN / INT64_MAX: open */
};

/* One bucket (or one task over the window).  Seconds are GPU-seconds. */
struct trend_row {
	int64_t t_s;		/* bucket start (unix s) */
	char name[64];		/* the task, for store_trend_tasks() */
	int gpus;		/* distinct GPUs */
	double covered_s, busy_s, util_known_s, useful_s, mem_max_mib, energy_j, energy_known_s;
	double idle_ws, idle_s, active_ws, active_s;
};

/* Buckets in order.  With q->local each starts at a local midnight (day,
 * week, month) or local hour, so a day of a DST change holds 23 or 25 hours:
 * the rows are read per UTC hour (the hours table) when every such hour lies
 * in one local hour, else per 15 minutes from the minutes, and merged here. */
int store_trend(struct store *s, const struct trend_query *q, struct trend_row **rows, size_t *n,
		struct gl_err *err);
/* The start of the local bucket (q->local) holding t_s: exposed for labels and tests. */
int64_t store_local_bucket(int by, int64_t t_s);
/* Every user (col "user"), Slurm account ("account") or job ("job") of the
 * window, most busy first.  When the window holds batch jobs' minutes
 * (sacct, dcgmi stats: job_minutes), they are the owners, as in report: a
 * job's GPU time held, and a job that names no user or account is
 * "(unknown user)" or "(no account)".  Else the processes seen: those that
 * said no user are "(unknown user)", no job "(none)", and every account is
 * "(unknown account)" (processes name none).  A logger's task labels are
 * no one's and are left out. */
int store_trend_owners(struct store *s, const struct trend_query *q, const char *col, struct trend_row **rows,
		       size_t *n, struct gl_err *err);
/* The name of the GPU model with the most covered time in q's window (and
 * q->gpu, if given), as report picks it; "" when the store names none. */
int store_gpu_model(struct store *s, const struct trend_query *q, char *name, size_t cap, struct gl_err *err);
/* Every task (process name) seen in the window, most busy first. */
int store_trend_tasks(struct store *s, const struct trend_query *q, struct trend_row **rows, size_t *n,
		      struct gl_err *err);

#endif
