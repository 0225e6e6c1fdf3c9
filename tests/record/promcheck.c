/* SPDX-License-Identifier: MIT */
/*
 * A strict checker of Prometheus text exposition (0.0.4) as gputally record
 * writes it, for the tests: every sample's family has one HELP and one TYPE
 * before it, a family's samples are together, no series twice, label values
 * and HELP text escaped, values are numbers (no N/A), no timestamps, a final
 * newline.
 *
 *   promcheck [-r FAMILY]... FILE              check once; exit 1 if invalid
 *   promcheck -n N -t SECONDS [-r FAMILY]... FILE
 *       read and check FILE N times or for SECONDS, whichever ends first
 *       (the torture test: FILE is rewritten meanwhile); prints the counts
 *       and exits 1 if any read was invalid
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_FAMILIES 256
#define MAX_SERIES 4096
#define MAX_REQUIRED 16

struct family {
	char name[128];
	bool help, type, closed;
};

static struct family fam[MAX_FAMILIES];
static int nfam;
static char *series[MAX_SERIES];	/* "name{labels}" of each sample, pointing into the buffer */
static size_t series_len[MAX_SERIES];
static int nseries;
static const char *required[MAX_REQUIRED];
static int nrequired;
static char why[256];
static long long ticks_seen;

static bool bad(int line, const char *msg)
{
	snprintf(why, sizeof(why), "line %d: %s", line, msg);
	return false;
}

static bool name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

static bool name_char(char c)
{
	return name_start(c) || (c >= '0' && c <= '9');
}

/* A metric name at p; returns its length, 0 if none. */
static size_t name_len(const char *p, const char *end)
{
	size_t n = 0;

	if (p >= end || !name_start(*p))
		return 0;
	while (p + n < end && name_char(p[n]))
		n++;
	return n;
}

static struct family *find(const char *p, size_t n, bool add)
{
	for (int i = 0; i < nfam; i++)
		if (strlen(fam[i].name) == n && !memcmp(fam[i].name, p, n))
			return &fam[i];
	if (!add || nfam == MAX_FAMILIES || n >= sizeof(fam[0].name))
		return NULL;
	memset(&fam[nfam], 0, sizeof(fam[0]));
	memcpy(fam[nfam].name, p, n);
	return &fam[nfam++];
}

/* A float as the format allows it (Go ParseFloat subset we accept). */
static bool number(const char *p, size_t n)
{
	size_t i = 0, digits = 0;

	if (n == 3 && !memcmp(p, "NaN", 3))
		return true;
	if (n == 4 && (!memcmp(p, "+Inf", 4) || !memcmp(p, "-Inf", 4)))
		return true;
	if (i < n && (p[i] == '-' || p[i] == '+'))
		i++;
	while (i < n && p[i] >= '0' && p[i] <= '9')
		i++, digits++;
	if (i < n && p[i] == '.') {
		i++;
		while (i < n && p[i] >= '0' && p[i] <= '9')
			i++, digits++;
	}
	if (!digits)
		return false;
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		size_t ed = 0;
		i++;
		if (i < n && (p[i] == '-' || p[i] == '+'))
			i++;
		while (i < n && p[i] >= '0' && p[i] <= '9')
			i++, ed++;
		if (!ed)
			return false;
	}
	return i == n;
}

static bool comment(const char *p, const char *end, int ln, struct family **cur)
{
	bool is_help = end - p > 7 && !memcmp(p, "# HELP ", 7);
	bool is_type = end - p > 7 && !memcmp(p, "# TYPE ", 7);
	struct family *f;
	size_t n;

	if (!is_help && !is_type)
		return bad(ln, "a comment that is neither HELP nor TYPE");
	p += 7;
	n = name_len(p, end);
	if (!n)
		return bad(ln, "bad metric name in HELP/TYPE");
	f = find(p, n, true);
	if (!f)
		return bad(ln, "too many families");
	if (f->closed || (*cur && *cur != f && (f->help || f->type)))
		return bad(ln, "HELP/TYPE of a family after its samples or apart from its other line");
	p += n;
	if (p == end || *p != ' ')
		return bad(ln, "HELP/TYPE without text");
	p++;
	if (is_help) {
		if (f->help)
			return bad(ln, "second HELP for a family");
		f->help = true;
		for (; p < end; p++)
			if (*p == '\\' && (p + 1 == end || (p[1] != '\\' && p[1] != 'n')))
				return bad(ln, "bad escape in HELP");
			else if (*p == '\\')
				p++;
	} else {
		static const char *const types[] = { "counter", "gauge", "histogram", "summary", "untyped" };
		bool ok = false;
		if (f->type)
			return bad(ln, "second TYPE for a family");
		for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
			if ((size_t)(end - p) == strlen(types[i]) && !memcmp(p, types[i], strlen(types[i])))
				ok = true;
		if (!ok)
			return bad(ln, "unknown TYPE");
		f->type = true;
	}
	if (*cur && *cur != f)
		(*cur)->closed = true;
	*cur = f;
	return true;
}

static bool sample(char *p, const char *end, int ln, struct family **cur)
{
	char *start = p;
	size_t n = name_len(p, end);
	struct family *f;

	if (!n)
		return bad(ln, "bad metric name");
	f = find(p, n, false);
	if (!f || !f->help || !f->type)
		return bad(ln, "a sample without HELP and TYPE before it");
	if (f->closed || (*cur && *cur != f))
		return bad(ln, "samples of a family not together");
	*cur = f;
	p += n;
	if (p < end && *p == '{') {
		p++;
		for (;;) {
			size_t ln2 = name_len(p, end);
			if (!ln2)
				return bad(ln, "bad label name");
			p += ln2;
			if (end - p < 2 || p[0] != '=' || p[1] != '"')
				return bad(ln, "label without =\"");
			p += 2;
			while (p < end && *p != '"') {
				if (*p == '\\') {
					if (p + 1 >= end || (p[1] != '\\' && p[1] != '"' && p[1] != 'n'))
						return bad(ln, "bad escape in a label value");
					p++;
				}
				p++;
			}
			if (p >= end)
				return bad(ln, "unterminated label value");
			p++;
			if (p < end && *p == ',') {
				p++;
				continue;
			}
			if (p < end && *p == '}')
				break;
			return bad(ln, "bad label list");
		}
		p++;
	}
	if (nseries == MAX_SERIES)
		return bad(ln, "too many series");
	for (int i = 0; i < nseries; i++)
		if (series_len[i] == (size_t)(p - start) && !memcmp(series[i], start, series_len[i]))
			return bad(ln, "the same series twice");
	series[nseries] = start;
	series_len[nseries++] = (size_t)(p - start);
	if (p >= end || *p != ' ')
		return bad(ln, "no value");
	p++;
	if (memchr(p, ' ', (size_t)(end - p)))
		return bad(ln, "a timestamp or trailing text after the value");
	if (!number(p, (size_t)(end - p)))
		return bad(ln, "the value is not a number");
	if (n == strlen("gputally_recorder_ticks_total") &&
	    !memcmp(start, "gputally_recorder_ticks_total", n))
		ticks_seen = strtoll(p, NULL, 10);
	return true;
}

static bool check(char *buf, size_t len)
{
	struct family *cur = NULL;
	char *p = buf, *end = buf + len;
	int ln = 0, samples = 0;

	nfam = nseries = 0;
	ticks_seen = -1;
	if (!len)
		return bad(0, "empty");
	if (buf[len - 1] != '\n')
		return bad(0, "no final newline");
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		ln++;
		if (nl == p)
			return bad(ln, "an empty line");
		if (memchr(p, 0, (size_t)(nl - p)) || memchr(p, '\r', (size_t)(nl - p)))
			return bad(ln, "NUL or CR");
		if (*p == '#') {
			if (!comment(p, nl, ln, &cur))
				return false;
		} else {
			if (!sample(p, nl, ln, &cur))
				return false;
			samples++;
		}
		p = nl + 1;
	}
	if (!samples)
		return bad(ln, "no samples");
	for (int i = 0; i < nrequired; i++) {
		struct family *f = find(required[i], strlen(required[i]), false);
		if (!f) {
			snprintf(why, sizeof(why), "family %s missing", required[i]);
			return false;
		}
	}
	return true;
}

static ssize_t slurp(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;

	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
		if (n == cap)
			break;
	}
	close(fd);
	return (ssize_t)n;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static char buf[4 << 20];
	long long reads = 0, invalid = 0, limit = 1, versions = 0, last_ticks = -2;
	double secs = 0, t0;
	int opt;
	bool loop = false;

	while ((opt = getopt(argc, argv, "n:t:r:")) != -1) {
		switch (opt) {
		case 'n':
			limit = atoll(optarg);
			loop = true;
			break;
		case 't':
			secs = atof(optarg);
			loop = true;
			break;
		case 'r':
			if (nrequired < MAX_REQUIRED)
				required[nrequired++] = optarg;
			break;
		default:
			fprintf(stderr, "usage: promcheck [-n N] [-t SECONDS] [-r FAMILY]... FILE\n");
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: promcheck [-n N] [-t SECONDS] [-r FAMILY]... FILE\n");
		return 2;
	}
	t0 = now_s();
	while (reads < limit && (!secs || now_s() - t0 < secs)) {
		ssize_t n = slurp(argv[optind], buf, sizeof(buf));
		reads++;
		if (n < 0) {
			snprintf(why, sizeof(why), "cannot read: %s", strerror(errno));
		} else if ((size_t)n == sizeof(buf)) {
			snprintf(why, sizeof(why), "too big");
		} else if (check(buf, (size_t)n)) {
			if (ticks_seen != last_ticks)
				versions++;
			last_ticks = ticks_seen;
			continue;
		}
		invalid++;
		if (!loop || invalid <= 5)
			fprintf(stderr, "promcheck: %s: %s\n", argv[optind], why);
	}
	if (loop)
		printf("promcheck: %lld reads in %.1f s, %lld invalid, %lld versions seen\n", reads,
		       now_s() - t0, invalid, versions);
	return invalid ? 1 : 0;
}
