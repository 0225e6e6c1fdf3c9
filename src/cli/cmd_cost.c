/* SPDX-License-Identifier: MIT */
#include "cli/commands.h"
#include "cli/usage.h"
const struct option_def cost_options[] = { OPTIONS_END };
int cmd_cost(int argc, char **argv) { (void)argc; (void)argv; return error("cost: not built yet"), 1; }
