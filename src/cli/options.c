/* SPDX-License-Identifier: MIT */
#include "cli/options.h"

#include <stdio.h>
#include <string.h>

#include "cli/usage.h"
#include "util/xalloc.h"

void option_iter_init(struct option_iter *it, int argc, char **argv)
{
	memset(it, 0, sizeof(*it));
	it->argc = argc;
	it->argv = argv;
	it->i = 1;
}

static const struct option_def *find_long(const struct option_def *d, const char *s, size_t n)
{
	for (; d->name; d++)
		if (strlen(d->name) == n && !strncmp(d->name, s, n))
			return d;
	return NULL;
}

static const struct option_def *find_short(const struct option_def *d, char c)
{
	for (; d->name; d++)
		if (d->short_name && d->short_name == c)
			return d;
	return NULL;
}

int option_next(struct option_iter *it, const struct option_def *defs,
		const char ***operands, int *noperands)
{
	while (it->i < it->argc) {
		char *a = it->argv[it->i++];
		const struct option_def *d;
		const char *inline_arg = NULL;

		if (!strcmp(a, "--")) {
			while (it->i < it->argc) {
				*operands = xreallocarray(*operands, (size_t)*noperands + 1, sizeof(**operands));
				(*operands)[(*noperands)++] = it->argv[it->i++];
			}
			return 0;
		}
		if (a[0] != '-' || !a[1]) {
			*operands = xreallocarray(*operands, (size_t)*noperands + 1, sizeof(**operands));
			(*operands)[(*noperands)++] = a;
			continue;
		}
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			d = find_long(defs, a + 2, n);
			if (eq)
				inline_arg = eq + 1;
		} else {
			d = a[2] ? NULL : find_short(defs, a[1]);
		}
		it->name = a;
		if (!d) {
			error("unknown option '%s' (see --help)", a);
			return -1;
		}
		if (d->arg) {
			if (inline_arg) {
				it->arg = inline_arg;
			} else if (it->i < it->argc) {
				it->arg = it->argv[it->i++];
			} else {
				error("option '--%s' needs a value (%s)", d->name, d->arg);
				return -1;
			}
		} else if (inline_arg) {
			error("option '--%s' takes no value", d->name);
			return -1;
		} else {
			it->arg = NULL;
		}
		return d->id;
	}
	return 0;
}

void options_help(const char *cmd, const char *synopsis, const char *about,
		  const struct option_def *defs)
{
	printf("usage: gputally %s %s\n\n%s\n\noptions:\n", cmd, synopsis, about);
	for (const struct option_def *d = defs; d->name; d++) {
		char left[64];
		if (d->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", d->short_name, d->name,
				 d->arg ? " " : "", d->arg ? d->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", d->name, d->arg ? " " : "",
				 d->arg ? d->arg : "");
		printf("  %-28s %s\n", left, d->help);
	}
}
