/* diff: a differential flame graph, BEFORE vs AFTER (difffolded.pl +
 * flamegraph.pl). The AFTER tree is the one drawn (widths); this module
 * finds, for each of its nodes, the node with the same path in the BEFORE
 * tree and keeps BEFORE's self and total counts in parallel arrays indexed
 * by AFTER's nodes, allocated only in diff mode (16 bytes per node), so
 * struct tree_node does not grow. Frames only in BEFORE have no width and
 * are not drawn; their samples still count in their AFTER ancestors'
 * BEFORE totals.
 *
 * Colour follows flamegraph.pl: a frame's delta is its SELF delta (after -
 * before of its own samples); red when it grew, blue when it shrank, white
 * when equal, with intensity |delta| / the largest |self delta| of the
 * tree. --negate swaps the hues (as flamegraph.pl --negate), --normalize
 * scales BEFORE by AFTER's total / BEFORE's total (difffolded -n; here
 * without rounding to integers). */
#ifndef TFLAME_DIFF_H
#define TFLAME_DIFF_H

#include <stdbool.h>
#include "palette.h"
#include "tree.h"

struct diff {
	double *before_self, *before_total;     /* by AFTER node index */
	double max_delta;       /* largest |self delta|, 0 when none */
	double scale;           /* applied to BEFORE's counts (1, or --normalize) */
	bool negate;
};

/* For each node of after, the node of before at the same path (names
 * from the root), or TREE_NONE: a malloc'ed array of tree_size(after)
 * entries, the caller's to free. Both finalized. O(nodes of both). */
tree_idx *diff_match(const struct tree *after, const struct tree *before);

/* Maps after's nodes to before's (both finalized). O(nodes of both). */
void diff_compute(struct diff *d, const struct tree *after, const struct tree *before,
                  bool normalize, bool negate);
void diff_free(struct diff *d);

/* Self delta of node i (after - before; scaled BEFORE). */
double diff_self_delta(const struct diff *d, const struct tree *after, tree_idx i);
/* Total delta of node i. */
double diff_total_delta(const struct diff *d, const struct tree *after, tree_idx i);

/* Colour of node i: white-ish for no change, red (grew) / blue (shrank)
 * stronger with |self delta| / max_delta; hues swapped with negate. */
struct palette_rgb diff_color(const struct diff *d, const struct tree *after, tree_idx i);

/* "before B  after A  delta +D (+P%)" for node i, P relative to B (or
 * "new" when B is 0). Returns the snprintf result. */
int diff_describe(const struct diff *d, const struct tree *after, tree_idx i, char *buf,
                  size_t size);

/* The change of node i's total as a short mark: "+12%", "-40%" (rounded,
 * relative to BEFORE's total), "new" (BEFORE has none); "" (returns 0)
 * when it changed by less than 1%. Returns its length. */
int diff_mark(const struct diff *d, const struct tree *after, tree_idx i, char *buf, size_t size);

#endif
