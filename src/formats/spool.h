/* SPDX-License-Identifier: MIT */
/*
 * A stream input (standard input, a pipe, a FIFO, a process substitution,
 * a character device) can be read only once, but the driver reads an input
 * up to three times (the placing pre-passes, then the run).  So a stream is
 * copied once, as it is read, into an unlinked temporary file, and every
 * pass reads that copy from its start like a plain file.
 */
#ifndef FORMATS_SPOOL_H
#define FORMATS_SPOOL_H

#include <stdint.h>

#include "formats/input.h"

/* The most bytes one stream is copied: $GPUTALLY_SPOOL_MAX, else 16 GiB. */
uint64_t spool_limit(void);

/*
 * Read the stream at in->path ("-": standard input) once.  Its first 64 KiB
 * decide: a stream that is not compressed and that no format takes is not
 * copied (in->skip_reason says why, as for a file).  Otherwise every byte
 * up to spool_limit() is copied (past it, back to the last line end, and
 * in->spool_cut is set), and in->read_path names the copy for
 * reader_open().  in->skip_reason is set on any failure.
 */
void spool_input(struct input_stat *in, const struct ingest_opts *o);

/* Close the copy, if any; safe to call again. */
void spool_release(struct input_stat *in);

#endif
