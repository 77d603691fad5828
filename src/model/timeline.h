/* timeline: when each sample was taken, on which thread, with which stack.
 *
 * Readers whose input has times (perf script, perf.data, .cpuprofile) append
 * one entry per sample while the tree is built: its time in nanoseconds, its
 * stack as the tree's leaf node, its thread and its weight (the integer
 * count the reader gave the tree: inputs with times have integer weights). The entries are delta-coded varints, a few bytes each, in
 * blocks of TIMELINE_BLOCK that decode on their own; a block records the
 * smallest and largest time in it, so a time range skips the blocks outside
 * it whatever the input's order (perf's per-CPU buffers are not sorted).
 *
 * Life cycle: timeline_init; timeline_thread / timeline_add while the tree
 * is built (leaf ids as tree_add_stack* returned them); timeline_renumber
 * with tree_finalize_map's map; then the read-only queries. Appending a
 * timeline whose leaf ids belong to another tree goes through
 * timeline_append with that tree's merge map. Memory allocation failure
 * dies (xalloc), as for the tree. */
#ifndef TFLAME_TIMELINE_H
#define TFLAME_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tree.h"

#define TIMELINE_BLOCK 1024u

struct timeline_thread {
	int64_t pid, tid;       /* -1 when the input does not say */
	char *comm;             /* NUL-terminated, sanitized by the reader */
	uint64_t samples;       /* entries on this thread */
	uint64_t weight;        /* their weights (saturating) */
};

struct timeline_block {
	size_t off;             /* its first byte in the stream */
	uint64_t tmin, tmax;
};

struct timeline {
	unsigned char *buf;     /* the entries, see timeline.c */
	size_t len, cap;
	struct timeline_block *blocks;
	size_t nblocks, capblocks;
	uint64_t n;             /* entries */
	uint64_t tmin, tmax;    /* over all entries (0, 0 when none) */
	struct timeline_thread *threads;
	size_t nthreads, capthreads;
	uint32_t *thash;        /* thread lookup: index + 1, 0 empty */
	size_t capthash;
	/* the entry before, which the next one is coded against */
	uint64_t prev_t, prev_w;
	tree_idx prev_leaf;
	uint32_t prev_thread;
	/* Leaves as coded, through map (nmap entries; NULL: as they are): the
	 * renumbering kept aside when that is cheaper than coding every
	 * entry again (timeline_renumber). */
	tree_idx *map;
	size_t nmap;
};

/* One entry. */
struct timeline_sample {
	uint64_t time;          /* ns */
	tree_idx leaf;
	uint32_t thread;        /* index into timeline.threads */
	uint64_t weight;
};

void timeline_init(struct timeline *tl);
void timeline_free(struct timeline *tl);

/* The index of thread (pid, tid, comm[0..len)), added when new. A thread
 * that changes its name (exec) becomes a new entry. */
uint32_t timeline_thread(struct timeline *tl, int64_t pid, int64_t tid, const char *comm,
                         size_t len);
/* Appends one sample (after a timeline_renumber that kept its map, the
 * entries are coded again first). */
void timeline_add(struct timeline *tl, uint64_t time, tree_idx leaf, uint32_t thread,
                  uint64_t weight);
/* Appends src's entries, src left as it was: leaves through leaf(arg, id)
 * (NULL: as they are; TREE_NONE drops the entry), times plus shift ns
 * (clamped to [0, UINT64_MAX]), threads re-interned. For a reader's own
 * timeline with provisional leaves, and for a tree merged into another
 * (timeline_leaf_map with tree_merge_free_map's map as arg). */
typedef tree_idx timeline_leaf_fn(void *arg, tree_idx id);
void timeline_append(struct timeline *tl, const struct timeline *src, timeline_leaf_fn *leaf,
                     void *arg, int64_t shift);
/* ((const tree_idx *)arg)[id]. */
tree_idx timeline_leaf_map(void *arg, tree_idx id);
/* Maps every leaf through map (n entries: old id -> new id, as
 * tree_finalize_map gives; NULL: ids unchanged), and gives back the memory
 * kept for growth: the end of adding (adding more stays correct, it only
 * grows again). A map of at most 1/timeline_map_share of the entries'
 * bytes is kept (a copy) and applied as entries are read: a 283 MB
 * .cpuprofile's 28.8M samples were decoded and coded again in 0.66 s for
 * a map of 50k nodes; else every entry is coded again with its new leaf. */
void timeline_renumber(struct timeline *tl, const tree_idx *map, size_t n);
/* 4; tests set 0 (every map kept) or UINT_MAX (none). */
extern unsigned timeline_map_share;

/* Decoding a block at a time, for passes over many entries (timeindex.c):
 * timeline_cursor_block positions c at the first entry of block b (<
 * tl->nblocks), each timeline_cursor_next decodes the next into c->cur
 * while c->left > 0. The stream is the timeline's own, so it is not
 * checked: a few ns an entry. */
struct timeline_cursor {
	const unsigned char *p;
	uint32_t left;          /* entries left in the block */
	struct timeline_sample cur;
	tree_idx raw;           /* cur's leaf as coded */
	const tree_idx *map;    /* the timeline's */
};
void timeline_cursor_block(struct timeline_cursor *c, const struct timeline *tl, size_t b);

/* The flags of an entry's head (see timeline.c). */
enum { TIMELINE_F_THREAD = 1, TIMELINE_F_WEIGHT = 2, TIMELINE_F_ABS = 4, TIMELINE_F_KILO = 8 };

/* The coding helpers the timeline and its index (timeindex.c) share:
 * zigzag for signed deltas, a varint written at p (returns the byte after
 * it), and splitmix64's finalizer for hashing ids. */
static inline uint64_t timeline_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline unsigned char *timeline_put_varint(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

static inline uint64_t timeline_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static inline uint64_t timeline_varint(const unsigned char **pp)
{
	const unsigned char *p = *pp;
	uint64_t v = *p++;
	if (v >= 0x80) {
		v &= 0x7f;
		for (unsigned shift = 7; shift < 64; shift += 7) {
			uint64_t b = *p++;
			v |= (b & 0x7f) << shift;
			if (b < 0x80)
				break;
		}
	}
	*pp = p;
	return v;
}

static inline void timeline_cursor_next(struct timeline_cursor *c)
{
	uint64_t h = timeline_varint(&c->p);
	if (h & TIMELINE_F_ABS) {
		c->cur.time = timeline_varint(&c->p);
	} else {
		uint64_t d = h >> 4, dt = (d >> 1) ^ (0 - (d & 1));     /* unzigzag */
		c->cur.time += h & TIMELINE_F_KILO ? dt * 1000u : dt;
	}
	uint64_t l = timeline_varint(&c->p);
	c->raw = (tree_idx)(c->raw + (uint32_t)((l >> 1) ^ (0 - (l & 1))));
	c->cur.leaf = c->map ? c->map[c->raw] : c->raw;
	if (h & TIMELINE_F_THREAD)
		c->cur.thread = (uint32_t)timeline_varint(&c->p);
	if (h & TIMELINE_F_WEIGHT)
		c->cur.weight = timeline_varint(&c->p);
	c->left--;
}

/* Iteration over the entries with t0 <= time < t1 (all: 0, UINT64_MAX), in
 * the order they were added. */
struct timeline_iter {
	const struct timeline *tl;
	uint64_t t0, t1;
	size_t block;           /* the block being decoded */
	struct timeline_cursor c;
};
void timeline_iter_init(struct timeline_iter *it, const struct timeline *tl, uint64_t t0,
                        uint64_t t1);
bool timeline_next(struct timeline_iter *it, struct timeline_sample *out);

/* Sums the weights of the entries in [t0, t1) whose thread is chosen
 * (threads NULL: all; else threads[i] for thread i) into self[leaf]
 * (self has tree_size entries, zeroed by the caller), saturating. Returns
 * the number of entries counted. */
uint64_t timeline_self(const struct timeline *tl, uint64_t t0, uint64_t t1, const bool *threads,
                       uint64_t *self, size_t nself);
/* timeline_self counting entries, not weights: count[leaf] += 1 for each
 * (the samples behind a weight that is an amount of time or of an event). */
uint64_t timeline_count(const struct timeline *tl, uint64_t t0, uint64_t t1, const bool *threads,
                        uint64_t *count, size_t ncount);

/* dst (initialised by the caller, empty) becomes the tree of src (finalized,
 * integer counts) with self counts self[] (src's node ids), finalized in
 * order: the flame graph of a time range. Nodes whose subtree counts
 * nothing are left out. */
void timeline_tree(const struct tree *src, const uint64_t *self, enum tree_order order,
                   struct tree *dst);

/* dst (initialised by the caller, empty) becomes the flame chart of the
 * samples in [t0, t1) on the chosen threads (NULL: all): their stacks
 * (paths of src, the tree their leaves are nodes of) in the timeline's
 * order, a frame merged only with the same frame of the stack just before,
 * so that x is the samples in time order. O(samples x depth). */
void timeline_chart(const struct timeline *tl, const struct tree *src, uint64_t t0, uint64_t t1,
                    const bool *threads, struct tree *dst);

/* Parses a time range "START,END" into [*t0, *t1) of tl's times: each
 * side seconds from the first sample ("1.5") or a percentage of the span
 * ("25%"), empty for the start or the end of the recording; "P%/N" is the
 * N-th slice of P% (perf's form: "10%/2" is 10%,20%). An empty or a 100%
 * end includes the last sample. False with the reason in err otherwise
 * (START after END, a bad number). */
bool timeline_parse_range(const struct timeline *tl, const char *arg, uint64_t *t0, uint64_t *t1,
                          char *err, size_t errsize);

/* Bytes held (buffers, blocks, threads). */
size_t timeline_bytes(const struct timeline *tl);

#endif
