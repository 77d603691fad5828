/* text: turning untrusted name bytes into safe terminal text, and measuring
 * it in display columns (libunistring).
 *
 * Display form of a name: valid printable UTF-8 is kept; C0 controls and DEL
 * become caret escapes (^[ for ESC, ^? for DEL); C1 controls, bidi controls,
 * zero-width and other format characters (Cf), and combining marks beyond
 * two on one base character become <U+XXXX>; invalid UTF-8 becomes U+FFFD.
 * When the locale is not UTF-8 (text_init(false)), every non-ASCII character
 * is shown as '?'. No byte that a terminal would interpret ever comes out.
 *
 * Exactly (one "unit" of the display form per input character):
 * - Printable ASCII is kept. Bytes 0x00-0x1f and 0x7f become '^' and the
 *   byte XOR 0x40: ^@ ^A .. ^[ ^\ ^] ^^ ^_ and ^?.
 * - Invalid UTF-8 becomes one U+FFFD per maximal subpart (Unicode ch. 3.9:
 *   the longest prefix of a well-formed sequence, else one byte): E2 82 is
 *   one, C0 AF (overlong) two, ED A0 80 (surrogate) three, F4 90 80 80
 *   (> U+10FFFF) four.
 * - "<U+XXXX>" (upper-case hex, at least 4 digits, up to "<U+10FFFF>") for
 *   U+0080-U+009F, general categories Cc Cf Cs Cn Zl Zp (bidi controls,
 *   ZWSP/ZWNJ/ZWJ, BOM, word joiner, soft hyphen, tags, unassigned code
 *   points and noncharacters, U+2028/9) and anything uc_width calls a
 *   control.
 * - A combining mark is any other character of width 0 (Mn, Me, Hangul
 *   medial/final jamo). At most 2 are kept after a base (a kept character
 *   of width >= 1, or U+FFFD); a mark with no base (at the start, after an
 *   escape, or the 3rd, 4th, ... in a row) becomes <U+XXXX>.
 * - Width: uc_width(c, "UTF-8") (CJK and emoji 2), U+FFFD 1, escapes their
 *   ASCII length. Private-use characters are kept with width 1.
 * - Non-UTF-8 mode: the same escapes, but every other non-ASCII unit (valid
 *   or not, marks included) is '?', 1 column; the output is pure ASCII. */
#ifndef TFLAME_TEXT_H
#define TFLAME_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* utf8: the terminal takes UTF-8 (from nl_langinfo(CODESET)). Default true. */
void text_init(bool utf8);
bool text_is_utf8(void);

/* Display columns of the display form of s[0..len) (INT_MAX if larger). */
int text_width(const char *s, size_t len);

/* Writes the display form of s, cut to at most cols columns, into out
 * (NUL-terminated). If the whole form fits in cols it is written as is (no
 * ".."). Otherwise, when cols < 3, writes "" and returns 0; else writes the
 * longest prefix of whole units of width <= cols - 2 (a UTF-8 character, an
 * escape, or a base with its marks is never split), then "..", then spaces
 * up to exactly cols columns (when a wide character or an escape did not
 * fit): "std::vec..", or a wide character then ".. ". Returns the columns written. Reads only as far
 * as the cut. outsize must be at least TEXT_FIT_BYTES(cols): up to 12 bytes
 * per column (a 4-byte character with two 4-byte marks), see text.c; a
 * smaller outsize is treated as the largest cols it can hold. */
int text_fit(const char *s, size_t len, int cols, char *out, size_t outsize);
#define TEXT_FIT_BYTES(cols) ((size_t)(cols) * 12u + 16u)

/* The longest prefix of whole units of s that fits in cols columns, in
 * display form, without "..": for wrapping a long text over lines. *used
 * gets the bytes of s it took (0 when not even the first unit fits).
 * Returns the columns written; outsize as for text_fit. */
int text_fit_head(const char *s, size_t len, int cols, char *out, size_t outsize, size_t *used);

/* As text_fit, but a cut keeps the start and the end: "std::vec..::push".
 * The head is the longest prefix of width <= ceil((cols - 2) / 2); the tail
 * the longest suffix within the columns left over that starts at a unit of
 * width >= 1 (never at a mark without its base); spaces pad to cols. Reads
 * the head and the last 12 bytes per tail column, not the middle. */
int text_fit_middle(const char *s, size_t len, int cols, char *out, size_t outsize);

/* The whole display form for messages, cut (with "..") to fit outsize bytes
 * including the NUL. When it does not fit whole: the longest prefix of whole
 * units that leaves room for "..", then ".."; or "" when outsize < 3. outsize 0 writes nothing. Returns bytes
 * written (without the NUL). */
size_t text_sanitize(const char *s, size_t len, char *out, size_t outsize);

/* Bytes of the whole display form of s[0..len) (without a NUL). */
size_t text_sanitized_size(const char *s, size_t len);

/* The whole display form of s[0..len), never cut, in an allocated
 * NUL-terminated string; *outlen is its length. */
char *text_sanitize_dup(const char *s, size_t len, size_t *outlen);

/* Writes the whole display form of s[0..len) to f, never cut, in O(1)
 * memory. Returns 0, or -1 on a write error. */
int text_write_sanitized(FILE *f, const char *s, size_t len);

/* A stream for folded text bound for a terminal (--collapse on a tty):
 * each frame name written to it (the bytes between ';' and '\n', which
 * pass as they are) reaches out in its display form, as --print shows
 * names, so that no escape sequence in a name is interpreted. A name may
 * arrive in several writes; it is held (whole) until its separator or the
 * close. fclose it to flush it; out stays open (and is flushed). NULL when
 * the stream cannot be made. */
FILE *text_sanitizing_stream(FILE *out);

#endif
