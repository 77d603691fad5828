/* xalloc: allocation that never returns NULL, and fatal exits that leave the
 * terminal usable. On failure the registered cleanup hook runs (the UI
 * restores the terminal there), then "tflame: out of memory" and exit 1. */
#ifndef TFLAME_XALLOC_H
#define TFLAME_XALLOC_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
/* realloc for count*size elements; dies on overflow as on exhaustion. */
void *xreallocarray(void *p, size_t count, size_t size);
char *xstrdup(const char *s);
/* Grows the array *p of *cap elements of size bytes (doubling, from 1024)
 * until index i is in it, the new elements zeroed: tables indexed by ids. */
void xgrow_zeroed(void **p, size_t *cap, size_t i, size_t size);

/* The whole pages inside [lo, hi) given back to the kernel (MADV_DONTNEED:
 * a private file mapping's pages then read the file again, anonymous ones
 * read as zeros), for memory done with that is not freed (a mapped input
 * as it is read, an array as it is copied out); where the system cannot
 * (no madvise), they stay. Returns where those pages end (hi rounded down
 * to a page), or lo when [lo, hi) holds no whole page: where the next
 * call may start. */
const void *xgive_back(const void *lo, const void *hi);

/* Recovery, for work that can be dropped and done again another way (the
 * parallel loader). Both settings belong to the calling thread only.
 *
 * xalloc_catch(env): until xalloc_catch(NULL), an x* allocation that fails
 * in this thread longjmps to env (setjmp returns 1) instead of exiting, once:
 * the setting is cleared before the jump. Code run under it must leave what
 * it builds freeable at each allocation (results assigned only once they
 * are obtained), and the caller then frees it; memory held only in the
 * locals of the frames jumped over is lost.
 *
 * xalloc_set_reclaim(fn, arg): when an allocation fails (and no catch is
 * set), fn(arg) runs and may free memory; when it returns true the
 * allocation is tried again, else the usual fatal exit follows. fn must
 * not allocate. NULL clears it. */
void xalloc_catch(jmp_buf *env);
void xalloc_set_reclaim(bool (*fn)(void *), void *arg);

/* Called once before any fatal exit (OOM, xdie). One hook; NULL clears it. */
void xalloc_set_cleanup(void (*fn)(void));

/* Prints "tflame: MESSAGE" to stderr after running the cleanup hook; exit 1. */
_Noreturn void xdie(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
