/* sandwichview: speedscope's sandwich as a screen (s in the browser). For
 * one function f: the top pane draws its callers (f on the pane's bottom
 * row, its callers above it, theirs above them: the inverted callers tree
 * of transform_callers), the bottom pane its callees (f on the top row,
 * transform_focus), each merged over all of f's call sites, recursion
 * counted once. The browser owns the terminal, the breadcrumb and status
 * lines; this draws the graph area it is given. Drawing is O(spans). */
#ifndef TFLAME_SANDWICHVIEW_H
#define TFLAME_SANDWICHVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include "tree.h"

struct sandwichview;

/* Sets the curses attributes and colour for drawing node i of tree t
 * (selected: the selection); the UI owns colours. */
typedef void (*sandwichview_style_fn)(void *ctx, const struct tree *t, tree_idx i, bool selected);

struct sandwichview *sandwichview_new(void);
void sandwichview_free(struct sandwichview *sw);

/* Builds both trees for function `name` of t (O(tree), once per s or
 * Enter) and selects f in the top pane. */
void sandwichview_load(struct sandwichview *sw, const struct tree *t, strtab_id name,
                       enum tree_order order);
/* The graph area: width x height cells (top pane gets the upper half),
 * frames narrower than min_width hidden. */
void sandwichview_resize(struct sandwichview *sw, int width, int height, int min_width);

/* Selection moves: dir -1/+1 along the row (h/l); up/down on screen (k/j),
 * crossing between the panes at f. */
void sandwichview_sideways(struct sandwichview *sw, int dir);
void sandwichview_vertical(struct sandwichview *sw, bool up);
/* Selects the frame drawn at (row, col) of the graph area; false when
 * there is none. */
bool sandwichview_click(struct sandwichview *sw, int row, int col);
/* The selected frame: its tree and node (never NULL after a load). */
const struct tree *sandwichview_selected(const struct sandwichview *sw, tree_idx *i);
/* The function shown: name bytes of the focus tree's f. */
const char *sandwichview_name(const struct sandwichview *sw, size_t *len);

/* Draws both panes in lines [y0, y0 + height); buf: TEXT_FIT_BYTES(w + 1). */
void sandwichview_draw(struct sandwichview *sw, int y0, char *buf, size_t bufsize,
                       sandwichview_style_fn style, void *ctx);

#endif
