/* prompt: a one-line text input (the hide regex, the table filter). Pure
 * state: the UI feeds it curses key codes and draws prompt_text(). */
#ifndef TFLAME_PROMPT_H
#define TFLAME_PROMPT_H

#include <stddef.h>

enum prompt_result {
	PROMPT_EDITING,     /* keep reading keys */
	PROMPT_DONE,        /* Enter: the text is final */
	PROMPT_CANCEL       /* Esc or Ctrl-G: abandoned */
};

#define PROMPT_MAX 256

struct prompt {
	char label[32];             /* shown before the text, e.g. "hide: " */
	char text[PROMPT_MAX];      /* NUL-terminated; printable ASCII and
	                               UTF-8 bytes as typed */
	size_t len;
	int purpose;                /* the caller's tag for what it is for */
};

/* Starts an empty prompt labelled label (cut to fit). */
void prompt_start(struct prompt *p, const char *label, int purpose);
/* Handles one key: printable bytes (>= 0x20, < 0x100, not DEL) append,
 * Backspace/DEL/Ctrl-H delete the last UTF-8 character, Ctrl-U clears,
 * Enter finishes, Esc/Ctrl-G cancel; other keys are ignored. */
enum prompt_result prompt_key(struct prompt *p, int key);

#endif
