/* SPDX-License-Identifier: MIT */
/*
 * gputally alert: the rules of docs/alert.md over the same inputs as report.
 * Exit 1 when an alert fired, 0 when none did, 2 on a usage or input error
 * (so "no alert" is never mistaken for "could not look").
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/alert.h"
#include "analysis/analysis.h"
#include "cli/commands.h"
#include "cli/cost_opts.h"
#include "cli/ingest_opts.h"
#include "cli/usage.h"
#include "util/termsafe.h"
#include "cost/model.h"
#include "cost/profile.h"
#include "formats/driver.h"
#include "pipeline/pipeline.h"
#include "report/alert_out.h"
#include "report/alert_send.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

#define ALERT_EXIT_FIRED 1
#define ALERT_EXIT_ERROR 2

#define ALERT_OPTIONS(X, G) \
	X(RULES, "rules", 'r', "FILE", "alert rules (INI, docs/alert.md) instead of the compiled-in ones") \
	X(JSON, "json", 0, NULL, "machine-readable output: alerts[] with rule, gpu, start, end, value, message") \
	X(NOW, "now", 0, "TIME", "the clock for the stale-file rule (RFC 3339; default: the system clock)") \
	X(PROFILE, "profile", 'p', "FILE|NAME", "cost profile whose break-even utilization u* the util_below rule uses") \
	X(SET, "set", 's', "KEY=VALUE", "override one cost parameter (repeatable; 'gputally cost --help')") \
	X(PROM_RULES, "prometheus-rules", 0, NULL, "print the rules as a Prometheus alerting-rules file over the recorder's metrics") \
	X(PRINT_RULES, "print-rules", 0, NULL, "print the compiled-in rules as an INI file (a start for --rules)") \
	X(ALERTMANAGER, "alertmanager", 0, "URL", "also post the alerts to Alertmanager's v2 API at URL (http://host:9093)") \
	X(WEBHOOK, "webhook", 0, "URL", "also post the alerts to URL as JSON (see --webhook-format)") \
	X(WEBHOOK_FORMAT, "webhook-format", 0, "json|slack|teams", "the webhook's body: alert --json's document (default), a Slack or a Teams message") \
	X(LABEL, "label", 0, "KEY=VALUE", "a label added to every alert sent to Alertmanager (repeatable; for routing)") \
	X(SEND_TIMEOUT, "send-timeout", 0, "SECONDS", "one delivery attempt's limit, connection included (default 10)") \
	X(RETRIES, "retries", 0, "N", "attempts after a failed delivery that may pass: no answer, 5xx, 408, 429 (default 3)") \
	X(RETRY_WAIT, "retry-wait", 0, "SECONDS", "the wait before the first retry, doubled for each next one (default 1)") \
	G(INGEST_OPTIONS) \
	X(HELP, "help", 'h', NULL, "show this help")

enum { OPTION_IDS(ALERT_OPTIONS) };

const struct option_def alert_options[] = { OPTION_ROWS(ALERT_OPTIONS) OPTIONS_END };

/* The tap: the stale-file rule reads each sample's file and time. */
static int on_sample(void *ud, const struct input_stat *in, const struct rec *r, const struct batch *b)
{
	if (r->kind == REC_SAMPLE)
		alert_eval_sample(ud, in->path, in->format && !strcmp(in->format->id, "gputally-csv"), r->t_ns,
				  batch_str(b, r->uuid), r->gpu_index);
	return 0;
}

static int64_t clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* u* of the profile and --set values; NAN when it does not exist. */
static int load_ustar(const char *profile, const char **sets, int nsets, double *u_star)
{
	struct cost_params p;
	struct cost_longrun lr;

	if (cli_cost_params(&p, profile, sets, nsets) != EXIT_OK)
		return -1;
	cost_longrun(&p, &lr);
	*u_star = lr.status == COST_NEVER ? NAN : lr.u_star;
	return 0;
}

struct delivery {
	const char *am_url, *hook_url;
	enum alert_dest_kind hook_kind;
	struct alert_send_opts o;
};

/* Post what fired to each destination; EXIT_OK, or ALERT_EXIT_ERROR after
 * saying which one failed (the alerts were printed all the same). */
static int deliver(const struct alert_eval *ev, const struct delivery *d)
{
	struct gl_err err = { 0 };
	int ret = EXIT_OK;

	if (d->am_url && alert_send(ev, AD_ALERTMANAGER, d->am_url, &d->o, &err)) {
		print_gl_err(&err);
		ret = ALERT_EXIT_ERROR;
	}
	memset(&err, 0, sizeof(err));
	if (d->hook_url && alert_send(ev, d->hook_kind, d->hook_url, &d->o, &err)) {
		print_gl_err(&err);
		ret = ALERT_EXIT_ERROR;
	}
	return ret;
}

static int evaluate(const char **ops, int nops, struct ingest_cli *ic, const struct alert_rules *rs,
		    double u_star, int64_t now, int json, const char *profile, const struct delivery *d)
{
	struct pipeline_opts popts;
	struct pipeline pl;
	struct alert_eval ev;
	uint64_t records = 0;
	int st, ret = ALERT_EXIT_ERROR;

	ingest_cli_pipeline(ic, ops, nops, &popts);
	popts.tap = on_sample;
	popts.tap_ud = &ev;
	pipeline_open(&pl, &popts);	/* no page to draw: no display series */
	alert_eval_init(&ev, rs, pl.an, u_star);
	st = pipeline_run(&pl);
	pipeline_say_bad(&pl);
	if (st != PIPE_OK) {
		pipeline_say_status(&pl, st, "");
		goto out;	/* --strict included: exit 2 (docs/alert.md) */
	}
	for (size_t i = 0; i < pl.res.nr; i++) {
		const struct input_stat *in = &pl.res.inputs[i];
		records += in->records;
		if (in->skip_reason[0] && !(in->named && input_unread(in)))
			fprintf(stderr, "gputally: %s: %s\n", in->path, in->skip_reason);
	}
	if (ingest_named_unread(&pl.res))
		goto out;	/* a file given by name that cannot be read: exit 2 */
	if (!records) {
		error("no GPU data in the input: nothing to check (an empty log is not a healthy GPU)");
		goto out;
	}
	alert_eval_finish(&ev, now);
	if (ev.util_skipped)
		fprintf(stderr, "gputally: the util_below rule needs the break-even utilization u*: "
			"give --profile (the default cost model has none)\n");
	{	/* the output's writer, by name */
		const struct alert_writer *wr = alert_writer_find(json ? "json" : "text");
		if (wr->for_terminal)
			term_safe_stdout();
		wr->render(stdout, &ev, profile);
	}
	if (ev.dropped)
		fprintf(stderr, "gputally: %" PRIu64 " more alert(s) not listed (at most %d)\n",
			ev.dropped, ALERT_MAX_ALERTS);
	if (fflush(stdout) || ferror(stdout)) {
		error("writing the alerts failed");
		goto out;
	}
	ret = ev.n || ev.dropped ? ALERT_EXIT_FIRED : EXIT_OK;
	if (deliver(&ev, d) != EXIT_OK)
		ret = ALERT_EXIT_ERROR;
out:
	alert_eval_release(&ev);
	pipeline_close(&pl);
	return ret;
}

int cmd_alert(int argc, char **argv)
{
	struct option_iter it;
	struct ingest_cli ic;
	struct alert_rules *rs;
	struct gl_err err = { 0 };
	const char **ops = NULL, **sets = NULL;
	const char *rules = NULL, *profile = NULL;
	int nops = 0, nsets = 0, id, json = 0, prom = 0, ret = ALERT_EXIT_ERROR;
	int64_t now = INT64_MIN;
	double u_star = NAN;
	struct delivery d = { .hook_kind = AD_WEBHOOK_JSON, .o = { .timeout_s = 10, .retries = 3, .retry_wait_s = 1 } };
	char *end;

	ingest_cli_init(&ic);
	option_iter_init(&it, argc, argv);
	while ((id = option_next(&it, alert_options, &ops, &nops)) != 0) {
		switch (id) {
		case -1:
			goto usage;
		case OPT_HELP:
			options_help("alert", "[options] FILE|DIR...",
				     "Check GPU logs against alert rules (temperature, free memory, power, Xid,\n"
				     "down, utilization below break-even, a stale recorder file): one line per\n"
				     "alert; exit 1 when any fired, 0 when none, 2 on a usage or input error\n"
				     "or when --alertmanager or --webhook could not deliver them.",
				     alert_options);
			free(ops);
			free(sets);
			return EXIT_OK;
		case OPT_RULES:
			rules = it.arg;
			break;
		case OPT_JSON:
			json = 1;
			break;
		case OPT_NOW:
			if (time_parse_iso(it.arg, strlen(it.arg), &now)) {
				error("--now wants a time such as 2026-11-29T22:46:33Z, got '%s'", it.arg);
				goto usage;
			}
			break;
		case OPT_PROFILE:
			profile = it.arg;
			break;
		case OPT_SET:
			sets = xreallocarray(sets, (size_t)nsets + 1, sizeof(*sets));
			sets[nsets++] = it.arg;
			break;
		case OPT_PROM_RULES:
			prom = 1;
			break;
		case OPT_ALERTMANAGER:
			d.am_url = it.arg;
			break;
		case OPT_WEBHOOK:
			d.hook_url = it.arg;
			break;
		case OPT_WEBHOOK_FORMAT:
			if (!strcmp(it.arg, "json"))
				d.hook_kind = AD_WEBHOOK_JSON;
			else if (!strcmp(it.arg, "slack"))
				d.hook_kind = AD_WEBHOOK_SLACK;
			else if (!strcmp(it.arg, "teams"))
				d.hook_kind = AD_WEBHOOK_TEAMS;
			else {
				error("--webhook-format wants json, slack or teams, got '%s'", it.arg);
				goto usage;
			}
			break;
		case OPT_LABEL: {
			const char *eq = strchr(it.arg, '=');
			size_t kn = eq ? (size_t)(eq - it.arg) : 0;
			bool ok = kn > 0 && kn < 64 && !(it.arg[0] >= '0' && it.arg[0] <= '9');
			for (size_t k = 0; ok && k < kn; k++)
				ok = (it.arg[k] >= 'a' && it.arg[k] <= 'z') || (it.arg[k] >= 'A' && it.arg[k] <= 'Z') ||
				     (it.arg[k] >= '0' && it.arg[k] <= '9') || it.arg[k] == '_';
			if (!ok) {
				error("--label wants KEY=VALUE with a Prometheus label name (letters, digits, _), got '%s'", it.arg);
				goto usage;
			}
			if (d.o.nlabels == ALERT_SEND_MAX_LABELS) {
				error("at most %d --label", ALERT_SEND_MAX_LABELS);
				goto usage;
			}
			d.o.labels[d.o.nlabels++] = it.arg;
			break;
		}
		case OPT_SEND_TIMEOUT:
			d.o.timeout_s = strtod(it.arg, &end);
			if (*end || !(d.o.timeout_s > 0 && d.o.timeout_s <= 3600)) {
				error("--send-timeout wants seconds between 0 and 3600, got '%s'", it.arg);
				goto usage;
			}
			break;
		case OPT_RETRIES:
			d.o.retries = (int)strtol(it.arg, &end, 10);
			if (*end || !*it.arg || d.o.retries < 0 || d.o.retries > 10) {
				error("--retries wants 0 to 10, got '%s'", it.arg);
				goto usage;
			}
			break;
		case OPT_RETRY_WAIT:
			d.o.retry_wait_s = strtod(it.arg, &end);
			if (*end || !(d.o.retry_wait_s >= 0 && d.o.retry_wait_s <= 60)) {
				error("--retry-wait wants seconds between 0 and 60, got '%s'", it.arg);
				goto usage;
			}
			break;
		case OPT_PRINT_RULES:
			fputs(alert_rules_default_text, stdout);
			free(ops);
			free(sets);
			return EXIT_OK;
		default:
			if (ingest_cli_option(&ic, id, it.arg) < 0)
				goto usage;
		}
	}
	if (prom && (d.am_url || d.hook_url)) {
		error("--prometheus-rules prints rules: --alertmanager and --webhook deliver alerts found in logs");
		goto usage;
	}
	if (prom && (nops || json)) {
		error("--prometheus-rules prints rules and reads no logs: give no files and no --json");
		goto usage;
	}
	if (!prom && nops == 0) {
		error("alert needs at least one file or directory (try 'gputally alert examples/h200-training')");
		goto usage;
	}
	rs = xcalloc(1, sizeof(*rs));
	if (rules ? alert_rules_load(rs, rules, &err) : alert_rules_default(rs)) {
		print_gl_err(&err);
	} else if (load_ustar(profile, sets, nsets, &u_star) == 0) {
		ingest_cli_apply(&ic);
		if (prom) {
			alert_prometheus_rules(stdout, rs, u_star, profile);
			ret = fflush(stdout) || ferror(stdout) ? ALERT_EXIT_ERROR : EXIT_OK;
		} else {
			d.o.profile = profile;
			ret = evaluate(ops, nops, &ic, rs, u_star, now == INT64_MIN ? clock_now() : now,
				       json, profile, &d);
		}
	}
	free(rs);
	free(ops);
	free(sets);
	return ret;
usage:
	free(ops);
	free(sets);
	return EXIT_USAGE;
}
