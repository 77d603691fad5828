/* Unit tests of the views: top table, reverse, focus, callers (sandwich),
 * hide, merge recursion, drop, the transform stack, diff. Every expectation
 * is worked out by hand from the fixture below (see the comments). */
#include "config.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diff.h"
#include "folded.h"
#include "rx.h"
#include "tableview.h"
#include "toptable.h"
#include "transform.h"
#include "tree.h"
#include "tap.h"
#include "treeutil.h"

/* The fixture, 16 samples:
 *   idle 5
 *   main;f 1          main;f is f's outermost occurrence, total 1+3+2 = 6
 *   main;f;g 3
 *   main;f;f;g 2      direct recursion: the inner f is nested in main;f
 *   main;h 1          main;h total 5
 *   main;h;f 4        a second outermost f, total 4 */
static const char *const FIXTURE =
	"main;f;g 3\nmain;f;f;g 2\nmain;h;f 4\nmain;h 1\nidle 5\nmain;f 1\n";

static void load(struct tree *t, const char *text, struct tree *before)
{
	tree_init(t);
	struct folded_reader *r = folded_reader_new(t);
	if (before)
		folded_reader_set_before(r, before);
	folded_reader_feed(r, text, strlen(text));
	folded_reader_free(r);
	tree_finalize(t, TREE_ORDER_NAME);
	if (before)
		tree_finalize(before, TREE_ORDER_NAME);
}

static strtab_id id_of(const struct tree *t, const char *name)
{
	return (strtab_id)strtab_find(&t->names, name, strlen(name));
}

/* "name:self/total/sites" per row, space separated. */
static const char *rows_text(const struct toptable *tt)
{
	static char buf[1024];
	buf[0] = 0;
	for (size_t k = 0; k < tt->n; k++) {
		char one[128];
		const struct toptable_row *r = &tt->rows[k];
		snprintf(one, sizeof one, "%s%s:%llu/%llu/%u", k ? " " : "",
		         strtab_str(&tt->t->names, r->name), (unsigned long long)r->self.u,
		         (unsigned long long)r->total.u, r->sites);
		strcat(buf, one);
	}
	return buf;
}

static tree_idx find(const struct tree *t, const char *path)
{
	char p[256];
	size_t n = strlen(path);
	memcpy(p, path, n + 1);
	for (size_t k = 0; k < n; k++)
		if (p[k] == ';')
			p[k] = '\0';
	return transform_find_path(t, p, n);
}

static void test_toptable(const struct tree *t)
{
	struct toptable tt;
	/* f: self 1 + 0 + 4 = 5; total: main;f 6 + main;h;f 4 = 10 (the
	 * nested main;f;f is not added again); callers main, f, h = 3.
	 * g: self 3 + 2, total 5, callers {f}. idle 5/5 from all; h 1/5;
	 * main 0/11. By self, ties by total then name: f g idle h main. */
	toptable_compute(&tt, t, TREE_ROOT, TOPTABLE_SELF);
	is_str(rows_text(&tt), "f:5/10/3 g:5/5/1 idle:5/5/1 h:1/5/1 main:0/11/1",
	       "table by self: recursion counted once, callers distinct");
	toptable_sort(&tt, TOPTABLE_TOTAL);
	is_str(rows_text(&tt), "main:0/11/1 f:5/10/3 g:5/5/1 idle:5/5/1 h:1/5/1", "table by total");
	toptable_sort(&tt, TOPTABLE_NAME);
	is_str(rows_text(&tt), "f:5/10/3 g:5/5/1 h:1/5/1 idle:5/5/1 main:0/11/1", "table by name");
	ok(fabs(toptable_percent(&tt, tt.rows[0].total) - 62.5) < 1e-9, "f total is 10/16 = 62.5%%");
	toptable_free(&tt);

	/* Zoomed into main;h (5 samples): h 1/5 and f 4/4; f's caller is h. */
	toptable_compute(&tt, t, find(t, "main;h"), TOPTABLE_SELF);
	is_str(rows_text(&tt), "f:4/4/1 h:1/5/1", "table inside a zoom");
	ok(fabs(toptable_percent(&tt, tt.rows[0].self) - 80.0) < 1e-9, "f self is 4/5 = 80%% of the zoom");
	toptable_free(&tt);

	/* Recursion deeper than the zoom: zoomed at main;f, the nested f's
	 * total (2) is inside the zoom root f (6), counted once: f 1/6. */
	toptable_compute(&tt, t, find(t, "main;f"), TOPTABLE_NAME);
	is_str(rows_text(&tt), "f:1/6/2 g:5/5/1", "table zoomed on a recursive frame");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	toptable_write(&tt, 1, f);
	fclose(f);
	is_str(buf, "SELF   SELF% TOTAL  TOTAL% CALLERS  FUNCTION\n"
	            "   1  16.67%     6 100.00%       2  f\n", "table as text, limited to 1 row");
	free(buf);
	toptable_free(&tt);
}

static void test_transforms(const struct tree *t)
{
	struct tree d;
	/* Reverse: each self count along its path leaf first. */
	transform_reverse(t, TREE_ORDER_NAME, &d);
	is_folded(&d, "f;h;main 4\nf;main 1\ng;f;f;main 2\ng;f;main 3\nh;main 1\nidle 5\n", "reverse");
	tree_free(&d);

	/* Focus f: main;f's subtree plus main;h;f (self 4) under one f. */
	transform_focus(t, id_of(t, "f"), TREE_ORDER_NAME, &d);
	is_folded(&d, "f 5\nf;f;g 2\nf;g 3\n", "focus merges all call sites, recursion once");
	is_int((long long)tree_node(&d, TREE_ROOT)->total.u, 10, "focus total = table total of f");
	tree_free(&d);

	/* Callers of f: main;f total 6, main;h;f total 4, reversed. */
	transform_callers(t, id_of(t, "f"), TREE_ORDER_NAME, &d);
	is_folded(&d, "f;h;main 4\nf;main 6\n", "callers of f (sandwich top)");
	tree_free(&d);
	transform_callers(t, id_of(t, "g"), TREE_ORDER_NAME, &d);
	is_folded(&d, "g;f;f;main 2\ng;f;main 3\n", "callers of g: both paths");
	tree_free(&d);

	/* Hide ^h$: main;h's own sample goes to main, its f joins main;f. */
	struct rx *re = rx_new("^h$", 3, RX_CASE_SENSITIVE, NULL, 0);
	transform_hide(t, re, TREE_ORDER_NAME, &d);
	rx_free(re);
	is_folded(&d, "idle 5\nmain 1\nmain;f 5\nmain;f;f;g 2\nmain;f;g 3\n", "hide re-attaches children");
	is_int((long long)tree_node(&d, TREE_ROOT)->total.u, 16, "hide keeps every sample");
	tree_free(&d);

	transform_merge_recursion(t, TREE_ORDER_NAME, &d);
	is_folded(&d, "idle 5\nmain;f 1\nmain;f;g 5\nmain;h 1\nmain;h;f 4\n", "merge direct recursion");
	tree_free(&d);

	transform_drop(t, find(t, "main;f"), TREE_ORDER_NAME, &d);
	is_folded(&d, "idle 5\nmain;h 1\nmain;h;f 4\n", "drop a subtree");
	is_int((long long)tree_node(&d, TREE_ROOT)->total.u, 10, "drop removes its 6 samples");
	tree_free(&d);

	/* Indirect recursion is kept by merge recursion: f;g;f stays. */
	struct tree r;
	load(&r, "f;g;f 1\nf;f 2\n", NULL);
	transform_merge_recursion(&r, TREE_ORDER_NAME, &d);
	is_folded(&d, "f 2\nf;g;f 1\n", "merge recursion keeps f;g;f, f;f becomes f");
	tree_free(&d);
	tree_free(&r);
}

static void test_chart(void)
{
	/* A flame chart a;b, c, a;b: the two a's stay apart after hiding c
	 * (c's sample goes to the root): nodes all, a, b, a, b. */
	struct tree t, d;
	tree_init(&t);
	t.chart = true;
	struct tree_frame ab[2] = { { "a", 1 }, { "b", 1 } }, c[1] = { { "c", 1 } };
	tree_add_stack(&t, ab, 2, 1);
	tree_add_stack(&t, c, 1, 1);
	tree_add_stack(&t, ab, 2, 1);
	tree_finalize(&t, TREE_ORDER_INPUT);
	struct rx *re = rx_new("^c$", 3, RX_CASE_SENSITIVE, NULL, 0);
	transform_hide(&t, re, TREE_ORDER_INPUT, &d);
	rx_free(re);
	is_int((long long)tree_size(&d), 5, "hide on a flame chart keeps time order (no merge)");
	ok(d.chart, "the result is a chart");
	is_int((long long)tree_node(&d, TREE_ROOT)->self.u, 1, "hidden c's sample is on the root");
	tree_free(&d);
	tree_free(&t);
}

static void test_stack(const struct tree *t)
{
	struct transform_stack s;
	char err[128];
	transform_stack_init(&s, t, NULL, TREE_ORDER_NAME);
	ok(transform_stack_tree(&s) == t, "empty stack shows the base");
	struct transform tr = transform_make(TRANSFORM_HIDE, "^h$", 3);
	ok(transform_stack_push(&s, &tr, err, sizeof err), "push hide");
	tr = transform_make(TRANSFORM_MERGE_RECURSION, NULL, 0);
	ok(transform_stack_push(&s, &tr, err, sizeof err), "push merge recursion");
	/* hide result with f;f;g merged: main;f;g 3 + 2. */
	is_folded(transform_stack_tree(&s), "idle 5\nmain 1\nmain;f 5\nmain;f;g 5\n", "two transforms");
	char label[64];
	transform_label(&s.items[0], label, sizeof label);
	is_str(label, "hide ^h$", "label of hide");
	tr = transform_make_drop(transform_stack_tree(&s), find(transform_stack_tree(&s), "main;f;g"));
	transform_label(&tr, label, sizeof label);
	is_str(label, "drop g", "label of drop");
	ok(transform_stack_push(&s, &tr, err, sizeof err), "push drop main;f;g");
	is_folded(transform_stack_tree(&s), "idle 5\nmain 1\nmain;f 5\n", "dropped");
	ok(transform_stack_pop(&s), "undo drop");
	is_folded(transform_stack_tree(&s), "idle 5\nmain 1\nmain;f 5\nmain;f;g 5\n", "undo restores");
	ok(transform_stack_pop(&s), "undo merge recursion");
	is_folded(transform_stack_tree(&s), "idle 5\nmain 1\nmain;f 5\nmain;f;f;g 2\nmain;f;g 3\n",
	          "undo recomputes from the base");
	ok(transform_stack_pop(&s), "undo hide");
	ok(transform_stack_tree(&s) == t, "back to the base");
	ok(!transform_stack_pop(&s), "nothing left to undo");
	tr = transform_make(TRANSFORM_FOCUS, "nosuch", 6);
	ok(!transform_stack_push(&s, &tr, err, sizeof err), "focus on a missing name fails");
	is_str(err, "no frame named nosuch", "with a reason");
	tr = transform_make(TRANSFORM_HIDE, "(", 1);
	ok(!transform_stack_push(&s, &tr, err, sizeof err), "a bad regex fails");
	is_int((long long)s.n, 0, "failed pushes leave the stack empty");
	transform_stack_free(&s);
}

static void test_diff(void)
{
	/* difffolded input: BEFORE main;f 4, main;g 2; AFTER main;f 6,
	 * main;h 1. AFTER node f: self delta +2 (the largest), h +1, main 0. */
	struct tree a, b;
	tree_init(&b);
	load(&a, "main;f 4 6\nmain;g 2 0\nmain;h 0 1\n", &b);
	is_int((long long)tree_node(&a, TREE_ROOT)->total.u, 7, "widths from AFTER (6 + 1)");
	is_int((long long)tree_node(&b, TREE_ROOT)->total.u, 6, "BEFORE gets the first column");
	struct diff d;
	diff_compute(&d, &a, &b, false, false);
	tree_idx f = find(&a, "main;f"), h = find(&a, "main;h"), m = find(&a, "main");
	ok(d.before_self[f] == 4 && d.before_total[m] == 6, "before counts mapped by path");
	ok(diff_self_delta(&d, &a, f) == 2 && diff_self_delta(&d, &a, h) == 1, "self deltas +2, +1");
	ok(d.max_delta == 2, "largest |self delta| is 2 (f +2; g -2, a zero-width AFTER node)");
	struct palette_rgb c = diff_color(&d, &a, f);
	ok(c.r == 255 && c.g == 40 && c.b == 40, "f grew most: full red (215 - 175)");
	c = diff_color(&d, &a, h);
	ok(c.r == 255 && c.g == 127 && c.b == 127, "h grew half as much: 215 - 87.5 -> 127");
	c = diff_color(&d, &a, m);
	ok(c.r == 230 && c.g == 230 && c.b == 230, "main unchanged: pale grey");
	char buf[128];
	diff_describe(&d, &a, TREE_ROOT, buf, sizeof buf);
	is_str(buf, "before 6  after 7  delta +1 (+16.67%)", "status text: 6 -> 7 is +1/6");
	diff_free(&d);
	diff_compute(&d, &a, &b, false, true);
	c = diff_color(&d, &a, f);
	ok(c.r == 40 && c.g == 40 && c.b == 255, "--negate: growth is blue");
	diff_free(&d);
	/* --normalize: BEFORE x 7/6, so f's before is 4 x 7/6 = 4.667. */
	diff_compute(&d, &a, &b, true, false);
	ok(fabs(d.before_self[f] - 28.0 / 6.0) < 1e-9, "normalize scales BEFORE to AFTER's total");
	diff_describe(&d, &a, TREE_ROOT, buf, sizeof buf);
	is_str(buf, "before 7  after 7  delta +0 (+0.00%)", "normalized totals are equal");
	diff_free(&d);
	tree_free(&a);
	tree_free(&b);

	/* Two separate trees (tflame --diff BEFORE AFTER): a frame only in
	 * AFTER has before 0 and "new" in the text. */
	load(&a, "x;y 3\n", NULL);
	load(&b, "x 2\n", NULL);
	diff_compute(&d, &a, &b, false, false);
	diff_describe(&d, &a, find(&a, "x;y"), buf, sizeof buf);
	is_str(buf, "before 0  after 3  delta +3 (new)", "a new frame");
	diff_describe(&d, &a, find(&a, "x"), buf, sizeof buf);
	is_str(buf, "before 2  after 3  delta +1 (+50.00%)", "x: 2 -> 3");
	diff_free(&d);
	tree_free(&a);
	tree_free(&b);
}

static void test_diff_stack(void)
{
	/* Transforms apply to both trees of a diff: focus y keeps BEFORE's y. */
	struct tree a, b;
	load(&a, "x;y 3\nz 1\n", NULL);
	load(&b, "x;y 1\nw;y 2\n", NULL);
	struct transform_stack s;
	char err[64];
	transform_stack_init(&s, &a, &b, TREE_ORDER_NAME);
	struct transform tr = transform_make(TRANSFORM_FOCUS, "y", 1);
	ok(transform_stack_push(&s, &tr, err, sizeof err), "focus in a diff");
	is_folded(transform_stack_tree2(&s), "y 3\n", "BEFORE focused too (1 + 2)");
	tr = transform_make(TRANSFORM_FOCUS, "z", 1);
	ok(transform_stack_push(&s, &tr, err, sizeof err) == false, "z is gone after focus y");
	tr = transform_make_drop(&a, find(&a, "z"));
	transform_stack_pop(&s);
	ok(transform_stack_push(&s, &tr, err, sizeof err), "drop z: only in AFTER");
	is_folded(transform_stack_tree2(&s), "w;y 2\nx;y 1\n", "BEFORE carried over unchanged");
	transform_stack_free(&s);
	tree_free(&a);
	tree_free(&b);
}

static void test_tableview(const struct tree *t)
{
	/* Rows by self: f g idle h main (see test_toptable). */
	struct tableview *tv = tableview_new(TOPTABLE_SELF);
	tableview_load(tv, t, TREE_ROOT);
	strtab_id id;
	ok(tableview_selected(tv, &id) && id == id_of(t, "f"), "table view starts on the first row");
	char err[128], st[256];
	/* Smart case: "i" ignores case and matches idle and main. */
	ok(tableview_filter(tv, "i", err, sizeof err), "filter i");
	tableview_status(tv, st, sizeof st);
	ok(strncmp(st, "2 of 5 functions", 16) == 0, "filter i: idle and main (%s)", st);
	ok(tableview_filter(tv, "I", err, sizeof err), "filter I");
	tableview_status(tv, st, sizeof st);
	ok(strncmp(st, "0 of 5 functions", 16) == 0, "filter I is case-sensitive: no row (%s)", st);
	ok(!tableview_selected(tv, &id), "no row, no selection");
	ok(!tableview_filter(tv, "(", err, sizeof err), "a bad regex is refused");
	ok(tableview_filter(tv, "", err, sizeof err), "no filter");
	tableview_move(tv, 3);
	ok(tableview_selected(tv, &id) && id == id_of(t, "h"), "three rows down: h");
	tableview_sort(tv, TOPTABLE_NAME);
	ok(tableview_selected(tv, &id) && id == id_of(t, "h"), "re-sorting keeps h selected");
	tableview_move(tv, 100);
	ok(tableview_selected(tv, &id) && id == id_of(t, "main"), "moves stop at the last row");
	tableview_free(tv);
}

int main(void)
{
	struct tree t;
	load(&t, FIXTURE, NULL);
	test_toptable(&t);
	test_transforms(&t);
	test_chart();
	test_stack(&t);
	test_diff();
	test_diff_stack();
	test_tableview(&t);
	tree_free(&t);
	return done_testing();
}
