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
#include "treeint.h"
#include "tap.h"
#include "treeutil.h"

#define MAXF 6
#define NAMEMAX 16      /* bytes of the longest name here */

struct stack {
	int nf;
	const char *f[MAXF];
	uint64_t count;
	uint16_t key[MAXF * (NAMEMAX + 1) + 2];    /* the sort key, see encode */
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

/* Encoded s added to st[0..m) unless there already: the new count. */
static size_t add_distinct(struct stack *st, size_t m, const struct stack *s)
{
	size_t k;
	for (k = 0; k < m && cmp_stack(&st[k], s) != 0; k++)
		;
	if (k == m)
		st[m++] = *s;
	return m;
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
		m = add_distinct(st, m, &s);
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


/* ---- the oracle for revisits: a tree by a plain sort of prefixes ---- */

/* A distinct prefix of the stacks: frames st[k].f[0..depth) of the first
 * stack k that has it. */
struct prefix {
	char key[MAXF * (NAMEMAX + 1) + 8];     /* frames joined by \1 */
	int k, depth;
	size_t created;     /* the builder's index: first appearance */
	size_t pos;         /* place in the oracle's preorder */
	uint64_t self, total;
	size_t ancestors[MAXF];     /* prefixes of depth 1..depth (self last) */
};

static void prefix_key(const struct stack *s, int depth, char *key)
{
	key[0] = '\0';
	for (int i = 0; i < depth; i++) {
		if (i)
			strcat(key, "\1");
		strcat(key, s->f[i]);
	}
}

static int prefix_cmp_key(const void *a, const void *b)
{
	const struct prefix *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	if (c)
		return c;
	return x->k != y->k ? (x->k < y->k ? -1 : 1) : 0;
}

static struct prefix *oracle_pfx;

/* First-appearance preorder: by the creation order of each ancestor in
 * turn, a prefix before the longer ones it starts. */
static int prefix_cmp_order(const void *a, const void *b)
{
	const struct prefix *x = &oracle_pfx[*(const size_t *)a], *y = &oracle_pfx[*(const size_t *)b];
	for (int d = 0; d < x->depth && d < y->depth; d++) {
		size_t cx = oracle_pfx[x->ancestors[d]].created, cy = oracle_pfx[y->ancestors[d]].created;
		if (cx != cy)
			return cx < cy ? -1 : 1;
	}
	return (x->depth > y->depth) - (x->depth < y->depth);
}

static size_t prefix_find(const struct prefix *p, size_t np, const char *key)
{
	size_t lo = 0, hi = np;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(p[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Compares t (finalized in input order, built from st[0..n) in that
 * order; map from tree_finalize_map or NULL) with the oracle's tree,
 * field by field; returns the first difference or NULL, and counts in
 * *moved the nodes whose preorder place is not their creation index. */
static const char *oracle_diff(const struct tree *t, const tree_idx *map, const struct stack *st, size_t n,
                               size_t *moved)
{
	static char why[320];
	size_t cap = n * MAXF + 1, np = 0;
	struct prefix *p = calloc(cap, sizeof *p);
	uint64_t rootself = 0;
	for (size_t k = 0; k < n; k++) {
		if (!st[k].nf)
			rootself += st[k].count;
		for (int d = 1; d <= st[k].nf; d++) {
			prefix_key(&st[k], d, p[np].key);
			p[np].k = (int)k;
			p[np].depth = d;
			np++;
		}
	}
	/* dedupe: the first appearance of each key stays */
	qsort(p, np, sizeof *p, prefix_cmp_key);
	size_t m = 0;
	for (size_t i = 0; i < np; i++)
		if (!m || strcmp(p[m - 1].key, p[i].key) != 0)
			p[m++] = p[i];
	np = m;
	/* creation order: by first stack, then depth */
	size_t *ix = malloc((np + 1) * sizeof *ix);
	for (size_t i = 0; i < np; i++)
		ix[i] = i;
	for (size_t i = 1; i < np; i++)     /* insertion sort by (k, depth) */
		for (size_t j = i; j > 0; j--) {
			const struct prefix *a = &p[ix[j - 1]], *b = &p[ix[j]];
			if (a->k < b->k || (a->k == b->k && a->depth < b->depth))
				break;
			size_t x = ix[j];
			ix[j] = ix[j - 1];
			ix[j - 1] = x;
		}
	for (size_t i = 0; i < np; i++)
		p[ix[i]].created = i + 1;
	char key[MAXF * (NAMEMAX + 1) + 8];
	for (size_t i = 0; i < np; i++) {
		const struct stack *s = &st[p[i].k];
		for (int d = 1; d <= p[i].depth; d++) {
			prefix_key(s, d, key);
			p[i].ancestors[d - 1] = prefix_find(p, np, key);
		}
	}
	for (size_t k = 0; k < n; k++) {
		if (!st[k].nf)
			continue;
		prefix_key(&st[k], st[k].nf, key);
		size_t j = prefix_find(p, np, key);
		p[j].self += st[k].count;
		for (int d = 0; d < st[k].nf; d++)
			p[p[j].ancestors[d]].total += st[k].count;
	}
	oracle_pfx = p;
	for (size_t i = 0; i < np; i++)
		ix[i] = i;
	qsort(ix, np, sizeof *ix, prefix_cmp_order);
	for (size_t i = 0; i < np; i++)
		p[ix[i]].pos = i + 1;
	const char *bad = NULL;
	*moved = 0;
	if (tree_size(t) != np + 1) {
		snprintf(why, sizeof why, "sizes %zu and %zu", tree_size(t), np + 1);
		bad = why;
	}
	uint64_t before = rootself;     /* self counts before, in preorder */
	uint64_t anc[MAXF + 1];         /* self counts of the ancestors */
	for (size_t i = 0; !bad && i < np; i++) {
		const struct prefix *x = &p[ix[i]];
		tree_idx at = (tree_idx)(i + 1);
		const struct tree_node *nd = tree_node(t, at);
		const char *last = strrchr(x->key, '\1');
		last = last ? last + 1 : x->key;
		size_t parent = x->depth > 1 ? p[x->ancestors[x->depth - 2]].pos : 0;
		size_t subtree = 0;
		for (size_t j = i + 1; j < np && p[ix[j]].depth > x->depth; j++)
			subtree++;
		anc[0] = rootself;
		for (int d = 1; d < x->depth; d++)
			anc[d] = anc[d - 1] + p[x->ancestors[d - 1]].self;
		uint64_t off = before - anc[x->depth - 1];
		if (x->created != at)
			(*moved)++;
		if (strlen(last) != tree_name_len(t, at) || memcmp(last, tree_name(t, at), strlen(last)) != 0 ||
		    nd->depth != (uint32_t)x->depth || nd->parent != parent || nd->end != at + subtree + 1 ||
		    nd->self.u != x->self || nd->total.u != x->total || nd->off.u != off ||
		    (map && map[x->created] != at)) {
			snprintf(why, sizeof why, "node %u (%s): depth %u/%d parent %u/%zu end %u/%zu self %llu/%llu "
			         "total %llu/%llu off %llu/%llu", at, last, nd->depth, x->depth, nd->parent, parent,
			         nd->end, at + subtree + 1, (unsigned long long)nd->self.u, (unsigned long long)x->self,
			         (unsigned long long)nd->total.u, (unsigned long long)x->total,
			         (unsigned long long)nd->off.u, (unsigned long long)off);
			bad = why;
		}
		before += x->self;
	}
	free(ix);
	free(p);
	return bad;
}

/* Stacks over names that start one another ("f", "f(int)", "f!", "f<T>"),
 * so that sorted input revisits nodes at all depths, nested; `rare`: most
 * stacks over other names, few revisits (finalize then lists the nodes
 * that move). */
static size_t make_names(struct stack *st, size_t n, uint64_t seed, bool rare, const char *const *pre,
                         size_t npre)
{
	static const char *other[] = { "m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9" };
	size_t m = 0;
	for (size_t tries = 0; m < n && tries < n * 20; tries++) {
		struct stack s = { 0 };
		s.nf = 1 + (int)(rnd(&seed) % MAXF);
		bool pref = !rare || rnd(&seed) % 64 == 0;
		for (int i = 0; i < s.nf; i++)
			s.f[i] = pref ? pre[rnd(&seed) % npre] : other[rnd(&seed) % 10];
		s.count = 1 + rnd(&seed) % 9;
		encode(&s);
		m = add_distinct(st, m, &s);
	}
	return m;
}

static size_t make_revisits(struct stack *st, size_t n, uint64_t seed, bool rare)
{
	static const char *pre[] = { "f", "f(int)", "f!", "f<T>", "f ", "f:", "g", "g(x)" };
	return make_names(st, n, seed, rare, pre, 8);
}

/* Frames stack a shares with stack b from the first. */
static size_t shared_frames(const struct stack *a, const struct stack *b)
{
	size_t k = 0;
	while ((int)k < a->nf && (int)k < b->nf && strcmp(a->f[k], b->f[k]) == 0)
		k++;
	return k;
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

	/* Revisits repaired without renumbering every node, worked out by
	 * hand: sorted stacks "p;f 1", "p;f(int) 2", "p;f;x 4", "p;f;x;g 1",
	 * "p;f;x;g(a) 3", "p;f;x;g;h 2", "p;f<T> 5" make all p f f(int) x g
	 * g(a) h f<T> (0..8): f is revisited once f(int) was made (its new
	 * subtree x g g(a) h is [4, 8)), and g once g(a) was ([7, 8)).
	 * Preorder: all p f x g h g(a) f(int) f<T>. Totals: h 2, g 3, g(a) 3,
	 * x 10, f 11, f(int) 2, f<T> 5, p 18. Offsets: p f x g h 0, g(a) 3
	 * (after g's 3), f(int) 11, f<T> 13. Ends: f 7, x 7, g 6, h 6, g(a) 7,
	 * f(int) 8, f<T> 9. */
	{
		struct tree t;
		tree_init(&t);
		const char *in[] = { "p;f", "p;f(int)", "p;f;x", "p;f;x;g", "p;f;x;g(a)", "p;f;x;g;h", "p;f<T>" };
		uint64_t cnt[] = { 1, 2, 4, 1, 3, 2, 5 };
		for (int i = 0; i < 7; i++)
			add(&t, in[i], cnt[i]);
		ok(!t.b.hashed && t.b.revisited && !t.b.rv_lost, "revisits by hand: listed, no hash");
		ok(t.b.nrv == 2 && t.b.rv[0].node == 2 && t.b.rv[0].at == 4 && t.b.rv[0].end == 8 &&
		   t.b.rv[1].node == 5 && t.b.rv[1].at == 7 && t.b.rv[1].end == 8,
		   "revisits by hand: f's new subtree [4, 8), g's [7, 8)");
		tree_idx *map = NULL;
		tree_finalize_map(&t, TREE_ORDER_NAME, &map);
		const char *want[] = { "all", "p", "f", "x", "g", "h", "g(a)", "f(int)", "f<T>" };
		uint64_t total[] = { 18, 18, 11, 10, 3, 2, 3, 2, 5 };
		uint64_t off[] = { 0, 0, 0, 0, 0, 0, 3, 11, 13 };
		tree_idx end[] = { 9, 9, 7, 7, 6, 6, 7, 8, 9 };
		tree_idx parent[] = { TREE_NONE, 0, 1, 2, 3, 4, 3, 1, 1 };
		int good = tree_size(&t) == 9;
		for (tree_idx i = 0; good && i < 9; i++)
			good &= strcmp(tree_name(&t, i), want[i]) == 0 && t.nodes[i].total.u == total[i] &&
			        t.nodes[i].off.u == off[i] && t.nodes[i].end == end[i] && t.nodes[i].parent == parent[i];
		ok(good, "revisits by hand: preorder, totals, offsets, ends and parents");
		/* created: all p f f(int) x g g(a) h f<T> */
		tree_idx wmap[] = { 0, 1, 2, 7, 3, 4, 6, 5, 8 };
		good = map != NULL;
		for (int i = 0; good && i < 9; i++)
			good &= map[i] == wmap[i];
		ok(good, "revisits by hand: the map of new ids");
		free(map);
		is_folded(&t, "p;f 1\np;f(int) 2\np;f;x 4\np;f;x;g 1\np;f;x;g(a) 3\np;f;x;g;h 2\np;f<T> 5\n",
		          "revisits by hand: folded output");
		tree_free(&t);
	}

	/* A revisit below a later sibling, open when the outer revisit
	 * comes, worked out by hand: "p;f 1", "p;f!;g 2", "p;f!;g(x) 3",
	 * "p;f!;g;h 4", "p;f;k 5" make all p f f! g g(x) h k (0..7); g is
	 * revisited at 6 and left at 7, when the last stack goes back to f
	 * (new subtree [7, 8), closed by finalize). Preorder: all p f k f! g h g(x). Totals: k 5,
	 * f 6, h 4, g 6, g(x) 3, f! 9, p 15. Offsets: f k 0, f! g h 6, g(x)
	 * 12. Ends: f 4, k 4, f! 8, g 7, h 7, g(x) 8. */
	{
		struct tree t;
		tree_init(&t);
		const char *in[] = { "p;f", "p;f!;g", "p;f!;g(x)", "p;f!;g;h", "p;f;k" };
		for (int i = 0; i < 5; i++)
			add(&t, in[i], (uint64_t)i + 1);
		ok(!t.b.hashed && !t.b.rv_lost && t.b.nrv == 2 && t.b.rv[0].node == 4 && t.b.rv[0].at == 6 &&
		   t.b.rv[0].end == 7 && t.b.rv[1].node == 2 && t.b.rv[1].at == 7 && t.b.rv[1].end == TREE_NONE,
		   "nested revisits by hand: g's subtree [6, 7) closed before f's opens at 7 (still on the path)");
		tree_idx *map = NULL;
		tree_finalize_map(&t, TREE_ORDER_NAME, &map);
		const char *want[] = { "all", "p", "f", "k", "f!", "g", "h", "g(x)" };
		uint64_t total[] = { 15, 15, 6, 5, 9, 6, 4, 3 };
		uint64_t off[] = { 0, 0, 0, 0, 6, 6, 6, 12 };
		tree_idx end[] = { 8, 8, 4, 4, 8, 7, 7, 8 };
		tree_idx parent[] = { TREE_NONE, 0, 1, 2, 1, 4, 5, 4 };
		int good = tree_size(&t) == 8;
		for (tree_idx i = 0; good && i < 8; i++)
			good &= strcmp(tree_name(&t, i), want[i]) == 0 && t.nodes[i].total.u == total[i] &&
			        t.nodes[i].off.u == off[i] && t.nodes[i].end == end[i] && t.nodes[i].parent == parent[i];
		ok(good, "nested revisits by hand: preorder, totals, offsets, ends and parents");
		tree_idx wmap[] = { 0, 1, 2, 4, 5, 7, 6, 3 };
		good = map != NULL;
		for (int i = 0; good && i < 8; i++)
			good &= map[i] == wmap[i];
		ok(good, "nested revisits by hand: the map of new ids");
		free(map);
		tree_free(&t);
	}

	/* A revisit made by the merge's second tree alone: "p;f" in a, then
	 * "p;f(int)" and "p;f;x" in b, merged in order. f is on a's last
	 * path, but b's second stack goes back to it after f(int) was made:
	 * x is f's child, after f(int) in index order. By hand (name order):
	 * all p f x f(int); f's total 1 + 4 over [2, 4), f(int) from 5. */
	{
		struct tree a, b, one;
		tree_init(&a);
		tree_init(&b);
		tree_init(&one);
		add(&a, "p;f", 1);
		add(&b, "p;f(int)", 2);
		add(&b, "p;f;x", 4);
		add(&one, "p;f", 1);
		add(&one, "p;f(int)", 2);
		add(&one, "p;f;x", 4);
		tree_merge(&a, &b);
		ok(!a.b.hashed && a.b.revisited, "merged in order; f revisited by the second tree's second stack");
		tree_finalize(&a, TREE_ORDER_NAME);
		tree_finalize(&one, TREE_ORDER_NAME);
		const char *want[] = { "all", "p", "f", "x", "f(int)" };
		int good = tree_size(&a) == 5;
		for (tree_idx i = 0; good && i < 5; i++)
			good &= strcmp(tree_name(&a, i), want[i]) == 0;
		ok(good && tree_node(&a, 3)->parent == 2 && tree_end(&a, 2) == 4 && tree_total_d(&a, 2) == 5 &&
		   tree_off_d(&a, 4) == 5, "revisit in the merged tree: all p f x f(int), x under f, f(int) at 5");
		same_tree(&a, &one, "revisit in the merged tree: as one tree of the three stacks");
		tree_free(&a);
		tree_free(&b);
		tree_free(&one);
	}

	/* Random sorted stacks with revisits at all depths, nested, against
	 * the oracle (a plain sort of the distinct prefixes): every field of
	 * every node in first-appearance order, and the map of new ids. With
	 * many revisits every node gets a target; with few only those that
	 * move are listed. */
	{
		static struct stack rs[4000];
		for (int round = 0; round < 8; round++) {
			bool rare = round >= 4;
			size_t n = make_revisits(rs, rare ? 4000 : (round % 2 ? 2000 : 200), 500 + (uint64_t)round, rare);
			qsort(rs, n, sizeof *rs, cmp_stack);
			struct tree t;
			tree_init(&t);
			for (size_t i = 0; i < n; i++)
				add_stack(&t, &rs[i]);
			char name[160];
			snprintf(name, sizeof name, "revisit round %d: %zu sorted stacks, %zu revisits listed", round, n,
			         t.b.nrv);
			ok(!t.b.hashed && !t.b.rv_lost && t.b.nrv > 0, "%s", name);
			tree_idx *map = NULL;
			tree_finalize_map(&t, TREE_ORDER_INPUT, &map);
			size_t moved = 0;
			const char *d = oracle_diff(&t, map, rs, n, &moved);
			snprintf(name, sizeof name, "revisit round %d: the oracle's tree, node by node (%zu of %zu moved)",
			         round, moved, tree_size(&t));
			ok(d == NULL && moved > 0, "%s", name);
			if (d)
				printf("# first difference: %s\n", d);
			free(map);
			tree_free(&t);
		}
	}

	/* Names alike in their first 8 bytes, or starting one another within
	 * them, with bytes below and above ';' (and above 127) after: the
	 * builder tells a sorted stack's first new frame from the previous
	 * stack's at that depth by those 8 bytes and the lengths (treebuild.c:
	 * key_order, key_not_started) where it can. Sorted, the stacks must
	 * build without the hash and give the oracle's tree: one added whole,
	 * one by tails that keep fewer frames than they share (the new frame
	 * then equals the previous one), one in three parts merged in order
	 * (the path's keys made again from the names), each with stacks added
	 * after. */
	{
		static const char *pre[] = { "abcdefgh", "abcdefghi", "abcdefgh!", "abcdefgh(int)", "abcdefgh;",
			                     "abcdefgi", "abcdefg", "abcdefg(", "abcdefg ", "abcdefg\xc3\xa9",
			                     "abcdefgz", "ab", "ab(", "a", "\xc3\xa9t\xc3\xa9", "", "abcdefghij!",
			                     "abcdefghijklmnop", "ab;", "ab;c" };
		static struct stack rs[2000];
		for (int round = 0; round < 6; round++) {
			size_t n = make_names(rs, 2000, 1300 + (uint64_t)round, round >= 4, pre, round % 2 ? 20 : 4);
			qsort(rs, n, sizeof *rs, cmp_stack);
			struct tree t[3], b;
			for (int v = 0; v < 3; v++)
				tree_init(&t[v]);
			tree_init(&b);
			for (size_t i = 0; i < n; i++) {
				add_stack(&t[0], &rs[i]);
				size_t keep = i ? shared_frames(&rs[i], &rs[i - 1]) / 2 : 0;
				struct tree_frame f[MAXF];
				for (int k = 0; k < rs[i].nf; k++)
					f[k] = (struct tree_frame){ rs[i].f[k], strlen(rs[i].f[k]) };
				tree_add_stack_tail(&t[1], keep, f + keep, (size_t)rs[i].nf - keep, rs[i].count);
				add_stack(i < n / 3 || i >= 2 * n / 3 ? &t[2] : &b, &rs[i]);
				if (i + 1 == 2 * n / 3)
					tree_merge(&t[2], &b);
			}
			for (int v = 0; v < 3; v++) {
				static const char *how[] = { "whole", "by short tails", "merged" };
				char name[160];
				snprintf(name, sizeof name, "names alike round %d, %s: %zu sorted stacks, no hash", round,
				         how[v], n);
				ok(!t[v].b.hashed, "%s", name);
				tree_idx *map = NULL;
				tree_finalize_map(&t[v], TREE_ORDER_INPUT, &map);
				size_t moved = 0;
				const char *d = oracle_diff(&t[v], v == 2 ? NULL : map, rs, n, &moved);
				snprintf(name, sizeof name, "names alike round %d, %s: the oracle's tree (%zu nodes)", round,
				         how[v], tree_size(&t[v]));
				ok(d == NULL, "%s", name);
				if (d)
					printf("# first difference: %s\n", d);
				free(map);
				tree_free(&t[v]);
			}
			tree_free(&b);
		}
		/* Two stacks of those names, one after the other: the hash is
		 * on exactly when the second sorts before the first (the
		 * encoding's order), for every pair of 150 stacks. */
		size_t n = make_names(rs, 150, 1400, false, pre, 20), wrong = 0, sorted = 0;
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < n; j++) {
				struct tree t;
				tree_init(&t);
				add_stack(&t, &rs[i]);
				add_stack(&t, &rs[j]);
				bool before = cmp_stack(&rs[j], &rs[i]) < 0;
				wrong += t.b.hashed != before;
				sorted += !before;
				tree_free(&t);
			}
		ok(wrong == 0, "names alike: %zu pairs in order and %zu not, hashed exactly when not (%zu wrong)",
		   sorted, n * n - sorted, wrong);
	}

	/* The same stacks in chunks, each a tree of its own, merged in order
	 * (as the loader's pieces on several threads): the revisits listed
	 * as one tree lists them (the merges' own too: a chunk that goes back
	 * to a leaf of the tree before it), so that finalize moves only their
	 * nodes; and the oracle's tree. */
	{
		static struct stack rs[2000];
		for (int round = 0; round < 8; round++) {
			bool rare = round >= 4;
			size_t n = make_revisits(rs, rare ? 2000 : (round % 2 ? 1000 : 200), 700 + (uint64_t)round, rare);
			qsort(rs, n, sizeof *rs, cmp_stack);
			struct tree one, t, part;
			tree_init(&one);
			tree_init(&t);
			for (size_t i = 0; i < n; i++)
				add_stack(&one, &rs[i]);
			uint64_t seed = 77 + (uint64_t)round;
			size_t chunks = 0;
			for (size_t i = 0; i < n;) {
				size_t len = 1 + rnd(&seed) % (n / 4 + 1);
				if (len > n - i)
					len = n - i;
				tree_init(&part);
				for (size_t k = i; k < i + len; k++)
					add_stack(i ? &part : &t, &rs[k]);
				if (i)
					tree_merge_free(&t, &part);
				else
					tree_free(&part);
				i += len;
				chunks++;
			}
			int same = !t.b.hashed && !t.b.rv_lost && !one.b.rv_lost && t.b.nrv == one.b.nrv &&
			           t.b.nrvopen == one.b.nrvopen && tree_size(&t) == tree_size(&one);
			/* the same revisits, in any order (the merged tree lists a
			 * merge's own before the second tree's), the same open */
			for (size_t k = 0; same && k < t.b.nrv; k++) {
				size_t m = 0;
				while (m < one.b.nrv && memcmp(&one.b.rv[m], &t.b.rv[k], sizeof t.b.rv[k]) != 0)
					m++;
				same = m < one.b.nrv;
			}
			for (size_t k = 0; same && k < t.b.nrvopen; k++)
				same = memcmp(&t.b.rv[t.b.rvopen[k]], &one.b.rv[one.b.rvopen[k]], sizeof t.b.rv[0]) == 0;
			char name[160];
			snprintf(name, sizeof name, "revisits in %zu merged chunks, round %d: as one tree lists them (%zu, %zu open)",
			         chunks, round, one.b.nrv, one.b.nrvopen);
			ok(same && one.b.nrv > 0, "%s", name);
			tree_idx *map = NULL;
			tree_finalize_map(&t, TREE_ORDER_INPUT, &map);
			size_t moved = 0;
			const char *d = oracle_diff(&t, map, rs, n, &moved);
			snprintf(name, sizeof name, "revisits in %zu merged chunks, round %d: the oracle's tree", chunks, round);
			ok(d == NULL, "%s", name);
			if (d)
				printf("# first difference: %s\n", d);
			free(map);
			tree_free(&t);
			tree_free(&one);
		}
	}

	/* More revisits than the list is worth (one a group of 4 nodes:
	 * 3000 against 12001 / 16 + 1024): the list is dropped and every
	 * node numbered, with the same result. "pNNNN;f 1", "pNNNN;f! 2",
	 * "pNNNN;f;x 3" in order are also what --collapse writes back. */
	{
		struct tree t;
		tree_init(&t);
		size_t cap = 3000 * 40, len = 0;
		char *want = malloc(cap), line[64];
		for (int g = 0; g < 3000; g++) {
			const char *tail[] = { "f", "f!", "f;x" };
			for (int k = 0; k < 3; k++) {
				snprintf(line, sizeof line, "p%04d;%s", g, tail[k]);
				add(&t, line, (uint64_t)k + 1);
				len += (size_t)snprintf(want + len, cap - len, "%s %d\n", line, k + 1);
			}
		}
		ok(!t.b.hashed && t.b.revisited && t.b.rv_lost && t.b.rv == NULL && tree_size(&t) == 12001,
		   "3000 revisits in 12001 nodes: the list dropped");
		tree_finalize(&t, TREE_ORDER_NAME);
		is_folded(&t, want, "3000 revisits: folded output");
		ok(strcmp(tree_name(&t, 2), "f") == 0 && strcmp(tree_name(&t, 3), "x") == 0 &&
		   strcmp(tree_name(&t, 4), "f!") == 0 && tree_end(&t, 2) == 4 && tree_node(&t, 4)->off.u == 4,
		   "3000 revisits: p0000 f x f! in preorder, f! after f's 1 + 3");
		free(want);
		tree_free(&t);
	}

	/* Fractional and saturating counts with revisits: the sorted build
	 * (repaired) against the shuffled one (the hash's sort), in name and
	 * input order (input: the shuffled build's first appearances differ,
	 * so there the sorted build against one of the same stacks merged
	 * in, which renumbers every node). */
	{
		static struct stack rs[2000];
		for (int round = 0; round < 4; round++) {
			size_t n = make_revisits(rs, 2000, 900 + (uint64_t)round, false);
			uint64_t big = ((uint64_t)1 << 62) + 7;
			for (size_t i = 0; i < n; i++)
				if (round % 2 == 0 && i % 7 == 0)
					rs[i].count = big;
			qsort(rs, n, sizeof *rs, cmp_stack);
			struct tree a, b, c, empty;
			tree_init(&a);
			tree_init(&b);
			tree_init(&c);
			tree_init(&empty);
			for (int pass = 0; pass < 2; pass++) {
				for (size_t i = 0; i < n; i++) {
					struct tree_frame f[MAXF];
					for (int k = 0; k < rs[i].nf; k++)
						f[k] = (struct tree_frame){ rs[i].f[k], strlen(rs[i].f[k]) };
					struct tree_dec cnt = round % 2 ? (struct tree_dec){ rs[i].count * 25, 2, false, false }
					                                : (struct tree_dec){ rs[i].count, 0, false, false };
					tree_add_stack_dec(pass ? &b : &a, f, (size_t)rs[i].nf, cnt);
					if (!pass)
						tree_add_stack_dec(&c, f, (size_t)rs[i].nf, cnt);
				}
				shuffle(rs, n, 31 + (uint64_t)round);
			}
			char name[160];
			const char *kind = round % 2 ? "fractions" : "saturating sums";
			snprintf(name, sizeof name, "revisit counts round %d (%s): listed, no hash", round, kind);
			ok(!a.b.hashed && !a.b.rv_lost && a.b.nrv > 0 && b.b.hashed, "%s", name);
			/* c merged into an empty tree: its revisits listed still */
			tree_merge(&empty, &c);
			ok(!empty.b.rv_lost && empty.b.nrv == c.b.nrv, "a merge into an empty tree keeps the revisits listed");
			struct tree a2;
			tree_init(&a2);
			tree_merge(&a2, &a);    /* a copy of a, renumbered in full: */
			treebuild_revisits_lost(&a2);
			tree_finalize(&a, TREE_ORDER_NAME);
			tree_finalize(&b, TREE_ORDER_NAME);
			snprintf(name, sizeof name, "revisit counts round %d (%s): sorted and shuffled, name order", round, kind);
			same_tree(&a, &b, name);
			tree_finalize(&a2, TREE_ORDER_INPUT);
			tree_finalize(&c, TREE_ORDER_INPUT);
			snprintf(name, sizeof name, "revisit counts round %d (%s): repaired and renumbered, input order", round,
			         kind);
			same_tree(&c, &a2, name);
			if (round % 2 == 0)
				ok(c.saturated, "the sums saturated");
			tree_free(&a);
			tree_free(&a2);
			tree_free(&b);
			tree_free(&c);
			tree_free(&empty);
		}
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
