#include "config.h"
#include "transform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rx.h"
#include "xalloc.h"

/* ---- building helpers --------------------------------------------------- */

static struct tree_frame frame_of(const struct tree *t, tree_idx i)
{
	return (struct tree_frame){ tree_name(t, i), tree_name_len(t, i) };
}

/* src's count c as a decimal: dst takes src's units. */
static struct tree_dec dec_of(const struct tree *src, tree_count c)
{
	return (struct tree_dec){ c.u, src->decimals, false, false };
}

/* Adds the stack "previous stack's first keep frames + tail" with node i's
 * self count. */
static void add_tail(struct tree *dst, const struct tree *src, size_t keep,
                     const struct tree_frame *tail, size_t ntail, tree_count c)
{
	tree_add_stack_tail_dec(dst, keep, tail, ntail, dec_of(src, c));
}

static void add_full(struct tree *dst, const struct tree *src, const struct tree_frame *f,
                     size_t n, tree_count c)
{
	tree_add_stack_dec(dst, f, n, dec_of(src, c));
}

static bool count_zero(const struct tree *t, tree_count c)
{
	(void)t;
	return c.u == 0;
}

enum verdict { KEEP, MERGE, SKIP };

/* The generic filter: visits src in preorder and gives each node (root
 * excluded) a verdict: KEEP it, MERGE it into its nearest kept ancestor
 * (children re-attach there, its samples too), or SKIP its subtree. In
 * preorder the previous stack added always starts with the parent's new
 * path, so each node costs one tree_add_stack_tail of at most one frame. */
struct filter {
	enum verdict (*judge)(const struct filter *f, const struct tree *src, tree_idx i);
	const bool *hidden;         /* per name id (hide) */
	tree_idx drop;              /* (drop) */
};

static void filter_tree(const struct tree *src, const struct filter *f, enum tree_order order,
                        struct tree *dst)
{
	tree_init(dst);
	dst->chart = src->chart;
	size_t n = tree_size(src);
	uint32_t *len = xmalloc(n * sizeof *len);   /* new path length per node */
	len[0] = 0;
	add_full(dst, src, NULL, 0, tree_node(src, TREE_ROOT)->self);
	for (tree_idx i = 1; i < n;) {
		tree_idx p = tree_parent(src, i);
		enum verdict v = f->judge(f, src, i);
		if (v == SKIP) {
			i = tree_end(src, i);
			continue;
		}
		struct tree_frame fr = frame_of(src, i);
		len[i] = len[p] + (v == KEEP);
		add_tail(dst, src, len[p], &fr, v == KEEP, tree_node(src, i)->self);
		i++;
	}
	free(len);
	tree_finalize(dst, src->chart ? TREE_ORDER_INPUT : order);
}

/* ---- the transforms ----------------------------------------------------- */

struct frames {
	struct tree_frame *v;
	size_t cap;
};

static void frames_reserve(struct frames *f, size_t n)
{
	if (n > f->cap) {
		f->cap = n > 2 * f->cap ? n : 2 * f->cap;
		f->v = xreallocarray(f->v, f->cap, sizeof *f->v);
	}
}

void transform_reverse(const struct tree *src, enum tree_order order, struct tree *dst)
{
	tree_init(dst);
	struct frames fr = { 0 };
	add_full(dst, src, NULL, 0, tree_node(src, TREE_ROOT)->self);
	for (tree_idx i = 1; i < tree_size(src); i++) {
		if (count_zero(src, tree_node(src, i)->self))
			continue;
		size_t d = tree_depth(src, i), k = 0;
		frames_reserve(&fr, d);
		for (tree_idx j = i; j != TREE_ROOT; j = tree_parent(src, j))
			fr.v[k++] = frame_of(src, j);
		add_full(dst, src, fr.v, k, tree_node(src, i)->self);
	}
	free(fr.v);
	tree_finalize(dst, order == TREE_ORDER_INPUT ? TREE_ORDER_NAME : order);
}

void transform_focus(const struct tree *src, strtab_id name, enum tree_order order,
                     struct tree *dst)
{
	tree_init(dst);
	tree_idx n = (tree_idx)tree_size(src);
	for (tree_idx i = 1; i < n;) {
		if (tree_node(src, i)->name != name) {
			i++;
			continue;
		}
		/* An outermost occurrence o = i: its subtree, re-rooted. A node
		 * at depth d sits at depth d - depth(o) + 1 in the new tree. */
		uint32_t d0 = tree_depth(src, i);
		tree_idx end = tree_end(src, i);
		for (tree_idx j = i; j < end; j++) {
			struct tree_frame fr = frame_of(src, j);
			size_t keep = j == i ? 0 : tree_depth(src, j) - d0;
			add_tail(dst, src, keep, &fr, 1, tree_node(src, j)->self);
		}
		i = end;
	}
	tree_finalize(dst, order == TREE_ORDER_INPUT ? TREE_ORDER_NAME : order);
}

void transform_callers(const struct tree *src, strtab_id name, enum tree_order order,
                       struct tree *dst)
{
	tree_init(dst);
	struct frames fr = { 0 };
	tree_idx n = (tree_idx)tree_size(src);
	for (tree_idx i = 1; i < n;) {
		if (tree_node(src, i)->name != name) {
			i++;
			continue;
		}
		size_t d = tree_depth(src, i), k = 0;
		frames_reserve(&fr, d);
		for (tree_idx j = i; j != TREE_ROOT; j = tree_parent(src, j))
			fr.v[k++] = frame_of(src, j);
		add_full(dst, src, fr.v, k, tree_node(src, i)->total);
		i = tree_end(src, i);
	}
	free(fr.v);
	tree_finalize(dst, order == TREE_ORDER_INPUT ? TREE_ORDER_NAME : order);
}

static enum verdict judge_hide(const struct filter *f, const struct tree *src, tree_idx i)
{
	return f->hidden[tree_node(src, i)->name] ? MERGE : KEEP;
}

void transform_hide(const struct tree *src, const struct rx *re, enum tree_order order,
                    struct tree *dst)
{
	/* Match once per distinct name, not per node. */
	size_t nn = strtab_count(&src->names);
	bool *hidden = xcalloc(nn ? nn : 1, sizeof *hidden);
	for (size_t id = 1; id < nn; id++)     /* id 0 is the root "all" */
		hidden[id] = rx_matches(re, strtab_str(&src->names, (strtab_id)id),
		                        strtab_len(&src->names, (strtab_id)id));
	struct filter f = { .judge = judge_hide, .hidden = hidden };
	filter_tree(src, &f, order, dst);
	free(hidden);
}

static enum verdict judge_recursion(const struct filter *f, const struct tree *src, tree_idx i)
{
	(void)f;
	tree_idx p = tree_parent(src, i);
	return p != TREE_ROOT && tree_node(src, p)->name == tree_node(src, i)->name ? MERGE : KEEP;
}

void transform_merge_recursion(const struct tree *src, enum tree_order order, struct tree *dst)
{
	struct filter f = { .judge = judge_recursion };
	filter_tree(src, &f, order, dst);
}

static enum verdict judge_drop(const struct filter *f, const struct tree *src, tree_idx i)
{
	(void)src;
	return i == f->drop ? SKIP : KEEP;
}

void transform_drop(const struct tree *src, tree_idx node, enum tree_order order,
                    struct tree *dst)
{
	struct filter f = { .judge = judge_drop, .drop = node };
	filter_tree(src, &f, order, dst);
}

static enum verdict judge_keep(const struct filter *f, const struct tree *src, tree_idx i)
{
	(void)f;
	(void)src;
	(void)i;
	return KEEP;
}

/* ---- transform values --------------------------------------------------- */

struct transform transform_make(enum transform_kind kind, const char *arg, size_t len)
{
	struct transform tr = { kind, NULL, 0 };
	if (arg) {
		tr.arg = xmalloc(len + 1);
		memcpy(tr.arg, arg, len);
		tr.arg[len] = '\0';
		tr.arglen = len;
	}
	return tr;
}

/* A name in a drop path: its \0 and \1 bytes escaped (\1\2, \1\1), so
 * that a \0 in a name is not taken for the separator, which would lead the
 * path to another frame. Returns the length; writes it when out is set. */
static size_t path_escape(const char *s, size_t n, char *out)
{
	size_t len = 0;
	for (size_t k = 0; k < n; k++) {
		bool esc = s[k] == '\0' || s[k] == '\1';
		if (out && esc) {
			out[len] = '\1';
			out[len + 1] = s[k] == '\0' ? '\2' : '\1';
		} else if (out) {
			out[len] = s[k];
		}
		len += 1 + esc;
	}
	return len;
}

/* Whether the escaped path element e[0..elen) is name s[0..n). */
static bool path_equal(const char *e, size_t elen, const char *s, size_t n)
{
	size_t k = 0, j = 0;
	while (k < elen && j < n) {
		char c = e[k++];
		if (c == '\1') {
			if (k == elen || (e[k] != '\1' && e[k] != '\2'))
				return false;
			c = e[k++] == '\2' ? '\0' : '\1';
		}
		if (c != s[j++])
			return false;
	}
	return k == elen && j == n;
}

struct transform transform_make_drop(const struct tree *t, tree_idx i)
{
	size_t len = 0;
	for (tree_idx j = i; j != TREE_ROOT && j != TREE_NONE; j = tree_parent(t, j))
		len += path_escape(tree_name(t, j), tree_name_len(t, j), NULL) + 1;
	struct transform tr = { TRANSFORM_DROP, xmalloc(len + 1), len ? len - 1 : 0 };
	/* Written from the end: the walk goes leaf to root. */
	size_t pos = len;
	for (tree_idx j = i; j != TREE_ROOT && j != TREE_NONE; j = tree_parent(t, j)) {
		size_t nl = path_escape(tree_name(t, j), tree_name_len(t, j), NULL);
		pos -= nl + 1;
		path_escape(tree_name(t, j), tree_name_len(t, j), tr.arg + pos);
		tr.arg[pos + nl] = '\0';
	}
	tr.arg[len] = '\0';
	return tr;
}

void transform_free(struct transform *tr)
{
	free(tr->arg);
	tr->arg = NULL;
	tr->arglen = 0;
}

tree_idx transform_find_path(const struct tree *t, const char *path, size_t len)
{
	tree_idx cur = TREE_ROOT;
	size_t p = 0;
	for (;;) {
		const char *z = memchr(path + p, '\0', len - p);
		size_t e = z ? (size_t)(z - path) : len;
		tree_idx c = tree_first_child(t, cur);
		for (; c != TREE_NONE; c = tree_next_sibling(t, c))
			if (path_equal(path + p, e - p, tree_name(t, c), tree_name_len(t, c)))
				break;
		if (c == TREE_NONE)
			return TREE_NONE;
		cur = c;
		if (e >= len)
			return cur;
		p = e + 1;
	}
}

static bool find_name(const struct tree *src, const struct transform *tr, strtab_id *id,
                      char *err, size_t errsize)
{
	int64_t v = strtab_find(&src->names, tr->arg, tr->arglen);
	if (v <= 0) {   /* 0 is the root "all": not a function */
		snprintf(err, errsize, "no frame named %s", tr->arg);
		return false;
	}
	*id = (strtab_id)v;
	return true;
}

bool transform_hide_valid(const char *regex, char *err, size_t errsize)
{
	struct rx *re = rx_new(regex, strlen(regex), RX_CASE_SENSITIVE, err, errsize);
	bool valid = re != NULL;
	rx_free(re);
	return valid;
}

bool transform_apply(const struct tree *src, const struct transform *tr, enum tree_order order,
                     struct tree *dst, char *err, size_t errsize)
{
	strtab_id id;
	if (errsize)
		err[0] = '\0';     /* no note */
	switch (tr->kind) {
	case TRANSFORM_REVERSE:
		transform_reverse(src, order, dst);
		return true;
	case TRANSFORM_FOCUS:
	case TRANSFORM_CALLERS:
		if (!find_name(src, tr, &id, err, errsize))
			return false;
		if (tr->kind == TRANSFORM_FOCUS)
			transform_focus(src, id, order, dst);
		else
			transform_callers(src, id, order, dst);
		return true;
	case TRANSFORM_HIDE: {
		char why[160];
		struct rx *re = rx_new(tr->arg, tr->arglen, RX_CASE_SENSITIVE, why, sizeof why);
		if (!re) {
			snprintf(err, errsize, "bad regex: %s", why);
			return false;
		}
		transform_hide(src, re, order, dst);
		if (rx_costly(re) && errsize)
			snprintf(err, errsize, "hide: the pattern was too costly on %zu name%s (not hidden)",
			         rx_costly(re), rx_costly(re) == 1 ? "" : "s");
		rx_free(re);
		return true;
	}
	case TRANSFORM_MERGE_RECURSION:
		transform_merge_recursion(src, order, dst);
		return true;
	case TRANSFORM_DROP: {
		tree_idx i = tr->arg ? transform_find_path(src, tr->arg, tr->arglen) : TREE_NONE;
		if (i == TREE_NONE || i == TREE_ROOT) {
			snprintf(err, errsize, "no such frame to drop");
			return false;
		}
		transform_drop(src, i, order, dst);
		return true;
	}
	}
	snprintf(err, errsize, "unknown transform");
	return false;
}

size_t transform_label(const struct transform *tr, char *buf, size_t size)
{
	int n = 0;
	switch (tr->kind) {
	case TRANSFORM_REVERSE: n = snprintf(buf, size, "reverse"); break;
	case TRANSFORM_FOCUS: n = snprintf(buf, size, "focus %s", tr->arg); break;
	case TRANSFORM_CALLERS: n = snprintf(buf, size, "callers of %s", tr->arg); break;
	case TRANSFORM_HIDE: n = snprintf(buf, size, "hide %s", tr->arg); break;
	case TRANSFORM_MERGE_RECURSION: n = snprintf(buf, size, "merge recursion"); break;
	case TRANSFORM_DROP: {
		/* Only the dropped frame's own name: the path can be long. */
		const char *last = tr->arg;
		for (size_t k = 0; k < tr->arglen; k++)
			if (tr->arg[k] == '\0')
				last = tr->arg + k + 1;
		n = snprintf(buf, size, "drop %s", last);
		break;
	}
	}
	if (n < 0)
		n = 0;
	return (size_t)n < size ? (size_t)n : (size ? size - 1 : 0);
}

/* ---- the stack ---------------------------------------------------------- */

void transform_stack_init(struct transform_stack *s, const struct tree *base,
                          const struct tree *base2, enum tree_order order)
{
	memset(s, 0, sizeof *s);
	s->base = base;
	s->base2 = base2;
	s->order = order;
}

const struct tree *transform_stack_tree(const struct transform_stack *s)
{
	return s->n ? &s->cur : s->base;
}

const struct tree *transform_stack_tree2(const struct transform_stack *s)
{
	if (!s->base2)
		return NULL;
	return s->n ? &s->cur2 : s->base2;
}

static void drop_current(struct transform_stack *s)
{
	if (s->n) {
		tree_free(&s->cur);
		if (s->base2)
			tree_free(&s->cur2);
	}
}

/* Applies tr to the current trees; new trees in *a, *b. */
static bool apply_both(struct transform_stack *s, const struct transform *tr, struct tree *a,
                       struct tree *b, char *err, size_t errsize)
{
	if (!transform_apply(transform_stack_tree(s), tr, s->order, a, err, errsize))
		return false;
	if (s->base2) {
		char dummy[8];
		const struct tree *src2 = transform_stack_tree2(s);
		/* The second tree may lack the function or path: carry it over
		 * as it is (an empty focus would hide everything BEFORE had). */
		if (!transform_apply(src2, tr, s->order, b, dummy, sizeof dummy)) {
			struct filter f = { .judge = judge_keep };
			filter_tree(src2, &f, s->order, b);
		}
	}
	return true;
}

bool transform_stack_push(struct transform_stack *s, struct transform *tr, char *err,
                          size_t errsize)
{
	struct tree a, b;
	if (!apply_both(s, tr, &a, &b, err, errsize)) {
		transform_free(tr);
		return false;
	}
	drop_current(s);
	s->cur = a;
	if (s->base2)
		s->cur2 = b;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->items = xreallocarray(s->items, s->cap, sizeof *s->items);
	}
	s->items[s->n++] = *tr;
	tr->arg = NULL;
	return true;
}

bool transform_stack_pop(struct transform_stack *s)
{
	if (s->n == 0)
		return false;
	drop_current(s);
	size_t n = s->n - 1;
	transform_free(&s->items[n]);
	s->n = 0;
	char err[8];
	for (size_t k = 0; k < n; k++) {
		struct tree a, b;
		/* Each applied before, to the same trees: it applies again. */
		if (!apply_both(s, &s->items[k], &a, &b, err, sizeof err))
			xdie("internal error: a transform no longer applies");
		drop_current(s);
		s->cur = a;
		if (s->base2)
			s->cur2 = b;
		s->n = k + 1;
	}
	return true;
}

size_t transform_stack_rebase(struct transform_stack *s, const struct tree *base)
{
	drop_current(s);
	size_t n = s->n, kept = 0, dropped = 0;
	s->n = 0;
	s->base = base;
	char err[8];
	for (size_t k = 0; k < n; k++) {
		struct tree a, b;
		if (!apply_both(s, &s->items[k], &a, &b, err, sizeof err)) {
			transform_free(&s->items[k]);
			dropped++;
			continue;
		}
		drop_current(s);
		s->cur = a;
		if (s->base2)
			s->cur2 = b;
		s->items[kept++] = s->items[k];
		s->n = kept;
	}
	return dropped;
}

void transform_stack_free(struct transform_stack *s)
{
	drop_current(s);
	for (size_t k = 0; k < s->n; k++)
		transform_free(&s->items[k]);
	free(s->items);
	memset(s, 0, sizeof *s);
}
