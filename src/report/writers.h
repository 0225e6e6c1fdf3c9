/* SPDX-License-Identifier: MIT */
/*
 * The report's writers, one row each: a command looks its output up by
 * name and calls render() on a report that report_compute() filled.
 * Writers only render (scripts/check-layers.sh, "writers do not
 * compute"); a new output is one file and one row in writers.c
 * (docs/internals/adding-a-writer.md).
 */
#ifndef REPORT_WRITERS_H
#define REPORT_WRITERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct report;

struct report_writer {
	const char *name;	/* "text", "json", "markdown", "html" */
	void (*render)(FILE *out, const struct report *r);
	bool for_terminal;	/* people read it on a terminal: the CLI filters control characters */
	bool for_machines;	/* parsed by programs: the CLI adds no notes on stderr about it */
};

/* The writers, in the table's order (text first: the default). */
extern const struct report_writer report_writers[];
extern const size_t report_nwriters;

/* The writer called name, or NULL; the row lives as long as the program. */
const struct report_writer *report_writer_find(const char *name);

#endif
