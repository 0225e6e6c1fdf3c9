/* SPDX-License-Identifier: MIT */
/*
 * Option tables: each subcommand lists its options once; parsing, --help and
 * the man-page check (`gputally help-options`) all read the same table.
 */
#ifndef CLI_OPTIONS_H
#define CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

struct option_def {
	const char *name;	/* long name without "--" */
	char short_name;	/* 0 if none */
	const char *arg;	/* argument placeholder ("ZONE"), NULL for a flag */
	const char *help;	/* one line */
	int id;
};

#define OPTIONS_END { NULL, 0, NULL, NULL, 0 }

struct option_iter {
	int argc;
	char **argv;
	int i;
	const char *arg;	/* the current option's argument */
	const char *name;	/* the current option as written */
};

void option_iter_init(struct option_iter *it, int argc, char **argv);
/*
 * Next option: its id, or 0 at the first operand ("--" ends options), or -1
 * on an unknown option or missing argument (after printing an error).  Each
 * operand is collected into `operands` in order.
 */
int option_next(struct option_iter *it, const struct option_def *defs,
		const char ***operands, int *noperands);

/* Print "usage: ..." followed by the option table. */
void options_help(const char *cmd, const char *synopsis, const char *about,
		  const struct option_def *defs);

#endif
