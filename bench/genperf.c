/* genperf: build a large `perf script` text from real recordings, reproducibly.
 *
 * Usage: genperf [--size N[K|M|G]] [--seed N] FILE.perf.txt...
 *
 * Reads the records (event line + callchain lines + blank line) of the given
 * `perf script` outputs and writes records drawn at random from all of them
 * (each recording equally likely, then a record of it) until the target size
 * (default 64M; a bare number is MiB) is reached. So that the result is not
 * a few records repeated, each record is varied:
 *   - it runs in one of a few process instances per recording: a pid of its
 *     own (instances restart with a new pid now and then), tids mapped along
 *     with it, and some instances renamed ("comm-2"): more roots and threads;
 *   - timestamps advance steadily across the whole file; periods vary by
 *     +-25%; the cpu field (when the recording has one) is redrawn;
 *   - one record in ten loses its 1-2 leaf frames (a sample taken in the
 *     caller), so new stacks ending at inner frames appear.
 * Frame lines are otherwise copied verbatim, with their addresses, offsets and
 * DSOs, as are the event names. Event lines that do not look like
 * `COMM PID[/TID] [CPU] TIME: [PERIOD] EVENT...` are copied as they are.
 * Same inputs (in the same order), size and seed => same bytes.
 *
 * C11 and libc only: cc -std=c11 -O2 -o genperf genperf.c
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

static void die(const char *a, const char *b)
{
	fprintf(stderr, "genperf: %s%s%s\n", a, b ? ": " : "", b ? b : "");
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die("out of memory", NULL);
	return p;
}

/* ---- input ----------------------------------------------------------------- */

struct rec {
	const char *ev;         /* event line (no newline) */
	uint32_t evlen;
	uint32_t comm_len;      /* parsed: ev[0..comm_len) is COMM */
	int parsed;             /* fields below are valid */
	int has_tid, has_cpu, has_period;
	uint32_t pid, tid;
	const char *rest;       /* event name and the rest of the line */
	uint32_t restlen;
	uint64_t period;
	const char *frames;     /* frame lines, each ending in '\n' */
	uint32_t frameslen, nframes;
};

#define INSTANCES 4

struct source {
	struct rec *r;
	size_t n, cap;
	uint32_t base_pid;              /* smallest pid seen */
	uint32_t pid[INSTANCES];        /* current pid of each instance */
	int renamed[INSTANCES];
};

static int isdig(char c)
{
	return c >= '0' && c <= '9';
}

static uint64_t num(const char **p, const char *e)
{
	uint64_t v = 0;
	while (*p < e && isdig(**p))
		v = v * 10 + (uint64_t)(*(*p)++ - '0');
	return v;
}

/* COMM PID[/TID] [CPU] SECS.USECS: [PERIOD] REST, with COMM ending before
 * the first all-digit (or digits/digits) word followed by a space, as
 * inferno's collapse-perf reads it. */
static void parse_event(struct rec *r)
{
	const char *s = r->ev, *e = s + r->evlen;
	size_t ws = 0;
	int digits = 0, last_space = 0;
	const char *slash = NULL;
	for (const char *p = s; p < e; p++) {
		char c = *p;
		if (c == ' ') {
			if (digits && !last_space && ws > 0)
				break;
			ws = (size_t)(p - s) + 1;
			digits = 1;
			slash = NULL;
		} else if (c == '/') {
			if (digits)
				slash = p;
		} else if (!isdig(c)) {
			digits = 0;
			slash = NULL;
		}
		last_space = c == ' ';
		if (p + 1 == e)
			return; /* no PID word */
	}
	if (ws == 0)
		return;
	size_t cl = ws - 1;
	while (cl > 0 && s[cl - 1] == ' ')
		cl--;
	if (cl == 0)
		return;
	r->comm_len = (uint32_t)cl;
	const char *p = s + ws;
	r->pid = (uint32_t)num(&p, e);
	if (slash) {
		p++;
		r->tid = (uint32_t)num(&p, e);
		r->has_tid = 1;
	} else {
		r->tid = r->pid;
	}
	while (p < e && *p == ' ')
		p++;
	if (p < e && *p == '[') {
		while (p < e && *p != ']')
			p++;
		if (p == e)
			return;
		p++;
		r->has_cpu = 1;
		while (p < e && *p == ' ')
			p++;
	}
	/* timestamp */
	const char *t = p;
	num(&p, e);
	if (p == t || p >= e || *p != '.')
		return;
	p++;
	num(&p, e);
	if (p >= e || *p != ':')
		return;
	p++;
	while (p < e && *p == ' ')
		p++;
	/* period, when a number is followed by a space */
	const char *q = p;
	uint64_t v = num(&q, e);
	if (q > p && q < e && *q == ' ') {
		r->period = v;
		r->has_period = 1;
		p = q;
		while (p < e && *p == ' ')
			p++;
	}
	r->rest = p;
	r->restlen = (uint32_t)(e - p);
	r->parsed = 1;
}

static void load(struct source *src, const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		die(path, strerror(errno));
	size_t cap = 1 << 20, len = 0;
	char *buf = xrealloc(NULL, cap);
	size_t n;
	while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 2)
			buf = xrealloc(buf, cap *= 2);
	}
	if (ferror(f))
		die(path, strerror(errno));
	fclose(f);
	if (len && buf[len - 1] != '\n')
		buf[len++] = '\n';
	buf[len] = 0;

	struct rec *cur = NULL;
	for (char *p = buf, *end = buf + len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = (size_t)(nl - p);
		size_t tl = ll;
		while (tl > 0 && (p[tl - 1] == ' ' || p[tl - 1] == '\t' || p[tl - 1] == '\r'))
			tl--;
		if (p[0] == '#') {
			/* header comment */
		} else if (tl == 0) {
			cur = NULL;
		} else if (!cur) {
			if (src->n == src->cap) {
				src->cap = src->cap ? src->cap * 2 : 1024;
				src->r = xrealloc(src->r, sizeof *src->r * src->cap);
			}
			cur = &src->r[src->n++];
			memset(cur, 0, sizeof *cur);
			cur->ev = p;
			cur->evlen = (uint32_t)ll;
			cur->frames = nl + 1;
			parse_event(cur);
		} else {
			cur->frameslen = (uint32_t)(nl + 1 - cur->frames);
			cur->nframes++;
		}
		p = nl + 1;
	}
	/* buf stays allocated: records point into it */
	if (src->n == 0)
		die(path, "no records");
	src->base_pid = UINT32_MAX;
	for (size_t i = 0; i < src->n; i++)
		if (src->r[i].parsed && src->r[i].pid < src->base_pid)
			src->base_pid = src->r[i].pid;
	for (int i = 0; i < INSTANCES; i++) {
		src->pid[i] = 1000 + below(4000000);
		src->renamed[i] = i >= 2;
	}
}

/* ---- output ------------------------------------------------------------------ */

static char obuf[1 << 22];
static size_t olen;
static uint64_t out_bytes, target;

static void oflush(void)
{
	if (olen && fwrite(obuf, 1, olen, stdout) != olen)
		die("write", strerror(errno));
	olen = 0;
}

static void owrite(const char *p, size_t n)
{
	while (n) {
		if (olen == sizeof obuf)
			oflush();
		size_t k = sizeof obuf - olen < n ? sizeof obuf - olen : n;
		memcpy(obuf + olen, p, k);
		olen += k;
		p += k;
		n -= k;
	}
}

static uint64_t parse_size(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	uint64_t mul = 1 << 20;
	if (*end == 'K' || *end == 'k')
		mul = 1 << 10;
	else if (*end == 'G' || *end == 'g')
		mul = 1 << 30;
	else if (*end == 'B' || *end == 'b')
		mul = 1;
	if (end == s || v <= 0)
		die("bad --size", s);
	return (uint64_t)(v * mul);
}

int main(int argc, char **argv)
{
	uint64_t seed = 1;
	const char **files = NULL;
	int nfiles = 0;
	target = 64u << 20;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--size") && i + 1 < argc)
			target = parse_size(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (argv[i][0] == '-' && argv[i][1]) {
			fputs("usage: genperf [--size N[K|M|G]] [--seed N] FILE.perf.txt...\n", stderr);
			return 2;
		} else {
			files = xrealloc(files, sizeof *files * (nfiles + 1));
			files[nfiles++] = argv[i];
		}
	}
	if (!nfiles)
		die("no input recordings given", NULL);
	rng_seed(seed);
	struct source *src = calloc((size_t)nfiles, sizeof *src);
	if (!src)
		die("out of memory", NULL);
	for (int i = 0; i < nfiles; i++)
		load(&src[i], files[i]);

	uint64_t usec = 1000000ull * (100 + below(100000)); /* the clock, in µs */
	uint64_t records = 0;
	char ev[4096];
	for (;;) {
		struct source *s = &src[below((uint32_t)nfiles)];
		const struct rec *r = &s->r[below((uint32_t)s->n)];
		int inst = (int)below(INSTANCES);
		if (below(50000) == 0) /* the instance restarts */
			s->pid[inst] = 1000 + below(4000000);
		usec += 1 + below(500);
		int n;
		if (r->parsed) {
			uint32_t pid = s->pid[inst];
			uint32_t tid = pid + (r->tid - r->pid) % 100000u;
			char comm[64];
			int cl = r->comm_len < 48 ? (int)r->comm_len : 48;
			if (s->renamed[inst])
				snprintf(comm, sizeof comm, "%.*s-%d", cl < 12 ? cl : 12, r->ev, inst);
			else
				snprintf(comm, sizeof comm, "%.*s", cl, r->ev);
			n = snprintf(ev, sizeof ev, "%s ", comm);
			if (r->has_tid)
				n += snprintf(ev + n, sizeof ev - n, "%5u/%-5u ", pid, tid);
			else
				n += snprintf(ev + n, sizeof ev - n, "%5u ", pid);
			if (r->has_cpu)
				n += snprintf(ev + n, sizeof ev - n, "[%03u] ", below(8));
			n += snprintf(ev + n, sizeof ev - n, "%5llu.%06llu: ",
				      (unsigned long long)(usec / 1000000), (unsigned long long)(usec % 1000000));
			if (r->has_period) {
				uint64_t per = (uint64_t)(r->period * (0.75 + 0.5 * unif()));
				n += snprintf(ev + n, sizeof ev - n, "%10llu ", (unsigned long long)(per ? per : 1));
			}
			if ((size_t)n + r->restlen + 2 > sizeof ev)
				n = snprintf(ev, sizeof ev, "%.*s", (int)(r->evlen < 4000 ? r->evlen : 4000), r->ev);
			else {
				memcpy(ev + n, r->rest, r->restlen);
				n += (int)r->restlen;
			}
		} else {
			n = snprintf(ev, sizeof ev, "%.*s", (int)(r->evlen < 4000 ? r->evlen : 4000), r->ev);
		}
		ev[n++] = '\n';
		/* sometimes drop 1-2 leaf frames */
		const char *fr = r->frames;
		size_t fl = r->frameslen;
		if (r->nframes >= 4 && below(10) == 0) {
			int drop = 1 + (int)below(2);
			while (drop-- > 0) {
				const char *nl = memchr(fr, '\n', fl);
				fl -= (size_t)(nl + 1 - fr);
				fr = nl + 1;
			}
		}
		uint64_t total = (uint64_t)n + fl + 1;
		if (out_bytes + total > target)
			break;
		owrite(ev, (size_t)n);
		owrite(fr, fl);
		owrite("\n", 1);
		out_bytes += total;
		records++;
	}
	oflush();
	if (fflush(stdout) != 0)
		die("write", strerror(errno));
	size_t nin = 0;
	for (int i = 0; i < nfiles; i++)
		nin += src[i].n;
	fprintf(stderr, "genperf: %llu bytes, %llu records from %zu records in %d recordings\n",
		(unsigned long long)out_bytes, (unsigned long long)records, nin, nfiles);
	return 0;
}
