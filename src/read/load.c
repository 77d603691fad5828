#include "config.h"
#include "loadint.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdint.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
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

/* ---- a load watched from another thread ---------------------------------- */

/* A preview of a mapped file reads LIVE_WINDOWS stretches of lines spread
 * over it, LIVE_SHARE of the file in all but at most LIVE_SAMPLE_MAX: on
 * 1 GiB, 16 MiB, parsed in 0.05 to 0.2 s. */
#define LIVE_WINDOWS 64
#define LIVE_SHARE 64
#define LIVE_SAMPLE_MAX ((size_t)16 << 20)
/* A stream's preview is a copy of its tree while that takes at most
 * LIVE_COPY_MAX: the copy adds to the peak memory. */
#define LIVE_COPY_MAX ((size_t)64 << 20)

struct load_live {
	pthread_mutex_t mu;
	/* What a preview reads, while load_one reads a folded or perf
	 * script input (under mu): a mapped file, or the tree a stream is
	 * read into (the loader holds mu while it adds to it). */
	const char *map;
	size_t maplen;
	const struct tree *t;
	enum sniff_format fmt;
	struct perf_options perf;   /* for a sample: the first event kept */
	char *filter;               /* perf.event_filter's, owned */
	bool sampled;               /* the sample was made: no other */
	bool sampling;              /* a thread reads the mapping (not under
	                               mu, which the loader's progress takes):
	                               it stays mapped until that ends */
	pthread_cond_t cv;          /* sampling ended */
	bool quiet;                 /* the browser has the terminal: no
	                               progress on stderr */
	uint64_t done, size;        /* bytes read so far, of size (0: unknown) */
};

struct load_live *load_live_new(void)
{
	struct load_live *lv = xcalloc(1, sizeof *lv);
	pthread_mutex_init(&lv->mu, NULL);
	pthread_cond_init(&lv->cv, NULL);
	return lv;
}

void load_live_free(struct load_live *lv)
{
	if (!lv)
		return;
	pthread_mutex_destroy(&lv->mu);
	pthread_cond_destroy(&lv->cv);
	free(lv->filter);
	free(lv);
}

static void human(double bytes, char *buf, size_t n);

/* What previews read from now on: s's mapping, or t as s is read into it. */
static void live_begin(struct load_live *lv, struct source *s, const struct tree *t, enum sniff_format fmt,
                       const struct perf_options *po)
{
	if (!lv || (fmt != SNIFF_FOLDED && fmt != SNIFF_PERF) || t->chart)
		return;
	const char *d;
	size_t len;
	char *filter = NULL;
	bool mapped = source_mapping(s, &d, &len);
	struct perf_options later = *po;
	if (mapped && fmt == SNIFF_PERF && !later.event_filter) {
		/* pieces of the file must keep the event a whole pass keeps */
		filter = load_first_event(d, len, po);
		if (!filter)
			mapped = false;
		later.event_filter = filter;
	}
	later.mid_stream = true;
	pthread_mutex_lock(&lv->mu);
	lv->done = 0;
	lv->size = source_size(s);
	lv->fmt = fmt;
	lv->perf = later;
	free(lv->filter);
	lv->filter = filter;
	if (mapped) {
		lv->map = d;
		lv->maplen = len;
	} else {
		lv->t = t;
	}
	pthread_mutex_unlock(&lv->mu);
	/* For tests: a mapped file waits for its preview, then until the
	 * file TFLAME_LOAD_HOLD names exists (60 s at most), so that a test
	 * sees the preview whatever the machine's speed. */
	const char *hold = getenv("TFLAME_LOAD_HOLD");
	for (int k = 0; mapped && hold && *hold && k < 6000; k++) {
		pthread_mutex_lock(&lv->mu);
		bool taken = lv->sampled && !lv->sampling;
		pthread_mutex_unlock(&lv->mu);
		if (taken && access(hold, F_OK) == 0)
			break;
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
}

/* The input is read: nothing more to preview (and its mapping goes). */
static void live_end(struct load_live *lv)
{
	if (!lv)
		return;
	pthread_mutex_lock(&lv->mu);
	lv->map = NULL;
	lv->t = NULL;
	while (lv->sampling)
		pthread_cond_wait(&lv->cv, &lv->mu);
	pthread_mutex_unlock(&lv->mu);
}

/* A sample of the mapped file d[0..len) of format fmt: LIVE_WINDOWS
 * stretches of whole lines (records), one at the start of each
 * LIVE_WINDOWS-th of it, in file order (a sorted file gives a sorted
 * sample). */
static struct tree *live_sample(const char *d, size_t len, enum sniff_format fmt, const struct perf_options *po,
                                char *what, size_t size)
{
	size_t part = len / LIVE_WINDOWS;
	size_t want = len / LIVE_SHARE < LIVE_SAMPLE_MAX ? len / LIVE_SHARE : LIVE_SAMPLE_MAX;
	size_t per = want / LIVE_WINDOWS > 4096 ? want / LIVE_WINDOWS : 4096;
	bool records = fmt == SNIFF_PERF;
	struct tree *pt = xmalloc(sizeof *pt);
	tree_init(pt);
	struct load_reader r = load_reader_new(fmt, pt, po, NULL, NULL);
	uint64_t taken = 0, scanned = 0;
	for (size_t i = 0; i < LIVE_WINDOWS; i++) {
		size_t from = part * i, hi = i + 1 < LIVE_WINDOWS ? part * (i + 1) : len;
		size_t a = i ? load_cut_in(d, from, hi, records, &scanned) : 0;
		if (i && a == 0)
			continue;       /* no line starts in this part */
		size_t b = a + per < hi ? load_cut_in(d, a + per, hi, records, &scanned) : 0;
		if (b == 0)
			b = hi;         /* to the end of the part */
		if (b > a) {
			load_reader_feed(&r, d + a, b - a);
			taken += b - a;
		}
	}
	load_reader_finish(&r);
	load_reader_free(&r);
	snprintf(what, size, "a %.*f%% sample", taken * 1000 < len ? 1 : 0,
	         len ? 100.0 * (double)taken / (double)len : 0.0);
	return pt;
}

struct tree *load_live_preview(void *arg, char *what, size_t size)
{
	struct load_live *lv = arg;
	struct tree *pt = NULL;
	what[0] = '\0';
	pthread_mutex_lock(&lv->mu);
	if (lv->map && !lv->sampled) {
		lv->sampled = lv->sampling = true;
		const char *d = lv->map;
		size_t len = lv->maplen;
		pthread_mutex_unlock(&lv->mu);
		pt = live_sample(d, len, lv->fmt, &lv->perf, what, size);
		pthread_mutex_lock(&lv->mu);
		lv->sampling = false;
		pthread_cond_broadcast(&lv->cv);
	} else if (lv->t && lv->t->stacks && tree_bytes(lv->t) <= LIVE_COPY_MAX) {
		pt = xmalloc(sizeof *pt);
		tree_init(pt);
		tree_merge(pt, lv->t);
		char b[32];
		human((double)lv->done, b, sizeof b);
		snprintf(what, size, "the first %s", b);
	}
	if (pt && !lv->quiet) {
		lv->quiet = true;
		/* the progress line goes before the browser comes */
		if (isatty(STDERR_FILENO))
			fputs("\r\033[K", stderr);
	}
	pthread_mutex_unlock(&lv->mu);
	return pt;
}

void load_live_status(void *arg, char *buf, size_t size)
{
	struct load_live *lv = arg;
	pthread_mutex_lock(&lv->mu);
	uint64_t done = lv->done, total = lv->size;
	pthread_mutex_unlock(&lv->mu);
	if (total) {
		snprintf(buf, size, "loading %.0f%%", done < total ? 100.0 * (double)done / (double)total : 100.0);
	} else {
		char b[32];
		human((double)done, b, sizeof b);
		snprintf(buf, size, "loading, %s read", b);
	}
}

/* ---- progress ----------------------------------------------------------- */

double load_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

bool load_memory_limited(void)
{
	struct rlimit as, data;
	return (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) ||
	       (getrlimit(RLIMIT_DATA, &data) == 0 && data.rlim_cur != RLIM_INFINITY);
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
void load_progress_update(struct load_progress *p, uint64_t off, uint64_t size, uint64_t stacks, bool final)
{
	if (p->live) {
		pthread_mutex_lock(&p->live->mu);
		p->live->done = off;
		p->live->size = size;
		if (p->live->quiet)
			p->enabled = false;     /* the browser has the terminal */
		pthread_mutex_unlock(&p->live->mu);
	}
	if (!p->enabled)
		return;
	double t = load_now();
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

void load_report_diag(struct load_messages *m, const char *name, const struct reader_diag *d,
                      const struct load_options *o)
{
	if (o && o->perfdata_info && d->event[0]) {
		struct perfdata_info *pi = o->perfdata_info;
		memset(pi, 0, sizeof *pi);
		/* records without a period weigh 1: the weights count samples */
		if (!d->unweighted)
			snprintf(pi->event, sizeof pi->event, "%s", d->event);
		pi->samples = d->stacks;
	}
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

struct load_reader load_reader_new(enum sniff_format fmt, struct tree *t, const struct perf_options *po,
                                 struct timeline *tl, struct dsomap *dsos)
{
	struct load_reader r = { 0 };
	if (fmt == SNIFF_PERF) {
		r.p = perf_reader_new(t, po);
		perf_reader_set_timeline(r.p, tl);
		perf_reader_set_dsos(r.p, dsos);
	} else {
		r.f = folded_reader_new(t);
	}
	return r;
}

void load_reader_feed(struct load_reader *r, const char *buf, size_t len)
{
	if (r->p)
		perf_reader_feed(r->p, buf, len);
	else
		folded_reader_feed(r->f, buf, len);
}

/* Flushes a pending record (perf) and returns the diagnostics. */
const struct reader_diag *load_reader_finish(struct load_reader *r)
{
	if (r->p) {
		perf_reader_finish(r->p);
		return perf_reader_diag(r->p);
	}
	return folded_reader_diag(r->f);
}

void load_reader_free(struct load_reader *r)
{
	perf_reader_free(r->p);
	folded_reader_free(r->f);
}


static void load_msg_cb(void *arg, const char *text)
{
	load_messages_add(arg, "%s", text);
}

static void load_progress_cb(void *arg, uint64_t done, uint64_t size, uint64_t stacks)
{
	load_progress_update(arg, done, size, stacks, false);
}

/* The text of a stream already opened, in format fmt (not UNKNOWN): the
 * serial reading loop. buf, n: the first block, already read. */
/* The JSON readers' progress, with the stacks of the tree being built. */
struct json_progress_arg {
	struct load_progress *pr;
	const struct tree *t;
};

static void load_json_progress_cb(void *arg, uint64_t done, uint64_t size)
{
	const struct json_progress_arg *a = arg;
	load_progress_update(a->pr, done, size, a->t->stacks, false);
}

static int load_text(struct tree *t, struct source *s, enum sniff_format fmt, const char *buf, ssize_t n,
                     const struct load_options *o, struct load_progress *pr, struct load_messages *m,
                     const char *name)
{
	struct load_reader r = load_reader_new(fmt, t, &o->perf, o->timeline, o->dsos);
	if (r.f && o->before)
		folded_reader_set_before(r.f, o->before);
	int rc = 0;
	while (n > 0) {
		/* A preview may copy t between blocks, not while one goes in. */
		if (o->live)
			pthread_mutex_lock(&o->live->mu);
		load_reader_feed(&r, buf, (size_t)n);
		if (o->live)
			pthread_mutex_unlock(&o->live->mu);
		load_progress_update(pr, source_offset(s), source_size(s), t->stacks, false);
		n = source_next(s, &buf);
	}
	load_progress_update(pr, source_offset(s), source_size(s), t->stacks, true);
	if (n < 0) {
		load_messages_add(m, "tflame: %s: %s", name, source_error(s));
		rc = 1;
	}
	load_report_diag(m, name, load_reader_finish(&r), o);
	load_reader_free(&r);
	report_shrank(m, name, s);
	return rc;
}

/* What the native reader cannot do: `perf script -F+pid -i PATH`, read as
 * perf script text. */
static int load_via_perf_script(struct tree *t, const char *path, const char *name,
                                const struct load_options *o, struct load_progress *pr, struct load_messages *m)
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

/* Bytes of input a node takes at least, as far as the reservation below
 * goes: genfolded's sorted 1 GiB file has a node per 61 bytes, the
 * real-shaped one per 360, a perf script record's frame lines are 20
 * bytes and more each. */
#define RESERVE_FOLDED_BYTES 16
#define RESERVE_PERF_BYTES 64

/* Room in t's node array for what a mapped text file of this size may
 * add, reserved before reading it, so that the array is not moved as it
 * grows: on a machine whose every page moved costs a fault on its next
 * use (a Linux 6.18 guest: the finalize of a 1 GiB sorted file re-read
 * the moved nodes in 1.0 s, 0.1 s unmoved) that saved 0.9 s of 3.7. The
 * pages beyond what is used are never touched, and the slack is given
 * back at tree_finalize. At most half the machine's memory, and none
 * under an address-space or data limit (ulimit -v, -d), where a
 * reservation would count whole. (t's array may move here: the preview
 * of a mapped file samples the mapping, never t.) */
static void reserve_for(struct tree *t, struct source *s, enum sniff_format fmt)
{
	const char *d;
	size_t len;
	if (!source_mapping(s, &d, &len) || load_memory_limited())
		return;
	size_t nodes = len / (fmt == SNIFF_PERF ? RESERVE_PERF_BYTES : RESERVE_FOLDED_BYTES);
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	if (pages > 0 && psz > 0) {
		size_t most = (size_t)pages / 2 / sizeof *t->nodes * (size_t)psz;
		if (nodes > most)
			nodes = most;
	}
	if (nodes > 4 * t->cap)     /* (small files: the usual growth) */
		(void)tree_try_reserve(t, nodes);
}

/* perf.data through the native reader; what it cannot read, through perf
 * script when the input is a file. */
static int load_perfdata(struct tree *t, struct source *s, const char *path, const char *name,
                         const struct load_options *o, struct load_progress *pr, struct load_messages *m)
{
	struct perfdata_options po = {
		.perf = &o->perf, .symfs = o->symfs,
		.progress = load_progress_cb, .progress_arg = pr, .timeline = o->timeline,
		.dsos = o->dsos
	};
	struct perfdata_info info;
	enum perfdata_status st = perfdata_load(t, s, name, &po, &info, load_msg_cb, m);
	load_progress_update(pr, source_offset(s), source_size(s), t->stacks, true);
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
                    struct load_messages *m, bool only)
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
	struct load_progress pr = { .enabled = o->progress && isatty(STDERR_FILENO), .live = o->live };
	pr.start = pr.last = load_now();
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
		/* TFLAME_PARTS (tests): in parts whatever the size;
		 * TFLAME_PPROF_AHEAD (tests, bench): 1 the samples of any
		 * stream counted as they arrive, 0 never */
		const char *pe = getenv("TFLAME_PARTS"), *ae = getenv("TFLAME_PPROF_AHEAD");
		struct pprof_options po = {
			.sample_type = o->sample_type, .label_root = o->label_root, .before = o->before,
			.order = o->order, .parts = pe && *pe >= '1' && *pe <= '9', .threads = o->threads,
			.ahead = !ae || !*ae ? 0 : *ae == '0' ? -1 : 1,
			.progress = load_progress_cb, .progress_arg = &pr
		};
		int rc = pprof_load(t, s, name, &po, o->pprof_info, load_msg_cb, m);
		load_progress_update(&pr, source_offset(s), source_size(s), t->stacks, true);
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
		load_progress_update(&pr, source_offset(s), source_size(s), t->stacks, true);
		source_close(s);
		return rc;
	}
	if (o->format == SNIFF_CPUPROFILE ||
	    (o->format == SNIFF_UNKNOWN && cpuprofile_sniff(head, (size_t)hn, head_eof))) {
		struct json_progress_arg jp = { &pr, t };
		struct cpuprofile_options co = { .progress = load_json_progress_cb, .progress_arg = &jp,
		                                 .timeline = o->timeline };
		int rc = cpuprofile_load(t, s, name, &co, load_msg_cb, m);
		load_progress_update(&pr, source_offset(s), source_size(s), t->stacks, true);
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
	live_begin(o->live, s, t, fmt, &o->perf);
	if (only && fmt == SNIFF_FOLDED && load_parts(t, s, o, &pr, m, name)) {
		report_shrank(m, name, s);
	} else {
		reserve_for(t, s, fmt);
		if (load_par(t, s, fmt, o, &pr, m, name))
			report_shrank(m, name, s);
		else
			rc = load_text(t, s, fmt, buf, n, o, &pr, m, name);
	}
	live_end(o->live);
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
		if (load_one(t, paths[i], o, msgs, n == 1) != 0)
			rc = 1;
	return rc;
}
