/* tree_join: finalized trees of disjoint parts of a profile made one
 * finalized tree (see tree.h). The nodes whose paths are those of the
 * `shared` tree (the root at least) may be in several parts: they are
 * merged here by path, their counts summed, into the top of the result.
 * Every other node has its whole subtree in one part: the subtrees below
 * the merged top are copied as they are, in blocks (a finalized subtree is
 * a run of the preorder), their indices and offsets shifted. Only the top
 * and the order of the blocks under it are worked out here. */
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
 * parent is merged, with its subtree [node, end) there. */
struct kid {
	uint32_t part;
	uint32_t top;               /* its parent's struct top */
	tree_idx node;
	strtab_id name;             /* an id of dst */
	uint64_t off;               /* its offset in dst */
	tree_idx at;                /* its index in dst */
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
	struct tree *parts;
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
	const struct kid *k = &sorting->kids[it->ref];
	return sorting->parts[k->part].nodes[k->node].total.u;
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

/* Walks the parts, each in preorder: a node whose parent is a top is a top
 * when its path is shared, else a block (its subtree skipped). With
 * j->tops NULL, counts them; else fills tops (merged through tm), kids
 * and tm. path_top and path_sid: room for the shared tree's depth + 2. */
static void walk_parts(struct join *j, size_t np, const struct tree *shared, uint32_t maxdepth,
                       const struct pairmap *sm, struct pairmap *tm, uint32_t *path_top, uint32_t *path_sid,
                       size_t *ntops, size_t *nkids)
{
	*ntops = 1;
	*nkids = 0;
	path_top[0] = path_sid[0] = 0;
	for (size_t p = 0; p < np; p++) {
		const struct tree *t = &j->parts[p];
		if (j->tops) {
			j->tops[0].self += t->nodes[0].self.u;      /* no overflow: at most the sum */
			j->tops[0].total += t->nodes[0].total.u;
		}
		for (tree_idx i = 1; i < t->n;) {
			const struct tree_node *x = &t->nodes[i];
			uint32_t d = x->depth;
			uint32_t sid = shared && d <= maxdepth ? shared_child(sm, path_sid[d - 1], x->name) : UINT32_MAX;
			if (sid == UINT32_MAX) {
				if (j->kids)
					j->kids[*nkids] = (struct kid){ (uint32_t)p, path_top[d - 1], i, x->name, 0, 0 };
				++*nkids;
				i = x->end;
				continue;
			}
			path_sid[d] = sid;
			i++;
			if (!j->tops) {
				++*ntops;       /* an upper bound: merged ones count once a part */
				continue;
			}
			size_t s = pairmap_slot(tm, path_top[d - 1], x->name);
			if (!tm->keys[s]) {
				tm->keys[s] = ((uint64_t)path_top[d - 1] << 32 | x->name) + 1;
				tm->vals[s] = (uint32_t)*ntops;
				j->tops[(*ntops)++] = (struct top){ path_top[d - 1], x->name, d, 0, 0, 0, 1, 0 };
			}
			struct top *tp = &j->tops[tm->vals[s]];
			tp->self += x->self.u;
			tp->total += x->total.u;
			path_top[d] = tm->vals[s];
		}
	}
}

/* The blocks of the parts one thread copies (owner[part] == id) into nd,
 * in dst's order; each part's pages given back behind the first of its
 * blocks not copied yet, by the thread that copies them all, so that the
 * other's pace holds nothing back. */
struct copy {
	const struct join *j;
	struct tree_node *nd;
	const uint32_t *byat;
	size_t nkids;
	const unsigned char *owner;
	unsigned char id;
	unsigned char *kdone;
	uint32_t *kbeg, *knext;
	uintptr_t *released;
	pthread_t th;
};

static void *copy_run(void *arg)
{
	const struct copy *c = arg;
	const struct join *j = c->j;
	for (size_t b = 0; b < c->nkids; b++) {
		size_t k = c->byat[b];
		const struct kid *kd = &j->kids[k];
		size_t p = kd->part;
		if (c->owner[p] != c->id)
			continue;
		struct tree *t = &j->parts[p];
		const struct tree_node *sn = t->nodes;
		tree_idx d = kd->node, e = sn[d].end, shift = kd->at - d;
		uint64_t soff = sn[d].off.u;
		for (tree_idx i = d; i < e; i++) {
			struct tree_node *x = &c->nd[i + shift];
			x->parent = i == d ? j->tops[kd->top].at : sn[i].parent + shift;
			x->name = sn[i].name;
			x->end = sn[i].end + shift;
			x->depth = sn[i].depth;
			x->self = sn[i].self;
			x->total = sn[i].total;
			x->off.u = kd->off + (sn[i].off.u - soff);
		}
		/* the part's pages up to its first block not copied yet go,
		 * 64 KiB at a time (a MiB in each of 64 parts was 64 MiB
		 * held), and all of it at the end: free() keeps what the heap
		 * holds (parts of a few MiB are there) */
		c->kdone[k] = 1;
		while (c->knext[p] < c->kbeg[p + 1] && c->kdone[c->knext[p]])
			c->knext[p]++;
		bool last = c->knext[p] == c->kbeg[p + 1];
		treemerge_release(t, last ? t->n : j->kids[c->knext[p]].node, &c->released[p],
		                  last ? 0 : (uintptr_t)64 << 10);
		if (last)
			tree_free(t);
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

bool tree_join(struct tree *dst, struct tree *parts, size_t np, enum tree_order order,
               const struct tree *shared)
{
	if (dst->n != 1 || dst->stacks || order == TREE_ORDER_INPUT || np > UINT32_MAX)
		return false;
	if (shared && (!shared->finalized || shared->n > UINT32_MAX / 2))
		return false;
	uint64_t sum = 0, stacks = 0;
	for (size_t p = 0; p < np; p++) {
		struct tree *t = &parts[p];
		if (!t->finalized || t->frac || t->saturated || t->chart || strtab_count(&t->names))
			return false;
		if (__builtin_add_overflow(sum, t->nodes[0].total.u, &sum))
			return false;
		stacks += t->stacks;
	}
	size_t nshared = shared ? shared->n : 1;
	uint32_t maxdepth = 0;
	for (size_t i = 0; shared && i < nshared; i++)
		if (shared->nodes[i].depth > maxdepth)
			maxdepth = shared->nodes[i].depth;
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
	uintptr_t *released = NULL;
	uint32_t *byat = NULL, *kbeg = NULL, *knext = NULL;
	unsigned char *kdone = NULL, *owner = NULL;
	uint64_t *psize = NULL;
	uint32_t *porder = NULL;
	struct walkpos {
		size_t top, m;
	} *stk = NULL;
	struct tree_node *nd = NULL;
	bool ok = path_top && path_sid && cnt && pairmap_init(&sm, nshared);
	/* The shared paths by (parent, dst's name); a name not in dst is in
	 * no part. */
	for (size_t i = 1; ok && i < nshared; i++) {
		const struct tree_node *sn = &shared->nodes[i];
		int64_t id = strtab_find(&dst->names, tree_name(shared, (tree_idx)i), tree_name_len(shared, (tree_idx)i));
		if (id < 0)
			continue;
		size_t s = pairmap_slot(&sm, sn->parent, (uint32_t)id);
		sm.keys[s] = ((uint64_t)sn->parent << 32 | (uint32_t)id) + 1;
		sm.vals[s] = (uint32_t)i;
	}
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
		n += parts[j.kids[k].part].nodes[j.kids[k].node].end - j.kids[k].node;
		ok = n <= TREE_MAX_NODES;
	}
	nitems = ntops - 1 + nkids;
	if (ok) {
		items = malloc((nitems ? nitems : 1) * sizeof *items);
		first = calloc(ntops + 1, sizeof *first);
		bydepth = malloc(ntops * sizeof *bydepth);
		released = calloc(np ? np : 1, sizeof *released);
		byat = malloc((nkids ? nkids : 1) * sizeof *byat);
		kbeg = calloc(np + 1, sizeof *kbeg);
		knext = malloc((np ? np : 1) * sizeof *knext);
		kdone = calloc(nkids ? nkids : 1, 1);
		owner = calloc(np ? np : 1, 1);
		psize = calloc(np ? np : 1, sizeof *psize);
		porder = malloc((np ? np : 1) * sizeof *porder);
		stk = malloc(((size_t)maxdepth + 2) * sizeof *stk);
		nd = malloc(n * sizeof *nd);
		ok = items && first && bydepth && released && byat && kbeg && knext && kdone && owner && psize &&
		     porder && stk && nd;
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
		items[bydepth[kd->top]++] = (struct item){
			kd->name, (uint32_t)k, parts[kd->part].nodes[kd->node].self.u ? ITEM_SELF : 0, 0
		};
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
		j.tops[j.kids[k].top].size += parts[j.kids[k].part].nodes[j.kids[k].node].end - j.kids[k].node;
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
				const struct tree_node *x = &parts[c->part].nodes[c->node];
				c->at = at;
				c->off = off;
				at += x->end - c->node;
				off += x->total.u;
			}
		}
	}
	/* The blocks in dst's order, by a walk down the tops' children
	 * (a top's stack entry: the top and its next child). Copied in that
	 * order, the result is written front to back while each part is
	 * read front to back (in name order; in weight order nearly), and
	 * given back behind: copied part by part, a real-shaped profile's
	 * many small blocks soon touched every page of the result while the
	 * parts were still there, which put the peak at 1.6 trees. */
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
	/* each part's blocks: kids[kbeg[p] .. kbeg[p + 1]), in its order;
	 * knext[p], the first of them not copied yet */
	for (size_t k = 0; k < nkids; k++)
		kbeg[j.kids[k].part + 1]++;
	for (size_t p = 0; p < np; p++) {
		kbeg[p + 1] += kbeg[p];
		knext[p] = kbeg[p];
	}
	/* (what placing them took goes before the nodes are copied) */
	pairmap_free(&tm);
	memset(&tm, 0, sizeof tm);
	free(items);
	free(first);
	free(bydepth);
	items = NULL;
	first = bydepth = NULL;
	/* The nodes: the tops, then part by part its blocks, front to back,
	 * each part's pages given back as they are read, so that the peak
	 * stays near one tree's size. */
	nd[0] = (struct tree_node){ TREE_NONE, 0, (tree_idx)n, 0, { j.tops[0].self }, { sum }, { 0 } };
	for (size_t k = 1; k < ntops; k++) {
		const struct top *tp = &j.tops[k];
		nd[tp->at] = (struct tree_node){ j.tops[tp->parent].at, tp->name, tp->at + (tree_idx)tp->size, tp->depth,
		                                 { tp->self }, { tp->total }, { tp->off } };
	}
	/* The parts split between two threads when there are, by their
	 * nodes: the biggest first, each to the one with fewer so far. */
	struct copy c[2] = { { .j = &j, .nd = nd, .byat = byat, .nkids = nkids, .owner = owner, .id = 0,
	                       .kdone = kdone, .kbeg = kbeg, .knext = knext, .released = released } };
	bool two = treepar_threads >= 2 && n - ntops >= JOIN_TWO_MIN && np > 1;
	if (two) {
		for (size_t k = 0; k < nkids; k++)
			psize[j.kids[k].part] += parts[j.kids[k].part].nodes[j.kids[k].node].end - j.kids[k].node;
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
		if (pthread_create(&c[1].th, NULL, copy_run, &c[1]) != 0) {
			memset(owner, 0, np);   /* all on this one */
			two = false;
		}
	}
	copy_run(&c[0]);
	if (two)
		pthread_join(c[1].th, NULL);
	for (size_t p = 0; p < np; p++)
		tree_free(&parts[p]);
	nd[0].name = dst->nodes[0].name;
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
	free(released);
	free(byat);
	free(kbeg);
	free(knext);
	free(kdone);
	free(owner);
	free(psize);
	free(porder);
	free(stk);
	free(nd);
	free(j.tops);
	free(j.kids);
	return ok;
}
