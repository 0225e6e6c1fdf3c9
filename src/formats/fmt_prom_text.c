/* SPDX-License-Identifier: MIT */
/* Prometheus text exposition (0.0.4, and OpenMetrics): gpu_to_prom.sh, dcgm-exporter. */
#include "formats/format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/strfmt.h"
#include "util/err.h"
#include "util/timeutil.h"

/* How a raw value is read before scaling. */
enum pm_flag {
	PF_I32_BLANK = 1 << 0,	/* DCGM int32 field: >= 0x7ffffff0 is "blank" */
	PF_I64_BLANK = 1 << 1,	/* DCGM int64 field: >= 0x7ffffffffffffff0 is "blank" */
	PF_F64_BLANK = 1 << 2,	/* DCGM float field: >= 2^47 is "blank" */
	PF_MW_AUTO = 1 << 3,	/* some exporters put milliwatts in a watts field */
	PF_PER_SLICE = 1 << 4,	/* describes one MIG instance, not the whole GPU */
	PF_MERGE = 1 << 5,	/* nvidia_gpu_exporter: one record per GPU and scrape */
};

enum pm_special {
	PS_NONE,
	PS_FB_USED,	/* also completes the free + used = total pair */
	PS_FB_FREE,
	PS_XID,
	PS_INDEX,	/* nvidia_smi_index{uuid}: the value is the GPU index */
	PS_INFO,	/* nvidia_smi_gpu_info{uuid,index,name}: labels only */
	PS_APP,		/* nvidia_smi_compute_app_info{pid,process_name,uuid}: a process */
	PS_APP_MEM,	/* nvidia_smi_compute_app_used_memory_bytes: its memory */
};

#define PM_NO_METRIC (-1)

struct pm_map {
	const char *name;
	int8_t metric;		/* enum metric, or PM_NO_METRIC */
	uint8_t special;	/* enum pm_special */
	uint8_t flags;		/* enum pm_flag */
	double scale;		/* metric = raw * scale */
	uint8_t rank;		/* PF_MERGE: of two series for one metric, the lower rank wins */
};

#define MIB_PER_BYTE (1.0 / 1048576.0)
#define DCGM_I32 (PF_I32_BLANK)
#define DCGM_SLICE (PF_I32_BLANK | PF_PER_SLICE)

/* Every series this parser reads; everything else is ignored. */
static const struct pm_map pm_table[] = {
	/* gpu_to_prom.sh (node_exporter textfile collector) */
	{ "gpu_utilization_percent", M_UTIL_GPU, PS_NONE, 0, 1.0, 0 },
	{ "gpu_memory_used_bytes", M_MEM_USED, PS_NONE, 0, MIB_PER_BYTE, 0 },
	{ "gpu_memory_total_bytes", M_MEM_TOTAL, PS_NONE, 0, MIB_PER_BYTE, 0 },
	{ "gpu_power_watts", M_POWER, PS_NONE, 0, 1.0, 0 },
	{ "gpu_temperature_celsius", M_TEMP, PS_NONE, 0, 1.0, 0 },
	/* dcgm-exporter */
	{ "DCGM_FI_DEV_GPU_UTIL", M_UTIL_GPU, PS_NONE, DCGM_SLICE, 1.0, 0 },
	{ "DCGM_FI_DEV_MEM_COPY_UTIL", M_UTIL_MEM, PS_NONE, DCGM_SLICE, 1.0, 0 },
	{ "DCGM_FI_DEV_FB_USED", M_MEM_USED, PS_FB_USED, DCGM_SLICE, 1.0, 0 },
	{ "DCGM_FI_DEV_FB_FREE", PM_NO_METRIC, PS_FB_FREE, DCGM_SLICE, 1.0, 0 },
	{ "DCGM_FI_DEV_FB_TOTAL", M_MEM_TOTAL, PS_NONE, DCGM_SLICE, 1.0, 0 },
	{ "DCGM_FI_DEV_POWER_USAGE", M_POWER, PS_NONE, PF_F64_BLANK | PF_MW_AUTO, 1.0, 0 },
	{ "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", M_ENERGY, PS_NONE, PF_I64_BLANK, 0.001, 0 },
	{ "DCGM_FI_DEV_GPU_TEMP", M_TEMP, PS_NONE, DCGM_I32, 1.0, 0 },
	{ "DCGM_FI_DEV_MEMORY_TEMP", M_MEM_TEMP, PS_NONE, DCGM_I32, 1.0, 0 },
	{ "DCGM_FI_DEV_SM_CLOCK", M_SM_CLOCK, PS_NONE, DCGM_I32, 1.0, 0 },
	{ "DCGM_FI_DEV_MEM_CLOCK", M_MEM_CLOCK, PS_NONE, DCGM_I32, 1.0, 0 },
	{ "DCGM_FI_DEV_XID_ERRORS", PM_NO_METRIC, PS_XID, DCGM_I32, 1.0, 0 },
	/* dcgm-exporter before 2020 */
	{ "dcgm_gpu_utilization", M_UTIL_GPU, PS_NONE, DCGM_SLICE, 1.0, 0 },
	{ "dcgm_mem_copy_utilization", M_UTIL_MEM, PS_NONE, DCGM_SLICE, 1.0, 0 },
	{ "dcgm_fb_used", M_MEM_USED, PS_FB_USED, DCGM_SLICE, 1.0, 0 },
	{ "dcgm_fb_free", PM_NO_METRIC, PS_FB_FREE, DCGM_SLICE, 1.0, 0 },
	{ "dcgm_power_usage", M_POWER, PS_NONE, PF_F64_BLANK | PF_MW_AUTO, 1.0, 0 },
	{ "dcgm_total_energy_consumption", M_ENERGY, PS_NONE, PF_I64_BLANK, 0.001, 0 },
	{ "dcgm_gpu_temp", M_TEMP, PS_NONE, DCGM_I32, 1.0, 0 },
	{ "dcgm_memory_temp", M_MEM_TEMP, PS_NONE, DCGM_I32, 1.0, 0 },
	{ "dcgm_sm_clock", M_SM_CLOCK, PS_NONE, DCGM_I32, 1.0, 0 },
	{ "dcgm_memory_clock", M_MEM_CLOCK, PS_NONE, DCGM_I32, 1.0, 0 },
	{ "dcgm_xid_errors", PM_NO_METRIC, PS_XID, DCGM_I32, 1.0, 0 },
	/* gputally's own exporter names */
	{ "gputally_gpu_utilization_ratio", M_UTIL_GPU, PS_NONE, 0, 100.0, 0 },
	{ "gputally_gpu_power_watts", M_POWER, PS_NONE, 0, 1.0, 0 },
	{ "gputally_gpu_energy_joules_total", M_ENERGY, PS_NONE, 0, 1.0, 0 },
	{ "gputally_gpu_memory_used_bytes", M_MEM_USED, PS_NONE, 0, MIB_PER_BYTE, 0 },
	{ "gputally_gpu_utilization_percent", M_UTIL_GPU, PS_NONE, 0, 1.0, 0 },
	{ "gputally_gpu_memory_utilization_percent", M_UTIL_MEM, PS_NONE, 0, 1.0, 0 },
	{ "gputally_gpu_memory_total_bytes", M_MEM_TOTAL, PS_NONE, 0, MIB_PER_BYTE, 0 },
	{ "gputally_gpu_power_limit_watts", M_POWER_LIMIT, PS_NONE, 0, 1.0, 0 },
	{ "gputally_gpu_temperature_celsius", M_TEMP, PS_NONE, 0, 1.0, 0 },
	{ "gputally_gpu_sm_clock_hertz", M_SM_CLOCK, PS_NONE, 0, 1e-6, 0 },
	{ "gputally_gpu_memory_clock_hertz", M_MEM_CLOCK, PS_NONE, 0, 1e-6, 0 },
	{ "gputally_gpu_clock_event_reasons", M_EVENT_MASK, PS_NONE, 0, 1.0, 0 },
	{ "gputally_gpu_pstate", M_PSTATE, PS_NONE, 0, 1.0, 0 },
	/* utkuozdemir/nvidia_gpu_exporter: nvidia_smi_ + the query field, units in
	 * base SI (ratio, bytes, Hz) where the CSV has %, MiB, MHz (formats.md 11.12) */
	{ "nvidia_smi_utilization_gpu_ratio", M_UTIL_GPU, PS_NONE, PF_MERGE, 100.0, 0 },
	{ "nvidia_smi_utilization_memory_ratio", M_UTIL_MEM, PS_NONE, PF_MERGE, 100.0, 0 },
	{ "nvidia_smi_memory_used_bytes", M_MEM_USED, PS_NONE, PF_MERGE, MIB_PER_BYTE, 0 },
	{ "nvidia_smi_memory_total_bytes", M_MEM_TOTAL, PS_NONE, PF_MERGE, MIB_PER_BYTE, 0 },
	{ "nvidia_smi_power_draw_watts", M_POWER, PS_NONE, PF_MERGE, 1.0, 0 },
	{ "nvidia_smi_power_draw_average_watts", M_POWER, PS_NONE, PF_MERGE, 1.0, 1 },
	{ "nvidia_smi_power_draw_instant_watts", M_POWER, PS_NONE, PF_MERGE, 1.0, 2 },
	{ "nvidia_smi_enforced_power_limit_watts", M_POWER_LIMIT, PS_NONE, PF_MERGE, 1.0, 0 },
	{ "nvidia_smi_power_limit_watts", M_POWER_LIMIT, PS_NONE, PF_MERGE, 1.0, 1 },
	{ "nvidia_smi_temperature_gpu", M_TEMP, PS_NONE, PF_MERGE, 1.0, 0 },
	{ "nvidia_smi_temperature_memory", M_MEM_TEMP, PS_NONE, PF_MERGE, 1.0, 0 },
	{ "nvidia_smi_clocks_current_sm_clock_hz", M_SM_CLOCK, PS_NONE, PF_MERGE, 1e-6, 0 },
	{ "nvidia_smi_clocks_current_memory_clock_hz", M_MEM_CLOCK, PS_NONE, PF_MERGE, 1e-6, 0 },
	{ "nvidia_smi_clocks_max_sm_clock_hz", M_SM_CLOCK_MAX, PS_NONE, PF_MERGE, 1e-6, 0 },
	{ "nvidia_smi_fan_speed_ratio", M_FAN, PS_NONE, PF_MERGE, 100.0, 0 },
	{ "nvidia_smi_pstate", M_PSTATE, PS_NONE, PF_MERGE, 1.0, 0 },
	{ "nvidia_smi_clocks_event_reasons_active", M_EVENT_MASK, PS_NONE, PF_MERGE, 1.0, 0 },
	{ "nvidia_smi_clocks_throttle_reasons_active", M_EVENT_MASK, PS_NONE, PF_MERGE, 1.0, 0 },
	{ "nvidia_smi_index", PM_NO_METRIC, PS_INDEX, PF_MERGE, 1.0, 0 },
	{ "nvidia_smi_gpu_info", PM_NO_METRIC, PS_INFO, PF_MERGE, 1.0, 0 },
	{ "nvidia_smi_compute_app_info", PM_NO_METRIC, PS_APP, PF_MERGE, 1.0, 0 },
	{ "nvidia_smi_compute_app_used_memory_bytes", PM_NO_METRIC, PS_APP_MEM, PF_MERGE,
	  MIB_PER_BYTE, 0 },
};
#define PM_NTABLE (sizeof(pm_table) / sizeof(pm_table[0]))

#define PM_MAX_GPUS 64

/* FB_FREE and FB_USED arrive on different lines; the pair gives the total. */
struct pm_fb {
	int64_t t_ns;
	uint8_t tk;
	uint8_t have;	/* 1: used, 2: free */
	double used_mib, free_mib;
};

/* nvidia_gpu_exporter: the record of one GPU (by uuid) at one time, still
 * open for the scrape's other series (PF_MERGE).  Records stay in the chunk's
 * batch until the chunk is done, so it is found again by its position. */
struct pm_open {
	char uuid[48];
	int64_t t_ns;
	uint8_t tk;
	int32_t index;		/* from nvidia_smi_index or gpu_info, -1 unknown */
	size_t rec;		/* position in the batch; SIZE_MAX: none open */
	uint8_t rank[M__COUNT];	/* rank of the series that set each metric */
};

/* An exporter process record still open for its memory series. */
struct pm_open_proc {
	uint32_t uuid_hash;
	int64_t pid, t_ns;
	uint8_t tk;
	bool seen_info;		/* its compute_app_info line came */
	size_t rec;
};
#define PM_MAX_PROCS 256

struct pm_state {
	struct pm_fb fb[PM_MAX_GPUS];
	struct pm_open open[PM_MAX_GPUS];
	size_t nopen;
	struct pm_open_proc procs[PM_MAX_PROCS];
	size_t nprocs;
};

/* The labels this parser uses, unescaped (truncated to the buffer). */
struct pm_labels {
	int32_t gpu, device, index;
	int64_t pid;
	char uuid[128], name[128], mig[32], err_msg[96], plain_name[128], process[256];
	size_t uuid_n, name_n, mig_n, err_msg_n, plain_name_n, process_n;
};

static const struct pm_map *pm_find_exact(const char *p, size_t n)
{
	if (!n)
		return NULL;
	for (size_t i = 0; i < PM_NTABLE; i++)
		if (pm_table[i].name[0] == p[0] && strlen(pm_table[i].name) == n &&
		    !memcmp(pm_table[i].name, p, n))
			return &pm_table[i];
	return NULL;
}

/* OpenMetrics names a counter's sample <family>_total. */
static const struct pm_map *pm_find(const char *p, size_t n)
{
	const struct pm_map *m = pm_find_exact(p, n);

	if (!m && n > 6 && !memcmp(p + n - 6, "_total", 6))
		m = pm_find_exact(p, n - 6);
	return m;
}

static bool pm_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

static bool pm_name_char(char c)
{
	return pm_name_start(c) || (c >= '0' && c <= '9');
}

/* Non-negative decimal that fills the slice, or -1. */
static int32_t pm_index(const char *p, size_t n)
{
	int64_t v;

	if (slice_to_i64((struct slice){ p, n }, &v) || v < 0 || v > INT32_MAX)
		return -1;
	return (int32_t)v;
}

/*
 * A quoted string starting at *pp (on the opening quote).  The unescaped
 * text goes to dst (cap bytes, may be NULL); returns false when unterminated.
 */
static bool pm_quoted(const char **pp, const char *end, char *dst, size_t cap, size_t *dn)
{
	const char *p = *pp + 1;
	size_t n = 0;

	while (p < end && *p != '"') {
		char c = *p++;
		if (c == '\\' && p < end) {
			c = *p++;
			if (c == 'n')
				c = '\n';
			else if (c != '\\' && c != '"' && dst && n + 1 < cap)
				dst[n++] = '\\';	/* not a defined escape: keep it */
		}
		if (dst && n + 1 < cap)
			dst[n++] = c;
	}
	if (p >= end)
		return false;
	*pp = p + 1;
	if (dn)
		*dn = n;
	return true;
}

/* Copy an unescaped label value into a fixed buffer; returns its length. */
static size_t pm_copy(char *dst, size_t cap, const char *val, size_t val_n)
{
	slice_copy(dst, cap, (struct slice){ val, val_n });
	return val_n < cap ? val_n : cap - 1;
}

static void pm_keep_label(struct pm_labels *lb, struct slice key, const char *raw, size_t raw_n,
			  const char *val, size_t val_n)
{
	if (slice_eq(key, "gpu") || slice_eq(key, "gpu_index")) {
		lb->gpu = pm_index(raw, raw_n);
	} else if (slice_eq(key, "device")) {
		if (raw_n > 6 && !memcmp(raw, "nvidia", 6))
			lb->device = pm_index(raw + 6, raw_n - 6);
	} else if (slice_eq(key, "UUID") || slice_eq(key, "uuid") || slice_eq(key, "gpu_uuid")) {
		lb->uuid_n = pm_copy(lb->uuid, sizeof(lb->uuid), val, val_n);
	} else if (slice_eq(key, "modelName") || slice_eq(key, "gpu_name")) {
		lb->name_n = pm_copy(lb->name, sizeof(lb->name), val, val_n);
	} else if (slice_eq(key, "GPU_I_ID")) {
		lb->mig_n = pm_copy(lb->mig, sizeof(lb->mig), val, val_n);
	} else if (slice_eq(key, "err_msg")) {
		lb->err_msg_n = pm_copy(lb->err_msg, sizeof(lb->err_msg), val, val_n);
	} else if (slice_eq(key, "index")) {
		lb->index = pm_index(raw, raw_n);	/* nvidia_gpu_exporter's gpu_info */
	} else if (slice_eq(key, "pid")) {
		int32_t pid = pm_index(raw, raw_n);
		lb->pid = pid >= 0 ? pid : -2;	/* a pid the exporter could not give */
	} else if (slice_eq(key, "process_name")) {
		lb->process_n = pm_copy(lb->process, sizeof(lb->process), val, val_n);
	} else if (slice_eq(key, "name")) {
		lb->plain_name_n = pm_copy(lb->plain_name, sizeof(lb->plain_name), val, val_n);
	}
}

/*
 * The brace part, *pp on '{'.  Fills *name when the metric name is quoted
 * inside the braces.  On error reports the line bad and returns false.
 */
static bool pm_labels(struct parse_ctx *ctx, const char *line, const char **pp, const char *end,
		      struct slice *name, bool want, struct pm_labels *lb)
{
	const char *p = *pp + 1;
	char val[256];

	for (;;) {
		struct slice key;
		const char *vq, *vs;
		size_t vn = 0;

		scan_skip_space(&p, end);
		if (p >= end) {
			ctx_bad(ctx, ctx_col(line, *pp), "unterminated label set");
			return false;
		}
		if (*p == '}')
			break;
		if (*p == '"') {
			const char *q = p;
			if (!pm_quoted(&p, end, NULL, 0, NULL)) {
				ctx_bad(ctx, ctx_col(line, q), "unterminated quoted name");
				return false;
			}
			key = (struct slice){ q + 1, (size_t)(p - q - 2) };
			scan_skip_space(&p, end);
			if (p < end && (*p == ',' || *p == '}')) {
				/* a UTF-8 metric name, quoted inside the braces */
				if (name->n) {
					ctx_bad(ctx, ctx_col(line, q), "second metric name");
					return false;
				}
				*name = key;
				goto next;
			}
		} else if (pm_name_start(*p) && *p != ':') {
			key.p = p;
			while (p < end && pm_name_char(*p) && *p != ':')
				p++;
			key.n = (size_t)(p - key.p);
			scan_skip_space(&p, end);
		} else {
			ctx_bad(ctx, ctx_col(line, p), "bad label name");
			return false;
		}
		if (p >= end || *p != '=') {
			ctx_bad(ctx, ctx_col(line, p), "expected '=' after label name");
			return false;
		}
		p++;
		scan_skip_space(&p, end);
		if (p >= end || *p != '"') {
			ctx_bad(ctx, ctx_col(line, p), "expected '\"' to open a label value");
			return false;
		}
		vq = p;
		if (!pm_quoted(&p, end, val, sizeof(val), &vn)) {
			ctx_bad(ctx, ctx_col(line, vq), "unterminated label value");
			return false;
		}
		vs = vq + 1;
		if (want)
			pm_keep_label(lb, key, vs, (size_t)(p - 1 - vs), val, vn);
next:
		scan_skip_space(&p, end);
		if (p < end && *p == ',') {
			p++;
			continue;
		}
		if (p < end && *p == '}')
			break;
		ctx_bad(ctx, ctx_col(line, p), "expected ',' or '}' after a label");
		return false;
	}
	*pp = p + 1;
	return true;
}

/*
 * Sample timestamp: integer milliseconds (0.0.4); a decimal point means
 * OpenMetrics seconds.  An integer below 1e11 cannot be a millisecond time
 * after 1973, so it is taken as OpenMetrics whole seconds.
 */
static int pm_timestamp(const char **pp, const char *end, int64_t *t_ns)
{
	const char *p = *pp, *q = p;
	int64_t whole;
	bool neg = p < end && *p == '-';

	while (q < end && !scan_is_space(*q) && *q != '.' && *q != 'e' && *q != 'E')
		q++;
	if (q < end && (*q == 'e' || *q == 'E'))
		return GL_EPARSE;
	if (scan_i64(&p, end, &whole) || p != q)
		return GL_EPARSE;
	if (p < end && *p == '.') {
		int64_t frac = 0, scale = NS_PER_S / 10;
		p++;
		if (p >= end || (unsigned)(*p - '0') > 9)
			return GL_EPARSE;
		for (; p < end && (unsigned)(*p - '0') <= 9; p++) {
			frac += (*p - '0') * scale;
			scale /= 10;
		}
		if (whole > INT64_MAX / NS_PER_S - 1 || whole < INT64_MIN / NS_PER_S + 1)
			return GL_ERANGE;
		*t_ns = whole * NS_PER_S + (neg ? -frac : frac);
	} else if (whole > -100000000000 && whole < 100000000000) {
		if (whole > INT64_MAX / NS_PER_S || whole < INT64_MIN / NS_PER_S)
			return GL_ERANGE;
		*t_ns = whole * NS_PER_S;
	} else {
		if (whole > INT64_MAX / NS_PER_MS || whole < INT64_MIN / NS_PER_MS)
			return GL_ERANGE;
		*t_ns = whole * NS_PER_MS;
	}
	if (p < end && !scan_is_space(*p))
		return GL_EPARSE;
	*pp = p;
	return 0;
}

/* NaN, Inf and DCGM "blank" sentinels are no reading. */
static bool pm_value(const struct pm_map *m, double raw, double *out)
{
	if (isnan(raw) || isinf(raw))
		return false;
	if ((m->flags & PF_I32_BLANK) && raw >= 2147483632.0)
		return false;
	if ((m->flags & PF_I64_BLANK) && raw >= 9.223372036854775e18)
		return false;
	if ((m->flags & PF_F64_BLANK) && raw >= 140737488355328.0)
		return false;
	if ((m->flags & PF_MW_AUTO) && raw > 10000.0)
		raw /= 1000.0;
	*out = raw * m->scale;
	return true;
}

static struct rec *pm_sample(struct parse_ctx *ctx, const struct pm_labels *lb, int32_t gpu,
			     int64_t t_ns, enum time_kind tk)
{
	struct rec *r = ctx_rec(ctx, REC_SAMPLE);

	if (!r)
		return NULL;
	r->t_ns = t_ns;
	r->time_kind = (uint8_t)tk;
	r->gpu_index = gpu;
	if (lb->uuid_n)
		r->uuid = ctx_str(ctx, (struct slice){ lb->uuid, lb->uuid_n });
	if (lb->name_n)
		r->name = ctx_str(ctx, (struct slice){ lb->name, lb->name_n });
	return r;
}

/* Note one half of the FB pair; true (and the total) once both halves share a time. */
static bool pm_fb_pair(struct pm_state *st, int32_t gpu, int64_t t_ns, enum time_kind tk,
		       bool used, double mib, double *total)
{
	struct pm_fb *fb;

	if (gpu < 0 || gpu >= PM_MAX_GPUS)
		return false;
	fb = &st->fb[gpu];
	if (fb->t_ns != t_ns || fb->tk != tk) {
		fb->t_ns = t_ns;
		fb->tk = (uint8_t)tk;
		fb->have = 0;
	}
	if (used) {
		fb->used_mib = mib;
		fb->have |= 1;
	} else {
		fb->free_mib = mib;
		fb->have |= 2;
	}
	if (fb->have != 3)
		return false;
	*total = fb->used_mib + fb->free_mib;
	return true;
}

/* The exporter's uuid label lacks nvidia-smi's "GPU-" prefix (formats.md
 * 11.12): put it back so the GPU joins its CSV and dmon logs. */
static void pm_exporter_uuid(const struct pm_labels *lb, char *out, size_t cap)
{
	bool bare = lb->uuid_n == 36 && lb->uuid[8] == '-' && lb->uuid[13] == '-';

	snprintf(out, cap, "%s%.*s", bare ? "GPU-" : "", (int)lb->uuid_n, lb->uuid);
}

/* The open record of this GPU at this time, or a slot for a new one; NULL
 * when more GPUs than PM_MAX_GPUS are open (their series stay one a record). */
static struct pm_open *pm_open_find(struct pm_state *st, const char *uuid)
{
	for (size_t i = 0; i < st->nopen; i++)
		if (!strcmp(st->open[i].uuid, uuid))
			return &st->open[i];
	if (st->nopen == PM_MAX_GPUS)
		return NULL;
	st->open[st->nopen] = (struct pm_open){ .index = -1, .rec = SIZE_MAX };
	fmt_cut(st->open[st->nopen].uuid, sizeof(st->open[0].uuid), "%s", uuid);
	return &st->open[st->nopen++];
}

/* The record o is filling, if it is still the batch's and of this time. */
static struct rec *pm_open_rec(struct parse_ctx *ctx, struct pm_open *o, int64_t t_ns,
			       enum time_kind tk)
{
	if (!o || o->rec == SIZE_MAX || o->rec >= ctx->out->nr || o->t_ns != t_ns ||
	    o->tk != (uint8_t)tk)
		return NULL;
	return &ctx->out->recs[o->rec];
}

static uint32_t pm_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/*
 * An exporter process series: one process record per (GPU, pid, scrape),
 * its memory from nvidia_smi_compute_app_used_memory_bytes when that is
 * given (absent under WDDM: unknown, not 0).
 */
static void pm_exporter_proc(struct parse_ctx *ctx, struct pm_state *st, const struct pm_map *m,
			     const struct pm_labels *lb, const char *uuid, int32_t index,
			     bool have_val, double val, int64_t t_ns, enum time_kind tk)
{
	uint32_t h = pm_hash(uuid);
	struct pm_open_proc *o = NULL;
	struct rec *r = NULL;

	for (size_t i = 0; i < st->nprocs && lb->pid >= 0 && !o; i++)
		if (st->procs[i].uuid_hash == h && st->procs[i].pid == lb->pid)
			o = &st->procs[i];
	if (o && o->rec < ctx->out->nr && o->t_ns == t_ns && o->tk == (uint8_t)tk)
		r = &ctx->out->recs[o->rec];
	/* the same series again for this process and time: the next scrape */
	if (r && (m->special == PS_APP ? o->seen_info : (r->present & PF_FB) != 0))
		r = NULL;
	if (!r) {
		if (!(r = ctx_rec(ctx, REC_PROC)))
			return;
		r->t_ns = t_ns;
		r->time_kind = (uint8_t)tk;
		r->pid = lb->pid;
		r->gpu_index = index;
		r->uuid = ctx_str(ctx, (struct slice){ uuid, strlen(uuid) });
		if (lb->process_n)
			r->name = ctx_str(ctx, (struct slice){ lb->process, lb->process_n });
		if (!o && lb->pid >= 0 && st->nprocs < PM_MAX_PROCS)
			o = &st->procs[st->nprocs++];
		if (o)
			*o = (struct pm_open_proc){ .uuid_hash = h, .pid = lb->pid, .t_ns = t_ns,
						    .tk = (uint8_t)tk,
						    .rec = (size_t)(r - ctx->out->recs) };
	}
	if (o && m->special == PS_APP)
		o->seen_info = true;
	if (m->special == PS_APP_MEM && have_val) {
		r->v[2] = val;
		r->present |= PF_FB;
	}
}

/*
 * One nvidia_gpu_exporter series: every series of one GPU in one scrape goes
 * into one sample record (the exposition lists them family by family), and
 * the index, which the exporter gives as a series of its own, is set on it.
 */
static void pm_exporter(struct parse_ctx *ctx, struct pm_state *st, const struct pm_map *m,
			const struct pm_labels *lb, bool have_val, double val, int64_t t_ns,
			enum time_kind tk)
{
	char uuid[sizeof(lb->uuid) + 4];
	struct pm_open *o;
	struct rec *r;

	if (!lb->uuid_n)
		return;	/* the exporter's own health series (failed scrapes, exit code) */
	pm_exporter_uuid(lb, uuid, sizeof(uuid));
	o = pm_open_find(st, uuid);
	if (m->special == PS_APP || m->special == PS_APP_MEM) {
		pm_exporter_proc(ctx, st, m, lb, uuid, o ? o->index : -1, have_val, val, t_ns, tk);
		return;
	}
	if (o && m->special == PS_INDEX && have_val && val >= 0 && val <= INT32_MAX &&
	    val == (double)(int32_t)val)
		o->index = (int32_t)val;
	if (o && m->special == PS_INFO && lb->index >= 0)
		o->index = lb->index;
	r = pm_open_rec(ctx, o, t_ns, tk);
	if (m->metric != PM_NO_METRIC && have_val && r && (r->present & (1u << m->metric))) {
		if (o->rank[m->metric] < m->rank)
			return;	/* a lesser series of a metric already read (power.draw.average) */
		if (o->rank[m->metric] == m->rank)
			r = NULL;	/* the same series again: the next scrape, a new record */
	}
	if (!r) {
		if (m->metric == PM_NO_METRIC && m->special != PS_INFO)
			return;
		if (!(r = ctx_rec(ctx, REC_SAMPLE)))
			return;
		r->t_ns = t_ns;
		r->time_kind = (uint8_t)tk;
		r->gpu_index = -1;
		r->uuid = ctx_str(ctx, (struct slice){ uuid, strlen(uuid) });
		if (o) {
			o->rec = (size_t)(r - ctx->out->recs);
			o->t_ns = t_ns;
			o->tk = (uint8_t)tk;
		}
	}
	if (o)
		r->gpu_index = o->index;
	if (m->special == PS_INFO && lb->plain_name_n)
		r->name = ctx_str(ctx, (struct slice){ lb->plain_name, lb->plain_name_n });
	if (m->metric == PM_NO_METRIC || !have_val)
		return;
	r->v[m->metric] = val;
	r->present |= 1u << m->metric;
	if (o)
		o->rank[m->metric] = m->rank;
}

static void pm_line(struct parse_ctx *ctx, const char *line, size_t n)
{
	const char *p = line, *end = line + n, *vp;
	struct slice name = { NULL, 0 };
	const struct pm_map *m = NULL;
	struct pm_labels lb;
	double raw, val = 0.0, total;
	bool have_val;
	int64_t t_ns = 0;
	enum time_kind tk = TK_FILE;
	int32_t gpu;
	struct rec *r;

	scan_skip_space(&p, end);
	if (p >= end || *p == '#')
		return;	/* HELP, TYPE, UNIT, EOF and plain comments */

	if (pm_name_start(*p)) {
		name.p = p;
		while (p < end && pm_name_char(*p))
			p++;
		name.n = (size_t)(p - name.p);
		m = pm_find(name.p, name.n);
		scan_skip_space(&p, end);
	} else if (*p != '{') {
		ctx_bad(ctx, ctx_col(line, p), "bad metric name");
		return;
	}
	lb.gpu = lb.device = lb.index = -1;
	lb.pid = -2;
	lb.uuid_n = lb.name_n = lb.mig_n = lb.err_msg_n = lb.plain_name_n = lb.process_n = 0;
	if (p < end && *p == '{') {
		const char *brace = p;
		if (!pm_labels(ctx, line, &p, end, &name, m || !name.n, &lb))
			return;
		if (!name.n) {
			ctx_bad(ctx, ctx_col(line, brace), "no metric name");
			return;
		}
		if (!m)
			m = pm_find(name.p, name.n);
	} else if (p < end && p == name.p + name.n) {
		ctx_bad(ctx, ctx_col(line, p), "bad character in metric name");
		return;
	}

	scan_skip_space(&p, end);
	if (p >= end) {
		ctx_bad(ctx, ctx_col(line, p), "missing value");
		return;
	}
	vp = p;
	if (scan_prom_float(&p, end, &raw) || (p < end && !scan_is_space(*p))) {
		ctx_bad(ctx, ctx_col(line, vp), "bad value");
		return;
	}
	scan_skip_space(&p, end);
	if (p < end && *p != '#') {
		const char *tp = p;
		if (pm_timestamp(&p, end, &t_ns)) {
			ctx_bad(ctx, ctx_col(line, tp), "bad timestamp");
			return;
		}
		tk = TK_ABS;
		scan_skip_space(&p, end);
	}
	/* an OpenMetrics exemplar ("# {...} v") may follow; anything else may not */
	if (p < end && *p != '#') {
		ctx_bad(ctx, ctx_col(line, p), "unexpected text after the sample");
		return;
	}
	if (!m || ctx->replay)
		return;

	gpu = lb.gpu >= 0 ? lb.gpu : lb.device;
	have_val = pm_value(m, raw, &val);
	if (m->flags & PF_MERGE) {
		pm_exporter(ctx, ctx->state, m, &lb, have_val, val, t_ns, tk);
		return;
	}
	/* a MIG slice's memory or utilization is not the GPU's: keep only whole-GPU values */
	if (lb.mig_n && (m->flags & PF_PER_SLICE))
		return;

	switch (m->special) {
	case PS_XID:
		if (have_val && val == 79.0)
			ctx_event(ctx, EV_GPU_LOST, t_ns, tk, gpu,
				  "dcgm-exporter reports Xid 79 (GPU fell off the bus)%s%.*s",
				  lb.err_msg_n ? ": " : "", (int)lb.err_msg_n, lb.err_msg);
		/* other Xid codes: the gauge holds the last code, not an event; not stored */
		return;
	case PS_FB_FREE:
		if (have_val && pm_fb_pair(ctx->state, gpu, t_ns, tk, false, val, &total)) {
			r = pm_sample(ctx, &lb, gpu, t_ns, tk);
			if (r) {
				r->v[M_MEM_TOTAL] = total;
				r->present = 1u << M_MEM_TOTAL;
			}
		}
		return;
	default:
		break;
	}

	r = pm_sample(ctx, &lb, gpu, t_ns, tk);
	if (!r || !have_val)
		return;
	r->v[m->metric] = val;
	r->present = 1u << m->metric;
	if (m->special == PS_FB_USED &&
	    pm_fb_pair(ctx->state, gpu, t_ns, tk, true, val, &total)) {
		r->v[M_MEM_TOTAL] = total;
		r->present |= 1u << M_MEM_TOTAL;
	}
}

/* Is there a line in head that starts with s? */
static bool pm_head_has_line(const char *head, size_t n, const char *s)
{
	size_t sn = strlen(s);

	for (const char *p = head, *end = head + n; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if ((size_t)(end - p) >= sn && !memcmp(p, s, sn))
			return true;
		p = nl ? nl + 1 : end;
	}
	return false;
}

static int pm_sniff(const char *head, size_t n, const char *name)
{
	(void)name;
	if (pm_head_has_line(head, n, "# TYPE ") || pm_head_has_line(head, n, "# HELP "))
		return 90;
	for (const char *p = head, *end = head + n; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *q = p;
		while (q < end && pm_name_char(*q))
			q++;
		if (q < end && (*q == '{' || *q == ' ') && pm_find(p, (size_t)(q - p)))
			return 90;
		p = nl ? nl + 1 : end;
	}
	return 0;
}

const struct format format_prom_text = {
	.id = "prom-text",
	.summary = "Prometheus text exposition: gpu_to_prom.sh textfiles, dcgm-exporter scrapes",
	.detects = "# TYPE or # HELP lines, or samples of known GPU metric names",
	.state_size = sizeof(struct pm_state),
	.sniff = pm_sniff,
	.line = pm_line,
};
