/* pprof_int: what the pprof reader's files share (internal; the public
 * contract is pprof.h). pprof_wire.c reads the wire format and sniffs;
 * pprof_index.c is pass 1 (the index of strings, functions, mappings and
 * locations, the sample type, every location resolved to frames);
 * pprof_pre.c counts the samples of a stream by stack as they arrive;
 * pprof_stack.c turns a sample's locations into a stack in a tree;
 * pprof.c reads the samples (pass 2, with the repeated-stack cache) and is
 * the entry point. See pprof.c's top for the whole picture. */
#ifndef TFLAME_PPROF_INT_H
#define TFLAME_PPROF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arena.h"
#include "pprof.h"
#include "pprof_wire.h"
#include "tree.h"

/* In file order the samples' bytes are fetched this far ahead of the
 * reader (the hardware's own read-ahead stops at each page). */
#define PP_STREAM_AHEAD 2048

/* Inlined lines kept per location (the outermost ones: they connect to
 * the caller), and frames per stack (the root side is kept). Both bound
 * the frames one input byte can produce. */
#define PP_MAX_LINES 128
#define PP_MAX_FRAMES ((size_t)1 << 20)
/* Entries of one kind (strings, locations, ...): indices stay 32-bit. */
#define PP_MAX_ENTRIES ((size_t)UINT32_MAX - 1)
#define PP_NONE UINT32_MAX
/* Stacks a repeated-stack cache holds at most (pprof.c's seen_insert). */
#define PP_SEEN_MAX ((size_t)1 << 20)
/* Slots a lookup in it reads at most. */
#define PP_SEEN_PROBES 512
/* Samples whose repeats decide between reading in parts and in one tree
 * (pprof.c's repeats_often). */
#define PP_PARTS_PROBE 65536
/* Every PP_MARK-th sample's place is kept by pass 1 (pp.marks). */
#define PP_MARK 65536
/* Stacks handed to the tree at once (tree_add_stacks): enough for the
 * cache misses of one depth to overlap. */
#define PP_BATCH 16

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
struct pp_idmap {
	uint32_t *direct;           /* [id]: position + 1, 0 when none */
	size_t ndirect;
	uint64_t *keys;
	uint32_t *vals;             /* position + 1, 0 for an empty slot */
	size_t mask;
};

static inline uint64_t pp_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

/* The hash of a stack's key (its packed location ids; see pprof.c's
 * seen_hash), for pprof.c's cache and pprof_pre.c's (in pprof_stack.c). */
uint64_t pp_key_hash(const unsigned char *p, size_t n, uint64_t seed);

/* Builds the map of n ids (ids[i*stride], a uint64_t at the start of each
 * entry); the first of equal ids wins. */
void pp_idmap_build(struct pp_idmap *m, const void *base, size_t n, size_t stride);
uint32_t pp_idmap_get_hashed(const struct pp_idmap *m, uint64_t id);
/* The position of id, or PP_NONE. */
static inline uint32_t pp_idmap_get(const struct pp_idmap *m, uint64_t id)
{
	if (id < m->ndirect)
		return m->direct[id] - 1;   /* 0 - 1 is PP_NONE */
	return pp_idmap_get_hashed(m, id);
}
/* Frees m's memory and empties it. */
void pp_idmap_free(struct pp_idmap *m);

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

/* A stack seen before (see seen_find), its key's bytes after it, then
 * (unaligned) the number of dangling ids among them when PP_SEEN_BAD (a
 * uint32_t), its label root's value when PP_SEEN_LV (an int64_t; else 0).
 * 16 bytes before the key, so that most entries fit a cache line: a
 * lookup reads the slot and one line. len PP_SEEN_FILL: no entry, the
 * next `fill` bytes unused (an entry of up to 64 bytes starts a line
 * rather than cross one). */
struct pp_seen_e {
	uint32_t len;               /* key bytes */
	union {
		struct {
			uint8_t w, lab;     /* its tree: 0 t, 1 before; label root
			                       (lab, lv: see label_count) */
			uint8_t flags;      /* PP_SEEN_* */
		};
		uint32_t fill;
	};
	uint64_t count;             /* its samples' count not added yet */
	unsigned char key[];        /* its packed location ids */
};
#define PP_SEEN_FILL UINT32_MAX
#define PP_SEEN_CUT 1           /* cut at PP_MAX_FRAMES */
#define PP_SEEN_BAD 2
#define PP_SEEN_LV 4

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
	bool cold;                  /* not turned off for few repeats */
	bool append_only;           /* nothing is looked up: no slots */
	/* The names of the stacks held from `added` on, one record each in
	 * the same order (see pprof.c's seen_names): its count's halves
	 * (filled in at the end), its number of names, the names. */
	uint32_t *rec;
	size_t nrec, caprec;
	bool rec_off;               /* none kept (pprof.c: seen_sorted_ok) */
	size_t hint;                /* stacks expected (0: not known): the
	                               slots' first size */
};

struct pp {
	const char *name;
	reader_msg_fn *msg;
	void *msgarg;
	const struct pprof_options *o;
	const unsigned char *data;
	size_t size;
	bool mapped;                /* data is the source's mapping (pages that
	                               may be dropped and read again) */

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
	struct pp_idmap fnid, mapid, locid;
	uint64_t nsamples;
	const unsigned char *samples_at, *samples_end;  /* from the first Sample
	                               field to the end of the last */
	bool samples_mixed;         /* other fields between samples_at and
	                               samples_end */
	const unsigned char **marks;    /* where samples 0, PP_MARK, 2 PP_MARK,
	                               ... start (pass 1): where a thread may
	                               start reading them */
	size_t nmarks, capmarks;
	bool too_many;              /* entries past PP_MAX_ENTRIES were dropped */
	bool reused;                /* pass 1 may be of a read given up (see
	                               struct pp_input): its message waits */
	const struct pp_pre *pre;   /* when not NULL, pass 1 takes its run of
	                               samples as it counted them */
	uint8_t repeats;            /* pprof.c's repeats_often: 0 not known yet,
	                               1 no, 2 yes */
	uint32_t probed, distinct;  /* what it found: samples looked at, and
	                               how many of them were a first */
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
	const uint32_t *rank;       /* each name's rank by bytes (pprof.c's
	                               name_ranks), made once for the trees
	                               that share the names (parts), or NULL */
	size_t nrank;
	/* From here to the end: scratch, caches and counts, which a thread
	 * reading parts has of its own (pprof.c's worker_init zeroes them). */
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
	/* Stacks waiting for tree_add_stacks (tree_batches), per tree: their
	 * lookups overlap. bids holds their tails' names one after another. */
	struct tree *bt[2];
	struct tree_stack batch[2][PP_BATCH];
	size_t nbatch[2];
	strtab_id *bids[2];
	size_t nbids[2], capbids[2];
	struct pp_seen seen;
	bool half;                  /* a thread's copy reading the second
	                               half of the samples into its cache
	                               alone (pprof.c: pp_samples) */
	bool half_failed;           /* it met what only the tree could take:
	                               its half is read again in one */
	bool issues_later;          /* a thread's copy (pprof.c's workers):
	                               a location's issue is only marked
	                               reached, and counted by the merge */

	/* counts for the closing messages */
	uint64_t bad_refs, bad_strs, bad_samples, bad_entries, negative, cut_stacks, cut_lines;
	uint64_t no_label, first_bad_sample, first_bad_entry;
	const char *why_sample, *why_entry;
	char why_sample_buf[96];
};

/* pp.lrec: below LREC_REF the id of a location's one frame; from there
 * LREC_REF + that frame (its id not known yet); from LREC_MULTI on,
 * LREC_MULTI + where the ids of a location's frames are in pp.mids;
 * PP_NONE: a location to read the slow way (see pprof_stack.c). */
#define LREC_REF 0x40000000u
#define LREC_MULTI 0x80000000u

/* The samples taken while the message arrives (pprof_pre.c), when it is
 * read as a stream (decompressed on another thread): where the rest of the
 * message is needed to add a sample to a tree (its locations, the string
 * table, the sample type to weigh by), a sample can already be counted by
 * its stack, the bytes of its packed location ids, as pprof.c's
 * repeated-stack cache counts it. Read from the first field, a sample at a
 * time as they come, weighed by the last sample type (pprof's default
 * unless the message names another: checked when all is there), until a
 * sample that the cache would not take alone (see pre_take), or a field
 * after the samples. Offsets, not pointers: the buffer may move. */
struct pp_pre {
	bool on;                    /* still taking samples */
	bool failed;                /* few repeats: of no use but to pass 1,
	                               the samples' run framed (see pre_walk) */
	bool bad_key;               /* a key's location ids are malformed */
	size_t at;                  /* offset of the next field to read */
	size_t first;               /* the first sample's offset */
	size_t nvt;                 /* sample types before the first sample */
	size_t vi;                  /* the type weighed by */
	uint64_t fields;            /* Sample fields taken */
	uint64_t again;             /* of the first PP_PARTS_PROBE: repeats */
	size_t *marks;              /* offsets of fields 0, PP_MARK, ... taken */
	size_t nmarks, capmarks;
	/* the stacks with their counts, in order of first appearance; the
	 * keys of samples of value 0 (skipped, but what their locations
	 * count is counted) */
	struct pp_pre_tab {
		unsigned char *mem;     /* entries (pprof_pre.c's pre_e) */
		size_t nmem, capmem;
		uint64_t *slots;        /* as pp_seen's */
		size_t mask, n;
	} tab, zero;
};
struct pp_pre_entry {
	const unsigned char *key;
	size_t len;
	uint64_t hash;              /* pp_key_hash(key, len, 0) */
	uint64_t count;             /* summed value */
	uint64_t nsamp;             /* samples */
};
/* An empty pass, taking samples when on. */
void pp_pre_init(struct pp_pre *p, bool on);
/* Takes what buf[0..len) holds past what was taken (buf holds the same
 * bytes as at the last call, and more; it may have moved). */
void pp_pre_step(struct pp_pre *p, const unsigned char *buf, size_t len);
/* Whether every key's location ids are well-formed varints (a malformed
 * one makes its samples malformed, which only the reader can tell). */
bool pp_pre_keys_ok(const struct pp_pre *p);
/* The entry of table t (pp_pre.tab, .zero) at offset i (0 first) into
 * *out, in order of first appearance; the next one's offset, 0 after the
 * last. */
size_t pp_pre_next(const struct pp_pre_tab *t, size_t i, struct pp_pre_entry *out);
void pp_pre_free(struct pp_pre *p);
/* Frees the lookup table (pp_pre_next still reads the entries; no more
 * pp_pre_step). */
void pp_pre_free_slots(struct pp_pre *p);

/* ---- pprof_read.c ---- */

/* A stream's bytes in memory: malloc'd and grown, or, while the samples
 * counted as they arrive may give theirs up (pp_read_whole's reuse), in
 * room reserved for the largest input, where the pages of the samples
 * counted are moved ahead to take the bytes still to come (no fresh page
 * to fault in and zero: make bench's .gz 0.95 -> 0.89 s, its peak 135 MB
 * less). Those samples' bytes are then gone: pass 1 and 2 skip them, and
 * when the counts do not stand for them after all (pre_usable), the input
 * is read again (pprof.c's pprof_load). */
struct pp_input {
	unsigned char *p;           /* len bytes */
	size_t len;
	unsigned char *map;         /* the room reserved (p in it), or NULL */
	size_t maplen;
	size_t from, gone;          /* [from, gone): bytes whose pages moved
	                               ahead (mapped, empty) */
	size_t ready;               /* the pages moved reach to here */
	bool stuck;                 /* a move failed: no more */
};
/* The whole decompressed input of a stream into *in; false (with a
 * message, nothing held) on a read error or beyond PPROF_MAX_INPUT. While
 * pre is on, its samples are taken as the bytes arrive; with reuse, the
 * pages of those taken are moved ahead (see struct pp_input). */
bool pp_read_whole(struct pp *d, struct source *s, struct pp_input *in, struct pp_pre *pre, bool reuse);
/* Whether bytes of in are gone. */
static inline bool pp_input_reused(const struct pp_input *in)
{
	return in->gone > in->from;
}
void pp_input_free(struct pp_input *in);

/* ---- pprof_index.c ---- */

/* The message that pass 1 dropped entries (d->too_many), when it did. */
void pp_say_too_many(struct pp *d);
/* msg "tflame: NAME: " + the formatted text. */
void pp_msg(struct pp *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* p's offset in the input. */
static inline uint64_t pp_off(const struct pp *d, const unsigned char *p)
{
	return (uint64_t)(p - d->data);
}
/* Count a malformed entry (sample type, mapping, location, function) or
 * sample at `at`; the first one's offset and why are kept (for samples,
 * the first in the file, why copied: they may be read out of order). */
void pp_bad_entry(struct pp *d, const unsigned char *at, const char *why);
void pp_bad_sample(struct pp *d, const unsigned char *at, const char *why);
/* String i of the table; "" (counted in bad_strs) when there is none. */
struct pp_str pp_string(struct pp *d, int64_t i);
/* String i of the table without counting; *bad counts a reference past
 * its end (what pp_string counts). */
struct pp_str pp_string_nc(const struct pp *d, int64_t i, uint32_t *bad);
/* Whether string i of the table is s. */
bool pp_str_is(struct pp *d, int64_t i, const char *s);
/* Pass 1 over the whole message (but the run of samples d->pre took).
 * False (with a message) when it cannot be framed. */
bool pp_index(struct pp *d);
/* "type/unit type/unit ..." sanitized into out. */
void pp_list_types(struct pp *d, char *out, size_t size);
/* The index of the sample type to weigh by, or -1 (with a message). */
long pp_choose_type(struct pp *d);
/* After pp_index, before the samples: every function's name and every
 * location's frames (pp.frm, pp.lf, pp.pool, pp.issues), in file order;
 * frees what only this needed. */
void pp_resolve_all(struct pp *d);
/* Counts what resolving location i found wrong: on its first use. */
void pp_loc_issue(struct pp *d, uint32_t i);

/* ---- pprof_stack.c ---- */

/* Grows an array of elem-byte entries to hold need (doubling). */
void *pp_grow(void *p, size_t *cap, size_t need, size_t elem);
/* Appends the positions of the packed location ids p[0..len) to
 * d->slocs[*n..], counting the dangling ones. 0, or -(enum pb_err) on a
 * malformed varint (the ids before it are appended and counted). */
int pp_decode_locs(struct pp *d, const unsigned char *p, size_t len, size_t *n);
/* The position of location id, or PP_NONE. */
static inline uint32_t pp_loc_pos(const struct pp *d, uint64_t id)
{
	if (d->loc_identity)
		return id - 1 < d->nloc ? (uint32_t)(id - 1) : PP_NONE;
	return pp_idmap_get(&d->locid, id);
}
/* What a sample's label root frame reads, counted once per sample: lab 0
 * none (no --label-root), 1 "[none]" (no such label), 2 string v, 3
 * number v. */
void pp_label_count(struct pp *d, unsigned lab, int64_t v);
/* Tree w's caches made with every frame's id given (ids[nfrm]: names
 * interned in that tree's table up front), for trees that intern
 * nothing. */
void pp_caches_with(struct pp *d, int w, const strtab_id *ids);
/* Adds the stack of locations d->slocs[0..n) (leaf first), under the
 * label root frame lab/lv (see pp_label_count; 0: none), to tree t (w 0:
 * t, 1: before) with count. Its frames that equal the previous stack's
 * (added to the same tree) are not looked up again in the tree. True when
 * it was cut at PP_MAX_FRAMES. */
bool pp_add_stack(struct pp *d, struct tree *t, int w, size_t n, unsigned lab, int64_t lv,
                  uint64_t count);
/* The names of the stack pp_add_stack would add (the same arguments) into
 * d->ids[0..nf), root first, interned in t on first use, as it interns
 * them; *cut when it was cut at PP_MAX_FRAMES. Returns nf. */
size_t pp_stack_ids(struct pp *d, struct tree *t, int w, size_t n, unsigned lab, int64_t lv, bool *cut);
/* Hands the stacks waiting for tree w (0: t, 1: before) to it. Before
 * anything reads the tree or its stack count. */
void pp_flush(struct pp *d, int w);
/* Whether the stack of locations d->slocs[0..n) (and a label root frame
 * when lab) is longer than PP_MAX_FRAMES frames: pp_add_stack cuts it. */
bool pp_stack_cut(const struct pp *d, size_t n, unsigned lab);

#endif
