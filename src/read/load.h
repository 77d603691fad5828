/* load: reads every input into one tree (several files merge like `cat`),
 * choosing the reader per file (sniff or forced), reporting progress on a
 * terminal, and collecting the messages to show the user. */
#ifndef TFLAME_LOAD_H
#define TFLAME_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "perfdata.h"
#include "pprof.h"
#include "perfscript.h"
#include "sniff.h"
#include "tree.h"

struct load_options {
	enum sniff_format format;   /* SNIFF_UNKNOWN: detect per file */
	struct perf_options perf;
	bool progress;              /* allow a progress bar on stderr (if a tty) */
	int threads;                /* perf script files: parse in this many chunks
	                               at once (<= 1: one thread) */
	bool threads_forced;        /* also for small files (tests) */
	struct tree *before;        /* folded inputs: the BEFORE counts of
	                               differential lines go here (NULL: ignored) */
	const char *symfs;          /* perf.data: object files under this root */
	struct perfdata_info *perfdata_info;    /* perf.data: what it said of
	                               itself; perf script: the event kept and
	                               the samples (when not NULL) */
	const char *sample_type;    /* pprof: --sample-type (NULL: default) */
	const char *label_root;     /* pprof: --label-root (NULL: none) */
	struct pprof_info *pprof_info;  /* pprof: what was read, when not NULL */
	const char *profile;        /* speedscope: --profile (NULL: all profiles) */
	struct dsomap *dsos;        /* perf inputs note the object of each frame
	                               name of t there (NULL: not kept) */
	struct timeline *timeline;  /* inputs with times (perf script, perf.data,
	                               .cpuprofile) add each sample's there too,
	                               with leaves of t (NULL: not kept) */
	struct load_live *live;     /* previews of the load for a browser shown
	                               before it ends (see load_live_new), or
	                               NULL */
	enum tree_order order;      /* the order t will be finalized in: a big
	                               shuffled folded file, the only input, is
	                               read in parts that make t finalized in
	                               it (see load_files) */
};

struct load_messages {
	char *text;                 /* "tflame: ...\n" lines, sanitized */
	size_t len, cap;
};

/* Loads paths[0..n) into t (not finalized; but one big shuffled folded
 * file, read in parts, makes t finalized in o->order, and tree_finalize
 * then has nothing to do). Returns 0 when every input was read (malformed
 * lines are only reported), 1 when an input could not be opened or read
 * or is not a profile; messages go to msgs either way. */
int load_files(struct tree *t, char *const *paths, size_t n,
               const struct load_options *o, struct load_messages *msgs);

/* Where the parallel loader cuts d[0..len) into at most `want` (>= 1)
 * pieces: at line starts, or with `records` (perf script) just after
 * whitespace-only lines. Writes cut[0] = 0 < cut[1] < ... < cut[k] = len
 * (cut has want + 1 entries) and returns k, the number of pieces. Each
 * search stays within its nominal piece, so at most len bytes are read in
 * all, whatever the input; *scanned (when not NULL) gets that count. */
size_t load_cuts(const char *d, size_t len, bool records, size_t want, size_t *cut, uint64_t *scanned);

/* A load watched from another thread, for a browser that opens before the
 * load ends (a big file, a slow pipe) and shows a preview meanwhile. Set
 * it in load_options.live of one load_files call; the functions below may
 * then be called from any thread while it runs. Only folded and perf
 * script text give previews. */
struct load_live *load_live_new(void);
/* After load_files has returned. */
void load_live_free(struct load_live *lv);
/* A tree (tree_init'ed and not finalized, malloc'ed: the caller frees both)
 * of part of what the load reads: of a mapped file, a sample of lines
 * spread over the whole file, made on the calling thread (once: NULL on
 * later calls); of a stream, a copy of the tree built so far (the loader
 * waits meanwhile) while that is at most 64 MiB. NULL when there is
 * nothing to show: nothing read yet, another format, a stream's tree too
 * big to copy, the load over. what gets a few words for the status
 * line ("a 1.6% sample", "the first 12.3 MB"). After the first tree is
 * returned, the load draws no more progress on stderr (the browser has
 * the terminal). lv is a struct load_live (void: a ui_live_source's
 * callback). */
struct tree *load_live_preview(void *lv, char *what, size_t size);
/* How far the load has gone, for the status line: "loading 23%", or
 * "loading, 120 MB read" when the size is unknown. */
void load_live_status(void *lv, char *buf, size_t size);

void load_messages_add(struct load_messages *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void load_messages_free(struct load_messages *m);

#endif
