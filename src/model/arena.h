/* arena: chunked bump allocator. Everything allocated from an arena is freed
 * at once by arena_free; individual blocks are never freed. Pointers stay
 * valid until then (chunks never move). */
#ifndef TFLAME_ARENA_H
#define TFLAME_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
	struct arena_chunk *head;   /* newest chunk, linked to older ones */
	char *cur, *end;            /* free space in head */
	size_t chunk_size;          /* default size of a new chunk */
	size_t bytes;               /* total bytes obtained from malloc */
};

/* chunk_size 0 picks a default (1 MiB). */
void arena_init(struct arena *a, size_t chunk_size);
/* size bytes aligned to align (a power of two <= 16); dies on OOM. */
void *arena_alloc(struct arena *a, size_t size, size_t align);
/* Copies len bytes and appends a NUL; s may contain NULs. */
char *arena_memdup(struct arena *a, const char *s, size_t len);
/* Releases every chunk; the arena is then empty and may be reused. */
void arena_free(struct arena *a);
/* Bytes obtained from the system (for memory reports). */
size_t arena_bytes(const struct arena *a);

#endif
