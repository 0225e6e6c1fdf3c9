/* SPDX-License-Identifier: MIT */
/* Profile files and built-in presets for the cost model, parsed with libinih. */
#include "cost/profile.h"

#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/fdio.h"

static const struct {
	const char *name, *text;
} presets[] = {
#define PRESET(n, t) { n, t },
#include "presets.inc"
#undef PRESET
	{ NULL, NULL }
};

#define NPRESETS (sizeof(presets) / sizeof(presets[0]) - 1)

const char *cost_preset_name(size_t i)
{
	return i < NPRESETS ? presets[i].name : NULL;
}

const char *cost_preset_text(size_t i)
{
	return i < NPRESETS ? presets[i].text : NULL;
}

/*
 * inih reports only the line of the first error and its handler gets no line
 * number, so we feed it lines through our own reader and count them: the
 * handler then knows its line, and an over-long line is an error of ours
 * instead of being split into two lines.
 */
struct load_ctx {
	struct cost_params *p;
	/* input: a FILE or a string cursor */
	FILE *file;
	const char *str;
	int lineno;
	/* the first error of ours */
	int err_line;
	int err_code;
	char err_msg[192];
	int has_name;
};

static void note_error(struct load_ctx *c, const char *msg)
{
	if (c->err_line)
		return;
	c->err_line = c->lineno;
	c->err_code = GL_EPARSE;
	snprintf(c->err_msg, sizeof(c->err_msg), "%s", msg);
}

/* Copy one line (with its '\n') into buf; over-long lines are cut and noted. */
static char *read_line(char *buf, int num, void *stream)
{
	struct load_ctx *c = stream;
	size_t cap = (size_t)num - 1, n = 0;
	int ch, cut = 0;

	if (num < 2)
		return NULL;
	for (;;) {
		if (c->file) {
			ch = getc(c->file);
			if (ch == EOF)
				break;
		} else {
			if (!*c->str)
				break;
			ch = (unsigned char)*c->str++;
		}
		if (n < cap - 1 || (n < cap && ch == '\n'))
			buf[n++] = (char)ch;
		else
			cut = 1;
		if (ch == '\n')
			break;
	}
	if (!n && !cut)
		return NULL;
	buf[n] = '\0';
	c->lineno++;
	if (cut) {
		char msg[64];
		snprintf(msg, sizeof(msg), "line longer than %zu bytes", cap - 1);
		note_error(c, msg);
		/* Hand inih a comment so that it sees nothing else wrong here. */
		strcpy(buf, ";\n");
	}
	return buf;
}

static int on_pair(void *user, const char *section, const char *key, const char *value)
{
	struct load_ctx *c = user;
	struct gl_err e;

	if (*section && strcmp(section, "cost")) {
		snprintf(e.msg, sizeof(e.msg), "unknown section [%s] (profiles use [cost])", section);
		note_error(c, e.msg);
		return 0;
	}
	gl_err_clear(&e);
	if (cost_param_set(c->p, key, value, COST_PROFILE, &e)) {
		note_error(c, e.msg);
		return 0;
	}
	if (!strcmp(key, "name"))
		c->has_name = 1;
	return 1;
}

static int parse(struct load_ctx *c, const char *src, struct gl_err *err)
{
	int rc = ini_parse_stream(read_line, c, on_pair, c);
	int line;

	if (rc < 0)
		return gl_err_set(err, GL_ENOMEM, "%s: out of memory", src);
	if (c->err_line && (rc == 0 || c->err_line <= rc)) {
		line = c->err_line;
		gl_err_set(err, c->err_code, "%s", c->err_msg);
	} else if (rc > 0) {
		line = rc;
		gl_err_set(err, GL_EPARSE, "expected 'key = value', '[cost]' or a comment");
	} else {
		return 0;
	}
	if (err) {
		err->src = src;
		err->line = (uint64_t)line;
		err->col = 0;
	}
	return GL_EPARSE;
}

static void default_name(struct cost_params *p, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 4 && !strcmp(base + n - 4, ".ini"))
		n -= 4;
	if (n >= sizeof(p->name))
		n = sizeof(p->name) - 1;
	memcpy(p->name, base, n);
	p->name[n] = '\0';
}

int cost_profile_load_string(struct cost_params *p, const char *text, const char *src,
			     struct gl_err *err)
{
	struct load_ctx c = { .p = p, .str = text };
	return parse(&c, src, err);
}

static int load_file(struct cost_params *p, const char *path, struct gl_err *err)
{
	struct load_ctx c = { .p = p };
	int rc;

	c.file = fopen_bounded(path, 1 << 20, 4096);	/* /dev/zero ends */
	if (!c.file) {
		gl_err_errno(err, "cannot open profile '%s'", path);
		return GL_EIO;
	}
	rc = parse(&c, path, err);
	if (ferror(c.file)) {
		if (errno == EFBIG)
			gl_err_set(err, GL_EPARSE, "profile '%s': %s (a profile is a few lines)", path,
				   fd_bound_error());
		else
			gl_err_errno(err, "cannot read profile '%s'", path);
		rc = GL_EIO;
	}
	fclose(c.file);
	if (!rc && !c.has_name)
		default_name(p, path);
	return rc;
}

int cost_profile_load(struct cost_params *p, const char *file_or_preset, struct gl_err *err)
{
	size_t n = strlen(file_or_preset);
	int path_like = strchr(file_or_preset, '/') ||
			(n > 4 && !strcmp(file_or_preset + n - 4, ".ini"));

	if (!path_like) {
		for (size_t i = 0; i < NPRESETS; i++) {
			struct load_ctx c = { .p = p, .str = presets[i].text };
			int rc;

			if (strcmp(presets[i].name, file_or_preset))
				continue;
			rc = parse(&c, presets[i].name, err);
			if (!rc && !c.has_name)
				default_name(p, presets[i].name);
			return rc;
		}
		if (access(file_or_preset, F_OK) && errno == ENOENT)
			return gl_err_set(err, GL_EUSAGE,
					  "no profile file or preset named '%s' (see --list-profiles)",
					  file_or_preset);
	}
	return load_file(p, file_or_preset, err);
}
