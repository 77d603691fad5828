/* source: one input, delivered as blocks of whole lines.
 * Regular files are mmap'ed (consumed pages are dropped with madvise); pipes,
 * ttys and other streams are read in chunks, never whole. "-" is stdin.
 * Compressed input (gzip, xz, zstd, found by its magic bytes, files and
 * pipes alike) is delivered as what it inflates to, as a stream. */
#ifndef TFLAME_SOURCE_H
#define TFLAME_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct source;

/* Opens path. On failure returns NULL and writes a message such as
 * "No such file or directory" (strerror wording) into err. */
struct source *source_open(const char *path, char *err, size_t errsize);

/* Sets *buf to the next block and returns its length, 0 at end of input, or
 * -1 on an error (source_error says which). A block holds whole lines; only
 * the last block may end without '\n'. The first block holds at least
 * 64 KiB or the whole input (enough to sniff the format). A stream line
 * longer than SOURCE_MAX_LINE is an error, so an endless stream without
 * newlines (/dev/zero) neither exhausts memory nor reads forever. A mapped
 * file that shrinks while it is read (SIGBUS) ends early: the block being
 * read shows NUL bytes past the new end (so the line under the reader at
 * that instant may come out with NUL bytes, or be taken for the line
 * before it), see source_shrank. *buf
 * stays valid until the next call (it is "" when 0 or -1 is returned). */
#define SOURCE_MAX_LINE ((size_t)64 << 20)
ssize_t source_next(struct source *s, const char **buf);

/* Binary inputs (perf.data), used instead of source_next, never with it.
 * source_peek copies the first n bytes (fewer at end of input) to dst
 * without consuming them; source_read copies the next n bytes and consumes
 * them. Both return the count copied (< n only at end of input), or -1 on
 * a read error (source_error says which). */
ssize_t source_peek(struct source *s, void *dst, size_t n);
ssize_t source_read(struct source *s, void *dst, size_t n);

/* After source_next returned -1: what went wrong ("read error: ...", or
 * the line limit), for "tflame: FILE: <this>". */
const char *source_error(const struct source *s);
/* True when the mapped file was truncated while being read: input ended
 * there and the last block delivered may hold NUL bytes instead of data. */
bool source_shrank(const struct source *s);

/* True once the last block has been delivered (or is the one just
 * returned). */
bool source_at_eof(const struct source *s);
/* For an mmap'ed input: the whole mapping, for readers that split it
 * themselves (parallel parsing). False for streams. */
bool source_mapping(const struct source *s, const char **data, size_t *len);
/* For an mmap'ed input (source_mapping true): copies up to n bytes of the
 * file from offset off into dst with pread(2), and returns how many (fewer
 * at its end, or where it shrank), or -1 (an error, or no mapped file).
 * Safe from several threads at once. For readers that sweep the file more
 * than once: the copy into a buffer used again costs about 0.1 s a GiB,
 * where reading pages through the mapping after they were given back maps
 * them anew each time (0.5 s a GiB more on a Linux 6.18 guest). */
ssize_t source_pread(const struct source *s, void *dst, size_t n, uint64_t off);
/* source_pread of whole lines, for a reader fed lines a block at a time:
 * the bytes of the file from off, of the `left` the caller still has to
 * read there, into dst (SOURCE_READ_BLOCK + SOURCE_READ_SLACK bytes): all
 * of them when they fit, else the first SOURCE_READ_BLOCK and the rest of
 * the line there. Returns how many, or 0 when that cannot be (a short read,
 * no newline within the slack): the caller reads the mapping instead. */
#define SOURCE_READ_BLOCK ((size_t)1 << 20)
#define SOURCE_READ_SLACK ((size_t)64 << 10)
size_t source_pread_lines(const struct source *s, char *dst, uint64_t off, size_t left);
/* True for compressed input decompressed on a thread of its own (a
 * reader of the stream then waits for it: it may do other work meanwhile). */
bool source_inflates_aside(const struct source *s);
/* A mapped file's input again from its start (as source_open(path)); NULL
 * for other inputs (streams cannot be read twice), or with a message in
 * err when it cannot be opened again. */
struct source *source_reopen(const struct source *s, char *err, size_t errsize);
/* Total size in bytes when known (regular files), else 0. */
uint64_t source_size(const struct source *s);
/* Bytes delivered so far; for compressed input, bytes of it consumed (to
 * set against source_size in progress). */
uint64_t source_offset(const struct source *s);
/* The name to use in messages ("-" reads as "<stdin>"). */
const char *source_name(const struct source *s);
void source_close(struct source *s);

#endif
