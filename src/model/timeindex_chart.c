/* timeindex_chart: the flame chart of a range from the aggregates'
 * units (see timeindex.h), the samples read only where a unit is cut. */
#include "config.h"
#include "timeindex_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

uint64_t timeindex_chart_split = (uint64_t)1 << 17;

/* ---- the flame chart ------------------------------------------------------------ */

/* A frame's run: from start, len of the weight, at depth in src. */
struct run {
	uint64_t start, len;
	tree_idx node;
	uint32_t depth;
};

/* The runs open at the current position, one per depth 1..depth, and the
 * runs kept. A sweep of the second half of the samples (see split_chart)
 * starts without the stack the first half ends with: the runs of the
 * frames of its first stack (its head: depths 1..head0) may go on from
 * there, so they are not weighed when they close but their ends kept;
 * frames 1..head are the head's still open. */
struct sweep {
	const struct tree *src;
	uint64_t theta, pos;
	uint32_t depth;
	tree_idx *node;
	uint64_t *start;
	tree_idx *next;             /* enter's: the frames of the stack entered */
	size_t cap;
	struct run *runs;
	size_t nruns, capruns;
	bool second, fresh;         /* a second half's; before its first stack */
	uint32_t head, head0;
	tree_idx *hnode;            /* [1..head0]: the head's frames, */
	uint64_t *hend;             /* where each closed */
	uint64_t samples;
	uint64_t pairs[4 * TIMEINDEX_UNIT];
};

static void sweep_room(struct sweep *sw, size_t depth)
{
	if (depth + 1 > sw->cap) {
		sw->cap = depth + 1 > 2 * sw->cap ? depth + 1 : 2 * sw->cap;
		sw->node = xreallocarray(sw->node, sw->cap, sizeof *sw->node);
		sw->start = xreallocarray(sw->start, sw->cap, sizeof *sw->start);
		sw->next = xreallocarray(sw->next, sw->cap, sizeof *sw->next);
		if (sw->second) {
			sw->hnode = xreallocarray(sw->hnode, sw->cap, sizeof *sw->hnode);
			sw->hend = xreallocarray(sw->hend, sw->cap, sizeof *sw->hend);
		}
	}
}

/* A closed run, kept when it weighs theta or more (and anything). */
static void keep_run(struct sweep *sw, uint64_t start, uint64_t len, tree_idx node, uint32_t depth)
{
	if (len == 0 || len < sw->theta)
		return;
	if (sw->nruns == sw->capruns) {
		sw->capruns = sw->capruns ? sw->capruns * 2 : 1024;
		sw->runs = xreallocarray(sw->runs, sw->capruns, sizeof *sw->runs);
	}
	sw->runs[sw->nruns++] = (struct run){ start, len, node, depth };
}

/* Ends the runs deeper than d at at; the heavy ones are kept. A deeper
 * frame's run started no earlier than its caller's: when the shallowest
 * one to end is lighter than theta, so are all (and none is the head's),
 * the common case of a coarse chart: nothing to look at. */
static void close_to(struct sweep *sw, uint32_t d, uint64_t at)
{
	if (sw->depth > d && d >= sw->head && at - sw->start[d + 1] < sw->theta) {
		sw->depth = d;
		return;
	}
	for (; sw->depth > d; sw->depth--) {
		uint32_t x = sw->depth;
		if (x <= sw->head) {
			sw->hnode[x] = sw->node[x];
			sw->hend[x] = at;
			continue;
		}
		keep_run(sw, sw->start[x], at - sw->start[x], sw->node[x], x);
	}
	if (sw->head > d)
		sw->head = d;
}

/* The next stack starts at leaf: the runs it does not continue end. One
 * walk up from leaf to the first frame the open runs share (a parent is
 * one shallower: no depth read a step), its frames kept on the way
 * (the chart of 1.8M perf samples in 16384 cells, each decoded: 100 ->
 * 82 ms). */
static void enter(struct sweep *sw, tree_idx leaf)
{
	const struct tree *t = sw->src;
	uint32_t to = tree_depth(t, leaf);
	bool first = sw->fresh;
	sw->fresh = false;
	if (sw->depth == to && sw->node[to] == leaf)
		return;
	sweep_room(sw, to);
	/* (locals: the stores to next[] could be to sw's fields, for all
	 * the compiler knows) */
	const struct tree_node *nodes = t->nodes;
	const tree_idx *node = sw->node;
	tree_idx *next = sw->next, y = leaf;
	uint32_t k = to, depth = sw->depth;
	for (; k > depth; k--) {
		next[k] = y;
		y = nodes[y].parent;
	}
	for (; k > 0 && node[k] != y; k--) {
		next[k] = y;
		y = nodes[y].parent;
	}
	close_to(sw, k, sw->pos);
	for (uint32_t x = k + 1; x <= to; x++) {
		sw->node[x] = sw->next[x];
		sw->start[x] = sw->pos;
	}
	sw->depth = to;
	if (first)
		sw->head = sw->head0 = to;
}

static void sweep_sample(struct sweep *sw, tree_idx leaf, uint64_t w)
{
	enter(sw, leaf);
	sw->pos = sat_add(sw->pos, w);
}

/* A whole unit: its first stack's frames below the shared ones end where
 * the runs say, its last stack's begin where they say; what happens in
 * between is lighter than theta (the unit is). */
static void sweep_unit(struct sweep *sw, const struct timeindex *ti, const struct timeindex_unit *u)
{
	const struct tree *t = sw->src;
	enter(sw, u->first);
	const unsigned char *p = ti->runs + u->runs;
	uint64_t n = get(&p);
	for (uint64_t k = 0; k < n; k++) {
		uint64_t drop = get(&p), w = get(&p);
		close_to(sw, sw->depth - (uint32_t)drop, sat_add(sw->pos, w));
	}
	/* the last stack's frames, shallowest first: its pairs backwards */
	n = get(&p);
	for (uint64_t k = 0; k < n; k++) {
		sw->pairs[2 * k] = get(&p);
		sw->pairs[2 * k + 1] = get(&p);
	}
	uint32_t to = tree_depth(t, u->last);
	sweep_room(sw, to);
	uint32_t d = to;
	for (uint64_t k = 0; k < n; k++)
		d -= (uint32_t)sw->pairs[2 * k];
	/* now d is the shared depth; the frames from d + 1 on start from
	 * the pairs: the last pair (nearest to the shared frames) first */
	if (sw->head > d)
		sw->head = d;
	tree_idx i = u->last;
	for (uint32_t x = to; x > d; x--, i = tree_parent(t, i))
		sw->node[x] = i;
	uint64_t end = sat_add(sw->pos, u->weight);
	for (uint64_t k = n; k-- > 0;) {
		uint32_t hi = d + (uint32_t)sw->pairs[2 * k];
		for (uint32_t x = d + 1; x <= hi; x++)
			sw->start[x] = end - sw->pairs[2 * k + 1];
		d = hi;
	}
	sw->depth = to;
	sw->pos = end;
}

static int run_cmp(const void *pa, const void *pb)
{
	const struct run *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->depth < b->depth ? -1 : a->depth > b->depth;
}

/* Adding the kept runs to the chart: the runs over the current position
 * (act[0..m), by depth), how many of them the stack added last shares. */
struct emit {
	const struct tree *src;
	struct tree *dst;
	const struct run **act;
	struct tree_frame *fr;
	size_t m, stable, cap;
	uint64_t pos;
};

/* The stretch from the position to `to` as the stack of the runs over it. */
static void emit_upto(struct emit *e, uint64_t to)
{
	if (to <= e->pos)
		return;
	for (size_t k = e->stable; k < e->m; k++)
		e->fr[k - e->stable] = (struct tree_frame){ tree_name(e->src, e->act[k]->node),
		                                            tree_name_len(e->src, e->act[k]->node) };
	tree_add_stack_tail(e->dst, e->stable, e->fr, e->m - e->stable, to - e->pos);
	e->stable = e->m;
	e->pos = to;
}

/* The innermost run over the position ends. */
static void emit_pop(struct emit *e)
{
	const struct run *r = e->act[e->m - 1];
	emit_upto(e, r->start + r->len);
	e->m--;
	if (e->stable > e->m)
		e->stable = e->m;
}

/* The kept runs as a chart: the stretches between their ends, each the
 * stack of the runs over it, added in order (a frame's runs nest in its
 * caller's, so the runs over a point are one per depth from 1). */
static void sweep_tree(struct sweep *sw, struct tree *dst)
{
	if (sw->nruns)
		qsort(sw->runs, sw->nruns, sizeof *sw->runs, run_cmp);
	struct emit e = { sw->src, dst, NULL, NULL, 0, 0, 16, 0 };
	e.act = xmalloc(e.cap * sizeof *e.act);
	e.fr = xmalloc(e.cap * sizeof *e.fr);
	for (size_t r = 0; r < sw->nruns; r++) {
		const struct run *x = &sw->runs[r];
		while (e.m > 0 && e.act[e.m - 1]->start + e.act[e.m - 1]->len <= x->start)
			emit_pop(&e);
		emit_upto(&e, x->start);
		if (e.m != x->depth - 1)
			xdie("internal error: a chart run without its caller's");
		if (e.m == e.cap) {
			e.cap *= 2;
			e.act = xreallocarray(e.act, e.cap, sizeof *e.act);
			e.fr = xreallocarray(e.fr, e.cap, sizeof *e.fr);
		}
		e.act[e.m++] = x;
	}
	while (e.m > 0)
		emit_pop(&e);
	emit_upto(&e, sw->pos);
	free(e.act);
	free(e.fr);
}

/* A unit the chart takes whole: inside the range, on all threads, lighter
 * than a cell. */
static bool unit_whole(const struct timeindex_unit *u, uint64_t t0, uint64_t t1, uint64_t theta)
{
	return u->tmin >= t0 && u->tmax < t1 && u->weight <= theta;
}

/* A chosen thread's unit: mixed when another chosen thread's unit
 * interleaves with it in the timeline. */
struct tunit {
	const struct timeindex_unit *u;
	uint32_t thread;
	bool mixed;
};

/* A chart to draw: its range, the chosen threads (NULL: all), the runs'
 * least weight, and with chosen threads and an index their units in the
 * range, in the timeline's order (by their first places). Read only
 * while its halves are walked. */
struct chart {
	const struct timeindex *ti;
	const struct timeline *tl;
	uint64_t t0, t1;
	const bool *threads;
	uint64_t theta;
	struct tunit *L;
	size_t m;
};

static int tunit_cmp(const void *pa, const void *pb)
{
	const struct tunit *a = pa, *b = pb;
	return a->u->pos0 < b->u->pos0 ? -1 : a->u->pos0 > b->u->pos0;
}

/* c->L and c->m: the chosen threads' units in the range, sorted, each
 * marked mixed or not. */
static void chart_units(struct chart *c)
{
	const struct timeindex *ti = c->ti;
	size_t cap = 0, m = 0;
	for (size_t i = 0; i < c->tl->nthreads; i++)
		if (c->threads[i])
			cap += ti->threads[i].nunits;
	c->L = xmalloc((cap ? cap : 1) * sizeof *c->L);
	for (uint32_t i = 0; i < c->tl->nthreads; i++) {
		if (!c->threads[i])
			continue;
		const struct timeindex_unit *u = ti->tunits + ti->threads[i].unit0;
		for (size_t k = 0; k < ti->threads[i].nunits; k++)
			if (u[k].tmax >= c->t0 && u[k].tmin < c->t1)
				c->L[m++] = (struct tunit){ &u[k], i, false };
	}
	if (m)
		qsort(c->L, m, sizeof *c->L, tunit_cmp);
	uint64_t last = 0;
	for (size_t k = 0; k < m; k++) {
		const struct timeindex_unit *u = c->L[k].u;
		c->L[k].mixed = (k > 0 && last >= u->pos0) || (k + 1 < m && c->L[k + 1].u->pos0 <= u->pos1);
		if (k == 0 || u->pos1 > last)
			last = u->pos1;
	}
	c->m = m;
}

/* The samples at places p0..p1 of the timeline the chart takes: in the
 * range, on the chosen threads (NULL: all), of thread only (UINT32_MAX:
 * any), into sw (NULL: only counted). */
static void walk_places(const struct timeline *tl, uint64_t p0, uint64_t p1, uint64_t t0, uint64_t t1,
                        const bool *threads, uint32_t only, struct sweep *sw, uint64_t *total,
                        uint64_t *n)
{
	size_t b = (size_t)(p0 / TIMELINE_BLOCK);
	for (uint64_t p = (uint64_t)b * TIMELINE_BLOCK; b < tl->nblocks && p <= p1; b++) {
		struct timeline_cursor c;
		timeline_cursor_block(&c, tl, b);
		for (; c.left && p <= p1; p++) {
			timeline_cursor_next(&c);
			const struct timeline_sample *s = &c.cur;
			if (p < p0 || s->time < t0 || s->time >= t1 || (threads && !threads[s->thread]) ||
			    (only != UINT32_MAX && s->thread != only))
				continue;
			if (sw)
				sweep_sample(sw, s->leaf, s->weight);
			*total = sat_add(*total, s->weight);
			(*n)++;
		}
	}
}

/* chart_walk for chosen threads: their own units, in the timeline's order;
 * one is taken whole when it lies inside the range and the places walked,
 * is lighter than theta and no other unit of theirs interleaves with it
 * in the timeline (then no chosen sample is among its samples); the
 * places the others span are decoded. */
static uint64_t chart_walk_threads(const struct chart *c, uint64_t p_lo, uint64_t p_hi, struct sweep *sw,
                                   uint64_t *samples)
{
	const struct timeline *tl = c->tl;
	uint64_t total = 0, n = 0, t0 = c->t0, t1 = c->t1;
	if (!sw) {
		/* the sum: each unit whole, or its thread's samples in the range */
		for (size_t k = 0; k < c->m; k++) {
			const struct timeindex_unit *u = c->L[k].u;
			if (u->tmin >= t0 && u->tmax < t1) {
				total = sat_add(total, u->weight);
				n += u->n;
			} else {
				walk_places(tl, u->pos0, u->pos1, t0, t1, NULL, c->L[k].thread, NULL, &total, &n);
			}
		}
	} else {
		uint64_t ds = 0, de = 0;
		bool pending = false;
		for (size_t k = 0; k < c->m; k++) {
			const struct timeindex_unit *u = c->L[k].u;
			if (u->pos1 < p_lo || u->pos0 >= p_hi)
				continue;
			if (!c->L[k].mixed && u->pos0 >= p_lo && u->pos1 < p_hi && unit_whole(u, t0, t1, c->theta)) {
				if (pending)
					walk_places(tl, ds, de, t0, t1, c->threads, UINT32_MAX, sw, &total, &n);
				pending = false;
				sweep_unit(sw, c->ti, u);
				total = sat_add(total, u->weight);
				n += u->n;
				continue;
			}
			uint64_t lo = u->pos0 > p_lo ? u->pos0 : p_lo, hi = u->pos1 < p_hi ? u->pos1 : p_hi - 1;
			if (pending && lo <= de) {
				de = hi > de ? hi : de;
			} else {
				if (pending)
					walk_places(tl, ds, de, t0, t1, c->threads, UINT32_MAX, sw, &total, &n);
				pending = true;
				ds = lo;
				de = hi;
			}
		}
		if (pending)
			walk_places(tl, ds, de, t0, t1, c->threads, UINT32_MAX, sw, &total, &n);
	}
	if (samples)
		*samples = n;
	return total;
}

/* Walks the range's samples at the places [p_lo, p_hi) (whole blocks of
 * the timeline, or up to UINT64_MAX) in the timeline's order: whole units
 * (ti, theta > 0) or samples, into sw; without sw (all places) only sums
 * their weights. */
static uint64_t chart_walk(const struct chart *c, uint64_t p_lo, uint64_t p_hi, struct sweep *sw,
                           uint64_t *samples)
{
	const struct timeindex *ti = c->ti;
	const struct timeline *tl = c->tl;
	uint64_t t0 = c->t0, t1 = c->t1, theta = c->theta;
	const bool *threads = c->threads;
	if (ti && threads && (theta > 0 || !sw))
		return chart_walk_threads(c, p_lo, p_hi, sw, samples);
	bool units = ti && !threads && (theta > 0 || !sw);
	uint64_t total = 0, n = 0;
	size_t b_hi = p_hi / TIMELINE_BLOCK < tl->nblocks ? (size_t)(p_hi / TIMELINE_BLOCK) : tl->nblocks;
	for (size_t b = (size_t)(p_lo / TIMELINE_BLOCK); b < b_hi; b++) {
		const struct timeline_block *bl = &tl->blocks[b];
		if (bl->tmax < t0 || bl->tmin >= t1)
			continue;
		/* the block's units taken whole, or none */
		bool whole[UNITS_PER_BLOCK] = { false };
		size_t u0 = b * UNITS_PER_BLOCK, nu = 0, nwhole = 0;
		if (units) {
			for (; nu < UNITS_PER_BLOCK && u0 + nu < ti->nunits; nu++) {
				const struct timeindex_unit *u = &ti->units[u0 + nu];
				/* summing needs no threshold */
				whole[nu] = sw ? unit_whole(u, t0, t1, theta) : u->tmin >= t0 && u->tmax < t1;
				nwhole += whole[nu];
			}
		}
		if (units && nwhole == nu) {
			for (size_t k = 0; k < nu; k++) {
				const struct timeindex_unit *u = &ti->units[u0 + k];
				if (sw)
					sweep_unit(sw, ti, u);
				total = sat_add(total, u->weight);
			}
			n += (uint64_t)(tl->n - b * TIMELINE_BLOCK < TIMELINE_BLOCK ? tl->n - b * TIMELINE_BLOCK
			                                                             : TIMELINE_BLOCK);
			continue;
		}
		struct timeline_cursor cur;
		timeline_cursor_block(&cur, tl, b);
		for (uint32_t i = 0; cur.left; i++) {
			timeline_cursor_next(&cur);
			uint32_t k = i / TIMEINDEX_UNIT;
			if (units && whole[k]) {
				if (i % TIMEINDEX_UNIT == 0) {
					const struct timeindex_unit *u = &ti->units[u0 + k];
					if (sw)
						sweep_unit(sw, ti, u);
					total = sat_add(total, u->weight);
				}
				n++;
				continue;
			}
			const struct timeline_sample *s = &cur.cur;
			if (s->time < t0 || s->time >= t1 || (threads && !threads[s->thread]))
				continue;
			if (sw)
				sweep_sample(sw, s->leaf, s->weight);
			total = sat_add(total, s->weight);
			n++;
		}
	}
	if (samples)
		*samples = n;
	return total;
}

/* Where a big chart's walk is cut in two (see split_chart): the first
 * place of the middle one of the timeline's blocks in the range; 0 when
 * it has fewer than two. */
static uint64_t split_place(const struct chart *c)
{
	const struct timeline *tl = c->tl;
	size_t n = 0;
	for (size_t b = 0; b < tl->nblocks; b++)
		n += tl->blocks[b].tmax >= c->t0 && tl->blocks[b].tmin < c->t1;
	if (n < 2)
		return 0;
	for (size_t b = 0, k = 0; b < tl->nblocks; b++)
		if (tl->blocks[b].tmax >= c->t0 && tl->blocks[b].tmin < c->t1 && k++ == n / 2)
			return (uint64_t)b * TIMELINE_BLOCK;
	return 0;
}

struct half {
	const struct chart *c;
	uint64_t p_lo, p_hi;
	struct sweep *sw;
	pthread_t th;
};

static void *half_run(void *arg)
{
	struct half *h = arg;
	chart_walk(h->c, h->p_lo, h->p_hi, h->sw, &h->sw->samples);
	close_to(h->sw, 0, h->sw->pos);
	return NULL;
}

/* b, the sweep of the places after a's, joined to a: the runs a leaves
 * open go on into the frames of b's first stack they share (as entering
 * that stack after a's last would have found), and b's places follow a's. */
static void stitch(struct sweep *a, struct sweep *b)
{
	uint64_t w = a->pos;
	uint32_t s = 0;
	while (s < a->depth && s < b->head0 && a->node[s + 1] == b->hnode[s + 1])
		s++;
	for (uint32_t x = 1; x <= a->depth; x++) {
		uint64_t end = x <= s ? w + b->hend[x] : w;
		keep_run(a, a->start[x], end - a->start[x], a->node[x], x);
	}
	a->depth = 0;
	for (uint32_t x = s + 1; x <= b->head0; x++)
		keep_run(a, w, b->hend[x], b->hnode[x], x);
	if (a->nruns + b->nruns > a->capruns) {
		a->capruns = a->nruns + b->nruns;
		a->runs = xreallocarray(a->runs, a->capruns, sizeof *a->runs);
	}
	for (size_t i = 0; i < b->nruns; i++) {
		a->runs[a->nruns] = b->runs[i];
		a->runs[a->nruns++].start += w;
	}
	a->pos = w + b->pos;
	a->samples += b->samples;
}

/* The chart's walk on two threads: the places before mid into a, those
 * from mid on into a second sweep, then joined (no weight sums past
 * UINT64_MAX / 2: nothing saturates). Without a second thread, one after
 * the other here. */
static void split_chart(const struct chart *c, uint64_t mid, struct sweep *a)
{
	struct sweep b;
	memset(&b, 0, sizeof b);
	b.src = a->src;
	b.theta = a->theta;
	b.second = b.fresh = true;
	sweep_room(&b, 0);
	b.node[0] = TREE_ROOT;
	struct half h = { .c = c, .p_lo = mid, .p_hi = UINT64_MAX, .sw = &b };
	bool two = pthread_create(&h.th, NULL, half_run, &h) == 0;
	chart_walk(c, 0, mid, a, &a->samples);
	if (two)
		pthread_join(h.th, NULL);
	else
		half_run(&h);
	stitch(a, &b);
	free(b.node);
	free(b.start);
	free(b.next);
	free(b.hnode);
	free(b.hend);
	free(b.runs);
}

/* The sweep of `samples` samples done: its runs become dst, finalized. */
static void sweep_end(struct sweep *sw, struct tree *dst, uint64_t samples)
{
	close_to(sw, 0, sw->pos);
	sweep_tree(sw, dst);
	free(sw->node);
	free(sw->start);
	free(sw->next);
	free(sw->runs);
	dst->stacks = samples;
	tree_finalize(dst, TREE_ORDER_INPUT);
}

uint32_t timeindex_chart(const struct timeindex *ti, const struct timeline *tl, const struct tree *src,
                         uint64_t t0, uint64_t t1, const bool *threads, uint32_t cells, uint64_t coarse_from,
                         struct tree *dst)
{
	dst->chart = true;
	struct chart c = { ti, tl, t0, t1, threads, 0, NULL, 0 };
	if (ti && threads)
		chart_units(&c);
	struct sweep sw;
	memset(&sw, 0, sizeof sw);
	sw.src = src;
	uint64_t n = 0, total = UINT64_MAX, mid = 0;
	if (cells) {
		total = chart_walk(&c, 0, UINT64_MAX, NULL, &n);
		/* a cell twice a unit's mean weight: units of weights that vary
		 * (perf's periods) are taken whole too, where at the mean half
		 * of them were decoded */
		if (ti && coarse_from && n >= coarse_from && n / (2 * TIMEINDEX_UNIT) < cells)
			cells = n / (2 * TIMEINDEX_UNIT) > 0 ? (uint32_t)(n / (2 * TIMEINDEX_UNIT)) : 1;
		sw.theta = c.theta = total / cells;
	}
	sweep_room(&sw, 0);
	sw.node[0] = TREE_ROOT;
	if (n >= timeindex_chart_split && total < UINT64_MAX / 2)
		mid = split_place(&c);
	if (mid)
		split_chart(&c, mid, &sw);
	else
		chart_walk(&c, 0, UINT64_MAX, &sw, &sw.samples);
	sweep_end(&sw, dst, sw.samples);
	free(c.L);
	return cells;
}

/* The samples of the range on the chosen threads, in the timeline's
 * order, whose place is in [w0, w1): into sw, or (sw NULL) only summed.
 * Returns their weight; *samples their number. */
static uint64_t window_walk(const struct timeline *tl, const struct tree *src, uint64_t t0, uint64_t t1,
                            const bool *threads, uint64_t w0, uint64_t w1, struct sweep *sw,
                            uint64_t *samples)
{
	struct timeline_iter it;
	struct timeline_sample s;
	uint64_t pos = 0, total = 0, n = 0;
	timeline_iter_init(&it, tl, t0, t1);
	while (pos < w1 && timeline_next(&it, &s)) {
		if ((threads && !threads[s.thread]) || s.leaf >= tree_size(src))
			continue;
		if (pos >= w0) {
			if (sw)
				sweep_sample(sw, s.leaf, s.weight);
			total = sat_add(total, s.weight);
			n++;
		}
		pos = sat_add(pos, s.weight);
	}
	*samples = n;
	return total;
}

void timeindex_chart_window(const struct timeline *tl, const struct tree *src, uint64_t t0, uint64_t t1,
                            const bool *threads, uint32_t cells, uint64_t w0, uint64_t w1,
                            struct tree *dst)
{
	dst->chart = true;
	struct sweep sw;
	memset(&sw, 0, sizeof sw);
	sw.src = src;
	uint64_t samples;
	if (cells)
		sw.theta = window_walk(tl, src, t0, t1, threads, w0, w1, NULL, &samples) / cells;
	sweep_room(&sw, 0);
	sw.node[0] = TREE_ROOT;
	window_walk(tl, src, t0, t1, threads, w0, w1, &sw, &samples);
	sweep_end(&sw, dst, samples);
}
