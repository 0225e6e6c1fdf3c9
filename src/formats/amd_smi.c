/* SPDX-License-Identifier: MIT */
/* The amd-smi metric fields both amd-smi readers take (amd_smi.h). */
#include "formats/amd_smi.h"

#include <string.h>

static const struct amd_field fields[] = {
	{ .name = "gfx_activity", .metric = M_UTIL_GPU, .rank = 0, .unit = AU_PCT },
	/* ROCm 6.0 CSV */
	{ .name = "gfx_usage", .metric = M_UTIL_GPU, .rank = 1, .unit = AU_PCT },
	{ .name = "umc_activity", .metric = M_UTIL_MEM, .rank = 0, .unit = AU_PCT },
	/* ROCm 6.0 CSV; an object in JSON */
	{ .name = "mem_usage", .metric = M_UTIL_MEM, .rank = 1, .unit = AU_PCT },
	{ .name = "socket_power", .metric = M_POWER, .rank = 0, .unit = AU_W },
	{ .name = "edge", .metric = M_TEMP, .rank = 0, .unit = AU_C },
	{ .name = "hotspot", .metric = M_TEMP, .rank = 1, .unit = AU_C },
	{ .name = "mem", .metric = M_MEM_TEMP, .rank = 0, .unit = AU_C },
	{ .name = "gfx_0_clk", .metric = M_SM_CLOCK, .rank = 0, .unit = AU_MHZ },
	/* ROCm 6.0 CSV */
	{ .name = "gfx_cur_clk", .metric = M_SM_CLOCK, .rank = 1, .unit = AU_MHZ },
	/* a Radeon prints a maximum clock of 0 MHz */
	{ .name = "gfx_0_max_clk", .metric = M_SM_CLOCK_MAX, .rank = 0, .unit = AU_MHZ,
	  .zero_missing = true },
	{ .name = "mem_0_clk", .metric = M_MEM_CLOCK, .rank = 0, .unit = AU_MHZ },
	/* ROCm 6.0 CSV */
	{ .name = "mem_cur_clk", .metric = M_MEM_CLOCK, .rank = 1, .unit = AU_MHZ },
	/* a Radeon without the counter prints 0.0 J on every run: a counter
	 * stuck at 0 would price the GPU's energy at nothing */
	{ .name = "total_energy_consumption", .metric = M_ENERGY, .rank = 0, .unit = AU_J,
	  .zero_missing = true },
	{ .name = "total_vram", .metric = M_MEM_TOTAL, .rank = 0, .unit = AU_MIB },
	/* ROCm 6.0 CSV */
	{ .name = "fb_total", .metric = M_MEM_TOTAL, .rank = 1, .unit = AU_MIB },
	{ .name = "used_vram", .metric = M_MEM_USED, .rank = 0, .unit = AU_MIB },
	/* ROCm 6.0 CSV */
	{ .name = "fb_used", .metric = M_MEM_USED, .rank = 1, .unit = AU_MIB },
	{ .name = "width", .metric = M_PCIE_WIDTH, .rank = 0, .unit = AU_COUNT },
	/* JSON only: CSV's "usage" is ambiguous */
	{ .name = "usage", .parent = "fan", .metric = M_FAN, .rank = 0, .unit = AU_PCT },
};

const struct amd_field *amd_field_find(struct slice name, const char *parent)
{
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (!slice_eq(name, fields[i].name))
			continue;
		if (fields[i].parent && (!parent || strcmp(parent, fields[i].parent)))
			continue;
		return &fields[i];
	}
	return NULL;
}

/* The factor from unit u to field unit k, or 0 when u is not one of k's. */
static double factor(uint8_t k, struct slice u)
{
	static const struct {
		uint8_t k;
		const char *u;
		double f;
	} units[] = {
		{ AU_PCT, "%", 1 },
		{ AU_W, "W", 1 },	{ AU_W, "mW", 1e-3 },	{ AU_W, "uW", 1e-6 },
		/* a Latin-1 degree sign too: a paste saved in Windows-1252 */
		{ AU_C, "C", 1 },	{ AU_C, "\xc2\xb0" "C", 1 },	{ AU_C, "\xb0" "C", 1 },
		{ AU_MHZ, "MHz", 1 },	{ AU_MHZ, "Mhz", 1 },	{ AU_MHZ, "GHz", 1000 },
		/* amd-smi's MB are MiB: 196592 MB on a 192 GiB MI300X */
		{ AU_MIB, "MB", 1 },	{ AU_MIB, "MiB", 1 },	{ AU_MIB, "GB", 1024 },
		{ AU_MIB, "KB", 1.0 / 1024 },	{ AU_MIB, "B", 1.0 / 1048576 },
		{ AU_J, "J", 1 },	{ AU_J, "mJ", 1e-3 },	{ AU_J, "uJ", 1e-6 },
		{ AU_J, "kJ", 1e3 },
	};
	if (!u.n)
		return 1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (units[i].k == k && slice_eq(u, units[i].u))
			return units[i].f;
	return 0;
}

int amd_value(const struct amd_field *f, struct slice num, struct slice unit, double *out,
	      const char **why)
{
	uint8_t st = 0;
	double d, k;
	const char *p, *end;

	num = slice_trim(num);
	unit = slice_trim(unit);
	if (!num.n || smi_missing_token(num, &st))
		return 1;
	p = num.p;
	end = num.p + num.n;
	if (scan_double(&p, end, &d)) {
		*why = "not a number";
		return -1;
	}
	if (p != end && *p != ' ') {
		*why = "not a number";
		return -1;
	}
	scan_skip_space(&p, end);
	if (p != end) {
		/* "133 W": the unit in the cell itself */
		if (unit.n) {
			*why = "not a number";
			return -1;
		}
		unit = (struct slice){ p, (size_t)(end - p) };
	}
	if (!(k = factor(f->unit, unit))) {
		*why = "not a unit amd-smi gives this field in";
		return -2;
	}
	if (d < 0 && f->metric != M_TEMP) {
		*why = "a negative reading";
		return -1;
	}
	if (d == 0 && f->zero_missing)
		return 1;
	*out = d * k;
	return 0;
}

void amd_sample_init(struct amd_sample *s)
{
	memset(&s->g, 0, sizeof(s->g));
	memset(s->rank, 0xff, sizeof(s->rank));
}

void amd_sample_set(struct amd_sample *s, const struct amd_field *f, double v)
{
	if (f->rank >= s->rank[f->metric])
		return;
	s->rank[f->metric] = f->rank;
	s->g.v[f->metric] = v;
	s->g.present |= 1u << f->metric;
}

static const char *const units[] = {
	"W", "mW", "\xc2\xb0" "C", "\xb0" "C", "C", "MHz", "Mhz", "GHz", "%", "B", "KB", "MB",
	"GB", "MiB", "GiB", "Mb/s", "mV", "ns", "us", "ms", "J", NULL,
};

static bool is_unit(struct slice t)
{
	for (size_t i = 0; units[i]; i++)
		if (slice_eq(t, units[i]))
			return true;
	return false;
}

size_t amd_words(struct slice s, struct slice *c, size_t cap)
{
	const char *p = s.p, *end = s.p + s.n;
	size_t n = 0;

	while (p < end) {
		struct slice w;
		const char *q;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p >= end)
			break;
		q = p;
		while (q < end && *q != ' ' && *q != '\t')
			q++;
		w = (struct slice){ p, (size_t)(q - p) };
		if (n && (is_unit(w) || c[n - 1].p[c[n - 1].n - 1] == '/'))
			c[n - 1].n = (size_t)(q - c[n - 1].p);
		else if (n < cap)
			c[n++] = w;
		else
			return cap + 1;	/* more than the caller can take */
		p = q;
	}
	return n;
}

bool amd_row_columns(struct parse_ctx *ctx, const char *line, struct slice s, uint32_t ncols,
		     uint32_t name_col, struct slice *v, struct slice *c, size_t cap)
{
	size_t n = amd_words(s, c, cap), extra;

	if (n > cap || n < ncols || (n > ncols && name_col >= ncols)) {
		ctx_bad(ctx, ctx_col(line, s.p), "%s%zu values where the header names %u columns",
			ctx->last_line_partial ? "line cut short: " : "", n, ncols);
		return false;
	}
	extra = n - ncols;
	for (uint32_t i = 0, j = 0; i < ncols; i++, j++) {
		v[i] = c[j];
		if (i == name_col && extra) {	/* a name with spaces */
			j += extra;
			v[i].n = (size_t)(c[j].p + c[j].n - v[i].p);
		}
	}
	return true;
}

void amd_proc_row_emit(struct parse_ctx *ctx, const char *line, struct slice s, int64_t idx, int64_t pid,
		       uint32_t name, int64_t t_ns, bool timed, double vram, double mem, bool has_vram_col)
{
	struct rec *r;

	if (idx < 0 || pid < 0) {
		ctx_bad(ctx, ctx_col(line, s.p), "a process row with no %s column", idx < 0 ? "GPU" : "PID");
		return;
	}
	if (!(r = ctx_rec(ctx, REC_PROC)))
		return;
	r->t_ns = timed ? t_ns : 0;
	r->time_kind = timed ? TK_ABS : TK_NONE;
	r->gpu_index = (int32_t)idx;
	r->pid = pid;
	r->name = name;
	r->present = 0;
	if (!has_vram_col)
		vram = mem;
	if (vram >= 0) {
		r->v[2] = vram;
		r->present |= PF_FB;
	}
}

int amd_pair(const struct amd_field *fa, const struct amd_field *fb, struct slice v, double *a,
	     int *ra, double *b, int *rb, const char **why)
{
	const char *sl = memchr(v.p, '/', v.n), *sp;
	struct slice left, right, num, unit = { NULL, 0 };

	*ra = *rb = 1;
	if (!sl) {	/* "N/A" for both, or one value */
		num = v;
		if ((sp = memchr(v.p, ' ', v.n))) {
			num = (struct slice){ v.p, (size_t)(sp - v.p) };
			unit = (struct slice){ sp, (size_t)(v.p + v.n - sp) };
		}
		*ra = amd_value(fa, num, unit, a, why);
		return *ra < 0 ? -1 : 0;
	}
	if (slice_eq(v, "N/A"))
		return 0;
	left = slice_trim((struct slice){ v.p, (size_t)(sl - v.p) });
	right = slice_trim((struct slice){ sl + 1, (size_t)(v.p + v.n - sl - 1) });
	num = right;
	if ((sp = memchr(right.p, ' ', right.n))) {
		num = (struct slice){ right.p, (size_t)(sp - right.p) };
		unit = (struct slice){ sp, (size_t)(right.p + right.n - sp) };
	}
	if ((*ra = amd_value(fa, left, unit, a, why)) < 0)
		return -1;
	if ((*rb = amd_value(fb, num, unit, b, why)) < 0)
		return -1;
	return 0;
}
