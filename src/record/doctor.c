/* SPDX-License-Identifier: MIT */
/*
 * The driver checks of `gputally doctor`, in the order a person would make
 * them: is there a GPU, is the kernel driver loaded (and not nouveau), are
 * the device nodes there, do the kernel and user-space halves agree, does
 * NVML start, and what did the kernel log say.  Each check fills one
 * struct doc_check with what it found, where, and the fix.
 */
#include "record/doctor.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/nvml.h"
#include "util/strfmt.h"

const char *const doc_status_name[4] = { "ok", "warn", "fail", "skip" };

static const char *const check_ids[DOC__COUNT] = {
	"pci_device", "modules", "nouveau", "device_nodes", "version_match",
	"kernel_match", "nvml_init", "persistence", "container", "kernel_log",
	"wsl", "hybrid_graphics", "drm_modeset", "secure_boot", "cuda_capability",
};

#define MAX_GPUS 16

struct ctx {
	const struct doctor_opts *o;
	struct doctor_report *r;
	/* what earlier checks learnt */
	int ngpus;
	char gpu_addr[MAX_GPUS][16];
	char modules[8192];		/* /proc/modules, NUL-terminated; "" unread */
	bool modules_read, nvidia_loaded;
	char kmod_version[64];		/* the kernel module's version, "" unknown */
	char kmod_version_src[64];
	bool in_container;
	char container_why[96];
	struct nvml nvml;
	bool nvml_ok;
	char nvml_err[200];
	char lib_version[64];		/* user-space version, "" unknown */
	char lib_version_src[128];
	/* the laptop and desktop checks */
	bool wsl;
	char wsl_why[96];
	int other_displays;		/* display controllers of other vendors (an iGPU) */
	char other_list[200];
	char power_state[16];		/* the first NVIDIA GPU's PCI power state, "" unknown */
	bool klog_read;
	char klog_unsigned[200];	/* the kernel refused an unsigned module: the line */
	char klog_i915[200];		/* "i915 ... unable to map framebuffer" */
};

static void set(struct ctx *c, int id, int status, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void set(struct ctx *c, int id, int status, const char *fix, const char *fmt, ...)
{
	struct doc_check *k = &c->r->checks[id];
	va_list ap;

	k->id = check_ids[id];
	k->status = status;
	va_start(ap, fmt);
	vsnprintf(k->detail, sizeof(k->detail), fmt, ap);
	va_end(ap);
	snprintf(k->fix, sizeof(k->fix), "%s", status == DOC_OK || status == DOC_SKIP || !fix ? "" : fix);
}

/* root + rel, rel without a leading slash */
static const char *path(const struct ctx *c, const char *rel, char *buf, size_t cap)
{
	const char *root = c->o->root && *c->o->root ? c->o->root : "/";
	size_t n = strlen(root);

	snprintf(buf, cap, "%s%s%s", root, n && root[n - 1] == '/' ? "" : "/", rel);
	return buf;
}

/* Read at most cap-1 bytes of root/rel; -1 if it cannot be opened. */
static ssize_t slurp(const struct ctx *c, const char *rel, char *buf, size_t cap)
{
	char p[PATH_MAX];
	ssize_t n, got = 0;
	int fd = open(path(c, rel, p, sizeof(p)), O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	buf[0] = 0;
	if (fd < 0)
		return -1;
	while ((size_t)got + 1 < cap && (n = read(fd, buf + got, cap - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	buf[got] = 0;
	return got;
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
}

static bool is_root_fs(const struct ctx *c)
{
	return !c->o->root || !*c->o->root || !strcmp(c->o->root, "/");
}

/* ---- the PCI bus -------------------------------------------------------- */

static void check_pci(struct ctx *c)
{
	char p[PATH_MAX], buf[64], list[400] = "", drv[PATH_MAX];
	DIR *d = opendir(path(c, "sys/bus/pci/devices", p, sizeof(p)));
	struct dirent *e;
	int other_driver = 0;
	size_t len = 0;

	if (c->wsl) {
		if (d)
			closedir(d);
		set(c, DOC_PCI_DEVICE, DOC_SKIP, NULL,
		    "WSL2 (%s): the Windows host owns the GPU and lends it through /dev/dxg; no PCI device is visible here",
		    c->wsl_why);
		return;
	}
	if (!d) {
		set(c, DOC_PCI_DEVICE, DOC_SKIP, NULL, "%s cannot be read (%s): not a Linux system, or /sys is not mounted",
		    p, strerror(errno));
		return;
	}
	while ((e = readdir(d))) {
		char rel[300];
		ssize_t n;
		unsigned long cls;
		const char *dname = "no driver";

		if (e->d_name[0] == '.')
			continue;
		char vendor[16];
		snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/vendor", e->d_name);
		if (slurp(c, rel, vendor, sizeof(vendor)) < 0)
			continue;
		chomp(vendor);
		snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/class", e->d_name);
		cls = slurp(c, rel, buf, sizeof(buf)) > 0 ? strtoul(buf, NULL, 16) : 0;
		/* display controllers (0x03xxxx) are GPUs; audio and bridges are not */
		if ((cls >> 16) != 0x03)
			continue;
		if (strcmp(vendor, "0x10de")) {
			size_t ol = strlen(c->other_list);
			const char *who = !strcmp(vendor, "0x8086") ? "Intel" : !strcmp(vendor, "0x1002") ? "AMD" : vendor;
			c->other_displays++;
			if (ol < sizeof(c->other_list) - 60)
				fmt_cut(c->other_list + ol, sizeof(c->other_list) - ol, "%s%.16s (%s)", ol ? ", " : "",
					e->d_name, who);
			continue;
		}
		if (!c->power_state[0]) {
			snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/power_state", e->d_name);
			if (slurp(c, rel, c->power_state, sizeof(c->power_state)) > 0)
				chomp(c->power_state);
		}
		snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/driver", e->d_name);
		n = readlink(path(c, rel, p, sizeof(p)), drv, sizeof(drv) - 1);
		if (n > 0) {
			drv[n] = 0;
			dname = strrchr(drv, '/') ? strrchr(drv, '/') + 1 : drv;
		}
		if (strcmp(dname, "nvidia"))
			other_driver++;
		if (c->ngpus < MAX_GPUS)
			snprintf(c->gpu_addr[c->ngpus], sizeof(c->gpu_addr[0]), "%.15s", e->d_name);
		c->ngpus++;
		if (len < sizeof(list) - 60)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s (%s)",
						len ? ", " : "", e->d_name, dname);
	}
	closedir(d);
	if (!c->ngpus)
		set(c, DOC_PCI_DEVICE, DOC_FAIL,
		    "Check that the card is seated and powered (and, in a VM, passed through to this guest); "
		    "`lspci -nn | grep 10de` should list it. Nothing further can work without it.",
		    "no NVIDIA display or 3D controller (vendor 0x10de, class 0x03) under %s",
		    path(c, "sys/bus/pci/devices", p, sizeof(p)));
	else if (other_driver)
		set(c, DOC_PCI_DEVICE, DOC_WARN,
		    "A GPU bound to another driver (vfio-pci for passthrough, nouveau) or to none is not usable "
		    "by CUDA here: unbind it, or load the nvidia module (see the next checks).",
		    "%d NVIDIA GPU%s: %s; %d not bound to the nvidia driver", c->ngpus, c->ngpus > 1 ? "s" : "",
		    list, other_driver);
	else
		set(c, DOC_PCI_DEVICE, DOC_OK, NULL, "%d NVIDIA GPU%s: %s", c->ngpus, c->ngpus > 1 ? "s" : "", list);
}

/* ---- kernel modules ----------------------------------------------------- */

static bool module_loaded(const struct ctx *c, const char *name)
{
	size_t n = strlen(name);

	for (const char *l = c->modules; *l;) {
		const char *eol = strchr(l, '\n');
		if (!strncmp(l, name, n) && l[n] == ' ')
			return true;
		if (!eol)
			break;
		l = eol + 1;
	}
	return false;
}

static void check_modules(struct ctx *c)
{
	char p[PATH_MAX], missing[80] = "", optional[80] = "";
	bool uvm;

	c->modules_read = slurp(c, "proc/modules", c->modules, sizeof(c->modules)) >= 0;
	if (!c->modules_read) {
		set(c, DOC_MODULES, DOC_SKIP, NULL, "%s cannot be read (%s)",
		    path(c, "proc/modules", p, sizeof(p)), strerror(errno));
		return;
	}
	c->nvidia_loaded = module_loaded(c, "nvidia");
	if (c->wsl) {
		set(c, DOC_MODULES, DOC_SKIP, NULL, "WSL2: the driver runs on the Windows host; no nvidia module belongs in this kernel%s",
		    c->nvidia_loaded ? " (one is loaded: see the wsl check)" : "");
		return;
	}
	uvm = module_loaded(c, "nvidia_uvm");
	if (!c->nvidia_loaded)
		strcat(missing, "nvidia ");
	if (!uvm)
		strcat(missing, "nvidia_uvm ");
	if (!module_loaded(c, "nvidia_modeset"))
		strcat(optional, "nvidia_modeset ");
	if (!module_loaded(c, "nvidia_drm"))
		strcat(optional, "nvidia_drm ");
	chomp(missing);
	chomp(optional);
	if (!c->nvidia_loaded)
		set(c, DOC_MODULES, DOC_FAIL,
		    "Load it with `sudo modprobe nvidia` and read the error it prints (and `dmesg | grep -i nvrm`). "
		    "If modprobe finds no module, the driver is not built for this kernel (see kernel_match).",
		    "the nvidia kernel module is not loaded (%s); missing: %s", p, missing);
	else if (!uvm)
		set(c, DOC_MODULES, DOC_FAIL,
		    "CUDA needs nvidia_uvm: `sudo modprobe nvidia-uvm` (or `nvidia-modprobe -u -c=0`, which also "
		    "creates /dev/nvidia-uvm).",
		    "nvidia is loaded but nvidia_uvm is not (%s): nvidia-smi works, CUDA programs fail",
		    path(c, "proc/modules", p, sizeof(p)));
	else
		set(c, DOC_MODULES, DOC_OK, NULL, "nvidia and nvidia_uvm loaded%s%s%s",
		    *optional ? "; not loaded: " : "", optional,
		    *optional ? " (needed only to drive a display)" : "");
}

static void check_nouveau(struct ctx *c)
{
	if (!c->modules_read) {
		set(c, DOC_NOUVEAU, DOC_SKIP, NULL, "/proc/modules was not readable");
		return;
	}
	if (module_loaded(c, "nouveau"))
		set(c, DOC_NOUVEAU, DOC_FAIL,
		    "Blacklist it: put `blacklist nouveau` and `options nouveau modeset=0` in "
		    "/etc/modprobe.d/blacklist-nouveau.conf, run `sudo update-initramfs -u` and reboot.",
		    "the open-source nouveau driver is loaded: it holds the GPU and the nvidia module cannot bind to it");
	else
		set(c, DOC_NOUVEAU, DOC_OK, NULL, "nouveau is not loaded");
}

/* ---- device nodes ------------------------------------------------------- */

static void check_nodes(struct ctx *c)
{
	char p[PATH_MAX], bad[300] = "", rel[40];
	size_t len = 0;
	int nodes = 0, nbad = 0;
	bool real = is_root_fs(c);
	int want = c->ngpus > 0 ? (c->ngpus < MAX_GPUS ? c->ngpus : MAX_GPUS) : 1;

	if (c->wsl) {
		set(c, DOC_DEVICE_NODES, DOC_SKIP, NULL, "WSL2 has no /dev/nvidia* nodes; its GPU node, /dev/dxg, is the wsl check's");
		return;
	}

	for (int i = -2; i < want; i++) {
		struct stat st;
		const char *why = NULL;
		if (i == -2)
			snprintf(rel, sizeof(rel), "dev/nvidiactl");
		else if (i == -1)
			snprintf(rel, sizeof(rel), "dev/nvidia-uvm");
		else
			snprintf(rel, sizeof(rel), "dev/nvidia%d", i);
		if (stat(path(c, rel, p, sizeof(p)), &st) < 0)
			why = "missing";
		/* under another --root a regular file stands in for a node */
		else if (real && !S_ISCHR(st.st_mode))
			why = "not a character device";
		else if (faccessat(AT_FDCWD, p, R_OK | W_OK, AT_EACCESS) < 0)
			why = "not readable and writable by this user";
		if (!why) {
			nodes++;
			continue;
		}
		nbad++;
		if (len < sizeof(bad) - 60)
			len += (size_t)snprintf(bad + len, sizeof(bad) - len, "%s/%s %s", len ? "; " : "", rel, why);
	}
	if (!nbad)
		set(c, DOC_DEVICE_NODES, DOC_OK, NULL, "/dev/nvidiactl, /dev/nvidia-uvm and %d GPU node%s present and usable",
		    nodes - 2, nodes - 2 == 1 ? "" : "s");
	else
		set(c, DOC_DEVICE_NODES, DOC_FAIL,
		    c->in_container ?
		    "Inside a container the nodes come from the runtime: start it with `--gpus all` "
		    "(Docker with nvidia-container-toolkit) or request nvidia.com/gpu (Kubernetes)." :
		    "The nodes are made when the module loads (udev) or by `sudo nvidia-modprobe -c=0 -u`; "
		    "for permissions, add the user to the group owning /dev/nvidia* (often video) or fix the udev rule.",
		    "%s", bad);
}

/* ---- versions ----------------------------------------------------------- */

/* The first token of s that is digits and dots with at least one dot. */
static bool find_version(const char *s, char *out, size_t cap)
{
	for (const char *p = s; *p; p++) {
		size_t n = 0;
		bool dot = false;
		if (p != s && !isspace((unsigned char)p[-1]))
			continue;
		while (isdigit((unsigned char)p[n]) || p[n] == '.') {
			dot |= p[n] == '.';
			n++;
		}
		if (dot && n > 2 && isdigit((unsigned char)p[0]) && (!p[n] || isspace((unsigned char)p[n]))) {
			snprintf(out, cap, "%.*s", (int)n, p);
			return true;
		}
	}
	return false;
}

static void kernel_module_version(struct ctx *c)
{
	char buf[1024];

	if (slurp(c, "proc/driver/nvidia/version", buf, sizeof(buf)) > 0 &&
	    find_version(strstr(buf, "Module") ? strstr(buf, "Module") : buf, c->kmod_version,
			 sizeof(c->kmod_version))) {
		snprintf(c->kmod_version_src, sizeof(c->kmod_version_src), "/proc/driver/nvidia/version");
		return;
	}
	if (slurp(c, "sys/module/nvidia/version", buf, sizeof(buf)) > 0) {
		chomp(buf);
		snprintf(c->kmod_version, sizeof(c->kmod_version), "%.60s", buf);
		snprintf(c->kmod_version_src, sizeof(c->kmod_version_src), "/sys/module/nvidia/version");
	}
}

/* The user-space version from the library's file name (libnvidia-ml.so.580.65.06),
 * which is known even when nvmlInit refuses to start. */
static void library_version_from_name(struct ctx *c)
{
	const char *lib = c->o->nvml_lib ? c->o->nvml_lib : "libnvidia-ml.so.1";
	void *dl = dlopen(lib, RTLD_LAZY | RTLD_LOCAL);
	struct link_map *lm = NULL;
	char real[PATH_MAX];
	const char *base, *v;

	if (!dl)
		return;
	if (dlinfo(dl, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && realpath(lm->l_name, real)) {
		base = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
		v = strstr(base, ".so.");
		if (v && strchr(v + 4, '.')) {
			snprintf(c->lib_version, sizeof(c->lib_version), "%.60s", v + 4);
			snprintf(c->lib_version_src, sizeof(c->lib_version_src), "the file name of %.80s", base);
		}
	}
	dlclose(dl);
}

static void open_nvml(struct ctx *c)
{
	struct gl_err err = { 0 };
	char v[80];

	if (nvml_open(&c->nvml, c->o->nvml_lib, &err) == 0) {
		c->nvml_ok = true;
		if (c->nvml.api.system_get_driver_version &&
		    c->nvml.api.system_get_driver_version(v, sizeof(v)) == NVML_OK) {
			snprintf(c->lib_version, sizeof(c->lib_version), "%.60s", v);
			snprintf(c->lib_version_src, sizeof(c->lib_version_src), "nvmlSystemGetDriverVersion");
		}
	} else {
		snprintf(c->nvml_err, sizeof(c->nvml_err), "%s", err.msg);
	}
	if (!c->lib_version[0])
		library_version_from_name(c);
}

static void check_versions(struct ctx *c)
{
	if (!c->kmod_version[0] || !c->lib_version[0]) {
		set(c, DOC_VERSION_MATCH, DOC_SKIP, NULL, "kernel module version %s, user-space library version %s",
		    c->kmod_version[0] ? c->kmod_version : "unknown (no /proc/driver/nvidia/version)",
		    c->lib_version[0] ? c->lib_version : "unknown (NVML not loadable)");
		return;
	}
	if (strcmp(c->kmod_version, c->lib_version))
		set(c, DOC_VERSION_MATCH, DOC_FAIL,
		    "The driver was upgraded but the old kernel module is still loaded: reboot, or stop everything "
		    "using the GPU and reload it (`sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia`).",
		    "kernel module %s (%s) but user-space library %s (%s): \"Driver/library version mismatch\"",
		    c->kmod_version, c->kmod_version_src, c->lib_version, c->lib_version_src);
	else
		set(c, DOC_VERSION_MATCH, DOC_OK, NULL, "kernel module and user-space library are both %s",
		    c->kmod_version);
}

/* Is there an nvidia.ko* under root/lib/modules/REL (a few levels down)? */
static bool has_module_file(const struct ctx *c, const char *rel, int depth)
{
	char p[PATH_MAX], sub[PATH_MAX];
	DIR *d;
	struct dirent *e;
	bool found = false;

	if (depth > 5 || !(d = opendir(path(c, rel, p, sizeof(p)))))
		return false;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (!strncmp(e->d_name, "nvidia.ko", 9)) {
			found = true;
			break;
		}
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", rel, e->d_name) < sizeof(sub) &&
		    (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN))
			found = has_module_file(c, sub, depth + 1);
	}
	closedir(d);
	return found;
}

static void check_kernel(struct ctx *c)
{
	char rel_buf[256], rel[300], others[200] = "", p[PATH_MAX];
	DIR *d;
	struct dirent *e;
	size_t len = 0;

	if (slurp(c, "proc/sys/kernel/osrelease", rel_buf, sizeof(rel_buf)) <= 0) {
		set(c, DOC_KERNEL_MATCH, DOC_SKIP, NULL, "the running kernel's release is unknown (%s)",
		    path(c, "proc/sys/kernel/osrelease", p, sizeof(p)));
		return;
	}
	chomp(rel_buf);
	if (c->wsl) {
		set(c, DOC_KERNEL_MATCH, DOC_SKIP, NULL, "WSL2 kernel %s: the driver is the Windows host's, not a module", rel_buf);
		return;
	}
	if (c->nvidia_loaded) {
		set(c, DOC_KERNEL_MATCH, DOC_OK, NULL, "the nvidia module is loaded in the running kernel %s", rel_buf);
		return;
	}
	snprintf(rel, sizeof(rel), "lib/modules/%s", rel_buf);
	if (has_module_file(c, rel, 0)) {
		set(c, DOC_KERNEL_MATCH, DOC_OK, NULL,
		    "an nvidia module is built for the running kernel %s (under /%s) but not loaded", rel_buf, rel);
		return;
	}
	if ((d = opendir(path(c, "lib/modules", p, sizeof(p))))) {
		while ((e = readdir(d))) {
			char sub[300];
			if (e->d_name[0] == '.' || !strcmp(e->d_name, rel_buf))
				continue;
			snprintf(sub, sizeof(sub), "lib/modules/%.250s", e->d_name);
			if (has_module_file(c, sub, 0) && len < sizeof(others) - 60)
				len += (size_t)snprintf(others + len, sizeof(others) - len, "%s%s", len ? ", " : "", e->d_name);
		}
		closedir(d);
	}
	if (len)
		set(c, DOC_KERNEL_MATCH, DOC_FAIL,
		    "The kernel was upgraded and the driver not rebuilt: install the headers "
		    "(`sudo apt install linux-headers-$(uname -r)`) and run `sudo dkms autoinstall`, "
		    "or boot the kernel the driver was built for.",
		    "the running kernel is %s but the nvidia module is built only for %s", rel_buf, others);
	else
		set(c, DOC_KERNEL_MATCH, DOC_FAIL,
		    "Install the NVIDIA driver for this kernel (your distribution's nvidia-driver package, "
		    "or the .run installer with DKMS).",
		    "no nvidia module file for the running kernel %s, nor for any other under /lib/modules", rel_buf);
}

static void check_nvml(struct ctx *c)
{
	unsigned int n = 0;

	if (!c->nvml_ok) {
		set(c, DOC_NVML_INIT, DOC_FAIL,
		    strstr(c->nvml_err, "cannot load") ?
		    "The user-space half of the driver (libnvidia-ml.so.1) is missing: install the driver's "
		    "utilities package (e.g. nvidia-utils, libnvidia-ml1), or in a container use the NVIDIA runtime." :
		    "Fix the checks above first; NVML's own error is quoted here.",
		    "%s", c->nvml_err);
		return;
	}
	if (c->nvml.api.device_get_count)
		c->nvml.api.device_get_count(&n);
	set(c, DOC_NVML_INIT, DOC_OK, NULL, "NVML %s loaded from %s and initialised; %u GPU%s",
	    c->lib_version[0] ? c->lib_version : "", c->nvml.path, n, n == 1 ? "" : "s");
}

/* Is a process with this command name running (root/proc/<pid>/comm)? */
static bool process_running(const struct ctx *c, const char *comm)
{
	char p[PATH_MAX], rel[300], buf[64];
	DIR *d = opendir(path(c, "proc", p, sizeof(p)));
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(rel, sizeof(rel), "proc/%.250s/comm", e->d_name);
		if (slurp(c, rel, buf, sizeof(buf)) > 0) {
			chomp(buf);
			found = !strcmp(buf, comm);
		}
	}
	closedir(d);
	return found;
}

static void check_persistence(struct ctx *c)
{
	static const char fix[] =
		"Without persistence the driver tears the GPU down when the last client exits and sets it up again "
		"on the next (seconds each time, and the first samples of a monitor are lost): "
		"`sudo systemctl enable --now nvidia-persistenced`.";
	int (*get_handle)(unsigned int, struct nvml_device **) = c->nvml_ok ? c->nvml.api.device_get_handle_by_index : NULL;
	int (*get_mode)(struct nvml_device *, int *) = NULL;
	unsigned int n = 0, on = 0, known = 0;
	void *f = c->nvml_ok ? dlsym(c->nvml.dl, "nvmlDeviceGetPersistenceMode") : NULL;

	memcpy(&get_mode, &f, sizeof(f));
	if (c->wsl) {
		set(c, DOC_PERSISTENCE, DOC_SKIP, NULL, "WSL2: the Windows driver keeps the GPU initialised; there is no persistence mode");
		return;
	}
	if (get_mode && get_handle && c->nvml.api.device_get_count &&
	    c->nvml.api.device_get_count(&n) == NVML_OK) {
		for (unsigned int i = 0; i < n; i++) {
			struct nvml_device *d;
			int mode;
			if (get_handle(i, &d) == NVML_OK && get_mode(d, &mode) == NVML_OK) {
				known++;
				on += mode == 1;
			}
		}
	}
	if (known) {
		if (on == known)
			set(c, DOC_PERSISTENCE, DOC_OK, NULL, "persistence mode on for all %u GPUs (NVML)", known);
		else
			set(c, DOC_PERSISTENCE, DOC_WARN, fix, "persistence mode off on %u of %u GPUs (NVML)", known - on, known);
		return;
	}
	if (process_running(c, "nvidia-persistenced"))
		set(c, DOC_PERSISTENCE, DOC_OK, NULL, "nvidia-persistenced is running");
	else if (c->nvidia_loaded)
		set(c, DOC_PERSISTENCE, DOC_WARN, fix,
		    "nvidia-persistenced is not running and NVML did not report the mode");
	else
		set(c, DOC_PERSISTENCE, DOC_SKIP, NULL, "no driver loaded to hold persistent");
}

static void detect_container(struct ctx *c)
{
	char p[PATH_MAX], buf[4096];
	struct stat st;

	if (stat(path(c, ".dockerenv", p, sizeof(p)), &st) == 0)
		snprintf(c->container_why, sizeof(c->container_why), "/.dockerenv exists");
	else if (stat(path(c, "run/.containerenv", p, sizeof(p)), &st) == 0)
		snprintf(c->container_why, sizeof(c->container_why), "/run/.containerenv exists (podman)");
	else if (slurp(c, "proc/1/cgroup", buf, sizeof(buf)) > 0 &&
		 (strstr(buf, "docker") || strstr(buf, "kubepods") || strstr(buf, "containerd") || strstr(buf, "lxc")))
		snprintf(c->container_why, sizeof(c->container_why), "/proc/1/cgroup names a container runtime");
	c->in_container = c->container_why[0] != 0;
}

static void check_container(struct ctx *c)
{
	bool nodes_ok = c->r->checks[DOC_DEVICE_NODES].status == DOC_OK;

	if (!c->in_container)
		set(c, DOC_CONTAINER, DOC_OK, NULL, "not inside a container");
	else if (nodes_ok)
		set(c, DOC_CONTAINER, DOC_OK, NULL, "inside a container (%s), with the GPU devices passed in", c->container_why);
	else
		set(c, DOC_CONTAINER, DOC_FAIL,
		    "Start the container with the GPUs: `docker run --gpus all` (needs nvidia-container-toolkit "
		    "on the host), `--device nvidia.com/gpu=all` with CDI, or a nvidia.com/gpu resource in Kubernetes.",
		    "inside a container (%s) without the GPU devices", c->container_why);
}

/* ---- the kernel log ----------------------------------------------------- */

struct klog {
	int nvrm, errors, xids, fatal;
	char first_fatal[200], last_error[200];
	char unsigned_module[200], i915_map[200];
};

static void klog_line(struct klog *k, const char *l, size_t n)
{
	static const char *const fatal_words[] = { "fallen off the bus", "RmInitAdapter failed", "GPU is lost" };
	static const int fatal_xids[] = { 48, 79, 95, 119, 154 };
	const char *x;
	char line[200];
	bool fatal = false, err;

	if (n > sizeof(line) - 1)
		n = sizeof(line) - 1;
	memcpy(line, l, n);
	line[n] = 0;
	/* Secure Boot refusing a module (module signing enforced, or lockdown) */
	if (!k->unsigned_module[0] &&
	    (strstr(line, "Loading of unsigned module is rejected") || strstr(line, "Key was rejected by service") ||
	     strstr(line, "unsigned module loading is restricted") ||
	     strstr(line, "Loading of module with unavailable key is rejected")))
		snprintf(k->unsigned_module, sizeof(k->unsigned_module), "%s", line);
	/* the dual-GPU laptop under WSL2 whose Intel display driver is gone (sources.md 000 section 1) */
	if (!k->i915_map[0] && strstr(line, "i915") && strstr(line, "unable to map framebuffer"))
		snprintf(k->i915_map, sizeof(k->i915_map), "%s", line);
	if (!strstr(line, "NVRM"))
		return;
	k->nvrm++;
	for (size_t i = 0; i < sizeof(fatal_words) / sizeof(fatal_words[0]); i++)
		fatal |= strstr(line, fatal_words[i]) != NULL;
	if ((x = strstr(line, "Xid"))) {
		const char *comma = strchr(x, ')');
		int code = comma ? atoi(comma + 2) : 0;
		k->xids++;
		for (size_t i = 0; i < sizeof(fatal_xids) / sizeof(fatal_xids[0]); i++)
			fatal |= code == fatal_xids[i];
	}
	err = fatal || x || strcasestr(line, "error") || strcasestr(line, "failed") || strcasestr(line, "timeout");
	if (fatal && !k->fatal++)
		snprintf(k->first_fatal, sizeof(k->first_fatal), "%s", line);
	if (err) {
		k->errors++;
		snprintf(k->last_error, sizeof(k->last_error), "%s", line);
	}
}

static void check_kernel_log(struct ctx *c)
{
	static const char *const logs[] = { "var/log/kern.log", "var/log/syslog", "var/log/messages" };
	char p[PATH_MAX], src[PATH_MAX] = "";
	struct klog k = { 0 };
	char *buf = malloc(1 << 20);
	FILE *f = NULL;
	size_t n;

	if (!buf) {
		set(c, DOC_KERNEL_LOG, DOC_SKIP, NULL, "out of memory");
		return;
	}
	if (c->o->kernel_log) {
		f = fopen(c->o->kernel_log, "r");
		snprintf(src, sizeof(src), "%s", c->o->kernel_log);
	} else if (is_root_fs(c)) {
		/* /dev/kmsg: one record per read, non-blocking to stop at the end */
		int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		ssize_t r;
		if (fd >= 0) {
			snprintf(src, sizeof(src), "/dev/kmsg");
			while ((r = read(fd, buf, (1 << 20) - 1)) > 0 || (r < 0 && errno == EPIPE))
				if (r > 0)
					klog_line(&k, buf, (size_t)r);
			close(fd);
		}
	}
	for (size_t i = 0; !f && !src[0] && i < sizeof(logs) / sizeof(logs[0]); i++)
		if ((f = fopen(path(c, logs[i], p, sizeof(p)), "r")))
			snprintf(src, sizeof(src), "%s", p);
	if (f) {
		while (fgets(buf, 1 << 20, f)) {
			n = strlen(buf);
			klog_line(&k, buf, n && buf[n - 1] == '\n' ? n - 1 : n);
		}
		fclose(f);
	}
	free(buf);
	c->klog_read = src[0] && !(c->o->kernel_log && !f && strcmp(src, "/dev/kmsg"));
	snprintf(c->klog_unsigned, sizeof(c->klog_unsigned), "%s", k.unsigned_module);
	snprintf(c->klog_i915, sizeof(c->klog_i915), "%s", k.i915_map);
	if (!src[0] || (c->o->kernel_log && !f && strcmp(src, "/dev/kmsg"))) {
		set(c, DOC_KERNEL_LOG, DOC_SKIP, NULL, "no kernel log readable%s%s (tried %s)",
		    c->o->kernel_log ? ": " : "", c->o->kernel_log ? strerror(errno) : "",
		    c->o->kernel_log ? c->o->kernel_log : "/dev/kmsg, /var/log/kern.log, syslog, messages");
		return;
	}
	if (k.fatal)
		set(c, DOC_KERNEL_LOG, DOC_FAIL,
		    "A fatal GPU error needs a GPU reset (`nvidia-smi -r`) or a reboot; if it repeats, "
		    "check power, cooling and the PCIe slot, and consider the card for return.",
		    "%s: %d NVRM lines, %d errors, %d Xid, %d fatal; first fatal: %s", src, k.nvrm, k.errors,
		    k.xids, k.fatal, k.first_fatal);
	else if (k.errors)
		set(c, DOC_KERNEL_LOG, DOC_WARN,
		    "Read the NVRM lines (`dmesg | grep NVRM`); `gputally report` on the log places them on the GPU's timeline.",
		    "%s: %d NVRM lines, %d look like errors (%d Xid); last: %s", src, k.nvrm, k.errors, k.xids,
		    k.last_error);
	else
		set(c, DOC_KERNEL_LOG, DOC_OK, NULL, "%s: %d NVRM lines, no errors", src, k.nvrm);
}

/* ---- laptops and desktops: WSL2, hybrid graphics, modeset, Secure Boot --- */

static bool exists(const struct ctx *c, const char *rel)
{
	char p[PATH_MAX];
	struct stat st;

	return stat(path(c, rel, p, sizeof(p)), &st) == 0;
}

/* WSL2's kernel names Microsoft in its release and version strings. */
static void detect_wsl(struct ctx *c)
{
	static const char *const files[] = { "proc/sys/kernel/osrelease", "proc/version" };
	char buf[512];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]) && !c->wsl; i++)
		if (slurp(c, files[i], buf, sizeof(buf)) > 0 &&
		    (strcasestr(buf, "microsoft") || strstr(buf, "WSL"))) {
			c->wsl = true;
			snprintf(c->wsl_why, sizeof(c->wsl_why), "/%s names Microsoft", files[i]);
		}
}

static void check_wsl(struct ctx *c)
{
	bool dxg = exists(c, "dev/dxg");
	bool lib = exists(c, "usr/lib/wsl/lib/libnvidia-ml.so.1") || exists(c, "usr/lib/wsl/lib/libcuda.so.1");

	if (!c->wsl) {
		set(c, DOC_WSL, DOC_OK, NULL, "not WSL2");
		return;
	}
	if (!dxg)
		set(c, DOC_WSL, DOC_FAIL,
		    "WSL2 reaches the GPU through /dev/dxg, which the Windows NVIDIA driver provides: install the "
		    "current NVIDIA driver on Windows (not a Linux driver inside WSL), run `wsl --update`, and make sure "
		    "the distribution runs as WSL 2 (`wsl -l -v`).",
		    "WSL2 (%s) without /dev/dxg: the Windows host does not share its GPU", c->wsl_why);
	else if (!lib)
		set(c, DOC_WSL, DOC_FAIL,
		    "The Windows NVIDIA driver maps libcuda and libnvidia-ml into /usr/lib/wsl/lib; they are missing, "
		    "often because a Linux NVIDIA driver was installed inside WSL2 and replaced them. Remove it "
		    "(`sudo apt purge 'nvidia-*'`, keep only the CUDA toolkit), then `wsl --shutdown` and start again.",
		    "WSL2 (%s) with /dev/dxg, but no libnvidia-ml.so.1 or libcuda.so.1 under /usr/lib/wsl/lib", c->wsl_why);
	else if (c->nvidia_loaded)
		set(c, DOC_WSL, DOC_WARN,
		    "A Linux nvidia module has no GPU to drive under WSL2: remove the Linux driver and keep only the "
		    "CUDA toolkit (the wsl-ubuntu CUDA packages, which ship no driver).",
		    "WSL2 (%s) with /dev/dxg and the Windows driver's libraries, but an nvidia kernel module is loaded",
		    c->wsl_why);
	else if (c->klog_i915[0])
		set(c, DOC_WSL, DOC_WARN,
		    "On a dual-GPU laptop WSL2 needs the Intel display driver on Windows: keep it enabled in Device "
		    "Manager (version 31.0.101.4883 or later) even with the BIOS set to the discrete GPU, then restart WSL.",
		    "WSL2 (%s) with /dev/dxg; the kernel log says: %s", c->wsl_why, c->klog_i915);
	else
		set(c, DOC_WSL, DOC_OK, NULL, "WSL2 (%s), with /dev/dxg and the Windows driver's libraries in /usr/lib/wsl/lib",
		    c->wsl_why);
}

/* Ubuntu's prime-select writes its mode to /etc/prime-discrete: on, off, on-demand. */
static void check_hybrid(struct ctx *c)
{
	char mode[32] = "";
	bool d3 = !strncmp(c->power_state, "D3", 2);

	if (c->wsl) {
		set(c, DOC_HYBRID, DOC_SKIP, NULL, "WSL2: Windows chooses the GPU");
		return;
	}
	if (!c->ngpus) {
		set(c, DOC_HYBRID, DOC_SKIP, NULL, "no NVIDIA GPU found on the PCI bus");
		return;
	}
	if (!c->other_displays) {
		set(c, DOC_HYBRID, DOC_OK, NULL, "no other display controller: not a hybrid-graphics machine");
		return;
	}
	if (slurp(c, "etc/prime-discrete", mode, sizeof(mode)) > 0)
		chomp(mode);
	if (!strcmp(mode, "off"))
		set(c, DOC_HYBRID, DOC_FAIL,
		    "prime-select is in Intel mode, which powers the NVIDIA GPU off and keeps its modules from "
		    "loading: `sudo prime-select on-demand` (or `nvidia`) and reboot.",
		    "hybrid graphics: the NVIDIA GPU beside %s, and /etc/prime-discrete says off (prime-select intel)",
		    c->other_list);
	else
		set(c, DOC_HYBRID, DOC_OK, NULL,
		    "hybrid graphics: the NVIDIA GPU beside %s; prime-select mode %s%s%s", c->other_list,
		    mode[0] ? mode : "not set (no /etc/prime-discrete)",
		    d3 ? "; the NVIDIA GPU is power-gated (" : "", d3 ? "D3cold until a program wakes it, e.g. `nvidia-smi -L`)" : "");
}

static void check_modeset(struct ctx *c)
{
	char v[8] = "", p[PATH_MAX];

	if (c->wsl) {
		set(c, DOC_DRM_MODESET, DOC_SKIP, NULL, "WSL2: Windows drives the displays");
		return;
	}
	if (slurp(c, "sys/module/nvidia_drm/parameters/modeset", v, sizeof(v)) <= 0) {
		set(c, DOC_DRM_MODESET, DOC_SKIP, NULL, "nvidia_drm is not loaded (%s cannot be read)",
		    path(c, "sys/module/nvidia_drm/parameters/modeset", p, sizeof(p)));
		return;
	}
	chomp(v);
	if (v[0] == 'Y')
		set(c, DOC_DRM_MODESET, DOC_OK, NULL, "nvidia-drm.modeset=1");
	else if (c->other_displays)
		set(c, DOC_DRM_MODESET, DOC_WARN,
		    "PRIME render offload, Wayland and external displays wired to the NVIDIA GPU need kernel mode "
		    "setting: add `nvidia-drm.modeset=1` to the kernel command line (or `options nvidia-drm modeset=1` "
		    "in /etc/modprobe.d/nvidia.conf, then `sudo update-initramfs -u`) and reboot.",
		    "nvidia-drm.modeset=0 on a hybrid-graphics machine (beside %s)", c->other_list);
	else
		set(c, DOC_DRM_MODESET, DOC_OK, NULL,
		    "nvidia-drm.modeset=0: fine for compute and a headless server; a Wayland desktop on this GPU needs 1");
}

/* The SecureBoot EFI variable: 4 bytes of attributes, then 1 when enforcing. */
static void check_secure_boot(struct ctx *c)
{
	static const char var[] = "sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c";
	static const char fix[] =
		"Secure Boot loads only signed modules: enroll the key DKMS signs with "
		"(`sudo mokutil --import /var/lib/dkms/mok.pub`, reboot, and enroll it in the blue MOK screen), "
		"or install the distribution's signed driver package, or turn Secure Boot off in the firmware.";
	char buf[16];
	ssize_t n;

	if (c->wsl) {
		set(c, DOC_SECURE_BOOT, DOC_SKIP, NULL, "WSL2: modules are the Windows host's; Secure Boot is its firmware's");
		return;
	}
	if (!exists(c, "sys/firmware/efi")) {
		set(c, DOC_SECURE_BOOT, exists(c, "sys") ? DOC_OK : DOC_SKIP, NULL,
		    exists(c, "sys") ? "not booted through EFI: Secure Boot does not apply" : "/sys is not readable");
		return;
	}
	n = slurp(c, var, buf, sizeof(buf));
	if (n < 5) {
		set(c, DOC_SECURE_BOOT, c->klog_unsigned[0] ? DOC_FAIL : DOC_SKIP, c->klog_unsigned[0] ? fix : NULL,
		    "the SecureBoot EFI variable cannot be read%s%s", c->klog_unsigned[0] ? "; the kernel log says: " : "",
		    c->klog_unsigned);
		return;
	}
	if (buf[4] != 1) {
		set(c, DOC_SECURE_BOOT, DOC_OK, NULL, "Secure Boot is off");
		return;
	}
	if (c->klog_unsigned[0])
		set(c, DOC_SECURE_BOOT, DOC_FAIL, fix, "Secure Boot is on and the kernel refused an unsigned module: %s",
		    c->klog_unsigned);
	else if (!c->nvidia_loaded && c->modules_read && !c->wsl)
		set(c, DOC_SECURE_BOOT, DOC_WARN, fix,
		    "Secure Boot is on and the nvidia module is not loaded: an unsigned module would be refused%s",
		    c->klog_read ? " (the kernel log does not say so)" : "");
	else
		set(c, DOC_SECURE_BOOT, DOC_OK, NULL, "Secure Boot is on%s", c->nvidia_loaded ?
		    ", and the nvidia module is loaded, so it is signed with an enrolled key" : "");
}

/* ---- an application log: built for another GPU -------------------------- */

/* Compute capability -> the architecture people know it by. */
static const char *arch_name(int major, int minor)
{
	switch (major) {
	case 6: return "Pascal";
	case 7: return minor >= 5 ? "Turing" : "Volta";
	case 8: return minor == 9 ? "Ada Lovelace" : "Ampere";
	case 9: return "Hopper";
	case 10: case 11: case 12: return "Blackwell";
	default: return "another architecture";
	}
}

struct capscan {
	long line;
	int have_major, have_minor, want_major, want_minor;	/* -1 unknown */
	char text[200];
};

/* "sm_120" or "12.0" or "(12, 0)" at p: major and minor. */
static bool read_cap(const char *p, int *major, int *minor)
{
	int a, b, n = 0;

	if (sscanf(p, "sm_%d%n", &a, &n) == 1 && n > 0) {
		*major = a / 10;
		*minor = a % 10;
		return true;
	}
	if (sscanf(p, "(%d, %d)", &a, &b) == 2 || sscanf(p, "%d.%d", &a, &b) == 2) {
		*major = a;
		*minor = b;
		return true;
	}
	return false;
}

/* The shapes a capability mismatch takes in a log; true when line is one. */
static bool cap_line(const char *line, struct capscan *s)
{
	const char *p;

	/* a CUDA library or extension: "requires device with capability (9, 0) but your gpu has capability (12, 0)" */
	if ((p = strstr(line, "requires device with capability "))) {
		read_cap(p + strlen("requires device with capability "), &s->want_major, &s->want_minor);
		if ((p = strstr(p, "has capability ")))
			read_cap(p + strlen("has capability "), &s->have_major, &s->have_minor);
		return true;
	}
	/* PyTorch: "... with CUDA capability sm_120 is not compatible with the current PyTorch installation." */
	if ((p = strstr(line, "with CUDA capability sm_")) && strstr(line, "is not compatible")) {
		read_cap(p + strlen("with CUDA capability "), &s->have_major, &s->have_minor);
		return true;
	}
	/* cudaErrorNoKernelImageForDevice, in CUDA's own words and PyTorch's */
	return strstr(line, "no kernel image is available for execution on the device") != NULL;
}

static void check_cuda_capability(struct ctx *c)
{
	struct capscan s = { 0, -1, -1, -1, -1, "" };
	char line[4096];
	long lineno = 0;
	FILE *f;

	if (!c->o->app_log) {
		set(c, DOC_CUDA_CAPABILITY, DOC_SKIP, NULL, "no application log given (--app-log FILE)");
		return;
	}
	if (!(f = fopen(c->o->app_log, "r"))) {
		set(c, DOC_CUDA_CAPABILITY, DOC_SKIP, NULL, "%s cannot be read: %s", c->o->app_log, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);
		struct capscan t = { 0, -1, -1, -1, -1, "" };
		if (n && line[n - 1] == '\n')
			lineno++;
		else if (!feof(f))
			continue;	/* the rest of a long line */
		else
			lineno++;
		if (!cap_line(line, &t))
			continue;
		/* keep the most telling line: one that names the GPU's capability wins */
		if (!s.line || (s.have_major < 0 && t.have_major >= 0)) {
			t.line = lineno;
			while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
				line[--n] = 0;
			fmt_cut(t.text, sizeof(t.text), "%s", line);
			s = t;
		}
	}
	fclose(f);
	if (!s.line) {
		set(c, DOC_CUDA_CAPABILITY, DOC_OK, NULL, "%s: %ld lines, no CUDA capability or kernel-image error",
		    c->o->app_log, lineno);
		return;
	}
	if (s.have_major >= 0 && s.want_major >= 0) {
		char fix[512];
		snprintf(fix, sizeof(fix),
			 "The program was built for compute capability %d.%d (%s) and this GPU is %d.%d (%s): rebuild it for "
			 "the GPU (nvcc -gencode arch=compute_%d%d,code=sm_%d%d; TORCH_CUDA_ARCH_LIST=%d.%d for PyTorch "
			 "extensions) or install a build that lists sm_%d%d. Budget the porting time as a cost of the new card.",
			 s.want_major, s.want_minor, arch_name(s.want_major, s.want_minor), s.have_major, s.have_minor,
			 arch_name(s.have_major, s.have_minor), s.have_major, s.have_minor, s.have_major, s.have_minor,
			 s.have_major, s.have_minor, s.have_major, s.have_minor);
		set(c, DOC_CUDA_CAPABILITY, DOC_FAIL, fix, "%s:%ld: built for %d.%d (%s), the GPU is %d.%d (%s): %s",
		    c->o->app_log, s.line, s.want_major, s.want_minor, arch_name(s.want_major, s.want_minor),
		    s.have_major, s.have_minor, arch_name(s.have_major, s.have_minor), s.text);
	} else if (s.have_major >= 0) {
		char fix[512];
		snprintf(fix, sizeof(fix),
			 "The installed framework has no kernels for compute capability %d.%d (%s): install a build "
			 "that lists sm_%d%d (for PyTorch, one built with a CUDA version that supports the card), or "
			 "build from source with TORCH_CUDA_ARCH_LIST=%d.%d.",
			 s.have_major, s.have_minor, arch_name(s.have_major, s.have_minor), s.have_major, s.have_minor,
			 s.have_major, s.have_minor);
		set(c, DOC_CUDA_CAPABILITY, DOC_FAIL, fix, "%s:%ld: the GPU is %d.%d (%s) and the framework was not built for it: %s",
		    c->o->app_log, s.line, s.have_major, s.have_minor, arch_name(s.have_major, s.have_minor), s.text);
	} else
		set(c, DOC_CUDA_CAPABILITY, DOC_FAIL,
		    "No kernel in the program matches this GPU's compute capability (`nvidia-smi --query-gpu=compute_cap "
		    "--format=csv`): rebuild for it, or install a build that includes it.",
		    "%s:%ld: %s", c->o->app_log, s.line, s.text);
}

void doctor_run(const struct doctor_opts *o, struct doctor_report *r)
{
	struct ctx *c = calloc(1, sizeof(*c));

	memset(r, 0, sizeof(*r));
	for (int i = 0; i < DOC__COUNT; i++) {
		r->checks[i].id = check_ids[i];
		r->checks[i].status = DOC_SKIP;
	}
	if (!c)
		return;
	c->o = o;
	c->r = r;
	detect_container(c);
	detect_wsl(c);
	check_pci(c);
	check_modules(c);
	check_nouveau(c);
	check_nodes(c);
	kernel_module_version(c);
	open_nvml(c);
	check_versions(c);
	check_kernel(c);
	check_nvml(c);
	check_persistence(c);
	check_container(c);
	check_kernel_log(c);
	check_wsl(c);
	check_hybrid(c);
	check_modeset(c);
	check_secure_boot(c);
	check_cuda_capability(c);
	nvml_close(&c->nvml);
	for (int i = 0; i < DOC__COUNT; i++) {
		r->failed += r->checks[i].status == DOC_FAIL;
		r->warned += r->checks[i].status == DOC_WARN;
	}
	free(c);
}
