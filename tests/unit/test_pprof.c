/* Unit tests of the pprof reader on Profile messages built here field by
 * field (the wire format written out by hand: varints, tags, lengths), so
 * each expected stack follows from profile.proto alone; then on the Go
 * profiles of tests/data/pprof, whose expected stacks come from
 * `go tool pprof -raw` (tests/data/pprof/README). */
#include "config.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "pprof.h"
#include "source.h"
#include "bufutil.h"
#include "tap.h"
#include "tree.h"
#include "gzfile.h"

/* ---- writing the wire format ----------------------------------------------- */


static void varint(struct buf *b, uint64_t v)
{
	do {
		unsigned char c = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			c |= 0x80;
		put(b, &c, 1);
	} while (v);
}

static void tag(struct buf *b, unsigned field, unsigned wt) { varint(b, (uint64_t)field << 3 | wt); }
/* field = v (wire type 0) */
static void fint(struct buf *b, unsigned field, uint64_t v) { tag(b, field, 0); varint(b, v); }
/* field = bytes (wire type 2) */
static void fbytes(struct buf *b, unsigned field, const void *s, size_t n)
{
	tag(b, field, 2);
	varint(b, n);
	put(b, s, n);
}
static void fstr(struct buf *b, unsigned field, const char *s) { fbytes(b, field, s, strlen(s)); }
/* field = the message sub (then emptied) */
static void fmsg(struct buf *b, unsigned field, struct buf *sub)
{
	fbytes(b, field, sub->p, sub->n);
	sub->n = 0;
}
static void ffixed64(struct buf *b, unsigned field, uint64_t v) { tag(b, field, 1); put(b, &v, 8); }
static void ffixed32(struct buf *b, unsigned field, uint32_t v) { tag(b, field, 5); put(b, &v, 4); }

/* One of every wire type under unknown field numbers. */
static void unknowns(struct buf *b)
{
	fint(b, 99, 12345);
	ffixed64(b, 98, 0x0102030405060708ull);
	fstr(b, 97, "\x0a\x02\x08\x01 not a message");
	ffixed32(b, 96, 0xdeadbeef);
	fint(b, 536870911, 1);  /* the highest field number */
}

/* Profile pieces (field numbers of profile.proto) */
static void value_type(struct buf *b, int64_t type, int64_t unit)
{
	struct buf s = { 0 };
	fint(&s, 1, (uint64_t)type);
	fint(&s, 2, (uint64_t)unit);
	fmsg(b, 1, &s);
	free(s.p);
}

static void function(struct buf *b, uint64_t id, int64_t name, int64_t sys, bool junk)
{
	struct buf s = { 0 };
	fint(&s, 1, id);
	if (junk)
		unknowns(&s);
	fint(&s, 2, (uint64_t)name);
	fint(&s, 3, (uint64_t)sys);
	fint(&s, 4, 0);
	fmsg(b, 5, &s);
	free(s.p);
}

static void mapping(struct buf *b, uint64_t id, uint64_t start, uint64_t limit, uint64_t off, int64_t file)
{
	struct buf s = { 0 };
	fint(&s, 1, id);
	fint(&s, 2, start);
	fint(&s, 3, limit);
	fint(&s, 4, off);
	fint(&s, 5, (uint64_t)file);
	fint(&s, 7, 1);
	fmsg(b, 3, &s);
	free(s.p);
}

/* A location with lines calling functions fids[0..n) (fids[0] the
 * innermost inlined callee). */
static void location(struct buf *b, uint64_t id, uint64_t map, uint64_t addr, const uint64_t *fids,
                     size_t n, bool junk)
{
	struct buf s = { 0 }, l = { 0 };
	fint(&s, 1, id);
	if (map)
		fint(&s, 2, map);
	fint(&s, 3, addr);
	for (size_t i = 0; i < n; i++) {
		fint(&l, 1, fids[i]);
		if (junk)
			unknowns(&l);
		fint(&l, 2, 10 + i);
		fmsg(&s, 4, &l);
	}
	if (junk)
		unknowns(&s);
	fmsg(b, 4, &s);
	free(s.p);
	free(l.p);
}

enum pack { PACKED, UNPACKED, MIXED, ONE };

/* A sample: locations (leaf first) and values, packed or not; mixed puts
 * the first element unpacked and the rest in two packed runs, packed in
 * two runs, one in one. */
static void repeated(struct buf *s, unsigned field, const int64_t *v, size_t n, enum pack p)
{
	struct buf r = { 0 };
	size_t i = 0;
	if (p == ONE) {     /* one packed run, as writers make them */
		for (; i < n; i++)
			varint(&r, (uint64_t)v[i]);
		fmsg(s, field, &r);
		free(r.p);
		return;
	}
	if (p == UNPACKED || (p == MIXED && n)) {
		for (; i < (p == MIXED ? 1 : n); i++)
			fint(s, field, (uint64_t)v[i]);
	}
	size_t half = i + (n - i) / 2;
	for (; i < half; i++)
		varint(&r, (uint64_t)v[i]);
	if (r.n || p == MIXED)
		fmsg(s, field, &r);
	for (; i < n; i++)
		varint(&r, (uint64_t)v[i]);
	if (r.n)
		fmsg(s, field, &r);
	free(r.p);
}

struct label {
	int64_t key, str, num;
};

static void sample(struct buf *b, const int64_t *locs, size_t nlocs, const int64_t *vals, size_t nvals,
                   enum pack p, const struct label *labels, size_t nlabels, bool junk)
{
	struct buf s = { 0 }, l = { 0 };
	if (junk)
		unknowns(&s);
	repeated(&s, 1, locs, nlocs, p);
	repeated(&s, 2, vals, nvals, p);
	for (size_t i = 0; i < nlabels; i++) {
		fint(&l, 1, (uint64_t)labels[i].key);
		if (labels[i].str)
			fint(&l, 2, (uint64_t)labels[i].str);
		else
			fint(&l, 3, (uint64_t)labels[i].num);
		fmsg(&s, 3, &l);
	}
	if (junk)
		unknowns(&s);
	fmsg(b, 2, &s);
	free(s.p);
	free(l.p);
}

static void strings(struct buf *b, const char *const *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fstr(b, 6, s[i]);
}

/* ---- loading ------------------------------------------------------------------ */

static char dir[64];

struct result {
	int rc;
	char folded[8192], before[2048], msgs[4096];
	struct pprof_info info;
	size_t nodes;
	bool joined;        /* finalized by the load: read in parts */
};

static void on_msg(void *arg, const char *text)
{
	struct result *r = arg;
	size_t k = strlen(r->msgs);
	snprintf(r->msgs + k, sizeof r->msgs - k, "%s\n", text);
}

static void folded_of(struct tree *t, char *out, size_t size)
{
	tree_finalize(t, TREE_ORDER_NAME);
	FILE *f = fmemopen(out, size, "w");
	if (!f)
		abort();
	tree_write_folded(t, f);
	fclose(f);
}

/* b written to a new file, p.pb in the test's directory (path: its name):
 * a new file each time, as ext4 flushes a truncated one on close. */
static void write_pb(const struct buf *b, char *path, size_t size)
{
	snprintf(path, size, "%s/p.pb", dir);
	unlink(path);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(b->p, 1, b->n, f) != b->n)
		abort();
	fclose(f);
}

/* b as a source: a new mapped file, or (stream) a pipe a child process
 * writes b into (*pid). */
static struct source *input_open(const struct buf *b, bool stream, pid_t *pid)
{
	char path[128];
	*pid = -1;
	if (stream) {
		int fds[2];
		if (pipe(fds) != 0)
			abort();
		*pid = fork();
		if (*pid == 0) {
			close(fds[0]);
			for (size_t off = 0; off < b->n;) {
				ssize_t w = write(fds[1], b->p + off, b->n - off);
				if (w <= 0)
					_exit(1);
				off += (size_t)w;
			}
			_exit(0);
		}
		close(fds[1]);
		snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
	} else {
		write_pb(b, path, sizeof path);
	}
	char err[256];
	struct source *s = source_open(path, err, sizeof err);
	if (!s)
		abort();
	if (stream)
		close(atoi(path + 8));     /* the source has its own descriptor */
	return s;
}

/* Closes what input_open opened. */
static void input_close(struct source *s, pid_t pid)
{
	source_close(s);
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/* Loads b (through a mapped file, or through a pipe when stream) with o. */
static struct result *load_opts(const struct buf *b, const struct pprof_options *o, bool stream)
{
	static struct result r;
	memset(&r, 0, sizeof r);
	pid_t pid = -1;
	struct source *s = input_open(b, stream, &pid);
	struct tree t, before;
	tree_init(&t);
	tree_init(&before);
	struct pprof_options opts = o ? *o : (struct pprof_options){ 0 };
	if (o && o->before)
		opts.before = &before;
	r.rc = pprof_load(&t, s, "p.pb", &opts, &r.info, on_msg, &r);
	input_close(s, pid);
	r.nodes = tree_size(&t);
	r.joined = t.finalized;
	folded_of(&t, r.folded, sizeof r.folded);
	folded_of(&before, r.before, sizeof r.before);
	tree_free(&t);
	tree_free(&before);
	return &r;
}

static struct result *load(const struct buf *b) { return load_opts(b, NULL, false); }

static bool has(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

/* ok() for a condition on messages: shows them when it fails. */
static void okm(bool cond, const char *name, const char *msgs)
{
	if (!ok(cond, "%s", name))
		for (const char *p = msgs, *nl; *p; p = nl + 1) {
			nl = strchr(p, '\n');
			if (!nl)
				nl = p + strlen(p) - 1;
			printf("#   %.*s\n", (int)(nl - p), p);
		}
}

/* ---- a profile to vary -------------------------------------------------------- */

/* strings: 0 "", 1 samples, 2 count, 3 cpu, 4 nanoseconds, 5 main, 6 parse,
 * 7 lex, 8 inl_inner, 9 inl_outer, 10 /usr/lib/libfoo.so.1, 11 worker,
 * 12 alpha, 13 bytes, 14 _Z3sysv, 15 beta */
static const char *const strs[] = { "", "samples", "count", "cpu", "nanoseconds", "main", "parse", "lex",
	"inl_inner", "inl_outer", "/usr/lib/libfoo.so.1", "worker", "alpha", "bytes", "_Z3sysv", "beta" };
#define NSTRS (sizeof strs / sizeof strs[0])

struct variant {
	enum pack pack;
	bool junk;          /* unknown fields of every wire type everywhere */
	bool strings_first; /* the string table before everything */
	int64_t dflt;       /* default_sample_type */
	bool sparse;        /* huge and sparse ids */
};

/* Functions 1 main, 2 parse, 3 lex, 4 inl_inner, 5 inl_outer, 6 (name ""
 * and system name _Z3sysv); locations 1 main, 2 parse, 3 lex, 4 inl_inner
 * inlined into inl_outer, 5 an address in libfoo (mapping 1), 6 a bare
 * address, 7 the system-named function. Samples (leaf first):
 *   [3 2 1] 5/50, [2 1] 1/10, [4 2 1] 2/20, [5 1] 1/7, [6 5 1] 3/30,
 *   [3 2 1] 1/5 (again), [7 1] 1/1, [2 1] 0/0 (dropped) */
static struct buf profile(const struct variant *v)
{
	struct buf b = { 0 };
	uint64_t id[8], fid[7];
	for (int i = 0; i < 8; i++)
		id[i] = v->sparse ? (i == 1 ? UINT64_MAX : (uint64_t)i << 40 | 3) : (uint64_t)i;
	for (int i = 0; i < 7; i++)
		fid[i] = v->sparse ? (i == 1 ? 2 /* an index of another */ : (uint64_t)i * 1000003u + 7) : (uint64_t)i;
	if (v->sparse)
		id[2] = 9;  /* an id within the count, not its position */
	if (v->strings_first)
		strings(&b, strs, NSTRS);
	if (v->junk)
		unknowns(&b);
	value_type(&b, 1, 2);
	value_type(&b, 3, 4);
	static const struct { int n; int loc[3]; int64_t v[2]; } S[] = {
		{ 3, { 3, 2, 1 }, { 5, 50 } }, { 2, { 2, 1 }, { 1, 10 } }, { 3, { 4, 2, 1 }, { 2, 20 } },
		{ 2, { 5, 1 }, { 1, 7 } }, { 3, { 6, 5, 1 }, { 3, 30 } }, { 3, { 3, 2, 1 }, { 1, 5 } },
		{ 2, { 7, 1 }, { 1, 1 } }, { 2, { 2, 1 }, { 0, 0 } },
	};
	for (size_t i = 0; i < sizeof S / sizeof S[0]; i++) {
		int64_t locs[3];
		for (int k = 0; k < S[i].n; k++)
			locs[k] = (int64_t)id[S[i].loc[k]];
		sample(&b, locs, (size_t)S[i].n, S[i].v, 2, v->pack, NULL, 0, v->junk);
	}
	mapping(&b, id[1] ^ 0x10, 0x7f0000, 0x800000, 0x1000, 10);
	uint64_t f1[] = { fid[1] }, f2[] = { fid[2] }, f3[] = { fid[3] }, f4[] = { fid[4], fid[5] },
		f7[] = { fid[6] };
	location(&b, id[1], 0, 0x401000, f1, 1, v->junk);
	location(&b, id[2], 0, 0x402000, f2, 1, v->junk);
	location(&b, id[3], 0, 0x403000, f3, 1, v->junk);
	location(&b, id[4], 0, 0x404000, f4, 2, v->junk);
	location(&b, id[5], id[1] ^ 0x10, 0x7f1a2b, NULL, 0, v->junk);
	location(&b, id[6], 0, 0x4f6a87, NULL, 0, v->junk);
	location(&b, id[7], 0, 0x405000, f7, 1, v->junk);
	for (int i = 1; i <= 5; i++)
		function(&b, fid[i], 4 + i, 0, v->junk);
	function(&b, fid[6], 0, 14, v->junk);
	if (!v->strings_first)
		strings(&b, strs, NSTRS);
	if (v->dflt)
		fint(&b, 14, (uint64_t)v->dflt);
	fint(&b, 9, 1700000000000000000ull);
	fint(&b, 10, 2000000000);
	{
		struct buf pt = { 0 };
		fint(&pt, 1, 3);
		fint(&pt, 2, 4);
		fmsg(&b, 11, &pt);
		free(pt.p);
	}
	fint(&b, 12, 10000000);
	if (v->junk)
		unknowns(&b);
	return b;
}

static const char want_cpu[] =
	"main;[libfoo.so.1+0x2a2b] 7\n"
	"main;[libfoo.so.1+0x2a2b];0x4f6a87 30\n"
	"main;_Z3sysv 1\n"
	"main;parse 10\n"
	"main;parse;inl_outer;inl_inner 20\n"
	"main;parse;lex 55\n";
static const char want_samples[] =
	"main;[libfoo.so.1+0x2a2b] 1\n"
	"main;[libfoo.so.1+0x2a2b];0x4f6a87 3\n"
	"main;_Z3sysv 1\n"
	"main;parse 1\n"
	"main;parse;inl_outer;inl_inner 2\n"
	"main;parse;lex 6\n";

static void test_variants(void)
{
	static const struct variant vs[] = {
		{ PACKED, false, false, 0, false }, { UNPACKED, false, false, 0, false },
		{ MIXED, false, false, 0, false }, { PACKED, true, false, 0, false },
		{ UNPACKED, true, true, 0, false }, { PACKED, false, false, 0, true },
		{ MIXED, true, true, 0, true }, { ONE, false, false, 0, false },
	};
	static const char *const names[] = { "packed", "unpacked", "mixed packed and unpacked",
		"unknown fields of every wire type", "unknown fields, unpacked, strings first",
		"sparse and huge ids", "all of them", "one packed run" };
	for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
		struct buf b = profile(&vs[i]);
		char name[128];
		/* stream 2: counted as it arrives, as far as it can be: all 7
		 * samples (the eighth's value is 0) when their locations are
		 * in one packed run (PACKED makes two), none else */
		for (int stream = 0; stream < 3; stream++) {
			struct pprof_options o = { .ahead = stream == 2 ? 1 : -1 };
			struct result *r = load_opts(&b, &o, stream);
			snprintf(name, sizeof name, "%s (%s): stacks of the last sample type", names[i],
			         stream == 2 ? "stream counted as it arrives" : stream ? "stream" : "mapped");
			ok(r->rc == 0, "%s: read", name);
			is_str(r->folded, want_cpu, name);
			is_str(r->msgs, "", "no messages");
			if (stream == 2)
				is_int((long long)r->info.early, vs[i].pack == ONE ? 7 : 0, "... samples counted as they arrived");
		}
		ok(pprof_sniff(b.p, b.n, true), "%s: sniffed", names[i]);
		/* unknown fields first: 64 bytes reach the first sample type */
		ok(pprof_sniff(b.p, vs[i].junk ? 64 : 16, false), "%s: sniffed from %d bytes", names[i],
		   vs[i].junk ? 64 : 16);
		free(b.p);
	}
}

static void test_sample_types(void)
{
	struct variant v = { 0 };
	struct buf b = profile(&v);
	struct result *r = load(&b);
	is_str(r->info.type, "cpu", "info: type");
	is_str(r->info.unit, "nanoseconds", "info: unit");
	is_str(r->info.types, "samples/count cpu/nanoseconds", "info: types");
	is_str(r->info.period_type, "cpu", "info: period type");
	is_int(r->info.period, 10000000, "info: period");
	is_int(r->info.duration_nanos, 2000000000, "info: duration");
	is_int((long long)r->info.samples, 7, "info: samples (the zero one skipped)");
	is_int((long long)r->info.total, 123, "info: total");
	free(b.p);

	v.dflt = 1;     /* "samples" */
	b = profile(&v);
	r = load(&b);
	is_str(r->folded, want_samples, "default_sample_type chooses the first");
	is_str(r->info.type, "samples", "info: the default type");
	/* counted as the stream arrives by the last type, which the default
	 * then overrules: read again */
	struct variant one = { ONE, false, false, 1, false };
	struct buf b1 = profile(&one);
	r = load_opts(&b1, &(struct pprof_options){ .ahead = 1 }, true);
	is_str(r->folded, want_samples, "a stream counted as it arrives by the last type: the default's after all");
	is_int((long long)r->info.early, 0, "... none of them counted early");
	free(b1.p);
	struct pprof_options o = { .sample_type = "cpu" };
	r = load_opts(&b, &o, false);
	is_str(r->folded, want_cpu, "--sample-type by name wins over the default");
	free(b.p);

	v.dflt = 13;    /* "bytes": not a sample type here, so the last */
	b = profile(&v);
	is_str(load(&b)->folded, want_cpu, "a default that is no sample type: the last");
	o.sample_type = "samples";
	is_str(load_opts(&b, &o, false)->folded, want_samples, "--sample-type=samples");
	o.sample_type = "0";
	is_str(load_opts(&b, &o, false)->folded, want_samples, "--sample-type=0 (an index)");
	o.sample_type = "alloc_space";
	r = load_opts(&b, &o, false);
	ok(r->rc == 1, "--sample-type of an unknown name: not read");
	is_str(r->msgs, "tflame: p.pb: no sample type \"alloc_space\" in this profile (it has: "
	       "samples/count cpu/nanoseconds)\n", "... and says which there are");
	ok(r->nodes == 1, "... and nothing was added");
	o.sample_type = "2";
	ok(load_opts(&b, &o, false)->rc == 1, "--sample-type=2: past the types");
	free(b.p);
}

/* A small profile around one sample of location list locs. */
static struct buf small(const char *const *s, size_t ns, void (*body)(struct buf *))
{
	struct buf b = { 0 };
	value_type(&b, 1, 2);
	body(&b);
	strings(&b, s, ns);
	return b;
}

static const char *const s2[] = { "", "samples", "count", "f", "g", "key", "val", "num" };

static void body_labels(struct buf *b)
{
	uint64_t f1[] = { 1 }, f2[] = { 2 };
	location(b, 1, 0, 0x10, f1, 1, false);
	location(b, 2, 0, 0x20, f2, 1, false);
	int64_t l[] = { 2, 1 }, v1[] = { 3 }, v2[] = { 4 }, v3[] = { 5 }, v4[] = { 6 };
	struct label ls[] = { { 7, 0, 42 }, { 5, 6, 0 } };          /* num=42, key=val */
	struct label ln[] = { { 7, 0, -3 } };                        /* num=-3 only */
	struct label lx[] = { { 5, 6, 0 }, { 5, 4, 0 } };            /* key twice: the first */
	sample(b, l, 2, v1, 1, PACKED, ls, 2, false);
	sample(b, l, 2, v2, 1, PACKED, ln, 1, false);
	sample(b, l, 2, v3, 1, UNPACKED, NULL, 0, false);
	sample(b, l, 1, v4, 1, PACKED, lx, 2, false);
	function(b, 1, 3, 0, false);
	function(b, 2, 4, 0, false);
}

static void test_labels(void)
{
	struct buf b = small(s2, 8, body_labels);
	struct pprof_options o = { .label_root = "key" };
	struct result *r = load_opts(&b, &o, false);
	is_str(r->folded, "key=[none];f;g 9\nkey=val;f;g 3\nkey=val;g 6\n", "string label as a root frame");
	is_str(r->msgs, "", "no messages");
	o.label_root = "num";
	r = load_opts(&b, &o, true);
	is_str(r->folded, "num=-3;f;g 4\nnum=42;f;g 3\nnum=[none];f;g 5\nnum=[none];g 6\n",
	       "numeric label as a root frame");
	o.label_root = "nothere";
	r = load_opts(&b, &o, false);
	ok(has(r->folded, "nothere=[none];f;g 12\n"), "a label no sample has: [none]");
	is_str(r->msgs, "tflame: p.pb: no sample has a label \"nothere\"\n", "... said once");
	is_str(load(&b)->folded, "f;g 12\ng 6\n", "without --label-root");
	free(b.p);
}

static void body_negative(struct buf *b)
{
	uint64_t f1[] = { 1 }, f2[] = { 2 };
	location(b, 1, 0, 0x10, f1, 1, false);
	location(b, 2, 0, 0x20, f2, 1, false);
	int64_t l[] = { 2, 1 }, a[] = { 10 }, m[] = { -4 }, z[] = { 0 }, big[] = { INT64_MIN };
	sample(b, l, 2, a, 1, PACKED, NULL, 0, false);
	sample(b, l, 1, m, 1, PACKED, NULL, 0, false);
	sample(b, l, 2, m, 1, UNPACKED, NULL, 0, false);
	sample(b, l, 2, z, 1, PACKED, NULL, 0, false);
	sample(b, l + 1, 1, big, 1, PACKED, NULL, 0, false);
	function(b, 1, 3, 0, false);
	function(b, 2, 4, 0, false);
}

static void test_negative(void)
{
	struct buf b = small(s2, 8, body_negative);
	struct result *r = load(&b);
	is_str(r->folded, "f;g 10\n", "negative values are not counted without --diff");
	okm(has(r->msgs, "skipped 3 samples with negative values"), "... but said", r->msgs);
	struct tree dummy;
	struct pprof_options o = { .before = &dummy };  /* load_opts uses its own */
	r = load_opts(&b, &o, false);
	is_str(r->folded, "f;g 10\n", "with --diff: positive ones in the tree");
	is_str(r->before, "f 9223372036854775808\nf;g 4\ng 4\n", "... negative ones negated in before");
	is_str(r->msgs, "", "... no messages");
	is_int((long long)r->info.before_total, (long long)(8u + 9223372036854775808ull), "info: before_total");
	free(b.p);
}

static const char *const s3[] = { "", "samples", "count", "f", "/lib/x.so", "", "nl\nname" };

static void body_refs(struct buf *b)
{
	uint64_t f1[] = { 1 }, f9[] = { 9 }, f2[] = { 2 }, f3[] = { 3 }, f4[] = { 4 };
	mapping(b, 1, 0x1000, 0x2000, 0, 4);
	mapping(b, 2, 0x3000, 0x4000, 0x100, 5);        /* filename "": addresses */
	location(b, 1, 0, 0x10, f1, 1, false);
	location(b, 2, 1, 0x1abc, f9, 1, false);        /* function 9: none */
	location(b, 3, 2, 0x3010, f2, 1, false);        /* name 99: past the table */
	location(b, 4, 7, 0x5000, NULL, 0, false);      /* mapping 7: none */
	location(b, 5, 0, 0x10, f3, 1, false);          /* a line break in the name */
	location(b, 6, 1, 0x1001, f4, 1, false);        /* name "" and system name "" */
	int64_t a[] = { 2, 1 }, bb[] = { 3, 1 }, c[] = { 4, 1 }, d[] = { 77, 1 }, e[] = { 5 }, g[] = { 6 };
	int64_t v[] = { 1 };
	sample(b, a, 2, v, 1, PACKED, NULL, 0, false);
	sample(b, bb, 2, v, 1, PACKED, NULL, 0, false);
	sample(b, c, 2, v, 1, PACKED, NULL, 0, false);
	sample(b, d, 2, v, 1, PACKED, NULL, 0, false);
	sample(b, e, 1, v, 1, PACKED, NULL, 0, false);
	sample(b, g, 1, v, 1, PACKED, NULL, 0, false);
	function(b, 1, 3, 0, false);
	function(b, 2, 99, 0, false);
	function(b, 3, 6, 0, false);
	function(b, 4, 5, 5, false);
}

static void test_references(void)
{
	struct buf b = small(s3, 7, body_refs);
	struct result *r = load(&b);
	is_str(r->folded, "[x.so+0x1] 1\nf;0x3010 1\nf;0x5000 1\nf;[unknown] 1\nf;[x.so+0xabc] 1\nnl name 1\n",
	       "dangling references, addresses, mappings, line breaks");
	okm(has(r->msgs, "3 references to locations, functions or mappings that the profile does not hold"),
	    "dangling references counted", r->msgs);
	ok(has(r->msgs, "1 reference past the end of the string table (7 strings) read as empty"),
	   "missing strings counted");
	free(b.p);
}

static void body_zero(struct buf *b) { (void)b; }

static void test_empty(void)
{
	struct buf b = small(s2, 3, body_zero);
	struct result *r = load(&b);
	ok(r->rc == 0 && r->nodes == 1 && !r->msgs[0], "zero samples: read, empty");
	is_int((long long)r->info.samples, 0, "info: no samples");
	free(b.p);
	b.n = 0;
	r = load_opts(&b, NULL, true);
	ok(r->rc == 0 && r->nodes == 1, "an empty message is an empty profile");
	ok(!pprof_sniff((const unsigned char *)"", 0, true), "... but not sniffed as one");
	struct buf c = { 0 };
	int64_t l[] = { 1 }, v[] = { 1 };
	sample(&c, l, 1, v, 1, PACKED, NULL, 0, false);
	r = load(&c);
	okm(r->rc == 1 && has(r->msgs, "samples but no sample types"), "samples without sample types", r->msgs);
	free(c.p);
}

/* ---- malformed messages --------------------------------------------------------- */

static void test_truncated(void)
{
	struct variant v = { .pack = MIXED, .junk = true };
	struct buf b = profile(&v);
	size_t full = b.n, refused = 0, quiet = 0, wrong = 0;
	for (size_t k = 0; k < full; k++) {
		b.n = k;
		struct result *r = load(&b);
		if (r->rc == 1) {
			refused++;
			if (!has(r->msgs, "tflame: p.pb: not a readable pprof profile: at byte ") || r->nodes != 1)
				wrong++;
		} else if (r->rc != 0) {
			wrong++;
		} else if (!r->msgs[0]) {
			quiet++;    /* cut between fields: what is there is read */
		}
	}
	b.n = full;
	ok(wrong == 0, "cut at each of %zu bytes: %zu refused with a message and nothing added, "
	   "%zu read quietly, the rest with messages", full, refused, quiet);
	ok(refused > full * 9 / 10, "most cuts fall inside a field and are refused");
	b.n = 1;
	struct result *r = load_opts(&b, NULL, true);
	is_str(r->msgs, "tflame: p.pb: not a readable pprof profile: at byte 0: a field runs past the end of its "
	       "message (is the file cut short?)\n", "cut after one byte (stream)");
	free(b.p);
}

static void test_malformed(void)
{
	struct buf b = { 0 };
	/* a length past the end */
	value_type(&b, 1, 2);
	tag(&b, 6, 2);
	varint(&b, 1000);
	put(&b, "abcde", 5);
	struct result *r = load(&b);
	okm(r->rc == 1 && has(r->msgs, "at byte 6: a field runs past the end"), "a length past the end", r->msgs);
	ok(!pprof_sniff(b.p, b.n, true), "... not sniffed when that is all");
	ok(pprof_sniff(b.p, b.n, false), "... but sniffed as the start of more");

	/* a length of 2^64-1 */
	b.n = 0;
	tag(&b, 6, 2);
	varint(&b, UINT64_MAX);
	r = load(&b);
	ok(r->rc == 1 && has(r->msgs, "runs past the end"), "a length of 2^64-1");

	/* varints of 10 bytes (valid) and of 11 */
	b.n = 0;
	fint(&b, 9, UINT64_MAX);
	value_type(&b, 0, 0);
	is_int(b.n, 1 + 10 + 6, "UINT64_MAX takes 10 bytes");
	ok(load(&b)->rc == 0, "a varint of 10 bytes is read");
	b.n = 0;
	put(&b, "\x48\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11);
	ok(load(&b)->rc == 0, "... 0xff*9 0x01 too");
	b.n = 0;
	put(&b, "\x48\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 11);
	r = load(&b);
	okm(r->rc == 1 && has(r->msgs, "beyond 64 bits"), "a 10th byte over 1", r->msgs);
	b.n = 0;
	put(&b, "\x48\xff\xff\xff\xff\xff\xff\xff\xff\xff\x80\x00", 12);
	r = load(&b);
	ok(r->rc == 1 && has(r->msgs, "at byte 0: a varint longer than 10 bytes"), "a varint of 11 bytes");
	ok(!pprof_sniff(b.p, b.n, true), "... not sniffed");

	/* groups and invalid wire types */
	static const char *const cases[][2] = {
		{ "\x0b\x0c", "a group" }, { "\x0c", "a group" }, { "\x0e", "an invalid wire type" },
		{ "\x0f", "an invalid wire type" }, { "\x00\x00", "an invalid field number" },
		{ "\x80\x80\x80\x80\x80\x01\x00", "an invalid field number" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		b.n = 0;
		value_type(&b, 0, 0);
		put(&b, cases[i][0], strlen(cases[i][0]) + (cases[i][0][0] == 0 || i == 5));
		r = load(&b);
		okm(r->rc == 1 && has(r->msgs, "at byte 6: ") && has(r->msgs, cases[i][1]), cases[i][1], r->msgs);
		ok(!pprof_sniff(b.p, b.n, true), "... not sniffed");
	}
	free(b.p);
}

static void body_nested(struct buf *b)
{
	uint64_t f1[] = { 1 };
	location(b, 1, 0, 0x10, f1, 1, false);
	function(b, 1, 3, 0, false);
	int64_t l[] = { 1 }, v[] = { 2 };
	sample(b, l, 1, v, 1, PACKED, NULL, 0, false);
	/* a sample whose label claims more than the sample holds */
	struct buf s = { 0 };
	fint(&s, 1, 1);
	fint(&s, 2, 5);
	tag(&s, 3, 2);
	varint(&s, 50);
	fint(&s, 1, 5);
	fmsg(b, 2, &s);
	/* a sample whose packed values end inside a varint */
	fint(&s, 1, 1);
	fbytes(&s, 2, "\x85", 1);
	fmsg(b, 2, &s);
	/* a sample with no value */
	fint(&s, 1, 1);
	fmsg(b, 2, &s);
	/* a location whose line runs past it: counted, and its id unknown */
	tag(&s, 1, 0);
	varint(&s, 2);
	tag(&s, 4, 2);
	varint(&s, 9);
	fint(&s, 1, 1);
	fmsg(b, 4, &s);
	int64_t l2[] = { 2, 1 };
	sample(b, l2, 2, v, 1, PACKED, NULL, 0, false);
	/* an unknown field nested 5000 deep: skipped unread */
	struct buf deep = { 0 }, tmp = { 0 };
	fint(&deep, 1, 1);
	for (int i = 0; i < 5000; i++) {
		tmp.n = 0;
		fmsg(&tmp, 2, &deep);
		deep.n = 0;
		put(&deep, tmp.p, tmp.n);
	}
	fmsg(b, 77, &deep);
	free(deep.p);
	free(tmp.p);
	free(s.p);
}

static void test_nested(void)
{
	struct buf b = small(s2, 8, body_nested);
	struct result *r = load(&b);
	ok(r->rc == 0, "malformed samples and locations inside a well-framed profile: read");
	is_str(r->folded, "f 2\nf;[unknown] 2\n", "... the good samples");
	okm(has(r->msgs, "skipped 3 malformed samples (first at byte "), "... the bad ones skipped", r->msgs);
	ok(has(r->msgs, "skipped 1 malformed entry"), "... the bad location too");
	ok(has(r->msgs, "1 reference to locations"), "... and the reference to it");
	ok(!pprof_sniff(b.p, b.n, true), "not sniffed: a sample's label runs past the sample");
	free(b.p);
}

/* Frames per location and per stack are bounded, whatever the input says. */
static void body_deep(struct buf *b)
{
	uint64_t f[300];
	for (int i = 0; i < 300; i++)
		f[i] = 1 + (uint64_t)(i % 2);
	location(b, 1, 0, 0x10, f, 300, false);
	function(b, 1, 3, 0, false);
	function(b, 2, 4, 0, false);
	static int64_t l[10000], v[] = { 1 };
	for (int i = 0; i < 10000; i++)
		l[i] = 1;
	sample(b, l, 10000, v, 1, PACKED, NULL, 0, false);
	sample(b, l, 10000, v, 1, PACKED, NULL, 0, false);
	sample(b, l, 3, v, 1, PACKED, NULL, 0, false);
}

static void test_bounds(void)
{
	struct buf b = small(s2, 8, body_deep);
	struct result *r = load(&b);
	ok(r->rc == 0, "a deep stack of locations with many inlined lines: read");
	okm(has(r->msgs, "2 stacks deeper than 1048576 frames were cut"), "... cut", r->msgs);
	ok(has(r->msgs, "1 location with more than 128 inlined lines kept the outer 128"), "... lines kept");
	is_int((long long)r->info.samples, 3, "... all samples counted");
	free(b.p);
}

/* ---- sniffing ------------------------------------------------------------------- */

static void test_sniff(void)
{
	static const char *const no[] = {
		"main;parse;lex 42\n", "main;parse 1\nmain 2\n", "a 1\n", "xyz 3\n", "hello\n",
		"perf 1234 [000] 1.000: cpu-clock:\n\t4005d6 main (/a)\n\n",
		"prog  4242/4242  1.5:     250000 cpu-clock:pppH: \n",
		"{\"shared\":{\"frames\":[]}}", "[{\"a\":1}]", " {\"nodes\": []}",
		"PERFILE2h\0\0\0\0\0\0\0", "# comment\nmain 1\n", "\xef\xbb\xbfmain 1\n",
		"\x1f\x8b\x08\x00", "(\xb5/\xfd", ("\xfd" "7zXZ"),
	};
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
		size_t n = i == 10 ? 16 : strlen(no[i]);
		ok(!pprof_sniff((const unsigned char *)no[i], n, true) &&
		   !pprof_sniff((const unsigned char *)no[i], n, false), "not sniffed: text %zu", i);
	}
	/* the minimal Profiles pprof writers start with */
	ok(pprof_sniff((const unsigned char *)"\x0a\x04\x08\x01\x10\x02", 6, true), "one sample type");
	ok(pprof_sniff((const unsigned char *)"\x32\x00\x32\x03" "abc", 7, true), "only strings");
	ok(!pprof_sniff((const unsigned char *)"\x48\x01", 2, true), "only a time: not enough");
}

/* ---- Go's profiles -------------------------------------------------------------- */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	static char buf[16384];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_go(void)
{
	const char *top = getenv("top_srcdir");
	static const struct {
		const char *file, *type, *label, *want;
	} cases[] = {
		{ "cpu.pb.gz", NULL, NULL, "cpu.folded" },
		{ "cpu.pb.gz", "samples", NULL, "cpu.samples.folded" },
		{ "cpu.pb.gz", NULL, "worker", "cpu.worker.folded" },
		{ "heap.pb.gz", NULL, NULL, "heap.folded" },
		{ "heap.pb.gz", "alloc_space", NULL, "heap.alloc_space.folded" },
		{ "heap.pb.gz", "inuse_objects", "bytes", "heap.inuse_objects.bytes.folded" },
		{ "allocs.pb.gz", NULL, NULL, "allocs.folded" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char path[512], want[512], err[256];
		snprintf(path, sizeof path, "%s/tests/data/pprof/%s", top ? top : ".", cases[i].file);
		snprintf(want, sizeof want, "%s/tests/data/pprof/%s", top ? top : ".", cases[i].want);
		struct source *s = source_open(path, err, sizeof err);
		char *w = s ? slurp(want) : NULL;
		if (!w) {
			ok(0, "%s: %s", cases[i].want, s ? "missing" : err);
			source_close(s);
			continue;
		}
		unsigned char head[PPROF_SNIFF_BYTES];
		ssize_t hn = source_peek(s, head, sizeof head);
		ok(hn > 0 && pprof_sniff(head, (size_t)hn, (size_t)hn < sizeof head), "%s: sniffed", cases[i].file);
		struct tree t;
		tree_init(&t);
		struct pprof_options o = { .sample_type = cases[i].type, .label_root = cases[i].label };
		struct result r = { 0 };
		int rc = pprof_load(&t, s, cases[i].file, &o, &r.info, on_msg, &r);
		source_close(s);
		static char got[16384];
		folded_of(&t, got, sizeof got);
		tree_free(&t);
		ok(rc == 0 && !r.msgs[0], "%s: read without messages", cases[i].want);
		is_str(got, w, cases[i].want);
	}
}

/* ---- in parts ---------------------------------------------------------------- */

/* A random profile: 12 functions (names sharing starts, one of them
 * prefix of another), locations of one line, of two (inlined) and bare
 * addresses, stacks 1 to 9 deep, some twice, some with a dangling location
 * id, zero values, and malformed samples (one value for two sample types)
 * spread over the file. */
static const char *const s4[] = { "", "samples", "count", "cpu", "nanoseconds", "main", "run", "run_a",
	"run_ab", "io", "io;x", "lock", "wait", "parse", "parse2", "hash", "sort" };
static struct buf random_profile(unsigned seed, enum pack pack, uint64_t big)
{
	struct buf b = { 0 };
	uint64_t x = 0x9e3779b97f4a7c15ULL * (seed + 1);
#define RND() (x ^= x << 13, x ^= x >> 7, x ^= x << 17, x)
	value_type(&b, 1, 2);
	value_type(&b, 3, 4);
	for (int i = 0; i < 220; i++) {
		int64_t locs[9], vals[2];
		size_t n = 1 + RND() % 9;
		for (size_t k = 0; k < n; k++)
			locs[k] = RND() % 23 == 0 ? 99 : (int64_t)(1 + RND() % 16);     /* 99: dangling */
		vals[0] = (int64_t)(RND() % 4);
		vals[1] = big ? (int64_t)big : vals[0] * 10;
		sample(&b, locs, n, vals, RND() % 37 == 0 ? 1 : 2, pack, NULL, 0, false);
		if (RND() % 5 == 0)     /* the same stack again */
			sample(&b, locs, n, vals, 2, pack, NULL, 0, false);
	}
	for (uint64_t l = 1; l <= 16; l++) {
		uint64_t f[2] = { 1 + l % 12, 1 + (l * 7) % 12 };
		if (l == 3 || l == 11) {    /* a line of wire type 7: malformed */
			struct buf m = { 0 };
			fint(&m, 1, l);
			fint(&m, 3, 0x1000 * l);
			tag(&m, 4, 2);
			varint(&m, 1);
			put(&m, "\x0f", 1);
			fmsg(&b, 4, &m);
			free(m.p);
			continue;
		}
		if (l == 7)     /* a line calling a function the profile lacks */
			f[0] = 99;
		location(&b, l, 0, 0x1000 * l, l % 5 == 0 ? NULL : f, l % 5 == 0 ? 0 : l % 3 == 0 ? 2 : 1, false);
	}
	for (uint64_t f = 1; f <= 12; f++)
		function(&b, f, (int64_t)(4 + f), 0, false);
	strings(&b, s4, sizeof s4 / sizeof s4[0]);
#undef RND
	return b;
}

/* The names of the tree read from b with o (its name table, id by id,
 * one a line, then, with blank, a blank line, then its folded stacks)
 * into out. */
static void names_with(const struct buf *b, const struct pprof_options *o, bool blank, char *out, size_t size)
{
	char path[128];
	write_pb(b, path, sizeof path);
	char err[256];
	struct source *s = source_open(path, err, sizeof err);
	if (!s)
		abort();
	struct tree t;
	tree_init(&t);
	struct result r = { 0 };
	pprof_load(&t, s, "p.pb", o, NULL, on_msg, &r);
	source_close(s);
	size_t k = 0;
	for (size_t i = 0; i < strtab_count(&t.names) && k < size; i++)
		k += (size_t)snprintf(out + k, size - k, "%s\n", strtab_str(&t.names, (strtab_id)i));
	if (blank && k < size)
		k += (size_t)snprintf(out + k, size - k, "\n");
	tree_finalize(&t, o->order);
	FILE *f = fmemopen(out + (k < size ? k : size - 1), size - (k < size ? k : size - 1), "w");
	if (!f)
		abort();
	tree_write_folded(&t, f);
	fclose(f);
	tree_free(&t);
}

/* names_with in order. */
static void names_of(const struct buf *b, enum tree_order order, char *out, size_t size)
{
	names_with(b, &(struct pprof_options){ .order = order }, true, out, size);
}

/* Held stacks go to the tree sorted by their names in name and weight
 * order (pprof.c's seen_add_sorted), in order of first appearance in
 * input order: the same stacks, and the same name table (names interned
 * as each stack is first held), as first appearance gives. */
static void test_sorted(void)
{
	static char want[16384], got[16384];
	/* by hand: main;zeta, main;alpha;zeta, main;mid, main;zeta again,
	 * zeta's location id above alpha's (so that sorted by locations the
	 * second stack comes first) */
	static const char *const s5[] = { "", "samples", "count", "main", "zeta", "alpha", "mid" };
	struct buf h = { 0 };
	value_type(&h, 1, 2);
	static const int64_t st[4][3] = { { 5, 3 }, { 5, 2, 3 }, { 4, 3 }, { 5, 3 } };
	static const size_t sn5[4] = { 2, 3, 2, 2 };
	for (int i = 0; i < 4; i++) {
		int64_t v = i + 1 + (i == 3);
		sample(&h, st[i], sn5[i], &v, 1, ONE, NULL, 0, false);
	}
	static const uint64_t locfn[6] = { 0, 0, 3, 1, 4, 2 };     /* location id -> function */
	for (uint64_t l = 2; l <= 5; l++)
		location(&h, l, 0, 0x1000 * l, &locfn[l], 1, false);
	for (uint64_t f = 1; f <= 4; f++)
		function(&h, f, (int64_t)(2 + f), 0, false);
	strings(&h, s5, sizeof s5 / sizeof s5[0]);
	for (int o = 0; o < 3; o++) {
		static const enum tree_order ord[] = { TREE_ORDER_NAME, TREE_ORDER_WEIGHT, TREE_ORDER_INPUT };
		names_of(&h, ord[o], got, sizeof got);
		char name[128];
		snprintf(name, sizeof name, "held stacks, %s order: names in order of first appearance, the stacks",
		         o == 0 ? "name" : o == 1 ? "weight" : "input");
		is_str(got, "all\nmain\nzeta\nalpha\nmid\n\nmain;alpha;zeta 2\nmain;mid 3\nmain;zeta 6\n", name);
	}
	free(h.p);
	for (unsigned seed = 0; seed < 6; seed++) {
		struct buf b = random_profile(seed, ONE, 0);
		names_of(&b, TREE_ORDER_INPUT, want, sizeof want);
		for (int o = 0; o < 2; o++) {
			names_of(&b, o ? TREE_ORDER_WEIGHT : TREE_ORDER_NAME, got, sizeof got);
			char name[128];
			snprintf(name, sizeof name, "random profile %u, %s order: the name table and stacks of "
			         "first appearance", seed, o ? "weight" : "name");
			is_str(got, want, name);
		}
		free(b.p);
	}
}

static void test_parts(void)
{
	/* the hand-worked profile, in parts: locations packed (read from
	 * their end), unpacked and mixed (read whole), sparse ids */
	static const struct variant vs[] = {
		{ PACKED, false, false, 0, false }, { UNPACKED, false, false, 0, false },
		{ MIXED, true, true, 0, true },
	};
	for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
		struct buf b = profile(&vs[i]);
		for (int order = 0; order < 2; order++) {
			struct pprof_options o = { .parts = 1, .order = order ? TREE_ORDER_WEIGHT : TREE_ORDER_NAME };
			struct result *r = load_opts(&b, &o, false);
			char name[96];
			snprintf(name, sizeof name, "in parts, %s order, variant %zu: the stacks",
			         order ? "weight" : "name", i);
			ok(r->joined, "%s: read in parts", name);
			is_str(r->folded, want_cpu, name);
			is_int((long long)r->info.samples, 7, "... 7 samples");
		}
		free(b.p);
	}
	/* random profiles: in parts as in one tree, messages and counts too
	 * (the first malformed sample is the first in the file) */
	static const enum pack packs[] = { PACKED, UNPACKED, MIXED };
	for (unsigned seed = 0; seed < 6; seed++) {
		struct buf b = random_profile(seed, packs[seed % 3], 0);
		struct result *r = load_opts(&b, &(struct pprof_options){ .order = TREE_ORDER_NAME }, false);
		char folded[sizeof r->folded], msgs[sizeof r->msgs];
		snprintf(folded, sizeof folded, "%s", r->folded);
		snprintf(msgs, sizeof msgs, "%s", r->msgs);
		struct pprof_info info = r->info;
		size_t nodes = r->nodes;
		ok(!r->joined, "random profile %u: small, read in one tree", seed);
		ok(has(msgs, "malformed sample") && has(msgs, "malformed entr") && has(msgs, "reference"),
		   "random profile %u: the messages say malformed samples, locations and dangling references", seed);
		for (int th = 1; th <= 3; th++) {
			r = load_opts(&b, &(struct pprof_options){ .parts = 1, .threads = th, .order = TREE_ORDER_NAME },
			              seed & 1);
			ok(r->joined && folded[0] && strcmp(r->folded, folded) == 0,
			   "random profile %u: in parts on %d thread(s), the same stacks", seed, th);
			is_str(r->msgs, msgs, "... the same messages");
			ok(r->info.samples == info.samples && r->info.total == info.total && r->nodes == nodes,
			   "... the same counts and nodes (%llu samples)", (unsigned long long)info.samples);
		}
		free(b.p);
	}
	/* sums beyond 64 bits: tree_join refuses, the samples are read again
	 * in one tree, counted once */
	struct buf b = random_profile(7, PACKED, (uint64_t)1 << 62);
	struct result *r = load_opts(&b, &(struct pprof_options){ .order = TREE_ORDER_NAME }, false);
	char folded[sizeof r->folded], msgs[sizeof r->msgs];
	snprintf(folded, sizeof folded, "%s", r->folded);
	snprintf(msgs, sizeof msgs, "%s", r->msgs);
	uint64_t samples = r->info.samples;
	r = load_opts(&b, &(struct pprof_options){ .parts = 1, .threads = 2, .order = TREE_ORDER_NAME }, false);
	ok(!r->joined && strcmp(r->folded, folded) == 0 && strcmp(r->msgs, msgs) == 0 && r->info.samples == samples &&
	   r->info.total == UINT64_MAX, "a sum beyond 64 bits: in one tree after all, counted once (%llu samples)",
	   (unsigned long long)samples);
	free(b.p);
}

/* ---- samples counted as a stream arrives ------------------------------------------ */

/* Samples of a few kinds (leaf first; location 9 dangles): what
 * pprof_options.ahead counts early and what it leaves to pass 2 must add
 * up to what a mapped file gives. */
enum ahead_case { AH_PLAIN, AH_ZERO, AH_BADKEY, AH_BADZERO, AH_LONGID, AH_BIGID, AH_CUTID, AH_ONEVALUE, AH_NEGATIVE, AH_SUM, AH_LABELS, AH_TYPE_AFTER,
	AH_MIXED, AH_CUT, AH_ZERO_FIRST, AH_ZERO_LAST, AH_N };

static void ahead_sample(struct buf *b, int64_t l0, int64_t l1, int64_t l2, int64_t value, bool label)
{
	int64_t locs[3] = { l0, l1, l2 }, vals[2] = { value ? 1 : 0, value };
	static const struct label lab[1] = { { 11, 12, 0 } };       /* worker=alpha */
	sample(b, locs, l2 ? 3 : 2, vals, 2, ONE, lab, label ? 1 : 0, false);
}

/* Locations 1-3 (main, parse, lex), their functions, the strings. */
static void ahead_tail(struct buf *b)
{
	uint64_t f[3] = { 1, 2, 3 };
	for (uint64_t i = 1; i <= 3; i++)
		location(b, i, 0, 0x1000 * i, &f[i - 1], 1, false);
	for (uint64_t i = 1; i <= 3; i++)
		function(b, i, (int64_t)(4 + i), 0, false);
	strings(b, strs, NSTRS);
}

static struct buf ahead_profile(enum ahead_case k)
{
	struct buf b = { 0 }, raw = { 0 };
	value_type(&b, 1, 2);
	value_type(&b, 3, 4);
	ahead_sample(&b, 3, 2, 1, 10, k == AH_LABELS);
	switch (k) {
	case AH_ZERO:
		ahead_sample(&b, 9, 1, 0, 0, false);
		break;
	case AH_BADKEY:     /* a location id of 11 bytes (value 5, or 0) */
	case AH_BADZERO:
	case AH_LONGID:     /* 10 bytes: UINT64_MAX (dangling) */
	case AH_BIGID:      /* 10 bytes, beyond 64 bits */
	case AH_CUTID:
		tag(&raw, 1, 2);
		if (k == AH_CUTID) {       /* the last id cut */
			varint(&raw, 2);
			put(&raw, "\x03\x81", 2);
		} else if (k == AH_LONGID || k == AH_BIGID) {
			varint(&raw, 11);
			put(&raw, k == AH_LONGID ? "\x02\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"
			                         : "\x02\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 11);
		} else {
			varint(&raw, 12);
			put(&raw, "\x02\xff\xff\xff\xff\xff\xff\xff\xff\xff\x80\x01", 12);
		}
		tag(&raw, 2, 2);
		varint(&raw, 2);
		put(&raw, k == AH_BADZERO ? "\x00\x00" : "\x01\x05", 2);
		fmsg(&b, 2, &raw);
		break;
	case AH_ONEVALUE: {
		int64_t locs[2] = { 2, 1 }, one = 5;
		sample(&b, locs, 2, &one, 1, ONE, NULL, 0, false);
		break;
	}
	case AH_NEGATIVE:
		ahead_sample(&b, 2, 1, 0, -5, false);
		break;
	case AH_SUM:        /* the third makes the sum pass 2^64 */
		ahead_sample(&b, 2, 1, 0, INT64_MAX, false);
		ahead_sample(&b, 2, 1, 0, INT64_MAX, false);
		ahead_sample(&b, 2, 1, 0, INT64_MAX, false);
		break;
	case AH_MIXED:
		mapping(&b, 1, 0x1000, 0x2000, 0, 10);
		break;
	case AH_ZERO_FIRST:     /* 0 of the first type, 7 of the last */
	case AH_ZERO_LAST: {    /* 3 of the first, 0 of the last */
		int64_t locs[2] = { 2, 1 }, vals[2] = { k == AH_ZERO_LAST ? 3 : 0, k == AH_ZERO_LAST ? 0 : 7 };
		sample(&b, locs, 2, vals, 2, ONE, NULL, 0, false);
		break;
	}
	default:
		break;
	}
	ahead_sample(&b, 2, 1, 0, 20, k == AH_LABELS);
	ahead_sample(&b, 3, 2, 1, 5, k == AH_LABELS);
	if (k == AH_ZERO)
		ahead_sample(&b, 9, 1, 0, 0, false);
	if (k == AH_TYPE_AFTER)
		value_type(&b, 13, 2);
	ahead_tail(&b);
	if (k == AH_CUT)
		b.n -= 3;
	free(raw.p);
	return b;
}

/* n samples, each of its own stack of locations (a dangling root id: the
 * names are all [unknown];main;parse;lex): few repeat, so nothing is
 * counted early, and the samples' run is only framed as it arrives, for
 * pass 1 to skip; 300,000 are read in parts (which count on pass 1's
 * count of samples). */
static void test_ahead_unique(int64_t n)
{
	struct buf b = { 0 };
	value_type(&b, 1, 2);
	value_type(&b, 3, 4);
	uint64_t total = 0;
	for (int64_t i = 0; i < n; i++) {
		int64_t locs[4] = { 3, 2, 1, 1000 + i }, vals[2] = { 1, 1 + i % 7 };
		sample(&b, locs, 4, vals, 2, ONE, NULL, 0, false);
		total += (uint64_t)(1 + i % 7);
	}
	ahead_tail(&b);
	struct result *r = load_opts(&b, &(struct pprof_options){ .ahead = 1, .threads = 2 }, true);
	char want[64], name[96], refs[64];
	snprintf(want, sizeof want, "[unknown];main;parse;lex %llu\n", (unsigned long long)total);
	snprintf(name, sizeof name, "a stream of %lld stacks counted as it arrives: few repeat, read after all",
	         (long long)n);
	is_str(r->folded, want, name);
	snprintf(refs, sizeof refs, "%lld references to locations", (long long)n);
	okm(has(r->msgs, refs), "... every dangling id counted", r->msgs);
	ok(r->info.samples == (uint64_t)n && r->info.early == 0, "... %lld samples, none counted early", (long long)n);
	ok(r->joined == (n >= 262144), "... %s", n >= 262144 ? "read in parts" : "not in parts");
	free(b.p);
}

static void test_ahead(void)
{
	static const char *const names[AH_N] = { "plain", "a sample of value 0 (a dangling location)",
		"a malformed location id", "a malformed location id, value 0", "a location id of 10 bytes",
		"a location id of 10 bytes beyond 64 bits", "a location id cut", "one value for two types", "a negative value",
		"sums beyond 64 bits", "labels", "a sample type after the samples", "a mapping among the samples",
		"cut short", "a value 0 of the first type only", "a value 0 of the last type only" };
	/* samples counted early, by hand: those before the one that cannot
	 * be (value 0 ones aside); none when the whole is read again */
	static const long long early[AH_N] = { 3, 3, 0, 0, 4, 0, 0, 1, 1, 3, 3, 0, 1, 0, 4, 3 };
	/* weighed by the first type: counted by the last, so read again */
	for (int k = 0; k < AH_N; k++) {
		struct buf b = ahead_profile((enum ahead_case)k);
		struct result *r = load_opts(&b, &(struct pprof_options){ .ahead = -1, .sample_type = "samples" }, false);
		static struct result m;
		m = *r;
		r = load_opts(&b, &(struct pprof_options){ .ahead = 1, .sample_type = "samples" }, true);
		char name[160];
		snprintf(name, sizeof name, "a stream counted as it arrives, %s, --sample-type of the first: what a "
		         "mapped file gives", names[k]);
		ok(r->rc == m.rc, "%s: rc %d", name, m.rc);
		is_str(r->folded, m.folded, name);
		is_str(r->msgs, m.msgs, "... the same messages");
		ok(r->info.samples == m.info.samples && r->info.total == m.info.total,
		   "... the same counts (%llu samples)", (unsigned long long)m.info.samples);
		is_int((long long)r->info.early, 0, "... none counted early");
		if (k == AH_PLAIN || k == AH_ZERO_FIRST)
			is_str(r->folded, "main;parse 1\nmain;parse;lex 2\n", "... the stacks, by hand");
		if (k == AH_ZERO_LAST)
			is_str(r->folded, "main;parse 4\nmain;parse;lex 2\n", "... the stacks, by hand");
		r = load_opts(&b, &(struct pprof_options){ .ahead = -1 }, false);
		m = *r;
		r = load_opts(&b, &(struct pprof_options){ .ahead = 1, .threads = 2 }, true);
		snprintf(name, sizeof name, "a stream counted as it arrives, %s: what a mapped file gives", names[k]);
		ok(r->rc == m.rc, "%s: rc %d", name, m.rc);
		is_str(r->folded, m.folded, name);
		is_str(r->msgs, m.msgs, "... the same messages");
		ok(r->info.samples == m.info.samples && r->info.total == m.info.total,
		   "... the same counts (%llu samples)", (unsigned long long)m.info.samples);
		is_int((long long)r->info.early, early[k], "... samples counted as they arrived");
		if (k == AH_PLAIN)
			is_str(r->folded, "main;parse 20\nmain;parse;lex 15\n", "... the stacks, by hand");
		if (k == AH_ZERO)
			okm(has(r->msgs, "2 references to locations"), "... the zero-valued samples' dangling ids counted",
			    r->msgs);
		if (k == AH_LONGID)
			okm(has(r->msgs, "1 reference to locations"), "... its dangling id counted", r->msgs);
		if (k == AH_BIGID || k == AH_BADKEY || k == AH_CUTID)
			okm(has(r->msgs, "skipped 1 malformed sample"), "... the sample said malformed", r->msgs);
		free(b.p);
	}
}

/* ---- pass 1's hops from the middle on (pprof_index.c: spec_run) -------------------- */

/* 200,000 samples of 24 bytes ([2 1], values 1/10, and a field pprof does
 * not define: skipped), and in the middle of the message one more ([2 1],
 * 1/7) whose undefined field holds 20,000 "\x12\x00": Sample fields of
 * length 0 to a thread that looks for samples from the middle on, where
 * pass 1 hops over the sample at once. Then (odd) a "\x12" after them,
 * which takes the thread's hops 20 bytes on, to byte 19 of the next
 * sample, where "\x12\x16" (0x16: 22) is, and so on: out of step with the
 * samples to the end (pass 1 never lands on its places); else its hops
 * fall in step after the odd sample. What pass 1 counts must not change
 * (test_pprof_spec: the thread whatever the size). */
static void spec_sample(struct buf *b, bool big, bool odd)
{
	struct buf sb = { 0 }, jb = { 0 };
	tag(&sb, 1, 2);
	varint(&sb, 2);
	put(&sb, "\x02\x01", 2);
	tag(&sb, 2, 2);
	varint(&sb, 2);
	put(&sb, big ? "\x01\x07" : "\x01\x0a", 2);
	if (big) {
		for (int k = 0; k < 20000; k++)
			put(&jb, "\x12\x00", 2);
		if (odd)
			put(&jb, "\x12", 1);
	} else {        /* its bytes 12-23: byte 19 0x12, 20 the length */
		put(&jb, "\0\0\0\0\0\0\0\x12\x16\0\0\0", 12);
	}
	fbytes(&sb, 9, jb.p, jb.n);
	fmsg(b, 2, &sb);
	free(sb.p);
	free(jb.p);
}

static void test_spec(void)
{
	for (int odd = 0; odd < 2; odd++) {
		struct buf b = { 0 };
		value_type(&b, 1, 2);
		value_type(&b, 3, 4);
		for (int i = 0; i < 200000; i++) {
			spec_sample(&b, false, false);
			if (i == 99999)
				spec_sample(&b, true, odd);
		}
		ahead_tail(&b);
		/* (the samples of 24 bytes; the middle in the big one, after
		 * 100,000 of them and the two sample types' 12 bytes) */
		struct buf one = { 0 };
		spec_sample(&one, false, false);
		size_t big = 12 + 24 * (size_t)100000;
		ok(one.n == 24 && b.n / 2 > big && b.n / 2 < big + 40000, "a profile of %zu bytes, its middle in "
		   "the big sample", b.n);
		free(one.p);
		for (int th = 1; th <= 2; th++) {
			struct result *r = load_opts(&b, &(struct pprof_options){ .threads = th }, false);
			char name[160];
			snprintf(name, sizeof name, "a sample of 40 kB in the middle whose bytes frame as samples%s, %d "
			         "thread%s: the stacks, by hand", odd ? ", then out of step" : "", th, th > 1 ? "s" : "");
			is_str(r->folded, "main;parse 2000007\n", name);
			ok(r->rc == 0 && r->info.samples == 200001 && strcmp(r->msgs, "") == 0,
			   "... 200,001 samples, nothing said");
		}
		free(b.p);
	}
}

/* ---- a compressed file's pages reused as it arrives ----------------------------------- */

/* b gzip'ed into a new file; its path into path. */
static void write_gz(const struct buf *b, char *path, size_t size)
{
	snprintf(path, size, "%s/p.pb.gz", dir);
	gz_write_file(path, b->p, b->n);
}

/* Loads b gzip'ed from a file with o (the file removed first when gone). */
static struct result *load_gz(const struct buf *b, const struct pprof_options *o, bool gone)
{
	static struct result r;
	memset(&r, 0, sizeof r);
	char path[128], err[256];
	write_gz(b, path, sizeof path);
	struct source *s = source_open(path, err, sizeof err);
	if (!s)
		abort();
	if (gone)
		unlink(path);
	struct tree t;
	tree_init(&t);
	r.rc = pprof_load(&t, s, "p.pb", o, &r.info, on_msg, &r);
	source_close(s);
	r.nodes = tree_size(&t);
	folded_of(&t, r.folded, sizeof r.folded);
	tree_free(&t);
	return &r;
}

/* Whether pages can be moved as pprof_read.c moves them (not under
 * valgrind, nor before Linux 5.7): the checks that they were are skipped
 * when not. */
static bool can_move_pages(void)
{
#if defined(HAVE_MREMAP) && defined(MREMAP_DONTUNMAP)
	size_t b = (size_t)2 << 20;
	unsigned char *m = mmap(NULL, 2 * b, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return false;
	m[0] = 1;
	bool ok = mremap(m, b, b, MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, m + b) != MAP_FAILED && m[b] == 1;
	munmap(m, 2 * b);
	return ok;
#else
	return false;
#endif
}

enum reuse_case { RU_PLAIN, RU_DEFAULT, RU_BADKEY, RU_NEGATIVE, RU_N };

/* 200,000 samples of 4 stacks (each with labels: 58 bytes, 11.6 MB in
 * all), which repeat: counted as the gzip'ed file arrives, and the pages of
 * those counted (past the first 65,536) moved ahead to take the rest. Late
 * in the file (sample 180,000): RU_BADKEY a malformed location id,
 * RU_NEGATIVE a negative value; RU_DEFAULT names the first type the
 * default. sums: each stack's by type (the stacks below), by hand as they
 * are written; *before: samples before sample 180,000 (and counted). */
static struct buf reuse_profile(enum reuse_case k, uint64_t sums[2][4], uint64_t *before)
{
	static const int64_t st[4][3] = { { 1 }, { 2, 1 }, { 3, 2, 1 }, { 3, 1 } };
	static const size_t sn[4] = { 1, 2, 3, 2 };
	static const struct label pad[8] = { { 11, 12, 0 }, { 11, 15, 0 }, { 5, 6, 0 }, { 5, 7, 0 },
	                                     { 6, 7, 0 }, { 6, 12, 0 }, { 7, 15, 0 }, { 7, 5, 0 } };
	struct buf b = { 0 }, raw = { 0 };
	value_type(&b, 1, 2);
	value_type(&b, 3, 4);
	memset(sums, 0, 2 * 4 * sizeof sums[0][0]);
	*before = 0;
	for (int i = 0; i < 200000; i++) {
		int j = (i * 7 + i / 3) % 4;
		int64_t vals[2] = { 1 + i % 3, 10 * (1 + i % 5) };
		if (i == 180000 && k == RU_BADKEY) {    /* an id of 11 bytes */
			tag(&raw, 1, 2);
			varint(&raw, 11);
			put(&raw, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x80\x01", 11);
			tag(&raw, 2, 2);
			varint(&raw, 2);
			put(&raw, "\x01\x05", 2);
			fmsg(&b, 2, &raw);
			continue;
		}
		if (i == 180000 && k == RU_NEGATIVE)
			vals[0] = vals[1] = -5;
		sample(&b, st[j], sn[j], vals, 2, ONE, pad, 8, false);
		if (vals[0] < 0)
			continue;       /* skipped, and said */
		sums[0][j] += (uint64_t)vals[0];
		sums[1][j] += (uint64_t)vals[1];
		*before += i < 180000;
	}
	ahead_tail(&b);
	if (k == RU_DEFAULT)
		fint(&b, 14, 1);    /* "samples" */
	free(raw.p);
	return b;
}

static void test_reuse(void)
{
	static const char *const names[RU_N] = { "plain", "the first type the default",
		"a malformed location id late", "a negative value late" };
	const bool movable = can_move_pages();
	const char *why = "pages cannot be moved here (mremap with MREMAP_DONTUNMAP: not under valgrind, nor "
	                  "before Linux 5.7)";
	for (int k = 0; k < RU_N; k++) {
		uint64_t sums[2][4], before;
		struct buf b = reuse_profile((enum reuse_case)k, sums, &before);
		struct result *r = load_opts(&b, &(struct pprof_options){ .ahead = -1 }, false);
		static struct result m;
		m = *r;
		/* by hand: stacks main, main;parse, main;parse;lex, main;lex */
		int ty = k == RU_DEFAULT ? 0 : 1;
		char want[256];
		snprintf(want, sizeof want, "main %" PRIu64 "\nmain;lex %" PRIu64 "\nmain;parse %" PRIu64
		         "\nmain;parse;lex %" PRIu64 "\n", sums[ty][0], sums[ty][3], sums[ty][1], sums[ty][2]);
		char name[160];
		snprintf(name, sizeof name, "a gzip'ed file's pages reused, %s: the stacks, by hand", names[k]);
		is_str(m.folded, want, name);
		r = load_gz(&b, &(struct pprof_options){ .threads = 2 }, false);
		snprintf(name, sizeof name, "... %s: what the mapped file gives", names[k]);
		ok(r->rc == 0 && m.rc == 0, "%s: read", name);
		is_str(r->folded, m.folded, name);
		is_str(r->msgs, m.msgs, "... the same messages");
		ok(r->info.samples == m.info.samples && r->info.total == m.info.total,
		   "... the same counts (%llu samples)", (unsigned long long)m.info.samples);
		/* read again: the counts were the last type's, or malformed */
		bool again = k == RU_DEFAULT || k == RU_BADKEY;
		if (!movable) {
			skip(again ? 1 : 2, "%s", why);
			ok(!r->info.again && !r->info.reused, "... read once, no page moved");
		} else {
			ok(r->info.again == again, "... %s", again ? "read twice" : "read once");
		}
		if (movable && !again) {
			/* samples of 58 bytes: the first 65,536 end at 3.8 MB,
			 * pages move from the next 2 MiB block after the MiB
			 * read then (6 MiB) to the last whole block counted
			 * (10 MiB): 2 blocks at least */
			okm(r->info.reused >= ((uint64_t)4 << 20), "... the pages of samples counted reused", r->msgs);
			is_int((long long)r->info.early, k == RU_NEGATIVE ? (long long)before : (long long)m.info.samples,
			       "... samples counted as they arrived");
		}
		if (k == RU_NEGATIVE)
			okm(has(r->msgs, "skipped 1 sample with negative values"), "... the negative one said", r->msgs);
		if (k == RU_BADKEY)
			okm(has(r->msgs, "skipped 1 malformed sample"), "... the malformed one said", r->msgs);
		/* chosen by name: nothing given up (it need not be the last) */
		r = load_gz(&b, &(struct pprof_options){ .sample_type = "samples" }, false);
		m = *load_opts(&b, &(struct pprof_options){ .sample_type = "samples" }, false);
		ok(r->info.reused == 0 && !r->info.again && strcmp(r->folded, m.folded) == 0,
		   "... %s, --sample-type: nothing given up, the same stacks", names[k]);
		free(b.p);
	}
	/* few repeats (70,000 stacks of their own, 110 bytes each): the count
	 * gives up at the 65,536th sample (7.2 MB on), before which no page
	 * moves */
	struct buf u = { 0 };
	static const struct label pad[16] = { { 11, 12, 0 }, { 11, 15, 0 }, { 5, 6, 0 }, { 5, 7, 0 },
	                                      { 6, 7, 0 }, { 6, 12, 0 }, { 7, 15, 0 }, { 7, 5, 0 },
	                                      { 11, 12, 0 }, { 11, 15, 0 }, { 5, 6, 0 }, { 5, 7, 0 },
	                                      { 6, 7, 0 }, { 6, 12, 0 }, { 7, 15, 0 }, { 7, 5, 0 } };
	value_type(&u, 1, 2);
	value_type(&u, 3, 4);
	for (int64_t i = 0; i < 70000; i++) {
		int64_t locs[4] = { 3, 2, 1, 1000 + i }, vals[2] = { 1, 2 };
		sample(&u, locs, 4, vals, 2, ONE, pad, 16, false);
	}
	ahead_tail(&u);
	struct result *r = load_gz(&u, &(struct pprof_options){ .threads = 2 }, false);
	ok(r->rc == 0 && strcmp(r->folded, "[unknown];main;parse;lex 140000\n") == 0 && r->info.early == 0 &&
	   r->info.reused == 0 && !r->info.again, "a gzip'ed file of few repeats: no page moved, read once (%zu bytes)",
	   u.n);
	free(u.p);
	/* read twice, but the file is gone */
	uint64_t sums[2][4], before;
	struct buf b = reuse_profile(RU_DEFAULT, sums, &before);
	r = load_gz(&b, &(struct pprof_options){ .threads = 1 }, true);
	if (movable) {
		ok(r->rc == 1 && strcmp(r->folded, "") == 0, "a file to read twice, removed: not read, nothing added");
		okm(has(r->msgs, "p.pb: cannot read it again (No such file or directory)"), "... and said", r->msgs);
	} else {
		skip(2, "%s", why);
	}
	free(b.p);
}

/* With --threads of 2 or more, a big profile read in file order has its
 * second half of samples read on a thread into a cache of its own, and
 * taken into the main thread's (pprof.c: pp_samples): the same stacks,
 * counts, messages and name table as read on one thread. 300,000 samples
 * (the path needs 2^18): stacks of an early set throughout, stacks of a
 * late set (with names of their own, one with a dangling location) only
 * after sample 200,000, malformed samples only there; the sums worked out
 * here as the samples are written. */
static const char *const s6[] = { "", "samples", "count", "cpu", "nanoseconds", "main", "a", "b", "c",
	"late", "later", "x" };
static struct buf half_profile(uint64_t sums[8], uint64_t *total, uint64_t *nsamples, uint64_t *dangling,
                               uint64_t *early, char *names, size_t size, int variant)
{
	static const char *const fname[8] = { "", "main", "a", "b", "c", "late", "later", "x" };
	/* leaf first; 99 is no location */
	static const int64_t st[8][3] = { { 1 }, { 2, 1 }, { 3, 1 }, { 4, 2, 1 }, { 3, 2, 1 },
	                                  { 5, 2, 1 }, { 6, 5, 1 }, { 7, 99, 1 } };
	static const size_t sn[8] = { 1, 2, 2, 3, 3, 3, 3, 3 };
	static const struct label pad[12] = { { 5, 6, 0 }, { 5, 7, 0 }, { 5, 8, 0 }, { 5, 9, 0 }, { 5, 10, 0 },
	                                      { 5, 11, 0 }, { 6, 5, 0 }, { 6, 7, 0 }, { 6, 8, 0 }, { 6, 9, 0 },
	                                      { 6, 10, 0 }, { 6, 11, 0 } };
	struct buf b = { 0 };
	uint64_t x = 0x2545f4914f6cdd1dULL;
#define RND() (x ^= x << 13, x ^= x >> 7, x ^= x << 17, x)
	value_type(&b, 1, 2);
	value_type(&b, 3, 4);
	memset(sums, 0, 8 * sizeof *sums);
	snprintf(names, size, "\nall\n");    /* (the leading newline: for strstr) */
	*total = *nsamples = *dangling = *early = 0;
	/* counted as a stream arrives (pprof_options.ahead): the samples
	 * before the first malformed one, or before the string table */
	int early_end = variant == 2 ? 100001 : 250001;
	for (int i = 0; i < 300000; i++) {
		unsigned k = (unsigned)(RND() % (i < 200000 ? 5 : 8));
		int64_t vals[2] = { (int64_t)(RND() % 4), 0 };
		vals[1] = vals[0] * 1000;
		bool bad = i == 250001 || i == 280002;     /* one value for two types */
		/* variant 1: one sample late in the file with its locations
		 * unpacked, which the thread leaves to the main thread; 1 and
		 * 2: every sample with labels (26 MB: the thread passes pages
		 * it could give back before it meets that one); 2: the string
		 * table among the samples (their pages read from a pipe are
		 * not given back) */
		sample(&b, st[k], sn[k], vals, bad ? 1 : 2, variant == 1 && i == 298000 ? UNPACKED : ONE, pad,
		       variant ? sizeof pad / sizeof pad[0] : 0, false);
		if (variant == 2 && i == 100000)
			strings(&b, s6, sizeof s6 / sizeof s6[0]);
		*dangling += k == 7;    /* counted as each sample is read */
		if (bad || !vals[0])
			continue;
		if (!sums[k])   /* its first appearance: its names not seen yet */
			for (size_t j = sn[k]; j-- > 0;) {
				const char *nm = st[k][j] == 99 ? "[unknown]" : fname[st[k][j]];
				char line[32];
				snprintf(line, sizeof line, "\n%s\n", nm);
				if (!strstr(names, line))
					snprintf(names + strlen(names), size - strlen(names), "%s\n", nm);
			}
		sums[k] += (uint64_t)vals[1];
		*total += (uint64_t)vals[1];
		++*nsamples;
		*early += i < early_end;
	}
#undef RND
	for (uint64_t l = 1; l <= 7; l++)
		location(&b, l, 0, 0x1000 * l, &l, 1, false);
	for (uint64_t f = 1; f <= 7; f++)
		function(&b, f, (int64_t)(4 + f), 0, false);
	if (variant != 2)
		strings(&b, s6, sizeof s6 / sizeof s6[0]);
	return b;
}

static void test_half_of(int variant)
{
	uint64_t sums[8], total, nsamples, dangling, early;
	char names[256];
	struct buf b = half_profile(sums, &total, &nsamples, &dangling, &early, names, sizeof names, variant);
	/* by hand from the stacks above, root first, in name order */
	char want[1024];
	snprintf(want, sizeof want,
	         "main %" PRIu64 "\nmain;[unknown];x %" PRIu64 "\nmain;a %" PRIu64 "\nmain;a;b %" PRIu64
	         "\nmain;a;c %" PRIu64 "\nmain;a;late %" PRIu64 "\nmain;b %" PRIu64 "\nmain;late;later %" PRIu64 "\n",
	         sums[0], sums[7], sums[1], sums[4], sums[3], sums[5], sums[2], sums[6]);
	char msgs[sizeof ((struct result *)0)->msgs];
	/* parts 1: read in parts (forced), on two threads partitioned in two
	 * at the mark nearest the middle (pprof.c: partition) */
	/* th 3: two threads, read from a pipe; 4: the same, its samples
	 * counted as they arrive (pprof_options.ahead), as far as they can
	 * be */
	for (int th = 1; th <= 4; th++)
	for (int parts = 0; parts < 2; parts++) {
		for (int o = 0; o < 2; o++) {
			struct pprof_options opt = { .threads = th < 3 ? th : 2, .parts = (unsigned)parts,
			                             .order = o ? TREE_ORDER_WEIGHT : TREE_ORDER_NAME,
			                             .ahead = th == 4 ? 1 : -1 };
			struct result *r = load_opts(&b, &opt, th >= 3);
			char name[160];
			snprintf(name, sizeof name, "300,000 samples%s on %d thread(s)%s%s, %s order: the stacks' sums",
			         variant == 1 ? " (one unpacked)" : variant == 2 ? " (strings among them)" : "", th < 3 ? th : 2,
			         th == 3 ? " from a pipe" : th == 4 ? " from a pipe, counted as they arrive" : "",
			         parts ? " in parts" : "", o ? "weight" : "name");
			if (parts)
				ok(r->joined, "%s: read in parts", name);
			/* in parts, all are read again */
			ok(r->info.early == (th == 4 && !parts ? early : 0), "... %llu samples counted as they arrived",
			   (unsigned long long)r->info.early);
			is_str(r->folded, want, name);
			ok(r->info.samples == nsamples && r->info.total == total, "... %llu samples, total %llu",
			   (unsigned long long)nsamples, (unsigned long long)total);
			char ref[64];
			snprintf(ref, sizeof ref, "%" PRIu64 " references to locations", dangling);
			okm(has(r->msgs, "skipped 2 malformed samples") && has(r->msgs, ref),
			    "... 2 malformed samples, the dangling references counted", r->msgs);
			if (th == 1 && !parts)
				snprintf(msgs, sizeof msgs, "%s", r->msgs);
			else
				is_str(r->msgs, msgs, "... the same messages as on one thread (the first malformed one)");
		}
	}
	/* the name table and the stacks in input order: first appearance */
	static char one[4096], two[4096];
	names_with(&b, &(struct pprof_options){ .threads = 1, .order = TREE_ORDER_INPUT }, false, one, sizeof one);
	names_with(&b, &(struct pprof_options){ .threads = 2, .order = TREE_ORDER_INPUT }, false, two, sizeof two);
	okm(strncmp(one, names + 1, strlen(names + 1)) == 0, "on one thread: the names in order of first appearance",
	    one);
	is_str(two, one, "on two threads: the same name table and stacks in input order");
	names_with(&b, &(struct pprof_options){ .threads = 2, .order = TREE_ORDER_NAME }, false, two, sizeof two);
	okm(strncmp(two, names + 1, strlen(names + 1)) == 0, "on two threads, name order: the same name table", two);
	free(b.p);
}

/* b's folded stacks (name order) as a mapped file or a stream, with o;
 * malloc'ed (for outputs longer than struct result's). */
static char *folded_big(const struct buf *b, const struct pprof_options *o, bool stream, struct pprof_info *info)
{
	pid_t pid;
	struct source *s = input_open(b, stream, &pid);
	struct tree t;
	tree_init(&t);
	struct result r = { 0 };
	pprof_load(&t, s, "p.pb", o, info, on_msg, &r);
	input_close(s, pid);
	tree_finalize(&t, TREE_ORDER_NAME);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		abort();
	tree_write_folded(&t, f);
	fclose(f);
	tree_free(&t);
	return out;
}

/* 70,000 stacks of 6 frames in 4 groups that share their first 4 names,
 * each sampled 4 times in a row (3 in 4 repeat: the cache holds them, and
 * they go to the tree sorted): the ranges of equal first names are sorted
 * below them on two threads when there are two (pprof.c: srt_names). The
 * same stacks on one thread and two, mapped and counted as they arrive; the
 * lines and the sums by hand. */
static void test_sort_shared(void)
{
	enum { NF = 300, NS = 70000 };
	struct buf b = { 0 };
	value_type(&b, 1, 2);
	value_type(&b, 3, 4);
	for (int i = 0; i < NS; i++) {
		int g = i % 4, x = (i / 4) % NF + 1, y = (i / 4 / NF) % NF + 1;
		/* leaf first: y x, then the group's 4 frames from the root's */
		int64_t locs[6] = { y, x, 1 + g, 5 + g, 9 + g, 13 + g }, vals[2] = { 1, 3 };
		for (int k = 0; k < 4; k++)
			sample(&b, locs, 6, vals, 2, ONE, NULL, 0, false);
	}
	const char **names = malloc((3 + NF) * sizeof *names);
	char (*fn)[8] = malloc(NF * sizeof *fn);
	if (!names || !fn)
		abort();
	names[0] = "";
	names[1] = "samples";
	names[2] = "count";
	for (uint64_t i = 1; i <= NF; i++) {
		snprintf(fn[i - 1], sizeof fn[i - 1], "f%llu", (unsigned long long)i);
		names[2 + i] = fn[i - 1];
		location(&b, i, 0, 0x1000 * i, &i, 1, false);
		function(&b, i, (int64_t)(2 + i), 0, false);
	}
	strings(&b, names, 3 + NF);
	/* (freed before the pipe's writer is forked: its copies would show
	 * as lost in valgrind) */
	free(fn);
	free(names);
	struct pprof_info i1, i2, i3;
	char *one = folded_big(&b, &(struct pprof_options){ .threads = 1 }, false, &i1);
	char *two = folded_big(&b, &(struct pprof_options){ .threads = 2 }, false, &i2);
	char *ahead = folded_big(&b, &(struct pprof_options){ .threads = 2, .ahead = 1 }, true, &i3);
	size_t lines = 0;
	uint64_t sum = 0;
	for (const char *p = one, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
		lines++;
		sum += strtoull(nl - 2, NULL, 10);     /* every count is 12 */
	}
	ok(lines == NS && sum == 12ull * NS, "%d stacks of 6 frames, 4 samples each: one line each of 12 (%zu lines)",
	   NS, lines);
	ok(i1.samples == 4ull * NS && i1.total == 12ull * NS, "... %llu samples, total %llu",
	   (unsigned long long)i1.samples, (unsigned long long)i1.total);
	ok(strcmp(one, two) == 0, "... the same on two threads (the ranges below the first names shared)");
	ok(strcmp(one, ahead) == 0 && i3.early == 4ull * NS, "... and from a stream counted as it arrives (%llu early)",
	   (unsigned long long)i3.early);
	free(one);
	free(two);
	free(ahead);
	free(b.p);
}

static void test_half(void)
{
	test_half_of(0);
	test_half_of(1);        /* the second half read by the main thread after all */
	test_half_of(2);
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/tflame-test-pprof.%ld", (long)getpid());
	char cmd[128];
	snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
	if (system(cmd) != 0)
		return 1;
	test_variants();
	test_sample_types();
	test_labels();
	test_negative();
	test_references();
	test_empty();
	test_truncated();
	test_malformed();
	test_nested();
	test_bounds();
	test_sniff();
	test_go();
	test_parts();
	test_sorted();
	test_half();
	test_ahead();
	test_ahead_unique(70000);
	test_ahead_unique(300000);
	test_reuse();
	test_spec();
	test_sort_shared();
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	return done_testing();
}
