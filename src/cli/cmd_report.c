/* SPDX-License-Identifier: MIT */
/* gputally report: read logs, explain where GPU time went, price it. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "cli/commands.h"
#include "cli/cost_opts.h"
#include "cli/ingest_opts.h"
#include "cli/store_opts.h"
#include "cli/usage.h"
#include "cost/catalog.h"
#include "cost/profile.h"
#include "formats/driver.h"
#include "formats/prom_remote.h"
#include "pipeline/pipeline.h"
#include "report/report.h"
#include "report/writers.h"
#include "store/store.h"
#include "util/fdio.h"
#include "util/termsafe.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

#define REPORT_OPTIONS(X, G) \
	X(JSON, "json", 0, NULL, "machine-readable output (keys: docs/report-json.md)") \
	X(HTML, "html", 0, "FILE|-", "also write one self-contained HTML page with charts to FILE ('-': standard output instead of the report)") \
	X(MARKDOWN, "markdown", 0, NULL, "Markdown output (GitHub tables, no HTML) for tickets and pull requests") \
	X(PROFILE, "profile", 'p', "FILE|NAME", "cost profile: an INI file or a preset ('gputally cost --list-profiles')") \
	X(SET, "set", 's', "KEY=VALUE", "override one cost parameter (repeatable; 'gputally cost --help')") \
	X(CLOUD_CATALOG, "cloud-catalog", 0, "FILE", "take the cloud rate from a catalogue CSV of instance prices (SkyPilot's vms.csv): the median per-GPU on-demand rate of the GPU model (docs/prices.md); also --set cloud_catalog=FILE") \
	X(OUTPUT, "output", 'o', "FILE", "write the report to FILE instead of standard output") \
	X(NOW, "now", 0, "TIME", "stamp the HTML, Markdown and JSON with this generation time (RFC 3339); without it they carry none, so they are the same on every run") \
	G(INGEST_OPTIONS) \
	X(GPU_MAP, "gpu-map", 0, "FILE", "PCI address to GPU for kernel-log events: lines 'PCI_ADDR UUID-or-index' ('#' comments)") \
	X(DB, "db", 0, "FILE", "report on a window of a store ('gputally ingest') instead of files") \
	X(HELP, "help", 'h', NULL, "show this help") \
	X(PROMETHEUS, "prometheus", 0, "URL", "read the GPU metrics of a Prometheus server (docs/formats/prometheus-api.md); with files too, their GPUs join the server's on one timeline (a GPU in both is an error)") \
	X(SINCE, "since", 0, "DUR|TIME", "start of the window: with --prometheus a duration before --until (7d, 12h) or an RFC 3339 time (default 1d); with --db the first minute (YYYY-MM-DD is a UTC day; RFC 3339)") \
	X(UNTIL, "until", 0, "DUR|TIME", "end of the window: with --prometheus a duration before now or an RFC 3339 time (default now); with --db the window ends before this time") \
	X(STEP, "step", 0, "DUR", "--prometheus: query resolution (default: the targets' scrape interval, else 15s)") \
	X(MATCH, "match", 0, "SELECTOR", "--prometheus: only series matching a selector such as '{cluster=\"a\"}' (repeatable: any of them)") \
	X(BEARER, "bearer-token-file", 0, "FILE", "--prometheus: send the token in FILE as 'Authorization: Bearer'") \
	X(USER, "user", 0, "NAME", "--prometheus: basic authentication as NAME (password from --password-file, else ~/.netrc)") \
	X(PASSWORD_FILE, "password-file", 0, "FILE", "--prometheus: the basic-authentication password, first line of FILE") \
	X(CACERT, "cacert", 0, "FILE", "--prometheus: trust the CA certificates in FILE for https") \
	X(INSECURE, "insecure", 0, NULL, "--prometheus: do not verify the server's TLS certificate") \
	X(TIMEOUT, "timeout", 0, "DUR", "--prometheus: limit for each request (default 60s; connecting: at most 10s)")

enum { OPTION_IDS(REPORT_OPTIONS) };

const struct option_def report_options[] = { OPTION_ROWS(REPORT_OPTIONS) OPTIONS_END };

/* A --since/--until value: an RFC 3339 time, or a duration before ref_ns. */
/* --gpu-map FILE into the timeline's PCI map; a bad line stops the run. */
static int load_gpu_map(struct timeline *tl, const char *path)
{
	/* a map is a line per PCI address: bounded, so /dev/zero ends */
	FILE *f = fopen_bounded(path, 16 << 20, 4096);
	char *line = NULL;
	size_t cap = 0;
	uint64_t n = 0;
	int ret = EXIT_OK;

	if (!f) {
		error("cannot read --gpu-map '%s'", path);
		return EXIT_FAILURE_RUN;
	}
	while (getline(&line, &cap, f) >= 0) {
		unsigned col = 0;
		const char *why = NULL;
		n++;
		if (timeline_gpu_map_line(tl, line, &col, &why) < 0) {
			fprintf(stderr, "%s:%" PRIu64 ":%u: %s\n", path, n, col, why);
			error("--gpu-map: a bad line");
			ret = EXIT_USAGE;
			break;
		}
	}
	if (ret == EXIT_OK && ferror(f)) {
		error("--gpu-map '%s': not read: %s", path, errno == EFBIG ? fd_bound_error() : strerror(errno));
		ret = EXIT_USAGE;
	}
	free(line);
	fclose(f);
	return ret;
}

/* Does something accept a TCP connection at 127.0.0.1:port within timeout_ms? */
static bool tcp_answers(int port, int timeout_ms)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), err = 0;
	socklen_t len = sizeof(err);
	struct pollfd p;
	bool ok = false;

	if (fd < 0)
		return false;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (!connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		ok = true;
	} else if (errno == EINPROGRESS) {
		p.fd = fd;
		p.events = POLLOUT;
		ok = poll(&p, 1, timeout_ms) == 1 && !getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) && !err;
	}
	close(fd);
	return ok;
}

/* `journalctl -k -o json` into a temporary file; "" when there is no such output. */
static void journal_to_file(char *path, size_t cap)
{
	const char *tmp = getenv("TMPDIR");
	char cmd[600];
	struct stat sb;
	int fd, rc;

	snprintf(path, cap, "%s/gputally-journalctl-k-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if ((fd = mkstemp(path)) < 0) {
		path[0] = '\0';
		return;
	}
	close(fd);
	/* path is ours (mkstemp's letters), so it needs no quoting beyond these */
	snprintf(cmd, sizeof(cmd), "journalctl -k -o json --no-pager >'%s' 2>/dev/null", path);
	rc = system(cmd);
	if (rc != 0 || stat(path, &sb) || sb.st_size == 0) {
		unlink(path);
		path[0] = '\0';
	}
}

/*
 * report with no path: read the places where this machine keeps its GPU logs
 * (README, "Audit this machine"), and say which were read and which were
 * not there.  GPUTALLY_ROOT (the tests) puts the fixed paths under another
 * root and skips journalctl and the Prometheus probe.  Returns the number
 * of sources found.
 */
static int this_machine(const char ***ops, int *nops, struct prom_remote_opts *po, char *journal, size_t jcap)
{
	static const struct {
		const char *path, *what;
	} places[] = {
		{ "gputally-logs", "gputally record's default directory" },
		{ "/var/log/gputally", "gputally record's directory" },
		{ "/var/log/kern.log", "the kernel log" },
		{ "/var/lib/node_exporter/textfile_collector", "node_exporter's textfile directory" },
		{ "/var/lib/prometheus/node-exporter", "node_exporter's textfile directory, Debian's" },
	};
	static char paths[sizeof(places) / sizeof(places[0])][1024];
	const char *root = getenv("GPUTALLY_ROOT");
	bool kern = false;
	int found = 0;

	journal[0] = '\0';
	fprintf(stderr, "gputally: no path given: auditing this machine\n");
	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s%s", root && places[i].path[0] == '/' ? root : "", places[i].path);
		if (access(paths[i], R_OK)) {
			fprintf(stderr, "  not there: %s (%s)\n", paths[i], places[i].what);
			continue;
		}
		fprintf(stderr, "  reading:   %s (%s)\n", paths[i], places[i].what);
		*ops = xreallocarray(*ops, (size_t)*nops + 1, sizeof(**ops));
		(*ops)[(*nops)++] = paths[i];
		kern |= strstr(places[i].path, "kern.log") != NULL;
		found++;
	}
	if (!kern && !root) {
		journal_to_file(journal, jcap);
		if (journal[0]) {
			fprintf(stderr, "  reading:   journalctl -k -o json (the kernel's journal, saved as %s)\n", journal);
			*ops = xreallocarray(*ops, (size_t)*nops + 1, sizeof(**ops));
			(*ops)[(*nops)++] = journal;
			found++;
		} else {
			fprintf(stderr, "  not there: journalctl -k (no journal, or no access to it)\n");
		}
	}
	if (!root && tcp_answers(9090, 300)) {
		po->url = "http://localhost:9090";
		fprintf(stderr, "  reading:   Prometheus at http://localhost:9090 (the last day)\n");
		found++;
	} else if (!root) {
		fprintf(stderr, "  not there: Prometheus at localhost:9090 (nothing answers)\n");
	}
	return found;
}

static int parse_when(const char *opt, const char *arg, int64_t ref_ns, int64_t *out)
{
	int64_t d;

	if (!time_parse_iso(arg, strlen(arg), out))
		return 0;
	if (!time_parse_dur(arg, &d) && d >= 0) {
		*out = ref_ns - d;
		return 0;
	}
	return error("--%s wants a duration such as 7d or 12h, or a time such as 2026-11-29T22:46:33Z, got '%s'",
		     opt, arg);
}

static int64_t wall_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* The page goes to its own file (or to standard output for '-'). */
static int write_html(const char *path, const struct report *rep)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	int bad;

	if (!f) {
		error("cannot write '%s'", path);
		return -1;
	}
	report_writer_find("html")->render(f, rep);
	bad = fflush(f) || ferror(f);
	if (f != stdout)
		bad |= fclose(f) != 0;
	if (bad)
		error("writing the HTML report to '%s' failed", path);
	return bad ? -1 : 0;
}

int cmd_report(int argc, char **argv)
{
	struct option_iter it;
	struct ingest_cli ic;
	struct pipeline_opts popts;
	struct pipeline pl = { 0 };
	struct report rep;
	const struct report_writer *wr;	/* the output's writer, by name */
	const char **ops = NULL, **sets = NULL;
	const char *profile = NULL, *output = NULL, *html = NULL, *db = NULL, *gpu_map = NULL, *catalog = NULL;
	struct cloud_catalog cat = { 0 };
	int64_t db_since = INT64_MIN, db_until = INT64_MAX;
	const char *since = NULL, *until = NULL, **matches = NULL;
	struct prom_remote_opts po = { 0 };
	int nops = 0, nsets = 0, id, st, json = 0, markdown = 0, ret = EXIT_OK;
	int64_t now_ns = 0;
	FILE *out = stdout;
	char journal[512] = "";	/* report with no path: journalctl's output, removed at the end */

	ingest_cli_init(&ic);
	option_iter_init(&it, argc, argv);
	while ((id = option_next(&it, report_options, &ops, &nops)) != 0) {
		switch (id) {
		case -1:
			return EXIT_USAGE;
		case OPT_HELP:
			options_help("report", "[options] [FILE|DIR...]",
				     "Read GPU logs (any mix of formats; .gz and .zst too), line them up on one timeline\n"
				     "per GPU, explain where the time went and price it against renting.",
				     report_options);
			return EXIT_OK;
		case OPT_JSON:
			json = 1;
			break;
		case OPT_HTML:
			html = it.arg;
			break;
		case OPT_MARKDOWN:
			markdown = 1;
			break;
		case OPT_PROFILE:
			profile = it.arg;
			break;
		case OPT_SET:
			sets = xreallocarray(sets, (size_t)nsets + 1, sizeof(*sets));
			sets[nsets++] = it.arg;
			break;
		case OPT_OUTPUT:
			output = it.arg;
			break;
		case OPT_NOW:
			if (time_parse_iso(it.arg, strlen(it.arg), &now_ns) || !now_ns) {
				error("--now wants a time such as 2026-12-02T10:00:00Z, got '%s'", it.arg);
				return EXIT_USAGE;
			}
			break;
		case OPT_DB:
			db = it.arg;
			break;
		case OPT_PROMETHEUS:
			po.url = it.arg;
			break;
		case OPT_SINCE:
			since = it.arg;
			break;
		case OPT_UNTIL:
			until = it.arg;
			break;
		case OPT_STEP:
			if (time_parse_dur(it.arg, &po.step_ns) || po.step_ns < NS_PER_MS) {
				error("--step wants a duration of at least 1ms such as 15s, got '%s'", it.arg);
				free(matches);
				free(ops);
				return EXIT_USAGE;
			}
			break;
		case OPT_TIMEOUT:
			if (time_parse_dur(it.arg, &po.timeout_ns) || po.timeout_ns < NS_PER_MS) {
				error("--timeout wants a duration such as 30s, got '%s'", it.arg);
				free(matches);
				free(ops);
				return EXIT_USAGE;
			}
			break;
		case OPT_MATCH:
			matches = xreallocarray(matches, po.nmatch + 1, sizeof(*matches));
			matches[po.nmatch++] = it.arg;
			break;
		case OPT_BEARER:
			po.bearer_file = it.arg;
			break;
		case OPT_USER:
			po.user = it.arg;
			break;
		case OPT_PASSWORD_FILE:
			po.password_file = it.arg;
			break;
		case OPT_CACERT:
			po.cacert = it.arg;
			break;
		case OPT_GPU_MAP:
			gpu_map = it.arg;
			break;
		case OPT_CLOUD_CATALOG:
			catalog = it.arg;
			break;
		case OPT_INSECURE:
			po.insecure = true;
			break;
		default:
			if (ingest_cli_option(&ic, id, it.arg) < 0)
				return EXIT_USAGE;
		}
	}
	if (json && markdown) {
		error("--json and --markdown are two renderings of the same report: pick one");
		return EXIT_USAGE;
	}
	if (html && !strcmp(html, "-") && (json || markdown || output)) {
		error("--html - writes the page to standard output: it cannot go with --json, --markdown or --output");
		return EXIT_USAGE;
	}
	if (nops == 0 && !po.url && !db && !this_machine(&ops, &nops, &po, journal, sizeof(journal))) {
		error("report found none of this machine's logs (above): give files or directories "
		      "(try 'gputally report examples/h200-training')");
		free(ops);
		return EXIT_USAGE;
	}
	if (db && (nops || po.url)) {
		error("--db reports on a store: give no files and no --prometheus with it (ingest them first)");
		return EXIT_USAGE;
	}
	if (db && ((since && store_parse_when("since", since, &db_since)) ||
		   (until && store_parse_when("until", until, &db_until))))
		return EXIT_USAGE;
	po.match = matches;
	if (!po.url && !db && (since || until)) {
		error("--since and --until choose a window of a store (--db) or of a Prometheus server (--prometheus)");
		free(matches);
		free(ops);
		return EXIT_USAGE;
	}
	if (!po.url && (po.step_ns || po.nmatch || po.bearer_file || po.user || po.password_file ||
			po.cacert || po.insecure || po.timeout_ns)) {
		error("--step, --match and the connection options go with --prometheus URL");
		free(matches);
		free(ops);
		return EXIT_USAGE;
	}
	if (po.password_file && !po.user) {
		error("--password-file goes with --user NAME");
		free(matches);
		free(ops);
		return EXIT_USAGE;
	}
	if (po.url) {
		int64_t now = wall_now_ns();
		/* a tuning knob (and the tests' way to force many chunks) */
		const char *mem = getenv("GPUTALLY_PROM_CHUNK_BYTES");
		if (mem && *mem)
			po.mem_budget = (size_t)strtoull(mem, NULL, 10);
		po.end_ns = now;
		if ((until && parse_when("until", until, now, &po.end_ns)) ||
		    (since && parse_when("since", since, po.end_ns, &po.start_ns))) {
			free(matches);
			free(ops);
			return EXIT_USAGE;
		}
		if (!since)
			po.start_ns = po.end_ns - NS_PER_DAY;
		if (po.start_ns >= po.end_ns) {
			error("--since must be before --until");
			free(matches);
			free(ops);
			return EXIT_USAGE;
		}
	}
	if (nops == 0 && !po.url && !db) {
		error("report needs at least one file or directory (try 'gputally report examples/h200-training')");
		return EXIT_USAGE;
	}
	memset(&rep, 0, sizeof(rep));
	catalog = cli_take_catalog_set(sets, &nsets, catalog);
	if ((ret = cli_cost_params(&rep.params, profile, sets, nsets)) != EXIT_OK ||
	    (catalog && (ret = cli_cloud_catalog(&cat, catalog)) != EXIT_OK))
		goto out;
	rep.catalog = catalog ? &cat : NULL;
	ingest_cli_apply(&ic);

	ingest_cli_pipeline(&ic, ops, nops, &popts);
	popts.prom = po.url ? &po : NULL;
	popts.db = db;
	popts.db_since = db_since;
	popts.db_until = db_until;
	popts.series = html != NULL;	/* the charts draw the display series */
	pipeline_open(&pl, &popts);
	if (gpu_map && (ret = load_gpu_map(&pl.an->tl, gpu_map)) != EXIT_OK)
		goto out;
	st = pipeline_run(&pl);
	if (st != PIPE_OK) {
		pipeline_say_bad(&pl);
		ret = pipeline_say_status(&pl, st, "");
		pl.bad_total = pl.nbad = 0;	/* said */
		goto out;
	}
	/* a file given by name that was not read: exit 1, and no report at
	 * all when it was the only input */
	if (!db && ingest_named_unread(&pl.res)) {
		ret = EXIT_FAILURE_RUN;
		if (pl.res.nr == 1 && !po.url)
			goto out;
	}
	pipeline_report(&pl, &rep);
	rep.now_ns = now_ns;
	rep.assume_prices = profile == NULL;
	rep.store = db;
	rep.tz = ic.tz ? ic.tz : getenv("TZ") ? getenv("TZ") : "machine local time";
	report_compute(&rep);
	wr = report_writer_find(json ? "json" : markdown ? "markdown" : "text");
	if (html && write_html(html, &rep))
		ret = EXIT_FAILURE_RUN;
	if (html && !strcmp(html, "-"))
		goto out;
	if (output && !(out = fopen(output, "w"))) {
		error("cannot write '%s'", output);
		ret = EXIT_FAILURE_RUN;
		goto out;
	}
	if (wr->for_terminal)
		out = term_safe(out);	/* closed below */
	wr->render(out, &rep);
	if (fflush(out) || ferror(out)) {
		error("writing the report failed");
		ret = EXIT_FAILURE_RUN;
	}
	if (out != stdout)
		fclose(out);
out:
	pipeline_say_bad(&pl);	/* after the report, which lists them */
	if (journal[0])
		unlink(journal);
	report_release(&rep);
	pipeline_close(&pl);
	free(matches);
	free(ops);
	free(sets);
	catalog_free(&cat);
	return ret;
}
