/* ui: the interactive browser. ncurses on /dev/tty (so the profile may come
 * on stdin), an event loop over the keymap's actions, drawing the layout. */
#ifndef TFLAME_UI_H
#define TFLAME_UI_H

#include <stdbool.h>
#include <stdio.h>
#include "layout.h"
#include "toptable.h"
#include "transform.h"
#include "palette.h"
#include "tree.h"
#include "dsomap.h"
#include "timeline.h"
#include "unit.h"

struct ui_options {
	enum layout_orient orient;  /* initial orientation */
	int min_width;              /* columns, >= 1 */
	const char *title;          /* input name(s), shown in the status line */
	const char *notice;         /* one line shown at start (e.g. skipped lines), or NULL */
	/* Views: the transform stack whose current tree is the t of ui_run
	 * (NULL: no transforms, t is browsed as it is). With diff, its second
	 * tree is BEFORE and frames are coloured by their change. */
	struct transform_stack *views;
	bool diff, negate, normalize;
	bool table;                 /* start in the top table */
	bool sandwich;              /* start in the sandwich of sandwich_name
	                               (NULL: the function with most self) */
	const char *sandwich_name;
	enum toptable_key table_sort;
	const struct palette *palette;      /* NULL: the default (hot) */
	const struct palette_rules *rules;  /* --color-rule, --palette-map; or NULL */
	const char *search;         /* a search to start with (--search), or NULL */
	bool stats;                 /* at exit, time of search keystrokes on stderr */
	const struct unit *unit;    /* what the weights count; NULL: samples */
	/* Sample times (NULL: none): their leaves are nodes of timeline_tree,
	 * which is t itself unless --time or --only made t a part of it. The
	 * heat map (t) draws them; a range chosen there becomes the tree
	 * browsed. threads: the --only choice (NULL: all); range_t0/t1: the
	 * --time range when range_set. */
	const struct timeline *timeline;
	const struct tree *timeline_tree;
	const bool *threads;
	uint64_t range_t0, range_t1;
	bool range_set;
	/* Each frame name's object (perf's DSO), by the ids of dso_names (the
	 * loaded tree's names); NULL: not known. */
	const struct dsomap *dsos;
	const struct strtab *dso_names;
	bool heatmap;               /* start in the heat map */
	bool chart;                 /* start in the flame chart of the times */
};

/* Browses t (finalized) until the user quits. Restores the terminal on every
 * exit path. Returns the process exit status: 0 after q; 1 when the terminal
 * could not be opened or was lost (message on stderr); 128 + N after signal
 * N (SIGINT, SIGTERM, SIGHUP). SIGTSTP suspends and resumes (curses). */
int ui_run(const struct tree *t, const struct ui_options *o);

/* ---- the browser while the profile loads ---- */

/* Where a live browser gets its previews (load.h's load_live_preview and
 * load_live_status have these forms): preview returns a tree of part of
 * the profile (not finalized; the browser frees it) or NULL when there is
 * none yet, with a few words in what ("a 2% sample"); status says how far
 * the load is ("loading 23%"); views makes the transform stack of a
 * preview tree (transform_stack_init and the transforms asked for; NULL:
 * none), given views_arg. */
struct ui_live_source {
	struct tree *(*preview)(void *arg, char *what, size_t size);
	void (*status)(void *arg, char *buf, size_t size);
	void (*views)(void *views_arg, struct transform_stack *st, const struct tree *t, enum tree_order order);
	void *arg, *views_arg;
};

struct ui_live;
/* Starts the browser on a thread of its own while the caller loads the
 * profile. After a moment (0.3 s), unless ui_live_finish or ui_live_abort
 * came first, it shows a preview from src (finalized in `order`) with o
 * (as for ui_run; its views, timeline and notice are not used), says on
 * the status line that it is partial and how far the load is, and takes
 * keys; the preview of a stream is made again as the stream goes on. The
 * calling thread blocks the browser's signals until ui_live_finish or
 * ui_live_abort (threads it starts inherit that), so that they reach the
 * browser. o and what it points to must last until then. q or a signal
 * before the load ends ends the process (_exit, with ui_run's status). */
struct ui_live *ui_live_start(const struct ui_live_source *src, const struct ui_options *o,
                              enum tree_order order);
/* The load is done: t and o (as for ui_run) replace the preview, keeping
 * the zoomed and selected frames where t has them, the search and the
 * transforms made meanwhile (or the browser opens now if it showed no
 * preview); then the browser runs until quit. Returns ui_run's status.
 * Frees lv. */
int ui_live_finish(struct ui_live *lv, const struct tree *t, const struct ui_options *o);
/* The load failed: the browser closes, the terminal as it was. Frees lv. */
void ui_live_abort(struct ui_live *lv);

/* Headless: the browser on a screen of cols x lines that curses keeps in
 * memory, with no terminal, driven key by key (key scripts, tests,
 * benchmarks, fuzzing). NULL (with a message) when curses has no terminal
 * type to draw with. */
struct ui;
struct ui *ui_headless_open(const struct tree *t, const struct ui_options *o, int cols, int lines);
/* Handles one key (a curses code), lets the search passes it started end,
 * and redraws; the time of each part in *handle_ms, *draw_ms (unless
 * NULL). False once the browser has quit. */
bool ui_headless_key(struct ui *u, int key, double *handle_ms, double *draw_ms);
/* A new screen size, as a terminal's resize (timed as ui_headless_key).
 * False once quit. */
bool ui_headless_resize(struct ui *u, int cols, int lines, double *handle_ms, double *draw_ms);
/* The screen as text: one line per row, trailing blanks cut. */
void ui_headless_dump(struct ui *u, FILE *out);
void ui_headless_close(struct ui *u);

#endif
