/* SPDX-License-Identifier: MIT */
#include "formats/spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/fdio.h"
#include "util/xalloc.h"

#define SPOOL_HEAD (64 * 1024)
#define SPOOL_BUF (1024 * 1024)
#define SPOOL_MAX_DEFAULT (16ull << 30)

uint64_t spool_limit(void)
{
	const char *e = getenv("GPUTALLY_SPOOL_MAX");
	char *end;
	unsigned long long v;

	if (!e || !*e)
		return SPOOL_MAX_DEFAULT;
	errno = 0;
	v = strtoull(e, &end, 10);
	if (errno || *end || v == 0)
		return SPOOL_MAX_DEFAULT;
	return v;
}

static ssize_t read_some(int fd, char *buf, size_t cap)
{
	size_t got = 0;

	while (got < cap) {
		ssize_t n = read(fd, buf + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* An unlinked file in $TMPDIR (else /tmp): gone when the last fd closes. */
static int spool_file(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	snprintf(path, sizeof(path), "%s/gputally-spool-XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

static bool compressed(const char *p, size_t n)
{
	return (n >= 2 && (unsigned char)p[0] == 0x1f && (unsigned char)p[1] == 0x8b) ||
	       (n >= 4 && !memcmp(p, "\x28\xb5\x2f\xfd", 4)) || (n >= 6 && !memcmp(p, "\xfd" "7zXZ\0", 6));
}

/* Would any pass read these first bytes?  (open_source() decides for real.) */
static bool worth_copying(const char *head, size_t n, const char *path, const struct ingest_opts *o)
{
	const char *name = strrchr(path, '/');

	if (compressed(head, n) || o->format)
		return true;
	if (n >= 3 && !memcmp(head, "\xEF\xBB\xBF", 3)) {
		head += 3;
		n -= 3;
	}
	if (o->columns && format_by_columns(head, n, o->columns))
		return true;
	return format_sniff(head, n, name ? name + 1 : path, NULL) != NULL;
}

void spool_input(struct input_stat *in, const struct ingest_opts *o)
{
	const uint64_t limit = spool_limit();
	char *buf = NULL;
	uint64_t total = 0, line_end = 0;
	ssize_t n;
	int fd, out = -1;

	fd = strcmp(in->path, "-") ? open(in->path, O_RDONLY | O_CLOEXEC) : dup(0);
	if (fd < 0) {
		snprintf(in->skip_reason, sizeof(in->skip_reason), "cannot open '%.200s': %s", in->path,
			 strerror(errno));
		return;
	}
	buf = xmalloc(SPOOL_BUF);
	for (bool first = true;; first = false) {
		size_t want = first ? SPOOL_HEAD : SPOOL_BUF;
		const char *nl;
		if (want > limit - total)
			want = (size_t)(limit - total);
		n = want ? read_some(fd, buf, want) : 0;
		if (n < 0) {
			snprintf(in->skip_reason, sizeof(in->skip_reason), "cannot read '%.200s': %s",
				 in->path, strerror(errno));
			goto fail;
		}
		if (first && n == 0) {
			snprintf(in->skip_reason, sizeof(in->skip_reason), "empty file");
			goto fail;
		}
		if (first && !worth_copying(buf, (size_t)n, in->path, o)) {
			/* /dev/zero, /dev/urandom, a stream of text no format takes */
			snprintf(in->skip_reason, sizeof(in->skip_reason), "not a recognised format");
			goto fail;
		}
		if (first && (out = spool_file()) < 0) {
			snprintf(in->skip_reason, sizeof(in->skip_reason),
				 "cannot keep a copy of the stream to read it: %s (set TMPDIR)", strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		if (fd_write_all(out, buf, (size_t)n, NULL)) {
			snprintf(in->skip_reason, sizeof(in->skip_reason),
				 "cannot keep a copy of the stream to read it: %s (set TMPDIR)", strerror(errno));
			goto fail;
		}
		if ((nl = memrchr(buf, '\n', (size_t)n)))
			line_end = total + (uint64_t)(nl - buf) + 1;
		total += (uint64_t)n;
		if (total >= limit) {
			/* one byte more says whether the stream goes on */
			char more;
			if (read_some(fd, &more, 1) == 1) {
				in->spool_cut = true;
				if (line_end && ftruncate(out, (off_t)line_end) == 0)
					total = line_end;
			}
			break;
		}
	}
	close(fd);
	free(buf);
	in->spool_fd = out;
	in->read_path = xmalloc(32);
	snprintf(in->read_path, 32, "/proc/self/fd/%d", out);
	return;
fail:
	if (out >= 0)
		close(out);
	close(fd);
	free(buf);
}

void spool_release(struct input_stat *in)
{
	if (!in->read_path)
		return;
	close(in->spool_fd);
	free(in->read_path);
	in->read_path = NULL;
}
