#include "config.h"
#include "printer.h"

#include <stdlib.h>
#include <string.h>
#include "palette.h"
#include "text.h"
#include "xalloc.h"

int printer_print(const struct tree *t, const struct printer_options *o, FILE *out)
{
	int width = o->width < 1 ? 1 : o->width;
	/* Levels enough for every span: a first guess, grown by what the layout
	 * saw deeper, so that the work is the output's (a scan of the subtree
	 * for its deepest node cost 50 ms on a tree of 17.5M nodes). Only the
	 * levels that have spans are printed. */
	struct layout_params p = {
		.zoom = o->zoom, .width = width, .height = 64,
		.orient = LAYOUT_ICICLE, .scroll = o->no_ancestors ? tree_depth(t, o->zoom) : 0, .min_width = o->min_width < 1 ? 1 : o->min_width,
	};
	struct layout l;
	layout_init(&l);
	for (;;) {
		layout_compute(&l, t, &p);
		if (!l.deeper || p.height == INT32_MAX)
			break;
		p.height = l.deeper >= (uint32_t)(INT32_MAX - p.height) ? INT32_MAX : p.height + (int)l.deeper;
	}
	int rows = 0;
	for (size_t k = 0; k < l.n; k++)
		if (l.spans[k].row + 1 > rows)
			rows = l.spans[k].row + 1;

	char count[64];
	tree_format_count(t, t->nodes[o->zoom].total, count, sizeof count);
	int rc = (o->header ? fprintf(out, "%s\n", o->header)
	                    : fprintf(out, "all: %s samples\n", count)) < 0 ? -1 : 0;
	if (o->search && rc == 0) {
		const char *pat = search_pattern(o->search);
		size_t n = search_count(o->search), patsize = strlen(pat) * 12 + 16;
		char *safe = xmalloc(patsize), pct[32] = "-";
		text_sanitize(pat, strlen(pat), safe, patsize);
		double all = tree_total_d(t, o->zoom);
		if (all > 0)
			snprintf(pct, sizeof pct, "%.2f%%",
			         100.0 * tree_count_d(t, search_total(o->search, o->zoom)) / all);
		char matches[48];
		snprintf(matches, sizeof matches, n ? "%zu match%s" : "no match", n, n == 1 ? "" : "es");
		if (fprintf(out, "/%s/  %s%s%s of samples\n", safe, matches,
		            text_is_utf8() ? "  \u00b7  " : "  |  ", pct) < 0)
			rc = -1;
		free(safe);
	}

	/* Per span at most 12 bytes a column of label (text.h) plus padding. */
	size_t linecap = (size_t)width * 21 + 64;
	char *line = xmalloc(linecap);
	char *label = xmalloc(TEXT_FIT_BYTES(width));
	for (int k = 0; k < rows && rc == 0; k++) {
		int r = o->orient == LAYOUT_FLAME ? rows - 1 - k : k;
		size_t len = 0;
		int col = 0;
		for (size_t s = l.row_start[r]; s < l.row_start[r + 1]; s++) {
			const struct layout_span *sp = &l.spans[s];
			while (col < sp->col0) {
				line[len++] = ' ';
				col++;
			}
			int w = sp->col1 - sp->col0;
			char mark[32];
			int mw = o->diff ? diff_mark(o->diff, t, sp->node, mark, sizeof mark) : 0;
			if (mw && w - 1 < mw + 2)
				mw = 0;         /* no room for a letter and the mark */
			/* Labels leave out the annotation ("_[k]"), as the browser's. */
			const char *name = tree_name(t, sp->node);
			int used = text_fit(name, palette_base_len(name, tree_name_len(t, sp->node)),
			                    w - 1 - (mw ? mw + 1 : 0), label, TEXT_FIT_BYTES(width));
			size_t ll = strlen(label);
			memcpy(line + len, label, ll);
			len += ll;
			if (mw) {
				line[len++] = ' ';
				memcpy(line + len, mark, (size_t)mw);
				len += (size_t)mw;
				used += mw + 1;
			}
			for (col += used; col < sp->col1 - 1; col++)
				line[len++] = ' ';
			line[len++] = o->search && search_matches(o->search, sp->node) ? '*' : '|';
			col++;
		}
		line[len++] = '\n';
		if (fwrite(line, 1, len, out) != len)
			rc = -1;
	}
	free(line);
	free(label);
	layout_free(&l);
	if (rc == 0 && ferror(out))
		rc = -1;
	return rc;
}
