/* heatmap: the grid of samples by time and offset (see heatmap.h). */
#include "config.h"
#include "heatmap.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

#define MS 1000000ull
#define SEC 1000000000ull

uint64_t heatmap_step(uint64_t span_ns, uint32_t max_cols)
{
	static const uint64_t small[] = { 1 * MS, 2 * MS, 5 * MS, 10 * MS, 20 * MS, 50 * MS, 100 * MS,
	                                  200 * MS, 500 * MS };
	static const uint64_t big[] = { 1 * SEC, 2 * SEC, 5 * SEC, 10 * SEC, 15 * SEC, 30 * SEC,
	                                60 * SEC, 120 * SEC, 300 * SEC, 600 * SEC, 1800 * SEC,
	                                3600 * SEC };
	if (max_cols == 0)
		max_cols = 1;
	/* columns for a step: the span's last instant falls in the last one */
#define FITS(step) (span_ns / (step) + 1 <= max_cols)
	if (span_ns < 2 * SEC)
		for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
			if (FITS(small[i]))
				return small[i];
	for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
		if (FITS(big[i]))
			return big[i];
	/* hours beyond: whole hours that fit */
	uint64_t h = span_ns / (3600 * SEC) / max_cols + 1;
	return h * 3600 * SEC;
#undef FITS
}

/* The columns and rows of a grid over [lo, hi]; no cells yet. */
static void grid(struct heatmap *h, uint64_t lo, uint64_t hi, uint32_t max_cols, uint32_t rows)
{
	h->t0 = lo;
	h->span = hi - lo;
	h->col_ns = heatmap_step(h->span, max_cols);
	h->cols = (uint32_t)(h->span / h->col_ns + 1);
	h->rows = rows ? rows : 1;
	h->cells = xcalloc((size_t)h->cols * h->rows, sizeof *h->cells);
}

static void finish(struct heatmap *h)
{
	h->max = 0;
	for (size_t i = 0; i < (size_t)h->cols * h->rows; i++)
		if (h->cells[i] > h->max)
			h->max = h->cells[i];
	if (h->samples == 0) {
		heatmap_free(h);    /* nothing on the chosen threads */
	}
}

void heatmap_build(struct heatmap *h, const struct timeline *tl, const bool *threads, uint64_t t0,
                   uint64_t t1, uint32_t max_cols, uint32_t rows)
{
	memset(h, 0, sizeof *h);
	/* the first and last times of the range, on all threads */
	struct timeline_iter it;
	struct timeline_sample s;
	uint64_t lo = UINT64_MAX, hi = 0, n = 0;
	if (t0 <= tl->tmin && t1 > tl->tmax) {
		/* the whole recording: the timeline knows its ends */
		lo = tl->tmin;
		hi = tl->tmax;
		n = tl->n;
	} else {
		timeline_iter_init(&it, tl, t0, t1);
		while (timeline_next(&it, &s)) {
			if (s.time < lo)
				lo = s.time;
			if (s.time > hi)
				hi = s.time;
			n++;
		}
	}
	if (n == 0)
		return;
	grid(h, lo, hi, max_cols, rows);
	timeline_iter_init(&it, tl, t0, t1);
	while (timeline_next(&it, &s)) {
		if (threads && !threads[s.thread])
			continue;
		uint32_t col, row;
		if (!heatmap_cell_of(h, s.time, &col, &row))
			continue;
		uint32_t *c = &h->cells[(size_t)col * h->rows + row];
		if (*c < UINT32_MAX)
			(*c)++;
		h->samples++;
	}
	finish(h);
}

/* The span of a row when it is a whole number of ti's bins, else 0. */
static uint64_t row_bins(const struct heatmap *h, const struct timeindex *ti)
{
	if (!ti || h->col_ns % h->rows || (h->col_ns / h->rows) % ti->bin_ns || h->t0 != ti->t0)
		return 0;
	return h->col_ns / h->rows;
}

void heatmap_build_index(struct heatmap *h, const struct timeindex *ti, const bool *threads,
                         uint32_t max_cols, uint32_t rows)
{
	memset(h, 0, sizeof *h);
	const struct timeline *tl = ti->tl;
	grid(h, tl->tmin, tl->tmax, max_cols, rows);
	uint64_t row = row_bins(h, ti);
	if (!row || !timeindex_cells(ti, threads, row, (size_t)h->cols * h->rows, h->cells, &h->samples)) {
		heatmap_free(h);
		heatmap_build(h, tl, threads, 0, UINT64_MAX, max_cols, rows);
		return;
	}
	finish(h);
}

uint64_t heatmap_hits(const struct heatmap *h, const struct timeindex *ti, const struct timeline *tl,
                      const bool *threads, const bool *in, size_t nin, uint32_t *hits)
{
	size_t ncells = (size_t)h->cols * h->rows;
	memset(hits, 0, ncells * sizeof *hits);
	uint64_t row = row_bins(h, ti), total = 0;
	if (row && tree_size(ti->tree) == nin && timeindex_hits(ti, threads, in, row, ncells, hits, &total))
		return total;
	struct timeline_iter it;
	struct timeline_sample s;
	timeline_iter_init(&it, tl, h->t0, UINT64_MAX);
	while (timeline_next(&it, &s)) {
		uint32_t c, r;
		if ((threads && !threads[s.thread]) || s.leaf >= nin || !in[s.leaf] ||
		    !heatmap_cell_of(h, s.time, &c, &r))
			continue;
		uint32_t *x = &hits[(size_t)c * h->rows + r];
		if (*x < UINT32_MAX)
			(*x)++;
		total++;
	}
	return total;
}

bool heatmap_cell_of(const struct heatmap *h, uint64_t time, uint32_t *col, uint32_t *row)
{
	if (h->cols == 0 || time < h->t0 || time - h->t0 > h->span)
		return false;
	uint64_t d = time - h->t0;
	uint64_t c = d / h->col_ns, off = d % h->col_ns, r;
	/* r = off * rows / col_ns without overflow (off < col_ns < 2^62) */
#ifdef __SIZEOF_INT128__
	r = (uint64_t)((unsigned __int128)off * h->rows / h->col_ns);
#else
	r = (uint64_t)((long double)off * h->rows / h->col_ns);
#endif
	*col = (uint32_t)c;
	*row = (uint32_t)(r < h->rows ? r : h->rows - 1);
	return true;
}

void heatmap_free(struct heatmap *h)
{
	free(h->cells);
	memset(h, 0, sizeof *h);
}

/* Where row r of a column starts, from the column's start. */
static uint64_t row_start(const struct heatmap *h, uint32_t r)
{
	/* the first offset whose row is r: ceil(r * col_ns / rows) */
	long double x = (long double)r * h->col_ns / h->rows;
	uint64_t v = (uint64_t)x;
	return (long double)v < x ? v + 1 : v;
}

void heatmap_range(const struct heatmap *h, uint32_t c0, uint32_t r0, uint32_t c1, uint32_t r1,
                   uint64_t *t0, uint64_t *t1)
{
	if (c1 < c0 || (c1 == c0 && r1 < r0)) {
		uint32_t c = c0, r = r0;
		c0 = c1;
		r0 = r1;
		c1 = c;
		r1 = r;
	}
	*t0 = h->t0 + c0 * h->col_ns + row_start(h, r0);
	*t1 = r1 + 1 < h->rows ? h->t0 + c1 * h->col_ns + row_start(h, r1 + 1)
	                       : h->t0 + (c1 + 1) * h->col_ns;
}

unsigned heatmap_level(const struct heatmap *h, uint32_t count, unsigned levels)
{
	if (count == 0 || h->max == 0)
		return 0;
	return (unsigned)(((uint64_t)count * (levels - 1) + h->max - 1) / h->max);
}

/* "1.5 s", "200 ms", "2 min": a span for labels and the header. */
static void fmt_span(uint64_t ns, char *buf, size_t size)
{
	if (ns >= 60 * SEC && ns % (60 * SEC) == 0)
		snprintf(buf, size, "%" PRIu64 " min", (uint64_t)(ns / (60 * SEC)));
	else if (ns >= SEC)
		snprintf(buf, size, "%g s", (double)ns / SEC);
	else
		snprintf(buf, size, "%g ms", (double)ns / MS);
}

int heatmap_print(const struct heatmap *h, FILE *out)
{
	static const char shades[] = " .:-=+*#%@";
	const unsigned levels = sizeof shades - 1;
	char col[32], row[32], span[32];
	if (h->cols == 0)
		return fprintf(out, "heat map: no samples\n") < 0 ? -1 : 0;
	fmt_span(h->col_ns, col, sizeof col);
	fmt_span(h->col_ns / h->rows, row, sizeof row);
	fmt_span(h->span, span, sizeof span);
	fprintf(out, "heat map: %" PRIu64 " sample%s over %s from the first; a column is %s, a row %s\n",
	        h->samples, h->samples == 1 ? "" : "s", span, col, row);
	/* column labels: the start of every 10th column where it fits */
	const int margin = 9;
	char *line = xmalloc((size_t)h->cols + 1);
	memset(line, ' ', h->cols);
	for (uint32_t c = 0; c < h->cols; c += 10) {
		char lab[32];
		fmt_span(c * h->col_ns, lab, sizeof lab);
		if (c == 0)
			snprintf(lab, sizeof lab, "0");
		size_t len = strlen(lab);
		if (c + len <= h->cols)
			memcpy(line + c, lab, len);
	}
	size_t n = h->cols;
	while (n > 0 && line[n - 1] == ' ')
		n--;
	fprintf(out, "%*s%.*s\n", margin, "", (int)n, line);
	free(line);
	for (uint32_t r = 0; r < h->rows; r++) {
		char lab[32];
		fmt_span(row_start(h, r), lab, sizeof lab);
		if (r == 0)
			snprintf(lab, sizeof lab, "0");
		fprintf(out, "%*s |", margin - 2, lab);
		for (uint32_t c = 0; c < h->cols; c++)
			fputc(shades[heatmap_level(h, heatmap_cell(h, c, r), levels)], out);
		fputs("|\n", out);
	}
	fprintf(out, "samples per cell:");
	for (unsigned l = 1; l < levels; l++) {
		/* the counts that get level l: ceil(count * (levels-1) / max) == l */
		uint64_t lo = (uint64_t)(l - 1) * h->max / (levels - 1) + 1;
		uint64_t hi = (uint64_t)l * h->max / (levels - 1);
		if (lo > h->max)
			break;
		if (hi > h->max)
			hi = h->max;
		if (lo > hi)
			continue;
		if (lo == hi)
			fprintf(out, " '%c' %" PRIu64, shades[l], lo);
		else
			fprintf(out, " '%c' %" PRIu64 "-%" PRIu64, shades[l], lo, hi);
	}
	return fprintf(out, "\n") < 0 || ferror(out) ? -1 : 0;
}
