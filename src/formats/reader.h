/* SPDX-License-Identifier: MIT */
/*
 * Byte sources for the ingest driver: a plain file (mapped into memory), or
 * a gzip or zstd stream decompressed as it is read.  Compression is sniffed
 * from the first bytes, never from the file name.
 */
#ifndef FORMATS_READER_H
#define FORMATS_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

enum reader_kind { READER_MAP, READER_PLAIN, READER_GZIP, READER_ZSTD, READER_XZ };

struct reader {
	enum reader_kind kind;
	int fd;
	const char *map;	/* READER_MAP: the whole file */
	size_t map_len;
	int64_t mtime_ns;	/* modification time of the file */
	uint64_t bytes_in;	/* compressed bytes consumed */
	uint64_t bytes_out;	/* bytes returned by reader_read() */
	void *z;		/* zlib or zstd stream state */
	unsigned char *inbuf;
	size_t in_cap, in_len, in_pos;
	bool eof_in, eof_out;
	bool zstd_mid_frame;	/* the last ZSTD_decompressStream() left a frame open */
	struct gl_err fail;	/* an error found while returning data, for the next call */
};

/* Open path (or "-" for standard input).  Fills err on failure. */
int reader_open(struct reader *r, const char *path, struct gl_err *err)
	__attribute__((warn_unused_result));
/* The same; a plain file is mapped only when `map` is true, else read, and
 * compressed input is read in_cap bytes at a time (0: the default). */
int reader_open_opt(struct reader *r, const char *path, bool map, size_t in_cap,
		    struct gl_err *err) __attribute__((warn_unused_result));
/* Start a READER_PLAIN reader of a regular file again from its first byte;
 * false (nothing changed) for any other reader. */
bool reader_rewind(struct reader *r);
/* Read up to cap decompressed bytes; returns bytes read, 0 at end, <0 on error. */
long reader_read(struct reader *r, char *buf, size_t cap, struct gl_err *err);
void reader_close(struct reader *r);
const char *reader_kind_name(enum reader_kind k);

#endif
