/* colour: the browser's colours: curses pairs handed out on demand, each
 * name's colour computed once per palette, the fixed pairs of ancestors
 * and search matches. */
#include "config.h"
#include "browser.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* At most this many pairs for frames: plenty for one screen of 24-bit
 * colours, and a bounded pair table in curses. */
#define UI_MAX_PAIRS 4096
#define UI_LOOK_SET 0x80000000u

static int init_pair_any(int pair, int fg, int bg)
{
#ifdef HAVE_INIT_EXTENDED_PAIR
	return init_extended_pair(pair, fg, bg);
#else
	return init_pair((short)pair, (short)fg, (short)bg);
#endif
}

void colour_set(attr_t a, int pair)
{
#ifdef HAVE_INIT_EXTENDED_PAIR
	attr_set(a & ~A_COLOR, 0, &pair);
#else
	attrset((a & ~A_COLOR) | COLOR_PAIR(pair));
#endif
}

/* Black text on a background of terminal colour `colour`, or with `blank`
 * the terminal's own text colour (for cells without text); 0 (the
 * terminal's own colours) when no pair is left.
 *
 * Why blank pairs: curses sends both colours at every change of pair, each
 * a terminfo string formatted by tparm (~0.5 us here), unless the text
 * colour is the terminal's own, when only the background goes out. Most
 * frames of a busy screen are one blank cell each, side by side, so a
 * full repaint formats half as many sequences and sends a fifth fewer
 * bytes. */
static int pair_for(struct ui_colours *c, int colour, bool blank)
{
	if (colour <= 0 || c->npairs == 0)
		return 0;
	int key = colour << 1 | blank;
	size_t mask = c->npairs - 1, k = ((uint32_t)key * 2654435761u) & mask;
	for (; c->pairs[k].key; k = (k + 1) & mask)
		if (c->pairs[k].key == key)
			return c->pairs[k].pair;
	if (c->pairs_used >= c->pair_limit)
		return 0;
	int pair = UI_PAIR_FIRST + c->pairs_used;
	if (init_pair_any(pair, blank && c->own ? -1 : COLOR_BLACK, colour) == ERR)
		return 0;
	c->pairs[k].key = key;
	c->pairs[k].pair = pair;
	c->pairs_used++;
	return pair;
}

/* When this screen's spans might not all find a pair, every pair is taken
 * back (curses repaints cells whose pair changes). */
void colour_begin(struct ui *u, size_t spans)
{
	struct ui_colours *c = &u->col;
	if (c->npairs == 0 || (size_t)c->pairs_used + spans + 16 <= (size_t)c->pair_limit)
		return;
	memset(c->pairs, 0, c->npairs * sizeof *c->pairs);
	c->pairs_used = 0;
}

static int term_colour(const struct ui_colours *c, struct palette_look l)
{
	switch (c->depth) {
	case PALETTE_DIRECT: return palette_to_direct(l.rgb);
	case PALETTE_256: return palette_to_256(l);
	case PALETTE_8: return palette_to_8(l);
	case PALETTE_MONO: break;
	}
	return 0;
}

static int rgb_colour(const struct ui_colours *c, int xterm)
{
	if (c->depth == PALETTE_DIRECT)
		return palette_to_direct(palette_xterm_rgb(xterm));
	return xterm;
}

/* Search matches: black on magenta as in flamegraph.pl's search (no hue
 * of the hot palette), cyan with 8 colours (hot uses red, yellow,
 * magenta); bold and underline carry it without colour. A pair of their
 * own, which colour_begin never takes back. */
static void match_colours(struct ui_colours *c)
{
	c->match_attr = A_BOLD | A_UNDERLINE;
	c->match_pair = 0;
	if (c->depth == PALETTE_MONO)
		return;
	int bg = c->depth == PALETTE_8 ? COLOR_CYAN : rgb_colour(c, 201);
	if (init_pair_any(UI_PAIR_MATCH, COLOR_BLACK, bg) != ERR)
		c->match_pair = UI_PAIR_MATCH;
}

void colour_init(struct ui *u, const struct ui_options *o)
{
	struct ui_colours *c = &u->col;
	const char *no_color = getenv("NO_COLOR");
	c->pal = o->palette ? o->palette : palette_list[0];
	c->rules = o->rules;
	/* terminfo's count decides before start_color(), which NO_COLOR or a
	 * colourless terminal must never reach. */
	c->depth = palette_depth_for(has_colors() ? tigetnum("colors") : 0, no_color);
	if (c->depth != PALETTE_MONO) {
		start_color();
		/* the gap cells keep the terminal's background */
		c->own = use_default_colors() == OK;
		c->depth = palette_depth_for(COLORS, no_color);
	}
	c->ancestor_attr = A_DIM;
	match_colours(c);
	if (c->depth == PALETTE_MONO)
		return;
	int fg = COLOR_BLACK, bg = COLOR_WHITE;
	if (c->depth != PALETTE_8) {
		fg = rgb_colour(c, 238);
		bg = rgb_colour(c, 250);
	}
	if (init_pair_any(UI_PAIR_ANCESTOR, fg, bg) != ERR)
		c->ancestor_pair = UI_PAIR_ANCESTOR;
	/* The terminal's own colours as a pair of their own, in the
	 * background of every blank cell and plain text: leaving a frame for
	 * a gap is then one colour reset, where leaving for pair 0 also turns
	 * every attribute off (sgr0). */
	if (init_pair_any(UI_PAIR_PLAIN, -1, -1) != ERR)
		bkgdset(COLOR_PAIR(UI_PAIR_PLAIN) | ' ');
	c->pair_limit = COLOR_PAIRS - UI_PAIR_FIRST;
#ifndef HAVE_INIT_EXTENDED_PAIR
	if (c->pair_limit > 256 - UI_PAIR_FIRST)
		c->pair_limit = 256 - UI_PAIR_FIRST;
#endif
	if (c->pair_limit > UI_MAX_PAIRS)
		c->pair_limit = UI_MAX_PAIRS;
	if (c->pair_limit <= 0)
		return;
	for (c->npairs = 16; c->npairs <= 2 * (size_t)c->pair_limit; c->npairs *= 2)
		;
	c->pairs = xcalloc(c->npairs, sizeof *c->pairs);
}

void colour_free(struct ui *u)
{
	free(u->col.looks);
	free(u->col.pairs);
	u->col.looks = NULL;
	u->col.pairs = NULL;
}

void colour_forget(struct ui *u)
{
	free(u->col.looks);     /* by name id, and ids are the tree's own */
	u->col.looks = NULL;
	u->col.nlooks = 0;
}

/* The frame's colour, computed once per name and palette. */
static struct palette_look frame_look(struct ui *u, tree_idx i)
{
	struct ui_colours *c = &u->col;
	const struct strtab *st = &u->t->names;
	strtab_id id = tree_node(u->t, i)->name;
	if (!c->looks) {
		c->nlooks = strtab_count(st);
		c->looks = xcalloc(c->nlooks ? c->nlooks : 1, sizeof *c->looks);
	}
	uint32_t v = (uint32_t)c->looks[id];
	struct palette_look l;
	if (v & UI_LOOK_SET) {
		l.hue = (enum palette_hue)(v >> 24 & 0x7f);
		l.rgb.r = (uint8_t)(v >> 16);
		l.rgb.g = (uint8_t)(v >> 8);
		l.rgb.b = (uint8_t)v;
		return l;
	}
	l = palette_look(c->pal, c->rules, strtab_str(st, id), strtab_len(st, id));
	c->looks[id] = UI_LOOK_SET | (uint32_t)l.hue << 24 | (uint32_t)l.rgb.r << 16 |
	               (uint32_t)l.rgb.g << 8 | l.rgb.b;
	return l;
}

attr_t colour_frame(struct ui *u, tree_idx i, bool blank, int *pair)
{
	struct ui_colours *c = &u->col;
	*pair = 0;
	if (c->depth == PALETTE_MONO)
		return A_NORMAL;
	if (u->diffmode) {
		struct palette_look l = { PALETTE_HUE_FLAT, diff_color(&u->diff, u->t, i) };
		/* 8 colours: red, blue or white only, so the sign still shows. */
		int colour = c->depth != PALETTE_8 ? term_colour(c, l)
		             : l.rgb.r > l.rgb.b ? COLOR_RED : l.rgb.b > l.rgb.r ? COLOR_BLUE : COLOR_WHITE;
		*pair = pair_for(c, colour, blank);
		return A_NORMAL;
	}
	/* The nearest terminal colour, once per name too. */
	strtab_id id = tree_node(u->t, i)->name;
	struct palette_look l = frame_look(u, i);
	uint32_t tc = (uint32_t)(c->looks[id] >> 32);
	if (!tc) {
		tc = (uint32_t)term_colour(c, l) + 1;
		c->looks[id] = (uint64_t)tc << 32 | (uint32_t)c->looks[id];
	}
	*pair = pair_for(c, (int)tc - 1, blank);
	return A_NORMAL;
}

int colour_name_pair(struct ui *u, const char *name, size_t len)
{
	struct ui_colours *c = &u->col;
	if (c->depth == PALETTE_MONO)
		return 0;
	return pair_for(c, term_colour(c, palette_look(c->pal, c->rules, name, len)), false);
}

int colour_rgb_pair(struct ui *u, struct palette_rgb rgb)
{
	struct ui_colours *c = &u->col;
	struct palette_look l = { PALETTE_HUE_FLAT, rgb };
	return c->depth == PALETTE_MONO ? 0 : pair_for(c, term_colour(c, l), false);
}

int colour_hue_pair(struct ui *u, enum palette_hue h, struct palette_rgb flat)
{
	struct ui_colours *c = &u->col;
	struct palette_look l = { h, flat };
	if (h != PALETTE_HUE_FLAT)
		l.rgb = palette_hue_rgb(h, 0x800080008000u);
	return c->depth == PALETTE_MONO ? 0 : pair_for(c, term_colour(c, l), false);
}

/* Every name's colour is computed again (the cache is cleared: O(names)
 * once per key, a memset). */
void colour_cycle(struct ui *u)
{
	struct ui_colours *c = &u->col;
	c->pal = palette_next(c->pal);
	if (c->looks)
		memset(c->looks, 0, c->nlooks * sizeof *c->looks);
	snprintf(u->notice, sizeof u->notice, "palette %s: %s", c->pal->name, c->pal->desc);
}
