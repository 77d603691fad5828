/* conf: the user's config file, defaults for command line options.
 *
 * Format, one entry a line:   NAME = VALUE   or   NAME
 * NAME is a long option without its dashes ("sort", "min-width"); blanks
 * around NAME and VALUE are ignored; a line whose first non-blank is '#' is a
 * comment, and so is a blank line; a '#' elsewhere is part of the value; CRLF
 * line ends are fine. What a NAME means is the caller's business (main.c
 * applies entries through the same table and code as the command line), so
 * this module only reads the syntax.
 *
 * (Not "config.h": that name belongs to autoconf's generated header.) */
#ifndef TFLAME_CONF_H
#define TFLAME_CONF_H

#include <stdbool.h>
#include <stddef.h>

/* Called once per entry, in file order. value is NULL for a bare NAME and
 * "" for "NAME =". Both strings point into the text given to conf_parse and
 * live as long as it. Returns false to stop, after writing a message (no
 * "tflame:", no file or line) to err. */
typedef bool (*conf_entry_fn)(void *ctx, const char *name, const char *value,
                              char *err, size_t errsize);

/* Parses text[0..len) in place (NUL-terminates names and values inside it)
 * and hands each entry to fn. Returns 0 when every line was good, else the
 * 1-based number of the first bad line with a message in err (a syntax error,
 * or fn's own). text needs one spare byte: text[len] must be writable. */
size_t conf_parse(char *text, size_t len, conf_entry_fn fn, void *ctx, char *err, size_t errsize);

/* Reads a yes/no value: yes, true, on, 1 or no, false, off, 0 (any case).
 * Returns false when value is none of these. */
bool conf_bool(const char *value, bool *out);

/* The config file to read: $TFLAME_CONFIG when set (empty: none), else
 * $XDG_CONFIG_HOME/tflame/config when XDG_CONFIG_HOME is an absolute path,
 * else $HOME/.config/tflame/config; NULL when none applies. *explicit tells
 * whether the user named the file (then a missing file is an error).
 * The result is allocated; free it. */
char *conf_path(bool *explicit);

/* Reads the whole regular file path, at most max bytes, into an allocated
 * buffer with one spare byte (for conf_parse); *len is its length. Opened
 * non-blocking and checked with fstat before any read, so a FIFO or a device
 * (/dev/zero) is refused at once rather than blocking or filling memory.
 * Returns NULL with errno set and, when why is not NULL, the reason in why
 * (no path, no "tflame:"): strerror(errno) for a failed open or read (ENOENT:
 * missing), EISDIR for a directory, EINVAL with "not a regular file (a FIFO)"
 * (or device, socket) for other non-regular files, EFBIG with "larger than N
 * MB" (max in MiB; "N bytes" when max is no multiple of a MiB) for a file
 * over max bytes. */
char *conf_read_file(const char *path, size_t max, size_t *len, char *why, size_t whysize);

/* The config file: conf_read_file with max CONF_MAX_BYTES and no reason. */
#define CONF_MAX_BYTES (1024 * 1024)
char *conf_read(const char *path, size_t *len);

#endif
