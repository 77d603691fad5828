#include "config.h"
#include "sandwichview.h"

#include <stdlib.h>
#include <string.h>
#if defined(HAVE_NCURSESW_CURSES_H)
#include <ncursesw/curses.h>
#else
#include <curses.h>
#endif
#include "layout.h"
#include "text.h"
#include "transform.h"
#include "xalloc.h"

enum { TOP, BOTTOM };

struct pane {
	struct tree t;
	struct layout lay;
	struct layout_params lp;
	int y;                      /* first screen row of the pane, from y0 */
};

struct sandwichview {
	struct pane p[2];           /* TOP: callers (flame), BOTTOM: callees */
	bool loaded;
	int sel_pane;
	tree_idx sel;
	int want_col;
	int width, height, min_width;
};

struct sandwichview *sandwichview_new(void)
{
	struct sandwichview *sw = xcalloc(1, sizeof *sw);
	layout_init(&sw->p[TOP].lay);
	layout_init(&sw->p[BOTTOM].lay);
	sw->min_width = 1;
	return sw;
}

static void unload(struct sandwichview *sw)
{
	if (sw->loaded) {
		tree_free(&sw->p[TOP].t);
		tree_free(&sw->p[BOTTOM].t);
		sw->loaded = false;
	}
}

void sandwichview_free(struct sandwichview *sw)
{
	if (!sw)
		return;
	unload(sw);
	layout_free(&sw->p[TOP].lay);
	layout_free(&sw->p[BOTTOM].lay);
	free(sw);
}

/* Both trees are "all" -> f -> ...: f (node 1) is the zoom root and the
 * "all" row stays scrolled out (scroll >= 1). */
static void relayout(struct sandwichview *sw)
{
	for (int k = 0; k < 2; k++) {
		struct pane *p = &sw->p[k];
		if (p->lp.scroll < 1)
			p->lp.scroll = 1;
		layout_compute(&p->lay, &p->t, &p->lp);
	}
}

void sandwichview_resize(struct sandwichview *sw, int width, int height, int min_width)
{
	sw->width = width;
	sw->height = height;
	sw->min_width = min_width < 1 ? 1 : min_width;
	int top = height > 0 ? (height + 1) / 2 : 0;
	for (int k = 0; k < 2; k++) {
		struct pane *p = &sw->p[k];
		p->lp.width = width;
		p->lp.height = k == TOP ? top : height - top;
		p->lp.min_width = sw->min_width;
		p->lp.orient = k == TOP ? LAYOUT_FLAME : LAYOUT_ICICLE;
		p->y = k == TOP ? 0 : top;
	}
	if (sw->loaded)
		relayout(sw);
}

void sandwichview_load(struct sandwichview *sw, const struct tree *t, strtab_id name,
                       enum tree_order order)
{
	unload(sw);
	transform_callers(t, name, order, &sw->p[TOP].t);
	transform_focus(t, name, order, &sw->p[BOTTOM].t);
	sw->loaded = true;
	for (int k = 0; k < 2; k++) {
		tree_idx f = tree_first_child(&sw->p[k].t, TREE_ROOT);
		sw->p[k].lp.zoom = f == TREE_NONE ? TREE_ROOT : f;
		sw->p[k].lp.scroll = 1;
	}
	sw->sel_pane = TOP;
	sw->sel = sw->p[TOP].lp.zoom;
	sw->want_col = sw->width / 2;
	relayout(sw);
}

static struct pane *cur(struct sandwichview *sw)
{
	return &sw->p[sw->sel_pane];
}

/* Scrolls the selected pane so that the selection's level is shown. */
static void follow(struct sandwichview *sw)
{
	struct pane *p = cur(sw);
	uint32_t level = tree_depth(&p->t, sw->sel);
	layout_scroll_to(&p->lp, level);
	if (p->lp.scroll < 1)
		p->lp.scroll = 1;
	layout_compute(&p->lay, &p->t, &p->lp);
}

void sandwichview_sideways(struct sandwichview *sw, int dir)
{
	struct pane *p = cur(sw);
	int row = layout_row_of_level(&p->lp, tree_depth(&p->t, sw->sel));
	const struct layout_span *s = layout_neighbor(&p->lay, sw->sel, row, dir);
	if (!s)
		return;
	sw->sel = s->node;
	sw->want_col = s->col0 + (s->col1 - s->col0 - 1) / 2;
}

void sandwichview_vertical(struct sandwichview *sw, bool up)
{
	if (!sw->loaded)
		return;
	struct pane *p = cur(sw);
	/* Up on screen is towards the leaves in the callers pane (flame) and
	 * towards f in the callees pane (icicle). */
	bool to_leaves = up == (sw->sel_pane == TOP);
	tree_idx next;
	if (to_leaves) {
		next = layout_child_at(&p->t, &p->lp, sw->sel, sw->want_col);
	} else if (sw->sel == p->lp.zoom) {
		/* f's row: cross over to f in the other pane. */
		sw->sel_pane = sw->sel_pane == TOP ? BOTTOM : TOP;
		sw->sel = cur(sw)->lp.zoom;
		follow(sw);
		return;
	} else {
		next = tree_parent(&p->t, sw->sel);
	}
	if (next == TREE_NONE)
		return;
	sw->sel = next;
	follow(sw);
}

bool sandwichview_click(struct sandwichview *sw, int row, int col)
{
	if (!sw->loaded)
		return false;
	for (int k = 0; k < 2; k++) {
		struct pane *p = &sw->p[k];
		const struct layout_span *s = layout_span_at(&p->lay, row - p->y, col);
		if (s && s->kind == LAYOUT_FRAME) {
			sw->sel_pane = k;
			sw->sel = s->node;
			sw->want_col = s->col0 + (s->col1 - s->col0 - 1) / 2;
			return true;
		}
	}
	return false;
}

const struct tree *sandwichview_selected(const struct sandwichview *sw, tree_idx *i)
{
	*i = sw->sel;
	return &sw->p[sw->sel_pane].t;
}

const char *sandwichview_name(const struct sandwichview *sw, size_t *len)
{
	const struct tree *t = &sw->p[BOTTOM].t;
	tree_idx f = sw->p[BOTTOM].lp.zoom;
	*len = tree_name_len(t, f);
	return tree_name(t, f);
}

void sandwichview_draw(struct sandwichview *sw, int y0, char *buf, size_t bufsize,
                       sandwichview_style_fn style, void *ctx)
{
	if (!sw->loaded)
		return;
	for (int k = 0; k < 2; k++) {
		struct pane *p = &sw->p[k];
		for (size_t n = 0; n < p->lay.n; n++) {
			const struct layout_span *s = &p->lay.spans[n];
			if (s->kind == LAYOUT_ANCESTOR)
				continue;
			int y = y0 + p->y + s->row, w = s->col1 - s->col0;
			bool selected = k == sw->sel_pane && s->node == sw->sel;
			style(ctx, &p->t, s->node, selected);
			if (w == 1) {
				mvaddstr(y, s->col0, selected ? (text_is_utf8() ? "\u00b7" : ".") : " ");
			} else {
				/* The last cell stays a gap, as in the flame graph. */
				int lw = text_fit(tree_name(&p->t, s->node), tree_name_len(&p->t, s->node),
				                  w - 1, buf, bufsize);
				mvaddstr(y, s->col0, buf);
				for (int c = s->col0 + lw; c < s->col1 - 1; c++)
					addch(' ');
			}
			attrset(A_NORMAL);
		}
	}
}
