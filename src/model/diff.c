#include "config.h"
#include "diff.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

/* (parent, name id) -> child of BEFORE, open addressing; key + 1 so that 0
 * marks an empty slot. */
struct childmap {
	uint64_t *key;
	tree_idx *val;
	size_t mask;
	unsigned shift;     /* 64 - log2(slots): the product's top bits mix
	                       every bit of the key */
};

static size_t slot_of(const struct childmap *m, uint64_t k)
{
	return (size_t)((k * 0x9e3779b97f4a7c15ULL) >> m->shift);
}

static void childmap_build(struct childmap *m, const struct tree *t)
{
	size_t cap = 16;
	m->shift = 60;
	while (cap < 2 * tree_size(t)) {
		cap *= 2;
		m->shift--;
	}
	m->key = xcalloc(cap, sizeof *m->key);
	m->val = xmalloc(cap * sizeof *m->val);
	m->mask = cap - 1;
	for (tree_idx i = 1; i < tree_size(t); i++) {
		uint64_t k = (((uint64_t)tree_parent(t, i) << 32) | tree_node(t, i)->name) + 1;
		size_t j = slot_of(m, k);
		while (m->key[j])
			j = (j + 1) & m->mask;
		m->key[j] = k;
		m->val[j] = i;
	}
}

static tree_idx childmap_get(const struct childmap *m, tree_idx parent, strtab_id name)
{
	uint64_t k = (((uint64_t)parent << 32) | name) + 1;
	for (size_t j = slot_of(m, k); m->key[j]; j = (j + 1) & m->mask)
		if (m->key[j] == k)
			return m->val[j];
	return TREE_NONE;
}

tree_idx *diff_match(const struct tree *after, const struct tree *before)
{
	size_t n = tree_size(after);
	/* AFTER's names as BEFORE's ids, looked up once per distinct name. */
	size_t nn = strtab_count(&after->names);
	int64_t *bid = xmalloc((nn ? nn : 1) * sizeof *bid);
	for (size_t k = 0; k < nn; k++)
		bid[k] = strtab_find(&before->names, strtab_str(&after->names, (strtab_id)k),
		                     strtab_len(&after->names, (strtab_id)k));
	struct childmap cm;
	childmap_build(&cm, before);
	tree_idx *map = xmalloc((n ? n : 1) * sizeof *map);
	map[0] = TREE_ROOT;
	for (tree_idx i = 1; i < n; i++) {     /* parents come first in preorder */
		tree_idx p = map[tree_parent(after, i)];
		int64_t b = bid[tree_node(after, i)->name];
		map[i] = p == TREE_NONE || b < 0 ? TREE_NONE : childmap_get(&cm, p, (strtab_id)b);
	}
	free(cm.key);
	free(cm.val);
	free(bid);
	return map;
}

void diff_compute(struct diff *d, const struct tree *after, const struct tree *before,
                  bool normalize, bool negate)
{
	memset(d, 0, sizeof *d);
	size_t n = tree_size(after);
	d->before_self = xcalloc(n, sizeof *d->before_self);
	d->before_total = xcalloc(n, sizeof *d->before_total);
	d->negate = negate;
	/* BEFORE x num / den: multiplying first keeps whole results exact. */
	double num = 1.0, den = 1.0;
	double ta = tree_total_d(after, TREE_ROOT), tb = tree_total_d(before, TREE_ROOT);
	if (normalize && tb > 0 && ta != tb) {
		num = ta;
		den = tb;
	}
	d->scale = num / den;

	tree_idx *map = diff_match(after, before);
	for (tree_idx i = 0; i < n; i++) {
		if (map[i] != TREE_NONE) {
			d->before_self[i] = tree_self_d(before, map[i]) * num / den;
			d->before_total[i] = tree_total_d(before, map[i]) * num / den;
		}
		double delta = fabs(tree_self_d(after, i) - d->before_self[i]);
		if (delta > d->max_delta)
			d->max_delta = delta;
	}
	free(map);
}

void diff_free(struct diff *d)
{
	free(d->before_self);
	free(d->before_total);
	memset(d, 0, sizeof *d);
}

double diff_self_delta(const struct diff *d, const struct tree *after, tree_idx i)
{
	return tree_self_d(after, i) - d->before_self[i];
}

double diff_total_delta(const struct diff *d, const struct tree *after, tree_idx i)
{
	return tree_total_d(after, i) - d->before_total[i];
}

struct palette_rgb diff_color(const struct diff *d, const struct tree *after, tree_idx i)
{
	double delta = diff_self_delta(d, after, i);
	if (d->negate)
		delta = -delta;
	if (d->max_delta <= 0 || delta == 0)
		return (struct palette_rgb){ 230, 230, 230 };
	double v = fabs(delta) / d->max_delta;
	/* From pale (v near 0) to saturated (v = 1). */
	uint8_t weak = (uint8_t)(215.0 - 175.0 * v);
	if (delta > 0)
		return (struct palette_rgb){ 255, weak, weak };
	return (struct palette_rgb){ weak, weak, 255 };
}

/* Counts as integers when they are whole (the usual case), else 2 decimals. */
static void fmt(double v, char *buf, size_t size)
{
	if (v == floor(v) && fabs(v) < 9e15)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.2f", v);
}

int diff_describe(const struct diff *d, const struct tree *after, tree_idx i, char *buf,
                  size_t size)
{
	double b = d->before_total[i], a = tree_total_d(after, i), delta = a - b;
	char sb[48], sa[48], sd[48], pct[48];
	fmt(b, sb, sizeof sb);
	fmt(a, sa, sizeof sa);
	fmt(fabs(delta), sd, sizeof sd);
	if (b > 0)
		snprintf(pct, sizeof pct, "%+.2f%%", 100.0 * delta / b);
	else
		snprintf(pct, sizeof pct, "%s", a > 0 ? "new" : "-");
	return snprintf(buf, size, "before %s  after %s  delta %s%s (%s)", sb, sa,
	                delta < 0 ? "-" : "+", sd, pct);
}

int diff_mark(const struct diff *d, const struct tree *after, tree_idx i, char *buf, size_t size)
{
	double b = d->before_total[i], a = tree_total_d(after, i);
	int n = 0;
	if (b <= 0)
		n = a > 0 ? snprintf(buf, size, "new") : 0;
	else {
		double p = 100.0 * (a - b) / b;
		if (p >= 0.5 || p <= -0.5)
			n = snprintf(buf, size, "%+.0f%%", p);
	}
	if (n <= 0 || (size_t)n >= size) {
		if (size)
			buf[0] = '\0';
		return 0;
	}
	return n;
}
