/* The partitioned loader of big shuffled folded files (see loadint.h:
 * load_parts; issue 20, direction 1).
 *
 * A shuffled file spends most of its load on cache misses: each frame is
 * looked up in a child hash and a node array as big as the tree, at
 * random. Read in parts, each holding every line whose first two frames
 * hash to it, each part's tree is a fraction of the whole and stays in the
 * cache while it is built: 64 parts built one after the other took 2.3
 * (genfolded) to 3 (real-shaped) times less CPU than the whole file.
 *
 * A first pass cuts the lines into parts: an index of line offsets per
 * part (4 bytes a line), the pages behind it dropped as it goes. Then each
 * part is read through its index (its lines gathered into a buffer, in
 * file order), built into a tree of its own and finalized; parts are
 * independent, so threads build them side by side, without merging. Last,
 * tree_join makes the parts' trees one, copying their subtrees below depth
 * 2 as blocks. The memory is the tree's (the parts' trees, each freed as
 * it is copied) and the index. */
#include "config.h"
#include "loadint.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "text.h"
#include "xalloc.h"

#define PART_MIN_BYTES ((size_t)64 << 20)  /* smaller files: one pass */
#define PART_COUNT 64
#define PART_MAX_COUNT 4096
#define PART_MAX_THREADS 16
/* A sweep through the file builds PART_GROUP parts, each gathering its
 * lines PART_GATHER bytes at a time, then fed. More parts a sweep means
 * fewer sweeps, each faulting the pages of the file in again (a sweep a
 * part: 2.2 s of system time on 1 GiB of real-shaped input), and more
 * trees being built at once, each with its child hash and room to grow.
 * On 1 GiB of genfolded output (a tree of 670 MiB), 2, 3 and 4 parts a
 * sweep took 10.4, 9.9 and 9.6 s on one thread, 5.9, 5.9 and 5.7 s on two,
 * and peaked at 777, 795 and 821 MiB on two: 3 keeps within the tree +
 * 128 MiB that loading allows. Gathering 8 MiB at a time took as long as
 * 4, with 5 MiB more at the peak. */
#define PART_GATHER ((size_t)4 << 20)
#define PART_GROUP 3
#define PART_DROP ((size_t)8 << 20)        /* pages dropped this far behind */
#define PROBE_WINDOWS 64
#define PROBE_LINES 64

/* A stretch of the file cut into parts by one thread. */
struct range {
	const char *d;
	size_t lo, hi;
	int nparts;
	uint32_t **idx;             /* per part: offsets of its lines */
	size_t *n, *cap;
	uint64_t *bytes;            /* per part: bytes of its lines */
	struct reader_diag diag;    /* line numbers within the range */
	uint64_t sum;               /* of the counts */
	bool unfit;                 /* fractional or saturated counts, or a
	                               sum beyond 64 bits: not in parts */
	atomic_size_t done;         /* bytes cut so far */
};

/* The parts and who builds them. */
struct build {
	const char *d;
	size_t len;
	struct range *ranges;
	int nranges, nparts;
	int *order;                 /* parts, biggest first */
	atomic_int next;            /* the next of order to build */
	struct tree *trees;
	enum tree_order torder;
	int group, ngroups;         /* parts a sweep builds; sweeps */
	int nfilled;                /* parts in order[] */
	struct tree *dst;           /* the result: names go in its table */
	pthread_mutex_t names_mu;
	size_t gather;              /* a part's buffer in a sweep */
	atomic_uint_fast64_t built; /* bytes of the parts built */
	uint64_t stacks;            /* the file's, once cut */
};

/* A line's key: the hash of its stack up to its second ';' (its first
 * two frames), or of the whole stack when it has fewer. */
static uint64_t key_of(const char *s, size_t stack)
{
	const char *semi = memchr(s, ';', stack);
	if (semi) {
		const char *second = memchr(semi + 1, ';', stack - (size_t)(semi + 1 - s));
		if (second)
			stack = (size_t)(second - s);
	}
	return strtab_hash(s, stack);
}

static void push(struct range *r, int part, uint32_t off, uint64_t bytes)
{
	if (r->n[part] == r->cap[part]) {
		r->cap[part] = r->cap[part] ? 2 * r->cap[part] : 1024;
		r->idx[part] = xreallocarray(r->idx[part], r->cap[part], sizeof **r->idx);
	}
	r->idx[part][r->n[part]++] = off;
	r->bytes[part] += bytes;
}

static void drop(const char *d, size_t from, size_t to)
{
#ifdef HAVE_MADVISE
	long pg = sysconf(_SC_PAGESIZE);
	size_t page = pg > 0 ? (size_t)pg : 4096;
	uintptr_t a = ((uintptr_t)d + from + page - 1) / page * page;
	uintptr_t b = ((uintptr_t)d + to) / page * page;
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
#else
	(void)d;
	(void)from;
	(void)to;
#endif
}

/* The first pass over a range: each line parsed as the folded reader
 * parses it (the same diagnostics), its offset put in its part. */
static void cut_range(struct range *r)
{
	const char *d = r->d;
	size_t dropped = r->lo;
	for (size_t p = r->lo; p < r->hi;) {
		const char *nl = memchr(d + p, '\n', r->hi - p);
		size_t e = nl ? (size_t)(nl - d) : r->hi, stack;
		struct tree_dec c, before;
		r->diag.lines++;
		switch (folded_parse_line(d + p, e - p, &stack, &c, &before)) {
		case FOLDED_BLANK:
			break;
		case FOLDED_BAD:
			r->diag.bad++;
			if (!r->diag.first_bad) {
				char snippet[64];
				r->diag.first_bad = r->diag.lines;
				text_sanitize(d + p, e - p, snippet, sizeof snippet);
				snprintf(r->diag.first_msg, sizeof r->diag.first_msg, "%s: \"%s\"", FOLDED_BAD_WHY, snippet);
			}
			break;
		case FOLDED_STACK:
			r->diag.stacks++;
			if (c.decimals || c.saturated || __builtin_add_overflow(r->sum, c.units, &r->sum))
				r->unfit = true;
			push(r, (int)(key_of(d + p, stack) % (uint64_t)r->nparts), (uint32_t)p, e - p + 1);
			break;
		}
		p = e + 1;
		if (p - dropped >= PART_DROP) {
			drop(d, dropped, p);
			dropped = p;
			atomic_store(&r->done, p - r->lo);
		}
	}
	drop(d, dropped, r->hi);
	atomic_store(&r->done, r->hi - r->lo);
}

static void *cut_main(void *arg)
{
	cut_range(arg);
	return NULL;
}

static void progress(struct load_progress *pr, const struct build *b)
{
	/* the first pass is a quarter of the work, the parts the rest */
	uint64_t cut = 0;
	for (int i = 0; i < b->nranges; i++)
		cut += atomic_load(&b->ranges[i].done);
	uint64_t done = cut / 4 + (uint64_t)((double)atomic_load(&b->built) * 0.75);
	load_progress_update(pr, done < b->len ? done : b->len, b->len, b->stacks, false);
}

/* Builds a group of parts, gathered in one sweep through the file: each
 * part's lines into a buffer of its own, fed to its reader when full;
 * then each tree finalized. A sweep reads (and faults in) the pages that
 * hold its parts' lines, and the pages behind it are dropped: one sweep a
 * part would fault the whole file in again for each. */
static void build_group(struct build *b, const int *parts, int g, char *bufs)
{
	struct folded_reader *r[PART_GROUP];
	size_t have[PART_GROUP], at[PART_GROUP], ri[PART_GROUP];
	for (int k = 0; k < g; k++) {
		r[k] = folded_reader_new(&b->trees[parts[k]]);
		have[k] = at[k] = ri[k] = 0;
	}
	size_t dropped = 0, gather = b->gather;
	for (;;) {
		/* the part whose next line comes first in the file */
		int best = -1;
		size_t off = 0;
		for (int k = 0; k < g; k++) {
			while (ri[k] < (size_t)b->nranges && at[k] == b->ranges[ri[k]].n[parts[k]]) {
				ri[k]++;
				at[k] = 0;
			}
			if (ri[k] == (size_t)b->nranges)
				continue;
			size_t o = b->ranges[ri[k]].idx[parts[k]][at[k]];
			if (best < 0 || o < off) {
				best = k;
				off = o;
			}
		}
		if (best < 0)
			break;
		at[best]++;
		char *buf = bufs + (size_t)best * gather;
		const char *nl = memchr(b->d + off, '\n', b->len - off);
		size_t l = nl ? (size_t)(nl - (b->d + off)) : b->len - off;
		if (have[best] + l + 1 > gather) {
			folded_reader_feed(r[best], buf, have[best]);
			have[best] = 0;
		}
		if (l + 1 > gather) {
			folded_reader_feed(r[best], b->d + off, l);     /* a very long line */
		} else {
			memcpy(buf + have[best], b->d + off, l);
			buf[have[best] + l] = '\n';
			have[best] += l + 1;
		}
		if (off - dropped >= PART_DROP) {
			drop(b->d, dropped, off);
			dropped = off;
		}
	}
	uint64_t bytes = 0;
	for (int k = 0; k < g; k++) {
		if (have[k])
			folded_reader_feed(r[k], bufs + (size_t)k * gather, have[k]);
		folded_reader_free(r[k]);
		tree_finalize(&b->trees[parts[k]], b->torder);
		/* its names into the result's table, and its own freed */
		pthread_mutex_lock(&b->names_mu);
		tree_join_names(b->dst, &b->trees[parts[k]]);
		pthread_mutex_unlock(&b->names_mu);
		/* its index is read: gone (this thread's alone) */
		for (int i = 0; i < b->nranges; i++) {
			bytes += b->ranges[i].bytes[parts[k]];
			free(b->ranges[i].idx[parts[k]]);
			b->ranges[i].idx[parts[k]] = NULL;
		}
	}
	atomic_fetch_add(&b->built, bytes);
}

/* Takes groups of parts until none is left. */
static void build_groups(struct build *b, struct load_progress *pr)
{
	char *bufs = xmalloc((size_t)PART_GROUP * b->gather);
	for (;;) {
		int k = atomic_fetch_add(&b->next, 1);
		if (k >= b->ngroups)
			break;
		int g = b->nfilled - k * b->group < b->group ? b->nfilled - k * b->group : b->group;
		build_group(b, b->order + (size_t)k * (size_t)b->group, g, bufs);
		if (pr)
			progress(pr, b);
	}
	free(bufs);
}

static void *build_main(void *arg)
{
	build_groups(arg, NULL);
	return NULL;
}

/* Whether d[0..len) looks sorted: in PROBE_WINDOWS stretches spread over
 * it, at least 9 in 10 consecutive stacks in byte order. */
static bool looks_sorted(const char *d, size_t len)
{
	size_t pairs = 0, sorted = 0;
	uint64_t scanned = 0;
	for (size_t w = 0; w < PROBE_WINDOWS; w++) {
		size_t from = len / PROBE_WINDOWS * w, hi = w + 1 < PROBE_WINDOWS ? len / PROBE_WINDOWS * (w + 1) : len;
		size_t p = w ? load_cut_in(d, from, hi, false, &scanned) : 0;
		if (w && !p)
			continue;
		const char *prev = NULL;
		size_t prevlen = 0;
		for (int k = 0; k < PROBE_LINES && p < hi; k++) {
			const char *nl = memchr(d + p, '\n', hi - p);
			size_t e = nl ? (size_t)(nl - d) : hi, stack;
			struct tree_dec c, before;
			if (folded_parse_line(d + p, e - p, &stack, &c, &before) == FOLDED_STACK) {
				if (prev) {
					int cmp = memcmp(prev, d + p, prevlen < stack ? prevlen : stack);
					pairs++;
					sorted += cmp < 0 || (cmp == 0 && prevlen <= stack);
				}
				prev = d + p;
				prevlen = stack;
			}
			p = e + 1;
		}
	}
	return pairs > 0 && sorted * 10 >= pairs * 9;
}

static int cmp_bytes_desc(const void *a, const void *b, const uint64_t *bytes)
{
	uint64_t x = bytes[*(const int *)a], y = bytes[*(const int *)b];
	return x < y ? 1 : x > y ? -1 : (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

static const uint64_t *sort_bytes;      /* qsort's context */

static int cmp_parts(const void *a, const void *b)
{
	return cmp_bytes_desc(a, b, sort_bytes);
}

static void free_ranges(struct range *rg, int nr)
{
	for (int i = 0; i < nr; i++) {
		for (int p = 0; p < rg[i].nparts; p++)
			free(rg[i].idx[p]);
		free(rg[i].idx);
		free(rg[i].n);
		free(rg[i].cap);
		free(rg[i].bytes);
	}
	free(rg);
}

bool load_parts(struct tree *t, struct source *s, const struct load_options *o, struct load_progress *pr,
                struct load_messages *m, const char *name)
{
	const char *d;
	size_t len;
	const char *pe = getenv("TFLAME_PARTS");
	int nparts = pe && atoi(pe) > 0 ? atoi(pe) : 0;
	if (nparts > PART_MAX_COUNT)
		nparts = PART_MAX_COUNT;
	if (t->n != 1 || t->stacks || t->chart || o->before || o->order == TREE_ORDER_INPUT ||
	    !source_mapping(s, &d, &len) || len >= UINT32_MAX)
		return false;
	/* TFLAME_PARTS (tests): in that many parts, whatever the file. */
	if (!nparts && (len < PART_MIN_BYTES || looks_sorted(d, len)))
		return false;
	if (!nparts)
		nparts = PART_COUNT;
	int nthr = o->threads < 1 ? 1 : o->threads > PART_MAX_THREADS ? PART_MAX_THREADS : o->threads;

	/* The first pass: the file in one range per thread, at line starts. */
	size_t cut[PART_MAX_THREADS + 1];
	int nr = (int)load_cuts(d, len, false, (size_t)nthr, cut, NULL);
	struct range *rg = xcalloc((size_t)nr, sizeof *rg);
	for (int i = 0; i < nr; i++) {
		rg[i].d = d;
		rg[i].lo = cut[i];
		rg[i].hi = cut[i + 1];
		rg[i].nparts = nparts;
		rg[i].idx = xcalloc((size_t)nparts, sizeof *rg[i].idx);
		rg[i].n = xcalloc((size_t)nparts, sizeof *rg[i].n);
		rg[i].cap = xcalloc((size_t)nparts, sizeof *rg[i].cap);
		rg[i].bytes = xcalloc((size_t)nparts, sizeof *rg[i].bytes);
		atomic_init(&rg[i].done, 0);
	}
	struct build b = { .d = d, .len = len, .ranges = rg, .nranges = nr, .nparts = nparts, .torder = o->order,
	                   .dst = t };
	pthread_mutex_init(&b.names_mu, NULL);
	atomic_init(&b.next, 0);
	atomic_init(&b.built, 0);
	pthread_t tid[PART_MAX_THREADS];
	bool on[PART_MAX_THREADS] = { false };
	for (int i = 1; i < nr; i++)
		on[i] = pthread_create(&tid[i], NULL, cut_main, &rg[i]) == 0;
	cut_range(&rg[0]);
	progress(pr, &b);
	for (int i = 1; i < nr; i++) {
		if (on[i])
			pthread_join(tid[i], NULL);
		else
			cut_range(&rg[i]);
	}
	/* Diagnostics of the whole file, in line order; what cannot go in
	 * parts (fractional or clamped counts, a sum beyond 64 bits) is read
	 * the usual way. */
	struct reader_diag all = { 0 };
	uint64_t sum = 0;
	bool unfit = false;
	for (int i = 0; i < nr; i++) {
		const struct reader_diag *dg = &rg[i].diag;
		if (dg->bad && !all.bad) {
			all.first_bad = all.lines + dg->first_bad;
			memcpy(all.first_msg, dg->first_msg, sizeof all.first_msg);
		}
		all.lines += dg->lines;
		all.stacks += dg->stacks;
		all.bad += dg->bad;
		unfit |= rg[i].unfit || __builtin_add_overflow(sum, rg[i].sum, &sum);
	}
	b.stacks = all.stacks;
	if (unfit) {
		pthread_mutex_destroy(&b.names_mu);
		free_ranges(rg, nr);
		return false;
	}

	/* The parts, biggest first, on every thread. */
	uint64_t *bytes = xcalloc((size_t)nparts, sizeof *bytes);
	b.order = xmalloc((size_t)nparts * sizeof *b.order);
	for (int p = 0; p < nparts; p++) {
		b.order[p] = p;
		for (int i = 0; i < nr; i++)
			bytes[p] += rg[i].bytes[p];
	}
	sort_bytes = bytes;
	qsort(b.order, (size_t)nparts, sizeof *b.order, cmp_parts);
	sort_bytes = NULL;
	b.trees = xcalloc((size_t)nparts, sizeof *b.trees);
	for (int p = 0; p < nparts; p++)
		tree_init(&b.trees[p]);
	/* Groups of parts, round robin in size order so that they weigh
	 * alike; the order array is rearranged group by group. */
	b.group = PART_GROUP;
	b.gather = PART_GATHER;
	b.ngroups = (nparts + b.group - 1) / b.group;
	int *grouped = xmalloc((size_t)b.ngroups * (size_t)b.group * sizeof *grouped);
	for (int k = 0; k < b.ngroups * b.group; k++) {
		int gi = k / b.group, slot = k % b.group, src = slot * b.ngroups + gi;
		grouped[k] = src < nparts ? b.order[src] : -1;
	}
	/* a last group may have empty slots: move its parts first */
	int filled = 0;
	for (int k = 0; k < b.ngroups * b.group; k++)
		if (grouped[k] >= 0)
			grouped[filled++] = grouped[k];
	free(b.order);
	b.order = grouped;
	/* (groups of b.group consecutive entries; the last may be short) */
	b.ngroups = (filled + b.group - 1) / b.group;
	b.nfilled = filled;
	for (int i = 1; i < nthr; i++)
		on[i] = pthread_create(&tid[i], NULL, build_main, &b) == 0;
	build_groups(&b, pr);
	for (int i = 1; i < nthr; i++)
		if (on[i])
			pthread_join(tid[i], NULL);
	free(bytes);
	free(b.order);
	free_ranges(rg, nr);

	pthread_mutex_destroy(&b.names_mu);
	bool ok = tree_join(t, b.trees, (size_t)nparts, o->order);
	if (!ok) {
		/* cannot happen (the parts' pairs of first frames are their
		 * own): read the usual way */
		for (int p = 0; p < nparts; p++)
			tree_free(&b.trees[p]);
	}
	free(b.trees);
	if (!ok)
		return false;
	load_progress_update(pr, len, len, t->stacks, true);
	load_report_diag(m, name, &all, o);
	return true;
}
