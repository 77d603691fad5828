#include "config.h"
#include "svg.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "text.h"
#include "unit.h"
#include "xalloc.h"

/* Geometry (pixels). flamegraph.pl's proportions: 12 px Verdana, an average
 * character 0.59 of the font size, 16 px levels with a 1 px gap. */
#define SVG_XPAD 10
#define SVG_TOP 36          /* title line and the controls */
#define SVG_BOTTOM 34       /* details line */
#define SVG_FRAME_H 16
#define SVG_FONT 12
#define SVG_CHAR_W (SVG_FONT * 0.59)
#define SVG_MIN_IMAGE 64
/* The display form of a name in a title is cut (with "..") beyond this
 * many bytes: a 100 MB name repeated in every frame would make the
 * document unusable long before it made it invalid. */
#define SVG_NAME_MAX 65536

/* ---- buffered output ---------------------------------------------------- */

struct out {
	FILE *f;
	char *buf;
	size_t len, cap;
	bool err;
};

static void out_flush(struct out *o)
{
	if (o->len && !o->err && fwrite(o->buf, 1, o->len, o->f) != o->len)
		o->err = true;
	o->len = 0;
}

static void put(struct out *o, const char *s, size_t n)
{
	if (o->cap - o->len < n) {
		out_flush(o);
		if (n > o->cap) {
			if (!o->err && fwrite(s, 1, n, o->f) != n)
				o->err = true;
			return;
		}
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

#define PUTS(o, lit) put((o), (lit), sizeof(lit) - 1)

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* Text already in display form (valid UTF-8, no control bytes) with the
 * five XML specials escaped. */
static void put_escaped(struct out *o, const char *s, size_t n)
{
	size_t run = 0;
	for (size_t i = 0; i < n; i++) {
		const char *e;
		switch (s[i]) {
		case '&': e = "&amp;"; break;
		case '<': e = "&lt;"; break;
		case '>': e = "&gt;"; break;
		case '"': e = "&quot;"; break;
		case '\'': e = "&#39;"; break;
		default: continue;
		}
		put(o, s + run, i - run);
		puts_(o, e);
		run = i + 1;
	}
	put(o, s + run, n - run);
}

/* True when s[0..n) is printable ASCII only: its display form is itself. */
static bool plain_ascii(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return false;
	return true;
}

struct scratch {
	char *buf;
	size_t cap;
};

/* The display form of untrusted bytes, escaped. */
static void put_name(struct out *o, struct scratch *sc, const char *s, size_t n, bool plain)
{
	if (plain && n <= SVG_NAME_MAX) {
		put_escaped(o, s, n);
		return;
	}
	/* text_sanitize at most quadruples (U+0080 -> "<U+0080>") */
	size_t need = (n < SVG_NAME_MAX ? n * 4 : SVG_NAME_MAX) + 16;
	if (need > SVG_NAME_MAX + 1)
		need = SVG_NAME_MAX + 1;
	if (sc->cap < need) {
		sc->buf = xrealloc(sc->buf, need);
		sc->cap = need;
	}
	size_t len = text_sanitize(s, n, sc->buf, need);
	put_escaped(o, sc->buf, len);
}

/* ---- numbers ------------------------------------------------------------ */

static char *fmt_u64(char *p, uint64_t v)
{
	char tmp[24];
	int k = 0;
	do {
		tmp[k++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (k)
		*p++ = tmp[--k];
	return p;
}

/* Hundredths as a decimal with no trailing zeros: 1250 -> "12.5". */
static char *fmt_hundredths(char *p, int64_t h)
{
	if (h < 0) {
		*p++ = '-';
		h = -h;
	}
	p = fmt_u64(p, (uint64_t)h / 100);
	unsigned f = (unsigned)((uint64_t)h % 100);
	if (f) {
		*p++ = '.';
		*p++ = (char)('0' + f / 10);
		if (f % 10)
			*p++ = (char)('0' + f % 10);
	}
	return p;
}

/* A percentage as "%.2f%%" would write it (0 <= v, finite). */
static char *fmt_percent(char *p, double v)
{
	if (!(v >= 0) || v > 1e15)
		v = 0;
	uint64_t h = (uint64_t)(v * 100 + 0.5);
	p = fmt_u64(p, h / 100);
	*p++ = '.';
	*p++ = (char)('0' + h % 100 / 10);
	*p++ = (char)('0' + h % 10);
	*p++ = '%';
	return p;
}

/* A count with thousands separators: "1,234,567", "12.5". */
static char *fmt_count(char *p, const struct tree *t, tree_count c)
{
	char raw[64], grouped[96];
	if (!t->frac) {
		char *e = fmt_u64(raw, c.u);
		*e = '\0';
	} else {
		tree_format_count(t, c, raw, sizeof raw);
	}
	unit_group(raw, grouped, sizeof grouped);
	size_t n = strlen(grouped);
	memcpy(p, grouped, n);
	return p + n;
}

/* Copies a string literal to p; returns the end. */
#define cpy(p, lit) ((char *)memcpy((p), (lit), sizeof(lit) - 1) + sizeof(lit) - 1)

static int64_t to_hundredths(double px)
{
	double v = px * 100.0;     /* no libm: round half away from zero */
	return v >= 0 ? (int64_t)(v + 0.5) : -(int64_t)(0.5 - v);
}

/* ---- the document ------------------------------------------------------- */

/* The script, a line a string: zoom, reset, search, details. Constants
 * come before it (see write_tail). Frames are the children of #frames in tree preorder, so a
 * frame's subtree is the run after it with greater depths and its parent
 * the nearest frame before it one level up. It must never contain the
 * CDATA end. */
static const char *const svg_script[] = {
	"var doc = document, NS = \"http://www.w3.org/2000/svg\";\n",
	"var G = doc.getElementById(\"frames\"), details = doc.getElementById(\"details\"),\n",
	"    matched = doc.getElementById(\"matched\"), reset = doc.getElementById(\"reset\");\n",
	"var frames = null, zoomed = -1, re = null;\n",
	"/* \" (1,234 samples, 5.67%)\" and, in a diff, \"; before ... (+2.00%)\" */\n",
	"var SUFFIX = / \\(([0-9][0-9,.]*) (?:[^()]|\\([^()]*\\))*\\)$/;\n",
	"function init() {\n",
	"  if (frames) return;\n",
	"  frames = [];\n",
	"  for (var g = G.firstElementChild; g; g = g.nextElementSibling) {\n",
	"    var r = g.getElementsByTagName(\"rect\")[0], t = g.getElementsByTagName(\"text\")[0];\n",
	"    var title = g.firstElementChild.textContent, m = SUFFIX.exec(title);\n",
	"    var name = m ? title.slice(0, m.index) : title, y = +r.getAttribute(\"y\");\n",
	"    g.k = frames.length;\n",
	"    frames.push({ g: g, r: r, t: t || null, x: +r.getAttribute(\"x\"),\n",
	"      w: +r.getAttribute(\"width\"), y: y, d: Math.round((y - YR) / FH * DIR),\n",
	"      name: name, base: Array.from(name.replace(/_\\[[kjiw]\\]$/, \"\")),\n",
	"      n: m ? parseFloat(m[1].replace(/,/g, \"\")) : 0,\n",
	"      c0: g.getAttribute(\"class\") || \"\", c: g.getAttribute(\"class\") || \"\", m: false });\n",
	"  }\n",
	"}\n",
	"/* flamegraph.pl's rule: no label under 3 characters, else cut with \"..\" */\n",
	"function label(f, w) {\n",
	"  var n = Math.floor(w / CW);\n",
	"  if (n < 3) return \"\";\n",
	"  if (f.base.length <= n) return f.base.join(\"\");\n",
	"  return f.base.slice(0, n - 2).join(\"\") + \"..\";\n",
	"}\n",
	"function setClass(f, c) {\n",
	"  f.c = c;\n",
	"  var s = f.m ? (c ? c + \" m\" : \"m\") : c;\n",
	"  if (s) f.g.setAttribute(\"class\", s); else f.g.removeAttribute(\"class\");\n",
	"}\n",
	"function place(f, x, w, c) {\n",
	"  f.r.setAttribute(\"x\", x.toFixed(2));\n",
	"  f.r.setAttribute(\"width\", w.toFixed(2));\n",
	"  var s = label(f, w);\n",
	"  if (s && !f.t) {\n",
	"    f.t = doc.createElementNS(NS, \"text\");\n",
	"    f.t.setAttribute(\"y\", (f.y + 10.5).toFixed(1));\n",
	"    f.g.appendChild(f.t);\n",
	"  }\n",
	"  if (f.t) {\n",
	"    f.t.setAttribute(\"x\", (x + 3).toFixed(2));\n",
	"    f.t.textContent = s;\n",
	"  }\n",
	"  setClass(f, c);\n",
	"}\n",
	"function subtreeEnd(k) {\n",
	"  var e = k + 1;\n",
	"  while (e < frames.length && frames[e].d > frames[k].d) e++;\n",
	"  return e;\n",
	"}\n",
	"function zoom(k) {\n",
	"  init();\n",
	"  var f = frames[k], s = GW / f.w, e = subtreeEnd(k), need = f.d - 1, j;\n",
	"  var keep = {};\n",
	"  for (j = k - 1; j >= 0 && need >= 0; j--)\n",
	"    if (frames[j].d === need) { keep[j] = 1; need--; }\n",
	"  for (j = 0; j < frames.length; j++) {\n",
	"    var c = frames[j];\n",
	"    if (j >= k && j < e) place(c, X0 + (c.x - f.x) * s, c.w * s, \"\");\n",
	"    else if (keep[j]) place(c, X0, GW, \"a\");\n",
	"    else setClass(c, \"h\");\n",
	"  }\n",
	"  zoomed = k;\n",
	"  reset.setAttribute(\"class\", \"c\");\n",
	"  if (re) find();\n",
	"}\n",
	"function unzoom() {\n",
	"  if (!frames) return;\n",
	"  for (var j = 0; j < frames.length; j++) {\n",
	"    var f = frames[j];\n",
	"    place(f, f.x, f.w, f.c0);\n",
	"  }\n",
	"  zoomed = -1;\n",
	"  reset.setAttribute(\"class\", \"c h\");\n",
	"  if (re) find();\n",
	"}\n",
	"/* Highlights the matches; Matched: their samples (a match inside a\n",
	"   counted match is not counted again) over the zoomed frame's. */\n",
	"function find() {\n",
	"  init();\n",
	"  var j, lo = zoomed >= 0 ? zoomed : Z0, hi, tot = 0, md = Infinity;\n",
	"  for (j = 0; j < frames.length; j++) {\n",
	"    var f = frames[j], m = re.test(f.name);\n",
	"    if (m !== f.m) { f.m = m; setClass(f, f.c); }\n",
	"  }\n",
	"  if (lo >= frames.length) { matched.textContent = \"Matched: -\"; return; }\n",
	"  hi = subtreeEnd(lo);\n",
	"  for (j = lo; j < hi; j++) {\n",
	"    if (frames[j].d <= md) md = Infinity;\n",
	"    if (frames[j].m && md === Infinity) { tot += frames[j].n; md = frames[j].d; }\n",
	"  }\n",
	"  var all = frames[lo].n;\n",
	"  matched.textContent = \"Matched: \" + (all > 0 ? (100 * tot / all).toFixed(2) : \"0.00\") + \"%\";\n",
	"}\n",
	"function clearSearch() {\n",
	"  re = null;\n",
	"  matched.textContent = \"\";\n",
	"  if (!frames) return;\n",
	"  for (var j = 0; j < frames.length; j++)\n",
	"    if (frames[j].m) { frames[j].m = false; setClass(frames[j], frames[j].c); }\n",
	"}\n",
	"function ask() {\n",
	"  var p = window.prompt(\"Search for a regular expression (case-insensitive unless it has upper case)\",\n",
	"                        re ? re.source : \"\");\n",
	"  if (p === null) return;\n",
	"  if (p === \"\") { clearSearch(); return; }\n",
	"  try {\n",
	"    re = new RegExp(p, p === p.toLowerCase() ? \"i\" : \"\");\n",
	"  } catch (err) {\n",
	"    clearSearch();\n",
	"    matched.textContent = \"Bad regex: \" + err.message;\n",
	"    return;\n",
	"  }\n",
	"  find();\n",
	"}\n",
	"function frameOf(e) {\n",
	"  var g = e.target;\n",
	"  while (g && g.parentNode !== G) g = g.parentNode;\n",
	"  return g;\n",
	"}\n",
	"G.addEventListener(\"click\", function (e) {\n",
	"  var g = frameOf(e);\n",
	"  if (g) { init(); zoom(g.k); }\n",
	"});\n",
	"G.addEventListener(\"mouseover\", function (e) {\n",
	"  var g = frameOf(e);\n",
	"  details.textContent = g ? g.firstElementChild.textContent : \"\";\n",
	"});\n",
	"G.addEventListener(\"mouseout\", function () { details.textContent = \"\"; });\n",
	"reset.addEventListener(\"click\", unzoom);\n",
	"doc.getElementById(\"search\").addEventListener(\"click\", ask);\n",
	"window.addEventListener(\"keydown\", function (e) {\n",
	"  if ((e.ctrlKey || e.metaKey) && (e.key === \"f\" || e.key === \"F\")) {\n",
	"    e.preventDefault();\n",
	"    ask();\n",
	"  } else if (e.key === \"Escape\") {\n",
	"    if (re || matched.textContent) clearSearch(); else unzoom();\n",
	"  }\n",
	"});\n",
	NULL
};

static const char svg_style[] =
"text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; }\n"
"#title { font-size: 17px; }\n"
".c { cursor: pointer; fill: #0645ad; }\n"
".h { display: none; }\n"
"#frames g { cursor: pointer; }\n"
"#frames text { pointer-events: none; }\n"
"#frames g:hover rect { stroke: #000; stroke-width: 0.5; }\n"
".a rect { opacity: 0.5; }\n"
".m rect { fill: #e600e6; }\n";

struct svg_ctx {
	const struct tree *t;
	struct out o;
	struct scratch sc;
	const struct palette *pal;
	const struct palette_rules *rules;
	const struct diff *diff;
	uint32_t *looks;            /* by name id: 0 unset, else 1 << 24 | rgb */
	const char *count_name;
	const struct unit *unit;
	bool singular;              /* "1 sample" (count_name is "samples") */
	double root_total;
	int gw;                     /* graph width in pixels */
	uint32_t maxlevel;
	int64_t height;
	enum layout_orient orient;
	char *label;                /* text_fit output */
	size_t labelcap;
	int maxcols;
};

static int64_t level_y(const struct svg_ctx *c, uint32_t level)
{
	if (c->orient == LAYOUT_ICICLE)
		return SVG_TOP + (int64_t)level * SVG_FRAME_H;
	return SVG_TOP + (int64_t)(c->maxlevel - level) * SVG_FRAME_H;
}

static struct palette_rgb frame_rgb(struct svg_ctx *c, tree_idx i)
{
	if (c->diff)
		return diff_color(c->diff, c->t, i);
	strtab_id id = tree_node(c->t, i)->name;
	uint32_t v = c->looks[id];
	if (!v) {
		struct palette_look l = palette_look(c->pal, c->rules, strtab_str(&c->t->names, id),
		                                     strtab_len(&c->t->names, id));
		v = 1u << 24 | (uint32_t)l.rgb.r << 16 | (uint32_t)l.rgb.g << 8 | l.rgb.b;
		c->looks[id] = v;
	}
	return (struct palette_rgb){ (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
}

/* One frame: <g> with title, rect and label, x0/x1 in hundredths of pixels. */
static void write_frame(struct svg_ctx *c, tree_idx i, int64_t x0, int64_t x1, bool ancestor)
{
	static const char hex[] = "0123456789abcdef";
	const struct tree *t = c->t;
	const char *name = tree_name(t, i);
	size_t len = tree_name_len(t, i);
	bool plain = plain_ascii(name, len);
	char num[256], *p;

	if (ancestor)
		PUTS(&c->o, "<g class=\"a\"><title>");
	else
		PUTS(&c->o, "<g><title>");
	put_name(&c->o, &c->sc, name, len, plain);
	if (c->unit && c->unit->event[0]) {
		char amount[128];
		unit_amount(c->unit, tree_total_d(t, i), amount, sizeof amount);
		PUTS(&c->o, " (");
		put_escaped(&c->o, amount, strlen(amount));
	} else {
		p = num;
		*p++ = ' ';
		*p++ = '(';
		p = fmt_count(p, t, tree_node(t, i)->total);
		put(&c->o, num, (size_t)(p - num));
		PUTS(&c->o, " ");
		if (c->singular && !t->frac && tree_node(t, i)->total.u == 1)
			PUTS(&c->o, "sample");
		else
			put_escaped(&c->o, c->count_name, strlen(c->count_name));
	}
	p = num;
	*p++ = ',';
	*p++ = ' ';
	p = fmt_percent(p, c->root_total > 0 ? 100.0 * tree_total_d(t, i) / c->root_total : 0);
	put(&c->o, num, (size_t)(p - num));
	if (c->diff) {
		char d[256];
		int n = diff_describe(c->diff, t, i, d, sizeof d);
		PUTS(&c->o, "; ");
		put_escaped(&c->o, d, n < 0 ? 0 : (size_t)n < sizeof d ? (size_t)n : sizeof d - 1);
	}

	struct palette_rgb rgb = frame_rgb(c, i);
	int64_t y = level_y(c, tree_depth(t, i));
	p = num;
	p = cpy(p, ")</title><rect x=\"");
	p = fmt_hundredths(p, x0);
	p = cpy(p, "\" y=\"");
	p = fmt_u64(p, (uint64_t)y);
	p = cpy(p, "\" width=\"");
	p = fmt_hundredths(p, x1 - x0);
	p = cpy(p, "\" height=\"15\" fill=\"#");
	*p++ = hex[rgb.r >> 4];
	*p++ = hex[rgb.r & 15];
	*p++ = hex[rgb.g >> 4];
	*p++ = hex[rgb.g & 15];
	*p++ = hex[rgb.b >> 4];
	*p++ = hex[rgb.b & 15];
	*p++ = '"';
	*p++ = '/';
	*p++ = '>';

	/* The label: flamegraph.pl's rule, by display columns. */
	double w = (double)(x1 - x0) / 100.0;
	int cols = (int)(w / SVG_CHAR_W);
	size_t base = palette_base_len(name, len);
	if (cols >= 3 && base > 0) {
		if (cols > c->maxcols)
			cols = c->maxcols;
		p = cpy(p, "<text x=\"");
		p = fmt_hundredths(p, x0 + 300);
		p = cpy(p, "\" y=\"");
		p = fmt_hundredths(p, y * 100 + 1050);
		*p++ = '"';
		*p++ = '>';
		put(&c->o, num, (size_t)(p - num));
		if (plain) {
			if (base <= (size_t)cols) {
				put_escaped(&c->o, name, base);
			} else {
				put_escaped(&c->o, name, (size_t)cols - 2);
				PUTS(&c->o, "..");
			}
		} else {
			text_fit(name, base, cols, c->label, c->labelcap);
			put_escaped(&c->o, c->label, strlen(c->label));
		}
		PUTS(&c->o, "</text></g>\n");
	} else {
		p = cpy(p, "</g>\n");
		put(&c->o, num, (size_t)(p - num));
	}
}

static void write_head(struct svg_ctx *c, const struct svg_options *o, int width)
{
	char num[512];
	long long h = c->height;
	snprintf(num, sizeof num,
	         "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
	         "<!-- Made by tflame. Click a frame to zoom, Ctrl-F to search, Escape to reset. -->\n"
	         "<svg version=\"1.1\" width=\"%d\" height=\"%lld\" viewBox=\"0 0 %d %lld\""
	         " xmlns=\"http://www.w3.org/2000/svg\">\n",
	         width, h, width, h);
	puts_(&c->o, num);
	PUTS(&c->o, "<style type=\"text/css\">\n");
	put(&c->o, svg_style, sizeof svg_style - 1);
	PUTS(&c->o, "</style>\n");
	PUTS(&c->o, "<defs><linearGradient id=\"bg\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
	            "<stop offset=\"5%\" stop-color=\"");
	puts_(&c->o, c->diff ? "#f4f4f4" : "#eeeeee");
	PUTS(&c->o, "\"/><stop offset=\"95%\" stop-color=\"");
	puts_(&c->o, c->diff ? "#e0e0ee" : "#eeeeb0");
	PUTS(&c->o, "\"/></linearGradient></defs>\n");
	snprintf(num, sizeof num,
	         "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%lld\" fill=\"url(#bg)\"/>\n"
	         "<text id=\"title\" x=\"%g\" y=\"24\" text-anchor=\"middle\">",
	         width, h, width / 2.0);
	puts_(&c->o, num);
	const char *title = o->title ? o->title : "Flame Graph";
	put_name(&c->o, &c->sc, title, strlen(title), plain_ascii(title, strlen(title)));
	snprintf(num, sizeof num,
	         "</text>\n"
	         "<text id=\"reset\" class=\"c h\" x=\"%d\" y=\"24\">Reset Zoom</text>\n"
	         "<text id=\"search\" class=\"c\" x=\"%d\" y=\"24\" text-anchor=\"end\">Search</text>\n"
	         "<text id=\"details\" x=\"%d\" y=\"%lld\"></text>\n"
	         "<text id=\"matched\" x=\"%d\" y=\"%lld\" text-anchor=\"end\"></text>\n"
	         "<g id=\"frames\">\n",
	         SVG_XPAD, width - SVG_XPAD, SVG_XPAD, h - 17, width - SVG_XPAD, h - 17);
	puts_(&c->o, num);
}

static void write_tail(struct svg_ctx *c, uint32_t zdepth)
{
	char num[256];
	int64_t yr = level_y(c, 0);
	PUTS(&c->o, "</g>\n<script type=\"text/ecmascript\"><![CDATA[\n(function () {\n\"use strict\";\n");
	snprintf(num, sizeof num,
	         "var X0 = %d, GW = %d, FH = %d, YR = %lld, DIR = %d, CW = %.2f, Z0 = %u;\n",
	         SVG_XPAD, c->gw, SVG_FRAME_H, (long long)yr, c->orient == LAYOUT_ICICLE ? 1 : -1,
	         SVG_CHAR_W, zdepth);
	puts_(&c->o, num);
	for (size_t k = 0; svg_script[k]; k++)
		puts_(&c->o, svg_script[k]);
	PUTS(&c->o, "})();\n]]></script>\n</svg>\n");
}

void svg_options_init(struct svg_options *o)
{
	memset(o, 0, sizeof *o);
	o->width = 1200;
	o->orient = LAYOUT_FLAME;
	o->min_width = 0.1;
	o->zoom = TREE_ROOT;
}

int svg_write(const struct tree *t, const struct svg_options *o, FILE *out)
{
	struct svg_ctx c;
	memset(&c, 0, sizeof c);
	int width = o->width > 0 ? o->width : 1200;
	if (width < SVG_MIN_IMAGE)
		width = SVG_MIN_IMAGE;
	tree_idx z = o->zoom < tree_size(t) ? o->zoom : TREE_ROOT;
	double minw = o->min_width > 0 ? o->min_width : 0;     /* NaN too */

	c.t = t;
	c.o.f = out;
	c.o.cap = 1 << 16;
	c.o.buf = xmalloc(c.o.cap);
	c.pal = o->pal ? o->pal : palette_list[0];
	c.rules = o->rules;
	c.count_name = o->count_name && *o->count_name ? o->count_name : "samples";
	c.unit = o->unit;
	c.singular = strcmp(c.count_name, "samples") == 0;
	c.gw = width - 2 * SVG_XPAD;
	c.orient = o->orient;
	c.root_total = tree_total_d(t, TREE_ROOT);
	/* Labels longer than that are cut, however wide the frame. */
	c.maxcols = c.gw / SVG_CHAR_W + 1 > 65536 ? 65536 : (int)(c.gw / SVG_CHAR_W) + 1;
	c.labelcap = TEXT_FIT_BYTES(c.maxcols);
	c.label = xmalloc(c.labelcap);

	struct diff own, copy;
	if (o->diff) {
		copy = *o->diff;
		copy.negate = copy.negate || o->negate;
		c.diff = &copy;
	} else if (o->before) {
		diff_compute(&own, t, o->before, false, o->negate);
		c.diff = &own;
	} else {
		c.looks = xcalloc(strtab_count(&t->names) ? strtab_count(&t->names) : 1, sizeof *c.looks);
	}

	/* The document is UTF-8 whatever the terminal's locale. */
	bool was_utf8 = text_is_utf8();
	text_init(true);

	/* Pass 1 (no output): the deepest level drawn, for the height of a
	 * flame graph, whose root is at the bottom. */
	double total = tree_total_d(t, z);
	double scale = total > 0 ? c.gw / total : 0;
	uint32_t zdepth = tree_depth(t, z);
	c.maxlevel = zdepth;
	if (total > 0) {
		for (tree_idx i = z; i < tree_end(t, z);) {
			double w = tree_total_d(t, i) * scale;
			if (!(w > 0) || w < minw) {
				i = tree_end(t, i);
				continue;
			}
			if (tree_depth(t, i) > c.maxlevel)
				c.maxlevel = tree_depth(t, i);
			i++;
		}
	}
	c.height = SVG_TOP + ((int64_t)c.maxlevel + 1) * SVG_FRAME_H + SVG_BOTTOM;

	write_head(&c, o, width);
	if (total > 0) {
		/* The zoom root's ancestors, root first, full width. */
		tree_idx *anc = xmalloc(((size_t)zdepth + 1) * sizeof *anc);
		size_t na = 0;
		for (tree_idx a = tree_parent(t, z); a != TREE_NONE; a = tree_parent(t, a))
			anc[na++] = a;
		int64_t left = to_hundredths(SVG_XPAD), right = to_hundredths(SVG_XPAD + c.gw);
		while (na)
			write_frame(&c, anc[--na], left, right, true);
		free(anc);
		/* The zoom root's subtree in preorder; narrow frames skip theirs. */
		double off0 = tree_off_d(t, z);
		for (tree_idx i = z; i < tree_end(t, z) && !c.o.err;) {
			double tot = tree_total_d(t, i), w = tot * scale;
			if (!(w > 0) || w < minw) {
				i = tree_end(t, i);
				continue;
			}
			double x = SVG_XPAD + (tree_off_d(t, i) - off0) * scale;
			write_frame(&c, i, to_hundredths(x), to_hundredths(x + w), false);
			i++;
		}
	}
	write_tail(&c, zdepth);
	out_flush(&c.o);

	text_init(was_utf8);
	if (!o->diff && o->before)
		diff_free(&own);
	int rc = c.o.err || ferror(out) ? -1 : 0;
	free(c.o.buf);
	free(c.sc.buf);
	free(c.label);
	free(c.looks);
	return rc;
}
