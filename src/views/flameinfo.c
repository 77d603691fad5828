/* flameinfo: the lines around the flame graph: the breadcrumb and the
 * levels off screen on top, the legend, the details pane and the status
 * line (the selection, or the search) at the bottom. Each costs the screen
 * width, but the distinct callers of the details (a scan per function). */
#include "config.h"
#include "flameview.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "search.h"
#include "text.h"
#include "xalloc.h"

/* "all › main › parse", cut from the left ("..") to the screen width. The
 * walk up from the zoom root stops as soon as the line is full. */
void flameinfo_breadcrumb(struct ui *u, struct flameview *f, int reserve)
{
	const char *sep = text_is_utf8() ? " \u203a " : " > ";
	const int sepw = 3, dotsw = 2;
	int avail = u->cols - reserve, total = 0;
	size_t n = 0;
	bool cut = false;
	int x = paint_transforms(u);
	avail -= x;
	for (tree_idx i = f->pane.lp.zoom; i != TREE_NONE; i = tree_parent(u->t, i)) {
		int add = paint_name_width(u, i) + (n ? sepw : 0);
		if (n == f->ncrumbs || (n > 0 && total + add > avail)) {
			cut = true;
			break;
		}
		f->crumbs[n++] = i;
		total += add;
	}
	if (cut)
		while (n > 1 && total + dotsw + sepw > avail) {
			total -= paint_name_width(u, f->crumbs[n - 1]) + sepw;
			n--;
		}
	int x0 = x;
	avail += x0;
	move(0, x);
	if (cut && avail - x0 >= dotsw + sepw + 1) {
		addstr("..");
		addstr(sep);
		x += dotsw + sepw;
	}
	for (size_t k = n; k-- > 0 && x < avail;) {
		size_t len;
		const char *name = paint_name(u, f->crumbs[k], &len);
		if (k == 0)
			attron(A_BOLD);
		int w = k == 0 ? text_fit_middle(name, len, avail - x, u->buf, u->bufsize)
		               : text_fit(name, len, avail - x, u->buf, u->bufsize);
		mvaddstr(0, x, u->buf);
		x += w;
		attroff(A_BOLD);
		if (k > 0 && x + sepw <= avail) {
			addstr(sep);
			x += sepw;
		}
	}
}

void flameview_draw_breadcrumb(struct ui *u)
{
	flameinfo_breadcrumb(u, fv_of(u), 0);
}

/* Levels off screen, at the right of row 0: "▲ 73 more levels" towards
 * the leaves (up in a flame graph), "▼ 2 more levels" towards the root.
 * Returns the columns to leave free for it (0: nothing to say, or no room). */
int flameinfo_levels_mark(const struct ui *u, const struct flameview *f, char *out, size_t size)
{
	uint32_t deeper = f->laid.lay.deeper, below = f->pane.lp.scroll;
	bool flame = f->pane.lp.orient == LAYOUT_FLAME;
	const char *up = text_is_utf8() ? "\u25b2" : "^", *down = text_is_utf8() ? "\u25bc" : "v";
	int len = 0;
	out[0] = '\0';
	if (deeper)
		len += snprintf(out, size, "%s %u%s more level%s", flame ? up : down, deeper,
		                deeper >= LAYOUT_LOOKAHEAD ? "+" : "", deeper == 1 ? "" : "s");
	if (below && len >= 0 && (size_t)len < size)
		snprintf(out + len, size - (size_t)len, "%s%s %u more level%s", len ? "  " : "", flame ? down : up,
		         below, below == 1 ? "" : "s");
	int w = text_width(out, strlen(out));
	return w && w + 2 <= u->cols / 3 ? w + 2 : 0;
}

/* Distinct functions that call the selected frame's function anywhere in
 * the tree (root frames have no caller): one scan of the tree per function,
 * then cached. */
static size_t distinct_callers(struct ui *u, struct flameview *f, tree_idx sel)
{
	strtab_id name = tree_node(u->t, sel)->name;
	if (f->callers_gen == u->tree_gen && f->callers_of == name)
		return f->callers;
	size_t bytes = strtab_count(&u->t->names) / 8 + 1;
	if (f->nseen < bytes) {
		free(f->seen);
		f->seen = xcalloc(bytes, 1);
		f->nseen = bytes;
	} else
		memset(f->seen, 0, bytes);
	size_t n = 0;
	for (tree_idx i = 1; i < tree_size(u->t); i++) {
		tree_idx p = tree_parent(u->t, i);
		if (tree_node(u->t, i)->name != name || p == TREE_ROOT)
			continue;
		strtab_id c = tree_node(u->t, p)->name;
		if (!(f->seen[c >> 3] & (1u << (c & 7)))) {
			f->seen[c >> 3] |= (uint8_t)(1u << (c & 7));
			n++;
		}
	}
	f->callers_of = name;
	f->callers_gen = u->tree_gen;
	f->callers = n;
	return n;
}

/* "object /usr/lib/libc.so.6" (sanitized) for the frame named
 * name[0..len) when the input said it (perf); false when not. */
static bool object_text(const struct ui *u, const char *name, size_t len, char *out, size_t size)
{
	if (!u->dsos || !u->dso_names)
		return false;
	int64_t id = strtab_find(u->dso_names, name, len);
	if (id < 0)
		return false;
	size_t plen;
	bool known;
	const char *path = dsomap_get(u->dsos, (strtab_id)id, &plen, &known);
	if (!known)
		return false;
	if (!path) {
		snprintf(out, size, "object: several (the name is in more than one)");
		return true;
	}
	char safe[400];
	text_sanitize(path, plen, safe, sizeof safe);
	snprintf(out, size, "object %s", safe);
	return true;
}

/* " in 1,234 samples" */
static void samples_text(uint64_t n, char *out, size_t size)
{
	char digits[32], grouped[48];
	snprintf(digits, sizeof digits, "%" PRIu64, n);
	unit_group(digits, grouped, sizeof grouped);
	snprintf(out, size, " in %s sample%s", grouped, n == 1 ? "" : "s");
}

/* d: the selected frame's whole name, wrapped (the last row ends with ".."
 * if even that is not enough), then its numbers. */
void flameinfo_details(struct ui *u, struct flameview *f, int y0, int rows)
{
	const struct tree *t = u->t;
	tree_idx sel = f->pane.sel, z = f->pane.lp.zoom;
	const char *s = tree_name(t, sel);
	size_t len = tree_name_len(t, sel);
	/* perf input: the object it is in takes the last name row */
	char obj[512];
	bool has_obj = sel != TREE_ROOT && object_text(u, s, len, obj, sizeof obj);
	int namerows = rows - 2 - (has_obj ? 1 : 0);
	attron(A_BOLD);
	for (int r = 0; r < namerows && len > 0; r++) {
		size_t used = len;
		if (r == namerows - 1)
			text_fit(s, len, u->cols, u->buf, u->bufsize);
		else
			text_fit_head(s, len, u->cols, u->buf, u->bufsize, &used);
		if (used == 0)
			break;
		mvaddstr(y0 + r, 0, u->buf);
		s += used;
		len -= used;
	}
	attroff(A_BOLD);
	if (has_obj) {
		text_fit_middle(obj, strlen(obj), u->cols, u->buf, u->bufsize);
		mvaddstr(y0 + rows - 3, 0, u->buf);
	}
	const char *sep = paint_sep();
	char tot[96], self[96], pall[32], pview[32], ppar[32], pself[32], line[512];
	double total = tree_total_d(t, sel);
	paint_count(u, t, tree_node(t, sel)->total, tot, sizeof tot);
	paint_count(u, t, tree_node(t, sel)->self, self, sizeof self);
	paint_percent(total, tree_total_d(t, TREE_ROOT), pall, sizeof pall);
	paint_percent(total, tree_total_d(t, z), pview, sizeof pview);
	paint_percent(total, sel == TREE_ROOT ? 0 : tree_total_d(t, tree_parent(t, sel)), ppar, sizeof ppar);
	paint_percent(tree_self_d(t, sel), tree_total_d(t, TREE_ROOT), pself, sizeof pself);
	/* perf's weights are periods: the samples behind them beside */
	char ntot[64] = "", nself[64] = "";
	uint64_t stot, sself;
	if (samples_of(u, sel, &stot, &sself)) {
		samples_text(stot, ntot, sizeof ntot);
		samples_text(sself, nself, sizeof nself);
	}
	snprintf(line, sizeof line, "total %s%s%s%s of all%s%s of view%s%s of parent", tot, ntot, sep, pall, sep,
	         pview, sep, ppar);
	paint_text(u, y0 + rows - 2, 0, line);
	int n = snprintf(line, sizeof line, "self %s%s (%s of all)%sdepth %u", self, nself, pself, sep,
	                 tree_depth(t, sel));
	if (sel != TREE_ROOT && n > 0 && (size_t)n < sizeof line) {
		size_t c = distinct_callers(u, f, sel);
		if (c)
			snprintf(line + n, sizeof line - (size_t)n, "%s%zu distinct caller%s of the function", sep, c,
			         c == 1 ? "" : "s");
		else
			snprintf(line + n, sizeof line - (size_t)n, "%sa root: no caller", sep);
	}
	paint_text(u, y0 + rows - 1, 0, line);
}

/* Selected frame: name, samples, % of all, % of the zoomed view; the input's
 * name and a help hint on the right when there is room. */
static void draw_status(struct ui *u, struct flameview *f)
{
	int y = u->lines - 1, avail = u->cols - 1;
	const struct tree *t = u->t;
	tree_idx sel = f->pane.sel;
	char pct_all[32], pct_view[32];
	char fields[4][128];
	int nf = 0;

	paint_amount(u, t, sel, fields[nf++], sizeof fields[0]);
	uint64_t stot, sself;
	if (samples_of_cheap(u, sel, &stot, &sself)) {
		char n[64];
		samples_text(stot, n, sizeof n);
		size_t l = strlen(fields[0]);
		snprintf(fields[0] + l, sizeof fields[0] - l, "%s", n);
	}
	paint_percent(tree_total_d(t, sel), tree_total_d(t, TREE_ROOT), pct_all, sizeof pct_all);
	snprintf(fields[nf++], sizeof fields[0], "%s of all", pct_all);
	if (f->pane.lp.zoom != TREE_ROOT && !flameview_is_ancestor(u, f, sel)) {
		paint_percent(tree_total_d(t, sel), tree_total_d(t, f->pane.lp.zoom), pct_view, sizeof pct_view);
		snprintf(fields[nf++], sizeof fields[0], "%s of view", pct_view);
	}
	if (u->diffmode)
		diff_describe(&u->diff, t, sel, fields[nf++], sizeof fields[0]);

	const char *sep = paint_sep();
	const int sepw = 5;
	/* The code type that the hidden annotation gave: " [kernel]". */
	char tag[16] = "";
	const char *type = palette_type_name(palette_type_of(tree_name(t, sel), tree_name_len(t, sel)));
	if (type)
		snprintf(tag, sizeof tag, " [%s]", type);
	int tailw = (int)strlen(tag);
	for (int k = 0; k < nf; k++)
		tailw += sepw + (int)strlen(fields[k]);
	/* The name yields to the numbers, down to a readable minimum; then the
	 * amount takes its short form ("49.2 G samples"; the details line has
	 * it exact); then the numbers go from the right. */
	int namew = paint_name_width(u, sel), minw = namew < 16 ? namew : 16;
	if (minw + tailw > avail) {
		tailw -= (int)strlen(fields[0]);
		unit_short(u->unit, tree_total_d(t, sel), fields[0], sizeof fields[0]);
		tailw += (int)strlen(fields[0]);
	}
	while (nf > 0 && minw + tailw > avail)
		tailw -= sepw + (int)strlen(fields[--nf]);
	if (minw + tailw > avail) {
		tag[0] = '\0';
		tailw = 0;
	}
	int room = avail - tailw;
	if (namew > room)
		namew = room;

	size_t len;
	const char *name = paint_name(u, sel, &len);
	int x = text_fit_middle(name, len, namew, u->buf, u->bufsize);
	attron(A_BOLD);
	mvaddstr(y, 0, u->buf);
	attroff(A_BOLD);
	addstr(tag);
	x += (int)strlen(tag);
	for (int k = 0; k < nf; k++) {
		addstr(sep);
		addstr(fields[k]);
		x += sepw + (int)strlen(fields[k]);
	}

	/* Right side, only when it fits whole with two spaces of margin. */
	char right[256];
	char title[160] = "";
	if (u->title)
		text_sanitize(u->title, strlen(u->title), title, sizeof title);
	snprintf(right, sizeof right, "%s%s? help", title, title[0] ? "  " : "");
	int rw = text_width(right, strlen(right));
	if (x + 2 + rw <= avail) {
		attron(A_DIM);
		mvaddstr(y, avail - rw, right);
		attroff(A_DIM);
	} else if (x + 2 + 6 <= avail) {
		attron(A_DIM);
		mvaddstr(y, avail - 6, "? help");
		attroff(A_DIM);
	}
}

/* "/pattern/" as the user typed it, sanitized and cut to at most cols
 * columns (keeping both ends), into u->buf. Returns its width. */
static int fit_pattern(struct ui *u, const char *pat, int cols)
{
	char *q = xmalloc(strlen(pat) + 3);
	sprintf(q, "/%s/", pat);
	int w = text_fit_middle(q, strlen(q), cols, u->buf, u->bufsize);
	free(q);
	return w;
}

/* With a search: "/pattern/  match 3 of 17  ·  12.34% of samples (25.00%
 * of view)"; "17 matches" when the selection is not one; "(... of view)"
 * only when zoomed; "too costly on N names" when the pattern hit rx.h's
 * limits on some (taken as no match). A message follows; the selected
 * frame's name and samples go on the right when there is room. */
static void draw_search_status(struct ui *u, struct flameview *f)
{
	int y = u->lines - 1, avail = u->cols - 1;
	const char *sep = paint_sep();
	const struct search *s = finder_current(u);
	tree_idx sel = f->pane.sel, z = f->pane.lp.zoom;
	char info[192];
	if (u->find.pending)
		snprintf(info, sizeof info, "  searching %d%%", (int)(100 * search_progress(s)));
	else {
		char all[32], view[32], count[64];
		size_t n = search_count(s), k = search_ordinal(s, sel);
		if (n == 0)
			snprintf(count, sizeof count, "no match");
		else if (k)
			snprintf(count, sizeof count, "match %zu of %zu", k, n);
		else
			snprintf(count, sizeof count, "%zu match%s", n, n == 1 ? "" : "es");
		paint_percent(tree_count_d(u->t, search_total(s, TREE_ROOT)), tree_total_d(u->t, TREE_ROOT),
		              all, sizeof all);
		int len = snprintf(info, sizeof info, "  %s%s%s of samples", count, sep, all);
		if (z != TREE_ROOT) {
			paint_percent(tree_count_d(u->t, search_total(s, z)), tree_total_d(u->t, z), view, sizeof view);
			len += snprintf(info + len, sizeof info - (size_t)len, " (%s of view)", view);
		}
		size_t costly = search_costly(s);
		if (costly && len > 0 && (size_t)len < sizeof info)
			snprintf(info + len, sizeof info - (size_t)len, "%stoo costly on %zu name%s", sep, costly,
			         costly == 1 ? "" : "s");
	}
	int infow = text_width(info, strlen(info));
	/* The pattern yields to the numbers down to a third of the line. */
	int patw = avail - infow < avail / 3 ? avail / 3 : avail - infow;
	int x = fit_pattern(u, search_pattern(s), patw);
	attron(A_BOLD);
	mvaddstr(y, 0, u->buf);
	attroff(A_BOLD);
	paint_text(u, y, x, info);
	x += infow;
	if (u->notice[0] && x < avail) {
		attron(A_BOLD);
		paint_text(u, y, x, sep);
		paint_text(u, y, x + 5, u->notice);
		attroff(A_BOLD);
		return;
	}
	/* Right: "name  ·  N samples" of the selection, when it fits. */
	char amount[96], right[128];
	paint_amount(u, u->t, sel, amount, sizeof amount);
	snprintf(right, sizeof right, "%s%s", sep, amount);
	int rw = text_width(right, strlen(right));
	int namew = paint_name_width(u, sel), room = avail - x - 2 - rw;
	if (room < 4 || (namew > room && room < 16))
		return;
	size_t len;
	const char *name = paint_name(u, sel, &len);
	int nw = text_fit_middle(name, len, namew < room ? namew : room, u->buf, u->bufsize);
	attron(A_DIM);
	mvaddstr(y, avail - rw - nw, u->buf);
	addstr(right);
	attroff(A_DIM);
}

/* `L`: "java  ▇ Java/JIT  ▇ inlined ...  rules: ▇ REGEX ...  map: N names". */
void flameinfo_legend(struct ui *u)
{
	int y = u->lines - 2, x = 0, end = u->cols;
	const struct palette *p = u->col.pal;
	const struct palette_rules *rules = u->col.rules;
	struct palette_rgb none = { 0, 0, 0 };
	bool more = paint_piece(u, y, &x, end, p->name, A_BOLD, 0);
	for (size_t k = 0; more && k < p->nlegend; k++)
		more = paint_piece(u, y, &x, end, "  ", A_NORMAL, 0) &&
		       paint_swatch(u, y, &x, end, p->legend[k].hue, none) &&
		       paint_piece(u, y, &x, end, " ", A_NORMAL, 0) &&
		       paint_piece(u, y, &x, end, p->legend[k].label, A_NORMAL, 0);
	size_t nr = palette_rules_count(rules);
	if (more && nr)
		more = paint_piece(u, y, &x, end, "  rules:", A_BOLD, 0);
	for (size_t k = 0; more && k < nr; k++) {
		char re[64];
		const char *src = palette_rules_regex(rules, k);
		text_sanitize(src, strlen(src), re, sizeof re);
		struct palette_spec sp = palette_rules_spec(rules, k);
		more = paint_piece(u, y, &x, end, " ", A_NORMAL, 0) &&
		       paint_swatch(u, y, &x, end, sp.hue, sp.rgb) &&
		       paint_piece(u, y, &x, end, " ", A_NORMAL, 0) &&
		       paint_piece(u, y, &x, end, re, A_NORMAL, 0);
	}
	size_t nm = palette_rules_map_count(rules);
	if (more && nm) {
		char m[64];
		snprintf(m, sizeof m, "  map: %zu name%s", nm, nm == 1 ? "" : "s");
		paint_piece(u, y, &x, end, m, A_NORMAL, 0);
	}
}


void flameinfo_status(struct ui *u, struct flameview *f)
{
	if (u->cols - 1 <= 0)
		return;
	if (finder_current(u))
		draw_search_status(u, f);
	else if (!paint_notice(u))
		draw_status(u, f);
}
