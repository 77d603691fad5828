/* cpuprofile: V8's CPU profiles, as `node --cpu-prof` and Chrome DevTools
 * ("Save profile") write them (Profiler.Profile of the DevTools protocol):
 *   {"nodes":[{"id":1,"callFrame":{"functionName":"f",...},"hitCount":3,
 *              "children":[2,3]},...],
 *    "startTime":T,"endTime":T,"samples":[ids...],"timeDeltas":[us...]}
 * and Chrome trace files (a JSON array of events, or {"traceEvents":[...]})
 * whose "ProfileChunk" events carry the same nodes (with "parent" fields)
 * and samples, a chunk at a time.
 *
 * A frame is the node's functionName ("(anonymous)" when empty); the
 * "(root)" node at the top is dropped. A stack's weight is the number of
 * samples naming its leaf node (hitCount when there is no "samples" array,
 * or an empty one). Keys may come in any order; nodes are kept compactly
 * (id, parent, name) until the document ends, samples only as counts. */
#ifndef TFLAME_CPUPROFILE_H
#define TFLAME_CPUPROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "json.h"
#include "reader.h"
#include "source.h"
#include "timeline.h"
#include "tree.h"

/* What a load found, for the status line (filled when not NULL). */
struct cpuprofile_info {
	int64_t start_us, end_us;   /* "startTime", "endTime" (0 when absent) */
	uint64_t nodes;             /* nodes read */
	uint64_t samples;           /* samples counted (or summed hitCounts) */
	bool trace;                 /* the input was a Chrome trace */
};

struct cpuprofile_options {
	/* Each sample's time (startTime plus the running sum of "timeDeltas",
	 * V8's microseconds in ns; a delta may be negative) on a thread "main",
	 * added to *timeline once the stacks are known (NULL: times are not
	 * wanted). Samples without a delta or a known node get none. In a
	 * Chrome trace, each profile (pid and id) has its own clock: its
	 * "Profile" event's startTime (0 without one) plus the deltas of its
	 * "ProfileChunk" events in order, on a thread of that pid and tid
	 * named "Profile ID". */
	struct timeline *timeline;
	struct cpuprofile_info *info;       /* NULL: not wanted */
	json_progress_fn *progress;         /* NULL: none (see json_parse) */
	void *progress_arg;
};

/* True when buf (the first len bytes of the input, eof when that is all of
 * it) starts a .cpuprofile (after a BOM and whitespace: '{' and a first key
 * of the format: "nodes", "samples", "startTime", "endTime", "timeDeltas")
 * or a Chrome trace ('{' with "traceEvents" first, or after "metadata" when
 * "traceEvents" shows in buf; or '[' '{' with a "ph" key in buf). Reads at
 * most the first CPUPROFILE_SNIFF_BYTES bytes. */
#define CPUPROFILE_SNIFF_BYTES 4096
bool cpuprofile_sniff(const unsigned char *buf, size_t len, bool eof);

/* Reads the input s (nothing consumed yet) into t. Messages
 * ("tflame: NAME: ...", sanitized) go to msg: damaged parts (unknown or
 * duplicate ids, cycles of parents, a cut-short file) are reported in a few
 * lines and skipped, keeping what could be read. Returns 0 when stacks were
 * read (possibly none: an empty profile), 1 when the input is not a
 * readable profile (nothing was added to t). Memory: about 150 bytes per
 * node at the peak plus the distinct names, whatever the number of samples
 * (they are counted per node id as they come); at most 2^24 ids. */
int cpuprofile_load(struct tree *t, struct source *s, const char *name,
                    const struct cpuprofile_options *o, reader_msg_fn *msg, void *msgarg);

#endif
