/* SPDX-License-Identifier: MIT */
/* Value tokens shared by every nvidia-smi text format. */
#include "formats/format.h"

#include <string.h>

bool smi_missing_token(struct slice tok, uint8_t *status)
{
	static const struct {
		const char *tok;
		uint8_t status;
	} tab[] = {
		{ "-", 0 },
		{ "[N/A]", 0 },
		{ "N/A", 0 },
		{ "[Not Supported]", 0 },
		{ "Not Supported", 0 },
		{ "[Insufficient Permissions]", 0 },
		{ "Insufficient Permissions", 0 },
		/* 590-595 drivers, display_mode, power.management, clocks.applications.*
		 * (formats.md 11.3): no reading, and no read error either */
		{ "[Requested functionality has been deprecated]", 0 },
		{ "Requested functionality has been deprecated", 0 },
		{ "[Unknown Error]", GS_READ_ERROR },
		{ "[GPU is lost]", GS_LOST },
		{ "[GPU requires reset]", GS_RESET },
		{ "[Requires Reset]", GS_RESET },
	};

	tok = slice_trim(tok);
	if (tok.n == 0)
		return true;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (slice_eq(tok, tab[i].tok)) {
			*status |= tab[i].status;
			return true;
		}
	/* any other bracketed word is a driver message, never a number */
	if (tok.p[0] == '[' && tok.p[tok.n - 1] == ']') {
		*status |= GS_READ_ERROR;
		return true;
	}
	return false;
}
