/* timeindex: the aggregates against the samples themselves. A chart
 * worked by hand (whole units, a frame narrower than a cell left out), then
 * random timelines (out of order, several threads, weights of 1 or not,
 * spans under and over 2 s, with and without the leaf lists) where heat
 * map cells, search cells, sparklines, range trees and charts are checked
 * against counts this file makes from the samples one by one. */
#include "config.h"
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "heatmap.h"
#include "timeindex.h"
#include "timeline.h"
#include "tree.h"
#include "tap.h"
#include "treeutil.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void finish(struct tree *t, struct timeline *tl)
{
	tree_idx *map;
	tree_finalize_map(t, TREE_ORDER_NAME, &map);
	timeline_renumber(tl, map, tree_size(t));
	free(map);
}

/* ---- a chart by hand ---- */

/* Samples up to (not including) sample `until` have stack `stack`. */
struct hand_span {
	uint64_t until;
	const char *stack;
};

/* t and tl (initialised here): samples 1 ms apart on one thread, weight 1,
 * span after span; their index. */
static struct timeindex *one_thread(struct tree *t, struct timeline *tl, const struct hand_span *sp, size_t n)
{
	tree_init(t);
	timeline_init(tl);
	uint32_t th = timeline_thread(tl, 1, 1, "p", 1);
	for (uint64_t i = 0, k = 0; k < n; i++) {
		timeline_add(tl, 1000000000 + i * 1000000, add(t, sp[k].stack, 1), th, 1);
		k += i + 1 == sp[k].until;
	}
	finish(t, tl);
	return timeindex_new(tl, t);
}

/* A chart's nodes after the root, as worked out by hand. */
struct hand_node {
	const char *name;
	uint32_t depth;
	uint64_t off, total, self;
};

static bool chart_is(const struct tree *ch, const struct hand_node *want, size_t n)
{
	bool same = tree_size(ch) == n + 1;
	for (size_t i = 0; same && i < n; i++) {
		const struct tree_node *nd = tree_node(ch, (tree_idx)i + 1);
		same = strcmp(tree_name(ch, (tree_idx)i + 1), want[i].name) == 0 && nd->depth == want[i].depth &&
		       nd->off.u == want[i].off && nd->total.u == want[i].total && nd->self.u == want[i].self;
	}
	return same;
}

/* 2048 samples 1 ms apart on one thread, weight 1: main;a;x for the first
 * 600, main;b for 100, main;a;y for the other 1348. In 8 cells a cell is
 * 256: every unit (128 samples) is lighter, so all are taken whole; b's
 * run of 100 is narrower than a cell and left out (its weight stays in
 * main, as self), a's two runs (600 and 1348) and x and y stay, at their
 * offsets. Units 4 ([512, 640)) and 5 ([640, 768)) hold the changes: b
 * begins 88 into unit 4 and ends 60 into unit 5. */
static void test_hand(void)
{
	struct tree t;
	struct timeline tl;
	static const struct hand_span sp[] = { { 600, "main;a;x" }, { 700, "main;b" }, { 2048, "main;a;y" } };
	struct timeindex *ti = one_thread(&t, &tl, sp, 3);
	ok(ti && ti->nunits == 16 && ti->units[4].common == 1 && ti->units[5].common == 1 &&
	   ti->units[0].common == 3 && ti->units[6].common == 3, "16 units; 4 and 5 share main only, 0 and 6 all");
	struct tree ch;
	tree_init(&ch);
	timeindex_chart(ti, &tl, &t, 0, UINT64_MAX, NULL, 8, 0, &ch);
	static const struct hand_node want[] = {
		{ "main", 1, 0, 2048, 100 }, { "a", 2, 0, 600, 0 }, { "x", 3, 0, 600, 600 },
		{ "a", 2, 700, 1348, 0 }, { "y", 3, 700, 1348, 1348 },
	};
	ok(chart_is(&ch, want, 5) && tree_node(&ch, 0)->total.u == 2048 && ch.stacks == 2048,
	   "8 cells: main 2048 (100 self: b's), a 600 over x, a 1348 over y at 700; no b");
	tree_free(&ch);
	/* every frame: b is there again, [600, 700) */
	tree_init(&ch);
	timeindex_chart(ti, &tl, &t, 0, UINT64_MAX, NULL, 0, 0, &ch);
	ok(tree_size(&ch) == 7 && strcmp(tree_name(&ch, 4), "b") == 0 && tree_node(&ch, 4)->off.u == 600 &&
	   tree_node(&ch, 4)->total.u == 100 && tree_node(&ch, 1)->self.u == 0, "0 cells: every frame, b at 600 for 100");
	tree_free(&ch);
	/* a range [650 ms, 1300 ms): b's last 50 samples and 600 of y; 2
	 * cells: 325, so b goes, a and y stay from 50 on */
	tree_init(&ch);
	timeindex_chart(ti, &tl, &t, 1650000000, 2300000000, NULL, 2, 0, &ch);
	ok(tree_size(&ch) == 4 && tree_node(&ch, 0)->total.u == 650 && tree_node(&ch, 1)->self.u == 50 &&
	   strcmp(tree_name(&ch, 2), "a") == 0 && tree_node(&ch, 2)->off.u == 50 && tree_node(&ch, 3)->total.u == 600,
	   "a range cutting units: main 650 (50 self), a and y 600 from 50");
	tree_free(&ch);
	/* b's 100 samples, left out of the 8-cell chart of the whole, are
	 * there in the window [550, 750) of it, in 8 cells of its own (25):
	 * main 200, a over x for 50, b from 50 for 100, a over y from 150 */
	tree_init(&ch);
	timeindex_chart_window(&tl, &t, 0, UINT64_MAX, NULL, 8, 550, 750, &ch);
	static const struct hand_node wwant[] = {
		{ "main", 1, 0, 200, 0 }, { "a", 2, 0, 50, 0 }, { "x", 3, 0, 50, 50 }, { "b", 2, 50, 100, 100 },
		{ "a", 2, 150, 50, 0 }, { "y", 3, 150, 50, 50 },
	};
	ok(chart_is(&ch, wwant, 6) && tree_node(&ch, 0)->total.u == 200 && ch.stacks == 200,
	   "the window [550, 750) in 8 cells: main 200, a;x 50, b 100 at 50, a;y 50 at 150");
	tree_free(&ch);
	timeindex_free(ti);
	timeline_free(&tl);
	tree_free(&t);
}

/* 3072 samples (3 blocks of the timeline) 1 ms apart on one thread:
 * main;a;x for the first 2000, main;a;y for 1050, z for the last 22. In
 * 8 cells (384), z's run is left out: its 22 are the root's own, after
 * main's 3050. Cut in two at the middle block (place 1024), main, a and
 * x go on across the cut: the same chart. */
static void test_hand_split(void)
{
	struct tree t;
	struct timeline tl;
	static const struct hand_span sp[] = { { 2000, "main;a;x" }, { 3050, "main;a;y" }, { 3072, "z" } };
	struct timeindex *ti = one_thread(&t, &tl, sp, 3);
	static const struct hand_node want[] = {
		{ "main", 1, 0, 3050, 0 }, { "a", 2, 0, 3050, 0 }, { "x", 3, 0, 2000, 2000 }, { "y", 3, 2000, 1050, 1050 },
	};
	uint64_t split = timeindex_chart_split;
	for (int cut = 0; cut < 2; cut++) {
		timeindex_chart_split = cut ? 1 : UINT64_MAX;
		struct tree ch;
		tree_init(&ch);
		uint32_t used = timeindex_chart(ti, &tl, &t, 0, UINT64_MAX, NULL, 8, 0, &ch);
		ok(used == 8 && chart_is(&ch, want, 4) && tree_node(&ch, 0)->total.u == 3072 &&
		   tree_node(&ch, 0)->self.u == 22 && ch.stacks == 3072,
		   "%s: main and a 3050, x 2000, y 1050 at 2000; z's 22 the root's own",
		   cut ? "cut in two at place 1024" : "in one walk");
		tree_free(&ch);
	}
	timeindex_chart_split = split;
	timeindex_free(ti);
	timeline_free(&tl);
	tree_free(&t);
}

/* ---- random timelines ---- */

struct smp {
	uint64_t time, weight;
	tree_idx leaf;
	uint32_t thread;
};

struct world {
	struct tree t;
	struct timeline tl;
	struct smp *s;
	size_t n;
	uint32_t nthreads;
};

/* n samples on nthreads threads, dt ns apart on average, some going
 * back; stacks from a walk over names (unique: each sample its own leaf,
 * so that the leaf lists are not kept). */
static void make_world(struct world *w, size_t n, uint32_t nthreads, uint64_t dt, bool weighted,
                       bool unique)
{
	static const char *names[] = { "main", "a", "b", "c", "d", "e" };
	tree_init(&w->t);
	timeline_init(&w->tl);
	w->nthreads = nthreads;
	for (uint32_t i = 0; i < nthreads; i++) {
		char c[16];
		int len = snprintf(c, sizeof c, "t%u", i);
		timeline_thread(&w->tl, 1, i, c, (size_t)len);
	}
	uint64_t clock = 5000000000ull;
	char stack[128] = "main;a";
	for (size_t i = 0; i < n; i++) {
		if (next() % 100 < 20) {
			/* a new stack near the old: a frame more, fewer, or another */
			size_t len = strlen(stack);
			uint64_t k = next() % 3;
			char *semi = strrchr(stack, ';');
			if (k == 0 && len < 100)
				snprintf(stack + len, sizeof stack - len, ";%s", names[next() % 6]);
			else if (k == 1 && semi)
				*semi = '\0';
			else if (semi)
				snprintf(semi + 1, sizeof stack - (size_t)(semi + 1 - stack), "%s", names[next() % 6]);
		}
		char full[160];
		if (unique)
			snprintf(full, sizeof full, "%s;u%zu", stack, i);
		else
			snprintf(full, sizeof full, "%s", stack);
		if (next() % 100 < 3) {
			uint64_t back = next() % (dt * 50);
			clock -= back < clock ? back : 0;
		} else {
			clock += dt / 2 + next() % dt;
		}
		uint64_t wt = weighted ? 1 + next() % 5 : 1;
		uint32_t th = (uint32_t)(i / 300 % nthreads);
		if (next() % 10 == 0)
			th = (uint32_t)(next() % nthreads);
		timeline_add(&w->tl, clock, add(&w->t, full, wt), th, wt);
	}
	finish(&w->t, &w->tl);
	w->s = malloc(n * sizeof *w->s);
	struct timeline_iter it;
	struct timeline_sample s;
	timeline_iter_init(&it, &w->tl, 0, UINT64_MAX);
	w->n = 0;
	while (timeline_next(&it, &s))
		w->s[w->n++] = (struct smp){ s.time, s.weight, s.leaf, s.thread };
}

static void free_world(struct world *w)
{
	free(w->s);
	timeline_free(&w->tl);
	tree_free(&w->t);
}

static bool chosen(const bool *threads, uint32_t th)
{
	return !threads || threads[th];
}

static bool check_cells(const struct world *w, const struct timeindex *ti, const bool *threads,
                        uint64_t cell_ns, const bool *in)
{
	size_t ncells = (size_t)((w->tl.tmax - w->tl.tmin) / cell_ns + 1);
	uint32_t *got = calloc(ncells, sizeof *got), *want = calloc(ncells, sizeof *want);
	uint64_t counted = 0, n = 0;
	bool okay = in ? timeindex_hits(ti, threads, in, cell_ns, ncells, got, &counted)
	               : timeindex_cells(ti, threads, cell_ns, ncells, got, &counted);
	for (size_t i = 0; i < w->n; i++) {
		if (!chosen(threads, w->s[i].thread) || (in && !in[w->s[i].leaf]))
			continue;
		want[(w->s[i].time - w->tl.tmin) / cell_ns]++;
		n++;
	}
	okay = okay && counted == n && memcmp(got, want, ncells * sizeof *got) == 0;
	free(got);
	free(want);
	return okay;
}

static bool check_spark(const struct world *w, const struct timeindex *ti, uint32_t th, uint32_t width)
{
	uint32_t *got = calloc(width, sizeof *got), *want = calloc(width, sizeof *want);
	timeindex_spark(ti, th, width, got);
	for (size_t i = 0; i < w->n; i++)
		if (w->s[i].thread == th)
			want[(uint64_t)timeindex_bin(ti, w->s[i].time) * width / ti->nbins]++;
	bool okay = memcmp(got, want, width * sizeof *got) == 0;
	free(got);
	free(want);
	return okay;
}

static bool check_self(const struct world *w, const struct timeindex *ti, uint64_t t0, uint64_t t1,
                       const bool *threads)
{
	size_t ns = tree_size(&w->t);
	uint64_t *got = calloc(ns, sizeof *got), *want = calloc(ns, sizeof *want), n = 0;
	uint64_t k = timeindex_self(ti, t0, t1, threads, got, ns);
	for (size_t i = 0; i < w->n; i++) {
		if (w->s[i].time < t0 || w->s[i].time >= t1 || !chosen(threads, w->s[i].thread))
			continue;
		want[w->s[i].leaf] += w->s[i].weight;
		n++;
	}
	bool okay = k == n && memcmp(got, want, ns * sizeof *got) == 0;
	if (!okay)
		printf("# self [%" PRIu64 ", %" PRIu64 "): %" PRIu64 " samples, want %" PRIu64 "\n", t0, t1, k, n);
	free(got);
	free(want);
	return okay;
}

/* The chart's frames are the runs of the samples at least theta wide: the
 * samples' paths one by one, each frame's run from where it first is to
 * where the next sample lacks it. */
struct xrun {
	uint64_t start, len;
	tree_idx node;
	uint32_t depth;
};

static int xrun_cmp(const void *pa, const void *pb)
{
	const struct xrun *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->depth < b->depth ? -1 : a->depth > b->depth;
}

/* The chart of [t0, t1) (timeindex_chart, coarser from `coarse` samples
 * on), or with `window` the part of it timeindex_chart_window draws, the
 * samples whose place is in [w0, w1): against runs worked out here from
 * the samples one by one, in the cells timeindex_chart says it used,
 * which must be min(cells, samples / 256) from `coarse` samples on. */
static bool check_chart_in(const struct world *w, const struct timeindex *ti, uint64_t t0, uint64_t t1,
                           const bool *threads, uint32_t cells, uint64_t coarse, bool window, uint64_t w0,
                           uint64_t w1)
{
	const struct tree *t = &w->t;
	uint64_t total = 0, samples = 0, place = 0, n = 0;
	bool *in = calloc(w->n ? w->n : 1, sizeof *in);
	for (size_t i = 0; i < w->n; i++)
		if (w->s[i].time >= t0 && w->s[i].time < t1 && chosen(threads, w->s[i].thread)) {
			in[i] = !window || (place >= w0 && place < w1);
			place += w->s[i].weight;
			if (in[i]) {
				total += w->s[i].weight;
				n++;
			}
		}
	struct tree ch;
	tree_init(&ch);
	uint32_t used = cells;
	if (window)
		timeindex_chart_window(&w->tl, t, t0, t1, threads, cells, w0, w1, &ch);
	else
		used = timeindex_chart(ti, &w->tl, t, t0, t1, threads, cells, coarse, &ch);
	uint32_t want = cells;
	if (!window && ti && cells && coarse && n >= coarse && n / 256 < cells)
		want = n / 256 ? (uint32_t)(n / 256) : 1;
	if (used != want) {
		printf("# chart: %u cells used, want %u (%" PRIu64 " samples)\n", used, want, n);
		tree_free(&ch);
		free(in);
		return false;
	}
	uint64_t theta = used ? total / used : 0;
	tree_idx open[64], path[64];
	uint64_t start[64];
	uint32_t depth = 0;
	struct xrun *runs = malloc((w->n * 16 + 1) * sizeof *runs);
	size_t nruns = 0;
	uint64_t pos = 0;
#define CLOSE_TO(d)                                                                                \
	for (; depth > (d); depth--)                                                               \
		if (pos - start[depth] > 0 && pos - start[depth] >= theta)                           \
			runs[nruns++] = (struct xrun){ start[depth], pos - start[depth], open[depth], depth };
	for (size_t i = 0; i < w->n; i++) {
		const struct smp *s = &w->s[i];
		if (!in[i])
			continue;
		uint32_t d = tree_depth(t, s->leaf);
		for (tree_idx x = s->leaf; x != TREE_ROOT; x = tree_parent(t, x))
			path[tree_depth(t, x)] = x;
		uint32_t k = 1;
		while (k <= depth && k <= d && open[k] == path[k])
			k++;
		CLOSE_TO(k - 1);
		for (; depth < d; depth++) {
			open[depth + 1] = path[depth + 1];
			start[depth + 1] = pos;
		}
		pos += s->weight;
		samples++;
	}
	CLOSE_TO(0);
#undef CLOSE_TO
	qsort(runs, nruns, sizeof *runs, xrun_cmp);
	free(in);
	bool okay = tree_size(&ch) == nruns + 1 && tree_node(&ch, 0)->total.u == total && ch.stacks == samples;
	for (size_t i = 0; okay && i < nruns; i++) {
		const struct tree_node *nd = tree_node(&ch, (tree_idx)i + 1);
		okay = nd->depth == runs[i].depth && nd->off.u == runs[i].start && nd->total.u == runs[i].len &&
		       strcmp(tree_name(&ch, (tree_idx)i + 1), tree_name(t, runs[i].node)) == 0;
		if (!okay)
			printf("# chart node %zu: depth %u off %" PRIu64 " total %" PRIu64 " %s, want %u %" PRIu64 " %" PRIu64 " %s\n",
			       i + 1, nd->depth, nd->off.u, nd->total.u, tree_name(&ch, (tree_idx)i + 1), runs[i].depth,
			       runs[i].start, runs[i].len, tree_name(t, runs[i].node));
	}
	if (tree_size(&ch) != nruns + 1)
		printf("# chart: %zu nodes, want %zu\n", tree_size(&ch), nruns + 1);
	tree_free(&ch);
	free(runs);
	return okay;
}

static bool check_chart(const struct world *w, const struct timeindex *ti, uint64_t t0, uint64_t t1,
                        const bool *threads, uint32_t cells)
{
	return check_chart_in(w, ti, t0, t1, threads, cells, 0, false, 0, 0);
}

/* Windows of the chart of [t0, t1): all of it, a third from a third on,
 * a sliver, the last sample's, one past the end (nothing), each in 64, 7
 * and all cells. */
static bool check_windows(const struct world *w, uint64_t t0, uint64_t t1, const bool *threads)
{
	uint64_t total = 0, last = 0;
	for (size_t i = 0; i < w->n; i++)
		if (w->s[i].time >= t0 && w->s[i].time < t1 && chosen(threads, w->s[i].thread)) {
			last = total;
			total += w->s[i].weight;
		}
	uint64_t win[][2] = { { 0, total }, { total / 3, 2 * total / 3 }, { total / 2, total / 2 + 3 },
	                      { last, total }, { total, total + 10 }, { 0, UINT64_MAX } };
	bool okay = true;
	for (size_t k = 0; okay && k < sizeof win / sizeof win[0]; k++)
		okay = check_chart_in(w, NULL, t0, t1, threads, 64, 0, true, win[k][0], win[k][1]) &&
		       check_chart_in(w, NULL, t0, t1, threads, 7, 0, true, win[k][0], win[k][1]) &&
		       check_chart_in(w, NULL, t0, t1, threads, 0, 0, true, win[k][0], win[k][1]);
	return okay;
}

static void test_world(const char *what, size_t n, uint32_t nthreads, uint64_t dt, bool weighted, bool unique)
{
	struct world w;
	make_world(&w, n, nthreads, dt, weighted, unique);
	struct timeindex *ti = timeindex_new(&w.tl, &w.t);
	ok(ti && ti->has_triples == !unique && ti->weighted == weighted && ti->nunits == (n + 127) / 128,
	   "%s: %zu samples, bins of %" PRIu64 " ns, %s", what, n, ti->bin_ns,
	   unique ? "no triples (each sample its own leaf)" : "triples kept");
	bool *one = calloc(nthreads, sizeof *one), *most = calloc(nthreads, sizeof *most);
	one[nthreads > 1 ? 1 : 0] = true;
	for (uint32_t i = 0; i < nthreads; i++)
		most[i] = i != (nthreads > 2 ? 2 : 0);
	const bool *choices[] = { NULL, one, most };
	static const char *cname[] = { "all threads", "one thread", "all but one" };
	/* cells of 1, 3 and 40 bins */
	uint64_t sizes[] = { ti->bin_ns, 3 * ti->bin_ns, 40 * ti->bin_ns };
	bool *in = calloc(tree_size(&w.t), sizeof *in);
	for (size_t i = 0; i < tree_size(&w.t); i++)
		in[i] = next() % 4 == 0;
	for (size_t c = 0; c < 3; c++) {
		for (size_t k = 0; k < 3; k++) {
			ok(check_cells(&w, ti, choices[c], sizes[k], NULL), "%s: cells of %" PRIu64 " bin(s), %s", what,
			   sizes[k] / ti->bin_ns, cname[c]);
			ok(check_cells(&w, ti, choices[c], sizes[k], in), "%s: search cells of %" PRIu64 " bin(s), %s",
			   what, sizes[k] / ti->bin_ns, cname[c]);
		}
	}
	uint32_t cells[1];
	ok(!timeindex_cells(ti, NULL, ti->bin_ns + ti->bin_ns / 2, 1, cells, NULL) &&
	   !timeindex_hits(ti, NULL, in, ti->bin_ns / 2, 1, cells, NULL), "%s: cells of part of a bin: refused", what);
	bool spark = true;
	for (uint32_t th = 0; th < nthreads; th++)
		spark = spark && check_spark(&w, ti, th, 1) && check_spark(&w, ti, th, 7) &&
		        check_spark(&w, ti, th, 60) && check_spark(&w, ti, th, ti->nbins + 5);
	ok(spark, "%s: every thread's sparkline in 1, 7, 60 and more buckets than bins", what);
	/* ranges: the whole, halves on a bin's edge and off it, a bin, a
	 * sliver, before and after everything */
	uint64_t a = w.tl.tmin, z = w.tl.tmax, mid = a + (z - a) / 2, B = ti->bin_ns;
	uint64_t edge = a + (mid - a) / B * B;
	uint64_t r[][2] = { { 0, UINT64_MAX }, { a, edge }, { edge, UINT64_MAX }, { a + 1, mid + 7 },
	                    { edge, edge + B }, { mid, mid + 1 }, { 0, a }, { z + 1, UINT64_MAX },
	                    { a + (z - a) / 5, z - (z - a) / 5 } };
	for (size_t c = 0; c < 3; c++) {
		bool self = true;
		for (size_t k = 0; k < sizeof r / sizeof r[0]; k++)
			self = self && check_self(&w, ti, r[k][0], r[k][1], choices[c]);
		ok(self, "%s: range trees, %s", what, cname[c]);
	}
	/* each chart walked in one, then cut in two halves (the second on a
	 * thread of its own) and joined */
	uint64_t split = timeindex_chart_split;
	for (int cut = 0; cut < 2; cut++) {
		timeindex_chart_split = cut ? 1 : UINT64_MAX;
		const char *how = cut ? ", walked in two halves" : "";
		for (size_t c = 0; c < 3; c++) {
			bool chart = true;
			size_t k;
			for (k = 0; chart && k < sizeof r / sizeof r[0]; k++)
				chart = check_chart(&w, ti, r[k][0], r[k][1], choices[c], 64) &&
				        check_chart(&w, ti, r[k][0], r[k][1], choices[c], 7) &&
				        check_chart(&w, ti, r[k][0], r[k][1], choices[c], 0) &&
				        check_chart(&w, NULL, r[k][0], r[k][1], choices[c], 7);
			ok(chart, "%s: charts in 64, 7 and all cells, with and without the index, %s%s%s", what, cname[c],
			   how, chart ? "" : " (a range failed)");
		}
		/* coarser from 300 or 3000 samples on: 4096 cells become samples /
		 * 256 where that is fewer (the ranges here hold up to n samples) */
		for (size_t c = 0; c < 3; c++) {
			bool chart = true;
			size_t k;
			for (k = 0; chart && k < sizeof r / sizeof r[0]; k++)
				chart = check_chart_in(&w, ti, r[k][0], r[k][1], choices[c], 4096, 300, false, 0, 0) &&
				        check_chart_in(&w, ti, r[k][0], r[k][1], choices[c], 4096, 3000, false, 0, 0) &&
				        check_chart_in(&w, ti, r[k][0], r[k][1], choices[c], 3, 300, false, 0, 0);
			ok(chart, "%s: coarser charts of many samples, %s%s%s", what, cname[c], how,
			   chart ? "" : " (a range failed)");
		}
	}
	timeindex_chart_split = split;
	for (size_t c = 0; c < 3; c++) {
		bool win = true;
		for (size_t k = 0; win && k < sizeof r / sizeof r[0]; k++)
			win = check_windows(&w, r[k][0], r[k][1], choices[c]);
		ok(win, "%s: windows of charts (a frame's span drawn finer), %s%s", what, cname[c],
		   win ? "" : " (a range failed)");
	}
	free(in);
	free(one);
	free(most);
	timeindex_free(ti);
	free_world(&w);
}

/* 800,000 samples spread thin (about one a bin per thread and leaf: no
 * triples), long enough for the passes over the samples to run on two
 * threads: search cells and range trees, against the samples. */
static void test_big(void)
{
	struct world w;
	make_world(&w, 800000, 4, 40000000, true, false);
	struct timeindex *ti = timeindex_new(&w.tl, &w.t);
	ok(ti && !ti->has_triples && w.tl.nblocks >= 512, "800,000 thin samples: no triples, %zu blocks", w.tl.nblocks);
	bool one[4] = { false, true, false, false };
	bool *in = calloc(tree_size(&w.t), sizeof *in);
	for (size_t i = 0; i < tree_size(&w.t); i++)
		in[i] = next() % 3 == 0;
	ok(check_cells(&w, ti, NULL, 40 * ti->bin_ns, in) && check_cells(&w, ti, one, ti->bin_ns, in),
	   "800,000 thin samples: search cells, all threads and one");
	uint64_t a = w.tl.tmin, z = w.tl.tmax;
	ok(check_self(&w, ti, a + (z - a) / 10, z - (z - a) / 10, NULL) && check_self(&w, ti, a, a + (z - a) / 2, one) &&
	   check_self(&w, ti, 0, UINT64_MAX, one), "800,000 thin samples: range trees, all threads and one");
	free(in);
	timeindex_free(ti);
	free_world(&w);
}

static void test_background(void)
{
	struct world w;
	make_world(&w, 5000, 3, 1000000, false, false);
	struct timeindex_job *j = timeindex_start(&w.tl, &w.t);
	struct timeindex *ti = timeindex_join(j);
	ok(ti && ti->nunits == 40 && check_cells(&w, ti, NULL, ti->bin_ns, NULL), "built on a thread: the same");
	timeindex_free(ti);
	timeindex_cancel(timeindex_start(&w.tl, &w.t));
	ok(1, "cancelled while building: nothing left (LeakSanitizer's part)");
	ok(timeindex_new(&(struct timeline){ 0 }, &w.t) == NULL, "no samples: no index");
	free_world(&w);
}

/* A recording of 7 hours: 2048 columns at most take steps of 15 s or more;
 * their rows (15 s / 40 = 375 ms, / 50 = 300 ms, 30 s / 40 = 750 ms...)
 * are whole bins of 75 ms, their greatest common divisor; the heat view's
 * grids then come from the bins, the same as sample by sample. */
static void test_long(void)
{
	struct tree t;
	struct timeline tl;
	tree_init(&t);
	timeline_init(&tl);
	uint32_t th = timeline_thread(&tl, 1, 1, "p", 1);
	tree_idx a = add(&t, "main;a", 1), b = add(&t, "main;b", 1);
	for (uint64_t s = 0; s <= 7 * 3600; s += 9)
		timeline_add(&tl, s * 1000000000ull + (s % 7) * 100000000ull, s % 3 ? a : b, th, 1);
	finish(&t, &tl);
	struct timeindex *ti = timeindex_new(&tl, &t);
	ok(ti->bin_ns == 75000000, "7 hours: bins of 75 ms");
	bool same = true, used = true;
	static const uint32_t widths[] = { 80, 200, 1000, 2000 }, rows[] = { 50, 40, 25, 20, 10, 4 };
	for (size_t w = 0; w < 4; w++) {
		for (size_t r = 0; r < 6; r++) {
			struct heatmap x, y;
			heatmap_build_index(&x, ti, NULL, widths[w], rows[r]);
			heatmap_build(&y, &tl, NULL, 0, UINT64_MAX, widths[w], rows[r]);
			uint32_t one;
			used = used && timeindex_cells(ti, NULL, x.col_ns / x.rows, 1, &one, NULL);
			same = same && x.cols == y.cols && x.rows == y.rows && x.samples == y.samples &&
			       memcmp(x.cells, y.cells, (size_t)x.cols * x.rows * sizeof *x.cells) == 0;
			heatmap_free(&x);
			heatmap_free(&y);
		}
	}
	ok(used, "7 hours: every grid of 80 to 2000 columns and 4 to 50 rows is whole bins");
	ok(same, "7 hours: the grids from the bins are the grids sample by sample");
	timeindex_free(ti);
	timeline_free(&tl);
	tree_free(&t);
}

int main(void)
{
	test_hand();
	test_hand_split();
	/* the clock goes on by a quarter of dt a sample on average (it goes
	 * back now and then): 20000 at 1 ms, 5 s (5 ms bins), at 1 us 5 ms
	 * (5 us bins) */
	test_world("5 ms bins", 20000, 4, 1000000, false, false);
	test_world("5 us bins, weighted", 20000, 3, 1000, true, false);
	test_world("unique leaves", 6000, 3, 4000000, true, true);
	test_world("one thread", 3000, 1, 1000, false, false);
	test_long();
	test_big();
	test_background();
	return done_testing();
}
