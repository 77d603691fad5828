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
void treebuild_path_reserve(struct tree *t, size_t n);
/* Compares the text of stack a[0..na) with that of b[0..nb) (nodes of t),
 * as `LC_ALL=C sort` orders folded lines (see treebuild.c). */
int treebuild_cmp_stacks(const struct tree *t, const struct tree_frame *a, size_t na,
                         const tree_idx *b, size_t nb);

/* ---- treesort.c: sibling order */
/* Sorts the child list of every node with two children or more in
 * `order` (name or weight; weight needs the totals). */
void treesort_lists(struct tree *t, enum tree_order order);
/* True when some name holds a ';', which folded text cannot. */
bool treesort_names_have_semicolon(const struct tree *t);

#endif
