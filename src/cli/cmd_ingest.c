/* SPDX-License-Identifier: MIT */
/*
 * gputally ingest: read logs like report and add their per-minute rollups to
 * a store (docs/store.md).  Each file is first recognised by its content
 * (already there, grown since, or new); only new and grown files are read,
 * together, as report reads them, and written in one transaction.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "analysis/analysis.h"
#include "cli/commands.h"
#include "cli/ingest_opts.h"
#include "cli/usage.h"
#include "formats/driver.h"
#include "pipeline/pipeline.h"
#include "store/store.h"
#include "util/timeutil.h"
#include "util/xalloc.h"
#include "util/termsafe.h"

#define INGEST_CMD_OPTIONS(X, G) \
	X(DB, "db", 0, "FILE", "the store to add to (created when missing; SQLite, docs/store.md)") \
	X(EACH, "each", 0, NULL, "read and commit each file on its own (one transaction per file) instead of all together") \
	X(QUIET, "quiet", 'q', NULL, "print only the summary line, not one line per file") \
	G(INGEST_OPTIONS) \
	X(HELP, "help", 'h', NULL, "show this help")

enum { OPTION_IDS(INGEST_CMD_OPTIONS) };

const struct option_def ingest_options[] = { OPTION_ROWS(INGEST_CMD_OPTIONS) OPTIONS_END };

struct file_item {
	char *path;
	struct file_check fc;
	const char *dup_of;	/* same content as an earlier file of this call */
	const char *outcome;	/* what was done, for the report line */
	char *detail;		/* the rest of that line, owned (NULL: none) */
};

/* A stored content read again beside the new files (docs/store.md "Held
 * logs and shared minutes"): a held log, or one that shares their minutes. */
struct companion {
	struct stored_file sf;
	bool held;
	char *detail;		/* its report line, owned (NULL: not read) */
};

struct ingest_state {
	struct store st;
	struct ingest_cli ic;
	struct file_item *f;
	size_t nf, falloc;
	int quiet;
	int n_new, n_grown, n_known, n_skipped, n_unreadable, n_again;
	struct store_counts tot;
	/* the companions' lines, for the list printed at the end */
	char **again;
	size_t nagain, again_alloc;
};

/* Is path one of items[0..n)? */
static bool in_call(struct file_item **items, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(items[i]->path, path))
			return true;
	return false;
}

/* Is the stored content f still at its path, unchanged? */
static bool still_there(struct ingest_state *s, const struct stored_file *f)
{
	struct file_check fc;

	return store_check_file(&s->st, f->path, &fc) == 0 && fc.size == f->size && !strcmp(fc.hash, f->hash);
}

/* The held logs (seen, not placed) still on disk, unchanged, that items do not name. */
static size_t held_companions(struct ingest_state *s, struct file_item **items, size_t n, struct companion **out)
{
	struct stored_file *sf = NULL;
	size_t nsf = 0, nc = 0;
	struct gl_err err = { 0 };

	*out = NULL;
	if (store_stored_files(&s->st, INT64_MAX, INT64_MIN, &sf, &nsf, &err))
		return 0;
	for (size_t i = 0; i < nsf; i++) {
		if (sf[i].t_first_ns != INT64_MIN || in_call(items, n, sf[i].path) || !still_there(s, &sf[i]))
			continue;
		*out = xrealloc(*out, (nc + 1) * sizeof(**out));
		memset(&(*out)[nc], 0, sizeof(**out));
		(*out)[nc].sf = sf[i];
		(*out)[nc++].held = true;
	}
	free(sf);
	return nc;
}

/* Minutes of [a, b] and [c, d] (ns) meet: one minute holds both. */
static bool minutes_meet(int64_t a, int64_t b, int64_t c, int64_t d)
{
	const int64_t m = 60 * NS_PER_S;
	return (a / m) <= (d / m) && (c / m) <= (b / m);
}

/*
 * The stored files whose minutes the spans of this run meet (other than
 * the run's own and the held ones read already), appended to *comp.
 * Returns how many were added, or -1 when one of them is no longer on disk
 * as stored: then nothing can be read again, and the rule of the most
 * seconds per minute stays (docs/store.md).
 */
static long sharing_companions(struct ingest_state *s, struct file_item **items, size_t n,
			       const int64_t (*spans)[2], size_t nspans, struct companion **comp, size_t *ncomp)
{
	struct stored_file *sf = NULL;
	size_t nsf = 0;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	long added = 0;
	struct gl_err err = { 0 };

	for (size_t i = 0; i < nspans; i++) {
		lo = spans[i][0] < lo ? spans[i][0] : lo;
		hi = spans[i][1] > hi ? spans[i][1] : hi;
	}
	if (lo > hi || store_stored_files(&s->st, lo - 60 * NS_PER_S, hi + 60 * NS_PER_S, &sf, &nsf, &err))
		return 0;
	for (size_t i = 0; i < nsf && added >= 0; i++) {
		bool meets = false, known = false;
		if (sf[i].t_first_ns == INT64_MIN || in_call(items, n, sf[i].path))
			continue;
		for (size_t k = 0; k < *ncomp; k++)
			known |= !strcmp((*comp)[k].sf.path, sf[i].path);
		for (size_t k = 0; k < nspans && !meets; k++)
			meets = minutes_meet(spans[k][0], spans[k][1], sf[i].t_first_ns, sf[i].t_last_ns);
		if (known || !meets)
			continue;
		if (!still_there(s, &sf[i])) {
			added = -1;
			break;
		}
		*comp = xrealloc(*comp, (*ncomp + 1) * sizeof(**comp));
		memset(&(*comp)[*ncomp], 0, sizeof(**comp));
		(*comp)[(*ncomp)++].sf = sf[i];
		added++;
	}
	free(sf);
	return added;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_item(struct ingest_state *s, const char *path)
{
	ALLOC_GROW(s->f, s->nf + 1, s->falloc);
	memset(&s->f[s->nf], 0, sizeof(s->f[0]));
	s->f[s->nf++].path = xstrdup(path);
}

/* Directories the way report walks them: recursively, sorted by name, dot files left out. */
static void expand(struct ingest_state *s, const char *path, int depth)
{
	struct stat sb;
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t nr = 0, alloc = 0;

	if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode) || depth > 16 || !(d = opendir(path))) {
		add_item(s, path);
		return;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		ALLOC_GROW(names, nr + 1, alloc);
		names[nr] = xmalloc(strlen(path) + strlen(de->d_name) + 2);
		sprintf(names[nr], "%s%s%s", path, path[strlen(path) - 1] == '/' ? "" : "/", de->d_name);
		nr++;
	}
	closedir(d);
	if (nr)
		qsort(names, nr, sizeof(*names), cmp_str);
	for (size_t i = 0; i < nr; i++) {
		expand(s, names[i], depth + 1);
		free(names[i]);
	}
	free(names);
}

static void when(char *buf, size_t cap, int64_t t_s)
{
	time_rfc3339(buf, cap, t_s * NS_PER_S);
}

/* Set it->detail, sized to its text: one line per file is kept to the end,
 * and a fixed 1400 bytes each were 140 MB for 100000 files. */
static void __attribute__((format(printf, 2, 3))) set_detail(struct file_item *it, const char *fmt, ...)
{
	char buf[1400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	free(it->detail);
	it->detail = xstrdup(buf);
}

/* The line for one file read in this run. */
static void describe_read(struct file_item *it, const struct input_stat *in)
{
	char a[40], b[256];

	if (!in->format) {
		it->outcome = "skipped";
		set_detail(it, "%s", in->skip_reason[0] ? in->skip_reason : "not read");
		return;
	}
	if (in->t_first_ns != INT64_MIN) {
		time_rfc3339(a, sizeof(a), in->t_first_ns);
		time_rfc3339(b, sizeof(b), in->t_last_ns);
	} else {
		snprintf(a, sizeof(a), "no time");
		snprintf(b, sizeof(b), "-");
	}
	if (in->zone_assumed) {
		/* the store keeps UTC: say the zone that was assumed to get it */
		size_t n = strlen(b);
		snprintf(b + n, sizeof(b) - n, "; read in %s, the zone assumed (no zone in its stamps, "
			 "nothing zoned beside it; --tz sets it)", in->zone_assumed);
	}
	if (it->fc.status == FILE_GROWN) {
		char at[40];
		when(at, sizeof(at), it->fc.known_at);
		it->outcome = "grown";
		set_detail(it,
			 "%s, %" PRIu64 " new bytes after the %" PRIu64 " of '%s' ingested %s; %s .. %s",
			 in->format->id, it->fc.size - it->fc.known_size, it->fc.known_size, it->fc.known_path, at, a, b);
	} else {
		it->outcome = "new";
		set_detail(it, "%s, %" PRIu64 " bytes, %" PRIu64 " records; %s .. %s",
			 in->format->id, it->fc.size, in->records, a, b);
	}
}

static void add_counts(struct store_counts *t, const struct store_counts *c)
{
	t->minutes_new += c->minutes_new;
	t->minutes_updated += c->minutes_updated;
	t->minutes_kept += c->minutes_kept;
	t->procs_new += c->procs_new;
	t->procs_updated += c->procs_updated;
	t->procs_kept += c->procs_kept;
	t->findings_new += c->findings_new;
	t->findings_updated += c->findings_updated;
	t->findings_kept += c->findings_kept;
}

#define GROUP_AGAIN (-100)	/* read the group again with more companions */

#define GROUP_PASSES 8	/* passes of one group at most: the last one stores what it read */

static int ingest_group_pass(struct ingest_state *s, struct file_item **items, size_t n, struct companion **comp,
			     size_t *ncomp, int64_t (**repl)[2], size_t *nrepl, bool last);

/*
 * Read items[0..n) with the held logs still on disk; where their minutes
 * meet those of stored files still on disk, read once more with those too,
 * so that the minutes they share are the one-call merge of every source
 * (docs/store.md "Held logs and shared minutes").
 */
static int ingest_group(struct ingest_state *s, struct file_item **items, size_t n)
{
	struct companion *comp = NULL;
	size_t ncomp = held_companions(s, items, n, &comp), nrepl = 0;
	int64_t (*repl)[2] = NULL;
	int ret = GROUP_AGAIN;

	/* another ingest may store a file that shares these minutes between
	 * one pass and the next: each pass looks again, inside its write lock */
	for (int pass = 1; ret == GROUP_AGAIN; pass++)
		ret = ingest_group_pass(s, items, n, &comp, &ncomp, &repl, &nrepl, pass == GROUP_PASSES);
	for (size_t k = 0; k < ncomp; k++) {
		if (comp[k].detail && ret == EXIT_OK) {
			ALLOC_GROW(s->again, s->nagain + 1, s->again_alloc);
			s->again[s->nagain++] = comp[k].detail;
			s->n_again++;
		} else {
			free(comp[k].detail);	/* rolled back: nothing to list */
		}
	}
	free(comp);
	free(repl);
	return ret;
}

/*
 * Read items[0..n) and comp together and commit them in one transaction:
 * the rollups, the findings, a row per file read and the run.  Any failure
 * rolls the whole transaction back, so the store is as it was before.
 * *repl NULL (the first pass): when stored files share minutes with what
 * was read, they are added to comp, the spans read go to *repl, everything
 * is rolled back and GROUP_AGAIN returned.  A later pass does the same for
 * files stored since, by another ingest, that meet *repl's spans: the
 * check is made under the same write lock as the commit, so two ingests
 * started at once store what one after the other would.  The last pass
 * checks nothing.
 */
static int ingest_group_pass(struct ingest_state *s, struct file_item **items, size_t n, struct companion **comp,
			     size_t *ncomp, int64_t (**repl)[2], size_t *nrepl, bool last)
{
	struct pipeline_opts popts;
	struct pipeline pl;
	struct store_writer *w;
	struct store_counts c = { 0 };
	struct gl_err err = { 0 };
	size_t np = n + *ncomp;
	const char **paths = xcalloc(np, sizeof(*paths));
	int64_t run;
	int st, ret = EXIT_OK, fn = 0, fg = 0;
	bool first = !*repl;

	for (size_t i = 0; i < n; i++)
		paths[i] = items[i]->path;
	for (size_t k = 0; k < *ncomp; k++)
		paths[n + k] = (*comp)[k].sf.path;
	ingest_cli_pipeline(&s->ic, paths, (int)np, &popts);
	/* the companions' bad lines were counted (and --strict applied)
	 * when they were first ingested */
	popts.recounted = paths + n;
	popts.nrecounted = *ncomp;
	/* the store keeps minutes (on_state), not the page's series */
	pipeline_open(&pl, &popts);
	if (store_begin_write(&s->st, &err)) {
		print_gl_err(&err);
		ret = EXIT_FAILURE_RUN;
		goto out_nofail;
	}
	w = store_writer_new(&s->st, pl.an);
	if (*nrepl)
		store_writer_replace(w, (const int64_t (*)[2]) * repl, *nrepl, paths, np);
	run = store_run_begin(&s->st, (int)n, &err);
	if (run < 0) {
		print_gl_err(&err);
		ret = EXIT_FAILURE_RUN;
		goto fail;
	}
	{
		/* the hashes left by store_check_file_lazy(), taken beside the parse */
		struct file_check **fcs = xcalloc(n, sizeof(*fcs));
		struct store_hashing *h;
		for (size_t i = 0; i < n; i++)
			fcs[i] = &items[i]->fc;
		h = store_finish_hashes_start((struct file_check *const *)fcs, n);
		st = pipeline_run(&pl);
		if (store_finish_hashes_wait(h) && st == PIPE_OK) {
			for (size_t i = 0; i < n; i++)
				if (items[i]->fc.status == FILE_UNREADABLE)
					error("%s: %s", items[i]->path, items[i]->fc.why);
			free(fcs);
			ret = EXIT_FAILURE_RUN;
			goto fail;
		}
		free(fcs);
	}
	if (first && st == PIPE_OK && pl.res.nr == np) {
		/* the spans read, and the stored files that share their minutes */
		size_t ns = 0;
		int64_t (*spans)[2] = xcalloc(np, sizeof(*spans));
		long more;
		for (size_t i = 0; i < np; i++)
			if (pl.res.inputs[i].format && pl.res.inputs[i].t_first_ns != INT64_MIN) {
				spans[ns][0] = pl.res.inputs[i].t_first_ns;
				spans[ns++][1] = pl.res.inputs[i].t_last_ns;
			}
		more = sharing_companions(s, items, n, (const int64_t (*)[2])spans, ns, comp, ncomp);
		if (more > 0) {
			*repl = spans;
			*nrepl = ns;
			ret = GROUP_AGAIN;
			store_writer_free(w);
			store_exec(&s->st, "ROLLBACK", NULL);
			goto out_nofail;
		}
		free(spans);
	} else if (!first && !last && st == PIPE_OK && pl.res.nr == np &&
		   sharing_companions(s, items, n, (const int64_t (*)[2]) * repl, *nrepl, comp, ncomp) > 0) {
		ret = GROUP_AGAIN;
		store_writer_free(w);
		store_exec(&s->st, "ROLLBACK", NULL);
		goto out_nofail;
	}
	pipeline_say_bad(&pl);
	if (st != PIPE_OK) {
		ret = pipeline_say_status(&pl, st, "; nothing of this run was stored");
		goto fail;
	}
	if (store_writer_finish(w, &c, &err)) {
		print_gl_err(&err);
		ret = EXIT_FAILURE_RUN;
		goto fail;
	}
	for (size_t i = 0; i < pl.res.nr && i < n; i++) {
		const struct input_stat *in = &pl.res.inputs[i];
		describe_read(items[i], in);
		if (!in->format) {
			s->n_skipped++;
			/*
			 * A log of a known format left out because nothing places it
			 * (no time, no log to match, file times that say nothing) is
			 * stored as seen: its content comes back as "already there",
			 * not placed at a newer file time (issue 28).
			 */
			if (in->sniff_format && in->skip_reason[0] &&
			    store_add_file(&s->st, &items[i]->fc, in, run, &err)) {
				print_gl_err(&err);
				ret = EXIT_FAILURE_RUN;
				goto fail;
			}
			continue;
		}
		if (items[i]->fc.status == FILE_GROWN)
			fg++;
		else
			fn++;
		if (store_add_file(&s->st, &items[i]->fc, in, run, &err)) {
			print_gl_err(&err);
			ret = EXIT_FAILURE_RUN;
			goto fail;
		}
	}
	/* the companions: a held log placed now takes its span; each is listed */
	for (size_t k = 0; k < *ncomp && n + k < pl.res.nr; k++) {
		const struct input_stat *in = &pl.res.inputs[n + k];
		struct companion *cp = &(*comp)[k];
		char a[40], b[40], line[1400];
		free(cp->detail);
		cp->detail = NULL;
		if (!in->format) {
			if (!cp->held)
				continue;
			snprintf(line, sizeof(line), "held       %s (still not placed: %s)", cp->sf.path, in->skip_reason);
			cp->detail = xstrdup(line);
			continue;
		}
		if (in->t_first_ns == INT64_MIN)
			continue;	/* read, and still no time (a file of no records): nothing to say */
		if (cp->held && store_place_file(&s->st, cp->sf.id, in, run, &err)) {
			print_gl_err(&err);
			ret = EXIT_FAILURE_RUN;
			goto fail;
		}
		time_rfc3339(a, sizeof(a), in->t_first_ns);
		time_rfc3339(b, sizeof(b), in->t_last_ns);
		snprintf(line, sizeof(line), "%s %s (%s, stored %s: read again beside the new files; %s .. %s; %s)",
			 cp->held ? "placed    " : "again     ", cp->sf.path, in->format->id,
			 cp->held ? "as held" : "before, it shares their minutes", a, b,
			 in->time_basis ? in->time_basis : "timestamps in the file");
		cp->detail = xstrdup(line);
	}
	if (store_run_end(&s->st, run, &c, fn, fg, 0, &err) || store_exec(&s->st, "COMMIT", &err)) {
		print_gl_err(&err);
		ret = EXIT_FAILURE_RUN;
		goto fail;
	}
	s->n_new += fn;
	s->n_grown += fg;
	add_counts(&s->tot, &c);
	store_writer_free(w);
	goto out_nofail;
fail:
	store_writer_free(w);
	store_exec(&s->st, "ROLLBACK", NULL);
	for (size_t i = 0; i < n; i++)
		if (items[i]->outcome && strcmp(items[i]->outcome, "skipped"))
			items[i]->outcome = "not stored";
out_nofail:
	pipeline_close(&pl);
	free(paths);
	return ret;
}

static int usage_ok(struct ingest_state *s, int argc, char **argv, const char **db, const char ***ops,
		    int *nops, int *each)
{
	struct option_iter it;
	int id;

	option_iter_init(&it, argc, argv);
	while ((id = option_next(&it, ingest_options, ops, nops)) != 0) {
		switch (id) {
		case -1:
			return EXIT_USAGE;
		case OPT_HELP:
			options_help("ingest", "--db FILE [options] FILE|DIR...",
				     "Add the per-minute rollups of GPU logs to a store, for 'gputally trend' and\n"
				     "'gputally report --db'.  A file already ingested adds nothing, a file that grew adds\n"
				     "its new minutes, a renamed or compressed copy is recognised by its content.\n"
				     "A log that only its file time would place is held (stored as seen) and read again\n"
				     "by later ingests until a dated log of its GPU places it; stored files that share\n"
				     "minutes with the new ones are read again with them.",
				     ingest_options);
			return -1;
		case OPT_DB:
			*db = it.arg;
			break;
		case OPT_EACH:
			*each = 1;
			break;
		case OPT_QUIET:
			s->quiet = 1;
			break;
		default:
			if (ingest_cli_option(&s->ic, id, it.arg) < 0)
				return EXIT_USAGE;
		}
	}
	if (!*db) {
		error("ingest needs --db FILE, the store to add to");
		return EXIT_USAGE;
	}
	if (*nops == 0) {
		error("ingest needs at least one file or directory (try 'gputally ingest --db history.db examples/h200-training')");
		return EXIT_USAGE;
	}
	return 0;
}

/* Whether earlier file a (not unreadable) has b's content: the same size and
 * first block, then the same hash, finished here where one is pending. */
static bool same_content(struct file_item *a, struct file_item *b)
{
	if (a->fc.status == FILE_UNREADABLE || a->fc.size != b->fc.size || strcmp(a->fc.head, b->fc.head))
		return false;
	if (store_finish_hash(&a->fc) || store_finish_hash(&b->fc))
		return false;
	return !strcmp(a->fc.hash, b->fc.hash);
}

/* Already there, a copy of another file of this call, or to be read. */
static size_t classify(struct ingest_state *s, struct file_item **todo)
{
	size_t nt = 0;

	for (size_t i = 0; i < s->nf; i++) {
		struct file_item *it = &s->f[i];
		char at[40];
		if (!strcmp(it->path, "-")) {
			/* the content is read twice (fingerprint, then parse): a pipe cannot be */
			it->outcome = "skipped";
			set_detail(it, "standard input cannot be ingested: save it to a file first");
			s->n_unreadable++;
			continue;
		}
		/* lazy: a file new to the store has the rest of its hash taken
		 * while it is parsed (ingest_group), not in a pass of its own */
		if (store_check_file_lazy(&s->st, it->path, &it->fc)) {
			it->outcome = "unreadable";
			set_detail(it, "%s", it->fc.why);
			s->n_unreadable++;
			continue;
		}
		for (size_t j = 0; j < i && !it->dup_of; j++)
			if (same_content(&s->f[j], it))
				it->dup_of = s->f[j].path;
		if (it->fc.status == FILE_UNREADABLE) {	/* its hash could not be finished */
			it->outcome = "unreadable";
			set_detail(it, "%s", it->fc.why);
			s->n_unreadable++;
			continue;
		}
		if (it->fc.status == FILE_KNOWN || it->dup_of) {
			it->outcome = "already";
			when(at, sizeof(at), it->fc.known_at);
			if (it->dup_of)
				set_detail(it, "same content as '%s' of this run", it->dup_of);
			else
				set_detail(it, "same content as '%s', ingested %s",
					 it->fc.known_path, at);
			s->n_known++;
			continue;
		}
		todo[nt++] = it;
	}
	return nt;
}

int cmd_ingest(int argc, char **argv)
{
	struct ingest_state s;
	struct gl_err err = { 0 };
	struct file_item **todo = NULL;
	const char *db = NULL, **ops = NULL;
	int nops = 0, each = 0, ret;
	size_t nt, nspans = 0;
	int64_t (*spans)[2] = NULL;

	memset(&s, 0, sizeof(s));
	ingest_cli_init(&s.ic);
	ret = usage_ok(&s, argc, argv, &db, &ops, &nops, &each);
	if (ret) {
		free(ops);
		return ret < 0 ? EXIT_OK : ret;
	}
	ingest_cli_apply(&s.ic);
	/* by evidence or not at all: a log only its file time would place is
	 * held, and read again when a later ingest brings evidence */
	s.ic.o.hold_weak = true;
	if (store_open(&s.st, db, STORE_WRITE, &err)) {
		print_gl_err(&err);
		free(ops);
		return EXIT_FAILURE_RUN;
	}
	for (int i = 0; i < nops; i++)
		expand(&s, ops[i], 0);
	todo = xcalloc(s.nf ? s.nf : 1, sizeof(*todo));
	nt = classify(&s, todo);
	/* what earlier ingests read dates a time-of-day log that comes without
	 * its dated log (issue 28; docs/states.md "Every log on one clock") */
	if (nt && store_file_spans(&s.st, &spans, &nspans, &err) == 0) {
		s.ic.o.known_spans = (const int64_t (*)[2])spans;
		s.ic.o.nknown_spans = nspans;
	}
	if (each) {
		for (size_t i = 0; i < nt && ret == EXIT_OK; i++)
			ret = ingest_group(&s, &todo[i], 1);
	} else if (nt) {
		ret = ingest_group(&s, todo, nt);
	}
	s.ic.o.known_spans = NULL;
	s.ic.o.nknown_spans = 0;
	free(spans);
	term_safe_stdout();	/* file names and reasons */
	for (size_t i = 0; i < s.nf && !s.quiet; i++)
		printf("%-10s %s (%s)\n", s.f[i].outcome ? s.f[i].outcome : "not read", s.f[i].path,
		       s.f[i].detail ? s.f[i].detail : "an earlier file failed");
	for (size_t i = 0; i < s.nagain; i++) {
		if (!s.quiet)
			printf("%s\n", s.again[i]);
		free(s.again[i]);
	}
	free(s.again);
	printf("ingest: %d new, %d grown, %d already there, %d skipped; minutes %" PRIu64 " new, %" PRIu64
	       " updated, %" PRIu64 " already there; findings %" PRIu64 " new, %" PRIu64 " already there -> %s\n",
	       s.n_new, s.n_grown, s.n_known, s.n_skipped + s.n_unreadable, s.tot.minutes_new, s.tot.minutes_updated,
	       s.tot.minutes_kept, s.tot.findings_new + s.tot.findings_updated, s.tot.findings_kept, db);
	if (s.n_again)
		printf("ingest: %d stored file(s) read again beside the new ones (held, or sharing their minutes)\n",
		       s.n_again);
	if (s.n_unreadable && ret == EXIT_OK) {
		error("%d input(s) could not be read (listed above); the others were stored", s.n_unreadable);
		ret = EXIT_FAILURE_RUN;
	}
	store_close(&s.st);
	for (size_t i = 0; i < s.nf; i++) {
		store_check_release(&s.f[i].fc);	/* a hash a failed run did not finish */
		free(s.f[i].path);
		free(s.f[i].detail);
	}
	free(s.f);
	free(todo);
	free(ops);
	return ret;
}
