/* treeint: what the files of the tree module share (tree.c, treebuild.c,
 * treemerge.c, treesort.c, treefinal.c, treefold.c); not for other modules,
 * which use tree.h only.
 *
 * While building, a node's `end` holds its only child (KIDS_NONE: none,
 * KIDS_MANY: two or more, which are then in the child hash once it is on),
 * and its `off` links it into its parent's list of children, newest first:
 * the upper half holds the node's newest child, the lower half its next
 * older sibling; 0 (the root, never a child) ends a list, so a zeroed node
 * has none. A flame chart keeps times in `off` instead and needs no lists
 * (it never looks children up). `total` stays 0 until tree_finalize. */
#ifndef TFLAME_TREEINT_H
#define TFLAME_TREEINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tree.h"

#define KIDS_NONE TREE_NONE
#define KIDS_MANY (UINT32_MAX - 1u)

static inline tree_idx kid_newest(const struct tree_node *nd) { return (tree_idx)(nd->off.u >> 32); }
static inline tree_idx kid_older(const struct tree_node *nd) { return (tree_idx)nd->off.u; }

static inline bool has_self(const struct tree *t, tree_idx i)
{
	return t->nodes[i].self.u > 0;
}

/* a + b, saturating at UINT64_MAX (which marks t saturated). */
static inline tree_count count_add(struct tree *t, tree_count a, tree_count b)
{
	uint64_t s = a.u + b.u;
	if (s < a.u) {
		s = UINT64_MAX;
		t->saturated = true;
	}
	a.u = s;
	return a;
}

#ifdef TREE_TEST_COUNT     /* tests/unit/test_treesort counts comparisons */
extern unsigned long tree_test_name_compares, tree_test_item_compares;
#define TEST_COUNT(c) ((c)++)
#else
#define TEST_COUNT(c) ((void)0)
#endif

/* ---- tree.c: decimal counts */
/* Moves t to as many of `want` decimals as its sum allows. */
void tree_dec_widen(struct tree *t, unsigned want);
/* c in t's units (t takes more decimals first when it can). */
uint64_t tree_dec_units(struct tree *t, struct tree_dec c);

/* ---- treebuild.c: the builder */
/* Puts the child hash in use (t->b.hashed): every child of a branching node
 * goes in. From then on children are found through it. */
void treebuild_ensure_hash(struct tree *t);
/* A new child of parent named name, known to be absent. */
tree_idx treebuild_child_add(struct tree *t, tree_idx parent, strtab_id name);
/* The child of parent named name, created when missing. */
tree_idx treebuild_child_get(struct tree *t, tree_idx parent, strtab_id name);
/* Room for a path of n nodes in t->b.path; dies after finalize. */
static inline void treebuild_path_reserve(struct tree *t, size_t n);
/* treebuild_path_reserve's growth (and its check). */
void treebuild_path_grow(struct tree *t, size_t n);
static inline void treebuild_path_reserve(struct tree *t, size_t n)
{
	if (t->finalized || n > t->b.pathcap)
		treebuild_path_grow(t, n);
}
/* Drops the list of revisits (t->b.rv): finalize renumbers every node. */
void treebuild_revisits_lost(struct tree *t);
/* Lists revisit r (open, on the path, when r.end is TREE_NONE: the
 * deepest open one so far). */
void treebuild_revisit_add(struct tree *t, struct tree_revisit r);
/* Puts listed revisit k on the open list (the deepest so far). */
void treebuild_revisit_open(struct tree *t, size_t k);
/* Sets the keys of the whole path (b.pathkeys) from its names, after a
 * change of the path other than tree_add_stack*'s. */
void treebuild_path_rekey(struct tree *t);
/* Compares the text of stack a[0..na) with that of b[0..nb) (nodes of t),
 * as `LC_ALL=C sort` orders folded lines (see treebuild.c). */
int treebuild_cmp_stacks(const struct tree *t, const struct tree_frame *a, size_t na,
                         const tree_idx *b, size_t nb);

/* ---- treemerge.c */
/* Gives back the pages of t's node array below node i, which a merge or a
 * join has read (and reads no more): whole pages strictly inside the
 * array, once at least `step` bytes are due; *done (0 at first) is how
 * far that went. Nothing without madvise. */
void treemerge_release(const struct tree *t, size_t i, uintptr_t *done, uintptr_t step);

/* ---- treefinal.c: tree_finalize */
#ifndef TREE_FROM_MAX       /* the tests set it to 0: never a list */
#define TREE_FROM_MAX ((size_t)1 << 20)
#endif
/* The nodes that move in a renumbering: listed while they are at most
 * TREE_FROM_MAX, then only counted (tree_finalize then reads them all to
 * move them). */
struct moved {
	tree_idx *from;
	size_t n, cap;
	bool listing;
};
void treefinal_moved_add(struct moved *m, tree_idx u);
/* Hands the list over (NULL when it overflowed) and returns the count. */
size_t treefinal_moved_end(struct moved *m, tree_idx **from, size_t *nfrom);

/* ---- treepar.c: tree_finalize's passes on several threads */
/* Threads tree_finalize may use (tree_set_threads). */
extern int treepar_threads;
#define TREEPAR_MAX_PARTS 16
/* Where the parallel numbering left the tree: parts of the preorder, each
 * a run of whole subtrees of root children, starting at at[j] (at[0] =
 * 1), and the sum of the self counts of each (the root's excluded). */
struct treepar_split {
	int k;
	size_t at[TREEPAR_MAX_PARTS + 1];   /* at[k] = the tree's size */
	uint64_t self[TREEPAR_MAX_PARTS];
	bool self_ok;                       /* no sum overflowed */
};
/* number_by_index (treefinal.c) on up to treepar_threads threads: the
 * tree is cut where root children start, each part numbered on its own
 * thread; what a part cannot number alone (children of nodes before it:
 * a revisited node's new ones) is done after, in order. Same results.
 * False (nothing done) when that does not apply: one thread, a small
 * tree, no root child to cut at. */
bool treepar_number(struct tree *t, struct treepar_split *sp, size_t *moved, tree_idx **from, size_t *nfrom);
/* The walk of ends_and_offsets (treefinal.c) over nodes [lo, hi) of nd, a
 * run of whole subtrees of root children in preorder, `before` the self
 * counts before lo (the root's too). Sets ends and parents, and, while
 * sums (no overflow yet), offsets and, with totals, totals. close_root:
 * hi is the tree's end, and the root's end and total are set as well.
 * Returns whether the sums held. */
bool treefinal_walk(struct tree_node *nd, size_t lo, size_t hi, uint64_t before, bool sums, bool totals,
                    bool close_root);
/* ends_and_offsets (treefinal.c) of a tree in preorder, on sp's parts,
 * one a thread, each starting from the sum of the self counts before it;
 * the same results and return value. */
bool treepar_ends(struct tree *t, bool totals, const struct treepar_split *sp);

/* ends_and_offsets (treefinal.c) of a tree in preorder on up to
 * treepar_threads threads: parts start at root children; each part's
 * thread first sums the self counts of the part before it (while that
 * part is walked), then walks its own from the sum of those before it.
 * *ok: ends_and_offsets' return value. False (nothing done) when that
 * does not apply: one thread, a small tree, no root child to cut at, a
 * flame chart, saturated counts. */
bool treepar_walk(struct tree *t, bool totals, bool *ok);

/* ---- treesort.c: sibling order */
/* Sorts the child list of every node with two children or more in
 * `order` (name or weight; weight needs the totals; input keeps them),
 * and gives each child in such a list its place in its parent's subtree
 * in `end`: 1 + the subtree sizes of the siblings before it, size[i]
 * (size NULL: `total`). */
void treesort_lists(struct tree *t, enum tree_order order, const tree_idx *size);
/* True when some name holds a ';', which folded text cannot. */
bool treesort_names_have_semicolon(const struct tree *t);
/* Name order of two siblings named a[0..la) and b[0..lb) (selfa, selfb:
 * whether each has samples of its own): flamegraph.pl's, as the smallest
 * folded lines of their subtrees sort. */
int treesort_cmp_names(const char *a, size_t la, bool selfa, const char *b, size_t lb, bool selfb);

#endif
