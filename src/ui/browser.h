/* browser: what the parts of the interactive browser share; internal to
 * src/ui and src/views (the outside world sees ui.h).
 *
 * The browser is a stack of views (tig's view_ops, htop's panels): the
 * flame graph at the bottom, then whatever the user opened over it (the
 * table, a sandwich, the help, a prompt). The top view gets the keys, as
 * actions from its own key table (keymap.h), and draws the whole screen;
 * a key its table does not bind goes to the generic table (q, ?, Ctrl-L)
 * when the view falls back to it. ui.c owns the terminal, the event loop
 * and the stack; each view is a file of src/views/.
 *
 * The shared state (struct ui): the tree shown and its transform stack,
 * the screen's size and scratch, the one-shot notice, colours (colour.c),
 * the search session (finder.c). Drawing helpers are in paint.c. Work per
 * key and per redraw is proportional to the screen, never to the profile
 * (transforms and the views' loads are O(tree) once per key that asks). */
#ifndef TFLAME_BROWSER_H
#define TFLAME_BROWSER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#if defined(HAVE_NCURSESW_CURSES_H)
#include <ncursesw/curses.h>
#else
#include <curses.h>
#endif

#include "diff.h"
#include "keymap.h"
#include "lineedit.h"
#include "palette.h"
#include "transform.h"
#include "tree.h"
#include "ui.h"
#include "samples.h"
#include "unit.h"

struct ui;
struct view;
struct search;
struct searchidx;
struct timeindex;
struct timeindex_job;

/* ---- views ---- */

struct view_ops {
	const char *name;
	enum keymap_id keys;        /* the view's key table */
	bool fallback;              /* keys it does not bind go to the generic table */
	bool cursor;                /* the terminal's cursor shows (prompts) */
	/* Draws the whole screen (erased before). */
	void (*draw)(struct ui *u, struct view *v);
	/* A key: act is its action in the view's table (KEYMAP_NONE when
	 * unbound), ch the curses code (u->mouse holds a KEY_MOUSE's event).
	 * False: not handled, the generic table's action is tried. */
	bool (*key)(struct ui *u, struct view *v, enum keymap_action act, int ch);
	/* The screen's size changed (u->cols, u->lines): every view of the
	 * stack hears it, bottom first. NULL: nothing to do. */
	void (*resize)(struct ui *u, struct view *v);
	/* Before the next draw, after any key (NULL: nothing). */
	void (*settle)(struct ui *u, struct view *v);
};

struct view {
	const struct view_ops *ops;
};

#define UI_MAX_VIEWS 8

/* Pushes v on the stack (it gets the keys); a view already on the stack is
 * first removed from it, with everything over it. */
void ui_push(struct ui *u, struct view *v);
/* Removes the top view (never the flame graph at the bottom). */
void ui_pop(struct ui *u);
/* Removes every view over the flame graph. */
void ui_pop_all(struct ui *u);
/* The view under v on the stack (NULL for the bottom one). */
struct view *ui_below(const struct ui *u, const struct view *v);

/* ---- colours (colour.c) ---- */

/* Colour pairs: 1 the ancestor rows, 2 search matches, 3 the terminal's
 * own colours (blank cells, plain text), 4.. the frames. */
#define UI_PAIR_ANCESTOR 1
#define UI_PAIR_MATCH 2
#define UI_PAIR_PLAIN 3
#define UI_PAIR_FIRST 4

struct ui_colours {
	enum palette_depth depth;
	const struct palette *pal;
	const struct palette_rules *rules;
	/* By name id of the browsed tree: 0 until computed, else
	 * UI_LOOK_SET | hue << 24 | RGB, and in the upper half the terminal
	 * colour + 1 once known (rules are regexes: a name is classified
	 * once, not every redraw). */
	uint64_t *looks;
	size_t nlooks;
	/* Terminal colour << 1 | blank -> colour pair, open addressing. */
	struct ui_pair { int key, pair; } *pairs;
	size_t npairs;              /* slots, a power of two > 2 * pair_limit */
	int pairs_used, pair_limit;
	bool own;                   /* the terminal's own colours can be asked for (-1) */
	attr_t ancestor_attr, match_attr;
	int ancestor_pair, match_pair;
	size_t rules_costly;        /* palette_rules_costly when last told */
};

void colour_init(struct ui *u, const struct ui_options *o);
void colour_free(struct ui *u);
/* The tree changed: its name ids are new. */
void colour_forget(struct ui *u);
/* Before a redraw that may draw `spans` frames. */
void colour_begin(struct ui *u, size_t spans);
/* attrset() with a pair that may be above 255. */
void colour_set(attr_t a, int pair);
/* A frame of the browsed tree: attributes, and its pair in *pair; blank:
 * drawn without text. */
attr_t colour_frame(struct ui *u, tree_idx i, bool blank, int *pair);
/* The pair of a name of any tree (the sandwich's), not cached. */
int colour_name_pair(struct ui *u, const char *name, size_t len);
/* The pair of a background colour (black text on it). */
int colour_rgb_pair(struct ui *u, struct palette_rgb rgb);
/* A legend swatch's pair: hue h's middle shade (flat: its own colour). */
int colour_hue_pair(struct ui *u, enum palette_hue h, struct palette_rgb flat);
/* `c`: the next palette, said in the notice. */
void colour_cycle(struct ui *u);

/* ---- drawing helpers (paint.c) ---- */

/* Writes s (our own text or a display form) at (y, x), cut to the line;
 * never the bottom-right cell. */
void paint_text(struct ui *u, int y, int x, const char *s);
/* Writes s at (y, *x) with a and pair, cut before column end; moves *x
 * on. False when s did not fit whole. */
bool paint_piece(struct ui *u, int y, int *x, int end, const char *s, attr_t a, int pair);
/* A hue's sample: two cells of its colour, or its name without colour. */
bool paint_swatch(struct ui *u, int y, int *x, int end, enum palette_hue h, struct palette_rgb flat);
/* The notice in bold on the bottom row, when there is one; true if so. */
bool paint_notice(struct ui *u);
/* The transform stack as "[reverse] [focus f] " from the left of row 0;
 * returns the columns used. */
int paint_transforms(struct ui *u);
/* A line editor on the bottom row in room columns: label (bold when
 * bold), text scrolled so that the cursor shows; *end gets the column
 * after the text. Returns the cursor's column. */
int paint_edit_line(struct ui *u, const struct lineedit *e, bool bold, int room, int *end);
/* "12.34%" of part in whole, "-" when whole is 0. */
void paint_percent(double part, double whole, char *out, size_t size);
/* "N samples" (grouped) or, with a unit that has an event, its amount
 * ("1.16 s cpu-clock") of node i of t. */
void paint_amount(const struct ui *u, const struct tree *t, tree_idx i, char *out, size_t size);
/* The same for a count c of t. */
void paint_count(const struct ui *u, const struct tree *t, tree_count c, char *out, size_t size);
/* The name of node i of the browsed tree as shown: without its code-type
 * annotation ("_[k]"), which colour and the status line tell instead. */
const char *paint_name(const struct ui *u, tree_idx i, size_t *len);
/* Its display width (through the strtab's width cache). */
int paint_name_width(const struct ui *u, tree_idx i);
/* "  ·  " or "  |  " (5 columns). */
const char *paint_sep(void);

/* ---- the search session (finder.c) ---- */

/* Which search the browser is in. A search is held by reference
 * (search_ref) in each slot that names it: shown (a finished pass, drawn),
 * pending (a pass under way, in slices between keys) and, while the prompt
 * is open, before (what Esc goes back to). */
enum finder_phase {
	FINDER_IDLE,                /* no search */
	FINDER_RUNNING,             /* a pass under way (shown: the last one, or none) */
	FINDER_SHOWN                /* a finished search is drawn */
};

struct finder {
	enum finder_phase phase;
	bool prompting;             /* the search prompt is open */
	struct search *shown, *pending, *before;
	/* Select a match when the pending pass ends: the next (dir > 0) or
	 * previous one from the selection, the selection too when from_sel;
	 * dir 0: the heaviest in view (an accepted search). before_jump: the same wish of a pass the
	 * prompt put aside, for Esc to give back. */
	bool jump, jump_from_sel, before_jump;
	int jump_dir;
	struct lineedit_history hist;       /* payload: a `*` search's name */
	char err[160];              /* the prompt's regex error, sanitized; "" when valid */
	struct searchidx *idx;      /* of u->t, made on a thread after the first paint */
	long pass_t0;               /* when the pending pass started (ms) */
	unsigned long npasses;
	double pass_max_ms, pass_last_ms;
};

/* The pattern or pass drawn on the status line (pending first), or NULL. */
const struct search *finder_current(const struct ui *u);
/* Whether node i matches the shown search (false without one). */
bool finder_matches(const struct ui *u, tree_idx i);
/* s (or NULL: no search) replaces what is pending (s's reference is
 * taken); a first slice runs at once. */
void finder_start(struct ui *u, struct search *s);
/* One slice of the pending pass; a finished pass is shown (and a wished
 * jump made). */
void finder_work(struct ui *u, uint64_t budget_ns);
/* n / N: the next (dir > 0) or previous match from the selection, once
 * the pending pass (if any) ends. */
void finder_step(struct ui *u, int dir);
/* Selects the next (dir > 0) or previous match, wrapping; from_sel
 * accepts the selection itself. dir 0: the match with the most samples in
 * the zoomed view (in all when none is in view). */
void finder_goto(struct ui *u, int dir, bool from_sel);
/* `*`: the exact name of the flame graph's selected frame. */
void finder_search_name(struct ui *u, tree_idx sel);
/* Esc: no search. */
void finder_clear(struct ui *u);
/* --search: as if typed and accepted. */
void finder_search_initial(struct ui *u, const char *pattern);
/* `/`: opens the search prompt. */
void finder_prompt(struct ui *u);
/* The tree is about to be replaced: a pass stops reading it. */
void finder_pause(struct ui *u);
/* The tree was replaced: the search runs again on it (an exact-name
 * search stays one); the index is made again. */
void finder_tree_changed(struct ui *u);
/* Starts the search index of u->t (after the first paint). */
void finder_index(struct ui *u);
void finder_free(struct ui *u);

/* ---- prompts (views/prompt.c) ---- */

struct prompt_ops {
	bool bold;                  /* the label in bold (H, the filter) */
	bool narrow;                /* one column less (the search's layout) */
	/* The text changed (NULL: nothing until accepted). */
	void (*changed)(struct ui *u, struct lineedit *e);
	/* Enter, Esc: called after the prompt left the stack. */
	void (*accept)(struct ui *u, struct lineedit *e);
	void (*cancel)(struct ui *u, struct lineedit *e);
	/* What follows the text (an error, match counts) in buf; *bold or
	 * dim. NULL: nothing. */
	void (*info)(struct ui *u, const struct lineedit *e, char *buf, size_t size, bool *bold);
};

/* Opens the prompt over the top view: label, history h (or NULL). */
void prompt_open(struct ui *u, const char *label, struct lineedit_history *h, const struct prompt_ops *ops);
struct view *prompt_new(void);
void prompt_free(struct view *v);

/* ---- the views (src/views/) ---- */

struct flameview;
struct view *flameview_new(struct ui *u, const struct ui_options *o);
void flameview_free(struct view *v);
/* The zoom root and the selected frame of the flame graph. */
tree_idx flameview_zoom(const struct ui *u);
tree_idx flameview_selected(const struct ui *u);
/* Spans the flame graph has on screen (colour_begin's estimate). */
size_t flameview_spans(const struct ui *u);
/* Selects match m and makes sure it is drawn (zooming out or in). */
void flameview_reveal(struct ui *u, tree_idx m);
/* The tree changed: zoom and selection start again. */
void flameview_tree_changed(struct ui *u);
/* Zooms into zoom and selects sel (TREE_NONE: leaves either as it is),
 * after flameview_tree_changed: the view of a tree that replaced another
 * (a preview's, once the load ends). */
void flameview_restore(struct ui *u, tree_idx zoom, tree_idx sel);
/* The transform labels and the zoom root's path on row 0 (the table draws
 * it too). */
void flameview_draw_breadcrumb(struct ui *u);
/* Back from the table with function `name`: its heaviest frame in view
 * is selected and the name searched for exactly. */
void flameview_show_function(struct ui *u, strtab_id name);

struct view *tablescreen_new(enum toptable_key key);
void tablescreen_free(struct view *v);
/* Tab: the table of the flame graph's zoomed view, pushed. */
void tablescreen_open(struct ui *u);

struct view *sandwich_new(int min_width);
void sandwich_free(struct view *v);
/* The sandwich of the function named like node i of tree t, pushed. */
void sandwich_open(struct ui *u, const struct tree *t, tree_idx i);
/* The sandwich of function name (an id of u->t), pushed. */
void sandwich_open_name(struct ui *u, strtab_id name);
/* --view=sandwich[=NAME]: of NAME, else of the function with most self. */
void sandwich_start(struct ui *u, const char *name);

struct view *heat_new(void);
void heat_free(struct view *v);
/* t: the heat map of the sample times, pushed (a notice when the input
 * has none). */
void heat_open(struct ui *u);

struct view *threads_new(void);
void threads_free(struct view *v);
/* T: the thread picker, pushed (a notice when the input has no threads). */
void threads_open(struct ui *u);

struct view *help_new(void);
void help_free(struct view *v);
/* ?: the help, from its top, pushed. */
void help_open(struct ui *u);

/* ---- the shared state ---- */

/* A frame's span in a flame chart (ui_chart_zoom): places [w0, w1) of
 * the range's chart, the frame's depth, and where the chart it was
 * entered from was zoomed (its zoom root's depth and place there). */
struct ui_window {
	uint64_t w0, w1;
	uint32_t depth;
	uint32_t zdepth;
	uint64_t zat;
};

struct ui {
	const struct tree *t;       /* the tree browsed: the transform stack's current one */
	unsigned tree_gen;          /* bumped when t changes, from 1 */
	const struct unit *unit;    /* NULL: weights are samples */
	const char *title;
	bool quit;

	int lines, cols;
	bool too_small;
	char *buf;                  /* text_fit output, TEXT_FIT_BYTES(cols + 1) */
	size_t bufsize;
	char notice[512];           /* one-shot status message, sanitized; "" when none */

	struct view *stack[UI_MAX_VIEWS];
	size_t nviews;
	struct view *flame, *table, *sandwich, *help, *prompt, *heat, *threads_view;
	MEVENT mouse;               /* the event of the KEY_MOUSE being handled */
	bool mouse_ok;              /* getmouse gave one */

	/* The tree shown is views' current one; with diffmode its second is
	 * BEFORE and frames are coloured by their change. */
	struct transform_stack *views;
	bool diffmode, negate, normalize;
	struct diff diff;
	struct lineedit_history hide_hist, filter_hist;

	/* Sample times (ui_options): the heat map's, and the range of them
	 * browsed: range_tree (when has_range_tree) is the transform stack's
	 * base then, made from tl_tree by timeline_tree. */
	const struct timeline *tl;
	const struct tree *tl_tree, *base0;
	struct timeindex *ti;       /* tl's aggregates (ui_timeindex) */
	struct timeindex_job *ti_job;       /* building them after the first paint */
	const bool *threads;        /* NULL: all; else own_threads or --only's */
	bool *own_threads;
	unsigned threads_gen;       /* bumped when threads change */
	bool chart;                 /* the base is a flame chart (timeline_chart) */
	bool range_set;
	uint64_t range_t0, range_t1;
	struct tree range_tree;
	bool has_range_tree;
	/* The chart drawn finer for frames zoomed into (ui_chart_zoom): the
	 * frames' spans, places of the range's whole chart, innermost last. */
	struct ui_window *wins;
	size_t nwins, capwins;
	uint32_t chart_cells;       /* the chart's (timeindex_chart): a frame
	                               narrower than 1/cells may be left out */

	struct ui_colours col;
	struct finder find;
	struct samples samples;     /* the samples behind frames, on demand */
	const struct dsomap *dsos;  /* ui_options' */
	const struct strtab *dso_names;

	/* While the profile loads (ui_live_start): the live browser, and
	 * what the status line says of the preview shown ("" once the whole
	 * profile is). */
	struct ui_live *live;
	char loading[128];

	bool stats;                 /* --stats: prompt keystrokes timed */
	unsigned long nkeys;
	double keys_ms, keys_max_ms;
};

/* The status line says a key will take a while (O(tree) keys on a big
 * tree). */
void ui_busy(struct ui *u, const char *what);
/* The same for work that costs the samples (a million and more). */
void ui_busy_times(struct ui *u, const char *what);
/* The tree browsed changed (a transform pushed or undone, a new base):
 * everything indexed by its nodes or its name ids starts again: the zoom
 * stack, the colour cache, the search (run again, same pattern, on the
 * new tree), the diff colours (O(tree)). */
void ui_tree_changed(struct ui *u);
/* Applies a transform; undoes the last. Every view hears of the new
 * tree. */
void ui_push_transform(struct ui *u, struct transform tr);
void ui_undo_transform(struct ui *u);
/* Browses the samples taken in [t0, t1) (on the chosen threads): the
 * transforms apply again to their tree. all: the whole recording. False
 * (a notice said why) when no sample is in the range. O(samples + tree). */
bool ui_set_range(struct ui *u, uint64_t t0, uint64_t t1, bool all);
/* Whether the input has sample times; if not, the notice says "no WHAT
 * here" and which inputs have them. */
bool ui_has_times(struct ui *u, const char *what);
/* The aggregates of the sample times (NULL without them): built in the
 * background from the first paint on; the first view that needs them
 * waits for them (the status line says so). */
const struct timeindex *ui_timeindex(struct ui *u);
/* C: the flame chart of the range browsed (on) or its flame graph. False
 * (a notice) without sample times. */
bool ui_set_chart(struct ui *u, bool on);
/* Enter on frame z of a flame chart (the base, no transform) that keeps
 * fewer frames than z's detail needs on the screen's width (it keeps those
 * of 1/16384 of its samples or more): the chart of z's span alone
 * is drawn instead, as finely, zoomed into z. False (nothing done) when
 * that does not apply or z's span has no samples. */
bool ui_chart_zoom(struct ui *u, tree_idx z);
/* Out of such a chart: the one it was made from again, zoomed where it
 * was, z selected (all: every such chart left, the range's whole one
 * unzoomed). False when none is drawn. */
bool ui_chart_unzoom(struct ui *u, bool all);
/* Whether a chart of a frame's span is drawn; *depth: that frame's. */
bool ui_chart_window(const struct ui *u, uint32_t *depth);
/* Browses the samples of the checked threads (check[i] for thread i;
 * NULL: all), in the range browsed. False (a notice) when none has a
 * sample there. */
bool ui_set_threads(struct ui *u, const bool *check);
/* The terminal the browser draws on (for OSC 52), or NULL. */
FILE *ui_terminal(void);
long ui_now_ms(void);

#endif
