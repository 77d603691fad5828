/* sandwich: the sandwich of one function as a view (s): its callers over
 * it, its callees under it (sandwichview.c), a breadcrumb naming it, and
 * a status line for the selected frame. */
#include "config.h"
#include "browser.h"

#include <stdlib.h>
#include <string.h>

#include "sandwichview.h"
#include "text.h"
#include "views.h"
#include "xalloc.h"

struct sandwich {
	struct view v;              /* first */
	struct sandwichview *sw;
	int min_width;
};

static struct sandwichview *sw_of(const struct ui *u)
{
	return ((struct sandwich *)u->sandwich)->sw;
}

/* A frame's look: the palette's colour of its name (the sandwich's trees
 * have their own names, so no cache), reverse and bold when selected. */
static void style(void *ctx, const struct tree *t, tree_idx i, bool selected)
{
	struct ui *u = ctx;
	int pair = colour_name_pair(u, tree_name(t, i), tree_name_len(t, i));
	colour_set(selected ? A_REVERSE | A_BOLD : A_NORMAL, pair);
}

/* Breadcrumb "sandwich: NAME", both panes, and a status line for the
 * selected frame: samples, % of the function's own total, % of all. */
static void sandwich_draw(struct ui *u, struct view *v)
{
	struct sandwichview *sw = ((struct sandwich *)v)->sw;
	size_t len;
	const char *name = sandwichview_name(sw, &len);
	int x = paint_transforms(u);
	attron(A_BOLD);
	paint_text(u, 0, x, "sandwich: ");
	attroff(A_BOLD);
	x += 10;
	if (x < u->cols) {
		text_fit_middle(name, len, u->cols - x, u->buf, u->bufsize);
		mvaddstr(0, x, u->buf);
	}
	sandwichview_draw(sw, 1, u->buf, u->bufsize, style, u);
	if (paint_notice(u))
		return;

	tree_idx i;
	const struct tree *st = sandwichview_selected(sw, &i);
	char count[64], grouped[96], pa[32], pf[32], line[600];
	tree_format_count(st, tree_node(st, i)->total, count, sizeof count);
	unit_group(count, grouped, sizeof grouped);
	tree_idx f = tree_first_child(st, TREE_ROOT);
	paint_percent(tree_total_d(st, i), f == TREE_NONE ? 0 : tree_total_d(st, f), pf, sizeof pf);
	paint_percent(tree_total_d(st, i), tree_total_d(u->t, TREE_ROOT), pa, sizeof pa);
	const char *sep = paint_sep();
	char nm[256];
	text_sanitize(tree_name(st, i), tree_name_len(st, i), nm, sizeof nm);
	snprintf(line, sizeof line, "%s%s%s sample%s%s%s of the function%s%s of all", nm, sep, grouped,
	         strcmp(count, "1") ? "s" : "", sep, pf, sep, pa);
	paint_text(u, u->lines - 1, 0, line);
}

void sandwich_open_name(struct ui *u, strtab_id name)
{
	sandwichview_load(sw_of(u), u->t, name, u->views->order);
	ui_push(u, u->sandwich);
}

/* O(tree) to build its two trees. */
void sandwich_open(struct ui *u, const struct tree *t, tree_idx i)
{
	int64_t id = strtab_find(&u->t->names, tree_name(t, i), tree_name_len(t, i));
	if (id <= 0)
		return;     /* "all" */
	sandwich_open_name(u, (strtab_id)id);
}

void sandwich_start(struct ui *u, const char *name)
{
	tree_idx i = TREE_NONE;
	if (name) {
		int64_t id = strtab_find(&u->t->names, name, strlen(name));
		for (tree_idx k = 1; id > 0 && k < tree_size(u->t) && i == TREE_NONE; k++)
			if (tree_node(u->t, k)->name == (strtab_id)id)
				i = k;
	} else {
		i = views_hottest(u->t);
	}
	if (i == TREE_NONE) {
		snprintf(u->notice, sizeof u->notice, "no such function for the sandwich");
		return;
	}
	sandwich_open(u, u->t, i);
}

static bool sandwich_key(struct ui *u, struct view *v, enum keymap_action act, int ch)
{
	(void)ch;
	struct sandwichview *sw = ((struct sandwich *)v)->sw;
	tree_idx i;
	const struct tree *st;
	switch (act) {
	case KEYMAP_LEFT: sandwichview_sideways(sw, -1); break;
	case KEYMAP_RIGHT: sandwichview_sideways(sw, 1); break;
	case KEYMAP_UP: sandwichview_vertical(sw, true); break;
	case KEYMAP_DOWN: sandwichview_vertical(sw, false); break;
	case KEYMAP_RECENTER:
		st = sandwichview_selected(sw, &i);
		if (i != TREE_ROOT)
			sandwich_open(u, st, i);
		break;
	case KEYMAP_BACK: ui_pop(u); break;
	case KEYMAP_MOUSE:
		/* Click selects, double-click re-centres on the function. */
		if (!u->mouse_ok || !(u->mouse.bstate & (BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED)))
			break;
		if (sandwichview_click(sw, u->mouse.y - 1, u->mouse.x) && (u->mouse.bstate & BUTTON1_DOUBLE_CLICKED)) {
			st = sandwichview_selected(sw, &i);
			sandwich_open(u, st, i);
		}
		break;
	default: return false;
	}
	return true;
}

static void sandwich_resize(struct ui *u, struct view *v)
{
	struct sandwich *s = (struct sandwich *)v;
	sandwichview_resize(s->sw, u->cols, u->lines - 2, s->min_width);
}

static const struct view_ops sandwich_ops = {
	.name = "sandwich",
	.keys = KEYMAP_SANDWICH_VIEW,
	.fallback = true,
	.draw = sandwich_draw,
	.key = sandwich_key,
	.resize = sandwich_resize,
};

struct view *sandwich_new(int min_width)
{
	struct sandwich *s = xcalloc(1, sizeof *s);
	s->v.ops = &sandwich_ops;
	s->sw = sandwichview_new();
	s->min_width = min_width < 1 ? 1 : min_width;
	return &s->v;
}

void sandwich_free(struct view *v)
{
	struct sandwich *s = (struct sandwich *)v;
	if (!s)
		return;
	sandwichview_free(s->sw);
	free(s);
}
