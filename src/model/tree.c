/* tree: life cycle, decimal counts and what tree.h says of a whole tree.
 * The builder is treebuild.c and treemerge.c; finalize is treesort.c and
 * treefinal.c; the folded output treefold.c. */
#include "config.h"
#include "treeint.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

void tree_init(struct tree *t)
{
	tree_init_nodes(t, NULL, 0);
}

void tree_init_nodes(struct tree *t, void *mem, size_t bytes)
{
	memset(t, 0, sizeof *t);
	t->unit = 1;
	strtab_init(&t->names);
	if (mem && bytes / sizeof *t->nodes >= 1024) {
		t->cap = bytes / sizeof *t->nodes;
		t->nodes = mem;
		memset(&t->nodes[0], 0, sizeof t->nodes[0]);
	} else {
		free(mem);
		t->cap = 1024;
		t->nodes = xcalloc(t->cap, sizeof *t->nodes);
	}
	t->n = 1;
	t->nodes[0].parent = TREE_NONE;
	t->nodes[0].end = KIDS_NONE;
	t->nodes[0].name = strtab_intern(&t->names, "all", 3);
	t->b.pathcap = 64;
	t->b.path = xmalloc(t->b.pathcap * sizeof *t->b.path);
	t->b.pathkeys = xmalloc(t->b.pathcap * sizeof *t->b.pathkeys);
	t->b.first_leaf = TREE_NONE;
}

void *tree_take_nodes(struct tree *t, size_t *bytes)
{
	tree_prefault_end(t);
	void *mem = t->nodes;
	*bytes = t->cap * sizeof *t->nodes;
	t->nodes = NULL;
	t->n = t->cap = 0;
	return mem;
}

void tree_free(struct tree *t)
{
	tree_prefault_end(t);
	free(t->nodes);
	free(t->b.slots);
	free(t->b.path);
	free(t->b.pathkeys);
	free(t->b.bpath);
	free(t->b.bat);
	free(t->b.rv);
	free(t->b.rvopen);
	if (!t->names_borrowed)
		strtab_free(&t->names);
	memset(t, 0, sizeof *t);
	t->unit = 1;
}

void tree_borrow_names(struct tree *t, const struct tree *dst)
{
	if (t->n != 1 || t->names_borrowed)
		xdie("internal error: tree_borrow_names on a tree with stacks");
	strtab_free(&t->names);
	t->names = dst->names;
	t->names_borrowed = true;
}

void tree_unborrow_names(struct tree *t)
{
	if (!t->names_borrowed)
		return;
	memset(&t->names, 0, sizeof t->names);
	t->names_borrowed = false;
}

/* ---- decimal counts ----------------------------------------------------- */

static const uint64_t pow10_u64[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
	100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
	10000000000000ull, 100000000000000ull, 1000000000000000ull,
	10000000000000000ull, 100000000000000000ull, 1000000000000000000ull,
	10000000000000000000ull,
};

/* Moves t to `to` decimals (more than it has) when its sum allows: every
 * self count (and a chart's times) is at most the sum. */
static bool rescale(struct tree *t, unsigned to)
{
	uint64_t m = pow10_u64[to - t->decimals];
	if (t->saturated || t->time.u > UINT64_MAX / m)
		return false;
	for (size_t i = 0; i < t->n; i++) {
		t->nodes[i].self.u *= m;
		if (t->chart)
			t->nodes[i].off.u *= m;
	}
	t->time.u *= m;
	t->decimals = to;
	t->unit = pow10_u64[to];
	t->frac = true;
	return true;
}

/* As many of `want` decimals as t can take. */
void tree_dec_widen(struct tree *t, unsigned want)
{
	for (unsigned to = want; to > t->decimals; to--)
		if (rescale(t, to))
			return;
}

uint64_t tree_units_from(struct tree *t, uint64_t count, unsigned from)
{
	if (from == t->decimals)
		return count;
	if (from < t->decimals) {
		uint64_t m = pow10_u64[t->decimals - from];
		if (count > UINT64_MAX / m) {
			t->saturated = true;
			return UINT64_MAX;
		}
		return count * m;
	}
	uint64_t d = pow10_u64[from - t->decimals];
	uint64_t q = count / d, r = count % d;
	if (r) {
		t->rounded++;
		if (r >= d - r)         /* half up: r >= d / 2 without overflow */
			q++;
	}
	return q;
}

uint64_t tree_dec_units(struct tree *t, struct tree_dec c)
{
	if (c.decimals > TREE_MAX_DECIMALS)
		xdie("internal error: a count with %u decimals", c.decimals);
	if (c.saturated)
		t->saturated = true;
	if (c.rounded)
		t->rounded++;
	if (c.decimals > t->decimals && c.units)
		tree_dec_widen(t, c.decimals);
	return tree_units_from(t, c.units, c.decimals);
}

bool tree_dec_parse(const char *s, size_t len, struct tree_dec *out)
{
	size_t i = 0, ip, fp = 0;
	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++;
	ip = i;
	if (ip == 0)
		return false;
	size_t f0 = i;
	if (i < len && s[i] == '.') {
		f0 = ++i;
		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++;
		fp = i - f0;
	}
	long exp = 0;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		bool neg = false;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			neg = s[i++] == '-';
		size_t e0 = i;
		while (i < len && s[i] >= '0' && s[i] <= '9') {
			if (exp < 100000)       /* far beyond any that fits */
				exp = exp * 10 + (s[i] - '0');
			i++;
		}
		if (i == e0)
			return false;
		if (neg)
			exp = -exp;
	}
	if (i != len)
		return false;
	/* The digits (integer then fraction) without leading or trailing
	 * zeros, times 10^scale. */
	size_t first = 0, last = ip + fp;     /* over the digit string */
#define DIGIT(k) ((k) < ip ? s[k] : s[f0 + (k) - ip])
	while (first < last && DIGIT(first) == '0')
		first++;
	while (last > first && DIGIT(last - 1) == '0')
		last--;
	long scale = exp - (long)fp + (long)(ip + fp - last);
	*out = (struct tree_dec){ 0, 0, false, false };
	if (first == last)
		return true;            /* zero */
	/* Drop fraction digits beyond TREE_MAX_DECIMALS, and beyond 19 digits
	 * in all (19 always fit 64 bits), rounding half up on the first one
	 * dropped: a carry can only add a digit on the left. */
	size_t ndig = last - first;
	long drop = 0;
	if (scale < -(long)TREE_MAX_DECIMALS)
		drop = -(long)TREE_MAX_DECIMALS - scale;
	if (scale < 0 && (long)ndig - 19 > drop)
		drop = (long)ndig - 19 < -scale ? (long)ndig - 19 : -scale;
	bool up = false;
	if (drop > 0) {
		out->rounded = true;
		if ((size_t)drop > ndig) {      /* all digits far below the point */
			last = first;
		} else {
			up = DIGIT(last - (size_t)drop) >= '5';
			last -= (size_t)drop;
		}
		scale += drop;
	}
	uint64_t v = 0;
	for (size_t k = first; k < last; k++) {
		unsigned d = (unsigned)(DIGIT(k) - '0');
		if (v > (UINT64_MAX - d) / 10)
			goto saturate;
		v = v * 10 + d;
	}
#undef DIGIT
	v += up;                    /* at most 10^19: fits */
	for (; scale > 0; scale--) {
		if (v > UINT64_MAX / 10)
			goto saturate;
		v *= 10;
	}
	while (scale < 0 && v % 10 == 0) {      /* zeros a carry made */
		v /= 10;
		scale++;
	}
	out->units = v;
	out->decimals = (unsigned)-scale;
	return true;
saturate:
	out->units = UINT64_MAX;
	out->decimals = 0;
	out->saturated = true;
	return true;
}

struct tree_dec tree_dec_from_double(double v)
{
	struct tree_dec d = { 0, 0, false, false };
	if (!(v > 0))
		return d;
	if (v >= 18446744073709551615.0) {
		d.units = UINT64_MAX;
		d.saturated = true;
		return d;
	}
	char buf[64];
	int n = snprintf(buf, sizeof buf, "%.9f", v);
	if (n > 0 && (size_t)n < sizeof buf)
		tree_dec_parse(buf, (size_t)n, &d);
	return d;
}

int tree_format_count(const struct tree *t, tree_count c, char *buf, size_t size)
{
	if (!t->frac)
		return snprintf(buf, size, "%" PRIu64, c.u);
	uint64_t whole = c.u / t->unit, part = c.u % t->unit;
	if (!part)
		return snprintf(buf, size, "%" PRIu64, whole);
	char digits[24];
	int n = snprintf(digits, sizeof digits, "%0*" PRIu64, (int)t->decimals, part);
	while (n > 1 && digits[n - 1] == '0')
		digits[--n] = '\0';
	return snprintf(buf, size, "%" PRIu64 ".%s", whole, digits);
}


size_t tree_bytes(const struct tree *t)
{
	return t->cap * sizeof *t->nodes + t->b.nslots * sizeof *t->b.slots +
	       t->b.pathcap * (sizeof *t->b.path + sizeof *t->b.pathkeys) +
	       t->b.bpathcap * sizeof *t->b.bpath + t->b.batcap * sizeof *t->b.bat +
	       t->b.caprv * sizeof *t->b.rv + t->b.caprvopen * sizeof *t->b.rvopen +
	       strtab_bytes(&t->names);
}
