/* SPDX-License-Identifier: MIT */
/* The one read path: sources -> timeline -> analysis, one bad-line policy. */
#include "pipeline/pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* What the sinks return to stop the driver: positive, so never a GL_E* code. */
enum { STOP_BAD = 1, STOP_TWICE, STOP_TAP };

/* The first lines are kept where they are met; the rest only counted.
 * True when the line stops the run (strict, or fatal with stop_on_fatal). */
static bool keep_bad(struct pipeline *p, const char *path, uint64_t line, uint32_t col, const char *msg,
		     bool fatal)
{
	struct bad_line *bl;

	if (!col && line)
		col = 1;	/* a fault of the whole line (a reader that says no column) */
	p->bad_total++;
	if (p->nbad < PIPELINE_BAD_KEPT) {
		bl = &p->bad[p->nbad++];
		bl->path = path;
		bl->line = line;
		bl->col = col;
		snprintf(bl->msg, sizeof(bl->msg), "%s", msg);
	}
	if (!p->o.strict && !(p->o.stop_on_fatal && fatal))
		return false;
	p->stop.path = path;
	p->stop.line = line;
	p->stop.col = col;
	snprintf(p->stop.msg, sizeof(p->stop.msg), "%s", msg);
	p->stop_fatal = !p->o.strict;
	return true;
}

bool pipeline_bad_line(struct pipeline *p, const char *path, uint64_t line, uint32_t col, const char *msg)
{
	return keep_bad(p, path, line, col, msg, false);
}

/* One record of any source into the tap, the policy and the analysis. */
static int take(struct pipeline *p, struct analysis *an, const struct input_stat *in, const struct rec *r,
		const struct batch *b)
{
	int rc;

	if (p->o.tap && (rc = p->o.tap(p->o.tap_ud, in, r, b))) {
		p->tap_code = rc;
		return STOP_TAP;
	}
	if (r->kind == REC_BAD) {
		const char *msg = batch_str(b, r->name);
		for (size_t k = 0; k < p->o.nrecounted; k++)
			if (!strcmp(p->o.recounted[k], in->path))
				return 0;
		if (keep_bad(p, in->path, r->line, r->col, msg, r->ev == BAD_FATAL))
			return STOP_BAD;
		if (an)
			analysis_bad(an, r, msg, in->path);
		return 0;
	}
	if (an)
		analysis_add(an, r, b, in->path);
	return 0;
}

static int on_rec(void *ud, const struct input_stat *in, const struct rec *r, const struct batch *b)
{
	struct pipeline *p = ud;

	/* the common record: no tap, not a bad line (take()'s checks, once) */
	if (!p->o.tap && r->kind != REC_BAD && p->an) {
		analysis_add(p->an, r, b, in->path);
		return 0;
	}
	return take(p, p->an, in, r, b);
}

/* The server's MIG slices: a timeline of their own (report/fleet.c prices them). */
static int on_slice_rec(void *ud, const struct input_stat *in, const struct rec *r, const struct batch *b)
{
	struct pipeline *p = ud;
	return take(p, p->slice_an, in, r, b);
}

/*
 * The server's records, after the files': a GPU both in a file and on the
 * server would count its time twice (or mix two readings of one instant),
 * so the run stops at the first such GPU (docs/formats/prometheus-api.md,
 * "Files and a server in one run").
 */
static int on_prom_rec(void *ud, const struct input_stat *in, const struct rec *r, const struct batch *b)
{
	struct pipeline *p = ud;
	const char *uuid = r->kind == REC_BAD ? NULL : batch_str(b, r->uuid);

	if (p->an && uuid && uuid[0])
		for (int i = 0; i < p->nfile_gpus; i++)
			if (!strcmp(p->an->tl.gpus[i].id.uuid, uuid)) {
				snprintf(p->twice, sizeof(p->twice), "%s", uuid);
				return STOP_TWICE;
			}
	return on_rec(ud, in, r, b);
}

/*
 * The display series costs about a tenth of a run's time: keep it only for
 * the HTML page or when a trace is to be joined (its utilization is read
 * off the series' buckets).
 */
static void on_begin(void *ud, const struct ingest_result *res)
{
	struct pipeline *p = ud;
	bool traces = false;

	if (!p->an)
		return;
	for (size_t i = 0; i < res->nr; i++)
		if (res->inputs[i].format && res->inputs[i].format->traces)
			traces = true;
	p->an->cfg.series = p->o.series || traces;
}

void pipeline_open(struct pipeline *p, const struct pipeline_opts *o)
{
	memset(p, 0, sizeof(*p));
	p->o = *o;
	p->bad = xcalloc(PIPELINE_BAD_KEPT, sizeof(*p->bad));
	p->no_uuid_index = -1;
	if (!o->no_analysis) {
		p->an = xcalloc(1, sizeof(*p->an));
		analysis_init(p->an, NULL);
		p->an->cfg.series = o->series;
	}
}

/* A driver or server return code as a status. */
static int status_of(struct pipeline *p, int rc)
{
	switch (rc) {
	case 0:
		return PIPE_OK;
	case STOP_BAD:
		return PIPE_STOPPED;
	case STOP_TWICE:
		return PIPE_TWICE;
	case STOP_TAP:
		return PIPE_TAP;
	}
	if (!p->err.msg[0])
		gl_err_set(&p->err, rc < 0 ? rc : GL_EIO, "reading the inputs failed");
	return PIPE_FAILED;
}

/* A window of a store: the same analysis, from its rollups. */
static int run_store(struct pipeline *p)
{
	if (store_open(&p->st, p->o.db, STORE_READ, &p->err) ||
	    store_load_analysis(&p->st, p->an, p->o.db_since, p->o.db_until, &p->err) < 0)
		return PIPE_FAILED;
	store_load_inputs(&p->st, &p->res, p->o.db_since, p->o.db_until);
	return PIPE_OK;
}

int pipeline_run(struct pipeline *p)
{
	struct ingest_sink sink = { .ud = p, .rec = on_rec, .begin = on_begin };
	struct ingest_sink slice_sink = { .ud = p, .rec = on_slice_rec };
	int rc = 0;

	if (p->o.db && !p->an) {
		gl_err_set(&p->err, GL_EUSAGE, "a store is read into an analysis (no_analysis with db)");
		return PIPE_FAILED;
	}
	if (p->o.db)
		return run_store(p);
	/* files first, then the server's GPUs beside them on the same timeline */
	if (p->o.npaths)
		rc = ingest_run(p->o.paths, p->o.npaths, p->o.in, &sink, &p->res, &p->err);
	if (!rc && p->o.prom) {
		struct prom_remote_opts po = *p->o.prom;
		if (p->an) {
			/* the files' GPUs are told apart from the server's by UUID only */
			p->nfile_gpus = p->an->tl.ngpus;
			for (int i = 0; i < p->nfile_gpus; i++)
				if (!p->an->tl.gpus[i].id.uuid[0]) {
					p->no_uuid_index = p->an->tl.gpus[i].id.index;
					return PIPE_NO_UUID;
				}
			p->slice_an = xcalloc(1, sizeof(*p->slice_an));
			analysis_init(p->slice_an, NULL);
			po.slice_sink = &slice_sink;
		}
		sink.rec = on_prom_rec;
		rc = prom_remote_ingest(&po, &sink, &p->res, &p->fleet, &p->err);
		if (p->slice_an)
			analysis_finish(p->slice_an);
	}
	if (rc)
		return status_of(p, rc);
	if (p->an) {
		for (size_t i = 0; i < p->res.nr; i++)
			analysis_input_size(p->an, p->res.inputs[i].path, p->res.inputs[i].bytes);
		analysis_finish(p->an);
	}
	return PIPE_OK;
}

void pipeline_report(const struct pipeline *p, struct report *rep)
{
	rep->inputs = &p->res;
	rep->an = p->an;
	rep->slice_an = p->slice_an;
	rep->fleet = p->o.prom ? &p->fleet : NULL;
	rep->bad = p->bad;
	rep->nbad = p->nbad;
	rep->bad_total = p->bad_total;
}

void pipeline_close(struct pipeline *p)
{
	if (p->an) {
		analysis_release(p->an);
		free(p->an);
	}
	if (p->slice_an) {
		analysis_release(p->slice_an);
		free(p->slice_an);
	}
	store_close(&p->st);
	ingest_result_release(&p->res);
	prom_fleet_release(&p->fleet);
	free(p->bad);
	memset(p, 0, sizeof(*p));
}
