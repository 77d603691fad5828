/* views: batch (--print) forms of the views, built from the transform,
 * top table and printer modules. */
#ifndef TFLAME_VIEWS_H
#define TFLAME_VIEWS_H

#include <stddef.h>
#include <stdio.h>
#include "printer.h"
#include "tree.h"

/* The sandwich of function name[0..len) as text: a header, its callers
 * graph with the function on the bottom row and callers above (root side
 * down, as a flame graph), then its callees graph with the function on the
 * top row. Widths and minimum width from po (zoom and orientation are
 * ignored). Returns 0; 1 when there is no such function (message in err);
 * -1 on a write error. */
int views_print_sandwich(const struct tree *t, const char *name, size_t len,
                         enum tree_order order, const struct printer_options *po, FILE *out,
                         char *err, size_t errsize);

/* The function with the largest self count (ties: total, then name), or
 * TREE_NONE for an empty profile. O(nodes). */
tree_idx views_hottest(const struct tree *t);

#endif
