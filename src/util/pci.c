/* SPDX-License-Identifier: MIT */
#include "util/pci.h"

#include <stdio.h>
#include <string.h>

static bool pci_is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool pci_norm(struct slice pci, char out[16])
{
	unsigned dom = 0, bus, dev, fn = 0;
	char buf[32];
	int n = 0;

	if (pci.n == 0 || pci.n >= sizeof(buf))
		return false;
	memcpy(buf, pci.p, pci.n);
	buf[pci.n] = 0;
	if (buf[0] == '+' || buf[0] == '-' || buf[0] == ' ')
		return false;	/* sscanf's %x would take a sign or blanks */
	if (sscanf(buf, "%x:%x:%x.%x%n", &dom, &bus, &dev, &fn, &n) == 4 && (size_t)n == pci.n) {
	} else if (fn = 0, sscanf(buf, "%x:%x:%x%n", &dom, &bus, &dev, &n) == 3 && (size_t)n == pci.n) {
	} else if (dom = 0, sscanf(buf, "%x:%x.%x%n", &bus, &dev, &fn, &n) == 3 && (size_t)n == pci.n) {
	} else
		return false;
	for (size_t i = 0; i < pci.n; i++)
		if (!pci_is_hex(buf[i]) && buf[i] != ':' && buf[i] != '.')
			return false;
	if (dom > 0xffff || bus > 0xff || dev > 0x1f || fn > 7)
		return false;
	snprintf(out, 16, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return true;
}
