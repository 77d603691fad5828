#include "config.h"
#include "tree.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "xalloc.h"

/* ---- building ----------------------------------------------------------- */

/* Values of a node's `end` while building (see child_get). */
#define KIDS_NONE TREE_NONE
#define KIDS_MANY (UINT32_MAX - 1u)

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

/* While building, a node's `off` links it into its parent's list of
 * children, newest first: the upper half holds the node's newest child,
 * the lower half its next older sibling; 0 (the root, never a child) ends
 * a list, so a zeroed node has none. A flame chart
 * keeps times there instead and needs no lists (it never looks children
 * up). `total` stays 0 until tree_finalize. */
static inline tree_idx kid_newest(const struct tree_node *nd) { return (tree_idx)(nd->off.u >> 32); }
static inline tree_idx kid_older(const struct tree_node *nd) { return (tree_idx)nd->off.u; }

void tree_init(struct tree *t)
{
	tree_init_nodes(t, NULL, 0);
}

void tree_init_nodes(struct tree *t, void *mem, size_t bytes)
{
	memset(t, 0, sizeof *t);
	t->unit = 1;
	strtab_init(&t->names);
	if (mem && bytes / sizeof *t->nodes >= 1024) {
		t->cap = bytes / sizeof *t->nodes;
		t->nodes = mem;
		memset(&t->nodes[0], 0, sizeof t->nodes[0]);
	} else {
		free(mem);
		t->cap = 1024;
		t->nodes = xcalloc(t->cap, sizeof *t->nodes);
	}
	t->n = 1;
	t->nodes[0].parent = TREE_NONE;
	t->nodes[0].end = KIDS_NONE;
	t->nodes[0].name = strtab_intern(&t->names, "all", 3);
	t->pathcap = 64;
	t->path = xmalloc(t->pathcap * sizeof *t->path);
	t->first_leaf = TREE_NONE;
}

void *tree_take_nodes(struct tree *t, size_t *bytes)
{
	void *mem = t->nodes;
	*bytes = t->cap * sizeof *t->nodes;
	t->nodes = NULL;
	t->n = t->cap = 0;
	return mem;
}

void tree_free(struct tree *t)
{
	free(t->nodes);
	free(t->slots);
	free(t->path);
	strtab_free(&t->names);
	memset(t, 0, sizeof *t);
	t->unit = 1;
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
	if (t->nslots == SLOTS_MAX) {
		if (t->nhashed + 1 < SLOTS_MAX)
			return;     /* full load from here: slow, still correct */
		xdie("too many distinct stack frames");
	}
	size_t n = t->nslots + t->nslots / 2;
	if (n > SLOTS_MAX)
		n = SLOTS_MAX;
	uint64_t *slots = xcalloc(n, sizeof *slots);
	for (size_t i = 0; i < t->nslots; i++)
		if (t->slots[i])
			slots_place(slots, n, t->slots[i]);
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
}

/* Appends a node; its `end` starts as "no children". */
static tree_idx new_node(struct tree *t, tree_idx parent, strtab_id name)
{
	if (t->n >= TREE_MAX_NODES)
		xdie("too many distinct stack frames (more than %" PRIu32 ")", TREE_MAX_NODES);
	if (t->n == t->cap) {
		t->cap *= 2;
		t->nodes = xreallocarray(t->nodes, t->cap, sizeof *t->nodes);
	}
	tree_idx c = (tree_idx)t->n++;
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
	if (++t->nhashed * 5 > t->nslots * 4)
		grow_slots(t);
}

/* Inserts node c, known to be absent, into the child hash. */
static void hash_insert(struct tree *t, tree_idx c)
{
	uint64_t h = child_hash(t->nodes[c].parent, t->nodes[c].name);
	slots_place(t->slots, t->nslots, (h & 0xffffffff00000000ULL) | c);
	slot_filled(t);
}

static void ensure_hash(struct tree *t);

/* Longest walk find_sorted takes before it gives up for the hash. The walk
 * is short on any sorted input (each child is passed over in at most one
 * walk), so this only bounds the cost of a case not thought of. */
#define FIND_SORTED_MAX 256

/* The child of parent named name, or TREE_NONE when it has none, for a tree
 * whose stacks came in ascending order of their text (!t->hashed).
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
		if (strtab_len(&t->names, cn) <= len || memcmp(strtab_str(&t->names, cn), s, len) != 0)
			break;
		if (++steps == FIND_SORTED_MAX) {
			ensure_hash(t);
			return TREE_NONE;
		}
	}
	return TREE_NONE;
}

static void hash_insert(struct tree *t, tree_idx c);

/* A new child of parent named name, known to be absent. */
static tree_idx child_add(struct tree *t, tree_idx parent, strtab_id name)
{
	tree_idx c = new_node(t, parent, name);
	tree_idx only = t->nodes[parent].end;
	if (only == KIDS_NONE) {
		t->nodes[parent].end = c;
		return c;
	}
	t->nodes[parent].end = KIDS_MANY;
	if (t->hashed) {
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
static tree_idx child_get(struct tree *t, tree_idx parent, strtab_id name)
{
	/* In a flame chart the previous stack's frames were matched already
	 * (add_path); any other frame starts a new node. */
	if (t->chart)
		return new_node(t, parent, name);
	if (!t->hashed) {
		tree_idx c = find_sorted(t, parent, name);
		if (c != TREE_NONE)
			return c;
		if (!t->hashed)
			return child_add(t, parent, name);
	}
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
	size_t ns = t->nslots, j = slot_home(ns, h);
	for (; t->slots[j] != 0; j = slot_next(ns, j)) {
		uint64_t v = t->slots[j];
		if ((v & 0xffffffff00000000ULL) != tag)
			continue;
		tree_idx c = (tree_idx)v;
		if (t->nodes[c].parent == parent && t->nodes[c].name == name)
			return c;
	}
	/* Absent: the new node takes the empty slot that ended the search. */
	tree_idx c = new_node(t, parent, name);
	t->slots[j] = tag | c;
	slot_filled(t);
	return c;
}

/* Puts the child hash in use: every child of a branching node goes in. */
static void ensure_hash(struct tree *t)
{
	if (t->hashed)
		return;
	t->hashed = true;
	size_t many = 0;
	for (size_t i = 1; i < t->n; i++)
		many += t->nodes[t->nodes[i].parent].end == KIDS_MANY;
	size_t n = slots_for(many);
	free(t->slots);
	t->slots = xcalloc(n, sizeof *t->slots);
	t->nslots = n;
	t->nhashed = 0;
	for (size_t i = 1; i < t->n; i++)
		if (t->nodes[t->nodes[i].parent].end == KIDS_MANY)
			hash_insert(t, (tree_idx)i);
}

static void path_reserve(struct tree *t, size_t n)
{
	if (t->finalized)
		xdie("internal error: tree_add_stack after tree_finalize");
	if (n > t->pathcap) {
		while (t->pathcap < n)
			t->pathcap *= 2;
		t->path = xreallocarray(t->path, t->pathcap, sizeof *t->path);
	}
}

/* Compares the text of stack a[0..na) with that of b[0..nb) (the names of
 * nodes of t), as `LC_ALL=C sort` orders folded lines: byte-wise, frames
 * joined by ';', a stack before any longer one it starts. The joining ';'
 * sorts apart from any byte (just below a ';' inside a name, which folded
 * text cannot hold), and no stack before one empty frame: find_sorted's
 * reasoning needs an order in which frames can be told apart. */
static int cmp_stacks(const struct tree *t, const struct tree_frame *a, size_t na, const tree_idx *b, size_t nb)
{
	for (size_t i = 0;; i++) {
		if (i == na || i == nb)
			return (i < na) - (i < nb);
		strtab_id id = t->nodes[b[i]].name;
		const unsigned char *sa = (const unsigned char *)a[i].s;
		const unsigned char *sb = (const unsigned char *)strtab_str(&t->names, id);
		size_t la = a[i].len, lb = strtab_len(&t->names, id);
		int c = memcmp(sa, sb, la < lb ? la : lb);
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

/* One frame down from cur, to the child named name, at depth i of the path;
 * nodes below old existed before this stack. */
static inline tree_idx path_step(struct tree *t, size_t i, tree_idx cur, size_t old, strtab_id name)
{
	cur = child_get(t, cur, name);
	/* An existing node off the previous stack's path gets new
	 * descendants after other subtrees: not preorder any more. */
	if (cur < old && !(i < t->pathlen && t->path[i] == cur))
		t->revisited = true;
	t->path[i] = cur;
	return cur;
}

static tree_idx path_end(struct tree *t, size_t len, tree_idx leaf)
{
	t->pathlen = len;
	if (t->first_leaf == TREE_NONE)
		t->first_leaf = leaf;
	return leaf;
}

/* Extends path[0..keep) by frames f[0..n) and returns the leaf. A stack that
 * sorts before the previous one ends the hash-free building. */
static tree_idx extend_path(struct tree *t, size_t keep, const struct tree_frame *f, size_t n)
{
	path_reserve(t, keep + n);
	if (!t->hashed && !t->chart && t->first_leaf != TREE_NONE &&
	    cmp_stacks(t, f, n, t->path + keep, t->pathlen - keep) < 0)
		ensure_hash(t);
	tree_idx cur = keep ? t->path[keep - 1] : TREE_ROOT;
	size_t old = t->n;  /* nodes below this index existed before */
	for (size_t i = 0; i < n; i++)
		cur = path_step(t, keep + i, cur, old, strtab_intern(&t->names, f[i].s, f[i].len));
	return path_end(t, keep + n, cur);
}

/* extend_path for names interned already. Ids say nothing of the order of
 * the stacks' text, so the child hash is on from the first. */
static tree_idx extend_path_ids(struct tree *t, size_t keep, const strtab_id *ids, size_t n)
{
	path_reserve(t, keep + n);
	ensure_hash(t);
	tree_idx cur = keep ? t->path[keep - 1] : TREE_ROOT;
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
	size_t k = 0, lim = n < t->pathlen ? n : t->pathlen;
	while (k < lim) {
		strtab_id id = t->nodes[t->path[k]].name;
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

/* ---- decimal counts ----------------------------------------------------- */

static const uint64_t pow10_u64[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
	100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
	10000000000000ull, 100000000000000ull, 1000000000000000ull,
	10000000000000000ull, 100000000000000000ull, 1000000000000000000ull,
	10000000000000000000ull,
};

/* Moves t to `to` decimals (more than it has) when its sum allows: every
 * self count (and a chart's times) is at most the sum. */
static bool rescale(struct tree *t, unsigned to)
{
	uint64_t m = pow10_u64[to - t->decimals];
	if (t->saturated || t->time.u > UINT64_MAX / m)
		return false;
	for (size_t i = 0; i < t->n; i++) {
		t->nodes[i].self.u *= m;
		if (t->chart)
			t->nodes[i].off.u *= m;
	}
	t->time.u *= m;
	t->decimals = to;
	t->unit = pow10_u64[to];
	t->frac = true;
	return true;
}

/* As many of `want` decimals as t can take. */
static void widen(struct tree *t, unsigned want)
{
	for (unsigned to = want; to > t->decimals; to--)
		if (rescale(t, to))
			return;
}

uint64_t tree_units_from(struct tree *t, uint64_t count, unsigned from)
{
	if (from == t->decimals)
		return count;
	if (from < t->decimals) {
		uint64_t m = pow10_u64[t->decimals - from];
		if (count > UINT64_MAX / m) {
			t->saturated = true;
			return UINT64_MAX;
		}
		return count * m;
	}
	uint64_t d = pow10_u64[from - t->decimals];
	uint64_t q = count / d, r = count % d;
	if (r) {
		t->rounded++;
		if (r >= d - r)         /* half up: r >= d / 2 without overflow */
			q++;
	}
	return q;
}

static uint64_t dec_units(struct tree *t, struct tree_dec c)
{
	if (c.decimals > TREE_MAX_DECIMALS)
		xdie("internal error: a count with %u decimals", c.decimals);
	if (c.saturated)
		t->saturated = true;
	if (c.rounded)
		t->rounded++;
	if (c.decimals > t->decimals && c.units)
		widen(t, c.decimals);
	return tree_units_from(t, c.units, c.decimals);
}

bool tree_dec_parse(const char *s, size_t len, struct tree_dec *out)
{
	size_t i = 0, ip, fp = 0;
	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++;
	ip = i;
	if (ip == 0)
		return false;
	size_t f0 = i;
	if (i < len && s[i] == '.') {
		f0 = ++i;
		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++;
		fp = i - f0;
	}
	long exp = 0;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		bool neg = false;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			neg = s[i++] == '-';
		size_t e0 = i;
		while (i < len && s[i] >= '0' && s[i] <= '9') {
			if (exp < 100000)       /* far beyond any that fits */
				exp = exp * 10 + (s[i] - '0');
			i++;
		}
		if (i == e0)
			return false;
		if (neg)
			exp = -exp;
	}
	if (i != len)
		return false;
	/* The digits (integer then fraction) without leading or trailing
	 * zeros, times 10^scale. */
	size_t first = 0, last = ip + fp;     /* over the digit string */
#define DIGIT(k) ((k) < ip ? s[k] : s[f0 + (k) - ip])
	while (first < last && DIGIT(first) == '0')
		first++;
	while (last > first && DIGIT(last - 1) == '0')
		last--;
	long scale = exp - (long)fp + (long)(ip + fp - last);
	*out = (struct tree_dec){ 0, 0, false, false };
	if (first == last)
		return true;            /* zero */
	/* Drop fraction digits beyond TREE_MAX_DECIMALS, and beyond 19 digits
	 * in all (19 always fit 64 bits), rounding half up on the first one
	 * dropped: a carry can only add a digit on the left. */
	size_t ndig = last - first;
	long drop = 0;
	if (scale < -(long)TREE_MAX_DECIMALS)
		drop = -(long)TREE_MAX_DECIMALS - scale;
	if (scale < 0 && (long)ndig - 19 > drop)
		drop = (long)ndig - 19 < -scale ? (long)ndig - 19 : -scale;
	bool up = false;
	if (drop > 0) {
		out->rounded = true;
		if ((size_t)drop > ndig) {      /* all digits far below the point */
			last = first;
		} else {
			up = DIGIT(last - (size_t)drop) >= '5';
			last -= (size_t)drop;
		}
		scale += drop;
	}
	uint64_t v = 0;
	for (size_t k = first; k < last; k++) {
		unsigned d = (unsigned)(DIGIT(k) - '0');
		if (v > (UINT64_MAX - d) / 10)
			goto saturate;
		v = v * 10 + d;
	}
#undef DIGIT
	v += up;                    /* at most 10^19: fits */
	for (; scale > 0; scale--) {
		if (v > UINT64_MAX / 10)
			goto saturate;
		v *= 10;
	}
	while (scale < 0 && v % 10 == 0) {      /* zeros a carry made */
		v /= 10;
		scale++;
	}
	out->units = v;
	out->decimals = (unsigned)-scale;
	return true;
saturate:
	out->units = UINT64_MAX;
	out->decimals = 0;
	out->saturated = true;
	return true;
}

struct tree_dec tree_dec_from_double(double v)
{
	struct tree_dec d = { 0, 0, false, false };
	if (!(v > 0))
		return d;
	if (v >= 18446744073709551615.0) {
		d.units = UINT64_MAX;
		d.saturated = true;
		return d;
	}
	char buf[64];
	int n = snprintf(buf, sizeof buf, "%.9f", v);
	if (n > 0 && (size_t)n < sizeof buf)
		tree_dec_parse(buf, (size_t)n, &d);
	return d;
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
	if (keep > t->pathlen)
		xdie("internal error: tree_add_stack_tail beyond the previous stack");
	tree_idx leaf = extend_path(t, keep, tail, ntail);
	add_count(t, leaf, tree_units_from(t, count, 0));
	return leaf;
}

strtab_id tree_intern(struct tree *t, const char *s, size_t len)
{
	return strtab_intern(&t->names, s, len);
}

tree_idx tree_add_stack_tail_ids(struct tree *t, size_t keep, const strtab_id *tail,
                                 size_t ntail, uint64_t count)
{
	if (keep > t->pathlen)
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
	uint64_t u = dec_units(t, count);
	add_count(t, add_path(t, frames, n), u);
}

void tree_add_stack_tail_dec(struct tree *t, size_t keep, const struct tree_frame *tail,
                             size_t ntail, struct tree_dec count)
{
	if (keep > t->pathlen)
		xdie("internal error: tree_add_stack_tail beyond the previous stack");
	uint64_t u = dec_units(t, count);
	add_count(t, extend_path(t, keep, tail, ntail), u);
}

/* Returns to the system the pages of src's node array below node i, which
 * the merge has read (release mode only). Only whole pages strictly inside
 * the array are given back: malloc's bookkeeping around it stays intact. */
static void release_below(const struct tree *src, size_t i, uintptr_t *done)
{
#ifdef HAVE_MADVISE
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t page = pg > 0 ? (uintptr_t)pg : 4096;
	uintptr_t lo = ((uintptr_t)src->nodes + page - 1) / page * page;
	uintptr_t hi = (uintptr_t)(src->nodes + i) / page * page;
	if (*done < lo)
		*done = lo;
	if (hi > *done) {
		madvise((void *)*done, hi - *done, MADV_DONTNEED);
		*done = hi;
	}
#else
	(void)src;
	(void)i;
	(void)done;
#endif
}

/* True when src's stacks can follow dst's without the child hash: both
 * came in order, and src's first stack does not sort before dst's last. */
static bool merge_in_order(const struct tree *dst, const struct tree *src)
{
	if (dst->hashed || src->hashed)
		return false;
	if (dst->first_leaf == TREE_NONE || src->first_leaf == TREE_NONE)
		return true;
	size_t n = src->nodes[src->first_leaf].depth;
	struct tree_frame *f = xmalloc((n ? n : 1) * sizeof *f);
	tree_idx i = src->first_leaf;
	for (size_t k = n; k > 0; k--) {
		strtab_id id = src->nodes[i].name;
		f[k - 1] = (struct tree_frame){ strtab_str(&src->names, id), strtab_len(&src->names, id) };
		i = src->nodes[i].parent;
	}
	bool ok = cmp_stacks(dst, f, n, dst->path, dst->pathlen) >= 0;
	free(f);
	return ok;
}

static void merge(struct tree *dst, const struct tree *src, bool release, tree_idx **mapout)
{
	if (dst->finalized || src->finalized || dst->chart)
		xdie("internal error: tree_merge on a finalized tree or a flame chart");
	if (!merge_in_order(dst, src))
		ensure_hash(dst);
	/* Counts in dst's units: as many of src's decimals as dst takes. */
	if (src->decimals > dst->decimals)
		widen(dst, src->decimals);
	/* Names are interned once each, not once per node. */
	size_t nnames = strtab_count(&src->names);
	strtab_id *names = xmalloc((nnames ? nnames : 1) * sizeof *names);
	for (size_t k = 0; k < nnames; k++)
		names[k] = strtab_intern(&dst->names, strtab_str(&src->names, (strtab_id)k),
		                         strtab_len(&src->names, (strtab_id)k));
	/* Parents come before children in src: map them in index order. Below
	 * a node that the merge created, every child is new: no lookup. */
	size_t fresh = dst->n;
	tree_idx *map = xmalloc(src->n * sizeof *map);
	map[0] = TREE_ROOT;
	uintptr_t released = 0;
	for (size_t i = 0; i < src->n; i++) {
		if (release && (i & 0xfffff) == 0 && i)
			release_below(src, i, &released);
		const struct tree_node *sn = &src->nodes[i];
		if (i) {
			tree_idx p = map[sn->parent];
			map[i] = p >= fresh ? child_add(dst, p, names[sn->name])
			                    : child_get(dst, p, names[sn->name]);
			/* As in extend_path: an old node off dst's last path. */
			tree_idx c = map[i];
			uint32_t d = dst->nodes[c].depth;
			if (c < fresh && !(d - 1 < dst->pathlen && dst->path[d - 1] == c))
				dst->revisited = true;
		}
		struct tree_node *dn = &dst->nodes[map[i]];
		uint64_t add = tree_units_from(dst, sn->self.u, src->decimals);
		uint64_t v = dn->self.u + add;
		if (v < add) {
			v = UINT64_MAX;
			dst->saturated = true;
		}
		dn->self.u = v;
	}
	if (src->first_leaf != TREE_NONE) {
		if (dst->first_leaf == TREE_NONE)
			dst->first_leaf = map[src->first_leaf];
		path_reserve(dst, src->pathlen);
		for (size_t k = 0; k < src->pathlen; k++)
			dst->path[k] = map[src->path[k]];
		dst->pathlen = src->pathlen;
	}
	if (mapout)
		*mapout = map;
	else
		free(map);
	free(names);
	dst->stacks += src->stacks;
	dst->saturated |= src->saturated;
	dst->rounded += src->rounded;
	dst->revisited |= src->revisited;
}

void tree_merge(struct tree *dst, const struct tree *src)
{
	merge(dst, src, false, NULL);
}

void tree_merge_map(struct tree *dst, const struct tree *src, tree_idx **map)
{
	merge(dst, src, false, map);
}

void tree_merge_free(struct tree *dst, struct tree *src)
{
	tree_merge_free_map(dst, src, NULL);
}

void tree_merge_free_map(struct tree *dst, struct tree *src, tree_idx **map)
{
	/* Big trees give their read pages back as the merge goes, so that
	 * the peak is not dst plus the whole of src. */
	free(src->slots);       /* never looked up again */
	src->slots = NULL;
	src->nslots = 0;
	merge(dst, src, src->n * sizeof *src->nodes >= ((size_t)64 << 20), map);
	tree_free(src);
}

/* ---- finalize ----------------------------------------------------------- */

struct sort_ctx {
	const struct tree *t;
	enum tree_order order;
};

static bool has_self(const struct tree *t, tree_idx i)
{
	return t->nodes[i].self.u > 0;
}

#ifdef TREE_TEST_COUNT     /* tests/unit/test_treesort counts comparisons */
unsigned long tree_test_name_compares, tree_test_item_compares;
#define TEST_COUNT(c) ((c)++)
#else
#define TEST_COUNT(c) ((void)0)
#endif

/* flamegraph.pl order: siblings appear in the order of the smallest folded
 * line of their subtree. A node's own line "name" sorts before "name;...",
 * so a name that is a prefix of a sibling's compares by what follows it:
 * end of string if the node has samples of its own, else ';'. */
static int cmp_name(const struct tree *t, tree_idx a, tree_idx b)
{
	TEST_COUNT(tree_test_name_compares);
	strtab_id na = t->nodes[a].name, nb = t->nodes[b].name;
	size_t la = strtab_len(&t->names, na), lb = strtab_len(&t->names, nb);
	const unsigned char *sa = (const unsigned char *)strtab_str(&t->names, na);
	const unsigned char *sb = (const unsigned char *)strtab_str(&t->names, nb);
	int c = memcmp(sa, sb, la < lb ? la : lb);
	if (c || la == lb)
		return c;
	/* A ';' inside a name (perf can make one) sorts after the ';' that
	 * joins frames, as in cmp_stacks, so that this is a total order. */
	if (la < lb) {
		int ta = has_self(t, a) ? -1 : ';';
		return ta <= sb[la] ? -1 : 1;
	}
	int tb = has_self(t, b) ? -1 : ';';
	return sa[lb] < tb ? -1 : 1;
}

static int cmp_nodes(const struct sort_ctx *cx, tree_idx a, tree_idx b)
{
	const struct tree *t = cx->t;
	if (cx->order == TREE_ORDER_WEIGHT) {
		uint64_t ua = t->nodes[a].total.u, ub = t->nodes[b].total.u;
		if (ua != ub)
			return ua > ub ? -1 : 1;
	}
	return cmp_name(t, a, b);
}

/* Stable bottom-up merge sort of v[0..n) using tmp[0..n); no recursion. */
static void sort_children(const struct sort_ctx *cx, tree_idx *v, tree_idx *tmp, size_t n)
{
	if (n < 2)
		return;
	/* Short runs by insertion sort first: most sibling lists are tiny. */
	const size_t run = 8;
	for (size_t lo = 0; lo < n; lo += run) {
		size_t hi = lo + run < n ? lo + run : n;
		for (size_t i = lo + 1; i < hi; i++) {
			tree_idx x = v[i];
			size_t j = i;
			while (j > lo && cmp_nodes(cx, v[j - 1], x) > 0) {
				v[j] = v[j - 1];
				j--;
			}
			v[j] = x;
		}
	}
	tree_idx *src = v, *dst = tmp;
	for (size_t w = run; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n;
			size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				dst[k++] = cmp_nodes(cx, src[j], src[i]) < 0 ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		tree_idx *s = src;
		src = dst;
		dst = s;
	}
	if (src != v)
		memcpy(v, src, n * sizeof *v);
}

/* Sorting by name with what decides most comparisons at hand: the first
 * 8 bytes of the name (big-endian, zero-padded), its length and whether the
 * node has samples of its own, so that a comparison reads no node, name
 * entry or name bytes (a cache miss each on a big tree). */
struct name_key {
	uint64_t key;
	uint32_t len;       /* bit 31: has_self; below: the length, at most 2^31 - 1 */
	tree_idx node;
};

#define NAME_KEY_SELF 0x80000000u

static struct name_key name_key_of(const struct tree *t, tree_idx i)
{
	strtab_id id = t->nodes[i].name;
	const unsigned char *s = (const unsigned char *)strtab_str(&t->names, id);
	uint32_t len = strtab_len(&t->names, id);
	uint64_t k = 0;
	for (uint32_t j = 0; j < 8; j++)
		k = k << 8 | (j < len ? s[j] : 0);
	len = len < NAME_KEY_SELF ? len : NAME_KEY_SELF - 1;
	return (struct name_key){ k, len | (has_self(t, i) ? NAME_KEY_SELF : 0), i };
}

/* Byte i (< 8) of a key. */
static inline int key_byte(uint64_t k, uint32_t i)
{
	return (int)(k >> (56 - 8 * i) & 0xff);
}

/* cmp_name from the keys when they tell: the names differ within both
 * keys, or one name ends within its key and starts the other. */
static int cmp_name_key(const struct tree *t, const struct name_key *a, const struct name_key *b)
{
	uint32_t la = a->len & ~NAME_KEY_SELF, lb = b->len & ~NAME_KEY_SELF;
	uint64_t x = a->key ^ b->key;
	if (x) {
		uint32_t p = (uint32_t)__builtin_clzll(x) / 8;
		if (p < la && p < lb)
			return a->key < b->key ? -1 : 1;
	}
	/* Equal up to where the shorter one ends: as in cmp_name. */
	if (la < lb && la < 8) {
		int ta = a->len & NAME_KEY_SELF ? -1 : ';';
		return ta <= key_byte(b->key, la) ? -1 : 1;
	}
	if (lb < la && lb < 8) {
		int tb = b->len & NAME_KEY_SELF ? -1 : ';';
		return key_byte(a->key, lb) < tb ? -1 : 1;
	}
	return cmp_name(t, a->node, b->node);
}

static void nk_swap(struct name_key *a, struct name_key *b)
{
	struct name_key x = *a;
	*a = *b;
	*b = x;
}

/* Moves v[i] down the heap v[0..n) to its place. */
static void nk_sift(const struct tree *t, struct name_key *v, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			return;
		if (c + 1 < n && cmp_name_key(t, &v[c], &v[c + 1]) < 0)
			c++;
		if (cmp_name_key(t, &v[i], &v[c]) >= 0)
			return;
		nk_swap(&v[i], &v[c]);
		i = c;
	}
}

/* Heapsort of v[0..n): the fallback that bounds the quicksort below. */
static void nk_heapsort(const struct tree *t, struct name_key *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		nk_sift(t, v, i, n);
	for (size_t m = n; m > 1; m--) {
		nk_swap(&v[0], &v[m - 1]);
		nk_sift(t, v, 0, m - 1);
	}
}

/* Sorts v[0..n) of distinct names by cmp_name_key, in place (no scratch
 * as big as the list): quicksort with a median-of-three pivot, the
 * smaller part first and the larger kept on a stack (so at most log2 n
 * deep), heapsort for a part that splits badly too often (so O(n log n)
 * whatever the names), insertion sort for short parts. Siblings have
 * distinct names: no two entries compare equal. */
static void sort_keyed(const struct tree *t, struct name_key *v, size_t n)
{
	struct { size_t lo, hi; unsigned budget; } stk[64];
	size_t sp = 0, lo = 0, hi = n;
	unsigned budget = 2 * (64 - (unsigned)__builtin_clzll((unsigned long long)n | 1));
	uint64_t seed = 0x9e3779b97f4a7c15ULL ^ n;
	for (;;) {
		while (hi - lo > 16) {
			if (budget == 0) {
				nk_heapsort(t, v + lo, hi - lo);
				lo = hi;
				break;
			}
			budget--;
			/* The pivot: the median of three entries drawn at
			 * (pseudo) random, as sibling lists come in patterns
			 * (creation order) that defeat fixed choices. */
			size_t len = hi - lo, e[3];
			for (int r = 0; r < 3; r++) {
				seed ^= seed << 13;
				seed ^= seed >> 7;
				seed ^= seed << 17;
				e[r] = lo + (size_t)(seed % len);
			}
			if (cmp_name_key(t, &v[e[1]], &v[e[0]]) < 0) {
				size_t x = e[0];
				e[0] = e[1];
				e[1] = x;
			}
			if (cmp_name_key(t, &v[e[2]], &v[e[1]]) < 0) {
				e[1] = e[2];
				if (cmp_name_key(t, &v[e[1]], &v[e[0]]) < 0)
					e[1] = e[0];
			}
			nk_swap(&v[lo], &v[e[1]]);
			size_t i = lo, j = hi;
			for (;;) {
				do
					i++;
				while (i < hi && cmp_name_key(t, &v[i], &v[lo]) < 0);
				do
					j--;
				while (cmp_name_key(t, &v[j], &v[lo]) > 0);
				if (i >= j)
					break;
				nk_swap(&v[i], &v[j]);
			}
			nk_swap(&v[lo], &v[j]);
			/* [lo, j) before the pivot at j, (j, hi) after it */
			size_t llo = lo, lhi = j, rlo = j + 1, rhi = hi;
			if (lhi - llo < rhi - rlo) {
				stk[sp].lo = rlo, stk[sp].hi = rhi, stk[sp].budget = budget, sp++;
				lo = llo, hi = lhi;
			} else {
				stk[sp].lo = llo, stk[sp].hi = lhi, stk[sp].budget = budget, sp++;
				lo = rlo, hi = rhi;
			}
		}
		for (size_t i = lo + 1; i < hi; i++) {
			struct name_key x = v[i];
			size_t j = i;
			while (j > lo && cmp_name_key(t, &v[j - 1], &x) > 0) {
				v[j] = v[j - 1];
				j--;
			}
			v[j] = x;
		}
		if (sp == 0)
			break;
		sp--;
		lo = stk[sp].lo, hi = stk[sp].hi, budget = stk[sp].budget;
	}
}

static tree_count count_add(struct tree *t, tree_count a, tree_count b)
{
	uint64_t s = a.u + b.u;
	if (s < a.u) {
		s = UINT64_MAX;
		t->saturated = true;
	}
	a.u = s;
	return a;
}

/* Child j of a sorted list: kv (name order) or v (other orders). */
static inline tree_idx sorted_kid(const struct name_key *kv, const tree_idx *v, size_t j)
{
	return kv ? kv[j].node : v[j];
}

/* Sorts the child list of every node with two children or more; scratch
 * grows to the longest sibling list (not to n): in name order, a keyed
 * entry each (sort_keyed, in place), else two indices each (a merge sort
 * and its scratch). The lists stay newest first, so they end up in
 * descending order (see tree_finalize). */
static void sort_lists(struct tree *t, enum tree_order order)
{
	struct tree_node *nd = t->nodes;
	struct sort_ctx cx = { t, order };
	tree_idx *v = NULL;
	struct name_key *kv = NULL;     /* instead of v in name order */
	size_t cap = 0;
	bool keyed = order == TREE_ORDER_NAME;
	for (size_t i = 0; i < t->n; i++) {
		tree_idx c = kid_newest(&nd[i]);
		if (c == 0 || kid_older(&nd[c]) == 0)
			continue;
		size_t k = 0;
		for (; c != 0; c = kid_older(&nd[c])) {
			if (k == cap) {
				cap = cap ? cap * 2 : 64;
				if (keyed)
					kv = xreallocarray(kv, cap, sizeof *kv);
				else
					v = xreallocarray(v, 2 * cap, sizeof *v);
			}
			if (keyed)
				kv[k++] = name_key_of(t, c);
			else
				v[k++] = c;
		}
		if (keyed)
			sort_keyed(t, kv, k);
		else
			sort_children(&cx, v, v + cap, k);
		nd[i].off.u = (uint64_t)sorted_kid(kv, v, k - 1) << 32 | kid_older(&nd[i]);
		for (size_t j = k; j-- > 0;) {
			tree_idx x = sorted_kid(kv, v, j);
			nd[x].off.u = (uint64_t)kid_newest(&nd[x]) << 32 | (j ? sorted_kid(kv, v, j - 1) : 0);
		}
	}
	free(v);
	free(kv);
}

/* Moves every node i to its `end` field's index. A permutation far from
 * the identity (shuffled input) is scattered into a new array when that
 * costs at most TREE_GATHER_MAX bytes: its cycles are chains of dependent
 * cache misses, while the scattered writes are independent. Otherwise the
 * nodes are swapped in place, one cycle at a time, with no extra memory,
 * which keeps the peak memory of big trees at the tree's own; `from`
 * (nfrom entries, or NULL) lists every node that moves, so that a nearly
 * sorted tree is not read through to find the few cycles. */
#ifndef TREE_GATHER_MAX     /* the tests set it and the next one smaller */
#define TREE_GATHER_MAX ((size_t)96 << 20)
#endif

/* Puts every node of [lo, hi) where its `end` says, following cycles; the
 * targets of these nodes must lie in [lo, hi) or be already in place. */
static void follow_cycles(struct tree_node *nd, size_t lo, size_t hi)
{
	for (size_t i = lo; i < hi; i++) {
		while (nd[i].end != i) {
			tree_idx j = nd[i].end;
			struct tree_node tn = nd[j];
			nd[j] = nd[i];
			nd[i] = tn;
		}
	}
}

/* The same for a permutation far from the identity, in place and without
 * a cache miss per node: an American flag sort of the nodes by target, 8
 * bits at a time from the top. A pass writes each of its 256 buckets in
 * order, so memory is read and written in streams; a range small enough
 * for the cache is finished by following cycles. No recursion: ranges wait
 * on a stack of at most 4 levels of 256. */
#ifndef TREE_RADIX_SMALL
#define TREE_RADIX_SMALL ((size_t)1 << 15)
#endif
static void permute_radix(struct tree_node *nd, size_t n)
{
	struct range {
		size_t lo, hi;
		unsigned shift;     /* a target's bucket: (target - lo) >> shift */
	} stk[4 * 256 + 1];
	size_t sp = 0, head[256], stop[256];
	unsigned bits = 0;
	while (bits < 40 && ((size_t)1 << bits) < n)
		bits++;
	stk[sp++] = (struct range){ 0, n, bits > 8 ? bits - 8 : 0 };
	while (sp) {
		struct range r = stk[--sp];
		if (r.hi - r.lo <= TREE_RADIX_SMALL) {
			follow_cycles(nd, r.lo, r.hi);
			continue;
		}
		size_t nb = ((r.hi - r.lo - 1) >> r.shift) + 1;
		for (size_t b = 0; b < nb; b++) {
			head[b] = r.lo + (b << r.shift);
			stop[b] = head[b] + ((size_t)1 << r.shift) < r.hi ? head[b] + ((size_t)1 << r.shift) : r.hi;
		}
		for (size_t b = 0; b < nb; b++) {
			while (head[b] < stop[b]) {
				struct tree_node x = nd[head[b]];
				size_t tb = (x.end - r.lo) >> r.shift;
				while (tb != b) {
					struct tree_node y = nd[head[tb]];
					nd[head[tb]++] = x;
					x = y;
					tb = (x.end - r.lo) >> r.shift;
				}
				nd[head[b]++] = x;
			}
		}
		if (r.shift == 0)
			continue;       /* one target per bucket: all in place */
		for (size_t b = 0; b < nb; b++) {
			size_t lo = r.lo + (b << r.shift);
			stk[sp++] = (struct range){ lo, stop[b], r.shift > 8 ? r.shift - 8 : 0 };
		}
	}
}

static void permute(struct tree *t, size_t moved, const tree_idx *from, size_t nfrom)
{
	size_t n = t->n;
	struct tree_node *nd = t->nodes;
	struct tree_node *dst = NULL;
	if (TREE_GATHER_MAX > 0 && moved > n / 8 && n * sizeof *dst <= TREE_GATHER_MAX)
		dst = malloc(n * sizeof *dst);
	if (dst) {
		for (size_t i = 0; i < n; i++)
			dst[nd[i].end] = nd[i];
		free(nd);
		t->nodes = dst;
		t->cap = n;
		return;
	}
	if (from) {
		for (size_t k = 0; k < nfrom; k++)
			follow_cycles(nd, from[k], from[k] + 1);
	} else {
		permute_radix(nd, n);
	}
}

/* True when some name holds a ';', which folded text cannot. */
static bool names_have_semicolon(const struct tree *t)
{
	for (size_t k = 0; k < strtab_count(&t->names); k++)
		if (memchr(strtab_str(&t->names, (strtab_id)k), ';', strtab_len(&t->names, (strtab_id)k)))
			return true;
	return false;
}

#ifndef TREE_FROM_MAX
#define TREE_FROM_MAX ((size_t)1 << 20)
#endif

/* The nodes that move in a renumbering: listed while they are at most
 * TREE_FROM_MAX, then only counted (permute then reads them all). */
struct moved {
	tree_idx *from;
	size_t n, cap;
	bool listing;
};

static void moved_add(struct moved *m, tree_idx u)
{
	if (m->listing && m->n == m->cap) {
		if (m->cap == TREE_FROM_MAX) {
			m->listing = false;
		} else {
			m->cap = m->cap ? m->cap * 2 : 1024;
			m->from = xreallocarray(m->from, m->cap, sizeof *m->from);
		}
	}
	if (m->listing)
		m->from[m->n] = u;
	m->n++;
}

/* Hands the list over (NULL when it overflowed) and returns the count. */
static size_t moved_end(struct moved *m, tree_idx **from, size_t *nfrom)
{
	if (!m->listing) {
		free(m->from);
		m->from = NULL;
	}
	*from = m->from;
	*nfrom = m->listing ? m->n : 0;
	return m->n;
}

/* Preorder numbers, into each node's `end`, from the child lists, by a
 * depth-first walk with an explicit stack: a node's children are pushed
 * newest first, so the oldest (first in the lists' order) comes off first.
 * A stack entry carries the node's newest child too, read with its sibling
 * link: each node is read once. Returns how many nodes move, and lists
 * them in *from while they are few (else *from is NULL). */
static size_t number_preorder(struct tree *t, tree_idx **from, size_t *nfrom)
{
	struct tree_node *nd = t->nodes;
	size_t cap = 1024, sp = 0, k = 0;
	uint64_t *stk = xmalloc(cap * sizeof *stk);    /* newest child << 32 | node */
	struct moved m = { NULL, 0, 0, true };
	stk[sp++] = (uint64_t)kid_newest(&nd[TREE_ROOT]) << 32 | TREE_ROOT;
	while (sp) {
		uint64_t e = stk[--sp];
		tree_idx u = (tree_idx)e;
		if (u != k)
			moved_add(&m, u);
		nd[u].end = (tree_idx)k++;
		for (tree_idx c = (tree_idx)(e >> 32); c != 0;) {
			uint64_t links = nd[c].off.u;
			if (sp == cap) {
				cap *= 2;
				stk = xreallocarray(stk, cap, sizeof *stk);
			}
			stk[sp++] = (links >> 32) << 32 | c;
			c = (tree_idx)links;
		}
	}
	free(stk);
	return moved_end(&m, from, nfrom);
}

/* number_preorder for a tree whose siblings are in index order (built
 * without the hash: creation order is name order) and whose totals are
 * all 0 (integer counts, summed later): two passes by index instead of a
 * walk, whose reads of each node's children scatter over the array. The
 * subtree sizes go bottom-up into `total` (children come after their
 * parent), then each node's number is its parent's next free one, which
 * then moves past the node's subtree (kept in `off`, read by the children
 * only, which come later). Same results as number_preorder. */
static size_t number_by_index(struct tree *t, tree_idx **from, size_t *nfrom)
{
	struct tree_node *nd = t->nodes;
	size_t n = t->n;
	struct moved m = { NULL, 0, 0, true };
	for (size_t i = n; i-- > 1;) {
		nd[i].total.u += 1;
		nd[nd[i].parent].total.u += nd[i].total.u;
	}
	nd[0].end = 0;
	nd[0].off.u = 1;
	for (size_t i = 1; i < n; i++) {
		struct tree_node *p = &nd[nd[i].parent];
		tree_idx k = (tree_idx)p->off.u;
		p->off.u += nd[i].total.u;
		nd[i].end = k;
		nd[i].off.u = (uint64_t)k + 1;
		nd[i].total.u = 0;
		if (k != i)
			moved_add(&m, (tree_idx)i);
	}
	nd[0].total.u = 0;
	return moved_end(&m, from, nfrom);
}

/* Totals bottom-up, by index: parents are always made before their
 * children, and in preorder too. `total` must be 0 on entry. */
static void totals_backward(struct tree *t)
{
	struct tree_node *nd = t->nodes;
	for (size_t i = t->n; i-- > 0;) {
		nd[i].total = count_add(t, nd[i].total, nd[i].self);
		if (i)
			nd[nd[i].parent].total = count_add(t, nd[nd[i].parent].total, nd[i].total);
	}
}

/* Ends, parents and, for integer counts, offsets (and totals when `totals`)
 * of nodes in preorder, in one pass forwards along the path from the root
 * (stk[d]: its node at depth d); the parents are renumbered here for free,
 * after the nodes moved. With `before` the sum of the self counts of the
 * nodes before node i: i's offset is `before` less the self counts of its
 * ancestors (the rest are whole subtrees to its left), and its total is
 * `before` where its subtree ends less `before` at i. Returns false when
 * those sums would overflow: then neither offsets nor totals are set. */
static bool ends_and_offsets(struct tree *t, bool totals)
{
	struct tree_node *nd = t->nodes;
	size_t n = t->n, cap = 64, sp = 1;
	bool sums = !t->chart && !t->saturated;
	tree_idx *stk = xmalloc(cap * sizeof *stk);
	uint64_t *cum = xmalloc(cap * sizeof *cum);     /* self counts down the path */
	uint64_t *start = xmalloc(cap * sizeof *start); /* `before` at the node */
	uint64_t before = 0;
	stk[0] = TREE_ROOT;
	start[0] = 0;
	cum[0] = nd[0].self.u;
	if (sums && __builtin_add_overflow(before, nd[0].self.u, &before))
		sums = false;
	for (size_t i = 1; i < n; i++) {
		size_t d = nd[i].depth;
		while (sp > d) {
			tree_idx j = stk[--sp];
			nd[j].end = (tree_idx)i;
			if (sums && totals)
				nd[j].total.u = before - start[sp];
		}
		nd[i].parent = stk[sp - 1];
		if (sp == cap) {
			cap *= 2;
			stk = xreallocarray(stk, cap, sizeof *stk);
			cum = xreallocarray(cum, cap, sizeof *cum);
			start = xreallocarray(start, cap, sizeof *start);
		}
		if (sums) {
			uint64_t self = nd[i].self.u;
			nd[i].off.u = before - cum[sp - 1];
			cum[sp] = cum[sp - 1] + self;
			start[sp] = before;
			if (__builtin_add_overflow(before, self, &before))
				sums = false;
		}
		stk[sp++] = (tree_idx)i;
	}
	while (sp) {
		tree_idx j = stk[--sp];
		nd[j].end = (tree_idx)n;
		if (sums && totals)
			nd[j].total.u = before - start[sp];
	}
	free(stk);
	free(cum);
	free(start);
	if (sums)
		nd[0].off.u = 0;
	return sums || t->chart || t->saturated;
}

/* Offsets sibling by sibling from the totals (fractions, saturated sums). */
static void offsets_by_siblings(struct tree *t)
{
	struct tree_node *nd = t->nodes;
	memset(&nd[0].off, 0, sizeof nd[0].off);
	for (size_t i = 0; i < t->n; i++) {
		tree_count x = nd[i].off;
		for (tree_idx c = (tree_idx)i + 1; c < nd[i].end; c = nd[c].end) {
			nd[c].off = x;
			x = count_add(t, x, nd[c].total);
		}
	}
}

void tree_finalize(struct tree *t, enum tree_order order)
{
	tree_finalize_map(t, order, NULL);
}

void tree_finalize_map(struct tree *t, enum tree_order order, tree_idx **map)
{
	if (map)
		*map = NULL;
	if (t->finalized)
		return;
	/* A flame chart's siblings are in time order and its offsets are
	 * times: any other order would draw overlapping, unsorted spans. */
	if (t->chart)
		order = TREE_ORDER_INPUT;
	size_t n = t->n;
	struct tree_node *nd = t->nodes;
	free(t->slots);
	t->slots = NULL;
	t->nslots = 0;
	free(t->path);
	t->path = NULL;
	t->pathlen = t->pathcap = 0;

	/* A flame chart keeps its times in `off` while building: set aside,
	 * and the child lists (newest first) made from the parents. */
	tree_count *times = NULL;
	if (t->chart) {
		times = xreallocarray(NULL, n, sizeof *times);
		for (size_t i = 0; i < n; i++)
			times[i] = nd[i].off;
		nd[0].off.u = 0;
		for (size_t i = 1; i < n; i++) {
			struct tree_node *p = &nd[nd[i].parent];
			nd[i].off.u = kid_newest(p);
			p->off.u = (uint64_t)i << 32 | kid_older(p);
		}
	}

	/* Integer totals come out of the last pass, unless sorting by weight
	 * needs them first; sums too big for 64 bits saturate, which only the
	 * sum bottom-up by index does. */
	bool late = !t->chart && !t->saturated && order != TREE_ORDER_WEIGHT;
	if (!late)
		totals_backward(t);
	/* Sibling lists are in creation order; stacks added in sorted order
	 * made them in name order already (find_sorted's reasoning), unless
	 * a name holds a ';', where the two orders part. */
	bool semicolons = order == TREE_ORDER_NAME && !t->hashed && names_have_semicolon(t);
	if (order == TREE_ORDER_WEIGHT || (order == TREE_ORDER_NAME && (t->hashed || semicolons)))
		sort_lists(t, order);

	/* Built without the hash, siblings are in index order: a tree built
	 * in order without revisits is in preorder already (nothing to number
	 * or move), and one with revisits is numbered by index. */
	tree_idx *from = NULL;
	size_t nfrom = 0, moved = 0;
	bool by_index = !t->hashed && !t->chart &&
	                (order == TREE_ORDER_INPUT || (order == TREE_ORDER_NAME && !semicolons));
	if (by_index && !t->revisited)
		;
	else if (by_index && late)
		moved = number_by_index(t, &from, &nfrom);
	else
		moved = number_preorder(t, &from, &nfrom);
	if (times) {
		for (size_t i = 0; i < n; i++)
			nd[i].off = times[i];
		free(times);
	}
	if (moved && map) {     /* numbering left each node's new id in `end` */
		*map = xmalloc(n * sizeof **map);
		for (size_t i = 0; i < n; i++)
			(*map)[i] = nd[i].end;
	}
	if (moved)
		permute(t, moved, from, nfrom);     /* parents are renumbered below */
	free(from);
	nd = t->nodes;
	if (!ends_and_offsets(t, late)) {
		/* The sums overflowed: totals the saturating way. */
		for (size_t i = 0; i < n; i++)
			memset(&nd[i].total, 0, sizeof nd[i].total);
		totals_backward(t);
	}
	if (!t->chart && t->saturated)
		offsets_by_siblings(t);
	if (t->cap > n) {   /* growth doubled the array: give the slack back */
		t->nodes = xreallocarray(t->nodes, n, sizeof *t->nodes);
		t->cap = n;
	}
	t->finalized = true;
}

/* ---- output ------------------------------------------------------------- */

int tree_format_count(const struct tree *t, tree_count c, char *buf, size_t size)
{
	if (!t->frac)
		return snprintf(buf, size, "%" PRIu64, c.u);
	uint64_t whole = c.u / t->unit, part = c.u % t->unit;
	if (!part)
		return snprintf(buf, size, "%" PRIu64, whole);
	char digits[24];
	int n = snprintf(digits, sizeof digits, "%0*" PRIu64, (int)t->decimals, part);
	while (n > 1 && digits[n - 1] == '0')
		digits[--n] = '\0';
	return snprintf(buf, size, "%" PRIu64 ".%s", whole, digits);
}

/* An item of the folded output within one sibling group: a node's own line
 * ("name COUNT") or its subtree ("name;..."). Sorting items rather than
 * nodes gives exact byte order even when a name is a prefix of a sibling's
 * ("a" < "a!;x" < "a;b"). */
struct fold_item {
	tree_idx node;
	bool subtree;
};

static int cmp_item(const struct tree *t, struct fold_item a, struct fold_item b)
{
	TEST_COUNT(tree_test_item_compares);
	strtab_id na = t->nodes[a.node].name, nb = t->nodes[b.node].name;
	size_t la = strtab_len(&t->names, na), lb = strtab_len(&t->names, nb);
	const unsigned char *sa = (const unsigned char *)strtab_str(&t->names, na);
	const unsigned char *sb = (const unsigned char *)strtab_str(&t->names, nb);
	int c = memcmp(sa, sb, la < lb ? la : lb);
	if (c)
		return c;
	/* What follows the shorter name: end (-1), ';' for a subtree, or a byte. */
	int ca = la > lb ? sa[lb] : (a.subtree ? ';' : -1);
	int cb = lb > la ? sb[la] : (b.subtree ? ';' : -1);
	if (la == lb && ca == cb)
		return 0;
	return ca < cb ? -1 : 1;
}

/* Bottom-up merge sort of v[0..n) with tmp[0..n): O(n log n) even for
 * hostile names (long chains of names that are prefixes of each other). */
static void sort_items(const struct tree *t, struct fold_item *v, struct fold_item *tmp, size_t n)
{
	struct fold_item *src = v, *dst = tmp;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n;
			size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				dst[k++] = cmp_item(t, src[j], src[i]) < 0 ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		struct fold_item *s = src;
		src = dst;
		dst = s;
	}
	if (src != v)
		memcpy(v, src, n * sizeof *v);
}

/* True when v[0..n) is in order already: finalize put siblings in name
 * order, which is the items' order unless a name starts a sibling's and
 * what follows sorts before ';'. One comparison each, not a sort's
 * n log n (10 million siblings: 23 times fewer). */
static bool items_sorted(const struct tree *t, const struct fold_item *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (cmp_item(t, v[i - 1], v[i]) > 0)
			return false;
	return true;
}

/* Writes v in decimal at p (no NUL); returns the length (at most 20). */
static size_t format_u64(uint64_t v, char *p)
{
	char tmp[20];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		p[i] = tmp[n - 1 - i];
	return n;
}

struct fold_frame {
	size_t items_begin, items_end, next;    /* this group's items */
	size_t keylen;                          /* key length to restore after it */
};

int tree_write_folded(const struct tree *t, FILE *out)
{
	struct fold_item *items = NULL, *tmp = NULL;
	size_t nitems = 0, capitems = 0, captmp = 0, restore = 0;
	struct fold_frame *stk = NULL;
	size_t nstk = 0, capstk = 0;
	char *key = NULL;
	size_t keylen = 0, keycap = 0;
	char num[64];
	int rc = 0;

	if (has_self(t, TREE_ROOT)) {
		tree_format_count(t, t->nodes[0].self, num, sizeof num);
		if (fprintf(out, " %s\n", num) < 0)
			rc = -1;
	}

	/* Push the root's children as the first group. */
	tree_idx parent = TREE_ROOT;
	for (;;) {
		if (parent != TREE_NONE) {
			size_t b = nitems;
			for (tree_idx c = tree_first_child(t, parent); c != TREE_NONE; c = tree_next_sibling(t, c)) {
				if (nitems + 2 > capitems) {
					capitems = capitems ? capitems * 2 : 256;
					items = xreallocarray(items, capitems, sizeof *items);
				}
				if (has_self(t, c))
					items[nitems++] = (struct fold_item){ c, false };
				if (tree_first_child(t, c) != TREE_NONE)
					items[nitems++] = (struct fold_item){ c, true };
			}
			if (nitems - b > 1 && !items_sorted(t, items + b, nitems - b)) {
				if (nitems - b > captmp) {
					captmp = nitems - b;
					tmp = xreallocarray(tmp, captmp, sizeof *tmp);
				}
				sort_items(t, items + b, tmp, nitems - b);
			}
			if (nstk == capstk) {
				capstk = capstk ? capstk * 2 : 64;
				stk = xreallocarray(stk, capstk, sizeof *stk);
			}
			stk[nstk++] = (struct fold_frame){ b, nitems, b, restore };
			parent = TREE_NONE;
		}
		if (nstk == 0)
			break;
		struct fold_frame *f = &stk[nstk - 1];
		if (f->next == f->items_end) {
			keylen = f->keylen;
			nitems = f->items_begin;
			nstk--;
			continue;
		}
		struct fold_item it = items[f->next++];
		tree_idx c = it.node;
		size_t nl = strtab_len(&t->names, t->nodes[c].name);
		if (keylen + nl + 2 > keycap) {
			while (keylen + nl + 2 > keycap)
				keycap = keycap ? keycap * 2 : 4096;
			key = xrealloc(key, keycap);
		}
		if (it.subtree) {
			restore = keylen;
			memcpy(key + keylen, strtab_str(&t->names, t->nodes[c].name), nl);
			keylen += nl;
			key[keylen++] = ';';
			parent = c;
		} else {
			/* The key is complete in key[0..keylen) + name: append the
			 * count there and write the line with one call. */
			size_t need = keylen + nl + 2 + sizeof num;
			if (need > keycap) {
				while (need > keycap)
					keycap *= 2;
				key = xrealloc(key, keycap);
			}
			char *p = key + keylen;
			memcpy(p, strtab_str(&t->names, t->nodes[c].name), nl);
			p += nl;
			*p++ = ' ';
			if (t->frac) {
				tree_format_count(t, t->nodes[c].self, num, sizeof num);
				size_t ln = strlen(num);
				memcpy(p, num, ln);
				p += ln;
			} else {
				p += format_u64(t->nodes[c].self.u, p);
			}
			*p++ = '\n';
			size_t len = (size_t)(p - key);
			if (fwrite(key, 1, len, out) != len) {
				rc = -1;
				break;
			}
		}
	}
	free(items);
	free(tmp);
	free(stk);
	free(key);
	if (rc == 0 && ferror(out))
		rc = -1;
	return rc;
}

size_t tree_bytes(const struct tree *t)
{
	return t->cap * sizeof *t->nodes + t->nslots * sizeof *t->slots +
	       t->pathcap * sizeof *t->path + strtab_bytes(&t->names);
}
