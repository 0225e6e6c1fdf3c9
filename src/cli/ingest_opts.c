/* SPDX-License-Identifier: MIT */
#include "cli/ingest_opts.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/usage.h"
#include "util/timeutil.h"

/*
 * glibc takes any TZ it cannot find as UTC, silently: a typo would shift
 * every timestamp.  Accept a zone file that exists, UTC/GMT, or a POSIX TZ
 * string (it carries an offset, so it has a digit).
 */
static int tz_known(const char *tz)
{
	const char *dir = getenv("TZDIR");
	char path[4096];

	if (!*tz || strstr(tz, ".."))
		return 0;
	if (!strcmp(tz, "UTC") || !strcmp(tz, "GMT") || !strcmp(tz, "Z"))
		return 1;
	if (tz[0] != ':' && strpbrk(tz, "0123456789") && !strchr(tz, '/'))
		return 1;
	if (tz[0] == ':')
		tz++;
	if (tz[0] == '/')
		return access(tz, R_OK) == 0;
	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "/usr/share/zoneinfo", tz);
	return access(path, R_OK) == 0;
}

/* "1795992369" or "1795992369.623958" (epoch seconds), else RFC 3339. */
static int parse_boot_time(const char *arg, int64_t *t_ns)
{
	const char *p = arg;
	int64_t whole = 0, frac = 0, scale = NS_PER_S / 10;
	int nd = 0;

	while (*p >= '0' && *p <= '9' && nd < 12) {
		whole = whole * 10 + (*p++ - '0');
		nd++;
	}
	if (nd && nd < 12 && (*p == '\0' || *p == '.')) {
		if (*p == '.') {
			p++;
			if (!(*p >= '0' && *p <= '9'))
				return -1;
			while (*p >= '0' && *p <= '9') {
				frac += (*p++ - '0') * scale;
				scale /= 10;
			}
			if (*p)
				return -1;
		}
		*t_ns = whole * NS_PER_S + frac;
		return 0;
	}
	return time_parse_iso(arg, strlen(arg), t_ns) ? -1 : 0;
}

void ingest_cli_init(struct ingest_cli *c)
{
	memset(c, 0, sizeof(*c));
	c->o.date_days = INT64_MIN;
	c->o.interval_ns = NS_PER_S;
}

int ingest_cli_option(struct ingest_cli *c, int id, const char *arg)
{
	switch (id) {
	case OPT_I_FORMAT:
		if (!format_find(arg))
			return error("unknown format '%s' (see 'gputally formats')", arg);
		c->o.format = arg;
		return 0;
	case OPT_I_TZ:
		if (!tz_known(arg))
			return error("unknown time zone '%s' (a name from the tz database such as "
				     "Europe/Berlin, or a POSIX TZ string such as CET-1)", arg);
		c->tz = arg;
		return 0;
	case OPT_I_DATE:
		if (time_parse_date(arg, &c->o.date_days))
			return error("--date wants YYYY-MM-DD, got '%s'", arg);
		return 0;
	case OPT_I_COLUMNS:
		c->o.columns = arg;
		return 0;
	case OPT_I_INTERVAL:
		if (time_parse_dur(arg, &c->o.interval_ns) || c->o.interval_ns <= 0)
			return error("--interval wants a duration such as 1s or 500ms, got '%s'", arg);
		return 0;
	case OPT_I_START:
		if (time_parse_iso(arg, strlen(arg), &c->o.start_ns))
			return error("--start wants a time such as 2026-11-29T22:46:33Z, got '%s'", arg);
		c->o.has_start = true;
		return 0;
	case OPT_I_THREADS: {
		char *end;
		long n = strtol(arg, &end, 10);
		if (*end || n < 1 || n > 64)
			return error("--threads wants 1..64, got '%s'", arg);
		c->o.threads = (int)n;
		return 0;
	}
	case OPT_I_STRICT:
		c->strict = 1;
		return 0;
	case OPT_I_TOLERANT:
		c->o.tolerant = true;
		return 0;
	case OPT_I_BOOT_TIME:
		if (parse_boot_time(arg, &c->o.boot_time_ns))
			return error("--boot-time wants an RFC 3339 time such as 2026-11-29T22:46:09Z "
				     "or epoch seconds such as 1795992369.62, got '%s'", arg);
		c->o.has_boot_time = true;
		return 0;
	}
	return 1;
}

void ingest_cli_apply(struct ingest_cli *c)
{
	if (c->tz)
		setenv("TZ", c->tz, 1);
	tzset();
}

size_t ingest_named_unread(const struct ingest_result *res)
{
	size_t n = 0;

	for (size_t i = 0; i < res->nr; i++) {
		const struct input_stat *in = &res->inputs[i];
		if (in->named && input_unread(in)) {
			error("%s: %s", in->path, in->skip_reason);
			n++;
		}
	}
	return n;
}

void ingest_cli_pipeline(const struct ingest_cli *c, const char *const *paths, int npaths,
			 struct pipeline_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->paths = paths;
	o->npaths = npaths > 0 ? (size_t)npaths : 0;
	o->in = &c->o;
	o->strict = c->strict;
}

void pipeline_say_bad(const struct pipeline *p)
{
	size_t shown = p->nbad < PIPELINE_BAD_SHOWN ? p->nbad : PIPELINE_BAD_SHOWN;

	for (size_t i = 0; i < shown; i++)
		fprintf(stderr, "%s:%" PRIu64 ":%u: %s\n", p->bad[i].path, p->bad[i].line, p->bad[i].col,
			p->bad[i].msg);
	if (!p->bad_total || p->stop.path)
		return;	/* pipeline_say_status() says why it stopped */
	if (p->bad_total <= shown)
		fprintf(stderr, "gputally: %" PRIu64 " input line(s) skipped (above)\n", p->bad_total);
	else
		fprintf(stderr, "gputally: %" PRIu64 " input line(s) skipped (the first %zu above; "
			"'gputally report' lists %d)\n", p->bad_total, shown, PIPELINE_BAD_KEPT);
}

int pipeline_say_status(const struct pipeline *p, int status, const char *note)
{
	switch (status) {
	case PIPE_OK:
		return EXIT_OK;
	case PIPE_STOPPED:
		if (p->stop_fatal)
			error("%s: the trace cannot be read to its end, so its figures would be wrong (see above)",
			      p->stop.path);
		else
			error("stopping at the first bad line (--strict)%s", note);
		return EXIT_INPUT;
	case PIPE_NO_UUID:
		error("with --prometheus, every GPU of the files needs a UUID (it is how a GPU on the server "
		      "and in a file are told apart): GPU %d of the files has none; report on them separately",
		      p->no_uuid_index);
		return EXIT_USAGE;
	case PIPE_TWICE:
		error("GPU %s is both in the files and on %s: its time would count twice; leave it out of one "
		      "(--match '{UUID!=\"%s\"}' for dcgm-exporter, 'uuid' for the others, or fewer files)",
		      p->twice, p->fleet.url, p->twice);
		return EXIT_USAGE;
	case PIPE_TAP:
		return p->tap_code;
	}
	print_gl_err(&p->err);
	return EXIT_FAILURE_RUN;
}
