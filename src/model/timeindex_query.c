/* timeindex_query: the heat map's cells, the search's cells, the
 * sparklines and a range's tree, from the aggregates (see timeindex.h);
 * what they lack, from passes over the samples on two threads. */
#include "config.h"
#include "timeindex_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

/* ---- heat map cells ---------------------------------------------------------- */

/* Cells of k bins: the cell of a bin, dividing only when it leaves the
 * cell of the bin before (pairs and triples mostly come in bin order). */
struct cellof {
	uint64_t k, cell, lo, hi;
};

static uint64_t cell_of(struct cellof *c, uint64_t bin)
{
	if (bin < c->lo || bin >= c->hi) {
		c->cell = bin / c->k;
		c->lo = c->cell * c->k;
		c->hi = c->lo + c->k;
	}
	return c->cell;
}

/* A thread's pairs, each added to (sign > 0) or taken from acc[cell]. */
static void add_pairs(const struct timeindex *ti, uint32_t th, struct cellof *co, uint64_t *acc,
                      size_t ncells, bool add)
{
	const struct timeindex_thread *t = &ti->threads[th];
	const unsigned char *p = ti->tbins + t->bins_off;
	uint64_t bin = 0;
	for (uint64_t i = 0; i < t->nbins; i++) {
		bin += (uint64_t)unzz(get(&p));
		uint64_t n = get(&p), c = cell_of(co, bin);
		if (c < ncells) {
			if (add)
				acc[c] += n;
			else
				acc[c] -= n;
		}
	}
}

/* acc[j] = all threads' samples in cell j. */
static void all_cells(const struct timeindex *ti, uint64_t k, uint64_t *acc, size_t ncells)
{
	for (size_t j = 0; j < ncells; j++) {
		uint64_t lo = j * k;
		if (lo >= ti->nbins || lo / k != j)
			break;
		uint64_t hi = lo + k < ti->nbins ? lo + k : ti->nbins;
		acc[j] = ti->cum[hi] - ti->cum[lo];
	}
}

static void saturate(const uint64_t *acc, size_t ncells, uint32_t *out, uint64_t *counted)
{
	uint64_t total = 0;
	for (size_t j = 0; j < ncells; j++) {
		total += acc[j];
		out[j] = acc[j] > UINT32_MAX ? UINT32_MAX : (uint32_t)acc[j];
	}
	if (counted)
		*counted = total;
}

bool timeindex_cells(const struct timeindex *ti, const bool *threads, uint64_t cell_ns,
                     size_t ncells, uint32_t *cells, uint64_t *counted)
{
	if (cell_ns == 0 || cell_ns % ti->bin_ns)
		return false;
	struct cellof co = { cell_ns / ti->bin_ns, 0, 1, 0 };
	uint64_t *acc = xcalloc(ncells ? ncells : 1, sizeof *acc);
	if (!threads) {
		all_cells(ti, co.k, acc, ncells);
	} else {
		/* the chosen threads' pairs, or all less the others' */
		uint64_t in = 0, out = 0;
		for (size_t i = 0; i < ti->tl->nthreads; i++)
			*(threads[i] ? &in : &out) += ti->threads[i].nbins;
		bool direct = in <= out;
		if (!direct)
			all_cells(ti, co.k, acc, ncells);
		for (uint32_t i = 0; i < ti->tl->nthreads; i++)
			if (threads[i] == direct)
				add_pairs(ti, i, &co, acc, ncells, direct);
	}
	saturate(acc, ncells, cells, counted);
	free(acc);
	return true;
}

/* One leaf's list in a thread's part of hist: where it is and what it
 * holds. */
struct leaflist {
	tree_idx leaf;
	uint64_t nent, count, weight;
	const unsigned char *ent, *end;
};

static const unsigned char *leaflist_next(const struct timeindex *ti, const unsigned char *p,
                                          struct leaflist *l)
{
	l->leaf = (tree_idx)((int64_t)l->leaf + unzz(get(&p)));
	l->nent = get(&p);
	l->count = get(&p);
	l->weight = ti->weighted ? get(&p) : l->count;
	uint64_t bytes = get(&p);
	l->ent = p;
	l->end = p + bytes;
	return l->end;
}

/* The leaf lists of the chosen threads (threads NULL: all), one after
 * another: leafwalk_next gives the next in w->l. */
struct leafwalk {
	const struct timeindex *ti;
	const bool *threads;
	size_t thread;
	const unsigned char *p, *end;
	struct leaflist l;
};

static void leafwalk_start(struct leafwalk *w, const struct timeindex *ti, const bool *threads)
{
	*w = (struct leafwalk){ ti, threads, 0, NULL, NULL, { 0 } };
}

static bool leafwalk_next(struct leafwalk *w)
{
	const struct timeindex *ti = w->ti;
	while (w->p == w->end) {
		while (w->thread < ti->tl->nthreads && w->threads && !w->threads[w->thread])
			w->thread++;
		if (w->thread == ti->tl->nthreads)
			return false;
		const struct timeindex_thread *t = &ti->threads[w->thread++];
		w->p = ti->hist + t->hist_off;
		w->end = w->p + t->hist_len;
		w->l.leaf = 0;
	}
	w->p = leaflist_next(ti, w->p, &w->l);
	return true;
}

/* A triple of a leaf's list. */
static void triple(const struct timeindex *ti, const unsigned char **p, uint64_t *bin, uint64_t *count,
                   uint64_t *weight)
{
	*bin += (uint64_t)unzz(get(p));
	*count = get(p);
	*weight = ti->weighted ? get(p) : *count;
}

static void add_triples(const struct timeindex *ti, const struct leaflist *l, struct cellof *co,
                        uint64_t *acc, size_t ncells, bool add)
{
	const unsigned char *p = l->ent;
	uint64_t bin = 0, n, w;
	for (uint64_t i = 0; i < l->nent; i++) {
		triple(ti, &p, &bin, &n, &w);
		uint64_t c = cell_of(co, bin);
		if (c < ncells) {
			if (add)
				acc[c] += n;
			else
				acc[c] -= n;
		}
	}
}

/* ---- passes over the samples, on two threads ---- */

/* fn over the blocks [b0, b1) with state arg; split2 runs it on the first
 * half of the blocks [b0, b1) here and on the second on a thread of its
 * own, each with its state (a0, a1), when they are enough to pay for the
 * thread (else both here, one after the other). */
typedef void blocks_fn(void *arg, size_t b0, size_t b1);

struct half {
	blocks_fn *fn;
	void *arg;
	size_t b0, b1;
};

static void *half_main(void *p)
{
	struct half *h = p;
	h->fn(h->arg, h->b0, h->b1);
	return NULL;
}

#define SPLIT_MIN_BLOCKS 512u      /* half a million samples */

static void split2(size_t b0, size_t b1, blocks_fn *fn, void *a0, void *a1)
{
	size_t mid = b0 + (b1 - b0) / 2;
	struct half second = { fn, a1, mid, b1 };
	pthread_t thr;
	bool on = b1 - b0 >= SPLIT_MIN_BLOCKS && pthread_create(&thr, NULL, half_main, &second) == 0;
	fn(a0, b0, mid);
	if (on)
		pthread_join(thr, NULL);
	else
		fn(a1, mid, b1);
}

/* The search's samples per cell, sample by sample (no triples). */
struct hitpass {
	const struct timeindex *ti;
	const bool *threads, *in;
	uint64_t cell_ns;
	size_t ncells;
	uint64_t *acc;              /* NULL: its own, made here */
};

static void hitpass_blocks(void *arg, size_t b0, size_t b1)
{
	struct hitpass *h = arg;
	const struct timeindex *ti = h->ti;
	const struct timeline *tl = ti->tl;
	size_t nself = tree_size(ti->tree);
	if (!h->acc)
		h->acc = xcalloc(h->ncells ? h->ncells : 1, sizeof *h->acc);
	/* the cell of the sample before is tried first, by its times */
	uint64_t lo = 1, hi = 0, cell = 0;
	for (size_t b = b0; b < b1; b++) {
		struct timeline_cursor c;
		timeline_cursor_block(&c, tl, b);
		while (c.left) {
			timeline_cursor_next(&c);
			const struct timeline_sample *s = &c.cur;
			if ((h->threads && !h->threads[s->thread]) || s->leaf >= nself || !h->in[s->leaf])
				continue;
			if (s->time < lo || s->time >= hi) {
				cell = (s->time - ti->t0) / h->cell_ns;
				lo = ti->t0 + cell * h->cell_ns;
				hi = lo + h->cell_ns;
			}
			if (cell < h->ncells)
				h->acc[cell]++;
		}
	}
}

bool timeindex_hits(const struct timeindex *ti, const bool *threads, const bool *in,
                    uint64_t cell_ns, size_t ncells, uint32_t *hits, uint64_t *counted)
{
	if (cell_ns == 0 || cell_ns % ti->bin_ns)
		return false;
	struct cellof co = { cell_ns / ti->bin_ns, 0, 1, 0 };
	uint64_t *acc = xcalloc(ncells ? ncells : 1, sizeof *acc);
	size_t nself = tree_size(ti->tree);
	const struct timeline *tl = ti->tl;
	if (!ti->has_triples) {
		/* every sample: the two halves of the timeline at once */
		struct hitpass h[2];
		for (int k = 0; k < 2; k++)
			h[k] = (struct hitpass){ ti, threads, in, cell_ns, ncells, k ? NULL : acc };
		split2(0, tl->nblocks, hitpass_blocks, &h[0], &h[1]);
		for (size_t j = 0; j < ncells && h[1].acc; j++)
			acc[j] += h[1].acc[j];
		free(h[1].acc);
	}
	for (uint32_t i = 0; i < tl->nthreads && ti->has_triples; i++) {
		if (threads && !threads[i])
			continue;
		const struct timeindex_thread *t = &ti->threads[i];
		const unsigned char *p = ti->hist + t->hist_off, *end = p + t->hist_len;
		/* the marked leaves' triples, or the thread's pairs less the
		 * others' triples: whichever reads fewer */
		uint64_t marked = 0;
		struct leaflist l = { 0 };
		for (const unsigned char *q = p; q < end;) {
			q = leaflist_next(ti, q, &l);
			if (l.leaf < nself && in[l.leaf])
				marked += l.nent;
		}
		bool direct = marked <= t->nhist - marked + t->nbins;
		if (!direct)
			add_pairs(ti, i, &co, acc, ncells, true);
		l.leaf = 0;
		while (p < end) {
			p = leaflist_next(ti, p, &l);
			if ((l.leaf < nself && in[l.leaf]) == direct)
				add_triples(ti, &l, &co, acc, ncells, direct);
		}
	}
	saturate(acc, ncells, hits, counted);
	free(acc);
	return true;
}

void timeindex_spark(const struct timeindex *ti, uint32_t thread, uint32_t width, uint32_t *out)
{
	memset(out, 0, width * sizeof *out);
	if (width == 0 || thread >= ti->tl->nthreads)
		return;
	const struct timeindex_thread *t = &ti->threads[thread];
	const unsigned char *p = ti->tbins + t->bins_off;
	uint64_t bin = 0, nb = ti->nbins, k = 0, lo = 1, hi = 0;
	for (uint64_t i = 0; i < t->nbins; i++) {
		bin += (uint64_t)unzz(get(&p));
		uint64_t n = get(&p);
		if (bin < lo || bin >= hi) {
			/* bucket k holds the bins from ceil(k nb / w) on */
			k = bin * width / nb;
			lo = (k * nb + width - 1) / width;
			hi = ((k + 1) * nb + width - 1) / width;
		}
		if (k < width)
			out[k] = out[k] + n > UINT32_MAX ? UINT32_MAX : (uint32_t)(out[k] + n);
	}
}

/* ---- a range's tree ----------------------------------------------------------- */

/* timeline_self over some blocks (self NULL: its own, made here). */
struct selfpass {
	const struct timeline *tl;
	uint64_t t0, t1;
	const bool *threads;
	uint64_t *self;
	size_t nself;
	uint64_t n;
};

static void selfpass_blocks(void *arg, size_t b0, size_t b1)
{
	struct selfpass *p = arg;
	const struct timeline *tl = p->tl;
	if (!p->self)
		p->self = xcalloc(p->nself ? p->nself : 1, sizeof *p->self);
	for (size_t b = b0; b < b1; b++) {
		const struct timeline_block *bl = &tl->blocks[b];
		if (bl->tmax < p->t0 || bl->tmin >= p->t1)
			continue;
		struct timeline_cursor c;
		timeline_cursor_block(&c, tl, b);
		bool inside = bl->tmin >= p->t0 && bl->tmax < p->t1;
		while (c.left) {
			timeline_cursor_next(&c);
			const struct timeline_sample *s = &c.cur;
			if ((!inside && (s->time < p->t0 || s->time >= p->t1)) || (p->threads && !p->threads[s->thread]))
				continue;
			if (s->leaf >= p->nself)
				xdie("internal error: a timeline leaf beyond its tree");
			p->self[s->leaf] = sat_add(p->self[s->leaf], s->weight);
			p->n++;
		}
	}
}

/* timeline_self, on two threads when the range holds many samples. */
static uint64_t self_pass(const struct timeindex *ti, uint64_t t0, uint64_t t1, const bool *threads,
                          uint64_t *self, size_t nself, uint64_t samples)
{
	const struct timeline *tl = ti->tl;
	if (samples < SPLIT_MIN_BLOCKS * (uint64_t)TIMELINE_BLOCK)
		return timeline_self(tl, t0, t1, threads, self, nself);
	/* the blocks from the first to the last that reach into the range */
	size_t b0 = 0, b1 = tl->nblocks;
	while (b0 < b1 && (tl->blocks[b0].tmax < t0 || tl->blocks[b0].tmin >= t1))
		b0++;
	while (b1 > b0 && (tl->blocks[b1 - 1].tmax < t0 || tl->blocks[b1 - 1].tmin >= t1))
		b1--;
	struct selfpass p[2];
	for (int k = 0; k < 2; k++)
		p[k] = (struct selfpass){ tl, t0, t1, threads, k ? NULL : self, nself, 0 };
	split2(b0, b1, selfpass_blocks, &p[0], &p[1]);
	for (size_t i = 0; i < nself; i++)
		self[i] = sat_add(self[i], p[1].self[i]);
	free(p[1].self);
	return p[0].n + p[1].n;
}

static uint64_t add_to(uint64_t *self, size_t nself, tree_idx leaf, uint64_t w)
{
	if (leaf >= nself)
		xdie("internal error: a timeline leaf beyond its tree");
	self[leaf] = sat_add(self[leaf], w);
	return w;
}

uint64_t timeindex_self(const struct timeindex *ti, uint64_t t0, uint64_t t1, const bool *threads,
                        uint64_t *self, size_t nself)
{
	const struct timeline *tl = ti->tl;
	if (t0 >= t1 || t1 <= tl->tmin || t0 > tl->tmax)
		return 0;
	bool from_start = t0 <= tl->tmin, to_end = t1 > tl->tmax;
	uint64_t hcost = 0;
	for (size_t i = 0; i < tl->nthreads; i++)
		if (!threads || threads[i])
			hcost += ti->threads[i].nhist;
	uint64_t n = 0;
	if (from_start && to_end) {
		/* the whole recording: the lists' totals */
		struct leafwalk w;
		leafwalk_start(&w, ti, threads);
		while (leafwalk_next(&w)) {
			add_to(self, nself, w.l.leaf, w.l.weight);
			n += w.l.count;
		}
		return n;
	}
	/* the whole bins [jlo, jhi) inside the range */
	uint64_t B = ti->bin_ns;
	uint64_t jlo = from_start ? 0 : (t0 - ti->t0) / B + ((t0 - ti->t0) % B != 0);
	uint64_t jhi = to_end ? ti->nbins : (t1 - ti->t0) / B;
	if (jhi > ti->nbins)
		jhi = ti->nbins;
	uint64_t first = from_start ? 0 : timeindex_bin(ti, t0);
	uint64_t last = to_end ? ti->nbins - 1 : timeindex_bin(ti, t1 - 1 < tl->tmax ? t1 - 1 : tl->tmax);
	uint64_t samples = ti->cum[last + 1] - ti->cum[first];
	if (jlo >= jhi || samples <= hcost || !ti->has_triples)
		return self_pass(ti, t0, t1, threads, self, nself, samples);
	struct leafwalk lw;
	leafwalk_start(&lw, ti, threads);
	while (leafwalk_next(&lw)) {
		const unsigned char *q = lw.l.ent;
		uint64_t bin = 0, c, w, sum = 0;
		for (uint64_t k = 0; k < lw.l.nent; k++) {
			triple(ti, &q, &bin, &c, &w);
			if (bin >= jlo && bin < jhi) {
				sum = sat_add(sum, w);
				n += c;
			}
		}
		if (sum)
			add_to(self, nself, lw.l.leaf, sum);
	}
	/* the cut bins at the ends, sample by sample */
	if (!from_start)
		n += timeline_self(tl, t0, ti->t0 + jlo * B, threads, self, nself);
	if (!to_end)
		n += timeline_self(tl, ti->t0 + jhi * B, t1, threads, self, nself);
	return n;
}
