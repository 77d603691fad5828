/* Shared by the harnesses of the modules that compute new trees and rows
 * from a loaded one (diff, transforms, the top table and sandwich): build a
 * small folded profile, check the count invariants of a finalized tree,
 * compare trees, build simple regex patterns from fuzzed bytes. The checks
 * here restate each module's contract (its header) independently of its
 * code, and abort() when one fails. Not part of the program. */
#ifndef TFLAME_FUZZ_MODEL_H
#define TFLAME_FUZZ_MODEL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "folded.h"
#include "toptable.h"
#include "tree.h"

/* Control bytes read from the front of the input; 0 once they run out. */
struct fuzz_ctl {
	const uint8_t *p;
	size_t n;
};

static inline unsigned fuzz_byte(struct fuzz_ctl *c)
{
	if (c->n == 0)
		return 0;
	c->n--;
	return *c->p++;
}

/* Builds a finalized tree from folded text s[0..len) (fed in two blocks
 * cut after the k-th newline); before, when not NULL, gets the BEFORE
 * column of differential lines (finalized too). */
static inline void fuzz_feed_folded(void *r, const char *buf, size_t n)
{
	folded_reader_feed(r, buf, n);
}

static inline void fuzz_build(struct tree *t, struct tree *before, const char *s, size_t len, bool chart,
                       enum tree_order order, unsigned k)
{
	tree_init(t);
	t->chart = chart;
	if (before)
		tree_init(before);
	struct folded_reader *r = folded_reader_new(t);
	if (before)
		folded_reader_set_before(r, before);
	fuzz_feed_split(fuzz_feed_folded, r, s, len, k);
	folded_reader_free(r);
	tree_finalize(t, order);
	if (before)
		tree_finalize(before, order);
}

/* The header the model harnesses share: byte 0 flags, byte 1 a number of
 * operations (0 to max_ops), three control bytes each, then the text.
 * False when the input is too short to have one. */
struct fuzz_head {
	unsigned flags;
	size_t nops;                /* operations asked for (their bytes may
	                               run out: fuzz_byte gives 0 then) */
	struct fuzz_ctl ctl;        /* the operations' bytes */
	const char *text;           /* what follows them */
	size_t len;
	enum tree_order order;      /* flags % 3 */
};

static inline bool fuzz_head_read(struct fuzz_head *h, const uint8_t *data, size_t size,
                                  size_t max_ops)
{
	static const enum tree_order orders[] = { TREE_ORDER_NAME, TREE_ORDER_WEIGHT, TREE_ORDER_INPUT };
	if (size < 2)
		return false;
	h->flags = data[0];
	h->nops = data[1] % (max_ops + 1);
	size_t hdr = 2 + 3 * h->nops;
	if (hdr > size)
		hdr = size;
	h->ctl = (struct fuzz_ctl){ data + 2, hdr - 2 };
	h->text = (const char *)data + hdr;
	h->len = size - hdr;
	h->order = orders[h->flags % 3];
	return true;
}

/* Saturating sum, as the tree adds counts (in its units). */
static inline uint64_t fuzz_sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* Two doubles equal but for rounding (proportions, diff's scaled counts). */
static inline bool fuzz_near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b)) + 1e-12;
}

/* Counts of two trees compared exactly, in the units of the one with more
 * decimals (tree.h: counts are units of 10^-decimals). The value of count
 * c of t scaled to d decimals (d >= t->decimals): fits 128 bits. */
__extension__ typedef unsigned __int128 fuzz_u128;

static inline fuzz_u128 fuzz_scaled(const struct tree *t, tree_count c, unsigned d)
{
	fuzz_u128 v = c.u;
	for (unsigned k = t->decimals; k < d; k++)
		v *= 10;
	return v;
}

/* Whether counts of a and b can be compared exactly: sums that saturated
 * or counts that were rounded depend on the order they were added in,
 * except for integer counts (saturating sums of integers do not). */
static inline bool fuzz_comparable(const struct tree *a, const struct tree *b)
{
	if (!a->frac && !b->frac)
		return true;
	return !a->saturated && !b->saturated && a->rounded == 0 && b->rounded == 0;
}

/* -1, 0, 1 as a's count ca is below, equal to, above b's cb; 2 when they
 * cannot be compared (fuzz_comparable). */
static inline int fuzz_cmp_count(const struct tree *a, tree_count ca, const struct tree *b,
                                 tree_count cb)
{
	if (!fuzz_comparable(a, b))
		return 2;
	unsigned d = a->decimals > b->decimals ? a->decimals : b->decimals;
	fuzz_u128 x = fuzz_scaled(a, ca, d), y = fuzz_scaled(b, cb, d);
	return x < y ? -1 : x > y;
}

/* Aborts when ca (of a) and cb (of b) are known to differ. */
static inline void fuzz_same_count(const struct tree *a, tree_count ca, const struct tree *b,
                                   tree_count cb)
{
	int c = fuzz_cmp_count(a, ca, b, cb);
	if (c == -1 || c == 1)
		abort();
}

/* The tree's count invariants (tree.h): every total is the node's self
 * plus its children's totals (saturating); outside a flame chart, a first
 * child starts where its parent does and each next sibling where the one
 * before ends (offsets: samples to the left). Plus the structure checks of
 * fuzz_check_tree. */
static inline void fuzz_check_counts(const struct tree *t)
{
	fuzz_check_tree(t);
	if (!t->finalized || (t->frac != (t->decimals > 0)))
		abort();
	size_t n = tree_size(t);
	for (tree_idx i = 0; i < n; i++) {
		const struct tree_node *nd = tree_node(t, i);
		uint64_t sum = nd->self.u, off = nd->off.u;
		for (tree_idx c = tree_first_child(t, i); c != TREE_NONE; c = tree_next_sibling(t, c)) {
			const struct tree_node *cn = tree_node(t, c);
			if (tree_parent(t, c) != i || (!t->chart && cn->off.u != off))
				abort();
			/* a sum past 64 bits leaves the tree marked saturated */
			if (__builtin_add_overflow(sum, cn->total.u, &sum)) {
				sum = UINT64_MAX;
				if (!t->saturated)
					abort();
			}
			off = fuzz_sat_add(off, cn->total.u);
		}
		if (nd->total.u != sum)
			abort();
	}
	if (!t->chart && tree_node(t, TREE_ROOT)->off.u != 0)
		abort();
}

/* A hash of everything a finalized tree holds (structure, names, counts),
 * to tell that a recomputed tree is the same tree. */
static inline uint64_t fuzz_tree_hash(const struct tree *t)
{
	uint64_t h = 1469598103934665603ULL ^ tree_size(t) ^ ((uint64_t)t->decimals << 40) ^
	             ((uint64_t)t->chart << 48);
#define FUZZ_MIX(v) (h = (h ^ (uint64_t)(v)) * 1099511628211ULL)
	for (tree_idx i = 0; i < tree_size(t); i++) {
		const struct tree_node *nd = tree_node(t, i);
		FUZZ_MIX(nd->parent);
		FUZZ_MIX(nd->end);
		FUZZ_MIX(nd->depth);
		FUZZ_MIX(nd->self.u);
		FUZZ_MIX(nd->total.u);
		FUZZ_MIX(nd->off.u);
		const char *s = tree_name(t, i);
		uint32_t len = tree_name_len(t, i);
		FUZZ_MIX(len);
		for (uint32_t k = 0; k < len; k++)
			FUZZ_MIX((unsigned char)s[k]);
	}
#undef FUZZ_MIX
	return h;
}

/* The folded text of t (tree_write_folded) in a malloc'ed buffer. */
static inline char *fuzz_folded_text(const struct tree *t, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f || tree_write_folded(t, f) != 0 || fclose(f) != 0)
		abort();
	return buf;
}

/* Aborts unless a and b give the same folded text (the same stacks with
 * the same self counts, whatever their order or node numbering). */
static inline void fuzz_same_folded(const struct tree *a, const struct tree *b)
{
	size_t la, lb;
	char *ta = fuzz_folded_text(a, &la), *tb = fuzz_folded_text(b, &lb);
	if (la != lb || memcmp(ta, tb, la) != 0)
		abort();
	free(ta);
	free(tb);
}

/* The child of node p of t named s[0..len), or TREE_NONE (a linear scan:
 * an implementation independent of the modules' hash maps). */
static inline tree_idx fuzz_child_named(const struct tree *t, tree_idx p, const char *s, size_t len)
{
	for (tree_idx c = tree_first_child(t, p); c != TREE_NONE; c = tree_next_sibling(t, c))
		if (tree_name_len(t, c) == len && memcmp(tree_name(t, c), s, len) == 0)
			return c;
	return TREE_NONE;
}

/* Node of t named like node i of u, or -1 for none / the root name. */
static inline int64_t fuzz_name_in(const struct tree *t, const struct tree *u, tree_idx i)
{
	return strtab_find(&t->names, tree_name(u, i), tree_name_len(u, i));
}

/* Row of toptable tt for name id, or NULL. */
static inline const struct toptable_row *fuzz_row(const struct toptable *tt, int64_t id)
{
	for (size_t k = 0; k < tt->n; k++)
		if ((int64_t)tt->rows[k].name == id)
			return &tt->rows[k];
	return NULL;
}

/* True when s[0..len) is printable ASCII (no NUL) and not empty: any
 * regex engine and locale matches such a name the same way. */
static inline bool fuzz_plain_name(const char *s, size_t len)
{
	if (len == 0)
		return false;
	for (size_t k = 0; k < len; k++)
		if (s[k] < 0x20 || s[k] > 0x7e)
			return false;
	return true;
}

/* A simple extended regex matching name s[0..len) (up to its first NUL):
 * a slice of it with the ERE specials escaped, '^' and '$' when the slice
 * touches the name's ends; bits of `how` choose the slice and whether to
 * turn a character into '.'. At most cap - 1 bytes (cap >= 8): slices that
 * do not fit are shortened (never anchored there). Returns true when the
 * result is such a literal (it matches the name); false when it is one of
 * the fixed patterns picked instead (some invalid, to reach the error
 * paths). */
static inline bool fuzz_pattern(const char *s, size_t len, unsigned how, char *out, size_t cap)
{
	static const char *const fixed[] = {
		"^", "", ".", "(", "[", "a|b", "^[a-m]", "[;]", "x$", "\\.", "a{2}", "main|^_",
		"*", "a**", ")", "[[:alpha:]]+$",
	};
	if ((how & 7) == 7 || len == 0 || s[0] == '\0') {
		snprintf(out, cap, "%s", fixed[(how >> 3) % (sizeof fixed / sizeof fixed[0])]);
		return false;
	}
	const void *z = memchr(s, '\0', len);
	if (z)
		len = (size_t)((const char *)z - s);
	size_t from = (how >> 3) % len;
	size_t to = len - ((how >> 9) % (len - from));      /* from < to <= len */
	if (how & 1)
		from = 0;
	if (how & 2)
		to = len;
	size_t o = 0;
	if (from == 0)
		out[o++] = '^';
	size_t dot = (how >> 5) & 15;   /* which byte of the slice becomes '.' */
	size_t k = from;
	for (; k < to; k++) {
		char c = s[k];
		bool special = strchr(".[]()*+?{}|^$\\", c) != NULL;
		if (o + 2 + special + 1 > cap)
			break;
		if ((how & 4) && k - from == dot)
			out[o++] = '.';
		else {
			if (special)
				out[o++] = '\\';
			out[o++] = c;
		}
	}
	if (k == len)
		out[o++] = '$';
	out[o] = '\0';
	return true;
}

#endif
