/* treepar: tree_finalize's passes over a tree built from sorted input,
 * split among threads (see treeint.h). Such a tree is in preorder but for
 * the few nodes a revisit added late (0.15% of them on 1 GiB of sorted
 * genfolded output), and finalizing it is three streaming passes over the
 * nodes (sizes, numbers, then ends and offsets), the serial part of a
 * load on two threads.
 *
 * Parts start at root children, so that a part's nodes are whole
 * subtrees of root children but for late nodes whose parent lies in an
 * earlier part. A part's sizes reach such parents through a short list,
 * added after (up to the root: few, and short); its numbers start where
 * the root children before it end (known from the sizes), and its late
 * nodes are numbered after all parts, in index order, as one pass would. */
#include "config.h"
#include "treeint.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

int treepar_threads = 1;

void tree_set_threads(int n)
{
	treepar_threads = n < 1 ? 1 : n > TREEPAR_MAX_PARTS ? TREEPAR_MAX_PARTS : n;
}

/* Trees smaller than this are numbered on one thread: a thread costs
 * more than it saves. */
#ifndef TREEPAR_MIN_NODES
#define TREEPAR_MIN_NODES ((size_t)1 << 20)
#endif
/* A part lists at most this many late nodes (and sizes for parents in
 * earlier parts); beyond, they are found again by a pass over it. */
#ifndef TREEPAR_LIST_MAX
#define TREEPAR_LIST_MAX ((size_t)1 << 16)
#endif

struct ext {
	tree_idx p;
	uint64_t size;
};

struct npart {
	struct tree_node *nd;
	size_t lo, hi;              /* nodes [lo, hi) in index order */
	uint64_t rootsum;           /* sizes of its root children */
	uint64_t self;              /* its nodes' self counts */
	bool self_ok;
	struct ext *ext;            /* sizes for parents before lo */
	size_t next, capext;
	bool ext_over;              /* more than TREEPAR_LIST_MAX of them */
	uint64_t rootbase;          /* the number of its first root child */
	tree_idx *late;             /* nodes numbered after all parts */
	size_t nlate, caplate;
	bool late_over;
	struct moved m;
};

/* Runs fn on parts[0..k), parts 1.. on threads of their own (on the
 * caller's when one cannot be made). */
struct job {
	void (*fn)(struct npart *);
	struct npart *p;
};

static void *job_main(void *arg)
{
	struct job *j = arg;
	j->fn(j->p);
	return NULL;
}

static void run_parts(void (*fn)(struct npart *), struct npart *parts, int k)
{
	pthread_t tid[TREEPAR_MAX_PARTS];
	struct job jobs[TREEPAR_MAX_PARTS];
	bool on[TREEPAR_MAX_PARTS] = { false };
	for (int j = 1; j < k; j++) {
		jobs[j] = (struct job){ fn, &parts[j] };
		on[j] = pthread_create(&tid[j], NULL, job_main, &jobs[j]) == 0;
	}
	fn(&parts[0]);
	for (int j = 1; j < k; j++) {
		if (on[j])
			pthread_join(tid[j], NULL);
		else
			fn(&parts[j]);
	}
}

static void ext_add(struct npart *pp, tree_idx p, uint64_t size)
{
	if (pp->ext_over)
		return;
	if (pp->next == TREEPAR_LIST_MAX) {
		pp->ext_over = true;
		return;
	}
	if (pp->next == pp->capext) {
		pp->capext = pp->capext ? 2 * pp->capext : 256;
		pp->ext = xreallocarray(pp->ext, pp->capext, sizeof *pp->ext);
	}
	pp->ext[pp->next++] = (struct ext){ p, size };
}

/* Pass 1: subtree sizes into `total`, bottom-up by index (children come
 * after their parents); and the sum of the self counts. */
static void part_sizes(struct npart *pp)
{
	struct tree_node *nd = pp->nd;
	uint64_t self = 0;
	bool ok = true;
	for (size_t i = pp->hi; i-- > pp->lo;) {
		nd[i].total.u += 1;
		if (__builtin_add_overflow(self, nd[i].self.u, &self))
			ok = false;
		tree_idx p = nd[i].parent;
		if (p == TREE_ROOT)
			pp->rootsum += nd[i].total.u;
		else if (p >= pp->lo)
			nd[p].total.u += nd[i].total.u;
		else
			ext_add(pp, p, nd[i].total.u);
	}
	pp->self = self;
	pp->self_ok = ok;
}

static void late_add(struct npart *pp, tree_idx i)
{
	if (pp->late_over)
		return;
	if (pp->nlate == TREEPAR_LIST_MAX) {
		pp->late_over = true;
		return;
	}
	if (pp->nlate == pp->caplate) {
		pp->caplate = pp->caplate ? 2 * pp->caplate : 256;
		pp->late = xreallocarray(pp->late, pp->caplate, sizeof *pp->late);
	}
	pp->late[pp->nlate++] = i;
}

/* Pass 2: preorder numbers into `end`, each node's next free number for
 * its children in `off`, as number_by_index does. A node whose parent is
 * in an earlier part (or late itself) is late: `end` TREE_NONE, its size
 * kept. */
static void part_number(struct npart *pp)
{
	struct tree_node *nd = pp->nd;
	uint64_t root = pp->rootbase;
	for (size_t i = pp->lo; i < pp->hi; i++) {
		tree_idx p = nd[i].parent;
		uint64_t k;
		if (p == TREE_ROOT) {
			k = root;
			root += nd[i].total.u;
		} else if (p < pp->lo || nd[p].end == TREE_NONE) {
			nd[i].end = TREE_NONE;
			late_add(pp, (tree_idx)i);
			continue;
		} else {
			k = nd[p].off.u;
			nd[p].off.u += nd[i].total.u;
		}
		nd[i].end = (tree_idx)k;
		nd[i].off.u = k + 1;
		nd[i].total.u = 0;
		if (k != i)
			treefinal_moved_add(&pp->m, (tree_idx)i);
	}
}

/* The part whose index range holds node i. */
static int part_of(const struct npart *parts, int k, size_t i)
{
	int lo = 0, hi = k;
	while (hi - lo > 1) {
		int mid = (lo + hi) / 2;
		if (parts[mid].lo <= i)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Adds size to p and its ancestors, up to its root child, whose part's
 * sum of root children grows by as much. */
static void size_up(struct tree_node *nd, struct npart *parts, int k, tree_idx p, uint64_t size)
{
	for (;;) {
		nd[p].total.u += size;
		tree_idx q = nd[p].parent;
		if (q == TREE_ROOT) {
			parts[part_of(parts, k, p)].rootsum += size;
			return;
		}
		p = q;
	}
}

/* Numbers late node i of part `in` (its parent numbered already), as one
 * pass would; its self count moves to the part of the preorder it lands
 * in. */
static void number_late(struct tree_node *nd, struct npart *parts, int k, int in, tree_idx i, struct moved *m)
{
	struct tree_node *pn = &nd[nd[i].parent];
	uint64_t num = pn->off.u;
	pn->off.u += nd[i].total.u;
	nd[i].end = (tree_idx)num;
	nd[i].off.u = num + 1;
	nd[i].total.u = 0;
	if (num != i)
		treefinal_moved_add(m, i);
	int to = 0;
	while (to + 1 < k && parts[to + 1].rootbase <= num)
		to++;
	parts[in].self -= nd[i].self.u;
	if (__builtin_add_overflow(parts[to].self, nd[i].self.u, &parts[to].self))
		parts[to].self_ok = false;
}

bool treepar_number(struct tree *t, struct treepar_split *sp, size_t *moved, tree_idx **from, size_t *nfrom)
{
	struct tree_node *nd = t->nodes;
	size_t n = t->n;
	int want = treepar_threads;
	if (want < 2 || n < TREEPAR_MIN_NODES)
		return false;
	/* Cuts at the first root child from each k-th of the nodes on. */
	size_t cut[TREEPAR_MAX_PARTS + 1];
	int k = 1;
	cut[0] = 1;
	for (int j = 1; j < want; j++) {
		size_t s = n / (size_t)want * (size_t)j;
		if (s <= cut[k - 1])
			s = cut[k - 1] + 1;
		while (s < n && nd[s].parent != TREE_ROOT)
			s++;
		if (s < n)
			cut[k++] = s;
	}
	if (k < 2)
		return false;
	cut[k] = n;
	struct npart *parts = xcalloc((size_t)k, sizeof *parts);
	for (int j = 0; j < k; j++) {
		parts[j].nd = nd;
		parts[j].lo = cut[j];
		parts[j].hi = cut[j + 1];
		parts[j].m = (struct moved){ NULL, 0, 0, true };
	}
	run_parts(part_sizes, parts, k);
	/* Sizes for parents in earlier parts, from their lists or, past
	 * TREEPAR_LIST_MAX, from a pass over the part. */
	for (int j = 1; j < k; j++) {
		struct npart *pp = &parts[j];
		if (!pp->ext_over) {
			for (size_t e = 0; e < pp->next; e++)
				size_up(nd, parts, k, pp->ext[e].p, pp->ext[e].size);
		} else {
			for (size_t i = pp->lo; i < pp->hi; i++)
				if (nd[i].parent != TREE_ROOT && nd[i].parent < pp->lo)
					size_up(nd, parts, k, nd[i].parent, nd[i].total.u);
		}
		free(pp->ext);
		pp->ext = NULL;
	}
	parts[0].rootbase = 1;
	for (int j = 1; j < k; j++)
		parts[j].rootbase = parts[j - 1].rootbase + parts[j - 1].rootsum;
	nd[0].end = 0;
	nd[0].off.u = parts[k - 1].rootbase + parts[k - 1].rootsum;
	run_parts(part_number, parts, k);
	/* The late nodes, in index order: their parents are numbered. */
	struct moved m = { NULL, 0, 0, true };
	for (int j = 1; j < k; j++) {
		struct npart *pp = &parts[j];
		if (!pp->late_over) {
			for (size_t e = 0; e < pp->nlate; e++)
				number_late(nd, parts, k, j, pp->late[e], &m);
		} else {
			for (size_t i = pp->lo; i < pp->hi; i++)
				if (nd[i].end == TREE_NONE)
					number_late(nd, parts, k, j, (tree_idx)i, &m);
		}
		free(pp->late);
	}
	nd[0].total.u = 0;
	/* One list of the nodes that move, or none when one overflowed. */
	size_t count = m.n;
	bool listing = m.listing;
	for (int j = 0; j < k; j++) {
		count += parts[j].m.n;
		listing &= parts[j].m.listing;
	}
	tree_idx *all = NULL;
	if (listing && count <= TREE_FROM_MAX) {
		all = xmalloc((count ? count : 1) * sizeof *all);
		size_t at = 0;
		for (int j = 0; j < k; j++) {
			if (parts[j].m.n)
				memcpy(all + at, parts[j].m.from, parts[j].m.n * sizeof *all);
			at += parts[j].m.n;
		}
		if (m.n)
			memcpy(all + at, m.from, m.n * sizeof *all);
	}
	*from = all;
	*nfrom = all ? count : 0;
	*moved = count;
	for (int j = 0; j < k; j++)
		free(parts[j].m.from);
	free(m.from);
	/* The parts in the preorder, for treepar_ends. */
	sp->k = k;
	sp->self_ok = true;
	for (int j = 0; j < k; j++) {
		sp->at[j] = parts[j].rootbase;
		sp->self[j] = parts[j].self;
		sp->self_ok &= parts[j].self_ok;
	}
	sp->at[k] = n;
	free(parts);
	return true;
}

/* ---- ends and offsets ---------------------------------------------------- */

struct epart {
	struct tree_node *nd;
	size_t lo, hi;
	uint64_t base;              /* self counts before lo, the root's too */
	bool sums, totals;
	bool ok;                    /* the sums did not overflow */
};

/* ends_and_offsets (treefinal.c) of the nodes [lo, hi), a run of whole
 * subtrees of root children, with `before` starting at base. */
static void part_ends(struct epart *e)
{
	e->ok = treefinal_walk(e->nd, e->lo, e->hi, e->base, e->sums, e->totals, false);
}

static void *epart_main(void *arg)
{
	part_ends(arg);
	return NULL;
}

bool treepar_ends(struct tree *t, bool totals, const struct treepar_split *sp)
{
	struct tree_node *nd = t->nodes;
	int k = sp->k;
	bool sums = !t->chart && !t->saturated && sp->self_ok;
	struct epart parts[TREEPAR_MAX_PARTS];
	uint64_t base = nd[0].self.u;
	for (int j = 0; j < k; j++) {
		parts[j] = (struct epart){ nd, sp->at[j], sp->at[j + 1], base, sums, totals, false };
		if (__builtin_add_overflow(base, sp->self[j], &base))
			sums = false;
	}
	for (int j = 0; j < k; j++)
		parts[j].sums = sums;
	pthread_t tid[TREEPAR_MAX_PARTS];
	bool on[TREEPAR_MAX_PARTS] = { false };
	for (int j = 1; j < k; j++)
		on[j] = pthread_create(&tid[j], NULL, epart_main, &parts[j]) == 0;
	part_ends(&parts[0]);
	for (int j = 1; j < k; j++) {
		if (on[j])
			pthread_join(tid[j], NULL);
		else
			part_ends(&parts[j]);
		sums &= parts[j].ok;
	}
	sums &= parts[0].ok;
	nd[0].end = (tree_idx)t->n;
	if (sums && totals)
		nd[0].total.u = base;
	if (sums)
		nd[0].off.u = 0;
	return sums || t->chart || t->saturated;
}

/* ---- ends and offsets of a tree in preorder --------------------------- */

/* The parts' shared state: part j's walk needs the self counts of the
 * parts before it, which the threads of the parts after them sum. */
struct wshared {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int k, summed;              /* parts, sums published (under mu) */
	size_t at[TREEPAR_MAX_PARTS + 1];
	uint64_t sum[TREEPAR_MAX_PARTS];    /* part j's self counts */
	bool sum_ok[TREEPAR_MAX_PARTS];
};

struct wpart {
	struct tree_node *nd;
	struct wshared *sh;
	int j;
	bool totals;
	bool ok;                    /* the sums held */
};

/* Part j's first step (j >= 1): the sum of part j - 1's self counts,
 * published; then it waits for the others'. */
static void wpart_sum(struct wpart *w)
{
	struct wshared *sh = w->sh;
	int j = w->j;
	uint64_t sum = 0;
	bool ok = true;
	for (size_t i = sh->at[j - 1]; i < sh->at[j]; i++)
		ok &= !__builtin_add_overflow(sum, w->nd[i].self.u, &sum);
	pthread_mutex_lock(&sh->mu);
	sh->sum[j - 1] = sum;
	sh->sum_ok[j - 1] = ok;
	if (++sh->summed == sh->k - 1)
		pthread_cond_broadcast(&sh->cv);
	pthread_mutex_unlock(&sh->mu);
}

/* Part j's walk, once the sums before it are known. */
static void wpart_walk(struct wpart *w)
{
	struct wshared *sh = w->sh;
	int j = w->j;
	if (j) {
		pthread_mutex_lock(&sh->mu);
		while (sh->summed < sh->k - 1)
			pthread_cond_wait(&sh->cv, &sh->mu);
		pthread_mutex_unlock(&sh->mu);
	}
	uint64_t base = w->nd[0].self.u;
	bool sums = true;
	for (int i = 0; i < j; i++)
		sums = sums && sh->sum_ok[i] && !__builtin_add_overflow(base, sh->sum[i], &base);
	w->ok = treefinal_walk(w->nd, sh->at[j], sh->at[j + 1], base, sums, w->totals, false) && sums;
}

static void *wpart_main(void *arg)
{
	wpart_sum(arg);
	wpart_walk(arg);
	return NULL;
}

bool treepar_walk(struct tree *t, bool totals, bool *ok)
{
	struct tree_node *nd = t->nodes;
	size_t n = t->n;
	int k = treepar_threads;
	if (k < 2 || n < TREEPAR_MIN_NODES || n < 3 || t->chart || t->saturated)
		return false;
	struct wshared sh = { .k = 0 };
	/* Parts start at root children, found from (n - 1) / k * j on */
	sh.at[0] = 1;
	int parts = 1;
	for (int j = 1; j < k; j++) {
		size_t i = 1 + (n - 1) / (size_t)k * (size_t)j, stop = i + (n - 1) / (size_t)k;
		if (i <= sh.at[parts - 1])
			i = sh.at[parts - 1] + 1;
		while (i < n && i < stop && nd[i].depth != 1)
			i++;
		if (i < n && i < stop && nd[i].depth == 1)
			sh.at[parts++] = i;
	}
	if (parts < 2)
		return false;
	sh.k = parts;
	sh.at[parts] = n;
	pthread_mutex_init(&sh.mu, NULL);
	pthread_cond_init(&sh.cv, NULL);
	struct wpart w[TREEPAR_MAX_PARTS];
	pthread_t tid[TREEPAR_MAX_PARTS];
	bool on[TREEPAR_MAX_PARTS] = { false };
	for (int j = 0; j < parts; j++)
		w[j] = (struct wpart){ nd, &sh, j, totals, false };
	for (int j = 1; j < parts; j++)
		on[j] = pthread_create(&tid[j], NULL, wpart_main, &w[j]) == 0;
	/* Parts without a thread of their own: summed and walked here */
	for (int j = 1; j < parts; j++)
		if (!on[j])
			wpart_sum(&w[j]);
	wpart_walk(&w[0]);
	bool sums = w[0].ok;
	for (int j = 1; j < parts; j++) {
		if (on[j])
			pthread_join(tid[j], NULL);
		else
			wpart_walk(&w[j]);
		sums &= w[j].ok;
	}
	pthread_mutex_destroy(&sh.mu);
	pthread_cond_destroy(&sh.cv);
	nd[0].end = (tree_idx)n;
	if (sums && totals) {   /* the root's: its own and its children's */
		uint64_t total = nd[0].self.u;
		for (size_t c = 1; c < n && sums; c = nd[c].end)
			sums = !__builtin_add_overflow(total, nd[c].total.u, &total);
		nd[0].total.u = total;
	}
	if (sums)
		nd[0].off.u = 0;
	*ok = sums;
	return true;
}
