/* ui: the interactive browser.
 *
 * One struct ui holds the whole state; every event goes through
 * handle_key(), which switches on the mode and, in normal mode, maps the key
 * to an action (keymap.c) for dispatch(). After an event the layout is
 * recomputed and the screen redrawn from it: the work per event is
 * proportional to the spans on screen, never to the profile. */
#include "config.h"
#include "ui.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>
#if defined(HAVE_NCURSESW_CURSES_H)
#include <ncursesw/curses.h>
#else
#include <curses.h>
#endif

#include "clip.h"
#include "diff.h"
#include "keymap.h"
#include "palette.h"
#include "lineedit.h"
#include "sandwichview.h"
#include "tableview.h"
#include "searchidx.h"
#include "search.h"
#include "text.h"
#include "transform.h"
#include "views.h"
#include "xalloc.h"

/* Below this the graph is replaced by "terminal too small". */
#define UI_MIN_COLS 20
#define UI_MIN_LINES 5
/* getch() wakes up this often (ms) without input. A signal that lands
 * between the loop's check and the blocking read (SIGWINCH while drawing,
 * SIGTERM) would otherwise wait for the next key; on a timeout curses looks
 * at its resize flag and we at ours. Nothing is redrawn on a timeout. */
#define UI_POLL_MS 500
/* Early getch() errors in a row taken as a lost terminal (EOF, EIO). */
#define UI_MAX_ERRORS 100
/* A search pass runs in slices of this length between keys, so typing
 * never waits for a whole pass on a big profile (about one frame). The
 * slice run by the key itself is shorter: the typed character shows at
 * once, and a small profile's pass still fits in it. While a pass goes on,
 * its progress is redrawn this often, not after every slice (a redraw
 * costs about as much as a slice). */
#define UI_SEARCH_SLICE_NS (12u * 1000u * 1000u)
#define UI_SEARCH_FIRST_NS (4u * 1000u * 1000u)
#define UI_PROGRESS_MS 100
/* Searches remembered for Up/Down in the prompt. */
/* Layouts of earlier views kept for going back (a few spans' worth each). */
#define UI_OLD_LAYOUTS 4

/* A layout, the parameters it was made for, and the tree generation it was
 * made of (0: none). */
struct ui_laid {
	struct layout lay;
	struct layout_params lp;
	unsigned gen;
};
/* Colour pairs: 1 the ancestor rows, 2 search matches, 3 the terminal's
 * own colours (blank cells, plain text), 4.. the frames. */
#define UI_PAIR_ANCESTOR 1
#define UI_PAIR_MATCH 2
#define UI_PAIR_PLAIN 3
#define UI_PAIR_FIRST 4
/* At most this many pairs for frames: plenty for one screen of 24-bit
 * colours, and a bounded pair table in curses. */
#define UI_MAX_PAIRS 4096

/* What the input line (H, the table filter) is for. */
enum { UI_INPUT_HIDE, UI_INPUT_FILTER };

enum ui_mode {
	UI_MODE_NORMAL,
	UI_MODE_HELP,           /* scrolls with j/k Space/b g/G; other keys return */
	UI_MODE_SEARCH,         /* typing a search in the bottom line */
	UI_MODE_TABLE,          /* the top table (tableview.c) */
	UI_MODE_SANDWICH,       /* callers and callees (sandwichview.c) */
	UI_MODE_INPUT           /* H or the table filter (lineedit.c) */
};

struct ui {
	const struct tree *t;
	const struct unit *unit;    /* NULL: weights are samples */
	enum ui_mode mode;
	bool quit;

	int lines, cols;
	bool too_small;
	/* The layout on screen and what it was made from: a key that changes
	 * neither the tree nor the layout parameters (most moves of the
	 * selection) reuses it. */
	struct ui_laid laid;
	/* Layouts of the views before (zoom levels left, ...), newest first:
	 * going back to one (Backspace) reuses it. */
	struct ui_laid old_lay[UI_OLD_LAYOUTS];
	/* The search index of t (searchidx.h), made on a thread of its own
	 * after the first paint (big trees, --threads > 1). */
	struct searchidx *idx;
	unsigned tree_gen;      /* bumped when u->t changes, from 1 */
	struct layout_params lp;

	tree_idx sel;           /* the selected frame, always drawn */
	int want_col;           /* preferred column for moves towards the leaves */

	tree_idx *zstack;       /* earlier zoom roots, oldest first */
	size_t zn, zcap;

	char notice[512];       /* one-shot status message, sanitized; "" when none */
	const char *title;

	char *buf;              /* text_fit output, TEXT_FIT_BYTES(cols) */
	size_t bufsize;
	tree_idx *crumbs;       /* breadcrumb scratch, cols / 3 + 2 entries */
	size_t ncrumbs;

	/* Views: the tree shown is the transform stack's current one. */
	struct transform_stack *views;
	bool diffmode, negate, normalize;
	struct diff diff;       /* valid when diffmode */
	struct tableview *tv;
	struct sandwichview *sw;
	struct lineedit input;      /* H and the table filter (not the search) */
	struct lineedit_history hide_hist, filter_hist;
	enum ui_mode input_back;    /* the mode the input line returns to */

	enum palette_depth depth;
	const struct palette *pal;
	const struct palette_rules *rules;
	/* By name id: 0 until computed, else UI_LOOK_SET | hue << 24 | RGB,
	 * and in the upper half the terminal colour + 1 once known. Rules
	 * are regexes: a name is classified once, not every redraw. */
	uint64_t *looks;
	size_t nlooks;
	/* Terminal colour (ANSI, xterm-256 or 0xRRGGBB) << 1 | blank -> colour
	 * pair, open addressing; pairs UI_PAIR_FIRST.. are handed out in order
	 * and all taken back at once when a redraw could run out
	 * (colours_begin). */
	struct ui_pair { int key, pair; } *pairs;
	size_t npairs;          /* slots, a power of two > 2 * pair_limit */
	int pairs_used, pair_limit;
	bool own_colours;       /* the terminal's own colours can be asked for (-1) */
	attr_t ancestor_attr;
	int ancestor_pair;
	bool legend;            /* the legend line above the status line */
	int help_top, help_rows;    /* help: first row shown, rows in all */

	/* Search: the result drawn (complete), the pass under way, and the
	 * search to go back to when the prompt is cancelled. One search may be
	 * held by several of them; search_release frees it with the last. */
	struct search *shown, *pending, *before;
	/* Select a match when the pending pass ends: the next (jump_dir > 0)
	 * or previous one from the selection, the selection itself too when
	 * jump_from_sel (an accepted search). before_jump: the same wish of
	 * a pass that the prompt put aside (before), for Esc to give back. */
	bool jump_when_done, jump_from_sel, before_jump;
	int jump_dir;
	size_t rules_costly;    /* palette_rules_costly when last told */
	struct lineedit pr;         /* the search prompt */
	struct lineedit_history search_hist;    /* payload: a `*` search's name */
	char pr_err[160];           /* rx_new's message for pr.text, sanitized; "" when valid */
	attr_t match_attr;
	int match_pair;
	bool stats;
	unsigned long nkeys;    /* prompt keystrokes timed (--stats) */
	double keys_ms, keys_max_ms;
	long pass_t0;           /* when the pending pass started (ms) */
	unsigned long npasses;  /* passes finished, and their wall time */
	double pass_max_ms, pass_last_ms;
};

/* ---- terminal state shared with the cleanup hook and signal handlers ---- */

static FILE *ui_tty;
static SCREEN *ui_screen;
static bool ui_active;          /* curses owns the terminal */
static volatile sig_atomic_t ui_caught;

/* Idempotent: leaves the terminal as the shell had it. Also the xalloc hook,
 * so an out-of-memory death restores the terminal before its message. */
static void ui_restore(void)
{
	if (!ui_active)
		return;
	ui_active = false;
	curs_set(1);
	endwin();               /* also turns mouse reporting off */
	fflush(ui_tty);
}

static void ui_on_signal(int sig)
{
	/* Only a flag: the loop restores the terminal outside the handler. */
	ui_caught = sig;
}

/* The first UI_NCAUGHT are ours while the browser runs; all are saved before
 * newterm() and put back after delscreen(), so neither our handlers nor the
 * ones curses installs (stop, resize) outlive the screen they refer to. */
static const int ui_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGTSTP, SIGWINCH };
#define UI_NSIGNALS (sizeof ui_signals / sizeof ui_signals[0])
#define UI_NCAUGHT 3

static void install_signals(struct sigaction *old)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = ui_on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;        /* no SA_RESTART: the blocked read must return */
	for (size_t k = 0; k < UI_NSIGNALS; k++) {
		sigaction(ui_signals[k], NULL, &old[k]);
		/* An ignored signal stays ignored (nohup, background jobs). */
		if (k < UI_NCAUGHT && old[k].sa_handler != SIG_IGN)
			sigaction(ui_signals[k], &sa, NULL);
	}
}

static void restore_signals(const struct sigaction *old)
{
	for (size_t k = 0; k < UI_NSIGNALS; k++)
		sigaction(ui_signals[k], &old[k], NULL);
}

/* ---- helpers ---- */

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The name as shown: without its code-type annotation ("_[k]"...), which
 * the colour and the status line's "[kernel]" tell instead. */
static const char *name_of(const struct ui *u, tree_idx i, size_t *len)
{
	const char *s = tree_name(u->t, i);
	*len = palette_base_len(s, tree_name_len(u->t, i));
	return s;
}

/* Display width of a name as shown, through the strtab's width cache (of
 * the whole name; an annotation is 4 ASCII columns). */
static int name_width(const struct ui *u, tree_idx i)
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

static bool is_ancestor_row(const struct ui *u, tree_idx i)
{
	return i != u->lp.zoom && tree_contains(u->t, i, u->lp.zoom);
}

/* Writes s (our own text or a display form) at (y, x), cut to the line;
 * never touches the bottom-right cell (writing there may scroll). */
static void put_text(struct ui *u, int y, int x, const char *s)
{
	if (y < 0 || y >= u->lines || x < 0 || x >= u->cols)
		return;
	int room = u->cols - x - (y == u->lines - 1 ? 1 : 0);
	if (room <= 0)
		return;
	text_fit(s, strlen(s), room, u->buf, u->bufsize);
	mvaddstr(y, x, u->buf);
}

/* "1234567" -> "1,234,567"; a fraction part is left alone. */
static void group_thousands(const char *in, char *out, size_t size)
{
	size_t digits = strspn(in, "0123456789"), j = 0;
	for (size_t i = 0; in[i] && j + 2 < size; i++) {
		if (i > 0 && i < digits && (digits - i) % 3 == 0)
			out[j++] = ',';
		out[j++] = in[i];
	}
	out[j] = '\0';
}

/* ---- colours ---- */

#define UI_LOOK_SET 0x80000000u

static int init_pair_any(int pair, int fg, int bg)
{
#ifdef HAVE_INIT_EXTENDED_PAIR
	return init_extended_pair(pair, fg, bg);
#else
	return init_pair((short)pair, (short)fg, (short)bg);
#endif
}

/* attrset() with a pair that may be above 255 (COLOR_PAIR() has 8 bits). */
static void set_look(attr_t a, int pair)
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
static int pair_for(struct ui *u, int colour, bool blank)
{
	if (colour <= 0 || u->npairs == 0)
		return 0;
	int key = colour << 1 | blank;
	size_t mask = u->npairs - 1, k = ((uint32_t)key * 2654435761u) & mask;
	for (; u->pairs[k].key; k = (k + 1) & mask)
		if (u->pairs[k].key == key)
			return u->pairs[k].pair;
	if (u->pairs_used >= u->pair_limit)
		return 0;
	int pair = UI_PAIR_FIRST + u->pairs_used;
	if (init_pair_any(pair, blank && u->own_colours ? -1 : COLOR_BLACK, colour) == ERR)
		return 0;
	u->pairs[k].key = key;
	u->pairs[k].pair = pair;
	u->pairs_used++;
	return pair;
}

/* Before a redraw: when this screen's spans might not all find a pair,
 * every pair is taken back (curses repaints cells whose pair changes). */
static void colours_begin(struct ui *u, size_t spans)
{
	if (u->npairs == 0 || (size_t)u->pairs_used + spans + 16 <= (size_t)u->pair_limit)
		return;
	memset(u->pairs, 0, u->npairs * sizeof *u->pairs);
	u->pairs_used = 0;
}

static int term_colour(const struct ui *u, struct palette_look l)
{
	switch (u->depth) {
	case PALETTE_DIRECT: return palette_to_direct(l.rgb);
	case PALETTE_256: return palette_to_256(l);
	case PALETTE_8: return palette_to_8(l);
	case PALETTE_MONO: break;
	}
	return 0;
}

static int rgb_colour(const struct ui *u, int xterm)
{
	if (u->depth == PALETTE_DIRECT)
		return palette_to_direct(palette_xterm_rgb(xterm));
	return xterm;
}

static void colours_init(struct ui *u, const struct ui_options *o)
{
	const char *no_color = getenv("NO_COLOR");
	u->pal = o->palette ? o->palette : palette_list[0];
	u->rules = o->rules;
	/* terminfo's count decides before start_color(), which NO_COLOR or a
	 * colourless terminal must never reach. */
	u->depth = palette_depth_for(has_colors() ? tigetnum("colors") : 0, no_color);
	if (u->depth != PALETTE_MONO) {
		start_color();
		/* the gap cells keep the terminal's background */
		u->own_colours = use_default_colors() == OK;
		u->depth = palette_depth_for(COLORS, no_color);
	}
	u->ancestor_attr = A_DIM;
	if (u->depth == PALETTE_MONO)
		return;
	int fg = COLOR_BLACK, bg = COLOR_WHITE;
	if (u->depth != PALETTE_8) {
		fg = rgb_colour(u, 238);
		bg = rgb_colour(u, 250);
	}
	if (init_pair_any(UI_PAIR_ANCESTOR, fg, bg) != ERR)
		u->ancestor_pair = UI_PAIR_ANCESTOR;
	/* The terminal's own colours as a pair of their own, in the
	 * background of every blank cell and plain text: leaving a frame for
	 * a gap is then one colour reset, where leaving for pair 0 also turns
	 * every attribute off (sgr0). */
	if (init_pair_any(UI_PAIR_PLAIN, -1, -1) != ERR)
		bkgdset(COLOR_PAIR(UI_PAIR_PLAIN) | ' ');
	u->pair_limit = COLOR_PAIRS - UI_PAIR_FIRST;
#ifndef HAVE_INIT_EXTENDED_PAIR
	if (u->pair_limit > 256 - UI_PAIR_FIRST)
		u->pair_limit = 256 - UI_PAIR_FIRST;
#endif
	if (u->pair_limit > UI_MAX_PAIRS)
		u->pair_limit = UI_MAX_PAIRS;
	if (u->pair_limit <= 0)
		return;
	for (u->npairs = 16; u->npairs <= 2 * (size_t)u->pair_limit; u->npairs *= 2)
		;
	u->pairs = xcalloc(u->npairs, sizeof *u->pairs);
}

/* The frame's colour, computed once per name and palette. */
static struct palette_look frame_look(struct ui *u, tree_idx i)
{
	const struct strtab *st = &u->t->names;
	strtab_id id = tree_node(u->t, i)->name;
	if (!u->looks) {
		u->nlooks = strtab_count(st);
		u->looks = xcalloc(u->nlooks ? u->nlooks : 1, sizeof *u->looks);
	}
	uint32_t v = (uint32_t)u->looks[id];
	struct palette_look l;
	if (v & UI_LOOK_SET) {
		l.hue = (enum palette_hue)(v >> 24 & 0x7f);
		l.rgb.r = (uint8_t)(v >> 16);
		l.rgb.g = (uint8_t)(v >> 8);
		l.rgb.b = (uint8_t)v;
		return l;
	}
	l = palette_look(u->pal, u->rules, strtab_str(st, id), strtab_len(st, id));
	u->looks[id] = UI_LOOK_SET | (uint32_t)l.hue << 24 | (uint32_t)l.rgb.r << 16 |
	               (uint32_t)l.rgb.g << 8 | l.rgb.b;
	return l;
}

/* Attributes and colour pair (*pair) of a frame; `blank`: drawn without
 * text (pair_for). */
static attr_t frame_attr(struct ui *u, tree_idx i, bool blank, int *pair)
{
	*pair = 0;
	if (u->depth == PALETTE_MONO)
		return A_NORMAL;
	if (u->diffmode) {
		struct palette_look l = { PALETTE_HUE_FLAT, diff_color(&u->diff, u->t, i) };
		/* 8 colours: red, blue or white only, so the sign still shows. */
		int colour = u->depth != PALETTE_8 ? term_colour(u, l)
		             : l.rgb.r > l.rgb.b ? COLOR_RED : l.rgb.b > l.rgb.r ? COLOR_BLUE : COLOR_WHITE;
		*pair = pair_for(u, colour, blank);
		return A_NORMAL;
	}
	/* The nearest terminal colour, once per name too. */
	strtab_id id = tree_node(u->t, i)->name;
	struct palette_look l = frame_look(u, i);
	uint32_t tc = (uint32_t)(u->looks[id] >> 32);
	if (!tc) {
		tc = (uint32_t)term_colour(u, l) + 1;
		u->looks[id] = (uint64_t)tc << 32 | (uint32_t)u->looks[id];
	}
	*pair = pair_for(u, (int)tc - 1, blank);
	return A_NORMAL;
}

/* The swatch colour of a hue in the legend: its middle shade. */
static int hue_pair(struct ui *u, enum palette_hue h, struct palette_rgb flat)
{
	struct palette_look l = { h, flat };
	if (h != PALETTE_HUE_FLAT)
		l.rgb = palette_hue_rgb(h, 0x800080008000u);
	return u->depth == PALETTE_MONO ? 0 : pair_for(u, term_colour(u, l), false);
}

/* `c`: the next palette; every name's colour is computed again (the cache
 * is cleared: O(names) once per key, a memset). */
static void cycle_palette(struct ui *u)
{
	u->pal = palette_next(u->pal);
	if (u->looks)
		memset(u->looks, 0, u->nlooks * sizeof *u->looks);
	snprintf(u->notice, sizeof u->notice, "palette %s: %s", u->pal->name, u->pal->desc);
}

/* ---- view state ---- */

static bool same_params(const struct layout_params *a, const struct layout_params *b)
{
	return a->zoom == b->zoom && a->width == b->width && a->height == b->height &&
	       a->orient == b->orient && a->scroll == b->scroll && a->min_width == b->min_width;
}

static void relayout(struct ui *u)
{
	struct ui_laid *c = &u->laid;
	if (c->gen == u->tree_gen && same_params(&c->lp, &u->lp))
		return;
	struct layout_params turned = c->lp;
	turned.orient = u->lp.orient;
	if (c->gen == u->tree_gen && c->lp.orient != u->lp.orient && same_params(&turned, &u->lp)) {
		layout_reorient(&c->lay);       /* `i`: flipped, not laid out again */
		c->lp = u->lp;
		return;
	}
	/* The current layout goes to the front of the old ones (the last
	 * falls out); one made for this view before comes back from there. */
	const size_t n = UI_OLD_LAYOUTS;
	size_t k = 0;
	while (k < n && !(u->old_lay[k].gen == u->tree_gen && same_params(&u->old_lay[k].lp, &u->lp)))
		k++;
	if (k == n) {
		k = n - 1;
		layout_free(&u->old_lay[k].lay);
		u->old_lay[k].gen = 0;
	}
	struct ui_laid back = u->old_lay[k];
	memmove(&u->old_lay[1], &u->old_lay[0], k * sizeof u->old_lay[0]);
	u->old_lay[0] = *c;
	*c = back;
	if (c->gen == 0) {
		layout_init(&c->lay);
		layout_compute(&c->lay, u->t, &u->lp);
	}
	c->lp = u->lp;
	c->gen = u->tree_gen;
}

static void span_middle(struct ui *u, tree_idx i)
{
	int c0, c1;
	if (layout_node_cols(u->t, &u->lp, i, &c0, &c1))
		u->want_col = c0 + (c1 - c0 - 1) / 2;
}

/* Keeps the selection drawn (its nearest drawn ancestor otherwise) and on
 * screen, with a row of context on each side when the area allows. */
static void fix_selection(struct ui *u)
{
	int c0, c1;
	while (u->sel != TREE_ROOT && !layout_node_cols(u->t, &u->lp, u->sel, &c0, &c1))
		u->sel = tree_parent(u->t, u->sel);
	if (u->lp.height <= 0)
		return;
	uint32_t level = tree_depth(u->t, u->sel);
	if (u->lp.height >= 3) {
		if (tree_first_child(u->t, u->sel) != TREE_NONE)
			layout_scroll_to(&u->lp, level + 1);
		if (level > 0)
			layout_scroll_to(&u->lp, level - 1);
	}
	layout_scroll_to(&u->lp, level);
}

/* Scroll for a new zoom root: it sits a third of the way up from the root's
 * edge, leaving the rest of the area to its subtree. */
static void reset_scroll(struct ui *u)
{
	uint32_t d = tree_depth(u->t, u->lp.zoom), keep = (uint32_t)(u->lp.height > 0 ? u->lp.height / 3 : 0);
	u->lp.scroll = d > keep ? d - keep : 0;
}

static void set_zoom(struct ui *u, tree_idx z)
{
	u->lp.zoom = z;
	reset_scroll(u);
	fix_selection(u);
	span_middle(u, u->sel);
}

/* Enter: into a frame of the view (pushing the old root), or out to an
 * ancestor (dropping the stack entries inside it). */
static void zoom_to(struct ui *u, tree_idx z)
{
	if (z == u->lp.zoom)
		return;
	if (tree_contains(u->t, z, u->lp.zoom)) {
		while (u->zn > 0 && tree_contains(u->t, z, u->zstack[u->zn - 1]))
			u->zn--;
	} else {
		if (u->zn == u->zcap) {
			u->zcap = u->zcap ? 2 * u->zcap : 16;
			u->zstack = xreallocarray(u->zstack, u->zcap, sizeof *u->zstack);
		}
		u->zstack[u->zn++] = u->lp.zoom;
	}
	u->sel = z;
	set_zoom(u, z);
}

static void undo_transform(struct ui *u);

static void unzoom(struct ui *u, bool all)
{
	if (u->lp.zoom == TREE_ROOT) {
		if (!all && u->views->n > 0)
			undo_transform(u);
		else
			snprintf(u->notice, sizeof u->notice, "already showing all samples");
		return;
	}
	tree_idx z = TREE_ROOT;
	if (!all && u->zn > 0)
		z = u->zstack[--u->zn];
	if (all || z == TREE_ROOT)
		u->zn = 0;
	/* The selection stays where the user was looking, if still drawn. */
	set_zoom(u, z);
}

static void move_vertical(struct ui *u, bool up_on_screen)
{
	bool to_leaves = up_on_screen == (u->lp.orient == LAYOUT_FLAME);
	tree_idx next;
	if (to_leaves)
		next = layout_child_at(u->t, &u->lp, u->sel, u->want_col);
	else
		next = u->sel == TREE_ROOT ? TREE_NONE : tree_parent(u->t, u->sel);
	if (next == TREE_NONE)
		return;
	u->sel = next;      /* want_col is kept, so the way back is the same */
	fix_selection(u);
}

static void move_sideways(struct ui *u, int dir)
{
	int row = layout_row_of_level(&u->lp, tree_depth(u->t, u->sel));
	const struct layout_span *s = layout_neighbor(&u->laid.lay, u->sel, row, dir);
	if (!s)
		return;
	u->sel = s->node;
	u->want_col = s->col0 + (s->col1 - s->col0 - 1) / 2;
}

static void on_mouse(struct ui *u)
{
	MEVENT ev;
	if (getmouse(&ev) != OK)
		return;
	if (ev.bstate & BUTTON4_PRESSED) {
		move_vertical(u, true);
		return;
	}
#ifdef BUTTON5_PRESSED
	if (ev.bstate & BUTTON5_PRESSED) {
		move_vertical(u, false);
		return;
	}
#endif
	if (!(ev.bstate & (BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED)))
		return;
	const struct layout_span *s = layout_span_at(&u->laid.lay, ev.y - 1, ev.x);
	if (!s)
		return;
	u->sel = s->node;
	u->want_col = s->col0 + (s->col1 - s->col0 - 1) / 2;
	if (ev.bstate & BUTTON1_DOUBLE_CLICKED)
		zoom_to(u, s->node);
}

static void on_resize(struct ui *u)
{
	int old_w = u->lp.width;
	getmaxyx(stdscr, u->lines, u->cols);
	if (u->lines < 0)
		u->lines = 0;
	if (u->cols < 0)
		u->cols = 0;
	u->too_small = u->cols < UI_MIN_COLS || u->lines < UI_MIN_LINES;
	u->lp.width = u->cols;
	u->lp.height = u->lines - 2 - (u->legend ? 1 : 0);
	u->bufsize = TEXT_FIT_BYTES(u->cols + 1);
	u->buf = xrealloc(u->buf, u->bufsize);
	u->ncrumbs = (size_t)u->cols / 3 + 2;
	u->crumbs = xreallocarray(u->crumbs, u->ncrumbs, sizeof *u->crumbs);
	/* Keep the preferred column at the same place of the graph. */
	if (old_w > 0 && u->cols > 0)
		u->want_col = (int)((long)u->want_col * u->cols / old_w);
	if (u->want_col >= u->cols)
		u->want_col = u->cols > 0 ? u->cols - 1 : 0;
	reset_scroll(u);
	fix_selection(u);
	sandwichview_resize(u->sw, u->cols, u->lines - 2, u->lp.min_width);
}

/* ---- search ---- */

/* Search matches: magenta as in flamegraph.pl's search (no hue of the hot
 * palette), cyan with 8 colours (hot uses red, yellow, magenta); bold and
 * underline carry it without colour. After colours_init. */
/* Matches: black on magenta (cyan with 8 colours), a pair of their own so
 * that colours_begin never takes it back. */
static void search_colours(struct ui *u)
{
	u->match_attr = A_BOLD | A_UNDERLINE;
	u->match_pair = 0;
	if (u->depth == PALETTE_MONO)
		return;
	int bg = u->depth == PALETTE_8 ? COLOR_CYAN : rgb_colour(u, 201);
	if (init_pair_any(UI_PAIR_MATCH, COLOR_BLACK, bg) != ERR)
		u->match_pair = UI_PAIR_MATCH;
}

static void search_release(struct ui *u, struct search *s)
{
	if (s && s != u->shown && s != u->pending && s != u->before)
		search_free(s);
}

/* Columns of m when z is the zoom root; false when m is not drawn there. */
static bool visible_in(const struct ui *u, tree_idx z, tree_idx m)
{
	struct layout_params p = u->lp;
	int c0, c1;
	p.zoom = z;
	return tree_contains(u->t, z, m) && layout_node_cols(u->t, &p, m, &c0, &c1);
}

/* Selects match m and makes sure it is drawn: when it lies outside the
 * zoomed view, zoom out to the nearest zoom root that contains it; when it
 * is narrower than a cell (or --min-width) there, zoom into its shallowest
 * ancestor in which it is wide enough (m itself at worst). O(depth). */
static void reveal(struct ui *u, tree_idx m)
{
	const char *why = NULL;
	tree_idx z = u->lp.zoom;
	if (!visible_in(u, z, m)) {
		while (!tree_contains(u->t, z, m))
			z = tree_parent(u->t, z);
		why = z != u->lp.zoom ? "zoomed out to show the match" : NULL;
		if (!visible_in(u, z, m)) {
			/* m may be z itself (a zoom root without samples): the
			 * walk up from its parent would never meet z */
			tree_idx best = m;
			for (tree_idx a = m == z ? z : tree_parent(u->t, m); a != z && a != TREE_NONE;
			     a = tree_parent(u->t, a))
				if (visible_in(u, a, m))
					best = a;
			why = "zoomed in: the match is too narrow to show here";
			if (z != u->lp.zoom)
				zoom_to(u, z);
			z = best;
		}
		zoom_to(u, z);
	}
	u->sel = m;
	fix_selection(u);
	if (u->sel != m)    /* not even m alone gets a cell: no samples */
		why = "the match has no samples to show";
	span_middle(u, u->sel);
	if (why && !u->notice[0])
		snprintf(u->notice, sizeof u->notice, "%s", why);
}

/* The next (dir > 0) or previous match from the selection, wrapping around
 * with a message; from_sel also accepts the selection itself. */
static void goto_match(struct ui *u, int dir, bool from_sel)
{
	const struct search *s = u->shown;
	if (!s) {
		snprintf(u->notice, sizeof u->notice, "no search: press / to search");
		return;
	}
	char pat[128];
	text_sanitize(search_pattern(s), strlen(search_pattern(s)), pat, sizeof pat);
	if (search_count(s) == 0) {
		snprintf(u->notice, sizeof u->notice, "no match for /%s/", pat);
		return;
	}
	tree_idx m;
	if (from_sel && search_matches(s, u->sel))
		m = u->sel;
	else
		m = dir > 0 ? search_next(s, u->sel) : search_prev(s, u->sel);
	if (m == TREE_NONE) {
		m = dir > 0 ? search_first(s) : search_last(s);
		snprintf(u->notice, sizeof u->notice, dir > 0 ? "search wrapped around to the first match"
		                                              : "search wrapped around to the last match");
	}
	reveal(u, m);
}

/* One slice of the pending pass; a finished pass becomes the shown one. */
static void search_work(struct ui *u, uint64_t budget_ns)
{
	if (!u->pending || !search_run(u->pending, budget_ns))
		return;
	struct search *old = u->shown;
	u->shown = u->pending;
	u->pending = NULL;
	search_release(u, old);
	u->pass_last_ms = (double)(now_ms() - u->pass_t0);
	if (u->pass_last_ms > u->pass_max_ms)
		u->pass_max_ms = u->pass_last_ms;
	u->npasses++;
	if (u->jump_when_done) {
		u->jump_when_done = false;
		goto_match(u, u->jump_dir, u->jump_from_sel);
	}
}

/* Asks for the jump of an accepted search: to the first match from the
 * selection on, once the pass ends. */
static void jump_later(struct ui *u)
{
	u->jump_when_done = true;
	u->jump_dir = +1;
	u->jump_from_sel = true;
}

/* s (or NULL: no search) replaces what is pending; a first slice runs now,
 * so a small profile shows the result with the key that asked for it. */
static void search_start(struct ui *u, struct search *s)
{
	struct search *old = u->pending;
	u->pending = s;
	search_release(u, old);
	if (!s) {
		old = u->shown;
		u->shown = NULL;
		search_release(u, old);
		u->jump_when_done = false;
		return;
	}
	if (searchidx_ready(u->idx))
		search_use_index(s, u->idx);
	u->pass_t0 = now_ms();
	search_work(u, UI_SEARCH_FIRST_NS);
}

/* The index pays for its thread from this many names or nodes on. */
#define UI_INDEX_MIN_NAMES 65536u
#define UI_INDEX_MIN_NODES 1000000u

/* Starts the search index of u->t, after dropping that of the tree
 * before: no pass still running holds it then. */
static void index_restart(struct ui *u)
{
	searchidx_free(u->idx);
	u->idx = NULL;
	if (search_get_threads() > 1 && (strtab_count(&u->t->names) >= UI_INDEX_MIN_NAMES ||
	                                 tree_size(u->t) >= UI_INDEX_MIN_NODES))
		u->idx = searchidx_start(u->t);
}

/* Before the tree may be freed: an index thread still reading it stops
 * (its arrays were never handed to a search). A finished index stays, for
 * the searches holding its arrays, until index_restart(). */
static void index_quiet(struct ui *u)
{
	if (u->idx && !searchidx_ready(u->idx)) {
		searchidx_free(u->idx);
		u->idx = NULL;
	}
}

/* The prompt's text changed: search again, incrementally. An invalid
 * pattern keeps the last valid highlight (and its pass, if unfinished). */
static void prompt_changed(struct ui *u)
{
	const struct lineedit *p = &u->pr;
	const struct lineedit_entry *r = lineedit_recalled(p);
	u->pr_err[0] = '\0';
	if (p->len == 0) {
		search_start(u, NULL);
		return;
	}
	struct search *s;
	if (r && r->payload) {  /* a `*` search recalled unchanged: still exact */
		s = search_new_exact_bytes(u->t, r->payload, r->payload_len);
	} else {
		s = search_new(u->t, p->text, u->pr_err, sizeof u->pr_err);
		/* Typing on at the end of a word: test only what matched. */
		if (s && u->shown && search_done(u->shown))
			search_narrow(s, u->shown);
	}
	if (s)
		search_start(u, s);
}

static void open_prompt(struct ui *u)
{
	/* A pass still running (an accepted search) is what Esc goes back
	 * to: put aside, not finished now (it may take long: keys and
	 * signals must not wait for it). */
	u->before = u->pending ? u->pending : u->shown;
	u->before_jump = u->pending && u->jump_when_done;
	u->jump_when_done = false;
	lineedit_start(&u->pr, "/", &u->search_hist, 0);
	u->pr_err[0] = '\0';
	u->mode = UI_MODE_SEARCH;
}

static void close_prompt(struct ui *u)
{
	struct search *b = u->before;
	u->before = NULL;
	u->before_jump = false;
	search_release(u, b);
	free(u->pr.draft);
	u->pr.draft = NULL;
	u->mode = UI_MODE_NORMAL;
}

/* Enter: the search stays and the first match from the selection on is
 * selected (once its pass is done). */
static void prompt_accept(struct ui *u)
{
	const struct lineedit_entry *r = lineedit_recalled(&u->pr);
	lineedit_history_add(&u->search_hist, u->pr.text, r ? r->payload : NULL, r ? r->payload_len : 0);
	if (u->pr_err[0])
		snprintf(u->notice, sizeof u->notice, "invalid regex (%s): the previous search stays", u->pr_err);
	else if (u->pending)
		jump_later(u);
	else if (u->shown)
		goto_match(u, +1, true);
	close_prompt(u);
}

/* Esc: back to the search (or none) that was there before the prompt; a
 * pass put aside by open_prompt goes on (nothing is shown until it ends). */
static void prompt_cancel(struct ui *u)
{
	struct search *p = u->pending, *s = u->shown, *b = u->before;
	bool unfinished = b && !search_done(b), jump = u->before_jump;
	u->pending = unfinished ? b : NULL;
	u->shown = unfinished ? NULL : b;
	u->jump_when_done = false;
	search_release(u, p);
	search_release(u, s);
	close_prompt(u);
	if (jump && unfinished)
		jump_later(u);
	else if (jump && b)     /* it ended while the prompt was open */
		goto_match(u, +1, true);
}

static void prompt_key(struct ui *u, int ch)
{
	if (ch == KEY_MOUSE) {
		MEVENT ev;
		getmouse(&ev);  /* drain it */
		return;
	}
	switch (lineedit_key(&u->pr, ch)) {
	case LINEEDIT_ACCEPT: prompt_accept(u); break;
	case LINEEDIT_CANCEL: prompt_cancel(u); break;
	case LINEEDIT_CHANGED: prompt_changed(u); break;
	case LINEEDIT_NONE: break;
	}
}

/* `*`: the selected frame's exact name, bytes and case as they are. */
static void search_selected_name(struct ui *u)
{
	if (u->sel == TREE_ROOT) {
		snprintf(u->notice, sizeof u->notice, "select a frame first: the root is not searchable");
		return;
	}
	strtab_id id = tree_node(u->t, u->sel)->name;
	struct search *s = search_new_exact(u->t, id);
	lineedit_history_add(&u->search_hist, search_pattern(s), strtab_str(&u->t->names, id),
	                     strtab_len(&u->t->names, id));
	search_start(u, s);
}

static void search_clear(struct ui *u)
{
	if (u->shown || u->pending)
		search_start(u, NULL);
}

/* ---- drawing ---- */

/* All that a search changes in a frame's look: while a search is shown,
 * matches (`match`) get the match colour plus bold and underline (visible
 * without colour too), every other frame is dimmed. */
static attr_t search_decorate(const struct ui *u, bool match, attr_t a, int *pair)
{
	if (!u->shown)
		return a;
	if (match) {
		if (u->match_pair)
			*pair = u->match_pair;
		return (a & ~A_DIM) | u->match_attr;
	}
	return a | A_DIM;
}

static void draw_span(struct ui *u, const struct layout_span *s)
{
	int y = 1 + s->row, w = s->col1 - s->col0;
	bool selected = s->node == u->sel, match = u->shown && search_matches(u->shown, s->node);
	/* A frame one cell wide is too narrow for text; a dot keeps it
	 * visible without colour, and marks it selected or matching. Without
	 * the dot the cell is blank: only its background shows. */
	bool dot = u->depth == PALETTE_MONO || selected || match;
	int pair = u->ancestor_pair;
	attr_t a = s->kind == LAYOUT_ANCESTOR ? u->ancestor_attr
	                                      : frame_attr(u, s->node, w == 1 && !dot, &pair);
	a = search_decorate(u, match, a, &pair);
	if (selected)
		a = (a & ~A_DIM) | A_REVERSE | A_BOLD;
	set_look(a, pair);
	if (w == 1) {
		mvaddstr(y, s->col0, dot ? (text_is_utf8() ? "\u00b7" : ".") : " ");
		attrset(A_NORMAL);
		return;
	}
	size_t len;
	const char *name = name_of(u, s->node, &len);
	/* The last cell stays a gap so neighbours read apart without colour. */
	int lw = text_fit(name, len, w - 1, u->buf, u->bufsize);
	mvaddstr(y, s->col0, u->buf);
	for (int c = s->col0 + lw; c < s->col1 - 1; c++)
		addch(' ');
	attrset(A_NORMAL);
}

static void draw_graph(struct ui *u)
{
	for (size_t k = 0; k < u->laid.lay.n; k++)
		draw_span(u, &u->laid.lay.spans[k]);
	if (u->laid.lay.n == 0)     /* an empty profile: even the root has no cell */
		put_text(u, 1 + u->lp.height / 2, u->cols > 10 ? (u->cols - 10) / 2 : 0, "no samples");
}

/* The transform stack, oldest first, as "[reverse] [focus f] " from the
 * left of line 0, each label cut to a third of the line; returns the
 * columns used. */
static int draw_transforms(struct ui *u)
{
	int x = 0;
	char label[256];
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

/* "all › main › parse", cut from the left ("..") to the screen width. The
 * walk up from the zoom root stops as soon as the line is full. */
static void draw_breadcrumb(struct ui *u)
{
	const char *sep = text_is_utf8() ? " \u203a " : " > ";
	const int sepw = 3, dotsw = 2;
	int avail = u->cols, total = 0;
	size_t n = 0;
	bool cut = false;
	int x = draw_transforms(u);
	avail -= x;
	for (tree_idx i = u->lp.zoom; i != TREE_NONE; i = tree_parent(u->t, i)) {
		int add = name_width(u, i) + (n ? sepw : 0);
		if (n == u->ncrumbs || (n > 0 && total + add > avail)) {
			cut = true;
			break;
		}
		u->crumbs[n++] = i;
		total += add;
	}
	if (cut)
		while (n > 1 && total + dotsw + sepw > avail) {
			total -= name_width(u, u->crumbs[n - 1]) + sepw;
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
		const char *name = name_of(u, u->crumbs[k], &len);
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

static void format_percent(double part, double whole, char *out, size_t size)
{
	if (whole > 0)
		snprintf(out, size, "%.2f%%", 100.0 * part / whole);
	else
		snprintf(out, size, "-");
}

/* Selected frame: name, samples, % of all, % of the zoomed view; the input's
 * name and a help hint on the right when there is room. */
static void draw_search_status(struct ui *u);

static void draw_status(struct ui *u)
{
	int y = u->lines - 1, avail = u->cols - 1;
	if (avail <= 0)
		return;
	if (u->shown || u->pending) {
		draw_search_status(u);
		return;
	}
	if (u->notice[0]) {
		attron(A_BOLD);
		put_text(u, y, 0, u->notice);
		attroff(A_BOLD);
		return;
	}
	const struct tree *t = u->t;
	const struct tree_node *n = tree_node(t, u->sel);
	char count[64], grouped[96], pct_all[32], pct_view[32];
	char fields[4][128];
	int nf = 0;

	if (u->unit && u->unit->event[0]) {
		unit_amount(u->unit, tree_total_d(t, u->sel), fields[nf++], sizeof fields[0]);
	} else {
		tree_format_count(t, n->total, count, sizeof count);
		group_thousands(count, grouped, sizeof grouped);
		snprintf(fields[nf++], sizeof fields[0], "%s sample%s", grouped, strcmp(count, "1") ? "s" : "");
	}
	format_percent(tree_total_d(t, u->sel), tree_total_d(t, TREE_ROOT), pct_all, sizeof pct_all);
	snprintf(fields[nf++], sizeof fields[0], "%s of all", pct_all);
	if (u->lp.zoom != TREE_ROOT && !is_ancestor_row(u, u->sel)) {
		format_percent(tree_total_d(t, u->sel), tree_total_d(t, u->lp.zoom), pct_view, sizeof pct_view);
		snprintf(fields[nf++], sizeof fields[0], "%s of view", pct_view);
	}
	if (u->diffmode)
		diff_describe(&u->diff, t, u->sel, fields[nf++], sizeof fields[0]);

	const char *sep = text_is_utf8() ? "  \u00b7  " : "  |  ";
	const int sepw = 5;
	/* The code type that the hidden annotation gave: " [kernel]". */
	char tag[16] = "";
	const char *type = palette_type_name(palette_type_of(tree_name(t, u->sel), tree_name_len(t, u->sel)));
	if (type)
		snprintf(tag, sizeof tag, " [%s]", type);
	int tailw = (int)strlen(tag);
	for (int k = 0; k < nf; k++)
		tailw += sepw + (int)strlen(fields[k]);
	/* The name yields to the numbers, down to a readable minimum; after
	 * that, the numbers go from the right. */
	int namew = name_width(u, u->sel), minw = namew < 16 ? namew : 16;
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
	const char *name = name_of(u, u->sel, &len);
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

/* Writes s at (y, *x) with a and pair, cut before column end; moves *x on.
 * Returns false when s did not fit whole (nothing more should follow). */
static bool put_piece(struct ui *u, int y, int *x, int end, const char *s, attr_t a, int pair)
{
	int room = end - *x;
	if (room <= 0)
		return false;
	size_t len = strlen(s);
	int w = text_fit(s, len, room, u->buf, u->bufsize);
	set_look(a, pair);
	mvaddstr(y, *x, u->buf);
	set_look(A_NORMAL, 0);
	*x += w;
	return w == text_width(s, len);
}

/* A hue's sample: two cells of its colour, or its name without colour. */
static bool put_swatch(struct ui *u, int y, int *x, int end, enum palette_hue h, struct palette_rgb flat)
{
	if (u->depth == PALETTE_MONO) {
		char name[24];
		snprintf(name, sizeof name, "%s:", h == PALETTE_HUE_FLAT ? "own" : palette_hue_name(h));
		return put_piece(u, y, x, end, name, A_DIM, 0);
	}
	return put_piece(u, y, x, end, "  ", A_NORMAL, hue_pair(u, h, flat));
}

/* `L`: "java  ▇ Java/JIT  ▇ inlined ...  rules: ▇ REGEX ...  map: N names". */
static void draw_legend(struct ui *u)
{
	int y = u->lines - 2, x = 0, end = u->cols;
	const struct palette *p = u->pal;
	struct palette_rgb none = { 0, 0, 0 };
	bool more = put_piece(u, y, &x, end, p->name, A_BOLD, 0);
	for (size_t k = 0; more && k < p->nlegend; k++)
		more = put_piece(u, y, &x, end, "  ", A_NORMAL, 0) &&
		       put_swatch(u, y, &x, end, p->legend[k].hue, none) &&
		       put_piece(u, y, &x, end, " ", A_NORMAL, 0) &&
		       put_piece(u, y, &x, end, p->legend[k].label, A_NORMAL, 0);
	size_t nr = palette_rules_count(u->rules);
	if (more && nr)
		more = put_piece(u, y, &x, end, "  rules:", A_BOLD, 0);
	for (size_t k = 0; more && k < nr; k++) {
		char re[64];
		const char *src = palette_rules_regex(u->rules, k);
		text_sanitize(src, strlen(src), re, sizeof re);
		struct palette_spec sp = palette_rules_spec(u->rules, k);
		more = put_piece(u, y, &x, end, " ", A_NORMAL, 0) &&
		       put_swatch(u, y, &x, end, sp.hue, sp.rgb) &&
		       put_piece(u, y, &x, end, " ", A_NORMAL, 0) &&
		       put_piece(u, y, &x, end, re, A_NORMAL, 0);
	}
	size_t nm = palette_rules_map_count(u->rules);
	if (more && nm) {
		char m[64];
		snprintf(m, sizeof m, "  map: %zu name%s", nm, nm == 1 ? "" : "s");
		put_piece(u, y, &x, end, m, A_NORMAL, 0);
	}
}

/* The ? screen's colour section from row y: what each hue of the active
 * palette means, then the user's rules. Returns the next free row. */
/* Screen row of row vy of the help text, or -1 when it is scrolled out of
 * the area between the title (row 0) and the footer (the last row). */
static int help_row(const struct ui *u, int vy)
{
	int y = 1 + vy - u->help_top;
	return y >= 1 && y < u->lines - 1 ? y : -1;
}

/* The colours part of the help, from help row y on; returns the next row. */
static int draw_help_colours(struct ui *u, int y, int keyw)
{
	const struct palette *p = u->pal;
	struct palette_rgb none = { 0, 0, 0 };
	int x;
	char line[256];
	y++;
	snprintf(line, sizeof line, "colours: %s, %s", p->name, p->desc);
	x = 0;
	put_piece(u, help_row(u, y++), &x, u->cols, line, A_BOLD, 0);
	for (size_t k = 0; k < p->nlegend; k++, y++) {
		x = 2;
		put_swatch(u, help_row(u, y), &x, u->cols, p->legend[k].hue, none);
		x = 2 + keyw;
		put_piece(u, help_row(u, y), &x, u->cols, p->legend[k].meaning, A_NORMAL, 0);
	}
	for (size_t k = 0; k < palette_rules_count(u->rules); k++, y++) {
		const char *src = palette_rules_regex(u->rules, k);
		struct palette_spec sp = palette_rules_spec(u->rules, k);
		char re[128];
		text_sanitize(src, strlen(src), re, sizeof re);
		snprintf(line, sizeof line, "names matching %s (--color-rule)", re);
		x = 2;
		put_swatch(u, help_row(u, y), &x, u->cols, sp.hue, sp.rgb);
		x = 2 + keyw;
		put_piece(u, help_row(u, y), &x, u->cols, line, A_NORMAL, 0);
	}
	size_t nm = palette_rules_map_count(u->rules);
	if (nm) {
		snprintf(line, sizeof line, "%zu name%s with a colour of their own (--palette-map)", nm, nm == 1 ? "" : "s");
		x = 2 + keyw;
		put_piece(u, help_row(u, y++), &x, u->cols, line, A_NORMAL, 0);
	}
	x = 2 + keyw;
	put_piece(u, help_row(u, y++), &x, u->cols, "the status line names a frame's type: [kernel] [jit] [inlined] [waker]",
	          A_DIM, 0);
	return y;
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
static void draw_search_status(struct ui *u)
{
	int y = u->lines - 1, avail = u->cols - 1;
	const char *sep = text_is_utf8() ? "  \u00b7  " : "  |  ";
	const struct search *s = u->pending ? u->pending : u->shown;
	char info[192];
	if (u->pending)
		snprintf(info, sizeof info, "  searching %d%%", (int)(100 * search_progress(s)));
	else {
		char all[32], view[32], count[64];
		size_t n = search_count(s), k = search_ordinal(s, u->sel);
		if (n == 0)
			snprintf(count, sizeof count, "no match");
		else if (k)
			snprintf(count, sizeof count, "match %zu of %zu", k, n);
		else
			snprintf(count, sizeof count, "%zu match%s", n, n == 1 ? "" : "es");
		format_percent(tree_count_d(u->t, search_total(s, TREE_ROOT)), tree_total_d(u->t, TREE_ROOT),
		               all, sizeof all);
		int len = snprintf(info, sizeof info, "  %s%s%s of samples", count, sep, all);
		if (u->lp.zoom != TREE_ROOT) {
			format_percent(tree_count_d(u->t, search_total(s, u->lp.zoom)),
			               tree_total_d(u->t, u->lp.zoom), view, sizeof view);
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
	put_text(u, y, x, info);
	x += infow;
	if (u->notice[0] && x < avail) {
		attron(A_BOLD);
		put_text(u, y, x, sep);
		put_text(u, y, x + 5, u->notice);
		attroff(A_BOLD);
		return;
	}
	/* Right: "name  ·  N samples" of the selection, when it fits. */
	char cnt[64], grouped[96], right[128];
	if (u->unit && u->unit->event[0]) {
		char amount[96];
		unit_amount(u->unit, tree_total_d(u->t, u->sel), amount, sizeof amount);
		snprintf(right, sizeof right, "%s%s", sep, amount);
	} else {
		tree_format_count(u->t, tree_node(u->t, u->sel)->total, cnt, sizeof cnt);
		group_thousands(cnt, grouped, sizeof grouped);
		snprintf(right, sizeof right, "%s%s sample%s", sep, grouped, strcmp(cnt, "1") ? "s" : "");
	}
	int rw = text_width(right, strlen(right));
	int namew = name_width(u, u->sel), room = avail - x - 2 - rw;
	if (room < 4 || (namew > room && room < 16))
		return;
	size_t len;
	const char *name = name_of(u, u->sel, &len);
	int nw = text_fit_middle(name, len, namew < room ? namew : room, u->buf, u->bufsize);
	attron(A_DIM);
	mvaddstr(y, avail - rw - nw, u->buf);
	addstr(right);
	attroff(A_DIM);
}

/* A line editor on the bottom row: its label (bold when bold), then its
 * text scrolled so that the cursor shows in room columns. Sets *end to
 * the column after the text; returns the cursor's column. */
static int draw_edit_line(struct ui *u, const struct lineedit *e, bool bold, int room, int *end)
{
	int y = u->lines - 1, lw = text_width(e->label, strlen(e->label));
	move(y, 0);
	clrtoeol();
	if (bold)
		attron(A_BOLD);
	put_text(u, y, 0, e->label);
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

/* The search prompt: "/" and the text; then the regex error, or the
 * progress of a pass. Returns the cursor column. */
static int draw_prompt(struct ui *u)
{
	const struct lineedit *p = &u->pr;
	int y = u->lines - 1, avail = u->cols - 1, end;
	if (avail - 2 < 1)
		return 0;
	int cx = draw_edit_line(u, p, false, avail - 1, &end);
	int x = end + 2;
	if (u->pr_err[0]) {
		attron(A_BOLD);
		put_text(u, y, x, u->pr_err);
		attroff(A_BOLD);
	} else if (u->pending) {
		char info[32];
		snprintf(info, sizeof info, "searching %d%%", (int)(100 * search_progress(u->pending)));
		attron(A_DIM);
		put_text(u, y, x, info);
		attroff(A_DIM);
	} else if (u->shown && p->len) {
		char info[96];
		size_t n = search_count(u->shown), costly = search_costly(u->shown);
		int len = snprintf(info, sizeof info, n ? "%zu match%s" : "no match", n, n == 1 ? "" : "es");
		if (costly && len > 0 && (size_t)len < sizeof info)
			snprintf(info + len, sizeof info - (size_t)len, ", too costly on %zu name%s", costly,
			         costly == 1 ? "" : "s");
		attron(A_DIM);
		put_text(u, y, x, info);
		attroff(A_DIM);
	}
	return cx < avail ? cx : avail - 1;
}

/* The help: every key of the key tables, then the colours, as rows that
 * scroll (help_key) when they do not fit between the title and the footer. */
static void draw_help(struct ui *u)
{
	char keys[96];
	int keyw = 0;
	for (size_t k = 0; k < keymap_count + keymap_prompt_count; k++) {
		const struct keymap_entry *e = k < keymap_count ? &keymap_table[k] : &keymap_prompt_table[k - keymap_count];
		int w = (int)keymap_keys_text(e, keys, sizeof keys);
		if (w > keyw)
			keyw = w;
	}
	keyw += 2;
	if (keyw > u->cols / 2)
		keyw = u->cols / 2;
	attron(A_BOLD);
	put_text(u, 0, 0, "tflame keys");
	attroff(A_BOLD);
	int y = 1;
	for (size_t k = 0; k < keymap_count + keymap_prompt_count; k++, y++) {
		const struct keymap_entry *e = k < keymap_count ? &keymap_table[k] : &keymap_prompt_table[k - keymap_count];
		if (k == keymap_count) {
			y++;
			put_text(u, help_row(u, y++), 0, "In the search prompt (/):");
		}
		keymap_keys_text(e, keys, sizeof keys);
		attron(A_BOLD);
		put_text(u, help_row(u, y), 2, keys);
		attroff(A_BOLD);
		put_text(u, help_row(u, y), 2 + keyw, e->desc);
	}
	u->help_rows = draw_help_colours(u, y, keyw);
	int body = u->lines - 2;
	char foot[128];
	if (u->help_rows > body) {
		int last = u->help_top + body < u->help_rows ? u->help_top + body : u->help_rows;
		snprintf(foot, sizeof foot, "lines %d-%d of %d%s  j/k Space/b g/G scroll, other keys close",
		         u->help_top + 1, last, u->help_rows, last == u->help_rows ? " (end)" : "");
	} else {
		snprintf(foot, sizeof foot, "press any key to close this help");
	}
	attron(A_DIM);
	put_text(u, u->lines - 1, 0, foot);
	attroff(A_DIM);
}

/* A key in the help: the scrolling keys move the text, any other closes. */
static void help_key(struct ui *u, int ch)
{
	int body = u->lines - 2, last = u->help_rows > body ? u->help_rows - body : 0;
	int top = u->help_top;
	switch (ch) {
	case 'j': case KEY_DOWN: top++; break;
	case 'k': case KEY_UP: top--; break;
	case ' ': case 'f': case KEY_NPAGE: top += body > 1 ? body - 1 : 1; break;
	case 'b': case KEY_PPAGE: top -= body > 1 ? body - 1 : 1; break;
	case 'g': case KEY_HOME: top = 0; break;
	case 'G': case KEY_END: top = last; break;
	default:
		if (ch == KEY_MOUSE) {
			MEVENT ev;
			getmouse(&ev);  /* drain it */
		}
		u->mode = UI_MODE_NORMAL;
		return;
	}
	u->help_top = top < 0 ? 0 : top > last ? last : top;
}

static void draw_table_status(struct ui *u)
{
	char line[512];
	if (u->notice[0]) {
		attron(A_BOLD);
		put_text(u, u->lines - 1, 0, u->notice);
		attroff(A_BOLD);
		return;
	}
	tableview_status(u->tv, line, sizeof line);
	put_text(u, u->lines - 1, 0, line);
}

/* The input line (H, the table filter) over the status row. Returns the
 * cursor's column. */
static int draw_input(struct ui *u)
{
	int end;
	int cx = draw_edit_line(u, &u->input, true, u->cols - 1, &end);
	return cx < u->cols ? cx : u->cols - 1;
}

/* A sandwich frame's look: the palette's colour of its name (the
 * sandwich's trees have their own names, so no cache), reverse and bold
 * when selected. */
static void sandwich_style(void *ctx, const struct tree *t, tree_idx i, bool selected)
{
	struct ui *u = ctx;
	int pair = 0;
	if (u->depth != PALETTE_MONO)
		pair = pair_for(u, term_colour(u, palette_look(u->pal, u->rules, tree_name(t, i),
		                                               tree_name_len(t, i))), false);
	set_look(selected ? A_REVERSE | A_BOLD : A_NORMAL, pair);
}

/* Breadcrumb "sandwich: NAME", both panes, and a status line for the
 * selected frame: samples, % of the function's own total, % of all. */
static void draw_sandwich(struct ui *u)
{
	size_t len;
	const char *name = sandwichview_name(u->sw, &len);
	int x = draw_transforms(u);
	attron(A_BOLD);
	put_text(u, 0, x, "sandwich: ");
	attroff(A_BOLD);
	x += 10;
	if (x < u->cols) {
		text_fit_middle(name, len, u->cols - x, u->buf, u->bufsize);
		mvaddstr(0, x, u->buf);
	}
	sandwichview_draw(u->sw, 1, u->buf, u->bufsize, sandwich_style, u);

	tree_idx i;
	const struct tree *st = sandwichview_selected(u->sw, &i);
	char count[64], grouped[96], pa[32], pf[32], line[600];
	tree_format_count(st, tree_node(st, i)->total, count, sizeof count);
	group_thousands(count, grouped, sizeof grouped);
	tree_idx f = tree_first_child(st, TREE_ROOT);
	format_percent(tree_total_d(st, i), f == TREE_NONE ? 0 : tree_total_d(st, f), pf, sizeof pf);
	format_percent(tree_total_d(st, i), tree_total_d(u->t, TREE_ROOT), pa, sizeof pa);
	const char *sep = text_is_utf8() ? "  \u00b7  " : "  |  ";
	char nm[256];
	text_sanitize(tree_name(st, i), tree_name_len(st, i), nm, sizeof nm);
	snprintf(line, sizeof line, "%s%s%s sample%s%s%s of the function%s%s of all", nm, sep, grouped,
	         strcmp(count, "1") ? "s" : "", sep, pf, sep, pa);
	put_text(u, u->lines - 1, 0, line);
}

static void draw_too_small(struct ui *u)
{
	const char *msg = u->cols >= 18 ? "terminal too small" : "too small";
	put_text(u, 0, 0, msg);
}

static void draw(struct ui *u)
{
	erase();
	colours_begin(u, u->laid.lay.n + (size_t)u->cols);
	if (u->too_small)
		draw_too_small(u);
	else if (u->mode == UI_MODE_HELP)
		draw_help(u);
	else if (u->mode == UI_MODE_TABLE || (u->mode == UI_MODE_INPUT && u->input_back == UI_MODE_TABLE)) {
		draw_breadcrumb(u);
		tableview_draw(u->tv, 1, u->lines - 2, u->cols, u->buf, u->bufsize);
		draw_table_status(u);
	} else if (u->mode == UI_MODE_SANDWICH) {
		draw_sandwich(u);
	} else {
		draw_breadcrumb(u);
		draw_graph(u);
		/* Names are classified by the rules as they are first drawn:
		 * said once per new batch of names the rules were too costly on. */
		size_t rc = palette_rules_costly(u->rules);
		if (rc != u->rules_costly && !u->notice[0])
			snprintf(u->notice, sizeof u->notice, "--color-rule too costly on %zu name%s: not coloured by it",
			         rc, rc == 1 ? "" : "s");
		u->rules_costly = rc;
		if (u->legend)
			draw_legend(u);
		if (u->mode == UI_MODE_SEARCH) {
			int cx = draw_prompt(u);
			move(u->lines - 1, cx);
		} else
			draw_status(u);
	}
	if (u->mode == UI_MODE_INPUT) {
		int cx = draw_input(u);
		move(u->lines - 1, cx);
	}
	/* The cursor shows where the prompt's typing goes, and only there. */
	curs_set((u->mode == UI_MODE_SEARCH || u->mode == UI_MODE_INPUT) && !u->too_small ? 1 : 0);
	refresh();
}

/* ---- events ---- */

/* y / Y: the selected frame's name, or its stack as a folded line without
 * the count (callers first, ';'-joined, without the root "all"), to the
 * clipboard by OSC 52 on the terminal, in display form (clip_copy_text:
 * control bytes pasted into a shell could run commands). O(depth + name
 * bytes), once per key. */
static void copy_selection(struct ui *u, bool stack)
{
	const struct tree *t = u->t;
	size_t len = 0;
	char *s;
	if (stack && u->sel == TREE_ROOT) {
		snprintf(u->notice, sizeof u->notice, "nothing to copy: all is not part of a stack");
		return;
	}
	if (!stack) {
		len = tree_name_len(t, u->sel);
		s = xmalloc(len + 1);
		memcpy(s, tree_name(t, u->sel), len);
	} else {
		for (tree_idx i = u->sel; i != TREE_ROOT; i = tree_parent(t, i))
			len += tree_name_len(t, i) + 1;
		len--;
		s = xmalloc(len + 1);
		size_t at = len;        /* filled from the leaf backwards */
		for (tree_idx i = u->sel; i != TREE_ROOT; i = tree_parent(t, i)) {
			at -= tree_name_len(t, i);
			memcpy(s + at, tree_name(t, i), tree_name_len(t, i));
			if (at)
				s[--at] = ';';
		}
	}
	bool escaped;
	int crc = clip_copy_text(ui_tty, s, len, &len, &escaped);
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

/* ---- views ---- */

/* The tree changed (a transform pushed or undone): everything indexed by
 * its nodes or its name ids restarts: the zoom stack, the colour cache,
 * the search (run again, same pattern, on the new tree), the diff colours
 * (O(tree)). */
static void views_changed(struct ui *u)
{
	const struct search *was = u->pending ? u->pending : u->shown;
	/* An exact-name search stays one: its name's bytes, not its text (the
	 * quoted name) as a regex. The old tree is gone after this. */
	size_t exact_len = 0;
	const char *name = was ? search_exact_name(was, &exact_len) : NULL;
	bool exact = name != NULL;
	char *pattern = NULL;
	if (exact) {
		pattern = xmalloc(exact_len ? exact_len : 1);
		memcpy(pattern, name, exact_len);
	} else if (was)
		pattern = xstrdup(search_pattern(was));
	search_start(u, NULL);
	u->t = transform_stack_tree(u->views);
	u->tree_gen++;
	index_restart(u);
	free(u->looks);     /* by name id, and ids are the tree's own */
	u->looks = NULL;
	u->nlooks = 0;
	if (pattern) {
		char err[160];
		struct search *s = exact ? search_new_exact_bytes(u->t, pattern, exact_len)
		                         : search_new(u->t, pattern, err, sizeof err);
		if (s)
			search_start(u, s);
		free(pattern);
	}
	if (u->diffmode) {
		diff_free(&u->diff);
		diff_compute(&u->diff, u->t, transform_stack_tree2(u->views), u->normalize, u->negate);
	}
	u->zn = 0;
	u->lp.zoom = TREE_ROOT;
	tree_idx c = tree_first_child(u->t, TREE_ROOT);
	u->sel = c != TREE_NONE && tree_next_sibling(u->t, c) == TREE_NONE ? c : TREE_ROOT;
	reset_scroll(u);
	u->want_col = u->cols / 2;
	fix_selection(u);
}

/* Says on the status line that a key will take a while: the views' keys
 * are O(tree), about a second per million nodes. */
static void busy(struct ui *u, const char *what)
{
	if (tree_size(u->t) < 200000 || u->too_small)
		return;
	move(u->lines - 1, 0);
	clrtoeol();
	attron(A_BOLD);
	put_text(u, u->lines - 1, 0, what);
	attroff(A_BOLD);
	refresh();
}

/* Applies a transform: O(tree), the one kind of key that is. */
static void push_transform(struct ui *u, struct transform tr)
{
	char err[256];
	busy(u, "computing the transformed tree...");
	search_pause(u->pending);   /* the push frees the tree it reads */
	index_quiet(u);
	if (!transform_stack_push(u->views, &tr, err, sizeof err)) {
		text_sanitize(err, strlen(err), u->notice, sizeof u->notice);
		return;
	}
	views_changed(u);
	if (err[0])     /* a note: the hide pattern was too costly on some names */
		text_sanitize(err, strlen(err), u->notice, sizeof u->notice);
}

static void undo_transform(struct ui *u)
{
	char label[256], msg[300];
	if (u->views->n > 1)
		busy(u, "recomputing from the loaded profile...");
	transform_label(&u->views->items[u->views->n - 1], label, sizeof label);
	snprintf(msg, sizeof msg, "undone: %s", label);
	search_pause(u->pending);   /* the pop frees the tree it reads */
	index_quiet(u);
	transform_stack_pop(u->views);
	views_changed(u);
	text_sanitize(msg, strlen(msg), u->notice, sizeof u->notice);
}

static void open_table(struct ui *u)
{
	busy(u, "counting functions...");
	tableview_load(u->tv, u->t, u->lp.zoom);
	u->mode = UI_MODE_TABLE;
}

/* Back from the table with function `name` shown: the heaviest frame of
 * that name in the zoomed view is selected (one scan of the view) and the
 * name is searched for exactly (as `*` does), so n/N step through its
 * other frames. */
static void show_function(struct ui *u, strtab_id name)
{
	tree_idx best = TREE_NONE;
	size_t count = 0;
	for (tree_idx i = u->lp.zoom; i < tree_end(u->t, u->lp.zoom); i++) {
		if (tree_node(u->t, i)->name != name)
			continue;
		count++;
		if (best == TREE_NONE || tree_total_d(u->t, i) > tree_total_d(u->t, best))
			best = i;
	}
	u->mode = UI_MODE_NORMAL;
	if (best == TREE_NONE)
		return;
	u->sel = best;
	span_middle(u, best);
	fix_selection(u);
	if (u->sel == best)
		search_selected_name(u);
	if (count > 1)
		snprintf(u->notice, sizeof u->notice, "the heaviest of %zu frames of this function", count);
}

/* The sandwich of the function named like node i of tree t (the browsed
 * tree or a pane of the sandwich): O(tree) to build its two trees. */
static void open_sandwich(struct ui *u, const struct tree *t, tree_idx i)
{
	int64_t id = strtab_find(&u->t->names, tree_name(t, i), tree_name_len(t, i));
	if (id <= 0)
		return;     /* "all" */
	sandwichview_load(u->sw, u->t, (strtab_id)id, u->views->order);
	u->mode = UI_MODE_SANDWICH;
}

/* --view=sandwich[=NAME] in the browser. */
static void start_sandwich(struct ui *u, const char *name)
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
	open_sandwich(u, u->t, i);
}

static void sandwich_key(struct ui *u, int ch)
{
	tree_idx i;
	const struct tree *st;
	if (ch == 27) {
		u->mode = UI_MODE_NORMAL;
		return;
	}
	switch (keymap_lookup(ch)) {
	case KEYMAP_LEFT: sandwichview_sideways(u->sw, -1); break;
	case KEYMAP_RIGHT: sandwichview_sideways(u->sw, 1); break;
	case KEYMAP_UP: sandwichview_vertical(u->sw, true); break;
	case KEYMAP_DOWN: sandwichview_vertical(u->sw, false); break;
	case KEYMAP_ZOOM:   /* the sandwich of the selected function */
		st = sandwichview_selected(u->sw, &i);
		if (i != TREE_ROOT)
			open_sandwich(u, st, i);
		break;
	case KEYMAP_SANDWICH:
	case KEYMAP_UNZOOM:
	case KEYMAP_TABLE:
		u->mode = UI_MODE_NORMAL;
		break;
	case KEYMAP_HELP: u->mode = UI_MODE_HELP; break;
	case KEYMAP_QUIT: u->quit = true; break;
	case KEYMAP_REDRAW: clearok(curscr, TRUE); break;
	case KEYMAP_MOUSE: {
		/* Click selects, double-click re-centres on the function. */
		MEVENT ev;
		if (getmouse(&ev) != OK || !(ev.bstate & (BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED)))
			break;
		if (sandwichview_click(u->sw, ev.y - 1, ev.x) && (ev.bstate & BUTTON1_DOUBLE_CLICKED)) {
			st = sandwichview_selected(u->sw, &i);
			open_sandwich(u, st, i);
		}
		break;
	}
	default: break;
	}
}

static void table_key(struct ui *u, int ch)
{
	enum keymap_action act = keymap_lookup(ch);
	switch (ch) {
	case '/':
		lineedit_start(&u->input, "filter: ", &u->filter_hist, UI_INPUT_FILTER);
		u->input_back = UI_MODE_TABLE;
		u->mode = UI_MODE_INPUT;
		return;
	case 27: {          /* Esc: the filter goes */
		char err[8];
		tableview_filter(u->tv, "", err, sizeof err);
		return;
	}
	case KEY_NPAGE: case ' ': tableview_page(u->tv, 1); return;
	case KEY_PPAGE: tableview_page(u->tv, -1); return;
	case KEY_END: case 'G': tableview_move(u->tv, (long)1 << 40); return;
	case KEY_HOME: case 'g': tableview_move(u->tv, -((long)1 << 40)); return;
	}
	strtab_id name;
	switch (act) {
	case KEYMAP_DOWN: tableview_move(u->tv, 1); break;
	case KEYMAP_UP: tableview_move(u->tv, -1); break;
	case KEYMAP_SORT_SELF: tableview_sort(u->tv, TOPTABLE_SELF); break;
	case KEYMAP_SORT_TOTAL: tableview_sort(u->tv, TOPTABLE_TOTAL); break;
	case KEYMAP_SORT_NAME: tableview_sort(u->tv, TOPTABLE_NAME); break;
	case KEYMAP_ZOOM:
		if (tableview_selected(u->tv, &name))
			show_function(u, name);
		break;
	case KEYMAP_SANDWICH:   /* of the selected row's function */
		if (tableview_selected(u->tv, &name)) {
			sandwichview_load(u->sw, u->t, name, u->views->order);
			u->mode = UI_MODE_SANDWICH;
		}
		break;
	case KEYMAP_FOCUS:
		if (tableview_selected(u->tv, &name)) {
			u->mode = UI_MODE_NORMAL;
			push_transform(u, transform_make(TRANSFORM_FOCUS, strtab_str(&u->t->names, name),
			                                 strtab_len(&u->t->names, name)));
		}
		break;
	case KEYMAP_TABLE: u->mode = UI_MODE_NORMAL; break;
	case KEYMAP_HELP: u->mode = UI_MODE_HELP; break;
	case KEYMAP_QUIT: u->quit = true; break;
	case KEYMAP_REDRAW: clearok(curscr, TRUE); break;
	case KEYMAP_MOUSE: {
		/* Click selects a row, double-click shows it, the wheel scrolls. */
		MEVENT ev;
		if (getmouse(&ev) != OK)
			break;
		if (ev.bstate & BUTTON4_PRESSED)
			tableview_move(u->tv, -3);
#ifdef BUTTON5_PRESSED
		else if (ev.bstate & BUTTON5_PRESSED)
			tableview_move(u->tv, 3);
#endif
		else if ((ev.bstate & (BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED)) &&
		         tableview_click(u->tv, ev.y - 2) && (ev.bstate & BUTTON1_DOUBLE_CLICKED) &&
		         tableview_selected(u->tv, &name))
			show_function(u, name);
		break;
	}
	default: break;
	}
}

static void input_done(struct ui *u)
{
	char err[256];
	u->mode = u->input_back;
	if (u->input.purpose == UI_INPUT_FILTER) {
		if (!tableview_filter(u->tv, u->input.text, err, sizeof err))
			text_sanitize(err, strlen(err), u->notice, sizeof u->notice);
		else if (tableview_costly(u->tv))
			snprintf(u->notice, sizeof u->notice, "filter too costly on %zu name%s: not shown",
			         tableview_costly(u->tv), tableview_costly(u->tv) == 1 ? "" : "s");
	} else if (u->input.len > 0) {
		push_transform(u, transform_make(TRANSFORM_HIDE, u->input.text, u->input.len));
	}
	if (u->input.hist)
		lineedit_history_add(u->input.hist, u->input.text, NULL, 0);
}

static void dispatch(struct ui *u, enum keymap_action act)
{
	if (u->too_small && act != KEYMAP_QUIT && act != KEYMAP_REDRAW && act != KEYMAP_HELP)
		return;         /* nothing to navigate on screen */
	switch (act) {
	case KEYMAP_NONE: break;
	case KEYMAP_LEFT: move_sideways(u, -1); break;
	case KEYMAP_RIGHT: move_sideways(u, +1); break;
	case KEYMAP_UP: move_vertical(u, true); break;
	case KEYMAP_DOWN: move_vertical(u, false); break;
	case KEYMAP_ZOOM: zoom_to(u, u->sel); break;
	case KEYMAP_UNZOOM: unzoom(u, false); break;
	case KEYMAP_UNZOOM_ALL: unzoom(u, true); break;
	case KEYMAP_ORIENT:
		u->lp.orient = u->lp.orient == LAYOUT_FLAME ? LAYOUT_ICICLE : LAYOUT_FLAME;
		break;
	case KEYMAP_COPY_NAME: copy_selection(u, false); break;
	case KEYMAP_COPY_STACK: copy_selection(u, true); break;
	case KEYMAP_MOUSE: on_mouse(u); break;
	case KEYMAP_TABLE: open_table(u); break;
	case KEYMAP_REVERSE: push_transform(u, transform_make(TRANSFORM_REVERSE, NULL, 0)); break;
	case KEYMAP_MERGE_RECURSION:
		push_transform(u, transform_make(TRANSFORM_MERGE_RECURSION, NULL, 0));
		break;
	case KEYMAP_FOCUS:
	case KEYMAP_SANDWICH:
	case KEYMAP_DROP:
		if (u->sel == TREE_ROOT || is_ancestor_row(u, u->sel)) {
			snprintf(u->notice, sizeof u->notice, "select a frame first (not all or a dimmed one)");
			break;
		}
		if (act == KEYMAP_DROP)
			push_transform(u, transform_make_drop(u->t, u->sel));
		else if (act == KEYMAP_FOCUS)
			push_transform(u, transform_make(TRANSFORM_FOCUS, tree_name(u->t, u->sel),
			                                 tree_name_len(u->t, u->sel)));
		else
			open_sandwich(u, u->t, u->sel);
		break;
	case KEYMAP_HIDE:
		lineedit_start(&u->input, "hide frames matching: ", &u->hide_hist, UI_INPUT_HIDE);
		u->input_back = UI_MODE_NORMAL;
		u->mode = UI_MODE_INPUT;
		break;
	case KEYMAP_SORT_SELF:
	case KEYMAP_SORT_TOTAL:
	case KEYMAP_SORT_NAME:
		break;      /* table keys */
	case KEYMAP_PALETTE: cycle_palette(u); break;
	case KEYMAP_LEGEND:
		u->legend = !u->legend;
		u->lp.height = u->lines - 2 - (u->legend ? 1 : 0);
		fix_selection(u);
		break;
	case KEYMAP_REDRAW: clearok(curscr, TRUE); break;
	case KEYMAP_HELP:
		u->mode = UI_MODE_HELP;
		u->help_top = 0;
		break;
	case KEYMAP_QUIT: u->quit = true; break;
	case KEYMAP_SEARCH: open_prompt(u); break;
	case KEYMAP_SEARCH_NEXT:
	case KEYMAP_SEARCH_PREV:
	{
		/* While a pass runs, the move waits for its end (the pass goes on
		 * in slices: Esc and signals are heard meanwhile); when an
		 * accepted search was waiting to jump, this key is that jump. */
		if (u->pending) {
			if (!u->jump_when_done) {
				u->jump_when_done = true;
				u->jump_dir = act == KEYMAP_SEARCH_NEXT ? +1 : -1;
				u->jump_from_sel = false;
			}
		} else
			goto_match(u, act == KEYMAP_SEARCH_NEXT ? +1 : -1, false);
		break;
	}
	case KEYMAP_SEARCH_NAME: search_selected_name(u); break;
	case KEYMAP_SEARCH_CLEAR: search_clear(u); break;
	case KEYMAP_PROMPT_ACCEPT: case KEYMAP_PROMPT_CANCEL: case KEYMAP_PROMPT_HISTORY:
	case KEYMAP_PROMPT_MOVE: case KEYMAP_PROMPT_ENDS: case KEYMAP_PROMPT_DELETE:
	case KEYMAP_PROMPT_KILL_LINE: case KEYMAP_PROMPT_KILL_WORD:
		break;          /* the prompt's own (prompt_key) */
	}
}

static void handle_key(struct ui *u, int ch)
{
	if (ch == KEY_RESIZE) {
		on_resize(u);
		relayout(u);
		return;
	}
	u->notice[0] = '\0';    /* one-shot: gone with the next key */
	switch (u->mode) {
	case UI_MODE_HELP:
		help_key(u, ch);
		break;
	case UI_MODE_NORMAL:
		dispatch(u, keymap_lookup(ch));
		break;
	case UI_MODE_TABLE:
		if (!u->too_small || ch == 'q')
			table_key(u, ch);
		break;
	case UI_MODE_SANDWICH:
		if (!u->too_small || ch == 'q')
			sandwich_key(u, ch);
		break;
	case UI_MODE_INPUT:
		if (ch == KEY_MOUSE) {
			MEVENT ev;
			getmouse(&ev);  /* drain it */
			break;
		}
		switch (lineedit_key(&u->input, ch)) {
		case LINEEDIT_NONE: case LINEEDIT_CHANGED: break;
		case LINEEDIT_ACCEPT: input_done(u); break;
		case LINEEDIT_CANCEL: u->mode = u->input_back; break;
		}
		break;
	case UI_MODE_SEARCH:
		prompt_key(u, ch);
		break;
	}
	relayout(u);
}

/* The first line of a notice, without the "tflame: " that stderr wants. */
static void set_notice(struct ui *u, const char *s)
{
	if (!s)
		return;
	if (strncmp(s, "tflame: ", 8) == 0)
		s += 8;
	size_t len = strcspn(s, "\n");
	text_sanitize(s, len, u->notice, sizeof u->notice);
}

/* 24-bit colour through curses needs a terminfo entry that says so (the
 * RGB capability, colours 0xRRGGBB). When COLORTERM promises it and TERM's
 * entry is not one, its "-direct" sibling is tried (xterm-256color ->
 * xterm-direct, tmux-256color -> tmux-direct; ncurses-term has them); a
 * missing one falls back to TERM and its 256 colours. */
static bool direct_term_name(const char *term, char *buf, size_t size)
{
	const char *nc = getenv("NO_COLOR");
	if ((nc && *nc) || !palette_colorterm_direct(getenv("COLORTERM")) || strstr(term, "direct"))
		return false;
	size_t len = strlen(term);
	static const char *const sfx[] = { "-256color", "-88color", "-16color", "-color" };
	for (size_t k = 0; k < sizeof sfx / sizeof sfx[0]; k++) {
		size_t n = strlen(sfx[k]);
		if (len > n && strcmp(term + len - n, sfx[k]) == 0) {
			len -= n;
			break;
		}
	}
	int w = snprintf(buf, size, "%.*s-direct", (int)len, term);
	return w > 0 && (size_t)w < size;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int open_terminal(void)
{
	ui_tty = fopen("/dev/tty", "r+");
	if (!ui_tty) {
		fprintf(stderr, "tflame: cannot open the terminal: %s\n", strerror(errno));
		return -1;
	}
	const char *term = getenv("TERM");
	if (!term || !*term) {
		fputs("tflame: cannot open the terminal: TERM is not set\n", stderr);
		fclose(ui_tty);
		return -1;
	}
	char direct[128];
	ui_screen = NULL;
	if (direct_term_name(term, direct, sizeof direct))
		ui_screen = newterm(direct, ui_tty, ui_tty);
	if (!ui_screen)
		ui_screen = newterm(NULL, ui_tty, ui_tty);
	if (!ui_screen) {
		char safe[64];
		text_sanitize(term, strlen(term), safe, sizeof safe);
		fprintf(stderr, "tflame: cannot open the terminal: unknown terminal type '%s'\n", safe);
		fclose(ui_tty);
		return -1;
	}
	const char *cup = tigetstr("cup");
	if (!cup || cup == (char *)-1) {
		/* dumb terminals, printers: a screen cannot be drawn there */
		char safe[64];
		text_sanitize(term, strlen(term), safe, sizeof safe);
		delscreen(ui_screen);
		ui_screen = NULL;
		fclose(ui_tty);
		fprintf(stderr, "tflame: the terminal (TERM=%s) cannot move its cursor, which the browser "
		        "needs: use --print, --collapse or --svg\n", safe);
		return -1;
	}
	set_term(ui_screen);
	ui_active = true;
	xalloc_set_cleanup(ui_restore);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	/* Until a screen has been through endwin() once, ncurses (6.4 at
	 * least) flushes its output at every cursor move: a full repaint was
	 * hundreds of small write()s, most of its time. Suspended here, before
	 * anything is drawn, the first refresh() resumes it, and repaints then
	 * go out in one write each. endwin() turns the mouse off:
	 * mousemask() comes after it. */
	endwin();
	mousemask(BUTTON1_CLICKED | BUTTON1_DOUBLE_CLICKED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
	          | BUTTON5_PRESSED
#endif
	          , NULL);
	return 0;
}

/* The browser's state for t and o, and the first paint (the terminal,
 * real or headless, is open). own holds the transform stack when o has
 * none. */
static void ui_setup(struct ui *u, struct transform_stack *own, const struct tree *t,
                     const struct ui_options *o)
{
	memset(u, 0, sizeof *u);
	u->t = t;
	u->tree_gen = 1;
	u->mode = UI_MODE_NORMAL;
	u->title = o->title;
	u->unit = o->unit;
	u->lp.zoom = TREE_ROOT;
	u->lp.orient = o->orient;
	u->lp.min_width = o->min_width < 1 ? 1 : o->min_width;
	u->sel = TREE_ROOT;
	u->views = o->views;
	if (!u->views) {
		transform_stack_init(own, t, NULL, TREE_ORDER_NAME);
		u->views = own;
	}
	u->diffmode = o->diff && transform_stack_tree2(u->views) != NULL;
	u->negate = o->negate;
	u->normalize = o->normalize;
	if (u->diffmode)
		diff_compute(&u->diff, u->t, transform_stack_tree2(u->views), u->normalize, u->negate);
	u->tv = tableview_new(o->table_sort);
	u->sw = sandwichview_new();
	layout_init(&u->laid.lay);
	set_notice(u, o->notice);
	colours_init(u, o);
	search_colours(u);

	on_resize(u);
	span_middle(u, u->sel);
	u->stats = o->stats;
	if (o->search && o->search[0]) {
		/* As if typed and accepted: in the history, first match selected. */
		struct search *s = search_new(t, o->search, u->pr_err, sizeof u->pr_err);
		if (s) {
			lineedit_history_add(&u->search_hist, o->search, NULL, 0);
			jump_later(u);
			search_start(u, s);
		} else
			snprintf(u->notice, sizeof u->notice, "invalid regex: %s", u->pr_err);
	}
	if (o->table)
		open_table(u);
	if (o->sandwich)
		start_sandwich(u, o->sandwich_name);
	relayout(u);
	draw(u);
	index_restart(u);        /* after the first paint: it must not delay it */
}

static void ui_teardown(struct ui *u, struct transform_stack *own)
{
	layout_free(&u->laid.lay);
	for (size_t k = 0; k < UI_OLD_LAYOUTS; k++)
		layout_free(&u->old_lay[k].lay);
	searchidx_free(u->idx); /* before the tree goes */
	u->idx = NULL;
	tableview_free(u->tv);
	sandwichview_free(u->sw);
	if (u->diffmode)
		diff_free(&u->diff);
	if (u->views == own)
		transform_stack_free(own);
	struct search *held[] = { u->shown, u->pending, u->before };
	u->shown = u->pending = u->before = NULL;
	for (size_t k = 0; k < 3; k++)
		if (held[k] && (k < 1 || held[k] != held[0]) && (k < 2 || held[k] != held[1]))
			search_free(held[k]);
	lineedit_history_free(&u->search_hist);
	lineedit_history_free(&u->hide_hist);
	lineedit_history_free(&u->filter_hist);
	lineedit_free(&u->pr);
	lineedit_free(&u->input);
	free(u->zstack);
	free(u->buf);
	free(u->crumbs);
	free(u->looks);
	free(u->pairs);
}

int ui_run(const struct tree *t, const struct ui_options *o)
{
	struct sigaction old[UI_NSIGNALS];
	struct ui ui, *u = &ui;
	int status = 0;
	bool lost = false;

	/* Before newterm(): curses then leaves our SIGINT/SIGTERM alone. */
	ui_caught = 0;
	install_signals(old);
	if (open_terminal() != 0) {
		restore_signals(old);
		return 1;
	}

	struct transform_stack own;
	ui_setup(u, &own, t, o);

	int errors = 0;
	long last_draw = now_ms();
	while (!u->quit && !ui_caught) {
		/* While a pass is pending, getch only looks for a key and the
		 * pass goes on in slices between keys. */
		bool busy = u->pending != NULL;
		timeout(busy ? 0 : UI_POLL_MS);
		long t0 = now_ms();
		int ch = getch();
		if (ui_caught)
			break;
		if (ch == ERR && busy) {
			search_work(u, UI_SEARCH_SLICE_NS);
			if (!u->pending || now_ms() - last_draw >= UI_PROGRESS_MS) {
				relayout(u);
				draw(u);
				last_draw = now_ms();
			}
			continue;
		}
		if (ch == ERR) {
			/* A timeout is normal. An early error is EINTR (stop and
			 * continue) or a terminal that went away: EOF forever, which
			 * must not spin. */
			if (now_ms() - t0 >= UI_POLL_MS / 2)
				errors = 0;
			else if (++errors > UI_MAX_ERRORS) {
				lost = true;
				break;
			}
			continue;
		}
		errors = 0;
		bool timed = u->stats && u->mode == UI_MODE_SEARCH;
		struct timespec k0, k1;
		if (timed)
			clock_gettime(CLOCK_MONOTONIC, &k0);
		handle_key(u, ch);
		if (!u->quit)
			draw(u);
		last_draw = now_ms();
		if (timed) {
			/* A keystroke of the prompt: key to screen, slice included. */
			clock_gettime(CLOCK_MONOTONIC, &k1);
			double ms = (double)(k1.tv_sec - k0.tv_sec) * 1e3 + (double)(k1.tv_nsec - k0.tv_nsec) / 1e6;
			u->nkeys++;
			u->keys_ms += ms;
			if (ms > u->keys_max_ms)
				u->keys_max_ms = ms;
		}
	}
	if (ui_caught)
		status = 128 + ui_caught;
	else if (lost)
		status = 1;

	ui_restore();
	xalloc_set_cleanup(NULL);
	delscreen(ui_screen);
	ui_screen = NULL;
	fclose(ui_tty);
	ui_tty = NULL;
	restore_signals(old);
	if (lost)
		fputs("tflame: lost the terminal\n", stderr);
	if (u->stats && u->nkeys)
		fprintf(stderr, "search_keys %lu mean_ms %.2f max_ms %.2f passes %lu pass_max_ms %.0f "
		        "pass_last_ms %.0f\n", u->nkeys, u->keys_ms / (double)u->nkeys, u->keys_max_ms,
		        u->npasses, u->pass_max_ms, u->pass_last_ms);

	ui_teardown(u, &own);
	return status;
}

/* ---- headless ------------------------------------------------------------ */

/* The browser on a screen that curses keeps in memory only: output to
 * /dev/null, keys handed over by the caller. */
struct ui_headless {
	struct ui u;                /* first: a struct ui * is one of these */
	struct transform_stack own;
	SCREEN *scr;
	FILE *out, *in;
};

struct ui *ui_headless_open(const struct tree *t, const struct ui_options *o, int cols, int lines)
{
	static const char *const types[] = { "xterm-256color", "xterm", "vt100" };
	struct ui_headless *h = xcalloc(1, sizeof *h);
	h->out = fopen("/dev/null", "w");
	h->in = fopen("/dev/null", "r");
	for (size_t i = 0; h->out && h->in && !h->scr && i < sizeof types / sizeof types[0]; i++)
		h->scr = newterm(types[i], h->out, h->in);
	if (!h->scr) {
		fputs("tflame: no terminfo entry for a headless screen (xterm-256color, xterm, vt100)\n", stderr);
		if (h->out)
			fclose(h->out);
		if (h->in)
			fclose(h->in);
		free(h);
		return NULL;
	}
	set_term(h->scr);
	ui_tty = h->out;        /* what goes to the terminal (y's OSC 52) goes nowhere */
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	resizeterm(lines > 0 ? lines : 1, cols > 0 ? cols : 1);
	ui_setup(&h->u, &h->own, t, o);
	return &h->u;
}

bool ui_headless_key(struct ui *u, int key, double *handle_ms, double *draw_ms)
{
	double t0 = now_s();
	handle_key(u, key);
	/* A pass goes on in slices between keys in a terminal; here it ends
	 * before the next key, so that what a script sees does not depend on
	 * the machine's speed (and a search key's time is its full result's). */
	if (u->pending) {
		while (u->pending)
			search_work(u, UI_SEARCH_SLICE_NS);
		relayout(u);
	}
	double t1 = now_s();
	if (!u->quit)
		draw(u);
	double t2 = now_s();
	if (handle_ms)
		*handle_ms = (t1 - t0) * 1e3;
	if (draw_ms)
		*draw_ms = (t2 - t1) * 1e3;
	return !u->quit;
}

bool ui_headless_resize(struct ui *u, int cols, int lines, double *handle_ms, double *draw_ms)
{
	resizeterm(lines > 0 ? lines : 1, cols > 0 ? cols : 1);
	return ui_headless_key(u, KEY_RESIZE, handle_ms, draw_ms);
}

void ui_headless_dump(struct ui *u, FILE *out)
{
	(void)u;
	wchar_t *w = xreallocarray(NULL, (size_t)COLS + 1, sizeof *w);
	for (int y = 0; y < LINES; y++) {
		int n = mvwinnwstr(stdscr, y, 0, w, COLS);
		if (n < 0)
			n = 0;
		w[n] = L'\0';
		while (n > 0 && w[n - 1] == L' ')
			w[--n] = L'\0';
		mbstate_t st;
		memset(&st, 0, sizeof st);
		for (int i = 0; i < n; i++) {
			char mb[MB_LEN_MAX];
			size_t k = wcrtomb(mb, w[i], &st);
			if (k == (size_t)-1) {
				memset(&st, 0, sizeof st);
				fputc('?', out);
			} else {
				fwrite(mb, 1, k, out);
			}
		}
		fputc('\n', out);
	}
	free(w);
}

void ui_headless_close(struct ui *u)
{
	struct ui_headless *h = (struct ui_headless *)u;
	ui_teardown(u, &h->own);
	endwin();
	delscreen(h->scr);
	ui_tty = NULL;
	fclose(h->out);
	fclose(h->in);
	free(h);
}
