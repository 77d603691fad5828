#include "config.h"
#include "load.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "folded.h"
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
static void progress_update(struct progress *p, const struct source *s, uint64_t stacks, bool final)
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
	uint64_t off = source_offset(s), size = source_size(s);
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

static int load_one(struct tree *t, const char *path, const struct load_options *o,
                    struct load_messages *m)
{
	char err[256];
	struct source *s = source_open(path, err, sizeof err);
	char name[256];
	text_sanitize(strcmp(path, "-") == 0 ? "<stdin>" : path, strlen(path), name, sizeof name);
	if (!s) {
		load_messages_add(m, "tflame: %s: %s", name, err);
		return 1;
	}
	struct progress pr = { .enabled = o->progress && isatty(STDERR_FILENO) };
	pr.start = pr.last = now();
	text_sanitize(name, strlen(name), pr.name, sizeof pr.name);

	const char *buf;
	ssize_t n = source_next(s, &buf);
	if (n < 0) {
		load_messages_add(m, "tflame: %s: %s", name, strerror(errno));
		source_close(s);
		return 1;
	}
	enum sniff_format fmt = o->format;
	if (fmt == SNIFF_UNKNOWN) {
		uint64_t bad = 0;
		fmt = sniff_detect(buf, (size_t)n, source_at_eof(s), &bad);
		if (fmt == SNIFF_UNKNOWN) {
			char snip[96];
			line_snippet(buf, (size_t)n, bad, snip, sizeof snip);
			load_messages_add(m, "tflame: %s: not a folded or perf script profile (line %" PRIu64 ": %s)",
			                  name, bad, snip);
			source_close(s);
			return 1;
		}
	}

	struct folded_reader *fr = NULL;
	struct perf_reader *pr_ = NULL;
	if (fmt == SNIFF_PERF)
		pr_ = perf_reader_new(t, &o->perf);
	else
		fr = folded_reader_new(t);
	int rc = 0;
	while (n > 0) {
		if (pr_)
			perf_reader_feed(pr_, buf, (size_t)n);
		else
			folded_reader_feed(fr, buf, (size_t)n);
		progress_update(&pr, s, t->stacks, false);
		n = source_next(s, &buf);
	}
	progress_update(&pr, s, t->stacks, true);
	if (n < 0) {
		load_messages_add(m, "tflame: %s: read error: %s", name, strerror(errno));
		rc = 1;
	}
	if (pr_) {
		perf_reader_finish(pr_);
		report_diag(m, name, perf_reader_diag(pr_));
		perf_reader_free(pr_);
	} else {
		report_diag(m, name, folded_reader_diag(fr));
		folded_reader_free(fr);
	}
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
