/* SPDX-License-Identifier: MIT */
#include "util/fdio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

int fd_write_all(int fd, const void *p, size_t n, size_t *done)
{
	const char *c = p;
	size_t got = 0;
	int rc = 0;

	while (got < n) {
		ssize_t r = write(fd, c + got, n - got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			rc = -1;
			break;
		}
		if (r == 0) {
			errno = EIO;
			rc = -1;
			break;
		}
		got += (size_t)r;
	}
	if (done)
		*done = got;
	return rc;
}

struct bounded {
	int fd;
	uint64_t left;		/* bytes still allowed in all */
	uint64_t max_total;
	size_t max_line, in_line;	/* bytes since the last newline */
};

static char bound_msg[96];

const char *fd_bound_error(void)
{
	return bound_msg;
}

static ssize_t bounded_read(void *cookie, char *buf, size_t n)
{
	struct bounded *b = cookie;
	ssize_t got;

	if (b->left == 0) {
		char probe;
		ssize_t r = read(b->fd, &probe, 1);
		if (r <= 0)
			return r;	/* the end came with the bound: fine */
		snprintf(bound_msg, sizeof(bound_msg), "longer than %llu bytes", (unsigned long long)b->max_total);
		errno = EFBIG;
		return -1;
	}
	if (n > b->left)
		n = (size_t)b->left;
	do
		got = read(b->fd, buf, n);
	while (got < 0 && errno == EINTR);
	if (got <= 0)
		return got;
	b->left -= (uint64_t)got;
	if (b->max_line) {
		const char *nl = memrchr(buf, '\n', (size_t)got);
		size_t tail = nl ? (size_t)(buf + got - nl - 1) : (size_t)got;
		b->in_line = nl ? tail : b->in_line + tail;
		if (b->in_line > b->max_line) {
			snprintf(bound_msg, sizeof(bound_msg), "a line longer than %zu bytes", b->max_line);
			errno = EFBIG;
			return -1;
		}
	}
	return got;
}

static int bounded_close(void *cookie)
{
	struct bounded *b = cookie;
	int rc = close(b->fd);

	free(b);
	return rc;
}

FILE *fopen_bounded(const char *path, uint64_t max_total, size_t max_line)
{
	cookie_io_functions_t io = { .read = bounded_read, .close = bounded_close };
	struct bounded *b;
	FILE *f;
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : dup(0);

	if (fd < 0)
		return NULL;
	b = calloc(1, sizeof(*b));
	if (!b) {
		close(fd);
		return NULL;
	}
	b->fd = fd;
	b->left = b->max_total = max_total;
	b->max_line = max_line;
	f = fopencookie(b, "r", io);
	if (!f) {
		close(fd);
		free(b);
	}
	return f;
}
