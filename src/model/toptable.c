#include "config.h"
#include "toptable.h"
#include "unit.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "text.h"
#include "xalloc.h"

static tree_count cadd(const struct tree *t, tree_count a, tree_count b)
{
	(void)t;
	a.u = a.u + b.u < a.u ? UINT64_MAX : a.u + b.u;
	return a;
}

static int ccmp(const struct tree *t, tree_count a, tree_count b)
{
	(void)t;
	return a.u < b.u ? -1 : a.u > b.u;
}

/* A set of (name, caller name) pairs: open addressing on 64-bit keys with
 * key + 1 stored so that 0 is empty. */
struct pairset {
	uint64_t *slot;
	size_t n, cap;
	unsigned shift;     /* 64 - log2(cap): slots from the product's top bits */
};

static bool pairset_add(struct pairset *s, uint64_t key)
{
	if ((s->n + 1) * 4 > s->cap * 3) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		unsigned shift = s->cap ? s->shift - 1 : 64 - 8;
		uint64_t *slot = xcalloc(cap, sizeof *slot);
		for (size_t i = 0; i < s->cap; i++) {
			if (!s->slot[i])
				continue;
			size_t j = (size_t)((s->slot[i] * 0x9e3779b97f4a7c15ULL) >> shift);
			while (slot[j])
				j = (j + 1) & (cap - 1);
			slot[j] = s->slot[i];
		}
		free(s->slot);
		s->slot = slot;
		s->cap = cap;
		s->shift = shift;
	}
	uint64_t v = key + 1;
	size_t j = (size_t)((v * 0x9e3779b97f4a7c15ULL) >> s->shift);
	while (s->slot[j]) {
		if (s->slot[j] == v)
			return false;
		j = (j + 1) & (s->cap - 1);
	}
	s->slot[j] = v;
	s->n++;
	return true;
}

struct sort_ctx {
	const struct tree *t;
	enum toptable_key key;
};

static int cmp_name(const struct tree *t, strtab_id a, strtab_id b)
{
	uint32_t la = strtab_len(&t->names, a), lb = strtab_len(&t->names, b);
	int c = memcmp(strtab_str(&t->names, a), strtab_str(&t->names, b), la < lb ? la : lb);
	return c ? c : (la > lb) - (la < lb);
}

static int cmp_rows(const struct sort_ctx *cx, const struct toptable_row *a,
                    const struct toptable_row *b)
{
	const struct tree *t = cx->t;
	int c = 0;
	if (cx->key == TOPTABLE_SELF) {
		c = -ccmp(t, a->self, b->self);
		if (!c)
			c = -ccmp(t, a->total, b->total);
	} else if (cx->key == TOPTABLE_TOTAL) {
		c = -ccmp(t, a->total, b->total);
		if (!c)
			c = -ccmp(t, a->self, b->self);
	}
	return c ? c : cmp_name(t, a->name, b->name);
}

/* Bottom-up merge sort (stable, no recursion). */
void toptable_sort(struct toptable *tt, enum toptable_key key)
{
	size_t n = tt->n;
	if (n < 2)
		return;
	struct sort_ctx cx = { tt->t, key };
	struct toptable_row *tmp = xmalloc(n * sizeof *tmp), *src = tt->rows, *dst = tmp;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				dst[k++] = cmp_rows(&cx, &src[j], &src[i]) < 0 ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		struct toptable_row *s = src;
		src = dst;
		dst = s;
	}
	if (src != tt->rows)
		memcpy(tt->rows, src, n * sizeof *tt->rows);
	free(tmp);
}

void toptable_compute(struct toptable *tt, const struct tree *t, tree_idx zoom,
                      enum toptable_key key)
{
	memset(tt, 0, sizeof *tt);
	tt->t = t;
	tt->zoom = zoom;
	tt->all = tree_node(t, zoom)->total;
	size_t nn = strtab_count(&t->names);
	uint32_t *row_of = xmalloc((nn ? nn : 1) * sizeof *row_of);   /* name -> row + 1 */
	uint32_t *open = xcalloc(nn ? nn : 1, sizeof *open);          /* open occurrences */
	memset(row_of, 0, (nn ? nn : 1) * sizeof *row_of);
	size_t cap = 64;
	tt->rows = xmalloc(cap * sizeof *tt->rows);
	tree_idx *stk = NULL;
	size_t ns = 0, caps = 0;
	struct pairset callers = { 0 };

	tree_idx end = tree_end(t, zoom);
	for (tree_idx i = zoom; i < end; i++) {
		/* Close the nodes whose subtree ends before i. */
		while (ns > 0 && tree_end(t, stk[ns - 1]) <= i)
			open[tree_node(t, stk[--ns])->name]--;
		if (i == TREE_ROOT)
			continue;   /* "all" is not a function; its subtree is */
		strtab_id nm = tree_node(t, i)->name;
		if (!row_of[nm]) {
			if (tt->n == cap) {
				cap *= 2;
				tt->rows = xreallocarray(tt->rows, cap, sizeof *tt->rows);
			}
			struct toptable_row *r = &tt->rows[tt->n++];
			memset(r, 0, sizeof *r);
			r->name = nm;
			row_of[nm] = (uint32_t)tt->n;
		}
		struct toptable_row *r = &tt->rows[row_of[nm] - 1];
		r->self = cadd(t, r->self, tree_node(t, i)->self);
		r->nodes++;
		if (open[nm] == 0)
			r->total = cadd(t, r->total, tree_node(t, i)->total);
		strtab_id caller = tree_node(t, tree_parent(t, i))->name;
		if (pairset_add(&callers, ((uint64_t)nm << 32) | caller))
			r->sites++;
		/* Only nodes with children need closing later. */
		if (tree_end(t, i) > i + 1) {
			if (ns == caps) {
				caps = caps ? 2 * caps : 64;
				stk = xreallocarray(stk, caps, sizeof *stk);
			}
			stk[ns++] = i;
			open[nm]++;
		}
	}
	free(stk);
	free(callers.slot);
	free(open);
	free(row_of);
	toptable_sort(tt, key);
}

void toptable_free(struct toptable *tt)
{
	free(tt->rows);
	memset(tt, 0, sizeof *tt);
}

double toptable_percent(const struct toptable *tt, tree_count c)
{
	double all = tree_count_d(tt->t, tt->all);
	return all > 0 ? 100.0 * tree_count_d(tt->t, c) / all : 0.0;
}

int toptable_count_text(const struct tree *t, tree_count c, char *out, size_t size)
{
	char raw[64];
	tree_format_count(t, c, raw, sizeof raw);
	unit_group(raw, out, size);
	return (int)strlen(out);
}

int toptable_write(const struct toptable *tt, size_t limit, FILE *out)
{
	const struct tree *t = tt->t;
	size_t n = limit && limit < tt->n ? limit : tt->n;
	char self[96], total[96];
	/* Column widths from the widest count shown. */
	int ws = 4, wt = 5;
	for (size_t k = 0; k < n; k++) {
		int a = toptable_count_text(t, tt->rows[k].self, self, sizeof self);
		int b = toptable_count_text(t, tt->rows[k].total, total, sizeof total);
		ws = a > ws ? a : ws;
		wt = b > wt ? b : wt;
	}
	if (fprintf(out, "%*s %7s %*s %7s %7s  %s\n", ws, "SELF", "SELF%", wt, "TOTAL", "TOTAL%",
	            "CALLERS", "FUNCTION") < 0)
		return -1;
	char name[512];
	for (size_t k = 0; k < n; k++) {
		const struct toptable_row *r = &tt->rows[k];
		toptable_count_text(t, r->self, self, sizeof self);
		toptable_count_text(t, r->total, total, sizeof total);
		text_sanitize(strtab_str(&t->names, r->name), strtab_len(&t->names, r->name), name,
		              sizeof name);
		if (fprintf(out, "%*s %6.2f%% %*s %6.2f%% %7u  %s\n", ws, self,
		            toptable_percent(tt, r->self), wt, total, toptable_percent(tt, r->total),
		            (unsigned)r->sites, name) < 0)
			return -1;
	}
	return ferror(out) ? -1 : 0;
}

/* A possibly fractional amount rounded to a whole, grouped; signed when
 * sign. */
static void amount_text(double v, bool sign, char *out, size_t size)
{
	char raw[64], grouped[96];
	snprintf(raw, sizeof raw, "%.0f", v < 0 ? -v : v);
	unit_group(raw, grouped, sizeof grouped);
	snprintf(out, size, "%s%s", sign ? (v < 0 ? "-" : "+") : "", grouped);
}

void toptable_delta_text(double before, double after, struct toptable_delta *out)
{
	amount_text(before, false, out->before, sizeof out->before);
	amount_text(after - before, true, out->delta, sizeof out->delta);
	if (before > 0)
		snprintf(out->pct, sizeof out->pct, "%+.2f%%", 100.0 * (after - before) / before);
	else
		snprintf(out->pct, sizeof out->pct, "%s", after > 0 ? "new" : "-");
}

int toptable_write_diff(const struct toptable *tt, const struct toptable *before, double scale,
                        size_t limit, FILE *out)
{
	const struct tree *t = tt->t, *bt = before->t;
	/* BEFORE's rows by their name id, and which of them AFTER has. */
	size_t nb = strtab_count(&bt->names);
	size_t *row_of = xcalloc(nb ? nb : 1, sizeof *row_of);     /* row + 1 */
	bool *taken = xcalloc(before->n ? before->n : 1, sizeof *taken);
	for (size_t k = 0; k < before->n; k++)
		row_of[before->rows[k].name] = k + 1;
	size_t n = limit && limit < tt->n ? limit : tt->n;
	double *bef = xcalloc(n ? n : 1, sizeof *bef);
	for (size_t k = 0; k < tt->n; k++) {
		strtab_id id = tt->rows[k].name;
		int64_t b = strtab_find(&bt->names, strtab_str(&t->names, id), strtab_len(&t->names, id));
		if (b < 0 || !row_of[b])
			continue;
		taken[row_of[b] - 1] = true;
		if (k < n)
			bef[k] = tree_count_d(bt, before->rows[row_of[b] - 1].total) * scale;
	}

	char self[96], total[96], name[512];
	struct toptable_delta dt;
	int ws = 4, wt = 5, wb = 6, wd = 5;
	for (size_t k = 0; k < n + before->n; k++) {
		double a, bv;
		if (k < n) {
			int x = toptable_count_text(t, tt->rows[k].self, self, sizeof self);
			int y = toptable_count_text(t, tt->rows[k].total, total, sizeof total);
			ws = x > ws ? x : ws;
			wt = y > wt ? y : wt;
			a = tree_count_d(t, tt->rows[k].total);
			bv = bef[k];
		} else if (!limit && !taken[k - n] && before->rows[k - n].total.u) {
			a = 0;
			bv = tree_count_d(bt, before->rows[k - n].total) * scale;
		} else
			continue;
		toptable_delta_text(bv, a, &dt);
		wb = (int)strlen(dt.before) > wb ? (int)strlen(dt.before) : wb;
		wd = (int)strlen(dt.delta) > wd ? (int)strlen(dt.delta) : wd;
	}
	int rc = fprintf(out, "%*s %7s %*s %7s %*s %*s %8s  %s\n", ws, "SELF", "SELF%", wt, "TOTAL", "TOTAL%",
	                 wb, "BEFORE", wd, "DELTA", "DELTA%", "FUNCTION") < 0 ? -1 : 0;
	for (size_t k = 0; k < n + before->n && rc == 0; k++) {
		double a, bv;
		strtab_id id;
		const struct tree *nt;
		tree_count sc = { 0 }, tc = { 0 };
		if (k < n) {
			sc = tt->rows[k].self;
			tc = tt->rows[k].total;
			a = tree_count_d(t, tc);
			bv = bef[k];
			id = tt->rows[k].name;
			nt = t;
		} else if (!limit && !taken[k - n] && before->rows[k - n].total.u) {
			a = 0;
			bv = tree_count_d(bt, before->rows[k - n].total) * scale;
			id = before->rows[k - n].name;
			nt = bt;
		} else
			continue;
		toptable_count_text(t, sc, self, sizeof self);
		toptable_count_text(t, tc, total, sizeof total);
		toptable_delta_text(bv, a, &dt);
		text_sanitize(strtab_str(&nt->names, id), strtab_len(&nt->names, id), name, sizeof name);
		if (fprintf(out, "%*s %6.2f%% %*s %6.2f%% %*s %*s %8s  %s\n", ws, self, toptable_percent(tt, sc),
		            wt, total, toptable_percent(tt, tc), wb, dt.before, wd, dt.delta, dt.pct, name) < 0)
			rc = -1;
	}
	free(row_of);
	free(taken);
	free(bef);
	return rc == 0 && !ferror(out) ? 0 : -1;
}
