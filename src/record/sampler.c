/* SPDX-License-Identifier: MIT */
/* Per-GPU worker threads that sample NVML on each tick (see sampler.h). */
#include "record/sampler.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "record/ralloc.h"
#include "util/timeutil.h"

#define EVENT_QUEUE 64
#define EVENT_WAIT_MS 200	/* bounds how long stopping waits for the event thread */
#define ENERGY_MIN_PERIOD_NS NS_PER_S
/* The counter's read (about 3 ms) goes inside the tick from this interval on,
 * where three quarters of an interval leave room for it; below, it is read
 * after the sample is handed in and so belongs to the next row (at most this
 * much later than its row's time). */
#define ENERGY_INLINE_MIN_NS (20 * NS_PER_MS)

struct worker {
	struct sampler *s;
	unsigned int slot;
	pthread_t thread;
	bool started;
	struct nvml_device *dev;
	bool need_handle;	/* re-fetch the handle after a loss */
	bool mem_v1;		/* the v2 memory call is missing or refused */
	uint64_t done_gen;	/* under s->mu */
	bool busy;		/* inside NVML; under s->mu */
	struct gpu_sample work;	/* written by the worker between go and done */
	/* worker-private: the slow energy counter (see sampler.h) */
	int64_t energy_read_mono_ns;
	bool energy_present;
	bool energy_new;	/* energy_mj not yet written as a reading of its own */
	int64_t energy_mj;
	int energy_rc;
	unsigned char procbuf[SAMPLER_MAX_PROCS * sizeof(struct nvml_process_v2)];
	/* per-process utilization: the newest sample time seen (microseconds) */
	unsigned long long util_seen_us;
	struct nvml_proc_util utilbuf[SAMPLER_MAX_PROCS];
	/* who each pid belongs to, read from /proc once a minute per pid */
	struct who_cache {
		uint32_t pid;
		int64_t at_ns;
		struct proc_who_info who;
	} who[SAMPLER_MAX_PROCS];
	unsigned int who_next;
};

struct sampler {
	struct nvml *nvml;
	int64_t energy_period_ns;
	int64_t interval_ns;
	bool energy_inline;	/* read the counter inside the tick */
	char proc_root[200];	/* "/proc", or $GPUTALLY_PROC_ROOT */
	struct uid_names *users;	/* user names by uid, read at start */
	bool child_ns;		/* we run in a child pid namespace (a container) */
	unsigned int ngpus;
	struct gpu_info gpus[SAMPLER_MAX_GPUS];
	struct worker *workers;
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	uint64_t gen;
	bool stop;
	/* events */
	struct nvml_event_set *evset;
	pthread_t ev_thread;
	bool ev_started;
	atomic_bool ev_stop;
	pthread_mutex_t ev_mu;
	struct sampler_event evq[EVENT_QUEUE];
	unsigned int ev_head, ev_n;
	uint64_t ev_dropped;
};

int64_t mono_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

int64_t wall_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/*
 * Note an NVML answer.  true: a reading.  false: no reading; an answer that
 * says the GPU is gone also sets the sample's status, and *fatal tells the
 * caller to stop asking this GPU for the rest of the tick.
 */
static bool got(struct gpu_sample *o, int rc, bool *fatal)
{
	uint8_t st;

	switch (rc) {
	case NVML_OK:
		return true;
	case NVML_E_NOT_SUPPORTED:
	case NVML_E_NO_PERMISSION:
	case NVML_E_FUNCTION_NOT_FOUND:
	case NVML_E_NOT_FOUND:
	case NVML_E_NO_DATA:
		return false;	/* an empty cell, not a problem with the GPU */
	case NVML_E_GPU_IS_LOST:
		st = GST_LOST;
		*fatal = true;
		break;
	case NVML_E_RESET_REQUIRED:
		st = GST_RESET;
		*fatal = true;
		break;
	case NVML_E_TIMEOUT:
		st = GST_TIMEOUT;
		*fatal = true;
		break;
	default:
		st = GST_ERROR;
		break;
	}
	if (o->status == GST_OK) {
		o->status = st;
		o->err_rc = rc;
	}
	return false;
}

static void put(struct gpu_sample *o, enum tally_col c, int64_t v)
{
	o->v[c] = v;
	o->present |= 1u << c;
}

static void proc_who(struct worker *w, uint32_t pid, struct proc_who_info *out);

static void sample_procs(struct worker *w, struct gpu_sample *o, bool *fatal)
{
	const struct nvml_api *a = &w->s->nvml->api;
	unsigned int n = SAMPLER_MAX_PROCS;
	size_t stride;
	int rc;

	/* Asking with room for the most we keep, in one call, leaves no window
	 * between a size query and the read for processes to appear in. */
	if (a->device_get_compute_procs_v2) {
		rc = a->device_get_compute_procs_v2(w->dev, &n, (struct nvml_process_v2 *)(void *)w->procbuf);
		stride = sizeof(struct nvml_process_v2);
	} else if (a->device_get_compute_procs_v1) {
		rc = a->device_get_compute_procs_v1(w->dev, &n, (struct nvml_process_v1 *)(void *)w->procbuf);
		stride = sizeof(struct nvml_process_v1);
	} else {
		return;
	}
	if (rc == NVML_E_INSUFFICIENT_SIZE || !got(o, rc, fatal) || n > SAMPLER_MAX_PROCS)
		return;	/* more than we keep, or unreadable: unknown, not "none" */
	o->procs_known = true;
	o->nprocs = n;
	for (unsigned int i = 0; i < n; i++) {
		unsigned int pid;
		unsigned long long used;
		memcpy(&pid, w->procbuf + i * stride, sizeof(pid));
		memcpy(&used, w->procbuf + i * stride + 8, sizeof(used));
		o->procs[i].pid = pid;
		o->procs[i].mem_mib = used == NVML_VALUE_NOT_AVAILABLE ? -1 : (int64_t)(used >> 20);
		o->procs[i].sm_pct = -1;
		proc_who(w, pid, &o->procs[i].who);
	}
}

#define WHO_REFRESH_NS (60 * NS_PER_S)

/* Who pid belongs to: from the worker's cache, read again once a minute. */
static void proc_who(struct worker *w, uint32_t pid, struct proc_who_info *out)
{
	int64_t now = mono_now_ns();
	struct who_cache *c = NULL;

	for (unsigned int i = 0; i < SAMPLER_MAX_PROCS && !c; i++)
		if (w->who[i].at_ns && w->who[i].pid == pid)
			c = &w->who[i];
	if (!c) {
		c = &w->who[w->who_next];
		w->who_next = (w->who_next + 1) % SAMPLER_MAX_PROCS;
		c->at_ns = 0;
	}
	if (!c->at_ns || now - c->at_ns > WHO_REFRESH_NS) {
		procinfo_read(w->s->proc_root, pid, w->s->child_ns, w->s->users, &c->who);
		c->pid = pid;
		c->at_ns = now;
	}
	*out = c->who;
}

/*
 * Each process's own SM share, where NVML gives per-process utilization
 * (nvmlDeviceGetProcessUtilization): the newest sample of each pid since
 * the last call.  A pid with no sample since keeps -1 (unknown); any error
 * leaves them all unknown.
 */
static void sample_proc_util(struct worker *w, struct gpu_sample *o)
{
	const struct nvml_api *a = &w->s->nvml->api;
	unsigned int n = SAMPLER_MAX_PROCS;
	unsigned long long newest = w->util_seen_us;

	if (!a->device_get_process_utilization || !o->procs_known || !o->nprocs)
		return;
	if (a->device_get_process_utilization(w->dev, w->utilbuf, &n, w->util_seen_us) != NVML_OK ||
	    n > SAMPLER_MAX_PROCS)
		return;
	for (unsigned int k = 0; k < n; k++) {
		const struct nvml_proc_util *u = &w->utilbuf[k];
		if (u->timestamp_us > newest)
			newest = u->timestamp_us;
		for (uint32_t i = 0; i < o->nprocs; i++)
			if (o->procs[i].pid == u->pid && u->sm_util <= 100)
				o->procs[i].sm_pct = (int16_t)u->sm_util;
	}
	w->util_seen_us = newest;
}

static void read_energy(struct worker *w);

static void sample_gpu(struct worker *w, struct gpu_sample *o)
{
	const struct nvml_api *a = &w->s->nvml->api;
	struct nvml_utilization u;
	unsigned int ui, ui2;
	unsigned long long ull;
	int si;
	bool fatal = false;

	o->status = GST_OK;
	o->err_rc = 0;
	o->present = 0;
	o->carried = 0;
	o->procs_known = false;
	o->nprocs = 0;
	if (w->need_handle) {
		struct nvml_device *d;
		if (!got(o, a->device_get_handle_by_index(w->s->gpus[w->slot].index, &d), &fatal))
			return;
		w->dev = d;
		w->need_handle = false;
	}
#define CALL(expr) (!fatal && got(o, (expr), &fatal))
	if (a->device_get_utilization_rates && CALL(a->device_get_utilization_rates(w->dev, &u))) {
		put(o, TC_UTIL_GPU, u.gpu_pct);
		put(o, TC_UTIL_MEM, u.memory_pct);
	}
	if (a->device_get_memory_info_v2 && !w->mem_v1) {
		struct nvml_memory_v2 m = { .version = NVML_MEMORY_V2_VERSION };
		int rc = a->device_get_memory_info_v2(w->dev, &m);
		if (rc == 25 || rc == NVML_E_FUNCTION_NOT_FOUND) {
			w->mem_v1 = true;	/* the driver refuses v2: fall back for good */
		} else if (CALL(rc)) {
			put(o, TC_MEM_USED, (int64_t)(m.used_bytes >> 20));
			put(o, TC_MEM_RESERVED, (int64_t)(m.reserved_bytes >> 20));
			/* integrated GPUs with unified memory report a total of 0 */
			if (m.total_bytes)
				put(o, TC_MEM_TOTAL, (int64_t)(m.total_bytes >> 20));
		}
	}
	if ((w->mem_v1 || !a->device_get_memory_info_v2) && a->device_get_memory_info) {
		struct nvml_memory_v1 m;
		if (CALL(a->device_get_memory_info(w->dev, &m))) {
			put(o, TC_MEM_USED, (int64_t)(m.used_bytes >> 20));
			if (m.total_bytes)
				put(o, TC_MEM_TOTAL, (int64_t)(m.total_bytes >> 20));
		}
	}
	if (a->device_get_power_usage && CALL(a->device_get_power_usage(w->dev, &ui)))
		put(o, TC_POWER, ui);
	if (a->device_get_enforced_power_limit && CALL(a->device_get_enforced_power_limit(w->dev, &ui)))
		put(o, TC_POWER_LIMIT, ui);
	if (a->device_get_temperature && CALL(a->device_get_temperature(w->dev, NVML_TEMP_GPU, &ui)))
		put(o, TC_TEMP, ui);
	if (a->device_get_clock_info) {
		if (CALL(a->device_get_clock_info(w->dev, NVML_CLOCK_SM, &ui)))
			put(o, TC_SM_CLOCK, ui);
		if (CALL(a->device_get_clock_info(w->dev, NVML_CLOCK_MEM, &ui)))
			put(o, TC_MEM_CLOCK, ui);
	}
	if (a->device_get_clocks_event_reasons && CALL(a->device_get_clocks_event_reasons(w->dev, &ull)) &&
	    ull <= INT64_MAX)
		put(o, TC_CLOCK_EVENTS, (int64_t)ull);
	/* 32 is NVML_PSTATE_UNKNOWN */
	if (a->device_get_performance_state && CALL(a->device_get_performance_state(w->dev, &si)) &&
	    si >= 0 && si <= 15)
		put(o, TC_PSTATE, si);
	if (a->device_get_pcie_gen && CALL(a->device_get_pcie_gen(w->dev, &ui)))
		put(o, TC_PCIE_GEN, ui);
	if (a->device_get_pcie_width && CALL(a->device_get_pcie_width(w->dev, &ui2)))
		put(o, TC_PCIE_WIDTH, ui2);
	if (!fatal) {
		sample_procs(w, o, &fatal);
		if (!fatal)
			sample_proc_util(w, o);
	}
#undef CALL
	if (fatal || o->status == GST_LOST || o->status == GST_RESET) {
		/* a GPU that is gone has no readings this tick, whatever came before */
		o->present = 0;
		o->procs_known = false;
		o->nprocs = 0;
		w->need_handle = true;
		w->energy_read_mono_ns = 0;
		w->energy_present = false;	/* read afresh once it is back */
		w->energy_new = false;
		return;
	}
	if (w->s->energy_inline)
		read_energy(w);
	if (w->energy_present) {
		/* a reading is written once, on the row it belongs to; later rows
		 * carry it only for Prometheus, which wants the newest value */
		put(o, TC_ENERGY, w->energy_mj);
		if (!w->energy_new)
			o->carried |= 1u << TC_ENERGY;
		w->energy_new = false;
	}
}

static void read_energy(struct worker *w)
{
	const struct nvml_api *a = &w->s->nvml->api;
	int64_t now = mono_now_ns();
	unsigned long long mj;
	int rc;

	if (!a->device_get_total_energy_consumption || w->need_handle || !w->dev)
		return;
	/* half an interval of slack: ticks jitter, and a read due at 1 s must
	 * not slip to the next tick every other time */
	if (w->energy_read_mono_ns &&
	    now - w->energy_read_mono_ns < w->s->energy_period_ns - w->s->interval_ns / 2)
		return;
	w->energy_read_mono_ns = now;
	rc = a->device_get_total_energy_consumption(w->dev, &mj);
	w->energy_rc = rc;
	w->energy_present = rc == NVML_OK && mj <= INT64_MAX;
	w->energy_new = w->energy_present;
	if (w->energy_present)
		w->energy_mj = (int64_t)mj;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct sampler *s = w->s;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		uint64_t g;
		while (!s->stop && s->gen == w->done_gen)
			pthread_cond_wait(&s->go, &s->mu);
		if (s->stop)
			break;
		g = s->gen;
		w->busy = true;
		pthread_mutex_unlock(&s->mu);
		sample_gpu(w, &w->work);
		pthread_mutex_lock(&s->mu);
		w->done_gen = g;
		pthread_cond_signal(&s->done);
		pthread_mutex_unlock(&s->mu);
		if (!s->energy_inline)
			read_energy(w);
		pthread_mutex_lock(&s->mu);
		w->busy = false;
	}
	w->busy = false;
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

static void *event_main(void *arg)
{
	struct sampler *s = arg;
	const struct nvml_api *a = &s->nvml->api;

	while (!atomic_load(&s->ev_stop)) {
		struct nvml_event_data ev;
		struct sampler_event *q;
		int rc = a->event_set_wait(s->evset, &ev, EVENT_WAIT_MS);
		if (rc == NVML_E_TIMEOUT)
			continue;
		if (rc != NVML_OK) {
			/* e.g. GPU_IS_LOST: do not spin on a broken set */
			struct timespec ts = { 0, EVENT_WAIT_MS * NS_PER_MS };
			nanosleep(&ts, NULL);
			continue;
		}
		pthread_mutex_lock(&s->ev_mu);
		if (s->ev_n == EVENT_QUEUE) {
			s->ev_dropped++;
		} else {
			q = &s->evq[(s->ev_head + s->ev_n++) % EVENT_QUEUE];
			q->t_ns = wall_now_ns();
			q->gpu = -1;
			for (unsigned int i = 0; i < s->ngpus; i++)
				if (s->workers[i].dev == ev.device)
					q->gpu = (int)i;
			q->type = ev.type;
			q->data = ev.data;
		}
		pthread_mutex_unlock(&s->ev_mu);
	}
	return NULL;
}

static void start_events(struct sampler *s)
{
	const struct nvml_api *a = &s->nvml->api;
	unsigned int registered = 0;

	if (!a->event_set_create || !a->device_register_events || !a->event_set_wait ||
	    a->event_set_create(&s->evset) != NVML_OK)
		return;
	for (unsigned int i = 0; i < s->ngpus; i++) {
		unsigned long long mask = NVML_EVENT_XID;
		if (a->device_get_supported_event_types &&
		    (a->device_get_supported_event_types(s->workers[i].dev, &mask) != NVML_OK ||
		     !(mask & NVML_EVENT_XID)))
			continue;
		if (a->device_register_events(s->workers[i].dev, NVML_EVENT_XID, s->evset) == NVML_OK)
			registered++;
	}
	if (registered && !pthread_create(&s->ev_thread, NULL, event_main, s))
		s->ev_started = true;
}

static void sanitize(char *s)
{
	/* the CSV has no quoting: keep names to one plain field */
	for (; *s; s++)
		if (*s == ',' || *s == '"' || (unsigned char)*s < 0x20)
			*s = ' ';
}

struct sampler *sampler_new(struct nvml *n, int64_t interval_ns, struct gl_err *err)
{
	const struct nvml_api *a = &n->api;
	struct sampler *s;
	pthread_condattr_t ca;
	unsigned int count;
	int rc;

	rc = a->device_get_count(&count);
	if (rc != NVML_OK) {
		gl_err_set(err, GL_EIO, "nvmlDeviceGetCount failed: %s (NVML error %d)",
			   nvml_strerror(n, rc), rc);
		return NULL;
	}
	if (count > SAMPLER_MAX_GPUS)
		count = SAMPLER_MAX_GPUS;
	s = rec_calloc(1, sizeof(*s));
	s->nvml = n;
	s->energy_period_ns = interval_ns > ENERGY_MIN_PERIOD_NS ? interval_ns : ENERGY_MIN_PERIOD_NS;
	s->interval_ns = interval_ns;
	s->energy_inline = interval_ns >= ENERGY_INLINE_MIN_NS;
	{
		const char *root = getenv("GPUTALLY_PROC_ROOT");
		snprintf(s->proc_root, sizeof(s->proc_root), "%s", root && root[0] ? root : "/proc");
		s->child_ns = procinfo_child_ns(s->proc_root);
		s->users = rec_calloc(1, sizeof(*s->users));
		procinfo_users(s->users);
	}
	s->ngpus = count;
	s->workers = rec_calloc(count ? count : 1, sizeof(*s->workers));
	pthread_mutex_init(&s->mu, NULL);
	pthread_mutex_init(&s->ev_mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->go, NULL);
	pthread_cond_init(&s->done, &ca);
	pthread_condattr_destroy(&ca);
	for (unsigned int i = 0; i < count; i++) {
		struct worker *w = &s->workers[i];
		struct gpu_info *g = &s->gpus[i];
		w->s = s;
		w->slot = i;
		g->index = i;
		w->need_handle = a->device_get_handle_by_index(i, &w->dev) != NVML_OK;
		if (!w->need_handle && a->device_get_uuid)
			a->device_get_uuid(w->dev, g->uuid, sizeof(g->uuid));
		if (!w->need_handle && a->device_get_name)
			a->device_get_name(w->dev, g->name, sizeof(g->name));
		if (!w->need_handle && a->device_get_pci_info) {
			/* the kernel log names a GPU by this address (report maps it) */
			struct nvml_pci_info pi;
			memset(&pi, 0, sizeof(pi));
			if (a->device_get_pci_info(w->dev, &pi) == NVML_OK && pi.domain <= 0xffff &&
			    pi.bus <= 0xff && pi.device <= 0x1f)
				snprintf(g->bus_id, sizeof(g->bus_id), "%04x:%02x:%02x.0", pi.domain,
					 pi.bus, pi.device);
		}
		g->uuid[sizeof(g->uuid) - 1] = g->name[sizeof(g->name) - 1] = 0;
		sanitize(g->uuid);
		sanitize(g->name);
	}
	for (unsigned int i = 0; i < count; i++) {
		rc = pthread_create(&s->workers[i].thread, NULL, worker_main, &s->workers[i]);
		if (rc) {
			gl_err_set(err, GL_EIO, "cannot start a sampling thread: %s", strerror(rc));
			sampler_free(s);
			return NULL;
		}
		s->workers[i].started = true;
	}
	start_events(s);
	return s;
}

unsigned int sampler_ngpus(const struct sampler *s)
{
	return s->ngpus;
}

const struct gpu_info *sampler_gpu(const struct sampler *s, unsigned int i)
{
	return i < s->ngpus ? &s->gpus[i] : NULL;
}

static bool all_done(const struct sampler *s)
{
	for (unsigned int i = 0; i < s->ngpus; i++)
		if (s->workers[i].done_gen != s->gen)
			return false;
	return true;
}

void sampler_tick(struct sampler *s, int64_t deadline_mono_ns, struct gpu_sample *out)
{
	struct timespec ts = { deadline_mono_ns / NS_PER_S, deadline_mono_ns % NS_PER_S };

	pthread_mutex_lock(&s->mu);
	s->gen++;
	pthread_cond_broadcast(&s->go);
	while (!all_done(s))
		if (pthread_cond_timedwait(&s->done, &s->mu, &ts) == ETIMEDOUT)
			break;
	for (unsigned int i = 0; i < s->ngpus; i++) {
		struct worker *w = &s->workers[i];
		if (w->done_gen == s->gen) {
			memcpy(&out[i], &w->work, offsetof(struct gpu_sample, procs) +
			       w->work.nprocs * sizeof(w->work.procs[0]));
		} else {
			out[i].status = GST_TIMEOUT;
			out[i].err_rc = 0;
			out[i].present = 0;
			out[i].carried = 0;
			out[i].procs_known = false;
			out[i].nprocs = 0;
		}
	}
	pthread_mutex_unlock(&s->mu);
}

bool sampler_next_event(struct sampler *s, struct sampler_event *ev)
{
	bool have = false;

	pthread_mutex_lock(&s->ev_mu);
	if (s->ev_n) {
		*ev = s->evq[s->ev_head];
		s->ev_head = (s->ev_head + 1) % EVENT_QUEUE;
		s->ev_n--;
		have = true;
	}
	pthread_mutex_unlock(&s->ev_mu);
	return have;
}

uint64_t sampler_events_dropped(const struct sampler *s)
{
	return s->ev_dropped;
}

bool sampler_free(struct sampler *s)
{
	bool stuck = false;

	if (!s)
		return true;
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	pthread_cond_broadcast(&s->go);
	/* a worker in a normal call (the energy read) is done in milliseconds */
	for (int tries = 0; tries < 40; tries++) {
		struct timespec ts = { 0, 5 * NS_PER_MS };
		stuck = false;
		for (unsigned int i = 0; i < s->ngpus; i++)
			if (s->workers[i].busy)
				stuck = true;
		if (!stuck)
			break;
		pthread_mutex_unlock(&s->mu);
		nanosleep(&ts, NULL);
		pthread_mutex_lock(&s->mu);
	}
	pthread_mutex_unlock(&s->mu);
	atomic_store(&s->ev_stop, true);
	if (s->ev_started)
		pthread_join(s->ev_thread, NULL);
	s->ev_started = false;
	if (stuck)
		return false;	/* a thread is inside NVML: leave everything in place */
	for (unsigned int i = 0; i < s->ngpus; i++)
		if (s->workers[i].started)
			pthread_join(s->workers[i].thread, NULL);
	if (s->evset && s->nvml->api.event_set_free)
		s->nvml->api.event_set_free(s->evset);
	pthread_mutex_destroy(&s->mu);
	pthread_mutex_destroy(&s->ev_mu);
	pthread_cond_destroy(&s->go);
	pthread_cond_destroy(&s->done);
	free(s->workers);
	free(s->users);
	free(s);
	return true;
}
