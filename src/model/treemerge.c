/* tree_merge*: adding one tree being built to another. */
#include "config.h"
#include "treeint.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "xalloc.h"


/* Gives back the pages of t's node array below node i, read already:
 * whole pages strictly inside the array (malloc's bookkeeping around it
 * stays intact), once at least `step` bytes are due; *done is how far
 * that went. */
void treemerge_release(const struct tree *t, size_t i, uintptr_t *done, uintptr_t step)
{
	uintptr_t from = *done > (uintptr_t)t->nodes ? *done : (uintptr_t)t->nodes;
	uintptr_t to = (uintptr_t)(t->nodes + i);
	if (to > from && to - from >= step)
		*done = (uintptr_t)xgive_back((const void *)from, (const void *)to);
}

/* True when src's stacks can follow dst's without the child hash: both
 * came in order, and src's first stack does not sort before dst's last. */
static bool merge_in_order(const struct tree *dst, const struct tree *src)
{
	if (dst->b.hashed || src->b.hashed)
		return false;
	if (dst->b.first_leaf == TREE_NONE || src->b.first_leaf == TREE_NONE)
		return true;
	size_t n = src->nodes[src->b.first_leaf].depth;
	struct tree_frame *f = xmalloc((n ? n : 1) * sizeof *f);
	tree_idx i = src->b.first_leaf;
	for (size_t k = n; k > 0; k--) {
		strtab_id id = src->nodes[i].name;
		f[k - 1] = (struct tree_frame){ strtab_str(&src->names, id), strtab_len(&src->names, id) };
		i = src->nodes[i].parent;
	}
	bool ok = treebuild_cmp_stacks(dst, f, n, dst->b.path, dst->b.pathlen) >= 0;
	free(f);
	return ok;
}

/* What merge found out for carry_revisits: src's first `shared` nodes
 * are dst's path's; back[0..nback) are the others it mapped to old nodes
 * of dst (leaves gone back to), in order; dst had `fresh` nodes. */
struct carry {
	size_t shared, fresh;
	tree_idx *back;
	size_t nback, capback;
};

/* Where src's node index x (a revisit's `at` or `end`: where a stack's
 * new nodes start) is in dst after the merge: as many nodes as dst had
 * when the merge came to node x. TREE_NONE: one of the shared nodes. */
static tree_idx carry_at(const struct tree *dst, const struct tree *src, const struct carry *cy, tree_idx x)
{
	if (x >= src->n)
		return x == src->n ? (tree_idx)dst->n : TREE_NONE;
	if (x <= cy->shared)
		return TREE_NONE;
	size_t lo = 0, hi = cy->nback;     /* back[0..lo) < x */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cy->back[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (tree_idx)(cy->fresh + (x - 1 - cy->shared) - lo);
}

/* src's listed revisits added to dst's (see merge: carry), through map.
 * Open ones stay open, below dst's still open ones (else the lists are
 * dropped); all open ones must be on dst's path, which is src's last
 * now. src's nodes are not read: merge may have given their pages back. */
static void carry_revisits(struct tree *dst, const struct tree *src, const tree_idx *map, const struct carry *cy)
{
	struct tree_build *b = &dst->b;
	const struct tree_build *sb = &src->b;
	size_t base = b->nrv, dstopen = b->nrvopen;
	for (size_t k = 0; k < sb->nrv; k++) {
		struct tree_revisit r = sb->rv[k];
		tree_idx at = carry_at(dst, src, cy, r.at);
		tree_idx end = r.end == TREE_NONE ? TREE_NONE : carry_at(dst, src, cy, r.end);
		if (r.node >= src->n || at == TREE_NONE || (r.end != TREE_NONE && (end == TREE_NONE || end < at)) ||
		    b->nrv >= dst->n / 16 + 1024) {
			treebuild_revisits_lost(dst);
			return;
		}
		/* not on the open list yet: src's order below */
		treebuild_revisit_add(dst, (struct tree_revisit){ map[r.node], at, 0 });
		b->rv[b->nrv - 1].end = end;
	}
	for (size_t k = 0; k < sb->nrvopen; k++)
		treebuild_revisit_open(dst, base + sb->rvopen[k]);
	/* open ones: on the path, the deepest last */
	uint32_t above = 0;
	for (size_t k = 0; k < b->nrvopen; k++) {
		tree_idx c = b->rv[b->rvopen[k]].node;
		uint32_t d = dst->nodes[c].depth;
		if (!(d >= 1 && d <= b->pathlen && b->path[d - 1] == c) || (k >= dstopen && d <= above)) {
			treebuild_revisits_lost(dst);
			return;
		}
		above = d;
	}
}

/* Closes dst's open revisits at depth d or more, whose new subtrees end
 * at node `end`. */
static void merge_close(struct tree *dst, size_t d, tree_idx end)
{
	struct tree_build *b = &dst->b;
	while (b->nrvopen && dst->nodes[b->rv[b->rvopen[b->nrvopen - 1]].node].depth >= d)
		b->rv[b->rvopen[--b->nrvopen]].end = end;
}

static void merge(struct tree *dst, const struct tree *src, bool release, tree_idx **mapout)
{
	if (dst->finalized || src->finalized || dst->chart)
		xdie("internal error: tree_merge on a finalized tree or a flame chart");
	if (!merge_in_order(dst, src))
		treebuild_ensure_hash(dst);
	/* Counts in dst's units: as many of src's decimals as dst takes. */
	if (src->decimals > dst->decimals)
		tree_dec_widen(dst, src->decimals);
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
	/* A new child of a new node, in a tree without the hash, in the same
	 * units: written here in full (what treebuild_child_add and new_node
	 * would do, without a call, a check and a clearing per node), into
	 * room made once. Sorted pieces merge almost only such nodes. */
	bool append = !dst->b.hashed && src->decimals == dst->decimals;
	if (append)
		tree_reserve(dst, src->n);
	/* The path of src's first stack: first[d - 1] at depth d. */
	size_t firstlen = src->b.first_leaf != TREE_NONE ? src->nodes[src->b.first_leaf].depth : 0;
	tree_idx *first = xmalloc((firstlen ? firstlen : 1) * sizeof *first);
	for (tree_idx k = firstlen, c = src->b.first_leaf; k > 0; k--, c = src->nodes[c].parent)
		first[k - 1] = c;
	/* Both trees' revisits listed (sorted pieces, treefinal.c:
	 * number_by_revisits) stay so when src's first stack made its nodes
	 * 1.. (the first `shared` of them on dst's last path) and the
	 * merge's own revisits are the builder's kind (src's stacks going
	 * back to leaves of dst, listed here): src's other nodes are
	 * appended in order, its revisits listed through the map, and the
	 * open ones close where src's stacks leave them. */
	bool carry = append && !dst->b.rv_lost && !src->b.rv_lost && !dst->b.hashed;
	for (size_t k = 0; carry && k < firstlen; k++)
		carry = first[k] == k + 1;
	size_t shared = 0, olds = 0;
	struct carry cy = { 0, fresh, NULL, 0, 0 };
	for (size_t i = 0; i < src->n; i++) {
		if (release && (i & 0xfffff) == 0 && i)
			treemerge_release(src, i, &released, 0);
		const struct tree_node *sn = &src->nodes[i];
		tree_idx pf;
		if (i && append && (pf = map[sn->parent]) >= fresh && dst->n < dst->cap &&
		    dst->n < TREE_MAX_NODES) {
			/* (a child of a new node: dst's open revisits, on the
			 * path above, closed already) */
			tree_idx c = (tree_idx)dst->n++;
			struct tree_node *pn = &dst->nodes[pf], *dn = &dst->nodes[c];
			dn->parent = pf;
			dn->name = names[sn->name];
			dn->end = KIDS_NONE;
			dn->depth = pn->depth + 1;
			dn->self = sn->self;
			dn->total.u = 0;
			dn->off.u = kid_newest(pn);
			pn->off.u = (uint64_t)c << 32 | kid_older(pn);
			pn->end = pn->end == KIDS_NONE ? c : KIDS_MANY;
			map[i] = c;
			continue;
		}
		if (i) {
			tree_idx p = map[sn->parent];
			map[i] = p >= fresh ? treebuild_child_add(dst, p, names[sn->name])
			                    : treebuild_child_get(dst, p, names[sn->name]);
			/* As in extend_path, an old node reached again after
			 * other nodes were made: off dst's last path, or by a
			 * stack of src after its first (which made i otherwise:
			 * "p;f" in dst, then "p;f(int)" and "p;f;x" in src). */
			tree_idx c = map[i];
			uint32_t d = dst->nodes[c].depth;
			bool back = c < fresh && (!(d - 1 < dst->b.pathlen && dst->b.path[d - 1] == c) ||
			                          !(d <= firstlen && first[d - 1] == i));
			if (back)
				dst->b.revisited = true;
			struct tree_build *b = &dst->b;
			if (carry && c < fresh && !back) {
				/* src's first stack goes on along dst's path */
				carry = i == shared + 1;
				shared++;
				olds++;
			} else if (carry && c < fresh) {
				/* A stack of src goes back to a leaf of dst
				 * (src's first: "p;f!" after "p;f" last in dst,
				 * then "p;f;x"; a later one: "p;f" last in dst,
				 * "p;f(int)", then "p;f;x"): a revisit as the
				 * builder lists it, whose new nodes start at
				 * dst's end (treebuild.c: revisit_open), under a
				 * node of the shared path. */
				carry = sn->parent <= shared && dst->nodes[c].end == KIDS_NONE &&
				        b->nrv < dst->n / 16 + 1024;
				olds++;
				if (carry) {
					if (cy.nback == cy.capback) {
						cy.capback = cy.capback ? 2 * cy.capback : 16;
						cy.back = xreallocarray(cy.back, cy.capback, sizeof *cy.back);
					}
					cy.back[cy.nback++] = (tree_idx)i;
					merge_close(dst, d, (tree_idx)dst->n);
					treebuild_revisit_add(dst, (struct tree_revisit){ c, (tree_idx)dst->n, TREE_NONE });
				}
			} else if (carry && sn->parent <= shared) {
				/* src's first new nodes under shared node p
				 * (depth p): the stack making it left the open
				 * revisits below depth p */
				merge_close(dst, sn->parent + 1, c);
			}
		}
		struct tree_node *dn = &dst->nodes[map[i]];
		uint64_t add = tree_units_from(dst, sn->self.u, src->decimals);
		uint64_t v = dn->self.u + add;
		if (v < add) {
			v = UINT64_MAX;
			dst->saturated = true;
		}
		dn->self.u = v;
	}
	if (src->b.first_leaf != TREE_NONE) {
		if (dst->b.first_leaf == TREE_NONE)
			dst->b.first_leaf = map[src->b.first_leaf];
		treebuild_path_reserve(dst, src->b.pathlen);
		for (size_t k = 0; k < src->b.pathlen; k++)
			dst->b.path[k] = map[src->b.path[k]];
		dst->b.pathlen = src->b.pathlen;
		treebuild_path_rekey(dst);
	}
	carry = carry && !dst->b.hashed && dst->n - fresh == src->n - 1 - olds;
	cy.shared = shared;
	if (carry)
		carry_revisits(dst, src, map, &cy);
	else
		treebuild_revisits_lost(dst);   /* the merge's revisits are not listed */
	if (mapout)
		*mapout = map;
	else
		free(map);
	free(names);
	free(first);
	free(cy.back);
	dst->stacks += src->stacks;
	dst->saturated |= src->saturated;
	dst->rounded += src->rounded;
	dst->b.revisited |= src->b.revisited;
}

void tree_merge(struct tree *dst, const struct tree *src)
{
	merge(dst, src, false, NULL);
}

void tree_merge_map(struct tree *dst, const struct tree *src, tree_idx **map)
{
	merge(dst, src, false, map);
}

void tree_merge_free(struct tree *dst, struct tree *src)
{
	tree_merge_free_map(dst, src, NULL);
}

void tree_merge_free_map(struct tree *dst, struct tree *src, tree_idx **map)
{
	/* Big trees give their read pages back as the merge goes, so that
	 * the peak is not dst plus the whole of src. */
	free(src->b.slots);       /* never looked up again */
	src->b.slots = NULL;
	src->b.nslots = 0;
	merge(dst, src, src->n * sizeof *src->nodes >= ((size_t)64 << 20), map);
	tree_free(src);
}
