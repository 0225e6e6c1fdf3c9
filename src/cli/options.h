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

/*
 * One declaration per option.  A command lists its options once, as
 *
 *	#define REPORT_OPTIONS(X, G)                                      \
 *		X(JSON, "json", 0, NULL, "machine-readable output")       \
 *		G(INGEST_OPTIONS)                                          \
 *		X(HELP, "help", 'h', NULL, "show this help")
 *
 * X(ID, name, short, ARG, help) is one option, G(LIST) a shared group
 * (INGEST_OPTIONS, cli/ingest_opts.h) whose ids its own header enumerates.
 * Then
 *
 *	enum { OPTION_IDS(REPORT_OPTIONS) };	(OPT_JSON = 1, OPT_HELP, ...)
 *	const struct option_def report_options[] = { OPTION_ROWS(REPORT_OPTIONS) OPTIONS_END };
 *
 * make the ids the command's switch uses and the table that drives the
 * parser, --help and `gputally help-options` (which tests/check-docs.sh
 * holds the man page to), from that one list.
 */
#define OPTION_ID(id, name, short_name, arg, help) OPT_##id,
#define OPTION_ROW(id, name, short_name, arg, help) { name, short_name, arg, help, OPT_##id },
#define OPTION_NO_GROUP(list)
#define OPTION_GROUP_ROWS(list) list(OPTION_ROW)
#define OPTION_IDS(list) OPT__NONE, list(OPTION_ID, OPTION_NO_GROUP)
#define OPTION_ROWS(list) list(OPTION_ROW, OPTION_GROUP_ROWS)

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
