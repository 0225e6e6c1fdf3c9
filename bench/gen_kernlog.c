/* SPDX-License-Identifier: MIT */
/* gen-kernlog: writes a deterministic kern.log (RFC 3164 syslog) of mostly noise with rare NVRM Xids,
 * and optionally frequent NVIDIA driver lines. */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Usage: gen-kernlog --bytes N [--seed S] [--xid-every K] [--nvidia-every J] -o FILE
 *
 * Lines look like an Ubuntu kern.log / syslog from rsyslog:
 *   Nov  1 00:00:03 gpu-node-07 kernel: [  123.456789] usb 1-1.2: USB disconnect, device number 5
 *   Nov  1 00:00:04 gpu-node-07 systemd[1]: Started Session 12 of User ubuntu.
 * Kernel lines keep their printk stamp (seconds since boot, a constant offset
 * from the wall clock within a boot).  One line in K (default 100000, on
 * average: a random draw per line) is an NVRM Xid with one of a few codes,
 * never within a second of another, so none folds into a burst.  The machine
 * reboots once, half-way: a "Linux version" line with the printk clock back
 * near 0.  Every line is free of the words the kernel-event classifier looks
 * for (NVRM, nvidia, "PM: ", Power, ...) except the Xids and the boot banner.
 *
 * --nvidia-every J (default 0: none) makes one kernel line in J (a random
 * draw) an NVIDIA driver line of one of the eight GPUs, as a busy GPU node
 * logs them now and then: NVRM notices (persistence mode, FBHUB interrupts),
 * nvidia-modeset warnings, NVSwitch SXids, nvidia-peermem, and one in 250 an
 * event (an NVRM assertion, a GSP control failure).  They all pass the
 * classifier's first filter, so this is the path an NVIDIA line takes.
 *
 * On stderr, after the file is written: "xids N", then "xid CODE COUNT" per
 * code, "nvrm N" (lines holding NVRM, what grep -c NVRM counts), "nvidia N"
 * (the NVIDIA lines that are not Xids) and "lines L", for the benchmark to
 * compare with the report.
 */

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static unsigned below(unsigned n)
{
	return (unsigned)(next() % n);
}

static const char *const months[12] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					"Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
static const int mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

static const int xid_codes[] = { 13, 31, 43, 45, 63, 94 };
#define NCODES (sizeof(xid_codes) / sizeof(xid_codes[0]))

/* A kernel noise message into buf (no newline). */
static int kernel_noise(char *buf, size_t n)
{
	unsigned a = below(250) + 2, b = below(250) + 1, pid = below(60000) + 300;

	switch (below(16)) {
	case 0:
	case 1:
	case 2:
	case 3:
		return snprintf(buf, n,
				"[UFW BLOCK] IN=eno1 OUT= MAC=ff:ff:ff:ff:ff:ff:3c:ec:ef:%02x:%02x:%02x "
				"SRC=10.12.%u.%u DST=10.12.%u.255 LEN=%u TOS=0x00 PREC=0x00 TTL=64 ID=%u "
				"PROTO=UDP SPT=%u DPT=%u LEN=%u",
				a, b, a ^ b, a, b, a, 60 + below(400), below(65536), 1024 + below(60000),
				below(2) ? 137 : 5353, 40 + below(380));
	case 4:
	case 5:
	case 6:
		return snprintf(buf, n,
				"audit: type=1400 audit(17%08u.%03u:%u): apparmor=\"DENIED\" operation=\"open\" "
				"class=\"file\" profile=\"snap.prometheus.daemon\" name=\"/proc/%u/mountinfo\" "
				"pid=%u comm=\"prometheus\" requested_mask=\"r\" denied_mask=\"r\" fsuid=0 ouid=0",
				below(100000000), below(1000), below(900000), pid, pid);
	case 7:
		return snprintf(buf, n, "usb 1-%u.%u: new high-speed USB device number %u using xhci_hcd",
				below(4) + 1, below(4) + 1, below(120) + 2);
	case 8:
		return snprintf(buf, n, "usb 1-%u.%u: USB disconnect, device number %u", below(4) + 1,
				below(4) + 1, below(120) + 2);
	case 9:
		return snprintf(buf, n,
				"perf: interrupt took too long (%u > %u), lowering kernel.perf_event_max_sample_rate to %u",
				2500 + below(900), 2500, 50000 + below(30000));
	case 10:
		return snprintf(buf, n, "IPv6: ADDRCONF(NETDEV_CHANGE): veth%06x: link becomes ready",
				below(0xffffff));
	case 11:
		return snprintf(buf, n, "docker0: port %u(veth%06x) entered %s state", below(40) + 1,
				below(0xffffff), below(2) ? "forwarding" : "blocking");
	case 12:
		return snprintf(buf, n, "TCP: request_sock_TCP: Possible SYN flooding on port %u. Sending cookies.  Check SNMP counters.",
				8000 + below(100));
	case 13:
		return snprintf(buf, n, "nf_conntrack: nf_conntrack: table full, dropping packet");
	case 14:
		return snprintf(buf, n, "EXT4-fs (nvme%up%u): mounted filesystem with ordered data mode. Quota mode: none.",
				below(4), below(3) + 1);
	default:
		return snprintf(buf, n, "mlx5_core 0000:%02x:00.%u: mlx5_port_module_event:%u:(pid %u): Port module event: module %u, Cable plugged",
				0x30 + below(16), below(2), 1000 + below(200), pid, below(8));
	}
}

/* An NVIDIA driver line of GPU g into buf; *nvrm is set when it holds "NVRM". */
static int nvidia_line(char *buf, size_t n, bool *nvrm)
{
	unsigned g = below(8), bus = 0x18 + 0x20 * g;

	*nvrm = true;
	switch (below(500)) {	/* events are rare: the report lists up to 10000 */
	case 0:	/* an event: EV_NVRM_OTHER, a warning */
		return snprintf(buf, n,
				"NVRM: nvAssertOkFailedNoLog: Assertion failed: Call timed out [NV_ERR_TIMEOUT] "
				"(0x00000065) returned from pRmApi->Control(pRmApi, RES_GET_CLIENT_HANDLE(pSubdevice), "
				"RES_GET_HANDLE(pSubdevice), NV2080_CTRL_CMD_PERF_BOOST, ...) @ kern_perf.c:%u",
				100 + below(900));
	case 1:	/* an event: EV_GSP_TIMEOUT */
		return snprintf(buf, n,
				"NVRM: GPU%u rpcRmApiControl_GSP: GspRmControl failed: hClient=0xc1d%05x; "
				"hObject=0x5c000009; cmd=0x20800a6a; paramsSize=0x8; paramsStatus=0x0; status=0x56",
				g, below(0xfffff));
	default:
		break;
	}
	switch (below(10)) {
	case 0:
	case 1:
	case 2:
		return snprintf(buf, n,
				"NVRM: Persistence mode is deprecated and will be removed in a future release. "
				"Please use nvidia-persistenced instead.");
	case 3:
	case 4:
		*nvrm = false;
		return snprintf(buf, n, "nvidia-modeset: WARNING: GPU:%u: Lost display notification "
				"(0:0x00000000); continuing.", g);
	case 5:
	case 6:
		return snprintf(buf, n, "NVRM: GPU%u gpuClearFbhubPoisonIntrForBug2924523_GA100: FBHUB "
				"Interrupt detected. Clearing it.", g);
	case 7:
		*nvrm = false;
		return snprintf(buf, n, "nvidia-nvswitch%u: SXid (PCI:0000:%02x:00.0): 12028, Non-fatal, "
				"Link %02u egress non-posted PRIV error (First)", g % 4, 0xc0 + g % 4 * 0x10, below(36));
	case 8:
		return snprintf(buf, n, "NVRM: GPU at 0000:%02x:00.0 has been reset; clocks %u MHz", bus,
				1410 + below(400));
	default:
		*nvrm = false;
		return snprintf(buf, n, "nvidia-peermem nv_get_p2p_free_callback:%u ERROR detected invalid "
				"context, skipping further processing", 100 + below(60));
	}
}

/* A user-space noise line: "tag[pid]: message" into buf. */
static int user_noise(char *buf, size_t n)
{
	unsigned pid = below(60000) + 300;

	switch (below(6)) {
	case 0:
		return snprintf(buf, n, "systemd[1]: Started Session %u of User ubuntu.", below(9000) + 1);
	case 1:
		return snprintf(buf, n, "systemd[1]: Starting Daily apt upgrade and clean activities...");
	case 2:
		return snprintf(buf, n, "CRON[%u]: (root) CMD (command -v debian-sa1 > /dev/null && debian-sa1 1 1)", pid);
	case 3:
		return snprintf(buf, n, "sshd[%u]: Accepted publickey for ubuntu from 10.0.%u.%u port %u ssh2: ED25519 SHA256:q1Xz%08x",
				pid, below(250), below(250), 30000 + below(30000), below(0xffffffff));
	case 4:
		return snprintf(buf, n, "systemd-resolved[812]: Using degraded feature set UDP instead of UDP+EDNS0 for DNS server 10.0.0.2.");
	default:
		return snprintf(buf, n, "containerd[%u]: time=\"2026-11-01T00:00:00Z\" level=info msg=x", pid);
	}
}

int main(int argc, char **argv)
{
	uint64_t bytes = 0, written = 0, lines = 0, xid_every = 100000, xids = 0;
	uint64_t nvidia_every = 0, nvidia = 0, nvrm = 0;
	uint64_t per_code[NCODES] = { 0 };
	const char *out = NULL;
	FILE *f;
	/* wall clock: seconds since Nov 1 00:00:00 (local, no year in the file) */
	uint64_t wall_us = 0, last_xid_us = 0;
	int64_t boot_us = -(3 * 86400LL * 1000000 + 1234567);	/* up three days at the start */
	bool rebooted = false;
	static char buf[1 << 16];
	size_t bo = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--bytes") && i + 1 < argc)
			bytes = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			rng ^= strtoull(argv[++i], NULL, 10) * 0x9E3779B97F4A7C15ULL;
		else if (!strcmp(argv[i], "--xid-every") && i + 1 < argc)
			xid_every = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--nvidia-every") && i + 1 < argc)
			nvidia_every = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else {
			fprintf(stderr, "usage: gen-kernlog --bytes N [--seed S] [--xid-every K] [--nvidia-every J] -o FILE\n");
			return 2;
		}
	}
	if (!bytes || !out || !xid_every) {
		fprintf(stderr, "usage: gen-kernlog --bytes N [--seed S] [--xid-every K] [--nvidia-every J] -o FILE\n");
		return 2;
	}
	if (!(f = fopen(out, "w"))) {
		perror(out);
		return 1;
	}
	while (written < bytes) {
		char line[1024], msg[900];
		uint64_t s = wall_us / 1000000;
		unsigned day = (unsigned)(s / 86400), mon = 10;
		bool kernel = below(10) < 8;
		int len, ml;

		/* Nov 1 + day: walk the months (no leap day is ever reached from Nov) */
		while (day >= (unsigned)mdays[mon]) {
			day -= (unsigned)mdays[mon];
			mon = (mon + 1) % 12;
		}
		if (!rebooted && written >= bytes / 2) {
			/* the reboot: the printk clock starts again near 0 */
			rebooted = true;
			boot_us = (int64_t)wall_us - 1500000;
			kernel = true;
			ml = snprintf(msg, sizeof(msg), "Linux version 6.8.0-49-generic (buildd@lcy02-amd64-103) "
					  "(x86_64-linux-gnu-gcc-13 (Ubuntu 13.2.0-23ubuntu4) 13.2.0) #49-Ubuntu SMP");
		} else if (below((unsigned)xid_every) == 0 && wall_us - last_xid_us > 1000000) {
			unsigned c = below(NCODES);
			kernel = true;
			ml = snprintf(msg, sizeof(msg),
				      "NVRM: Xid (PCI:0000:%02x:00): %d, pid=%u, name=python3, Ch 00000008",
				      0x18 + 0x20 * below(8), xid_codes[c], below(60000) + 300);
			per_code[c]++;
			xids++;
			nvrm++;
			last_xid_us = wall_us;
		} else if (kernel && nvidia_every && below((unsigned)nvidia_every) == 0) {
			bool has_nvrm;
			ml = nvidia_line(msg, sizeof(msg), &has_nvrm);
			nvrm += has_nvrm;
			nvidia++;
		} else {
			ml = kernel ? kernel_noise(msg, sizeof(msg)) : user_noise(msg, sizeof(msg));
		}
		(void)ml;
		if (kernel) {
			uint64_t mono = (uint64_t)((int64_t)wall_us - boot_us);
			len = snprintf(line, sizeof(line), "%s %2u %02u:%02u:%02u gpu-node-07 kernel: [%5llu.%06llu] %s\n",
				       months[mon], day + 1, (unsigned)(s / 3600 % 24), (unsigned)(s / 60 % 60),
				       (unsigned)(s % 60), (unsigned long long)(mono / 1000000),
				       (unsigned long long)(mono % 1000000), msg);
		} else {
			len = snprintf(line, sizeof(line), "%s %2u %02u:%02u:%02u gpu-node-07 %s\n", months[mon],
				       day + 1, (unsigned)(s / 3600 % 24), (unsigned)(s / 60 % 60),
				       (unsigned)(s % 60), msg);
		}
		if (bo + (size_t)len > sizeof(buf)) {
			fwrite(buf, 1, bo, f);
			bo = 0;
		}
		memcpy(buf + bo, line, (size_t)len);
		bo += (size_t)len;
		written += (uint64_t)len;
		lines++;
		wall_us += 50000 + below(200000);	/* 0.05-0.25 s between lines */
	}
	fwrite(buf, 1, bo, f);
	if (fclose(f)) {
		perror(out);
		return 1;
	}
	fprintf(stderr, "xids %llu\n", (unsigned long long)xids);
	for (size_t c = 0; c < NCODES; c++)
		fprintf(stderr, "xid %d %llu\n", xid_codes[c], (unsigned long long)per_code[c]);
	fprintf(stderr, "nvrm %llu\n", (unsigned long long)nvrm);
	fprintf(stderr, "nvidia %llu\n", (unsigned long long)nvidia);
	fprintf(stderr, "lines %llu\n", (unsigned long long)lines);
	return 0;
}
