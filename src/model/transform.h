/* transform: new call trees computed from a finalized one, and a stack of
 * such transforms with undo (Firefox Profiler style).
 *
 * Every function here reads a finalized tree `src` and builds a new,
 * finalized tree `dst` (tree_init'ed inside; the caller tree_free's it). The
 * new tree has its own names. Nothing recurses over the tree, and all but
 * reverse and callers are O(nodes of src): nodes are visited in preorder and
 * each adds at most one frame to the stack of its parent (tree_add_stack_tail).
 *
 * Recursion in focus/callers follows speedscope's sandwich view: only the
 * outermost occurrences of the function count (an occurrence nested inside
 * another is already part of that one's subtree), so no sample is counted
 * twice and the root's total is the function's total with recursion counted
 * once.
 *
 * A flame chart (src->chart) stays a chart under hide, merge-recursion and
 * drop (time order kept; a frame's own samples are placed before its
 * children's); reverse, focus and callers merge by name. */
#ifndef TFLAME_TRANSFORM_H
#define TFLAME_TRANSFORM_H

#include <stdbool.h>
#include <stddef.h>
#include "tree.h"

struct rx;

/* Leaf -> root (flamegraph.pl --reverse): each node's self samples become
 * the stack of its names from the node up to depth 1. Root self stays root
 * self. O(sum of the depths of the nodes with self samples). */
void transform_reverse(const struct tree *src, enum tree_order order, struct tree *dst);

/* Focus on a function (name id in src's names): one root frame `name` under
 * "all" holding the subtrees of all its outermost occurrences, merged. */
void transform_focus(const struct tree *src, strtab_id name, enum tree_order order,
                     struct tree *dst);

/* Callers of a function: "all" -> name -> caller -> caller's caller ...,
 * one stack per outermost occurrence weighted by its total (speedscope's
 * inverted callers profile). O(sum of the occurrences' depths). */
void transform_callers(const struct tree *src, strtab_id name, enum tree_order order,
                       struct tree *dst);

/* Hides frames whose name matches re (rx_matches: the whole name, NUL
 * bytes included; a match too costly is no match, counted in re): their
 * children re-attach to the nearest kept ancestor and their own samples
 * go to it. Total samples unchanged. */
void transform_hide(const struct tree *src, const struct rx *re, enum tree_order order,
                    struct tree *dst);
/* Whether regex is a valid --hide pattern; if not, why in err. */
bool transform_hide_valid(const char *regex, char *err, size_t errsize);

/* Merges direct recursion: a frame named like its parent is merged into
 * it (f;f;f;g -> f;g). Indirect recursion (f;g;f) is kept. */
void transform_merge_recursion(const struct tree *src, enum tree_order order, struct tree *dst);

/* Drops the subtree of node `node` (not the root): its samples are gone. */
void transform_drop(const struct tree *src, tree_idx node, enum tree_order order,
                    struct tree *dst);

/* ---- the transform stack ------------------------------------------------ */

enum transform_kind {
	TRANSFORM_REVERSE,
	TRANSFORM_FOCUS,            /* arg: function name */
	TRANSFORM_CALLERS,          /* arg: function name */
	TRANSFORM_HIDE,             /* arg: regex (rx.h), case-sensitive */
	TRANSFORM_MERGE_RECURSION,
	TRANSFORM_DROP              /* arg: the node's path, names joined by '\0'
	                               (root excluded; a name's own \0 and \1
	                               bytes written \1\2 and \1\1), so it also
	                               applies to another tree with the same
	                               path (diff) */
};

struct transform {
	enum transform_kind kind;
	char *arg;                  /* owned; NULL when the kind takes none */
	size_t arglen;
};

/* Builds dst = tr applied to src. False (dst untouched, reason in err) when
 * it cannot apply: unknown function name, bad regex, missing path. True
 * with a note for the user in err, or "" (errsize > 0): a hide pattern
 * that was too costly on some names. */
bool transform_apply(const struct tree *src, const struct transform *tr, enum tree_order order,
                     struct tree *dst, char *err, size_t errsize);

/* The drop transform for node i of t (arg = its path). */
struct transform transform_make_drop(const struct tree *t, tree_idx i);
/* A transform with a copy of arg[0..len) (arg may be NULL for none). */
struct transform transform_make(enum transform_kind kind, const char *arg, size_t len);
void transform_free(struct transform *tr);

/* Node of t at the path of a drop transform, or TREE_NONE. */
tree_idx transform_find_path(const struct tree *t, const char *path, size_t len);

/* Short label for the breadcrumb line, e.g. "reverse", "focus main",
 * "hide ^std::", "drop main>parse". Raw profile bytes: sanitize before
 * display. Returns the length (output cut to size, NUL-terminated). */
size_t transform_label(const struct transform *tr, char *buf, size_t size);

/* A base tree (not owned) plus a list of transforms; the current tree is
 * the base with every transform applied in order. Undo recomputes from the
 * base, so at most two trees beyond the base are alive at once. An optional
 * second base (the BEFORE profile of a diff) gets the same transforms. */
struct transform_stack {
	const struct tree *base, *base2;
	struct tree cur, cur2;      /* valid when n > 0 (cur2: and base2) */
	struct transform *items;
	size_t n, cap;
	enum tree_order order;
};

void transform_stack_init(struct transform_stack *s, const struct tree *base,
                          const struct tree *base2, enum tree_order order);
void transform_stack_free(struct transform_stack *s);
/* The current tree (the base when the stack is empty); the second one is
 * NULL without a second base. */
const struct tree *transform_stack_tree(const struct transform_stack *s);
const struct tree *transform_stack_tree2(const struct transform_stack *s);
/* Applies tr to the current tree(s) and pushes it (taking ownership of its
 * arg). False, with err set and tr freed, when it does not apply to the
 * first tree; a second tree it does not apply to is carried unchanged.
 * True with transform_apply's note (or "") in err. */
bool transform_stack_push(struct transform_stack *s, struct transform *tr, char *err,
                          size_t errsize);
/* A new base (not owned; the old one is the caller's): the transforms
 * apply again, in order, to it; those that no longer apply (a function or
 * path it lacks) are dropped. Returns how many were. */
size_t transform_stack_rebase(struct transform_stack *s, const struct tree *base);
/* Removes the last transform (none: false). O(n transforms x tree size). */
bool transform_stack_pop(struct transform_stack *s);

#endif
