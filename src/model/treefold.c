/* tree_write_folded: the tree as folded text, lines in byte-wise order. */
#include "config.h"
#include "treeint.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

/* An item of the folded output within one sibling group: a node's own line
 * ("name COUNT") or its subtree ("name;..."). Sorting items rather than
 * nodes gives exact byte order even when a name is a prefix of a sibling's
 * ("a" < "a!;x" < "a;b"). */
struct fold_item {
	tree_idx node;
	bool subtree;
};

static int cmp_item(const struct tree *t, struct fold_item a, struct fold_item b)
{
	TEST_COUNT(tree_test_item_compares);
	strtab_id na = t->nodes[a.node].name, nb = t->nodes[b.node].name;
	size_t la = strtab_len(&t->names, na), lb = strtab_len(&t->names, nb);
	const unsigned char *sa = (const unsigned char *)strtab_str(&t->names, na);
	const unsigned char *sb = (const unsigned char *)strtab_str(&t->names, nb);
	int c = memcmp(sa, sb, la < lb ? la : lb);
	if (c)
		return c;
	/* What follows the shorter name: end (-1), ';' for a subtree, or a byte. */
	int ca = la > lb ? sa[lb] : (a.subtree ? ';' : -1);
	int cb = lb > la ? sb[la] : (b.subtree ? ';' : -1);
	if (la == lb && ca == cb)
		return 0;
	return ca < cb ? -1 : 1;
}

/* Bottom-up merge sort of v[0..n) with tmp[0..n): O(n log n) even for
 * hostile names (long chains of names that are prefixes of each other). */
static void sort_items(const struct tree *t, struct fold_item *v, struct fold_item *tmp, size_t n)
{
	struct fold_item *src = v, *dst = tmp;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n;
			size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				dst[k++] = cmp_item(t, src[j], src[i]) < 0 ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		struct fold_item *s = src;
		src = dst;
		dst = s;
	}
	if (src != v)
		memcpy(v, src, n * sizeof *v);
}

/* True when v[0..n) is in order already: finalize put siblings in name
 * order, which is the items' order unless a name starts a sibling's and
 * what follows sorts before ';'. One comparison each, not a sort's
 * n log n (10 million siblings: 23 times fewer). */
static bool items_sorted(const struct tree *t, const struct fold_item *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (cmp_item(t, v[i - 1], v[i]) > 0)
			return false;
	return true;
}

/* Writes v in decimal at p (no NUL); returns the length (at most 20). */
static size_t format_u64(uint64_t v, char *p)
{
	char tmp[20];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		p[i] = tmp[n - 1 - i];
	return n;
}

struct fold_frame {
	size_t items_begin, items_end, next;    /* this group's items */
	size_t keylen;                          /* key length to restore after it */
};

int tree_write_folded(const struct tree *t, FILE *out)
{
	struct fold_item *items = NULL, *tmp = NULL;
	size_t nitems = 0, capitems = 0, captmp = 0, restore = 0;
	struct fold_frame *stk = NULL;
	size_t nstk = 0, capstk = 0;
	char *key = NULL;
	size_t keylen = 0, keycap = 0;
	char num[64];
	int rc = 0;

	if (has_self(t, TREE_ROOT)) {
		tree_format_count(t, t->nodes[0].self, num, sizeof num);
		if (fprintf(out, " %s\n", num) < 0)
			rc = -1;
	}

	/* Push the root's children as the first group. */
	tree_idx parent = TREE_ROOT;
	for (;;) {
		if (parent != TREE_NONE) {
			size_t b = nitems;
			for (tree_idx c = tree_first_child(t, parent); c != TREE_NONE; c = tree_next_sibling(t, c)) {
				if (nitems + 2 > capitems) {
					capitems = capitems ? capitems * 2 : 256;
					items = xreallocarray(items, capitems, sizeof *items);
				}
				if (has_self(t, c))
					items[nitems++] = (struct fold_item){ c, false };
				if (tree_first_child(t, c) != TREE_NONE)
					items[nitems++] = (struct fold_item){ c, true };
			}
			if (nitems - b > 1 && !items_sorted(t, items + b, nitems - b)) {
				if (nitems - b > captmp) {
					captmp = nitems - b;
					tmp = xreallocarray(tmp, captmp, sizeof *tmp);
				}
				sort_items(t, items + b, tmp, nitems - b);
			}
			if (nstk == capstk) {
				capstk = capstk ? capstk * 2 : 64;
				stk = xreallocarray(stk, capstk, sizeof *stk);
			}
			stk[nstk++] = (struct fold_frame){ b, nitems, b, restore };
			parent = TREE_NONE;
		}
		if (nstk == 0)
			break;
		struct fold_frame *f = &stk[nstk - 1];
		if (f->next == f->items_end) {
			keylen = f->keylen;
			nitems = f->items_begin;
			nstk--;
			continue;
		}
		struct fold_item it = items[f->next++];
		tree_idx c = it.node;
		size_t nl = strtab_len(&t->names, t->nodes[c].name);
		if (keylen + nl + 2 > keycap) {
			while (keylen + nl + 2 > keycap)
				keycap = keycap ? keycap * 2 : 4096;
			key = xrealloc(key, keycap);
		}
		if (it.subtree) {
			restore = keylen;
			memcpy(key + keylen, strtab_str(&t->names, t->nodes[c].name), nl);
			keylen += nl;
			key[keylen++] = ';';
			parent = c;
		} else {
			/* The key is complete in key[0..keylen) + name: append the
			 * count there and write the line with one call. */
			size_t need = keylen + nl + 2 + sizeof num;
			if (need > keycap) {
				while (need > keycap)
					keycap *= 2;
				key = xrealloc(key, keycap);
			}
			char *p = key + keylen;
			memcpy(p, strtab_str(&t->names, t->nodes[c].name), nl);
			p += nl;
			*p++ = ' ';
			if (t->frac) {
				tree_format_count(t, t->nodes[c].self, num, sizeof num);
				size_t ln = strlen(num);
				memcpy(p, num, ln);
				p += ln;
			} else {
				p += format_u64(t->nodes[c].self.u, p);
			}
			*p++ = '\n';
			size_t len = (size_t)(p - key);
			if (fwrite(key, 1, len, out) != len) {
				rc = -1;
				break;
			}
		}
	}
	free(items);
	free(tmp);
	free(stk);
	free(key);
	if (rc == 0 && ferror(out))
		rc = -1;
	return rc;
}
