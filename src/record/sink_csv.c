/* SPDX-License-Identifier: MIT */
/* The gputally CSV writer: whole rows, append-only, torn tails quarantined. */
#include "record/sink_csv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record/outbuf.h"
#include "record/ralloc.h"
#include "util/fdio.h"
#include "util/timeutil.h"

static const char header[] = "time,host,task,gpu,uuid,name,status"
#define TCOL(id, csv, metric, dec, prom, type, mul, src, help) "," csv
#include "formats/tally_columns.def"
#undef TCOL
	",procs,bus_id,procs_who";

static const int col_dec[TC__COUNT] = {
#define TCOL(id, csv, metric, dec, prom, type, mul, src, help) dec,
#include "formats/tally_columns.def"
#undef TCOL
};

/* How long close waits for the writer: SIGTERM must end the recorder within a second. */
#define CLOSE_WAIT_MS 800

/* Room for one GPU row: fixed fields plus every process at "pid=mib;"
 * and "user|job|container|sm;" (procinfo.h's fields at their longest). */
#define ROW_MAX (1024 + SAMPLER_MAX_PROCS * 240)

const char *csv_sink_header(void)
{
	return header;
}

static const char *status_name(const struct gpu_sample *s)
{
	switch (s->status) {
	case GST_OK:
		return "ok";
	case GST_LOST:
		return "lost";
	case GST_RESET:
		return "reset_required";
	case GST_TIMEOUT:
		return "timeout";
	default:
		return NULL;
	}
}

static void put_prefix(struct out *o, const char *when, const struct csv_sink *k,
		       const struct gpu_info *g)
{
	put_str(o, when);
	put_ch(o, ',');
	put_str(o, k->host);
	put_ch(o, ',');
	put_str(o, k->task);
	put_ch(o, ',');
	if (g) {
		put_u64(o, g->index);
		put_ch(o, ',');
		put_str(o, g->uuid);
		put_ch(o, ',');
		put_str(o, g->name);
	} else {
		put_str(o, ",,");
	}
	put_ch(o, ',');
}

/* A who field: no separator of the CSV (',') or of the cell (';', '|') and no blank or control byte. */
static void put_field(struct out *o, const char *s)
{
	for (; *s; s++)
		put_ch(o, *s == ',' || *s == ';' || *s == '|' || (unsigned char)*s <= ' ' || *s == 0x7f ? '_' : *s);
}

/* procs_who: per process, in the order of procs, "user|job|container|sm"
 * ("!" for a user: a host pid not visible from here; an empty field: not known). */
static void put_who(struct out *o, const struct gpu_sample *s)
{
	for (uint32_t i = 0; s->procs_known && i < s->nprocs; i++) {
		const struct proc_sample *p = &s->procs[i];
		if (i)
			put_ch(o, ';');
		if (!p->who.visible)
			put_ch(o, '!');
		else
			put_field(o, p->who.user);
		put_ch(o, '|');
		put_field(o, p->who.job);
		put_ch(o, '|');
		put_field(o, p->who.ctr);
		put_ch(o, '|');
		if (p->sm_pct >= 0)
			put_u64(o, (uint64_t)p->sm_pct);
	}
}

static void put_row(struct out *o, const char *when, const struct csv_sink *k,
		    const struct gpu_info *g, const struct gpu_sample *s)
{
	const char *st = status_name(s);

	put_prefix(o, when, k, g);
	if (st) {
		put_str(o, st);
	} else {
		put_str(o, "nvml_error_");
		put_u64(o, (uint64_t)(unsigned int)s->err_rc);
	}
	for (int c = 0; c < TC__COUNT; c++) {
		put_ch(o, ',');
		if (!(s->present & ~s->carried & (1u << c)))
			continue;	/* unsupported, unreadable or read on an earlier
					 * row: an empty cell, never 0 */
		if (c == TC_CLOCK_EVENTS)
			put_hex(o, (uint64_t)s->v[c]);
		else
			put_fixed(o, s->v[c], col_dec[c]);
	}
	put_ch(o, ',');
	if (s->procs_known && !s->nprocs)
		put_ch(o, '-');
	for (uint32_t i = 0; s->procs_known && i < s->nprocs; i++) {
		if (i)
			put_ch(o, ';');
		put_u64(o, s->procs[i].pid);
		put_ch(o, '=');
		if (s->procs[i].mem_mib < 0)
			put_ch(o, '?');
		else
			put_u64(o, (uint64_t)s->procs[i].mem_mib);
	}
	put_ch(o, ',');
	put_str(o, g->bus_id);
	put_ch(o, ',');
	put_who(o, s);
	put_ch(o, '\n');
}

static void put_event(struct out *o, const struct csv_sink *k, const struct gpu_info *g,
		      const struct sampler_event *ev)
{
	char when[40];

	time_rfc3339_us(when, sizeof(when), ev->t_ns);
	put_prefix(o, when, k, g);
	if (ev->type & NVML_EVENT_XID) {
		put_str(o, "xid:");
		put_u64(o, ev->data);
	} else {
		put_str(o, "event:");
		put_hex(o, ev->type);
	}
	for (int c = 0; c <= TC__COUNT; c++)
		put_ch(o, ',');
	put_ch(o, ',');
	if (g)
		put_str(o, g->bus_id);
	put_ch(o, ',');		/* procs_who */
	put_ch(o, '\n');
}

/* ---- files ------------------------------------------------------------- */

static void *writer_main(void *arg);

void csv_sink_init(struct csv_sink *k, const char *dir, const char *task, const char *host,
		   bool to_stdout, unsigned int fsync_every, unsigned int ngpus,
		   unsigned int max_events)
{
	memset(k, 0, sizeof(*k));
	k->fd = -1;
	k->dir = dir;
	k->task = task;
	k->host = host;
	k->to_stdout = to_stdout;
	k->fsync_every = fsync_every;
	k->day = INT64_MIN;
	k->cap = sizeof(GPUTALLY_CSV_MAGIC) + sizeof(header) + 32 +
		 (size_t)(ngpus + max_events) * ROW_MAX;
	for (int i = 0; i < CSV_QUEUE; i++)
		k->q[i].buf = rec_calloc(1, k->cap);	/* pages are touched only when used */
	pthread_mutex_init(&k->q_mu, NULL);
	pthread_cond_init(&k->q_cv, NULL);
	pthread_cond_init(&k->q_done_cv, NULL);
	/* without it, ticks are written (and synced) on the caller's thread */
	k->writer_running = !pthread_create(&k->writer, NULL, writer_main, k);
}

/*
 * A file whose last byte is not a newline ends in a row cut by a crash.
 * Copy that tail to <path>.torn (appending, so earlier quarantines stay),
 * make the copy durable, then cut the file back to its last whole row.
 */
static int repair_tail(struct csv_sink *k, uint64_t *size)
{
	char block[4096], torn[4096 + 8];
	uint64_t cut = 0, pos = *size;
	int tfd;

	if (!*size)
		return 0;
	if (pread(k->fd, block, 1, (off_t)(*size - 1)) != 1)
		return -1;
	if (block[0] == '\n')
		return 0;
	while (pos > 0) {
		size_t n = pos > sizeof(block) ? sizeof(block) : (size_t)pos;
		const char *nl;
		if (pread(k->fd, block, n, (off_t)(pos - n)) != (ssize_t)n)
			return -1;
		nl = memrchr(block, '\n', n);
		if (nl) {
			cut = pos - n + (uint64_t)(nl - block) + 1;
			break;
		}
		pos -= n;
	}
	snprintf(torn, sizeof(torn), "%.4090s.torn", k->path);
	tfd = open(torn, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (tfd < 0)
		return -1;
	for (uint64_t off = cut; off < *size;) {
		size_t n = *size - off > sizeof(block) ? sizeof(block) : (size_t)(*size - off), done;
		if (pread(k->fd, block, n, (off_t)off) != (ssize_t)n || fd_write_all(tfd, block, n, &done)) {
			close(tfd);
			return -1;
		}
		off += n;
	}
	if (fd_write_all(tfd, "\n", 1, NULL) || fsync(tfd)) {
		close(tfd);
		return -1;
	}
	close(tfd);
	if (ftruncate(k->fd, (off_t)cut) || fsync(k->fd))
		return -1;
	*size = cut;
	k->torn_repairs++;
	return 0;
}

/* 1 if the file starts with our two header lines, 0 if not, -1 on error */
static int header_matches(int fd)
{
	char want[sizeof(GPUTALLY_CSV_MAGIC) + sizeof(header) + 2];
	char got[sizeof(want)];
	size_t n = (size_t)snprintf(want, sizeof(want), "%s\n%s\n", GPUTALLY_CSV_MAGIC, header);
	ssize_t r = pread(fd, got, n, 0);

	if (r < 0)
		return -1;
	return (size_t)r == n && !memcmp(got, want, n);
}

int csv_sink_open_day(struct csv_sink *k, int64_t day)
{
	int y, m, d;

	civil_from_days(day, &y, &m, &d);
	/* a file with another header (an older version) is left alone: use name.N.csv */
	for (int suffix = 0; suffix < 100; suffix++) {
		struct stat sb;
		uint64_t size;
		int ok;

		if (suffix)
			snprintf(k->path, sizeof(k->path), "%s/%s_%04d%02d%02d.%d.csv", k->dir, k->task,
				 y, m, d, suffix);
		else
			snprintf(k->path, sizeof(k->path), "%s/%s_%04d%02d%02d.csv", k->dir, k->task,
				 y, m, d);
		k->fd = open(k->path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (k->fd < 0)
			return -1;
		if (fstat(k->fd, &sb))
			goto fail;
		size = (uint64_t)sb.st_size;
		if (repair_tail(k, &size))
			goto fail;
		if (size == 0) {
			char head[sizeof(GPUTALLY_CSV_MAGIC) + sizeof(header) + 2];
			size_t done, n = (size_t)snprintf(head, sizeof(head), "%s\n%s\n",
							 GPUTALLY_CSV_MAGIC, header);
			if (fd_write_all(k->fd, head, n, &done)) {
				if (done && ftruncate(k->fd, 0))
					k->dirty_tail = true;
				goto fail;
			}
			size = n;
			ok = 1;
		} else {
			ok = header_matches(k->fd);
			if (ok < 0)
				goto fail;
		}
		if (ok) {
			k->good_size = size;
			k->day = day;
			k->dirty_tail = false;
			k->since_fsync = 0;
			return 0;
		}
		close(k->fd);
		k->fd = -1;
	}
	errno = EEXIST;
	return -1;
fail:
	{
		int e = errno;
		close(k->fd);
		k->fd = -1;
		errno = e;
	}
	return -1;
}

static void close_file(struct csv_sink *k)
{
	if (k->fd < 0)
		return;
	fsync(k->fd);
	close(k->fd);
	k->fd = -1;
}

void csv_sink_reopen(struct csv_sink *k)
{
	k->reopen_pending = true;	/* the writer acts on it with the next batch */
}

static void count_error(struct csv_sink *k, int e)
{
	k->write_errors++;
	k->last_errno = e;
}

/* A tick's rows into b (the caller's thread: no I/O). */
static void format_tick(struct csv_sink *k, struct csv_batch *b, int64_t t_ns,
			const struct gpu_info *gpus, const struct gpu_sample *samples,
			unsigned int ngpus, const struct sampler_event *events, unsigned int nevents)
{
	struct out o = { b->buf, b->buf + k->cap, false };
	char when[40];

	b->t_ns = t_ns;
	b->day = t_ns >= 0 ? t_ns / NS_PER_DAY : -1 - (-1 - t_ns) / NS_PER_DAY;
	b->rows = 0;
	b->reopen = k->reopen_pending;
	k->reopen_pending = false;
	if (k->to_stdout && !k->stdout_started) {
		put_str(&o, GPUTALLY_CSV_MAGIC "\n");
		put_str(&o, header);
		put_ch(&o, '\n');
		k->stdout_started = true;
	}
	time_rfc3339_us(when, sizeof(when), t_ns);
	/* events first: they arrived before this tick's stamp */
	for (unsigned int i = 0; i < ngpus + nevents; i++) {
		char *row = o.p;
		if (i >= nevents) {
			put_row(&o, when, k, &gpus[i - nevents], &samples[i - nevents]);
		} else {
			const struct sampler_event *ev = &events[i];
			put_event(&o, k, ev->gpu >= 0 && (unsigned int)ev->gpu < ngpus ? &gpus[ev->gpu] : NULL,
				  ev);
		}
		if (o.full) {
			/* cannot happen with the sizes above; never write half a row */
			o.p = row;
			o.full = false;
			k->rows_dropped++;
			continue;
		}
		b->rows++;
	}
	b->len = (size_t)(o.p - b->buf);
}

/* Append a batch (the writer's thread): 0, or -1 when it was not written. */
static int write_batch(struct csv_sink *k, const struct csv_batch *b)
{
	size_t done;
	int fd;

	if (b->reopen && !k->to_stdout) {
		close_file(k);
		k->day = INT64_MIN;
	}
	if (k->to_stdout) {
		fd = STDOUT_FILENO;
	} else {
		if (k->fd >= 0 && b->day != k->day)
			close_file(k);	/* midnight UTC: a new day's file */
		if (k->fd < 0 && csv_sink_open_day(k, b->day)) {
			count_error(k, errno);
			return -1;	/* retried with the next tick */
		}
		fd = k->fd;
		/* undo what a failed write left behind before appending after it */
		if (k->dirty_tail) {
			if (ftruncate(fd, (off_t)k->good_size)) {
				count_error(k, errno);
				return -1;
			}
			k->dirty_tail = false;
		}
	}
	if (fd_write_all(fd, b->buf, b->len, &done)) {
		int e = errno;
		if (done && !k->to_stdout && ftruncate(fd, (off_t)k->good_size))
			k->dirty_tail = true;
		count_error(k, e);
		return -1;
	}
	k->good_size += done;
	k->rows_written += b->rows;
	k->batches_written++;
	/* the batched sync: on the writer's thread, so a slow one delays only the queue */
	if (!k->to_stdout && k->fsync_every && ++k->since_fsync >= k->fsync_every) {
		k->since_fsync = 0;
		if (fdatasync(fd))
			count_error(k, errno);
	}
	return 0;
}

/* The writer's counters into pub (q_mu held). */
static void publish_stats(struct csv_sink *k)
{
	k->pub.rows_written = k->rows_written;
	k->pub.batches_written = k->batches_written;
	k->pub.write_errors = k->write_errors;
	k->pub.torn_repairs = k->torn_repairs;
	k->pub.last_errno = k->last_errno;
	k->pub.last_ok = k->last_ok;
	k->pub.last_ok_ns = k->last_ok_ns;
}

static void write_one(struct csv_sink *k, const struct csv_batch *b)
{
	k->last_ok = !write_batch(k, b);
	if (k->last_ok)
		k->last_ok_ns = b->t_ns;
}

static void *writer_main(void *arg)
{
	struct csv_sink *k = arg;

	pthread_setname_np(pthread_self(), "gputally-csv");
	pthread_mutex_lock(&k->q_mu);
	for (;;) {
		struct csv_batch *b;
		while (!k->q_len && !k->q_stop)
			pthread_cond_wait(&k->q_cv, &k->q_mu);
		if (!k->q_len)
			break;		/* stopping, and everything is written */
		b = &k->q[k->q_head];
		pthread_mutex_unlock(&k->q_mu);
		write_one(k, b);	/* the slot stays ours until q_len drops */
		pthread_mutex_lock(&k->q_mu);
		k->q_head = (k->q_head + 1) % CSV_QUEUE;
		k->q_len--;
		publish_stats(k);
		pthread_cond_broadcast(&k->q_done_cv);
	}
	pthread_mutex_unlock(&k->q_mu);
	return NULL;
}

int csv_sink_tick(struct csv_sink *k, int64_t t_ns, const struct gpu_info *gpus,
		  const struct gpu_sample *samples, unsigned int ngpus,
		  const struct sampler_event *events, unsigned int nevents)
{
	struct csv_batch *b;

	if (!k->writer_running) {
		format_tick(k, &k->q[0], t_ns, gpus, samples, ngpus, events, nevents);
		write_one(k, &k->q[0]);
		publish_stats(k);
		return k->last_ok ? 0 : -1;
	}
	pthread_mutex_lock(&k->q_mu);
	if (k->q_len == CSV_QUEUE) {
		/* the disk is that far behind: drop this tick rather than wait */
		k->q_dropped_rows += ngpus + nevents;
		k->q_dropped_ticks++;
		pthread_mutex_unlock(&k->q_mu);
		return -1;
	}
	b = &k->q[(k->q_head + k->q_len) % CSV_QUEUE];
	pthread_mutex_unlock(&k->q_mu);
	/* a free slot is the caller's until it is counted in q_len */
	format_tick(k, b, t_ns, gpus, samples, ngpus, events, nevents);
	pthread_mutex_lock(&k->q_mu);
	k->q_len++;
	pthread_cond_signal(&k->q_cv);
	pthread_mutex_unlock(&k->q_mu);
	return 0;
}

void csv_sink_flush(struct csv_sink *k)
{
	if (!k->writer_running)
		return;
	pthread_mutex_lock(&k->q_mu);
	while (k->q_len)
		pthread_cond_wait(&k->q_done_cv, &k->q_mu);
	pthread_mutex_unlock(&k->q_mu);
}

void csv_sink_stats(struct csv_sink *k, struct csv_sink_stats *st)
{
	pthread_mutex_lock(&k->q_mu);
	*st = k->pub;
	st->rows_dropped = k->q_dropped_rows;
	st->ticks_dropped = k->q_dropped_ticks;
	pthread_mutex_unlock(&k->q_mu);
	st->rows_dropped += k->rows_dropped;	/* the caller's own (rows too long) */
}

void csv_sink_close(struct csv_sink *k)
{
	if (k->writer_running) {
		struct timespec until;
		pthread_mutex_lock(&k->q_mu);
		k->q_stop = true;
		pthread_cond_signal(&k->q_cv);
		pthread_mutex_unlock(&k->q_mu);
		/* a disk that does not answer must not keep the recorder from exiting */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += CLOSE_WAIT_MS * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		if (pthread_timedjoin_np(k->writer, NULL, &until)) {
			k->writer_stuck = true;	/* its buffers and file stay as they are */
			return;
		}
		k->writer_running = false;
	}
	close_file(k);
	pthread_mutex_lock(&k->q_mu);
	publish_stats(k);
	pthread_mutex_unlock(&k->q_mu);
	for (int i = 0; i < CSV_QUEUE; i++) {
		free(k->q[i].buf);
		k->q[i].buf = NULL;
	}
}
