/* text: untrusted name bytes -> terminal-safe display form, measured in
 * display columns. See text.h for the rules; this file only adds how.
 *
 * The display form is a sequence of "units", one per input code point (or
 * per maximal invalid subsequence): a kept character, U+FFFD, '?', a caret
 * escape or a <U+XXXX> escape. Every function walks units left to right and
 * stops as soon as it knows the answer, so cutting a 10 MB name to 80
 * columns reads about 80 columns' worth of input.
 *
 * Output bound (why TEXT_FIT_BYTES(cols) = 12 * cols + 16 is enough):
 * every unit of width 0 is a kept combining mark, and at most two of them
 * follow a unit of width >= 1 (mark state below; a mark with no base or
 * beyond two is escaped, and an escape has width >= 8). Group the output
 * into clusters "unit of width w >= 1, then at most two marks". A unit of
 * width w takes at most 4 * w bytes (UTF-8 character: <= 4 bytes, w >= 1;
 * U+FFFD: 3 bytes, 1 column; escapes: 1 byte per column), each mark at most
 * 4 bytes, so a cluster takes at most 4 * w + 8 <= 12 * w bytes. Hence any
 * run of units of width W, starting at a unit of width >= 1, takes at most
 * 12 * W bytes. text_fit writes units while the width stays <= cols
 * (<= 12 * cols bytes), plus the one unit that turns out not to fit (at
 * most UNIT_MAX = 10 bytes, so <= 12 * cols + 10 < TEXT_FIT_BYTES(cols)
 * bytes are ever touched); when cut it keeps a prefix of width p <= cols - 2
 * (<= 12 * p bytes) and adds ".." and cols - 2 - p spaces: at most
 * 12 * p + 2 + (cols - 2 - p) <= 12 * cols bytes. The NUL makes 12 * cols
 * + 1. text_fit_middle writes a head of width h, "..", a tail of width t
 * starting at a unit of width >= 1, and spaces: h + t <= cols - 2, so at
 * most 12 * (cols - 2) + 2 + cols bytes, and its first pass is text_fit's.
 * The same cluster argument bounds input bytes: a unit of width w >= 1
 * consumes at most 4 * w input bytes and a mark 4, so a run of width W
 * (starting at a unit of width >= 1) consumes at most 12 * W input bytes;
 * text_fit_middle uses that to look at the end of a long name only. */
#include "config.h"
#include "text.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unictype.h>
#include <uniwidth.h>
#include "xalloc.h"

static bool utf8_mode = true;

void text_init(bool utf8)
{
	utf8_mode = utf8;
}

bool text_is_utf8(void)
{
	return utf8_mode;
}

/* Mark state: how many kept combining marks the last base character already
 * carries (0..2), or NOBASE when there is nothing for a mark to attach to
 * (start of the name, after an escape, after the second mark). */
enum { NOBASE = -1, MAXMARKS = 2 };

/* What unit_next produced; the display bytes themselves go straight to the
 * caller's buffer. */
struct unit {
	unsigned k;         /* input bytes consumed */
	unsigned n;         /* display bytes written */
	unsigned w;         /* display columns */
};

/* Room a destination needs for any one unit: "<U+10FFFF>". */
enum { UNIT_MAX = 10 };

static bool is_cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

static bool is_print_ascii(unsigned char c)
{
	return c >= 0x20 && c < 0x7f;
}

/* End of the run of printable ASCII in s[p..end), copied to dst (if not
 * NULL) as it goes. Most frame names are nothing else, so this tests 8
 * bytes at a time (a byte < 0x20 or > 0x7e sets the high bit of its lane
 * in one of the two terms). */
static size_t ascii_run(const unsigned char *s, size_t p, size_t end, char *dst)
{
	const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;

	while (end - p >= 8) {
		uint64_t x;
		memcpy(&x, s + p, 8);
		if (((x - ones * 0x20) & ~x & high) | (((x + ones * (0x7f - 0x7e)) | x) & high))
			break;
		if (dst) {
			memcpy(dst, &x, 8);
			dst += 8;
		}
		p += 8;
	}
	for (; p < end && is_print_ascii(s[p]); p++)
		if (dst)
			*dst++ = (char)s[p];
	return p;
}

/* One code point from s[0..n), n >= 1, s[0] >= 0x80. Invalid input follows
 * the Unicode "maximal subpart" practice (Unicode 15, ch. 3.9, U+FFFD
 * substitution): the bytes that could still begin a well-formed sequence
 * (table 3-7) are consumed together, so E2 82 is one bad unit, while C0 AF
 * and ED A0 80 (overlong, surrogate) are one per byte. *cp = -1 when bad.
 * Decoded by hand rather than with u8_mbtouc because libunistring's choice
 * of how many bad bytes to swallow differs between versions (1.0 takes
 * ED A0 80 whole but C0 AF bytewise). A byte that is not a continuation
 * byte (10xxxxxx) always starts a unit, which lets us resynchronise
 * anywhere (unit_start). */
static size_t decode(const unsigned char *s, size_t n, int32_t *cp)
{
	unsigned c = s[0], lo = 0x80, hi = 0xbf;
	size_t need;
	uint32_t v;

	if (c >= 0xc2 && c <= 0xdf) {
		need = 1;
		v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 2;
		v = c & 0x0f;
		if (c == 0xe0)
			lo = 0xa0;      /* overlong */
		else if (c == 0xed)
			hi = 0x9f;      /* surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 3;
		v = c & 0x07;
		if (c == 0xf0)
			lo = 0x90;      /* overlong */
		else if (c == 0xf4)
			hi = 0x8f;      /* > U+10FFFF */
	} else {
		*cp = -1;       /* 80..C1 (continuation, overlong lead), F5..FF */
		return 1;
	}
	for (size_t i = 1; i <= need; i++) {
		if (i >= n || s[i] < lo || s[i] > hi) {
			*cp = -1;
			return i;
		}
		v = v << 6 | (s[i] & 0x3fu);
		lo = 0x80;
		hi = 0xbf;
	}
	*cp = (int32_t)v;
	return need + 1;
}

static unsigned char put_escape(char *b, uint32_t cp)
{
	static const char hex[] = "0123456789ABCDEF";
	int digits = cp > 0xfffff ? 6 : cp > 0xffff ? 5 : 4;

	b[0] = '<';
	b[1] = 'U';
	b[2] = '+';
	for (int i = 0; i < digits; i++)
		b[3 + i] = hex[cp >> (4 * (digits - 1 - i)) & 15];
	b[3 + digits] = '>';
	return (unsigned char)(digits + 4);
}

/* Characters shown as <U+XXXX>: C1 controls, format characters (Cf: bidi
 * controls, ZWSP/ZWNJ/ZWJ, BOM, word joiner, soft hyphen, tags), line and
 * paragraph separators, unassigned code points (their width is unknown to
 * us and may differ in the terminal), and whatever uc_width calls a control. */
static bool needs_escape(uint32_t cp, int w)
{
	return cp < 0xa0 || w < 0 ||
	       uc_is_general_category_withtable(cp,
			UC_CATEGORY_MASK_Cc | UC_CATEGORY_MASK_Cf |
			UC_CATEGORY_MASK_Cs | UC_CATEGORY_MASK_Cn |
			UC_CATEGORY_MASK_Zl | UC_CATEGORY_MASK_Zp);
}

static void set(struct unit *u, unsigned k, unsigned n, unsigned w)
{
	u->k = k;
	u->n = n;
	u->w = w;
}

/* uc_width and the category lookup together cost about 7 ns a character,
 * half the time of a CJK name; names repeat their characters, so a small
 * direct-mapped cache (per thread, so no locking) pays. */
struct class_entry {
	uint32_t cp;        /* 0: empty (U+0000 never gets here) */
	int8_t cls;
};
static _Thread_local struct class_entry class_cache[256];

/* -1: shown as <U+XXXX>; else the width (0: a combining mark). */
static int classify(uint32_t cp)
{
	struct class_entry *e = &class_cache[(cp ^ cp >> 8) & 255];
	int w;

	if (e->cp == cp)
		return e->cls;
	w = uc_width(cp, "UTF-8");
	e->cp = cp;
	e->cls = (int8_t)(needs_escape(cp, w) ? -1 : w);
	return e->cls;
}

/* The unit starting at s[0] (n >= 1 bytes left), given and updating the
 * mark state. Its display bytes go to dst, which has room for UNIT_MAX. */
static void unit_next(const unsigned char *s, size_t n, int *mk, char *dst, struct unit *u)
{
	unsigned char c = s[0];
	int32_t cp;
	size_t k;
	int w;

	if (c < 0x20 || c == 0x7f) {
		dst[0] = '^';
		dst[1] = (char)(c ^ 0x40);      /* ESC -> '[', NUL -> '@', DEL -> '?' */
		*mk = NOBASE;
		set(u, 1, 2, 2);
		return;
	}
	if (c < 0x80) {
		dst[0] = (char)c;
		*mk = 0;
		set(u, 1, 1, 1);
		return;
	}
	k = decode(s, n, &cp);
	if (cp < 0) {
		*mk = 0;
		if (!utf8_mode) {
			dst[0] = '?';
			set(u, (unsigned)k, 1, 1);
			return;
		}
		dst[0] = '\xef';
		dst[1] = '\xbf';
		dst[2] = '\xbd';
		set(u, (unsigned)k, 3, 1);
		return;
	}
	w = classify((uint32_t)cp);
	if (w < 0 || (w == 0 && utf8_mode && (*mk == NOBASE || *mk >= MAXMARKS))) {
		unsigned char e = put_escape(dst, (uint32_t)cp);
		*mk = NOBASE;
		set(u, (unsigned)k, e, e);
		return;
	}
	if (!utf8_mode) {
		dst[0] = '?';
		*mk = 0;
		set(u, (unsigned)k, 1, 1);
		return;
	}
	for (size_t i = 0; i < k; i++)
		dst[i] = (char)s[i];
	*mk = w == 0 ? *mk + 1 : 0;
	set(u, (unsigned)k, (unsigned)k, (unsigned)w);
}

/* A unit boundary in [floor, at], as close to at as the bytes allow; floor
 * must itself be a boundary. A sequence is a lead byte plus at most three
 * continuation bytes, so if none of s[at-3..at] is a lead, s[at] is a lone
 * continuation byte and a unit of its own. */
static size_t unit_start(const unsigned char *s, size_t len, size_t at, size_t floor)
{
	if (at >= len)
		return len;
	for (size_t i = at;; i--) {
		if (i == floor || !is_cont(s[i]))
			return i;
		if (at - i == 3)
			return at;
	}
}

/* Mark state just before the unit boundary r. Three units back decide it:
 * a unit of width >= 1 fixes the state, and after three marks in a row the
 * state is NOBASE whatever came before. 12 bytes hold at least 3 units. */
static int mark_state_at(const unsigned char *s, size_t len, size_t r)
{
	size_t pos = r > 12 ? unit_start(s, len, r - 12, 0) : 0;
	int mk = NOBASE;
	char scratch[UNIT_MAX];
	struct unit u;

	if (r > 0 && is_print_ascii(s[r - 1]))
		return 0;       /* the usual case: an ASCII base, no marks yet */
	while (pos < r) {
		unit_next(s + pos, len - pos, &mk, scratch, &u);
		pos += u.k;
	}
	return mk;
}

struct cursor {
	size_t pos;     /* input bytes consumed */
	size_t o;       /* output bytes written */
	int w;          /* columns written */
	int mk;         /* mark state at pos */
};

/* Writes units from c->pos on to out + c->o while the width stays <= limit.
 * *ck (a copy of *c on entry) follows while the width stays <= cklimit
 * (<= limit), so it ends as the longest prefix within cklimit. Returns true
 * when the input ran out, i.e. the rest fitted whole. */
static bool emit(const unsigned char *s, size_t len, int limit, int cklimit,
		 char *out, struct cursor *c, struct cursor *ck)
{
	while (c->pos < len) {
		if (is_print_ascii(s[c->pos])) {
			/* Fast path: a run of printable ASCII, 1 byte = 1 column. */
			size_t room = (size_t)(limit - c->w), p = c->pos;
			size_t end = len - p > room ? p + room : len;

			p = ascii_run(s, p, end, out + c->o);
			size_t run = p - c->pos;
			if (run == 0)
				return false;   /* next column does not fit */
			if (c->w <= cklimit) {
				size_t take = (size_t)(cklimit - c->w);
				if (take > run)
					take = run;
				ck->pos = c->pos + take;
				ck->o = c->o + take;
				ck->w = c->w + (int)take;
				ck->mk = take ? 0 : c->mk;
			}
			c->pos = p;
			c->o += run;
			c->w += (int)run;
			c->mk = 0;
			continue;
		}
		/* Written before knowing whether it fits: by the bound at the
		 * top, out has UNIT_MAX bytes of room past 12 * limit. */
		int mk = c->mk;
		struct unit u;
		unit_next(s + c->pos, len - c->pos, &mk, out + c->o, &u);
		if ((int)u.w > limit - c->w)
			return false;
		c->pos += u.k;
		c->o += u.n;
		c->w += u.w;
		c->mk = mk;
		if (c->w <= cklimit)
			*ck = *c;
	}
	return true;
}

/* Columns of the display form of s[pos..len) starting in mark state mk. */
static size_t measure(const unsigned char *s, size_t pos, size_t len, int mk)
{
	size_t w = 0;
	char scratch[UNIT_MAX];

	while (pos < len) {
		if (is_print_ascii(s[pos])) {
			size_t p = ascii_run(s, pos, len, NULL);
			w += p - pos;
			pos = p;
			mk = 0;
			continue;
		}
		struct unit u;
		unit_next(s + pos, len - pos, &mk, scratch, &u);
		pos += u.k;
		w += u.w;
	}
	return w;
}

int text_width(const char *s, size_t len)
{
	size_t w = measure((const unsigned char *)s, 0, len, NOBASE);
	return w > INT_MAX ? INT_MAX : (int)w;
}

/* The largest cols whose TEXT_FIT_BYTES fits outsize (callers should never
 * need this; it keeps a short buffer from being overrun). */
static int clamp_cols(int cols, size_t outsize)
{
	if (cols < 0)
		return 0;
	if (outsize >= TEXT_FIT_BYTES(cols))
		return cols;
	return outsize < TEXT_FIT_BYTES(0) ? 0 : (int)((outsize - TEXT_FIT_BYTES(0)) / 12);
}

static void pad(char *out, size_t *o, int n)
{
	for (; n > 0; n--)
		out[(*o)++] = ' ';
}

int text_fit(const char *s, size_t len, int cols, char *out, size_t outsize)
{
	const unsigned char *u = (const unsigned char *)s;
	struct cursor c = { 0, 0, 0, NOBASE }, ck = c;

	if (outsize == 0)
		return 0;
	cols = clamp_cols(cols, outsize);
	if (emit(u, len, cols, cols - 2, out, &c, &ck)) {
		out[c.o] = '\0';
		return c.w;
	}
	if (cols < 3) {
		out[0] = '\0';
		return 0;
	}
	memcpy(out + ck.o, "..", 2);
	ck.o += 2;
	pad(out, &ck.o, cols - 2 - ck.w);
	out[ck.o] = '\0';
	return cols;
}

int text_fit_head(const char *s, size_t len, int cols, char *out, size_t outsize, size_t *used)
{
	struct cursor c = { 0, 0, 0, NOBASE }, ck = c;

	*used = 0;
	if (outsize == 0)
		return 0;
	emit((const unsigned char *)s, len, clamp_cols(cols, outsize), -1, out, &c, &ck);
	out[c.o] = '\0';
	*used = c.pos;
	return c.w;
}

int text_fit_middle(const char *s, size_t len, int cols, char *out, size_t outsize)
{
	const unsigned char *u = (const unsigned char *)s;
	struct cursor c = { 0, 0, 0, NOBASE }, head = c;

	if (outsize == 0)
		return 0;
	cols = clamp_cols(cols, outsize);
	/* One pass answers "does it fit whole?" and yields the head. */
	if (emit(u, len, cols, (cols - 1) / 2, out, &c, &head)) {
		out[c.o] = '\0';
		return c.w;
	}
	if (cols < 3) {
		out[0] = '\0';
		return 0;
	}
	/* Tail: the longest suffix of width <= tb that starts at a unit of
	 * width >= 1 (never at a mark cut off from its base). By the bound at
	 * the top, it lies within the last 12 * tb bytes. */
	int tb = cols - 2 - head.w;
	size_t from = len - head.pos > 12 * (size_t)tb ? len - 12 * (size_t)tb : head.pos;
	size_t r = unit_start(u, len, from, head.pos);
	int mk0 = r == head.pos ? head.mk : mark_state_at(u, len, r);
	size_t rest = measure(u, r, len, mk0);
	struct cursor t = { r, 0, 0, mk0 };
	char scratch[UNIT_MAX];

	while (t.pos < len) {
		if (rest > (size_t)tb && is_print_ascii(u[t.pos])) {
			rest--;
			t.pos++;
			t.mk = 0;
			continue;
		}
		int mk = t.mk;
		struct unit un;
		unit_next(u + t.pos, len - t.pos, &mk, scratch, &un);
		if (rest <= (size_t)tb && un.w > 0)
			break;
		rest -= un.w;
		t.pos += un.k;
		t.mk = mk;
	}
	memcpy(out + head.o, "..", 2);
	t.o = head.o + 2;
	t.w = head.w + 2;
	emit(u, len, INT_MAX, INT_MAX, out, &t, &c);    /* c: unused checkpoint */
	pad(out, &t.o, cols - t.w);
	out[t.o] = '\0';
	return cols;
}

size_t text_sanitize(const char *s, size_t len, char *out, size_t outsize)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t pos = 0, o = 0, ck = 0, cap;
	int mk = NOBASE;
	char tmp[UNIT_MAX];

	if (outsize == 0)
		return 0;
	cap = outsize - 1;
	while (pos < len) {
		/* Through tmp: here the bound is outsize, not columns. */
		struct unit un;
		unit_next(u + pos, len - pos, &mk, tmp, &un);
		if (un.n > cap - o) {
			/* Cut: the longest prefix of whole units leaving room for "..". */
			if (cap < 2) {
				ck = 0;
			} else {
				memcpy(out + ck, "..", 2);
				ck += 2;
			}
			out[ck] = '\0';
			return ck;
		}
		memcpy(out + o, tmp, un.n);
		o += un.n;
		pos += un.k;
		if (cap >= 2 && o <= cap - 2)
			ck = o;
	}
	out[o] = '\0';
	return o;
}

size_t text_sanitized_size(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t pos = 0, n = 0;
	int mk = NOBASE;
	char tmp[UNIT_MAX];

	while (pos < len) {
		size_t a = ascii_run(u, pos, len, NULL);
		if (a > pos) {
			n += a - pos;
			pos = a;
			mk = 0;
			continue;
		}
		struct unit un;
		unit_next(u + pos, len - pos, &mk, tmp, &un);
		n += un.n;
		pos += un.k;
	}
	return n;
}

char *text_sanitize_dup(const char *s, size_t len, size_t *outlen)
{
	size_t n = text_sanitized_size(s, len);
	char *out = xmalloc(n + 1);
	size_t got = text_sanitize(s, len, out, n + 1);
	if (got != n)
		abort();        /* the two walks disagree: a bug here */
	*outlen = n;
	return out;
}

int text_write_sanitized(FILE *f, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t pos = 0;
	int mk = NOBASE;
	char buf[4096];
	size_t o = 0;

	while (pos < len) {
		/* Printable ASCII goes out straight from s: most names are that. */
		size_t a = ascii_run(u, pos, len, NULL);
		if (a > pos) {
			if ((o && fwrite(buf, 1, o, f) != o) || fwrite(s + pos, 1, a - pos, f) != a - pos)
				return -1;
			o = 0;
			pos = a;
			mk = 0;
			continue;
		}
		if (sizeof buf - o < UNIT_MAX) {
			if (fwrite(buf, 1, o, f) != o)
				return -1;
			o = 0;
		}
		struct unit un;
		unit_next(u + pos, len - pos, &mk, buf + o, &un);
		o += un.n;
		pos += un.k;
	}
	return o && fwrite(buf, 1, o, f) != o ? -1 : 0;
}

/* ---- the sanitizing stream ---- */

struct sstream {
	FILE *out;
	char *pend;                 /* the frame name so far (no separator yet) */
	size_t npend, cap;
};

static int flush_pending(struct sstream *ss)
{
	int rc = text_write_sanitized(ss->out, ss->pend, ss->npend);
	ss->npend = 0;
	return rc;
}

static ssize_t sstream_write(void *cookie, const char *buf, size_t size)
{
	struct sstream *ss = cookie;
	size_t i = 0;
	while (i < size) {
		if (ss->npend == 0) {
			/* Whole frames of printable ASCII (most are) pass as they
			 * are, in one write. */
			size_t j = i, upto = i;
			while (j < size && (is_print_ascii((unsigned char)buf[j]) || buf[j] == '\n'))
				if (buf[j++] == ';' || buf[j - 1] == '\n')
					upto = j;
			if (upto > i) {
				if (fwrite(buf + i, 1, upto - i, ss->out) != upto - i)
					return -1;
				i = upto;
				continue;
			}
		}
		size_t j = i;
		while (j < size && buf[j] != ';' && buf[j] != '\n')
			j++;
		/* Bytes up to a separator join the pending name: a name (a UTF-8
		 * character, its combining marks) may arrive in pieces. */
		if (ss->npend + (j - i) > ss->cap) {
			while (ss->npend + (j - i) > ss->cap)
				ss->cap = ss->cap ? 2 * ss->cap : 256;
			ss->pend = xrealloc(ss->pend, ss->cap);
		}
		memcpy(ss->pend + ss->npend, buf + i, j - i);
		ss->npend += j - i;
		if (j == size)
			break;
		if (flush_pending(ss) != 0 || putc(buf[j], ss->out) == EOF)
			return -1;
		i = j + 1;
	}
	return (ssize_t)size;
}

static int sstream_close(void *cookie)
{
	struct sstream *ss = cookie;
	int rc = flush_pending(ss);
	if (fflush(ss->out) != 0)
		rc = -1;
	free(ss->pend);
	free(ss);
	return rc;
}

FILE *text_sanitizing_stream(FILE *out)
{
	struct sstream *ss = xcalloc(1, sizeof *ss);
	ss->out = out;
	cookie_io_functions_t io = { .write = sstream_write, .close = sstream_close };
	FILE *f = fopencookie(ss, "w", io);
	if (!f)
		free(ss);
	return f;
}
