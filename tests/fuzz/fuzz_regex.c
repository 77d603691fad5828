/* libFuzzer harness: the regexes users type (rx.h) and their callers'
 * use of them. Input: an option byte (bits 0-1 the case rule), then the
 * pattern up to the first newline, then names, one a line (NUL bytes and
 * invalid UTF-8 kept). The pattern is compiled and matched on every name
 * (twice: the same answer), then searched for over a tree of the names
 * (sliced, and its exact-name search), and taken as a --color-rule. None
 * may crash or hang: each match is bounded by rx's limits. */
#include "config.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "palette.h"
#include "rx.h"
#include "search.h"
#include "tree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* At most this many names: each may cost rx's limit. */
#define FUZZ_NAMES 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	unsigned sel = data[0];
	const char *in = (const char *)data + 1;
	size_t len = size - 1;
	const char *nl = memchr(in, '\n', len);
	size_t plen = nl ? (size_t)(nl - in) : len;
	/* An exact-size copy of the pattern: ASan sees a read past it. */
	char *pat = malloc(plen ? plen : 1);
	memcpy(pat, in, plen);
	const char *names[FUZZ_NAMES];
	size_t lens[FUZZ_NAMES], n = 0;
	for (size_t p = nl ? plen + 1 : len; p < len && n < FUZZ_NAMES;) {
		const char *e = memchr(in + p, '\n', len - p);
		size_t l = e ? (size_t)(e - (in + p)) : len - p;
		names[n] = in + p;
		lens[n++] = l;
		p += l + 1;
	}

	static const enum rx_case cases[] = { RX_CASE_SENSITIVE, RX_CASE_SMART, RX_CASE_IGNORE, RX_CASE_SMART };
	char err[160];
	struct rx *re = rx_new(pat, plen, cases[sel & 3], err, sizeof err);
	if (!re) {
		/* The message is for display: printable, terminated. */
		if (!err[0] || strlen(err) >= sizeof err)
			abort();
		for (const unsigned char *c = (const unsigned char *)err; *c; c++)
			if (*c < 0x20 || *c == 0x7f)
				abort();
	} else {
		size_t costly = 0;
		for (size_t k = 0; k < n; k++) {
			char *name = malloc(lens[k] ? lens[k] : 1);
			memcpy(name, names[k], lens[k]);
			enum rx_result a = rx_match(re, name, lens[k]), b = rx_match(re, name, lens[k]);
			if (a != b || (a != RX_MATCH && a != RX_NOMATCH && a != RX_COSTLY))
				abort();
			costly += 2 * (a == RX_COSTLY);
			free(name);
		}
		if (rx_costly(re) != costly)
			abort();
		rx_free(re);
	}

	/* The search over a tree of the names (each a frame under "r"): its
	 * pattern is a C string, so up to a NUL. */
	struct tree t;
	tree_init(&t);
	for (size_t k = 0; k < n; k++) {
		struct tree_frame f[2] = { { "r", 1 }, { names[k], lens[k] } };
		tree_add_stack(&t, f, lens[k] ? 2 : 1, 1 + k % 3);
	}
	tree_finalize(&t, TREE_ORDER_NAME);
	char *cpat = malloc(plen + 1);
	memcpy(cpat, pat, plen);
	cpat[plen] = '\0';
	struct search *s = search_new(&t, cpat, err, sizeof err);
	if (s) {
		while (!search_run(s, 1))
			;
		if (search_count(s) >= tree_size(&t) || search_costly(s) > strtab_count(&t.names))
			abort();
		for (tree_idx i = search_first(s); i != TREE_NONE; i = search_next(s, i))
			if (!search_matches(s, i))
				abort();
		search_free(s);
	}
	if (n > 0) {
		size_t el = 0;
		s = search_new_exact_bytes(&t, names[0], lens[0]);
		search_run(s, 0);
		const char *en = search_exact_name(s, &el);
		if (!en || el != lens[0] || memcmp(en, names[0], el) != 0)
			abort();
		search_free(s);
	}

	/* A --color-rule: PATTERN=red. */
	struct palette_rules *r = palette_rules_new();
	char *spec = malloc(strlen(cpat) + 5);
	strcpy(spec, cpat);
	strcat(spec, "=red");
	if (palette_rules_add(r, spec, err, sizeof err) == 0) {
		const struct palette *hot = palette_find("hot");
		for (tree_idx i = 1; i < tree_size(&t) && hot; i++)
			palette_look(hot, r, tree_name(&t, i), tree_name_len(&t, i));
	}
	palette_rules_free(r);
	free(spec);
	tree_free(&t);
	free(cpat);
	free(pat);
	return 0;
}
