/* Unit tests of source's gzip input, by both inflaters (ISA-L when built
 * with it, and zlib, chosen with TFLAME_INFLATE=zlib), as a mapped file
 * (inflated on a thread) and on a pipe (inline). The compressed members
 * are made here by zlib's deflate, headers and trailers by hand (RFC 1952),
 * so what comes out is checked against the text that went in. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include "bufutil.h"
#include "source.h"
#include "tap.h"

static void put_le32(struct buf *b, uint32_t v)
{
	unsigned char c[4] = { (unsigned char)v, (unsigned char)(v >> 8),
	                       (unsigned char)(v >> 16), (unsigned char)(v >> 24) };
	put(b, c, 4);
}

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

/* n bytes of folded-looking lines, compressible like real ones, ending
 * with '\n' (n >= 1). */
static void text(struct buf *b, size_t n)
{
	static const char *names[] = { "main", "run", "parse_line", "std::vector<int>::push_back",
	                               "malloc", "[unknown]", "do_syscall_64", "f(int)" };
	size_t start = b->n;
	while (b->n - start < n) {
		char line[256];
		int k = 0, depth = 1 + (int)(rnd() % 6);
		for (int d = 0; d < depth; d++)
			k += snprintf(line + k, sizeof line - (size_t)k, "%s%s", d ? ";" : "",
			              names[rnd() % 8]);
		k += snprintf(line + k, sizeof line - (size_t)k, " %u\n", rnd() % 1000);
		size_t room = n - (b->n - start);
		put(b, line, (size_t)k < room ? (size_t)k : room);
	}
	b->p[b->n - 1] = '\n';
}

static size_t name_len;    /* FNAME's length with its NUL, when not 0 */

/* One gzip member of plain[0..n) into out: flags picks the optional header
 * fields (FHCRC 2, FEXTRA 4, FNAME 8, FCOMMENT 16); level 0 stores. */
static void member(struct buf *out, const unsigned char *plain, size_t n, int flags, int level)
{
	struct buf h = { 0 };
	unsigned char fixed[10] = { 0x1f, 0x8b, 8, (unsigned char)flags, 0, 0, 0, 0, 0, 3 };
	put(&h, fixed, 10);
	if (flags & 4) {
		unsigned char x[2 + 4 + 7] = { 11, 0, 'T', 'f', 7, 0, 'e', 'x', 't', 'r', 'a', '!', '!' };
		put(&h, x, sizeof x);
	}
	if (flags & 8 && name_len) {
		for (size_t i = 0; i + 1 < name_len; i++)
			put(&h, "n", 1);
		put(&h, "", 1);
	} else if (flags & 8)
		put(&h, "a-rather-long-original-file-name-for-the-header.folded", 55);
	if (flags & 16)
		put(&h, "a comment, made by test_source", 31);
	if (flags & 2) {
		uint32_t c = (uint32_t)crc32(0, h.p, (uInt)h.n);
		unsigned char hc[2] = { (unsigned char)c, (unsigned char)(c >> 8) };
		put(&h, hc, 2);
	}
	put(out, h.p, h.n);
	free(h.p);

	z_stream z;
	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	size_t cap = deflateBound(&z, (uLong)n) + 16;
	unsigned char *d = malloc(cap);
	if (!d)
		abort();
	z.next_in = (unsigned char *)plain;
	z.avail_in = (uInt)n;
	z.next_out = d;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		abort();
	put(out, d, cap - z.avail_out);
	deflateEnd(&z);
	free(d);
	put_le32(out, (uint32_t)crc32(0, plain, (uInt)n));
	put_le32(out, (uint32_t)n);
}

static char tmpdir[] = "/tmp/test_source.XXXXXX";

/* Everything source delivers from the file or pipe holding in[0..n); *err
 * gets source_error's text ("" when it ended well). */
static unsigned char *drain(struct source *s, size_t *got, char *err, size_t errsize)
{
	struct buf b = { 0 };
	const char *blk;
	ssize_t r;
	err[0] = '\0';
	put(&b, "", 1);     /* a buffer even when nothing comes (memcmp wants one) */
	b.n = 0;
	while ((r = source_next(s, &blk)) > 0)
		put(&b, blk, (size_t)r);
	if (r < 0)
		snprintf(err, errsize, "%s", source_error(s));
	*got = b.n;
	return b.p;
}

enum how { AS_FILE, AS_PIPE };

/* Opens in[0..n) as a file or as the read end of a pipe whose writer (a
 * child) writes it in small uneven pieces, so that reads end at many
 * places, inside headers and trailers too. */
static struct source *open_input(enum how how, const unsigned char *in, size_t n, pid_t *child)
{
	char path[64], err[128];
	*child = -1;
	if (how == AS_FILE) {
		snprintf(path, sizeof path, "%s/in.gz", tmpdir);
		FILE *f = fopen(path, "wb");
		if (!f || fwrite(in, 1, n, f) != n || fclose(f) != 0)
			abort();
		return source_open(path, err, sizeof err);
	}
	int p[2];
	if (pipe(p) != 0)
		abort();
#ifdef F_SETPIPE_SZ
	fcntl(p[1], F_SETPIPE_SZ, 4096);
#endif
	pid_t pid = fork();
	if (pid < 0)
		abort();
	if (pid == 0) {
		close(p[0]);
		size_t off = 0, step = 1;
		while (off < n) {
			size_t k = n - off < step ? n - off : step;
			ssize_t w = write(p[1], in + off, k);
			if (w <= 0)
				_exit(w < 0 && errno == EPIPE ? 0 : 1);
			off += (size_t)w;
			step = step * 7 % 5003 + 1;
		}
		_exit(0);
	}
	close(p[1]);
	*child = pid;
	if (p[0] != STDIN_FILENO) {
		if (dup2(p[0], STDIN_FILENO) < 0)
			abort();
		close(p[0]);
	}
	return source_open("-", err, sizeof err);
}

static const char *inflater_name;

/* in[0..n) must read as want[0..wn) (want NULL: as an error whose text
 * holds want_err, after at most what is good). */
static void check(const char *name, const unsigned char *in, size_t n, const unsigned char *want,
                  size_t wn, const char *want_err)
{
	for (int how = AS_FILE; how <= AS_PIPE; how++) {
		pid_t child;
		struct source *s = open_input((enum how)how, in, n, &child);
		if (!s) {
			ok(0, "%s, %s, %s: opens", inflater_name, how == AS_FILE ? "file" : "pipe", name);
			continue;
		}
		size_t got;
		char err[128];
		unsigned char *out = drain(s, &got, err, sizeof err);
		source_close(s);
		if (child > 0) {
			/* the writer may still be writing (an error stopped the
			 * reader): it meets EPIPE */
			int null = open("/dev/null", O_RDONLY);
			if (null < 0 || dup2(null, STDIN_FILENO) < 0)
				abort();
			if (null != STDIN_FILENO)
				close(null);
			waitpid(child, NULL, 0);
		}
		const char *where = how == AS_FILE ? "file" : "pipe";
		if (!want_err) {
			int same = got == wn && memcmp(out, want, wn) == 0;
			ok(same && !err[0], "%s, %s, %s: %zu bytes as put in", inflater_name, where, name, wn);
			if (!same || err[0])
				printf("#   got %zu bytes (want %zu), error '%s'\n", got, wn, err);
		} else {
			/* what came before the error is a prefix of the text */
			int prefix = want && got <= wn && memcmp(out, want, got) == 0;
			ok(strstr(err, want_err) != NULL && (!want || prefix), "%s, %s, %s: \"%s\"",
			   inflater_name, where, name, want_err);
			if (!strstr(err, want_err) || (want && !prefix))
				printf("#   error '%s', %zu bytes out, a prefix: %d\n", err, got, prefix);
		}
		free(out);
	}
}

static void run_all(void)
{
	struct buf plain = { 0 }, gz = { 0 };

	/* one member of each header kind, small and over the 1 MiB chunks */
	static const size_t sizes[] = { 1, 100, 70000, 3u << 20 };
	static const int flagsets[] = { 0, 8, 2 | 4 | 8 | 16 };
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
		for (size_t f = 0; f < sizeof flagsets / sizeof *flagsets; f++) {
			plain.n = gz.n = 0;
			text(&plain, sizes[i]);
			member(&gz, plain.p, plain.n, flagsets[f], 6);
			char name[96];
			snprintf(name, sizeof name, "one member of %zu bytes, flags %d", sizes[i],
			         flagsets[f]);
			check(name, gz.p, gz.n, plain.p, plain.n, NULL);
		}

	/* stored blocks (level 0): what the fast paths see least */
	plain.n = gz.n = 0;
	text(&plain, 200000);
	member(&gz, plain.p, plain.n, 0, 0);
	check("stored blocks", gz.p, gz.n, plain.p, plain.n, NULL);

	/* 300 members one after the other (cat a.gz b.gz ...), of all header
	 * kinds and sizes, one of them empty: read as one text */
	plain.n = gz.n = 0;
	for (int m = 0; m < 300; m++) {
		size_t at = plain.n;
		size_t k = m == 150 ? 0 : 1 + rnd() % (m % 10 == 0 ? 20000 : 300);
		if (k)
			text(&plain, k);
		member(&gz, plain.p + at, k, (int)(rnd() % 32) & 0x1e, m % 3 ? 6 : 1);
	}
	check("300 members, one empty", gz.p, gz.n, plain.p, plain.n, NULL);
	struct buf many = { 0 }, many_plain = { 0 };
	put(&many, gz.p, gz.n);
	put(&many_plain, plain.p, plain.n);

	/* Damaged: a member's CRC, its size, its data; cut short at several
	 * places; bytes after the end that are not another member. */
	plain.n = gz.n = 0;
	text(&plain, 150000);
	member(&gz, plain.p, plain.n, 8, 6);
	size_t len = gz.n;
	gz.p[len - 8] ^= 0x01;
	check("a wrong CRC", gz.p, len, plain.p, plain.n, "the gzip data is corrupt");
	gz.p[len - 8] ^= 0x01;
	gz.p[len - 3] ^= 0x40;
	check("a wrong size in the trailer", gz.p, len, plain.p, plain.n, "the gzip data is corrupt");
	gz.p[len - 3] ^= 0x40;
	gz.p[10 + 55] = 0xff;   /* the first block header: type 3 is no block type */
	gz.p[10 + 55 + 1] = 0xff;
	check("bad deflate data", gz.p, len, plain.p, plain.n, "the gzip data is corrupt");

	/* headers zlib refuses: a wrong header CRC, a reserved flag, a
	 * method other than deflate */
	plain.n = gz.n = 0;
	text(&plain, 5000);
	member(&gz, plain.p, plain.n, 2 | 8, 6);
	gz.p[10 + 55] ^= 0x10;
	check("a wrong header CRC", gz.p, gz.n, plain.p, plain.n, "the gzip data is corrupt");
	gz.p[10 + 55] ^= 0x10;
	check("the header CRC put right", gz.p, gz.n, plain.p, plain.n, NULL);
	gz.n = 0;         /* no header CRC from here: the checks alone */
	member(&gz, plain.p, plain.n, 8, 6);
	gz.p[3] |= 0x20;
	check("a reserved header flag", gz.p, gz.n, plain.p, plain.n, "the gzip data is corrupt");
	gz.p[3] &= 0x1f;
	gz.p[2] = 7;
	check("method 7", gz.p, gz.n, plain.p, plain.n, "the gzip data is corrupt");

	plain.n = gz.n = 0;
	text(&plain, 150000);
	member(&gz, plain.p, plain.n, 8, 6);
	size_t cuts[] = { 3, 20, 1000, gz.n / 2, gz.n - 20 };
	for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
		char name[64];
		snprintf(name, sizeof name, "cut after %zu of %zu bytes", cuts[i], gz.n);
		check(name, gz.p, cuts[i], plain.p, plain.n, "the gzip data is cut short");
	}
	check("cut inside the trailer", gz.p, gz.n - 3, plain.p, plain.n,
	      "the gzip data is cut short");
	put(&gz, "garbage\n", 8);
	check("garbage after the last member", gz.p, gz.n, plain.p, plain.n,
	      "trailing bytes after the gzip data");

	/* A file that ends on a page boundary: a decoder that read past the
	 * end of its input (8 bytes at a time, say) would fault on the
	 * mapping's end. The name pads the member to 3 pages exactly. */
	plain.n = gz.n = 0;
	text(&plain, 30000);
	name_len = 1;
	member(&gz, plain.p, plain.n, 8, 6);
	if (gz.n <= 3 * 4096) {
		name_len = 3 * 4096 - gz.n + 1;
		gz.n = 0;
		member(&gz, plain.p, plain.n, 8, 6);
		check("a file of exactly 3 pages", gz.p, gz.n, plain.p, plain.n, NULL);
	} else {
		ok(0, "the 3-page member: %zu bytes with no name", gz.n);
	}
	name_len = 0;

	/* a member cut short after 299 whole ones: those come out first */
	put(&many, many.p, 1000);
	check("300 members, then a cut one", many.p, many.n, many_plain.p, many_plain.n,
	      "the gzip data is cut short");

	free(plain.p);
	free(gz.p);
	free(many.p);
	free(many_plain.p);
}

/* ---- a mapped file: blocks read with pread, source_pread ---- */

static void mapped_tests(void)
{
	/* 3 MiB of lines of 1 to 300 bytes, one of 200 KiB (longer than a
	 * read block's slack) across the 2 MiB mark, no newline at the end:
	 * blocks of 1 MiB and a line are read (pread) up to the long line,
	 * which the mapping gives, with the rest */
	struct buf b = { 0 };
	char line[320];
	while (b.n < ((size_t)3 << 20)) {
		if (b.n >= ((size_t)2 << 20) - 1000 && b.n < ((size_t)2 << 20)) {
			for (size_t k = 0; k < (200 << 10); k++)
				put(&b, k % 61 ? "x" : ";", 1);
			put(&b, " 1\n", 3);
			continue;
		}
		size_t l = 1 + rnd() % 300;
		for (size_t k = 0; k < l; k++)
			line[k] = (char)('a' + rnd() % 26);
		line[l] = '\n';
		put(&b, line, l + 1);
	}
	put(&b, "last 1", 6);
	char path[64], err[128];
	snprintf(path, sizeof path, "%s/mapped", tmpdir);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(b.p, 1, b.n, f) != b.n || fclose(f) != 0)
		abort();
	struct source *s = source_open(path, err, sizeof err);
	const char *d;
	size_t len;
	ok(s && source_mapping(s, &d, &len) && len == b.n, "a %zu-byte file is mapped", b.n);
	if (!s)
		return;
	/* source_pread at offsets worked out here */
	char *got = malloc(b.n + 10);
	int same = 1;
	for (int k = 0; k < 50; k++) {
		size_t off = rnd() % b.n, n = rnd() % 70000;
		size_t want = off + n <= b.n ? n : b.n - off;
		ssize_t r = source_pread(s, got, n, off);
		same &= r == (ssize_t)want && memcmp(got, b.p + off, want) == 0;
	}
	ok(same, "source_pread: 50 reads at random offsets give the file's bytes, fewer at its end");
	ok(source_pread(s, got, 10, b.n) == 0 && source_pread(s, got, 10, b.n + 5) == 0,
	   "source_pread at and past the end: 0 bytes");
	/* blocks: whole lines (the last may lack its newline), the file in
	 * order, the long line in one block */
	struct buf all = { 0 };
	const char *blk;
	ssize_t r;
	int whole = 1, blocks = 0, long_whole = 0;
	size_t first = 0;
	while ((r = source_next(s, &blk)) > 0) {
		if (!blocks++)
			first = (size_t)r;
		if (all.n + (size_t)r < b.n)
			whole &= blk[r - 1] == '\n';
		for (ssize_t k = 0; k + (200 << 10) <= r; k++)
			if (memcmp(blk + k, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx;", 61) == 0) {
				long_whole |= memchr(blk + k, '\n', (size_t)(r - k)) != NULL;
				break;
			}
		put(&all, blk, (size_t)r);
	}
	ok(r == 0 && all.n == b.n && memcmp(all.p, b.p, b.n) == 0, "source_next: the file's bytes in %d blocks", blocks);
	ok(whole, "  ... each block whole lines");
	ok(first >= ((size_t)1 << 20) && first <= ((size_t)1 << 20) + (64 << 10),
	   "  ... the first 1 MiB and the rest of its line (%zu bytes), read into a buffer", first);
	ok(blocks == 2 && long_whole, "  ... the 200 KiB line whole in the second block, the mapping's (%d blocks)", blocks);
	source_close(s);
	free(all.p);
	free(got);
	free(b.p);
	unlink(path);
	/* not a mapped file: -1 */
	int p[2];
	if (pipe(p) == 0) {
		int keep = dup(STDIN_FILENO);
		if (write(p[1], "a 1\n", 4) == 4 && dup2(p[0], STDIN_FILENO) >= 0) {
			close(p[1]);
			struct source *ps = source_open("-", err, sizeof err);
			char c[4];
			ok(ps && source_pread(ps, c, 4, 0) == -1, "source_pread on a pipe: -1");
			source_close(ps);
		}
		dup2(keep, STDIN_FILENO);
		close(keep);
		close(p[0]);
	}
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
#ifdef HAVE_ISAL
	unsetenv("TFLAME_INFLATE");
	inflater_name = "ISA-L";
	uint64_t seed = rng;
	run_all();
	rng = seed;     /* the same inputs for zlib */
#else
	printf("ok %d # SKIP ISA-L: built without it (configure found no libisal)\n", ++tap_n);
#endif
	setenv("TFLAME_INFLATE", "zlib", 1);
	inflater_name = "zlib";
	run_all();

	mapped_tests();
	char path[64];
	snprintf(path, sizeof path, "%s/in.gz", tmpdir);
	unlink(path);
	rmdir(tmpdir);
	return done_testing();
}
