#include "config.h"
#include "xalloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void (*cleanup_hook)(void);

void xalloc_set_cleanup(void (*fn)(void))
{
	cleanup_hook = fn;
}

static void run_cleanup(void)
{
	void (*fn)(void) = cleanup_hook;
	cleanup_hook = NULL;    /* a failure inside the hook must not loop */
	if (fn)
		fn();
}

_Noreturn void xdie(const char *fmt, ...)
{
	va_list ap;
	run_cleanup();
	fputs("tflame: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static _Noreturn void oom(void)
{
	xdie("out of memory");
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom();
	return q;
}

void *xreallocarray(void *p, size_t count, size_t size)
{
	if (size && count > SIZE_MAX / size)
		oom();
	return xrealloc(p, count * size);
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}
