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
#include "report/report.h"
#include "report/writers.h"
#include "store/store.h"
#include "util/fdio.h"
#include "util/termsafe.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

#define MAX_BAD_KEPT 1000

enum {
	OPT_JSON = 1,
	OPT_HTML,
	OPT_MARKDOWN,
	OPT_PROFILE,
	OPT_SET,
	OPT_OUTPUT,
	OPT_NOW,
	OPT_HELP,
	OPT_DB,
	OPT_PROMETHEUS,
	OPT_SINCE,
	OPT_UNTIL,
	OPT_STEP,
	OPT_MATCH,
	OPT_BEARER,
	OPT_USER,
	OPT_PASSWORD_FILE,
	OPT_CACERT,
	OPT_INSECURE,
	OPT_TIMEOUT,
	OPT_GPU_MAP,
	OPT_CLOUD_CATALOG,
};

const struct option_def report_options[] = {
	{ "json", 0, NULL, "machine-readable output (keys: docs/report-json.md)", OPT_JSON },
	{ "html", 0, "FILE|-", "also write one self-contained HTML page with charts to FILE ('-': standard output instead of the report)", OPT_HTML },
	{ "markdown", 0, NULL, "Markdown output (GitHub tables, no HTML) for tickets and pull requests", OPT_MARKDOWN },
	{ "profile", 'p', "FILE|NAME", "cost profile: an INI file or a preset ('gputally cost --list-profiles')", OPT_PROFILE },
	{ "set", 's', "KEY=VALUE", "override one cost parameter (repeatable; 'gputally cost --help')", OPT_SET },
	{ "cloud-catalog", 0, "FILE", "take the cloud rate from a catalogue CSV of instance prices (SkyPilot's vms.csv): the median per-GPU on-demand rate of the GPU model (docs/prices.md); also --set cloud_catalog=FILE", OPT_CLOUD_CATALOG },
	{ "output", 'o', "FILE", "write the report to FILE instead of standard output", OPT_OUTPUT },
	{ "now", 0, "TIME", "stamp the HTML, Markdown and JSON with this generation time (RFC 3339); without it they carry none, so they are the same on every run", OPT_NOW },
	INGEST_OPTION_ROWS,
	{ "gpu-map", 0, "FILE", "PCI address to GPU for kernel-log events: lines 'PCI_ADDR UUID-or-index' ('#' comments)", OPT_GPU_MAP },
	{ "db", 0, "FILE", "report on a window of a store ('gputally ingest') instead of files", OPT_DB },
	{ "help", 'h', NULL, "show this help", OPT_HELP },
	{ "prometheus", 0, "URL", "read the GPU metrics of a Prometheus server (docs/formats/prometheus-api.md); with files too, their GPUs join the server's on one timeline (a GPU in both is an error)", OPT_PROMETHEUS },
	{ "since", 0, "DUR|TIME", "start of the window: with --prometheus a duration before --until (7d, 12h) or an RFC 3339 time (default 1d); with --db the first minute (YYYY-MM-DD is a UTC day; RFC 3339)", OPT_SINCE },
	{ "until", 0, "DUR|TIME", "end of the window: with --prometheus a duration before now or an RFC 3339 time (default now); with --db the window ends before this time", OPT_UNTIL },
	{ "step", 0, "DUR", "--prometheus: query resolution (default: the targets' scrape interval, else 15s)", OPT_STEP },
	{ "match", 0, "SELECTOR", "--prometheus: only series matching a selector such as '{cluster=\"a\"}' (repeatable: any of them)", OPT_MATCH },
	{ "bearer-token-file", 0, "FILE", "--prometheus: send the token in FILE as 'Authorization: Bearer'", OPT_BEARER },
	{ "user", 0, "NAME", "--prometheus: basic authentication as NAME (password from --password-file, else ~/.netrc)", OPT_USER },
	{ "password-file", 0, "FILE", "--prometheus: the basic-authentication password, first line of FILE", OPT_PASSWORD_FILE },
	{ "cacert", 0, "FILE", "--prometheus: trust the CA certificates in FILE for https", OPT_CACERT },
	{ "insecure", 0, NULL, "--prometheus: do not verify the server's TLS certificate", OPT_INSECURE },
	{ "timeout", 0, "DUR", "--prometheus: limit for each request (default 60s; connecting: at most 10s)", OPT_TIMEOUT },
	OPTIONS_END
};

struct report_ctx {
	struct analysis *an;
	struct bad_line *bad;
	size_t nbad;
	uint64_t bad_total;
	int strict;
	const struct input_stat *strict_in;
	struct bad_line strict_bad;
	bool want_series;	/* --html: the charts draw the display series */
	/* files and --prometheus in one run: the files' GPUs (read first), and
	 * the first server GPU that is one of them (the run stops there) */
	int nfile_gpus;
	char twice[96];
};

/*
 * The display series costs about a tenth of a report's time: keep it only
 * for the HTML page or when a trace is to be joined (its utilization is read
 * off the series' buckets).
 */
static void on_begin(void *ud, const struct ingest_result *res)
{
	struct report_ctx *c = ud;
	bool traces = false;

	for (size_t i = 0; i < res->nr; i++)
		if (res->inputs[i].format && res->inputs[i].format->traces)
			traces = true;
	c->an->cfg.series = c->want_series || traces;
}

static int on_rec(void *ud, const struct input_stat *in, const struct rec *r, const struct batch *b)
{
	struct report_ctx *c = ud;

	if (r->kind == REC_BAD) {
		struct bad_line *bl;
		c->bad_total++;
		if (c->strict) {
			c->strict_bad.path = in->path;
			c->strict_bad.line = r->line;
			c->strict_bad.col = r->col;
			snprintf(c->strict_bad.msg, sizeof(c->strict_bad.msg), "%s", batch_str(b, r->name));
			return EXIT_INPUT;
		}
		if (c->nbad < MAX_BAD_KEPT) {
			bl = &c->bad[c->nbad++];
			bl->path = in->path;
			bl->line = r->line;
			bl->col = r->col;
			snprintf(bl->msg, sizeof(bl->msg), "%s", batch_str(b, r->name));
		}
		analysis_bad(c->an, r, batch_str(b, r->name), in->path);
		return 0;
	}
	analysis_add(c->an, r, b, in->path);
	return 0;
}

/*
 * The server's records, after the files': a GPU both in a file and on the
 * server would count its time twice (or mix two readings of one instant),
 * so the run stops at the first such GPU and says which (docs/formats/
 * prometheus-api.md, "Files and a server in one run").
 */
static int on_prom_rec(void *ud, const struct input_stat *in, const struct rec *r, const struct batch *b)
{
	struct report_ctx *c = ud;
	const char *uuid = r->kind == REC_BAD ? NULL : batch_str(b, r->uuid);

	if (uuid && uuid[0])
		for (int i = 0; i < c->nfile_gpus; i++)
			if (!strcmp(c->an->tl.gpus[i].id.uuid, uuid)) {
				snprintf(c->twice, sizeof(c->twice), "%s", uuid);
				return EXIT_USAGE;
			}
	return on_rec(ud, in, r, b);
}

/* The files' GPUs must be told apart from the server's: by UUID only. */
static int files_have_uuids(const struct report_ctx *c)
{
	for (int i = 0; i < c->nfile_gpus; i++)
		if (!c->an->tl.gpus[i].id.uuid[0]) {
			error("with --prometheus, every GPU of the files needs a UUID (it is how a GPU on the server "
			      "and in a file are told apart): GPU %d of the files has none; report on them separately",
			      c->an->tl.gpus[i].id.index);
			return -1;
		}
	return 0;
}

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
	struct ingest_result res = { 0 };
	struct ingest_sink sink = { 0 };
	struct report_ctx c = { 0 }, cs = { 0 };	/* cs: MIG slices (never a bad line) */
	struct ingest_sink slice_sink = { 0 };
	struct report rep;
	const struct report_writer *wr;	/* the output's writer, by name */
	struct gl_err err = { 0 };
	const char **ops = NULL, **sets = NULL;
	const char *profile = NULL, *output = NULL, *html = NULL, *db = NULL, *gpu_map = NULL, *catalog = NULL;
	struct cloud_catalog cat = { 0 };
	int64_t db_since = INT64_MIN, db_until = INT64_MAX;
	struct store st = { 0 };
	const char *since = NULL, *until = NULL, **matches = NULL;
	struct prom_remote_opts po = { 0 };
	struct prom_fleet fleet = { 0 };
	int nops = 0, nsets = 0, id, rc, json = 0, markdown = 0, ret = EXIT_OK;
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

	c.an = xcalloc(1, sizeof(*c.an));
	analysis_init(c.an, NULL);
	if (gpu_map && (ret = load_gpu_map(&c.an->tl, gpu_map)) != EXIT_OK)
		goto out;
	c.bad = xcalloc(MAX_BAD_KEPT, sizeof(*c.bad));
	c.strict = ic.strict;
	if (db) {
		/* the window from the rollups: the same report code, no files read */
		if (store_open(&st, db, STORE_READ, &err) ||
		    store_load_analysis(&st, c.an, db_since, db_until, &err) < 0) {
			print_gl_err(&err);
			ret = EXIT_FAILURE_RUN;
			goto out;
		}
		store_load_inputs(&st, &res, db_since, db_until);
		goto render;
	}
	sink.ud = &c;
	sink.rec = on_rec;
	sink.begin = on_begin;
	c.want_series = html != NULL;
	/* files first, then the server's GPUs beside them on the same timeline */
	rc = nops ? ingest_run(ops, (size_t)nops, &ic.o, &sink, &res, &err) : 0;
	if (!rc && po.url) {
		c.nfile_gpus = c.an->tl.ngpus;
		if (files_have_uuids(&c)) {
			ret = EXIT_USAGE;
			goto out;
		}
		sink.rec = on_prom_rec;
		/* MIG slices on a timeline of their own: their GPU's time is the
		 * one that is priced; a slice's is its share of it (fleet.c) */
		cs.an = xcalloc(1, sizeof(*cs.an));
		analysis_init(cs.an, NULL);
		slice_sink.ud = &cs;
		slice_sink.rec = on_rec;
		po.slice_sink = &slice_sink;
		rc = prom_remote_ingest(&po, &sink, &res, &fleet, &err);
		analysis_finish(cs.an);
	}
	if (c.twice[0]) {
		error("GPU %s is both in the files and on %s: its time would count twice; leave it out of one "
		      "(--match '{UUID!=\"%s\"}' for dcgm-exporter, 'uuid' for the others, or fewer files)",
		      c.twice, fleet.url, c.twice);
		ret = EXIT_USAGE;
		goto out;
	}
	if (rc == EXIT_INPUT) {
		fprintf(stderr, "%s:%" PRIu64 ":%u: %s\n", c.strict_bad.path, c.strict_bad.line,
			c.strict_bad.col, c.strict_bad.msg);
		error("stopping at the first bad line (--strict)");
		ret = EXIT_INPUT;
		goto out;
	}
	if (rc) {
		print_gl_err(&err);
		ret = EXIT_FAILURE_RUN;
		goto out;
	}
	for (size_t i = 0; i < res.nr; i++)
		analysis_input_size(c.an, res.inputs[i].path, res.inputs[i].bytes);
	analysis_finish(c.an);
	/* a file given by name that was not read: exit 1, and no report at
	 * all when it was the only input */
	if (ingest_named_unread(&res)) {
		ret = EXIT_FAILURE_RUN;
		if (res.nr == 1 && !po.url)
			goto out;
	}
render:
	rep.inputs = &res;
	rep.fleet = po.url ? &fleet : NULL;
	rep.slice_an = cs.an;
	rep.an = c.an;
	rep.bad = c.bad;
	rep.nbad = c.nbad;
	rep.bad_total = c.bad_total;
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
	if (c.bad_total && !wr->for_machines)
		fprintf(stderr, "gputally: %" PRIu64 " input line(s) skipped; see 'Skipped lines' in the report\n",
			c.bad_total);
out:
	if (journal[0])
		unlink(journal);
	store_close(&st);
	report_release(&rep);
	if (c.an) {
		analysis_release(c.an);
		free(c.an);
	}
	if (cs.an) {
		analysis_release(cs.an);
		free(cs.an);
	}
	free(c.bad);
	ingest_result_release(&res);
	prom_fleet_release(&fleet);
	free(matches);
	free(ops);
	free(sets);
	catalog_free(&cat);
	return ret;
}
