/* layout: pure geometry of a flame graph view: tree + view parameters ->
 * spans per screen row. No curses, no I/O.
 *
 * Levels are tree depths (level 0 = the root "all"). The zoom root z is drawn
 * full width; its ancestors too, as ANCESTOR spans. Inside z, a node with
 * sample range [x0, x1) relative to z's start occupies the columns
 * [floor(x0*W/T), floor(x1*W/T)) where T is z's total. A node narrower than
 * min_width columns is not drawn and its subtree is not visited, so the work
 * is proportional to the spans on screen (plus the sibling lists scanned). */
#ifndef TFLAME_LAYOUT_H
#define TFLAME_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tree.h"

enum layout_orient {
	LAYOUT_FLAME,   /* root at the bottom row */
	LAYOUT_ICICLE   /* root at the top row */
};

struct layout_params {
	tree_idx zoom;          /* zoom root */
	int width, height;      /* graph area in cells; <= 0 yields no spans */
	enum layout_orient orient;
	uint32_t scroll;        /* first level shown (at the bottom for FLAME) */
	int min_width;          /* in columns, >= 1 */
};

enum layout_kind {
	LAYOUT_FRAME,           /* the zoom root or a node inside it */
	LAYOUT_ANCESTOR         /* an ancestor of the zoom root (dimmed) */
};

struct layout_span {
	tree_idx node;
	uint32_t level;
	int row;                /* 0 = top row of the graph area */
	int col0, col1;         /* columns [col0, col1), col1 > col0 */
	enum layout_kind kind;
};

struct layout {
	struct layout_span *spans;  /* ordered by row, then col0 */
	size_t n, cap;
	size_t *row_start;          /* spans of row r: [row_start[r], row_start[r+1]) */
	int rows;                   /* height the spans were made for */
	size_t visited;             /* nodes examined (for tests and benches) */
	/* Levels with frames wide enough to draw beyond the area, towards
	 * the leaves: the view says "73 more levels". Looked for up to
	 * LAYOUT_LOOKAHEAD levels deep (deeper: LAYOUT_LOOKAHEAD), through
	 * drawable frames only, so the cost stays a screen's width a level. */
	uint32_t deeper;
};
#define LAYOUT_LOOKAHEAD 1000u

void layout_init(struct layout *l);
void layout_free(struct layout *l);
/* Recomputes l for tree t (finalized) and view p. */
void layout_compute(struct layout *l, const struct tree *t, const struct layout_params *p);
/* Turns l into what layout_compute() makes for the same tree and params
 * but the other orientation: the same levels are on screen either way, only
 * upside down. O(spans); no node is read (visited becomes 0). */
void layout_reorient(struct layout *l);

/* Screen row of a level, or -1 when it is scrolled out of the area. */
int layout_row_of_level(const struct layout_params *p, uint32_t level);
/* Smallest change of p->scroll that puts level on screen. */
void layout_scroll_to(struct layout_params *p, uint32_t level);

/* Columns of node i in view p (ancestors of the zoom root: full width).
 * False when i is outside the zoom root's subtree and not its ancestor, or
 * narrower than min_width. O(1). */
bool layout_node_cols(const struct tree *t, const struct layout_params *p, tree_idx i,
                      int *col0, int *col1);
/* Child of i drawn under column col; else the drawn child nearest to col;
 * TREE_NONE when no child of i is drawn. */
tree_idx layout_child_at(const struct tree *t, const struct layout_params *p, tree_idx i, int col);
/* The span at (row, col), or NULL. */
const struct layout_span *layout_span_at(const struct layout *l, int row, int col);
/* The drawn span on the same row just left (dir < 0) or right (dir > 0) of
 * node i's span, or NULL. */
const struct layout_span *layout_neighbor(const struct layout *l, tree_idx i, int row, int dir);

#endif
