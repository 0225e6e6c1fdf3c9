/* SPDX-License-Identifier: MIT */
/*
 * The HTML rendering of a report: one self-contained page for people who
 * sign GPU budgets.  No network request of any kind (a Content-Security-
 * Policy of default-src 'none' says so to the browser too), no script: the
 * charts are inline SVG with <title> hover text, and read the same with
 * JavaScript off or printed.
 *
 * Every figure comes from struct report, the same one --json prints.  A
 * figure shown carries its JSON path and the JSON's own text of the value
 * (data-key, data-value, data-scale): tests/html/check.py compares
 * them with --json, and a reader can find the number in the JSON.
 */
#include "report/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/svg.h"
#include "util/jsonw.h"
#include "util/numfmt.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

#define MAX_FINDINGS_LISTED 200
#define MAX_MARKERS 300
#define MAX_EXACT_SEGMENTS 2000
#define MAX_PROCS_DRAWN 40
#define MAX_BAD_LISTED 50

/* Chart geometry (SVG user units; the page scales them to its width). */
#define W 960
#define ML 86		/* left margin: axis labels */
#define MR 16
#define PW (W - ML - MR)

struct hw {
	FILE *out;
	const struct report *r;
	int nchart;
};

/* ---- numbers that come from the JSON ------------------------------------ */

static const char *disp(char *buf, size_t cap, double v, int sdec)
{
	if (isnan(v))
		return "n/a";
	if (isinf(v))
		return v > 0 ? "&#8734;" : "-&#8734;";
	snprintf(buf, cap, "%.*f", sdec, v == 0 ? 0 : v);
	return buf;
}

/*
 * A number of the JSON at path (printf-style): the JSON's own text of it
 * (jdec decimals, like json.c) and, shown, val x scale to sdec decimals.
 */
static void __attribute__((format(printf, 6, 7)))
vnum(struct hw *h, double val, int jdec, double scale, int sdec, const char *fmt, ...)
{
	char key[160], j[64], d[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	/* shown: the JSON's value, not val, scaled, so that rounding twice
	 * (37.9499 -> "37.95" -> 38.0) says what a reader of the JSON gets */
	if (isfinite(val))
		val = strtod(fmt_num(j, sizeof(j), val, jdec), NULL);
	fprintf(h->out, "<span class=\"v\" data-key=\"%s\" data-value=\"%s\" data-scale=\"%.17g\" data-dec=\"%d\">%s</span>",
		key, isfinite(val) ? j : "null", scale, sdec, disp(d, sizeof(d), isfinite(val) ? val * scale : val, sdec));
}

static int money_dec(double v)
{
	return nf_money_decimals(v);	/* util/numfmt.h, as every writer */
}

static const char *cur(const struct report *r)
{
	return r->params.currency[0] ? r->params.currency : "(currency units)";
}

/* A money figure of the JSON (6 decimals there) with the currency. */
static void __attribute__((format(printf, 3, 4)))
vmoney(struct hw *h, double val, const char *fmt, ...)
{
	char key[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	vnum(h, val, 6, 1, money_dec(val), "%s", key);
	fprintf(h->out, "&#160;");
	svg_esc(h->out, cur(h->r));
}

static void gpu_label(char *buf, size_t cap, const struct analysis *an, int gi)
{
	const struct gpu_ident *id = &an->tl.gpus[gi].id;
	if (id->index >= 0)
		snprintf(buf, cap, "GPU %d%s%s", id->index, id->name[0] ? " " : "", id->name);
	else
		snprintf(buf, cap, "GPU ?%s%s", id->name[0] ? " " : "", id->name[0] ? id->name : id->uuid);
}

/* time_human_dur() to the second, milliseconds below one */
static const char *dur(char *buf, size_t cap, int64_t ns)
{
	if (ns > 0 && ns < NS_PER_S) {
		snprintf(buf, cap, "%d ms", (int)(ns / NS_PER_MS));
		return buf;
	}
	return time_human_dur(buf, cap, ns);
}

static void esc(struct hw *h, const char *s)
{
	svg_esc(h->out, s);
}

static void when(struct hw *h, int64_t t)
{
	char b[48];
	esc(h, time_rfc3339(b, sizeof(b), t));
}

/* ---- page frame --------------------------------------------------------- */

static const char css[] =
	":root{--fg:#1b1b1b;--bg:#fff;--mut:#5a5a5a;--grid:#d9d9d9;--card:#f6f6f6;--down:#000;"
	"--c-util:#0072B2;--c-mem:#E69F00;--c-pow:#D55E00;--c-fb:#009E73;--c-temp:#CC79A7;--c-clk:#56B4E9;"
	"--c-own:#D55E00;--c-cloud:#0072B2;--c-lo:#56B4E9;--c-hi:#E69F00}\n"
	"@media (prefers-color-scheme:dark){:root{--fg:#e8e8e8;--bg:#151515;--mut:#a8a8a8;--grid:#3a3a3a;"
	"--card:#222;--down:#f0f0f0}}\n"
	"body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:var(--fg);"
	"background:var(--bg);max-width:1040px;margin:0 auto;padding:1em 1.2em}\n"
	"h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.25em;margin:1.6em 0 .4em;border-bottom:1px solid var(--grid)}"
	"h3{font-size:1.05em;margin:1.2em 0 .3em}\n"
	"table{border-collapse:collapse;margin:.4em 0;font-size:.92em}th,td{padding:.18em .55em;"
	"border-bottom:1px solid var(--grid);text-align:left;vertical-align:top}"
	"td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
	".summary{background:var(--card);padding:.6em 1em;border-radius:6px}.summary th{width:12em}\n"
	".verdict{font-size:1.1em;font-weight:600}.mut,figcaption{color:var(--mut);font-size:.9em}\n"
	".sev-critical{color:#D55E00;font-weight:600}.sev-warning{color:#B8860B}\n"
	"figure{margin:.8em 0 1.4em}svg{display:block;width:100%;height:auto;max-width:100%}\n"
	"svg text{fill:var(--fg);font:11px system-ui,sans-serif}svg .mut{fill:var(--mut)}"
	"svg .ax{stroke:var(--mut);stroke-width:1}svg .grid{stroke:var(--grid);stroke-width:1}\n"
	".st0{fill:#BBBBBB;background:#BBBBBB}.st1{fill:#E69F00;background:#E69F00}.st2{fill:#009E73;background:#009E73}"
	".st3{fill:#0072B2;background:#0072B2}.st4{fill:#F0E442;background:#F0E442}.st5{fill:#CC79A7;background:#CC79A7}"
	".st6{fill:#D55E00;background:#D55E00}.st7{fill:url(#pat-down);background:#000}"
	".st8{fill:url(#pat-unknown);background:#DDDDDD}"
	".st9{fill:url(#pat-gap);background:repeating-linear-gradient(45deg,#999 0 2px,transparent 2px 5px)}\n"
	"@media print{.sw{print-color-adjust:exact;-webkit-print-color-adjust:exact}}\n"
	".sw{display:inline-block;width:.9em;height:.9em;vertical-align:-.1em;margin-right:.3em;border:1px solid var(--mut)}\n"
	"details{margin:.3em 0}summary{cursor:pointer;color:var(--mut)}code{font-size:.92em}\n"
	".wide{overflow-x:auto;max-width:100%}td code,td.path{overflow-wrap:anywhere}.wide th.n{white-space:normal}\n"
	"@media print{body{max-width:none;font-size:11pt;color:#000;background:#fff}"
	"figure,table,.summary{break-inside:avoid}h2{break-after:avoid}details{display:block}"
	"details>*{display:block}summary{display:none}}\n";

static void pattern_defs(struct hw *h)
{
	/* shared by every chart: the states that a colour alone would not tell apart */
	fprintf(h->out,
		"<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\" focusable=\"false\"><defs>"
		"<pattern id=\"pat-gap\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
		"<rect width=\"6\" height=\"6\" fill=\"#ffffff\" fill-opacity=\"0.05\"/>"
		"<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#999999\" stroke-width=\"2\"/></pattern>"
		"<pattern id=\"pat-down\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">"
		"<rect width=\"6\" height=\"6\" fill=\"#000000\"/>"
		"<path d=\"M0 0L6 6M6 0L0 6\" stroke=\"#D55E00\" stroke-width=\"1.2\"/></pattern>"
		"<pattern id=\"pat-unknown\" width=\"5\" height=\"5\" patternUnits=\"userSpaceOnUse\">"
		"<rect width=\"5\" height=\"5\" fill=\"#DDDDDD\"/><circle cx=\"2.5\" cy=\"2.5\" r=\"1\" fill=\"#777777\"/></pattern>"
		"</defs></svg>\n");
}

/* Open a chart: <figure><svg> with its <title> and <desc> (the text alternative). */
static void chart_begin(struct hw *h, int height, const char *title, const char *desc)
{
	int n = ++h->nchart;

	fprintf(h->out, "<figure><svg class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" aria-labelledby=\"c%d-t c%d-d\">"
		"<title id=\"c%d-t\">", W, height, n, n, n);
	esc(h, title);
	fprintf(h->out, "</title><desc id=\"c%d-d\">", n);
	esc(h, desc);
	fprintf(h->out, "</desc>\n");
}

static void chart_end(struct hw *h, const char *caption)
{
	fprintf(h->out, "</svg><figcaption>");
	esc(h, caption);
	fprintf(h->out, "</figcaption></figure>\n");
}

static void text_at(struct hw *h, double x, double y, const char *anchor, const char *cls, const char *s)
{
	fprintf(h->out, "<text x=\"%.1f\" y=\"%.1f\"", x, y);
	if (anchor)
		fprintf(h->out, " text-anchor=\"%s\"", anchor);
	if (cls)
		fprintf(h->out, " class=\"%s\"", cls);
	fputc('>', h->out);
	esc(h, s);
	fprintf(h->out, "</text>");
}

/* The state swatches from y on; returns the baseline of the last row. */
static double legend_states(struct hw *h, double y, const bool *which)
{
	double x = ML;

	for (int s = 0; s < ST__COUNT; s++) {
		if (which && !which[s])
			continue;
		if (x + 130 > W) {
			x = ML;
			y += 16;
		}
		fprintf(h->out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" class=\"st%d\" stroke=\"#777\"/>",
			x, y - 10, s);
		text_at(h, x + 16, y, NULL, NULL, state_name[s]);
		x += 24 + 7.0 * (double)strlen(state_name[s]);
	}
	return y;
}

/* ---- summary, inputs, GPUs --------------------------------------------- */

/* Findings in the analysis' one order (severity, the kinds that always
 * appear, cost: analysis_rank_findings()); the writers never sort them. */
static const struct finding **findings_by_weight(const struct analysis *an)
{
	const struct finding **v = xcalloc(an->nfinds ? an->nfinds : 1, sizeof(*v));

	for (size_t i = 0; i < an->nfinds; i++)
		v[i] = &an->finds[i];
	return v;
}

static size_t find_index(const struct analysis *an, const struct finding *f)
{
	return (size_t)(f - an->finds);
}

/* The Prices row: the figures taken from docs/prices.md, or why there are none. */
static void prices_row(struct hw *h)
{
	const struct report *r = h->r;
	static const int keys[] = { COST_HARDWARE_PRICE, COST_CLOUD_HOURLY_RATE, COST_ELECTRICITY_PRICE };
	static const char *const what[] = { "purchase", "cloud, per hour", "electricity, per kWh" };
	bool first = true;

	if (r->prices.unknown) {
		fprintf(h->out, "<tr><th>Prices</th><td>");
		esc(h, r->prices.gpu_name[0] ? r->prices.gpu_name : "The logs do not name the GPU model, which");
		fprintf(h->out, " is not in the built-in price table (docs/prices.md): no verdict. Give yours: "
			"<code>--profile FILE</code> or <code>--set hardware_price=N --set cloud_hourly_rate=N "
			"--set electricity_price=N</code></td></tr>\n");
		return;
	}
	if (r->prices.yours) {
		fprintf(h->out, "<tr><th>Prices</th><td>yours (<code>--set</code>), none assumed: %s</td></tr>\n",
			r->prices.gpu_name[0] ? "the GPU model is not in the built-in price table (docs/prices.md)" :
			"the logs do not name the GPU model");
		return;
	}
	if (!r->prices.used)
		return;
	fprintf(h->out, "<tr><th>Prices</th><td><b>assumed</b>, not yours (docs/prices.md, row ");
	esc(h, r->prices.row->model);
	fprintf(h->out, "): ");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (r->params.origin[keys[i]] != COST_ASSUMED)
			continue;
		fprintf(h->out, "%s%s ", first ? "" : ", ", what[i]);
		vmoney(h, cost_param_get(&r->params, (size_t)keys[i]), "cost.params.%s.value", cost_param_info((size_t)keys[i])->key);
		first = false;
	}
	fprintf(h->out, "%s. Yours: <code>--profile FILE</code> or <code>--set KEY=VALUE</code>.</td></tr>\n",
		r->prices.old ? "; some figures are more than a year old" : "");
}

/* The Cloud rate row: what --cloud-catalog gave (cost.catalog), or why nothing. */
static void catalog_row(struct hw *h)
{
	const struct report *r = h->r;
	const struct cloud_catalog *c = r->catalog;
	const struct catalog_pick *p = &r->cat.pick;

	if (!c)
		return;
	fprintf(h->out, "<tr><th>Cloud rate</th><td>");
	if (!p->nrows) {
		fprintf(h->out, "<code>");
		esc(h, c->name);
		fprintf(h->out, "</code> has no accelerator matching ");
		esc(h, r->prices.gpu_name[0] ? r->prices.gpu_name : "the GPU (the logs do not name its model)");
		fprintf(h->out, ": the cloud rate is not from it</td></tr>\n");
		return;
	}
	fprintf(h->out, "%s", r->cat.used ? "" : "not used (<code>cloud_hourly_rate</code> was <code>--set</code>): ");
	vmoney(h, p->median, "cost.catalog.median");
	fprintf(h->out, " per GPU-hour from <code>");
	esc(h, c->name);
	fprintf(h->out, "</code> (");
	esc(h, c->date);
	fprintf(h->out, ", from the ");
	esc(h, c->date_from);
	fprintf(h->out, "): the median of %zu ", p->nrows);
	esc(h, p->accel);
	fprintf(h->out, " rows, ");
	vmoney(h, p->min, "cost.catalog.min");
	fprintf(h->out, " to ");
	vmoney(h, p->max, "cost.catalog.max");
	if (r->cat.old)
		fprintf(h->out, "; <b>more than a year old</b> (%d months)", r->cat.age_months);
	fprintf(h->out, "</td></tr>\n");
}

/* Where the rest went: the three states that bought no work, with time and money; the files not read. */
static void rest_row(struct hw *h)
{
	const struct report *r = h->r;
	char a[32];
	size_t listed = 0;

	if (r->ntop_causes) {
		fprintf(h->out, "<tr><th>Not useful</th><td>");
		for (int i = 0; i < r->ntop_causes; i++) {
			int s = r->top_cause[i];
			fprintf(h->out, "%s%s ", i ? "; " : "", state_label[s]);
			esc(h, time_human_dur(a, sizeof(a), (int64_t)(r->state_s[s] * 1e9)));
			if (r->has_prices) {
				fprintf(h->out, ", ");
				int wk = 0;	/* its index in the JSON's cost.waterfall (no gap row there) */
				for (int t = 0; t < s; t++)
					wk += t != ST_GAP;
				vmoney(h, r->state_cost[s], "cost.waterfall.%d.cost", wk);
			}
		}
		fprintf(h->out, "</td></tr>\n");
	}
	if (!r->not_telemetry)
		return;
	fprintf(h->out, "<tr><th>Not telemetry</th><td>%zu file%s: ", r->not_telemetry, r->not_telemetry == 1 ? "" : "s");
	for (size_t i = 0; i < r->inputs->nr; i++) {
		const struct input_stat *in = &r->inputs->inputs[i];
		const char *base = strrchr(in->path, '/');
		if (!report_not_telemetry(in))
			continue;
		if (listed++ == 4) {
			fprintf(h->out, ", ...");
			break;
		}
		fprintf(h->out, "%s<code>", listed > 1 ? ", " : "");
		esc(h, base ? base + 1 : in->path);
		fprintf(h->out, "</code>");
	}
	fprintf(h->out, " (<a href=\"#inputs\">inputs</a>, at the end)</td></tr>\n");
}


/*
 * A finding's value as people read it, in its kind's unit (docs/report-json.md,
 * findings[].value): a leak's MiB/h or GiB/h, a stretch's time, idle power in
 * W.  False for the kinds whose value has no unit worth showing beside their
 * message (the JSON keeps the number).
 */
static bool finding_value_text(char *buf, size_t cap, const struct finding *f)
{
	if (!isfinite(f->value))
		return false;
	switch (f->fk) {
	case FK_MEMORY_LEAK:
	case FK_MEMORY_LEAK_SAWTOOTH:
		nf_mib_rate(buf, cap, f->value);
		return true;
	case FK_HELD_IDLE:
	case FK_INPUT_STARVED:
	case FK_LAUNCH_BOUND:
	case FK_THROTTLING:
	case FK_GPU_DOWN:
	case FK_LOG_GAP:
		time_human_dur(buf, cap, (int64_t)(f->value * 1e9));
		return true;
	case FK_IDLE_POWER:
		snprintf(buf, cap, "%.0f W", f->value);
		return true;
	default:
		return false;
	}
}
static void summary(struct hw *h, const struct finding **byw)
{
	const struct report *r = h->r;
	const struct analysis *an = r->an;

	fprintf(h->out, "<section id=\"summary\"><h2>Summary</h2>\n<table class=\"summary\">\n");
	fprintf(h->out, "<tr><th>Window</th><td>");
	if (r->t0_ns == INT64_MAX) {
		fprintf(h->out, "no GPU samples in the inputs</td></tr></table></section>\n");
		return;
	}
	when(h, r->t0_ns);
	fprintf(h->out, " to ");
	when(h, r->t1_ns);
	fprintf(h->out, " (UTC)</td></tr>\n");
	if (r->zone_assumed) {
		fprintf(h->out, "<tr><th>Zone</th><td>%zu input(s) whose stamps carry no zone were read in ",
			r->zone_assumed_inputs);
		esc(h, r->zone_assumed);
		fprintf(h->out, ": no zoned evidence set their zone, so it is assumed (--tz sets it)</td></tr>\n");
	}
	if (r->file_time_inputs)
		fprintf(h->out, "<tr><th>File time</th><td>%zu input(s) with no time or no date in them were placed "
			"by their file modification times, an assumption a copy moves (--start, --date set "
			"it)</td></tr>\n", r->file_time_inputs);
	fprintf(h->out, "<tr><th>GPUs</th><td>%d</td></tr>\n", an->tl.ngpus);
	fprintf(h->out, "<tr><th>Covered</th><td>");
	vnum(h, r->covered_h, 6, 1, 3, "cost.window.covered_h");
	fprintf(h->out, " GPU-hours, ");
	vnum(h, r->gaps_h, 6, 1, 3, "cost.window.gaps_h");
	fprintf(h->out, " h in gaps (not counted as idle)</td></tr>\n<tr><th>Useful share</th><td>");
	if (r->busy_unknown) {
		fprintf(h->out, "unknown: no utilization reading");
	} else {
		vnum(h, r->win.u_obs, 6, 100, 1, "cost.window.u_obs");
		fprintf(h->out, " %% busy (");
		vnum(h, r->busy_h, 6, 1, 3, "cost.window.busy_h");
		fprintf(h->out, " busy GPU-hours); mean utilization ");
		vnum(h, r->util_mean_pct, 2, 1, 1, "cost.window.mean_utilization_pct");
		fprintf(h->out, " %%");
	}
	fprintf(h->out, "</td></tr>\n<tr><th>Energy</th><td>");
	vnum(h, r->energy_j, 1, 1 / 3.6e6, 3, "cost.window.energy_j");
	fprintf(h->out, " kWh (");
	esc(h, r->energy_source);
	fprintf(h->out, ")");
	if (!isnan(r->co2e_kg)) {
		fprintf(h->out, ", ");
		vnum(h, r->co2e_kg, 6, 1, nf_money_decimals(r->co2e_kg), "cost.window.co2e_kg");
		fprintf(h->out, " kg CO2e at ");
		vnum(h, r->params.grid_gco2_per_kwh, 6, 1, 0, "cost.params.grid_gco2_per_kwh.value");
		fprintf(h->out, " g/kWh%s", r->params.origin[COST_GRID_GCO2_PER_KWH] == COST_ASSUMED ? " (assumed)" : "");
	}
	fprintf(h->out, "</td></tr>\n");
	prices_row(h);
	catalog_row(h);
	fprintf(h->out, "<tr><th>Cost</th><td>");
	if (r->has_prices) {
		vmoney(h, r->win.local_cost, "cost.window.local_cost");
		fprintf(h->out, " to own for this window, ");
		vmoney(h, r->win.cloud_cost, "cost.window.cloud_cost");
		fprintf(h->out, " to rent the same useful work");
		if (!isnan(r->win.premium_pct)) {
			/* the JSON's signed premium: negative when owning saves */
			fprintf(h->out, " (owning premium ");
			vnum(h, r->win.premium_pct, 2, 1, 1, "cost.window.premium_pct");
			fprintf(h->out, " %%: owning %s)", r->win.premium_pct >= 0 ? "costs more" : "saves");
		}
	} else {
		fprintf(h->out, "no prices given (<code>--profile NAME</code> or <code>--set KEY=VALUE</code>)");
	}
	fprintf(h->out, "</td></tr>\n<tr><th>Verdict</th><td class=\"verdict\">%s",
		r->prices.used ? "<b>(assumed prices)</b> " : "");
	esc(h, r->verdict);
	fprintf(h->out, "</td></tr>\n");
	rest_row(h);
	fprintf(h->out, "</table>\n");
	fprintf(h->out, "<h3>Largest findings</h3>\n");
	if (!an->nfinds)
		fprintf(h->out, "<p>None.</p>\n");
	else
		fprintf(h->out, "<ol>\n");
	for (size_t i = 0; i < an->nfinds && i < 3; i++) {
		const struct finding *f = byw[i];
		char v[48];
		fprintf(h->out, "<li><span class=\"sev-%s\">[%s]</span> <b>", severity_name[f->severity],
			severity_name[f->severity]);
		esc(h, f->kind);
		fprintf(h->out, "</b>: ");
		esc(h, f->message);
		if (finding_value_text(v, sizeof(v), f) && !strstr(f->message, v)) {
			fprintf(h->out, " <span class=\"mut\">(value ");
			esc(h, v);
			fprintf(h->out, ")</span>");
		}
		fprintf(h->out, "</li>\n");
	}
	if (an->nfinds)
		fprintf(h->out, "</ol>\n");
	fprintf(h->out, "</section>\n");
}

static void inputs(struct hw *h)
{
	const struct report *r = h->r;

	fprintf(h->out, "<section id=\"inputs\"><h2>What the audit stands on</h2>\n"
		"<table><thead><tr><th>file</th><th>format</th><th class=\"n\">lines</th><th class=\"n\">records</th>"
		"<th class=\"n\">skipped</th><th>time basis</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < r->inputs->nr; i++) {
		const struct input_stat *in = &r->inputs->inputs[i];
		fprintf(h->out, "<tr><td><code>");
		esc(h, in->path);
		fprintf(h->out, "</code>");
		if (in->compression && strcmp(in->compression, "plain")) {
			fprintf(h->out, " (");
			esc(h, in->compression);
			fprintf(h->out, ")");
		}
		fprintf(h->out, "</td><td>");
		esc(h, in->format ? in->format->id : "not read");
		fprintf(h->out, "</td><td class=\"n\">");
		vnum(h, (double)in->lines, 0, 1, 0, "inputs.%zu.lines", i);
		fprintf(h->out, "</td><td class=\"n\">");
		vnum(h, (double)in->records, 0, 1, 0, "inputs.%zu.records", i);
		fprintf(h->out, "</td><td class=\"n\">");
		vnum(h, (double)in->bad, 0, 1, 0, "inputs.%zu.skipped", i);
		fprintf(h->out, "</td><td>");
		esc(h, in->time_basis ? in->time_basis : "no timed records");
		if (in->partial_last_line)
			fprintf(h->out, "; last line has no newline");
		if (in->skip_reason[0]) {
			fprintf(h->out, "; ");
			esc(h, in->skip_reason);
		}
		fprintf(h->out, "</td></tr>\n");
	}
	fprintf(h->out, "</tbody></table>\n");
	if (r->bad_total) {
		/* by file and reason (report_compute's bad_groups), as the text and Markdown */
		fprintf(h->out, "<details><summary>%" PRIu64 " skipped line(s), by file and reason</summary><ul>\n",
			r->bad_total);
		for (size_t g = 0; g < r->nbad_groups && g < MAX_BAD_LISTED; g++) {
			const struct bad_line *b = &r->bad[r->bad_groups[g].first];
			fprintf(h->out, "<li><code>");
			esc(h, b->path);
			fprintf(h->out, ":%" PRIu64 ":%u</code>: ", b->line, b->col);
			esc(h, b->msg);
			if (r->bad_groups[g].n > 1)
				fprintf(h->out, " (%" PRIu64 " lines, the first at line %" PRIu64 ")", r->bad_groups[g].n,
					b->line);
			fprintf(h->out, "</li>\n");
		}
		if (r->nbad_groups > MAX_BAD_LISTED)
			fprintf(h->out, "<li>... %zu more reasons in --json</li>\n", r->nbad_groups - MAX_BAD_LISTED);
		if (r->bad_total > r->nbad)
			fprintf(h->out, "<li>... %" PRIu64 " more lines not kept (the first %zu are)</li>\n",
				r->bad_total - r->nbad, r->nbad);
		fprintf(h->out, "</ul></details>\n");
	}
	fprintf(h->out, "</section>\n");
}

static void money_text(char *buf, size_t cap, const struct report *r, double v)
{
	nf_money(buf, cap, v, cur(r));
}

#define MONTH_MAX_CELLS 6000	/* more GPU-days than this: the all-GPU row only */
#define MONTH_HOUR_COLS 4	/* the hours x days grids: this many GPUs a row */

/* A heatmap cell of a useful share: darker is busier, hatched (NAN) is no data. */
static void heat_cell(struct hw *h, double x, double y, double w, double ht, double share)
{
	fprintf(h->out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"%.2f\" ", x, y, w, ht);
	if (isfinite(share))
		fprintf(h->out, "style=\"fill:var(--c-util);fill-opacity:%.2f\">", 0.06 + 0.94 * share);
	else
		fprintf(h->out, "style=\"fill:url(#pat-gap)\">");
}

/* The heatmaps' key: five cells from 0 to 100 % useful, and the hatch of no data, ending at x_end. */
static void heat_legend(struct hw *h, double x_end, double y)
{
	double x = x_end - 5 * 54 - 70;
	char b[16];

	for (int i = 0; i <= 4; i++) {
		heat_cell(h, x + i * 54, y - 9, 12, 10, i / 4.0);
		fprintf(h->out, "</rect>");
		snprintf(b, sizeof(b), "%d %%", 25 * i);
		text_at(h, x + i * 54 + 15, y, NULL, "mut", b);
	}
	heat_cell(h, x + 5 * 54 + 10, y - 9, 12, 10, NAN);
	fprintf(h->out, "</rect>");
	text_at(h, x + 5 * 54 + 25, y, NULL, "mut", "no data");
}

/*
 * The month at a glance: a days x GPUs heatmap of the useful share (darker
 * is busier, hatched is no data), each cell's figures in its title, and the
 * owned cost of each day as bars under it.  Every figure is report/month.c's.
 */
static void month_days(struct hw *h)
{
	const struct report *r = h->r;
	size_t ng = (size_t)r->an->tl.ngpus, nd = r->ndays, rows, step;
	double cw, maxc = 0, top = 24, base;
	int cell_h, height, hm_h, bars_h = 60;
	char b[200], m1[64], desc[300];
	bool per_gpu;

	per_gpu = nd * ng <= MONTH_MAX_CELLS;
	rows = per_gpu ? ng : 1;
	cell_h = rows <= 16 ? 18 : rows <= 64 ? 8 : 4;
	hm_h = (int)rows * cell_h;
	height = (int)top + hm_h + 24 + bars_h + 30;
	cw = (double)PW / (double)nd;
	for (size_t d = 0; d < nd; d++)
		if (isfinite(r->dayt_cost[d]))
			maxc = fmax(maxc, r->dayt_cost[d]);
	snprintf(desc, sizeof(desc), "For each of %zu UTC days, the useful share of %s's covered time as the darkness "
		 "of a cell, and the owned cost of the day as a bar.", nd, per_gpu ? "each GPU" : "all GPUs");
	chart_begin(h, height, "Useful share by day and GPU, and the owned cost of each day", desc);
	heat_legend(h, ML + PW, top - 8);
	for (size_t g = 0; g < rows && cell_h >= 12; g++) {
		snprintf(b, sizeof(b), per_gpu ? "GPU %zu" : "all GPUs", g);
		text_at(h, ML - 6, top + (double)g * cell_h + cell_h - 5, "end", "mut", b);
	}
	for (size_t d = 0; d < nd; d++) {
		int y, m, dd;
		civil_from_days(r->day_first + (int64_t)d, &y, &m, &dd);
		for (size_t g = 0; g < rows; g++) {
			size_t k = d * ng + g;
			double cov = per_gpu ? r->day_covered_s[k] : r->dayt_covered_s[d];
			double share = per_gpu ? r->day_u[k] : r->dayt_u[d];
			double cost = per_gpu ? r->day_cost[k] : r->dayt_cost[d];
			heat_cell(h, ML + (double)d * cw, top + (double)g * cell_h, cw > 1.5 ? cw - 1 : cw, cell_h - 1, share);
			if (r->has_prices)
				money_text(m1, sizeof(m1), r, cost);
			else
				snprintf(m1, sizeof(m1), "no prices");
			if (per_gpu)
				snprintf(b, sizeof(b), "GPU %zu", g);
			else
				snprintf(b, sizeof(b), "all GPUs");
			fprintf(h->out, "<title>%s, %04d-%02d-%02d: useful %.1f %% of %.1f h covered; owned %s</title></rect>", b,
				y, m, dd, isfinite(share) ? 100 * share : 0, cov / 3600, m1);
		}
	}
	/* the days' labels: about ten */
	step = nd / 10 + 1;
	for (size_t d = 0; d < nd; d += step) {
		int y, m, dd;
		civil_from_days(r->day_first + (int64_t)d, &y, &m, &dd);
		snprintf(b, sizeof(b), "%02d-%02d", m, dd);
		text_at(h, ML + ((double)d + 0.5) * cw, top + hm_h + 14, "middle", "mut", b);
	}
	base = top + hm_h + 24 + bars_h;
	if (maxc > 0) {
		for (size_t d = 0; d < nd; d++) {
			double bh = bars_h * r->dayt_cost[d] / maxc;
			int y, m, dd;
			civil_from_days(r->day_first + (int64_t)d, &y, &m, &dd);
			money_text(m1, sizeof(m1), r, r->dayt_cost[d]);
			fprintf(h->out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" style=\"fill:var(--c-own)\">"
				"<title>%04d-%02d-%02d: owned %s</title></rect>", ML + (double)d * cw, base - bh,
				cw > 1.5 ? cw - 1 : cw, bh, y, m, dd, m1);
		}
		money_text(m1, sizeof(m1), r, maxc);
		snprintf(b, sizeof(b), "owned cost per day (highest %s)", m1);
		text_at(h, ML, base + 16, NULL, "mut", b);
	} else {
		text_at(h, ML, base, NULL, "mut", "no prices: no cost per day (--profile or --set)");
	}
	chart_end(h, "Darker is busier (the share of covered time in useful states); hatched: no data that day. "
		  "Hover a cell for its figures; --json has them under days.");
}

/*
 * The gap to break-even over time: each day's useful share against u*
 * (above the line, owning paid that day), and under it the running sum of
 * owned minus rented cost (above zero: owning has cost more so far).
 */
static void month_gap(struct hw *h)
{
	const struct report *r = h->r;
	size_t nd = r->ndays;
	bool have_u = r->lr.status != COST_NEVER && isfinite(r->lr.u_star) && r->lr.u_star <= 1;
	bool rent = r->has_prices && r->params.cloud_hourly_rate > 0 && isfinite(r->dayt_gap_cum[nd - 1]);
	double t1 = 24, b1 = 134, t2 = 170, b2 = 280, cw = (double)PW / (double)nd, umax = 1, glo = 0, ghi = 0, t[12];
	int height = rent ? 316 : 170;
	struct svg_scale ys1, ys2;
	char b[200], m1[64], desc[400];
	size_t n;
	bool open = false;

	for (size_t d = 0; d < nd; d++) {
		glo = fmin(glo, r->dayt_gap_cum[d]);
		ghi = fmax(ghi, r->dayt_gap_cum[d]);
	}
	if (ghi - glo < 1e-9)
		ghi = glo + 1;	/* a flat line at 0: still an axis */
	if (rent)
		money_text(m1, sizeof(m1), r, r->dayt_gap_cum[nd - 1]);
	snprintf(desc, sizeof(desc), "Each UTC day's useful share of all GPUs' covered time%s%s.",
		 have_u ? " against the break-even utilization u*" : "",
		 rent ? "; below, owned minus rented cost summed day by day" : "");
	chart_begin(h, height, "The gap to break-even, day by day", desc);
	ys1 = (struct svg_scale){ 0, umax, b1, t1 };
	for (int u = 0; u <= 100; u += 25) {
		double y = svg_map(&ys1, u / 100.0);
		fprintf(h->out, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>", ML, ML + PW, y, y);
		snprintf(b, sizeof(b), "%d %%", u);
		text_at(h, ML - 4, y + 4, "end", "mut", b);
	}
	fprintf(h->out, "<path fill=\"none\" style=\"stroke:var(--c-util)\" stroke-width=\"2\" d=\"");
	for (size_t d = 0; d < nd; d++) {
		if (!isfinite(r->dayt_u[d])) {
			open = false;
			continue;
		}
		fprintf(h->out, "%c%.1f %.1f", open ? 'L' : 'M', ML + ((double)d + 0.5) * cw, svg_map(&ys1, r->dayt_u[d]));
		open = true;
	}
	fprintf(h->out, "\"/>");
	for (size_t d = 0; d < nd; d++) {
		int y, m, dd;
		if (!isfinite(r->dayt_u[d]))
			continue;
		civil_from_days(r->day_first + (int64_t)d, &y, &m, &dd);
		fprintf(h->out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" style=\"fill:var(--c-util)\"><title>%04d-%02d-%02d: "
			"useful %.1f %%</title></circle>", ML + ((double)d + 0.5) * cw, svg_map(&ys1, r->dayt_u[d]), y, m, dd,
			100 * r->dayt_u[d]);
	}
	if (have_u) {
		double y = svg_map(&ys1, r->lr.u_star);
		fprintf(h->out, "<line style=\"stroke:var(--c-own)\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\" x1=\"%d\" "
			"x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>", ML, ML + PW, y, y);
		snprintf(b, sizeof(b), "break-even u* %.1f %%: %zu of %zu days at or above it", 100 * r->lr.u_star,
			 r->days_at_ustar, nd);
		text_at(h, ML + PW - 4, y - 4, "end", NULL, b);
	}
	text_at(h, ML, t1 - 8, NULL, "mut", "useful share of the day (all GPUs)");
	if (rent) {
		n = svg_ticks(&glo, &ghi, 4, t, 12);
		ys2 = (struct svg_scale){ glo, ghi, b2, t2 };
		for (size_t i = 0; i < n; i++) {
			double y = svg_map(&ys2, t[i]);
			fprintf(h->out, "<line class=\"%s\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>", t[i] == 0 ? "ax" : "grid",
				ML, ML + PW, y, y);
			snprintf(b, sizeof(b), "%g", t[i]);
			text_at(h, ML - 4, y + 4, "end", "mut", b);
		}
		fprintf(h->out, "<path fill=\"none\" style=\"stroke:var(--c-own)\" stroke-width=\"2\" d=\"M%d %.1f", ML,
			svg_map(&ys2, 0));
		for (size_t d = 0; d < nd; d++)
			fprintf(h->out, "%c%.1f %.1f", 'L', ML + ((double)d + 1) * cw, svg_map(&ys2, r->dayt_gap_cum[d]));
		fprintf(h->out, "\"/>");
		snprintf(b, sizeof(b), "owned minus rented, summed (%s): %s at the end", cur(r), m1);
		text_at(h, ML, t2 - 8, NULL, "mut", b);
	}
	for (size_t d = 0; d < nd; d += nd / 10 + 1) {
		int y, m, dd;
		civil_from_days(r->day_first + (int64_t)d, &y, &m, &dd);
		snprintf(b, sizeof(b), "%02d-%02d", m, dd);
		text_at(h, ML + ((double)d + 0.5) * cw, (rent ? b2 : b1) + 14, "middle", "mut", b);
	}
	chart_end(h, "Above the dashed line owning paid that day; the lower line rises while owning costs more than "
		  "renting the same useful hours (per-job cloud charges left out) and falls while it costs less.");
}

/* Per GPU, an hours x days grid of the useful share: when in the day the work ran. */
static void month_hours(struct hw *h)
{
	const struct report *r = h->r;
	size_t ng = r->nhour_gpus, nd = r->ndays, cols, prow;
	double gap = 14, pw, cw, ch = 3.5, ph = 24 * 3.5, top = 20;
	int height;
	char b[160], desc[300];

	if (!ng || !r->hour_covered_s)
		return;
	cols = ng < MONTH_HOUR_COLS ? ng : MONTH_HOUR_COLS;
	prow = (ng + cols - 1) / cols;
	pw = ((double)PW - gap * (double)(cols - 1)) / (double)cols;
	cw = pw / (double)nd;
	height = (int)(top + (double)prow * (ph + 36));
	snprintf(desc, sizeof(desc), "For each of %zu GPUs, %zu UTC days left to right and the 24 hours of each day top "
		 "to bottom; a cell's darkness is the useful share of the hour's covered time.", ng, nd);
	chart_begin(h, height + 20, "Useful share by hour and day, per GPU", desc);
	heat_legend(h, ML + PW, 14);
	top += 20;
	for (size_t g = 0; g < ng; g++) {
		double x0 = ML + (double)(g % cols) * (pw + gap), y0 = top + (double)(g / cols) * (ph + 36);
		snprintf(b, sizeof(b), "GPU %zu", g);
		text_at(h, x0, y0 - 5, NULL, NULL, b);
		if (g % cols == 0) {
			text_at(h, ML - 4, y0 + 8, "end", "mut", "00h");
			text_at(h, ML - 4, y0 + ph / 2 + 4, "end", "mut", "12h");
			text_at(h, ML - 4, y0 + ph, "end", "mut", "24h");
		}
		for (size_t d = 0; d < nd; d++) {
			int y, m, dd;
			civil_from_days(r->day_first + (int64_t)d, &y, &m, &dd);
			for (int hr = 0; hr < 24; hr++) {
				size_t k = (g * nd + d) * 24 + (size_t)hr;
				heat_cell(h, x0 + (double)d * cw, y0 + hr * ch, cw, ch, r->hour_u[k]);
				fprintf(h->out, "<title>GPU %zu %04d-%02d-%02d %02d:00: %.0f %%</title></rect>", g, y, m, dd, hr,
					isfinite(r->hour_u[k]) ? 100 * r->hour_u[k] : 0);
			}
		}
		{
			int y, m, dd;
			civil_from_days(r->day_first, &y, &m, &dd);
			snprintf(b, sizeof(b), "%02d-%02d", m, dd);
			text_at(h, x0, y0 + ph + 13, NULL, "mut", b);
			civil_from_days(r->day_first + (int64_t)nd - 1, &y, &m, &dd);
			snprintf(b, sizeof(b), "%02d-%02d", m, dd);
			text_at(h, x0 + pw, y0 + ph + 13, "end", "mut", b);
		}
	}
	chart_end(h, "Darker is busier; hatched: no data in that hour. Hover a cell for its hour and share.");
}

static void month(struct hw *h)
{
	const struct report *r = h->r;

	if (r->ndays < 2 || !r->dayt_u)
		return;
	fprintf(h->out, "<section id=\"month\"><h2>By day</h2>\n");
	month_days(h);
	month_gap(h);
	month_hours(h);
	if (r->ndays && r->nhour_gpus == 0 && r->an->tl.ngpus > 0)
		fprintf(h->out, "<p class=\"mut\">No hours x days grid per GPU: over %d GPU-days.</p>\n", REPORT_HOUR_GPU_DAYS);
	fprintf(h->out, "</section>\n");
}

static void gpus_table(struct hw *h)
{
	const struct analysis *an = h->r->an;
	char l[128];

	fprintf(h->out, "<section id=\"gpus\"><h2>GPUs</h2>\n<table><thead><tr><th>GPU</th><th class=\"n\">covered</th>"
		"<th class=\"n\">gaps</th><th class=\"n\">useful</th><th class=\"n\">util mean</th><th class=\"n\">p95</th>"
		"<th class=\"n\">energy</th><th class=\"n\">power mean</th><th class=\"n\">power max</th>"
		"<th class=\"n\">temp max</th><th class=\"n\">memory max</th></tr></thead><tbody>\n");
	for (int i = 0; i < an->tl.ngpus; i++) {
		const struct gpu_stats *g = &an->gpus[i];
		const struct report_gpu *rg = &h->r->gpus[i];
		gpu_label(l, sizeof(l), an, i);
		fprintf(h->out, "<tr><td>");
		esc(h, l);
		fprintf(h->out, "</td><td class=\"n\">");
		vnum(h, g->covered_s, 3, 1 / 3600.0, 3, "gpus.%d.covered_s", i);
		fprintf(h->out, " h</td><td class=\"n\">");
		vnum(h, g->gaps_s, 3, 1 / 3600.0, 3, "gpus.%d.gaps_s", i);
		fprintf(h->out, " h</td><td class=\"n\">");
		vnum(h, rg->useful_s, 6, 1 / 3600.0, 3, "gpus.%d.useful_s", i);
		fprintf(h->out, " h</td><td class=\"n\">");
		vnum(h, rg->util_mean_pct, 2, 1, 1, "gpus.%d.util_mean_pct", i);
		fprintf(h->out, " %%</td><td class=\"n\">");
		vnum(h, rg->util_p95_pct, 0, 1, 0, "gpus.%d.util_p95_pct", i);
		fprintf(h->out, " %%</td><td class=\"n\">");
		vnum(h, rg->energy_j, 1, 1 / 3.6e6, 3, "gpus.%d.energy_j", i);
		fprintf(h->out, " kWh</td><td class=\"n\">");
		vnum(h, rg->power_mean_w, 2, 1, 0, "gpus.%d.power_mean_w", i);
		fprintf(h->out, " W</td><td class=\"n\">");
		vnum(h, rg->power_max_w, 2, 1, 0, "gpus.%d.power_max_w", i);
		fprintf(h->out, " W</td><td class=\"n\">");
		vnum(h, rg->temp_max_c, 1, 1, 0, "gpus.%d.temp_max_c", i);
		fprintf(h->out, " &#176;C</td><td class=\"n\">");
		vnum(h, rg->mem_max_mib, 1, 1, 0, "gpus.%d.mem_max_mib", i);
		fprintf(h->out, " MiB</td></tr>\n");
	}
	fprintf(h->out, "</tbody></table></section>\n");
}

/* ---- the fleet (report --prometheus): per node, namespace and pod ------- */

/*
 * One row of a fleet table, every cell a figure of the JSON row at key
 * ("fleet.nodes.3"): hours of covered, busy, idle and held-idle time, then
 * its cost and the part of it lost to idle.  with_node: a node's columns
 * (GPUs, gaps, energy) too; from_idle: from the idle hours on.
 */
static void fleet_cells(struct hw *h, const struct fleet_row *row, const char *key, bool with_node, bool from_idle)
{
	if (with_node) {
		fprintf(h->out, "<td class=\"n\">");
		vnum(h, row->ngpus, 0, 1, 0, "%s.gpus", key);
		fprintf(h->out, "</td>");
	}
	if (!from_idle) {
		fprintf(h->out, "<td class=\"n\">");
		vnum(h, row->covered_s, 3, 1 / 3600.0, 2, "%s.covered_s", key);
		fprintf(h->out, " h</td>");
	}
	if (with_node) {
		fprintf(h->out, "<td class=\"n\">");
		vnum(h, row->gaps_s, 3, 1 / 3600.0, 2, "%s.gaps_s", key);
		fprintf(h->out, " h</td><td class=\"n\">");
		vnum(h, row->busy_s, 3, 1 / 3600.0, 2, "%s.busy_s", key);
		fprintf(h->out, " h</td>");
	}
	fprintf(h->out, "<td class=\"n\">");
	vnum(h, row->state_s[ST_IDLE], 3, 1 / 3600.0, 2, "%s.idle_s", key);
	fprintf(h->out, " h</td><td class=\"n\">");
	vnum(h, row->state_s[ST_HELD_IDLE], 3, 1 / 3600.0, 2, "%s.held_idle_s", key);
	fprintf(h->out, " h</td>");
	if (with_node) {
		fprintf(h->out, "<td class=\"n\">");
		vnum(h, row->energy_j, 3, 1 / 3.6e6, 2, "%s.energy_j", key);
		fprintf(h->out, " kWh</td>");
	}
	fprintf(h->out, "<td class=\"n\">");
	vmoney(h, row->cost, "%s.cost", key);
	fprintf(h->out, "</td><td class=\"n\">");
	vmoney(h, row->idle_cost, "%s.idle_cost", key);
	fprintf(h->out, "</td></tr>\n");
}

static void fleet_table(struct hw *h, const char *what, const struct fleet_row *rows, size_t n, const char *jkey,
			size_t cap)
{
	char key[64];

	fprintf(h->out, "<table><thead><tr><th class=\"n\">rank</th><th>%s</th><th class=\"n\">GPU time</th>"
		"<th class=\"n\">idle</th><th class=\"n\">held idle</th><th class=\"n\">cost</th>"
		"<th class=\"n\">lost to idle</th></tr></thead><tbody>\n", what);
	for (size_t i = 0; i < n && i < cap; i++) {
		fprintf(h->out, "<tr><td class=\"n\">%zu</td><td><code>", i + 1);
		esc(h, rows[i].name);
		fprintf(h->out, "</code></td>");
		snprintf(key, sizeof(key), "fleet.%s.%zu", jkey, i);
		fleet_cells(h, &rows[i], key, false, false);
	}
	fprintf(h->out, "</tbody></table>\n");
	if (n > cap)
		fprintf(h->out, "<p class=\"mut\">The %zu with the most money lost to idle of %zu; every one is in "
			"<code>--json</code> under <code>fleet.%s</code>.</p>\n", cap, n, jkey);
}

/* MIG: each GPU in MIG mode, then its slices (fleet.mig[].slices[]) */
static void mig_table(struct hw *h)
{
	const struct report *r = h->r;

	fprintf(h->out, "<h3>MIG slices</h3>\n<p class=\"mut\">Each slice (<code>GPU_I_ID</code>) on a timeline of its "
		"own, under its GPU. A slice's share is its compute slices of the GPU's (a <code>3g</code> profile: 3/7, "
		"4 on an A30); a slice second costs that share of a GPU second, and what no slice holds is the GPU's "
		"unsliced cost.</p>\n<table><thead><tr><th>GPU / slice</th><th>profile</th><th class=\"n\">share</th>"
		"<th class=\"n\">covered</th><th class=\"n\">busy</th><th class=\"n\">idle</th>"
		"<th class=\"n\">held idle</th><th class=\"n\">cost</th><th class=\"n\">lost to idle</th></tr></thead>"
		"<tbody>\n");
	for (size_t i = 0; i < r->nmigs; i++) {
		const struct fleet_row *m = &r->migs[i];
		size_t j = 0;
		fprintf(h->out, "<tr><th><code>");
		esc(h, m->parent);
		fprintf(h->out, "</code> (");
		esc(h, m->node[0] ? m->node : "?");
		fprintf(h->out, ")</th><td>unsliced ");
		vmoney(h, m->unsliced_cost, "fleet.mig.%zu.unsliced_cost", i);
		fprintf(h->out, "</td><td class=\"n\">");
		vnum(h, m->share, 6, 1, 3, "fleet.mig.%zu.sliced_share", i);
		fprintf(h->out, "</td><td class=\"n\">");
		vnum(h, m->covered_s, 3, 1 / 3600.0, 2, "fleet.mig.%zu.covered_s", i);
		fprintf(h->out, " h</td><td class=\"n\">");
		vnum(h, m->busy_s, 3, 1 / 3600.0, 2, "fleet.mig.%zu.busy_s", i);
		fprintf(h->out, " h</td><td></td><td></td><td class=\"n\">");
		vmoney(h, m->cost, "fleet.mig.%zu.cost", i);
		fprintf(h->out, "</td><td></td></tr>\n");
		for (size_t k = 0; k < r->nslices; k++) {
			const struct fleet_row *sl = &r->slices[k];
			char key[64];
			if (strcmp(sl->parent, m->parent))
				continue;
			snprintf(key, sizeof(key), "fleet.mig.%zu.slices.%zu", i, j++);
			fprintf(h->out, "<tr><td>GI %d</td><td><code>", sl->gi_id);
			esc(h, sl->profile);
			fprintf(h->out, "</code></td><td class=\"n\">");
			vnum(h, sl->share, 6, 1, 3, "%s.share", key);
			fprintf(h->out, "</td><td class=\"n\">");
			vnum(h, sl->covered_s, 3, 1 / 3600.0, 2, "%s.covered_s", key);
			fprintf(h->out, " h</td><td class=\"n\">");
			vnum(h, sl->busy_s, 3, 1 / 3600.0, 2, "%s.busy_s", key);
			fprintf(h->out, " h</td>");
			fleet_cells(h, sl, key, false, true);
		}
	}
	fprintf(h->out, "</tbody></table>\n");
}

static void fleet_section(struct hw *h)
{
	const struct report *r = h->r;
	const struct prom_fleet *f = r->fleet;
	char b[64];

	fprintf(h->out, "<section id=\"fleet\"><h2>Fleet</h2>\n<p>From <code>");
	esc(h, f->url);
	fprintf(h->out, "</code>, step ");
	esc(h, dur(b, sizeof(b), f->step_ns));
	fprintf(h->out, ": %zu node(s), ranked by the money lost to idle and held-idle time. "
		"Each row's state time is priced as the waterfall prices it (cost per second of each state), "
		"so the rows add up to the total.</p>\n", r->nnodes);
	fprintf(h->out, "<table><thead><tr><th class=\"n\">rank</th><th>node</th><th class=\"n\">GPUs</th>"
		"<th class=\"n\">covered</th><th class=\"n\">gaps</th><th class=\"n\">busy</th><th class=\"n\">idle</th>"
		"<th class=\"n\">held idle</th><th class=\"n\">energy</th><th class=\"n\">cost</th>"
		"<th class=\"n\">lost to idle</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < r->nnodes; i++) {
		char key[48];
		fprintf(h->out, "<tr><td class=\"n\">%zu</td><td><code>", i + 1);
		esc(h, r->nodes[i].name);
		fprintf(h->out, "</code></td>");
		snprintf(key, sizeof(key), "fleet.nodes.%zu", i);
		fleet_cells(h, &r->nodes[i], key, true, false);
	}
	fprintf(h->out, "</tbody><tfoot><tr><td></td><th>total</th>");
	fleet_cells(h, &r->fleet_total, "fleet.total", true, false);
	fprintf(h->out, "</tfoot></table>\n");
	if (f->failed_chunks)
		fprintf(h->out, "<p class=\"sev-warning\">%" PRIu64 " of %" PRIu64 " time chunk(s) could not be read: "
			"those windows are gaps, not idle.</p>\n", f->failed_chunks, f->chunks);
	if (r->nnss) {
		fprintf(h->out, "<h3>Per namespace</h3>\n<p class=\"mut\">From the series' Kubernetes labels "
			"(dcgm-exporter's <code>namespace</code>, <code>pod</code>): the GPU time each held, "
			"and what of it was idle.</p>\n");
		fleet_table(h, "namespace", r->nss, r->nnss, "namespaces", r->nnss);
		fprintf(h->out, "<h3>Per pod</h3>\n");
		fleet_table(h, "namespace/pod", r->pods, r->npods, "pods", FLEET_PODS_LISTED);
	}
	if (r->nmigs)
		mig_table(h);
	fprintf(h->out, "</section>\n");
}

/* ---- chart 1: the timeline of each GPU ---------------------------------- */

static const struct panel {
	int m, m2;		/* SER_*; m2 a second line or -1 */
	const char *label, *unit, *color, *color2, *label2;
} panels[] = {
	{ SER_UTIL, SER_MEM_UTIL, "utilization", "%", "var(--c-util)", "var(--c-mem)", "memory controller" },
	{ SER_POWER, -1, "power", "W", "var(--c-pow)", NULL, NULL },
	{ SER_MEM, -1, "memory used", "MiB", "var(--c-fb)", NULL, NULL },
	{ SER_TEMP, -1, "temperature", "\xC2\xB0""C", "var(--c-temp)", NULL, NULL },
	{ SER_SM_CLOCK, -1, "SM clock", "MHz", "var(--c-clk)", NULL, NULL },
};
#define NPANELS (sizeof(panels) / sizeof(panels[0]))
#define PH 62		/* panel height */
#define PGAP 16

static double xt(const struct report *r, int64_t t)
{
	struct svg_scale s = { (double)r->t0_ns, (double)r->t1_ns, ML, ML + PW };
	double x = svg_map(&s, (double)t);
	return x < ML ? ML : x > ML + PW ? ML + PW : x;
}

/* One metric as a min-max band (when columns hold several samples) and a mean line broken at gaps. */
static void draw_series(struct hw *h, const struct svg_col *c, size_t n, const struct svg_scale *ys,
			const char *color, bool band)
{
	const struct report *r = h->r;
	bool open = false;

	if (band) {
		fprintf(h->out, "<path fill=\"none\" stroke=\"%s\" stroke-opacity=\"0.35\" stroke-width=\"1\" d=\"", color);
		for (size_t i = 0; i < n; i++)
			if (!isnan(c[i].min) && c[i].max > c[i].min)
				fprintf(h->out, "M%.1f %.1fV%.1f", (xt(r, c[i].t0_ns) + xt(r, c[i].t1_ns)) / 2,
					svg_map(ys, c[i].max), svg_map(ys, c[i].min));
		fprintf(h->out, "\"/>");
	}
	fprintf(h->out, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.4\" stroke-linejoin=\"round\" d=\"", color);
	/* a run of columns at the same value is one horizontal stroke: the page
	 * grows with the changes in the data, not with the columns */
	double run_y = NAN, run_x1 = 0;
	for (size_t i = 0; i < n; i++) {
		double y, x0, x1;
		bool joins;
		if (isnan(c[i].mean)) {
			open = false;
			continue;
		}
		y = round(svg_map(ys, c[i].mean) * 10) / 10;
		x0 = xt(r, c[i].t0_ns);
		x1 = fmax(xt(r, c[i].t1_ns), x0 + 0.8);
		/* a column with a gap in it joins neither neighbour: never a line across a gap */
		joins = open && c[i].gap_s <= 0 && c[i - 1].gap_s <= 0;
		if (joins && y == run_y) {
			run_x1 = x1;
			open = c[i].gap_s <= 0;
			continue;
		}
		if (!isnan(run_y))
			fprintf(h->out, "H%.1f", run_x1);
		fprintf(h->out, "%c%.1f %.1f", joins ? 'L' : 'M', x0, y);
		run_y = y;
		run_x1 = x1;
		open = c[i].gap_s <= 0;
		if (!open) {
			fprintf(h->out, "H%.1f", run_x1);
			run_y = NAN;
		}
	}
	if (!isnan(run_y))
		fprintf(h->out, "H%.1f", run_x1);
	fprintf(h->out, "\"/>");
}

static void y_axis(struct hw *h, double top, double *lo, double *hi, struct svg_scale *ys)
{
	double t[12];
	size_t n = svg_ticks(lo, hi, 3, t, 12);
	char b[32];

	ys->d0 = *lo;
	ys->d1 = *hi;
	ys->r0 = top + PH;
	ys->r1 = top;
	for (size_t i = 0; i < n; i++) {
		double y = svg_map(ys, t[i]);
		fprintf(h->out, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>", ML, ML + PW, y, y);
		snprintf(b, sizeof(b), "%g", t[i]);
		text_at(h, ML - 4, y + 4, "end", "mut", b);
	}
}

static void time_axis(struct hw *h, double y0, double y1)
{
	const struct report *r = h->r;
	int64_t t[64], step = 0;
	size_t n = svg_time_ticks(r->t0_ns, r->t1_ns, 8, t, 64, &step);
	char b[40];

	fprintf(h->out, "<line class=\"ax\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>", ML, ML + PW, y1, y1);
	for (size_t i = 0; i < n; i++) {
		double x = xt(r, t[i]);
		fprintf(h->out, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke-dasharray=\"2 3\"/>",
			x, x, y0, y1);
		svg_time_label(b, sizeof(b), t[i], step);
		text_at(h, x, y1 + 14, "middle", "mut", b);
	}
	text_at(h, ML + PW, y1 + 28, "end", "mut", "time (UTC)");
}

static void state_rect(struct hw *h, double x0, double x1, double y, int st, const char *what)
{
	if (x1 - x0 < 0.05)
		return;
	fprintf(h->out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"14\" class=\"st%d\"><title>%s: ",
		x0, y, x1 - x0, st, state_name[st]);
	esc(h, what);
	fprintf(h->out, "</title></rect>");
}

static void state_band(struct hw *h, int gi, double y, const struct svg_col *c, size_t n)
{
	const struct report *r = h->r;
	const struct analysis *an = r->an;
	size_t nseg = r->gpus[gi].nsegs;
	char a[48], b[48], d[32], what[160];

	/* a store keeps no segments: its minutes' states give the columns' */
	if (nseg && nseg <= MAX_EXACT_SEGMENTS) {
		for (size_t i = 0; i < an->nsegs; i++) {
			const struct segment *s = &an->segs[i];
			if (s->gpu != gi)
				continue;
			snprintf(what, sizeof(what), "%s to %s (%s)", time_rfc3339(a, sizeof(a), s->t0_ns),
				 time_rfc3339(b, sizeof(b), s->t1_ns), time_human_dur(d, sizeof(d), s->t1_ns - s->t0_ns));
			state_rect(h, xt(r, s->t0_ns), xt(r, s->t1_ns), y, s->state, what);
		}
		return;
	}
	/* too many to draw: each column's state with the most seconds, runs joined */
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		if (c[i].state < 0) {
			i++;
			continue;
		}
		while (j < n && c[j].state == c[i].state)
			j++;
		snprintf(what, sizeof(what), "mostly, %s to %s", time_rfc3339(a, sizeof(a), c[i].t0_ns),
			 time_rfc3339(b, sizeof(b), c[j - 1].t1_ns));
		state_rect(h, xt(r, c[i].t0_ns), xt(r, c[j - 1].t1_ns), y, c[i].state, what);
		i = j;
	}
}

/* One marker: a finding at x, or (d non-NULL) one of a summary's longest stretches. */
static void marker(struct hw *h, double x, double y, const struct finding *f, const struct find_detail *d, int k)
{
	char t0[40], t1[40], dd[32];

	fprintf(h->out, "<g class=\"mk\"><path d=\"M%.1f %.1fl-5 -9h10z\" fill=\"%s\" stroke=\"var(--fg)\" stroke-width=\"0.6\"/>"
		"<title>[%s] ", x, y, f->severity == SEV_CRITICAL ? "#D55E00" :
		f->severity == SEV_WARNING ? "#F0E442" : "#56B4E9", severity_name[f->severity]);
	esc(h, f->kind);
	fprintf(h->out, ": ");
	esc(h, f->message);
	fprintf(h->out, ". ");
	esc(h, f->evidence);
	if (d) {
		fprintf(h->out, ". Stretch %d of the longest: %s to %s (%s)", k + 1, time_rfc3339(t0, sizeof(t0), d->t0_ns),
			time_rfc3339(t1, sizeof(t1), d->t1_ns), time_human_dur(dd, sizeof(dd), d->t1_ns - d->t0_ns));
		if (d->cause[0]) {
			fprintf(h->out, ", after ");
			esc(h, d->cause);
		}
	}
	fprintf(h->out, "</title></g>");
}

/* Markers of a GPU's findings: one per finding, or per longest stretch of a
 * summary of several, at most MAX_MARKERS in the findings' order. */
static size_t markers(struct hw *h, int gi, double y, const struct finding **byw, bool draw)
{
	const struct report *r = h->r;
	size_t shown = 0;

	for (size_t i = 0; i < r->an->nfinds && shown < MAX_MARKERS; i++) {
		const struct finding *f = byw[i];
		if (f->gpu != gi && f->gpu != -1)
			continue;
		if (f->nstretch > 1 && f->ndetail > 0) {
			for (int k = 0; k < f->ndetail && shown < MAX_MARKERS; k++, shown++)
				if (draw)
					marker(h, xt(r, f->detail[k].t0_ns), y, f, &f->detail[k], k);
			continue;
		}
		if (draw)
			marker(h, xt(r, f->t0_ns), y, f, NULL, 0);
		shown++;
	}
	return shown;
}

static void timeline(struct hw *h, int gi, const struct finding **byw)
{
	const struct report *r = h->r;
	const struct gpu_stats *g = &r->an->gpus[gi];
	struct svg_col *c[SER__COUNT];
	size_t n[SER__COUNT], merged = 1;
	char l[128], title[200], desc[600], note[200], d1[32], d2[32], nu[32], np[32], nm[32], nt[32];
	double y = 30;
	int height;
	bool down_sampled;
	size_t nmark = 0;

	gpu_label(l, sizeof(l), r->an, gi);
	nmark = markers(h, gi, 0, byw, false);
	for (int m = 0; m < SER__COUNT; m++) {
		c[m] = xcalloc(PW, sizeof(struct svg_col));
		n[m] = svg_columns(&g->ser, m, c[m], PW, &merged);
	}
	height = 30 + (int)NPANELS * (PH + PGAP) + 34 + 44 + 46;
	down_sampled = g->nominal_ns > 0 && (int64_t)merged * g->ser.width_ns > g->nominal_ns;
	dur(d1, sizeof(d1), (int64_t)merged * g->ser.width_ns);
	dur(d2, sizeof(d2), g->nominal_ns);
	if (r->store)
		snprintf(note, sizeof(note), "from the store's per-minute rollups: one column = %s; memory and temperature "
			 "are each minute's maximum; memory controller %% and SM clock are not stored", d1);
	else if (down_sampled)
		snprintf(note, sizeof(note), "downsampled: one column = %s of %s samples; the light band is each column's min to max",
			 d1, d2);
	else
		snprintf(note, sizeof(note), "every sample shown (%s samples, columns of %s)", d2, d1);
	snprintf(title, sizeof(title), "%s: utilization, power, memory, temperature and SM clock against time", l);
	snprintf(desc, sizeof(desc),
		 "%s over the report window: %zu findings and longest stretches marked. Mean utilization %s %%, peak power %s W, "
		 "peak memory %s MiB, peak temperature %s C. The band beneath shows the state of each stretch; "
		 "gaps in the data are breaks in the lines and hatched in the band. %s.",
		 l, nmark, nf_num(nu, sizeof(nu), r->gpus[gi].util_mean_pct, 1), nf_num(np, sizeof(np), r->gpus[gi].power_max_w, 0),
		 nf_num(nm, sizeof(nm), r->gpus[gi].mem_max_mib, 0), nf_num(nt, sizeof(nt), r->gpus[gi].temp_max_c, 0), note);
	fprintf(h->out, "<h3 id=\"timeline-%d\">", gi);
	esc(h, l);
	fprintf(h->out, "</h3>\n");
	chart_begin(h, height, title, desc);
	text_at(h, ML + PW, 14, "end", "mut", note);
	for (size_t p = 0; p < NPANELS; p++) {
		const struct panel *pp = &panels[p];
		struct svg_scale ys;
		double lo = 0, hi = -INFINITY;
		bool any = false;
		char lab[96];
		for (int k = 0; k < 2; k++) {
			int m = k ? pp->m2 : pp->m;
			if (m < 0)
				continue;
			for (size_t i = 0; i < n[m]; i++)
				if (!isnan(c[m][i].max)) {
					hi = fmax(hi, c[m][i].max);
					any = true;
				}
		}
		if (pp->m == SER_UTIL || hi < 1)
			hi = pp->m == SER_UTIL ? 100 : 1;
		/* memory scales to the data, not to the total: a 16 GiB leak on a
		 * 141 GiB GPU must not be a flat line; the label names the total */
		if (pp->m == SER_MEM && g->mem_total_mib > 0)
			snprintf(lab, sizeof(lab), "%s (%s, of %.0f)", pp->label, pp->unit, g->mem_total_mib);
		else
			snprintf(lab, sizeof(lab), "%s (%s)", pp->label, pp->unit);
		fprintf(h->out, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"none\" class=\"ax\"/>", ML, y, PW, PH);
		if (!any) {
			snprintf(lab, sizeof(lab), r->store ? "the store keeps no %s" : "no %s readings in the inputs",
				 pp->label);
			text_at(h, ML + PW / 2.0, y + PH / 2.0 + 4, "middle", "mut", lab);
			snprintf(lab, sizeof(lab), "%s (%s)", pp->label, pp->unit);
			text_at(h, ML, y - 4, NULL, NULL, lab);
			y += PH + PGAP;
			continue;
		}
		y_axis(h, y, &lo, &hi, &ys);
		draw_series(h, c[pp->m], n[pp->m], &ys, pp->color, merged > 1);
		if (pp->m2 >= 0)
			draw_series(h, c[pp->m2], n[pp->m2], &ys, pp->color2, merged > 1);
		/* the legend of the panel: its line colours */
		fprintf(h->out, "<rect x=\"%d\" y=\"%.1f\" width=\"14\" height=\"3\" style=\"fill:%s\"/>", ML, y - 8, pp->color);
		text_at(h, ML + 18, y - 4, NULL, NULL, lab);
		if (pp->m2 >= 0) {
			fprintf(h->out, "<rect x=\"%d\" y=\"%.1f\" width=\"14\" height=\"3\" style=\"fill:%s\"/>", ML + 170, y - 8,
				pp->color2);
			snprintf(lab, sizeof(lab), "%s (%s)", pp->label2, pp->unit);
			text_at(h, ML + 188, y - 4, NULL, NULL, lab);
		}
		y += PH + PGAP;
	}
	text_at(h, ML - 4, y + 11, "end", "mut", "state");
	state_band(h, gi, y, c[SER_UTIL], n[SER_UTIL]);
	markers(h, gi, y - 1, byw, true);
	time_axis(h, 30, y + 18);
	y = legend_states(h, y + 58, NULL) + 18;
	fprintf(h->out, "<path d=\"M%d %.1fl-5 -9h10z\" fill=\"#F0E442\" stroke=\"var(--fg)\" stroke-width=\"0.6\"/>",
		ML + 5, y);
	text_at(h, ML + 14, y, NULL, NULL, "finding or event (hover for its text; red critical, yellow warning, blue info)");
	chart_end(h, desc);
	for (int m = 0; m < SER__COUNT; m++)
		free(c[m]);
}

/* ---- chart 2: where the time went --------------------------------------- */

static void time_split(struct hw *h)
{
	const struct report *r = h->r;
	const struct analysis *an = r->an;
	int rows = an->tl.ngpus, height = 30 + rows * 26 + 40;
	bool used[ST__COUNT] = { false };
	char l[128], t[240];

	fprintf(h->out, "<section id=\"states\"><h2>Where the GPU time went</h2>\n");
	for (int i = 0; i < rows; i++)
		for (int s = 0; s < ST__COUNT; s++)
			used[s] |= an->gpus[i].state_s[s] > 0;
	chart_begin(h, height, "Seconds in each state, per GPU",
		    "A horizontal bar per GPU, its length the GPU's whole time (covered and gaps), split by state; "
		    "the table below gives the hours and shares.");
	for (int i = 0; i < rows; i++) {
		const struct gpu_stats *g = &an->gpus[i];
		double total = g->covered_s + g->gaps_s, x = ML, y = 20 + i * 26;
		char shortl[32];
		gpu_label(l, sizeof(l), an, i);
		snprintf(shortl, sizeof(shortl), "GPU %d", an->tl.gpus[i].id.index >= 0 ? an->tl.gpus[i].id.index : i);
		text_at(h, ML - 4, y + 13, "end", NULL, shortl);
		if (total <= 0) {
			text_at(h, ML + 4, y + 13, NULL, "mut", "no time: this GPU has no intervals");
			continue;
		}
		for (int s = 0; s < ST__COUNT; s++) {
			double wd = PW * g->state_s[s] / total;
			double share = r->gpus[i].state_share[s];
			if (g->state_s[s] <= 0)
				continue;
			if (s == ST_GAP)
				snprintf(t, sizeof(t), "%s: %s %.3f h (outside the covered time)", l, state_name[s],
					 g->state_s[s] / 3600);
			else
				snprintf(t, sizeof(t), "%s: %s %.3f h, %.1f %% of covered time", l, state_name[s],
					 g->state_s[s] / 3600, 100 * share);
			fprintf(h->out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"18\" class=\"st%d\"><title>", x, y,
				wd, s);
			esc(h, t);
			fprintf(h->out, "</title></rect>");
			if (wd > 8.0 * (double)strlen(state_name[s]) + 6)
				fprintf(h->out, "<text x=\"%.1f\" y=\"%.1f\" style=\"fill:#000\">%s</text>", x + 3, y + 13,
					state_name[s]);
			x += wd;
		}
	}
	legend_states(h, 20 + rows * 26 + 16, used);
	chart_end(h, "Hover a bar for its hours and share; the same figures are in the table below.");
	fprintf(h->out, "<table><thead><tr><th>state</th><th>meaning</th><th class=\"n\">all GPUs</th>"
		"<th class=\"n\">share</th><th class=\"n\">cost</th></tr></thead><tbody>\n");
	for (int s = 0, k = 0; s < ST__COUNT; s++) {
		int wk = k;
		if (s != ST_GAP)
			k++;
		if (r->state_s[s] <= 0)
			continue;
		fprintf(h->out, "<tr><td><span class=\"sw st%d\"></span>%s</td><td>%s</td><td class=\"n\">", s,
			state_name[s], state_label[s]);
		if (s == ST_GAP) {
			vnum(h, r->gaps_h, 6, 1, 3, "cost.window.gaps_h");
			fprintf(h->out, " h</td><td class=\"n\">-</td><td class=\"n\">-</td></tr>\n");
			continue;
		}
		vnum(h, r->state_s[s], 3, 1 / 3600.0, 3, "cost.waterfall.%d.seconds", wk);
		fprintf(h->out, " h</td><td class=\"n\">%.1f %%</td><td class=\"n\">", 100 * r->state_share[s]);
		if (r->has_prices)
			vmoney(h, r->state_cost[s], "cost.waterfall.%d.cost", wk);
		else
			fprintf(h->out, "-");
		fprintf(h->out, "</td></tr>\n");
		if (s == ST_DOWN && r->outage_s > 0) {
			/* the part of the down line that fatal events explain */
			fprintf(h->out, "<tr><td>&#160;&#160;of which</td><td>outage after fatal events</td><td class=\"n\">");
			vnum(h, r->outage_s, 3, 1 / 3600.0, 3, "cost.outage.seconds");
			fprintf(h->out, " h</td><td class=\"n\">%.1f %%</td><td class=\"n\">",
				100 * r->outage_share);
			if (r->has_prices)
				vmoney(h, r->outage_cost, "cost.outage.cost");
			else
				fprintf(h->out, "-");
			fprintf(h->out, "</td></tr>\n");
		}
	}
	if (r->trace_in_h > 0 || r->trace_out_h > 0) {
		/* joined traces' kernels replace the useful states' time there: the
		 * useful total is the headline's busy (docs/states.md "Busy") */
		fprintf(h->out, "<tr><td>trace_kernels</td><td>joined traces, net</td><td class=\"n\">%+.6f h</td>"
			"<td class=\"n\">%+.1f %%</td><td class=\"n\">", r->trace_net_s / 3600, 100 * r->trace_net_share);
		if (r->has_prices)
			vmoney(h, r->trace_net_cost, "cost.waterfall_useful.trace_net_cost");
		else
			fprintf(h->out, "-");
		fprintf(h->out, "</td></tr>\n<tr><td><b>useful in all</b></td><td>= headline's busy</td><td class=\"n\">");
		vnum(h, r->useful_total_s, 6, 1 / 3600.0, 3, "cost.waterfall_useful.seconds");
		fprintf(h->out, " h</td><td class=\"n\">%.1f %%</td><td class=\"n\">", 100 * r->useful_total_share);
		if (r->has_prices)
			vmoney(h, r->useful_total_cost, "cost.waterfall_useful.cost");
		else
			fprintf(h->out, "-");
		fprintf(h->out, "</td></tr>\n");
	}
	fprintf(h->out, "</tbody></table>\n");
	if (rows > 1) {
		fprintf(h->out, "<details><summary>Hours per state of each GPU</summary><table><thead><tr><th>GPU</th>");
		for (int s = 0; s < ST__COUNT; s++)
			if (used[s])
				fprintf(h->out, "<th class=\"n\">%s</th>", state_name[s]);
		fprintf(h->out, "</tr></thead><tbody>\n");
		for (int i = 0; i < rows; i++) {
			gpu_label(l, sizeof(l), an, i);
			fprintf(h->out, "<tr><td>");
			esc(h, l);
			fprintf(h->out, "</td>");
			for (int s = 0; s < ST__COUNT; s++) {
				if (!used[s])
					continue;
				fprintf(h->out, "<td class=\"n\">");
				vnum(h, an->gpus[i].state_s[s], 3, 1 / 3600.0, 3, "gpus.%d.states.%s.seconds", i, state_name[s]);
				fprintf(h->out, " h</td>");
			}
			fprintf(h->out, "</tr>\n");
		}
		fprintf(h->out, "</tbody></table></details>\n");
	}
	fprintf(h->out, "</section>\n");
}

/* ---- charts 3-5: the cost ----------------------------------------------- */


static void waterfall(struct hw *h)
{
	const struct report *r = h->r;
	int steps[ST__COUNT], ns = 0, height = 250, bw;
	double top = 20, bot = 190, run, lo = 0, hi = r->win.local_cost;
	struct svg_scale ys;
	char b[96], desc[400], m1[64], m2[64];

	for (int s = 0; s < ST__COUNT; s++)
		if (s != ST_GAP && !state_is_useful(s) && r->state_cost[s] > 0)
			steps[ns++] = s;
	money_text(m1, sizeof(m1), r, r->win.local_cost);
	money_text(m2, sizeof(m2), r, r->useful_cost);
	snprintf(desc, sizeof(desc),
		 "From the owned cost of the window, %s, the cost of the time in each state that bought no work is taken "
		 "away in turn, leaving the useful cost, %s.", m1, m2);
	fprintf(h->out, "<h3>From the window's cost to its useful cost</h3>\n");
	if (!(r->win.local_cost > 0)) {
		fprintf(h->out, "<p class=\"mut\">No waterfall: the window has no owned cost (no prices, or no covered time).</p>\n");
		return;
	}
	chart_begin(h, height, "Cost waterfall: owned cost of the window to useful cost", desc);
	{
		double t[12];
		size_t n = svg_ticks(&lo, &hi, 4, t, 12);
		ys = (struct svg_scale){ lo, hi, bot, top };
		for (size_t i = 0; i < n; i++) {
			double y = svg_map(&ys, t[i]);
			fprintf(h->out, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>", ML, ML + PW, y, y);
			snprintf(b, sizeof(b), "%g", t[i]);
			text_at(h, ML - 4, y + 4, "end", "mut", b);
		}
		snprintf(b, sizeof(b), "cost (%s)", cur(r));
		fprintf(h->out, "<text x=\"14\" y=\"%.1f\" transform=\"rotate(-90 14 %.1f)\" text-anchor=\"middle\" class=\"mut\">",
			(top + bot) / 2, (top + bot) / 2);
		esc(h, b);
		fprintf(h->out, "</text>");
	}
	bw = PW / (ns + 2);
	run = r->win.local_cost;
	for (int k = 0; k < ns + 2; k++) {
		double x = ML + k * bw + bw * 0.15, a, c;
		const char *name, *fill;
		char lab[64];
		if (k == 0) {
			a = 0, c = run, name = "owned cost", fill = "var(--c-own)";
		} else if (k == ns + 1) {
			a = 0, c = r->useful_cost, name = "useful cost", fill = "#009E73";
		} else {
			a = run - r->state_cost[steps[k - 1]], c = run, name = state_name[steps[k - 1]], fill = NULL;
			run = a;
		}
		fprintf(h->out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" %s%s%s%s>", x, svg_map(&ys, c),
			bw * 0.7, fmax(0.5, svg_map(&ys, a) - svg_map(&ys, c)), fill ? "style=\"fill:" : "",
			fill ? fill : "", fill ? "\"" : "", "");
		if (!fill)
			fprintf(h->out, "</rect><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"st%d\">", x,
				svg_map(&ys, c), bw * 0.7, fmax(0.5, svg_map(&ys, a) - svg_map(&ys, c)), steps[k - 1]);
		money_text(lab, sizeof(lab), r, k == 0 || k == ns + 1 ? c : c - a);
		fprintf(h->out, "<title>%s: %s%s</title></rect>", name, k && k <= ns ? "-" : "", lab);
		/* the down step's part that fatal events caused: a dashed box from
		 * its foot, as high as the outage's cost */
		if (k && k <= ns && steps[k - 1] == ST_DOWN && r->outage_cost > 0) {
			double oc = fmin(r->outage_cost, c - a);
			char ol[64];
			money_text(ol, sizeof(ol), r, oc);
			fprintf(h->out, "<rect class=\"outage\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				"style=\"fill:none;stroke:currentColor;stroke-width:1.5;stroke-dasharray:4 2\">"
				"<title>of which outage after fatal events: -%s</title></rect>", x + bw * 0.05,
				svg_map(&ys, a + oc), bw * 0.6, fmax(0.5, svg_map(&ys, a) - svg_map(&ys, a + oc)), ol);
		}
		text_at(h, x + bw * 0.35, svg_map(&ys, c) - 4, "middle", NULL, lab);
		text_at(h, x + bw * 0.35, bot + 16, "middle", NULL, name);
		if (k <= ns)
			fprintf(h->out, "<line class=\"ax\" stroke-dasharray=\"3 2\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
				x + bw * 0.7, x + bw, svg_map(&ys, k == 0 ? c : a), svg_map(&ys, k == 0 ? c : a));
	}
	fprintf(h->out, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" style=\"fill:var(--c-own)\"/>", ML, height - 22);
	text_at(h, ML + 16, height - 12, NULL, NULL, "owned cost of the window");
	fprintf(h->out, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" style=\"fill:#009E73\"/>", ML + 200, height - 22);
	text_at(h, ML + 216, height - 12, NULL, NULL, "useful cost (busy states)");
	text_at(h, ML + 400, height - 12, NULL, "mut", "steps: the cost of time in a state that bought no work, by state colour");
	chart_end(h, desc);
	if (r->outage_cost > 0 && r->state_cost[ST_DOWN] > 0) {
		fprintf(h->out, "<p class=\"mut\">Dashed box in the down step: of which the outage after fatal events, ");
		vmoney(h, r->outage_cost, "cost.outage.cost");
		fprintf(h->out, " (");
		vnum(h, r->outage_s / 3600, 6, 1, 3, "cost.outage.gpu_hours");
		fprintf(h->out, " GPU-hours; the events are listed under Events and outages).</p>\n");
	}
}

static void breakeven(struct hw *h)
{
	const struct report *r = h->r;
	int height = 300;
	double top = 24, bot = 250, ymax, lo = 0, t[12];
	struct svg_scale xs = { 0, 100, ML, ML + PW }, ys;
	char b[160], desc[400], m1[64], m2[64];
	size_t n;
	bool open = false;

	fprintf(h->out, "<h3>Break-even: owning against renting</h3>\n");
	if (r->params.cloud_hourly_rate <= 0 || !(r->lr.c_cloud > 0)) {
		fprintf(h->out, "<p class=\"mut\">No break-even curve: no cloud price (set <code>cloud_hourly_rate</code> "
			"in a profile or with <code>--set</code>).</p>\n");
		return;
	}
	ymax = 3 * r->lr.c_cloud;
	if (isfinite(r->c_local_obs) && r->c_local_obs * 1.15 > ymax)
		ymax = r->c_local_obs * 1.15;
	if (ymax > 12 * r->lr.c_cloud)
		ymax = 12 * r->lr.c_cloud;
	n = svg_ticks(&lo, &ymax, 5, t, 12);
	ys = (struct svg_scale){ 0, ymax, bot, top };
	money_text(m1, sizeof(m1), r, r->lr.c_cloud);
	money_text(m2, sizeof(m2), r, r->c_local_obs);
	snprintf(desc, sizeof(desc),
		 "Owned cost per useful hour falls as utilization rises; the cloud's is flat at %s. "
		 "Observed utilization %.1f %% (%s per useful hour owned); break-even %s.",
		 m1, 100 * r->win.u_obs, m2, r->lr.status == COST_NEVER ? "does not exist" : "marked");
	chart_begin(h, height, "Owned cost per useful hour against utilization, and the cloud's", desc);
	for (size_t i = 0; i < n; i++) {
		double y = svg_map(&ys, t[i]);
		fprintf(h->out, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>", ML, ML + PW, y, y);
		snprintf(b, sizeof(b), "%g", t[i]);
		text_at(h, ML - 4, y + 4, "end", "mut", b);
	}
	for (int u = 0; u <= 100; u += 10) {
		snprintf(b, sizeof(b), "%d", u);
		text_at(h, svg_map(&xs, u), bot + 14, "middle", "mut", b);
	}
	text_at(h, ML + PW, bot + 28, "end", "mut", "utilization (% of available hours busy)");
	snprintf(b, sizeof(b), "%s per useful hour", cur(r));
	fprintf(h->out, "<text x=\"14\" y=\"%.1f\" transform=\"rotate(-90 14 %.1f)\" text-anchor=\"middle\" class=\"mut\">",
		(top + bot) / 2, (top + bot) / 2);
	esc(h, b);
	fprintf(h->out, "</text><rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"none\" class=\"ax\"/>", ML, top, PW,
		bot - top);
	/* the model's own C_L(u), drawn where it is inside the chart */
	fprintf(h->out, "<path fill=\"none\" style=\"stroke:var(--c-own)\" stroke-width=\"2\" d=\"");
	for (int i = 1; i <= REPORT_CURVE_N; i++) {
		double u = (double)i / REPORT_CURVE_N, c = r->curve_local[i - 1];
		if (!isfinite(c) || c > ymax) {
			open = false;
			continue;
		}
		fprintf(h->out, "%c%.1f %.1f", open ? 'L' : 'M', svg_map(&xs, 100 * u), svg_map(&ys, c));
		open = true;
	}
	fprintf(h->out, "\"/><line style=\"stroke:var(--c-cloud)\" stroke-width=\"2\" stroke-dasharray=\"6 4\" x1=\"%d\" x2=\"%d\" "
		"y1=\"%.1f\" y2=\"%.1f\"/>", ML, ML + PW, svg_map(&ys, r->lr.c_cloud), svg_map(&ys, r->lr.c_cloud));
	if (r->lr.status != COST_NEVER && r->lr.u_star <= 1) {
		double x = svg_map(&xs, 100 * r->lr.u_star);
		fprintf(h->out, "<line class=\"ax\" stroke-dasharray=\"2 2\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", x, x,
			top, bot);
		snprintf(b, sizeof(b), "break-even u* = %.1f %%", 100 * r->lr.u_star);
		text_at(h, x + 4, top + 12, NULL, NULL, b);
	} else {
		snprintf(b, sizeof(b), "no break-even below 100 %% (%s)", cost_status_name(r->lr.status));
		text_at(h, ML + PW - 4, top + 12, "end", NULL, b);
	}
	if (isfinite(r->win.u_obs)) {
		double x = svg_map(&xs, 100 * r->win.u_obs);
		double c = r->c_local_obs, y = isfinite(c) && c <= ymax ? svg_map(&ys, c) : top;
		fprintf(h->out, "<line style=\"stroke:var(--c-own)\" stroke-dasharray=\"2 2\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
			"y2=\"%.1f\"/><circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" style=\"fill:var(--c-own)\"><title>observed</title></circle>",
			x, x, y, bot, x, y);
		money_text(m1, sizeof(m1), r, c);
		snprintf(b, sizeof(b), "observed %.1f %%: %s per useful hour%s", 100 * r->win.u_obs, m1,
			 isfinite(c) && c <= ymax ? "" : " (above the chart)");
		text_at(h, x + (x > ML + PW * 0.6 ? -6 : 6), y + 18, x > ML + PW * 0.6 ? "end" : NULL, NULL, b);
	}
	fprintf(h->out, "<line style=\"stroke:var(--c-own)\" stroke-width=\"2\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>", ML,
		ML + 20, height - 8, height - 8);
	text_at(h, ML + 24, height - 4, NULL, NULL, "owned, per useful hour");
	fprintf(h->out, "<line style=\"stroke:var(--c-cloud)\" stroke-width=\"2\" stroke-dasharray=\"6 4\" x1=\"%d\" x2=\"%d\" "
		"y1=\"%d\" y2=\"%d\"/>", ML + 200, ML + 220, height - 8, height - 8);
	text_at(h, ML + 224, height - 4, NULL, NULL, "cloud, per useful hour");
	chart_end(h, desc);
	fprintf(h->out, "<p>Break-even utilization ");
	vnum(h, r->lr.u_star, 6, 100, 1, "cost.break_even.utilization");
	fprintf(h->out, " %% (");
	esc(h, cost_status_name(r->lr.status));
	fprintf(h->out, "); observed ");
	vnum(h, r->win.u_obs, 6, 100, 2, "cost.window.u_obs");
	fprintf(h->out, " %%, owned ");
	vmoney(h, r->c_local_obs, "cost.window.local_cost_per_useful_hour");
	fprintf(h->out, " per useful hour against ");
	vmoney(h, r->lr.c_cloud, "cost.cloud.cost_per_useful_hour");
	fprintf(h->out, " to rent.</p>\n");
}

static void tornado(struct hw *h)
{
	const struct report *r = h->r;
	int rows = (int)r->nsens, height = 40 + rows * 22 + 40, lm = 230;
	double lo = INFINITY, hi = -INFINITY, t[16];
	struct svg_scale xs;
	char b[120];
	size_t n;

	fprintf(h->out, "<h3>What moves the break-even</h3>\n");
	if (!rows || r->lr.status == COST_NEVER || !isfinite(r->lr.u_star)) {
		fprintf(h->out, "<p class=\"mut\">No sensitivity chart: %s.</p>\n",
			!rows ? "no parameters to vary" : "owning never breaks even with these prices");
		return;
	}
	lo = hi = 100 * r->lr.u_star;
	for (int i = 0; i < rows; i++) {
		if (isfinite(r->sens[i].u_low)) {
			lo = fmin(lo, 100 * r->sens[i].u_low);
			hi = fmax(hi, 100 * r->sens[i].u_low);
		}
		if (isfinite(r->sens[i].u_high)) {
			lo = fmin(lo, 100 * r->sens[i].u_high);
			hi = fmax(hi, 100 * r->sens[i].u_high);
		}
	}
	if (hi - lo < 1) {
		lo -= 0.5;
		hi += 0.5;
	}
	n = svg_ticks(&lo, &hi, 6, t, 16);
	xs = (struct svg_scale){ lo, hi, lm, W - MR };
	chart_begin(h, height, "Sensitivity of the break-even utilization",
		    "For each cost parameter, the break-even utilization with the parameter at 0.8 and 1.2 times its value, "
		    "the others unchanged; the widest swing first.");
	for (size_t i = 0; i < n; i++) {
		double x = svg_map(&xs, t[i]);
		fprintf(h->out, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"24\" y2=\"%d\"/>", x, x, 30 + rows * 22);
		snprintf(b, sizeof(b), "%g", t[i]);
		text_at(h, x, 44 + rows * 22, "middle", "mut", b);
	}
	text_at(h, W - MR, 58 + rows * 22, "end", "mut", "break-even utilization (%)");
	for (int i = 0; i < rows; i++) {
		const struct cost_sens *s = &r->sens[i];
		double y = 28 + i * 22, x0 = svg_map(&xs, 100 * r->lr.u_star);
		text_at(h, lm - 6, y + 13, "end", NULL, s->param);
		for (int k = 0; k < 2; k++) {
			double u = k ? s->u_high : s->u_low, x1;
			if (!isfinite(u)) {
				text_at(h, x0 + (k ? 6 : -6), y + 13, k ? NULL : "end", "mut", "no break-even");
				continue;
			}
			x1 = svg_map(&xs, 100 * u);
			snprintf(b, sizeof(b), "%s x%s: break-even %.1f %%", s->param, k ? "1.2" : "0.8", 100 * u);
			fprintf(h->out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"16\" style=\"fill:var(%s)\"><title>",
				fmin(x0, x1), y, fmax(0.8, fabs(x1 - x0)), k ? "--c-hi" : "--c-lo");
			esc(h, b);
			fprintf(h->out, "</title></rect>");
		}
	}
	{
		double x0 = svg_map(&xs, 100 * r->lr.u_star);
		fprintf(h->out, "<line class=\"ax\" x1=\"%.1f\" x2=\"%.1f\" y1=\"22\" y2=\"%d\"/>", x0, x0, 30 + rows * 22);
		snprintf(b, sizeof(b), "u* = %.1f %%", 100 * r->lr.u_star);
		text_at(h, x0, 16, "middle", NULL, b);
	}
	fprintf(h->out, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" style=\"fill:var(--c-lo)\"/>", lm, height - 14);
	text_at(h, lm + 16, height - 4, NULL, NULL, "parameter x0.8");
	fprintf(h->out, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" style=\"fill:var(--c-hi)\"/>", lm + 140, height - 14);
	text_at(h, lm + 156, height - 4, NULL, NULL, "parameter x1.2");
	chart_end(h, "Each bar runs from the break-even at the profile's values to the break-even with one parameter changed.");
	fprintf(h->out, "<table><thead><tr><th>parameter</th><th class=\"n\">x0.8</th><th class=\"n\">x1.2</th>"
		"<th class=\"n\">swing</th></tr></thead><tbody>\n");
	for (int i = 0; i < rows; i++) {
		fprintf(h->out, "<tr><td><code>%s</code></td><td class=\"n\">", r->sens[i].param);
		vnum(h, r->sens[i].u_low, 6, 100, 1, "cost.sensitivity.%d.u_low", i);
		fprintf(h->out, " %%</td><td class=\"n\">");
		vnum(h, r->sens[i].u_high, 6, 100, 1, "cost.sensitivity.%d.u_high", i);
		fprintf(h->out, " %%</td><td class=\"n\">");
		vnum(h, r->sens[i].swing, 6, 100, 1, "cost.sensitivity.%d.swing", i);
		fprintf(h->out, " points</td></tr>\n");
	}
	fprintf(h->out, "</tbody></table>\n");
}

static void cost_section(struct hw *h)
{
	const struct report *r = h->r;
	const struct cost_params *p = &r->params;

	fprintf(h->out, "<section id=\"cost\"><h2>Cost</h2>\n");
	if (!r->has_prices) {
		fprintf(h->out, "<p>No prices given, so nothing to compare: name a profile (<code>--profile NAME</code>; "
			"<code>gputally cost --list-profiles</code>) or set prices with <code>--set KEY=VALUE</code>.</p>\n");
	} else {
		fprintf(h->out, "<p>Owned cost of the window ");
		vmoney(h, r->win.local_cost, "cost.window.local_cost");
		fprintf(h->out, " = fixed ");
		vmoney(h, r->win.local_fixed, "cost.window.local_fixed");
		fprintf(h->out, " + energy ");
		vmoney(h, r->win.local_energy, "cost.window.local_energy");
		fprintf(h->out, " + cooling ");
		vmoney(h, r->win.local_cooling, "cost.window.local_cooling");
		fprintf(h->out, " + per job ");
		vmoney(h, r->win.local_jobs, "cost.window.local_jobs");
		fprintf(h->out, "; renting the same useful work ");
		vmoney(h, r->win.cloud_cost, "cost.window.cloud_cost");
		fprintf(h->out, " for %zu job(s) (%s).</p>\n", r->njobs,
			r->jobs_from_processes ? "one per process"
			: r->jobs_from_tasks ? "one per task label" : "one per GPU");
		waterfall(h);
		breakeven(h);
		tornado(h);
	}
	fprintf(h->out, "<details><summary>Cost parameters (profile ");
	esc(h, p->name[0] ? p->name : "none");
	fprintf(h->out, ")</summary><table><thead><tr><th>parameter</th><th class=\"n\">value</th><th>unit</th>"
		"<th>origin</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < COST_NPARAMS; i++) {
		const struct cost_param_info *pi = cost_param_info(i);
		fprintf(h->out, "<tr><td><code>%s</code></td><td class=\"n\">", pi->key);
		vnum(h, cost_param_get(p, i), 6, 1, 4, "cost.params.%s.value", pi->key);
		fprintf(h->out, "</td><td>");
		esc(h, !strcmp(pi->unit, "currency") ? cur(r) : pi->unit);
		fprintf(h->out, "</td><td>%s</td></tr>\n", cost_origin_name(p->origin[i]));
	}
	fprintf(h->out, "</tbody></table></details>\n</section>\n");
}

/* ---- who spent it (report/attrib.c computes the rows) -------------------- */

static void who(struct hw *h)
{
	static const char *const jkey[AB__COUNT] = {
		[AB_USER] = "by_user", [AB_ACCOUNT] = "by_account", [AB_JOB] = "by_job", [AB_TASK] = "by_task",
		[AB_CTR] = "by_container", [AB_PROC] = "by_process",
	};
	const struct report_attrib *a = &h->r->attrib;

	if (a->unknown_why) {
		fprintf(h->out, "<section id=\"who\"><h2>Who spent it</h2>\n<p class=\"mut\">Unknown: ");
		esc(h, a->unknown_why);
		fprintf(h->out, ".</p></section>\n");
	}
	if (!a->nrows[AB_PROC])
		return;
	fprintf(h->out, "<section id=\"who\"><h2>Who spent it</h2>\n<p class=\"mut\">The GPU time each held (its share "
		"of the GPU: measured sm %% where known, else even among the processes present), its useful time, energy "
		"and part of the owned cost (fixed by GPU time, electricity by energy); what no process held is its own "
		"line, so each table adds up to the window's total.</p>\n");
	for (int d = 0; d < AB__COUNT; d++) {
		size_t n = a->nrows[d];
		if (!a->show[d])
			continue;
		fprintf(h->out, "<table><thead><tr><th>%s</th><th class=\"n\">GPU time</th><th class=\"n\">useful</th>"
			"<th class=\"n\">energy</th><th class=\"n\">cost</th></tr></thead><tbody>\n", attrib_by_name[d]);
		for (size_t i = 0; i < n; i++) {
			const struct attrib_row *row = &a->rows[d][i];
			if (i >= ATTRIB_MD_ROWS && i + 1 < n)
				continue;
			fprintf(h->out, "<tr><td>%s", row->none ? "<em>" : "<code>");
			esc(h, row->key);
			fprintf(h->out, "%s</td><td class=\"n\">", row->none ? "</em>" : "</code>");
			vnum(h, row->held_s, 3, 1 / 3600.0, 2, "attribution.%s.%zu.held_s", jkey[d], i);
			fprintf(h->out, " h</td><td class=\"n\">");
			vnum(h, row->useful_s, 3, 1 / 3600.0, 2, "attribution.%s.%zu.useful_s", jkey[d], i);
			fprintf(h->out, " h</td><td class=\"n\">");
			vnum(h, row->energy_j, 1, 1 / 3.6e6, 3, "attribution.%s.%zu.energy_j", jkey[d], i);
			fprintf(h->out, " kWh</td><td class=\"n\">");
			vmoney(h, row->cost, "attribution.%s.%zu.cost", jkey[d], i);
			fprintf(h->out, "</td></tr>\n");
		}
		fprintf(h->out, "</tbody><tfoot><tr><th>total</th><td class=\"n\">");
		vnum(h, a->total[d].held_s, 3, 1 / 3600.0, 2, "attribution.totals.%s.held_s", jkey[d]);
		fprintf(h->out, " h</td><td class=\"n\">");
		vnum(h, a->total[d].useful_s, 3, 1 / 3600.0, 2, "attribution.totals.%s.useful_s", jkey[d]);
		fprintf(h->out, " h</td><td class=\"n\">");
		vnum(h, a->total[d].energy_j, 1, 1 / 3.6e6, 3, "attribution.totals.%s.energy_j", jkey[d]);
		fprintf(h->out, " kWh</td><td class=\"n\">");
		vmoney(h, a->total[d].cost, "attribution.totals.%s.cost", jkey[d]);
		fprintf(h->out, "</td></tr></tfoot></table>\n");
		if (n - 1 > ATTRIB_MD_ROWS)
			fprintf(h->out, "<p class=\"mut\">%zu more under <code>attribution.%s</code> in "
				"<code>--json</code>.</p>\n", n - 1 - ATTRIB_MD_ROWS, jkey[d]);
	}
	fprintf(h->out, "</section>\n");
}

/* ---- chart 6: processes ------------------------------------------------- */

static void processes(struct hw *h)
{
	const struct report *r = h->r;
	const struct analysis *an = r->an;
	char gn[16];
	size_t np = an->nprocs, nd;
	const size_t *ord = r->proc_by_busy;	/* the busiest first */
	double maxs = 0, maxc = 0;
	/* x1: room for a 20-character name and its pid and GPU; bars leave room for their label */
	int height, half, x1 = ML + 214, x2 = x1 + (W - MR - x1) / 2 + 10;
	char b[200];

	fprintf(h->out, "<section id=\"processes\"><h2>Processes</h2>\n");
	if (!np) {
		fprintf(h->out, "<p class=\"mut\">No process data in the inputs (nvidia-smi pmon or a per-process query "
			"would give it), so no per-process cost.</p></section>\n");
		return;
	}
	nd = np < MAX_PROCS_DRAWN ? np : MAX_PROCS_DRAWN;
	for (size_t i = 0; i < nd; i++) {
		maxs = fmax(maxs, an->procs[ord[i]].busy_s);
		if (isfinite(r->proc_local_cost[ord[i]]))
			maxc = fmax(maxc, r->proc_local_cost[ord[i]]);
		if (isfinite(r->proc_cloud_cost[ord[i]]))
			maxc = fmax(maxc, r->proc_cloud_cost[ord[i]]);
	}
	half = (W - MR - x1) / 2 - 20;
	height = 44 + (int)nd * 24 + 30;
	chart_begin(h, height, "Busy GPU-seconds and cost per process",
		    "For each process (the busiest first), its share of the GPU's busy time in GPU-seconds, and its cost: "
		    "its share of the window's owned cost and what renting its useful hours would cost.");
	text_at(h, x1, 16, NULL, NULL, "busy GPU-seconds (s)");
	snprintf(b, sizeof(b), "cost (%s)", cur(r));
	text_at(h, x2, 16, NULL, NULL, b);
	for (size_t i = 0; i < nd; i++) {
		size_t k = ord[i];
		const struct proc_stat *p = &an->procs[k];
		double y = 28 + (double)i * 24, wd;
		if (p->pid == PID_TASK)
			snprintf(b, sizeof(b), "%.20s%s (task, GPU %s)", p->name[0] ? p->name : "-",
				 strlen(p->name) > 20 ? "..." : "", analysis_gpu_num(an, p->gpu, gn, sizeof(gn)));
		else
			snprintf(b, sizeof(b), "%.20s%s (pid %" PRId64 ", GPU %s)", p->name[0] ? p->name : "-",
				 strlen(p->name) > 20 ? "..." : "", p->pid, analysis_gpu_num(an, p->gpu, gn, sizeof(gn)));
		text_at(h, x1 - 6, y + 14, "end", NULL, b);
		wd = maxs > 0 ? (half - 56) * p->busy_s / maxs : 0;
		fprintf(h->out, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"18\" style=\"fill:var(--c-util)\"><title>", x1, y,
			fmax(wd, 0.5));
		snprintf(b, sizeof(b), "%.64s: %.1f busy GPU-seconds", p->name, p->busy_s);
		esc(h, b);
		fprintf(h->out, "</title></rect>");
		snprintf(b, sizeof(b), "%.1f", p->busy_s);
		text_at(h, x1 + fmax(wd, 0.5) + 3, y + 14, NULL, "mut", b);
		for (int c = 0; c < 2; c++) {
			double v = c ? r->proc_cloud_cost[k] : r->proc_local_cost[k];
			if (!isfinite(v))
				continue;
			wd = maxc > 0 ? half * v / maxc : 0;
			fprintf(h->out, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"8\" style=\"fill:var(%s)\"><title>", x2,
				y + (c ? 9 : 0), fmax(wd, 0.5), c ? "--c-cloud" : "--c-own");
			money_text(b, sizeof(b), r, v);
			fprintf(h->out, "%s: ", c ? "rented" : "owned share");
			esc(h, b);
			fprintf(h->out, "</title></rect>");
		}
	}
	fprintf(h->out, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"10\" style=\"fill:var(--c-own)\"/>", x2, height - 16);
	text_at(h, x2 + 16, height - 7, NULL, NULL, "owned (share of the window)");
	fprintf(h->out, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"10\" style=\"fill:var(--c-cloud)\"/>", x2 + 190, height - 16);
	text_at(h, x2 + 206, height - 7, NULL, NULL, "rented (as one job)");
	if (np > nd) {
		snprintf(b, sizeof(b), "the %zu busiest of %zu processes", nd, np);
		text_at(h, ML, height - 7, NULL, "mut", b);
	}
	chart_end(h, "The table below has every process.");
	fprintf(h->out, "<table><thead><tr><th>GPU</th><th class=\"n\">pid</th><th>name</th><th class=\"n\">present</th>"
		"<th class=\"n\">busy</th><th class=\"n\">energy</th><th class=\"n\">owned share</th><th class=\"n\">rented</th>"
		"</tr></thead><tbody>\n");
	for (size_t i = 0; i < np; i++) {
		size_t k = ord[i];
		const struct proc_stat *p = &an->procs[k];
		if (p->pid == PID_TASK)	/* a task label (gpu_monitor.sh's TASK_ID) */
			fprintf(h->out, "<tr><td>%s</td><td class=\"n\">task</td><td><code>",
				analysis_gpu_num(an, p->gpu, gn, sizeof(gn)));
		else
			fprintf(h->out, "<tr><td>%s</td><td class=\"n\">%" PRId64 "</td><td><code>",
				analysis_gpu_num(an, p->gpu, gn, sizeof(gn)), p->pid);
		esc(h, p->name[0] ? p->name : "-");
		fprintf(h->out, "</code></td><td class=\"n\">");
		vnum(h, p->present_s, 3, 1, 1, "processes.%zu.present_s", k);
		fprintf(h->out, " s</td><td class=\"n\">");
		vnum(h, p->busy_s, 3, 1, 1, "processes.%zu.busy_s", k);
		fprintf(h->out, " s</td><td class=\"n\">");
		vnum(h, p->energy_j, 1, 1 / 3.6e6, 4, "processes.%zu.energy_j", k);
		fprintf(h->out, " kWh</td><td class=\"n\">");
		vmoney(h, r->proc_local_cost[k], "processes.%zu.local_cost", k);
		fprintf(h->out, "</td><td class=\"n\">");
		vmoney(h, r->proc_cloud_cost[k], "processes.%zu.cloud_cost", k);
		fprintf(h->out, "</td></tr>\n");
	}
	fprintf(h->out, "</tbody></table></section>\n");
}

/* ---- chart 7: a memory leak, its fitted line and where it ends ---------- */

#define MAX_LEAK_CHARTS 4
#define LH 150		/* plot height */

static bool is_leak(const struct finding *f)
{
	return f->gpu >= 0 && isfinite(f->fit_mib0) && !strncmp(f->kind, "memory_leak", 11);
}

static double xl(const struct svg_scale *s, int64_t t)
{
	double x = svg_map(s, (double)t);
	return x < ML ? ML : x > ML + PW ? ML + PW : x;
}

static void leak_chart(struct hw *h, const struct finding *f)
{
	const struct report *r = h->r;
	const struct gpu_stats *g = &r->an->gpus[f->gpu];
	size_t fi = find_index(r->an, f), n, merged = 1;
	int64_t span = f->t1_ns - f->t0_ns, a, b;
	struct svg_col *c = xcalloc(PW, sizeof(*c));
	struct svg_scale xs, ys;
	double lo = fmin(f->fit_mib0, f->fit_mib1), hi = fmax(f->fit_mib0, f->fit_mib1), pad, t[12];
	char l[128], title[200], desc[600], b1[96], b2[48], lab[96], rate[32];
	bool full_in = false, open = false, gib;
	int64_t tt[64], step = 0;
	size_t nt;

	if (span <= 0)
		span = NS_PER_S;
	a = f->t0_ns - span / 5;
	b = f->t1_ns + span / 5;
	/* the projection is drawn when "full" is near enough to show: within 4 spans */
	if (f->full_ns > 0 && f->full_ns - f->t1_ns <= 4 * span) {
		b = f->full_ns + span / 10;
		full_in = true;
	}
	if (a < g->first_ns)
		a = g->first_ns;
	xs = (struct svg_scale){ (double)a, (double)b, ML, ML + PW };
	n = svg_columns(&g->ser, SER_MEM, c, PW, &merged);
	/* the axis spans the data, the fitted line and its projection, and the
	 * memory total only when the projection reaches it on the chart: a
	 * 16 GiB rise must not be a flat line under a 141 GiB total */
	for (size_t i = 0; i < n; i++)
		if (c[i].t1_ns >= a && c[i].t0_ns <= b && !isnan(c[i].max)) {
			hi = fmax(hi, c[i].max);
			lo = fmin(lo, isnan(c[i].min) ? c[i].max : c[i].min);
		}
	if (full_in && g->mem_total_mib > 0)
		hi = fmax(hi, g->mem_total_mib);
	else if (f->full_ns > f->t1_ns)
		hi = fmax(hi, f->fit_mib1 + (f->fit_mib1 - f->fit_mib0) * (double)(b - f->t1_ns) / (double)span);
	pad = (hi - lo) * 0.05 + 1;
	lo = fmax(0, lo - pad);
	hi += pad;
	gpu_label(l, sizeof(l), r->an, f->gpu);
	snprintf(title, sizeof(title), "%s: memory used during the %s finding, with its fitted line", l, f->kind);
	if (f->full_ns)
		snprintf(b1, sizeof(b1), "%s", time_rfc3339(b2, sizeof(b2), f->full_ns));
	else
		snprintf(b1, sizeof(b1), "never (memory total unknown, or more than a century away)");
	snprintf(desc, sizeof(desc), "Memory used on %s from %s for %s; the fitted line rises %s from %.0f MiB "
		 "to %.0f MiB. At that rate memory is full: %s.", l, time_rfc3339(b2, sizeof(b2), f->t0_ns),
		 time_human_dur(lab, sizeof(lab), span), nf_mib_rate(rate, sizeof(rate), f->value), f->fit_mib0,
		 f->fit_mib1, b1);
	chart_begin(h, LH + 70, title, desc);
	nt = svg_ticks(&lo, &hi, 4, t, 12);
	ys = (struct svg_scale){ lo, hi, 20 + LH, 20 };
	for (size_t i = 0; i < nt; i++) {
		double y = svg_map(&ys, t[i]);
		fprintf(h->out, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>", ML, ML + PW, y, y);
		snprintf(lab, sizeof(lab), "%g", t[i]);
		text_at(h, ML - 4, y + 4, "end", "mut", lab);
	}
	text_at(h, ML, 12, NULL, NULL, "memory used (MiB)");
	fprintf(h->out, "<rect x=\"%d\" y=\"20\" width=\"%d\" height=\"%d\" fill=\"none\" class=\"ax\"/>", ML, PW, LH);
	/* the readings: the column means, broken at gaps */
	fprintf(h->out, "<path fill=\"none\" stroke=\"var(--c-fb)\" stroke-width=\"1.4\" d=\"");
	for (size_t i = 0; i < n; i++) {
		if (c[i].t1_ns < a || c[i].t0_ns > b || isnan(c[i].mean)) {
			open = false;
			continue;
		}
		fprintf(h->out, "%c%.1f %.1f", open ? 'L' : 'M', xl(&xs, (c[i].t0_ns + c[i].t1_ns) / 2),
			svg_map(&ys, c[i].mean));
		open = c[i].gap_s <= 0;
	}
	fprintf(h->out, "\"/>");
	/* the fitted line, and its projection to full */
	fprintf(h->out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"var(--fg)\" stroke-width=\"2\">"
		"<title>fitted line: %.1f MiB/h</title></line>", xl(&xs, f->t0_ns), svg_map(&ys, f->fit_mib0),
		xl(&xs, f->t1_ns), svg_map(&ys, f->fit_mib1), f->value);
	if (f->full_ns > f->t1_ns) {
		int64_t end = full_in ? f->full_ns : b;
		double y_end = f->fit_mib1 + (f->fit_mib1 - f->fit_mib0) * (double)(end - f->t1_ns) / (double)span;
		fprintf(h->out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"var(--fg)\" stroke-width=\"1.4\" "
			"stroke-dasharray=\"6 4\"/>", xl(&xs, f->t1_ns), svg_map(&ys, f->fit_mib1), xl(&xs, end),
			svg_map(&ys, fmin(y_end, hi)));
	}
	if (g->mem_total_mib > 0 && g->mem_total_mib <= hi) {
		double y = svg_map(&ys, g->mem_total_mib);
		fprintf(h->out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"var(--c-pow)\" stroke-dasharray=\"3 3\"/>",
			ML, ML + PW, y, y);
		snprintf(lab, sizeof(lab), "memory total %.0f MiB", g->mem_total_mib);
		text_at(h, ML + PW - 4, y + 13, "end", NULL, lab);
	}
	nt = svg_time_ticks(a, b, 8, tt, 64, &step);
	for (size_t i = 0; i < nt; i++) {
		char tl[40];
		svg_time_label(tl, sizeof(tl), tt[i], step);
		text_at(h, xl(&xs, tt[i]), 20 + LH + 14, "middle", "mut", tl);
	}
	text_at(h, ML + PW, 20 + LH + 28, "end", "mut", "time (UTC)");
	fprintf(h->out, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"var(--c-fb)\" stroke-width=\"2\"/>",
		ML, ML + 16, LH + 56, LH + 56);
	text_at(h, ML + 20, LH + 60, NULL, NULL, "memory used");
	fprintf(h->out, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"var(--fg)\" stroke-width=\"2\"/>",
		ML + 130, ML + 146, LH + 56, LH + 56);
	text_at(h, ML + 150, LH + 60, NULL, NULL, "fitted line (dashed: projected)");
	chart_end(h, full_in ? "The dashed line runs to the moment the fitted line reaches the memory total."
		  : "Where memory would be full lies beyond the chart (or is unknown): see the figures below.");
	fprintf(h->out, "<p>Slope ");
	/* MiB/h or GiB/h as util/numfmt.h picks; the JSON value stays in MiB/h */
	gib = strstr(nf_mib_rate(rate, sizeof(rate), f->value), "GiB") != NULL;
	vnum(h, f->value, 3, gib ? 1.0 / 1024 : 1, 1, "findings.%zu.value", fi);
	fprintf(h->out, gib ? " GiB/h, fitted " : " MiB/h, fitted ");
	vnum(h, f->fit_mib0, 1, 1, 0, "findings.%zu.fit.mib_at_start", fi);
	fprintf(h->out, " to ");
	vnum(h, f->fit_mib1, 1, 1, 0, "findings.%zu.fit.mib_at_end", fi);
	fprintf(h->out, " MiB; full: ");
	esc(h, b1);
	fprintf(h->out, ".</p>\n");
	free(c);
}

static void leaks(struct hw *h, const struct finding **byw)
{
	const struct analysis *an = h->r->an;
	size_t nl = 0, shown = 0;

	for (size_t i = 0; i < an->nfinds; i++)
		nl += is_leak(&an->finds[i]);
	if (!nl)
		return;
	fprintf(h->out, "<section id=\"leaks\"><h2>Memory leaks (%zu)</h2>\n", nl);
	for (size_t i = 0; i < an->nfinds && shown < MAX_LEAK_CHARTS; i++)
		if (is_leak(byw[i])) {
			leak_chart(h, byw[i]);
			shown++;
		}
	if (nl > shown)
		fprintf(h->out, "<p class=\"mut\">... %zu more leak findings in the table below and in --json</p>\n", nl - shown);
	fprintf(h->out, "</section>\n");
}

/* ---- findings ----------------------------------------------------------- */

static void findings(struct hw *h, const struct finding **byw)
{
	const struct analysis *an = h->r->an;
	size_t n = an->nfinds < MAX_FINDINGS_LISTED ? an->nfinds : MAX_FINDINGS_LISTED;

	fprintf(h->out, "<section id=\"findings\"><h2>Findings (%zu)</h2>\n", an->nfinds + (size_t)an->finds_dropped);
	if (!an->nfinds) {
		fprintf(h->out, "<p>None.</p></section>\n");
		return;
	}
	fprintf(h->out, "<table><thead><tr><th>severity</th><th>kind</th><th>GPU</th><th>from</th><th>to</th>"
		"<th>what</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < n; i++) {
		const struct finding *f = byw[i];
		fprintf(h->out, "<tr><td class=\"sev-%s\">%s</td><td>", severity_name[f->severity], severity_name[f->severity]);
		esc(h, f->kind);
		if (f->fk == FK_NONE)
			fprintf(h->out, " (a kind this version does not know)");
		if (f->gpu >= 0 && an->tl.gpus[f->gpu].id.index >= 0)
			fprintf(h->out, "</td><td>%d</td><td>", an->tl.gpus[f->gpu].id.index);
		else if (f->gpu >= 0)
			fprintf(h->out, "</td><td>?</td><td>");
		else
			fprintf(h->out, "</td><td>-</td><td>");
		when(h, f->t0_ns);
		fprintf(h->out, "</td><td>");
		when(h, f->t1_ns);
		fprintf(h->out, "</td><td>");
		esc(h, f->message);
		fprintf(h->out, "<br><span class=\"mut\">");
		esc(h, f->evidence);
		fprintf(h->out, "</span></td></tr>\n");
	}
	fprintf(h->out, "</tbody></table>\n");
	if (an->nfinds > n || an->finds_dropped)
		fprintf(h->out, "<p class=\"mut\">... %zu more in --json</p>\n", an->nfinds - n + (size_t)an->finds_dropped);
	fprintf(h->out, "</section>\n");
}

/* Outages after fatal events, and the kernel and system events (outages[], events[]). */
static void events(struct hw *h)
{
	const struct analysis *an = h->r->an;
	char gn[16];
	size_t n = an->nevs < MAX_FINDINGS_LISTED ? an->nevs : MAX_FINDINGS_LISTED;
	char name[48];

	if (!an->nevs && !an->noutages)
		return;
	fprintf(h->out, "<section id=\"events\"><h2>Events and outages</h2>\n");
	if (an->noutages) {
		fprintf(h->out, "<p>From a fatal event to the GPU's next healthy sample, or to the end of the data, a GPU "
			"is down: no utilization, power or energy is counted there. The outage: ");
		vnum(h, h->r->outage_s / 3600, 6, 1, 3, "cost.outage.gpu_hours");
		fprintf(h->out, " GPU-hours");
		if (h->r->has_prices) {
			fprintf(h->out, ", ");
			vmoney(h, h->r->outage_cost, "cost.outage.cost");
			fprintf(h->out, " at the window's local cost per covered GPU-hour");
		}
		fprintf(h->out, ".</p>\n<table><thead><tr><th>GPU</th><th>from</th><th>to</th><th class=\"n\">seconds</th>"
			"<th>after</th><th>source</th></tr></thead><tbody>\n");
		for (size_t i = 0; i < an->noutages && i < MAX_FINDINGS_LISTED; i++) {
			const struct outage *o = &an->outages[i];
			fprintf(h->out, "<tr><td>%s</td><td>", analysis_gpu_num(an, o->gpu, gn, sizeof(gn)));
			when(h, o->t0_ns);
			fprintf(h->out, "</td><td>");
			when(h, o->t1_ns);
			fprintf(h->out, "</td><td class=\"n\">");
			vnum(h, (double)(o->t1_ns - o->t0_ns) / 1e9, 3, 1, 1, "outages.%zu.seconds", i);
			analysis_event_name(name, sizeof(name), o->ev, o->code);
			fprintf(h->out, "</td><td>");
			esc(h, name);
			fprintf(h->out, "</td><td>");
			esc(h, o->src ? o->src : "?");
			fprintf(h->out, ":%llu</td></tr>\n", (unsigned long long)o->line);
		}
		fprintf(h->out, "</tbody></table>\n");
	}
	if (an->nevs) {
		fprintf(h->out, "<table><thead><tr><th>time</th><th>GPU</th><th>event</th><th>class</th>"
			"<th>message</th></tr></thead><tbody>\n");
		for (size_t i = 0; i < n; i++) {
			const struct an_event *e = &an->evs[h->r->ev_order[i]];
			fprintf(h->out, "<tr><td>");
			if (e->unplaced)
				fprintf(h->out, "unplaced");
			else
				when(h, e->t_ns);
			if (e->gpu >= 0)
				fprintf(h->out, "</td><td>%s</td><td>", analysis_gpu_num(an, e->gpu, gn, sizeof(gn)));
			else
				fprintf(h->out, "</td><td>host</td><td>");
			analysis_event_name(name, sizeof(name), e->ev, e->code);
			esc(h, name);
			fprintf(h->out, "</td><td>");
			esc(h, e->klass < KC__COUNT ? kev_class_name[e->klass] : "-");
			fprintf(h->out, "</td><td>");
			esc(h, e->msg);
			fprintf(h->out, "<br><span class=\"mut\">");
			esc(h, e->src ? e->src : "?");
			fprintf(h->out, ":%llu%s", (unsigned long long)e->line,
				e->count > 1 ? " (a burst: --json has its count)" : "");
			if (e->copies) {
				fprintf(h->out, "; also in ");
				esc(h, e->also[0].src ? e->also[0].src : "?");
				fprintf(h->out, ":%llu (counted once)", (unsigned long long)e->also[0].line);
			}
			fprintf(h->out, "</span></td></tr>\n");
		}
		fprintf(h->out, "</tbody></table>\n");
		if (an->nevs > n || an->evs_dropped)
			fprintf(h->out, "<p class=\"mut\">... %zu more in --json</p>\n",
				an->nevs - n + (size_t)an->evs_dropped);
	}
	fprintf(h->out, "</section>\n");
}

/* Profiler traces beside utilization.gpu over the same stretch (the JSON's traces). */
static void traces(struct hw *h)
{
	const struct analysis *an = h->r->an;
	char gn[16];

	if (!an->trace)
		return;
	fprintf(h->out, "<section id=\"traces\"><h2>Traces</h2>\n<p class=\"mut\">Over each traced stretch the "
		"kernels' union counts as useful time, in place of what utilization.gpu counts there.</p>\n");
	if (an->njoins)
		fprintf(h->out, "<div class=\"wide\"><table><thead><tr><th>GPU</th><th>trace</th><th>matched by (and time)</th><th>from</th>"
			"<th class=\"n\">span</th><th class=\"n\">kernels</th><th class=\"n\">kernels fill</th>"
			"<th class=\"n\">utilization .gpu</th><th class=\"n\">median kernel</th>"
			"<th class=\"n\">median gap</th><th class=\"n\">useful</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < an->njoins; i++) {
		const struct trace_join *j = &an->joins[i];
		const char *base = strrchr(j->file, '/');
		/* the file's name, its path on hover: a long path must not widen the page */
		fprintf(h->out, "<tr><td>%s</td><td class=\"path\" title=\"", analysis_gpu_num(an, j->gpu, gn, sizeof(gn)));
		esc(h, j->file);
		fprintf(h->out, "\">");
		esc(h, base ? base + 1 : j->file);
		fprintf(h->out, "</td><td>%s</td><td>", j->matched_by);
		when(h, j->t0_ns);
		fprintf(h->out, "</td><td class=\"n\">");
		vnum(h, j->span_s, 9, 1e3, 1, "traces.joined.%zu.span_s", i);
		fprintf(h->out, " ms</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">", j->kernels);
		vnum(h, j->span_s > 0 ? j->kernel_s / j->span_s : NAN, 6, 100, 1, "traces.joined.%zu.kernel_share", i);
		fprintf(h->out, " %%</td><td class=\"n\">");
		vnum(h, j->util_pct, 4, 1, 1, "traces.joined.%zu.utilization_gpu.pct", i);
		fprintf(h->out, " %%</td><td class=\"n\">");
		vnum(h, j->kernels ? j->kernel_p50_ns / 1e3 : NAN, 3, 1, 2, "traces.joined.%zu.kernel_p50_us", i);
		fprintf(h->out, " us</td><td class=\"n\">");
		vnum(h, j->kernels > 1 ? j->gap_p50_ns / 1e3 : NAN, 3, 1, 2, "traces.joined.%zu.gap_p50_us", i);
		fprintf(h->out, " us</td><td class=\"n\">");
		vnum(h, j->overlaps ? j->useful_state_s : j->kernel_s, 9, 1, 4, "traces.joined.%zu.useful_s", i);
		fprintf(h->out, " s<br><span class=\"mut\">from %s</span></td></tr>\n", j->overlaps ? "utilization.gpu" : "trace kernels");
	}
	if (an->njoins)
		fprintf(h->out, "</tbody></table></div>\n");
	for (size_t i = 0; i < an->nunjoined; i++) {
		fprintf(h->out, "<p class=\"mut\">Not joined: ");
		esc(h, an->unjoined[i].file);
		fprintf(h->out, " device %d: ", an->unjoined[i].device);
		esc(h, an->unjoined[i].why);
		fprintf(h->out, "</p>\n");
	}
	fprintf(h->out, "</section>\n");
}

void report_html(FILE *out, const struct report *r)
{
	struct hw h = { out, r, 0 };
	const struct finding **byw = findings_by_weight(r->an);

	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		"<meta name=\"color-scheme\" content=\"light dark\">\n"
		"<meta name=\"generator\" content=\"gputally\">\n<title>gputally report");
	if (r->params.name[0]) {
		fprintf(out, ": ");
		esc(&h, r->params.name);
	}
	fprintf(out, "</title>\n<style>\n%s</style>\n</head><body>\n", css);
	pattern_defs(&h);
	fprintf(out, "<header><h1>gputally report</h1><p class=\"mut\">Where the GPU time went and what it cost. "
		"Times are UTC; every figure is in <code>gputally report --json</code> under the same name "
		"(hover a number's cell in a browser's inspector: <code>data-key</code>).</p></header>\n<main>\n");
	summary(&h, byw);
	if (r->t0_ns == INT64_MAX)
		inputs(&h);
	if (r->fleet)
		fleet_section(&h);
	if (r->t0_ns != INT64_MAX && r->t1_ns > r->t0_ns) {
		month(&h);
		gpus_table(&h);
		fprintf(out, "<section id=\"timelines\"><h2>Timelines</h2>\n");
		for (int i = 0; i < r->an->tl.ngpus; i++)
			timeline(&h, i, byw);
		fprintf(out, "</section>\n");
		time_split(&h);
		cost_section(&h);
		processes(&h);
		who(&h);
		traces(&h);
		leaks(&h, byw);
		findings(&h, byw);
		events(&h);
	} else if (r->t0_ns != INT64_MAX) {
		fprintf(out, "<p>The inputs hold a single instant of GPU data: no time to chart or price.</p>\n");
		gpus_table(&h);
		findings(&h, byw);
	} else {
		fprintf(out, "<p>No GPU samples were read, so there is nothing to chart: see the inputs above for why.</p>\n");
	}
	if (r->t0_ns != INT64_MAX)
		inputs(&h);	/* the details last: the summary sums them up */
	fprintf(out, "</main>\n<footer class=\"mut\"><p>Written by gputally");
	if (r->now_ns) {
		fprintf(out, " at ");
		when(&h, r->now_ns);
	}
	fprintf(out, ". States: docs/states.md; cost model: "
		"docs/cost-model.md; JSON keys: docs/report-json.md.</p></footer>\n</body></html>\n");
	free(byw);
}
