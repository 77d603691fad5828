#include "config.h"
#include "folded.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
/* The 32-byte scans: x86-64 with GCC or clang, compiled for AVX2 (and
 * POPCNT, which every CPU with AVX2 has) in functions of their own and
 * chosen at run time (the build is plain x86-64). */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__SSE2__)
#define FOLDED_AVX2 1
#include <immintrin.h>
#define FOLDED_TARGET_AVX2 __attribute__((target("avx2,popcnt")))
#else
#define FOLDED_AVX2 0
#endif
#include "text.h"
#include "xalloc.h"

/* Lines added to the tree at once when it is hashing (see tree_add_stacks):
 * enough for the misses of a depth to overlap. */
#define FOLDED_BATCH 16

/* The input is asked for this many bytes ahead of the line being read:
 * the hardware's prefetcher stops at each 4 KiB page of the mapped file,
 * and the first loads of a line's bytes stalled for them (a third of the
 * parser's samples). 4 KiB did as well as 8 or 16, better than 1. */
#ifndef FOLDED_AHEAD
#define FOLDED_AHEAD 4096
#endif

struct folded_reader {
	struct tree *t;
	struct tree *before;    /* differential lines' first count, or NULL */
	struct reader_diag d;
	struct tree_frame *frames;
	size_t cap;
	/* The previous stack added: its bytes and where each frame ends. Most
	 * lines share a long prefix with the one before (collapsers write
	 * sorted output), so one byte comparison tells which frames can be
	 * reused without splitting or looking them up again. */
	const char *prev;
	size_t prevlen;
	size_t *ends;       /* ends[k]: offset of the ';' or end after frame k */
	size_t nends, capends;
	char *own;          /* prev copied here when its block goes away */
	size_t owncap;
	/* Lines waiting for tree_add_stacks (tree_batches: shuffled input). */
	struct tree_stack batch[FOLDED_BATCH];
	size_t nbatch;
	strtab_id *bids;    /* their names, interned as each line is read */
	size_t nbids, capbids;
	/* The line being read: offsets of its ';' from where it parts from
	 * the previous stack to its newline, found in the newline's scan. */
	size_t *semis;
	size_t nsemis, capsemis;
	bool wide;          /* the AVX2 scans (the CPU has them) */
};

struct folded_reader *folded_reader_new(struct tree *t)
{
	struct folded_reader *r = xcalloc(1, sizeof *r);
	r->t = t;
	r->cap = 256;
	r->frames = xmalloc(r->cap * sizeof *r->frames);
	r->capends = 256;
	r->ends = xmalloc(r->capends * sizeof *r->ends);
	r->capsemis = 256;
	r->semis = xmalloc(r->capsemis * sizeof *r->semis);
	folded_reader_set_wide(r, true);
	return r;
}

bool folded_reader_set_wide(struct folded_reader *r, bool wide)
{
#if FOLDED_AVX2
	const char *e = getenv("TFLAME_FOLDED_PLAIN");
	if (e && *e)
		wide = false;
	r->wide = wide && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
#else
	(void)wide;
	r->wide = false;
#endif
	return r->wide;
}

void folded_reader_set_before(struct folded_reader *r, struct tree *before)
{
	r->before = before;
}

void folded_reader_free(struct folded_reader *r)
{
	if (!r)
		return;
	free(r->frames);
	free(r->ends);
	free(r->semis);
	free(r->own);
	free(r->bids);
	free(r);
}

const struct reader_diag *folded_reader_diag(const struct folded_reader *r)
{
	return &r->d;
}

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline uint64_t load8(const char *s)
{
	uint64_t w;
	memcpy(&w, s, 8);
	return w;
}

/* Bytes are read a word at a time where the first of them to differ or
 * match is the lowest set byte of a word: on little-endian machines. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define FOLDED_WORDS 1
#else
#define FOLDED_WORDS 0
#endif

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/* Parses the count that ends s[0..len), [0-9]+(\.[0-9]*)?, preceded by a
 * blank. Sets *start to where the number begins. False when there is none. */
static bool count_at_end(const char *s, size_t len, size_t *start, struct tree_dec *c)
{
	size_t e = len, i = len;
	while (i > 0 && is_digit(s[i - 1]))
		i--;
	bool dot = i > 0 && s[i - 1] == '.';
	if (dot) {
		size_t at = i - 1;
		i = at;
		while (i > 0 && is_digit(s[i - 1]))
			i--;
		if (i == at)
			return false;           /* ".5": no integer digits */
	} else if (i == e) {
		return false;               /* no digits at all */
	}
	if (i == 0 || !is_blank(s[i - 1]))
		return false;               /* "12" alone or "a12": no separator */
	/* Plain digits, at most 19 (below 2^64): tree_dec_parse's value,
	 * without its pass over them again for zeros and exponent. */
	if (!dot && e - i <= 19) {
		uint64_t v = 0;
		for (size_t k = i; k < e; k++)
			v = v * 10 + (uint64_t)(s[k] - '0');
		*c = (struct tree_dec){ v, 0, false, false };
		*start = i;
		return true;
	}
	/* "1." has no fraction digits: the point alone is not tree_dec's */
	size_t n = e - i;
	if (s[e - 1] == '.')
		n--;
	if (!tree_dec_parse(s + i, n, c))
		return false;
	*start = i;
	return true;
}

static inline size_t shared_frames(const struct folded_reader *r, const char *s, size_t len, size_t c,
                                   size_t below);
static inline size_t common_prefix(const char *a, const char *b, size_t n);

static void bad_line(struct folded_reader *r, const char *why, const char *s, size_t len)
{
	r->d.bad++;
	if (r->d.first_bad)
		return;
	r->d.first_bad = r->d.lines;
	char snippet[64];
	text_sanitize(s, len, snippet, sizeof snippet);
	snprintf(r->d.first_msg, sizeof r->d.first_msg, "%s: \"%s\"", why, snippet);
}

/* Adds the lines waiting in the batch to the tree. */
static void batch_flush(struct folded_reader *r)
{
	if (!r->nbatch)
		return;
	/* The names moved while bids grew: point the tails at them now (no
	 * names yet when every stack of the batch repeated the one before:
	 * NULL, not NULL + 0). */
	for (size_t i = 0, f = 0; i < r->nbatch; i++) {
		r->batch[i].tail = r->bids ? r->bids + f : NULL;
		f += r->batch[i].ntail;
	}
	tree_add_stacks(r->t, r->batch, r->nbatch);
	r->nbatch = 0;
	r->nbids = 0;
}

/* Puts the line just split (r->frames[0..n)) in the batch. Its names are
 * interned now, while its bytes are those read (a file cut short while
 * mapped reads as NULs from the cut on). */
static void batch_add(struct folded_reader *r, size_t keep, size_t n, struct tree_dec c)
{
	if (r->nbids + n > r->capbids) {
		size_t cap = r->capbids ? r->capbids : 1024;
		while (cap < r->nbids + n)
			cap *= 2;
		r->bids = xreallocarray(r->bids, cap, sizeof *r->bids);
		r->capbids = cap;
	}
	for (size_t k = 0; k < n; k++)
		r->bids[r->nbids + k] = tree_intern(r->t, r->frames[k].s, r->frames[k].len);
	r->nbids += n;
	r->batch[r->nbatch++] = (struct tree_stack){ keep, NULL, n, c };
	if (r->nbatch == FOLDED_BATCH)
		batch_flush(r);
}

enum folded_line folded_parse_line(const char *s, size_t len, size_t *stack, struct tree_dec *count,
                                   struct tree_dec *before)
{
	while (len > 0 && is_blank(s[len - 1]))
		len--;
	if (len == 0 || (len >= 2 && s[0] == '#' && s[1] == ' '))
		return FOLDED_BLANK;    /* blank line, or a "# key: value" comment (austin) */
	size_t cstart;
	if (!count_at_end(s, len, &cstart, count))
		return FOLDED_BAD;
	/* The stack ends one blank before the count: with more, the others
	 * are the last frame's (flamegraph.pl and inferno alike: "a;i  6" is
	 * frame "i "), so that perf's names cut after a space keep it and
	 * --collapse writes the line back as it was. A second number there
	 * makes the line differential (difffolded: BEFORE AFTER); the last
	 * column (AFTER) gives the width, as in flamegraph.pl. */
	len = cstart - 1;
	size_t start2;
	*before = (struct tree_dec){ 0, 0, false, false };
	if (count_at_end(s, len, &start2, before))
		len = start2 - 1;
	/* Split on ';'; trailing empty frames are dropped (flamegraph.pl). */
	while (len > 0 && s[len - 1] == ';')
		len--;
	*stack = len;
	return FOLDED_STACK;
}

/* Room for `more` frames after the first n in r->frames, and as many
 * ends. */
static inline void frames_room(struct folded_reader *r, size_t n, size_t more)
{
	while (n + more > r->cap) {
		r->cap *= 2;
		r->frames = xreallocarray(r->frames, r->cap, sizeof *r->frames);
	}
	while (r->nends + more > r->capends) {
		r->capends *= 2;
		r->ends = xreallocarray(r->ends, r->capends, sizeof *r->ends);
	}
}

/* Room for `more` offsets after those in r->semis. */
static inline void semis_room(struct folded_reader *r, size_t more)
{
	if (r->nsemis + more <= r->capsemis)
		return;
	while (r->nsemis + more > r->capsemis)
		r->capsemis *= 2;
	r->semis = xreallocarray(r->semis, r->capsemis, sizeof *r->semis);
}

/* Appends at + k to r->semis for each bit k set in m (room made). */
static inline void semis_push(struct folded_reader *r, size_t at, uint32_t m)
{
	for (; m; m &= m - 1)
		r->semis[r->nsemis++] = at + (size_t)__builtin_ctz(m);
}

#if !defined(__SSE2__) && FOLDED_WORDS
/* The lowest byte of w that is zero has its high bit set in the result
 * (higher ones may be set wrongly: a borrow runs upwards); 0 when w has
 * no zero byte. */
static inline uint64_t zero_bytes(uint64_t w)
{
	return (w - ONES) & ~w & HIGHS;
}

/* The bytes of w that are zero, each as its high bit, exactly (no borrow
 * between bytes: a ":" after a ";" is not taken for one). */
static inline uint64_t zero_bytes_exact(uint64_t w)
{
	const uint64_t lows = ~HIGHS;
	return ~(((w & lows) + lows) | w) & HIGHS;
}
#endif

/* The offset of the first '\n' in s[from..avail), or avail; appends the
 * offsets of the ';' before it to r->semis. One pass finds both: the
 * bytes past where a line parts from the previous stack are read once. */
static inline __attribute__((always_inline)) size_t scan_line(struct folded_reader *r, const char *s,
                                                              size_t from, size_t avail)
{
	size_t at = from;
#ifdef __SSE2__
	const __m128i semi = _mm_set1_epi8(';'), nl = _mm_set1_epi8('\n');
	for (; at + 16 <= avail; at += 16) {
		semis_room(r, 16);
		__m128i w = _mm_loadu_si128((const __m128i *)(const void *)(s + at));
		uint32_t ms = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(w, semi));
		uint32_t mn = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(w, nl));
		if (mn) {
			unsigned b = (unsigned)__builtin_ctz(mn);
			semis_push(r, at, ms & ((1u << b) - 1));
			return at + b;
		}
		semis_push(r, at, ms);
	}
#elif FOLDED_WORDS
	for (; at + 8 <= avail; at += 8) {
		semis_room(r, 8);
		uint64_t w = load8(s + at);
		uint64_t zs = zero_bytes_exact(w ^ (ONES * (unsigned char)';'));
		uint64_t zn = zero_bytes(w ^ (ONES * (unsigned char)'\n'));
		if (zn) {
			unsigned b = (unsigned)__builtin_ctzll(zn) / 8;
			zs &= (1ULL << (8 * b)) - 1;
		}
		for (; zs; zs &= zs - 1)
			r->semis[r->nsemis++] = at + (size_t)__builtin_ctzll(zs) / 8;
		if (zn)
			return at + (size_t)__builtin_ctzll(zn) / 8;
	}
#endif
	for (; at < avail; at++) {
		if (s[at] == '\n')
			return at;
		if (s[at] == ';') {
			semis_room(r, 1);
			r->semis[r->nsemis++] = at;
		}
	}
	return avail;
}

#if FOLDED_AVX2
/* scan_line, 32 bytes a step. */
FOLDED_TARGET_AVX2
static inline size_t scan_line_avx2(struct folded_reader *r, const char *s, size_t from, size_t avail)
{
	size_t at = from;
	const __m256i semi = _mm256_set1_epi8(';'), nl = _mm256_set1_epi8('\n');
	for (; at + 32 <= avail; at += 32) {
		semis_room(r, 32);
		__m256i w = _mm256_loadu_si256((const __m256i *)(const void *)(s + at));
		uint32_t ms = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(w, semi));
		uint32_t mn = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(w, nl));
		if (mn) {
			unsigned b = (unsigned)__builtin_ctz(mn);
			semis_push(r, at, ms & ((1u << b) - 1));
			return at + b;
		}
		semis_push(r, at, ms);
	}
	return scan_line(r, s, at, avail);
}

/* common_prefix, 32 bytes a step; also sets *semis to the number of ';'
 * in a[0..returned): the frames of a that end before it (popcounts of
 * the masks already made, where a binary search over the ends was a
 * chain of dependent loads). */
FOLDED_TARGET_AVX2
static inline size_t common_prefix_avx2(const char *a, const char *b, size_t n, size_t *semis)
{
	const __m256i semi = _mm256_set1_epi8(';');
	size_t i = 0, k = 0;
	for (; i + 32 <= n; i += 32) {
		__m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(a + i));
		__m256i y = _mm256_loadu_si256((const __m256i *)(const void *)(b + i));
		uint32_t d = ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, y));
		uint32_t m = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, semi));
		if (d) {
			unsigned z = (unsigned)__builtin_ctz(d);
			*semis = k + (size_t)__builtin_popcount(m & ((1u << z) - 1));
			return i + z;
		}
		k += (size_t)__builtin_popcount(m);
	}
	if (i == n) {
		*semis = k;
		return n;
	}
	if (n >= 32) {
		/* The last 32 bytes, less the sh before i already seen. */
		size_t off = n - 32;
		unsigned sh = (unsigned)(i - off);
		__m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(a + off));
		__m256i y = _mm256_loadu_si256((const __m256i *)(const void *)(b + off));
		uint32_t d = ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, y)) >> sh;
		uint32_t m = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, semi)) >> sh;
		if (d) {
			unsigned z = (unsigned)__builtin_ctz(d);
			*semis = k + (size_t)__builtin_popcount(m & ((1u << z) - 1));
			return i + z;
		}
		*semis = k + (size_t)__builtin_popcount(m);
		return n;
	}
	size_t c = common_prefix(a, b, n);
	for (size_t j = 0; j < c; j++)
		k += a[j] == ';';
	*semis = k;
	return c;
}
#endif

/* Splits s[start..len) (start < len) at its ';' into r->frames (from the
 * first) and r->ends (after those kept); returns how many. The ';' are
 * those of r->semis from start on: the line's bytes from start to where
 * it parts from the previous stack are a piece of one frame of it. */
static size_t split_frames(struct folded_reader *r, const char *s, size_t start, size_t len)
{
	frames_room(r, 0, r->nsemis + 1);
	size_t n = 0, p = start;
	for (size_t i = 0; i < r->nsemis; i++) {
		size_t q = r->semis[i];
		if (q < start)
			continue;
		if (q >= len)
			break;  /* trailing ';' dropped from the stack */
		r->frames[n++] = (struct tree_frame){ s + p, q - p };
		r->ends[r->nends++] = q;
		p = q + 1;
	}
	r->frames[n++] = (struct tree_frame){ s + p, len - p };
	r->ends[r->nends++] = len;
	return n;
}

/* The line s[0..len) (without its newline), whose first `same` bytes are
 * those of the previous stack, or of its part before the line's end, and
 * whose ';' from `same` on are in r->semis. below: the number of ';' in
 * its first `same` bytes, or SIZE_MAX when not counted. */
static inline __attribute__((always_inline)) void parse_line(struct folded_reader *r, const char *s,
                                                             size_t len, size_t same, size_t below)
{
	struct tree_dec c, before;
	switch (folded_parse_line(s, len, &len, &c, &before)) {
	case FOLDED_BLANK:
		return;
	case FOLDED_BAD:
		bad_line(r, FOLDED_BAD_WHY, s, len);
		return;
	case FOLDED_STACK:
		break;
	}
	size_t keep = shared_frames(r, s, len, same < len ? same : len, same <= len ? below : SIZE_MAX);
	size_t start = keep ? r->ends[keep - 1] + 1 : 0;
	r->nends = keep;
	size_t n = start < len ? split_frames(r, s, start, len) : 0;
	r->prev = s;
	r->prevlen = len;
	if (c.saturated)
		r->d.saturated++;
	if (!r->before && tree_batches(r->t)) {
		batch_add(r, keep, n, c);
		r->d.stacks++;
		return;
	}
	batch_flush(r);
	tree_add_stack_tail_dec(r->t, keep, r->frames, n, c);
	/* Every line goes to both trees (0 when it has one count), so their
	 * previous stacks stay equal and `keep` holds for both. */
	if (r->before) {
		tree_add_stack_tail_dec(r->before, keep, r->frames, n, before);
	}
	r->d.stacks++;
}

/* Length of the common prefix of a[0..n) and b[0..n): where the words
 * first differ, without a loop over the bytes of the last. */
static inline __attribute__((always_inline)) size_t common_prefix(const char *a, const char *b, size_t n)
{
	size_t i = 0;
#ifdef __SSE2__
	for (; i + 16 <= n; i += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(a + i));
		__m128i y = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
		unsigned d = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) ^ 0xffffu;
		if (d)
			return i + (size_t)__builtin_ctz(d);
	}
#endif
#if FOLDED_WORDS
	for (; i + 8 <= n; i += 8) {
		uint64_t x = load8(a + i) ^ load8(b + i);
		if (x)
			return i + (size_t)__builtin_ctzll(x) / 8;
	}
	if (i < n && n >= 8) {
		uint64_t x = (load8(a + n - 8) ^ load8(b + n - 8)) >> (8 * (i - (n - 8)));
		return x ? i + (size_t)__builtin_ctzll(x) / 8 : n;
	}
#endif
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* How many leading frames of s[0..len) are those of the previous stack,
 * given c, the length of their common prefix, and below, the number of
 * ';' in its first c bytes (SIZE_MAX: not counted). */
static inline __attribute__((always_inline)) size_t shared_frames(const struct folded_reader *r, const char *s,
                                                                  size_t len, size_t c, size_t below)
{
	if (!r->prev || len == 0)
		return 0;   /* an empty stack has no frames, not one empty frame */
	/* The frames that end before c, the first end at c or after: those
	 * of the ';' before c, or, not counted, by a binary search (ends rise;
	 * deep stacks share dozens of frames). */
	const size_t *e = r->ends;
	size_t k = 0, n = r->nends;
	if (below != SIZE_MAX) {
		k = below;
	} else {
		while (n > 1) {
			size_t half = n / 2;
			k = e[k + half - 1] < c ? k + half : k;
			n -= half;
		}
		k += n == 1 && e[k] < c;
	}
	/* A frame ending exactly where the bytes part is shared only if it
	 * ends there in both stacks. */
	if (k < r->nends && e[k] == c &&
	    (c == len || s[c] == ';') && (c == r->prevlen || r->prev[c] == ';'))
		k++;
	return k;
}

/* Reads the lines of buf[0..len) into the tree; r->prev is left in buf.
 * Each line is compared with the previous stack first, then scanned for
 * its newline and ';' from where they part: those bytes are read once,
 * not twice. They part at the newline at the latest (a stack holds
 * none). `wide`: the AVX2 scans (the body is inlined into each of the
 * two callers below, which the compiler builds for their own targets). */
static inline __attribute__((always_inline)) void feed_lines(struct folded_reader *r, const char *buf,
                                                             size_t len, bool wide)
{
	const char *p = buf, *end = buf + len;
	size_t asked = 0;       /* buf[0..asked) asked for (offsets: no pointer past end) */
	(void)wide;
	while (p < end) {
		size_t at = (size_t)(p - buf);
		size_t want = len - at > FOLDED_AHEAD ? at + FOLDED_AHEAD : len;
		for (; asked < want; asked += 64)
			__builtin_prefetch(buf + asked);
		size_t rest = (size_t)(end - p), same = 0, le;
		size_t n = r->prevlen < rest ? r->prevlen : rest;
		r->nsemis = 0;
		size_t below = SIZE_MAX;    /* the frames of prev ending before same */
#if FOLDED_AVX2
		if (wide) {
			if (r->prev)
				same = common_prefix_avx2(r->prev, p, n, &below);
			le = scan_line_avx2(r, p, same, rest);
		} else
#endif
		{
			if (r->prev)
				same = common_prefix(r->prev, p, n);
			le = scan_line(r, p, same, rest);
		}
		r->d.lines++;
		parse_line(r, p, le, same, below);
		p = le < rest ? p + le + 1 : end;
	}
	batch_flush(r);
}

static void feed_block_plain(struct folded_reader *r, const char *buf, size_t len)
{
	feed_lines(r, buf, len, false);
}

#if FOLDED_AVX2
FOLDED_TARGET_AVX2
static void feed_block_avx2(struct folded_reader *r, const char *buf, size_t len)
{
	feed_lines(r, buf, len, true);
}
#endif

static void feed_block(struct folded_reader *r, const char *buf, size_t len)
{
#if FOLDED_AVX2
	if (r->wide) {
		feed_block_avx2(r, buf, len);
		return;
	}
#endif
	feed_block_plain(r, buf, len);
}

void folded_reader_feed_kept(struct folded_reader *r, const char *buf, size_t len)
{
	feed_block(r, buf, len);
}

void folded_reader_feed(struct folded_reader *r, const char *buf, size_t len)
{
	feed_block(r, buf, len);
	/* The block may be unmapped or overwritten before the next call. */
	if (r->prev && r->prev != r->own) {
		if (r->prevlen >= r->owncap) {     /* never NULL, even for "" */
			r->owncap = r->prevlen * 2 + 64;
			r->own = xrealloc(r->own, r->owncap);
		}
		memcpy(r->own, r->prev, r->prevlen);
		r->prev = r->own;
	}
}
