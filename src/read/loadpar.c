/* The parallel piece loader of mapped folded and perf script files (see
 * loadint.h: load_par). */
#include "config.h"
#include "loadint.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "source.h"
#include "dsomap.h"
#include "timeline.h"
#include "xalloc.h"

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
	struct dsomap dsos;             /* its frames' objects (names of own) */
	struct load_reader r;
	struct reader_diag diag;        /* once parsed */
	void *mem;                      /* pool memory handed to `own` */
	size_t mem_bytes;
	atomic_size_t done;             /* bytes fed so far */
	double cpu;                     /* thread CPU seconds its parse took */
	enum par_state state;           /* under par.mu */
};

struct par {
	const struct source *src;       /* the mapped file */
	const char *d;                  /* its mapping */
	struct par_piece *pieces;
	int npieces;
	int next;                       /* the next piece to take (under mu) */
	enum sniff_format fmt;
	const struct perf_options *later;
	bool times;                     /* pieces keep their sample times */
	bool objs;                      /* pieces keep their frames' objects */
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
	/* The result's node array past what the merges have filled, faulted
	 * in by the other threads between their pieces (pre-fault), so that
	 * the main thread's merges do not stop for the kernel's zeroing of
	 * fresh pages: 700 MB of nodes on 1 GiB of folded text, as much CPU
	 * as the merges' own work. Under rmu: rbase is NULL while the main
	 * thread may move the array (parsing into it, or growing it). A
	 * thread faults a step it has claimed, [cfrom, cto) from rbase,
	 * without rmu (a step of fresh pages took milliseconds, and the
	 * mutex, not fair, let the main thread wait for many: 0.7 s of its
	 * 2.0 on the 1 GiB sorted file); the main thread waits for it (rcv)
	 * only before it writes there or moves the array. */
	pthread_mutex_t rmu;
	pthread_cond_t rcv;             /* a claimed step was faulted */
	char *rbase;
	size_t rfrom, rto;              /* bytes from rbase still to fault */
	size_t cfrom, cto;              /* the step being faulted (cto 0: none) */
	double parse_cpu, merge_cpu;    /* of the pieces merged so far */
	int merged;
	/* progress, drawn by the main thread only */
	struct load_progress *pr;
	size_t total;
	const struct tree *t;
};

static void par_progress(const struct par *pa, bool final)
{
	uint64_t sum = 0;
	for (int i = 0; i < pa->npieces; i++)
		sum += atomic_load(&pa->pieces[i].done);
	load_progress_update(pa->pr, sum, pa->total, pa->t->stacks, final);
}

/* A thread's buffer for par_run (p NULL until the first block). */
struct par_buf {
	char *p;
};

/* The next block of piece j from off, read into pb (source_pread_lines),
 * with *n its length; NULL when it cannot be: the caller reads the
 * mapping. */
static const char *par_read(struct par_piece *j, const struct par *pa, struct par_buf *pb, size_t off, size_t *n)
{
	if (!pb->p)
		pb->p = malloc(SOURCE_READ_BLOCK + SOURCE_READ_SLACK);
	*n = pb->p ? source_pread_lines(pa->src, pb->p, (uint64_t)(j->buf - pa->d) + off, j->len - off) : 0;
	return *n ? pb->p : NULL;
}

/* Feeds a piece to its reader a block at a time, read into pb's buffer
 * (see source_pread: the pages of the mapping, given back behind, cost a
 * mapping each; on a Linux 6.18 guest 0.5 s a GiB more than the copy),
 * else from the mapping, dropping its pages read; the main thread draws
 * the progress. False when another thread sees the loader stopped
 * (pa->stop) before the end. */
static bool par_run(struct par_piece *j, struct par *pa, bool main_thread, struct par_buf *pb)
{
	size_t off = 0;
	while (off < j->len) {
		if (!main_thread && atomic_load(&pa->stop))
			return false;
		size_t n = 0;
		const char *b = par_read(j, pa, pb, off, &n);
		if (!b) {
			b = j->buf + off;
			n = j->len - off;
			if (n > PAR_BLOCK) {
				const char *nl = memchr(j->buf + off + PAR_BLOCK, '\n', n - PAR_BLOCK);
				n = nl ? (size_t)(nl - (j->buf + off)) + 1 : n;
			}
		}
		load_reader_feed(&j->r, b, n);
		off += n;
		atomic_store(&j->done, off);
		/* drop the pages wholly inside what this piece has read (none
		 * mapped when they were all read into pb) */
		if (b != pb->p)
			(void)xgive_back(j->buf, j->buf + off);
		if (main_thread)
			par_progress(pa, false);
	}
	/* pages of the mapping found a piece's cut (load_cuts) and were
	 * mapped with their folio, up to megabytes each */
	(void)xgive_back(j->buf, j->buf + j->len);
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
	load_reader_free(&j->r);
	memset(&j->r, 0, sizeof j->r);
	if (j->mem && j->own.nodes != j->mem)
		free(j->mem);       /* not handed over yet */
	j->mem = NULL;
	tree_free(&j->own);
	timeline_free(&j->tl);
	dsomap_free(&j->dsos);
	atomic_store(&j->done, 0);
}

/* Parses piece i into its own tree. False when memory ran out, or the
 * loader stopped, first: the piece is then dropped. Only what is in *j
 * survives the jump out of xalloc_catch, so nothing here is kept in a
 * local variable between the setjmp and the end of the work. */
static bool par_build(struct par *pa, int i, bool main_thread, struct par_buf *pb)
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
	dsomap_init(&j->dsos);
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
	j->r = load_reader_new(pa->fmt, &j->own, pa->later, pa->times ? &j->tl : NULL,
	                       pa->objs ? &j->dsos : NULL);
	if (!par_run(j, pa, main_thread, pb)) {
		xalloc_catch(NULL);
		par_drop(j);
		return false;
	}
	j->diag = *load_reader_finish(&j->r);
	xalloc_catch(NULL);
	j->cpu = thread_cpu() - j->cpu;
	load_reader_free(&j->r);
	memset(&j->r, 0, sizeof j->r);
	return true;
}

/* Takes the next piece (under mu, which it releases while parsing) and
 * parses it into its own tree. False when that ran out of memory. */
static bool par_take(struct par *pa, bool main_thread, struct par_buf *pb)
{
	int i = pa->next++;
	pa->pieces[i].state = PIECE_RUNNING;
	pa->running++;
	pthread_mutex_unlock(&pa->mu);
	bool ok = par_build(pa, i, main_thread, pb);
	pthread_mutex_lock(&pa->mu);
	pa->running--;
	pa->pieces[i].state = ok ? PIECE_DONE : PIECE_REDO;
	pa->waiting += ok;
	pthread_cond_broadcast(&pa->cv);
	return ok;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23      /* Linux 5.14 */
#endif
#define PAR_FAULT_STEP ((size_t)256 << 10)  /* claimed and faulted at a time */

/* Faults in what the main thread has asked for (par_window), a step at a
 * time, each claimed under rmu and faulted without it. Faulting in changes
 * no byte: the pages are fresh, past every node written, and the main
 * thread writes none there before the step is done. Each page is written to
 * after MADV_POPULATE_WRITE too: in a Linux 6.18 guest (PVM) a populated
 * page still cost the host's fault at its first write (0.7 s a 512 MiB),
 * while one that another thread wrote to cost nothing (0.005 s); where
 * populating is the whole fault, the write finds the page there. */
static void par_prefault(struct par *pa)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t page = pg > 0 ? (size_t)pg : 4096;
	for (;;) {
		pthread_mutex_lock(&pa->rmu);
		if (!pa->rbase || atomic_load(&pa->stop)) {
			pthread_mutex_unlock(&pa->rmu);
			return;
		}
		uintptr_t a = ((uintptr_t)pa->rbase + pa->rfrom + page - 1) / page * page;
		uintptr_t b = ((uintptr_t)pa->rbase + pa->rto) / page * page;
		if (b > a + PAR_FAULT_STEP)
			b = a + PAR_FAULT_STEP;
		if (b <= a) {
			pthread_mutex_unlock(&pa->rmu);
			return;
		}
		pa->cfrom = a - (uintptr_t)pa->rbase;
		pa->rfrom = pa->cto = b - (uintptr_t)pa->rbase;
		pthread_mutex_unlock(&pa->rmu);
#ifdef HAVE_MADVISE
		(void)madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#endif
		for (uintptr_t q = a; q < b; q += page)
			*(volatile char *)q = 0;
		pthread_mutex_lock(&pa->rmu);
		pa->cfrom = pa->cto = 0;
		pthread_cond_broadcast(&pa->rcv);
		pthread_mutex_unlock(&pa->rmu);
	}
}

#define PAR_FAULT_AHEAD ((size_t)32 << 20)   /* faulted past a merge, at most */

/* The main thread's side: before merging a piece of `nodes` nodes into t,
 * makes room for them (no node moves during the merge) and asks the other
 * threads to fault in the room the next two pieces will take; with `open`
 * false, withdraws the array (the main thread parses into t). Only while
 * t has no child hash (sorted input), where nearly every node of a piece
 * is new: on shuffled input most are found, the merges' time goes to the
 * lookups, and the faulted room would stay unused for long, beyond the
 * peak memory allowed. */
static void par_window(struct par *pa, struct tree *t, size_t nodes, bool open)
{
	pthread_mutex_lock(&pa->rmu);
	bool keep = open && !tree_batches(t);
	size_t ahead = 2 * nodes;
	if (ahead > PAR_FAULT_AHEAD / sizeof *t->nodes)
		ahead = PAR_FAULT_AHEAD / sizeof *t->nodes;
	/* a step being faulted: done first when the array may move or the
	 * merge writes where it is */
	bool moves = !keep || t->n + nodes + ahead > t->cap || (char *)t->nodes != pa->rbase;
	while (pa->cto && (moves || pa->cfrom < (t->n + nodes) * sizeof *t->nodes))
		pthread_cond_wait(&pa->rcv, &pa->rmu);
	if (keep) {
		tree_reserve(t, nodes + ahead);
		size_t from = (t->n + nodes) * sizeof *t->nodes;
		size_t to = (t->n + nodes + ahead) * sizeof *t->nodes;
		if ((char *)t->nodes != pa->rbase || from > pa->rfrom)
			pa->rfrom = from;
		pa->rbase = (char *)t->nodes;
		pa->rto = to;
	} else {
		pa->rbase = NULL;
	}
	pthread_mutex_unlock(&pa->rmu);
}

static void *par_thread(void *arg)
{
	struct par *pa = arg;
	struct par_buf pb = { NULL };
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
		if (!par_take(pa, false, &pb))
			break;      /* out of memory: one thread fewer */
		pthread_mutex_unlock(&pa->mu);
		par_prefault(pa);
		pthread_mutex_lock(&pa->mu);
	}
	pthread_mutex_unlock(&pa->mu);
	free(pb.p);
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
	if (load_memory_limited()) {
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
char *load_first_event(const char *d, size_t len, const struct perf_options *po)
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

size_t load_cut_in(const char *d, size_t from, size_t hi, bool records, uint64_t *scanned)
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
		size_t c = load_cut_in(d, from, hi, records, scanned);
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
	/* Nodes that fit in t's array (reserved from the file's size) need
	 * no more room there. */
	size_t want = tree_bytes(t) + tree_bytes(own);
	if (t->n + own->n <= t->cap)
		want -= t->cap * sizeof *t->nodes;
	void *p = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return false;
	munmap(p, want);
	return true;
}

/* Parses a mapped file of format fmt on o->threads threads. False when that
 * does not apply (stream, small file, no piece boundaries, no perf event
 * found early): the caller then reads it the usual way. */
bool load_par(struct tree *t, struct source *s, enum sniff_format fmt,
                          const struct load_options *o, struct load_progress *pr,
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
		filter = load_first_event(d, len, &o->perf);
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

	struct par pa = { .src = s, .d = d, .npieces = k, .fmt = fmt, .later = &later, .pr = pr, .total = len,
	                  .t = t, .main_builds = true };
	struct par_buf pb = { NULL };
	pa.pieces = xcalloc((size_t)k, sizeof *pa.pieces);
	pa.times = o->timeline != NULL;
	pa.objs = o->dsos != NULL;
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
	pthread_mutex_init(&pa.rmu, NULL);
	pthread_cond_init(&pa.rcv, NULL);
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
				if (!par_take(&pa, true, &pb))
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
			par_window(&pa, t, 0, false);
			j->r = load_reader_new(fmt, t, i ? &later : &o->perf, o->timeline, o->dsos);
			par_run(j, &pa, true, &pb);
			j->diag = *load_reader_finish(&j->r);
			load_reader_free(&j->r);
		} else {
			double cpu = thread_cpu();
			tree_idx *map;
			par_window(&pa, t, tree_size(&j->own), true);
			tree_merge_map(t, &j->own, &map);
			if (o->timeline)
				timeline_append(o->timeline, &j->tl, timeline_leaf_map, map, 0);
			if (o->dsos)
				dsomap_merge(o->dsos, &t->names, &j->dsos, &j->own.names);
			dsomap_free(&j->dsos);
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
			 * its nodes are looked up in a big child hash (a node
			 * with millions of children: 1.1 to 2.7 times its
			 * parse; 1 GiB of shuffled genfolded output: 0.9),
			 * 0.3 to 0.4 on sorted or real-shaped input. With
			 * merges at r times the parse, two threads take about
			 * (1 + r) / 2 of one's time, and the pieces waiting
			 * add memory: from r = 1/2 on they do not pay (at 0.9
			 * the peak was 65 MB above one thread's, for a gain
			 * within the noise), so the rest is parsed here. The
			 * tree is the same either way.
			 *
			 * Not for sorted input (t without its child hash):
			 * there a merge copies nodes that are nearly all new,
			 * and writing them costs what writing them in one
			 * pass does, page faults included, which the parse
			 * into a reused piece array does not pay; where
			 * faults are dear r rose to 1.2 (a 1 GiB sorted file
			 * on a Linux 6.18 guest), yet two threads merging
			 * took 2.99-3.48 s where one took 3.65-3.82 and two
			 * that went alone 3.83-4.40. */
			if (pa.merged >= 2 && 2 * pa.merge_cpu > pa.parse_cpu && tree_batches(t) && !atomic_load(&pa.stop))
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
		all.unweighted += dg->unweighted;
		if (!all.event[0])
			memcpy(all.event, dg->event, sizeof all.event);
		lines_before += dg->lines;
	}
	xalloc_set_reclaim(NULL, NULL);
	for (int i = 0; i < pa.npool; i++)
		free(pa.pool[i]);
	for (int i = 0; i < nthr; i++)
		pthread_join(tid[i], NULL);
	load_progress_update(pr, len, len, t->stacks, true);
	load_report_diag(m, name, &all, o);
	free(pb.p);
	pthread_cond_destroy(&pa.cv);
	pthread_mutex_destroy(&pa.mu);
	pthread_mutex_destroy(&pa.rmu);
	pthread_cond_destroy(&pa.rcv);
	free(pa.pieces);
	free(cut);
	free(filter);
	return true;
}
