/* SPDX-License-Identifier: MIT */
/*
 * The Markdown rendering of a report, for tickets and pull requests:
 * GitHub-flavoured tables, no HTML.  Numbers are the JSON's (struct report),
 * rounded for reading.  Text from logs is escaped so that a process named
 * `<script>` or `a|b` shows as itself and never breaks a table.
 */
#include "report/report.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "util/numfmt.h"
#include "util/timeutil.h"

#define MD_FINDINGS 60
#define MD_PROCS 60
#define MD_BAD 20	/* skipped-line groups listed, as the text */

/* Backslash-escape Markdown punctuation (CommonMark: any ASCII punctuation may be). */
static void md(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		if (strchr("\\`*_{}[]()<>#+!|~&", *s))
			fputc('\\', out);
		fputc((unsigned char)*s < 0x20 ? ' ' : *s, out);
	}
}

#define num nf_num

static const char *money(char *buf, size_t cap, const struct report *r, double v)
{
	return nf_money(buf, cap, v, r->params.currency);
}

static void gpu_label(FILE *out, const struct analysis *an, int gi)
{
	const struct gpu_ident *id = &an->tl.gpus[gi].id;
	char b[160];
	if (id->index >= 0)
		snprintf(b, sizeof(b), "GPU %d%s%s", id->index, id->name[0] ? " " : "", id->name);
	else
		snprintf(b, sizeof(b), "GPU ?%s%s", id->name[0] ? " " : "", id->name[0] ? id->name : id->uuid);
	md(out, b);
}

static void summary(FILE *out, const struct report *r)
{
	char a[64], b[64], c[64];

	fprintf(out, "# gputally report\n\n");
	if (r->t0_ns == INT64_MAX) {
		fprintf(out, "No GPU samples in %zu input(s).\n", r->inputs->nr);
		return;
	}
	fprintf(out, "| | |\n|---|---|\n");
	fprintf(out, "| Window | %s to %s (UTC) |\n", time_rfc3339(a, sizeof(a), r->t0_ns), time_rfc3339(b, sizeof(b), r->t1_ns));
	if (r->zone_assumed) {
		fprintf(out, "| Zone | %zu input(s) whose stamps carry no zone were read in ", r->zone_assumed_inputs);
		md(out, r->zone_assumed);
		fprintf(out, ": no zoned evidence set their zone, so it is assumed (--tz sets it) |\n");
	}
	if (r->file_time_inputs)
		fprintf(out, "| File time | %zu input(s) with no time or no date in them were placed by their file "
			"modification times, an assumption a copy moves (--start, --date set it) |\n", r->file_time_inputs);
	fprintf(out, "| GPUs | %d |\n", r->an->tl.ngpus);
	fprintf(out, "| Covered | %s GPU-hours, %s h in gaps (not counted as idle) |\n", num(a, sizeof(a), r->covered_h, 3),
		num(b, sizeof(b), r->gaps_h, 3));
	if (r->busy_unknown)
		fprintf(out, "| Useful share | unknown: no utilization reading |\n");
	else
		fprintf(out, "| Useful share | %s %% busy (%s busy GPU-hours); mean utilization %s %% |\n",
			num(a, sizeof(a), 100 * r->win.u_obs, 1), num(b, sizeof(b), r->busy_h, 3),
			num(c, sizeof(c), r->util_mean_pct, 1));
	fprintf(out, "| Energy | %s kWh (%s)", num(a, sizeof(a), r->energy_j / 3.6e6, 3), r->energy_source);
	if (!isnan(r->co2e_kg))
		fprintf(out, ", %s kg CO2e at %s g/kWh", num(b, sizeof(b), r->co2e_kg, nf_money_decimals(r->co2e_kg)),
			num(c, sizeof(c), r->params.grid_gco2_per_kwh, 0));
	fprintf(out, " |\n");
	if (r->prices.unknown) {
		fprintf(out, "| Prices | ");
		if (r->prices.gpu_name[0]) {
			md(out, r->prices.gpu_name);
			fprintf(out, " is not in the built-in price table (docs/prices.md)");
		} else {
			fprintf(out, "the logs do not name the GPU model, so no price can be assumed (docs/prices.md)");
		}
		fprintf(out, ": set hardware\\_price, cloud\\_hourly\\_rate and electricity\\_price |\n");
	} else if (r->prices.yours) {
		fprintf(out, "| Prices | yours (--set), none assumed: %s |\n", r->prices.gpu_name[0] ?
			"the GPU model is not in the built-in price table (docs/prices.md)" : "the logs do not name the GPU model");
	} else if (r->prices.used) {
		fprintf(out, "| Prices | **assumed**, not yours: row ");
		md(out, r->prices.row->model);
		fprintf(out, " of docs/prices.md%s; give yours with --profile or --set |\n",
			r->prices.old ? " (some figures more than a year old)" : "");
	}
	if (r->catalog && r->cat.pick.nrows) {
		fprintf(out, "| Cloud rate | %s%s per GPU-hour, the median of %zu ", r->cat.used ? "" : "not used (--set): ",
			money(a, sizeof(a), r, r->cat.pick.median), r->cat.pick.nrows);
		md(out, r->cat.pick.accel);
		fprintf(out, " rows of ");
		md(out, r->catalog->name);
		fprintf(out, " (%s)%s |\n", r->catalog->date, r->cat.old ? ", more than a year old" : "");
	} else if (r->catalog) {
		fprintf(out, "| Cloud rate | ");
		md(out, r->catalog->name);
		fprintf(out, " has no accelerator matching the GPU |\n");
	}
	if (r->has_prices)
		fprintf(out, "| Cost | %s to own, %s to rent the same useful work |\n",
			money(a, sizeof(a), r, r->win.local_cost), money(b, sizeof(b), r, r->win.cloud_cost));
	else
		fprintf(out, "| Cost | no prices given (--profile NAME or --set KEY=VALUE) |\n");
	fprintf(out, "\n**Verdict%s:** ", r->prices.used ? " (assumed prices)" : "");
	md(out, r->verdict);
	fprintf(out, "\n");
	(void)c;
}

static void inputs(FILE *out, const struct report *r)
{
	fprintf(out, "\n## Inputs\n\n| file | format | lines | records | skipped | time basis |\n"
		"|---|---|--:|--:|--:|---|\n");
	for (size_t i = 0; i < r->inputs->nr; i++) {
		const struct input_stat *in = &r->inputs->inputs[i];
		fprintf(out, "| ");
		md(out, in->path);
		fprintf(out, " | %s | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | ", in->format ? in->format->id : "not read",
			in->lines, in->records, in->bad);
		md(out, in->time_basis ? in->time_basis : in->skip_reason[0] ? in->skip_reason : "no timed records");
		fprintf(out, " |\n");
	}
}

static void gpus(FILE *out, const struct report *r)
{
	const struct analysis *an = r->an;
	char a[32], b[32], c[32], d[32], e[32], f[32], g2[32], t[32], m[32];

	fprintf(out, "\n## GPUs\n\n| GPU | covered h | gaps h | useful h | util mean %% | energy kWh | power mean W | "
		"power max W | temp max C | memory max MiB |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
	for (int i = 0; i < an->tl.ngpus; i++) {
		const struct gpu_stats *g = &an->gpus[i];
		const struct report_gpu *rg = &r->gpus[i];
		fprintf(out, "| ");
		gpu_label(out, an, i);
		fprintf(out, " | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", num(a, sizeof(a), g->covered_s / 3600, 3),
			num(b, sizeof(b), g->gaps_s / 3600, 3), num(c, sizeof(c), rg->useful_s / 3600, 3),
			num(d, sizeof(d), rg->util_mean_pct, 1), num(e, sizeof(e), rg->energy_j / 3.6e6, 3),
			num(f, sizeof(f), rg->power_mean_w, 0), num(g2, sizeof(g2), rg->power_max_w, 0),
			num(t, sizeof(t), rg->temp_max_c, 0), num(m, sizeof(m), rg->mem_max_mib, 0));
	}
}

#define MD_DAYS 62

/* The month at a glance (report/month.c): per UTC day, the useful share of all GPUs, owned, rented, their running difference. */
static void by_day(FILE *out, const struct report *r)
{
	bool rent = r->has_prices && r->params.cloud_hourly_rate > 0;
	char a[32], b[64], c[64], e[64];

	if (r->ndays < 2 || !r->dayt_u)
		return;
	fprintf(out, "\n## By day (UTC)\n\n| day | useful %% | owned | rented | owned - rented, summed |\n|---|--:|--:|--:|--:|\n");
	for (size_t d = 0; d < r->ndays && d < MD_DAYS; d++) {
		int y, m, dd;
		civil_from_days(r->day_first + (int64_t)d, &y, &m, &dd);
		fprintf(out, "| %04d-%02d-%02d | %s | %s | %s | %s |\n", y, m, dd, num(a, sizeof(a), 100 * r->dayt_u[d], 1),
			r->has_prices ? money(b, sizeof(b), r, r->dayt_cost[d]) : "-",
			rent ? money(c, sizeof(c), r, r->dayt_rent[d]) : "-",
			rent ? money(e, sizeof(e), r, r->dayt_gap_cum[d]) : "-");
	}
	if (r->ndays > MD_DAYS)
		fprintf(out, "\n%zu more days in --json.\n", r->ndays - MD_DAYS);
	if (rent && r->lr.status != COST_NEVER && isfinite(r->lr.u_star))
		fprintf(out, "\nBreak-even utilization %s %%: %zu of %zu days at or above it.\n",
			num(a, sizeof(a), 100 * r->lr.u_star, 1), r->days_at_ustar, r->ndays);
}

static void states(FILE *out, const struct report *r)
{
	char a[32], b[32], c[64];

	fprintf(out, "\n## Where the GPU time went\n\nAll GPUs; cost is the window's owned cost split by time.\n\n"
		"| state | meaning | hours | share | cost |\n|---|---|--:|--:|--:|\n");
	for (int s = 0; s < ST__COUNT; s++) {
		if (r->state_s[s] <= 0)
			continue;
		fprintf(out, "| %s | %s | %s | %s%s | %s |\n", state_name[s], state_label[s],
			num(a, sizeof(a), r->state_s[s] / 3600, 3),
			s == ST_GAP ? "-" : num(b, sizeof(b), 100 * r->state_share[s], 1), s == ST_GAP ? "" : " %",
			s == ST_GAP || !r->has_prices ? "-" : money(c, sizeof(c), r, r->state_cost[s]));
	}
	if (r->trace_in_h > 0 || r->trace_out_h > 0) {
		/* joined traces' kernels replace the useful states' time there */
		snprintf(b, sizeof(b), "%+.1f", 100 * r->trace_net_share);
		fprintf(out, "| trace_kernels | joined traces, net | %+.6f | %s %% | %s |\n", r->trace_net_s / 3600, b,
			!r->has_prices ? "-" : money(c, sizeof(c), r, r->trace_net_cost));
		fprintf(out, "| **useful in all** | = headline's busy | %s | %s %% | %s |\n",
			num(a, sizeof(a), r->useful_total_s / 3600, 3), num(b, sizeof(b), 100 * r->useful_total_share, 1),
			!r->has_prices ? "-" : money(c, sizeof(c), r, r->useful_total_cost));
	}
	if (r->has_prices)
		fprintf(out, "\nUseful cost (the busy states): %s of %s owned.\n", money(a, sizeof(a), r, r->useful_cost),
			money(c, sizeof(c), r, r->win.local_cost));
}

static void cost(FILE *out, const struct report *r)
{
	char a[64], b[64], c[64], d[64], e[64];

	fprintf(out, "\n## Cost\n\n");
	if (!r->has_prices) {
		fprintf(out, "No prices given: name a profile (--profile NAME) or set prices (--set KEY=VALUE).\n");
		return;
	}
	fprintf(out, "- Owned cost of the window: %s = fixed %s + energy %s + cooling %s + per job %s\n",
		money(a, sizeof(a), r, r->win.local_cost), money(b, sizeof(b), r, r->win.local_fixed),
		money(c, sizeof(c), r, r->win.local_energy), money(d, sizeof(d), r, r->win.local_cooling),
		money(e, sizeof(e), r, r->win.local_jobs));
	fprintf(out, "- Renting the same useful work: %s for %zu job(s) (%s)\n", money(a, sizeof(a), r, r->win.cloud_cost),
		r->njobs, r->jobs_from_processes ? "one per process"
			: r->jobs_from_tasks ? "one per task label" : "one per GPU");
	fprintf(out, "- Owned per useful hour at the observed %s %%: %s; cloud per useful hour: %s\n",
		num(a, sizeof(a), 100 * r->win.u_obs, 2), money(b, sizeof(b), r, r->c_local_obs),
		money(c, sizeof(c), r, r->lr.c_cloud));
	fprintf(out, "- Break-even utilization: %s%s (%s)\n", r->lr.status == COST_NEVER ? "none" :
		num(a, sizeof(a), 100 * r->lr.u_star, 1), r->lr.status == COST_NEVER ? "" : " %",
		cost_status_name(r->lr.status));
	if (!r->nsens)
		return;
	fprintf(out, "\n### Sensitivity of the break-even (x0.8 / x1.2)\n\n| parameter | x0.8 | x1.2 | swing |\n"
		"|---|--:|--:|--:|\n");
	for (size_t i = 0; i < r->nsens; i++)
		fprintf(out, "| %s | %s %% | %s %% | %s points |\n", r->sens[i].param,
			num(a, sizeof(a), 100 * r->sens[i].u_low, 1), num(b, sizeof(b), 100 * r->sens[i].u_high, 1),
			num(c, sizeof(c), 100 * r->sens[i].swing, 1));
}

static void processes(FILE *out, const struct report *r)
{
	const struct analysis *an = r->an;
	char gn[16];
	char a[32], b[32], c[32], d[64], e[64];

	if (!an->nprocs)
		return;
	fprintf(out, "\n## Processes\n\n| GPU | pid | name | present s | busy s | energy kWh | owned share | rented |\n"
		"|--:|--:|---|--:|--:|--:|--:|--:|\n");
	for (size_t i = 0; i < an->nprocs && i < MD_PROCS; i++) {
		const struct proc_stat *p = &an->procs[i];
		if (p->pid == PID_TASK)	/* a task label (gpu_monitor.sh's TASK_ID) */
			fprintf(out, "| %s | task | ", analysis_gpu_num(an, p->gpu, gn, sizeof(gn)));
		else
			fprintf(out, "| %s | %" PRId64 " | ", analysis_gpu_num(an, p->gpu, gn, sizeof(gn)), p->pid);
		md(out, p->name[0] ? p->name : "-");
		fprintf(out, " | %s | %s | %s | %s | %s |\n", num(a, sizeof(a), p->present_s, 1), num(b, sizeof(b), p->busy_s, 1),
			num(c, sizeof(c), p->energy_j / 3.6e6, 4), money(d, sizeof(d), r, r->proc_local_cost[i]),
			money(e, sizeof(e), r, r->proc_cloud_cost[i]));
	}
	if (an->nprocs > MD_PROCS)
		fprintf(out, "\n%zu more in --json.\n", an->nprocs - MD_PROCS);
}

static void findings(FILE *out, const struct report *r)
{
	const struct analysis *an = r->an;
	char a[48], b[48];
	size_t shown = 0;

	fprintf(out, "\n## Findings (%zu)\n\n", an->nfinds + (size_t)an->finds_dropped);
	if (!an->nfinds) {
		fprintf(out, "None.\n");
		return;
	}
	fprintf(out, "| severity | kind | GPU | from | to | what | evidence |\n|---|---|--:|---|---|---|---|\n");
	/* the analysis' one order: severity, the kinds that always appear, cost */
	for (size_t i = 0; i < an->nfinds && shown < MD_FINDINGS; i++) {
		const struct finding *f = &an->finds[i];
		const struct gpu_ident *id = f->gpu >= 0 ? &an->tl.gpus[f->gpu].id : NULL;
		fprintf(out, "| %s | ", severity_name[f->severity]);
		md(out, f->kind);
		if (f->fk == FK_NONE)
			fprintf(out, " (a kind this version does not know)");
		if (id && id->index >= 0)
			fprintf(out, " | %d | ", id->index);
		else if (id)
			fprintf(out, " | ? | ");
		else
			fprintf(out, " | - | ");
		fprintf(out, "%s | %s | ", time_rfc3339(a, sizeof(a), f->t0_ns), time_rfc3339(b, sizeof(b), f->t1_ns));
		md(out, f->message);
		fprintf(out, " | ");
		md(out, f->evidence);
		fprintf(out, " |\n");
		shown++;
	}
	if (an->nfinds > shown || an->finds_dropped)
		fprintf(out, "\n%zu more in --json.\n", an->nfinds - shown + (size_t)an->finds_dropped);
}

/* The skipped lines by file and reason (report_compute's bad_groups), as the text lists them. */
static void skipped(FILE *out, const struct report *r)
{
	if (!r->bad_total)
		return;
	fprintf(out, "\n%" PRIu64 " input line(s) skipped; by file and reason (--json lists every line):\n\n",
		r->bad_total);
	for (size_t g = 0; g < r->nbad_groups && g < MD_BAD; g++) {
		const struct bad_line *b = &r->bad[r->bad_groups[g].first];
		fprintf(out, "- `%s:%" PRIu64 ":%u`: ", b->path, b->line, b->col);
		md(out, b->msg);
		if (r->bad_groups[g].n > 1)
			fprintf(out, " (%" PRIu64 " lines, the first at line %" PRIu64 ")", r->bad_groups[g].n, b->line);
		fputc('\n', out);
	}
	if (r->nbad_groups > MD_BAD)
		fprintf(out, "- ... %zu more reasons in --json\n", r->nbad_groups - MD_BAD);
	if (r->bad_total > r->nbad)
		fprintf(out, "- ... %" PRIu64 " more lines not kept (the first %zu are)\n", r->bad_total - r->nbad, r->nbad);
}

/* Outages after fatal events and the events themselves (the JSON's outages[], events[]). */
static void events(FILE *out, const struct report *r)
{
	const struct analysis *an = r->an;
	char gn[16];
	char a[48], b[48], name[48], c[64];
	size_t shown = 0;

	if (an->noutages) {
		fprintf(out, "\n## Outages\n\nA fatal event to the GPU's next healthy sample, or to the end of the data: "
			"%.4g GPU-hours, %s at the window's local cost per covered GPU-hour.\n\n"
			"| GPU | from | to | seconds | after | source |\n|--:|---|---|--:|---|---|\n",
			r->outage_s / 3600, money(c, sizeof(c), r, r->outage_cost));
		for (size_t i = 0; i < an->noutages && i < MD_FINDINGS; i++) {
			const struct outage *o = &an->outages[i];
			analysis_event_name(name, sizeof(name), o->ev, o->code);
			fprintf(out, "| %d | %s | %s | %.1f | %s | ", o->gpu, time_rfc3339(a, sizeof(a), o->t0_ns),
				time_rfc3339(b, sizeof(b), o->t1_ns), (double)(o->t1_ns - o->t0_ns) / 1e9, name);
			md(out, o->src ? o->src : "?");
			fprintf(out, ":%" PRIu64 " |\n", o->line);
		}
	}
	if (!an->nevs)
		return;
	fprintf(out, "\n## Events (%" PRIu64 ")\n\n| time | GPU | event | class | count | message | source |\n"
		"|---|--:|---|---|--:|---|---|\n", r->events_total);
	for (size_t i = 0; i < an->nevs && shown < MD_FINDINGS; i++, shown++) {
		const struct an_event *e = &an->evs[r->ev_order[i]];
		analysis_event_name(name, sizeof(name), e->ev, e->code);
		fprintf(out, "| %s | ", e->unplaced ? "unplaced" : time_rfc3339(a, sizeof(a), e->t_ns));
		if (e->gpu >= 0)
			fprintf(out, "%s | ", analysis_gpu_num(an, e->gpu, gn, sizeof(gn)));
		else
			fprintf(out, "host | ");
		md(out, name);
		fprintf(out, " | %s | %u | ", e->klass < KC__COUNT ? kev_class_name[e->klass] : "-", e->count);
		md(out, e->msg);
		fprintf(out, " | ");
		md(out, e->src ? e->src : "?");
		fprintf(out, ":%" PRIu64, e->line);
		if (e->copies) {
			fprintf(out, "; also in ");
			md(out, e->also[0].src ? e->also[0].src : "?");
			fprintf(out, ":%" PRIu64 " (counted once)", e->also[0].line);
		}
		fprintf(out, " |\n");
	}
	if (an->nevs > shown || an->evs_dropped)
		fprintf(out, "\n%zu more in --json.\n", an->nevs - shown + (size_t)an->evs_dropped);
}

/* Profiler traces beside utilization.gpu over the same stretch (the JSON's traces). */
static void traces(FILE *out, const struct report *r)
{
	const struct analysis *an = r->an;
	char gn[16];
	char a[48], b[32], c[32], d[32], e[32], f[32];

	if (!an->trace)
		return;
	fprintf(out, "\n## Traces\n\nOver each traced stretch the kernels' union counts as useful time.\n\n"
		"| GPU | trace | matched by | from | ms | kernels | kernels fill %% | utilization.gpu %% | median kernel us | median gap us | useful s from |\n"
		"|--:|---|---|---|--:|--:|--:|--:|--:|--:|---|\n");
	for (size_t i = 0; i < an->njoins; i++) {
		const struct trace_join *j = &an->joins[i];
		fprintf(out, "| %s | ", analysis_gpu_num(an, j->gpu, gn, sizeof(gn)));
		md(out, j->file);
		fprintf(out, " | %s | %s | %s | %" PRIu64 " | %s | %s | %s | %s | %s |\n", j->matched_by,
			time_rfc3339(a, sizeof(a), j->t0_ns), num(b, sizeof(b), j->span_s * 1e3, 1), j->kernels,
			num(c, sizeof(c), j->span_s > 0 ? 100 * j->kernel_s / j->span_s : NAN, 1),
			num(d, sizeof(d), j->util_pct, 1), num(e, sizeof(e), j->kernels ? j->kernel_p50_ns / 1e3 : NAN, 2),
			num(f, sizeof(f), j->kernels > 1 ? j->gap_p50_ns / 1e3 : NAN, 2),
			j->overlaps ? "utilization.gpu (overlaps an earlier trace)" : "trace kernels");
	}
	for (size_t i = 0; i < an->nunjoined; i++) {
		fprintf(out, "\nNot joined: ");
		md(out, an->unjoined[i].file);
		fprintf(out, " device %d: ", an->unjoined[i].device);
		md(out, an->unjoined[i].why);
		fprintf(out, "\n");
	}
}

void report_markdown(FILE *out, const struct report *r)
{
	if (r->now_ns) {
		char b[48];
		fprintf(out, "_Generated %s._\n\n", time_rfc3339(b, sizeof(b), r->now_ns));
	}
	summary(out, r);
	inputs(out, r);
	if (r->t0_ns == INT64_MAX)
		return;
	gpus(out, r);
	by_day(out, r);
	states(out, r);
	cost(out, r);
	findings(out, r);
	events(out, r);
	processes(out, r);
	report_attrib_markdown(out, r);
	traces(out, r);
	report_fleet_markdown(out, r);
	skipped(out, r);
}
