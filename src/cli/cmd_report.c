/* SPDX-License-Identifier: MIT */
#include "cli/commands.h"
#include "cli/usage.h"
const struct option_def report_options[] = { OPTIONS_END };
int cmd_report(int argc, char **argv) { (void)argc; (void)argv; return error("report: not built yet"), 1; }
