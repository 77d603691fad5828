/* Sibling order in name order (tree_finalize) and the folded output's order
 * (tree_write_folded), built with tree.c counting its name comparisons
 * (-DTREE_TEST_COUNT), for issue 21's ten million siblings:
 *
 * - finalize sorts siblings on keys (a name's first 8 bytes, its length,
 *   whether it has samples of its own): names are read once each to make
 *   the keys, and again only for the few comparisons the keys leave open.
 *   It read two names (and their nodes and entries: cache misses) for
 *   every comparison of a merge sort, n log2 n of them.
 * - the folded output's items come out of finalize in order unless names
 *   start other names: a check of n - 1 comparisons, where each sibling
 *   group was sorted again (n log2 n).
 *
 * The expected order is written here from flamegraph.pl's rule: a sibling
 * sorts by its smallest folded line, its name followed by nothing when it
 * has samples of its own, else by the ';' joining a child (which sorts
 * just below a ';' inside a name), bytes as unsigned, a sequence before
 * the longer ones it starts. */
#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tree.h"
#include "tap.h"
#include "rng.h"

extern unsigned long tree_test_name_compares, tree_test_item_compares;


struct sib {
	char name[16];
	size_t len;
	int self;           /* samples of its own */
	int kids;           /* a child "x" with samples */
};

/* The sibling's order key: its name, then the ';' that joins it to a
 * child unless it has samples of its own, as 16-bit symbols: byte b is
 * 2b + 2, the joining ';' 2 * ';' + 1 (below a ';' inside a name, as
 * perf can make them, above ':'). */
static size_t ref_key(const struct sib *a, uint16_t *k)
{
	size_t n = 0;
	for (size_t i = 0; i < a->len; i++)
		k[n++] = (uint16_t)(2 * (unsigned char)a->name[i] + 2);
	if (!a->self)
		k[n++] = 2 * ';' + 1;
	return n;
}

static int cmp_ref(const struct sib *a, const struct sib *b)
{
	uint16_t ka[17], kb[17];
	size_t la = ref_key(a, ka), lb = ref_key(b, kb);
	for (size_t i = 0; i < la && i < lb; i++)
		if (ka[i] != kb[i])
			return ka[i] < kb[i] ? -1 : 1;
	return (la > lb) - (la < lb);
}

/* Siblings of "p" with names of 1 to 12 bytes over an alphabet of bytes
 * around ';' and NUL: many names start others, many share 8 bytes. */
static size_t make_sibs(struct sib *s, size_t want)
{
	static const char alpha[] = { 'a', 'b', ';', '!', ' ', ':', '<', '\0', '~', (char)0xff };
	size_t n = 0;
	for (size_t tries = 0; n < want && tries < want * 50; tries++) {
		struct sib x = { .len = 1 + rnd() % 12 };
		/* few letters early, so that long common prefixes are frequent */
		for (size_t i = 0; i < x.len; i++)
			x.name[i] = alpha[i < 7 ? rnd() % 2 : rnd() % sizeof alpha];
		x.self = rnd() % 3 != 0;
		x.kids = !x.self || rnd() % 2;
		size_t k;
		for (k = 0; k < n && !(s[k].len == x.len && memcmp(s[k].name, x.name, x.len) == 0); k++)
			;
		if (k == n)
			s[n++] = x;
	}
	return n;
}

static void order_cases(void)
{
	static struct sib s[400];
	int good = 0, runs = 40;
	for (int r = 0; r < runs; r++) {
		size_t n = make_sibs(s, 2 + rnd() % 398);
		struct tree t;
		tree_init(&t);
		/* stacks in random order: the child hash, then a sort */
		for (size_t i = n; i > 1; i--) {
			size_t j = rnd() % i;
			struct sib x = s[i - 1];
			s[i - 1] = s[j];
			s[j] = x;
		}
		for (size_t i = 0; i < n; i++) {
			struct tree_frame f[3] = { { "p", 1 }, { s[i].name, s[i].len }, { "x", 1 } };
			if (s[i].self)
				tree_add_stack(&t, f, 2, 1 + rnd() % 5);
			if (s[i].kids)
				tree_add_stack(&t, f, 3, 1 + rnd() % 5);
		}
		tree_finalize(&t, TREE_ORDER_NAME);
		qsort(s, n, sizeof *s, (int (*)(const void *, const void *))cmp_ref);
		tree_idx p = tree_first_child(&t, TREE_ROOT), c = tree_first_child(&t, p);
		size_t k = 0;
		int same = 1;
		for (; c != TREE_NONE && k < n; c = tree_next_sibling(&t, c), k++)
			same &= tree_name_len(&t, c) == s[k].len && memcmp(tree_name(&t, c), s[k].name, s[k].len) == 0;
		if (!(same && k == n && c == TREE_NONE) && good == r) {
			/* the first failure: where the orders part */
			tree_idx d = tree_first_child(&t, p);
			for (size_t m = 0; d != TREE_NONE && m < n; d = tree_next_sibling(&t, d), m++)
				if (tree_name_len(&t, d) != s[m].len || memcmp(tree_name(&t, d), s[m].name, s[m].len) != 0) {
					printf("# at sibling %zu of %zu\n", m, n);
					for (size_t q = m ? m - 1 : 0; q < m + 2 && q < n; q++) {
						printf("#   want ");
						for (size_t b = 0; b < s[q].len; b++)
							printf("%02x", (unsigned char)s[q].name[b]);
						printf(" self %d\n", s[q].self);
					}
					break;
				}
		}
		good += same && k == n && c == TREE_NONE;
		tree_free(&t);
	}
	is_int(good, runs, "siblings (names starting others, sharing 8 bytes, NUL, ';') in name order");
}

/* The lines of a folded text sorted byte-wise (LC_ALL=C sort). */
static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void wide(void)
{
	enum { N = 100000 };
	struct tree t;
	tree_init(&t);
	char name[16];
	/* f0, f1, ... f99999 in that order, as awk writes them: out of byte
	 * order from f10 on (after f9), so the child hash and a sort. */
	for (int i = 0; i < N; i++) {
		int len = snprintf(name, sizeof name, "f%d", i);
		struct tree_frame f[2] = { { "root", 4 }, { name, (size_t)len } };
		tree_add_stack(&t, f, 2, 1);
	}
	tree_test_name_compares = 0;
	tree_finalize(&t, TREE_ORDER_NAME);
	unsigned long names = tree_test_name_compares;
	/* A merge sort reads two names per comparison: N log2 N ~ 1.7e6. */
	ok(names <= N / 10, "100,000 siblings sorted with %lu comparisons of names read from the tree "
	   "(sorting on names read from the tree: over a million)", names);

	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	tree_test_item_compares = 0;
	tree_write_folded(&t, out);
	fclose(out);
	unsigned long items = tree_test_item_compares;
	ok(items < N, "folded output of 100,000 siblings with %lu comparisons (sorting them: over 800,000)", items);

	/* And the output is the lines in byte order. */
	char **lines = malloc(N * sizeof *lines), *want = malloc(len + 1);
	size_t nl = 0, pos = 0;
	for (int i = 0; i < N; i++) {
		lines[nl] = malloc(32);
		snprintf(lines[nl++], 32, "root;f%d 1\n", i);
	}
	qsort(lines, nl, sizeof *lines, cmp_line);
	for (size_t i = 0; i < nl; i++) {
		size_t l = strlen(lines[i]);
		if (pos + l <= len)
			memcpy(want + pos, lines[i], l);
		pos += l;
		free(lines[i]);
	}
	ok(pos == len && memcmp(buf, want, len) == 0, "  ... the lines in byte order");
	free(lines);
	free(want);
	free(buf);
	tree_free(&t);
}

int main(void)
{
	order_cases();
	wide();
	return done_testing();
}
