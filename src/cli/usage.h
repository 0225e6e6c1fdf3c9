/* SPDX-License-Identifier: MIT */
/* Messages and exit codes: the only printing and exiting outside report/. */
#ifndef CLI_USAGE_H
#define CLI_USAGE_H

#include "util/err.h"

enum exit_code {
	EXIT_OK = 0,
	EXIT_FAILURE_RUN = 1,	/* runtime failure: I/O, nothing readable */
	EXIT_USAGE = 2,		/* bad command line */
	EXIT_INPUT = 3,		/* input errors under --strict */
};

/* Put stderr behind util/termsafe.h once, first thing: messages quote file
 * names and log text, and none may reach a terminal with its control
 * characters raw. */
void messages_init(void);
/* "gputally: error: ..." on stderr; returns -1. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print and exit(code). */
_Noreturn void die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print an error record as "src:line:col: message". */
void print_gl_err(const struct gl_err *e);
/* `gputally --version`: "gputally <version>" on stdout; returns EXIT_OK. */
int print_version(void);

#endif
