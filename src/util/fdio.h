/* SPDX-License-Identifier: MIT */
/* File-descriptor helpers that finish what they start. */
#ifndef UTIL_FDIO_H
#define UTIL_FDIO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * write() all n bytes of p to fd, resuming after short writes and EINTR.
 * Returns 0, or -1 with errno set (EIO for a write that made no progress).
 * *done (if non-NULL) says how many bytes reached the file either way, so a
 * caller can take a partial write back.
 */
int fd_write_all(int fd, const void *p, size_t n, size_t *done);

/*
 * Open path ("-": standard input) for reading through a bound: at most
 * max_total bytes in all and max_line bytes in one line (0: no line bound).
 * Past either the stream fails (ferror, errno EFBIG) and fd_bound_error()
 * says which, so that /dev/zero or an endless line ends with a message,
 * never a spin or a run out of memory.  NULL (errno set) if it cannot be
 * opened.  Closing the stream closes what it opened.
 */
FILE *fopen_bounded(const char *path, uint64_t max_total, size_t max_line);
/* "longer than N bytes" or "a line longer than N bytes": the last bound a
 * stream of fopen_bounded() hit (static text). */
const char *fd_bound_error(void);

#endif
