/* rx: the regular expressions users type (the search, the table filter,
 * --hide, --color-rule), on PCRE2. No other file includes pcre2.h.
 *
 * Cost is bounded whatever the pattern and the name: a pattern is at most
 * RX_MAX_PATTERN bytes and its compiled form at most RX_MAX_COMPILED, and
 * each match stops after a fixed amount of backtracking (a match limit,
 * and for the interpreter a depth and a heap limit too; JIT code when the
 * library has it), about a millisecond at worst. A match stopped that way
 * is RX_COSTLY: callers take it as no match (the same answer every time)
 * and say how many names it happened to (rx_costly).
 *
 * Syntax: POSIX extended regex as tflame always took it, with PCRE2's
 * escapes (\d, \w, \s, \b, lookaround, (?i)...) on top. Kept from ERE:
 * a backslash inside a bracket expression is itself ("[\]" is a class of
 * one backslash), a ']' first in one is a member, GNU's \< \> \` \' and
 * "{,n}" (as {0,n}). Otherwise PCRE2's rules apply, which differ from
 * ERE's only where a match's extent counts (leftmost-first alternation,
 * not leftmost-longest), never in whether a name matches, except that
 * [[.x.]] and [[=x=]] are refused. A pattern that is valid UTF-8 is
 * matched by characters ("." is one character, case folds Unicode, \w and
 * [[:alpha:]] hold letters of every script); invalid UTF-8 in a name is
 * never part of a match (a barrier, not an error). Other patterns are
 * matched byte by byte. "." matches any character, newline and NUL
 * included; "$" is the end of the name only; a name is matched whole,
 * NUL bytes included. */
#ifndef TFLAME_RX_H
#define TFLAME_RX_H

#include <stdbool.h>
#include <stddef.h>

/* Longest pattern accepted (bytes), and largest compiled form. */
#define RX_MAX_PATTERN 65536u
#define RX_MAX_COMPILED (1u << 20)

enum rx_case {
	RX_CASE_SENSITIVE,
	RX_CASE_SMART,      /* ignore case unless rx_has_upper(pattern) */
	RX_CASE_IGNORE
};

enum rx_result {
	RX_NOMATCH,
	RX_MATCH,
	RX_COSTLY           /* a limit stopped it: undecided, take as no match */
};

struct rx;

/* Compiles pattern[0..len) (NUL bytes allowed). Returns a new rx, or NULL
 * with the reason, sanitized for display, in err (when errsize > 0):
 * the library's message, or that the pattern is too long or too big. */
struct rx *rx_new(const char *pattern, size_t len, enum rx_case cs, char *err, size_t errsize);
void rx_free(struct rx *re);

/* Matches s[0..len) (any bytes) anywhere. O(len) to about a millisecond
 * more. The match state lives in re: one thread at a time per rx. */
enum rx_result rx_match(const struct rx *re, const char *s, size_t len);
/* Whether s[0..len) matches: RX_COSTLY counts as no. */
static inline bool rx_matches(const struct rx *re, const char *s, size_t len)
{
	return rx_match(re, s, len) == RX_MATCH;
}

/* Matches of re that were RX_COSTLY so far. */
size_t rx_costly(const struct rx *re);
/* Whether re ignores case. */
bool rx_icase(const struct rx *re);
/* Whether re runs as JIT code (for reports and tests): when PCRE2 and the
 * system allow it and TFLAME_NO_JIT is unset or empty. */
bool rx_jit(const struct rx *re);

/* Smart case: whether pattern[0..len) has an upper-case letter outside an
 * escape (the letter after a backslash, and the braces of \p{..}, \x{..}
 * and the like, are not letters of the text). Multibyte characters by the
 * locale. */
bool rx_has_upper(const char *pattern, size_t len);

#endif
