/* xalloc: allocation that never returns NULL, and fatal exits that leave the
 * terminal usable. On failure the registered cleanup hook runs (the UI
 * restores the terminal there), then "tflame: out of memory" and exit 1. */
#ifndef TFLAME_XALLOC_H
#define TFLAME_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
/* realloc for count*size elements; dies on overflow as on exhaustion. */
void *xreallocarray(void *p, size_t count, size_t size);
char *xstrdup(const char *s);

/* Called once before any fatal exit (OOM, xdie). One hook; NULL clears it. */
void xalloc_set_cleanup(void (*fn)(void));

/* Prints "tflame: MESSAGE" to stderr after running the cleanup hook; exit 1. */
_Noreturn void xdie(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
