/* SPDX-License-Identifier: MIT */
/* Opening, checking and migrating a store; the files table. */
#include "store/store.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include "formats/reader.h"
#include "util/xalloc.h"

/*
 * The schema history.  migrations[v - 1] takes a store from version v-1 to
 * v; a new version is one more entry at the end, never an edit of an old one
 * (a store made by an older program must keep migrating the same way).
 * Seconds are integer milliseconds (_ms), energy joules, power watts.
 */
/* The hours table is the minutes summed per UTC hour (maxima kept as
 * maxima), so that a year of trend reads 60 times fewer rows.  Part of
 * migration 3: changing it means a new migration, not an edit. */
#define HOURS_AGG \
	"SELECT (t / 3600) * 3600, gpu, min(t_first_ns), max(t_last_ns), sum(covered_ms), sum(gaps_ms), " \
	"sum(busy_ms), sum(util_known_ms), max(util_max), max(mem_max_mib), max(mem_total_mib), " \
	"sum(power_ws), sum(power_known_ms), max(power_max_w), max(temp_max_c), sum(e_counter_j), " \
	"sum(e_counter_ms), sum(e_power_j), sum(e_power_ms), sum(e_unknown_ms), sum(idle_ws), " \
	"sum(idle_ms), sum(active_ws), sum(active_ms), sum(s_idle), sum(s_held_idle), " \
	"sum(s_compute_bound), sum(s_memory_bound), sum(s_input_bound), sum(s_launch_bound), " \
	"sum(s_throttled), sum(s_down), sum(s_unknown), sum(s_gap), sum(b_idle), sum(b_held_idle), " \
	"sum(b_compute_bound), sum(b_memory_bound), sum(b_input_bound), sum(b_launch_bound), " \
	"sum(b_throttled), sum(b_down), sum(b_unknown), sum(b_gap), sum(e_idle), sum(e_held_idle), " \
	"sum(e_compute_bound), sum(e_memory_bound), sum(e_input_bound), sum(e_launch_bound), " \
	"sum(e_throttled), sum(e_down), sum(e_unknown), sum(e_gap) FROM minutes"

const char store_hours_agg[] = HOURS_AGG;

static const char *const migrations[STORE_VERSION] = {
	/* v1: files, GPUs, per-minute rollups, processes per minute, findings */
	"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;\n"
	"CREATE TABLE files (id INTEGER PRIMARY KEY, path TEXT NOT NULL, size INTEGER NOT NULL,\n"
	"  hash TEXT NOT NULL, head TEXT NOT NULL, format TEXT, t_first_ns INTEGER, t_last_ns INTEGER,\n"
	"  ingested_at INTEGER NOT NULL);\n"
	"CREATE INDEX files_hash ON files (hash);\n"
	"CREATE INDEX files_head ON files (head, size);\n"
	"CREATE TABLE gpus (id INTEGER PRIMARY KEY, idx INTEGER, uuid TEXT, name TEXT);\n"
	"CREATE TABLE minutes (t INTEGER NOT NULL, gpu INTEGER NOT NULL,\n"
	"  t_first_ns INTEGER, t_last_ns INTEGER, covered_ms INTEGER, gaps_ms INTEGER,\n"
	"  busy_ms INTEGER, util_known_ms INTEGER, util_max REAL, mem_max_mib REAL, mem_total_mib REAL,\n"
	"  power_ws REAL, power_known_ms INTEGER, power_max_w REAL, temp_max_c REAL,\n"
	"  e_counter_j REAL, e_counter_ms INTEGER, e_power_j REAL, e_power_ms INTEGER, e_unknown_ms INTEGER,\n"
	"  idle_ws REAL, idle_ms INTEGER, active_ws REAL, active_ms INTEGER,\n"
	"  s_idle INTEGER, s_held_idle INTEGER, s_compute_bound INTEGER, s_memory_bound INTEGER,\n"
	"  s_input_bound INTEGER, s_launch_bound INTEGER, s_throttled INTEGER, s_down INTEGER,\n"
	"  s_unknown INTEGER, s_gap INTEGER,\n"
	"  b_idle INTEGER, b_held_idle INTEGER, b_compute_bound INTEGER, b_memory_bound INTEGER,\n"
	"  b_input_bound INTEGER, b_launch_bound INTEGER, b_throttled INTEGER, b_down INTEGER,\n"
	"  b_unknown INTEGER, b_gap INTEGER,\n"
	"  e_idle REAL, e_held_idle REAL, e_compute_bound REAL, e_memory_bound REAL,\n"
	"  e_input_bound REAL, e_launch_bound REAL, e_throttled REAL, e_down REAL,\n"
	"  e_unknown REAL, e_gap REAL,\n"
	"  PRIMARY KEY (t, gpu)) WITHOUT ROWID;\n"
	"CREATE TABLE proc_minutes (t INTEGER NOT NULL, gpu INTEGER NOT NULL, pid INTEGER NOT NULL,\n"
	"  name TEXT NOT NULL, present_ms INTEGER, busy_ms INTEGER, busy_known_ms INTEGER, energy_j REAL,\n"
	"  PRIMARY KEY (t, gpu, pid, name)) WITHOUT ROWID;\n"
	"CREATE INDEX proc_minutes_name ON proc_minutes (name, t);\n"
	"CREATE TABLE findings (gpu INTEGER NOT NULL, kind TEXT NOT NULL, t0_ns INTEGER NOT NULL,\n"
	"  t1_ns INTEGER, severity INTEGER, value REAL, message TEXT, evidence TEXT,\n"
	"  PRIMARY KEY (gpu, kind, t0_ns)) WITHOUT ROWID;\n",
	/* v2: one row per ingest run, and the run that brought each file */
	"CREATE TABLE runs (id INTEGER PRIMARY KEY, at INTEGER NOT NULL, version TEXT,\n"
	"  files_new INTEGER, files_grown INTEGER, files_known INTEGER,\n"
	"  minutes_new INTEGER, minutes_updated INTEGER, minutes_kept INTEGER);\n"
	"ALTER TABLE files ADD COLUMN run INTEGER;\n",
	/* v3: the hours table, filled from the minutes already stored */
	"CREATE TABLE hours (t INTEGER NOT NULL, gpu INTEGER NOT NULL,\n"
	"  t_first_ns INTEGER, t_last_ns INTEGER, covered_ms INTEGER, gaps_ms INTEGER,\n"
	"  busy_ms INTEGER, util_known_ms INTEGER, util_max REAL, mem_max_mib REAL, mem_total_mib REAL,\n"
	"  power_ws REAL, power_known_ms INTEGER, power_max_w REAL, temp_max_c REAL,\n"
	"  e_counter_j REAL, e_counter_ms INTEGER, e_power_j REAL, e_power_ms INTEGER, e_unknown_ms INTEGER,\n"
	"  idle_ws REAL, idle_ms INTEGER, active_ws REAL, active_ms INTEGER,\n"
	"  s_idle INTEGER, s_held_idle INTEGER, s_compute_bound INTEGER, s_memory_bound INTEGER,\n"
	"  s_input_bound INTEGER, s_launch_bound INTEGER, s_throttled INTEGER, s_down INTEGER,\n"
	"  s_unknown INTEGER, s_gap INTEGER,\n"
	"  b_idle INTEGER, b_held_idle INTEGER, b_compute_bound INTEGER, b_memory_bound INTEGER,\n"
	"  b_input_bound INTEGER, b_launch_bound INTEGER, b_throttled INTEGER, b_down INTEGER,\n"
	"  b_unknown INTEGER, b_gap INTEGER,\n"
	"  e_idle REAL, e_held_idle REAL, e_compute_bound REAL, e_memory_bound REAL,\n"
	"  e_input_bound REAL, e_launch_bound REAL, e_throttled REAL, e_down REAL,\n"
	"  e_unknown REAL, e_gap REAL,\n"
	"  PRIMARY KEY (t, gpu)) WITHOUT ROWID;\n"
	"INSERT INTO hours " HOURS_AGG " GROUP BY 1, 2;\n"
	/* and what the driver said of each file, for report --db's inputs */
	"ALTER TABLE files ADD COLUMN compression TEXT;\n"
	"ALTER TABLE files ADD COLUMN lines INTEGER;\n"
	"ALTER TABLE files ADD COLUMN records INTEGER;\n"
	"ALTER TABLE files ADD COLUMN skipped INTEGER;\n",
	/* v4: the kernel and system events (the report's events[]) and the
	 * outages after fatal ones, for report --db */
	"CREATE TABLE events (gpu INTEGER NOT NULL, kind TEXT NOT NULL, code INTEGER NOT NULL, pci TEXT NOT NULL,\n"
	"  t_ns INTEGER NOT NULL, message TEXT NOT NULL, class TEXT, severity INTEGER, flags INTEGER,\n"
	"  count INTEGER, process TEXT, detail TEXT, gpu_by TEXT, src TEXT, line INTEGER, also TEXT,\n"
	"  PRIMARY KEY (gpu, kind, code, pci, t_ns, message)) WITHOUT ROWID;\n"
	"CREATE INDEX events_t ON events (t_ns);\n"
	"CREATE TABLE outages (gpu INTEGER NOT NULL, t0_ns INTEGER NOT NULL, t1_ns INTEGER NOT NULL,\n"
	"  kind TEXT, code INTEGER, src TEXT, line INTEGER, PRIMARY KEY (gpu, t0_ns)) WITHOUT ROWID;\n",
	/* v5: a finding's code (an xid_error's Xid; -1 for an event without
	 * one, 0 for the kinds that have none) is part of what makes two
	 * findings the same, so that Xid 13 and Xid 63 overlapping in time on
	 * one GPU are two rows; rows stored before v5 get -2, not recorded */
	"CREATE TABLE findings_v5 (gpu INTEGER NOT NULL, kind TEXT NOT NULL, t0_ns INTEGER NOT NULL,\n"
	"  t1_ns INTEGER, severity INTEGER, value REAL, message TEXT, evidence TEXT, code INTEGER NOT NULL,\n"
	"  PRIMARY KEY (gpu, kind, code, t0_ns)) WITHOUT ROWID;\n"
	"INSERT INTO findings_v5 (gpu, kind, t0_ns, t1_ns, severity, value, message, evidence, code)\n"
	"  SELECT gpu, kind, t0_ns, t1_ns, severity, value, message, evidence, -2 FROM findings;\n"
	"DROP TABLE findings;\n"
	"ALTER TABLE findings_v5 RENAME TO findings;\n",
	/* v6: who each process belongs to (record's procs_who, a logger's
	 * users), for trend --by user and --by job; NULL in the rows before */
	"ALTER TABLE proc_minutes ADD COLUMN user TEXT;\n"
	"ALTER TABLE proc_minutes ADD COLUMN job TEXT;\n",
	/* v7: what report --db needs to say who spent it (docs/store.md "Who
	 * spent it"): each process's GPU time charged (present x its share of
	 * the GPU; NULL in the rows before, so a window holding them cannot be
	 * split), its task and container; the Slurm jobs read (sacct, dcgmi
	 * stats) and their share of each GPU per minute, with their account */
	"ALTER TABLE proc_minutes ADD COLUMN share_ms INTEGER;\n"
	"ALTER TABLE proc_minutes ADD COLUMN task TEXT;\n"
	"ALTER TABLE proc_minutes ADD COLUMN ctr TEXT;\n"
	"CREATE TABLE jobs (id TEXT PRIMARY KEY, user TEXT, account TEXT, nodes TEXT, t0_ns INTEGER NOT NULL,\n"
	"  t1_ns INTEGER NOT NULL, ngpus INTEGER, nnodes INTEGER, gpu_mask INTEGER, gpuutil_pct REAL,\n"
	"  gpumem_mib REAL, reported_energy_j REAL) WITHOUT ROWID;\n"
	"CREATE TABLE job_minutes (t INTEGER NOT NULL, gpu INTEGER NOT NULL, job TEXT NOT NULL,\n"
	"  held_ms INTEGER, busy_ms INTEGER, busy_known_ms INTEGER, energy_j REAL,\n"
	"  PRIMARY KEY (t, gpu, job)) WITHOUT ROWID;\n",
	/* v8: what the ranking and the writers read of a finding besides its
	 * row (docs/store.md "findings"): a summary's stretches, those right
	 * after an event, total seconds (idle_power's idle seconds too) and
	 * energy, its longest stretches (one "t0_ns TAB t1_ns TAB energy_j TAB
	 * cause" a line), and a leak's fitted line; NULL in the rows before,
	 * restored as unknown */
	"ALTER TABLE findings ADD COLUMN nstretch INTEGER;\n"
	"ALTER TABLE findings ADD COLUMN nlinked INTEGER;\n"
	"ALTER TABLE findings ADD COLUMN total_s REAL;\n"
	"ALTER TABLE findings ADD COLUMN energy_j REAL;\n"
	"ALTER TABLE findings ADD COLUMN longest TEXT;\n"
	"ALTER TABLE findings ADD COLUMN fit_mib0 REAL;\n"
	"ALTER TABLE findings ADD COLUMN fit_mib1 REAL;\n"
	"ALTER TABLE findings ADD COLUMN full_ns INTEGER;\n",
};

const char *store_migration_sql(int v)
{
	return v >= 1 && v <= STORE_VERSION ? migrations[v - 1] : NULL;
}

int store_exec(struct store *s, const char *sql, struct gl_err *err)
{
	char *msg = NULL;

	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		gl_err_set(err, GL_EIO, "%s: %s", s->path, msg ? msg : sqlite3_errmsg(s->db));
		sqlite3_free(msg);
		return GL_EIO;
	}
	return 0;
}

static int64_t pragma_int(struct store *s, const char *sql, int *ok)
{
	sqlite3_stmt *st;
	int64_t v = 0;

	*ok = 0;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW) {
		v = sqlite3_column_int64(st, 0);
		*ok = 1;
	}
	sqlite3_finalize(st);
	return v;
}

/* Inside the caller's write transaction (check_and_migrate). */
static int migrate(struct store *s, int from, struct gl_err *err)
{
	char sql[64];

	for (int v = from + 1; v <= STORE_VERSION; v++)
		if (store_exec(s, migrations[v - 1], err))
			return GL_EIO;
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", STORE_VERSION);
	if (store_exec(s, sql, err))
		return GL_EIO;
	snprintf(sql, sizeof(sql), "PRAGMA application_id = %d", STORE_APP_ID);
	if (store_exec(s, sql, err))
		return GL_EIO;
	if (from == 0 && store_exec(s, "INSERT INTO meta VALUES ('program', 'gputally')", err))
		return GL_EIO;
	return 0;
}

/* Ours, a store of another program, or a newer one: decide before touching anything. */
static int check_version(struct store *s, enum store_mode mode, struct gl_err *err)
{
	int ok, ok2, ok3;
	int64_t app = pragma_int(s, "PRAGMA application_id", &ok);
	int64_t ver = pragma_int(s, "PRAGMA user_version", &ok2);
	int64_t ntab = pragma_int(s, "SELECT count(*) FROM sqlite_master", &ok3);

	if (!ok || !ok2 || !ok3)
		return gl_err_set(err, GL_EPARSE, "%s: not a readable SQLite database (%s)", s->path,
				  sqlite3_errmsg(s->db));
	s->version_found = (int)ver;
	if (app == 0 && ver == 0 && ntab == 0) {
		if (mode == STORE_READ)
			return gl_err_set(err, GL_EUSAGE, "%s: an empty database, not a store yet (run 'gputally ingest --db %s' first)",
					  s->path, s->path);
		return migrate(s, 0, err);
	}
	if (app != STORE_APP_ID)
		return gl_err_set(err, GL_EUNSUPPORTED,
				  "%s: an SQLite database of another program (application_id %lld, %lld tables), not a gputally store; refusing to touch it",
				  s->path, (long long)app, (long long)ntab);
	if (ver > STORE_VERSION)
		return gl_err_set(err, GL_EUNSUPPORTED,
				  "%s: store schema version %lld is newer than this program's (%d); use a newer gputally",
				  s->path, (long long)ver, STORE_VERSION);
	if (ver < 1)
		return gl_err_set(err, GL_EPARSE, "%s: marked as a gputally store but with no schema version", s->path);
	if (ver < STORE_VERSION) {
		if (mode == STORE_READ && ver >= STORE_READ_OLDEST)
			return 0;	/* read as it is: what it lacks is unknown */
		if (mode == STORE_READ)
			return gl_err_set(err, GL_EUNSUPPORTED,
					  "%s: store schema version %lld is older than this program's (%d); 'gputally ingest --db %s' upgrades it",
					  s->path, (long long)ver, STORE_VERSION, s->path);
		return migrate(s, (int)ver, err);
	}
	return 0;
}

/*
 * A writer decides what the file is and creates or migrates its schema in
 * one immediate transaction: two ingests into a new store both saw it
 * empty and both created its tables ("table meta already exists").  The
 * second now waits on the first's lock (busy_timeout), then finds the
 * schema made and current.
 */
static bool busy(struct store *s)
{
	int code = sqlite3_errcode(s->db) & 0xff;

	return code == SQLITE_BUSY || code == SQLITE_LOCKED;
}

int store_begin_write(struct store *s, struct gl_err *err)
{
	struct timespec nap = { 0, 50 * 1000 * 1000 };

	/* busy_timeout waits for another writer; a lock SQLite refuses at
	 * once (one that would deadlock, a snapshot gone stale) is tried again */
	for (int tries = 0;; tries++) {
		if (!store_exec(s, "BEGIN IMMEDIATE", err))
			return 0;
		if (!busy(s) || tries >= 200)
			return GL_EIO;
		memset(err, 0, sizeof(*err));
		nanosleep(&nap, NULL);
	}
}

static int check_and_migrate(struct store *s, struct gl_err *err)
{
	int rc;

	if (store_begin_write(s, err))
		return GL_EIO;
	rc = check_version(s, STORE_WRITE, err);
	if (rc) {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	return store_exec(s, "COMMIT", err);
}

/*
 * The schema, then WAL (readers such as trend go on while ingest writes;
 * NORMAL is still atomic per transaction when the process is killed).
 * Writers that open a new store at once can still meet SQLITE_BUSY where
 * the busy handler is not used: switching a new file to WAL needs it alone,
 * and SQLite answers a lock that would deadlock at once.  Such an answer is
 * tried again for up to 10 s; any other error is final.
 */
static int open_writer(struct store *s, struct gl_err *err)
{
	struct timespec nap = { 0, 50 * 1000 * 1000 };
	int rc;

	for (int tries = 0;; tries++) {
		rc = check_and_migrate(s, err);
		if (!rc)
			rc = store_exec(s, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL", err);
		if (!rc || !busy(s) || tries >= 200)
			return rc;
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		memset(err, 0, sizeof(*err));
		nanosleep(&nap, NULL);
	}
}

int store_open(struct store *s, const char *path, enum store_mode mode, struct gl_err *err)
{
	struct stat sb;
	/* NOMUTEX: a store is used by one thread at a time (the one that opened
	 * it), so SQLite's per-call mutex (serialized mode, the default) only
	 * cost time: a sixth of ingest's SQLite work was taking and releasing it */
	int flags = (mode == STORE_WRITE ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY) |
		    SQLITE_OPEN_NOMUTEX;
	int rc;

	memset(s, 0, sizeof(*s));
	if (mode == STORE_READ && stat(path, &sb) != 0)
		return gl_err_errno(err, "%s", path);
	s->path = xstrdup(path);
	rc = sqlite3_open_v2(path, &s->db, flags, NULL);
	if (rc != SQLITE_OK) {
		gl_err_set(err, GL_EIO, "%s: cannot open: %s", path, s->db ? sqlite3_errmsg(s->db) : "out of memory");
		store_close(s);
		return GL_EIO;
	}
	/* a writer holds the lock for one file at a time: wait for it rather than fail */
	sqlite3_busy_timeout(s->db, 10000);
	if (mode != STORE_WRITE)
		rc = check_version(s, mode, err);
	else
		rc = open_writer(s, err);
	if (rc) {
		store_close(s);
		return rc;
	}
	return 0;
}

void store_close(struct store *s)
{
	if (s->db)
		sqlite3_close(s->db);
	free(s->path);
	memset(s, 0, sizeof(*s));
}

/* ---- files -------------------------------------------------------------- */

struct candidate {
	uint64_t size;
	char hash[FP_HEX];
	char path[512];
	int64_t at;
};

static void copy_text(char *dst, size_t cap, const unsigned char *src)
{
	snprintf(dst, cap, "%s", src ? (const char *)src : "");
}

/* Stored contents that this file could extend: same first block, or too short to have one. */
static size_t load_candidates(struct store *s, const char *head, uint64_t size_at_least,
			      struct candidate **out)
{
	sqlite3_stmt *st;
	size_t n = 0, alloc = 0;

	*out = NULL;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT size, hash, path, ingested_at FROM files WHERE (head = ?1 OR size < ?3) AND size < ?2"
			       " ORDER BY size",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, head, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)size_at_least);
	sqlite3_bind_int64(st, 3, FP_HEAD_BYTES);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct candidate *c;
		ALLOC_GROW(*out, n + 1, alloc);
		c = &(*out)[n++];
		c->size = (uint64_t)sqlite3_column_int64(st, 0);
		copy_text(c->hash, sizeof(c->hash), sqlite3_column_text(st, 1));
		copy_text(c->path, sizeof(c->path), sqlite3_column_text(st, 2));
		c->at = sqlite3_column_int64(st, 3);
	}
	sqlite3_finalize(st);
	return n;
}

static bool lookup_hash(struct store *s, const char *hash, uint64_t size, struct file_check *fc)
{
	sqlite3_stmt *st;
	bool found = false;

	if (sqlite3_prepare_v2(s->db, "SELECT path, ingested_at FROM files WHERE hash = ? AND size = ? LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(st, 1, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)size);
	if (sqlite3_step(st) == SQLITE_ROW) {
		found = true;
		copy_text(fc->known_path, sizeof(fc->known_path), sqlite3_column_text(st, 0));
		fc->known_at = sqlite3_column_int64(st, 1);
		fc->known_size = size;
	}
	sqlite3_finalize(st);
	return found;
}

static void take_prefix(struct file_check *fc, const struct candidate *c)
{
	if (c->size <= fc->known_size)
		return;
	fc->known_size = c->size;
	snprintf(fc->known_path, sizeof(fc->known_path), "%s", c->path);
	fc->known_at = c->at;
}

/* Candidates no longer than the first block: their prefixes come from the kept block. */
static size_t check_short(const unsigned char *head, size_t nhead, const struct candidate *cand,
			  size_t ncand, struct file_check *fc)
{
	size_t i = 0;

	for (; i < ncand && cand[i].size <= nhead; i++) {
		struct fp_state f;
		char h[FP_HEX];
		fp_init(&f);
		fp_update(&f, head, (size_t)cand[i].size);
		fp_hex(&f, h);
		if (!strcmp(h, cand[i].hash))
			take_prefix(fc, &cand[i]);
	}
	return i;
}

/* The state of store_check_file's one pass. */
struct check_walk {
	struct store *s;
	struct file_check *fc;
	struct fp_state fp;
	struct candidate *cand;
	size_t ncand, next;
	bool have_cand;
	unsigned char head[FP_HEAD_BYTES];
};

/* The next n bytes of the file into the fingerprint, and the prefixes on the way. */
static void check_bytes(struct check_walk *cw, const unsigned char *p, size_t n)
{
	size_t off = 0;

	while (off < n) {
		size_t take = n - off;
		if (!cw->have_cand && cw->fp.n + take > FP_HEAD_BYTES)
			take = (size_t)(FP_HEAD_BYTES - cw->fp.n);
		if (cw->have_cand && cw->next < cw->ncand && cw->cand[cw->next].size - cw->fp.n < take)
			take = (size_t)(cw->cand[cw->next].size - cw->fp.n);
		if (!cw->have_cand)
			memcpy(cw->head + cw->fp.n, p + off, take);
		fp_update(&cw->fp, p + off, take);
		off += take;
		if (!cw->have_cand && cw->fp.n == FP_HEAD_BYTES) {
			fp_hex(&cw->fp, cw->fc->head);
			cw->ncand = load_candidates(cw->s, cw->fc->head, UINT64_MAX / 2, &cw->cand);
			cw->have_cand = true;
			cw->next = check_short(cw->head, FP_HEAD_BYTES, cw->cand, cw->ncand, cw->fc);
		}
		/* a candidate whose length we reached: is it our prefix? */
		while (cw->have_cand && cw->next < cw->ncand && cw->cand[cw->next].size <= cw->fp.n) {
			char h[FP_HEX];
			fp_hex(&cw->fp, h);
			if (cw->cand[cw->next].size == cw->fp.n && !strcmp(h, cw->cand[cw->next].hash))
				take_prefix(cw->fc, &cw->cand[cw->next]);
			cw->next++;
		}
	}
}

/*
 * One pass over the decompressed bytes: the fingerprint of the first block
 * (to find the stored contents this one may extend), then of every such
 * content's length on the way, then of the whole.  A plain file is mapped,
 * not copied, and each megabyte's pages handed back once hashed, so that
 * resident memory stays flat.
 */
struct fp_rest {
	char *path;
	struct fp_state fp;	/* the first megabyte's */
};

static int check_file(struct store *s, const char *path, struct file_check *fc, bool lazy)
{
	struct reader r;
	struct gl_err e = { 0 };
	struct check_walk *cw;
	static unsigned char buf[1 << 16];
	long got = 0;
	struct stat sb;

	memset(fc, 0, sizeof(*fc));
	/* a stream has no end to wait for (/dev/zero) and cannot be read a
	 * second time to parse it: decided from stat(), before any open()
	 * (which would wait for a FIFO's writer) */
	if (strcmp(path, "-") && stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		fc->status = FILE_UNREADABLE;
		snprintf(fc->why, sizeof(fc->why),
			 "not a regular file (a pipe, FIFO or device): ingest keeps a file's fingerprint to "
			 "know it again; save the stream to a file first");
		return -1;
	}
	if (reader_open_opt(&r, path, true, 0, &e)) {
		fc->status = FILE_UNREADABLE;
		snprintf(fc->why, sizeof(fc->why), "%s", e.msg);
		return -1;
	}
	cw = xcalloc(1, sizeof(*cw));
	cw->s = s;
	cw->fc = fc;
	fp_init(&cw->fp);
	if (r.kind == READER_MAP) {
		const unsigned char *m = (const unsigned char *)r.map;
		const size_t step = 1 << 20;
		for (size_t off = 0; off < r.map_len; off += step) {
			size_t n = r.map_len - off < step ? r.map_len - off : step;
			check_bytes(cw, m + off, n);
			if (n == step)	/* whole pages: map and step are page-aligned */
				madvise((void *)(uintptr_t)(m + off), n, MADV_DONTNEED);
			if (lazy && cw->have_cand && !cw->ncand && off + n < r.map_len) {
				/* no stored content has its first block: none can equal
				 * or be a prefix of it (lookup_hash's match would have
				 * been a candidate), so it is new whatever the rest */
				fc->size = r.map_len;
				fc->status = FILE_NEW;
				fc->rest = xmalloc(sizeof(*fc->rest));
				fc->rest->path = xstrdup(path);
				fc->rest->fp = cw->fp;
				reader_close(&r);
				free(cw->cand);
				free(cw);
				return 0;
			}
		}
	} else {
		while ((got = reader_read(&r, (char *)buf, sizeof(buf), &e)) > 0)
			check_bytes(cw, buf, (size_t)got);
	}
	reader_close(&r);
	if (got < 0) {
		free(cw->cand);
		free(cw);
		fc->status = FILE_UNREADABLE;
		snprintf(fc->why, sizeof(fc->why), "%s", e.msg);
		return -1;
	}
	fc->size = cw->fp.n;
	fp_hex(&cw->fp, fc->hash);
	if (!cw->have_cand) {
		/* shorter than one block: its head is the whole of it */
		snprintf(fc->head, sizeof(fc->head), "%s", fc->hash);
		cw->ncand = load_candidates(s, fc->head, cw->fp.n, &cw->cand);
		check_short(cw->head, (size_t)cw->fp.n, cw->cand, cw->ncand, fc);
	}
	free(cw->cand);
	free(cw);
	if (lookup_hash(s, fc->hash, fc->size, fc))
		fc->status = FILE_KNOWN;
	else
		fc->status = fc->known_size > 0 ? FILE_GROWN : FILE_NEW;
	return 0;
}

int store_check_file(struct store *s, const char *path, struct file_check *fc)
{
	return check_file(s, path, fc, false);
}

int store_check_file_lazy(struct store *s, const char *path, struct file_check *fc)
{
	return check_file(s, path, fc, true);
}

void store_check_release(struct file_check *fc)
{
	if (fc->rest) {
		free(fc->rest->path);
		free(fc->rest);
		fc->rest = NULL;
	}
}

int store_finish_hash(struct file_check *fc)
{
	struct fp_rest *rest = fc->rest;
	struct reader r;
	struct gl_err e = { 0 };
	const size_t step = 1 << 20;
	int rc = 0;

	if (!rest)
		return 0;
	fc->rest = NULL;
	if (reader_open_opt(&r, rest->path, true, 0, &e)) {
		snprintf(fc->why, sizeof(fc->why), "%s", e.msg);
		rc = -1;
	} else if (r.kind != READER_MAP || r.map_len != fc->size) {
		reader_close(&r);
		snprintf(fc->why, sizeof(fc->why), "the file changed while it was read");
		rc = -1;
	} else {
		const unsigned char *m = (const unsigned char *)r.map;
		/* from the megabyte check_file() stopped at: page-aligned */
		for (size_t off = (size_t)rest->fp.n; off < r.map_len; off += step) {
			size_t n = r.map_len - off < step ? r.map_len - off : step;
			fp_update(&rest->fp, m + off, n);
			if (n == step)
				madvise((void *)(uintptr_t)(m + off), n, MADV_DONTNEED);
		}
		reader_close(&r);
		fp_hex(&rest->fp, fc->hash);
	}
	if (rc)
		fc->status = FILE_UNREADABLE;
	free(rest->path);
	free(rest);
	return rc;
}

struct store_hashing {
	pthread_t th;
	bool started;
	struct file_check **fcs;
	size_t n;
	int rc;
};

static void *hashing_main(void *arg)
{
	struct store_hashing *h = arg;

	for (size_t i = 0; i < h->n; i++)
		if (store_finish_hash(h->fcs[i]))
			h->rc = -1;
	return NULL;
}

struct store_hashing *store_finish_hashes_start(struct file_check *const *fcs, size_t n)
{
	struct store_hashing *h;
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += fcs[i]->rest != NULL;
	if (!k)
		return NULL;
	h = xcalloc(1, sizeof(*h));
	h->fcs = xcalloc(k, sizeof(*h->fcs));
	for (size_t i = 0; i < n; i++)
		if (fcs[i]->rest)
			h->fcs[h->n++] = fcs[i];
	h->started = !pthread_create(&h->th, NULL, hashing_main, h);
	return h;
}

int store_finish_hashes_wait(struct store_hashing *h)
{
	int rc;

	if (!h)
		return 0;
	if (h->started)
		pthread_join(h->th, NULL);
	else
		hashing_main(h);	/* no thread: here and now */
	rc = h->rc;
	free(h->fcs);
	free(h);
	return rc;
}

int store_file_spans(struct store *s, int64_t (**spans)[2], size_t *n, struct gl_err *err)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	*spans = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT t_first_ns, t_last_ns FROM files WHERE t_first_ns IS NOT NULL"
			       " AND t_last_ns IS NOT NULL ORDER BY t_first_ns", -1, &st, NULL) != SQLITE_OK)
		return gl_err_set(err, GL_EIO, "%s: %s", s->path, sqlite3_errmsg(s->db));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*spans = xrealloc(*spans, cap * sizeof(**spans));
		}
		(*spans)[*n][0] = sqlite3_column_int64(st, 0);
		(*spans)[*n][1] = sqlite3_column_int64(st, 1);
		(*n)++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return gl_err_set(err, GL_EIO, "%s: %s", s->path, sqlite3_errmsg(s->db));
	return 0;
}

int store_stored_files(struct store *s, int64_t lo_ns, int64_t hi_ns, struct stored_file **out, size_t *n,
		       struct gl_err *err)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(s->db,
			       /* the rows that may do, then the latest row of each of
				* their paths: one scan each, no index on path needed
				* (0.4 s for 100,000 rows that all qualify, 20 ms when
				* none does) */
			       "WITH c AS (SELECT id, path, hash, size, t_first_ns, t_last_ns FROM files"
			       " WHERE format IS NOT NULL AND (t_first_ns IS NULL OR (t_first_ns <= ?2 AND t_last_ns >= ?1)))"
			       " SELECT c.* FROM c JOIN (SELECT max(id) AS mid FROM files WHERE path IN (SELECT path FROM c)"
			       " GROUP BY path) m ON c.id = m.mid ORDER BY c.id", -1, &st, NULL) != SQLITE_OK)
		return gl_err_set(err, GL_EIO, "%s: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_bind_int64(st, 1, lo_ns);
	sqlite3_bind_int64(st, 2, hi_ns);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct stored_file *f;
		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			*out = xrealloc(*out, cap * sizeof(**out));
		}
		f = &(*out)[(*n)++];
		f->id = sqlite3_column_int64(st, 0);
		copy_text(f->path, sizeof(f->path), sqlite3_column_text(st, 1));
		copy_text(f->hash, sizeof(f->hash), sqlite3_column_text(st, 2));
		f->size = (uint64_t)sqlite3_column_int64(st, 3);
		f->t_first_ns = sqlite3_column_type(st, 4) == SQLITE_NULL ? INT64_MIN : sqlite3_column_int64(st, 4);
		f->t_last_ns = sqlite3_column_type(st, 5) == SQLITE_NULL ? INT64_MIN : sqlite3_column_int64(st, 5);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return gl_err_set(err, GL_EIO, "%s: %s", s->path, sqlite3_errmsg(s->db));
	return 0;
}

int store_place_file(struct store *s, int64_t id, const struct input_stat *in, int64_t run, struct gl_err *err)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db,
			       "UPDATE files SET format = ?2, t_first_ns = ?3, t_last_ns = ?4, run = ?5, compression = ?6,"
			       " lines = ?7, records = ?8, skipped = ?9 WHERE id = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		return gl_err_set(err, GL_EIO, "%s: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, in->format->id, -1, SQLITE_STATIC);
	if (in->t_first_ns != INT64_MIN) {
		sqlite3_bind_int64(st, 3, in->t_first_ns);
		sqlite3_bind_int64(st, 4, in->t_last_ns);
	}
	sqlite3_bind_int64(st, 5, run);
	sqlite3_bind_text(st, 6, in->compression, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, (sqlite3_int64)in->lines);
	sqlite3_bind_int64(st, 8, (sqlite3_int64)in->records);
	sqlite3_bind_int64(st, 9, (sqlite3_int64)in->bad);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : gl_err_set(err, GL_EIO, "%s: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
	return rc;
}

int store_add_file(struct store *s, const struct file_check *fc, const struct input_stat *in, int64_t run,
		   struct gl_err *err)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db,
			       "INSERT INTO files (path, size, hash, head, format, t_first_ns, t_last_ns, ingested_at, run,"
			       " compression, lines, records, skipped) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			       -1, &st, NULL) != SQLITE_OK)
		return gl_err_set(err, GL_EIO, "%s: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_bind_text(st, 1, in->path, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)fc->size);
	sqlite3_bind_text(st, 3, fc->hash, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, fc->head, -1, SQLITE_STATIC);
	if (in->format || in->sniff_format)	/* sniffed only: seen, not counted (cmd_ingest.c) */
		sqlite3_bind_text(st, 5, (in->format ? in->format : in->sniff_format)->id, -1, SQLITE_STATIC);
	if (in->t_first_ns != INT64_MIN) {
		sqlite3_bind_int64(st, 6, in->t_first_ns);
		sqlite3_bind_int64(st, 7, in->t_last_ns);
	}
	sqlite3_bind_int64(st, 8, (sqlite3_int64)time(NULL));
	sqlite3_bind_int64(st, 9, run);
	sqlite3_bind_text(st, 10, in->compression, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 11, (sqlite3_int64)in->lines);
	sqlite3_bind_int64(st, 12, (sqlite3_int64)in->records);
	sqlite3_bind_int64(st, 13, (sqlite3_int64)in->bad);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : gl_err_set(err, GL_EIO, "%s: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_finalize(st);
	return rc;
}

int64_t store_run_begin(struct store *s, int nfiles, struct gl_err *err)
{
	(void)nfiles;
	if (store_exec(s, "INSERT INTO runs (at, version) VALUES (strftime('%s','now'), 'gputally')", err))
		return -1;
	return sqlite3_last_insert_rowid(s->db);
}

int store_run_end(struct store *s, int64_t run, const struct store_counts *c, int files_new,
		  int files_grown, int files_known, struct gl_err *err)
{
	char sql[320];

	snprintf(sql, sizeof(sql),
		 "UPDATE runs SET files_new = %d, files_grown = %d, files_known = %d, minutes_new = %llu,"
		 " minutes_updated = %llu, minutes_kept = %llu WHERE id = %lld",
		 files_new, files_grown, files_known, (unsigned long long)c->minutes_new,
		 (unsigned long long)c->minutes_updated, (unsigned long long)c->minutes_kept, (long long)run);
	return store_exec(s, sql, err);
}
