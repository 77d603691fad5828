#include "config.h"
#include <stdbool.h>
#include <string.h>
#include "dsomap.h"
#include "strtab.h"
#include "tap.h"

/* the path noted for name in m, "" when none known, "*" for several */
static const char *get(const struct dsomap *m, strtab_id name, char *buf, size_t size)
{
	size_t len;
	bool known;
	const char *p = dsomap_get(m, name, &len, &known);
	if (!known)
		return "";
	if (!p)
		return "*";
	snprintf(buf, size, "%.*s", (int)len, p);
	return buf;
}

int main(void)
{
	char b[256];
	struct dsomap m;
	dsomap_init(&m);
	uint32_t x = dsomap_object(&m, "/bin/x", 6);
	uint32_t y = dsomap_object(&m, "/lib/y.so", 9);
	ok(x != DSOMAP_NONE && y != DSOMAP_NONE && x != y, "two paths, two objects");
	ok(dsomap_object(&m, "/bin/x", 6) == x, "a path again is the same object (past the one-entry cache)");
	ok(dsomap_object(&m, "[unknown]", 9) == DSOMAP_NONE && dsomap_object(&m, "", 0) == DSOMAP_NONE,
	   "perf's [unknown] and an empty path are no object");
	dsomap_note(&m, 3, x);
	dsomap_note(&m, 3, x);
	is_str(get(&m, 3, b, sizeof b), "/bin/x", "a name noted twice in one object");
	dsomap_note(&m, 5000, y);
	is_str(get(&m, 5000, b, sizeof b), "/lib/y.so", "a name id past the first 1024 grows the map");
	is_str(get(&m, 4, b, sizeof b), "", "a name never noted: none");
	is_str(get(&m, 100000, b, sizeof b), "", "a name id past the map: none");
	dsomap_note(&m, 3, DSOMAP_NONE);
	is_str(get(&m, 3, b, sizeof b), "/bin/x", "no object noted changes nothing");
	dsomap_note(&m, 3, y);
	is_str(get(&m, 3, b, sizeof b), "*", "a name in a second object: several");
	dsomap_note(&m, 3, x);
	is_str(get(&m, 3, b, sizeof b), "*", "several stays several");

	/* merging: names by their bytes, from src's ids to dst's */
	struct strtab dn, sn;
	strtab_init(&dn);
	strtab_init(&sn);
	strtab_id d_main = strtab_intern(&dn, "main", 4), d_f = strtab_intern(&dn, "f", 1),
	          d_g = strtab_intern(&dn, "g", 1);
	strtab_id s_g = strtab_intern(&sn, "g", 1), s_f = strtab_intern(&sn, "f", 1),
	          s_main = strtab_intern(&sn, "main", 4);
	struct dsomap dst, src;
	dsomap_init(&dst);
	dsomap_init(&src);
	dsomap_note(&dst, d_main, dsomap_object(&dst, "/bin/x", 6));
	dsomap_note(&dst, d_f, dsomap_object(&dst, "/bin/x", 6));
	dsomap_note(&src, s_main, dsomap_object(&src, "/bin/x", 6));
	dsomap_note(&src, s_f, dsomap_object(&src, "/lib/y.so", 9));
	dsomap_note(&src, s_g, dsomap_object(&src, "/lib/z.so", 9));
	dsomap_merge(&dst, &dn, &src, &sn);
	is_str(get(&dst, d_main, b, sizeof b), "/bin/x", "merge: the same object on both sides");
	is_str(get(&dst, d_f, b, sizeof b), "*", "merge: another object for the name: several");
	is_str(get(&dst, d_g, b, sizeof b), "/lib/z.so", "merge: a name only src had an object for");
	dsomap_free(&dst);
	dsomap_free(&src);
	strtab_free(&dn);
	strtab_free(&sn);
	dsomap_free(&m);
	return done_testing();
}
