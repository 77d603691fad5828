/* strtab: interned frame names. Equal byte strings get the same id; ids are
 * dense (0, 1, 2, ...) in order of first appearance. Bytes are stored once,
 * NUL-terminated (names may also contain NULs: always use the length). */
#ifndef TFLAME_STRTAB_H
#define TFLAME_STRTAB_H

#include <stddef.h>
#include <stdint.h>
#include "arena.h"

typedef uint32_t strtab_id;

/* Slots of the recent-name cache (a power of two), two ways a set. */
#define STRTAB_RECENT 8192u

struct strtab_entry {
	const char *s;      /* NUL-terminated copy in the arena */
	uint32_t len;       /* bytes, without the NUL */
};

/* A slot of the recent-name cache: enough of the name to tell a match
 * without reading the entry (names of 16 bytes or fewer: nor the bytes). */
struct strtab_recent {
	uint64_t head, tail;        /* the name's first and last 8 bytes (see
	                               strtab.c: recent_key) */
	const char *s;              /* the entry's bytes */
	uint32_t len;
	uint32_t id1;               /* id + 1; 0: empty */
};

/* A slot of the hash table: a lookup reads the slot, then the name's
 * length and bytes, not its entry in between. */
struct strtab_slot {
	const char *s;              /* the entry's bytes; their length is the
	                               uint32_t just before them */
	uint32_t h32;               /* the name's hash */
	uint32_t id1;               /* id + 1; 0: empty */
};

struct strtab {
	struct strtab_entry *ent;   /* indexed by id */
	int32_t *width;             /* display width cache by id, -1 until set; a
	                               cache, so it may be filled through a const
	                               strtab */
	size_t n, cap;
	struct strtab_slot *slots;  /* open addressing */
	size_t nslots;              /* power of two */
	void *recent_mem;           /* holds `recent`, aligned to 64 bytes */
	struct strtab_recent *recent;   /* STRTAB_RECENT slots, by a key from
	                               a name's length and ends: frequent
	                               names skip the hash, the probe and
	                               the entry */
	struct arena mem;
};

void strtab_init(struct strtab *st);
void strtab_free(struct strtab *st);
/* Id of the name s[0..len); adds it when new. Names longer than 4 GiB die. */
strtab_id strtab_intern(struct strtab *st, const char *s, size_t len);
/* Id of s if present, else -1 (as int64_t). Never adds. */
int64_t strtab_find(const struct strtab *st, const char *s, size_t len);

static inline size_t strtab_count(const struct strtab *st) { return st->n; }
static inline const char *strtab_str(const struct strtab *st, strtab_id id) { return st->ent[id].s; }
static inline uint32_t strtab_len(const struct strtab *st, strtab_id id) { return st->ent[id].len; }
/* Display width cache, filled by whoever measures names (text module users). */
static inline int32_t strtab_width(const struct strtab *st, strtab_id id) { return st->width[id]; }
static inline void strtab_set_width(const struct strtab *st, strtab_id id, int32_t w) { st->width[id] = w; }
/* Memory held: entries, hash slots, string bytes. */
size_t strtab_bytes(const struct strtab *st);
/* The hash used for names (exposed for other tables keyed by bytes). */
uint64_t strtab_hash(const char *s, size_t len);

#endif
