/* samples: how many samples lie behind each frame of the tree browsed,
 * when its weights are amounts of an event (perf's cpu-clock periods are
 * nanoseconds) rather than sample counts, and the input kept each
 * sample's stack (the timeline).
 *
 * Made on demand (the details pane asks) in one pass over the samples of
 * the range and threads browsed: a tree of the same stacks with each
 * sample counting 1, the view's transforms applied to it again in order,
 * matched to the tree browsed by path (diff_match). Kept until the tree
 * browsed changes (ui.tree_gen). O(samples + tree) to make, O(1) a query. */
#ifndef TFLAME_SAMPLES_H
#define TFLAME_SAMPLES_H

#include <stdbool.h>
#include <stdint.h>
#include "tree.h"

struct samples {
	unsigned gen;       /* the ui.tree_gen made for; 0: never made */
	bool ok;            /* counts are known for that tree */
	struct tree counts; /* the stacks, a sample counting 1 (when ok) */
	tree_idx *map;      /* tree browsed's node -> counts' node or TREE_NONE */
};

struct ui;

/* Whether the weights shown are not sample counts and the samples are
 * known: then samples_of answers. */
bool samples_known(const struct ui *u);
/* The samples behind node i of the tree browsed, in its subtree (*total)
 * and ending there (*self). False when unknown (see samples_known; a
 * flame chart; a diff). */
bool samples_of(struct ui *u, tree_idx i, uint64_t *total, uint64_t *self);
/* samples_of when it costs no pass over the samples: they were counted
 * for this tree already, or there are at most SAMPLES_CHEAP (the status
 * line asks on every draw; a pass over 10 million would slow its keys).
 * The environment's TFLAME_SAMPLES_CHEAP=N sets another bound (tests). */
#define SAMPLES_CHEAP ((uint64_t)1 << 20)
bool samples_of_cheap(struct ui *u, tree_idx i, uint64_t *total, uint64_t *self);
void samples_free(struct samples *s);

#endif
