/* perfdata: perf.data to stacks, resolved the way perf script 6.1 resolves
 * them (tools/perf/util/{session,ordered-events,machine,thread,map}.c were
 * read for the rules; no code comes from there).
 *
 * Flow: records are framed from the mapped file (or read from a stream),
 * compressed ones inflated, kernel records queued and handed on in time
 * order round by round as perf does (so COMM and MMAP records take effect
 * exactly where perf applies them), then SAMPLE records are resolved
 * against the thread's mappings and given to the perf script reader, whose
 * collapsing is the one text input gets.
 *
 * This file frames the records and orders them; perfdata_impl.h says
 * which file does the rest. */
#include "config.h"
#include "perfdata_impl.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "xalloc.h"

/* ---- messages ------------------------------------------------------------ */

void pd_msg(struct pd *d, const char *fmt, ...)
{
	char body[512], line[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(body, sizeof body, fmt, ap);
	va_end(ap);
	snprintf(line, sizeof line, "tflame: %s: %s", d->name, body);
	d->add(d->msgarg, line);
}

void pd_bad(struct pd *d, uint64_t off, const char *what)
{
	if (!d->bad_records++) {
		d->first_bad_off = off;
		snprintf(d->first_bad, sizeof d->first_bad, "%s", what);
	}
}

/* ---- kernel records ------------------------------------------------------------ */

static void pd_process(struct pd *d, const unsigned char *rec, size_t size)
{
	switch (pd_rd32(rec)) {
	case REC_SAMPLE:
		pd_sample(d, rec, size, 0);
		break;
	case REC_MMAP:
		pd_mmap(d, rec, size, false);
		break;
	case REC_MMAP2:
		pd_mmap(d, rec, size, true);
		break;
	case REC_COMM:
		pd_comm(d, rec, size);
		break;
	case REC_FORK:
		pd_fork(d, rec, size);
		break;
	case REC_KSYMBOL:
		pd_ksymbol(d, rec, size);
		break;
	case REC_LOST:
		if (size >= 24)
			d->lost += pd_rd64(rec + 16);
		break;
	case REC_LOST_SAMPLES:
		if (size >= 16)
			d->lost += pd_rd64(rec + 8);
		break;
	case REC_EXIT:
	case 5: case 6:                     /* THROTTLE, UNTHROTTLE */
	case 8: case 11: case 12: case 14: case 15: case 16: case 18: case 19:
	case 20: case 21:                   /* nothing a flame graph needs */
		break;
	default:
		d->unknown_types++;
		break;
	}
}

/* ---- the queue ------------------------------------------------------------ */

static int cmp_qev(const void *a, const void *b)
{
	const struct pd_qev *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool qev_before(const struct pd_qev *x, const struct pd_qev *y)
{
	return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

/* Sorts the queue by (time, arrival). A round is the buffers of a few CPUs
 * one after the other, each in time order: a few sorted runs, merged in
 * pairs (a natural merge sort: n log(runs), not n log n). */
static void q_sort(struct pd_queue *q)
{
	size_t n = q->n, nruns = 1;
	if (n < 2)
		return;
	for (size_t i = 1; i < n; i++)
		if (qev_before(&q->ev[i], &q->ev[i - 1]))
			nruns++;
	if (nruns == 1)
		return;
	if (nruns > 64) {
		qsort(q->ev, n, sizeof *q->ev, cmp_qev);
		return;
	}
	struct pd_qev *a = q->ev, *b = xreallocarray(NULL, n, sizeof *b);
	while (nruns > 1) {
		size_t lo = 0, k = 0;
		nruns = 0;
		while (lo < n) {
			size_t mid = lo + 1;
			while (mid < n && !qev_before(&a[mid], &a[mid - 1]))
				mid++;
			size_t hi = mid;
			if (hi < n) {
				hi++;
				while (hi < n && !qev_before(&a[hi], &a[hi - 1]))
					hi++;
			}
			/* merge a[lo, mid) and a[mid, hi) into b, stable */
			size_t i = lo, j = mid;
			while (i < mid && j < hi)
				b[k++] = qev_before(&a[j], &a[i]) ? a[j++] : a[i++];
			while (i < mid)
				b[k++] = a[i++];
			while (j < hi)
				b[k++] = a[j++];
			lo = hi;
			nruns++;
		}
		struct pd_qev *t = a;
		a = b;
		b = t;
	}
	if (a != q->ev) {
		memcpy(q->ev, a, n * sizeof *a);
		free(a);
	} else {
		free(b);
	}
}

/* Hands on, in time order, the queued records with time <= limit, and at
 * least the first min_count of them. */
static void q_flush_upto(struct pd *d, uint64_t limit, size_t min_count)
{
	struct pd_queue *q = &d->q;
	size_t i, k = 0, blen = 0;

	if (!q->n)
		return;
	q_sort(q);
	for (i = 0; i < q->n && (i < min_count || q->ev[i].time <= limit); i++)
		pd_process(d, q->ev[i].ext ? q->ev[i].ext : q->buf + q->ev[i].off, q->ev[i].len);
	/* keep the rest, packed at the buffer's start (they are in time
	 * order, their bytes in arrival order: move through a copy) */
	if (i < q->n) {
		size_t rest = 0;
		for (size_t j = i; j < q->n; j++)
			if (!q->ev[j].ext)
				rest += q->ev[j].len;
		unsigned char *nb = rest ? xmalloc(rest > q->bcap ? rest : q->bcap) : NULL;
		for (size_t j = i; j < q->n; j++) {
			q->ev[k] = q->ev[j];
			if (!q->ev[j].ext) {
				memcpy(nb + blen, q->buf + q->ev[j].off, q->ev[j].len);
				q->ev[k].off = blen;
				blen += q->ev[j].len;
			}
			k++;
		}
		if (nb) {
			free(q->buf);
			q->buf = nb;
			if (rest > q->bcap)
				q->bcap = rest;
		}
	}
	q->n = k;
	q->blen = blen;
}

static void q_flush(struct pd *d, uint64_t limit)
{
	q_flush_upto(d, limit, 0);
}

static void q_flush_count(struct pd *d, size_t count)
{
	q_flush_upto(d, 0, count);
}

static void q_add(struct pd *d, uint64_t time, const unsigned char *rec, size_t size)
{
	struct pd_queue *q = &d->q;

	if (q->n == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 1024;
		q->ev = xreallocarray(q->ev, q->cap, sizeof *q->ev);
	}
	q->ev[q->n].time = time;
	q->ev[q->n].seq = q->seq++;
	q->ev[q->n].len = (uint32_t)size;
	if (d->map && rec >= d->map && rec < d->map + d->maplen) {
		q->ev[q->n].ext = rec;
		q->ev[q->n].off = 0;
	} else {
		if (q->blen + size > q->bcap) {
			q->bcap = (q->blen + size) * 2;
			q->buf = xrealloc(q->buf, q->bcap);
		}
		memcpy(q->buf + q->blen, rec, size);
		q->ev[q->n].ext = NULL;
		q->ev[q->n].off = q->blen;
		q->blen += size;
	}
	q->n++;
	if (time > q->max_time)
		q->max_time = time;
	if (q->blen + q->n * sizeof *q->ev > PD_QUEUE_MAX) {
		/* the older half goes now, by count: every such flush frees at
		 * least half the queue, whatever the times */
		q_flush_count(d, q->n / 2 + 1);
	}
}

/* ---- framing -------------------------------------------------------------- */

static void pd_record(struct pd *d, const unsigned char *rec, size_t size, uint64_t off);

static void pd_kernel_record(struct pd *d, const unsigned char *rec, size_t size)
{
	uint64_t time = d->ordered ? pd_record_time(d, rec, size) : 0;
	if (!time || time == UINT64_MAX)
		pd_process(d, rec, size);
	else
		q_add(d, time, rec, size);
}

#ifdef HAVE_ZSTD
/* Room for inflated records: at least one whole record (64 KiB at most)
 * besides the part of one that a chunk ended in. */
#define PD_ZBUF ((size_t)1 << 20)

/* Hands on the whole records inflated so far; keeps a partial one. */
static void pd_inflated(struct pd *d, uint64_t off)
{
	size_t pos = 0;
	while (d->zlen - pos >= 8) {
		uint16_t sz = pd_rd16(d->zbuf + pos + 6);
		if (sz < 8) {
			pd_bad(d, off, "an inflated record has a size under 8");
			pos = d->zlen;
			break;
		}
		if (sz > d->zlen - pos)
			break;
		pd_record(d, d->zbuf + pos, sz, off);
		pos += sz;
	}
	memmove(d->zbuf, d->zbuf + pos, d->zlen - pos);
	d->zlen -= pos;
}

/* COMPRESSED: a zstd stream across records, holding whole records (one cut
 * at a chunk's end is completed by the next chunk). Inflated a buffer at a
 * time and handed on at once, so a small record that inflates to
 * gigabytes costs no memory. */
static void pd_compressed(struct pd *d, const unsigned char *p, size_t n, uint64_t off)
{
	ZSTD_inBuffer in = { p, n, 0 };

	if (d->inflating) {
		/* perf never nests them; the buffer is in use */
		pd_bad(d, off, "a compressed record inside a compressed record");
		return;
	}
	if (!d->zs) {
		d->zs = ZSTD_createDStream();
		if (!d->zs || ZSTD_isError(ZSTD_initDStream(d->zs)))
			xdie("out of memory");
		d->zbuf = xmalloc(PD_ZBUF);
		d->zcap = PD_ZBUF;
	}
	d->inflating = true;
	while (in.pos < in.size && !d->fatal) {
		size_t before = in.pos;
		ZSTD_outBuffer out = { d->zbuf + d->zlen, d->zcap - d->zlen, 0 };
		size_t r = ZSTD_decompressStream(d->zs, &out, &in);
		if (ZSTD_isError(r)) {
			pd_bad(d, off, "a compressed record does not inflate");
			ZSTD_initDStream(d->zs);
			d->zlen = 0;
			break;
		}
		d->zlen += out.pos;
		pd_inflated(d, off);
		if (out.pos == 0 && in.pos == before)
			break;
	}
	d->inflating = false;
}
#endif

/* One record: kernel ones queued, perf's own handled at once. */
static void pd_record(struct pd *d, const unsigned char *rec, size_t size, uint64_t off)
{
	uint32_t type = pd_rd32(rec);

	if (type < REC_KERNEL_MAX) {
		if (!d->nattr) {
			pd_bad(d, off, "a record before any event description");
			return;
		}
		pd_kernel_record(d, rec, size);
		return;
	}
	switch (type) {
	case REC_FINISHED_ROUND:
		q_flush(d, d->q.next_flush);
		d->q.next_flush = d->q.max_time;
		break;
	case REC_HEADER_ATTR: {
		/* pipe mode: the attribute, then its ids */
		uint32_t asz = size >= 16 ? pd_rd32(rec + 12) : 0;
		if (asz == 0)
			asz = 64;
		if (asz > size - 8) {
			pd_bad(d, off, "a short HEADER_ATTR record");
			break;
		}
		size_t ai = pd_add_attr(d, rec + 8, asz);
		if (ai == SIZE_MAX)
			break;
		for (size_t p = 8 + asz; p + 8 <= size; p += 8)
			pd_add_id(d, pd_rd64(rec + p), ai);
		d->ordered = true;
		for (size_t i = 0; i < d->nattr; i++)
			if (!(d->attrs[i].flags & ATTR_SAMPLE_ID_ALL))
				d->ordered = false;
		break;
	}
	case REC_HEADER_FEATURE:
		if (size >= 16)
			pd_feature(d, (unsigned)pd_rd64(rec + 8), rec + 16, size - 16);
		break;
	case REC_HEADER_BUILD_ID:
		pd_build_ids(d, rec, size);
		break;
	case REC_EVENT_UPDATE:
		/* type NAME (1): u64 type, u64 id, name */
		if (size > 24 && pd_rd64(rec + 8) == 1) {
			struct pd_attr *a = pd_attr_by_id(d, pd_rd64(rec + 16));
			if (a && !a->name)
				a->name = pd_strndup_nul(rec + 24, size - 24);
		}
		break;
	case REC_COMPRESSED:
#ifdef HAVE_ZSTD
		pd_compressed(d, rec + 8, size - 8, off);
#else
		d->fatal = true;
		pd_msg(d, "compressed records (perf record -z), and this tflame was built without libzstd");
#endif
		break;
	default:
		/* HEADER_EVENT_TYPE, ID_INDEX, THREAD_MAP, CPU_MAP, STAT*,
		 * TIME_CONV, FINISHED_INIT, AUXTRACE*: nothing to draw */
		if (type > 82)
			d->unknown_types++;
		break;
	}
}

/* Bytes that follow a record without being counted in its size. */
static uint64_t pd_trailing(const unsigned char *rec, size_t size, bool pipe)
{
	uint32_t type = pd_rd32(rec);
	if (type == REC_AUXTRACE && size >= 16)
		return pd_rd64(rec + 8);
	if (pipe && type == REC_HEADER_TRACING_DATA && size >= 12) {
		uint64_t n = pd_rd32(rec + 8);
		return (n + 7) & ~(uint64_t)7;
	}
	return 0;
}

/* ---- file and pipe ---------------------------------------------------------- */

/* The largest perf.data file read whole (from a pipe, or compressed). */
#define PD_WHOLE_MAX ((size_t)1 << 30)

static void pd_progress(struct pd *d, uint64_t done, uint64_t size)
{
	if (d->o->progress)
		d->o->progress(d->o->progress_arg, done, size, d->t->stacks);
}

/* m[0..len): the whole file; mapped: its pages may be dropped once read. */
static enum perfdata_status pd_file(struct pd *d, const unsigned char *m, size_t len, bool mapped)
{
	struct pd_cur c = { m, m + len, false };
	uint64_t hsize, attr_size, aoff, asize, doff, dsize, feats[4];

	pd_get64(&c);
	hsize = pd_get64(&c);
	attr_size = pd_get64(&c);
	aoff = pd_get64(&c);
	asize = pd_get64(&c);
	doff = pd_get64(&c);
	dsize = pd_get64(&c);
	pd_get64(&c);
	pd_get64(&c);
	for (int i = 0; i < 4; i++)
		feats[i] = pd_get64(&c);
	if (c.bad || hsize < PD_FILE_HEADER || attr_size < 16 + 64 || aoff > len || asize > len - aoff ||
	    doff > len) {
		pd_msg(d, "not a readable perf.data file (its header is damaged or cut short)");
		return PERFDATA_ERROR;
	}
	if (dsize > len - doff) {
		pd_msg(d, "the file is cut short: %" PRIu64 " of %" PRIu64 " bytes of records are there",
		       (uint64_t)(len - doff), dsize);
		dsize = len - doff;
	}
	/* attributes, each followed by the section of its ids */
	for (uint64_t a = 0; a + attr_size <= asize; a += attr_size) {
		const unsigned char *p = m + aoff + a;
		size_t ai = pd_add_attr(d, p, attr_size - 16);
		if (ai == SIZE_MAX)
			continue;
		uint64_t ioff = pd_rd64(p + attr_size - 16), isz = pd_rd64(p + attr_size - 8);
		if (ioff <= len && isz <= len - ioff)
			for (uint64_t k = 0; k + 8 <= isz; k += 8)
				pd_add_id(d, pd_rd64(m + ioff + k), ai);
	}
	if (!d->nattr) {
		pd_msg(d, "the perf.data file describes no events");
		return PERFDATA_ERROR;
	}
	d->ordered = true;
	for (size_t i = 0; i < d->nattr; i++)
		if (!(d->attrs[i].flags & ATTR_SAMPLE_ID_ALL))
			d->ordered = false;

	/* feature sections follow the records, one per bit set */
	uint64_t foff = doff + pd_rd64(m + 48);
	if (foff <= len) {
		struct pd_cur fc = { m + foff, m + len, false };
		for (unsigned f = 0; f < FEAT_MAX; f++) {
			if (!(feats[f / 64] >> (f % 64) & 1))
				continue;
			uint64_t so = pd_get64(&fc), ss = pd_get64(&fc);
			if (fc.bad)
				break;
			if (so <= len && ss <= len - so)
				pd_feature(d, f, m + so, (size_t)ss);
		}
	}

	if (!pd_check(d))
		return PERFDATA_UNSUPPORTED;
	uint64_t pos = doff, end = doff + dsize, dropped = doff & ~(uint64_t)4095, shown = pos;
	/* queued records point into m: it outlives the queue (flushed below) */
	d->map = m;
	d->maplen = len;
	while (end - pos >= 8 && !d->fatal) {
		const unsigned char *rec = m + pos;
		uint16_t size = pd_rd16(rec + 6);
		if (size < 8) {
			pd_msg(d, "a record at byte %" PRIu64 " has an impossible size (%u); the rest of the file is skipped",
			       pos, (unsigned)size);
			break;
		}
		if (size > end - pos) {
			pd_msg(d, "the record at byte %" PRIu64 " is cut short by the end of the data", pos);
			break;
		}
		pd_record(d, rec, size, pos);
		uint64_t trail = pd_trailing(rec, size, false);
		if (trail > end - pos - size) {
			pd_msg(d, "a record at byte %" PRIu64 " announces %" PRIu64 " bytes of data after it, more than "
			       "the file has; the rest of the file is skipped", pos, trail);
			break;
		}
		pos += size + trail;
		if (pos - shown >= ((uint64_t)1 << 20)) {
			/* the progress line rate-limits itself */
			shown = pos;
			pd_progress(d, pos, len);
		}
		if (pos - dropped >= ((uint64_t)64 << 20)) {
			/* records read are done with, but for those queued by
			 * reference: pages before the oldest of them go */
			uint64_t upto = pos;
			for (size_t k = 0; k < d->q.n; k++)
				if (d->q.ev[k].ext && (uint64_t)(d->q.ev[k].ext - m) < upto)
					upto = (uint64_t)(d->q.ev[k].ext - m);
			if (upto > dropped)
				dropped = mapped ? (uint64_t)((const unsigned char *)xgive_back(m + dropped, m + upto) - m)
				                 : upto;
		}
	}
	q_flush(d, UINT64_MAX);
	d->map = NULL;
	return PERFDATA_OK;
}

/* Reads exactly n bytes of a stream into *buf (grown as needed). */
static bool pd_read(struct source *s, unsigned char **buf, size_t *cap, size_t at, size_t n)
{
	if (at + n > *cap) {
		*cap = (at + n) * 2;
		*buf = xrealloc(*buf, *cap);
	}
	return source_read(s, *buf + at, n) == (ssize_t)n;
}

static enum perfdata_status pd_pipe(struct pd *d, struct source *s)
{
	unsigned char *buf = NULL;
	size_t cap = 0;
	uint64_t pos;

	if (!pd_read(s, &buf, &cap, 0, PD_PIPE_HEADER)) {
		free(buf);
		pd_msg(d, "not a readable perf.data stream");
		return PERFDATA_ERROR;
	}
	uint64_t hsize = pd_rd64(buf + 8);
	if (hsize > PD_PIPE_HEADER) {
		/* The file form through a pipe or a decompressor: its sections
		 * point anywhere, so it is read whole first. */
		size_t len = PD_PIPE_HEADER, need = SIZE_MAX;
		for (;;) {
			if (need == SIZE_MAX && len >= PD_FILE_HEADER) {
				/* no further than the header's sections (the
				 * features follow the data; give them 1 MiB) */
				uint64_t a = pd_rd64(buf + 24) + pd_rd64(buf + 32), e = pd_rd64(buf + 40) + pd_rd64(buf + 48);
				uint64_t far = (a > e ? a : e) + ((uint64_t)1 << 20);
				need = far < PD_WHOLE_MAX ? (size_t)far : PD_WHOLE_MAX;
			}
			if (len >= need)
				break;
			if (len == cap) {
				if (cap >= PD_WHOLE_MAX) {
					free(buf);
					pd_msg(d, "a perf.data file of more than %zu MiB cannot be read from a pipe or "
					       "compressed; give the uncompressed file's name", PD_WHOLE_MAX >> 20);
					return PERFDATA_ERROR;
				}
				cap = cap < ((size_t)1 << 20) ? (size_t)1 << 20 : cap * 2;
				buf = xrealloc(buf, cap);
			}
			size_t want = cap - len;
			if (need != SIZE_MAX && want > need - len)
				want = need - len;
			ssize_t r = source_read(s, buf + len, want);
			if (r < 0) {
				free(buf);
				pd_msg(d, "%s", source_error(s));
				return PERFDATA_ERROR;
			}
			if (r == 0)
				break;
			len += (size_t)r;
			pd_progress(d, source_offset(s), source_size(s));
		}
		enum perfdata_status st = pd_file(d, buf, len, false);
		free(buf);
		return st;
	}
	pos = PD_PIPE_HEADER;
	for (;;) {
		if (!pd_read(s, &buf, &cap, 0, 8))
			break;
		uint16_t size = pd_rd16(buf + 6);
		if (size < 8) {
			pd_msg(d, "a record at byte %" PRIu64 " has an impossible size (%u); the rest is skipped",
			       pos, (unsigned)size);
			break;
		}
		if (!pd_read(s, &buf, &cap, 8, size - 8u)) {
			pd_msg(d, "the stream ends inside a record at byte %" PRIu64, pos);
			break;
		}
		pd_record(d, buf, size, pos);
		if (d->fatal)
			break;
		uint64_t trail = pd_trailing(buf, size, true);
		pos += size;
		while (trail) {
			unsigned char junk[4096];
			size_t k = trail < sizeof junk ? (size_t)trail : sizeof junk;
			if (source_read(s, junk, k) != (ssize_t)k) {
				pd_msg(d, "the stream ends inside the data of the record before byte %" PRIu64, pos);
				break;
			}
			trail -= k;
			pos += k;
		}
		if ((pos & ((1u << 20) - 1)) < size)
			pd_progress(d, pos, 0);
	}
	free(buf);
	if (d->unsupported[0])
		return PERFDATA_UNSUPPORTED;
	q_flush(d, UINT64_MAX);
	return PERFDATA_OK;
}

/* ---- public --------------------------------------------------------------- */

bool perfdata_sniff(const char *buf, size_t len)
{
	uint64_t magic, hsize;
	if (len < 16)
		return false;
	memcpy(&magic, buf, 8);
	memcpy(&hsize, buf + 8, 8);
	if (magic == PD_MAGIC_SWAPPED)
		return true;
	return magic == PD_MAGIC && (hsize == PD_PIPE_HEADER || hsize >= PD_FILE_HEADER);
}

enum perfdata_status perfdata_load(struct tree *t, struct source *s, const char *name,
                                   const struct perfdata_options *o, struct perfdata_info *info,
                                   void (*add)(void *msgarg, const char *text), void *msgarg)
{
	struct pd d = { 0 };
	const char *map;
	size_t len;
	enum perfdata_status st;
	char head[16];

	memset(info, 0, sizeof *info);
	d.t = t;
	d.o = o;
	d.info = info;
	d.add = add;
	d.msgarg = msgarg;
	d.name = name;
	if (source_peek(s, head, sizeof head) < (ssize_t)sizeof head) {
		pd_msg(&d, "not a readable perf.data file");
		return PERFDATA_ERROR;
	}
	uint64_t magic;
	memcpy(&magic, head, 8);
	if (magic == PD_MAGIC_SWAPPED) {
		snprintf(info->unsupported, sizeof info->unsupported,
		         "it is perf.data of the other byte order (recorded on a big-endian machine)");
		return PERFDATA_UNSUPPORTED;
	}
	d.pr = perf_reader_new(t, o->perf);
	perf_reader_set_timeline(d.pr, o->timeline);
	perf_reader_set_dsos(d.pr, o->dsos);
	d.sy = symbols_new(o->symfs);
	/* perf script knows the idle thread from the start */
	pd_set_comm(pd_findnew_thread(&d, 0, 0), "swapper", 7);
	uint64_t hsize;
	memcpy(&hsize, head + 8, 8);
	if (hsize != PD_PIPE_HEADER && source_mapping(s, &map, &len)) {
		/* the header's features decide whether kallsyms applies: read
		 * them before any record */
		st = pd_file(&d, (const unsigned char *)map, len, true);
	} else {
		/* the stream form, also when saved to a file */
		st = pd_pipe(&d, s);
	}
	perf_reader_finish(d.pr);
	if (st == PERFDATA_UNSUPPORTED && d.unsupported[0])
		snprintf(info->unsupported, sizeof info->unsupported, "%s", d.unsupported);

	if (d.kernel_unresolved && !d.kallsyms_ok)
		pd_msg(&d, "%" PRIu64 " kernel address%s shown as [unknown]: the recording is not of this "
		       "machine's running kernel", d.kernel_unresolved, d.kernel_unresolved == 1 ? "" : "es");
	if (d.bad_records)
		pd_msg(&d, "skipped %" PRIu64 " malformed record%s (first at byte %" PRIu64 ": %s)",
		       d.bad_records, d.bad_records == 1 ? "" : "s", d.first_bad_off, d.first_bad);
	if (d.unknown_types)
		pd_msg(&d, "skipped %" PRIu64 " record%s of types this reader does not know", d.unknown_types,
		       d.unknown_types == 1 ? "" : "s");
	if (d.maps_dropped)
		pd_msg(&d, "%" PRIu64 " mappings beyond %u a process (or %" PRIu64 " in all) were ignored; "
		       "their frames show as [unknown]", d.maps_dropped, PD_MAPS_PER_PROCESS, PD_MAP_ENTRIES);
	if (d.lost)
		pd_msg(&d, "perf lost %" PRIu64 " sample%s while recording", d.lost, d.lost == 1 ? "" : "s");

	pd_threads_free(&d);
	pd_header_free(&d);
	free(d.q.ev);
	free(d.q.buf);
	free(d.fbuf);
	free(d.zbuf);
#ifdef HAVE_ZSTD
	ZSTD_freeDStream(d.zs);
#endif
	unwind_free(d.uw);
	symbols_free(d.sy);
	perf_reader_free(d.pr);
	return st;
}
