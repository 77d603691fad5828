/* lineinput: a one-line text input (the hide regex, the table filter). Pure
 * state: the UI feeds it curses key codes and draws its label and text. */
#ifndef TFLAME_LINEINPUT_H
#define TFLAME_LINEINPUT_H

#include <stddef.h>

enum lineinput_result {
	LINEINPUT_EDITING,     /* keep reading keys */
	LINEINPUT_DONE,        /* Enter: the text is final */
	LINEINPUT_CANCEL       /* Esc or Ctrl-G: abandoned */
};

#define LINEINPUT_MAX 256

struct lineinput {
	char label[32];             /* shown before the text, e.g. "hide: " */
	char text[LINEINPUT_MAX];      /* NUL-terminated; printable ASCII and
	                               UTF-8 bytes as typed */
	size_t len;
	int purpose;                /* the caller's tag for what it is for */
};

/* Starts an empty input labelled label (cut to fit). */
void lineinput_start(struct lineinput *p, const char *label, int purpose);
/* Handles one key: printable bytes (>= 0x20, < 0x100, not DEL) append,
 * Backspace/DEL/Ctrl-H delete the last UTF-8 character, Ctrl-U clears,
 * Enter finishes, Esc/Ctrl-G cancel; other keys are ignored. */
enum lineinput_result lineinput_key(struct lineinput *p, int key);

#endif
