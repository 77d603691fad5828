#include "config.h"
#include "lineinput.h"

#include <stdio.h>
#include <string.h>
#if defined(HAVE_NCURSESW_CURSES_H)
#include <ncursesw/curses.h>
#else
#include <curses.h>
#endif

void lineinput_start(struct lineinput *p, const char *label, int purpose)
{
	memset(p, 0, sizeof *p);
	snprintf(p->label, sizeof p->label, "%s", label);
	p->purpose = purpose;
}

enum lineinput_result lineinput_key(struct lineinput *p, int key)
{
	switch (key) {
	case '\n': case '\r': case KEY_ENTER:
		return LINEINPUT_DONE;
	case 27: case 7:            /* Esc, Ctrl-G */
		return LINEINPUT_CANCEL;
	case KEY_BACKSPACE: case 127: case 8:
		/* Back over UTF-8 continuation bytes to a whole character. */
		while (p->len > 0 && ((unsigned char)p->text[p->len - 1] & 0xc0) == 0x80)
			p->len--;
		if (p->len > 0)
			p->len--;
		p->text[p->len] = '\0';
		return LINEINPUT_EDITING;
	case 21:                    /* Ctrl-U */
		p->len = 0;
		p->text[0] = '\0';
		return LINEINPUT_EDITING;
	default:
		if (key >= 0x20 && key < 0x100 && key != 127 && p->len + 1 < sizeof p->text) {
			p->text[p->len++] = (char)key;
			p->text[p->len] = '\0';
		}
		return LINEINPUT_EDITING;
	}
}
