/* pprof: the profile.proto format of Go's runtime/pprof, `go tool pprof`,
 * pprof-rs, async-profiler's pprof output and many others (a Profile
 * message in the protobuf wire format, usually gzip-compressed: the source
 * inflates it). Each sample's location stack becomes a stack of function
 * names, root first, weighted by one of its values. */
#ifndef TFLAME_PPROF_H
#define TFLAME_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "reader.h"
#include "source.h"
#include "tree.h"

/* How much of an input's start pprof_sniff wants to see: it decides on
 * fewer bytes (even 16), but more lets it check more fields. */
#define PPROF_SNIFF_BYTES 4096

/* True when buf[0..len), the start of an input (after decompression; eof:
 * that is all of it), parses as a Profile message: every field has a field
 * number and wire type of profile.proto, the nested messages met
 * (ValueType, Sample, Mapping, Location, Function) parse as theirs, and at
 * least one of sample_type, sample or string_table is there. Never true
 * for folded text, perf script text, JSON or perf.data. */
bool pprof_sniff(const unsigned char *buf, size_t len, bool eof);

/* Called now and then while reading: bytes of the input done, its size
 * when known (else 0), stacks added so far. */
typedef void pprof_progress_fn(void *arg, uint64_t done, uint64_t size, uint64_t stacks);

struct pprof_options {
	const char *sample_type;    /* --sample-type=NAME: the value to weigh
	                               by, a sample type's name ("alloc_space")
	                               or its 0-based index ("1");
	                               NULL: default_sample_type when the
	                               profile names one, else the last type */
	const char *label_root;     /* --label-root=KEY: each sample's value of
	                               label KEY becomes a root frame
	                               "KEY=VALUE" (numeric labels in decimal;
	                               "KEY=[none]" without one); NULL: none */
	struct tree *before;        /* --diff: samples with negative values go
	                               here, negated (a pprof -diff_base
	                               profile); NULL: negative values are
	                               skipped, and counted in one message */
	enum tree_order order;      /* the order t will be finalized in: a
	                               big profile whose stacks seldom repeat
	                               (Go's) is read in parts that leave t
	                               finalized in it, but in input order */
	unsigned parts;             /* tests: in parts whatever the size (any
	                               non-zero value; 0: when big) */
	int threads;                /* parts are read on this many threads */
	int ahead;                  /* tests: the samples of a stream counted
	                               as they arrive (pprof_int.h: struct
	                               pp_pre) whatever the stream (1), never
	                               (-1); 0: when it is decompressed on a
	                               thread of its own */
	pprof_progress_fn *progress;    /* NULL: none */
	void *progress_arg;
};

/* What a load learnt beyond the stacks (status line, --list). Strings are
 * sanitized (text_sanitize) and NUL-terminated. */
struct pprof_info {
	char type[64];              /* the sample type weighed by ("cpu") */
	char unit[32];              /* its unit ("nanoseconds", "bytes",
	                               "count") */
	char types[256];            /* every sample type, "type/unit" separated
	                               by spaces ("samples/count cpu/nanoseconds") */
	char period_type[64], period_unit[32];  /* "" when not given */
	int64_t period;
	int64_t duration_nanos;     /* 0 when not given */
	uint64_t samples;           /* samples added to t (and to before) */
	uint64_t total;             /* their summed value in t (saturating) */
	uint64_t before_total;      /* summed negated values in before */
	uint64_t early;             /* of samples: those counted while the
	                               stream still arrived (pprof_options.ahead) */
	uint64_t reused;            /* bytes of those samples whose pages took
	                               later bytes (a compressed file's) */
	bool again;                 /* the file was read twice: the samples
	                               counted early, their bytes given up, were
	                               not of the type chosen */
};

/* Reads the pprof profile from s (nothing consumed yet; the decompressed
 * bytes) into t. The message is needed whole (fields refer to each other
 * by id, the string table comes last): a mapped file is read in place, a
 * stream is read into memory first (at most PPROF_MAX_INPUT bytes). Returns
 * 0 when read, 1 when it is not a readable profile (nothing was added; a
 * message says why). Frames are function names (system_name when name is
 * empty), root first; a location with several lines (inlined calls) gives
 * one frame per line, the inlined callee nearest the leaf; a location
 * without function info shows its address "0x4f6a87", or "[binary+0x1a2b]"
 * when its mapping names a file (basename; address - start + file_offset).
 * Samples whose value is 0 are skipped. Dangling references (locations,
 * functions, mappings, strings) become "[unknown]" or "" and are counted in
 * one message; a malformed sample is skipped and counted. Messages go to
 * msg(msgarg, "tflame: NAME: ..."); name is the input's name, already
 * sanitized. info may be NULL. */
int pprof_load(struct tree *t, struct source *s, const char *name, const struct pprof_options *o,
               struct pprof_info *info, reader_msg_fn *msg, void *msgarg);

/* The largest stream (decompressed) read into memory: 4 GiB (1 GiB where
 * size_t has 32 bits). Mapped files are read in place, whatever their size. */
#define PPROF_MAX_INPUT ((size_t)1 << (SIZE_MAX > 0xffffffffu ? 32 : 30))

#endif
