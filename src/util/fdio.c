/* SPDX-License-Identifier: MIT */
#include "util/fdio.h"

#include <errno.h>
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
