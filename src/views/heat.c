/* heat: FlameScope's sub-second offset heat map of the sample times as a
 * view (t). Columns are spans of time (a second unless the recording calls
 * for another step), rows the offset inside a column, a cell's shade the
 * samples taken then. A cursor moves over the cells; v marks the start of
 * a selection, Enter shows the flame graph of the samples from it to the
 * cursor (in time order), a the whole recording. The grid is built once
 * per screen size and thread choice, from the index's bins (O(cells));
 * drawing costs the cells. */
#include "config.h"
#include "browser.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "heatmap.h"
#include "search.h"
#include "text.h"
#include "xalloc.h"

/* Left of the cells: the row labels ("480 ms |"). */
#define HEAT_MARGIN 9
/* Rows in a column at most: FlameScope's 50 (20 ms in a second). */
#define HEAT_MAX_ROWS 50u

struct heat {
	struct view v;              /* first */
	struct heatmap hm;
	bool built;
	uint32_t want_cols, want_rows;      /* what hm was built for */
	unsigned threads_gen;       /* and u->threads_gen then */
	uint32_t col, row;          /* the cursor */
	bool marked;
	uint32_t mcol, mrow;        /* the selection's other end */
	/* The search's matches: per cell, the samples with a matching frame
	 * in their stack, counted for the pattern in hits_pat (NULL: none)
	 * on the grid of the same build. */
	uint32_t *hits;
	char *hits_pat;
	size_t hits_len;
	uint64_t hits_total;
};

static const char heat_shades[] = " .:-=+*#%@";
#define HEAT_LEVELS (sizeof heat_shades - 1)

/* The grid for the screen's size: columns of the width, rows of the
 * height less the title, the labels, the legend and the status lines. */
static void build(struct ui *u, struct heat *h)
{
	uint32_t cols = u->cols > HEAT_MARGIN + 2 ? (uint32_t)(u->cols - HEAT_MARGIN - 1) : 1;
	/* rows that cut a column into round spans (20 ms of a second at most) */
	static const uint32_t counts[] = { HEAT_MAX_ROWS, 40, 25, 20, 10, 5, 4, 2, 1 };
	uint32_t room = u->lines > 5 ? (uint32_t)(u->lines - 4) : 1, rows = 1;
	for (size_t k = 0; k < sizeof counts / sizeof counts[0] && rows == 1; k++)
		if (counts[k] <= room)
			rows = counts[k];
	if (h->built && cols == h->want_cols && rows == h->want_rows && h->threads_gen == u->threads_gen)
		return;
	if (h->built)
		heatmap_free(&h->hm);
	free(h->hits);          /* counted on the old grid */
	h->hits = NULL;
	heatmap_build_index(&h->hm, ui_timeindex(u), u->threads, cols, rows);
	h->built = true;
	h->want_cols = cols;
	h->want_rows = rows;
	h->threads_gen = u->threads_gen;
	if (h->hm.cols == 0) {
		h->col = h->row = 0;
		h->marked = false;
		return;
	}
	if (h->col >= h->hm.cols)
		h->col = h->hm.cols - 1;
	if (h->row >= h->hm.rows)
		h->row = h->hm.rows - 1;
	if (h->mcol >= h->hm.cols)
		h->mcol = h->hm.cols - 1;
	if (h->mrow >= h->hm.rows)
		h->mrow = h->hm.rows - 1;
}

/* The cells' samples whose stack holds a frame the shown search matches
 * (its pattern, or its exact name, tried on the tree the samples point
 * into): once per search and grid, O(names + nodes) and the index's lists
 * of the leaves in the matches (or of the others, whichever are fewer). */
static void count_hits(struct ui *u, struct heat *h)
{
	const struct search *s = u->find.shown;
	size_t elen = 0;
	const char *exact = s ? search_exact_name(s, &elen) : NULL;
	const char *key = s ? (exact ? exact : search_pattern(s)) : NULL;
	size_t klen = s ? (exact ? elen : strlen(key)) : 0;
	if (!s || h->hm.cols == 0) {
		free(h->hits);
		free(h->hits_pat);
		h->hits = NULL;
		h->hits_pat = NULL;
		return;
	}
	if (h->hits && h->hits_len == klen && memcmp(h->hits_pat, key, klen) == 0)
		return;
	free(h->hits);
	free(h->hits_pat);
	h->hits_pat = xmalloc(klen + 1);
	memcpy(h->hits_pat, key, klen);
	h->hits_len = klen;
	h->hits = xcalloc((size_t)h->hm.cols * h->hm.rows, sizeof *h->hits);
	h->hits_total = 0;
	const struct tree *t = u->tl_tree;
	ui_busy_times(u, "counting the search's samples...");
	char err[64];
	struct search *m = exact ? search_new_exact_bytes(t, exact, elen) : search_new(t, key, err, sizeof err);
	if (!m)
		return;
	search_run(m, 0);
	/* a node is in a match when it or an ancestor matches: preorder */
	bool *in = xcalloc(tree_size(t) + 1, sizeof *in);
	for (tree_idx i = 1; i < tree_size(t); i++)
		in[i] = search_matches(m, i) || in[tree_parent(t, i)];
	search_free(m);
	h->hits_total = heatmap_hits(&h->hm, ui_timeindex(u), u->tl, u->threads, in, tree_size(t), h->hits);
	free(in);
}

/* A time span as "1.5 s", "40 ms", "250 us". */
static void span_text(uint64_t ns, char *out, size_t size)
{
	if (ns >= 1000000000u)
		snprintf(out, size, "%g s", (double)ns / 1e9);
	else if (ns >= 1000000u)
		snprintf(out, size, "%g ms", (double)ns / 1e6);
	else
		snprintf(out, size, "%g us", (double)ns / 1e3);
}

/* Position of a cell in time order. */
static uint64_t order_of(const struct heat *h, uint32_t c, uint32_t r)
{
	return (uint64_t)c * h->hm.rows + r;
}

static bool in_selection(const struct heat *h, uint32_t c, uint32_t r)
{
	if (!h->marked)
		return false;
	uint64_t a = order_of(h, h->mcol, h->mrow), b = order_of(h, h->col, h->row), x = order_of(h, c, r);
	return a <= b ? a <= x && x <= b : b <= x && x <= a;
}

/* The selection (or the cursor's cell) as a time range. */
static void selection(const struct heat *h, uint64_t *t0, uint64_t *t1)
{
	if (h->marked)
		heatmap_range(&h->hm, h->mcol, h->mrow, h->col, h->row, t0, t1);
	else
		heatmap_range(&h->hm, h->col, h->row, h->col, h->row, t0, t1);
}

/* Background colours of the shades with colours: pale yellow to deep red
 * (FlameScope's ramp), level 0 the terminal's own. */
static int shade_pair(struct ui *u, unsigned level)
{
	if (level == 0 || u->col.depth == PALETTE_MONO || u->col.depth == PALETTE_8)
		return 0;
	unsigned k = level - 1, n = HEAT_LEVELS - 2;       /* 0..n */
	struct palette_rgb rgb = { 255, (uint8_t)(235 - 215 * k / n), (uint8_t)(170 - 170 * k / n) };
	if (k == n)
		rgb.r = 200;
	return colour_rgb_pair(u, rgb);
}

static void heat_draw(struct ui *u, struct view *v)
{
	struct heat *h = (struct heat *)v;
	build(u, h);
	count_hits(u, h);
	const struct heatmap *hm = &h->hm;
	char line[512], a[32], b[32], c[32];
	if (hm->cols == 0) {
		paint_text(u, 0, 0, "heat map: no samples on the chosen threads");
		paint_text(u, u->lines - 1, 0, "t or Backspace: back to the flame graph");
		return;
	}
	span_text(hm->span, a, sizeof a);
	span_text(hm->col_ns, b, sizeof b);
	span_text(hm->col_ns / hm->rows, c, sizeof c);
	int tl = snprintf(line, sizeof line, "heat map: %" PRIu64 " sample%s over %s; a column is %s, a row %s",
	                  hm->samples, hm->samples == 1 ? "" : "s", a, b, c);
	if (h->hits && tl > 0 && (size_t)tl < sizeof line)
		snprintf(line + tl, sizeof line - (size_t)tl, "%ssearch: %" PRIu64 " underlined",
		         paint_sep(), h->hits_total);
	attron(A_BOLD);
	paint_text(u, 0, 0, line);
	attroff(A_BOLD);
	/* column labels: the start of every 10th column where it fits */
	for (uint32_t col = 0; col < hm->cols; col += 10) {
		char lab[32];
		if (col == 0)
			snprintf(lab, sizeof lab, "0");
		else
			span_text(col * hm->col_ns, lab, sizeof lab);
		if (col + strlen(lab) <= hm->cols)
			paint_text(u, 1, HEAT_MARGIN + (int)col, lab);
	}
	bool glyphs = u->col.depth == PALETTE_MONO || u->col.depth == PALETTE_8;
	for (uint32_t r = 0; r < hm->rows; r++) {
		int y = 2 + (int)r;
		char lab[32];
		if (r % 5 == 0) {
			if (r == 0)
				snprintf(lab, sizeof lab, "0");
			else
				span_text(r * (hm->col_ns / hm->rows), lab, sizeof lab);
			snprintf(line, sizeof line, "%*s |", HEAT_MARGIN - 2, lab);
		} else
			snprintf(line, sizeof line, "%*s |", HEAT_MARGIN - 2, "");
		paint_text(u, y, 0, line);
		for (uint32_t col = 0; col < hm->cols; col++) {
			unsigned lv = heatmap_level(hm, heatmap_cell(hm, col, r), HEAT_LEVELS);
			bool cur = col == h->col && r == h->row, sel = in_selection(h, col, r);
			bool hit = h->hits && h->hits[(size_t)col * hm->rows + r];
			attr_t at = cur ? A_REVERSE | A_BOLD : sel ? A_REVERSE : A_NORMAL;
			int pair = glyphs ? 0 : shade_pair(u, lv);
			if (hit) {
				at |= u->col.match_attr;
				if (u->col.match_pair && !glyphs)
					pair = u->col.match_pair;
			}
			colour_set(at, pair);
			char ch = glyphs || cur ? heat_shades[lv] : ' ';
			if (cur && ch == ' ')
				ch = '+';
			mvaddch(y, HEAT_MARGIN + (int)col, (chtype)(unsigned char)ch);
		}
		colour_set(A_NORMAL, 0);
		mvaddch(y, HEAT_MARGIN + (int)hm->cols, '|');
	}
	/* the legend: a shade per range of counts */
	int x = 0, y = u->lines - 2;
	paint_piece(u, y, &x, u->cols, "samples a cell:", A_DIM, 0);
	for (unsigned l = 1; l < HEAT_LEVELS; l++) {
		uint64_t lo = (uint64_t)(l - 1) * hm->max / (HEAT_LEVELS - 1) + 1;
		uint64_t hi = (uint64_t)l * hm->max / (HEAT_LEVELS - 1);
		if (lo > hm->max || lo > hi)
			continue;
		char sw[2] = { glyphs ? heat_shades[l] : ' ', '\0' }, n[48];
		paint_piece(u, y, &x, u->cols, " ", A_NORMAL, 0);
		paint_piece(u, y, &x, u->cols, sw, A_NORMAL, glyphs ? 0 : shade_pair(u, l));
		if (lo == hi)
			snprintf(n, sizeof n, " %" PRIu64, lo);
		else
			snprintf(n, sizeof n, " %" PRIu64 "-%" PRIu64, lo, hi > hm->max ? hm->max : hi);
		paint_piece(u, y, &x, u->cols, n, A_NORMAL, 0);
	}
	if (paint_notice(u))
		return;
	/* the status: the cursor's cell, the selection */
	uint64_t t0, t1, n = 0;
	heatmap_range(hm, h->col, h->row, h->col, h->row, &t0, &t1);
	char at[32], len[32];
	snprintf(at, sizeof at, "%.3f s", (double)(t0 - hm->t0) / 1e9);
	int k = snprintf(line, sizeof line, "%s: %" PRIu32 " sample%s", at, heatmap_cell(hm, h->col, h->row),
	                 heatmap_cell(hm, h->col, h->row) == 1 ? "" : "s");
	if (h->hits && k > 0 && (size_t)k < sizeof line)
		k += snprintf(line + k, sizeof line - (size_t)k, ", %" PRIu32 " in the search's frames",
		              h->hits[(size_t)h->col * hm->rows + h->row]);
	if (h->marked && k > 0 && (size_t)k < sizeof line) {
		for (uint32_t col = 0; col < hm->cols; col++)
			for (uint32_t r = 0; r < hm->rows; r++)
				if (in_selection(h, col, r))
					n += heatmap_cell(hm, col, r);
		selection(h, &t0, &t1);
		span_text(t1 - t0, len, sizeof len);
		snprintf(line + k, sizeof line - (size_t)k, "%sselected %.3f-%.3f s (%s): %" PRIu64 " samples%sEnter shows them",
		         paint_sep(), (double)(t0 - hm->t0) / 1e9, (double)(t1 - hm->t0) / 1e9, len, n, paint_sep());
	} else if (k > 0 && (size_t)k < sizeof line)
		snprintf(line + k, sizeof line - (size_t)k, "%sv starts a selection, Enter shows the cell", paint_sep());
	paint_text(u, u->lines - 1, 0, line);
}

static bool heat_key(struct ui *u, struct view *v, enum keymap_action act, int ch)
{
	(void)ch;
	struct heat *h = (struct heat *)v;
	build(u, h);
	const struct heatmap *hm = &h->hm;
	if (hm->cols == 0 && act != KEYMAP_BACK)
		return act != KEYMAP_NONE;
	uint32_t last = hm->cols ? hm->cols - 1 : 0;
	uint64_t t0, t1;
	switch (act) {
	case KEYMAP_LEFT: h->col = h->col > 0 ? h->col - 1 : 0; break;
	case KEYMAP_RIGHT: h->col = h->col < last ? h->col + 1 : last; break;
	case KEYMAP_UP: h->row = h->row > 0 ? h->row - 1 : 0; break;
	case KEYMAP_DOWN: h->row = h->row + 1 < hm->rows ? h->row + 1 : h->row; break;
	case KEYMAP_PAGE_UP: h->col = h->col > 10 ? h->col - 10 : 0; break;
	case KEYMAP_PAGE_DOWN: h->col = h->col + 10 < last ? h->col + 10 : last; break;
	case KEYMAP_FIRST: h->col = 0; break;
	case KEYMAP_LAST: h->col = last; break;
	case KEYMAP_MARK:
		h->marked = !h->marked;
		h->mcol = h->col;
		h->mrow = h->row;
		break;
	case KEYMAP_SHOW:
		selection(h, &t0, &t1);
		if (ui_set_range(u, t0, t1, false))
			ui_pop(u);
		break;
	case KEYMAP_RANGE_ALL:
		h->marked = false;
		if (ui_set_range(u, 0, UINT64_MAX, true))
			ui_pop(u);
		break;
	case KEYMAP_BACK: ui_pop(u); break;
	default: return false;
	}
	return true;
}

static const struct view_ops heat_ops = {
	.name = "heatmap",
	.keys = KEYMAP_HEAT_VIEW,
	.fallback = true,
	.draw = heat_draw,
	.key = heat_key,
};

struct view *heat_new(void)
{
	struct heat *h = xcalloc(1, sizeof *h);
	h->v.ops = &heat_ops;
	return &h->v;
}

void heat_free(struct view *v)
{
	struct heat *h = (struct heat *)v;
	if (!h)
		return;
	if (h->built)
		heatmap_free(&h->hm);
	free(h->hits);
	free(h->hits_pat);
	free(h);
}

void heat_open(struct ui *u)
{
	if (!ui_has_times(u, "sample times"))
		return;
	ui_push(u, u->heat);
}
