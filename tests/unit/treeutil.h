/* treeutil.h: helpers shared by the unit tests that build trees by hand.
 * add(t, "a;b;c", n) adds one stack (';' between frames, at most 64);
 * folded(t) is tree_write_folded's text (free it); is_folded compares it. */
#ifndef TFLAME_TEST_TREEUTIL_H
#define TFLAME_TEST_TREEUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tree.h"
#include "tap.h"

/* Adds the stack "a;b;c" (up to 64 frames) with count c; its leaf. */
__attribute__((unused))
static tree_idx add(struct tree *t, const char *stack, uint64_t c)
{
	struct tree_frame f[64];
	size_t n = 0;
	const char *p = stack;
	while (*p && n < 64) {
		const char *e = strchr(p, ';');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		f[n++] = (struct tree_frame){ p, len };
		p += len + (e ? 1 : 0);
	}
	return tree_add_stack(t, f, n, c);
}

__attribute__((unused))
static char *folded(const struct tree *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	tree_write_folded(t, f);
	fclose(f);
	return buf;
}

__attribute__((unused))
static void is_folded(const struct tree *t, const char *want, const char *name)
{
	char *got = folded(t);
	is_str(got, want, name);
	free(got);
}

#endif
