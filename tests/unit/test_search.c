#include "config.h"
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "searchidx.h"
#include "search.h"
#include "tree.h"
#include "xalloc.h"
#include "tap.h"
#include "treeutil.h"

/* Finished search for pattern (NULL when it does not compile). */
static struct search *run(const struct tree *t, const char *pattern)
{
	char err[128];
	struct search *s = search_new(t, pattern, err, sizeof err);
	if (s)
		search_run(s, 0);
	return s;
}

/* The index of t, ready (NULL after 20 s without). */
static struct searchidx *index_of(const struct tree *t)
{
	struct searchidx *x = searchidx_start(t);
	struct timespec ms = { 0, 1000000 };
	for (int k = 0; x && k < 20000 && !searchidx_ready(x); k++)
		nanosleep(&ms, NULL);
	if (x && !searchidx_ready(x)) {
		searchidx_free(x);
		x = NULL;
	}
	return x;
}

/* "i i i" of the matches in preorder, through search_next. */
static const char *matches(const struct search *s)
{
	static char buf[512];
	buf[0] = 0;
	for (tree_idx i = search_first(s); i != TREE_NONE; i = search_next(s, i))
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%u", buf[0] ? " " : "", i);
	return buf;
}

static void test_totals(void)
{
	struct tree t;
	tree_init(&t);
	add(&t, "a;b;c", 3);
	add(&t, "a;b", 2);
	add(&t, "a;c;b", 4);
	add(&t, "a;d", 1);
	add(&t, "e;b", 5);
	add(&t, "c", 6);
	tree_finalize(&t, TREE_ORDER_NAME);
	/* By hand, name order, preorder numbering (total in parentheses):
	 *   0 all (21)
	 *   1 a (10) = 2 a;b (5: self 2 + c 3) > 3 a;b;c (3)
	 *              4 a;c (4) > 5 a;c;b (4)
	 *              6 a;d (1)
	 *   7 c (6)
	 *   8 e (5) > 9 e;b (5) */
	is_str(tree_name(&t, 5), "b", "fixture: node 5 is a;c;b");
	is_int((long long)t.nodes[1].total.u, 10, "fixture: a has 10 samples");

	struct search *s = run(&t, "b");
	ok(s != NULL, "'b' compiles");
	is_str(matches(s), "2 5 9", "'b': frames 2, 5 and 9, in preorder");
	is_int((long long)search_count(s), 3, "'b': 3 matches");
	/* Sibling and cousin matches, none nested: 5 + 4 + 5. */
	is_int((long long)search_total(s, TREE_ROOT).u, 14, "'b': siblings add up, 14 samples");
	/* Zoomed into a (node 1): 2 (5) + 5 (4). */
	is_int((long long)search_total(s, 1).u, 9, "'b' zoomed into a: 9 of its 10");
	/* Zoomed into c (node 7): nothing. */
	is_int((long long)search_total(s, 7).u, 0, "'b' zoomed into top-level c: 0");
	is_int((long long)search_total(s, 9).u, 5, "'b' zoomed into a match: all of it");
	search_free(s);

	/* Nested: 3 is inside 2, 5 inside 4. Outermost: 2 (5), 4 (4), 7 (6),
	 * 9 (5) = 20; the plain sum over all matches would be 27. */
	s = run(&t, "b|c");
	is_str(matches(s), "2 3 4 5 7 9", "'b|c': nested matches listed in preorder");
	is_int((long long)search_total(s, TREE_ROOT).u, 20, "'b|c': nested matches counted once (20, not 27)");
	is_int((long long)search_total(s, 1).u, 9, "'b|c' zoomed into a: 2 (5) + 4 (4)");
	is_int((long long)search_total(s, 4).u, 4, "'b|c' zoomed into a;c, itself a match: 4");
	is_int((long long)search_total(s, 1).u, 9, "'b|c' zoomed into a again (cached): 9");
	is_int((long long)search_total(s, 8).u, 5, "'b|c' zoomed into e: its child b, 5");
	/* n/N order and ordinals. */
	is_int((long long)search_next(s, 0), 2, "next after the root: 2");
	is_int((long long)search_next(s, 3), 4, "next after 3: 4");
	is_int((long long)search_next(s, 6), 7, "next after a non-match (6): 7");
	ok(search_next(s, 9) == TREE_NONE, "next after the last: none");
	ok(search_prev(s, 2) == TREE_NONE, "prev before the first: none");
	is_int((long long)search_prev(s, 7), 5, "prev before 7: 5");
	is_int((long long)search_prev(s, 8), 7, "prev before a non-match (8): 7");
	is_int((long long)search_first(s), 2, "first: 2");
	is_int((long long)search_last(s), 9, "last: 9");
	is_int((long long)search_ordinal(s, 5), 4, "5 is the 4th match");
	is_int((long long)search_ordinal(s, 1), 0, "a is not a match: ordinal 0");
	ok(search_matches(s, 3) && !search_matches(s, 1) && !search_matches(s, 8), "search_matches by name");
	search_free(s);

	s = run(&t, "zzz");
	is_str(matches(s), "", "no match: nothing listed");
	is_int((long long)search_count(s), 0, "no match: count 0");
	is_int((long long)search_total(s, TREE_ROOT).u, 0, "no match: 0 samples");
	is_int((long long)search_total(s, 1).u, 0, "no match zoomed: 0 samples");
	ok(search_first(s) == TREE_NONE && search_last(s) == TREE_NONE, "no match: no first or last");
	search_free(s);

	/* The root is not a frame: "." matches the 9 others; the top-level
	 * frames a, c, e cover everything: 10 + 6 + 5. */
	s = run(&t, ".");
	is_int((long long)search_count(s), 9, "'.': every frame but the root");
	ok(!search_matches(s, TREE_ROOT), "'.': the root never matches");
	is_int((long long)search_total(s, TREE_ROOT).u, 21, "'.': 21 samples, all of them");
	search_free(s);
	s = run(&t, "all");
	is_int((long long)search_count(s), 0, "'all' does not match the root");
	search_free(s);

	/* Exact search for the name "c": frames 3, 4 and 7, as '^c$'. */
	int64_t cid = strtab_find(&t.names, "c", 1);
	s = search_new_exact(&t, (strtab_id)cid);
	search_run(s, 0);
	is_str(search_pattern(s), "^c$", "exact: pattern text ^c$");
	is_str(matches(s), "3 4 7", "exact 'c': frames 3, 4, 7");
	is_int((long long)search_total(s, TREE_ROOT).u, 13, "exact 'c': 3 + 4 + 6");
	search_free(s);

	/* Not finished yet: no results. */
	s = search_new(&t, "b", NULL, 0);
	ok(!search_done(s) && search_count(s) == 0 && !search_matches(s, 2), "before the pass: no results");
	search_free(s);
	tree_free(&t);
}

static void test_case_and_bytes(void)
{
	struct tree t;
	tree_init(&t);
	add(&t, "Foo", 1);
	add(&t, "foo", 2);
	add(&t, "FOO_bar", 4);
	struct tree_frame nul[] = { { "x\0y", 3 } };
	tree_add_stack(&t, nul, 1, 8);
	struct tree_frame bad[] = { { "\xff\xfe" "z", 3 } };
	tree_add_stack(&t, bad, 1, 16);
	add(&t, "a.b[c]{d}|e(f)*+?^$\\g", 32);
	add(&t, "aXb[c]{d}|e(f)*+?^$\\g", 64);
	tree_finalize(&t, TREE_ORDER_NAME);
	/* Totals are powers of two, so a total names its frames. */
	struct search *s = run(&t, "foo");
	is_int((long long)search_total(s, TREE_ROOT).u, 7, "smart case: 'foo' is case-insensitive (1 + 2 + 4)");
	ok(search_icase(s), "'foo' compiled with REG_ICASE");
	search_free(s);
	s = run(&t, "Foo");
	is_int((long long)search_total(s, TREE_ROOT).u, 1, "smart case: 'Foo' is case-sensitive");
	search_free(s);
	s = run(&t, "\\Bo");
	ok(s && search_icase(s), "an escape (\\B) is not an upper-case letter");
	is_int((long long)search_total(s, TREE_ROOT).u, 7, "'\\Bo' matches the three foos");
	search_free(s);
	/* "x\0y": the whole name is matched ("y$" at its real end). */
	s = run(&t, "y$");
	is_int((long long)search_total(s, TREE_ROOT).u, 8, "a NUL inside a name does not end it");
	search_free(s);
	s = run(&t, "z$");
	is_int((long long)search_total(s, TREE_ROOT).u, 16, "invalid UTF-8 in a name: matched, no failure");
	search_free(s);

	/* Plain text takes a substring test instead of regexec: both ways
	 * must agree ("fo[o]" forces the regex path). */
	struct search *lit = run(&t, "foo"), *re = run(&t, "fo[o]");
	is_int((long long)search_total(lit, TREE_ROOT).u, (long long)search_total(re, TREE_ROOT).u,
	       "plain text and regex agree, case-insensitive (7)");
	search_free(lit);
	search_free(re);
	lit = run(&t, "FOO");
	re = run(&t, "F[O]O");
	is_int((long long)search_total(lit, TREE_ROOT).u, 4, "plain text FOO: case-sensitive, FOO_bar only");
	is_int((long long)search_total(re, TREE_ROOT).u, 4, "regex F[O]O: the same");
	search_free(lit);
	search_free(re);
	s = run(&t, "y");
	is_int((long long)search_total(s, TREE_ROOT).u, 8, "plain text looks past a NUL in a name, as regexec");
	search_free(s);
	s = run(&t, "o_b");
	is_int((long long)search_total(s, TREE_ROOT).u, 4, "plain text in the middle of a name");
	search_free(s);

	/* Alternatives of plain text, anchored or not, also skip regexec.
	 * Each is worked out by hand from the powers of two above (Foo 1,
	 * foo 2, FOO_bar 4, x\0y 8, \xff\xfez 16, a.b... 32, aXb... 64), and
	 * checked against the same pattern inside a group, which regexec
	 * takes. */
	static const struct { const char *lit, *re; long long want; } alts[] = {
		{ "^foo$|z", "(^foo$|z)", 2 + 1 + 16 },     /* icase: Foo, foo; z */
		{ "^FOO", "(^FOO)", 4 },
		{ "bar$|^x", "(bar$|^x)", 4 + 8 },
		{ "^a\\.b", "(^a\\.b)", 32 },             /* \. is a dot */
		{ "^a.b", "(^a.b)", 32 + 64 },              /* . is any: regexec */
		{ "Foo|FOO", "(Foo|FOO)", 1 + 4 },
		{ "\\\\g$", "(\\\\g$)", 32 + 64 },        /* \\ is a backslash */
		{ "zzz|", "(zzz|)", 1 + 2 + 4 + 8 + 16 + 32 + 64 },   /* empty: all */
		{ "^", "(^)", 1 + 2 + 4 + 8 + 16 + 32 + 64 },
		{ "^$|^foo$", "(^$|^foo$)", 1 + 2 },        /* no empty name here */
	};
	for (size_t k = 0; k < sizeof alts / sizeof alts[0]; k++) {
		lit = run(&t, alts[k].lit);
		re = run(&t, alts[k].re);
		ok(lit && re && search_total(lit, TREE_ROOT).u == (uint64_t)alts[k].want &&
		   search_total(re, TREE_ROOT).u == (uint64_t)alts[k].want,
		   "'%s' and '%s' both match %lld", alts[k].lit, alts[k].re, alts[k].want);
		search_free(lit);
		search_free(re);
	}

	/* Narrowing while typing: a search that starts from a wider one's
	 * matches must find exactly what a fresh one finds; where narrowing
	 * does not apply (other case rule, not a substring, anchors) it must
	 * change nothing. Totals by hand: Foo 1, foo 2, FOO_bar 4. */
	{
		static const struct { const char *prev, *next; long long want; bool applies; } nw[] = {
			{ "o", "foo", 7, true },            /* icase both */
			{ "FOO", "FOO_bar", 4, true },      /* case-sensitive both */
			{ "Foo", "foo", 7, false },         /* Foo is case-sensitive */
			{ "bar", "foo", 7, false },         /* not inside (else 4) */
			{ "o$", "foo", 7, false },          /* anchors differ (else 3) */
			{ "o$", "fo", 7, false },           /* anchors differ (else 3) */
			/* Alternatives, one by one ('z' is only in name 16): */
			{ "fo|z", "foo|z", 7 + 16, true },
			{ "foo|", "foo|z", 7 + 16, true },  /* "" is inside anything */
			{ "foo", "foo|z", 7 + 16, false },  /* one more alternative (else 7) */
			{ "z|foo", "foo|z", 7 + 16, false }, /* by position: z not in foo */
			/* Anchored: a prefix of the prefix, a suffix of the suffix. */
			{ "^fo", "^foo", 7, true },
			{ "oo$", "foo$", 3, true },
			{ "^f", "^of", 0, false },          /* not a prefix of it */
		};
		for (size_t k = 0; k < sizeof nw / sizeof nw[0]; k++) {
			struct search *a = run(&t, nw[k].prev);
			struct search *b = search_new(&t, nw[k].next, NULL, 0);
			search_narrow(b, a);
			ok(search_is_narrowed(b) == nw[k].applies, "%s after %s: narrowing %s", nw[k].next,
			   nw[k].prev, nw[k].applies ? "applies" : "does not apply");
			search_run(b, 0);
			is_int((long long)search_total(b, TREE_ROOT).u, nw[k].want, nw[k].next);
			search_free(a);
			search_free(b);
		}
	}

	/* Long names take the 16-at-a-time scan: a needle at every offset of
	 * a 40-byte name (across the block edges, up to the very end), in
	 * both cases, and near misses (first and last byte right, middle
	 * wrong). Each name has its own count, 1 << offset, so the total
	 * says exactly which matched: all 35 offsets of "NeEdLe". */
	{
		struct tree lt;
		tree_init(&lt);
		for (int off = 0; off + 6 <= 40; off++) {
			char name[41], miss[41];
			memset(name, 'x', 40);
			memcpy(name + off, "NeEdLe", 6);
			name[40] = 0;
			memset(miss, 'n', 40);
			memcpy(miss + off, "nEEDXe", 6);
			miss[40] = 0;
			struct tree_frame f1 = { name, 40 }, f2 = { miss, 40 };
			tree_add_stack(&lt, &f1, 1, (uint64_t)1 << off);
			tree_add_stack(&lt, &f2, 1, (uint64_t)1 << 40);
		}
		tree_finalize(&lt, TREE_ORDER_NAME);
		lit = run(&lt, "needle");
		re = run(&lt, "(needle)");
		is_int((long long)search_total(lit, TREE_ROOT).u, ((long long)1 << 35) - 1,
		       "long names: the needle found at each of the 35 offsets, no near miss taken");
		is_int((long long)search_total(re, TREE_ROOT).u, ((long long)1 << 35) - 1, "long names: regexec agrees");
		search_free(lit);
		search_free(re);
		lit = run(&lt, "NeEdLe");
		is_int((long long)search_total(lit, TREE_ROOT).u, ((long long)1 << 35) - 1, "long names: case-sensitive");
		search_free(lit);
		lit = run(&lt, "NEEDLE");
		is_int((long long)search_total(lit, TREE_ROOT).u, 0, "long names: case-sensitive miss");
		search_free(lit);
		tree_free(&lt);
	}

	char *q = search_quote("a.b[c]{d}|e(f)*+?^$\\g", 21);
	is_str(q, "^a\\.b\\[c\\]\\{d\\}\\|e\\(f\\)\\*\\+\\?\\^\\$\\\\g$", "quote escapes every ERE metacharacter");
	s = run(&t, q);
	is_int((long long)search_total(s, TREE_ROOT).u, 32, "the quoted name matches itself only");
	search_free(s);
	free(q);
	q = search_quote("x\0y", 3);
	is_str(q, "^x", "quote stops at a NUL, without the $");
	free(q);

	char err[128] = "";
	s = search_new(&t, "a[", err, sizeof err);
	ok(s == NULL && err[0] != '\0', "invalid regex: NULL and a message (%s)", err);
	err[0] = 0;
	s = search_new(&t, "(b", err, sizeof err);
	ok(s == NULL && err[0] != '\0', "unbalanced parenthesis: NULL and a message (%s)", err);
	s = search_new(&t, "", err, sizeof err);
	ok(s == NULL, "the empty pattern is refused");
	tree_free(&t);
}

static void test_frac(void)
{
	struct tree t;
	tree_init(&t);
	struct tree_frame ab[] = { { "a", 1 }, { "b", 1 } };
	tree_add_stack_dec(&t, ab, 2, (struct tree_dec){ 5, 1, false, false });
	tree_add_stack_dec(&t, ab, 1, (struct tree_dec){ 25, 2, false, false });
	tree_add_stack_dec(&t, ab + 1, 1, (struct tree_dec){ 2, 0, false, false });
	tree_finalize(&t, TREE_ORDER_NAME);
	/* a 0.75 > a;b 0.5; b 2. 'a|b': a (0.75) + b (2), a;b nested. */
	struct search *s = run(&t, "a|b");
	/* in hundredths: the tree took two decimals */
	ok(search_total(s, TREE_ROOT).u == 275, "fractional counts: 0.75 + 2, nested 0.5 once");
	ok(search_total(s, 1).u == 75, "fractional, zoomed into a: 0.75");
	search_free(s);
	tree_free(&t);
}

/* A pass cut into slices gives what one pass gives. 70,000 names: the
 * names phase checks the clock every 256 names, so a 1 ns budget must
 * stop it many times. */
static void test_slices(void)
{
	struct tree t, big;
	tree_init(&t);
	tree_init(&big);
	char name[32];
	for (int k = 0; k < 70000; k++) {
		snprintf(name, sizeof name, "f%d", k);
		struct tree_frame f[] = { { "r", 1 }, { name, strlen(name) } };
		tree_add_stack(&t, f, 2, (uint64_t)(k % 7 + 1));
	}
	tree_finalize(&t, TREE_ORDER_NAME);
	struct search *whole = run(&t, "7$");
	struct search *sliced = search_new(&t, "7$", NULL, 0);
	int calls = 1;
	while (!search_run(sliced, 1))
		calls++;
	ok(calls > 100, "1 ns slices: the pass resumed %d times", calls);
	is_int((long long)search_count(sliced), (long long)search_count(whole), "sliced: same count");
	/* Names f...7: 7000 of them (k = 7, 17, ..., 69997). */
	is_int((long long)search_count(sliced), 7000, "7000 names end in 7");
	is_int((long long)search_total(sliced, TREE_ROOT).u, (long long)search_total(whole, TREE_ROOT).u,
	       "sliced: same total");
	ok(search_first(sliced) == search_first(whole) && search_last(sliced) == search_last(whole),
	   "sliced: same first and last");
	search_free(sliced);

	/* Two threads: the helper takes the upper half of the names, then of
	 * the nodes, while the slices do the lower; the results must not
	 * change. Four children "a0".."a3" under each f make the tree big
	 * enough for the nodes' helper too (350,002 nodes). */
	for (int k = 0; k < 70000; k++) {
		for (int j = 0; j < 4; j++) {
			char a[4] = { 'a', (char)('0' + j), 0, 0 };
			snprintf(name, sizeof name, "f%d", k);
			struct tree_frame f[] = { { "r", 1 }, { name, strlen(name) }, { a, 2 } };
			tree_add_stack(&big, f, 3, 1);
		}
	}
	tree_finalize(&big, TREE_ORDER_NAME);
	is_int((long long)tree_size(&big), 350002, "big tree: 350,002 nodes");
	struct search *whole2 = run(&big, "7$|a3");
	search_set_threads(2);
	struct search *two = search_new(&t, "7$", NULL, 0);
	while (!search_run(two, 1))
		;
	is_int((long long)search_count(two), 7000, "2 threads, sliced: 7000 names end in 7");
	is_int((long long)search_total(two, TREE_ROOT).u, (long long)search_total(whole, TREE_ROOT).u,
	       "2 threads: same total");
	/* On the big tree: 7000 f names end in 7 (4 samples each, a0..a3),
	 * and 70000 nodes are a3 (1 each), of which the 7000 under those f
	 * are inside a match: 7000 * 4 + 63000 = 91000 samples. */
	struct search *bigtwo = search_new(&big, "7$|a3", NULL, 0);
	while (!search_run(bigtwo, 1))
		;
	is_int((long long)search_count(bigtwo), 77000, "2 threads, 350,002 nodes: 7000 + 70000 matches");
	is_int((long long)search_total(bigtwo, TREE_ROOT).u, 91000, "2 threads: outermost matches' samples");
	is_int((long long)search_total(whole2, TREE_ROOT).u, 91000, "1 thread: the same");
	ok(search_first(bigtwo) == search_first(whole2) && search_last(bigtwo) == search_last(whole2) &&
	   search_ordinal(bigtwo, search_last(whole2)) == 77000, "2 threads: same first, last and ordinals");
	struct search *bigp = search_new(&big, "a3", NULL, 0);
	for (int k = 0; k < 40 && !search_run(bigp, 1); k++)
		;
	search_pause(bigp);
	search_run(bigp, 0);
	is_int((long long)search_count(bigp), 70000, "paused in either phase, finished alone: 70000 a3");
	search_free(bigp);
	search_free(bigtwo);
	search_free(whole2);
	/* Narrowed from a finished wider search ("9" then "99"), on 2 threads:
	 * the names holding "99", counted here with strstr. */
	long long want99 = 0;
	for (int k = 0; k < 70000; k++) {
		snprintf(name, sizeof name, "f%d", k);
		want99 += strstr(name, "99") != NULL;
	}
	struct search *nine = search_new(&t, "9", NULL, 0);
	while (!search_run(nine, 1))
		;
	struct search *nn = search_new(&t, "99", NULL, 0);
	search_narrow(nn, nine);
	while (!search_run(nn, 1))
		;
	is_int((long long)search_count(nn), want99, "2 threads, narrowed from '9': names with 99");
	/* Paused after one slice (the tree could go away): the rest is done
	 * on one thread, with the same answer. Then one freed while its
	 * helper runs: the sanitizer and valgrind runs check that. */
	struct search *p = search_new(&t, "7$", NULL, 0);
	search_run(p, 1);
	search_pause(p);
	search_run(p, 0);
	is_int((long long)search_count(p), 7000, "paused, then finished alone: 7000");
	struct search *gone = search_new(&t, "f1", NULL, 0);
	search_run(gone, 1);
	search_free(gone);
	search_set_threads(1);
	search_free(p);
	search_free(nn);
	search_free(nine);
	search_free(two);
	search_free(whole);
	tree_free(&t);
	tree_free(&big);
}

/* A match whose subtree crosses the middle of the node scan: its nested
 * matches in the helper's half are inside it and add nothing. Top-level
 * "m" has 300,000 children "m0".."m299999" (k % 5 + 1 samples each), then
 * "x" has 10 children "mx0".."mx9" (2 each), outside of "m". */
static void test_crossing(void)
{
	struct tree t;
	tree_init(&t);
	char name[32];
	for (int k = 0; k < 300000; k++) {
		snprintf(name, sizeof name, "m%d", k);
		struct tree_frame f[] = { { "m", 1 }, { name, strlen(name) } };
		tree_add_stack(&t, f, 2, (uint64_t)(k % 5 + 1));
	}
	for (int k = 0; k < 10; k++) {
		snprintf(name, sizeof name, "mx%d", k);
		struct tree_frame f[] = { { "x", 1 }, { name, strlen(name) } };
		tree_add_stack(&t, f, 2, 2);
	}
	tree_finalize(&t, TREE_ORDER_NAME);
	/* 60000 * (1 + 2 + 3 + 4 + 5) under m, plus 10 * 2 under x. */
	struct search *one = run(&t, "m");
	is_int((long long)search_total(one, TREE_ROOT).u, 900020, "1 thread: m's subtree once, then the mx");
	search_set_threads(2);
	struct search *two = run(&t, "m");
	search_set_threads(1);
	is_int((long long)search_count(two), 300011, "2 threads: 1 + 300000 + 10 matches");
	is_int((long long)search_total(two, TREE_ROOT).u, 900020,
	       "2 threads: matches inside m past the middle add nothing");
	ok(search_ordinal(two, search_last(one)) == 300011 && search_first(two) == search_first(one),
	   "2 threads: the same list");
	/* Through an index (300,013 names: 4 bytes a node), both ways. */
	struct searchidx *x = index_of(&t);
	struct search *ix1 = search_new(&t, "m", NULL, 0), *ix2 = search_new(&t, "mx", NULL, 0);
	if (x) {
		search_use_index(ix1, x);
		search_use_index(ix2, x);
	}
	search_set_threads(2);
	search_run(ix1, 0);
	search_set_threads(1);
	search_run(ix2, 0);
	ok(x && search_count(ix1) == 300011 && search_total(ix1, TREE_ROOT).u == 900020 &&
	   search_ordinal(ix1, search_last(one)) == 300011, "with the index, 2 threads: the same");
	ok(search_count(ix2) == 10 && search_total(ix2, TREE_ROOT).u == 20,
	   "with the index, 1 thread: mx, the 10 frames under x");
	search_free(ix1);
	search_free(ix2);
	searchidx_free(x);
	search_free(two);
	search_free(one);
	tree_free(&t);
}

/* Whether searches a and b found exactly the same frames and samples. */
static bool same_result(const struct search *a, const struct search *b)
{
	if (search_count(a) != search_count(b) ||
	    search_total(a, TREE_ROOT).u != search_total(b, TREE_ROOT).u)
		return false;
	tree_idx i = search_first(a), j = search_first(b);
	for (; i != TREE_NONE && i == j; i = search_next(a, i), j = search_next(b, j))
		;
	return i == TREE_NONE && j == TREE_NONE;
}

/* Signatures change how fast, never what: every pattern finds the same
 * frames with them as without, on names of mixed case, punctuation,
 * unclassed bytes and NULs. */
static void test_sigs(void)
{
	static const char *const names[] = {
		"malloc", "Malloc", "MALLOC", "read", "write", "rea", "std::vector<int>::push_back",
		"_start", "x86_64", "a.b", "a\x80" "b", "\xc3\xa9t\xc3\xa9", "q", "Q", "zz;zz",
		"read_write", "m", "", "tail$", "(anonymous namespace)", "[unknown]", "~dtor",
	};
	size_t nn = sizeof names / sizeof names[0];
	struct tree t;
	tree_init(&t);
	unsigned seed = 7;
	for (int k = 0; k < 600; k++) {
		struct tree_frame f[4];
		size_t n = 0;
		for (; n < 1 + (size_t)k % 4; n++) {
			seed = seed * 1103515245u + 12345u;
			const char *nm = names[(seed >> 16) % nn];
			f[n] = (struct tree_frame){ nm, strlen(nm) };
		}
		tree_add_stack(&t, f, n, 1 + (uint64_t)k % 3);
	}
	/* A NUL inside: "x" NUL "m" and "w" NUL "read". */
	struct tree_frame z1[] = { { "x\0m", 3 } }, z2[] = { { "w\0read", 6 } };
	tree_add_stack(&t, z1, 1, 5);
	tree_add_stack(&t, z2, 1, 6);
	tree_finalize(&t, TREE_ORDER_NAME);
	struct searchidx *x = index_of(&t);
	ok(x != NULL, "the index of a tree of %zu names", strtab_count(&t.names));
	static const char *const pats[] = {
		"m", "M", "q", "Q", "x", "_", ":", ".", "\\.", "$", "~", "ma", "MA", "alloc", "read|w",
		"read|", "^r", "e$", "^m$", "^$", "^", "std::", "q|z", "zz", "a.b", "\xc3\xa9", "b",
		"read|write|std", "^_|6$", "(", "\\(", "t\\$",
	};
	bool all = true;
	for (size_t k = 0; k < sizeof pats / sizeof pats[0]; k++) {
		struct search *plain = run(&t, pats[k]);
		struct search *fast = search_new(&t, pats[k], NULL, 0);
		if (!plain || !fast) {
			all &= !plain && !fast;
			search_free(plain);
			search_free(fast);
			continue;
		}
		if (x)
			search_use_index(fast, x);
		search_run(fast, 0);
		if (!same_result(plain, fast)) {
			all = false;
			printf("# '%s': %zu matches without signatures, %zu with\n", pats[k],
			       search_count(plain), search_count(fast));
		}
		search_free(plain);
		search_free(fast);
	}
	ok(all, "signatures: %zu patterns find the same frames as without",
	   sizeof pats / sizeof pats[0]);
	/* Counted by hand: "m" is in malloc, Malloc, MALLOC, m, and (after the
	 * NUL) "x\0m" when the regex library reads names whole. */
	struct search *m = search_new(&t, "m", NULL, 0);
	if (x)
		search_use_index(m, x);
	search_run(m, 0);
	size_t want = 0;
	for (tree_idx i = 1; i < tree_size(&t); i++) {
		const char *nm = tree_name(&t, i);
		size_t len = tree_name_len(&t, i);
		want += memchr(nm, 'm', len) || memchr(nm, 'M', len);
	}
	is_int((long long)search_count(m), (long long)want, "'m' with signatures: every frame with an m or M");
	search_free(m);
	searchidx_free(x);
	tree_free(&t);
}

int main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	test_totals();
	test_case_and_bytes();
	test_frac();
	test_slices();
	test_crossing();
	test_sigs();
	return done_testing();
}
