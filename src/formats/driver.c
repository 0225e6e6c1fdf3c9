/* SPDX-License-Identifier: MIT */
/*
 * The ingest driver (see driver.h).  Design:
 *
 *   main thread:  expand paths -> open + sniff each input -> cut each input
 *                 into chunks at line ends (noting the header lines in force
 *                 at each chunk's start) -> queue chunks -> merge the parsed
 *                 batches of all inputs by time -> sink
 *   workers:      parse one chunk each: replay its context lines, then every
 *                 line through the format, into a batch of records
 *
 * Memory is bounded by the chunks in flight (a small window per input), not
 * by the input size.  Plain files are mapped, so a chunk is a pointer range;
 * compressed files are decompressed by the main thread into chunk buffers.
 */
#include "formats/driver.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/driver_int.h"
#include "formats/reader.h"
#include "formats/spool.h"
#include "util/timeutil.h"
#include "util/workpool.h"
#include "util/xalloc.h"


/* ---- expanding paths ----------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_input(struct ingest_result *res, const char *path)
{
	struct input_stat *st;
	ALLOC_GROW(res->inputs, res->nr + 1, res->alloc);
	st = &res->inputs[res->nr++];
	memset(st, 0, sizeof(*st));
	st->path = xstrdup(path);
	st->t_first_ns = st->t_last_ns = INT64_MIN;
	st->compression = "plain";
	st->place_r = st->place_uncertain_s = NAN;
}

static void expand(struct ingest_result *res, const char *path, int depth)
{
	struct stat sb;
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t nr = 0, alloc = 0;

	if (strcmp(path, "-") && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		if (depth > 16 || !(d = opendir(path))) {
			add_input(res, path);
			res->inputs[res->nr - 1].named = depth == 0;
			snprintf(res->inputs[res->nr - 1].skip_reason,
				 sizeof(res->inputs[0].skip_reason), "cannot read directory");
			return;
		}
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			ALLOC_GROW(names, nr + 1, alloc);
			names[nr] = xmalloc(strlen(path) + strlen(de->d_name) + 2);
			sprintf(names[nr], "%s%s%s", path,
				path[strlen(path) - 1] == '/' ? "" : "/", de->d_name);
			nr++;
		}
		closedir(d);
		if (nr)
			qsort(names, nr, sizeof(*names), cmp_str);
		for (size_t i = 0; i < nr; i++) {
			expand(res, names[i], depth + 1);
			free(names[i]);
		}
		free(names);
		return;
	}
	add_input(res, path);
	res->inputs[res->nr - 1].named = depth == 0;
	/* standard input, a pipe, a FIFO, a device: readable only once */
	res->inputs[res->nr - 1].stream = !strcmp(path, "-") ||
		(stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode));
}

struct file_id {
	dev_t dev;
	ino_t ino;
	size_t i;
};

static int cmp_file_id(const void *a, const void *b)
{
	const struct file_id *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * One file named twice (given again, or found again through its directory)
 * is one input: its later names are dropped.  Read twice, its samples
 * merged into themselves, but what no GPU takes (records that name none)
 * was counted twice.
 */
static void read_once(struct ingest_result *res)
{
	struct file_id *ids = xcalloc(res->nr ? res->nr : 1, sizeof(*ids));
	bool *drop = xcalloc(res->nr ? res->nr : 1, sizeof(*drop));
	size_t n = 0, w = 0;
	struct stat sb;

	for (size_t i = 0; i < res->nr; i++)
		if (!res->inputs[i].stream && !res->inputs[i].skip_reason[0] &&
		    stat(res->inputs[i].path, &sb) == 0 && S_ISREG(sb.st_mode))
			ids[n++] = (struct file_id){ sb.st_dev, sb.st_ino, i };
	if (n > 1)
		qsort(ids, n, sizeof(*ids), cmp_file_id);
	for (size_t k = 1, first = n ? ids[0].i : 0; k < n; k++) {
		if (ids[k].dev != ids[k - 1].dev || ids[k].ino != ids[k - 1].ino) {
			first = ids[k].i;
			continue;
		}
		drop[ids[k].i] = true;
		res->inputs[first].named |= res->inputs[ids[k].i].named;	/* named: its errors are errors */
	}
	for (size_t i = 0; i < res->nr; i++) {
		if (drop[i]) {
			free(res->inputs[i].path);
			continue;
		}
		res->inputs[w++] = res->inputs[i];
	}
	res->nr = w;
	free(drop);
	free(ids);
}

int ingest_run(const char *const *paths, size_t npaths, const struct ingest_opts *o,
	       struct ingest_sink *sink, struct ingest_result *res, struct gl_err *err)
{
	struct merge m = { 0 };
	struct workpool pl;
	size_t nsrc = 0;
	size_t chunk_bytes, in_cap;
	unsigned window;
	int rc;
	long ncpu;
	bool lazy;

	for (size_t i = 0; i < npaths; i++)
		expand(res, paths[i], 0);
	read_once(res);
	/* a stream is read once, into a copy that each pass reads (spool.h) */
	for (size_t i = 0; i < res->nr; i++)
		if (res->inputs[i].stream && !res->inputs[i].skip_reason[0])
			spool_input(&res->inputs[i], o);
	ncpu = o->threads > 0 ? o->threads : sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 1)
		ncpu = 1;
	if (ncpu > 64)
		ncpu = 64;
	/*
	 * One worker per CPU but one: the main thread (merge, timeline,
	 * analysis) is the critical path and keeps a CPU to itself, and it
	 * parses the next chunk itself when no worker has started it
	 * (workpool_wait), so no CPU waits idle.  One CPU: no workers at all.
	 * The pre-passes and a trace format's jobs use the same pool.
	 */
	workpool_init(&pl, (int)ncpu - 1, "gputally-parse");
	/* kernel logs first: placed by their anchors they are zoned evidence;
	 * then zones, so that logs placed by content follow their reference */
	place_kernel(res, o, &pl);
	place_zones(res, o, &pl);
	place_timeless(res, o, &pl);
	lazy = res->nr > MAP_MAX_INPUTS;
	in_cap = res->nr > 8 ? 16 * 1024 : 0;
	m.pl = &pl;
	m.o = o;
	m.in_cap = in_cap;

	/*
	 * The open sources (a list) and the inputs that wait for the merge to
	 * reach their first record (an array sorted by that time): a source
	 * is allocated when it is opened and freed when it is finished, so
	 * only inputs that overlap in time hold one, and each record costs a
	 * look at the open sources only (100000 inputs in a row were one
	 * struct source each to the end, and a pass over all of them per
	 * record).
	 */
	for (size_t i = 0; i < res->nr; i++) {
		struct source *s = xcalloc(1, sizeof(*s));
		struct input_stat *st = &res->inputs[i], before = *st;
		s->order = i;
		if (!open_source(s, st, o, !lazy, in_cap)) {
			source_release(s);
			free(s);
			continue;
		}
		nsrc++;
		if (!lazy) {
			merge_add(&m, s);
			continue;
		}
		/*
		 * Many inputs (a directory of daily logs): find when each one
		 * starts from its first 64 KiB, then close it until the merge
		 * gets there, so that only inputs that overlap in time hold a
		 * file, buffers and a decompressor at once.
		 */
		merge_add_waiting(&m, s);
		{
			const struct format *fmt = st->format;
			keep_sniffed(&before, st);
			*st = before;	/* read again from the start when opened */
			st->format = fmt;	/* known now (sink->begin), set again then */
		}
	}
	if (nsrc == 1 && m.nopen == 1)
		m.open[0]->huge_batches = true;
	if (sink->begin)
		sink->begin(sink->ud, res);

	/* Keep the bytes in flight within budget whatever the number of inputs. */
	chunk_bytes = o->chunk_bytes ? o->chunk_bytes : DEFAULT_CHUNK;
	if (!o->chunk_bytes) {
		if (nsrc > 1 && chunk_bytes * 2 * nsrc > INFLIGHT_BUDGET)
			chunk_bytes = INFLIGHT_BUDGET / (2 * nsrc);
		if (chunk_bytes < 4 * 1024)
			chunk_bytes = 4 * 1024;	/* a longer line grows its chunk */
	}	/* an explicit size (tests, the fuzzer) is taken as it is: seams everywhere */
	/*
	 * Chunks in flight per input: enough for every worker to have one and
	 * the main thread one, and no more.  Each slot's records take a huge
	 * page the kernel zeroes on first touch: on two CPUs, eight slots
	 * spent 7 % of the run's CPU in clear_page, four spend 0.8 %.
	 */
	window = (unsigned)(INFLIGHT_BUDGET / (chunk_bytes * (nsrc ? nsrc : 1)));
	if (window > (unsigned)ncpu + 2)
		window = (unsigned)ncpu + 2;
	if (window < 2)
		window = 2;
	if (window > 8)
		window = 8;

	rc = merge_run(&m, sink, chunk_bytes, window, err);

	merge_release(&m);
	workpool_release(&pl);
	for (size_t i = 0; i < res->nr; i++) {
		struct input_stat *st = &res->inputs[i];
		if (st->zone_note) {
			const char *tb = st->time_basis ? st->time_basis : "timestamps in the file";
			size_t n = strlen(tb) + strlen(st->zone_note) + 3;
			char *t = xmalloc(n);
			snprintf(t, n, "%s; %s", tb, st->zone_note);
			free(st->time_note);
			st->time_note = t;
			st->time_basis = st->time_note;
		}
		if (st->spool_cut && st->format && !st->skip_reason[0])
			snprintf(st->skip_reason, sizeof(st->skip_reason),
				 "stopped early: a stream longer than %llu bytes (GPUTALLY_SPOOL_MAX) is read up to "
				 "its last line before that size", (unsigned long long)spool_limit());
		spool_release(st);	/* the copy is read: give its disk back now */
	}
	(void)err;
	return rc;
}

void ingest_result_release(struct ingest_result *res)
{
	for (size_t i = 0; i < res->nr; i++) {
		free(res->inputs[i].path);
		free(res->inputs[i].placed_ns);
		free(res->inputs[i].columns);
		anc_plan_free(res->inputs[i].anchor);
		spool_release(&res->inputs[i]);
		free(res->inputs[i].zone_note);
		free(res->inputs[i].zone_assumed);
		free(res->inputs[i].tod_note);
		free(res->inputs[i].time_note);
	}
	free(res->inputs);
	memset(res, 0, sizeof(*res));
}
