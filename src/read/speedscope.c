/* speedscope: speedscope's JSON file format to stacks.
 *
 * Facts from the format's schema (file-format-schema.json) and its
 * documentation; no code from speedscope. One pass over the JSON (json.h):
 * frame names are collected, and every sample or evented stack becomes a
 * node of an index tree (parent, frame index), since "profiles" may come
 * before "shared". When the document ends the profiles chosen are walked
 * (iteratively) and their stacks handed to the tree, with the names. */
#include "config.h"
#include "speedscope.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "nodewalk.h"
#include "timeline.h"
#include "text.h"
#include "xalloc.h"

#define SS_SCHEMA "https://www.speedscope.app/file-format-schema.json"
/* Nodes of the index tree (distinct stack prefixes of all profiles) and
 * frames: beyond these the rest is skipped, with a message. */
#define SS_MAX_NODES ((size_t)1 << 25)
#define SS_MAX_FRAMES ((size_t)1 << 25)
#define SS_MAX_PROFILES 65536
#define SS_RECENT_BITS 16
/* Frames kept of the distinct samples (4 bytes each); beyond it new
 * samples are looked up frame by frame only. */
#define SS_MAX_KNOWN_FRAMES ((size_t)64 << 20)
#define SS_NONE UINT32_MAX
#define SS_BAD (UINT32_MAX - 1)     /* a sample that names no frame */

enum {  /* container tags (json.h) */
	T_TOP, T_ROOT, T_SHARED, T_FRAMES, T_FRAME, T_PROFILES, T_PROFILE,
	T_SAMPLES, T_SAMPLE, T_WEIGHTS, T_EVENTS, T_EVENT
};

/* A time or weight as the file wrote it: exact when an integer. */
struct ss_num {
	bool isint;
	int64_t i;
	double d;
};

struct ss_frame {
	size_t off;
	uint32_t len;
	bool named;
};

struct ss_prof {
	size_t name_off;
	uint32_t name_len;
	bool named;
	char unit[32];
	uint32_t root;          /* its node in the index tree */
	bool has_start;
	struct ss_num start;    /* startValue */
	size_t tev0, tev1;      /* its entries in ss.tev */
};

/* A stretch of time on one stack, for the caller's timeline: an evented
 * profile's time between two events on the stack then open, a sampled
 * profile's sample (at the sum of the weights before it, from
 * startValue: as speedscope lays samples out in time order). */
struct ss_tev {
	uint32_t node;          /* index tree node */
	bool rel;               /* at is from startValue (sampled) */
	double at;              /* in the profile's unit */
	struct ss_num w;
};

struct ss_known {                /* a distinct sample: its frames, its node */
	uint64_t hash;
	size_t off;             /* into kfr */
	uint32_t depth;
	uint32_t root;          /* of its profile */
	uint32_t leaf;          /* SS_NONE: empty slot */
};

struct ss_slot {
	uint32_t parent, frame, node;   /* node SS_NONE: empty */
};

struct ss_ix {                  /* a node of the index tree */
	uint32_t parent;
	uint32_t frame;         /* SS_NONE for a profile's root */
};

struct ss {
	struct tree *t;
	const char *name;
	reader_msg_fn *msg;
	void *msgarg;

	char *nbuf;                 /* frame and profile names */
	size_t nbuflen, nbufcap;
	struct ss_frame *frames;
	size_t nframes, capframes;
	struct ss_prof *profs;
	size_t nprofs, capprofs;

	struct ss_ix *ix;
	size_t nix, capix;
	union { uint64_t u; double f; } *w;     /* weights, by ix node */
	bool frac;                  /* w holds doubles */
	struct ss_slot *slots;      /* child hash: (parent, frame) -> node */
	struct ss_slot *recent;     /* a direct-mapped cache of it, small
	                               enough to stay in the CPU's cache */
	size_t capslots;
	/* the sample before, as nodes by depth: a sample that starts as it
	 * did finds those nodes without the hash (profilers' consecutive
	 * samples mostly share their outer frames) */
	uint32_t *pnode, *pframe;
	size_t nprev, capprev, sdepth;
	bool follow;                /* the sample so far is the one before's */
	/* the sample being read, and the distinct samples seen: a sample
	 * seen before is found by one probe of a hash of its frames and one
	 * compare of them, not by a probe of the index tree per frame */
	uint32_t *sbuf;
	size_t nsbuf, capsbuf;
	uint64_t shash;
	/* the sample before, held for its lookup (see sample_end) */
	bool held, hbad;
	uint32_t *hbuf;
	size_t nhbuf, caphbuf;
	uint64_t hhash;
	struct ss_known *known;
	size_t nknown, capknown;    /* capknown: a power of two (0: none) */
	uint32_t *kfr;              /* the known samples' frames */
	size_t nkfr, capkfr;

	/* the frame being read */
	size_t fr_off;
	uint32_t fr_len;
	bool fr_named;

	/* the profile being read */
	bool in_prof;
	struct ss_prof cur;
	bool saw_weights;
	uint64_t nsamp, nweights;   /* samples and weights seen */
	uint32_t *pend_leaf;        /* samples waiting for their weights */
	size_t nleaf, capleaf;
	struct ss_num *pend_w;      /* weights waiting for their samples */
	size_t npw, cappw;
	uint32_t leaf;              /* the sample being read: where it is */
	bool has_end;
	struct ss_num endv;
	/* evented */
	uint32_t *open;             /* open frames' nodes, outermost first */
	size_t nopen, capopen;
	bool started, broken;
	struct ss_num prev;
	char ev_type;
	int64_t ev_frame;
	bool ev_has_frame, ev_has_at;
	struct ss_num ev_at;
	uint64_t nevents;

	/* sample times (tl not NULL) */
	struct timeline *tl;
	struct ss_tev *tev;
	size_t ntev, captev;
	double tcur;                /* sampled: the weights so far */

	bool saw_root, saw_profiles, full;
	uint64_t bad, skipped_w;    /* malformed values; samples naming no frame */
	char first_bad[96];
	uint64_t mism;              /* profiles whose samples and weights differ */
};

static void bad(struct ss *c, const char *what)
{
	if (!c->bad++)
		snprintf(c->first_bad, sizeof c->first_bad, "%s", what);
}

/* The name of profile p (from 0) for messages and root frames. */
static size_t prof_name(const struct ss *c, const struct ss_prof *p, size_t i, char *out, size_t size)
{
	if (p->named)
		return text_sanitize(c->nbuf + p->name_off, p->name_len, out, size);
	int n = snprintf(out, size, "profile %zu", i + 1);
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

static size_t store(struct ss *c, const char *s, size_t len)
{
	if (len == 0)
		return c->nbuflen;
	if (c->nbuflen + len > c->nbufcap) {
		c->nbufcap = (c->nbuflen + len) * 2 + 4096;
		c->nbuf = xrealloc(c->nbuf, c->nbufcap);
	}
	memcpy(c->nbuf + c->nbuflen, s, len);
	c->nbuflen += len;
	return c->nbuflen - len;
}

/* ---- the index tree ----------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static uint32_t ix_new(struct ss *c, uint32_t parent, uint32_t frame)
{
	if (c->nix == c->capix) {
		c->capix = c->capix ? c->capix * 2 : 1024;
		c->ix = xreallocarray(c->ix, c->capix, sizeof *c->ix);
		c->w = xreallocarray(c->w, c->capix, sizeof *c->w);
	}
	c->ix[c->nix] = (struct ss_ix){ parent, frame };
	if (c->frac)
		c->w[c->nix].f = 0;
	else
		c->w[c->nix].u = 0;
	return (uint32_t)c->nix++;
}

static size_t slot_of(uint32_t parent, uint32_t frame, size_t cap)
{
	return mix(((uint64_t)parent << 32) | frame) & (cap - 1);
}

/* The child of parent for frame, made when new; SS_BAD when full. A slot
 * holds its key, so that a lookup touches one cache line, not two. */
static uint32_t ix_child(struct ss *c, uint32_t parent, uint32_t frame)
{
	if ((c->nix + 1) * 2 > c->capslots) {
		size_t cap = c->capslots ? c->capslots * 2 : 4096;
		struct ss_slot *sl = xmalloc(cap * sizeof *sl);
		for (size_t i = 0; i < cap; i++)
			sl[i].node = SS_NONE;
		for (size_t i = 0; i < c->capslots; i++) {
			if (c->slots[i].node == SS_NONE)
				continue;
			size_t k = slot_of(c->slots[i].parent, c->slots[i].frame, cap);
			while (sl[k].node != SS_NONE)
				k = (k + 1) & (cap - 1);
			sl[k] = c->slots[i];
		}
		free(c->slots);
		c->slots = sl;
		c->capslots = cap;
		if (!c->recent && cap >= (size_t)4 << SS_RECENT_BITS) {
			/* only for tables beyond the CPU's cache */
			c->recent = xmalloc(((size_t)1 << SS_RECENT_BITS) * sizeof *c->recent);
			for (size_t i = 0; i < (size_t)1 << SS_RECENT_BITS; i++)
				c->recent[i].node = SS_NONE;
		}
	}
	uint64_t h = mix(((uint64_t)parent << 32) | frame);
	struct ss_slot spare, *near = &spare;
	if (c->recent) {
		near = &c->recent[h >> (64 - SS_RECENT_BITS)];
		if (near->node != SS_NONE && near->parent == parent && near->frame == frame)
			return near->node;
	}
	size_t k = h & (c->capslots - 1);
	for (; c->slots[k].node != SS_NONE; k = (k + 1) & (c->capslots - 1))
		if (c->slots[k].parent == parent && c->slots[k].frame == frame) {
			*near = c->slots[k];
			return c->slots[k].node;
		}
	if (c->nix >= SS_MAX_NODES) {
		c->full = true;
		return SS_BAD;
	}
	uint32_t v = ix_new(c, parent, frame);
	c->slots[k] = (struct ss_slot){ parent, frame, v };
	*near = c->slots[k];
	return v;
}

static void to_frac(struct ss *c)
{
	for (size_t i = 0; i < c->nix; i++)
		c->w[i].f = (double)c->w[i].u;
	c->frac = true;
}

static void add_w(struct ss *c, uint32_t node, struct ss_num v)
{
	if (node >= SS_BAD) {
		c->skipped_w++;
		return;
	}
	if (!c->frac && v.isint && v.i >= 0) {
		uint64_t *u = &c->w[node].u;
		*u = (uint64_t)v.i > UINT64_MAX - *u ? UINT64_MAX : *u + (uint64_t)v.i;
		return;
	}
	double d = v.isint ? (double)v.i : v.d;
	if (!(d >= 0) || isinf(d)) {
		bad(c, "a negative weight");
		return;
	}
	if (!c->frac)
		to_frac(c);
	c->w[node].f += d;
}

/* add_w, and the stretch's time for the timeline: at (rel: from
 * startValue, and the sampled clock moves on by v). */
static void add_wt(struct ss *c, uint32_t node, struct ss_num v, double at, bool rel)
{
	add_w(c, node, v);
	if (!c->tl)
		return;
	double d = v.isint ? (double)v.i : v.d;
	if (rel)
		c->tcur += d >= 0 ? d : 0;
	if (node >= SS_BAD || !(d > 0) || isinf(d))
		return;
	if (c->ntev == c->captev) {
		c->captev = c->captev ? c->captev * 2 : 1024;
		c->tev = xreallocarray(c->tev, c->captev, sizeof *c->tev);
	}
	c->tev[c->ntev++] = (struct ss_tev){ node, rel, at, v };
}

static bool num_of(const struct json_event *e, struct ss_num *n)
{
	if (json_int(e, INT64_MIN, INT64_MAX, &n->i)) {
		n->isint = true;
		n->d = (double)n->i;
		return true;
	}
	n->isint = false;
	n->i = 0;       /* not read, but copied and compared beside isint */
	return json_double(e, &n->d);
}

/* b - a: exact for integers; false when it would go negative. */
static bool num_sub(struct ss_num b, struct ss_num a, struct ss_num *out)
{
	if (a.isint && b.isint) {
		if (b.i < a.i)
			return false;
		uint64_t d = (uint64_t)b.i - (uint64_t)a.i;
		if (d <= INT64_MAX) {
			*out = (struct ss_num){ .isint = true, .i = (int64_t)d, .d = (double)d };
			return true;
		}
	}
	double d = b.d - a.d;
	if (!(d >= 0))
		return false;
	*out = (struct ss_num){ .isint = false, .d = d };
	return true;
}

/* ---- profiles ------------------------------------------------------------ */

static void push_u32(uint32_t **v, size_t *n, size_t *cap, uint32_t x)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 1024;
		*v = xreallocarray(*v, *cap, sizeof **v);
	}
	(*v)[(*n)++] = x;
}

static void prof_begin(struct ss *c)
{
	c->in_prof = true;
	c->cur = (struct ss_prof){ 0 };
	c->cur.root = ix_new(c, SS_NONE, SS_NONE);
	c->cur.tev0 = c->ntev;
	c->tcur = 0;
	c->saw_weights = c->has_end = c->started = c->broken = false;
	c->nsamp = c->nweights = c->nevents = 0;
	c->nleaf = c->npw = c->nopen = c->nprev = 0;
}

static void prof_msg(struct ss *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void prof_msg(struct ss *c, const char *fmt, ...)
{
	char pn[96], body[256];
	prof_name(c, &c->cur, c->nprofs, pn, sizeof pn);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(body, sizeof body, fmt, ap);
	va_end(ap);
	json_msgf(c->msg, c->msgarg, c->name, "profile \"%s\": %s", pn, body);
}

static void sample_flush(struct ss *c);

static void prof_end(struct ss *c)
{
	sample_flush(c);
	c->in_prof = false;
	if (!c->saw_weights) {
		/* no weights: each sample counts one */
		for (size_t i = 0; i < c->nleaf; i++)
			add_wt(c, c->pend_leaf[i], (struct ss_num){ .isint = true, .i = 1, .d = 1 }, c->tcur, true);
	} else if (c->nsamp != c->nweights) {
		prof_msg(c, "%" PRIu64 " samples but %" PRIu64 " weights; the unpaired ones are skipped",
		         c->nsamp, c->nweights);
		c->mism++;
	}
	if (c->nopen > 0 && !c->broken) {
		struct ss_num d;
		if (c->has_end && c->started && num_sub(c->endv, c->prev, &d)) {
			add_wt(c, c->open[c->nopen - 1], d, c->prev.d, false);
			prof_msg(c, "%zu frame%s still open at the end; closed at endValue", c->nopen,
			         c->nopen == 1 ? "" : "s");
		} else {
			prof_msg(c, "%zu frame%s still open at the end (and no endValue after the last event)",
			         c->nopen, c->nopen == 1 ? "" : "s");
		}
	}
	c->nleaf = c->npw = 0;
	c->cur.tev1 = c->ntev;
	if (c->nprofs >= SS_MAX_PROFILES) {
		c->ntev = c->cur.tev0;
		c->full = true;
		return;
	}
	if (c->nprofs == c->capprofs) {
		c->capprofs = c->capprofs ? c->capprofs * 2 : 8;
		c->profs = xreallocarray(c->profs, c->capprofs, sizeof *c->profs);
	}
	c->profs[c->nprofs++] = c->cur;
}

/* The next frame of the sample being read: its node, from the sample
 * before while the two agree, else from the hash. */
static void frame_of_sample(struct ss *c, uint32_t frame)
{
	size_t d = c->sdepth++;
	if (c->follow && d < c->nprev && c->pframe[d] == frame) {
		c->leaf = c->pnode[d];
		return;
	}
	c->follow = false;
	c->leaf = ix_child(c, c->leaf, frame);
	if (d >= c->capprev) {
		c->capprev = c->capprev ? c->capprev * 2 : 256;
		c->pnode = xreallocarray(c->pnode, c->capprev, sizeof *c->pnode);
		c->pframe = xreallocarray(c->pframe, c->capprev, sizeof *c->pframe);
	}
	c->pnode[d] = c->leaf;
	c->pframe[d] = frame;
	c->nprev = d + 1;
}

static void known_grow(struct ss *c)
{
	size_t cap = c->capknown ? c->capknown * 2 : 1024;
	struct ss_known *k = xmalloc(cap * sizeof *k);
	for (size_t i = 0; i < cap; i++)
		k[i].leaf = SS_NONE;
	for (size_t i = 0; i < c->capknown; i++) {
		if (c->known[i].leaf == SS_NONE)
			continue;
		size_t h = mix(c->known[i].hash) & (cap - 1);
		while (k[h].leaf != SS_NONE)
			h = (h + 1) & (cap - 1);
		k[h] = c->known[i];
	}
	free(c->known);
	c->known = k;
	c->capknown = cap;
}

/* The node of a sample of n frames f[0..n), their hash h (see sample_frame). */
static uint32_t sample_node(struct ss *c, const uint32_t *f, size_t n, uint64_t h)
{
	if ((c->nknown + 1) * 2 > c->capknown)
		known_grow(c);
	size_t k = mix(h) & (c->capknown - 1);
	for (; c->known[k].leaf != SS_NONE; k = (k + 1) & (c->capknown - 1)) {
		const struct ss_known *e = &c->known[k];
		if (e->hash == h && e->depth == n && e->root == c->cur.root &&
		    memcmp(c->kfr + e->off, f, n * sizeof *f) == 0)
			return e->leaf;
	}
	/* new: frame by frame, from the sample before as far as it agrees */
	c->leaf = c->cur.root;
	c->sdepth = 0;
	c->follow = true;
	for (size_t i = 0; i < n && c->leaf != SS_BAD; i++)
		frame_of_sample(c, f[i]);
	c->nprev = c->leaf == SS_BAD ? 0 : c->sdepth;
	if (c->leaf == SS_BAD || n == 0 || n > UINT32_MAX || c->nkfr + n > SS_MAX_KNOWN_FRAMES)
		return c->leaf;
	if (c->nkfr + n > c->capkfr) {
		c->capkfr = (c->nkfr + n) * 2;
		c->kfr = xreallocarray(c->kfr, c->capkfr, sizeof *c->kfr);
	}
	memcpy(c->kfr + c->nkfr, f, n * sizeof *f);
	c->known[k] = (struct ss_known){ h, c->nkfr, (uint32_t)n, c->cur.root, c->leaf };
	c->nkfr += n;
	c->nknown++;
	return c->leaf;
}

/* The held sample (see sample_end) to its node, then to its weight. */
static void sample_done(struct ss *c)
{
	c->held = false;
	uint32_t leaf = c->hbad ? SS_BAD : c->nhbuf ? sample_node(c, c->hbuf, c->nhbuf, c->hhash) : c->cur.root;
	uint64_t i = c->nsamp++;
	if (i < c->nweights) {
		if (i < c->npw)
			add_wt(c, leaf, c->pend_w[i], c->tcur, true);
		return;
	}
	if (c->nweights == 0)
		push_u32(&c->pend_leaf, &c->nleaf, &c->capleaf, leaf);
	/* else: more samples than weights, reported at the profile's end */
}

/* A sample is looked up one sample late: its slot in the table of
 * distinct samples is fetched while the next one is read (the lookup
 * waited on memory most of the time, about 190 ns a sample). The sample
 * is held until then, and the held one is done first. */
static void sample_end(struct ss *c)
{
	bool bad = c->leaf == SS_BAD;  /* before the held one moves c->leaf */
	if (c->capknown)
		__builtin_prefetch(&c->known[mix(c->shash) & (c->capknown - 1)]);
	if (c->held)
		sample_done(c);
	uint32_t *b = c->hbuf;
	size_t cap = c->caphbuf;
	c->hbuf = c->sbuf;
	c->caphbuf = c->capsbuf;
	c->nhbuf = c->nsbuf;
	c->sbuf = b;
	c->capsbuf = cap;
	c->nsbuf = 0;
	c->hhash = c->shash;
	c->hbad = bad;
	c->held = true;
}

/* Done with the held sample, if any: at the end of the samples and of
 * the profile, before anything that counts them. */
static void sample_flush(struct ss *c)
{
	if (c->held)
		sample_done(c);
}

/* The next weight of the profile being read. */
static void weight_is(struct ss *c, struct ss_num v)
{
	uint64_t i = c->nweights++;
	if (i < c->nsamp) {
		if (i < c->nleaf)
			add_wt(c, c->pend_leaf[i], v, c->tcur, true);
		return;
	}
	if (c->nsamp == 0) {
		if (c->npw == c->cappw) {
			c->cappw = c->cappw ? c->cappw * 2 : 1024;
			c->pend_w = xreallocarray(c->pend_w, c->cappw, sizeof *c->pend_w);
		}
		c->pend_w[c->npw++] = v;
	}
}

static void weight(struct ss *c, const struct json_event *e)
{
	struct ss_num v;
	if (!num_of(e, &v)) {
		bad(c, "a weight that is not a number");
		v = (struct ss_num){ .isint = true };
	}
	weight_is(c, v);
}

static void event_end(struct ss *c)
{
	uint64_t k = c->nevents++;
	if (c->broken)
		return;
	if ((c->ev_type != 'O' && c->ev_type != 'C') || !c->ev_has_frame || !c->ev_has_at) {
		bad(c, "an event without a type \"O\" or \"C\", a frame and a time");
		return;
	}
	struct ss_num d = { .isint = true };
	if (c->started && !num_sub(c->ev_at, c->prev, &d)) {
		prof_msg(c, "event %" PRIu64 " goes back in time; this profile's events from it on are "
		         "skipped", k);
		c->broken = true;
		return;
	}
	uint32_t frame = (uint32_t)c->ev_frame;
	if (c->ev_type == 'C' && (c->nopen == 0 || c->ix[c->open[c->nopen - 1]].frame != frame)) {
		if (c->nopen == 0)
			prof_msg(c, "event %" PRIu64 " closes frame %" PRIu32 ", but no frame is open; "
			         "this profile's events from it on are skipped", k, frame);
		else
			prof_msg(c, "event %" PRIu64 " closes frame %" PRIu32 " while frame %" PRIu32 " is the "
			         "innermost open one; this profile's events from it on are skipped", k, frame,
			         c->ix[c->open[c->nopen - 1]].frame);
		c->broken = true;
		return;
	}
	if (c->started && c->nopen > 0)
		add_wt(c, c->open[c->nopen - 1], d, c->prev.d, false);
	c->prev = c->ev_at;
	c->started = true;
	if (c->ev_type == 'C') {
		c->nopen--;
		return;
	}
	uint32_t top = c->nopen ? c->open[c->nopen - 1] : c->cur.root;
	uint32_t v = ix_child(c, top, frame);
	if (v == SS_BAD) {
		c->broken = true;
		return;
	}
	push_u32(&c->open, &c->nopen, &c->capopen, v);
}

/* ---- events -------------------------------------------------------------- */

static uint8_t container(struct ss *c, const struct json_event *e)
{
	bool map = e->type == JSON_START_MAP;
	const char *k = e->key;
	switch (e->parent) {
	case T_TOP:
		c->saw_root = map;
		return map ? T_ROOT : JSON_SKIP;
	case T_ROOT:
		if (map && strcmp(k, "shared") == 0)
			return T_SHARED;
		if (!map && strcmp(k, "profiles") == 0) {
			c->saw_profiles = true;
			return T_PROFILES;
		}
		return JSON_SKIP;
	case T_SHARED:
		return !map && strcmp(k, "frames") == 0 ? T_FRAMES : JSON_SKIP;
	case T_FRAMES:
		if (!map) {
			bad(c, "a frame that is not an object");
			return JSON_SKIP;
		}
		c->fr_named = false;
		return T_FRAME;
	case T_PROFILES:
		if (!map || c->in_prof)
			return JSON_SKIP;
		prof_begin(c);
		return T_PROFILE;
	case T_PROFILE:
		if (!map && strcmp(k, "samples") == 0)
			return T_SAMPLES;
		if (!map && strcmp(k, "weights") == 0) {
			c->saw_weights = true;
			return T_WEIGHTS;
		}
		if (!map && strcmp(k, "events") == 0)
			return T_EVENTS;
		return JSON_SKIP;
	case T_SAMPLE:
		bad(c, "a frame index that is not a number");
		c->leaf = SS_BAD;
		return JSON_SKIP;
	case T_SAMPLES:
		if (map) {
			bad(c, "a sample that is not an array");
			return JSON_SKIP;
		}
		c->leaf = c->cur.root;
		c->nsbuf = 0;
		c->shash = mix(c->cur.root + 0x9e3779b97f4a7c15ULL);
		return T_SAMPLE;
	case T_EVENTS:
		if (!map) {
			bad(c, "an event that is not an object");
			return JSON_SKIP;
		}
		c->ev_type = 0;
		c->ev_has_frame = c->ev_has_at = false;
		return T_EVENT;
	default:
		return JSON_SKIP;
	}
}

/* The next frame index of the sample being read (v < 0: not a valid one). */
static void sample_frame(struct ss *c, int64_t v)
{
	if (v < 0) {
		if (c->leaf != SS_BAD)
			bad(c, "a frame index out of range");
		c->leaf = SS_BAD;
	} else if (c->leaf != SS_BAD) {
		push_u32(&c->sbuf, &c->nsbuf, &c->capsbuf, (uint32_t)v);
		c->shash = (c->shash ^ (uint64_t)v) * 0x100000001b3ULL;
	}
}

static void scalar(struct ss *c, const struct json_event *e)
{
	const char *k = e->key;
	int64_t v;
	switch (e->parent) {
	case T_FRAME:
		if (strcmp(k, "name") == 0 && e->type == JSON_STRING) {
			c->fr_off = store(c, e->s, e->len);
			c->fr_len = (uint32_t)e->len;   /* <= JSON_MAX_TOKEN + a slice */
			c->fr_named = e->len > 0;
		}
		break;
	case T_PROFILE:
		if (strcmp(k, "name") == 0 && e->type == JSON_STRING) {
			c->cur.name_off = store(c, e->s, e->len);
			c->cur.name_len = (uint32_t)e->len;
			c->cur.named = e->len > 0;
		} else if (strcmp(k, "unit") == 0 && e->type == JSON_STRING) {
			text_sanitize(e->s, e->len, c->cur.unit, sizeof c->cur.unit);
		} else if (strcmp(k, "endValue") == 0) {
			c->has_end = num_of(e, &c->endv);
		} else if (strcmp(k, "startValue") == 0) {
			c->cur.has_start = num_of(e, &c->cur.start);
		}
		break;
	case T_SAMPLES:
		bad(c, "a sample that is not an array");
		break;
	case T_SAMPLE:
		sample_frame(c, json_int(e, 0, (int64_t)SS_MAX_FRAMES - 1, &v) ? v : -1);
		break;
	case T_WEIGHTS:
		weight(c, e);
		break;
	case T_EVENT:
		if (strcmp(k, "type") == 0) {
			c->ev_type = e->type == JSON_STRING && e->len == 1 ? e->s[0] : 0;
		} else if (strcmp(k, "frame") == 0) {
			c->ev_has_frame = json_int(e, 0, (int64_t)SS_MAX_FRAMES - 1, &c->ev_frame);
		} else if (strcmp(k, "at") == 0) {
			c->ev_has_at = num_of(e, &c->ev_at);
		}
		break;
	default:
		break;
	}
}

/* Integers in a row (JSON_INTS) of a sample or the weights. */
static void ints(struct ss *c, const struct json_event *e)
{
	if (e->parent == T_SAMPLE) {
		for (size_t i = 0; i < e->nrun; i++)
			sample_frame(c, e->run[i] < (int64_t)SS_MAX_FRAMES ? e->run[i] : -1);
	} else if (e->parent == T_WEIGHTS) {
		for (size_t i = 0; i < e->nrun; i++)
			weight_is(c, (struct ss_num){ .isint = true, .i = e->run[i], .d = (double)e->run[i] });
	}
}

static bool on_event(void *arg, struct json_event *e)
{
	struct ss *c = arg;
	switch (e->type) {
	case JSON_START_MAP:
	case JSON_START_ARRAY:
		e->tag = container(c, e);
		/* the bulk of a file: json's scanner reads it */
		e->fast = e->tag == T_SAMPLES || e->tag == T_WEIGHTS || e->tag == T_EVENTS || e->tag == T_FRAMES;
		e->int_runs = e->tag == T_SAMPLE || e->tag == T_WEIGHTS;
		return true;
	case JSON_INTS:
		ints(c, e);
		return true;
	case JSON_END_MAP:
	case JSON_END_ARRAY:
		switch (e->tag) {
		case T_FRAME:
			if (c->nframes >= SS_MAX_FRAMES) {
				c->full = true;
				break;
			}
			if (c->nframes == c->capframes) {
				c->capframes = c->capframes ? c->capframes * 2 : 1024;
				c->frames = xreallocarray(c->frames, c->capframes, sizeof *c->frames);
			}
			c->frames[c->nframes++] = (struct ss_frame){ c->fr_off, c->fr_len, c->fr_named };
			break;
		case T_SAMPLE:
			sample_end(c);
			break;
		case T_SAMPLES:
			sample_flush(c);
			break;
		case T_EVENT:
			event_end(c);
			break;
		case T_PROFILE:
			prof_end(c);
			break;
		default:
			break;
		}
		return true;
	default:
		scalar(c, e);
		return true;
	}
}

/* ---- building ------------------------------------------------------------ */

/* Adds node's stack f[0..n) (the first keep as the stack before) with
 * its weight; its leaf goes to leafof[node] when leafof is not NULL. */
static void add(struct ss *c, size_t keep, const struct tree_frame *f, size_t n, uint32_t node,
                tree_idx *leafof)
{
	/* Fractional weights are sums of doubles (JSON numbers, which most
	 * writers of the format hold as doubles anyway): 9 decimals of them
	 * are meaningful, the binary noise below is not. */
	if (c->frac) {
		if (leafof) {   /* the _dec form does not say the leaf: the path first */
			leafof[node] = tree_add_stack_tail(c->t, keep, f + keep, n - keep, 0);
			c->t->stacks--;
			keep = n;
		}
		tree_add_stack_tail_dec(c->t, keep, f + keep, n - keep,
		                        tree_dec_from_double(c->w[node].f));
	} else {
		tree_idx leaf = tree_add_stack_tail(c->t, keep, f + keep, n - keep, c->w[node].u);
		if (leafof)
			leafof[node] = leaf;
	}
}

static bool weighs(const struct ss *c, uint32_t node)
{
	return c->frac ? c->w[node].f > 0 : c->w[node].u > 0;
}

/* Hands the stacks of the profiles marked in show[] to the tree, walking
 * the index tree without recursion; a profile's name comes first when
 * named is set. Returns the number of nodes under frames the file does
 * not have (their weight is dropped); *empty counts the stacks without a
 * frame (empty samples) of an unnamed profile, dropped as well. leafof
 * (NULL: not wanted) gets each added node's leaf in the tree. */
static uint64_t emit(struct ss *c, const bool *show, bool named, uint64_t *empty, tree_idx *leafof)
{
	size_t n = c->nix;
	struct nodewalk w;
	/* a profile's root has the parent SS_NONE (>= n) */
	nodewalk_init(&w, c->ix ? &c->ix[0].parent : NULL, sizeof *c->ix, n);
	/* each index node makes one tree node at most: the room at once, not
	 * doubled as it fills (make bench's file: peak RSS 125 -> 117 MB);
	 * without it, the usual growth */
	tree_try_reserve(c->t, n);
	struct tree_frame *path = xmalloc((n + 2) * sizeof *path);
	char (*pnames)[128] = named ? xmalloc(c->nprofs * sizeof *pnames) : NULL;
	uint64_t missing = 0;
	static const char anon[] = "(anonymous)";
	for (size_t p = 0; p < c->nprofs; p++) {
		if (!show[p])
			continue;
		size_t invalid = SIZE_MAX;     /* level of a missing frame */
		for (uint32_t v = nodewalk_start(&w, c->profs[p].root); v != NODEWALK_END; v = nodewalk_next(&w)) {
			if (invalid != SIZE_MAX && invalid >= nodewalk_depth(&w))
				invalid = SIZE_MAX;     /* left the missing frame's subtree */
			size_t plen = nodewalk_base(&w);
			uint32_t fr = c->ix[v].frame;
			if (fr == SS_NONE) {
				if (named) {
					size_t len = prof_name(c, &c->profs[p], p, pnames[p], sizeof pnames[p]);
					path[plen++] = (struct tree_frame){ pnames[p], len };
				}
			} else if (fr >= c->nframes) {
				if (invalid == SIZE_MAX)
					invalid = nodewalk_depth(&w);
			} else if (c->frames[fr].named) {
				path[plen++] = (struct tree_frame){ c->nbuf + c->frames[fr].off, c->frames[fr].len };
			} else {
				path[plen++] = (struct tree_frame){ anon, sizeof anon - 1 };
			}
			nodewalk_enter(&w, v, plen);
			if (!weighs(c, v))
				continue;
			if (invalid != SIZE_MAX) {
				missing++;
			} else if (plen == 0) {
				(*empty)++;     /* nothing to show it on */
			} else {
				size_t keep = nodewalk_keep(&w, plen);
				add(c, keep, path, plen, v, leafof);
			}
		}
	}
	free(path);
	nodewalk_free(&w);
	/* the tree copied the names it kept */
	free(pnames);
	return missing;
}

/* Nanoseconds per unit of a time unit; 0 for others ("bytes", "none"). */
static double unit_ns(const char *unit)
{
	static const struct { const char *name; double ns; } units[] = {
		{ "nanoseconds", 1 }, { "microseconds", 1e3 }, { "milliseconds", 1e6 }, { "seconds", 1e9 },
	};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strcmp(unit, units[i].name) == 0)
			return units[i].ns;
	return 0;
}

/* The shown profiles' stretches of time into the caller's timeline, once
 * the tree has its leaves and decimals: one thread per profile (its
 * number as the tid, its name as the comm), times in ns (clamped to
 * [0, 2^64)), weights in the tree's units. Profiles that do not count in
 * time have none. */
static void add_times(struct ss *c, const bool *show, const tree_idx *leafof)
{
	for (size_t p = 0; p < c->nprofs; p++) {
		const struct ss_prof *pr = &c->profs[p];
		double ns = unit_ns(pr->unit);
		if (!show[p] || ns == 0 || pr->tev0 == pr->tev1)
			continue;
		char pn[128];
		size_t len = prof_name(c, pr, p, pn, sizeof pn);
		uint32_t th = timeline_thread(c->tl, -1, (int64_t)p + 1, pn, len);
		double start = pr->has_start ? pr->start.d : 0;
		for (size_t i = pr->tev0; i < pr->tev1; i++) {
			const struct ss_tev *e = &c->tev[i];
			tree_idx leaf = leafof[e->node];
			if (leaf == TREE_NONE)
				continue;
			double t = ((e->rel ? start : 0) + e->at) * ns;
			uint64_t at = !(t > 0) ? 0 : t >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)t;
			uint64_t w;
			if (e->w.isint) {
				w = tree_units_from(c->t, (uint64_t)e->w.i, 0);
			} else {
				struct tree_dec d = tree_dec_from_double(e->w.d);
				w = tree_units_from(c->t, d.units, d.decimals);
			}
			timeline_add(c->tl, at, leaf, th, w);
		}
	}
}

/* Which profiles to show: all, or the one o->profile names. */
static bool pick(struct ss *c, const struct speedscope_options *o, bool *show)
{
	const char *want = o ? o->profile : NULL;
	if (!want) {
		for (size_t p = 0; p < c->nprofs; p++)
			show[p] = true;
		return true;
	}
	size_t wl = strlen(want);
	for (size_t p = 0; p < c->nprofs; p++) {
		const struct ss_prof *pr = &c->profs[p];
		if (pr->named && pr->name_len == wl && memcmp(c->nbuf + pr->name_off, want, wl) == 0) {
			show[p] = true;
			return true;
		}
	}
	char *end;
	unsigned long long k = strtoull(want, &end, 10);
	if (*want >= '0' && *want <= '9' && *end == '\0' && k >= 1 && k <= c->nprofs) {
		show[k - 1] = true;
		return true;
	}
	char list[256];
	size_t at = 0;
	for (size_t p = 0; p < c->nprofs && at + 8 < sizeof list; p++) {
		char pn[96];
		prof_name(c, &c->profs[p], p, pn, sizeof pn);
		int w = snprintf(list + at, sizeof list - at, "%s%zu \"%s\"", p ? ", " : "", p + 1, pn);
		if (w < 0)
			break;
		at += (size_t)w < sizeof list - at ? (size_t)w : sizeof list - at - 1;
	}
	list[at] = '\0';
	json_msgf(c->msg, c->msgarg, c->name, "no profile \"%s\" in the file (it has %zu: %s)", want,
	          c->nprofs, c->nprofs ? list : "none");
	return false;
}

static int build(struct ss *c, const struct speedscope_options *o)
{
	struct speedscope_info *info = o ? o->info : NULL;
	bool *show = xcalloc(c->nprofs ? c->nprofs : 1, sizeof *show);
	if (!pick(c, o, show)) {
		free(show);
		return 1;
	}
	uint32_t shown = 0;
	const char *unit = NULL;
	bool mixed = false;
	size_t one = 0;
	for (size_t p = 0; p < c->nprofs; p++) {
		if (!show[p])
			continue;
		shown++;
		one = p;
		if (!unit)
			unit = c->profs[p].unit;
		else if (strcmp(unit, c->profs[p].unit) != 0)
			mixed = true;
	}
	tree_idx *leafof = NULL;
	if (c->tl && c->ntev) {
		leafof = xmalloc((c->nix ? c->nix : 1) * sizeof *leafof);
		for (size_t i = 0; i < c->nix; i++)
			leafof[i] = TREE_NONE;
	}
	uint64_t empty = 0, missing = emit(c, show, shown > 1, &empty, leafof);
	if (leafof)
		add_times(c, show, leafof);
	free(leafof);
	if (c->full)
		json_msgf(c->msg, c->msgarg, c->name, "the file is larger than this reader's tables (%zu stack "
		          "nodes, %zu frames, %d profiles); the rest was skipped", SS_MAX_NODES, SS_MAX_FRAMES,
		          SS_MAX_PROFILES);
	if (c->bad)
		json_msgf(c->msg, c->msgarg, c->name, "skipped %" PRIu64 " malformed value%s (first: %s)", c->bad,
		          c->bad == 1 ? "" : "s", c->first_bad);
	if (missing)
		json_msgf(c->msg, c->msgarg, c->name, "%" PRIu64 " %s a frame that shared.frames does not have "
		          "(it has %zu); skipped", missing, missing == 1 ? "stack names" : "stacks name", c->nframes);
	if (empty)
		json_msgf(c->msg, c->msgarg, c->name, "the weight of samples without frames is left out");
	if (mixed)
		json_msgf(c->msg, c->msgarg, c->name, "the profiles shown count in different units; "
		          "pick one with --profile");
	if (info) {
		snprintf(info->unit, sizeof info->unit, "%s", mixed ? "mixed" : unit ? unit : "");
		info->profiles = (uint32_t)c->nprofs;
		info->shown = shown;
		info->name[0] = '\0';
		if (shown == 1)
			prof_name(c, &c->profs[one], one, info->name, sizeof info->name);
	}
	free(show);
	return 0;
}

/* ---- entry points ------------------------------------------------------- */

int speedscope_load(struct tree *t, struct source *s, const char *name,
                    const struct speedscope_options *o, reader_msg_fn *msg, void *msgarg)
{
	struct ss *c = xcalloc(1, sizeof *c);
	c->t = t;
	c->name = name;
	c->msg = msg;
	c->msgarg = msgarg;
	c->tl = o ? o->timeline : NULL;
	if (o && o->info)
		memset(o->info, 0, sizeof *o->info);
	enum json_status st = json_parse(s, name, on_event, c, msg, msgarg, o ? o->progress : NULL,
	                                 o ? o->progress_arg : NULL);
	int rc;
	if (c->in_prof)
		prof_end(c);    /* cut short inside a profile: keep what it had */
	if (!c->saw_root || !c->saw_profiles) {
		if (st == JSON_OK)
			json_msgf(msg, msgarg, name, c->saw_root ? "not a speedscope file (no \"profiles\" array)"
			                                         : "not a speedscope file (not a JSON object)");
		rc = 1;
	} else {
		if (st != JSON_OK && c->nprofs)
			json_msgf(msg, msgarg, name, "what was read before that is shown");
		rc = build(c, o);
	}
	free(c->nbuf);
	free(c->frames);
	free(c->profs);
	free(c->ix);
	free(c->w);
	free(c->slots);
	free(c->recent);
	free(c->sbuf);
	free(c->hbuf);
	free(c->known);
	free(c->kfr);
	free(c->pnode);
	free(c->pframe);
	free(c->pend_leaf);
	free(c->pend_w);
	free(c->open);
	free(c->tev);
	free(c);
	return rc;
}

bool speedscope_sniff(const unsigned char *buf, size_t len, bool eof)
{
	(void)eof;
	if (len > SPEEDSCOPE_SNIFF_BYTES)
		len = SPEEDSCOPE_SNIFF_BYTES;
	const unsigned char *end = buf + len, *p = json_skip_ws(buf, end);
	if (p >= end || *p != '{')
		return false;
	static const char key[] = "\"$schema\"", url[] = "\"" SS_SCHEMA "\"";
	for (const unsigned char *q = p; (q = memmem(q, (size_t)(end - q), key, sizeof key - 1)) != NULL;
	     q += sizeof key - 1) {
		const unsigned char *r = json_skip_ws(q + sizeof key - 1, end);
		if (r >= end || *r != ':')
			continue;
		r = json_skip_ws(r + 1, end);
		if ((size_t)(end - r) >= sizeof url - 1 && memcmp(r, url, sizeof url - 1) == 0)
			return true;
	}
	/* Without "$schema" near the start: the format's own keys first, and
	 * what follows them looks like it. */
	p = json_skip_ws(p + 1, end);
	static const char shared[] = "\"shared\"", profiles[] = "\"profiles\"";
	if ((size_t)(end - p) > sizeof shared && memcmp(p, shared, sizeof shared - 1) == 0)
		return memmem(p, (size_t)(end - p), "\"frames\"", 8) != NULL;
	if ((size_t)(end - p) > sizeof profiles && memcmp(p, profiles, sizeof profiles - 1) == 0)
		return memmem(p, (size_t)(end - p), "\"sampled\"", 9) != NULL ||
		       memmem(p, (size_t)(end - p), "\"evented\"", 9) != NULL;
	return false;
}
