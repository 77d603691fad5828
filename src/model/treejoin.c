/* tree_join: finalized trees of disjoint parts of a profile made one
 * finalized tree (see tree.h). Each part holds every stack that starts
 * with its pairs of first two frames, so a node below depth 2 has its
 * whole subtree in one part: those subtrees are copied as they are, in
 * blocks (a finalized subtree is a run of the preorder), their indices and
 * offsets shifted; only the nodes at depth 1, which parts share, and the
 * order of the depth-2 nodes under each are worked out here. */
#include "config.h"
#include "treeint.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "xalloc.h"

/* A depth-1 node of the joined tree: its name (an id of dst), samples,
 * place and the range of its depth-2 nodes in `kids`. */
struct top {
	strtab_id name;
	uint64_t self, total, off;
	tree_idx at;                /* its index in dst */
	size_t kid0, nkids;
};

/* A depth-2 node of a part: its block [node, end) there. */
struct kid {
	uint32_t part;
	uint32_t top;               /* its parent's struct top */
	tree_idx node;
	strtab_id name;             /* an id of dst */
	uint64_t off;               /* its offset in dst */
	tree_idx at;                /* its index in dst */
};

struct join {
	struct tree *dst;
	struct tree *parts;
	enum tree_order order;
	struct top *tops;
	struct kid *kids;
};

static int cmp_order(const struct join *j, strtab_id na, uint64_t selfa, uint64_t totala,
                     strtab_id nb, uint64_t selfb, uint64_t totalb)
{
	if (j->order == TREE_ORDER_WEIGHT && totala != totalb)
		return totala > totalb ? -1 : 1;
	const struct strtab *st = &j->dst->names;
	return treesort_cmp_names(strtab_str(st, na), strtab_len(st, na), selfa > 0,
	                          strtab_str(st, nb), strtab_len(st, nb), selfb > 0);
}

/* qsort has no context argument in C11: the join being sorted. */
static const struct join *sorting;

static int cmp_tops(const void *a, const void *b)
{
	const struct top *x = a, *y = b;
	return cmp_order(sorting, x->name, x->self, x->total, y->name, y->self, y->total);
}

static int cmp_kids(const void *a, const void *b)
{
	const struct kid *x = a, *y = b;
	if (x->top != y->top)
		return x->top < y->top ? -1 : 1;
	const struct tree_node *nx = &sorting->parts[x->part].nodes[x->node];
	const struct tree_node *ny = &sorting->parts[y->part].nodes[y->node];
	return cmp_order(sorting, x->name, nx->self.u, nx->total.u, y->name, ny->self.u, ny->total.u);
}

/* Gives back the pages of t's node array below node i, read already:
 * whole pages strictly inside the array (malloc's bookkeeping around it
 * stays intact); *done is how far that went. */
static void release_below(const struct tree *t, size_t i, uintptr_t *done)
{
#ifdef HAVE_MADVISE
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t page = pg > 0 ? (uintptr_t)pg : 4096;
	uintptr_t lo = ((uintptr_t)t->nodes + page - 1) / page * page;
	uintptr_t hi = (uintptr_t)(t->nodes + i) / page * page;
	if (*done < lo)
		*done = lo;
	if (hi >= *done + ((uintptr_t)1 << 20)) {     /* a MiB at a time */
		madvise((void *)*done, hi - *done, MADV_DONTNEED);
		*done = hi;
	}
#else
	(void)t;
	(void)i;
	(void)done;
#endif
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

bool tree_join(struct tree *dst, struct tree *parts, size_t np, enum tree_order order)
{
	if (dst->n != 1 || dst->stacks || order == TREE_ORDER_INPUT || np > UINT32_MAX)
		return false;
	uint64_t rootself = 0, sum = 0, stacks = 0;
	size_t ntops = 0, nkids = 0, n = 1;
	for (size_t p = 0; p < np; p++) {
		struct tree *t = &parts[p];
		if (!t->finalized || t->frac || t->saturated || t->chart)
			return false;
		if (__builtin_add_overflow(sum, t->nodes[0].total.u, &sum) ||
		    __builtin_add_overflow(rootself, t->nodes[0].self.u, &rootself))
			return false;
		stacks += t->stacks;
		n += t->n - 1;
		for (tree_idx c = tree_first_child(t, TREE_ROOT); c != TREE_NONE; c = tree_next_sibling(t, c)) {
			ntops++;
			for (tree_idx d = tree_first_child(t, c); d != TREE_NONE; d = tree_next_sibling(t, d))
				nkids++;
		}
	}
	/* Names: the parts' in dst's table, and the depth-1 nodes merged by
	 * name (n counted each part's; the merged ones are fewer). */
	struct join j = { dst, parts, order, NULL, NULL };
	strtab_id **remap = xcalloc(np ? np : 1, sizeof *remap);
	for (size_t p = 0; p < np; p++) {
		/* an empty table: tree_join_names moved them, ids are dst's */
		const struct strtab *st = &parts[p].names;
		size_t cnt = strtab_count(st) ? strtab_count(st) : strtab_count(&dst->names);
		remap[p] = xmalloc((cnt ? cnt : 1) * sizeof **remap);
		for (size_t k = 0; k < cnt; k++)
			remap[p][k] = strtab_count(st) ? strtab_intern(&dst->names, strtab_str(st, (strtab_id)k),
			                                               strtab_len(st, (strtab_id)k))
			                               : (strtab_id)k;
	}
	uint32_t *top_of = xmalloc(strtab_count(&dst->names) * sizeof *top_of);
	memset(top_of, 0xff, strtab_count(&dst->names) * sizeof *top_of);
	j.tops = xmalloc((ntops ? ntops : 1) * sizeof *j.tops);
	j.kids = xmalloc((nkids ? nkids : 1) * sizeof *j.kids);
	size_t nt = 0, nk = 0;
	for (size_t p = 0; p < np; p++) {
		struct tree *t = &parts[p];
		for (tree_idx c = tree_first_child(t, TREE_ROOT); c != TREE_NONE; c = tree_next_sibling(t, c)) {
			strtab_id id = remap[p][t->nodes[c].name];
			if (top_of[id] == UINT32_MAX) {
				top_of[id] = (uint32_t)nt;
				j.tops[nt++] = (struct top){ id, 0, 0, 0, 0, 0, 0 };
			}
			struct top *tp = &j.tops[top_of[id]];
			tp->self += t->nodes[c].self.u;     /* no overflow: at most sum */
			tp->total += t->nodes[c].total.u;
			for (tree_idx d = tree_first_child(t, c); d != TREE_NONE; d = tree_next_sibling(t, d))
				j.kids[nk++] = (struct kid){ (uint32_t)p, top_of[id], d, remap[p][t->nodes[d].name], 0, 0 };
		}
	}
	n -= ntops - nt;
	bool ok = n <= TREE_MAX_NODES;
	/* The order: depth-1 nodes as one tree sorts them; then their
	 * depth-2 nodes, which must be distinct under each (else the parts
	 * were not disjoint). */
	sorting = &j;
	qsort(j.tops, nt, sizeof *j.tops, cmp_tops);
	uint32_t *rank = xmalloc((nt ? nt : 1) * sizeof *rank);
	for (size_t k = 0; k < nt; k++)
		rank[top_of[j.tops[k].name]] = (uint32_t)k;
	for (size_t k = 0; k < nk; k++)
		j.kids[k].top = rank[j.kids[k].top];
	qsort(j.kids, nk, sizeof *j.kids, cmp_kids);
	sorting = NULL;
	free(rank);
	for (size_t k = 1; k < nk && ok; k++)
		ok = !(j.kids[k].top == j.kids[k - 1].top && j.kids[k].name == j.kids[k - 1].name);
	if (!ok) {
		for (size_t p = 0; p < np; p++)
			free(remap[p]);
		free(remap);
		free(top_of);
		free(j.tops);
		free(j.kids);
		return false;
	}
	/* Places: a depth-1 node, then its depth-2 nodes' blocks; offsets
	 * from the totals to the left (a node's own samples come after its
	 * children's). */
	tree_idx at = 1;
	uint64_t off = 0;
	for (size_t k = 0, kk = 0; k < nt; k++) {
		struct top *tp = &j.tops[k];
		tp->at = at++;
		tp->off = off;
		tp->kid0 = kk;
		uint64_t koff = off;
		for (; kk < nk && j.kids[kk].top == k; kk++) {
			struct kid *kd = &j.kids[kk];
			const struct tree *t = &parts[kd->part];
			kd->at = at;
			kd->off = koff;
			at += t->nodes[kd->node].end - kd->node;
			koff += t->nodes[kd->node].total.u;
		}
		tp->nkids = kk - tp->kid0;
		off += tp->total;
	}
	/* The nodes: the root, the depth-1 ones, then part by part its
	 * blocks, each part freed once copied. */
	free(dst->nodes);
	dst->nodes = xmalloc(n * sizeof *dst->nodes);
	dst->n = dst->cap = n;
	struct tree_node *nd = dst->nodes;
	nd[0] = (struct tree_node){ TREE_NONE, strtab_intern(&dst->names, "all", 3), (tree_idx)n, 0,
	                            { rootself }, { sum }, { 0 } };
	for (size_t k = 0; k < nt; k++) {
		const struct top *tp = &j.tops[k];
		tree_idx end = k + 1 < nt ? j.tops[k + 1].at : (tree_idx)n;
		nd[tp->at] = (struct tree_node){ TREE_ROOT, tp->name, end, 1, { tp->self }, { tp->total }, { tp->off } };
	}
	/* The blocks in dst's order, which is each part's own order of
	 * them: each part is read front to back, and its pages go as it is
	 * read, so that the peak stays near one tree's size. */
	uintptr_t *released = xcalloc(np ? np : 1, sizeof *released);
	for (size_t k = 0; k < nk; k++) {
		const struct kid *kd = &j.kids[k];
		size_t p = kd->part;
		const struct tree_node *sn = parts[p].nodes;
		tree_idx d = kd->node, e = sn[d].end, shift = kd->at - d;
		uint64_t soff = sn[d].off.u;
		for (tree_idx i = d; i < e; i++) {
			struct tree_node *x = &nd[i + shift];
			x->parent = i == d ? j.tops[kd->top].at : sn[i].parent + shift;
			x->name = remap[p][sn[i].name];
			x->end = sn[i].end + shift;
			x->depth = sn[i].depth;
			x->self = sn[i].self;
			x->total = sn[i].total;
			x->off.u = kd->off + (sn[i].off.u - soff);
		}
		release_below(&parts[p], e, &released[p]);
	}
	free(released);
	for (size_t p = 0; p < np; p++) {
		tree_free(&parts[p]);
		free(remap[p]);
	}
	free(remap);
	free(top_of);
	free(j.tops);
	free(j.kids);
	/* dst is a finalized tree of all the parts' stacks */
	free(dst->b.slots);
	free(dst->b.path);
	free(dst->b.bpath);
	free(dst->b.bat);
	memset(&dst->b, 0, sizeof dst->b);
	dst->stacks = stacks;
	dst->time.u = sum;
	dst->finalized = true;
	return true;
}
