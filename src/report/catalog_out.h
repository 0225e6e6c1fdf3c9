/* SPDX-License-Identifier: MIT */
/*
 * The parts of a --cloud-catalog object that report, cost and trend write
 * alike in their JSON (docs/report-json.md, docs/cost.md, docs/store.md):
 * the file, then the rate picked for the GPU model.  Each caller writes its
 * own keys around them, so the three objects keep their key order.
 */
#ifndef REPORT_CATALOG_OUT_H
#define REPORT_CATALOG_OUT_H

#include <stdbool.h>

struct jsonw;
struct cloud_catalog;
struct catalog_pick;

/* Open the object: file, date, date_from, rows, bad_rows. */
void catalog_json_file(struct jsonw *w, const struct cloud_catalog *c);
/* accelerator, matched_rows, median, min, max; hit false: no row matched
 * (accelerator null, the rates NAN). */
void catalog_json_pick(struct jsonw *w, const struct catalog_pick *p, bool hit);

#endif
