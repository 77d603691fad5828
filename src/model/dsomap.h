/* dsomap: the object file each frame name of a tree came from, as perf
 * names it ("/usr/lib/x86_64-linux-gnu/libc.so.6", "[kernel.kallsyms]"),
 * for the details pane. Folded stacks drop it; perf script and perf.data
 * say it for every frame.
 *
 * Keyed by the tree's name ids (a frame is a name: the same name from two
 * objects is one frame, and its object is then "several"), so noting one
 * costs an array store, not a hash of the name. The object paths are
 * interned in the map's own table. Memory allocation failure dies (xalloc),
 * as for the tree. */
#ifndef TFLAME_DSOMAP_H
#define TFLAME_DSOMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "strtab.h"

#define DSOMAP_NONE 0u          /* no object known */
#define DSOMAP_SEVERAL UINT32_MAX

struct dsomap {
	uint32_t *of;               /* by name id: object id + 1, DSOMAP_NONE
	                               or DSOMAP_SEVERAL */
	size_t cap;
	struct strtab paths;        /* the objects */
	/* the last path interned, which the next frame most likely shares */
	const char *last;
	size_t last_len;
	uint32_t last_id;
};

void dsomap_init(struct dsomap *m);
void dsomap_free(struct dsomap *m);
/* The object's id (for dsomap_note) of path[0..len); DSOMAP_NONE for an
 * empty path or perf's "[unknown]". path need only live until the next
 * call (a one-entry cache compares the bytes). */
uint32_t dsomap_object(struct dsomap *m, const char *path, size_t len);
/* Name `name` was a frame of object `obj` (dsomap_object's id). Inline:
 * the reader notes every frame, and almost every note repeats one. */
void dsomap_note_slow(struct dsomap *m, strtab_id name, uint32_t obj);
static inline void dsomap_note(struct dsomap *m, strtab_id name, uint32_t obj)
{
	if (name < m->cap && m->of[name] == obj)
		return;
	dsomap_note_slow(m, name, obj);
}
/* The object of name: its path (*len bytes, raw input: sanitize before
 * display) and true; NULL with true when there were several; NULL with
 * false when none is known. */
const char *dsomap_get(const struct dsomap *m, strtab_id name, size_t *len, bool *known);
/* Notes src's names (ids in srcnames) in dst (ids in dstnames, which must
 * hold every name of srcnames), as if noted there: for a tree merged into
 * another. */
void dsomap_merge(struct dsomap *dst, const struct strtab *dstnames, const struct dsomap *src,
                  const struct strtab *srcnames);

#endif
