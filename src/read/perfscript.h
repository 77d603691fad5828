/* perfscript: reader of `perf script` text, collapsing each record to one
 * stack with inferno collapse-perf semantics (SPEC.md §A), plus the
 * robustness deviations of SPEC §A.10. Root frame: the process name. */
#ifndef TFLAME_PERFSCRIPT_H
#define TFLAME_PERFSCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "reader.h"
#include "tree.h"

/* The events the perf readers of one load saw, so that a result that kept
 * no samples can say what the input had: each reader counts the records of
 * every event (kept or filtered out) and adds its counts here once, when it
 * finishes (perf_reader_finish; several threads may). Zeroed by the caller
 * before the load. */
#define PERF_EVENTS_MAX 16
struct perf_events {
	size_t n;
	struct perf_event_count {
		char name[64];      /* as --event-filter compares it ("cpu-clock"):
		                       raw bytes of the input, NUL-terminated */
		uint64_t records;
	} ev[PERF_EVENTS_MAX];  /* in the order first seen */
	uint64_t other;         /* records of the events beyond these, or whose
	                           names take 64 bytes or more or hold a NUL */
};

/* "cpu-clock (4,621 samples), cycles (12 samples)" into out[0..size): the
 * busiest first, then by name; the names sanitized; "" when e has none. */
void perf_events_list(const struct perf_events *e, char *out, size_t size);

struct perf_options {
	bool pid;               /* root "comm-PID" */
	bool tid;               /* root "comm-PID/TID" (implies pid) */
	bool kernel;            /* _[k] on kernel frames */
	bool jit;               /* _[j] on JIT frames */
	bool addrs;             /* [module <pc>] for unresolved symbols */
	const char *event_filter; /* keep only this event; NULL: the first seen */
	bool mid_stream;        /* input starts after the file's start (a
	                           parallel chunk): no byte order mark check */
	struct perf_events *events; /* event counts go here (NULL: none) */
};

struct perf_reader;

struct perf_reader *perf_reader_new(struct tree *t, const struct perf_options *o);
/* Records each stack added with a time (perf script's TIME field, or
 * perf_reader_record_time) in tl as well: its leaf, thread (comm, pid,
 * tid) and weight. tl must outlive the reader's feeding; NULL: none. */
struct timeline;
void perf_reader_set_timeline(struct perf_reader *r, struct timeline *tl);
/* Notes the object (perf's DSO) of every frame's name in m (names of the
 * reader's tree). m must outlive the reader's feeding; NULL: none. */
struct dsomap;
void perf_reader_set_dsos(struct perf_reader *r, struct dsomap *m);
/* buf holds whole lines; records may span calls. */
void perf_reader_feed(struct perf_reader *r, const char *buf, size_t len);
/* End of input: flushes the last record. */
void perf_reader_finish(struct perf_reader *r);
const struct reader_diag *perf_reader_diag(const struct perf_reader *r);
/* The event name records are kept for: the --event-filter one, else the
 * first seen so far; NULL while none is known. */
const char *perf_reader_filter(const struct perf_reader *r);
/* inferno's warning classes, counted separately (conformance tests). */
uint64_t perf_reader_weird_events(const struct perf_reader *r);
uint64_t perf_reader_weird_stacks(const struct perf_reader *r);
void perf_reader_free(struct perf_reader *r);

/* Records given as fields rather than text (the perf.data reader), collapsed
 * exactly as the same record printed by `perf script -F+pid` would be.
 * perf_reader_record starts one and returns false when the event filter
 * drops it (frames may still be given; they are ignored); frames come leaf
 * first, as perf prints them: pc as perf prints it (hex, no "0x"), sym the
 * symbol with its "+0x" offset or "[unknown]", dso without parentheses.
 * perf_reader_record_end hands the stack to the tree. */
bool perf_reader_record(struct perf_reader *r, const char *comm, size_t comm_len,
                        int32_t pid, int32_t tid, const char *event, size_t event_len,
                        bool have_period, uint64_t period);
void perf_reader_frame(struct perf_reader *r, const char *pc, size_t pc_len,
                       const char *sym, size_t sym_len, const char *dso, size_t dso_len);
void perf_reader_record_end(struct perf_reader *r);
/* The time (ns) of the record perf_reader_record started. */
void perf_reader_record_time(struct perf_reader *r, uint64_t ns);
/* Drops the frames given so far to the record being built. */
void perf_reader_record_clear(struct perf_reader *r);

/* A cache of what frames become, for readers that resolve the same address
 * over and over: perf_reader_cached replays the frames stored for (obj,
 * addr, variant) into the record being built and returns true, or returns
 * false; then the caller gives the frames with perf_reader_frame between
 * perf_reader_cache_begin and perf_reader_cache_end (same key), which
 * stores them. The key must decide the frames' pc, sym and dso. */
bool perf_reader_cached(struct perf_reader *r, const void *obj, uint64_t addr, unsigned variant);
void perf_reader_cache_begin(struct perf_reader *r);
void perf_reader_cache_end(struct perf_reader *r, const void *obj, uint64_t addr, unsigned variant);

/* Line-level parsers, shared with sniff. Spans point into the line. */
struct perf_event_parts {
	const char *comm; size_t comm_len;  /* trimmed; may be empty */
	const char *pid; size_t pid_len;    /* "?" when only a TID is printed */
	const char *tid; size_t tid_len;
	size_t end;                         /* offset just after the PID/TID word */
};
/* SPEC §A.3.1: COMM is what precedes the first all-digit (or digits/digits)
 * word followed by a space. False if there is none. */
bool perf_event_line_parts(const char *line, size_t len, struct perf_event_parts *ep);

struct perf_frame_parts {
	const char *pc; size_t pc_len;
	const char *func; size_t func_len;  /* trimmed symbol; " " when empty */
	const char *module; size_t module_len; /* without the parentheses */
};
/* SPEC §A.4 "IP SYMBOL (DSO)", plus deviation §A.10 (b): when inferno's
 * split fails, a DSO with spaces is taken from the parenthesis group that
 * ends the line. The line must already be trimmed at the end. */
bool perf_frame_line_parts(const char *line, size_t len, struct perf_frame_parts *fp);

/* Trims Unicode White_Space (as Rust's trim) from both ends of *s. */
void perf_trim(const char **s, size_t *len);

#endif
