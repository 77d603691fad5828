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

	ok(sniff_parse_name("folded", &f) && f == SNIFF_FOLDED, "--format=folded");
	ok(sniff_parse_name("perf", &f) && f == SNIFF_PERF, "--format=perf");
	ok(!sniff_parse_name("xml", &f), "--format=xml is refused");
	return done_testing();
}
