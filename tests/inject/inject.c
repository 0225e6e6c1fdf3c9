/* SPDX-License-Identifier: MIT */
/*
 * An LD_PRELOAD library that makes write(), fsync(), fdatasync() and
 * rename() fail the way a full or broken disk does, for the recorder's tests.
 * Only calls on a path matching $INJECT_PATH (an fnmatch pattern; for write
 * and fsync, the path behind the descriptor) are touched:
 *
 *   INJECT_PATH   fnmatch(3) pattern matched against the whole path (required)
 *   INJECT_ERRNO  ENOSPC (default) or EIO
 *   INJECT_AFTER  let this many matching calls through first (default 0)
 *   INJECT_WHILE  fail only while this file exists (default: always), so a
 *                 test can end the outage and watch the program recover
 *   INJECT_OPS    comma list of write,fsync,fdatasync,rename,pwrite (default all)
 *   INJECT_DELAY_MS  instead of failing, a matching write() sleeps this long
 *                 and then succeeds: a slow disk
 *
 * Like a filling disk, a failing write first writes half of what it was
 * given and returns the short count; the next write then fails.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static atomic_long matched;
static atomic_int short_done;

static bool op_enabled(const char *op)
{
	const char *ops = getenv("INJECT_OPS");
	size_t n = strlen(op);

	if (!ops || !*ops)
		return true;
	for (const char *p = ops; (p = strstr(p, op)); p += n)
		if ((p == ops || p[-1] == ',') && (p[n] == ',' || p[n] == 0))
			return true;
	return false;
}

static bool path_matches(const char *path)
{
	const char *pat = getenv("INJECT_PATH");

	return pat && path && !fnmatch(pat, path, 0);
}

static bool fd_matches(int fd)
{
	char link[64], path[4096];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return false;
	path[n] = 0;
	return path_matches(path);
}

/* true: this call fails (errno is set by the caller's branch) */
static bool inject_now(void)
{
	const char *w = getenv("INJECT_WHILE");
	const char *after = getenv("INJECT_AFTER");

	if (w && *w && access(w, F_OK))
		return false;
	return atomic_fetch_add(&matched, 1) >= (after ? atol(after) : 0);
}

static int inject_errno(void)
{
	const char *e = getenv("INJECT_ERRNO");

	return e && !strcmp(e, "EIO") ? EIO : ENOSPC;
}

EXPORT ssize_t write(int fd, const void *buf, size_t n);
EXPORT int fsync(int fd);
EXPORT int fdatasync(int fd);
EXPORT int rename(const char *from, const char *to);

ssize_t write(int fd, const void *buf, size_t n)
{
	static ssize_t (*real)(int, const void *, size_t);

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (fd > 2 && op_enabled("write") && fd_matches(fd) && inject_now()) {
		const char *delay = getenv("INJECT_DELAY_MS");
		if (delay && *delay) {
			usleep((useconds_t)atol(delay) * 1000);
			return real(fd, buf, n);
		}
		if (n > 1 && !atomic_exchange(&short_done, 1))
			return real(fd, buf, n / 2);	/* a short write, as the disk fills */
		atomic_store(&short_done, 0);
		errno = inject_errno();
		return -1;
	}
	return real(fd, buf, n);
}

int fsync(int fd)
{
	static int (*real)(int);

	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	if (op_enabled("fsync") && fd_matches(fd) && inject_now()) {
		errno = inject_errno();
		return -1;
	}
	return real(fd);
}

int fdatasync(int fd)
{
	static int (*real)(int);

	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	if (op_enabled("fdatasync") && fd_matches(fd) && inject_now()) {
		errno = inject_errno();
		return -1;
	}
	return real(fd);
}

int rename(const char *from, const char *to)
{
	static int (*real)(const char *, const char *);

	if (!real)
		real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
	if (op_enabled("rename") && (path_matches(from) || path_matches(to)) && inject_now()) {
		errno = inject_errno();
		return -1;
	}
	return real(from, to);
}

/* SQLite writes its database and WAL with pwrite() (op "pwrite"): a full
 * disk there fails the call, which SQLite turns into SQLITE_FULL. */
EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t off);
EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off);

static ssize_t pwrite_common(const char *sym, int fd, const void *buf, size_t n, off_t off)
{
	ssize_t (*real)(int, const void *, size_t, off_t) =
		(ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, sym);

	if (fd > 2 && op_enabled("pwrite") && fd_matches(fd) && inject_now()) {
		errno = inject_errno();
		return -1;
	}
	return real(fd, buf, n, off);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return pwrite_common("pwrite", fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	return pwrite_common("pwrite64", fd, buf, n, off);
}
