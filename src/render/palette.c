#include "config.h"
#include "palette.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "conf.h"
#include "rx.h"
#include "text.h"
#include "xalloc.h"

/* ---- code types --------------------------------------------------------- */

enum palette_type palette_type_of(const char *s, size_t len)
{
	if (len < 4 || s[len - 4] != '_' || s[len - 3] != '[' || s[len - 1] != ']')
		return PALETTE_TYPE_NONE;
	switch (s[len - 2]) {
	case 'k': return PALETTE_TYPE_KERNEL;
	case 'j': return PALETTE_TYPE_JIT;
	case 'i': return PALETTE_TYPE_INLINED;
	case 'w': return PALETTE_TYPE_WAKER;
	default: return PALETTE_TYPE_NONE;
	}
}

size_t palette_base_len(const char *s, size_t len)
{
	return palette_type_of(s, len) == PALETTE_TYPE_NONE ? len : len - 4;
}

const char *palette_type_name(enum palette_type t)
{
	switch (t) {
	case PALETTE_TYPE_KERNEL: return "kernel";
	case PALETTE_TYPE_JIT: return "jit";
	case PALETTE_TYPE_INLINED: return "inlined";
	case PALETTE_TYPE_WAKER: return "waker";
	case PALETTE_TYPE_NONE: break;
	}
	return NULL;
}

/* ---- hues ------------------------------------------------------------- */

static const char *const hue_names[PALETTE_NHUES] = {
	"hot", "mem", "io", "red", "green", "blue", "aqua", "yellow", "purple",
	"orange", "grey", "flat"
};

const char *palette_hue_name(enum palette_hue h)
{
	return (unsigned)h < PALETTE_NHUES ? hue_names[h] : "?";
}

int palette_hue_find(const char *name)
{
	for (int h = 0; h < PALETTE_HUE_FLAT; h++)
		if (strcmp(hue_names[h], name) == 0)
			return h;
	if (strcmp(name, "gray") == 0)
		return PALETTE_HUE_GREY;
	return -1;
}

uint64_t palette_hash(const char *s, size_t len)
{
	/* FNV-1a spreads every byte; its low bits mix poorly, and the shades
	 * use the low 48, hence splitmix64's finalizer on top. */
	uint64_t h = 0xcbf29ce484222325u;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3u;
	}
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9u;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebu;
	return h ^ (h >> 31);
}

/* A fraction in [0, 1] from 16 bits of the hash. */
static double frac(uint64_t hash, int shift)
{
	return (double)((hash >> shift) & 0xffffu) / 65535.0;
}

/* base + (int)(range * v), as flamegraph.pl computes a channel. */
static uint8_t chan(int base, int range, double v)
{
	return (uint8_t)(base + (int)(range * v));
}

struct palette_rgb palette_hue_rgb(enum palette_hue h, uint64_t hash)
{
	double v1 = frac(hash, 0), v2 = frac(hash, 16), v3 = frac(hash, 32);
	struct palette_rgb c = { 0, 0, 0 };
	switch (h) {
	case PALETTE_HUE_HOT:
		c.r = chan(205, 50, v3); c.g = chan(0, 230, v1); c.b = chan(0, 55, v2);
		break;
	case PALETTE_HUE_MEM:
		c.r = 0; c.g = chan(190, 50, v2); c.b = chan(0, 210, v1);
		break;
	case PALETTE_HUE_IO:
		c.r = c.g = chan(80, 60, v1); c.b = chan(190, 55, v2);
		break;
	case PALETTE_HUE_RED:
		c.r = chan(200, 55, v1); c.g = c.b = chan(50, 80, v1);
		break;
	case PALETTE_HUE_GREEN:
		c.g = chan(200, 55, v1); c.r = c.b = chan(50, 60, v1);
		break;
	case PALETTE_HUE_BLUE:
		c.b = chan(205, 50, v1); c.r = c.g = chan(80, 60, v1);
		break;
	case PALETTE_HUE_AQUA:
		c.r = chan(50, 60, v1); c.g = c.b = chan(165, 55, v1);
		break;
	case PALETTE_HUE_YELLOW:
		c.r = c.g = chan(175, 55, v1); c.b = chan(50, 20, v1);
		break;
	case PALETTE_HUE_PURPLE:
		c.r = c.b = chan(190, 65, v1); c.g = chan(80, 60, v1);
		break;
	case PALETTE_HUE_ORANGE:
		c.r = chan(190, 65, v1); c.g = chan(90, 65, v1); c.b = 0;
		break;
	case PALETTE_HUE_GREY:
		c.r = c.g = c.b = chan(160, 40, v1);
		break;
	case PALETTE_HUE_FLAT:
	case PALETTE_NHUES:
		break;
	}
	return c;
}

/* ---- name shapes ---------------------------------------------------------- */

static bool has(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	return n <= len && memmem(s, len, needle, n) != NULL;
}

static bool starts(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	return n <= len && memcmp(s, prefix, n) == 0;
}

/* Index of needle in s, or len. */
static size_t find(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	const char *p = n <= len ? memmem(s, len, needle, n) : NULL;
	return p ? (size_t)(p - s) : len;
}

static bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* The name up to a GCC clone suffix (".isra.0", ".constprop.0", ".part.1",
 * ".cold"...), so that "foo.isra.0" does not read as a dotted Java name. */
static size_t before_clone_suffix(const char *s, size_t len)
{
	static const char *const sfx[] = {
		".isra", ".constprop", ".part.", ".cold", ".lto_priv", ".clone", ".localalias"
	};
	size_t cut = len;
	for (size_t k = 0; k < sizeof sfx / sizeof sfx[0]; k++) {
		size_t at = find(s, len, sfx[k]);
		if (at < cut)
			cut = at;
	}
	return cut;
}

/* ---- palettes ------------------------------------------------------------- */

#define LEGEND(a) a, sizeof a / sizeof a[0]
#define ONE_HUE(fn, h) \
	static enum palette_hue fn(const char *s, size_t len, enum palette_type t) \
	{ (void)s; (void)len; (void)t; return h; }

ONE_HUE(hue_hot, PALETTE_HUE_HOT)
ONE_HUE(hue_mem, PALETTE_HUE_MEM)
ONE_HUE(hue_io, PALETTE_HUE_IO)
ONE_HUE(hue_red, PALETTE_HUE_RED)
ONE_HUE(hue_green, PALETTE_HUE_GREEN)
ONE_HUE(hue_blue, PALETTE_HUE_BLUE)
ONE_HUE(hue_aqua, PALETTE_HUE_AQUA)
ONE_HUE(hue_yellow, PALETTE_HUE_YELLOW)
ONE_HUE(hue_purple, PALETTE_HUE_PURPLE)
ONE_HUE(hue_orange, PALETTE_HUE_ORANGE)

static enum palette_hue hue_chain(const char *s, size_t len, enum palette_type t)
{
	(void)s;
	(void)len;
	return t == PALETTE_TYPE_WAKER ? PALETTE_HUE_AQUA : PALETTE_HUE_BLUE;
}

/* Annotations first (they are exact); then inferno's shapes, with two
 * changes: a '/' before the first "::" is a Java class ("java/lang/Thread;
 * ::run" from perf-map-agent, green as in flamegraph.pl, not C++), and GCC
 * clone suffixes do not count as the dots of a Java name. */
static enum palette_hue hue_java(const char *s, size_t len, enum palette_type t)
{
	if (t == PALETTE_TYPE_KERNEL)
		return PALETTE_HUE_ORANGE;
	if (t == PALETTE_TYPE_INLINED)
		return PALETTE_HUE_AQUA;
	if (t == PALETTE_TYPE_JIT)
		return PALETTE_HUE_GREEN;
	len = palette_base_len(s, len);
	if (starts(s, len, "-[") || starts(s, len, "+["))
		return PALETTE_HUE_YELLOW;         /* Objective-C methods */
	if (len > 0 && s[0] == 'L') {
		s++;
		len--;
	}
	size_t colons = find(s, len, "::");
	if (has(s, len, ":::") || memchr(s, '/', colons))
		return PALETTE_HUE_GREEN;
	if (colons < len)
		return PALETTE_HUE_YELLOW;
	size_t body = before_clone_suffix(s, len);
	if ((len > 0 && s[0] != '[' && memchr(s, '.', body)) || (len > 0 && is_upper(s[0])))
		return PALETTE_HUE_GREEN;
	return PALETTE_HUE_RED;
}

static enum palette_hue hue_perl(const char *s, size_t len, enum palette_type t)
{
	if (t == PALETTE_TYPE_KERNEL)
		return PALETTE_HUE_ORANGE;
	len = palette_base_len(s, len);
	if (has(s, len, "Perl") || has(s, len, ".pl"))
		return PALETTE_HUE_GREEN;
	if (has(s, len, "::"))
		return PALETTE_HUE_YELLOW;
	return PALETTE_HUE_RED;
}

static enum palette_hue hue_js(const char *s, size_t len, enum palette_type t)
{
	size_t base = palette_base_len(s, len), k;
	for (k = 0; k < base && (s[k] == ' ' || s[k] == '\t'); k++)
		;
	if (base > 0 && k == base)
		return PALETTE_HUE_GREEN;          /* a missing symbol */
	if (t == PALETTE_TYPE_KERNEL)
		return PALETTE_HUE_ORANGE;
	len = base;
	if (t == PALETTE_TYPE_JIT)
		return memchr(s, '/', len) ? PALETTE_HUE_GREEN : PALETTE_HUE_AQUA;
	if (has(s, len, "::"))
		return PALETTE_HUE_YELLOW;
	if (memchr(s, ':', len))
		return PALETTE_HUE_AQUA;
	const char *slash = memchr(s, '/', len);
	if (slash) {
		size_t rest = len - (size_t)(slash - s);
		if (has(slash, rest, "node_modules/"))
			return PALETTE_HUE_PURPLE;
		if (has(slash, rest, ".js"))
			return PALETTE_HUE_GREEN;
	}
	return PALETTE_HUE_RED;
}

/* Whether a '/' or '\\' separated component of s[0..len) is "site-packages"
 * or "dist-packages" (want_pkg), or "python"/"Python" followed by only
 * digits and dots (the standard library's directory). */
static bool python_component(const char *s, size_t len, bool want_pkg)
{
	size_t i = 0;
	while (i <= len) {
		size_t j = i;
		while (j < len && s[j] != '/' && s[j] != '\\')
			j++;
		const char *c = s + i;
		size_t n = j - i;
		if (want_pkg) {
			if ((n == 13 && memcmp(c, "site-packages", 13) == 0) ||
			    (n == 13 && memcmp(c, "dist-packages", 13) == 0))
				return true;
		} else if (n >= 6 && (memcmp(c, "python", 6) == 0 || memcmp(c, "Python", 6) == 0)) {
			size_t k = 6;
			while (k < n && (is_digit(c[k]) || c[k] == '.'))
				k++;
			if (k == n)
				return true;
		}
		i = j + 1;
	}
	return false;
}

/* inferno's python palette (packages aqua, standard library yellow), and
 * beyond it: Python code itself (".py", "<module>", the "py::" frames of
 * python -X perf) green, kernel orange, what is left (native code) red. */
static enum palette_hue hue_python(const char *s, size_t len, enum palette_type t)
{
	if (t == PALETTE_TYPE_KERNEL)
		return PALETTE_HUE_ORANGE;
	len = palette_base_len(s, len);
	if (python_component(s, len, true))
		return PALETTE_HUE_AQUA;
	if (python_component(s, len, false) || starts(s, len, "<built-in") ||
	    starts(s, len, "<method") || starts(s, len, "<frozen"))
		return PALETTE_HUE_YELLOW;
	if (has(s, len, ".py") || has(s, len, "<module>") || starts(s, len, "py::"))
		return PALETTE_HUE_GREEN;
	return PALETTE_HUE_RED;
}

/* inferno's rust palette; kernel frames (which it leaves yellow, with C)
 * red, the one hue it does not use. */
static enum palette_hue hue_rust(const char *s, size_t len, enum palette_type t)
{
	if (t == PALETTE_TYPE_KERNEL)
		return PALETTE_HUE_RED;
	len = palette_base_len(s, len);
	const char *tick = memchr(s, '`', len);        /* module`function */
	if (tick) {
		len -= (size_t)(tick + 1 - s);
		s = tick + 1;
	}
	if (starts(s, len, "core::") || starts(s, len, "std::") || starts(s, len, "alloc::") ||
	    (starts(s, len, "<core::") && !starts(s, len, "<core::future::from_generator::GenFuture<T>")) ||
	    starts(s, len, "<std::") || starts(s, len, "<alloc::"))
		return PALETTE_HUE_ORANGE;
	if (has(s, len, "::"))
		return PALETTE_HUE_AQUA;
	return PALETTE_HUE_YELLOW;
}

static enum palette_hue hue_wakeup(const char *s, size_t len, enum palette_type t)
{
	(void)s;
	(void)len;
	(void)t;
	return PALETTE_HUE_AQUA;
}

static const struct palette_legend lg_hot[] = { { PALETTE_HUE_HOT, "all frames", "warm colours; the shade is a hash of the name" } };
static const struct palette_legend lg_mem[] = { { PALETTE_HUE_MEM, "memory", "memory allocation stacks" } };
static const struct palette_legend lg_io[] = { { PALETTE_HUE_IO, "I/O", "I/O and off-CPU stacks" } };
static const struct palette_legend lg_wakeup[] = { { PALETTE_HUE_AQUA, "wakeup", "wakeup stacks" } };
static const struct palette_legend lg_chain[] = {
	{ PALETTE_HUE_AQUA, "waker", "the waker's stack (_[w])" },
	{ PALETTE_HUE_BLUE, "off-CPU", "the blocked (off-CPU) stack" },
};
static const struct palette_legend lg_java[] = {
	{ PALETTE_HUE_GREEN, "Java/JIT", "Java and JIT code (_[j]; java/ org/ a.b.C names)" },
	{ PALETTE_HUE_AQUA, "inlined", "inlined frames (_[i])" },
	{ PALETTE_HUE_YELLOW, "C++", "C++ (:: names)" },
	{ PALETTE_HUE_ORANGE, "kernel", "kernel (_[k])" },
	{ PALETTE_HUE_RED, "native", "other native code (C, system libraries)" },
};
static const struct palette_legend lg_js[] = {
	{ PALETTE_HUE_GREEN, "JS", "JavaScript (JIT with a path, .js files)" },
	{ PALETTE_HUE_AQUA, "builtin", "JS builtins (JIT without a path, a:b names)" },
	{ PALETTE_HUE_PURPLE, "node_modules", "code from node_modules/" },
	{ PALETTE_HUE_YELLOW, "C++", "C++ (:: names)" },
	{ PALETTE_HUE_ORANGE, "kernel", "kernel (_[k])" },
	{ PALETTE_HUE_RED, "native", "other native code" },
};
static const struct palette_legend lg_perl[] = {
	{ PALETTE_HUE_GREEN, "Perl", "Perl (Perl* names, .pl files)" },
	{ PALETTE_HUE_YELLOW, "C++", "C++ (:: names)" },
	{ PALETTE_HUE_ORANGE, "kernel", "kernel (_[k])" },
	{ PALETTE_HUE_RED, "native", "other native code" },
};
static const struct palette_legend lg_python[] = {
	{ PALETTE_HUE_GREEN, "Python", "Python code (.py, <module>, py::)" },
	{ PALETTE_HUE_AQUA, "packages", "site-packages and dist-packages" },
	{ PALETTE_HUE_YELLOW, "stdlib", "standard library, builtins (pythonX.Y/, <built-in>)" },
	{ PALETTE_HUE_ORANGE, "kernel", "kernel (_[k])" },
	{ PALETTE_HUE_RED, "native", "native code (the interpreter, C extensions)" },
};
static const struct palette_legend lg_rust[] = {
	{ PALETTE_HUE_ORANGE, "std", "Rust's core, std and alloc" },
	{ PALETTE_HUE_AQUA, "Rust", "other Rust paths (:: names)" },
	{ PALETTE_HUE_YELLOW, "other", "C and system code" },
	{ PALETTE_HUE_RED, "kernel", "kernel (_[k])" },
};
#define LG_FLAT(name, h) \
	static const struct palette_legend name[] = { { h, "all frames", "every frame, shaded by its name" } };
LG_FLAT(lg_red, PALETTE_HUE_RED)
LG_FLAT(lg_green, PALETTE_HUE_GREEN)
LG_FLAT(lg_blue, PALETTE_HUE_BLUE)
LG_FLAT(lg_aqua, PALETTE_HUE_AQUA)
LG_FLAT(lg_yellow, PALETTE_HUE_YELLOW)
LG_FLAT(lg_purple, PALETTE_HUE_PURPLE)
LG_FLAT(lg_orange, PALETTE_HUE_ORANGE)

static const struct palette pal_hot = { "hot", "warm reds and yellows (flamegraph.pl's default)", hue_hot, LEGEND(lg_hot) };
static const struct palette pal_mem = { "mem", "greens and blues, for memory profiles", hue_mem, LEGEND(lg_mem) };
static const struct palette pal_io = { "io", "blues, for I/O and off-CPU profiles", hue_io, LEGEND(lg_io) };
static const struct palette pal_wakeup = { "wakeup", "aqua, for wakeup stacks", hue_wakeup, LEGEND(lg_wakeup) };
static const struct palette pal_chain = { "chain", "off-CPU stacks blue, their wakers (_[w]) aqua", hue_chain, LEGEND(lg_chain) };
static const struct palette pal_java = { "java", "code types of a JVM: Java/JIT, inlined, C++, kernel, native", hue_java, LEGEND(lg_java) };
static const struct palette pal_js = { "js", "code types of node/V8: JS, builtins, node_modules, C++, kernel, native", hue_js, LEGEND(lg_js) };
static const struct palette pal_perl = { "perl", "code types of perl: Perl, C++, kernel, native", hue_perl, LEGEND(lg_perl) };
static const struct palette pal_python = { "python", "code types of Python: Python, packages, stdlib, kernel, native", hue_python, LEGEND(lg_python) };
static const struct palette pal_rust = { "rust", "code types of Rust: std, other Rust, other, kernel", hue_rust, LEGEND(lg_rust) };
static const struct palette pal_red = { "red", "reds", hue_red, LEGEND(lg_red) };
static const struct palette pal_green = { "green", "greens", hue_green, LEGEND(lg_green) };
static const struct palette pal_blue = { "blue", "blues", hue_blue, LEGEND(lg_blue) };
static const struct palette pal_aqua = { "aqua", "aquas", hue_aqua, LEGEND(lg_aqua) };
static const struct palette pal_yellow = { "yellow", "yellows", hue_yellow, LEGEND(lg_yellow) };
static const struct palette pal_purple = { "purple", "purples", hue_purple, LEGEND(lg_purple) };
static const struct palette pal_orange = { "orange", "oranges", hue_orange, LEGEND(lg_orange) };

const struct palette *const palette_list[] = {
	&pal_hot, &pal_mem, &pal_io, &pal_wakeup, &pal_chain, &pal_java, &pal_js, &pal_perl,
	&pal_python, &pal_rust, &pal_red, &pal_green, &pal_blue, &pal_aqua, &pal_yellow,
	&pal_purple, &pal_orange, NULL
};
const size_t palette_count = sizeof palette_list / sizeof palette_list[0] - 1;

const struct palette *palette_find(const char *name)
{
	for (size_t i = 0; palette_list[i]; i++)
		if (strcmp(palette_list[i]->name, name) == 0)
			return palette_list[i];
	return NULL;
}

const struct palette *palette_next(const struct palette *p)
{
	for (size_t i = 0; palette_list[i]; i++)
		if (palette_list[i] == p)
			return palette_list[i + 1] ? palette_list[i + 1] : palette_list[0];
	return palette_list[0];
}

char *palette_names(char *buf, size_t size)
{
	size_t len = 0;
	if (size == 0)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; palette_list[i] && len < size; i++) {
		int n = snprintf(buf + len, size - len, "%s%s", i ? ", " : "", palette_list[i]->name);
		if (n < 0)
			break;
		len += (size_t)n;
	}
	return buf;
}

/* ---- the user's rules ------------------------------------------------------- */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool parse_hex(const char *s, size_t len, struct palette_rgb *out)
{
	if (len != 7 || s[0] != '#')
		return false;
	int v[6];
	for (int k = 0; k < 6; k++)
		if ((v[k] = hexval(s[1 + k])) < 0)
			return false;
	out->r = (uint8_t)(v[0] << 4 | v[1]);
	out->g = (uint8_t)(v[2] << 4 | v[3]);
	out->b = (uint8_t)(v[4] << 4 | v[5]);
	return true;
}

bool palette_parse_spec(const char *s, struct palette_spec *out)
{
	struct palette_rgb c = { 0, 0, 0 };
	if (parse_hex(s, strlen(s), &c)) {
		out->hue = PALETTE_HUE_FLAT;
		out->rgb = c;
		return true;
	}
	int h = palette_hue_find(s);
	if (h < 0)
		return false;
	out->hue = (enum palette_hue)h;
	out->rgb = c;
	return true;
}

struct rule {
	struct rx *re;
	char *src;
	struct palette_spec spec;
};

struct map_entry {
	char *name;             /* NULL: empty slot */
	size_t len;
	uint64_t hash;
	struct palette_rgb rgb;
};

struct palette_rules {
	struct rule *rule;
	size_t nrule, caprule;
	struct map_entry *slot; /* open addressing on palette_hash */
	size_t nslot, nmap;     /* nslot a power of two, or 0 */
};

struct palette_rules *palette_rules_new(void)
{
	return xcalloc(1, sizeof(struct palette_rules));
}

void palette_rules_free(struct palette_rules *r)
{
	if (!r)
		return;
	for (size_t k = 0; k < r->nrule; k++) {
		rx_free(r->rule[k].re);
		free(r->rule[k].src);
	}
	free(r->rule);
	for (size_t k = 0; k < r->nslot; k++)
		free(r->slot[k].name);
	free(r->slot);
	free(r);
}

int palette_rules_add(struct palette_rules *r, const char *spec, char *err, size_t errsize)
{
	char safe[160];
	text_sanitize(spec, strlen(spec), safe, sizeof safe);
	const char *eq = strrchr(spec, '=');
	if (!eq) {
		snprintf(err, errsize, "invalid --color-rule '%s': expected REGEX=COLOR", safe);
		return -1;
	}
	if (eq == spec) {
		snprintf(err, errsize, "invalid --color-rule '%s': the regex is empty", safe);
		return -1;
	}
	struct palette_spec ps;
	if (!palette_parse_spec(eq + 1, &ps)) {
		snprintf(err, errsize, "invalid --color-rule '%s': unknown colour (a hue such as red, "
		         "green, blue, aqua, yellow, purple, orange, grey, hot, mem, io; or #rrggbb)", safe);
		return -1;
	}
	size_t rlen = (size_t)(eq - spec);
	char *src = xmalloc(rlen + 1);
	memcpy(src, spec, rlen);
	src[rlen] = '\0';
	if (r->nrule == r->caprule) {
		r->caprule = r->caprule ? 2 * r->caprule : 4;
		r->rule = xreallocarray(r->rule, r->caprule, sizeof *r->rule);
	}
	struct rule *ru = &r->rule[r->nrule];
	char msg[128];
	ru->re = rx_new(src, rlen, RX_CASE_SENSITIVE, msg, sizeof msg);
	if (!ru->re) {
		snprintf(err, errsize, "invalid --color-rule '%s': %s", safe, msg);
		free(src);
		return -1;
	}
	ru->src = src;
	ru->spec = ps;
	r->nrule++;
	return 0;
}

static struct map_entry *map_slot(const struct palette_rules *r, const char *s, size_t len, uint64_t h)
{
	size_t mask = r->nslot - 1;
	for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
		struct map_entry *e = &r->slot[i];
		if (!e->name || (e->hash == h && e->len == len && memcmp(e->name, s, len) == 0))
			return e;
	}
}

static void map_put(struct palette_rules *r, const char *s, size_t len, struct palette_rgb c)
{
	if (2 * (r->nmap + 1) > r->nslot) {
		size_t old = r->nslot;
		struct map_entry *was = r->slot;
		r->nslot = old ? 2 * old : 64;
		r->slot = xcalloc(r->nslot, sizeof *r->slot);
		for (size_t k = 0; k < old; k++)
			if (was[k].name)
				*map_slot(r, was[k].name, was[k].len, was[k].hash) = was[k];
		free(was);
	}
	uint64_t h = palette_hash(s, len);
	struct map_entry *e = map_slot(r, s, len, h);
	if (!e->name) {
		e->name = xmalloc(len + 1);
		memcpy(e->name, s, len);
		e->name[len] = '\0';
		e->len = len;
		e->hash = h;
		r->nmap++;
	}
	e->rgb = c;
}

static const struct map_entry *map_get(const struct palette_rules *r, const char *s, size_t len)
{
	if (r->nmap == 0)
		return NULL;
	const struct map_entry *e = map_slot(r, s, len, palette_hash(s, len));
	return e->name ? e : NULL;
}

/* "rgb(R,G,B)" with optional blanks, or #rrggbb. Returns NULL or a reason. */
static const char *parse_map_colour(const char *s, size_t len, struct palette_rgb *out)
{
	while (len > 0 && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (len > 0 && s[0] == '#')
		return parse_hex(s, len, out) ? NULL : "a colour is rgb(R,G,B) or #rrggbb";
	if (len < 4 || memcmp(s, "rgb(", 4) != 0 || s[len - 1] != ')')
		return "a colour is rgb(R,G,B) or #rrggbb";
	size_t i = 4, end = len - 1;
	int v[3];
	for (int k = 0; k < 3; k++) {
		while (i < end && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == end || !is_digit(s[i]))
			return "rgb() needs three numbers from 0 to 255";
		long n = 0;
		while (i < end && is_digit(s[i])) {
			n = n * 10 + (s[i++] - '0');
			if (n > 255)
				return "a colour value is above 255";
		}
		v[k] = (int)n;
		while (i < end && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (k < 2) {
			if (i == end || s[i] != ',')
				return "rgb() needs three numbers from 0 to 255";
			i++;
		}
	}
	if (i != end)
		return "rgb() needs three numbers from 0 to 255";
	out->r = (uint8_t)v[0];
	out->g = (uint8_t)v[1];
	out->b = (uint8_t)v[2];
	return NULL;
}

/* Finds the last "->" of s[0..len), or NULL. */
static const char *last_arrow(const char *s, size_t len)
{
	for (size_t i = len; i-- > 1;)
		if (s[i - 1] == '-' && s[i] == '>')
			return s + i - 1;
	return NULL;
}

int palette_rules_parse_map(struct palette_rules *r, const char *name, const char *text, size_t size,
                            char *err, size_t errsize)
{
	char safe_name[256];
	text_sanitize(name, strlen(name), safe_name, sizeof safe_name);
	unsigned long lineno = 0;
	for (const char *p = text, *end = text + size; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line = p;
		size_t len = (size_t)((nl ? nl : end) - p);
		p = nl ? nl + 1 : end;
		lineno++;
		while (len > 0 && line[len - 1] == '\r')
			len--;
		size_t k = 0;
		while (k < len && (line[k] == ' ' || line[k] == '\t'))
			k++;
		if (k == len)
			continue;
		/* The separator is the last "->": C++ names may hold one
		 * (operator->), a colour never does. */
		const char *arrow = last_arrow(line, len);
		if (!arrow) {
			if (line[0] == '#')
				continue;
			snprintf(err, errsize, "%s:%lu: expected NAME->rgb(R,G,B)", safe_name, lineno);
			return -1;
		}
		struct palette_rgb c;
		const char *cs = arrow + 2;
		size_t clen = len - (size_t)(cs - line);
		const char *why = parse_map_colour(cs, clen, &c);
		if (why) {
			char frag[64];
			text_sanitize(cs, clen, frag, sizeof frag);
			snprintf(err, errsize, "%s:%lu: bad colour '%s': %s", safe_name, lineno, frag, why);
			return -1;
		}
		map_put(r, line, (size_t)(arrow - line), c);
	}
	return 0;
}

int palette_rules_load_map(struct palette_rules *r, const char *path, char *err, size_t errsize)
{
	char why[128];
	size_t size;
	/* Read whole, capped, regular files only: /dev/zero or a FIFO named
	 * here must neither fill memory nor block. */
	char *text = conf_read_file(path, PALETTE_MAP_MAX_BYTES, &size, why, sizeof why);
	if (!text) {
		char safe_path[256];
		text_sanitize(path, strlen(path), safe_path, sizeof safe_path);
		snprintf(err, errsize, "%s: %s", safe_path, why);
		return -1;
	}
	int rc = palette_rules_parse_map(r, path, text, size, err, errsize);
	free(text);
	return rc;
}

size_t palette_rules_map_count(const struct palette_rules *r) { return r ? r->nmap : 0; }
size_t palette_rules_count(const struct palette_rules *r) { return r ? r->nrule : 0; }
const char *palette_rules_regex(const struct palette_rules *r, size_t k) { return r->rule[k].src; }
struct palette_spec palette_rules_spec(const struct palette_rules *r, size_t k) { return r->rule[k].spec; }

size_t palette_rules_costly(const struct palette_rules *r)
{
	size_t n = 0;
	for (size_t k = 0; r && k < r->nrule; k++)
		n += rx_costly(r->rule[k].re);
	return n;
}

/* ---- a frame's colour ------------------------------------------------------- */

static struct palette_look shade(enum palette_hue h, const char *s, size_t base)
{
	struct palette_look l = { h, palette_hue_rgb(h, palette_hash(s, base)) };
	return l;
}

struct palette_look palette_look(const struct palette *p, const struct palette_rules *r,
                                 const char *s, size_t len)
{
	enum palette_type t = palette_type_of(s, len);
	size_t base = t == PALETTE_TYPE_NONE ? len : len - 4;
	if (r) {
		const struct map_entry *e = map_get(r, s, len);
		if (!e && base != len)
			e = map_get(r, s, base);
		if (e) {
			struct palette_look l = { PALETTE_HUE_FLAT, e->rgb };
			return l;
		}
		for (size_t k = 0; k < r->nrule; k++) {
			if (!rx_matches(r->rule[k].re, s, len))
				continue;
			if (r->rule[k].spec.hue == PALETTE_HUE_FLAT) {
				struct palette_look l = { PALETTE_HUE_FLAT, r->rule[k].spec.rgb };
				return l;
			}
			return shade(r->rule[k].spec.hue, s, base);
		}
	}
	/* flamegraph.pl's stack separators: "--" darker than "-". */
	if (base == 1 && s[0] == '-') {
		struct palette_look l = { PALETTE_HUE_GREY, { 200, 200, 200 } };
		return l;
	}
	if (base == 2 && s[0] == '-' && s[1] == '-') {
		struct palette_look l = { PALETTE_HUE_GREY, { 160, 160, 160 } };
		return l;
	}
	return shade(p->hue(s, len, t), s, base);
}

/* ---- terminals ---------------------------------------------------------------- */

enum palette_depth palette_depth_for(int ncolors, const char *no_color)
{
	if (no_color && *no_color)
		return PALETTE_MONO;
	if (ncolors >= 0x1000000)
		return PALETTE_DIRECT;
	if (ncolors >= 256)
		return PALETTE_256;
	if (ncolors >= 8)
		return PALETTE_8;
	return PALETTE_MONO;
}

bool palette_colorterm_direct(const char *colorterm)
{
	return colorterm && (strcmp(colorterm, "truecolor") == 0 || strcmp(colorterm, "24bit") == 0);
}

static const int cube_level[6] = { 0, 95, 135, 175, 215, 255 };

static int nearest_cube_index(int v)
{
	int best = 0;
	for (int i = 1; i < 6; i++) {
		int d = v - cube_level[i], bd = v - cube_level[best];
		if (d * d < bd * bd)
			best = i;
	}
	return best;
}

static int sq(int v) { return v * v; }

struct palette_rgb palette_xterm_rgb(int n)
{
	struct palette_rgb c = { 0, 0, 0 };
	if (n >= 16 && n < 232) {
		n -= 16;
		c.r = (uint8_t)cube_level[n / 36];
		c.g = (uint8_t)cube_level[n / 6 % 6];
		c.b = (uint8_t)cube_level[n % 6];
	} else if (n >= 232 && n < 256) {
		c.r = c.g = c.b = (uint8_t)(8 + 10 * (n - 232));
	}
	return c;
}

static int nearest_in(const uint8_t *set, size_t n, struct palette_rgb c)
{
	int best = set[0], bd = -1;
	for (size_t i = 0; i < n; i++) {
		struct palette_rgb x = palette_xterm_rgb(set[i]);
		int d = sq(c.r - x.r) + sq(c.g - x.g) + sq(c.b - x.b);
		if (bd < 0 || d < bd) {
			bd = d;
			best = set[i];
		}
	}
	return best;
}

/* Cube colours with red 215/255, green 0..215 and no blue, plus the
 * lighter ones with blue 95 where green keeps them yellow, not pink. */
static const uint8_t hot_xterm[] = {
	160, 166, 172, 178, 184,        /* r 215, b 0 */
	196, 202, 208, 214, 220,        /* r 255, b 0 */
	173, 179, 185,                  /* r 215, g >= 135, b 95 */
	209, 215, 221,                  /* r 255, g >= 135, b 95 */
};

int palette_to_256(struct palette_look l)
{
	struct palette_rgb c = l.rgb;
	if (l.hue == PALETTE_HUE_HOT)
		return nearest_in(hot_xterm, sizeof hot_xterm, c);

	int ri = nearest_cube_index(c.r), gi = nearest_cube_index(c.g), bi = nearest_cube_index(c.b);
	int cube_d = sq(c.r - cube_level[ri]) + sq(c.g - cube_level[gi]) + sq(c.b - cube_level[bi]);

	/* Grey ramp 232..255 is 8, 18, ..., 238. */
	int avg = (c.r + c.g + c.b) / 3;
	int gi24 = avg < 8 ? 0 : (avg - 8 + 5) / 10;
	if (gi24 > 23)
		gi24 = 23;
	int gv = 8 + 10 * gi24;
	int grey_d = sq(c.r - gv) + sq(c.g - gv) + sq(c.b - gv);

	if (grey_d < cube_d)
		return 232 + gi24;
	return 16 + 36 * ri + 6 * gi + bi;
}

int palette_to_8(struct palette_look l)
{
	struct palette_rgb c = l.rgb;
	switch (l.hue) {
	case PALETTE_HUE_HOT:
		/* Warm colours differ mostly in green: red, orange, yellow.
		 * Orange has no ANSI colour; magenta keeps it apart. */
		return c.g < 77 ? 1 : c.g < 154 ? 5 : 3;
	case PALETTE_HUE_MEM: return c.b < 105 ? 2 : 6;
	case PALETTE_HUE_IO: return 4;
	case PALETTE_HUE_RED: return 1;
	case PALETTE_HUE_GREEN: return 2;
	case PALETTE_HUE_BLUE: return 4;
	case PALETTE_HUE_AQUA: return 6;
	case PALETTE_HUE_YELLOW: return 3;
	case PALETTE_HUE_PURPLE: return 4;
	case PALETTE_HUE_ORANGE: return 5;
	case PALETTE_HUE_GREY: return 7;
	case PALETTE_HUE_FLAT:
	case PALETTE_NHUES:
		break;
	}
	/* A flat colour: the nearest of xterm's ANSI 1..7 (black would hide
	 * the black text). */
	static const struct palette_rgb ansi[8] = {
		{ 0, 0, 0 }, { 205, 0, 0 }, { 0, 205, 0 }, { 205, 205, 0 },
		{ 0, 0, 238 }, { 205, 0, 205 }, { 0, 205, 205 }, { 229, 229, 229 },
	};
	int best = 1, bd = -1;
	for (int k = 1; k < 8; k++) {
		int d = sq(c.r - ansi[k].r) + sq(c.g - ansi[k].g) + sq(c.b - ansi[k].b);
		if (bd < 0 || d < bd) {
			bd = d;
			best = k;
		}
	}
	return best;
}

int palette_to_direct(struct palette_rgb c)
{
	int v = c.r << 16 | c.g << 8 | c.b;
	return v < 8 ? 8 : v;
}
