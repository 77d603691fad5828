/* speedscope: the file format of the speedscope viewer
 * (https://www.speedscope.app/file-format-schema.json), which py-spy,
 * rbspy, Austin and others write:
 *   {"$schema":"https://www.speedscope.app/file-format-schema.json",
 *    "shared":{"frames":[{"name":"f","file":"a.py","line":3,"col":1},...]},
 *    "profiles":[{"type":"sampled","name":"..","unit":"..",
 *                 "startValue":0,"endValue":9,
 *                 "samples":[[0,1],[0,2]],"weights":[5,4]},
 *                {"type":"evented","name":"..","unit":"..",
 *                 "startValue":0,"endValue":9,
 *                 "events":[{"type":"O","frame":0,"at":0},
 *                           {"type":"C","frame":0,"at":9}]}]}
 * A frame is its "name". Sampled: each sample (frame indices, root first)
 * weighs its weight (1 each when "weights" is absent). Evented: a stack
 * weighs the time it spent on top, between one event and the next; events
 * must nest (a "C" closes the frame on top) and go forward in time; frames
 * still open at the end are closed at "endValue".
 *
 * Several profiles (threads, usually) each become a root frame named after
 * the profile ("profile N", from 1, when it has no name), unless one is
 * picked with speedscope_options.profile or the file holds only one. Keys
 * may come in any order ("profiles" before "shared"): stacks are kept as a
 * tree of frame indices until the document ends (about 40 bytes per
 * distinct stack prefix, plus 4 per frame of each distinct sample, to find
 * a repeated sample at once), and one of "samples" and "weights",
 * whichever comes first, is kept until the other pairs with it (4 or 24
 * bytes per sample). */
#ifndef TFLAME_SPEEDSCOPE_H
#define TFLAME_SPEEDSCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "json.h"
#include "timeline.h"
#include "reader.h"
#include "source.h"
#include "tree.h"

/* What a load found, for the status line (filled when not NULL). */
struct speedscope_info {
	char unit[32];          /* of the profiles shown: "nanoseconds",
	                           "microseconds", "milliseconds", "seconds",
	                           "bytes", "none" (as the file says, sanitized;
	                           "" when it says nothing, "mixed" when the
	                           profiles shown differ) */
	uint32_t profiles;      /* profiles in the file */
	uint32_t shown;         /* of them, in the tree */
	char name[128];         /* the profile's name when one is shown
	                           (sanitized), else "" */
};

struct speedscope_options {
	const char *profile;    /* --profile: a profile's name, or its number
	                           from 1 (a name that matches wins); NULL: all */
	struct speedscope_info *info;   /* NULL: not wanted */
	struct timeline *timeline;      /* NULL: not wanted; else the shown
	                                   profiles that count in time
	                                   (nanoseconds ... seconds) add their
	                                   stretches: an evented profile's
	                                   time between two events, at its
	                                   start, on the stack then open; a
	                                   sampled profile's samples one after
	                                   another from startValue, each
	                                   lasting its weight (as speedscope
	                                   lays them out); one thread per
	                                   profile (tid: its number from 1,
	                                   comm: its name); leaves as
	                                   tree_add_stack* gave them */
	json_progress_fn *progress;     /* NULL: none (see json_parse) */
	void *progress_arg;
};

/* True when buf (the first len bytes of the input) is a JSON object (after
 * a BOM and whitespace) with the key "$schema" set to the speedscope
 * schema's address within the first SPEEDSCOPE_SNIFF_BYTES bytes; or, for
 * writers that put "$schema" later, whose first key is "shared" with
 * "frames" in those bytes, or "profiles" with "sampled" or "evented". */
#define SPEEDSCOPE_SNIFF_BYTES 4096
bool speedscope_sniff(const unsigned char *buf, size_t len, bool eof);

/* Reads the input s (nothing consumed yet) into t. Messages
 * ("tflame: NAME: ...", sanitized) go to msg: malformed samples and events
 * are skipped and counted; a profile whose events do not nest is kept up
 * to the first bad event. Returns 0 when the file was read (possibly an
 * empty profile), 1 when it is not a readable speedscope file or the
 * profile asked for is not in it (nothing was added to t then). */
int speedscope_load(struct tree *t, struct source *s, const char *name,
                    const struct speedscope_options *o, reader_msg_fn *msg, void *msgarg);

#endif
