/* SPDX-License-Identifier: MIT */
/* nvidia-smi pmon process monitor logs: one process record per row. */
#include "formats/format.h"

/*
 * The header and row engine lives in fmt_smi_dmon.c; these declarations
 * repeat its own.  The state it keeps is at most SMI_MON_STATE_SIZE bytes.
 */
#define SMI_MON_STATE_SIZE 2560
int smi_mon_sniff(const char *head, size_t n, bool want_proc);
void smi_mon_init_pmon(void *state, const struct ingest_opts *o);
bool smi_mon_is_context(const char *line, size_t n);
void smi_mon_line(struct parse_ctx *ctx, const char *line, size_t n);

static int pmon_sniff(const char *head, size_t n, const char *name)
{
	(void)name;
	return smi_mon_sniff(head, n, true);
}

const struct format format_smi_pmon = {
	.id = "smi-pmon",
	.summary = "nvidia-smi pmon process monitor log (any -s letters, -o D/T/DT)",
	.detects = "a first '# gpu', '#Date' or '#Time' header with pid and command columns",
	.state_size = SMI_MON_STATE_SIZE,
	.sniff = pmon_sniff,
	.init = smi_mon_init_pmon,
	.is_context = smi_mon_is_context,
	.context_first = "#",
	.line = smi_mon_line,
};
