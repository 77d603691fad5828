#include "config.h"
#include "layout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

void layout_init(struct layout *l)
{
	memset(l, 0, sizeof *l);
}

void layout_free(struct layout *l)
{
	free(l->spans);
	free(l->row_start);
	memset(l, 0, sizeof *l);
}

/* floor(x * w / total) for 0 <= x <= total, exact for integer counts. */
static int col_of(const struct tree *t, tree_count x, tree_count total, int w)
{
	(void)t;    /* fractions are integers too (tree.h: decimal units) */
	if (total.u == 0 || w <= 0)     /* no width (a pane squeezed to nothing) */
		return 0;
	/* The product fits 64 bits unless counts are astronomical: a 64-bit
	 * division costs a fraction of the 128-bit one (a library call), and
	 * a layout does two per node visited. */
	if (w > 0 && x.u <= UINT64_MAX / (unsigned)w) {
		uint64_t c = x.u * (unsigned)w / total.u;
		return c > (unsigned)w ? w : (int)c;
	}
#ifdef __SIZEOF_INT128__
	/* x > total only in a tree whose sums saturated (tree.h). */
	unsigned __int128 c = (unsigned __int128)x.u * (unsigned)w / total.u;
	return c > (unsigned)w ? w : (int)c;
#else
	long double c = floorl((long double)x.u * w / total.u);
	return c > w ? w : (int)c;
#endif
}

static tree_count count_sub(tree_count a, tree_count b)
{
	a.u -= b.u;
	return a;
}

/* Columns of a node inside the zoom root z (z itself included). */
static void cols_inside(const struct tree *t, const struct layout_params *p, tree_idx i,
                        int *c0, int *c1)
{
	const struct tree_node *z = &t->nodes[p->zoom], *n = &t->nodes[i];
	tree_count x0 = count_sub(n->off, z->off);
	tree_count x1 = x0;
	/* saturates: offsets and totals of a saturated tree are clamped */
	x1.u = x1.u > UINT64_MAX - n->total.u ? UINT64_MAX : x1.u + n->total.u;
	*c0 = col_of(t, x0, z->total, p->width);
	*c1 = col_of(t, x1, z->total, p->width);
}

int layout_row_of_level(const struct layout_params *p, uint32_t level)
{
	if (level < p->scroll || level - p->scroll >= (uint32_t)(p->height > 0 ? p->height : 0))
		return -1;
	int r = (int)(level - p->scroll);
	return p->orient == LAYOUT_FLAME ? p->height - 1 - r : r;
}

void layout_scroll_to(struct layout_params *p, uint32_t level)
{
	uint32_t h = p->height > 0 ? (uint32_t)p->height : 1;
	if (level < p->scroll)
		p->scroll = level;
	else if (level - p->scroll >= h)
		p->scroll = level - h + 1;
}

/* After this many undrawn siblings in a row, the next candidate is found
 * by binary search rather than by stepping through them one by one: a
 * node with a million one-sample children then costs O(W log n), not n. */
#define LAYOUT_SKIP_AFTER 8

/* The first sibling after i (not drawn, its columns end at c1) that may be
 * drawn: the one that reaches column c1 + 1, found as the ancestor at i's
 * depth of the last node (in preorder, before end(parent)) whose start
 * column is <= c1. Offsets never decrease in preorder, so the search is a
 * bisection. Every sibling skipped lies within column c1: no whole cell.
 * Returns end(i) when the very next sibling already starts beyond c1. */
static tree_idx skip_narrow(const struct tree *t, const struct layout_params *p, tree_idx i, int c1)
{
	tree_idx lo = tree_end(t, i), hi = tree_end(t, tree_parent(t, i));
	if (lo >= hi)
		return lo;
	int s0, s1;
	cols_inside(t, p, lo, &s0, &s1);
	if (s0 > c1)
		return lo;
	/* Invariant: start column of lo <= c1; of hi (if < end) > c1. */
	while (hi - lo > 1) {
		tree_idx mid = lo + (hi - lo) / 2;
		cols_inside(t, p, mid, &s0, &s1);
		if (s0 <= c1)
			lo = mid;
		else
			hi = mid;
	}
	uint32_t d = tree_depth(t, i);
	while (tree_depth(t, lo) > d)
		lo = tree_parent(t, lo);
	return lo;
}

static void push_span(struct layout *l, tree_idx node, uint32_t level, int row,
                      int c0, int c1, enum layout_kind kind)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		l->spans = xreallocarray(l->spans, l->cap, sizeof *l->spans);
	}
	l->spans[l->n++] = (struct layout_span){ node, level, row, c0, c1, kind };
}

void layout_compute(struct layout *l, const struct tree *t, const struct layout_params *p)
{
	l->n = 0;
	l->visited = 0;
	l->deeper = 0;
	l->rows = p->height > 0 ? p->height : 0;
	l->row_start = xreallocarray(l->row_start, (size_t)l->rows + 1, sizeof *l->row_start);
	memset(l->row_start, 0, ((size_t)l->rows + 1) * sizeof *l->row_start);
	if (p->width <= 0 || p->height <= 0 || p->zoom >= tree_size(t))
		return;
	int minw = p->min_width < 1 ? 1 : p->min_width;
	uint64_t last_level = (uint64_t)p->scroll + (uint64_t)p->height - 1;
	uint64_t look_level = last_level + LAYOUT_LOOKAHEAD, deepest = 0;

	/* Ancestors of the zoom root, full width. */
	for (tree_idx a = tree_parent(t, p->zoom); a != TREE_NONE; a = tree_parent(t, a)) {
		int row = layout_row_of_level(p, tree_depth(t, a));
		if (row >= 0)
			push_span(l, a, tree_depth(t, a), row, 0, p->width, LAYOUT_ANCESTOR);
	}
	/* The zoom root and its subtree, in preorder: i + 1 descends into i,
	 * end(i) skips i's subtree, so no stack is needed. */
	tree_idx end = tree_end(t, p->zoom);
	unsigned narrow = 0;    /* narrow siblings in a row */
	/* Where the last span of each row ends. Spans of a row come left to
	 * right and never overlap, except in a tree whose sums saturated at
	 * UINT64_MAX (clamped offsets pile up): those are cut to fit. */
	int *row_end = xcalloc((size_t)p->height, sizeof *row_end);
	for (tree_idx i = p->zoom; i < end;) {
		l->visited++;
		int c0, c1;
		cols_inside(t, p, i, &c0, &c1);
		if (c1 - c0 < minw) {
			tree_idx next = tree_end(t, i);
			if (++narrow >= LAYOUT_SKIP_AFTER && i != p->zoom)
				next = skip_narrow(t, p, i, c1);
			i = next;
			continue;
		}
		narrow = 0;
		uint32_t level = tree_depth(t, i);
		if (level > deepest)
			deepest = level;
		int row = layout_row_of_level(p, level);
		if (row >= 0) {
			if (c0 < row_end[row])
				c0 = row_end[row];
			if (c1 - c0 >= minw) {
				push_span(l, i, level, row, c0, c1, LAYOUT_FRAME);
				row_end[row] = c1;
			}
		}
		i = (uint64_t)level < look_level ? i + 1 : tree_end(t, i);
	}
	free(row_end);
	if (deepest > last_level)
		l->deeper = (uint32_t)(deepest - last_level);

	/* Stable counting sort by row; within a row preorder is left to right. */
	size_t *cnt = l->row_start;
	for (size_t k = 0; k < l->n; k++)
		cnt[l->spans[k].row + 1]++;
	for (int r = 0; r < l->rows; r++)
		cnt[r + 1] += cnt[r];
	struct layout_span *sorted = xreallocarray(NULL, l->n ? l->n : 1, sizeof *sorted);
	size_t *pos = xreallocarray(NULL, (size_t)l->rows + 1, sizeof *pos);
	memcpy(pos, cnt, ((size_t)l->rows + 1) * sizeof *pos);
	for (size_t k = 0; k < l->n; k++)
		sorted[pos[l->spans[k].row]++] = l->spans[k];
	free(pos);
	free(l->spans);
	l->spans = sorted;
	l->cap = l->n ? l->n : 1;
}

void layout_reorient(struct layout *l)
{
	l->visited = 0;
	if (l->n == 0 || l->rows <= 0)
		return;
	/* Rows come in reverse order, each row's spans in the same order. */
	struct layout_span *flipped = xreallocarray(NULL, l->n, sizeof *flipped);
	size_t *start = xreallocarray(NULL, (size_t)l->rows + 1, sizeof *start);
	size_t k = 0;
	for (int r = 0; r < l->rows; r++) {
		int from = l->rows - 1 - r;
		start[r] = k;
		for (size_t j = l->row_start[from]; j < l->row_start[from + 1]; j++) {
			flipped[k] = l->spans[j];
			flipped[k++].row = r;
		}
	}
	start[l->rows] = k;
	free(l->spans);
	free(l->row_start);
	l->spans = flipped;
	l->cap = l->n;
	l->row_start = start;
}

bool layout_node_cols(const struct tree *t, const struct layout_params *p, tree_idx i,
                      int *col0, int *col1)
{
	if (i >= tree_size(t) || p->width <= 0)
		return false;
	if (i != p->zoom && tree_contains(t, i, p->zoom)) {
		*col0 = 0;
		*col1 = p->width;
		return true;
	}
	if (!tree_contains(t, p->zoom, i))
		return false;
	cols_inside(t, p, i, col0, col1);
	return *col1 - *col0 >= (p->min_width < 1 ? 1 : p->min_width);
}

tree_idx layout_child_at(const struct tree *t, const struct layout_params *p, tree_idx i, int col)
{
	if (i >= tree_size(t))
		return TREE_NONE;
	if (i != p->zoom && tree_contains(t, i, p->zoom)) {
		/* An ancestor row: its only child in view leads to the zoom root. */
		tree_idx c = p->zoom;
		while (tree_parent(t, c) != i)
			c = tree_parent(t, c);
		return c;
	}
	if (!tree_contains(t, p->zoom, i))
		return TREE_NONE;
	tree_idx best = TREE_NONE, end = tree_end(t, i);
	long best_dist = 0;
	int minw = p->min_width < 1 ? 1 : p->min_width;
	unsigned narrow = 0;
	for (tree_idx c = tree_first_child(t, i), next; c != TREE_NONE && c < end; c = next) {
		int c0, c1;
		cols_inside(t, p, c, &c0, &c1);
		next = tree_end(t, c);
		if (c1 - c0 < minw) {
			/* As in layout_compute: runs of undrawn siblings are skipped
			 * by bisection, so a million children cost O(W log n). */
			if (++narrow >= LAYOUT_SKIP_AFTER)
				next = skip_narrow(t, p, c, c1);
			continue;
		}
		narrow = 0;
		if (col >= c0 && col < c1)
			return c;
		long d = col < c0 ? (long)c0 - col : (long)col - (c1 - 1);
		if (best == TREE_NONE || d < best_dist) {
			best = c;
			best_dist = d;
		}
	}
	return best;
}

static const struct layout_span *row_find(const struct layout *l, int row, int col)
{
	if (row < 0 || row >= l->rows)
		return NULL;
	size_t lo = l->row_start[row], hi = l->row_start[row + 1];
	while (lo < hi) {   /* first span with col1 > col */
		size_t mid = lo + (hi - lo) / 2;
		if (l->spans[mid].col1 <= col)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->row_start[row + 1] ? &l->spans[lo] : NULL;
}

const struct layout_span *layout_span_at(const struct layout *l, int row, int col)
{
	const struct layout_span *s = row_find(l, row, col);
	return s && s->col0 <= col ? s : NULL;
}

const struct layout_span *layout_neighbor(const struct layout *l, tree_idx i, int row, int dir)
{
	if (row < 0 || row >= l->rows)
		return NULL;
	size_t lo = l->row_start[row], hi = l->row_start[row + 1];
	for (size_t k = lo; k < hi; k++) {
		if (l->spans[k].node != i)
			continue;
		if (dir < 0)
			return k > lo ? &l->spans[k - 1] : NULL;
		return k + 1 < hi ? &l->spans[k + 1] : NULL;
	}
	return NULL;
}
