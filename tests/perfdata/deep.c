/* deep.c: recursion 300 levels deep in one function, dive(), with the work
 * done at the bottom, so that nearly every sample has a call chain longer
 * than perf keeps (kernel.perf_event_max_stack, 127 by default, and the
 * size of the stack copied for --call-graph dwarf). About half a second. */
#include <stdlib.h>

#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

#define DEPTH 300

static volatile unsigned long sink;

NOINLINE unsigned long bottom(unsigned long n)
{
	unsigned long x = n | 1;
	for (unsigned long i = 0; i < n; i++) { /* xorshift */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

/* Not a tail call: the volatile store after the recursive call keeps each
 * level as a real frame. */
NOINLINE unsigned long dive(int level, unsigned long n)
{
	unsigned long r;

	if (level == 0)
		return bottom(n);
	r = dive(level - 1, n);
	sink = r;
	return r ^ (unsigned long)level;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 500;
	for (int i = 0; i < rounds; i++)
		sink = dive(DEPTH - 1, 400000);
	return 0;
}
