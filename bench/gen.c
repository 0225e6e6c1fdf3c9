/* SPDX-License-Identifier: MIT */
/* gen-logs: writes a deterministic, arbitrarily large nvidia-smi log replayed from a real H200. */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/scan.h"
#include "util/timeutil.h"

/*
 * The 214 data rows of examples/h200-training/dmon_pucvmet_DT.log (a real
 * `nvidia-smi dmon -s pucvmet -o DT -d 1` capture), columns pwr .. txpci.
 * Embedded so that a fresh clone can generate logs without the example tree.
 */
enum dmon_col {
	C_PWR, C_GTEMP, C_MTEMP, C_SM, C_MEM, C_ENC, C_DEC, C_JPG, C_OFA, C_MCLK, C_PCLK,
	C_PVIOL, C_TVIOL, C_FB, C_BAR1, C_CCPM, C_SBECC, C_DBECC, C_PCI, C_RXPCI, C_TXPCI,
	NCOL
};

static const unsigned real_rows[][NCOL] = {
	{ 93,39,39,0,0,0,0,0,0,3201,345,0,0,0,1,0,0,0,4,3,1 },
	{ 78,39,39,0,0,0,0,0,0,3201,345,0,0,0,1,0,0,0,4,0,2 },
	{ 78,39,39,0,0,0,0,0,0,3201,345,0,0,0,1,0,0,0,4,9,10 },
	{ 78,39,39,0,0,0,0,0,0,3201,345,0,0,0,1,0,0,0,4,7,2 },
	{ 78,39,39,0,0,0,0,0,0,3201,345,0,0,0,1,0,0,0,4,6,5 },
	{ 88,39,38,2,0,0,0,0,0,3201,1980,0,0,621,622,0,0,0,4,4,0 },
	{ 123,40,39,0,0,0,0,0,0,3201,1980,0,0,1257,1258,0,0,0,4,0,11 },
	{ 123,40,39,0,0,0,0,0,0,3201,1980,0,0,1257,1258,0,0,0,4,0,0 },
	{ 123,40,39,0,0,0,0,0,0,3201,1980,0,0,1257,1258,0,0,0,4,0,8 },
	{ 123,40,39,0,0,0,0,0,0,3201,1980,0,0,1257,1258,0,0,0,4,0,0 },
	{ 123,40,39,0,0,0,0,0,0,3201,1980,0,0,1257,1258,0,0,0,4,0,5 },
	{ 123,40,39,0,0,0,0,0,0,3201,1980,0,0,1257,1258,0,0,0,4,0,4 },
	{ 123,40,39,0,0,0,0,0,0,3201,1980,0,0,1257,1258,0,0,0,4,0,4 },
	{ 123,40,39,0,0,0,0,0,0,3201,1980,0,0,1257,1258,0,0,0,4,0,0 },
	{ 123,40,39,0,0,0,0,0,0,3201,1980,0,0,1257,1258,0,0,0,4,0,4 },
	{ 123,40,39,0,0,0,0,0,0,3201,1980,0,0,1257,1258,0,0,0,4,0,0 },
	{ 123,40,39,0,0,0,0,0,0,3201,1980,0,0,1257,1258,0,0,0,4,0,4 },
	{ 123,40,39,0,0,0,0,0,0,3201,1980,0,0,1257,1258,0,0,0,4,0,0 },
	{ 123,40,39,0,0,0,0,0,0,3201,1980,0,0,1257,1258,0,0,0,4,0,4 },
	{ 123,40,39,0,0,0,0,0,0,3201,1980,0,0,1257,1258,0,0,0,4,0,0 },
	{ 123,40,39,0,0,0,0,0,0,3201,1980,0,0,1257,1258,0,0,0,4,0,4 },
	{ 123,40,39,0,0,0,0,0,0,3201,1980,0,0,1257,1258,0,0,0,4,1,9 },
	{ 123,40,39,0,0,0,0,0,0,3201,1980,0,0,1257,1258,0,0,0,4,0,5 },
	{ 123,40,39,0,0,0,0,0,0,3201,1980,0,0,1257,1258,0,0,0,4,4,1 },
	{ 123,40,39,0,0,0,0,0,0,3201,1980,0,0,1257,1258,0,0,0,4,0,4 },
	{ 123,40,39,0,0,0,0,0,0,3201,1980,0,0,1575,1576,0,0,0,4,0,1 },
	{ 130,40,39,0,0,0,0,0,0,3201,1980,0,0,7483,7484,0,0,0,4,0,5 },
	{ 256,42,41,0,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,65,15 },
	{ 579,53,48,86,47,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,79,15 },
	{ 553,53,49,81,44,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,83,17 },
	{ 574,54,50,85,46,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,49,12 },
	{ 561,54,51,86,47,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,86,13 },
	{ 588,56,52,89,48,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,64,17 },
	{ 585,55,52,91,50,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,71,18 },
	{ 556,55,52,85,46,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,83,17 },
	{ 559,54,52,83,45,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,59,14 },
	{ 611,57,53,96,52,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,83,16 },
	{ 597,57,53,93,50,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,74,22 },
	{ 599,55,53,92,51,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,66,22 },
	{ 569,56,52,85,46,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,72,22 },
	{ 572,55,53,88,48,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,82,20 },
	{ 603,57,53,95,53,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,86,27 },
	{ 596,56,54,94,50,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,64,26 },
	{ 588,56,53,89,48,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,89,16 },
	{ 580,56,53,85,45,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,69,12 },
	{ 546,54,52,81,44,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,60,13 },
	{ 572,57,53,92,51,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,77,16 },
	{ 577,56,53,89,49,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,81,16 },
	{ 610,57,54,96,52,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,84,16 },
	{ 586,56,53,84,46,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,80,16 },
	{ 549,55,52,78,43,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,55,15 },
	{ 534,53,53,80,44,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,58,17 },
	{ 555,55,53,80,44,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,61,16 },
	{ 558,54,53,84,46,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,77,13 },
	{ 552,53,52,76,41,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,61,18 },
	{ 529,55,53,83,45,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,58,14 },
	{ 523,54,52,76,41,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,82,24 },
	{ 545,54,52,80,44,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,55,16 },
	{ 554,54,53,84,46,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,90,13 },
	{ 565,55,53,84,45,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,60,16 },
	{ 572,56,53,88,47,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,90,17 },
	{ 590,56,54,91,49,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,73,13 },
	{ 575,55,53,91,49,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,95,20 },
	{ 576,56,54,89,48,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,75,16 },
	{ 597,55,54,91,49,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,72,19 },
	{ 619,56,55,96,52,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,88,25 },
	{ 607,57,55,96,52,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,76,18 },
	{ 593,56,54,87,47,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,67,23 },
	{ 581,57,54,91,49,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,71,17 },
	{ 598,57,55,95,52,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,72,23 },
	{ 604,56,54,93,50,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,66,12 },
	{ 574,56,54,86,47,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,78,16 },
	{ 510,52,51,29,16,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,35,16 },
	{ 216,45,47,0,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,4,1 },
	{ 229,44,46,29,16,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,0,0 },
	{ 208,43,44,28,15,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,5,1 },
	{ 228,44,44,13,7,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,0,0 },
	{ 226,43,45,28,15,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,4,3 },
	{ 219,43,43,13,8,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,0,0 },
	{ 229,44,44,28,15,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,15,15 },
	{ 238,43,44,28,15,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,0,15 },
	{ 231,43,44,28,15,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,62,16 },
	{ 235,44,44,24,14,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,28,17 },
	{ 237,43,44,28,15,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,60,1 },
	{ 232,45,45,17,10,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,0,9 },
	{ 220,44,43,11,6,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,68,11 },
	{ 232,43,43,28,15,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,1,15 },
	{ 222,44,43,9,6,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,4,10 },
	{ 207,43,45,0,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,0,5 },
	{ 210,42,43,5,4,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,0,0 },
	{ 194,43,44,22,11,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,0,9 },
	{ 215,47,44,28,15,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,8,16 },
	{ 225,43,43,6,3,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,0,6 },
	{ 218,42,43,28,16,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,0,0 },
	{ 206,43,43,28,15,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,0,8 },
	{ 204,42,43,0,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,76,0 },
	{ 208,43,43,3,1,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,0,7 },
	{ 206,43,43,27,14,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,48,0 },
	{ 222,42,42,28,15,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,0,18 },
	{ 203,43,43,0,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,50,13 },
	{ 221,42,43,28,15,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,52,2 },
	{ 225,46,43,18,10,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,49,14 },
	{ 231,42,43,28,15,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,7,7 },
	{ 217,43,43,0,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,82,0 },
	{ 220,42,43,28,15,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,84,3 },
	{ 232,42,43,28,15,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,10,13 },
	{ 217,46,43,12,7,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,4,0 },
	{ 192,42,43,0,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,8,0 },
	{ 206,45,42,28,15,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,5,0 },
	{ 225,42,43,28,16,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,0,14 },
	{ 223,42,43,4,2,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,102,16 },
	{ 124,40,41,18,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,155,25 },
	{ 123,40,41,22,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,178,28 },
	{ 123,40,40,19,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,175,35 },
	{ 123,40,40,17,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,119,19 },
	{ 123,40,40,22,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,181,35 },
	{ 123,40,40,20,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,118,19 },
	{ 123,40,40,22,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,176,35 },
	{ 123,40,40,21,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,177,28 },
	{ 123,40,40,21,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,117,24 },
	{ 123,40,40,20,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,166,25 },
	{ 123,40,40,16,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,143,33 },
	{ 123,40,40,20,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,157,25 },
	{ 123,39,40,21,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,177,34 },
	{ 123,39,40,20,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,160,26 },
	{ 123,39,39,21,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,173,35 },
	{ 123,39,39,13,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,107,17 },
	{ 123,39,39,20,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,165,35 },
	{ 123,39,40,18,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,165,36 },
	{ 123,39,39,21,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,117,29 },
	{ 123,39,39,18,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,117,18 },
	{ 123,39,39,13,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,114,24 },
	{ 123,39,39,13,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,112,17 },
	{ 123,39,39,13,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,109,21 },
	{ 123,39,39,16,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,147,22 },
	{ 123,39,39,20,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,161,32 },
	{ 123,39,39,18,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,162,26 },
	{ 123,39,39,19,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,137,30 },
	{ 123,39,39,13,0,0,0,0,0,3201,1980,0,0,9497,9498,0,0,0,4,107,18 },
	{ 253,44,41,24,8,0,0,0,0,3201,1980,0,0,9759,9760,0,0,0,4,18,6 },
	{ 338,45,42,24,8,0,0,0,0,3201,1980,0,0,9759,9760,0,0,0,4,18,5 },
	{ 335,49,42,27,9,0,0,0,0,3201,1980,0,0,9759,9760,0,0,0,4,18,12 },
	{ 336,48,43,21,7,0,0,0,0,3201,1980,0,0,9759,9760,0,0,0,4,6,6 },
	{ 336,48,43,28,9,0,0,0,0,3201,1980,0,0,9759,9760,0,0,0,4,4,11 },
	{ 334,49,43,27,9,0,0,0,0,3201,1980,0,0,9759,9760,0,0,0,4,15,1 },
	{ 334,47,43,25,8,0,0,0,0,3201,1980,0,0,9759,9760,0,0,0,4,17,8 },
	{ 340,48,43,28,9,0,0,0,0,3201,1980,0,0,9759,9760,0,0,0,4,17,6 },
	{ 340,46,43,28,9,0,0,0,0,3201,1980,0,0,9759,9760,0,0,0,4,21,12 },
	{ 339,46,43,22,7,0,0,0,0,3201,1980,0,0,9759,9760,0,0,0,4,0,6 },
	{ 344,46,43,27,9,0,0,0,0,3201,1980,0,0,9759,9760,0,0,0,4,22,5 },
	{ 339,46,43,22,7,0,0,0,0,3201,1980,0,0,9759,9760,0,0,0,4,19,6 },
	{ 336,49,43,26,8,0,0,0,0,3201,1980,0,0,9759,9760,0,0,0,4,9,6 },
	{ 338,47,43,26,8,0,0,0,0,3201,1980,0,0,9759,9760,0,0,0,4,19,2 },
	{ 358,46,49,100,100,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,41,16 },
	{ 406,47,52,100,100,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,35,16 },
	{ 405,47,53,100,100,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,34,16 },
	{ 406,47,53,100,100,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,34,26 },
	{ 406,47,53,99,100,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,35,15 },
	{ 406,47,53,99,100,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,68,25 },
	{ 406,47,53,99,100,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,44,15 },
	{ 406,47,53,98,100,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,34,25 },
	{ 405,47,53,99,100,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,34,33 },
	{ 406,46,53,99,100,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,34,15 },
	{ 406,47,53,99,100,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,49,17 },
	{ 407,47,54,100,100,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,34,15 },
	{ 409,47,54,100,100,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,35,15 },
	{ 408,47,54,99,100,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,34,25 },
	{ 408,47,54,100,100,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,35,15 },
	{ 408,47,54,100,100,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,43,17 },
	{ 406,47,54,100,100,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,35,22 },
	{ 408,47,54,99,100,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,51,17 },
	{ 406,47,54,100,100,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,34,15 },
	{ 409,47,54,99,100,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,34,15 },
	{ 407,47,54,99,100,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,34,26 },
	{ 405,47,54,99,100,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,35,15 },
	{ 406,47,54,99,100,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,50,17 },
	{ 407,47,54,99,100,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,35,31 },
	{ 212,41,44,0,0,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,6,8 },
	{ 124,40,42,0,0,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,0,0 },
	{ 124,40,41,0,0,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,4,1 },
	{ 123,40,41,0,0,0,0,0,0,3201,1980,0,0,13855,13856,0,0,0,4,0,0 },
	{ 123,39,40,0,0,0,0,0,0,3201,1980,0,0,14879,14880,0,0,0,4,5,1 },
	{ 123,39,40,0,0,0,0,0,0,3201,1980,0,0,16927,16928,0,0,0,4,0,0 },
	{ 123,39,40,0,0,0,0,0,0,3201,1980,0,0,17951,17952,0,0,0,4,0,0 },
	{ 123,39,40,0,0,0,0,0,0,3201,1980,0,0,18975,18976,0,0,0,4,0,0 },
	{ 123,39,40,0,0,0,0,0,0,3201,1980,0,0,19999,20000,0,0,0,4,0,0 },
	{ 123,39,40,0,0,0,0,0,0,3201,1980,0,0,21023,21024,0,0,0,4,0,4 },
	{ 123,39,40,0,0,0,0,0,0,3201,1980,0,0,22047,22048,0,0,0,4,0,0 },
	{ 123,39,40,0,0,0,0,0,0,3201,1980,0,0,23071,23072,0,0,0,4,0,4 },
	{ 123,39,40,0,0,0,0,0,0,3201,1980,0,0,24095,24096,0,0,0,4,0,0 },
	{ 123,39,39,0,0,0,0,0,0,3201,1980,0,0,25119,25120,0,0,0,4,0,5 },
	{ 122,39,39,0,0,0,0,0,0,3201,1980,0,0,26143,26144,0,0,0,4,0,0 },
	{ 123,39,39,0,0,0,0,0,0,3201,1980,0,0,27167,27168,0,0,0,4,0,14 },
	{ 122,39,39,0,0,0,0,0,0,3201,1980,0,0,28191,28192,0,0,0,4,1,1 },
	{ 123,39,39,0,0,0,0,0,0,3201,1980,0,0,29215,29216,0,0,0,4,0,5 },
	{ 122,39,39,0,0,0,0,0,0,3201,1980,0,0,30239,30240,0,0,0,4,0,0 },
	{ 124,39,39,0,0,0,0,0,0,3201,1980,0,0,4933,4934,0,0,0,4,0,5 },
	{ 122,39,39,0,0,0,0,0,0,3201,1980,0,0,4933,4934,0,0,0,4,0,0 },
	{ 122,39,39,0,0,0,0,0,0,3201,1980,0,0,4933,4934,0,0,0,4,0,6 },
	{ 122,39,39,0,0,0,0,0,0,3201,1980,0,0,4933,4934,0,0,0,4,0,0 },
	{ 122,39,39,0,0,0,0,0,0,3201,1980,0,0,4933,4934,0,0,0,4,0,5 },
	{ 122,39,39,0,0,0,0,0,0,3201,1980,0,0,4933,4934,0,0,0,4,0,0 },
	{ 122,39,39,0,0,0,0,0,0,3201,1980,0,0,4933,4934,0,0,0,4,0,6 },
	{ 122,39,39,0,0,0,0,0,0,3201,1980,0,0,4933,4934,0,0,0,4,0,0 },
	{ 122,39,39,0,0,0,0,0,0,3201,1980,0,0,4933,4934,0,0,0,4,7,1 },
	{ 122,39,39,0,0,0,0,0,0,3201,1980,0,0,4933,4934,0,0,0,4,0,0 },
	{ 122,39,39,0,0,0,0,0,0,3201,1980,0,0,4933,4934,0,0,0,4,3,0 },
	{ 122,39,39,0,0,0,0,0,0,3201,1980,0,0,4933,4934,0,0,0,4,0,0 },
	{ 122,39,38,0,0,0,0,0,0,3201,1980,0,0,4933,4934,0,0,0,4,4,0 },
	{ 122,39,39,0,0,0,0,0,0,3201,1980,0,0,4933,4934,0,0,0,4,0,0 },
	{ 122,39,39,0,0,0,0,0,0,3201,1980,0,0,4933,4934,0,0,0,4,6,0 },
	{ 124,39,39,0,0,0,0,0,0,3201,1980,0,0,0,1,0,0,0,4,0,0 },
	{ 127,39,39,0,0,0,0,0,0,3201,1980,0,0,0,1,0,0,0,4,5,2 },
	{ 79,37,38,0,0,0,0,0,0,3201,345,0,0,0,1,0,0,0,4,0,0 },
};

#define NREAL (sizeof(real_rows) / sizeof(real_rows[0]))

/* The two header lines exactly as the driver prints them (trailing space included). */
static const char dmon_header[] =
	"#Date        Time         gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg"
	"    ofa   mclk   pclk  pviol  tviol     fb   bar1   ccpm  sbecc  dbecc    pci  rxpci"
	"  txpci \n"
	"#YYYYMMDD    HH:MM:SS     Idx      W      C      C      %      %      %      %      %"
	"      %    MHz    MHz      %   bool     MB     MB     MB   errs   errs   errs   MB/s"
	"   MB/s \n";

static const char query_header[] =
	"timestamp, index, uuid, utilization.gpu [%], utilization.memory [%], memory.used [MiB], "
	"power.draw [W], temperature.gpu, clocks.current.sm [MHz]\n";

/* Real dmon prints its header again every 44 samples; we do it every 44 ticks. */
#define HEADER_EVERY_TICKS 44

/* dmon row layout: " YYYYMMDD    HH:MM:SS", the gpu index in 8 columns, then 7 per field. */
#define DT_LEN 21
#define GPU_W 8
#define COL_W 7
#define DMON_LINE_LEN (DT_LEN + GPU_W + NCOL * COL_W + 2)
#define COL_OFF(c) (DT_LEN + GPU_W + (c) * COL_W)

#define MAX_GPUS 1024
#define MAX_LINE 256
#define OUTBUF_BYTES (8u << 20)

enum fmt { FMT_DMON, FMT_QUERY };

struct opts {
	enum fmt fmt;
	const char *out_path;
	uint64_t max_bytes;	/* 0: no limit */
	uint64_t seconds;	/* 0: no limit */
	unsigned gpus;
	uint64_t seed;
	int64_t start_day;	/* days since the epoch */
	unsigned step;		/* seconds between ticks */
	int work_from, work_to;	/* --workday: UTC hours [from, to) of work; -1: none */
};

/* xorshift64*: fast, deterministic on every platform, good enough for jitter. */
static uint64_t rng_state;

static uint64_t rng_next(void)
{
	uint64_t x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * UINT64_C(2685821657736338717);
}

/* Uniform in [-span, span]. */
static int jitter(int span)
{
	return (int)((rng_next() >> 32) % (uint64_t)(2 * span + 1)) - span;
}

/* A busy value stays busy and an idle one stays idle, so the replay keeps its meaning. */
static unsigned jitter_pct(unsigned v, int span)
{
	int j;

	if (v == 0)
		return 0;
	j = (int)v + jitter(span);
	if (j < 1)
		j = 1;
	if (j > 100)
		j = 100;
	return (unsigned)j;
}

static unsigned jitter_pwr(unsigned v, int span)
{
	int j = (int)v + jitter(span);

	return j < 1 ? 1 : (unsigned)j;
}

/* Right-aligns v in slot[0..width), space-filled; returns -1 if it does not fit. */
static int put_right(char *slot, int width, unsigned v)
{
	int i = width;

	do {
		if (i == 0)
			return -1;
		slot[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (i > 0)
		slot[--i] = ' ';
	return 0;
}

/* Writes v in decimal at p; returns the end. */
static char *put_uint(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put2(char *p, unsigned v)
{
	p[0] = (char)('0' + v / 10 % 10);
	p[1] = (char)('0' + v % 10);
	return p + 2;
}

static char *put_lit(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}
#define PUT_LIT(p, s) put_lit((p), (s), sizeof(s) - 1)

/* Every real row pre-rendered, so a generated row is one memcpy plus a few patches. */
static char templates[NREAL][DMON_LINE_LEN];

static int build_templates(void)
{
	size_t r;
	int c;

	for (r = 0; r < NREAL; r++) {
		char *line = templates[r];

		memset(line, ' ', DMON_LINE_LEN);
		line[DMON_LINE_LEN - 1] = '\n';
		for (c = 0; c < NCOL; c++)
			if (put_right(line + COL_OFF(c), COL_W, real_rows[r][c]) < 0)
				return -1;
	}
	return 0;
}

struct out {
	int fd;
	char *buf;
	size_t used;
	uint64_t total;
};

static int out_flush(struct out *o)
{
	size_t off = 0;

	while (off < o->used) {
		ssize_t n = write(o->fd, o->buf + off, o->used - off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		off += (size_t)n;
	}
	o->total += o->used;
	o->used = 0;
	return 0;
}

/* Civil time of one tick, recomputed only when the day changes. */
struct clock {
	int64_t day;
	int y, mo, d;
	unsigned sec_of_day;
};

static void clock_init(struct clock *ck, int64_t day)
{
	ck->day = day;
	civil_from_days(day, &ck->y, &ck->mo, &ck->d);
	ck->sec_of_day = 0;
}

static void clock_tick(struct clock *ck, unsigned step)
{
	unsigned s = ck->sec_of_day + step;

	while (s >= 86400) {
		clock_init(ck, ck->day + 1);
		s -= 86400;
	}
	ck->sec_of_day = s;
}

/* " YYYYMMDD    HH:MM:SS" */
static void dmon_datetime(char *p, const struct clock *ck)
{
	unsigned s = ck->sec_of_day;

	*p++ = ' ';
	p = put2(p, (unsigned)ck->y / 100);
	p = put2(p, (unsigned)ck->y % 100);
	p = put2(p, (unsigned)ck->mo);
	p = put2(p, (unsigned)ck->d);
	p = PUT_LIT(p, "    ");
	p = put2(p, s / 3600);
	*p++ = ':';
	p = put2(p, s / 60 % 60);
	*p++ = ':';
	put2(p, s % 60);
}

/* splitmix64: spreads a small integer over all 64 bits. */
static uint64_t mix64(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

/* The capture's idle rows (sm 0), for --workday's hours off. */
static unsigned idle_rows[NREAL], nidle;

static void build_idle_rows(void)
{
	for (unsigned r = 0; r < NREAL; r++)
		if (real_rows[r][C_SM] == 0)
			idle_rows[nidle++] = r;
}

/* Per-run settings the row choice needs (set once in main). */
static int work_from = -1, work_to = -1;
static uint64_t work_seed;

/*
 * The real row GPU k replays at this tick.  With --workday, outside the
 * working hours, and on the days off (about one GPU-day in six, from the
 * seed), it is one of the capture's idle rows: the month has nights, days
 * off and GPUs that differ, and every row is still a real one.
 */
static unsigned row_of(uint64_t tick, const struct clock *ck, unsigned k)
{
	unsigned r = (unsigned)((tick + 37u * k) % NREAL);
	unsigned h = ck->sec_of_day / 3600;

	if (work_from < 0 || !nidle)
		return r;
	if ((int)h < work_from || (int)h >= work_to ||
	    mix64(work_seed ^ ((uint64_t)ck->day << 16) ^ k) % 6 == 0)
		return idle_rows[r % nidle];
	return r;
}

/* One tick of dmon output at p; returns the end. */
static char *dmon_tick(char *p, uint64_t tick, const struct clock *ck, unsigned gpus)
{
	char dt[DT_LEN];
	unsigned k;

	if (tick % HEADER_EVERY_TICKS == 0)
		p = PUT_LIT(p, dmon_header);
	dmon_datetime(dt, ck);
	for (k = 0; k < gpus; k++) {
		unsigned ri = row_of(tick, ck, k);
		const unsigned *row = real_rows[ri];

		memcpy(p, templates[ri], DMON_LINE_LEN);
		memcpy(p, dt, DT_LEN);
		put_right(p + DT_LEN, GPU_W, k);
		put_right(p + COL_OFF(C_PWR), COL_W, jitter_pwr(row[C_PWR], 3));
		put_right(p + COL_OFF(C_SM), COL_W, jitter_pct(row[C_SM], 2));
		put_right(p + COL_OFF(C_MEM), COL_W, jitter_pct(row[C_MEM], 2));
		p += DMON_LINE_LEN;
	}
	return p;
}

/* A fixed UUID per GPU index and seed; the zero groups mark it as synthetic. */
static char uuids[MAX_GPUS][41];

static void build_uuids(unsigned gpus, uint64_t seed)
{
	static const char hex[] = "0123456789abcdef";
	unsigned k;

	for (k = 0; k < gpus; k++) {
		uint64_t v = mix64(seed * MAX_GPUS + k);
		char *u = uuids[k];
		int i;

		memcpy(u, "GPU-00000000-0000-4000-8000-000000000000", 41);
		for (i = 39; i >= 28; i--, v >>= 4)
			u[i] = hex[v & 15];
		for (i = 11; i >= 4; i--, v >>= 4)
			u[i] = hex[v & 15];
	}
}

/* One tick of `--query-gpu ... --format=csv` output (units, timestamp with ms). */
static char *query_tick(char *p, uint64_t tick, const struct clock *ck, unsigned gpus)
{
	char ts[23], *q = ts;
	unsigned k, s = ck->sec_of_day, ms;

	/* nvidia-smi stamps each sample when it reads it, a few ms after the second. */
	ms = (unsigned)((rng_next() >> 32) % 100);
	q = put2(q, (unsigned)ck->y / 100);
	q = put2(q, (unsigned)ck->y % 100);
	*q++ = '/';
	q = put2(q, (unsigned)ck->mo);
	*q++ = '/';
	q = put2(q, (unsigned)ck->d);
	*q++ = ' ';
	q = put2(q, s / 3600);
	*q++ = ':';
	q = put2(q, s / 60 % 60);
	*q++ = ':';
	q = put2(q, s % 60);
	*q++ = '.';
	*q++ = '0';
	put2(q, ms);

	for (k = 0; k < gpus; k++) {
		const unsigned *row = real_rows[row_of(tick, ck, k)];
		int cw = (int)row[C_PWR] * 100 + jitter(150);

		p = put_lit(p, ts, sizeof(ts));
		p = PUT_LIT(p, ", ");
		p = put_uint(p, k);
		p = PUT_LIT(p, ", ");
		p = put_lit(p, uuids[k], 40);
		p = PUT_LIT(p, ", ");
		p = put_uint(p, jitter_pct(row[C_SM], 2));
		p = PUT_LIT(p, " %, ");
		p = put_uint(p, jitter_pct(row[C_MEM], 2));
		p = PUT_LIT(p, " %, ");
		p = put_uint(p, row[C_FB]);
		p = PUT_LIT(p, " MiB, ");
		if (cw < 100)
			cw = 100;
		p = put_uint(p, (unsigned)cw / 100);
		*p++ = '.';
		p = put2(p, (unsigned)cw % 100);
		p = PUT_LIT(p, " W, ");
		p = put_uint(p, row[C_GTEMP]);
		p = PUT_LIT(p, ", ");
		p = put_uint(p, row[C_PCLK]);
		p = PUT_LIT(p, " MHz\n");
	}
	return p;
}

static void usage(FILE *f)
{
	fputs("usage: gen-logs [-o FILE] [--bytes N[K|M|G]] [--seconds N] [--gpus N] [--seed N]\n"
	      "                [--start YYYY-MM-DD] [--format dmon|query] [--step S] [--workday H0-H1]\n"
	      "Writes a deterministic nvidia-smi log: ticks S seconds apart (default 1), one row per\n"
	      "GPU, each row a real H200 row with small jitter.  --workday H0-H1: outside the UTC\n"
	      "hours [H0, H1), and on about one GPU-day in six (from the seed), a GPU replays only\n"
	      "the capture's idle rows: a month with nights, days off and GPUs that differ.  dmon is `dmon -s pucvmet -o DT`; query is\n"
	      "`--query-gpu=timestamp,index,uuid,utilization.gpu,utilization.memory,memory.used,\n"
	      "power.draw,temperature.gpu,clocks.sm --format=csv`.  --bytes stops before the tick\n"
	      "that would pass N bytes (K, M, G are powers of 1000).  Without --bytes and --seconds:\n"
	      "one day (86400 seconds).  The same arguments always give the same bytes.\n", f);
}

static int parse_count(const char *s, uint64_t *out, int allow_suffix)
{
	const char *p = s, *end = s + strlen(s);
	uint64_t v, mul = 1;

	if (scan_u64(&p, end, &v) < 0)
		return -1;
	if (allow_suffix && p + 1 == end) {
		switch (*p) {
		case 'k': case 'K': mul = UINT64_C(1000); break;
		case 'm': case 'M': mul = UINT64_C(1000000); break;
		case 'g': case 'G': mul = UINT64_C(1000000000); break;
		default: return -1;
		}
		p++;
	}
	if (p != end || (mul > 1 && v > UINT64_MAX / mul))
		return -1;
	*out = v * mul;
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	int i;

	o->fmt = FMT_DMON;
	o->out_path = NULL;
	o->max_bytes = 0;
	o->seconds = 0;
	o->gpus = 8;
	o->seed = 1;
	o->start_day = days_from_civil(2026, 12, 1);
	o->step = 1;
	o->work_from = o->work_to = -1;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		const char *eq = strchr(a, '=');
		char name[32];
		uint64_t n;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		}
		if (!strncmp(a, "--", 2) && eq && (size_t)(eq - a) < sizeof(name)) {
			memcpy(name, a, (size_t)(eq - a));
			name[eq - a] = '\0';
			a = name;
			v = eq + 1;
		} else if (i + 1 < argc) {
			v = argv[i + 1];
			i++;
		}
		if (!v) {
			fprintf(stderr, "gen-logs: option %s needs a value\n", a);
			return -1;
		}
		if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			o->out_path = v;
		} else if (!strcmp(a, "--bytes")) {
			if (parse_count(v, &o->max_bytes, 1) < 0 || o->max_bytes == 0)
				goto bad;
		} else if (!strcmp(a, "--seconds")) {
			if (parse_count(v, &o->seconds, 0) < 0 || o->seconds == 0)
				goto bad;
		} else if (!strcmp(a, "--gpus")) {
			if (parse_count(v, &n, 0) < 0 || n == 0 || n > MAX_GPUS)
				goto bad;
			o->gpus = (unsigned)n;
		} else if (!strcmp(a, "--seed")) {
			if (parse_count(v, &o->seed, 0) < 0)
				goto bad;
		} else if (!strcmp(a, "--start")) {
			if (time_parse_date(v, &o->start_day) < 0 ||
			    o->start_day < days_from_civil(1000, 1, 1) ||
			    o->start_day > days_from_civil(9999, 1, 1))
				goto bad;
		} else if (!strcmp(a, "--step")) {
			if (parse_count(v, &n, 0) < 0 || n == 0 || n > 86400)
				goto bad;
			o->step = (unsigned)n;
		} else if (!strcmp(a, "--workday")) {
			int h0, h1, used = 0;
			if (sscanf(v, "%2d-%2d%n", &h0, &h1, &used) != 2 || v[used] || h0 < 0 || h1 > 24 || h0 >= h1)
				goto bad;
			o->work_from = h0;
			o->work_to = h1;
		} else if (!strcmp(a, "--format")) {
			if (!strcmp(v, "dmon"))
				o->fmt = FMT_DMON;
			else if (!strcmp(v, "query"))
				o->fmt = FMT_QUERY;
			else
				goto bad;
		} else {
			fprintf(stderr, "gen-logs: unknown option %s\n", a);
			usage(stderr);
			return -1;
		}
		continue;
bad:
		fprintf(stderr, "gen-logs: bad value '%s' for %s\n", v, a);
		return -1;
	}
	if (!o->max_bytes && !o->seconds)
		o->seconds = 86400;
	/* --seconds is the window's length: ticks of --step seconds in it */
	o->seconds = (o->seconds + o->step - 1) / o->step;
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct out out = { 1, NULL, 0, 0 };
	struct clock ck;
	uint64_t tick;

	if (parse_args(argc, argv, &o) < 0)
		return 2;
	if (build_templates() < 0) {
		fputs("gen-logs: a real row does not fit the dmon layout\n", stderr);
		return 1;
	}
	/* Mixed, so that any seed, 0 included, gives a usable xorshift state. */
	rng_state = mix64(o.seed);
	if (!rng_state)
		rng_state = 1;
	build_uuids(o.gpus, o.seed);
	build_idle_rows();
	work_from = o.work_from;
	work_to = o.work_to;
	work_seed = mix64(o.seed + 1);

	if (o.out_path && strcmp(o.out_path, "-")) {
		out.fd = open(o.out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (out.fd < 0) {
			fprintf(stderr, "gen-logs: %s: %s\n", o.out_path, strerror(errno));
			return 1;
		}
	}
	out.buf = malloc(OUTBUF_BYTES);
	if (!out.buf) {
		fputs("gen-logs: out of memory\n", stderr);
		return 1;
	}
	if (o.fmt == FMT_QUERY) {
		memcpy(out.buf, query_header, sizeof(query_header) - 1);
		out.used = sizeof(query_header) - 1;
		if (o.max_bytes && out.used > o.max_bytes)
			out.used = 0;
	}
	clock_init(&ck, o.start_day);
	for (tick = 0; !o.seconds || tick < o.seconds; tick++) {
		char *start, *end;
		size_t need = (size_t)o.gpus * MAX_LINE + sizeof(dmon_header);

		if (OUTBUF_BYTES - out.used < need && out_flush(&out) < 0)
			goto io_err;
		start = out.buf + out.used;
		if (o.fmt == FMT_DMON)
			end = dmon_tick(start, tick, &ck, o.gpus);
		else
			end = query_tick(start, tick, &ck, o.gpus);
		/* Whole ticks only, so every GPU has the same number of samples. */
		if (o.max_bytes && out.total + out.used + (size_t)(end - start) > o.max_bytes)
			break;
		out.used += (size_t)(end - start);
		clock_tick(&ck, o.step);
	}
	if (out_flush(&out) < 0)
		goto io_err;
	if (out.fd != 1 && close(out.fd) < 0)
		goto io_err;
	free(out.buf);
	return 0;
io_err:
	fprintf(stderr, "gen-logs: write %s: %s\n", o.out_path ? o.out_path : "stdout",
		strerror(errno));
	return 1;
}
