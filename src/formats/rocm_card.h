/* SPDX-License-Identifier: MIT */
/*
 * One GPU of rocm-smi's --json and --csv output: the labels of rocm-smi's
 * listing ("GPU use (%)", "Current Socket Graphics Package Power (W)",
 * "VRAM Total Memory (B)" ...) with their values as strings, as both
 * print them (--csv is the same data, a column per label).  The labels
 * changed across ROCm releases, so each field has a list of labels, first
 * found wins (docs/formats/rocm-smi-json.md).
 */
#ifndef FORMATS_ROCM_CARD_H
#define FORMATS_ROCM_CARD_H

#include <stdint.h>

#include "formats/format.h"

struct rocm_card {
	struct rec g;			/* present, v[] and status */
	uint8_t rank[M__COUNT];		/* rank of the label that set v[m]; 0xff: none */
	uint8_t name_rank;
	char name[96], uuid[96];	/* "" when none */
};

void rocm_card_init(struct rocm_card *c);
/* One label and its value: 0 read, or not a label of ours, or a missing
 * reading (N/A); -1 a label of ours whose value is not a number (the
 * caller reports it where it is). */
int rocm_card_take(struct rocm_card *c, struct slice label, struct slice val);
/* Is label one this reader takes (the CSV maps its header once)? */
bool rocm_card_knows(struct slice label);

#endif
