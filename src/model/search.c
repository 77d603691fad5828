/* search: see search.h. A pass has two phases, both resumable:
 *   1. names: one regex match (rx.h) per strtab id into hit[id] (the cost
 *      scales with the distinct names, which is what makes typing
 *      affordable); plain text is compared without the regex engine,
 *      after the name's signature (searchidx.h, when given) has not ruled
 *      it out; an exact-name search is one store;
 *   2. nodes: one preorder scan that marks the matching frames in a bitmap
 *      (bits[], a bit per node: preorder is index order) and sums the
 *      samples of the outermost matches of the whole tree.
 * Everything afterwards works on the bitmap, with a count of its bits per
 * block of 512 for ordinals. */
#include "config.h"
#include "search.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <time.h>
#include "rx.h"
#include "text.h"
#include "searchidx.h"
#include "xalloc.h"

/* Clock reads are not free: look at it every this many names / nodes. */
#define NAMES_PER_CHECK 256u
/* A regex match may take up to about a millisecond (rx.h): the clock is
 * read this often then, so that a slice overruns its budget by little. */
#define NAMES_PER_CHECK_RX 8u
#define NODES_PER_CHECK 16384u
/* Phase 1 of a plain-text search over at least this many names is shared
 * with a second thread (an rx is one thread's at a time: not for it). */
#define NAMES_PARALLEL 65536u
/* Phase 2 over at least this many nodes likewise (any search). */
#define NODES_PARALLEL 262144u

static int search_threads = 1;

void search_set_threads(int n)
{
	search_threads = n < 1 ? 1 : n;
}

int search_get_threads(void)
{
	return search_threads;
}

struct search {
	unsigned refs;          /* holders; freed with the last (search_free) */
	const struct tree *t;
	char *pattern;
	bool icase;
	struct rx *re;          /* NULL: exact name search (exact_*) */
	/* The pattern as plain ASCII alternatives, each maybe anchored
	 * ("read|write", "^std::", "_[k]$"): tested without the regex. */
	struct search_lit {
		char *text;         /* lower case when icase */
		size_t len;
		bool head, tail;    /* anchored at the start, at the end */
		uint64_t need;      /* searchidx classes a matching name has */
		bool one;           /* a name has `need` iff it matches (one
		                       character of an exact class, unanchored) */
	} *lits;
	size_t nlits;           /* 0: the regex */
	size_t *lit_order;      /* lits by length: a name matched by a short
	                           one ("w" in "read|w") skips the longer scans */
	/* An exact-name search: a copy of the name's bytes (the search may
	 * outlive its tree: a transform frees it before the search is made
	 * again on the new one). */
	char *exact_name;
	size_t exact_len;
	/* From a searchidx (search_use_index), else NULL: */
	const uint64_t *sig;    /* character classes by name id */
	const uint16_t *n16;    /* name ids by node index, one of the two */
	const uint32_t *n32;

	uint8_t *hit;           /* by name id: 1 when the name matches */
	size_t names_done;      /* ids [0, names_done) are decided */
	/* A helper thread decides ids [split, names) while search_run does
	 * [0, split); it stops early when `cancel` is set (search_free). */
	size_t split;
	bool helper_on;
	pthread_t helper;
	atomic_bool cancel;
	/* Phase 2 likewise: the helper marks the matches among nodes
	 * [node_split, n), a multiple of 64 (whole words of bits[]);
	 * node_split 0: not decided yet. */
	size_t node_split;
	bool alone;             /* search_pause: no more helpers */
	/* The helper's outermost matches as if nothing before node_split
	 * matched. Every match before node_split ends by the end of the last
	 * outermost one before it (cover_end), so the real outermost matches
	 * of the helper's part are those of hchain from cover_end on. */
	tree_idx *hchain;
	size_t nhchain, caphchain;
	tree_idx *outer;        /* the main thread's outermost matches of a slice */
	size_t nouter, capouter;
	bool narrowed;          /* hit[] starts as a wider search's: only its
	                           hits are tested (search_narrow) */
	size_t nodes_done;      /* nodes [0, nodes_done) are scanned */
	bool done;

	uint64_t *bits;         /* bit i of word i / 64: node i matches */
	uint32_t *rank;         /* set bits before each block of 512 (when done) */
	size_t nmatch;          /* set bits (when done) */
	tree_idx cover_end;     /* end of the last outermost match seen */
	tree_count root_total;  /* search_total(s, root) */

	tree_idx cache_z;       /* search_total's last answer */
	tree_count cache_total;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct search *alloc_search(const struct tree *t)
{
	struct search *s = xcalloc(1, sizeof *s);
	s->refs = 1;
	s->t = t;
	s->hit = xcalloc(strtab_count(&t->names) ? strtab_count(&t->names) : 1, 1);
	s->bits = xmalloc((tree_size(t) / 64 + 1) * sizeof *s->bits);
	s->cache_z = TREE_NONE;
	return s;
}

/* Plain ASCII text, the common case when typing a function name, and
 * alternatives of it, maybe anchored ("read|write", "^std::"): a substring,
 * prefix or suffix test is faster than any regex engine's setup per
 * name, and means the same. A backslash before punctuation is that
 * character. Anything else (classes, groups, repetition) leaves s->nlits
 * 0: the regex. */
static void split_literals(struct search *s, const char *pattern)
{
	size_t n = 1;
	for (const char *p = pattern; *p; p++)
		n += *p == '|';
	s->lits = xcalloc(n, sizeof *s->lits);
	char *buf = xmalloc(strlen(pattern) + 1);
	const char *p = pattern;
	for (;;) {
		struct search_lit *l = &s->lits[s->nlits];
		size_t len = 0;
		if (*p == '^') {
			l->head = true;
			p++;
		}
		for (; *p && *p != '|'; p++) {
			char c = *p;
			if (c == '$' && (p[1] == '\0' || p[1] == '|')) {
				l->tail = true;
				continue;
			}
			if (c == '\\' && p[1] && strchr(".[]()*+?{}|^$\\", p[1]))
				c = *++p;
			else if (c < 0x20 || c >= 0x7f || strchr(".[]()*+?{}^$\\", c))
				goto regex;
			if (s->icase && c >= 'A' && c <= 'Z')
				c = (char)(c - 'A' + 'a');
			buf[len++] = c;
		}
		/* An empty alternative ("read|" while typing, "^") matches
		 * every name, "^$" only an empty one: both are literals too. */
		l->text = xmalloc(len + 1);
		memcpy(l->text, buf, len);
		l->text[len] = '\0';
		l->len = len;
		for (size_t k = 0; k < len; k++)
			l->need |= searchidx_bit((unsigned char)buf[k]);
		/* A case-sensitive letter's class holds the other case too. */
		unsigned char c0 = len ? (unsigned char)buf[0] : 0;
		l->one = len == 1 && !l->head && !l->tail && l->need &&
		         (s->icase || !((c0 | 0x20) >= 'a' && (c0 | 0x20) <= 'z'));
		s->nlits++;
		if (*p != '|')
			break;
		p++;
	}
	free(buf);
	/* Stable insertion sort of the indices by length: alternatives are few. */
	s->lit_order = xcalloc(s->nlits, sizeof *s->lit_order);
	for (size_t k = 0; k < s->nlits; k++) {
		size_t j = k;
		while (j > 0 && s->lits[s->lit_order[j - 1]].len > s->lits[k].len) {
			s->lit_order[j] = s->lit_order[j - 1];
			j--;
		}
		s->lit_order[j] = k;
	}
	return;
regex:
	free(buf);
	for (size_t k = 0; k < s->nlits; k++)
		free(s->lits[k].text);
	free(s->lits);
	s->lits = NULL;
	s->nlits = 0;
}

struct search *search_new(const struct tree *t, const char *pattern, char *err, size_t errsize)
{
	if (!pattern[0]) {
		if (errsize)
			text_sanitize("empty pattern", 13, err, errsize);
		return NULL;
	}
	struct rx *re = rx_new(pattern, strlen(pattern), RX_CASE_SMART, err, errsize);
	if (!re)
		return NULL;
	struct search *s = alloc_search(t);
	s->pattern = xstrdup(pattern);
	s->icase = rx_icase(re);
	s->re = re;
	split_literals(s, pattern);
	return s;
}

/* Whether every name that literal a matches is matched by b too: b's text
 * inside a's, with the same anchors (as a prefix, a suffix, or equal). */
static bool lit_within(const struct search_lit *a, const struct search_lit *b)
{
	if (a->head != b->head || a->tail != b->tail || b->len > a->len)
		return false;
	if (a->head && a->tail)
		return a->len == b->len && memcmp(a->text, b->text, a->len) == 0;
	if (a->head)
		return memcmp(a->text, b->text, b->len) == 0;
	if (a->tail)
		return memcmp(a->text + a->len - b->len, b->text, b->len) == 0;
	return strstr(a->text, b->text) != NULL;    /* texts hold no NUL */
}

void search_narrow(struct search *s, const struct search *prev)
{
	if (!prev || prev->t != s->t || s->nlits == 0 || s->nlits != prev->nlits ||
	    s->icase != prev->icase || s->names_done != 0 ||
	    prev->names_done != strtab_count(&s->t->names))
		return;
	/* Alternative by alternative, as typing extends one of them
	 * ("read|w" then "read|wr", "^std:" then "^std::"). */
	for (size_t k = 0; k < s->nlits; k++)
		if (!lit_within(&s->lits[k], &prev->lits[k]))
			return;
	memcpy(s->hit, prev->hit, strtab_count(&s->t->names));
	s->narrowed = true;
}

void search_use_index(struct search *s, const struct searchidx *x)
{
	s->sig = searchidx_sigs(x);
	s->n16 = searchidx_names16(x);
	s->n32 = searchidx_names32(x);
}

bool search_is_narrowed(const struct search *s)
{
	return s->narrowed;
}

struct search *search_new_exact(const struct tree *t, strtab_id name)
{
	struct search *s = alloc_search(t);
	const char *bytes = strtab_str(&t->names, name);
	size_t len = strtab_len(&t->names, name);
	s->pattern = search_quote(bytes, len);
	s->exact_name = xmalloc(len ? len : 1);
	memcpy(s->exact_name, bytes, len);
	s->exact_len = len;
	/* One name: phase 1 is a single store. */
	s->hit[name] = 1;
	s->names_done = strtab_count(&t->names);
	return s;
}

struct search *search_new_exact_bytes(const struct tree *t, const char *name, size_t len)
{
	int64_t id = strtab_find(&t->names, name, len);
	if (id > 0)         /* id 0 is the root's "all": never a match */
		return search_new_exact(t, (strtab_id)id);
	struct search *s = alloc_search(t);
	s->pattern = search_quote(name, len);
	s->exact_name = xmalloc(len ? len : 1);
	memcpy(s->exact_name, name, len);
	s->exact_len = len;
	s->names_done = strtab_count(&t->names);
	return s;
}

const char *search_exact_name(const struct search *s, size_t *len)
{
	if (s->re)
		return NULL;
	*len = s->exact_len;
	return s->exact_name;
}

size_t search_costly(const struct search *s)
{
	return s->re ? rx_costly(s->re) : 0;
}

void search_pause(struct search *s)
{
	if (!s)
		return;
	s->alone = true;
	if (!s->helper_on)
		return;
	atomic_store(&s->cancel, true);
	pthread_join(s->helper, NULL);
	s->helper_on = false;
	/* What the helper did is done again: the same answers. */
	if (s->names_done < strtab_count(&s->t->names)) {
		s->split = strtab_count(&s->t->names);
	} else {
		s->node_split = tree_size(s->t);
		s->nhchain = 0;
	}
}

struct search *search_ref(struct search *s)
{
	if (s)
		s->refs++;
	return s;
}

void search_free(struct search *s)
{
	if (!s || --s->refs > 0)
		return;
	if (s->helper_on) {
		atomic_store(&s->cancel, true);
		pthread_join(s->helper, NULL);
	}
	rx_free(s->re);
	free(s->exact_name);
	free(s->pattern);
	for (size_t k = 0; k < s->nlits; k++)
		free(s->lits[k].text);
	free(s->lits);
	free(s->lit_order);
	free(s->hit);
	free(s->bits);
	free(s->rank);
	free(s->hchain);
	free(s->outer);
	free(s);
}

const char *search_pattern(const struct search *s) { return s->pattern; }
bool search_icase(const struct search *s) { return s->icase; }
bool search_done(const struct search *s) { return s->done; }

double search_progress(const struct search *s)
{
	/* Phase 1 usually dominates (a regex match against a few loads per node). */
	double names = (double)strtab_count(&s->t->names), nodes = (double)tree_size(s->t);
	double a = names > 0 ? (double)s->names_done / names : 1.0;
	double b = nodes > 0 ? (double)s->nodes_done / nodes : 1.0;
	return s->done ? 1.0 : 0.9 * a + 0.1 * b;
}


/* Whether s[0..m) equals p[0..m), ASCII letters of s folded when icase
 * (p is lower case then). */
static bool same_text(const char *s, const char *p, size_t m, bool icase)
{
	if (!icase)
		return memcmp(s, p, m) == 0;
	for (size_t k = 0; k < m; k++) {
		unsigned char x = (unsigned char)s[k];
		if (x >= 'A' && x <= 'Z')
			x = (unsigned char)(x - 'A' + 'a');
		if (x != (unsigned char)p[k])
			return false;
	}
	return true;
}

static inline unsigned char upper_of(unsigned char c)
{
	return c >= 'a' && c <= 'z' ? (unsigned char)(c - 'a' + 'A') : c;
}

/* Whether p[0..m) (m >= 1; lower case when icase) occurs in s[0..n), ASCII
 * letters of s folded when icase. Names are short (tens of bytes) and
 * there are millions: a library memmem sets up its algorithm on every
 * call, which costs more than the search. Here 16 positions at a time are
 * kept only when both the first and the last byte of p are there (either
 * case), and only those are compared in full. */
static bool find_text(const char *s, size_t n, const char *p, size_t m, bool icase)
{
	if (m > n)
		return false;
	unsigned char f = (unsigned char)p[0], l = (unsigned char)p[m - 1];
	unsigned char fu = icase ? upper_of(f) : f, lu = icase ? upper_of(l) : l;
	size_t i = 0;
#ifdef __SSE2__
	const __m128i vf = _mm_set1_epi8((char)f), vfu = _mm_set1_epi8((char)fu);
	const __m128i vl = _mm_set1_epi8((char)l), vlu = _mm_set1_epi8((char)lu);
	/* The last block overlaps the one before so that it ends at the last
	 * position, instead of a byte-by-byte tail (most of a name's length). */
	size_t last = n - m + 1;    /* positions to try: [0, last) */
	for (bool end = false; !end && last >= 16;) {
		if (i + 16 > last) {
			i = last - 16;
			end = true;
		}
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i z = _mm_loadu_si128((const __m128i *)(const void *)(s + i + m - 1));
		__m128i hf = _mm_or_si128(_mm_cmpeq_epi8(a, vf), _mm_cmpeq_epi8(a, vfu));
		__m128i hl = _mm_or_si128(_mm_cmpeq_epi8(z, vl), _mm_cmpeq_epi8(z, vlu));
		unsigned mask = (unsigned)_mm_movemask_epi8(_mm_and_si128(hf, hl));
		while (mask) {
			unsigned k = (unsigned)__builtin_ctz(mask);
			if (same_text(s + i + k, p, m, icase))
				return true;
			mask &= mask - 1;
		}
		i += 16;
		if (i == last)
			end = true;
	}
	if (last >= 16)
		return false;
#endif
	for (; i + m <= n; i++) {
		unsigned char c = (unsigned char)s[i], e = (unsigned char)s[i + m - 1];
		if ((c == f || c == fu) && (e == l || e == lu) && same_text(s + i, p, m, icase))
			return true;
	}
	return false;
}

static bool lit_matches(const struct search *s, const struct search_lit *l, const char *name, size_t n)
{
	if (l->len > n)
		return false;
	if (l->len == 0)
		return !(l->head && l->tail) || n == 0;
	if (l->head && l->tail)
		return l->len == n && same_text(name, l->text, n, s->icase);
	if (l->head)
		return same_text(name, l->text, l->len, s->icase);
	if (l->tail)
		return same_text(name + n - l->len, l->text, l->len, s->icase);
	return find_text(name, n, l->text, l->len, s->icase);
}

static bool name_matches(const struct search *s, strtab_id id)
{
	const struct strtab *st = &s->t->names;
	if (s->nlits) {
		/* The signature first (it covers the whole name, as the match
		 * does): most names are decided without being read. */
		uint64_t g = s->sig ? s->sig[id] : UINT64_MAX;
		for (size_t k = 0; k < s->nlits; k++) {
			const struct search_lit *l = &s->lits[s->lit_order[k]];
			if ((g & l->need) != l->need)
				continue;
			if (s->sig && l->one)
				return true;
			if (lit_matches(s, l, strtab_str(st, id), strtab_len(st, id)))
				return true;
		}
		return false;
	}
	/* Too costly (a limit stopped it) is no match: rx counts it. */
	return rx_matches(s->re, strtab_str(st, id), strtab_len(st, id));
}

static void count_add(const struct tree *t, tree_count *sum, tree_count c)
{
	(void)t;
	sum->u += c.u;     /* outermost matches are disjoint: <= root total */
}

/* Decides the names [lo, hi) into hit[]. */
static void decide_names(struct search *s, size_t lo, size_t hi)
{
	if (s->narrowed) {
		for (size_t id = lo; id < hi; id++)
			if (s->hit[id])
				s->hit[id] = name_matches(s, (strtab_id)id);
	} else {
		for (size_t id = lo; id < hi; id++)
			s->hit[id] = name_matches(s, (strtab_id)id);
	}
}

/* Appends i to the growing array *a (*n used, *cap allocated). */
static void push_idx(tree_idx **a, size_t *n, size_t *cap, tree_idx i)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		*a = xreallocarray(*a, *cap, sizeof **a);
	}
	(*a)[(*n)++] = i;
}

/* Marks in bits[] the matches among nodes [w0 * 64, w1 * 64) (clipped to
 * the tree), a word at a time. Whether a frame matches is close to random:
 * no branch on it. */
static void scan_words(struct search *s, size_t w0, size_t w1)
{
	const uint8_t *hit = s->hit;
	size_t n = tree_size(s->t);
	for (size_t w = w0; w < w1; w++) {
		size_t lo = w * 64, hi = lo + 64 < n ? lo + 64 : n;
		uint64_t m = 0;
		if (s->n16) {
			for (size_t i = lo; i < hi; i++)
				m |= (uint64_t)(hit[s->n16[i]] != 0) << (i - lo);
		} else if (s->n32) {
			for (size_t i = lo; i < hi; i++)
				m |= (uint64_t)(hit[s->n32[i]] != 0) << (i - lo);
		} else {
			for (size_t i = lo; i < hi; i++)
				m |= (uint64_t)(hit[tree_node(s->t, (tree_idx)i)->name] != 0) << (i - lo);
		}
		if (w == 0)
			m &= ~(uint64_t)1;  /* the root is never a match */
		s->bits[w] = m;
	}
}

/* The first set bit of bits[] in [from, limit), or limit. */
static size_t next_bit(const uint64_t *bits, size_t from, size_t limit)
{
	if (from >= limit)
		return limit;
	size_t w = from / 64;
	uint64_t m = bits[w] & (~(uint64_t)0 << (from % 64));
	while (!m) {
		if (++w * 64 >= limit)
			return limit;
		m = bits[w];
	}
	size_t i = w * 64 + (size_t)__builtin_ctzll(m);
	return i < limit ? i : limit;
}

/* The last set bit of bits[] below `before`, or SIZE_MAX. */
static size_t prev_bit(const uint64_t *bits, size_t before)
{
	if (before == 0)
		return SIZE_MAX;
	size_t w = (before - 1) / 64;
	unsigned top = (unsigned)((before - 1) % 64);
	uint64_t m = bits[w] & (top == 63 ? ~(uint64_t)0 : ((uint64_t)2 << top) - 1);
	while (!m) {
		if (w == 0)
			return SIZE_MAX;
		m = bits[--w];
	}
	return w * 64 + 63 - (size_t)__builtin_clzll(m);
}

/* Appends to *a (*n used, *cap allocated) the matches of nodes [lo, hi)
 * that no match from *cover on contains, in order, moving *cover past
 * each. Their nodes are asked for OUTER_AHEAD at a time before any is
 * read: outermost matches are often a million scattered nodes. */
#define OUTER_AHEAD 32
static void outermost(const struct search *s, size_t lo, size_t hi, size_t *cover,
                      tree_idx **a, size_t *n, size_t *cap)
{
	size_t pos[OUTER_AHEAD];
	size_t from = lo > *cover ? lo : *cover;
	while (from < hi) {
		size_t k = 0;
		for (size_t i = next_bit(s->bits, from, hi); i < hi && k < OUTER_AHEAD;
		     i = next_bit(s->bits, i + 1, hi)) {
			__builtin_prefetch(tree_node(s->t, (tree_idx)i));
			pos[k++] = i;
		}
		if (k == 0)
			break;
		for (size_t j = 0; j < k; j++) {
			if (pos[j] < *cover)
				continue;   /* inside the last one */
			push_idx(a, n, cap, (tree_idx)pos[j]);
			*cover = tree_node(s->t, (tree_idx)pos[j])->end;
		}
		from = pos[k - 1] + 1 > *cover ? pos[k - 1] + 1 : *cover;
	}
}

/* Phase 2's helper: marks the matches among nodes [node_split, n) and
 * lists their outermost ones, as if nothing before matched. */
static void *node_helper_main(void *arg)
{
	struct search *s = arg;
	const struct tree *t = s->t;
	size_t n = tree_size(t), words = (n + 63) / 64;
	size_t cover = s->node_split;
	for (size_t w = s->node_split / 64; w < words; w += NODES_PER_CHECK / 64) {
		if (atomic_load(&s->cancel))
			break;
		size_t w1 = w + NODES_PER_CHECK / 64 < words ? w + NODES_PER_CHECK / 64 : words;
		scan_words(s, w, w1);
		size_t hi = w1 * 64 < n ? w1 * 64 : n;
		outermost(s, w * 64, hi, &cover, &s->hchain, &s->nhchain, &s->caphchain);
	}
	return NULL;
}

/* Counts the matches of nodes [lo, hi) that no earlier match contains in
 * the root total. */
static void cover_matches(struct search *s, size_t lo, size_t hi)
{
	size_t cover = s->cover_end;
	s->nouter = 0;
	outermost(s, lo, hi, &cover, &s->outer, &s->nouter, &s->capouter);
	for (size_t k = 0; k < s->nouter; k++)
		count_add(s->t, &s->root_total, tree_node(s->t, s->outer[k])->total);
	s->cover_end = (tree_idx)cover;
}

/* Sets *split, where the caller's part of a phase over [0, total) ends:
 * total / 2 (rounded down to a multiple of align) with fn started on the
 * rest (it reads *split), when another thread is allowed and the phase is
 * big enough (min); else total. */
static void share(struct search *s, size_t total, size_t min, size_t align,
                  void *(*fn)(void *), size_t *split)
{
	*split = total;
	if (search_threads < 2 || s->alone || total < min)
		return;
	*split = total / 2 / align * align;
	atomic_store(&s->cancel, false);
	s->helper_on = pthread_create(&s->helper, NULL, fn, s) == 0;
	if (!s->helper_on)
		*split = total;
}

static void *helper_main(void *arg)
{
	struct search *s = arg;
	size_t names = strtab_count(&s->t->names);
	for (size_t id = s->split; id < names && !atomic_load(&s->cancel); id += NAMES_PER_CHECK)
		decide_names(s, id, id + NAMES_PER_CHECK < names ? id + NAMES_PER_CHECK : names);
	return NULL;
}

bool search_run(struct search *s, uint64_t budget_ns)
{
	if (s->done)
		return true;
	const struct tree *t = s->t;
	uint64_t deadline = budget_ns ? now_ns() + budget_ns : 0;
	size_t names = strtab_count(&t->names);
	if (s->names_done == 0 && s->split == 0) {
		share(s, names, s->nlits ? NAMES_PARALLEL : SIZE_MAX, 1, helper_main, &s->split);
	}
	size_t per_check = s->nlits ? NAMES_PER_CHECK : NAMES_PER_CHECK_RX;
	while (s->names_done < s->split) {
		size_t stop = s->names_done + per_check;
		if (stop > s->split)
			stop = s->split;
		decide_names(s, s->names_done, stop);
		s->names_done = stop;
		if (deadline && now_ns() >= deadline && s->names_done < names)
			return false;
	}
	if (s->names_done < names && s->helper_on) {   /* phase 1's helper */
		pthread_join(s->helper, NULL);
		s->helper_on = false;
	}
	s->names_done = names;
	size_t n = tree_size(t), words = (n + 63) / 64;
	if (s->node_split == 0) {
		share(s, n, NODES_PARALLEL, 64, node_helper_main, &s->node_split);
	}
	/* Slices of whole words: nodes_done stays a multiple of 64 until n. */
	while (s->nodes_done < s->node_split) {
		size_t stop = s->nodes_done + NODES_PER_CHECK;
		if (stop > s->node_split)
			stop = s->node_split;
		size_t w1 = (stop + 63) / 64;
		scan_words(s, s->nodes_done / 64, w1 < words ? w1 : words);
		cover_matches(s, s->nodes_done, stop);
		s->nodes_done = stop;
		if (deadline && now_ns() >= deadline && s->nodes_done < n)
			return false;
	}
	if (s->helper_on) {
		pthread_join(s->helper, NULL);
		s->helper_on = false;
		/* In preorder, as one thread would add them (fractional sums
		 * round the same way). */
		for (size_t k = 0; k < s->nhchain; k++) {
			tree_idx i = s->hchain[k];
			if (i >= s->cover_end) {
				count_add(t, &s->root_total, tree_node(t, i)->total);
				s->cover_end = tree_node(t, i)->end;
			}
		}
		free(s->hchain);
		s->hchain = NULL;
		s->nhchain = s->caphchain = 0;
	}
	/* Ordinals: the set bits before each block of 8 words. */
	size_t blocks = words / 8 + 1, sum = 0;
	s->rank = xmalloc(blocks * sizeof *s->rank);
	for (size_t b = 0; b < blocks; b++) {
		s->rank[b] = (uint32_t)sum;
		for (size_t w = b * 8; w < b * 8 + 8 && w < words; w++)
			sum += (size_t)__builtin_popcountll(s->bits[w]);
	}
	s->nmatch = sum;
	s->nodes_done = n;
	s->done = true;
	return true;
}

bool search_matches(const struct search *s, tree_idx i)
{
	return s->done && i != TREE_ROOT && i < tree_size(s->t) && s->hit[tree_node(s->t, i)->name];
}

size_t search_count(const struct search *s)
{
	return s->done ? s->nmatch : 0;
}

tree_count search_total(const struct search *s, tree_idx z)
{
	tree_count sum = { 0 };
	if (!s->done || z >= tree_size(s->t))
		return sum;
	if (z == TREE_ROOT)
		return s->root_total;
	if (z == s->cache_z)
		return s->cache_total;
	/* Outermost matches of [z, end(z)): take one, then jump past its
	 * subtree, a word of nested matches at a time. */
	size_t end = tree_end(s->t, z);
	for (size_t i = next_bit(s->bits, z, end); i < end;) {
		const struct tree_node *nd = tree_node(s->t, (tree_idx)i);
		count_add(s->t, &sum, nd->total);
		i = next_bit(s->bits, nd->end, end);
	}
	/* A cache, not state: the answer does not change for this z. */
	struct search *mut = (struct search *)s;
	mut->cache_z = z;
	mut->cache_total = sum;
	return sum;
}

size_t search_ordinal(const struct search *s, tree_idx i)
{
	if (!s->done || i >= tree_size(s->t) || !(s->bits[i / 64] >> (i % 64) & 1))
		return 0;
	size_t w = i / 64, k = s->rank[w / 8];
	for (size_t v = w / 8 * 8; v < w; v++)
		k += (size_t)__builtin_popcountll(s->bits[v]);
	k += (size_t)__builtin_popcountll(s->bits[w] & (((uint64_t)1 << (i % 64)) - 1));
	return k + 1;
}

tree_idx search_next(const struct search *s, tree_idx i)
{
	if (!s->done || i == TREE_NONE)
		return TREE_NONE;
	size_t n = tree_size(s->t), k = next_bit(s->bits, (size_t)i + 1, n);
	return k < n ? (tree_idx)k : TREE_NONE;
}

tree_idx search_prev(const struct search *s, tree_idx i)
{
	if (!s->done)
		return TREE_NONE;
	size_t n = tree_size(s->t);
	size_t k = prev_bit(s->bits, i < n ? i : n);
	return k == SIZE_MAX ? TREE_NONE : (tree_idx)k;
}

tree_idx search_first(const struct search *s)
{
	return s->done ? search_next(s, TREE_ROOT) : TREE_NONE;
}

tree_idx search_last(const struct search *s)
{
	return s->done ? search_prev(s, (tree_idx)tree_size(s->t)) : TREE_NONE;
}

char *search_quote(const char *s, size_t len)
{
	size_t cut = strnlen(s, len);
	char *out = xmalloc(2 * cut + 3), *o = out;
	*o++ = '^';
	for (size_t k = 0; k < cut; k++) {
		if (strchr(".[]()*+?{}|^$\\", s[k]))
			*o++ = '\\';
		*o++ = s[k];
	}
	if (cut == len)
		*o++ = '$';
	*o = '\0';
	return out;
}
