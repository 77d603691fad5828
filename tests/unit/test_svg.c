/* svg: the document's frames, geometry, titles, colours and escaping,
 * checked against numbers worked out by hand, and a small XML
 * well-formedness checker run on every document. */
#include "config.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diff.h"
#include "palette.h"
#include "svg.h"
#include "text.h"
#include "tree.h"
#include "tap.h"
#include "treeutil.h"

static char *render(const struct tree *t, const struct svg_options *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	int rc = svg_write(t, o, f);
	fclose(f);
	if (rc != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

/* The line of the frame whose title starts with "NAME (" (static buffer;
 * "" when there is none). */
static const char *frame(const char *doc, const char *name)
{
	static char line[4096];
	char key[512];
	snprintf(key, sizeof key, "<title>%s (", name);
	const char *p = strstr(doc, key);
	line[0] = '\0';
	if (!p)
		return line;
	while (p > doc && p[-1] != '\n')
		p--;
	const char *e = strchr(p, '\n');
	size_t n = e ? (size_t)(e - p) : strlen(p);
	if (n >= sizeof line)
		n = sizeof line - 1;
	memcpy(line, p, n);
	line[n] = '\0';
	return line;
}

static int has(const char *hay, const char *needle, const char *name)
{
	int c = hay && strstr(hay, needle) != NULL;
	ok(c, "%s", name);
	if (!c)
		printf("#   want: '%s'\n#   in:   '%.400s'\n", needle, hay ? hay : "(null)");
	return c;
}

/* ---- a small XML 1.0 well-formedness check ------------------------------ */

/* Valid UTF-8 of XML characters only (Char production); returns the
 * offending offset or -1. */
static long bad_char(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned c = s[i], cp, k;
		if (c < 0x80) {
			if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
				return (long)i;
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) { cp = c & 0x1f; k = 1; }
		else if (c >= 0xe0 && c <= 0xef) { cp = c & 0x0f; k = 2; }
		else if (c >= 0xf0 && c <= 0xf4) { cp = c & 0x07; k = 3; }
		else return (long)i;
		for (unsigned j = 1; j <= k; j++) {
			if (i + j >= n || (s[i + j] & 0xc0) != 0x80)
				return (long)i;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		if ((k == 2 && cp < 0x800) || (k == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
			return (long)i;
		i += k + 1;
	}
	return -1;
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_' || c == ':' || c == '.';
}

/* An entity reference at s ('&'): its length, or 0 when invalid. */
static size_t entity(const char *s)
{
	static const char *const named[] = { "&lt;", "&gt;", "&amp;", "&quot;", "&apos;" };
	for (size_t k = 0; k < 5; k++)
		if (strncmp(s, named[k], strlen(named[k])) == 0)
			return strlen(named[k]);
	if (s[1] == '#') {
		size_t i = 2;
		bool hex = s[2] == 'x';
		if (hex)
			i++;
		size_t d = i;
		while (hex ? strchr("0123456789abcdefABCDEF", s[i]) && s[i] : s[i] >= '0' && s[i] <= '9')
			i++;
		if (i > d && s[i] == ';')
			return i + 1;
	}
	return 0;
}

/* Returns NULL when doc is well-formed (one root, tags balanced, attributes
 * quoted, entities known, no raw '<' or "]]>" in text, CDATA and comments
 * closed), else what is wrong. */
static const char *xml_check(const char *doc)
{
	static char why[200];
	size_t n = strlen(doc);
	long b = bad_char((const unsigned char *)doc, n);
	if (b >= 0) {
		snprintf(why, sizeof why, "not an XML character at byte %ld", b);
		return why;
	}
	const char *stack[256];
	size_t nstack[256], depth = 0, roots = 0;
	const char *p = doc;
	while (*p) {
		if (*p == '&') {
			size_t e = entity(p);
			if (!e)
				return "bad entity reference";
			p += e;
			continue;
		}
		if (*p == ']' && strncmp(p, "]]>", 3) == 0)
			return "]]> in text";
		if (*p != '<') {
			if (depth == 0 && !strchr(" \t\r\n", *p))
				return "text outside the root element";
			p++;
			continue;
		}
		if (strncmp(p, "<?", 2) == 0) {
			const char *e = strstr(p, "?>");
			if (!e)
				return "unclosed processing instruction";
			p = e + 2;
		} else if (strncmp(p, "<!--", 4) == 0) {
			const char *e = strstr(p + 4, "--");
			if (!e || e[2] != '>')
				return "bad comment";
			p = e + 3;
		} else if (strncmp(p, "<![CDATA[", 9) == 0) {
			const char *e = strstr(p, "]]>");
			if (!e || depth == 0)
				return "bad CDATA section";
			p = e + 3;
		} else if (p[1] == '/') {
			const char *s = p + 2, *e = s;
			while (name_char(*e))
				e++;
			if (depth == 0 || (size_t)(e - s) != nstack[depth - 1] ||
			    strncmp(s, stack[depth - 1], nstack[depth - 1]) != 0)
				return "mismatched end tag";
			while (*e == ' ' || *e == '\n')
				e++;
			if (*e != '>')
				return "bad end tag";
			depth--;
			p = e + 1;
		} else {
			const char *s = p + 1, *e = s;
			while (name_char(*e))
				e++;
			if (e == s)
				return "raw '<' in text";
			if (depth == 0 && roots++)
				return "two root elements";
			const char *name = s;
			size_t len = (size_t)(e - s);
			for (;;) {
				while (*e == ' ' || *e == '\n' || *e == '\t')
					e++;
				if (*e == '>' || (e[0] == '/' && e[1] == '>'))
					break;
				const char *a = e;
				while (name_char(*e))
					e++;
				if (e == a || *e != '=' || (e[1] != '"' && e[1] != '\''))
					return "bad attribute";
				char q = e[1];
				e += 2;
				while (*e && *e != q) {
					if (*e == '<')
						return "'<' in an attribute value";
					if (*e == '&') {
						size_t k = entity(e);
						if (!k)
							return "bad entity in an attribute value";
						e += k;
					} else {
						e++;
					}
				}
				if (!*e)
					return "unclosed attribute value";
				e++;
			}
			if (*e == '/') {
				p = e + 2;
			} else {
				if (depth == 256)
					return "too deep";
				stack[depth] = name;
				nstack[depth++] = len;
				p = e + 1;
			}
		}
	}
	if (depth)
		return "unclosed element";
	if (roots != 1)
		return "no root element";
	return NULL;
}

static void is_xml(const char *doc, const char *name)
{
	const char *why = doc ? xml_check(doc) : "no document";
	ok(why == NULL, "%s: well-formed XML", name);
	if (why)
		printf("#   %s\n", why);
}

/* "#rrggbb" of the browser's colour for name */
static void hex_of(const char *name, char *out)
{
	struct palette_look l = palette_look(palette_list[0], NULL, name, strlen(name));
	sprintf(out, "fill=\"#%02x%02x%02x\"", l.rgb.r, l.rgb.g, l.rgb.b);
}

int main(void)
{
	struct svg_options o;
	char *doc;

	/* the checker itself */
	ok(xml_check("<a>&b</a>") && xml_check("<a><b></a>") && xml_check("<a>\x01</a>") &&
	   xml_check("<a>x]]>y</a>") && xml_check("<a x=\"<\"/>") && xml_check("<a>\xff</a>") &&
	   xml_check("<a/><b/>") && !xml_check("<?xml version=\"1.0\"?>\n<a x='1'>&lt;&#39;<![CDATA[<&]]></a>\n"),
	   "the XML checker rejects broken documents and takes a good one");

	/* ---- a 2-level tree, worked out by hand -------------------------- */
	struct tree t;
	tree_init(&t);
	add(&t, "a;b", 6);
	add(&t, "a;c", 2);
	add(&t, "d", 4);
	tree_finalize(&t, TREE_ORDER_NAME);
	/* Total 12 at width 1200: margins of 10 px leave 1180 px, 1180/12 =
	 * 98.333... px a sample. Levels: all 0, a d 1, b c 2; height =
	 * 36 (top) + 3 * 16 + 34 (bottom) = 118. Flame: y = 36 + (2 - level)
	 * * 16, so all 68, a d 52, b c 36. Ends rounded to 0.01 px:
	 *   all [0,12)  x 10,      end 1190      width 1180
	 *   a   [0,8)   x 10,      end 796.67    width 786.67  (8 * 98.333 = 786.666...)
	 *   b   [0,6)   x 10,      end 600       width 590     (6 * 98.333 = 590)
	 *   c   [6,8)   x 600,     end 796.67    width 196.67
	 *   d   [8,12)  x 796.67,  end 1190      width 393.33
	 * Percentages of 12: 100.00, 66.67, 50.00, 16.67, 33.33. */
	svg_options_init(&o);
	doc = render(&t, &o);
	ok(doc != NULL, "svg_write succeeds");
	is_xml(doc, "2-level tree");
	is_int((long long)count(doc, "<title>"), 5, "one <g> with a <title> per frame: all a b c d");
	is_int((long long)count(doc, "<g"), 6, "and the frames' group");
	has(doc, "width=\"1200\" height=\"118\"", "image 1200 x 118: 36 + 3 levels of 16 + 34");
	has(frame(doc, "all"), "<title>all (12 samples, 100.00%)</title><rect x=\"10\" y=\"68\" width=\"1180\" height=\"15\"",
	    "all: full width on the bottom level");
	has(frame(doc, "a"), "<title>a (8 samples, 66.67%)</title><rect x=\"10\" y=\"52\" width=\"786.67\"",
	    "a: 8/12 of 1180 px");
	has(frame(doc, "b"), "<title>b (6 samples, 50.00%)</title><rect x=\"10\" y=\"36\" width=\"590\"",
	    "b: 590 px at the top level");
	has(frame(doc, "c"), "<title>c (2 samples, 16.67%)</title><rect x=\"600\" y=\"36\" width=\"196.67\"",
	    "c: starts where b ends");
	has(frame(doc, "d"), "<title>d (4 samples, 33.33%)</title><rect x=\"796.67\" y=\"52\" width=\"393.33\"",
	    "d: starts where a ends, ends at 1190");
	has(frame(doc, "a"), "<text x=\"13\" y=\"62.5\">a</text>", "label 3 px in, 10.5 px down");
	has(doc, "<text id=\"title\" x=\"600\" y=\"24\" text-anchor=\"middle\">Flame Graph</text>",
	    "default title, centred");
	has(doc, ">Reset Zoom<", "a Reset Zoom control");
	has(doc, ">Search<", "a Search control");
	has(doc, "id=\"details\"", "a details line");
	has(doc, "<script type=\"text/ecmascript\"><![CDATA[", "an inline script in CDATA");
	ok(doc && strstr(doc, "all (") < strstr(doc, "a (") && strstr(doc, "a (") < strstr(doc, "b (") &&
	   strstr(doc, "b (") < strstr(doc, "c (") && strstr(doc, "c (") < strstr(doc, "d ("),
	   "frames in preorder: all a b c d");
	char want[64];
	hex_of("b", want);
	has(frame(doc, "b"), want, "colour: the browser's palette_look of the name");
	free(doc);

	/* ---- icicle --------------------------------------------------------- */
	/* Root on top: y = 36 + level * 16: all 36, a d 52, b c 68. */
	o.orient = LAYOUT_ICICLE;
	doc = render(&t, &o);
	has(frame(doc, "all"), "y=\"36\" width=\"1180\"", "icicle: all on the top level");
	has(frame(doc, "d"), "x=\"796.67\" y=\"52\"", "icicle: d one level down");
	has(frame(doc, "c"), "x=\"600\" y=\"68\"", "icicle: c two levels down");
	has(frame(doc, "c"), "<text x=\"603\" y=\"78.5\">c</text>", "icicle: label of c");
	has(doc, "DIR = 1", "icicle: the script reads depth downwards");
	free(doc);

	/* ---- zoom ----------------------------------------------------------- */
	/* Zoomed on a (8 samples): all stays as a full-width ancestor; b is
	 * 6/8 of 1180 = 885 px, c starts at 10 + 885 = 895, 295 px; d is out. */
	svg_options_init(&o);
	o.zoom = 1;     /* a: first in preorder after the root */
	doc = render(&t, &o);
	is_xml(doc, "zoomed");
	is_int((long long)count(doc, "<title>"), 4, "zoom: all (ancestor), a, b, c");
	has(frame(doc, "all"), "<g class=\"a\"><title>all (12 samples, 100.00%)</title><rect x=\"10\" y=\"68\" width=\"1180\"",
	    "zoom: the ancestor full width, marked");
	has(frame(doc, "a"), "<g><title>a (8 samples, 66.67%)</title><rect x=\"10\" y=\"52\" width=\"1180\"",
	    "zoom: the zoom root full width, percent still of all");
	has(frame(doc, "b"), "rect x=\"10\" y=\"36\" width=\"885\"", "zoom: b 6/8 of the width");
	has(frame(doc, "c"), "rect x=\"895\" y=\"36\" width=\"295\"", "zoom: c the rest");
	has(doc, "Z0 = 1", "zoom: the script knows where the zoom root is");
	free(doc);

	/* ---- labels: flamegraph.pl's ellipsis, annotations ----------------- */
	/* Total 16: 1180/16 = 73.75 px a sample. The long name has 1 sample:
	 * 73.75 px / 7.08 px a character = 10.4: 10 characters, so 8 and "..".
	 * kfunc_[k] has 3 samples: 221.25 px, its label leaves out "_[k]".
	 * "ab" has 1 sample too: it fits whole. A 1 sample frame at width
	 * 300 (280 px / 16 = 17.5 px) has room for 2 characters: no label. */
	struct tree lt;
	tree_init(&lt);
	add(&lt, "abcdefghijklmnopqrstuvwxyz", 1);
	add(&lt, "kfunc_[k]", 3);
	add(&lt, "ab", 1);
	add(&lt, "zz", 11);
	tree_finalize(&lt, TREE_ORDER_NAME);
	svg_options_init(&o);
	doc = render(&lt, &o);
	has(frame(doc, "abcdefghijklmnopqrstuvwxyz"), ">abcdefgh..</text>", "label cut to 10 characters with ..");
	has(frame(doc, "kfunc_[k]"), "<title>kfunc_[k] (3 samples, 18.75%)</title>", "title keeps the annotation");
	has(frame(doc, "kfunc_[k]"), ">kfunc</text>", "label leaves the annotation out");
	char kfill[64];
	hex_of("kfunc_[k]", kfill);
	has(frame(doc, "kfunc_[k]"), kfill, "code-type hue: the browser's colour for _[k]");
	has(frame(doc, "ab"), ">ab</text>", "a short name fits whole");
	free(doc);
	o.width = 300;
	doc = render(&lt, &o);
	ok(strstr(frame(doc, "ab"), "<text") == NULL, "no label under 3 characters");
	has(frame(doc, "ab"), "width=\"17.5\"", "17.5 px at width 300");
	free(doc);
	tree_free(&lt);

	/* ---- thousands, singular, pruning ---------------------------------- */
	/* x 1,234,567 and y 1 sample: y is 1180/1234568 = 0.00096 px, under the
	 * default 0.1 px: left out; with min_width 0 it is drawn. */
	struct tree ct;
	tree_init(&ct);
	add(&ct, "x", 1234567);
	add(&ct, "y", 1);
	add(&ct, "y;deep;deeper", 1);
	tree_finalize(&ct, TREE_ORDER_NAME);
	svg_options_init(&o);
	doc = render(&ct, &o);
	has(frame(doc, "x"), "<title>x (1,234,567 samples, 100.00%)</title>", "thousands separators");
	has(frame(doc, "all"), "<title>all (1,234,569 samples, 100.00%)</title>", "root total");
	is_int((long long)count(doc, "<title>"), 2, "min_width 0.1: y and its subtree left out");
	has(doc, "height=\"102\"", "height from the levels drawn only (2: 36 + 32 + 34)");
	free(doc);
	o.min_width = 0;
	doc = render(&ct, &o);
	is_int((long long)count(doc, "<title>"), 5, "min_width 0: every frame");
	has(frame(doc, "deeper"), "<title>deeper (1 sample, 0.00%)</title>", "one sample: singular");
	free(doc);
	o.min_width = 0.1;
	o.count_name = "cpu-clock";
	o.title = "perf.data";
	doc = render(&ct, &o);
	has(frame(doc, "x"), "<title>x (1,234,567 cpu-clock, 100.00%)</title>", "the count's unit");
	has(doc, ">perf.data</text>", "the title");
	free(doc);
	tree_free(&ct);

	/* pruning: 10000 samples, p and q 1 each: 0.118 px */
	struct tree pt;
	tree_init(&pt);
	add(&pt, "big", 9999);
	add(&pt, "p;q", 1);
	tree_finalize(&pt, TREE_ORDER_NAME);
	svg_options_init(&o);
	doc = render(&pt, &o);
	is_int((long long)count(doc, "<title>"), 4, "0.118 px frames are drawn at min_width 0.1");
	free(doc);
	o.min_width = 0.2;
	doc = render(&pt, &o);
	is_int((long long)count(doc, "<title>"), 2, "and left out, subtree and all, at 0.2");
	free(doc);
	tree_free(&pt);

	/* ---- same name, same colour --------------------------------------- */
	struct tree st;
	tree_init(&st);
	add(&st, "main;work", 3);
	add(&st, "other;work", 5);
	tree_finalize(&st, TREE_ORDER_NAME);
	svg_options_init(&o);
	doc = render(&st, &o);
	hex_of("work", want);
	is_int((long long)count(doc, want), 2, "the same name has the same colour everywhere");
	free(doc);
	tree_free(&st);

	/* ---- hostile names ------------------------------------------------- */
	struct tree ht;
	tree_init(&ht);
	static char longname[100001];
	memset(longname, 'L', sizeof longname - 1);
	struct tree_frame hf[] = {
		{ "\x01" "ctl\x1b[31m", 9 },
		{ "bad\xff\xfe", 5 },
		{ "]]>", 3 },
		{ "</script>", 9 },
		{ "a&b<c>\"'", 8 },
		{ "nul\0byte", 8 },
		{ "\xc2\x85" "c1", 4 },
		{ longname, sizeof longname - 1 },
	};
	for (size_t k = 0; k < sizeof hf / sizeof hf[0]; k++)
		tree_add_stack(&ht, &hf[k], 1, 10);
	tree_add_stack(&ht, hf, sizeof hf / sizeof hf[0], 10);    /* all nested */
	tree_finalize(&ht, TREE_ORDER_NAME);
	svg_options_init(&o);
	o.title = "<title> & \"x\" \x1b";
	doc = render(&ht, &o);
	is_xml(doc, "hostile names");
	has(doc, "<title>^Actl^[[31m (", "control bytes as caret escapes");
	has(doc, "<title>bad\xef\xbf\xbd\xef\xbf\xbd (", "invalid UTF-8 as U+FFFD");
	has(doc, "<title>]]&gt; (", "]]> escaped");
	has(doc, "<title>&lt;/script&gt; (", "</script> escaped");
	has(doc, "<title>a&amp;b&lt;c&gt;&quot;&#39; (", "& < > \" ' escaped");
	has(doc, "<title>nul^@byte (", "a NUL inside a name");
	has(doc, "<title>&lt;U+0085&gt;c1 (", "C1 control as an escaped <U+0085>");
	has(doc, ">&lt;title&gt; &amp; &quot;x&quot; ^[</text>", "the title escaped too");
	ok(count(doc, "]]>") == 1, "the only ]]> closes the script");
	ok(strstr(doc, "\x1b") == NULL && strstr(doc, "\x01") == NULL, "no raw control byte");
	ok(strstr(doc, "LLLLLLLL..") != NULL, "a long name's label is cut");
	ok(strlen(doc) < 2 * 65536 + 100000, "a long name's title is bounded");
	free(doc);
	/* not in a UTF-8 locale: the document is UTF-8 all the same */
	text_init(false);
	doc = render(&ht, &o);
	is_xml(doc, "hostile names, non-UTF-8 locale");
	has(doc, "<title>bad\xef\xbf\xbd\xef\xbf\xbd (", "U+FFFD even outside a UTF-8 locale");
	ok(!text_is_utf8(), "the locale's mode is restored");
	text_init(true);
	free(doc);
	tree_free(&ht);

	/* ---- diff ---------------------------------------------------------- */
	/* BEFORE a;b 1, a 1; AFTER a;b 2, a 1: b's self delta +1 is the largest,
	 * so b is full red (255, 215 - 175, 40) = #ff2828; a did not change
	 * (self 1 and 1): #e6e6e6. */
	struct tree before, after;
	tree_init(&before);
	tree_init(&after);
	add(&before, "a;b", 1);
	add(&before, "a", 1);
	add(&after, "a;b", 2);
	add(&after, "a", 1);
	tree_finalize(&before, TREE_ORDER_NAME);
	tree_finalize(&after, TREE_ORDER_NAME);
	svg_options_init(&o);
	o.before = &before;
	doc = render(&after, &o);
	is_xml(doc, "diff");
	has(frame(doc, "b"), "fill=\"#ff2828\"", "diff: grew is red");
	has(frame(doc, "a"), "fill=\"#e6e6e6\"", "diff: unchanged is white");
	has(frame(doc, "b"), "<title>b (2 samples, 66.67%; before 1  after 2  delta +1 (+100.00%))</title>",
	    "diff: the title says before, after, delta");
	free(doc);
	o.negate = true;
	doc = render(&after, &o);
	has(frame(doc, "b"), "fill=\"#2828ff\"", "diff --negate: blue");
	free(doc);
	struct diff d;
	diff_compute(&d, &after, &before, false, false);
	svg_options_init(&o);
	o.diff = &d;
	doc = render(&after, &o);
	has(frame(doc, "b"), "fill=\"#ff2828\"", "diff given by the caller");
	free(doc);
	diff_free(&d);
	tree_free(&before);
	tree_free(&after);

	/* ---- an empty tree, a write error --------------------------------- */
	struct tree et;
	tree_init(&et);
	tree_finalize(&et, TREE_ORDER_NAME);
	svg_options_init(&o);
	doc = render(&et, &o);
	is_xml(doc, "empty tree");
	is_int((long long)count(doc, "<title>"), 0, "empty tree: no frames");
	free(doc);
	tree_free(&et);
	FILE *full = fopen("/dev/full", "w");
	if (full) {
		ok(svg_write(&t, &o, full) == -1, "a write error returns -1");
		fclose(full);
	} else {
		ok(1, "# SKIP no /dev/full");
	}

	tree_free(&t);
	return done_testing();
}
