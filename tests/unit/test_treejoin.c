/* tree_pack and tree_join: parts of a profile packed and joined give the
 * tree one tree_finalize of all their stacks gives, node for node, in
 * both orders, packed by shape or by depth, on one thread (and on two in
 * test_treejoin2, built with JOIN_TWO_MIN 1); and the joins that must be
 * refused are, leaving everything as it was. */
#include "config.h"
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tree.h"
#include "tap.h"
#include "rng.h"
#include "treeutil.h"

#define diag(...) (printf("# "), printf(__VA_ARGS__), putchar('\n'))


#define MAXF 400
struct stack {
	char names[MAXF][8];
	size_t n;
	uint64_t count;
};

/* A random stack: mostly under "hot" and "hot;h1" (the shared paths),
 * some deep, names from a small set so that paths repeat. */
static void gen(struct stack *s)
{
	size_t deep = rnd() % 50 == 0 ? 100 + rnd() % 250 : 1 + rnd() % 8;
	s->n = deep;
	for (size_t i = 0; i < deep; i++)
		snprintf(s->names[i], sizeof s->names[i], "%c%u", 'a' + (int)(rnd() % 6), (unsigned)(rnd() % 4));
	uint64_t r = rnd() % 10;
	if (r < 5) {
		strcpy(s->names[0], "hot");
		if (r < 3 && deep >= 2)
			strcpy(s->names[1], "h1");
	}
	s->count = 1 + rnd() % 5;
}

/* The part of a stack: its first frame below the shared paths "hot" and
 * "hot;h1" (a stack that ends on one goes to a part of its own). */
static size_t part_of(const struct stack *s, size_t np)
{
	size_t k = 0;
	if (!strcmp(s->names[0], "hot")) {
		k = 1;
		if (s->n > 1 && !strcmp(s->names[1], "h1"))
			k = 2;
	}
	if (k >= s->n)
		return k % np;
	uint64_t h = 1469598103934665603ULL;
	for (const char *c = s->names[k]; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ULL;
	return (size_t)(h % np);
}

static void add_stack(struct tree *t, const struct stack *s)
{
	struct tree_frame f[MAXF];
	for (size_t i = 0; i < s->n; i++)
		f[i] = (struct tree_frame){ s->names[i], strlen(s->names[i]) };
	tree_add_stack(t, f, s->n, s->count);
}

static void shared_tree(struct tree *sh)
{
	tree_init(sh);
	add(sh, "hot;h1", 1);
	tree_finalize(sh, TREE_ORDER_NAME);
}

/* Whether a and b are the same finalized tree, node for node; the first
 * difference is said. */
static bool same_tree(const struct tree *a, const struct tree *b)
{
	if (tree_size(a) != tree_size(b)) {
		diag("sizes %zu and %zu", tree_size(a), tree_size(b));
		return false;
	}
	if (a->stacks != b->stacks) {
		diag("stacks %" PRIu64 " and %" PRIu64, a->stacks, b->stacks);
		return false;
	}
	for (tree_idx i = 0; i < tree_size(a); i++) {
		const struct tree_node *x = tree_node(a, i), *y = tree_node(b, i);
		if (strcmp(tree_name(a, i), tree_name(b, i)) || x->parent != y->parent || x->end != y->end ||
		    x->depth != y->depth || x->self.u != y->self.u || x->total.u != y->total.u || x->off.u != y->off.u) {
			diag("node %u: %s/%s parent %u/%u end %u/%u depth %u/%u self %" PRIu64 "/%" PRIu64
			     " total %" PRIu64 "/%" PRIu64 " off %" PRIu64 "/%" PRIu64,
			     i, tree_name(a, i), tree_name(b, i), x->parent, y->parent, x->end, y->end, x->depth, y->depth,
			     x->self.u, y->self.u, x->total.u, y->total.u, x->off.u, y->off.u);
			return false;
		}
	}
	return true;
}

/* n random stacks in np parts, packed by shape (or to depth 3), joined;
 * against one tree of them all. */
static void join_case(size_t n, size_t np, enum tree_order order, bool by_shape, const char *what)
{
	struct stack *st = malloc(n * sizeof *st);
	struct tree whole, dst, shared, *parts = calloc(np, sizeof *parts);
	struct tree_pack *packs = calloc(np, sizeof *packs);
	tree_init(&whole);
	tree_init(&dst);
	shared_tree(&shared);
	for (size_t i = 0; i < np; i++)
		tree_init(&parts[i]);
	for (size_t i = 0; i < n; i++) {
		gen(&st[i]);
		add_stack(&whole, &st[i]);
		add_stack(&parts[part_of(&st[i], np)], &st[i]);
	}
	tree_finalize(&whole, order);
	struct tree_shape shape;
	bool good = !by_shape || tree_shape_init(&shape, &dst, &shared);
	size_t bytes = 0, nodes = 0;
	for (size_t i = 0; i < np && good; i++) {
		tree_finalize(&parts[i], order);
		tree_join_names(&dst, &parts[i]);
		good = tree_pack(&packs[i], &parts[i], by_shape ? &shape : NULL, by_shape ? 0 : 3);
		bytes += packs[i].len;
		nodes += packs[i].n;
		tree_free(&parts[i]);
	}
	ok(good, "%s: every part packs", what);
	good = good && tree_join(&dst, packs, np, order, &shared);
	ok(good, "%s: the parts join", what);
	ok(good && same_tree(&dst, &whole), "%s: the joined tree is the one tree of all stacks (%zu nodes, %.1f bytes a node packed)",
	   what, tree_size(&whole), nodes ? (double)bytes / (double)nodes : 0.0);
	if (by_shape)
		tree_shape_free(&shape);
	for (size_t i = 0; i < np; i++) {
		tree_pack_free(&packs[i]);
		tree_free(&parts[i]);
	}
	tree_free(&whole);
	tree_free(&dst);
	tree_free(&shared);
	free(parts);
	free(packs);
	free(st);
}

/* A part of stacks given as folded text, finalized by name, names moved
 * into dst, packed to depth `upper` (no shape). */
static void part_packed(struct tree *dst, struct tree_pack *pk, const char *const *stacks, const uint64_t *counts,
                        size_t n, uint32_t upper)
{
	struct tree t;
	tree_init(&t);
	for (size_t i = 0; i < n; i++)
		add(&t, stacks[i], counts[i]);
	tree_finalize(&t, TREE_ORDER_NAME);
	tree_join_names(dst, &t);
	if (!tree_pack(pk, &t, NULL, upper)) {
		printf("Bail out! a plain part did not pack\n");
		exit(1);
	}
	tree_free(&t);
}

static void walk_one(void *arg, uint32_t depth, strtab_id name)
{
	char *out = arg;
	char w[32];
	snprintf(w, sizeof w, "%s%u:%u", *out ? " " : "", depth, (unsigned)name);
	strcat(out, w);
}

static void refusal_tests(void)
{
	/* too shallow: blocks under "hot;h1" have no upper record */
	struct tree dst, sh;
	tree_init(&dst);
	shared_tree(&sh);
	const char *a[] = { "hot;h1;x;y", "b;c" }, *b[] = { "hot;h1;z", "hot;q" };
	const uint64_t c1[] = { 2, 3 }, c2[] = { 4, 5 };
	struct tree_pack pk[2];
	part_packed(&dst, &pk[0], a, c1, 2, 1);
	part_packed(&dst, &pk[1], b, c2, 2, 1);
	size_t len0 = pk[0].len;
	ok(!tree_join(&dst, pk, 2, TREE_ORDER_NAME, &sh), "parts packed to depth 1 do not join under a shared tree 2 deep");
	ok(tree_size(&dst) == 1 && pk[0].len == len0 && pk[0].b != NULL, "and dst and the packs are as they were");
	/* the same parts packed deep enough join */
	tree_pack_free(&pk[0]);
	tree_pack_free(&pk[1]);
	part_packed(&dst, &pk[0], a, c1, 2, 3);
	part_packed(&dst, &pk[1], b, c2, 2, 3);
	ok(tree_join(&dst, pk, 2, TREE_ORDER_NAME, &sh), "packed to depth 3, they join");
	is_folded(&dst, "b;c 3\nhot;h1;x;y 2\nhot;h1;z 4\nhot;q 5\n", "into their stacks");
	tree_free(&dst);

	/* not disjoint: "b;c" in both parts, below the shared tree */
	tree_init(&dst);
	const char *d[] = { "b;c", "hot;q" }, *e[] = { "b;c;d" };
	const uint64_t c3[] = { 1, 1 }, c4[] = { 1 };
	part_packed(&dst, &pk[0], d, c3, 2, 3);
	part_packed(&dst, &pk[1], e, c4, 1, 3);
	ok(!tree_join(&dst, pk, 2, TREE_ORDER_NAME, &sh), "parts that share a block's path do not join");
	ok(tree_size(&dst) == 1, "and dst is as it was");
	tree_pack_free(&pk[0]);
	tree_pack_free(&pk[1]);

	/* counts beyond 64 bits together */
	const char *f[] = { "x" }, *g[] = { "y" };
	const uint64_t big[] = { UINT64_MAX - 1 }, two[] = { 2 };
	part_packed(&dst, &pk[0], f, big, 1, 3);
	part_packed(&dst, &pk[1], g, two, 1, 3);
	ok(!tree_join(&dst, pk, 2, TREE_ORDER_NAME, &sh), "parts whose sum is beyond 64 bits do not join");
	tree_pack_free(&pk[0]);
	tree_pack_free(&pk[1]);
	tree_free(&dst);

	/* what cannot be packed */
	struct tree t;
	tree_init(&t);
	add(&t, "a;b", 1);
	struct tree_pack q;
	ok(!tree_pack(&q, &t, NULL, 3) && q.b == NULL, "a tree not finalized is not packed");
	tree_finalize(&t, TREE_ORDER_NAME);
	ok(!tree_pack(&q, &t, NULL, 3) && q.b == NULL, "nor one whose names were not moved");
	tree_free(&t);
	tree_init(&t);
	add(&t, "a", UINT64_MAX);
	add(&t, "a", 2);
	tree_finalize(&t, TREE_ORDER_NAME);
	tree_init(&dst);
	tree_join_names(&dst, &t);
	ok(t.saturated && !tree_pack(&q, &t, NULL, 3), "nor one whose counts saturated");
	tree_free(&t);
	tree_free(&dst);
	tree_free(&sh);

	/* tree_pack_walk: the nodes down to a depth, in preorder (ids by
	 * hand: interned in dst in the order the part's table had them) */
	tree_init(&dst);
	const char *h[] = { "a;b;c", "a;d", "e" };
	const uint64_t c5[] = { 1, 1, 1 };
	part_packed(&dst, &pk[0], h, c5, 3, 2);
	char out[256] = "";
	tree_pack_walk(&pk[0], 2, walk_one, out);
	/* ids: a 1, b 2, c 3, d 4, e 5 (0 is the root's) */
	is_str(out, "1:1 2:2 2:4 1:5", "tree_pack_walk gives depths 1 and 2 in preorder");
	out[0] = 0;
	tree_pack_walk(&pk[0], 1, walk_one, out);
	is_str(out, "1:1 1:5", "and depth 1 alone");
	tree_pack_free(&pk[0]);
	tree_free(&dst);
}

int main(void)
{
#ifdef JOIN_TWO_MIN
	tree_set_threads(2);
#endif
	const enum tree_order orders[] = { TREE_ORDER_NAME, TREE_ORDER_WEIGHT };
	const char *oname[] = { "name order", "weight order" };
	for (int o = 0; o < 2; o++)
		for (int s = 0; s < 2; s++) {
			char what[96];
			snprintf(what, sizeof what, "%s, packed by %s, 3000 stacks in 7 parts", oname[o], s ? "shape" : "depth");
			join_case(3000, 7, orders[o], s, what);
			snprintf(what, sizeof what, "%s, packed by %s, 200 stacks in 64 parts (some empty)", oname[o],
			         s ? "shape" : "depth");
			join_case(200, 64, orders[o], s, what);
		}
	join_case(1, 1, TREE_ORDER_NAME, true, "one stack, one part");
	refusal_tests();
	return done_testing();
}
