/* pprof: profile.proto (github.com/google/pprof, proto/profile.proto; its
 * field numbers and comments were read for the rules, no code comes from
 * there) to stacks.
 *
 * The protobuf wire format is read here directly, lazily: no message is
 * unpacked into structs. Fields refer to each other by id and the string
 * table usually comes last, so the message is held whole (in place when
 * the file is mapped) and read twice:
 *   1. index: sample types, strings (pointer and length), functions and
 *      mappings (small structs), locations (id and where their bytes are),
 *      each kind with an id map (a direct array for ids up to the count,
 *      the common case of ids that are indices, a hash for the rest);
 *      where the samples are (in a big message, those of its second half
 *      hopped over on a second thread: see pprof_index.c's spec_run).
 *      Then every location is resolved to its frames, in file order
 *      (sequential reads; see pp_resolve_all).
 *   2. samples: each sample's location ids (leaf first) are looked up and
 *      its stack handed to the tree root first, as names interned once per
 *      frame and tree; the frames it shares with the previous stack are
 *      not looked up again. A stack already seen (same bytes, label root
 *      and tree) is only counted, and every stack goes to the tree once at
 *      the end (see seen_find): its names interned in order of first
 *      appearance, the stacks sorted by them where the order does not
 *      show (see seen_add_sorted). The samples' pages of a mapped file
 *      are given back as they are passed (see give_back). On two threads
 *      or more, the last 3/8 of a big profile's samples are read on a
 *      second thread into a cache of its own, whose stacks are then taken
 *      in order of first appearance (see pp_samples).
 * A stream decompressed on a thread of its own is waited for: while it
 * arrives, its samples are counted by stack (pprof_pre.c) as far as they
 * can be without the rest of the message; then those stacks go to the
 * cache in their order of first appearance (see pre_merge), as if read
 * one by one, pass 1 skips them, and pass 2 goes on after them. A file's
 * samples counted so give up their pages to the bytes still to come
 * (struct pp_input); the file is read again in the rare case that the
 * counts then do not stand (another default type, a malformed id).
 * What the messages count (dangling references, malformed locations, ...)
 * is counted per sample as the samples reach it, whatever was cached.
 * Framing errors (a tag, length or varint that does not fit) anywhere that
 * pass 1 reads make the profile unreadable before anything is added; a
 * sample or location whose own contents are malformed is skipped and
 * counted.
 *
 * The files: pprof_wire.c (the wire format, sniffing), pprof_index.c
 * (pass 1), pprof_pre.c (the samples counted as a stream arrives),
 * pprof_read.c (a stream into memory),
 * pprof_stack.c (a sample's locations to a stack in a tree),
 * this one (pass 2, the repeated-stack cache, the entry point); what they
 * share is in pprof_int.h. */
#include "config.h"
#include "pprof.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "arena.h"
#include "pprof_int.h"
#include "text.h"
#include "xalloc.h"

#define PP_PROGRESS_STEP ((size_t)16 << 20)

/* ---- repeated stacks ----------------------------------------------------------- */

/* A writer that does not aggregate (one sample per tick) repeats the same
 * stacks over and over; Go's samples repeat a stack under different labels.
 * Such a sample is found by the bytes of its packed location ids (a copy
 * is kept), its label root and its tree, and only counted: every stack
 * goes to the tree once, with its summed count, when the samples are done
 * (seen_add: in order of first appearance, so that the tree gets its nodes
 * and names in the same order as sample by sample). When few of SEEN_PROBE
 * samples repeat (aggregated profiles, or --label-root on one), the
 * lookups stop (the stacks held are added then and the rest as they
 * come); at most PP_SEEN_MAX stacks are held, and a lookup that reads more
 * than PP_SEEN_PROBES slots (keys that collide, as an input can be made to)
 * stops them too. */
#define SEEN_PROBE 4096

static uint64_t bytes_hash(const unsigned char *p, size_t n, uint64_t seed)
{
	uint64_t h = seed ^ ((uint64_t)n * 0x9e3779b97f4a7c15ULL), v;
	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&v, p, 8);
		h = (h ^ v) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	if (n) {
		v = 0;
		memcpy(&v, p, n);
		h = (h ^ v) * 0xff51afd7ed558ccdULL;
	}
	return pp_mix64(h);
}

static uint64_t seen_hash(const unsigned char *p, size_t len, int w, unsigned lab, int64_t lv)
{
	return pp_key_hash(p, len, pp_mix64((uint64_t)lv) ^ (lab * 2 + (unsigned)w));
}

static void seen_place(struct pp_seen *s, uint64_t slot)
{
	size_t j = (size_t)(slot >> 32) & s->mask;
	while (s->slots[j])
		j = (j + 1) & s->mask;
	s->slots[j] = slot;
}

/* The bytes of an entry with a key of len bytes and those flags. */
static size_t seen_size(size_t len, unsigned flags)
{
	size_t extra = (flags & PP_SEEN_BAD ? 4 : 0) + (flags & PP_SEEN_LV ? 8 : 0);
	return (offsetof(struct pp_seen_e, key) + len + extra + 7) & ~(size_t)7;
}

/* The bytes from the entry (or fill) at p to the next. */
static size_t seen_step(const unsigned char *p)
{
	const struct pp_seen_e *e = (const struct pp_seen_e *)p;
	return e->len == PP_SEEN_FILL ? e->fill : seen_size(e->len, e->flags);
}

static uint32_t seen_bad(const struct pp_seen_e *e)
{
	uint32_t v = 0;
	if (e->flags & PP_SEEN_BAD)
		memcpy(&v, e->key + e->len, sizeof v);
	return v;
}

static int64_t seen_lv(const struct pp_seen_e *e)
{
	int64_t v = 0;
	if (e->flags & PP_SEEN_LV)
		memcpy(&v, e->key + e->len + (e->flags & PP_SEEN_BAD ? 4 : 0), sizeof v);
	return v;
}

/* The entry of this stack, or NULL. Valid until seen_insert. */
static struct pp_seen_e *seen_find(struct pp_seen *s, uint64_t h, const unsigned char *p, size_t len,
                                   int w, unsigned lab, int64_t lv)
{
	s->lookups++;
	if (!s->slots)
		return NULL;
	uint64_t tag = h & 0xffffffff00000000ULL;
	unsigned probes = 0;
	for (size_t j = (size_t)(h >> 32) & s->mask; s->slots[j]; j = (j + 1) & s->mask) {
		if (++probes > PP_SEEN_PROBES) {
			s->off = true;  /* keys made to collide: no more lookups */
			return NULL;
		}
		if ((s->slots[j] & 0xffffffff00000000ULL) != tag)
			continue;
		struct pp_seen_e *e = (struct pp_seen_e *)(s->mem + ((s->slots[j] & 0xffffffff) - 1) * 8);
		if (e->len == len && e->w == w && e->lab == lab && seen_lv(e) == lv && memcmp(e->key, p, len) == 0) {
			s->hits++;
			return e;
		}
	}
	return NULL;
}

/* Holds a new stack with its first count; false when it is not held (then
 * it is added now, after the held ones: see seen_add). */
static bool seen_insert(struct pp_seen *s, uint64_t h, const unsigned char *p, size_t len, int w,
                        unsigned lab, int64_t lv, uint64_t bad_refs, bool cut, uint64_t count)
{
	if (s->lookups >= SEEN_PROBE) {
		if (s->hits * 16 < s->lookups && !s->cold)
			s->off = true;  /* few repeats: not worth the lookups */
		s->lookups = s->hits = 0;
	}
	unsigned flags = (cut ? PP_SEEN_CUT : 0) | (bad_refs ? PP_SEEN_BAD : 0) | (lv ? PP_SEEN_LV : 0);
	size_t size = seen_size(len, flags);
	if (s->off || s->n >= PP_SEEN_MAX || len >= PP_SEEN_FILL || bad_refs > UINT32_MAX ||
	    (s->nmem + size + 64) / 8 >= UINT32_MAX)
		return false;
	/* at most 3 slots in 8 filled: short runs of slots to probe (make
	 * bench's pprof load: 0.95 -> 0.89 user s against 3 in 4, for 8 MB
	 * more slots) */
	if (!s->append_only && ((s->n + 1) * 8 > (s->mask + 1) * 3 || !s->slots)) {
		uint64_t *old = s->slots;
		size_t nold = old ? s->mask + 1 : 0, first = 1024;
		while (first * 3 < s->hint * 8 && first < PP_SEEN_MAX * 4)
			first *= 2;     /* as big as the stacks expected need */
		s->slots = xcalloc(nold ? nold * 2 : first, sizeof *s->slots);
		s->mask = (nold ? nold * 2 : first) - 1;
		for (size_t i = 0; i < nold; i++)
			if (old[i])
				seen_place(s, old[i]);
		free(old);
	}
	s->mem = pp_grow(s->mem, &s->capmem, s->nmem + size + 64, 1);
	size_t line = (uintptr_t)(s->mem + s->nmem) % 64;
	if (size <= 64 && line + size > 64) {
		struct pp_seen_e *f = (struct pp_seen_e *)(s->mem + s->nmem);
		f->len = PP_SEEN_FILL;
		f->fill = (uint32_t)(64 - line);    /* 8-byte steps: at least 8 */
		s->nmem += 64 - line;
	}
	struct pp_seen_e *e = (struct pp_seen_e *)(s->mem + s->nmem);
	memcpy(e->key, p, len);
	e->len = (uint32_t)len;
	e->count = count;
	e->w = (uint8_t)w;
	e->lab = (uint8_t)lab;
	e->flags = (uint8_t)flags;
	if (bad_refs) {
		uint32_t b = (uint32_t)bad_refs;
		memcpy(e->key + len, &b, sizeof b);
	}
	if (lv)
		memcpy(e->key + len + (bad_refs ? 4 : 0), &lv, sizeof lv);
	if (!s->append_only)
		seen_place(s, (h & 0xffffffff00000000ULL) | (s->nmem / 8 + 1));
	s->nmem += size;
	s->n++;
	return true;
}

/* ---- the held stacks in sorted order ------------------------------------------- */

/* The held stacks go to the tree at the end in first-appearance order
 * (when nothing depends on that order: see seen_sorted_ok) only as far as
 * their names go: the names are interned as each stack is first held
 * (seen_names), so that the name table is the same; the stacks are then
 * added sorted by their names from the root (seen_add_sorted; the names
 * ranked by their bytes first, name_ranks), so that each shares all it can
 * with the one before it, and nothing is looked up in the tree (where first
 * appearance looked up nearly every frame in the child hash: 8.4M lookups
 * for make bench's 650k stacks of 8.6M frames). For name and weight order
 * the finalized tree is the same whatever the order of its stacks (sibling
 * names differ, ties in weight go by name; saturating sums do not depend
 * on the order). The names are kept as records (pp_seen.rec), at most
 * twice the entries' own bytes (REC_SLACK more: 4 bytes a frame against
 * a key's 1 to 3 a location; Go's CPU profile takes 1.7 times), and the
 * entries are freed before the stacks are added (and a mapped file's
 * samples given back), so that the memory stays what the tree takes. */
#define REC_SLACK ((size_t)1 << 20)

static void rec_drop(struct pp_seen *s)
{
	free(s->rec);
	s->rec = NULL;
	s->nrec = s->caprec = 0;
	s->rec_off = true;
}

/* For the stack just held (d->slocs[0..n), lab, lv; tree t, w): its names
 * interned and, while records are kept, recorded. */
static void seen_names(struct pp *d, struct tree *t, int w, size_t n, unsigned lab, int64_t lv)
{
	struct pp_seen *s = &d->seen;
	bool cut;
	size_t nf = pp_stack_ids(d, t, w, n, lab, lv, &cut);
	if (s->rec_off)
		return;
	if (w || t->chart || (s->nrec + 3 + nf) * sizeof *s->rec > 2 * (s->nmem - s->added) + REC_SLACK) {
		rec_drop(s);
		return;
	}
	s->rec = pp_grow(s->rec, &s->caprec, s->nrec + 3 + nf, sizeof *s->rec);
	uint32_t *r = s->rec + s->nrec;
	r[0] = r[1] = 0;
	r[2] = (uint32_t)nf;    /* nf <= PP_MAX_FRAMES */
	memcpy(r + 3, d->ids, nf * sizeof *r);
	s->nrec += 3 + nf;
}

/* Whether the stacks held from `added` on may go to the tree sorted. */
static bool seen_sorted_ok(const struct pp *d)
{
	const struct pp_seen *s = &d->seen;
	return !s->rec_off && s->added < s->nmem && d->o && d->o->order != TREE_ORDER_INPUT && !d->t->chart &&
	       strtab_count(&d->t->names) < UINT32_MAX - 1 && s->nrec < UINT32_MAX;
}

/* A held stack to sort: its key (names from a depth on, see rec_key), its
 * record and its number of names. */
struct srt {
	uint64_t key;
	uint32_t at, nf;
};

/* The 64 / bits names of the stack ids[0..nf) from depth dep on, each its
 * name's rank (rank NULL: its id) + 1 (0 past the stack's end: a stack
 * sorts before those it starts), the first in the highest bits. */
static inline uint64_t rec_key(const uint32_t *ids, size_t nf, size_t dep, unsigned bits, const uint32_t *rank)
{
	uint64_t k = 0;
	for (unsigned i = 0; i < 64 / bits; i++)
		k = k << bits | (dep + i < nf ? (uint64_t)(rank ? rank[ids[dep + i]] : ids[dep + i]) + 1 : 0);
	return k;
}

/* Each name's place in the names sorted by their bytes (a name before the
 * longer ones it starts): stacks sorted so come in the tree's name order
 * (but where tree_add_stacks_new sees otherwise), which finalize then
 * neither sorts nor moves: 0.17 -> 0.04 s of make bench's pprof file. */
static _Thread_local const struct strtab *rank_names;  /* qsort's context */

static int cmp_rank(const void *a, const void *b)
{
	strtab_id x = *(const strtab_id *)a, y = *(const strtab_id *)b;
	size_t lx = strtab_len(rank_names, x), ly = strtab_len(rank_names, y);
	int c = memcmp(strtab_str(rank_names, x), strtab_str(rank_names, y), lx < ly ? lx : ly);
	return c ? c : (lx > ly) - (lx < ly);
}

/* Each name's rank by bytes, then (after the n ranks) a byte a name: 1
 * when it starts the name ranked next (see tree_name_order). */
static uint32_t *name_ranks(const struct strtab *st)
{
	size_t n = strtab_count(st);
	strtab_id *by = xmalloc((n ? n : 1) * sizeof *by);
	uint32_t *rank = xmalloc((n ? n : 1) * (sizeof *rank + 1));
	uint8_t *pfx = (uint8_t *)(rank + n);
	for (size_t i = 0; i < n; i++)
		by[i] = (strtab_id)i;
	rank_names = st;
	qsort(by, n, sizeof *by, cmp_rank);
	rank_names = NULL;
	for (size_t i = 0; i < n; i++) {
		rank[by[i]] = (uint32_t)i;
		size_t l = strtab_len(st, by[i]);
		pfx[by[i]] = i + 1 < n && l <= strtab_len(st, by[i + 1]) &&
		             memcmp(strtab_str(st, by[i]), strtab_str(st, by[i + 1]), l) == 0;
	}
	free(by);
	return rank;
}

/* tree_add_stacks_new's view of name_ranks' n ranks (NULL: none). */
static struct tree_name_order rank_order(const uint32_t *rank, size_t n)
{
	return (struct tree_name_order){ rank, rank ? (const uint8_t *)(rank + n) : NULL, rank ? n : 0 };
}

/* A batch of held stacks to d->t: made without lookups when the tree held
 * nothing before them (fresh). */
static void add_batch(struct pp *d, bool fresh, const struct tree_stack *s, size_t n,
                      const struct tree_name_order *by)
{
	if (fresh)
		tree_add_stacks_new(d->t, s, n, by);
	else
		tree_add_stacks(d->t, s, n);
}

/* Sorts v[0..n) by key (tmp: room for n). */
static void srt_sort(struct srt *v, struct srt *tmp, size_t n)
{
	if (n < 2)
		return;
	if (n < 512) {
		/* runs of 8 by insertion, then merges */
		for (size_t lo = 0; lo < n; lo += 8) {
			size_t hi = lo + 8 < n ? lo + 8 : n;
			for (size_t i = lo + 1; i < hi; i++) {
				struct srt x = v[i];
				size_t j = i;
				for (; j > lo && v[j - 1].key > x.key; j--)
					v[j] = v[j - 1];
				v[j] = x;
			}
		}
		struct srt *src = v, *dst = tmp;
		for (size_t w = 8; w < n; w *= 2) {
			for (size_t lo = 0; lo < n; lo += 2 * w) {
				size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
				size_t a = lo, b = mid, o = lo;
				while (a < mid && b < hi)
					dst[o++] = src[b].key < src[a].key ? src[b++] : src[a++];
				while (a < mid)
					dst[o++] = src[a++];
				while (b < hi)
					dst[o++] = src[b++];
			}
			struct srt *x = src;
			src = dst;
			dst = x;
		}
		if (src != v)
			memcpy(v, src, n * sizeof *v);
		return;
	}
	/* LSD radix by bytes, those that all keys share skipped */
	size_t cnt[8][256] = { { 0 } };
	for (size_t i = 0; i < n; i++)
		for (unsigned b = 0; b < 8; b++)
			cnt[b][(v[i].key >> (8 * b)) & 255]++;
	struct srt *src = v, *dst = tmp;
	for (unsigned b = 0; b < 8; b++) {
		size_t *c = cnt[b];
		if (c[(v[0].key >> (8 * b)) & 255] == n)
			continue;
		size_t at = 0;
		for (unsigned k = 0; k < 256; k++) {
			size_t x = c[k];
			c[k] = at;
			at += x;
		}
		for (size_t i = 0; i < n; i++)
			dst[c[(src[i].key >> (8 * b)) & 255]++] = src[i];
		struct srt *x = src;
		src = dst;
		dst = x;
	}
	if (src != v)
		memcpy(v, src, n * sizeof *v);
}

/* What sorting one range of equal keys needs (see srt_names). */
struct srt_ctx {
	struct srt *v, *tmp;            /* tmp: as long as v, used at the
	                                   range's own places */
	const uint32_t *rec, *rank;
	unsigned bits;
	uint32_t *lcp;
};

struct srt_range {
	size_t lo, hi, dep;
};

/* Sorts range g (its keys of depth g.dep made here unless 0), sets lcp in
 * it, and pushes its ranges of equal keys that names below decide onto
 * *todo. */
static void srt_group(const struct srt_ctx *c, struct srt_range g, struct srt_range **todo, size_t *ntodo,
                      size_t *cap)
{
	struct srt *v = c->v;
	const unsigned per = 64 / c->bits;
	const uint64_t last = c->bits == 16 ? 0xffff : 0xffffffff;
	if (g.dep)
		for (size_t i = g.lo; i < g.hi; i++) {
			if (i + 8 < g.hi)
				__builtin_prefetch(c->rec + v[i + 8].at + 3 + g.dep);
			v[i].key = rec_key(c->rec + v[i].at + 3, v[i].nf, g.dep, c->bits, c->rank);
		}
	srt_sort(v + g.lo, c->tmp + g.lo, g.hi - g.lo);
	for (size_t a = g.lo, b; a < g.hi; a = b) {
		for (b = a + 1; b < g.hi && v[b].key == v[a].key; b++)
			c->lcp[b] = v[b].nf;    /* the same names, or pushed below */
		if (a > g.lo) {
			uint64_t x = v[a - 1].key ^ v[a].key;
			c->lcp[a] = (uint32_t)(g.dep + (unsigned)__builtin_clzll(x) / c->bits);
		}
		/* names to the key's last all the same and present: those
		 * below it decide */
		if (b - a > 1 && (v[a].key & last)) {
			*todo = pp_grow(*todo, cap, *ntodo + 1, sizeof **todo);
			(*todo)[(*ntodo)++] = (struct srt_range){ a, b, g.dep + per };
		}
	}
}

/* Sorts every range from *todo down (their own ranges, depth first). */
static void srt_drain(const struct srt_ctx *c, struct srt_range **todo, size_t *ntodo, size_t *cap)
{
	while (*ntodo) {
		struct srt_range g = (*todo)[--*ntodo];
		srt_group(c, g, todo, ntodo, cap);
	}
}

/* The ranges below the first names, shared by two threads: each takes the
 * next one not taken, and its ranges below. */
struct srt_share {
	const struct srt_ctx *c;
	const struct srt_range *top;
	size_t ntop;
	atomic_size_t next;
	pthread_t th;
};

static void *srt_share_run(void *arg)
{
	struct srt_share *sh = arg;
	struct srt_range *todo = NULL;
	size_t ntodo = 0, cap = 0;
	for (size_t i; (i = atomic_fetch_add(&sh->next, 1)) < sh->ntop;) {
		todo = pp_grow(todo, &cap, 1, sizeof *todo);
		todo[0] = sh->top[i];
		ntodo = 1;
		srt_drain(sh->c, &todo, &ntodo, &cap);
	}
	free(todo);
	return NULL;
}

/* Below this many stacks the ranges below the first names are sorted on
 * one thread (make bench's pprof file: 700k stacks, 0.045 s of them). */
#define SRT_SHARE_MIN 65536

/* Sorts v[0..k) by the names of their records (rec) from the root, and
 * gives each place i > 0 the names that its stack shares with the one
 * before (lcp[i]): MSD, a key of 64 / bits names at a time, the ranges
 * of equal keys sorted again by the names below (on two threads when
 * two, the ranges being disjoint). Keys of depth 0 given. */
static void srt_names(struct srt *v, size_t k, const uint32_t *rec, unsigned bits, const uint32_t *rank,
                      uint32_t *lcp, bool two)
{
	struct srt_ctx c = { v, xmalloc((k ? k : 1) * sizeof *c.tmp), rec, rank, bits, lcp };
	struct srt_range *todo = NULL;
	size_t ntodo = 0, cap = 0;
	if (k > 1)
		srt_group(&c, (struct srt_range){ 0, k, 0 }, &todo, &ntodo, &cap);
	if (two && k >= SRT_SHARE_MIN && ntodo >= 2) {
		struct srt_share sh = { .c = &c, .top = todo, .ntop = ntodo };
		atomic_init(&sh.next, 0);
		bool started = pthread_create(&sh.th, NULL, srt_share_run, &sh) == 0;
		srt_share_run(&sh);
		if (started)
			pthread_join(sh.th, NULL);
		ntodo = 0;
	}
	srt_drain(&c, &todo, &ntodo, &cap);
	free(todo);
	free(c.tmp);
}

/* Adds the stacks held from `added` on (seen_sorted_ok) to d->t, sorted by
 * their names from the root, and frees the entries and records. */
static void seen_add_sorted(struct pp *d)
{
	struct pp_seen *s = &d->seen;
	size_t n = s->n, k = 0;
	struct srt *v = xmalloc((n ? n : 1) * sizeof *v);
	unsigned bits = strtab_count(&d->t->names) < 65535 ? 16 : 32;
	/* by the names' ranks where that leaves the tree in name order (a
	 * tree empty before, finalized by name); elsewhere finalize sorts
	 * whatever the order, and ids are enough */
	uint32_t *own = NULL;
	const uint32_t *rank = NULL;
	if (d->o->order == TREE_ORDER_NAME && tree_size(d->t) == 1) {
		rank = d->rank && d->nrank == strtab_count(&d->t->names) ? d->rank : NULL;
		if (!rank)
			rank = own = name_ranks(&d->t->names);
	}
	/* the counts into the records, which are in the entries' order */
	for (size_t i = s->added, at = 0; i < s->nmem; i += seen_step(s->mem + i)) {
		const struct pp_seen_e *e = (const struct pp_seen_e *)(s->mem + i);
		if (e->len == PP_SEEN_FILL)
			continue;
		uint32_t *r = s->rec + at;
		r[0] = (uint32_t)e->count;
		r[1] = (uint32_t)(e->count >> 32);
		if (e->count && k < n)
			v[k++] = (struct srt){ rec_key(r + 3, r[2], 0, bits, rank), (uint32_t)at, r[2] };
		at += 3 + r[2];
	}
	free(s->mem);       /* their room is the tree's now */
	s->mem = NULL;
	s->nmem = s->capmem = s->added = s->n = 0;
	uint32_t *lcp = xmalloc((k ? k : 1) * sizeof *lcp);
	/* on two threads but in a part's worker (parts run on the others) */
	srt_names(v, k, s->rec, bits, rank, lcp, d->o->threads >= 2 && !d->issues_later);
	pp_flush(d, 0);     /* the tree's last stack is then prev[0]'s */
	/* in batches whose tails are the records' names: each keeps what it
	 * shares with the stack before (the tree's last one, for the first).
	 * Into a tree without nodes yet, the first name of each tail is no
	 * child of what it keeps: its nodes are made without lookups. */
	bool fresh = tree_size(d->t) == 1;
	/* the ranks tell tree_add_stacks_new the names' order without their
	 * bytes (memcmp 3.6 -> 2.1% of make bench's pprof file) */
	struct tree_name_order by = rank_order(rank, strtab_count(&d->t->names));
	if (fresh && k) {
		/* every tail frame is a new node: the array grown once, not
		 * doubled and copied as it fills (a part's tree, make bench's
		 * unique file: 3.5% of its load); its fresh pages faulted in
		 * on the other core too, which has nothing else to do now */
		size_t nodes = v[0].nf;
		for (size_t i = 1; i < k; i++)
			nodes += v[i].nf - lcp[i];
		if (d->o->threads >= 2 && !d->issues_later)
			tree_reserve_prefault(d->t, nodes);
		else
			tree_reserve(d->t, nodes);
	}
	struct pp_prev *pv = &d->prev[0];
	size_t nb = 0;
	struct tree_stack batch[PP_BATCH];
	for (size_t i = 0; i < k; i++) {
		if (i + 4 < k) {
			__builtin_prefetch(s->rec + v[i + 4].at);
			__builtin_prefetch(s->rec + v[i + 4].at + 3 + lcp[i + 4]);
		}
		const uint32_t *r = s->rec + v[i].at, *ids = r + 3;
		size_t nf = v[i].nf, keep = 0;
		if (i) {
			keep = lcp[i];
		} else {
			size_t lim = nf < pv->n ? nf : pv->n;
			while (keep < lim && pv->ids[keep] == ids[keep])
				keep++;
		}
		batch[nb++] = (struct tree_stack){ keep, ids + keep, nf - keep,
		                                   { r[0] | (uint64_t)r[1] << 32, 0, false, false } };
		if (nb == PP_BATCH) {
			add_batch(d, fresh, batch, nb, &by);
			nb = 0;
		}
	}
	if (nb)
		add_batch(d, fresh, batch, nb, &by);
	tree_prefault_end(d->t);
	free(own);
	if (k) {    /* the last is the stack the next one follows */
		const uint32_t *r = s->rec + v[k - 1].at;
		pv->ids = pp_grow(pv->ids, &pv->cap, r[2], sizeof *pv->ids);
		if (r[2])
			memcpy(pv->ids, r + 3, r[2] * sizeof *pv->ids);
		pv->n = r[2];
	}
	free(lcp);
	free(v);
	free(s->rec);
	s->rec = NULL;
	s->nrec = s->caprec = 0;
}

/* Adds the held counts to the trees: the stacks not added yet (from
 * s->added on, in order), and with all, those added before that were seen
 * again since; with one, only the entry one (added before). What the
 * samples count was counted already, including the trees' stack counts. */
static void seen_add(struct pp *d, bool all, struct pp_seen_e *one)
{
	struct pp_seen *s = &d->seen;
	if (s->added == s->nmem && !all && !one)
		return;
	struct tree *t = d->t, *before = d->o ? d->o->before : NULL;
	pp_flush(d, 0);     /* stacks queued before these count as they are */
	pp_flush(d, 1);
	uint64_t stacks = t->stacks, bstacks = before ? before->stacks : 0;
	if (all) {          /* the end: no more lookups, the memory is the tree's */
		free(s->slots);
		s->slots = NULL;
	}
	/* the sample being read keeps its locations */
	uint32_t *tmp = d->slocs;
	size_t tcap = d->capslocs;
	d->slocs = d->dslocs;
	d->capslocs = d->capdslocs;
	bool sorted = all && seen_sorted_ok(d);
	size_t to = sorted ? s->added : s->nmem;    /* then the rest sorted */
	for (size_t i = all ? 0 : s->added; i < to || one;) {
		struct pp_seen_e *e = one ? one : (struct pp_seen_e *)(s->mem + i);
		if (e->len != PP_SEEN_FILL && e->count) {
			size_t n = 0;
			uint64_t bad_refs = d->bad_refs;
			pp_decode_locs(d, e->key, e->len, &n);   /* its ids were counted */
			d->bad_refs = bad_refs;
			pp_add_stack(d, e->w ? before : t, e->w, n, e->lab, seen_lv(e), e->count);
			e->count = 0;
		}
		if (one)
			break;
		i += seen_step(s->mem + i);
	}
	if (sorted)
		seen_add_sorted(d);
	if (!one) {
		s->added = s->nmem;
		s->nrec = 0;    /* the records' stacks are added */
	}
	pp_flush(d, 0);     /* before the stack counts are put back */
	pp_flush(d, 1);
	d->dslocs = d->slocs;
	d->capdslocs = d->capslocs;
	d->slocs = tmp;
	d->capslocs = tcap;
	t->stacks = stacks;
	if (before)
		before->stacks = bstacks;
}

/* ---- the samples --------------------------------------------------------------- */

/* A sample read ahead: its field, and for the repeated-stack lookup the
 * packed location ids it starts with (key NULL: none) and their hash as a
 * sample without a label root in t would have it. */
struct pp_ahead {
	struct pb_field f;
	const unsigned char *orig;  /* f.data in the input (f is read from a
	                               copy: see partition), for messages */
	const unsigned char *at;    /* where the input is after it */
	const unsigned char *key;
	size_t len;
	uint64_t h;
};

/* How far ahead: the slot of a sample PP_AHEAD on is fetched into the
 * cache, and the entry it names PP_AHEAD / 2 on, so that the lookups of
 * the samples between wait for memory together, not one after another. */
#define PP_AHEAD 16

/* Decodes the location field put off (*lp, len; none when *lp is NULL)
 * onto d->slocs[*n..]: 0 or -(enum pb_err). */
static int settle(struct pp *d, const unsigned char **lp, size_t len, size_t *n)
{
	if (!*lp)
		return 0;
	int r = pp_decode_locs(d, *lp, len, n);
	*lp = NULL;
	return r;
}

/* Reads one Sample message and adds it. */
static void do_sample(struct pp *d, struct tree *t, const struct pb_field *f, size_t vi,
                      struct pprof_info *info, const struct pp_ahead *pre)
{
	struct pb c = { f->data, f->data + f->len };
	struct pb_field g;
	struct pb_rep rep;
	size_t n = 0, nv = 0, nlocf = 0;
	int64_t value = 0;
	bool lfound = false, lnum = false;
	int64_t lval = 0;
	int r;
	uint64_t v;
	const char *key = d->o ? d->o->label_root : NULL;
	/* The first location field, when packed (as writers do), is decoded
	 * only once the sample is known to need it: a repeated stack is found
	 * by its bytes (see seen_find). Fields are still read in order: what
	 * a malformed sample reports and counts is the same. */
	const unsigned char *lp = NULL, *lp0 = NULL;
	size_t ll = 0;
	if (pre->key) {     /* that first field, as read ahead (ahead_key) */
		lp = lp0 = pre->key;
		ll = pre->len;
		nlocf = 1;
		c.p = pre->key + pre->len;
	}
	while ((r = pb_next(&c, &g)) > 0) {
		if (g.num == 1 && (g.wt == WT_VARINT || g.wt == WT_LEN)) {
			if (nlocf++ == 0 && g.wt == WT_LEN) {
				lp = lp0 = g.data;
				ll = g.len;
				continue;
			}
			lp0 = NULL;     /* not one packed field: not looked up */
			if ((r = settle(d, &lp, ll, &n)) < 0)
				break;
			if (g.wt == WT_LEN) {
				r = pp_decode_locs(d, g.data, g.len, &n);
			} else {
				d->slocs = pp_grow(d->slocs, &d->capslocs, n + 1, sizeof *d->slocs);
				uint32_t li = pp_loc_pos(d, g.v);
				if (li == PP_NONE)
					d->bad_refs++;
				d->slocs[n++] = li;
			}
		} else if (g.num == 2 && pb_rep_init(&rep, &g)) {
			while ((r = pb_rep_next(&rep, &v)) > 0)
				if (nv++ == vi)
					value = (int64_t)v;
		} else if (g.num == 3 && g.wt == WT_LEN && key && !lfound) {
			struct pb lc = { g.data, g.data + g.len };
			struct pb_field h;
			int64_t k = 0, s = 0, num = 0;
			bool has_num = false;
			while ((r = pb_next(&lc, &h)) > 0) {
				if (h.wt != WT_VARINT)
					continue;
				if (h.num == 1)
					k = (int64_t)h.v;
				else if (h.num == 2)
					s = (int64_t)h.v;
				else if (h.num == 3) {
					num = (int64_t)h.v;
					has_num = true;
				}
			}
			if (r == 0 && pp_str_is(d, k, key)) {
				lfound = true;
				lnum = has_num && !s;
				lval = lnum ? num : s;
			}
		}
		if (r < 0)
			break;
	}
	if (r < 0) {
		int e = settle(d, &lp, ll, &n);    /* it came first */
		pp_bad_sample(d, pre->orig, pb_why((enum pb_err)-(e < 0 ? e : r)));
		return;
	}
	if (nv <= vi) {
		if ((r = settle(d, &lp, ll, &n)) < 0) {
			pp_bad_sample(d, pre->orig, pb_why((enum pb_err)-r));
			return;
		}
		char why[sizeof d->why_sample_buf];
		snprintf(why, sizeof why, "%zu value%s for %zu sample types", nv, nv == 1 ? "" : "s", d->nvt);
		pp_bad_sample(d, pre->orig, why);
		return;
	}
	int w = 0;
	uint64_t count = (uint64_t)value;
	if (value < 0 && d->o && d->o->before) {
		t = d->o->before;
		w = 1;
		count = 0 - (uint64_t)value;
	}
	unsigned lab = !key ? 0 : !lfound ? 1 : lnum ? 3 : 2;
	if (!lfound)
		lval = 0;
	struct pp_seen_e *e = NULL;
	uint64_t h = 0;
	bool look = lp0 && value != 0 && (value > 0 || w) && !t->chart && !d->seen.off;
	if (look)       /* the hash pp_samples made ahead, when it is this one's */
		h = pre->key == lp0 && pre->len == ll && !w && !lab ? pre->h : seen_hash(lp0, ll, w, lab, lval);
	if (look && (e = seen_find(&d->seen, h, lp0, ll, w, lab, lval))) {
		/* a repeat: counted as it was the first time, added at the end */
		if (e->count + count < count) {
			if (d->half) {
				d->half_failed = true;
				return;
			}
			/* the sum is beyond 64 bits: the tree says it saturated */
			seen_add(d, false, NULL);
			seen_add(d, false, e);
		}
		e->count += count;
		if (e->flags & PP_SEEN_BAD)
			d->bad_refs += seen_bad(e);
		d->cut_stacks += (e->flags & PP_SEEN_CUT) != 0;
		t->stacks++;
	} else {
		uint64_t bad_refs = d->bad_refs;
		if ((r = settle(d, &lp, ll, &n)) < 0) {
			pp_bad_sample(d, pre->orig, pb_why((enum pb_err)-r));
			return;
		}
		bad_refs = d->bad_refs - bad_refs;     /* dangling ids in it */
		if (value == 0)
			return;
		if (value < 0 && !w) {
			d->negative++;
			return;
		}
		bool cut = look && pp_stack_cut(d, n, lab);
		if (look && seen_insert(&d->seen, h, lp0, ll, w, lab, lval, bad_refs, cut, count)) {
			d->cut_stacks += cut;
			t->stacks++;
			if (!d->half)   /* the second half's: named when merged */
				seen_names(d, t, w, n, lab, lval);
		} else {
			if (d->half) {
				d->half_failed = true;
				return;
			}
			seen_add(d, false, NULL);        /* the held stacks came first */
			if (pp_add_stack(d, t, w, n, lab, lval, count))
				d->cut_stacks++;
		}
	}
	pp_label_count(d, lab, lval);
	info->samples++;
	uint64_t *sum = w ? &info->before_total : &info->total;
	*sum = *sum + count < count ? UINT64_MAX : *sum + count;
}

/* Looks at sample a's start: its packed location ids and their hash. */
static void ahead_key(struct pp *d, struct pp_ahead *a)
{
	const unsigned char *p = a->f.data, *end = p + a->f.len;
	uint64_t len;
	a->key = NULL;
	if (d->seen.off || (d->o && d->o->label_root) || p >= end || *p != (1 << 3 | WT_LEN))
		return;
	p++;
	if (pb_varint(&p, end, &len) != PB_OK || len > (uint64_t)(end - p))
		return;
	a->key = p;
	a->len = (size_t)len;
	a->h = seen_hash(p, a->len, 0, 0, 0);
	if (d->seen.slots)
		__builtin_prefetch(&d->seen.slots[(size_t)(a->h >> 32) & d->seen.mask]);
}

/* The entry that the slot of hash h names, into the cache (a hint: the
 * slot is read again when the lookup comes). Always inlined: gcc 12 (-O2)
 * takes a function whose only effect is a prefetch for one without
 * effects and drops its calls. */
static inline __attribute__((always_inline)) void seen_fetch(const struct pp_seen *s, uint64_t h, size_t len)
{
	if (!s->slots)
		return;
	uint64_t tag = h & 0xffffffff00000000ULL, v = 0;
	size_t j = (size_t)(h >> 32) & s->mask;
	for (int k = 0; k < 8; k++, j = (j + 1) & s->mask) {   /* as seen_find probes */
		v = s->slots[j];
		if (!v || (v & 0xffffffff00000000ULL) == tag)
			break;
	}
	if (!v || (v & 0xffffffff00000000ULL) != tag)
		return;
	size_t off = ((v & 0xffffffff) - 1) * 8;
	if (off >= s->nmem)
		return;
	const unsigned char *e = s->mem + off;
	__builtin_prefetch(e);
	/* its key's end, when the entry crosses a cache line (longer than
	 * one) */
	size_t end = offsetof(struct pp_seen_e, key) + len;
	if ((uintptr_t)e % 64 + end > 64 && off + end <= s->nmem)
		__builtin_prefetch(e + end - 1);
}

static inline __attribute__((always_inline)) void ahead_entry(const struct pp *d, const struct pp_ahead *a)
{
	if (a->key)
		seen_fetch(&d->seen, a->h, a->len);
}

/* The samples, read once each in file order, are given back as the reader
 * passes them (MADV_DONTNEED), so that the input's pages and the cache are
 * not both held at the peak: make bench's pprof file had 275 MB of them
 * resident when the cache was largest. A mapped file's pages are read
 * again from the file should anything touch them; the pages of the input
 * read into memory (decompressed) read as zeros then, so they are given
 * back only when nothing but samples lies between the first and the last
 * (nothing else points there: the samples' keys are copied). The pages
 * from *from to `to` are given back and *from moved past them. */
#define PP_GIVE_STEP ((size_t)8 << 20)
static void drop_pages(const unsigned char **from, const unsigned char *to);
static void give_back(const struct pp *d, const unsigned char **from, const unsigned char *to)
{
	if (!d->mapped && d->samples_mixed)
		return;
	drop_pages(from, to);
}

/* The whole pages from *from to `to` given back (MADV_DONTNEED), *from
 * moved past them. */
static void drop_pages(const unsigned char **from, const unsigned char *to)
{
	*from = xgive_back(*from, to);
}

/* Pass 2: the Sample fields, in file order from lo to hi (offs NULL) or
 * those at samples_at + offs[0..noffs) in that order, or (copied) those
 * from lo to hi of a copy of those, whose pages are given back as they
 * are passed; PP_AHEAD of them are read ahead. *done counts the samples
 * read, for the progress. The held stacks go to the trees at the end when
 * last. A thread's copy reading a half (d->half) stops when it fails. */
static void pp_samples_of(struct pp *d, struct tree *t, size_t vi, struct pprof_info *info,
                          const uint32_t *offs, size_t noffs, uint64_t *done, const unsigned char *lo,
                          const unsigned char *hi, bool last, bool copied)
{
	/* the samples' part only (writers put them together) */
	struct pb c = { lo, hi };
	struct pp_ahead ring[PP_AHEAD];
	size_t head = 0, n = 0, k = 0;  /* ring[head] is the next to add */
	uint64_t next = PP_PROGRESS_STEP, span = (uint64_t)(d->samples_end - d->samples_at);
	bool more = true;
	/* pages before `given`: given back (by a thread reading the second
	 * half, only a mapped file's: the main thread may read it again) */
	const unsigned char *given = lo;
	bool give = !offs && (d->mapped || !d->half);
	bool scattered = offs && !copied;
	d->t = t;
	if (!d->nsamples)
		c.p = c.end = d->data;
	for (;;) {
		while (more && n < PP_AHEAD) {
			struct pp_ahead *a = &ring[(head + n) % PP_AHEAD];
			const unsigned char *start;
			if (scattered) {
				if (k == noffs) {
					more = false;
					break;
				}
				if (k + PP_AHEAD < noffs) {
					/* and the next line: most samples cross one */
					__builtin_prefetch(d->samples_at + offs[k + PP_AHEAD]);
					__builtin_prefetch(d->samples_at + offs[k + PP_AHEAD] + 63);
				}
				c.p = d->samples_at + offs[k++];
			} else {    /* (a prefetch past the end is harmless) */
				__builtin_prefetch((const void *)((uintptr_t)c.p + PP_STREAM_AHEAD));
			}
			start = c.p;
			if (pb_next(&c, &a->f) <= 0) {  /* pass 1 checked the framing */
				more = false;
				break;
			}
			if (a->f.num != 2 || a->f.wt != WT_LEN)
				continue;
			a->orig = a->f.data;
			if (copied) {   /* the same bytes at samples_at + offs[k] */
				if (k < noffs)
					a->orig = d->samples_at + offs[k] + (a->f.data - start);
				k++;
			}
			a->at = c.p;
			ahead_key(d, a);
			n++;
			if (n > PP_AHEAD / 2)
				ahead_entry(d, &ring[(head + n - 1 - PP_AHEAD / 2) % PP_AHEAD]);
		}
		if (!n)
			break;
		struct pp_ahead *a = &ring[head];
		if (give && (size_t)(a->f.data - given) >= PP_GIVE_STEP)
			give_back(d, &given, a->f.data);   /* those before this sample */
		else if (copied && (size_t)(a->f.data - given) >= PP_GIVE_STEP)
			drop_pages(&given, a->f.data);
		do_sample(d, t, &a->f, vi, info, a);
		if (d->half_failed)
			break;
		head = (head + 1) % PP_AHEAD;
		n--;
		++*done;
		if (d->o && d->o->progress && !d->half) {
			/* in file order, where the input is; in parts, the share of
			 * the samples read */
			uint64_t at = offs ? (uint64_t)((double)*done / (double)d->nsamples * (double)span)
			                   : (uint64_t)(a->at - d->samples_at);
			if (at >= next) {
				next = at + PP_PROGRESS_STEP;
				d->o->progress(d->o->progress_arg, pp_off(d, d->samples_at) + at, d->size,
				               offs ? *done : t->stacks);
			}
		}
	}
	/* the rest of the samples' pages, before the held stacks make the
	 * tree */
	if (give && !d->half_failed)
		give_back(d, &given, hi);
	else if (copied)
		drop_pages(&given, hi);
	if (last)
		seen_add(d, true, NULL);
}

/* ---- the samples' second half on a thread --------------------------------------- */

/* With --threads of 2 or more, a big profile read in file order (its
 * stacks repeat: parts are not wanted) has the last part of its samples
 * (the "second half", from PP_HALF_AT on) read on a thread of its own,
 * into a repeated-stack cache of its own and no tree: what takes most of
 * the time (each sample's lookup in the cache waits on memory) is shared
 * by two cores. The main thread reads the first half as ever, then takes
 * the thread's stacks, in their order of first appearance, into its
 * cache: counts added to the stacks it holds, the others held (and
 * named) as new. So the stacks and their order of first appearance, and
 * the name table, are those of reading the samples one after another.
 * Not for label roots, --diff or flame charts; when either cache stops
 * holding stacks (few repeats, full), or the thread meets what only a
 * tree could take (a sum beyond 64 bits, locations not in one packed
 * field), the main thread reads the second half itself. */
#define PP_HALF_MIN ((uint64_t)1 << 18)     /* samples */

struct pp_half {
	struct pp d;                /* a copy: its own scratch, cache, counts */
	struct tree t;              /* not a tree: only its stack count */
	struct pprof_info info;
	size_t vi;
	const unsigned char *from;
	uint64_t done;
	pthread_t th;
};

/* Room for the cache's entries (and with names, its records) reserved
 * before it holds any, from the bytes of samples this reader is to read:
 * half of them for the entries (make bench's pprof file needs 28%), twice
 * that for the records (seen_names' bound). Grown by doubling instead,
 * each block was moved as it grew, and the pages a move maps anew cost
 * their faults again where faults are dear (a PVM guest: 11-15 us a page;
 * make bench's pprof file 2.45-3.04 -> 2.01-2.41 s there) besides the
 * copies. Room never written costs address space only; without that
 * (ulimit -v), the usual growth. */
#define PP_RESERVE_MAX ((size_t)1 << 30)
static void seen_reserve(struct pp *d, size_t bytes, bool names)
{
	struct pp_seen *s = &d->seen;
	size_t mem = bytes / 2 < PP_RESERVE_MAX ? bytes / 2 : PP_RESERVE_MAX;
	if (s->off || s->capmem || mem < ((size_t)1 << 20))
		return;
	void *p = malloc(mem);
	if (p) {
		s->mem = p;
		s->capmem = mem;
	}
	size_t recs = 2 * mem / sizeof *s->rec;
	if (names && !s->caprec && (p = malloc(recs * sizeof *s->rec))) {
		s->rec = p;
		s->caprec = recs;
	}
}

static void *half_run(void *arg)
{
	struct pp_half *h = arg;
	seen_reserve(&h->d, (size_t)(h->d.samples_end - h->from), false);
	pp_samples_of(&h->d, &h->t, h->vi, &h->info, NULL, 0, &h->done, h->from, h->d.samples_end, false, false);
	return NULL;
}

/* Where the thread starts: the mark past lo nearest PP_HALF_AT / 16 of the
 * samples' bytes from lo on, or NULL. The main thread's share costs more
 * a sample (it names the new stacks, first ones mostly, then merges): on
 * make bench's pprof file 9/16 to 11/16 took the same time, half and 3/8
 * more. */
#define PP_HALF_AT 10
static const unsigned char *half_from(const struct pp *d, const unsigned char *lo)
{
	const unsigned char *want = lo + (size_t)(d->samples_end - lo) / 16 * PP_HALF_AT;
	const unsigned char *best = NULL;
	for (size_t i = 1; i < d->nmarks; i++)
		if (d->marks[i] > lo && (!best || (d->marks[i] > want ? d->marks[i] - want : want - d->marks[i]) <
		                                      (best > want ? best - want : want - best)))
			best = d->marks[i];
	return best;
}

static bool repeats_often(struct pp *d);

/* The stacks must repeat (as parts want them not to): the thread's cache
 * starts cold in the middle, and is not turned off for few repeats
 * (pp_seen.cold). */
static bool half_wanted(struct pp *d, const struct tree *t, uint64_t left)
{
	const struct pprof_options *o = d->o;
	return o && o->threads >= 2 && !o->label_root && !o->before && !t->chart && left >= PP_HALF_MIN &&
	       d->nmarks >= 2 && repeats_often(d);
}

/* Adds what a reader's copy on another thread (a half's, a part
 * worker's) counted, c and ci, to d and info; its first bad sample is
 * d's when it comes first in the file. */
static void copy_count(struct pp *d, struct pprof_info *info, const struct pp *c, const struct pprof_info *ci)
{
	d->bad_refs += c->bad_refs;
	d->bad_strs += c->bad_strs;
	d->negative += c->negative;
	d->cut_stacks += c->cut_stacks;
	d->no_label += c->no_label;
	if (c->bad_samples) {
		if (!d->bad_samples || c->first_bad_sample < d->first_bad_sample) {
			d->first_bad_sample = c->first_bad_sample;
			memcpy(d->why_sample_buf, c->why_sample_buf, sizeof d->why_sample_buf);
			d->why_sample = d->why_sample_buf;
		}
		d->bad_samples += c->bad_samples;
	}
	info->samples += ci->samples;
	info->total = info->total + ci->total < info->total ? UINT64_MAX : info->total + ci->total;
}

/* Frees the scratch and caches a reader's copy on another thread has of
 * its own (a half's, a part worker's). */
static void copy_free(struct pp *c)
{
	free(c->slocs);
	free(c->dslocs);
	free(c->ids);
	free(c->labelbuf);
	free(c->seen.mem);
	free(c->seen.rec);
	for (int k = 0; k < 2; k++) {
		free(c->frid[k]);
		free(c->lrec[k]);
		free(c->mids[k]);
		free(c->prev[k].ids);
		free(c->prev[k].locs);
		free(c->bids[k]);
	}
}

/* Frees what was the thread's own. */
static void half_free(struct pp_half *h)
{
	struct pp *c = &h->d;
	free(c->lines);
	free(c->seen.slots);
	copy_free(c);
}

/* A stack not in d's cache (key[0..len), hash h; its locations
 * d->slocs[0..n), bad of them dangling; cut at PP_MAX_FRAMES) with count,
 * as another cache or the prepass counted it: held and named, or (the
 * cache off or full) added now, after the held ones. Not a sample's
 * lookup: the cache is not turned off for these. */
static void hold_new(struct pp *d, struct tree *t, uint64_t h, const unsigned char *key, size_t len, uint64_t bad,
                     bool cut, size_t n, uint64_t count)
{
	struct pp_seen *s = &d->seen;
	uint64_t lookups = s->lookups, hits = s->hits;
	bool held = !s->off && seen_insert(s, h, key, len, 0, 0, 0, bad, cut, count);
	s->lookups = lookups;
	s->hits = hits;
	if (held) {
		seen_names(d, t, 0, n, 0, 0);
	} else {
		seen_add(d, false, NULL);        /* the held stacks came first */
		pp_add_stack(d, t, 0, n, 0, 0, count);
	}
}

/* The stacks h's cache holds into d's, after d's own (see above), and what
 * h counted. */
static void half_merge(struct pp *d, struct tree *t, struct pprof_info *info, struct pp_half *h)
{
	struct pp *c = &h->d;
	struct pp_seen *s = &d->seen, *cs = &c->seen;
	uint64_t stacks = t->stacks, bad_refs = d->bad_refs;
	/* a batch at a time: their hashes made and d's slots, then entries,
	 * fetched first, so that the lookups wait for memory together */
	enum { B = 16 };
	const struct pp_seen_e *batch[B];
	uint64_t hb[B];
	for (size_t i = 0; i < cs->nmem;) {
		size_t nb = 0;
		for (; i < cs->nmem && nb < B; i += seen_step(cs->mem + i)) {
			const struct pp_seen_e *ce = (const struct pp_seen_e *)(cs->mem + i);
			if (ce->len == PP_SEEN_FILL || !ce->count)
				continue;
			batch[nb] = ce;
			hb[nb] = seen_hash(ce->key, ce->len, 0, 0, 0);
			if (s->slots)
				__builtin_prefetch(&s->slots[(size_t)(hb[nb] >> 32) & s->mask]);
			nb++;
		}
		for (size_t k = 0; k < nb; k++)
			seen_fetch(s, hb[k], batch[k]->len);
		for (size_t k = 0; k < nb; k++) {
			const struct pp_seen_e *ce = batch[k];
			uint64_t hash = hb[k];
			/* what the samples count was counted by the thread: these
			 * lookups do not count as the samples' (see seen_insert) */
			uint64_t lookups = s->lookups, hits = s->hits;
			struct pp_seen_e *e = s->off ? NULL : seen_find(s, hash, ce->key, ce->len, 0, 0, 0);
			s->lookups = lookups;
			s->hits = hits;
			if (e) {
				if (e->count + ce->count < e->count) {     /* as do_sample */
					seen_add(d, false, NULL);
					seen_add(d, false, e);
				}
				e->count += ce->count;
				continue;
			}
			size_t n = 0;
			pp_decode_locs(d, ce->key, ce->len, &n);
			d->bad_refs = bad_refs;
			hold_new(d, t, hash, ce->key, ce->len, seen_bad(ce), (ce->flags & PP_SEEN_CUT) != 0, n, ce->count);
		}
	}
	pp_flush(d, 0);
	t->stacks = stacks + h->t.stacks;
	copy_count(d, info, c, &h->info);
}

/* Pass 2 from the Sample field at lo on (left samples from there). */
static void pp_samples(struct pp *d, struct tree *t, size_t vi, struct pprof_info *info, const unsigned char *lo,
                       uint64_t left)
{
	uint64_t done = 0;
	const unsigned char *from = half_wanted(d, t, left) ? half_from(d, lo) : NULL;
	struct pp_half *h = NULL;
	if (from) {
		h = xcalloc(1, sizeof *h);
		h->d = *d;
		memset((char *)&h->d + offsetof(struct pp, lines), 0, sizeof h->d - offsetof(struct pp, lines));
		h->d.half = true;
		h->d.seen.cold = true;
		h->vi = vi;
		h->from = from;
		if (pthread_create(&h->th, NULL, half_run, h) != 0) {
			free(h);
			h = NULL;
			from = NULL;
		}
	}
	seen_reserve(d, (size_t)((from ? from : d->samples_end) - lo), true);
	if (!from) {
		pp_samples_of(d, t, vi, info, NULL, 0, &done, lo, d->samples_end, true, false);
		return;
	}
	pp_samples_of(d, t, vi, info, NULL, 0, &done, lo, from, false, false);
	pthread_join(h->th, NULL);
	if (!h->d.half_failed && !h->d.seen.off && !d->seen.off) {
		half_merge(d, t, info, h);
		give_back(d, &from, d->samples_end);    /* what the thread kept */
	} else {    /* the second half read here after all */
		pp_samples_of(d, t, vi, info, NULL, 0, &done, from, d->samples_end, false, false);
	}
	half_free(h);
	free(h);
	seen_add(d, true, NULL);
}

/* ---- in parts ------------------------------------------------------------ */

/* A big profile whose stacks seldom repeat (Go aggregates its samples:
 * every stack once) goes to the tree in PP_PARTS parts, by the names of
 * its samples' first PP_KEY_NAMES frames: a part's tree is small enough
 * that its lookups stay in the caches, where one tree of the whole profile
 * misses twice a frame; each part's tree is packed (tree_pack) as soon as
 * it is read, and tree_join makes the packs one tree (they are disjoint
 * below depth PP_KEY_NAMES - 1). Go's first two frames have few
 * names: keyed by two, make bench's unique file filled 32 of 64 parts,
 * of 54k to 654k samples; by three, 123 of 128, up to 409k (two threads
 * 0.94 -> 0.87 s, one 1.69 -> 1.63 s; 256 parts were slower again). Not
 * for input order (the parts change the order of first appearance), label
 * roots, --diff, flame charts, or a tree that already holds stacks;
 * tree_join may still refuse (sums beyond 64 bits): then the samples are
 * read again in one tree. A mapped file's samples are copied part by part
 * as they are partitioned, each part then read in order (see partition);
 * the parts go to the threads most samples first. */
#define PP_PARTS 128
#define PP_KEY_NAMES 3
#define PP_PARTS_MIN ((uint64_t)1 << 18)    /* samples */

/* Whether many of the first PP_PARTS_PROBE samples repeat one before them (by
 * their packed location ids, as the repeated-stack cache finds them): 3 in
 * 4 or more. A writer that does not aggregate (one sample a tick), or
 * labels that split one stack into many samples, make the stacks few for
 * the samples: reading them is then the work, which parts do not speed up
 * (make bench's pprof file: 1.54 -> 2.26 CPU s in parts, 87% repeats here;
 * its --unique twin, 64%: 4.82 -> 3.83). */
static bool repeats_often(struct pp *d)
{
	if (d->repeats)
		return d->repeats == 2;
	enum { SLOTS = 2 * PP_PARTS_PROBE };
	struct { const unsigned char *p; size_t len; } *tab = xcalloc(SLOTS, sizeof *tab);
	struct pb c = { d->samples_at, d->samples_end };
	struct pb_field f;
	unsigned seen = 0, again = 0;
	while (seen < PP_PARTS_PROBE && pb_next(&c, &f) > 0) {
		if (f.num != 2 || f.wt != WT_LEN)
			continue;
		const unsigned char *p = f.data, *end = p + f.len;
		uint64_t len;
		seen++;
		if (p >= end || *p++ != (1 << 3 | WT_LEN) || pb_varint(&p, end, &len) != PB_OK ||
		    len > (uint64_t)(end - p))
			continue;
		size_t j = (size_t)(bytes_hash(p, (size_t)len, 0) % SLOTS);
		while (tab[j].p && !(tab[j].len == len && memcmp(tab[j].p, p, (size_t)len) == 0))
			j = (j + 1) % SLOTS;
		if (tab[j].p)
			again++;
		tab[j].p = p;
		tab[j].len = (size_t)len;
	}
	free(tab);
	d->probed = seen;
	d->distinct = seen - again;
	d->repeats = (uint64_t)again * 4 >= (uint64_t)seen * 3 ? 2 : 1;
	return d->repeats == 2;
}

/* A hash of each frame's name (d->frm), equal for equal names. */
static uint64_t *name_hashes(const struct pp *d)
{
	uint64_t *h = xmalloc((d->nfrm ? d->nfrm : 1) * sizeof *h);
	for (size_t r = 0; r < d->nfrm; r++)
		h[r] = bytes_hash((const unsigned char *)d->frm[r].s, d->frm[r].len, 0x5eed);
	return h;
}

/* Location id v's position (PP_NONE: dangling). */
static inline uint32_t part_pos(const struct pp *d, uint64_t v)
{
	return d->loc_identity ? (v - 1 < d->nloc ? (uint32_t)(v - 1) : PP_NONE) : pp_idmap_get(&d->locid, v);
}

/* The part of the stack of locations pos[0..n) taken root first (pos[0]
 * the root's when down is false; pos[n - 1] when down): the names of its
 * first PP_KEY_NAMES frames. */
static unsigned part_of(const struct pp *d, const uint64_t *nh, const uint32_t *pos, size_t n, bool down)
{
	uint64_t key[PP_KEY_NAMES] = { 0 };
	unsigned got = 0;
	for (size_t j = 0; j < n && got < PP_KEY_NAMES; j++) {
		uint32_t p = pos[down ? n - 1 - j : j];
		const uint32_t *refs = &d->unk;
		size_t m = 1;
		if (p != PP_NONE) {
			const struct pp_lf *lf = &d->lf[p];
			m = lf->n;
			refs = m == 1 ? &lf->ref : d->pool + lf->ref;
		}
		for (size_t i = 0; i < m && got < PP_KEY_NAMES; i++)
			key[got++] = nh[refs[i]];
	}
	uint64_t h = 0;
	for (unsigned i = 0; i < PP_KEY_NAMES; i++)
		h = pp_mix64(h ^ key[i] * 0x9e3779b97f4a7c15ULL);
	return (unsigned)(h % PP_PARTS);
}

/* Whether the sample p[0..len) is as writers make it: its location ids
 * one packed field first (into *one), then only fields of one-byte tags
 * that are not field 1, each whole. What sample_part's loop of pb_next
 * would find there, without a call a field: the partition of make
 * bench's unique file 0.225 -> 0.186 s. False: anything else, for that
 * loop to read. */
static inline bool one_locs(const unsigned char *p, size_t len, struct pb_field *one)
{
	const unsigned char *end = p + len;
	if (len < 2 || p[0] != (1 << 3 | WT_LEN) || p[1] >= 0x80 || (size_t)p[1] > len - 2)
		return false;
	one->num = 1;
	one->wt = WT_LEN;
	one->data = p + 2;
	one->len = p[1];
	for (p += 2 + p[1]; p < end;) {
		unsigned tag = *p++;
		if (tag >= 0x80 || tag >> 3 <= 1 || p == end)
			return false;
		switch (tag & 7) {
		case WT_LEN:
			if (*p >= 0x80 || *p >= end - p)
				return false;
			p += 1 + *p;
			break;
		case WT_VARINT:     /* (one longer than 10 bytes: as pb_next
			               stops there, field 1 is the only one) */
			while (p < end && *p >= 0x80)
				p++;
			if (p == end)
				return false;
			p++;
			break;
		default:
			return false;
		}
	}
	return true;
}

/* The part of the sample data[0..len): the names of its first
 * PP_KEY_NAMES frames, root first, as pp_add_stack makes them from its
 * locations (a malformed sample: whatever it gives; do_sample says what is
 * wrong with it). When the locations are one packed field, as writers make
 * them, only its last PP_KEY_NAMES ids are read, from the end (a varint's
 * last byte is the one below 0x80), into locals (an array in memory
 * written as two words and read as one waited on the stores: 16% of the
 * partition's time); else all, into ids, scratch of *cap location
 * positions. */
static unsigned sample_part(const struct pp *d, const uint64_t *nh, const unsigned char *data, size_t len,
                            uint32_t **ids, size_t *cap)
{
	struct pb c = { data, data + len };
	struct pb_field f, one = { 0 };
	unsigned nloc = 0;
	if (one_locs(data, len, &one))
		nloc = 1;
	else
		while (pb_next(&c, &f) > 0)
			if (f.num == 1 && (f.wt == WT_VARINT || f.wt == WT_LEN) && nloc++ == 0)
				one = f;
	if (nloc == 1 && one.wt == WT_LEN) {
		uint32_t first[PP_KEY_NAMES];   /* root first */
		size_t n = 0;
		const unsigned char *lo = one.data, *q = one.data + one.len;
		while (n < PP_KEY_NAMES && q > lo && q[-1] < 0x80) {
			const unsigned char *st = q - 1;
			while (st > lo && st[-1] >= 0x80)
				st--;
			const unsigned char *p = st;
			uint64_t v;
			if (pb_varint(&p, q, &v) != PB_OK || p != q)
				break;
			first[n++] = part_pos(d, v);
			q = st;
		}
		if (n == PP_KEY_NAMES)
			return part_of(d, nh, first, n, false);
	}
	size_t n = 0;
	c.p = data;
	while (pb_next(&c, &f) > 0) {
		struct pb_rep rep;
		uint64_t v;
		if (f.num != 1 || (f.wt != WT_VARINT && f.wt != WT_LEN) || !pb_rep_init(&rep, &f))
			continue;
		while (pb_rep_next(&rep, &v) > 0) {
			if (n == *cap)
				*ids = pp_grow(*ids, cap, n + 1, sizeof **ids);
			(*ids)[n++] = part_pos(d, v);
		}
	}
	return part_of(d, nh, *ids, n, true);    /* leaf first */
}

/* Parts shared out to threads: the next part to take. Every frame's name
 * is in the joined tree's table before (ids), which the parts read as
 * theirs (tree_borrow_names): nothing is interned once per part. */
struct pp_job {
	struct tree *dst;
	struct tree_pack *parts;
	atomic_bool unpacked;       /* a part could not be packed: no join */
	const uint32_t *offs;
	const size_t *bound;
	const strtab_id *ids;
	size_t vi;
	pthread_mutex_t mu;
	unsigned next;
	unsigned char order[PP_PARTS];  /* the parts by their samples, most
	                               first (job_order) */
	unsigned char *copy;        /* or NULL: the samples part by part (part
	                               k's from at[k] to at[k + 1]), see
	                               partition */
	size_t at[PP_PARTS + 1];
};

/* The parts in the order threads take them: most samples first, so that
 * no big part is left to one thread at the end (make bench's unique file
 * has 32 parts of 54k to 654k samples, the biggest late in index order).
 * The order the parts are read in does not show: each has its tree, and
 * tree_join takes them by index. */
static void job_order(struct pp_job *j)
{
	for (unsigned i = 0; i < PP_PARTS; i++) {
		unsigned k = i;
		size_t n = j->bound[i + 1] - j->bound[i];
		for (; k > 0 && j->bound[j->order[k - 1] + 1] - j->bound[j->order[k - 1]] < n; k--)
			j->order[k] = j->order[k - 1];
		j->order[k] = (unsigned char)i;
	}
}

/* The bytes of the Sample field at p (pass 1 framed it). */
static size_t sample_bytes(const struct pp *d, const unsigned char *p)
{
	if (d->samples_end - p >= 2 && p[0] == (2 << 3 | WT_LEN) && p[1] < 0x80)
		return 2 + (size_t)p[1];
	struct pb c = { p, d->samples_end };
	struct pb_field f;
	return pb_next(&c, &f) > 0 ? (size_t)(c.p - p) : 0;
}

/* One thread's share of the partition: the samples in [lo, hi), numbered
 * from n0 and at most up to nmax, their offsets from samples_at into
 * off[n0..], their parts into part[n0..], counted in count and their
 * bytes in bytes (split_run). Where it stopped: one past the last number.
 * Then (scatter_run) its offsets into sorted from the places sat, and with
 * copy its samples' bytes into copy from the places cat up to cend, the
 * input's pages given back as they are passed; bad when they were not as
 * counted. */
struct pp_split {
	const struct pp *d;
	const uint64_t *nh;
	const unsigned char *lo, *hi;
	size_t n0, nmax, n;
	uint32_t *off;
	unsigned char *part;
	size_t count[PP_PARTS], bytes[PP_PARTS];
	uint32_t *sorted;
	unsigned char *copy;
	size_t sat[PP_PARTS], cat[PP_PARTS], cend[PP_PARTS];
	bool bad;
	pthread_t th;
};

static void *scatter_run(void *arg)
{
	struct pp_split *sp = arg;
	const struct pp *d = sp->d;
	const unsigned char *given = sp->lo;
	for (size_t i = sp->n0; i < sp->n; i++) {
		unsigned k = sp->part[i];
		sp->sorted[sp->sat[k]++] = sp->off[i];
		if (!sp->copy || sp->bad)
			continue;
		const unsigned char *p = d->samples_at + sp->off[i];
		size_t len = sample_bytes(d, p);
		if (len > sp->cend[k] - sp->cat[k]) {
			sp->bad = true;
			continue;
		}
		memcpy(sp->copy + sp->cat[k], p, len);
		sp->cat[k] += len;
		if ((size_t)(p - given) >= PP_GIVE_STEP)
			give_back(d, &given, p);
	}
	if (sp->copy && !sp->bad)
		give_back(d, &given, sp->hi);
	return NULL;
}

static void *split_run(void *arg)
{
	struct pp_split *sp = arg;
	const struct pp *d = sp->d;
	uint32_t *ids = NULL;
	size_t cap = 0, n = sp->n0;
	struct pb c = { sp->lo, sp->hi };
	struct pb_field f;
	for (;;) {
		const unsigned char *at = c.p;
		if (n == sp->nmax || pb_next(&c, &f) <= 0)
			break;
		if (f.num != 2 || f.wt != WT_LEN)
			continue;
		unsigned k = sample_part(d, sp->nh, f.data, f.len, &ids, &cap);
		sp->off[n] = (uint32_t)(at - d->samples_at);
		sp->part[n++] = (unsigned char)k;
		sp->count[k]++;
		sp->bytes[k] += (size_t)(c.p - at);
	}
	free(ids);
	sp->n = n;
	return NULL;
}

/* The offsets of the samples from samples_at, part by part (in file order
 * within one): part k's are [bound[k], bound[k + 1]). On two threads or
 * more, a big profile's samples from the mark nearest their middle on
 * are partitioned on a second thread (0.26 s of make bench's unique file
 * on one; what the threads then read in parts takes 0.86 s on two).
 * With j (a mapped file): the samples also copied part by part into
 * j->copy, in file order (a part's samples, read where they are, are
 * scattered over the whole file: most of the time reading a part's
 * samples went to the first touch of each), and the file's pages given
 * back as the copy passes them, so that the memory stays what it was. */
static uint32_t *partition(const struct pp *d, int nthr, size_t bound[PP_PARTS + 1], size_t *nout,
                           struct pp_job *j)
{
	uint64_t *nh = name_hashes(d);
	uint32_t *off = xmalloc((d->nsamples ? d->nsamples : 1) * sizeof *off);
	unsigned char *part = xmalloc(d->nsamples ? d->nsamples : 1);
	struct pp_split sp[2];
	memset(sp, 0, sizeof sp);
	for (int i = 0; i < 2; i++) {
		sp[i].d = d;
		sp[i].nh = nh;
		sp[i].off = off;
		sp[i].part = part;
	}
	sp[0].lo = d->samples_at;
	sp[0].hi = d->samples_end;
	sp[0].nmax = d->nsamples;
	size_t m = d->nmarks / 2;     /* mark m: where sample m * PP_MARK starts */
	bool two = nthr >= 2 && m >= 1;
	if (two) {
		sp[0].hi = sp[1].lo = d->marks[m];
		sp[0].nmax = sp[1].n0 = m * (size_t)PP_MARK;
		sp[1].hi = d->samples_end;
		sp[1].nmax = d->nsamples;
		two = pthread_create(&sp[1].th, NULL, split_run, &sp[1]) == 0;
	}
	if (!two) {
		sp[0].hi = d->samples_end;
		sp[0].nmax = d->nsamples;
	}
	split_run(&sp[0]);
	if (two) {
		pthread_join(sp[1].th, NULL);
		if (sp[0].n != sp[1].n0) {  /* not as pass 1 counted: once more, whole */
			memset(sp, 0, sizeof sp);
			sp[0] = (struct pp_split){ .d = d, .nh = nh, .lo = d->samples_at, .hi = d->samples_end,
			                           .nmax = d->nsamples, .off = off, .part = part };
			split_run(&sp[0]);
			two = false;
		}
	}
	free(nh);
	size_t n = two ? sp[1].n : sp[0].n;
	/* part k: its offsets from bound[k], its bytes from j->at[k]; the
	 * first thread's samples of it before the second's */
	bound[0] = 0;
	if (j)
		j->at[0] = 0;
	for (unsigned k = 0; k < PP_PARTS; k++) {
		bound[k + 1] = bound[k] + sp[0].count[k] + sp[1].count[k];
		sp[0].sat[k] = bound[k];
		sp[1].sat[k] = bound[k] + sp[0].count[k];
		if (j) {
			j->at[k + 1] = j->at[k] + sp[0].bytes[k] + sp[1].bytes[k];
			sp[0].cat[k] = j->at[k];
			sp[1].cat[k] = sp[0].cend[k] = j->at[k] + sp[0].bytes[k];
			sp[1].cend[k] = j->at[k + 1];
		}
	}
	uint32_t *sorted = xmalloc((n ? n : 1) * sizeof *sorted);
	unsigned char *copy = j ? xmalloc(j->at[PP_PARTS] ? j->at[PP_PARTS] : 1) : NULL;
	for (int i = 0; i < 2; i++) {
		sp[i].sorted = sorted;
		sp[i].copy = copy;
	}
	if (two)
		two = pthread_create(&sp[1].th, NULL, scatter_run, &sp[1]) == 0;
	scatter_run(&sp[0]);
	if (two)
		pthread_join(sp[1].th, NULL);
	else if (sp[1].n > sp[1].n0)
		scatter_run(&sp[1]);
	if (sp[0].bad || sp[1].bad) {   /* not as counted: read where they are */
		free(copy);
		copy = NULL;
	}
	if (j)
		j->copy = copy;
	free(off);
	free(part);
	*nout = n;
	return sorted;
}

/* The previous stack and the repeated-stack cache start afresh (another
 * tree comes, with the same names). */
static void tree0_fresh(struct pp *d)
{
	memset(d->labc[0], 0, sizeof d->labc[0]);
	d->prev[0].n = 0;
	d->prev[0].valid = false;
	struct pp_seen *s = &d->seen;
	free(s->slots);
	s->slots = NULL;
	s->mask = 0;
	s->nmem = s->n = s->added = 0;
	s->lookups = s->hits = 0;
	s->off = false;
	s->nrec = 0;
	s->rec_off = false;
}

/* A thread's reader: a copy of pass 1's, shared (read only), and of its
 * own what pass 2 changes: scratch, the trees' caches, the repeated
 * stacks, the counts, and the locations' issues, counted once in all
 * (worker_merge) however many threads reach them. */
struct pp_worker {
	struct pp d;
	struct pprof_info info;
	struct pp_job *job;
	struct tree part;           /* the part being read (then packed) */
	uint64_t done;
	pthread_t th;
	/* done is written a sample, the next worker's d.o read as often:
	 * not on one cache line (they were, once struct pp grew by 8 bytes:
	 * make bench's unique pprof load 6% slower) */
	char pad[64];
};

static void worker_init(struct pp_worker *w, const struct pp *d, struct pp_job *job)
{
	memset(w, 0, sizeof *w);
	w->job = job;
	struct pp *c = &w->d;
	*c = *d;
	c->lf = xmalloc((d->nloc ? d->nloc : 1) * sizeof *c->lf);
	if (d->nloc)
		memcpy(c->lf, d->lf, d->nloc * sizeof *c->lf);
	memset((char *)c + offsetof(struct pp, lines), 0, sizeof *c - offsetof(struct pp, lines));
	c->issues_later = true;
	pp_caches_with(c, 0, job->ids);
	c->t = NULL;
}

/* Reads parts until none is left: each into its tree, finalized. */
static void *worker_run(void *arg)
{
	struct pp_worker *w = arg;
	struct pp_job *j = w->job;
	struct pp *c = &w->d;
	for (;;) {
		pthread_mutex_lock(&j->mu);
		unsigned k = j->next < PP_PARTS ? j->order[j->next++] : PP_PARTS;
		pthread_mutex_unlock(&j->mu);
		if (k == PP_PARTS)
			break;
		struct tree *t = &w->part;
		tree_init(t);
		tree_borrow_names(t, j->dst);
		tree0_fresh(c);
		/* its cache's slots made as big as the share of firsts that
		 * repeats_often found will need, not doubled (and every stack
		 * placed again) from 1024 up: make bench's unique file, 654k
		 * samples in its biggest part, 2.17-2.19 -> 2.07-2.16 s */
		size_t ns = j->bound[k + 1] - j->bound[k];
		c->seen.hint = c->probed ? (size_t)((double)ns * c->distinct / c->probed) : 0;
		if (j->copy)    /* its samples one after another */
			pp_samples_of(c, t, j->vi, &w->info, j->offs + j->bound[k], j->bound[k + 1] - j->bound[k],
			              &w->done, j->copy + j->at[k], j->copy + j->at[k + 1], true, true);
		else
			pp_samples_of(c, t, j->vi, &w->info, j->offs + j->bound[k], j->bound[k + 1] - j->bound[k],
			              &w->done, c->samples_at, c->samples_end, true, false);
		pp_flush(c, 0);
		tree_finalize(t, c->o->order);
		tree_unborrow_names(t);
		/* packed, the parts wait in an eighth of their trees' memory,
		 * and the next is built where this one was (false: counts that
		 * tree_join would refuse, or memory ran out) */
		if (!tree_pack(&j->parts[k], t, NULL, PP_KEY_NAMES))
			atomic_store(&j->unpacked, true);
		tree_free(t);
	}
	return NULL;
}

/* Adds what w counted to d and info. */
static void worker_count(struct pp *d, struct pprof_info *info, const struct pp_worker *w)
{
	const struct pp *c = &w->d;
	copy_count(d, info, c, &w->info);
	for (size_t i = 0; i < d->nloc; i++)
		if (d->lf[i].issue && !c->lf[i].issue)
			pp_loc_issue(d, (uint32_t)i);     /* reached: counted once */
}

/* Adds what w counted to d and info (when count), and frees what was w's
 * own. */
static void worker_merge(struct pp *d, struct pprof_info *info, struct pp_worker *w, bool count)
{
	struct pp *c = &w->d;
	if (count)
		worker_count(d, info, w);
	tree0_fresh(c);
	free(c->lf);
	copy_free(c);
}

/* Into shared: the paths of the parts' nodes above depth PP_KEY_NAMES
 * (packed parts, their names dst's), which several parts may hold, as
 * tree_join wants them. */
_Static_assert(PP_KEY_NAMES == 3, "first_frames shares depths 1 and 2");
struct first_walk {
	const struct tree *dst;
	struct tree *shared;
	struct tree_frame f[2];
};

static void first_frame(void *arg, uint32_t depth, strtab_id id)
{
	struct first_walk *fw = arg;
	fw->f[depth - 1] = (struct tree_frame){ strtab_str(&fw->dst->names, id), strtab_len(&fw->dst->names, id) };
	tree_add_stack(fw->shared, fw->f, depth, 1);
}

static void first_frames(const struct tree *dst, const struct tree_pack *parts, size_t np, struct tree *shared)
{
	tree_init(shared);
	struct first_walk fw = { dst, shared, { { NULL, 0 } } };
	for (size_t p = 0; p < np; p++)
		tree_pack_walk(&parts[p], 2, first_frame, &fw);
	tree_finalize(shared, TREE_ORDER_NAME);
}

/* Whether t gets the samples in parts (see PP_PARTS). */
static bool parts_wanted(struct pp *d, const struct tree *t)
{
	const struct pprof_options *o = d->o;
	if (!o || o->order == TREE_ORDER_INPUT || o->label_root || o->before || t->chart || t->n != 1 ||
	    t->stacks || (uint64_t)(d->samples_end - d->samples_at) > UINT32_MAX)
		return false;
	if (o->parts)
		return d->nsamples > 0;
	return d->nsamples >= PP_PARTS_MIN && !repeats_often(d);
}

#define PP_MAX_THREADS 16

/* Pass 2 in parts into t, finalized, on up to o->threads threads; false
 * (nothing added, nothing counted) when tree_join refuses. */
static bool pp_samples_parts(struct pp *d, struct tree *t, size_t vi, struct pprof_info *info)
{
	size_t bound[PP_PARTS + 1], n;
	int nthr = d->o->threads < 1 ? 1 : d->o->threads > PP_MAX_THREADS ? PP_MAX_THREADS : d->o->threads;
	struct tree_pack *parts = xcalloc(PP_PARTS, sizeof *parts);
	struct pp_job job = { t, parts, false, NULL, bound, NULL, vi, PTHREAD_MUTEX_INITIALIZER, 0, { 0 }, NULL, { 0 } };
	uint32_t *offs = partition(d, nthr, bound, &n, d->mapped ? &job : NULL);
	strtab_id *ids = xmalloc((d->nfrm ? d->nfrm : 1) * sizeof *ids);
	for (size_t r = 0; r < d->nfrm; r++)
		ids[r] = tree_intern(t, d->frm[r].s, d->frm[r].len);
	job.offs = offs;
	job.ids = ids;
	job_order(&job);
	/* the parts' names are t's: ranked once for all (name order) */
	uint32_t *rank = d->o->order == TREE_ORDER_NAME ? name_ranks(&t->names) : NULL;
	d->rank = rank;
	d->nrank = rank ? strtab_count(&t->names) : 0;
	struct pp_worker *w = xcalloc((size_t)nthr, sizeof *w);
	int started = 1;
	for (int i = 0; i < nthr; i++)
		worker_init(&w[i], d, &job);
	for (; started < nthr; started++)
		if (pthread_create(&w[started].th, NULL, worker_run, &w[started]) != 0)
			break;      /* the threads there are do the parts */
	worker_run(&w[0]);
	for (int i = 1; i < started; i++)
		pthread_join(w[i].th, NULL);
	free(offs);
	free(job.copy);
	free(ids);
	free(rank);
	d->rank = NULL;
	d->nrank = 0;
	d->t = t;
	bool ok = !atomic_load(&job.unpacked);
	if (ok) {
		struct tree shared;
		first_frames(t, parts, PP_PARTS, &shared);
		ok = tree_join(t, parts, PP_PARTS, d->o->order, &shared);
		tree_free(&shared);
	}
	for (int i = 0; i < nthr; i++)
		worker_merge(d, info, &w[i], ok);
	if (!ok)
		for (unsigned k = 0; k < PP_PARTS; k++)
			tree_pack_free(&parts[k]);
	free(w);
	free(parts);
	return ok;
}

/* ---- reading the input ----------------------------------------------------- */

/* ---- the samples taken as the stream arrived ------------------------------------ */

/* Whether what pre took can stand for reading its samples (then p->at is
 * where reading goes on): it weighed by the type chosen, its keys are
 * well-formed, and the samples are not to be read in parts. */
static bool pre_usable(struct pp *d, struct tree *t, const struct pp_pre *p, size_t vi)
{
	return p->fields && !p->failed && p->vi == vi && d->samples_at &&
	       p->first == pp_off(d, d->samples_at) && p->at <= pp_off(d, d->samples_end) && pp_pre_keys_ok(p) &&
	       !parts_wanted(d, t);
}

/* Entry e's locations into d->slocs[0..*n) (its key's ids were checked:
 * pp_pre_keys_ok); its dangling ids counted once for each of its
 * samples. Returns those of one. */
static uint64_t pre_locs(struct pp *d, const struct pp_pre_entry *e, size_t *n)
{
	uint64_t bad0 = d->bad_refs;
	*n = 0;
	(void)pp_decode_locs(d, e->key, e->len, n);
	uint64_t bad = d->bad_refs - bad0;
	d->bad_refs = bad0 + bad * e->nsamp;
	return bad;
}

/* The stacks pre holds into d's cache (empty), in order of first
 * appearance, and what their samples count, as do_sample would have
 * counted them one by one. */
static void pre_merge(struct pp *d, struct tree *t, struct pp_pre *p, struct pprof_info *info)
{
	struct pp_seen *s = &d->seen;
	struct pp_pre_entry e;
	uint64_t stacks = t->stacks;
	d->t = t;
	/* the keys are copied: the samples' pages are not read again */
	const unsigned char *from = d->samples_at;
	if (!d->mapped)
		drop_pages(&from, d->data + p->at);
	pp_pre_free_slots(p);
	/* no sample left to look up: the entries without their slots */
	s->append_only = p->at == pp_off(d, d->samples_end);
	/* room for the entries and their names' records at once, not grown
	 * by copies (0.96 -> 0.94 s on make bench's .gz): an entry takes
	 * less than the prepass's (16 bytes before its key, not 24) but for
	 * its padding to a cache line; a record 3 words and a word a frame,
	 * about one a location, whose id takes 2 bytes or so (more or less:
	 * pp_grow makes the rest) */
	s->mem = pp_grow(s->mem, &s->capmem, p->tab.nmem + p->tab.nmem / 2, 1);
	if (!s->rec_off)
		s->rec = pp_grow(s->rec, &s->caprec, p->tab.n * 3 + (p->tab.nmem - p->tab.n * 24) / 2, sizeof *s->rec);
	size_t n;
	/* samples of value 0: only what their locations count */
	for (size_t i = 0, next; (next = pp_pre_next(&p->zero, i, &e)) != 0; i = next)
		(void)pre_locs(d, &e, &n);
	for (size_t i = 0, next; (next = pp_pre_next(&p->tab, i, &e)) != 0; i = next) {
		uint64_t bad = pre_locs(d, &e, &n);
		bool cut = pp_stack_cut(d, n, 0);
		hold_new(d, t, e.hash, e.key, e.len, bad, cut, n, e.count);
		d->cut_stacks += cut ? e.nsamp : 0;
		stacks += e.nsamp;
		info->samples += e.nsamp;
		info->early += e.nsamp;
		info->total = info->total + e.count < info->total ? UINT64_MAX : info->total + e.count;
	}
	pp_flush(d, 0);
	t->stacks = stacks;
}

/* ---- public ------------------------------------------------------------------ */

/* pprof_load's once: or PP_AGAIN (nothing added, nothing said) when the
 * bytes of samples counted early are gone and the counts do not stand for
 * them (then first is true: the samples' pages may be reused). */
#define PP_AGAIN 2
static int load_once(struct tree *t, struct source *s, const char *name, const struct pprof_options *o,
                     struct pprof_info *info, reader_msg_fn *msg, void *msgarg, bool first)
{
	struct pp d = { 0 };
	struct pp_pre pre;
	struct pp_input in = { 0 };
	const char *map;
	int rc = 1;

	memset(info, 0, sizeof *info);
	d.name = name;
	d.msg = msg;
	d.msgarg = msgarg;
	d.o = o;
	pp_pre_init(&pre, false);
	arena_init(&d.names, 0);
	if (source_mapping(s, &map, &d.size)) {
		d.data = (const unsigned char *)map;
		d.mapped = true;
	} else {
		int ahead = o ? o->ahead : -1;
		pp_pre_init(&pre, ahead >= 0 && (ahead > 0 || source_inflates_aside(s)) && !o->label_root &&
		                      !o->before && !t->chart);
		/* the pages of samples counted given up when they can be read
		 * again (a file), and will likely not need to: by the last
		 * type, as counted, unless the profile names another default,
		 * and not in parts (o->parts; repeats_often counts the first
		 * samples, which stay) */
		bool reuse = first && pre.on && source_inflates_aside(s) && !o->sample_type && !o->parts;
		if (!pp_read_whole(&d, s, &in, &pre, reuse))
			goto out;
		d.data = in.p;
		d.size = in.len;
		d.reused = pp_input_reused(&in);
		info->reused = in.gone - in.from;
	}
	if (!d.data)
		d.data = (const unsigned char *)"";
	if (pre.fields)
		d.pre = &pre;
	if (!pp_index(&d))
		goto out;
	long vi = pp_choose_type(&d);
	if (vi < 0) {
		if (d.reused)
			pp_say_too_many(&d);
		goto out;
	}
	if (d.nvt) {
		struct pp_str ty = pp_string(&d, d.vt[vi].type), un = pp_string(&d, d.vt[vi].unit);
		text_sanitize(ty.s, ty.len, info->type, sizeof info->type);
		text_sanitize(un.s, un.len, info->unit, sizeof info->unit);
		pp_list_types(&d, info->types, sizeof info->types);
	}
	if (d.has_period_type) {
		struct pp_str ty = pp_string(&d, d.period_type.type), un = pp_string(&d, d.period_type.unit);
		text_sanitize(ty.s, ty.len, info->period_type, sizeof info->period_type);
		text_sanitize(un.s, un.len, info->period_unit, sizeof info->period_unit);
	}
	info->period = d.period;
	info->duration_nanos = d.duration;
	pp_resolve_all(&d);
	bool pre_used = pre_usable(&d, t, &pre, (size_t)vi);
	if (!pre_used && d.reused) {
		rc = PP_AGAIN;
		goto out;
	}
	if (d.reused)
		pp_say_too_many(&d);
	if (pre_used)
		pre_merge(&d, t, &pre, info);
	pp_pre_free(&pre);
	if (pre_used)
		pp_samples(&d, t, (size_t)vi, info, d.data + pre.at, d.nsamples - pre.fields);
	else if (!parts_wanted(&d, t) || !pp_samples_parts(&d, t, (size_t)vi, info))
		pp_samples(&d, t, (size_t)vi, info, d.samples_at, d.nsamples);
	/* the message, held whole, is given back before the trees are
	 * finalized */
	tree_set_spare(t, d.size);
	if (o && o->before)
		tree_set_spare(o->before, d.size);
	rc = 0;

	if (d.bad_samples)
		pp_msg(&d, "skipped %" PRIu64 " malformed sample%s (first at byte %" PRIu64 ": %s)",
		       d.bad_samples, d.bad_samples == 1 ? "" : "s", d.first_bad_sample, d.why_sample);
	if (d.bad_entries)
		pp_msg(&d, "skipped %" PRIu64 " malformed entr%s (sample types, mappings, locations or functions; "
		       "first at byte %" PRIu64 ": %s)", d.bad_entries, d.bad_entries == 1 ? "y" : "ies",
		       d.first_bad_entry, d.why_entry);
	if (d.bad_refs)
		pp_msg(&d, "%" PRIu64 " reference%s to locations, functions or mappings that the profile does "
		       "not hold (shown as [unknown] or addresses)", d.bad_refs, d.bad_refs == 1 ? "" : "s");
	if (d.bad_strs)
		pp_msg(&d, "%" PRIu64 " reference%s past the end of the string table (%zu strings) read as empty",
		       d.bad_strs, d.bad_strs == 1 ? "" : "s", d.nstr);
	if (d.negative)
		pp_msg(&d, "skipped %" PRIu64 " sample%s with negative values (a pprof -diff_base profile? "
		       "open it with --diff)", d.negative, d.negative == 1 ? "" : "s");
	if (d.cut_stacks)
		pp_msg(&d, "%" PRIu64 " stack%s deeper than %zu frames were cut", d.cut_stacks,
		       d.cut_stacks == 1 ? "" : "s", PP_MAX_FRAMES);
	if (d.cut_lines)
		pp_msg(&d, "%" PRIu64 " location%s with more than %d inlined lines kept the outer %d",
		       d.cut_lines, d.cut_lines == 1 ? "" : "s", PP_MAX_LINES, PP_MAX_LINES);
	if (o && o->label_root && info->samples && d.no_label == info->samples) {
		char k[128];
		text_sanitize(o->label_root, strlen(o->label_root), k, sizeof k);
		pp_msg(&d, "no sample has a label \"%s\"", k);
	}
out:
	pp_pre_free(&pre);
	pp_input_free(&in);
	free(d.vt);
	free(d.str);
	free(d.fn);
	free(d.map);
	free(d.loc);
	free(d.marks);
	free(d.lf);
	pp_idmap_free(&d.fnid);
	pp_idmap_free(&d.mapid);
	pp_idmap_free(&d.locid);
	free(d.frm);
	free(d.fbad);
	free(d.pool);
	free(d.issues);
	arena_free(&d.names);
	free(d.lines);
	free(d.slocs);
	free(d.dslocs);
	free(d.ids);
	for (int i = 0; i < 2; i++) {
		free(d.frid[i]);
		free(d.lrec[i]);
		free(d.mids[i]);
		free(d.prev[i].ids);
		free(d.prev[i].locs);
		free(d.bids[i]);
	}
	free(d.labelbuf);
	free(d.seen.mem);
	free(d.seen.slots);
	free(d.seen.rec);
	return rc;
}

int pprof_load(struct tree *t, struct source *s, const char *name, const struct pprof_options *o,
               struct pprof_info *info, reader_msg_fn *msg, void *msgarg)
{
	struct pprof_info own;
	if (!info)
		info = &own;
	int rc = load_once(t, s, name, o, info, msg, msgarg, true);
	if (rc != PP_AGAIN)
		return rc;
	char err[160], buf[400];
	struct source *again = source_reopen(s, err, sizeof err);
	if (!again) {
		snprintf(buf, sizeof buf, "tflame: %s: cannot read it again (%s)", name, err);
		msg(msgarg, buf);
		return 1;
	}
	rc = load_once(t, again, name, o, info, msg, msgarg, false);
	source_close(again);
	info->again = true;
	return rc;
}
