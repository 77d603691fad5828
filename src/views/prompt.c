/* prompt: the one-line editor on the bottom row, over the view that opened
 * it (the search's /, H, the table's filter). Its keys are the prompt's
 * key table; any other key types. What the line is for comes as
 * callbacks (struct prompt_ops). */
#include "config.h"
#include "browser.h"

#include <stdlib.h>

#include "xalloc.h"

struct prompt {
	struct view v;              /* first */
	struct lineedit e;
	const struct prompt_ops *ops;
};

/* The view under it, then the line over its bottom row. */
static void prompt_draw(struct ui *u, struct view *v)
{
	struct prompt *p = (struct prompt *)v;
	struct view *below = ui_below(u, v);
	if (below)
		below->ops->draw(u, below);
	int room = u->cols - (p->ops->narrow ? 2 : 1), end;
	if (room < 1)
		return;
	int cx = paint_edit_line(u, &p->e, p->ops->bold, room, &end);
	if (p->ops->info) {
		char info[192];
		bool bold;
		p->ops->info(u, &p->e, info, sizeof info, &bold);
		if (info[0]) {
			attron(bold ? A_BOLD : A_DIM);
			paint_text(u, u->lines - 1, end + 2, info);
			attroff(bold ? A_BOLD : A_DIM);
		}
	}
	move(u->lines - 1, cx < room + 1 ? cx : room);
}

static bool prompt_key(struct ui *u, struct view *v, enum keymap_action act, int ch)
{
	(void)act;              /* lineedit looks the key up itself */
	struct prompt *p = (struct prompt *)v;
	if (ch == KEY_MOUSE)
		return true;        /* drained by the loop */
	switch (lineedit_key(&p->e, ch)) {
	case LINEEDIT_ACCEPT:
		ui_pop(u);
		p->ops->accept(u, &p->e);
		break;
	case LINEEDIT_CANCEL:
		ui_pop(u);
		p->ops->cancel(u, &p->e);
		break;
	case LINEEDIT_CHANGED:
		if (p->ops->changed)
			p->ops->changed(u, &p->e);
		break;
	case LINEEDIT_NONE: break;
	}
	if (u->prompt != u->stack[u->nviews - 1]) {
		free(p->e.draft);   /* closed: the history browsing ends */
		p->e.draft = NULL;
	}
	return true;
}

static const struct view_ops prompt_ops_view = {
	.name = "prompt",
	.keys = KEYMAP_PROMPT,
	.fallback = false,
	.cursor = true,
	.draw = prompt_draw,
	.key = prompt_key,
};

struct view *prompt_new(void)
{
	struct prompt *p = xcalloc(1, sizeof *p);
	p->v.ops = &prompt_ops_view;
	return &p->v;
}

void prompt_free(struct view *v)
{
	struct prompt *p = (struct prompt *)v;
	if (!p)
		return;
	lineedit_free(&p->e);
	free(p);
}

void prompt_open(struct ui *u, const char *label, struct lineedit_history *h, const struct prompt_ops *ops)
{
	struct prompt *p = (struct prompt *)u->prompt;
	lineedit_start(&p->e, label, h, 0);
	p->ops = ops;
	ui_push(u, &p->v);
}
