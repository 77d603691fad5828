#include "config.h"
#include "keymap.h"

#include <stdbool.h>
#include <string.h>
#if defined(HAVE_NCURSESW_CURSES_H)
#include <ncursesw/curses.h>
#else
#include <curses.h>
#endif

#define CTRL_KEY(c) ((c) & 0x1f)

/* In each table, the order of its section of the help. */
static const struct keymap_entry generic_keys[] = {
	{ { '?', KEY_F(1) }, KEYMAP_HELP, "show this help" },
	{ { CTRL_KEY('l') }, KEYMAP_REDRAW, "redraw the screen" },
	{ { 'q' }, KEYMAP_QUIT, "quit" },
};

static const struct keymap_entry flame_keys[] = {
	{ { 'h', KEY_LEFT }, KEYMAP_LEFT, "select the frame to the left" },
	{ { 'l', KEY_RIGHT }, KEYMAP_RIGHT, "select the frame to the right" },
	{ { 'k', KEY_UP }, KEYMAP_UP, "select the frame above" },
	{ { 'j', KEY_DOWN }, KEYMAP_DOWN, "select the frame below" },
	{ { KEY_PPAGE }, KEYMAP_PAGE_UP, "select a screen's height up" },
	{ { KEY_NPAGE }, KEYMAP_PAGE_DOWN, "select a screen's height down" },
	{ { CTRL_KEY('u') }, KEYMAP_HALF_UP, "select half a screen's height up" },
	{ { CTRL_KEY('d') }, KEYMAP_HALF_DOWN, "select half a screen's height down" },
	{ { 'p' }, KEYMAP_HOT_PATH, "hot path: select the widest child, again and again, to a leaf" },
	{ { 'S' }, KEYMAP_MOST_SELF, "select the frame with the most self samples in view" },
	{ { 'd' }, KEYMAP_DETAILS, "show or hide the details of the selected frame" },
	{ { '\n', '\r', KEY_ENTER }, KEYMAP_ZOOM, "zoom into the selected frame (out, on a dimmed ancestor; chart: finer)" },
	{ { 'u', KEY_BACKSPACE, 127, CTRL_KEY('h') }, KEYMAP_UNZOOM,
	  "zoom out one level; when not zoomed, undo the last transform" },
	{ { '0', KEY_HOME }, KEYMAP_UNZOOM_ALL, "zoom out to all samples" },
	{ { 'i' }, KEYMAP_ORIENT, "toggle flame (root at the bottom) and icicle (root at the top)" },
	{ { 'y' }, KEYMAP_COPY_NAME, "copy the selected frame's name to the clipboard" },
	{ { 'Y' }, KEYMAP_COPY_STACK, "copy the selected frame's stack (caller;...;frame) to the clipboard" },
	{ { '\t' }, KEYMAP_TABLE, "table of functions" },
	{ { 's' }, KEYMAP_SANDWICH, "sandwich: callers and callees of the selected function" },
	{ { 't' }, KEYMAP_HEATMAP, "heat map of the sample times: choose a time range to show" },
	{ { 'T' }, KEYMAP_THREADS, "threads and processes: choose the ones to show" },
	{ { 'C' }, KEYMAP_CHART, "flame chart (stacks in time order) <-> flame graph" },
	{ { 'r' }, KEYMAP_REVERSE, "transform: reverse the stacks (leaf functions become roots)" },
	{ { 'f' }, KEYMAP_FOCUS, "transform: focus on the selected function (all its calls merged)" },
	{ { 'x' }, KEYMAP_DROP, "transform: drop the selected frame and its samples" },
	{ { 'H' }, KEYMAP_HIDE, "transform: hide frames matching a regex (samples go to callers)" },
	{ { 'R' }, KEYMAP_MERGE_RECURSION, "transform: merge direct recursion (f;f;g becomes f;g)" },
	{ { 'c' }, KEYMAP_PALETTE, "next colour palette (the status line names it)" },
	{ { 'L' }, KEYMAP_LEGEND, "show or hide the colour legend" },
	{ { KEY_MOUSE }, KEYMAP_MOUSE, "click selects a frame, double-click zooms into it, wheel moves" },
	{ { '/' }, KEYMAP_SEARCH, "search frame names (extended regex, smart case)" },
	{ { 'n' }, KEYMAP_SEARCH_NEXT, "select the next match (depth-first, left to right)" },
	{ { 'N' }, KEYMAP_SEARCH_PREV, "select the previous match" },
	{ { '*' }, KEYMAP_SEARCH_NAME, "search the exact name of the selected frame" },
	{ { 27 }, KEYMAP_SEARCH_CLEAR, "clear the search" },
};

static const struct keymap_entry table_keys[] = {
	{ { 'j', KEY_DOWN }, KEYMAP_DOWN, "select the next row" },
	{ { 'k', KEY_UP }, KEYMAP_UP, "select the previous row" },
	{ { ' ', KEY_NPAGE }, KEYMAP_PAGE_DOWN, "a page down" },
	{ { KEY_PPAGE }, KEYMAP_PAGE_UP, "a page up" },
	{ { 'g', KEY_HOME }, KEYMAP_FIRST, "the first row" },
	{ { 'G', KEY_END }, KEYMAP_LAST, "the last row" },
	{ { '1' }, KEYMAP_SORT_SELF, "sort by self samples" },
	{ { '2' }, KEYMAP_SORT_TOTAL, "sort by total samples (recursion counted once)" },
	{ { '3' }, KEYMAP_SORT_NAME, "sort by name" },
	{ { '/' }, KEYMAP_FILTER, "show only functions matching a regex" },
	{ { 27 }, KEYMAP_FILTER_CLEAR, "show all functions again" },
	{ { '\n', '\r', KEY_ENTER }, KEYMAP_SHOW,
	  "show the function in the flame graph (its heaviest frame, searched)" },
	{ { 's' }, KEYMAP_SANDWICH, "sandwich of the selected function" },
	{ { 'f' }, KEYMAP_FOCUS, "transform: focus on the selected function" },
	{ { '\t' }, KEYMAP_BACK, "back to the flame graph" },
	{ { KEY_MOUSE }, KEYMAP_MOUSE, "click selects a row, double-click shows it, wheel scrolls" },
};

static const struct keymap_entry sandwich_keys[] = {
	{ { 'h', KEY_LEFT }, KEYMAP_LEFT, "select the frame to the left" },
	{ { 'l', KEY_RIGHT }, KEYMAP_RIGHT, "select the frame to the right" },
	{ { 'k', KEY_UP }, KEYMAP_UP, "select the frame above (across the function's row)" },
	{ { 'j', KEY_DOWN }, KEYMAP_DOWN, "select the frame below (across the function's row)" },
	{ { '\n', '\r', KEY_ENTER }, KEYMAP_RECENTER, "the sandwich of the selected frame's function" },
	{ { 's', 'u', KEY_BACKSPACE, 127, CTRL_KEY('h'), '\t', 27 }, KEYMAP_BACK, "back to the view before" },
	{ { KEY_MOUSE }, KEYMAP_MOUSE, "click selects a frame, double-click shows its function's sandwich" },
};

static const struct keymap_entry heat_keys[] = {
	{ { 'h', KEY_LEFT }, KEYMAP_LEFT, "the cell to the left (earlier)" },
	{ { 'l', KEY_RIGHT }, KEYMAP_RIGHT, "the cell to the right (later)" },
	{ { 'k', KEY_UP }, KEYMAP_UP, "the cell above (earlier in the column)" },
	{ { 'j', KEY_DOWN }, KEYMAP_DOWN, "the cell below (later in the column)" },
	{ { KEY_PPAGE }, KEYMAP_PAGE_UP, "ten columns to the left" },
	{ { KEY_NPAGE }, KEYMAP_PAGE_DOWN, "ten columns to the right" },
	{ { 'g', KEY_HOME }, KEYMAP_FIRST, "the first column" },
	{ { 'G', KEY_END }, KEYMAP_LAST, "the last column" },
	{ { 'v' }, KEYMAP_MARK, "start a selection at the cursor (again: drop it)" },
	{ { '\n', '\r', KEY_ENTER }, KEYMAP_SHOW, "the flame graph of the selection (or of the cursor's cell)" },
	{ { 'a' }, KEYMAP_RANGE_ALL, "the flame graph of the whole recording" },
	{ { 't', '\t', KEY_BACKSPACE, 127, CTRL_KEY('h'), 27 }, KEYMAP_BACK, "back to the flame graph" },
};

static const struct keymap_entry threads_keys[] = {
	{ { 'j', KEY_DOWN }, KEYMAP_DOWN, "the next thread" },
	{ { 'k', KEY_UP }, KEYMAP_UP, "the previous thread" },
	{ { KEY_NPAGE }, KEYMAP_PAGE_DOWN, "a page down" },
	{ { KEY_PPAGE }, KEYMAP_PAGE_UP, "a page up" },
	{ { 'g', KEY_HOME }, KEYMAP_FIRST, "the first (busiest) thread" },
	{ { 'G', KEY_END }, KEYMAP_LAST, "the last thread" },
	{ { ' ' }, KEYMAP_MARK, "check or uncheck the thread" },
	{ { 'a' }, KEYMAP_RANGE_ALL, "check all threads (when all are: none)" },
	{ { '\n', '\r', KEY_ENTER }, KEYMAP_SHOW, "show the samples of the checked threads" },
	{ { 'T', '\t', KEY_BACKSPACE, 127, CTRL_KEY('h'), 27 }, KEYMAP_BACK, "back, the threads as they were" },
};

static const struct keymap_entry help_keys[] = {
	{ { 'j', KEY_DOWN }, KEYMAP_DOWN, "scroll a line down" },
	{ { 'k', KEY_UP }, KEYMAP_UP, "scroll a line up" },
	{ { ' ', 'f', KEY_NPAGE }, KEYMAP_PAGE_DOWN, "scroll a page down" },
	{ { 'b', KEY_PPAGE }, KEYMAP_PAGE_UP, "scroll a page up" },
	{ { 'g', KEY_HOME }, KEYMAP_FIRST, "to the top" },
	{ { 'G', KEY_END }, KEYMAP_LAST, "to the end" },
	{ { 'q', 27 }, KEYMAP_BACK, "close the help (any other key too)" },
};

static const struct keymap_entry prompt_keys[] = {
	{ { '\n', '\r', KEY_ENTER }, KEYMAP_PROMPT_ACCEPT, "accept (a search keeps its highlight)" },
	{ { 27, CTRL_KEY('g') }, KEYMAP_PROMPT_CANCEL, "cancel (a search goes back to the one before)" },
	{ { KEY_UP, KEY_DOWN }, KEYMAP_PROMPT_HISTORY, "recall earlier, later lines" },
	{ { KEY_LEFT, KEY_RIGHT }, KEYMAP_PROMPT_MOVE, "move the cursor" },
	{ { KEY_HOME, KEY_END }, KEYMAP_PROMPT_ENDS, "cursor to the start, to the end" },
	{ { KEY_BACKSPACE, 127, CTRL_KEY('h'), KEY_DC }, KEYMAP_PROMPT_DELETE,
	  "delete before, under the cursor (Backspace on an empty line cancels)" },
	{ { CTRL_KEY('u') }, KEYMAP_PROMPT_KILL_LINE, "delete up to the cursor" },
	{ { CTRL_KEY('w') }, KEYMAP_PROMPT_KILL_WORD, "delete the word before the cursor" },
};

#define TABLE(name, title, e) { name, title, e, sizeof e / sizeof e[0] }
const struct keymap keymaps[KEYMAP_COUNT] = {
	[KEYMAP_GENERIC] = TABLE("all", "Everywhere", generic_keys),
	[KEYMAP_FLAME] = TABLE("flame", "Flame graph", flame_keys),
	[KEYMAP_TABLE_VIEW] = TABLE("table", "Table of functions (Tab)", table_keys),
	[KEYMAP_SANDWICH_VIEW] = TABLE("sandwich", "Sandwich (s)", sandwich_keys),
	[KEYMAP_HEAT_VIEW] = TABLE("heatmap", "Heat map (t)", heat_keys),
	[KEYMAP_THREADS_VIEW] = TABLE("threads", "Threads (T)", threads_keys),
	[KEYMAP_HELP_VIEW] = TABLE("help", "Help (?)", help_keys),
	[KEYMAP_PROMPT] = TABLE("prompt", "Prompts (/, H, the table's /)", prompt_keys),
};

enum keymap_action keymap_lookup(enum keymap_id id, int key)
{
	if (key == 0 || (unsigned)id >= KEYMAP_COUNT)
		return KEYMAP_NONE;
	const struct keymap *m = &keymaps[id];
	for (size_t i = 0; i < m->n; i++)
		for (int k = 0; k < KEYMAP_MAX_KEYS && m->e[i].keys[k]; k++)
			if (m->e[i].keys[k] == key)
				return m->e[i].action;
	return KEYMAP_NONE;
}

/* Our own names rather than curses' keyname(): they read better in help
 * ("Left", not "KEY_LEFT") and work before curses is initialized. */
static void display_name(int key, char *buf, size_t size)
{
	static const struct { int key; const char *name; } names[] = {
		{ KEY_LEFT, "Left" }, { KEY_RIGHT, "Right" }, { KEY_UP, "Up" },
		{ KEY_DOWN, "Down" }, { KEY_HOME, "Home" }, { KEY_END, "End" },
		{ KEY_ENTER, "Enter" }, { '\n', "Enter" }, { '\r', "Enter" },
		{ KEY_BACKSPACE, "Backspace" }, { 127, "Backspace" },
		{ CTRL_KEY('h'), "Backspace" }, { KEY_MOUSE, "mouse" },
		{ KEY_PPAGE, "PageUp" }, { KEY_NPAGE, "PageDown" }, { KEY_DC, "Delete" },
		{ '\t', "Tab" }, { 27, "Esc" }, { ' ', "Space" },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].key == key) {
			snprintf(buf, size, "%s", names[i].name);
			return;
		}
	if (key >= KEY_F(1) && key <= KEY_F(63))
		snprintf(buf, size, "F%d", key - KEY_F0);
	else if (key > 0 && key < 32)
		snprintf(buf, size, "Ctrl-%c", key + '@');
	else if (key > 32 && key < 127)
		snprintf(buf, size, "%c", key);
	else
		snprintf(buf, size, "#%d", key);
}

size_t keymap_keys_text(const struct keymap_entry *e, char *buf, size_t size)
{
	char names[KEYMAP_MAX_KEYS][16];
	size_t len = 0;
	if (size == 0)
		return 0;
	buf[0] = '\0';
	for (int k = 0; k < KEYMAP_MAX_KEYS && e->keys[k]; k++) {
		display_name(e->keys[k], names[k], sizeof names[k]);
		bool dup = false;
		for (int j = 0; j < k; j++)
			dup = dup || strcmp(names[j], names[k]) == 0;
		if (dup)
			continue;
		int n = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", names[k]);
		if (n < 0 || (size_t)n >= size - len)
			return strlen(buf);
		len += (size_t)n;
	}
	return len;
}

void keymap_write_help(FILE *out)
{
	char keys[96];
	for (size_t m = 0; m < KEYMAP_COUNT; m++)
		for (size_t i = 0; i < keymaps[m].n; i++) {
			keymap_keys_text(&keymaps[m].e[i], keys, sizeof keys);
			fprintf(out, "%s\t%s\t%s\n", keymaps[m].title, keys, keymaps[m].e[i].desc);
		}
}
