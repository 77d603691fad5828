#include "config.h"
#include "dsomap.h"

#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

void dsomap_init(struct dsomap *m)
{
	memset(m, 0, sizeof *m);
	strtab_init(&m->paths);
}

void dsomap_free(struct dsomap *m)
{
	free(m->of);
	strtab_free(&m->paths);
	memset(m, 0, sizeof *m);
}

uint32_t dsomap_object(struct dsomap *m, const char *path, size_t len)
{
	if (len == 0 || (len == 9 && memcmp(path, "[unknown]", 9) == 0))
		return DSOMAP_NONE;
	if (m->last && len == m->last_len && memcmp(path, m->last, len) == 0)
		return m->last_id;
	strtab_id id = strtab_intern(&m->paths, path, len);
	m->last = strtab_str(&m->paths, id);
	m->last_len = len;
	m->last_id = id + 1;
	return id + 1;
}

void dsomap_note_slow(struct dsomap *m, strtab_id name, uint32_t obj)
{
	if (obj == DSOMAP_NONE)
		return;
	void *of = m->of;
	xgrow_zeroed(&of, &m->cap, name, sizeof *m->of);
	m->of = of;
	uint32_t *p = &m->of[name];
	if (*p == DSOMAP_NONE)
		*p = obj;
	else if (*p != obj)
		*p = DSOMAP_SEVERAL;
}

const char *dsomap_get(const struct dsomap *m, strtab_id name, size_t *len, bool *known)
{
	uint32_t v = name < m->cap ? m->of[name] : DSOMAP_NONE;
	*known = v != DSOMAP_NONE;
	*len = 0;
	if (v == DSOMAP_NONE || v == DSOMAP_SEVERAL)
		return NULL;
	*len = strtab_len(&m->paths, v - 1);
	return strtab_str(&m->paths, v - 1);
}

void dsomap_merge(struct dsomap *dst, const struct strtab *dstnames, const struct dsomap *src,
                  const struct strtab *srcnames)
{
	size_t n = src->cap < strtab_count(srcnames) ? src->cap : strtab_count(srcnames);
	for (size_t k = 0; k < n; k++) {
		uint32_t v = src->of[k];
		if (v == DSOMAP_NONE)
			continue;
		int64_t id = strtab_find(dstnames, strtab_str(srcnames, (strtab_id)k), strtab_len(srcnames, (strtab_id)k));
		if (id < 0)
			continue;
		if (v == DSOMAP_SEVERAL) {
			dsomap_note(dst, (strtab_id)id, DSOMAP_SEVERAL);
			/* a first note of SEVERAL stores it as is */
			continue;
		}
		const char *p = strtab_str(&src->paths, v - 1);
		dsomap_note(dst, (strtab_id)id, dsomap_object(dst, p, strtab_len(&src->paths, v - 1)));
	}
}
