/* flame: the flame graph view, the bottom of the browser's view stack:
 * zoom (with a stack of earlier zoom roots and their layouts kept), moves
 * of the selection, the breadcrumb, the legend, the status line with the
 * selected frame or the search, copying to the clipboard, and the keys
 * that push transforms or open the other views. */
#include "config.h"
#include "browser.h"

#include <stdlib.h>
#include <string.h>

#include "clip.h"
#include "flamepane.h"
#include "search.h"
#include "text.h"
#include "views.h"
#include "xalloc.h"

#include "flameview.h"


tree_idx flameview_zoom(const struct ui *u)
{
	return fv_of(u)->pane.lp.zoom;
}

size_t flameview_spans(const struct ui *u)
{
	return fv_of(u)->laid.lay.n;
}

tree_idx flameview_selected(const struct ui *u)
{
	return fv_of(u)->pane.sel;
}

/* ---- layout and selection ---- */

static bool same_params(const struct layout_params *a, const struct layout_params *b)
{
	return a->zoom == b->zoom && a->width == b->width && a->height == b->height &&
	       a->orient == b->orient && a->scroll == b->scroll && a->min_width == b->min_width;
}

static void relayout(struct ui *u, struct flameview *f)
{
	struct laid *c = &f->laid;
	const struct layout_params *lp = &f->pane.lp;
	f->pane.t = u->t;
	if (c->gen == u->tree_gen && same_params(&c->lp, lp))
		return;
	struct layout_params turned = c->lp;
	turned.orient = lp->orient;
	if (c->gen == u->tree_gen && c->lp.orient != lp->orient && same_params(&turned, lp)) {
		layout_reorient(&c->lay);       /* `i`: flipped, not laid out again */
		c->lp = *lp;
		return;
	}
	/* The current layout goes to the front of the old ones (the last
	 * falls out); one made for this view before comes back from there. */
	const size_t n = FLAME_OLD_LAYOUTS;
	size_t k = 0;
	while (k < n && !(f->old[k].gen == u->tree_gen && same_params(&f->old[k].lp, lp)))
		k++;
	if (k == n) {
		k = n - 1;
		layout_free(&f->old[k].lay);
		f->old[k].gen = 0;
	}
	struct laid back = f->old[k];
	memmove(&f->old[1], &f->old[0], k * sizeof f->old[0]);
	f->old[0] = *c;
	*c = back;
	if (c->gen == 0) {
		layout_init(&c->lay);
		layout_compute(&c->lay, u->t, lp);
	}
	c->lp = *lp;
	c->gen = u->tree_gen;
}

bool flameview_is_ancestor(const struct ui *u, const struct flameview *f, tree_idx i)
{
	return i != f->pane.lp.zoom && tree_contains(u->t, i, f->pane.lp.zoom);
}

/* The details' rows when shown and the screen has room for them and 3
 * rows of graph. */
int flameview_details_rows(const struct ui *u, const struct flameview *f)
{
	int room = u->lines - 2 - (f->legend ? 1 : 0);
	return f->details && room >= FLAME_DETAILS_ROWS + 3 ? FLAME_DETAILS_ROWS : 0;
}

static void set_height(const struct ui *u, struct flameview *f)
{
	f->pane.lp.height = u->lines - 2 - (f->legend ? 1 : 0) - flameview_details_rows(u, f);
}

/* Keeps the selection drawn (its nearest drawn ancestor otherwise) and on
 * screen, with a row of context on each side when the area allows. */
static void fix_selection(struct ui *u, struct flameview *f)
{
	struct flamepane *p = &f->pane;
	int c0, c1;
	while (p->sel != TREE_ROOT && !layout_node_cols(u->t, &p->lp, p->sel, &c0, &c1))
		p->sel = tree_parent(u->t, p->sel);
	if (p->lp.height <= 0)
		return;
	uint32_t level = tree_depth(u->t, p->sel);
	if (p->lp.height >= 3) {
		if (tree_first_child(u->t, p->sel) != TREE_NONE)
			layout_scroll_to(&p->lp, level + 1);
		if (level > 0)
			layout_scroll_to(&p->lp, level - 1);
	}
	layout_scroll_to(&p->lp, level);
}

/* Scroll for a new zoom root: it sits a third of the way up from the root's
 * edge, leaving the rest of the area to its subtree. */
static void reset_scroll(struct ui *u, struct flameview *f)
{
	struct layout_params *lp = &f->pane.lp;
	uint32_t d = tree_depth(u->t, lp->zoom), keep = (uint32_t)(lp->height > 0 ? lp->height / 3 : 0);
	lp->scroll = d > keep ? d - keep : 0;
}

static void set_zoom(struct ui *u, struct flameview *f, tree_idx z)
{
	f->pane.lp.zoom = z;
	reset_scroll(u, f);
	fix_selection(u, f);
	flamepane_center(&f->pane, f->pane.sel);
}

/* Enter: into a frame of the view (pushing the old root), or out to an
 * ancestor (dropping the stack entries inside it). */
static void zoom_to(struct ui *u, struct flameview *f, tree_idx z)
{
	if (z == f->pane.lp.zoom)
		return;
	if (tree_contains(u->t, z, f->pane.lp.zoom)) {
		while (f->zn > 0 && tree_contains(u->t, z, f->zstack[f->zn - 1]))
			f->zn--;
	} else {
		if (f->zn == f->zcap) {
			f->zcap = f->zcap ? 2 * f->zcap : 16;
			f->zstack = xreallocarray(f->zstack, f->zcap, sizeof *f->zstack);
		}
		f->zstack[f->zn++] = f->pane.lp.zoom;
	}
	f->pane.sel = z;
	set_zoom(u, f, z);
}

/* Enter and double-click: into a frame; in a flame chart too coarse for
 * it (the zoom root too, as a search leaves it), into a chart of its span
 * alone, drawn finer (ui_chart_zoom). */
static void enter(struct ui *u, struct flameview *f, tree_idx z)
{
	if (!ui_chart_zoom(u, z))
		zoom_to(u, f, z);
}

static void unzoom(struct ui *u, struct flameview *f, bool all)
{
	/* out of a chart of a frame's span: the chart it came from */
	uint32_t wd;
	if (u->views->n == 0 && ui_chart_window(u, &wd) &&
	    (all || tree_depth(u->t, f->pane.lp.zoom) <= wd) && ui_chart_unzoom(u, all))
		return;
	if (f->pane.lp.zoom == TREE_ROOT) {
		if (!all && u->views->n > 0)
			ui_undo_transform(u);
		else if (!all && u->range_set && u->tl)
			heat_open(u);   /* back to the heat map the range came from */
		else
			snprintf(u->notice, sizeof u->notice, "already showing all samples: nothing to undo");
		return;
	}
	tree_idx z = TREE_ROOT;
	if (!all && f->zn > 0)
		z = f->zstack[--f->zn];
	if (all || z == TREE_ROOT)
		f->zn = 0;
	/* The selection stays where the user was looking, if still drawn. */
	set_zoom(u, f, z);
}

static void move_vertical(struct ui *u, struct flameview *f, bool up)
{
	if (flamepane_vertical(&f->pane, up))
		fix_selection(u, f);
}

/* PageUp/PageDown, Ctrl-U/Ctrl-D: n rows up or down on screen at once
 * (at least one), as many k or j. */
static void move_rows(struct ui *u, struct flameview *f, bool up, int n)
{
	for (int k = 0; k < (n > 1 ? n : 1); k++)
		if (!flamepane_vertical(&f->pane, up))
			break;
	fix_selection(u, f);
}

/* p: from the selection, the child with the most samples (the first of
 * equals), again and again, while it is drawn: where the time goes. O(depth
 * x children), once per key. */
static void hot_path(struct ui *u, struct flameview *f)
{
	tree_idx i = f->pane.sel;
	for (;;) {
		tree_idx best = TREE_NONE;
		for (tree_idx c = tree_first_child(u->t, i); c != TREE_NONE; c = tree_next_sibling(u->t, c))
			if (best == TREE_NONE || tree_node(u->t, c)->total.u > tree_node(u->t, best)->total.u)
				best = c;
		int c0, c1;
		if (best == TREE_NONE || !layout_node_cols(u->t, &f->pane.lp, best, &c0, &c1))
			break;
		i = best;
	}
	if (i == f->pane.sel) {
		snprintf(u->notice, sizeof u->notice, "no callee to follow from here");
		return;
	}
	f->pane.sel = i;
	flamepane_center(&f->pane, i);
	fix_selection(u, f);
}

static void reveal(struct ui *u, struct flameview *f, tree_idx m, const char *what);

/* S: the frame with the most self samples inside the zoomed view (the
 * first of equals), zoomed into when too narrow to show. O(view), once per
 * key. */
static void most_self(struct ui *u, struct flameview *f)
{
	tree_idx z = f->pane.lp.zoom, best = z;
	for (tree_idx i = z; i < tree_end(u->t, z); i++)
		if (tree_node(u->t, i)->self.u > tree_node(u->t, best)->self.u)
			best = i;
	if (tree_node(u->t, best)->self.u == 0) {
		snprintf(u->notice, sizeof u->notice, "no frame has self samples in this view");
		return;
	}
	reveal(u, f, best, "frame");
}

static void on_mouse(struct ui *u, struct flameview *f)
{
	if (!u->mouse_ok)
		return;
	mmask_t b = u->mouse.bstate;
	if (b & BUTTON4_PRESSED) {
		move_vertical(u, f, true);
		return;
	}
#ifdef BUTTON5_PRESSED
	if (b & BUTTON5_PRESSED) {
		move_vertical(u, f, false);
		return;
	}
#endif
	if (!(b & (BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED)))
		return;
	const struct layout_span *s = flamepane_click(&f->pane, u->mouse.y - 1, u->mouse.x);
	if (s && (b & BUTTON1_DOUBLE_CLICKED))
		enter(u, f, s->node);
}

static void flame_resize(struct ui *u, struct view *v)
{
	struct flameview *f = (struct flameview *)v;
	struct layout_params *lp = &f->pane.lp;
	int old_w = lp->width;
	lp->width = u->cols;
	set_height(u, f);
	f->ncrumbs = (size_t)u->cols / 3 + 2;
	f->crumbs = xreallocarray(f->crumbs, f->ncrumbs, sizeof *f->crumbs);
	/* Keep the preferred column at the same place of the graph. */
	if (old_w > 0 && u->cols > 0)
		f->pane.want_col = (int)((long)f->pane.want_col * u->cols / old_w);
	if (f->pane.want_col >= u->cols)
		f->pane.want_col = u->cols > 0 ? u->cols - 1 : 0;
	reset_scroll(u, f);
	fix_selection(u, f);
	if (old_w <= 0)         /* the first size: moves start from the middle */
		flamepane_center(&f->pane, f->pane.sel);
	relayout(u, f);
}

static void flame_settle(struct ui *u, struct view *v)
{
	relayout(u, (struct flameview *)v);
}

/* Columns of m when z is the zoom root; false when m is not drawn there. */
static bool visible_in(const struct ui *u, const struct flameview *f, tree_idx z, tree_idx m)
{
	struct layout_params p = f->pane.lp;
	int c0, c1;
	p.zoom = z;
	return tree_contains(u->t, z, m) && layout_node_cols(u->t, &p, m, &c0, &c1);
}

/* When m lies outside the zoomed view, zoom out to the nearest zoom root
 * that contains it; when it is narrower than a cell (or --min-width)
 * there, zoom into its shallowest ancestor in which it is wide enough (m
 * itself at worst). O(depth). */
void flameview_reveal(struct ui *u, tree_idx m)
{
	reveal(u, fv_of(u), m, "match");
}

static void reveal(struct ui *u, struct flameview *f, tree_idx m, const char *what)
{
	const char *why = NULL, *why_end = "";
	tree_idx z = f->pane.lp.zoom;
	if (!visible_in(u, f, z, m)) {
		while (!tree_contains(u->t, z, m))
			z = tree_parent(u->t, z);
		why = z != f->pane.lp.zoom ? "zoomed out to show the " : NULL;
		if (!visible_in(u, f, z, m)) {
			/* m may be z itself (a zoom root without samples): the
			 * walk up from its parent would never meet z */
			tree_idx best = m;
			for (tree_idx a = m == z ? z : tree_parent(u->t, m); a != z && a != TREE_NONE;
			     a = tree_parent(u->t, a))
				if (visible_in(u, f, a, m))
					best = a;
			why = "zoomed in: the ";
			why_end = " is too narrow to show here";
			if (z != f->pane.lp.zoom)
				zoom_to(u, f, z);
			z = best;
		}
		zoom_to(u, f, z);
	}
	f->pane.sel = m;
	fix_selection(u, f);
	if (f->pane.sel != m) { /* not even m alone gets a cell: no samples */
		why = "the ";
		why_end = " has no samples to show";
	}
	flamepane_center(&f->pane, f->pane.sel);
	if (why && !u->notice[0])
		snprintf(u->notice, sizeof u->notice, "%s%s%s", why, what, why_end);
}

void flameview_tree_changed(struct ui *u)
{
	struct flameview *f = fv_of(u);
	f->pane.t = u->t;
	f->zn = 0;
	f->pane.lp.zoom = TREE_ROOT;
	tree_idx c = tree_first_child(u->t, TREE_ROOT);
	f->pane.sel = c != TREE_NONE && tree_next_sibling(u->t, c) == TREE_NONE ? c : TREE_ROOT;
	reset_scroll(u, f);
	f->pane.want_col = u->cols / 2;
	fix_selection(u, f);
}

void flameview_restore(struct ui *u, tree_idx zoom, tree_idx sel)
{
	struct flameview *f = fv_of(u);
	if (zoom != TREE_NONE && zoom != TREE_ROOT)
		zoom_to(u, f, zoom);
	if (sel != TREE_NONE && sel != f->pane.sel) {
		f->pane.sel = sel;
		fix_selection(u, f);
		flamepane_center(&f->pane, f->pane.sel);
	}
}

/* One scan of the view: the heaviest frame named `name`, searched for
 * exactly (as `*` does) so that n/N step through the others. */
void flameview_show_function(struct ui *u, strtab_id name)
{
	struct flameview *f = fv_of(u);
	tree_idx best = TREE_NONE, z = f->pane.lp.zoom;
	size_t count = 0;
	for (tree_idx i = z; i < tree_end(u->t, z); i++) {
		if (tree_node(u->t, i)->name != name)
			continue;
		count++;
		if (best == TREE_NONE || tree_total_d(u->t, i) > tree_total_d(u->t, best))
			best = i;
	}
	if (best == TREE_NONE)
		return;
	f->pane.sel = best;
	flamepane_center(&f->pane, best);
	fix_selection(u, f);
	if (f->pane.sel == best)
		finder_search_name(u, best);
	if (count > 1)
		snprintf(u->notice, sizeof u->notice, "the heaviest of %zu frames of this function", count);
}

/* ---- drawing ---- */

/* All that a search changes in a frame's look: while a search is shown,
 * matches get the match colour plus bold and underline (visible without
 * colour too), every other frame is dimmed. */
static bool span_style(void *ctx, const struct flamepane *p, const struct layout_span *s, bool selected)
{
	struct ui *u = ctx;
	(void)p;
	int w = s->col1 - s->col0;
	bool match = finder_matches(u, s->node);
	/* A frame one cell wide is too narrow for text; a dot keeps it
	 * visible without colour, and marks it selected or matching. */
	bool dot = u->col.depth == PALETTE_MONO || selected || match;
	int pair = u->col.ancestor_pair;
	attr_t a = s->kind == LAYOUT_ANCESTOR ? u->col.ancestor_attr
	                                      : colour_frame(u, s->node, w == 1 && !dot, &pair);
	if (u->find.shown) {
		if (match) {
			if (u->col.match_pair)
				pair = u->col.match_pair;
			a = (a & ~A_DIM) | u->col.match_attr;
		} else
			a |= A_DIM;
	}
	if (selected)
		a = (a & ~A_DIM) | A_REVERSE | A_BOLD;
	colour_set(a, pair);
	return dot;
}

static void flame_draw(struct ui *u, struct view *v)
{
	struct flameview *f = (struct flameview *)v;
	relayout(u, f);
	char mark[96];
	int reserve = flameinfo_levels_mark(u, f, mark, sizeof mark);
	flameinfo_breadcrumb(u, f, reserve);
	if (reserve) {
		attron(A_DIM);
		mvaddstr(0, u->cols - reserve + 2, mark);
		attroff(A_DIM);
	}
	f->pane.lay = &f->laid.lay;
	flamepane_draw(&f->pane, 1, u->buf, u->bufsize, true, span_style, u);
	if (f->laid.lay.n == 0)     /* an empty profile: even the root has no cell */
		paint_text(u, 1 + f->pane.lp.height / 2, u->cols > 10 ? (u->cols - 10) / 2 : 0, "no samples");
	/* Names are classified by the rules as they are first drawn: said
	 * once per new batch of names the rules were too costly on. */
	size_t rc = palette_rules_costly(u->col.rules);
	if (rc != u->col.rules_costly && !u->notice[0])
		snprintf(u->notice, sizeof u->notice, "--color-rule too costly on %zu name%s: not coloured by it",
		         rc, rc == 1 ? "" : "s");
	u->col.rules_costly = rc;
	if (f->legend)
		flameinfo_legend(u);
	int dr = flameview_details_rows(u, f);
	if (dr)
		flameinfo_details(u, f, u->lines - 1 - (f->legend ? 1 : 0) - dr, dr);
	flameinfo_status(u, f);
}

/* ---- keys ---- */

/* y / Y: the selected frame's name, or its stack as a folded line without
 * the count (callers first, ';'-joined, without the root "all"), to the
 * clipboard by OSC 52 on the terminal, in display form (clip_copy_text:
 * control bytes pasted into a shell could run commands). O(depth + name
 * bytes), once per key. */
static void copy_selection(struct ui *u, tree_idx sel, bool stack)
{
	const struct tree *t = u->t;
	size_t len = 0;
	char *s;
	if (stack && sel == TREE_ROOT) {
		snprintf(u->notice, sizeof u->notice, "nothing to copy: all is not part of a stack");
		return;
	}
	if (!stack) {
		len = tree_name_len(t, sel);
		s = xmalloc(len + 1);
		memcpy(s, tree_name(t, sel), len);
	} else {
		for (tree_idx i = sel; i != TREE_ROOT; i = tree_parent(t, i))
			len += tree_name_len(t, i) + 1;
		len--;
		s = xmalloc(len + 1);
		size_t at = len;        /* filled from the leaf backwards */
		for (tree_idx i = sel; i != TREE_ROOT; i = tree_parent(t, i)) {
			at -= tree_name_len(t, i);
			memcpy(s + at, tree_name(t, i), tree_name_len(t, i));
			if (at)
				s[--at] = ';';
		}
	}
	bool escaped;
	int crc = clip_copy_text(ui_terminal(), s, len, &len, &escaped);
	if (crc == CLIP_TOO_BIG)
		snprintf(u->notice, sizeof u->notice, "not copied: %zu bytes, more than terminals take (%d)",
		         len, CLIP_MAX_BYTES);
	else if (crc != 0)
		snprintf(u->notice, sizeof u->notice, "not copied: cannot write to the terminal");
	else
		snprintf(u->notice, sizeof u->notice, "copied %zu bytes (%s%s) to the clipboard",
		         len, stack ? "stack" : "name", escaped ? ", escaped as shown" : "");
	free(s);
}

/* H's prompt: the pattern is pushed as a hide transform. */
static void hide_accept(struct ui *u, struct lineedit *e)
{
	if (e->len > 0)
		ui_push_transform(u, transform_make(TRANSFORM_HIDE, e->text, e->len));
	lineedit_history_add(&u->hide_hist, e->text, NULL, 0);
}

static void hide_cancel(struct ui *u, struct lineedit *e)
{
	(void)u;
	(void)e;
}

static const struct prompt_ops hide_prompt = {
	.bold = true,
	.accept = hide_accept,
	.cancel = hide_cancel,
};

static bool flame_key(struct ui *u, struct view *v, enum keymap_action act, int ch)
{
	(void)ch;
	struct flameview *f = (struct flameview *)v;
	tree_idx sel = f->pane.sel;
	switch (act) {
	case KEYMAP_LEFT: flamepane_sideways(&f->pane, -1); break;
	case KEYMAP_RIGHT: flamepane_sideways(&f->pane, +1); break;
	case KEYMAP_UP: move_vertical(u, f, true); break;
	case KEYMAP_DOWN: move_vertical(u, f, false); break;
	case KEYMAP_ZOOM: enter(u, f, sel); break;
	case KEYMAP_UNZOOM: unzoom(u, f, false); break;
	case KEYMAP_UNZOOM_ALL: unzoom(u, f, true); break;
	case KEYMAP_ORIENT:
		f->pane.lp.orient = f->pane.lp.orient == LAYOUT_FLAME ? LAYOUT_ICICLE : LAYOUT_FLAME;
		break;
	case KEYMAP_COPY_NAME: copy_selection(u, sel, false); break;
	case KEYMAP_COPY_STACK: copy_selection(u, sel, true); break;
	case KEYMAP_MOUSE: on_mouse(u, f); break;
	case KEYMAP_TABLE: tablescreen_open(u); break;
	case KEYMAP_HEATMAP: heat_open(u); break;
	case KEYMAP_THREADS: threads_open(u); break;
	case KEYMAP_CHART: ui_set_chart(u, !u->chart); break;
	case KEYMAP_REVERSE: ui_push_transform(u, transform_make(TRANSFORM_REVERSE, NULL, 0)); break;
	case KEYMAP_MERGE_RECURSION:
		ui_push_transform(u, transform_make(TRANSFORM_MERGE_RECURSION, NULL, 0));
		break;
	case KEYMAP_FOCUS:
	case KEYMAP_SANDWICH:
	case KEYMAP_DROP:
		if (sel == TREE_ROOT || flameview_is_ancestor(u, f, sel)) {
			snprintf(u->notice, sizeof u->notice, "select a frame first (not all or a dimmed one)");
			break;
		}
		if (act == KEYMAP_DROP && tree_node(u->t, sel)->total.u == tree_node(u->t, TREE_ROOT)->total.u)
			snprintf(u->notice, sizeof u->notice, "not dropped: every sample is in it, nothing would be left");
		else if (act == KEYMAP_DROP)
			ui_push_transform(u, transform_make_drop(u->t, sel));
		else if (act == KEYMAP_FOCUS)
			ui_push_transform(u, transform_make(TRANSFORM_FOCUS, tree_name(u->t, sel),
			                                    tree_name_len(u->t, sel)));
		else
			sandwich_open(u, u->t, sel);
		break;
	case KEYMAP_HIDE: prompt_open(u, "hide frames matching: ", &u->hide_hist, &hide_prompt); break;
	case KEYMAP_PALETTE: colour_cycle(u); break;
	case KEYMAP_LEGEND:
		f->legend = !f->legend;
		set_height(u, f);
		fix_selection(u, f);
		break;
	case KEYMAP_DETAILS:
		f->details = !f->details;
		if (f->details && !flameview_details_rows(u, f))
			snprintf(u->notice, sizeof u->notice, "no room for the details: the terminal is too short");
		set_height(u, f);
		fix_selection(u, f);
		break;
	case KEYMAP_PAGE_UP:
	case KEYMAP_PAGE_DOWN:
		move_rows(u, f, act == KEYMAP_PAGE_UP, f->pane.lp.height - 1);
		break;
	case KEYMAP_HALF_UP:
	case KEYMAP_HALF_DOWN:
		move_rows(u, f, act == KEYMAP_HALF_UP, f->pane.lp.height / 2);
		break;
	case KEYMAP_HOT_PATH: hot_path(u, f); break;
	case KEYMAP_MOST_SELF: most_self(u, f); break;
	case KEYMAP_SEARCH: finder_prompt(u); break;
	case KEYMAP_SEARCH_NEXT: finder_step(u, +1); break;
	case KEYMAP_SEARCH_PREV: finder_step(u, -1); break;
	case KEYMAP_SEARCH_NAME: finder_search_name(u, sel); break;
	case KEYMAP_SEARCH_CLEAR: finder_clear(u); break;
	default: return false;
	}
	return true;
}

static const struct view_ops flame_ops = {
	.name = "flame",
	.keys = KEYMAP_FLAME,
	.fallback = true,
	.draw = flame_draw,
	.key = flame_key,
	.resize = flame_resize,
	.settle = flame_settle,
};

struct view *flameview_new(struct ui *u, const struct ui_options *o)
{
	struct flameview *f = xcalloc(1, sizeof *f);
	f->v.ops = &flame_ops;
	f->pane.t = u->t;
	f->pane.lp.zoom = TREE_ROOT;
	f->pane.lp.orient = o->orient;
	f->pane.lp.min_width = o->min_width < 1 ? 1 : o->min_width;
	f->pane.sel = TREE_ROOT;
	f->pane.lay = &f->laid.lay;
	layout_init(&f->laid.lay);
	return &f->v;
}

void flameview_free(struct view *v)
{
	struct flameview *f = (struct flameview *)v;
	if (!f)
		return;
	layout_free(&f->laid.lay);
	for (size_t k = 0; k < FLAME_OLD_LAYOUTS; k++)
		layout_free(&f->old[k].lay);
	free(f->zstack);
	free(f->crumbs);
	free(f->seen);
	free(f);
}
