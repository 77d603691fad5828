#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "strtab.h"
#include "tap.h"

int main(void)
{
	struct strtab st;
	strtab_init(&st);
	strtab_id a = strtab_intern(&st, "main", 4);
	strtab_id b = strtab_intern(&st, "parse", 5);
	strtab_id a2 = strtab_intern(&st, "mainX", 4);   /* same 4 bytes */
	is_int(a, 0, "first id is 0");
	is_int(b, 1, "ids are dense");
	is_int(a2, a, "equal bytes give the same id");
	is_int(strtab_find(&st, "parse", 5), b, "find an existing name");
	is_int(strtab_find(&st, "pars", 4), -1, "find does not add");
	is_int((long long)strtab_count(&st), 2, "count");
	strtab_id e = strtab_intern(&st, "", 0);
	is_int(strtab_len(&st, e), 0, "the empty name is a name");
	ok(strtab_intern(&st, "a\0b", 3) != strtab_intern(&st, "a\0c", 3), "names with NULs compare by length");
	is_int(strtab_width(&st, b), -1, "width cache starts unknown");
	strtab_set_width(&st, b, 5);
	is_int(strtab_width(&st, b), 5, "width cache keeps a value");

	/* Many names: survives table growth, every id still resolves. */
	char buf[32];
	int good = 1;
	for (int i = 0; i < 200000; i++) {
		int n = snprintf(buf, sizeof buf, "fn_%d", i);
		strtab_intern(&st, buf, (size_t)n);
	}
	for (int i = 0; i < 200000; i += 997) {
		int n = snprintf(buf, sizeof buf, "fn_%d", i);
		int64_t id = strtab_find(&st, buf, (size_t)n);
		if (id < 0 || strcmp(strtab_str(&st, (strtab_id)id), buf) != 0)
			good = 0;
	}
	ok(good, "200000 names intern and resolve after growth");
	is_str(strtab_str(&st, a), "main", "early names survive growth");
	ok(strtab_hash("abc", 3) == strtab_hash("abc", 3) && strtab_hash("abc", 3) != strtab_hash("abd", 3),
	   "hash is deterministic and discriminates");
	strtab_free(&st);

	/* The recent-name cache keys a name by its length and ends: names
	 * alike there (every string of a and b up to 12 bytes; the same first
	 * and last 8 bytes around any middle) must still get ids of their own,
	 * looked up again in another order, and again, whichever of them the
	 * cache holds. Expected ids: their order of first appearance. */
	{
		enum { SHORT = 8191, MID = 4 + 16 + 64 + 256 + 1024 + 4096, N = SHORT + MID };
		static const char sym[4] = { 'q', '\0', ';', 'r' };
		char (*nm)[40] = calloc(N, sizeof *nm);
		size_t *nl = calloc(N, sizeof *nl);
		size_t k = 0;
		for (size_t len = 0; len <= 12; len++)
			for (size_t bits = 0; bits < ((size_t)1 << len); bits++, k++) {
				for (size_t i = 0; i < len; i++)
					nm[k][i] = (bits >> i) & 1 ? 'b' : 'a';
				nl[k] = len;
			}
		/* 17 to 22 bytes: "01234567", every middle of 1 to 6 bytes of
		 * q, NUL, ';' and r, "89abcdef" */
		for (size_t mid = 1; mid <= 6; mid++)
			for (size_t v = 0; v < ((size_t)1 << (2 * mid)); v++, k++) {
				memcpy(nm[k], "01234567", 8);
				for (size_t i = 0; i < mid; i++)
					nm[k][8 + i] = sym[(v >> (2 * i)) & 3];
				memcpy(nm[k] + 8 + mid, "89abcdef", 8);
				nl[k] = 16 + mid;
			}
		struct strtab t2;
		strtab_init(&t2);
		int dense = 1, again = 1;
		for (size_t i = 0; i < N; i++)
			dense &= strtab_intern(&t2, nm[i], nl[i]) == (strtab_id)i;
		ok(dense, "%d names alike in the cache's key get ids of their own", N);
		uint64_t r = 12345;
		for (int round = 0; round < 4; round++)
			for (size_t i = 0; i < 4 * (size_t)N; i++) {
				r = r * 6364136223846793005ULL + 1442695040888963407ULL;
				/* mostly names near the last one: both ways of a set */
				size_t j = round & 1 ? (size_t)(r >> 33) % N : (i / 4 + (size_t)(r >> 60)) % N;
				strtab_id id = strtab_intern(&t2, nm[j], nl[j]);
				if (id != (strtab_id)j || strtab_len(&t2, id) != nl[j] ||
				    memcmp(strtab_str(&t2, id), nm[j], nl[j]) != 0)
					again = 0;
			}
		ok(again, "  ... and the same ids when looked up again, in random and nearby orders");
		is_int((long long)strtab_count(&t2), N, "  ... and no more names");
		strtab_free(&t2);
		free(nm);
		free(nl);
	}
	return done_testing();
}
