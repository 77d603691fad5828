/* The folded reader's two paths, wide (AVX2, 32 bytes a step, chosen at run
 * time) and plain (SSE2 or words), give the same trees and diagnostics:
 * random sorted and shuffled lines over names whose lengths and ';' fall
 * on every offset of 16-, 32- and 64-byte windows, crafted lines (CRLF,
 * tabs, blanks, comments, long lines, spaces in names, decimal and
 * differential counts, bad lines), each text at every alignment of its
 * buffer (of its exact size: a read past it shows under ASan) and fed in
 * random blocks. The random sorted text is also checked against sums
 * made here (compared as sorted lines), so that a fault shared by both
 * paths fails too. Without AVX2 the comparisons are skipped (SKIP) and
 * the checks against the sums still run. */
#include "config.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "folded.h"
#include "tree.h"
#include "tap.h"

static uint64_t seed = 12345;

static unsigned rnd(unsigned n)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((seed >> 33) % n);
}

struct result {
	char *out[3];           /* folded text: name, weight, input order */
	char *before;           /* the BEFORE tree of a differential load */
	struct reader_diag d;
};

static char *write_tree(struct tree *t, enum tree_order order)
{
	tree_finalize(t, order);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		abort();
	tree_write_folded(t, f);
	fclose(f);
	return buf;
}

/* Loads text[0..len) with the path asked for (wide: false when the CPU
 * lacks it), the text placed at offset `align` of a buffer of exactly
 * align + len bytes, fed in blocks of 1..maxlines whole lines (0: one
 * block) that are scribbled over after each feed. diff: with a BEFORE
 * tree. order: the tree's order. */
static char *load(const char *text, size_t len, bool wide, size_t align, unsigned maxlines, bool diff,
                  enum tree_order order, struct result *res)
{
	struct tree t, b;
	tree_init(&t);
	tree_init(&b);
	struct folded_reader *r = folded_reader_new(&t);
	folded_reader_set_wide(r, wide);
	if (diff)
		folded_reader_set_before(r, &b);
	size_t p = 0;
	char *mem = malloc(align + len + 1);
	if (!mem)
		abort();
	while (p < len || (p == 0 && len == 0)) {
		size_t q = p;
		unsigned lines = maxlines ? 1 + rnd(maxlines) : ~0u;
		while (q < len && lines-- > 0) {
			const char *nl = memchr(text + q, '\n', len - q);
			q = nl ? (size_t)(nl - text) + 1 : len;
		}
		/* Each block at the start of its own exact-size buffer, after
		 * `align` bytes of a byte that is none of '\n', ';', ' '. */
		free(mem);
		mem = malloc(align + (q - p) + 1);
		if (!mem)
			abort();
		memset(mem, 'q', align);
		memcpy(mem + align, text + p, q - p);
		folded_reader_feed(r, mem + align, q - p);
		memset(mem, ';', align + (q - p));
		if (q == p)
			break;
		p = q;
	}
	free(mem);
	if (res)
		res->d = *folded_reader_diag(r);
	folded_reader_free(r);
	char *out = write_tree(&t, order);
	if (res && diff)
		res->before = write_tree(&b, order);
	tree_free(&t);
	tree_free(&b);
	return out;
}

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* text's lines in byte order (a new string): the tree writes siblings by
 * name, frame by frame, which is not the byte order of whole lines ("a;x"
 * before "a:y"). */
static char *sorted_lines(const char *text)
{
	size_t n = 0, len = strlen(text);
	for (size_t i = 0; i < len; i++)
		n += text[i] == '\n';
	char *copy = strdup(text), **lines = malloc((n + 1) * sizeof *lines), *out = malloc(len + 1);
	if (!copy || !lines || !out)
		abort();
	size_t k = 0;
	for (char *p = copy, *nl; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		*nl = 0;
		lines[k++] = p;
	}
	qsort(lines, k, sizeof *lines, cmp_lines);
	size_t ol = 0;
	for (size_t i = 0; i < k; i++)
		ol += (size_t)sprintf(out + ol, "%s\n", lines[i]);
	out[ol] = 0;
	free(lines);
	free(copy);
	return out;
}

static bool same_diag(const struct reader_diag *a, const struct reader_diag *b)
{
	return a->lines == b->lines && a->stacks == b->stacks && a->bad == b->bad &&
	       a->first_bad == b->first_bad && a->saturated == b->saturated &&
	       strcmp(a->first_msg, b->first_msg) == 0;
}

/* Compares the wide and the plain load of text at every alignment 0..63
 * (and in blocks); returns the number of differences. */
static int compare_paths(const char *text, size_t len, bool diff, const char *want, int *checks)
{
	int bad = 0;
	for (size_t align = 0; align < 64; align++) {
		unsigned maxl = align % 4 == 0 ? 0 : (unsigned)(align % 9);
		enum tree_order order = (enum tree_order)(align % 3);
		uint64_t s0 = seed;
		struct result pr = { 0 }, wr = { 0 };
		char *po = load(text, len, false, align, maxl, diff, order, &pr);
		seed = s0;      /* the same blocks for both */
		char *wo = load(text, len, true, align, maxl, diff, order, &wr);
		(*checks)++;
		bool eq = strcmp(po, wo) == 0 && same_diag(&pr.d, &wr.d) &&
		          (!diff || strcmp(pr.before, wr.before) == 0);
		if (want) {
			char *ps = sorted_lines(po), *ws = sorted_lines(wo), *ts = sorted_lines(want);
			if (strcmp(ps, ts) != 0 || strcmp(ws, ts) != 0)
				eq = false;
			free(ps);
			free(ws);
			free(ts);
		}
		if (!eq && bad++ < 3) {
			printf("# differs at alignment %zu, blocks of up to %u lines, order %d\n", align, maxl,
			       (int)order);
			printf("# plain: lines %zu stacks %zu bad %zu first %zu '%s'\n# %.300s\n", pr.d.lines,
			       pr.d.stacks, pr.d.bad, pr.d.first_bad, pr.d.first_msg, po);
			printf("# wide:  lines %zu stacks %zu bad %zu first %zu '%s'\n# %.300s\n", wr.d.lines,
			       wr.d.stacks, wr.d.bad, wr.d.first_bad, wr.d.first_msg, wo);
		}
		free(po);
		free(wo);
		free(pr.before);
		free(wr.before);
	}
	return bad;
}

/* Names of every length 1..70 (around 16, 32 and 64) over bytes that make
 * prefixes of each other ("a", "aa", "a:" ...) and hold spaces. */
static char names[96][80];

static void make_names(void)
{
	static const char sym[] = "aa:( b";
	for (int i = 0; i < 96; i++) {
		size_t l = i < 70 ? (size_t)i + 1 : 1 + rnd(70);
		for (size_t k = 0; k < l; k++)
			names[i][k] = i < 70 ? 'a' + (char)(k % 3 == 2) : sym[rnd(6)];
		names[i][l] = 0;
	}
}

int main(void)
{
	make_names();
	bool have = true;
	{
		struct tree t;
		tree_init(&t);
		struct folded_reader *r = folded_reader_new(&t);
		have = folded_reader_set_wide(r, true);
		ok(!folded_reader_set_wide(r, false), "the plain path can always be chosen");
		folded_reader_free(r);
		tree_free(&t);
	}
	if (!have)
		ok(1, "wide and plain paths agree # SKIP no AVX2 on this CPU (or TFLAME_FOLDED_PLAIN set): "
		   "the plain path is checked against the sums alone");

	/* Random stacks, sorted (long shared prefixes, parting at every
	 * offset) with an oracle made here: equal keys summed. */
	for (int round = 0; round < 3; round++) {
		enum { N = 1500 };
		char **keys = malloc(N * sizeof *keys);
		for (int i = 0; i < N; i++) {
			keys[i] = malloc(1024);
			keys[i][0] = 0;
			int depth = 1 + (int)rnd(round == 2 ? 14 : 6);
			for (int d = 0; d < depth; d++) {
				if (d)
					strcat(keys[i], ";");
				strcat(keys[i], names[rnd(round == 0 ? 12 : 96)]);
			}
		}
		qsort(keys, N, sizeof *keys, cmp_lines);
		char *text = malloc((size_t)N * 1100), *want = malloc((size_t)N * 1100);
		size_t tl = 0, wl = 0;
		for (int i = 0; i < N;) {
			unsigned long long sum = 0;
			int j = i;
			for (; j < N && strcmp(keys[j], keys[i]) == 0; j++) {
				unsigned c = 1 + rnd(1000);
				sum += c;
				tl += (size_t)sprintf(text + tl, "%s %u\n", keys[j], c);
			}
			wl += (size_t)sprintf(want + wl, "%s %llu\n", keys[i], sum);
			i = j;
		}
		int checks = 0;
		int bad = compare_paths(text, tl, false, want, &checks);
		ok(bad == 0, "sorted random stacks (names of 1-70 bytes, round %d): wide = plain = the sums, %d loads",
		   round, checks);
		/* The same lines shuffled: the reader's batches for a hashing
		 * tree. */
		for (int i = N - 1; i > 0; i--) {
			int j = (int)rnd((unsigned)i + 1);
			char *t = keys[i];
			keys[i] = keys[j];
			keys[j] = t;
		}
		tl = 0;
		for (int i = 0; i < N; i++)
			tl += (size_t)sprintf(text + tl, "%s %u\n", keys[i], 1 + rnd(9));
		checks = 0;
		bad = compare_paths(text, tl, false, NULL, &checks);
		ok(bad == 0, "shuffled random stacks (round %d): wide = plain, %d loads", round, checks);
		for (int i = 0; i < N; i++)
			free(keys[i]);
		free(keys);
		free(text);
		free(want);
	}

	/* Every line length from 1 to 140 (a newline at every offset of the
	 * windows), ';' at every offset, the shared part ending everywhere:
	 * runs of one byte cut by ';' at a moving place. */
	{
		char *text = malloc(4 << 20);
		size_t tl = 0;
		for (int len = 1; len <= 140; len++)
			for (int semi = -1; semi < len; semi += 1 + (len > 40) * 3) {
				char line[160];
				for (int k = 0; k < len; k++)
					line[k] = k == semi ? ';' : 'x';
				line[len] = 0;
				tl += (size_t)sprintf(text + tl, "%s 1\n%s;y 2\n", line, line);
			}
		int checks = 0;
		int bad = compare_paths(text, tl, false, NULL, &checks);
		ok(bad == 0, "lines of 1-140 bytes with a ';' at every place: wide = plain, %d loads", checks);
		free(text);
	}

	/* Crafted lines. */
	static const char *crafted[] = {
		"a;b 3\r\na;b;c 2\r\n\r\nc 1\r\n",
		"a;b\t3\na;b\t\t4\na;b \t 5\n",
		"\n\n   \n# interval: 100\n#x 1\na 1\n",
		"a 1.5\na;b 2.25\na;b;c 1.\na;b;c 0.000\nx 007\n",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa;b 1\n"
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa;b;c 1\n"
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa;bb 1\n"
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 1\n",
		"std::function<void (int, int)>::operator();x 2\nstd::function<void (int, int)>::operator();y 3\n",
		"a;i  6\na;i 1\na;i   2\n",
		"good 1\nbad line\ngood;x 2\n\nworse\n.5\na;b -4\n",
		"a;b 10 20\na;b;c 1 2\na;b;c;d 3.5 4\na;b 5\n",
		"a;d; 3\na;d;; 4\n;x 2\na;;y 1\n 7\n;\n;; 1\n",
		"a 18446744073709551616\nb 18446744073709551615\nb;c 99999999999999999999.5\n",
		"a;b;c;d;e;f;g;h;i;j;k;l;m;n;o;p;q;r;s;t;u;v;w;x;y;z;a;b;c;d;e;f;g;h 1\n"
		"a;b;c;d;e;f;g;h;i;j;k;l;m;n;o;p;q;r;s;t;u;v;w;x;y;z;a;b;c;d;e;f;g;i 1\n"
		"a;b;c;d;e;f;g;h;i;j;k;l;m;n;o;p;q;r;s;t;u;v;w;x;y;z;a;b;c;d;e;f;gg 1\n"
		"a;b;c;d;e;f;g;h;i;j;k;l;m;n;o;p;q;r;s;t;u;v;w;x;y;z;a;b;c;d;e;f 1\n",
		"x\x1b]0;owned\x07 junk\nx;\x01;\x7f 3\n",
		"a;b 3\na;b 3",
		"a;bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
		"",
	};
	for (size_t i = 0; i < sizeof crafted / sizeof *crafted; i++) {
		int checks = 0, bad = 0;
		for (int diff = 0; diff < 2; diff++)
			bad += compare_paths(crafted[i], strlen(crafted[i]), diff, NULL, &checks);
		ok(bad == 0, "crafted text %zu: wide = plain (diagnostics too, with and without BEFORE), %d loads",
		   i, checks);
	}
	/* The crafted texts joined, one after another. */
	{
		char *all = malloc(8192);
		size_t al = 0;
		for (size_t i = 0; i < sizeof crafted / sizeof *crafted; i++) {
			size_t l = strlen(crafted[i]);
			memcpy(all + al, crafted[i], l);
			al += l;
			if (l && crafted[i][l - 1] != '\n')
				all[al++] = '\n';
		}
		int checks = 0;
		int bad = compare_paths(all, al, true, NULL, &checks);
		ok(bad == 0, "the crafted texts joined: wide = plain, %d loads", checks);
		free(all);
	}
	return done_testing();
}
