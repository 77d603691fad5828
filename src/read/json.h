/* json: streaming JSON for the readers of JSON profiles (cpuprofile,
 * speedscope), on yajl. The document is fed to yajl in slices, never held
 * whole, and each value comes to the reader as one event. What hostile
 * input could make unbounded is capped here: nesting depth, the length of
 * one token (yajl gathers a token split across slices), and a key's copy.
 *
 * A reader keeps its place with tags: when a container starts, the reader
 * stores a small number of its choosing in event.tag; every event inside
 * that container then carries it as event.parent. Tag 0 is the top level;
 * a container tagged JSON_SKIP is passed over: nothing inside it, nor its
 * END, reaches the reader. */
#ifndef TFLAME_JSON_H
#define TFLAME_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "reader.h"
#include "source.h"

#define JSON_MAX_DEPTH 512                  /* containers inside each other */
#define JSON_MAX_TOKEN ((size_t)64 << 20)   /* bytes of one string or number */
#define JSON_KEY_MAX 32                     /* longer keys read as "\x01" */
#define JSON_SKIP 255                       /* the tag of a container to skip */
#define JSON_RUN_MAX 256                    /* integers in one JSON_INTS event */

enum json_type {
	JSON_START_MAP, JSON_END_MAP, JSON_START_ARRAY, JSON_END_ARRAY,
	JSON_STRING, JSON_NUMBER, JSON_TRUE, JSON_FALSE, JSON_NULL,
	JSON_INTS           /* plain integers in a row, in an array whose START
	                       set int_runs: run[0..nrun), the first at index */
};

struct json_event {
	enum json_type type;
	unsigned depth;     /* containers around the value (0: the top level);
	                       an END has the depth of its START */
	uint8_t parent;     /* tag of the container holding the value */
	uint8_t tag;        /* START: 0, set it to tag the new container;
	                       END: the tag the container was given */
	const char *key;    /* the value's key inside an object (NUL-terminated;
	                       "\x01" when JSON_KEY_MAX or longer), else "" */
	uint64_t index;     /* position among its container's values, from 0 */
	const char *s;      /* STRING: its bytes, unescaped (may hold NUL bytes
	                       and invalid UTF-8); NUMBER: its JSON text */
	size_t len;
	bool fast;          /* START: false; the reader sets it to have the
	                       container's contents read by json's own scanner
	                       (same events, several times faster; for the
	                       big arrays of numbers and small objects of a
	                       profile): what the scanner does not take (an
	                       escaped string, a long token, a syntax error)
	                       goes back to yajl, as do the values after the
	                       container. Inside a fast container it is
	                       ignored. */
	bool has_int;       /* NUMBER: it is a plain integer ("-12": no
	                       fraction nor exponent, at most 18 digits) and
	                       ival its value (set by the scanner only) */
	int64_t ival;
	bool int_runs;      /* START of an array: false; the reader sets it to
	                       have the plain integers the scanner reads there
	                       come as runs (JSON_INTS, up to JSON_RUN_MAX at a
	                       time) instead of a NUMBER each (an event per
	                       value cost more than reading it). Any other value
	                       in the array, and any integer yajl reads, still
	                       comes alone, in the document's order. Ignored
	                       for objects and where the scanner does not read. */
	const int64_t *run; /* JSON_INTS: the values (valid during the call) */
	size_t nrun;
};

/* Returns false to stop the parse (the reader has said why, or means to). */
typedef bool json_event_fn(void *arg, struct json_event *e);

enum json_status {
	JSON_OK,            /* the whole document was read */
	JSON_STOPPED,       /* the event function returned false */
	JSON_BAD            /* not JSON, cut short, beyond a limit, or a read
	                       error: a message was sent */
};

/* Told after each slice: bytes of the input read so far, of size (0:
 * unknown). */
typedef void json_progress_fn(void *arg, uint64_t done, uint64_t size);

/* Parses the input s (nothing of it consumed yet; a UTF-8 byte order mark
 * is skipped) to its end, one event per value; progress (NULL: none) is
 * called with progress_arg after each slice. Messages read
 * "tflame: NAME: ..." (NAME already sanitized by the caller). Strings are
 * not checked for valid UTF-8 (names are sanitized where shown). */
enum json_status json_parse(struct source *s, const char *name, json_event_fn *fn, void *arg,
                            reader_msg_fn *msg, void *msgarg, json_progress_fn *progress,
                            void *progress_arg);

/* A NUMBER as an integer: true when its value is integral (1, 1.0, 1e3)
 * and within [min, max]. */
bool json_int(const struct json_event *e, int64_t min, int64_t max, int64_t *out);
/* A NUMBER as a finite double (false when out of range). */
bool json_double(const struct json_event *e, double *out);

/* Sends "tflame: NAME: <formatted>" to msg; the formatted text is
 * sanitized (pass bytes from the file through it freely). */
void json_msgf(reader_msg_fn *msg, void *msgarg, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Skips a UTF-8 byte order mark at p, then JSON whitespace; returns where
 * the next token starts (end when none). For the sniffers. */
const unsigned char *json_skip_ws(const unsigned char *p, const unsigned char *end);

#endif
