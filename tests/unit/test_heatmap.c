/* heatmap: the grid, its shades, ranges and text, worked by hand. */
#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "heatmap.h"
#include "tap.h"

#define SEC 1000000000ull

static char *print(const struct heatmap *h)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	heatmap_print(h, f);
	fclose(f);
	return buf;
}

int main(void)
{
	ok(heatmap_step(0, 80) == 1000000, "a single instant: 1 ms columns");
	ok(heatmap_step(500000000, 80) == 10000000, "0.5 s in 80 columns: 10 ms (51 columns)");
	ok(heatmap_step(3 * SEC, 80) == SEC, "3 s: FlameScope's 1 s columns");
	ok(heatmap_step(79 * SEC, 80) == SEC, "79 s in 80 columns: 1 s (80 columns)");
	ok(heatmap_step(80 * SEC, 80) == 2 * SEC, "80 s in 80 columns: 2 s (81 would not fit)");
	ok(heatmap_step(3000 * SEC, 80) == 60 * SEC, "50 min in 80 columns: 1 min");
	ok(heatmap_step(1000000 * SEC, 10) == 28 * 3600 * SEC, "11.6 days in 10 columns: 28 h");

	/* samples at 10 s + 0, 0.3, 0.75, 1.0 (twice), 2.5 s; 4 rows of 250 ms */
	struct timeline tl;
	timeline_init(&tl);
	timeline_thread(&tl, 1, 1, "a", 1);
	timeline_thread(&tl, 1, 2, "b", 1);
	static const uint64_t ms[] = { 0, 300, 750, 1000, 1000, 2500 };
	for (int i = 0; i < 6; i++)
		timeline_add(&tl, 10 * SEC + ms[i] * 1000000, 0, i == 5, 1);
	struct heatmap h;
	heatmap_build(&h, &tl, NULL, 0, UINT64_MAX, 10, 4);
	ok(h.cols == 3 && h.rows == 4 && h.col_ns == SEC && h.t0 == 10 * SEC && h.max == 2 && h.samples == 6,
	   "3 columns of 1 s, 4 rows, the largest cell 2");
	ok(heatmap_cell(&h, 0, 0) == 1 && heatmap_cell(&h, 0, 1) == 1 && heatmap_cell(&h, 0, 3) == 1 &&
	   heatmap_cell(&h, 1, 0) == 2 && heatmap_cell(&h, 2, 2) == 1 && heatmap_cell(&h, 2, 0) == 0,
	   "cells: 0.3 s in row 1, 0.75 s in row 3, 2.5 s in column 2 row 2");
	ok(heatmap_level(&h, 0, 10) == 0 && heatmap_level(&h, 1, 10) == 5 && heatmap_level(&h, 2, 10) == 9,
	   "shades: none 0, 1 of 2 halfway (5 of 9), 2 of 2 the darkest");
	uint64_t t0, t1;
	heatmap_range(&h, 1, 0, 0, 1, &t0, &t1);
	ok(t0 == 10 * SEC + 250000000 && t1 == 11 * SEC + 250000000,
	   "cells (1,0) back to (0,1): 0.25 s to 1.25 s");
	heatmap_range(&h, 2, 3, 2, 3, &t0, &t1);
	ok(t0 == 12 * SEC + 750000000 && t1 == 13 * SEC, "the last row of column 2: 2.75 s to 3 s");
	char *txt = print(&h);
	is_str(txt, "heat map: 6 samples over 2.5 s from the first; a column is 1 s, a row 250 ms\n"
	            "         0\n"
	            "      0 |+@ |\n"
	            " 250 ms |+  |\n"
	            " 500 ms |  +|\n"
	            " 750 ms |+  |\n"
	            "samples per cell: '+' 1 '@' 2\n", "the text");
	free(txt);
	heatmap_free(&h);

	/* thread b alone, and a time range */
	bool pick[2] = { false, true };
	heatmap_build(&h, &tl, pick, 0, UINT64_MAX, 10, 4);
	ok(h.samples == 1 && h.max == 1 && h.cols == 3 && h.t0 == 10 * SEC && heatmap_cell(&h, 2, 2) == 1,
	   "thread b: its one sample (2.5 s: column 2, row 2), on the grid of all threads");
	heatmap_free(&h);
	heatmap_build(&h, &tl, NULL, 10 * SEC + 500000000, 11 * SEC + 1, 10, 4);
	ok(h.samples == 3 && h.max == 2, "[0.5 s, 1 s]: the 0.75 s sample and the two at 1 s");
	heatmap_free(&h);
	heatmap_build(&h, &tl, NULL, 20 * SEC, 30 * SEC, 10, 4);
	ok(h.cols == 0 && h.samples == 0, "a range without samples: empty");
	txt = print(&h);
	is_str(txt, "heat map: no samples\n", "empty: said so");
	free(txt);
	heatmap_free(&h);
	timeline_free(&tl);
	return done_testing();
}
