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

static struct flameview *fv_of(const struct ui *u)
{
	return (struct flameview *)u->flame;
}

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

static bool is_ancestor_row(const struct ui *u, const struct flameview *f, tree_idx i)
{
	return i != f->pane.lp.zoom && tree_contains(u->t, i, f->pane.lp.zoom);
}

/* The details' rows when shown and the screen has room for them and 3
 * rows of graph. */
static int details_rows(const struct ui *u, const struct flameview *f)
{
	int room = u->lines - 2 - (f->legend ? 1 : 0);
	return f->details && room >= FLAME_DETAILS_ROWS + 3 ? FLAME_DETAILS_ROWS : 0;
}

static void set_height(const struct ui *u, struct flameview *f)
{
	f->pane.lp.height = u->lines - 2 - (f->legend ? 1 : 0) - details_rows(u, f);
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

static void unzoom(struct ui *u, struct flameview *f, bool all)
{
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
		zoom_to(u, f, s->node);
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

/* "all › main › parse", cut from the left ("..") to the screen width. The
 * walk up from the zoom root stops as soon as the line is full. */
static void breadcrumb(struct ui *u, struct flameview *f, int reserve)
{
	const char *sep = text_is_utf8() ? " \u203a " : " > ";
	const int sepw = 3, dotsw = 2;
	int avail = u->cols - reserve, total = 0;
	size_t n = 0;
	bool cut = false;
	int x = paint_transforms(u);
	avail -= x;
	for (tree_idx i = f->pane.lp.zoom; i != TREE_NONE; i = tree_parent(u->t, i)) {
		int add = paint_name_width(u, i) + (n ? sepw : 0);
		if (n == f->ncrumbs || (n > 0 && total + add > avail)) {
			cut = true;
			break;
		}
		f->crumbs[n++] = i;
		total += add;
	}
	if (cut)
		while (n > 1 && total + dotsw + sepw > avail) {
			total -= paint_name_width(u, f->crumbs[n - 1]) + sepw;
			n--;
		}
	int x0 = x;
	avail += x0;
	move(0, x);
	if (cut && avail - x0 >= dotsw + sepw + 1) {
		addstr("..");
		addstr(sep);
		x += dotsw + sepw;
	}
	for (size_t k = n; k-- > 0 && x < avail;) {
		size_t len;
		const char *name = paint_name(u, f->crumbs[k], &len);
		if (k == 0)
			attron(A_BOLD);
		int w = k == 0 ? text_fit_middle(name, len, avail - x, u->buf, u->bufsize)
		               : text_fit(name, len, avail - x, u->buf, u->bufsize);
		mvaddstr(0, x, u->buf);
		x += w;
		attroff(A_BOLD);
		if (k > 0 && x + sepw <= avail) {
			addstr(sep);
			x += sepw;
		}
	}
}

void flameview_draw_breadcrumb(struct ui *u)
{
	breadcrumb(u, fv_of(u), 0);
}

/* Levels off screen, at the right of row 0: "▲ 73 more levels" towards
 * the leaves (up in a flame graph), "▼ 2 more levels" towards the root.
 * Returns the columns to leave free for it (0: nothing to say, or no room). */
static int levels_mark(const struct ui *u, const struct flameview *f, char *out, size_t size)
{
	uint32_t deeper = f->laid.lay.deeper, below = f->pane.lp.scroll;
	bool flame = f->pane.lp.orient == LAYOUT_FLAME;
	const char *up = text_is_utf8() ? "\u25b2" : "^", *down = text_is_utf8() ? "\u25bc" : "v";
	int len = 0;
	out[0] = '\0';
	if (deeper)
		len += snprintf(out, size, "%s %u%s more level%s", flame ? up : down, deeper,
		                deeper >= LAYOUT_LOOKAHEAD ? "+" : "", deeper == 1 ? "" : "s");
	if (below && len >= 0 && (size_t)len < size)
		snprintf(out + len, size - (size_t)len, "%s%s %u more level%s", len ? "  " : "", flame ? down : up,
		         below, below == 1 ? "" : "s");
	int w = text_width(out, strlen(out));
	return w && w + 2 <= u->cols / 3 ? w + 2 : 0;
}

/* Distinct functions that call the selected frame's function anywhere in
 * the tree (root frames have no caller): one scan of the tree per function,
 * then cached. */
static size_t distinct_callers(struct ui *u, struct flameview *f, tree_idx sel)
{
	strtab_id name = tree_node(u->t, sel)->name;
	if (f->callers_gen == u->tree_gen && f->callers_of == name)
		return f->callers;
	size_t bytes = strtab_count(&u->t->names) / 8 + 1;
	if (f->nseen < bytes) {
		free(f->seen);
		f->seen = xcalloc(bytes, 1);
		f->nseen = bytes;
	} else
		memset(f->seen, 0, bytes);
	size_t n = 0;
	for (tree_idx i = 1; i < tree_size(u->t); i++) {
		tree_idx p = tree_parent(u->t, i);
		if (tree_node(u->t, i)->name != name || p == TREE_ROOT)
			continue;
		strtab_id c = tree_node(u->t, p)->name;
		if (!(f->seen[c >> 3] & (1u << (c & 7)))) {
			f->seen[c >> 3] |= (uint8_t)(1u << (c & 7));
			n++;
		}
	}
	f->callers_of = name;
	f->callers_gen = u->tree_gen;
	f->callers = n;
	return n;
}

/* d: the selected frame's whole name, wrapped (the last row ends with ".."
 * if even that is not enough), then its numbers. */
static void draw_details(struct ui *u, struct flameview *f, int y0, int rows)
{
	const struct tree *t = u->t;
	tree_idx sel = f->pane.sel, z = f->pane.lp.zoom;
	const char *s = tree_name(t, sel);
	size_t len = tree_name_len(t, sel);
	attron(A_BOLD);
	for (int r = 0; r < rows - 2 && len > 0; r++) {
		size_t used = len;
		if (r == rows - 3)
			text_fit(s, len, u->cols, u->buf, u->bufsize);
		else
			text_fit_head(s, len, u->cols, u->buf, u->bufsize, &used);
		if (used == 0)
			break;
		mvaddstr(y0 + r, 0, u->buf);
		s += used;
		len -= used;
	}
	attroff(A_BOLD);
	const char *sep = paint_sep();
	char tot[96], self[96], pall[32], pview[32], ppar[32], pself[32], line[512];
	double total = tree_total_d(t, sel);
	paint_count(u, t, tree_node(t, sel)->total, tot, sizeof tot);
	paint_count(u, t, tree_node(t, sel)->self, self, sizeof self);
	paint_percent(total, tree_total_d(t, TREE_ROOT), pall, sizeof pall);
	paint_percent(total, tree_total_d(t, z), pview, sizeof pview);
	paint_percent(total, sel == TREE_ROOT ? 0 : tree_total_d(t, tree_parent(t, sel)), ppar, sizeof ppar);
	paint_percent(tree_self_d(t, sel), tree_total_d(t, TREE_ROOT), pself, sizeof pself);
	snprintf(line, sizeof line, "total %s%s%s of all%s%s of view%s%s of parent", tot, sep, pall, sep, pview,
	         sep, ppar);
	paint_text(u, y0 + rows - 2, 0, line);
	int n = snprintf(line, sizeof line, "self %s (%s of all)%sdepth %u", self, pself, sep, tree_depth(t, sel));
	if (sel != TREE_ROOT && n > 0 && (size_t)n < sizeof line) {
		size_t c = distinct_callers(u, f, sel);
		if (c)
			snprintf(line + n, sizeof line - (size_t)n, "%s%zu distinct caller%s of the function", sep, c,
			         c == 1 ? "" : "s");
		else
			snprintf(line + n, sizeof line - (size_t)n, "%sa root: no caller", sep);
	}
	paint_text(u, y0 + rows - 1, 0, line);
}

/* Selected frame: name, samples, % of all, % of the zoomed view; the input's
 * name and a help hint on the right when there is room. */
static void draw_status(struct ui *u, struct flameview *f)
{
	int y = u->lines - 1, avail = u->cols - 1;
	const struct tree *t = u->t;
	tree_idx sel = f->pane.sel;
	char pct_all[32], pct_view[32];
	char fields[4][128];
	int nf = 0;

	paint_amount(u, t, sel, fields[nf++], sizeof fields[0]);
	paint_percent(tree_total_d(t, sel), tree_total_d(t, TREE_ROOT), pct_all, sizeof pct_all);
	snprintf(fields[nf++], sizeof fields[0], "%s of all", pct_all);
	if (f->pane.lp.zoom != TREE_ROOT && !is_ancestor_row(u, f, sel)) {
		paint_percent(tree_total_d(t, sel), tree_total_d(t, f->pane.lp.zoom), pct_view, sizeof pct_view);
		snprintf(fields[nf++], sizeof fields[0], "%s of view", pct_view);
	}
	if (u->diffmode)
		diff_describe(&u->diff, t, sel, fields[nf++], sizeof fields[0]);

	const char *sep = paint_sep();
	const int sepw = 5;
	/* The code type that the hidden annotation gave: " [kernel]". */
	char tag[16] = "";
	const char *type = palette_type_name(palette_type_of(tree_name(t, sel), tree_name_len(t, sel)));
	if (type)
		snprintf(tag, sizeof tag, " [%s]", type);
	int tailw = (int)strlen(tag);
	for (int k = 0; k < nf; k++)
		tailw += sepw + (int)strlen(fields[k]);
	/* The name yields to the numbers, down to a readable minimum; after
	 * that, the numbers go from the right. */
	int namew = paint_name_width(u, sel), minw = namew < 16 ? namew : 16;
	while (nf > 0 && minw + tailw > avail)
		tailw -= sepw + (int)strlen(fields[--nf]);
	if (minw + tailw > avail) {
		tag[0] = '\0';
		tailw = 0;
	}
	int room = avail - tailw;
	if (namew > room)
		namew = room;

	size_t len;
	const char *name = paint_name(u, sel, &len);
	int x = text_fit_middle(name, len, namew, u->buf, u->bufsize);
	attron(A_BOLD);
	mvaddstr(y, 0, u->buf);
	attroff(A_BOLD);
	addstr(tag);
	x += (int)strlen(tag);
	for (int k = 0; k < nf; k++) {
		addstr(sep);
		addstr(fields[k]);
		x += sepw + (int)strlen(fields[k]);
	}

	/* Right side, only when it fits whole with two spaces of margin. */
	char right[256];
	char title[160] = "";
	if (u->title)
		text_sanitize(u->title, strlen(u->title), title, sizeof title);
	snprintf(right, sizeof right, "%s%s? help", title, title[0] ? "  " : "");
	int rw = text_width(right, strlen(right));
	if (x + 2 + rw <= avail) {
		attron(A_DIM);
		mvaddstr(y, avail - rw, right);
		attroff(A_DIM);
	} else if (x + 2 + 6 <= avail) {
		attron(A_DIM);
		mvaddstr(y, avail - 6, "? help");
		attroff(A_DIM);
	}
}

/* "/pattern/" as the user typed it, sanitized and cut to at most cols
 * columns (keeping both ends), into u->buf. Returns its width. */
static int fit_pattern(struct ui *u, const char *pat, int cols)
{
	char *q = xmalloc(strlen(pat) + 3);
	sprintf(q, "/%s/", pat);
	int w = text_fit_middle(q, strlen(q), cols, u->buf, u->bufsize);
	free(q);
	return w;
}

/* With a search: "/pattern/  match 3 of 17  ·  12.34% of samples (25.00%
 * of view)"; "17 matches" when the selection is not one; "(... of view)"
 * only when zoomed; "too costly on N names" when the pattern hit rx.h's
 * limits on some (taken as no match). A message follows; the selected
 * frame's name and samples go on the right when there is room. */
static void draw_search_status(struct ui *u, struct flameview *f)
{
	int y = u->lines - 1, avail = u->cols - 1;
	const char *sep = paint_sep();
	const struct search *s = finder_current(u);
	tree_idx sel = f->pane.sel, z = f->pane.lp.zoom;
	char info[192];
	if (u->find.pending)
		snprintf(info, sizeof info, "  searching %d%%", (int)(100 * search_progress(s)));
	else {
		char all[32], view[32], count[64];
		size_t n = search_count(s), k = search_ordinal(s, sel);
		if (n == 0)
			snprintf(count, sizeof count, "no match");
		else if (k)
			snprintf(count, sizeof count, "match %zu of %zu", k, n);
		else
			snprintf(count, sizeof count, "%zu match%s", n, n == 1 ? "" : "es");
		paint_percent(tree_count_d(u->t, search_total(s, TREE_ROOT)), tree_total_d(u->t, TREE_ROOT),
		              all, sizeof all);
		int len = snprintf(info, sizeof info, "  %s%s%s of samples", count, sep, all);
		if (z != TREE_ROOT) {
			paint_percent(tree_count_d(u->t, search_total(s, z)), tree_total_d(u->t, z), view, sizeof view);
			len += snprintf(info + len, sizeof info - (size_t)len, " (%s of view)", view);
		}
		size_t costly = search_costly(s);
		if (costly && len > 0 && (size_t)len < sizeof info)
			snprintf(info + len, sizeof info - (size_t)len, "%stoo costly on %zu name%s", sep, costly,
			         costly == 1 ? "" : "s");
	}
	int infow = text_width(info, strlen(info));
	/* The pattern yields to the numbers down to a third of the line. */
	int patw = avail - infow < avail / 3 ? avail / 3 : avail - infow;
	int x = fit_pattern(u, search_pattern(s), patw);
	attron(A_BOLD);
	mvaddstr(y, 0, u->buf);
	attroff(A_BOLD);
	paint_text(u, y, x, info);
	x += infow;
	if (u->notice[0] && x < avail) {
		attron(A_BOLD);
		paint_text(u, y, x, sep);
		paint_text(u, y, x + 5, u->notice);
		attroff(A_BOLD);
		return;
	}
	/* Right: "name  ·  N samples" of the selection, when it fits. */
	char amount[96], right[128];
	paint_amount(u, u->t, sel, amount, sizeof amount);
	snprintf(right, sizeof right, "%s%s", sep, amount);
	int rw = text_width(right, strlen(right));
	int namew = paint_name_width(u, sel), room = avail - x - 2 - rw;
	if (room < 4 || (namew > room && room < 16))
		return;
	size_t len;
	const char *name = paint_name(u, sel, &len);
	int nw = text_fit_middle(name, len, namew < room ? namew : room, u->buf, u->bufsize);
	attron(A_DIM);
	mvaddstr(y, avail - rw - nw, u->buf);
	addstr(right);
	attroff(A_DIM);
}

/* `L`: "java  ▇ Java/JIT  ▇ inlined ...  rules: ▇ REGEX ...  map: N names". */
static void draw_legend(struct ui *u)
{
	int y = u->lines - 2, x = 0, end = u->cols;
	const struct palette *p = u->col.pal;
	const struct palette_rules *rules = u->col.rules;
	struct palette_rgb none = { 0, 0, 0 };
	bool more = paint_piece(u, y, &x, end, p->name, A_BOLD, 0);
	for (size_t k = 0; more && k < p->nlegend; k++)
		more = paint_piece(u, y, &x, end, "  ", A_NORMAL, 0) &&
		       paint_swatch(u, y, &x, end, p->legend[k].hue, none) &&
		       paint_piece(u, y, &x, end, " ", A_NORMAL, 0) &&
		       paint_piece(u, y, &x, end, p->legend[k].label, A_NORMAL, 0);
	size_t nr = palette_rules_count(rules);
	if (more && nr)
		more = paint_piece(u, y, &x, end, "  rules:", A_BOLD, 0);
	for (size_t k = 0; more && k < nr; k++) {
		char re[64];
		const char *src = palette_rules_regex(rules, k);
		text_sanitize(src, strlen(src), re, sizeof re);
		struct palette_spec sp = palette_rules_spec(rules, k);
		more = paint_piece(u, y, &x, end, " ", A_NORMAL, 0) &&
		       paint_swatch(u, y, &x, end, sp.hue, sp.rgb) &&
		       paint_piece(u, y, &x, end, " ", A_NORMAL, 0) &&
		       paint_piece(u, y, &x, end, re, A_NORMAL, 0);
	}
	size_t nm = palette_rules_map_count(rules);
	if (more && nm) {
		char m[64];
		snprintf(m, sizeof m, "  map: %zu name%s", nm, nm == 1 ? "" : "s");
		paint_piece(u, y, &x, end, m, A_NORMAL, 0);
	}
}

static void flame_draw(struct ui *u, struct view *v)
{
	struct flameview *f = (struct flameview *)v;
	relayout(u, f);
	char mark[96];
	int reserve = levels_mark(u, f, mark, sizeof mark);
	breadcrumb(u, f, reserve);
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
		draw_legend(u);
	int dr = details_rows(u, f);
	if (dr)
		draw_details(u, f, u->lines - 1 - (f->legend ? 1 : 0) - dr, dr);
	if (u->cols - 1 <= 0)
		return;
	if (finder_current(u))
		draw_search_status(u, f);
	else if (!paint_notice(u))
		draw_status(u, f);
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
	case KEYMAP_ZOOM: zoom_to(u, f, sel); break;
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
	case KEYMAP_REVERSE: ui_push_transform(u, transform_make(TRANSFORM_REVERSE, NULL, 0)); break;
	case KEYMAP_MERGE_RECURSION:
		ui_push_transform(u, transform_make(TRANSFORM_MERGE_RECURSION, NULL, 0));
		break;
	case KEYMAP_FOCUS:
	case KEYMAP_SANDWICH:
	case KEYMAP_DROP:
		if (sel == TREE_ROOT || is_ancestor_row(u, f, sel)) {
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
		if (f->details && !details_rows(u, f))
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
