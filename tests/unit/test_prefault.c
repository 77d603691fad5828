/* prefault.c: the helper writes a zero byte to each whole page of the
 * region and nothing else, never where the filler has claimed, and a
 * tree whose room it faults in is node for node the tree built without
 * it. Built with PREFAULT_MIN and PREFAULT_STEP of 64 KiB (a multiple of
 * 4, 16 and 64 KiB pages), so that small regions get a helper. */
#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "prefault.h"
#include "tree.h"
#include "tap.h"

static uint64_t rnd(uint64_t *seed)
{
	*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return *seed >> 33;
}

static void nap(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
	nanosleep(&ts, NULL);
}

static size_t page_size(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	return pg > 0 ? (size_t)pg : 4096;
}

/* Bytes of buf[0, len) that differ from c; the first at *at. */
static size_t count_not(const unsigned char *buf, size_t len, unsigned char c, size_t *at)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		if (buf[i] != c && n++ == 0)
			*at = i;
	return n;
}

static void test_small(void)
{
	char *buf = malloc(PREFAULT_MIN);
	if (!buf)
		abort();
	ok(prefault_begin(buf, 0, PREFAULT_MIN - 1) == NULL, "a region under PREFAULT_MIN gets no helper");
	ok(prefault_begin(buf, 100, 100) == NULL && prefault_begin(buf, 200, 100) == NULL,
	   "nor an empty or reversed one");
	ok(prefault_begin(NULL, 0, PREFAULT_MIN) == NULL, "nor no memory");
	ok(prefault_end(NULL) == 0, "prefault_end(NULL) does nothing");
	free(buf);
}

/* The helper alone (the filler claims nothing until the end): in a
 * buffer of 0x55, exactly one zero byte at the start of each whole page
 * of [from, to) it reached, as many as it says it wrote, nothing outside
 * the region touched; given time, it reaches every whole page. */
static void test_helper_alone(void)
{
	size_t page = page_size(), len = 4 * PREFAULT_MIN + 3 * page;
	unsigned char *buf = malloc(len);
	if (!buf)
		abort();
	size_t from = page / 2 + 7, to = len - page - 13;   /* partial pages at both ends */
	size_t first = (size_t)((((uintptr_t)buf + from + page - 1) & ~(uintptr_t)(page - 1)) - (uintptr_t)buf);
	size_t last = (size_t)((((uintptr_t)buf + to) & ~(uintptr_t)(page - 1)) - (uintptr_t)buf);
	size_t whole = (last - first) / page, written = 0;
	for (int attempt = 0; attempt < 5 && written < whole * page; attempt++) {
		memset(buf, 0x55, len);
		struct prefault *pf = prefault_begin((char *)buf, from, to);
		if (!ok(pf != NULL, "a region of %zu bytes gets a helper", to - from))
			break;
		nap(200000L << attempt);
		written = prefault_end(pf);
		size_t zeros = 0, stray = 0;
		for (size_t i = 0; i < len; i++) {
			if (buf[i] == 0x55)
				continue;
			if (buf[i] == 0 && i >= first && i < last && (i - first) % page == 0)
				zeros++;
			else
				stray++;
		}
		ok(stray == 0, "... no byte written but a page's first (%zu others)", stray);
		ok(zeros * page == written, "... a zero for each page it says it wrote (%zu pages, %zu bytes)", zeros,
		   written);
	}
	ok(written == whole * page, "... and given time, every whole page of the region (%zu of %zu pages)",
	   written / page, whole);
	free(buf);
}

/* The filler writes 0xa5 over the region as it claims it, in pieces of
 * odd sizes, at paces from none to a nap a piece: every byte of the region
 * is the filler's at the end (the helper wrote nothing where it had
 * been, nor after), every byte outside untouched; claims return at least
 * what was asked, never less than before, and SIZE_MAX once all is
 * claimed. */
static void test_filler(void)
{
	size_t page = page_size();
	uint64_t seed = 42;
	int bad_claims = 0, bad_bytes = 0, helped = 0, runs = 0;
	for (int r = 0; r < 40; r++) {
		size_t len = PREFAULT_MIN * (2 + rnd(&seed) % 6) + rnd(&seed) % (3 * page);
		unsigned char *buf = malloc(len + 64);
		if (!buf)
			abort();
		memset(buf, 0x55, len + 64);
		size_t from = 32 + rnd(&seed) % (2 * page), to = len + 32 - rnd(&seed) % page;
		struct prefault *pf = prefault_begin((char *)buf, from, to);
		if (!pf) {
			free(buf);
			continue;
		}
		runs++;
		int pace = r % 4;       /* 0: flat out; 1-3: a nap every 2^k pieces */
		size_t at = from, prev = 0, piece = 1 + rnd(&seed) % 5000, k = 0;
		while (at < to) {
			size_t n = piece < to - at ? piece : to - at;
			size_t lim = prefault_claim(pf, at + n);
			if (lim < at + n || lim < prev)
				bad_claims++;
			prev = lim;
			memset(buf + at, 0xa5, n);
			at += n;
			if (pace && ++k % ((size_t)1 << (2 * pace)) == 0)
				nap(50);
		}
		if (prefault_claim(pf, to) != SIZE_MAX && to - from >= PREFAULT_STEP)
			bad_claims++;
		size_t w = prefault_end(pf), where = 0;
		helped += w > 0;
		if (count_not(buf + from, to - from, 0xa5, &where) || count_not(buf, from, 0x55, &where) ||
		    count_not(buf + to, len + 64 - to, 0x55, &where))
			bad_bytes++;
		free(buf);
	}
	ok(runs == 40, "every region of 2 to 7 times PREFAULT_MIN gets a helper (%d)", runs);
	ok(bad_claims == 0, "... claims give at least what is asked, never less than before, all at the end (%d bad)",
	   bad_claims);
	ok(bad_bytes == 0, "... the filler's bytes are all there and nothing outside was written (%d runs bad)",
	   bad_bytes);
	ok(helped > 0, "... the helper wrote pages in %d of the %d runs", helped, runs);
}

/* ---- a tree's room faulted in ------------------------------------------ */

enum { NAMES = 60, MAXD = 9 };

struct stk {
	uint8_t n;
	strtab_id f[MAXD];
};

static int cmp_stk(const void *a, const void *b)
{
	const struct stk *x = a, *y = b;
	for (int i = 0; i < x->n && i < y->n; i++)
		if (x->f[i] != y->f[i])
			return x->f[i] < y->f[i] ? -1 : 1;
	return (x->n > y->n) - (x->n < y->n);
}

/* ns distinct random stacks, sorted by their ids (as tree_add_stacks_new
 * wants them), into t: with the room reserved for room nodes first, with
 * a helper when pf. Returns the nodes made. */
static size_t build(struct tree *t, const struct stk *s, size_t ns, size_t room, bool pf, bool end_early)
{
	tree_init(t);
	char nm[16];
	for (int i = 0; i < NAMES; i++)
		tree_intern(t, nm, (size_t)snprintf(nm, sizeof nm, "fn%d", i));
	if (pf)
		tree_reserve_prefault(t, room);
	else
		tree_reserve(t, room);
	for (size_t i = 0; i < ns; i++) {
		size_t keep = 0;
		if (i)
			while (keep < s[i].n && keep < s[i - 1].n && s[i].f[keep] == s[i - 1].f[keep])
				keep++;
		struct tree_stack one = { keep, s[i].f + keep, s[i].n - keep, { 1 + i % 7, 0, false, false } };
		tree_add_stacks_new(t, &one, 1, NULL);
		if (end_early && i == ns / 2)
			tree_prefault_end(t);
	}
	size_t n = tree_size(t);
	tree_prefault_end(t);
	return n;
}

static void test_tree(void)
{
	size_t ns = 30000;
	struct stk *s = malloc(ns * sizeof *s);
	if (!s)
		abort();
	uint64_t seed = 7;
	for (size_t i = 0; i < ns; i++) {
		s[i].n = (uint8_t)(2 + rnd(&seed) % (MAXD - 1));
		for (int k = 0; k < s[i].n; k++)
			s[i].f[k] = (strtab_id)(1 + rnd(&seed) % NAMES);   /* (0 is the root's "all") */
	}
	qsort(s, ns, sizeof *s, cmp_stk);
	size_t m = 0;
	for (size_t i = 0; i < ns; i++)
		if (!m || cmp_stk(&s[m - 1], &s[i]) != 0)
			s[m++] = s[i];
	ns = m;
	struct tree plain, t;
	size_t nodes = build(&plain, s, ns, 1, false, false);
	ok(nodes * sizeof(struct tree_node) >= 4 * PREFAULT_MIN, "%zu stacks make %zu nodes (%zu KiB)", ns, nodes,
	   nodes * sizeof(struct tree_node) >> 10);
	const struct {
		size_t room;
		bool end_early;
		const char *what;
	} cases[] = {
		{ nodes - 1, false, "the room it needs" },
		{ nodes + 5000, false, "more room than it needs" },
		{ nodes / 3, false, "a third of its room (the array grows past it: the helper ends first)" },
		{ nodes, true, "its room, the helper ended half way" },
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		size_t n = build(&t, s, ns, cases[c].room, true, cases[c].end_early);
		ok(n == nodes && memcmp(t.nodes, plain.nodes, nodes * sizeof *t.nodes) == 0,
		   "a tree built with a helper faulting in %s: node for node the one built without", cases[c].what);
		tree_finalize(&t, TREE_ORDER_NAME);
		tree_free(&t);
	}
	/* freed with the helper still at work: it is stopped first */
	tree_init(&t);
	tree_reserve_prefault(&t, nodes);
	ok(t.b.pf != NULL, "a room of %zu nodes gets a helper", nodes);
	tree_free(&t);
	ok(t.b.pf == NULL, "... and tree_free stops it before the array goes");
	tree_free(&plain);
	free(s);
}

int main(void)
{
	test_small();
	test_helper_alone();
	test_filler();
	test_tree();
	return done_testing();
}
