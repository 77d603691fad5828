#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "folded.h"
#include "tree.h"
#include "tap.h"

static struct reader_diag last;

/* Loads text (fed in pieces of `chunk` whole lines when chunk > 0) and
 * returns the collapsed output. */
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
	case_("a;i  6\n", "a;i 6\n", 0, "several blanks before the count");
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
	return done_testing();
}
