/* pprof_pre: a profile's samples counted by stack while the rest of the
 * message still arrives (see pprof_int.h: struct pp_pre). */
#include "config.h"
#include "pprof_int.h"

#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

/* An entry: the summed value and number of its samples, its hash, its key
 * (packed location ids) after it; 8-byte aligned, one after another in
 * order of first appearance. */
struct pre_e {
	uint64_t count;
	uint64_t hash;
	uint32_t nsamp;
	uint32_t len;
	unsigned char key[];
};

static size_t pre_size(size_t len)
{
	return (offsetof(struct pre_e, key) + len + 7) & ~(size_t)7;
}

void pp_pre_init(struct pp_pre *p, bool on)
{
	memset(p, 0, sizeof *p);
	p->on = on;
}

static void tab_free(struct pp_pre_tab *t)
{
	free(t->mem);
	free(t->slots);
	memset(t, 0, sizeof *t);
}

void pp_pre_free(struct pp_pre *p)
{
	tab_free(&p->tab);
	tab_free(&p->zero);
	free(p->marks);
	p->marks = NULL;
	p->nmarks = p->capmarks = 0;
}

void pp_pre_free_slots(struct pp_pre *p)
{
	free(p->tab.slots);
	free(p->zero.slots);
	p->tab.slots = p->zero.slots = NULL;
	p->tab.mask = p->zero.mask = 0;
}

static void tab_place(struct pp_pre_tab *t, uint64_t slot)
{
	size_t j = (size_t)(slot >> 32) & t->mask;
	while (t->slots[j])
		j = (j + 1) & t->mask;
	t->slots[j] = slot;
}

/* Whether a[0..len) and b[0..len) are the same bytes: inline, a word at a
 * time (keys are short: memcmp's call cost what the compare did). */
static inline bool pre_same(const unsigned char *a, const unsigned char *b, size_t len)
{
	uint64_t x, y;
	for (; len >= 8; a += 8, b += 8, len -= 8) {
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		if (x != y)
			return false;
	}
	for (; len; a++, b++, len--)
		if (*a != *b)
			return false;
	return true;
}

/* The entry of key k[0..len) with hash h, or NULL; *full when the lookup
 * read more than PP_SEEN_PROBES slots (keys made to collide: the
 * samples are read later, where the cache gives up as fast). */
static struct pre_e *tab_find(struct pp_pre_tab *t, uint64_t h, const unsigned char *k, size_t len, bool *full)
{
	if (!t->slots)
		return NULL;
	uint64_t tag = h & 0xffffffff00000000ULL;
	unsigned probes = 0;
	for (size_t j = (size_t)(h >> 32) & t->mask; t->slots[j]; j = (j + 1) & t->mask) {
		if (++probes > PP_SEEN_PROBES) {
			*full = true;
			return NULL;
		}
		if ((t->slots[j] & 0xffffffff00000000ULL) != tag)
			continue;
		struct pre_e *e = (struct pre_e *)(t->mem + ((t->slots[j] & 0xffffffff) - 1) * 8);
		if (e->hash == h && e->len == len && pre_same(e->key, k, len))
			return e;
	}
	return NULL;
}

/* Whether k[0..len) is well-formed varints. A varint is not when it is
 * cut (the last byte has its high bit) or longer than 9 bytes with high
 * bits: only those runs are read as varints. */
static bool key_ok(const unsigned char *k, size_t len)
{
	if (!len)
		return true;
	if (k[len - 1] >= 0x80)
		return false;
	unsigned run = 0;
	for (size_t i = 0; i < len; i++) {
		run = k[i] >= 0x80 ? run + 1 : 0;
		if (run >= 9) {
			const unsigned char *p = k, *end = k + len;
			uint64_t v;
			while (p < end)
				if (pb_varint(&p, end, &v) != PB_OK)
					return false;
			return true;
		}
	}
	return true;
}

/* A new entry; false when the table is full. Its key is checked while it
 * is in the cache (*bad set when malformed): later, all of them cost 2.5%
 * of make bench's .gz load. */
static bool tab_insert(struct pp_pre_tab *t, uint64_t h, const unsigned char *k, size_t len, uint64_t value,
                       bool *bad)
{
	size_t size = pre_size(len);
	if (t->n >= PP_SEEN_MAX || len >= PP_SEEN_FILL || (t->nmem + size) / 8 >= UINT32_MAX)
		return false;
	if (!t->slots || (t->n + 1) * 8 > (t->mask + 1) * 3) {     /* 3 in 8 filled at most */
		uint64_t *old = t->slots;
		size_t nold = old ? t->mask + 1 : 0, nnew = nold ? nold * 2 : 4096;
		t->slots = xcalloc(nnew, sizeof *t->slots);
		t->mask = nnew - 1;
		for (size_t i = 0; i < nold; i++)
			if (old[i])
				tab_place(t, old[i]);
		free(old);
	}
	t->mem = pp_grow(t->mem, &t->capmem, t->nmem + size, 1);
	struct pre_e *e = (struct pre_e *)(t->mem + t->nmem);
	e->count = value;
	e->hash = h;
	e->nsamp = 1;
	e->len = (uint32_t)len;
	memcpy(e->key, k, len);
	if (!key_ok(k, len))
		*bad = true;
	tab_place(t, (h & 0xffffffff00000000ULL) | (t->nmem / 8 + 1));
	t->nmem += size;
	t->n++;
	return true;
}

/* A sample read, to be counted: its key, value and hash, and where its
 * field starts and ends. */
struct pre_s {
	const unsigned char *key;
	size_t len;
	uint64_t value, hash;
	size_t at, end;
};

/* Reads Sample message data[0..len) into *o as do_sample (pprof.c) reads
 * it, when it can be counted without the rest of the message: its
 * locations in one packed field, its value of type p->vi above 0, nothing
 * malformed but perhaps the location ids (pp_pre_keys_ok checks them). */
static bool pre_parse(const struct pp_pre *p, const unsigned char *data, size_t len, struct pre_s *o)
{
	struct pb c = { data, data + len };
	struct pb_field g;
	struct pb_rep rep;
	size_t nv = 0;
	unsigned nloc = 0;
	uint64_t v;
	int r;
	o->key = NULL;
	o->value = 0;
	/* the common layout first: one packed run of location ids of fewer
	 * than 128 bytes, then one of values, and nothing else */
	if (len >= 4 && data[0] == (1 << 3 | WT_LEN) && data[1] < 0x80 && (size_t)data[1] + 4 <= len &&
	    data[2 + data[1]] == (2 << 3 | WT_LEN) && data[3 + data[1]] < 0x80 &&
	    (size_t)data[1] + 4 + data[3 + data[1]] == len) {
		const unsigned char *q = data + 4 + data[1], *end = data + len;
		while (q < end) {
			if (pb_varint(&q, end, &v) != PB_OK)
				return false;
			if (nv++ == p->vi)
				o->value = v;
		}
		o->key = data + 2;
		o->len = data[1];
		goto counted;
	}
	while ((r = pb_next(&c, &g)) > 0) {
		if (g.num == 1 && (g.wt == WT_VARINT || g.wt == WT_LEN)) {
			if (nloc++ || g.wt != WT_LEN)
				return false;
			o->key = g.data;
			o->len = g.len;
		} else if (g.num == 2 && pb_rep_init(&rep, &g)) {
			while ((r = pb_rep_next(&rep, &v)) > 0)
				if (nv++ == p->vi)
					o->value = v;
			if (r < 0)
				return false;
		}
	}
	if (r < 0)
		return false;
counted:
	if (!o->key || nv <= p->vi || (int64_t)o->value < 0)
		return false;
	o->hash = pp_key_hash(o->key, o->len, 0);
	const struct pp_pre_tab *t = o->value ? &p->tab : &p->zero;
	if (t->slots)
		__builtin_prefetch(&t->slots[(size_t)(o->hash >> 32) & t->mask]);
	return true;
}

/* The entry its slot names for hash h, into the cache (a hint). */
static inline __attribute__((always_inline)) void pre_fetch(const struct pp_pre_tab *t, uint64_t h)
{
	if (!t->slots)
		return;
	uint64_t tag = h & 0xffffffff00000000ULL;
	size_t j = (size_t)(h >> 32) & t->mask;
	for (int k = 0; k < 4 && t->slots[j]; k++, j = (j + 1) & t->mask)
		if ((t->slots[j] & 0xffffffff00000000ULL) == tag) {
			__builtin_prefetch(t->mem + ((t->slots[j] & 0xffffffff) - 1) * 8);
			return;
		}
}

/* Counts sample o; false when it cannot (a sum beyond 64 bits, the table
 * full): the samples from this one on are read later. */
static bool pre_count(struct pp_pre *p, const struct pre_s *o)
{
	struct pp_pre_tab *t = o->value ? &p->tab : &p->zero;
	bool full = false;
	struct pre_e *e = tab_find(t, o->hash, o->key, o->len, &full);
	if (full)
		return false;
	if (e) {
		if (e->count + o->value < o->value || e->nsamp == UINT32_MAX)
			return false;
		e->count += o->value;
		e->nsamp++;
	} else if (!tab_insert(t, o->hash, o->key, o->len, o->value, &p->bad_key)) {
		return false;
	}
	if (p->fields % PP_MARK == 0)
		*VEC_PUSH(p->marks, p->nmarks, p->capmarks) = o->at;
	if (++p->fields <= PP_PARTS_PROBE) {
		/* (repeats as repeats_often counts them: zero values too) */
		p->again += e != NULL || (o->value && tab_find(&p->zero, o->hash, o->key, o->len, &full)) ||
		            (!o->value && tab_find(&p->tab, o->hash, o->key, o->len, &full));
		/* few repeats: the samples will be read in parts, which this
		 * cannot help (see pprof.c's repeats_often) */
		if (p->fields == PP_PARTS_PROBE && p->again * 4 < (uint64_t)PP_PARTS_PROBE * 3) {
			p->at = o->end;
			p->failed = true;
			tab_free(&p->tab);
			tab_free(&p->zero);
			return false;
		}
	}
	p->at = o->end;
	return true;
}

/* Samples are read PRE_AHEAD before they are counted, so that their
 * lookups' misses overlap (as pprof.c's pass 2 does). */
#define PRE_AHEAD 16

/* Few repeats: the rest of the samples' run only framed, as pass 1 would
 * frame it (it then skips it), while the input arrives. */
static void pre_walk(struct pp_pre *p, const unsigned char *buf, size_t len)
{
	struct pb c = { buf + p->at, buf + len };
	struct pb_field f;
	while (p->on) {
		const unsigned char *at = c.p;
		if (pb_next(&c, &f) <= 0)
			break;
		if (f.num != 2 || f.wt != WT_LEN) {
			p->on = false;
			break;
		}
		if (p->fields % PP_MARK == 0)
			*VEC_PUSH(p->marks, p->nmarks, p->capmarks) = (size_t)(at - buf);
		p->fields++;
		p->at = (size_t)(c.p - buf);
	}
}

static void pre_take(struct pp_pre *p, const unsigned char *buf, size_t len)
{
	struct pb c = { buf + p->at, buf + len };
	struct pb_field f;
	struct pre_s ring[PRE_AHEAD];
	size_t head = 0, n = 0;
	bool more = p->on;
	bool stop = false;      /* met what it cannot take: stops at p->at,
	                           once those before it are counted */
	while (more || n) {
		while (more && n < PRE_AHEAD) {
			const unsigned char *at = c.p;
			/* the end, a field not all there yet, or one that does not
			 * parse (pass 1 will say so): wait for more */
			if (pb_next(&c, &f) <= 0) {
				more = false;
				break;
			}
			if (f.num == 2 && f.wt == WT_LEN) {
				if (!p->fields && !n) {
					if (!p->nvt) {
						more = p->on = false;
						break;
					}
					p->vi = p->nvt - 1;    /* a guess, checked after */
					p->first = (size_t)(at - buf);
				}
				struct pre_s *o = &ring[(head + n) % PRE_AHEAD];
				if (!pre_parse(p, f.data, f.len, o)) {
					more = false;       /* those before it first */
					stop = true;
					break;
				}
				o->at = (size_t)(at - buf);
				o->end = (size_t)(c.p - buf);
				n++;
				if (n > PRE_AHEAD / 2) {
					const struct pre_s *q = &ring[(head + n - 1 - PRE_AHEAD / 2) % PRE_AHEAD];
					pre_fetch(q->value ? &p->tab : &p->zero, q->hash);
				}
			} else if (p->fields || n) {
				more = false;   /* the samples' run ends: the rest later */
				stop = true;
				break;
			} else {
				if (f.num == 1 && f.wt == WT_LEN)
					p->nvt++;
				p->at = (size_t)(c.p - buf);
			}
		}
		if (!n)
			break;
		if (!pre_count(p, &ring[head])) {
			if (!p->failed)
				p->on = false;
			return;
		}
		head = (head + 1) % PRE_AHEAD;
		n--;
	}
	if (stop)
		p->on = false;
}

void pp_pre_step(struct pp_pre *p, const unsigned char *buf, size_t len)
{
	if (p->on && !p->failed)
		pre_take(p, buf, len);
	if (p->on && p->failed)
		pre_walk(p, buf, len);
}

bool pp_pre_keys_ok(const struct pp_pre *p)
{
	return !p->bad_key;
}

size_t pp_pre_next(const struct pp_pre_tab *t, size_t i, struct pp_pre_entry *out)
{
	if (i >= t->nmem)
		return 0;
	const struct pre_e *e = (const struct pre_e *)(t->mem + i);
	out->key = e->key;
	out->len = e->len;
	out->hash = e->hash;
	out->count = e->count;
	out->nsamp = e->nsamp;
	return i + pre_size(e->len);
}
