/* heatmap: FlameScope's sub-second offset heat map of a timeline.
 *
 * Columns are spans of time (a second unless the recording calls for
 * another step), rows the offset inside a column (0 at the top), and a
 * cell the number of samples taken then. One pass over the samples builds
 * the grid; drawing it costs the cells, never the samples. */
#ifndef TFLAME_HEATMAP_H
#define TFLAME_HEATMAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "timeindex.h"
#include "timeline.h"

struct heatmap {
	uint64_t t0;            /* column 0 starts here (the first sample counted) */
	uint64_t col_ns;        /* a column's span */
	uint32_t cols, rows;
	uint32_t *cells;        /* [col * rows + row], saturating */
	uint32_t max;           /* the largest cell */
	uint64_t samples;       /* samples counted */
	uint64_t span;          /* last counted time - t0 */
};

/* The column step for a span of span_ns drawn in at most max_cols columns:
 * one second when that fits (FlameScope's), else the next of 2, 5, 10, 15,
 * 30 s, 1, 2, 5, 10, 30 min, 1 h...; a span under 2 s gets the smallest of
 * 1, 2, 5, 10, 20, 50, 100, 200, 500 ms that fits. */
uint64_t heatmap_step(uint64_t span_ns, uint32_t max_cols);

/* Builds h from tl's samples in [t0, t1) on the chosen threads (NULL:
 * all), in columns of heatmap_step(span, max_cols) and rows rows (>= 1).
 * The grid spans the samples of the range on all threads (column 0 starts
 * at the first of them), whichever are chosen, so that a thread's cells
 * are where the recording's are. h is empty (cols 0) when no sample
 * counts. O(samples of the range). */
void heatmap_build(struct heatmap *h, const struct timeline *tl, const bool *threads, uint64_t t0,
                   uint64_t t1, uint32_t max_cols, uint32_t rows);
/* heatmap_build of the whole recording of ti's timeline, its cells summed
 * from ti's bins when a row is a whole number of them (heatmap_step's
 * steps cut in 1, 2, 4, 5, 10, 20, 25, 40 or 50 rows are): O(cells), or
 * O(the chosen threads' bins); else as heatmap_build. */
void heatmap_build_index(struct heatmap *h, const struct timeindex *ti, const bool *threads,
                         uint32_t max_cols, uint32_t rows);
/* hits[col * rows + row] (h's cells) gets the samples of the cell on the
 * chosen threads whose leaf is marked in in[] (nin entries: the tree the
 * leaves are nodes of), saturating; returns them all. Through ti's lists
 * when the rows are whole bins (O(the marked leaves' bins or the others',
 * whichever are fewer)), else a pass over the samples. */
uint64_t heatmap_hits(const struct heatmap *h, const struct timeindex *ti, const struct timeline *tl,
                      const bool *threads, const bool *in, size_t nin, uint32_t *hits);
void heatmap_free(struct heatmap *h);

static inline uint32_t heatmap_cell(const struct heatmap *h, uint32_t col, uint32_t row)
{
	return h->cells[(size_t)col * h->rows + row];
}
/* The cell of an instant (a sample's time); false outside h's span. */
bool heatmap_cell_of(const struct heatmap *h, uint64_t time, uint32_t *col, uint32_t *row);

/* The time range [*t0, *t1) of the cells from (c0, r0) to (c1, r1) in time
 * order, both included. */
void heatmap_range(const struct heatmap *h, uint32_t c0, uint32_t r0, uint32_t c1, uint32_t r1,
                   uint64_t *t0, uint64_t *t1);
/* The shade of a count among levels (>= 2) shades, in proportion to the
 * largest cell: 0 for none, else ceil(count * (levels - 1) / max), so the
 * largest cell gets levels - 1. */
unsigned heatmap_level(const struct heatmap *h, uint32_t count, unsigned levels);

/* Writes h as text (--print --view=heatmap): a header, the column labels,
 * a row per offset with its label, one character per cell from
 * " .:-=+*#%@" between bars, and the legend. Returns -1 on a write error. */
int heatmap_print(const struct heatmap *h, FILE *out);

#endif
