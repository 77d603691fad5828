/* tree_join: finalized trees of disjoint parts of a profile, packed
 * (tree_pack), made one finalized tree (see tree.h). The nodes whose paths
 * are those of the `shared` tree (the root at least) may be in several
 * parts: they are merged here by path, their counts summed, into the top
 * of the result. Every other node has its whole subtree in one part: the
 * subtrees below the merged top are unpacked as they are, in blocks (a
 * finalized subtree is a run of the preorder). Only the top and the order
 * of the blocks under it are worked out here. */
#include "config.h"
#include "treeint.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

/* A merged node: a path of `shared` found in one part or more. */
struct top {
	uint32_t parent;            /* a struct top; the root's is itself */
	strtab_id name;             /* an id of dst */
	uint32_t depth;
	uint64_t self, total, off;
	size_t size;                /* nodes in its subtree */
	tree_idx at;                /* its index in dst */
};

/* A block: a node of a part below the top (not a path of `shared`) whose
 * parent is merged, with its subtree, `size` nodes whose records start at
 * `pos` in the part's pack. */
struct kid {
	uint32_t part;
	uint32_t top;               /* its parent's struct top */
	size_t pos;
	tree_idx size;
	strtab_id name;             /* an id of dst */
	uint64_t total;
	uint64_t off;               /* its offset in dst */
	tree_idx at;                /* its index in dst */
	bool self;                  /* it has samples of its own */
};

/* A top's child, a top or a kid, with what the sort of siblings reads. */
struct item {
	strtab_id name;
	uint32_t ref;               /* a struct top or a struct kid */
	uint32_t flags;             /* ITEM_TOP, ITEM_SELF */
	uint32_t pad;
};
#define ITEM_TOP 1u
#define ITEM_SELF 2u            /* it has samples of its own */

struct join {
	struct tree *dst;
	struct tree_pack *parts;
	enum tree_order order;
	struct top *tops;
	struct kid *kids;
};

/* qsort has no context argument in C11: the join being sorted. */
static const struct join *sorting;

static uint64_t item_total(const struct item *it)
{
	if (it->flags & ITEM_TOP)
		return sorting->tops[it->ref].total;
	return sorting->kids[it->ref].total;
}

/* Siblings in the order one tree_finalize gives them (treesort.c). */
static int cmp_items(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	if (sorting->order == TREE_ORDER_WEIGHT) {
		uint64_t ta = item_total(x), tb = item_total(y);
		if (ta != tb)
			return ta > tb ? -1 : 1;
	}
	const struct strtab *st = &sorting->dst->names;
	return treesort_cmp_names(strtab_str(st, x->name), strtab_len(st, x->name), x->flags & ITEM_SELF,
	                          strtab_str(st, y->name), strtab_len(st, y->name), y->flags & ITEM_SELF);
}

/* Sorts the n siblings at v: by insertion while few (most are). */
static void sort_items(struct item *v, size_t n)
{
	if (n > 16) {
		qsort(v, n, sizeof *v, cmp_items);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		struct item x = v[i];
		size_t k = i;
		for (; k > 0 && cmp_items(&v[k - 1], &x) > 0; k--)
			v[k] = v[k - 1];
		v[k] = x;
	}
}

void tree_join_names(struct tree *dst, struct tree *t)
{
	const struct strtab *st = &t->names;
	size_t n = strtab_count(st);
	if (n == 0)
		return;     /* moved already */
	strtab_id *remap = xmalloc(n * sizeof *remap);
	for (size_t k = 0; k < n; k++)
		remap[k] = strtab_intern(&dst->names, strtab_str(st, (strtab_id)k), strtab_len(st, (strtab_id)k));
	for (size_t i = 0; i < t->n; i++)
		t->nodes[i].name = remap[t->nodes[i].name];
	free(remap);
	strtab_free(&t->names);
}

/* An open-addressing map from (a, b) pairs of 32-bit numbers to values. */
struct pairmap {
	uint64_t *keys;             /* (a << 32 | b) + 1; 0: empty */
	uint32_t *vals;
	size_t mask;
};

static uint64_t pair_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

/* For up to n entries; false when memory ran out. */
static bool pairmap_init(struct pairmap *m, size_t n)
{
	size_t sz = 16;
	while (sz < 2 * n)
		sz *= 2;
	m->keys = calloc(sz, sizeof *m->keys);
	m->vals = malloc(sz * sizeof *m->vals);
	m->mask = sz - 1;
	return m->keys && m->vals;
}

static void pairmap_free(struct pairmap *m)
{
	free(m->keys);
	free(m->vals);
}

/* The slot of (a, b): its value there, or an empty slot for it. */
static size_t pairmap_slot(const struct pairmap *m, uint32_t a, uint32_t b)
{
	uint64_t key = ((uint64_t)a << 32 | b) + 1;
	size_t s = (size_t)pair_hash(key) & m->mask;
	while (m->keys[s] && m->keys[s] != key)
		s = (s + 1) & m->mask;
	return s;
}

/* The shared node under shared node p named `name` (an id of dst):
 * UINT32_MAX when none. */
static uint32_t shared_child(const struct pairmap *sm, uint32_t p, strtab_id name)
{
	size_t s = pairmap_slot(sm, p, name);
	return sm->keys[s] ? sm->vals[s] : UINT32_MAX;
}

/* The shared paths by (parent, names' id), into sm, and shared's depth;
 * names: found (a name not there is in no part), or interned. False when
 * memory ran out. */
static bool shape_build(struct pairmap *sm, uint32_t *maxdepth, const struct tree *shared,
                        struct tree *names, bool intern)
{
	size_t nshared = shared ? shared->n : 1;
	*maxdepth = 0;
	for (size_t i = 0; shared && i < nshared; i++)
		if (shared->nodes[i].depth > *maxdepth)
			*maxdepth = shared->nodes[i].depth;
	if (!pairmap_init(sm, nshared))
		return false;
	for (size_t i = 1; i < nshared; i++) {
		const struct tree_node *sn = &shared->nodes[i];
		const char *nm = tree_name(shared, (tree_idx)i);
		size_t len = tree_name_len(shared, (tree_idx)i);
		int64_t id = intern ? (int64_t)tree_intern(names, nm, len) : strtab_find(&names->names, nm, len);
		if (id < 0)
			continue;
		size_t s = pairmap_slot(sm, sn->parent, (uint32_t)id);
		sm->keys[s] = ((uint64_t)sn->parent << 32 | (uint32_t)id) + 1;
		sm->vals[s] = (uint32_t)i;
	}
	return true;
}

bool tree_shape_init(struct tree_shape *sh, struct tree *names, const struct tree *shared)
{
	struct pairmap sm = { 0 };
	memset(sh, 0, sizeof *sh);
	if (!shape_build(&sm, &sh->maxdepth, shared, names, true)) {
		pairmap_free(&sm);
		return false;
	}
	sh->keys = sm.keys;
	sh->vals = sm.vals;
	sh->mask = sm.mask;
	return true;
}

void tree_shape_free(struct tree_shape *sh)
{
	free(sh->keys);
	free(sh->vals);
	memset(sh, 0, sizeof *sh);
}

/* ---- packs ----
 * A pack's records, one a node in preorder, the root's excepted: a
 * varint h, then varints name and self; h is depth * 2 + 1 for an upper
 * node (see struct tree_pack), which then has varints total and size
 * (its subtree's nodes) and 8 bytes (little-endian) skip, the length of
 * its subtree's records after its own; a deeper node's h is (the depth of
 * the record before + 1 - its depth) * 2. A deep node's total, end and
 * offset are worked out when its subtree is unpacked (pack_unpack). */

#define PACK_RECORD_MAX (5 * 10 + 8)

static unsigned char *put_varint(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

/* Reads a varint the packer wrote (no bounds: the records are ours). */
static inline uint64_t get_varint(const unsigned char **pp)
{
	const unsigned char *p = *pp;
	uint64_t v = *p & 0x7f;
	for (unsigned sh = 7; *p++ & 0x80; sh += 7)
		v |= (uint64_t)(*p & 0x7f) << sh;
	*pp = p;
	return v;
}

void tree_pack_free(struct tree_pack *pk)
{
	free(pk->b);
	memset(pk, 0, sizeof *pk);
}

bool tree_pack(struct tree_pack *pk, const struct tree *t, const struct tree_shape *shape, uint32_t upper)
{
	memset(pk, 0, sizeof *pk);
	if (!t->finalized || t->frac || t->saturated || t->chart || strtab_count(&t->names) || t->n == 0)
		return false;
	uint32_t maxd = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->nodes[i].depth > maxd)
			maxd = t->nodes[i].depth;
	/* the open upper nodes (by depth: no deeper than maxd): where their
	 * skip goes, their end; the shared node at each depth of the path
	 * (shape's maxdepth at most), UINT32_MAX where it left the shape */
	struct pend {
		size_t at;
		tree_idx end;
	} *pend = malloc(((size_t)maxd + 1) * sizeof *pend);
	uint32_t smax = shape ? shape->maxdepth : 0;
	uint32_t *sid = malloc(((size_t)smax + 1) * sizeof *sid);
	const struct pairmap sm = shape ? (struct pairmap){ shape->keys, shape->vals, shape->mask }
	                                : (struct pairmap){ NULL, NULL, 0 };
	size_t cap = t->n * 6 + PACK_RECORD_MAX;
	unsigned char *b = malloc(cap);
	if (!pend || !sid || !b) {
		free(pend);
		free(sid);
		free(b);
		return false;
	}
	sid[0] = 0;
	size_t len = 0, np = 0;
	uint32_t prev = 0;
	for (tree_idx i = 1; i <= t->n; i++) {
		/* the upper nodes whose subtree ends here: their skip */
		while (np && (i == t->n || pend[np - 1].end <= i)) {
			np--;
			uint64_t skip = len - pend[np].at - 8;
			for (int k = 0; k < 8; k++)
				b[pend[np].at + (size_t)k] = (unsigned char)(skip >> (8 * k));
		}
		if (i == t->n)
			break;
		if (cap - len < PACK_RECORD_MAX) {
			size_t ncap = cap + cap / 2;
			unsigned char *nb = realloc(b, ncap);
			if (!nb) {
				free(pend);
				free(sid);
				free(b);
				return false;
			}
			b = nb;
			cap = ncap;
		}
		const struct tree_node *x = &t->nodes[i];
		uint32_t d = x->depth;
		uint32_t psid = shape && d - 1 <= smax ? sid[d - 1] : UINT32_MAX;
		if (d <= smax)
			sid[d] = psid == UINT32_MAX ? UINT32_MAX : shared_child(&sm, psid, x->name);
		bool up = d <= upper || psid != UINT32_MAX;
		unsigned char *p = b + len;
		p = put_varint(p, up ? (uint64_t)x->depth * 2 + 1 : (uint64_t)(prev + 1 - x->depth) * 2);
		p = put_varint(p, x->name);
		p = put_varint(p, x->self.u);
		if (up) {
			p = put_varint(p, x->total.u);
			p = put_varint(p, x->end - i);
			pend[np++] = (struct pend){ (size_t)(p - b), x->end };
			p += 8;
		}
		len = (size_t)(p - b);
		prev = x->depth;
	}
	free(pend);
	free(sid);
	/* (the room not used goes: several parts' slack adds up) */
	unsigned char *fit = realloc(b, len ? len : 1);
	pk->b = fit ? fit : b;
	pk->len = len;
	pk->n = t->n;
	pk->upper = upper;
	pk->shaped = shape != NULL;
	pk->maxdepth = maxd;
	pk->self = t->nodes[0].self.u;
	pk->total = t->nodes[0].total.u;
	pk->stacks = t->stacks;
	return true;
}

/* An upper record at *pp (the walk never lands on another). */
struct urec {
	uint32_t depth;
	strtab_id name;
	uint64_t self, total, size, skip;
};

static void read_upper(const unsigned char **pp, struct urec *r)
{
	uint64_t h = get_varint(pp);
	r->depth = (uint32_t)(h >> 1);
	r->name = (strtab_id)get_varint(pp);
	r->self = get_varint(pp);
	r->total = get_varint(pp);
	r->size = get_varint(pp);
	const unsigned char *p = *pp;
	r->skip = 0;
	for (int k = 0; k < 8; k++)
		r->skip |= (uint64_t)p[k] << (8 * k);
	*pp = p + 8;
}

void tree_pack_walk(const struct tree_pack *pk, uint32_t limit,
                    void (*fn)(void *arg, uint32_t depth, strtab_id name), void *arg)
{
	if (limit > pk->upper)
		limit = pk->upper;
	const unsigned char *p = pk->b, *end = pk->b + pk->len;
	while (p < end) {
		struct urec r;
		read_upper(&p, &r);
		if (r.depth <= limit)
			fn(arg, r.depth, r.name);
		if (r.depth >= limit)
			p += r.skip;
	}
}

/* An open node while a block is unpacked: its total so far (its own
 * samples and its closed children's), and its next child's offset. */
struct open {
	tree_idx at;
	uint32_t depth;
	uint64_t total, next;
};

/* Closes the open node on top of stk (*sp of them): its end is `at`, its
 * total is known and goes to its parent's. */
static inline void close_open(struct open *stk, size_t *sp, struct tree_node *nd, tree_idx at)
{
	const struct open *o = &stk[--*sp];
	nd[o->at].end = at;
	nd[o->at].total.u = o->total;
	if (*sp) {
		stk[*sp - 1].total += o->total;
		stk[*sp - 1].next += o->total;
	}
}

/* Unpacks kid kd of pk into nd (its nodes from nd[kd->at]), its parent
 * at `parent`; stk: room for pk->maxdepth + 1 entries. */
static void pack_unpack(const struct tree_pack *pk, const struct kid *kd, tree_idx parent,
                        struct tree_node *nd, struct open *stk)
{
	const unsigned char *p = pk->b + kd->pos;
	size_t sp = 0;
	tree_idx at = kd->at;
	uint32_t prev = 0;
	for (tree_idx k = 0; k < kd->size; k++) {
		uint64_t h = get_varint(&p);
		strtab_id name = (strtab_id)get_varint(&p);
		uint64_t self = get_varint(&p);
		uint32_t depth;
		if (h & 1) {
			depth = (uint32_t)(h >> 1);
			get_varint(&p);
			get_varint(&p);
			p += 8;
		} else {
			depth = prev + 1 - (uint32_t)(h >> 1);
		}
		while (sp && stk[sp - 1].depth >= depth)
			close_open(stk, &sp, nd, at);
		uint64_t off = sp ? stk[sp - 1].next : kd->off;
		nd[at] = (struct tree_node){ sp ? stk[sp - 1].at : parent, name, 0, depth, { self }, { 0 }, { off } };
		stk[sp++] = (struct open){ at, depth, self, off };
		at++;
		prev = depth;
	}
	while (sp)
		close_open(stk, &sp, nd, at);
}

/* Walks the parts' upper records, each part in preorder: a node whose
 * parent is a top is a top when its path is shared, else a block (its
 * subtree skipped). With j->tops NULL, counts them; else fills tops
 * (merged through tm), kids and tm. path_top and path_sid: room for the
 * shared tree's depth + 2. */
static void walk_parts(struct join *j, size_t np, const struct tree *shared, uint32_t maxdepth,
                       const struct pairmap *sm, struct pairmap *tm, uint32_t *path_top, uint32_t *path_sid,
                       size_t *ntops, size_t *nkids)
{
	*ntops = 1;
	*nkids = 0;
	path_top[0] = path_sid[0] = 0;
	for (size_t p = 0; p < np; p++) {
		const struct tree_pack *pk = &j->parts[p];
		if (j->tops) {
			j->tops[0].self += pk->self;      /* no overflow: at most the sum */
			j->tops[0].total += pk->total;
		}
		const unsigned char *q = pk->b, *end = pk->b + pk->len;
		while (q < end) {
			size_t pos = (size_t)(q - pk->b);
			struct urec x;
			read_upper(&q, &x);
			uint32_t d = x.depth;
			uint32_t sid = shared && d <= maxdepth ? shared_child(sm, path_sid[d - 1], x.name) : UINT32_MAX;
			if (sid == UINT32_MAX) {
				if (j->kids)
					j->kids[*nkids] = (struct kid){ (uint32_t)p, path_top[d - 1], pos, (tree_idx)x.size,
					                                x.name, x.total, 0, 0, x.self != 0 };
				++*nkids;
				q += x.skip;
				continue;
			}
			path_sid[d] = sid;
			if (!j->tops) {
				++*ntops;       /* an upper bound: merged ones count once a part */
				continue;
			}
			size_t s = pairmap_slot(tm, path_top[d - 1], x.name);
			if (!tm->keys[s]) {
				tm->keys[s] = ((uint64_t)path_top[d - 1] << 32 | x.name) + 1;
				tm->vals[s] = (uint32_t)*ntops;
				j->tops[(*ntops)++] = (struct top){ path_top[d - 1], x.name, d, 0, 0, 0, 1, 0 };
			}
			struct top *tp = &j->tops[tm->vals[s]];
			tp->self += x.self;
			tp->total += x.total;
			path_top[d] = tm->vals[s];
		}
	}
}

/* The blocks of the parts one thread unpacks (owner[part] == id) into
 * nd, in dst's order; each part's pack freed after its last block, by the
 * thread that unpacks them all. stk: room for the deepest part's depth +
 * 1 entries. */
struct copy {
	const struct join *j;
	struct tree_node *nd;
	const uint32_t *byat;
	size_t nkids;
	const unsigned char *owner;
	unsigned char id;
	uint32_t *kleft;            /* a part's blocks not unpacked yet */
	struct open *stk;
	pthread_t th;
};

static void *copy_run(void *arg)
{
	const struct copy *c = arg;
	const struct join *j = c->j;
	for (size_t b = 0; b < c->nkids; b++) {
		const struct kid *kd = &j->kids[c->byat[b]];
		size_t p = kd->part;
		if (c->owner[p] != c->id)
			continue;
		pack_unpack(&j->parts[p], kd, j->tops[kd->top].at, c->nd, c->stk);
		if (--c->kleft[p] == 0)
			tree_pack_free(&j->parts[p]);
	}
	return NULL;
}

/* qsort has no context: the parts' sizes, for cmp_psize (biggest
 * first, then by index). */
static const uint64_t *sizing;

static int cmp_psize(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (sizing[x] != sizing[y])
		return sizing[x] > sizing[y] ? -1 : 1;
	return (x > y) - (x < y);
}

/* Below this many nodes the blocks are copied on one thread. */
#ifndef JOIN_TWO_MIN
#define JOIN_TWO_MIN ((size_t)1 << 20)
#endif

bool tree_join(struct tree *dst, struct tree_pack *parts, size_t np, enum tree_order order,
               const struct tree *shared)
{
	if (dst->n != 1 || dst->stacks || order == TREE_ORDER_INPUT || np > UINT32_MAX)
		return false;
	if (shared && (!shared->finalized || shared->n > UINT32_MAX / 2))
		return false;
	size_t nshared = shared ? shared->n : 1;
	uint32_t maxdepth = 0;
	for (size_t i = 0; shared && i < nshared; i++)
		if (shared->nodes[i].depth > maxdepth)
			maxdepth = shared->nodes[i].depth;
	uint64_t sum = 0, stacks = 0;
	uint32_t deepest = 0;
	for (size_t p = 0; p < np; p++) {
		const struct tree_pack *pk = &parts[p];
		if (!pk->shaped && pk->upper <= maxdepth && pk->upper < pk->maxdepth)
			return false;   /* its blocks' roots may have no upper record */
		if (__builtin_add_overflow(sum, pk->total, &sum))
			return false;
		stacks += pk->stacks;
		if (pk->maxdepth > deepest)
			deepest = pk->maxdepth;
	}
	/* Every allocation comes before the first part is touched: when one
	 * fails, nothing is done. */
	struct join j = { dst, parts, order, NULL, NULL };
	uint32_t *path_top = malloc(((size_t)maxdepth + 2) * sizeof *path_top);
	uint32_t *path_sid = malloc(((size_t)maxdepth + 2) * sizeof *path_sid);
	uint32_t *cnt = calloc((size_t)maxdepth + 2, sizeof *cnt);
	struct pairmap sm = { 0 }, tm = { 0 };
	size_t ntops, nkids, n = 0, nitems = 0;
	struct item *items = NULL;
	uint32_t *first = NULL, *bydepth = NULL;
	uint32_t *byat = NULL, *kleft = NULL;
	unsigned char *owner = NULL;
	struct open *ostk[2] = { NULL, NULL };
	uint64_t *psize = NULL;
	uint32_t *porder = NULL;
	struct walkpos {
		size_t top, m;
	} *stk = NULL;
	struct tree_node *nd = NULL;
	bool ok = path_top && path_sid && cnt && shape_build(&sm, &maxdepth, shared, dst, false);
	if (ok) {
		walk_parts(&j, np, shared, maxdepth, &sm, NULL, path_top, path_sid, &ntops, &nkids);
		j.tops = malloc(ntops * sizeof *j.tops);
		j.kids = malloc((nkids ? nkids : 1) * sizeof *j.kids);
		ok = j.tops && j.kids && pairmap_init(&tm, ntops + nkids);
	}
	if (!ok)
		goto out;
	j.tops[0] = (struct top){ 0, 0, 0, 0, 0, 0, 1, 0 };
	walk_parts(&j, np, shared, maxdepth, &sm, &tm, path_top, path_sid, &ntops, &nkids);
	/* A block of the name of a top or of another block under the same
	 * top: the parts were not disjoint. */
	for (size_t k = 0; ok && k < nkids; k++) {
		size_t s = pairmap_slot(&tm, j.kids[k].top, j.kids[k].name);
		ok = !tm.keys[s];
		tm.keys[s] = ((uint64_t)j.kids[k].top << 32 | j.kids[k].name) + 1;
	}
	n = ntops;
	for (size_t k = 0; ok && k < nkids; k++) {
		n += j.kids[k].size;
		ok = n <= TREE_MAX_NODES;
	}
	nitems = ntops - 1 + nkids;
	if (ok) {
		items = malloc((nitems ? nitems : 1) * sizeof *items);
		first = calloc(ntops + 1, sizeof *first);
		bydepth = malloc(ntops * sizeof *bydepth);
		byat = malloc((nkids ? nkids : 1) * sizeof *byat);
		kleft = calloc(np ? np : 1, sizeof *kleft);
		owner = calloc(np ? np : 1, 1);
		ostk[0] = malloc(((size_t)deepest + 2) * sizeof *ostk[0]);
		ostk[1] = malloc(((size_t)deepest + 2) * sizeof *ostk[1]);
		psize = calloc(np ? np : 1, sizeof *psize);
		porder = malloc((np ? np : 1) * sizeof *porder);
		stk = malloc(((size_t)maxdepth + 2) * sizeof *stk);
		nd = malloc(n * sizeof *nd);
		ok = items && first && bydepth && byat && kleft && owner && ostk[0] && ostk[1] && psize && porder &&
		     stk && nd;
	}
	if (!ok)
		goto out;
	/* The order: each top's children, tops and blocks, sorted as one
	 * tree's siblings. */
	/* Each top's children together (a count, then each put in its
	 * place: bydepth is the cursor until it is filled below), then each
	 * top's sorted: one qsort of all by parent then name took 0.3 s on
	 * a real-shaped 1 GiB file's 970k, whose tops have 3 children on
	 * the average. */
	for (size_t k = 1; k < ntops; k++)
		first[j.tops[k].parent + 1]++;
	for (size_t k = 0; k < nkids; k++)
		first[j.kids[k].top + 1]++;
	for (size_t k = 0; k < ntops; k++) {
		first[k + 1] += first[k];
		bydepth[k] = first[k];
	}
	for (size_t k = 1; k < ntops; k++)
		items[bydepth[j.tops[k].parent]++] =
			(struct item){ j.tops[k].name, (uint32_t)k, ITEM_TOP | (j.tops[k].self ? ITEM_SELF : 0), 0 };
	for (size_t k = 0; k < nkids; k++) {
		const struct kid *kd = &j.kids[k];
		items[bydepth[kd->top]++] = (struct item){ kd->name, (uint32_t)k, kd->self ? ITEM_SELF : 0, 0 };
	}
	sorting = &j;
	for (size_t k = 0; k < ntops; k++)
		sort_items(&items[first[k]], first[k + 1] - first[k]);
	sorting = NULL;
	/* Sizes bottom up (the tops by depth, deepest first), then places
	 * and offsets top down: a top's children from its index + 1 and its
	 * offset (a node's own samples come after its children's). */
	for (size_t k = 0; k < ntops; k++)
		cnt[j.tops[k].depth + 1]++;
	for (uint32_t d = 1; d <= maxdepth + 1; d++)
		cnt[d] += cnt[d - 1];
	for (size_t k = 0; k < ntops; k++)
		bydepth[cnt[j.tops[k].depth]++] = (uint32_t)k;
	for (size_t k = 0; k < nkids; k++)
		j.tops[j.kids[k].top].size += j.kids[k].size;
	for (size_t k = ntops; k-- > 1;) {
		const struct top *tp = &j.tops[bydepth[k]];
		j.tops[tp->parent].size += tp->size;
	}
	for (size_t k = 0; k < ntops; k++) {
		const struct top *tp = &j.tops[bydepth[k]];
		tree_idx at = tp->at + 1;
		uint64_t off = tp->off;
		for (size_t m = first[bydepth[k]]; m < first[bydepth[k] + 1]; m++) {
			const struct item *it = &items[m];
			if (it->flags & ITEM_TOP) {
				struct top *c = &j.tops[it->ref];
				c->at = at;
				c->off = off;
				at += (tree_idx)c->size;
				off += c->total;
			} else {
				struct kid *c = &j.kids[it->ref];
				c->at = at;
				c->off = off;
				at += c->size;
				off += c->total;
			}
		}
	}
	/* The blocks in dst's order, by a walk down the tops' children
	 * (a top's stack entry: the top and its next child): unpacked in
	 * that order, the result is written front to back. */
	size_t nb = 0, sp = 0;
	stk[sp++] = (struct walkpos){ 0, first[0] };
	while (sp) {
		struct walkpos *w = &stk[sp - 1];
		if (w->m == first[w->top + 1]) {
			sp--;
			continue;
		}
		const struct item *it = &items[w->m++];
		if (it->flags & ITEM_TOP)
			stk[sp++] = (struct walkpos){ it->ref, first[it->ref] };
		else
			byat[nb++] = it->ref;
	}
	if (nb != nkids) {  /* (a block no top reaches: cannot be) */
		ok = false;
		goto out;
	}
	for (size_t k = 0; k < nkids; k++)
		kleft[j.kids[k].part]++;
	/* (what placing them took goes before the nodes are copied) */
	pairmap_free(&tm);
	memset(&tm, 0, sizeof tm);
	free(items);
	free(first);
	free(bydepth);
	items = NULL;
	first = bydepth = NULL;
	/* The nodes: the tops, then the blocks. */
	nd[0] = (struct tree_node){ TREE_NONE, 0, (tree_idx)n, 0, { j.tops[0].self }, { sum }, { 0 } };
	for (size_t k = 1; k < ntops; k++) {
		const struct top *tp = &j.tops[k];
		nd[tp->at] = (struct tree_node){ j.tops[tp->parent].at, tp->name, tp->at + (tree_idx)tp->size, tp->depth,
		                                 { tp->self }, { tp->total }, { tp->off } };
	}
	/* The parts split between two threads when there are, by their
	 * nodes: the biggest first, each to the one with fewer so far. */
	struct copy c[2] = { { .j = &j, .nd = nd, .byat = byat, .nkids = nkids, .owner = owner, .id = 0,
	                       .kleft = kleft, .stk = ostk[0] } };
	bool two = treepar_threads >= 2 && n - ntops >= JOIN_TWO_MIN && np > 1;
	if (two) {
		for (size_t k = 0; k < nkids; k++)
			psize[j.kids[k].part] += j.kids[k].size;
		for (size_t p = 0; p < np; p++)
			porder[p] = (uint32_t)p;
		sizing = psize;
		qsort(porder, np, sizeof *porder, cmp_psize);
		sizing = NULL;
		uint64_t load[2] = { 0, 0 };
		for (size_t i = 0; i < np; i++) {
			unsigned char w = load[1] < load[0];
			owner[porder[i]] = w;
			load[w] += psize[porder[i]];
		}
		c[1] = c[0];
		c[1].id = 1;
		c[1].stk = ostk[1];
		if (pthread_create(&c[1].th, NULL, copy_run, &c[1]) != 0) {
			memset(owner, 0, np);   /* all on this one */
			two = false;
		}
	}
	copy_run(&c[0]);
	if (two)
		pthread_join(c[1].th, NULL);
	for (size_t p = 0; p < np; p++)
		tree_pack_free(&parts[p]);     /* (those without blocks) */
	nd[0].name = dst->nodes[0].name;
	tree_prefault_end(dst);
	free(dst->nodes);
	dst->nodes = nd;
	nd = NULL;
	dst->n = dst->cap = n;
	/* dst is a finalized tree of all the parts' stacks */
	free(dst->b.slots);
	free(dst->b.path);
	free(dst->b.pathkeys);
	free(dst->b.bpath);
	free(dst->b.bat);
	memset(&dst->b, 0, sizeof dst->b);
	dst->stacks = stacks;
	dst->time.u = sum;
	dst->finalized = true;
out:
	free(path_top);
	free(path_sid);
	free(cnt);
	pairmap_free(&sm);
	pairmap_free(&tm);
	free(items);
	free(first);
	free(bydepth);
	free(byat);
	free(kleft);
	free(ostk[0]);
	free(ostk[1]);
	free(owner);
	free(psize);
	free(porder);
	free(stk);
	free(nd);
	free(j.tops);
	free(j.kids);
	return ok;
}
