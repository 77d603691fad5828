#include "config.h"
#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

struct arena_chunk {
	struct arena_chunk *prev;
	size_t size;                /* usable bytes after the header */
	_Alignas(16) char data[];
};

void arena_init(struct arena *a, size_t chunk_size)
{
	a->head = NULL;
	a->cur = a->end = NULL;
	a->chunk_size = chunk_size ? chunk_size : (size_t)1 << 20;
	a->bytes = 0;
}

void *arena_alloc(struct arena *a, size_t size, size_t align)
{
	uintptr_t p = ((uintptr_t)a->cur + (align - 1)) & ~(uintptr_t)(align - 1);
	if (size > SIZE_MAX / 2)
		xdie("out of memory");
	if (!a->cur || p > (uintptr_t)a->end || size > (uintptr_t)a->end - p) {
		/* Big requests get a chunk of their own so the rest is not wasted. */
		size_t want = size + align > a->chunk_size ? size + align : a->chunk_size;
		if (want > SIZE_MAX - sizeof(struct arena_chunk))
			xdie("out of memory");
		struct arena_chunk *c = xmalloc(sizeof *c + want);
		c->size = want;
		a->bytes += sizeof *c + want;
		if (a->head && want > a->chunk_size && a->cur) {
			/* Keep filling the current chunk: link the big one behind it. */
			c->prev = a->head->prev;
			a->head->prev = c;
			p = ((uintptr_t)c->data + (align - 1)) & ~(uintptr_t)(align - 1);
			return (void *)p;
		}
		c->prev = a->head;
		a->head = c;
		a->cur = c->data;
		a->end = c->data + want;
		p = ((uintptr_t)a->cur + (align - 1)) & ~(uintptr_t)(align - 1);
	}
	a->cur = (char *)(p + size);
	return (void *)p;
}

char *arena_memdup(struct arena *a, const char *s, size_t len)
{
	char *d = arena_alloc(a, len + 1, 1);
	if (len)
		memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

void arena_free(struct arena *a)
{
	struct arena_chunk *c = a->head;
	while (c) {
		struct arena_chunk *prev = c->prev;
		free(c);
		c = prev;
	}
	arena_init(a, a->chunk_size);
}

size_t arena_bytes(const struct arena *a)
{
	return a->bytes;
}
