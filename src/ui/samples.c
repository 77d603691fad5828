#include "config.h"
#include "samples.h"

#include <stdlib.h>
#include <string.h>

#include "browser.h"
#include "counts.h"
#include "diff.h"

void samples_free(struct samples *s)
{
	if (s->ok)
		tree_free(&s->counts);
	free(s->map);
	memset(s, 0, sizeof *s);
}

bool samples_known(const struct ui *u)
{
	return u->tl && u->tl_tree && u->unit && u->unit->event[0] && !u->chart && !u->diffmode;
}

/* The samples of the range and threads browsed, with the view's
 * transforms, matched to the tree browsed. */
static void make(struct ui *u, struct samples *s)
{
	uint64_t t0 = u->range_set ? u->range_t0 : 0, t1 = u->range_set ? u->range_t1 : UINT64_MAX;
	counts_tree(u->tl, u->tl_tree, t0, t1, u->threads, u->views, &s->counts);
	s->map = diff_match(u->t, &s->counts);
	s->ok = true;
}

bool samples_of(struct ui *u, tree_idx i, uint64_t *total, uint64_t *self)
{
	struct samples *s = &u->samples;
	if (!samples_known(u))
		return false;
	if (s->gen != u->tree_gen) {
		samples_free(s);
		ui_busy(u, "counting the samples...");
		make(u, s);
		s->gen = u->tree_gen;
	}
	if (!s->ok || i >= tree_size(u->t))
		return false;
	tree_idx c = s->map[i];
	*total = c == TREE_NONE ? 0 : tree_node(&s->counts, c)->total.u;
	*self = c == TREE_NONE ? 0 : tree_node(&s->counts, c)->self.u;
	return true;
}

bool samples_of_cheap(struct ui *u, tree_idx i, uint64_t *total, uint64_t *self)
{
	if (!samples_known(u))
		return false;
	uint64_t most = SAMPLES_CHEAP;
	const char *e = getenv("TFLAME_SAMPLES_CHEAP");
	if (e && *e >= '0' && *e <= '9')
		most = strtoull(e, NULL, 10);
	if (u->samples.gen != u->tree_gen && u->tl->n > most)
		return false;
	return samples_of(u, i, total, self);
}
