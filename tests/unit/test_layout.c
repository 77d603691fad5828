#include "config.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "layout.h"
#include "tree.h"
#include "tap.h"
#include "treeutil.h"

/* "name@row:c0-c1" for every span, in layout order. */
static char *spans(const struct tree *t, const struct layout *l)
{
	static char buf[2048];
	buf[0] = 0;
	for (size_t k = 0; k < l->n; k++) {
		const struct layout_span *s = &l->spans[k];
		char one[96];
		snprintf(one, sizeof one, "%s%s%s@%d:%d-%d", k ? " " : "",
		         s->kind == LAYOUT_ANCESTOR ? "^" : "", tree_name(t, s->node), s->row, s->col0, s->col1);
		strcat(buf, one);
	}
	return buf;
}

static tree_idx find(const struct tree *t, const char *name)
{
	for (tree_idx i = 0; i < tree_size(t); i++)
		if (strcmp(tree_name(t, i), name) == 0)
			return i;
	return TREE_NONE;
}

int main(void)
{
	struct tree t;
	struct layout l;
	layout_init(&l);
	tree_init(&t);
	add(&t, "a;b", 6);
	add(&t, "a;c", 2);
	add(&t, "d", 4);
	tree_finalize(&t, TREE_ORDER_NAME);
	/* total 12: a [0,8) = b [0,6) + c [6,8); d [8,12) */
	struct layout_params p = { .zoom = TREE_ROOT, .width = 12, .height = 4,
	                           .orient = LAYOUT_FLAME, .scroll = 0, .min_width = 1 };
	layout_compute(&l, &t, &p);
	is_str(spans(&t, &l), "b@1:0-6 c@1:6-8 a@2:0-8 d@2:8-12 all@3:0-12",
	       "flame: root on the bottom row, one column per sample");

	layout_reorient(&l);
	is_str(spans(&t, &l), "all@0:0-12 a@1:0-8 d@1:8-12 b@2:0-6 c@2:6-8",
	       "reorient: the flame layout turned into the icicle one");
	ok(layout_span_at(&l, 2, 7) && layout_span_at(&l, 2, 7)->node == find(&t, "c") &&
	   layout_span_at(&l, 3, 0) == NULL, "reorient: rows are indexed again");
	layout_reorient(&l);
	is_str(spans(&t, &l), "b@1:0-6 c@1:6-8 a@2:0-8 d@2:8-12 all@3:0-12", "reorient twice: back to flame");

	p.orient = LAYOUT_ICICLE;
	layout_compute(&l, &t, &p);
	is_str(spans(&t, &l), "all@0:0-12 a@1:0-8 d@1:8-12 b@2:0-6 c@2:6-8", "icicle: root on top");

	/* W=5: a floor(8*5/12)=3, b floor(6*5/12)=2, c [2,3), d [3,5). */
	p.width = 5;
	layout_compute(&l, &t, &p);
	is_str(spans(&t, &l), "all@0:0-5 a@1:0-3 d@1:3-5 b@2:0-2 c@2:2-3", "columns are floor(x*W/T)");
	p.min_width = 2;
	layout_compute(&l, &t, &p);
	is_str(spans(&t, &l), "all@0:0-5 a@1:0-3 d@1:3-5 b@2:0-2", "min_width hides narrow frames");
	p.min_width = 1;

	/* Zoom into a: T=8, b [0,9), c [9,12); the root is an ancestor. */
	p.width = 12;
	p.zoom = find(&t, "a");
	layout_compute(&l, &t, &p);
	is_str(spans(&t, &l), "^all@0:0-12 a@1:0-12 b@2:0-9 c@2:9-12", "zoom: ancestors full width, zoom root full width");
	int c0, c1;
	ok(layout_node_cols(&t, &p, find(&t, "c"), &c0, &c1) && c0 == 9 && c1 == 12, "node_cols inside the zoom");
	ok(layout_node_cols(&t, &p, TREE_ROOT, &c0, &c1) && c0 == 0 && c1 == 12, "node_cols of an ancestor");
	ok(!layout_node_cols(&t, &p, find(&t, "d"), &c0, &c1), "node_cols outside the zoom");
	is_int(layout_child_at(&t, &p, TREE_ROOT, 11), find(&t, "a"), "child_at of an ancestor leads to the zoom root");
	is_int(layout_child_at(&t, &p, find(&t, "a"), 10), find(&t, "c"), "child_at under a column");
	is_int(layout_child_at(&t, &p, find(&t, "b"), 3), TREE_NONE, "child_at of a leaf");

	/* Scrolling: height 2 shows levels scroll..scroll+1. */
	p.zoom = TREE_ROOT;
	p.orient = LAYOUT_FLAME;
	p.height = 2;
	p.scroll = 1;
	layout_compute(&l, &t, &p);
	is_str(spans(&t, &l), "b@0:0-6 c@0:6-8 a@1:0-8 d@1:8-12", "scroll hides the root level");
	is_int(layout_row_of_level(&p, 0), -1, "level above the area has no row");
	is_int(layout_row_of_level(&p, 2), 0, "deepest shown level is the top row (flame)");
	layout_scroll_to(&p, 0);
	is_int(p.scroll, 0, "scroll_to a level below");
	layout_scroll_to(&p, 5);
	is_int(p.scroll, 4, "scroll_to a level above");

	/* Queries on a computed layout. */
	p.height = 4;
	p.scroll = 0;
	layout_compute(&l, &t, &p);
	const struct layout_span *s = layout_span_at(&l, 1, 7);
	ok(s && s->node == find(&t, "c"), "span_at finds c");
	ok(layout_span_at(&l, 1, 9) == NULL, "span_at on an empty cell");
	s = layout_neighbor(&l, find(&t, "b"), 1, +1);
	ok(s && s->node == find(&t, "c"), "neighbor to the right");
	ok(layout_neighbor(&l, find(&t, "b"), 1, -1) == NULL, "no neighbor left of the first span");
	p.width = 0;
	layout_compute(&l, &t, &p);
	is_int((long long)l.n, 0, "zero width: no spans");
	p.width = 1;
	p.height = 1;
	layout_compute(&l, &t, &p);
	is_str(spans(&t, &l), "all@0:0-1", "1x1 area");
	tree_free(&t);

	/* Work follows the screen: 1000 narrow children, each with a deep
	 * subtree, next to one wide child. */
	tree_init(&t);
	char name[64];
	for (int i = 0; i < 1000; i++) {
		snprintf(name, sizeof name, "big;small%04d;x;y;z;w;v;u;s;r", i);
		add(&t, name, 1);
	}
	add(&t, "big;hot;leaf", 1000000);
	tree_finalize(&t, TREE_ORDER_NAME);
	struct layout_params q = { .zoom = TREE_ROOT, .width = 80, .height = 20,
	                           .orient = LAYOUT_FLAME, .min_width = 1 };
	layout_compute(&l, &t, &q);
	/* hot [0,79); small0000..0998 have no whole column; small0999 ends
	 * at 1001000 -> column 80, so it gets [79,80) and its 8 descendants
	 * are drawn too. Visited: all, big, hot, leaf; then small0000..0007,
	 * all within column 79, after which the rest of the run is bisected:
	 * the last node starting in column 79 is small0999's deepest
	 * descendant, whose depth-2 ancestor small0999 comes next; then its 8
	 * descendants: 4 + 8 + 1 + 8 = 21 (stepping through the siblings one
	 * by one would visit 1012). */
	is_int((long long)tree_size(&t), 9004, "9004 nodes in the tree");
	is_int((long long)l.visited, 21, "only the visible part and a bisected sibling run are visited");
	is_int((long long)l.n, 13, "drawn: all, big, hot, leaf, small0999 and its 8 descendants");
	tree_free(&t);

	/* The bisection skips exactly what stepping would: a naive reference
	 * (every node whose own and ancestors' columns are whole, on a
	 * visible level) must give the same spans, on trees with long runs of
	 * narrow siblings of mixed widths, for several widths and zooms. */
	{
		unsigned seed = 12345;
		for (int round = 0; round < 40; round++) {
			tree_init(&t);
			for (int i = 0; i < 400; i++) {
				seed = seed * 1103515245u + 12345u;
				unsigned r = seed >> 16;
				snprintf(name, sizeof name, "r;p%u;c%03u;d%u", r % 3, (r / 3) % 300, (r / 900) % 4);
				add(&t, name, r % 7 == 0 ? 1 + r % 500 : 1);
			}
			tree_finalize(&t, round % 2 ? TREE_ORDER_WEIGHT : TREE_ORDER_NAME);
			struct layout_params rp = { .zoom = round % 3 == 0 ? 2 : TREE_ROOT,
			                            .width = 7 + round * 5, .height = 6,
			                            .orient = LAYOUT_ICICLE, .min_width = 1 + round % 3 };
			layout_compute(&l, &t, &rp);
			size_t want = 0, same = 1;
			for (tree_idx i = rp.zoom; i < tree_end(&t, rp.zoom); i++) {
				bool drawn = true;
				for (tree_idx a = i; drawn; a = tree_parent(&t, a)) {
					int a0, a1;
					drawn = layout_node_cols(&t, &rp, a, &a0, &a1);
					if (a == rp.zoom)
						break;
				}
				if (!drawn || layout_row_of_level(&rp, tree_depth(&t, i)) < 0)
					continue;
				want++;
				bool found = false;
				for (size_t k = 0; k < l.n; k++)
					found |= l.spans[k].node == i;
				same &= found;
			}
			size_t anc = 0;
			for (size_t k = 0; k < l.n; k++)
				anc += l.spans[k].kind == LAYOUT_ANCESTOR;
			if (!ok(same && want == l.n - anc, "bisection = reference, round %d (%zu spans)", round, want))
				printf("#   layout %zu spans, reference %zu\n", l.n, want);
			/* Turned over, the same layout is the flame one, span for
			 * span and row index for row index; scrolled too. */
			rp.scroll = (uint32_t)(round % 4 == 3);
			layout_compute(&l, &t, &rp);
			layout_reorient(&l);
			struct layout fl;
			layout_init(&fl);
			rp.orient = LAYOUT_FLAME;
			layout_compute(&fl, &t, &rp);
			bool equal = fl.n == l.n && fl.rows == l.rows;
			for (size_t k = 0; equal && k < l.n; k++)
				equal = memcmp(&fl.spans[k], &l.spans[k], sizeof fl.spans[k]) == 0;
			for (int r = 0; equal && r <= l.rows; r++)
				equal = fl.row_start[r] == l.row_start[r];
			ok(equal, "reorient = compute in the other orientation, round %d", round);
			layout_free(&fl);
			tree_free(&t);
		}
	}

	/* Fractional counts use the same arithmetic. */
	tree_init(&t);
	struct tree_frame fa = { "a", 1 }, fb = { "b", 1 };
	tree_add_stack_dec(&t, &fa, 1, (struct tree_dec){ 75, 2, false, false });
	tree_add_stack_dec(&t, &fb, 1, (struct tree_dec){ 25, 2, false, false });
	tree_finalize(&t, TREE_ORDER_NAME);
	q.width = 8;
	q.height = 2;
	q.orient = LAYOUT_ICICLE;
	layout_compute(&l, &t, &q);
	is_str(spans(&t, &l), "all@0:0-8 a@1:0-6 b@1:6-8", "fractional counts");
	tree_free(&t);

	/* Levels beyond the area: all (0), a (1) on screen in 2 rows; a;b;c;d;e
	 * goes 4 levels further (b..e at 2..5). A frame too narrow to draw
	 * does not count: 0;o;p;q;r;s, 1 sample of 1001 and first by name,
	 * spans columns [0, floor(8 / 1001)) = [0, 0): its level 6 is not
	 * "deeper". */
	tree_init(&t);
	add(&t, "a;b;c;d;e", 1000);
	add(&t, "0;o;p;q;r;s", 1);
	tree_finalize(&t, TREE_ORDER_NAME);
	q.width = 8;
	q.height = 2;
	q.scroll = 0;
	q.orient = LAYOUT_FLAME;
	layout_compute(&l, &t, &q);
	is_int((long long)l.deeper, 4, "4 levels with frames beyond the area (b..e)");
	q.scroll = 3;       /* levels 3, 4 shown: e (5) is 1 beyond */
	layout_compute(&l, &t, &q);
	is_int((long long)l.deeper, 1, "scrolled up 3: e is the 1 level beyond");
	q.height = 6;
	q.scroll = 0;
	layout_compute(&l, &t, &q);
	is_int((long long)l.deeper, 0, "all 6 levels on screen: none beyond");
	tree_free(&t);
	layout_free(&l);
	return done_testing();
}
