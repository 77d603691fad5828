#include "config.h"
#include "counts.h"

#include <stdlib.h>
#include "xalloc.h"

void counts_tree(const struct timeline *tl, const struct tree *src, uint64_t t0, uint64_t t1,
                 const bool *threads, const struct transform_stack *views, struct tree *dst)
{
	size_t n = tree_size(src);
	uint64_t *count = xcalloc(n, sizeof *count);
	timeline_count(tl, t0, t1, threads, count, n);
	struct tree cur;
	tree_init(&cur);
	timeline_tree(src, count, views->order, &cur);
	free(count);
	for (size_t k = 0; k < views->n; k++) {
		struct tree next;       /* transform_apply initialises it when it applies */
		char err[64];
		if (transform_apply(&cur, &views->items[k], views->order, &next, err, sizeof err)) {
			tree_free(&cur);
			cur = next;
		}
	}
	*dst = cur;
}
