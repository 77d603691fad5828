/* The partitioned loader of big shuffled folded files (see loadint.h:
 * load_parts; issue 20, direction 1).
 *
 * A shuffled file spends most of its load on cache misses: each frame is
 * looked up in a child hash and a node array as big as the tree, at
 * random. Read in parts, each part's lines and tree are a fraction of the
 * whole and stay in the cache while it is built; and a part's lines,
 * sorted, are read as sorted input is (each line's frames shared with the
 * line before are not looked up again, no child hash).
 *
 * Which part a line goes to: a sample of the file's lines (spread over it)
 * is built into a small tree; its nodes that hold more than PART_SHARE of
 * the sample are the shared tree, the prefixes several parts may hold. A
 * line's key is the first of its frames that leaves the shared tree, with
 * the shared node above it (or the shared node where the line ends),
 * hashed: every line through a node outside the shared tree has the same
 * key, so that node's subtree is in one part. Where the sample finds a big
 * subtree the key goes deeper (a chain of wrappers that 9% of the lines go
 * through: as deep as it goes), elsewhere it is the first frame.
 *
 * A first pass cuts the lines into parts: an index per group of parts (4
 * bytes a line for its offset, 4 for its length and part in the group),
 * the pages behind it dropped as it goes. Then each group's lines are
 * gathered in one sweep through the file into a buffer, each part's
 * together; part by part they are sorted, read into a tree of its own,
 * finalized and packed (tree_pack: 3 to 8 bytes a node). Threads build
 * groups side by side, a round at a time (a group each, all of them
 * gathering the round's lines), without merging. Last, tree_join makes
 * the packed parts one tree: the shared nodes merged by path, the
 * subtrees below them unpacked as blocks. The memory is the tree's, the
 * packs (an eighth of it or less), the index and a group's buffer and a
 * part's tree a thread.
 *
 * Memory running out anywhere here is caught (xalloc_catch): everything
 * is freed and the caller reads the file the usual way. */
#include "config.h"
#include "loadint.h"

#include <pthread.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <setjmp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "text.h"
#include "xalloc.h"

#define PART_MIN_BYTES ((size_t)64 << 20)  /* smaller files: one pass */
/* Parts: a part's tree about PART_TREE_BYTES of nodes, at least
 * PART_MIN_COUNT parts: its lines (sorted) and its tree then stay in the
 * cache. On 1 GiB of genfolded output (670 MiB of nodes), one thread:
 * 128 parts 7.2 s, 512 6.7 s, 1024 6.6 s (a shared machine: +-0.3 s; then
 * only the odd-numbered half of the parts had lines); on the real-shaped
 * file (a node per 360 bytes), 512 parts duplicated the shared paths
 * above their subtrees in each: 216 MiB of nodes in parts for a tree of
 * 114, 396 MiB at the peak (32 parts: 270). With all parts used, 1024
 * parts of 1 MiB took 3% less time on genfolded's file than 512 of 2,
 * but the real-shaped one's 128 parts peaked 11 to 15 MiB higher than
 * 64, above its tree + 128 MiB on two threads. */
#define PART_TREE_BYTES ((double)(2 << 20))
#define PART_MIN_COUNT 32
#define PART_MAX_COUNT 4096
#define PART_MAX_THREADS 16
/* A node of the sample's tree that holds more than this share of it is
 * shared by parts (1/1024: 16 of its 16,384 lines). */
#define PART_SHARE (1.0 / 1024)
/* A sweep through the file gathers the lines of a group of parts, a
 * PART_GROUP_64THS/64 of the file (32 MiB of 1 GiB): more parts a sweep
 * means fewer sweeps, each mapping the pages of the file again, and a
 * bigger buffer a thread. The parts of a group are then built one by one,
 * each from its sorted lines where they were gathered. The group is twice
 * as big (up to PART_GROUP_MAX_64THS) while the threads' buffers stay
 * within 1/PART_GROUP_TREE_SHARE of the tree the sample foresees, or
 * PART_GROUP_MIN_BYTES: the load's peak is the join's (the tree and the
 * packs), and while the parts are built, the buffers, the index and the
 * packs stay below it (a small tree's file swept in 32 MiB groups spent
 * most of its system time in the sweeps' reads: the real-shaped 1 GiB on
 * one thread, 32 -> 8 sweeps, 8.00-9.71 -> 5.87-5.95 s, peak 215 -> 217
 * MB; on two, 16 -> 8 rounds, 4.14-4.16 -> 3.75-3.79 s, 232 MB). The
 * mapping costs a page cache folio at a time: a file written 4 KiB at a
 * time (cached in 4 KiB folios) took a third more time than the same
 * bytes read from the disk (large folios). Genfolded's 1 GiB (a tree of
 * 670 MiB) is gathered in 8 sweeps of 128 MiB on one thread (16: 4.84 ->
 * 4.27 s in 4 KiB folios, 3.89 -> 3.73 in large ones; peak 726 -> 760
 * MiB), in 8 rounds of 64 MiB a thread on two (2.78 -> 2.55 s, peak 744
 * -> 768 MiB), both within its tree + 128 MiB; the real-shaped file's
 * (a tree of 114 MiB) in 8 sweeps of 128 MiB on one thread, in 8 rounds
 * of 64 MiB a thread on two. */
#define PART_GROUP_64THS 2
#define PART_GROUP_MAX_64THS 8
#define PART_GROUP_TREE_SHARE 4
#define PART_GROUP_MIN_BYTES ((double)(128 << 20))
#define PART_MAX_GROUP 255
#define PART_FEED_AHEAD 4                  /* sorted lines prefetched ahead */
#define PART_AHEAD 16                      /* lines prefetched ahead */
#define PART_DROP ((size_t)8 << 20)        /* pages dropped this far behind */
/* A sweep maps the file's pages a window of this size at a time
 * (MADV_POPULATE_READ) instead of a fault every 16 pages (faults 912k ->
 * 379k, 6.4 -> 6.1 s on genfolded's 1 GiB, one thread), and drops the
 * window before: each range is swept by one thread (see the rounds). */
#define PART_POPULATE ((size_t)4 << 20)
#define PART_WIN_SLACK ((size_t)64 << 10)  /* read past a window: its last lines */
/* The sample that finds the shared prefixes: lines from this many places,
 * this many from each. */
#define SAMPLE_WINDOWS 256
#define SAMPLE_LINES 64
#define PROBE_WINDOWS 64
#define PROBE_LINES 64

/* The shared tree's nodes by (parent, name): what the first pass looks a
 * line's frames up in. */
struct forks {
	const struct tree *sh;      /* finalized */
	uint64_t *keys;             /* fork_mix(parent, name's hash); 0: empty */
	uint32_t *node;
	size_t mask;
	/* Chains: from a node with one child in the shared tree (whose parent
	 * has not just one), the names down to the first node with none or
	 * several, joined by ';' (chain[c] bytes of text at at[c], ending at
	 * node end[c]): a line follows a chain with one comparison. */
	uint32_t *at, *chain, *end;
	char *text;
};

/* A stretch of the file cut into parts by one thread. */
struct range {
	const char *d;
	const struct source *src;   /* the file behind d (source_pread) */
	size_t lo, hi;
	const struct forks *fk;
	int nparts;
	const uint32_t *where;      /* per part: its group << 8 | its place in it */
	uint32_t **idx;             /* per group: offsets of its lines */
	uint32_t **slot;            /* per group: each line's part in the group
	                               (the low 8 bits) and its length (the
	                               others; LEN_LONG: longer) */
	size_t *n, *cap;
	uint64_t *bytes;            /* per part: bytes of its lines */
	uint32_t *lines;            /* per part: its lines */
	struct reader_diag diag;    /* line numbers within the range */
	uint64_t sum;               /* of the counts */
	bool unfit;                 /* fractional or saturated counts, or a
	                               sum beyond 64 bits: not in parts */
	bool failed;                /* memory ran out */
	atomic_size_t done;         /* bytes cut so far */
};

/* The parts and who builds them. */
struct build {
	const char *d;
	size_t len;
	const struct source *src;   /* the file behind d (source_pread) */
	struct range *ranges;
	int nranges, nparts;
	int nthreads;               /* building groups */
	int group, ngroups;         /* parts a sweep builds; sweeps */
	double node_rate;           /* nodes a byte of lines the sample foresees */
	int *order;                 /* groups, biggest first */
	struct tree_pack *packs;    /* the parts' trees, packed for tree_join */
	struct tree_shape shape;    /* the shared tree's, for the packs */
	enum tree_order torder;
	struct tree names;          /* its table: the parts' names */
	pthread_mutex_t names_mu;
	atomic_bool failed;         /* memory ran out: stop */
	int fail_at;                /* tests (TFLAME_PARTS_FAIL): fail there */
	atomic_uint_fast64_t built; /* bytes of the parts built */
	uint64_t stacks;            /* the file's, once cut */
	struct worker *workers;     /* [nthreads] */
	/* where the threads meet between gathering and building (meet) */
	pthread_mutex_t meet_mu;
	pthread_cond_t meet_cv;
	int meeting;
	unsigned meet_round;
	bool go;                    /* nthreads is final: start */
};

/* A line of a gathered buffer. */
struct line {
	const char *s;
	size_t len;
};

/* ---- sorting a part's lines (byte order, as LC_ALL=C sort) ----
 *
 * A part's lines share long prefixes (its subtrees' paths), which a sort
 * by memcmp compares again and again (a quarter of the load). Here they
 * are sorted 8 bytes at a time (a three-way radix quicksort on words,
 * Bentley and Sedgewick's multikey quicksort): each line's next 8 bytes
 * are read once a level into `key`, the lines split into those below,
 * equal to and above a pivot, and only the equal ones go on to the next 8
 * bytes. No recursion (a stack of ranges); pivots are picked at random, so
 * that no input makes it quadratic. */

/* A line's bytes [d, d + 8) as a big-endian number, and how many of them
 * it has (fewer at its end: a shorter line sorts first). */
static inline void line_key(const struct line *l, size_t d, uint64_t *key, unsigned *rem)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (l->len - d >= 8) {
		/* (most: one load, not a copy of a variable length) */
		uint64_t w;
		memcpy(&w, l->s + d, 8);
		*key = __builtin_bswap64(w);
		*rem = 8;
		return;
	}
#endif
	size_t r = l->len - d < 8 ? l->len - d : 8;
	unsigned char b[8] = { 0 };
	memcpy(b, l->s + d, r);
	*key = (uint64_t)b[0] << 56 | (uint64_t)b[1] << 48 | (uint64_t)b[2] << 40 | (uint64_t)b[3] << 32 |
	       (uint64_t)b[4] << 24 | (uint64_t)b[5] << 16 | (uint64_t)b[6] << 8 | b[7];
	*rem = (unsigned)r;
}

static inline int cmp_key(uint64_t ka, unsigned ra, uint64_t kb, unsigned rb)
{
	return ka != kb ? (ka < kb ? -1 : 1) : (ra > rb) - (ra < rb);
}

/* Swaps lines a and b with their keys. */
static inline void swap_lines(struct line *ln, uint64_t *key, unsigned char *rem, size_t a, size_t b)
{
	struct line tl = ln[a];
	ln[a] = ln[b];
	ln[b] = tl;
	uint64_t tk = key[a];
	key[a] = key[b];
	key[b] = tk;
	unsigned char tr = rem[a];
	rem[a] = rem[b];
	rem[b] = tr;
}

/* Lines that share bytes [0, d): by the rest. */
static int cmp_from(const struct line *x, const struct line *y, size_t d)
{
	size_t n = (x->len < y->len ? x->len : y->len) - d;
	int c = memcmp(x->s + d, y->s + d, n);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* How many of the first n bytes of a and b are the same. */
static size_t same_bytes(const char *a, const char *b, size_t n)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t x, y;
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			return i + (size_t)__builtin_ctzll(x ^ y) / 8;
#else
			break;
#endif
		}
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

struct sort_range {
	size_t lo, hi, d;
	bool keyed;                 /* key[lo..hi) hold the bytes at d */
};

struct sorter {
	uint64_t *key;
	unsigned char *rem;
	size_t cap;
	struct sort_range *stack;
	size_t nstack, capstack;
	uint64_t rng;
};

static void sort_push(struct sorter *so, size_t lo, size_t hi, size_t d, bool keyed)
{
	if (hi - lo < 2)
		return;
	if (so->nstack == so->capstack) {
		so->capstack = so->capstack ? 2 * so->capstack : 64;
		so->stack = xreallocarray(so->stack, so->capstack, sizeof *so->stack);
	}
	so->stack[so->nstack++] = (struct sort_range){ lo, hi, d, keyed };
}

static void sort_lines(struct sorter *so, struct line *ln, size_t n)
{
	if (n > so->cap) {
		free(so->key);
		free(so->rem);
		so->key = NULL;
		so->rem = NULL;
		so->cap = 0;
		so->key = xmalloc(n * sizeof *so->key);
		so->rem = xmalloc(n);
		so->cap = n;
	}
	uint64_t *key = so->key;
	unsigned char *rem = so->rem;
	so->nstack = 0;
	sort_push(so, 0, n, 0, false);
	while (so->nstack) {
		struct sort_range r = so->stack[--so->nstack];
		size_t lo = r.lo, hi = r.hi, d = r.d;
		if (hi - lo <= 12) {
			/* few: insertion sort by the bytes after d */
			for (size_t i = lo + 1; i < hi; i++) {
				struct line x = ln[i];
				size_t j = i;
				for (; j > lo && cmp_from(&ln[j - 1], &x, d) > 0; j--)
					ln[j] = ln[j - 1];
				ln[j] = x;
			}
			continue;
		}
		if (!r.keyed) {
			/* the bytes all of them share from d on, skipped at once
			 * (real-shaped lines share hundreds: 8 at a time, each a
			 * pass over the lines, took a fifth of the load) */
			size_t c = SIZE_MAX;
			const struct line *f0 = &ln[lo];
			for (size_t i = lo + 1; i < hi && c; i++) {
				size_t m = (f0->len < ln[i].len ? f0->len : ln[i].len) - d;
				c = same_bytes(f0->s + d, ln[i].s + d, m < c ? m : c);
			}
			d += c;
			for (size_t i = lo; i < hi; i++) {
				unsigned q;
				line_key(&ln[i], d, &key[i], &q);
				rem[i] = (unsigned char)q;
			}
		}
		/* the pivot: the middle of three picked at random */
		size_t pick[3];
		for (int t = 0; t < 3; t++) {
			so->rng ^= so->rng << 13;
			so->rng ^= so->rng >> 7;
			so->rng ^= so->rng << 17;
			pick[t] = lo + (size_t)(so->rng % (hi - lo));
		}
		size_t m = pick[0];
		if ((cmp_key(key[pick[0]], rem[pick[0]], key[pick[1]], rem[pick[1]]) < 0) !=
		    (cmp_key(key[pick[0]], rem[pick[0]], key[pick[2]], rem[pick[2]]) < 0))
			m = pick[0];
		else if ((cmp_key(key[pick[1]], rem[pick[1]], key[pick[0]], rem[pick[0]]) < 0) !=
		         (cmp_key(key[pick[1]], rem[pick[1]], key[pick[2]], rem[pick[2]]) < 0))
			m = pick[1];
		else
			m = pick[2];
		uint64_t pk = key[m];
		unsigned pr = rem[m];
		/* [lo, lt) below, [lt, i) equal, [gt, hi) above */
		size_t lt = lo, i = lo, gt = hi;
		while (i < gt) {
			int c = cmp_key(key[i], rem[i], pk, pr);
			if (c < 0) {
				swap_lines(ln, key, rem, lt, i);
				lt++;
				i++;
			} else if (c > 0) {
				gt--;
				swap_lines(ln, key, rem, gt, i);
			} else {
				i++;
			}
		}
		sort_push(so, lo, lt, d, true);
		sort_push(so, gt, hi, d, true);
		if (pr == 8)
			sort_push(so, lt, gt, d + 8, false);    /* equal so far */
		/* (else the equal lines are the same bytes) */
	}
}

static void sorter_free(struct sorter *so)
{
	free(so->key);
	free(so->rem);
	free(so->stack);
	memset(so, 0, sizeof *so);
}

/* A thread building groups: what a jump out of xalloc_catch must find. */
struct worker {
	struct build *b;
	int id;                     /* its place in b->workers */
	int gi;                     /* the group it builds this round, or -1 */
	char *buf;                  /* a group's lines, part by part */
	size_t bufcap;
	char *win;                  /* the window of the file gather reads */
	size_t wincap;
	size_t at[PART_MAX_GROUP], pb[PART_MAX_GROUP];  /* each part's place
	                                                   and bytes in buf */
	/* gathering: where range's lines of each part of the round's j-th
	 * group go next, in its builder's buffer and line list */
	size_t gat[PART_MAX_THREADS][PART_MAX_GROUP], gli[PART_MAX_THREADS][PART_MAX_GROUP];
	struct line *lines[PART_MAX_GROUP];     /* each part's, in buf */
	size_t nlines[PART_MAX_GROUP], caplines[PART_MAX_GROUP];
	struct folded_reader *r;
	struct tree part;           /* the part being built (then packed) */
	struct sorter so;
	bool locked;                /* holds b->names_mu */
	jmp_buf env;
};

struct load_parts_stats load_parts_last;

/* ---- a line's frames in the first pass ----
 * A line walks about five frames of the shared tree (genfolded's, 11
 * bytes each): each frame's end, its hash and its comparison with a
 * shared node's name are done here inline, a word at a time, not by
 * memchr, strtab_hash and memcmp calls. The hash is any function of the
 * name's bytes (the parts need only that lines through one node agree). */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PART_WORDS 1
#else
#define PART_WORDS 0
#endif
#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

static inline uint64_t load8(const char *s)
{
	uint64_t w;
	memcpy(&w, s, 8);
	return w;
}

static inline uint64_t hash_word(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 29);
}

/* The frame that starts at s[p] (p < len): sets *e to its end, the first
 * ';' from p or len, and returns the hash of s[p..*e). Its 8-byte chunks
 * from p are hashed in order, the last (1 to 7 bytes) zero-padded, and
 * then its length: the word loop and the byte loop agree. */
static inline uint64_t frame_hash(const char *s, size_t p, size_t len, size_t *e)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;
	size_t i = p;
#if PART_WORDS
	const uint64_t semis = ONES * (unsigned char)';';
	for (; i + 8 <= len; i += 8) {
		uint64_t w = load8(s + i), x = w ^ semis;
		uint64_t z = (x - ONES) & ~x & HIGHS;   /* the first ';' is its lowest byte flagged */
		if (z) {
			unsigned k = (unsigned)__builtin_ctzll(z) / 8;
			if (k)
				h = hash_word(h, w & (~0ULL >> (64 - 8 * k)));
			*e = i + k;
			goto done;
		}
		h = hash_word(h, w);
	}
#endif
	{
		uint64_t w = 0;
		unsigned k = 0;
		for (; i < len && s[i] != ';'; i++) {
			w |= (uint64_t)(unsigned char)s[i] << (8 * k);
			if (++k == 8) {
				h = hash_word(h, w);
				w = 0;
				k = 0;
			}
		}
		if (k)
			h = hash_word(h, w);
		*e = i;
	}
#if PART_WORDS
done:
#endif
	h ^= (uint64_t)(*e - p);
	h *= 0xd6e8feb86659fd93ULL;
	return h ^ (h >> 32);
}

/* Whether a[0..n) and b[0..n) are the same bytes. */
static inline bool same_name(const char *a, const char *b, size_t n)
{
#if PART_WORDS
	if (n >= 8) {
		for (size_t i = 0; i + 8 <= n; i += 8)
			if (load8(a + i) != load8(b + i))
				return false;
		return load8(a + n - 8) == load8(b + n - 8);
	}
#endif
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

static uint64_t fork_mix(uint32_t parent, uint64_t h)
{
	uint64_t k = h ^ ((uint64_t)parent * 0x9e3779b97f4a7c15ULL);
	k ^= k >> 31;
	k *= 0xbf58476d1ce4e5b9ULL;
	k ^= k >> 29;
	return k | 1;               /* never 0 (empty) */
}

#define FORK_END 0x5bd1e9955bd1e995ULL    /* a line ends at a shared node */

static uint32_t forks_find(const struct forks *f, uint32_t parent, uint64_t h, const char *s, size_t len)
{
	uint64_t k = fork_mix(parent, h);
	for (size_t i = (size_t)(k >> 7) & f->mask; f->keys[i]; i = (i + 1) & f->mask) {
		if (f->keys[i] != k)
			continue;
		tree_idx c = f->node[i];
		if (f->sh->nodes[c].parent == parent && tree_name_len(f->sh, c) == len &&
		    same_name(tree_name(f->sh, c), s, len))
			return c;
	}
	return UINT32_MAX;
}

static void forks_init(struct forks *f, const struct tree *sh)
{
	size_t sz = 16;
	while (sz < 2 * sh->n)
		sz *= 2;
	f->sh = sh;
	f->keys = xcalloc(sz, sizeof *f->keys);
	f->node = xmalloc(sz * sizeof *f->node);
	f->mask = sz - 1;
	for (tree_idx c = 1; c < sh->n; c++) {
		size_t e;
		uint64_t k = fork_mix(sh->nodes[c].parent, frame_hash(tree_name(sh, c), 0, tree_name_len(sh, c), &e));
		size_t i = (size_t)(k >> 7) & f->mask;
		while (f->keys[i])
			i = (i + 1) & f->mask;
		f->keys[i] = k;
		f->node[i] = c;
	}
	/* the chains' heads and their text */
	size_t n = sh->n, total = 0;
	uint32_t *kids = xcalloc(n, sizeof *kids);
	f->at = xcalloc(n, sizeof *f->at);
	f->chain = xcalloc(n, sizeof *f->chain);
	f->end = xcalloc(n, sizeof *f->end);
	for (tree_idx c = 1; c < n; c++)
		kids[sh->nodes[c].parent]++;
	for (tree_idx c = 0; c < n; c++) {
		if (kids[c] != 1 || (c && kids[sh->nodes[c].parent] == 1))
			continue;
		for (tree_idx x = c; kids[x] == 1; x++)     /* its only child is x + 1 */
			total += tree_name_len(sh, x + 1) + 1;
	}
	f->text = xmalloc(total ? total : 1);
	size_t used = 0;
	for (tree_idx c = 0; c < n; c++) {
		if (kids[c] != 1 || (c && kids[sh->nodes[c].parent] == 1))
			continue;
		f->at[c] = (uint32_t)used;
		tree_idx x = c;
		for (; kids[x] == 1; x++) {
			if (x != c)
				f->text[used++] = ';';
			memcpy(f->text + used, tree_name(sh, x + 1), tree_name_len(sh, x + 1));
			used += tree_name_len(sh, x + 1);
		}
		f->chain[c] = (uint32_t)(used - f->at[c]);
		f->end[c] = x;
	}
	free(kids);
}

static void forks_free(struct forks *f)
{
	free(f->keys);
	free(f->node);
	free(f->at);
	free(f->chain);
	free(f->end);
	free(f->text);
	memset(f, 0, sizeof *f);
}

/* A line's key: its first frame outside the shared tree with the shared
 * node above it, or the shared node it ends at. stack: s[0..len). */
static uint64_t key_of(const struct forks *f, const char *s, size_t len)
{
	uint32_t cur = 0;
	if (len == 0)
		return fork_mix(0, FORK_END);   /* no frames: the root's own */
	for (size_t p = 0;;) {
		size_t cl = f->chain[cur];
		if (cl && len - p >= cl && (len - p == cl || s[p + cl] == ';') &&
		    memcmp(s + p, f->text + f->at[cur], cl) == 0) {
			cur = f->end[cur];      /* the whole chain */
			if (len - p == cl)
				return fork_mix(cur, FORK_END);
			p += cl + 1;
			continue;
		}
		size_t e;
		uint64_t h = frame_hash(s, p, len, &e);
		uint32_t c = forks_find(f, cur, h, s + p, e - p);
		if (c == UINT32_MAX)
			return fork_mix(cur, h);
		cur = c;
		if (e == len)
			return fork_mix(cur, FORK_END);
		p = e + 1;
	}
}

static void drop_near(const char *d, size_t len, size_t from, size_t hi);

/* Splits the stack s[0..len) into frames, as the folded reader does, in
 * *fr (grown as needed); returns how many. */
static size_t split_frames(const char *s, size_t len, struct tree_frame **fr, size_t *cap)
{
	size_t n = 0;
	for (size_t p = 0; len > 0;) {
		const char *semi = memchr(s + p, ';', len - p);
		size_t e = semi ? (size_t)(semi - s) : len;
		if (n == *cap) {
			*cap = *cap ? 2 * *cap : 64;
			*fr = xreallocarray(*fr, *cap, sizeof **fr);
		}
		(*fr)[n++] = (struct tree_frame){ s + p, e - p };
		if (!semi)
			break;
		p = e + 1;
	}
	return n;
}

/* The shared tree of d[0..len) in *sh: the paths of a sample of its lines
 * (SAMPLE_LINES from each of SAMPLE_WINDOWS places, each weighing its
 * bytes) that hold more than `share` of the sample. sample: room for
 * the sample's tree (freed here; for tree_free when memory runs out).
 * Returns the sample's nodes per byte. */
static double shared_of(struct tree *sh, struct tree *sample, const char *d, size_t len, double share)
{
	struct tree *smp = sample;
	tree_init(smp);
	struct tree_frame *fr = NULL;
	size_t cap = 0;
	uint64_t scanned = 0;
	for (size_t w = 0; w < SAMPLE_WINDOWS; w++) {
		size_t from = len / SAMPLE_WINDOWS * w;
		size_t hi = w + 1 < SAMPLE_WINDOWS ? len / SAMPLE_WINDOWS * (w + 1) : len;
		size_t p = w ? load_cut_in(d, from, hi, false, &scanned) : 0;
		if (w && !p)
			continue;
		for (int k = 0; k < SAMPLE_LINES && p < hi; k++) {
			const char *nl = memchr(d + p, '\n', len - p);
			size_t e = nl ? (size_t)(nl - d) : len, stack;
			struct tree_dec c, before;
			if (folded_parse_line(d + p, e - p, &stack, &c, &before) == FOLDED_STACK) {
				/* split first: it may move fr (arguments are evaluated
				 * in no set order) */
				size_t nf = split_frames(d + p, stack, &fr, &cap);
				tree_add_stack(smp, fr, nf, e - p + 1);
			}
			p = e + 1;
		}
		drop_near(d, len, from, p);
	}
	tree_finalize(smp, TREE_ORDER_NAME);
	double thr = share * (double)smp->nodes[0].total.u;
	double density = smp->nodes[0].total.u ? (double)smp->n / (double)smp->nodes[0].total.u : 0;
	tree_init(sh);
	size_t nf = 0;
	for (tree_idx i = 1; i < smp->n;) {
		const struct tree_node *x = &smp->nodes[i];
		if ((double)x->total.u <= thr) {
			i = x->end;
			continue;
		}
		nf = x->depth;
		if (nf > cap) {
			cap = nf;
			fr = xreallocarray(fr, cap, sizeof *fr);
		}
		fr[nf - 1] = (struct tree_frame){ tree_name(smp, i), tree_name_len(smp, i) };
		tree_add_stack(sh, fr, nf, 0);
		i++;
	}
	free(fr);
	tree_free(smp);
	tree_finalize(sh, TREE_ORDER_NAME);
	return density;
}

#define LEN_LONG 0xffffffu

/* Puts the line at off, len bytes without its newline, in part. */
static void push(struct range *r, int part, uint32_t off, size_t len)
{
	int g = (int)(r->where[part] >> 8);
	if (r->n[g] == r->cap[g]) {
		size_t c = r->cap[g] ? 2 * r->cap[g] : 1024;
		r->idx[g] = xreallocarray(r->idx[g], c, sizeof **r->idx);
		r->slot[g] = xreallocarray(r->slot[g], c, sizeof **r->slot);
		r->cap[g] = c;
	}
	r->idx[g][r->n[g]] = off;
	r->slot[g][r->n[g]++] = (uint32_t)(len < LEN_LONG ? len : LEN_LONG) << 8 | (r->where[part] & 0xff);
	r->bytes[part] += len + 1;
	r->lines[part]++;
}

static void drop(const char *d, size_t from, size_t to)
{
	(void)xgive_back(d + from, d + to);
}

/* Maps the pages of d[from, to) (the ones a sweep reads soon). */
static void populate(const char *d, size_t from, size_t to)
{
#if defined(HAVE_MADVISE) && defined(MADV_POPULATE_READ)
	long pg = sysconf(_SC_PAGESIZE);
	size_t page = pg > 0 ? (size_t)pg : 4096;
	uintptr_t a = ((uintptr_t)d + from) / page * page;
	uintptr_t e = (uintptr_t)d + to;
	if (e > a)
		madvise((void *)a, e - a, MADV_POPULATE_READ);    /* (older kernels: EINVAL, no harm) */
#else
	(void)d;
	(void)from;
	(void)to;
#endif
}

/* Unmaps the pages of d[0..len) around [from, hi), read by a probe: each
 * touch of the file maps much more of it than the page touched (its
 * read-ahead, large folios: 64 probes of a few KiB each mapped 206 MiB of
 * a 1 GiB file, the sample's 256 another 600), above the peak of the whole
 * load were they kept. */
static void drop_near(const char *d, size_t len, size_t from, size_t hi)
{
	size_t margin = (size_t)8 << 20;
	drop(d, from > margin ? from - margin : 0, hi + margin < len ? hi + margin : len);
}

/* The first pass over a range: each line parsed as the folded reader
 * parses it (the same diagnostics), its offset put in its part's group.
 * Memory running out sets r->failed. */
/* The first pass's work on one line, d[p, e) at text. */
static void cut_line(struct range *r, const char *text, size_t p, size_t e)
{
	size_t stack;
	struct tree_dec c, before;
	r->diag.lines++;
	switch (folded_parse_line(text, e - p, &stack, &c, &before)) {
	case FOLDED_BLANK:
		break;
	case FOLDED_BAD:
		r->diag.bad++;
		if (!r->diag.first_bad) {
			char snippet[64];
			r->diag.first_bad = r->diag.lines;
			text_sanitize(text, e - p, snippet, sizeof snippet);
			snprintf(r->diag.first_msg, sizeof r->diag.first_msg, "%s: \"%s\"", FOLDED_BAD_WHY, snippet);
		}
		break;
	case FOLDED_STACK:
		r->diag.stacks++;
		if (c.decimals || c.saturated || __builtin_add_overflow(r->sum, c.units, &r->sum))
			r->unfit = true;
		/* (the key's high half times the parts: no division) */
		push(r, (int)((key_of(r->fk, text, stack) >> 32) * (uint64_t)r->nparts >> 32), (uint32_t)p, e - p);
		break;
	}
}

/* The first pass over range r: its lines read a window at a time into a
 * buffer (source_pread, as gather reads them), a line longer than a
 * window through the mapping. */
static void cut_range(struct range *r, int fail)
{
	jmp_buf env;
	char *volatile win = NULL;
	if (setjmp(env)) {
		xalloc_catch(NULL);     /* (the tests' jump leaves it set) */
		free(win);
		r->failed = true;
		return;
	}
	xalloc_catch(&env);
	win = xmalloc(PART_POPULATE + PART_WIN_SLACK);
	const char *d = r->d;
	size_t dropped = r->lo;
	bool reads = true;      /* false once a read came short (the file shrank) */
	for (size_t p = r->lo; p < r->hi;) {
		/* the window: d[p, have) in win, or nothing read */
		size_t want = r->hi - p < PART_POPULATE + PART_WIN_SLACK ? r->hi - p : PART_POPULATE + PART_WIN_SLACK;
		ssize_t got = reads ? source_pread(r->src, win, want, p) : -1;
		reads = got == (ssize_t)want;
		size_t have = reads ? p + want : p;
		size_t lim = have == r->hi ? r->hi : have > p + PART_POPULATE ? p + PART_POPULATE : p;
		size_t first = p;
		while (p < lim) {
			const char *text = win + (p - first);
			const char *nl = memchr(text, '\n', have - p);
			if (!nl && have < r->hi)
				break;          /* it runs past the window: the next one */
			size_t e = nl ? p + (size_t)(nl - text) : r->hi;
			cut_line(r, text, p, e);
			p = e + 1;
		}
		if (p == first) {
			/* nothing read, or a line longer than the window: the
			 * mapping's */
			populate(d, p, r->hi - p < PART_POPULATE ? r->hi : p + PART_POPULATE);
			const char *nl = memchr(d + p, '\n', r->hi - p);
			size_t e = nl ? (size_t)(nl - d) : r->hi;
			cut_line(r, d + p, p, e);
			p = e + 1;
		}
		if (p - dropped >= PART_DROP) {
			drop(d, dropped, p < r->hi ? p : r->hi);
			dropped = p < r->hi ? p : r->hi;
			atomic_store(&r->done, dropped - r->lo);
		}
	}
	if (fail)
		longjmp(env, 1);        /* tests: as if memory ran out here */
	xalloc_catch(NULL);
	free(win);
	drop(d, dropped, r->hi);
	atomic_store(&r->done, r->hi - r->lo);
}

struct cut_arg {
	struct range *r;
	int fail;
};

static void *cut_main(void *arg)
{
	struct cut_arg *a = arg;
	cut_range(a->r, a->fail);
	return NULL;
}

static void progress(struct load_progress *pr, const struct build *b)
{
	/* the first pass is a quarter of the work, the parts the rest */
	uint64_t cut = 0;
	for (int i = 0; i < b->nranges; i++)
		cut += atomic_load(&b->ranges[i].done);
	uint64_t done = cut / 4 + (uint64_t)((double)atomic_load(&b->built) * 0.75);
	load_progress_update(pr, done < b->len ? done : b->len, b->len, b->stacks, false);
}

/* Makes *p (of *cap bytes) at least n bytes long; its contents go. */
static void room(char **p, size_t *cap, size_t n)
{
	if (*cap >= n)
		return;
	free(*p);
	*p = NULL;
	*cap = 0;
	*p = xmalloc(n);
	*cap = n;
}

/* Builds part p from its lines: sorted, so that the reader finds most
 * frames in the line before's (sorted input is read several times faster
 * than shuffled: no child hash, nodes made in preorder), fed line by line
 * from the group's buffer (pb bytes of them), then finalized, its names
 * moved into b->names, and packed: the parts wait for the join in an
 * eighth of their trees' memory, and the next part's tree is built where
 * this one was. */
static void build_part(struct worker *w, int p, int k, size_t pb)
{
	struct build *b = w->b;
	struct line *ln = w->lines[k];
	size_t n = w->nlines[k];
	sort_lines(&w->so, ln, n);
	struct tree *t = &w->part;
	tree_init(t);
	/* its nodes' room at once, from the sample's nodes a byte: grown
	 * from 1024 by doubling, each part's array was copied about once (a
	 * part far bigger than foreseen grows as before) */
	double want = (double)pb * b->node_rate * 1.25;
	if (want > 1024 && want * sizeof(struct tree_node) <= 4 * PART_TREE_BYTES)
		tree_reserve(t, (size_t)want);
	w->r = folded_reader_new(t);
	/* fed from where they were gathered, which stays as it is until the
	 * part is built (copied in order into one block, they took a third of
	 * the memmove of the load) */
	for (size_t i = 0; i < n; i++) {
		/* (in byte order the lines are all over the part's stretch of
		 * the buffer: the next ones' misses overlap this one's parse) */
		if (i + PART_FEED_AHEAD < n) {
			const struct line *a = &ln[i + PART_FEED_AHEAD];
			for (size_t c = 0; c < a->len; c += 64)
				__builtin_prefetch(a->s + c);
		}
		folded_reader_feed_kept(w->r, ln[i].s, ln[i].len);
	}
	folded_reader_free(w->r);
	w->r = NULL;
	tree_finalize(t, b->torder);
	pthread_mutex_lock(&b->names_mu);
	w->locked = true;
	tree_join_names(&b->names, t);
	w->locked = false;
	pthread_mutex_unlock(&b->names_mu);
	/* (false: memory ran out, or counts tree_join refuses; either way
	 * the file is read the usual way) */
	bool packed = tree_pack(&b->packs[p], t, &b->shape, 0);
	tree_free(t);
	if (!packed)
		longjmp(w->env, 1);
}

/* ---- rounds ----
 * Groups are built a round at a time, a group a thread. The lines of a
 * round's groups are gathered by all its threads together, each through
 * ranges of the file of its own, for all the round's groups in one sweep;
 * then each thread builds its own group's parts. So each page of the file
 * is mapped once a round, not once a group, and by one thread, which maps
 * its range ahead and drops it behind (two threads mapping the same pages
 * at once made the kernel's counts of each page go back and forth between
 * the cores: with pages mapped ahead on two threads, 2.6 -> 6.1 s of
 * system time on genfolded's 1 GiB). */

/* The parts in group gi. */
static int group_parts(const struct build *b, int gi)
{
	int p0 = gi * b->group;
	return b->nparts - p0 < b->group ? b->nparts - p0 : b->group;
}

/* Waits for the other threads to get here; false when memory ran out in
 * one of them (then everyone stops). */
static bool meet(struct build *b)
{
	pthread_mutex_lock(&b->meet_mu);
	unsigned round = b->meet_round;
	if (++b->meeting == b->nthreads) {
		b->meeting = 0;
		b->meet_round++;
		pthread_cond_broadcast(&b->meet_cv);
	} else {
		while (round == b->meet_round && !atomic_load(&b->failed))
			pthread_cond_wait(&b->meet_cv, &b->meet_mu);
	}
	pthread_mutex_unlock(&b->meet_mu);
	return !atomic_load(&b->failed);
}

/* Stops every thread (memory ran out in this one). */
static void fail_all(struct build *b)
{
	pthread_mutex_lock(&b->meet_mu);
	atomic_store(&b->failed, true);
	pthread_cond_broadcast(&b->meet_cv);
	pthread_mutex_unlock(&b->meet_mu);
}

/* Room in w's buffer and line lists for its group w->gi: each part's lines
 * together, as many as the first pass counted. */
static void layout(struct worker *w)
{
	struct build *b = w->b;
	int p0 = w->gi * b->group, g = group_parts(b, w->gi);
	size_t total = 0;
	for (int k = 0; k < g; k++) {
		uint64_t by = 0;
		size_t nl = 0;
		for (int i = 0; i < b->nranges; i++) {
			by += b->ranges[i].bytes[p0 + k];
			nl += b->ranges[i].lines[p0 + k];
		}
		w->pb[k] = (size_t)by;
		w->at[k] = total;
		total += w->pb[k];
		if (nl > w->caplines[k]) {
			free(w->lines[k]);      /* (nothing in it to keep) */
			w->lines[k] = NULL;
			w->caplines[k] = 0;
			w->lines[k] = xreallocarray(NULL, nl, sizeof *w->lines[k]);
			w->caplines[k] = nl;
		}
		w->nlines[k] = nl;
	}
	room(&w->buf, &w->bufcap, total ? total : 1);
	/* Groups come biggest first: the pages past this one's lines are
	 * not needed again (the real-shaped file's first group is 39 MiB,
	 * its last 27: 12 MiB a thread held to the end, at the peak). */
	drop(w->buf, total, w->bufcap);
}

/* Gathers the lines of range ri of the round's groups (the n workers from
 * b->workers that build one) into their builders' buffers: one sweep,
 * window by window, each group's lines in the window in file order.
 *
 * A window is read into w->win (pread), not through the mapping: every
 * round sweeps the file again, and pages read through the mapping were
 * mapped anew each time (given back behind, to bound the memory). On a
 * Linux 6.18 guest counting the lines of 1 GiB took 0.69-0.77 s through
 * the mapping, 0.22-0.24 s read into a 4 MiB buffer. A line that runs past
 * what was read (the window's last, a long one, a file cut short) is read
 * through the mapping. */
static void gather(struct worker *w, int ri, int n)
{
	struct build *b = w->b;
	const struct range *rg = &b->ranges[ri];
	const char *d = b->d;
	size_t m[PART_MAX_THREADS];
	for (int j = 0; j < n; j++) {
		/* where range ri's lines of each part go: after the ranges' before */
		const struct worker *o = &b->workers[j];
		int p0 = o->gi * b->group, g = group_parts(b, o->gi);
		for (int k = 0; k < g; k++) {
			size_t at = o->at[k], li = 0;
			for (int i = 0; i < ri; i++) {
				at += (size_t)b->ranges[i].bytes[p0 + k];
				li += b->ranges[i].lines[p0 + k];
			}
			w->gat[j][k] = at;
			w->gli[j][k] = li;
		}
		m[j] = 0;
	}
	size_t dropped = rg->lo;
	room(&w->win, &w->wincap, PART_POPULATE + PART_WIN_SLACK);
	for (size_t win = rg->lo; win < rg->hi && !atomic_load_explicit(&b->failed, memory_order_relaxed);
	     win += PART_POPULATE) {
		size_t end = rg->hi - win > PART_POPULATE ? win + PART_POPULATE : rg->hi;
		size_t want = b->len - win < PART_POPULATE + PART_WIN_SLACK ? b->len - win : PART_POPULATE + PART_WIN_SLACK;
		ssize_t got = source_pread(b->src, w->win, want, win);
		size_t have = got > 0 ? (size_t)got : 0;     /* w->win holds d[win, win + have) */
		if (have < end - win)
			populate(d, win + have, end);
		for (int j = 0; j < n; j++) {
			struct worker *o = &b->workers[j];
			const uint32_t *idx = rg->idx[o->gi];
			const uint32_t *slot = rg->slot[o->gi];
			size_t nl = rg->n[o->gi], *at = w->gat[j], *li = w->gli[j];
			for (; m[j] < nl && idx[m[j]] < end; m[j]++) {
				size_t i = m[j], off = idx[i];
				/* the lines a few ahead: their cache misses overlap */
				if (i + PART_AHEAD < nl) {
					size_t ao = idx[i + PART_AHEAD];
					const char *ahead = ao - win < have ? w->win + (ao - win) : d + ao;
					__builtin_prefetch(ahead);
					__builtin_prefetch(ahead + 64);
					__builtin_prefetch(ahead + 128);
					__builtin_prefetch(ahead + 192);
				}
				int k = (int)(slot[i] & 0xff);
				size_t l = slot[i] >> 8;
				if (l == LEN_LONG) {
					const char *nlp = memchr(d + off, '\n', b->len - off);
					l = nlp ? (size_t)(nlp - (d + off)) : b->len - off;
				}
				o->lines[k][li[k]++] = (struct line){ o->buf + at[k], l };
				memcpy(o->buf + at[k], off + l - win <= have ? w->win + (off - win) : d + off, l);
				at[k] += l + 1;
			}
		}
		/* the window before is read (a line begun there may end in
		 * this one: kept): two windows mapped at most */
		drop(d, dropped, win);
		dropped = win;
	}
	drop(d, dropped, rg->hi);   /* (pages across the range's ends kept) */
}

/* Builds w's group of the round, its lines gathered: part by part, each
 * alone in the cache. */
static void build_group(struct worker *w, bool final)
{
	struct build *b = w->b;
	int gi = w->gi, p0 = gi * b->group, g = group_parts(b, gi);
	/* its index is read: gone (this thread's alone now) */
	for (int i = 0; i < b->nranges; i++) {
		free(b->ranges[i].idx[gi]);
		free(b->ranges[i].slot[gi]);
		b->ranges[i].idx[gi] = NULL;
		b->ranges[i].slot[gi] = NULL;
	}
	if (b->fail_at == 2 && gi == b->ngroups - 1)
		longjmp(w->env, 1);     /* tests: as if memory ran out here */
	/* In a thread's last two groups, each part's lines go once it is built: the
	 * parts' trees are nearly the whole tree then, and a group's buffer is
	 * a 32nd of the file a thread. Before, the pages stay for the next
	 * group (given back and taken again, they cost the real-shaped file a
	 * fifth of its page faults). */
	for (int k = 0; k < g && !atomic_load_explicit(&b->failed, memory_order_relaxed); k++) {
		build_part(w, p0 + k, k, w->pb[k]);
		if (final)
			drop(w->buf, w->at[k], w->at[k] + w->pb[k]);
		atomic_fetch_add(&b->built, w->pb[k]);
	}
}

/* Frees what w holds. */
static void worker_free(struct worker *w)
{
	folded_reader_free(w->r);
	w->r = NULL;
	tree_free(&w->part);
	free(w->buf);
	w->buf = NULL;
	w->bufcap = 0;
	free(w->win);
	w->win = NULL;
	w->wincap = 0;
	sorter_free(&w->so);
	for (int k = 0; k < PART_MAX_GROUP; k++) {
		free(w->lines[k]);
		w->lines[k] = NULL;
		w->caplines[k] = 0;
	}
}

/* Builds w's groups, a round at a time with the other threads, until none
 * is left or memory runs out (anywhere: then b->failed is set and
 * everything stops). */
static void build_groups(struct worker *w, struct load_progress *pr)
{
	struct build *b = w->b;
	if (setjmp(w->env)) {
		xalloc_catch(NULL);     /* (the tests' jump leaves it set) */
		if (w->locked)
			pthread_mutex_unlock(&b->names_mu);
		w->locked = false;
		worker_free(w);
		fail_all(b);
		return;
	}
	xalloc_catch(&w->env);
	pthread_mutex_lock(&b->meet_mu);    /* until b->nthreads is known */
	while (!b->go)
		pthread_cond_wait(&b->meet_cv, &b->meet_mu);
	pthread_mutex_unlock(&b->meet_mu);
	int n = b->nthreads;
	for (int r0 = 0; r0 < b->ngroups; r0 += n) {
		int in = b->ngroups - r0 < n ? b->ngroups - r0 : n;
		w->gi = w->id < in ? b->order[r0 + w->id] : -1;
		if (w->gi >= 0)
			layout(w);
		if (!meet(b))
			break;
		for (int ri = w->id; ri < b->nranges; ri += n)
			gather(w, ri, in);
		if (!meet(b))
			break;
		if (w->gi >= 0)
			build_group(w, r0 + w->id + 2 * n >= b->ngroups);
		if (pr)
			progress(pr, b);
	}
	xalloc_catch(NULL);
	worker_free(w);
}

static void *build_main(void *arg)
{
	build_groups(arg, NULL);
	return NULL;
}

/* Whether d[0..len) looks sorted: in PROBE_WINDOWS stretches spread over
 * it, at least 9 in 10 consecutive stacks in byte order. */
static bool looks_sorted(const char *d, size_t len)
{
	size_t pairs = 0, sorted = 0;
	uint64_t scanned = 0;
	for (size_t w = 0; w < PROBE_WINDOWS; w++) {
		size_t from = len / PROBE_WINDOWS * w, hi = w + 1 < PROBE_WINDOWS ? len / PROBE_WINDOWS * (w + 1) : len;
		size_t p = w ? load_cut_in(d, from, hi, false, &scanned) : 0;
		if (w && !p)
			continue;
		const char *prev = NULL;
		size_t prevlen = 0;
		for (int k = 0; k < PROBE_LINES && p < hi; k++) {
			const char *nl = memchr(d + p, '\n', hi - p);
			size_t e = nl ? (size_t)(nl - d) : hi, stack;
			struct tree_dec c, before;
			if (folded_parse_line(d + p, e - p, &stack, &c, &before) == FOLDED_STACK) {
				if (prev) {
					int cmp = memcmp(prev, d + p, prevlen < stack ? prevlen : stack);
					pairs++;
					sorted += cmp < 0 || (cmp == 0 && prevlen <= stack);
				}
				prev = d + p;
				prevlen = stack;
			}
			p = e + 1;
		}
		drop_near(d, len, from, p);
	}
	return pairs > 0 && sorted * 10 >= pairs * 9;
}

static const uint64_t *sort_bytes;      /* qsort's context */

static int cmp_groups(const void *a, const void *b)
{
	uint64_t x = sort_bytes[*(const int *)a], y = sort_bytes[*(const int *)b];
	return x < y ? 1 : x > y ? -1 : (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

static void free_ranges(struct range *rg, int nr, int ngroups)
{
	for (int i = 0; rg && i < nr; i++) {
		for (int g = 0; rg[i].idx && g < ngroups; g++) {
			free(rg[i].idx[g]);
			free(rg[i].slot[g]);
		}
		free(rg[i].idx);
		free(rg[i].slot);
		free(rg[i].n);
		free(rg[i].cap);
		free(rg[i].bytes);
		free(rg[i].lines);
	}
	free(rg);
}

/* Everything load_parts holds, freed at the end or when memory ran out. */
struct parts_run {
	struct build b;
	struct tree sh, sample;     /* zeroed until used: tree_free takes both */
	struct forks fk;
	uint64_t *gbytes;
	uint32_t *where;            /* see struct range */
	bool mu_init;
};

static void run_free(struct parts_run *u)
{
	struct build *b = &u->b;
	free_ranges(b->ranges, b->nranges, b->ngroups);
	b->ranges = NULL;
	for (int p = 0; b->packs && p < b->nparts; p++)
		tree_pack_free(&b->packs[p]);
	free(b->packs);
	b->packs = NULL;
	tree_shape_free(&b->shape);
	free(b->order);
	b->order = NULL;
	free(u->gbytes);
	free(u->where);
	u->where = NULL;
	u->gbytes = NULL;
	forks_free(&u->fk);
	tree_free(&u->sh);
	tree_free(&u->sample);
	tree_free(&b->names);
	if (u->mu_init) {
		pthread_mutex_destroy(&b->names_mu);
		pthread_mutex_destroy(&b->meet_mu);
		pthread_cond_destroy(&b->meet_cv);
	}
	u->mu_init = false;
}

/* The bytes of nodes of the tree of a file of len bytes whose sample had
 * `density` nodes per byte. A sample of lines from all over the file
 * shares fewer prefixes than the whole: it had 2.8 (genfolded) and 3.0
 * (real-shaped) times the nodes per byte of the whole tree. */
static double tree_guess(size_t len, double density)
{
	return (double)len * density / 3 * (double)sizeof(struct tree_node);
}

/* The parts of a file whose tree is about `bytes`: TFLAME_PARTS (tests),
 * or a power of two from PART_MIN_COUNT to PART_MAX_COUNT, a part's nodes
 * about PART_TREE_BYTES. */
static int parts_for(int forced, double bytes)
{
	if (forced)
		return forced;
	int n = PART_MIN_COUNT;
	while (n < PART_MAX_COUNT && (double)n * PART_TREE_BYTES < bytes)
		n *= 2;
	return n;
}

/* The group of parts a sweep gathers, and how many there are, on nthr
 * threads for a tree of about tree_bytes. */
static void groups_of(struct build *b, int nthr, double tree_bytes)
{
	int n64 = PART_GROUP_64THS;
	double room = tree_bytes / PART_GROUP_TREE_SHARE;
	if (room < PART_GROUP_MIN_BYTES)
		room = PART_GROUP_MIN_BYTES;
	while (n64 < PART_GROUP_MAX_64THS && (double)b->len * 2 * n64 / 64 * nthr <= room)
		n64 *= 2;
	b->group = (b->nparts * n64 + 63) / 64;
	if (b->group > PART_MAX_GROUP)
		b->group = PART_MAX_GROUP;
	b->ngroups = (b->nparts + b->group - 1) / b->group;
}

/* What u's run allocates before the first pass: the names' tree, the
 * shared tree (and from its sample, the number of parts), the ranges (one
 * per thread, at line starts), the parts.
 * False when memory ran out (what was allocated is for run_free). */
static bool run_alloc(struct parts_run *u, int nthr, double share, int forced)
{
	struct build *b = &u->b;
	jmp_buf env;
	if (setjmp(env)) {
		xalloc_catch(NULL);
		return false;
	}
	xalloc_catch(&env);
	tree_init(&b->names);
	double density = shared_of(&u->sh, &u->sample, b->d, b->len, share);
	double guess = tree_guess(b->len, density);
	b->nparts = parts_for(forced, guess);
	groups_of(b, nthr, guess);
	b->node_rate = guess / (double)sizeof(struct tree_node) / (double)(b->len ? b->len : 1);
	forks_init(&u->fk, &u->sh);
	u->where = xmalloc((size_t)b->nparts * sizeof *u->where);
	for (int p = 0; p < b->nparts; p++)
		u->where[p] = (uint32_t)(p / b->group) << 8 | (uint32_t)(p % b->group);
	size_t cut[PART_MAX_THREADS + 1];
	int nr = (int)load_cuts(b->d, b->len, false, (size_t)nthr, cut, NULL);
	b->ranges = xcalloc((size_t)nr, sizeof *b->ranges);
	b->nranges = nr;
	for (int i = 0; i < nr; i++) {
		struct range *r = &b->ranges[i];
		r->d = b->d;
		r->src = b->src;
		r->lo = cut[i];
		r->hi = cut[i + 1];
		r->fk = &u->fk;
		r->nparts = b->nparts;
		r->where = u->where;
		r->idx = xcalloc((size_t)b->ngroups, sizeof *r->idx);
		r->slot = xcalloc((size_t)b->ngroups, sizeof *r->slot);
		r->n = xcalloc((size_t)b->ngroups, sizeof *r->n);
		r->cap = xcalloc((size_t)b->ngroups, sizeof *r->cap);
		r->bytes = xcalloc((size_t)b->nparts, sizeof *r->bytes);
		r->lines = xcalloc((size_t)b->nparts, sizeof *r->lines);
		atomic_init(&r->done, 0);
	}
	b->packs = xcalloc((size_t)b->nparts, sizeof *b->packs);
	if (!tree_shape_init(&b->shape, &b->names, &u->sh))
		longjmp(env, 1);
	u->gbytes = xcalloc((size_t)b->ngroups, sizeof *u->gbytes);
	b->order = xmalloc((size_t)b->ngroups * sizeof *b->order);
	xalloc_catch(NULL);
	return true;
}

bool load_parts(struct tree *t, struct source *s, const struct load_options *o, struct load_progress *pr,
                struct load_messages *m, const char *name)
{
	const char *d;
	size_t len;
	const char *pe = getenv("TFLAME_PARTS");
	int forced = pe && atoi(pe) > 0 ? atoi(pe) : 0;
	if (forced > PART_MAX_COUNT)
		forced = PART_MAX_COUNT;
	if (t->n != 1 || t->stacks || t->chart || o->before || o->order == TREE_ORDER_INPUT ||
	    !source_mapping(s, &d, &len) || len >= UINT32_MAX)
		return false;
	/* TFLAME_PARTS (tests): in that many parts, whatever the file. */
	if (!forced && len < PART_MIN_BYTES)
		return false;
	if (!forced && looks_sorted(d, len))
		return false;
	int nthr = o->threads < 1 ? 1 : o->threads > PART_MAX_THREADS ? PART_MAX_THREADS : o->threads;
	/* TFLAME_PARTS_FAIL (tests): memory runs out in the first pass (1),
	 * the parts (2) or the join (3); or no thread but the caller's can be
	 * started to build the parts (4). */
	double share = PART_SHARE;
	const char *fe = getenv("TFLAME_PARTS_FAIL");
	int fail_at = fe ? atoi(fe) : 0;

	/* Everything is held in *u, which a jump out of xalloc_catch finds. */
	struct parts_run *u = calloc(1, sizeof *u);
	if (!u)
		return false;
	struct build *b = &u->b;
	b->d = d;
	b->len = len;
	b->src = s;
	b->torder = o->order;
	b->fail_at = fail_at;
	atomic_init(&b->built, 0);
	atomic_init(&b->failed, false);
	pthread_mutex_init(&b->names_mu, NULL);
	pthread_mutex_init(&b->meet_mu, NULL);
	pthread_cond_init(&b->meet_cv, NULL);
	u->mu_init = true;
	if (!run_alloc(u, nthr, share, forced))
		goto fail;
	int nparts = b->nparts;
	int nr = b->nranges;
	pthread_t tid[PART_MAX_THREADS];
	bool on[PART_MAX_THREADS] = { false };
	struct cut_arg ca[PART_MAX_THREADS];
	for (int i = 0; i < nr; i++)
		ca[i] = (struct cut_arg){ &b->ranges[i], fail_at == 1 && i == nr - 1 };
	for (int i = 1; i < nr; i++)
		on[i] = pthread_create(&tid[i], NULL, cut_main, &ca[i]) == 0;
	cut_range(&b->ranges[0], ca[0].fail);
	progress(pr, b);
	for (int i = 1; i < nr; i++) {
		if (on[i])
			pthread_join(tid[i], NULL);
		else
			cut_range(&b->ranges[i], ca[i].fail);
	}
	/* Diagnostics of the whole file, in line order; what cannot go in
	 * parts (fractional or clamped counts, a sum beyond 64 bits) is read
	 * the usual way. */
	struct reader_diag all = { 0 };
	uint64_t sum = 0;
	bool unfit = false;
	for (int i = 0; i < nr; i++) {
		const struct reader_diag *dg = &b->ranges[i].diag;
		if (dg->bad && !all.bad) {
			all.first_bad = all.lines + dg->first_bad;
			memcpy(all.first_msg, dg->first_msg, sizeof all.first_msg);
		}
		all.lines += dg->lines;
		all.stacks += dg->stacks;
		all.bad += dg->bad;
		unfit |= b->ranges[i].unfit || b->ranges[i].failed || __builtin_add_overflow(sum, b->ranges[i].sum, &sum);
	}
	b->stacks = all.stacks;
	if (unfit)
		goto fail;

	/* The groups, biggest first, on every thread. */
	for (int p = 0; p < nparts; p++) {
		for (int i = 0; i < nr; i++)
			u->gbytes[p / b->group] += b->ranges[i].bytes[p];
	}
	for (int g = 0; g < b->ngroups; g++)
		b->order[g] = g;
	sort_bytes = u->gbytes;
	qsort(b->order, (size_t)b->ngroups, sizeof *b->order, cmp_groups);
	sort_bytes = NULL;
	struct worker *w = calloc((size_t)nthr, sizeof *w);
	if (!w)
		goto fail;
	b->workers = w;
	for (int i = 0; i < nthr; i++) {
		w[i].b = b;
		w[i].id = i;
		/* the sort's pivots: not to be guessed by whoever made the file */
		w[i].so.rng = ((uint64_t)(load_now() * 1e9) ^ (uint64_t)(uintptr_t)&w[i]) | 1;
	}
	/* as many threads as could be started, all in every round */
	int started = 1;
	for (int i = 1; i < nthr; i++)
		on[i] = false;
	while (started < nthr && fail_at != 4 && pthread_create(&tid[started], NULL, build_main, &w[started]) == 0)
		on[started++] = true;
	pthread_mutex_lock(&b->meet_mu);
	b->nthreads = started;
	b->go = true;
	pthread_cond_broadcast(&b->meet_cv);
	pthread_mutex_unlock(&b->meet_mu);
	build_groups(&w[0], pr);
	for (int i = 1; i < nthr; i++)
		if (on[i])
			pthread_join(tid[i], NULL);
	b->workers = NULL;
	free(w);
	if (atomic_load(&b->failed))
		goto fail;
	struct load_parts_stats st = { nparts, u->sh.n, 0, 0, 0, 0 };
	for (tree_idx i = 0; i < u->sh.n; i++)
		if (u->sh.nodes[i].depth > st.shared_depth)
			st.shared_depth = u->sh.nodes[i].depth;
	for (int p = 0; p < nparts; p++) {
		uint64_t by = 0;
		for (int i = 0; i < nr; i++)
			by += b->ranges[i].bytes[p];
		st.bytes += by;
		st.used += by > 0;
		if (by > st.biggest)
			st.biggest = by;
	}
	free_ranges(b->ranges, b->nranges, b->ngroups);
	b->ranges = NULL;

	/* The parts' names become t's table ("all" is 0 in both), then the
	 * parts t's tree; when they cannot join, t gets its table back. */
	struct strtab old = t->names;
	t->names = b->names.names;
	bool ok = fail_at != 3 && tree_join(t, b->packs, (size_t)nparts, o->order, &u->sh);
	if (!ok) {
		t->names = old;
		goto fail;
	}
	strtab_free(&old);
	memset(&b->names.names, 0, sizeof b->names.names);
	load_parts_last = st;
	run_free(u);
	free(u);
#ifdef __GLIBC__
	malloc_trim(0);     /* (as below: the parts' room is the tree's now) */
#endif
	load_progress_update(pr, len, len, t->stacks, true);
	load_report_diag(m, name, &all, o);
	return true;
fail:
	run_free(u);
	free(u);
#ifdef __GLIBC__
	/* What the parts held is free, but the heap keeps its top (glibc
	 * trims only above a threshold that big blocks raise): the usual
	 * read that follows needs that room. */
	malloc_trim(0);
#endif
	return false;
}
