/* libFuzzer harness: the top table (toptable.h), the models of its screen
 * and of the sandwich screen (tableview.h, sandwichview.h: rows, sort,
 * filter, selection, navigation; never their curses drawing) and the batch
 * views (views.h).
 *
 * Input: byte 0 = flags (order, flame chart, where the folded text is cut
 * in two blocks), byte 1 = number of operations (0-16), three bytes per
 * operation (kind, two argument bytes), then a folded profile.
 *
 * The top table is checked against a brute-force count made here from the
 * definitions in toptable.h; the table screen's rows (walked with the
 * selection), its status line, sort and filter against that count and
 * tableview.h; the sandwich's selection moves against the trees it shows. */
#include "config.h"
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "common.h"
#include "model.h"
#include "sandwichview.h"
#include "tableview.h"
#include "toptable.h"
#include "views.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_OPS 16
#define FAR ((long)1 << 40)     /* as the browser's g and G */

/* ---- the top table, counted the slow way -------------------------------- */

struct want {
	tree_count self, total;
	uint32_t nodes, sites;
	bool seen;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The rows of t's subtree at z by toptable.h's definitions, by name id;
 * returns the number of distinct names. */
static size_t count_rows(const struct tree *t, tree_idx z, struct want *w)
{
	size_t nn = strtab_count(&t->names), rows = 0, nk = 0;
	memset(w, 0, nn * sizeof *w);
	tree_idx end = tree_end(t, z);
	uint64_t *keys = malloc((end - z + 1) * sizeof *keys);
	if (!keys)
		abort();
	for (tree_idx i = z; i < end; i++) {
		if (i == TREE_ROOT)
			continue;
		const struct tree_node *nd = tree_node(t, i);
		struct want *r = &w[nd->name];
		if (!r->seen) {
			r->seen = true;
			rows++;
		}
		r->nodes++;
		/* outermost: no ancestor of the same name inside the subtree
		 * (the root "all" is not a function) */
		bool outer = true;
		for (tree_idx j = tree_parent(t, i); j != TREE_NONE && j != TREE_ROOT && j >= z;
		     j = tree_parent(t, j))
			if (tree_node(t, j)->name == nd->name)
				outer = false;
		r->self.u = fuzz_sat_add(r->self.u, nd->self.u);
		if (outer)
			r->total.u = fuzz_sat_add(r->total.u, nd->total.u);
		keys[nk++] = (uint64_t)nd->name << 32 | tree_node(t, tree_parent(t, i))->name;
	}
	/* sites: distinct (name, caller name) pairs */
	qsort(keys, nk, sizeof *keys, cmp_u64);
	for (size_t k = 0; k < nk; k++)
		if (k == 0 || keys[k] != keys[k - 1])
			w[keys[k] >> 32].sites++;
	free(keys);
	return rows;
}

static int cmp_count(const struct tree *t, tree_count a, tree_count b)
{
	(void)t;    /* counts are in the tree's units */
	return a.u < b.u ? -1 : a.u > b.u;
}

static int cmp_names(const struct tree *t, strtab_id a, strtab_id b)
{
	size_t la = strtab_len(&t->names, a), lb = strtab_len(&t->names, b);
	int c = memcmp(strtab_str(&t->names, a), strtab_str(&t->names, b), la < lb ? la : lb);
	return c ? c : (la > lb) - (la < lb);
}

/* Order of rows by key (toptable.h): < 0 when a comes first. */
static int row_order(const struct tree *t, const struct want *w, strtab_id a, strtab_id b,
                     enum toptable_key key)
{
	int c = 0;
	if (key == TOPTABLE_SELF) {
		c = -cmp_count(t, w[a].self, w[b].self);
		c = c ? c : -cmp_count(t, w[a].total, w[b].total);
	} else if (key == TOPTABLE_TOTAL) {
		c = -cmp_count(t, w[a].total, w[b].total);
		c = c ? c : -cmp_count(t, w[a].self, w[b].self);
	}
	return c ? c : cmp_names(t, a, b);
}

static void check_toptable(const struct tree *t, tree_idx z, enum toptable_key key,
                           unsigned limit, struct want *w)
{
	size_t rows = count_rows(t, z, w);
	struct toptable tt;
	toptable_compute(&tt, t, z, key);
	if (tt.t != t || tt.zoom != z || tt.n != rows ||
	    tt.all.u != tree_node(t, z)->total.u)
		abort();
	for (int pass = 0; pass < 2; pass++) {
		for (size_t k = 0; k < tt.n; k++) {
			const struct toptable_row *r = &tt.rows[k];
			const struct want *e = &w[r->name];
			if (!e->seen || r->nodes != e->nodes || r->sites != e->sites ||
			    r->self.u != e->self.u || r->total.u != e->total.u)
				abort();
			if (r->sites < 1 || r->sites > r->nodes)
				abort();
			/* recursion counted once: no more than the zoom root */
			if (r->total.u > tt.all.u || r->self.u > r->total.u)
				abort();
			double pc = toptable_percent(&tt, r->total);
			if (!(pc >= 0 && pc <= 100 * (1 + 1e-9)))
				abort();
			if (k > 0 && row_order(t, w, tt.rows[k - 1].name, r->name, key) >= 0)
				abort();
		}
		key = (enum toptable_key)((key + 1 + limit % 2) % 3);
		toptable_sort(&tt, key);
	}
	/* The text form: a header and one line per row shown, no control
	 * bytes (names are sanitized). */
	char *buf = NULL;
	size_t len = 0, lines = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f || toptable_write(&tt, limit % 4, f) != 0 || fclose(f) != 0)
		abort();
	for (size_t k = 0; k < len; k++) {
		unsigned char c = (unsigned char)buf[k];
		lines += c == '\n';
		if ((c < 0x20 && c != '\n') || c == 0x7f)
			abort();
	}
	size_t shown = limit % 4 && limit % 4 < tt.n ? limit % 4 : tt.n;
	if (lines != shown + 1)
		abort();
	free(buf);
	toptable_free(&tt);
}

/* ---- the table screen ---------------------------------------------------- */

struct table_state {
	struct tableview *tv;
	const struct tree *t;
	tree_idx zoom;
	struct want *w;
	size_t rows;                /* distinct names at zoom */
};

/* The rows shown, in order, walked with the selection (restored after);
 * returns their number (names in out, at most cap). */
static size_t shown_rows(struct tableview *tv, strtab_id *out, size_t cap)
{
	strtab_id was, cur, prev = 0;
	if (!tableview_selected(tv, &was))
		return 0;
	size_t pos = SIZE_MAX, n = 0;
	tableview_move(tv, -FAR);
	for (;; n++) {
		if (!tableview_selected(tv, &cur))
			abort();
		if (n > 0 && cur == prev)
			break;      /* the last row: a move stays there */
		if (n < cap)
			out[n] = cur;
		if (cur == was && pos == SIZE_MAX)
			pos = n;
		prev = cur;
		tableview_move(tv, 1);
	}
	if (pos == SIZE_MAX)
		abort();
	tableview_move(tv, -FAR);
	tableview_move(tv, (long)pos);
	if (!tableview_selected(tv, &cur) || cur != was)
		abort();
	return n;
}

static void check_status(const struct table_state *s, size_t nshown)
{
	char buf[512];
	size_t a, b;
	tableview_status(s->tv, buf, sizeof buf);
	if (sscanf(buf, "%zu of %zu functions", &a, &b) != 2 || a != nshown || b != s->rows)
		abort();
	for (const unsigned char *c = (const unsigned char *)buf; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			abort();
}

/* Checks the screen's rows: all are functions of the zoomed subtree, in
 * the sort key's order; returns how many (names in out). */
static size_t check_table(const struct table_state *s, strtab_id *out, size_t cap)
{
	size_t n = shown_rows(s->tv, out, cap);
	check_status(s, n);
	if (n > s->rows)
		abort();
	enum toptable_key key = tableview_sort_key(s->tv);
	for (size_t k = 0; k < n && k < cap; k++) {
		if (!s->w[out[k]].seen)
			abort();
		if (k > 0 && row_order(s->t, s->w, out[k - 1], out[k], key) >= 0)
			abort();
	}
	return n;
}

static bool same_set(const strtab_id *a, size_t na, const strtab_id *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++) {
		size_t j = 0;
		while (j < nb && b[j] != a[i])
			j++;
		if (j == nb)
			return false;
	}
	return true;
}

/* ---- the sandwich --------------------------------------------------------- */

struct sandwich_state {
	struct sandwichview *sw;
	bool loaded;
	const struct tree *pane[2];     /* the trees seen selected (callers first) */
	char name[64];
	size_t len;                     /* name bytes (at most 64 compared) */
	double total;                   /* the function's total at the root */
};

/* The selection is a node of one of the two trees, both "all" -> f. */
static void check_sandwich(struct sandwich_state *s, const struct tree **tp, tree_idx *ip)
{
	tree_idx i;
	const struct tree *t = sandwichview_selected(s->sw, &i);
	if (t != s->pane[0] && t != s->pane[1]) {
		if (s->pane[1])
			abort();
		s->pane[1] = t;
	}
	if (i >= tree_size(t))
		abort();
	tree_idx f = tree_first_child(t, TREE_ROOT);
	if (f == TREE_NONE || tree_next_sibling(t, f) != TREE_NONE ||
	    !fuzz_near(tree_total_d(t, TREE_ROOT), s->total) ||
	    !fuzz_near(tree_total_d(t, f), s->total) ||
	    memcmp(tree_name(t, f), s->name, s->len < 64 ? s->len : 64) != 0)
		abort();
	size_t len;
	const char *nm = sandwichview_name(s->sw, &len);
	if (len != s->len || memcmp(nm, s->name, len < 64 ? len : 64) != 0)
		abort();
	*tp = t;
	*ip = i;
}

static void sandwich_op(struct sandwich_state *s, unsigned a, unsigned b, unsigned c)
{
	const struct tree *t0, *t1;
	tree_idx i0, i1;
	check_sandwich(s, &t0, &i0);
	bool moved = true;
	switch (a & 7) {
	case 0:
	case 1:
		sandwichview_sideways(s->sw, a & 1 ? 1 : -1);
		check_sandwich(s, &t1, &i1);
		/* along the row: same tree, same level */
		if (t1 != t0 || tree_depth(t1, i1) != tree_depth(t0, i0))
			abort();
		break;
	case 2:
	case 3:
		sandwichview_vertical(s->sw, a & 1);
		check_sandwich(s, &t1, &i1);
		/* a parent, a child, or f in the other pane from f */
		if (t1 == t0 ? i1 != i0 && i1 != tree_parent(t0, i0) && tree_parent(t1, i1) != i0
		             : i0 != tree_first_child(t0, TREE_ROOT) || i1 != tree_first_child(t1, TREE_ROOT))
			abort();
		break;
	case 4:
	case 5:
		moved = sandwichview_click(s->sw, (int)(b % 48) - 2, (int)(c * 8 + (b >> 6)) - 2);
		check_sandwich(s, &t1, &i1);
		if (!moved && (t1 != t0 || i1 != i0))
			abort();
		break;
	default:
		sandwichview_resize(s->sw, (int)b - 3, (int)(c % 64) - 2, (int)(a >> 3) % 5);
		check_sandwich(s, &t1, &i1);
		if (t1 != t0 || i1 != i0)
			abort();
		break;
	}
}

/* ---- the batch views ------------------------------------------------------ */

static void check_batch(const struct tree *t, tree_idx node, unsigned sel, struct want *w)
{
	/* views_hottest: a node of the function with the most self samples
	 * (ties: total, then name), none when no function */
	size_t rows = count_rows(t, TREE_ROOT, w);
	tree_idx h = views_hottest(t);
	if ((h == TREE_NONE) != (rows == 0))
		abort();
	if (h != TREE_NONE) {
		strtab_id hn = tree_node(t, h)->name;
		for (size_t id = 0; id < strtab_count(&t->names); id++)
			if (w[id].seen && id != hn && row_order(t, w, (strtab_id)id, hn, TOPTABLE_SELF) < 0)
				abort();
	}
	/* --view=sandwich: 0, or 1 for a name that is no function (root). */
	char err[256] = "", *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct printer_options po = { .width = 1 + (int)(sel % 100), .min_width = 1 + (int)(sel >> 7) };
	if (!f)
		abort();
	int rc = views_print_sandwich(t, tree_name(t, node), tree_name_len(t, node), TREE_ORDER_NAME,
	                              &po, f, err, sizeof err);
	if (fclose(f) != 0 || rc != (fuzz_name_in(t, t, node) > 0 ? 0 : 1))
		abort();
	for (size_t k = 0; k < len; k++) {
		unsigned char c = (unsigned char)buf[k];
		if ((c < 0x20 && c != '\n') || c == 0x7f)
			abort();
	}
	for (const unsigned char *c = (const unsigned char *)err; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			abort();
	if (rc == 1 && err[0] == '\0')
		abort();
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_head hd;
	if (!fuzz_head_read(&hd, data, size, MAX_OPS))
		return 0;
	unsigned flags = hd.flags;
	struct fuzz_ctl ctl = hd.ctl;
	enum tree_order order = hd.order;
	struct tree t;
	fuzz_build(&t, NULL, hd.text, hd.len, (flags & 4) != 0, order, (flags >> 3) & 7);
	fuzz_check_counts(&t);
	tree_idx n = (tree_idx)tree_size(&t);
	size_t nn = strtab_count(&t.names);
	/* w: scratch; wt: the table screen's zoom (kept between operations) */
	struct want *w = calloc(nn, sizeof *w), *wt = calloc(nn, sizeof *wt);
	size_t cap = 4096;
	strtab_id *rows = malloc(cap * sizeof *rows), *rows2 = malloc(cap * sizeof *rows2);
	if (!w || !wt || !rows || !rows2)
		abort();

	struct table_state ts = { tableview_new((enum toptable_key)((flags >> 6) % 3)), &t, 0, wt, 0 };
	bool tloaded = false;
	struct sandwich_state ss = { .sw = sandwichview_new() };
	sandwichview_resize(ss.sw, 80, 20, 1);
	for (size_t op = 0; op < hd.nops; op++) {
		unsigned kind = fuzz_byte(&ctl), a = fuzz_byte(&ctl), b = fuzz_byte(&ctl);
		tree_idx node = (tree_idx)((a << 8 | b) % n);
		if (kind % 8 >= 2 && kind % 8 <= 5 && !tloaded)
			kind = 1;   /* the screen is loaded first (Tab) */
		if (kind % 8 == 7 && !ss.loaded)
			kind = 6;
		switch (kind % 8) {
		case 0:
			check_toptable(&t, node, (enum toptable_key)((kind >> 3) % 3), kind >> 5, w);
			break;
		case 1:     /* Tab at a zoom: the rows, the filter kept */
			tableview_load(ts.tv, &t, node);
			tloaded = true;
			ts.zoom = node;
			ts.rows = count_rows(&t, node, wt);
			check_table(&ts, rows, cap);
			break;
		case 2: {   /* re-sort: the same rows, the same one selected */
			strtab_id was = 0, now = 0;
			size_t n1 = check_table(&ts, rows, cap);
			bool had = tableview_selected(ts.tv, &was);
			tableview_sort(ts.tv, (enum toptable_key)(a % 3));
			if (tableview_sort_key(ts.tv) != (enum toptable_key)(a % 3))
				abort();
			size_t n2 = check_table(&ts, rows2, cap);
			if (n1 <= cap && !same_set(rows, n1, rows2, n2))
				abort();
			if (tableview_selected(ts.tv, &now) != had || (had && now != was))
				abort();
			break;
		}
		case 3: {   /* a filter (patterns as typed: at most 255 bytes) */
			char pat[256], err[256] = "";
			bool literal = fuzz_pattern(tree_name(&t, node), tree_name_len(&t, node),
			                            (kind >> 3) << 16 | a << 8 | b, pat, sizeof pat);
			size_t n1 = check_table(&ts, rows, cap);
			bool ok = tableview_filter(ts.tv, pat, err, sizeof err);
			size_t n2 = check_table(&ts, rows2, cap);
			if (!ok) {
				/* refused: a message, the rows as they were */
				if (err[0] == '\0' || (literal && fuzz_plain_name(tree_name(&t, node),
				                                                   tree_name_len(&t, node))))
					abort();
				if (n1 <= cap && !same_set(rows, n1, rows2, n2))
					abort();
			} else if (pat[0] == '\0') {     /* "" shows all */
				if (n2 != ts.rows)
					abort();
			} else if (literal && fuzz_plain_name(tree_name(&t, node), tree_name_len(&t, node)) &&
			           node != TREE_ROOT && tree_contains(&t, ts.zoom, node)) {
				/* the function it was made from is shown */
				strtab_id id = tree_node(&t, node)->name;
				size_t k = 0;
				while (k < n2 && k < cap && rows2[k] != id)
					k++;
				if (n2 <= cap && k == n2)
					abort();
			}
			break;
		}
		case 4: {   /* moves: one row, a page, to either end */
			strtab_id was = 0, now = 0;
			bool had = tableview_selected(ts.tv, &was);
			long d = (int8_t)a;
			if (b & 1)
				tableview_page(ts.tv, d < 0 ? -1 : 1);
			else
				tableview_move(ts.tv, b & 2 ? (d < 0 ? -FAR : FAR) : d);
			if (tableview_selected(ts.tv, &now) != had)
				abort();
			check_table(&ts, rows, cap);
			break;
		}
		case 5: {
			int row = (int8_t)a;
			bool hit = tableview_click(ts.tv, row);
			if (hit && (row < 0 || row >= 10))     /* 10 rows before a draw */
				abort();
			check_table(&ts, rows, cap);
			break;
		}
		case 6: {   /* s on a frame: its sandwich */
			int64_t id = fuzz_name_in(&t, &t, node);
			if (node == TREE_ROOT || id < 0)
				break;
			sandwichview_load(ss.sw, &t, (strtab_id)id, order);
			struct want wr;
			count_rows(&t, TREE_ROOT, w);
			wr = w[id];
			ss.loaded = true;
			ss.pane[0] = NULL;
			ss.pane[1] = NULL;
			ss.len = tree_name_len(&t, node);
			memcpy(ss.name, tree_name(&t, node), ss.len < 64 ? ss.len : 64);
			ss.total = tree_count_d(&t, wr.total);
			tree_idx i;
			ss.pane[0] = sandwichview_selected(ss.sw, &i);
			/* f in the callers pane is selected first */
			if (i != tree_first_child(ss.pane[0], TREE_ROOT))
				abort();
			const struct tree *t1;
			check_sandwich(&ss, &t1, &i);
			break;
		}
		default:
			sandwich_op(&ss, a, b, kind >> 3);
			break;
		}
	}
	check_batch(&t, (tree_idx)((flags * 31 + size) % n), flags, w);
	tableview_free(ts.tv);
	sandwichview_free(ss.sw);
	free(rows);
	free(rows2);
	free(w);
	free(wt);
	tree_free(&t);
	return 0;
}
