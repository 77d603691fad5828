#include "config.h"
#include "load.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "folded.h"
#include "perfdata.h"
#include "cpuprofile.h"
#include "speedscope.h"
#include "source.h"
#include "text.h"
#include "timeline.h"
#include "xalloc.h"

void load_messages_add(struct load_messages *m, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (m->len + (size_t)n + 2 > m->cap) {
		m->cap = (m->len + (size_t)n + 2) * 2;
		m->text = xrealloc(m->text, m->cap);
	}
	va_start(ap, fmt);
	vsnprintf(m->text + m->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	m->len += (size_t)n;
	m->text[m->len++] = '\n';
	m->text[m->len] = '\0';
}

void load_messages_free(struct load_messages *m)
{
	free(m->text);
	memset(m, 0, sizeof *m);
}

/* ---- progress ----------------------------------------------------------- */

struct progress {
	bool enabled, shown;
	double start, last;
	char name[64];
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void human(double bytes, char *buf, size_t n)
{
	const char *unit[] = { "B", "KB", "MB", "GB", "TB" };
	int u = 0;
	while (bytes >= 1000.0 && u < 4) {
		bytes /= 1000.0;
		u++;
	}
	snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", bytes, unit[u]);
}

/* Redraws one status line on stderr, at most 10 times a second, and only
 * once loading has taken 0.3 s: short loads stay silent. */
static void progress_update(struct progress *p, uint64_t off, uint64_t size, uint64_t stacks, bool final)
{
	if (!p->enabled)
		return;
	double t = now();
	if (!final && (t - p->start < 0.3 || t - p->last < 0.1))
		return;
	if (final) {
		if (p->shown)
			fputs("\r\033[K", stderr);
		p->shown = false;
		return;
	}
	p->last = t;
	p->shown = true;
	double el = t - p->start, rate = el > 0 ? off / el : 0;
	char done[32], tot[32], sp[32];
	human((double)off, done, sizeof done);
	human(rate, sp, sizeof sp);
	if (size) {
		human((double)size, tot, sizeof tot);
		double frac = (double)off / (double)size;
		double eta = rate > 0 ? (double)(size - off) / rate : 0;
		fprintf(stderr, "\r\033[Ktflame: %s  %s / %s  %3.0f%%  ETA %.0fs  %s/s  %" PRIu64 " stacks",
		        p->name, done, tot, frac * 100.0, eta, sp, stacks);
	} else {
		fprintf(stderr, "\r\033[Ktflame: %s  %s  %s/s  %" PRIu64 " stacks",
		        p->name, done, sp, stacks);
	}
	fflush(stderr);
}

/* ---- loading ------------------------------------------------------------ */

static void report_diag(struct load_messages *m, const char *name, const struct reader_diag *d)
{
	if (d->bad)
		load_messages_add(m, "tflame: %s: skipped %" PRIu64 " malformed line%s (first at line %" PRIu64 ": %s)",
		                  name, d->bad, d->bad == 1 ? "" : "s", d->first_bad, d->first_msg);
	if (d->saturated)
		load_messages_add(m, "tflame: %s: %" PRIu64 " sample count%s too large, clamped to %" PRIu64,
		                  name, d->saturated, d->saturated == 1 ? "" : "s", UINT64_MAX);
}

/* Like cat, a file cut short while read is read up to the cut; but say so,
 * as the last line before the cut may be incomplete. */
static void report_shrank(struct load_messages *m, const char *name, const struct source *s)
{
	if (source_shrank(s))
		load_messages_add(m, "tflame: %s: the file was truncated while being read; "
		                  "only the lines before the cut were loaded", name);
}

/* The text of line `line` (1-based) within buf, sanitized, for messages. */
static void line_snippet(const char *buf, size_t len, uint64_t line, char *out, size_t outsize)
{
	const char *p = buf, *end = buf + len;
	for (uint64_t k = 1; k < line && p < end; k++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	size_t n = (size_t)((nl ? nl : end) - p);
	if (n && p[n - 1] == '\r')
		n--;
	text_sanitize(p, n, out, outsize);
}

/* ---- either reader ----------------------------------------------------- */

/* The folded and perf script readers behind one face, so that the serial
 * and parallel loops below serve both formats. Exactly one is set. */
struct any_reader {
	struct folded_reader *f;
	struct perf_reader *p;
};

static struct any_reader any_new(enum sniff_format fmt, struct tree *t, const struct perf_options *po,
                                 struct timeline *tl)
{
	struct any_reader r = { 0 };
	if (fmt == SNIFF_PERF) {
		r.p = perf_reader_new(t, po);
		perf_reader_set_timeline(r.p, tl);
	} else {
		r.f = folded_reader_new(t);
	}
	return r;
}

static void any_feed(struct any_reader *r, const char *buf, size_t len)
{
	if (r->p)
		perf_reader_feed(r->p, buf, len);
	else
		folded_reader_feed(r->f, buf, len);
}

/* Flushes a pending record (perf) and returns the diagnostics. */
static const struct reader_diag *any_finish(struct any_reader *r)
{
	if (r->p) {
		perf_reader_finish(r->p);
		return perf_reader_diag(r->p);
	}
	return folded_reader_diag(r->f);
}

static void any_free(struct any_reader *r)
{
	perf_reader_free(r->p);
	folded_reader_free(r->f);
}

/* ---- parallel parsing of mapped files --------------------------------- */

/* A mapped file is cut into pieces of about PAR_PIECE bytes: a folded file
 * at line starts, a perf script file at blank lines (record boundaries). A
 * blank line resets the perf reader's record state, so each piece parses
 * alone, given the file's first event name (the default filter) and no byte
 * order mark check; folded lines are independent anyway. Each piece gets its
 * own tree, and the trees merge into the result in piece order, which gives
 * the same tree as one pass. The main thread parses a piece no thread has
 * taken yet straight into the result, as it does the first.
 *
 * The threads take pieces in order; the main thread also merges each piece
 * as soon as it and those before it are done, and parses only when nothing
 * is ready to merge. Merging thus overlaps parsing instead of following it,
 * and few pieces wait in memory.
 *
 * Running out of memory falls back to fewer threads, down to one, rather
 * than ending tflame, as a single pass would need less: a piece's own tree
 * is built under xalloc_catch, and when memory runs out there the piece is
 * dropped and its thread stops; the main thread later parses that piece
 * into the result itself. When memory runs out for the result, the main
 * thread stops every other thread, drops what they hold (their pieces,
 * finished or not, and the spare node arrays) and goes on alone. */
#define PAR_MIN_BYTES ((size_t)16 << 20)   /* smaller files: one thread */
#define PAR_MAX_THREADS 16
#define PAR_PIECE ((size_t)16 << 20)       /* input per piece */
#define PAR_MAX_PIECES 4096
#define PAR_POOL 2
#define PAR_BACKLOG 2                      /* finished pieces a thread waits on */
#define PAR_BLOCK ((size_t)8 << 20)        /* fed at a time, then dropped */
#define PAR_PRESCAN ((size_t)4 << 20)      /* where the first event must be */
#define PAR_SMALL_STACK ((size_t)256 << 10) /* a thread's stack under ulimit -v */

enum par_state {
	PIECE_TODO,         /* not taken yet */
	PIECE_RUNNING,      /* being parsed into its own tree */
	PIECE_DONE,         /* parsed into its own tree, to merge */
	PIECE_REDO,         /* dropped: to parse into the result */
	PIECE_TAKEN         /* the main thread's: merged or parsed into the result */
};

struct par_piece {
	const char *buf;
	size_t len;
	struct tree own;                /* the piece's tree (pieces > 0) */
	struct timeline tl;             /* its sample times (leaves of own) */
	struct any_reader r;
	struct reader_diag diag;        /* once parsed */
	void *mem;                      /* pool memory handed to `own` */
	size_t mem_bytes;
	atomic_size_t done;             /* bytes fed so far */
	double cpu;                     /* thread CPU seconds its parse took */
	enum par_state state;           /* under par.mu */
};

struct par {
	struct par_piece *pieces;
	int npieces;
	int next;                       /* the next piece to take (under mu) */
	enum sniff_format fmt;
	const struct perf_options *later;
	bool times;                     /* pieces keep their sample times */
	pthread_mutex_t mu;
	pthread_cond_t cv;              /* a piece finished or was dropped */
	/* Node arrays of merged pieces, for the next pieces (under mu): their
	 * pages are in memory already, where fresh ones cost a fault and the
	 * kernel's zeroing each (700 MB worth on 1 GiB of folded text). */
	void *pool[PAR_POOL];
	size_t pool_bytes[PAR_POOL];
	int npool;
	int waiting;                    /* pieces DONE, not merged yet */
	int running;                    /* pieces RUNNING */
	atomic_bool stop;               /* the main thread goes on alone (out
	                                   of memory, or merging costs more
	                                   than parsing): the threads drop
	                                   their pieces and end */
	bool main_builds;               /* the main thread may parse pieces
	                                   into trees of their own (under mu) */
	double parse_cpu, merge_cpu;    /* of the pieces merged so far */
	int merged;
	/* progress, drawn by the main thread only */
	struct progress *pr;
	size_t total;
	const struct tree *t;
};

static void par_progress(const struct par *pa, bool final)
{
	uint64_t sum = 0;
	for (int i = 0; i < pa->npieces; i++)
		sum += atomic_load(&pa->pieces[i].done);
	progress_update(pa->pr, sum, pa->total, pa->t->stacks, final);
}

/* Feeds a piece to its reader a block at a time, dropping the pages read;
 * the main thread draws the progress. False when another thread sees the
 * loader stopped (pa->stop) before the end. */
static bool par_run(struct par_piece *j, struct par *pa, bool main_thread)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t page = pg > 0 ? (size_t)pg : 4096, off = 0;
	while (off < j->len) {
		if (!main_thread && atomic_load(&pa->stop))
			return false;
		size_t n = j->len - off;
		if (n > PAR_BLOCK) {
			const char *nl = memchr(j->buf + off + PAR_BLOCK, '\n', n - PAR_BLOCK);
			n = nl ? (size_t)(nl - (j->buf + off)) + 1 : n;
		}
		any_feed(&j->r, j->buf + off, n);
		off += n;
		atomic_store(&j->done, off);
#ifdef HAVE_MADVISE
		/* Drop the pages wholly inside what this piece has read. */
		uintptr_t a = ((uintptr_t)j->buf + page - 1) / page * page;
		uintptr_t b = ((uintptr_t)j->buf + off) / page * page;
		if (b > a)
			madvise((void *)a, b - a, MADV_DONTNEED);
#endif
		if (main_thread)
			par_progress(pa, false);
	}
	return true;
}

/* CPU seconds used by the calling thread (0 when unknown). */
static double thread_cpu(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Frees what a piece parsed into its own tree holds, and forgets it was
 * read (it will be read again). */
static void par_drop(struct par_piece *j)
{
	any_free(&j->r);
	memset(&j->r, 0, sizeof j->r);
	if (j->mem && j->own.nodes != j->mem)
		free(j->mem);       /* not handed over yet */
	j->mem = NULL;
	tree_free(&j->own);
	timeline_free(&j->tl);
	atomic_store(&j->done, 0);
}

/* Parses piece i into its own tree. False when memory ran out, or the
 * loader stopped, first: the piece is then dropped. Only what is in *j
 * survives the jump out of xalloc_catch, so nothing here is kept in a
 * local variable between the setjmp and the end of the work. */
static bool par_build(struct par *pa, int i, bool main_thread)
{
	struct par_piece *j = &pa->pieces[i];
	pthread_mutex_lock(&pa->mu);
	j->mem = NULL;
	j->mem_bytes = 0;
	if (pa->npool) {
		pa->npool--;
		j->mem = pa->pool[pa->npool];
		j->mem_bytes = pa->pool_bytes[pa->npool];
	}
	pthread_mutex_unlock(&pa->mu);
	memset(&j->own, 0, sizeof j->own);
	memset(&j->r, 0, sizeof j->r);
	timeline_init(&j->tl);
	jmp_buf env;
	if (setjmp(env)) {
		par_drop(j);
		return false;
	}
	j->cpu = thread_cpu();
	xalloc_catch(&env);
	/* Pool arrays hold 1024 nodes or more, so tree_init_nodes keeps the
	 * array it is given: after it, j->own owns j->mem. */
	tree_init_nodes(&j->own, j->mem, j->mem_bytes);
	j->mem = NULL;
	j->r = any_new(pa->fmt, &j->own, pa->later, pa->times ? &j->tl : NULL);
	if (!par_run(j, pa, main_thread)) {
		xalloc_catch(NULL);
		par_drop(j);
		return false;
	}
	j->diag = *any_finish(&j->r);
	xalloc_catch(NULL);
	j->cpu = thread_cpu() - j->cpu;
	any_free(&j->r);
	memset(&j->r, 0, sizeof j->r);
	return true;
}

/* Takes the next piece (under mu, which it releases while parsing) and
 * parses it into its own tree. False when that ran out of memory. */
static bool par_take(struct par *pa, bool main_thread)
{
	int i = pa->next++;
	pa->pieces[i].state = PIECE_RUNNING;
	pa->running++;
	pthread_mutex_unlock(&pa->mu);
	bool ok = par_build(pa, i, main_thread);
	pthread_mutex_lock(&pa->mu);
	pa->running--;
	pa->pieces[i].state = ok ? PIECE_DONE : PIECE_REDO;
	pa->waiting += ok;
	pthread_cond_broadcast(&pa->cv);
	return ok;
}

static void *par_thread(void *arg)
{
	struct par *pa = arg;
	pthread_mutex_lock(&pa->mu);
	for (;;) {
		/* When the merging falls behind (the main thread slowed by page
		 * faults or a disk read), do not pile up trees in memory. No
		 * deadlock: the piece the main thread waits for is finished or
		 * being parsed, never waiting to be taken. */
		while (pa->waiting >= PAR_BACKLOG && !atomic_load(&pa->stop))
			pthread_cond_wait(&pa->cv, &pa->mu);
		if (atomic_load(&pa->stop) || pa->next >= pa->npieces)
			break;
		if (!par_take(pa, false))
			break;      /* out of memory: one thread fewer */
	}
	pthread_mutex_unlock(&pa->mu);
	return NULL;
}

/* Starts up to n threads (fewer when they cannot be made) and returns how
 * many. Under an address-space or data limit (ulimit -v, -d), what the
 * threads leave mapped counts, and the fallback cannot give it back: glibc
 * gives each thread a malloc arena that reserves 64 MiB and a stack of
 * RLIMIT_STACK (8 MiB), and once big blocks have been freed it serves
 * blocks up to their size from the heap, whose freed parts stay mapped.
 * There the threads share the main arena, get small stacks (nothing here
 * recurses), and blocks from 128 KiB are mapped and unmapped on their own. */
static int par_start(struct par *pa, pthread_t *tid, int n)
{
	pthread_attr_t attr;
	bool attr_ok = pthread_attr_init(&attr) == 0;
	struct rlimit as, data;
	if ((getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) ||
	    (getrlimit(RLIMIT_DATA, &data) == 0 && data.rlim_cur != RLIM_INFINITY)) {
#ifdef M_ARENA_MAX
		mallopt(M_ARENA_MAX, 1);
		mallopt(M_MMAP_THRESHOLD, 128 << 10);
#endif
		if (attr_ok)
			pthread_attr_setstacksize(&attr, PAR_SMALL_STACK);
	}
	int nthr = 0;
	for (int i = 0; i < n; i++)
		if (pthread_create(&tid[nthr], attr_ok ? &attr : NULL, par_thread, pa) == 0)
			nthr++;
	if (attr_ok)
		pthread_attr_destroy(&attr);
	return nthr;
}

/* Goes on with the main thread alone: stops the other threads, waits
 * until they have dropped the pieces they were parsing, drops the finished
 * pieces not merged yet and the spare node arrays; the main thread reads
 * those pieces into the result itself. True when that freed anything.
 * Also the main thread's xalloc_set_reclaim hook, when memory runs out for
 * the result. */
static bool par_alone(void *arg)
{
	struct par *pa = arg;
	pthread_mutex_lock(&pa->mu);
	bool freed = !atomic_load(&pa->stop) && pa->running > 0;
	atomic_store(&pa->stop, true);
	pa->main_builds = false;
	pthread_cond_broadcast(&pa->cv);
	while (pa->running > 0)
		pthread_cond_wait(&pa->cv, &pa->mu);
	for (int i = 0; i < pa->npieces; i++) {
		struct par_piece *j = &pa->pieces[i];
		if (j->state == PIECE_DONE) {
			par_drop(j);
			j->state = PIECE_REDO;
			pa->waiting--;
			freed = true;
		}
	}
	for (int i = 0; i < pa->npool; i++)
		free(pa->pool[i]);
	freed |= pa->npool > 0;
	pa->npool = 0;
	pthread_mutex_unlock(&pa->mu);
	return freed;
}

/* The event name a single pass would keep: found by reading the start of
 * the file with a throwaway reader. NULL when not within PAR_PRESCAN. */
static char *first_event(const char *d, size_t len, const struct perf_options *po)
{
	struct tree tmp;
	tree_init(&tmp);
	struct perf_reader *r = perf_reader_new(&tmp, po);
	size_t lim = len < PAR_PRESCAN ? len : PAR_PRESCAN, off = 0;
	while (off < lim && !perf_reader_filter(r)) {
		const char *nl = memchr(d + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (d + off)) + 1 : len - off;
		perf_reader_feed(r, d + off, n);
		off += n;
	}
	const char *f = perf_reader_filter(r);
	char *res = f ? xstrdup(f) : NULL;
	perf_reader_free(r);
	tree_free(&tmp);
	return res;
}

static bool blank_byte(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* d[from..hi) searched for c; the bytes looked at are added to *scanned. */
static const char *scan_for(const char *d, size_t from, size_t hi, char c, uint64_t *scanned)
{
	if (from >= hi)
		return NULL;
	const char *p = memchr(d + from, c, hi - from);
	*scanned += p ? (uint64_t)(p - (d + from)) + 1 : hi - from;
	return p;
}

/* The first cut in d[from..hi): just after the first newline (folded), or
 * just after the first whitespace-only line that starts after one (perf
 * script: a record boundary). 0 when there is none in that window. */
static size_t cut_in(const char *d, size_t from, size_t hi, bool records, uint64_t *scanned)
{
	const char *nl = scan_for(d, from, hi, '\n', scanned);
	if (!nl)
		return 0;
	size_t i = (size_t)(nl - d) + 1;
	if (!records)
		return i;
	while (i < hi) {
		nl = scan_for(d, i, hi, '\n', scanned);
		if (!nl)
			return 0;
		size_t e = (size_t)(nl - d), k = i;
		while (k < e && blank_byte(d[k]))
			k++;
		*scanned += k - i;
		if (k == e)
			return e + 1;
		i = e + 1;
	}
	return 0;
}

size_t load_cuts(const char *d, size_t len, bool records, size_t want, size_t *cut, uint64_t *scanned)
{
	uint64_t dummy = 0;
	if (!scanned)
		scanned = &dummy;
	*scanned = 0;
	size_t k = 1;
	cut[0] = 0;
	/* Nominal piece i starts at len / want * i. The search for cut i stays
	 * before the next nominal start: were it to go on to the end of the
	 * file (a file with few newlines), every search would read the rest of
	 * the file, O(len * want). A window without a cut adds its bytes to the
	 * piece before. */
	for (size_t i = 1; i < want; i++) {
		size_t from = len / want * i, hi = i + 1 < want ? len / want * (i + 1) : len;
		if (from < cut[k - 1])
			from = cut[k - 1];
		size_t c = cut_in(d, from, hi, records, scanned);
		if (c > cut[k - 1] && c < len)
			cut[k++] = c;
	}
	cut[k] = len;
	return k;
}

/* Whether merging own into t surely finds the memory: as much as both trees
 * hold is obtained for a moment. Merging adds to t at most own's nodes,
 * names and bytes, and t's arrays grow by doubling (and by mremap, which
 * needs no second copy), so this bounds it; when it fails, reading the piece
 * again into t needs less, without own. mmap, as a malloc that is freed at
 * once may be left out by the compiler. */
static bool par_room(const struct tree *t, const struct tree *own)
{
	size_t want = tree_bytes(t) + tree_bytes(own);
	void *p = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return false;
	munmap(p, want);
	return true;
}

/* Parses a mapped file of format fmt on o->threads threads. False when that
 * does not apply (stream, small file, no piece boundaries, no perf event
 * found early): the caller then reads it the usual way. */
static bool load_parallel(struct tree *t, struct source *s, enum sniff_format fmt,
                          const struct load_options *o, struct progress *pr,
                          struct load_messages *m, const char *name)
{
	const char *d;
	size_t len;
	int n = o->threads > PAR_MAX_THREADS ? PAR_MAX_THREADS : o->threads;
	/* A difffolded file's BEFORE tree follows the reader's stacks one by
	 * one: read it in one pass. */
	if (n < 2 || t->chart || o->before || !source_mapping(s, &d, &len) || (!o->threads_forced && len < PAR_MIN_BYTES))
		return false;
	struct perf_options later = o->perf;
	char *filter = NULL;
	if (fmt == SNIFF_PERF && !later.event_filter) {
		filter = first_event(d, len, &o->perf);
		if (!filter)
			return false;
		later.event_filter = filter;
	}
	later.mid_stream = true;
	/* Pieces of about PAR_PIECE bytes, at least one per thread. The tests
	 * make them tiny (TFLAME_PIECE_BYTES) to have many on small files. */
	size_t piece = PAR_PIECE;
	const char *pe = getenv("TFLAME_PIECE_BYTES");
	if (pe && atol(pe) > 0)
		piece = (size_t)atol(pe);
	size_t want = len / piece;
	if (want < (size_t)n)
		want = (size_t)n;
	if (want > PAR_MAX_PIECES)
		want = PAR_MAX_PIECES;
	size_t *cut = xmalloc((want + 1) * sizeof *cut);
	int k = (int)load_cuts(d, len, fmt == SNIFF_PERF, want, cut, NULL);
	if (k < 2) {
		free(cut);
		free(filter);
		return false;
	}

	struct par pa = { .npieces = k, .fmt = fmt, .later = &later, .pr = pr, .total = len, .t = t,
	                  .main_builds = true };
	pa.pieces = xcalloc((size_t)k, sizeof *pa.pieces);
	pa.times = o->timeline != NULL;
	for (int i = 0; i < k; i++) {
		timeline_init(&pa.pieces[i].tl);
		pa.pieces[i].buf = d + cut[i];
		pa.pieces[i].len = cut[i + 1] - cut[i];
		atomic_init(&pa.pieces[i].done, 0);
	}
	pa.pieces[0].state = PIECE_TAKEN;
	pa.next = 1;
	atomic_init(&pa.stop, false);
	pthread_mutex_init(&pa.mu, NULL);
	pthread_cond_init(&pa.cv, NULL);
	pthread_t tid[PAR_MAX_THREADS];
	int nthr = par_start(&pa, tid, n - 1);
	xalloc_set_reclaim(par_alone, &pa);

	/* Each piece in turn: merged when another thread parsed it, else
	 * parsed straight into the result (the first piece always); while
	 * the piece is being parsed, the main thread parses later ones. Line
	 * numbers of later pieces are offset. */
	struct reader_diag all = { 0 };
	uint64_t lines_before = 0;
	for (int i = 0; i < k; i++) {
		struct par_piece *j = &pa.pieces[i];
		bool direct = i == 0;
		pthread_mutex_lock(&pa.mu);
		while (i > 0) {
			if (j->state == PIECE_DONE)
				break;
			if (j->state == PIECE_TODO || j->state == PIECE_REDO) {
				if (j->state == PIECE_TODO)
					pa.next = i + 1;    /* pieces are taken in order */
				direct = true;
				break;
			}
			/* Being parsed: parse a later one, or wait, keeping the
			 * bar alive. */
			if (pa.main_builds && !atomic_load(&pa.stop) && pa.next < k) {
				if (!par_take(&pa, true))
					pa.main_builds = false;
				continue;
			}
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 100000000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&pa.cv, &pa.mu, &ts);
			pthread_mutex_unlock(&pa.mu);
			par_progress(&pa, false);
			pthread_mutex_lock(&pa.mu);
		}
		j->state = PIECE_TAKEN;
		pthread_mutex_unlock(&pa.mu);
		if (!direct && !par_room(t, &j->own)) {
			/* Merging would need its tree and the grown result at
			 * once: dropped, and read again into the result. */
			par_drop(j);
			pthread_mutex_lock(&pa.mu);
			pa.waiting--;
			pthread_mutex_unlock(&pa.mu);
			par_alone(&pa);
			direct = true;
		}
		if (direct) {
			j->r = any_new(fmt, t, i ? &later : &o->perf, o->timeline);
			par_run(j, &pa, true);
			j->diag = *any_finish(&j->r);
			any_free(&j->r);
		} else {
			double cpu = thread_cpu();
			tree_idx *map;
			tree_merge_map(t, &j->own, &map);
			if (o->timeline)
				timeline_append(o->timeline, &j->tl, timeline_leaf_map, map, 0);
			free(map);
			timeline_free(&j->tl);
			pa.merge_cpu += thread_cpu() - cpu;
			pa.parse_cpu += j->cpu;
			pa.merged++;
			size_t bytes;
			void *mem = tree_take_nodes(&j->own, &bytes);
			tree_free(&j->own);
			pthread_mutex_lock(&pa.mu);
			pa.waiting--;
			pthread_cond_broadcast(&pa.cv);
			if (pa.npool < PAR_POOL && !atomic_load(&pa.stop) && bytes / sizeof *j->own.nodes >= 1024) {
				pa.pool[pa.npool] = mem;
				pa.pool_bytes[pa.npool++] = bytes;
				mem = NULL;
			}
			pthread_mutex_unlock(&pa.mu);
			free(mem);
			/* Merging a piece costs about what parsing it does when
			 * its nodes are new and looked up in a big child hash
			 * (a node with millions of children: 1.1 to 2.7 times
			 * its parse; 0.4 to 0.8 on ordinary profiles, less on
			 * repetitive ones). Then the other threads only add
			 * work and memory: parse the rest here. The tree is the
			 * same either way. */
			if (pa.merged >= 2 && pa.merge_cpu > pa.parse_cpu && !atomic_load(&pa.stop))
				par_alone(&pa);
		}
		const struct reader_diag *dg = &j->diag;
		if (dg->bad && !all.bad) {
			all.first_bad = dg->first_bad + lines_before;
			memcpy(all.first_msg, dg->first_msg, sizeof all.first_msg);
		}
		all.bad += dg->bad;
		all.lines += dg->lines;
		all.stacks += dg->stacks;
		all.saturated += dg->saturated;
		lines_before += dg->lines;
	}
	xalloc_set_reclaim(NULL, NULL);
	for (int i = 0; i < pa.npool; i++)
		free(pa.pool[i]);
	for (int i = 0; i < nthr; i++)
		pthread_join(tid[i], NULL);
	progress_update(pr, len, len, t->stacks, true);
	report_diag(m, name, &all);
	pthread_cond_destroy(&pa.cv);
	pthread_mutex_destroy(&pa.mu);
	free(pa.pieces);
	free(cut);
	free(filter);
	return true;
}

static void load_msg_cb(void *arg, const char *text)
{
	load_messages_add(arg, "%s", text);
}

static void load_progress_cb(void *arg, uint64_t done, uint64_t size, uint64_t stacks)
{
	progress_update(arg, done, size, stacks, false);
}

/* The text of a stream already opened, in format fmt (not UNKNOWN): the
 * serial reading loop. buf, n: the first block, already read. */
/* The JSON readers' progress, with the stacks of the tree being built. */
struct json_progress_arg {
	struct progress *pr;
	const struct tree *t;
};

static void load_json_progress_cb(void *arg, uint64_t done, uint64_t size)
{
	const struct json_progress_arg *a = arg;
	progress_update(a->pr, done, size, a->t->stacks, false);
}

static int load_text(struct tree *t, struct source *s, enum sniff_format fmt, const char *buf, ssize_t n,
                     const struct load_options *o, struct progress *pr, struct load_messages *m,
                     const char *name)
{
	struct any_reader r = any_new(fmt, t, &o->perf, o->timeline);
	if (r.f && o->before)
		folded_reader_set_before(r.f, o->before);
	int rc = 0;
	while (n > 0) {
		any_feed(&r, buf, (size_t)n);
		progress_update(pr, source_offset(s), source_size(s), t->stacks, false);
		n = source_next(s, &buf);
	}
	progress_update(pr, source_offset(s), source_size(s), t->stacks, true);
	if (n < 0) {
		load_messages_add(m, "tflame: %s: %s", name, source_error(s));
		rc = 1;
	}
	report_diag(m, name, any_finish(&r));
	any_free(&r);
	report_shrank(m, name, s);
	return rc;
}

/* What the native reader cannot do: `perf script -F+pid -i PATH`, read as
 * perf script text. */
static int load_via_perf_script(struct tree *t, const char *path, const char *name,
                                const struct load_options *o, struct progress *pr, struct load_messages *m)
{
	int fds[2];
	if (pipe(fds) != 0) {
		load_messages_add(m, "tflame: %s: %s", name, strerror(errno));
		return 1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		if (dup2(fds[1], STDOUT_FILENO) < 0)
			_exit(127);
		close(fds[1]);
		/* perf's messages quote the file's names unfiltered: they do not
		 * reach the terminal; its exit status is reported */
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		execlp("perf", "perf", "script", "-F+pid", "-i", path, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		load_messages_add(m, "tflame: %s: %s", name, strerror(errno));
		return 1;
	}
	char fdpath[32], err[256];
	snprintf(fdpath, sizeof fdpath, "/dev/fd/%d", fds[0]);
	struct source *s = source_open(fdpath, err, sizeof err);
	int rc = 1;
	if (s) {
		const char *buf = "";
		ssize_t n = source_next(s, &buf);
		if (n >= 0)
			rc = load_text(t, s, SNIFF_PERF, buf, n, o, pr, m, name);
		else
			load_messages_add(m, "tflame: %s: %s", name, source_error(s));
		source_close(s);
	} else {
		load_messages_add(m, "tflame: %s: %s", name, err);
	}
	close(fds[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			load_messages_add(m, "tflame: %s: perf is not installed, and perf script is needed to read this file "
			                  "(Debian: apt-get install linux-perf)", name);
		else
			load_messages_add(m, "tflame: %s: perf script failed", name);
		rc = 1;
	}
	return rc;
}

/* perf.data through the native reader; what it cannot read, through perf
 * script when the input is a file. */
static int load_perfdata(struct tree *t, struct source *s, const char *path, const char *name,
                         const struct load_options *o, struct progress *pr, struct load_messages *m)
{
	struct perfdata_options po = {
		.perf = &o->perf, .symfs = o->symfs,
		.progress = load_progress_cb, .progress_arg = pr, .timeline = o->timeline
	};
	struct perfdata_info info;
	enum perfdata_status st = perfdata_load(t, s, name, &po, &info, load_msg_cb, m);
	progress_update(pr, source_offset(s), source_size(s), t->stacks, true);
	if (o->perfdata_info)
		*o->perfdata_info = info;
	if (st != PERFDATA_UNSUPPORTED)
		return st == PERFDATA_OK ? 0 : 1;
	if (strcmp(path, "-") == 0 || source_size(s) == 0) {
		load_messages_add(m, "tflame: %s: cannot read it: %s; save it to a file, or run perf script on it",
		                  name, info.unsupported);
		return 1;
	}
	load_messages_add(m, "tflame: %s: %s: read through perf script instead", name, info.unsupported);
	return load_via_perf_script(t, path, name, o, pr, m);
}

static int load_one(struct tree *t, const char *path, const struct load_options *o,
                    struct load_messages *m)
{
	char err[256];
	struct source *s = source_open(path, err, sizeof err);
	char name[256];
	const char *shown = strcmp(path, "-") == 0 ? "<stdin>" : path;
	text_sanitize(shown, strlen(shown), name, sizeof name);
	if (!s) {
		load_messages_add(m, "tflame: %s: %s", name, err);
		return 1;
	}
	struct progress pr = { .enabled = o->progress && isatty(STDERR_FILENO) };
	pr.start = pr.last = now();
	text_sanitize(name, strlen(name), pr.name, sizeof pr.name);

	/* PPROF_SNIFF_BYTES, CPUPROFILE_SNIFF_BYTES, SPEEDSCOPE_SNIFF_BYTES: 4096 */
	unsigned char head[PPROF_SNIFF_BYTES];
	ssize_t hn = (o->format == SNIFF_UNKNOWN || o->format == SNIFF_PERFDATA || o->format == SNIFF_PPROF)
	             ? source_peek(s, head, sizeof head) : 0;
	if (hn < 0) {
		load_messages_add(m, "tflame: %s: %s", name, source_error(s));
		source_close(s);
		return 1;
	}
	if (o->format == SNIFF_PERFDATA || (o->format == SNIFF_UNKNOWN && perfdata_sniff((const char *)head, (size_t)hn))) {
		int rc = load_perfdata(t, s, path, name, o, &pr, m);
		source_close(s);
		return rc;
	}
	if (o->format == SNIFF_PPROF ||
	    (o->format == SNIFF_UNKNOWN && pprof_sniff(head, (size_t)hn, (size_t)hn < sizeof head))) {
		struct pprof_options po = {
			.sample_type = o->sample_type, .label_root = o->label_root, .before = o->before,
			.progress = load_progress_cb, .progress_arg = &pr
		};
		int rc = pprof_load(t, s, name, &po, o->pprof_info, load_msg_cb, m);
		progress_update(&pr, source_offset(s), source_size(s), t->stacks, true);
		source_close(s);
		return rc;
	}

	bool head_eof = (size_t)hn < sizeof head;
	if (o->format == SNIFF_SPEEDSCOPE ||
	    (o->format == SNIFF_UNKNOWN && speedscope_sniff(head, (size_t)hn, head_eof))) {
		struct json_progress_arg jp = { &pr, t };
		struct speedscope_options so = { .profile = o->profile, .progress = load_json_progress_cb,
		                                 .progress_arg = &jp, .timeline = o->timeline };
		int rc = speedscope_load(t, s, name, &so, load_msg_cb, m);
		progress_update(&pr, source_offset(s), source_size(s), t->stacks, true);
		source_close(s);
		return rc;
	}
	if (o->format == SNIFF_CPUPROFILE ||
	    (o->format == SNIFF_UNKNOWN && cpuprofile_sniff(head, (size_t)hn, head_eof))) {
		struct json_progress_arg jp = { &pr, t };
		struct cpuprofile_options co = { .progress = load_json_progress_cb, .progress_arg = &jp,
		                                 .timeline = o->timeline };
		int rc = cpuprofile_load(t, s, name, &co, load_msg_cb, m);
		progress_update(&pr, source_offset(s), source_size(s), t->stacks, true);
		source_close(s);
		return rc;
	}

	const char *buf = "";
	ssize_t n = source_next(s, &buf);
	if (n < 0) {
		load_messages_add(m, "tflame: %s: %s", name, source_error(s));
		source_close(s);
		return 1;
	}
	enum sniff_format fmt = o->format;
	if (fmt == SNIFF_UNKNOWN) {
		uint64_t bad = 0;
		fmt = sniff_detect(buf, (size_t)n, source_at_eof(s), &bad);
		if (fmt == SNIFF_UNKNOWN) {
			const char *kind = sniff_file_kind((const unsigned char *)buf, (size_t)n);
			if (kind) {
				load_messages_add(m, "tflame: %s: not a profile (%s)", name, kind);
			} else {
				char snip[96];
				line_snippet(buf, (size_t)n, bad, snip, sizeof snip);
				load_messages_add(m, "tflame: %s: not a profile: none of perf.data, perf script, folded, "
				                  "pprof, cpuprofile or speedscope (line %" PRIu64 ": %s)", name, bad, snip);
			}
			source_close(s);
			return 1;
		}
	}

	/* -f folded on perf script output: every line is malformed; say what
	 * the lines look like (issue 18 item 9) */
	uint64_t bad0 = 0, stacks0 = t->stacks;
	bool perf_like = o->format == SNIFF_FOLDED &&
	                 sniff_detect(buf, (size_t)n, source_at_eof(s), &bad0) == SNIFF_PERF;
	int rc = 0;
	if (load_parallel(t, s, fmt, o, &pr, m, name))
		report_shrank(m, name, s);
	else
		rc = load_text(t, s, fmt, buf, n, o, &pr, m, name);
	if (perf_like && t->stacks == stacks0)
		load_messages_add(m, "tflame: %s: its lines look like perf script output, not folded stacks: "
		                  "leave out -f folded, or give -f perf", name);
	source_close(s);
	return rc;
}

int load_files(struct tree *t, char *const *paths, size_t n,
               const struct load_options *o, struct load_messages *msgs)
{
	int rc = 0;
	for (size_t i = 0; i < n; i++)
		if (load_one(t, paths[i], o, msgs) != 0)
			rc = 1;
	return rc;
}
