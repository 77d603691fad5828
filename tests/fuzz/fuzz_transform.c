/* libFuzzer harness: the transforms (transform.h) and their undo stack.
 *
 * Input: byte 0 = flags (order, flame chart, where the folded text is cut
 * in two blocks), byte 1 = number of operations (0-8), then three bytes per
 * operation (kind, two argument bytes), then a folded profile. Each
 * operation is computed twice, with transform_apply on the current tree
 * (checked against the contract in transform.h) and pushed on a
 * transform_stack, whose tree must be the same; a pop must give back the
 * tree from before the push. The final tree goes through the printer and
 * layout (fuzz_use_finalized). Regexes are simple patterns made from a
 * frame's name (see fuzz_pattern), passed through transform_apply only, so
 * the harness holds whatever engine transform.c uses. */
#include "config.h"
#include <string.h>
#include "common.h"
#include "model.h"
#include "toptable.h"
#include "transform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_OPS 8

static tree_count total_of(const struct tree *t, tree_idx i)
{
	return tree_node(t, i)->total;
}

/* The two trees hold the same number of samples. */
static void same_total(const struct tree *a, const struct tree *b)
{
	fuzz_same_count(a, total_of(a, TREE_ROOT), b, total_of(b, TREE_ROOT));
}

static void check_reverse(const struct tree *p, const struct tree *x, enum tree_order order)
{
	same_total(p, x);
	fuzz_same_count(p, tree_node(p, TREE_ROOT)->self, x, tree_node(x, TREE_ROOT)->self);
	/* Each depth-1 frame of the reversed tree is a function's self samples. */
	struct toptable tt;
	toptable_compute(&tt, p, TREE_ROOT, TOPTABLE_NAME);
	size_t kids = 0, rows = 0;
	for (tree_idx c = tree_first_child(x, TREE_ROOT); c != TREE_NONE; c = tree_next_sibling(x, c)) {
		const struct toptable_row *r = fuzz_row(&tt, fuzz_name_in(p, x, c));
		if (!r)
			abort();
		fuzz_same_count(p, r->self, x, total_of(x, c));
		kids++;
	}
	for (size_t k = 0; k < tt.n; k++)
		rows += tt.rows[k].self.u != 0;
	if (kids != rows)
		abort();
	toptable_free(&tt);
	/* Reversing twice gives back the stacks with samples. */
	if (!p->chart) {
		struct tree rr;
		transform_reverse(x, order, &rr);
		fuzz_check_counts(&rr);
		fuzz_same_folded(&rr, p);
		tree_free(&rr);
	}
}

/* focus or callers of name id (in p): one frame f under the root holding
 * f's total with recursion counted once (the top table's total). */
static void check_focus(const struct tree *p, const struct tree *x, int64_t id, bool callers,
                        enum tree_order order)
{
	struct toptable tt;
	toptable_compute(&tt, p, TREE_ROOT, TOPTABLE_NAME);
	const struct toptable_row *r = fuzz_row(&tt, id);
	tree_count want = r ? r->total : (tree_count){ 0 };
	fuzz_same_count(x, total_of(x, TREE_ROOT), p, want);
	if (tree_node(x, TREE_ROOT)->self.u != 0)
		abort();
	tree_idx f = tree_first_child(x, TREE_ROOT);
	if (r) {
		if (f == TREE_NONE || tree_next_sibling(x, f) != TREE_NONE ||
		    tree_name_len(x, f) != strtab_len(&p->names, (strtab_id)id) ||
		    memcmp(tree_name(x, f), strtab_str(&p->names, (strtab_id)id), tree_name_len(x, f)) ||
		    total_of(x, f).u != total_of(x, TREE_ROOT).u)
			abort();
	}
	if (!callers && r) {
		/* f's own samples all come along; focusing again changes nothing. */
		struct toptable tx;
		toptable_compute(&tx, x, TREE_ROOT, TOPTABLE_NAME);
		const struct toptable_row *rx = fuzz_row(&tx, fuzz_name_in(x, x, f));
		if (!rx || rx->total.u != total_of(x, TREE_ROOT).u)
			abort();
		fuzz_same_count(x, rx->self, p, r->self);
		toptable_free(&tx);
		struct tree ff;
		transform_focus(x, tree_node(x, f)->name, order, &ff);
		fuzz_check_counts(&ff);
		fuzz_same_folded(&ff, x);
		tree_free(&ff);
	}
	toptable_free(&tt);
}

/* Applying tr again to its own result x changes nothing (hide, merge
 * recursion); compared as folded text outside a flame chart, where the
 * rebuilt tree's numbering may differ. */
static void check_idempotent(const struct tree *x, const struct transform *tr,
                             enum tree_order order)
{
	struct tree y;
	char err[256];
	if (!transform_apply(x, tr, order, &y, err, sizeof err))
		abort();
	fuzz_check_counts(&y);
	if (!x->chart)
		fuzz_same_folded(&y, x);
	else if (tree_size(&y) != tree_size(x))
		abort();
	same_total(x, &y);
	tree_free(&y);
}

static void check_hide(const struct tree *p, const struct tree *x, const struct transform *tr,
                       const char *name, size_t len, bool literal, enum tree_order order)
{
	same_total(p, x);
	if (x->chart != p->chart || tree_size(x) > tree_size(p))
		abort();
	/* Root keeps its samples and gets those of hidden first frames. */
	if (fuzz_cmp_count(x, tree_node(x, TREE_ROOT)->self, p, tree_node(p, TREE_ROOT)->self) == -1)
		abort();
	for (tree_idx i = 1; i < tree_size(x); i++) {
		if (fuzz_name_in(p, x, i) < 0)
			abort();    /* hide makes up no name */
		/* A name matched by the pattern is gone ("all" is never hidden:
		 * it is the root's name). */
		if (literal && fuzz_plain_name(name, len) && tree_name_len(x, i) == len &&
		    memcmp(tree_name(x, i), name, len) == 0 && strcmp(name, "all") != 0)
			abort();
		if (strcmp(tr->arg, "^") == 0 && fuzz_plain_name(tree_name(x, i), tree_name_len(x, i)) &&
		    strcmp(tree_name(x, i), "all") != 0)
			abort();
	}
	check_idempotent(x, tr, order);
}

static void check_merge_recursion(const struct tree *p, const struct tree *x,
                                  const struct transform *tr, enum tree_order order)
{
	same_total(p, x);
	if (x->chart != p->chart || tree_size(x) > tree_size(p))
		abort();
	for (tree_idx i = 1; i < tree_size(x); i++) {
		tree_idx q = tree_parent(x, i);
		if (q != TREE_ROOT && tree_node(x, q)->name == tree_node(x, i)->name)
			abort();
	}
	check_idempotent(x, tr, order);
}

/* drop of node j of p (j found from the path): its subtree's samples go. */
static void check_drop(const struct tree *p, const struct tree *x, tree_idx j,
                       const struct transform *tr)
{
	if (x->chart != p->chart)
		abort();
	if (fuzz_comparable(p, x) && !p->saturated) {
		unsigned d = p->decimals > x->decimals ? p->decimals : x->decimals;
		if (fuzz_scaled(x, total_of(x, TREE_ROOT), d) + fuzz_scaled(p, total_of(p, j), d) !=
		    fuzz_scaled(p, total_of(p, TREE_ROOT), d))
			abort();
	} else if (fuzz_cmp_count(x, total_of(x, TREE_ROOT), p, total_of(p, TREE_ROOT)) == 1) {
		abort();
	}
	if (!p->chart) {
		/* Exactly the subtree goes; its path is not there any more. */
		if (tree_size(x) != tree_size(p) - (tree_end(p, j) - j))
			abort();
		if (transform_find_path(x, tr->arg, tr->arglen) != TREE_NONE)
			abort();
	}
}

static void check_label(const struct transform *tr, unsigned size)
{
	char buf[72];
	size = 1 + size % 64;
	memset(buf, 'Z', sizeof buf);
	size_t n = transform_label(tr, buf, size);
	if (n >= size || buf[n] != '\0' || buf[size] != 'Z')
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_head hd;
	if (!fuzz_head_read(&hd, data, size, MAX_OPS))
		return 0;
	unsigned flags = hd.flags;
	struct fuzz_ctl ctl = hd.ctl;
	enum tree_order order = hd.order;
	struct tree base;
	fuzz_build(&base, NULL, hd.text, hd.len, (flags & 4) != 0, order, (flags >> 3) & 7);
	fuzz_check_counts(&base);

	struct transform_stack st;
	transform_stack_init(&st, &base, NULL, order);
	uint64_t hashes[MAX_OPS + 1];
	hashes[0] = fuzz_tree_hash(&base);
	for (size_t op = 0; op < hd.nops; op++) {
		unsigned kind = fuzz_byte(&ctl), a = fuzz_byte(&ctl), b = fuzz_byte(&ctl);
		const struct tree *p = transform_stack_tree(&st);
		tree_idx n = (tree_idx)tree_size(p);
		tree_idx node = (tree_idx)((a << 8 | b) % n);
		if (kind % 8 == 6) {
			size_t was = st.n;
			bool popped = transform_stack_pop(&st);
			if (popped != (was > 0))
				abort();
			if (popped && fuzz_tree_hash(transform_stack_tree(&st)) != hashes[st.n])
				abort();
			continue;
		}
		struct transform tr;
		char pat[256];
		bool literal = false;
		unsigned how;
		tree_idx drop = TREE_NONE;
		int64_t id = -1;
		switch (kind % 8) {
		case 0:
			tr = transform_make(TRANSFORM_REVERSE, NULL, 0);
			break;
		case 1:
		case 2:
			id = fuzz_name_in(p, p, node);
			tr = transform_make(kind % 8 == 1 ? TRANSFORM_FOCUS : TRANSFORM_CALLERS,
			                    tree_name(p, node), tree_name_len(p, node));
			break;
		case 3:
		case 7:
			/* 3: from the node's name; 7: one of the fixed patterns */
			how = (kind >> 3) << 16 | a << 8 | b;
			how = kind % 8 == 7 ? how << 3 | 7 : (how & 7) == 7 ? how & ~1u : how;
			literal = fuzz_pattern(tree_name(p, node), tree_name_len(p, node), how, pat,
			                       sizeof pat);
			tr = transform_make(TRANSFORM_HIDE, pat, strlen(pat));
			break;
		case 4:
			tr = transform_make(TRANSFORM_MERGE_RECURSION, NULL, 0);
			break;
		default:    /* 5: drop a node other than the root */
			if (n < 2)
				continue;
			node = 1 + node % (n - 1);
			tr = transform_make_drop(p, node);
			drop = transform_find_path(p, tr.arg, tr.arglen);
			/* The path finds the node (outside a flame chart, where
			 * siblings have distinct names), whatever bytes the names
			 * hold. */
			if (!p->chart && drop != node)
				abort();
			break;
		}
		check_label(&tr, kind >> 3);

		struct tree x;
		char err[256] = "";
		bool ok = transform_apply(p, &tr, order, &x, err, sizeof err);
		if (!ok && (err[0] == '\0' || memchr(err, '\0', sizeof err) == NULL))
			abort();
		switch (tr.kind) {
		case TRANSFORM_REVERSE:
		case TRANSFORM_MERGE_RECURSION:
			if (!ok)
				abort();
			break;
		case TRANSFORM_FOCUS:
		case TRANSFORM_CALLERS:
			if (ok != (id > 0))     /* id 0: "all", the root's name */
				abort();
			break;
		case TRANSFORM_HIDE: {
			/* A literal slice of a plain name is a valid pattern, and
			 * the pattern check says what apply does. */
			char why[256];
			if (!ok && literal && fuzz_plain_name(tree_name(p, node), tree_name_len(p, node)))
				abort();
			if (transform_hide_valid(tr.arg, why, sizeof why) != ok)
				abort();
			break;
		}
		case TRANSFORM_DROP:
			if (ok != (drop != TREE_NONE && drop != TREE_ROOT))
				abort();
			break;
		}
		if (ok) {
			fuzz_check_counts(&x);
			switch (tr.kind) {
			case TRANSFORM_REVERSE:
				check_reverse(p, &x, order);
				break;
			case TRANSFORM_FOCUS:
			case TRANSFORM_CALLERS:
				check_focus(p, &x, id, tr.kind == TRANSFORM_CALLERS, order);
				break;
			case TRANSFORM_HIDE:
				check_hide(p, &x, &tr, tree_name(p, node), tree_name_len(p, node), literal,
				           order);
				break;
			case TRANSFORM_MERGE_RECURSION:
				check_merge_recursion(p, &x, &tr, order);
				break;
			case TRANSFORM_DROP:
				check_drop(p, &x, drop, &tr);
				break;
			}
		}
		/* The stack computes the same tree (and takes tr's argument). */
		uint64_t hx = ok ? fuzz_tree_hash(&x) : 0;
		if (ok)
			tree_free(&x);
		size_t was = st.n;
		bool pushed = transform_stack_push(&st, &tr, err, sizeof err);
		if (pushed != ok || st.n != was + ok || tr.arg != NULL)
			abort();
		if (pushed) {
			hashes[st.n] = fuzz_tree_hash(transform_stack_tree(&st));
			if (hashes[st.n] != hx)
				abort();
		}
	}
	fuzz_use_finalized(transform_stack_tree(&st), flags >> 2);
	transform_stack_free(&st);
	tree_free(&base);
	return 0;
}
