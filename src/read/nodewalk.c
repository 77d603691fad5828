/* nodewalk: see nodewalk.h. */
#include "config.h"
#include "nodewalk.h"

#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

static uint32_t parent_of(const uint32_t *parent, size_t stride, size_t i)
{
	uint32_t p;
	memcpy(&p, (const char *)parent + i * stride, sizeof p);
	return p;
}

void nodewalk_init(struct nodewalk *w, const uint32_t *parent, size_t stride, size_t n)
{
	memset(w, 0, sizeof *w);
	size_t m = n ? n : 1;
	w->n = n;
	w->first = xcalloc(n + 1, sizeof *w->first);
	w->kids = xmalloc(m * sizeof *w->kids);
	for (size_t i = 0; i < n; i++) {
		uint32_t p = parent_of(parent, stride, i);
		if (p < n)
			w->first[p + 1]++;
	}
	for (size_t i = 0; i < n; i++)
		w->first[i + 1] += w->first[i];
	/* lv_next is the fill cursor until the walk needs it */
	w->lv_next = xmalloc(m * sizeof *w->lv_next);
	memcpy(w->lv_next, w->first, n * sizeof *w->lv_next);
	for (size_t i = 0; i < n; i++) {
		uint32_t p = parent_of(parent, stride, i);
		if (p < n)
			w->kids[w->lv_next[p]++] = (uint32_t)i;
	}
	w->lv_node = xmalloc(m * sizeof *w->lv_node);
	w->lv_plen = xmalloc(m * sizeof *w->lv_plen);
}

void nodewalk_free(struct nodewalk *w)
{
	free(w->first);
	free(w->kids);
	free(w->lv_node);
	free(w->lv_next);
	free(w->lv_plen);
	memset(w, 0, sizeof *w);
}

uint32_t nodewalk_start(struct nodewalk *w, uint32_t root)
{
	w->top = 0;
	w->low = 0;
	return root < w->n ? root : NODEWALK_END;
}

size_t nodewalk_base(const struct nodewalk *w)
{
	return w->top ? w->lv_plen[w->top - 1] : 0;
}

void nodewalk_enter(struct nodewalk *w, uint32_t v, size_t plen)
{
	/* a level a node: a walk deeper than n has met a node twice, which
	 * the children lists (one parent a node) cannot hold */
	if (w->top >= w->n || plen < nodewalk_base(w))
		xdie("internal error: nodewalk deeper than its nodes, or a path shorter than its parent's");
	w->lv_node[w->top] = v;
	w->lv_next[w->top] = w->first[v];
	w->lv_plen[w->top] = plen;
	w->top++;
}

size_t nodewalk_keep(struct nodewalk *w, size_t plen)
{
	/* low only falls from the last stack's length as the walk goes up,
	 * and the path goes on from where it fell to */
	size_t keep = w->low;
	w->low = plen;
	return keep;
}

uint32_t nodewalk_next(struct nodewalk *w)
{
	while (w->top > 0) {
		size_t L = w->top - 1;
		if (w->lv_next[L] < w->first[w->lv_node[L] + 1])
			return w->kids[w->lv_next[L]++];
		w->top--;
		size_t pl = w->top ? w->lv_plen[w->top - 1] : 0;
		if (pl < w->low)
			w->low = pl;
	}
	return NODEWALK_END;
}
