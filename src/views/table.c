/* table: the table of functions as a view (Tab): the rows (tableview.c)
 * under the flame graph's breadcrumb, their keys, the filter prompt. */
#include "config.h"
#include "browser.h"

#include <stdlib.h>
#include <string.h>

#include "tableview.h"
#include "text.h"
#include "xalloc.h"

struct tablescreen {
	struct view v;              /* first */
	struct tableview *tv;
};

static struct tableview *tv_of(const struct ui *u)
{
	return ((struct tablescreen *)u->table)->tv;
}

static void table_draw(struct ui *u, struct view *v)
{
	struct tablescreen *ts = (struct tablescreen *)v;
	flameview_draw_breadcrumb(u);
	tableview_draw(ts->tv, 1, u->lines - 2, u->cols, u->unit, u->buf, u->bufsize);
	if (!paint_notice(u)) {
		char line[512];
		tableview_status(ts->tv, line, sizeof line);
		paint_text(u, u->lines - 1, 0, line);
	}
}

static void filter_accept(struct ui *u, struct lineedit *e)
{
	char err[256];
	struct tableview *tv = tv_of(u);
	if (!tableview_filter(tv, e->text, err, sizeof err))
		text_sanitize(err, strlen(err), u->notice, sizeof u->notice);
	else if (tableview_costly(tv))
		snprintf(u->notice, sizeof u->notice, "filter too costly on %zu name%s: not shown",
		         tableview_costly(tv), tableview_costly(tv) == 1 ? "" : "s");
	lineedit_history_add(&u->filter_hist, e->text, NULL, 0);
}

static void filter_cancel(struct ui *u, struct lineedit *e)
{
	(void)u;
	(void)e;
}

static const struct prompt_ops filter_prompt = {
	.bold = true,
	.accept = filter_accept,
	.cancel = filter_cancel,
};

/* The selected row's function in the flame graph, the table closed. */
static void show(struct ui *u, strtab_id name)
{
	ui_pop(u);
	flameview_show_function(u, name);
}

static void on_mouse(struct ui *u, struct tableview *tv)
{
	/* Click selects a row, double-click shows it, the wheel scrolls. */
	strtab_id name;
	if (!u->mouse_ok)
		return;
	mmask_t b = u->mouse.bstate;
	if (b & BUTTON4_PRESSED)
		tableview_move(tv, -3);
#ifdef BUTTON5_PRESSED
	else if (b & BUTTON5_PRESSED)
		tableview_move(tv, 3);
#endif
	else if ((b & (BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED)) && tableview_click(tv, u->mouse.y - 2) &&
	         (b & BUTTON1_DOUBLE_CLICKED) && tableview_selected(tv, &name))
		show(u, name);
}

static bool table_key(struct ui *u, struct view *v, enum keymap_action act, int ch)
{
	(void)ch;
	struct tableview *tv = ((struct tablescreen *)v)->tv;
	strtab_id name;
	char err[8];
	switch (act) {
	case KEYMAP_DOWN: tableview_move(tv, 1); break;
	case KEYMAP_UP: tableview_move(tv, -1); break;
	case KEYMAP_PAGE_DOWN: tableview_page(tv, 1); break;
	case KEYMAP_PAGE_UP: tableview_page(tv, -1); break;
	case KEYMAP_FIRST: tableview_move(tv, -((long)1 << 40)); break;
	case KEYMAP_LAST: tableview_move(tv, (long)1 << 40); break;
	case KEYMAP_SORT_SELF: tableview_sort(tv, TOPTABLE_SELF); break;
	case KEYMAP_SORT_TOTAL: tableview_sort(tv, TOPTABLE_TOTAL); break;
	case KEYMAP_SORT_NAME: tableview_sort(tv, TOPTABLE_NAME); break;
	case KEYMAP_FILTER: prompt_open(u, "filter: ", &u->filter_hist, &filter_prompt); break;
	case KEYMAP_FILTER_CLEAR: tableview_filter(tv, "", err, sizeof err); break;
	case KEYMAP_SHOW:
		if (tableview_selected(tv, &name))
			show(u, name);
		break;
	case KEYMAP_SANDWICH:
		if (tableview_selected(tv, &name))
			sandwich_open_name(u, name);
		break;
	case KEYMAP_FOCUS:
		if (tableview_selected(tv, &name)) {
			ui_pop(u);
			ui_push_transform(u, transform_make(TRANSFORM_FOCUS, strtab_str(&u->t->names, name),
			                                    strtab_len(&u->t->names, name)));
		}
		break;
	case KEYMAP_BACK: ui_pop(u); break;
	case KEYMAP_MOUSE: on_mouse(u, tv); break;
	default: return false;
	}
	return true;
}

static const struct view_ops table_ops = {
	.name = "table",
	.keys = KEYMAP_TABLE_VIEW,
	.fallback = true,
	.draw = table_draw,
	.key = table_key,
};

struct view *tablescreen_new(enum toptable_key key)
{
	struct tablescreen *ts = xcalloc(1, sizeof *ts);
	ts->v.ops = &table_ops;
	ts->tv = tableview_new(key);
	return &ts->v;
}

void tablescreen_free(struct view *v)
{
	struct tablescreen *ts = (struct tablescreen *)v;
	if (!ts)
		return;
	tableview_free(ts->tv);
	free(ts);
}

/* The node of b at the path of node z of a (names from the root), or
 * TREE_NONE. O(depth x siblings). */
static tree_idx same_path(const struct tree *a, tree_idx z, const struct tree *b)
{
	uint32_t d = tree_depth(a, z);
	tree_idx *path = xreallocarray(NULL, (size_t)d + 1, sizeof *path);
	for (tree_idx i = z; i != TREE_ROOT; i = tree_parent(a, i))
		path[tree_depth(a, i)] = i;
	tree_idx at = TREE_ROOT;
	for (uint32_t k = 1; k <= d && at != TREE_NONE; k++) {
		const char *name = tree_name(a, path[k]);
		uint32_t len = tree_name_len(a, path[k]);
		tree_idx c = tree_first_child(b, at);
		while (c != TREE_NONE && !(tree_name_len(b, c) == len && memcmp(tree_name(b, c), name, len) == 0))
			c = tree_next_sibling(b, c);
		at = c;
	}
	free(path);
	return at;
}

/* O(subtree + names), once per Tab. */
void tablescreen_open(struct ui *u)
{
	ui_busy(u, "counting functions...");
	tree_idx z = flameview_zoom(u);
	tableview_load(tv_of(u), u->t, z);
	const struct tree *b = u->diffmode ? transform_stack_tree2(u->views) : NULL;
	tableview_set_before(tv_of(u), b, b ? same_path(u->t, z, b) : TREE_NONE, u->diff.scale);
	ui_push(u, u->table);
}
