/* SPDX-License-Identifier: MIT */
#ifndef GPUTALLY_UTIL_PCI_H
#define GPUTALLY_UTIL_PCI_H

#include <stdbool.h>

#include "util/scan.h"

/* Normalise a PCI address to "dddd:bb:dd.f" lower case (domain 0000 and
 * function 0 when absent) into out (at least 16 bytes); false if it is not
 * one.  Every layer that names a GPU by its bus address (kernel logs, query
 * logs, the recorder's CSV, the timeline's GPU map) compares these forms. */
bool pci_norm(struct slice pci, char out[16]);

#endif
