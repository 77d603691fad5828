/* Sibling sort of tree_finalize: name order (flamegraph.pl's) and weight
 * order, on the child lists of a tree being built. */
#include "config.h"
#include "treeint.h"

#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

#ifdef TREE_TEST_COUNT
unsigned long tree_test_name_compares, tree_test_item_compares;
#endif

struct sort_ctx {
	const struct tree *t;
	enum tree_order order;
};


/* flamegraph.pl order: siblings appear in the order of the smallest folded
 * line of their subtree. A node's own line "name" sorts before "name;...",
 * so a name that is a prefix of a sibling's compares by what follows it:
 * end of string if the node has samples of its own, else ';'. */
int treesort_cmp_names(const char *a, size_t la, bool selfa, const char *b, size_t lb, bool selfb)
{
	const unsigned char *sa = (const unsigned char *)a, *sb = (const unsigned char *)b;
	int c = memcmp(sa, sb, la < lb ? la : lb);
	if (c || la == lb)
		return c;
	/* A ';' inside a name (perf can make one) sorts after the ';' that
	 * joins frames, as in cmp_stacks, so that this is a total order. */
	if (la < lb) {
		int ta = selfa ? -1 : ';';
		return ta <= sb[la] ? -1 : 1;
	}
	int tb = selfb ? -1 : ';';
	return sa[lb] < tb ? -1 : 1;
}

static int cmp_name(const struct tree *t, tree_idx a, tree_idx b)
{
	TEST_COUNT(tree_test_name_compares);
	strtab_id na = t->nodes[a].name, nb = t->nodes[b].name;
	return treesort_cmp_names(strtab_str(&t->names, na), strtab_len(&t->names, na), has_self(t, a),
	                          strtab_str(&t->names, nb), strtab_len(&t->names, nb), has_self(t, b));
}

static int cmp_nodes(const struct sort_ctx *cx, tree_idx a, tree_idx b)
{
	const struct tree *t = cx->t;
	if (cx->order == TREE_ORDER_WEIGHT) {
		uint64_t ua = t->nodes[a].total.u, ub = t->nodes[b].total.u;
		if (ua != ub)
			return ua > ub ? -1 : 1;
	}
	return cmp_name(t, a, b);
}

/* Stable bottom-up merge sort of v[0..n) using tmp[0..n); no recursion. */
static void sort_children(const struct sort_ctx *cx, tree_idx *v, tree_idx *tmp, size_t n)
{
	if (n < 2)
		return;
	/* Short runs by insertion sort first: most sibling lists are tiny. */
	const size_t run = 8;
	for (size_t lo = 0; lo < n; lo += run) {
		size_t hi = lo + run < n ? lo + run : n;
		for (size_t i = lo + 1; i < hi; i++) {
			tree_idx x = v[i];
			size_t j = i;
			while (j > lo && cmp_nodes(cx, v[j - 1], x) > 0) {
				v[j] = v[j - 1];
				j--;
			}
			v[j] = x;
		}
	}
	tree_idx *src = v, *dst = tmp;
	for (size_t w = run; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n;
			size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				dst[k++] = cmp_nodes(cx, src[j], src[i]) < 0 ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		tree_idx *s = src;
		src = dst;
		dst = s;
	}
	if (src != v)
		memcpy(v, src, n * sizeof *v);
}

/* Sorting by name with what decides most comparisons at hand: the first
 * 8 bytes of the name (big-endian, zero-padded), its length and whether the
 * node has samples of its own, so that a comparison reads no node, name
 * entry or name bytes (a cache miss each on a big tree). */
struct name_key {
	uint64_t key;
	uint32_t len;       /* bit 31: has_self; below: the length, at most 2^31 - 1 */
	tree_idx node;
};

#define NAME_KEY_SELF 0x80000000u

static struct name_key name_key_of(const struct tree *t, tree_idx i)
{
	strtab_id id = t->nodes[i].name;
	const unsigned char *s = (const unsigned char *)strtab_str(&t->names, id);
	uint32_t len = strtab_len(&t->names, id);
	uint64_t k = 0;
	for (uint32_t j = 0; j < 8; j++)
		k = k << 8 | (j < len ? s[j] : 0);
	len = len < NAME_KEY_SELF ? len : NAME_KEY_SELF - 1;
	return (struct name_key){ k, len | (has_self(t, i) ? NAME_KEY_SELF : 0), i };
}

/* Byte i (< 8) of a key. */
static inline int key_byte(uint64_t k, uint32_t i)
{
	return (int)(k >> (56 - 8 * i) & 0xff);
}

/* cmp_name from the keys when they tell: the names differ within both
 * keys, or one name ends within its key and starts the other. */
static int cmp_name_key(const struct tree *t, const struct name_key *a, const struct name_key *b)
{
	uint32_t la = a->len & ~NAME_KEY_SELF, lb = b->len & ~NAME_KEY_SELF;
	uint64_t x = a->key ^ b->key;
	if (x) {
		uint32_t p = (uint32_t)__builtin_clzll(x) / 8;
		if (p < la && p < lb)
			return a->key < b->key ? -1 : 1;
	}
	/* Equal up to where the shorter one ends: as in cmp_name. */
	if (la < lb && la < 8) {
		int ta = a->len & NAME_KEY_SELF ? -1 : ';';
		return ta <= key_byte(b->key, la) ? -1 : 1;
	}
	if (lb < la && lb < 8) {
		int tb = b->len & NAME_KEY_SELF ? -1 : ';';
		return key_byte(a->key, lb) < tb ? -1 : 1;
	}
	return cmp_name(t, a->node, b->node);
}

static void nk_swap(struct name_key *a, struct name_key *b)
{
	struct name_key x = *a;
	*a = *b;
	*b = x;
}

/* Moves v[i] down the heap v[0..n) to its place. */
static void nk_sift(const struct tree *t, struct name_key *v, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			return;
		if (c + 1 < n && cmp_name_key(t, &v[c], &v[c + 1]) < 0)
			c++;
		if (cmp_name_key(t, &v[i], &v[c]) >= 0)
			return;
		nk_swap(&v[i], &v[c]);
		i = c;
	}
}

/* Heapsort of v[0..n): the fallback that bounds the quicksort below. */
static void nk_heapsort(const struct tree *t, struct name_key *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		nk_sift(t, v, i, n);
	for (size_t m = n; m > 1; m--) {
		nk_swap(&v[0], &v[m - 1]);
		nk_sift(t, v, 0, m - 1);
	}
}

/* Sorts v[0..n) of distinct names by cmp_name_key, in place (no scratch
 * as big as the list): quicksort with a median-of-three pivot, the
 * smaller part first and the larger kept on a stack (so at most log2 n
 * deep), heapsort for a part that splits badly too often (so O(n log n)
 * whatever the names), insertion sort for short parts. Siblings have
 * distinct names: no two entries compare equal. */
static void sort_keyed(const struct tree *t, struct name_key *v, size_t n)
{
	struct { size_t lo, hi; unsigned budget; } stk[64];
	size_t sp = 0, lo = 0, hi = n;
	unsigned budget = 2 * (64 - (unsigned)__builtin_clzll((unsigned long long)n | 1));
	uint64_t seed = 0x9e3779b97f4a7c15ULL ^ n;
	for (;;) {
		while (hi - lo > 16) {
			if (budget == 0) {
				nk_heapsort(t, v + lo, hi - lo);
				lo = hi;
				break;
			}
			budget--;
			/* The pivot: the median of three entries drawn at
			 * (pseudo) random, as sibling lists come in patterns
			 * (creation order) that defeat fixed choices. */
			size_t len = hi - lo, e[3];
			for (int r = 0; r < 3; r++) {
				seed ^= seed << 13;
				seed ^= seed >> 7;
				seed ^= seed << 17;
				e[r] = lo + (size_t)(seed % len);
			}
			if (cmp_name_key(t, &v[e[1]], &v[e[0]]) < 0) {
				size_t x = e[0];
				e[0] = e[1];
				e[1] = x;
			}
			if (cmp_name_key(t, &v[e[2]], &v[e[1]]) < 0) {
				e[1] = e[2];
				if (cmp_name_key(t, &v[e[1]], &v[e[0]]) < 0)
					e[1] = e[0];
			}
			nk_swap(&v[lo], &v[e[1]]);
			size_t i = lo, j = hi;
			for (;;) {
				do
					i++;
				while (i < hi && cmp_name_key(t, &v[i], &v[lo]) < 0);
				do
					j--;
				while (cmp_name_key(t, &v[j], &v[lo]) > 0);
				if (i >= j)
					break;
				nk_swap(&v[i], &v[j]);
			}
			nk_swap(&v[lo], &v[j]);
			/* [lo, j) before the pivot at j, (j, hi) after it */
			size_t llo = lo, lhi = j, rlo = j + 1, rhi = hi;
			if (lhi - llo < rhi - rlo) {
				stk[sp].lo = rlo, stk[sp].hi = rhi, stk[sp].budget = budget, sp++;
				lo = llo, hi = lhi;
			} else {
				stk[sp].lo = llo, stk[sp].hi = lhi, stk[sp].budget = budget, sp++;
				lo = rlo, hi = rhi;
			}
		}
		for (size_t i = lo + 1; i < hi; i++) {
			struct name_key x = v[i];
			size_t j = i;
			while (j > lo && cmp_name_key(t, &v[j - 1], &x) > 0) {
				v[j] = v[j - 1];
				j--;
			}
			v[j] = x;
		}
		if (sp == 0)
			break;
		sp--;
		lo = stk[sp].lo, hi = stk[sp].hi, budget = stk[sp].budget;
	}
}

/* Child j of a sorted list: kv (name order) or v (other orders). */
static inline tree_idx sorted_kid(const struct name_key *kv, const tree_idx *v, size_t j)
{
	return kv ? kv[j].node : v[j];
}

#define SORT_AHEAD 16

/* Sorts the child list of every node with two children or more; scratch
 * grows to the longest sibling list (not to n): in name order, a keyed
 * entry each (sort_keyed, in place), else two indices each (a merge sort
 * and its scratch). The lists stay newest first, so they end up in
 * descending order (see tree_finalize). In input order the lists keep
 * their order. Each listed child's `end` gets 1 + the sizes (size[c], or
 * with size NULL `total`) of the siblings before it in that order. */
void treesort_lists(struct tree *t, enum tree_order order, const tree_idx *size)
{
	struct tree_node *nd = t->nodes;
	struct sort_ctx cx = { t, order };
	tree_idx *v = NULL;
	struct name_key *kv = NULL;     /* instead of v in name order */
	size_t cap = 0;
	bool keyed = order == TREE_ORDER_NAME;
	for (size_t i = 0; i < t->n; i++) {
		/* The newest child of a node a few ahead: on a tree built
		 * from shuffled input it is anywhere in the array, and
		 * reading it is a cache miss that need not wait its turn. */
		if (i + SORT_AHEAD < t->n)
			__builtin_prefetch(&nd[kid_newest(&nd[i + SORT_AHEAD])]);
		tree_idx c = kid_newest(&nd[i]);
		if (c == 0 || kid_older(&nd[c]) == 0)
			continue;
		size_t k = 0;
		for (; c != 0; c = kid_older(&nd[c])) {
			if (k == cap) {
				cap = cap ? cap * 2 : 64;
				if (keyed)
					kv = xreallocarray(kv, cap, sizeof *kv);
				else
					v = xreallocarray(v, 2 * cap, sizeof *v);
			}
			if (keyed)
				kv[k++] = name_key_of(t, c);
			else
				v[k++] = c;
		}
		if (keyed) {
			sort_keyed(t, kv, k);
		} else if (order == TREE_ORDER_INPUT) {
			for (size_t a = 0, b = k - 1; a < b; a++, b--) {   /* oldest first */
				tree_idx x = v[a];
				v[a] = v[b];
				v[b] = x;
			}
		} else {
			sort_children(&cx, v, v + cap, k);
		}
		uint64_t o = 1;
		for (size_t j = 0; j < k; j++) {
			tree_idx x = sorted_kid(kv, v, j);
			nd[x].end = (tree_idx)o;
			o += size ? size[x] : nd[x].total.u;
		}
		nd[i].off.u = (uint64_t)sorted_kid(kv, v, k - 1) << 32 | kid_older(&nd[i]);
		for (size_t j = k; j-- > 0;) {
			tree_idx x = sorted_kid(kv, v, j);
			nd[x].off.u = (uint64_t)kid_newest(&nd[x]) << 32 | (j ? sorted_kid(kv, v, j - 1) : 0);
		}
	}
	free(v);
	free(kv);
}

/* True when some name holds a ';', which folded text cannot. */
bool treesort_names_have_semicolon(const struct tree *t)
{
	for (size_t k = 0; k < strtab_count(&t->names); k++)
		if (memchr(strtab_str(&t->names, (strtab_id)k), ';', strtab_len(&t->names, (strtab_id)k)))
			return true;
	return false;
}
