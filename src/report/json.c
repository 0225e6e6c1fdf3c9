/* SPDX-License-Identifier: MIT */
/* The JSON rendering of a report; keys are documented in docs/report-json.md. */
#include "report/report.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/kmsg.h"
#include "report/catalog_out.h"
#include "util/jsonw.h"
#include "util/version.h"
#include "util/timeutil.h"
#include "util/workpool.h"

static void knum_or_null(struct jsonw *w, const char *k, double v, int d)
{
	jsonw_knum(w, k, v, d);	/* NAN -> null */
}

static void gpu_ident(struct jsonw *w, const struct analysis *an, int gi)
{
	const struct gpu_ident *id = &an->tl.gpus[gi].id;
	if (id->index >= 0)
		jsonw_kint(w, "index", id->index);
	else
		jsonw_kstr(w, "index", NULL);
	jsonw_kstr(w, "uuid", id->uuid[0] ? id->uuid : NULL);
	jsonw_kstr(w, "name", id->name[0] ? id->name : NULL);
}

static void inputs(struct jsonw *w, const struct report *r)
{
	jsonw_key(w, "inputs");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < r->inputs->nr; i++) {
		const struct input_stat *in = &r->inputs->inputs[i];
		jsonw_obj_begin(w);
		jsonw_kstr(w, "path", in->path);
		jsonw_kstr(w, "format", in->format ? in->format->id : NULL);
		jsonw_kstr(w, "detected", in->why[0] ? in->why : NULL);
		jsonw_kstr(w, "compression", in->compression);
		jsonw_kint(w, "bytes", (int64_t)in->bytes);
		jsonw_kint(w, "lines", (int64_t)in->lines);
		jsonw_kint(w, "records", (int64_t)in->records);
		jsonw_kint(w, "skipped", (int64_t)in->bad);
		jsonw_kbool(w, "partial_last_line", in->partial_last_line);
		if (in->partial_last_line)	/* read whole, or skipped as cut short */
			jsonw_kbool(w, "partial_last_line_read", in->partial_last_read);
		jsonw_kint(w, "dst_repeated_hour_records", (int64_t)in->dst_repeats);
		jsonw_kstr(w, "time_basis", in->time_basis);
		jsonw_kstr(w, "zone_assumed", in->zone_assumed);
		if (in->file_time_assumed)
			jsonw_ktime(w, "file_time_assumed", in->file_time_ns);
		else
			jsonw_kstr(w, "file_time_assumed", NULL);
		if (in->columns_note[0])	/* a headerless CSV: where its columns came from */
			jsonw_kstr(w, "columns", in->columns_note);
		if (in->columns_unread[0]) {	/* header columns that map to no field, as written */
			const char *c = in->columns_unread;
			jsonw_key(w, "columns_not_understood");
			jsonw_arr_begin(w);
			for (;;) {
				const char *e = strstr(c, ", ");
				jsonw_strn(w, c, e ? (size_t)(e - c) : strlen(c));
				if (!e)
					break;
				c = e + 2;
			}
			jsonw_arr_end(w);
		}
		jsonw_kstr(w, "placed_against", in->place_ref);
		jsonw_knum(w, "placement_fit_r", in->place_r, 3);
		jsonw_knum(w, "placement_uncertainty_s", in->place_uncertain_s, 3);
		jsonw_kstr(w, "not_read", in->skip_reason[0] ? in->skip_reason : NULL);
		if (in->t_first_ns != INT64_MIN) {
			jsonw_ktime(w, "start", in->t_first_ns);
			jsonw_ktime(w, "end", in->t_last_ns);
		}
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

/* Xids by class, as counts and (per_day not NULL) per GPU-day of the span. */
static void xid_classes(struct jsonw *w, const uint64_t *by_class, const double *per_day)
{
	jsonw_key(w, "xids_by_class");
	jsonw_obj_begin(w);
	for (int c = 0; c < KC__COUNT; c++)
		if (by_class[c])
			jsonw_kint(w, kev_class_name[c], (int64_t)by_class[c]);
	jsonw_obj_end(w);
	if (!per_day)
		return;
	jsonw_key(w, "xids_per_gpu_day");
	jsonw_obj_begin(w);
	for (int c = 0; c < KC__COUNT; c++)
		if (by_class[c])
			jsonw_knum(w, kev_class_name[c], per_day[c], 3);
	jsonw_obj_end(w);
}

static void gpu_events(struct jsonw *w, const struct report *r, int gi)
{
	const struct gpu_stats *g = &r->an->gpus[gi];

	jsonw_key(w, "events");
	jsonw_obj_begin(w);
	jsonw_kint(w, "count", (int64_t)g->events);
	jsonw_kint(w, "xids", (int64_t)g->xids);
	xid_classes(w, g->xid_class, r->gpus[gi].xid_class_per_day);
	jsonw_kint(w, "outages", g->outages);
	jsonw_knum(w, "outage_s", g->outage_s, 3);
	jsonw_obj_end(w);
}

static void gpus(struct jsonw *w, const struct report *r)
{
	const struct analysis *an = r->an;

	jsonw_key(w, "gpus");
	jsonw_arr_begin(w);
	for (int i = 0; i < an->tl.ngpus; i++) {
		const struct gpu_stats *g = &an->gpus[i];
		const struct report_gpu *rg = &r->gpus[i];
		jsonw_obj_begin(w);
		jsonw_kint(w, "gpu", i);
		gpu_ident(w, an, i);
		if (g->covered_s > 0 || g->gaps_s > 0) {
			jsonw_ktime(w, "start", g->first_ns);
			jsonw_ktime(w, "end", g->last_ns);
		} else {
			jsonw_kstr(w, "start", NULL);
			jsonw_kstr(w, "end", NULL);
		}
		jsonw_kint(w, "samples", (int64_t)g->samples);
		jsonw_kint(w, "out_of_order", (int64_t)g->out_of_order);
		knum_or_null(w, "sample_interval_s", g->nominal_ns ? (double)g->nominal_ns / 1e9 : NAN, 3);
		jsonw_knum(w, "covered_s", g->covered_s, 3);
		jsonw_knum(w, "gaps_s", g->gaps_s, 3);
		jsonw_knum(w, "busy_s", g->busy_s, 3);
		{	/* the busy figure of the cost and the verdict (docs/states.md "Busy") */
			jsonw_knum(w, "useful_s", rg->useful_s, 6);
			jsonw_kstr(w, "useful_source", rg->trace_in_s > 0 || rg->trace_out_s > 0 ?
				   "useful states, with trace kernels over the joined stretches (traces.joined)" :
				   "useful states (compute_bound, memory_bound, throttled)");
		}
		knum_or_null(w, "util_mean_pct", rg->util_mean_pct, 2);
		knum_or_null(w, "util_p50_pct", rg->util_p50_pct, 0);
		knum_or_null(w, "util_p95_pct", rg->util_p95_pct, 0);
		knum_or_null(w, "energy_j", rg->energy_j, 1);
		jsonw_kstr(w, "energy_source", rg->energy_source);
		jsonw_knum(w, "energy_unknown_s", g->energy_unknown_s, 3);
		knum_or_null(w, "power_mean_w", rg->power_mean_w, 2);
		knum_or_null(w, "power_max_w", rg->power_max_w, 2);
		knum_or_null(w, "idle_power_w", rg->idle_power_w, 2);
		knum_or_null(w, "busy_power_w", rg->busy_power_w, 2);
		knum_or_null(w, "held_idle_floor_w", g->held_floor_w, 1);
		knum_or_null(w, "no_context_floor_w", g->noctx_floor_w, 1);
		knum_or_null(w, "temp_max_c", rg->temp_max_c, 1);
		knum_or_null(w, "mem_max_mib", rg->mem_max_mib, 1);
		knum_or_null(w, "mem_total_mib", rg->mem_total_mib, 1);
		jsonw_kint(w, "sm_clock_drops", g->sm_clock_drops);
		jsonw_key(w, "states");
		jsonw_obj_begin(w);
		for (int s = 0; s < ST__COUNT; s++) {
			jsonw_key(w, state_name[s]);
			jsonw_obj_begin(w);
			jsonw_knum(w, "seconds", g->state_s[s], 3);
			jsonw_knum(w, "busy_s", g->state_busy_s[s], 3);
			jsonw_knum(w, "energy_j", g->state_energy_j[s], 1);
			jsonw_obj_end(w);
		}
		jsonw_obj_end(w);
		gpu_events(w, r, i);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static char *put_text(char *o, const char *s, size_t n)
{
	memcpy(o, s, n);
	return o + n;
}

/* A member's start: its line's indentation, "key" and the colon. */
static inline char *put_key(char *o, const char *in, size_t nin, const char *key, size_t ksep)
{
	o = put_text(o, in, nin);
	*o++ = '"';
	o = put_text(o, key, strlen(key));
	*o++ = '"';
	return put_text(o, ": ", ksep);
}

/* A string that needs no escape, quoted. */
static inline char *put_quoted(char *o, const char *s)
{
	*o++ = '"';
	o = put_text(o, s, strlen(s));
	*o++ = '"';
	return o;
}

bool report_json_plain_segments;

static void segment_range_plain(struct jsonw *w, const struct report *r, size_t i0, size_t i1)
{
	for (size_t i = i0; i < i1; i++) {
		const struct segment *s = &r->an->segs[i];
		jsonw_obj_begin(w);
		jsonw_kint(w, "gpu", s->gpu);
		jsonw_ktime(w, "start", s->t0_ns);
		jsonw_ktime(w, "end", s->t1_ns);
		jsonw_kstr(w, "state", state_name[s->state]);
		jsonw_obj_end(w);
	}
}

/*
 * Segments [i0, i1) as members of the segments array.  There are hundreds
 * of thousands on a long log, all of one shape, so each is formatted here
 * as segment_range_plain's calls would write it and handed over whole
 * (tests/unit/test_json_split.c compares the two ways byte for byte).
 * The state names are this program's own identifiers: nothing to escape.
 */
static void segment_range(struct jsonw *w, const struct report *r, size_t i0, size_t i1)
{
	size_t nin, nout, ksep = w->pretty ? 2 : 1;
	const char *in = jsonw_indent(w, w->depth + 1, &nin);	/* the members' lines */
	const char *out = jsonw_indent(w, w->depth, &nout);	/* the closing brace's */

	if (report_json_plain_segments) {
		segment_range_plain(w, r, i0, i1);
		return;
	}
	for (size_t i = i0; i < i1; i++) {
		const struct segment *s = &r->an->segs[i];
		char buf[5 * (2 * JSONW_MAX_DEPTH + 2) + 256], tb[40], num[8], *o = buf, *n = num + sizeof(num);
		unsigned g = s->gpu;

		do
			*--n = (char)('0' + g % 10);
		while (g /= 10);
		*o++ = '{';
		o = put_key(o, in, nin, "gpu", ksep);
		o = put_text(o, n, (size_t)(num + sizeof(num) - n));
		*o++ = ',';
		o = put_key(o, in, nin, "start", ksep);
		o = put_quoted(o, time_rfc3339(tb, sizeof(tb), s->t0_ns));
		*o++ = ',';
		o = put_key(o, in, nin, "end", ksep);
		o = put_quoted(o, time_rfc3339(tb, sizeof(tb), s->t1_ns));
		*o++ = ',';
		o = put_key(o, in, nin, "state", ksep);
		o = put_quoted(o, state_name[s->state]);
		o = put_text(o, out, nout);
		*o++ = '}';
		jsonw_raw_value(w, buf, (size_t)(o - buf));
	}
}

static void source(struct jsonw *w, const char *src, uint64_t line)
{
	char b[512];

	if (!src) {
		jsonw_kstr(w, "source", NULL);
		return;
	}
	snprintf(b, sizeof(b), "%s:%llu", src, (unsigned long long)line);
	jsonw_kstr(w, "source", b);
}

static const char *const severity_word[] = { "info", "warning", "error", "fatal" };

/* events[]: every event kept, in time order (report.ev_order). */
static void events(struct jsonw *w, const struct report *r)
{
	const struct analysis *an = r->an;

	jsonw_key(w, "events");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < an->nevs; i++) {
		const struct an_event *e = &an->evs[r->ev_order[i]];
		jsonw_obj_begin(w);
		if (e->unplaced) {
			jsonw_kstr(w, "time", NULL);
			jsonw_kbool(w, "unplaced", true);
		} else {
			jsonw_ktime(w, "time", e->t_ns);
		}
		if (e->gpu >= 0)
			jsonw_kint(w, "gpu", e->gpu);
		else
			jsonw_kstr(w, "gpu", NULL);
		jsonw_kstr(w, "gpu_by", e->mapped_by);
		jsonw_kstr(w, "kind", e->ev < EV__COUNT ? event_kind_name[e->ev] : NULL);
		if (e->code >= 0)
			jsonw_kint(w, "code", e->code);
		else
			jsonw_kstr(w, "code", NULL);
		jsonw_kstr(w, "class", e->klass < KC__COUNT ? kev_class_name[e->klass] : NULL);
		jsonw_kstr(w, "severity", e->severity < 4 ? severity_word[e->severity] : NULL);
		if (e->ev == EV_XID && e->code >= 0) {
			const struct xid_info *x = xid_lookup(e->code);
			jsonw_kstr(w, "meaning", x ? x->meaning : NULL);
		}
		if (e->flags & KF_DOWN)
			jsonw_kbool(w, "fatal", true);
		if (e->flags & KF_CONSEQUENCE)
			jsonw_kbool(w, "consequence", true);
		if (e->pci[0])
			jsonw_kstr(w, "pci", e->pci);
		if (e->proc[0])
			jsonw_kstr(w, "process", e->proc);
		if (e->text[0])
			jsonw_kstr(w, "detail", e->text);
		jsonw_kstr(w, "message", e->msg);
		source(w, e->src, e->line);
		if (e->count > 1)
			jsonw_kint(w, "count", e->count);
		if (e->copies) {
			char at[512];
			snprintf(at, sizeof(at), "%s:%" PRIu64, e->also[0].src, e->also[0].line);
			jsonw_kstr(w, "also_in", at);
			jsonw_kint(w, "copies", e->copies);
		}
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_kint(w, "events_total", (int64_t)r->events_total);
	jsonw_kint(w, "events_dropped", (int64_t)an->evs_dropped);
	jsonw_kint(w, "events_unplaced", (int64_t)an->unplaced_events);
	jsonw_kint(w, "events_copies", (int64_t)an->event_copies);
	jsonw_key(w, "host_events");
	jsonw_obj_begin(w);
	xid_classes(w, an->host_xid_class, NULL);
	jsonw_obj_end(w);
	jsonw_key(w, "outages");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < an->noutages; i++) {
		const struct outage *o = &an->outages[i];
		jsonw_obj_begin(w);
		jsonw_kint(w, "gpu", o->gpu);
		jsonw_ktime(w, "start", o->t0_ns);
		jsonw_ktime(w, "end", o->t1_ns);
		jsonw_knum(w, "seconds", (double)(o->t1_ns - o->t0_ns) / 1e9, 3);
		jsonw_kstr(w, "cause", o->ev >= 0 && o->ev < EV__COUNT ? event_kind_name[o->ev] : NULL);
		if (o->code >= 0)
			jsonw_kint(w, "code", o->code);
		else
			jsonw_kstr(w, "code", NULL);
		source(w, o->src, o->line);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_kint(w, "outages_dropped", (int64_t)an->outages_dropped);
}

static void power_events(struct jsonw *w, const struct report *r)
{
	const struct power_events *pw = &r->an->pw;
	double h = r->power_span_h;

	jsonw_key(w, "power_events");
	jsonw_obj_begin(w);
	jsonw_kint(w, "ac_off", (int64_t)pw->ac_off);
	jsonw_kint(w, "ac_on", (int64_t)pw->ac_on);
	jsonw_kint(w, "suspends", (int64_t)pw->suspends);
	jsonw_kint(w, "resumes", (int64_t)pw->resumes);
	jsonw_kint(w, "lid", (int64_t)pw->lid);
	jsonw_kint(w, "power_key", (int64_t)pw->power_key);
	jsonw_kint(w, "power_off", (int64_t)pw->power_off);
	jsonw_kint(w, "boots", (int64_t)pw->boots);
	jsonw_knum(w, "hours", h, 3);
	jsonw_knum(w, "ac_switches_per_hour", r->ac_switches_per_hour, 3);
	jsonw_knum(w, "suspends_per_hour", r->suspends_per_hour, 3);
	jsonw_knum(w, "gpu_lost_s", pw->gpu_lost_s, 3);
	jsonw_key(w, "suspend_spans");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < pw->nsleeps; i++) {
		jsonw_obj_begin(w);
		jsonw_ktime(w, "start", pw->sleeps[i].t0_ns);
		if (pw->sleeps[i].t1_ns)
			jsonw_ktime(w, "end", pw->sleeps[i].t1_ns);
		else
			jsonw_kstr(w, "end", NULL);
		jsonw_knum(w, "gpu_lost_s", pw->sleeps[i].gpu_lost_s, 3);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "ac_off_switches");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < pw->nac; i++) {
		if (pw->ac[i].on)
			continue;
		jsonw_obj_begin(w);
		jsonw_ktime(w, "time", pw->ac[i].t_ns);
		jsonw_knum(w, "util_before_pct", pw->ac[i].util_before, 2);
		jsonw_knum(w, "util_after_pct", pw->ac[i].util_after, 2);
		jsonw_knum(w, "gpu_lost_s", pw->ac[i].gpu_lost_s, 3);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

static void findings(struct jsonw *w, const struct report *r)
{
	jsonw_key(w, "findings");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < r->an->nfinds; i++) {
		const struct finding *f = &r->an->finds[i];
		jsonw_obj_begin(w);
		jsonw_kstr(w, "kind", f->kind);
		if (f->fk == FK_NONE)	/* a stored name this version does not know */
			jsonw_kbool(w, "kind_known", false);
		if (f->gpu >= 0)
			jsonw_kint(w, "gpu", f->gpu);
		else
			jsonw_kstr(w, "gpu", NULL);
		jsonw_ktime(w, "start", f->t0_ns);
		jsonw_ktime(w, "end", f->t1_ns);
		jsonw_kstr(w, "severity", severity_name[f->severity]);
		jsonw_knum(w, "value", f->value, 3);
		jsonw_kstr(w, "message", f->message);
		jsonw_kstr(w, "evidence", f->evidence);
		if (f->nstretch) {
			/* a summary: its totals and the longest few (the rest counted) */
			jsonw_key(w, "stretches");
			jsonw_obj_begin(w);
			jsonw_kint(w, "count", (int64_t)f->nstretch);
			jsonw_knum(w, "total_s", f->total_s, 3);
			knum_or_null(w, "energy_j", f->energy_j, 1);
			knum_or_null(w, "cost", r->finding_cost[i], 4);
			jsonw_kint(w, "after_event", (int64_t)f->nlinked);
			jsonw_key(w, "longest");
			jsonw_arr_begin(w);
			for (int k = 0; k < f->ndetail; k++) {
				const struct find_detail *d = &f->detail[k];
				jsonw_obj_begin(w);
				jsonw_ktime(w, "start", d->t0_ns);
				jsonw_ktime(w, "end", d->t1_ns);
				jsonw_knum(w, "seconds", (double)(d->t1_ns - d->t0_ns) / 1e9, 3);
				knum_or_null(w, "energy_j", d->energy_j, 1);
				jsonw_kstr(w, "after", d->cause[0] ? d->cause : NULL);
				jsonw_obj_end(w);
			}
			jsonw_arr_end(w);
			jsonw_kint(w, "longest_cut", (int64_t)(f->nstretch - f->ndetail));
			jsonw_obj_end(w);
		}
		if (isfinite(f->fit_mib0)) {
			jsonw_key(w, "fit");
			jsonw_obj_begin(w);
			jsonw_knum(w, "mib_at_start", f->fit_mib0, 1);
			jsonw_knum(w, "mib_at_end", f->fit_mib1, 1);
			if (f->full_ns)
				jsonw_ktime(w, "full_at", f->full_ns);
			else
				jsonw_kstr(w, "full_at", NULL);
			jsonw_obj_end(w);
		}
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_kint(w, "findings_dropped", (int64_t)r->an->finds_dropped);
	if (r->nfind_groups) {
		/* the text gives the first findings_in_full in full, then these:
		 * one per severity and kind, with its GPUs and sums */
		jsonw_kint(w, "findings_in_full", (int64_t)r->nfind_full);
		jsonw_key(w, "finding_groups");
		jsonw_arr_begin(w);
		for (size_t k = 0; k < r->nfind_groups; k++) {
			const struct report_find_group *g = &r->find_groups[k];
			const struct finding *f = &r->an->finds[g->first];
			const struct report_rest *rest = &r->finding_rest[g->first];
			jsonw_obj_begin(w);
			jsonw_kstr(w, "severity", severity_name[f->severity]);
			jsonw_kstr(w, "kind", f->kind);
			jsonw_kint(w, "first", (int64_t)g->first);
			jsonw_kint(w, "findings", (int64_t)rest->n);
			jsonw_key(w, "gpus");
			jsonw_arr_begin(w);
			for (size_t j = 0; j < g->ngpus && j < REPORT_GROUP_GPUS; j++)
				if (g->gpu[j] >= 0)
					jsonw_int(w, g->gpu[j]);
				else
					jsonw_null(w);
			jsonw_arr_end(w);
			jsonw_kint(w, "gpus_count", (int64_t)g->ngpus);
			jsonw_kint(w, "stretches", (int64_t)rest->stretches);
			jsonw_knum(w, "total_s", rest->total_s, 3);
			knum_or_null(w, "cost", rest->costed ? rest->cost : NAN, 4);
			jsonw_obj_end(w);
		}
		jsonw_arr_end(w);
	}
}

static void processes(struct jsonw *w, const struct report *r)
{
	const struct analysis *an = r->an;

	jsonw_key(w, "processes");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < an->nprocs; i++) {
		const struct proc_stat *p = &an->procs[i];
		const struct report_proc *rp = &r->procs[i];
		jsonw_obj_begin(w);
		jsonw_kint(w, "gpu", p->gpu);
		/* a task label (gpu_monitor.sh's TASK_ID) has no pid */
		jsonw_kstr(w, "kind", p->pid == PID_TASK ? "task" : "process");
		jsonw_key(w, "pid");
		if (p->pid == PID_TASK)
			jsonw_null(w);
		else
			jsonw_int(w, p->pid);
		jsonw_kstr(w, "name", p->name);
		jsonw_ktime(w, "first_seen", p->first_ns);
		jsonw_ktime(w, "last_seen", p->last_ns);
		jsonw_kint(w, "observations", (int64_t)p->observations);
		jsonw_knum(w, "present_s", p->present_s, 3);
		jsonw_knum(w, "busy_s", p->busy_s, 3);
		knum_or_null(w, "busy_share", rp->busy_share, 4);
		/* report --db: the minutes keep each process's share, not how it was split */
		jsonw_kstr(w, "split", p->pid == PID_TASK ? "the GPU's time, even among the tasks labelled"
				       : r->store ? "unknown (the store keeps the share, not how it was split)"
				       : p->busy_by_sm ? "per-process sm %" : "even among processes present");
		jsonw_knum(w, "energy_j", p->energy_j, 1);
		knum_or_null(w, "energy_share", rp->energy_share, 4);
		knum_or_null(w, "mem_max_mib", p->fb_max_mib, 1);
		knum_or_null(w, "sm_mean_pct", rp->sm_mean_pct, 2);
		knum_or_null(w, "cloud_cost", r->proc_cloud_cost[i], 6);
		knum_or_null(w, "local_cost", r->proc_local_cost[i], 6);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

/* Profiler traces joined to the GPUs (present only with trace inputs). */
static void traces(struct jsonw *w, const struct report *r)
{
	const struct analysis *an = r->an;

	if (!an->trace)
		return;
	jsonw_key(w, "traces");
	jsonw_obj_begin(w);
	jsonw_key(w, "joined");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < an->njoins; i++) {
		const struct trace_join *j = &an->joins[i];
		jsonw_obj_begin(w);
		jsonw_kint(w, "gpu", j->gpu);
		jsonw_kint(w, "device", j->device);
		jsonw_kstr(w, "path", j->file);
		jsonw_kstr(w, "matched_by", j->matched_by);
		jsonw_kint(w, "start_ns", j->t0_ns);
		jsonw_kint(w, "end_ns", j->t1_ns);
		jsonw_knum(w, "span_s", j->span_s, 9);
		jsonw_kint(w, "kernels", (int64_t)j->kernels);
		jsonw_knum(w, "kernel_s", j->kernel_s, 9);
		jsonw_knum(w, "active_s", j->active_s, 9);
		knum_or_null(w, "kernel_share", j->span_s > 0 ? j->kernel_s / j->span_s : NAN, 6);
		knum_or_null(w, "kernel_p50_us", j->kernels ? j->kernel_p50_ns / 1e3 : NAN, 3);
		knum_or_null(w, "gap_p50_us", j->kernels > 1 ? j->gap_p50_ns / 1e3 : NAN, 3);
		jsonw_key(w, "utilization_gpu");
		jsonw_obj_begin(w);
		knum_or_null(w, "pct", j->util_pct, 4);
		jsonw_kint(w, "window_start_ns", j->w0_ns);
		jsonw_kint(w, "window_end_ns", j->w1_ns);
		jsonw_knum(w, "bucket_s", j->bucket_s, 3);
		jsonw_knum(w, "known_s", j->util_known_s, 6);
		jsonw_knum(w, "useful_s", j->util_busy_s, 9);
		jsonw_obj_end(w);
		/* the useful-state time of the buckets, as a share of the stretch: what the kernels replace */
		jsonw_knum(w, "useful_states_s", j->useful_state_s, 9);
		jsonw_knum(w, "useful_s", j->overlaps ? j->useful_state_s : j->kernel_s, 9);
		jsonw_kstr(w, "useful_source", j->overlaps ?
			   "useful states (the stretch overlaps an earlier trace of this GPU)" : "trace kernels");
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "not_joined");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < an->nunjoined; i++) {
		jsonw_obj_begin(w);
		jsonw_kint(w, "device", an->unjoined[i].device);
		jsonw_kstr(w, "path", an->unjoined[i].file);
		jsonw_kstr(w, "why", an->unjoined[i].why);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

/* One figure of the built-in price table: value, source, date and age. */
static void price_fig(struct jsonw *w, const char *key, const struct price_fig *f, int age)
{
	jsonw_key(w, key);
	jsonw_obj_begin(w);
	jsonw_knum(w, "value", f->value, 6);
	jsonw_kstr(w, "source", f->source);
	jsonw_kstr(w, "date", f->date[0] ? f->date : NULL);
	jsonw_key(w, "age_months");
	if (age >= 0)
		jsonw_int(w, age);
	else
		jsonw_null(w);
	jsonw_obj_end(w);
}

/* cost.assumed: the built-in prices report took (docs/prices.md), else null. */
static void assumed_prices(struct jsonw *w, const struct report *r)
{
	const struct price_row *row = r->prices.row;

	jsonw_key(w, "assumed");
	if (!r->prices.used && !r->prices.unknown) {
		jsonw_null(w);
		return;
	}
	jsonw_obj_begin(w);
	jsonw_kstr(w, "gpu_name", r->prices.gpu_name);
	jsonw_kstr(w, "row", row ? row->model : NULL);
	jsonw_kbool(w, "known", row != NULL);
	jsonw_kbool(w, "older_than_a_year", r->prices.old);
	if (row) {
		price_fig(w, "hardware_price", &row->purchase, r->prices.age_purchase);
		price_fig(w, "board_power_w", &row->power, -1);
		price_fig(w, "cloud_hourly_rate", &row->cloud, r->prices.age_cloud);
		price_fig(w, "electricity_price", &r->prices.table->electricity, r->prices.age_electricity);
		price_fig(w, "grid_gco2_per_kwh", &r->prices.table->grid, r->prices.age_grid);
	}
	jsonw_obj_end(w);
}

/* cost.catalog: the --cloud-catalog file and the rate it gave, else null. */
static void catalog(struct jsonw *w, const struct report *r)
{
	const struct cloud_catalog *c = r->catalog;

	jsonw_key(w, "catalog");
	if (!c) {
		jsonw_null(w);
		return;
	}
	catalog_json_file(w, c);
	jsonw_kstr(w, "gpu_name", r->prices.gpu_name);
	catalog_json_pick(w, &r->cat.pick, r->cat.pick.nrows > 0);
	jsonw_kbool(w, "used", r->cat.used);
	jsonw_knum(w, "age_months", r->cat.age_months >= 0 ? r->cat.age_months : NAN, 0);
	jsonw_kbool(w, "older_than_a_year", r->cat.old);
	jsonw_obj_end(w);
}

static void cost(struct jsonw *w, const struct report *r)
{
	const struct cost_params *p = &r->params;

	jsonw_key(w, "cost");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "profile", p->name[0] ? p->name : NULL);
	jsonw_kstr(w, "currency", p->currency[0] ? p->currency : NULL);
	jsonw_key(w, "params");
	jsonw_obj_begin(w);
	for (size_t i = 0; i < COST_NPARAMS; i++) {
		jsonw_key(w, cost_param_info(i)->key);
		jsonw_obj_begin(w);
		jsonw_knum(w, "value", cost_param_get(p, i), 6);
		jsonw_kstr(w, "origin", cost_origin_name(p->origin[i]));
		jsonw_obj_end(w);
	}
	jsonw_obj_end(w);
	assumed_prices(w, r);
	catalog(w, r);

	jsonw_key(w, "window");
	jsonw_obj_begin(w);
	jsonw_knum(w, "covered_h", r->covered_h, 6);
	jsonw_knum(w, "busy_h", r->busy_h, 6);
	if (r->an->trace) {
		jsonw_key(w, "busy_sources");
		jsonw_obj_begin(w);
		jsonw_knum(w, "utilization_gpu_h", r->util_busy_h, 9);
		jsonw_knum(w, "useful_states_h", r->busy_h - r->trace_in_h + r->trace_out_h, 9);
		jsonw_knum(w, "trace_replaced_h", r->trace_out_h, 9);
		jsonw_knum(w, "trace_kernels_h", r->trace_in_h, 9);
		jsonw_obj_end(w);
	}
	jsonw_knum(w, "gaps_h", r->gaps_h, 6);
	jsonw_knum(w, "energy_j", r->energy_j, 1);
	jsonw_kstr(w, "energy_source", r->energy_source);
	jsonw_knum(w, "co2e_kg", r->co2e_kg, 6);
	jsonw_kint(w, "jobs", (int64_t)r->njobs);
	jsonw_kstr(w, "jobs_from", r->jobs_from_processes ? "processes"
				       : r->jobs_from_tasks ? "task labels" : "gpus");
	jsonw_knum(w, "local_cost", r->win.local_cost, 6);
	jsonw_knum(w, "local_fixed", r->win.local_fixed, 6);
	jsonw_knum(w, "local_energy", r->win.local_energy, 6);
	jsonw_knum(w, "local_cooling", r->win.local_cooling, 6);
	jsonw_knum(w, "local_jobs", r->win.local_jobs, 6);
	jsonw_knum(w, "cloud_cost", r->win.cloud_cost, 6);
	jsonw_knum(w, "cloud_hours_cost", r->cloud_hours_cost, 6);
	jsonw_knum(w, "cloud_job_charges", r->cloud_job_charges, 6);
	jsonw_knum(w, "premium_pct", r->win.premium_pct, 2);
	jsonw_knum(w, "u_obs", r->busy_unknown ? NAN : r->win.u_obs, 6);	/* null: no utilization read */
	/* mean utilization.gpu over the time it was read: not the busy figure */
	jsonw_knum(w, "mean_utilization_pct", r->util_mean_pct, 2);
	jsonw_knum(w, "local_cost_per_useful_hour", r->c_local_obs, 6);
	jsonw_obj_end(w);

	jsonw_key(w, "local");
	jsonw_obj_begin(w);
	jsonw_knum(w, "fixed_per_year", r->lr.F, 6);
	jsonw_knum(w, "hours_per_year", r->lr.H, 6);
	jsonw_knum(w, "energy_cost_per_wh", r->lr.k, 9);
	jsonw_obj_end(w);
	jsonw_key(w, "cloud");
	jsonw_obj_begin(w);
	jsonw_knum(w, "cost_per_useful_hour", r->lr.c_cloud, 6);
	jsonw_obj_end(w);
	jsonw_key(w, "break_even");
	jsonw_obj_begin(w);
	jsonw_knum(w, "utilization", r->lr.u_star, 6);
	jsonw_kstr(w, "status", cost_status_name(r->lr.status));
	jsonw_knum(w, "useful_hours_per_month", r->lr.useful_hours_per_month, 3);
	jsonw_obj_end(w);
	jsonw_key(w, "job_break_even");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "status", cost_status_name(r->job.status));
	jsonw_knum(w, "hours", r->job.hours, 6);
	jsonw_obj_end(w);
	jsonw_key(w, "sensitivity");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < r->nsens; i++) {
		const struct cost_sens *s = &r->sens[i];
		jsonw_obj_begin(w);
		jsonw_kstr(w, "param", s->param);
		jsonw_knum(w, "low_value", s->low_value, 6);
		jsonw_knum(w, "high_value", s->high_value, 6);
		jsonw_knum(w, "u_low", s->u_low, 6);
		jsonw_knum(w, "u_high", s->u_high, 6);
		jsonw_knum(w, "swing", s->swing, 6);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "waterfall");
	jsonw_arr_begin(w);
	for (int s = 0; s < ST__COUNT; s++) {
		if (s == ST_GAP)
			continue;
		jsonw_obj_begin(w);
		jsonw_kstr(w, "state", state_name[s]);
		jsonw_kbool(w, "useful", state_is_useful(s));
		jsonw_knum(w, "seconds", r->state_s[s], 3);
		jsonw_knum(w, "cost", r->state_cost[s], 6);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_knum(w, "useful_cost", r->useful_cost, 6);
	/* the waterfall's useful total: the headline's busy (docs/states.md "Busy") */
	jsonw_key(w, "waterfall_useful");
	jsonw_obj_begin(w);
	jsonw_knum(w, "states_s", r->useful_states_s, 6);
	jsonw_knum(w, "trace_replaced_s", r->trace_out_h * 3600, 6);
	jsonw_knum(w, "trace_kernels_s", r->trace_in_h * 3600, 6);
	jsonw_knum(w, "trace_net_s", r->trace_net_s, 6);
	jsonw_knum(w, "trace_net_cost", r->trace_net_cost, 6);
	jsonw_knum(w, "seconds", r->useful_total_s, 6);
	knum_or_null(w, "share", r->useful_total_share, 6);
	jsonw_knum(w, "cost", r->useful_total_cost, 6);
	jsonw_obj_end(w);
	/* the part of the down line that fatal kernel events explain */
	jsonw_key(w, "outage");
	jsonw_obj_begin(w);
	jsonw_knum(w, "seconds", r->outage_s, 3);
	jsonw_knum(w, "gpu_hours", r->outage_s / 3600, 6);
	jsonw_knum(w, "cost_per_gpu_hour", r->cost_per_gpu_hour, 6);
	jsonw_knum(w, "cost", r->outage_cost, 6);
	jsonw_obj_end(w);
	jsonw_kstr(w, "verdict", r->verdict);
	jsonw_obj_end(w);
}

/* days: per UTC day and GPU, covered and useful seconds and the owned cost (report.h). */
static void days(struct jsonw *w, const struct report *r)
{
	size_t ng = (size_t)r->an->tl.ngpus;

	jsonw_key(w, "days");
	jsonw_arr_begin(w);
	for (size_t d = 0; d < r->ndays; d++) {
		char date[16];
		int y, m, dd;
		civil_from_days(r->day_first + (int64_t)d, &y, &m, &dd);
		snprintf(date, sizeof(date), "%04d-%02d-%02d", y, m, dd);
		jsonw_obj_begin(w);
		jsonw_kstr(w, "date", date);
		jsonw_key(w, "gpus");
		jsonw_arr_begin(w);
		for (size_t g = 0; g < ng; g++) {
			jsonw_obj_begin(w);
			jsonw_kint(w, "gpu", (int64_t)g);
			jsonw_knum(w, "covered_s", r->day_covered_s[d * ng + g], 3);
			jsonw_knum(w, "useful_s", r->day_useful_s[d * ng + g], 3);
			jsonw_knum(w, "cost", r->day_cost[d * ng + g], 6);
			if (g < r->nhour_gpus) {
				const double *hc = r->hour_covered_s + (g * r->ndays + d) * 24;
				const double *hu = r->hour_useful_s + (g * r->ndays + d) * 24;
				jsonw_key(w, "hours_covered_s");
				jsonw_arr_begin(w);
				for (int hr = 0; hr < 24; hr++)
					jsonw_num(w, hc[hr], 3);
				jsonw_arr_end(w);
				jsonw_key(w, "hours_useful_s");
				jsonw_arr_begin(w);
				for (int hr = 0; hr < 24; hr++)
					jsonw_num(w, hu[hr], 3);
				jsonw_arr_end(w);
			}
			jsonw_obj_end(w);
		}
		jsonw_arr_end(w);
		if (r->dayt_u) {
			jsonw_knum(w, "covered_s", r->dayt_covered_s[d], 3);
			jsonw_knum(w, "useful_s", r->dayt_useful_s[d], 3);
			jsonw_knum(w, "useful_share", r->dayt_u[d], 6);
			jsonw_knum(w, "cost", r->dayt_cost[d], 6);
			jsonw_knum(w, "rent_cost", r->dayt_rent[d], 6);
			jsonw_knum(w, "own_minus_rent_to_date", r->dayt_gap_cum[d], 6);
			jsonw_kbool(w, "at_break_even", r->dayt_at_ustar[d]);
		}
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

/* What follows the segments: bounded by the caps on findings and events. */
static void tail_members(struct jsonw *w, const struct report *r)
{
	findings(w, r);
	events(w, r);
	power_events(w, r);
	processes(w, r);
	report_attrib_json(w, r);
	traces(w, r);
	cost(w, r);
	days(w, r);
	report_fleet_json(w, r);
}

/*
 * A report with many segments is written by two threads: this one and one
 * worker of a util/workpool.c pool (the read path's pool code, not a thread
 * of its own; the read path's pool has ended by the time a report is
 * written, so the writer starts a pool of one for the write).  This one writes
 * everything up to the segments to `out`, then the segments from the first
 * block on; the other writes what follows the segments into memory (a few
 * MB at most: findings and events are capped), then blocks of segments from
 * the last one back, each into memory, until the two meet.  This one then
 * splices the other's blocks and the rest in order.  The bytes are the same
 * either way (tests/unit/test_json_split.c).
 */
#define SEG_BLOCK 512

struct piece {
	char *text;
	size_t n;
	bool ok;
};

struct split {
	struct wp_job job;	/* the other's work, on the pool (util/workpool.h) */
	const struct report *r;
	pthread_mutex_t mu;
	size_t lo, hi;		/* blocks [0, lo) are this thread's, [hi, nblk) the other's */
	struct piece tail;
	struct piece *blk;	/* the other's blocks, by block */
};

/* Render into memory what fn writes as members at depth. */
static void render_piece(struct piece *p, int depth, const struct report *r,
			 void (*fn)(struct jsonw *, const struct report *, size_t), size_t arg)
{
	FILE *f = open_memstream(&p->text, &p->n);
	struct jsonw *w;

	if (!f)
		return;
	w = malloc(sizeof(*w));
	if (w) {
		jsonw_init_members(w, f, true, depth);
		fn(w, r, arg);
		jsonw_flush(w);
		free(w);
	}
	p->ok = w && !ferror(f);
	if (fclose(f))
		p->ok = false;
}

static void block(struct jsonw *w, const struct report *r, size_t b)
{
	size_t i0 = b * SEG_BLOCK, i1 = i0 + SEG_BLOCK;

	segment_range(w, r, i0, i1 < r->an->nsegs ? i1 : r->an->nsegs);
}

static void tail_piece(struct jsonw *w, const struct report *r, size_t unused)
{
	(void)unused;
	tail_members(w, r);
}

static void split_job(struct wp_job *j)
{
	struct split *sp = (struct split *)j;

	render_piece(&sp->tail, 1, sp->r, tail_piece, 0);
	for (;;) {
		size_t b;
		pthread_mutex_lock(&sp->mu);
		b = sp->hi > sp->lo ? --sp->hi : SIZE_MAX;
		pthread_mutex_unlock(&sp->mu);
		if (b == SIZE_MAX)
			return;
		render_piece(&sp->blk[b], 2, sp->r, block, b);
	}
}

/* This thread's blocks, from the first on, until it meets the other's. */
static void front_blocks(struct jsonw *w, struct split *sp)
{
	for (;;) {
		size_t b;
		pthread_mutex_lock(&sp->mu);
		b = sp->lo < sp->hi ? sp->lo++ : SIZE_MAX;
		pthread_mutex_unlock(&sp->mu);
		if (b == SIZE_MAX)
			return;
		block(w, sp->r, b);
	}
}

/* What the other thread rendered, or, where it could not, the same here. */
static void take_piece(struct jsonw *w, struct piece *p, const struct report *r,
		       void (*fn)(struct jsonw *, const struct report *, size_t), size_t arg)
{
	if (p->ok)
		jsonw_splice(w, p->text, p->n);
	else
		fn(w, r, arg);
	free(p->text);
}

size_t report_json_split_min = 4096;

static void segments_and_rest(struct jsonw *w, const struct report *r)
{
	size_t nsegs = r->an->nsegs, nblk = (nsegs + SEG_BLOCK - 1) / SEG_BLOCK;
	struct split sp = { .job.run = split_job, .r = r, .lo = 1, .hi = nblk };
	struct workpool pool;
	bool split = false;

	jsonw_key(w, "segments");
	jsonw_arr_begin(w);
	if (nsegs >= report_json_split_min && nsegs > 0) {
		sp.blk = calloc(nblk, sizeof(*sp.blk));
		split = sp.blk && !pthread_mutex_init(&sp.mu, NULL);
	}
	if (split) {
		/* one worker of the read path's pool; where none starts, the
		 * wait below runs the job here, after the front blocks */
		workpool_init(&pool, 1, "gputally-json");
		workpool_push(&pool, &sp.job);
		/* block 0 is this thread's, so the array has its first member here */
		block(w, r, 0);
		front_blocks(w, &sp);
		workpool_wait(&pool, &sp.job);
		workpool_release(&pool);
		pthread_mutex_destroy(&sp.mu);
		for (size_t b = sp.lo; b < nblk; b++)
			take_piece(w, &sp.blk[b], r, block, b);
	} else {
		segment_range(w, r, 0, nsegs);
	}
	free(sp.blk);
	jsonw_arr_end(w);
	jsonw_kint(w, "segments_dropped", (int64_t)r->an->segs_dropped);
	if (split)
		take_piece(w, &sp.tail, r, tail_piece, 0);
	else
		tail_members(w, r);
}

void report_json(FILE *out, const struct report *r)
{
	struct jsonw w;

	jsonw_init(&w, out, true);
	jsonw_obj_begin(&w);
	jsonw_kint(&w, "schema", 1);
	jsonw_version(&w);
	jsonw_kstr(&w, "tz", r->tz);
	jsonw_kstr(&w, "zone_assumed", r->zone_assumed);
	jsonw_kint(&w, "file_time_inputs", (int64_t)r->file_time_inputs);
	if (r->now_ns)
		jsonw_ktime(&w, "generated_at", r->now_ns);
	if (r->t0_ns != INT64_MAX) {
		jsonw_ktime(&w, "start", r->t0_ns);
		jsonw_ktime(&w, "end", r->t1_ns);
	}
	inputs(&w, r);
	jsonw_kint(&w, "skipped_lines", (int64_t)r->bad_total);
	jsonw_kint(&w, "records_without_gpu", (int64_t)r->an->tl.dropped_no_gpu);
	jsonw_kint(&w, "records_beyond_gpu_cap", (int64_t)r->an->tl.dropped_too_many);
	jsonw_key(&w, "skipped");
	jsonw_arr_begin(&w);
	for (size_t i = 0; i < r->nbad; i++) {
		jsonw_obj_begin(&w);
		jsonw_kstr(&w, "path", r->bad[i].path);
		jsonw_kint(&w, "line", (int64_t)r->bad[i].line);
		jsonw_kint(&w, "col", r->bad[i].col);
		jsonw_kstr(&w, "reason", r->bad[i].msg);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	if (r->nbad_groups) {
		/* the kept lines by file and reason, as the text, Markdown and HTML list them */
		jsonw_key(&w, "skipped_groups");
		jsonw_arr_begin(&w);
		for (size_t g = 0; g < r->nbad_groups; g++) {
			const struct bad_line *b = &r->bad[r->bad_groups[g].first];
			jsonw_obj_begin(&w);
			jsonw_kstr(&w, "path", b->path);
			jsonw_kint(&w, "line", (int64_t)b->line);
			jsonw_kint(&w, "col", b->col);
			jsonw_kstr(&w, "reason", b->msg);
			jsonw_kint(&w, "lines", (int64_t)r->bad_groups[g].n);
			jsonw_obj_end(&w);
		}
		jsonw_arr_end(&w);
	}
	gpus(&w, r);
	segments_and_rest(&w, r);
	jsonw_obj_end(&w);
}
