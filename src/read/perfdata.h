/* perfdata: perf.data, the file `perf record` writes (and the stream
 * `perf record -o -` writes), read natively: records are ordered as perf
 * orders them, threads and their mappings tracked, callchains resolved to
 * symbols (symbols.h) and unwound from stack copies (unwind.h), and each
 * sample handed to a perf script reader (perfscript.h) as the record
 * `perf script -F+pid` would print, so that both inputs collapse alike. */
#ifndef TFLAME_PERFDATA_H
#define TFLAME_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "perfscript.h"
#include "source.h"
#include "tree.h"

/* True when buf (len bytes of an input's start) is perf.data in either of
 * its forms ("PERFILE2" and a header size), in either byte order. */
bool perfdata_sniff(const char *buf, size_t len);

/* What a load learnt beyond the stacks (for messages and the status line). */
struct perfdata_info {
	char event[64];         /* the event kept ("cpu-clock"), "" if none */
	uint64_t samples;       /* samples of that event handed to the tree */
	uint64_t period;        /* their summed period */
	bool time_unit;         /* the period counts nanoseconds (cpu-clock,
	                           task-clock) */
	char hostname[64], osrelease[64];
	char cmdline[256];
	char unsupported[160];  /* PERFDATA_UNSUPPORTED: why ("its call graphs
	                           are LBR call stacks"); nothing was read */
};

/* Why perfdata_load gave up without reading (the caller may fall back to
 * `perf script`), or PERFDATA_OK. */
enum perfdata_status {
	PERFDATA_OK,
	PERFDATA_UNSUPPORTED,   /* valid, but beyond this reader (info says
	                           why, no message is added); nothing was added
	                           to the tree */
	PERFDATA_ERROR          /* not readable: corrupt or truncated header */
};

/* Called now and then while records are read: bytes consumed so far, and the
 * input size when known (0 otherwise). */
typedef void perfdata_progress_fn(void *arg, uint64_t done, uint64_t size, uint64_t stacks);

struct perfdata_options {
	const struct perf_options *perf;
	const char *symfs;          /* look for object files under this root */
	perfdata_progress_fn *progress;
	void *progress_arg;
	struct timeline *timeline;  /* samples' times, threads and stacks go
	                               here too (NULL: not kept) */
	struct dsomap *dsos;        /* each frame name's object (NULL: not kept) */
};

/* Reads the perf.data input s (positioned at its start: nothing consumed)
 * into t. Messages ("tflame: NAME: ...", sanitized) are appended to msg by
 * the callback add(msgarg, text). Malformed records are skipped and
 * counted; a record that cannot be framed ends the input with a message. */
enum perfdata_status perfdata_load(struct tree *t, struct source *s, const char *name,
                                   const struct perfdata_options *o, struct perfdata_info *info,
                                   void (*add)(void *msgarg, const char *text), void *msgarg);

#endif
