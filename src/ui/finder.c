/* finder: the browser's search session: the search prompt, passes run in
 * slices between keys, the jump to a match when a pass ends, and the
 * search that follows the tree through transforms. */
#include "config.h"
#include "browser.h"

#include <stdlib.h>
#include <string.h>

#include "search.h"
#include "searchidx.h"
#include "text.h"
#include "xalloc.h"

/* The slice run by the key that starts a pass: the typed character shows
 * at once, and a small profile's pass still fits in it. */
#define FINDER_FIRST_NS (4u * 1000u * 1000u)
/* The index pays for its thread from this many names or nodes on. */
#define FINDER_INDEX_MIN_NAMES 65536u
#define FINDER_INDEX_MIN_NODES 1000000u

/* The phase follows the slots; called after every change of them. */
static void settle(struct finder *f)
{
	f->phase = f->pending ? FINDER_RUNNING : f->shown ? FINDER_SHOWN : FINDER_IDLE;
}

const struct search *finder_current(const struct ui *u)
{
	return u->find.pending ? u->find.pending : u->find.shown;
}

bool finder_matches(const struct ui *u, tree_idx i)
{
	return u->find.shown && search_matches(u->find.shown, i);
}

/* The match with the most samples inside the zoomed view (the first of
 * equals), or in the whole tree when none is in view. O(matches in the
 * range), once per accepted search. */
static tree_idx heaviest(const struct ui *u, const struct search *s)
{
	tree_idx z = flameview_zoom(u), best = TREE_NONE;
	for (int pass = 0; pass < 2 && best == TREE_NONE; pass++) {
		tree_idx from = pass ? TREE_ROOT : z, end = tree_end(u->t, from);
		tree_idx m = search_matches(s, from) ? from : search_next(s, from);
		for (; m != TREE_NONE && m < end; m = search_next(s, m))
			if (best == TREE_NONE || tree_node(u->t, m)->total.u > tree_node(u->t, best)->total.u)
				best = m;
	}
	return best;
}

void finder_goto(struct ui *u, int dir, bool from_sel)
{
	const struct search *s = u->find.shown;
	if (!s) {
		snprintf(u->notice, sizeof u->notice, "no search: press / to search");
		return;
	}
	char pat[128];
	text_sanitize(search_pattern(s), strlen(search_pattern(s)), pat, sizeof pat);
	if (search_count(s) == 0) {
		snprintf(u->notice, sizeof u->notice, "no match for /%s/", pat);
		return;
	}
	tree_idx sel = flameview_selected(u), m;
	if (dir == 0)
		m = heaviest(u, s);
	else if (from_sel && search_matches(s, sel))
		m = sel;
	else
		m = dir > 0 ? search_next(s, sel) : search_prev(s, sel);
	if (m == TREE_NONE) {
		m = dir > 0 ? search_first(s) : search_last(s);
		snprintf(u->notice, sizeof u->notice, dir > 0 ? "search wrapped around to the first match"
		                                              : "search wrapped around to the last match");
	}
	flameview_reveal(u, m);
}

void finder_work(struct ui *u, uint64_t budget_ns)
{
	struct finder *f = &u->find;
	if (!f->pending || !search_run(f->pending, budget_ns))
		return;
	search_free(f->shown);
	f->shown = f->pending;      /* the reference moves */
	f->pending = NULL;
	settle(f);
	f->pass_last_ms = (double)(ui_now_ms() - f->pass_t0);
	if (f->pass_last_ms > f->pass_max_ms)
		f->pass_max_ms = f->pass_last_ms;
	f->npasses++;
	if (f->jump) {
		f->jump = false;
		finder_goto(u, f->jump_dir, f->jump_from_sel);
	}
}

/* The jump of an accepted search: to the heaviest match in view, once the
 * pass ends. */
static void jump_later(struct finder *f)
{
	f->jump = true;
	f->jump_dir = 0;
	f->jump_from_sel = false;
}

void finder_start(struct ui *u, struct search *s)
{
	struct finder *f = &u->find;
	search_free(f->pending);
	f->pending = s;
	if (!s) {
		search_free(f->shown);
		f->shown = NULL;
		f->jump = false;
		settle(f);
		return;
	}
	settle(f);
	if (searchidx_ready(f->idx))
		search_use_index(s, f->idx);
	f->pass_t0 = ui_now_ms();
	finder_work(u, FINDER_FIRST_NS);
}

/* While a pass runs, the move waits for its end (the pass goes on in
 * slices: Esc and signals are heard meanwhile); when an accepted search
 * was waiting to jump, this key is that jump. */
void finder_step(struct ui *u, int dir)
{
	struct finder *f = &u->find;
	if (f->pending) {
		if (!f->jump) {
			f->jump = true;
			f->jump_dir = dir;
			f->jump_from_sel = false;
		}
	} else
		finder_goto(u, dir, false);
}

/* The bytes and case as they are. */
void finder_search_name(struct ui *u, tree_idx sel)
{
	if (sel == TREE_ROOT) {
		snprintf(u->notice, sizeof u->notice, "select a frame first: the root is not searchable");
		return;
	}
	strtab_id id = tree_node(u->t, sel)->name;
	struct search *s = search_new_exact(u->t, id);
	lineedit_history_add(&u->find.hist, search_pattern(s), strtab_str(&u->t->names, id),
	                     strtab_len(&u->t->names, id));
	finder_start(u, s);
}

void finder_clear(struct ui *u)
{
	if (u->find.shown || u->find.pending)
		finder_start(u, NULL);
}

void finder_search_initial(struct ui *u, const char *pattern)
{
	struct finder *f = &u->find;
	struct search *s = search_new(u->t, pattern, f->err, sizeof f->err);
	if (!s) {
		snprintf(u->notice, sizeof u->notice, "invalid regex: %s", f->err);
		return;
	}
	lineedit_history_add(&f->hist, pattern, NULL, 0);
	jump_later(f);
	finder_start(u, s);
}

/* ---- the prompt ---- */

/* The text changed: search again, incrementally. An invalid pattern keeps
 * the last valid highlight (and its pass, if unfinished). */
static void prompt_changed(struct ui *u, struct lineedit *e)
{
	struct finder *f = &u->find;
	const struct lineedit_entry *r = lineedit_recalled(e);
	f->err[0] = '\0';
	if (e->len == 0) {
		finder_start(u, NULL);
		return;
	}
	struct search *s;
	if (r && r->payload) {  /* a `*` search recalled unchanged: still exact */
		s = search_new_exact_bytes(u->t, r->payload, r->payload_len);
	} else {
		s = search_new(u->t, e->text, f->err, sizeof f->err);
		/* Typing on at the end of a word: test only what matched. */
		if (s && f->shown && search_done(f->shown))
			search_narrow(s, f->shown);
	}
	if (s)
		finder_start(u, s);
}

static void prompt_closed(struct finder *f)
{
	search_free(f->before);
	f->before = NULL;
	f->before_jump = false;
	f->prompting = false;
}

/* Enter: the search stays and the first match from the selection on is
 * selected (once its pass is done). */
static void prompt_accept(struct ui *u, struct lineedit *e)
{
	struct finder *f = &u->find;
	const struct lineedit_entry *r = lineedit_recalled(e);
	lineedit_history_add(&f->hist, e->text, r ? r->payload : NULL, r ? r->payload_len : 0);
	if (f->err[0])
		snprintf(u->notice, sizeof u->notice, "invalid regex (%s): the previous search stays", f->err);
	else if (f->pending)
		jump_later(f);
	else if (f->shown)
		finder_goto(u, 0, false);
	prompt_closed(f);
}

/* Esc: back to the search (or none) that was there before the prompt; a
 * pass put aside by finder_prompt goes on (nothing is shown until it
 * ends). */
static void prompt_cancel(struct ui *u, struct lineedit *e)
{
	(void)e;
	struct finder *f = &u->find;
	struct search *b = f->before;
	bool unfinished = b && !search_done(b), jump = f->before_jump, had = b != NULL;
	search_free(f->pending);
	search_free(f->shown);
	f->pending = unfinished ? search_ref(b) : NULL;
	f->shown = unfinished ? NULL : search_ref(b);
	f->jump = false;
	settle(f);
	prompt_closed(f);
	if (jump && unfinished)
		jump_later(f);
	else if (jump && had)   /* it ended while the prompt was open */
		finder_goto(u, 0, false);
}

/* After the text: the regex error, the progress of a pass, or the count. */
static void prompt_info(struct ui *u, const struct lineedit *e, char *buf, size_t size, bool *bold)
{
	struct finder *f = &u->find;
	*bold = false;
	buf[0] = '\0';
	if (f->err[0]) {
		*bold = true;
		snprintf(buf, size, "%s", f->err);
	} else if (f->pending) {
		snprintf(buf, size, "searching %d%%", (int)(100 * search_progress(f->pending)));
	} else if (f->shown && e->len) {
		size_t n = search_count(f->shown), costly = search_costly(f->shown);
		char pct[32];
		paint_percent(tree_count_d(u->t, search_total(f->shown, TREE_ROOT)), tree_total_d(u->t, TREE_ROOT),
		              pct, sizeof pct);
		int len = n ? snprintf(buf, size, "%zu match%s%s%s of samples", n, n == 1 ? "" : "es", paint_sep(), pct)
		            : snprintf(buf, size, "no match");
		if (costly && len > 0 && (size_t)len < size)
			snprintf(buf + len, size - (size_t)len, ", too costly on %zu name%s", costly,
			         costly == 1 ? "" : "s");
	}
}

static const struct prompt_ops search_prompt = {
	.bold = false,
	.narrow = true,
	.changed = prompt_changed,
	.accept = prompt_accept,
	.cancel = prompt_cancel,
	.info = prompt_info,
};

void finder_prompt(struct ui *u)
{
	struct finder *f = &u->find;
	/* A pass still running (an accepted search) is what Esc goes back
	 * to: put aside, not finished now (it may take long: keys and
	 * signals must not wait for it). */
	f->before = search_ref(f->pending ? f->pending : f->shown);
	f->before_jump = f->pending && f->jump;
	f->jump = false;
	f->err[0] = '\0';
	f->prompting = true;
	prompt_open(u, "/", &f->hist, &search_prompt);
}

/* ---- the tree ---- */

/* Before the tree may be freed: an index thread still reading it stops
 * (its arrays were never handed to a search). A finished index stays, for
 * the searches holding its arrays, until finder_index(). */
void finder_pause(struct ui *u)
{
	struct finder *f = &u->find;
	search_pause(f->pending);
	if (f->idx && !searchidx_ready(f->idx)) {
		searchidx_free(f->idx);
		f->idx = NULL;
	}
}

void finder_index(struct ui *u)
{
	struct finder *f = &u->find;
	searchidx_free(f->idx);
	f->idx = NULL;
	if (search_get_threads() > 1 && (strtab_count(&u->t->names) >= FINDER_INDEX_MIN_NAMES ||
	                                 tree_size(u->t) >= FINDER_INDEX_MIN_NODES))
		f->idx = searchidx_start(u->t);
}

/* The search's pattern (or exact name) outlives the tree it ran on. */
void finder_tree_changed(struct ui *u)
{
	const struct search *was = finder_current(u);
	size_t exact_len = 0;
	const char *name = was ? search_exact_name(was, &exact_len) : NULL;
	bool exact = name != NULL;
	char *pattern = NULL;
	if (exact) {
		pattern = xmalloc(exact_len ? exact_len : 1);
		memcpy(pattern, name, exact_len);
	} else if (was)
		pattern = xstrdup(search_pattern(was));
	finder_start(u, NULL);
	finder_index(u);
	if (pattern) {
		char err[160];
		struct search *s = exact ? search_new_exact_bytes(u->t, pattern, exact_len)
		                         : search_new(u->t, pattern, err, sizeof err);
		if (s)
			finder_start(u, s);
		free(pattern);
	}
}

void finder_free(struct ui *u)
{
	struct finder *f = &u->find;
	searchidx_free(f->idx);     /* before the tree goes */
	f->idx = NULL;
	search_free(f->shown);
	search_free(f->pending);
	search_free(f->before);
	f->shown = f->pending = f->before = NULL;
	settle(f);
	lineedit_history_free(&f->hist);
}
