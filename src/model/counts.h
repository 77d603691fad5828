/* counts: the samples behind the frames of a tree whose weights are not
 * sample counts (perf's periods: nanoseconds of cpu-clock, cycles), for
 * inputs that kept each sample's stack (a timeline). */
#ifndef TFLAME_COUNTS_H
#define TFLAME_COUNTS_H

#include <stdbool.h>
#include <stdint.h>
#include "timeline.h"
#include "transform.h"
#include "tree.h"

/* dst (uninitialised) becomes the tree of tl's samples in [t0, t1) on the
 * chosen threads (NULL: all), each counting 1, their leaves nodes of src,
 * with the transforms of views applied in order (a transform that does
 * not apply is passed over: it applied to the weights' tree, which has
 * the same stacks). Match its nodes to the weights' tree with diff_match.
 * O(samples + tree x transforms). */
void counts_tree(const struct timeline *tl, const struct tree *src, uint64_t t0, uint64_t t1,
                 const bool *threads, const struct transform_stack *views, struct tree *dst);

#endif
