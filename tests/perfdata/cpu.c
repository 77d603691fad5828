/* cpu.c: a deterministic, single-threaded CPU workload (about half a second)
 * whose call structure is known in advance:
 *
 *   main -> run -> descend (3 to 6 levels of recursion) -> work
 *   work -> fill_block (calls the static mix(), inlined at -O2)
 *        -> sort_block -> qsort -> cmp_u32 (a callback called by libc)
 *        -> measure_block -> memset, memcpy, strlen
 *        -> fresh_pages -> mmap, munmap (page faults: kernel frames)
 *
 * It writes nothing to stdout (the pipe-mode test records to stdout). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS with -std=c11 (glibc) */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

#define NBLOCK 4096
#define NTEXT (64 * 1024)

static unsigned block[NBLOCK];
static char text[NTEXT];
static char copy[NTEXT];
static volatile unsigned long sink;

/* Small enough to be inlined into its callers at -O2. */
static unsigned mix(unsigned x)
{
	x ^= x >> 16;
	x *= 0x45d9f3bu;
	x ^= x >> 16;
	return x;
}

NOINLINE void fill_block(unsigned seed)
{
	for (unsigned i = 0; i < NBLOCK; i++)
		block[i] = mix(seed + i);
}

NOINLINE int cmp_u32(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return (x > y) - (x < y);
}

NOINLINE void sort_block(void)
{
	qsort(block, NBLOCK, sizeof block[0], cmp_u32);
}

NOINLINE size_t measure_block(unsigned seed)
{
	size_t total = 0;
	for (int i = 0; i < 8; i++) {
		memset(text, 'a' + (int)((seed + (unsigned)i) % 26), NTEXT - 1 - (size_t)i);
		text[NTEXT - 1 - i] = '\0';
		memcpy(copy, text, NTEXT);
		total += strlen(copy);
	}
	return total;
}

/* Touches newly mapped pages, so that some time is spent in the kernel. */
NOINLINE unsigned long fresh_pages(void)
{
	size_t len = 16 * 4096;
	unsigned long sum = 0;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 0;
	for (size_t i = 0; i < len; i += 4096) {
		p[i] = (char)i;
		sum += (unsigned char)p[i];
	}
	munmap(p, len);
	return sum;
}

NOINLINE unsigned long work(unsigned seed)
{
	fill_block(seed);
	sort_block();
	return block[NBLOCK / 2] + measure_block(seed) + fresh_pages();
}

/* Not a tail call: the volatile store after the recursive call keeps each
 * level as a real frame. */
NOINLINE unsigned long descend(int level, unsigned seed)
{
	unsigned long r;

	if (level == 0)
		return work(seed);
	r = descend(level - 1, mix(seed));
	sink = r;
	return r + (unsigned long)level;
}

NOINLINE unsigned long run(int rounds)
{
	unsigned long acc = 0;
	for (int i = 0; i < rounds; i++)
		acc += descend(3 + i % 4, (unsigned)i);
	return acc;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3000;
	sink = run(rounds > 0 ? rounds : 1);
	return 0;
}
