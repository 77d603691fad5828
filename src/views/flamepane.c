#include "config.h"
#include "flamepane.h"

#if defined(HAVE_NCURSESW_CURSES_H)
#include <ncursesw/curses.h>
#else
#include <curses.h>
#endif
#include "palette.h"
#include "text.h"

void flamepane_center(struct flamepane *p, tree_idx i)
{
	int c0, c1;
	if (layout_node_cols(p->t, &p->lp, i, &c0, &c1))
		p->want_col = c0 + (c1 - c0 - 1) / 2;
}

bool flamepane_to_leaves(const struct flamepane *p, bool up)
{
	return up == (p->lp.orient == LAYOUT_FLAME);
}

bool flamepane_sideways(struct flamepane *p, int dir)
{
	int row = layout_row_of_level(&p->lp, tree_depth(p->t, p->sel));
	const struct layout_span *s = layout_neighbor(p->lay, p->sel, row, dir);
	if (!s)
		return false;
	p->sel = s->node;
	p->want_col = s->col0 + (s->col1 - s->col0 - 1) / 2;
	return true;
}

bool flamepane_vertical(struct flamepane *p, bool up)
{
	tree_idx next;
	if (flamepane_to_leaves(p, up))
		next = layout_child_at(p->t, &p->lp, p->sel, p->want_col);
	else
		next = p->sel == TREE_ROOT ? TREE_NONE : tree_parent(p->t, p->sel);
	if (next == TREE_NONE)
		return false;
	p->sel = next;
	return true;
}

const struct layout_span *flamepane_click(struct flamepane *p, int row, int col)
{
	const struct layout_span *s = layout_span_at(p->lay, row, col);
	if (!s)
		return NULL;
	p->sel = s->node;
	p->want_col = s->col0 + (s->col1 - s->col0 - 1) / 2;
	return s;
}

void flamepane_draw(const struct flamepane *p, int y0, char *buf, size_t bufsize, bool ancestors,
                    flamepane_style_fn style, void *ctx)
{
	for (size_t k = 0; k < p->lay->n; k++) {
		const struct layout_span *s = &p->lay->spans[k];
		if (s->kind == LAYOUT_ANCESTOR && !ancestors)
			continue;
		int y = y0 + s->row, w = s->col1 - s->col0;
		bool dot = style(ctx, p, s, s->node == p->sel);
		if (w == 1) {
			mvaddstr(y, s->col0, dot ? (text_is_utf8() ? "\u00b7" : ".") : " ");
			attrset(A_NORMAL);
			continue;
		}
		/* The name as shown: its code-type annotation ("_[k]"...) is
		 * told by the colour and the status line. The last cell stays a
		 * gap so neighbours read apart without colour. */
		const char *name = tree_name(p->t, s->node);
		size_t len = palette_base_len(name, tree_name_len(p->t, s->node));
		int lw = text_fit(name, len, w - 1, buf, bufsize);
		mvaddstr(y, s->col0, buf);
		for (int c = s->col0 + lw; c < s->col1 - 1; c++)
			addch(' ');
		attrset(A_NORMAL);
	}
}
