/* SPDX-License-Identifier: MIT */
#include "cli/usage.h"
#include "util/termsafe.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/version.h"

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "gputally: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void die(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	exit(code);
}

void print_gl_err(const struct gl_err *e)
{
	if (e->src && e->line)
		fprintf(stderr, "%s:%llu:%u: %s\n", e->src, (unsigned long long)e->line, e->col, e->msg);
	else if (e->src)
		fprintf(stderr, "%s: %s\n", e->src, e->msg);
	else
		fprintf(stderr, "gputally: error: %s\n", e->msg);
}

void messages_init(void)
{
	term_safe_stderr();
}

int print_version(void)
{
	printf("gputally %s\n", gputally_version());
	return EXIT_OK;
}
