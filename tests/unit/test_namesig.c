#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "namesig.h"
#include "strtab.h"
#include "tap.h"

/* Waits up to 20 s for ns's signatures. */
static const uint64_t *wait_ready(struct namesig *ns)
{
	struct timespec ms = { 0, 1000000 };
	for (int k = 0; k < 20000; k++) {
		const uint64_t *sig = namesig_ready(ns);
		if (sig)
			return sig;
		nanosleep(&ms, NULL);
	}
	return NULL;
}

int main(void)
{
	/* Classes: 64 of them, one bit each; a letter's two cases share one. */
	uint64_t all = 0;
	int classed = 0, multi = 0;
	for (int c = 0; c < 256; c++) {
		uint64_t b = namesig_bit((unsigned char)c);
		classed += b != 0;
		multi += (b & (b - 1)) != 0;
		all |= b;
	}
	is_int(multi, 0, "no byte has more than one class");
	is_int(__builtin_popcountll(all), 64, "64 classes in all");
	is_int(classed, 64 + 26, "64 classed bytes plus the 26 upper-case letters");
	ok(namesig_bit('m') && namesig_bit('m') == namesig_bit('M'), "m and M share a class");
	ok(namesig_bit('m') != namesig_bit('n') && namesig_bit(':') != namesig_bit('_') &&
	   namesig_bit('0') != namesig_bit('9'), "other characters have classes of their own");
	ok(!namesig_bit(0) && !namesig_bit('\n') && !namesig_bit(0x80) && !namesig_bit(0xc3) &&
	   !namesig_bit(0x7f), "controls and non-ASCII bytes have no class");

	/* A name's signature: the classes of all its bytes, NULs and all. */
	is_int((long long)namesig_of("", 0), 0, "empty name: no class");
	uint64_t want = namesig_bit('s') | namesig_bit('t') | namesig_bit('d') | namesig_bit(':') |
	                namesig_bit('v') | namesig_bit('e') | namesig_bit('c') | namesig_bit('o') |
	                namesig_bit('r') | namesig_bit('<') | namesig_bit('i') | namesig_bit('n') |
	                namesig_bit('>');
	ok(namesig_of("std::vector<int>", 16) == want, "std::vector<int>: its 13 distinct characters");
	ok(namesig_of("STD::Vector<INT>", 16) == want, "the same in other cases");
	ok(namesig_of("x\0m", 3) == (namesig_bit('x') | namesig_bit('m')), "bytes after a NUL count");
	ok(namesig_of("ab", 1) == namesig_bit('a'), "only n bytes are read");

	/* On a thread: the same as namesig_of for each of 100,000 names. */
	struct strtab st;
	strtab_init(&st);
	char name[64];
	for (int k = 0; k < 100000; k++) {
		int len = snprintf(name, sizeof name, "%s_%d::%c", k % 3 ? "fn" : "Widget", k, 'a' + k % 26);
		strtab_intern(&st, name, (size_t)len);
	}
	struct namesig *ns = namesig_start(&st);
	ok(ns != NULL, "the thread starts");
	const uint64_t *sig = wait_ready(ns);
	ok(sig != NULL, "the signatures are ready");
	size_t bad = 0;
	for (size_t id = 0; sig && id < strtab_count(&st); id++)
		bad += sig[id] != namesig_of(strtab_str(&st, (strtab_id)id), strtab_len(&st, (strtab_id)id));
	ok(sig && bad == 0, "every name's signature as namesig_of computes it (%zu differ)", bad);
	ok(namesig_ready(ns) == sig, "asked again: the same array");
	namesig_free(ns);
	/* Freed while its thread runs: it stops (sanitizers and valgrind
	 * check that nothing is read after the free). */
	namesig_free(namesig_start(&st));
	namesig_free(NULL);
	strtab_free(&st);
	strtab_init(&st);
	ns = namesig_start(&st);
	ok(ns && wait_ready(ns) != NULL, "a table of no names: ready at once");
	namesig_free(ns);
	strtab_free(&st);
	return done_testing();
}
