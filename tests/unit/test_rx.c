/* Unit tests of rx (the regexes users type) and of the search's use of it:
 * the syntax kept from POSIX ERE, smart case, whole names with NUL bytes
 * and invalid UTF-8, the caps on patterns, and bounded matching: the
 * issue 21 reproductions end as RX_COSTLY, the same every time, and a
 * search counts them as no match and checks its clock often enough that
 * a slice cannot run on for long. Expectations are worked out by hand
 * (comments). alarm() is a hang guard, not a timing. */
#include "config.h"
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rx.h"
#include "search.h"
#include "tree.h"
#include "tap.h"
#include "treeutil.h"

#define S(lit) lit, sizeof lit - 1

/* The result of pattern (case cs) on s[0..len); -1 when it does not compile. */
static int m(const char *pattern, enum rx_case cs, const char *s, size_t len)
{
	char err[128];
	struct rx *re = rx_new(pattern, strlen(pattern), cs, err, sizeof err);
	if (!re)
		return -1;
	int r = (int)rx_match(re, s, len);
	rx_free(re);
	return r;
}

static void test_syntax(void)
{
	const enum rx_case C = RX_CASE_SENSITIVE;
	/* ERE kept: a backslash inside brackets is itself; ']' first is a
	 * member; {,n} is {0,n}; GNU's word edges. */
	is_int(m("[\\]", C, S("a\\b")), RX_MATCH, "[\\] is a class of one backslash (ERE)");
	is_int(m("[\\]", C, S("ab")), RX_NOMATCH, "[\\]: no backslash, no match");
	is_int(m("[\\d]", C, S("d")), RX_MATCH, "[\\d] holds 'd' (ERE), ...");
	is_int(m("[\\d]", C, S("7")), RX_NOMATCH, "... not the digits");
	is_int(m("[]x]", C, S("a]")), RX_MATCH, "[]x]: ']' first is a member");
	is_int(m("[^]x]", C, S("]]x")), RX_NOMATCH, "[^]x]: neither ']' nor 'x'");
	is_int(m("[[:digit:]]+$", C, S("f12")), RX_MATCH, "[[:digit:]] classes");
	is_int(m("^a{,2}b$", C, S("aab")), RX_MATCH, "a{,2}: up to 2 a's (GNU ERE)");
	is_int(m("^a{,2}b$", C, S("aaab")), RX_NOMATCH, "a{,2}: not 3");
	is_int(m("\\<read\\>", C, S("do_read(x)")), RX_NOMATCH, "\\<read\\>: _ is a word character");
	is_int(m("\\<read\\>", C, S("do read(x)")), RX_MATCH, "\\<read\\>: a whole word");
	is_int(m("\\`ab\\'", C, S("ab")), RX_MATCH, "\\` and \\' are the name's ends");
	/* PCRE2's escapes on top. */
	is_int(m("^f\\d+$", C, S("f12")), RX_MATCH, "\\d is a digit outside brackets");
	is_int(m("\\Q[x]\\E", C, S("a[x]")), RX_MATCH, "\\Q...\\E: brackets are text");
	is_int(m("(?i)FOO", C, S("foo")), RX_MATCH, "(?i) inline");
	is_int(m("std::(?!vector)", C, S("std::vector")), RX_NOMATCH, "lookahead");
	/* POSIX without REG_NEWLINE: "$" is the end only, "." takes a newline. */
	is_int(m("foo$", C, S("foo\n")), RX_NOMATCH, "$ is not before a final newline");
	is_int(m("a.b", C, S("a\nb")), RX_MATCH, ". takes a newline");
	/* Whole names: NUL bytes and invalid UTF-8 inside. */
	is_int(m("y$", C, S("x\0y")), RX_MATCH, "a NUL does not end the name");
	is_int(m("x.y", C, S("x\0y")), RX_MATCH, ". takes a NUL");
	is_int(m("z$", C, S("\xff\xfez")), RX_MATCH, "invalid UTF-8 before: matched after it");
	is_int(m("a.b", C, S("a\xff" "b")), RX_NOMATCH, "invalid UTF-8 is no character (UTF-8 pattern)");
	is_int(m("\xff", C, S("a\xff")), RX_MATCH, "a pattern not UTF-8 matches bytes");
	is_int(m("^\xc3\xa9.$", C, S("\xc3\xa9\xc3\xa8")), RX_MATCH, "UTF-8: . is one character (two bytes)");
	/* Case. */
	is_int(m("\xc3\xa9t\xc3\xa9", RX_CASE_IGNORE, S("\xc3\x89T\xc3\x89")), RX_MATCH, "icase folds \xc3\xa9/\xc3\x89");
	is_int(m("foo", RX_CASE_SMART, S("FOO")), RX_MATCH, "smart case: foo takes FOO");
	is_int(m("Foo", RX_CASE_SMART, S("foo")), RX_NOMATCH, "smart case: Foo does not take foo");
	is_int(m("foo", C, S("FOO")), RX_NOMATCH, "case-sensitive");
	ok(!rx_has_upper(S("\\Bo\\W\\p{Lu}\\x{41}")), "escapes and \\p{..} braces are not letters");
	ok(!rx_has_upper(S("(*UCP)foo")), "(*VERB) settings are not letters");
	ok(rx_has_upper(S("\xc3\x89t\xc3\xa9")), "a multibyte upper-case letter counts (UTF-8 locale)");
	/* Errors: NULL and a message, sanitized. */
	char err[128] = "";
	ok(!rx_new(S("a["), RX_CASE_SENSITIVE, err, sizeof err) && err[0], "a[: refused (%s)", err);
	ok(!rx_new(S("(b"), RX_CASE_SENSITIVE, err, sizeof err) && err[0], "(b: refused (%s)", err);
	ok(!rx_new(S("[[.a.]]"), RX_CASE_SENSITIVE, err, sizeof err) && err[0], "[[.a.]]: refused (%s)", err);
	ok(!rx_new(S("a\\"), RX_CASE_SENSITIVE, err, sizeof err) && err[0], "a trailing backslash: refused (%s)", err);
	size_t big = RX_MAX_PATTERN + 1;
	char *p = malloc(big);
	memset(p, 'a', big);
	ok(!rx_new(p, big, RX_CASE_SENSITIVE, err, sizeof err) && strstr(err, "longer"), "a pattern over the cap: %s", err);
	struct rx *re = rx_new(p, RX_MAX_PATTERN, RX_CASE_SENSITIVE, err, sizeof err);
	ok(re || err[0], "a pattern at the cap: compiled or refused with a reason");
	rx_free(re);
	free(p);
	/* The rewriting grows \> 4.5 times: a pattern of nothing else. */
	p = malloc(2000);
	for (size_t k = 0; k < 1000; k++)
		memcpy(p + 2 * k, "\\>", 2);
	re = rx_new(p, 2000, RX_CASE_SENSITIVE, err, sizeof err);
	ok(re && rx_match(re, S("ab")) == RX_MATCH, "1,000 \\> in a row: compiled, match after ab");
	rx_free(re);
	free(p);
	/* 7,000 groups of three alternatives: more than PCRE2's own limit. */
	size_t n = 7000 * 9;
	p = malloc(n + 1);
	for (size_t k = 0; k < 7000; k++)
		memcpy(p + 9 * k, "(?:a|b|c)", 9);
	ok(!rx_new(p, n, RX_CASE_SENSITIVE, err, sizeof err) && err[0], "a pattern too large compiled: %s", err);
	free(p);
}

/* The reproductions: they end, as RX_COSTLY each time. */
static void test_costly(void)
{
	char *name = malloc(2002);
	memset(name, 'a', 2000);
	memcpy(name + 2000, "cb", 2);
	struct rx *re = rx_new(S("(a*)*\\1b"), RX_CASE_SMART, NULL, 0);
	ok(re != NULL, "(a*)*\\1b compiles");
	/* 2,000 a's and no b: it cannot match (PCRE2 knows a b is needed). */
	is_int(rx_match(re, name, 2000), RX_NOMATCH, "2,000 a's: no match");
	/* Then "cb": it matches at the b, but trying from the first a
	 * backtracks about 2^2000 ways before: stopped by the limit. */
	is_int(rx_match(re, name, 2002), RX_COSTLY, "2,000 a's then cb: too costly");
	is_int(rx_match(re, name, 2002), RX_COSTLY, "again: the same answer");
	ok(!rx_matches(re, name, 2002), "rx_matches: too costly is no match");
	is_int((long long)rx_costly(re), 3, "three costly matches counted");
	is_int(rx_match(re, S("ab")), RX_MATCH, "ab matches ((a*)* empty, then b)");
	rx_free(re);
	re = rx_new(S("(a{1,1000}){1,1000}b"), RX_CASE_SMART, NULL, 0);
	if (re) {
		int r = rx_match(re, name, 2002);
		ok(r == RX_NOMATCH || r == RX_COSTLY, "(a{1,1000}){1,1000}b on a...acb: not a match (%d)", r);
		is_int(rx_match(re, S("xaab")), RX_MATCH, "(a{1,1000}){1,1000}b on xaab: a match");
		rx_free(re);
	} else
		ok(1, "(a{1,1000}){1,1000}b: refused as too big");
	free(name);
}

/* The search: costly names are no match and counted; the clock is read
 * every few regex names, so a 1 ns budget returns after a few of them. */
static void test_search_costly(void)
{
	struct tree t;
	tree_init(&t);
	char name[64];
	/* 40 costly names f<k>_a...acb (30 a's: 2^30 ways > the limit), 10
	 * cheap ones g<k>b that match. */
	for (int k = 0; k < 40; k++) {
		snprintf(name, sizeof name, "f%d_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaacb", k);
		struct tree_frame f[] = { { "r", 1 }, { name, strlen(name) } };
		tree_add_stack(&t, f, 2, 1);
	}
	for (int k = 0; k < 10; k++) {
		snprintf(name, sizeof name, "g%db", k);
		struct tree_frame f[] = { { "r", 1 }, { name, strlen(name) } };
		tree_add_stack(&t, f, 2, 1);
	}
	tree_finalize(&t, TREE_ORDER_NAME);
	struct search *s = search_new(&t, "(a*)*\\1b", NULL, 0);
	int calls = 1;
	while (!search_run(s, 1))
		calls++;
	/* 52 names (all, r, 40 f, 10 g): read the clock at least every 8. */
	ok(calls >= 52 / 8, "1 ns slices over 52 regex names: resumed %d times (>= 6)", calls);
	is_int((long long)search_costly(s), 40, "too costly on the 40 f names");
	is_int((long long)search_count(s), 10, "the 10 g names match, the f names count as no match");
	search_free(s);

	/* Exact-name searches: no regex, whatever the name holds. */
	struct tree e;
	tree_init(&e);
	add(&e, "main;foo 1", 1);
	add(&e, "main;FOO", 1);
	add(&e, "main;a.b*", 1);
	add(&e, "main;axbb", 1);
	tree_finalize(&e, TREE_ORDER_NAME);
	s = search_new_exact_bytes(&e, S("a.b*"));
	search_run(s, 0);
	size_t len = 0;
	const char *nm = search_exact_name(s, &len);
	ok(nm && len == 4 && memcmp(nm, "a.b*", 4) == 0, "search_exact_name gives the bytes");
	is_int((long long)search_count(s), 1, "exact a.b*: one frame (not axbb)");
	search_free(s);
	s = search_new_exact_bytes(&e, S("foo 1"));
	search_run(s, 0);
	is_int((long long)search_count(s), 1, "exact 'foo 1': one frame (not FOO)");
	search_free(s);
	s = search_new_exact_bytes(&e, S("gone"));
	search_run(s, 0);
	ok(search_done(s) && search_count(s) == 0 && search_exact_name(s, &len), "a name the tree lacks: exact, no match");
	search_free(s);
	s = search_new(&e, "foo", NULL, 0);
	ok(search_exact_name(s, &len) == NULL, "a regex search has no exact name");
	search_free(s);
	tree_free(&e);
	tree_free(&t);
}

int main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	alarm(120);     /* a hang guard: the whole test takes well under a second */
	test_syntax();
	test_costly();
	test_search_costly();
	return done_testing();
}
