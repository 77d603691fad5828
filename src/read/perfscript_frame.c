/* perfscript_frame: what one frame line becomes (SPEC.md §A.5, inferno's
 * semantics): the symbol offset cut, Rust legacy hashes fixed, Java's
 * "A->B" inlining split, the argument list cut, tidy_java, and the _[k],
 * _[j], _[i] annotations; the names go to the pending record's buffer.
 * Also the frame cache: the perf.data reader resolves the same addresses
 * over and over, and replays the frames they became. */
#include "config.h"
#include "perfscript_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "dsomap.h"

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
	r->ents[r->nent].obj = r->cur_obj;
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

/* perf prints the leaf first; the parts of a
 * line go into ents reversed, so walking ents backwards gives root..leaf. */
void perf_frame(struct perf_reader *r, const struct perf_frame_parts *fp)
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
	r->cur_obj = r->dsos ? dsomap_object(r->dsos, fp->module, fp->module_len) : 0;
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
		memcpy(&r->cur_obj, b + 4, 4);
		b += 8;
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
		need += 8 + r->ents[k].len;
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
		memcpy(b + 4, &r->ents[k].obj, 4);
		memcpy(b + 8, r->fbuf + r->ents[k].off, len);
		b += 8 + len;
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
