#include "config.h"
#include "tableview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(HAVE_NCURSESW_CURSES_H)
#include <ncursesw/curses.h>
#else
#include <curses.h>
#endif
#include "rx.h"
#include "text.h"
#include "unit.h"
#include "xalloc.h"

struct tableview {
	struct toptable tt;
	bool loaded;
	enum toptable_key key;
	char filter[256];           /* "" when none */
	size_t *shown;              /* indices into tt.rows passing the filter */
	size_t nshown;
	size_t sel, top;            /* positions in shown[] */
	size_t costly;              /* names the filter was too costly on */
	int height;                 /* rows area of the last draw */
	/* --diff: BEFORE's total of each function, by AFTER's name id (its
	 * counts times the diff's scale); NULL when not a diff. */
	double *before;
	size_t nbefore;
	double before_all;          /* BEFORE's total at the zoom's path */
};

struct tableview *tableview_new(enum toptable_key key)
{
	struct tableview *tv = xcalloc(1, sizeof *tv);
	tv->key = key;
	tv->height = 10;
	return tv;
}

void tableview_free(struct tableview *tv)
{
	if (!tv)
		return;
	if (tv->loaded)
		toptable_free(&tv->tt);
	free(tv->shown);
	free(tv->before);
	free(tv);
}

/* Rebuilds shown[] from the filter; the selection follows its function
 * (`follow`, or the one selected now when follow is NULL). */
static bool refilter_keep(struct tableview *tv, const char *pattern, const strtab_id *follow,
                          char *err, size_t errsize);

static bool refilter(struct tableview *tv, const char *pattern, char *err, size_t errsize)
{
	return refilter_keep(tv, pattern, NULL, err, errsize);
}

static bool refilter_keep(struct tableview *tv, const char *pattern, const strtab_id *follow,
                          char *err, size_t errsize)
{
	struct rx *re = NULL;
	if (pattern[0] != '\0') {
		char why[160];
		re = rx_new(pattern, strlen(pattern), RX_CASE_SMART, why, sizeof why);
		if (!re) {
			snprintf(err, errsize, "bad regex: %s", why);
			return false;
		}
	}
	strtab_id was = 0;
	bool had = follow ? true : tableview_selected(tv, &was);
	if (follow)
		was = *follow;
	tv->shown = xreallocarray(tv->shown, tv->tt.n ? tv->tt.n : 1, sizeof *tv->shown);
	tv->nshown = 0;
	tv->sel = tv->top = 0;
	const struct strtab *st = &tv->tt.t->names;
	for (size_t k = 0; k < tv->tt.n; k++) {
		strtab_id id = tv->tt.rows[k].name;
		if (re && !rx_matches(re, strtab_str(st, id), strtab_len(st, id)))
			continue;
		if (had && id == was)
			tv->sel = tv->nshown;
		tv->shown[tv->nshown++] = k;
	}
	snprintf(tv->filter, sizeof tv->filter, "%s", pattern);
	tv->costly = re ? rx_costly(re) : 0;
	rx_free(re);
	return true;
}

void tableview_load(struct tableview *tv, const struct tree *t, tree_idx zoom)
{
	if (tv->loaded)
		toptable_free(&tv->tt);
	toptable_compute(&tv->tt, t, zoom, tv->key);
	tv->loaded = true;
	tv->nshown = 0;     /* no selection to follow */
	char err[8], pat[256];
	snprintf(pat, sizeof pat, "%s", tv->filter);
	if (!refilter(tv, pat, err, sizeof err))
		refilter(tv, "", err, sizeof err);
	tv->sel = tv->top = 0;
}

void tableview_sort(struct tableview *tv, enum toptable_key key)
{
	strtab_id was;
	bool had = tableview_selected(tv, &was);    /* before the rows move */
	tv->key = key;
	toptable_sort(&tv->tt, key);
	char err[8];
	char pat[256];
	snprintf(pat, sizeof pat, "%s", tv->filter);
	refilter_keep(tv, pat, had ? &was : NULL, err, sizeof err);  /* compiled before */
	if (tv->sel >= tv->top + (size_t)tv->height)
		tv->top = tv->sel - (size_t)tv->height / 2;
}

enum toptable_key tableview_sort_key(const struct tableview *tv)
{
	return tv->key;
}

bool tableview_filter(struct tableview *tv, const char *pattern, char *err, size_t errsize)
{
	return refilter(tv, pattern, err, errsize);
}

void tableview_move(struct tableview *tv, long delta)
{
	if (tv->nshown == 0)
		return;
	long s = (long)tv->sel + delta;
	if (s < 0)
		s = 0;
	if (s >= (long)tv->nshown)
		s = (long)tv->nshown - 1;
	tv->sel = (size_t)s;
}

void tableview_page(struct tableview *tv, int dir)
{
	long h = tv->height > 1 ? tv->height - 1 : 1;
	tableview_move(tv, dir * h);
}

size_t tableview_costly(const struct tableview *tv)
{
	return tv->costly;
}

bool tableview_click(struct tableview *tv, int row)
{
	if (row < 0 || row >= tv->height || tv->top + (size_t)row >= tv->nshown)
		return false;
	tv->sel = tv->top + (size_t)row;
	return true;
}

bool tableview_selected(const struct tableview *tv, strtab_id *name)
{
	if (tv->nshown == 0)
		return false;
	*name = tv->tt.rows[tv->shown[tv->sel]].name;
	return true;
}

static const char *sort_name(enum toptable_key k)
{
	return k == TOPTABLE_SELF ? "self" : k == TOPTABLE_TOTAL ? "total" : "name";
}

void tableview_status(const struct tableview *tv, char *buf, size_t size)
{
	const char *sep = text_is_utf8() ? "  \u00b7  " : "  |  ";
	char filt[300] = "";
	if (tv->filter[0]) {
		char safe[260];
		text_sanitize(tv->filter, strlen(tv->filter), safe, sizeof safe);
		snprintf(filt, sizeof filt, "%s/%s", sep, safe);
	}
	snprintf(buf, size, "%zu of %zu functions%ssort: %s%s", tv->nshown, tv->tt.n, sep,
	         sort_name(tv->key), filt);
}

/* s right-aligned in a column of width display columns (s may hold "µ",
 * two bytes for one column), into out. */
static void pad_left(const char *s, int width, char *out, size_t size)
{
	int pad = width - text_width(s, strlen(s));
	snprintf(out, size, "%*s%s", pad > 0 ? pad : 0, "", s);
}

/* A count for a SELF or TOTAL column: exact, or short (see the header). */
static void count_text(const struct tree *t, tree_count c, bool shrt, const struct unit *u, int width,
                       char *out, size_t size)
{
	char raw[96];
	if (shrt)
		unit_number_short(u, tree_count_d(t, c), raw, sizeof raw);
	else
		toptable_count_text(t, c, raw, sizeof raw);
	pad_left(raw, width, out, size);
}

void tableview_draw(struct tableview *tv, int y0, int h, int w, const struct unit *u, char *buf,
                    size_t bufsize)
{
	if (h < 2 || w < 1)
		return;
	tv->height = h - 1;
	/* Keep the selection in view. */
	if (tv->sel < tv->top)
		tv->top = tv->sel;
	if (tv->sel >= tv->top + (size_t)tv->height)
		tv->top = tv->sel - (size_t)tv->height + 1;

	const struct tree *t = tv->tt.t;
	char cnt[96];
	/* Count columns as wide as the zoom root's total (the largest). */
	int cw = toptable_count_text(t, tv->tt.all, cnt, sizeof cnt);
	if (cw < 5)
		cw = 5;
	/* a diff's BEFORE and DELTA: as wide as BEFORE's total, and a sign */
	int cb = 0;
	if (tv->before) {
		struct toptable_delta dt;
		toptable_delta_text(tv->before_all, 0, &dt);
		cb = (int)strlen(dt.before) > cw ? (int)strlen(dt.before) : cw;
		if (cb < 6)
			cb = 6;         /* "BEFORE" */
	}
	int rest = tv->before ? 7 + 7 + cb + cb + 1 + 8 + 6 + 2 : 7 + 7 + 7 + 4 + 2;
	/* Too narrow for the exact counts and a name: the short ones, as
	 * wide as the widest unit_number_short gives. */
	bool shrt = w - (2 * cw + rest) < TABLEVIEW_NAME_MIN && cw > 8;
	if (shrt)
		cw = 8;
	int namex = 2 * cw + rest;
	char line[512];
	if (tv->before)
		snprintf(line, sizeof line, "%*s %7s %*s %7s %*s %*s %8s  %s", cw, "SELF", "SELF%", cw, "TOTAL",
		         "TOTAL%", cb, "BEFORE", cb + 1, "DELTA", "DELTA%", "FUNCTION");
	else
		snprintf(line, sizeof line, "%*s %7s %*s %7s %7s  %s", cw, "SELF", "SELF%", cw, "TOTAL",
		         "TOTAL%", "CALLERS", "FUNCTION");
	attron(A_BOLD);
	text_fit(line, strlen(line), w, buf, bufsize);
	mvaddstr(y0, 0, buf);
	attroff(A_BOLD);
	for (int r = 0; r < tv->height; r++) {
		size_t k = tv->top + (size_t)r;
		if (k >= tv->nshown)
			break;
		const struct toptable_row *row = &tv->tt.rows[tv->shown[k]];
		char self[64], total[64];
		count_text(t, row->self, shrt, u, cw, self, sizeof self);
		count_text(t, row->total, shrt, u, cw, total, sizeof total);
		if (tv->before) {
			struct toptable_delta dt;
			toptable_delta_text(tv->before[row->name], tree_count_d(t, row->total), &dt);
			snprintf(line, sizeof line, "%s %6.2f%% %s %6.2f%% %*s %*s %8s  ", self,
			         toptable_percent(&tv->tt, row->self), total,
			         toptable_percent(&tv->tt, row->total), cb, dt.before, cb + 1, dt.delta, dt.pct);
		} else
			snprintf(line, sizeof line, "%s %6.2f%% %s %6.2f%% %7u  ", self,
			         toptable_percent(&tv->tt, row->self), total,
			         toptable_percent(&tv->tt, row->total), (unsigned)row->sites);
		int y = y0 + 1 + r;
		bool selected = k == tv->sel;
		if (selected)
			attron(A_REVERSE | A_BOLD);
		text_fit(line, strlen(line), w, buf, bufsize);
		mvaddstr(y, 0, buf);
		if (namex < w) {
			const struct strtab *st = &t->names;
			text_fit(strtab_str(st, row->name), strtab_len(st, row->name), w - namex, buf, bufsize);
			mvaddstr(y, namex, buf);
			if (selected)   /* the bar spans the whole line */
				for (int x = namex + text_width(buf, strlen(buf)); x < w; x++)
					addch(' ');
		}
		if (selected)
			attroff(A_REVERSE | A_BOLD);
	}
	if (tv->nshown == 0)
		mvaddstr(y0 + 1, 0, tv->filter[0] ? "no function matches the filter" : "no samples");
}

void tableview_set_before(struct tableview *tv, const struct tree *before, tree_idx bzoom, double scale)
{
	free(tv->before);
	tv->before = NULL;
	tv->before_all = 0;
	if (!before || !tv->loaded)
		return;
	const struct tree *t = tv->tt.t;
	tv->nbefore = strtab_count(&t->names);
	tv->before = xcalloc(tv->nbefore ? tv->nbefore : 1, sizeof *tv->before);
	if (bzoom == TREE_NONE)
		return;         /* the view's path is not in BEFORE: all new */
	struct toptable bt;
	toptable_compute(&bt, before, bzoom, TOPTABLE_NAME);
	tv->before_all = tree_count_d(before, bt.all) * scale;
	for (size_t k = 0; k < bt.n; k++) {
		strtab_id id = bt.rows[k].name;
		int64_t a = strtab_find(&t->names, strtab_str(&before->names, id), strtab_len(&before->names, id));
		if (a >= 0 && (size_t)a < tv->nbefore)
			tv->before[a] = tree_count_d(before, bt.rows[k].total) * scale;
	}
	toptable_free(&bt);
}
