/* SPDX-License-Identifier: MIT */
/*
 * The whole recorder (CSV, Prometheus textfile, HTTP listener) allocates
 * nothing in its sampling loop: run recorder_run() for N ticks with every
 * malloc, calloc and realloc of the process counted (outside ASan, which
 * owns malloc) and check the count did not move after the first tick.
 *   alloc_loop FAKE_NVML_LIB DIR [TICKS]
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "record/recorder.h"
#include "util/timeutil.h"

#include "../unit/alloc_count.h"

static uint64_t probe(void)
{
	return alloc_count();
}

int main(int argc, char **argv)
{
	struct record_opts o = { 0 };
	struct record_stats st;
	struct gl_err err = { 0 };

	if (argc < 3) {
		fprintf(stderr, "usage: alloc_loop FAKE_NVML_LIB DIR [TICKS]\n");
		return 2;
	}
	o.task = "alloc";
	o.dir = argv[2];
	o.nvml_lib = argv[1];
	o.host = "h";
	o.interval_ns = 2 * NS_PER_MS;
	o.count = argc > 3 ? strtoull(argv[3], NULL, 10) : 300;
	o.fsync_every = 10;
	o.prom_dir = argv[2];
	o.listen = "127.0.0.1:0";
	o.alloc_probe = probe;
	if (recorder_run(&o, &st, &err)) {
		fprintf(stderr, "alloc_loop: %s\n", err.msg);
		return 1;
	}
	printf("alloc_loop: %llu ticks, %llu rows, %llu textfile writes, %llu record allocs and %llu "
	       "libc allocs%s after the first tick\n",
	       (unsigned long long)st.ticks, (unsigned long long)st.rows,
	       (unsigned long long)st.prom_writes, (unsigned long long)st.allocs_in_loop,
	       (unsigned long long)st.probe_in_loop, COUNT_LIBC ? "" : " (not counted under ASan)");
	return st.allocs_in_loop || st.probe_in_loop || st.ticks != o.count || !st.prom_writes;
}
