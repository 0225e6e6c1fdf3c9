/* SPDX-License-Identifier: MIT */
/* The text rendering of a report: the short answer first, then the detail. */
#include "report/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/kmsg.h"
#include "util/jsonw.h"
#include "util/numfmt.h"
#include "util/timeutil.h"

#define MAX_TEXT_SEGMENTS 40
#define MAX_TEXT_BAD 20
#define MAX_TEXT_EVENT_GROUPS 40

#define num nf_num

static const char *when(char *buf, size_t cap, int64_t t_ns)
{
	return time_rfc3339(buf, cap, t_ns);
}

static const char *money(char *buf, size_t cap, const struct report *r, double v)
{
	return nf_money(buf, cap, v, r->params.currency);
}

static const char *gpu_label(char *buf, size_t cap, const struct analysis *an, int gi)
{
	const struct gpu_ident *id = &an->tl.gpus[gi].id;
	if (id->index >= 0)
		snprintf(buf, cap, "GPU %d%s%s", id->index, id->name[0] ? " " : "", id->name);
	else
		snprintf(buf, cap, "GPU ?%s%s", id->name[0] ? " " : "", id->name[0] ? id->name : id->uuid);
	return buf;
}

/* One assumed figure for the Prices line: "cloud 6.35 USD/h (2026-03)". */
static void assumed_fig(FILE *out, const struct report *r, int id, const char *what, const char *unit,
			const char *date, bool *first)
{
	char a[64];

	if (r->params.origin[id] != COST_ASSUMED)
		return;
	fprintf(out, "%s%s %s%s (%s)", *first ? "" : ", ", what, money(a, sizeof(a), r, cost_param_get(&r->params, (size_t)id)),
		unit, date[0] ? date : "datasheet");
	*first = false;
}

/* Where the prices came from when no profile was given (docs/prices.md). */
static void price_lines(FILE *out, const struct report *r)
{
	const struct price_row *row = r->prices.row;
	const struct price_table *t = r->prices.table;
	static const int keys[] = { COST_HARDWARE_PRICE, COST_CLOUD_HOURLY_RATE, COST_ELECTRICITY_PRICE };
	bool first = true;
	int old = 0;

	if (r->prices.unknown) {
		if (r->prices.gpu_name[0])
			fprintf(out, "Prices:    %s is not in the built-in price table (docs/prices.md), so there is no verdict;\n",
				r->prices.gpu_name);
		else
			fprintf(out, "Prices:    the logs do not name the GPU model, so no price can be assumed (docs/prices.md);\n");
		fprintf(out, "           give yours: --profile FILE or --set hardware_price=N --set cloud_hourly_rate=N "
			"--set electricity_price=N\n");
		return;
	}
	if (r->prices.yours) {
		fprintf(out, "Prices:    yours (--set), none assumed: ");
		if (r->prices.gpu_name[0])
			fprintf(out, "%s is not in the built-in price table (docs/prices.md)\n", r->prices.gpu_name);
		else
			fprintf(out, "the logs do not name the GPU model\n");
		return;
	}
	if (!r->prices.used)
		return;
	fprintf(out, "Prices:    assumed, not yours: docs/prices.md's row %s for %s\n           ", row->model,
		r->prices.gpu_name);
	assumed_fig(out, r, COST_HARDWARE_PRICE, "purchase", "", row->purchase.date, &first);
	assumed_fig(out, r, COST_CLOUD_HOURLY_RATE, "cloud", "/h", row->cloud.date, &first);
	assumed_fig(out, r, COST_ELECTRICITY_PRICE, "electricity", "/kWh", t->electricity.date, &first);
	fprintf(out, "\n           yours with --profile FILE, or");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (r->params.origin[keys[i]] == COST_ASSUMED)
			fprintf(out, " --set %s=N", cost_param_info((size_t)keys[i])->key);
	fputc('\n', out);
	if (!r->prices.old)
		return;
	fprintf(out, "           more than a year old:");
	if (r->prices.age_purchase > 12)
		fprintf(out, "%s purchase price of %s", old++ ? "," : "", row->purchase.date);
	if (r->prices.age_cloud > 12)
		fprintf(out, "%s cloud rate of %s", old++ ? "," : "", row->cloud.date);
	if (r->prices.age_electricity > 12)
		fprintf(out, "%s electricity price of %s", old++ ? "," : "", t->electricity.date);
	if (r->prices.age_grid > 12)
		fprintf(out, "%s grid intensity of %s", old++ ? "," : "", t->grid.date);
	fprintf(out, " (against %s)\n", r->now_ns ? "--now" : "the logs' end");
}

/* --cloud-catalog: the rate it gave, from which file and date, or why none. */
static void catalog_line(FILE *out, const struct report *r)
{
	const struct cloud_catalog *c = r->catalog;
	const struct catalog_pick *p = &r->cat.pick;
	char a[64], b[64], m[64];

	if (!c)
		return;
	if (!p->nrows) {
		fprintf(out, "Cloud:     %s (%s) has no accelerator matching %s: the cloud rate is not from it\n", c->name,
			c->date, r->prices.gpu_name[0] ? r->prices.gpu_name : "the GPU (the logs do not name its model)");
		return;
	}
	fprintf(out, "Cloud:     %s%s/h per GPU from %s (%s, from the %s): median of %zu %s row(s), %s-%s",
		r->cat.used ? "" : "not used, ", money(m, sizeof(m), r, p->median), c->name, c->date, c->date_from, p->nrows,
		p->accel, nf_money(a, sizeof(a), p->min, NULL), money(b, sizeof(b), r, p->max));
	if (!r->cat.used)
		fprintf(out, "; cloud_hourly_rate was --set");
	if (r->cat.old)
		fprintf(out, "; more than a year old (%d months against %s)", r->cat.age_months,
			r->now_ns ? "--now" : "the logs' end");
	fputc('\n', out);
}

/* Where the rest went, the top findings and the files that are not telemetry, in a few lines. */
static void first_screen(FILE *out, const struct report *r)
{
	const struct analysis *an = r->an;
	char a[32], b[64], c[32];
	size_t listed = 0;

	if (r->ntop_causes) {
		fprintf(out, "Not useful:");
		for (int i = 0; i < r->ntop_causes; i++) {
			int s = r->top_cause[i];
			fprintf(out, "%s %s %s (%s", i ? "," : "", state_label[s],
				time_human_dur(a, sizeof(a), (int64_t)(r->state_s[s] * 1e9)),
				num(c, sizeof(c), 100 * r->state_share[s], 1));
			if (r->has_prices)
				fprintf(out, " %%, %s)", money(b, sizeof(b), r, r->state_cost[s]));
			else
				fprintf(out, " %%)");
		}
		fputc('\n', out);
	}
	for (int i = 0; i < r->ntop_finds; i++) {
		const struct finding *f = &an->finds[r->top_find[i]];
		fprintf(out, "%s [%s] %s\n", i ? "          " : "Findings: ", severity_name[f->severity], f->message);
	}
	if (r->not_read) {
		fprintf(out, "Not read:  %zu file%s:", r->not_read, r->not_read == 1 ? "" : "s");
		for (size_t i = 0; i < r->inputs->nr; i++) {
			const struct input_stat *in = &r->inputs->inputs[i];
			if (in->format || report_not_telemetry(in))
				continue;
			if (listed++ == 2) {
				fprintf(out, " ...");
				break;
			}
			fprintf(out, "%s %.90s%s", listed > 1 ? ";" : "", in->skip_reason,
				strlen(in->skip_reason) > 90 ? "..." : "");
		}
		fputc('\n', out);
		listed = 0;
	}
	if (!r->not_telemetry)
		return;
	fprintf(out, "Skipped:   %zu file%s not telemetry: ", r->not_telemetry, r->not_telemetry == 1 ? "" : "s");
	for (size_t i = 0; i < r->inputs->nr; i++) {
		const struct input_stat *in = &r->inputs->inputs[i];
		const char *base = strrchr(in->path, '/');
		if (!report_not_telemetry(in))
			continue;
		if (listed++ == 4) {
			fprintf(out, ", ...");
			break;
		}
		fprintf(out, "%s%s", listed > 1 ? ", " : "", base ? base + 1 : in->path);
	}
	fprintf(out, " (Inputs, at the end)\n");
}

static void summary(FILE *out, const struct report *r)
{
	const struct analysis *an = r->an;
	char a[80], b[80], c[80], d[80], e[80];
	size_t nread = 0;

	for (size_t i = 0; i < r->inputs->nr; i++)
		nread += r->inputs->inputs[i].format != NULL;	/* a cut file read up to its cut too */
	fprintf(out, "gputally report\n\n");
	if (r->t0_ns == INT64_MAX) {
		fprintf(out, "No GPU samples in %zu input(s).\n", r->inputs->nr);
		return;
	}
	fprintf(out, "What ran:  %d GPU(s) from %zu of %zu input(s), %s to %s (times in UTC)\n",
		an->tl.ngpus, nread, r->inputs->nr, when(a, sizeof(a), r->t0_ns), when(b, sizeof(b), r->t1_ns));
	if (r->zone_assumed)
		fprintf(out, "Zone:      %zu input(s) whose stamps carry no zone were read in %s: no zoned evidence "
			"set their zone, so it is assumed (--tz sets it)\n", r->zone_assumed_inputs, r->zone_assumed);
	if (r->file_time_inputs)
		fprintf(out, "File time: %zu input(s) with no time or no date in them were placed by their file "
			"modification times, an assumption a copy moves (--start, --date set it)\n", r->file_time_inputs);
	time_human_dur(c, sizeof(c), (int64_t)(r->covered_h * 3600e9));
	time_human_dur(d, sizeof(d), (int64_t)(r->gaps_h * 3600e9));
	fprintf(out, "Coverage:  %s of GPU time covered, %s in gaps (not counted as idle)\n", c, d);
	if (r->busy_unknown)
		fprintf(out, "How busy:  unknown: no utilization reading in the %s GPU-hours covered\n",
			num(e, sizeof(e), r->covered_h, 3));
	else
		fprintf(out, "How busy:  %s %% of covered time in useful work (%s busy GPU-hours of %s); "
			"mean utilization %s %%\n",
			num(a, sizeof(a), 100 * r->win.u_obs, 1), num(b, sizeof(b), r->busy_h, 3),
			num(e, sizeof(e), r->covered_h, 3),
			num(c, sizeof(c), r->util_mean_pct, 1));
	fprintf(out, "Energy:    %s kWh (%s)", num(a, sizeof(a), r->energy_j / 3.6e6, 3), r->energy_source);
	if (!isnan(r->co2e_kg))
		fprintf(out, ", %s kg CO2e at %s g/kWh%s", num(b, sizeof(b), r->co2e_kg, nf_money_decimals(r->co2e_kg)),
			num(c, sizeof(c), r->params.grid_gco2_per_kwh, 0),
			r->params.origin[COST_GRID_GCO2_PER_KWH] == COST_ASSUMED ? " (assumed)" : "");
	fputc('\n', out);
	price_lines(out, r);
	catalog_line(out, r);
	if (!r->has_prices) {
		if (!r->prices.unknown)
			fprintf(out, "Cost:      no prices given (--profile NAME or --set KEY=VALUE)\n");
		fprintf(out, "Verdict:   %s\n", r->verdict);
		first_screen(out, r);
		return;
	}
	fprintf(out, "Cost:      %s to own for this window, %s to rent the same useful work",
		money(a, sizeof(a), r, r->win.local_cost), money(b, sizeof(b), r, r->win.cloud_cost));
	if (!isnan(r->win.premium_pct))
		fprintf(out, " (owning %s %s %%)", r->win.premium_pct >= 0 ? "costs" : "saves",
			num(c, sizeof(c), fabs(r->win.premium_pct), 1));
	fprintf(out, "\nVerdict:   %s%s\n", r->prices.used ? "(assumed prices) " : "", r->verdict);
	first_screen(out, r);
}

/* More inputs than this are summed up by format, and only those worth a look listed. */
#define INPUTS_LISTED 20

static bool input_noteworthy(const struct input_stat *in)
{
	return !in->format || in->bad || in->skip_reason[0] || in->partial_last_line ||
	       in->dst_repeats || !in->time_basis || in->basis[0] || in->columns_note[0] ||
	       in->zone_note || in->tod_by_evidence ||	/* its clock was set by other logs */
	       in->columns_unread[0];
}

/*
 * The Inputs table's columns: as wide as the longest path (up to 80) and
 * format name of the inputs listed, at least 44 and 12, so that a long
 * name does not push its row out.
 */
static void input_widths(const struct report *r, bool noteworthy_only, int *pw, int *fw)
{
	*pw = 44;
	*fw = 12;
	for (size_t i = 0; i < r->inputs->nr; i++) {
		const struct input_stat *in = &r->inputs->inputs[i];
		int n = (int)strlen(in->path);
		if (noteworthy_only && !input_noteworthy(in))
			continue;
		if (n > *pw)
			*pw = n > 80 ? 80 : n;
		if (in->format && (int)strlen(in->format->id) > *fw)
			*fw = (int)strlen(in->format->id);
	}
}

static void inputs_summary(FILE *out, const struct report *r)
{
	size_t shown = 0, more = 0;
	int pw, fw, idw = 0;

	input_widths(r, true, &pw, &fw);
	for (size_t f = 0; f < format_count(); f++)	/* the longest format name */
		if ((int)strlen(format_at(f)->id) > idw)
			idw = (int)strlen(format_at(f)->id);
	fprintf(out, "  %zu inputs; by format:\n", r->inputs->nr);
	for (size_t f = 0; f < r->nby_format; f++) {	/* summed in report_compute */
		const struct report_format_sum *s = &r->by_format[f];
		fprintf(out, "    %-*s %6" PRIu64 " file%s %10" PRIu64 " lines %10" PRIu64
			" records %8" PRIu64 " skipped\n", idw, s->format->id, s->files,
			s->files == 1 ? " " : "s", s->lines, s->records, s->bad);
	}
	for (size_t i = 0; i < r->inputs->nr; i++) {
		const struct input_stat *in = &r->inputs->inputs[i];
		if (!input_noteworthy(in))
			continue;
		if (shown == INPUTS_LISTED) {
			more++;
			continue;
		}
		if (!shown++)
			fprintf(out, "  worth a look (not read, lines skipped, cut short or without time):\n");
		if (!in->format)
			fprintf(out, "  %-*s not read: %s\n", pw, in->path, in->skip_reason);
		else
			fprintf(out, "  %-*s %-*s %8" PRIu64 " lines %8" PRIu64 " records %6" PRIu64
				" skipped%s%s%s\n", pw, in->path, fw, in->format->id, in->lines, in->records,
				in->bad, !in->partial_last_line ? "" : in->partial_last_read ?
				"; last line has no newline (read: a whole row)" :
				"; last line has no newline",
				in->skip_reason[0] ? "; " : "", in->skip_reason);
		if (in->format && in->basis[0])
			fprintf(out, "  %-*s time: %s\n", pw, "", in->basis);
		if (in->format && in->columns_note[0])
			fprintf(out, "  %-*s %s\n", pw, "", in->columns_note);
		if (in->format && in->columns_unread[0])
			fprintf(out, "  %-*s columns not understood: %s\n", pw, "", in->columns_unread);
	}
	if (more)
		fprintf(out, "  ... and %zu more worth a look\n", more);
	fprintf(out, "  (--json lists every input)\n");
}

static void inputs(FILE *out, const struct report *r)
{
	int pw, fw;

	fprintf(out, "\nInputs\n");
	if (r->inputs->nr > INPUTS_LISTED) {
		inputs_summary(out, r);
		return;
	}
	input_widths(r, false, &pw, &fw);
	for (size_t i = 0; i < r->inputs->nr; i++) {
		const struct input_stat *in = &r->inputs->inputs[i];
		if (in->skip_reason[0] && !in->format) {
			fprintf(out, "  %-*s not read: %s\n", pw, in->path, in->skip_reason);
			continue;
		}
		fprintf(out, "  %-*s %-*s %8" PRIu64 " lines %8" PRIu64 " records %6" PRIu64 " skipped",
			pw, in->path, fw, in->format->id, in->lines, in->records, in->bad);
		if (strcmp(in->compression, "plain"))
			fprintf(out, " (%s)", in->compression);
		fprintf(out, "\n  %-*s time: %s%s", pw, "", in->time_basis ? in->time_basis : "no timed records",
			!in->partial_last_line ? "" : in->partial_last_read ?
			"; last line has no newline (read: a whole row)" : "; last line has no newline");
		if (in->dst_repeats)
			fprintf(out, "; %" PRIu64 " record(s) placed in the repeated hour after clocks fell back",
				in->dst_repeats);
		fputc('\n', out);
		if (in->skip_reason[0])
			fprintf(out, "  %-*s %s\n", pw, "", in->skip_reason);
		if (in->columns_note[0])
			fprintf(out, "  %-*s %s\n", pw, "", in->columns_note);
		if (in->columns_unread[0])
			fprintf(out, "  %-*s columns not understood: %s\n", pw, "", in->columns_unread);
	}
}

#define TEXT_DAY_GPUS 16	/* more GPUs than this: the day's share of all of them only */
#define TEXT_DAYS 62

/* The month at a glance: per UTC day, each GPU's useful share, the day's
 * owned cost, what renting its useful hours costs, and the running sum of
 * the two (report/month.c); then each GPU's share and cost over the window. */
static void by_day(FILE *out, const struct report *r)
{
	size_t ng = (size_t)r->an->tl.ngpus, cols = ng <= TEXT_DAY_GPUS ? ng : 0;
	bool rent = r->has_prices && r->params.cloud_hourly_rate > 0;
	char a[32], b[64], c[64], e[64];

	if (r->ndays < 2 || !r->dayt_u)
		return;
	fprintf(out, "\nBy day (UTC): each GPU's time in useful states as a share of its covered time; the day's owned cost,\n"
		"what renting its useful hours costs, and owned minus rented summed to that day (above 0: owning cost more)\n  %-10s",
		"day");
	for (size_t g = 0; g < cols; g++)
		fprintf(out, " %6s", (snprintf(a, sizeof(a), "GPU %zu", g), a));
	fprintf(out, " %6s %12s %12s %14s\n", "all", "owned", "rented", "own-rent sum");
	for (size_t d = 0; d < r->ndays && d < TEXT_DAYS; d++) {
		int y, m, dd;
		civil_from_days(r->day_first + (int64_t)d, &y, &m, &dd);
		fprintf(out, "  %04d-%02d-%02d", y, m, dd);
		for (size_t g = 0; g < cols; g++)
			fprintf(out, " %6s", isfinite(r->day_u[d * ng + g]) ?
				(snprintf(a, sizeof(a), "%.0f %%", 100 * r->day_u[d * ng + g]), a) : "-");
		fprintf(out, " %6s %12s %12s %14s\n", isfinite(r->dayt_u[d]) ? (snprintf(a, sizeof(a), "%.0f %%", 100 * r->dayt_u[d]), a) : "-",
			r->has_prices ? money(b, sizeof(b), r, r->dayt_cost[d]) : "-",
			rent ? money(c, sizeof(c), r, r->dayt_rent[d]) : "-",
			rent && isfinite(r->dayt_gap_cum[d]) ? money(e, sizeof(e), r, r->dayt_gap_cum[d]) : "-");
	}
	if (r->ndays > TEXT_DAYS)
		fprintf(out, "  ... %zu more days in --json\n", r->ndays - TEXT_DAYS);
	if (cols) {
		fprintf(out, "  %-10s", "window");
		for (size_t g = 0; g < cols; g++)
			fprintf(out, " %6s", isfinite(r->gpu_month_u[g]) ?
				(snprintf(a, sizeof(a), "%.0f %%", 100 * r->gpu_month_u[g]), a) : "-");
		fprintf(out, "\n");
	}
	if (cols && r->has_prices) {
		fprintf(out, "  owned cost of each GPU over the window:");
		for (size_t g = 0; g < cols; g++)
			fprintf(out, "%s GPU %zu %s", g ? "," : "", g, money(b, sizeof(b), r, r->gpu_month_cost[g]));
		fprintf(out, "\n");
	}
	if (rent && r->lr.status != COST_NEVER && isfinite(r->lr.u_star))
		fprintf(out, "  break-even utilization %.1f %%: %zu of %zu days at or above it (all GPUs)\n", 100 * r->lr.u_star,
			r->days_at_ustar, r->ndays);
}

static void gpus(FILE *out, const struct report *r)
{
	const struct analysis *an = r->an;
	char l[128], a[32], b[32], c[32], d[32], e[32], f[32], g2[32], h[32];

	fprintf(out, "\nGPUs\n");
	fprintf(out, "  %-22s %9s %8s %9s %6s %5s %5s %9s %-13s %7s %7s %6s %9s\n",
		"gpu", "covered", "gaps", "useful", "util%", "p50", "p95", "energy_kJ", "source",
		"P_mean", "P_max", "T_max", "mem_MiB");
	for (int i = 0; i < an->tl.ngpus; i++) {
		const struct gpu_stats *g = &an->gpus[i];
		const struct report_gpu *rg = &r->gpus[i];
		char cov[32], gap[32], busy[32];
		fprintf(out, "  %-22.22s %9s %8s %9s %6s %5s %5s %9s %-13s %7s %7s %6s %9s\n",
			gpu_label(l, sizeof(l), an, i),
			time_human_dur(cov, sizeof(cov), (int64_t)(g->covered_s * 1e9)),
			time_human_dur(gap, sizeof(gap), (int64_t)(g->gaps_s * 1e9)),
			time_human_dur(busy, sizeof(busy), (int64_t)(rg->useful_s * 1e9)),
			num(a, sizeof(a), rg->util_mean_pct, 1), num(b, sizeof(b), rg->util_p50_pct, 0),
			num(c, sizeof(c), rg->util_p95_pct, 0), num(d, sizeof(d), rg->energy_j / 1e3, 1), rg->energy_source,
			num(e, sizeof(e), rg->power_mean_w, 0), num(f, sizeof(f), rg->power_max_w, 0),
			num(g2, sizeof(g2), rg->temp_max_c, 0), num(h, sizeof(h), rg->mem_max_mib, 0));
		if (an->tl.gpus[i].id.uuid[0])
			fprintf(out, "  %-22s %s\n", "", an->tl.gpus[i].id.uuid);
		if (g->energy_unknown_s > 0) {
			char un[32];
			fprintf(out, "  %-22s energy unknown for %s (gaps, GPU down, no power or counter reading)\n", "",
				time_human_dur(un, sizeof(un), (int64_t)(g->energy_unknown_s * 1e9)));
		}
		if (g->sm_clock_drops || g->out_of_order)
			fprintf(out, "  %-22s %u SM clock drop(s) under load, %" PRIu64 " out-of-order sample(s)\n", "",
				g->sm_clock_drops, g->out_of_order);
	}
}

static void states(FILE *out, const struct report *r)
{
	char a[32], b[32], c[80];

	fprintf(out, "\nWhere the GPU time went (all GPUs; cost = the window's local cost split by time)\n");
	fprintf(out, "  %-16s %-20s %10s %7s %14s\n", "state", "meaning", "time", "share", "cost");
	for (int s = 0; s < ST__COUNT; s++) {
		if (r->state_s[s] <= 0)
			continue;
		fprintf(out, "  %-16s %-20s %10s %6s%% %14s\n", state_name[s], state_label[s],
			time_human_dur(a, sizeof(a), (int64_t)(r->state_s[s] * 1e9)),
			s == ST_GAP ? "-" : num(b, sizeof(b), 100 * r->state_share[s], 1),
			s == ST_GAP || !r->has_prices ? "-" : money(c, sizeof(c), r, r->state_cost[s]));
		if (s == ST_DOWN && r->outage_s > 0)
			fprintf(out, "    %-14s %-20s %10s %6s%% %14s\n", "of which", "outage after events",
				time_human_dur(a, sizeof(a), (int64_t)(r->outage_s * 1e9)),
				num(b, sizeof(b), 100 * r->outage_share, 1),
				!r->has_prices ? "-" : money(c, sizeof(c), r, r->outage_cost));
	}
	if (r->trace_in_h > 0 || r->trace_out_h > 0) {
		/* over joined traces, kernels replace the useful states' time: the
		 * useful total is then the headline's busy (docs/states.md "Busy") */
		char t[32];
		snprintf(t, sizeof(t), "%+.1fs", r->trace_net_s);
		snprintf(b, sizeof(b), "%+.1f", 100 * r->trace_net_share);
		fprintf(out, "  %-16s %-20s %10s %6s%% %14s\n", "trace_kernels", "joined traces, net", t, b,
			!r->has_prices ? "-" : money(c, sizeof(c), r, r->trace_net_cost));
		fprintf(out, "  %-16s %-20s %10s %6s%% %14s\n", "useful in all", "= headline's busy",
			time_human_dur(a, sizeof(a), (int64_t)(r->useful_total_s * 1e9)),
			num(b, sizeof(b), 100 * r->useful_total_share, 1),
			!r->has_prices ? "-" : money(c, sizeof(c), r, r->useful_total_cost));
	}
}

static void segments(FILE *out, const struct report *r)
{
	const struct analysis *an = r->an;
	char a[40], b[40], d[32], l[128];

	fprintf(out, "\nTimeline (state segments; --json has all %zu)\n", an->nsegs);
	for (int gi = 0; gi < an->tl.ngpus; gi++) {
		size_t shown = 0, total = r->gpus[gi].nsegs;
		fprintf(out, "  %s\n", gpu_label(l, sizeof(l), an, gi));
		for (size_t i = 0; i < an->nsegs && shown < MAX_TEXT_SEGMENTS; i++) {
			const struct segment *s = &an->segs[i];
			if (s->gpu != gi)
				continue;
			fprintf(out, "    %-24s  %-24s  %8s  %s\n", when(a, sizeof(a), s->t0_ns), when(b, sizeof(b), s->t1_ns),
				time_human_dur(d, sizeof(d), s->t1_ns - s->t0_ns), state_name[s->state]);
			shown++;
		}
		if (total > shown)
			fprintf(out, "    ... %zu more\n", total - shown);
	}
}

static void processes(FILE *out, const struct report *r)
{
	const struct analysis *an = r->an;
	char gn[16];
	char a[32], b[32], c[32], d[32], e[32];

	if (!an->nprocs)
		return;
	fprintf(out, "\nProcesses (busy time and energy split %s)\n",
		"by per-process sm % where pmon has it, else evenly among the processes present");
	fprintf(out, "  %-4s %8s %-18s %10s %10s %7s %10s %8s\n", "gpu", "pid", "name", "present", "busy",
		"busy%", "energy_kJ", "mem_MiB");
	for (size_t i = 0; i < an->nprocs; i++) {
		const struct proc_stat *p = &an->procs[i];
		char pid[24];
		/* a task label (gpu_monitor.sh's TASK_ID) has no pid */
		if (p->pid == PID_TASK)
			snprintf(pid, sizeof(pid), "task");
		else
			snprintf(pid, sizeof(pid), "%" PRId64, p->pid);
		fprintf(out, "  %-4s %8s %-18.18s %10s %10s %7s %10s %8s\n", analysis_gpu_num(an, p->gpu, gn, sizeof(gn)), pid,
			p->name[0] ? p->name : "-",
			time_human_dur(a, sizeof(a), (int64_t)(p->present_s * 1e9)),
			time_human_dur(b, sizeof(b), (int64_t)(p->busy_s * 1e9)),
			num(c, sizeof(c), 100 * r->procs[i].busy_share, 1),
			num(d, sizeof(d), p->energy_j / 1e3, 1), num(e, sizeof(e), p->fb_max_mib, 0));
	}
}

/* "2423 stretches, 21h32m06s in all, 9494.7 kJ, 12.3 EUR": a summary's totals */
static const char *stretch_totals(char *buf, size_t cap, const struct report *r, const struct finding *f)
{
	char d[32], e[32], c[48];
	double cost = r->finding_cost[f - r->an->finds];

	time_human_dur(d, sizeof(d), (int64_t)(f->total_s * 1e9));
	snprintf(buf, cap, "%llu %s, %s in all%s%s%s%s%s", (unsigned long long)f->nstretch,
		 f->fk != FK_LOG_GAP ? (f->nstretch == 1 ? "stretch" : "stretches") : (f->nstretch == 1 ? "gap" : "gaps"),
		 d, isnan(f->energy_j) ? "" : ", ", isnan(f->energy_j) ? "" : num(e, sizeof(e), f->energy_j / 1e3, 1),
		 isnan(f->energy_j) ? "" : " kJ", isnan(cost) ? "" : ", cost ",
		 isnan(cost) ? "" : money(c, sizeof(c), r, cost));
	return buf;
}

/* A finding in full: its line, message, evidence and, for a summary of
 * several stretches, its totals and the longest ones. */
static void finding_full(FILE *out, const struct report *r, const struct finding *f)
{
	const struct analysis *an = r->an;
	char a[40], b[40], l[160], t[160];

	fprintf(out, "  [%s] %s%s  %s  %s .. %s\n    %s\n    evidence: %s\n", severity_name[f->severity], f->kind,
		f->fk == FK_NONE ? " (a kind this version does not know)" : "", f->gpu >= 0 ? analysis_gpu_name(an, f->gpu, l, sizeof(l)) : "host", when(a, sizeof(a), f->t0_ns),
		when(b, sizeof(b), f->t1_ns), f->message, f->evidence);
	if (f->nstretch > 1) {
		fprintf(out, "    %s; longest:", stretch_totals(t, sizeof(t), r, f));
		for (int i = 0; i < f->ndetail && i < 3; i++)
			fprintf(out, "%s %s (%s)", i ? "," : "", when(a, sizeof(a), f->detail[i].t0_ns),
				time_human_dur(b, sizeof(b), f->detail[i].t1_ns - f->detail[i].t0_ns));
		fputc('\n', out);
	}
}

/*
 * The findings, in the analysis' one order (severity, the kinds that always
 * appear, cost): the first r->nfind_full in full (all when they fit on a
 * screen), then the rest one line per severity and kind (a lone finding
 * with its message), naming their GPUs and adding up their stretches, so
 * that every kind found is on the screen whatever the number of GPUs and
 * days (report_compute() groups them).
 */
static void findings(FILE *out, const struct report *r)
{
	const struct analysis *an = r->an;

	fprintf(out, "\nFindings (%zu, the most severe and costly first)\n", an->nfinds + (size_t)an->finds_dropped);
	if (an->nfinds > 1) {
		/* a tally by kind first: every kind (report_compute) */
		fprintf(out, "  by kind:");
		for (size_t k = 0; k < r->nkinds; k++)
			fprintf(out, "%s %zu %s", k ? "," : "", r->kinds[k].n, r->kinds[k].kind);
		fputc('\n', out);
	}
	for (size_t i = 0; i < r->nfind_full; i++)
		finding_full(out, r, &an->finds[i]);
	/* the rest: one line per severity and kind, in the order they first come */
	for (size_t k = 0; k < r->nfind_groups; k++) {
		const struct report_find_group *grp = &r->find_groups[k];
		const struct finding *f = &an->finds[grp->first];
		const struct report_rest *rest = &r->finding_rest[grp->first];	/* it and the rest of its kind */
		char l[48], d[32], c[48];
		fprintf(out, "  [%s] %s%s ", severity_name[f->severity], f->kind,
			f->fk == FK_NONE ? " (a kind this version does not know)" : "");
		for (size_t j = 0; j < grp->ngpus && j < REPORT_GROUP_GPUS; j++)
			fprintf(out, "%s%s", j ? ", " : " ",
				grp->gpu[j] >= 0 ? analysis_gpu_name(an, grp->gpu[j], l, sizeof(l)) : "host");
		if (grp->ngpus > REPORT_GROUP_GPUS)
			fprintf(out, " and %zu more GPUs", grp->ngpus - REPORT_GROUP_GPUS);
		if (rest->stretches)
			fprintf(out, ": %llu %s, %s in all%s%s", (unsigned long long)rest->stretches,
				f->fk != FK_LOG_GAP ? "stretches" : "gaps",
				time_human_dur(d, sizeof(d), (int64_t)(rest->total_s * 1e9)), rest->costed ? ", cost " : "",
				rest->costed ? money(c, sizeof(c), r, rest->cost) : "");
		else if (rest->n > 1)
			fprintf(out, ": %llu findings", (unsigned long long)rest->n);
		else
			fprintf(out, ": %s", f->message);
		fputc('\n', out);
	}
	if (an->finds_dropped)
		fprintf(out, "  ... %llu more of the kinds above, not kept (the cap on findings)\n",
			(unsigned long long)an->finds_dropped);
	if (r->nfind_full < an->nfinds)
		fprintf(out, "  (every finding in full, with the longest stretches of each, in --json)\n");
}

static void cost(FILE *out, const struct report *r)
{
	const struct cost_params *p = &r->params;
	char a[80], b[80], c[80];

	fprintf(out, "\nCost model (docs/cost-model.md)%s%s\n", p->name[0] ? ": profile " : "", p->name);
	size_t ndefault = 0;

	fprintf(out, "  parameters (value, origin):\n");
	for (size_t i = 0; i < COST_NPARAMS; i++) {
		if (p->origin[i] == COST_DEFAULT) {
			ndefault++;
			continue;
		}
		fprintf(out, "    %-28s %14s  %s\n", cost_param_info(i)->key,
			fmt_num(a, sizeof(a), cost_param_get(p, i), 4), cost_origin_name(p->origin[i]));
	}
	if (ndefault)
		fprintf(out, "    (%zu others at their defaults; --json lists every one)\n", ndefault);
	if (!r->has_prices) {
		fprintf(out, "  no prices given, so nothing to compare: name a profile (--profile NAME;\n"
			     "  'gputally cost --list-profiles') or set prices with --set KEY=VALUE\n");
		return;
	}
	fprintf(out, "  long run: fixed %s/year over %s available hours; cloud %s per useful hour\n",
		money(a, sizeof(a), r, r->lr.F), num(b, sizeof(b), r->lr.H, 0),
		money(c, sizeof(c), r, r->lr.c_cloud));
	fprintf(out, "  break-even utilization: %s%s (%s)", r->lr.status == COST_NEVER ? "none" :
		num(a, sizeof(a), 100 * r->lr.u_star, 1), r->lr.status == COST_NEVER ? "" : " %",
		cost_status_name(r->lr.status));
	if (r->lr.status == COST_OK)
		fprintf(out, ", %s useful GPU-hours a month", num(b, sizeof(b), r->lr.useful_hours_per_month, 1));
	fprintf(out, "\n  observed: useful share %s %%, local %s per useful hour\n",
		num(a, sizeof(a), 100 * r->win.u_obs, 2), money(b, sizeof(b), r, r->c_local_obs));
	{
		char d[80], e[80];
		fprintf(out, "  window: local %s = fixed %s + energy %s + cooling %s + per-job %s\n",
			money(a, sizeof(a), r, r->win.local_cost), num(b, sizeof(b), r->win.local_fixed, 4),
			num(c, sizeof(c), r->win.local_energy, 4), num(d, sizeof(d), r->win.local_cooling, 4),
			num(e, sizeof(e), r->win.local_jobs, 4));
	}
	fprintf(out, "          cloud %s for %zu job(s) (%s)\n", money(a, sizeof(a), r, r->win.cloud_cost),
		r->njobs, r->jobs_from_processes ? "one per process"
			: r->jobs_from_tasks ? "one per task label" : "one per GPU");
	fprintf(out, "  job length: %s", cost_status_name(r->job.status));
	if (r->job.status == COST_JOB_CROSS)
		fprintf(out, ": owning is cheaper for jobs longer than %s useful hours", num(a, sizeof(a), r->job.hours, 3));
	else if (r->job.status == COST_JOB_LOCAL_SHORT)
		fprintf(out, ": owning is cheaper only for jobs up to %s useful hours (cold start and minimum billing)",
			num(a, sizeof(a), r->job.hours, 3));
	else if (r->job.status == COST_JOB_LOCAL_ALWAYS)
		fprintf(out, ": owning is cheaper for a job of any length");
	else if (r->job.status == COST_JOB_CLOUD_ALWAYS)
		fprintf(out, ": renting is as cheap or cheaper for a job of any length");
	fprintf(out, "\n  sensitivity of the break-even utilization (x0.8 / x1.2):\n");
	for (size_t i = 0; i < r->nsens; i++) {
		const struct cost_sens *s = &r->sens[i];
		fprintf(out, "    %-28s %8s %% .. %8s %%  (swing %s points)\n", s->param,
			num(a, sizeof(a), 100 * s->u_low, 1), num(b, sizeof(b), 100 * s->u_high, 1),
			num(c, sizeof(c), 100 * s->swing, 1));
	}
}

/*
 * One line per file and reason, with how many lines it covers and the first
 * of them: a headerless CSV skipped row by row is one complaint, not 224.
 * The kept lines are grouped (the JSON lists each) by report_compute(): by
 * path and message, in order of first appearance.
 */
static void skipped(FILE *out, const struct report *r)
{
	if (!r->bad_total)
		return;
	fprintf(out, "\nSkipped lines (%" PRIu64 "; by file and reason, --json lists every line)\n",
		r->bad_total);
	for (size_t g = 0; g < r->nbad_groups && g < MAX_TEXT_BAD; g++) {
		const struct bad_line *f = &r->bad[r->bad_groups[g].first];
		fprintf(out, "  %s:%" PRIu64 ":%u: %s", f->path, f->line, f->col, f->msg);
		if (r->bad_groups[g].n > 1)
			fprintf(out, " (%" PRIu64 " lines, the first at line %" PRIu64 ")", r->bad_groups[g].n, f->line);
		fputc('\n', out);
	}
	if (r->nbad_groups > MAX_TEXT_BAD)
		fprintf(out, "  ... %zu more reasons in --json\n", r->nbad_groups - MAX_TEXT_BAD);
	if (r->bad_total > r->nbad)
		fprintf(out, "  ... %" PRIu64 " more lines not kept (the first %zu are)\n",
			r->bad_total - r->nbad, r->nbad);
}

/* Profiler traces beside utilization.gpu over the same stretch. */
static void traces(FILE *out, const struct report *r)
{
	const struct analysis *an = r->an;
	char gn[16];
	char t[32], fill[32], kp[32], gp[32], u[32], us[32];

	if (!an->trace)
		return;
	fprintf(out, "\nTraces (kernel time is what counts as useful over each stretch)\n");
	for (size_t i = 0; i < an->njoins; i++) {
		const struct trace_join *j = &an->joins[i];
		fprintf(out, "  GPU %s  %s (device %d, matched by %s and time)\n", analysis_gpu_num(an, j->gpu, gn, sizeof(gn)), j->file, j->device,
			j->matched_by);
		fprintf(out, "    %s for %.1f ms: kernels fill %s %% (%" PRIu64 " kernels, median %s us, median gap %s us)\n",
			when(t, sizeof(t), j->t0_ns), j->span_s * 1e3,
			num(fill, sizeof(fill), j->span_s > 0 ? 100 * j->kernel_s / j->span_s : NAN, 1), j->kernels,
			num(kp, sizeof(kp), j->kernels ? j->kernel_p50_ns / 1e3 : NAN, 2),
			num(gp, sizeof(gp), j->kernels > 1 ? j->gap_p50_ns / 1e3 : NAN, 2));
		fprintf(out, "    utilization.gpu %s %% over the %.1f s of samples around it; useful %s s from %s\n",
			num(u, sizeof(u), j->util_pct, 1), (j->w1_ns - j->w0_ns) / 1e9,
			num(us, sizeof(us), j->overlaps ? j->useful_state_s : j->kernel_s, 4),
			j->overlaps ? "utilization.gpu (overlaps an earlier trace)" : "the trace's kernels");
	}
	for (size_t i = 0; i < an->nunjoined; i++)
		fprintf(out, "  not joined: %s device %d: %s\n", an->unjoined[i].file, an->unjoined[i].device,
			an->unjoined[i].why);
}

/* What an event kind means, for people (an Xid's meaning is the catalog's). */
static const char *const kind_words[EV__COUNT] = {
	[EV_GPU_LOST] = "nvidia-smi reported the GPU lost",
	[EV_RESET_REQUIRED] = "nvidia-smi reported the GPU needs a reset",
	[EV_ERROR_ROW] = "the logger wrote an error row",
	[EV_TOOL_ERROR] = "nvidia-smi printed an error instead of data",
	[EV_FALLEN_OFF] = "the GPU fell off the bus: the driver can no longer reach it",
	[EV_RMINIT_FAILED] = "the driver failed to initialise the GPU (RmInitAdapter failed)",
	[EV_DRIVER_LOAD] = "the NVIDIA driver was loaded (the energy counter restarts)",
	[EV_GSP_TIMEOUT] = "the GPU's GSP firmware did not answer in time",
	[EV_MODESET_ERROR] = "nvidia-modeset reported an error",
	[EV_PCIE_AER] = "a PCIe error (AER) on the GPU's link",
	[EV_NVLINK_ERROR] = "an NVLink error",
	[EV_NVRM_OTHER] = "another driver (NVRM) error",
	[EV_SUSPEND] = "the host suspended",
	[EV_RESUME] = "the host resumed",
	[EV_AC_OFF] = "AC power went off (on battery)",
	[EV_AC_ON] = "AC power came back",
	[EV_LID] = "the lid was closed or opened",
	[EV_POWER_KEY] = "the power key was pressed",
	[EV_POWER_OFF] = "the host powered off or rebooted",
	[EV_BOOT] = "a new boot",
	[EV_CONTAINER_START] = "a container started",
	[EV_CONTAINER_STOP] = "a container stopped",
};

static const char *event_meaning(int ev, int32_t code)
{
	if (ev == EV_XID) {
		const struct xid_info *x = code >= 0 ? xid_lookup(code) : NULL;
		return x ? x->meaning : "an Xid not in the catalog (its text is kept in --json)";
	}
	return ev >= 0 && ev < EV__COUNT && kind_words[ev] ? kind_words[ev] : "an event";
}

/* ": 3 Xids (2 hardware, 1 application), 4.00 per GPU-day": a GPU's error density. */
static void xid_density(FILE *out, const struct report *r, int gpu)
{
	const struct analysis *an = r->an;
	const uint64_t *by = gpu >= 0 ? an->gpus[gpu].xid_class : an->host_xid_class;
	uint64_t n = gpu >= 0 ? r->gpus[gpu].xids_classed : r->host_xids_classed;
	bool first = true;

	if (!n)
		return;
	fprintf(out, ": %" PRIu64 " Xid%s (", n, n == 1 ? "" : "s");
	for (int c = 0; c < KC__COUNT; c++)
		if (by[c]) {
			fprintf(out, "%s%" PRIu64 " %s", first ? "" : ", ", by[c], kev_class_name[c]);
			first = false;
		}
	fputc(')', out);
	if (gpu >= 0 && isfinite(r->gpus[gpu].xids_per_day))
		fprintf(out, ", %.2f per GPU-day", r->gpus[gpu].xids_per_day);
}

/* One line per GPU (host last), kind and code: how many, when, what it means. */
static void events(FILE *out, const struct report *r)
{
	const struct analysis *an = r->an;
	size_t shown = 0, ngroups = 0;

	if (!an->nevs)
		return;
	fprintf(out, "\nEvents (%" PRIu64 "%s; grouped by GPU, kind and code; --json lists each)\n", r->events_total,
		an->unplaced_events ? ", some unplaced: no anchor gave them a time" : "");
	for (size_t i = 0; i < r->nevgroups && shown < MAX_TEXT_EVENT_GROUPS; i++) {
		const struct report_evgroup *g = &r->evgroups[i];
		const struct an_event *e = &an->evs[g->ev];
		const struct an_event *copied = g->copied != SIZE_MAX ? &an->evs[g->copied] : NULL;
		char l[128], a[40], b[40], name[48], cls[40] = "";
		bool one = e->unplaced || g->n == 1;
		/* a GPU's header before its first group (host last) */
		if (!i || an->evs[r->evgroups[i - 1].ev].gpu != e->gpu) {
			fprintf(out, "  %s", e->gpu >= 0 ? gpu_label(l, sizeof(l), an, e->gpu) :
				"host (or a GPU no map names)");
			xid_density(out, r, e->gpu);
			fputc('\n', out);
		}
		analysis_event_name(name, sizeof(name), e->ev, e->code);
		if (e->klass != KC_NONE && e->klass < KC__COUNT)
			snprintf(cls, sizeof(cls), ", %s", kev_class_name[e->klass]);
		fprintf(out, "    %-22s x%-4zu %s%s%s%s: %s\n", name, g->n,
			e->unplaced ? "unplaced" : when(a, sizeof(a), g->t_min_ns),
			one ? "" : " .. ", one ? "" : when(b, sizeof(b), g->t_max_ns), cls,
			event_meaning(e->ev, e->code));
		if (g->lines > g->n)
			fprintf(out, "    %-22s (%" PRIu64 " lines folded into %zu)\n", "", g->lines, g->n);
		/* first in time (unplaced: first listed) */
		fprintf(out, "    %-22s first: %s:%" PRIu64 "%s%s%s\n", "", e->src ? e->src : "?", e->line,
			e->pci[0] ? "  pci " : "", e->pci, e->flags & KF_DOWN ? "  (fatal: GPU down)" :
			e->flags & KF_CONSEQUENCE ? "  (a consequence, not a cause)" : "");
		if (copied)
			fprintf(out, "    %-22s also in: %s:%" PRIu64 " (%" PRIu64 " %s of these in other inputs, "
				"counted once)\n", "", copied->also[0].src, copied->also[0].line, g->copies,
				g->copies == 1 ? "copy" : "copies");
		shown++;
	}
	ngroups = r->nevgroups;
	if (ngroups > shown)
		fprintf(out, "  ... %zu more groups in --json\n", ngroups - shown);
	if (an->evs_dropped)
		fprintf(out, "  ... %" PRIu64 " events beyond the first %zu kept are counted only\n",
			an->evs_dropped, an->cfg.max_events);
}

/* Outages after fatal events, and what they cost. */
static void outages(FILE *out, const struct report *r)
{
	const struct analysis *an = r->an;
	char l[128], a[40], b[40], d[32], name[48], c[80];

	if (!an->noutages)
		return;
	fprintf(out, "\nOutages (a fatal event to the GPU's next healthy sample, or to the end of the data)\n");
	for (size_t i = 0; i < an->noutages && i < MAX_TEXT_SEGMENTS; i++) {
		const struct outage *o = &an->outages[i];
		analysis_event_name(name, sizeof(name), o->ev, o->code);
		fprintf(out, "  %-22.22s down %s .. %s (%s) after %s, %s:%" PRIu64 "\n",
			gpu_label(l, sizeof(l), an, o->gpu), when(a, sizeof(a), o->t0_ns),
			when(b, sizeof(b), o->t1_ns), time_human_dur(d, sizeof(d), o->t1_ns - o->t0_ns),
			name, o->src ? o->src : "?", o->line);
	}
	if (an->noutages > MAX_TEXT_SEGMENTS)
		fprintf(out, "  ... %zu more in --json\n", an->noutages - MAX_TEXT_SEGMENTS);
	if (r->has_prices)
		fprintf(out, "  the outage cost %.*f GPU-hours, %s at your rates (%s per covered GPU-hour)\n",
			r->outage_s >= 360 ? 1 : 4, r->outage_s / 3600, money(c, sizeof(c), r, r->outage_cost),
			money(a, sizeof(a), r, r->cost_per_gpu_hour));
	else
		fprintf(out, "  the outage cost %.*f GPU-hours (no prices given to put a cost on them)\n",
			r->outage_s >= 360 ? 1 : 4, r->outage_s / 3600);
	fprintf(out, "  no utilization, power or energy is counted while a GPU is down\n");
}

/* Records the timeline could not put on a GPU: never dropped in silence. */
static void unplaced(FILE *out, const struct report *r)
{
	const struct timeline *tl = &r->an->tl;

	if (tl->dropped_no_gpu)
		fprintf(out, "\nNot counted: %" PRIu64 " record(s) name no GPU (no index and no uuid, "
			"and no single GPU they could belong to): their time, energy and processes are in no total\n", tl->dropped_no_gpu);
	if (tl->dropped_too_many)
		fprintf(out, "\nNot counted: %" PRIu64 " record(s) of GPUs beyond the first %d\n", tl->dropped_too_many,
			TL_MAX_GPUS);
}

void report_text(FILE *out, const struct report *r)
{
	summary(out, r);
	if (r->t0_ns == INT64_MAX) {
		inputs(out, r);
		unplaced(out, r);
		skipped(out, r);
		return;
	}
	gpus(out, r);
	by_day(out, r);
	states(out, r);
	findings(out, r);
	outages(out, r);
	events(out, r);
	processes(out, r);
	report_attrib_text(out, r);
	traces(out, r);
	cost(out, r);
	report_fleet_text(out, r);
	segments(out, r);
	/* the details of what was read last: the first screen sums them up */
	inputs(out, r);
	unplaced(out, r);
	skipped(out, r);
}
