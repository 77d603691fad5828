#include "config.h"
#include "xalloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_MADVISE
#include <sys/mman.h>
#endif

static void (*cleanup_hook)(void);
static _Thread_local jmp_buf *catch_env;
static _Thread_local bool (*reclaim_fn)(void *);
static _Thread_local void *reclaim_arg;

void xalloc_catch(jmp_buf *env)
{
	catch_env = env;
}

void xalloc_set_reclaim(bool (*fn)(void *), void *arg)
{
	reclaim_fn = fn;
	reclaim_arg = arg;
}

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

/* An allocation failed: returns when it is worth trying again. */
static void failed(void)
{
	if (catch_env) {
		jmp_buf *env = catch_env;
		catch_env = NULL;
		longjmp(*env, 1);
	}
	bool (*fn)(void *) = reclaim_fn;
	if (fn) {
		reclaim_fn = NULL;      /* no reentry should fn fail somehow */
		bool again = fn(reclaim_arg);
		reclaim_fn = fn;
		if (again)
			return;
	}
	oom();
}

void *xmalloc(size_t n)
{
	for (;;) {
		void *p = malloc(n ? n : 1);
		if (p)
			return p;
		failed();
	}
}

void *xcalloc(size_t count, size_t size)
{
	for (;;) {
		void *p = calloc(count ? count : 1, size ? size : 1);
		if (p)
			return p;
		failed();
	}
}

void *xrealloc(void *p, size_t n)
{
	for (;;) {
		void *q = realloc(p, n ? n : 1);
		if (q)
			return q;
		failed();
	}
}

void *xreallocarray(void *p, size_t count, size_t size)
{
	if (size && count > SIZE_MAX / size)
		oom();
	return xrealloc(p, count * size);
}

void xgrow_zeroed(void **p, size_t *cap, size_t i, size_t size)
{
	if (i < *cap)
		return;
	size_t n = *cap ? *cap : 1024;
	while (n <= i) {
		if (n > SIZE_MAX / 2)
			oom();
		n *= 2;
	}
	char *q = xreallocarray(*p, n, size);
	memset(q + *cap * size, 0, (n - *cap) * size);
	*p = q;
	*cap = n;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

const void *xgive_back(const void *lo, const void *hi)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t page = pg > 0 ? (uintptr_t)pg : 4096;
	uintptr_t a = ((uintptr_t)lo + page - 1) / page * page;
	uintptr_t b = (uintptr_t)hi / page * page;
	if (b <= a)
		return lo;
#ifdef HAVE_MADVISE
	(void)madvise((void *)a, b - a, MADV_DONTNEED);     /* else they stay: no harm */
#endif
	return (const void *)b;
}
