/* loadint: what load.c (choosing readers, the serial loop, progress,
 * messages) and loadpar.c (the parallel piece loader) share; other modules
 * use load.h only. */
#ifndef TFLAME_LOADINT_H
#define TFLAME_LOADINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "folded.h"
#include "load.h"
#include "perfscript.h"
#include "reader.h"
#include "source.h"
#include "timeline.h"

/* A progress line on stderr (a terminal only). */
struct load_progress {
	bool enabled, shown;
	double start, last;
	char name[64];
	struct load_live *live;     /* also told the progress, or NULL */
};

/* The first cut in d[from..hi): just after the first newline (folded), or
 * just after the first whitespace-only line that starts after one (perf
 * script, records: a record boundary). 0 when there is none in that
 * window. The bytes looked at are added to *scanned. */
size_t load_cut_in(const char *d, size_t from, size_t hi, bool records, uint64_t *scanned);
/* The event name a single pass over the perf script text d[0..len) would
 * keep (malloc'ed), found within its first few MiB; NULL when none is. */
char *load_first_event(const char *d, size_t len, const struct perf_options *po);

/* Monotonic seconds. */
double load_now(void);
/* Whether the address space or the data segment has a limit (ulimit -v,
 * -d): memory reserved counts whole there, and big blocks are better
 * given back as soon as they are free. */
bool load_memory_limited(void);
/* Redraws p's status line on stderr, at most 10 times a second and only
 * once loading has taken 0.3 s (short loads stay silent); `final` erases
 * it. size 0: unknown. */
void load_progress_update(struct load_progress *p, uint64_t off, uint64_t size, uint64_t stacks,
                          bool final);
/* Adds the "skipped N malformed lines" and "clamped" messages of d. */
/* Says what a reader skipped or clamped; for perf script, tells
 * o->perfdata_info (when set) the event kept and the samples. */
void load_report_diag(struct load_messages *m, const char *name, const struct reader_diag *d,
                      const struct load_options *o);

/* The folded and perf script readers behind one face, so that the serial
 * and parallel loops serve both formats. Exactly one is set. */
struct load_reader {
	struct folded_reader *f;
	struct perf_reader *p;
};

/* A perf script reader (fmt SNIFF_PERF, with po, tl and dsos, each may be
 * NULL) or a folded one. */
struct dsomap;
struct load_reader load_reader_new(enum sniff_format fmt, struct tree *t, const struct perf_options *po,
                                   struct timeline *tl, struct dsomap *dsos);
void load_reader_feed(struct load_reader *r, const char *buf, size_t len);
/* Flushes a pending record (perf) and returns the diagnostics. */
const struct reader_diag *load_reader_finish(struct load_reader *r);
void load_reader_free(struct load_reader *r);

/* Reads the mapped folded file of s in parts when that pays: a big file
 * (64 MiB and more) that does not look sorted (TFLAME_PARTS=N: always, in
 * N parts), into t, which must be empty and is then finalized in
 * o->order (name or weight); integer counts only. False when that does
 * not apply, or memory ran out on the way (nothing added to t, all of it
 * freed): the caller reads it the usual way. */
bool load_parts(struct tree *t, struct source *s, const struct load_options *o, struct load_progress *pr,
                struct load_messages *m, const char *name);
/* What the last load_parts that read a file in parts did, for tests and
 * measurements (one load at a time). */
struct load_parts_stats {
	int parts;
	size_t shared;              /* nodes of the shared tree, the root's included */
	uint32_t shared_depth;      /* its deepest node's depth */
	uint64_t bytes, biggest;    /* of the lines in parts; of the biggest part's */
	int used;                   /* parts with lines */
};
extern struct load_parts_stats load_parts_last;

/* Parses the mapped file of s, of format fmt (folded or perf script), into
 * t on o->threads threads, reporting diagnostics under name. False when
 * that does not apply (stream, small file, one thread, no piece
 * boundaries, no perf event found early): the caller then reads it the
 * usual way; nothing was added to t then. */
bool load_par(struct tree *t, struct source *s, enum sniff_format fmt, const struct load_options *o,
              struct load_progress *pr, struct load_messages *m, const char *name);

#endif
