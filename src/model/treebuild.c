/* tree builder: tree_add_stack* (the child hash, the sorted-input path
 * without it, the previous stack's path). See treeint.h. */
#include "config.h"
#include "treeint.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "prefault.h"
#include "xalloc.h"

static inline uint64_t child_hash(tree_idx parent, strtab_id name)
{
	uint64_t x = ((uint64_t)parent << 32) | name;
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ULL;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dULL;
	x ^= x >> 33;
	return x;
}

/* A slot keeps the upper 32 bits of its key's hash as a tag, and its home
 * is that tag scaled to the table (multiply-shift): growing the table
 * rehashes from the slots alone, without touching the nodes (a cache miss
 * each on big trees), and works for any table size. So the table grows by
 * half instead of doubling: it ends at 1.25 to 1.9 slots an entry rather
 * than 1.33 to 2.7, and the moment of growth holds 2.5 tables' worth
 * rather than 3. On a big shuffled profile the table is the largest thing
 * beside the nodes. With 32-bit tags: at most 2^32 - 1 slots. */
#define SLOTS_MAX ((size_t)UINT32_MAX)

static inline size_t slot_home(size_t nslots, uint64_t h)
{
	return (size_t)(((h >> 32) * (uint64_t)nslots) >> 32);
}

static inline size_t slot_next(size_t nslots, size_t j)
{
	return j + 1 == nslots ? 0 : j + 1;
}

/* Slots for `entries` entries at a load of 60%, at least 1024. */
static size_t slots_for(size_t entries)
{
	size_t n = entries / 3 * 5 + 5;
	if (n < 1024)
		n = 1024;
	return n < SLOTS_MAX ? n : SLOTS_MAX;
}

static void slots_place(uint64_t *slots, size_t n, uint64_t v)
{
	size_t j = slot_home(n, v);
	while (slots[j])
		j = slot_next(n, j);
	slots[j] = v;
}

static void grow_slots(struct tree *t)
{
	if (t->b.nslots == SLOTS_MAX) {
		if (t->b.nhashed + 1 < SLOTS_MAX)
			return;     /* full load from here: slow, still correct */
		xdie("too many distinct stack frames");
	}
	size_t n = t->b.nslots + t->b.nslots / 2;
	if (n > SLOTS_MAX)
		n = SLOTS_MAX;
	uint64_t *slots = xcalloc(n, sizeof *slots);
	for (size_t i = 0; i < t->b.nslots; i++)
		if (t->b.slots[i])
			slots_place(slots, n, t->b.slots[i]);
	free(t->b.slots);
	t->b.slots = slots;
	t->b.nslots = n;
}

void tree_reserve(struct tree *t, size_t extra)
{
	tree_prefault_end(t);
	if (extra > TREE_MAX_NODES - t->n)
		extra = TREE_MAX_NODES - t->n;
	if (t->n + extra <= t->cap)
		return;
	size_t cap = t->cap;
	while (cap < t->n + extra)
		cap *= 2;
	t->nodes = xreallocarray(t->nodes, cap, sizeof *t->nodes);
	t->cap = cap;
}

bool tree_try_reserve(struct tree *t, size_t extra)
{
	tree_prefault_end(t);
	if (extra > TREE_MAX_NODES - t->n)
		extra = TREE_MAX_NODES - t->n;
	size_t cap = t->n + extra;
	if (cap <= t->cap)
		return true;
	if (cap > SIZE_MAX / sizeof *t->nodes)
		return false;
	struct tree_node *nd = realloc(t->nodes, cap * sizeof *nd);
	if (!nd)
		return false;
	t->nodes = nd;
	t->cap = cap;
	return true;
}

void tree_reserve_prefault(struct tree *t, size_t extra)
{
	tree_reserve(t, extra);
	if (extra > t->cap - t->n)
		extra = t->cap - t->n;
	t->b.pf = prefault_begin((char *)t->nodes, t->n * sizeof *t->nodes, (t->n + extra) * sizeof *t->nodes);
	if (t->b.pf)
		t->b.faulted = 0;   /* new_node claims the room as it goes */
}

void tree_prefault_end(struct tree *t)
{
	if (!t->b.pf)
		return;
	prefault_end(t->b.pf);
	t->b.pf = NULL;
	t->b.faulted = 0;   /* fault_ahead as before */
}

/* Nodes are written one after the other: their pages are faulted in a
 * megabyte ahead with one system call (MADV_POPULATE_WRITE, Linux 5.14;
 * without it, nothing), where each 4 KiB page would trap on its own (5%
 * of the CPU time of a big sorted file). Pages faulted in stay so when
 * the array grows: realloc copies them or moves their mappings. */
#define FAULT_AHEAD ((size_t)1 << 20)

static void fault_ahead(struct tree *t)
{
	size_t used = t->n * sizeof *t->nodes, size = t->cap * sizeof *t->nodes;
	if (t->b.pf) {
		t->b.faulted = prefault_claim(t->b.pf, used);
		return;
	}
	t->b.faulted = size;    /* small arrays, or nothing left to fault */
#ifdef MADV_POPULATE_WRITE
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t page = pg > 0 ? (uintptr_t)pg : 4096, base = (uintptr_t)t->nodes;
	if (size < 4 * FAULT_AHEAD)
		return;
	uintptr_t first = (base + page - 1) & ~(page - 1);
	uintptr_t a = (base + used) & ~(page - 1);
	uintptr_t b = (base + (used + FAULT_AHEAD < size ? used + FAULT_AHEAD : size)) & ~(page - 1);
	if (a < first)
		a = first;
	if (b <= a)
		return;
	if (madvise((void *)a, b - a, MADV_POPULATE_WRITE) != 0) {
		t->b.faulted = SIZE_MAX;
		return;
	}
	t->b.faulted = b - base;
#endif
}

/* Room for one more node: the array grown, or the limit's message. */
static void node_room(struct tree *t)
{
	if (t->n >= TREE_MAX_NODES)
		xdie("too many distinct stack frames (more than %" PRIu32 ")", TREE_MAX_NODES);
	tree_prefault_end(t);
	t->cap *= 2;
	t->nodes = xreallocarray(t->nodes, t->cap, sizeof *t->nodes);
}

/* Appends a node; its `end` starts as "no children". Inline: a sorted
 * file makes one for most of its frames. */
static inline tree_idx new_node(struct tree *t, tree_idx parent, strtab_id name)
{
	if (t->n >= TREE_MAX_NODES || t->n == t->cap)
		node_room(t);
	tree_idx c = (tree_idx)t->n++;
	if (t->n * sizeof *t->nodes > t->b.faulted)
		fault_ahead(t);
	struct tree_node *nd = &t->nodes[c], *pn = &t->nodes[parent];
	memset(nd, 0, sizeof *nd);
	nd->parent = parent;
	nd->name = name;
	nd->end = KIDS_NONE;
	nd->depth = pn->depth + 1;
	if (t->chart) {
		nd->off = t->time;  /* a chart frame starts when it is first seen */
	} else {
		nd->off.u = kid_newest(pn);
		pn->off.u = (uint64_t)c << 32 | kid_older(pn);
	}
	return c;
}

/* Counts an entry put in the child hash. It grows at a load of 80%:
 * linear probing stays short, as a probe reads tags (8 to a cache line),
 * not nodes. */
static void slot_filled(struct tree *t)
{
	if (++t->b.nhashed * 5 > t->b.nslots * 4)
		grow_slots(t);
}

/* Inserts node c, known to be absent, into the child hash. */
static void hash_insert(struct tree *t, tree_idx c)
{
	uint64_t h = child_hash(t->nodes[c].parent, t->nodes[c].name);
	slots_place(t->b.slots, t->b.nslots, (h & 0xffffffff00000000ULL) | c);
	slot_filled(t);
}


/* memcmp(a, b, n), inline: names are short, and a call costs as much
 * as comparing them. Words are compared while equal (little-endian only:
 * there the first differing byte is the lowest). */
static inline int bytes_cmp(const unsigned char *a, const unsigned char *b, size_t n)
{
	size_t i = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; i + 8 <= n; i += 8) {
		uint64_t x, y;
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y) {
			i += (size_t)__builtin_ctzll(x ^ y) / 8;
			return (int)a[i] - (int)b[i];
		}
	}
#endif
	for (; i < n; i++)
		if (a[i] != b[i])
			return (int)a[i] - (int)b[i];
	return 0;
}

/* Longest walk find_sorted takes before it gives up for the hash. The walk
 * is short on any sorted input (each child is passed over in at most one
 * walk), so this only bounds the cost of a case not thought of. */
#define FIND_SORTED_MAX 256

/* The child of parent named name, or TREE_NONE when it has none, for a tree
 * whose stacks came in ascending order of their text (!t->b.hashed).
 *
 * Why no hash is needed: let C be a child of p made by stack M, and the
 * stack being added, L, pass through p and C. Every stack added between
 * M and L sorts between them, so its text starts with the text of M and L
 * up to the end of C; a child of p made by such a stack therefore has C as
 * a proper prefix of its name ("f" then "f(int)" or "f 2": bytes below ';'
 * sort such siblings before "f;..."). So, walking p's children from the
 * newest, C is found before any child whose name does not start with C,
 * and that child says C is not there. Mostly the walk ends at the first. */
static tree_idx find_sorted(struct tree *t, tree_idx parent, strtab_id name)
{
	const char *s = strtab_str(&t->names, name);
	uint32_t len = strtab_len(&t->names, name);
	unsigned steps = 0;
	for (tree_idx c = kid_newest(&t->nodes[parent]); c != 0; c = kid_older(&t->nodes[c])) {
		strtab_id cn = t->nodes[c].name;
		if (cn == name)
			return c;
		if (strtab_len(&t->names, cn) <= len ||
		    bytes_cmp((const unsigned char *)strtab_str(&t->names, cn), (const unsigned char *)s, len) != 0)
			break;
		if (++steps == FIND_SORTED_MAX) {
			treebuild_ensure_hash(t);
			return TREE_NONE;
		}
	}
	return TREE_NONE;
}

static void hash_insert(struct tree *t, tree_idx c);
static void hash_rebuild(struct tree *t);

/* A new child of parent named name, known to be absent. */
tree_idx treebuild_child_add(struct tree *t, tree_idx parent, strtab_id name)
{
	if (t->b.stale)
		hash_rebuild(t);
	tree_idx c = new_node(t, parent, name);
	tree_idx only = t->nodes[parent].end;
	if (only == KIDS_NONE) {
		t->nodes[parent].end = c;
		return c;
	}
	t->nodes[parent].end = KIDS_MANY;
	if (t->b.hashed) {
		if (only != KIDS_MANY)
			hash_insert(t, only);
		hash_insert(t, c);
	}
	return c;
}

/* The child of parent named name, created when missing.
 *
 * Most nodes of a call tree have no child or a single one (call chains),
 * so while building, a node's `end` field records its only child (or
 * KIDS_NONE), and the hash holds only the children of nodes with two or
 * more (KIDS_MANY): walking a chain then touches no hash slot, which on big
 * trees is a cache miss each.
 *
 * A hash slot holds the node index and the upper half of its key's hash,
 * so probing past other keys does not touch their nodes either. The root
 * (index 0) is never a child: 0 marks an empty slot. */
tree_idx treebuild_child_get(struct tree *t, tree_idx parent, strtab_id name)
{
	/* In a flame chart the previous stack's frames were matched already
	 * (add_path); any other frame starts a new node. */
	if (t->chart)
		return new_node(t, parent, name);
	if (!t->b.hashed) {
		tree_idx c = find_sorted(t, parent, name);
		if (c != TREE_NONE)
			return c;
		if (!t->b.hashed)
			return treebuild_child_add(t, parent, name);
	}
	if (t->b.stale)
		hash_rebuild(t);
	tree_idx only = t->nodes[parent].end;
	if (only == KIDS_NONE) {
		tree_idx c = new_node(t, parent, name);
		t->nodes[parent].end = c;
		return c;
	}
	if (only != KIDS_MANY) {
		if (t->nodes[only].name == name)
			return only;
		tree_idx c = new_node(t, parent, name);
		t->nodes[parent].end = KIDS_MANY;
		hash_insert(t, only);
		hash_insert(t, c);
		return c;
	}
	uint64_t h = child_hash(parent, name), tag = h & 0xffffffff00000000ULL;
	size_t ns = t->b.nslots, j = slot_home(ns, h);
	for (; t->b.slots[j] != 0; j = slot_next(ns, j)) {
		uint64_t v = t->b.slots[j];
		if ((v & 0xffffffff00000000ULL) != tag)
			continue;
		tree_idx c = (tree_idx)v;
		if (t->nodes[c].parent == parent && t->nodes[c].name == name)
			return c;
	}
	/* Absent: the new node takes the empty slot that ended the search. */
	tree_idx c = new_node(t, parent, name);
	t->b.slots[j] = tag | c;
	slot_filled(t);
	return c;
}

/* Puts the child hash in use: every child of a branching node goes in. */
void treebuild_ensure_hash(struct tree *t)
{
	if (t->b.hashed)
		return;
	t->b.hashed = true;
	hash_rebuild(t);
}

/* Makes the child hash anew from the nodes (it is in use, t->b.hashed). */
static void hash_rebuild(struct tree *t)
{
	t->b.stale = false;
	size_t many = 0;
	for (size_t i = 1; i < t->n; i++)
		many += t->nodes[t->nodes[i].parent].end == KIDS_MANY;
	size_t n = slots_for(many);
	free(t->b.slots);
	t->b.slots = xcalloc(n, sizeof *t->b.slots);
	t->b.nslots = n;
	t->b.nhashed = 0;
	for (size_t i = 1; i < t->n; i++)
		if (t->nodes[t->nodes[i].parent].end == KIDS_MANY)
			hash_insert(t, (tree_idx)i);
}

void treebuild_path_grow(struct tree *t, size_t n)
{
	if (t->finalized)
		xdie("internal error: tree_add_stack after tree_finalize");
	if (n > t->b.pathcap) {
		while (t->b.pathcap < n)
			t->b.pathcap *= 2;
		t->b.path = xreallocarray(t->b.path, t->b.pathcap, sizeof *t->b.path);
		t->b.pathkeys = xreallocarray(t->b.pathkeys, t->b.pathcap, sizeof *t->b.pathkeys);
	}
}

/* Compares the text of stack a[0..na) with that of b[0..nb) (the names of
 * nodes of t), as `LC_ALL=C sort` orders folded lines: byte-wise, frames
 * joined by ';', a stack before any longer one it starts. The joining ';'
 * sorts apart from any byte (just below a ';' inside a name, which folded
 * text cannot hold), and no stack before one empty frame: find_sorted's
 * reasoning needs an order in which frames can be told apart. */
int treebuild_cmp_stacks(const struct tree *t, const struct tree_frame *a, size_t na, const tree_idx *b, size_t nb)
{
	for (size_t i = 0;; i++) {
		if (i == na || i == nb)
			return (i < na) - (i < nb);
		strtab_id id = t->nodes[b[i]].name;
		const unsigned char *sa = (const unsigned char *)a[i].s;
		const unsigned char *sb = (const unsigned char *)strtab_str(&t->names, id);
		size_t la = a[i].len, lb = strtab_len(&t->names, id);
		int c = bytes_cmp(sa, sb, la < lb ? la : lb);
		if (c)
			return c;
		if (la == lb)
			continue;
		/* One name starts the other: what follows the shorter one is the
		 * end of its stack (first) or the joining ';' (before ';' or any
		 * greater byte). */
		if (la < lb)
			return i + 1 == na || sb[la] >= ';' ? -1 : 1;
		return i + 1 == nb || sa[lb] >= ';' ? 1 : -1;
	}
}

/* Closes the listed revisits whose node the stack being added left: path
 * [0, len) is its path so far. Their new subtrees end at `old`, where this
 * stack's new nodes begin. The open ones are all on the path before it
 * (the deepest last), so they leave from the deepest. */
static __attribute__((noinline)) void revisits_close(struct tree *t, size_t old, size_t len)
{
	struct tree_build *b = &t->b;
	while (b->nrvopen) {
		struct tree_revisit *r = &b->rv[b->rvopen[b->nrvopen - 1]];
		uint32_t d = t->nodes[r->node].depth;
		if (d <= len && b->path[d - 1] == r->node)
			break;
		r->end = (tree_idx)old;
		b->nrvopen--;
	}
}

/* Lists a revisit of node c (made before the stack being added, whose
 * first new node will be `old`) for tree_finalize: in sorted order a
 * node is revisited only as a leaf ("f", then "f(int)", then "f;g"), so
 * its new subtree is the run of nodes made from `old` until it leaves
 * the path (revisits_close). c is at depth i + 1 (path[i]). Anything
 * else: finalize renumbers all. */
static __attribute__((noinline)) void revisit_open(struct tree *t, tree_idx c, size_t old, size_t i)
{
	struct tree_build *b = &t->b;
	if (b->hashed || b->rv_lost)
		return;     /* the hash's finalize sorts: no use for the list */
	/* path[0, i) is this stack's so far: what it left closes first */
	revisits_close(t, old, i);
	/* A node with children, or more revisits than a list of them is
	 * worth (12 bytes each against 40 a node: at most 2% more). */
	if (t->nodes[c].end != KIDS_NONE || b->nrv >= t->n / 16 + 1024) {
		treebuild_revisits_lost(t);
		return;
	}
	treebuild_revisit_add(t, (struct tree_revisit){ c, (tree_idx)old, TREE_NONE });
}

void treebuild_revisits_lost(struct tree *t)
{
	struct tree_build *b = &t->b;
	b->rv_lost = true;
	free(b->rv);
	free(b->rvopen);
	b->rv = NULL;
	b->rvopen = NULL;
	b->nrv = b->caprv = b->nrvopen = b->caprvopen = 0;
}

void treebuild_revisit_add(struct tree *t, struct tree_revisit r)
{
	struct tree_build *b = &t->b;
	if (b->nrv == b->caprv) {
		b->caprv = b->caprv ? b->caprv * 2 : 64;
		b->rv = xreallocarray(b->rv, b->caprv, sizeof *b->rv);
	}
	b->rv[b->nrv++] = r;
	if (r.end == TREE_NONE)
		treebuild_revisit_open(t, b->nrv - 1);
}

void treebuild_revisit_open(struct tree *t, size_t k)
{
	struct tree_build *b = &t->b;
	if (b->nrvopen == b->caprvopen) {
		b->caprvopen = b->caprvopen ? b->caprvopen * 2 : 16;
		b->rvopen = xreallocarray(b->rvopen, b->caprvopen, sizeof *b->rvopen);
	}
	b->rvopen[b->nrvopen++] = k;
}

/* One frame down from cur, to the child named name, at depth i of the path;
 * nodes below old existed before this stack. */
static inline tree_idx path_step(struct tree *t, size_t i, tree_idx cur, size_t old, strtab_id name)
{
	cur = treebuild_child_get(t, cur, name);
	/* An existing node off the previous stack's path gets new
	 * descendants after other subtrees: not preorder any more. */
	if (cur < old && !(i < t->b.pathlen && t->b.path[i] == cur)) {
		t->b.revisited = true;
		revisit_open(t, cur, old, i);
	}
	t->b.path[i] = cur;
	return cur;
}

static tree_idx path_end(struct tree *t, size_t len, tree_idx leaf)
{
	t->b.pathlen = len;
	if (t->b.first_leaf == TREE_NONE)
		t->b.first_leaf = leaf;
	return leaf;
}

/* ---- the path's keys (struct tree_pathkey) */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PATH_KEYS 1
#else
#define PATH_KEYS 0     /* byte k of a head is its bits 8k..8k+7 */
#endif

/* The first 8 bytes of s[0..len) as a little-endian word, zero-padded,
 * read without a loop and never past s + len. */
static inline uint64_t name_head(const char *s, size_t len)
{
	if (len >= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		return w;
	}
	if (len >= 4) {     /* two words of 4 that overlap */
		uint32_t x, y;
		memcpy(&x, s, 4);
		memcpy(&y, s + len - 4, 4);
		return x | (uint64_t)y << (8 * (len - 4));
	}
	if (len == 0)
		return 0;
	return (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[len / 2] << (8 * (len / 2)) |
	       (uint64_t)(unsigned char)s[len - 1] << (8 * (len - 1));
}

static inline unsigned head_byte(uint64_t h, size_t k)
{
	return (unsigned)(h >> (8 * k)) & 0xffu;
}

/* treebuild_cmp_stacks of stack a (na frames) and b (nb), whose first
 * frames are named a0 and b0 (head and length), from those keys alone:
 * -1 or 1 when their first 8 bytes decide, else 0 (equal there, or both
 * longer than 8). sa: a0's bytes (read only below its length). */
static inline int key_order(struct tree_pathkey a0, const char *sa, size_t na, struct tree_pathkey b0, size_t nb)
{
	size_t m = a0.len < b0.len ? a0.len : b0.len;
	if (m > 8)
		m = 8;
	uint64_t x = a0.head ^ b0.head;
	if (m < 8)
		x &= ((uint64_t)1 << (8 * m)) - 1;
	if (x) {
		size_t k = (size_t)__builtin_ctzll(x) / 8;
		return head_byte(a0.head, k) < head_byte(b0.head, k) ? -1 : 1;
	}
	if (a0.len == b0.len || m == 8)
		return 0;
	/* One name starts the other, within 8 bytes: as cmp_stacks goes on */
	if (a0.len < b0.len)
		return na == 1 || head_byte(b0.head, a0.len) >= ';' ? -1 : 1;
	return nb == 1 || (unsigned char)sa[b0.len] >= ';' ? 1 : -1;
}

/* Whether the name keyed b0 can be told from the keys alone not to start
 * with name a0 (find_sorted's test that ends its walk at that child). */
static inline bool key_not_started(struct tree_pathkey a0, struct tree_pathkey b0)
{
	if (b0.len <= a0.len)
		return true;
	uint64_t x = a0.head ^ b0.head;
	if (a0.len < 8)
		x &= ((uint64_t)1 << (8 * a0.len)) - 1;
	return x != 0;
}

void treebuild_path_rekey(struct tree *t)
{
	struct tree_build *b = &t->b;
	b->pathkeyed = 0;
	if (!PATH_KEYS)
		return;
	for (size_t d = 0; d < b->pathlen; d++) {
		strtab_id id = t->nodes[b->path[d]].name;
		size_t len = strtab_len(&t->names, id);
		b->pathkeys[d] = (struct tree_pathkey){ name_head(strtab_str(&t->names, id), len), len };
	}
	b->pathkeyed = b->pathlen;
}

/* Extends path[0..keep) by frames f[0..n) and returns the leaf. A stack that
 * sorts before the previous one ends the hash-free building. */
static tree_idx extend_path(struct tree *t, size_t keep, const struct tree_frame *f, size_t n)
{
	struct tree_build *b = &t->b;
	treebuild_path_reserve(t, keep + n);
	/* The first new frame against the previous stack's at its depth, by
	 * their keys: on sorted input, a line's first frame past those it
	 * shares with the line before, and the previous stack's frame there
	 * is the newest child of its parent. Its name's entry and bytes,
	 * which cmp_stacks and find_sorted would read, are far in memory
	 * (a cache miss or two a line). */
	bool keyed = PATH_KEYS && n && keep < b->pathkeyed && keep < b->pathlen && !t->chart;
	struct tree_pathkey k0 = { keyed ? name_head(f[0].s, f[0].len) : 0, n ? f[0].len : 0 };
	if (!b->hashed && !t->chart && b->first_leaf != TREE_NONE) {
		int c = keyed ? key_order(k0, f[0].s, n, b->pathkeys[keep], b->pathlen - keep) : 0;
		if (c == 0)
			c = treebuild_cmp_stacks(t, f, n, b->path + keep, b->pathlen - keep);
		if (c < 0)
			treebuild_ensure_hash(t);
	}
	tree_idx cur = keep ? b->path[keep - 1] : TREE_ROOT;
	size_t old = t->n;  /* nodes below this index existed before */
	size_t i = 0;
	if (keyed && !b->hashed) {
		strtab_id id = strtab_intern(&t->names, f[0].s, f[0].len);
		tree_idx p = b->path[keep];
		/* find_sorted's walk would end at p, the newest child: it
		 * is not the frame, nor does its name start with it */
		if (kid_newest(&t->nodes[cur]) == p && t->nodes[p].name != id &&
		    key_not_started(k0, b->pathkeys[keep])) {
			/* treebuild_child_add without the hash */
			tree_idx c = new_node(t, cur, id);
			t->nodes[cur].end = t->nodes[cur].end == KIDS_NONE ? c : KIDS_MANY;
			cur = c;
		} else
			cur = path_step(t, keep, cur, old, id);
		b->path[keep] = cur;
		b->pathkeys[keep] = k0;
		i = 1;
	}
	for (; i < n && (cur < old || t->chart); i++) {
		cur = path_step(t, keep + i, cur, old, strtab_intern(&t->names, f[i].s, f[i].len));
		if (PATH_KEYS)
			b->pathkeys[keep + i] = (struct tree_pathkey){ name_head(f[i].s, f[i].len), f[i].len };
	}
	/* Below a node this stack made, all are new: nothing to look up (on
	 * sorted input, most frames after those kept from the stack before). */
	for (; i < n; i++) {
		/* treebuild_child_add of the first child */
		tree_idx c = new_node(t, cur, strtab_intern(&t->names, f[i].s, f[i].len));
		t->nodes[cur].end = c;
		b->path[keep + i] = cur = c;
		if (PATH_KEYS)
			b->pathkeys[keep + i] = (struct tree_pathkey){ name_head(f[i].s, f[i].len), f[i].len };
	}
	if (PATH_KEYS && b->pathkeyed >= keep)
		b->pathkeyed = keep + n;
	path_end(t, keep + n, cur);
	if (t->b.nrvopen)
		revisits_close(t, old, t->b.pathlen);
	return cur;
}

/* extend_path for names interned already. Ids say nothing of the order of
 * the stacks' text, so the child hash is on from the first. */
static tree_idx extend_path_ids(struct tree *t, size_t keep, const strtab_id *ids, size_t n)
{
	treebuild_path_reserve(t, keep + n);
	treebuild_ensure_hash(t);
	if (t->b.pathkeyed > keep)
		t->b.pathkeyed = keep;
	tree_idx cur = keep ? t->b.path[keep - 1] : TREE_ROOT;
	size_t old = t->n;
	for (size_t i = 0; i < n; i++)
		cur = path_step(t, keep + i, cur, old, ids[i]);
	return path_end(t, keep + n, cur);
}

/* Walks/creates the path of frames and returns the leaf. Frames equal to the
 * previous stack's are matched by bytes against the stored names, which is
 * much cheaper than hashing: consecutive stacks share most of their frames. */
static tree_idx add_path(struct tree *t, const struct tree_frame *f, size_t n)
{
	size_t k = 0, lim = n < t->b.pathlen ? n : t->b.pathlen;
	while (k < lim) {
		strtab_id id = t->nodes[t->b.path[k]].name;
		if (strtab_len(&t->names, id) != f[k].len ||
		    memcmp(strtab_str(&t->names, id), f[k].s, f[k].len) != 0)
			break;
		k++;
	}
	/* f may be NULL when n is 0 (the root's own samples): no offset */
	return extend_path(t, k, n ? f + k : f, n - k);
}

static void add_count(struct tree *t, tree_idx leaf, uint64_t count)
{
	t->stacks++;
	t->time.u = t->time.u + count < count ? UINT64_MAX : t->time.u + count;
	uint64_t s = t->nodes[leaf].self.u + count;
	if (s < count) {
		s = UINT64_MAX;
		t->saturated = true;
	}
	t->nodes[leaf].self.u = s;
}

tree_idx tree_add_stack(struct tree *t, const struct tree_frame *frames, size_t n, uint64_t count)
{
	tree_idx leaf = add_path(t, frames, n);
	add_count(t, leaf, tree_units_from(t, count, 0));
	return leaf;
}

tree_idx tree_add_stack_tail(struct tree *t, size_t keep, const struct tree_frame *tail,
                             size_t ntail, uint64_t count)
{
	if (keep > t->b.pathlen)
		xdie("internal error: tree_add_stack_tail beyond the previous stack");
	tree_idx leaf = extend_path(t, keep, tail, ntail);
	add_count(t, leaf, tree_units_from(t, count, 0));
	return leaf;
}

strtab_id tree_intern(struct tree *t, const char *s, size_t len)
{
	if (t->names_borrowed)
		xdie("internal error: tree_intern on borrowed names");
	return strtab_intern(&t->names, s, len);
}

tree_idx tree_add_stack_tail_ids(struct tree *t, size_t keep, const strtab_id *tail,
                                 size_t ntail, uint64_t count)
{
	if (keep > t->b.pathlen)
		xdie("internal error: tree_add_stack_tail_ids beyond the previous stack");
	for (size_t i = 0; i < ntail; i++)
		if (tail[i] >= strtab_count(&t->names))
			xdie("internal error: tree_add_stack_tail_ids with a name not interned");
	tree_idx leaf = extend_path_ids(t, keep, tail, ntail);
	add_count(t, leaf, tree_units_from(t, count, 0));
	return leaf;
}

void tree_add_stack_dec(struct tree *t, const struct tree_frame *frames, size_t n,
                        struct tree_dec count)
{
	uint64_t u = tree_dec_units(t, count);
	add_count(t, add_path(t, frames, n), u);
}

void tree_add_stack_tail_dec(struct tree *t, size_t keep, const struct tree_frame *tail,
                             size_t ntail, struct tree_dec count)
{
	if (keep > t->b.pathlen)
		xdie("internal error: tree_add_stack_tail beyond the previous stack");
	/* A count in the tree's units as it is (integers, mostly): what
	 * tree_dec_units would return, without the call. */
	uint64_t u = count.decimals == t->decimals && !count.saturated && !count.rounded
	             ? count.units : tree_dec_units(t, count);
	add_count(t, extend_path(t, keep, tail, ntail), u);
}

/* ---- batches of stacks ------------------------------------------------- */

/* Grows a scratch array to hold n elements of size sz. */
static void *scratch(void *p, size_t *cap, size_t n, size_t sz)
{
	if (n <= *cap)
		return p;
	size_t c = *cap ? *cap : 256;
	while (c < n)
		c *= 2;
	*cap = c;
	return xreallocarray(p, c, sz);
}

void tree_add_stacks(struct tree *t, const struct tree_stack *s, size_t n)
{
	size_t nodes = 0, maxd = 0;
	for (size_t i = 0; i < n; i++) {
		size_t d = s[i].keep + s[i].ntail;
		if (s[i].keep > (i ? s[i - 1].keep + s[i - 1].ntail : t->b.pathlen))
			xdie("internal error: tree_add_stacks beyond the previous stack");
		for (size_t k = 0; k < s[i].ntail; k++)
			if (s[i].tail[k] >= strtab_count(&t->names))
				xdie("internal error: tree_add_stacks with a name not interned");
		nodes += d;
		maxd = d > maxd ? d : maxd;
	}
	if (!tree_batches(t) || n < 2) {
		for (size_t i = 0; i < n; i++) {
			uint64_t u = tree_dec_units(t, s[i].count);
			add_count(t, extend_path_ids(t, s[i].keep, s[i].tail, s[i].ntail), u);
		}
		return;
	}
	/* Where each stack's path goes in b.bpath: stack i's node at depth d
	 * (0: the first frame) is bpath[at[i] + d]. */
	struct tree_build *b = &t->b;
	b->bpath = scratch(b->bpath, &b->bpathcap, nodes + 1, sizeof *b->bpath);
	b->bat = scratch(b->bat, &b->batcap, n, sizeof *b->bat);
	size_t *at = b->bat;
	for (size_t i = 0, p = 0; i < n; i++) {
		at[i] = p;
		p += s[i].keep + s[i].ntail;
	}
	/* Depth by depth, stacks in order: a node is looked up (made) after its
	 * parent, and siblings are made in the order of the stacks, as one
	 * stack at a time would; so the tree is the same, only the ids of new
	 * nodes differ (tree_finalize renumbers). Frames a stack keeps from the
	 * one before are copied from it once that one has them. The lookups
	 * of one depth do not wait on each other, so their cache misses
	 * overlap (pprof-unique-256M: 5.7 s against 7.6 one stack at a time);
	 * prefetching each lookup's slot and node ahead measured slower. */
	tree_idx *bp = b->bpath;
	for (size_t d = 0; d < maxd; d++) {
		for (size_t i = 0; i < n; i++) {
			if (d >= s[i].keep + s[i].ntail)
				continue;
			if (d < s[i].keep) {
				bp[at[i] + d] = i ? bp[at[i - 1] + d] : b->path[d];
				continue;
			}
			tree_idx parent = d ? bp[at[i] + d - 1] : TREE_ROOT;
			bp[at[i] + d] = treebuild_child_get(t, parent, s[i].tail[d - s[i].keep]);
		}
	}
	/* The counts in order (a count may move the tree to more decimals,
	 * which scales those added before it), and the last path. */
	for (size_t i = 0; i < n; i++) {
		size_t depth = s[i].keep + s[i].ntail;
		tree_idx leaf = depth ? bp[at[i] + depth - 1] : TREE_ROOT;
		if (b->first_leaf == TREE_NONE)
			b->first_leaf = leaf;
		add_count(t, leaf, tree_dec_units(t, s[i].count));
	}
	size_t last = s[n - 1].keep + s[n - 1].ntail;
	treebuild_path_reserve(t, last);
	memcpy(b->path, bp + at[n - 1], last * sizeof *b->path);
	b->pathlen = last;
	b->pathkeyed = 0;
}

void tree_add_stacks_new(struct tree *t, const struct tree_stack *s, size_t n, const struct tree_name_order *by)
{
	if (t->chart) {
		tree_add_stacks(t, s, n);
		return;
	}
	struct tree_build *b = &t->b;
	for (size_t i = 0; i < n; i++) {
		size_t keep = s[i].keep, depth = keep + s[i].ntail;
		if (keep > b->pathlen)
			xdie("internal error: tree_add_stacks_new beyond the previous stack");
		for (size_t k = 0; k < s[i].ntail; k++)
			if (s[i].tail[k] >= strtab_count(&t->names))
				xdie("internal error: tree_add_stacks_new with a name not interned");
		treebuild_path_reserve(t, depth);
		if (b->pathkeyed > keep)
			b->pathkeyed = keep;
		tree_idx cur = keep ? b->path[keep - 1] : TREE_ROOT;
		if (s[i].ntail && !b->hashed && t->nodes[cur].end != KIDS_NONE) {
			/* The first new node's older sibling left the path (its
			 * self count is final): in name order before it, or
			 * the tree's nodes are out of name order, and finalize
			 * sorts (the hash "in use", made when a lookup needs
			 * it). Stacks sorted by their names keep it out of the
			 * sort, the renumbering and the moves. */
			tree_idx a = kid_newest(&t->nodes[cur]);
			strtab_id na = t->nodes[a].name, nb = s[i].tail[0];
			/* a name that starts the other is the only case where
			 * the order is not the bytes' (see treesort_cmp_names),
			 * and then it starts the name ranked next */
			bool ranked = by && na < by->n && nb < by->n && !by->pfx[na] && !by->pfx[nb];
			if (ranked ? by->rank[na] >= by->rank[nb]
			           : treesort_cmp_names(strtab_str(&t->names, na), strtab_len(&t->names, na),
			                                has_self(t, a), strtab_str(&t->names, nb),
			                                strtab_len(&t->names, nb), false) >= 0) {
				b->hashed = true;
				b->stale = true;
			}
		}
		for (size_t k = 0; k < s[i].ntail; k++) {
			tree_idx c = new_node(t, cur, s[i].tail[k]);
			tree_idx only = t->nodes[cur].end;
			t->nodes[cur].end = only == KIDS_NONE ? c : KIDS_MANY;
			b->path[keep + k] = cur = c;
		}
		b->pathlen = depth;
		if (b->first_leaf == TREE_NONE)
			b->first_leaf = cur;
		add_count(t, cur, tree_dec_units(t, s[i].count));
	}
}
