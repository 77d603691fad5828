/* Unit tests of format detection (SPEC.md §A.11). Each input is copied into
 * a heap block of exactly its length, so a read past len trips ASan. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include "sniff.h"
#include "tap.h"

static const char *fmt_name(enum sniff_format f)
{
	return f == SNIFF_FOLDED ? "folded" : f == SNIFF_PERF ? "perf" : "unknown";
}

static void t_len(const char *name, const char *in, size_t n, bool eof, enum sniff_format want,
                  uint64_t want_bad)
{
	char *b = malloc(n ? n : 1);
	uint64_t bad = 0;
	enum sniff_format f;

	if (!b)
		abort();
	memcpy(b, in, n);
	f = sniff_detect(b, n, eof, &bad);
	free(b);
	ok(f == want && (want != SNIFF_UNKNOWN || bad == want_bad), "%s", name);
	if (f != want)
		printf("#   got %s, want %s\n", fmt_name(f), fmt_name(want));
	else if (want == SNIFF_UNKNOWN && bad != want_bad)
		printf("#   bad line %llu, want %llu\n", (unsigned long long)bad,
		       (unsigned long long)want_bad);
}

static void t(const char *name, const char *in, enum sniff_format want, uint64_t want_bad)
{
	t_len(name, in, strlen(in), true, want, want_bad);
}

int main(void)
{
	enum sniff_format f;

	/* folded */
	t("empty input is an empty folded profile", "", SNIFF_FOLDED, 0);
	t("blank and comment lines only", "\n\n  \n# comment\n#\n", SNIFF_FOLDED, 0);
	t("stack COUNT", "main;foo 5\nmain;bar 3\n", SNIFF_FOLDED, 0);
	t("fractional counts", "a;b 1.5\na;c 6.\n", SNIFF_FOLDED, 0);
	t("two count columns (differential)", "a;b 10 20\na;c 3 4\n", SNIFF_FOLDED, 0);
	t("tab before the count", "main;foo\t5\n", SNIFF_FOLDED, 0);
	t("CRLF folded", "main;foo 5\r\nmain 1\r\n", SNIFF_FOLDED, 0);
	t("a leaf ending in ')' still reads as folded", "main;foo(int) 5\n", SNIFF_FOLDED, 0);
	t("a BOM before folded text", "\xEF\xBB\xBFmain;foo 5\n", SNIFF_FOLDED, 0);
	t("folded even when a later line is indented and it is not perf", "a;b 1\n c;d 2\n",
	  SNIFF_FOLDED, 0);
	t_len("only len bytes are looked at", "main 1\nthis is not a profile\n", 7, false,
	      SNIFF_FOLDED, 0);
	t_len("a folded block that is not the whole input", "main 1\n", 7, false,
	      SNIFF_FOLDED, 0);

	/* perf */
	t("perf script with a header",
	  "# ========\n# captured on: x\n#\nprog 1 1.0: 1 cycles:\n\t401000 main (/usr/bin/prog)\n\n",
	  SNIFF_PERF, 0);
	t("perf script without callchains (single-line records)",
	  "           false 39654 19115.489713:          1 cycles:u:  ffffffff9b201293 [unknown] ([unknown])\n"
	  "           false 39654 19115.489719:          1 cycles:      7fa68b1f2d84 _dl_start+0x4 (/usr/lib/ld-2.31.so)\n",
	  SNIFF_PERF, 0);
	t("a line ending in a number followed by an indented frame is perf",
	  "prog 1234 250000\n\tffff main (/usr/bin/prog)\n", SNIFF_PERF, 0);
	t("CRLF perf script", "prog 1 1.0: 1 cycles:\r\n\t1 main (m)\r\n", SNIFF_PERF, 0);
	t("a DSO with spaces in the first frame", "prog 1 1.0: 1 cycles:\n\t1 foo (/opt/my app/x.so)\n",
	  SNIFF_PERF, 0);
	t("an event line alone (no frames) is perf", "prog 1 1.0: cycles:\n", SNIFF_PERF, 0);
	t_len("a block ending after an event line", "prog 1 1.0: 1 cycles:\n\t1 f (m)\n", 22, false,
	      SNIFF_PERF, 0);

	/* neither */
	t("unknown format: the first significant line decides", "\nthis\nis an unknown\nformat\n",
	  SNIFF_UNKNOWN, 2);
	t("an event line, a blank line, then frames is not perf",
	  "java 10488  9962.502413:   10101010 cpu-clock:\n\n"
	  "\tffffffffaee8017b fput+0xb ([kernel.kallsyms])\n",
	  SNIFF_UNKNOWN, 3);
	t("an event-like line without an event field, alone", "this 1 is\n", SNIFF_UNKNOWN, 1);
	t("a stack without a count", "main;foo\n", SNIFF_UNKNOWN, 1);
	t("a count without digits before the point", "a;b .5\n", SNIFF_UNKNOWN, 1);
	t("an event line followed by a non-frame", "prog 1 1.0: cycles:\nnot a frame\n",
	  SNIFF_UNKNOWN, 2);
	ok(sniff_detect("x\n", 2, true, NULL) == SNIFF_UNKNOWN, "bad_line may be NULL");

	/* issue 18 item 10: the first lines that parse decide, not line 1 */
	t("junk lines, then folded lines", "garbage here\nmore of it\nmain;foo 5\nmain;bar 3\n",
	  SNIFF_FOLDED, 0);
	t_len("NUL bytes, then folded lines", "\0\0\0\n\0x\0\nmain;foo 5\nmain 1\n", 26, true,
	      SNIFF_FOLDED, 0);
	t("bad counts, then folded lines", "a;b -3\na;c x\na;d 1e\nmain;foo 5\nmain 1\n",
	  SNIFF_FOLDED, 0);
	t("junk, then a last folded line at the end of the input", "junk\nmain;foo 5\n",
	  SNIFF_FOLDED, 0);
	t_len("junk, then one folded line that ends the block, not the input", "junk\nmain;foo 5\n",
	      16, false, SNIFF_UNKNOWN, 1);
	t("one stray folded-looking line inside junk is not enough", "junk\nx 1\nmore junk\n",
	  SNIFF_UNKNOWN, 1);
	t("junk, then a folded line followed by an indented line, then junk",
	  "junk\nmain 5\n\tmore\nstill junk\n", SNIFF_UNKNOWN, 1);
	t_len("junk and NUL bytes, then perf script",
	      "junk\n\0\0\nprog 1 1.0: 1 cycles:\n\t401000 main (/usr/bin/prog)\n", 59, true,
	      SNIFF_PERF, 0);
	t("junk, then single-line perf records",
	  "junk\nprog 1 1.0: 1 cycles: 401000 main (/usr/bin/prog)\n"
	  "prog 1 1.1: 1 cycles: 401004 main (/usr/bin/prog)\n", SNIFF_PERF, 0);
	t("junk, an event line, a blank line, a frame: not perf",
	  "junk\nprog 1 1.0: 1 cycles:\n\n\t401000 main (/usr/bin/prog)\n", SNIFF_UNKNOWN, 1);
	t("a comment between the event line and its frame after junk",
	  "junk\nprog 1 1.0: 1 cycles:\n# c\n\t401000 main (/usr/bin/prog)\n", SNIFF_PERF, 0);
	t_len("an ELF file is not a profile, whatever lines follow its header",
	      "\177ELF\2\1\1\0\nmain;foo 5\nmain 1\n", 27, true, SNIFF_UNKNOWN, 1);
	t("a PNG image is not a profile", "\211PNG\r\n\032\nmain;foo 5\nmain 1\n", SNIFF_UNKNOWN, 1);
	t("an XML file is not a profile", "<?xml version=\"1.0\"?>\nmain;foo 5\nmain 1\n",
	  SNIFF_UNKNOWN, 1);
	ok(sniff_file_kind((const unsigned char *)"%PDF-1.4", 8) != NULL &&
	   sniff_file_kind((const unsigned char *)"main;foo 5\n", 11) == NULL, "sniff_file_kind");
	{
		/* 200,000 event lines without frames (each a start that fails),
		 * then folded lines: read once, not once per start (a hang
		 * guard by the test runner, no timing here) */
		size_t n = 200000, k = 0, ln = strlen("prog 1 1.0: cycles:\n\n");
		char *b = malloc(n * ln + 32);
		if (!b)
			abort();
		b[0] = 'x';
		b[1] = '\n';
		k = 2;
		for (size_t i = 0; i < n; i++, k += ln)
			memcpy(b + k, "prog 1 1.0: cycles:\n\n", ln);
		memcpy(b + k, "a;b 1\na;c 2\n", 12);
		k += 12;
		t_len("200,000 event lines without frames after junk, then folded", b, k, true,
		      SNIFF_FOLDED, 0);
		free(b);
	}

	ok(sniff_parse_name("folded", &f) && f == SNIFF_FOLDED, "--format=folded");
	ok(sniff_parse_name("perf", &f) && f == SNIFF_PERF, "--format=perf");
	ok(!sniff_parse_name("xml", &f), "--format=xml is refused");
	return done_testing();
}
