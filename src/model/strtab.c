#include "config.h"
#include "strtab.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

#define EMPTY 0u

uint64_t strtab_hash(const char *s, size_t len)
{
	/* Word-at-a-time multiply/xorshift; quality is plenty for a table. */
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)len;
	while (len >= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 29;
		s += 8;
		len -= 8;
	}
	if (len) {
		uint64_t w = 0;
		memcpy(&w, s, len);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 29;
	}
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ULL;
	h ^= h >> 32;
	return h;
}

void strtab_init(struct strtab *st)
{
	st->ent = NULL;
	st->width = NULL;
	st->n = st->cap = 0;
	st->nslots = 1024;
	st->slots = xcalloc(st->nslots, sizeof *st->slots);
	/* Each pair of ways in one cache line. */
	st->recent_mem = xcalloc(STRTAB_RECENT * sizeof *st->recent + 63, 1);
	st->recent = (struct strtab_recent *)(((uintptr_t)st->recent_mem + 63) & ~(uintptr_t)63);
	arena_init(&st->mem, 0);
}

void strtab_free(struct strtab *st)
{
	free(st->ent);
	free(st->width);
	free(st->slots);
	free(st->recent_mem);
	st->recent_mem = NULL;
	st->recent = NULL;
	arena_free(&st->mem);
	st->ent = NULL;
	st->width = NULL;
	st->slots = NULL;
	st->n = st->cap = st->nslots = 0;
}

static void grow_slots(struct strtab *st)
{
	size_t n = st->nslots * 2, mask = n - 1;
	struct strtab_slot *slots = xcalloc(n, sizeof *slots);
	for (size_t i = 0; i < st->nslots; i++) {
		if (st->slots[i].id1 == EMPTY)
			continue;
		size_t j = st->slots[i].h32 & mask;
		while (slots[j].id1 != EMPTY)
			j = (j + 1) & mask;
		slots[j] = st->slots[i];
	}
	free(st->slots);
	st->slots = slots;
	st->nslots = n;
}

/* Slot holding s, or the empty slot where it belongs. */
static size_t probe(const struct strtab *st, const char *s, size_t len, uint32_t h32)
{
	size_t mask = st->nslots - 1, j = h32 & mask;
	for (;;) {
		const struct strtab_slot *sl = &st->slots[j];
		if (sl->id1 == EMPTY)
			return j;
		if (sl->h32 == h32) {
			uint32_t l;
			memcpy(&l, sl->s - 4, 4);
			if (l == len && strtab_same_bytes(sl->s, s, len))
				return j;
		}
		j = (j + 1) & mask;
	}
}

int64_t strtab_find(const struct strtab *st, const char *s, size_t len)
{
	uint32_t h32 = (uint32_t)strtab_hash(s, len);
	uint32_t id1 = st->slots[probe(st, s, len, h32)].id1;
	return id1 == EMPTY ? -1 : (int64_t)id1 - 1;
}

strtab_id strtab_intern_slow(struct strtab *st, const char *s, size_t len, uint64_t head, uint64_t tail,
                             struct strtab_recent *rc)
{
	if (strtab_recent_is(&rc[1], s, len, head, tail)) {
		struct strtab_recent x = rc[1];     /* the newer way */
		rc[1] = rc[0];
		rc[0] = x;
		return x.id1 - 1;
	}
	uint32_t h32 = (uint32_t)strtab_hash(s, len);
	size_t j = probe(st, s, len, h32);
	strtab_id id;
	if (st->slots[j].id1 != EMPTY) {
		id = st->slots[j].id1 - 1;
	} else {
		if (len > UINT32_MAX || st->n >= UINT32_MAX - 1)
			xdie("too many or too long frame names");
		if (st->n == st->cap) {
			st->cap = st->cap ? st->cap * 2 : 1024;
			st->ent = xreallocarray(st->ent, st->cap, sizeof *st->ent);
			st->width = xreallocarray(st->width, st->cap, sizeof *st->width);
		}
		id = (strtab_id)st->n++;
		/* The length, then the bytes and a NUL. */
		char *d = arena_alloc(&st->mem, len + 5, 1);
		uint32_t l = (uint32_t)len;
		memcpy(d, &l, 4);
		if (len)
			memcpy(d + 4, s, len);
		d[4 + len] = '\0';
		st->ent[id].s = d + 4;
		st->ent[id].len = l;
		st->width[id] = -1;
		st->slots[j] = (struct strtab_slot){ d + 4, h32, id + 1u };
		if (st->n * 10 > st->nslots * 7)
			grow_slots(st);
	}
	rc[1] = rc[0];
	rc[0] = (struct strtab_recent){ head, tail, st->ent[id].s, (uint32_t)len, id + 1u };
	return id;
}

size_t strtab_bytes(const struct strtab *st)
{
	return st->cap * (sizeof *st->ent + sizeof *st->width) + st->nslots * sizeof *st->slots +
	       STRTAB_RECENT * sizeof *st->recent + 63 + arena_bytes(&st->mem);
}
