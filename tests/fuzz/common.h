/* Shared by the libFuzzer harnesses: the checks every loaded tree gets.
 * Not part of the program; built only by tests/fuzz/run.sh (make fuzz). */
#ifndef TFLAME_FUZZ_COMMON_H
#define TFLAME_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "layout.h"
#include "printer.h"
#include "search.h"
#include "text.h"
#include "tree.h"

/* /dev/null, opened once: the outputs are exercised, not compared. */
static FILE *fuzz_null(void)
{
	static FILE *f;
	if (!f)
		f = fopen("/dev/null", "w");
	if (!f)
		abort();
	return f;
}

/* Aborts (a finding) unless the finalized tree keeps its invariants. */
static void fuzz_check_tree(const struct tree *t)
{
	if (tree_size(t) == 0 || tree_end(t, TREE_ROOT) != tree_size(t))
		abort();
	for (tree_idx i = 1; i < tree_size(t); i++) {
		tree_idx p = tree_parent(t, i);
		if (p >= i || tree_end(t, i) > tree_end(t, p) || tree_end(t, i) <= i ||
		    tree_depth(t, i) != tree_depth(t, p) + 1)
			abort();
	}
}

/* Everything done with a finalized tree: folded output, --print in both
 * orientations at a few widths and zooms, layout queries, and the text
 * functions on every name (limited, to keep executions fast). */
static void fuzz_use_finalized(const struct tree *t, unsigned sel)
{
	fuzz_check_tree(t);
	FILE *null = fuzz_null();
	if (!t->chart)
		tree_write_folded(t, null);
	static const int widths[] = { 1, 2, 3, 7, 80, 253 };
	tree_idx n = (tree_idx)tree_size(t);
	/* A search for the exact name of a fuzzed frame (quoting, NUL bytes,
	 * invalid UTF-8 in the regex), finished, then used by --print. */
	struct search *srch = NULL;
	if (n > 1) {
		tree_idx pick = 1 + (tree_idx)(sel % (n - 1));
		srch = search_new_exact(t, t->nodes[pick].name);
		search_run(srch, 0);
		if (!search_done(srch) || !search_matches(srch, pick) || search_count(srch) == 0)
			abort();
		for (tree_idx i = search_first(srch); i != TREE_NONE; i = search_next(srch, i))
			if (!search_matches(srch, i) || search_ordinal(srch, i) == 0)
				abort();
		search_total(srch, TREE_ROOT);
	}
	tree_idx zooms[3] = { TREE_ROOT, n > 1 ? 1 : 0, n > 2 ? (tree_idx)(sel % n) : 0 };
	for (int z = 0; z < 3; z++) {
		struct printer_options po = {
			.width = widths[(sel / 3 + (unsigned)z) % 6],
			.orient = z & 1 ? LAYOUT_FLAME : LAYOUT_ICICLE,
			.zoom = zooms[z], .min_width = 1 + (int)((sel >> 4) & 1),
			.search = z == 1 ? srch : NULL,
		};
		printer_print(t, &po, null);
		struct layout l;
		layout_init(&l);
		struct layout_params p = { .zoom = zooms[z], .width = po.width, .height = 5 + z,
		                           .orient = po.orient, .scroll = sel & 3, .min_width = 1 };
		layout_compute(&l, t, &p);
		for (size_t k = 0; k < l.n; k++) {
			const struct layout_span *sp = &l.spans[k];
			if (sp->col0 < 0 || sp->col1 > p.width || sp->col1 <= sp->col0 ||
			    sp->row < 0 || sp->row >= p.height)
				abort();
			if (layout_span_at(&l, sp->row, sp->col0) != sp)
				abort();
			layout_neighbor(&l, sp->node, sp->row, 1);
			layout_child_at(t, &p, sp->node, sp->col0);
		}
		layout_scroll_to(&p, tree_depth(t, n - 1));
		layout_free(&l);
	}
	search_free(srch);
	char out[TEXT_FIT_BYTES(40)];
	for (tree_idx i = 0; i < n && i < 64; i++) {
		const char *s = tree_name(t, i);
		size_t len = tree_name_len(t, i);
		int cols = (int)((sel + i) % 40);
		int w = text_fit(s, len, cols, out, sizeof out);
		if (w > cols && cols >= 3)
			abort();
		text_fit_middle(s, len, cols, out, sizeof out);
		text_sanitize(s, len, out, 1 + (sel + i) % sizeof out);
		/* The display form never holds a byte a terminal interprets. */
		for (const unsigned char *c = (const unsigned char *)out; *c; c++)
			if (*c < 0x20 || *c == 0x7f)
				abort();
		text_width(s, len);
	}
}

/* fuzz_use_finalized after loading: finalizes in the order sel picks. */
__attribute__((unused))
static void fuzz_use_tree(struct tree *t, unsigned sel)
{
	static const enum tree_order orders[] = { TREE_ORDER_NAME, TREE_ORDER_WEIGHT, TREE_ORDER_INPUT };
	tree_finalize(t, orders[sel % 3]);
	fuzz_use_finalized(t, sel);
}

/* Feeds s[0..len) to a reader in two blocks, split after the k-th newline;
 * the first block is a copy, wiped after use, as a stream buffer would be
 * overwritten before the next block comes. */
__attribute__((unused))
static void fuzz_feed_split(void (*feed)(void *r, const char *buf, size_t n), void *r,
                            const char *s, size_t len, unsigned k)
{
	size_t cut = 0;
	for (; k > 0 && cut < len; k--) {
		const char *nl = memchr(s + cut, '\n', len - cut);
		cut = nl ? (size_t)(nl - s) + 1 : len;
	}
	char *first = malloc(cut ? cut : 1);
	if (!first)
		abort();
	memcpy(first, s, cut);
	feed(r, first, cut);
	memset(first, 'X', cut);
	free(first);
	feed(r, s + cut, len - cut);
}

#endif
