/* pprof: profile.proto (github.com/google/pprof, proto/profile.proto; its
 * field numbers and comments were read for the rules, no code comes from
 * there) to stacks.
 *
 * The protobuf wire format is read here directly, lazily: no message is
 * unpacked into structs. Fields refer to each other by id and the string
 * table usually comes last, so the message is held whole (in place when
 * the file is mapped) and read twice:
 *   1. index: sample types, strings (pointer and length), functions and
 *      mappings (small structs), locations (id and where their bytes are),
 *      each kind with an id map (a direct array for ids up to the count,
 *      the common case of ids that are indices, a hash for the rest);
 *      where the samples are. Then every location is resolved to its
 *      frames, in file order (sequential reads; see resolve_all).
 *   2. samples: each sample's location ids (leaf first) are looked up and
 *      its stack handed to the tree root first, as names interned once per
 *      frame and tree; the frames it shares with the previous stack are
 *      not looked up again. A stack already seen (same bytes, label root
 *      and tree) is only counted, and every stack goes to the tree once at
 *      the end, in order of first appearance (see seen_find).
 * What the messages count (dangling references, malformed locations, ...)
 * is counted per sample as the samples reach it, whatever was cached.
 * Framing errors (a tag, length or varint that does not fit) anywhere that
 * pass 1 reads make the profile unreadable before anything is added; a
 * sample or location whose own contents are malformed is skipped and
 * counted. */
#include "config.h"
#include "pprof.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "arena.h"
#include "text.h"
#include "xalloc.h"

/* Inlined lines kept per location (the outermost ones: they connect to
 * the caller), and frames per stack (the root side is kept). Both bound
 * the frames one input byte can produce. */
#define PP_MAX_LINES 128
#define PP_MAX_FRAMES ((size_t)1 << 20)
/* Entries of one kind (strings, locations, ...): indices stay 32-bit. */
#define PP_MAX_ENTRIES ((size_t)UINT32_MAX - 1)
#define PP_NONE UINT32_MAX
#define PP_PROGRESS_STEP ((size_t)16 << 20)

/* ---- the wire format ------------------------------------------------------ */

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_SGROUP = 3, WT_EGROUP = 4, WT_I32 = 5 };

enum pb_err { PB_OK, PB_CUT, PB_VARINT, PB_GROUP, PB_WIRETYPE, PB_FIELD };

static const char *pb_why(enum pb_err e)
{
	switch (e) {
	case PB_CUT: return "a field runs past the end of its message";
	case PB_VARINT: return "a varint longer than 10 bytes or beyond 64 bits";
	case PB_GROUP: return "a group (wire types 3 and 4 are not used by profile.proto)";
	case PB_WIRETYPE: return "an invalid wire type (6 or 7)";
	case PB_FIELD: return "an invalid field number";
	default: return "no error";
	}
}

struct pb {
	const unsigned char *p, *end;
};

struct pb_field {
	uint32_t num;
	unsigned wt;
	uint64_t v;                 /* VARINT, I64, I32: the value */
	const unsigned char *data;  /* LEN: the bytes */
	size_t len;
};

static enum pb_err pb_varint_long(const unsigned char **pp, const unsigned char *end, uint64_t *out);

/* Reads a varint at *pp (< end). At most 10 bytes, the 10th at most 1. */
static inline enum pb_err pb_varint(const unsigned char **pp, const unsigned char *end, uint64_t *out)
{
	const unsigned char *p = *pp;
	if (p < end && *p < 0x80) {     /* most are one byte */
		*out = *p;
		*pp = p + 1;
		return PB_OK;
	}
	return pb_varint_long(pp, end, out);
}

static enum pb_err pb_varint_long(const unsigned char **pp, const unsigned char *end, uint64_t *out)
{
	const unsigned char *p = *pp;
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 70; shift += 7) {
		if (p >= end)
			return PB_CUT;
		unsigned b = *p++;
		if (shift == 63 && b > 1)
			return PB_VARINT;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (b < 0x80) {
			*out = v;
			*pp = p;
			return PB_OK;
		}
	}
	return PB_VARINT;
}

/* The next field of c into f: 1, 0 at the end, or -(enum pb_err). */
static int pb_next(struct pb *c, struct pb_field *f)
{
	if (c->p >= c->end)
		return 0;
	uint64_t tag, n;
	enum pb_err e = pb_varint(&c->p, c->end, &tag);
	if (e)
		return -(int)e;
	if (tag >> 3 == 0 || tag >> 3 > 0x1fffffff)
		return -PB_FIELD;
	f->num = (uint32_t)(tag >> 3);
	f->wt = (unsigned)(tag & 7);
	switch (f->wt) {
	case WT_VARINT:
		return (e = pb_varint(&c->p, c->end, &f->v)) ? -(int)e : 1;
	case WT_I64:
	case WT_I32:
		n = f->wt == WT_I64 ? 8 : 4;
		if ((size_t)(c->end - c->p) < n)
			return -PB_CUT;
		f->v = 0;
		for (unsigned i = 0; i < n; i++)
			f->v |= (uint64_t)c->p[i] << (8 * i);
		c->p += n;
		return 1;
	case WT_LEN:
		if ((e = pb_varint(&c->p, c->end, &n)))
			return -(int)e;
		if (n > (uint64_t)(c->end - c->p))
			return -PB_CUT;
		f->data = c->p;
		f->len = (size_t)n;
		c->p += n;
		return 1;
	case WT_SGROUP:
	case WT_EGROUP:
		return -PB_GROUP;
	default:
		return -PB_WIRETYPE;
	}
}

/* A repeated scalar field, packed (LEN) or not (VARINT): its values one at
 * a time. */
struct pb_rep {
	struct pb c;
	uint64_t one;
	int left;       /* unpacked: 1 before the value is taken */
};

static bool pb_rep_init(struct pb_rep *r, const struct pb_field *f)
{
	r->left = 0;
	r->c.p = r->c.end = NULL;
	if (f->wt == WT_VARINT) {
		r->one = f->v;
		r->left = 1;
		return true;
	}
	if (f->wt == WT_LEN) {
		r->c.p = f->data;
		r->c.end = f->data + f->len;
		return true;
	}
	return false;   /* another wire type: not this field as we know it */
}

/* 1 with *v, 0 at the end, -(enum pb_err) on a malformed packed run. */
static int pb_rep_next(struct pb_rep *r, uint64_t *v)
{
	if (r->left) {
		r->left = 0;
		*v = r->one;
		return 1;
	}
	if (r->c.p >= r->c.end)
		return 0;
	enum pb_err e = pb_varint(&r->c.p, r->c.end, v);
	return e ? -(int)e : 1;
}

/* ---- sniffing --------------------------------------------------------------- */

enum pm { PM_PROFILE, PM_VALUETYPE, PM_SAMPLE, PM_LABEL, PM_MAPPING, PM_LOCATION, PM_LINE,
	  PM_FUNCTION, PM_BYTES };

#define V (1u << WT_VARINT)
#define L (1u << WT_LEN)

/* Wire types allowed for field num of message m, and the message type of a
 * LEN field (PM_BYTES: not looked into). A field unknown to profile.proto
 * may have any valid wire type (newer writers add fields); every tag of one
 * byte (0x08-0x7f: all of ASCII) is of a known field, which is what keeps
 * text out. */
#define ANY ((1u << WT_VARINT) | (1u << WT_I64) | (1u << WT_LEN) | (1u << WT_I32))
static unsigned pm_field(enum pm m, uint32_t num, enum pm *sub)
{
	*sub = PM_BYTES;
	switch (m) {
	case PM_PROFILE:
		switch (num) {
		case 1: case 11: *sub = PM_VALUETYPE; return L;
		case 2: *sub = PM_SAMPLE; return L;
		case 3: *sub = PM_MAPPING; return L;
		case 4: *sub = PM_LOCATION; return L;
		case 5: *sub = PM_FUNCTION; return L;
		case 6: case 16: return L;
		case 13: return V | L;
		case 7: case 8: case 9: case 10: case 12: case 14: case 15: return V;
		}
		return ANY;
	case PM_VALUETYPE:
		return num <= 2 ? V : ANY;
	case PM_SAMPLE:
		if (num == 1 || num == 2)
			return V | L;
		if (num == 3)
			*sub = PM_LABEL;
		return num == 3 || num == 4 ? L : ANY;
	case PM_LABEL:
		return num <= 4 ? V : ANY;
	case PM_MAPPING:
		return num <= 10 ? V : ANY;
	case PM_LOCATION:
		if (num == 4)
			*sub = PM_LINE;
		return num == 4 ? L : num <= 5 ? V : ANY;
	case PM_LINE:
		return num <= 3 ? V : ANY;
	case PM_FUNCTION:
		return num <= 5 ? V : ANY;
	default:
		return 0;
	}
}

#undef V
#undef L
#undef ANY

/* True when p[0..n) is a message m with known fields only; when cut, the
 * bytes stop somewhere inside it (the last field may be incomplete).
 * Recursion is bounded by the schema (at most three levels). *seen gets
 * the bits of the Profile's fields 1-6 met. */
static bool pm_valid(enum pm m, const unsigned char *p, size_t n, bool cut, unsigned *seen)
{
	struct pb c = { p, p + n };
	struct pb_field f;
	int r;
	enum pm sub;
	while ((r = pb_next(&c, &f)) > 0) {
		unsigned wts = pm_field(m, f.num, &sub);
		if (!(wts & (1u << f.wt)))
			return false;
		if (m == PM_PROFILE && f.num <= 6)
			*seen |= 1u << f.num;
		if (f.wt == WT_LEN && sub != PM_BYTES && !pm_valid(sub, f.data, f.len, false, seen))
			return false;
	}
	if (r == 0)
		return true;
	if (!cut || r != -PB_CUT)
		return false;
	/* the bytes end inside this field: check its tag and what there is */
	c.p = p;
	const unsigned char *last = p;
	while (pb_next(&c, &f) > 0)
		last = c.p;
	uint64_t tag;
	const unsigned char *q = last;
	enum pb_err e = pb_varint(&q, p + n, &tag);
	if (e != PB_OK)
		return e == PB_CUT;     /* cut inside the tag itself */
	uint32_t num = tag >> 3 > 0x1fffffff ? 0 : (uint32_t)(tag >> 3);
	unsigned wt = (unsigned)(tag & 7);
	unsigned wts = pm_field(m, num, &sub);
	if (!num || !(wts & (1u << wt)))
		return false;
	if (m == PM_PROFILE && num <= 6)
		*seen |= 1u << num;
	uint64_t len;
	if (wt == WT_LEN && (e = pb_varint(&q, p + n, &len)) != PB_OK)
		return e == PB_CUT;
	if (wt != WT_LEN || sub == PM_BYTES)
		return true;
	return pm_valid(sub, q, (size_t)(p + n - q), true, seen);
}

bool pprof_sniff(const unsigned char *buf, size_t len, bool eof)
{
	unsigned seen = 0;
	if (len < 2)
		return false;
	if (!pm_valid(PM_PROFILE, buf, len, !eof, &seen))
		return false;
	return (seen & 0x7e) != 0;
}

/* ---- the index (pass 1) ------------------------------------------------------ */

struct pp_str {
	const char *s;
	size_t len;
};

struct pp_func {
	uint64_t id;
	int64_t name, sys;
};

struct pp_map {
	uint64_t id, start, offset;
	int64_t file;
};

struct pp_loc {
	uint64_t id;
	const unsigned char *at;    /* the message's bytes */
	size_t len;
};

/* A location's frames (resolved before the samples are read, in file
 * order: the location messages are read sequentially, not at random as
 * samples name them). Frames are indices into pp.frm; most locations have
 * one, kept here, more are in pp.pool. */
struct pp_lf {
	uint32_t ref;               /* n == 1: the frame; else the first of
	                               its frames in pp.pool (root first) */
	uint32_t n;
	uint32_t issue;             /* 0, or 1 + its entry in pp.issues */
};

/* What resolving a location found wrong, counted when a sample first uses
 * it (the messages speak of what the samples reach, as when locations were
 * resolved on first use). */
struct pp_issue {
	uint32_t bad_refs, bad_strs;
	bool cut_lines;
	enum pb_err err;            /* malformed: its frame is [unknown] */
	const unsigned char *at;    /* its message */
};

struct pp_vt {
	int64_t type, unit;
};

/* ids → positions: direct for ids 1..n, open addressing for the rest. */
struct idmap {
	uint32_t *direct;           /* [id]: position + 1, 0 when none */
	size_t ndirect;
	uint64_t *keys;
	uint32_t *vals;             /* position + 1, 0 for an empty slot */
	size_t mask;
};

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

/* Builds the map of n ids (ids[i*stride], a uint64_t at the start of each
 * entry); the first of equal ids wins. */
static void idmap_build(struct idmap *m, const void *base, size_t n, size_t stride)
{
	memset(m, 0, sizeof *m);
	m->ndirect = n + 1;
	m->direct = xcalloc(m->ndirect, sizeof *m->direct);
	size_t big = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t id;
		memcpy(&id, (const char *)base + i * stride, sizeof id);
		if (id < m->ndirect) {
			if (!m->direct[id])
				m->direct[id] = (uint32_t)i + 1;
		} else {
			big++;
		}
	}
	if (!big)
		return;
	size_t cap = 16;
	while (cap < big * 2)
		cap *= 2;
	m->mask = cap - 1;
	m->keys = xmalloc(cap * sizeof *m->keys);
	m->vals = xcalloc(cap, sizeof *m->vals);
	for (size_t i = 0; i < n; i++) {
		uint64_t id;
		memcpy(&id, (const char *)base + i * stride, sizeof id);
		if (id < m->ndirect)
			continue;
		size_t h = (size_t)mix64(id) & m->mask;
		while (m->vals[h] && m->keys[h] != id)
			h = (h + 1) & m->mask;
		if (!m->vals[h]) {
			m->keys[h] = id;
			m->vals[h] = (uint32_t)i + 1;
		}
	}
}

static uint32_t idmap_get_hashed(const struct idmap *m, uint64_t id);

/* The position of id, or PP_NONE. */
static inline uint32_t idmap_get(const struct idmap *m, uint64_t id)
{
	if (id < m->ndirect)
		return m->direct[id] - 1;   /* 0 - 1 is PP_NONE */
	return idmap_get_hashed(m, id);
}

static uint32_t idmap_get_hashed(const struct idmap *m, uint64_t id)
{
	if (!m->vals)
		return PP_NONE;
	size_t h = (size_t)mix64(id) & m->mask;
	while (m->vals[h]) {
		if (m->keys[h] == id)
			return m->vals[h] - 1;
		h = (h + 1) & m->mask;
	}
	return PP_NONE;
}

static void idmap_free(struct idmap *m)
{
	free(m->direct);
	free(m->keys);
	free(m->vals);
}

/* A growable array of fixed-size entries. */
#define VEC_PUSH(arr, n, cap) \
	((n) == (cap) ? ((cap) = (cap) ? (cap) * 2 : 64, \
	                 (arr) = xreallocarray((arr), (cap), sizeof *(arr))) : (arr), &(arr)[(n)++])

/* The previous stack added to a tree (its names' ids, root first), for
 * prefix reuse. */
struct pp_prev {
	strtab_id *ids;     /* swapped with pp.ids */
	size_t n, cap;
	/* a flame chart merges a frame with the previous stack's only where
	 * their locations are the same: its locations (leaf first), and
	 * whether it was whole (not cut) */
	uint32_t *locs;
	size_t nlocs, capl;
	bool valid;
};

/* A label root frame's id in a tree (lab: see label_count; 0 empty). */
#define PP_LABC 64
struct pp_labc {
	int64_t v;
	strtab_id id;
	uint8_t lab;
};

/* A stack seen before (see seen_find), its key's bytes after it. */
struct pp_seen_e {
	uint64_t count;             /* its samples' count not added yet */
	int64_t lv;                 /* its label root (lab, lv: see label_count) */
	uint32_t len, bad_refs;     /* key bytes; dangling ids among them */
	uint8_t w, lab;             /* its tree: 0 t, 1 before */
	bool cut;                   /* cut at PP_MAX_FRAMES */
	unsigned char key[];        /* its packed location ids */
};

struct pp_seen {
	unsigned char *mem;         /* the entries one after another (in order
	                               of first appearance, 8-byte aligned) */
	size_t nmem, capmem;
	uint64_t *slots;            /* (hash's upper half << 32) | (entry's
	                               offset / 8 + 1): 8 bytes, not to touch
	                               the entries of other hashes */
	size_t mask, n;             /* n: entries */
	size_t added;               /* entries before this offset were added
	                               to the tree */
	uint64_t lookups, hits;     /* of the last SEEN_PROBE or fewer */
	bool off;                   /* few repeats: no more lookups */
};

struct pp {
	const char *name;
	reader_msg_fn *msg;
	void *msgarg;
	const struct pprof_options *o;
	const unsigned char *data;
	size_t size;

	struct pp_vt *vt;
	size_t nvt, capvt;
	struct pp_str *str;
	size_t nstr, capstr;
	struct pp_func *fn;
	size_t nfn, capfn;
	struct pp_map *map;
	size_t nmap, capmap;
	struct pp_loc *loc;
	size_t nloc, caploc;
	struct idmap fnid, mapid, locid;
	uint64_t nsamples;
	const unsigned char *samples_at, *samples_end;  /* from the first Sample
	                               field to the end of the last */
	bool too_many;              /* entries past PP_MAX_ENTRIES were dropped */
	int64_t default_type, period;
	struct pp_vt period_type;
	bool has_period_type;
	int64_t duration;

	/* pass 2 */
	struct tree *t;             /* the tree loaded (before: o->before) */
	struct tree_frame *frm;     /* frames: [nfn] the functions' names (len
	                               0: none), then [unknown] (unk) and the
	                               address frames of locations */
	size_t nfrm, capfrm;
	uint32_t unk;
	uint8_t *fbad;              /* [nfn]: references past the string table
	                               that reading the name counts */
	struct pp_lf *lf;           /* [nloc] */
	uint32_t *pool;             /* frames of locations with several */
	size_t npool, cappool;
	struct pp_issue *issues;
	size_t nissues, capissues;
	bool loc_identity;          /* location i has id i + 1 (Go's): no map */
	struct arena names;         /* names made here (addresses, copies) */
	uint64_t *lines;            /* scratch: function ids of a location */
	size_t caplines;
	uint32_t *slocs;            /* scratch: a sample's locations, leaf first */
	size_t capslocs;
	uint32_t *dslocs;           /* the same for seen_add */
	size_t capdslocs;
	strtab_id *ids;             /* scratch: a stack's names, root first */
	size_t capids;
	/* Each tree's (t, before) ids, interned on first use (PP_NONE: not
	 * yet): a name is hashed once, not per sample. */
	strtab_id *frid[2];         /* [nfrm] */
	uint32_t *lrec[2];          /* [nloc]: see LREC_REF; one memory
	                               access a frame, mostly */
	uint32_t *mids[2];          /* a number of frames, then their ids */
	size_t nmids[2], capmids[2];
	struct pp_labc labc[2][PP_LABC];
	char *labelbuf;
	size_t labelcap;
	struct pp_prev prev[2];     /* t, before */
	struct pp_seen seen;

	/* counts for the closing messages */
	uint64_t bad_refs, bad_strs, bad_samples, bad_entries, negative, cut_stacks, cut_lines;
	uint64_t no_label, first_bad_sample, first_bad_entry;
	const char *why_sample, *why_entry;
	char why_sample_buf[96];
};

static void pp_msg(struct pp *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void pp_msg(struct pp *d, const char *fmt, ...)
{
	char buf[640];
	int k = snprintf(buf, sizeof buf, "tflame: %s: ", d->name);
	if (k < 0 || (size_t)k >= sizeof buf)
		k = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + k, sizeof buf - (size_t)k, fmt, ap);
	va_end(ap);
	d->msg(d->msgarg, buf);
}

static uint64_t pp_off(const struct pp *d, const unsigned char *p)
{
	return (uint64_t)(p - d->data);
}

static void bad_entry(struct pp *d, const unsigned char *at, const char *why)
{
	if (!d->bad_entries++) {
		d->first_bad_entry = pp_off(d, at);
		d->why_entry = why;
	}
}

static void bad_sample(struct pp *d, const unsigned char *at, const char *why)
{
	if (!d->bad_samples++) {
		d->first_bad_sample = pp_off(d, at);
		d->why_sample = why;
	}
}

/* String i of the table; "" (counted) when there is none. */
static struct pp_str pp_string(struct pp *d, int64_t i)
{
	struct pp_str s = { "", 0 };
	if (i == 0)     /* "" by the format, even without a string table */
		return s;
	if (i > 0 && (uint64_t)i < d->nstr)
		return d->str[i];
	d->bad_strs++;
	return s;
}

/* One ValueType message. */
static bool read_vt(const struct pb_field *f, struct pp_vt *vt)
{
	struct pb c = { f->data, f->data + f->len };
	struct pb_field g;
	int r;
	vt->type = vt->unit = 0;
	while ((r = pb_next(&c, &g)) > 0)
		if (g.wt == WT_VARINT && (g.num == 1 || g.num == 2))
			*(g.num == 1 ? &vt->type : &vt->unit) = (int64_t)g.v;
	return r == 0;
}

/* Pass 1 over a Mapping, Function or Location message. */
static void index_entry(struct pp *d, const struct pb_field *f)
{
	struct pb c = { f->data, f->data + f->len };
	struct pb_field g;
	int r;
	if (f->num == 3) {
		struct pp_map m = { 0 };
		while ((r = pb_next(&c, &g)) > 0) {
			if (g.wt != WT_VARINT)
				continue;
			switch (g.num) {
			case 1: m.id = g.v; break;
			case 2: m.start = g.v; break;
			case 4: m.offset = g.v; break;
			case 5: m.file = (int64_t)g.v; break;
			}
		}
		if (r < 0)
			bad_entry(d, f->data, pb_why((enum pb_err)-r));
		else if (d->nmap < PP_MAX_ENTRIES)
			*VEC_PUSH(d->map, d->nmap, d->capmap) = m;
		else
			d->too_many = true;
	} else if (f->num == 5) {
		struct pp_func fn = { 0 };
		while ((r = pb_next(&c, &g)) > 0) {
			if (g.wt != WT_VARINT)
				continue;
			switch (g.num) {
			case 1: fn.id = g.v; break;
			case 2: fn.name = (int64_t)g.v; break;
			case 3: fn.sys = (int64_t)g.v; break;
			}
		}
		if (r < 0)
			bad_entry(d, f->data, pb_why((enum pb_err)-r));
		else if (d->nfn < PP_MAX_ENTRIES)
			*VEC_PUSH(d->fn, d->nfn, d->capfn) = fn;
		else
			d->too_many = true;
	} else {
		/* a location: its id now, the rest when a sample needs it */
		uint64_t id = 0;
		while ((r = pb_next(&c, &g)) > 0)
			if (g.num == 1 && g.wt == WT_VARINT)
				id = g.v;
		if (r < 0) {
			bad_entry(d, f->data, pb_why((enum pb_err)-r));
		} else if (d->nloc >= PP_MAX_ENTRIES) {
			d->too_many = true;
		} else {
			struct pp_loc *l = VEC_PUSH(d->loc, d->nloc, d->caploc);
			l->id = id;
			l->at = f->data;
			l->len = f->len;
		}
	}
}

/* Pass 1. False (with a message) when the message cannot be framed. */
static bool pp_index(struct pp *d)
{
	struct pb c = { d->data, d->data + d->size };
	struct pb_field f;
	int r;
	const unsigned char *at = c.p;
	while ((r = pb_next(&c, &f)) > 0) {
		switch (f.num) {
		case 1:
		case 11:
			if (f.wt == WT_LEN) {
				struct pp_vt vt;
				if (!read_vt(&f, &vt)) {
					bad_entry(d, f.data, "a malformed sample type");
				} else if (f.num == 11) {
					d->period_type = vt;
					d->has_period_type = true;
				} else if (d->nvt < PP_MAX_ENTRIES) {
					*VEC_PUSH(d->vt, d->nvt, d->capvt) = vt;
				}
			}
			break;
		case 2:
			if (f.wt == WT_LEN) {
				if (!d->nsamples++)
					d->samples_at = at;
				d->samples_end = c.p;
			}
			break;
		case 3:
		case 4:
		case 5:
			if (f.wt == WT_LEN)
				index_entry(d, &f);
			break;
		case 6:
			if (f.wt == WT_LEN) {
				if (d->nstr < PP_MAX_ENTRIES) {
					struct pp_str *s = VEC_PUSH(d->str, d->nstr, d->capstr);
					s->s = (const char *)f.data;
					s->len = f.len;
				} else {
					d->too_many = true;
				}
			}
			break;
		case 10:
			if (f.wt == WT_VARINT)
				d->duration = (int64_t)f.v;
			break;
		case 12:
			if (f.wt == WT_VARINT)
				d->period = (int64_t)f.v;
			break;
		case 14:
			if (f.wt == WT_VARINT)
				d->default_type = (int64_t)f.v;
			break;
		default:
			break;      /* other fields, known or not: not needed */
		}
		at = c.p;
	}
	if (r < 0) {
		pp_msg(d, "not a readable pprof profile: at byte %" PRIu64 ": %s%s", pp_off(d, at),
		       pb_why((enum pb_err)-r), r == -PB_CUT ? " (is the file cut short?)" : "");
		return false;
	}
	if (d->too_many)
		pp_msg(d, "more than %zu entries of a kind: the rest were ignored", PP_MAX_ENTRIES);
	idmap_build(&d->fnid, d->fn, d->nfn, sizeof *d->fn);
	idmap_build(&d->mapid, d->map, d->nmap, sizeof *d->map);
	idmap_build(&d->locid, d->loc, d->nloc, sizeof *d->loc);
	return true;
}

/* ---- sample types ------------------------------------------------------------ */

static bool str_is(struct pp *d, int64_t i, const char *s)
{
	struct pp_str t = pp_string(d, i);
	return t.len == strlen(s) && memcmp(t.s, s, t.len) == 0;
}

/* "type/unit type/unit ..." sanitized into out. */
static void list_types(struct pp *d, char *out, size_t size)
{
	size_t k = 0;
	out[0] = '\0';
	for (size_t i = 0; i < d->nvt && k + 4 < size; i++) {
		struct pp_str t = pp_string(d, d->vt[i].type), u = pp_string(d, d->vt[i].unit);
		if (i)
			out[k++] = ' ';
		k += text_sanitize(t.s, t.len, out + k, size - k);
		if (k + 2 < size) {
			out[k++] = '/';
			k += text_sanitize(u.s, u.len, out + k, size - k);
		}
	}
	out[k < size ? k : size - 1] = '\0';
}

/* The index of the sample type to weigh by, or -1 (with a message). */
static long choose_type(struct pp *d)
{
	const char *want = d->o ? d->o->sample_type : NULL;
	if (want) {
		for (size_t i = 0; i < d->nvt; i++)
			if (str_is(d, d->vt[i].type, want))
				return (long)i;
		char *end;
		unsigned long k = strtoul(want, &end, 10);
		if (*want >= '0' && *want <= '9' && !*end && k < d->nvt)
			return (long)k;
		char types[256], w[128];
		list_types(d, types, sizeof types);
		text_sanitize(want, strlen(want), w, sizeof w);
		pp_msg(d, "no sample type \"%s\" in this profile (it has: %s)", w,
		       d->nvt ? types : "none");
		return -1;
	}
	if (d->nvt == 0) {
		if (d->nsamples == 0)
			return 0;
		pp_msg(d, "not a readable pprof profile: it has samples but no sample types");
		return -1;
	}
	if (d->default_type) {
		struct pp_str def = pp_string(d, d->default_type);
		for (size_t i = 0; i < d->nvt; i++) {
			struct pp_str t = pp_string(d, d->vt[i].type);
			if (t.len == def.len && memcmp(t.s, def.s, t.len) == 0)
				return (long)i;
		}
	}
	return (long)d->nvt - 1;
}

/* ---- locations to frames ------------------------------------------------------ */

static const char unknown_frame[] = "[unknown]";

/* pp.lrec: below LREC_REF the id of a location's one frame; from there
 * LREC_REF + that frame (its id not known yet); from LREC_MULTI on,
 * LREC_MULTI + where the ids of a location's frames are in pp.mids;
 * PP_NONE: a location to read the slow way (loc_ids_slow). */
#define LREC_REF 0x40000000u
#define LREC_MULTI 0x80000000u

/* String i of the table without counting; *bad counts a reference past
 * its end (what pp_string counts). */
static struct pp_str pp_string_nc(const struct pp *d, int64_t i, uint32_t *bad)
{
	if (i > 0 && (uint64_t)i < d->nstr)
		return d->str[i];
	if (i != 0)
		(*bad)++;
	return (struct pp_str){ "", 0 };
}

/* A name from the string table as a frame: line breaks would split the
 * folded output, so a name holding one is copied with spaces instead. */
static struct tree_frame name_frame(struct pp *d, struct pp_str s)
{
	struct tree_frame f = { s.s, s.len };
	if (memchr(s.s, '\n', s.len) || memchr(s.s, '\r', s.len)) {
		char *c = arena_memdup(&d->names, s.s, s.len);
		for (size_t i = 0; i < s.len; i++)
			if (c[i] == '\n' || c[i] == '\r')
				c[i] = ' ';
		f.s = c;
	}
	return f;
}

/* Appends f to pp.frm; its index. */
static uint32_t frm_push(struct pp *d, struct tree_frame f)
{
	if (d->nfrm >= PP_MAX_ENTRIES)
		xdie("%s: too many frames", d->name);
	*VEC_PUSH(d->frm, d->nfrm, d->capfrm) = f;
	return (uint32_t)(d->nfrm - 1);
}

/* The frame of a location without a function name: "0x4f6a87", or
 * "[binary+0x1a2b]" when the mapping names a file; made once per location
 * (*ref), its references counted into *is each time, as each line without
 * a name reads them. */
static uint32_t address_frame(struct pp *d, uint64_t mapping, uint64_t addr, uint32_t *ref,
                              struct pp_issue *is)
{
	uint32_t m = mapping ? idmap_get(&d->mapid, mapping) : PP_NONE;
	if (mapping && m == PP_NONE)
		is->bad_refs++;
	struct pp_str file = m != PP_NONE ? pp_string_nc(d, d->map[m].file, &is->bad_strs)
	                                  : (struct pp_str){ "", 0 };
	if (*ref != PP_NONE)
		return *ref;
	char buf[320];
	int n;
	if (file.len) {
		const char *base = file.s;
		size_t len = file.len;
		for (size_t i = 0; i < file.len; i++)
			if (file.s[i] == '/') {
				base = file.s + i + 1;
				len = file.len - i - 1;
			}
		if (len > 256)
			len = 256;
		char b[257];
		for (size_t i = 0; i < len; i++)   /* no line breaks, as in names */
			b[i] = base[i] == '\n' || base[i] == '\r' ? ' ' : base[i];
		n = snprintf(buf, sizeof buf, "[%.*s+0x%" PRIx64 "]", (int)len, b,
		             addr - d->map[m].start + d->map[m].offset);
	} else {
		n = snprintf(buf, sizeof buf, "0x%" PRIx64, addr);
	}
	*ref = frm_push(d, (struct tree_frame){ arena_memdup(&d->names, buf, (size_t)n), (size_t)n });
	return *ref;
}

/* Resolves location i into frames (root first). */
static void resolve_loc(struct pp *d, uint32_t i)
{
	struct pp_loc *l = &d->loc[i];
	struct pb c = { l->at, l->at + l->len };
	struct pb_field g;
	uint64_t mapping = 0, addr = 0;
	size_t nlines = 0;
	int r;
	while ((r = pb_next(&c, &g)) > 0) {
		if (g.num == 2 && g.wt == WT_VARINT) {
			mapping = g.v;
		} else if (g.num == 3 && g.wt == WT_VARINT) {
			addr = g.v;
		} else if (g.num == 4 && g.wt == WT_LEN) {
			uint64_t fid = 0;
			struct pb lc = { g.data, g.data + g.len };
			struct pb_field h;
			int lr;
			while ((lr = pb_next(&lc, &h)) > 0)
				if (h.num == 1 && h.wt == WT_VARINT)
					fid = h.v;
			if (lr < 0) {
				r = lr;
				break;
			}
			if (nlines == d->caplines) {
				d->caplines = d->caplines ? d->caplines * 2 : 16;
				d->lines = xreallocarray(d->lines, d->caplines, sizeof *d->lines);
			}
			d->lines[nlines++] = fid;
		}
	}
	if (d->npool >= PP_MAX_ENTRIES - PP_MAX_LINES)
		xdie("%s: too many frames", d->name);
	struct pp_lf *lf = &d->lf[i];
	struct pp_issue is = { 0 };
	if (r < 0) {
		is.err = (enum pb_err)-r;
		lf->ref = d->unk;
		lf->n = 1;
	} else {
		size_t lo = 0;
		if (nlines > PP_MAX_LINES) {
			lo = nlines - PP_MAX_LINES;
			is.cut_lines = true;
		}
		size_t first = d->npool;
		uint32_t aref = PP_NONE;
		/* line[0] is the innermost inlined callee, the last the caller */
		for (size_t k = nlines; k-- > lo;) {
			uint64_t fid = d->lines[k];
			uint32_t fi = idmap_get(&d->fnid, fid), ref = PP_NONE;
			if (fi != PP_NONE) {
				is.bad_strs += d->fbad[fi];
				if (d->frm[fi].len)
					ref = fi;
			} else if (fid) {
				is.bad_refs++;
			}
			if (ref == PP_NONE)
				ref = address_frame(d, mapping, addr, &aref, &is);
			*VEC_PUSH(d->pool, d->npool, d->cappool) = ref;
		}
		if (nlines == 0)
			*VEC_PUSH(d->pool, d->npool, d->cappool) = address_frame(d, mapping, addr, &aref, &is);
		lf->n = (uint32_t)(d->npool - first);
		lf->ref = (uint32_t)first;
		if (lf->n == 1) {
			lf->ref = d->pool[first];
			d->npool = first;       /* kept in lf instead */
		}
	}
	lf->issue = 0;
	is.at = l->at;
	if (is.err || is.bad_refs || is.bad_strs || is.cut_lines) {
		*VEC_PUSH(d->issues, d->nissues, d->capissues) = is;
		lf->issue = (uint32_t)d->nissues;
	}
}

/* Before the samples: every function's name and every location's frames,
 * in file order. */
static void resolve_all(struct pp *d)
{
	d->fbad = xmalloc(d->nfn ? d->nfn : 1);
	for (size_t i = 0; i < d->nfn; i++) {
		uint32_t bad = 0;
		struct pp_str s = pp_string_nc(d, d->fn[i].name, &bad);
		if (!s.len)
			s = pp_string_nc(d, d->fn[i].sys, &bad);
		d->fbad[i] = (uint8_t)bad;
		frm_push(d, s.len ? name_frame(d, s) : (struct tree_frame){ "", 0 });
	}
	d->unk = frm_push(d, (struct tree_frame){ unknown_frame, sizeof unknown_frame - 1 });
	d->lf = xmalloc((d->nloc ? d->nloc : 1) * sizeof *d->lf);
	d->loc_identity = true;
	for (size_t i = 0; i < d->nloc; i++) {
		resolve_loc(d, (uint32_t)i);
		if (d->loc[i].id != i + 1)
			d->loc_identity = false;
	}
	/* what only this needed: its memory goes to the tree */
	free(d->fn);
	free(d->loc);
	d->fn = NULL;
	d->loc = NULL;
	idmap_free(&d->fnid);
	idmap_free(&d->mapid);
	memset(&d->fnid, 0, sizeof d->fnid);
	memset(&d->mapid, 0, sizeof d->mapid);
	if (d->loc_identity) {
		idmap_free(&d->locid);
		memset(&d->locid, 0, sizeof d->locid);
	}
}

/* Counts what resolving location i found wrong: on its first use. */
static void loc_issue(struct pp *d, uint32_t i)
{
	struct pp_issue *is = &d->issues[d->lf[i].issue - 1];
	if (is->err)
		bad_entry(d, is->at, pb_why(is->err));
	d->bad_refs += is->bad_refs;
	d->bad_strs += is->bad_strs;
	d->cut_lines += is->cut_lines;
	d->lf[i].issue = 0;
}

/* Tree w's id of frame ref, interned on first use. */
static inline strtab_id frame_id(struct pp *d, struct tree *t, int w, uint32_t ref)
{
	strtab_id *slot = &d->frid[w][ref];
	if (*slot == PP_NONE)
		*slot = tree_intern(t, d->frm[ref].s, d->frm[ref].len);
	return *slot;
}

/* The position of location id, or PP_NONE. */
static inline uint32_t loc_pos(const struct pp *d, uint64_t id)
{
	if (d->loc_identity)
		return id - 1 < d->nloc ? (uint32_t)(id - 1) : PP_NONE;
	return idmap_get(&d->locid, id);
}

/* ---- samples (pass 2) ------------------------------------------------------- */

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	*cap = c;
	return xreallocarray(p, c, elem);
}

/* Appends the positions of the packed location ids p[0..len) to
 * d->slocs[*n..], counting the dangling ones. 0, or -(enum pb_err) on a
 * malformed varint (the ids before it are appended and counted). Ids are
 * mostly of 1-3 bytes: those are read here, the rest by pb_varint. */
static int decode_locs(struct pp *d, const unsigned char *p, size_t len, size_t *n)
{
	if (*n + len > d->capslocs)
		d->slocs = grow(d->slocs, &d->capslocs, *n + len, sizeof *d->slocs);
	uint32_t *out = d->slocs + *n;
	const unsigned char *end = p + len;
	const bool ident = d->loc_identity;
	const uint64_t nloc = d->nloc;
	uint64_t bad = 0;
	int r = 0;
	while (p < end) {
		uint64_t v = p[0];
		if (v < 0x80) {
			p++;
		} else if (end - p > 1 && p[1] < 0x80) {
			v = (v & 0x7f) | (uint64_t)p[1] << 7;
			p += 2;
		} else if (end - p > 2 && p[2] < 0x80) {
			v = (v & 0x7f) | (uint64_t)(p[1] & 0x7f) << 7 | (uint64_t)p[2] << 14;
			p += 3;
		} else {
			enum pb_err e = pb_varint(&p, end, &v);
			if (e) {
				r = -(int)e;
				break;
			}
		}
		uint32_t pos = ident ? (v - 1 < nloc ? (uint32_t)(v - 1) : PP_NONE) : idmap_get(&d->locid, v);
		bad += pos == PP_NONE;
		*out++ = pos;
	}
	d->bad_refs += bad;
	*n = (size_t)(out - d->slocs);
	return r;
}

/* What a sample's label root frame reads, counted once per sample: lab 0
 * none (no --label-root), 1 "[none]" (no such label), 2 string v, 3
 * number v. */
static void label_count(struct pp *d, unsigned lab, int64_t v)
{
	if (lab == 1)
		d->no_label++;
	else if (lab == 2)
		(void)pp_string(d, v);
}

/* The label root frame into d->labelbuf (nothing counted); its length. */
static size_t label_text(struct pp *d, unsigned lab, int64_t v)
{
	const char *key = d->o->label_root;
	size_t kl = strlen(key);
	char num[32];
	uint32_t bad = 0;
	struct pp_str val = { "[none]", 6 };
	if (lab == 3) {
		val.len = (size_t)snprintf(num, sizeof num, "%" PRId64, v);
		val.s = num;
	} else if (lab == 2) {
		val = pp_string_nc(d, v, &bad);
	}
	d->labelbuf = grow(d->labelbuf, &d->labelcap, kl + 1 + val.len, 1);
	memcpy(d->labelbuf, key, kl);
	d->labelbuf[kl] = '=';
	for (size_t i = 0; i < val.len; i++)
		d->labelbuf[kl + 1 + i] = val.s[i] == '\n' || val.s[i] == '\r' ? ' ' : val.s[i];
	return kl + 1 + val.len;
}

/* Tree w's id of a label root frame; recent ones are remembered (labels
 * take few values: threads, goroutines). */
static strtab_id label_id(struct pp *d, struct tree *t, int w, unsigned lab, int64_t v)
{
	struct pp_labc *c = &d->labc[w][mix64((uint64_t)v * 4 + lab) % PP_LABC];
	if (c->lab == lab && c->v == v)
		return c->id;
	size_t len = label_text(d, lab, v);
	c->lab = (uint8_t)lab;
	c->v = v;
	c->id = tree_intern(t, d->labelbuf, len);
	return c->id;
}

/* Tree w's caches, made on its first stack. */
static void tree_ready(struct pp *d, int w)
{
	if (d->lrec[w])
		return;
	d->frid[w] = xmalloc((d->nfrm ? d->nfrm : 1) * sizeof *d->frid[w]);
	memset(d->frid[w], 0xff, d->nfrm * sizeof *d->frid[w]);
	d->lrec[w] = xmalloc((d->nloc ? d->nloc : 1) * sizeof *d->lrec[w]);
	for (size_t i = 0; i < d->nloc; i++) {
		const struct pp_lf *lf = &d->lf[i];
		d->lrec[w][i] = lf->n == 1 && !lf->issue && lf->ref < LREC_MULTI - LREC_REF
		                ? LREC_REF + lf->ref : PP_NONE;
	}
}

/* Appends the ids of location pos's frames (PP_NONE: [unknown]) to
 * d->ids[nf..], room made for `left` more locations after it; *cut when
 * the stack reaches PP_MAX_FRAMES. The way for a location's first use in
 * tree w and for locations of several frames. Returns the new nf. */
static size_t loc_ids_slow(struct pp *d, struct tree *t, int w, uint32_t pos, size_t nf, size_t left,
                           bool *cut)
{
	const uint32_t *refs = &d->unk;
	size_t m = 1;
	if (pos != PP_NONE) {
		struct pp_lf *lf = &d->lf[pos];
		if (lf->issue)
			loc_issue(d, pos);
		m = lf->n;
		refs = m == 1 ? &lf->ref : d->pool + lf->ref;
	}
	size_t take = m;
	if (nf + m > PP_MAX_FRAMES) {
		take = PP_MAX_FRAMES - nf;
		*cut = true;
		left = 0;
	}
	if (nf + take + left > d->capids)
		d->ids = grow(d->ids, &d->capids, nf + take + left, sizeof *d->ids);
	for (size_t k = 0; k < take; k++)
		d->ids[nf + k] = frame_id(d, t, w, refs[k]);
	if (pos != PP_NONE && take == m && d->lrec[w][pos] == PP_NONE) {
		if (m == 1) {
			if (d->ids[nf] < LREC_REF)
				d->lrec[w][pos] = d->ids[nf];
		} else if (d->nmids[w] + 1 + m < LREC_MULTI - 1) {
			/* several frames: their ids together, after their number */
			d->mids[w] = grow(d->mids[w], &d->capmids[w], d->nmids[w] + 1 + m, sizeof *d->mids[w]);
			d->lrec[w][pos] = LREC_MULTI + (uint32_t)d->nmids[w];
			d->mids[w][d->nmids[w]++] = (uint32_t)m;
			memcpy(d->mids[w] + d->nmids[w], d->ids + nf, m * sizeof *d->ids);
			d->nmids[w] += m;
		}
	}
	return nf + take;
}

/* The frames of the stack d->slocs[0..n) (its names in d->ids) that a
 * flame chart shares with the previous one, pv: the label root when the
 * same, then those of the outer locations that are the same. */
static size_t chart_keep(struct pp *d, const struct pp_prev *pv, size_t n, bool lab)
{
	if (!pv->valid || (lab && pv->ids[0] != d->ids[0]))
		return 0;
	size_t keep = lab, k = 0;
	while (k < n && k < pv->nlocs && pv->locs[pv->nlocs - 1 - k] == d->slocs[n - 1 - k]) {
		uint32_t pos = d->slocs[n - 1 - k];
		keep += pos == PP_NONE ? 1 : d->lf[pos].n;
		k++;
	}
	return keep;
}

/* Adds the stack of locations d->slocs[0..n) (leaf first), under the
 * label root frame lab/lv (see label_count; 0: none), to tree t (w 0: t,
 * 1: before). Its frames that equal the previous stack's (added to the
 * same tree) are not looked up again in the tree. True when it was cut at
 * PP_MAX_FRAMES. */
static bool add_stack(struct pp *d, struct tree *t, int w, size_t n, unsigned lab, int64_t lv,
                      uint64_t count)
{
	tree_ready(d, w);
	size_t nf = 0;
	bool cut = false;
	if (n + 1 > d->capids)
		d->ids = grow(d->ids, &d->capids, n + 1, sizeof *d->ids);
	if (lab)
		d->ids[nf++] = label_id(d, t, w, lab, lv);
	uint32_t *rec = d->lrec[w];
	for (size_t j = n; j-- > 0;) {     /* root first */
		uint32_t pos = d->slocs[j];
		if (pos != PP_NONE) {
			uint32_t r = rec[pos];
			if (r < LREC_REF && nf < PP_MAX_FRAMES) {
				d->ids[nf++] = r;
				continue;
			}
			if (r < LREC_MULTI && nf < PP_MAX_FRAMES) {     /* first use */
				strtab_id id = frame_id(d, t, w, r - LREC_REF);
				if (id < LREC_REF)
					rec[pos] = id;
				d->ids[nf++] = id;
				continue;
			}
			if (r >= LREC_MULTI && r != PP_NONE && nf + d->mids[w][r - LREC_MULTI] <= PP_MAX_FRAMES) {
				const uint32_t *m = d->mids[w] + (r - LREC_MULTI);
				if (nf + m[0] + j > d->capids)
					d->ids = grow(d->ids, &d->capids, nf + m[0] + j, sizeof *d->ids);
				memcpy(d->ids + nf, m + 1, m[0] * sizeof *d->ids);
				nf += m[0];
				continue;
			}
		}
		nf = loc_ids_slow(d, t, w, pos, nf, j, &cut);
		if (cut)
			break;
	}
	struct pp_prev *pv = &d->prev[w];
	size_t keep = 0;
	if (t->chart) {
		keep = chart_keep(d, pv, n, lab != 0);
		pv->locs = grow(pv->locs, &pv->capl, n, sizeof *pv->locs);
		if (n)
			memcpy(pv->locs, d->slocs, n * sizeof *pv->locs);
		pv->nlocs = n;
		pv->valid = !cut;
	} else {
		size_t lim = nf < pv->n ? nf : pv->n;
		while (keep < lim && pv->ids[keep] == d->ids[keep])
			keep++;
	}
	tree_add_stack_tail_ids(t, keep, d->ids + keep, nf - keep, count);
	/* remember it (by swapping buffers) */
	strtab_id *tmp = pv->ids;
	size_t tcap = pv->cap;
	pv->ids = d->ids;
	pv->cap = d->capids;
	pv->n = nf;
	d->ids = tmp;
	d->capids = tcap;
	return cut;
}

/* ---- repeated stacks ----------------------------------------------------------- */

/* A writer that does not aggregate (one sample per tick) repeats the same
 * stacks over and over; Go's samples repeat a stack under different labels.
 * Such a sample is found by the bytes of its packed location ids (a copy
 * is kept), its label root and its tree, and only counted: every stack
 * goes to the tree once, with its summed count, when the samples are done
 * (seen_add: in order of first appearance, so that the tree gets its nodes
 * and names in the same order as sample by sample). When few of SEEN_PROBE
 * samples repeat (aggregated profiles, or --label-root on one), the
 * lookups stop (the stacks held are added then and the rest as they
 * come); at most SEEN_MAX stacks are held, and a lookup that reads more
 * than SEEN_PROBES slots (keys that collide, as an input can be made to)
 * stops them too. */
#define SEEN_PROBE 4096
#define SEEN_MAX ((size_t)1 << 20)
#define SEEN_PROBES 512     /* slots a lookup reads at most */

static uint64_t bytes_hash(const unsigned char *p, size_t n, uint64_t seed)
{
	uint64_t h = seed ^ ((uint64_t)n * 0x9e3779b97f4a7c15ULL), v;
	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&v, p, 8);
		h = (h ^ v) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	if (n) {
		v = 0;
		memcpy(&v, p, n);
		h = (h ^ v) * 0xff51afd7ed558ccdULL;
	}
	return mix64(h);
}

static uint64_t seen_hash(const unsigned char *p, size_t len, int w, unsigned lab, int64_t lv)
{
	return bytes_hash(p, len, mix64((uint64_t)lv) ^ (lab * 2 + (unsigned)w));
}

static void seen_place(struct pp_seen *s, uint64_t slot)
{
	size_t j = (size_t)(slot >> 32) & s->mask;
	while (s->slots[j])
		j = (j + 1) & s->mask;
	s->slots[j] = slot;
}

/* The bytes of an entry with a key of len bytes. */
static size_t seen_size(size_t len)
{
	return (offsetof(struct pp_seen_e, key) + len + 7) & ~(size_t)7;
}

/* The entry of this stack, or NULL. Valid until seen_insert. */
static struct pp_seen_e *seen_find(struct pp_seen *s, uint64_t h, const unsigned char *p, size_t len,
                                   int w, unsigned lab, int64_t lv)
{
	s->lookups++;
	if (!s->slots)
		return NULL;
	uint64_t tag = h & 0xffffffff00000000ULL;
	unsigned probes = 0;
	for (size_t j = (size_t)(h >> 32) & s->mask; s->slots[j]; j = (j + 1) & s->mask) {
		if (++probes > SEEN_PROBES) {
			s->off = true;  /* keys made to collide: no more lookups */
			return NULL;
		}
		if ((s->slots[j] & 0xffffffff00000000ULL) != tag)
			continue;
		struct pp_seen_e *e = (struct pp_seen_e *)(s->mem + ((s->slots[j] & 0xffffffff) - 1) * 8);
		if (e->len == len && e->w == w && e->lab == lab && e->lv == lv && memcmp(e->key, p, len) == 0) {
			s->hits++;
			return e;
		}
	}
	return NULL;
}

/* Holds a new stack with its first count; false when it is not held (then
 * it is added now, after the held ones: see seen_add). */
static bool seen_insert(struct pp_seen *s, uint64_t h, const unsigned char *p, size_t len, int w,
                        unsigned lab, int64_t lv, uint64_t bad_refs, bool cut, uint64_t count)
{
	if (s->lookups >= SEEN_PROBE) {
		if (s->hits * 16 < s->lookups)
			s->off = true;  /* few repeats: not worth the lookups */
		s->lookups = s->hits = 0;
	}
	size_t size = seen_size(len);
	if (s->off || s->n >= SEEN_MAX || len > UINT32_MAX || bad_refs > UINT32_MAX ||
	    (s->nmem + size) / 8 >= UINT32_MAX)
		return false;
	if ((s->n + 1) * 4 > (s->mask + 1) * 3 || !s->slots) {
		uint64_t *old = s->slots;
		size_t nold = old ? s->mask + 1 : 0;
		s->slots = xcalloc(nold ? nold * 2 : 1024, sizeof *s->slots);
		s->mask = (nold ? nold * 2 : 1024) - 1;
		for (size_t i = 0; i < nold; i++)
			if (old[i])
				seen_place(s, old[i]);
		free(old);
	}
	s->mem = grow(s->mem, &s->capmem, s->nmem + size, 1);
	struct pp_seen_e *e = (struct pp_seen_e *)(s->mem + s->nmem);
	memcpy(e->key, p, len);
	e->len = (uint32_t)len;
	e->count = count;
	e->lv = lv;
	e->bad_refs = (uint32_t)bad_refs;
	e->w = (uint8_t)w;
	e->lab = (uint8_t)lab;
	e->cut = cut;
	seen_place(s, (h & 0xffffffff00000000ULL) | (s->nmem / 8 + 1));
	s->nmem += size;
	s->n++;
	return true;
}

/* Adds the held counts to the trees: the stacks not added yet (from
 * s->added on, in order), and with all, those added before that were seen
 * again since; with one, only the entry one (added before). What the
 * samples count was counted already, including the trees' stack counts. */
static void seen_add(struct pp *d, bool all, struct pp_seen_e *one)
{
	struct pp_seen *s = &d->seen;
	if (s->added == s->nmem && !all && !one)
		return;
	struct tree *t = d->t, *before = d->o ? d->o->before : NULL;
	uint64_t stacks = t->stacks, bstacks = before ? before->stacks : 0;
	if (all) {          /* the end: no more lookups, the memory is the tree's */
		free(s->slots);
		s->slots = NULL;
	}
	/* the sample being read keeps its locations */
	uint32_t *tmp = d->slocs;
	size_t tcap = d->capslocs;
	d->slocs = d->dslocs;
	d->capslocs = d->capdslocs;
	for (size_t i = all ? 0 : s->added; i < s->nmem || one;) {
		struct pp_seen_e *e = one ? one : (struct pp_seen_e *)(s->mem + i);
		if (e->count) {
			size_t n = 0;
			uint64_t bad_refs = d->bad_refs;
			decode_locs(d, e->key, e->len, &n);   /* its ids were counted */
			d->bad_refs = bad_refs;
			add_stack(d, e->w ? before : t, e->w, n, e->lab, e->lv, e->count);
			e->count = 0;
		}
		if (one)
			break;
		i += seen_size(e->len);
	}
	if (!one)
		s->added = s->nmem;
	d->dslocs = d->slocs;
	d->capdslocs = d->capslocs;
	d->slocs = tmp;
	d->capslocs = tcap;
	t->stacks = stacks;
	if (before)
		before->stacks = bstacks;
}

/* Whether the stack of locations d->slocs[0..n) (and a label root frame
 * when lab) is longer than PP_MAX_FRAMES frames: add_stack cuts it. */
static bool stack_cut(const struct pp *d, size_t n, unsigned lab)
{
	if ((n + 1) * PP_MAX_LINES <= PP_MAX_FRAMES)
		return false;
	size_t total = lab != 0;
	for (size_t j = 0; j < n; j++)
		total += d->slocs[j] == PP_NONE ? 1 : d->lf[d->slocs[j]].n;
	return total > PP_MAX_FRAMES;
}

/* ---- the samples --------------------------------------------------------------- */

/* Decodes the location field put off (*lp, len; none when *lp is NULL)
 * onto d->slocs[*n..]: 0 or -(enum pb_err). */
static int settle(struct pp *d, const unsigned char **lp, size_t len, size_t *n)
{
	if (!*lp)
		return 0;
	int r = decode_locs(d, *lp, len, n);
	*lp = NULL;
	return r;
}

/* Reads one Sample message and adds it. */
static void do_sample(struct pp *d, struct tree *t, const struct pb_field *f, size_t vi,
                      struct pprof_info *info)
{
	struct pb c = { f->data, f->data + f->len };
	struct pb_field g;
	struct pb_rep rep;
	size_t n = 0, nv = 0, nlocf = 0;
	int64_t value = 0;
	bool lfound = false, lnum = false;
	int64_t lval = 0;
	int r;
	uint64_t v;
	const char *key = d->o ? d->o->label_root : NULL;
	/* The first location field, when packed (as writers do), is decoded
	 * only once the sample is known to need it: a repeated stack is found
	 * by its bytes (see seen_find). Fields are still read in order: what
	 * a malformed sample reports and counts is the same. */
	const unsigned char *lp = NULL, *lp0 = NULL;
	size_t ll = 0;
	while ((r = pb_next(&c, &g)) > 0) {
		if (g.num == 1 && (g.wt == WT_VARINT || g.wt == WT_LEN)) {
			if (nlocf++ == 0 && g.wt == WT_LEN) {
				lp = lp0 = g.data;
				ll = g.len;
				continue;
			}
			lp0 = NULL;     /* not one packed field: not looked up */
			if ((r = settle(d, &lp, ll, &n)) < 0)
				break;
			if (g.wt == WT_LEN) {
				r = decode_locs(d, g.data, g.len, &n);
			} else {
				d->slocs = grow(d->slocs, &d->capslocs, n + 1, sizeof *d->slocs);
				uint32_t li = loc_pos(d, g.v);
				if (li == PP_NONE)
					d->bad_refs++;
				d->slocs[n++] = li;
			}
		} else if (g.num == 2 && pb_rep_init(&rep, &g)) {
			while ((r = pb_rep_next(&rep, &v)) > 0)
				if (nv++ == vi)
					value = (int64_t)v;
		} else if (g.num == 3 && g.wt == WT_LEN && key && !lfound) {
			struct pb lc = { g.data, g.data + g.len };
			struct pb_field h;
			int64_t k = 0, s = 0, num = 0;
			bool has_num = false;
			while ((r = pb_next(&lc, &h)) > 0) {
				if (h.wt != WT_VARINT)
					continue;
				if (h.num == 1)
					k = (int64_t)h.v;
				else if (h.num == 2)
					s = (int64_t)h.v;
				else if (h.num == 3) {
					num = (int64_t)h.v;
					has_num = true;
				}
			}
			if (r == 0 && str_is(d, k, key)) {
				lfound = true;
				lnum = has_num && !s;
				lval = lnum ? num : s;
			}
		}
		if (r < 0)
			break;
	}
	if (r < 0) {
		int e = settle(d, &lp, ll, &n);    /* it came first */
		bad_sample(d, f->data, pb_why((enum pb_err)-(e < 0 ? e : r)));
		return;
	}
	if (nv <= vi) {
		if ((r = settle(d, &lp, ll, &n)) < 0) {
			bad_sample(d, f->data, pb_why((enum pb_err)-r));
			return;
		}
		snprintf(d->why_sample_buf, sizeof d->why_sample_buf,
		         "%zu value%s for %zu sample types", nv, nv == 1 ? "" : "s", d->nvt);
		bad_sample(d, f->data, d->why_sample_buf);
		return;
	}
	int w = 0;
	uint64_t count = (uint64_t)value;
	if (value < 0 && d->o && d->o->before) {
		t = d->o->before;
		w = 1;
		count = 0 - (uint64_t)value;
	}
	unsigned lab = !key ? 0 : !lfound ? 1 : lnum ? 3 : 2;
	if (!lfound)
		lval = 0;
	struct pp_seen_e *e = NULL;
	uint64_t h = 0;
	bool look = lp0 && value != 0 && (value > 0 || w) && !t->chart && !d->seen.off;
	if (look && (e = seen_find(&d->seen, h = seen_hash(lp0, ll, w, lab, lval), lp0, ll, w, lab, lval))) {
		/* a repeat: counted as it was the first time, added at the end */
		if (e->count + count < count) {
			/* the sum is beyond 64 bits: the tree says it saturated */
			seen_add(d, false, NULL);
			seen_add(d, false, e);
		}
		e->count += count;
		d->bad_refs += e->bad_refs;
		d->cut_stacks += e->cut;
		t->stacks++;
	} else {
		uint64_t bad_refs = d->bad_refs;
		if ((r = settle(d, &lp, ll, &n)) < 0) {
			bad_sample(d, f->data, pb_why((enum pb_err)-r));
			return;
		}
		bad_refs = d->bad_refs - bad_refs;     /* dangling ids in it */
		if (value == 0)
			return;
		if (value < 0 && !w) {
			d->negative++;
			return;
		}
		bool cut = look && stack_cut(d, n, lab);
		if (look && seen_insert(&d->seen, h, lp0, ll, w, lab, lval, bad_refs, cut, count)) {
			d->cut_stacks += cut;
			t->stacks++;
		} else {
			seen_add(d, false, NULL);        /* the held stacks came first */
			if (add_stack(d, t, w, n, lab, lval, count))
				d->cut_stacks++;
		}
	}
	label_count(d, lab, lval);
	info->samples++;
	uint64_t *sum = w ? &info->before_total : &info->total;
	*sum = *sum + count < count ? UINT64_MAX : *sum + count;
}

/* Pass 2: every Sample field, in order. */
static void pp_samples(struct pp *d, struct tree *t, size_t vi, struct pprof_info *info)
{
	/* the samples' part only (writers put them together) */
	struct pb c = { d->samples_at, d->samples_end };
	struct pb_field f;
	size_t next = PP_PROGRESS_STEP;
	d->t = t;
	if (!d->nsamples)
		c.p = c.end = d->data;
	while (pb_next(&c, &f) > 0) {  /* pass 1 checked the framing */
		if (f.num != 2 || f.wt != WT_LEN)
			continue;
		do_sample(d, t, &f, vi, info);
		if (d->o && d->o->progress && (size_t)(c.p - d->data) >= next) {
			next += PP_PROGRESS_STEP;
			d->o->progress(d->o->progress_arg, pp_off(d, c.p), d->size, t->stacks);
		}
	}
	seen_add(d, true, NULL);
}

/* ---- reading the input ----------------------------------------------------- */

/* The whole decompressed input of a stream into *buf; false (with a
 * message) on a read error or beyond PPROF_MAX_INPUT. */
static bool read_whole(struct pp *d, struct source *s, unsigned char **buf, size_t *len)
{
	size_t cap = 0, n = 0;
	unsigned char *b = NULL;
	uint64_t known = source_size(s);
	for (;;) {
		if (n == cap) {
			if (cap >= PPROF_MAX_INPUT) {
				free(b);
				pp_msg(d, "a pprof profile of more than %zu MiB cannot be read", PPROF_MAX_INPUT >> 20);
				return false;
			}
			size_t c = cap ? cap * 2 : (size_t)1 << 20;
			/* a file's size is a good first guess (compressed: a
			 * quarter of what it inflates to, often) */
			if (!cap && known && known < PPROF_MAX_INPUT / 8)
				c = (size_t)known * 4 + 4096;
			cap = c < PPROF_MAX_INPUT ? c : PPROF_MAX_INPUT;
			b = xrealloc(b, cap);
		}
		ssize_t r = source_read(s, b + n, cap - n);
		if (r < 0) {
			free(b);
			pp_msg(d, "%s", source_error(s));
			return false;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (d->o && d->o->progress)
			d->o->progress(d->o->progress_arg, source_offset(s), known, 0);
	}
	*buf = b;
	*len = n;
	return true;
}

/* ---- public ------------------------------------------------------------------ */

int pprof_load(struct tree *t, struct source *s, const char *name, const struct pprof_options *o,
               struct pprof_info *info, reader_msg_fn *msg, void *msgarg)
{
	struct pp d = { 0 };
	struct pprof_info own;
	unsigned char *owned = NULL;
	const char *map;
	int rc = 1;

	if (!info)
		info = &own;
	memset(info, 0, sizeof *info);
	d.name = name;
	d.msg = msg;
	d.msgarg = msgarg;
	d.o = o;
	arena_init(&d.names, 0);
	if (source_mapping(s, &map, &d.size)) {
		d.data = (const unsigned char *)map;
	} else {
		if (!read_whole(&d, s, &owned, &d.size))
			goto out;
		d.data = owned;
	}
	if (!d.data)
		d.data = (const unsigned char *)"";
	if (!pp_index(&d))
		goto out;
	long vi = choose_type(&d);
	if (vi < 0)
		goto out;
	if (d.nvt) {
		struct pp_str ty = pp_string(&d, d.vt[vi].type), un = pp_string(&d, d.vt[vi].unit);
		text_sanitize(ty.s, ty.len, info->type, sizeof info->type);
		text_sanitize(un.s, un.len, info->unit, sizeof info->unit);
		list_types(&d, info->types, sizeof info->types);
	}
	if (d.has_period_type) {
		struct pp_str ty = pp_string(&d, d.period_type.type), un = pp_string(&d, d.period_type.unit);
		text_sanitize(ty.s, ty.len, info->period_type, sizeof info->period_type);
		text_sanitize(un.s, un.len, info->period_unit, sizeof info->period_unit);
	}
	info->period = d.period;
	info->duration_nanos = d.duration;
	resolve_all(&d);
	pp_samples(&d, t, (size_t)vi, info);
	rc = 0;

	if (d.bad_samples)
		pp_msg(&d, "skipped %" PRIu64 " malformed sample%s (first at byte %" PRIu64 ": %s)",
		       d.bad_samples, d.bad_samples == 1 ? "" : "s", d.first_bad_sample, d.why_sample);
	if (d.bad_entries)
		pp_msg(&d, "skipped %" PRIu64 " malformed entr%s (sample types, mappings, locations or functions; "
		       "first at byte %" PRIu64 ": %s)", d.bad_entries, d.bad_entries == 1 ? "y" : "ies",
		       d.first_bad_entry, d.why_entry);
	if (d.bad_refs)
		pp_msg(&d, "%" PRIu64 " reference%s to locations, functions or mappings that the profile does "
		       "not hold (shown as [unknown] or addresses)", d.bad_refs, d.bad_refs == 1 ? "" : "s");
	if (d.bad_strs)
		pp_msg(&d, "%" PRIu64 " reference%s past the end of the string table (%zu strings) read as empty",
		       d.bad_strs, d.bad_strs == 1 ? "" : "s", d.nstr);
	if (d.negative)
		pp_msg(&d, "skipped %" PRIu64 " sample%s with negative values (a pprof -diff_base profile? "
		       "open it with --diff)", d.negative, d.negative == 1 ? "" : "s");
	if (d.cut_stacks)
		pp_msg(&d, "%" PRIu64 " stack%s deeper than %zu frames were cut", d.cut_stacks,
		       d.cut_stacks == 1 ? "" : "s", PP_MAX_FRAMES);
	if (d.cut_lines)
		pp_msg(&d, "%" PRIu64 " location%s with more than %d inlined lines kept the outer %d",
		       d.cut_lines, d.cut_lines == 1 ? "" : "s", PP_MAX_LINES, PP_MAX_LINES);
	if (o && o->label_root && info->samples && d.no_label == info->samples) {
		char k[128];
		text_sanitize(o->label_root, strlen(o->label_root), k, sizeof k);
		pp_msg(&d, "no sample has a label \"%s\"", k);
	}
out:
	free(owned);
	free(d.vt);
	free(d.str);
	free(d.fn);
	free(d.map);
	free(d.loc);
	free(d.lf);
	idmap_free(&d.fnid);
	idmap_free(&d.mapid);
	idmap_free(&d.locid);
	free(d.frm);
	free(d.fbad);
	free(d.pool);
	free(d.issues);
	arena_free(&d.names);
	free(d.lines);
	free(d.slocs);
	free(d.dslocs);
	free(d.ids);
	for (int i = 0; i < 2; i++) {
		free(d.frid[i]);
		free(d.lrec[i]);
		free(d.mids[i]);
		free(d.prev[i].ids);
		free(d.prev[i].locs);
	}
	free(d.labelbuf);
	free(d.seen.mem);
	free(d.seen.slots);
	return rc;
}
