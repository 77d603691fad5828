/* Unit tests for src/text.c. Expected strings are worked out by hand from the
 * rules in text.h (UTF-8 bytes written out in the literals). */
#include "config.h"
#include "text.h"
#include "tap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A string literal and its length (names may contain NUL). */
#define S(lit) lit, sizeof(lit) - 1

/* Display forms used below, spelled out. */
#define FFFD "\xef\xbf\xbd"
#define KAN "\xe6\xbc\xa2"      /* 漢 U+6F22, 2 columns */
#define JI "\xe5\xad\x97"       /* 字 U+5B57, 2 columns */
#define ACUTE "\xcc\x81"        /* U+0301 combining acute */
#define CIRC "\xcc\x82"         /* U+0302 */
#define TILDE "\xcc\x83"        /* U+0303 */
#define MACRON "\xcc\x84"       /* U+0304 */
/* U+10000 (4 bytes, 1 column) with two marks U+E0100 (4 bytes each). */
#define HEAVY "\xf0\x90\x80\x80\xf3\xa0\x84\x80\xf3\xa0\x84\x80"

/* Runs text_fit into a buffer of exactly TEXT_FIT_BYTES(cols) bytes (heap,
 * so ASan sees any overrun) and compares text and returned columns. */
static void fit_is(const char *s, size_t len, int cols, const char *want, int wantcols,
		   const char *name)
{
	size_t sz = TEXT_FIT_BYTES(cols < 0 ? 0 : cols);
	char *out = malloc(sz);
	int r = text_fit(s, len, cols, out, sz);
	is_str(out, want, name);
	is_int(r, wantcols, name);
	free(out);
}

static void mid_is(const char *s, size_t len, int cols, const char *want, int wantcols,
		   const char *name)
{
	size_t sz = TEXT_FIT_BYTES(cols < 0 ? 0 : cols);
	char *out = malloc(sz);
	int r = text_fit_middle(s, len, cols, out, sz);
	is_str(out, want, name);
	is_int(r, wantcols, name);
	free(out);
}

/* Whole display form (sanitize with a roomy buffer) and its width. */
static void form_is(const char *s, size_t len, const char *want, int wantcols, const char *name)
{
	char out[4096];
	size_t n = text_sanitize(s, len, out, sizeof out);
	is_str(out, want, name);
	ok(n == strlen(want), "%s: sanitize returns bytes", name);
	is_int(text_width(s, len), wantcols, name);
}

static void test_ascii(void)
{
	form_is(S("main"), "main", 4, "plain ASCII");
	form_is(S(""), "", 0, "empty name");
	form_is(S("std::vector<int>::push_back(int&&) [clone .isra.0]"),
		"std::vector<int>::push_back(int&&) [clone .isra.0]", 50, "C++ name");
	fit_is(S("main"), 10, "main", 4, "fit: short name whole, no pad");
	fit_is(S("abcdef"), 6, "abcdef", 6, "fit: exactly fitting name has no ..");
	fit_is(S("abcdefg"), 6, "abcd..", 6, "fit: one too long");
	fit_is(S("abcd"), 3, "a..", 3, "fit: cols 3");
	fit_is(S("abcd"), 2, "", 0, "fit: cols 2, does not fit");
	fit_is(S("abcd"), 1, "", 0, "fit: cols 1, does not fit");
	fit_is(S("abcd"), 0, "", 0, "fit: cols 0");
	fit_is(S("abcd"), -5, "", 0, "fit: negative cols");
	fit_is(S("ab"), 2, "ab", 2, "fit: cols 2, fits whole");
	fit_is(S("a"), 1, "a", 1, "fit: cols 1, fits whole");
	fit_is(S(""), 0, "", 0, "fit: empty name, cols 0");
}

static void test_controls(void)
{
	/* Caret notation: ^ then the byte + 0x40. */
	static const char carets[] = "@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_";
	char name[3], want[5];
	for (int c = 0; c < 32; c++) {
		name[0] = 'a';
		name[1] = (char)c;
		name[2] = 'b';
		want[0] = 'a';
		want[1] = '^';
		want[2] = carets[c];
		want[3] = 'b';
		want[4] = 0;
		char out[32], label[40];
		size_t n = text_sanitize(name, 3, out, sizeof out);
		snprintf(label, sizeof label, "C0 0x%02x -> ^%c", c, carets[c]);
		ok(n == 4 && strcmp(out, want) == 0 && text_width(name, 3) == 4, "%s", label);
	}
	form_is(S("foo\0bar"), "foo^@bar", 8, "NUL inside a name");
	form_is(S("a\x7f"), "a^?", 3, "DEL");
	form_is(S("\t\n\r"), "^I^J^M", 6, "tab, newline, CR");
	form_is(S("\x1b[31mred\x1b[0m"), "^[[31mred^[[0m", 14, "SGR sequence is inert");
	form_is(S("\x1b]52;c;aGVsbG8=\x07"), "^[]52;c;aGVsbG8=^G", 18, "OSC 52 is inert");
	form_is(S("\xc2\x9b" "31m"), "<U+009B>31m", 11, "C1 CSI (C2 9B)");
	form_is(S("\xc2\x85"), "<U+0085>", 8, "C1 NEL");
	form_is(S("\xc2\x80\xc2\x9f"), "<U+0080><U+009F>", 16, "C1 range ends");
	form_is(S("\xc2\xa0"), "\xc2\xa0", 1, "U+00A0 (first after C1) kept");
}

/* Every byte at every position of an ASCII name: the 8-bytes-at-a-time
 * ASCII scan must stop at exactly the right byte. A byte >= 0x80 between
 * ASCII bytes is always one bad unit. */
static void test_byte_in_ascii(void)
{
	int bad = 0;
	for (int b = 0; b < 256; b++) {
		for (int i = 0; i < 20; i++) {
			char name[20], want[32], out[TEXT_FIT_BYTES(80)];
			size_t n = 0;
			int w;
			memcpy(name, "abcdefghijklmnopqrst", 20);
			name[i] = (char)b;
			memcpy(want, name, (size_t)i);
			n = (size_t)i;
			if (b >= 0x20 && b < 0x7f) {
				want[n++] = (char)b;
				w = 20;
			} else if (b < 0x80) {
				want[n++] = '^';
				want[n++] = (char)(b == 0x7f ? '?' : b + '@');
				w = 21;
			} else {
				memcpy(want + n, FFFD, 3);
				n += 3;
				w = 20;
			}
			memcpy(want + n, name + i + 1, (size_t)(19 - i));
			want[n + (size_t)(19 - i)] = 0;
			if (text_fit(name, 20, 80, out, sizeof out) != w || strcmp(out, want) != 0 ||
			    text_width(name, 20) != w) {
				if (!bad++)
					printf("# byte 0x%02x at %d: got '%s'\n", b, i, out);
			}
		}
	}
	ok(bad == 0, "every byte at every position of a 20-byte ASCII name");
}

static void test_format_chars(void)
{
	form_is(S("abc\xe2\x80\xae" "def"), "abc<U+202E>def", 14, "bidi override U+202E");
	form_is(S("\xe2\x80\x8e\xe2\x80\x8f"), "<U+200E><U+200F>", 16, "LRM, RLM");
	form_is(S("\xe2\x80\xaa\xe2\x81\xa6\xe2\x81\xa9"), "<U+202A><U+2066><U+2069>", 24,
		"bidi embedding, isolates");
	form_is(S("\xd8\x9c"), "<U+061C>", 8, "Arabic letter mark");
	form_is(S("a\xe2\x80\x8b" "b"), "a<U+200B>b", 10, "zero width space");
	form_is(S("\xe2\x80\x8c\xe2\x80\x8d"), "<U+200C><U+200D>", 16, "ZWNJ, ZWJ");
	form_is(S("\xef\xbb\xbfmain"), "<U+FEFF>main", 12, "BOM");
	form_is(S("\xe2\x81\xa0"), "<U+2060>", 8, "word joiner");
	form_is(S("\xc2\xad"), "<U+00AD>", 8, "soft hyphen");
	form_is(S("\xe2\x80\xa8\xe2\x80\xa9"), "<U+2028><U+2029>", 16, "line/paragraph separators");
	form_is(S("\xf3\xa0\x80\x81"), "<U+E0001>", 9, "language tag: 5 hex digits");
	form_is(S("\xf4\x8f\xbf\xbf"), "<U+10FFFF>", 10, "noncharacter U+10FFFF: 6 digits");
	form_is(S("\xcd\xb8"), "<U+0378>", 8, "unassigned U+0378");
	form_is(S("\xee\x80\x80"), "\xee\x80\x80", 1, "private use U+E000 kept");
	/* Man, ZWJ, woman: the joiner is shown, the emoji stay. */
	form_is(S("\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9"),
		"\xf0\x9f\x91\xa8<U+200D>\xf0\x9f\x91\xa9", 12, "ZWJ emoji sequence");
}

static void test_invalid(void)
{
	/* One U+FFFD per maximal subpart (a prefix of a well-formed sequence),
	 * else one per byte. */
	form_is(S("a\xff" "b"), "a" FFFD "b", 3, "FF");
	form_is(S("\x80"), FFFD, 1, "lone continuation 80");
	form_is(S("\x80\x80\x80\x80\x80"), FFFD FFFD FFFD FFFD FFFD, 5, "five continuation bytes");
	form_is(S("\xe2\x82"), FFFD, 1, "truncated E2 82: one FFFD");
	form_is(S("\xe2\x82x"), FFFD "x", 2, "truncated E2 82 before ASCII");
	form_is(S("\xe2\x82\xe2\x82\xac"), FFFD "\xe2\x82\xac", 2, "truncated, then euro sign");
	form_is(S("\xc0\xaf"), FFFD FFFD, 2, "overlong C0 AF: two");
	form_is(S("\xe0\x80\xaf"), FFFD FFFD FFFD, 3, "overlong E0 80 AF: three");
	form_is(S("\xed\xa0\x80"), FFFD FFFD FFFD, 3, "surrogate ED A0 80: three");
	form_is(S("\xf4\x90\x80\x80"), FFFD FFFD FFFD FFFD, 4, "above U+10FFFF: four");
	form_is(S("\xf0\x9f\x98"), FFFD, 1, "truncated 4-byte emoji: one");
	form_is(S("\xf0\x9f\x98!"), FFFD "!", 2, "truncated 4-byte emoji before ASCII");
	form_is(S("\xf5\x80"), FFFD FFFD, 2, "F5 lead: two");
	form_is(S("\xef\xbf\xbd"), FFFD, 1, "real U+FFFD kept");
}

static void test_widths(void)
{
	form_is(S(KAN JI), KAN JI, 4, "CJK: 2 columns each");
	form_is(S("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80", 2, "emoji: 2 columns");
	form_is(S("\xef\xbc\x81"), "\xef\xbc\x81", 2, "fullwidth !");
	form_is(S("caf\xc3\xa9"), "caf\xc3\xa9", 4, "precomposed e-acute");
	form_is(S("cafe" ACUTE), "cafe" ACUTE, 4, "e + combining acute");
	form_is(S(KAN ACUTE CIRC), KAN ACUTE CIRC, 2, "two marks on a wide char");
	form_is(S("\xff" ACUTE), FFFD ACUTE, 1, "mark on U+FFFD");
}

static void test_marks(void)
{
	form_is(S(ACUTE "a"), "<U+0301>a", 9, "mark at start: escaped");
	form_is(S("\x1b" ACUTE), "^[<U+0301>", 10, "mark after caret escape: escaped");
	form_is(S("\xe2\x80\x8b" ACUTE), "<U+200B><U+0301>", 16, "mark after <U+> escape");
	form_is(S("a" ACUTE CIRC), "a" ACUTE CIRC, 1, "two marks kept");
	form_is(S("a" ACUTE CIRC TILDE), "a" ACUTE CIRC "<U+0303>", 9, "third mark escaped");
	form_is(S("a" ACUTE CIRC TILDE MACRON "b" ACUTE),
		"a" ACUTE CIRC "<U+0303><U+0304>b" ACUTE, 18, "fourth escaped; next base resets");

	/* Zalgo: 'a' and 50 marks -> a + 2 marks + 48 escapes of 8 columns. */
	char z[1 + 50 * 2], want[1 + 2 * 2 + 48 * 8 + 1];
	z[0] = 'a';
	for (int i = 0; i < 50; i++)
		memcpy(z + 1 + 2 * i, ACUTE, 2);
	memcpy(want, "a" ACUTE ACUTE, 5);
	for (int i = 0; i < 48; i++)
		memcpy(want + 5 + 8 * i, "<U+0301>", 8);
	want[sizeof want - 1] = 0;
	form_is(z, sizeof z, want, 385, "zalgo: 50 marks");
	fit_is(z, sizeof z, 10, "a" ACUTE ACUTE "..       ", 10, "zalgo fit 10");
	fit_is(z, sizeof z, 17, "a" ACUTE ACUTE "<U+0301>..      ", 17, "zalgo fit 17");

	/* Bytes per column stay bounded: 200 bases with 50 marks each. */
	size_t zn = 200 * sizeof z;
	char *big = malloc(zn);
	for (int i = 0; i < 200; i++)
		memcpy(big + i * sizeof z, z, sizeof z);
	int bounded = 1;
	for (int cols = 0; cols <= 120 && bounded; cols++) {
		size_t sz = TEXT_FIT_BYTES(cols);
		char *out = malloc(sz);
		int r = text_fit(big, zn, cols, out, sz);
		bounded = strlen(out) < sz && r == (cols < 3 ? 0 : cols);
		r = text_fit_middle(big, zn, cols, out, sz);
		bounded = bounded && strlen(out) < sz && r == (cols < 3 ? 0 : cols);
		free(out);
	}
	ok(bounded, "zalgo x200 fits TEXT_FIT_BYTES for cols 0..120");
	free(big);

	/* The worst case of the bound: 12 bytes in one column. */
	char heavy[20 * 12];
	for (int i = 0; i < 20; i++)
		memcpy(heavy + 12 * i, HEAVY, 12);
	is_int(text_width(heavy, sizeof heavy), 20, "12-byte clusters: 1 column each");
	{
		size_t sz = TEXT_FIT_BYTES(20);
		char *out = malloc(sz);
		int r = text_fit(heavy, sizeof heavy, 20, out, sz);
		ok(r == 20 && strlen(out) == 240 && memcmp(out, heavy, 240) == 0,
		   "12-byte clusters, 20 cols: whole, 240 bytes within TEXT_FIT_BYTES(20)");
		free(out);
	}
	fit_is(heavy, sizeof heavy, 5, HEAVY HEAVY HEAVY "..", 5, "12-byte clusters cut to 5");
}

static void test_fit_wide(void)
{
	static const char kk[] = KAN JI KAN JI;
	fit_is(S(kk), 8, KAN JI KAN JI, 8, "fit 8: whole, no ..");
	fit_is(S(kk), 9, KAN JI KAN JI, 8, "fit 9: whole");
	fit_is(S(kk), 7, KAN JI ".. ", 7, "fit 7: pad after ..");
	fit_is(S(kk), 6, KAN JI "..", 6, "fit 6");
	fit_is(S(kk), 5, KAN ".. ", 5, "fit 5: wide char would straddle, pad");
	fit_is(S(kk), 4, KAN "..", 4, "fit 4");
	fit_is(S(kk), 3, ".. ", 3, "fit 3: nothing fits before ..");
	fit_is(S(kk), 2, "", 0, "fit 2");
	fit_is(S("a" KAN), 3, "a" KAN, 3, "fit 3: a+wide fits whole");
	fit_is(S("ab" KAN), 3, "a..", 3, "fit 3: ab+wide cut");
	fit_is(S("e" ACUTE "xyz"), 3, "e" ACUTE "..", 3, "fit keeps the mark with its base");
	fit_is(S("abc" ACUTE), 3, "abc" ACUTE, 3, "fit: trailing mark takes no column");
}

static void test_fit_escapes(void)
{
	static const char rlo[] = "ab\xe2\x80\xae" "cd";      /* ab<U+202E>cd: 12 */
	fit_is(S(rlo), 12, "ab<U+202E>cd", 12, "escape: fits whole");
	fit_is(S(rlo), 11, "ab..       ", 11, "escape cut away entirely, pad to cols");
	fit_is(S("ab\xe2\x80\xae" "cdef"), 13, "ab<U+202E>c..", 13, "whole escape before ..");
	fit_is(S(rlo), 8, "ab..    ", 8, "escape cut away, cols 8");
	fit_is(S("\x1bxyz"), 4, "^[..", 4, "caret escape whole");
	fit_is(S("\x1bxyz"), 3, ".. ", 3, "caret escape not split");
	fit_is(S("a\x1b" "b"), 4, "a^[b", 4, "caret escape fits whole");
	fit_is(S("a\xff" "bcd"), 4, "a" FFFD "..", 4, "FFFD counts one column");
}

static void test_middle(void)
{
	static const char pb[] = "std::vector<int>::push_back";   /* 27 */
	mid_is(S(pb), 27, pb, 27, "middle: fits whole");
	mid_is(S(pb), 16, "std::ve..sh_back", 16, "middle 16: 7 + .. + 7");
	mid_is(S(pb), 17, "std::vec..sh_back", 17, "middle 17: head gets the extra");
	mid_is(S(pb), 3, "s..", 3, "middle 3");
	mid_is(S(pb), 4, "s..k", 4, "middle 4");
	mid_is(S(pb), 2, "", 0, "middle 2");
	mid_is(S(KAN JI KAN JI KAN JI), 7, KAN ".." JI " ", 7, "middle: wide chars, pad at end");
	mid_is(S(KAN JI KAN JI KAN JI), 8, KAN ".." KAN JI, 8,
	       "middle: unused head column goes to the tail");
	mid_is(S("abcdefghije" ACUTE), 5, "ab..e" ACUTE, 5, "middle: tail keeps base + mark");
	mid_is(S("abcdefghij" ACUTE "zz"), 5, "ab..z", 5, "middle: tail of one column");
	mid_is(S("abcdefghij" ACUTE "zz"), 6, "ab..zz", 6, "middle: tail never starts at a mark");
	mid_is(S("ab" ACUTE CIRC TILDE "cdefgh"), 10, "ab" ACUTE CIRC "..cdefgh", 10,
	       "middle: head keeps its marks, escape dropped");

	/* Zalgo tail: the last 14 columns are "<U+0301>end" (11) + 3 pad. */
	char z[26 + 1 + 50 * 2 + 3];
	memcpy(z, "abcdefghijklmnopqrstuvwxyza", 27);
	for (int i = 0; i < 50; i++)
		memcpy(z + 27 + 2 * i, ACUTE, 2);
	memcpy(z + 127, "end", 3);
	mid_is(z, sizeof z, 30, "abcdefghijklmn..<U+0301>end   ", 30, "middle: zalgo tail");

	/* The tail is read from the last 12 bytes per column: exactly enough
	 * for 5 clusters of 12 bytes. */
	{
		char hv[40 + 20 * 12], want[5 + 2 + 5 * 12 + 1];
		memset(hv, 'x', 40);
		for (int i = 0; i < 20; i++)
			memcpy(hv + 40 + 12 * i, HEAVY, 12);
		memcpy(want, "xxxxx..", 7);
		for (int i = 0; i < 5; i++)
			memcpy(want + 7 + 12 * i, HEAVY, 12);
		want[sizeof want - 1] = 0;
		mid_is(hv, sizeof hv, 12, want, 12, "middle: tail of 12-byte columns");
	}

	/* A 10 MB name: head and tail, read from both ends. */
	size_t n = 10u << 20;
	char *big = malloc(n);
	memset(big, 'x', n);
	memcpy(big, "BEGIN", 5);
	memcpy(big + n - 3, "END", 3);
	mid_is(big, n, 20, "BEGINxxxx..xxxxxxEND", 20, "middle: 10 MB name");
	fit_is(big, n, 10, "BEGINxxx..", 10, "fit: 10 MB name");
	is_int(text_width(big, n), (int)n, "width of a 10 MB name");
	free(big);
}

static void test_sanitize(void)
{
	char out[16];
	size_t n;

	n = text_sanitize(S("abc\x1b"), out, 6);
	ok(n == 5 && strcmp(out, "abc^[") == 0, "sanitize: fits exactly (5 + NUL)");
	n = text_sanitize(S("abc\x1b"), out, 5);
	ok(n == 4 && strcmp(out, "ab..") == 0, "sanitize: cut with ..");
	n = text_sanitize(S(KAN JI), out, 6);
	ok(n == 5 && strcmp(out, KAN "..") == 0, "sanitize: UTF-8 not split");
	n = text_sanitize(S(KAN JI), out, 5);
	ok(n == 2 && strcmp(out, "..") == 0, "sanitize: nothing before ..");
	n = text_sanitize(S("a\xe2\x80\xae"), out, 8);
	ok(n == 3 && strcmp(out, "a..") == 0, "sanitize: escape not split");
	n = text_sanitize(S("ab"), out, 2);
	ok(n == 0 && out[0] == 0, "sanitize: outsize 2, cannot fit");
	n = text_sanitize(S("a"), out, 2);
	ok(n == 1 && strcmp(out, "a") == 0, "sanitize: outsize 2, fits");
	n = text_sanitize(S("a"), out, 1);
	ok(n == 0 && out[0] == 0, "sanitize: outsize 1");
	out[0] = 'Z';
	n = text_sanitize(S("a"), out, 0);
	ok(n == 0 && out[0] == 'Z', "sanitize: outsize 0 writes nothing");
}

static void test_non_utf8(void)
{
	text_init(false);
	ok(!text_is_utf8(), "text_init(false)");
	form_is(S(KAN JI), "??", 2, "non-UTF-8: CJK -> ?");
	form_is(S("caf\xc3\xa9"), "caf?", 4, "non-UTF-8: e-acute -> ?");
	form_is(S("e" ACUTE), "e?", 2, "non-UTF-8: mark -> ?");
	form_is(S("\xff\xe2\x82"), "??", 2, "non-UTF-8: invalid -> ?");
	form_is(S("a\xe2\x80\xae" "b"), "a<U+202E>b", 10, "non-UTF-8: bidi escape stays");
	form_is(S("\xc2\x9b\x1b"), "<U+009B>^[", 10, "non-UTF-8: C1 and ESC escapes");
	fit_is(S(KAN JI KAN JI), 3, "?..", 3, "non-UTF-8: fit");
	mid_is(S(KAN JI KAN JI "abcdef"), 7, "???..ef", 7, "non-UTF-8: middle");
	text_init(true);
	ok(text_is_utf8(), "text_init(true)");
}

/* ---- properties over all single bytes and random strings ---------------- */

/* Checks that out is valid UTF-8 with no C0, DEL, C1, bidi control, zero
 * width or BOM (decoded here independently of text.c). */
static int safe_text(const char *out, int ascii_only)
{
	const unsigned char *p = (const unsigned char *)out;
	while (*p) {
		uint32_t c = *p;
		int n = 0;
		if (c < 0x80) {
			if (c < 0x20 || c == 0x7f)
				return 0;
			p++;
			continue;
		}
		if (ascii_only)
			return 0;
		if (c >= 0xc2 && c <= 0xdf)
			n = 1, c &= 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2, c &= 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3, c &= 0x07;
		else
			return 0;
		for (int i = 1; i <= n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return 0;
			c = c << 6 | (p[i] & 0x3f);
		}
		if ((n == 2 && c < 0x800) || (n == 3 && (c < 0x10000 || c > 0x10ffff)) ||
		    (c >= 0xd800 && c <= 0xdfff))
			return 0;
		if (c < 0xa0 || c == 0x061c || (c >= 0x200b && c <= 0x200f) ||
		    (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x206f) ||
		    c == 0xfeff || c == 0x00ad)
			return 0;
		p += n + 1;
	}
	return 1;
}

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

/* Pieces for structured random names. None contains '^', '<', '.' or ' ',
 * so the display form can be split into units again by looking at it
 * (reference_cut below), and ".." and padding stand out. */
static const char *const pieces[] = {
	"a", "Z", "::", KAN, JI, ACUTE, CIRC, ACUTE ACUTE ACUTE ACUTE ACUTE, "\x1b", "\x00",
	"\x7f", "\xff", "\x80", "\xe2\x80\xae", "\xe2\x80\x8d", "\xf0\x9f\x98\x80", "\xe2\x82",
	"\xc2\x9b", "\xed\xa0\x80", "\xf0\x90\x80\x80", "\xf3\xa0\x84\x80", "\xef\xbb\xbf",
	"\xcd\xb8", "\xf0\x9f\x98", "\x80\x80\x80\x80", "\xf4\x8f\xbf\xbf",
	/* From here on: byte-heavy pieces (up to 12 bytes per column), used
	 * alone too, so that the middle cut's window over the end is tight. */
	HEAVY, "\xf3\xa0\x84\x80", "\xf0\x9f\x98\x80", "\x80", "b",
};
static const size_t piece_len[] = {
	1, 1, 2, 3, 3, 2, 2, 10, 1, 1, 1, 1, 1, 3, 3, 4, 2, 2, 3, 4, 4, 3, 2, 3, 4, 4,
	12, 4, 4, 1, 1,
};
#define HEAVY_FIRST 26

/* A slow reference for text_fit and text_fit_middle, written from the rules
 * in text.h: split the display form (a fixed point) into units, then cut by
 * unit widths. Works for names made of the pieces above. */
struct ref_unit {
	size_t off, len;
	int w;
};

static size_t split_units(const char *f, size_t fn, struct ref_unit *u)
{
	size_t n = 0;
	for (size_t i = 0; i < fn; n++) {
		unsigned char c = (unsigned char)f[i];
		size_t l = 1;
		int w;
		if (c == '^') {
			l = 2;
			w = 2;
		} else if (c == '<') {
			l = (size_t)(strchr(f + i, '>') - (f + i)) + 1;
			w = (int)l;
		} else if (c < 0x80) {
			w = 1;
		} else {
			char tmp[8] = "a";
			l = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
			memcpy(tmp + 1, f + i, l);
			w = text_width(tmp, l + 1) - 1;         /* 0 for a kept mark */
		}
		u[n].off = i;
		u[n].len = l;
		u[n].w = w;
		i += l;
	}
	return n;
}

static void reference_cut(const char *f, size_t fn, int cols, int middle, char *out)
{
	static struct ref_unit u[1 << 16];
	size_t n = split_units(f, fn, u), h = 0, t, o = 0;
	int total = 0, hw = 0, tw = 0, budget;

	for (size_t i = 0; i < n; i++)
		total += u[i].w;
	if (total <= cols) {
		memcpy(out, f, fn);
		out[fn] = 0;
		return;
	}
	if (cols < 3) {
		out[0] = 0;
		return;
	}
	budget = middle ? (cols - 1) / 2 : cols - 2;
	while (h < n && hw + u[h].w <= budget)
		hw += u[h++].w;
	t = n;
	if (middle) {
		/* Longest suffix within the rest, starting at a unit of width >= 1. */
		size_t best = n;
		int sum = 0;
		for (size_t j = n; j-- > h;) {
			sum += u[j].w;
			if (sum > cols - 2 - hw)
				break;
			if (u[j].w > 0) {
				best = j;
				tw = sum;
			}
		}
		t = best;
	}
	memcpy(out, f, h ? u[h - 1].off + u[h - 1].len : 0);
	o = h ? u[h - 1].off + u[h - 1].len : 0;
	memcpy(out + o, "..", 2);
	o += 2;
	if (t < n) {
		memcpy(out + o, f + u[t].off, fn - u[t].off);
		o += fn - u[t].off;
	}
	for (int i = hw + 2 + tw; i < cols; i++)
		out[o++] = ' ';
	out[o] = 0;
}

struct stats {
	int unsafe, unterminated, overrun, wrongwidth, wrongcut, unlike_ref, unstable;
	char first[160];
};

static void note(struct stats *st, int *counter, const char *what, int cols)
{
	if ((*counter)++ == 0 && !st->first[0])
		snprintf(st->first, sizeof st->first, "%s (cols %d)", what, cols);
}

static void check_name(const char *s, size_t len, int structured, struct stats *st);

/* Checks one name under every function and a range of budgets, from an
 * exact-size heap copy so that ASan sees any read past its end. */
static void check_one(const char *name, size_t len, int structured, struct stats *st)
{
	char *s = malloc(len ? len : 1);
	memcpy(s, name, len);
	check_name(s, len, structured, st);
	free(s);
}

static void check_name(const char *s, size_t len, int structured, struct stats *st)
{
	static char full[1 << 16], again[1 << 16], want[1 << 16];
	int ascii = !text_is_utf8();
	size_t fn = text_sanitize(s, len, full, sizeof full);
	int fw = text_width(s, len);

	if (!safe_text(full, ascii))
		note(st, &st->unsafe, "sanitize output unsafe", 0);
	if (fn != strlen(full))
		note(st, &st->unterminated, "sanitize length", 0);
	/* The display form is a fixed point and measures the same. */
	text_sanitize(full, fn, again, sizeof again);
	if (strcmp(full, again) != 0)
		note(st, &st->unstable, "display form not idempotent", 0);
	if (text_width(full, fn) != fw)
		note(st, &st->wrongwidth, "width of display form differs", 0);

	for (int cols = -1; cols <= 30; cols++) {
		size_t sz = TEXT_FIT_BYTES(cols < 0 ? 0 : cols);
		char *out = malloc(sz + 8);
		for (int middle = 0; middle < 2; middle++) {
			memset(out, 0x55, sz + 8);
			int r = middle ? text_fit_middle(s, len, cols, out, sz)
				       : text_fit(s, len, cols, out, sz);
			size_t on = strnlen(out, sz);
			if (on == sz) {
				note(st, &st->unterminated, "fit: no NUL within outsize", cols);
				continue;
			}
			for (size_t i = sz; i < sz + 8; i++)
				if ((unsigned char)out[i] != 0x55)
					note(st, &st->overrun, "fit: wrote past outsize", cols);
			if (!safe_text(out, ascii))
				note(st, &st->unsafe, "fit output unsafe", cols);
			if (text_width(out, on) != r)
				note(st, &st->wrongwidth, "fit: return != width of output", cols);
			if (fw <= cols ? r != fw || strcmp(out, full) != 0
				       : r != (cols < 3 ? 0 : cols))
				note(st, &st->wrongcut, "fit: not whole, nor exactly cols", cols);
			if (structured) {
				reference_cut(full, fn, cols, middle, want);
				if (strcmp(out, want) != 0)
					note(st, &st->unlike_ref, middle ? "middle differs from reference"
									 : "fit differs from reference", cols);
			}
		}
		free(out);
	}
}

static void test_properties(void)
{
	struct stats st;
	static char s[4096];

	memset(&st, 0, sizeof st);
	for (int b = 0; b < 256; b++) {
		s[0] = (char)b;
		check_one(s, 1, 0, &st);
		s[1] = 'x';
		check_one(s, 2, 0, &st);
	}
	for (int mode = 1; mode >= 0; mode--) {
		text_init(mode);
		for (int i = 0; i < 3000; i++) {
			size_t len = rnd() % 64;
			for (size_t j = 0; j < len; j++)
				s[j] = (char)rnd();
			check_one(s, len, 0, &st);
			/* Structured: pieces glued together, some long enough that
			 * the middle cut reads only the end. */
			size_t np = sizeof pieces / sizeof *pieces, p0 = i % 4 == 1 ? HEAVY_FIRST : 0;
			len = 0;
			for (int k = (int)(rnd() % (i % 4 == 0 ? 300 : i % 4 == 1 ? 120 : 24)); k > 0; k--) {
				size_t p = p0 + rnd() % (np - p0);
				memcpy(s + len, pieces[p], piece_len[p]);
				len += piece_len[p];
			}
			check_one(s, len, 1, &st);
		}
	}
	text_init(true);
	if (st.first[0])
		printf("# first failure: %s\n", st.first);
	is_int(st.unsafe, 0, "properties: no control, C1 or bidi byte ever comes out");
	is_int(st.unterminated, 0, "properties: NUL-terminated within outsize");
	is_int(st.overrun, 0, "properties: nothing written past outsize");
	is_int(st.wrongwidth, 0, "properties: returned columns = width of the output");
	is_int(st.wrongcut, 0, "properties: fits whole, or exactly cols wide when cut");
	is_int(st.unlike_ref, 0, "properties: fit and middle match the reference model");
	is_int(st.unstable, 0, "properties: display form is a fixed point");
}

static void test_short_buffer(void)
{
	char out[40];
	memset(out, 'Q', sizeof out);
	/* outsize below TEXT_FIT_BYTES(cols) is a caller bug; it must still
	 * stay inside the buffer (cols is reduced to what outsize holds). */
	/* 30 bytes hold TEXT_FIT_BYTES(1): one column, and the name needs more. */
	int r = text_fit(S("abcdefghijklmnopqrstuvwxyz"), 80, out, 30);
	ok(r == 0 && out[0] == 0, "short outsize: cols reduced to what it holds");
	ok(out[30] == 'Q', "short outsize: byte after outsize untouched");
	r = text_fit_middle(S("abcdefghijklmnopqrstuvwxyz"), 80, out, 30);
	ok(r == 0 && out[0] == 0 && out[30] == 'Q', "short outsize: middle too");
	out[0] = 'Q';
	ok(text_fit(S("abc"), 10, out, 0) == 0 && out[0] == 'Q', "outsize 0 writes nothing");
	ok(text_fit_middle(S("abc"), 10, out, 0) == 0 && out[0] == 'Q', "middle: outsize 0 writes nothing");
}

/* The whole, uncut display form three ways (size, allocated copy, written
 * to a stream) against the same hand-made expectations, and the
 * sanitizing stream of --collapse on a terminal (issue 21). */
static void whole_is(const char *s, size_t len, const char *want, size_t wantlen, const char *name)
{
	char label[160];
	snprintf(label, sizeof label, "%s: text_sanitized_size", name);
	is_int((long long)text_sanitized_size(s, len), (long long)wantlen, label);
	size_t n = 0;
	char *d = text_sanitize_dup(s, len, &n);
	snprintf(label, sizeof label, "%s: text_sanitize_dup", name);
	ok(n == wantlen && memcmp(d, want, n) == 0 && d[n] == '\0', "%s", label);
	free(d);
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	int rc = text_write_sanitized(f, s, len);
	fclose(f);
	snprintf(label, sizeof label, "%s: text_write_sanitized", name);
	ok(rc == 0 && size == wantlen && memcmp(buf, want, size) == 0, "%s", label);
	free(buf);
}

static void test_whole(void)
{
	whole_is(S(""), S(""), "empty");
	whole_is(S("std::vector<int>::push_back"), S("std::vector<int>::push_back"), "plain ASCII kept");
	/* ESC ] 0 ; T BEL: ^[ ] 0 ; T ^G */
	whole_is(S("a\033]0;T\007b"), S("a^[]0;T^Gb"), "OSC 0 escaped");
	/* U+009B (C2 9B) is a C1 control: <U+009B>; 8 bytes for 2. */
	whole_is(S("\302\233" "2J"), S("<U+009B>2J"), "C1 CSI escaped");
	/* invalid F4 90 80 80: four maximal subparts, four U+FFFD */
	whole_is(S("x\xf4\x90\x80\x80"), S("x" FFFD FFFD FFFD FFFD), "invalid UTF-8");
	whole_is(S("e" ACUTE CIRC TILDE), S("e" ACUTE CIRC "<U+0303>"), "a third mark escaped");
	/* 5000 bytes: more than text_write_sanitized's 4096-byte buffer, of
	 * units that are not ASCII (each ESC is 2 bytes out: 10000). */
	char *esc = malloc(5000), *want = malloc(10000);
	memset(esc, 033, 5000);
	for (size_t i = 0; i < 10000; i += 2)
		want[i] = '^', want[i + 1] = '[';
	whole_is(esc, 5000, want, 10000, "5000 ESC bytes");
	free(esc);
	free(want);
}

/* Writes in through a text_sanitizing_stream in pieces of step bytes (each
 * flushed, so the cookie sees them apart) and compares what reaches out. */
static void stream_is(const char *in, size_t len, size_t step, const char *want, size_t wantlen,
                      const char *name)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);
	FILE *f = text_sanitizing_stream(out);
	int good = f != NULL;
	for (size_t i = 0; f && i < len; i += step) {
		size_t k = len - i < step ? len - i : step;
		good &= fwrite(in + i, 1, k, f) == k && fflush(f) == 0;
	}
	good &= f && fclose(f) == 0;
	fclose(out);
	good &= size == wantlen && memcmp(buf, want, size) == 0;
	ok(good, "%s", name);
	if (!good)
		printf("#   got: '%.*s'\n", (int)size, buf ? buf : "");
	free(buf);
}

static void test_stream(void)
{
	/* Per frame: a frame that starts with a mark has no base, whatever
	 * ends the frame before it (the ';' is no base). */
	const char in[] = "a\033]0;T\007 1\nx;" ACUTE "y 2\n" KAN ";end";
	const char want[] = "a^[]0;T^G 1\nx;<U+0301>y 2\n" KAN ";end";
	stream_is(S(in), 4096, S(want), "stream: written whole");
	/* One byte at a time: KAN (3 bytes) and ACUTE (2) arrive split. */
	stream_is(S(in), 1, S(want), "stream: one byte a write, characters split");
	stream_is(S(in), 2, S(want), "stream: two bytes a write");
	stream_is(S("plain;folded 12\n"), 5, S("plain;folded 12\n"), "stream: plain text passes as is");
	/* A mark after ASCII inside a frame has its base: kept; the ASCII
	 * frames around go out as they are. */
	const char in2[] = "ab;c" ACUTE "d;e\033 1\nf;g 2\n";
	const char want2[] = "ab;c" ACUTE "d;e^[ 1\nf;g 2\n";
	stream_is(S(in2), 4096, S(want2), "stream: ASCII frames, then a mark with its base");
	stream_is(S(in2), 3, S(want2), "stream: the same in 3-byte writes");
}

int main(void)
{
	text_init(true);
	test_ascii();
	test_controls();
	test_byte_in_ascii();
	test_format_chars();
	test_invalid();
	test_widths();
	test_marks();
	test_fit_wide();
	test_fit_escapes();
	test_middle();
	test_sanitize();
	test_non_utf8();
	test_properties();
	test_short_buffer();
	test_whole();
	test_stream();
	return done_testing();
}
