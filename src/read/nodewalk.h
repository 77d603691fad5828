/* nodewalk: a forest of call-tree nodes given by parent links (V8's
 * cpuprofile nodes, speedscope's evented stacks once indexed) walked in
 * preorder without recursion, for a reader that hands each weighted
 * node's stack to the tree. The walk keeps, per level, the length of the
 * path down to it (the reader owns the path of frames: a node may add
 * none, one, or a name of its profile), and how many frames the next
 * stack handed shares with the last one, so that the tree looks up only
 * the frames past them (tree_add_stack_tail's keep).
 *
 *	struct nodewalk w;
 *	nodewalk_init(&w, &nodes[0].parent, sizeof nodes[0], n);
 *	for each root r:
 *		for (uint32_t v = nodewalk_start(&w, r); v != NODEWALK_END; v = nodewalk_next(&w)) {
 *			size_t plen = nodewalk_base(&w);   (the parent's path)
 *			... frames of v at path[plen...], plen grown ...
 *			nodewalk_enter(&w, v, plen);
 *			if (v weighs)
 *				tree_add_stack_tail(t, k = nodewalk_keep(&w, plen), path + k, plen - k, weight);
 *		}
 *	nodewalk_free(&w);
 */
#ifndef TFLAME_NODEWALK_H
#define TFLAME_NODEWALK_H

#include <stddef.h>
#include <stdint.h>

#define NODEWALK_END UINT32_MAX

struct nodewalk {
	uint32_t *first;            /* node i's children: kids[first[i] .. first[i + 1]) */
	uint32_t *kids;
	uint32_t *lv_node;          /* per level in use: its node, */
	uint32_t *lv_next;          /* its next child to visit, */
	size_t *lv_plen;            /* the path's length down to it */
	size_t n;
	size_t top;                 /* levels in use */
	size_t low;                 /* frames the path shares with the last stack
	                               handed: its length, or the shortest path
	                               gone up to since (0 before any) */
};

/* The children of nodes [0, n) (n < UINT32_MAX): node i's parent is the
 * uint32_t at (const char *)parent + i * stride; one of n or more (none, or
 * a node skipped) makes i no node's child. Children keep their index order. */
void nodewalk_init(struct nodewalk *w, const uint32_t *parent, size_t stride, size_t n);
void nodewalk_free(struct nodewalk *w);

/* A walk of the subtree of root (< n) begins: returns root, to be entered.
 * The next stack handed shares nothing with those before (so a reader may
 * hand a root's own stack, not its path, without telling). */
uint32_t nodewalk_start(struct nodewalk *w, uint32_t root);

/* The path length of the node about to be entered's parent (0 for a root). */
size_t nodewalk_base(const struct nodewalk *w);

/* v entered: its path is plen frames long (at least nodewalk_base). */
void nodewalk_enter(struct nodewalk *w, uint32_t v, size_t plen);

/* A stack of plen frames (the entered node's path) is handed: returns how
 * many of its first frames it shares with the last one handed, for the
 * tree to keep. */
size_t nodewalk_keep(struct nodewalk *w, size_t plen);

/* The next node of the subtree in preorder, or NODEWALK_END: the first
 * child not visited yet of the deepest level that has one, the levels
 * below it left. */
uint32_t nodewalk_next(struct nodewalk *w);

/* Levels in use: the depth of the next node entered (after nodewalk_next). */
static inline size_t nodewalk_depth(const struct nodewalk *w)
{
	return w->top;
}

#endif
