/* SPDX-License-Identifier: MIT */
/*
 * One format's line() called on a hand-made context, for unit tests that
 * look at the records themselves (test_klogs.c, test_dmon_shape.c).
 */
#ifndef TESTS_UNIT_FMT_RUN_H
#define TESTS_UNIT_FMT_RUN_H

#include <stdlib.h>
#include <string.h>

#include "formats/driver.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

struct run {
	struct ingest_opts o;
	struct batch b;
	struct parse_ctx ctx;
	const struct format *f;
};

static inline void run_init(struct run *r, const char *id, int64_t mtime_ns)
{
	memset(r, 0, sizeof(*r));
	r->o.date_days = INT64_MIN;
	r->o.interval_ns = NS_PER_S;
	for (int i = 0; i < 4; i++)
		r->b.last_str[i] = STR_NONE;
	r->f = format_find(id);
	assert_non_null(r->f);
	r->ctx.opts = &r->o;
	r->ctx.src = "test";
	r->ctx.out = &r->b;
	r->ctx.mtime_ns = mtime_ns;
	r->ctx.state = xcalloc(1, r->f->state_size ? r->f->state_size : 1);
	if (r->f->init)
		r->f->init(r->ctx.state, &r->o);
}

static inline void feed(struct run *r, const char *line)
{
	r->ctx.line++;
	r->f->line(&r->ctx, line, strlen(line));
}

static inline void run_release(struct run *r)
{
	free(r->ctx.state);
	free(r->b.recs);
	free(r->b.strs);
}

#endif
