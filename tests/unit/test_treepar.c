/* tree_finalize on several threads (treepar.c) gives the tree one thread
 * gives, node for node. Built with TREEPAR_MIN_NODES=1, so that small
 * trees are split too, and (test_treepar_lists) TREEPAR_LIST_MAX=1 and
 * TREE_FROM_MAX=0, so that the lists overflow and their fallbacks run.
 * The trees come from sorted stacks over names that are prefixes of each
 * other with bytes below ';' after them ("a", "a!", "a;..."), which makes
 * the late nodes (a revisited node's new children) that parts cannot
 * number alone. */
#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tree.h"
#include "treeint.h"
#include "tap.h"
#include "treeutil.h"

/* First difference between two finalized trees, or NULL. */
static const char *tree_diff(const struct tree *a, const struct tree *b)
{
	static char why[160];
	if (tree_size(a) != tree_size(b)) {
		snprintf(why, sizeof why, "sizes %zu and %zu", tree_size(a), tree_size(b));
		return why;
	}
	for (tree_idx i = 0; i < tree_size(a); i++) {
		const struct tree_node *x = tree_node(a, i), *y = tree_node(b, i);
		if (tree_name_len(a, i) != tree_name_len(b, i) ||
		    memcmp(tree_name(a, i), tree_name(b, i), tree_name_len(a, i)) != 0 ||
		    x->parent != y->parent || x->end != y->end || x->depth != y->depth ||
		    x->self.u != y->self.u || x->total.u != y->total.u || x->off.u != y->off.u) {
			snprintf(why, sizeof why, "node %u (%s / %s)", i, tree_name(a, i), tree_name(b, i));
			return why;
		}
	}
	return NULL;
}

static uint64_t rnd(uint64_t *seed)
{
	*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return *seed >> 33;
}

#define MAXF 5

struct line {
	char text[64];      /* frames joined by ';' */
	uint64_t count;
};

static int cmp_line(const void *a, const void *b)
{
	/* LC_ALL=C sort of the stacks' text (strcmp is byte-wise); the
	 * names have no ';' of their own */
	return strcmp(((const struct line *)a)->text, ((const struct line *)b)->text);
}

/* n random distinct stacks, sorted: first frames r0..r<roots-1> (so that
 * parts can start at root children), then names that start one another. */
static size_t make_lines(struct line *ln, size_t n, size_t roots, uint64_t seed)
{
	static const char *alpha[] = { "a", "a!", "a ", "a:", "ab", "a0", "b", "a!!" };
	size_t m = 0;
	for (size_t tries = 0; m < n && tries < 20 * n; tries++) {
		struct line l;
		int len = snprintf(l.text, sizeof l.text, "r%zu", (size_t)(rnd(&seed) % roots));
		int nf = (int)(rnd(&seed) % MAXF);
		for (int i = 0; i < nf; i++)
			len += snprintf(l.text + len, sizeof l.text - (size_t)len, ";%s", alpha[rnd(&seed) % 8]);
		l.count = 1 + rnd(&seed) % 1000;
		size_t k;
		for (k = 0; k < m && strcmp(ln[k].text, l.text) != 0; k++)
			;
		if (k == m)
			ln[m++] = l;
	}
	qsort(ln, m, sizeof *ln, cmp_line);
	return m;
}

/* The tree of ln[0..n), in `chunks` pieces merged in order as the
 * parallel loader does, finalized on `threads` threads; `lost`: without
 * the list of revisits (finalize then numbers every node, on threads:
 * treepar_number; with it, only the nodes that move, then treepar_walk). */
static void build(struct tree *t, const struct line *ln, size_t n, int chunks, int threads,
                  enum tree_order order, bool lost)
{
	tree_init(t);
	for (int c = 0; c < chunks; c++) {
		struct tree part;
		tree_init(&part);
		if (c == 0)
			tree_add_stack(&part, NULL, 0, 3);     /* the root's own: every offset past it */
		for (size_t i = n * (size_t)c / (size_t)chunks; i < n * (size_t)(c + 1) / (size_t)chunks; i++)
			add(&part, ln[i].text, ln[i].count);
		tree_merge_free(t, &part);
	}
	if (lost)
		treebuild_revisits_lost(t);
	tree_set_threads(threads);
	tree_finalize(t, order);
	tree_set_threads(1);
}

int main(void)
{
	/* By hand: "r0 1", "r0!;y 2", "r0;z 4", "r1;w 8" in this (sorted)
	 * order give r0 (1), r0! (2), y (3), then z (4), a child of r0 made
	 * after r0's subtree was left, then r1 (5), w (6). On 4 threads the
	 * parts start at the root children r0!, r1 found from 7 / 4 * j on:
	 * [1,2) [2,5) [5,7); z lies in the second, its parent in the first.
	 * Preorder, name order: all r0 z r0! y r1 w; totals 15 5 4 2 2 8 8;
	 * offsets (own samples after the children's): z 0, r0! 5, y 5, r1 7,
	 * w 7. */
	{
		struct tree t;
		tree_init(&t);
		add(&t, "r0", 1);
		add(&t, "r0!;y", 2);
		add(&t, "r0;z", 4);
		add(&t, "r1;w", 8);
		ok(!t.b.hashed && t.b.revisited, "by hand: built in order, r0 revisited");
		treebuild_revisits_lost(&t);    /* finalize numbers all: treepar_number */
		tree_set_threads(4);
		tree_finalize(&t, TREE_ORDER_NAME);
		tree_set_threads(1);
		const char *name[] = { "all", "r0", "z", "r0!", "y", "r1", "w" };
		const uint64_t total[] = { 15, 5, 4, 2, 2, 8, 8 }, off[] = { 0, 0, 0, 5, 5, 7, 7 };
		const tree_idx end[] = { 7, 3, 3, 5, 5, 7, 7 }, parent[] = { TREE_NONE, 0, 1, 0, 3, 0, 5 };
		int good = tree_size(&t) == 7;
		for (tree_idx i = 0; good && i < 7; i++)
			good = strcmp(tree_name(&t, i), name[i]) == 0 && tree_node(&t, i)->total.u == total[i] &&
			       tree_node(&t, i)->off.u == off[i] && tree_end(&t, i) == end[i] &&
			       tree_parent(&t, i) == parent[i];
		ok(good, "by hand: 4 threads: preorder, totals, offsets, ends, parents");
		is_folded(&t, "r0 1\nr0!;y 2\nr0;z 4\nr1;w 8\n", "by hand: folded output");
		tree_free(&t);
	}

	/* Random sorted stacks, whole or merged from pieces, by name and in
	 * input order: every thread count gives the one-thread tree. */
	static struct line ln[4000];
	const enum tree_order orders[] = { TREE_ORDER_NAME, TREE_ORDER_INPUT, TREE_ORDER_WEIGHT };
	const char *oname[] = { "name", "input", "weight" };
	for (int round = 0; round < 8; round++) {
		size_t roots = round < 4 ? 40 : 3;
		size_t n = make_lines(ln, round % 2 ? 4000 : 500, roots, 77 + (uint64_t)round);
		for (int o = 0; o < 6; o++) {
			for (int chunks = 1; chunks <= 3; chunks += 2) {
				struct tree one;
				bool lost = o >= 3;
				build(&one, ln, n, chunks, 1, orders[o % 3], lost);
				int good = 1;
				const char *d = NULL;
				int bad = 0;
				for (int th = 2; th <= 6 && good; th++) {
					struct tree par;
					build(&par, ln, n, chunks, th, orders[o % 3], lost);
					d = tree_diff(&one, &par);
					good = d == NULL;
					bad = th;
					tree_free(&par);
				}
				ok(good, "round %d: %zu stacks, %zu roots, %s order, %d piece(s)%s: 2 to 6 threads "
				   "give the one-thread tree", round, n, roots, oname[o % 3], chunks,
				   lost ? ", revisits not listed" : "");
				if (!good)
					printf("# %d threads: first difference: %s\n", bad, d);
				tree_free(&one);
			}
		}
	}

	/* Self counts whose sums overflow: the parts say so, and the totals
	 * saturate as on one thread. */
	{
		struct tree a, b;
		tree_init(&a);
		tree_init(&b);
		struct tree *tt[2] = { &a, &b };
		for (int k = 0; k < 2; k++) {
			add(tt[k], "r0", UINT64_MAX / 2);
			add(tt[k], "r0!;y", UINT64_MAX / 2);
			add(tt[k], "r0;z", UINT64_MAX / 2);
			add(tt[k], "r1;w", 5);
			add(tt[k], "r2;v", UINT64_MAX / 3);
		}
		tree_finalize(&a, TREE_ORDER_NAME);
		tree_set_threads(3);
		tree_finalize(&b, TREE_ORDER_NAME);
		tree_set_threads(1);
		const char *d = tree_diff(&a, &b);
		ok(d == NULL && a.saturated == b.saturated, "overflowing sums: 3 threads give the one-thread tree");
		if (d)
			printf("# first difference: %s\n", d);
		tree_free(&a);
		tree_free(&b);
	}
	return done_testing();
}
