#include "config.h"
#include "source.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>
#ifdef HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif
#include "xalloc.h"

/* mmap'ed files are handed out in blocks of about this size, so progress
 * can be shown and consumed pages dropped behind the reader. */
#define MAP_BLOCK ((size_t)32 << 20)
#define READ_CHUNK ((size_t)1 << 20)
#define FIRST_BLOCK ((size_t)64 << 10)
#define INFLATE_CHUNKS 4
#define INFLATE_CHUNK ((size_t)1 << 20)

struct source {
	char *name;
	int fd;
	bool own_fd;
	bool eof;
	uint64_t size;      /* regular file size, else 0 */
	uint64_t offset;    /* bytes delivered */
	/* mmap mode */
	char *map;
	size_t maplen, pos, dropped;
	char *rbuf;                 /* next_mapped's blocks read with pread */
	bool touched;               /* the last block was the mapping's */
	int guard;          /* slot in guards[], -1 when none */
	char err[96];       /* why source_next returned -1 */
	/* stream mode */
	char *buf;
	size_t cap, len;    /* buf[0..len) holds unread bytes */
	size_t tail;        /* bytes of the previous block still at buf's start */
	/* compressed input (gzip, xz, zstd): read as a stream of what it
	 * inflates to; the raw bytes come from the mapping or from fd */
	enum { CODEC_NONE, CODEC_GZIP, CODEC_XZ, CODEC_ZSTD } codec;
	const unsigned char *raw_map;   /* the mapped compressed file, or NULL */
	size_t raw_maplen;
	unsigned char *raw;             /* raw bytes read from fd */
	size_t raw_len, raw_pos;
	uint64_t raw_done;              /* raw bytes consumed */
	bool raw_eof, dec_end;          /* no more raw input; a stream ended */
	/* A compressed file inflates on a thread of its own, a chunk ahead
	 * of the reader (the queue, under mu); pipes inflate inline, as a
	 * thread blocked in read(2) could not be stopped. */
	bool threaded, started;
	pthread_t thr;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct { unsigned char *p; size_t len, pos; uint64_t raw_done; } q[INFLATE_CHUNKS];
	unsigned qhead, qcount;
	bool prod_done, prod_err;       /* the producer ended, with s->err */
	bool stop;                      /* source_close asks it to */
	uint64_t raw_seen;              /* raw bytes behind what was read */
	z_stream *gz;           /* gzip by zlib, when ig is NULL */
#ifdef HAVE_ISAL
	/* gzip by ISA-L: the member's header is parsed here (ISA-L 2.30
	 * rejects a header CRC whose header came in two reads), the deflate
	 * data and the trailer's CRC and size by ISA-L */
	struct inflate_state *ig;
	struct gzhead { int st; uint8_t flg; uint8_t b[10]; unsigned nb; uint32_t skip, crc; } gh;
#endif
	lzma_stream *xz;
	ZSTD_DStream *zs;
};

/* ---- SIGBUS guard for mapped files ----------------------------------------
 * A mapped file that another program truncates makes every access past its
 * new end raise SIGBUS. The handler maps zero pages over the rest of the
 * mapping and returns, so the interrupted reader (any thread, any depth:
 * strtab, tree) simply goes on, sees NUL bytes (the line it was on may
 * come out with NULs in its names) and nothing is left half-updated, which a siglongjmp out of the
 * middle of an insertion could not promise. source_next then ends the input
 * and source_shrank reports it. mmap is a plain system call on the systems
 * we map files on (Linux, BSD), though POSIX does not list it as
 * async-signal-safe. Faults outside our mappings get the previous handler
 * back and happen again, so real bugs still crash (or reach ASan). */
#define GUARDS 8
static struct guard {
	char *volatile addr;        /* NULL: slot free */
	volatile size_t len;
	volatile sig_atomic_t hit;
} guards[GUARDS];
static struct sigaction old_bus;
static int guards_used;
static size_t guard_page;      /* sysconf is not async-signal-safe: asked once */

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)ctx;
	char *a = si->si_addr;
	size_t pg = guard_page;
	for (int k = 0; k < GUARDS && pg > 0; k++) {
		char *m = guards[k].addr;
		size_t len = guards[k].len;
		if (!m || a < m || a >= m + len)
			continue;
		char *from = m + (size_t)(a - m) / pg * pg;
		if (mmap(from, len - (size_t)(from - m), PROT_READ,
		         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
			guards[k].hit = 1;
			return;
		}
		break;
	}
	sigaction(SIGBUS, &old_bus, NULL);
}

static int guard_add(char *m, size_t len)
{
	for (int k = 0; k < GUARDS; k++) {
		if (guards[k].addr)
			continue;
		if (guards_used++ == 0) {
			long pg = sysconf(_SC_PAGESIZE);
			guard_page = pg > 0 ? (size_t)pg : 4096;
			struct sigaction sa;
			memset(&sa, 0, sizeof sa);
			sa.sa_sigaction = on_sigbus;
			sa.sa_flags = SA_SIGINFO;
			sigemptyset(&sa.sa_mask);
			sigaction(SIGBUS, &sa, &old_bus);
		}
		guards[k].hit = 0;
		guards[k].len = len;
		guards[k].addr = m;     /* last: the handler sees a whole slot */
		return k;
	}
	return -1;      /* unguarded: a truncation would be fatal as before */
}

static void guard_remove(int k)
{
	if (k < 0)
		return;
	guards[k].addr = NULL;
	if (--guards_used == 0)
		sigaction(SIGBUS, &old_bus, NULL);
}

/* ---- compressed input --------------------------------------------------- */

#define RAW_CHUNK ((size_t)1 << 20)

static int codec_of(const unsigned char *b, size_t n)
{
	if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b)
		return CODEC_GZIP;
	if (n >= 6 && memcmp(b, "\xfd" "7zXZ\0", 6) == 0)
		return CODEC_XZ;
	if (n >= 4 && memcmp(b, "\x28\xb5\x2f\xfd", 4) == 0)
		return CODEC_ZSTD;
	return CODEC_NONE;
}

static const char *codec_name(int c)
{
	return c == CODEC_GZIP ? "gzip" : c == CODEC_XZ ? "xz" : "zstd";
}

#ifdef HAVE_ISAL
enum { GH_FIXED, GH_XLEN, GH_EXTRA, GH_NAME, GH_COMMENT, GH_HCRC, GH_DONE };
#define GZ_FHCRC 2
#define GZ_FEXTRA 4
#define GZ_FNAME 8
#define GZ_FCOMMENT 16

/* Takes what it can of a gzip member's header (RFC 1952) from in[0..n):
 * *used gets the bytes taken; returns 1 once the header is whole, 0 when it
 * wants more, -1 when it is not one zlib would take either (magic, method,
 * reserved flags, header CRC). */
static int gzhead_take(struct gzhead *h, const unsigned char *in, size_t n, size_t *used)
{
	size_t i = 0;
	while (h->st != GH_DONE && i < n) {
		size_t from = i;
		int st = h->st;
		switch (st) {
		case GH_FIXED:
		case GH_XLEN:
		case GH_HCRC: {
			unsigned want = h->st == GH_FIXED ? 10 : 2;
			while (h->nb < want && i < n)
				h->b[h->nb++] = in[i++];
			if (h->nb < want)
				break;
			h->nb = 0;
			if (h->st == GH_HCRC) {
				if ((h->crc & 0xffff) != (uint32_t)(h->b[0] | h->b[1] << 8))
					return -1;
				h->st = GH_DONE;
				break;
			}
			if (h->st == GH_FIXED) {
				if (h->b[0] != 0x1f || h->b[1] != 0x8b || h->b[2] != 8 || (h->b[3] & 0xe0))
					return -1;
				h->flg = h->b[3];
				h->st = h->flg & GZ_FEXTRA ? GH_XLEN : GH_NAME;
			} else {
				h->skip = (uint32_t)(h->b[0] | h->b[1] << 8);
				h->st = GH_EXTRA;
			}
			break;
		}
		case GH_EXTRA: {
			size_t k = n - i < h->skip ? n - i : h->skip;
			i += k;
			h->skip -= (uint32_t)k;
			if (!h->skip)
				h->st = GH_NAME;
			break;
		}
		case GH_NAME:
		case GH_COMMENT: {
			uint8_t f = h->st == GH_NAME ? GZ_FNAME : GZ_FCOMMENT;
			if (h->flg & f) {
				const unsigned char *z = memchr(in + i, 0, n - i);
				i = z ? (size_t)(z - in) + 1 : n;
				if (!z)
					break;
			}
			h->st = h->st == GH_NAME ? GH_COMMENT : h->flg & GZ_FHCRC ? GH_HCRC : GH_DONE;
			break;
		}
		}
		if (st != GH_HCRC && i > from)  /* the header CRC covers all before it */
			h->crc = (uint32_t)crc32_z(h->crc, in + from, i - from);
	}
	*used = i;
	return h->st == GH_DONE;
}

static void gzhead_start(struct source *s)
{
	memset(&s->gh, 0, sizeof s->gh);
	s->gh.crc = (uint32_t)crc32(0, NULL, 0);
	isal_inflate_reset(s->ig);
	s->ig->crc_flag = ISAL_GZIP_NO_HDR_VER;     /* the trailer's CRC and size checked */
}
#endif

/* Sets up the decoder of s->codec. */
static void codec_start(struct source *s)
{
	switch (s->codec) {
	case CODEC_GZIP: {
#ifdef HAVE_ISAL
		const char *e = getenv("TFLAME_INFLATE");
		if (!e || strcmp(e, "zlib") != 0) {
			s->ig = xmalloc(sizeof *s->ig);
			isal_inflate_init(s->ig);
			gzhead_start(s);
			break;
		}
#endif
		s->gz = xcalloc(1, sizeof *s->gz);
		/* 15 + 32: a zlib or gzip header, found by looking */
		if (inflateInit2(s->gz, 15 + 32) != Z_OK)
			xdie("out of memory");
		break;
	}
	case CODEC_XZ: {
		lzma_stream init = LZMA_STREAM_INIT;
		s->xz = xmalloc(sizeof *s->xz);
		*s->xz = init;
		if (lzma_stream_decoder(s->xz, (uint64_t)1 << 30, LZMA_CONCATENATED) != LZMA_OK)
			xdie("out of memory");
		break;
	}
	case CODEC_ZSTD:
		s->zs = ZSTD_createDStream();
		if (!s->zs || ZSTD_isError(ZSTD_initDStream(s->zs)))
			xdie("out of memory");
		break;
	default:
		break;
	}
}

static void codec_end(struct source *s)
{
	if (s->gz) {
		inflateEnd(s->gz);
		free(s->gz);
	}
#ifdef HAVE_ISAL
	free(s->ig);
#endif
	if (s->xz) {
		lzma_end(s->xz);
		free(s->xz);
	}
	ZSTD_freeDStream(s->zs);
	free(s->raw);
}

/* More raw input; false at its end (or on an error: s->err set). */
static bool raw_more(struct source *s, const unsigned char **in, size_t *n)
{
	if (s->raw_map) {
		*in = s->raw_map + s->raw_done;
		*n = s->raw_maplen - (size_t)s->raw_done;
		return *n > 0;
	}
	if (s->raw_pos < s->raw_len) {
		*in = s->raw + s->raw_pos;
		*n = s->raw_len - s->raw_pos;
		return true;
	}
	if (s->raw_eof)
		return false;
	if (!s->raw)
		s->raw = xmalloc(RAW_CHUNK);
	for (;;) {
		ssize_t r = read(s->fd, s->raw, RAW_CHUNK);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(s->err, sizeof s->err, "read error: %s", strerror(errno));
			return false;
		}
		if (r == 0) {
			s->raw_eof = true;
			return false;
		}
		s->raw_len = (size_t)r;
		s->raw_pos = 0;
		*in = s->raw;
		*n = s->raw_len;
		return true;
	}
}

static void raw_used(struct source *s, size_t k)
{
	s->raw_done += k;
	if (!s->raw_map)
		s->raw_pos += k;
}

/* Up to n inflated bytes into dst: their count, 0 at the end, -1 on an
 * error (s->err says which). */
static ssize_t codec_read(struct source *s, unsigned char *dst, size_t n)
{
	size_t made = 0;
	while (made < n) {
		const unsigned char *in = NULL;
		size_t avail = 0;
		bool more = raw_more(s, &in, &avail);
		if (!more && s->err[0])
			return -1;
		if (!more && (s->dec_end || s->raw_done == 0)) {
			if (!s->dec_end && s->codec != CODEC_NONE) {
				snprintf(s->err, sizeof s->err, "the %s data is empty", codec_name(s->codec));
				return -1;
			}
			break;
		}
		if (more && s->dec_end) {
			/* another member or frame follows (concatenated files) */
			if (s->codec == CODEC_GZIP) {
				if (avail && in[0] != 0x1f) {
					snprintf(s->err, sizeof s->err, "trailing bytes after the gzip data");
					return -1;
				}
#ifdef HAVE_ISAL
				if (s->ig)
					gzhead_start(s);
				else
#endif
				inflateReset(s->gz);
			}
			s->dec_end = false;
		}
		size_t used = 0, out = 0;
		bool end = false, bad = false;
		switch (s->codec) {
		case CODEC_GZIP: {
#ifdef HAVE_ISAL
			if (s->ig && s->gh.st != GH_DONE) {
				int h = gzhead_take(&s->gh, in, avail, &used);
				bad = h < 0;
				break;
			}
			if (s->ig) {
				struct inflate_state *g = s->ig;
				g->next_in = (uint8_t *)in;
				g->avail_in = (uint32_t)(avail > UINT32_MAX ? UINT32_MAX : avail);
				g->next_out = dst + made;
				g->avail_out = (uint32_t)(n - made > UINT32_MAX ? UINT32_MAX : n - made);
				uint32_t ai = g->avail_in, ao = g->avail_out;
				int r = isal_inflate(g);
				used = ai - g->avail_in;
				out = ao - g->avail_out;
				/* the member's trailer checked too: its end */
				end = r == ISAL_DECOMP_OK && g->block_state == ISAL_BLOCK_FINISH;
				bad = r != ISAL_DECOMP_OK;
				break;
			}
#endif
			s->gz->next_in = (unsigned char *)in;
			s->gz->avail_in = (uInt)(avail > UINT32_MAX ? UINT32_MAX : avail);
			s->gz->next_out = dst + made;
			s->gz->avail_out = (uInt)(n - made > UINT32_MAX ? UINT32_MAX : n - made);
			uInt ai = s->gz->avail_in, ao = s->gz->avail_out;
			int r = inflate(s->gz, more ? Z_NO_FLUSH : Z_FINISH);
			used = ai - s->gz->avail_in;
			out = ao - s->gz->avail_out;
			end = r == Z_STREAM_END;
			/* Z_BUF_ERROR: no progress possible, which the checks
			 * below turn into "cut short" at the end of the input */
			bad = r != Z_OK && r != Z_STREAM_END && r != Z_BUF_ERROR;
			break;
		}
		case CODEC_XZ: {
			s->xz->next_in = in;
			s->xz->avail_in = avail;
			s->xz->next_out = dst + made;
			s->xz->avail_out = n - made;
			lzma_ret r = lzma_code(s->xz, more ? LZMA_RUN : LZMA_FINISH);
			used = avail - s->xz->avail_in;
			out = (n - made) - s->xz->avail_out;
			end = r == LZMA_STREAM_END;
			bad = r != LZMA_OK && r != LZMA_STREAM_END && r != LZMA_BUF_ERROR;
			break;
		}
		case CODEC_ZSTD: {
			ZSTD_inBuffer zi = { in, avail, 0 };
			ZSTD_outBuffer zo = { dst + made, n - made, 0 };
			size_t r = ZSTD_decompressStream(s->zs, &zo, &zi);
			used = zi.pos;
			out = zo.pos;
			bad = ZSTD_isError(r);
			end = !bad && r == 0;
			break;
		}
		default:
			return -1;
		}
		raw_used(s, used);
		made += out;
		if (bad) {
			snprintf(s->err, sizeof s->err, "the %s data is corrupt", codec_name(s->codec));
			return -1;
		}
		if (end)
			s->dec_end = true;
		if (!more && !end && !out) {
			snprintf(s->err, sizeof s->err, "the %s data is cut short", codec_name(s->codec));
			return -1;
		}
		if (!used && !out && more && !end) {
			/* no progress with input left: the decoder wants room */
			break;
		}
	}
	return (ssize_t)made;
}

/* The inflating thread: fills free chunks until the end, an error or
 * stop. Only it touches the decoder and s->err until prod_done. */
static void *inflater(void *arg)
{
	struct source *s = arg;
	for (;;) {
		pthread_mutex_lock(&s->mu);
		while (s->qcount == INFLATE_CHUNKS && !s->stop)
			pthread_cond_wait(&s->cv, &s->mu);
		if (s->stop) {
			pthread_mutex_unlock(&s->mu);
			return NULL;
		}
		unsigned slot = (s->qhead + s->qcount) % INFLATE_CHUNKS;
		pthread_mutex_unlock(&s->mu);
		ssize_t r = codec_read(s, s->q[slot].p, INFLATE_CHUNK);
		pthread_mutex_lock(&s->mu);
		if (r <= 0) {
			s->prod_done = true;
			s->prod_err = r < 0;
		} else {
			s->q[slot].len = (size_t)r;
			s->q[slot].pos = 0;
			s->q[slot].raw_done = s->raw_done;
			s->qcount++;
		}
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
		if (r <= 0)
			return NULL;
	}
}

/* Inflated bytes from the queue: like read(2), at most n of them. */
static ssize_t queue_read(struct source *s, unsigned char *dst, size_t n)
{
	if (!s->started) {
		for (int i = 0; i < INFLATE_CHUNKS; i++)
			s->q[i].p = xmalloc(INFLATE_CHUNK);
		if (pthread_create(&s->thr, NULL, inflater, s) != 0) {
			for (int i = 0; i < INFLATE_CHUNKS; i++)
				free(s->q[i].p);
			pthread_cond_destroy(&s->cv);
			pthread_mutex_destroy(&s->mu);
			s->threaded = false;        /* inline, as for pipes */
			return codec_read(s, dst, n);
		}
		s->started = true;
	}
	pthread_mutex_lock(&s->mu);
	while (s->qcount == 0 && !s->prod_done)
		pthread_cond_wait(&s->cv, &s->mu);
	if (s->qcount == 0) {
		bool err = s->prod_err;
		pthread_mutex_unlock(&s->mu);
		return err ? -1 : 0;
	}
	unsigned h = s->qhead;
	pthread_mutex_unlock(&s->mu);
	/* the producer leaves chunk h alone until it is handed back */
	size_t k = s->q[h].len - s->q[h].pos < n ? s->q[h].len - s->q[h].pos : n;
	memcpy(dst, s->q[h].p + s->q[h].pos, k);
	s->q[h].pos += k;
	if (s->q[h].pos == s->q[h].len) {
		pthread_mutex_lock(&s->mu);
		s->raw_seen = s->q[h].raw_done;
		s->qhead = (h + 1) % INFLATE_CHUNKS;
		s->qcount--;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
	return (ssize_t)k;
}

/* read(2) of the input as tflame sees it: inflated when compressed. */
static ssize_t src_read(struct source *s, void *dst, size_t n)
{
	if (s->threaded)
		return queue_read(s, dst, n);
	if (s->codec != CODEC_NONE)
		return codec_read(s, dst, n);
	return read(s->fd, dst, n);
}

/* A compressed mapped file becomes a stream of what it inflates to. */
static void detect_mapped(struct source *s)
{
	int c = codec_of((const unsigned char *)s->map, s->maplen);
	if (c == CODEC_NONE)
		return;
	s->codec = c;
	s->raw_map = (const unsigned char *)s->map;
	s->raw_maplen = s->maplen;
	s->cap = READ_CHUNK;
	s->buf = xmalloc(s->cap);
	codec_start(s);
	s->threaded = pthread_mutex_init(&s->mu, NULL) == 0;
	if (s->threaded && pthread_cond_init(&s->cv, NULL) != 0) {
		pthread_mutex_destroy(&s->mu);
		s->threaded = false;
	}
}

/* Streams: the first raw bytes decide; when not compressed they are the
 * first bytes of the input. */
static int detect_stream(struct source *s)
{
	unsigned char head[6];
	size_t got = 0;
	while (got < sizeof head) {
		ssize_t r = read(s->fd, head + got, sizeof head - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(s->err, sizeof s->err, "read error: %s", strerror(errno));
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	int c = codec_of(head, got);
	if (c == CODEC_NONE) {
		memcpy(s->buf, head, got);
		s->len = got;
		if (got < sizeof head)
			s->eof = true;
		return 0;
	}
	s->codec = c;
	s->raw = xmalloc(RAW_CHUNK);
	memcpy(s->raw, head, got);
	s->raw_len = got;
	if (got < sizeof head)
		s->raw_eof = true;
	codec_start(s);
	return 0;
}

struct source *source_open(const char *path, char *err, size_t errsize)
{
	bool is_stdin = strcmp(path, "-") == 0;
	int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errsize, "%s", strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		snprintf(err, errsize, "%s", strerror(errno));
		if (!is_stdin)
			close(fd);
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errsize, "%s", strerror(EISDIR));
		if (!is_stdin)
			close(fd);
		return NULL;
	}
	struct source *s = xcalloc(1, sizeof *s);
	s->name = xstrdup(is_stdin ? "<stdin>" : path);
	s->fd = fd;
	s->own_fd = !is_stdin;
	s->guard = -1;
	if (S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size <= SIZE_MAX) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			s->map = m;
			s->maplen = (size_t)st.st_size;
			s->size = (uint64_t)st.st_size;
			s->guard = guard_add(m, s->maplen);
#ifdef HAVE_MADVISE
			madvise(m, s->maplen, MADV_SEQUENTIAL);
#endif
			detect_mapped(s);
			return s;
		}
	}
	if (S_ISREG(st.st_mode))
		s->size = (uint64_t)st.st_size;
#ifdef HAVE_POSIX_FADVISE
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	s->cap = READ_CHUNK;
	s->buf = xmalloc(s->cap);
	if (detect_stream(s) != 0) {
		snprintf(err, errsize, "%s", s->err);
		source_close(s);
		return NULL;
	}
	return s;
}

/* next_mapped's block read into s->rbuf (source_pread_lines); NULL when
 * it cannot be (no buffer, a short read of a file that shrank, a longer
 * line). */
static const char *read_block(struct source *s, size_t *n)
{
	if (!s->rbuf && !(s->rbuf = malloc(SOURCE_READ_BLOCK + SOURCE_READ_SLACK)))
		return NULL;
	*n = source_pread_lines(s, s->rbuf, s->pos, s->maplen - s->pos);
	return *n ? s->rbuf : NULL;
}

/* A block of a mapped file: read into a buffer (pread), which costs a
 * copy, where reading the mapping costs mapping its pages (0.69-0.77 s a
 * GiB against 0.22-0.24 s on a Linux 6.18 guest, counting lines); else the
 * mapping's own bytes. */
static ssize_t next_mapped(struct source *s, const char **out)
{
	/* Drop the pages of the blocks already consumed: RSS stays near the
	 * tree's size instead of growing with the file. */
	if (s->pos > s->dropped && s->touched)
		s->dropped = (size_t)((const char *)xgive_back(s->map + s->dropped, s->map + s->pos) - s->map);
	if (s->pos >= s->maplen || source_shrank(s)) {
		s->pos = s->maplen;
		s->eof = true;
		return 0;
	}
	size_t got;
	const char *b = read_block(s, &got);
	s->touched = !b;
	if (b) {
		*out = b;
		s->pos += got;
		s->offset += got;
		if (s->pos >= s->maplen)
			s->eof = true;
		return (ssize_t)got;
	}
	size_t end = s->maplen - s->pos <= MAP_BLOCK ? s->maplen : s->pos + MAP_BLOCK;
	if (end < s->maplen) {
		const char *nl = memchr(s->map + end, '\n', s->maplen - end);
		end = nl ? (size_t)(nl - s->map) + 1 : s->maplen;
	}
	*out = s->map + s->pos;
	size_t n = end - s->pos;
	s->pos = end;
	s->offset += n;
	if (s->pos >= s->maplen)
		s->eof = true;
	return (ssize_t)n;
}

/* Reads until buf holds at least want bytes (want <= cap) or input ends;
 * with `some`, returns after the first read that adds bytes, so that a slow
 * pipe (perf script still running) is parsed as it arrives rather than
 * once a whole block has come. */
static int fill(struct source *s, size_t want, bool some)
{
	while (!s->eof && s->len < want) {
		ssize_t r = src_read(s, s->buf + s->len, s->cap - s->len);
		if (r < 0) {
			if (s->codec != CODEC_NONE)
				return -1;      /* s->err says why */
			if (errno == EINTR)
				continue;
			snprintf(s->err, sizeof s->err, "read error: %s", strerror(errno));
			return -1;
		}
		if (r == 0)
			s->eof = true;
		s->len += (size_t)r;
		if (some && r > 0)
			break;
	}
	return 0;
}

static ssize_t next_stream(struct source *s, const char **out)
{
	/* Move the partial line left over by the previous block to the front. */
	if (s->tail) {
		memmove(s->buf, s->buf + s->tail, s->len - s->tail);
		s->len -= s->tail;
		s->tail = 0;
	}
	size_t want = s->offset == 0 ? FIRST_BLOCK : s->cap;
	size_t scanned = 0;     /* bytes known to hold no newline */
	for (;;) {
		if (want > s->cap) {
			s->cap = want;
			s->buf = xrealloc(s->buf, s->cap);
		}
		/* The first block is filled whole: format detection wants a few
		 * lines. Later ones take what has come, once a line is whole. */
		if (fill(s, want, s->offset != 0) != 0)
			return -1;
		if (s->len == 0)
			return 0;
		size_t n = 0;
		for (size_t i = s->len; i > scanned; i--)
			if (s->buf[i - 1] == '\n') {
				n = i;
				break;
			}
		if (n == 0 && s->len >= SOURCE_MAX_LINE && !s->eof) {
			/* /dev/zero, a binary stream: no text profile has such
			 * lines, and reading on could last forever. */
			snprintf(s->err, sizeof s->err,
			         "a line longer than %zu MiB: not a text profile",
			         SOURCE_MAX_LINE >> 20);
			return -1;
		}
		if (n == 0 && s->eof)
			n = s->len;     /* last line without a newline */
		if (n == 0 && s->len < s->cap) {
			scanned = s->len;   /* no whole line yet: read on */
			/* The first block's 64 KiB held no newline: fill must be
			 * asked for more than it has, or it reads nothing and
			 * this loop spins forever (a long first line on a pipe). */
			if (want <= s->len)
				want = s->cap;
			continue;
		}
		if (n == 0) {
			/* One line longer than the buffer: grow and read on. */
			scanned = s->len;
			want = s->len * 2;
			if (want > SOURCE_MAX_LINE)
				want = SOURCE_MAX_LINE;
			continue;
		}
		*out = s->buf;
		s->tail = n;
		s->offset += n;
		return (ssize_t)n;
	}
}

ssize_t source_next(struct source *s, const char **buf)
{
	*buf = "";      /* a valid pointer even when nothing is delivered */
	if (s->map && s->codec == CODEC_NONE)
		return next_mapped(s, buf);
	if (s->tail == s->len && s->eof) {
		s->len = s->tail = 0;
		return 0;
	}
	return next_stream(s, buf);
}

ssize_t source_peek(struct source *s, void *dst, size_t n)
{
	if (s->map && s->codec == CODEC_NONE) {
		size_t k = n < s->maplen ? n : s->maplen;
		memcpy(dst, s->map, k);
		return (ssize_t)k;
	}
	if (n > s->cap) {
		s->cap = n;
		s->buf = xrealloc(s->buf, s->cap);
	}
	if (fill(s, n, false) != 0)
		return -1;
	size_t k = n < s->len ? n : s->len;
	memcpy(dst, s->buf, k);
	return (ssize_t)k;
}

ssize_t source_read(struct source *s, void *dst, size_t n)
{
	char *out = dst;
	size_t got = 0;

	if (s->map && s->codec == CODEC_NONE) {
		size_t left = s->maplen - s->pos, k = n < left ? n : left;
		memcpy(out, s->map + s->pos, k);
		s->pos += k;
		s->offset += k;
		return (ssize_t)k;
	}
	/* what peek buffered first (tail counts what was consumed of it) */
	if (s->tail < s->len) {
		size_t k = s->len - s->tail < n ? s->len - s->tail : n;
		memcpy(out, s->buf + s->tail, k);
		s->tail += k;
		got = k;
		if (s->tail == s->len)
			s->tail = s->len = 0;
	}
	while (got < n && !s->eof) {
		ssize_t r = src_read(s, out + got, n - got);
		if (r < 0) {
			if (s->codec != CODEC_NONE)
				return -1;
			if (errno == EINTR)
				continue;
			snprintf(s->err, sizeof s->err, "read error: %s", strerror(errno));
			return -1;
		}
		if (r == 0)
			s->eof = true;
		got += (size_t)r;
	}
	s->offset += got;
	return (ssize_t)got;
}

const char *source_error(const struct source *s)
{
	return s->err[0] ? s->err : "read error";
}

bool source_shrank(const struct source *s)
{
	return s->guard >= 0 && guards[s->guard].hit;
}

bool source_mapping(const struct source *s, const char **data, size_t *len)
{
	if (!s->map || s->codec != CODEC_NONE)
		return false;
	*data = s->map;
	*len = s->maplen;
	return true;
}

ssize_t source_pread(const struct source *s, void *dst, size_t n, uint64_t off)
{
	if (!s->map || s->codec != CODEC_NONE)
		return -1;
	size_t got = 0;
	while (got < n) {
		if (off + got > (uint64_t)INT64_MAX)
			break;
		ssize_t r = pread(s->fd, (char *)dst + got, n - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return got ? (ssize_t)got : -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

size_t source_pread_lines(const struct source *s, char *dst, uint64_t off, size_t left)
{
	size_t want = left < SOURCE_READ_BLOCK + SOURCE_READ_SLACK ? left : SOURCE_READ_BLOCK + SOURCE_READ_SLACK;
	if (want == 0 || source_pread(s, dst, want, off) != (ssize_t)want)
		return 0;
	if (left == want)
		return want;
	const char *nl = memchr(dst + SOURCE_READ_BLOCK, '\n', want - SOURCE_READ_BLOCK);
	return nl ? (size_t)(nl - dst) + 1 : 0;
}

bool source_at_eof(const struct source *s)
{
	return s->map && s->codec == CODEC_NONE ? s->pos >= s->maplen : s->eof && s->tail == s->len;
}

bool source_inflates_aside(const struct source *s)
{
	return s->threaded && s->codec != CODEC_NONE;
}

struct source *source_reopen(const struct source *s, char *err, size_t errsize)
{
	if (!s->map || !s->own_fd) {
		snprintf(err, errsize, "not a file");
		return NULL;
	}
	return source_open(s->name, err, errsize);
}

uint64_t source_size(const struct source *s)
{
	return s->size;
}

uint64_t source_offset(const struct source *s)
{
	/* compressed input: progress against the file's size */
	if (s->threaded)
		return s->raw_seen;
	return s->codec != CODEC_NONE ? s->raw_done : s->offset;
}

const char *source_name(const struct source *s)
{
	return s->name;
}

void source_close(struct source *s)
{
	if (!s)
		return;
	if (s->threaded) {
		if (s->started) {
			pthread_mutex_lock(&s->mu);
			s->stop = true;
			pthread_cond_broadcast(&s->cv);
			pthread_mutex_unlock(&s->mu);
			pthread_join(s->thr, NULL);
		}
		for (int i = 0; i < INFLATE_CHUNKS; i++)
			free(s->q[i].p);
		pthread_cond_destroy(&s->cv);
		pthread_mutex_destroy(&s->mu);
	}
	guard_remove(s->guard);
	codec_end(s);
	if (s->map)
		munmap(s->map, s->maplen);
	if (s->own_fd)
		close(s->fd);
	free(s->buf);
	free(s->rbuf);
	free(s->name);
	free(s);
}
