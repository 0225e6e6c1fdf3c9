/* SPDX-License-Identifier: MIT */
/* One cmd_<name>() per file in cli/, dispatched from main.c's table. */
#ifndef CLI_COMMANDS_H
#define CLI_COMMANDS_H

#include "cli/options.h"

int cmd_report(int argc, char **argv);
int cmd_cost(int argc, char **argv);
int cmd_formats(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_scale(int argc, char **argv);
int cmd_alert(int argc, char **argv);
int cmd_ingest(int argc, char **argv);
int cmd_trend(int argc, char **argv);

/* Each command's option table, for `gputally help-options` (docs check). */
extern const struct option_def report_options[];
extern const struct option_def cost_options[];
extern const struct option_def formats_options[];
extern const struct option_def dump_options[];
extern const struct option_def record_options[];
extern const struct option_def doctor_options[];
extern const struct option_def trace_options[];
extern const struct option_def scale_options[];
extern const struct option_def alert_options[];
extern const struct option_def ingest_options[];
extern const struct option_def trend_options[];

#endif
