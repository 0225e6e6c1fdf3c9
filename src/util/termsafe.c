/* SPDX-License-Identifier: MIT */
#include "util/termsafe.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>


struct tsafe {
	FILE *under;
	bool lead;		/* the last byte was 0xC2, the lead of U+0080..U+00BF */
	bool owned;		/* allocated by term_safe(), freed on close; the
				 * standard streams' state is static: they are never
				 * closed, and must not read as a leak at exit */
};

static struct tsafe std_out, std_err;

static bool is_control(unsigned char c)
{
	return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f;
}

/* Escape n bytes of p into out (room for 4 per byte plus one pending lead);
 * returns the bytes written.  *lead carries a 0xC2 across calls. */
static size_t escape(const unsigned char *p, size_t n, bool *lead, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = p[i];
		if (*lead) {
			*lead = false;
			if (c >= 0x80 && c <= 0x9f) {	/* a C1 control: CSI, OSC, ... */
				memcpy(out + o, "\\xc2\\x", 6);
				out[o + 6] = hex[c >> 4];
				out[o + 7] = hex[c & 15];
				o += 8;
				continue;
			}
			out[o++] = (char)0xc2;
		}
		if (c == 0xc2) {
			*lead = true;
		} else if (is_control(c)) {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		} else {
			out[o++] = (char)c;
		}
	}
	return o;
}

static ssize_t ts_write(void *cookie, const char *buf, size_t n)
{
	struct tsafe *t = cookie;
	char out[4 * 1024 + 16];

	for (size_t done = 0; done < n;) {
		size_t k = n - done < 1024 ? n - done : 1024;
		size_t o = escape((const unsigned char *)buf + done, k, &t->lead, out);
		if (fwrite(out, 1, o, t->under) != o)
			return done ? (ssize_t)done : -1;
		done += k;
	}
	/* through at once: the exit-time flush need not order the two streams */
	return fflush(t->under) ? -1 : (ssize_t)n;
}

static int ts_close(void *cookie)
{
	struct tsafe *t = cookie;
	int rc = 0;

	if (t->lead && fputc(0xc2, t->under) == EOF)
		rc = -1;
	if (t->under == stdout || t->under == stderr)
		rc |= fflush(t->under);
	else if (fclose(t->under))
		rc = -1;
	if (t->owned)
		free(t);
	return rc;
}

/* A stream over t (zeroed but for owned), or under itself when none can be made. */
static FILE *wrap(FILE *under, struct tsafe *t)
{
	cookie_io_functions_t io = { .write = ts_write, .close = ts_close };
	FILE *f;

	if (fflush(under))
		return under;
	t->under = under;
	f = fopencookie(t, "w", io);
	return f ? f : under;
}

FILE *term_safe(FILE *under)
{
	struct tsafe *t = calloc(1, sizeof(*t));
	FILE *f;

	if (!t)
		return under;
	t->owned = true;
	f = wrap(under, t);
	if (f == under)
		free(t);
	return f;
}

void term_safe_stdout(void)
{
	static bool done;

	if (!done) {
		done = true;
		stdout = wrap(stdout, &std_out);
	}
}

void term_safe_stderr(void)
{
	static bool done;

	if (!done) {
		FILE *f;
		done = true;
		f = wrap(stderr, &std_err);
		if (f != stderr) {
			setvbuf(f, NULL, _IOLBF, 0);	/* messages go out line by line */
			stderr = f;
		}
	}
}

const char *term_safe_str(char *buf, size_t cap, const char *s)
{
	size_t o = 0;
	bool lead = false;
	char tmp[16];

	for (; *s && cap; s++) {
		size_t k = escape((const unsigned char *)s, 1, &lead, tmp);
		if (o + k >= cap)
			break;
		memcpy(buf + o, tmp, k);
		o += k;
	}
	if (lead && o + 1 < cap)
		buf[o++] = (char)0xc2;
	if (cap)
		buf[o < cap ? o : cap - 1] = '\0';
	return buf;
}
