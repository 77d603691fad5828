/* toptable: one row per function (distinct frame name) inside a subtree,
 * like the "top" or "bottom-up" tables of pprof, perf report and speedscope.
 *
 * For function f inside the subtree of z (z included, the root "all" never
 * a row):
 *   self  = sum of the self counts of the nodes named f;
 *   total = sum of the totals of the nodes named f that have no ancestor
 *           named f inside the subtree (recursion counted once, so
 *           total <= z's total);
 *   sites = distinct callers: the number of distinct names of the parents
 *           of the nodes named f (a first-level frame's caller is "all");
 *   nodes = the number of nodes named f.
 * One preorder scan of [z, end(z)) with an explicit stack of open nodes and
 * a per-name count of open occurrences; no recursion. O(subtree + names). */
#ifndef TFLAME_TOPTABLE_H
#define TFLAME_TOPTABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "tree.h"

struct toptable_row {
	strtab_id name;             /* in the tree's names */
	tree_count self, total;     /* doubles when the tree's counts are */
	uint32_t sites, nodes;
};

enum toptable_key {
	TOPTABLE_SELF,              /* self, then total, descending; then name */
	TOPTABLE_TOTAL,             /* total, then self, descending; then name */
	TOPTABLE_NAME               /* byte-wise by name */
};

struct toptable {
	const struct tree *t;
	tree_idx zoom;
	struct toptable_row *rows;
	size_t n;
	tree_count all;             /* the zoom root's total: 100% */
};

/* Fills tt with the rows of t's subtree at zoom, sorted by key. */
void toptable_compute(struct toptable *tt, const struct tree *t, tree_idx zoom,
                      enum toptable_key key);
/* Re-sorts the rows (stable). */
void toptable_sort(struct toptable *tt, enum toptable_key key);
void toptable_free(struct toptable *tt);

/* Share of the zoom root's total, in percent (0 when it is 0). */
double toptable_percent(const struct toptable *tt, tree_count c);

/* A count as the table shows it: digits grouped by thousands ("1,234,567",
 * a fraction kept). Returns its length. */
int toptable_count_text(const struct tree *t, tree_count c, char *out, size_t size);

/* Writes the first `limit` rows (0: all) as a text table with a header:
 * "SELF SELF% TOTAL TOTAL% CALLERS NAME"; names sanitized (text.h). */
int toptable_write(const struct toptable *tt, size_t limit, FILE *out);

/* A diff row's BEFORE (rounded, grouped), DELTA (signed) and DELTA% of
 * BEFORE ("new" when BEFORE is 0, "-" when both are). */
struct toptable_delta {
	char before[128], delta[128], pct[32];
};
void toptable_delta_text(double before, double after, struct toptable_delta *out);

/* The same for a diff (--diff): tt is AFTER's table, before BEFORE's (its
 * counts times scale, 1 or --normalize's); each row gains the function's
 * total in BEFORE, the delta and the delta relative to BEFORE ("new" when
 * BEFORE has none): "SELF SELF% TOTAL TOTAL% BEFORE DELTA DELTA% NAME".
 * Functions found only in BEFORE follow, with 0 in AFTER. */
int toptable_write_diff(const struct toptable *tt, const struct toptable *before, double scale,
                        size_t limit, FILE *out);

#endif
