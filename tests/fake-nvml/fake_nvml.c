/* SPDX-License-Identifier: MIT */
/*
 * A fake libnvidia-ml.so.1 for tests: exports the NVML symbols gputally uses
 * and answers from a scenario file named by $FAKE_NVML_SCENARIO.
 *
 * A device's "tick" is the number of nvmlDeviceGetUtilizationRates calls it
 * has answered (the sampler makes one per tick), so scenarios are written in
 * ticks, independent of the interval.  Scenario lines (# comments):
 *
 *   devices N                      number of GPUs (default 2, at most 16)
 *   name GPU TEXT...               product name
 *   set GPU FIELD VALUE [FROM [TO]]    FIELD answers VALUE on ticks FROM..TO
 *   unsupported GPU FIELD [FROM [TO]]  FIELD answers NOT_SUPPORTED
 *   lost GPU FROM TO               every call answers GPU_IS_LOST on ticks FROM..TO
 *   hang GPU TICK MS               the utilization call of tick TICK sleeps MS first
 *   xid GPU TICK CODE              an Xid event, delivered once the GPU reaches TICK
 *   proc GPU PID MIB [FROM [TO]]   a running compute process (MIB -1: unknown memory)
 *   node N                         a machine number (0-9999) in every UUID, so that
 *                                  fakes of several machines have distinct GPUs
 *   energy GPU power               the energy counter is the integral of the power
 *                                  over time (CLOCK_MONOTONIC): the power of tick t
 *                                  holds from its utilization call to the next one,
 *                                  lost ticks included; without this line each read
 *                                  adds energy_step
 *
 * FIELDs: util_gpu util_mem mem_total mem_used mem_reserved (MiB) power
 * power_limit (mW) energy_step (mJ per energy read) temp sm_clock mem_clock
 * reasons pstate pcie_gen pcie_width.  Later lines win.
 *
 * Built twice: the full library, and with -DFAKE_NVML_MINIMAL a library from an
 * older driver that lacks the optional newer symbols (memory v2, the new
 * clock-event name, process lists v2/v3, energy, events), so fallbacks run.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_GPUS 16
#define MAX_RULES 256

enum field {
	F_UTIL_GPU, F_UTIL_MEM, F_MEM_TOTAL, F_MEM_USED, F_MEM_RESERVED, F_POWER, F_POWER_LIMIT,
	F_ENERGY_STEP, F_TEMP, F_SM_CLOCK, F_MEM_CLOCK, F_REASONS, F_PSTATE, F_PCIE_GEN,
	F_PCIE_WIDTH, F__COUNT,
	F_PROC = 100,
};

static const char *const field_names[F__COUNT] = {
	"util_gpu", "util_mem", "mem_total", "mem_used", "mem_reserved", "power", "power_limit",
	"energy_step", "temp", "sm_clock", "mem_clock", "reasons", "pstate", "pcie_gen",
	"pcie_width",
};

static const long long field_default[F__COUNT] = {
	37, 12, 143771, 1257, 512, 123456, 700000, 123, 40, 1980, 3201, 0, 0, 5, 16,
};

enum rule_kind { RK_SET, RK_UNSUPPORTED, RK_LOST, RK_HANG, RK_XID, RK_PROC, RK_PROC_SM };

struct rule {
	int kind, gpu, field;
	long long from, to, value, value2;
	atomic_int delivered;
};

struct device {
	int index;
	char name[96];
	atomic_llong tick;
	atomic_ullong energy_mj;
	/* "energy GPU power": the counter follows the power over time */
	int energy_from_power;
	pthread_mutex_t emu;
	int tick_started;
	long long tick_start_ns, tick_power_mw;
	double acc_mj;		/* energy of the ticks before the current one */
};

static struct {
	pthread_once_t once;
	int ndev;
	int node;		/* "node N": a machine number in every UUID */
	struct device dev[MAX_GPUS];
	struct rule rules[MAX_RULES];
	int nrules;
	atomic_int inited;
} fake = { .once = PTHREAD_ONCE_INIT, .ndev = 2 };

static int parse_gpu(const char *s)
{
	int g = atoi(s);
	return g >= 0 && g < MAX_GPUS ? g : -1;
}

static int field_of(const char *s)
{
	for (int i = 0; i < F__COUNT; i++)
		if (!strcmp(s, field_names[i]))
			return i;
	return -1;
}

static void load_line(char *line, int lineno, const char *path)
{
	char *tok[8], *save = NULL, *p;
	int nt = 0;
	struct rule *r;

	if ((p = strchr(line, '#')))
		*p = 0;
	for (p = strtok_r(line, " \t\r\n", &save); p && nt < 8; p = strtok_r(NULL, " \t\r\n", &save))
		tok[nt++] = p;
	if (!nt)
		return;
	if (!strcmp(tok[0], "devices") && nt == 2) {
		fake.ndev = atoi(tok[1]);
		if (fake.ndev < 0 || fake.ndev > MAX_GPUS)
			fake.ndev = MAX_GPUS;
		return;
	}
	if (!strcmp(tok[0], "node") && nt == 2) {
		fake.node = atoi(tok[1]) % 10000;
		return;
	}
	if (!strcmp(tok[0], "name") && nt >= 3 && parse_gpu(tok[1]) >= 0) {
		struct device *d = &fake.dev[parse_gpu(tok[1])];
		d->name[0] = 0;
		for (int i = 2; i < nt; i++) {
			if (i > 2)
				strncat(d->name, " ", sizeof(d->name) - strlen(d->name) - 1);
			strncat(d->name, tok[i], sizeof(d->name) - strlen(d->name) - 1);
		}
		return;
	}
	if (!strcmp(tok[0], "energy") && nt == 3 && !strcmp(tok[2], "power") && parse_gpu(tok[1]) >= 0) {
		fake.dev[parse_gpu(tok[1])].energy_from_power = 1;
		return;
	}
	if (fake.nrules == MAX_RULES || nt < 3 || parse_gpu(tok[1]) < 0)
		goto bad;
	r = &fake.rules[fake.nrules];
	memset(r, 0, sizeof(*r));
	r->gpu = parse_gpu(tok[1]);
	r->from = 0;
	r->to = LLONG_MAX;
	if (!strcmp(tok[0], "set") && nt >= 4 && (r->field = field_of(tok[2])) >= 0) {
		r->kind = RK_SET;
		r->value = strtoll(tok[3], NULL, 0);
		if (nt > 4)
			r->from = atoll(tok[4]);
		if (nt > 5)
			r->to = atoll(tok[5]);
	} else if (!strcmp(tok[0], "unsupported") && (r->field = field_of(tok[2])) >= 0) {
		r->kind = RK_UNSUPPORTED;
		if (nt > 3)
			r->from = atoll(tok[3]);
		if (nt > 4)
			r->to = atoll(tok[4]);
	} else if (!strcmp(tok[0], "lost") && nt == 4) {
		r->kind = RK_LOST;
		r->from = atoll(tok[2]);
		r->to = atoll(tok[3]);
	} else if (!strcmp(tok[0], "hang") && nt == 4) {
		r->kind = RK_HANG;
		r->from = r->to = atoll(tok[2]);
		r->value = atoll(tok[3]);
	} else if (!strcmp(tok[0], "xid") && nt == 4) {
		r->kind = RK_XID;
		r->from = atoll(tok[2]);
		r->value = atoll(tok[3]);
	} else if (!strcmp(tok[0], "procsm") && nt == 4) {
		/* "procsm GPU PID SM": the process's own SM % (nvmlDeviceGetProcessUtilization) */
		r->kind = RK_PROC_SM;
		r->value = atoll(tok[2]);
		r->value2 = atoll(tok[3]);
	} else if (!strcmp(tok[0], "proc") && nt >= 4) {
		r->kind = RK_PROC;
		r->field = F_PROC;
		r->value = atoll(tok[2]);
		r->value2 = atoll(tok[3]);
		if (nt > 4)
			r->from = atoll(tok[4]);
		if (nt > 5)
			r->to = atoll(tok[5]);
	} else {
		goto bad;
	}
	fake.nrules++;
	return;
bad:
	fprintf(stderr, "fake-nvml: %s:%d: bad scenario line\n", path, lineno);
}

static void load(void)
{
	const char *path = getenv("FAKE_NVML_SCENARIO");
	char line[512];
	int lineno = 0;
	FILE *f;

	for (int i = 0; i < MAX_GPUS; i++) {
		fake.dev[i].index = i;
		snprintf(fake.dev[i].name, sizeof(fake.dev[i].name), "NVIDIA H200");
		atomic_init(&fake.dev[i].energy_mj, 1000000ULL * (unsigned)(i + 1));
		pthread_mutex_init(&fake.dev[i].emu, NULL);
	}
	if (!path || !*path)
		return;
	if (!(f = fopen(path, "r"))) {
		fprintf(stderr, "fake-nvml: cannot open %s: %s\n", path, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f))
		load_line(line, ++lineno, path);
	fclose(f);
}

static struct device *dev_of(void *h)
{
	struct device *d = h;

	if (!d || d < fake.dev || d >= fake.dev + fake.ndev)
		return NULL;
	return d;
}

static long long tick_of(const struct device *d)
{
	/* the utilization call counts ticks; other calls in the tick see the same number */
	long long t = atomic_load(&d->tick);
	return t > 0 ? t - 1 : 0;
}

static int lost(const struct device *d, long long t)
{
	for (int i = 0; i < fake.nrules; i++) {
		const struct rule *r = &fake.rules[i];
		if (r->kind == RK_LOST && r->gpu == d->index && t >= r->from && t <= r->to)
			return 1;
	}
	return 0;
}

/* 0 and *v, 3 (NOT_SUPPORTED), or 15 (GPU_IS_LOST) */
static int get(void *h, int field, long long *v)
{
	struct device *d = dev_of(h);
	long long t;
	int rc = 0;

	if (!atomic_load(&fake.inited))
		return 1;
	if (!d)
		return 2;
	t = tick_of(d);
	if (lost(d, t))
		return 15;
	*v = field_default[field];
	for (int i = 0; i < fake.nrules; i++) {
		const struct rule *r = &fake.rules[i];
		if (r->gpu != d->index || r->field != field || t < r->from || t > r->to)
			continue;
		if (r->kind == RK_SET) {
			*v = r->value;
			rc = 0;
		} else if (r->kind == RK_UNSUPPORTED) {
			rc = 3;
		}
	}
	return rc;
}

static int get_u(void *h, int field, unsigned int *out)
{
	long long v;
	int rc;

	if (!out)
		return 2;
	if ((rc = get(h, field, &v)))
		return rc;
	*out = (unsigned int)v;
	return 0;
}

/* ---- the exported API ----------------------------------------------------- */

EXPORT int nvmlInit_v2(void);
EXPORT int nvmlInit(void);
EXPORT int nvmlInitWithFlags(unsigned int flags);
EXPORT int nvmlShutdown(void);
EXPORT const char *nvmlErrorString(int rc);
EXPORT int nvmlSystemGetDriverVersion(char *buf, unsigned int len);
EXPORT int nvmlDeviceGetCount_v2(unsigned int *n);
EXPORT int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **h);
EXPORT int nvmlDeviceGetName(void *h, char *buf, unsigned int len);
EXPORT int nvmlDeviceGetUUID(void *h, char *buf, unsigned int len);
EXPORT int nvmlDeviceGetPciInfo_v3(void *h, void *pci);
EXPORT int nvmlDeviceGetIndex(void *h, unsigned int *i);
EXPORT int nvmlDeviceGetUtilizationRates(void *h, unsigned int *u);
EXPORT int nvmlDeviceGetMemoryInfo(void *h, unsigned long long *m);
EXPORT int nvmlDeviceGetPowerUsage(void *h, unsigned int *mw);
EXPORT int nvmlDeviceGetEnforcedPowerLimit(void *h, unsigned int *mw);
EXPORT int nvmlDeviceGetTemperature(void *h, int sensor, unsigned int *c);
EXPORT int nvmlDeviceGetClockInfo(void *h, int type, unsigned int *mhz);
EXPORT int nvmlDeviceGetCurrentClocksThrottleReasons(void *h, unsigned long long *m);
EXPORT int nvmlDeviceGetPerformanceState(void *h, int *p);
EXPORT int nvmlDeviceGetCurrPcieLinkGeneration(void *h, unsigned int *g);
EXPORT int nvmlDeviceGetCurrPcieLinkWidth(void *h, unsigned int *w);
EXPORT int nvmlDeviceGetComputeRunningProcesses(void *h, unsigned int *n, void *infos);

/* $FAKE_NVML_INIT_RC makes every init fail with that code (18: the
 * NVML/RM version mismatch of a driver upgraded without a reboot). */
static int do_init(void)
{
	const char *rc = getenv("FAKE_NVML_INIT_RC");

	if (rc && atoi(rc))
		return atoi(rc);
	pthread_once(&fake.once, load);
	atomic_fetch_add(&fake.inited, 1);
	return 0;
}

int nvmlInit_v2(void) { return do_init(); }
int nvmlInit(void) { return do_init(); }
int nvmlInitWithFlags(unsigned int flags) { (void)flags; return do_init(); }

int nvmlShutdown(void)
{
	if (atomic_load(&fake.inited) <= 0)
		return 1;
	atomic_fetch_sub(&fake.inited, 1);
	return 0;
}

const char *nvmlErrorString(int rc)
{
	switch (rc) {
	case 0: return "Success";
	case 1: return "Uninitialized";
	case 2: return "Invalid Argument";
	case 3: return "Not Supported";
	case 7: return "Insufficient Size";
	case 10: return "Timeout";
	case 15: return "GPU is lost";
	case 18: return "RM has detected an NVML/RM version mismatch.";
	default: return "Unknown Error";
	}
}

int nvmlSystemGetDriverVersion(char *buf, unsigned int len)
{
	if (!buf || len < 16)
		return 7;
	/* $FAKE_NVML_DRIVER_VERSION: the user-space version to report */
	snprintf(buf, len, "%s", getenv("FAKE_NVML_DRIVER_VERSION") ? getenv("FAKE_NVML_DRIVER_VERSION") : "580.0-fake");
	return 0;
}

/* $FAKE_NVML_PERSISTENCE (0 or 1) answers nvmlDeviceGetPersistenceMode;
 * unset, the call is not supported (doctor then looks for the daemon). */
EXPORT int nvmlDeviceGetPersistenceMode(void *h, int *mode);
int nvmlDeviceGetPersistenceMode(void *h, int *mode)
{
	const char *e = getenv("FAKE_NVML_PERSISTENCE");

	(void)h;
	if (!e)
		return 3;
	*mode = atoi(e) ? 1 : 0;
	return 0;
}

int nvmlDeviceGetCount_v2(unsigned int *n)
{
	if (!atomic_load(&fake.inited))
		return 1;
	*n = (unsigned int)fake.ndev;
	return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **h)
{
	if (!atomic_load(&fake.inited))
		return 1;
	if (i >= (unsigned int)fake.ndev || !h)
		return 2;
	/* handles stay valid while a GPU is lost, so its tick count keeps going */
	*h = &fake.dev[i];
	return 0;
}

int nvmlDeviceGetName(void *h, char *buf, unsigned int len)
{
	struct device *d = dev_of(h);
	if (!d || !buf)
		return 2;
	if (strlen(d->name) >= len)
		return 7;
	memcpy(buf, d->name, strlen(d->name) + 1);
	return 0;
}

int nvmlDeviceGetUUID(void *h, char *buf, unsigned int len)
{
	struct device *d = dev_of(h);
	if (!d || !buf)
		return 2;
	if (len < 41)
		return 7;
	snprintf(buf, len, "GPU-fa4e0000-0000-4000-8000-0000%04d%02d", fake.node < 0 ? 0 : fake.node, d->index);
	return 0;
}

/* nvmlPciInfo_t: domain, bus and device after the 16-byte legacy id;
 * GPU i sits on bus 0x3b + i of domain 0. */
int nvmlDeviceGetPciInfo_v3(void *h, void *pci)
{
	struct device *d = dev_of(h);
	unsigned int f[5] = { 0, 0, 0, 0x233510de, 0 };
	char *p = pci;

	if (!d || !pci)
		return 2;
	f[1] = 0x3bu + (unsigned int)d->index;
	memset(p, 0, 68);
	snprintf(p, 16, "0000:%02x:00.0", f[1]);
	memcpy(p + 16, f, sizeof(f));
	snprintf(p + 36, 32, "00000000:%02x:00.0", f[1]);
	return 0;
}

int nvmlDeviceGetIndex(void *h, unsigned int *i)
{
	struct device *d = dev_of(h);
	if (!d || !i)
		return 2;
	*i = (unsigned int)d->index;
	return 0;
}

static long long mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The power rules of tick t, whether the GPU answers then or not. */
static long long power_at(const struct device *d, long long t)
{
	long long v = field_default[F_POWER];
	for (int i = 0; i < fake.nrules; i++) {
		const struct rule *r = &fake.rules[i];
		if (r->kind == RK_SET && r->gpu == d->index && r->field == F_POWER &&
		    t >= r->from && t <= r->to)
			v = r->value;
	}
	return v;
}

/* A new tick starts: close the energy of the last one. */
static void energy_tick(struct device *d, long long t)
{
	long long now = mono_ns();

	pthread_mutex_lock(&d->emu);
	if (d->tick_started)
		d->acc_mj += (double)d->tick_power_mw * (double)(now - d->tick_start_ns) / 1e9;
	d->tick_started = 1;
	d->tick_start_ns = now;
	d->tick_power_mw = power_at(d, t);
	pthread_mutex_unlock(&d->emu);
}

int nvmlDeviceGetUtilizationRates(void *h, unsigned int *u)
{
	struct device *d = dev_of(h);
	long long t;
	int rc;

	if (!d || !u)
		return 2;
	t = atomic_fetch_add(&d->tick, 1);
	if (d->energy_from_power)
		energy_tick(d, t);
	for (int i = 0; i < fake.nrules; i++) {
		const struct rule *r = &fake.rules[i];
		if (r->kind == RK_HANG && r->gpu == d->index && r->from == t) {
			struct timespec ts = { r->value / 1000, (r->value % 1000) * 1000000L };
			while (nanosleep(&ts, &ts) && errno == EINTR)
				;
		}
	}
	if ((rc = get_u(h, F_UTIL_GPU, &u[0])))
		return rc;
	return get_u(h, F_UTIL_MEM, &u[1]);
}

static int mem_fields(void *h, long long *total, long long *used, long long *reserved)
{
	int rc;
	if ((rc = get(h, F_MEM_TOTAL, total)) || (rc = get(h, F_MEM_USED, used)) ||
	    (rc = get(h, F_MEM_RESERVED, reserved)))
		return rc;
	return 0;
}

/* nvmlMemory_t: total, free, used (bytes) */
int nvmlDeviceGetMemoryInfo(void *h, unsigned long long *m)
{
	long long t, u, r;
	int rc;
	if (!m)
		return 2;
	if ((rc = mem_fields(h, &t, &u, &r)))
		return rc;
	m[0] = (unsigned long long)t << 20;
	m[2] = (unsigned long long)u << 20;
	m[1] = m[0] - m[2];
	return 0;
}

int nvmlDeviceGetPowerUsage(void *h, unsigned int *mw) { return get_u(h, F_POWER, mw); }
int nvmlDeviceGetEnforcedPowerLimit(void *h, unsigned int *mw) { return get_u(h, F_POWER_LIMIT, mw); }

int nvmlDeviceGetTemperature(void *h, int sensor, unsigned int *c)
{
	return sensor == 0 ? get_u(h, F_TEMP, c) : 2;
}

int nvmlDeviceGetClockInfo(void *h, int type, unsigned int *mhz)
{
	if (type == 1)
		return get_u(h, F_SM_CLOCK, mhz);
	if (type == 2)
		return get_u(h, F_MEM_CLOCK, mhz);
	return 3;
}

int nvmlDeviceGetCurrentClocksThrottleReasons(void *h, unsigned long long *m)
{
	long long v;
	int rc;
	if (!m)
		return 2;
	if ((rc = get(h, F_REASONS, &v)))
		return rc;
	*m = (unsigned long long)v;
	return 0;
}

int nvmlDeviceGetPerformanceState(void *h, int *p)
{
	long long v;
	int rc;
	if (!p)
		return 2;
	if ((rc = get(h, F_PSTATE, &v)))
		return rc;
	*p = (int)v;
	return 0;
}

int nvmlDeviceGetCurrPcieLinkGeneration(void *h, unsigned int *g) { return get_u(h, F_PCIE_GEN, g); }
int nvmlDeviceGetCurrPcieLinkWidth(void *h, unsigned int *w) { return get_u(h, F_PCIE_WIDTH, w); }

/* The size handshake of formats.md 7.4; stride is the caller's struct size. */
static int procs(void *h, unsigned int *n, void *infos, size_t stride)
{
	struct device *d = dev_of(h);
	unsigned int have = 0;
	long long t, v;
	int rc;

	if (!d || !n)
		return 2;
	if ((rc = get(h, F_UTIL_GPU, &v)) && rc != 3)
		return rc;
	t = tick_of(d);
	for (int i = 0; i < fake.nrules; i++) {
		const struct rule *r = &fake.rules[i];
		if (r->kind == RK_PROC && r->gpu == d->index && t >= r->from && t <= r->to)
			have++;
	}
	if (have > *n) {
		*n = have;
		return 7;
	}
	*n = 0;
	for (int i = 0; i < fake.nrules; i++) {
		const struct rule *r = &fake.rules[i];
		char *slot;
		unsigned int pid;
		unsigned long long bytes;
		if (r->kind != RK_PROC || r->gpu != d->index || t < r->from || t > r->to)
			continue;
		slot = (char *)infos + (size_t)*n * stride;
		memset(slot, stride == 24 ? 0xff : 0, stride);
		pid = (unsigned int)r->value;
		bytes = r->value2 < 0 ? ~0ULL : (unsigned long long)r->value2 << 20;
		memcpy(slot, &pid, sizeof(pid));
		memcpy(slot + 8, &bytes, sizeof(bytes));
		(*n)++;
	}
	return 0;
}

int nvmlDeviceGetComputeRunningProcesses(void *h, unsigned int *n, void *infos)
{
	return procs(h, n, infos, 16);
}

#ifndef FAKE_NVML_MINIMAL
EXPORT int nvmlDeviceGetMemoryInfo_v2(void *h, unsigned long long *m);
EXPORT int nvmlDeviceGetCurrentClocksEventReasons(void *h, unsigned long long *m);
EXPORT int nvmlDeviceGetComputeRunningProcesses_v3(void *h, unsigned int *n, void *infos);
EXPORT int nvmlDeviceGetComputeRunningProcesses_v2(void *h, unsigned int *n, void *infos);
EXPORT int nvmlDeviceGetTotalEnergyConsumption(void *h, unsigned long long *mj);
EXPORT int nvmlDeviceGetProcessUtilization(void *h, void *samples, unsigned int *n, unsigned long long last_us);
EXPORT int nvmlEventSetCreate(void **set);
EXPORT int nvmlDeviceGetSupportedEventTypes(void *h, unsigned long long *mask);
EXPORT int nvmlDeviceRegisterEvents(void *h, unsigned long long mask, void *set);
EXPORT int nvmlEventSetWait_v2(void *set, void *data, unsigned int timeout_ms);
EXPORT int nvmlEventSetFree(void *set);

/* nvmlMemory_v2_t: version, pad, total, reserved, free, used */
int nvmlDeviceGetMemoryInfo_v2(void *h, unsigned long long *m)
{
	long long t, u, r;
	unsigned int version;
	int rc;

	if (!m)
		return 2;
	memcpy(&version, m, sizeof(version));
	if (version != 0x02000028u)
		return 25;
	if ((rc = mem_fields(h, &t, &u, &r)))
		return rc;
	m[1] = (unsigned long long)t << 20;
	m[2] = (unsigned long long)r << 20;
	m[4] = (unsigned long long)u << 20;
	m[3] = m[1] - m[2] - m[4];
	return 0;
}

int nvmlDeviceGetCurrentClocksEventReasons(void *h, unsigned long long *m)
{
	return nvmlDeviceGetCurrentClocksThrottleReasons(h, m);
}

int nvmlDeviceGetComputeRunningProcesses_v3(void *h, unsigned int *n, void *infos)
{
	return procs(h, n, infos, 24);
}

int nvmlDeviceGetComputeRunningProcesses_v2(void *h, unsigned int *n, void *infos)
{
	return procs(h, n, infos, 24);
}

/*
 * nvmlProcessUtilizationSample_t (pid, pad, timestamp, sm, mem, enc, dec:
 * 32 bytes) of each process running now that a "procsm" rule gives an SM %,
 * stamped with the tick (microseconds) so that a later call with that
 * timestamp as last seen gets nothing new until the next tick; NOT_FOUND
 * (6) when there is none.
 */
int nvmlDeviceGetProcessUtilization(void *h, void *samples, unsigned int *n, unsigned long long last_us)
{
	struct device *d = dev_of(h);
	unsigned int have = 0;
	long long t;

	if (!d || !n)
		return 2;
	t = tick_of(d);
	for (int i = 0; i < fake.nrules; i++) {
		const struct rule *r = &fake.rules[i];
		unsigned long long ts = (unsigned long long)(t + 1) * 1000000ULL;
		if (r->kind != RK_PROC_SM || r->gpu != d->index || ts <= last_us)
			continue;
		for (int k = 0; k < fake.nrules; k++) {
			const struct rule *p = &fake.rules[k];
			unsigned char slot[32];
			unsigned int pid, sm, zero = 0;
			if (p->kind != RK_PROC || p->gpu != d->index || p->value != r->value || t < p->from || t > p->to)
				continue;
			if (!samples || have >= *n) {
				have++;
				continue;
			}
			memset(slot, 0, sizeof(slot));
			pid = (unsigned int)r->value;
			sm = (unsigned int)r->value2;
			memcpy(slot, &pid, 4);
			memcpy(slot + 8, &ts, 8);
			memcpy(slot + 16, &sm, 4);
			memcpy(slot + 20, &zero, 4);
			memcpy((char *)samples + (size_t)have * 32, slot, 32);
			have++;
			break;
		}
	}
	if (!have)
		return 6;
	if (have > *n || !samples) {
		*n = have;
		return 7;
	}
	*n = have;
	return 0;
}

int nvmlDeviceGetTotalEnergyConsumption(void *h, unsigned long long *mj)
{
	struct device *d = dev_of(h);
	long long step;
	int rc;

	if (!d || !mj)
		return 2;
	if ((rc = get(h, F_ENERGY_STEP, &step)))
		return rc;
	if (d->energy_from_power) {
		double e = 0;
		pthread_mutex_lock(&d->emu);
		if (d->tick_started)
			e = d->acc_mj + (double)d->tick_power_mw * (double)(mono_ns() - d->tick_start_ns) / 1e9;
		pthread_mutex_unlock(&d->emu);
		*mj = atomic_load(&d->energy_mj) + (unsigned long long)e;
		return 0;
	}
	*mj = atomic_fetch_add(&d->energy_mj, (unsigned long long)step) + (unsigned long long)step;
	return 0;
}

static int event_set_token;

int nvmlEventSetCreate(void **set)
{
	if (!set)
		return 2;
	*set = &event_set_token;
	return 0;
}

int nvmlDeviceGetSupportedEventTypes(void *h, unsigned long long *mask)
{
	if (!dev_of(h) || !mask)
		return 2;
	*mask = 0x8 | 0x4;
	return 0;
}

int nvmlDeviceRegisterEvents(void *h, unsigned long long mask, void *set)
{
	if (!dev_of(h) || set != &event_set_token || (mask & ~0xcULL))
		return 2;
	return 0;
}

/* nvmlEventData_t: device @0, eventType @8, eventData @16 */
int nvmlEventSetWait_v2(void *set, void *data, unsigned int timeout_ms)
{
	unsigned int waited_ms = 0;

	if (set != &event_set_token || !data)
		return 2;
	/* nothing left to deliver: block like the real call, without polling */
	{
		int pending = 0;
		for (int i = 0; i < fake.nrules; i++)
			if (fake.rules[i].kind == RK_XID && !atomic_load(&fake.rules[i].delivered))
				pending = 1;
		if (!pending) {
			struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };
			while (nanosleep(&ts, &ts) && errno == EINTR)
				;
			return 10;
		}
	}
	for (;;) {
		for (int i = 0; i < fake.nrules; i++) {
			struct rule *r = &fake.rules[i];
			void *dev = &fake.dev[r->gpu];
			unsigned long long type = 0x8, code = (unsigned long long)r->value;
			int expect = 0;
			if (r->kind != RK_XID || tick_of(&fake.dev[r->gpu]) < r->from)
				continue;
			if (!atomic_compare_exchange_strong(&r->delivered, &expect, 1))
				continue;
			memset(data, 0, 32);
			memcpy(data, &dev, sizeof(dev));
			memcpy((char *)data + 8, &type, sizeof(type));
			memcpy((char *)data + 16, &code, sizeof(code));
			return 0;
		}
		if (waited_ms >= timeout_ms)
			return 10;
		{
			struct timespec ts = { 0, 5 * 1000000L };
			nanosleep(&ts, NULL);
		}
		waited_ms += 5;
	}
}

int nvmlEventSetFree(void *set)
{
	return set == &event_set_token ? 0 : 2;
}
#endif
