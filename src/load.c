#include "config.h"
#include "load.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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
#include <sys/wait.h>
#include "folded.h"
#include "perfdata.h"
#include "cpuprofile.h"
#include "speedscope.h"
#include "source.h"
#include "text.h"
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

static struct any_reader any_new(enum sniff_format fmt, struct tree *t, const struct perf_options *po)
{
	struct any_reader r = { 0 };
	if (fmt == SNIFF_PERF)
		r.p = perf_reader_new(t, po);
	else
		r.f = folded_reader_new(t);
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
 * the same tree as one pass.
 *
 * The threads take pieces in order; the main thread also merges each piece
 * as soon as it and those before it are done, and parses only when nothing
 * is ready to merge. Merging thus overlaps parsing instead of following it,
 * and few pieces wait in memory. */
#define PAR_MIN_BYTES ((size_t)16 << 20)   /* smaller files: one thread */
#define PAR_MAX_THREADS 16
#define PAR_PIECE ((size_t)16 << 20)       /* input per piece */
#define PAR_MAX_PIECES 4096
#define PAR_POOL 2
#define PAR_BACKLOG 2                      /* finished pieces a thread waits on */
#define PAR_BLOCK ((size_t)8 << 20)        /* fed at a time, then dropped */
#define PAR_SEARCH ((size_t)16 << 20)      /* how far to look for a blank line */
#define PAR_PRESCAN ((size_t)4 << 20)      /* where the first event must be */

struct par_piece {
	const char *buf;
	size_t len;
	struct tree own;                /* the piece's tree (pieces > 0) */
	struct any_reader r;
	atomic_size_t done;             /* bytes fed so far */
	bool finished;                  /* under par.mu */
};

struct par {
	struct par_piece *pieces;
	int npieces;
	atomic_int next;                /* the next piece to take */
	enum sniff_format fmt;
	const struct perf_options *later;
	pthread_mutex_t mu;
	pthread_cond_t cv;              /* a piece finished */
	/* Node arrays of merged pieces, for the next pieces (under mu): their
	 * pages are in memory already, where fresh ones cost a fault and the
	 * kernel's zeroing each (700 MB worth on 1 GiB of folded text). */
	void *pool[PAR_POOL];
	size_t pool_bytes[PAR_POOL];
	int npool;
	int waiting;                    /* pieces finished, not merged yet */
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

/* Feeds a piece to its reader a block at a time, dropping the pages read. */
static void par_run(struct par_piece *j, const struct par *pa)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t page = pg > 0 ? (size_t)pg : 4096, off = 0;
	while (off < j->len) {
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
		if (pa)
			par_progress(pa, false);
	}
}

/* Parses piece i (> 0) into its own tree and says it is finished. */
static void par_piece_run(struct par *pa, int i, bool main_thread)
{
	struct par_piece *j = &pa->pieces[i];
	void *mem = NULL;
	size_t bytes = 0;
	pthread_mutex_lock(&pa->mu);
	if (pa->npool) {
		pa->npool--;
		mem = pa->pool[pa->npool];
		bytes = pa->pool_bytes[pa->npool];
	}
	pthread_mutex_unlock(&pa->mu);
	tree_init_nodes(&j->own, mem, bytes);
	j->r = any_new(pa->fmt, &j->own, pa->later);
	par_run(j, main_thread ? pa : NULL);
	pthread_mutex_lock(&pa->mu);
	j->finished = true;
	pa->waiting++;
	pthread_cond_broadcast(&pa->cv);
	pthread_mutex_unlock(&pa->mu);
}

static void *par_thread(void *arg)
{
	struct par *pa = arg;
	for (;;) {
		/* When the merging falls behind (the main thread slowed by page
		 * faults or a disk read), do not pile up trees in memory. No
		 * deadlock: the piece the main thread waits for is finished or
		 * being parsed, never waiting to be taken. */
		pthread_mutex_lock(&pa->mu);
		while (pa->waiting >= PAR_BACKLOG)
			pthread_cond_wait(&pa->cv, &pa->mu);
		pthread_mutex_unlock(&pa->mu);
		int i = atomic_fetch_add(&pa->next, 1);
		if (i >= pa->npieces)
			return NULL;
		par_piece_run(pa, i, false);
	}
}

static bool blank_byte(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Offset just after the first whitespace-only line that starts after
 * `from` and before `limit`; 0 when there is none. */
static size_t record_start_after(const char *d, size_t len, size_t from, size_t limit)
{
	const char *nl = memchr(d + from, '\n', len - from);
	if (!nl)
		return 0;
	for (size_t i = (size_t)(nl - d) + 1; i < len && i < limit;) {
		nl = memchr(d + i, '\n', len - i);
		if (!nl)
			return 0;
		size_t e = (size_t)(nl - d), k = i;
		while (k < e && blank_byte(d[k]))
			k++;
		if (k == e)
			return e + 1;
		i = e + 1;
	}
	return 0;
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

/* Offset of the first line start after `from`; 0 when there is none. */
static size_t line_start_after(const char *d, size_t len, size_t from)
{
	const char *nl = memchr(d + from, '\n', len - from);
	return nl && (size_t)(nl - d) + 1 < len ? (size_t)(nl - d) + 1 : 0;
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
	int k = 1;
	cut[0] = 0;
	for (size_t i = 1; i < want; i++) {
		size_t from = len / want * i;
		if (from < cut[k - 1])
			from = cut[k - 1];
		size_t c = fmt == SNIFF_PERF ? record_start_after(d, len, from, from + PAR_SEARCH)
		                             : line_start_after(d, len, from);
		if (c > cut[k - 1] && c < len)
			cut[k++] = c;
	}
	cut[k] = len;
	if (k < 2) {
		free(cut);
		free(filter);
		return false;
	}

	struct par pa = { .npieces = k, .fmt = fmt, .later = &later, .pr = pr, .total = len, .t = t };
	pa.pieces = xcalloc((size_t)k, sizeof *pa.pieces);
	for (int i = 0; i < k; i++) {
		pa.pieces[i].buf = d + cut[i];
		pa.pieces[i].len = cut[i + 1] - cut[i];
		atomic_init(&pa.pieces[i].done, 0);
	}
	atomic_init(&pa.next, 1);
	pthread_mutex_init(&pa.mu, NULL);
	pthread_cond_init(&pa.cv, NULL);
	pthread_t tid[PAR_MAX_THREADS];
	int nthr = 0;
	for (int i = 1; i < n; i++)
		if (pthread_create(&tid[nthr], NULL, par_thread, &pa) == 0)
			nthr++;

	/* Piece 0 straight into the result, then merge or parse, in that
	 * order of preference; line numbers of later pieces are offset. */
	pa.pieces[0].r = any_new(fmt, t, &o->perf);
	par_run(&pa.pieces[0], &pa);
	struct reader_diag all = { 0 };
	uint64_t lines_before = 0;
	for (int i = 0; i < k; i++) {
		struct par_piece *j = &pa.pieces[i];
		if (i) {
			for (;;) {
				pthread_mutex_lock(&pa.mu);
				bool ready = j->finished;
				pthread_mutex_unlock(&pa.mu);
				if (ready)
					break;
				int mine = atomic_fetch_add(&pa.next, 1);
				if (mine < k) {
					par_piece_run(&pa, mine, true);
					continue;
				}
				/* Nothing left to take: wait, keeping the bar alive. */
				pthread_mutex_lock(&pa.mu);
				if (!j->finished) {
					struct timespec ts;
					clock_gettime(CLOCK_REALTIME, &ts);
					ts.tv_nsec += 100000000;
					if (ts.tv_nsec >= 1000000000) {
						ts.tv_sec++;
						ts.tv_nsec -= 1000000000;
					}
					pthread_cond_timedwait(&pa.cv, &pa.mu, &ts);
				}
				pthread_mutex_unlock(&pa.mu);
				par_progress(&pa, false);
			}
		}
		const struct reader_diag *dg = any_finish(&j->r);
		if (dg->bad && !all.bad) {
			all.first_bad = dg->first_bad + lines_before;
			memcpy(all.first_msg, dg->first_msg, sizeof all.first_msg);
		}
		all.bad += dg->bad;
		all.lines += dg->lines;
		all.stacks += dg->stacks;
		all.saturated += dg->saturated;
		lines_before += dg->lines;
		any_free(&j->r);
		if (i) {
			tree_merge(t, &j->own);
			size_t bytes;
			void *mem = tree_take_nodes(&j->own, &bytes);
			pthread_mutex_lock(&pa.mu);
			pa.waiting--;
			pthread_cond_broadcast(&pa.cv);
			if (pa.npool < PAR_POOL) {
				pa.pool[pa.npool] = mem;
				pa.pool_bytes[pa.npool++] = bytes;
				mem = NULL;
			}
			pthread_mutex_unlock(&pa.mu);
			free(mem);
			tree_free(&j->own);
		}
	}
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
	struct any_reader r = any_new(fmt, t, &o->perf);
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
		.progress = load_progress_cb, .progress_arg = pr
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

/* What a file that is no profile is, when its first bytes say so. */
static const char *file_kind(const unsigned char *b, size_t n)
{
	if (n >= 4 && memcmp(b, "\177ELF", 4) == 0)
		return "an ELF file: a program or library; record it with perf record";
	if (n >= 8 && memcmp(b, "\211PNG\r\n\032\n", 8) == 0)
		return "a PNG image";
	if (n >= 4 && memcmp(b, "%PDF", 4) == 0)
		return "a PDF document";
	if (n >= 4 && memcmp(b, "PK\003\004", 4) == 0)
		return "a zip archive";
	if (n >= 262 && memcmp(b + 257, "ustar", 5) == 0)
		return "a tar archive";
	if (n >= 5 && memcmp(b, "<?xml", 5) == 0)
		return "an XML document, an SVG perhaps";
	return NULL;
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
		                                 .progress_arg = &jp };
		int rc = speedscope_load(t, s, name, &so, load_msg_cb, m);
		progress_update(&pr, source_offset(s), source_size(s), t->stacks, true);
		source_close(s);
		return rc;
	}
	if (o->format == SNIFF_CPUPROFILE ||
	    (o->format == SNIFF_UNKNOWN && cpuprofile_sniff(head, (size_t)hn, head_eof))) {
		struct json_progress_arg jp = { &pr, t };
		struct cpuprofile_options co = { .progress = load_json_progress_cb, .progress_arg = &jp };
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
			const char *kind = file_kind((const unsigned char *)buf, (size_t)n);
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

	if (load_parallel(t, s, fmt, o, &pr, m, name)) {
		report_shrank(m, name, s);
		source_close(s);
		return 0;
	}
	int rc = load_text(t, s, fmt, buf, n, o, &pr, m, name);
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
