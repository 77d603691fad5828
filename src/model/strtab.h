/* strtab: interned frame names. Equal byte strings get the same id; ids are
 * dense (0, 1, 2, ...) in order of first appearance. Bytes are stored once,
 * NUL-terminated (names may also contain NULs: always use the length). */
#ifndef TFLAME_STRTAB_H
#define TFLAME_STRTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
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
/* Id of the name s[0..len); adds it when new. Names longer than 4 GiB die.
 * Inline: the recent-name cache's first way is where most names are
 * found (a sorted folded file interns most of its frames), and the call
 * cost as much as that look. */
static inline __attribute__((always_inline)) strtab_id strtab_intern(struct strtab *st, const char *s,
                                                                    size_t len);
/* strtab_intern past the first way of its set rc (key head, tail). */
strtab_id strtab_intern_slow(struct strtab *st, const char *s, size_t len, uint64_t head, uint64_t tail,
                             struct strtab_recent *rc);
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

/* ---- strtab_intern's inline part */

static inline uint64_t strtab_load8(const char *s)
{
	uint64_t w;
	memcpy(&w, s, 8);
	return w;
}

/* memcmp(a, b, n) == 0 inline: most names are short, and a call costs
 * as much as comparing them. From 8 bytes on, the last word overlaps the
 * one before rather than ending in a loop of bytes. */
static inline bool strtab_same_bytes(const char *a, const char *b, size_t n)
{
	if (n >= 8) {
		for (size_t i = 0; i + 8 < n; i += 8)
			if (strtab_load8(a + i) != strtab_load8(b + i))
				return false;
		return strtab_load8(a + n - 8) == strtab_load8(b + n - 8);
	}
	while (n--)
		if (*a++ != *b++)
			return false;
	return true;
}

/* The key of s in the recent-name cache: its first and last 8 bytes
 * (overlapping when shorter than 16; 4 and 4 below 8; the first, middle
 * and last byte below 4), which with the length are all of a name of 16
 * bytes or fewer. Read without a loop, and never past s + len. */
static inline void strtab_recent_key(const char *s, size_t len, uint64_t *head, uint64_t *tail)
{
	if (len >= 8) {
		*head = strtab_load8(s);
		*tail = strtab_load8(s + len - 8);
	} else if (len >= 4) {
		uint32_t x, y;
		memcpy(&x, s, 4);
		memcpy(&y, s + len - 4, 4);
		*head = x;
		*tail = y;
	} else {
		*head = len ? (unsigned char)s[0] | (uint64_t)(unsigned char)s[len / 2] << 8 |
		              (uint64_t)(unsigned char)s[len - 1] << 16
		            : 0;
		*tail = 0;
	}
}

/* The first of the two slots (ways) where s may be: the newer first. */
static inline size_t strtab_recent_set(uint64_t head, uint64_t tail, size_t len)
{
	uint64_t h = (head ^ (tail * 0x9e3779b97f4a7c15ULL) ^ len) * 0xbf58476d1ce4e5b9ULL;
	return (size_t)(h >> 40) & (STRTAB_RECENT - 2);
}

/* Whether slot rc holds s, whose key is head, tail: the key is all of a
 * name of 16 bytes or fewer, else the bytes between its ends are compared
 * too. */
static inline bool strtab_recent_is(const struct strtab_recent *rc, const char *s, size_t len, uint64_t head,
                                    uint64_t tail)
{
	return rc->id1 && rc->len == len && rc->head == head && rc->tail == tail &&
	       (len <= 16 || strtab_same_bytes(rc->s + 8, s + 8, len - 16));
}

static inline __attribute__((always_inline)) strtab_id strtab_intern(struct strtab *st, const char *s, size_t len)
{
	uint64_t head, tail;
	strtab_recent_key(s, len, &head, &tail);
	struct strtab_recent *rc = &st->recent[strtab_recent_set(head, tail, len)];
	if (strtab_recent_is(&rc[0], s, len, head, tail))
		return rc[0].id1 - 1;
	return strtab_intern_slow(st, s, len, head, tail, rc);
}

#endif
