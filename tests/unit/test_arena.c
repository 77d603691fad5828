#include "config.h"
#include <stdint.h>
#include <string.h>
#include "arena.h"
#include "strtab.h"
#include "tap.h"

int main(void)
{
	struct arena a;
	arena_init(&a, 64);
	char *p = arena_memdup(&a, "hello", 5);
	is_str(p, "hello", "memdup copies and terminates");
	int aligned = 1;
	for (int i = 0; i < 1000; i++) {
		void *q = arena_alloc(&a, (size_t)(i % 37) + 1, 16);
		if ((uintptr_t)q % 16)
			aligned = 0;
		memset(q, 0xab, (size_t)(i % 37) + 1);
	}
	ok(aligned, "allocations honour 16-byte alignment across chunks");
	is_str(p, "hello", "earlier blocks stay intact after many chunks");
	char *big = arena_alloc(&a, 10000, 8);
	memset(big, 1, 10000);
	char *after = arena_memdup(&a, "x", 1);
	ok(big && after && strcmp(after, "x") == 0, "an oversized block gets its own chunk");
	ok(arena_bytes(&a) >= 10000 + 1000, "arena_bytes counts what was obtained");
	arena_free(&a);
	ok(arena_bytes(&a) == 0 && a.head == NULL, "arena_free releases everything");
	char nul[3] = { 'a', '\0', 'b' };
	arena_init(&a, 0);
	char *z = arena_memdup(&a, nul, 3);
	ok(z[0] == 'a' && z[1] == 0 && z[2] == 'b' && z[3] == 0, "memdup is byte-transparent (embedded NUL)");
	arena_free(&a);
	return done_testing();
}
