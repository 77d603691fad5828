/* genpprof: write a synthetic pprof Profile message (uncompressed protobuf,
 * the field numbers of profile.proto) to stdout, reproducibly.
 *
 * Usage: genpprof [--size N[K|M|G]] [--seed N] [--funcs N] [--unique]
 *
 *   --size   target size (default 256M; a bare number is MiB); the output
 *            ends within a sample of it
 *   --seed   PRNG seed (default 1)
 *   --funcs  functions (default 50000); locations are 4 per function, one
 *            in 8 with a second, inlined line
 *   --unique each stack (with its label) once, its counts summed, as Go
 *            writes them (a repeat sampled again adds to the first): the
 *            same walk, run until the unique samples reach the size
 *
 * Shape: as Go writes them: two sample types (samples/count,
 * cpu/nanoseconds), samples first (location ids packed, leaf first, values
 * packed, a "thread" label on one sample in 4), then one mapping, the
 * locations, the functions and the string table. Stacks are random walks
 * over a fixed call graph (each function has 4 callees chosen by a hash),
 * up to 64 frames deep; most extend a prefix of a recent stack, so that
 * callers recur as they do in real profiles. Without --unique, 7 samples in
 * 8 repeat a stack seen before (one sample per tick, as a writer that does
 * not aggregate would emit them).
 * Compress it (gzip) to try the stream path. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t hash(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

struct buf {
	unsigned char *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *v, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			perror("genpprof");
			exit(1);
		}
	}
	memcpy(b->p + b->n, v, n);
	b->n += n;
}

static void varint(struct buf *b, uint64_t v)
{
	unsigned char t[10];
	size_t n = 0;
	do {
		t[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			t[n] |= 0x80;
		n++;
	} while (v);
	put(b, t, n);
}

static void fint(struct buf *b, unsigned f, uint64_t v)
{
	varint(b, (uint64_t)f << 3);
	varint(b, v);
}

static void fmsg(struct buf *out, unsigned f, struct buf *m)
{
	varint(out, (uint64_t)f << 3 | 2);
	varint(out, m->n);
	put(out, m->p, m->n);
	m->n = 0;
}

static void flush(struct buf *b)
{
	if (fwrite(b->p, 1, b->n, stdout) != b->n) {
		perror("genpprof");
		exit(1);
	}
	b->n = 0;
}

/* One Sample message (locations leaf first, values n and n * 10 ms, the
 * "thread" label when label >= 0) into out. */
static void sample(struct buf *out, const uint32_t *stack, uint64_t depth, uint64_t n, int label)
{
	static struct buf m, p, l;
	for (uint64_t d = depth; d-- > 0;)                 /* leaf first */
		varint(&p, (uint64_t)stack[d] + 1);
	fmsg(&m, 1, &p);
	varint(&p, n);
	varint(&p, n * 10000000);
	fmsg(&m, 2, &p);
	if (label >= 0) {
		fint(&l, 1, 5);                 /* "thread" */
		fint(&l, 2, 7 + (uint64_t)label);
		fmsg(&m, 3, &l);
	}
	fmsg(out, 2, &m);
}

static size_t vlen(uint64_t v)
{
	size_t n = 1;
	while (v >>= 7)
		n++;
	return n;
}

/* The bytes sample() writes, given the bytes of its packed locations. */
static size_t sample_size(size_t locbytes, uint64_t n, int label)
{
	size_t vals = vlen(n) + vlen(n * 10000000);
	size_t msg = 1 + vlen(locbytes) + locbytes + 1 + vlen(vals) + vals + (label >= 0 ? 6 : 0);
	return 1 + vlen(msg) + msg;
}

/* --unique: the distinct (stack, label) pairs in order of first appearance,
 * found by an open-addressing hash. */
struct uniq {
	uint32_t *frames;           /* every entry's stack, root first */
	size_t nframes, capframes;
	struct uentry {
		size_t at;              /* its stack in frames */
		uint32_t depth, locbytes;
		int label;
		uint64_t n;
	} *e;
	size_t ne, cape;
	uint32_t *slots;            /* entry + 1, 0 when empty */
	size_t nslots;
	uint64_t bytes;             /* what the samples take, written */
};

static void *xgrow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	*cap = need * 2 + 1024;
	p = realloc(p, *cap * elem);
	if (!p) {
		perror("genpprof");
		exit(1);
	}
	return p;
}

static uint64_t stack_hash(const uint32_t *stack, uint64_t depth, int label)
{
	uint64_t h = hash((uint64_t)label + 2);
	for (uint64_t d = 0; d < depth; d++)
		h = hash(h ^ stack[d]);
	return h;
}

static void uniq_place(struct uniq *u, size_t i)
{
	struct uentry *e = &u->e[i];
	size_t j = stack_hash(u->frames + e->at, e->depth, e->label) & (u->nslots - 1);
	while (u->slots[j])
		j = (j + 1) & (u->nslots - 1);
	u->slots[j] = (uint32_t)i + 1;
}

static void uniq_add(struct uniq *u, const uint64_t *stack64, uint64_t depth, uint64_t n, int label)
{
	uint32_t stack[64];
	for (uint64_t d = 0; d < depth; d++)
		stack[d] = (uint32_t)stack64[d];
	if (u->ne * 2 >= u->nslots) {
		free(u->slots);
		u->nslots = u->nslots ? u->nslots * 2 : 1024;
		u->slots = calloc(u->nslots, sizeof *u->slots);
		if (!u->slots) {
			perror("genpprof");
			exit(1);
		}
		for (size_t i = 0; i < u->ne; i++)
			uniq_place(u, i);
	}
	size_t j = stack_hash(stack, depth, label) & (u->nslots - 1);
	for (; u->slots[j]; j = (j + 1) & (u->nslots - 1)) {
		struct uentry *e = &u->e[u->slots[j] - 1];
		if (e->depth == depth && e->label == label &&
		    !memcmp(u->frames + e->at, stack, depth * sizeof *stack)) {
			u->bytes -= sample_size(e->locbytes, e->n, label);
			e->n += n;
			u->bytes += sample_size(e->locbytes, e->n, label);
			return;
		}
	}
	u->frames = xgrow(u->frames, &u->capframes, u->nframes + depth, sizeof *u->frames);
	u->e = xgrow(u->e, &u->cape, u->ne + 1, sizeof *u->e);
	struct uentry *e = &u->e[u->ne];
	e->at = u->nframes;
	e->depth = (uint32_t)depth;
	e->label = label;
	e->n = n;
	e->locbytes = 0;
	for (uint64_t d = 0; d < depth; d++)
		e->locbytes += (uint32_t)vlen((uint64_t)stack[d] + 1);
	memcpy(u->frames + u->nframes, stack, depth * sizeof *stack);
	u->nframes += depth;
	u->slots[j] = (uint32_t)++u->ne;
	u->bytes += sample_size(e->locbytes, n, label);
}

int main(int argc, char **argv)
{
	uint64_t size = (uint64_t)256 << 20, funcs = 50000;
	int unique = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		char *end = NULL;
		uint64_t v = val ? strtoull(val, &end, 10) : 0;
		if (!strcmp(a, "--unique")) {
			unique = 1;
			continue;
		}
		if (val && !strcmp(a, "--size")) {
			size = v << (*end == 'K' ? 10 : *end == 'G' ? 30 : 20);
		} else if (val && !strcmp(a, "--seed")) {
			rng ^= hash(v + 1);
		} else if (val && !strcmp(a, "--funcs")) {
			funcs = v ? v : 1;
		} else {
			fprintf(stderr, "usage: genpprof [--size N[K|M|G]] [--seed N] [--funcs N] [--unique]\n");
			return 2;
		}
		i++;
	}
	struct buf out = { 0 }, m = { 0 }, l = { 0 };
	/* strings: 0 "", 1 samples, 2 count, 3 cpu, 4 nanoseconds, 5 thread,
	 * 6 /usr/bin/app, 7.. thread names t0..t15, 23.. function names */
	const uint64_t s_file = 6, s_fn = 23;
	struct uniq u = { 0 };
	fint(&m, 1, 1);
	fint(&m, 2, 2);
	fmsg(&out, 1, &m);
	fint(&m, 1, 3);
	fint(&m, 2, 4);
	fmsg(&out, 1, &m);
	uint64_t written = 0, nsamples = 0;
	enum { POOL = 100000, DEPTH = 64 };
	uint32_t *pool = calloc((size_t)POOL * DEPTH, sizeof *pool);
	unsigned char *plen = calloc(POOL, 1);
	size_t npool = 0;
	uint64_t stack[DEPTH];
	if (!pool || !plen) {
		perror("genpprof");
		return 1;
	}
	while (unique ? u.bytes + out.n < size : written + out.n < size) {
		/* 7 times in 8 a stack seen before (sampled again); else one
		 * that shares a caller prefix with one seen before (cut at a
		 * random depth, then 1-8 frames more down the call graph), or,
		 * one time in 16, a new walk 4-12 deep from one of 8 roots */
		uint64_t depth = 0, f = next() % 8, grow = 4 + next() % 9;
		if (npool > 1000 && next() % 8) {
			size_t k = (size_t)(next() % npool);
			depth = plen[k];
			for (uint64_t d = 0; d < depth; d++)
				stack[d] = pool[k * DEPTH + d];
			grow = 0;
		} else if (npool && next() % 16) {
			size_t k = (size_t)(next() % npool);
			depth = 1 + next() % plen[k];
			for (uint64_t d = 0; d < depth; d++)
				stack[d] = pool[k * DEPTH + d];
			f = hash(stack[depth - 1] * 4 + next() % 4) % funcs;
			grow = 1 + next() % 8;
		}
		for (uint64_t g = 0; g < grow && depth < DEPTH; g++, depth++) {
			stack[depth] = f * 4 + hash(f * 131 + depth) % 4;     /* a location of f */
			f = hash(f * 4 + next() % 4) % funcs;
		}
		if (grow) {
			size_t slot = npool < POOL ? npool++ : (size_t)(next() % POOL);
			for (uint64_t d = 0; d < depth; d++)
				pool[slot * DEPTH + d] = (uint32_t)stack[d];
			plen[slot] = (unsigned char)depth;
		}
		uint64_t n = 1 + next() % 5;
		int label = next() % 4 == 0 ? (int)(next() % 16) : -1;
		if (unique) {
			uniq_add(&u, stack, depth, n, label);
			continue;
		}
		uint32_t s32[DEPTH];
		for (uint64_t d = 0; d < depth; d++)
			s32[d] = (uint32_t)stack[d];
		sample(&out, s32, depth, n, label);
		nsamples++;
		if (out.n > (1u << 20)) {
			written += out.n;
			flush(&out);
		}
	}
	for (size_t i = 0; i < u.ne; i++) {
		sample(&out, u.frames + u.e[i].at, u.e[i].depth, u.e[i].n, u.e[i].label);
		nsamples++;
		if (out.n > (1u << 20))
			flush(&out);
	}
	fint(&m, 1, 1);
	fint(&m, 2, 0x400000);
	fint(&m, 3, 0x400000 + funcs * 4 * 64 + 4096);
	fint(&m, 5, s_file);
	fmsg(&out, 3, &m);
	for (uint64_t i = 0; i < funcs * 4; i++) {
		fint(&m, 1, i + 1);
		fint(&m, 2, 1);
		fint(&m, 3, 0x400000 + i * 64);
		if (i % 8 == 7) {       /* an inlined callee, then the function */
			fint(&l, 1, (hash(i) % funcs) + 1);
			fint(&l, 2, 7);
			fmsg(&m, 4, &l);
		}
		fint(&l, 1, i / 4 + 1);
		fint(&l, 2, 10 + i % 4);
		fmsg(&m, 4, &l);
		fmsg(&out, 4, &m);
		if (out.n > (1u << 20))
			flush(&out);
	}
	for (uint64_t i = 0; i < funcs; i++) {
		fint(&m, 1, i + 1);
		fint(&m, 2, s_fn + i);
		fint(&m, 3, s_fn + i);
		fmsg(&out, 5, &m);
	}
	static const char *const fixed[] = { "", "samples", "count", "cpu", "nanoseconds", "thread",
	                                     "/usr/bin/app" };
	for (size_t i = 0; i < 7; i++) {
		varint(&out, 6 << 3 | 2);
		varint(&out, strlen(fixed[i]));
		put(&out, fixed[i], strlen(fixed[i]));
	}
	char name[128];
	for (int i = 0; i < 16; i++) {
		int k = snprintf(name, sizeof name, "worker-%d", i);
		varint(&out, 6 << 3 | 2);
		varint(&out, (uint64_t)k);
		put(&out, name, (size_t)k);
	}
	for (uint64_t i = 0; i < funcs; i++) {
		int k = snprintf(name, sizeof name, "%s/pkg%" PRIu64 ".(*Type%" PRIu64 ").Method%" PRIu64,
		                 i % 3 ? "example.com/app" : "runtime", i % 97, i % 1013, i);
		varint(&out, 6 << 3 | 2);
		varint(&out, (uint64_t)k);
		put(&out, name, (size_t)k);
	}
	fint(&out, 12, 10000000);
	flush(&out);
	fprintf(stderr, "genpprof: %" PRIu64 " samples, %" PRIu64 " functions, %" PRIu64 " locations\n",
	        nsamples, funcs, funcs * 4);
	free(out.p);
	free(m.p);
	free(l.p);
	free(pool);
	free(plen);
	free(u.frames);
	free(u.e);
	free(u.slots);
	return 0;
}
