/* keymap: the one table from keys to actions. The browser's dispatch, its
 * help screen and the man page's key list (--list-keys) all come from it, so
 * they cannot drift apart. Key codes are curses' (wgetch with keypad on). */
#ifndef TFLAME_KEYMAP_H
#define TFLAME_KEYMAP_H

#include <stddef.h>
#include <stdio.h>

enum keymap_action {
	KEYMAP_NONE,
	KEYMAP_LEFT,            /* previous frame on the same row */
	KEYMAP_RIGHT,           /* next frame on the same row */
	KEYMAP_UP,              /* one row up on screen */
	KEYMAP_DOWN,            /* one row down on screen */
	KEYMAP_ZOOM,            /* zoom into the selection (out, on an ancestor) */
	KEYMAP_UNZOOM,          /* pop one zoom level */
	KEYMAP_UNZOOM_ALL,      /* back to the whole profile */
	KEYMAP_ORIENT,          /* flame <-> icicle */
	KEYMAP_COPY_NAME,       /* selected frame's name to the clipboard */
	KEYMAP_COPY_STACK,      /* selected frame's stack, root first, to the clipboard */
	KEYMAP_PALETTE,         /* the next colour palette */
	KEYMAP_LEGEND,          /* show or hide the colour legend */
	KEYMAP_MOUSE,           /* a mouse event: click selects, double-click zooms */
	KEYMAP_REDRAW,          /* repaint the whole terminal */
	KEYMAP_HELP,            /* the help screen */
	KEYMAP_QUIT
};

#define KEYMAP_MAX_KEYS 4

struct keymap_entry {
	int keys[KEYMAP_MAX_KEYS];  /* curses key codes; 0 ends the list early */
	enum keymap_action action;
	const char *desc;           /* short, lower case, no final period */
};

extern const struct keymap_entry keymap_table[];
extern const size_t keymap_count;

/* Action of key in normal mode, KEYMAP_NONE when unbound. */
enum keymap_action keymap_lookup(int key);

/* The entry's keys as text, e.g. "h, Left" (keys that read alike, such as
 * the codes terminals send for Backspace, are named once). Returns the
 * length written (truncated to size, always NUL-terminated). */
size_t keymap_keys_text(const struct keymap_entry *e, char *buf, size_t size);

/* One line per entry: "KEYS<TAB>DESCRIPTION\n" (for --list-keys). */
void keymap_write_help(FILE *out);

#endif
