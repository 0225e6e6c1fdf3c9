/* SPDX-License-Identifier: MIT */
/* The --cloud-catalog object's shared keys (catalog_out.h). */
#include <math.h>
#include <stdint.h>

#include "cost/catalog.h"
#include "report/catalog_out.h"
#include "util/jsonw.h"

void catalog_json_file(struct jsonw *w, const struct cloud_catalog *c)
{
	jsonw_obj_begin(w);
	jsonw_kstr(w, "file", c->name);
	jsonw_kstr(w, "date", c->date[0] ? c->date : NULL);
	jsonw_kstr(w, "date_from", c->date_from);
	jsonw_kint(w, "rows", (int64_t)c->nrows);
	jsonw_kint(w, "bad_rows", (int64_t)c->nbad);
}

void catalog_json_pick(struct jsonw *w, const struct catalog_pick *p, bool hit)
{
	jsonw_kstr(w, "accelerator", hit ? p->accel : NULL);
	jsonw_kint(w, "matched_rows", (int64_t)p->nrows);
	jsonw_knum(w, "median", hit ? p->median : NAN, 6);
	jsonw_knum(w, "min", hit ? p->min : NAN, 6);
	jsonw_knum(w, "max", hit ? p->max : NAN, 6);
}
