/* SPDX-License-Identifier: MIT */
/* nvidia-smi pmon process monitor logs: one process record per row. */
#include "formats/format.h"
#include "formats/smi.h"

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
