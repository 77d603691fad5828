/* perfscript_impl: what the files of the perf script reader share, and
 * no one else sees: the reader's state, byte helpers, and the functions one
 * file calls in another.
 *
 *   perfscript.c        records: event lines, the event filter, record
 *                       ends handed to the tree (and the timeline); records
 *                       given as fields (perf.data); diagnostics; the
 *                       public entry
 *   perfscript_lines.c  the grammar of lines: event line and frame line
 *                       parts, srcline lines, trimming (shared with sniff)
 *   perfscript_frame.c  the per-frame pipeline (SPEC §A.5): offsets, Rust
 *                       hashes, Java inlining, tidying, annotations; and the
 *                       frame cache the perf.data reader fills
 */
#ifndef TFLAME_PERFSCRIPT_IMPL_H
#define TFLAME_PERFSCRIPT_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "perfscript.h"
#include "xalloc.h"

/* A frame name of the pending record: a span of r->fbuf (offsets, because
 * fbuf moves when it grows). */
struct perf_ent {
	size_t off, len;
	uint32_t obj;           /* its object (dsomap_object), 0 unknown */
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
	struct dsomap *dsos;    /* NULL: objects are not kept */
	uint32_t cur_obj;       /* the object of the frame line being read */
	uint32_t *leaf_objs;    /* by leaf: a hash of the objects of the last
	                           stack noted there (0: none), so that a stack
	                           seen before is not walked again */
	size_t leaf_cap;
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
	struct perf_events evs; /* records per event, for o.events */
	size_t ev_last;         /* the entry of the last record's event */
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

static inline void perf_reserve(char **buf, size_t *cap, size_t need)
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
static inline bool perf_uws(const unsigned char *s, size_t n)
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
static inline size_t perf_rtrim(const char *s, size_t n)
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
static inline size_t perf_ltrim(const char *s, size_t n)
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

/* Last c in s[0..n), or NULL (memrchr is not portable). */
static inline const char *perf_rchr(const char *s, size_t n, char c)
{
	while (n--)
		if (s[n] == c)
			return s + n;
	return NULL;
}

static inline bool perf_contains(const char *s, size_t n, const char *pat, size_t plen)
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

static inline bool perf_ends_with(const char *s, size_t n, const char *suf, size_t slen)
{
	return n >= slen && memcmp(s + n - slen, suf, slen) == 0;
}

/* Rust's u64 parse: an optional '+', then one or more digits, no overflow. */
static inline bool perf_parse_u64(const char *s, size_t n, uint64_t *out)
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

/* ---- perfscript_lines.c -------------------------------------------------- */

/* True for a `perf script -F+srcline` line ("  file.c:123", "  dso[1a2b]"),
 * which is skipped without a warning (SPEC §A.10 c). */
bool perf_is_srcline(const char *s, size_t n);

/* ---- perfscript_frame.c -------------------------------------------------- */

/* One parsed frame line (§A.5) added to the pending record's frames. */
void perf_frame(struct perf_reader *r, const struct perf_frame_parts *fp);

#endif
