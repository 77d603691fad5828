#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "folded.h"
#include "tree.h"
#include "tap.h"

static struct reader_diag last;

/* Loads text (fed in pieces of `chunk` whole lines when chunk > 0) and
 * returns the collapsed output. */
/* Insertion sort of n strings of `width` bytes each (keys[i * width]) in
 * byte order, cnt[i] moving with its key. */
static void sort_counted(char *keys, size_t width, unsigned long long *cnt, size_t n)
{
	char *tk = malloc(width);
	if (!tk)
		abort();
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(keys + (j - 1) * width, keys + j * width) > 0; j--) {
			unsigned long long tc = cnt[j];
			memcpy(tk, keys + j * width, width);
			memcpy(keys + j * width, keys + (j - 1) * width, width);
			memcpy(keys + (j - 1) * width, tk, width);
			cnt[j] = cnt[j - 1];
			cnt[j - 1] = tc;
		}
	free(tk);
}

/* Feeds text[0..tlen) to a folded reader of a new tree in blocks of 1 to
 * maxlines whole lines (by the generator *rng; maxlines 0: one block), each
 * block copied and scribbled over after the feed so that the reader cannot
 * keep pointers into it; *sorted: whether the tree was built as sorted
 * input (no child hash). Returns the finalized tree's folded text. */
static char *collapse_in_blocks(const char *text, size_t tlen, uint64_t *rng, int maxlines,
                                bool *sorted)
{
	struct tree t;
	tree_init(&t);
	struct folded_reader *r = folded_reader_new(&t);
	size_t p = 0;
	while (p < tlen) {
		size_t q = p;
		*rng = *rng * 6364136223846793005ULL + 1;
		int lines = maxlines ? 1 + (int)((*rng >> 50) % (unsigned)maxlines) : 1 << 30;
		while (q < tlen && lines-- > 0) {
			const char *nl = memchr(text + q, '\n', tlen - q);
			q = nl ? (size_t)(nl - text) + 1 : tlen;
		}
		char *blk = malloc(q - p);
		if (!blk)
			abort();
		memcpy(blk, text + p, q - p);
		folded_reader_feed(r, blk, q - p);
		memset(blk, 'Z', q - p);
		free(blk);
		p = q;
	}
	*sorted = !tree_batches(&t);
	folded_reader_free(r);
	tree_finalize(&t, TREE_ORDER_NAME);
	char *got = NULL;
	size_t gl = 0;
	FILE *g = open_memstream(&got, &gl);
	if (!g)
		abort();
	tree_write_folded(&t, g);
	fclose(g);
	tree_free(&t);
	return got;
}

static char *load(const char *text)
{
	struct tree t;
	tree_init(&t);
	struct folded_reader *r = folded_reader_new(&t);
	folded_reader_feed(r, text, strlen(text));
	last = *folded_reader_diag(r);
	folded_reader_free(r);
	tree_finalize(&t, TREE_ORDER_NAME);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	tree_write_folded(&t, f);
	fclose(f);
	tree_free(&t);
	return buf;
}

static void case_(const char *in, const char *want, int bad, const char *name)
{
	char *got = load(in);
	is_str(got, want, name);
	if (bad >= 0)
		is_int((long long)last.bad, bad, "  ... and its bad-line count");
	free(got);
}

int main(void)
{
	case_("a;b 3\na;b 2\nc 1\n", "a;b 5\nc 1\n", 0, "identical stacks merge");
	case_("a;b\t3\n", "a;b 3\n", 0, "tab before the count");
	case_("a;b 3\r\nc 1\r\n", "a;b 3\nc 1\n", 0, "CRLF lines");
	case_("a;b 3   \n", "a;b 3\n", 0, "trailing blanks after the count");
	case_("a;b 3", "a;b 3\n", 0, "last line without newline");
	case_("a 1.5\na 2\n", "a 3.5\n", 0, "fractional counts are kept");
	case_("a 6.\n", "a 6\n", 0, "\"6.\" is the integer 6");
	case_("a 6.000\n", "a 6\n", 0, "zero fraction stays integer");
	case_("a .5\nb -4\nc 1e3\nd +3\n12\ne\n", "", 6, "rejected counts: .5 -4 1e3 +3, bare number, none");
	case_("\n\n# interval: 100\na 1\n", "a 1\n", 0, "blank lines and '# ' comments are skipped");
	case_("#x 1\n", "#x 1\n", 0, "'#' without a space is a frame");
	case_("a;b 10 20\n", "a;b 20\n", 0, "two count columns: the last (after) is used");
	case_("a;d; 3\n", "a;d 3\n", 0, "trailing empty frame dropped");
	case_("a;d;; 3\n", "a;d 3\n", 0, "all trailing empty frames dropped");
	case_(";x 2\n", ";x 2\n", 0, "leading empty frame kept");
	case_("a;;y 1\n", "a;;y 1\n", 0, "middle empty frame kept");
	case_(" 7\n", " 7\n", 0, "empty stack counts at the root");
	case_(";x 1\n 7\n", " 7\n;x 1\n", 0, "an empty stack after a leading empty frame is still the root");
	case_("a;b 1\na;b!;c 2\na;b;d 3\n", "a;b 1\na;b!;c 2\na;b;d 3\n", 0, "a frame that is a prefix of the next line's frame");
	case_("a;b;c 1\na;b 2\na;bc 3\na 4\n", "a 4\na;b 2\na;b;c 1\na;bc 3\n", 0, "stacks ending inside the previous one");
	/* flamegraph.pl (SPEC.md B.2) and inferno: all blanks but the one
	 * before the count stay in the stack, frame "i " */
	case_("a;i  6\n", "a;i  6\n", 0, "several blanks before the count: the frame keeps all but one");
	case_("a;i  6\na;i 1\n", "a;i 1\na;i  6\n", 0, "a name with a trailing blank is not its trimmed twin");
	case_("std::function<void (int, int)>::operator;x 2\n",
	      "std::function<void (int, int)>::operator;x 2\n", 0, "frames may contain spaces");
	case_("a 18446744073709551615\n", "a 18446744073709551615\n", 0, "UINT64_MAX is exact");
	{
		char *got = load("a 18446744073709551616\nb 1\n");
		is_str(got, "a 18446744073709551615\nb 1\n", "a count beyond 2^64 saturates");
		is_int((long long)last.saturated, 1, "  ... and is reported");
		free(got);
	}
	{
		char *got = load("good 1\nbad line\ngood 2\n\nworse\n");
		is_str(got, "good 3\n", "valid lines around bad ones are kept");
		is_int((long long)last.bad, 2, "two bad lines");
		is_int((long long)last.first_bad, 2, "first bad line number");
		ok(strstr(last.first_msg, "bad line") != NULL, "message quotes the line: %s", last.first_msg);
		is_int((long long)last.lines, 5, "lines counted");
		is_int((long long)last.stacks, 2, "stacks counted");
		free(got);
	}
	{
		char *got = load("x\x1b]0;owned\x07 junk\n");
		ok(strchr(last.first_msg, 0x1b) == NULL && strchr(last.first_msg, 0x07) == NULL,
		   "no control bytes in the bad-line message");
		free(got);
	}
	{
		/* Feeding in two blocks keeps counting lines across them. */
		struct tree t;
		tree_init(&t);
		struct folded_reader *r = folded_reader_new(&t);
		folded_reader_feed(r, "a 1\nb 2\n", 8);
		folded_reader_feed(r, "oops\n", 5);
		is_int((long long)folded_reader_diag(r)->first_bad, 3, "line numbers continue across blocks");
		folded_reader_free(r);
		tree_free(&t);
	}
	{
		/* Random lines over prefix-prone names (ends of frames land on
		 * every kind of boundary), fed in random whole-line blocks, against
		 * an oracle that sums per key and sorts the keys. */
		static const char *alpha[] = { "a", "a!", "a ", "ab", "b", "", "a;", "x" };
		enum { N = 3000 };
		char (*keys)[48] = calloc(N, sizeof *keys);
		unsigned long long *cnt = calloc(N, sizeof *cnt);
		size_t nkeys = 0, tlen = 0;
		char *text = malloc((size_t)N * 64);
		uint64_t seed = 99;
		for (int i = 0; i < N; i++) {
			char key[48] = "";
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			int depth = 1 + (int)((seed >> 33) % 4);
			for (int d = 0; d < depth; d++) {
				seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
				if (d)
					strcat(key, ";");
				strcat(key, alpha[(seed >> 40) % 8]);
			}
			unsigned c = 1 + (unsigned)((seed >> 20) % 5);
			tlen += (size_t)sprintf(text + tlen, "%s %u\n", key, c);
			/* What the reader must make of it: the one blank before
			 * the count is the separator (a frame's own trailing blank
			 * stays, as in flamegraph.pl), then trailing ';' dropped. */
			size_t kl = strlen(key);
			while (kl && key[kl - 1] == ';')
				key[--kl] = 0;
			size_t k;
			for (k = 0; k < nkeys && strcmp(keys[k], key) != 0; k++)
				;
			if (k == nkeys)
				strcpy(keys[nkeys++], key);
			cnt[k] += c;
		}
		/* Oracle: sort keys (strcmp = byte order). */
		sort_counted(keys[0], sizeof keys[0], cnt, nkeys);
		char *want = NULL;
		size_t wl = 0;
		FILE *w = open_memstream(&want, &wl);
		for (size_t k = 0; k < nkeys; k++)
			if (keys[k][0] || cnt[k])
				fprintf(w, "%s %llu\n", keys[k], cnt[k]);
		fclose(w);
		for (int round = 0; round < 2; round++) {
			bool sorted;
			char *got = collapse_in_blocks(text, tlen, &seed, round ? 0 : 7, &sorted);
			ok(strcmp(got, want) == 0, "random lines (%zu keys), %s: output equals the sorted sums",
			   nkeys, round ? "one block" : "small blocks");
			free(got);
		}
		free(want);
		free(text);
		free(keys);
		free(cnt);
	}
	{
		/* Counts: plain digits up to 19 (read in one pass), more (by
		 * tree_dec_parse), leading zeros. */
		case_("a 1234567890123456789\n", "a 1234567890123456789\n", 0, "a count of 19 digits");
		case_("a 9999999999999999999\n", "a 9999999999999999999\n", 0, "the largest of 19 digits");
		case_("a 12345678901234567890\n", "a 12345678901234567890\n", 0, "a count of 20 digits");
		case_("a 007\nb 00000000000000000000000000000000042\n", "a 7\nb 42\n", 0, "leading zeros");
		case_("aaaaaaaaaaaa;bbbbbbbbbbbbbb;; 3\n", "aaaaaaaaaaaa;bbbbbbbbbbbbbb 3\n", 0,
		      "trailing empty frames dropped from a long line");
		/* ';' read 16 bytes at a time up to 16 before the line's end,
		 * then a word at a time (the last overlapping those before) */
		case_("aaaaaaaaaaaa;bbbbbbb;; 1234567890123\n", "aaaaaaaaaaaa;bbbbbbb 1234567890123\n", 0,
		      "a line's ';' after its stack are not frames");
		case_("aaaaaaaaaaaaaaaaa;b 1\naaaaaaaaaaaaaaaaa;bc 1\nccccccccccccccccccccccc;de;f 2\n",
		      "aaaaaaaaaaaaaaaaa;b 1\naaaaaaaaaaaaaaaaa;bc 1\nccccccccccccccccccccccc;de;f 2\n", 0,
		      "short frames at the end of long lines");
	}
	{
		/* Sorted lines of long frames (words of 8 and 16 bytes are read
		 * at a time: frames and shared prefixes end at every offset in
		 * them), each block in a buffer of its own exact size (a read
		 * past it shows under ASan), the last line without a newline,
		 * against the same oracle as above. */
		static const char syms[] = "ab( :";
		enum { N = 2000 };
		char (*keys)[200] = calloc(N, sizeof *keys);
		unsigned long long *cnt = calloc(N, sizeof *cnt);
		uint64_t seed = 7;
#define NEXT() (seed = seed * 6364136223846793005ULL + 1442695040888963407ULL, seed >> 33)
		char names[24][24];
		for (int i = 0; i < 24; i++) {
			/* names that start others: "a", "a(" ... and longer */
			size_t l = i < 4 ? (size_t)i + 1 : 1 + NEXT() % 22;
			for (size_t k = 0; k < l; k++)
				names[i][k] = syms[i < 4 ? (k ? 2 : 0) : NEXT() % 5];
			names[i][l] = 0;
		}
		for (int i = 0; i < N; i++) {
			int depth = 1 + (int)(NEXT() % 8);
			keys[i][0] = 0;
			for (int d = 0; d < depth; d++) {
				if (d)
					strcat(keys[i], ";");
				strcat(keys[i], names[NEXT() % 24]);
			}
			cnt[i] = 1 + NEXT() % 9;
		}
		/* Sort with their counts (stacks in byte order: sorted input). */
		sort_counted(keys[0], sizeof keys[0], cnt, (size_t)N);
		char *text = malloc((size_t)N * 220);
		size_t tlen = 0;
		for (int i = 0; i < N; i++)
			tlen += (size_t)sprintf(text + tlen, "%s %llu%s", keys[i], cnt[i], i + 1 < N ? "\n" : "");
		/* The oracle: equal keys summed (they are adjacent now). */
		char *want = NULL;
		size_t wl = 0;
		FILE *w = open_memstream(&want, &wl);
		for (size_t i = 0; i < N;) {
			unsigned long long sum = 0;
			size_t j = i;
			for (; j < N && strcmp(keys[j], keys[i]) == 0; j++)
				sum += cnt[j];
			fprintf(w, "%s %llu\n", keys[i], sum);
			i = j;
		}
		fclose(w);
		for (int round = 0; round < 2; round++) {
			bool sorted;
			char *got = collapse_in_blocks(text, tlen, &seed, round ? 0 : 5, &sorted);
			ok(sorted, "sorted long frames, %s: read as sorted (no child hash)",
			   round ? "one block" : "small blocks");
			ok(strcmp(got, want) == 0, "  ... and the output equals the sums");
			free(got);
		}
#undef NEXT
		free(want);
		free(text);
		free(keys);
		free(cnt);
	}
	return done_testing();
}
