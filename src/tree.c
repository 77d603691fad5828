#include "config.h"
#include "tree.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "xalloc.h"

/* ---- building ----------------------------------------------------------- */

/* Values of a node's `end` while building (see child_get). */
#define KIDS_NONE TREE_NONE
#define KIDS_MANY (UINT32_MAX - 1u)

static inline uint64_t child_hash(tree_idx parent, strtab_id name)
{
	uint64_t x = ((uint64_t)parent << 32) | name;
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ULL;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dULL;
	x ^= x >> 33;
	return x;
}

void tree_init(struct tree *t)
{
	memset(t, 0, sizeof *t);
	strtab_init(&t->names);
	t->cap = 1024;
	t->nodes = xcalloc(t->cap, sizeof *t->nodes);
	t->n = 1;
	t->nodes[0].parent = TREE_NONE;
	t->nodes[0].end = KIDS_NONE;
	t->nodes[0].name = strtab_intern(&t->names, "all", 3);
	t->nslots = 1024;
	t->slot_shift = 64 - 10;
	t->slots = xcalloc(t->nslots, sizeof *t->slots);
	t->pathcap = 64;
	t->path = xmalloc(t->pathcap * sizeof *t->path);
}

void tree_free(struct tree *t)
{
	free(t->nodes);
	free(t->slots);
	free(t->path);
	strtab_free(&t->names);
	memset(t, 0, sizeof *t);
}

/* Slots are indexed by the top bits of the hash, and a slot keeps the top
 * 32 bits as its tag: growing the table rehashes from the slots alone,
 * without touching the nodes (a cache miss each on big trees). */
static inline size_t slot_of(const struct tree *t, uint64_t h)
{
	return (size_t)(h >> t->slot_shift);
}

static void grow_slots(struct tree *t)
{
	if (t->slot_shift <= 32)
		xdie("too many distinct stack frames");
	size_t n = t->nslots * 2, mask = n - 1;
	unsigned shift = t->slot_shift - 1;
	uint64_t *slots = xcalloc(n, sizeof *slots);
	for (size_t i = 0; i < t->nslots; i++) {
		uint64_t v = t->slots[i];
		if (!v)
			continue;
		size_t j = (size_t)(v >> shift);
		while (slots[j])
			j = (j + 1) & mask;
		slots[j] = v;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
	t->slot_shift = shift;
}

/* Appends a node; its `end` starts as "no children". */
static tree_idx new_node(struct tree *t, tree_idx parent, strtab_id name)
{
	if (t->n >= TREE_MAX_NODES)
		xdie("too many distinct stack frames (more than %" PRIu32 ")", TREE_MAX_NODES);
	if (t->n == t->cap) {
		t->cap *= 2;
		t->nodes = xreallocarray(t->nodes, t->cap, sizeof *t->nodes);
	}
	tree_idx c = (tree_idx)t->n++;
	struct tree_node *nd = &t->nodes[c];
	memset(nd, 0, sizeof *nd);
	nd->parent = parent;
	nd->name = name;
	nd->end = KIDS_NONE;
	nd->depth = t->nodes[parent].depth + 1;
	if (t->frac)
		nd->self.f = 0.0;
	if (t->chart)
		nd->off = t->time;  /* a chart frame starts when it is first seen */
	return c;
}

/* Inserts node c, known to be absent, into the child hash. */
static void hash_insert(struct tree *t, tree_idx c)
{
	size_t mask = t->nslots - 1;
	uint64_t h = child_hash(t->nodes[c].parent, t->nodes[c].name);
	size_t j = slot_of(t, h);
	while (t->slots[j])
		j = (j + 1) & mask;
	t->slots[j] = (h & 0xffffffff00000000ULL) | c;
	if (++t->nhashed * 4 > t->nslots * 3)
		grow_slots(t);
}

/* The child of parent named name, created when missing.
 *
 * Most nodes of a call tree have no child or a single one (call chains),
 * so while building, a node's `end` field records its only child (or
 * KIDS_NONE), and the hash holds only the children of nodes with two or
 * more (KIDS_MANY): walking a chain then touches no hash slot, which on big
 * trees is a cache miss each.
 *
 * A hash slot holds the node index and the upper half of its key's hash,
 * so probing past other keys does not touch their nodes either. The root
 * (index 0) is never a child: 0 marks an empty slot. */
static tree_idx child_get(struct tree *t, tree_idx parent, strtab_id name)
{
	/* In a flame chart the previous stack's frames were matched already
	 * (add_path); any other frame starts a new node. */
	if (t->chart)
		return new_node(t, parent, name);
	tree_idx only = t->nodes[parent].end;
	if (only == KIDS_NONE) {
		tree_idx c = new_node(t, parent, name);
		t->nodes[parent].end = c;
		return c;
	}
	if (only != KIDS_MANY) {
		if (t->nodes[only].name == name)
			return only;
		tree_idx c = new_node(t, parent, name);
		t->nodes[parent].end = KIDS_MANY;
		hash_insert(t, only);
		hash_insert(t, c);
		return c;
	}
	size_t mask = t->nslots - 1;
	uint64_t h = child_hash(parent, name);
	uint64_t tag = h & 0xffffffff00000000ULL;
	for (size_t j = slot_of(t, h); t->slots[j] != 0; j = (j + 1) & mask) {
		uint64_t v = t->slots[j];
		if ((v & 0xffffffff00000000ULL) != tag)
			continue;
		tree_idx c = (tree_idx)v;
		if (t->nodes[c].parent == parent && t->nodes[c].name == name)
			return c;
	}
	tree_idx c = new_node(t, parent, name);
	hash_insert(t, c);
	return c;
}

/* A new child of parent named name, known to be absent because its parent
 * is new too (tree_merge). It is not put in the child hash: inserting is a
 * cache miss per node, and after a merge usually nothing looks children up
 * again (the hash is rebuilt when something does: ensure_hash). */
static tree_idx child_add(struct tree *t, tree_idx parent, strtab_id name)
{
	tree_idx c = new_node(t, parent, name);
	if (t->nodes[parent].end == KIDS_NONE) {
		t->nodes[parent].end = c;
	} else {
		t->nodes[parent].end = KIDS_MANY;
		t->hash_stale = true;
	}
	return c;
}

/* Rebuilds the child hash from the nodes after tree_merge skipped some. */
static void ensure_hash(struct tree *t)
{
	if (!t->hash_stale)
		return;
	t->hash_stale = false;
	size_t many = 0;
	for (size_t i = 1; i < t->n; i++)
		many += t->nodes[t->nodes[i].parent].end == KIDS_MANY;
	size_t n = 1024;
	unsigned shift = 64 - 10;
	while (many * 4 > n * 3) {
		n *= 2;
		shift--;
	}
	free(t->slots);
	t->slots = xcalloc(n, sizeof *t->slots);
	t->nslots = n;
	t->slot_shift = shift;
	t->nhashed = 0;
	for (size_t i = 1; i < t->n; i++)
		if (t->nodes[t->nodes[i].parent].end == KIDS_MANY)
			hash_insert(t, (tree_idx)i);
}

static void path_reserve(struct tree *t, size_t n)
{
	if (t->finalized)
		xdie("internal error: tree_add_stack after tree_finalize");
	ensure_hash(t);
	if (n > t->pathcap) {
		while (t->pathcap < n)
			t->pathcap *= 2;
		t->path = xreallocarray(t->path, t->pathcap, sizeof *t->path);
	}
}

/* Extends path[0..keep) by frames f[0..n) and returns the leaf. */
static tree_idx extend_path(struct tree *t, size_t keep, const struct tree_frame *f, size_t n)
{
	path_reserve(t, keep + n);
	tree_idx cur = keep ? t->path[keep - 1] : TREE_ROOT;
	for (size_t i = 0; i < n; i++) {
		cur = child_get(t, cur, strtab_intern(&t->names, f[i].s, f[i].len));
		t->path[keep + i] = cur;
	}
	t->pathlen = keep + n;
	return cur;
}

/* Walks/creates the path of frames and returns the leaf. Frames equal to the
 * previous stack's are matched by bytes against the stored names, which is
 * much cheaper than hashing: consecutive stacks share most of their frames. */
static tree_idx add_path(struct tree *t, const struct tree_frame *f, size_t n)
{
	size_t k = 0, lim = n < t->pathlen ? n : t->pathlen;
	while (k < lim) {
		strtab_id id = t->nodes[t->path[k]].name;
		if (strtab_len(&t->names, id) != f[k].len ||
		    memcmp(strtab_str(&t->names, id), f[k].s, f[k].len) != 0)
			break;
		k++;
	}
	return extend_path(t, k, f + k, n - k);
}

static void add_count(struct tree *t, tree_idx leaf, uint64_t count)
{
	t->stacks++;
	if (t->frac) {
		t->nodes[leaf].self.f += (double)count;
		t->time.f += (double)count;
		return;
	}
	t->time.u = t->time.u + count < count ? UINT64_MAX : t->time.u + count;
	uint64_t s = t->nodes[leaf].self.u + count;
	if (s < count) {
		s = UINT64_MAX;
		t->saturated = true;
	}
	t->nodes[leaf].self.u = s;
}

static void switch_to_frac(struct tree *t)
{
	for (size_t i = 0; i < t->n; i++) {
		t->nodes[i].self.f = (double)t->nodes[i].self.u;
		t->nodes[i].off.f = (double)t->nodes[i].off.u;
	}
	t->time.f = (double)t->time.u;
	t->frac = true;
}

void tree_add_stack(struct tree *t, const struct tree_frame *frames, size_t n, uint64_t count)
{
	add_count(t, add_path(t, frames, n), count);
}

void tree_add_stack_tail(struct tree *t, size_t keep, const struct tree_frame *tail, size_t ntail,
                         uint64_t count)
{
	if (keep > t->pathlen)
		xdie("internal error: tree_add_stack_tail beyond the previous stack");
	add_count(t, extend_path(t, keep, tail, ntail), count);
}

static bool frac_ok(double count)
{
	return count >= 0.0 && !isinf(count);   /* false for NaN too */
}

void tree_add_stack_frac(struct tree *t, const struct tree_frame *frames, size_t n, double count)
{
	if (!frac_ok(count))
		return;     /* the readers never pass these */
	tree_idx leaf = add_path(t, frames, n);
	if (!t->frac)
		switch_to_frac(t);
	t->nodes[leaf].self.f += count;
	t->time.f += count;
	t->stacks++;
}

void tree_add_stack_tail_frac(struct tree *t, size_t keep, const struct tree_frame *tail,
                              size_t ntail, double count)
{
	if (!frac_ok(count))
		return;
	if (keep > t->pathlen)
		xdie("internal error: tree_add_stack_tail beyond the previous stack");
	tree_idx leaf = extend_path(t, keep, tail, ntail);
	if (!t->frac)
		switch_to_frac(t);
	t->nodes[leaf].self.f += count;
	t->time.f += count;
	t->stacks++;
}

/* Returns to the system the pages of src's node array below node i, which
 * the merge has read (release mode only). Only whole pages strictly inside
 * the array are given back: malloc's bookkeeping around it stays intact. */
static void release_below(const struct tree *src, size_t i, uintptr_t *done)
{
#ifdef HAVE_MADVISE
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t page = pg > 0 ? (uintptr_t)pg : 4096;
	uintptr_t lo = ((uintptr_t)src->nodes + page - 1) / page * page;
	uintptr_t hi = (uintptr_t)(src->nodes + i) / page * page;
	if (*done < lo)
		*done = lo;
	if (hi > *done) {
		madvise((void *)*done, hi - *done, MADV_DONTNEED);
		*done = hi;
	}
#else
	(void)src;
	(void)i;
	(void)done;
#endif
}

static void merge(struct tree *dst, const struct tree *src, bool release)
{
	if (dst->finalized || src->finalized || dst->chart)
		xdie("internal error: tree_merge on a finalized tree or a flame chart");
	ensure_hash(dst);
	if (src->frac && !dst->frac)
		switch_to_frac(dst);
	/* Names are interned once each, not once per node. */
	size_t nnames = strtab_count(&src->names);
	strtab_id *names = xmalloc((nnames ? nnames : 1) * sizeof *names);
	for (size_t k = 0; k < nnames; k++)
		names[k] = strtab_intern(&dst->names, strtab_str(&src->names, (strtab_id)k),
		                         strtab_len(&src->names, (strtab_id)k));
	/* Parents come before children in src: map them in index order. Below
	 * a node that the merge created, every child is new: no lookup. */
	size_t fresh = dst->n;
	tree_idx *map = xmalloc(src->n * sizeof *map);
	map[0] = TREE_ROOT;
	uintptr_t released = 0;
	for (size_t i = 0; i < src->n; i++) {
		if (release && (i & 0xfffff) == 0 && i)
			release_below(src, i, &released);
		const struct tree_node *sn = &src->nodes[i];
		if (i) {
			tree_idx p = map[sn->parent];
			map[i] = p >= fresh ? child_add(dst, p, names[sn->name])
			                    : child_get(dst, p, names[sn->name]);
		}
		struct tree_node *dn = &dst->nodes[map[i]];
		if (dst->frac) {
			dn->self.f += src->frac ? sn->self.f : (double)sn->self.u;
		} else {
			uint64_t v = dn->self.u + sn->self.u;
			if (v < sn->self.u) {
				v = UINT64_MAX;
				dst->saturated = true;
			}
			dn->self.u = v;
		}
	}
	free(map);
	free(names);
	dst->stacks += src->stacks;
	dst->saturated |= src->saturated;
}

void tree_merge(struct tree *dst, const struct tree *src)
{
	merge(dst, src, false);
}

void tree_merge_free(struct tree *dst, struct tree *src)
{
	/* Big trees give their read pages back as the merge goes, so that
	 * the peak is not dst plus the whole of src. */
	free(src->slots);       /* never looked up again */
	src->slots = NULL;
	src->nslots = 0;
	merge(dst, src, src->n * sizeof *src->nodes >= ((size_t)64 << 20));
	tree_free(src);
}

/* ---- finalize ----------------------------------------------------------- */

struct sort_ctx {
	const struct tree *t;
	enum tree_order order;
};

static bool has_self(const struct tree *t, tree_idx i)
{
	return t->frac ? t->nodes[i].self.f > 0.0 : t->nodes[i].self.u > 0;
}

/* flamegraph.pl order: siblings appear in the order of the smallest folded
 * line of their subtree. A node's own line "name" sorts before "name;...",
 * so a name that is a prefix of a sibling's compares by what follows it:
 * end of string if the node has samples of its own, else ';'. */
static int cmp_name(const struct tree *t, tree_idx a, tree_idx b)
{
	strtab_id na = t->nodes[a].name, nb = t->nodes[b].name;
	size_t la = strtab_len(&t->names, na), lb = strtab_len(&t->names, nb);
	const unsigned char *sa = (const unsigned char *)strtab_str(&t->names, na);
	const unsigned char *sb = (const unsigned char *)strtab_str(&t->names, nb);
	int c = memcmp(sa, sb, la < lb ? la : lb);
	if (c || la == lb)
		return c;
	if (la < lb) {
		int ta = has_self(t, a) ? -1 : ';';
		return ta < sb[la] ? -1 : 1;
	}
	int tb = has_self(t, b) ? -1 : ';';
	return sa[lb] < tb ? -1 : 1;
}

static int cmp_nodes(const struct sort_ctx *cx, tree_idx a, tree_idx b)
{
	const struct tree *t = cx->t;
	if (cx->order == TREE_ORDER_WEIGHT) {
		double ta = tree_count_d(t, t->nodes[a].total), tb = tree_count_d(t, t->nodes[b].total);
		if (!t->frac) {
			uint64_t ua = t->nodes[a].total.u, ub = t->nodes[b].total.u;
			if (ua != ub)
				return ua > ub ? -1 : 1;
		} else if (ta != tb) {
			return ta > tb ? -1 : 1;
		}
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

static tree_count count_add(struct tree *t, tree_count a, tree_count b)
{
	if (t->frac) {
		a.f += b.f;
		return a;
	}
	uint64_t s = a.u + b.u;
	if (s < a.u) {
		s = UINT64_MAX;
		t->saturated = true;
	}
	a.u = s;
	return a;
}

/* While finalizing, a node's `off` holds its child list: the first child
 * in the upper half, the next sibling in the lower (TREE_NONE: none). The
 * offsets are computed only once nodes are in preorder, so the lists cost
 * no memory of their own. */
static inline tree_idx link_first(const struct tree_node *nd) { return (tree_idx)(nd->off.u >> 32); }
static inline tree_idx link_next(const struct tree_node *nd) { return (tree_idx)nd->off.u; }
static inline void link_set(struct tree_node *nd, tree_idx first, tree_idx next)
{
	nd->off.u = (uint64_t)first << 32 | next;
}

/* Sorts the child list of every node with two children or more; scratch
 * grows to the longest sibling list (not to n). */
static void sort_lists(struct tree *t, enum tree_order order)
{
	struct tree_node *nd = t->nodes;
	struct sort_ctx cx = { t, order };
	tree_idx *v = NULL;
	size_t cap = 0;
	for (size_t i = 0; i < t->n; i++) {
		tree_idx c = link_first(&nd[i]);
		if (c == TREE_NONE || link_next(&nd[c]) == TREE_NONE)
			continue;
		size_t k = 0;
		for (; c != TREE_NONE; c = link_next(&nd[c])) {
			if (k + 1 > cap / 2) {
				cap = cap ? cap * 2 : 64;
				v = xreallocarray(v, cap, sizeof *v);
			}
			v[k++] = c;
		}
		sort_children(&cx, v, v + cap / 2, k);
		link_set(&nd[i], v[0], link_next(&nd[i]));
		for (size_t j = 0; j + 1 < k; j++)
			link_set(&nd[v[j]], link_first(&nd[v[j]]), v[j + 1]);
		link_set(&nd[v[k - 1]], link_first(&nd[v[k - 1]]), TREE_NONE);
	}
	free(v);
}

/* Moves node i to newidx[i] for every i. A permutation far from the identity
 * (shuffled input) is gathered into a new array when that costs at most
 * TREE_GATHER_MAX bytes: its cycles are chains of dependent cache misses,
 * while gathered reads are independent and prefetched. Otherwise the nodes
 * are swapped in place, one cycle at a time, with no extra memory, which
 * keeps the peak memory of big trees at the tree plus newidx. */
#define TREE_GATHER_MAX ((size_t)96 << 20)
static void permute(struct tree *t, tree_idx *newidx)
{
	size_t n = t->n, moved = 0;
	struct tree_node *nd = t->nodes;
	for (size_t i = 0; i < n; i++)
		moved += newidx[i] != i;
	struct tree_node *dst = NULL;
	if (moved > n / 8 && n * (sizeof *dst + sizeof *newidx) <= TREE_GATHER_MAX)
		dst = malloc(n * sizeof *dst);
	if (dst) {
		tree_idx *inv = malloc(n * sizeof *inv);
		if (inv) {
			for (size_t i = 0; i < n; i++)
				inv[newidx[i]] = (tree_idx)i;
			const size_t ahead = 16;
			for (size_t j = 0; j < n; j++) {
				if (j + ahead < n)
					__builtin_prefetch(&nd[inv[j + ahead]]);
				dst[j] = nd[inv[j]];
			}
			free(inv);
			free(nd);
			t->nodes = dst;
			t->cap = n;
			return;
		}
		free(dst);      /* no memory to spare: the slow way below */
	}
	for (size_t i = 0; i < n; i++) {
		while (newidx[i] != i) {
			tree_idx j = newidx[i];
			struct tree_node tn = nd[j];
			nd[j] = nd[i];
			nd[i] = tn;
			newidx[i] = newidx[j];
			newidx[j] = j;
		}
	}
}

void tree_finalize(struct tree *t, enum tree_order order)
{
	if (t->finalized)
		return;
	size_t n = t->n;
	struct tree_node *nd = t->nodes;
	free(t->slots);
	t->slots = NULL;
	t->nslots = 0;
	free(t->path);
	t->path = NULL;
	t->pathlen = t->pathcap = 0;

	/* A flame chart's offsets are times from new_node: kept aside while
	 * `off` holds the child lists. */
	tree_count *times = NULL;
	if (t->chart) {
		times = xreallocarray(NULL, n, sizeof *times);
		for (size_t i = 0; i < n; i++)
			times[i] = nd[i].off;
	}

	/* Totals and subtree sizes bottom-up (size kept in .end for now), and
	 * child lists in creation order = first appearance. Parents are
	 * always created before their children: index order is a topological
	 * order, which every pass below relies on. */
	for (size_t i = 0; i < n; i++) {
		nd[i].total = nd[i].self;
		nd[i].end = 1;
		link_set(&nd[i], TREE_NONE, TREE_NONE);
	}
	for (size_t i = n - 1; i > 0; i--) {
		tree_idx p = nd[i].parent;
		nd[p].total = count_add(t, nd[p].total, nd[i].total);
		nd[p].end += nd[i].end;
		link_set(&nd[i], link_first(&nd[i]), link_first(&nd[p]));
		link_set(&nd[p], (tree_idx)i, link_next(&nd[p]));
	}
	if (order != TREE_ORDER_INPUT)
		sort_lists(t, order);

	/* Preorder numbers, top-down: a child's number is its parent's plus
	 * one plus the sizes of the siblings before it. */
	tree_idx *newidx = xreallocarray(NULL, n, sizeof *newidx);
	newidx[0] = 0;
	for (size_t i = 0; i < n; i++) {
		tree_idx pos = newidx[i] + 1;
		for (tree_idx c = link_first(&nd[i]); c != TREE_NONE; c = link_next(&nd[c])) {
			newidx[c] = pos;
			pos += nd[c].end;
		}
	}
	for (size_t i = 0; i < n; i++) {
		nd[i].end = newidx[i] + nd[i].end;
		if (i)
			nd[i].parent = newidx[nd[i].parent];
	}
	if (times) {
		for (size_t i = 0; i < n; i++)
			nd[i].off = times[i];
		free(times);
	}
	permute(t, newidx);
	free(newidx);
	nd = t->nodes;

	/* Offsets, now that nodes are in preorder: the first child starts
	 * where its parent does, a sibling where the one before it ends. */
	if (!t->chart) {
		memset(&nd[0].off, 0, sizeof nd[0].off);
		for (size_t i = 0; i < n; i++) {
			tree_count x = nd[i].off;
			for (tree_idx c = i + 1; c < nd[i].end; c = nd[c].end) {
				nd[c].off = x;
				x = count_add(t, x, nd[c].total);
			}
		}
	}
	if (t->cap > n) {   /* growth doubled the array: give the slack back */
		t->nodes = xreallocarray(t->nodes, n, sizeof *t->nodes);
		t->cap = n;
	}
	t->finalized = true;
}

/* ---- output ------------------------------------------------------------- */

int tree_format_count(const struct tree *t, tree_count c, char *buf, size_t size)
{
	if (!t->frac)
		return snprintf(buf, size, "%" PRIu64, c.u);
	double v = c.f;
	if (v == floor(v) && v < 9007199254740992.0)
		return snprintf(buf, size, "%.0f", v);
	char tmp[64];
	int n = snprintf(tmp, sizeof tmp, "%.6f", v);
	if (n < 0 || (size_t)n >= sizeof tmp)
		return snprintf(buf, size, "%g", v);
	while (n > 0 && tmp[n - 1] == '0')
		tmp[--n] = '\0';
	if (n > 0 && tmp[n - 1] == '.')
		tmp[--n] = '\0';
	return snprintf(buf, size, "%s", tmp);
}

/* An item of the folded output within one sibling group: a node's own line
 * ("name COUNT") or its subtree ("name;..."). Sorting items rather than
 * nodes gives exact byte order even when a name is a prefix of a sibling's
 * ("a" < "a!;x" < "a;b"). */
struct fold_item {
	tree_idx node;
	bool subtree;
};

static int cmp_item(const struct tree *t, struct fold_item a, struct fold_item b)
{
	strtab_id na = t->nodes[a.node].name, nb = t->nodes[b.node].name;
	size_t la = strtab_len(&t->names, na), lb = strtab_len(&t->names, nb);
	const unsigned char *sa = (const unsigned char *)strtab_str(&t->names, na);
	const unsigned char *sb = (const unsigned char *)strtab_str(&t->names, nb);
	int c = memcmp(sa, sb, la < lb ? la : lb);
	if (c)
		return c;
	/* What follows the shorter name: end (-1), ';' for a subtree, or a byte. */
	int ca = la > lb ? sa[lb] : (a.subtree ? ';' : -1);
	int cb = lb > la ? sb[la] : (b.subtree ? ';' : -1);
	if (la == lb && ca == cb)
		return 0;
	return ca < cb ? -1 : 1;
}

/* Bottom-up merge sort of v[0..n) with tmp[0..n): O(n log n) even for
 * hostile names (long chains of names that are prefixes of each other). */
static void sort_items(const struct tree *t, struct fold_item *v, struct fold_item *tmp, size_t n)
{
	struct fold_item *src = v, *dst = tmp;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n;
			size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				dst[k++] = cmp_item(t, src[j], src[i]) < 0 ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		struct fold_item *s = src;
		src = dst;
		dst = s;
	}
	if (src != v)
		memcpy(v, src, n * sizeof *v);
}

/* Writes v in decimal at p (no NUL); returns the length (at most 20). */
static size_t format_u64(uint64_t v, char *p)
{
	char tmp[20];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		p[i] = tmp[n - 1 - i];
	return n;
}

struct fold_frame {
	size_t items_begin, items_end, next;    /* this group's items */
	size_t keylen;                          /* key length to restore after it */
};

int tree_write_folded(const struct tree *t, FILE *out)
{
	struct fold_item *items = NULL, *tmp = NULL;
	size_t nitems = 0, capitems = 0, captmp = 0, restore = 0;
	struct fold_frame *stk = NULL;
	size_t nstk = 0, capstk = 0;
	char *key = NULL;
	size_t keylen = 0, keycap = 0;
	char num[64];
	int rc = 0;

	if (has_self(t, TREE_ROOT)) {
		tree_format_count(t, t->nodes[0].self, num, sizeof num);
		if (fprintf(out, " %s\n", num) < 0)
			rc = -1;
	}

	/* Push the root's children as the first group. */
	tree_idx parent = TREE_ROOT;
	for (;;) {
		if (parent != TREE_NONE) {
			size_t b = nitems;
			for (tree_idx c = tree_first_child(t, parent); c != TREE_NONE; c = tree_next_sibling(t, c)) {
				if (nitems + 2 > capitems) {
					capitems = capitems ? capitems * 2 : 256;
					items = xreallocarray(items, capitems, sizeof *items);
				}
				if (has_self(t, c))
					items[nitems++] = (struct fold_item){ c, false };
				if (tree_first_child(t, c) != TREE_NONE)
					items[nitems++] = (struct fold_item){ c, true };
			}
			if (nitems - b > 1) {
				if (nitems - b > captmp) {
					captmp = nitems - b;
					tmp = xreallocarray(tmp, captmp, sizeof *tmp);
				}
				sort_items(t, items + b, tmp, nitems - b);
			}
			if (nstk == capstk) {
				capstk = capstk ? capstk * 2 : 64;
				stk = xreallocarray(stk, capstk, sizeof *stk);
			}
			stk[nstk++] = (struct fold_frame){ b, nitems, b, restore };
			parent = TREE_NONE;
		}
		if (nstk == 0)
			break;
		struct fold_frame *f = &stk[nstk - 1];
		if (f->next == f->items_end) {
			keylen = f->keylen;
			nitems = f->items_begin;
			nstk--;
			continue;
		}
		struct fold_item it = items[f->next++];
		tree_idx c = it.node;
		size_t nl = strtab_len(&t->names, t->nodes[c].name);
		if (keylen + nl + 2 > keycap) {
			while (keylen + nl + 2 > keycap)
				keycap = keycap ? keycap * 2 : 4096;
			key = xrealloc(key, keycap);
		}
		if (it.subtree) {
			restore = keylen;
			memcpy(key + keylen, strtab_str(&t->names, t->nodes[c].name), nl);
			keylen += nl;
			key[keylen++] = ';';
			parent = c;
		} else {
			/* The key is complete in key[0..keylen) + name: append the
			 * count there and write the line with one call. */
			size_t need = keylen + nl + 2 + sizeof num;
			if (need > keycap) {
				while (need > keycap)
					keycap *= 2;
				key = xrealloc(key, keycap);
			}
			char *p = key + keylen;
			memcpy(p, strtab_str(&t->names, t->nodes[c].name), nl);
			p += nl;
			*p++ = ' ';
			if (t->frac) {
				tree_format_count(t, t->nodes[c].self, num, sizeof num);
				size_t ln = strlen(num);
				memcpy(p, num, ln);
				p += ln;
			} else {
				p += format_u64(t->nodes[c].self.u, p);
			}
			*p++ = '\n';
			size_t len = (size_t)(p - key);
			if (fwrite(key, 1, len, out) != len) {
				rc = -1;
				break;
			}
		}
	}
	free(items);
	free(tmp);
	free(stk);
	free(key);
	if (rc == 0 && ferror(out))
		rc = -1;
	return rc;
}

size_t tree_bytes(const struct tree *t)
{
	return t->cap * sizeof *t->nodes + t->nslots * sizeof *t->slots +
	       t->pathcap * sizeof *t->path + strtab_bytes(&t->names);
}
