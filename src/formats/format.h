/* SPDX-License-Identifier: MIT */
/*
 * The contract between the ingest driver and one input format.
 *
 * A format is a `const struct format format_<id>` in src/formats/fmt_<id>.c;
 * the build lists every fmt_*.c in a generated table (see registry.c), so a
 * new format is one new file.  The driver owns files, decompression, line
 * splitting (CRLF, BOM, line length cap), line numbers, chunking across
 * threads and statistics; a format sees one line at a time and emits records.
 *
 * Threads: the driver parses chunks of one file on several threads at once.
 * Each chunk gets a fresh state (init()) and first replays the "context"
 * lines in force at the chunk's start (the header lines, as the format's
 * is_context() identifies them) with ctx->replay set.  So a format must keep
 * all cross-line knowledge in its state and must recover it from context
 * lines alone.  Anything sequential beyond that (a day rolling over in a
 * time-only log, ticks in a log with no time) is resolved by the driver from
 * rec.time_kind.
 *
 * Ownership: parsers never keep pointers into the line they are given.
 * Strings that travel with a record are copied with ctx_str().
 */
#ifndef FORMATS_FORMAT_H
#define FORMATS_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/scan.h"

enum metric {
#define METRIC(id, name, unit, help) M_##id,
#include "formats/metrics.def"
#undef METRIC
	M__COUNT
};

struct metric_info {
	const char *name;
	const char *unit;
	const char *help;
};
extern const struct metric_info metric_info[M__COUNT];

enum rec_kind {
	REC_SAMPLE,	/* one GPU at one time: metrics in v[] where present */
	REC_PROC,	/* one process on one GPU at one time */
	REC_EVENT,	/* something happened: GPU lost, error row, tool error text */
	REC_BAD,	/* a line that was skipped: line/col/message; ev = BAD_FATAL
			 * when the rest of the input could not be read */
	REC_TRACE,	/* a profiler trace interval: ev is an enum trace_ev, t_ns
			 * its start, tr.* the rest */
	REC_ANCHOR,	/* two clocks read together: t_ns wall time (TK_ABS) and
			 * anc.mono_ns on the kernel's printk clock of boot
			 * anc.boot (TK_BOOT numbering) of this input, or of the boot
			 * named anc.boot_id (STR_NONE: this input's boot anc.boot).
			 * Consumed by the driver to place TK_BOOT records; never
			 * reaches a sink. */
	REC_JOB,	/* a batch job's allocation (Slurm sacct): t_ns its start
			 * (TK_ABS), job.* the rest; no GPU of its own: the
			 * report prices it against the GPUs of the node */
};

#define BAD_FATAL 1

/* REC_TRACE kinds.  GPU work has gpu_index (device) and tr.stream; a
 * runtime call has pid (the process; -1: the file's one process).  A GPU
 * op and the runtime call that launched it share tr.corr within a process. */
enum trace_ev {
	TR_KERNEL,
	TR_MEMCPY,
	TR_MEMSET,
	TR_RUNTIME,	/* a CUDA runtime or driver API call on the host */
	TR_STEP,	/* a ProfilerStep#N annotation: tr.corr = N */
	TR_WINDOW,	/* the span the profiler recorded */
	TR_SUMMARY,	/* last record of a trace: tr.corr = events read, tr.stream = events used */
	TR_OVERHEAD,	/* the profiler's own work (Kineto cat "overhead": buffer requests, flushes) */
	TR__COUNT
};
extern const char *const trace_ev_name[TR__COUNT];

enum time_kind {
	TK_ABS,		/* t_ns is UTC nanoseconds */
	TK_TOD,		/* t_ns is local nanoseconds since midnight; date unknown */
	TK_NONE,	/* no time on the line; the driver derives it from ticks */
	TK_FILE,	/* a snapshot with no time: the file's modification time */
	TK_BOOT,	/* kernel printk clock: ns since the boot kev.boot of this input;
			 * the driver places it by an anchor (kmsg.h).  A record that
			 * reaches a sink still TK_BOOT is unplaced: list it, no time. */
};

/* Class of a kernel event (REC_EVENT kev.klass), from the Xid catalog. */
enum kev_class {
	KC_NONE,	/* not classified (host events, notes) */
	KC_HW,		/* hardware: a candidate for return when it repeats */
	KC_DRIVER,	/* driver / firmware */
	KC_APP,		/* the application's own fault (bad address, illegal instr.) */
	KC_THERMAL,	/* power/thermal */
	KC_LINK,	/* PCIe / NVLink interconnect */
	KC_SYSTEM,	/* power, suspend, lid, containers: the host, not a GPU */
	KC__COUNT
};
extern const char *const kev_class_name[KC__COUNT];

/* Severity of a REC_EVENT (kev.severity). */
enum kev_severity { KS_INFO, KS_WARNING, KS_ERROR, KS_FATAL };

/* REC_EVENT kev.flags */
enum kev_flag {
	KF_CONSEQUENCE = 1 << 0,	/* a consequence of an earlier event (Xid 45), not a cause */
	KF_DOWN = 1 << 1,		/* fatal: the GPU is down until its next healthy sample */
	KF_BURST = 1 << 2,		/* a continuation line folded into the previous event */
};

enum gpu_status {
	GS_LOST = 1 << 0,	/* "[GPU is lost]" or similar */
	GS_RESET = 1 << 1,	/* "[GPU requires reset]" */
	GS_READ_ERROR = 1 << 2,	/* "[Unknown Error]" in some field */
};

enum event_kind {
	EV_GPU_LOST,
	EV_RESET_REQUIRED,
	EV_ERROR_ROW,		/* a logger's own ERROR row */
	EV_TOOL_ERROR,		/* nvidia-smi printed an error instead of data */
	EV_XID,			/* an NVIDIA Xid error event: kev.code, kev.klass ... */
	/* kernel and system log events (kmsg.h classifies the message text) */
	EV_FALLEN_OFF,		/* "GPU has fallen off the bus" (with or without an Xid 79) */
	EV_RMINIT_FAILED,	/* "RmInitAdapter failed" */
	EV_DRIVER_LOAD,		/* NVRM module loaded: kev.text = version; the energy counter restarts */
	EV_GPU_MAP,		/* "NVRM: GPU at PCI:<bus>: GPU-<uuid>": kev.pci -> uuid */
	EV_GSP_TIMEOUT,		/* GSP RPC timeout / GSP error */
	EV_MODESET_ERROR,	/* nvidia-modeset error */
	EV_PCIE_AER,		/* PCIe AER error naming an NVIDIA device (kev.pci) */
	EV_NVLINK_ERROR,	/* NVLink error */
	EV_NVRM_OTHER,		/* another NVRM error line worth keeping */
	EV_SUSPEND,		/* PM: suspend entry, logind "will suspend" */
	EV_RESUME,		/* PM: suspend exit */
	EV_AC_OFF,		/* AC adapter unplugged (acpid, upower, kernel) */
	EV_AC_ON,		/* AC adapter plugged in */
	EV_LID,			/* lid closed/opened (kev.code 0 closed, 1 opened) */
	EV_POWER_KEY,		/* power key pressed */
	EV_POWER_OFF,		/* the system powering off or rebooting */
	EV_BOOT,		/* a new boot starts (marker, new boot id, printk clock back near 0) */
	EV_CONTAINER_START,	/* Docker/containerd container started (kev.text = id/name) */
	EV_CONTAINER_STOP,	/* container stopped or died */
	EV__COUNT
};
extern const char *const event_kind_name[EV__COUNT];

#define STR_NONE UINT32_MAX

/*
 * The pid of a REC_PROC that is a task label, not a process: a logger's
 * own name for the job its rows belong to (gpu_monitor.sh's TASK_ID).  The
 * row's GPU time is the task's; it says nothing of what processes run, so
 * it is not process data (nothing is "held" by it).  -1 is pmon's "no
 * process", -2 a process whose pid is unknown (smi-apps, smi-xml).
 */
#define PID_TASK (-3)

/* Process fields present in a REC_PROC */
enum proc_field {
	PF_SM = 1 << 0,
	PF_MEM = 1 << 1,
	PF_FB = 1 << 2,
	PF_AFTER_HEADER = 1 << 3,	/* the first row after a repeated header (ticks.h) */
	PF_WHO = 1 << 4,		/* pw.user/job/task/ctr are set (each may be STR_NONE) */
};

struct rec {
	int64_t t_ns;		/* see time_kind */
	uint8_t kind;		/* enum rec_kind */
	uint8_t time_kind;	/* enum time_kind */
	uint8_t status;		/* enum gpu_status bits (REC_SAMPLE) */
	uint8_t ev;		/* enum event_kind (REC_EVENT) */
	int32_t gpu_index;	/* -1 when the line names no index */
	uint32_t uuid;		/* ctx_str() offset or STR_NONE */
	uint32_t name;		/* GPU name (SAMPLE), process name (PROC), message (EVENT, BAD) */
	uint32_t present;	/* bit i set: v[i] is a reading (SAMPLE); PF_* (PROC) */
	uint32_t col;		/* REC_BAD / REC_EVENT: 1-based column, 0 if none */
	uint64_t line;		/* line number within the chunk (the driver makes it absolute) */
	int64_t pid;		/* REC_PROC; PID_TASK for a task label */
	union {
		double v[M__COUNT];	/* SAMPLE: metric values; PROC: v[0]=sm%, v[1]=mem%, v[2]=fb MiB */
		struct {
			double v3[3];	/* REC_PROC: v[0..2] as above */
			/* who the process belongs to (with PF_WHO; ctx_str() or
			 * STR_NONE): its user, batch job (Slurm job id), task
			 * (record --task, TASK_ID) and container or cgroup */
			uint32_t user, job, task, ctr;
		} pw;
		struct {
			int64_t t1_ns;		/* its end; INT64_MAX: still running */
			uint32_t id, user, account, nodes;	/* ctx_str() or STR_NONE */
			int32_t ngpus;		/* GPUs allocated, all nodes together */
			int32_t nnodes;		/* nodes in its node list (>= 1) */
			double gpuutil_pct;	/* Slurm's own TRESUsageInTot gres/gpuutil (NAN unknown) */
			double gpumem_mib;	/* and gres/gpumem (NAN unknown) */
			uint64_t gpu_mask;	/* bit i: GPU index i is its (jobstats); 0 unknown */
			double energy_j;	/* the energy its tool measured (dcgmi stats); NAN unknown */
		} job;			/* REC_JOB */
		struct {
			int64_t dur_ns;	/* 0 for a zero-length interval */
			int64_t corr;	/* correlation id, -1 if none */
			int64_t stream;	/* stream id, -1 if none */
		} tr;			/* REC_TRACE */
		struct {
			int32_t code;	/* Xid code, lid state, ...; -1 if none */
			uint32_t pci;	/* ctx_str(): PCI address "0000:3b:00.0", or STR_NONE */
			uint32_t proc;	/* ctx_str(): process name, or STR_NONE */
			uint32_t text;	/* ctx_str(): kind-specific text (driver version,
					 * Xid 154 action, container), or STR_NONE */
			uint32_t boot;	/* TK_BOOT: which boot of this input (0, 1, ...).  A
					 * format that cannot count boots leaves 0: the
					 * driver adds one at each EV_BOOT record and each
					 * step back of the printk clock (anchor.h) */
			uint32_t count;	/* lines folded into this event (>= 1) */
			uint8_t klass;	/* enum kev_class */
			uint8_t severity;	/* enum kev_severity */
			uint8_t flags;	/* enum kev_flag */
		} kev;			/* REC_EVENT (ctx_rec sets code -1, strings STR_NONE, count 1) */
		struct {
			int64_t mono_ns;	/* printk clock at t_ns */
			uint32_t boot;		/* this input's boot number */
			uint32_t boot_id;	/* ctx_str(): _BOOT_ID or STR_NONE */
			uint8_t quality;	/* 0 best (journald realtime) .. 3 (a clock
						 * reference naming no boot: ANC_Q_CLOCK_REF,
						 * fits any input's boot by span, anchor.h) */
		} anc;			/* REC_ANCHOR */
	};
};

/* A chunk's output: records in input order and the strings they name. */
struct batch {
	struct rec *recs;
	size_t nr, alloc;
	char *strs;
	size_t strs_len, strs_alloc;
	uint64_t lines;		/* lines in the chunk */
	uint64_t records;	/* records emitted (REC_SAMPLE + REC_PROC + REC_EVENT) */
	uint64_t bad;		/* REC_BAD emitted */
	uint32_t last_str[4];	/* small cache for ctx_str() de-duplication */
	const char *time_basis;	/* a static string: how this chunk's times were
				 * obtained, when the format knows better than
				 * "timestamps in the file" (syslog: year inferred) */
};

/* Options that reach parsers. Borrowed from the CLI for the whole run. */
struct ingest_opts {
	const char *columns;	/* --columns LIST for headerless query CSV, or NULL */
	const char *format;	/* --format ID to force, or NULL to sniff */
	int64_t date_days;	/* --date as days since epoch, or INT64_MIN */
	int64_t interval_ns;	/* --interval for logs without time; default 1 s */
	bool has_start;		/* --start given: logs without time begin at start_ns */
	int64_t start_ns;
	int threads;		/* worker threads; 0 = number of CPUs */
	size_t chunk_bytes;	/* 0 = default */
	size_t max_line;	/* a longer line is one bad line; 0 = 16 MiB (tests set less) */
	bool tolerant;		/* --tolerant: accept a cut or trailing comma in JSON */
	bool has_boot_time;	/* --boot-time: when the kernel of a log's last boot started */
	int64_t boot_time_ns;
	/* the spans [first, last] (UTC ns) of logs read before this run (ingest:
	 * the store's files): dated evidence for time-of-day logs; may be NULL */
	const int64_t (*known_spans)[2];
	size_t nknown_spans;
	/* ingest: a log that only its file time would place (a time-of-day
	 * log with no date, a log without time that matches no timed log) is
	 * left out with its reason instead, and the store reads it again when
	 * a later ingest brings evidence (docs/store.md "Held logs") */
	bool hold_weak;
};

struct parse_ctx {
	const struct ingest_opts *opts;
	const char *src;	/* input name for messages (borrowed) */
	void *state;		/* the format's state_size bytes, zeroed then init() */
	struct batch *out;
	uint64_t line;		/* current line number, chunk-relative, 1-based */
	bool replay;		/* replaying context lines: update state, emit nothing */
	bool last_line_partial;	/* this line had no terminating newline */
	bool path_done;		/* a by_path format: everything is read (see format.by_path) */
	int64_t mtime_ns;	/* the file's modification time (a syslog without a year) */
	/* the run's worker pool (util/workpool.h), for a stream() format that
	 * cuts its own jobs (kineto); NULL: parse in line */
	struct workpool *pool;
};

struct format {
	const char *id;
	const char *summary;	/* one line: what produces this format */
	const char *detects;	/* one line: how sniff() recognises it */
	size_t state_size;
	/*
	 * Score 0..100 for how sure the format is that `head` (the first bytes
	 * of the decompressed file, possibly cut mid-line) is its own; `name` is
	 * the file's base name.  0 means "not mine".
	 */
	int (*sniff)(const char *head, size_t n, const char *name);
	/* Prepare a fresh state. May be NULL (zeroed state). */
	void (*init)(void *state, const struct ingest_opts *o);
	/* Is this line a header (context) line?  NULL: the format has none.
	 * Only lines whose first byte is in context_first are asked. */
	bool (*is_context)(const char *line, size_t n);
	const char *context_first;
	/* Parse one line (no newline, no trailing CR). */
	void (*line)(struct parse_ctx *ctx, const char *line, size_t n);
	/* Chunks of this format must not be split (NULL-is_context formats whose
	 * lines depend on earlier ones).  false for nearly everything. */
	bool whole_file;
	/*
	 * Formats that are not made of lines (JSON, XML, SQLite) set stream()
	 * instead of line(): the driver hands it every byte of the file in
	 * order, in pieces of any size cut anywhere, all to one state (init()
	 * once per file), on one thread at a time; last is set on the final
	 * piece (which may be empty).  The format keeps what it needs of a cut
	 * value itself.  Line numbers are the format's to keep: it sets
	 * ctx->line (absolute, 1-based) before it emits, and leaves it at the
	 * file's number of lines after the last piece.
	 */
	void (*stream)(struct parse_ctx *ctx, const char *p, size_t n, bool last);
	/* Free what a state holds (called before the state is freed): a
	 * stream() format's one state, or each chunk's state of a line format. */
	void (*fini)(void *state);
	/*
	 * A stream() format that reads the file itself, by its path ctx->src
	 * (SQLite).  The driver reads none of the bytes: it hands the format
	 * empty pieces, each of which may emit a bounded share of the records,
	 * until the format sets ctx->path_done; then one last empty piece
	 * (last set).  Only a plain file qualifies: standard input and
	 * compressed files are skipped with a reason.
	 */
	bool by_path;
	/* The format emits profiler trace records (REC_TRACE), which the
	 * report joins to the GPUs' telemetry. */
	bool traces;
	/* Emits TK_BOOT records or REC_ANCHORs anywhere in a file (a kernel
	 * log, a clock reference): the driver reads it whole in its anchoring
	 * pre-pass, not only its head (anchor.h). */
	bool boot_clock;
	/*
	 * Hooks of a table whose header may be missing (the nvidia-smi CSVs);
	 * each optional.  The driver calls them by the chosen format, so it
	 * names none (check-layers).
	 *
	 * columns_fit: with --columns, is head (a file's first bytes) a
	 * headerless table of this format under that list?  The first format
	 * that says yes is taken, before sniffing (formats.md 11.9).
	 *
	 * sibling_header: once the format is chosen for a file and no
	 * --columns is given, the column list to read it with when it has no
	 * header of its own, from a file beside it (malloc'ed; NULL: none),
	 * with what was decided in note.  Called once per input; the list
	 * reaches init() as ingest_opts.columns.
	 *
	 * unread_columns: the columns of a header line (or of the --columns
	 * list) that map to no field, as written ("a, b"), in out; empty when
	 * every one is read.
	 */
	bool (*columns_fit)(const char *head, size_t n, const char *columns);
	char *(*sibling_header)(const char *path, const char *head, size_t n, char *note,
				size_t note_cap);
	void (*unread_columns)(const char *cols, size_t n, char *out, size_t cap);
};

/* ---- helpers for formats (ctx.c) ------------------------------------- */

/* A new record of `kind` at the end of the batch, zeroed up to v[], with line
 * set.  v[] is not cleared: the format sets v[m] for each bit m it sets in
 * present (the rest is never read).  NULL in replay mode (emit nothing). */
struct rec *ctx_rec(struct parse_ctx *ctx, enum rec_kind kind);
/* A REC_EVENT's kev fields as ctx_rec() sets them (no code, no strings,
 * count 1, unclassified), for a source that builds records itself. */
void rec_event_defaults(struct rec *r);
/* Copy s into the batch's string table; returns its offset. */
uint32_t ctx_str(struct parse_ctx *ctx, struct slice s);
/* Skip the current line: counted and reported with col (1-based, 0 = none). */
void ctx_bad(struct parse_ctx *ctx, uint32_t col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Report an event on the current line. */
void ctx_event(struct parse_ctx *ctx, enum event_kind ev, int64_t t_ns,
	       enum time_kind tk, int32_t gpu_index, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* Column (1-based) of p within the line starting at line_start. */
static inline uint32_t ctx_col(const char *line_start, const char *p)
{
	return (uint32_t)(p - line_start) + 1;
}

/* String at offset off of a batch (NUL-terminated), or NULL for STR_NONE. */
static inline const char *batch_str(const struct batch *b, uint32_t off)
{
	return off == STR_NONE ? NULL : b->strs + off;
}

/* ---- the registry (registry.c) --------------------------------------- */

size_t format_count(void);
const struct format *format_at(size_t i);
const struct format *format_find(const char *id);
/* Sniff one head buffer; returns the best format or NULL, with its score. */
const struct format *format_sniff(const char *head, size_t n, const char *name, int *score);

/* With --columns: the first format whose columns_fit() takes head, or NULL. */
const struct format *format_by_columns(const char *head, size_t n, const char *columns);

/*
 * Shared value-token handling for nvidia-smi text: "[N/A]", "N/A",
 * "[Not Supported]", "[Unknown Error]", "[GPU is lost]", "-", "" ...
 * Returns true if tok is such a "no value" token and ORs the status it
 * implies (GS_*) into *status.
 */
bool smi_missing_token(struct slice tok, uint8_t *status);

/* How much of a bad token a message quotes ('%.*s', fmt_quote_len(t), t.p). */
#define FMT_QUOTE_MAX 40
static inline int fmt_quote_len(struct slice s)
{
	return s.n > FMT_QUOTE_MAX ? FMT_QUOTE_MAX : (int)s.n;
}

#endif
