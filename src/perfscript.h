/* perfscript: reader of `perf script` text, collapsing each record to one
 * stack with inferno collapse-perf semantics (SPEC.md §A), plus the
 * robustness deviations of SPEC §A.10. Root frame: the process name. */
#ifndef TFLAME_PERFSCRIPT_H
#define TFLAME_PERFSCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include "reader.h"
#include "tree.h"

struct perf_options {
	bool pid;               /* root "comm-PID" */
	bool tid;               /* root "comm-PID/TID" (implies pid) */
	bool kernel;            /* _[k] on kernel frames */
	bool jit;               /* _[j] on JIT frames */
	bool addrs;             /* [module <pc>] for unresolved symbols */
	const char *event_filter; /* keep only this event; NULL: the first seen */
};

struct perf_reader;

struct perf_reader *perf_reader_new(struct tree *t, const struct perf_options *o);
/* buf holds whole lines; records may span calls. */
void perf_reader_feed(struct perf_reader *r, const char *buf, size_t len);
/* End of input: flushes the last record. */
void perf_reader_finish(struct perf_reader *r);
const struct reader_diag *perf_reader_diag(const struct perf_reader *r);
/* inferno's warning classes, counted separately (conformance tests). */
uint64_t perf_reader_weird_events(const struct perf_reader *r);
uint64_t perf_reader_weird_stacks(const struct perf_reader *r);
void perf_reader_free(struct perf_reader *r);

#endif
