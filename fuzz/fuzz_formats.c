/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer entry for every parser: the first byte picks a format
 * (fuzz_format(); past the formats, sniffing decides), the rest is the
 * file.  The input goes through the real driver (chunking, context replay,
 * time resolution) with tiny chunks so chunk seams are exercised too.
 * A first byte of 0xF0 or more cuts the rest into 5 to 8 files at line ends
 * instead, read as one directory: the merge of many inputs, each opened when
 * the merge reaches its first record.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "formats/driver.h"

static int sink_rec(void *ud, const struct input_stat *in, const struct rec *r,
		    const struct batch *b)
{
	size_t *n = ud;
	(void)in;
	if (r->name != STR_NONE)
		*n += strlen(batch_str(b, r->name));
	if (r->uuid != STR_NONE)
		*n += strlen(batch_str(b, r->uuid));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The format of a first byte.  A fixed list, in the order the formats were
 * added, so that a new format does not move the saved corpus onto other
 * parsers (the registry is sorted by name): append new ids at the end.
 * Registered formats missing from the list follow it, in registry order.
 */
static const char *const fuzz_ids[] = {
	"gpu-monitor", "gputally-csv", "kineto", "nsys-sqlite", "prom-text", "smi-apps",
	"smi-dmon", "smi-pmon", "smi-query", "smi-xml", "kernel-dmesg", "clock-ref",
	"syslog", "journal-text", "journal-json", "journal-json-pretty", "smi-q",
	"smi-table", "dev-holders", "gpustat", "dcgmi-dmon",
	"rocm-smi", "rocm-smi-json", "gpustat-json", "amd-smi-csv", "amd-smi-json",
	"rocm-smi-csv", "nvidia-bug-report", "amd-smi", "slurm-sacct", "dcgmi-stats",
	"smi-accounted", "rocm-smi-pids", "amd-smi-monitor", "amd-smi-table",
};
#define FUZZ_NIDS (sizeof(fuzz_ids) / sizeof(fuzz_ids[0]))

static bool listed(const char *id)
{
	for (size_t i = 0; i < FUZZ_NIDS; i++)
		if (!strcmp(fuzz_ids[i], id))
			return true;
	return false;
}

/* NULL: sniff */
static const char *fuzz_format(unsigned b)
{
	if (b < FUZZ_NIDS)
		return format_find(fuzz_ids[b]) ? fuzz_ids[b] : NULL;
	b -= FUZZ_NIDS;
	for (size_t i = 0; i < format_count(); i++)
		if (!listed(format_at(i)->id) && b-- == 0)
			return format_at(i)->id;
	return NULL;
}

/* Read path (a file or a directory) through the driver with o's choices. */
static void run_ingest(const char *path, struct ingest_opts *o)
{
	struct ingest_result res = { 0 };
	struct ingest_sink sink = { 0 };
	size_t n = 0;
	const char *paths[1] = { path };

	o->date_days = INT64_MIN;
	o->interval_ns = 1000000000;
	sink.ud = &n;
	sink.rec = sink_rec;
	ingest_run(paths, 1, o, &sink, &res, NULL);
	ingest_result_release(&res);
}

/* Many inputs: the payload cut into nfiles files in a new directory. */
static void run_many(const uint8_t *data, size_t size, int nfiles)
{
	char dir[] = "/tmp/gputally-fuzz-dir-XXXXXX", path[64];
	struct ingest_opts o = { 0 };
	size_t at = 0;

	if (!mkdtemp(dir))
		return;
	for (int i = 0; i < nfiles; i++) {
		size_t end = i == nfiles - 1 ? size : at + (size - at) / (size_t)(nfiles - i);
		int fd;
		while (end > at && end < size && data[end - 1] != '\n')
			end++;
		snprintf(path, sizeof(path), "%s/in%d.log", dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0) {
			if (write(fd, data + at, end - at) != (ssize_t)(end - at))
				(void)0;	/* a short file is input too */
			close(fd);
		}
		at = end;
	}
	o.threads = 2;
	run_ingest(dir, &o);
	for (int i = 0; i < nfiles; i++) {
		snprintf(path, sizeof(path), "%s/in%d.log", dir, i);
		unlink(path);
	}
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/gputally-fuzz-XXXXXX";
	struct ingest_opts o = { 0 };
	int fd;

	if (size < 1)
		return 0;
	if (data[0] >= 0xF0) {
		run_many(data + 1, size - 1, 5 + (data[0] & 3));
		return 0;
	}
	fd = mkstemp(path);
	if (fd < 0)
		return 0;
	if (write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	o.format = fuzz_format(data[0]);
	if (data[0] & 4) {
		/* kernel logs: some runs with a boot time, placing what no anchor does */
		o.has_boot_time = true;
		o.boot_time_ns = INT64_C(1795992369) * 1000000000;
	}
	o.threads = 1 + (data[0] & 1);
	o.chunk_bytes = 64 + (data[0] % 7) * 50;
	o.columns = "index,utilization.gpu,memory.used,power.draw";
	run_ingest(path, &o);
	unlink(path);
	return 0;
}
