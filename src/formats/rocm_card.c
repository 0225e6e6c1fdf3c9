/* SPDX-License-Identifier: MIT */
/* The labels of rocm-smi's --json and --csv output (rocm_card.h). */
#include "formats/rocm_card.h"

#include <ctype.h>
#include <string.h>

#include "formats/smi.h"

enum kind {
	K_NUM,		/* a number, unit in the label */
	K_PAREN_MHZ,	/* "(300Mhz)" */
	K_BYTES_MIB,	/* bytes, to MiB */
	K_NAME,
	K_UUID,
};

static const struct {
	const char *label;
	uint8_t kind;
	int8_t metric;	/* -1 for names */
	uint8_t rank;	/* 0 best, for labels that fill the same field */
} keys[] = {
	{ "GPU use (%)", K_NUM, M_UTIL_GPU, 0 },
	{ "GPU memory use (%)", K_NUM, M_UTIL_MEM, 0 },
	{ "Current Socket Graphics Package Power (W)", K_NUM, M_POWER, 0 },
	{ "Average Graphics Package Power (W)", K_NUM, M_POWER, 1 },
	{ "Max Graphics Package Power (W)", K_NUM, M_POWER_LIMIT, 0 },
	{ "Temperature (Sensor edge) (C)", K_NUM, M_TEMP, 0 },
	{ "Temperature (Sensor junction) (C)", K_NUM, M_TEMP, 1 },
	{ "Temperature (Sensor memory) (C)", K_NUM, M_MEM_TEMP, 0 },
	{ "Temperature (Sensor mem) (C)", K_NUM, M_MEM_TEMP, 0 },
	{ "Fan speed (%)", K_NUM, M_FAN, 0 },
	{ "sclk clock speed:", K_PAREN_MHZ, M_SM_CLOCK, 0 },
	{ "mclk clock speed:", K_PAREN_MHZ, M_MEM_CLOCK, 0 },
	{ "VRAM Total Memory (B)", K_BYTES_MIB, M_MEM_TOTAL, 0 },
	{ "VRAM Total Used Memory (B)", K_BYTES_MIB, M_MEM_USED, 0 },
	{ "Card Series", K_NAME, -1, 0 },
	{ "Card series", K_NAME, -1, 0 },
	{ "Device Name", K_NAME, -1, 1 },
	{ "Unique ID", K_UUID, -1, 0 },
};

static int find(struct slice label)
{
	label = slice_trim(label);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (slice_eq(label, keys[i].label))
			return (int)i;
	return -1;
}

bool rocm_card_knows(struct slice label)
{
	return find(label) >= 0;
}

void rocm_card_init(struct rocm_card *c)
{
	memset(&c->g, 0, sizeof(c->g));
	memset(c->rank, 0xff, sizeof(c->rank));
	c->name_rank = 0xff;
	c->name[0] = c->uuid[0] = 0;
}

static bool is_hex_id(struct slice v)
{
	if (v.n < 3 || v.p[0] != '0' || (v.p[1] != 'x' && v.p[1] != 'X'))
		return false;
	for (size_t i = 2; i < v.n; i++)
		if (!isxdigit((unsigned char)v.p[i]))
			return false;
	return true;
}

int rocm_card_take(struct rocm_card *c, struct slice label, struct slice val)
{
	int k = find(label);
	double v;

	if (k < 0)
		return 0;
	val = slice_trim(val);
	if (keys[k].kind == K_NAME) {
		/* ROCm 5 printed the PCI device id as the series ("0x738c" on an
		 * MI100): a number, not a model to price by */
		if (is_hex_id(val))
			return 0;
		if (keys[k].rank < c->name_rank && !smi_missing_token(val, &c->g.status)) {
			slice_copy(c->name, sizeof(c->name), val);
			c->name_rank = keys[k].rank;
		}
		return 0;
	}
	if (keys[k].kind == K_UUID) {
		if (!smi_missing_token(val, &c->g.status))
			slice_copy(c->uuid, sizeof(c->uuid), val);
		return 0;
	}
	if (keys[k].kind == K_PAREN_MHZ && val.n >= 2 && val.p[0] == '(' && val.p[val.n - 1] == ')') {
		val.p++;
		val.n -= 2;
	}
	/* "GPU use (%)": "0", and "99%" in some --csv outputs */
	if (!smi_value_unit(val, keys[k].kind == K_PAREN_MHZ ? "Mhz" : "", &v, &c->g.status) &&
	    !(keys[k].kind == K_NUM && strstr(keys[k].label, "(%)") &&
	      smi_value_unit(val, "%", &v, &c->g.status)))
		return smi_missing_token(val, &c->g.status) ? 0 : -1;
	if (keys[k].kind == K_BYTES_MIB)
		v /= 1048576.0;
	if (keys[k].rank < c->rank[keys[k].metric]) {
		c->rank[keys[k].metric] = keys[k].rank;
		c->g.v[keys[k].metric] = v;
		c->g.present |= 1u << keys[k].metric;
	}
	return 0;
}
