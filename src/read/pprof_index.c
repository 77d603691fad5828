/* pprof_index: pass 1 of the pprof reader (see pprof.c's top): the index
 * of sample types, strings, functions, mappings and locations with their
 * id maps, the choice of the sample type, and every location resolved to
 * its frames before the samples are read. */
#include "config.h"
#include "pprof_int.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "text.h"
#include "xalloc.h"

/* ---- id maps ---------------------------------------------------------------- */

void pp_idmap_build(struct pp_idmap *m, const void *base, size_t n, size_t stride)
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
		size_t h = (size_t)pp_mix64(id) & m->mask;
		while (m->vals[h] && m->keys[h] != id)
			h = (h + 1) & m->mask;
		if (!m->vals[h]) {
			m->keys[h] = id;
			m->vals[h] = (uint32_t)i + 1;
		}
	}
}

uint32_t pp_idmap_get_hashed(const struct pp_idmap *m, uint64_t id)
{
	if (!m->vals)
		return PP_NONE;
	size_t h = (size_t)pp_mix64(id) & m->mask;
	while (m->vals[h]) {
		if (m->keys[h] == id)
			return m->vals[h] - 1;
		h = (h + 1) & m->mask;
	}
	return PP_NONE;
}

void pp_idmap_free(struct pp_idmap *m)
{
	free(m->direct);
	free(m->keys);
	free(m->vals);
}


/* ---- the index (pass 1) ------------------------------------------------------ */

void pp_msg(struct pp *d, const char *fmt, ...)
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

void pp_say_too_many(struct pp *d)
{
	if (d->too_many)
		pp_msg(d, "more than %zu entries of a kind: the rest were ignored", PP_MAX_ENTRIES);
}

void pp_bad_entry(struct pp *d, const unsigned char *at, const char *why)
{
	/* the first in the file: a location's issue is counted when a sample
	 * first reaches it, in whatever order the samples are read */
	uint64_t off = pp_off(d, at);
	if (!d->bad_entries++ || off < d->first_bad_entry) {
		d->first_bad_entry = off;
		d->why_entry = why;
	}
}

void pp_bad_sample(struct pp *d, const unsigned char *at, const char *why)
{
	/* the first in the file, whatever order the samples are read in */
	uint64_t off = pp_off(d, at);
	if (!d->bad_samples++ || off < d->first_bad_sample) {
		d->first_bad_sample = off;
		snprintf(d->why_sample_buf, sizeof d->why_sample_buf, "%s", why);
		d->why_sample = d->why_sample_buf;
	}
}

/* String i of the table; "" (counted) when there is none. */
struct pp_str pp_string(struct pp *d, int64_t i)
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
			pp_bad_entry(d, f->data, pb_why((enum pb_err)-r));
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
			pp_bad_entry(d, f->data, pb_why((enum pb_err)-r));
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
			pp_bad_entry(d, f->data, pb_why((enum pb_err)-r));
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

/* ---- the samples hopped from the middle on, on a second thread ------------------ */

/* Pass 1 hops over the samples one by one, each hop waiting on the byte it
 * lands on (0.05 s for make bench's Go-shaped 6M samples). A second thread
 * hops from the middle of a big message on: from the first place where
 * SPEC_SYNC Sample fields follow one another (looked for in the first
 * SPEC_LOOK bytes from there: crafted bytes cannot make it slow), to where
 * their run ends, keeping every SPEC_CP-th place it lands on. When pass 1's
 * own hops land on one of those places, from there both read the same
 * fields: pass 1 takes the thread's count and goes on from its end. When
 * they land elsewhere (the thread's run began inside a sample), pass 1
 * hops on alone; either way it reads what it would have. */
#ifndef SPEC_MIN
#define SPEC_MIN ((size_t)32 << 20)     /* smaller messages: one thread */
#endif
#define SPEC_SYNC 64
#define SPEC_LOOK ((size_t)64 << 10)
#define SPEC_CP 1024

struct spec {
	const unsigned char *lo, *end;
	const unsigned char **cp;   /* cp[j]: where hop j * SPEC_CP landed */
	size_t ncp, capcp;
	uint64_t n;                 /* hops from cp[0] */
	const unsigned char *stop;  /* where its run of samples ended */
	bool found;
	pthread_t th;
};

/* Where the next field is when a Sample field, all there, is at p (its
 * tag of one byte, its length of at most 4); else NULL. */
static inline const unsigned char *sample_next(const unsigned char *p, const unsigned char *end)
{
	if (end - p < 2 || p[0] != (2 << 3 | WT_LEN))
		return NULL;
	if (p[1] < 0x80)
		return p[1] <= end - p - 2 ? p + 2 + p[1] : NULL;
	uint64_t len = 0;
	const unsigned char *q = p + 1;
	for (unsigned sh = 0; sh < 28; sh += 7, q++) {
		if (q >= end)
			return NULL;
		len |= (uint64_t)(*q & 0x7f) << sh;
		if (*q < 0x80)
			return len <= (uint64_t)(end - q - 1) ? q + 1 + len : NULL;
	}
	return NULL;
}

static void *spec_run(void *arg)
{
	struct spec *s = arg;
	const unsigned char *p = s->lo, *end = s->end, *last = s->lo + SPEC_LOOK;
	for (;; p++) {
		if (p >= last || end - p < 2)
			return NULL;
		const unsigned char *q = p;
		int k = 0;
		while (k < SPEC_SYNC && (q = sample_next(q, end)) != NULL)
			k++;
		if (k == SPEC_SYNC)
			break;
	}
	uint64_t n = 0;
	for (const unsigned char *q; (q = sample_next(p, end)) != NULL; p = q) {
		if (n % SPEC_CP == 0) {
			if (s->ncp == s->capcp) {
				size_t cap = s->capcp ? s->capcp * 2 : 1024;
				const unsigned char **cp = realloc(s->cp, cap * sizeof *cp);
				if (!cp)
					break;      /* (what was found so far stands) */
				s->cp = cp;
				s->capcp = cap;
			}
			s->cp[s->ncp++] = p;
		}
		__builtin_prefetch((const void *)((uintptr_t)p + PP_STREAM_AHEAD));
		n++;
	}
	s->n = n;
	s->stop = p;
	s->found = s->ncp > 1;
	return NULL;
}

/* Pass 1's hops reached sp->lo at *pp (its count so far d->nsamples, the
 * samples past others when past): the thread's count taken where they
 * land on its places (marks placed as pass 1 would), *pp moved to its run's
 * end; else nothing. */
static void spec_take(struct pp *d, struct spec *sp, const unsigned char **pp, const unsigned char *end,
                      bool past)
{
	pthread_join(sp->th, NULL);
	if (past)       /* (the sample at *pp, at least, is one) */
		d->samples_mixed = true;
	if (!sp->found)
		return;
	const unsigned char *p = *pp;
	size_t j = 1;
	while (j < sp->ncp && sp->cp[j] < p)
		j++;
	if (j == sp->ncp)
		return;
	/* hop on to its place j, as the fast loop would */
	uint64_t ns = d->nsamples;
	for (const unsigned char *q; p < sp->cp[j] && (q = sample_next(p, end)) != NULL; p = q) {
		if (ns % PP_MARK == 0)
			*VEC_PUSH(d->marks, d->nmarks, d->capmarks) = p;
		ns++;
	}
	d->nsamples = ns;
	d->samples_end = p;
	*pp = p;
	if (p != sp->cp[j])
		return;
	/* the same fields from here: hops j * SPEC_CP .. n of the thread */
	uint64_t from = (uint64_t)j * SPEC_CP, more = sp->n - from;
	for (uint64_t g = (ns + PP_MARK - 1) / PP_MARK * PP_MARK; g < ns + more; g += PP_MARK) {
		uint64_t l = from + (g - ns);
		const unsigned char *q = sp->cp[l / SPEC_CP];
		for (uint64_t k = l % SPEC_CP; k; k--)
			q = sample_next(q, sp->end);
		*VEC_PUSH(d->marks, d->nmarks, d->capmarks) = q;
	}
	d->nsamples = ns + more;
	d->samples_end = sp->stop;
	*pp = sp->stop;
}

/* Pass 1. False (with a message) when the message cannot be framed. */
bool pp_index(struct pp *d)
{
	struct pb c = { d->data, d->data + d->size };
	struct pb_field f;
	int r;
	const unsigned char *at = c.p;
	bool past = false;      /* a field not a sample after a sample */
	const struct pp_pre *pre = d->pre;
	struct spec sp = { 0 };
	/* (never reached, but with a second thread) */
	const unsigned char *spec_at = d->data + d->size;
	if (!pre && d->size >= SPEC_MIN && d->o && d->o->threads >= 2) {
		sp.lo = d->data + d->size / 2;
		sp.end = d->data + d->size;
		if (pthread_create(&sp.th, NULL, spec_run, &sp) == 0)
			spec_at = sp.lo;
	}
	for (;;) {
		if (pre && c.p == d->data + pre->first) {
			/* the samples pre took, one after another */
			d->nsamples = pre->fields;
			d->samples_at = c.p;
			d->samples_end = d->data + pre->at;
			for (size_t i = 0; i < pre->nmarks; i++)
				*VEC_PUSH(d->marks, d->nmarks, d->capmarks) = d->data + pre->marks[i];
			c.p = d->samples_end;
			pre = NULL;
		}
		/* samples of a length below 128 (most), as case 2 below takes
		 * them, without a call a field: pass 1 hops over millions */
		while (c.end - c.p >= 2 && c.p[0] == (2 << 3 | WT_LEN) && c.p[1] < 0x80 &&
		       c.p[1] <= c.end - c.p - 2) {
			if (c.p >= spec_at && d->nsamples) {
				spec_take(d, &sp, &c.p, c.end, past);
				spec_at = d->data + d->size;
				continue;
			}
			if (past)
				d->samples_mixed = true;
			if (d->nsamples % PP_MARK == 0)
				*VEC_PUSH(d->marks, d->nmarks, d->capmarks) = c.p;
			if (!d->nsamples++)
				d->samples_at = c.p;
			/* each hop waits on the byte it lands on; the hardware's
			 * read-ahead stops at each page (a prefetch past the
			 * end is harmless) */
			__builtin_prefetch((const void *)((uintptr_t)c.p + PP_STREAM_AHEAD));
			c.p += 2 + c.p[1];
			d->samples_end = c.p;
		}
		at = c.p;
		if ((r = pb_next(&c, &f)) <= 0)
			break;
		if (f.num != 2 || f.wt != WT_LEN)
			past = d->nsamples > 0;
		else if (past)
			d->samples_mixed = true;
		switch (f.num) {
		case 1:
		case 11:
			if (f.wt == WT_LEN) {
				struct pp_vt vt;
				if (!read_vt(&f, &vt)) {
					pp_bad_entry(d, f.data, "a malformed sample type");
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
				if (d->nsamples % PP_MARK == 0)
					*VEC_PUSH(d->marks, d->nmarks, d->capmarks) = at;
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
	}
	if (spec_at != d->data + d->size)
		pthread_join(sp.th, NULL);      /* never met: its count not taken */
	free(sp.cp);
	if (r < 0) {
		pp_msg(d, "not a readable pprof profile: at byte %" PRIu64 ": %s%s", pp_off(d, at),
		       pb_why((enum pb_err)-r), r == -PB_CUT ? " (is the file cut short?)" : "");
		return false;
	}
	if (!d->reused)
		pp_say_too_many(d);
	pp_idmap_build(&d->fnid, d->fn, d->nfn, sizeof *d->fn);
	pp_idmap_build(&d->mapid, d->map, d->nmap, sizeof *d->map);
	pp_idmap_build(&d->locid, d->loc, d->nloc, sizeof *d->loc);
	return true;
}

/* ---- sample types ------------------------------------------------------------ */

bool pp_str_is(struct pp *d, int64_t i, const char *s)
{
	struct pp_str t = pp_string(d, i);
	return t.len == strlen(s) && memcmp(t.s, s, t.len) == 0;
}

/* "type/unit type/unit ..." sanitized into out. */
void pp_list_types(struct pp *d, char *out, size_t size)
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
long pp_choose_type(struct pp *d)
{
	const char *want = d->o ? d->o->sample_type : NULL;
	if (want) {
		for (size_t i = 0; i < d->nvt; i++)
			if (pp_str_is(d, d->vt[i].type, want))
				return (long)i;
		char *end;
		unsigned long k = strtoul(want, &end, 10);
		if (*want >= '0' && *want <= '9' && !*end && k < d->nvt)
			return (long)k;
		char types[256], w[128];
		pp_list_types(d, types, sizeof types);
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

/* String i of the table without counting; *bad counts a reference past
 * its end (what pp_string counts). */
struct pp_str pp_string_nc(const struct pp *d, int64_t i, uint32_t *bad)
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
	uint32_t m = mapping ? pp_idmap_get(&d->mapid, mapping) : PP_NONE;
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
			uint32_t fi = pp_idmap_get(&d->fnid, fid), ref = PP_NONE;
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
void pp_resolve_all(struct pp *d)
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
	pp_idmap_free(&d->fnid);
	pp_idmap_free(&d->mapid);
	memset(&d->fnid, 0, sizeof d->fnid);
	memset(&d->mapid, 0, sizeof d->mapid);
	if (d->loc_identity) {
		pp_idmap_free(&d->locid);
		memset(&d->locid, 0, sizeof d->locid);
	}
}

/* Counts what resolving location i found wrong: on its first use. */
void pp_loc_issue(struct pp *d, uint32_t i)
{
	if (d->issues_later) {
		d->lf[i].issue = 0;
		return;
	}
	struct pp_issue *is = &d->issues[d->lf[i].issue - 1];
	if (is->err)
		pp_bad_entry(d, is->at, pb_why(is->err));
	d->bad_refs += is->bad_refs;
	d->bad_strs += is->bad_strs;
	d->cut_lines += is->cut_lines;
	d->lf[i].issue = 0;
}
