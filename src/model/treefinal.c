/* tree_finalize: preorder numbering, moving the nodes, totals, offsets
 * and ends. */
#include "config.h"
#include "treeint.h"

#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

/* Moves every node i to its `end` field's index. A permutation far from
 * the identity (shuffled input) is scattered into a new array when that
 * costs at most TREE_GATHER_MAX bytes more than what tree_set_spare says
 * was freed: its cycles are chains of dependent cache misses, while the
 * scattered writes are independent. Otherwise the
 * nodes are swapped in place, one cycle at a time, with no extra memory,
 * which keeps the peak memory of big trees at the tree's own; `from`
 * (nfrom entries, or NULL) lists every node that moves, so that a nearly
 * sorted tree is not read through to find the few cycles. */
#ifndef TREE_GATHER_MAX     /* the tests set it and the next one smaller */
#define TREE_GATHER_MAX ((size_t)96 << 20)
#endif

/* Puts every node of [lo, hi) where its `end` says, following cycles; the
 * targets of these nodes must lie in [lo, hi) or be already in place. */
static void follow_cycles(struct tree_node *nd, size_t lo, size_t hi)
{
	for (size_t i = lo; i < hi; i++) {
		while (nd[i].end != i) {
			tree_idx j = nd[i].end;
			struct tree_node tn = nd[j];
			nd[j] = nd[i];
			nd[i] = tn;
		}
	}
}

/* The same for a permutation far from the identity, in place and without
 * a cache miss per node: an American flag sort of the nodes by target, 8
 * bits at a time from the top. A pass writes each of its 256 buckets in
 * order, so memory is read and written in streams; a range small enough
 * for the cache (4096 nodes, 160 KB: 32768 left the cycles' chains of
 * misses to L2 and beyond) is finished by following cycles. No recursion:
 * ranges wait on a stack of at most 4 levels of 256. */
#ifndef TREE_RADIX_SMALL
#define TREE_RADIX_SMALL ((size_t)1 << 12)
#endif
static void permute_radix(struct tree_node *nd, size_t n)
{
	struct range {
		size_t lo, hi;
		unsigned shift;     /* a target's bucket: (target - lo) >> shift */
	} stk[4 * 256 + 1];
	size_t sp = 0, head[256], stop[256];
	unsigned bits = 0;
	while (bits < 40 && ((size_t)1 << bits) < n)
		bits++;
	stk[sp++] = (struct range){ 0, n, bits > 8 ? bits - 8 : 0 };
	while (sp) {
		struct range r = stk[--sp];
		if (r.hi - r.lo <= TREE_RADIX_SMALL) {
			follow_cycles(nd, r.lo, r.hi);
			continue;
		}
		size_t nb = ((r.hi - r.lo - 1) >> r.shift) + 1;
		for (size_t b = 0; b < nb; b++) {
			head[b] = r.lo + (b << r.shift);
			stop[b] = head[b] + ((size_t)1 << r.shift) < r.hi ? head[b] + ((size_t)1 << r.shift) : r.hi;
		}
		for (size_t b = 0; b < nb; b++) {
			while (head[b] < stop[b]) {
				struct tree_node x = nd[head[b]];
				size_t tb = (x.end - r.lo) >> r.shift;
				while (tb != b) {
					struct tree_node y = nd[head[tb]];
					nd[head[tb]++] = x;
					x = y;
					tb = (x.end - r.lo) >> r.shift;
				}
				nd[head[b]++] = x;
			}
		}
		if (r.shift == 0)
			continue;       /* one target per bucket: all in place */
		for (size_t b = 0; b < nb; b++) {
			size_t lo = r.lo + (b << r.shift);
			stk[sp++] = (struct range){ lo, stop[b], r.shift > 8 ? r.shift - 8 : 0 };
		}
	}
}

void tree_set_spare(struct tree *t, size_t bytes)
{
	if (bytes > t->b.spare)
		t->b.spare = bytes;
}

static void permute(struct tree *t, size_t moved, const tree_idx *from, size_t nfrom)
{
	size_t n = t->n;
	struct tree_node *nd = t->nodes;
	struct tree_node *dst = NULL;
	size_t room = t->b.spare < SIZE_MAX - TREE_GATHER_MAX ? t->b.spare + TREE_GATHER_MAX : SIZE_MAX;
	if (TREE_GATHER_MAX > 0 && moved > n / 8 && n <= room / sizeof *dst)
		dst = malloc(n * sizeof *dst);
	if (dst) {
		for (size_t i = 0; i < n; i++)
			dst[nd[i].end] = nd[i];
		free(nd);
		t->nodes = dst;
		t->cap = n;
		return;
	}
	if (from) {
		for (size_t k = 0; k < nfrom; k++)
			follow_cycles(nd, from[k], from[k] + 1);
	} else {
		permute_radix(nd, n);
	}
}


void treefinal_moved_add(struct moved *m, tree_idx u)
{
	if (m->listing && m->n == m->cap) {
		if (m->cap == TREE_FROM_MAX) {
			m->listing = false;
		} else {
			m->cap = m->cap ? m->cap * 2 : 1024;
			m->from = xreallocarray(m->from, m->cap, sizeof *m->from);
		}
	}
	if (m->listing)
		m->from[m->n] = u;
	m->n++;
}

size_t treefinal_moved_end(struct moved *m, tree_idx **from, size_t *nfrom)
{
	if (!m->listing) {
		free(m->from);
		m->from = NULL;
	}
	*from = m->from;
	*nfrom = m->listing ? m->n : 0;
	return m->n;
}

/* Preorder numbers, into each node's `end`, from the child lists, by a
 * depth-first walk with an explicit stack: a node's children are pushed
 * newest first, so the oldest (first in the lists' order) comes off first.
 * A stack entry carries the node's newest child too, read with its sibling
 * link: each node is read once. Returns how many nodes move, and lists
 * them in *from while they are few (else *from is NULL). */
static size_t number_preorder(struct tree *t, tree_idx **from, size_t *nfrom)
{
	struct tree_node *nd = t->nodes;
	size_t cap = 1024, sp = 0, k = 0;
	uint64_t *stk = xmalloc(cap * sizeof *stk);    /* newest child << 32 | node */
	struct moved m = { NULL, 0, 0, true };
	stk[sp++] = (uint64_t)kid_newest(&nd[TREE_ROOT]) << 32 | TREE_ROOT;
	while (sp) {
		uint64_t e = stk[--sp];
		tree_idx u = (tree_idx)e;
		if (u != k)
			treefinal_moved_add(&m, u);
		nd[u].end = (tree_idx)k++;
		for (tree_idx c = (tree_idx)(e >> 32); c != 0;) {
			uint64_t links = nd[c].off.u;
			if (sp == cap) {
				cap *= 2;
				stk = xreallocarray(stk, cap, sizeof *stk);
			}
			stk[sp++] = (links >> 32) << 32 | c;
			/* c's newest child is read when c comes off the stack:
			 * fetch it now, with those of c's siblings. */
			__builtin_prefetch(&nd[links >> 32]);
			c = (tree_idx)links;
		}
	}
	free(stk);
	return treefinal_moved_end(&m, from, nfrom);
}

/* number_preorder for a tree whose siblings are in index order (built
 * without the hash: creation order is name order) and whose totals are
 * all 0 (integer counts, summed later): two passes by index instead of a
 * walk, whose reads of each node's children scatter over the array. The
 * subtree sizes go bottom-up into `total` (children come after their
 * parent), then each node's number is its parent's next free one, which
 * then moves past the node's subtree (kept in `off`, read by the children
 * only, which come later). Same results as number_preorder. */
static size_t number_by_index(struct tree *t, tree_idx **from, size_t *nfrom)
{
	struct tree_node *nd = t->nodes;
	size_t n = t->n;
	struct moved m = { NULL, 0, 0, true };
	for (size_t i = n; i-- > 1;) {
		nd[i].total.u += 1;
		nd[nd[i].parent].total.u += nd[i].total.u;
	}
	nd[0].end = 0;
	nd[0].off.u = 1;
	for (size_t i = 1; i < n; i++) {
		struct tree_node *p = &nd[nd[i].parent];
		tree_idx k = (tree_idx)p->off.u;
		p->off.u += nd[i].total.u;
		nd[i].end = k;
		nd[i].off.u = (uint64_t)k + 1;
		nd[i].total.u = 0;
		if (k != i)
			treefinal_moved_add(&m, (tree_idx)i);
	}
	nd[0].total.u = 0;
	return treefinal_moved_end(&m, from, nfrom);
}

/* Revisits by where they start, the outer one of two that start alike
 * first. */
static int revisit_cmp(const void *a, const void *b)
{
	const struct tree_revisit *x = a, *y = b;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return (x->end < y->end) - (x->end > y->end);
}

/* Whether revisit r's stretch is as number_by_revisits needs it: every
 * node of [node + 1, at) below r.node's parent through a child made
 * after r.node (its parent that parent, or a node before it in the
 * stretch), and every node of [at, end) below r.node. */
static bool revisit_fits(const struct tree_node *nd, const struct tree_revisit *r)
{
	tree_idx p = nd[r->node].parent;
	for (tree_idx y = r->node + 1; y < r->at; y++)
		if (nd[y].parent != p && !(nd[y].parent > r->node && nd[y].parent < y))
			return false;
	for (tree_idx y = r->at; y < r->end; y++)
		if (nd[y].parent != r->node && !(nd[y].parent >= r->at && nd[y].parent < y))
			return false;
	return true;
}

/* number_by_index for a tree whose revisits were all listed while it was
 * built (t->b.rv; sorted input with names such as f and f(int) under one
 * parent): only the nodes they put out of place are numbered and listed,
 * not every node. A revisit of leaf C, made when `at` nodes were, whose
 * new subtree is [at, end): in preorder that subtree comes right after
 * C, before the later siblings' subtrees made in [C + 1, at); so
 * [C + 1, end) turns, [at, end) to its front. The stretches of several
 * revisits nest, an inner one within one of the two halves of an outer
 * one; a node's number is its index plus the shifts of the stretches
 * that hold it. Targets go into `end` for permute, of the nodes that
 * move only, unless they may be too many to list (or more than an
 * eighth), when every node gets its own. False, nothing changed, when a
 * revisit went unlisted or the stretches do not fit: then number_by_index. */
static bool number_by_revisits(struct tree *t, size_t *moved, tree_idx **from, size_t *nfrom)
{
	struct tree_build *b = &t->b;
	struct tree_node *nd = t->nodes;
	size_t n = t->n;
	if (b->rv_lost || !b->nrv)
		return false;
	for (size_t k = 0; k < b->nrvopen; k++)
		b->rv[b->rvopen[k]].end = (tree_idx)n;
	b->nrvopen = 0;
	/* Stretches where nothing moves (nothing made between C and its
	 * return, or nothing made below it) are left out. */
	size_t nr = 0;
	for (size_t k = 0; k < b->nrv; k++)
		if (b->rv[k].at > b->rv[k].node + 1 && b->rv[k].end > b->rv[k].at)
			b->rv[nr++] = b->rv[k];
	b->nrv = nr;
	struct tree_revisit *rv = b->rv;
	qsort(rv, nr, sizeof *rv, revisit_cmp);
	/* Nesting, and what the stretches cover: outer ones (span) and all
	 * (work, each checked node by node). */
	size_t *stk = xmalloc((nr ? nr : 1) * sizeof *stk), sp = 0, span = 0, work = 0;
	bool fits = true;
	for (size_t k = 0; k < nr && fits; k++) {
		tree_idx lo = rv[k].node + 1, hi = rv[k].end;
		while (sp && rv[stk[sp - 1]].end <= lo)
			sp--;
		if (sp) {
			const struct tree_revisit *o = &rv[stk[sp - 1]];
			fits = (lo > o->node && hi <= o->at) || (lo > o->at && hi <= o->end);
		} else {
			span += hi - lo;
		}
		work += hi - lo;
		fits = fits && work <= 2 * n + 4096 && revisit_fits(nd, &rv[k]);
		stk[sp++] = k;
	}
	free(stk);
	if (!fits)
		return false;
	bool all = span > n / 8 || span > TREE_FROM_MAX;
	if (all)
		for (size_t i = 0; i < n; i++)
			nd[i].end = (tree_idx)i;
	struct moved m = { NULL, 0, 0, true };
	tree_idx *to = NULL;
	size_t cap = 0;
	for (size_t k = 0; k < nr;) {
		/* an outer stretch and those within it */
		tree_idx lo = rv[k].node + 1, hi = rv[k].end;
		size_t len = hi - lo, j = k;
		if (len > cap) {
			cap = len;
			free(to);
			to = xmalloc(cap * sizeof *to);
		}
		for (size_t y = 0; y < len; y++)
			to[y] = (tree_idx)(lo + y);
		for (; j < nr && rv[j].node + 1 < hi; j++) {
			const struct tree_revisit *r = &rv[j];
			tree_idx a = r->node + 1, fwd = r->end - r->at, back = r->at - a;
			for (tree_idx y = a; y < r->at; y++)
				to[y - lo] += fwd;
			for (tree_idx y = r->at; y < r->end; y++)
				to[y - lo] -= back;
		}
		for (size_t y = 0; y < len; y++)
			if (to[y] != lo + y) {
				nd[lo + y].end = to[y];
				treefinal_moved_add(&m, (tree_idx)(lo + y));
			}
		k = j;
	}
	free(to);
	*moved = treefinal_moved_end(&m, from, nfrom);
	return true;
}

/* number_preorder without its walk, whose reads of sibling lists (in name
 * order, after treesort_lists) are a chain of cache misses on a tree built
 * through the hash: subtree sizes bottom-up by index, each child's place
 * in its parent's subtree into `end` (treesort_lists; 1 for an only
 * child), then each node's number is its parent's plus its place, by index
 * (parents come first). The reads of parents scatter but do not wait on
 * one another. The sizes go in `total` while it is 0 (0 again on return),
 * else (weight order, saturated sums: the totals are there) in an array of
 * their own. Same results as number_preorder after treesort_lists. */
#define NUMBER_AHEAD 16
static size_t number_by_offsets(struct tree *t, enum tree_order order, bool late, tree_idx **from,
                                size_t *nfrom)
{
	struct tree_node *nd = t->nodes;
	size_t n = t->n;
	struct moved m = { NULL, 0, 0, true };
	tree_idx *size = late ? NULL : xcalloc(n, sizeof *size);
	for (size_t i = n; i-- > 1;) {
		if (i >= NUMBER_AHEAD)
			__builtin_prefetch(&nd[nd[i - NUMBER_AHEAD].parent], 1);
		if (size) {
			size[i] += 1;
			size[nd[i].parent] += size[i];
		} else {
			nd[i].total.u += 1;
			nd[nd[i].parent].total.u += nd[i].total.u;
		}
		nd[i].end = 1;
	}
	treesort_lists(t, order, size);
	free(size);
	nd[0].end = 0;
	if (late)
		nd[0].total.u = 0;
	for (size_t i = 1; i < n; i++) {
		if (i + NUMBER_AHEAD < n)
			__builtin_prefetch(&nd[nd[i + NUMBER_AHEAD].parent]);
		tree_idx k = nd[nd[i].parent].end + nd[i].end;
		nd[i].end = k;
		if (late)
			nd[i].total.u = 0;
		if (k != i)
			treefinal_moved_add(&m, (tree_idx)i);
	}
	return treefinal_moved_end(&m, from, nfrom);
}

/* Totals bottom-up, by index: parents are always made before their
 * children, and in preorder too. `total` must be 0 on entry. */
static void totals_backward(struct tree *t)
{
	struct tree_node *nd = t->nodes;
	for (size_t i = t->n; i-- > 0;) {
		nd[i].total = count_add(t, nd[i].total, nd[i].self);
		if (i)
			nd[nd[i].parent].total = count_add(t, nd[nd[i].parent].total, nd[i].total);
	}
}

/* treefinal_walk asks for the nodes this far ahead: the hardware's
 * prefetcher stops at each 4 KiB page (finalize_s 0.123 -> 0.094 on a
 * 1 GiB sorted file; 128 did as well). */
#ifndef WALK_AHEAD
#define WALK_AHEAD 64
#endif

/* Ends, parents and, for integer counts, offsets (and totals when `totals`)
 * of nodes in preorder, in one pass forwards along the path from the root
 * (stk[d]: its node at depth d); the parents are renumbered here for free,
 * after the nodes moved. With `before` the sum of the self counts of the
 * nodes before node i: i's offset is `before` less the self counts of its
 * ancestors (the rest are whole subtrees to its left), and its total is
 * `before` where its subtree ends less `before` at i. Returns false when
 * those sums would overflow: then neither offsets nor totals are set. */
bool treefinal_walk(struct tree_node *nd, size_t lo, size_t hi, uint64_t before, bool sums, bool totals,
                    bool close_root)
{
	size_t cap = 64, sp = 1;
	tree_idx *stk = xmalloc(cap * sizeof *stk);
	uint64_t *cum = xmalloc(cap * sizeof *cum);     /* self counts down the path */
	uint64_t *start = xmalloc(cap * sizeof *start); /* `before` at the node */
	stk[0] = TREE_ROOT;
	start[0] = 0;
	cum[0] = nd[0].self.u;
	for (size_t i = lo; i < hi; i++) {
		if (i + WALK_AHEAD < hi)
			__builtin_prefetch(&nd[i + WALK_AHEAD], 1);
		size_t d = nd[i].depth;
		while (sp > d) {
			tree_idx j = stk[--sp];
			nd[j].end = (tree_idx)i;
			if (sums && totals)
				nd[j].total.u = before - start[sp];
		}
		nd[i].parent = stk[sp - 1];
		if (sp == cap) {
			cap *= 2;
			stk = xreallocarray(stk, cap, sizeof *stk);
			cum = xreallocarray(cum, cap, sizeof *cum);
			start = xreallocarray(start, cap, sizeof *start);
		}
		if (sums) {
			uint64_t self = nd[i].self.u;
			nd[i].off.u = before - cum[sp - 1];
			cum[sp] = cum[sp - 1] + self;
			start[sp] = before;
			if (__builtin_add_overflow(before, self, &before))
				sums = false;
		}
		stk[sp++] = (tree_idx)i;
	}
	while (sp > (close_root ? 0u : 1u)) {
		tree_idx j = stk[--sp];
		nd[j].end = (tree_idx)hi;
		if (sums && totals)
			nd[j].total.u = before - start[sp];
	}
	free(stk);
	free(cum);
	free(start);
	return sums;
}

/* The walk over the whole tree, the root's self first. */
static bool ends_and_offsets(struct tree *t, bool totals)
{
	struct tree_node *nd = t->nodes;
	bool sums = !t->chart && !t->saturated;
	uint64_t before = 0;
	if (sums && __builtin_add_overflow(before, nd[0].self.u, &before))
		sums = false;
	sums = treefinal_walk(nd, 1, t->n, before, sums, totals, true);
	if (sums)
		nd[0].off.u = 0;
	return sums || t->chart || t->saturated;
}

/* Offsets sibling by sibling from the totals (fractions, saturated sums). */
static void offsets_by_siblings(struct tree *t)
{
	struct tree_node *nd = t->nodes;
	memset(&nd[0].off, 0, sizeof nd[0].off);
	for (size_t i = 0; i < t->n; i++) {
		tree_count x = nd[i].off;
		for (tree_idx c = (tree_idx)i + 1; c < nd[i].end; c = nd[c].end) {
			nd[c].off = x;
			x = count_add(t, x, nd[c].total);
		}
	}
}

void tree_finalize(struct tree *t, enum tree_order order)
{
	tree_finalize_map(t, order, NULL);
}

void tree_finalize_map(struct tree *t, enum tree_order order, tree_idx **map)
{
	tree_prefault_end(t);
	if (map)
		*map = NULL;
	if (t->finalized)
		return;
	/* A flame chart's siblings are in time order and its offsets are
	 * times: any other order would draw overlapping, unsorted spans. */
	if (t->chart)
		order = TREE_ORDER_INPUT;
	size_t n = t->n;
	struct tree_node *nd = t->nodes;
	free(t->b.slots);
	t->b.slots = NULL;
	t->b.nslots = 0;
	free(t->b.path);
	free(t->b.pathkeys);
	t->b.path = NULL;
	t->b.pathkeys = NULL;
	t->b.pathlen = t->b.pathcap = t->b.pathkeyed = 0;
	free(t->b.bpath);
	free(t->b.bat);
	t->b.bpath = NULL;
	t->b.bat = NULL;
	t->b.bpathcap = t->b.batcap = 0;

	/* A flame chart keeps its times in `off` while building: set aside,
	 * and the child lists (newest first) made from the parents. */
	tree_count *times = NULL;
	if (t->chart) {
		times = xreallocarray(NULL, n, sizeof *times);
		for (size_t i = 0; i < n; i++)
			times[i] = nd[i].off;
		nd[0].off.u = 0;
		for (size_t i = 1; i < n; i++) {
			struct tree_node *p = &nd[nd[i].parent];
			nd[i].off.u = kid_newest(p);
			p->off.u = (uint64_t)i << 32 | kid_older(p);
		}
	}

	/* Integer totals come out of the last pass, unless sorting by weight
	 * needs them first; sums too big for 64 bits saturate, which only the
	 * sum bottom-up by index does. */
	bool late = !t->chart && !t->saturated && order != TREE_ORDER_WEIGHT;
	if (!late)
		totals_backward(t);
	/* Sibling lists are in creation order; stacks added in sorted order
	 * made them in name order already (find_sorted's reasoning), unless
	 * a name holds a ';', where the two orders part. */
	bool semicolons = order == TREE_ORDER_NAME && !t->b.hashed && treesort_names_have_semicolon(t);

	/* Built without the hash, siblings are in index order: a tree built
	 * in order without revisits is in preorder already (nothing to number
	 * or move), and one with revisits is numbered by index. Otherwise
	 * (but in a flame chart) the sort gives each node its place. */
	tree_idx *from = NULL;
	size_t nfrom = 0, moved = 0;
	bool by_index = !t->b.hashed && !t->chart &&
	                (order == TREE_ORDER_INPUT || (order == TREE_ORDER_NAME && !semicolons));
	bool by_offsets = !by_index && !t->chart;
	struct treepar_split parts;
	bool split = false, repaired = false;
	if (by_offsets)
		moved = number_by_offsets(t, order, late, &from, &nfrom);
	else if (by_index && !t->b.revisited)
		;
	else if (by_index && (repaired = number_by_revisits(t, &moved, &from, &nfrom)))
		;
	else if (by_index && late && (split = treepar_number(t, &parts, &moved, &from, &nfrom)))
		;
	else if (by_index && late)
		moved = number_by_index(t, &from, &nfrom);
	else
		moved = number_preorder(t, &from, &nfrom);
	free(t->b.rv);
	free(t->b.rvopen);
	t->b.rv = NULL;
	t->b.rvopen = NULL;
	t->b.nrv = t->b.caprv = t->b.nrvopen = t->b.caprvopen = 0;
	if (times) {
		for (size_t i = 0; i < n; i++)
			nd[i].off = times[i];
		free(times);
	}
	if (moved && map) {     /* numbering left each node's new id in `end` */
		*map = xmalloc(n * sizeof **map);
		if (repaired && from) {     /* of the listed nodes only */
			for (size_t i = 0; i < n; i++)
				(*map)[i] = (tree_idx)i;
			for (size_t k = 0; k < nfrom; k++)
				(*map)[from[k]] = nd[from[k]].end;
		} else {
			for (size_t i = 0; i < n; i++)
				(*map)[i] = nd[i].end;
		}
	}
	if (moved)
		permute(t, moved, from, nfrom);     /* parents are renumbered below */
	free(from);
	nd = t->nodes;
	bool walked = true;
	if (!(split ? treepar_ends(t, late, &parts)
	            : treepar_walk(t, late, &walked) ? walked : ends_and_offsets(t, late))) {
		/* The sums overflowed: totals the saturating way. */
		for (size_t i = 0; i < n; i++)
			memset(&nd[i].total, 0, sizeof nd[i].total);
		totals_backward(t);
	}
	if (!t->chart && t->saturated)
		offsets_by_siblings(t);
	if (t->cap > n) {   /* growth doubled the array: give the slack back */
		t->nodes = xreallocarray(t->nodes, n, sizeof *t->nodes);
		t->cap = n;
	}
	t->finalized = true;
}
