/* SPDX-License-Identifier: MIT */
/* The questions asked of an analysis (model.h): names, means, strings. */
#include "analysis/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

const char *const severity_name[3] = { "info", "warning", "critical" };

double ser_mean(const struct ser_bucket *b, int m)
{
	return b->known_s[m] > 0 ? (double)b->sum[m] / b->known_s[m] : NAN;
}

const char *analysis_str(struct analysis *an, const char *s)
{
	if (!s)
		return NULL;
	for (size_t i = an->nstrs; i-- > 0;)
		if (!strcmp(an->strs[i], s))
			return an->strs[i];
	ALLOC_GROW(an->strs, an->nstrs + 1, an->strs_alloc);
	an->strs[an->nstrs] = xstrdup(s);
	return an->strs[an->nstrs++];
}

double gpu_util_mean(const struct gpu_stats *g)
{
	return g->util_known_s > 0 ? 100 * g->busy_s / g->util_known_s : NAN;
}

double gpu_util_quantile(const struct gpu_stats *g, double q)
{
	double acc = 0;
	if (g->util_known_s <= 0)
		return NAN;
	for (int i = 0; i <= 100; i++) {
		acc += g->util_hist_s[i];
		if (acc >= q * g->util_known_s - 1e-9)
			return i;
	}
	return 100;
}

double gpu_power_mean(const struct gpu_stats *g)
{
	return g->power_known_s > 0 ? g->power_ws / g->power_known_s : NAN;
}

double gpu_energy_j(const struct gpu_stats *g, const char **source)
{
	if (g->energy_counter_s > 0 && g->energy_power_s > 0) {
		*source = "counter+power";
		return g->energy_counter_j + g->energy_power_j;
	}
	if (g->energy_counter_s > 0) {
		*source = "counter";
		return g->energy_counter_j;
	}
	if (g->energy_power_s > 0) {
		*source = "power";
		return g->energy_power_j;
	}
	*source = "none";
	return NAN;
}

const char *analysis_gpu_name(const struct analysis *an, int gi, char *buf, size_t cap)
{
	const struct gpu_ident *id = gi >= 0 && gi < an->tl.ngpus ? &an->tl.gpus[gi].id : NULL;

	if (id && id->index >= 0)
		snprintf(buf, cap, "GPU %d", id->index);
	else if (id && id->uuid[0])
		snprintf(buf, cap, "GPU %.40s", id->uuid);
	else
		snprintf(buf, cap, "GPU #%d", gi);
	return buf;
}

const char *analysis_gpu_num(const struct analysis *an, int gi, char *buf, size_t cap)
{	if (gi < 0)
		snprintf(buf, cap, "-");
	else if (gi < an->tl.ngpus && an->tl.gpus[gi].id.index >= 0)
		snprintf(buf, cap, "%d", an->tl.gpus[gi].id.index);
	else
		snprintf(buf, cap, "?");
	return buf;
}

/* "Xid 79", "fallen_off_bus": how an event is named in evidence. */
void analysis_event_name(char *buf, size_t cap, int ev, int32_t code)
{
	const char *name = ev >= 0 && ev < EV__COUNT && event_kind_name[ev] ? event_kind_name[ev] : "event";

	if (ev == EV_XID && code >= 0)
		snprintf(buf, cap, "Xid %d", (int)code);
	else if (code >= 0 && ev != EV_LID)
		snprintf(buf, cap, "%s %d", name, (int)code);
	else
		snprintf(buf, cap, "%s", name);
}


const char *const finding_kind_name[FK__COUNT] = {
#define FINDING(id, name, always) [FK_##id] = name,
#include "analysis/finding_kinds.def"
#undef FINDING
};

static const bool kind_always[FK__COUNT] = {
#define FINDING(id, name, always) [FK_##id] = always,
#include "analysis/finding_kinds.def"
#undef FINDING
};

enum finding_kind finding_kind_of(const char *name)
{
	for (int k = 1; k < FK__COUNT; k++)
		if (!strcmp(finding_kind_name[k], name))
			return (enum finding_kind)k;
	return FK_NONE;
}

bool finding_kind_always(enum finding_kind fk)
{
	return fk > FK_NONE && fk < FK__COUNT && kind_always[fk];
}

bool finding_always(const char *kind)
{
	return kind_always[finding_kind_of(kind)];
}

bool finding_is_run_summary(const struct finding *f)
{
	return f->gpu >= 0 && ((f->fk == FK_IDLE_POWER && f->total_s > 0) ||
			       (f->nstretch > 0 && (f->fk == FK_HELD_IDLE || f->fk == FK_INPUT_STARVED ||
						    f->fk == FK_LAUNCH_BOUND || f->fk == FK_GPU_DOWN)));
}
