/* SPDX-License-Identifier: MIT */
#include "util/err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int gl_err_set(struct gl_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

int gl_err_errno(struct gl_err *err, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;
	size_t n;

	if (!err)
		return GL_EIO;
	err->code = GL_EIO;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	n = strlen(err->msg);
	snprintf(err->msg + n, sizeof(err->msg) - n, ": %s", strerror(saved));
	return GL_EIO;
}

void gl_err_clear(struct gl_err *err)
{
	if (err)
		memset(err, 0, sizeof(*err));
}

const char *gl_code_name(int code)
{
	switch (code) {
	case GL_OK: return "ok";
	case GL_EPARSE: return "parse error";
	case GL_EIO: return "i/o error";
	case GL_ERANGE: return "out of range";
	case GL_EUSAGE: return "usage error";
	case GL_ENOFMT: return "unrecognised format";
	case GL_ENOMEM: return "out of memory";
	case GL_EUNSUPPORTED: return "unsupported";
	}
	return "error";
}
