/* flameview: what the flame graph view's files share (flame.c: state,
 * layout, moves and keys; flameinfo.c: the lines around the graph). */
#ifndef TFLAME_FLAMEVIEW_H
#define TFLAME_FLAMEVIEW_H

#include "browser.h"
#include "flamepane.h"

/* Layouts of earlier views kept for going back (a few spans' worth each). */
#define FLAME_OLD_LAYOUTS 4

/* A layout, the parameters it was made for, and the tree generation it was
 * made of (0: none). */
struct laid {
	struct layout lay;
	struct layout_params lp;
	unsigned gen;
};

struct flameview {
	struct view v;              /* first */
	struct flamepane pane;      /* lp, sel, want_col; lay is laid.lay */
	/* The layout on screen: a key that changes neither the tree nor the
	 * layout parameters (most moves of the selection) reuses it. */
	struct laid laid;
	/* Layouts of the views before (zoom levels left...), newest first:
	 * going back to one (Backspace) reuses it. */
	struct laid old[FLAME_OLD_LAYOUTS];
	tree_idx *zstack;           /* earlier zoom roots, oldest first */
	size_t zn, zcap;
	tree_idx *crumbs;           /* breadcrumb scratch, cols / 3 + 2 entries */
	size_t ncrumbs;
	bool legend;                /* the legend line above the status line */
	bool details;               /* the details of the selection above them (d) */
	/* Distinct callers of the function last asked for (O(tree) once per
	 * function and tree): its name, the tree generation, the count. */
	strtab_id callers_of;
	unsigned callers_gen;
	size_t callers;
	uint8_t *seen;              /* scratch: a bit per name id */
	size_t nseen;
};

/* Rows of the details pane (d): up to 3 of the name, 2 of numbers. */
#define FLAME_DETAILS_ROWS 5

static inline struct flameview *fv_of(const struct ui *u)
{
	return (struct flameview *)u->flame;
}

/* Whether node i is drawn as a dimmed ancestor of the zoom root. */
bool flameview_is_ancestor(const struct ui *u, const struct flameview *f, tree_idx i);
/* The details' rows when shown and the screen has room for them. */
int flameview_details_rows(const struct ui *u, const struct flameview *f);

/* The breadcrumb from column 0 of row 0, leaving reserve columns at its
 * right. */
void flameinfo_breadcrumb(struct ui *u, struct flameview *f, int reserve);
/* Levels off screen, for the right of row 0; returns the columns to
 * leave for it (0: nothing to say or no room). */
int flameinfo_levels_mark(const struct ui *u, const struct flameview *f, char *out, size_t size);
/* The details pane (d) in rows [y0, y0 + rows). */
void flameinfo_details(struct ui *u, struct flameview *f, int y0, int rows);
/* The status line: the selection, or the search. */
void flameinfo_status(struct ui *u, struct flameview *f);
/* The legend line (L) over the status line. */
void flameinfo_legend(struct ui *u);

#endif
