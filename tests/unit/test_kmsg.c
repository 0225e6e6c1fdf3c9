/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the kernel message classifier (formats/kmsg.h) and the
 * placing of printk times (formats/anchor.h).  Every expected code, address,
 * pid and name below was read off the line by hand; the Xid lines are the
 * ones of ../shared/docs/formats.md 3.1.1 and 12.
 */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/anchor.h"
#include "formats/format.h"
#include "formats/kmsg.h"
#include "util/pci.h"

#define S(lit) ((struct slice){ (lit), sizeof(lit) - 1 })
#define NOTAG ((struct slice){ "", 0 })

static bool slice_is(struct slice s, const char *want)
{
	if (!want)
		return s.n == 0;
	return s.n == strlen(want) && !memcmp(s.p, want, s.n);
}

static const struct {
	const char *line;
	int code;
	const char *pci;	/* normalised; NULL: none */
	long pid;		/* -1: none */
	const char *name;	/* NULL: none */
} shapes[] = {
	{ "NVRM: Xid (0000:01:00): 31, Ch 0000000b, engmask 00000120, intr 10000000", 31, "0000:01:00.0", -1, NULL },
	{ "NVRM: Xid (PCI:0000:01:00): 32, Channel ID 00000005 intr 00008000", 32, "0000:01:00.0", -1, NULL },
	{ "NVRM: Xid (PCI:0000:01:00): 31, Ch 0000005a, intr 10000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_1 faulted @ 0x0_00000000. Fault is of type FAULT_PDE ACCESS_TYPE_READ", 31, "0000:01:00.0", -1, NULL },
	{ "NVRM: Xid (PCI:0000:c1:00): 31, pid=12890, Ch 0000003b, intr 00000000. MMU Fault: ENGINE HOST0 HUBCLIENT_HOST_CPU faulted @ 0x1_0c3c0000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE", 31, "0000:c1:00.0", 12890, NULL },
	{ "NVRM: Xid (PCI:0000:01:00): 31, pid=13705, name=UnrealEditor, channel 0x0000000c, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC2 GPCCLIENT_PROP_0 faulted @ 0x0_00000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ", 31, "0000:01:00.0", 13705, "UnrealEditor" },
	{ "NVRM: Xid (PCI:0000:01:00): 13, Graphics Exception: ESR 0x404000=0x80000002", 13, "0000:01:00.0", -1, NULL },
	{ "NVRM: Xid (PCI:0000:01:00): 13, Graphics SM Warp Exception on (GPC 1, TPC 0): Out Of Range Address", 13, "0000:01:00.0", -1, NULL },
	{ "NVRM: Xid (PCI:0000:01:00): 62, 0096(1c54) 00000000 00000000", 62, "0000:01:00.0", -1, NULL },
	{ "NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row marked for remapping, reset gpu to activate.", 63, "0000:10:1c.0", 1896, NULL },
	{ "NVRM: Xid (PCI:0000:3b:00): 94, pid='<unknown>', name=<unknown>, Ch 00000008", 94, "0000:3b:00.0", -1, NULL },
	{ "NVRM: Xid (PCI:0000:01:00): 95, pid=7062, Uncontained: LTC TAG (0x2,0x0). RST: Yes, D-RST: No", 95, "0000:01:00.0", 7062, NULL },
	{ "NVRM: Xid (PCI:0000:10:00): 79, pid=0, GPU has fallen off the bus.", 79, "0000:10:00.0", 0, NULL },
	{ "NVRM: Xid (PCI:0000:02:00): 79, pid=9962, name=python, GPU has fallen off the bus.", 79, "0000:02:00.0", 9962, "python" },
	{ "NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.", 79, "0000:2b:00.0", -1, NULL },
	{ "NVRM: Xid (PCI:0000:61:00): 119, pid=123417, name=nv-hostengine, Timeout after 6s of waiting for RPC response from GPU0 GSP! Expected function 10 (FREE) (0xc0000005 0x0).", 119, "0000:61:00.0", 123417, "nv-hostengine" },
	{ "NVRM: Xid (PCI:0000:0d:00): 51, BAD_TSG encountered on runlist: 0 with error code: 4", 51, "0000:0d:00.0", -1, NULL },
	{ "NVRM: Xid (PCI:0018:01:00): 149, NETIR_INT  Fatal   XC0 i0 Link -1", 149, "0018:01:00.0", -1, NULL },
	{ "NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)", 154, "0000:01:00.0", -1, NULL },
	{ "NVRM: Xid (PCI:0008:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)", 154, "0008:01:00.0", -1, NULL },
	/* function digit, upper case hex, Arm domain */
	{ "NVRM: Xid (PCI:0000:01:00.0): 13, Graphics Exception", 13, "0000:01:00.0", -1, NULL },
	{ "NVRM: Xid (PCI:0000:9B:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous Xid 149", 45, "0000:9b:00.0", 1818990, "python3" },
	{ "NVRM: Xid (PCI:0004:01:00): 154, GPU recovery action changed from 0x4 (Drain and Reset) to 0x1 (GPU Reset Required)", 154, "0004:01:00.0", -1, NULL },
	/* no address: a paraphrase, and the synthetic "Xid (79):" */
	{ "NVRM: Xid 154, GPU recovery action changed to 0x2 (Node Reboot Required)", 154, NULL, -1, NULL },
	{ "NVRM: Xid (79): GPU has fallen off the bus on nvidia1", 79, NULL, -1, NULL },
	/* 12.6: unknown codes, a redacted address; 12.10 names cut or with colons */
	{ "NVRM: Xid (PCI:...): 137, pid=4242, name=ray::WorkerDict, Ch 00000010", 137, NULL, 4242, "ray::WorkerDict" },
	{ "NVRM: Xid (PCI:0000:3b:00): 44, pid=77, name=gpu-feature-dis, Ch 00000001", 44, "0000:3b:00.0", 77, "gpu-feature-dis" },
	{ "NVRM: Xid (PCI:0000:01:00): 64, Dynamic Page Retirement: Blacklisting failed.", 64, "0000:01:00.0", -1, NULL },
	{ "NVRM: Xid (PCI:0000:01:00): 13, pid=9, name=nvc:[driver], MMU Fault: ENGINE GRAPHICS", 13, "0000:01:00.0", 9, "nvc:[driver]" },
};

static void test_xid_shapes(void **s)
{
	(void)s;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct kmsg k;
		char norm[16];
		struct slice line = { shapes[i].line, strlen(shapes[i].line) };
		if (!kmsg_classify(line, NOTAG, &k))
			fail_msg("not classified: %s", shapes[i].line);
		assert_int_equal(k.ev, EV_XID);
		if (k.code != shapes[i].code)
			fail_msg("code %d, want %d: %s", k.code, shapes[i].code, shapes[i].line);
		if (shapes[i].pci) {
			assert_true(pci_norm(k.pci, norm));
			assert_string_equal(norm, shapes[i].pci);
		} else {
			assert_false(k.pci.n && pci_norm(k.pci, norm));
		}
		if (k.pid != shapes[i].pid)
			fail_msg("pid %ld, want %ld: %s", (long)k.pid, shapes[i].pid, shapes[i].line);
		if (!slice_is(k.proc, shapes[i].name))
			fail_msg("name '%.*s', want '%s'", (int)k.proc.n, k.proc.p,
				 shapes[i].name ? shapes[i].name : "");
		assert_true(kmsg_maybe(shapes[i].line, strlen(shapes[i].line)));
	}
}

/* the flags and severities the issue names: 79 and 48 fatal, 45 a consequence,
 * 154 by its action (the number wins over the label) */
static void test_xid_verdicts(void **s)
{
	struct kmsg k;

	(void)s;
	assert_true(kmsg_classify(S("NVRM: Xid (PCI:0000:01:00): 45, pid=1, Ch 00000001"), NOTAG, &k));
	assert_true(k.flags & KF_CONSEQUENCE);
	assert_false(k.flags & KF_DOWN);
	assert_true(kmsg_classify(S("NVRM: Xid (PCI:0000:01:00): 48, DBE (double bit error) ECC error"), NOTAG, &k));
	assert_true(k.flags & KF_DOWN);
	assert_int_equal(k.severity, KS_FATAL);
	assert_true(kmsg_classify(S("NVRM: Xid (PCI:0000:01:00): 13, x"), NOTAG, &k));
	assert_int_equal(k.klass, KC_APP);
	assert_false(k.flags & KF_DOWN);

	assert_true(kmsg_classify(S("NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)"), NOTAG, &k));
	assert_string_equal(k.ctext, "Node Reboot Required");
	assert_true(k.flags & KF_DOWN);
	/* the number wins: 0x0 is None, whatever the label says */
	assert_true(kmsg_classify(S("NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x2 (Node Reboot Required) to 0x0 (GPU Reset Required)"), NOTAG, &k));
	assert_string_equal(k.ctext, "None");
	assert_false(k.flags & KF_DOWN);
	assert_true(kmsg_classify(S("NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x3 (Drain P2P)"), NOTAG, &k));
	assert_string_equal(k.ctext, "Drain P2P");
	assert_false(k.flags & KF_DOWN);
	assert_true(kmsg_classify(S("NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed to OS Reboot"), NOTAG, &k));
	assert_string_equal(k.ctext, "Node Reboot Required");
	assert_true(kmsg_classify(S("NVRM: Xid (PCI:0000:01:00): 149, NETIR_INT  Nonfatal   XC0 i0 Link 3"), NOTAG, &k));
	assert_int_equal(k.severity, KS_WARNING);
	/* unknown code: kept */
	assert_true(kmsg_classify(S("NVRM: Xid (PCI:0000:01:00): 999, something new"), NOTAG, &k));
	assert_int_equal(k.code, 999);
	assert_true(slice_is(k.text, "something new"));
	/* not Xid lines */
	assert_false(kmsg_classify(S("NVRM: Xidden (PCI:0000:01:00): 13, x"), NOTAG, &k));
	assert_false(kmsg_classify(S("NVRM: Xid (PCI:0000:01:00) no code"), NOTAG, &k));
}

static void test_companions(void **s)
{
	struct kmsg k;
	char norm[16];

	(void)s;
	assert_true(kmsg_classify(S("NVRM: GPU at PCI:0000:01:00: GPU-4e391288-897c-ba5d-6944-dfbea55ebcfa"), NOTAG, &k));
	assert_int_equal(k.ev, EV_GPU_MAP);
	assert_true(slice_is(k.uuid, "GPU-4e391288-897c-ba5d-6944-dfbea55ebcfa"));
	assert_true(pci_norm(k.pci, norm));
	assert_string_equal(norm, "0000:01:00.0");
	/* 12.2: the same beginnings that are not events */
	assert_false(kmsg_classify(S("NVRM: Rate limiting GSP RPC error prints for GPU at PCI:0000:9b:00 (printing 1 of every 30)."), NOTAG, &k));
	assert_false(kmsg_classify(S("NVRM: GPU at 0000:01:00.0 has software scheduler ENABLED with policy BEST_EFFORT."), NOTAG, &k));
	assert_false(kmsg_classify(S("NVRM: GPU Board Serial Number: 0322518027985"), NOTAG, &k));

	assert_true(kmsg_classify(S("NVRM: GPU at 0000:02:00.0 has fallen off the bus."), NOTAG, &k));
	assert_int_equal(k.ev, EV_FALLEN_OFF);
	assert_true(k.flags & KF_DOWN);
	assert_true(pci_norm(k.pci, norm));
	assert_string_equal(norm, "0000:02:00.0");
	assert_true(kmsg_classify(S("NVRM: GPU 0000:01:00.0: GPU has fallen off the bus."), NOTAG, &k));
	assert_int_equal(k.ev, EV_FALLEN_OFF);
	assert_true(kmsg_classify(S("NVRM: GPU-0000:3b:00: RmInitAdapter failed!"), NOTAG, &k));
	assert_int_equal(k.ev, EV_RMINIT_FAILED);
	assert_true(pci_norm(k.pci, norm));
	assert_string_equal(norm, "0000:3b:00.0");

	assert_true(kmsg_classify(S("NVRM: loading NVIDIA UNIX x86_64 Kernel Module  525.147.01  Wed Oct 11 10:20:43 UTC 2023"), NOTAG, &k));
	assert_int_equal(k.ev, EV_DRIVER_LOAD);
	assert_true(slice_is(k.text, "525.147.01"));
	assert_true(kmsg_classify(S("NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)  "), NOTAG, &k));
	assert_true(slice_is(k.text, "580.159.04"));
	/* 12.9: a 12-hour build time, no date */
	assert_true(kmsg_classify(S("NVRM: loading NVIDIA UNIX Open Kernel Module for aarch64  575.51.03  Release Build  (dvs-builder@U16-A24-23-2)  Fri Jul  3 11:27:00 AM UTC 2026"), NOTAG, &k));
	assert_true(slice_is(k.text, "575.51.03"));

	assert_true(kmsg_classify(S("nvidia-modeset: ERROR: GPU:0: Error while waiting for GPU progress: 0x0000ca7d:0 2:0:200:192"), NOTAG, &k));
	assert_int_equal(k.ev, EV_MODESET_ERROR);
	assert_false(kmsg_classify(S("nvidia-modeset: WARNING: GPU:0: Lost display notification (0:0x00000000); continuing."), NOTAG, &k));

	assert_true(kmsg_classify(S("nvidia 0000:01:00.0: AER: can't recover (no error_detected callback)"), NOTAG, &k));
	assert_int_equal(k.ev, EV_PCIE_AER);
	assert_true(pci_norm(k.pci, norm));
	assert_string_equal(norm, "0000:01:00.0");
	/* a root port's line names the bridge: not an NVIDIA event */
	assert_false(kmsg_classify(S("pcieport 0000:00:01.0: PCIe Bus Error: severity=Uncorrectable (Non-Fatal), type=Transaction Layer, (Requester ID)"), NOTAG, &k));

	assert_true(kmsg_classify(S("NVRM: GPU6 _kgspRpcRecvPoll: RPC timed out waiting for GSP"), NOTAG, &k));
	assert_int_equal(k.ev, EV_GSP_TIMEOUT);
	assert_true(slice_is(k.text, "GPU6"));
	assert_true(kmsg_classify(S("NVRM: knvlinkCoreShutdownDeviceLinks_IMPL: NVLink link 3 fatal error detected"), NOTAG, &k));
	assert_int_equal(k.ev, EV_NVLINK_ERROR);
	assert_false(kmsg_classify(S("nvidia-nvlink: Nvlink Core is being initialized, major device number 240"), NOTAG, &k));

	/* crash dump notice: the first line an event, the next ones continuations */
	assert_true(kmsg_classify(S("NVRM: A GPU crash dump has been created. If possible, please run"), NOTAG, &k));
	assert_false(kmsg_classify(S("NVRM: nvidia-bug-report.sh as root to collect this data before"), NOTAG, &k));
	assert_int_equal(k.cont, KM_CONT_CRASHDUMP);
}

static void test_system(void **s)
{
	struct kmsg k;

	(void)s;
	assert_true(kmsg_classify(S("Lid closed."), S("systemd-logind"), &k));
	assert_int_equal(k.ev, EV_LID);
	assert_int_equal(k.code, 0);
	assert_true(kmsg_classify(S("Lid opened."), S("systemd-logind"), &k));
	assert_int_equal(k.code, 1);
	assert_true(kmsg_classify(S("Power key pressed short."), S("systemd-logind"), &k));
	assert_int_equal(k.ev, EV_POWER_KEY);
	assert_true(slice_is(k.text, "short"));
	assert_true(kmsg_classify(S("The system will suspend now!"), S("systemd-logind"), &k));
	assert_int_equal(k.ev, EV_SUSPEND);
	assert_true(kmsg_classify(S("System is powering down."), S("systemd-logind"), &k));
	assert_int_equal(k.ev, EV_POWER_OFF);
	/* logind words under another tag are not logind's */
	assert_false(kmsg_classify(S("Lid closed."), S("myapp"), &k));
	assert_false(kmsg_classify(S("Watching system buttons on /dev/input/event2 (Lid Switch)"), S("systemd-logind"), &k));

	assert_true(kmsg_classify(S("PM: suspend entry (deep)"), S("kernel"), &k));
	assert_int_equal(k.ev, EV_SUSPEND);
	assert_true(kmsg_classify(S("PM: suspend exit"), NOTAG, &k));
	assert_int_equal(k.ev, EV_RESUME);
	assert_true(kmsg_classify(S("ac_adapter ACPI0003:00 00000080 00000001"), S("acpid"), &k));
	assert_int_equal(k.ev, EV_AC_ON);
	assert_true(kmsg_classify(S("received input layer event \"ac_adapter ACPI0003:00 00000080 00000000\""), S("acpid"), &k));
	assert_int_equal(k.ev, EV_AC_OFF);
	assert_true(kmsg_classify(S("button/lid LID close"), S("acpid"), &k));
	assert_int_equal(k.ev, EV_LID);
	assert_int_equal(k.code, 0);
	assert_true(kmsg_classify(S("ACPI: AC: AC Adapter [AC] (on-line)"), NOTAG, &k));
	assert_int_equal(k.ev, EV_AC_ON);

	assert_true(kmsg_classify(S("time=\"2026-11-29T22:46:33.1Z\" level=info msg=\"starting signal loop\" namespace=moby path=/run/containerd/io.containerd.runtime.v2.task/moby/4f2a9c81 pid=4242 runtime=io.containerd.runc.v2"), S("containerd"), &k));
	assert_int_equal(k.ev, EV_CONTAINER_START);
	assert_true(slice_is(k.text, "4f2a9c81"));
	assert_true(kmsg_classify(S("time=\"2026-11-29T22:50:00Z\" level=info msg=\"shim disconnected\" id=4f2a9c81 namespace=moby"), S("containerd"), &k));
	assert_int_equal(k.ev, EV_CONTAINER_STOP);
	assert_true(slice_is(k.text, "4f2a9c81"));
	assert_true(kmsg_classify(S("time=\"2026-11-29T22:50:00Z\" level=info msg=\"ignoring event\" container=4f2a9c81 module=libcontainerd namespace=moby topic=/tasks/delete type=\"*events.TaskDelete\""), S("dockerd"), &k));
	assert_int_equal(k.ev, EV_CONTAINER_STOP);
	assert_true(slice_is(k.text, "4f2a9c81"));

	/* noise */
	assert_false(kmsg_maybe("usb 3-2: new high-speed USB device number 4", 43));
	assert_false(kmsg_classify(S("EXT4-fs (nvme0n1p2): mounted filesystem"), S("kernel"), &k));
}

static void test_pci_norm(void **s)
{
	char o[16];

	(void)s;
	assert_true(pci_norm(S("0000:3B:00"), o));
	assert_string_equal(o, "0000:3b:00.0");
	assert_true(pci_norm(S("0018:01:00.1"), o));
	assert_string_equal(o, "0018:01:00.1");
	assert_true(pci_norm(S("01:00.0"), o));
	assert_string_equal(o, "0000:01:00.0");
	assert_false(pci_norm(S("..."), o));
	assert_false(pci_norm(S("0000:01:20"), o));	/* device 0x20 > 0x1f */
	assert_false(pci_norm(S("0000:01:00.8"), o));
	assert_false(pci_norm(S("+000:01:00"), o));
}

/* A burst of Xid 13 lines of one GPU within 10 ms is one record of count 3;
 * the same code on another GPU, or 100 ms later, is another. */
static void test_fold(void **s)
{
	struct batch b = { 0 };
	struct parse_ctx ctx = { 0 };
	struct kmsg_fold f = { 0 };
	const int64_t ms = 1000000;

	(void)s;
	for (int i = 0; i < 4; i++)
		b.last_str[i] = STR_NONE;
	ctx.out = &b;
	kmsg_emit_fold(&ctx, &f, S("NVRM: Xid (PCI:0000:01:00): 13, a"), NOTAG, 1000 * ms, TK_BOOT, 0, 1);
	kmsg_emit_fold(&ctx, &f, S("NVRM: Xid (PCI:0000:01:00): 13, b"), NOTAG, 1004 * ms, TK_BOOT, 0, 1);
	kmsg_emit_fold(&ctx, &f, S("NVRM: Xid (PCI:0000:01:00.0): 13, c"), NOTAG, 1008 * ms, TK_BOOT, 0, 1);
	kmsg_emit_fold(&ctx, &f, S("NVRM: Xid (PCI:0000:02:00): 13, d"), NOTAG, 1009 * ms, TK_BOOT, 0, 1);
	kmsg_emit_fold(&ctx, &f, S("NVRM: Xid (PCI:0000:02:00): 13, e"), NOTAG, 1109 * ms, TK_BOOT, 0, 1);
	assert_int_equal(b.nr, 3);
	assert_int_equal(b.recs[0].kev.count, 3);
	assert_true(b.recs[0].kev.flags & KF_BURST);
	assert_int_equal(b.recs[1].kev.count, 1);
	assert_int_equal(b.recs[2].kev.count, 1);
	assert_int_equal(b.recs[2].t_ns, 1109 * ms);
	free(b.recs);
	free(b.strs);
}

/* The docs table (docs/kernel-events.md, "Xid catalog") is the code's table. */
static void test_catalog_docs(void **s)
{
	static const char *const sev[] = { "info", "warning", "error", "fatal" };
	FILE *fp = fopen("docs/kernel-events.md", "r");
	char line[1024], want[1024];
	size_t i = 0;
	bool in = false;

	(void)s;
	if (!fp)
		fp = fopen("../docs/kernel-events.md", "r");
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "## ", 3))
			in = !strcmp(line, "## Xid catalog");
		if (!in || line[0] != '|' || line[2] < '0' || line[2] > '9')
			continue;
		const struct xid_info *x = xid_catalog_at(i++);
		if (!x)
			fail_msg("docs list more Xids than the code: %s", line);
		snprintf(want, sizeof(want), "| %d | %s | %s | %s | %s | %s |", x->code, x->group,
			 kev_class_name[x->klass], sev[x->severity],
			 x->flags & KF_DOWN ? "down" : x->flags & KF_CONSEQUENCE ? "consequence" : "",
			 x->meaning);
		/* an empty cell is written "|  |" */
		if (strcmp(line, want))
			fail_msg("docs and code differ:\n  docs: %s\n  code: %s", line, want);
	}
	fclose(fp);
	assert_int_equal(i, xid_catalog_count());
	/* sorted, so that xid_lookup's binary search finds every code */
	for (size_t k = 0; k < xid_catalog_count(); k++)
		assert_ptr_equal(xid_lookup(xid_catalog_at(k)->code), xid_catalog_at(k));
	assert_null(xid_lookup(137));
}

static struct rec ev_at(int64_t mono_ns, int ev)
{
	struct rec r;

	memset(&r, 0, sizeof(r));
	r.kind = REC_EVENT;
	r.time_kind = TK_BOOT;
	r.ev = (uint8_t)ev;
	r.t_ns = mono_ns;
	r.uuid = r.name = STR_NONE;
	r.kev.pci = r.kev.proc = r.kev.text = STR_NONE;
	r.kev.count = 1;
	return r;
}

/* Boots: an EV_BOOT record after others, and the clock going back by more than 1 s. */
static void test_boots(void **s)
{
	struct kboot_seq q = { 0 };
	const int64_t S1 = 1000000000;
	struct rec r;

	(void)s;
	r = ev_at(0, EV_BOOT);
	assert_int_equal(kboot_next(&q, &r), 0);	/* the first boot's own line */
	r = ev_at(500 * S1, EV_XID);
	assert_int_equal(kboot_next(&q, &r), 0);
	r = ev_at(499 * S1 + S1 / 2, EV_XID);		/* back 0.5 s: the same boot */
	assert_int_equal(kboot_next(&q, &r), 0);
	r = ev_at(0, EV_BOOT);
	assert_int_equal(kboot_next(&q, &r), 1);
	r = ev_at(200 * S1, EV_XID);
	assert_int_equal(kboot_next(&q, &r), 1);
	r = ev_at(10 * S1, EV_XID);			/* back 190 s, no marker */
	assert_int_equal(kboot_next(&q, &r), 2);
	assert_int_equal(r.kev.boot, 2);
}

/*
 * Plans: a dmesg of two boots (input 0), a clock reference (input 1) and a
 * syslog with clock pairs around a suspend (input 2).  Offsets by hand:
 * clock ref wall 1000250.5 s at uptime 250.5 s: boot time 1000000.0 s.
 */
static void test_plans(void **s)
{
	const int64_t S1 = 1000000000;
	struct anc_collect *c = anc_collect_new(3);
	const char *names[3] = { "dmesg.txt", "clock_ref_end.txt", "kern.log" };
	char b0[320] = "", b1[320] = "", b2[320] = "";
	char *basis[3] = { b0, b1, b2 };
	struct anc_plan *plans[3] = { NULL, NULL, NULL };
	bool has[3];
	struct batch b = { 0 };
	struct rec r;
	int64_t t;

	(void)s;
	/* input 0: boot 0 spans 10..9000 s, boot 1 spans 5..200 s */
	r = ev_at(10 * S1, EV_XID);
	anc_collect_rec(c, 0, &r, &b);
	r = ev_at(9000 * S1, EV_XID);
	anc_collect_rec(c, 0, &r, &b);
	r = ev_at(5 * S1, EV_XID);
	r.kev.boot = 1;
	anc_collect_rec(c, 0, &r, &b);
	r = ev_at(200 * S1, EV_XID);
	r.kev.boot = 1;
	anc_collect_rec(c, 0, &r, &b);
	/* input 1: the clock reference */
	memset(&r, 0, sizeof(r));
	r.kind = REC_ANCHOR;
	r.t_ns = 1000250 * S1 + S1 / 2;
	r.anc.mono_ns = 250 * S1 + S1 / 2;
	r.anc.boot_id = STR_NONE;
	r.anc.quality = ANC_Q_CLOCK_REF;
	r.name = STR_NONE;
	anc_collect_rec(c, 1, &r, &b);
	anc_decide(c, names, INT64_MIN, plans, basis, sizeof(b0), has);
	assert_true(has[0]);
	assert_false(has[1]);
	/* boot 0 ended before boot 1: unplaced; boot 1 (the last) fits the reference */
	assert_false(anc_place(plans[0], 0, 10 * S1, &t));
	assert_true(anc_place(plans[0], 1, 100 * S1, &t));
	assert_int_equal(t, 1000100 * S1);
	if (!strstr(b0, "boot 0: unplaced"))
		fail_msg("basis: %s", b0);
	assert_non_null(strstr(b0, "clock_ref_end.txt"));
	anc_plan_free(plans[0]);
	plans[0] = NULL;

	/* --boot-time comes before the clock reference */
	anc_decide(c, names, 2000000 * S1, plans, basis, sizeof(b0), has);
	assert_true(anc_place(plans[0], 1, 100 * S1, &t));
	assert_int_equal(t, 2000100 * S1);
	anc_plan_free(plans[0]);
	plans[0] = NULL;

	/* input 2: clock pairs of the same boot (boot time 1000000.3 s, within
	 * 2 s of the reference's), then a 600 s suspend at printk 150 s:
	 * they win over both, and split the offset */
	memset(&r, 0, sizeof(r));
	r.kind = REC_ANCHOR;
	r.anc.boot_id = STR_NONE;
	r.name = STR_NONE;
	r.t_ns = 1000100 * S1 + 3 * S1 / 10;
	r.anc.mono_ns = 100 * S1;
	anc_collect_rec(c, 2, &r, &b);
	r.t_ns = 1000750 * S1 + 3 * S1 / 10;
	r.anc.mono_ns = 150 * S1;
	anc_collect_rec(c, 2, &r, &b);
	anc_decide(c, names, 2000000 * S1, plans, basis, sizeof(b0), has);
	assert_true(anc_place(plans[0], 1, 100 * S1, &t));
	assert_int_equal(t, 1000100 * S1 + 3 * S1 / 10);
	assert_true(anc_place(plans[0], 1, 160 * S1, &t));
	assert_int_equal(t, 1000760 * S1 + 3 * S1 / 10);
	assert_non_null(strstr(b0, "kern.log"));
	anc_plan_free(plans[0]);
	anc_plan_free(plans[2]);
	anc_collect_free(c);
}

/*
 * kmsg_maybe() finds its words in one pass (kmsg.c): on random text with
 * each word, a cut prefix and a cut suffix of it planted at every offset,
 * it must agree with the plain definition, any word by memmem().
 */
static bool maybe_ref(const char *m, size_t n)
{
	static const char *const words[] = { "NVRM: ", "[10de:", "ac_adapter", "button/lid",
					     "The system will", "System is ", "key pressed", "msg=\"" };

	if (n < 3)
		return false;
	switch (m[0]) {
	case 'N': return n >= 4 && !memcmp(m, "NVRM", 4);
	case 'n': return n >= 6 && !memcmp(m, "nvidia", 6);
	case 'P': return (n >= 4 && !memcmp(m, "PM: ", 4)) || (n >= 5 && !memcmp(m, "Power", 5));
	case 'A': return n >= 8 && !memcmp(m, "ACPI: AC", 8);
	case 'L': return n >= 4 && !memcmp(m, "Lid ", 4);
	default: break;
	}
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (memmem(m, n, words[i], strlen(words[i])))
			return true;
	return false;
}

static void test_maybe_words(void **s)
{
	static const char *const words[] = { "NVRM: ", "[10de:", "ac_adapter", "button/lid",
					     "The system will", "System is ", "key pressed", "msg=\"" };
	/* the bytes of the words' pairs, so near misses are frequent */
	static const char alphabet[] = "VR0dc_n/ThSykeg= NVRM:[10de:acdptrbuolisywmkx\"";
	uint64_t x = 12345;
	char buf[64];
	unsigned agree = 0, hits = 0;

	(void)s;
	for (int round = 0; round < 400; round++) {
		for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
			size_t wl = strlen(words[w]);
			for (size_t n = 0; n <= 40; n += 1 + round % 3) {
				for (size_t off = 0; off + 1 <= n + wl; off++) {
					for (size_t i = 0; i < n; i++) {
						x ^= x << 13, x ^= x >> 7, x ^= x << 17;
						buf[i] = alphabet[x % (sizeof(alphabet) - 1)];
					}
					/* the word at off, cut by the end of the message when it runs over */
					for (size_t i = 0; i < wl && off + i < n; i++)
						buf[off + i] = words[w][i];
					bool got = kmsg_maybe(buf, n), want = maybe_ref(buf, n);
					if (got != want)
						fail_msg("kmsg_maybe('%.*s') = %d, want %d", (int)n, buf, got, want);
					agree++;
					hits += want;
				}
			}
		}
	}
	assert_true(hits > 1000 && agree - hits > 1000);	/* both answers were tried */
}

/*
 * Each way kmsg_maybe() searches for its words (the table loop, SSE2 blocks
 * of 16, AVX2 blocks of 32 where the CPU has it) on random text up to 200
 * bytes, so that every block count, every overlap of the last block and
 * every cut of a word at the end is tried, against memmem().
 */
static bool words_ref(const char *m, size_t n)
{
	static const char *const words[] = { "NVRM: ", "[10de:", "ac_adapter", "button/lid",
					     "The system will", "System is ", "key pressed", "msg=\"" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (memmem(m, n, words[i], strlen(words[i])))
			return true;
	return false;
}

static void test_maybe_simd(void **s)
{
	static const char *const words[] = { "NVRM: ", "[10de:", "ac_adapter", "button/lid",
					     "The system will", "System is ", "key pressed", "msg=\"" };
	static const char alphabet[] = "VR0dc_n/ThSykeg= NVRM:[10de:acdptrbuolisywmkx\"\x80\xff\xe0";
	uint64_t x = 99991;
	char buf[208];
	unsigned tried[3] = { 0 }, hits = 0;

	(void)s;
	for (int round = 0; round < 60; round++) {
		for (size_t n = 0; n <= 200; n++) {
			size_t w = (size_t)(x % 8), wl = strlen(words[w]), off;
			for (size_t i = 0; i < n; i++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				buf[i] = alphabet[x % (sizeof(alphabet) - 1)];
			}
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			/* a word (or its cut prefix at the end) at a random place, in
			 * two rounds of three; none in the third */
			off = (size_t)(x >> 8) % (n + 1);
			if (round % 3 != 2)
				for (size_t i = 0; i < wl && off + i < n; i++)
					buf[off + i] = words[w][i];
			bool want = words_ref(buf, n);
			hits += want;
			for (int simd = KMSG_SIMD_NONE; simd <= KMSG_SIMD_AVX2; simd++) {
				int got = kmsg_maybe_words_with(buf, n, (enum kmsg_simd)simd);
				if (got < 0)
					continue;
				if (got != want)
					fail_msg("way %d on '%.*s' (n %zu) = %d, want %d", simd, (int)n, buf, n,
						 got, want);
				tried[simd]++;
			}
		}
	}
	assert_true(hits > 2000 && tried[0] - hits > 2000);
	assert_int_equal(tried[0], 60 * 201);
#ifdef __SSE2__
	assert_int_equal(tried[1], 60 * 201);
#endif
	if (tried[2] == 0)
		printf("# AVX2 way not tried: not on this CPU\n");
}

/*
 * kmsg_find() against memmem(): words of 0 to 24 bytes in text of 0 to 200
 * bytes over a small alphabet (so that first and last bytes meet often
 * where the word is not), with the word planted, cut by the end, or twice
 * (the first must be found), at every length: each block count, each tail.
 */
static void test_find(void **s)
{
	static const char alphabet[] = "NVRM: GPUabe\x80\xff";
	uint64_t x = 4242;
	char buf[232], w[32];
	unsigned found = 0, tried = 0;

	(void)s;
	for (int round = 0; round < 40; round++) {
		for (size_t n = 0; n <= 200; n++) {
			for (size_t m = 0; m <= 24; m += 1 + (size_t)(round % 2)) {
				for (size_t i = 0; i < n; i++) {
					x ^= x << 13, x ^= x >> 7, x ^= x << 17;
					buf[i] = alphabet[x % (sizeof(alphabet) - 1)];
				}
				for (size_t i = 0; i < m; i++) {
					x ^= x << 13, x ^= x >> 7, x ^= x << 17;
					w[i] = alphabet[x % 6];	/* "NVRM: ": repeats inside */
				}
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				size_t off = (size_t)(x >> 8) % (n + 1), off2 = (size_t)(x >> 24) % (n + 1);
				if (round % 4 != 3)
					for (size_t i = 0; i < m && off + i < n; i++)
						buf[off + i] = w[i];
				if (round % 4 == 1)
					for (size_t i = 0; i < m && off2 + i < n; i++)
						buf[off2 + i] = w[i];
				const char *want = memmem(buf, n, w, m), *got = kmsg_find(buf, n, w, m);
				if (got != want)
					fail_msg("kmsg_find('%.*s', '%.*s') at %td, memmem at %td", (int)n, buf, (int)m,
						 w, got ? got - buf : -1, want ? want - buf : -1);
				found += want != NULL;
				tried++;
			}
		}
	}
	assert_true(found > 20000 && tried - found > 20000);
}

/*
 * kmsg_error_word() against a memmem() for each of its thirteen words, on
 * random text of 0 to 120 bytes made of the words' letters (near misses:
 * "Erro", "faital", "timed ou"), with a word planted or cut by the end.
 */
static void test_error_word(void **s)
{
	static const char *const words[] = { "error", "Error", "ERROR", "failed", "Failed", "FAILED",
					     "fail", "Assertion", "timeout", "Timeout", "timed out",
					     "fatal", "Fatal" };
	static const char alphabet[] = "eErRoOfFaAiIlLdDtTmu sn";
	uint64_t x = 777;
	char buf[128];
	unsigned hits = 0, tried = 0;

	(void)s;
	for (int round = 0; round < 3000; round++) {
		size_t n = (size_t)round % 121;
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			buf[i] = alphabet[x % (sizeof(alphabet) - 1)];
		}
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		if (round % 3 != 2) {
			const char *w = words[(x >> 32) % 13];
			size_t off = (size_t)(x >> 8) % (n + 1);
			for (size_t i = 0; w[i] && off + i < n; i++)
				buf[off + i] = w[i];
		}
		bool want = false;
		for (size_t k = 0; k < 13; k++)
			want = want || memmem(buf, n, words[k], strlen(words[k]));
		if (kmsg_error_word(buf, n) != want)
			fail_msg("kmsg_error_word('%.*s') = %d, want %d", (int)n, buf, !want, want);
		hits += want;
		tried++;
	}
	assert_true(hits > 500 && tried - hits > 500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xid_shapes),
		cmocka_unit_test(test_xid_verdicts),
		cmocka_unit_test(test_companions),
		cmocka_unit_test(test_system),
		cmocka_unit_test(test_pci_norm),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_catalog_docs),
		cmocka_unit_test(test_boots),
		cmocka_unit_test(test_plans),
		cmocka_unit_test(test_maybe_words),
		cmocka_unit_test(test_maybe_simd),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_error_word),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
