/* SPDX-License-Identifier: MIT */
/*
 * The table of formats.  The build writes formats_list.h with one
 * FORMAT(id) line per src/formats/fmt_<id>.c, in file-name order; the linker
 * then insists that each file defines `format_<id>`.  Sniff ties go to the
 * earlier entry.
 */
#include "formats/format.h"

#include <string.h>

#define FORMAT(id) extern const struct format format_##id;
#include "formats_list.h"
#undef FORMAT

static const struct format *const formats[] = {
#define FORMAT(id) &format_##id,
#include "formats_list.h"
#undef FORMAT
	NULL	/* keeps the array non-empty while the list is */
};

size_t format_count(void)
{
	return sizeof(formats) / sizeof(formats[0]) - 1;
}

const struct format *format_at(size_t i)
{
	return i < format_count() ? formats[i] : NULL;
}

const struct format *format_sniff(const char *head, size_t n, const char *name, int *score)
{
	const struct format *best = NULL;
	int best_score = 0;

	for (size_t i = 0; i < format_count(); i++) {
		const struct format *f = format_at(i);
		int s = f->sniff ? f->sniff(head, n, name) : 0;
		if (s > best_score) {
			best_score = s;
			best = f;
		}
	}
	if (score)
		*score = best_score;
	return best;
}

const struct format *format_by_columns(const char *head, size_t n, const char *columns)
{
	for (size_t i = 0; i < format_count(); i++)
		if (formats[i]->columns_fit && formats[i]->columns_fit(head, n, columns))
			return formats[i];
	return NULL;
}

const struct format *format_find(const char *id)
{
	for (size_t i = 0; i < format_count(); i++)
		if (!strcmp(formats[i]->id, id))
			return formats[i];
	return NULL;
}
