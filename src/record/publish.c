/* SPDX-License-Identifier: MIT */
/* The Prometheus snapshot and its textfile writer (see publish.h). */
#include "record/publish.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record/ralloc.h"
#include "util/fdio.h"
#include "util/timeutil.h"

/*
 * Temp file, fsync, rename: the .prom name only ever points at a whole file.
 * On failure the temp file is removed (it is ours and never complete) and
 * the previous .prom stays as it was.
 */
static int write_textfile(struct prom_pub *p, size_t n)
{
	int fd = open(p->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int e;

	if (fd < 0)
		return -1;
	if (fd_write_all(fd, p->wbuf, n, NULL) || fsync(fd))
		goto fail;
	if (close(fd)) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(p->tmp, p->path))
		goto fail;
	return 0;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	unlink(p->tmp);
	errno = e;
	return -1;
}

static void *writer_main(void *arg)
{
	struct prom_pub *p = arg;
	uint64_t seen = 0;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		size_t n;
		while (!p->stop && p->gen == seen)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->gen == seen)
			break;	/* stopping, and the newest text is written */
		seen = p->gen;
		n = p->snap_len;
		memcpy(p->wbuf, p->snap, n);
		pthread_mutex_unlock(&p->mu);
		/* a slow disk delays only this thread; ticks in between are coalesced */
		if (write_textfile(p, n)) {
			atomic_store(&p->last_errno, errno);
			atomic_fetch_add(&p->write_errors, 1);
		} else {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			atomic_store(&p->last_ok_ns, (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec);
			atomic_fetch_add(&p->writes, 1);
		}
		pthread_mutex_lock(&p->mu);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int prom_pub_init(struct prom_pub *p, size_t cap, const char *textfile_dir, struct gl_err *err)
{
	memset(p, 0, sizeof(*p));
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->cap = cap;
	p->snap = rec_calloc(1, cap ? cap : 1);
	if (!textfile_dir)
		return 0;
	if ((size_t)snprintf(p->path, sizeof(p->path), "%s/%s", textfile_dir, PROM_TEXTFILE_NAME) >=
		    sizeof(p->path) ||
	    (size_t)snprintf(p->tmp, sizeof(p->tmp), "%s/%s", textfile_dir, PROM_TEXTFILE_TMP) >=
		    sizeof(p->tmp))
		return gl_err_set(err, GL_EUSAGE, "--prom-textfile: directory name too long");
	/* fail at start-up rather than count errors forever on a typo */
	if (access(textfile_dir, W_OK | X_OK))
		return gl_err_errno(err, "--prom-textfile: cannot write to %s", textfile_dir);
	p->wbuf = rec_calloc(1, cap ? cap : 1);
	if (pthread_create(&p->writer, NULL, writer_main, p))
		return gl_err_set(err, GL_EIO, "cannot start the textfile writer thread");
	p->writer_started = true;
	return 0;
}

void prom_pub_put(struct prom_pub *p, const char *text, size_t n, int64_t mono_ns)
{
	if (n > p->cap)
		return;
	pthread_mutex_lock(&p->mu);
	memcpy(p->snap, text, n);
	p->snap_len = n;
	p->snap_mono_ns = mono_ns;
	p->gen++;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

size_t prom_pub_copy(struct prom_pub *p, char *dst, size_t cap, int64_t *put_mono_ns)
{
	size_t n;

	pthread_mutex_lock(&p->mu);
	n = p->snap_len <= cap ? p->snap_len : 0;
	memcpy(dst, p->snap, n);
	if (put_mono_ns)
		*put_mono_ns = p->snap_mono_ns;
	pthread_mutex_unlock(&p->mu);
	return n;
}

size_t prom_pub_cap(const struct prom_pub *p)
{
	return p->cap;
}

void prom_pub_close(struct prom_pub *p)
{
	if (p->writer_started) {
		pthread_mutex_lock(&p->mu);
		p->stop = true;
		pthread_cond_signal(&p->cv);
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->writer, NULL);
		p->writer_started = false;
	}
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p->snap);
	free(p->wbuf);
	p->snap = p->wbuf = NULL;
}
