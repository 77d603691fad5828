/* Stacks added in sorted order build the tree without the child hash
 * (tree.c: find_sorted) and finalize without sorting; any other order uses
 * the hash. Both must give the same tree, node for node. The sorted order
 * here comes from an encoding written for this test, not from tree.c. */
#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tree.h"
#include "tap.h"
#include "treeutil.h"

#define MAXF 6

struct stack {
	int nf;
	const char *f[MAXF];
	uint64_t count;
	uint16_t key[MAXF * 8 + 2];    /* the sort key, see encode */
	size_t keylen;
};

/* The order of `LC_ALL=C sort` on folded lines, as a sequence of 16-bit
 * symbols compared one by one: byte b is 2b+2, the ';' between frames is
 * 2*';'+1 (after ':' = 118, before a ';' byte inside a name = 120), and
 * every non-empty stack starts with 1, so the empty stack comes first and
 * a stack of one empty frame after it. A shorter sequence that starts a
 * longer one comes first. */
static void encode(struct stack *s)
{
	size_t k = 0;
	if (s->nf)
		s->key[k++] = 1;
	for (int i = 0; i < s->nf; i++) {
		if (i)
			s->key[k++] = 2 * ';' + 1;
		for (const unsigned char *p = (const unsigned char *)s->f[i]; *p; p++)
			s->key[k++] = (uint16_t)(2 * *p + 2);
	}
	s->keylen = k;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct stack *x = a, *y = b;
	size_t n = x->keylen < y->keylen ? x->keylen : y->keylen;
	for (size_t i = 0; i < n; i++)
		if (x->key[i] != y->key[i])
			return x->key[i] < y->key[i] ? -1 : 1;
	return (x->keylen > y->keylen) - (x->keylen < y->keylen);
}

static void add_stack(struct tree *t, const struct stack *s)
{
	struct tree_frame f[MAXF];
	for (int i = 0; i < s->nf; i++)
		f[i] = (struct tree_frame){ s->f[i], strlen(s->f[i]) };
	tree_add_stack(t, f, (size_t)s->nf, s->count);
}

static uint64_t rnd(uint64_t *seed)
{
	*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return *seed >> 33;
}

/* First difference between two finalized trees, or NULL. */
static const char *tree_diff(const struct tree *a, const struct tree *b)
{
	static char why[128];
	if (tree_size(a) != tree_size(b)) {
		snprintf(why, sizeof why, "sizes %zu and %zu", tree_size(a), tree_size(b));
		return why;
	}
	for (tree_idx i = 0; i < tree_size(a); i++) {
		const struct tree_node *x = tree_node(a, i), *y = tree_node(b, i);
		if (tree_name_len(a, i) != tree_name_len(b, i) ||
		    memcmp(tree_name(a, i), tree_name(b, i), tree_name_len(a, i)) != 0 ||
		    x->parent != y->parent || x->end != y->end || x->depth != y->depth ||
		    tree_self_d(a, i) != tree_self_d(b, i) || tree_total_d(a, i) != tree_total_d(b, i) ||
		    tree_off_d(a, i) != tree_off_d(b, i)) {
			snprintf(why, sizeof why, "node %u (%s / %s)", i, tree_name(a, i), tree_name(b, i));
			return why;
		}
	}
	return NULL;
}

static void same_tree(const struct tree *a, const struct tree *b, const char *name)
{
	const char *d = tree_diff(a, b);
	ok(d == NULL, "%s", name);
	if (d)
		printf("# first difference: %s\n", d);
}

/* Builds n random distinct stacks over names that are prefixes of each
 * other followed by bytes below and above ';'. */
static size_t make_stacks(struct stack *st, size_t n, uint64_t seed, bool semicolons)
{
	static const char *alpha[] = { "a", "a!", "a ", "a:", "a<", "ab", "a0", "", "b", "a!!", "a;x" };
	size_t na = semicolons ? 11 : 10, m = 0;
	for (size_t tries = 0; m < n && tries < n * 20; tries++) {
		struct stack s = { 0 };
		s.nf = (int)(rnd(&seed) % (MAXF + 1));
		for (int i = 0; i < s.nf; i++)
			s.f[i] = alpha[rnd(&seed) % na];
		s.count = 1 + rnd(&seed) % 9;
		encode(&s);
		size_t k;
		for (k = 0; k < m && cmp_stack(&st[k], &s) != 0; k++)
			;
		if (k == m)
			st[m++] = s;
	}
	return m;
}

static void shuffle(struct stack *st, size_t n, uint64_t seed)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = rnd(&seed) % i;
		struct stack x = st[i - 1];
		st[i - 1] = st[j];
		st[j] = x;
	}
}

int main(void)
{
	/* The case find_sorted's walk is for, worked out by hand: sorted
	 * lines "p;f 1", "p;f 2 2", "p;f;x 4" ("f 2" sorts between: ' ' is
	 * below ';'). The third stack finds f past "f 2". Name order: f (own samples) before "f 2",
	 * so preorder is all p f x "f 2"; offsets (a node's own samples are
	 * drawn after its children): f 0, x 0, "f 2" 5 (after f's 1 + 4). */
	{
		struct tree t;
		tree_init(&t);
		add(&t, "p;f", 1);
		add(&t, "p;f 2", 2);
		add(&t, "p;f;x", 4);
		ok(!t.b.hashed, "sorted stacks: no child hash");
		is_int((long long)tree_size(&t), 5, "f found again past its sibling \"f 2\" (no second f)");
		tree_finalize(&t, TREE_ORDER_NAME);
		const char *want[] = { "all", "p", "f", "x", "f 2" };
		int good = 1;
		for (tree_idx i = 0; i < 5; i++)
			good &= strcmp(tree_name(&t, i), want[i]) == 0;
		ok(good, "preorder all p f x \"f 2\"");
		is_int(tree_total_d(&t, 2), 5, "f total 1 + 4");
		is_int(tree_off_d(&t, 3), 0, "x starts where f does");
		is_int(tree_off_d(&t, 4), 5, "\"f 2\" starts after f's subtree");
		is_int(tree_end(&t, 2), 4, "f's subtree is [2,4)");
		is_folded(&t, "p;f 1\np;f 2 2\np;f;x 4\n", "folded output");
		tree_free(&t);
	}

	/* The same walk across a merge: "p;f" and "p;f 2" in one tree, "p;f;x"
	 * in the next, merged in order (no hash). f gets its child x after
	 * "f 2" was made, so finalize must renumber: same tree as above. A
	 * tree built in order without such a walk is in preorder already. */
	{
		struct tree a, b;
		tree_init(&a);
		tree_init(&b);
		add(&a, "p;f", 1);
		add(&a, "p;f 2", 2);
		ok(!a.b.revisited, "in order, no walk back: index order is preorder");
		add(&b, "p;f;x", 4);
		tree_merge(&a, &b);
		ok(!a.b.hashed && a.b.revisited, "merged in order; the walk back to f is seen");
		tree_finalize(&a, TREE_ORDER_NAME);
		const char *want[] = { "all", "p", "f", "x", "f 2" };
		int good = tree_size(&a) == 5;
		for (tree_idx i = 0; good && i < 5; i++)
			good &= strcmp(tree_name(&a, i), want[i]) == 0;
		ok(good, "merged: preorder all p f x \"f 2\"");
		is_int(tree_end(&a, 2), 4, "merged: f's subtree is [2,4)");
		is_int(tree_off_d(&a, 4), 5, "merged: \"f 2\" starts after f's subtree");
		tree_free(&a);
		tree_free(&b);
	}

	/* Out of order: the hash takes over, and nothing already built is
	 * lost: "b;c", "a", "b;d" gives all a b c d. */
	{
		struct tree t;
		tree_init(&t);
		add(&t, "b;c", 1);
		ok(!t.b.hashed, "one stack: no hash yet");
		add(&t, "a", 2);
		ok(t.b.hashed, "a stack sorting before the previous one starts the hash");
		add(&t, "b;d", 3);
		is_int((long long)tree_size(&t), 5, "b found by the hash");
		tree_finalize(&t, TREE_ORDER_NAME);
		is_folded(&t, "a 2\nb;c 1\nb;d 3\n", "out of order: folded output");
		tree_free(&t);
	}

	/* An equal stack again is still in order. */
	{
		struct tree t;
		tree_init(&t);
		add(&t, "a;b", 1);
		add(&t, "a;b", 1);
		add(&t, "a;b;c", 1);
		ok(!t.b.hashed, "repeated and extended stacks stay in order");
		tree_free(&t);
	}

	/* The walk's limit: 300 siblings "f!000".."f!299" between f and its
	 * return make find_sorted give up for the hash, with the same result. */
	{
		struct tree t;
		tree_init(&t);
		add(&t, "p;f", 1);
		static char nm[300][16];
		for (int i = 0; i < 300; i++) {
			snprintf(nm[i], sizeof nm[i], "p;f!%03d", i);
			add(&t, nm[i], 1);
		}
		ok(!t.b.hashed, "300 siblings in order: no hash");
		add(&t, "p;f;x", 1);
		ok(t.b.hashed, "a walk past 256 siblings hands over to the hash");
		is_int((long long)tree_size(&t), 2 + 1 + 300 + 1, "f found, not made twice");
		tree_free(&t);
	}

	/* Random stacks: sorted, shuffled, and sorted in chunks merged in and
	 * out of order all give the same tree; the sorted builds never hash. */
	static struct stack st[3000];
	for (int round = 0; round < 6; round++) {
		bool semi = round >= 4;     /* names holding ';' (perf can make them) */
		size_t n = make_stacks(st, round % 2 ? 3000 : 300, 1000 + (uint64_t)round, semi);
		qsort(st, n, sizeof *st, cmp_stack);
		struct tree sorted, shuffled, merged, wrong;
		tree_init(&sorted);
		for (size_t i = 0; i < n; i++)
			add_stack(&sorted, &st[i]);
		char name[128];
		snprintf(name, sizeof name, "round %d: %zu sorted stacks built without the hash", round, n);
		ok(!sorted.b.hashed, "%s", name);

		/* Three chunks merged in order (as the parallel loader does). */
		struct tree part[3];
		for (int c = 0; c < 3; c++) {
			tree_init(&part[c]);
			for (size_t i = n * (size_t)c / 3; i < n * (size_t)(c + 1) / 3; i++)
				add_stack(&part[c], &st[i]);
		}
		tree_init(&merged);
		tree_merge(&merged, &part[0]);
		tree_merge_free(&merged, &part[1]);
		tree_merge(&merged, &part[2]);
		snprintf(name, sizeof name, "round %d: chunks merged in order, no hash", round);
		ok(!merged.b.hashed, "%s", name);
		/* The same chunks merged last-first: the hash must take over. */
		tree_init(&wrong);
		tree_merge(&wrong, &part[2]);
		tree_merge(&wrong, &part[0]);
		snprintf(name, sizeof name, "round %d: chunks merged out of order use the hash", round);
		ok(wrong.b.hashed, "%s", name);
		for (int c = 0; c < 3; c++)
			if (c != 1)
				tree_free(&part[c]);
		/* What wrong must equal: chunks 0 and 2 added one by one. */
		struct tree ref;
		tree_init(&ref);
		for (size_t i = 0; i < n; i++)
			if (i < n / 3 || i >= n * 2 / 3)
				add_stack(&ref, &st[i]);

		shuffle(st, n, 77 + (uint64_t)round);
		tree_init(&shuffled);
		for (size_t i = 0; i < n; i++)
			add_stack(&shuffled, &st[i]);
		snprintf(name, sizeof name, "round %d: shuffled stacks use the hash", round);
		ok(shuffled.b.hashed, "%s", name);
		/* 3000 stacks branch enough for the hash to grow past its first
		 * 1024 slots, by half each time (sizes that are not powers of 2). */
		if (n >= 3000) {
			snprintf(name, sizeof name, "round %d: the child hash grew (%zu entries, %zu slots)",
			         round, shuffled.b.nhashed, shuffled.b.nslots);
			ok(shuffled.b.nslots > 1024 && shuffled.b.nhashed * 5 <= shuffled.b.nslots * 4, "%s", name);
		}

		enum tree_order ord = round % 3 == 2 ? TREE_ORDER_WEIGHT : TREE_ORDER_NAME;
		tree_finalize(&sorted, ord);
		tree_finalize(&shuffled, ord);
		tree_finalize(&merged, ord);
		snprintf(name, sizeof name, "round %d: sorted and shuffled builds give the same tree (%s order)",
		         round, ord == TREE_ORDER_NAME ? "name" : "weight");
		same_tree(&sorted, &shuffled, name);
		snprintf(name, sizeof name, "round %d: merged chunks give the same tree", round);
		same_tree(&sorted, &merged, name);
		tree_finalize(&wrong, ord);
		tree_finalize(&ref, ord);
		snprintf(name, sizeof name, "round %d: chunks merged out of order give the right tree", round);
		same_tree(&wrong, &ref, name);
		tree_free(&ref);
		tree_free(&sorted);
		tree_free(&shuffled);
		tree_free(&merged);
		tree_free(&wrong);
	}

	/* Weighted and first-appearance orders, and fractional counts, from a
	 * sorted build: offsets follow the siblings' order in each. */
	{
		struct tree t;
		tree_init(&t);
		add(&t, "a;x", 1);
		add(&t, "a;y", 5);
		add(&t, "b", 2);
		ok(!t.b.hashed, "weight order input: sorted");
		tree_finalize(&t, TREE_ORDER_WEIGHT);
		/* a (6) before b (2); under a, y (5) before x (1). */
		is_str(tree_name(&t, 2), "y", "weight order: y first under a");
		is_int(tree_off_d(&t, 3), 5, "weight order: x starts after y");
		is_str(tree_name(&t, 4), "b", "weight order: b after a's subtree");
		is_int(tree_off_d(&t, 4), 6, "weight order: b starts at 6");
		tree_free(&t);

		tree_init(&t);
		struct tree_frame f[2] = { { "a", 1 }, { "x", 1 } };
		tree_add_stack_dec(&t, f, 2, (struct tree_dec){ 5, 1, false, false });
		f[1] = (struct tree_frame){ "y", 1 };
		tree_add_stack_dec(&t, f, 2, (struct tree_dec){ 25, 2, false, false });
		ok(!t.b.hashed, "fractional counts, sorted: no hash");
		tree_finalize(&t, TREE_ORDER_NAME);
		ok(tree_off_d(&t, 3) == 0.5 && tree_total_d(&t, 1) == 0.75, "fractional offsets and totals");
		tree_free(&t);
	}
	/* Counts that fit one by one but not summed: finalize's running sums
	 * overflow and the saturating way takes over. h = 2^63 + 1 each: a and
	 * b keep h, the root clamps, b starts after a (h). */
	{
		struct tree t;
		uint64_t h = ((uint64_t)1 << 63) + 1;
		tree_init(&t);
		add(&t, "a", h);
		add(&t, "b", h);
		ok(!t.saturated, "no single count saturates");
		tree_finalize(&t, TREE_ORDER_NAME);
		ok(t.saturated, "the sum saturates");
		ok(t.nodes[0].total.u == UINT64_MAX, "root total clamps at UINT64_MAX");
		ok(t.nodes[1].total.u == h && t.nodes[2].total.u == h, "a and b totals exact");
		ok(t.nodes[2].off.u == h && t.nodes[1].off.u == 0, "b starts after a");
		is_int(tree_end(&t, 0), 3, "root end");
		tree_free(&t);
	}
	return done_testing();
}
