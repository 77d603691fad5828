/* clip: copying text to the system clipboard through the terminal, with the
 * OSC 52 escape sequence (xterm's "manipulate selection data"). It needs no
 * X display and works over SSH; terminals that do not know it ignore it.
 * tmux passes it on, and keeps a paste buffer, when set-clipboard is on. */
#ifndef TFLAME_CLIP_H
#define TFLAME_CLIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Larger copies are refused: terminals and tmux cap the sequence (tmux
 * reads at most 1 MB of it); base64 makes 512 KB about 700 KB. */
#define CLIP_MAX_BYTES (512 * 1024)

/* Base64 (RFC 4648, with padding) of data[0..len) into out, which needs
 * CLIP_BASE64_LEN(len) + 1 bytes; NUL-terminated. Returns the length. */
#define CLIP_BASE64_LEN(n) (((n) + 2) / 3 * 4)
size_t clip_base64(const void *data, size_t len, char *out);

/* Writes "ESC ] 52 ; c ; BASE64 BEL" for data to out and flushes it. Any
 * bytes are safe: only the base64 text reaches the terminal. Returns 0, or
 * -1 when len > CLIP_MAX_BYTES (nothing written) or on a write error. */
int clip_osc52(FILE *out, const void *data, size_t len);

/* Copies the text s[0..len) (a frame name, a stack) for the user to paste:
 * its display form (text.h), what the screen shows, is sent with
 * clip_osc52. Raw bytes would be unsafe there: a paste into a shell types
 * them, and ESC, CR, BEL or a bracketed-paste end ("ESC [ 2 0 1 ~") let
 * the rest run as commands. *sent is the bytes copied (or that would have
 * been); *escaped tells whether the display form differs from s.
 * Returns 0; CLIP_TOO_BIG (nothing written) when the display form is over
 * CLIP_MAX_BYTES; or -1 on a write error. */
#define CLIP_TOO_BIG (-2)
int clip_copy_text(FILE *out, const char *s, size_t len, size_t *sent, bool *escaped);

#endif
