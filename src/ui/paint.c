/* paint: drawing helpers the views share: text cut to the screen, pieces
 * and swatches, the transform labels, the prompt's line, numbers. */
#include "config.h"
#include "browser.h"

#include <stdlib.h>
#include <string.h>

#include "text.h"

void paint_text(struct ui *u, int y, int x, const char *s)
{
	if (y < 0 || y >= u->lines || x < 0 || x >= u->cols)
		return;
	int room = u->cols - x - (y == u->lines - 1 ? 1 : 0);
	if (room <= 0)
		return;
	text_fit(s, strlen(s), room, u->buf, u->bufsize);
	mvaddstr(y, x, u->buf);
}

bool paint_piece(struct ui *u, int y, int *x, int end, const char *s, attr_t a, int pair)
{
	int room = end - *x;
	if (room <= 0)
		return false;
	size_t len = strlen(s);
	int w = text_fit(s, len, room, u->buf, u->bufsize);
	colour_set(a, pair);
	mvaddstr(y, *x, u->buf);
	colour_set(A_NORMAL, 0);
	*x += w;
	return w == text_width(s, len);
}

bool paint_swatch(struct ui *u, int y, int *x, int end, enum palette_hue h, struct palette_rgb flat)
{
	if (u->col.depth == PALETTE_MONO) {
		char name[24];
		snprintf(name, sizeof name, "%s:", h == PALETTE_HUE_FLAT ? "own" : palette_hue_name(h));
		return paint_piece(u, y, x, end, name, A_DIM, 0);
	}
	return paint_piece(u, y, x, end, "  ", A_NORMAL, colour_hue_pair(u, h, flat));
}

bool paint_notice(struct ui *u)
{
	if (!u->notice[0])
		return false;
	attron(A_BOLD);
	paint_text(u, u->lines - 1, 0, u->notice);
	attroff(A_BOLD);
	return true;
}

/* Each label is cut to a third of the line, and the labels stop at half. */
int paint_transforms(struct ui *u)
{
	int x = 0;
	char label[256];
	if ((u->range_set || u->chart) && u->tl) {
		/* a flame chart, the time range browsed (seconds from the first
		 * sample) */
		int n = snprintf(label, sizeof label, "[%s", !u->chart ? "" : u->nwins ? "chart: a frame's span" : "chart");
		if (u->nwins > 1 && n > 0 && (size_t)n < sizeof label)
			n += snprintf(label + n, sizeof label - (size_t)n, " (%zu deep)", u->nwins);
		if (u->range_set && n > 0 && (size_t)n < sizeof label) {
			double a = (double)(u->range_t0 > u->tl->tmin ? u->range_t0 - u->tl->tmin : 0) / 1e9;
			double b = u->range_t1 > u->tl->tmax ? (double)(u->tl->tmax - u->tl->tmin) / 1e9
			           : (double)(u->range_t1 > u->tl->tmin ? u->range_t1 - u->tl->tmin : 0) / 1e9;
			n += snprintf(label + n, sizeof label - (size_t)n, "%s%.3f-%.3f s", u->chart ? " " : "", a, b);
		}
		if (n > 0 && (size_t)n + 3 < sizeof label)
			memcpy(label + n, "] ", 3);
		attron(A_REVERSE);
		paint_text(u, 0, 0, label);
		attroff(A_REVERSE);
		x = text_width(label, strlen(label));
		if (x > u->cols / 2)
			x = u->cols / 2;
	}
	for (size_t k = 0; k < u->views->n && x < u->cols / 2; k++) {
		transform_label(&u->views->items[k], label, sizeof label);
		int room = u->cols / 3;
		if (x + room + 3 > u->cols / 2 + u->cols / 3)
			room = u->cols / 2 + u->cols / 3 - x - 3;
		if (room < 3)
			break;
		attron(A_REVERSE);
		mvaddstr(0, x, "[");
		int w = text_fit(label, strlen(label), room, u->buf, u->bufsize);
		addstr(u->buf);
		addstr("]");
		attroff(A_REVERSE);
		addstr(" ");
		x += w + 3;
	}
	return x;
}

int paint_edit_line(struct ui *u, const struct lineedit *e, bool bold, int room, int *end)
{
	int y = u->lines - 1, lw = text_width(e->label, strlen(e->label));
	move(y, 0);
	clrtoeol();
	if (bold)
		attron(A_BOLD);
	paint_text(u, y, 0, e->label);
	if (bold)
		attroff(A_BOLD);
	room -= lw;
	if (room < 1) {
		*end = lw;
		return lw;
	}
	/* Start the text late enough that the cursor fits in room. */
	size_t start = 0;
	while (start < e->cur && text_width(e->text + start, e->cur - start) >= room)
		start = lineedit_char_after(e->text, e->len, start);
	int cx = lw + text_width(e->text + start, e->cur - start);
	int w = text_fit(e->text + start, e->len - start, room, u->buf, u->bufsize);
	mvaddstr(y, lw, u->buf);
	*end = lw + w;
	return cx;
}

void paint_percent(double part, double whole, char *out, size_t size)
{
	if (whole > 0)
		snprintf(out, size, "%.2f%%", 100.0 * part / whole);
	else
		snprintf(out, size, "-");
}

void paint_amount(const struct ui *u, const struct tree *t, tree_idx i, char *out, size_t size)
{
	paint_count(u, t, tree_node(t, i)->total, out, size);
}

void paint_count(const struct ui *u, const struct tree *t, tree_count c, char *out, size_t size)
{
	if (u->unit && u->unit->event[0]) {
		unit_amount(u->unit, tree_count_d(t, c), out, size);
		return;
	}
	char count[64], grouped[96];
	tree_format_count(t, c, count, sizeof count);
	unit_group(count, grouped, sizeof grouped);
	snprintf(out, size, "%s sample%s", grouped, strcmp(count, "1") ? "s" : "");
}

const char *paint_name(const struct ui *u, tree_idx i, size_t *len)
{
	const char *s = tree_name(u->t, i);
	*len = palette_base_len(s, tree_name_len(u->t, i));
	return s;
}

/* Of the whole name, less its annotation (4 ASCII columns). */
int paint_name_width(const struct ui *u, tree_idx i)
{
	const struct strtab *st = &u->t->names;
	strtab_id id = tree_node(u->t, i)->name;
	int32_t w = strtab_width(st, id);
	if (w < 0) {
		w = text_width(strtab_str(st, id), strtab_len(st, id));
		strtab_set_width(st, id, w);
	}
	if (palette_type_of(strtab_str(st, id), strtab_len(st, id)) != PALETTE_TYPE_NONE && w >= 4)
		w -= 4;
	return w;
}

const char *paint_sep(void)
{
	return text_is_utf8() ? "  \u00b7  " : "  |  ";
}
