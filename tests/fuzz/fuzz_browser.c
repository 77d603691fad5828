/* libFuzzer harness: the browser itself, headless (ui_headless_*): random
 * key sequences over random small profiles must never crash, hang or leak,
 * and the screen must never hold a control byte.
 *
 * Input: byte 0 = flags (orientation, sort order, diff, the view it starts
 * in), bytes 1-2 = screen size (columns 1-160, lines 1-50, tiny ones
 * included), byte 3 = number of keys (0-255), then the keys (one byte
 * each: a printable byte is that key, a control byte names a special key:
 * Enter, Backspace, Esc, arrows, pages, Delete, Ctrl-G/U/W, a resize), then
 * a folded profile (a difffolded one with the diff flag). */
#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(HAVE_NCURSESW_CURSES_H)
#include <ncursesw/curses.h>
#else
#include <curses.h>
#endif
#include "common.h"
#include "model.h"
#include "transform.h"
#include "ui.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const int specials[] = {
	'\n', KEY_BACKSPACE, 27, '\t', KEY_LEFT, KEY_RIGHT, KEY_UP, KEY_DOWN, KEY_HOME, KEY_END,
	KEY_PPAGE, KEY_NPAGE, KEY_DC, 7, 21, 23, 127, 8, KEY_ENTER, 12 /* Ctrl-L */,
	KEY_RESIZE, KEY_F(1), 4 /* Ctrl-D */, 2 /* Ctrl-B */, 6 /* Ctrl-F */,
};

/* The screen as text, checked for control bytes. */
static void check_screen(struct ui *u)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		abort();
	ui_headless_dump(u, f);
	fclose(f);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];
		if ((c < 0x20 && c != '\n') || c == 0x7f)
			abort();
		/* C1 controls in their UTF-8 form */
		if (c == 0xc2 && i + 1 < len && (unsigned char)buf[i + 1] >= 0x80 &&
		    (unsigned char)buf[i + 1] <= 0x9f)
			abort();
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	unsigned flags = data[0];
	int cols = 1 + data[1] % 160, lines = 1 + data[2] % 50;
	size_t nkeys = data[3];
	data += 4;
	size -= 4;
	if (nkeys > size)
		nkeys = size;
	const uint8_t *keys = data;
	const char *text = (const char *)data + nkeys;
	size_t tlen = size - nkeys;

	static const enum tree_order orders[] = { TREE_ORDER_NAME, TREE_ORDER_WEIGHT, TREE_ORDER_INPUT };
	enum tree_order order = orders[(flags >> 1) % 3];
	bool diff = flags & 8;
	struct tree t, before;
	fuzz_build(&t, diff ? &before : NULL, text, tlen, order == TREE_ORDER_INPUT && !diff, order,
	           flags >> 4);
	struct transform_stack views;
	transform_stack_init(&views, &t, diff ? &before : NULL, order);
	struct ui_options o = {
		.orient = flags & 1 ? LAYOUT_ICICLE : LAYOUT_FLAME,
		.min_width = 1 + (flags >> 7),
		.title = "fuzz\x1b]0;title\x07",
		.notice = "a notice\r\nwith\x1b[2Jcontrols",
		.views = &views, .diff = diff, .negate = flags & 16, .normalize = flags & 32,
		.table = (flags & 0x30) == 0x30, .sandwich = (flags & 0x30) == 0x20 && !diff,
		.table_sort = TOPTABLE_SELF,
	};
	struct ui *u = ui_headless_open(transform_stack_tree(&views), &o, cols, lines);
	if (!u)
		abort();        /* the harness's machine has xterm's terminfo */
	bool alive = true;
	for (size_t i = 0; i < nkeys && alive; i++) {
		int k = keys[i] >= 0x20 ? keys[i] : specials[keys[i] % (sizeof specials / sizeof specials[0])];
		if (k == KEY_RESIZE) {
			cols = 1 + (cols * 7 + 13) % 160;
			lines = 1 + (lines * 5 + 3) % 50;
			alive = ui_headless_resize(u, cols, lines, NULL, NULL);
		} else {
			alive = ui_headless_key(u, k, NULL, NULL);
		}
		if (i % 16 == 0 && alive)
			check_screen(u);
	}
	if (alive)
		check_screen(u);
	ui_headless_close(u);
	transform_stack_free(&views);
	tree_free(&t);
	if (diff)
		tree_free(&before);
	return 0;
}
