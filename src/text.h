/* text: turning untrusted name bytes into safe terminal text, and measuring
 * it in display columns (libunistring).
 *
 * Display form of a name: valid printable UTF-8 is kept; C0 controls and DEL
 * become caret escapes (^[ for ESC, ^? for DEL); C1 controls, bidi controls,
 * zero-width and other format characters (Cf), and combining marks beyond
 * two on one base character become <U+XXXX>; invalid UTF-8 becomes U+FFFD.
 * When the locale is not UTF-8 (text_init(false)), every non-ASCII character
 * is shown as '?'. No byte that a terminal would interpret ever comes out. */
#ifndef TFLAME_TEXT_H
#define TFLAME_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* utf8: the terminal takes UTF-8 (from nl_langinfo(CODESET)). Default true. */
void text_init(bool utf8);
bool text_is_utf8(void);

/* Display columns of the display form of s[0..len). */
int text_width(const char *s, size_t len);

/* Writes the display form of s, cut to at most cols columns, into out
 * (NUL-terminated). A cut form ends in ".." and is padded with a space when
 * a wide character does not fit. When cols < 3 and the form does not fit
 * whole, writes "" and returns 0. Returns the columns written. outsize must
 * be at least TEXT_FIT_BYTES(cols). */
int text_fit(const char *s, size_t len, int cols, char *out, size_t outsize);
#define TEXT_FIT_BYTES(cols) ((size_t)(cols) * 4u + 16u)

/* As text_fit, but a cut keeps the start and the end: "std::vec..::push". */
int text_fit_middle(const char *s, size_t len, int cols, char *out, size_t outsize);

/* The whole display form for messages, cut (with "..") to fit outsize bytes
 * including the NUL. Returns bytes written (without the NUL). */
size_t text_sanitize(const char *s, size_t len, char *out, size_t outsize);

#endif
