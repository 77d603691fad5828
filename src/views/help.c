/* help: every key of every view's table (keymap.h), then what the colours
 * mean, as rows that scroll when they do not fit between the title and
 * the footer; a key that does not scroll closes it. */
#include "config.h"
#include "browser.h"

#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "xalloc.h"

struct help {
	struct view v;              /* first */
	int top, rows;              /* first row shown, rows in all (at the last draw) */
};

/* Screen row of row vy of the help text, or -1 when it is scrolled out of
 * the area between the title (row 0) and the footer (the last row). */
static int row_of(const struct ui *u, const struct help *h, int vy)
{
	int y = 1 + vy - h->top;
	return y >= 1 && y < u->lines - 1 ? y : -1;
}

/* The colours part, from help row y on; returns the next row. */
static int draw_colours(struct ui *u, const struct help *h, int y, int keyw)
{
	const struct palette *p = u->col.pal;
	const struct palette_rules *rules = u->col.rules;
	struct palette_rgb none = { 0, 0, 0 };
	int x;
	char line[256];
	snprintf(line, sizeof line, "colours: %s, %s", p->name, p->desc);
	x = 0;
	paint_piece(u, row_of(u, h, y++), &x, u->cols, line, A_BOLD, 0);
	for (size_t k = 0; k < p->nlegend; k++, y++) {
		x = 2;
		paint_swatch(u, row_of(u, h, y), &x, u->cols, p->legend[k].hue, none);
		x = 2 + keyw;
		paint_piece(u, row_of(u, h, y), &x, u->cols, p->legend[k].meaning, A_NORMAL, 0);
	}
	for (size_t k = 0; k < palette_rules_count(rules); k++, y++) {
		const char *src = palette_rules_regex(rules, k);
		struct palette_spec sp = palette_rules_spec(rules, k);
		char re[128];
		text_sanitize(src, strlen(src), re, sizeof re);
		snprintf(line, sizeof line, "names matching %s (--color-rule)", re);
		x = 2;
		paint_swatch(u, row_of(u, h, y), &x, u->cols, sp.hue, sp.rgb);
		x = 2 + keyw;
		paint_piece(u, row_of(u, h, y), &x, u->cols, line, A_NORMAL, 0);
	}
	size_t nm = palette_rules_map_count(rules);
	if (nm) {
		snprintf(line, sizeof line, "%zu name%s with a colour of their own (--palette-map)", nm, nm == 1 ? "" : "s");
		x = 2 + keyw;
		paint_piece(u, row_of(u, h, y++), &x, u->cols, line, A_NORMAL, 0);
	}
	x = 2 + keyw;
	paint_piece(u, row_of(u, h, y++), &x, u->cols,
	            "the status line names a frame's type: [kernel] [jit] [inlined] [waker]", A_DIM, 0);
	return y;
}

/* text from column x of help row y on, wrapped at the screen's width into
 * the rows below, at the same column; returns the last row used. */
static int wrap(struct ui *u, const struct help *h, int y, int x, const char *text)
{
	const char *s = text;
	size_t len = strlen(s);
	int room = u->cols - x;
	if (room < 8) {         /* too narrow to wrap into: cut */
		paint_text(u, row_of(u, h, y), x, text);
		return y;
	}
	for (;;) {
		size_t used = len;
		if (text_width(s, len) > room) {
			/* break after the last blank that fits, else mid-word */
			text_fit_head(s, len, room, u->buf, u->bufsize, &used);
			size_t b = used;
			while (b > 0 && s[b - 1] != ' ' && s[b] != ' ')
				b--;
			if (b > 0)
				used = b;
			if (used == 0)
				break;
		}
		char *line = xmalloc(used + 1);
		memcpy(line, s, used);
		line[used] = '\0';
		paint_text(u, row_of(u, h, y), x, line);
		free(line);
		s += used;
		len -= used;
		while (len > 0 && *s == ' ') {
			s++;
			len--;
		}
		if (len == 0)
			break;
		y++;
	}
	return y;
}

static void help_draw(struct ui *u, struct view *v)
{
	struct help *h = (struct help *)v;
	char keys[128];
	int keyw = 0;
	for (size_t m = 0; m < KEYMAP_COUNT; m++)
		for (size_t k = 0; k < keymaps[m].n; k++) {
			int w = (int)keymap_keys_text(&keymaps[m].e[k], keys, sizeof keys);
			if (w > keyw)
				keyw = w;
		}
	keyw += 2;
	if (keyw > u->cols / 2)
		keyw = u->cols / 2;
	attron(A_BOLD);
	paint_text(u, 0, 0, "tflame keys");
	attroff(A_BOLD);
	int y = 0;
	for (size_t m = 0; m < KEYMAP_COUNT; m++) {
		if (m > 0)
			y++;
		paint_text(u, row_of(u, h, y++), 0, keymaps[m].title);
		for (size_t k = 0; k < keymaps[m].n; k++, y++) {
			const struct keymap_entry *e = &keymaps[m].e[k];
			keymap_keys_text(e, keys, sizeof keys);
			int ky = row_of(u, h, y);
			if (ky >= 0) {      /* cut to its column when narrow */
				text_fit(keys, strlen(keys), keyw - 1, u->buf, u->bufsize);
				attron(A_BOLD);
				mvaddstr(ky, 2, u->buf);
				attroff(A_BOLD);
			}
			y = wrap(u, h, y, 2 + keyw, e->desc);
		}
	}
	h->rows = draw_colours(u, h, y + 1, keyw);
	int body = u->lines - 2;
	char foot[128];
	if (h->rows > body) {
		int last = h->top + body < h->rows ? h->top + body : h->rows;
		snprintf(foot, sizeof foot, "lines %d-%d of %d%s  j/k Space/b g/G scroll, other keys close",
		         h->top + 1, last, h->rows, last == h->rows ? " (end)" : "");
	} else {
		snprintf(foot, sizeof foot, "press any key to close this help");
	}
	attron(A_DIM);
	paint_text(u, u->lines - 1, 0, foot);
	attroff(A_DIM);
}

static bool help_key(struct ui *u, struct view *v, enum keymap_action act, int ch)
{
	(void)ch;
	struct help *h = (struct help *)v;
	int body = u->lines - 2, last = h->rows > body ? h->rows - body : 0;
	int top = h->top;
	switch (act) {
	case KEYMAP_DOWN: top++; break;
	case KEYMAP_UP: top--; break;
	case KEYMAP_PAGE_DOWN: top += body > 1 ? body - 1 : 1; break;
	case KEYMAP_PAGE_UP: top -= body > 1 ? body - 1 : 1; break;
	case KEYMAP_FIRST: top = 0; break;
	case KEYMAP_LAST: top = last; break;
	default:
		ui_pop(u);
		return true;
	}
	h->top = top < 0 ? 0 : top > last ? last : top;
	return true;
}

static const struct view_ops help_ops = {
	.name = "help",
	.keys = KEYMAP_HELP_VIEW,
	.fallback = false,
	.draw = help_draw,
	.key = help_key,
};

struct view *help_new(void)
{
	struct help *h = xcalloc(1, sizeof *h);
	h->v.ops = &help_ops;
	return &h->v;
}

void help_free(struct view *v)
{
	free(v);
}

void help_open(struct ui *u)
{
	((struct help *)u->help)->top = 0;
	ui_push(u, u->help);
}
