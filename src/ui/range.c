/* The time range, threads and kind (flame graph or chart) of the samples
 * browsed, and the charts of frames' spans drawn finer (see browser.h:
 * ui_set_range ... ui_chart_window). */
#include "config.h"
#include "browser.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "timeindex.h"
#include "timeline.h"
#include "xalloc.h"

/* A flame chart's resolution: frames narrower than this share of the range
 * may be left out (timeindex_chart), so that the chart of 10 million
 * samples is thousands of nodes, not millions. 16384 is a column of 80
 * zooms in on 200 columns: every frame a column wide is drawn until then. */
#define UI_CHART_CELLS 16384u
/* From this many samples of a range on, its chart's cells are as many as
 * its units when they are fewer (see timeindex_chart): decoding each
 * sample costs about 45 ns, 50 ms a million. */
#define UI_CHART_COARSE ((uint64_t)1 << 20)

/* ui_set_range keeping the frame spans drawn finer (u->wins). */
static bool range_rebuild(struct ui *u, uint64_t t0, uint64_t t1, bool all)
{
	if (!u->tl)
		return false;
	ui_busy(u, u->chart ? "drawing the flame chart..." : "counting the samples of the range...");
	struct tree sub;
	tree_init(&sub);
	const struct tree *base;
	uint64_t a = all ? 0 : t0, b = all ? UINT64_MAX : t1;
	if (all && !u->threads && !u->chart) {
		base = u->tl_tree;      /* the whole recording, all threads */
	} else if (u->chart) {
		if (u->nwins) {
			timeindex_chart_window(u->tl, u->tl_tree, a, b, u->threads, UI_CHART_CELLS,
			                       u->wins[u->nwins - 1].w0, u->wins[u->nwins - 1].w1, &sub);
			u->chart_cells = UI_CHART_CELLS;
		} else {
			u->chart_cells = timeindex_chart(ui_timeindex(u), u->tl, u->tl_tree, a, b, u->threads,
			                                 UI_CHART_CELLS, UI_CHART_COARSE, &sub);
		}
		base = &sub;
	} else {
		uint64_t *self = xcalloc(tree_size(u->tl_tree), sizeof *self);
		uint64_t kept = timeindex_self(ui_timeindex(u), a, b, u->threads, self, tree_size(u->tl_tree));
		if (kept) {
			timeline_tree(u->tl_tree, self, u->views->order, &sub);
			base = &sub;
		} else
			base = NULL;
		free(self);
	}
	if (!base || tree_total_d(base, TREE_ROOT) == 0) {
		tree_free(&sub);
		snprintf(u->notice, sizeof u->notice, "no samples in that range");
		return false;
	}
	if (base != &sub)
		tree_free(&sub);
	finder_pause(u);        /* the rebase frees the trees a pass reads */
	struct tree old = u->range_tree;
	bool had = u->has_range_tree;
	if (base == &sub) {
		u->range_tree = sub;
		base = &u->range_tree;
	}
	u->has_range_tree = base == &u->range_tree;
	/* the transforms apply to the new base; the old one goes after */
	if (transform_stack_rebase(u->views, base))
		snprintf(u->notice, sizeof u->notice, "some transforms do not apply to this range: dropped");
	if (had)
		tree_free(&old);
	if (!u->has_range_tree)
		memset(&u->range_tree, 0, sizeof u->range_tree);
	u->range_set = !all;
	u->range_t0 = t0;
	u->range_t1 = t1;
	ui_tree_changed(u);
	return true;
}

bool ui_set_range(struct ui *u, uint64_t t0, uint64_t t1, bool all)
{
	/* the spans are places of the chart of the range, on its threads */
	size_t had = u->nwins;
	u->nwins = 0;
	if (range_rebuild(u, t0, t1, all))
		return true;
	u->nwins = had;
	return false;
}

/* The frame of the current chart at depth `depth` over place `at`, or its
 * deepest ancestor there. O(depth x siblings). */
static tree_idx chart_at(const struct tree *t, uint32_t depth, uint64_t at)
{
	tree_idx x = TREE_ROOT;
	while (tree_depth(t, x) < depth) {
		tree_idx c = tree_first_child(t, x);
		while (c != TREE_NONE && !(tree_node(t, c)->off.u <= at &&
		                           at - tree_node(t, c)->off.u < tree_node(t, c)->total.u))
			c = tree_next_sibling(t, c);
		if (c == TREE_NONE)
			break;
		x = c;
	}
	return x;
}

bool ui_chart_zoom(struct ui *u, tree_idx z)
{
	const struct tree *t = u->t;
	if (!u->chart || !u->tl || u->views->n > 0 || u->diffmode || z == TREE_ROOT || z >= tree_size(t))
		return false;
	uint64_t w = tree_node(t, z)->total.u, all = tree_node(t, TREE_ROOT)->total.u;
	/* zoomed into z, a column is w / cols of the samples */
	uint32_t cells = u->chart_cells ? u->chart_cells : UI_CHART_CELLS;
	if (w == 0 || (double)w * cells >= (double)all * (u->cols > 1 ? u->cols : 1))
		return false;
	uint64_t base = u->nwins ? u->wins[u->nwins - 1].w0 : 0, at = base + tree_node(t, z)->off.u;
	tree_idx zr = flameview_zoom(u);
	struct ui_window win = { at, at + w, tree_depth(t, z), tree_depth(t, zr), tree_node(t, zr)->off.u };
	if (u->nwins == u->capwins) {
		u->capwins = u->capwins ? 2 * u->capwins : 4;
		u->wins = xreallocarray(u->wins, u->capwins, sizeof *u->wins);
	}
	u->wins[u->nwins++] = win;
	if (!range_rebuild(u, u->range_t0, u->range_t1, !u->range_set)) {
		u->nwins--;
		return false;
	}
	/* the chart of z's span: z's callers, each as wide as it, over z */
	tree_idx nz = chart_at(u->t, win.depth, 0);
	flameview_restore(u, nz, nz);
	snprintf(u->notice, sizeof u->notice, "the chart of this frame alone, finer (u: back)");
	return true;
}

bool ui_chart_unzoom(struct ui *u, bool all)
{
	if (!u->nwins)
		return false;
	size_t had = u->nwins;
	struct ui_window win = u->wins[all ? 0 : u->nwins - 1];
	u->nwins = all ? 0 : u->nwins - 1;
	if (!range_rebuild(u, u->range_t0, u->range_t1, !u->range_set)) {
		u->nwins = had;
		return false;
	}
	if (all)
		return true;
	uint64_t base = u->nwins ? u->wins[u->nwins - 1].w0 : 0;
	tree_idx zr = chart_at(u->t, win.zdepth, win.zat), z = chart_at(u->t, win.depth, win.w0 - base);
	flameview_restore(u, zr, z);
	return true;
}

bool ui_chart_window(const struct ui *u, uint32_t *depth)
{
	if (!u->nwins)
		return false;
	*depth = u->wins[u->nwins - 1].depth;
	return true;
}

const struct timeindex *ui_timeindex(struct ui *u)
{
	if (!u->tl || u->ti)
		return u->ti;
	if (!u->ti_job || !timeindex_done(u->ti_job))
		ui_busy_times(u, "indexing the sample times...");
	u->ti = u->ti_job ? timeindex_join(u->ti_job) : timeindex_new(u->tl, u->tl_tree);
	u->ti_job = NULL;
	return u->ti;
}

bool ui_has_times(struct ui *u, const char *what)
{
	if (u->tl)
		return true;
	if (u->loading[0]) {
		snprintf(u->notice, sizeof u->notice, "no %s while the profile loads", what);
		return false;
	}
	snprintf(u->notice, sizeof u->notice, "no %s here: perf.data, perf script, .cpuprofile, "
	         "Chrome traces and speedscope have them", what);
	return false;
}

bool ui_set_chart(struct ui *u, bool on)
{
	if (!ui_has_times(u, "sample times for a chart"))
		return false;
	bool was = u->chart;
	u->chart = on;
	if (!ui_set_range(u, u->range_t0, u->range_t1, !u->range_set)) {
		u->chart = was;
		return false;
	}
	return true;
}

bool ui_set_threads(struct ui *u, const bool *check)
{
	const bool *was = u->threads;
	bool *mine = NULL;
	if (check) {
		mine = xcalloc(u->tl->nthreads + 1, sizeof *mine);
		memcpy(mine, check, u->tl->nthreads * sizeof *mine);
	}
	u->threads = mine;
	if (!ui_set_range(u, u->range_t0, u->range_t1, !u->range_set)) {
		u->threads = was;
		free(mine);
		return false;
	}
	free(u->own_threads);
	u->own_threads = mine;
	u->threads_gen++;
	return true;
}
