#include "config.h"
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "xalloc.h"

/* mmap'ed files are handed out in blocks of about this size, so progress
 * can be shown and consumed pages dropped behind the reader. */
#define MAP_BLOCK ((size_t)32 << 20)
#define READ_CHUNK ((size_t)1 << 20)
#define FIRST_BLOCK ((size_t)64 << 10)

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
	int guard;          /* slot in guards[], -1 when none */
	char err[96];       /* why source_next returned -1 */
	/* stream mode */
	char *buf;
	size_t cap, len;    /* buf[0..len) holds unread bytes */
	size_t tail;        /* bytes of the previous block still at buf's start */
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
	return s;
}

static ssize_t next_mapped(struct source *s, const char **out)
{
#ifdef HAVE_MADVISE
	/* Drop the pages of the blocks already consumed: RSS stays near the
	 * tree's size instead of growing with the file. */
	long pg = sysconf(_SC_PAGESIZE);
	size_t upto = pg > 0 ? s->pos / (size_t)pg * (size_t)pg : 0;
	if (upto > s->dropped) {
		madvise(s->map + s->dropped, upto - s->dropped, MADV_DONTNEED);
		s->dropped = upto;
	}
#endif
	if (s->pos >= s->maplen || source_shrank(s)) {
		s->pos = s->maplen;
		s->eof = true;
		return 0;
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
		ssize_t r = read(s->fd, s->buf + s->len, s->cap - s->len);
		if (r < 0) {
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
	if (s->map)
		return next_mapped(s, buf);
	if (s->tail == s->len && s->eof) {
		s->len = s->tail = 0;
		return 0;
	}
	return next_stream(s, buf);
}

ssize_t source_peek(struct source *s, void *dst, size_t n)
{
	if (s->map) {
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

	if (s->map) {
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
		ssize_t r = read(s->fd, out + got, n - got);
		if (r < 0) {
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
	if (!s->map)
		return false;
	*data = s->map;
	*len = s->maplen;
	return true;
}

bool source_at_eof(const struct source *s)
{
	return s->map ? s->pos >= s->maplen : s->eof && s->tail == s->len;
}

uint64_t source_size(const struct source *s)
{
	return s->size;
}

uint64_t source_offset(const struct source *s)
{
	return s->offset;
}

const char *source_name(const struct source *s)
{
	return s->name;
}

void source_close(struct source *s)
{
	if (!s)
		return;
	guard_remove(s->guard);
	if (s->map)
		munmap(s->map, s->maplen);
	if (s->own_fd)
		close(s->fd);
	free(s->buf);
	free(s->name);
	free(s);
}
