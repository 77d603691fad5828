/* tree: the merged call tree of a profile.
 *
 * Life cycle: tree_init, any number of tree_add_stack*, tree_finalize once,
 * then read-only queries. Nodes are addressed by 32-bit indices. Node 0 is the
 * root ("all"); it is the parent of every stack's first frame.
 *
 * After tree_finalize nodes are numbered in depth-first preorder with siblings
 * in the chosen order, so the subtree of i is the index range [i, end(i)),
 * the first child of i is i+1 (when i+1 < end(i)) and the next sibling of c is
 * end(c) (when end(c) < end(parent(c))). Nothing here recurses over the tree.
 *
 * Counts are exact unsigned 64-bit integers, saturating at UINT64_MAX (the
 * tree remembers that it saturated). Fractional counts make the tree decimal
 * fixed point: every count is then in units of 10^-decimals (tree.frac,
 * tree.decimals, tree.unit), the fewest decimals that hold the input's
 * fractions, so that integers stay exact beside fractions and sums are exact.
 * A tree takes more decimals only while its sum still fits 64 bits; digits
 * beyond that are rounded (tree.rounded counts those counts). Use the *_d
 * accessors for proportions and tree_format_count for text. */
#ifndef TFLAME_TREE_H
#define TFLAME_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "strtab.h"

struct prefault;

typedef uint32_t tree_idx;
#define TREE_NONE UINT32_MAX
#define TREE_ROOT 0u
/* Maximum number of nodes (indices stay below TREE_NONE and one more
 * reserved value used while building). */
#define TREE_MAX_NODES (UINT32_MAX - 2u)

typedef struct {
	uint64_t u;     /* in units of 10^-tree.decimals */
} tree_count;

/* A decimal count: units / 10^decimals (decimals <= TREE_MAX_DECIMALS). */
struct tree_dec {
	uint64_t units;
	unsigned decimals;
	bool saturated;     /* the value was above what 64 bits hold: UINT64_MAX */
	bool rounded;       /* digits beyond TREE_MAX_DECIMALS were rounded */
};
#define TREE_MAX_DECIMALS 18u

struct tree_node {
	tree_idx parent;    /* TREE_NONE for the root */
	strtab_id name;
	tree_idx end;       /* after finalize: one past the last node of the subtree
	                       (while building: the only child, see tree.c) */
	uint32_t depth;     /* root 0, a stack's first frame 1 */
	tree_count self;    /* samples whose stack ends here */
	tree_count total;   /* after finalize: self + children's totals
	                       (0 while building) */
	tree_count off;     /* after finalize: samples left of this node (root 0);
	                       in a flame chart, samples before it in time
	                       (while building: the child lists, see tree.c) */
};

/* A frame name handed to the tree: bytes, not NUL-terminated. */
struct tree_frame {
	const char *s;
	size_t len;
};

enum tree_order {
	TREE_ORDER_NAME,    /* byte-wise by name, as flamegraph.pl (default) */
	TREE_ORDER_WEIGHT,  /* heaviest child first ("left heavy") */
	TREE_ORDER_INPUT    /* first appearance in the input */
};

/* What only the builder uses (tree_add_stack*, tree_merge*; see
 * treeint.h): none of it is read after tree_finalize. */
struct tree_build {
	bool hashed;        /* the child hash is in use: set by the first stack
	                       that sorts before the one added just before it.
	                       Until then a child is found without it
	                       (treebuild.c: find_sorted), which is what sorted
	                       folded files (collapser output) get. */
	bool revisited;     /* without the hash: a stack reached a child whose
	                       subtree had been left before (find_sorted walked
	                       back to it), so index order is not preorder.
	                       Until then tree_finalize need not renumber. */
	/* The revisits of a hash-free build, for tree_finalize to move only
	 * the nodes they put out of preorder (treefinal.c:
	 * number_by_revisits): rv[k].node was a leaf that a stack went back
	 * to once rv[k].at nodes were made, and its new subtree is [at, end)
	 * (end TREE_NONE while the node is on the path; rvopen[] lists those,
	 * the deepest last). rv_lost: a revisit is not listed (a node that
	 * had children, a merge): finalize renumbers every node instead. */
	struct tree_revisit {
		tree_idx node, at, end;
	} *rv;
	size_t nrv, caprv;
	size_t *rvopen;
	size_t nrvopen, caprvopen;
	bool rv_lost;
	uint64_t *slots;    /* child hash of branching nodes: (tag << 32) | index */
	size_t nslots, nhashed;
	tree_idx *path;     /* nodes of the previous stack, for prefix reuse */
	size_t pathlen, pathcap;
	/* The names of path[0..pathkeyed) in short, beside path (pathcap of
	 * them): their first 8 bytes (little-endian, zero-padded) and length,
	 * so that the new frame of a sorted stack is told from the previous
	 * stack's without reading that name's entry and bytes (treebuild.c:
	 * key_order). Set by tree_add_stack*, 0 after other changes of the
	 * path. */
	struct tree_pathkey {
		uint64_t head;
		size_t len;
	} *pathkeys;
	size_t pathkeyed;
	tree_idx first_leaf;    /* where the first stack added ended (TREE_NONE:
	                           none yet), for tree_merge's order check */
	/* tree_add_stacks' scratch: paths, where each stack's starts */
	tree_idx *bpath;
	size_t *bat;
	size_t bpathcap, batcap;
	bool stale;         /* nodes were made without the child hash
	                       (tree_add_stacks_new): the next lookup that
	                       needs it rebuilds it first */
	size_t spare;       /* tree_set_spare */
	size_t faulted;     /* bytes of `nodes` whose pages new_node faulted in
	                       ahead (SIZE_MAX: that failed, never again), or
	                       with pf, may write */
	struct prefault *pf;        /* tree_reserve_prefault's helper, or NULL */
};

struct tree {
	struct tree_node *nodes;
	size_t n, cap;
	struct strtab names;
	bool frac;          /* decimals > 0 */
	unsigned decimals;  /* counts are in units of 10^-decimals */
	uint64_t unit;      /* 10^decimals */
	uint64_t rounded;   /* counts rounded to fit the tree's decimals */
	bool saturated;     /* an integer count or sum exceeded UINT64_MAX */
	bool finalized;
	bool names_borrowed;        /* tree_borrow_names: `names` is another's */
	bool chart;         /* flame chart: set before adding stacks; a frame
	                       merges only with the same frame of the stack
	                       just before (time order is kept) */
	uint64_t stacks;    /* stacks added (lines or records) */
	tree_count time;    /* samples added so far (a chart node's offset) */
	struct tree_build b; /* building state, freed by tree_finalize */
};

void tree_init(struct tree *t);
void tree_free(struct tree *t);
/* tree_init with node memory from a tree that is done with it (see
 * tree_take_nodes; NULL: none), which the tree then owns: a tree built in
 * memory already touched skips the kernel's zeroing of fresh pages. */
void tree_init_nodes(struct tree *t, void *mem, size_t bytes);
/* Hands the node array (malloc'ed, *bytes long) to the caller; the tree is
 * left for tree_free only. */
void *tree_take_nodes(struct tree *t, size_t *bytes);

/* Adds one stack, frames[0] the outermost caller, frames[n-1] the leaf, with
 * count samples, and returns its leaf (an id until tree_finalize, which
 * renumbers: see tree_finalize_map). n == 0 adds to the root's self count. Frames may contain any
 * bytes. Dies (via xdie) beyond TREE_MAX_NODES nodes. Not after finalize.
 *
 * Any order of stacks gives the same tree. Stacks added in ascending order
 * of their text (frames joined by ';', byte-wise, as `LC_ALL=C sort` orders
 * folded lines) build faster and in less memory: no child hash until the
 * first stack out of order. */
tree_idx tree_add_stack(struct tree *t, const struct tree_frame *frames, size_t n, uint64_t count);
/* tree_add_stack with a decimal count: the tree moves to more decimals
 * when the count needs them and its sum allows (see the top). */
void tree_add_stack_dec(struct tree *t, const struct tree_frame *frames, size_t n,
                        struct tree_dec count);
/* Fast path for readers that know that the first `keep` frames are those
 * of the previous stack added (keep <= its length): `tail` holds only the
 * ntail frames after them. */
tree_idx tree_add_stack_tail(struct tree *t, size_t keep, const struct tree_frame *tail,
                             size_t ntail, uint64_t count);
void tree_add_stack_tail_dec(struct tree *t, size_t keep, const struct tree_frame *tail,
                             size_t ntail, struct tree_dec count);

/* One stack of a batch for tree_add_stacks: the first `keep` frames are
 * those of the stack before it (the previous stack added, for the first of
 * the batch), `tail` the names (tree_intern) of the ntail frames after
 * them. */
struct tree_stack {
	size_t keep;
	const strtab_id *tail;
	size_t ntail;
	struct tree_dec count;
};

/* Adds s[0..n) in order: the same tree as n calls of
 * tree_add_stack_tail_dec with those names, but nodes are looked up depth by depth across
 * the batch, so that the cache misses of different stacks overlap (the
 * child hash of a big shuffled profile misses twice a frame). The ids of
 * new nodes differ from one stack at a time (tree_finalize renumbers
 * them), so a caller that needs the leaves uses tree_add_stack*. */
void tree_add_stacks(struct tree *t, const struct tree_stack *s, size_t n);
/* tree_add_stacks for stacks known to be new where their tails start:
 * no stack added before (nor one of s before it) holds the first `keep`
 * frames then tail[0] (as stacks sorted by their names, or their names'
 * ids, are, each keeping what it shares with the one before, into a tree
 * that held nothing before them). Every tail frame is a new node: nothing
 * is looked up, nor put in the child hash until a later lookup needs it.
 * Stacks in name order (tree_finalize's, by bytes: a name before the
 * longer ones it starts, but for one with no samples of its own before a
 * byte below ';') leave the nodes in preorder, which tree_finalize then
 * neither sorts nor moves; any other order is seen (each new node's older
 * sibling is compared with it) and sorted there. Not for flame charts
 * (then as tree_add_stacks). With `by` (may be NULL), that comparison is
 * of the names' ranks, their bytes read only where a name starts the
 * next one. */
struct tree_name_order {
	const uint32_t *rank;   /* rank[id]: the name's place among names[0..n) by bytes */
	const uint8_t *pfx;     /* pfx[id] != 0: the name starts the one ranked next
	                           (the ranks alone cannot tell treesort_cmp_names' order) */
	size_t n;
};
void tree_add_stacks_new(struct tree *t, const struct tree_stack *s, size_t n, const struct tree_name_order *by);
/* True when tree_add_stacks gains over one stack at a time: the child hash
 * is in use (the stacks came out of order) and t is no flame chart.
 * Otherwise it adds them one by one, and a reader may as well. */
static inline bool tree_batches(const struct tree *t)
{
	return t->b.hashed && !t->chart;
}

/* Parses s[0..len): digits with an optional fraction and exponent
 * ("12", "0.25", "1.5e3", "2E-4"; no sign, at least one digit before any
 * point). False when s is not of that form. Values beyond 64 bits
 * saturate, fraction digits beyond TREE_MAX_DECIMALS are rounded half up;
 * trailing fraction zeros are dropped ("1.50" has one decimal). */
bool tree_dec_parse(const char *s, size_t len, struct tree_dec *out);
/* v (finite, >= 0) rounded to 9 decimals: weights computed in floating
 * point (differences of times) keep their meaningful digits, not the
 * binary noise below them. */
struct tree_dec tree_dec_from_double(double v);
/* count (in units of 10^-from) in t's units: multiplied (saturating, which
 * sets t->saturated) or rounded (counted in t->rounded). */
uint64_t tree_units_from(struct tree *t, uint64_t count, unsigned from);
/* The name's id in t (interned now if new), for tree_add_stack_tail_ids:
 * readers whose frames recur (pprof locations) intern each name once. */
strtab_id tree_intern(struct tree *t, const char *s, size_t len);
/* tree_add_stack_tail with names given by their ids in t (tree_intern);
 * switches t to its child hash (no sorted-input fast path). */
tree_idx tree_add_stack_tail_ids(struct tree *t, size_t keep, const strtab_id *tail,
                                 size_t ntail, uint64_t count);

/* Makes room for `extra` more nodes (the array grows as tree_add_stack*
 * would grow it), so that adding that many moves no node: t->nodes stays
 * where it is until then. */
void tree_reserve(struct tree *t, size_t extra);
/* tree_reserve, then (the room of 8 MiB or more) a second thread writes
 * the new room's pages, from its far end, while nodes are added, so that
 * the faults of its fresh pages are shared with an idle core (see
 * prefault.h): for a reader on two threads whose other one has nothing
 * left to do. Until tree_prefault_end (or anything that may move the
 * array: tree_reserve, growth past the room, finalize, free, which end
 * it first). */
void tree_reserve_prefault(struct tree *t, size_t extra);
/* Ends tree_reserve_prefault's helper, if any. */
void tree_prefault_end(struct tree *t);
/* tree_reserve to exactly t->n + extra nodes (capped at TREE_MAX_NODES),
 * for a reader that knows its input's size: false, and nothing changed,
 * when the memory is refused. A big array's untouched pages cost nothing,
 * while each doubling moves the array (realloc: mremap), and on some
 * machines every page moved costs a fault again on its next use. */
bool tree_try_reserve(struct tree *t, size_t extra);

/* Says that `bytes` of memory were in use beside t while it was built and
 * are given back before tree_finalize (a reader's whole input): finalize
 * may then use that much more to be faster without raising the peak. */
void tree_set_spare(struct tree *t, size_t bytes);

/* Adds every stack of src (not finalized) to dst (not finalized), as if
 * they had been added to dst directly after dst's own: counts add up and
 * dst's new nodes come after its existing ones (first-appearance order is
 * kept). src is left unchanged. The stack added last to dst is then src's
 * last (tree_add_stack_tail's `keep` refers to it). */
void tree_merge(struct tree *dst, const struct tree *src);
/* tree_merge that also gives the ids src's nodes have in dst: (*map)[src
 * id] (malloc'ed, tree_size(src) long). */
void tree_merge_map(struct tree *dst, const struct tree *src, tree_idx **map);
/* tree_merge, then tree_free(src); src's memory is released while merging,
 * so that the peak stays near dst's final size. */
void tree_merge_free(struct tree *dst, struct tree *src);
/* tree_merge_free that also gives the ids src's nodes have in dst:
 * (*map)[src id] (malloc'ed, src's size before the merge long). */
void tree_merge_free_map(struct tree *dst, struct tree *src, tree_idx **map);

/* A part of a profile packed for tree_join: a finalized tree's nodes in
 * preorder, about 5 bytes a node where the tree has 40, so that the parts
 * wait for the join in an eighth of the memory, and the pages the join
 * writes are the result's only (where a fresh page costs a fault of 2 to
 * 20 us, packing halved the faults of loading a shuffled 1 GiB file).
 * The records the join walks ("upper": the nodes whose parent is a path
 * of the join's shared tree, and all nodes down to a depth) carry their
 * totals, sizes and the length of their subtree's records; the others
 * only what the join cannot work out. */
struct tree_pack {
	unsigned char *b;           /* the records (see treejoin.c) */
	size_t len;
	size_t n;                   /* nodes, the root's included */
	uint32_t upper;             /* every node down to this depth is upper */
	bool shaped;                /* and those under a shared path */
	uint32_t maxdepth;          /* the deepest node's depth */
	uint64_t self, total;       /* the root's */
	uint64_t stacks;
};

/* The shared tree of a join, for tree_pack: its paths by the names of
 * the table the parts' names go to. */
struct tree_shape {
	uint64_t *keys;             /* (parent's shared node << 32 | name) + 1,
	                               0: none */
	uint32_t *vals;             /* the shared node */
	size_t mask;
	uint32_t maxdepth;          /* shared's deepest node */
};
/* The shape of `shared` (finalized, any order), its names interned in
 * names (they are the profile's: tree_intern, which may die as it does);
 * false, sh empty, when the shape's own memory was refused. */
bool tree_shape_init(struct tree_shape *sh, struct tree *names, const struct tree *shared);
void tree_shape_free(struct tree_shape *sh);

/* Packs t (finalized in name or weight order, its names moved into the
 * join's table: tree_join_names or tree_unborrow_names) into pk, the
 * nodes down to depth `upper` and, given a shape, those whose parent is a
 * path of it, in full: for tree_join with that shape's shared tree, or
 * one whose nodes are all above `upper`. False, pk empty, when t cannot
 * join (fractional or saturated counts, a chart, names not moved) or
 * memory runs out (no allocation here dies). t is left as it was. */
bool tree_pack(struct tree_pack *pk, const struct tree *t, const struct tree_shape *shape, uint32_t upper);
/* Frees pk's memory and empties it. */
void tree_pack_free(struct tree_pack *pk);
/* Calls fn with the depth and name of each node of pk down to depth
 * limit (at most pk->upper), in preorder, the root's excepted. */
void tree_pack_walk(const struct tree_pack *pk, uint32_t limit,
                    void (*fn)(void *arg, uint32_t depth, strtab_id name), void *arg);

/* Joins parts[0..np) into dst (tree_init'ed, nothing added), each part
 * packed (tree_pack) from a tree finalized in `order` (name or weight),
 * with the shape of `shared` or upper deeper than its deepest node. The
 * nodes whose paths are paths of `shared` (a finalized tree, any order;
 * NULL: the root only) may be in several parts and are merged by path;
 * every other node must have its whole subtree in one part (a node of a
 * part that is not shared, whose parent is, is in no other part). dst
 * becomes the finalized tree of all their stacks, as one tree_finalize
 * would make it, and the parts are freed (each as its last block is
 * written; written on two threads when tree_set_threads gave two or more
 * and they are many). False, nothing done and the parts as they were,
 * when they cannot join: input order, sums beyond 64 bits, more than
 * TREE_MAX_NODES nodes, a part packed too shallow, parts that are not
 * disjoint below `shared`, or memory running out (no allocation here
 * dies). */
bool tree_join(struct tree *dst, struct tree_pack *parts, size_t np, enum tree_order order,
               const struct tree *shared);
/* For tree_join, before it: interns the names of part t (finalized) in
 * dst's table, points t's nodes at them and frees t's own table (left
 * empty: t is then for tree_join with dst and tree_free only). Parts of a
 * profile share most names: their tables together held 6 to 8 times the
 * joined one's. Not for two threads on one dst at once. */
void tree_join_names(struct tree *dst, struct tree *t);
/* Instead of tree_join_names, for a part built with names interned in dst
 * up front: t (tree_init'ed, nothing added) reads dst's name table as its
 * own, ids and all, and interns nothing (tree_intern on it dies), so that
 * threads can build parts side by side while dst's table stays unchanged.
 * tree_unborrow_names, once t is finalized, leaves t's table empty: its
 * ids are dst's, as tree_join takes them. tree_free leaves a borrowed
 * table alone. */
void tree_borrow_names(struct tree *t, const struct tree *dst);
void tree_unborrow_names(struct tree *t);

/* Threads tree_finalize may use (1, the default, to 16): a big tree built
 * from sorted input is numbered and summed in parts, one a thread. */
void tree_set_threads(int n);

/* Sorts siblings, renumbers in preorder, computes totals, offsets and ends,
 * and frees the building state. A chart tree is always in input (time)
 * order, whatever order says. */
void tree_finalize(struct tree *t, enum tree_order order);
/* tree_finalize that also gives each node's new id: (*map)[id before]
 * (malloc'ed, tree_size long), or NULL when no id changed. */
void tree_finalize_map(struct tree *t, enum tree_order order, tree_idx **map);

static inline size_t tree_size(const struct tree *t) { return t->n; }
static inline const struct tree_node *tree_node(const struct tree *t, tree_idx i) { return &t->nodes[i]; }
static inline tree_idx tree_parent(const struct tree *t, tree_idx i) { return t->nodes[i].parent; }
static inline tree_idx tree_end(const struct tree *t, tree_idx i) { return t->nodes[i].end; }
static inline uint32_t tree_depth(const struct tree *t, tree_idx i) { return t->nodes[i].depth; }
static inline const char *tree_name(const struct tree *t, tree_idx i) { return strtab_str(&t->names, t->nodes[i].name); }
static inline uint32_t tree_name_len(const struct tree *t, tree_idx i) { return strtab_len(&t->names, t->nodes[i].name); }

static inline double tree_count_d(const struct tree *t, tree_count c) { return t->frac ? (double)c.u / (double)t->unit : (double)c.u; }
static inline double tree_total_d(const struct tree *t, tree_idx i) { return tree_count_d(t, t->nodes[i].total); }
static inline double tree_self_d(const struct tree *t, tree_idx i) { return tree_count_d(t, t->nodes[i].self); }
static inline double tree_off_d(const struct tree *t, tree_idx i) { return tree_count_d(t, t->nodes[i].off); }

/* First child of i, or TREE_NONE. Finalized trees only. */
static inline tree_idx tree_first_child(const struct tree *t, tree_idx i)
{
	return i + 1 < t->nodes[i].end ? i + 1 : TREE_NONE;
}
/* Next sibling of i, or TREE_NONE. Finalized trees only. */
static inline tree_idx tree_next_sibling(const struct tree *t, tree_idx i)
{
	tree_idx p = t->nodes[i].parent;
	if (p == TREE_NONE)
		return TREE_NONE;
	return t->nodes[i].end < t->nodes[p].end ? t->nodes[i].end : TREE_NONE;
}
/* True when a is i or one of its ancestors. O(1). */
static inline bool tree_contains(const struct tree *t, tree_idx a, tree_idx i)
{
	return a <= i && i < t->nodes[a].end;
}

/* Formats a count exactly: an integer, or a decimal with the tree's
 * decimals less trailing zeros. Returns the snprintf result. */
int tree_format_count(const struct tree *t, tree_count c, char *buf, size_t size);

/* Writes one folded line per node with a non-zero self count,
 * "frame;frame;...;frame COUNT\n", lines in byte-wise order of the stack
 * text before the count (the order inferno and stackcollapse-perf.pl use). Returns 0, or -1 on a write
 * error (errno set). Finalized trees only. */
int tree_write_folded(const struct tree *t, FILE *out);

/* Memory held by the tree, names included (for reports). */
size_t tree_bytes(const struct tree *t);

#endif
