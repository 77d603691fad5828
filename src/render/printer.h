/* printer: the flame graph as plain text (--print), one line per level,
 * using the same layout as the UI. Each frame is its label (the name without
 * its code-type annotation, "_[k]" etc.) padded with spaces and closed by
 * '|' in its last column; with a search, a matching frame is closed by '*'
 * instead. */
#ifndef TFLAME_PRINTER_H
#define TFLAME_PRINTER_H

#include <stdbool.h>
#include <stdio.h>
#include "diff.h"
#include "layout.h"
#include "search.h"
#include "tree.h"

struct printer_options {
	int width;                  /* columns, >= 1 */
	enum layout_orient orient;
	tree_idx zoom;              /* usually TREE_ROOT */
	int min_width;              /* hide frames narrower than this (>= 1) */
	bool no_ancestors;          /* leave out the zoom root's ancestor rows */
	const char *header;         /* first line; NULL: "all: N samples" */
	const struct search *search; /* finished search, or NULL */
	/* --diff: a frame whose total changed by 1% or more of its BEFORE
	 * total says so after its label ("+12%", "-40%"; "new" when BEFORE
	 * has none), when the frame is wide enough. NULL: no diff. */
	const struct diff *diff;
};

/* Writes a header line ("all: N samples"); with a search, the match line
 * ("/REGEX/  17 matches  ·  12.34% of samples", '|' for '·' outside
 * UTF-8, "no match" when none); then the graph. Returns 0, or -1 on a
 * write error. */
int printer_print(const struct tree *t, const struct printer_options *o, FILE *out);

#endif
