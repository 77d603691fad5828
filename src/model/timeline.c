/* timeline: per-sample time, thread and stack (see timeline.h).
 *
 * An entry is coded against the one before it in its block:
 *   head   varint: zigzag(time delta) << 4 | flags, the delta in us when
 *          it is a whole number of them (flag KILO: perf script's times)
 *   [time] varint, when flag ABS (a delta too big for the head)
 *   leaf   varint: zigzag(leaf - previous leaf)
 *   [thread] varint, when flag THREAD (it changed)
 *   [weight] varint, when flag WEIGHT (it changed)
 * A block starts from the baseline (time 0, leaf 0, thread 0, weight 1),
 * so it decodes without the blocks before it. A perf sample on the thread
 * and with the period of the one before costs 4-6 bytes. */
#include "config.h"
#include "timeline.h"

#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

enum { F_THREAD = TIMELINE_F_THREAD, F_WEIGHT = TIMELINE_F_WEIGHT, F_ABS = TIMELINE_F_ABS,
       F_KILO = TIMELINE_F_KILO };

static void materialize(struct timeline *tl);

static void baseline(uint64_t *t, tree_idx *leaf, uint32_t *thread, uint64_t *w)
{
	*t = 0;
	*leaf = 0;
	*thread = 0;
	*w = 1;
}

void timeline_init(struct timeline *tl)
{
	memset(tl, 0, sizeof *tl);
	baseline(&tl->prev_t, &tl->prev_leaf, &tl->prev_thread, &tl->prev_w);
}

void timeline_free(struct timeline *tl)
{
	for (size_t i = 0; i < tl->nthreads; i++)
		free(tl->threads[i].comm);
	free(tl->threads);
	free(tl->thash);
	free(tl->buf);
	free(tl->blocks);
	free(tl->map);
	timeline_init(tl);
}

/* ---- threads -------------------------------------------------------------- */

static uint64_t thread_hash(int64_t pid, int64_t tid, const char *comm, size_t len)
{
	uint64_t h = timeline_mix((uint64_t)pid * 0x9e3779b97f4a7c15ULL ^ timeline_mix((uint64_t)tid));
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)comm[i]) * 0x100000001b3ULL;
	return timeline_mix(h);
}

static bool thread_is(const struct timeline_thread *th, int64_t pid, int64_t tid,
                      const char *comm, size_t len)
{
	return th->pid == pid && th->tid == tid && strlen(th->comm) == len &&
	       memcmp(th->comm, comm, len) == 0;
}

static void thash_put(uint32_t *tab, size_t cap, uint64_t h, uint32_t idx)
{
	size_t k = h & (cap - 1);
	while (tab[k])
		k = (k + 1) & (cap - 1);
	tab[k] = idx + 1;
}

uint32_t timeline_thread(struct timeline *tl, int64_t pid, int64_t tid, const char *comm,
                         size_t len)
{
	/* a NUL would end the stored name early: the name ends there */
	const char *nul = len ? memchr(comm, '\0', len) : NULL;
	if (nul)
		len = (size_t)(nul - comm);
	uint64_t h = thread_hash(pid, tid, comm, len);
	if (tl->capthash) {
		for (size_t k = h & (tl->capthash - 1); tl->thash[k]; k = (k + 1) & (tl->capthash - 1))
			if (thread_is(&tl->threads[tl->thash[k] - 1], pid, tid, comm, len))
				return tl->thash[k] - 1;
	}
	if (tl->nthreads >= UINT32_MAX - 1)
		xdie("too many threads (more than %u)", UINT32_MAX - 1);
	if ((tl->nthreads + 1) * 2 > tl->capthash) {
		size_t cap = tl->capthash ? tl->capthash * 2 : 64;
		uint32_t *tab = xcalloc(cap, sizeof *tab);
		for (size_t i = 0; i < tl->nthreads; i++) {
			const struct timeline_thread *th = &tl->threads[i];
			thash_put(tab, cap, thread_hash(th->pid, th->tid, th->comm, strlen(th->comm)),
			          (uint32_t)i);
		}
		free(tl->thash);
		tl->thash = tab;
		tl->capthash = cap;
	}
	if (tl->nthreads == tl->capthreads) {
		tl->capthreads = tl->capthreads ? tl->capthreads * 2 : 16;
		tl->threads = xreallocarray(tl->threads, tl->capthreads, sizeof *tl->threads);
	}
	uint32_t idx = (uint32_t)tl->nthreads++;
	char *c = xmalloc(len + 1);
	memcpy(c, comm, len);
	c[len] = '\0';
	tl->threads[idx] = (struct timeline_thread){ pid, tid, c, 0, 0 };
	thash_put(tl->thash, tl->capthash, h, idx);
	return idx;
}

/* ---- coding ---------------------------------------------------------------- */

static void put_varint(struct timeline *tl, uint64_t v)
{
	tl->len = (size_t)(timeline_put_varint(tl->buf + tl->len, v) - tl->buf);
}

/* Codes one entry (no thread statistics). */
static void encode(struct timeline *tl, const struct timeline_sample *s)
{
	if (tl->n % TIMELINE_BLOCK == 0) {
		if (tl->nblocks == tl->capblocks) {
			tl->capblocks = tl->capblocks ? tl->capblocks * 2 : 64;
			tl->blocks = xreallocarray(tl->blocks, tl->capblocks, sizeof *tl->blocks);
		}
		tl->blocks[tl->nblocks++] = (struct timeline_block){ tl->len, s->time, s->time };
		baseline(&tl->prev_t, &tl->prev_leaf, &tl->prev_thread, &tl->prev_w);
	}
	/* 5 varints of at most 10 bytes */
	if (tl->cap - tl->len < 50) {
		tl->cap = tl->cap ? tl->cap * 2 : 4096;
		tl->buf = xrealloc(tl->buf, tl->cap);
	}
	struct timeline_block *b = &tl->blocks[tl->nblocks - 1];
	if (s->time < b->tmin)
		b->tmin = s->time;
	if (s->time > b->tmax)
		b->tmax = s->time;
	if (tl->n == 0 || s->time < tl->tmin)
		tl->tmin = s->time;
	if (tl->n == 0 || s->time > tl->tmax)
		tl->tmax = s->time;

	int64_t dt = (int64_t)(s->time - tl->prev_t);
	unsigned flags = (s->thread != tl->prev_thread ? F_THREAD : 0) |
	                 (s->weight != tl->prev_w ? F_WEIGHT : 0);
	if (dt % 1000 == 0) {
		dt /= 1000;
		flags |= F_KILO;
	}
	uint64_t d = timeline_zigzag(dt);
	if (d >> 60) {
		put_varint(tl, (flags & ~(unsigned)F_KILO) | F_ABS);
		put_varint(tl, s->time);
	} else {
		put_varint(tl, d << 4 | flags);
	}
	put_varint(tl, timeline_zigzag((int64_t)s->leaf - (int64_t)tl->prev_leaf));
	if (flags & F_THREAD)
		put_varint(tl, s->thread);
	if (flags & F_WEIGHT)
		put_varint(tl, s->weight);
	tl->prev_t = s->time;
	tl->prev_leaf = s->leaf;
	tl->prev_thread = s->thread;
	tl->prev_w = s->weight;
	tl->n++;
}

void timeline_add(struct timeline *tl, uint64_t time, tree_idx leaf, uint32_t thread,
                  uint64_t weight)
{
	if (thread >= tl->nthreads)
		xdie("internal error: timeline_add with thread %u of %zu", thread, tl->nthreads);
	materialize(tl);
	struct timeline_sample s = { time, leaf, thread, weight };
	encode(tl, &s);
	struct timeline_thread *th = &tl->threads[thread];
	th->samples++;
	th->weight = th->weight + weight < weight ? UINT64_MAX : th->weight + weight;
}

/* ---- reading --------------------------------------------------------------- */

void timeline_cursor_block(struct timeline_cursor *c, const struct timeline *tl, size_t b)
{
	uint64_t first = (uint64_t)b * TIMELINE_BLOCK;
	c->p = tl->buf + tl->blocks[b].off;
	c->left = tl->n - first < TIMELINE_BLOCK ? (uint32_t)(tl->n - first) : TIMELINE_BLOCK;
	baseline(&c->cur.time, &c->raw, &c->cur.thread, &c->cur.weight);
	c->cur.leaf = c->raw;
	c->map = tl->map;
}

/* Opens the first block from it->block on that may hold entries of the
 * range. */
static bool block_open(struct timeline_iter *it)
{
	const struct timeline *tl = it->tl;
	for (; it->block < tl->nblocks; it->block++) {
		const struct timeline_block *b = &tl->blocks[it->block];
		if (b->tmax < it->t0 || b->tmin >= it->t1)
			continue;
		timeline_cursor_block(&it->c, tl, it->block);
		return true;
	}
	it->c.left = 0;
	return false;
}

void timeline_iter_init(struct timeline_iter *it, const struct timeline *tl, uint64_t t0,
                        uint64_t t1)
{
	memset(it, 0, sizeof *it);
	it->tl = tl;
	it->t0 = t0;
	it->t1 = t1;
	it->block = 0;
	block_open(it);
}

bool timeline_next(struct timeline_iter *it, struct timeline_sample *out)
{
	for (;;) {
		if (it->c.left == 0) {
			if (it->block >= it->tl->nblocks)
				return false;
			it->block++;
			if (!block_open(it))
				return false;
		}
		timeline_cursor_next(&it->c);
		const struct timeline_sample *c = &it->c.cur;
		if (c->time >= it->t0 && c->time < it->t1) {
			*out = *c;
			return true;
		}
	}
}

/* ---- rewriting --------------------------------------------------------------- */

tree_idx timeline_leaf_map(void *arg, tree_idx id)
{
	return ((const tree_idx *)arg)[id];
}

static uint64_t shifted(uint64_t t, int64_t shift)
{
	if (shift >= 0)
		return t > UINT64_MAX - (uint64_t)shift ? UINT64_MAX : t + (uint64_t)shift;
	uint64_t back = 0 - (uint64_t)shift;
	return t < back ? 0 : t - back;
}

/* The entries of src coded at the end of dst: leaves through leaf (NULL:
 * as they are), threads through tmap (NULL: as they are, and the threads'
 * statistics are dst's already). */
static void recode(struct timeline *dst, const struct timeline *src, timeline_leaf_fn *leaf,
                   void *arg, const uint32_t *tmap, int64_t shift)
{
	/* every entry, block by block: a range iterator ([0, UINT64_MAX))
	 * left out one at UINT64_MAX (a hostile time, clamped), and the
	 * timeline said one entry more than it held */
	for (size_t b = 0; b < src->nblocks; b++) {
		struct timeline_cursor c;
		timeline_cursor_block(&c, src, b);
		while (c.left) {
			timeline_cursor_next(&c);
			struct timeline_sample s = c.cur;
			if (leaf && (s.leaf = leaf(arg, s.leaf)) == TREE_NONE)
				continue;
			s.time = shifted(s.time, shift);
			if (tmap) {
				s.thread = tmap[s.thread];
				struct timeline_thread *th = &dst->threads[s.thread];
				th->samples++;
				th->weight = th->weight + s.weight < s.weight ? UINT64_MAX : th->weight + s.weight;
			}
			encode(dst, &s);
		}
	}
}

void timeline_append(struct timeline *tl, const struct timeline *src, timeline_leaf_fn *leaf,
                     void *arg, int64_t shift)
{
	materialize(tl);
	uint32_t *tmap = xmalloc((src->nthreads ? src->nthreads : 1) * sizeof *tmap);
	for (size_t i = 0; i < src->nthreads; i++) {
		const struct timeline_thread *th = &src->threads[i];
		tmap[i] = timeline_thread(tl, th->pid, th->tid, th->comm, strlen(th->comm));
	}
	recode(tl, src, leaf, arg, tmap, shift);
	free(tmap);
}

/* tl's entries become fresh's (coded again, with no map); its threads
 * stay. */
static void take_entries(struct timeline *tl, struct timeline *fresh)
{
	free(tl->buf);
	free(tl->blocks);
	free(tl->map);
	tl->buf = fresh->buf;
	tl->len = fresh->len;
	tl->cap = fresh->cap;
	tl->blocks = fresh->blocks;
	tl->nblocks = fresh->nblocks;
	tl->capblocks = fresh->capblocks;
	tl->prev_t = fresh->prev_t;
	tl->prev_leaf = fresh->prev_leaf;
	tl->prev_thread = fresh->prev_thread;
	tl->prev_w = fresh->prev_w;
	tl->n = fresh->n;
	tl->tmin = fresh->tmin;
	tl->tmax = fresh->tmax;
	tl->map = NULL;
	tl->nmap = 0;
}

/* A kept map applied to the entries themselves: before more are added,
 * whose leaves are the new ids. */
static void materialize(struct timeline *tl)
{
	if (!tl->map)
		return;
	struct timeline fresh;
	timeline_init(&fresh);
	recode(&fresh, tl, NULL, NULL, NULL, 0);        /* (read through the map) */
	take_entries(tl, &fresh);
}

/* Gives the slack of the doubling growth back: adding is over. */
static void shrink(struct timeline *tl)
{
	if (tl->len && tl->len < tl->cap) {
		tl->buf = xrealloc(tl->buf, tl->len);
		tl->cap = tl->len;
	}
	if (tl->nblocks && tl->nblocks < tl->capblocks) {
		tl->blocks = xreallocarray(tl->blocks, tl->nblocks, sizeof *tl->blocks);
		tl->capblocks = tl->nblocks;
	}
}

unsigned timeline_map_share = 4;

void timeline_renumber(struct timeline *tl, const tree_idx *map, size_t n)
{
	if (!map || tl->n == 0) {
		shrink(tl);
		return;
	}
	size_t was = tl->map ? tl->nmap : n;    /* the ids as coded */
	if (timeline_map_share != UINT_MAX && was <= tl->len / sizeof *map / (timeline_map_share ? timeline_map_share : 1)) {
		/* kept: composed with one kept before */
		tree_idx *m = xmalloc((was ? was : 1) * sizeof *m);
		for (size_t i = 0; i < was; i++) {
			tree_idx v = tl->map ? tl->map[i] : (tree_idx)i;
			m[i] = v < n ? map[v] : TREE_NONE;
		}
		free(tl->map);
		tl->map = m;
		tl->nmap = was;
		shrink(tl);
		return;
	}
	struct timeline fresh;
	timeline_init(&fresh);
	recode(&fresh, tl, timeline_leaf_map, (void *)map, NULL, 0);
	take_entries(tl, &fresh);
	shrink(tl);
}

/* ---- queries ------------------------------------------------------------------ */

/* timeline_self (ones: false) and timeline_count (ones: true). */
static uint64_t sum_entries(const struct timeline *tl, uint64_t t0, uint64_t t1, const bool *threads,
                            uint64_t *out, size_t nout, bool ones)
{
	uint64_t n = 0;
	for (size_t b = 0; b < tl->nblocks; b++) {
		const struct timeline_block *bl = &tl->blocks[b];
		if (bl->tmax < t0 || bl->tmin >= t1)
			continue;
		struct timeline_cursor c;
		timeline_cursor_block(&c, tl, b);
		bool inside = bl->tmin >= t0 && bl->tmax < t1;
		while (c.left) {
			timeline_cursor_next(&c);
			const struct timeline_sample *s = &c.cur;
			if ((!inside && (s->time < t0 || s->time >= t1)) || (threads && !threads[s->thread]))
				continue;
			if (s->leaf >= nout)
				xdie("internal error: a timeline leaf beyond its tree");
			uint64_t *p = &out[s->leaf], w = ones ? 1 : s->weight;
			*p = *p + w < w ? UINT64_MAX : *p + w;
			n++;
		}
	}
	return n;
}

uint64_t timeline_self(const struct timeline *tl, uint64_t t0, uint64_t t1, const bool *threads,
                       uint64_t *self, size_t nself)
{
	return sum_entries(tl, t0, t1, threads, self, nself, false);
}

void timeline_tree(const struct tree *src, const uint64_t *self, enum tree_order order,
                   struct tree *dst)
{
	size_t n = tree_size(src);
	uint64_t *tot = xmalloc((n ? n : 1) * sizeof *tot);
	if (n)
		memcpy(tot, self, n * sizeof *tot);
	for (size_t i = n; i-- > 1;) {
		uint64_t *p = &tot[tree_parent(src, (tree_idx)i)];
		*p = *p + tot[i] < tot[i] ? UINT64_MAX : *p + tot[i];
	}
	uint64_t stacks = 0;
	if (n) {
		tree_add_stack(dst, NULL, 0, self[0]);
		stacks += self[0] > 0;
	}
	/* In preorder each kept node's parent was the last node added or one
	 * of its ancestors: one frame more than the parent's depth. */
	for (size_t i = 1; i < n;) {
		if (!tot[i]) {
			i = tree_end(src, (tree_idx)i);
			continue;
		}
		struct tree_frame f = { tree_name(src, (tree_idx)i), tree_name_len(src, (tree_idx)i) };
		tree_add_stack_tail(dst, tree_depth(src, (tree_idx)i) - 1, &f, 1, self[i]);
		stacks += self[i] > 0;
		i++;
	}
	free(tot);
	dst->stacks = stacks;
	tree_finalize(dst, order);
}

void timeline_chart(const struct timeline *tl, const struct tree *src, uint64_t t0, uint64_t t1,
                    const bool *threads, struct tree *dst)
{
	dst->chart = true;
	struct timeline_iter it;
	struct timeline_sample s;
	struct tree_frame *tail = NULL;
	size_t cap = 0;
	tree_idx prev = TREE_NONE;
	uint64_t stacks = 0;
	timeline_iter_init(&it, tl, t0, t1);
	while (timeline_next(&it, &s)) {
		if ((threads && !threads[s.thread]) || s.leaf >= tree_size(src))
			continue;
		/* The frames shared with the stack before: down to the deepest
		 * common ancestor of the two leaves. O(depth). */
		tree_idx a = s.leaf, b = prev;
		if (b != TREE_NONE) {
			while (tree_depth(src, a) > tree_depth(src, b))
				a = tree_parent(src, a);
			while (tree_depth(src, b) > tree_depth(src, a))
				b = tree_parent(src, b);
			while (a != b) {
				a = tree_parent(src, a);
				b = tree_parent(src, b);
			}
		} else
			a = TREE_ROOT;
		uint32_t keep = tree_depth(src, a), n = tree_depth(src, s.leaf) - keep;
		if (n > cap) {
			cap = n > 2 * cap ? n : 2 * cap;
			tail = xreallocarray(tail, cap, sizeof *tail);
		}
		tree_idx i = s.leaf;
		for (uint32_t k = n; k-- > 0; i = tree_parent(src, i)) {
			tail[k].s = tree_name(src, i);
			tail[k].len = tree_name_len(src, i);
		}
		tree_add_stack_tail(dst, keep, tail, n, s.weight);
		stacks++;
		prev = s.leaf;
	}
	free(tail);
	dst->stacks = stacks;
	tree_finalize(dst, TREE_ORDER_INPUT);
}

/* ---- --time ------------------------------------------------------------------- */

/* floor(a * b / c), c > 0, for a <= c (so the result fits). */
static uint64_t mul_div(uint64_t a, uint64_t b, uint64_t c)
{
#ifdef __SIZEOF_INT128__
	return (uint64_t)((unsigned __int128)a * b / c);
#else
	return (uint64_t)((long double)a * b / c);
#endif
}

/* One side of a range: "" (*none), seconds, or a percentage, as an offset
 * in ns from tl->tmin (a percentage of the span, rounded down). */
static bool range_side(const struct timeline *tl, const char *s, size_t len, bool *none,
                       bool *full, uint64_t *off)
{
	*none = len == 0;
	*full = false;
	*off = 0;
	if (*none)
		return true;
	bool pct = s[len - 1] == '%';
	struct tree_dec d;
	if (!tree_dec_parse(s, len - pct, &d) || d.saturated)
		return false;
	uint64_t span = tl->tmax - tl->tmin;
	if (pct) {
		/* p% of span = units * span / (100 * 10^decimals), exactly */
		uint64_t den = 100;
		for (unsigned k = 0; k < d.decimals; k++)
			den *= 10;
		if (d.units > den)
			return false;               /* beyond 100% */
		*full = d.units == den;
		*off = mul_div(d.units, span, den);
		return true;
	}
	/* seconds to ns: 9 decimals, rounded beyond */
	uint64_t v = d.units;
	if (d.decimals > 9) {
		uint64_t div = 1;
		for (unsigned k = 9; k < d.decimals; k++)
			div *= 10;
		v = v / div + (v % div >= div - v % div);
	} else {
		for (unsigned k = d.decimals; k < 9; k++) {
			if (v > UINT64_MAX / 10)
				return false;
			v *= 10;
		}
	}
	*off = v;
	return true;
}

bool timeline_parse_range(const struct timeline *tl, const char *arg, uint64_t *t0, uint64_t *t1,
                          char *err, size_t errsize)
{
	const char *comma = strchr(arg, ',');
	const char *slash = strchr(arg, '/');
	bool n0, n1, f0, f1;
	uint64_t o0, o1;
	if (!comma && slash) {
		/* P%/N: the N-th slice of P% */
		unsigned long long nth;
		char *end;
		if (slash == arg || slash[-1] != '%' || !range_side(tl, arg, (size_t)(slash - arg), &n0, &f0, &o0) ||
		    n0 || (nth = strtoull(slash + 1, &end, 10)) == 0 || *end || slash[1] < '0' || slash[1] > '9') {
			snprintf(err, errsize, "'%s' is not START,END or P%%/N", arg);
			return false;
		}
		/* slice k (from 0) is [k * o0, (k + 1) * o0) of the span */
		uint64_t span = tl->tmax - tl->tmin, k = nth - 1;
		if (span == 0 && nth == 1) {
			*t0 = tl->tmin;
			*t1 = UINT64_MAX;
			return true;
		}
		if (o0 == 0 || k >= span / o0 + (span % o0 != 0)) {
			snprintf(err, errsize, "'%s': no such slice", arg);
			return false;
		}
		*t0 = tl->tmin + k * o0;
		/* the last slice keeps the last sample */
		*t1 = o0 >= span - k * o0 ? UINT64_MAX : tl->tmin + k * o0 + o0;     /* k * o0 < span */
		return true;
	}
	if (!comma || strchr(comma + 1, ',') ||
	    !range_side(tl, arg, (size_t)(comma - arg), &n0, &f0, &o0) ||
	    !range_side(tl, comma + 1, strlen(comma + 1), &n1, &f1, &o1)) {
		snprintf(err, errsize, "'%s' is not START,END (seconds from the first sample, or %%)", arg);
		return false;
	}
	if (!n1 && o1 < o0) {
		snprintf(err, errsize, "'%s': the end comes before the start", arg);
		return false;
	}
	*t0 = n0 ? 0 : tl->tmin + (o0 > UINT64_MAX - tl->tmin ? UINT64_MAX - tl->tmin : o0);
	if (n1 || f1)
		*t1 = UINT64_MAX;
	else
		*t1 = tl->tmin + (o1 > UINT64_MAX - tl->tmin ? UINT64_MAX - tl->tmin : o1);
	return true;
}

size_t timeline_bytes(const struct timeline *tl)
{
	size_t b = tl->cap + tl->capblocks * sizeof *tl->blocks + tl->nmap * sizeof *tl->map +
	           tl->capthreads * sizeof *tl->threads + tl->capthash * sizeof *tl->thash;
	for (size_t i = 0; i < tl->nthreads; i++)
		b += strlen(tl->threads[i].comm) + 1;
	return b;
}

uint64_t timeline_count(const struct timeline *tl, uint64_t t0, uint64_t t1, const bool *threads,
                        uint64_t *count, size_t ncount)
{
	return sum_entries(tl, t0, t1, threads, count, ncount, true);
}
