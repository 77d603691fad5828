/* lineedit: the browser's one-line editor (see lineedit.h). */
#include "config.h"
#include "lineedit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(HAVE_NCURSESW_CURSES_H)
#include <ncursesw/curses.h>
#else
#include <curses.h>
#endif
#include "keymap.h"
#include "xalloc.h"

/* ---- history ------------------------------------------------------------ */

void lineedit_history_add(struct lineedit_history *h, const char *text, const char *payload,
                          size_t payload_len)
{
	if (!text[0])
		return;
	if (h->n) {
		const struct lineedit_entry *last = &h->e[h->n - 1];
		if (strcmp(last->text, text) == 0 && !last->payload == !payload &&
		    (!payload || (last->payload_len == payload_len &&
		                  memcmp(last->payload, payload, payload_len) == 0)))
			return;
	}
	struct lineedit_entry add = { xstrdup(text), NULL, payload_len };
	if (payload) {
		add.payload = xmalloc(payload_len ? payload_len : 1);
		memcpy(add.payload, payload, payload_len);
	}
	if (!h->e)
		h->e = xreallocarray(NULL, LINEEDIT_HISTORY_MAX, sizeof *h->e);
	if (h->n == LINEEDIT_HISTORY_MAX) {
		free(h->e[0].text);
		free(h->e[0].payload);
		memmove(h->e, h->e + 1, (h->n - 1) * sizeof *h->e);
		h->n--;
	}
	h->e[h->n++] = add;
}

void lineedit_history_free(struct lineedit_history *h)
{
	for (size_t i = 0; i < h->n; i++) {
		free(h->e[i].text);
		free(h->e[i].payload);
	}
	free(h->e);
	memset(h, 0, sizeof *h);
}

/* ---- UTF-8 ---------------------------------------------------------------- */

/* Bytes of the UTF-8 sequence that lead byte c starts (1 for others). */
static size_t utf8_need(unsigned char c)
{
	return c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

/* Start of the character that ends at byte i (i > 0): its lead byte when
 * the continuation bytes before i belong to it, else the byte i - 1 alone. */
size_t lineedit_char_before(const char *s, size_t i)
{
	size_t k = i - 1, lim = i >= 4 ? i - 4 : 0;
	while (k > lim && ((unsigned char)s[k] & 0xc0) == 0x80)
		k--;
	unsigned char c = (unsigned char)s[k];
	if ((c & 0xc0) == 0x80 || i - k > utf8_need(c))
		return i - 1;
	return k;
}

/* End of the character that starts at byte i (i < len). */
size_t lineedit_char_after(const char *s, size_t len, size_t i)
{
	size_t need = utf8_need((unsigned char)s[i]), k = i + 1;
	while (k < len && k - i < need && ((unsigned char)s[k] & 0xc0) == 0x80)
		k++;
	return k;
}

/* Whether the bytes before i end in an unfinished UTF-8 character: the
 * rest of it is on its way (curses gives a character byte by byte). */
static bool utf8_unfinished(const char *s, size_t i)
{
	size_t k = i, lim = i >= 3 ? i - 3 : 0;
	while (k > lim && ((unsigned char)s[k - 1] & 0xc0) == 0x80)
		k--;
	if (k == 0)
		return false;
	unsigned char c = (unsigned char)s[k - 1];
	return c >= 0xc0 && i - (k - 1) < utf8_need(c);
}

/* ---- editing --------------------------------------------------------------- */

void lineedit_start(struct lineedit *e, const char *label, struct lineedit_history *h, int purpose)
{
	free(e->draft);
	e->draft = NULL;
	snprintf(e->label, sizeof e->label, "%s", label);
	e->hist = h;
	e->hpos = h ? h->n : 0;
	e->recalled = false;
	e->purpose = purpose;
	lineedit_set(e, "");
}

void lineedit_free(struct lineedit *e)
{
	free(e->text);
	free(e->draft);
	memset(e, 0, sizeof *e);
}

void lineedit_set(struct lineedit *e, const char *text)
{
	size_t len = strlen(text);
	if (len + 1 > e->cap) {
		e->cap = len + 64;
		e->text = xrealloc(e->text, e->cap);
	}
	memcpy(e->text, text, len + 1);
	e->len = e->cur = len;
}

const struct lineedit_entry *lineedit_recalled(const struct lineedit *e)
{
	return e->recalled && e->hist && e->hpos < e->hist->n ? &e->hist->e[e->hpos] : NULL;
}

static void delete_range(struct lineedit *e, size_t from, size_t to)
{
	memmove(e->text + from, e->text + to, e->len - to + 1);
	e->len -= to - from;
	e->cur = from;
}

static enum lineedit_result history(struct lineedit *e, int dir)
{
	struct lineedit_history *h = e->hist;
	if (!h)
		return LINEEDIT_NONE;
	if (dir < 0 && e->hpos > 0) {
		if (e->hpos == h->n) {
			free(e->draft);
			e->draft = xstrdup(e->text);
		}
		lineedit_set(e, h->e[--e->hpos].text);
	} else if (dir > 0 && e->hpos < h->n) {
		e->hpos++;
		lineedit_set(e, e->hpos < h->n ? h->e[e->hpos].text : e->draft ? e->draft : "");
	} else {
		return LINEEDIT_NONE;
	}
	e->recalled = e->hpos < h->n;
	return LINEEDIT_CHANGED;
}

enum lineedit_result lineedit_key(struct lineedit *e, int ch)
{
	bool changed = true;
	switch (keymap_lookup(KEYMAP_PROMPT, ch)) {
	case KEYMAP_PROMPT_ACCEPT: return LINEEDIT_ACCEPT;
	case KEYMAP_PROMPT_CANCEL: return LINEEDIT_CANCEL;
	case KEYMAP_PROMPT_HISTORY: return history(e, ch == KEY_UP ? -1 : +1);
	case KEYMAP_PROMPT_MOVE:
		if (ch == KEY_LEFT && e->cur > 0)
			e->cur = lineedit_char_before(e->text, e->cur);
		else if (ch == KEY_RIGHT && e->cur < e->len)
			e->cur = lineedit_char_after(e->text, e->len, e->cur);
		return LINEEDIT_NONE;
	case KEYMAP_PROMPT_ENDS:
		e->cur = ch == KEY_HOME ? 0 : e->len;
		return LINEEDIT_NONE;
	case KEYMAP_PROMPT_DELETE:
		if (ch == KEY_DC && e->cur < e->len)
			delete_range(e, e->cur, lineedit_char_after(e->text, e->len, e->cur));
		else if (ch != KEY_DC && e->cur > 0)
			delete_range(e, lineedit_char_before(e->text, e->cur), e->cur);
		else if (ch != KEY_DC && e->len == 0)
			return LINEEDIT_CANCEL;     /* Backspace on an empty line leaves, as in vim */
		else
			changed = false;
		break;
	case KEYMAP_PROMPT_KILL_LINE:
		changed = e->cur > 0;
		delete_range(e, 0, e->cur);
		break;
	case KEYMAP_PROMPT_KILL_WORD: {
		size_t k = e->cur;
		while (k > 0 && e->text[k - 1] == ' ')
			k--;
		while (k > 0 && e->text[k - 1] != ' ')
			k--;
		changed = k < e->cur;
		delete_range(e, k, e->cur);
		break;
	}
	default:
		/* Text: printable ASCII and the bytes of UTF-8 characters (curses
		 * hands them over one by one); controls and other keys are not. */
		if (ch < 0x20 || ch == 0x7f || ch > 0xff)
			return LINEEDIT_NONE;
		if (e->len + 2 > e->cap) {
			e->cap = 2 * e->cap + 64;
			e->text = xrealloc(e->text, e->cap);
		}
		memmove(e->text + e->cur + 1, e->text + e->cur, e->len - e->cur + 1);
		e->text[e->cur++] = (char)ch;
		e->len++;
		changed = !utf8_unfinished(e->text, e->cur);
		break;
	}
	if (!changed)
		return LINEEDIT_NONE;
	e->recalled = false;    /* edited */
	return LINEEDIT_CHANGED;
}
