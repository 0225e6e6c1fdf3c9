/* SPDX-License-Identifier: MIT */
/* The table of the report's writers (writers.h). */
#include "report/writers.h"

#include <string.h>

#include "report/report.h"

const struct report_writer report_writers[] = {
	{ "text", report_text, true, false },
	{ "json", report_json, false, true },
	{ "markdown", report_markdown, false, false },
	{ "html", report_html, false, false },
};
const size_t report_nwriters = sizeof(report_writers) / sizeof(report_writers[0]);

const struct report_writer *report_writer_find(const char *name)
{
	for (size_t i = 0; i < report_nwriters; i++)
		if (!strcmp(report_writers[i].name, name))
			return &report_writers[i];
	return NULL;
}
