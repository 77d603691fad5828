/* nodewalk: the preorder of parent-linked forests and the frames a stack
 * shares with the last one handed, on forests worked out by hand. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "nodewalk.h"
#include "tap.h"

#define NONE UINT32_MAX

/* The nodes as a reader holds them: the parent among other fields. */
struct node {
	uint32_t before;
	uint32_t parent;
	uint32_t frames;        /* how many frames the node adds to its path */
	uint32_t weighs;
};

/* Walks the roots given (each for at most `most` nodes), writing
 * "v:depth:plen" for each node entered and "=keep" after those that
 * weigh. */
static void walk_some(const struct node *nd, size_t n, const uint32_t *roots, size_t nroots, size_t most,
                      char *out, size_t cap)
{
	struct nodewalk w;
	nodewalk_init(&w, nd ? &nd[0].parent : NULL, sizeof *nd, n);
	size_t used = 0;
	out[0] = '\0';
	for (size_t r = 0; r < nroots; r++) {
		size_t seen = 0;
		for (uint32_t v = nodewalk_start(&w, roots[r]); v != NODEWALK_END && seen < most && used < cap;
		     v = nodewalk_next(&w), seen++) {
			size_t depth = nodewalk_depth(&w);
			size_t plen = nodewalk_base(&w) + nd[v].frames;
			nodewalk_enter(&w, v, plen);
			used += (size_t)snprintf(out + used, cap - used, "%s%u:%zu:%zu", used ? " " : "",
			                         (unsigned)v, depth, plen);
			if (nd[v].weighs && used < cap)
				used += (size_t)snprintf(out + used, cap - used, "=%zu", nodewalk_keep(&w, plen));
		}
	}
	nodewalk_free(&w);
}

static void walk(const struct node *nd, size_t n, const uint32_t *roots, size_t nroots, char *out,
                 size_t cap)
{
	walk_some(nd, n, roots, nroots, SIZE_MAX, out, cap);
}

int main(void)
{
	char got[512];

	/* a(0) -> b(1) -> c(2), a -> d(3); e(4) -> f(5); g(6) has a parent
	 * past the nodes (a skipped node's mark), h(7) is a child of e listed
	 * after f. Stacks handed: a, a;b;c (shares a), a;d (a: the walk went
	 * back up to a), then e's root: e (nothing: another root), e;f, e;h
	 * (e). */
	const struct node forest[] = {
		{ 9, NONE, 1, 1 }, { 9, 0, 1, 0 }, { 9, 1, 1, 1 }, { 9, 0, 1, 1 },
		{ 9, NONE, 1, 1 }, { 9, 4, 1, 1 }, { 9, 1000, 1, 1 }, { 9, 4, 1, 1 },
	};
	const uint32_t roots[] = { 0, 4 };
	walk(forest, 8, roots, 2, got, sizeof got);
	is_str(got, "0:0:1=0 1:1:2 2:2:3=1 3:1:2=1 4:0:1=0 5:1:2=1 7:1:2=1", "a forest of two roots, in preorder");

	/* The same walked from e first: the order of roots is the caller's. */
	const uint32_t rev[] = { 4, 0 };
	walk(forest, 8, rev, 2, got, sizeof got);
	is_str(got, "4:0:1=0 5:1:2=1 7:1:2=1 0:0:1=0 1:1:2 2:2:3=1 3:1:2=1", "roots in the caller's order");

	/* A node past the nodes is no root: nothing is walked. */
	const uint32_t past[] = { 8 };
	walk(forest, 8, past, 1, got, sizeof got);
	is_str(got, "", "a root past the nodes walks nothing");

	/* Nodes that add no frame (a profile's unnamed root) and one that
	 * adds two: r(0, none) -> x(1, 2 frames) -> y(2) weighs, -> z(3)
	 * weighs, r -> w(4) weighs. The deep stack x1;x2;y, then x1;x2;z
	 * shares x's 2, then w shares nothing (r added none). */
	const struct node mixed[] = {
		{ 0, NONE, 0, 0 }, { 0, 0, 2, 0 }, { 0, 1, 1, 1 }, { 0, 1, 1, 1 }, { 0, 0, 1, 1 },
	};
	const uint32_t r0[] = { 0 };
	walk(mixed, 5, r0, 1, got, sizeof got);
	is_str(got, "0:0:0 1:1:2 2:2:3=0 3:2:3=2 4:1:1=0", "nodes adding no frame, and two");

	/* A chain of children listed before their parents (ids in any
	 * order): 3 -> 1 -> 0 -> 2, each weighing; each stack shares all
	 * of the one before it. */
	const struct node chain[] = {
		{ 0, 1, 1, 1 }, { 0, 3, 1, 1 }, { 0, 0, 1, 1 }, { 0, NONE, 1, 1 },
	};
	const uint32_t r3[] = { 3 };
	walk(chain, 4, r3, 1, got, sizeof got);
	is_str(got, "3:0:1=0 1:1:2=1 0:2:3=2 2:3:4=3", "a chain listed leaf first");

	/* A cycle (1 <-> 2) under no root is never reached; 0 alone is. */
	const struct node cycle[] = { { 0, NONE, 1, 1 }, { 0, 2, 1, 1 }, { 0, 1, 1, 1 } };
	walk(cycle, 3, r0, 1, got, sizeof got);
	is_str(got, "0:0:1=0", "a cycle of parents is not walked");

	/* A walk left after two nodes (a, b), then e's root: e's stack
	 * shares nothing with a's (the walk is not back up at the root). */
	walk_some(forest, 8, roots, 2, 2, got, sizeof got);
	is_str(got, "0:0:1=0 1:1:2 4:0:1=0 5:1:2=1", "a walk left midway, then another root");

	/* No nodes at all. */
	walk(NULL, 0, r0, 1, got, sizeof got);
	is_str(got, "", "no nodes");
	return done_testing();
}
