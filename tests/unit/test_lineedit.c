/* lineedit: editing, the cursor over UTF-8, history and recall, worked by
 * hand key by key. */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(HAVE_NCURSESW_CURSES_H)
#include <ncursesw/curses.h>
#else
#include <curses.h>
#endif
#include "lineedit.h"
#include "tap.h"

#define CTRL(c) ((c) & 0x1f)

static enum lineedit_result type(struct lineedit *e, const char *s)
{
	enum lineedit_result r = LINEEDIT_NONE;
	for (; *s; s++)
		r = lineedit_key(e, (unsigned char)*s);
	return r;
}

/* The text with the cursor shown as '|'. */
static const char *shown(const struct lineedit *e)
{
	static char buf[512];
	snprintf(buf, sizeof buf, "%.*s|%s", (int)e->cur, e->text, e->text + e->cur);
	return buf;
}

int main(void)
{
	struct lineedit e = { 0 };
	lineedit_start(&e, "hide: ", NULL, 7);
	ok(type(&e, "ab") == LINEEDIT_CHANGED && strcmp(e.text, "ab") == 0 && e.purpose == 7, "typing");
	/* U+00E9 as two bytes: the first alone is not a character yet */
	ok(lineedit_key(&e, 0xc3) == LINEEDIT_NONE, "half a UTF-8 character: no change reported");
	ok(lineedit_key(&e, 0xa9) == LINEEDIT_CHANGED, "its second byte: changed");
	is_str(shown(&e), "ab\xc3\xa9|", "UTF-8 bytes kept, cursor at the end");
	lineedit_key(&e, KEY_LEFT);
	is_str(shown(&e), "ab|\xc3\xa9", "Left steps over the whole character");
	lineedit_key(&e, KEY_LEFT);
	type(&e, "X");
	is_str(shown(&e), "aX|b\xc3\xa9", "typing inserts at the cursor");
	lineedit_key(&e, KEY_DC);
	is_str(shown(&e), "aX|\xc3\xa9", "Delete removes under the cursor");
	lineedit_key(&e, KEY_DC);
	is_str(shown(&e), "aX|", "Delete removes a whole character");
	lineedit_key(&e, KEY_HOME);
	is_str(shown(&e), "|aX", "Home");
	ok(lineedit_key(&e, KEY_BACKSPACE) == LINEEDIT_NONE, "Backspace at the start of a line: nothing");
	lineedit_key(&e, KEY_END);
	type(&e, " foo bar  ");
	ok(lineedit_key(&e, CTRL('w')) == LINEEDIT_CHANGED, "Ctrl-W");
	is_str(shown(&e), "aX foo |", "Ctrl-W deletes the word before the cursor and its blanks");
	lineedit_key(&e, KEY_LEFT);
	lineedit_key(&e, KEY_LEFT);
	lineedit_key(&e, CTRL('u'));
	is_str(shown(&e), "|o ", "Ctrl-U deletes up to the cursor");
	lineedit_key(&e, KEY_END);
	lineedit_key(&e, 127);
	lineedit_key(&e, 8);
	lineedit_key(&e, KEY_BACKSPACE);
	is_str(shown(&e), "|", "Backspace, Ctrl-H and DEL delete before the cursor");
	ok(lineedit_key(&e, KEY_BACKSPACE) == LINEEDIT_CANCEL, "Backspace on an empty line leaves (vim)");
	ok(lineedit_key(&e, '\r') == LINEEDIT_ACCEPT && lineedit_key(&e, KEY_ENTER) == LINEEDIT_ACCEPT,
	   "Enter accepts");
	ok(lineedit_key(&e, 27) == LINEEDIT_CANCEL && lineedit_key(&e, CTRL('g')) == LINEEDIT_CANCEL,
	   "Esc and Ctrl-G cancel");
	ok(lineedit_key(&e, KEY_F(5)) == LINEEDIT_NONE && lineedit_key(&e, 1) == LINEEDIT_NONE && e.len == 0,
	   "other keys and controls are not text");
	/* no fixed limit (the old input stopped at 255 bytes) */
	for (int i = 0; i < 1000; i++)
		lineedit_key(&e, 'a' + i % 26);
	ok(e.len == 1000 && e.cur == 1000 && e.text[999] == 'a' + 999 % 26, "1,000 bytes typed, all kept");
	lineedit_free(&e);

	/* history: payloads, repeats, recall, the draft kept */
	struct lineedit_history h = { 0 };
	lineedit_history_add(&h, "", NULL, 0);
	lineedit_history_add(&h, "mal", NULL, 0);
	lineedit_history_add(&h, "^f\\.c$", "f.c", 3);
	lineedit_history_add(&h, "^f\\.c$", "f.c", 3);
	lineedit_history_add(&h, "^f\\.c$", NULL, 0);
	ok(h.n == 3, "an empty line and a repeat of the last are not kept; the same text without the payload is");
	lineedit_start(&e, "/", &h, 0);
	type(&e, "dra");
	ok(lineedit_key(&e, KEY_UP) == LINEEDIT_CHANGED && strcmp(e.text, "^f\\.c$") == 0 &&
	   lineedit_recalled(&e) == &h.e[2] && !lineedit_recalled(&e)->payload, "Up: the newest entry");
	lineedit_key(&e, KEY_UP);
	const struct lineedit_entry *r = lineedit_recalled(&e);
	ok(r && r->payload && r->payload_len == 3 && memcmp(r->payload, "f.c", 3) == 0,
	   "Up again: the entry with its payload");
	lineedit_key(&e, KEY_UP);
	ok(strcmp(e.text, "mal") == 0 && lineedit_key(&e, KEY_UP) == LINEEDIT_NONE, "the oldest; no further");
	lineedit_key(&e, KEY_DOWN);
	lineedit_key(&e, KEY_DOWN);
	ok(lineedit_key(&e, KEY_DOWN) == LINEEDIT_CHANGED && strcmp(e.text, "dra") == 0 && !lineedit_recalled(&e),
	   "Down past the newest: the draft back");
	ok(lineedit_key(&e, KEY_DOWN) == LINEEDIT_NONE, "and no further");
	lineedit_key(&e, KEY_UP);
	lineedit_key(&e, KEY_UP);
	ok(lineedit_recalled(&e) != NULL, "recalled");
	lineedit_key(&e, KEY_LEFT);
	ok(lineedit_recalled(&e) != NULL, "a move is not an edit");
	type(&e, "x");
	ok(lineedit_recalled(&e) == NULL, "typing makes it a new line");
	lineedit_free(&e);
	for (int i = 0; i < 150; i++) {
		char t[16];
		snprintf(t, sizeof t, "s%d", i);
		lineedit_history_add(&h, t, NULL, 0);
	}
	ok(h.n == LINEEDIT_HISTORY_MAX && strcmp(h.e[0].text, "s50") == 0 && strcmp(h.e[99].text, "s149") == 0,
	   "at most 100 entries: the oldest go");
	/* the entry being recalled is copied before it can make room */
	lineedit_history_add(&h, h.e[0].text, NULL, 0);
	ok(strcmp(h.e[99].text, "s50") == 0, "re-adding the oldest entry (which makes room) keeps its text");
	lineedit_history_free(&h);
	return done_testing();
}
