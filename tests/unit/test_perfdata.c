/* Unit tests of the perf.data reader on files built here, record by record,
 * so that they need neither perf nor the machine that recorded: code lives
 * in anonymous memory named by perf map files under a --symfs directory.
 * Each expected folded output was worked out by hand from the records
 * (comments say how); the same records are then read in the stream form
 * (perf record -o -) and inside zstd-compressed records (perf record -z),
 * which must give the same stacks. */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif
#include "perfdata.h"
#include "source.h"
#include "bufutil.h"
#include "tap.h"
#include "tree.h"

/* ---- building records ----------------------------------------------------- */


static void put64(struct buf *b, uint64_t v) { put(b, &v, 8); }
static void put32(struct buf *b, uint32_t v) { put(b, &v, 4); }
static void put16(struct buf *b, uint16_t v) { put(b, &v, 2); }

/* A string padded with NULs to a multiple of 8 bytes (at least one NUL). */
static void putstr8(struct buf *b, const char *s)
{
	size_t n = strlen(s) + 1, pad = (n + 7) / 8 * 8;
	put(b, s, strlen(s));
	for (size_t i = strlen(s); i < pad; i++)
		put(b, "", 1);
}

static void header(struct buf *b, uint32_t type, uint16_t misc, size_t size)
{
	put32(b, type);
	put16(b, misc);
	put16(b, (uint16_t)size);
}

/* sample_type of the one event: IP, TID, TIME, PERIOD, CALLCHAIN */
#define ST (1u | 2u | 4u | 256u | 32u)
#define USER 2
#define KERNEL 1
#define CTX_USER ((uint64_t)-512)
#define CTX_KERNEL ((uint64_t)-128)
#define CTX_GUEST ((uint64_t)-2048)

/* The sample_id trailer of other records: TID and TIME, as ST has. */
static void trailer(struct buf *b, uint32_t pid, uint32_t tid, uint64_t time)
{
	put32(b, pid);
	put32(b, tid);
	put64(b, time);
}

static void comm(struct buf *b, uint32_t pid, uint32_t tid, const char *name, bool exec, uint64_t time)
{
	size_t n = (strlen(name) + 1 + 7) / 8 * 8;
	header(b, 3, (uint16_t)(USER | (exec ? 1u << 13 : 0)), 8 + 8 + n + 16);
	put32(b, pid);
	put32(b, tid);
	putstr8(b, name);
	trailer(b, pid, tid, time);
}

static void mmap2(struct buf *b, uint32_t pid, uint64_t start, uint64_t len, const char *file, uint64_t time)
{
	size_t n = (strlen(file) + 1 + 7) / 8 * 8;
	header(b, 10, USER, 8 + 8 + 24 + 24 + 8 + n + 16);
	put32(b, pid);
	put32(b, pid);
	put64(b, start);
	put64(b, len);
	put64(b, 0);                    /* pgoff */
	put32(b, 0); put32(b, 0);       /* maj, min */
	put64(b, 0); put64(b, 0);       /* ino, generation */
	put32(b, 7);                    /* prot: rwx */
	put32(b, 0x22);                 /* flags: private, anonymous */
	putstr8(b, file);
	trailer(b, pid, pid, time);
}

static void fork_(struct buf *b, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t time)
{
	header(b, 7, USER, 8 + 16 + 8 + 16);
	put32(b, pid);
	put32(b, ppid);
	put32(b, tid);
	put32(b, ptid);
	put64(b, time);
	trailer(b, pid, tid, time);
}

static void sample(struct buf *b, uint32_t pid, uint32_t tid, uint64_t time, uint64_t period,
                   const uint64_t *chain, size_t n)
{
	header(b, 9, USER, 8 + 8 + 8 + 8 + 8 + 8 + 8 * n);
	put64(b, n > 1 ? chain[1] : 0); /* IP (not used with a callchain) */
	put32(b, pid);
	put32(b, tid);
	put64(b, time);
	put64(b, period);
	put64(b, n);
	for (size_t i = 0; i < n; i++)
		put64(b, chain[i]);
}

static void round_(struct buf *b)
{
	header(b, 68, 0, 8);
}

static void lost(struct buf *b, uint64_t n, uint64_t time)
{
	header(b, 2, USER, 8 + 16 + 16);
	put64(b, 1);
	put64(b, n);
	trailer(b, 0, 0, time);
}

/* The records of the test, in file order (times out of order inside a
 * round, as several CPUs' buffers give them). */
static void records(struct buf *b)
{
	uint64_t deep[1 + 130];

	/* pid 100 "prog", its code at 0x10000 named by /tmp/perf-100.map:
	 * alpha [0x10000,+0x100), beta [0x10100,+0x100), gamma [0x10200,+0xe00) */
	comm(b, 100, 100, "prog", true, 1);
	mmap2(b, 100, 0x10000, 0x1000, "//anon", 2);
	/* leaf alpha, called by beta, called by gamma: "prog;gamma;beta;alpha 5" */
	sample(b, 100, 100, 10, 5, (uint64_t[]){ CTX_USER, 0x10010, 0x10150, 0x10250 }, 4);
	round_(b);
	/* pid 200 forks from 100: its comm and a copy of its maps */
	fork_(b, 200, 100, 200, 100, 20);
	sample(b, 200, 200, 25, 7, (uint64_t[]){ CTX_USER, 0x10150 }, 2);   /* prog;beta 7 */
	/* it execs: new comm, new code named by /tmp/perf-200.map (delta) */
	comm(b, 200, 200, "child", true, 30);
	mmap2(b, 200, 0x10000, 0x1000, "//anon", 31);
	sample(b, 200, 200, 35, 1, (uint64_t[]){ CTX_USER, 0x10400 }, 2);   /* child;delta 1 */
	/* a thread never announced: comm ":101", the leader's maps */
	sample(b, 100, 101, 40, 2, (uint64_t[]){ CTX_USER, 0x10010 }, 2);   /* :101;alpha 2 */
	/* out of order within a round: the rename at 50 comes first in the
	 * file but applies after the sample at 45 */
	comm(b, 100, 100, "renamed", false, 50);
	sample(b, 100, 100, 45, 3, (uint64_t[]){ CTX_USER, 0x10010 }, 2);   /* prog;alpha 3 */
	round_(b);
	sample(b, 100, 100, 55, 4, (uint64_t[]){ CTX_USER, 0x10010 }, 2);   /* renamed;alpha 4 */
	/* a context perf does not know: the chain is dropped */
	sample(b, 100, 100, 60, 11, (uint64_t[]){ CTX_GUEST, 0x10010 }, 2);
	/* a kernel frame with no kernel map, then user code:
	 * "renamed;alpha;[unknown] 6" (a kernel address, unmapped) */
	sample(b, 100, 100, 65, 6, (uint64_t[]){ CTX_KERNEL, 0xffffffff81000000ull, CTX_USER, 0x10010 }, 4);
	/* 130 frames of beta: perf script keeps 127 */
	deep[0] = CTX_USER;
	for (int i = 1; i <= 130; i++)
		deep[i] = 0x10100;
	sample(b, 100, 100, 70, 8, deep, 131);
	lost(b, 3, 75);
	/* a record type from the future: skipped */
	header(b, 99, 0, 16);
	put64(b, 0);
	round_(b);
}

static const char *expected(void)
{
	static char want[4096];
	char deep[127 * 5 + 1] = "";
	for (int i = 0; i < 127; i++)
		strcat(deep, ";beta");
	/* byte order of the stacks (tree_write_folded sorts as strings) */
	snprintf(want, sizeof want,
	         ":101;alpha 2\n"
	         "child;delta 1\n"
	         "prog;alpha 3\n"
	         "prog;beta 7\n"
	         "prog;gamma;beta;alpha 5\n"
	         "renamed;alpha 4\n"
	         "renamed;alpha;[unknown] 6\n"
	         "renamed%s 8\n", deep);
	return want;
}

/* A kernel mapping as perf record writes it: pid -1, the map of
 * "[kernel.kallsyms]_text" whose pgoff is _text's address. */
static void kernel_mmap(struct buf *b, uint64_t start, uint64_t len, uint64_t text)
{
	const char *name = "[kernel.kallsyms]_text";
	size_t n = (strlen(name) + 1 + 7) / 8 * 8;
	header(b, 1, KERNEL, 8 + 8 + 24 + n + 16);
	put32(b, (uint32_t)-1);
	put32(b, 0);
	put64(b, start);
	put64(b, len);
	put64(b, text);
	putstr8(b, name);
	trailer(b, (uint32_t)-1, 0, 1);
}

/* perf_event_attr, 128 bytes (PERF_ATTR_SIZE_VER7): software cpu-clock,
 * sample_id_all, sampling 1000 times a second. */
static void attr(struct buf *b)
{
	unsigned char a[128] = { 0 };
	uint32_t type = 1, size = 128;
	uint64_t config = 0, freq = 1000, st = ST, flags = (1u << 8) | (1u << 9) | (1u << 10) | (1u << 18);
	memcpy(a, &type, 4);
	memcpy(a + 4, &size, 4);
	memcpy(a + 8, &config, 8);
	memcpy(a + 16, &freq, 8);
	memcpy(a + 24, &st, 8);
	memcpy(a + 40, &flags, 8);
	put(b, a, sizeof a);
}

/* EVENT_DESC: one event named "cpu-clock:u" with id 1. */
static void event_desc(struct buf *b)
{
	put32(b, 1);
	put32(b, 128);
	attr(b);
	put32(b, 1);
	put32(b, 16);
	putstr8(b, "cpu-clock:u");      /* 12 bytes, padded to 16 */
	put64(b, 1);
}

static const uint8_t kernel_bid[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

/* The file form: header, attribute and its ids, records, features
 * (EVENT_DESC; with kbid, also BUILD_ID naming kernel_bid for the kernel). */
static struct buf file_form_k(const struct buf *recs, bool kbid)
{
	struct buf b = { 0 }, desc = { 0 }, ids = { 0 };
	uint64_t aoff = 104, asize = 128 + 16, ioff = aoff + asize, doff = ioff + 8;
	event_desc(&desc);
	if (kbid) {
		/* one build id record: header, pid, 20 bytes, size, 3 spare, name */
		header(&ids, 67, KERNEL | (1u << 15), 8 + 4 + 24 + 24);
		put32(&ids, (uint32_t)-1);
		put(&ids, kernel_bid, 20);
		put(&ids, "\x14\0\0\0", 4);
		putstr8(&ids, "[kernel.kallsyms]");
		while (ids.n < 8 + 4 + 24 + 24)
			put(&ids, "", 1);
	}
	put64(&b, 0x32454c4946524550ULL);
	put64(&b, 104);
	put64(&b, 128 + 16);
	put64(&b, aoff);
	put64(&b, asize);
	put64(&b, doff);
	put64(&b, recs->n);
	put64(&b, 0);
	put64(&b, 0);
	put64(&b, (1u << 12) | (kbid ? 1u << 2 : 0));  /* features: EVENT_DESC, BUILD_ID */
	put64(&b, 0);
	put64(&b, 0);
	put64(&b, 0);
	attr(&b);
	put64(&b, ioff);
	put64(&b, 8);
	put64(&b, 1);                   /* the id */
	put(&b, recs->p, recs->n);
	/* the feature table (in bit order), then the sections */
	uint64_t sec = doff + recs->n + (kbid ? 32 : 16);
	if (kbid) {
		put64(&b, sec);
		put64(&b, ids.n);
		sec += ids.n;
	}
	put64(&b, sec);
	put64(&b, desc.n);
	if (kbid)
		put(&b, ids.p, ids.n);
	put(&b, desc.p, desc.n);
	free(desc.p);
	free(ids.p);
	return b;
}

static struct buf file_form(const struct buf *recs)
{
	return file_form_k(recs, false);
}

/* The stream form: pipe header, HEADER_ATTR, HEADER_FEATURE, records. */
static struct buf pipe_form(const struct buf *recs)
{
	struct buf b = { 0 }, desc = { 0 };
	event_desc(&desc);
	put64(&b, 0x32454c4946524550ULL);
	put64(&b, 16);
	header(&b, 64, 0, 8 + 128 + 8);
	attr(&b);
	put64(&b, 1);
	header(&b, 80, 0, 8 + 8 + desc.n);
	put64(&b, 12);
	put(&b, desc.p, desc.n);
	put(&b, recs->p, recs->n);
	free(desc.p);
	return b;
}

static char dir[] = "/tmp/tflame-test-perfdata.XXXXXX";

static void write_file(const char *name, const void *p, size_t n)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0)
		abort();
}

static void add_msg(void *arg, const char *text)
{
	struct buf *m = arg;
	put(m, text, strlen(text));
	put(m, "\n", 1);
}

/* Reads dir/name with the options; the folded output and the messages. */
static char *load(const char *name, const struct perf_options *po, char **msgs, struct perfdata_info *info)
{
	char path[256], err[128];
	struct tree t;
	struct buf m = { 0 };
	snprintf(path, sizeof path, "%s/%s", dir, name);
	struct source *s = source_open(path, err, sizeof err);
	if (!s)
		abort();
	struct perfdata_options o = { .perf = po, .symfs = dir };
	tree_init(&t);
	perfdata_load(&t, s, name, &o, info, add_msg, &m);
	source_close(s);
	tree_finalize(&t, TREE_ORDER_NAME);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	tree_write_folded(&t, f);
	fclose(f);
	tree_free(&t);
	put(&m, "", 1);
	*msgs = (char *)m.p;
	return out;
}

int main(void)
{
	struct buf recs = { 0 };
	struct perf_options none = { 0 }, pid = { .pid = true }, other = { .event_filter = "task-clock" };
	struct perfdata_info info;
	char *msgs, *out;

	if (!mkdtemp(dir))
		abort();
	char tmp[300];
	snprintf(tmp, sizeof tmp, "%s/tmp", dir);
	mkdir(tmp, 0700);
	/* perf map files: "START SIZE NAME", hex */
	static const char map100[] = "10000 100 alpha\n10100 100 beta\n10200 e00 gamma\n";
	static const char map200[] = "10000 1000 delta\n";
	write_file("tmp/perf-100.map", map100, sizeof map100 - 1);
	write_file("tmp/perf-200.map", map200, sizeof map200 - 1);

	records(&recs);
	struct buf f = file_form(&recs), p = pipe_form(&recs);
	write_file("file.data", f.p, f.n);
	write_file("pipe.data", p.p, p.n);

	out = load("file.data", &none, &msgs, &info);
	is_str(out, expected(), "file form: comm, exec, fork, threads, time order, contexts, 127 frames");
	ok(strstr(msgs, "perf lost 3 samples") != NULL, "file form: lost samples are reported");
	ok(strstr(msgs, "skipped 1 record of types this reader does not know") != NULL,
	   "file form: the record of an unknown type is skipped and reported");
	is_str(info.event, "cpu-clock:u", "the event's name comes from EVENT_DESC");
	/* 9 samples of cpu-clock, the dropped chain's one included */
	is_int((long long)info.samples, 9, "samples counted");
	is_int((long long)info.period, 5 + 7 + 1 + 2 + 3 + 4 + 11 + 6 + 8, "periods summed");
	free(out);
	free(msgs);

	out = load("file.data", &pid, &msgs, &info);
	ok(strstr(out, "prog-100;gamma;beta;alpha 5\n") && strstr(out, ":101-100;alpha 2\n") &&
	   strstr(out, "child-200;delta 1\n"), "--pid: the real process IDs");
	free(out);
	free(msgs);

	struct perf_events evs = { 0 };
	other.events = &evs;
	out = load("file.data", &other, &msgs, &info);
	is_str(out, "", "--event-filter of another event keeps nothing");
	/* what the file had, for the message (issue 18 item 9): the 9
	 * samples above, under the name the filter compares */
	char list[200];
	perf_events_list(&evs, list, sizeof list);
	is_str(list, "cpu-clock (9 samples)", "--event-filter of another event: the file's events counted");
	other.events = NULL;
	free(out);
	free(msgs);

	out = load("pipe.data", &none, &msgs, &info);
	is_str(out, expected(), "stream form: the same stacks");
	free(out);
	free(msgs);

#ifdef HAVE_ZSTD
	{
		/* the records compressed into two COMPRESSED records, cut in the
		 * middle of a record (the stream continues across them) */
		size_t cap = ZSTD_compressBound(recs.n);
		unsigned char *z = malloc(cap);
		ZSTD_CCtx *cc = ZSTD_createCCtx();
		ZSTD_inBuffer in = { recs.p, recs.n, 0 };
		ZSTD_outBuffer zo = { z, cap, 0 };
		if (!z || !cc || ZSTD_isError(ZSTD_compressStream2(cc, &zo, &in, ZSTD_e_end)))
			abort();
		struct buf cr = { 0 };
		size_t half = zo.pos / 2;
		header(&cr, 81, 0, 8 + half);
		put(&cr, z, half);
		header(&cr, 81, 0, 8 + (zo.pos - half));
		put(&cr, z + half, zo.pos - half);
		struct buf cf = file_form(&cr);
		write_file("zstd.data", cf.p, cf.n);
		out = load("zstd.data", &none, &msgs, &info);
		is_str(out, expected(), "compressed records: the same stacks");
		free(out);
		free(msgs);
		free(cf.p);
		free(cr.p);
		ZSTD_freeCCtx(cc);
		free(z);
	}
#endif

	/* A kernel that is not this one: its symbols come from the kallsyms
	 * copy perf record keeps under ~/.debug (by build id), placed at
	 * boot 0x10000000 higher than when recorded (KASLR): _text was at
	 * 0xffffffff81000000, the copy says 0xffffffff91000000, so kfunc_b
	 * at ...91000200 was at ...81000200 and the sample at ...81000250 is
	 * in it. */
	{
		char home[300], kdir[400];
		snprintf(home, sizeof home, "%s/home", dir);
		snprintf(kdir, sizeof kdir, "%s/.debug/[kernel.kallsyms]/deadbeef0102030405060708090a0b0c0d0e0f10", home);
		char cmd[600];
		snprintf(cmd, sizeof cmd, "mkdir -p '%s'", kdir);
		if (system(cmd) != 0)
			abort();
		static const char ksyms[] = "ffffffff91000000 T _text\nffffffff91000100 T kfunc_a\n"
		                            "ffffffff91000200 T kfunc_b\nffffffff91000300 t kfunc_c\n";
		write_file("home/.debug/[kernel.kallsyms]/deadbeef0102030405060708090a0b0c0d0e0f10/kallsyms",
		           ksyms, sizeof ksyms - 1);
		const char *old_home = getenv("HOME");
		char *saved = old_home ? strdup(old_home) : NULL;
		setenv("HOME", home, 1);
		struct buf kr = { 0 };
		comm(&kr, 300, 300, "kprog", true, 1);
		kernel_mmap(&kr, 0xffffffff81000000ull, 0x1000000, 0xffffffff81000000ull);
		sample(&kr, 300, 300, 5, 9, (uint64_t[]){ CTX_KERNEL, 0xffffffff81000250ull }, 2);
		round_(&kr);
		struct buf kf = file_form_k(&kr, true);
		write_file("kernel.data", kf.p, kf.n);
		out = load("kernel.data", &none, &msgs, &info);
		is_str(out, "kprog;kfunc_b 9\n", "another kernel: perf's kallsyms copy, moved by _text's new address");
		free(out);
		free(msgs);
		if (saved) {
			setenv("HOME", saved, 1);
			free(saved);
		} else {
			unsetenv("HOME");
		}
		free(kf.p);
		free(kr.p);
	}

	/* cut short: every prefix of the file reads without crashing */
	{
		bool fine = true;
		for (size_t n = 0; n < f.n; n += 7) {
			write_file("cut.data", f.p, n);
			out = load("cut.data", &none, &msgs, &info);
			fine &= out != NULL;
			free(out);
			free(msgs);
		}
		ok(fine, "every prefix of the file is read without a crash");
	}

	free(recs.p);
	free(f.p);
	free(p.p);
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return done_testing();
}
