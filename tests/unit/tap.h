/* tap.h: a tiny Test Anything Protocol emitter for the unit tests.
 * ok(cond, fmt, ...) prints "ok N - ..." or "not ok N - ..."; skip(n, why)
 * "ok N # SKIP why" n times; done_testing()
 * prints the plan and returns the exit status (non-zero if anything failed). */
#ifndef TFLAME_TAP_H
#define TFLAME_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

__attribute__((format(printf, 2, 3), unused))
static int ok(int cond, const char *fmt, ...)
{
	va_list ap;
	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

/* Compares strings; prints both on failure. */
__attribute__((unused))
static int is_str(const char *got, const char *want, const char *name)
{
	int c = got && want && strcmp(got, want) == 0;
	ok(c, "%s", name);
	if (!c)
		printf("#   got:  '%s'\n#   want: '%s'\n", got ? got : "(null)", want ? want : "(null)");
	return c;
}

__attribute__((unused))
static int is_int(long long got, long long want, const char *name)
{
	int c = got == want;
	ok(c, "%s", name);
	if (!c)
		printf("#   got:  %lld\n#   want: %lld\n", got, want);
	return c;
}

/* n checks that cannot run here, each "ok N # SKIP why". */
__attribute__((format(printf, 2, 3), unused))
static void skip(int n, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	for (int i = 0; i < n; i++)
		printf("ok %d # SKIP %s\n", ++tap_n, why);
	fflush(stdout);
}

__attribute__((unused))
static int done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
