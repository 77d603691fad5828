#include "config.h"
#include "sandwichview.h"

#include <stdlib.h>
#include <string.h>
#if defined(HAVE_NCURSESW_CURSES_H)
#include <ncursesw/curses.h>
#else
#include <curses.h>
#endif
#include "flamepane.h"
#include "layout.h"
#include "text.h"
#include "transform.h"
#include "xalloc.h"

enum { TOP, BOTTOM };

struct pane {
	struct tree t;
	struct layout lay;
	struct flamepane fp;        /* its lp; its sel when the pane is the selected one */
	int y;                      /* first screen row of the pane, from y0 */
};

struct sandwichview {
	struct pane p[2];           /* TOP: callers (flame), BOTTOM: callees */
	bool loaded;
	int sel_pane;
	int width, height, min_width;
};

struct sandwichview *sandwichview_new(void)
{
	struct sandwichview *sw = xcalloc(1, sizeof *sw);
	for (int k = 0; k < 2; k++) {
		layout_init(&sw->p[k].lay);
		sw->p[k].fp.lay = &sw->p[k].lay;
		sw->p[k].fp.t = &sw->p[k].t;
	}
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
		if (p->fp.lp.scroll < 1)
			p->fp.lp.scroll = 1;
		layout_compute(&p->lay, &p->t, &p->fp.lp);
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
		p->fp.lp.width = width;
		p->fp.lp.height = k == TOP ? top : height - top;
		p->fp.lp.min_width = sw->min_width;
		p->fp.lp.orient = k == TOP ? LAYOUT_FLAME : LAYOUT_ICICLE;
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
		struct flamepane *fp = &sw->p[k].fp;
		tree_idx f = tree_first_child(&sw->p[k].t, TREE_ROOT);
		fp->lp.zoom = f == TREE_NONE ? TREE_ROOT : f;
		fp->lp.scroll = 1;
		fp->sel = fp->lp.zoom;
		fp->want_col = sw->width / 2;
	}
	sw->sel_pane = TOP;
	relayout(sw);
}

static struct flamepane *cur(struct sandwichview *sw)
{
	return &sw->p[sw->sel_pane].fp;
}

/* Scrolls the selected pane so that the selection's level is shown. */
static void follow(struct sandwichview *sw)
{
	struct pane *p = &sw->p[sw->sel_pane];
	layout_scroll_to(&p->fp.lp, tree_depth(&p->t, p->fp.sel));
	if (p->fp.lp.scroll < 1)
		p->fp.lp.scroll = 1;
	layout_compute(&p->lay, &p->t, &p->fp.lp);
}

void sandwichview_sideways(struct sandwichview *sw, int dir)
{
	if (sw->loaded)
		flamepane_sideways(cur(sw), dir);
}

void sandwichview_vertical(struct sandwichview *sw, bool up)
{
	if (!sw->loaded)
		return;
	struct flamepane *fp = cur(sw);
	/* Up on screen is towards the leaves in the callers pane (flame) and
	 * towards f in the callees pane (icicle); past f's row, the move
	 * crosses over to f in the other pane. */
	if (!flamepane_to_leaves(fp, up) && fp->sel == fp->lp.zoom) {
		int col = fp->want_col;
		sw->sel_pane = sw->sel_pane == TOP ? BOTTOM : TOP;
		fp = cur(sw);
		fp->sel = fp->lp.zoom;
		fp->want_col = col;
		follow(sw);
		return;
	}
	if (flamepane_vertical(fp, up))
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
			flamepane_click(&p->fp, row - p->y, col);
			return true;
		}
	}
	return false;
}

const struct tree *sandwichview_selected(const struct sandwichview *sw, tree_idx *i)
{
	*i = sw->p[sw->sel_pane].fp.sel;
	return &sw->p[sw->sel_pane].t;
}

const char *sandwichview_name(const struct sandwichview *sw, size_t *len)
{
	const struct tree *t = &sw->p[BOTTOM].t;
	tree_idx f = sw->p[BOTTOM].fp.lp.zoom;
	*len = tree_name_len(t, f);
	return tree_name(t, f);
}

struct style_ctx {
	sandwichview_style_fn style;
	void *ctx;
	bool selected_pane;
};

static bool pane_style(void *ctx, const struct flamepane *p, const struct layout_span *s, bool selected)
{
	struct style_ctx *c = ctx;
	selected = selected && c->selected_pane;
	c->style(c->ctx, p->t, s->node, selected);
	return selected;
}

void sandwichview_draw(struct sandwichview *sw, int y0, char *buf, size_t bufsize,
                       sandwichview_style_fn style, void *ctx)
{
	if (!sw->loaded)
		return;
	for (int k = 0; k < 2; k++) {
		struct style_ctx c = { style, ctx, k == sw->sel_pane };
		flamepane_draw(&sw->p[k].fp, y0 + sw->p[k].y, buf, bufsize, false, pane_style, &c);
	}
}
