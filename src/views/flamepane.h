/* flamepane: a flame (or icicle) graph on an area of the screen: its
 * layout parameters, the selection and the column that moves towards the
 * leaves aim at, the moves and clicks, and drawing its spans. The flame
 * graph view is one pane; the sandwich is two. The owner keeps the layout
 * (`lay`) made for `lp` up to date. */
#ifndef TFLAME_FLAMEPANE_H
#define TFLAME_FLAMEPANE_H

#include <stdbool.h>
#include <stddef.h>
#include "layout.h"
#include "tree.h"

struct flamepane {
	const struct tree *t;
	struct layout_params lp;
	const struct layout *lay;   /* made of t and lp */
	tree_idx sel;               /* the selected frame */
	int want_col;               /* preferred column for moves towards the leaves */
};

/* Sets the look (curses attributes, colour) of span s of the pane, for the
 * text that follows; returns whether a frame one cell wide shows a dot
 * (without it the cell is blank: only its background shows). */
typedef bool (*flamepane_style_fn)(void *ctx, const struct flamepane *p, const struct layout_span *s,
                                   bool selected);

/* want_col to the middle of node i's columns (when i is drawn). */
void flamepane_center(struct flamepane *p, tree_idx i);
/* Whether a move up on screen goes towards the leaves (flame) or the
 * root (icicle). */
bool flamepane_to_leaves(const struct flamepane *p, bool up);
/* h / l: the previous (dir < 0) or next frame on the selection's row.
 * False when there is none. */
bool flamepane_sideways(struct flamepane *p, int dir);
/* k / j: towards the leaves, the child under want_col (the nearest
 * otherwise); towards the root, the parent (never above the root). want_col
 * is kept, so the way back is the same. False when there is nowhere to go. */
bool flamepane_vertical(struct flamepane *p, bool up);
/* Selects the frame drawn at (row, col) of the pane's area; NULL when
 * there is none (the span otherwise). */
const struct layout_span *flamepane_click(struct flamepane *p, int row, int col);
/* Draws the spans with their names from screen row y0; ancestors: also
 * the dimmed rows of the zoom root's ancestors. buf: TEXT_FIT_BYTES of the
 * width + 1. O(spans). */
void flamepane_draw(const struct flamepane *p, int y0, char *buf, size_t bufsize, bool ancestors,
                    flamepane_style_fn style, void *ctx);

#endif
