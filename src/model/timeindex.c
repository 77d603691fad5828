/* timeindex: the aggregates of a timeline (see timeindex.h).
 *
 * Streams, all varints:
 *   tbins   per thread, a pair per bin it has samples in (a bin may come
 *           twice when the timeline goes back in time):
 *             zigzag(bin - the pair's before), samples
 *   hist    per thread, its leaves in ascending order, each a header
 *             zigzag(leaf - the leaf before), triples, samples, [weight],
 *             bytes of the triples
 *           then its triples
 *             zigzag(bin - the triple's before), samples, [weight]
 *           ([weight] only when some sample weighs other than 1; else the
 *           weight is the samples)
 *   runs    per unit, how its first stack's frames below the shared ones
 *           end and its last stack's begin:
 *             n, then n pairs (depth before - depth after, weight)
 *           twice: the first stack's frames, deepest first, ending after
 *           `weight` of the unit; the last stack's, deepest first,
 *           starting `weight` before the unit's end. */
#include "config.h"
#include "timeindex_int.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "xalloc.h"

#define US5 5000u
#define MS5 5000000u
#define SEC 1000000000u
#define DENSE_MAX (1u << 22)

static unsigned vlen(uint64_t v)
{
	unsigned n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

uint32_t timeindex_bin(const struct timeindex *ti, uint64_t time)
{
	uint64_t d = time - ti->t0;
	/* the usual widths as constants: a multiplication each */
	return (uint32_t)(ti->bin_ns == US5 ? d / US5 : ti->bin_ns == MS5 ? d / MS5 : d / ti->bin_ns);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

/* The bins of a recording of span ns: as wide as can be while every row of
 * a heat map of at most HEAT_COLS columns (heatmap_step's steps: 1, 2, 5,
 * 10, 20, 50... ms under 2 s, else 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10,
 * 30 min, hours) cut in 1, 2, 4, 5, 10, 20, 25, 40 or 50 rows is whole
 * bins: 5 us under 2 s, 5 ms up to an hour and a half, then the greatest
 * common divisor of the rows of the steps that may come (75 ms for 7 h).
 * More than TIMEINDEX_MAX_BINS: wider, and some grids are counted sample
 * by sample. */
#define HEAT_COLS 2048u
static uint64_t bin_width(uint64_t span)
{
	static const uint64_t steps[] = { 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600 };
	static const uint64_t rows[] = { 50, 40, 25, 20, 10, 5, 4, 2, 1 };
	const size_t nsteps = sizeof steps / sizeof steps[0];
	if (span < 2 * (uint64_t)SEC)
		return US5;
	size_t first = nsteps - 1;
	for (size_t i = 0; i < nsteps; i++)
		if (span / (steps[i] * SEC) + 1 <= HEAT_COLS) {
			first = i;
			break;
		}
	uint64_t g = 0;
	for (size_t i = first; i < nsteps; i++)
		for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
			g = gcd(g, steps[i] * SEC / rows[r]);
	if (span / g >= TIMEINDEX_MAX_BINS)
		g *= span / g / TIMEINDEX_MAX_BINS + 1;
	return g;
}

/* ---- building ------------------------------------------------------------ */

/* A (thread, leaf) while building: its pending triple, and what its list
 * will need. */
struct key {
	uint32_t thread;
	tree_idx leaf;
	uint32_t prev;              /* the bin of its triple recorded last */
	uint64_t nent, bytes, wbytes, tot_count, tot_weight;
	size_t at;                  /* where its next triple is written */
};

/* Its pending triple, apart: what every sample touches stays small. */
struct khot {
	uint32_t bin, count;        /* count 0: none */
	uint64_t weight;
};

/* The child hash of keys: the key's thread and leaf, so that probing past
 * other keys does not touch them. */
struct slot {
	uint32_t thread;
	tree_idx leaf;
	uint32_t key;               /* index + 1, 0 empty */
};

/* Keys of a thread's recent leaves, by leaf: stacks recur near each other
 * in time, so that most samples find their key without the hash. */
#define MEMO 16u

/* A unit being read, sample by sample. The frames samples i..j all share
 * are those each shares with the one before, down to the fewest; so the
 * first stack's frames end where that depth drops (pre), and the last
 * stack's begin after the last sample that shares fewer than they (the
 * stack keeps, for the samples read, those sharing fewer than every later
 * one: depth, the weight before it). */
struct ubuild {
	uint32_t n, a;              /* samples, the depth all of them share */
	tree_idx first, last;
	uint64_t w, tmin, tmax, pos0, pos1;
	uint64_t *pre;              /* depth dropped, weight before: pairs */
	size_t npre, cappre;
	uint64_t *stk;              /* depth, weight before: pairs */
	size_t nstk, capstk;
};

/* The units of a thread, apart from the others' (the chart of chosen
 * threads). */
struct uvec {
	struct timeindex_unit *u;
	size_t n, cap;
};

/* A thread while building: its pending pair, its pairs, its recent keys. */
struct tstate {
	uint32_t bin, count;        /* the pending pair (count 0: none) */
	uint32_t *pairs;            /* bin, samples, ... */
	size_t npairs, cappairs;
	tree_idx memo_leaf[MEMO];
	uint32_t memo[MEMO];        /* key index + 1 of memo_leaf[i], 0: none */
	struct ubuild ub;           /* its unit being read */
	struct uvec units;
};

struct build {
	struct timeindex *ti;
	atomic_bool *stop;          /* set: give up (NULL: never) */
	bool weighted, triples;     /* triples: still kept */
	struct key *keys;
	struct khot *hot;
	size_t nkeys, capkeys;
	struct slot *slots;
	size_t capslots;
	uint32_t *dense;            /* key index + 1 by leaf * threads + thread,
	                               when that table is small (else the hash) */
	struct tstate *ts;
	/* the triples in the order they were complete: key, bin, samples */
	uint32_t *rec;
	uint64_t *recw;
	size_t nrec, caprec, maxrec;
	struct ubuild ub;           /* the unit of all threads being read */
	uint64_t pos;               /* the sample's place in the timeline */
	unsigned char *runs;
	size_t nruns, capruns;
};

static uint64_t key_hash(uint32_t thread, tree_idx leaf)
{
	return timeline_mix((uint64_t)thread << 32 | leaf);
}

static void slots_grow(struct build *b)
{
	size_t cap = b->capslots ? b->capslots * 2 : 1024;
	struct slot *s = xcalloc(cap, sizeof *s);
	for (size_t i = 0; i < b->nkeys; i++) {
		size_t k = key_hash(b->keys[i].thread, b->keys[i].leaf) & (cap - 1);
		while (s[k].key)
			k = (k + 1) & (cap - 1);
		s[k] = (struct slot){ b->keys[i].thread, b->keys[i].leaf, (uint32_t)i + 1 };
	}
	free(b->slots);
	b->slots = s;
	b->capslots = cap;
}

static struct key *key_new(struct build *b, uint32_t thread, tree_idx leaf)
{
	if (b->nkeys >= UINT32_MAX - 1)
		xdie("too many distinct threads and stacks for the time index");
	if (b->nkeys == b->capkeys) {
		b->capkeys = b->capkeys ? b->capkeys * 2 : 1024;
		b->keys = xreallocarray(b->keys, b->capkeys, sizeof *b->keys);
		b->hot = xreallocarray(b->hot, b->capkeys, sizeof *b->hot);
	}
	memset(&b->hot[b->nkeys], 0, sizeof *b->hot);
	struct key *x = &b->keys[b->nkeys++];
	memset(x, 0, sizeof *x);
	x->thread = thread;
	x->leaf = leaf;
	return x;
}

/* The dense table's entry of (thread, leaf): its key's index + 1, 0 none. */
static inline uint32_t *dense_at(const struct build *b, uint32_t thread, tree_idx leaf)
{
	return &b->dense[(size_t)leaf * b->ti->tl->nthreads + thread];
}

/* The index of the key of (thread, leaf), made when new. */
static uint32_t key_of(struct build *b, uint32_t thread, tree_idx leaf)
{
	if (b->dense) {
		uint32_t *d = dense_at(b, thread, leaf);
		if (!*d) {
			key_new(b, thread, leaf);
			*d = (uint32_t)b->nkeys;
		}
		return *d - 1;
	}
	struct tstate *t = &b->ts[thread];
	uint32_t *memo = &t->memo[leaf % MEMO];
	if (*memo && t->memo_leaf[leaf % MEMO] == leaf)
		return *memo - 1;
	t->memo_leaf[leaf % MEMO] = leaf;
	size_t m = b->capslots - 1, k = key_hash(thread, leaf) & m;
	for (; b->slots[k].key; k = (k + 1) & m) {
		if (b->slots[k].thread == thread && b->slots[k].leaf == leaf) {
			*memo = b->slots[k].key;
			return *memo - 1;
		}
	}
	key_new(b, thread, leaf);
	if (b->nkeys * 2 > b->capslots)
		slots_grow(b);      /* the new key is placed there */
	else
		b->slots[k] = (struct slot){ thread, leaf, (uint32_t)b->nkeys };
	*memo = (uint32_t)b->nkeys;
	return *memo - 1;
}

/* The triples are worth keeping while they are fewer than half the
 * samples: beyond, a pass over the samples costs no more than one over
 * them, and the memory is the timeline's again. The lists' totals stay. */
static void triples_drop(struct build *b)
{
	b->triples = false;
	free(b->rec);
	free(b->recw);
	b->rec = NULL;
	b->recw = NULL;
	b->nrec = b->caprec = 0;
}

static void key_flush(struct build *b, uint32_t i)
{
	struct khot *h = &b->hot[i];
	struct key *k = &b->keys[i];
	if (b->triples && b->nrec >= b->maxrec)
		triples_drop(b);
	k->tot_count += h->count;
	k->tot_weight = sat_add(k->tot_weight, h->weight);
	if (!b->triples) {
		h->count = 0;
		return;
	}
	if (b->nrec == b->caprec) {
		b->caprec = b->caprec ? b->caprec * 2 : 4096;
		b->rec = xreallocarray(b->rec, b->caprec, 3 * sizeof *b->rec);
		b->recw = xreallocarray(b->recw, b->caprec, sizeof *b->recw);
	}
	uint32_t *r = &b->rec[3 * b->nrec];
	r[0] = i;
	r[1] = h->bin;
	r[2] = h->count;
	b->recw[b->nrec++] = h->weight;
	k->bytes += vlen(timeline_zigzag((int64_t)h->bin - (int64_t)k->prev)) + vlen(h->count);
	k->wbytes += vlen(h->weight);
	k->nent++;
	k->prev = h->bin;
	h->count = 0;
}

static void thread_flush(struct tstate *t)
{
	if (t->npairs == t->cappairs) {
		t->cappairs = t->cappairs ? t->cappairs * 2 : 64;
		t->pairs = xreallocarray(t->pairs, t->cappairs, 2 * sizeof *t->pairs);
	}
	t->pairs[2 * t->npairs] = t->bin;
	t->pairs[2 * t->npairs + 1] = t->count;
	t->npairs++;
	t->count = 0;
}

/* The depth of the deepest frame stacks a and b share: up from the
 * shallower one to the first frame whose subtree holds the other (one
 * chain, not two). O(depth). */
static uint32_t shared_depth(const struct tree *t, tree_idx a, tree_idx b)
{
	if (tree_depth(t, a) > tree_depth(t, b)) {
		tree_idx x = a;
		a = b;
		b = x;
	}
	while (!tree_contains(t, a, b))
		a = tree_parent(t, a);
	return tree_depth(t, a);
}

static void runs_put(struct build *b, uint64_t v)
{
	if (b->capruns - b->nruns < 10) {
		b->capruns = b->capruns ? b->capruns * 2 : 4096;
		b->runs = xrealloc(b->runs, b->capruns);
	}
	b->nruns = (size_t)(timeline_put_varint(b->runs + b->nruns, v) - b->runs);
}

static void pair_push(uint64_t **v, size_t *n, size_t *cap, uint64_t a, uint64_t b)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*v = xreallocarray(*v, *cap, 2 * sizeof **v);
	}
	(*v)[2 * *n] = a;
	(*v)[2 * *n + 1] = b;
	(*n)++;
}

/* The unit's summary into u, its ends' frames into runs; ub starts again. */
static void ubuild_close(struct build *b, struct ubuild *ub, struct timeindex_unit *u)
{
	if (b->nruns > UINT32_MAX - 64)
		xdie("the time index's chart units are too big");
	*u = (struct timeindex_unit){ ub->tmin, ub->tmax, ub->w, ub->pos0, ub->pos1, ub->first, ub->last,
	                              ub->a, (uint32_t)b->nruns, ub->n };
	runs_put(b, ub->npre);
	for (size_t k = 0; k < 2 * ub->npre; k++)
		runs_put(b, ub->pre[k]);
	/* the last stack's frames: the kept samples from the last back, each
	 * a drop to its depth, the weight from it to the end */
	uint32_t d = tree_depth(b->ti->tree, ub->last);
	size_t nsuf = 0;
	for (size_t k = ub->nstk; k-- > 0;)
		if (ub->stk[2 * k] < d) {
			nsuf++;
			d = (uint32_t)ub->stk[2 * k];
		}
	if (d != ub->a)
		xdie("internal error: a chart unit's ends disagree");
	runs_put(b, nsuf);
	d = tree_depth(b->ti->tree, ub->last);
	for (size_t k = ub->nstk; k-- > 0;)
		if (ub->stk[2 * k] < d) {
			runs_put(b, d - ub->stk[2 * k]);
			runs_put(b, ub->w - ub->stk[2 * k + 1]);
			d = (uint32_t)ub->stk[2 * k];
		}
	ub->n = 0;
}

/* One more sample of the unit, sharing c frames with the unit's sample
 * before (UINT32_MAX: to be found); true when the unit is full. */
static bool ubuild_add(struct build *b, struct ubuild *ub, const struct timeline_sample *s, uint32_t c)
{
	const struct tree *t = b->ti->tree;
	if (ub->n == 0) {
		ub->first = s->leaf;
		ub->a = tree_depth(t, s->leaf);
		ub->w = 0;
		ub->npre = ub->nstk = 0;
		ub->tmin = ub->tmax = s->time;
		ub->pos0 = b->pos;
	} else {
		if (c == UINT32_MAX)
			c = s->leaf == ub->last ? tree_depth(t, s->leaf) : shared_depth(t, ub->last, s->leaf);
		if (c < ub->a) {
			pair_push(&ub->pre, &ub->npre, &ub->cappre, ub->a - c, ub->w);
			ub->a = c;
		}
		while (ub->nstk && ub->stk[2 * (ub->nstk - 1)] >= c)
			ub->nstk--;
		pair_push(&ub->stk, &ub->nstk, &ub->capstk, c, ub->w);
		if (s->time < ub->tmin)
			ub->tmin = s->time;
		if (s->time > ub->tmax)
			ub->tmax = s->time;
	}
	ub->last = s->leaf;
	ub->w = sat_add(ub->w, s->weight);
	ub->pos1 = b->pos;
	return ++ub->n == TIMEINDEX_UNIT;
}

static void ubuild_free(struct ubuild *ub)
{
	free(ub->pre);
	free(ub->stk);
}

static struct timeindex_unit *uvec_push(struct uvec *v)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 16;
		v->u = xreallocarray(v->u, v->cap, sizeof *v->u);
	}
	return &v->u[v->n++];
}

static void take(struct build *b, const struct timeline_sample *s)
{
	struct timeindex *ti = b->ti;
	uint32_t bin = timeindex_bin(ti, s->time);
	ti->cum[bin + 1]++;
	struct tstate *t = &b->ts[s->thread];
	if (t->count && (t->bin != bin || t->count == UINT32_MAX))
		thread_flush(t);
	t->bin = bin;
	t->count++;
	{
		/* without the triples a key only sums (its bin does not count) */
		uint32_t i = key_of(b, s->thread, s->leaf);
		struct khot *h = &b->hot[i];
		if (h->count && ((b->triples && h->bin != bin) || h->count == UINT32_MAX))
			key_flush(b, i);
		if (h->count == 0) {
			h->bin = bin;
			h->weight = 0;
		}
		h->count++;
		h->weight = sat_add(h->weight, s->weight);
	}
	if (s->weight != 1)
		b->weighted = true;
	/* the thread's sample before is most often the timeline's: the same
	 * frames shared */
	uint32_t c = UINT32_MAX;
	if (b->ub.n && t->ub.n && b->ub.last == t->ub.last) {
		c = s->leaf == b->ub.last ? tree_depth(ti->tree, s->leaf) : shared_depth(ti->tree, b->ub.last, s->leaf);
	}
	if (ubuild_add(b, &t->ub, s, c))
		ubuild_close(b, &t->ub, uvec_push(&t->units));
	if (ubuild_add(b, &b->ub, s, c))
		ubuild_close(b, &b->ub, &ti->units[ti->nunits++]);
	b->pos++;
}

#define AHEAD 16u

/* Every sample once; false when told to stop. */
static bool pass(struct build *b)
{
	const struct timeline *tl = b->ti->tl;
	size_t nself = tree_size(b->ti->tree);
	for (size_t i = 0; i < tl->nblocks; i++) {
		if (b->stop && (i & 63) == 0 && atomic_load_explicit(b->stop, memory_order_relaxed))
			return false;
		struct timeline_cursor c;
		timeline_cursor_block(&c, tl, i);
		/* Samples are read AHEAD before they are taken, their keys'
		 * memory and their leaves' nodes fetched meanwhile: a sample's
		 * stack is seldom the one before's, and those reads miss. */
		struct timeline_sample ring[AHEAD];
		unsigned head = 0, n = 0;
		while (c.left || n) {
			while (c.left && n < AHEAD) {
				timeline_cursor_next(&c);
				if (c.cur.leaf >= nself || c.cur.thread >= tl->nthreads)
					xdie("internal error: a timeline sample beyond its tree or threads");
				struct timeline_sample *r = &ring[(head + n++) % AHEAD];
				*r = c.cur;
				__builtin_prefetch(tree_node(b->ti->tree, r->leaf));
				if (b->dense)
					__builtin_prefetch(dense_at(b, r->thread, r->leaf));
				/* half way: the key's dense entry is in, its hot one
				 * is fetched */
				if (b->dense && n > AHEAD / 2) {
					const struct timeline_sample *m = &ring[(head + n - 1 - AHEAD / 2) % AHEAD];
					uint32_t k = *dense_at(b, m->thread, m->leaf);
					if (k)
						__builtin_prefetch(&b->hot[k - 1]);
				}
			}
			take(b, &ring[head]);
			head = (head + 1) % AHEAD;
			n--;
		}
	}
	for (size_t i = 0; i < tl->nthreads; i++)
		if (b->ts[i].count)
			thread_flush(&b->ts[i]);
	for (size_t i = 0; i < b->nkeys; i++)
		if (b->hot[i].count)
			key_flush(b, (uint32_t)i);
	if (b->ub.n)
		ubuild_close(b, &b->ub, &b->ti->units[b->ti->nunits++]);
	for (size_t i = 0; i < tl->nthreads; i++)
		if (b->ts[i].ub.n)
			ubuild_close(b, &b->ts[i].ub, uvec_push(&b->ts[i].units));
	return true;
}

/* The threads' units, one after the other. */
static void write_units(struct build *b)
{
	struct timeindex *ti = b->ti;
	size_t n = 0;
	for (size_t i = 0; i < ti->tl->nthreads; i++)
		n += b->ts[i].units.n;
	ti->tunits = xmalloc((n ? n : 1) * sizeof *ti->tunits);
	n = 0;
	for (size_t i = 0; i < ti->tl->nthreads; i++) {
		struct uvec *v = &b->ts[i].units;
		ti->threads[i].unit0 = n;
		ti->threads[i].nunits = v->n;
		if (v->n)
			memcpy(ti->tunits + n, v->u, v->n * sizeof *v->u);
		n += v->n;
		free(v->u);
		v->u = NULL;
	}
	ti->ntunits = n;
}

/* Each thread's pairs as varints. */
static void write_pairs(struct build *b)
{
	struct timeindex *ti = b->ti;
	const struct timeline *tl = ti->tl;
	size_t at = 0;
	for (size_t i = 0; i < tl->nthreads; i++) {
		const struct tstate *t = &b->ts[i];
		uint32_t prev = 0;
		ti->threads[i].bins_off = at;
		for (size_t k = 0; k < t->npairs; k++) {
			at += vlen(timeline_zigzag((int64_t)t->pairs[2 * k] - (int64_t)prev)) + vlen(t->pairs[2 * k + 1]);
			prev = t->pairs[2 * k];
		}
		ti->threads[i].bins_len = at - ti->threads[i].bins_off;
		ti->threads[i].nbins = t->npairs;
	}
	ti->tbins = xmalloc(at ? at : 1);
	ti->tbins_len = at;
	unsigned char *p = ti->tbins;
	for (size_t i = 0; i < tl->nthreads; i++) {
		struct tstate *t = &b->ts[i];
		uint32_t prev = 0;
		for (size_t k = 0; k < t->npairs; k++) {
			p = timeline_put_varint(p, timeline_zigzag((int64_t)t->pairs[2 * k] - (int64_t)prev));
			p = timeline_put_varint(p, t->pairs[2 * k + 1]);
			prev = t->pairs[2 * k];
		}
		free(t->pairs);
		t->pairs = NULL;
	}
}

struct order {
	uint32_t thread;
	tree_idx leaf;
	uint32_t key;
};

static int order_cmp(const void *pa, const void *pb)
{
	const struct order *a = pa, *b = pb;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	return a->leaf < b->leaf ? -1 : a->leaf > b->leaf;
}

/* The lists: each thread's leaves in order, a header each, then the
 * triples in the order they were recorded. */
static void write_hist(struct build *b)
{
	struct timeindex *ti = b->ti;
	if (!b->triples) {
		/* the totals alone */
		for (size_t i = 0; i < b->nkeys; i++)
			b->keys[i].nent = b->keys[i].bytes = b->keys[i].wbytes = 0;
		b->nrec = 0;
	}
	struct order *o = xmalloc((b->nkeys ? b->nkeys : 1) * sizeof *o);
	for (size_t i = 0; i < b->nkeys; i++)
		o[i] = (struct order){ b->keys[i].thread, b->keys[i].leaf, (uint32_t)i };
	qsort(o, b->nkeys, sizeof *o, order_cmp);
	size_t total = 0;
	tree_idx prevleaf = 0;
	for (size_t i = 0; i < b->nkeys; i++) {
		const struct key *k = &b->keys[o[i].key];
		if (i == 0 || o[i - 1].thread != k->thread)
			prevleaf = 0;
		uint64_t eb = k->bytes + (b->weighted ? k->wbytes : 0);
		total += vlen(timeline_zigzag((int64_t)k->leaf - (int64_t)prevleaf)) + vlen(k->nent) + vlen(k->tot_count) +
		         (b->weighted ? vlen(k->tot_weight) : 0) + vlen(eb) + eb;
		prevleaf = k->leaf;
	}
	ti->hist = xmalloc(total ? total : 1);
	ti->hist_len = total;
	unsigned char *p = ti->hist;
	for (size_t i = 0; i < b->nkeys; i++) {
		struct key *k = &b->keys[o[i].key];
		struct timeindex_thread *th = &ti->threads[k->thread];
		if (i == 0 || o[i - 1].thread != k->thread) {
			prevleaf = 0;
			th->hist_off = (size_t)(p - ti->hist);
		}
		uint64_t eb = k->bytes + (b->weighted ? k->wbytes : 0);
		p = timeline_put_varint(p, timeline_zigzag((int64_t)k->leaf - (int64_t)prevleaf));
		p = timeline_put_varint(p, k->nent);
		p = timeline_put_varint(p, k->tot_count);
		if (b->weighted)
			p = timeline_put_varint(p, k->tot_weight);
		p = timeline_put_varint(p, eb);
		k->at = (size_t)(p - ti->hist);
		k->prev = 0;
		p += eb;
		th->hist_len = (size_t)(p - ti->hist) - th->hist_off;
		th->nkeys++;
		th->nhist += k->nent;
		ti->nhist += k->nent;
		prevleaf = k->leaf;
	}
	free(o);
	for (size_t r = 0; r < b->nrec; r++) {
		struct key *k = &b->keys[b->rec[3 * r]];
		uint32_t bin = b->rec[3 * r + 1];
		unsigned char *q = timeline_put_varint(ti->hist + k->at, timeline_zigzag((int64_t)bin - (int64_t)k->prev));
		q = timeline_put_varint(q, b->rec[3 * r + 2]);
		if (b->weighted)
			q = timeline_put_varint(q, b->recw[r]);
		k->at = (size_t)(q - ti->hist);
		k->prev = bin;
	}
	ti->has_triples = b->triples;
}

static struct timeindex *index_build(const struct timeline *tl, const struct tree *t, atomic_bool *stop)
{
	if (!tl || tl->n == 0)
		return NULL;
	struct timespec c0, c1;
	clock_gettime(CLOCK_MONOTONIC, &c0);
	struct timeindex *ti = xcalloc(1, sizeof *ti);
	ti->tl = tl;
	ti->tree = t;
	ti->t0 = tl->tmin;
	ti->bin_ns = bin_width(tl->tmax - tl->tmin);
	ti->nbins = timeindex_bin(ti, tl->tmax) + 1;
	ti->cum = xcalloc((size_t)ti->nbins + 1, sizeof *ti->cum);
	ti->threads = xcalloc(tl->nthreads + 1, sizeof *ti->threads);
	ti->units = xmalloc((size_t)((tl->n + TIMEINDEX_UNIT - 1) / TIMEINDEX_UNIT) * sizeof *ti->units);

	struct build *b = xcalloc(1, sizeof *b);
	b->ti = ti;
	b->stop = stop;
	b->ts = xcalloc(tl->nthreads + 1, sizeof *b->ts);
	b->triples = true;
	b->maxrec = tl->n / 2;
	/* a table by leaf and thread while it is a small share of the
	 * timeline (a 10,000-node tree on 8 threads: 320 KB), else a hash */
	if (tree_size(t) <= DENSE_MAX / (tl->nthreads + 1) && tree_size(t) * (tl->nthreads + 1) <= tl->n)
		b->dense = xcalloc(tree_size(t) * tl->nthreads + 1, sizeof *b->dense);
	else
		slots_grow(b);
	bool done = pass(b);
	if (done) {
		for (uint32_t i = 0; i < ti->nbins; i++)
			ti->cum[i + 1] += ti->cum[i];
		write_pairs(b);
		write_units(b);
		ti->weighted = b->weighted;
		write_hist(b);
		ti->runs = b->runs ? xrealloc(b->runs, b->nruns ? b->nruns : 1) : xmalloc(1);
		ti->runs_len = b->nruns;
	} else {
		for (size_t i = 0; i < tl->nthreads; i++) {
			free(b->ts[i].pairs);
			free(b->ts[i].units.u);
		}
		free(b->runs);
		timeindex_free(ti);
		ti = NULL;
	}
	for (size_t i = 0; i < tl->nthreads; i++)
		ubuild_free(&b->ts[i].ub);
	ubuild_free(&b->ub);
	free(b->rec);
	free(b->recw);
	free(b->dense);
	free(b->slots);
	free(b->keys);
	free(b->hot);
	free(b->ts);
	free(b);
	clock_gettime(CLOCK_MONOTONIC, &c1);
	if (ti)
		ti->build_ms = (double)(c1.tv_sec - c0.tv_sec) * 1e3 + (double)(c1.tv_nsec - c0.tv_nsec) / 1e6;
	return ti;
}

struct timeindex *timeindex_new(const struct timeline *tl, const struct tree *t)
{
	return index_build(tl, t, NULL);
}

/* ---- in the background ---- */

struct timeindex_job {
	const struct timeline *tl;
	const struct tree *t;
	struct timeindex *ti;
	pthread_t thread;
	bool running;
	atomic_bool stop, ready;
};

static void *job_main(void *arg)
{
	struct timeindex_job *j = arg;
	j->ti = index_build(j->tl, j->t, &j->stop);
	atomic_store(&j->ready, true);      /* publishes j->ti */
	return NULL;
}

struct timeindex_job *timeindex_start(const struct timeline *tl, const struct tree *t)
{
	struct timeindex_job *j = xcalloc(1, sizeof *j);
	j->tl = tl;
	j->t = t;
	atomic_init(&j->stop, false);
	atomic_init(&j->ready, false);
	if (pthread_create(&j->thread, NULL, job_main, j) == 0) {
		j->running = true;
	} else {
		j->ti = index_build(tl, t, NULL);   /* no thread: here and now */
		atomic_store(&j->ready, true);
	}
	return j;
}

bool timeindex_done(struct timeindex_job *j)
{
	return atomic_load(&j->ready);
}

struct timeindex *timeindex_join(struct timeindex_job *j)
{
	if (j->running)
		pthread_join(j->thread, NULL);
	struct timeindex *ti = j->ti;
	free(j);
	return ti;
}

void timeindex_cancel(struct timeindex_job *j)
{
	if (!j)
		return;
	atomic_store(&j->stop, true);
	timeindex_free(timeindex_join(j));
}

void timeindex_free(struct timeindex *ti)
{
	if (!ti)
		return;
	free(ti->cum);
	free(ti->threads);
	free(ti->tbins);
	free(ti->hist);
	free(ti->runs);
	free(ti->units);
	free(ti->tunits);
	free(ti);
}

size_t timeindex_bytes(const struct timeindex *ti)
{
	if (!ti)
		return 0;
	return sizeof *ti + ((size_t)ti->nbins + 1) * sizeof *ti->cum +
	       ti->tl->nthreads * sizeof *ti->threads + ti->tbins_len + ti->hist_len + ti->runs_len +
	       (ti->nunits + ti->ntunits) * sizeof *ti->units;
}
