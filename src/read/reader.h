/* reader: what the input readers have in common. The line readers (folded,
 * perf script) turn whole lines into tree_add_stack calls and keep a diag;
 * the readers of whole files (perf.data, pprof, JSON profiles) read a
 * source themselves and report through a message callback. */
#ifndef TFLAME_READER_H
#define TFLAME_READER_H

#include <stdint.h>

struct reader_diag {
	uint64_t lines;         /* lines seen */
	uint64_t stacks;        /* stacks handed to the tree */
	uint64_t bad;           /* malformed lines skipped */
	uint64_t first_bad;     /* 1-based line number of the first; 0 when none */
	char first_msg[192];    /* why it was bad, sanitized (no control bytes) */
	uint64_t saturated;     /* counts clamped to UINT64_MAX */
	/* perf script: the event whose records were kept ("" none), and how
	 * many of them had no period (each then weighs 1): when none, the
	 * weights are amounts of the event, not sample counts */
	char event[64];
	uint64_t unweighted;
};

/* One message of a reader, a whole line without its '\n', already
 * "tflame: NAME: ..." and sanitized. */
typedef void reader_msg_fn(void *arg, const char *text);

#endif
