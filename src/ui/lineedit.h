/* lineedit: the one-line editor of every prompt in the browser (search,
 * hide, the table filter).
 *
 * The text is bytes as typed (UTF-8 or not), of any length; the cursor is
 * a byte offset on a character boundary (invalid UTF-8 moves byte by byte).
 * A prompt may keep a history of accepted lines, each with an optional
 * payload of bytes (the search keeps a `*` search's exact name there);
 * Up and Down recall entries, and the entry stays "recalled" until the
 * text is edited. Keys come through the keymap's prompt actions. Pure
 * state: the UI draws it. Allocation failure dies (xalloc). */
#ifndef TFLAME_LINEEDIT_H
#define TFLAME_LINEEDIT_H

#include <stdbool.h>
#include <stddef.h>

struct lineedit_entry {
	char *text;
	char *payload;              /* NULL: none */
	size_t payload_len;
};

/* The last `max` accepted lines, oldest first. Zero-initialised is empty. */
struct lineedit_history {
	struct lineedit_entry *e;
	size_t n;
};
#define LINEEDIT_HISTORY_MAX 100

/* Adds a line (not an empty one, nor a repeat of the last); text and
 * payload are copied first (they may be an entry that makes room). */
void lineedit_history_add(struct lineedit_history *h, const char *text, const char *payload,
                          size_t payload_len);
void lineedit_history_free(struct lineedit_history *h);

struct lineedit {
	char label[48];             /* drawn before the text ("/", "filter: ") */
	char *text;                 /* NUL-terminated */
	size_t len, cap, cur;
	struct lineedit_history *hist;      /* NULL: no history */
	size_t hpos;                /* entry shown; hist->n: the line being typed */
	char *draft;                /* the line being typed, while browsing */
	bool recalled;              /* text is entry hpos, not edited since */
	int purpose;                /* the caller's tag */
};

enum lineedit_result {
	LINEEDIT_NONE,              /* nothing changed (a move, an ignored key) */
	LINEEDIT_CHANGED,           /* the text changed (typed, deleted, recalled) */
	LINEEDIT_ACCEPT,            /* Enter */
	LINEEDIT_CANCEL             /* Esc, Ctrl-G, or Backspace on an empty line */
};

/* Starts an empty line labelled label, with history h (or NULL). */
void lineedit_start(struct lineedit *e, const char *label, struct lineedit_history *h, int purpose);
void lineedit_free(struct lineedit *e);
/* Replaces the text (cursor at its end). */
void lineedit_set(struct lineedit *e, const char *text);
/* Handles one curses key. A byte of a UTF-8 character is inserted at
 * once, but reports CHANGED only when the character is whole. */
enum lineedit_result lineedit_key(struct lineedit *e, int ch);
/* The entry the text was recalled from, unedited since; else NULL. */
const struct lineedit_entry *lineedit_recalled(const struct lineedit *e);
/* Where the character before / after byte i starts / ends. */
size_t lineedit_char_before(const char *s, size_t i);
size_t lineedit_char_after(const char *s, size_t len, size_t i);

#endif
