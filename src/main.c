/* SPDX-License-Identifier: MIT */
/* argv -> the subcommand table -> cmd_*().  Nothing else lives here. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/usage.h"

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const struct option_def *options;
	const char *summary;
} commands[] = {
	{ "report", cmd_report, report_options, "read GPU logs, explain where GPU time went and what it cost" },
	{ "trace", cmd_trace, trace_options, "kernel-level figures from PyTorch profiler traces" },
	{ "scale", cmd_scale, scale_options, "speedup, Amdahl and USL fits, and the cost of each GPU count" },
	{ "cost", cmd_cost, cost_options, "the owning-versus-renting cost model alone, no logs" },
	{ "dump", cmd_dump, dump_options, "print every parsed record as JSON lines (fixtures, debugging)" },
	{ "formats", cmd_formats, formats_options, "list the input formats and how each is recognised" },
	{ "record", cmd_record, record_options, "sample every GPU through NVML into the gputally CSV" },
	{ "doctor", cmd_doctor, doctor_options, "check the NVIDIA driver stack and say what to fix" },
	{ "alert", cmd_alert, alert_options, "check logs against alert rules; exit 1 when one fired" },
	{ "ingest", cmd_ingest, ingest_options, "add the per-minute rollups of GPU logs to a history store (SQLite)" },
	{ "trend", cmd_trend, trend_options, "utilization, energy and money per hour, day, week or month from a store" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(out, "usage: gputally <command> [options] [args]\n\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'gputally <command> --help' shows a command's options; 'man gputally' has the rest;\n"
		     "'gputally --version' prints the version.\n"
		     "exit codes: 0 ok, 1 runtime failure, 2 usage, 3 input errors under --strict\n");
}

/* Every option of every command, one per line ("cmd --name ARG", ARG when it
 * takes one): the man-page check reads this. */
static int help_options(void)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		for (const struct option_def *d = commands[i].options; d->name; d++)
			printf("%s --%s%s%s\n", commands[i].name, d->name, d->arg ? " " : "", d->arg ? d->arg : "");
	return 0;
}

int main(int argc, char **argv)
{
	messages_init();
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version"))
		return print_version();
	if (!strcmp(argv[1], "help-options"))
		return help_options();
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	error("unknown command '%s'", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
