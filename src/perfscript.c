/* Placeholder until the perf script reader lands: reads nothing. */
#include "config.h"
#include "perfscript.h"
#include <stdlib.h>
#include "xalloc.h"
struct perf_reader { struct reader_diag d; };
struct perf_reader *perf_reader_new(struct tree *t, const struct perf_options *o) { (void)t; (void)o; return xcalloc(1, sizeof(struct perf_reader)); }
void perf_reader_feed(struct perf_reader *r, const char *buf, size_t len) { (void)r; (void)buf; (void)len; }
void perf_reader_finish(struct perf_reader *r) { (void)r; }
const struct reader_diag *perf_reader_diag(const struct perf_reader *r) { return &r->d; }
uint64_t perf_reader_weird_events(const struct perf_reader *r) { (void)r; return 0; }
uint64_t perf_reader_weird_stacks(const struct perf_reader *r) { (void)r; return 0; }
void perf_reader_free(struct perf_reader *r) { free(r); }
