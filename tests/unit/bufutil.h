/* bufutil.h: a growing byte buffer for unit tests that build binary inputs
 * (perf.data records, protobuf messages) piece by piece. */
#ifndef TFLAME_TEST_BUFUTIL_H
#define TFLAME_TEST_BUFUTIL_H

#include <stdlib.h>
#include <string.h>

struct buf {
	unsigned char *p;
	size_t n, cap;
};

/* Appends v[0..n); aborts when memory runs out (a test has no way on). */
__attribute__((unused))
static void put(struct buf *b, const void *v, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	if (n)
		memcpy(b->p + b->n, v, n);
	b->n += n;
}

#endif
