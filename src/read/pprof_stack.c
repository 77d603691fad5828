/* pprof_stack: a sample's locations to a stack of names in a tree (see
 * pprof.c's top): names interned once per frame and tree, the ids of a
 * location's frames remembered per tree (pp.lrec), the frames shared with
 * the previous stack not looked up again. */
#include "config.h"
#include "pprof_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

/* Tree w's id of frame ref, interned on first use. */
static inline strtab_id frame_id(struct pp *d, struct tree *t, int w, uint32_t ref)
{
	strtab_id *slot = &d->frid[w][ref];
	if (*slot == PP_NONE)
		*slot = tree_intern(t, d->frm[ref].s, d->frm[ref].len);
	return *slot;
}


static inline uint64_t rotl64(uint64_t x, unsigned r)
{
	return x << r | x >> (64 - r);
}

/* Quick (it was 5% of make bench's pprof load): two lanes of 8 bytes, so
 * that the multiplications of one key overlap, and the last bytes of a
 * key of 8 or more read as one word that overlaps the one before (bytes
 * gathered into a word on the stack and read back stalled on the store). */
uint64_t pp_key_hash(const unsigned char *p, size_t n, uint64_t seed)
{
	uint64_t a = seed ^ (uint64_t)n * 0x9e3779b97f4a7c15ULL, b = ~seed, x, y;
	const unsigned char *end = p + n;
	if (n < 8) {
		x = 0;
		memcpy(&x, p, n);
		return pp_mix64((a ^ x) * 0xff51afd7ed558ccdULL);
	}
	for (; end - p > 16; p += 16) {
		memcpy(&x, p, 8);
		memcpy(&y, p + 8, 8);
		a = rotl64((a ^ x) * 0xff51afd7ed558ccdULL, 29);
		b = rotl64((b ^ y) * 0xc4ceb9fe1a85ec53ULL, 31);
	}
	if (end - p > 8) {
		memcpy(&x, p, 8);
		a = rotl64((a ^ x) * 0xff51afd7ed558ccdULL, 29);
	}
	memcpy(&y, end - 8, 8);
	b = rotl64((b ^ y) * 0xc4ceb9fe1a85ec53ULL, 31);
	return pp_mix64(a ^ rotl64(b, 32));
}

void *pp_grow(void *p, size_t *cap, size_t need, size_t elem)
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
int pp_decode_locs(struct pp *d, const unsigned char *p, size_t len, size_t *n)
{
	if (len == 0)
		return 0;       /* (slocs may still be NULL: no pointer sums on it) */
	if (*n + len > d->capslocs)
		d->slocs = pp_grow(d->slocs, &d->capslocs, *n + len, sizeof *d->slocs);
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
		uint32_t pos = ident ? (v - 1 < nloc ? (uint32_t)(v - 1) : PP_NONE) : pp_idmap_get(&d->locid, v);
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
void pp_label_count(struct pp *d, unsigned lab, int64_t v)
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
	d->labelbuf = pp_grow(d->labelbuf, &d->labelcap, kl + 1 + val.len, 1);
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
	struct pp_labc *c = &d->labc[w][pp_mix64((uint64_t)v * 4 + lab) % PP_LABC];
	if (c->lab == lab && c->v == v)
		return c->id;
	size_t len = label_text(d, lab, v);
	c->lab = (uint8_t)lab;
	c->v = v;
	c->id = tree_intern(t, d->labelbuf, len);
	return c->id;
}

/* Tree w's caches, made on its first stack (ids NULL: none interned yet). */
static void caches_make(struct pp *d, int w, const strtab_id *ids)
{
	d->frid[w] = xmalloc((d->nfrm ? d->nfrm : 1) * sizeof *d->frid[w]);
	if (ids)
		memcpy(d->frid[w], ids, d->nfrm * sizeof *d->frid[w]);
	else
		memset(d->frid[w], 0xff, d->nfrm * sizeof *d->frid[w]);
	d->lrec[w] = xmalloc((d->nloc ? d->nloc : 1) * sizeof *d->lrec[w]);
	for (size_t i = 0; i < d->nloc; i++) {
		const struct pp_lf *lf = &d->lf[i];
		d->lrec[w][i] = lf->n == 1 && !lf->issue && lf->ref < LREC_MULTI - LREC_REF
		                ? LREC_REF + lf->ref : PP_NONE;
	}
}

static void tree_ready(struct pp *d, int w)
{
	if (!d->lrec[w])
		caches_make(d, w, NULL);
}

void pp_caches_with(struct pp *d, int w, const strtab_id *ids)
{
	free(d->frid[w]);
	free(d->lrec[w]);
	d->nmids[w] = 0;
	caches_make(d, w, ids);
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
			pp_loc_issue(d, pos);
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
		d->ids = pp_grow(d->ids, &d->capids, nf + take + left, sizeof *d->ids);
	for (size_t k = 0; k < take; k++)
		d->ids[nf + k] = frame_id(d, t, w, refs[k]);
	if (pos != PP_NONE && take == m && d->lrec[w][pos] == PP_NONE) {
		if (m == 1) {
			if (d->ids[nf] < LREC_REF)
				d->lrec[w][pos] = d->ids[nf];
		} else if (d->nmids[w] + 1 + m < LREC_MULTI - 1) {
			/* several frames: their ids together, after their number */
			d->mids[w] = pp_grow(d->mids[w], &d->capmids[w], d->nmids[w] + 1 + m, sizeof *d->mids[w]);
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

size_t pp_stack_ids(struct pp *d, struct tree *t, int w, size_t n, unsigned lab, int64_t lv, bool *cutp)
{
	tree_ready(d, w);
	size_t nf = 0;
	bool cut = false;
	if (n + 1 > d->capids)
		d->ids = pp_grow(d->ids, &d->capids, n + 1, sizeof *d->ids);
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
					d->ids = pp_grow(d->ids, &d->capids, nf + m[0] + j, sizeof *d->ids);
				memcpy(d->ids + nf, m + 1, m[0] * sizeof *d->ids);
				nf += m[0];
				continue;
			}
		}
		nf = loc_ids_slow(d, t, w, pos, nf, j, &cut);
		if (cut)
			break;
	}
	*cutp = cut;
	return nf;
}

/* Hands d->ids[0..nf) to tree t (w) with count; the stack of locations
 * d->slocs[0..n) for a flame chart's merging. */
static void push_ids(struct pp *d, struct tree *t, int w, size_t nf, size_t n, unsigned lab, bool cut,
                     uint64_t count)
{
	struct pp_prev *pv = &d->prev[w];
	size_t keep = 0;
	if (t->chart) {
		keep = chart_keep(d, pv, n, lab != 0);
		pv->locs = pp_grow(pv->locs, &pv->capl, n, sizeof *pv->locs);
		if (n)
			memcpy(pv->locs, d->slocs, n * sizeof *pv->locs);
		pv->nlocs = n;
		pv->valid = !cut;
	} else {
		size_t lim = nf < pv->n ? nf : pv->n;
		while (keep < lim && pv->ids[keep] == d->ids[keep])
			keep++;
	}
	if (tree_batches(t)) {
		/* the tail's names after those of the stacks waiting */
		size_t nt = nf - keep, nb = d->nbids[w];
		if (nb + nt > d->capbids[w])
			d->bids[w] = pp_grow(d->bids[w], &d->capbids[w], nb + nt, sizeof *d->bids[w]);
		if (nt)
			memcpy(d->bids[w] + nb, d->ids + keep, nt * sizeof *d->ids);
		d->nbids[w] = nb + nt;
		d->bt[w] = t;
		d->batch[w][d->nbatch[w]++] = (struct tree_stack){ keep, NULL, nt, { count, 0, false, false } };
		if (d->nbatch[w] == PP_BATCH)
			pp_flush(d, w);
	} else {
		pp_flush(d, w);
		tree_add_stack_tail_ids(t, keep, d->ids + keep, nf - keep, count);
	}
	/* remember it (by swapping buffers) */
	strtab_id *tmp = pv->ids;
	size_t tcap = pv->cap;
	pv->ids = d->ids;
	pv->cap = d->capids;
	pv->n = nf;
	d->ids = tmp;
	d->capids = tcap;
}

/* Adds the stack of locations d->slocs[0..n) (leaf first), under the
 * label root frame lab/lv (see label_count; 0: none), to tree t (w 0: t,
 * 1: before). Its frames that equal the previous stack's (added to the
 * same tree) are not looked up again in the tree. True when it was cut at
 * PP_MAX_FRAMES. */
bool pp_add_stack(struct pp *d, struct tree *t, int w, size_t n, unsigned lab, int64_t lv,
                      uint64_t count)
{
	bool cut;
	size_t nf = pp_stack_ids(d, t, w, n, lab, lv, &cut);
	push_ids(d, t, w, nf, n, lab, cut, count);
	return cut;
}

void pp_flush(struct pp *d, int w)
{
	size_t n = d->nbatch[w];
	if (!n)
		return;
	/* the tails point into bids only now: it moves while it grows (and
	 * is not there when every tail is empty) */
	for (size_t i = 0, at = 0; i < n; i++) {
		d->batch[w][i].tail = d->bids[w] ? d->bids[w] + at : NULL;
		at += d->batch[w][i].ntail;
	}
	tree_add_stacks(d->bt[w], d->batch[w], n);
	d->nbatch[w] = 0;
	d->nbids[w] = 0;
}

/* Whether the stack of locations d->slocs[0..n) (and a label root frame
 * when lab) is longer than PP_MAX_FRAMES frames: add_stack cuts it. */
bool pp_stack_cut(const struct pp *d, size_t n, unsigned lab)
{
	if ((n + 1) * PP_MAX_LINES <= PP_MAX_FRAMES)
		return false;
	size_t total = lab != 0;
	for (size_t j = 0; j < n; j++)
		total += d->slocs[j] == PP_NONE ? 1 : d->lf[d->slocs[j]].n;
	return total > PP_MAX_FRAMES;
}
