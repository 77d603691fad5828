#include "config.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "searchidx.h"
#include "tree.h"
#include "tap.h"

/* Waits up to 20 s for x. */
static bool wait_ready(struct searchidx *x)
{
	struct timespec ms = { 0, 1000000 };
	for (int k = 0; k < 20000; k++) {
		if (searchidx_ready(x))
			return true;
		nanosleep(&ms, NULL);
	}
	return false;
}

int main(void)
{
	/* Classes: 64 of them, one bit each; a letter's two cases share one. */
	uint64_t all = 0;
	int classed = 0, multi = 0;
	for (int c = 0; c < 256; c++) {
		uint64_t b = searchidx_bit((unsigned char)c);
		classed += b != 0;
		multi += (b & (b - 1)) != 0;
		all |= b;
	}
	is_int(multi, 0, "no byte has more than one class");
	is_int(__builtin_popcountll(all), 64, "64 classes in all");
	is_int(classed, 64 + 26, "64 classed bytes plus the 26 upper-case letters");
	ok(searchidx_bit('m') && searchidx_bit('m') == searchidx_bit('M'), "m and M share a class");
	ok(searchidx_bit('m') != searchidx_bit('n') && searchidx_bit(':') != searchidx_bit('_') &&
	   searchidx_bit('0') != searchidx_bit('9'), "other characters have classes of their own");
	ok(!searchidx_bit(0) && !searchidx_bit('\n') && !searchidx_bit(0x80) && !searchidx_bit(0xc3) &&
	   !searchidx_bit(0x7f), "controls and non-ASCII bytes have no class");

	/* A name's signature: the classes of all its bytes, NULs and all. */
	is_int((long long)searchidx_sig("", 0), 0, "empty name: no class");
	uint64_t want = searchidx_bit('s') | searchidx_bit('t') | searchidx_bit('d') | searchidx_bit(':') |
	                searchidx_bit('v') | searchidx_bit('e') | searchidx_bit('c') | searchidx_bit('o') |
	                searchidx_bit('r') | searchidx_bit('<') | searchidx_bit('i') | searchidx_bit('n') |
	                searchidx_bit('>');
	ok(searchidx_sig("std::vector<int>", 16) == want, "std::vector<int>: its 13 distinct characters");
	ok(searchidx_sig("STD::Vector<INT>", 16) == want, "the same in other cases");
	ok(searchidx_sig("x\0m", 3) == (searchidx_bit('x') | searchidx_bit('m')), "bytes after a NUL count");
	ok(searchidx_sig("ab", 1) == searchidx_bit('a'), "only n bytes are read");

	/* On a thread: the signature of each of 100,000 names as searchidx_sig
	 * makes it, and each node's name, in 4 bytes (more than 65536 names). */
	struct tree t;
	tree_init(&t);
	char name[64];
	for (int k = 0; k < 100000; k++) {
		int len = snprintf(name, sizeof name, "%s_%d::%c", k % 3 ? "fn" : "Widget", k, 'a' + k % 26);
		struct tree_frame f[] = { { "main", 4 }, { name, (size_t)len } };
		tree_add_stack(&t, f, 2, 1);
	}
	tree_finalize(&t, TREE_ORDER_NAME);
	struct searchidx *x = searchidx_start(&t);
	ok(x != NULL, "the thread starts");
	ok(x && wait_ready(x), "the index is ready");
	size_t bad = 0, ids = strtab_count(&t.names);
	const uint64_t *sig = x ? searchidx_sigs(x) : NULL;
	for (size_t id = 0; sig && id < ids; id++)
		bad += sig[id] != searchidx_sig(strtab_str(&t.names, (strtab_id)id), strtab_len(&t.names, (strtab_id)id));
	ok(sig && bad == 0, "every name's signature as searchidx_sig makes it (%zu differ)", bad);
	const uint32_t *n32 = x ? searchidx_names32(x) : NULL;
	bad = 0;
	for (tree_idx i = 0; n32 && i < tree_size(&t); i++)
		bad += n32[i] != tree_node(&t, i)->name;
	ok(n32 && !searchidx_names16(x) && bad == 0, "100,002 names: each node's name id in 4 bytes");
	searchidx_free(x);
	/* Freed while its thread runs: it stops (sanitizers and valgrind
	 * check that nothing is read after the free). */
	searchidx_free(searchidx_start(&t));
	searchidx_free(NULL);
	tree_free(&t);

	/* 3 names (all, a, b): 2 bytes a node. */
	tree_init(&t);
	struct tree_frame ab[] = { { "a", 1 }, { "b", 1 } };
	tree_add_stack(&t, ab, 2, 1);
	tree_add_stack(&t, ab + 1, 1, 1);
	tree_finalize(&t, TREE_ORDER_NAME);
	x = searchidx_start(&t);
	ok(x && wait_ready(x), "a small tree's index is ready");
	const uint16_t *n16 = x ? searchidx_names16(x) : NULL;
	/* Preorder: all, a, a;b, b. */
	ok(n16 && !searchidx_names32(x) && tree_size(&t) == 4 &&
	   n16[0] == tree_node(&t, 0)->name && n16[1] == tree_node(&t, 1)->name &&
	   n16[2] == tree_node(&t, 2)->name && n16[2] == n16[3] && n16[1] != n16[2],
	   "few names: 2 bytes a node; a;b and b share b's id");
	searchidx_free(x);
	tree_free(&t);
	return done_testing();
}
