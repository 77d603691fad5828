/* libFuzzer harness: the differential flame graph (diff.h) and the
 * transform stack carrying a BEFORE tree beside AFTER (--diff).
 *
 * Input: byte 0 = flags (order, --normalize, --negate, where the folded
 * text is cut in two blocks), byte 1 = number of operations (0-8), three
 * bytes per operation (as fuzz_transform: kind, two argument bytes), then
 * the profiles: BEFORE and AFTER folded texts parted by a line "====", or
 * without that line one difffolded text ("stack BEFORE AFTER" lines).
 *
 * diff_compute is checked against a mapping of AFTER's nodes to BEFORE's
 * made here by a plain walk (same path of names), and its colours and
 * descriptions against diff.h; after each transform both trees keep their
 * invariants, and the stack's BEFORE tree is the transform applied to the
 * previous one (or that one unchanged when it does not apply). */
#include "config.h"
#include <math.h>
#include <string.h>
#include "common.h"
#include "diff.h"
#include "model.h"
#include "svg.h"
#include "transform.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_OPS 8

/* Checks d = diff of a (AFTER) against b (BEFORE). */
static void check_diff(const struct diff *d, const struct tree *a, const struct tree *b,
                       bool normalize, bool negate)
{
	size_t n = tree_size(a);
	double ta = tree_total_d(a, TREE_ROOT), tb = tree_total_d(b, TREE_ROOT);
	double scale = normalize && tb > 0 && ta != tb ? ta / tb : 1.0;
	if (!fuzz_near(d->scale, scale) || d->negate != negate)
		abort();
	/* The BEFORE totals of the whole graph are BEFORE's (scaled). */
	if (scale == 1.0 ? d->before_total[0] != tb || d->before_self[0] != tree_self_d(b, TREE_ROOT)
	                 : !fuzz_near(d->before_total[0], ta))
		abort();
	tree_idx *map = malloc(n * sizeof *map);
	if (!map)
		abort();
	double maxd = 0;
	for (tree_idx i = 0; i < n; i++) {
		if (i == TREE_ROOT) {
			map[i] = TREE_ROOT;
		} else {
			tree_idx p = map[tree_parent(a, i)];
			map[i] = p == TREE_NONE ? TREE_NONE
			                        : fuzz_child_named(b, p, tree_name(a, i), tree_name_len(a, i));
		}
		double bs = 0, bt = 0;
		if (map[i] != TREE_NONE) {
			bs = tree_self_d(b, map[i]) * scale;
			bt = tree_total_d(b, map[i]) * scale;
		}
		if (!fuzz_near(d->before_self[i], bs) || !fuzz_near(d->before_total[i], bt))
			abort();
		double sd = diff_self_delta(d, a, i), td = diff_total_delta(d, a, i);
		if (sd != tree_self_d(a, i) - d->before_self[i] ||
		    td != tree_total_d(a, i) - d->before_total[i])
			abort();
		maxd = fabs(sd) > maxd ? fabs(sd) : maxd;
	}
	if (d->max_delta != maxd)
		abort();
	/* BEFORE's part of a node holds at least the parts of its children
	 * seen in AFTER (the rest went to frames AFTER does not have); not
	 * when BEFORE's sums saturated. */
	for (tree_idx i = 0; i < n && !b->saturated; i++) {
		double sum = d->before_self[i], mag = fabs(sum);
		for (tree_idx c = tree_first_child(a, i); c != TREE_NONE; c = tree_next_sibling(a, c)) {
			sum += d->before_total[c];
			mag += fabs(d->before_total[c]);
		}
		if (sum > d->before_total[i] + 1e-9 * (mag + fabs(d->before_total[i])) + 1e-12)
			abort();
	}
	/* Colours and descriptions, on a few nodes. */
	for (tree_idx i = 0; i < n && i < 64; i++) {
		double delta = diff_self_delta(d, a, i) * (negate ? -1 : 1);
		struct palette_rgb c = diff_color(d, a, i);
		if (d->max_delta <= 0 || delta == 0) {
			if (c.r != 230 || c.g != 230 || c.b != 230)
				abort();
		} else if (delta > 0) {
			if (c.r != 255 || c.g != c.b || c.g < 40 || c.g > 215)
				abort();
		} else if (c.b != 255 || c.r != c.g || c.r < 40 || c.r > 215) {
			abort();
		}
		char buf[256];
		int len = diff_describe(d, a, i, buf, sizeof buf);
		if (len <= 0 || (size_t)len >= sizeof buf || strlen(buf) != (size_t)len ||
		    strncmp(buf, "before ", 7) != 0 || !strstr(buf, "  after ") ||
		    !strstr(buf, "  delta ") || strstr(buf, "nan") || strstr(buf, "inf"))
			abort();
		const char *tail = d->before_total[i] > 0 ? "%)"
		                   : tree_total_d(a, i) > 0 ? "(new)" : "(-)";
		if (strcmp(buf + len - strlen(tail), tail) != 0)
			abort();
		char small[8];
		if (diff_describe(d, a, i, small, sizeof small) != len || strlen(small) != 7)
			abort();
	}
	free(map);
}

static void diff_and_check(const struct tree *a, const struct tree *b, bool normalize, bool negate)
{
	struct diff d;
	diff_compute(&d, a, b, normalize, negate);
	check_diff(&d, a, b, normalize, negate);
	diff_free(&d);
}

/* Every node of a has the node of the same path in b, and b no more. */
static void same_shape(const struct tree *a, const struct tree *b)
{
	size_t n = tree_size(a);
	if (n != tree_size(b))
		abort();
	tree_idx *map = malloc(n * sizeof *map);
	if (!map)
		abort();
	map[0] = TREE_ROOT;
	for (tree_idx i = 1; i < n; i++) {     /* parents come first */
		map[i] = fuzz_child_named(b, map[tree_parent(a, i)], tree_name(a, i), tree_name_len(a, i));
		if (map[i] == TREE_NONE)
			abort();
	}
	free(map);
}

/* Where "====\n" starts a line of s[0..len), or len. */
static size_t find_split(const char *s, size_t len, size_t *next)
{
	for (size_t i = 0; i + 5 <= len; i++) {
		if ((i == 0 || s[i - 1] == '\n') && memcmp(s + i, "====\n", 5) == 0) {
			*next = i + 5;
			return i;
		}
		const char *nl = memchr(s + i, '\n', len - i);
		if (!nl)
			break;
		i = (size_t)(nl - s);
	}
	*next = len;
	return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_head hd;
	if (!fuzz_head_read(&hd, data, size, MAX_OPS))
		return 0;
	unsigned flags = hd.flags;
	struct fuzz_ctl ctl = hd.ctl;
	enum tree_order order = hd.order;
	bool normalize = flags & 4, negate = flags & 8;
	unsigned k = (flags >> 4) & 7;
	const char *s = hd.text;
	size_t len = hd.len, next;
	size_t cut = find_split(s, len, &next);

	struct tree after, before;
	if (cut < len) {
		fuzz_build(&before, NULL, s, cut, false, order, k);
		fuzz_build(&after, NULL, s + next, len - next, false, order, k);
	} else {
		/* difffolded: both trees get every stack, so they have the
		 * same nodes (a line with one count adds 0 to BEFORE). */
		fuzz_build(&after, &before, s, len, false, order, k);
		same_shape(&after, &before);
	}
	fuzz_check_counts(&after);
	fuzz_check_counts(&before);
	/* A profile against itself: nothing changed anywhere. */
	{
		struct diff d;
		diff_compute(&d, &after, &after, normalize, negate);
		if (d.max_delta != 0 || d.scale != 1.0)
			abort();
		for (tree_idx i = 0; i < tree_size(&after); i++)
			if (d.before_self[i] != tree_self_d(&after, i) ||
			    d.before_total[i] != tree_total_d(&after, i))
				abort();
		diff_free(&d);
	}
	diff_and_check(&after, &before, normalize, negate);

	struct transform_stack st;
	transform_stack_init(&st, &after, &before, order);
	uint64_t hashes[MAX_OPS + 1][2];
	hashes[0][0] = fuzz_tree_hash(&after);
	hashes[0][1] = fuzz_tree_hash(&before);
	for (size_t op = 0; op < hd.nops; op++) {
		unsigned kind = fuzz_byte(&ctl), a = fuzz_byte(&ctl), b = fuzz_byte(&ctl);
		const struct tree *p = transform_stack_tree(&st), *p2 = transform_stack_tree2(&st);
		if (!p2)
			abort();
		tree_idx n = (tree_idx)tree_size(p);
		tree_idx node = (tree_idx)((a << 8 | b) % n);
		if (kind % 8 == 6) {
			bool popped = transform_stack_pop(&st);
			if (popped && (fuzz_tree_hash(transform_stack_tree(&st)) != hashes[st.n][0] ||
			               fuzz_tree_hash(transform_stack_tree2(&st)) != hashes[st.n][1]))
				abort();
			continue;
		}
		struct transform tr;
		char pat[256];
		unsigned how = (kind >> 3) << 16 | a << 8 | b;
		switch (kind % 8) {
		case 0:
			tr = transform_make(TRANSFORM_REVERSE, NULL, 0);
			break;
		case 1:
		case 2:
			tr = transform_make(kind % 8 == 1 ? TRANSFORM_FOCUS : TRANSFORM_CALLERS,
			                    tree_name(p, node), tree_name_len(p, node));
			break;
		case 3:
		case 7:
			how = kind % 8 == 7 ? how << 3 | 7 : (how & 7) == 7 ? how & ~1u : how;
			fuzz_pattern(tree_name(p, node), tree_name_len(p, node), how, pat, sizeof pat);
			tr = transform_make(TRANSFORM_HIDE, pat, strlen(pat));
			break;
		case 4:
			tr = transform_make(TRANSFORM_MERGE_RECURSION, NULL, 0);
			break;
		default:
			if (n < 2)
				continue;
			tr = transform_make_drop(p, 1 + node % (n - 1));
			break;
		}
		/* What the stack must make of BEFORE: the transform applied to
		 * it, or BEFORE unchanged when it does not apply there. */
		struct tree x2;
		char err[256];
		bool ok2 = transform_apply(p2, &tr, order, &x2, err, sizeof err);
		uint64_t want2 = 0;
		double total2 = tree_total_d(p2, TREE_ROOT);
		size_t size2 = tree_size(p2);
		if (ok2) {
			fuzz_check_counts(&x2);
			want2 = fuzz_tree_hash(&x2);
			tree_free(&x2);
		}
		if (!transform_stack_push(&st, &tr, err, sizeof err))
			continue;
		const struct tree *c = transform_stack_tree(&st), *c2 = transform_stack_tree2(&st);
		fuzz_check_counts(c);
		fuzz_check_counts(c2);
		if (ok2 ? fuzz_tree_hash(c2) != want2
		        : tree_size(c2) != size2 || !fuzz_near(tree_total_d(c2, TREE_ROOT), total2))
			abort();
		hashes[st.n][0] = fuzz_tree_hash(c);
		hashes[st.n][1] = fuzz_tree_hash(c2);
		diff_and_check(c, c2, normalize, negate);
	}

	/* The colours and descriptions as --svg writes them. */
	const struct tree *c = transform_stack_tree(&st), *c2 = transform_stack_tree2(&st);
	struct diff d;
	diff_compute(&d, c, c2, normalize, negate);
	struct svg_options so;
	svg_options_init(&so);
	so.width = 64 + (int)(flags & 0x80);
	so.diff = &d;
	if (svg_write(c, &so, fuzz_null()) != 0)
		abort();
	diff_free(&d);
	transform_stack_free(&st);
	tree_free(&after);
	tree_free(&before);
	return 0;
}
