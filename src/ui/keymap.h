/* keymap: the one table from keys to actions. The browser's dispatch, its
 * help screen and the man page's key list (--list-keys) all come from it, so
 * they cannot drift apart. Key codes are curses' (wgetch with keypad on). */
#ifndef TFLAME_KEYMAP_H
#define TFLAME_KEYMAP_H

#include <stddef.h>
#include <stdio.h>

/* One action per intent; a view gives each the meaning it has there
 * (DOWN moves the selection in the graph, a row in the table, scrolls the
 * help). */
enum keymap_action {
	KEYMAP_NONE,
	KEYMAP_LEFT,            /* previous frame on the same row */
	KEYMAP_RIGHT,           /* next frame on the same row */
	KEYMAP_UP,              /* one row up on screen */
	KEYMAP_DOWN,            /* one row down on screen */
	KEYMAP_PAGE_UP,         /* a screen up */
	KEYMAP_PAGE_DOWN,       /* a screen down */
	KEYMAP_HALF_UP,         /* half a screen up */
	KEYMAP_HALF_DOWN,       /* half a screen down */
	KEYMAP_FIRST,           /* to the first row */
	KEYMAP_LAST,            /* to the last row */
	KEYMAP_ZOOM,            /* zoom into the selection (out, on an ancestor) */
	KEYMAP_UNZOOM,          /* pop one zoom level */
	KEYMAP_UNZOOM_ALL,      /* back to the whole profile */
	KEYMAP_ORIENT,          /* flame <-> icicle */
	KEYMAP_HOT_PATH,        /* the widest child, repeatedly, down to a leaf */
	KEYMAP_MOST_SELF,       /* the frame with the most self weight in view */
	KEYMAP_DETAILS,         /* show or hide the selected frame's details */
	KEYMAP_COPY_NAME,       /* selected frame's name to the clipboard */
	KEYMAP_COPY_STACK,      /* selected frame's stack, root first, to the clipboard */
	KEYMAP_PALETTE,         /* the next colour palette */
	KEYMAP_LEGEND,          /* show or hide the colour legend */
	KEYMAP_MOUSE,           /* a mouse event: click selects, double-click zooms */
	KEYMAP_TABLE,           /* open the top table */
	KEYMAP_HEATMAP,         /* open the heat map of sample times */
	KEYMAP_THREADS,         /* open the thread picker */
	KEYMAP_CHART,           /* flame graph <-> flame chart of the times */
	KEYMAP_MARK,            /* start (or end) a selection */
	KEYMAP_RANGE_ALL,       /* the whole recording */
	KEYMAP_SHOW,            /* the selected row's function in the flame graph */
	KEYMAP_RECENTER,        /* the sandwich of the selected frame's function */
	KEYMAP_BACK,            /* close this view, back to the one under it */
	KEYMAP_FILTER,          /* prompt for a regex filter of the rows */
	KEYMAP_FILTER_CLEAR,    /* drop the filter */
	KEYMAP_REVERSE,         /* push the reverse transform (leaf -> root) */
	KEYMAP_SANDWICH,        /* callers and callees of the selected function */
	KEYMAP_FOCUS,           /* push: focus on the selected function */
	KEYMAP_DROP,            /* push: drop the selected subtree */
	KEYMAP_HIDE,            /* prompt for a regex, push: hide matching frames */
	KEYMAP_MERGE_RECURSION, /* push: merge direct recursion */
	KEYMAP_SORT_SELF,       /* table: sort by self */
	KEYMAP_SORT_TOTAL,      /* table: sort by total */
	KEYMAP_SORT_NAME,       /* table: sort by name */
	KEYMAP_REDRAW,          /* repaint the whole terminal */
	KEYMAP_HELP,            /* the help screen */
	KEYMAP_QUIT,
	KEYMAP_SEARCH,          /* open the search prompt */
	KEYMAP_SEARCH_NEXT,     /* select the next match (preorder) */
	KEYMAP_SEARCH_PREV,     /* select the previous match */
	KEYMAP_SEARCH_NAME,     /* search the selected frame's exact name */
	KEYMAP_SEARCH_CLEAR,    /* drop the search and its highlight */
	/* prompts (lineedit.c) */
	KEYMAP_PROMPT_ACCEPT,   /* keep the line, close the prompt */
	KEYMAP_PROMPT_CANCEL,   /* close the prompt, as before it */
	KEYMAP_PROMPT_HISTORY,  /* Up: older entry, Down: newer */
	KEYMAP_PROMPT_MOVE,     /* cursor by a character (Left, Right) */
	KEYMAP_PROMPT_ENDS,     /* cursor to the start (Home) or end (End) */
	KEYMAP_PROMPT_DELETE,   /* Backspace: before the cursor; Delete: under it */
	KEYMAP_PROMPT_KILL_LINE,/* delete from the start to the cursor */
	KEYMAP_PROMPT_KILL_WORD /* delete the word before the cursor */
};

#define KEYMAP_MAX_KEYS 8

struct keymap_entry {
	int keys[KEYMAP_MAX_KEYS];  /* curses key codes; 0 ends the list early */
	enum keymap_action action;
	const char *desc;           /* short, lower case, no final period */
};

/* The key tables: one per view, and the generic one that the graph, table
 * and sandwich fall back to for keys they do not bind (a prompt types
 * them, the help closes on them). A table lists only keys that do
 * something in its view. */
enum keymap_id {
	KEYMAP_GENERIC,
	KEYMAP_FLAME,
	KEYMAP_TABLE_VIEW,
	KEYMAP_SANDWICH_VIEW,
	KEYMAP_HEAT_VIEW,
	KEYMAP_THREADS_VIEW,
	KEYMAP_HELP_VIEW,
	KEYMAP_PROMPT,
	KEYMAP_COUNT
};

struct keymap {
	const char *name;           /* one word ("flame") */
	const char *title;          /* heading of its section in the help, the
	                               man page and --list-keys */
	const struct keymap_entry *e;
	size_t n;
};

/* Indexed by enum keymap_id, in the help's order. */
extern const struct keymap keymaps[KEYMAP_COUNT];

/* Action of key in table id alone, KEYMAP_NONE when unbound there. */
enum keymap_action keymap_lookup(enum keymap_id id, int key);

/* The entry's keys as text, e.g. "h, Left" (keys that read alike, such as
 * the codes terminals send for Backspace, are named once). Returns the
 * length written (truncated to size, always NUL-terminated). */
size_t keymap_keys_text(const struct keymap_entry *e, char *buf, size_t size);

/* One line per entry of every table, in order: "TITLE<TAB>KEYS<TAB>
 * DESCRIPTION\n" (for --list-keys and the docs test). */
void keymap_write_help(FILE *out);

#endif
