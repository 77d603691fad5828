/* gentrace: write a Chrome trace (V8 cpu profiler events) with many timed
 * samples on several threads, reproducibly: the input for the time views'
 * figures at 10 million samples (issue 19), about 11 bytes a sample.
 *
 * Usage: gentrace [--samples N] [--threads K] [--nodes M] [--interval-us U]
 *                 [--stay P] [--seed S]
 *   N samples in all (default 10000000, K/M suffixes allowed), over K
 *   profiles (threads, default 8) sharing one call tree of M nodes
 *   (default 20000), sampled every U microseconds (default 1000, +-10%),
 *   P% of the samples on the stack of the one before (default 85).
 *
 * The shape, so that the heat map, the ranges and the chart have something
 * to show: each thread walks the call tree (a sample stays on the stack of
 * the one before 85% of the time, else moves to a caller, a callee or a
 * sibling, and one sample in a hundred jumps to one of 200 hot frames); thread 0 runs
 * all the time and collects garbage for 50 ms every 2 s; the others work
 * for 1-20 s and sleep 0.5-5 s in turn. Chunks of 4096 samples go out in
 * the order of their first sample's time, so that threads interleave as in
 * a real trace. The node list of each profile is in its first chunk.
 *
 * C11 and libc only: cc -std=c11 -O2 -o gentrace gentrace.c
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

static void die(const char *msg)
{
	fprintf(stderr, "gentrace: %s\n", msg);
	exit(1);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p)
		die("out of memory");
	return p;
}

static uint64_t count_arg(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s)
		die("a count is expected");
	if (*end == 'K' || *end == 'k')
		v *= 1000, end++;
	else if (*end == 'M' || *end == 'm')
		v *= 1000000, end++;
	if (*end)
		die("a count is a number with an optional K or M");
	return v;
}

/* ---- output: one buffer, flushed when full ---- */

static char obuf[1 << 20];
static size_t olen;

static void flush(void)
{
	if (olen && fwrite(obuf, 1, olen, stdout) != olen)
		die("write error");
	olen = 0;
}

static void put(const char *s)
{
	size_t n = strlen(s);
	if (olen + n > sizeof obuf)
		flush();
	memcpy(obuf + olen, s, n);
	olen += n;
}

static void put_u(uint64_t v)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (olen + (size_t)n > sizeof obuf)
		flush();
	while (n)
		obuf[olen++] = tmp[--n];
}

/* ---- the call tree ---- */

enum { ROOT = 0, PROGRAM = 1, GC = 2, MAIN = 3, FIXED = 4 };
#define MAX_DEPTH 30
#define NAMES 3000
#define HOT 200

struct node {
	uint32_t parent, depth, name;
	uint32_t kid0, nkids;       /* kids[kid0 .. kid0 + nkids) */
};

static struct node *nodes;
static uint32_t *kids, nnodes, hot[HOT];

static void make_tree(uint32_t n)
{
	nnodes = n < FIXED + 1 ? FIXED + 1 : n;
	nodes = xcalloc(nnodes, sizeof *nodes);
	nodes[PROGRAM] = (struct node){ ROOT, 1, 0, 0, 0 };
	nodes[GC] = (struct node){ ROOT, 1, 0, 0, 0 };
	nodes[MAIN] = (struct node){ ROOT, 1, 0, 0, 0 };
	for (uint32_t i = FIXED; i < nnodes; i++) {
		/* mostly below a recent node (call chains), sometimes anywhere */
		uint32_t lo = i > 200 + MAIN ? i - 200 : MAIN;
		uint32_t p = below(10) < 7 ? lo + below(i - lo) : MAIN + below(i - MAIN);
		while (nodes[p].depth >= MAX_DEPTH)
			p = nodes[p].parent;
		nodes[i] = (struct node){ p, nodes[p].depth + 1, below(NAMES), 0, 0 };
	}
	uint32_t *fill = xcalloc(nnodes, sizeof *fill);
	for (uint32_t i = 1; i < nnodes; i++)
		nodes[nodes[i].parent].nkids++;
	uint32_t at = 0;
	for (uint32_t i = 0; i < nnodes; i++) {
		nodes[i].kid0 = at;
		at += nodes[i].nkids;
	}
	kids = xcalloc(at, sizeof *kids);
	for (uint32_t i = 1; i < nnodes; i++) {
		uint32_t p = nodes[i].parent;
		kids[nodes[p].kid0 + fill[p]++] = i;
	}
	free(fill);
	for (int k = 0; k < HOT; k++)
		hot[k] = MAIN + below(nnodes - MAIN);
}

static void put_nodes(void)
{
	put("\"nodes\":[");
	for (uint32_t i = 0; i < nnodes; i++) {
		put(i ? ",{\"callFrame\":{\"functionName\":\"" : "{\"callFrame\":{\"functionName\":\"");
		if (i == ROOT)
			put("(root)");
		else if (i == PROGRAM)
			put("(program)");
		else if (i == GC)
			put("(garbage collector)");
		else if (i == MAIN)
			put("main");
		else {
			put("fn_");
			put_u(nodes[i].name);
		}
		put("\",\"url\":\"file:///app/mod");
		put_u(nodes[i].name % 97);
		put(".js\",\"scriptId\":");
		put_u(nodes[i].name % 97 + 1);
		put(",\"lineNumber\":");
		put_u(nodes[i].name % 500);
		put(",\"columnNumber\":");
		put_u(nodes[i].name % 80);
		put("},\"id\":");
		put_u(i + 1);
		if (i != ROOT) {
			put(",\"parent\":");
			put_u(nodes[i].parent + 1);
		}
		put("}");
	}
	put("]");
}

/* ---- the threads ---- */

struct thread {
	uint64_t left;          /* samples still to write */
	uint64_t t_us;          /* the time of its next sample, from its start */
	uint32_t cur;           /* the node sampled last */
	uint64_t busy_until;    /* the end of the working stretch (threads > 0) */
	bool started;
};

static uint64_t interval = 1000;    /* us between a thread's samples */
static uint32_t stay = 85;          /* % of samples on the stack before */

/* The next sample of thread k: its node and the delta before it. */
static uint32_t step(struct thread *th, int k, uint64_t *delta)
{
	uint64_t d = interval - interval / 10 + below((uint32_t)(interval / 5 + 1));
	if (k > 0 && th->t_us + d >= th->busy_until) {
		/* a sleep of 0.5-5 s, then 1-20 s of work */
		d += 500000 + below(4500001);
		th->busy_until = th->t_us + d + 1000000 + below(19000001);
	}
	*delta = d;
	th->t_us += d;
	if (k == 0 && th->t_us % 2000000 < 50000)
		return GC;
	/* r below stay: the same stack; then a caller, a callee, a sibling
	 * (5:5:4) up to 99; a hot frame */
	uint32_t c = th->cur, r = below(100), part = (99 - stay) * 5 / 14;
	if (r < stay) {
		/* the same stack */
	} else if (r < stay + part) {
		if (nodes[c].parent > ROOT && nodes[c].parent != MAIN)
			c = nodes[c].parent;
	} else if (r < stay + 2 * part) {
		if (nodes[c].nkids)
			c = kids[nodes[c].kid0 + below(nodes[c].nkids)];
	} else if (r < 99) {
		uint32_t p = nodes[c].parent;
		if (nodes[p].nkids)
			c = kids[nodes[p].kid0 + below(nodes[p].nkids)];
	} else {
		c = hot[below(HOT)];
	}
	if (c == ROOT || c == GC)
		c = MAIN;
	th->cur = c;
	return c;
}

#define CHUNK 4096
#define USAGE "usage: gentrace [--samples N] [--threads K] [--nodes M] [--interval-us U] [--stay P] [--seed S]"
#define START_US 1000000000ull

int main(int argc, char **argv)
{
	uint64_t samples = 10000000, seed = 1;
	uint32_t nthreads = 8, nnode = 20000;
	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			die(USAGE);
		if (strcmp(argv[i], "--samples") == 0)
			samples = count_arg(argv[++i]);
		else if (strcmp(argv[i], "--threads") == 0)
			nthreads = (uint32_t)count_arg(argv[++i]);
		else if (strcmp(argv[i], "--nodes") == 0)
			nnode = (uint32_t)count_arg(argv[++i]);
		else if (strcmp(argv[i], "--seed") == 0)
			seed = count_arg(argv[++i]);
		else if (strcmp(argv[i], "--interval-us") == 0)
			interval = count_arg(argv[++i]);
		else if (strcmp(argv[i], "--stay") == 0)
			stay = (uint32_t)count_arg(argv[++i]);
		else
			die(USAGE);
	}
	if (nthreads == 0 || nthreads > 1000)
		die("--threads is 1 to 1000");
	if (interval == 0 || interval > 1000000000)
		die("--interval-us is 1 to 10^9");
	if (stay > 98)
		die("--stay is 0 to 98");
	rng_seed(seed);
	make_tree(nnode);
	struct thread *th = xcalloc(nthreads, sizeof *th);
	for (uint32_t k = 0; k < nthreads; k++) {
		th[k].left = samples / nthreads + (k < samples % nthreads);
		th[k].cur = MAIN;
		th[k].busy_until = 1000000 + below(19000001);
	}
	uint32_t *ids = xcalloc(CHUNK, sizeof *ids);
	uint64_t *deltas = xcalloc(CHUNK, sizeof *deltas);
	put("{\"traceEvents\":[");
	for (uint32_t k = 0; k < nthreads; k++) {
		put(k ? ",{\"pid\":1000,\"tid\":" : "{\"pid\":1000,\"tid\":");
		put_u(1000 + k);
		put(",\"ts\":");
		put_u(START_US);
		put(",\"ph\":\"P\",\"cat\":\"disabled-by-default-v8.cpu_profiler\",\"name\":\"Profile\",\"id\":\"0x");
		put_u(k + 1);
		put("\",\"args\":{\"data\":{\"startTime\":");
		put_u(START_US);
		put("}}}");
	}
	for (;;) {
		/* the thread whose next chunk starts first */
		uint32_t k = nthreads;
		for (uint32_t j = 0; j < nthreads; j++)
			if (th[j].left && (k == nthreads || th[j].t_us < th[k].t_us))
				k = j;
		if (k == nthreads)
			break;
		uint32_t n = th[k].left < CHUNK ? (uint32_t)th[k].left : CHUNK;
		for (uint32_t i = 0; i < n; i++)
			ids[i] = step(&th[k], (int)k, &deltas[i]) + 1;
		th[k].left -= n;
		put(",{\"pid\":1000,\"tid\":");
		put_u(1000 + k);
		put(",\"ts\":");
		put_u(START_US + th[k].t_us);
		put(",\"ph\":\"P\",\"cat\":\"disabled-by-default-v8.cpu_profiler\",\"name\":\"ProfileChunk\",\"id\":\"0x");
		put_u(k + 1);
		put("\",\"args\":{\"data\":{\"cpuProfile\":{");
		if (!th[k].started) {
			put_nodes();
			put(",");
			th[k].started = true;
		}
		put("\"samples\":[");
		for (uint32_t i = 0; i < n; i++) {
			if (i)
				put(",");
			put_u(ids[i]);
		}
		put("]},\"timeDeltas\":[");
		for (uint32_t i = 0; i < n; i++) {
			if (i)
				put(",");
			put_u(deltas[i]);
		}
		put("]}}}");
	}
	put("]}\n");
	flush();
	if (fflush(stdout) != 0)
		die("write error");
	free(ids);
	free(deltas);
	free(th);
	free(kids);
	free(nodes);
	return 0;
}
