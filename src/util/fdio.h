/* SPDX-License-Identifier: MIT */
/* File-descriptor helpers that finish what they start. */
#ifndef UTIL_FDIO_H
#define UTIL_FDIO_H

#include <stddef.h>

/*
 * write() all n bytes of p to fd, resuming after short writes and EINTR.
 * Returns 0, or -1 with errno set (EIO for a write that made no progress).
 * *done (if non-NULL) says how many bytes reached the file either way, so a
 * caller can take a partial write back.
 */
int fd_write_all(int fd, const void *p, size_t n, size_t *done);

#endif
