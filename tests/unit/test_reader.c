/* SPDX-License-Identifier: MIT */
/* Unit tests for formats/reader: plain, gzip, zstd and refused inputs. */
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "formats/reader.h"
#include "util/err.h"

#define BIG_BYTES (1024 * 1024)
/* reader.c reads 6 bytes to sniff, then refills 256 KiB at a time */
#define SNIFF_BYTES 6
#define REFILL_BYTES (256 * 1024)

static char tmp_dir[64];

static void rm_tmp_dir(void)
{
	if (tmp_dir[0])
		rmdir(tmp_dir);
}

/* A path in this process's scratch directory (made on first use). */
static const char *tmp_path(const char *name)
{
	static char path[128];

	if (!tmp_dir[0]) {
		const char *base = getenv("TMPDIR");
		snprintf(tmp_dir, sizeof(tmp_dir), "%s/gputally-reader-XXXXXX",
			 base && *base ? base : "/tmp");
		assert_non_null(mkdtemp(tmp_dir));
		atexit(rm_tmp_dir);
	}
	snprintf(path, sizeof(path), "%s/%s", tmp_dir, name);
	return path;
}

static void write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static unsigned char *read_file(const char *path, size_t *n)
{
	struct stat st;
	unsigned char *buf;
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	assert_int_equal(fstat(fileno(f), &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	assert_non_null(buf);
	*n = fread(buf, 1, (size_t)st.st_size, f);
	assert_int_equal(*n, (size_t)st.st_size);
	fclose(f);
	return buf;
}

/* Log-like text that compresses about 2:1, the same on every run. */
static char *make_text(size_t n)
{
	static const char alphabet[] = "0123456789,. :abcdefMW%";
	char *s = malloc(n);
	uint32_t x = 12345;

	assert_non_null(s);
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		s[i] = i % 61 == 60 ? '\n' : alphabet[(x >> 16) % (sizeof(alphabet) - 1)];
	}
	return s;
}

/* One gzip member in memory (deflate with the gzip wrapper). */
static unsigned char *gzip_mem(const void *data, size_t n, int level, size_t *out_n)
{
	z_stream z;
	size_t cap = n + n / 100 + 1024;
	unsigned char *out = malloc(cap);

	assert_non_null(out);
	memset(&z, 0, sizeof(z));
	assert_int_equal(deflateInit2(&z, level, Z_DEFLATED, 16 + MAX_WBITS, 8,
				      Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (Bytef *)data;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	*out_n = cap - z.avail_out;
	deflateEnd(&z);
	return out;
}

/* gzip through zlib's file API; append adds a second member. */
static void gzip_file(const char *path, const void *data, size_t n, bool append)
{
	gzFile g = gzopen(path, append ? "ab" : "wb");

	assert_non_null(g);
	assert_int_equal(gzwrite(g, data, (unsigned)n), (int)n);
	assert_int_equal(gzclose(g), Z_OK);
}

static unsigned char *zstd_mem(const void *data, size_t n, size_t *out_n)
{
	size_t cap = ZSTD_compressBound(n);
	unsigned char *out = malloc(cap);

	assert_non_null(out);
	*out_n = ZSTD_compress(out, cap, data, n, 3);
	assert_false(ZSTD_isError(*out_n));
	return out;
}

/*
 * Read everything with reads of at most `cap` bytes into a fresh buffer.
 * *last is the return value that ended the loop (0 or negative).
 */
static char *read_all(struct reader *r, size_t cap, size_t *n, long *last,
		      struct gl_err *err)
{
	size_t have = 0, alloc = 4096;
	char *buf = malloc(alloc);
	long got;

	assert_non_null(buf);
	for (;;) {
		if (alloc - have < cap) {
			alloc = alloc * 2 + cap;
			buf = realloc(buf, alloc);
			assert_non_null(buf);
		}
		got = reader_read(r, buf + have, cap, err);
		if (got <= 0)
			break;
		assert_true((size_t)got <= cap);
		have += (size_t)got;
		if (have > 64 * BIG_BYTES)
			fail_msg("runaway read");
	}
	*n = have;
	*last = got;
	return buf;
}

/* Open path, read it all in cap-sized reads, and compare with want. */
static void expect_content(const char *path, enum reader_kind kind, size_t cap,
			   const char *want, size_t want_n)
{
	struct reader r;
	struct gl_err err = { 0 };
	size_t n;
	long last;
	char *got;

	assert_int_equal(reader_open(&r, path, &err), 0);
	assert_int_equal(r.kind, kind);
	got = read_all(&r, cap, &n, &last, &err);
	assert_int_equal(last, 0);
	assert_int_equal(err.code, 0);
	assert_int_equal(n, want_n);
	assert_memory_equal(got, want, want_n);
	/* after the end, the end again */
	assert_int_equal(reader_read(&r, got, 1, &err), 0);
	reader_close(&r);
	assert_int_equal(r.fd, -1);
	free(got);
}

static void test_plain_mapped(void **state)
{
	static const char text[] = "# gpu pwr\n    0   312\n    0   313\n";
	const char *path = tmp_path("plain.txt");
	struct reader r;
	struct gl_err err = { 0 };
	struct stat st;
	char buf[8];

	(void)state;
	write_file(path, text, sizeof(text) - 1);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(reader_open(&r, path, &err), 0);
	assert_int_equal(r.kind, READER_MAP);
	assert_string_equal(reader_kind_name(r.kind), "plain");
	assert_int_equal(r.map_len, sizeof(text) - 1);
	assert_memory_equal(r.map, text, sizeof(text) - 1);
	assert_true(r.bytes_in == sizeof(text) - 1);
	assert_true(r.mtime_ns == (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec);
	/* a mapped file is read through r.map; reader_read has nothing to add */
	assert_int_equal(reader_read(&r, buf, sizeof(buf), &err), 0);
	reader_close(&r);
	assert_null(r.map);
	/* closing twice is harmless */
	reader_close(&r);
	unlink(path);

	/* shorter than any magic, and a lone gzip magic byte: still plain */
	write_file(path, "\x1f", 1);
	assert_int_equal(reader_open(&r, path, &err), 0);
	assert_int_equal(r.kind, READER_MAP);
	assert_int_equal(r.map_len, 1);
	reader_close(&r);
	unlink(path);
}

static void test_empty_file(void **state)
{
	const char *path = tmp_path("empty.log");
	struct reader r;
	struct gl_err err = { 0 };
	char buf[16];

	(void)state;
	write_file(path, "", 0);
	assert_int_equal(reader_open(&r, path, &err), 0);
	/* nothing to map: a plain stream that ends at once */
	assert_int_equal(r.kind, READER_PLAIN);
	assert_int_equal(reader_read(&r, buf, sizeof(buf), &err), 0);
	assert_int_equal(reader_read(&r, buf, sizeof(buf), &err), 0);
	assert_int_equal(err.code, 0);
	reader_close(&r);
	unlink(path);
}

/* Run reader_open("-") with fd 0 reading a pipe that holds data. */
static void with_stdin_pipe(const void *data, size_t n, enum reader_kind kind,
			    const char *want, size_t want_n, size_t cap)
{
	int fds[2], saved = dup(0);
	struct reader r;
	struct gl_err err = { 0 };
	size_t got_n;
	long last;
	char *got;

	assert_true(saved >= 0);
	/* small inputs only: the whole of it must fit in the pipe buffer */
	assert_true(n <= 60000);
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], data, n), (ssize_t)n);
	close(fds[1]);
	assert_true(dup2(fds[0], 0) == 0);
	close(fds[0]);
	assert_int_equal(reader_open(&r, "-", &err), 0);
	assert_int_equal(r.kind, kind);
	got = read_all(&r, cap, &got_n, &last, &err);
	reader_close(&r);
	assert_true(dup2(saved, 0) == 0);
	close(saved);
	assert_int_equal(last, 0);
	assert_int_equal(got_n, want_n);
	assert_memory_equal(got, want, want_n);
	free(got);
}

static void test_stdin(void **state)
{
	char *text = make_text(50000);
	size_t gz_n;
	unsigned char *gz = gzip_mem(text, 50000, 6, &gz_n);

	(void)state;
	/* a pipe cannot be mapped: the plain stream, fed first by the sniffed bytes */
	with_stdin_pipe(text, 50000, READER_PLAIN, text, 50000, 4096);
	with_stdin_pipe(text, 50000, READER_PLAIN, text, 50000, 5);
	with_stdin_pipe(text, 3, READER_PLAIN, text, 3, 2);
	with_stdin_pipe(gz, gz_n, READER_GZIP, text, 50000, 1000);
	free(gz);
	free(text);
}

static void test_gzip(void **state)
{
	const char *path = tmp_path("big.log.gz");
	char *text = make_text(BIG_BYTES);
	size_t gz_n;
	unsigned char *gz;

	(void)state;
	gzip_file(path, text, BIG_BYTES, false);
	/* the test is only worth it if the input spans several refills */
	free(read_file(path, &gz_n));
	assert_true(gz_n > 2 * REFILL_BYTES);
	expect_content(path, READER_GZIP, BIG_BYTES, text, BIG_BYTES);
	expect_content(path, READER_GZIP, 2 * BIG_BYTES, text, BIG_BYTES);
	expect_content(path, READER_GZIP, 65536, text, BIG_BYTES);
	expect_content(path, READER_GZIP, 7, text, BIG_BYTES);
	unlink(path);

	/* stored blocks (level 0) and a tiny member */
	gz = gzip_mem(text, 1000, 0, &gz_n);
	write_file(path, gz, gz_n);
	expect_content(path, READER_GZIP, 4096, text, 1000);
	free(gz);
	gz = gzip_mem("x\n", 2, 9, &gz_n);
	write_file(path, gz, gz_n);
	expect_content(path, READER_GZIP, 1, "x\n", 2);
	free(gz);
	/* a member with no data at all */
	gz = gzip_mem("", 0, 6, &gz_n);
	write_file(path, gz, gz_n);
	expect_content(path, READER_GZIP, 4096, "", 0);
	free(gz);
	unlink(path);
	free(text);
}

static void test_gzip_two_members(void **state)
{
	const char *path = tmp_path("two.gz");
	char *text = make_text(BIG_BYTES);
	static const char tail[] = "second member\n";
	char *want = malloc(BIG_BYTES + sizeof(tail));

	(void)state;
	assert_non_null(want);
	memcpy(want, text, BIG_BYTES);
	memcpy(want + BIG_BYTES, tail, sizeof(tail) - 1);

	/* what `cat a.gz b.gz` or `gzip -c >>` produces */
	gzip_file(path, text, 1000, false);
	gzip_file(path, tail, sizeof(tail) - 1, true);
	memcpy(want + 1000, tail, sizeof(tail) - 1);
	expect_content(path, READER_GZIP, 4096, want, 1000 + sizeof(tail) - 1);
	expect_content(path, READER_GZIP, 3, want, 1000 + sizeof(tail) - 1);
	memcpy(want + 1000, text + 1000, sizeof(tail) - 1);

	/* a big first member: the second starts in a later refill */
	gzip_file(path, text, BIG_BYTES, false);
	gzip_file(path, tail, sizeof(tail) - 1, true);
	expect_content(path, READER_GZIP, 65536, want, BIG_BYTES + sizeof(tail) - 1);
	expect_content(path, READER_GZIP, 4 * BIG_BYTES, want, BIG_BYTES + sizeof(tail) - 1);
	unlink(path);
	free(want);
	free(text);
}

/*
 * The first member ends exactly where the first refill ends, so the reader
 * sees Z_STREAM_END with its input buffer empty but the file not yet at EOF.
 * Stored blocks make the compressed size grow with the input, so search for
 * the input size that puts the boundary there.
 */
static void test_gzip_member_at_refill_boundary(void **state)
{
	const char *path = tmp_path("edge.gz");
	const size_t target = SNIFF_BYTES + REFILL_BYTES;
	char *text = make_text(REFILL_BYTES);
	unsigned char *a = NULL, *b, *file;
	size_t a_n = 0, b_n, n;

	(void)state;
	/* about 18 bytes of gzip framing and 5 per stored block of up to 64 KiB */
	for (n = REFILL_BYTES - 5; n > REFILL_BYTES - 1000; n--) {
		a = gzip_mem(text, n, 0, &a_n);
		if (a_n == target)
			break;
		free(a);
		a = NULL;
	}
	assert_non_null(a);
	b = gzip_mem("tail\n", 5, 6, &b_n);
	file = malloc(a_n + b_n);
	assert_non_null(file);
	memcpy(file, a, a_n);
	memcpy(file + a_n, b, b_n);
	write_file(path, file, a_n + b_n);
	memcpy(text + n, "tail\n", 5);
	expect_content(path, READER_GZIP, BIG_BYTES, text, n + 5);
	expect_content(path, READER_GZIP, 4096, text, n + 5);
	/* and the same member alone: the end of the file right at the refill */
	write_file(path, a, a_n);
	expect_content(path, READER_GZIP, BIG_BYTES, text, n);
	unlink(path);
	free(file);
	free(a);
	free(b);
	free(text);
}

/* Open a file that holds the first `keep` bytes of data; read it all. */
static char *read_cut(const char *path, const unsigned char *data, size_t keep, size_t cap,
		      size_t *n, long *last, struct gl_err *err)
{
	struct reader r;
	char *got;

	write_file(path, data, keep);
	memset(err, 0, sizeof(*err));
	assert_int_equal(reader_open(&r, path, err), 0);
	got = read_all(&r, cap, n, last, err);
	reader_close(&r);
	unlink(path);
	return got;
}

static void test_gzip_truncated(void **state)
{
	const char *path = tmp_path("cut.gz");
	char *text = make_text(BIG_BYTES);
	size_t gz_n, n;
	unsigned char *gz = gzip_mem(text, BIG_BYTES, 6, &gz_n);
	struct gl_err err;
	long last;
	char *got;

	(void)state;
	/* cut in the middle: what came out is a true prefix, and the error is set */
	got = read_cut(path, gz, gz_n / 2, 4096, &n, &last, &err);
	assert_true(n > 0 && n < BIG_BYTES);
	assert_memory_equal(got, text, n);
	assert_int_equal(err.code, GL_EPARSE);
	assert_string_equal(err.msg, "gzip stream is truncated");
	free(got);

	/* cut just before the 8-byte trailer: all data, but no CRC to check */
	got = read_cut(path, gz, gz_n - 8, BIG_BYTES + 1, &n, &last, &err);
	assert_int_equal(err.code, GL_EPARSE);
	free(got);

	/* cut inside the 10-byte header: nothing comes out; the read fails */
	got = read_cut(path, gz, 10, 4096, &n, &last, &err);
	assert_int_equal(n, 0);
	assert_true(last < 0);
	assert_int_equal(err.code, GL_EPARSE);
	free(got);
	got = read_cut(path, gz, 2, 4096, &n, &last, &err);
	assert_int_equal(n, 0);
	assert_true(last < 0);
	assert_int_equal(err.code, GL_EPARSE);
	free(got);
	free(gz);
	free(text);
}

/*
 * BUG: when a truncated (or corrupt) gzip stream still yields bytes in the
 * read that finds the problem, reader_read() returns those bytes with err set
 * and marks the stream ended, so the next call returns 0, a clean end.  The
 * driver only looks at err when a read returns < 0, so a truncated .gz is
 * processed as if it were complete and "stopped early" is never reported.
 */
static void test_gzip_truncated_reports(void **state)
{
	const char *path = tmp_path("cut2.gz");
	char *text;
	size_t gz_n, n;
	unsigned char *gz;
	struct gl_err err;
	long last;
	char *got;

	(void)state;
	text = make_text(BIG_BYTES);
	gz = gzip_mem(text, BIG_BYTES, 6, &gz_n);
	got = read_cut(path, gz, gz_n / 2, 2 * BIG_BYTES, &n, &last, &err);
	assert_true(n > 0);
	assert_true(last < 0);
	assert_int_equal(err.code, GL_EPARSE);
	free(got);
	got = read_cut(path, gz, gz_n / 2, 4096, &n, &last, &err);
	assert_true(last < 0);
	free(got);
	free(gz);
	free(text);
}

static void test_gzip_corrupt(void **state)
{
	const char *path = tmp_path("bad.gz");
	char *text = make_text(200000);
	size_t gz_n, n;
	unsigned char *gz = gzip_mem(text, 200000, 6, &gz_n);
	struct gl_err err;
	long last;
	char *got;

	(void)state;
	/* garbage in the middle of the deflate data; the CRC catches what inflate misses */
	memset(gz + gz_n / 2, 0xa5, 64);
	got = read_cut(path, gz, gz_n, 4096, &n, &last, &err);
	assert_int_equal(err.code, GL_EPARSE);
	free(got);

	/* a gzip header followed by bytes that are no deflate stream at all */
	memset(gz + 10, 0xff, gz_n - 10);
	got = read_cut(path, gz, gz_n, 4096, &n, &last, &err);
	assert_int_equal(n, 0);
	assert_true(last < 0);
	assert_int_equal(err.code, GL_EPARSE);
	assert_non_null(strstr(err.msg, "gzip data is corrupt"));
	free(got);
	free(gz);
	free(text);
}

static void test_zstd(void **state)
{
	const char *path = tmp_path("big.log.zst");
	char *text = make_text(BIG_BYTES);
	size_t z_n, z2_n;
	unsigned char *z = zstd_mem(text, BIG_BYTES, &z_n);
	unsigned char *z2, *both;
	struct reader r;
	struct gl_err err = { 0 };

	(void)state;
	assert_true(z_n > 2 * REFILL_BYTES);
	write_file(path, z, z_n);
	assert_int_equal(reader_open(&r, path, &err), 0);
	assert_string_equal(reader_kind_name(r.kind), "zstd");
	reader_close(&r);
	expect_content(path, READER_ZSTD, BIG_BYTES, text, BIG_BYTES);
	expect_content(path, READER_ZSTD, 2 * BIG_BYTES, text, BIG_BYTES);
	expect_content(path, READER_ZSTD, 65536, text, BIG_BYTES);
	expect_content(path, READER_ZSTD, 7, text, BIG_BYTES);

	/* two frames back to back, as `cat a.zst b.zst` makes */
	z2 = zstd_mem("tail\n", 5, &z2_n);
	both = malloc(z_n + z2_n);
	assert_non_null(both);
	memcpy(both, z, z_n);
	memcpy(both + z_n, z2, z2_n);
	write_file(path, both, z_n + z2_n);
	text = realloc(text, BIG_BYTES + 5);
	assert_non_null(text);
	memcpy(text + BIG_BYTES, "tail\n", 5);
	expect_content(path, READER_ZSTD, 65536, text, BIG_BYTES + 5);
	expect_content(path, READER_ZSTD, 3 * BIG_BYTES, text, BIG_BYTES + 5);

	/* an empty frame */
	free(z2);
	z2 = zstd_mem("", 0, &z2_n);
	write_file(path, z2, z2_n);
	expect_content(path, READER_ZSTD, 4096, "", 0);
	unlink(path);
	free(both);
	free(z2);
	free(z);
	free(text);
}

static void test_zstd_truncated_no_crash(void **state)
{
	const char *path = tmp_path("cut.zst");
	char *text = make_text(BIG_BYTES);
	size_t z_n, n;
	unsigned char *z = zstd_mem(text, BIG_BYTES, &z_n);
	struct gl_err err;
	long last;
	char *got;

	(void)state;
	/* whatever comes out of a cut stream is a true prefix of the original */
	got = read_cut(path, z, z_n / 2, 4096, &n, &last, &err);
	assert_true(n < BIG_BYTES);
	assert_memory_equal(got, text, n);
	free(got);
	got = read_cut(path, z, 4, 4096, &n, &last, &err);
	assert_int_equal(n, 0);
	free(got);
	free(z);
	free(text);
}

/*
 * BUG: a truncated zstd stream ends like a complete one.  When the input runs
 * out in the middle of a frame, reader_read() sets eof_out and returns what it
 * has, never an error: ZSTD_decompressStream's non-zero return ("frame not
 * finished") is ignored.  Half a .zst file is processed as the whole.
 */
static void test_zstd_truncated_reports(void **state)
{
	const char *path = tmp_path("cut2.zst");
	char *text;
	size_t z_n, n;
	unsigned char *z;
	struct gl_err err;
	long last;
	char *got;

	(void)state;
	text = make_text(BIG_BYTES);
	z = zstd_mem(text, BIG_BYTES, &z_n);
	got = read_cut(path, z, z_n / 2, 4096, &n, &last, &err);
	assert_true(last < 0);
	assert_int_equal(err.code, GL_EPARSE);
	free(got);
	got = read_cut(path, z, z_n - 1, 2 * BIG_BYTES, &n, &last, &err);
	assert_true(last < 0);
	assert_int_equal(err.code, GL_EPARSE);
	free(got);
	/* the magic number alone */
	got = read_cut(path, z, 4, 4096, &n, &last, &err);
	assert_true(last < 0);
	assert_int_equal(err.code, GL_EPARSE);
	free(got);
	free(z);
	free(text);
}

static void test_zstd_corrupt(void **state)
{
	const char *path = tmp_path("bad.zst");
	static const unsigned char bad[] = {
		0x28, 0xb5, 0x2f, 0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	struct gl_err err;
	size_t n;
	long last;
	char *got;

	(void)state;
	got = read_cut(path, bad, sizeof(bad), 4096, &n, &last, &err);
	assert_int_equal(n, 0);
	assert_true(last < 0);
	assert_int_equal(err.code, GL_EPARSE);
	assert_non_null(strstr(err.msg, "zstd data is corrupt"));
	free(got);
}

static void test_xz_refused(void **state)
{
	static const unsigned char xz[] = { 0xfd, '7', 'z', 'X', 'Z', 0x00, 0x00, 0x04, 0xe6 };
	const char *path = tmp_path("old.log.xz");
	struct reader r;
	struct gl_err err = { 0 };
	char want[192];

	(void)state;
	write_file(path, xz, sizeof(xz));
	assert_int_equal(reader_open(&r, path, &err), GL_EUNSUPPORTED);
	assert_int_equal(err.code, GL_EUNSUPPORTED);
	snprintf(want, sizeof(want), "'%s' is xz-compressed; decompress it with xz -d first", path);
	assert_string_equal(err.msg, want);
	/* a failed open leaves nothing open and can be closed again */
	assert_int_equal(r.fd, -1);
	assert_null(r.inbuf);
	reader_close(&r);

	/* five of the six magic bytes are not xz */
	write_file(path, xz, 5);
	assert_int_equal(reader_open(&r, path, &err), 0);
	assert_int_equal(r.kind, READER_MAP);
	reader_close(&r);
	unlink(path);
}

/*
 * BUG: reader_open() ends with `return err ? err->code : GL_EIO;`, so a
 * caller that passes no error record gets GL_EIO for an xz file instead of
 * GL_EUNSUPPORTED.  (driver.c calls reader_open(&rd, path, NULL) once.)
 */
static void test_xz_refused_without_err(void **state)
{
	static const unsigned char xz[] = { 0xfd, '7', 'z', 'X', 'Z', 0x00, 0x00 };
	const char *path = tmp_path("noerr.xz");
	struct reader r;
	int rc;

	(void)state;
	write_file(path, xz, sizeof(xz));
	rc = reader_open(&r, path, NULL);
	unlink(path);
	assert_int_equal(rc, GL_EUNSUPPORTED);
}

static void test_directory(void **state)
{
	struct reader r;
	struct gl_err err = { 0 };
	char want[192];
	const char *dir = tmp_path("");

	(void)state;
	assert_int_equal(reader_open(&r, dir, &err), GL_EIO);
	assert_int_equal(err.code, GL_EIO);
	snprintf(want, sizeof(want), "'%s' is a directory", dir);
	assert_string_equal(err.msg, want);
	assert_int_equal(r.fd, -1);
	reader_close(&r);
	/* without an error record the code still comes back */
	assert_int_equal(reader_open(&r, dir, NULL), GL_EIO);
}

static void test_missing(void **state)
{
	const char *path = tmp_path("does-not-exist.log");
	struct reader r;
	struct gl_err err = { 0 };
	char want[192];

	(void)state;
	assert_int_equal(reader_open(&r, path, &err), GL_EIO);
	assert_int_equal(err.code, GL_EIO);
	snprintf(want, sizeof(want), "cannot open '%s': %s", path, strerror(ENOENT));
	assert_string_equal(err.msg, want);
	assert_int_equal(r.fd, -1);
	reader_close(&r);
	assert_int_equal(reader_open(&r, path, NULL), GL_EIO);
}

/*
 * BUG: bytes_in ("compressed bytes consumed") leaves out the 6 bytes read
 * to sniff the compression, for every stream except a mapped file.
 */
static void test_bytes_in(void **state)
{
	const char *path = tmp_path("count.gz");
	char *text;
	size_t gz_n, n;
	unsigned char *gz;
	struct reader r;
	struct gl_err err = { 0 };
	long last;

	(void)state;
	text = make_text(100000);
	gz = gzip_mem(text, 100000, 6, &gz_n);
	write_file(path, gz, gz_n);
	assert_int_equal(reader_open(&r, path, &err), 0);
	free(read_all(&r, 4096, &n, &last, &err));
	assert_int_equal(n, 100000);
	assert_true(r.bytes_in == gz_n);
	reader_close(&r);
	unlink(path);
	free(gz);
	free(text);
}

static void test_kind_names(void **state)
{
	(void)state;
	assert_string_equal(reader_kind_name(READER_MAP), "plain");
	assert_string_equal(reader_kind_name(READER_PLAIN), "plain");
	assert_string_equal(reader_kind_name(READER_GZIP), "gzip");
	assert_string_equal(reader_kind_name(READER_ZSTD), "zstd");
	assert_string_equal(reader_kind_name(READER_XZ), "xz");
	assert_string_equal(reader_kind_name((enum reader_kind)99), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_mapped),
		cmocka_unit_test(test_empty_file),
		cmocka_unit_test(test_stdin),
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_gzip_two_members),
		cmocka_unit_test(test_gzip_member_at_refill_boundary),
		cmocka_unit_test(test_gzip_truncated),
		cmocka_unit_test(test_gzip_truncated_reports),
		cmocka_unit_test(test_gzip_corrupt),
		cmocka_unit_test(test_zstd),
		cmocka_unit_test(test_zstd_truncated_no_crash),
		cmocka_unit_test(test_zstd_truncated_reports),
		cmocka_unit_test(test_zstd_corrupt),
		cmocka_unit_test(test_xz_refused),
		cmocka_unit_test(test_xz_refused_without_err),
		cmocka_unit_test(test_directory),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_bytes_in),
		cmocka_unit_test(test_kind_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
