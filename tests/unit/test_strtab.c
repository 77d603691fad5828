#include "config.h"
#include <stdio.h>
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
	return done_testing();
}
