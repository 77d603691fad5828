/* folded: reader of folded stacks ("a;b;c 12", SPEC.md §B.5).
 * Count: the last blank-separated token, [0-9]+(\.[0-9]*)?; a second count
 * column before it (difffolded output) is accepted and the last column is
 * used. Trailing CR/blanks are ignored, empty lines and lines starting with
 * "# " are skipped, frames are split on ';' (a trailing empty frame is
 * dropped, as flamegraph.pl does). Other lines are counted as bad. */
#ifndef TFLAME_FOLDED_H
#define TFLAME_FOLDED_H

#include <stdbool.h>
#include <stddef.h>
#include "reader.h"
#include "tree.h"

struct folded_reader;

struct folded_reader *folded_reader_new(struct tree *t);
/* buf holds whole lines; an unterminated last line is a line too. Every
 * line is in the tree when this returns (out of order input reaches it in
 * batches: tree_add_stacks). */
void folded_reader_feed(struct folded_reader *r, const char *buf, size_t len);
/* As folded_reader_feed, for a caller that keeps buf[0..len) as it is
 * until r is freed or fed again: the last stack is not copied (a
 * partitioned load feeds its sorted lines one at a time from where they
 * were gathered). */
void folded_reader_feed_kept(struct folded_reader *r, const char *buf, size_t len);
/* Differential lines (BEFORE AFTER) also add their BEFORE count to before
 * (lines with one count add 0), in the same order: a difffolded file gives
 * two trees of the same shape. NULL (the default): BEFORE is ignored. */
void folded_reader_set_before(struct folded_reader *r, struct tree *before);
/* The scans of 32 bytes a step (AVX2) when wide and the CPU has them,
 * else those of 16 (SSE2) or words; the reader starts wide. The
 * environment variable TFLAME_FOLDED_PLAIN, set and not empty, keeps
 * every reader plain (tests compare the two). Returns whether r is wide
 * now. Both give the same tree. */
bool folded_reader_set_wide(struct folded_reader *r, bool wide);
const struct reader_diag *folded_reader_diag(const struct folded_reader *r);

/* One line as folded_reader_feed reads it. */
enum folded_line {
	FOLDED_BLANK,       /* blank, or a "# " comment: skipped */
	FOLDED_BAD,         /* no count: counted as bad, FOLDED_BAD_WHY */
	FOLDED_STACK
};
#define FOLDED_BAD_WHY "no sample count at the end of the line"
/* Parses the line s[0..len) (without its newline): for FOLDED_STACK, the
 * stack is s[0..*stack) (its frames split on ';'), count the width and
 * before the BEFORE column of a differential line (0 without one). */
enum folded_line folded_parse_line(const char *s, size_t len, size_t *stack, struct tree_dec *count,
                                   struct tree_dec *before);
void folded_reader_free(struct folded_reader *r);

#endif
