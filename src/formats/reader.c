/* SPDX-License-Identifier: MIT */
#include "formats/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "util/xalloc.h"

#define IN_CAP (256 * 1024)

static ssize_t read_full(int fd, unsigned char *buf, size_t cap)
{
	size_t got = 0;
	while (got < cap) {
		ssize_t n = read(fd, buf + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

int reader_open(struct reader *r, const char *path, struct gl_err *err)
{
	return reader_open_opt(r, path, true, 0, err);
}

int reader_open_opt(struct reader *r, const char *path, bool map, size_t in_cap,
		    struct gl_err *err)
{
	struct stat st;
	ssize_t n;

	memset(r, 0, sizeof(*r));
	r->fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : dup(0);
	if (r->fd < 0)
		return gl_err_errno(err, "cannot open '%s'", path);
	if (fstat(r->fd, &st) < 0) {
		gl_err_errno(err, "cannot stat '%s'", path);
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		gl_err_set(err, GL_EIO, "'%s' is a directory", path);
		goto fail;
	}
	r->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	r->in_cap = in_cap >= 64 ? in_cap : IN_CAP;
	r->inbuf = xmalloc(r->in_cap);
	n = read_full(r->fd, r->inbuf, 6);
	if (n < 0) {
		gl_err_errno(err, "cannot read '%s'", path);
		goto fail;
	}
	r->in_len = (size_t)n;
	r->bytes_in = (uint64_t)n;
	if (n >= 2 && r->inbuf[0] == 0x1f && r->inbuf[1] == 0x8b) {
		z_stream *z = xcalloc(1, sizeof(*z));
		if (inflateInit2(z, 16 + MAX_WBITS) != Z_OK) {
			free(z);
			gl_err_set(err, GL_EIO, "zlib init failed");
			goto fail;
		}
		r->z = z;
		r->kind = READER_GZIP;
	} else if (n >= 4 && !memcmp(r->inbuf, "\x28\xb5\x2f\xfd", 4)) {
		r->z = ZSTD_createDStream();
		ZSTD_initDStream(r->z);
		r->kind = READER_ZSTD;
	} else if (n >= 6 && !memcmp(r->inbuf, "\xfd" "7zXZ\0", 6)) {
		reader_close(r);
		return gl_err_set(err, GL_EUNSUPPORTED,
				  "'%s' is xz-compressed; decompress it with xz -d first", path);
	} else if (map && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, r->fd, 0);
		if (m != MAP_FAILED) {
			madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
			r->map = m;
			r->map_len = (size_t)st.st_size;
			r->kind = READER_MAP;
			r->bytes_in = r->map_len;
			return 0;
		}
		r->kind = READER_PLAIN;
	} else {
		r->kind = READER_PLAIN;
	}
	return 0;
fail:
	reader_close(r);
	return err ? err->code : GL_EIO;
}

static int fill_in(struct reader *r, struct gl_err *err)
{
	ssize_t n;
	if (r->in_pos < r->in_len || r->eof_in)
		return 0;
	n = read_full(r->fd, r->inbuf, r->in_cap);
	if (n < 0)
		return gl_err_errno(err, "read failed");
	r->in_len = (size_t)n;
	r->in_pos = 0;
	r->bytes_in += (uint64_t)n;
	if (n == 0)
		r->eof_in = true;
	return 0;
}

/*
 * A stream error (in r->fail): returned now when this call has no bytes,
 * else on the next call, so that a caller who stops at a read < 0 sees it.
 */
static long read_failed(struct reader *r, size_t got, struct gl_err *err)
{
	r->eof_out = true;
	if (err)
		*err = r->fail;
	r->bytes_out += got;
	if (got)
		return (long)got;
	r->fail.code = 0;
	return -1;
}

long reader_read(struct reader *r, char *buf, size_t cap, struct gl_err *err)
{
	size_t got = 0;

	if (r->fail.code)
		return read_failed(r, 0, err);
	if (r->kind == READER_MAP)
		return 0;	/* the caller uses r->map directly */
	while (got < cap && !r->eof_out) {
		if (r->kind == READER_PLAIN && r->in_pos == r->in_len && !r->eof_in) {
			/* straight into the caller's buffer: inbuf is only for the
			 * sniffed first bytes (and stays untouched, so not resident) */
			ssize_t n = read_full(r->fd, (unsigned char *)buf + got, cap - got);
			if (n < 0) {
				gl_err_errno(err, "read failed");
				return -1;
			}
			r->bytes_in += (uint64_t)n;
			if (n == 0) {
				r->eof_in = r->eof_out = true;
				break;
			}
			got += (size_t)n;
			continue;
		}
		if (fill_in(r, err))
			return -1;
		if (r->kind == READER_PLAIN) {
			size_t n = r->in_len - r->in_pos;
			if (r->eof_in && n == 0) {
				r->eof_out = true;
				break;
			}
			if (n > cap - got)
				n = cap - got;
			memcpy(buf + got, r->inbuf + r->in_pos, n);
			r->in_pos += n;
			got += n;
		} else if (r->kind == READER_GZIP) {
			z_stream *z = r->z;
			int rc;
			if (r->eof_in && r->in_pos == r->in_len) {
				gl_err_set(&r->fail, GL_EPARSE, "gzip stream is truncated");
				return read_failed(r, got, err);
			}
			z->next_in = r->inbuf + r->in_pos;
			z->avail_in = (uInt)(r->in_len - r->in_pos);
			z->next_out = (Bytef *)buf + got;
			z->avail_out = (uInt)(cap - got);
			rc = inflate(z, Z_NO_FLUSH);
			r->in_pos = r->in_len - z->avail_in;
			got = cap - z->avail_out;
			if (rc == Z_STREAM_END) {
				/* concatenated members: keep going if input remains */
				if (r->in_pos < r->in_len || !r->eof_in) {
					if (fill_in(r, err))
						return -1;
					if (r->eof_in && r->in_pos == r->in_len) {
						r->eof_out = true;
						break;
					}
					inflateReset(z);
					continue;
				}
				r->eof_out = true;
			} else if (rc != Z_OK && rc != Z_BUF_ERROR) {
				gl_err_set(&r->fail, GL_EPARSE, "gzip data is corrupt (%s)",
					   z->msg ? z->msg : "inflate failed");
				return read_failed(r, got, err);
			}
		} else {
			ZSTD_inBuffer in = { r->inbuf, r->in_len, r->in_pos };
			ZSTD_outBuffer out = { buf, cap, got };
			size_t rc;
			bool stuck;
			if (r->eof_in && r->in_pos == r->in_len && !r->zstd_mid_frame) {
				r->eof_out = true;
				break;
			}
			rc = ZSTD_decompressStream(r->z, &out, &in);
			stuck = in.pos == r->in_pos && out.pos == got;
			r->in_pos = in.pos;
			got = out.pos;
			if (ZSTD_isError(rc)) {
				gl_err_set(&r->fail, GL_EPARSE, "zstd data is corrupt (%s)",
					   ZSTD_getErrorName(rc));
				return read_failed(r, got, err);
			}
			/* non-zero: the frame needs more input or has output to flush */
			r->zstd_mid_frame = rc != 0;
			if (stuck && r->zstd_mid_frame && r->eof_in && r->in_pos == r->in_len) {
				/* zstd decodes whole blocks (up to 128 KiB): what comes
				 * before the cut is read up to the last whole one */
				if (r->bytes_out + got)
					gl_err_set(&r->fail, GL_EPARSE, "zstd stream is truncated");
				else
					gl_err_set(&r->fail, GL_EPARSE,
						   "zstd stream is truncated inside its first block: nothing before the cut can be decoded");
				return read_failed(r, got, err);
			}
		}
	}
	r->bytes_out += got;
	return (long)got;
}

bool reader_rewind(struct reader *r)
{
	struct stat st;

	if (r->kind != READER_PLAIN || fstat(r->fd, &st) || !S_ISREG(st.st_mode) ||
	    lseek(r->fd, 0, SEEK_SET) != 0)
		return false;
	r->in_len = r->in_pos = 0;
	r->eof_in = r->eof_out = false;
	r->bytes_in = r->bytes_out = 0;
	return true;
}

void reader_close(struct reader *r)
{
	if (r->map)
		munmap((void *)r->map, r->map_len);
	if (r->kind == READER_GZIP && r->z) {
		inflateEnd(r->z);
		free(r->z);
	} else if (r->kind == READER_ZSTD && r->z) {
		ZSTD_freeDStream(r->z);
	}
	if (r->fd >= 0)
		close(r->fd);
	free(r->inbuf);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

const char *reader_kind_name(enum reader_kind k)
{
	switch (k) {
	case READER_MAP: case READER_PLAIN: return "plain";
	case READER_GZIP: return "gzip";
	case READER_ZSTD: return "zstd";
	case READER_XZ: return "xz";
	}
	return "?";
}
