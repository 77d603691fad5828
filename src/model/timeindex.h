/* timeindex: aggregates of a timeline, so that the time views cost the
 * screen and not the samples (issue 19: 10 million samples, <= 50 ms a
 * key).
 *
 * Built once from a finalized timeline and the tree its leaves are nodes
 * of (two passes over the samples), read-only after. It holds:
 *  - bins: the recording cut into bins of bin_ns from its first sample
 *    (5 us when it lasts under 2 s, 5 ms up to an hour and a half, wider
 *    beyond: see bin_width): the samples before each bin on all threads,
 *    and per thread its (bin, samples) pairs. A heat map whose rows are
 *    whole bins (heatmap_step's steps for up to 2048 columns cut in the
 *    heat view's rows) sums its cells from them;
 *  - per thread and leaf, its samples and weight (the tree of chosen
 *    threads), and the (bin, samples, weight) triples: the search's
 *    samples on a heat map, and the tree of a range of whole bins; the
 *    triples are kept when they are fewer than half the samples (a pass
 *    over the samples costs no more than one over them otherwise);
 *  - per unit of TIMEINDEX_UNIT samples (in the timeline's order, and
 *    again of each thread's samples): its first and last stacks, the depth
 *    of the frames all its samples share, and how far into it the first
 *    stack's deeper frames last and from where the last one's start: the
 *    flame chart of many samples at a resolution, without decoding them.
 * Streams are varints, as the timeline's. Memory allocation failure dies
 * (xalloc). */
#ifndef TFLAME_TIMEINDEX_H
#define TFLAME_TIMEINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "timeline.h"
#include "tree.h"

#define TIMEINDEX_MAX_BINS (1u << 20)
#define TIMEINDEX_UNIT 128u

struct timeindex_thread {
	size_t bins_off, bins_len;  /* its (bin, samples) pairs in tbins */
	uint64_t nbins;             /* pairs */
	size_t hist_off, hist_len;  /* its leaves' lists in hist */
	uint64_t nkeys, nhist;      /* leaves, (bin, samples, weight) triples */
	size_t unit0, nunits;       /* its units in tunits */
};

struct timeindex_unit {
	uint64_t tmin, tmax;        /* its samples' times */
	uint64_t weight;            /* their weights (saturating) */
	uint64_t pos0, pos1;        /* the places of its first and last samples
	                               in the timeline */
	tree_idx first, last;       /* the leaves of its first and last samples */
	uint32_t common;            /* depth of the deepest frame all share */
	uint32_t runs;              /* its frames' extents in runs (see .c) */
	uint32_t n;                 /* samples */
};

struct timeindex {
	const struct timeline *tl;
	const struct tree *tree;
	uint64_t t0;                /* tl->tmin: bin 0 starts there */
	uint64_t bin_ns;
	uint32_t nbins;
	uint64_t *cum;              /* [nbins + 1]: samples before each bin */
	struct timeindex_thread *threads;   /* tl->nthreads */
	unsigned char *tbins, *hist, *runs;
	size_t tbins_len, hist_len, runs_len;
	bool has_triples;           /* the triples are kept (they are fewer than
	                               half the samples); the lists' headers
	                               (a leaf's totals) always are */
	bool weighted;              /* some sample weighs other than 1 */
	uint64_t nhist;             /* triples in all */
	struct timeindex_unit *units;       /* of all threads */
	size_t nunits;
	struct timeindex_unit *tunits;      /* of each thread, one after the other */
	size_t ntunits;
	double build_ms;            /* wall time the building took */
};

/* The index of tl (finalized: timeline_renumber done), whose leaves are
 * nodes of t (finalized); NULL when tl has no samples. Both must outlive
 * it. O(samples). */
struct timeindex *timeindex_new(const struct timeline *tl, const struct tree *t);
void timeindex_free(struct timeindex *ti);

/* timeindex_new on a thread of its own (here and now when none can be
 * started): the caller goes on, and takes the index with timeindex_join
 * (which waits for it) or drops it with timeindex_cancel (which stops the
 * thread early). tl and t must not change meanwhile. */
struct timeindex_job;
struct timeindex_job *timeindex_start(const struct timeline *tl, const struct tree *t);
/* True once the index is built: timeindex_join will not wait. */
bool timeindex_done(struct timeindex_job *j);
/* The index (NULL when tl had no samples); j is freed. */
struct timeindex *timeindex_join(struct timeindex_job *j);
/* Stops the work and frees j and what it built (NULL: nothing). */
void timeindex_cancel(struct timeindex_job *j);
/* Bytes held. */
size_t timeindex_bytes(const struct timeindex *ti);

/* The bin of an instant (tl's tmin <= time <= tmax). */
uint32_t timeindex_bin(const struct timeindex *ti, uint64_t time);

/* Samples on the chosen threads (threads[i] for thread i; NULL: all) per
 * cell: cell j is [tmin + j * cell_ns, tmin + (j + 1) * cell_ns); cells[j]
 * saturates at UINT32_MAX, *counted gets the samples counted. False, and
 * nothing written, when cell_ns is not a whole number of bins. O(ncells)
 * for all threads, else O(pairs of the chosen threads or of the others,
 * whichever are fewer). */
bool timeindex_cells(const struct timeindex *ti, const bool *threads, uint64_t cell_ns,
                     size_t ncells, uint32_t *cells, uint64_t *counted);

/* timeindex_cells counting only the samples whose leaf is marked in in[]
 * (one entry per node of the tree). O(leaves of the chosen threads + the
 * triples of the marked leaves or of the others, whichever are fewer). */
bool timeindex_hits(const struct timeindex *ti, const bool *threads, const bool *in,
                    uint64_t cell_ns, size_t ncells, uint32_t *hits, uint64_t *counted);

/* Thread's activity over the recording in width buckets: out[k] (k <
 * width) gets its samples in the bins b with b * width / nbins == k
 * (saturating at UINT32_MAX). O(its pairs). */
void timeindex_spark(const struct timeindex *ti, uint32_t thread, uint32_t width, uint32_t *out);

/* timeline_self through the index: the weights of the samples in [t0, t1)
 * on the chosen threads summed into self[leaf]; returns the samples
 * counted. The whole recording costs the chosen threads' leaves; a range
 * costs its whole bins' triples (or the range's samples when fewer) and
 * the samples of the bins it cuts. */
uint64_t timeindex_self(const struct timeindex *ti, uint64_t t0, uint64_t t1, const bool *threads,
                        uint64_t *self, size_t nself);

/* dst (initialised by the caller, empty) becomes the flame chart of the
 * samples of tl in [t0, t1) on the chosen threads (NULL: all), as
 * timeline_chart builds it, except that a frame whose run of samples
 * weighs less than 1/cells of the whole may be left out (its weight stays
 * in its caller, as self): every frame at least that wide is there, at its
 * exact place and width. cells 0 keeps every frame. With ti (NULL: none),
 * units of samples that lie inside the range, on all threads, and are
 * lighter than a cell are taken whole from it: O(units + frames kept);
 * the other samples are decoded. A range of coarse_from samples or more
 * (0: none) has at most its samples / (2 * TIMEINDEX_UNIT) cells, a cell
 * twice its units' mean weight, so that its units are taken whole (1.8M
 * perf samples in 16384 cells were all decoded, 82 ms; in 7,000, 2-4 ms).
 * From timeindex_chart_split samples on (tests lower it), the samples'
 * walk is cut in two halves, one on a thread of its own (the chart of
 * 1.6M perf samples of 7 threads, which interleave and are decoded one by
 * one: 77 -> 45 ms), and the halves' runs joined: the same chart.
 * Returns the cells used. */
extern uint64_t timeindex_chart_split;
uint32_t timeindex_chart(const struct timeindex *ti, const struct timeline *tl, const struct tree *src,
                         uint64_t t0, uint64_t t1, const bool *threads, uint32_t cells, uint64_t coarse_from,
                         struct tree *dst);
/* Part of that chart, drawn finer: the samples of the range on the chosen
 * threads whose place in it (the weight before them, in the timeline's
 * order, as the chart's offsets count) is in [w0, w1), as timeindex_chart
 * without the index makes the chart of those samples alone (a frame
 * lighter than 1/cells of their weight may be left out). A frame of the
 * whole chart at offset o with total w is the window [o, o + w): its chart
 * is that frame's callers, each the window's width, over its own frames
 * at their exact places. O(samples of the range up to w1 + frames kept). */
void timeindex_chart_window(const struct timeline *tl, const struct tree *src, uint64_t t0, uint64_t t1,
                            const bool *threads, uint32_t cells, uint64_t w0, uint64_t w1,
                            struct tree *dst);

#endif
