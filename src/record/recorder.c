/* SPDX-License-Identifier: MIT */
/* The recorder's loop (see recorder.h). */
#include "record/recorder.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record/http.h"
#include "record/nvml.h"
#include "record/publish.h"
#include "record/ralloc.h"
#include "record/sampler.h"
#include "record/sink_csv.h"
#include "record/sink_prom.h"
#include "util/timeutil.h"

#define MAX_EVENTS_PER_TICK 16
#define FSYNC_PERIOD_NS (10 * NS_PER_S)
#define MAX_COLLECT_NS (2 * NS_PER_S)

static volatile sig_atomic_t stop_requested, reopen_requested;
/* A sink whose writer thread is stuck in a write when the recorder returns:
 * kept (and reachable) until the process exits. */
static struct csv_sink *left_to_writer;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void on_hup(int sig)
{
	(void)sig;
	reopen_requested = 1;
}

/* No SA_RESTART: a signal must cut the sleep short. */
static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_hup;
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void sleep_until(int64_t t_mono_ns)
{
	struct timespec ts = { t_mono_ns / NS_PER_S, t_mono_ns % NS_PER_S };

	/* returns early on a signal; the loop looks at the flags */
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static void host_name(char *buf, size_t cap, const char *given)
{
	if (given)
		snprintf(buf, cap, "%s", given);
	else if (gethostname(buf, cap))
		snprintf(buf, cap, "unknown");
	buf[cap - 1] = 0;
	for (char *p = buf; *p; p++)
		if (*p == ',' || *p == '"' || (unsigned char)*p <= 0x20)
			*p = '_';
}

static void log_start(FILE *log, const struct nvml *n, const struct sampler *s,
		      const struct record_opts *o, const char *host)
{
	bool first = true;

	if (!log)
		return;
	fprintf(log, "gputally: record: NVML from %s, %u GPU(s), task %s on %s, every %lld ms\n",
		n->path, sampler_ngpus(s), o->task, host, (long long)(o->interval_ns / NS_PER_MS));
	for (size_t i = 0; i < nvml_sym_count(); i++) {
		if (nvml_sym_resolved(n, i))
			continue;
		fprintf(log, "%s%s", first ? "gputally: record: NVML lacks (optional): " : ", ",
			nvml_sym_name(i));
		first = false;
	}
	if (!first)
		fputc('\n', log);
}

/* The tick's Prometheus text, to the snapshot that the textfile and HTTP read. */
static void publish(struct prom_render *pr, struct prom_pub *pub, struct prom_health *h,
		    const struct record_stats *st, struct csv_sink *sink,
		    const struct sampler *s, const struct gpu_sample *samples, bool queued,
		    int64_t t_mono)
{
	struct csv_sink_stats cs;
	size_t n;

	csv_sink_stats(sink, &cs);
	h->ticks = st->ticks;
	h->overruns = st->overruns;
	h->rows = cs.rows_written;
	h->events_dropped = sampler_events_dropped(s);
	/* a tick dropped because the writer is behind counts as a failed write */
	h->csv_errors = cs.write_errors + cs.ticks_dropped;
	h->csv_ok = queued && cs.last_ok;
	if (cs.last_ok_ns)
		h->csv_last_ok_ns = cs.last_ok_ns;
	h->prom_errors = atomic_load(&pub->write_errors);
	h->prom_last_ok_ns = atomic_load(&pub->last_ok_ns);
	n = prom_render_tick(pr, t_mono, samples, h);
	if (n)
		prom_pub_put(pub, pr->buf, n, t_mono);
}

int recorder_run(const struct record_opts *o, struct record_stats *st, struct gl_err *err)
{
	struct nvml nv;
	struct sampler *s = NULL;
	struct csv_sink *sink = NULL;
	struct gpu_sample *samples = NULL;
	struct sampler_event events[MAX_EVENTS_PER_TICK];
	struct prom_render pr;
	struct prom_pub pub;
	struct prom_health health = { 0 };
	struct http_server *http = NULL;
	bool want_prom = o->prom_dir || o->listen, prom_ready = false;
	uint64_t probe_after_first = 0;
	char host[256];
	int64_t interval = o->interval_ns, collect, next;
	uint64_t allocs_after_first = 0;
	unsigned int ngpus, fsync_every = o->fsync_every;
	bool sink_ready = false;
	int ret = 0;

	memset(st, 0, sizeof(*st));
	host_name(host, sizeof(host), o->host);
	if (!o->to_stdout && mkdir(o->dir, 0755) && errno != EEXIST)
		return gl_err_errno(err, "cannot create %s", o->dir);
	if (nvml_open(&nv, o->nvml_lib, err))
		return err->code;
	s = sampler_new(&nv, interval, err);
	if (!s) {
		nvml_close(&nv);
		return err->code;
	}
	ngpus = sampler_ngpus(s);
	st->ngpus = ngpus;
	log_start(o->log, &nv, s, o, host);
	if (!fsync_every)
		fsync_every = interval >= FSYNC_PERIOD_NS ? 1 : (unsigned int)(FSYNC_PERIOD_NS / interval);
	samples = rec_calloc(ngpus ? ngpus : 1, sizeof(*samples));
	sink = rec_calloc(1, sizeof(*sink));	/* the writer thread may outlive this call */
	csv_sink_init(sink, o->dir, o->task, host, o->to_stdout, fsync_every, ngpus,
		      MAX_EVENTS_PER_TICK);
	sink_ready = true;
	health.start_ns = wall_now_ns();
	if (want_prom) {
		const struct gpu_info *gi = sampler_gpu(s, 0);
		prom_render_init(&pr, gi, ngpus, host, interval);
		prom_ready = true;
		if (prom_pub_init(&pub, prom_render_cap(&pr), o->prom_dir, err)) {
			ret = err->code;
			goto out;
		}
		/* /health turns 503 when no tick has come for a few intervals */
		if (o->listen && !(http = http_start(o->listen, o->listen_any, &pub,
						     3 * interval + 2 * NS_PER_S, err))) {
			ret = err->code;
			goto out;
		}
		if (http && o->log)
			fprintf(o->log, "gputally: record: serving /metrics and /health on port %u (%s)\n",
				http_port(http), o->listen);
	}
	/* waiting longer than most of an interval would make the next tick late */
	collect = interval / 4 * 3;
	if (collect > MAX_COLLECT_NS)
		collect = MAX_COLLECT_NS;

	stop_requested = reopen_requested = 0;
	install_signals();
	next = mono_now_ns();
	while (!stop_requested && (!o->count || st->ticks < o->count)) {
		unsigned int nev = 0;
		int64_t t_wall, t_mono, now;
		bool csv_ok;

		if (reopen_requested) {
			reopen_requested = 0;
			csv_sink_reopen(sink);
		}
		t_wall = wall_now_ns();
		t_mono = mono_now_ns();
		sampler_tick(s, next + collect, samples);
		while (nev < MAX_EVENTS_PER_TICK && sampler_next_event(s, &events[nev]))
			nev++;
		csv_ok = !csv_sink_tick(sink, t_wall, sampler_gpu(s, 0), samples, ngpus, events, nev);
		++st->ticks;
		if (want_prom)
			publish(&pr, &pub, &health, st, sink, s, samples, csv_ok, t_mono);
		if (st->ticks == 1) {
			allocs_after_first = record_alloc_count();
			if (o->alloc_probe)
				probe_after_first = o->alloc_probe();
		}
		if (o->count && st->ticks >= o->count)
			break;
		next += interval;
		now = mono_now_ns();
		if (next < now) {	/* fell behind (a stall): skip the missed ticks, keep the phase */
			int64_t missed = (now - next + interval - 1) / interval;
			next += missed * interval;
			st->overruns += (uint64_t)missed;
		}
		while (!stop_requested && mono_now_ns() < next)
			sleep_until(next);
	}
	st->signalled = stop_requested != 0;
	st->allocs_in_loop = st->ticks ? record_alloc_count() - allocs_after_first : 0;
	if (o->alloc_probe && st->ticks)
		st->probe_in_loop = o->alloc_probe() - probe_after_first;
	csv_sink_close(sink);	/* writes what is queued */
	sink_ready = false;
	if (o->log && o->to_stdout)
		fflush(stdout);
	{
		struct csv_sink_stats cs;
		csv_sink_stats(sink, &cs);
		st->rows = cs.rows_written;
		st->write_errors = cs.write_errors;
		st->torn_repairs = cs.torn_repairs;
		st->rows_dropped = cs.rows_dropped;
		st->events_dropped = sampler_events_dropped(s);
		if (o->log && sink->writer_stuck)
			fprintf(o->log, "gputally: record: the disk did not take the last rows within 0.8 s; exiting without them\n");
		if (o->log && cs.torn_repairs)
			fprintf(o->log, "gputally: record: quarantined a torn last line in %s.torn\n",
				sink->path);
		if (o->log && cs.write_errors)
			fprintf(o->log, "gputally: record: %llu batch(es) not written (last error: %s)\n",
				(unsigned long long)cs.write_errors, strerror(cs.last_errno));
		if (o->log && cs.rows_dropped)
			fprintf(o->log, "gputally: record: %llu row(s) dropped: the disk was too far behind\n",
				(unsigned long long)cs.rows_dropped);
	}
out:
	http_stop(http);
	if (prom_ready) {
		prom_pub_close(&pub);
		st->prom_writes = atomic_load(&pub.writes);
		st->prom_errors = atomic_load(&pub.write_errors);
		if (o->log && st->prom_errors)
			fprintf(o->log, "gputally: record: %llu textfile write(s) failed (last error: %s)\n",
				(unsigned long long)st->prom_errors, strerror(atomic_load(&pub.last_errno)));
		prom_render_free(&pr);
	}
	if (sink_ready)
		csv_sink_close(sink);
	if (sink && sink->writer_stuck)
		left_to_writer = sink;	/* still in use by its thread, until the process ends */
	else
		free(sink);
	free(samples);
	if (sampler_free(s))
		nvml_close(&nv);
	else if (o->log)
		fprintf(o->log, "gputally: record: a GPU is still inside an NVML call; not unloading NVML\n");
	return ret;
}
