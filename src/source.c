#include "config.h"
#include "source.h"

#include <errno.h>
#include <fcntl.h>
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
	/* stream mode */
	char *buf;
	size_t cap, len;    /* buf[0..len) holds unread bytes */
	size_t tail;        /* bytes of the previous block still at buf's start */
};

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
	if (S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size <= SIZE_MAX) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			s->map = m;
			s->maplen = (size_t)st.st_size;
			s->size = (uint64_t)st.st_size;
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
	if (s->pos >= s->maplen) {
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
		if (n == 0 && (s->eof || s->len >= SOURCE_MAX_LINE))
			n = s->len;     /* last line without newline, or an endless one */
		if (n == 0 && s->len < s->cap) {
			scanned = s->len;   /* no whole line yet: read on */
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
	if (s->map)
		return next_mapped(s, buf);
	if (s->tail == s->len && s->eof) {
		s->len = s->tail = 0;
		return 0;
	}
	return next_stream(s, buf);
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
	if (s->map)
		munmap(s->map, s->maplen);
	if (s->own_fd)
		close(s->fd);
	free(s->buf);
	free(s->name);
	free(s);
}
