/* threads: the thread and process picker (T). One row per thread of the
 * timeline, busiest first: a check box, samples, share, pid, tid, command
 * and a sparkline of its samples over the recording. Space checks or
 * unchecks a thread, a checks all, Enter shows the checked ones: the flame
 * graph (and the heat map) then count their samples only. A sparkline
 * sums the thread's bins of the time index, once per width, for the rows
 * drawn; drawing costs the rows shown. */
#include "config.h"
#include "browser.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "timeindex.h"
#include "xalloc.h"

struct threads {
	struct view v;              /* first */
	uint32_t *order;            /* thread indices, busiest first */
	bool *check;                /* by thread index: checked in the picker */
	size_t n;
	size_t sel, top;
	int height;                 /* rows of the last draw */
	/* sparklines: spark[thread * width + k] samples in bucket k, counted
	 * for a thread when its row is first drawn at this width (done) */
	uint32_t *spark, *spark_max;
	bool *done;
	int width;
};

/* The rows' columns before the command and the sparkline. */
#define THREADS_FIXED 44

/* Thread i's sparkline at width (the index's bins in width buckets):
 * O(its bins), once per width. */
static const uint32_t *sparkline(struct ui *u, struct threads *th, uint32_t i, int width)
{
	if (!th->spark || th->width != width) {
		free(th->spark);
		free(th->spark_max);
		free(th->done);
		th->width = width;
		th->spark = xcalloc(th->n * (size_t)width + 1, sizeof *th->spark);
		th->spark_max = xcalloc(th->n + 1, sizeof *th->spark_max);
		th->done = xcalloc(th->n + 1, sizeof *th->done);
	}
	uint32_t *row = th->spark + (size_t)i * (size_t)width;
	if (!th->done[i] && width > 0) {
		timeindex_spark(ui_timeindex(u), i, (uint32_t)width, row);
		for (int k = 0; k < width; k++)
			if (row[k] > th->spark_max[i])
				th->spark_max[i] = row[k];
		th->done[i] = true;
	}
	return row;
}

static void threads_draw(struct ui *u, struct view *v)
{
	struct threads *th = (struct threads *)v;
	const struct timeline *tl = u->tl;
	th->height = u->lines - 3;
	if (th->height < 1)
		th->height = 1;
	if (th->sel < th->top)
		th->top = th->sel;
	if (th->sel >= th->top + (size_t)th->height)
		th->top = th->sel - (size_t)th->height + 1;
	int spark_w = u->cols - THREADS_FIXED - 18;
	if (spark_w > 60)
		spark_w = 60;
	if (spark_w < 0)
		spark_w = 0;
	char line[512];
	size_t checked = 0;
	for (size_t i = 0; i < th->n; i++)
		checked += th->check[i];
	snprintf(line, sizeof line, "threads: %zu, %zu checked%sSpace checks, Enter shows the checked ones",
	         th->n, checked, paint_sep());
	attron(A_BOLD);
	paint_text(u, 0, 0, line);
	snprintf(line, sizeof line, "    %12s %7s %8s %8s  %-16s %s", "SAMPLES", "SHARE", "PID", "TID", "COMMAND",
	         spark_w > 0 ? "ACTIVITY" : "");
	paint_text(u, 1, 0, line);
	attroff(A_BOLD);
	static const char *const bars8[] = { " ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586",
	                                     "\u2587", "\u2588" };
	static const char ascii[] = " .:-=+*#%@";
	for (int r = 0; r < th->height; r++) {
		size_t k = th->top + (size_t)r;
		if (k >= th->n)
			break;
		uint32_t i = th->order[k];
		const struct timeline_thread *t = &tl->threads[i];
		char comm[64], pid[24], tid[24];
		text_sanitize(t->comm, strlen(t->comm), comm, sizeof comm);
		if (t->pid >= 0)
			snprintf(pid, sizeof pid, "%" PRId64, t->pid);
		else
			snprintf(pid, sizeof pid, "-");
		if (t->tid >= 0)
			snprintf(tid, sizeof tid, "%" PRId64, t->tid);
		else
			snprintf(tid, sizeof tid, "-");
		char share[32];
		paint_percent((double)t->samples, (double)tl->n, share, sizeof share);
		snprintf(line, sizeof line, "[%c] %12" PRIu64 " %7s %8s %8s  ", th->check[i] ? 'x' : ' ', t->samples,
		         share, pid, tid);
		int y = 2 + r;
		bool selected = k == th->sel;
		if (selected)
			attron(A_REVERSE | A_BOLD);
		paint_text(u, y, 0, line);
		int x = text_width(line, strlen(line));
		text_fit(comm, strlen(comm), 16, u->buf, u->bufsize);
		if (x < u->cols)
			mvaddstr(y, x, u->buf);
		x += 17;
		const uint32_t *spark = sparkline(u, th, i, spark_w);
		for (int c = 0; c < spark_w && x + c < u->cols - 1; c++) {
			uint32_t n = spark[c], m = th->spark_max[i];
			unsigned lv = n == 0 || m == 0 ? 0 : (unsigned)(((uint64_t)n * 8 + m - 1) / m);
			if (text_is_utf8())
				mvaddstr(y, x + c, bars8[lv]);
			else
				mvaddch(y, x + c, (chtype)(unsigned char)ascii[lv]);
		}
		if (selected)
			attroff(A_REVERSE | A_BOLD);
	}
	if (!paint_notice(u)) {
		snprintf(line, sizeof line, "the recording: %.3f s, %" PRIu64 " samples", (double)(tl->tmax - tl->tmin) / 1e9,
		         tl->n);
		paint_text(u, u->lines - 1, 0, line);
	}
}

static bool threads_key(struct ui *u, struct view *v, enum keymap_action act, int ch)
{
	(void)ch;
	struct threads *th = (struct threads *)v;
	size_t last = th->n ? th->n - 1 : 0, page = th->height > 1 ? (size_t)th->height - 1 : 1;
	switch (act) {
	case KEYMAP_DOWN: th->sel = th->sel < last ? th->sel + 1 : last; break;
	case KEYMAP_UP: th->sel = th->sel > 0 ? th->sel - 1 : 0; break;
	case KEYMAP_PAGE_DOWN: th->sel = th->sel + page < last ? th->sel + page : last; break;
	case KEYMAP_PAGE_UP: th->sel = th->sel > page ? th->sel - page : 0; break;
	case KEYMAP_FIRST: th->sel = 0; break;
	case KEYMAP_LAST: th->sel = last; break;
	case KEYMAP_MARK:
		if (th->n)
			th->check[th->order[th->sel]] = !th->check[th->order[th->sel]];
		break;
	case KEYMAP_RANGE_ALL: {
		bool all = true;
		for (size_t i = 0; i < th->n; i++)
			all = all && th->check[i];
		for (size_t i = 0; i < th->n; i++)
			th->check[i] = !all;
		break;
	}
	case KEYMAP_SHOW: {
		size_t checked = 0;
		for (size_t i = 0; i < th->n; i++)
			checked += th->check[i];
		if (!checked) {
			snprintf(u->notice, sizeof u->notice, "check a thread first (Space, or a for all)");
			break;
		}
		if (ui_set_threads(u, checked == th->n ? NULL : th->check))
			ui_pop(u);
		break;
	}
	case KEYMAP_BACK: ui_pop(u); break;
	default: return false;
	}
	return true;
}

static const struct view_ops threads_ops = {
	.name = "threads",
	.keys = KEYMAP_THREADS_VIEW,
	.fallback = true,
	.draw = threads_draw,
	.key = threads_key,
};

struct view *threads_new(void)
{
	struct threads *th = xcalloc(1, sizeof *th);
	th->v.ops = &threads_ops;
	return &th->v;
}

void threads_free(struct view *v)
{
	struct threads *th = (struct threads *)v;
	if (!th)
		return;
	free(th->order);
	free(th->check);
	free(th->spark);
	free(th->spark_max);
	free(th->done);
	free(th);
}

struct busy {
	uint64_t samples;
	uint32_t idx;
};

static int busy_cmp(const void *pa, const void *pb)
{
	const struct busy *a = pa, *b = pb;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* The checks start as the browsed threads are. */
void threads_open(struct ui *u)
{
	struct threads *th = (struct threads *)u->threads_view;
	if (!ui_has_times(u, "threads"))
		return;
	const struct timeline *tl = u->tl;
	if (th->n != tl->nthreads) {
		free(th->order);
		free(th->check);
		free(th->spark);
		free(th->spark_max);
		free(th->done);
		th->spark = th->spark_max = NULL;
		th->done = NULL;
		th->n = tl->nthreads;
		th->order = xcalloc(th->n + 1, sizeof *th->order);
		th->check = xcalloc(th->n + 1, sizeof *th->check);
		/* busiest first, then by index */
		struct busy *b = xcalloc(th->n + 1, sizeof *b);
		for (size_t i = 0; i < th->n; i++) {
			b[i].samples = tl->threads[i].samples;
			b[i].idx = (uint32_t)i;
		}
		qsort(b, th->n, sizeof *b, busy_cmp);
		for (size_t i = 0; i < th->n; i++)
			th->order[i] = b[i].idx;
		free(b);
	}
	for (size_t i = 0; i < th->n; i++)
		th->check[i] = !u->threads || u->threads[i];
	ui_push(u, u->threads_view);
}
