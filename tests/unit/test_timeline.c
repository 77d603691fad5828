/* timeline: entries come back as they went in (times, stacks, threads,
 * weights), through block boundaries, big and backward time jumps, tree
 * renumbering and merges; time ranges count exactly the entries inside,
 * checked against a brute-force pass over the test's own record. */
#include "config.h"
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "timeline.h"
#include "tree.h"
#include "tap.h"
#include "treeutil.h"

static uint64_t rng = 0x243f6a8885a308d3ULL;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The test's own record of what it added. */
struct ref {
	uint64_t time, weight;
	char stack[64];
	uint32_t thread;
};

/* The stack of finalized node i as "a;b;c". */
static void stack_of(const struct tree *t, tree_idx i, char *buf, size_t size)
{
	const char *names[64];
	size_t n = 0;
	for (; i != TREE_ROOT && n < 64; i = tree_parent(t, i))
		names[n++] = tree_name(t, i);
	buf[0] = '\0';
	for (size_t k = n; k-- > 0;) {
		strncat(buf, names[k], size - strlen(buf) - 1);
		if (k)
			strncat(buf, ";", size - strlen(buf) - 1);
	}
}

static tree_idx add_ref(struct tree *t, struct timeline *tl, struct ref *r)
{
	struct tree_frame f[16];
	size_t n = 0;
	const char *p = r->stack;
	while (*p) {
		const char *e = strchr(p, ';');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		f[n++] = (struct tree_frame){ p, len };
		p += len + (e ? 1 : 0);
	}
	tree_idx leaf = tree_add_stack(t, f, n, r->weight);
	timeline_add(tl, r->time, leaf, r->thread, r->weight);
	return leaf;
}

static void random_ref(struct ref *r, uint64_t *clock, uint32_t nthreads)
{
	static const char *names[] = { "main", "a", "b", "c", "d", "e", "f" };
	size_t depth = 1 + next() % 5, len = 0;
	r->stack[0] = '\0';
	for (size_t d = 0; d < depth; d++) {
		const char *nm = names[next() % 7];
		len += (size_t)snprintf(r->stack + len, sizeof r->stack - len, "%s%s", d ? ";" : "", nm);
	}
	/* mostly forward by 250 us, sometimes back (per-CPU buffers), now and
	 * then a jump of 2^62 (the absolute form) */
	uint64_t k = next() % 100;
	if (k < 80)
		*clock += 250000 + next() % 1000;
	else if (k < 97) {
		uint64_t back = next() % 5000000;
		*clock -= back < *clock ? back : 0;
	}
	else
		*clock ^= (uint64_t)1 << 62;
	r->time = *clock;
	r->weight = k < 90 ? 250000 : 1 + next() % 1000000;
	r->thread = (uint32_t)(next() % nthreads);
}

/* Entries of tl in [t0, t1) against ref[0..n): same order, same values. */
static bool same_as_ref(const struct timeline *tl, const struct tree *t, const struct ref *ref,
                        size_t n, uint64_t t0, uint64_t t1)
{
	struct timeline_iter it;
	struct timeline_sample s;
	timeline_iter_init(&it, tl, t0, t1);
	size_t k = 0;
	char buf[128];
	for (size_t i = 0; i < n; i++) {
		if (ref[i].time < t0 || ref[i].time >= t1)
			continue;
		if (!timeline_next(&it, &s))
			return false;
		stack_of(t, s.leaf, buf, sizeof buf);
		if (s.time != ref[i].time || s.weight != ref[i].weight || s.thread != ref[i].thread ||
		    strcmp(buf, ref[i].stack) != 0) {
			printf("# entry %zu: got %" PRIu64 " %s w%" PRIu64 " th%u, want %" PRIu64 " %s\n", i,
			       s.time, buf, s.weight, s.thread, ref[i].time, ref[i].stack);
			return false;
		}
		k++;
	}
	return !timeline_next(&it, &s);
}

static void test_hand(void)
{
	/* Five samples worked by hand: the range [2000, 4000) holds the 2nd
	 * (a;b, 10), the 3rd (a;c, 5) and the 5th (a;b, 1); 4000 itself is out. */
	struct tree t;
	struct timeline tl;
	tree_init(&t);
	timeline_init(&tl);
	uint32_t th = timeline_thread(&tl, 10, 11, "worker", 6);
	struct ref r[] = {
		{ 1000, 7, "a;b", 0 }, { 2000, 10, "a;b", 0 }, { 3999, 5, "a;c", 0 },
		{ 4000, 3, "d", 0 }, { 2500, 1, "a;b", 0 },
	};
	for (size_t i = 0; i < 5; i++) {
		r[i].thread = th;
		add_ref(&t, &tl, &r[i]);
	}
	tree_idx *map;
	tree_finalize_map(&t, TREE_ORDER_NAME, &map);
	timeline_renumber(&tl, map, tree_size(&t));
	free(map);
	ok(tl.n == 5 && tl.tmin == 1000 && tl.tmax == 4000, "5 entries from 1000 to 4000 ns");
	ok(same_as_ref(&tl, &t, r, 5, 0, UINT64_MAX), "all entries back, in input order");

	uint64_t *self = calloc(tree_size(&t), sizeof *self);
	ok(timeline_self(&tl, 2000, 4000, NULL, self, tree_size(&t)) == 3, "[2000, 4000): 3 entries");
	struct tree sub;
	tree_init(&sub);
	timeline_tree(&t, self, TREE_ORDER_NAME, &sub);
	is_folded(&sub, "a;b 11\na;c 5\n", "[2000, 4000): a;b 10 + 1, a;c 5, no d");
	ok(sub.stacks == 2, "the range tree has 2 distinct stacks");
	tree_free(&sub);

	memset(self, 0, tree_size(&t) * sizeof *self);
	bool none[1] = { false };
	ok(timeline_self(&tl, 0, UINT64_MAX, none, self, tree_size(&t)) == 0, "no thread chosen: nothing");
	free(self);

	ok(timeline_thread(&tl, 10, 11, "worker", 6) == th, "a thread is interned once");
	ok(timeline_thread(&tl, 10, 11, "other", 5) != th, "a new name (exec) is a new entry");
	ok(tl.threads[th].samples == 5 && tl.threads[th].weight == 26, "thread totals: 5 samples, weight 26");
	timeline_free(&tl);
	tree_free(&t);
}

/* n random entries on nth threads into t and tl (initialised here), as
 * ref; returns the clock after the last. */
static uint64_t random_timeline(struct tree *t, struct timeline *tl, struct ref *ref, size_t n, uint32_t nth)
{
	tree_init(t);
	timeline_init(tl);
	for (uint32_t i = 0; i < nth; i++) {
		char name[16];
		int len = snprintf(name, sizeof name, "t%u", i);
		timeline_thread(tl, 100, 100 + i, name, (size_t)len);
	}
	uint64_t clock = 1000000000;
	for (size_t i = 0; i < n; i++) {
		random_ref(&ref[i], &clock, nth);
		add_ref(t, tl, &ref[i]);
	}
	return clock;
}

static void test_random(void)
{
	enum { N = 20000 };
	struct ref *ref = malloc(N * sizeof *ref);
	struct tree t;
	struct timeline tl;
	random_timeline(&t, &tl, ref, N, 5);
	tree_idx *map;
	tree_finalize_map(&t, TREE_ORDER_WEIGHT, &map);
	ok(map != NULL, "weight order renumbers the random tree");
	timeline_renumber(&tl, map, tree_size(&t));
	free(map);
	ok(tl.nblocks == (N + TIMELINE_BLOCK - 1) / TIMELINE_BLOCK, "%zu blocks of %u", tl.nblocks,
	   TIMELINE_BLOCK);
	ok(same_as_ref(&tl, &t, ref, N, 0, UINT64_MAX), "20,000 entries back through blocks and jumps");
	bool all = true;
	for (int k = 0; k < 20 && all; k++) {
		uint64_t a = ref[next() % N].time, b = ref[next() % N].time;
		uint64_t t0 = a < b ? a : b, t1 = a < b ? b : a;
		all = same_as_ref(&tl, &t, ref, N, t0, t1);
	}
	ok(all, "20 random ranges: exactly the entries inside, in order");

	/* one thread chosen: brute-force sum of weights per stack */
	uint64_t *self = calloc(tree_size(&t), sizeof *self);
	bool pick[5] = { false, false, true, false, false };
	uint64_t t0 = ref[N / 4].time, t1 = t0 + 500000000;
	uint64_t got_n = timeline_self(&tl, t0, t1, pick, self, tree_size(&t));
	struct tree want, sub;
	tree_init(&want);
	tree_init(&sub);
	uint64_t want_n = 0;
	for (size_t i = 0; i < N; i++)
		if (ref[i].thread == 2 && ref[i].time >= t0 && ref[i].time < t1) {
			add(&want, ref[i].stack, ref[i].weight);
			want_n++;
		}
	tree_finalize(&want, TREE_ORDER_NAME);
	timeline_tree(&t, self, TREE_ORDER_NAME, &sub);
	char *a = folded(&want), *b = folded(&sub);
	ok(got_n == want_n && want_n > 0 && strcmp(a, b) == 0,
	   "thread 2 over 0.5 s: %" PRIu64 " entries, the same tree as summed by hand", got_n);
	free(a);
	free(b);
	tree_free(&want);
	tree_free(&sub);
	free(self);

	/* 250 us apart on one thread with one weight: a few bytes each */
	struct timeline dense;
	timeline_init(&dense);
	timeline_thread(&dense, 1, 1, "x", 1);
	for (uint64_t i = 0; i < 100000; i++)
		timeline_add(&dense, 1000000000 + i * 250000, (tree_idx)(next() % 1000000), 0, 250000);
	ok(dense.len <= 100000 * 8, "perf-like entries: %.2f bytes each (at most 8)",
	   (double)dense.len / 100000);
	timeline_free(&dense);
	timeline_free(&tl);
	tree_free(&t);
	free(ref);
}

/* Two pieces, each with its own tree and timeline, merged in order (as the
 * parallel loader does): the whole comes back as added. */
static void test_merge(void)
{
	enum { N = 3000 };
	struct ref *ref = malloc(N * sizeof *ref);
	struct tree t[2];
	struct timeline tl[2];
	uint64_t clock = 5;
	for (int p = 0; p < 2; p++) {
		tree_init(&t[p]);
		timeline_init(&tl[p]);
		/* the pieces know the threads in different orders */
		for (uint32_t i = 0; i < 3; i++) {
			uint32_t k = p ? 2 - i : i;
			char name[8];
			snprintf(name, sizeof name, "n%u", k);
			timeline_thread(&tl[p], 1, k, name, strlen(name));
		}
	}
	for (size_t i = 0; i < N; i++) {
		int p = i >= N / 2;
		random_ref(&ref[i], &clock, 3);
		/* ref says the thread by its tid: the piece's index for it */
		uint32_t tid = ref[i].thread;
		ref[i].thread = p ? 2 - tid : tid;
		add_ref(&t[p], &tl[p], &ref[i]);
		ref[i].thread = tid;      /* piece 0's numbering is the merged one */
	}
	tree_idx *map;
	tree_merge_free_map(&t[0], &t[1], &map);
	timeline_append(&tl[0], &tl[1], timeline_leaf_map, map, 0);
	free(map);
	timeline_free(&tl[1]);
	tree_finalize_map(&t[0], TREE_ORDER_NAME, &map);
	timeline_renumber(&tl[0], map, tree_size(&t[0]));
	free(map);
	ok(tl[0].nthreads == 3, "merged: the 3 threads once each");
	ok(same_as_ref(&tl[0], &t[0], ref, N, 0, UINT64_MAX), "merged pieces: every entry as added");
	uint64_t s = 0;
	for (size_t i = 0; i < 3; i++)
		s += tl[0].threads[i].samples;
	ok(s == N, "merged thread counts add up to %d", N);
	timeline_free(&tl[0]);
	tree_free(&t[0]);
	free(ref);
}

static void test_range(void)
{
	/* samples from 1 s to 3 s (a span of 2 s) */
	struct timeline tl;
	timeline_init(&tl);
	timeline_thread(&tl, 1, 1, "x", 1);
	timeline_add(&tl, 1000000000, 0, 0, 1);
	timeline_add(&tl, 3000000000, 0, 0, 1);
	static const struct { const char *arg; uint64_t t0, t1; } good[] = {
		{ "0.5,1.5", 1500000000, 2500000000 },
		{ ",1", 0, 2000000000 },
		{ "1,", 2000000000, UINT64_MAX },
		{ "25%,50%", 1500000000, 2000000000 },
		{ "50%,100%", 2000000000, UINT64_MAX },   /* 100%: the last sample in */
		{ "10%/2", 1200000000, 1400000000 },
		{ "50%/2", 2000000000, UINT64_MAX },
		{ "30%/4", 2800000000, UINT64_MAX },       /* 0.6 s slices: the 4th is short */
		{ "0.0000000005,1e0", 1000000001, 2000000000 },  /* 10 decimals round */
		{ "1.25,1.25", 2250000000, 2250000000 },   /* empty, not an error */
	};
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		uint64_t t0 = 7, t1 = 7;
		char err[128] = "";
		bool okp = timeline_parse_range(&tl, good[i].arg, &t0, &t1, err, sizeof err);
		ok(okp && t0 == good[i].t0 && t1 == good[i].t1, "--time=%s: [%" PRIu64 ", %" PRIu64 ") %s",
		   good[i].arg, t0, t1, err);
	}
	static const char *bad[] = { "", "1", "2,1", "1,2,3", "x,1", "1,y", "-1,2", "101%,",
	                             "50%/3", "10%/0", "10/2", "%/2", "10%/x" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		uint64_t t0, t1;
		char err[128] = "";
		ok(!timeline_parse_range(&tl, bad[i], &t0, &t1, err, sizeof err) && err[0],
		   "--time=%s refused: %s", bad[i], err);
	}
	timeline_free(&tl);
}

/* A renumbering kept as a map (timeline_map_share 0) or coded into the
 * entries (UINT_MAX): the same entries either way, and entries added after
 * a kept map (the map is then applied to the entries first). */
static void test_kept_map(unsigned share)
{
	enum { N = 5000, M = 700 };
	timeline_map_share = share;
	struct ref *ref = malloc((N + M) * sizeof *ref);
	struct tree t;
	struct timeline tl;
	uint64_t clock = random_timeline(&t, &tl, ref, N, 3);
	tree_idx *map;
	tree_finalize_map(&t, TREE_ORDER_WEIGHT, &map);
	timeline_renumber(&tl, map, tree_size(&t));
	free(map);
	ok((tl.map != NULL) == (share == 0), "map share %u: the renumbering %s", share,
	   share == 0 ? "kept as a map" : "coded into the entries");
	ok(same_as_ref(&tl, &t, ref, N, 0, UINT64_MAX), "map share %u: %d entries back, as added", share, N);
	/* M more: copies of the first M (their new leaves as read), later */
	struct timeline_iter it;
	struct timeline_sample x;
	tree_idx *leaf = malloc(M * sizeof *leaf);
	timeline_iter_init(&it, &tl, 0, UINT64_MAX);
	for (size_t i = 0; i < M && timeline_next(&it, &x); i++)
		leaf[i] = x.leaf;
	for (size_t i = 0; i < M; i++) {
		ref[N + i] = ref[i];
		ref[N + i].time = clock + 1000 * (i + 1);
		timeline_add(&tl, ref[N + i].time, leaf[i], ref[N + i].thread, ref[N + i].weight);
	}
	free(leaf);
	ok(tl.map == NULL && same_as_ref(&tl, &t, ref, N + M, 0, UINT64_MAX),
	   "map share %u: %d entries added after the renumbering, all %d back", share, M, N + M);
	timeline_free(&tl);
	tree_free(&t);
	free(ref);
	timeline_map_share = 4;
}

/* An entry at time UINT64_MAX (a hostile input's time, clamped) is
 * outside every range [t0, t1) but still an entry: coding the entries
 * again (renumbering without a kept map) left it out while the count kept
 * it, and reading every entry then read past the coded bytes. Worked by
 * hand: 3 entries at 100, UINT64_MAX and 200 ns. */
static void test_max_time(void)
{
	timeline_map_share = UINT_MAX;
	struct tree t;
	struct timeline tl;
	tree_init(&t);
	timeline_init(&tl);
	uint32_t th = timeline_thread(&tl, 1, 1, "m", 1);
	/* z before a: name order moves them (a renumbering to do) */
	struct tree_frame fz = { "z", 1 }, fa = { "a", 1 };
	tree_idx l1 = tree_add_stack(&t, &fz, 1, 1), l2 = tree_add_stack(&t, &fa, 1, 1);
	timeline_add(&tl, 100, l2, th, 1);
	timeline_add(&tl, UINT64_MAX, l1, th, 1);
	timeline_add(&tl, 200, l2, th, 1);
	tree_idx *map;
	tree_finalize_map(&t, TREE_ORDER_NAME, &map);
	ok(map != NULL, "z, then a: renumbered");
	timeline_renumber(&tl, map, tree_size(&t));
	free(map);
	uint64_t times[4] = { 0 };
	size_t k = 0;
	for (size_t b = 0; b < tl.nblocks; b++) {
		struct timeline_cursor c;
		timeline_cursor_block(&c, &tl, b);
		while (c.left && k < 4) {
			timeline_cursor_next(&c);
			times[k++] = c.cur.time;
		}
	}
	ok(tl.n == 3 && k == 3 && times[0] == 100 && times[1] == UINT64_MAX && times[2] == 200 &&
	   tl.tmax == UINT64_MAX, "an entry at UINT64_MAX ns kept when the entries are coded again (%zu of %"
	   PRIu64 ")", k, tl.n);
	uint64_t self[3] = { 0 };
	ok(timeline_self(&tl, 0, UINT64_MAX, NULL, self, 3) == 2, "[0, UINT64_MAX) holds the other 2");
	timeline_free(&tl);
	tree_free(&t);
	timeline_map_share = 4;
}

int main(void)
{
	test_max_time();
	test_range();
	test_hand();
	test_random();
	test_merge();
	test_kept_map(0);
	test_kept_map(UINT_MAX);
	/* the rest with every renumbering kept as a map, then with none */
	timeline_map_share = 0;
	test_hand();
	test_random();
	test_merge();
	timeline_map_share = UINT_MAX;
	test_hand();
	test_random();
	test_merge();
	return done_testing();
}
