/* search: regex search over the frames of a finalized tree.
 *
 * A search is one pattern and its results. Matching runs once per unique
 * name (strtab id), never per frame; a frame matches when its name does.
 * The root ("all") is not a frame of the profile and never matches.
 *
 * Work is done in passes that can be sliced: search_run() advances until
 * a time budget is spent, so a caller can keep a terminal responsive on a
 * profile with millions of names. Results (search_matches, search_count,
 * totals, next/prev) are valid only once search_done() is true.
 *
 * Pattern: the syntax of rx.h (POSIX extended regex, PCRE2's escapes on
 * top), smart case (case-insensitive unless the pattern has an upper-case
 * letter outside a backslash escape). Names are matched whole, by their
 * length: a NUL byte inside a name does not end it ("y$" matches
 * "x<NUL>y"). Invalid UTF-8 in a name never fails a search. A match that
 * a limit stops (rx.h: a pattern too costly on that name) counts as no
 * match, the same every time; search_costly says on how many names. */
#ifndef TFLAME_SEARCH_H
#define TFLAME_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tree.h"

struct search;

/* Compiles pattern (NUL-terminated; "" is refused) for tree t. Returns a
 * new search with its pass not yet run, or NULL with rx_new's message,
 * sanitized for display, in err (errsize > 0). */
struct search *search_new(const struct tree *t, const char *pattern, char *err, size_t errsize);
/* Lets s (pass not started) test only the names that prev (same tree, name
 * pass finished) matched, when that cannot change the result: both plain
 * text with as many alternatives and the same case rule, each of prev's
 * inside s's with the same anchors ("mal" after "ma", "read|wr" after
 * "read|w", "^std::" after "^std:" as the user types). Otherwise does
 * nothing. */
void search_narrow(struct search *s, const struct search *prev);
/* Lets s (pass not started) use index x (ready, of s's tree, alive while
 * s is): names ruled out by their character classes, nodes scanned by
 * their packed names. Results are the same with or without it. */
struct searchidx;
void search_use_index(struct search *s, const struct searchidx *x);
/* Whether search_narrow applied (for tests and reports). */
bool search_is_narrowed(const struct search *s);
/* A search for the frames named exactly as name id `name` (bytes, case and
 * NULs included), with no regex: O(1) to make whatever the name's length.
 * Its pattern text (for display) is search_quote of the name. */
struct search *search_new_exact(const struct tree *t, strtab_id name);
/* The same for the bytes name[0..len); when t has no such name, nothing
 * matches. For a search kept across trees (a transform). */
struct search *search_new_exact_bytes(const struct tree *t, const char *name, size_t len);
/* The name of an exact-name search (its length in *len; a copy, valid
 * while s is, even after its tree is freed); NULL for a regex search. */
const char *search_exact_name(const struct search *s, size_t *len);
/* Names on which the pattern was too costly (rx.h) so far: each counted
 * as no match. 0 for plain text and exact names. */
size_t search_costly(const struct search *s);
/* A search is reference counted: search_new* return it with one
 * reference, search_ref adds one (returns s; NULL stays NULL) and
 * search_free drops one, freeing the search with the last. */
struct search *search_ref(struct search *s);
void search_free(struct search *s);
/* Threads a search may use (default 1): with more, a big search shares
 * its work with a second thread (the names of a plain-text one, the node
 * scan of any), which runs on while search_run returns between slices. */
void search_set_threads(int n);
int search_get_threads(void);
/* Stops the second thread of an unfinished search; search_run goes on
 * alone. Before the search's tree may be freed (search_free does it too). */
void search_pause(struct search *s);

/* The pattern as given (for search_new_exact: "^escaped$"). */
const char *search_pattern(const struct search *s);
/* Whether the pattern was compiled case-insensitively. */
bool search_icase(const struct search *s);

/* Advances the pass for up to budget_ns nanoseconds (0: to the end).
 * Returns search_done(s). */
bool search_run(struct search *s, uint64_t budget_ns);
bool search_done(const struct search *s);
/* Progress of an unfinished pass in [0, 1]. */
double search_progress(const struct search *s);

/* After the pass: whether frame i matches. O(1). */
bool search_matches(const struct search *s, tree_idx i);
/* Matching frames in the whole tree. */
size_t search_count(const struct search *s);
/* Samples of the matching frames inside the subtree of z, each sample
 * counted once: a match inside a matching frame adds nothing (as
 * flamegraph.pl's "Matched:"). O(outermost matches in z * log matches). */
tree_count search_total(const struct search *s, tree_idx z);
/* 1-based position of frame i among the matches in preorder, 0 if i does
 * not match. O(log matches). */
size_t search_ordinal(const struct search *s, tree_idx i);
/* The next matching frame after i in depth-first preorder, left to right
 * (tree index order), or TREE_NONE when there is none after i. */
tree_idx search_next(const struct search *s, tree_idx i);
/* The previous matching frame before i, or TREE_NONE. */
tree_idx search_prev(const struct search *s, tree_idx i);
/* First / last match in preorder, TREE_NONE when nothing matches. */
tree_idx search_first(const struct search *s);
tree_idx search_last(const struct search *s);

/* Regex text matching exactly the bytes s[0..len) at a whole name, for
 * display: "^" + s with . [ ] ( ) * + ? { } | ^ $ \ escaped + "$". A new
 * string (xmalloc); it stops at a NUL byte (then without the "$"). */
char *search_quote(const char *s, size_t len);

#endif
