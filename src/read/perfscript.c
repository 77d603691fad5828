/* perfscript: `perf script` text to stacks with inferno collapse-perf
 * semantics (SPEC.md §A), plus the deviations of §A.10 that only change
 * what inferno would warn about and lose.
 *
 * The hot path works on byte spans of the caller's block. The only copies
 * are the frame names of the pending record, which live in buffers owned by
 * the reader and reused from record to record (a record may span blocks). */
#include "config.h"
#include "perfscript.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "timeline.h"
#include "xalloc.h"

/* A frame name of the pending record: a span of r->fbuf (offsets, because
 * fbuf moves when it grows). */
struct perf_ent {
	size_t off, len;
};

struct perf_reader {
	struct tree *t;
	struct perf_options o;
	struct reader_diag d;
	uint64_t weird_events, weird_stacks;
	bool started;           /* the BOM check has been done */

	/* Record state, as inferno's collapser keeps it. */
	bool in_event;          /* the next non-blank line is a frame line */
	bool skip;              /* event filtered out: ignore frames until blank */
	bool have_period;
	uint64_t period;
	bool have_time;
	uint64_t time;          /* ns */
	struct timeline *tl;    /* NULL: times are not kept */
	/* the record's thread in tl, and the key it was found for */
	uint32_t th_idx;
	bool th_valid;
	int64_t th_pid, th_tid;
	char th_comm[64];
	size_t th_comm_len;
	bool payload;           /* event line carried a non-frame payload (§A.10 a) */
	bool have_filter;
	char *filter;           /* the event name kept; NULL until known */
	size_t filter_len, filter_cap;
	char *pname;
	size_t pname_len, pname_cap;
	bool java;              /* pname starts with "java": tidy_java applies */

	char *fbuf;             /* frame name bytes of the pending record */
	size_t flen, fcap;
	struct perf_ent *ents;  /* leaf first; each line's parts reversed */
	size_t nent, entcap;
	struct tree_frame *frames;  /* root..leaf, built at flush */
	size_t framecap;
	char *scratch;          /* output of the Rust symbol fix */
	size_t scratchcap;
	char *scratch2;         /* a symbol without line breaks */
	size_t scratch2cap;
	char *scratch3;         /* a module name without line breaks */
	size_t scratch3cap;

	/* perf_reader_record: the last comm, pid and tid, whose pname is in
	 * pname (fields_pname set) */
	bool fields_pname;
	char last_comm[64];
	size_t last_comm_len;
	int32_t last_pid, last_tid;

	/* the frame cache: entries keyed by (obj, addr, variant, java), the
	 * frames' text in blob as [u32 count] then per frame [u32 len][bytes] */
	struct perf_cent {
		const void *obj;
		uint64_t addr;
		uint32_t variant;       /* UINT32_MAX: empty slot */
		uint32_t off;           /* into blob */
	} *cache;
	size_t cache_n, cache_cap;
	char *blob;
	size_t blob_len, blob_cap;
	size_t cache_from;      /* nent at perf_reader_cache_begin */
};

/* ---- byte helpers ------------------------------------------------------ */

static void perf_reserve(char **buf, size_t *cap, size_t need)
{
	size_t n;

	if (need <= *cap)
		return;
	n = *cap ? *cap : 256;
	while (n < need)
		n = n > SIZE_MAX / 2 ? need : n * 2;
	*buf = xrealloc(*buf, n);
	*cap = n;
}

static inline bool perf_is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static inline bool perf_is_hex(unsigned char c)
{
	return perf_is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static inline bool perf_ascii_ws(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* True when s[0..n), n being 2 or 3, is exactly one non-ASCII Unicode
 * White_Space character in UTF-8 (Rust's trim removes those too). */
static bool perf_uws(const unsigned char *s, size_t n)
{
	if (n == 2)
		return s[0] == 0xC2 && (s[1] == 0x85 || s[1] == 0xA0);
	switch (s[0]) {
	case 0xE1:
		return s[1] == 0x9A && s[2] == 0x80;
	case 0xE2:
		if (s[1] == 0x80)
			return (s[2] >= 0x80 && s[2] <= 0x8A) || s[2] == 0xA8 ||
			       s[2] == 0xA9 || s[2] == 0xAF;
		return s[1] == 0x81 && s[2] == 0x9F;
	case 0xE3:
		return s[1] == 0x80 && s[2] == 0x80;
	default:
		return false;
	}
}

/* Length of s[0..n) without trailing white space. */
static size_t perf_rtrim(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	while (n) {
		unsigned char c = u[n - 1];
		if (c < 0x80) {
			if (!perf_ascii_ws(c))
				break;
			n--;
		} else if (n >= 2 && perf_uws(u + n - 2, 2)) {
			n -= 2;
		} else if (n >= 3 && perf_uws(u + n - 3, 3)) {
			n -= 3;
		} else {
			break;
		}
	}
	return n;
}

/* Number of leading white-space bytes of s[0..n). */
static size_t perf_ltrim(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		if (u[i] < 0x80) {
			if (!perf_ascii_ws(u[i]))
				break;
			i++;
		} else if (n - i >= 2 && perf_uws(u + i, 2)) {
			i += 2;
		} else if (n - i >= 3 && perf_uws(u + i, 3)) {
			i += 3;
		} else {
			break;
		}
	}
	return i;
}

void perf_trim(const char **s, size_t *len)
{
	size_t k = perf_ltrim(*s, *len);

	*s += k;
	*len = perf_rtrim(*s, *len - k);
}

/* Last c in s[0..n), or NULL (memrchr is not portable). */
static const char *perf_rchr(const char *s, size_t n, char c)
{
	while (n--)
		if (s[n] == c)
			return s + n;
	return NULL;
}

static bool perf_contains(const char *s, size_t n, const char *pat, size_t plen)
{
	const char *end = s + n;

	while ((size_t)(end - s) >= plen) {
		const char *p = memchr(s, pat[0], (size_t)(end - s) - plen + 1);
		if (!p)
			return false;
		if (memcmp(p, pat, plen) == 0)
			return true;
		s = p + 1;
	}
	return false;
}

static bool perf_ends_with(const char *s, size_t n, const char *suf, size_t slen)
{
	return n >= slen && memcmp(s + n - slen, suf, slen) == 0;
}

/* Rust's u64 parse: an optional '+', then one or more digits, no overflow. */
static bool perf_parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (n && s[0] == '+') {
		s++;
		n--;
	}
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';
		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

/* ---- line parsers (shared with sniff) ---------------------------------- */

bool perf_event_line_parts(const char *line, size_t len, struct perf_event_parts *ep)
{
	size_t word_start = 0, slash = SIZE_MAX;
	bool digits = false, last_space = false;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];
		if (c == ' ') {
			if (digits && !last_space) {
				const char *comm = line;
				size_t clen = word_start - 1;
				if (slash != SIZE_MAX) {
					ep->pid = line + word_start;
					ep->pid_len = slash - word_start;
					ep->tid = line + slash + 1;
					ep->tid_len = i - slash - 1;
				} else {
					ep->pid = "?";
					ep->pid_len = 1;
					ep->tid = line + word_start;
					ep->tid_len = i - word_start;
				}
				perf_trim(&comm, &clen);
				ep->comm = comm;
				ep->comm_len = clen;
				ep->end = i + 1;
				return true;
			}
			word_start = i + 1;
			digits = true;
		} else if (c == '/') {
			if (digits)
				slash = i;
		} else if (!perf_is_digit(c)) {
			digits = false;
			slash = SIZE_MAX;
		}
		last_space = c == ' ';
	}
	return false;
}

/* §A.10 (b): the DSO is the parenthesis group that ends the line, found by
 * matching parentheses backwards (or, when unbalanced, the last " ("). The
 * group must start after a space inside rest, as inferno needs a symbol
 * field. Sets *open to its '('. */
static bool perf_module_group(const char *rest, const char *end, const char **open)
{
	const char *q = end - 1;
	long depth = 1;

	if (end - rest < 3 || end[-1] != ')')
		return false;
	while (q > rest) {
		q--;
		if (*q == ')') {
			depth++;
		} else if (*q == '(' && --depth == 0) {
			if (q > rest && q[-1] == ' ') {
				*open = q;
				return true;
			}
			break;
		}
	}
	for (q = end - 1; q > rest + 1; q--) {
		if (q[-1] == '(' && q[-2] == ' ') {
			*open = q - 1;
			return true;
		}
	}
	return false;
}

bool perf_frame_line_parts(const char *line, size_t len, struct perf_frame_parts *fp)
{
	const char *end = line + len;
	const char *s = line + perf_ltrim(line, len);
	const char *sp, *rest, *msp, *sym_end, *open;
	const char *sym;
	size_t slen;

	sp = memchr(s, ' ', (size_t)(end - s));
	if (!sp)
		return false;
	fp->pc = s;
	fp->pc_len = perf_rtrim(s, (size_t)(sp - s));
	rest = sp + 1;
	msp = perf_rchr(rest, (size_t)(end - rest), ' ');
	if (msp && end - msp >= 3 && msp[1] == '(' && end[-1] == ')') {
		sym_end = msp;
		fp->module = msp + 2;
	} else if (perf_module_group(rest, end, &open)) {
		sym_end = open - 1;
		fp->module = open + 1;
	} else {
		return false;
	}
	fp->module_len = (size_t)(end - 1 - fp->module);
	sym = rest;
	slen = (size_t)(sym_end - rest);
	perf_trim(&sym, &slen);
	if (!slen) {
		/* An empty symbol is " ", as in stackcollapse-perf.pl. */
		sym = " ";
		slen = 1;
	}
	fp->func = sym;
	fp->func_len = slen;
	return true;
}

/* `perf script -F+srcline` prints "  file.c:123" or "  dso[1a2b]" after a
 * frame (§A.10 c). Such lines are skipped without a warning. */
static bool perf_is_srcline(const char *s, size_t n)
{
	static const char disc[] = " (discriminator ";
	size_t k = perf_ltrim(s, n), i;

	s += k;
	n -= k;
	if (n && s[n - 1] == ')') {
		/* "file.c:12 (discriminator 3)" from addr2line */
		i = n - 1;
		while (i && perf_is_digit((unsigned char)s[i - 1]))
			i--;
		if (i == n - 1 || i < sizeof disc - 1 ||
		    memcmp(s + i - (sizeof disc - 1), disc, sizeof disc - 1) != 0)
			return false;
		n = i - (sizeof disc - 1);
	}
	if (!n)
		return false;
	i = n;
	while (i && perf_is_digit((unsigned char)s[i - 1]))
		i--;
	if (i < n && i >= 2 && s[i - 1] == ':')
		return true;
	if (s[n - 1] == ']') {
		i = n - 1;
		while (i && perf_is_hex((unsigned char)s[i - 1]))
			i--;
		if (i < n - 1 && i >= 2 && s[i - 1] == '[')
			return true;
	}
	return false;
}

/* ---- diagnostics ------------------------------------------------------- */

/* Length of the valid UTF-8 character at s[0..n) that is neither a C1
 * control nor malformed; 0 otherwise. */
static size_t perf_utf8_ok(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned char lo = 0x80, hi = 0xBF;

	if (s[0] >= 0xC2 && s[0] <= 0xDF) {
		len = 2;
		if (s[0] == 0xC2)
			lo = 0xA0;  /* U+0080..U+009F are C1 controls */
	} else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		len = 3;
		if (s[0] == 0xE0)
			lo = 0xA0;
		else if (s[0] == 0xED)
			hi = 0x9F;
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		len = 4;
		if (s[0] == 0xF0)
			lo = 0x90;
		else if (s[0] == 0xF4)
			hi = 0x8F;
	} else {
		return 0;
	}
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return len;
}

/* Counts a malformed line; the first one is described in d.first_msg as
 * `what "excerpt"` with every control byte or bad UTF-8 byte shown as '?'. */
static void perf_bad(struct perf_reader *r, const char *what, const char *line, size_t len)
{
	enum { EXCERPT = 80 };
	char *o = r->d.first_msg;
	const unsigned char *u = (const unsigned char *)line;
	size_t wl = strlen(what), i = 0, used = 0;

	r->d.bad++;
	if (r->d.first_bad)
		return;
	r->d.first_bad = r->d.lines;
	memcpy(o, what, wl);
	o += wl;
	*o++ = ' ';
	*o++ = '"';
	while (i < len && used < EXCERPT) {
		size_t cl = u[i] < 0x80 ? 1 : perf_utf8_ok(u + i, len - i);
		if (cl > 1 && used + cl <= EXCERPT) {
			memcpy(o, u + i, cl);
			o += cl;
			i += cl;
			used += cl;
			continue;
		}
		if (cl > 1)
			break;
		*o++ = (u[i] < 0x20 || u[i] >= 0x7f) ? '?' : (char)u[i];
		i++;
		used++;
	}
	if (i < len) {
		memcpy(o, "...", 3);
		o += 3;
	}
	*o++ = '"';
	*o = '\0';
}
/* what (< 40 bytes) + 3 + 80 + 3 + 1 + NUL must fit first_msg. */
_Static_assert(sizeof(((struct reader_diag *)0)->first_msg) >= 40 + 3 + 80 + 3 + 2,
               "first_msg too small for perf_bad");

/* ---- the per-frame pipeline (SPEC §A.5) -------------------------------- */

static bool perf_is_vmlinux(const char *m, size_t n)
{
	const char *v = NULL;

	/* last occurrence of "vmlinux" */
	for (size_t i = n; i >= 7; i--) {
		if (m[i - 7] == 'v' && memcmp(m + i - 7, "vmlinux", 7) == 0) {
			v = m + i - 7;
			break;
		}
	}
	if (!v)
		return false;
	for (const char *p = v; p < m + n; p++) {
		unsigned char c = (unsigned char)*p;
		if (!(perf_is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      c == '-' || c == '.' || c == '_'))
			return false;
	}
	return true;
}

static bool perf_is_unknown(const char *s, size_t n)
{
	return n == 9 && memcmp(s, "[unknown]", 9) == 0;
}

static bool perf_is_kernel(const char *m, size_t n)
{
	return ((n && m[0] == '[') || perf_ends_with(m, n, ".ko", 3) || perf_is_vmlinux(m, n)) &&
	       !perf_is_unknown(m, n);
}

static bool perf_is_jit(const char *m, size_t n)
{
	return (n >= 10 && memcmp(m, "/tmp/perf-", 10) == 0 && perf_ends_with(m, n, ".map", 4)) ||
	       (perf_contains(m, n, "/jitted-", 8) && perf_ends_with(m, n, ".so", 3));
}

/* Where inferno cuts the argument list: the first '(' at bracket depth 0
 * that neither follows a '.' (Go "pkg.(*T).M") nor opens
 * "(anonymous namespace)". Returns len when nothing is cut. */
static size_t perf_args_cut(const char *s, size_t len)
{
	static const char anon[] = "(anonymous namespace)";
	long depth = 0;

	for (size_t i = 0; i < len; i++) {
		switch (s[i]) {
		case '<': case '{': case '[':
			depth++;
			break;
		case '>': case '}': case ']': case ')':
			depth--;
			break;
		case '(':
			if (depth == 0 && !(i && s[i - 1] == '.') &&
			    !(len - i >= sizeof anon - 1 && memcmp(s + i, anon, sizeof anon - 1) == 0))
				return i;
			depth++;
			break;
		default:
			break;
		}
	}
	return len;
}

/* Ends in "h" + 16 hex digits: a Rust legacy symbol hash. */
static bool perf_rust_hash(const char *s, size_t n)
{
	if (n < 17 || s[n - 17] != 'h')
		return false;
	for (size_t i = n - 16; i < n; i++)
		if (!perf_is_hex((unsigned char)s[i]))
			return false;
	return true;
}

/* inferno's fix for partially demangled Rust symbols (§A.5 step 3), into
 * r->scratch. The output is never longer than the input. */
static const char *perf_rust_fix(struct perf_reader *r, const char *s, size_t *np)
{
	static const struct { const char *pat; size_t len; char rep; } esc[] = {
		{ "$SP$", 4, '@' }, { "$BP$", 4, '*' }, { "$RF$", 4, '&' },
		{ "$LT$", 4, '<' }, { "$GT$", 4, '>' }, { "$LP$", 4, '(' },
		{ "$RP$", 4, ')' }, { "$C$", 3, ',' }, { "$u7e$", 5, '~' },
		{ "$u20$", 5, ' ' }, { "$u27$", 5, '\'' }, { "$u3d$", 5, '=' },
		{ "$u5b$", 5, '[' }, { "$u5d$", 5, ']' }, { "$u7b$", 5, '{' },
		{ "$u7d$", 5, '}' }, { "$u3b$", 5, ';' }, { "$u2b$", 5, '+' },
		{ "$u21$", 5, '!' }, { "$u22$", 5, '"' },
	};
	size_t n = *np - 17, i = 0;
	char *o;

	if (n >= 2 && s[n - 2] == ':' && s[n - 1] == ':')
		n -= 2;
	if (n >= 2 && s[0] == '_' && s[1] == '$') {
		s++;
		n--;
	}
	perf_reserve(&r->scratch, &r->scratchcap, n + 1);
	o = r->scratch;
	while (i < n) {
		if (s[i] == '.') {
			if (i + 1 < n && s[i + 1] == '.') {
				*o++ = ':';
				*o++ = ':';
				i += 2;
			} else {
				*o++ = '.';
				i++;
			}
		} else if (s[i] == '$') {
			size_t k;
			for (k = 0; k < sizeof esc / sizeof esc[0]; k++) {
				if (n - i >= esc[k].len && memcmp(s + i, esc[k].pat, esc[k].len) == 0)
					break;
			}
			if (k == sizeof esc / sizeof esc[0]) {
				/* unknown escape: the rest is copied as is */
				memcpy(o, s + i, n - i);
				o += n - i;
				break;
			}
			*o++ = esc[k].rep;
			i += esc[k].len;
		} else {
			size_t j = i;
			while (j < n && s[j] != '$' && s[j] != '.')
				j++;
			memcpy(o, s + i, j - i);
			o += j - i;
			i = j;
		}
	}
	*np = (size_t)(o - r->scratch);
	return r->scratch;
}

static void perf_push_ent(struct perf_reader *r, size_t off, size_t len)
{
	if (r->nent == r->entcap) {
		r->entcap = r->entcap ? r->entcap * 2 : 64;
		r->ents = xreallocarray(r->ents, r->entcap, sizeof *r->ents);
	}
	r->ents[r->nent].off = off;
	r->ents[r->nent].len = len;
	r->nent++;
}

/* Steps 5-8 for one "->" part: module fallback, tidy_generic, tidy_java,
 * annotation; the name is appended to fbuf. */
static void perf_part(struct perf_reader *r, const char *s, size_t n, bool inlined,
                      const struct perf_frame_parts *fp)
{
	size_t start = r->flen, len, off;
	char *b;

	if (perf_is_unknown(s, n) && (r->o.addrs || !perf_is_unknown(fp->module, fp->module_len))) {
		const char *base = "unknown";
		size_t blen = 7;
		if (!perf_is_unknown(fp->module, fp->module_len)) {
			const char *sl = perf_rchr(fp->module, fp->module_len, '/');
			base = sl ? sl + 1 : fp->module;
			blen = (size_t)(fp->module + fp->module_len - base);
		}
		/* "[" base " <" pc ">]" and a 4-byte annotation */
		perf_reserve(&r->fbuf, &r->fcap, start + blen + fp->pc_len + 9);
		b = r->fbuf + start;
		*b++ = '[';
		memcpy(b, base, blen);
		b += blen;
		if (r->o.addrs) {
			*b++ = ' ';
			*b++ = '<';
			memcpy(b, fp->pc, fp->pc_len);
			b += fp->pc_len;
			*b++ = '>';
		}
		*b++ = ']';
		len = (size_t)(b - (r->fbuf + start));
	} else {
		perf_reserve(&r->fbuf, &r->fcap, start + n + 4);
		memcpy(r->fbuf + start, s, n);
		len = n;
	}
	b = r->fbuf + start;

	/* tidy_generic: drop the argument list, then ';' -> ':' (the cut does
	 * not depend on ';', so the order does not matter) */
	if (memchr(b, '(', len))
		len = perf_args_cut(b, len);
	for (char *q = b, *e = b + len; q < e && (q = memchr(q, ';', (size_t)(e - q))); q++)
		*q = ':';

	/* tidy_java */
	off = start;
	if (r->java && len && b[0] == 'L' && memchr(b, '/', len)) {
		off++;
		len--;
		b++;
	}

	/* annotations; the buffer has 4 spare bytes after the name */
	if (inlined) {
		if (!perf_contains(b, len, "_[i]", 4)) {
			memcpy(b + len, "_[i]", 4);
			len += 4;
		}
	} else if (r->o.kernel && perf_is_kernel(fp->module, fp->module_len)) {
		memcpy(b + len, "_[k]", 4);
		len += 4;
	} else if (r->o.jit && perf_is_jit(fp->module, fp->module_len) &&
	           !perf_contains(b, len, "_[j]", 4)) {
		memcpy(b + len, "_[j]", 4);
		len += 4;
	}
	r->flen = off + len;
	perf_push_ent(r, off, len);
}

/* One parsed frame line (§A.5). perf prints the leaf first; the parts of a
 * line go into ents reversed, so walking ents backwards gives root..leaf. */
static void perf_frame(struct perf_reader *r, const struct perf_frame_parts *fp)
{
	const char *f = fp->func, *p, *end;
	size_t n = fp->func_len, k = n, first = r->nent;

	/* 1. symbol offset: "+0x" followed only by hex digits (maybe none) */
	while (k && perf_is_hex((unsigned char)f[k - 1]))
		k--;
	if (k >= 3 && f[k - 3] == '+' && f[k - 2] == '0' && f[k - 1] == 'x')
		n = k - 3;
	/* 2. "process name" frames */
	if (n && f[0] == '(')
		return;
	/* 3. Rust legacy hashes */
	if (perf_rust_hash(f, n))
		f = perf_rust_fix(r, f, &n);
	/* 4. Java inlining "A->B->C"; 9. prepended as a group */
	p = f;
	end = f + n;
	for (bool inlined = false;; inlined = true) {
		const char *a = p, *arrow = NULL;
		while ((a = memchr(a, '-', (size_t)(end - a))) && a + 1 < end) {
			if (a[1] == '>') {
				arrow = a;
				break;
			}
			a++;
		}
		perf_part(r, p, (size_t)((arrow ? arrow : end) - p), inlined, fp);
		if (!arrow)
			break;
		p = arrow + 2;
	}
	for (size_t i = first, j = r->nent - 1; i < j; i++, j--) {
		struct perf_ent tmp = r->ents[i];
		r->ents[i] = r->ents[j];
		r->ents[j] = tmp;
	}
}

/* ---- records ----------------------------------------------------------- */

/* End of record (§A.6): hand the stack to the tree and reset. */
static void perf_flush(struct perf_reader *r)
{
	if (r->nent) {
		size_t n = r->nent + 1;
		if (n > r->framecap) {
			r->framecap = n > 64 ? n + n / 2 : 64;
			r->frames = xreallocarray(r->frames, r->framecap, sizeof *r->frames);
		}
		r->frames[0].s = r->pname;
		r->frames[0].len = r->pname_len;
		for (size_t i = 0; i < r->nent; i++) {
			const struct perf_ent *e = &r->ents[r->nent - 1 - i];
			r->frames[i + 1].s = r->fbuf + e->off;
			r->frames[i + 1].len = e->len;
		}
		uint64_t w = r->have_period ? r->period : 1;
		tree_idx leaf = tree_add_stack(r->t, r->frames, n, w);
		if (r->tl && r->have_time && r->th_valid)
			timeline_add(r->tl, r->time, leaf, r->th_idx, w);
		r->d.stacks++;
	}
	r->have_time = false;
	r->in_event = false;
	r->skip = false;
	r->payload = false;
	r->have_period = false;
	r->nent = 0;
	r->flen = 0;
}

static void perf_set_pname(struct perf_reader *r, const struct perf_event_parts *ep)
{
	char *o;

	perf_reserve(&r->pname, &r->pname_cap, ep->comm_len + ep->pid_len + ep->tid_len + 3);
	o = r->pname;
	for (size_t i = 0; i < ep->comm_len; i++)
		*o++ = ep->comm[i] == ' ' ? '_' : ep->comm[i];
	if (r->o.tid || r->o.pid) {
		*o++ = '-';
		memcpy(o, ep->pid, ep->pid_len);
		o += ep->pid_len;
		if (r->o.tid) {
			*o++ = '/';
			memcpy(o, ep->tid, ep->tid_len);
			o += ep->tid_len;
		}
	}
	r->pname_len = (size_t)(o - r->pname);
	r->java = r->pname_len >= 4 && memcmp(r->pname, "java", 4) == 0;
	r->fields_pname = false;
}

/* Event filter (§A.3.3): the given one, else the first event name seen. */
static bool perf_event_kept(struct perf_reader *r, const char *ev, size_t n)
{
	if (r->have_filter)
		return n == r->filter_len && memcmp(ev, r->filter, n) == 0;
	perf_reserve(&r->filter, &r->filter_cap, n + 1);
	memcpy(r->filter, ev, n);
	r->filter[n] = '\0';
	r->filter_len = n;
	r->have_filter = true;
	return true;
}

/* The record's thread in the timeline: the one before when the key is
 * the same (most records), else interned. */
static void perf_thread(struct perf_reader *r, int64_t pid, int64_t tid, const char *comm,
                        size_t len)
{
	if (!r->tl)
		return;
	if (len > sizeof r->th_comm)
		len = sizeof r->th_comm;
	if (r->th_valid && pid == r->th_pid && tid == r->th_tid && len == r->th_comm_len &&
	    memcmp(comm, r->th_comm, len) == 0)
		return;
	r->th_idx = timeline_thread(r->tl, pid, tid, comm, len);
	r->th_valid = true;
	r->th_pid = pid;
	r->th_tid = tid;
	memcpy(r->th_comm, comm, len);
	r->th_comm_len = len;
}

/* A decimal word of at most 18 digits as a number; -1 when it is not one
 * ("?" for a missing PID). */
static int64_t perf_id(const char *s, size_t n)
{
	uint64_t v;
	return n && n <= 18 && perf_parse_u64(s, n, &v) ? (int64_t)v : -1;
}

/* TIME, "SECONDS.FRACTION" just before end (the event line's first colon),
 * in ns; false when the word there is not one. */
static bool perf_time(const char *start, const char *end, uint64_t *ns)
{
	const char *p = end, *dot = NULL;
	while (p > start && ((p[-1] >= '0' && p[-1] <= '9') || (p[-1] == '.' && !dot))) {
		if (p[-1] == '.')
			dot = p - 1;
		p--;
	}
	if (p == end || (p > start && p[-1] != ' ' && p[-1] != ']') || !dot || dot == p)
		return false;
	uint64_t sec = 0, frac = 0;
	for (const char *q = p; q < dot; q++) {
		if (sec > (UINT64_MAX / 1000000000u - 9) / 10)
			return false;
		sec = sec * 10 + (uint64_t)(*q - '0');
	}
	unsigned digits = 0;
	for (const char *q = dot + 1; q < end && digits < 9; q++, digits++)
		frac = frac * 10 + (uint64_t)(*q - '0');
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = sec * 1000000000u + frac;
	return true;
}

static void perf_event_line(struct perf_reader *r, const char *s, size_t n)
{
	struct perf_event_parts ep;
	const char *rest, *end = s + n, *c1, *part2 = NULL;

	r->in_event = true;
	if (!perf_event_line_parts(s, n, &ep)) {
		r->in_event = false;
		if (!perf_is_srcline(s, n)) {
			r->weird_events++;
			perf_bad(r, "unrecognized event line", s, n);
		}
		return;
	}
	/* rest = "[CPU] TIME: [PERIOD] EVENT[:MODS]: [payload]", split on the
	 * first two colons */
	rest = s + ep.end;
	c1 = memchr(rest, ':', (size_t)(end - rest));
	r->have_time = false;
	if (c1 && r->tl && perf_time(rest, c1, &r->time)) {
		r->have_time = true;
		perf_thread(r, perf_id(ep.pid, ep.pid_len), perf_id(ep.tid, ep.tid_len), ep.comm,
		            ep.comm_len);
	}
	if (c1) {
		const char *p1 = c1 + 1;
		const char *c2 = memchr(p1, ':', (size_t)(end - p1));
		const char *e1 = c2 ? c2 : end;
		const char *sp = perf_rchr(p1, (size_t)(e1 - p1), ' ');
		const char *ev = sp ? sp + 1 : p1;
		r->have_period = false;
		if (sp) {
			/* perf pads event names to the longest one of the
			 * recording ("1001001  cpu-clock:" beside task-clock):
			 * the period is the word before the padding (inferno
			 * would see an empty word and count 1, Perl's \s+ reads
			 * the period) */
			const char *we = sp;
			while (we > p1 && we[-1] == ' ')
				we--;
			const char *sp2 = perf_rchr(p1, (size_t)(we - p1), ' ');
			const char *tok = sp2 ? sp2 + 1 : p1;
			r->have_period = perf_parse_u64(tok, (size_t)(we - tok), &r->period);
		}
		if (!perf_event_kept(r, ev, (size_t)(e1 - ev))) {
			/* inferno keeps in_event set: frames are ignored until a
			 * blank line */
			r->skip = true;
			return;
		}
		if (c2)
			part2 = c2 + 1;
	}
	perf_set_pname(r, &ep);
	if (part2) {
		/* drop a modifier ("u:") or one space, then a single-line frame
		 * may follow */
		const char *q = part2, *st;
		size_t sl;
		struct perf_frame_parts fp;
		while (q < end && *q != ':' && *q != ' ')
			q++;
		st = q < end ? q + 1 : part2;
		sl = (size_t)(end - st);
		perf_trim(&st, &sl);
		if (sl) {
			if (perf_frame_line_parts(st, sl, &fp)) {
				perf_frame(r, &fp);
				r->in_event = false;
			} else {
				/* §A.10 (a): a tracepoint payload, not a frame; the
				 * record's frames follow */
				r->payload = true;
			}
		}
	}
	if (r->nent)
		perf_flush(r);
}

static void perf_frame_line(struct perf_reader *r, const char *s, size_t n)
{
	struct perf_frame_parts fp;
	struct perf_event_parts ep;

	if (r->skip)
		return;
	if (perf_frame_line_parts(s, n, &fp)) {
		r->payload = false;
		perf_frame(r, &fp);
		return;
	}
	if (r->payload && r->nent == 0 && perf_event_line_parts(s, n, &ep)) {
		/* tracepoint samples without callchains: one line each, no
		 * blank lines; the previous record has no frames to lose.
		 * Before the srcline rule: a payload may end in ":123". */
		r->in_event = false;
		r->payload = false;
		perf_event_line(r, s, n);
		return;
	}
	if (perf_is_srcline(s, n))
		return;
	r->weird_stacks++;
	perf_bad(r, "unrecognized frame line", s, n);
}

/* One line without its '\n' (§A.2). */
static void perf_line(struct perf_reader *r, const char *s, size_t n)
{
	r->d.lines++;
	if (n && s[0] == '#')
		return;
	n = perf_rtrim(s, n);
	if (!n)
		perf_flush(r);
	else if (r->in_event)
		perf_frame_line(r, s, n);
	else
		perf_event_line(r, s, n);
}

/* ---- records as fields ------------------------------------------------- */

bool perf_reader_record(struct perf_reader *r, const char *comm, size_t comm_len,
                        int32_t pid, int32_t tid, const char *event, size_t event_len,
                        bool have_period, uint64_t period)
{
	/* The event line perf script -F+pid prints, "COMM PID/TID ", parsed
	 * as text is: a name with digit words or spaces splits the same. */
	char line[64 + 2 * 12];
	struct perf_event_parts ep;
	const char *colon = memchr(event, ':', event_len);
	size_t n;

	if (r->nent)
		perf_flush(r);
	r->d.lines++;
	r->started = true;
	if (comm_len > 64)
		comm_len = 64;
	if (colon)
		event_len = (size_t)(colon - event);
	if (!perf_event_kept(r, event, event_len)) {
		r->skip = true;
		return false;
	}
	r->skip = false;
	r->have_period = have_period;
	r->period = period;
	r->have_time = false;
	perf_thread(r, pid, tid, comm, comm_len);
	if (r->fields_pname && pid == r->last_pid && tid == r->last_tid && comm_len == r->last_comm_len &&
	    memcmp(comm, r->last_comm, comm_len) == 0)
		return true;    /* the same thread as the record before: its root */
	memcpy(line, comm, comm_len);
	n = comm_len + (size_t)snprintf(line + comm_len, sizeof line - comm_len, " %" PRId32 "/%" PRId32 " ",
	                                pid, tid);
	/* a name from perf.data may hold line breaks, which text cannot:
	 * they would split a folded line in two */
	for (size_t i = 0; i < comm_len; i++)
		if (line[i] == '\n' || line[i] == '\r')
			line[i] = ' ';
	if (perf_event_line_parts(line, n, &ep)) {
		perf_set_pname(r, &ep);
	} else {
		/* no PID/TID to split on (samples without them): the name */
		ep.comm = line;
		ep.comm_len = comm_len;
		perf_trim(&ep.comm, &ep.comm_len);
		ep.pid = ep.tid = "?";
		ep.pid_len = ep.tid_len = 1;
		perf_set_pname(r, &ep);
	}
	r->fields_pname = true;
	memcpy(r->last_comm, comm, comm_len);
	r->last_comm_len = comm_len;
	r->last_pid = pid;
	r->last_tid = tid;
	return true;
}

/* s[0..n), or a copy in *buf with its line breaks made spaces when it has
 * some (names from perf.data; text lines cannot hold them). */
static const char *perf_no_breaks(char **buf, size_t *cap, const char *s, size_t n)
{
	if (!memchr(s, '\n', n) && !memchr(s, '\r', n))
		return s;
	perf_reserve(buf, cap, n);
	for (size_t i = 0; i < n; i++)
		(*buf)[i] = s[i] == '\n' || s[i] == '\r' ? ' ' : s[i];
	return *buf;
}

void perf_reader_frame(struct perf_reader *r, const char *pc, size_t pc_len,
                       const char *sym, size_t sym_len, const char *dso, size_t dso_len)
{
	struct perf_frame_parts fp;

	if (r->skip)
		return;
	perf_trim(&sym, &sym_len);
	if (!sym_len) {
		sym = " ";
		sym_len = 1;
	}
	/* as for names in perf_reader_record: no line breaks */
	sym = perf_no_breaks(&r->scratch2, &r->scratch2cap, sym, sym_len);
	dso = perf_no_breaks(&r->scratch3, &r->scratch3cap, dso, dso_len);
	fp.pc = pc;
	fp.pc_len = pc_len;
	fp.func = sym;
	fp.func_len = sym_len;
	fp.module = dso;
	fp.module_len = dso_len;
	perf_frame(r, &fp);
}

void perf_reader_set_timeline(struct perf_reader *r, struct timeline *tl)
{
	r->tl = tl;
	r->th_valid = false;
}

void perf_reader_record_time(struct perf_reader *r, uint64_t ns)
{
	r->time = ns;
	r->have_time = true;
}

void perf_reader_record_end(struct perf_reader *r)
{
	if (!r->skip && r->nent)
		perf_flush(r);
	r->skip = false;
	r->nent = 0;
	r->flen = 0;
}

/* ---- the frame cache ---------------------------------------------------- */

#define PERF_CACHE_MAX_BLOB ((size_t)64 << 20)

static size_t perf_cache_slot(const struct perf_reader *r, const void *obj, uint64_t addr, uint32_t variant)
{
	uint64_t h = ((uint64_t)(uintptr_t)obj * 0x9E3779B97F4A7C15ull) ^ (addr * 0xC2B2AE3D27D4EB4Full) ^ variant;
	h ^= h >> 29;
	size_t mask = r->cache_cap - 1, i = (size_t)(h * 0x9E3779B97F4A7C15ull >> 20) & mask;
	while (r->cache[i].variant != UINT32_MAX &&
	       !(r->cache[i].obj == obj && r->cache[i].addr == addr && r->cache[i].variant == variant))
		i = (i + 1) & mask;
	return i;
}

static uint32_t perf_cache_variant(const struct perf_reader *r, unsigned variant)
{
	/* Java's tidying depends on the process name */
	return (uint32_t)((variant & 0x7fffffffu) << 1 | (r->java ? 1u : 0u));
}

bool perf_reader_cached(struct perf_reader *r, const void *obj, uint64_t addr, unsigned variant)
{
	if (r->skip || !r->cache_cap)
		return false;
	uint32_t v = perf_cache_variant(r, variant);
	const struct perf_cent *e = &r->cache[perf_cache_slot(r, obj, addr, v)];
	if (e->variant == UINT32_MAX)
		return false;
	const char *b = r->blob + e->off;
	uint32_t n, len;
	memcpy(&n, b, 4);
	b += 4;
	for (uint32_t k = 0; k < n; k++) {
		memcpy(&len, b, 4);
		b += 4;
		perf_reserve(&r->fbuf, &r->fcap, r->flen + len);
		memcpy(r->fbuf + r->flen, b, len);
		perf_push_ent(r, r->flen, len);
		r->flen += len;
		b += len;
	}
	return true;
}

void perf_reader_cache_begin(struct perf_reader *r)
{
	r->cache_from = r->nent;
}

void perf_reader_cache_end(struct perf_reader *r, const void *obj, uint64_t addr, unsigned variant)
{
	if (r->skip || r->nent < r->cache_from)
		return;
	size_t n = r->nent - r->cache_from, need = 4;
	for (size_t k = r->cache_from; k < r->nent; k++)
		need += 4 + r->ents[k].len;
	if (r->blob_len + need > PERF_CACHE_MAX_BLOB || need > UINT32_MAX) {
		/* full: start over rather than grow without bound */
		r->blob_len = 0;
		r->cache_n = 0;
		for (size_t i = 0; i < r->cache_cap; i++)
			r->cache[i].variant = UINT32_MAX;
		if (need > PERF_CACHE_MAX_BLOB)
			return;
	}
	if ((r->cache_n + 1) * 2 > r->cache_cap) {
		size_t cap = r->cache_cap ? r->cache_cap * 2 : 4096;
		struct perf_cent *old = r->cache;
		size_t oldcap = r->cache_cap;
		r->cache = xreallocarray(NULL, cap, sizeof *r->cache);
		r->cache_cap = cap;
		for (size_t i = 0; i < cap; i++)
			r->cache[i].variant = UINT32_MAX;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].variant != UINT32_MAX)
				r->cache[perf_cache_slot(r, old[i].obj, old[i].addr, old[i].variant)] = old[i];
		free(old);
	}
	uint32_t v = perf_cache_variant(r, variant);
	size_t slot = perf_cache_slot(r, obj, addr, v);
	if (r->cache[slot].variant != UINT32_MAX)
		return;
	perf_reserve(&r->blob, &r->blob_cap, r->blob_len + need);
	char *b = r->blob + r->blob_len;
	uint32_t n32 = (uint32_t)n;
	memcpy(b, &n32, 4);
	b += 4;
	for (size_t k = r->cache_from; k < r->nent; k++) {
		uint32_t len = (uint32_t)r->ents[k].len;
		memcpy(b, &len, 4);
		memcpy(b + 4, r->fbuf + r->ents[k].off, len);
		b += 4 + len;
	}
	r->cache[slot].obj = obj;
	r->cache[slot].addr = addr;
	r->cache[slot].variant = v;
	r->cache[slot].off = (uint32_t)r->blob_len;
	r->blob_len += need;
	r->cache_n++;
}

void perf_reader_record_clear(struct perf_reader *r)
{
	r->nent = 0;
	r->flen = 0;
}

/* ---- public ------------------------------------------------------------ */

struct perf_reader *perf_reader_new(struct tree *t, const struct perf_options *o)
{
	struct perf_reader *r = xcalloc(1, sizeof *r);

	r->t = t;
	r->o = *o;
	if (r->o.tid)
		r->o.pid = true;
	r->o.event_filter = NULL;
	if (o->event_filter) {
		size_t n = strlen(o->event_filter);
		perf_reserve(&r->filter, &r->filter_cap, n + 1);
		memcpy(r->filter, o->event_filter, n + 1);
		r->filter_len = n;
		r->have_filter = true;
	}
	return r;
}

void perf_reader_feed(struct perf_reader *r, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	if (!r->started && len) {
		r->started = true;
		if (r->o.mid_stream)
			goto lines;
		/* §A.10 (e): a UTF-8 byte order mark */
		if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
			p += 3;
	}
lines:
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		perf_line(r, p, (size_t)(le - p));
		p = nl ? nl + 1 : end;
	}
}

void perf_reader_finish(struct perf_reader *r)
{
	/* the last record counts without a final blank line */
	if (r->nent)
		perf_flush(r);
}

const char *perf_reader_filter(const struct perf_reader *r)
{
	return r->have_filter ? r->filter : NULL;
}

const struct reader_diag *perf_reader_diag(const struct perf_reader *r)
{
	return &r->d;
}

uint64_t perf_reader_weird_events(const struct perf_reader *r)
{
	return r->weird_events;
}

uint64_t perf_reader_weird_stacks(const struct perf_reader *r)
{
	return r->weird_stacks;
}

void perf_reader_free(struct perf_reader *r)
{
	if (!r)
		return;
	free(r->filter);
	free(r->pname);
	free(r->fbuf);
	free(r->ents);
	free(r->frames);
	free(r->scratch);
	free(r->scratch2);
	free(r->scratch3);
	free(r->cache);
	free(r->blob);
	free(r);
}
