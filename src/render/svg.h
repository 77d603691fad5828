/* svg: the flame graph as a self-contained interactive SVG document (--svg),
 * in the form flamegraph.pl made familiar: one <g> per frame holding a
 * <title> ("NAME (1,234 samples, 5.67%)"), a <rect> and, when there is room,
 * a <text> label cut with "..". A small inline script zooms on click (the
 * frame full width, its ancestors kept, the rest hidden), resets the zoom,
 * searches with a regex (Ctrl-F or "Search"; smart case as the browser's
 * search; "Matched: P%" counts nested matches once; Escape clears) and shows
 * the frame under the mouse on a details line.
 *
 * Geometry: the image is width pixels wide with 10 px margins; a frame with
 * sample range [x0, x1) inside the zoom root (total T) spans
 * [10 + x0*(width-20)/T, 10 + x1*(width-20)/T), rounded to 0.01 px; a level
 * is 16 px high (15 px rect). The zoom root's ancestors are full width.
 * Frames narrower than min_width pixels are left out with their subtrees,
 * which are not visited: the work is proportional to what is drawn (plus
 * the sibling lists scanned). Frames are written in tree preorder.
 *
 * Colours are the browser's: palette_look() per name (rules first), or
 * diff_color() in --diff mode. Names are untrusted: they are written in
 * their display form (text_sanitize: control bytes as ^X, invalid UTF-8 as
 * U+FFFD) with & < > " ' escaped, so the document is always well-formed XML,
 * whatever the locale (the document is UTF-8). Labels leave out the
 * code-type annotation ("_[k]"); titles keep the whole name. */
#ifndef TFLAME_SVG_H
#define TFLAME_SVG_H

#include <stdbool.h>
#include <stdio.h>
#include "diff.h"
#include "layout.h"
#include "palette.h"
#include "tree.h"
#include "unit.h"

struct svg_options {
	int width;                  /* pixels (<= 0: 1200; at least 64) */
	enum layout_orient orient;  /* flame (root at the bottom) or icicle (--inverted) */
	double min_width;           /* frames narrower than this many pixels are left
	                               out (default 0.1; 0: every frame with samples) */
	const struct palette *pal;  /* --colors (NULL: the default) */
	const struct palette_rules *rules;  /* --color-rule, --palette-map (NULL: none) */
	const char *title;          /* "Flame Graph" or the file name (NULL: "Flame Graph") */
	const char *count_name;     /* "samples", or the unit ("cpu-clock" ...) (NULL: "samples") */
	const struct unit *unit;    /* when it names an event, amounts are said in
	                               it ("1.16 s cpu-clock"); NULL: count_name */
	const struct diff *diff;    /* --diff: red grew, blue shrank (NULL: none) */
	bool negate;                /* with before and no diff: swap red and blue */
	const struct tree *before;  /* --diff's BEFORE when diff is NULL: the diff is
	                               computed here (not normalized) */
	tree_idx zoom;              /* usually TREE_ROOT */
};

/* The options' defaults: width 1200, flame, min_width 0.1, zoom TREE_ROOT,
 * everything else NULL/false. */
void svg_options_init(struct svg_options *o);

/* Writes the SVG document of t (finalized) to out in one pass. Returns 0, or
 * -1 on a write error (errno set by the failing write). */
int svg_write(const struct tree *t, const struct svg_options *o, FILE *out);

#endif
