/* SPDX-License-Identifier: MIT */
/* Error codes and the error record every layer below cli/ fills in. */
#ifndef UTIL_ERR_H
#define UTIL_ERR_H

#include <stdint.h>

enum gl_code {
	GL_OK = 0,
	GL_EPARSE = -1,		/* malformed input */
	GL_EIO = -2,		/* a system call failed; msg carries strerror */
	GL_ERANGE = -3,		/* a number does not fit */
	GL_EUSAGE = -4,		/* bad argument or option value */
	GL_ENOFMT = -5,		/* no parser recognises the input */
	GL_ENOMEM = -6,
	GL_EUNSUPPORTED = -7,	/* valid input that this version cannot use */
};

/*
 * Where and why something failed.  src is borrowed (it must outlive the
 * record); line and col are 1-based, 0 when they do not apply.  msg is lower
 * case without a final full stop: "expected 24 fields, got 23".
 */
struct gl_err {
	int code;
	char msg[192];
	const char *src;
	uint64_t line;
	uint32_t col;
};

/* Fills err (if non-NULL) and returns code, so callers can
 * `return gl_err_set(err, GL_EPARSE, "bad number '%s'", s);` */
int gl_err_set(struct gl_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like gl_err_set(), appending ": strerror(errno)". */
int gl_err_errno(struct gl_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void gl_err_clear(struct gl_err *err);

/* A short name for a code, e.g. "parse error". */
const char *gl_code_name(int code);

#endif
