/* printer: the flame graph as plain text (--print), one line per level,
 * using the same layout as the UI. Each frame is its label (the name without
 * its code-type annotation, "_[k]" etc.) padded with
 * spaces and closed by '|' in its last column. */
#ifndef TFLAME_PRINTER_H
#define TFLAME_PRINTER_H

#include <stdio.h>
#include "layout.h"
#include "tree.h"

struct printer_options {
	int width;                  /* columns, >= 1 */
	enum layout_orient orient;
	tree_idx zoom;              /* usually TREE_ROOT */
	int min_width;              /* hide frames narrower than this (>= 1) */
};

/* Writes a header line ("all: N samples"), the graph, and nothing else.
 * Returns 0, or -1 on a write error. */
int printer_print(const struct tree *t, const struct printer_options *o, FILE *out);

#endif
